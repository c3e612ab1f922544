"""`sabords score`: what a turn's last dice are worth (:mod:`solver.rules.verdict`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

from ..advice.inputs import CARD, FINAL_CHEST, FINAL_DICE, FIRST_AT_END
from .app import (
    JsonOption,
    NotationOption,
    VariantOption,
    argument,
    command,
    describe_rules,
    echo,
    notation_from,
    option,
    print_json,
    rules_from,
)
from .render import island_lines

if TYPE_CHECKING:
    from ..rules.notation import Notation
    from ..rules.verdict import Verdict

CardArgument = Annotated[str, argument(CARD)]

SCORE_NOTES: dict[str, str] = {
    "rescue_ended": "the turn is not over: the Sorceress must reroll a skull die",
    "island_if_first": "on a first roll these dice go to Skull Island instead (add --first)",
    "rescue_if_unused": ("if the Sorceress is still unused the turn is not over: she must "
                         "reroll a skull die"),
    "chest_on_stop": "the chest only matters on a bust: a stop scores all 8 dice",
}
"""The verdict's notes in the `note` lines of the answer."""


@command("score")
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
    from ..rules.verdict import score_turn

    rules = rules_from(variant)
    notes = notation_from(notation)
    the_card = notes.parse_card(card)
    the_dice = notes.parse_dice(" ".join(dice))
    the_chest = None if chest is None else notes.parse_dice(chest, n=None)
    verdict = score_turn(the_card, the_dice, rules, chest=the_chest, first=first)
    if as_json:
        print_json(verdict.as_dict())
        return
    for line in score_lines(verdict, notes):
        echo(line)


def score_lines(verdict: Verdict, notation: Notation) -> Iterator[str]:
    """The text answer of `sabords score`."""
    from ..rules.scoring import Outcome

    v = verdict
    yield f"card     {notation.card(v.card)}"
    yield f"dice     {notation.dice(v.dice)}" + ("  (first roll)" if v.first else "")
    if v.chest is not None:
        yield f"chest    {notation.dice(v.chest)}"
    yield f"points   {v.points}"
    if v.outcome is Outcome.ALIVE:
        what = ["stop"]
        if v.full_chest:
            what.append("full chest")
        if v.battle_won is not None:
            what.append(f"battle {'won' if v.battle_won else 'lost'}")
        if v.card.doubles:
            what.append("doubled by the captain")
        yield f"outcome  {', '.join(what)}"
        if v.magic:
            yield "         PIRATE MAGIC: nine of a kind wins the game at once"
    elif v.outcome is Outcome.ISLAND and v.island is not None:
        yield f"outcome  Skull Island ({v.skulls} skulls): nothing for the player"
        lines = island_lines(v.island, " " * 9)
        yield f"island   {next(lines)}"
        yield from lines
    else:
        kind = "rescue position ended here" if v.outcome is Outcome.RESCUE else "bust"
        extra = ""
        if v.battle_won is False:
            extra = f": battle lost, minus {v.card.battle_bonus}"
        elif v.card.chest and v.chest is not None:
            extra = ": the dice on the chest still score"
        yield f"outcome  {kind} ({v.skulls} skulls){extra}"
    for note in v.notes:
        yield f"note     {SCORE_NOTES[note.code]}"
    yield f"rules    {describe_rules(v.rules)}"
