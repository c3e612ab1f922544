"""Legal moves: stop, or reroll all but a kept multiset (RULES.md, A turn, step 4; Sorceress).

This module is the one source of the legality of a move:

- :func:`reroll_refusal` names the one rule that rolling all but `kept` dice breaks (how many
  dice roll, `keep_one`, the Sorceress's die alone), :func:`reroll_is_legal` is it naming none;
- :func:`keep_refusal` adds what the position's skulls say: the Sorceress is there and unused,
  and the rescue (exactly 3 skulls with her unused: only her rerolls are legal). The engine
  tabulates :func:`keep_is_legal` for every (skull dice, kept count) pair of each world
  (:mod:`solver.engine.model`), the advisor lists :func:`legal_rerolls`;
- :func:`move_refusal` and :func:`stop_refusal` name the one rule a move from a given position
  breaks (what a player who names an illegal move is told).

What stays on the table during a reroll is :meth:`Reroll.kept_after`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

from ..errors import IllegalMoveError
from .dice import Dice
from .rulebook import BUST_SKULLS, NUM_DICE, NUM_FACES, Card, Face, Rules
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
        """The dice that stay on the table: the kept dice and the locked skulls (less the
        Sorceress's, which is rolled)."""
        return Dice.unchecked((position.skulls - self.sorceress, *self.keep.counts[1:]))


ONE_SKULL = Dice.of((1, 0, 0, 0, 0, 0))


def sub_multisets(dice: Dice) -> Iterator[Dice]:
    """Every distinct sub-multiset of the non-skull dice, in a fixed order."""
    ranges = [range(1)] + [range(dice[f] + 1) for f in range(1, NUM_FACES)]  # no skull kept
    for counts in product(*ranges):
        yield Dice.unchecked(counts)


@lru_cache(maxsize=4096)
def _outcome_of_skulls(card: Card, rules: Rules, skull_dice: int, *, sorceress_unused: bool,
                       n_dice: int = NUM_DICE) -> Outcome:
    """The outcome of a roll after which `skull_dice` skull dice show (it reads the skulls
    only: the other dice are shown as monkeys)."""
    others = max(n_dice - skull_dice, 0)
    return classify_roll(card, Dice.unchecked((skull_dice, others, 0, 0, 0, 0)), rules,
                         first=False, sorceress_unused=sorceress_unused)


def keep_refusal(card: Card, rules: Rules, skull_dice: int, kept: int, *, sorceress: bool = False,
                 sorceress_unused: bool = False, n_dice: int = NUM_DICE) -> str | None:
    """The one rule that keeping `kept` non-skull dice and rolling the others (with
    `sorceress`, one of the `skull_dice` skull dice too) breaks after a roll that shows
    `skull_dice` skull dice, or None: the Sorceress must be there and unused, a rescue
    position (exactly 3 skulls, her reroll unused) allows only her rerolls, and the reroll
    itself must be legal (:func:`reroll_refusal`)."""
    if sorceress and not card.sorceress:
        return "skull dice are locked: only the Sorceress card lets one be rerolled"
    if sorceress and not sorceress_unused:
        return "the Sorceress's reroll is already used this turn (once per turn)"
    rescue = _outcome_of_skulls(card, rules, skull_dice, sorceress_unused=sorceress_unused,
                                n_dice=n_dice) is Outcome.RESCUE
    if rescue and not sorceress:
        return (f"with {BUST_SKULLS} skulls and the Sorceress unused, the move must use her: "
                "reroll a skull die")
    return reroll_refusal(rules, skull_dice, kept, sorceress=sorceress, n_dice=n_dice)


def keep_is_legal(card: Card, rules: Rules, skull_dice: int, kept: int, *,
                  sorceress: bool = False, sorceress_unused: bool = False,
                  n_dice: int = NUM_DICE) -> bool:
    """Whether that keep is legal (:func:`keep_refusal` names no rule)."""
    return keep_refusal(card, rules, skull_dice, kept, sorceress=sorceress,
                        sorceress_unused=sorceress_unused, n_dice=n_dice) is None


def legal_rerolls(
    card: Card, position: Dice, rules: Rules, *, sorceress_unused: bool = False
) -> list[Reroll]:
    """Every distinct legal reroll from an alive (or rescue) position of all the dice."""
    outcome = classify_roll(card, position, rules, first=False, sorceress_unused=sorceress_unused)
    if outcome is Outcome.BUST:
        return []
    n = position.total  # 8 dice; fewer in the tests' reduced games
    legal = {(kept, sorceress): keep_is_legal(card, rules, position.skulls, kept,
                                              sorceress=sorceress,
                                              sorceress_unused=sorceress_unused, n_dice=n)
             for kept in range(n + 1) for sorceress in (False, True)}  # by count: 18 at most
    return [Reroll(keep, sorceress) for keep in sub_multisets(position)
            for sorceress in (False, True) if legal[keep.total, sorceress]]


def move_refusal(
    card: Card, position: Dice, rules: Rules, move: Reroll, *, sorceress_unused: bool
) -> str | None:
    """The one rule that `move` from `position` (all the dice) breaks, or None when it is one
    of :func:`legal_rerolls`. The kept dice must be among the position's non-skull dice."""
    if move.keep.skulls or not move.keep <= position.without_skulls():
        return "the kept dice must be among the non-skull dice showing"
    outcome = classify_roll(card, position, rules, first=False, sorceress_unused=sorceress_unused)
    if outcome is Outcome.BUST:
        return "the turn is over: the skulls have ended it"
    return keep_refusal(card, rules, position.skulls, move.keep.total, sorceress=move.sorceress,
                        sorceress_unused=sorceress_unused, n_dice=position.total)


def stop_refusal(
    card: Card, position: Dice, rules: Rules, *, sorceress_unused: bool = False
) -> str | None:
    """The one rule that stopping at `position` breaks, or None: the skulls have ended the
    turn, or a rescue position must use the Sorceress (stopping there is a bust)."""
    outcome = classify_roll(card, position, rules, first=False, sorceress_unused=sorceress_unused)
    if outcome is Outcome.BUST:
        return "the turn is over: the skulls have ended it"
    if outcome is Outcome.RESCUE:
        return (f"stopping now is a bust: with {BUST_SKULLS} skulls and the Sorceress unused, "
                "the move must use her (reroll a skull die)")
    return None


def can_stop(
    card: Card, position: Dice, rules: Rules, *, sorceress_unused: bool = False
) -> bool:
    """Stopping is allowed from an alive position (in a rescue position it is a bust)."""
    return stop_refusal(card, position, rules, sorceress_unused=sorceress_unused) is None


__all__ = [
    "Face",
    "IllegalMoveError",
    "Reroll",
    "can_stop",
    "keep_is_legal",
    "keep_refusal",
    "legal_rerolls",
    "move_refusal",
    "reroll_is_legal",
    "reroll_refusal",
    "stop_refusal",
    "sub_multisets",
]
