"""`sabords score`: what a turn's last dice are worth (:mod:`solver.rules.verdict`)."""

from __future__ import annotations

from typing import Annotated

from ..advice.inputs import CARD, FINAL_CHEST, FINAL_DICE, FIRST_AT_END
from .application import (
    JsonOption,
    NotationOption,
    VariantOption,
    argument,
    command,
    option,
)

CardArgument = Annotated[str, argument(CARD)]


@command("score", help_only=True)
def score(
    card: CardArgument,
    dice: Annotated[list[str], argument(FINAL_DICE)],
    chest: Annotated[str | None, option(FINAL_CHEST)] = None,
    first: Annotated[bool, option(FIRST_AT_END)] = False,
    variant: VariantOption = None,
    notation: NotationOption = "default",
    as_json: JsonOption = False,
) -> None:
    """The points a turn is worth if it ends with these 8 dice.

    Alive dice (fewer than 3 skulls, the card's skulls included) are a stop and score their
    sets, coins and diamonds, full chest, captain doubling and battle bonus. 3+ skulls are a
    bust: 0, minus the bonus for a battle card, the chest's dice with the chest card
    (--chest). With --first, 4+ skulls are Skull Island: 0 for the player, and the note gives
    the exact distribution of the final skull count and the expected loss per opponent.

    \b
    Examples:
      sabords score none ccccsssd            # 200 + 400 + 100 + 100 + 500 = 1300
      sabords score pirate 3 monkey 3 sword 2 coin
      sabords score chest kkkcccdm --chest cccd
      sabords score captain kkkkmmpc --first
      sabords score coin cccccccc --variant nine_of_a_kind=set --json
      sabords score p ssséééoo --notation braille   # 3 monkeys, 3 swords, 2 coins
    """
