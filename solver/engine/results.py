"""What a turn's solve returns, and what a turn table stores: values, policy, how exact.

Light on purpose (dataclasses, no numpy at import): reading a table and answering from it
needs these types, not the kernel that made them. The policy codes are the kernel's
(:mod:`solver.engine.kernel`): :data:`STOP`, a keep's partial index (a row inside the kernel),
or :data:`NO_MOVE` (:mod:`.codes`). A solution read for a points answer holds the table's
arrays as numpy-free columns (:class:`solver.tables.fileformat.Column`): the same values,
indexed ``[i, 0]`` the same way.

A turn's statistics (:class:`TurnStats`, :class:`ExactTurnStats`, and their average over the
deck) are here too: `sabords ev` reads them from the tables, numpy-free; how they are computed
is :mod:`solver.engine.stats`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, TypeAlias

from ..rational import fraction_text
from ..rules.rulebook import CARD_IDS, CARDS, DECK_SIZE, NUM_DICE, Rules, deck_weights

if TYPE_CHECKING:
    from .positions import BoolArray, FloatArray, IntArray


class PolicyMoveError(RuntimeError):
    """A policy asked for a move the rules do not allow, or had none at a live position (a bug
    in a policy, never the player's input)."""


@dataclass(frozen=True)
class WorldSolution:
    """Values and policy of one world (Sorceress used / unused) of one card."""

    value: FloatArray
    """(n_full, B): value of each position after a reroll; NaN where the turn is over."""
    keep_value: FloatArray
    """(n_partial, B): value of keeping partial position (s, K) and rolling the other dice,
    legal or not, the bust payoff included. A Sorceress reroll from s+1 skull dice keeping
    K is worth ``keep_value`` of (s, K) in the used world."""
    policy: IntArray
    """(n_full, B): STOP, the partial index of the best keep, or NO_MOVE."""
    sorceress: BoolArray
    """(n_full, B): whether the best move uses the Sorceress (its keep is then (s-1, K),
    in the used world's keep values)."""


@dataclass(frozen=True)
class TurnSolution:
    """The solved turn of one card under one objective: values, policy, and how exact."""

    card: str
    rules: Rules
    objective: tuple[object, ...]
    worlds: dict[int, WorldSolution]
    first_value: FloatArray
    """(n_full, B): value of each position as the first roll (island and bust included)."""
    turn_value: FloatArray
    """(B,): the value of the turn before the first roll."""
    sweeps: int
    """Value-iteration sweeps over all layers."""
    residual: float
    """Largest final sweep-to-sweep change of a cyclic layer."""
    bound: float
    """Certified bound on |value - exact value| for every value and keep value."""
    n_dice: int = NUM_DICE

    @property
    def start_world(self) -> int:
        return max(self.worlds)

    def policy(self) -> Policy:
        """The solution's policy (column 0), as :func:`solve_payoff` evaluates one."""
        return {w: (ws.policy[:, :1], ws.sorceress[:, :1]) for w, ws in self.worlds.items()}

    def column(self, j: int) -> TurnSolution:
        """The solution of the batch's column `j` alone (a turn solved for several
        objectives at once: :class:`~solver.engine.objectives.Stacked`), the same numbers."""
        cut = slice(j, j + 1)
        worlds = {w: WorldSolution(ws.value[:, cut], ws.keep_value[:, cut], ws.policy[:, cut],
                                   ws.sorceress[:, cut]) for w, ws in self.worlds.items()}
        return TurnSolution(self.card, self.rules, (*self.objective, j), worlds,
                            self.first_value[:, cut], self.turn_value[cut], self.sweeps,
                            self.residual, self.bound, self.n_dice)


Policy: TypeAlias = "dict[int, tuple[IntArray, BoolArray]]"
"""Per world: (keep code per position, uses-the-Sorceress per position), column 0 used."""


@dataclass(frozen=True)
class ProofRecord:
    """What the exact check found in the policy it was given (counts of positions)."""

    layer_solves: int
    """Exact solves of a layer, over all layers: one each when the given policy was already
    optimal and tie-broken by the rule, more where policy iteration went on."""
    improved: int
    """Positions where, with the layers after them optimal, a move strictly better than the
    given policy's exists: a choice the given policy got wrong."""
    retied: int
    """Positions where the given move is optimal but exactly tied with the move the tie-break
    rule takes."""
    changed: int
    """Positions whose move in the proved policy differs from the given one."""

    def as_dict(self) -> dict[str, int]:
        return {"layer_solves": self.layer_solves, "improved": self.improved,
                "retied": self.retied, "changed": self.changed}


STAT_NAMES = ("ev", "p_bust", "p_island", "island_deduction")
"""The statistics of a turn, in the order `sabords ev` prints them."""


@dataclass(frozen=True)
class TurnStats:
    """How one card's turn ends under the optimal points policy."""

    ev: float
    """Expected points of the turn (the solution's turn value)."""
    p_bust: float
    """Probability that the turn ends in a bust."""
    p_island: float
    """Probability that the turn goes to Skull Island."""
    island_deduction: float
    """Expected points each opponent loses to this turn's Skull Island (0 if none)."""
    bound: float
    """Certified bound on |p_bust|, |p_island| and |island_deduction| errors (policy
    evaluation); the bound on `ev` is the solution's."""

    def as_dict(self) -> dict[str, float]:
        """The four statistics (the keys of `sabords ev --json`)."""
        return {name: getattr(self, name) for name in STAT_NAMES}


@dataclass(frozen=True)
class ExactTurnStats:
    """:class:`TurnStats` in exact numbers: how a card's turn ends under the proved optimal
    points policy (:mod:`solver.engine.exact`)."""

    ev: Fraction
    p_bust: Fraction
    p_island: Fraction
    island_deduction: Fraction

    def as_dict(self) -> dict[str, str]:
        """The four statistics as fractions, ``"p/q"`` (:func:`solver.rational.fraction_text`)."""
        return {name: fraction_text(getattr(self, name)) for name in STAT_NAMES}


def exact_deck_average(per_card: Mapping[str, Fraction]) -> Fraction:
    """The exact average over the 35-card deck (each card weighted by its count / 35) of a
    per-card value. `per_card` must hold every card of the deck; `none` is ignored."""
    missing = [c for c in deck_weights() if c not in per_card]
    if missing:
        raise KeyError(f"deck average needs every card of the deck; missing {missing}")
    return sum((Fraction(CARDS[c].count, DECK_SIZE) * per_card[c] for c in CARD_IDS
                if CARDS[c].count), Fraction(0))


def deck_average(per_card: Mapping[str, float]) -> float:
    """The average over the 35-card deck (with its card counts) of a per-card value.

    `per_card` must hold every card of the deck; `none` (not in the deck) is ignored.
    Summed in the fixed card order, so equal inputs give equal bits.
    """
    weights = deck_weights()
    missing = [c for c in weights if c not in per_card]
    if missing:
        raise KeyError(f"deck average needs every card of the deck; missing {missing}")
    return sum(weights[c] * per_card[c] for c in CARD_IDS if c in weights)
