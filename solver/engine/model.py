"""The turn model of one card: what the rules say about every position, tabulated once.

Everything here comes from calling :mod:`solver.rules.scoring` and :mod:`solver.rules.moves`
position by position (or skull count by skull count, where the rule reads only the skulls); the
kernel, the solver, the game and the simulators read these tables and never re-derive a rule.

**Worlds.**  ``USED``: the Sorceress is spent, or the card has none. ``UNUSED``: the Sorceress
card with her reroll still available (the turn starts there). Legality is per world and is
data: :attr:`TurnModel.live`, :attr:`TurnModel.can_stop`, :attr:`TurnModel.keep_legal` and
:attr:`TurnModel.sorceress_legal`. The rescue (exactly 3 skulls with the Sorceress unused:
only her rerolls are legal, stopping is a bust) is in them: such a position is live, cannot
stop, and no plain keep from it is legal.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..rules.dice import Dice
from ..rules.moves import can_stop, keep_is_legal
from ..rules.rulebook import NUM_DICE, NUM_FACES, Card, Rules
from ..rules.scoring import (
    Outcome,
    bust_score,
    classify_roll,
    island_deduction,
    island_distribution,
    stop_score,
)
from .codes import UNUSED, card_worlds
from .positions import BoolArray, Geometry, IntArray, geometry


@dataclass(frozen=True)
class TurnModel:
    """The rules of one card's turn over every position and partial position.

    Arrays over positions have ``n_full`` entries (full indices of :mod:`.geometry`); arrays
    over partial positions ``n_partial``.
    """

    card: Card
    rules: Rules
    n_dice: int
    worlds: tuple[int, ...]
    """(USED,) for most cards; (USED, UNUSED) for the Sorceress, who starts unused."""
    outcome: dict[int, NDArray[np.object_]]
    """Per world, the Outcome of landing on each position after a reroll."""
    first_outcome: NDArray[np.object_]
    """The Outcome of each position as the first roll of the turn (in the start world)."""
    stop_points: IntArray
    """Points of stopping at each position (meaningful where stopping is allowed)."""
    stop_magic: BoolArray
    """Stopping there is pirate magic (nine of a kind under ``nine_of_a_kind=magic``)."""
    bust_points: IntArray
    """Points of a bust, for each partial position taken as the dice that were not rolled."""
    first_bust_points: int
    island: dict[int, dict[int, Fraction]]
    """Skull dice of a first roll -> exact distribution of the final skull count (dice and
    card) on Skull Island."""
    live: dict[int, BoolArray]
    """Per world: the turn goes on after landing on the position (alive, or the rescue)."""
    can_stop: dict[int, BoolArray]
    """Per world: stopping at the position is allowed (alive; a rescue position is not)."""
    keep_legal: dict[int, BoolArray]
    """Per world: from a live position with ``s`` skull dice, keeping partial position
    ``(s, K)`` and rolling the other dice is legal (False for every keep of a rescue)."""
    sorceress_legal: BoolArray
    """The Sorceress reroll from ``s + 1`` skull dice keeping ``K``, which leaves partial
    position ``(s, K)`` on the table in the used world, is legal (all False but for her card)."""
    cache: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)
    """Derived structures of the kernel, filled on first use. Not an init field, so a model
    made with ``dataclasses.replace`` starts with an empty cache of its own."""

    @property
    def geometry(self) -> Geometry:
        return geometry(self.n_dice)

    @property
    def n_full(self) -> int:
        return int(self.stop_points.shape[0])

    @property
    def start_world(self) -> int:
        return max(self.worlds)

    def island_deduction(self, skull_dice: int) -> dict[int, Fraction]:
        """Skull Island after a first roll with `skull_dice` skull dice: the exact
        distribution of the points each opponent loses
        (:func:`solver.rules.scoring.island_deduction`)."""
        out: dict[int, Fraction] = {}
        for final, p in self.island[skull_dice].items():
            d = island_deduction(self.card, final)
            out[d] = out.get(d, Fraction(0)) + p
        return out

    def max_live_skulls(self) -> int:
        """The most skull dice of a live position, over the worlds (-1 if none is live)."""
        skull_dice = self.geometry.full_counts[:, 0]
        live = np.zeros(self.n_full, dtype=bool)
        for w in self.worlds:
            live |= self.live[w]
        return int(skull_dice[live].max()) if live.any() else -1




def turn_model(card: Card, rules: Rules, n_dice: int = NUM_DICE) -> TurnModel:
    """Tabulate the rules for one card (8 dice; fewer for the tests' reduced games)."""
    return _turn_model(card, rules, n_dice)


@lru_cache(maxsize=64)
def _turn_model(card: Card, rules: Rules, n_dice: int) -> TurnModel:
    g = geometry(n_dice)
    full = _dice_of(n_dice, full=True)
    worlds = card_worlds(card)
    skull_dice = g.full_counts[:, 0]
    # classify_roll and can_stop read only the skull count: one position per count
    sample = [full[int(np.argmax(skull_dice == s))] for s in range(n_dice + 1)]

    def by_skulls(values: list[Any], dtype: Any) -> NDArray[Any]:
        return np.array(values, dtype=dtype)[skull_dice]

    outcome = {
        w: by_skulls([classify_roll(card, d, rules, first=False, sorceress_unused=w == UNUSED)
                      for d in sample], object)
        for w in worlds
    }
    first_outcome = by_skulls(
        [classify_roll(card, d, rules, first=True, sorceress_unused=card.sorceress)
         for d in sample], object)
    live = {w: np.array([o is not Outcome.BUST for o in outcome[w]]) for w in worlds}
    stoppable = {
        w: by_skulls([can_stop(card, d, rules, sorceress_unused=w == UNUSED) for d in sample],
                     bool)
        for w in worlds
    }
    stops = [stop_score(card, d, rules) for d in full]
    if card.chest:
        partial = _dice_of(n_dice, full=False)
        bust_points = np.array([bust_score(card, d, rules) for d in partial], dtype=np.int64)
    else:  # the bust payoff does not depend on the dice (bust_score ignores them)
        bust_points = np.full(g.n_partial, bust_score(card, None, rules), dtype=np.int64)
    skulls, kept = g.counts[:, 0], g.total - g.counts[:, 0]

    def legal(sorceress: bool, unused: bool, extra: int) -> BoolArray:
        # keep (s, K) from positions with s + extra skull dice (moves.keep_is_legal: the
        # reroll's rules and the rescue's), by skull dice and kept count
        table: BoolArray = np.array([[keep_is_legal(card, rules, s + extra, k,
                                                    sorceress=sorceress, sorceress_unused=unused,
                                                    n_dice=n_dice)
                                      for k in range(n_dice + 1)] for s in range(n_dice + 1)])
        out: BoolArray = table[skulls, kept]
        return out

    keep_legal = {w: legal(False, w == UNUSED, 0) for w in worlds}
    sorceress = legal(True, True, 1)
    return TurnModel(
        card=card,
        rules=rules,
        n_dice=n_dice,
        worlds=worlds,
        outcome=outcome,
        first_outcome=first_outcome,
        stop_points=np.array([s.points for s in stops], dtype=np.int64),
        stop_magic=np.array([s.magic for s in stops], dtype=bool),
        bust_points=bust_points,
        first_bust_points=bust_score(card, None, rules),
        island={s: island_distribution(card, s, n_dice) for s in range(n_dice + 1)},
        live=live,
        can_stop=stoppable,
        keep_legal=keep_legal,
        sorceress_legal=sorceress,
    )


@lru_cache(maxsize=16)
def _dice_of(n_dice: int, *, full: bool) -> tuple[Dice, ...]:
    """The dice of every position (`full`) or partial position, in index order: one list for
    every card's tabulation."""
    g = geometry(n_dice)
    counts = g.full_counts if full else g.counts
    return tuple(Dice.unchecked(tuple(c)) for c in counts.tolist())


def symmetries(model: TurnModel) -> IntArray:
    """Permutations of the non-skull faces under which every table of the model is unchanged,
    as partial-index maps (n_perm, n_partial), the identity first. Found by testing every
    permutation on the tabulated rules, not assumed."""
    g = model.geometry
    out = []
    for perm in itertools.permutations(range(1, NUM_FACES)):
        idx = g.indices(g.counts[:, (0, *perm)])
        full = idx[g.full_offset :] - g.full_offset
        same = (
            np.array_equal(model.stop_points[full], model.stop_points)
            and np.array_equal(model.stop_magic[full], model.stop_magic)
            and np.array_equal(model.bust_points[idx], model.bust_points)
            and np.array_equal(model.sorceress_legal[idx], model.sorceress_legal)
            and np.array_equal(model.first_outcome[full], model.first_outcome)
            and all(np.array_equal(model.keep_legal[w][idx], model.keep_legal[w])
                    and np.array_equal(model.can_stop[w][full], model.can_stop[w])
                    and np.array_equal(model.outcome[w][full], model.outcome[w])
                    for w in model.worlds)
        )
        if same:
            out.append(idx)
    return np.array(out, dtype=np.int64)
