"""Legal moves: stop, or reroll all but a kept multiset (RULES.md, A turn, step 4; Sorceress).

`reroll_is_legal` is the one source of the legality of a reroll: the engine tabulates it for
every (skull dice, kept count) pair, the advisor and the simulator call it directly. It is
:func:`reroll_refusal` returning nothing: that function names the one rule a reroll breaks,
and :func:`move_refusal` the one rule a move from a given position breaks (what a player who
names an illegal move is told).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product

from .dice import Dice
from .errors import IllegalMoveError
from .rules import BUST_SKULLS, NUM_DICE, NUM_FACES, Card, Face, Rules, get_card
from .scoring import Outcome, classify_roll


def reroll_refusal(
    rules: Rules, skull_dice: int, kept: int, *, sorceress: bool = False, n_dice: int = NUM_DICE
) -> str | None:
    """The one rule that rolling all non-skull dice but `kept` of them breaks, or None.

    `skull_dice` skull dice lie on the table (locked); with `sorceress`, one of them is rolled
    too. At least 2 dice are rolled (1 is enough for the Sorceress's skull alone under
    `sorceress_alone`), and under `keep_one` at least one of the 8 dice stays unrolled.
    `n_dice` is 8 but for the reduced games the tests solve by brute force.
    """
    if kept < 0 or skull_dice < 0 or skull_dice + kept > n_dice:
        return f"{kept} kept dice and {skull_dice} skull dice are more than the {n_dice} dice"
    if sorceress and skull_dice < 1:
        return "there is no skull die for the Sorceress to reroll"
    rolled = n_dice - skull_dice - kept + (1 if sorceress else 0)
    if sorceress and not rules.sorceress_alone and rolled < 2:
        return ("the Sorceress's skull die cannot be rolled alone (variant sorceress_alone is "
                "off): roll another die with it")
    if rolled < (1 if sorceress else 2):
        return "a reroll rolls at least 2 dice (one die alone is never rolled)"
    if rules.keep_one and n_dice - rolled < 1:
        return f"at least one of the {n_dice} dice stays on the table (variant keep_one)"
    return None


def reroll_is_legal(
    rules: Rules, skull_dice: int, kept: int, *, sorceress: bool = False, n_dice: int = NUM_DICE
) -> bool:
    """Whether rolling all non-skull dice but `kept` of them is allowed
    (:func:`reroll_refusal` names no rule)."""
    return reroll_refusal(rules, skull_dice, kept, sorceress=sorceress, n_dice=n_dice) is None


@dataclass(frozen=True)
class Reroll:
    """Keep `keep` (non-skull dice), roll the rest; with `sorceress`, also one skull die."""

    keep: Dice
    sorceress: bool = False

    def rolled(self, position: Dice) -> Dice:
        """The dice that are rolled from `position` (skull letters for the Sorceress's die)."""
        rest = position.without_skulls() - self.keep
        if self.sorceress:
            rest = rest + ONE_SKULL
        return rest

    def kept_after(self, position: Dice) -> Dice:
        """The dice that stay on the table: the kept dice and the locked skulls."""
        skulls = position.skulls - (1 if self.sorceress else 0)
        return self.keep + Dice.of((skulls, 0, 0, 0, 0, 0))


ONE_SKULL = Dice.of((1, 0, 0, 0, 0, 0))


def sub_multisets(dice: Dice) -> Iterator[Dice]:
    """Every distinct sub-multiset of the non-skull dice, in a fixed order."""
    ranges = [range(1)] + [range(dice[f] + 1) for f in range(1, NUM_FACES)]  # no skull kept
    for counts in product(*ranges):
        yield Dice.unchecked(counts)


def legal_rerolls(
    card: Card | str, position: Dice, rules: Rules, *, sorceress_unused: bool = False
) -> list[Reroll]:
    """Every distinct legal reroll from an alive (or rescue) position of all the dice."""
    card = get_card(card)
    outcome = classify_roll(card, position, rules, first=False, sorceress_unused=sorceress_unused)
    if outcome is Outcome.BUST:
        return []
    can_sorceress = card.sorceress and sorceress_unused and position.skulls >= 1
    must_sorceress = outcome is Outcome.RESCUE
    moves: list[Reroll] = []
    n = position.total  # 8 dice; fewer in the tests' reduced games
    for keep in sub_multisets(position):
        if not must_sorceress and reroll_is_legal(rules, position.skulls, keep.total, n_dice=n):
            moves.append(Reroll(keep, False))
        if can_sorceress and reroll_is_legal(
            rules, position.skulls, keep.total, sorceress=True, n_dice=n
        ):
            moves.append(Reroll(keep, True))
    return moves


def move_refusal(
    card: Card | str, position: Dice, rules: Rules, move: Reroll, *, sorceress_unused: bool
) -> str | None:
    """The one rule that `move` from `position` (all the dice) breaks, or None when it is one
    of :func:`legal_rerolls`. The kept dice must be among the position's non-skull dice."""
    card = get_card(card)
    if move.keep.skulls or not move.keep <= position.without_skulls():
        return "the kept dice must be among the non-skull dice showing"
    outcome = classify_roll(card, position, rules, first=False, sorceress_unused=sorceress_unused)
    if outcome is Outcome.BUST:
        return "the turn is over: the skulls have ended it"
    if move.sorceress and not card.sorceress:
        return "skull dice are locked: only the Sorceress card lets one be rerolled"
    if move.sorceress and not sorceress_unused:
        return "the Sorceress's reroll is already used this turn (once per turn)"
    if outcome is Outcome.RESCUE and not move.sorceress:
        return (f"with {BUST_SKULLS} skulls and the Sorceress unused, the move must use her: "
                "reroll a skull die")
    return reroll_refusal(rules, position.skulls, move.keep.total, sorceress=move.sorceress,
                          n_dice=position.total)


def can_stop(
    card: Card | str, position: Dice, rules: Rules, *, sorceress_unused: bool = False
) -> bool:
    """Stopping is allowed from an alive position (in a rescue position it is a bust)."""
    return (
        classify_roll(card, position, rules, first=False, sorceress_unused=sorceress_unused)
        is Outcome.ALIVE
    )


__all__ = [
    "Face",
    "IllegalMoveError",
    "Reroll",
    "can_stop",
    "legal_rerolls",
    "move_refusal",
    "reroll_is_legal",
    "reroll_refusal",
    "sub_multisets",
]
