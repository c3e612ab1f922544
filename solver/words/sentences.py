"""An advice in one plain English sentence: the first line of `sabords advise` and of each
roll of `sabords turn`, and the ``recommendation`` of their JSON (the web's API returns the same
objects). The page says the same in the player's language with its own words (``words.js``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rules.aims import WIN
from ..rules.dice import DEFAULT_LETTERS, Dice, Letters
from ..rules.rulebook import Card
from ..rules.scoring import Outcome, skulls_of

if TYPE_CHECKING:
    from ..advice.advisor import Advice, Option


def move_words(card: Card, option: Option, letters: Letters = DEFAULT_LETTERS) -> str:
    """'Keep s s s c (on the chest), reroll m p' / 'Use the Sorceress: reroll one skull...' /
    'Stop'."""
    if option.action == "stop":
        return "Stop"
    chest = " (on the chest)" if card.chest else ""
    others = option.reroll - Dice.of((option.reroll.skulls, 0, 0, 0, 0, 0))
    if option.sorceress:
        text = "Use the Sorceress: reroll one skull"
        text += f" with {others.spaced(letters)}" if others.total else " alone"
        if option.keep.total:
            text += f", keep {option.keep.spaced(letters)}{chest}"
        return text
    if not option.keep.total:
        return f"Reroll {others.spaced(letters)}"
    return f"Keep {option.keep.spaced(letters)}{chest}, reroll {others.spaced(letters)}"


def advice_sentence(advice: Advice, letters: Letters = DEFAULT_LETTERS) -> str:
    """The answer in one plain sentence, dice in `letters`."""
    if advice.kind is Outcome.ISLAND:
        assert advice.island is not None
        cost = advice.island.cost_per_skull
        return (
            f"Skull Island: nothing for you this turn; each opponent loses "
            f"{float(advice.island.expected_deduction):.1f} points on average "
            f"({cost} per skull)."
        )
    if advice.kind is Outcome.BUST:
        return _bust_sentence(advice, letters)
    best = advice.options[0]
    if best.action == "stop":
        text = f"Stop: {best.points} points"
        if advice.need is not None:
            reached = best.value >= 1.0
            text += (f" (at least {advice.need}: reached)" if reached
                     else f" ({advice.need} can no longer be reached)")
        return text + "."
    text = move_words(advice.card, best, letters)
    if advice.objective == WIN:
        worth = f"{100 * best.value:.2f} % chance to win the game"
    elif advice.need is None:
        worth = f"expected {best.value:.1f} points"
    else:
        worth = f"{100 * best.value:.1f} % chance of at least {advice.need} points"
    return f"{text}: {worth}, {100 * best.p_bust:.1f} % bust risk."


def _bust_sentence(advice: Advice, letters: Letters) -> str:
    skulls = skulls_of(advice.card, advice.dice)
    text = f"Bust ({skulls} skulls): the turn is over"
    if advice.card.is_battle:
        text += f", the battle is lost: {advice.points} points"
    elif advice.card.chest and advice.chest is not None and advice.chest.total:
        text += (f"; the dice on the chest ({advice.chest.spaced(letters)}) score "
                 f"{advice.points} points")
    elif advice.card.chest and advice.chest is None and not advice.first:
        text += (": 0 points, plus the dice on the chest (the dice not rolled in the last "
                 "roll)")
    else:
        text += f": {advice.points} points"
    if advice.need is not None:
        text += f" (at least {advice.need}: {'reached' if advice.value >= 1.0 else 'missed'})"
    return text + "."


__all__ = ["advice_sentence", "move_words"]
