r"""The exact turn solver: stop-or-reroll Bellman equations over canonical dice multisets.

**States.**  A *position* is the multiset of the 8 dice after a roll, a count per face in the
order k m p s c d (1287 of them), together with the world it is played in: ``used`` (the
Sorceress is spent, or the card has none) or ``unused`` (the Sorceress card, her reroll still
available). A *partial position* ``x = (s, K)`` is what stays on the table before a roll:
``s`` skull dice and the kept non-skull dice ``K``, with ``s + |K| <= 8`` (3003 of them); the
``r = 8 - s - |K|`` other dice are rolled.

**Actions.**  From an alive position ``y = (s, M)`` the player stops, for the payoff
``u_stop(y)``, or keeps a sub-multiset ``K ⊆ M`` and rolls the rest, when
:func:`solver.moves.reroll_is_legal` allows it. With the Sorceress unused, a reroll may also
take one skull die: the partial position is then ``(s - 1, K)`` in the ``used`` world.

**Bellman equation.**  With ``P_r(o)`` the multinomial probability that ``r`` dice show ``o``,

.. math::

   Q(x) = \sum_{o\,:\,x+o \text{ alive}} P_r(o)\, V(x + o) + P(\text{bust} \mid x)\, u_{bust}(x),
   \qquad V(y) = \max\Big(u_{stop}(y),\ \max_{K \subseteq M \text{ legal}} Q(s, K)\Big).

The bust payoff depends on the keep (the chest card scores the dice that were not rolled), so
it is added per partial position; every other payoff is a vector over positions. The payoffs
are data (:class:`Payoff`): expected points, the probability of reaching ``N`` points, or a
game-level utility are solved by the same code.

**Why the solve terminates, and the bound.**  Skulls never leave the table except through the
Sorceress, which moves to the ``used`` world, so the positions fall into layers (world, skull
dice) that depend only on themselves and on layers solved before them: the ``used`` world
from 2 skull dice down to 0, then the ``unused`` world (the rescue layer of exactly 3 skulls
first). Rerolls are unlimited, so each layer's equations are cyclic; inside a layer a reroll
stays only when no skull is rolled, with probability at most :math:`\beta = (5/6)^2 = 25/36`
since at least 2 dice are rolled (the Sorceress's moves leave the layer). The layer's Bellman
operator is therefore a :math:`\beta`-contraction in the sup norm (Puterman, *Markov Decision
Processes*, 1994, §6.3), and value iteration from the stop values converges. After a sweep
:math:`V_{n+1} = T V_n`,

.. math::

   \|V_{n+1} - V^*\|_\infty \le \frac{\beta}{1-\beta}\,\|V_{n+1} - V_n\|_\infty + \varepsilon_{up},

where :math:`\varepsilon_{up}` is the bound of the layers it leads to (an error there is not
amplified: the layer's fixed point moves by at most it, since a reroll reaches other layers
with probability at most :math:`1 - p_{stay}`). Each layer iterates until its share of the
tolerance is met; :class:`TurnSolution` reports the sweeps, the final residual and the
certified bound on every value and every action value. Floating-point rounding (about
:math:`10^{-13}` relative) is below the bound's scale.

The reroll expectation is a sparse matrix over (partial position, position) built once per
process from the multinomial; the layer's part of it, and the keep → position pairs used for
the maximum, are cut out of it per rules object. Summation order is fixed, so results are the
same bit for bit whatever the number of workers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from math import factorial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .dice import Dice
from .moves import reroll_is_legal
from .rules import (
    NUM_DICE,
    NUM_FACES,
    Card,
    Rules,
    get_card,
)
from .scoring import Outcome, bust_score, classify_roll, island_distribution, stop_score

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

BETA = (5 / 6) ** 2
"""Largest probability that a reroll stays in its skull layer (no skull among >= 2 dice)."""
DEFAULT_TOL = 1e-9
"""Certified bound required on every value (points, or probability for `need`)."""
MAX_SWEEPS = 10_000
TIE_TOL = 1e-11
"""Moves whose values differ by less than this are ties for the policy, broken in a fixed
order (stop first, then a reroll without the Sorceress, then the keep with the most dice).
It is far below the certified bound, so a tie-broken move loses at most TIE_TOL / (1 - BETA)
and far above the rounding of the arithmetic, so the policy is stable to the last bits."""


class ConvergenceError(RuntimeError):
    """Value iteration did not reach the required bound (a bug, not a user error)."""


# --------------------------------------------------------------------------------------------
# Geometry: positions, partial positions and the roll distribution (rules-independent)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Geometry:
    """Every partial position of up to `n_dice` dice and the roll distribution between them.

    ``counts[i]`` is partial position ``i`` (ordered by total dice, then lexicographically
    descending); positions (all dice) are the last ``n_full`` of them, from ``full_offset``
    on. Row ``i`` of the roll matrix (entries ``ptr[i]:ptr[i+1]`` of ``col``, ``prob``)
    lists, for rolling the ``n_dice - total`` missing dice from ``i``, each reachable
    position (a full index) and its multinomial probability; ``rolled_skulls`` is how many
    skulls that outcome rolled and ``row`` repeats ``i``.
    """

    n_dice: int
    counts: IntArray  # (n_partial, 6)
    total: IntArray  # (n_partial,)
    full_offset: int
    code_lut: IntArray  # base-(n_dice+1) code -> partial index
    ptr: IntArray
    col: IntArray
    prob: FloatArray
    rolled_skulls: IntArray
    row: IntArray

    @property
    def n_partial(self) -> int:
        return int(self.counts.shape[0])

    @property
    def n_full(self) -> int:
        return self.n_partial - self.full_offset

    @property
    def full_counts(self) -> IntArray:
        return self.counts[self.full_offset :]

    @property
    def empty(self) -> int:
        """Partial index of the empty table (the first roll)."""
        return 0

    def code(self, counts: IntArray) -> IntArray:
        base = (self.n_dice + 1) ** np.arange(NUM_FACES, dtype=np.int64)
        return counts @ base

    def index(self, counts: Sequence[int] | IntArray) -> int:
        """Partial index of a count vector (order k m p s c d)."""
        return int(self.code_lut[self.code(np.asarray(counts, dtype=np.int64))])

    def full_index(self, dice: Dice) -> int:
        return self.index(dice.counts) - self.full_offset

    def dice(self, i: int) -> Dice:
        """The dice of partial position `i`."""
        return Dice.of(self.counts[i])


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """All count vectors of `parts` faces summing to `total`, lexicographically descending."""
    if parts == 1:
        return [(total,)]
    out: list[tuple[int, ...]] = []
    for first in range(total, -1, -1):
        out.extend((first, *rest) for rest in _compositions(total - first, parts - 1))
    return out


@lru_cache(maxsize=8)
def geometry(n_dice: int = NUM_DICE) -> Geometry:
    """The rules-independent structure, built once per process (8 dice; fewer in tests)."""
    levels = [np.array(_compositions(d, NUM_FACES), dtype=np.int64) for d in range(n_dice + 1)]
    counts = np.concatenate(levels)
    base = (n_dice + 1) ** np.arange(NUM_FACES, dtype=np.int64)
    lut = np.full((n_dice + 1) ** NUM_FACES, -1, dtype=np.int64)
    lut[counts @ base] = np.arange(counts.shape[0])
    full_offset = counts.shape[0] - levels[n_dice].shape[0]
    fact = np.array([factorial(k) for k in range(n_dice + 1)], dtype=np.float64)
    ptr, cols, probs, skulls, rows = [0], [], [], [], []
    start = 0
    for d, level in enumerate(levels):
        r = n_dice - d
        outcomes = levels[r]
        coef = fact[r] / fact[outcomes].prod(axis=1) / 6.0**r
        n, m = level.shape[0], outcomes.shape[0]
        targets = level[:, None, :] + outcomes[None, :, :]
        cols.append((lut[targets @ base] - full_offset).reshape(-1))
        probs.append(np.broadcast_to(coef, (n, m)).reshape(-1))
        skulls.append(np.broadcast_to(outcomes[:, 0], (n, m)).reshape(-1))
        rows.append(np.repeat(np.arange(start, start + n), m))
        ptr.extend((ptr[-1] + m * (np.arange(n) + 1)).tolist())
        start += n
    return Geometry(
        n_dice=n_dice,
        counts=counts,
        total=counts.sum(axis=1),
        full_offset=full_offset,
        code_lut=lut,
        ptr=np.array(ptr, dtype=np.int64),
        col=np.concatenate(cols),
        prob=np.concatenate(probs),
        rolled_skulls=np.concatenate(skulls),
        row=np.concatenate(rows),
    )


def roll_expectation(values: FloatArray, geo: Geometry | None = None) -> FloatArray:
    """For every partial position, the expectation of `values` over rolling its missing dice.

    `values` has one row per position (all dice) and any number of columns.
    """
    g = geo or geometry()
    return _segment_sum(g.prob[:, None] * values[g.col], g.ptr, g.n_partial)


def _segment_sum(values: FloatArray, ptr: IntArray, n: int) -> FloatArray:
    """Sum of each segment ``ptr[i]:ptr[i+1]`` of the rows, in order (0 for empty ones)."""
    out = np.zeros((n, values.shape[1]))
    nonempty = ptr[1:] > ptr[:-1]
    if nonempty.any():
        out[nonempty] = np.add.reduceat(values, ptr[:-1][nonempty], axis=0)
    return out


def _segment_max(values: FloatArray, ptr: IntArray, n: int) -> FloatArray:
    """Maximum of each segment of the rows (-inf for empty ones)."""
    out = np.full((n, values.shape[1]), -np.inf)
    nonempty = ptr[1:] > ptr[:-1]
    if nonempty.any():
        out[nonempty] = np.maximum.reduceat(values, ptr[:-1][nonempty], axis=0)
    return out


def _segment_argmax(
    values: FloatArray, best: FloatArray, ptr: IntArray, keep: IntArray
) -> IntArray:
    """The keep of each segment's maximum `best`; -2 for empty segments.

    Keeps within TIE_TOL of the maximum are ties, broken by the order of `keep` (the last
    wins: keeps are in partial-index order, so the one keeping the most dice), so that the
    policy does not depend on the last bits of the arithmetic.
    """
    n = ptr.shape[0] - 1
    out = np.full(best.shape, -2, dtype=np.int64)
    if not values.shape[0]:
        return out
    seg = np.repeat(np.arange(n), np.diff(ptr))
    pos = np.arange(values.shape[0])[:, None]
    last = np.where(values >= best[seg] - TIE_TOL, pos, -1)
    nonempty = ptr[1:] > ptr[:-1]
    idx = np.maximum.reduceat(last, ptr[:-1][nonempty], axis=0)
    out[nonempty] = keep[np.maximum(idx, 0)]
    return out


# --------------------------------------------------------------------------------------------
# The turn model of one card: outcomes of every position and legal keeps (rules-dependent)
# --------------------------------------------------------------------------------------------

USED, UNUSED = 0, 1
"""Worlds: the Sorceress spent (or no Sorceress card), or her reroll still available."""
WORLD_NAMES = ("used", "unused")


@dataclass(frozen=True)
class TurnModel:
    """What the rules say about every position of one card's turn, tabulated once.

    Everything here comes from calling :mod:`solver.scoring` and :mod:`solver.moves`
    position by position; the engine never re-derives a rule.
    """

    card: Card
    rules: Rules
    n_dice: int
    worlds: tuple[int, ...]
    """(USED,) for most cards; (USED, UNUSED) for the Sorceress, who starts unused."""
    outcome: dict[int, NDArray[np.object_]]
    """Per world, the Outcome of landing on each position after a reroll."""
    first_outcome: NDArray[np.object_]
    """The Outcome of each position as the first roll of the turn."""
    stop_points: IntArray
    """Points of stopping at each position (meaningful where alive)."""
    stop_magic: NDArray[np.bool_]
    """Whether stopping there is nine of a kind."""
    bust_points: IntArray
    """Points of a bust for each partial position taken as the dice that were not rolled."""
    first_bust_points: int
    island: dict[int, dict[int, float]]
    """Skull dice of a first roll -> distribution of the final skull count on Skull Island."""
    legal: NDArray[np.bool_]
    """Whether keeping partial position (s, K) and rolling the rest is legal."""
    legal_sorceress: NDArray[np.bool_]
    """Whether the Sorceress reroll from s+1 skull dice keeping K, to (s, K), is legal."""
    plans: dict[int, Any] = field(default_factory=dict, init=False, compare=False, repr=False)
    """The solver's sparse structure per world, filled on first use (not an init field, so
    a model made with ``dataclasses.replace`` starts with an empty cache of its own)."""

    @property
    def geometry(self) -> Geometry:
        return geometry(self.n_dice)

    @property
    def n_full(self) -> int:
        return int(self.stop_points.shape[0])

    def live(self, world: int) -> NDArray[np.bool_]:
        """Positions where the turn goes on after a reroll (alive, or the rescue)."""
        return np.array([o is not Outcome.BUST for o in self.outcome[world]])


@lru_cache(maxsize=16)
def _dice_list(n_dice: int, full_only: bool) -> list[Dice]:
    """The Dice of every position (or every partial position), built once."""
    g = geometry(n_dice)
    counts = g.full_counts if full_only else g.counts
    return [Dice.of(c) for c in counts.tolist()]


def turn_model(card: Card | str, rules: Rules, n_dice: int = NUM_DICE) -> TurnModel:
    """Tabulate the rules for one card (8 dice; fewer for the tests' reduced games)."""
    return _turn_model(get_card(card).id, rules, n_dice)


@lru_cache(maxsize=64)
def _turn_model(card_id: str, rules: Rules, n_dice: int) -> TurnModel:
    card = get_card(card_id)
    g = geometry(n_dice)
    full = _dice_list(n_dice, full_only=True)
    worlds = (USED, UNUSED) if card.sorceress else (USED,)
    skull_dice = g.full_counts[:, 0]

    def by_skulls(first: bool, unused: bool) -> NDArray[np.object_]:
        # classify_roll reads only the skull count: classify one position per count.
        per_count = [
            classify_roll(
                card,
                full[int(np.argmax(skull_dice == s))],
                rules,
                first=first,
                sorceress_unused=unused,
            )
            for s in range(n_dice + 1)
        ]
        return np.array(per_count, dtype=object)[skull_dice]

    outcome = {w: by_skulls(False, w == UNUSED) for w in worlds}
    first_outcome = by_skulls(True, card.sorceress)
    stops = [stop_score(card, d, rules) for d in full]
    if card.chest:
        bust_points = np.array(
            [bust_score(card, d, rules) for d in _dice_list(n_dice, full_only=False)],
            dtype=np.int64,
        )
    else:  # the bust payoff does not depend on the dice (bust_score ignores them)
        bust_points = np.full(g.n_partial, bust_score(card, None, rules), dtype=np.int64)
    skulls, kept = g.counts[:, 0], g.total - g.counts[:, 0]
    legal_table = np.array(
        [
            [reroll_is_legal(rules, s, k, n_dice=n_dice) for k in range(n_dice + 1)]
            for s in range(n_dice + 1)
        ]
    )
    sorceress_table = np.array(
        [
            [
                card.sorceress
                and s + 1 + k <= n_dice
                and reroll_is_legal(rules, s + 1, k, sorceress=True, n_dice=n_dice)
                for k in range(n_dice + 1)
            ]
            for s in range(n_dice + 1)
        ]
    )
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
        island={
            s: {t: float(p) for t, p in island_distribution(card, s, n_dice).items()}
            for s in range(n_dice + 1)
        },
        legal=legal_table[skulls, kept],
        legal_sorceress=sorceress_table[skulls, kept],
    )


# --------------------------------------------------------------------------------------------
# Objectives: payoffs as data
# --------------------------------------------------------------------------------------------


class Objective:
    """Maps the ways a turn can end to utilities, one column per objective of a batch.

    Subclasses define :meth:`of_points` (the turn ends with `points` for the player), and may
    override :meth:`of_magic` (pirate magic under ``nine_of_a_kind=magic``; by default its
    points, the nine counted as an 8000 set) and :meth:`of_island` (Skull Island, costing
    each opponent `deduction`; by default 0 points for the player).
    """

    def of_points(self, points: IntArray) -> FloatArray:
        raise NotImplementedError

    def of_magic(self, points: IntArray) -> FloatArray:
        return self.of_points(points)

    def of_island(self, deduction: IntArray) -> FloatArray:
        return self.of_points(np.zeros_like(deduction))

    def key(self) -> tuple[object, ...]:
        """Identifies the objective in results and caches."""
        return (type(self).__name__,)


class ExpectedPoints(Objective):
    """Maximise the expected points of the turn (Skull Island is 0 for the player)."""

    def of_points(self, points: IntArray) -> FloatArray:
        return points.astype(np.float64)[:, None]


@dataclass(frozen=True)
class AtLeast(Objective):
    """Maximise the probability that the turn scores at least `need` points."""

    need: int

    def of_points(self, points: IntArray) -> FloatArray:
        return (points >= self.need).astype(np.float64)[:, None]

    def of_magic(self, points: IntArray) -> FloatArray:
        return np.ones((points.shape[0], 1))

    def key(self) -> tuple[object, ...]:
        return ("AtLeast", self.need)


@dataclass(frozen=True)
class Payoff:
    """Utilities of every way a turn can end, one column per objective."""

    stop: FloatArray
    """(n_full, B): stopping alive at each position."""
    bust: FloatArray
    """(n_partial, B): busting with the dice of this partial position not rolled."""
    first_bust: FloatArray
    """(B,): busting on the first roll."""
    island: FloatArray
    """(n_dice + 1, B): a first roll with s skull dice going to Skull Island."""

    @property
    def columns(self) -> int:
        return int(self.stop.shape[1])


def payoff_for(model: TurnModel, objective: Objective) -> Payoff:
    """Tabulate an objective's utilities over the turn model's outcomes."""
    magic = model.stop_magic & (model.rules.nine_of_a_kind == "magic")
    stop = np.array(objective.of_points(model.stop_points), dtype=np.float64)
    if magic.any():
        stop[magic] = objective.of_magic(model.stop_points[magic])
    island = np.zeros((model.n_dice + 1, stop.shape[1]))
    for s, dist in model.island.items():
        finals = np.array(sorted(dist), dtype=np.int64)
        probs = np.array([dist[t] for t in sorted(dist)])
        island[s] = probs @ objective.of_island(model.card.island_cost * finals)
    return Payoff(
        stop=stop,
        bust=np.asarray(objective.of_points(model.bust_points), dtype=np.float64),
        first_bust=objective.of_points(np.array([model.first_bust_points]))[0],
        island=island,
    )


# --------------------------------------------------------------------------------------------
# The solve
# --------------------------------------------------------------------------------------------

STOP = -1
"""Policy code for stopping; a keep is coded by its partial index; -2 where nothing is
decided (the turn is over)."""
NO_MOVE = -2


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
    sorceress: NDArray[np.bool_]
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


Policy = dict[int, tuple[IntArray, NDArray[np.bool_]]]
"""Per world: (keep code per position, uses-the-Sorceress per position), column 0 used."""


def _layers(live: NDArray[np.bool_], skull_dice: IntArray) -> list[tuple[int, IntArray]]:
    """(skull dice, positions) of each live layer, in solving order: most skulls first."""
    out = []
    for s in range(int(skull_dice.max()), -1, -1):
        positions = np.flatnonzero(live & (skull_dice == s))
        if positions.shape[0]:
            out.append((s, positions))
    return out


@dataclass(frozen=True)
class _Pairs:
    """Keep candidates grouped by position: position j has ``keep[ptr[j]:ptr[j+1]]``."""

    ptr: IntArray
    keep: IntArray


def _pairs(
    g: Geometry, positions: IntArray, keep_ok: NDArray[np.bool_], *, sorceress: bool
) -> _Pairs:
    """For each position y = (s, M) of `positions`, its keeps x = (s, K), K ⊆ M, allowed by
    `keep_ok` (with `sorceress`, x = (s-1, K): one skull die is picked up).

    They are the skull-free outcomes of the roll matrix: y = x + o with o skull-free.
    """
    sel = g.rolled_skulls == 0
    rows, cols = g.row[sel], g.col[sel]
    if sorceress:
        has_skull = g.counts[rows, 0] >= 1
        rows, cols = rows[has_skull], cols[has_skull]
        shifted = g.counts[rows].copy()
        shifted[:, 0] -= 1
        rows = g.code_lut[g.code(shifted)]
    ok = keep_ok[rows]
    rows, cols = rows[ok], cols[ok]
    local_of = np.full(g.n_full, -1, dtype=np.int64)
    local_of[positions] = np.arange(positions.shape[0])
    local = local_of[cols]
    inside = local >= 0
    rows, local = rows[inside], local[inside]
    order = np.lexsort((rows, local))
    ptr = np.searchsorted(local[order], np.arange(positions.shape[0] + 1))
    return _Pairs(ptr=ptr.astype(np.int64), keep=rows[order])


def _bust_probability(g: Geometry, live: NDArray[np.bool_]) -> FloatArray:
    """P(the roll from each partial position ends the turn in a bust)."""
    bust = (~live).astype(np.float64)[:, None]
    return _segment_sum(g.prob[:, None] * bust[g.col], g.ptr, g.n_partial)[:, 0]


def solve_turn(
    card: Card | str,
    rules: Rules,
    objective: Objective | None = None,
    *,
    tol: float = DEFAULT_TOL,
    policy: Policy | None = None,
    n_dice: int = NUM_DICE,
) -> TurnSolution:
    """Solve one card's turn for an objective (default: expected points).

    With `policy` (per world: a keep code per position and whether it uses the Sorceress,
    column 0), the values are those of following it instead: exact policy evaluation.
    """
    objective = objective or ExpectedPoints()
    model = turn_model(card, rules, n_dice)
    return solve_payoff(
        model, payoff_for(model, objective), objective.key(), tol=tol, policy=policy
    )


@dataclass(frozen=True)
class _LayerPlan:
    """The sparse pieces of one layer, cut from the geometry once per turn model."""

    skulls: int
    positions: IntArray
    rescue: bool
    pairs: _Pairs
    """Each position's legal keeps (partial indices), grouped by position."""
    keeps: IntArray
    """The layer's distinct legal keeps, sorted."""
    keep_local: IntArray
    """pairs.keep as indices into `keeps`."""
    in_ptr: IntArray
    in_target: IntArray
    """Roll entries of each keep that land inside the layer (as local position indices)."""
    in_prob: FloatArray
    out_ptr: IntArray
    out_target: IntArray
    """Roll entries that land in live positions of layers solved before (full indices)."""
    out_prob: FloatArray

    @property
    def cyclic(self) -> bool:
        return bool(self.in_target.shape[0] > 0)


@dataclass(frozen=True)
class _WorldPlan:
    live: NDArray[np.bool_]
    alive: NDArray[np.bool_]
    bust_probability: FloatArray
    sorceress_pairs: _Pairs | None
    layers: list[_LayerPlan]


def _world_plan(model: TurnModel, world: int) -> _WorldPlan:
    """The world's layers and their sparse structure (cached on the model)."""
    cached: _WorldPlan | None = model.plans.get(world)
    if cached is not None:
        return cached
    g = model.geometry
    live = model.live(world)
    alive = np.array([o is Outcome.ALIVE for o in model.outcome[world]])
    sorceress_pairs = None
    if world == UNUSED:
        sorceress_pairs = _pairs(g, np.arange(model.n_full), model.legal_sorceress, sorceress=True)
    layers = []
    for skulls, positions in _layers(live, g.full_counts[:, 0]):
        rescue = model.outcome[world][positions[0]] is Outcome.RESCUE
        keep_ok = model.legal & (g.counts[:, 0] == skulls) & (not rescue)
        pairs = _pairs(g, positions, keep_ok, sorceress=False)
        keeps = np.unique(pairs.keep)
        starts, lengths = g.ptr[keeps], g.ptr[keeps + 1] - g.ptr[keeps]
        entry = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
        keep_of_entry = np.repeat(np.arange(keeps.shape[0]), lengths)
        target, prob = g.col[entry], g.prob[entry][:, None]
        local_of = np.full(model.n_full, -1, dtype=np.int64)
        local_of[positions] = np.arange(positions.shape[0])
        inside = local_of[target] >= 0
        out = ~inside & live[target]  # a bust contributes through the bust term
        bounds = np.arange(keeps.shape[0] + 1)
        layers.append(
            _LayerPlan(
                skulls=skulls,
                positions=positions,
                rescue=rescue,
                pairs=pairs,
                keeps=keeps,
                keep_local=np.searchsorted(keeps, pairs.keep),
                in_ptr=np.searchsorted(keep_of_entry[inside], bounds),
                in_target=local_of[target[inside]],
                in_prob=prob[inside],
                out_ptr=np.searchsorted(keep_of_entry[out], bounds),
                out_target=target[out],
                out_prob=prob[out],
            )
        )
    plan = _WorldPlan(
        live=live,
        alive=alive,
        bust_probability=_bust_probability(g, live),
        sorceress_pairs=sorceress_pairs,
        layers=layers,
    )
    model.plans[world] = plan
    return plan


def solve_payoff(
    model: TurnModel,
    payoff: Payoff,
    key: tuple[object, ...] = ("custom",),
    *,
    tol: float = DEFAULT_TOL,
    policy: Policy | None = None,
) -> TurnSolution:
    """Value iteration, layer by layer, to the certified bound `tol` (see the module doc)."""
    g = model.geometry
    n_full, n_b = model.n_full, payoff.columns
    budget = tol / 8  # at most 7 layers add their bounds
    eps = 0.0
    sweeps_total, residual_max = 0, 0.0
    worlds: dict[int, WorldSolution] = {}
    for world in model.worlds:
        plan = _world_plan(model, world)
        value = np.where(plan.alive[:, None], payoff.stop, 0.0)
        bust_term = plan.bust_probability[:, None] * payoff.bust
        code = np.full((n_full, n_b), NO_MOVE, dtype=np.int64)
        use_sor = np.zeros((n_full, n_b), dtype=bool)
        sor_value = np.full((n_full, n_b), -np.inf)
        sor_keep = np.full((n_full, n_b), NO_MOVE, dtype=np.int64)
        q_used = worlds[USED].keep_value if world == UNUSED else None
        if q_used is not None and plan.sorceress_pairs is not None:
            sp = plan.sorceress_pairs
            cand = q_used[sp.keep]
            sor_value = _segment_max(cand, sp.ptr, n_full)
            sor_keep = _segment_argmax(cand, sor_value, sp.ptr, sp.keep)
        for layer in plan.layers:
            positions, n_keeps = layer.positions, layer.keeps.shape[0]
            const = bust_term[layer.keeps] + _segment_sum(
                layer.out_prob * value[layer.out_target], layer.out_ptr, n_keeps
            )
            stop_here = (
                np.full((positions.shape[0], n_b), -np.inf)
                if layer.rescue
                else payoff.stop[positions]
            )
            fixed = sor_value[positions]
            floor = np.maximum(stop_here, fixed)
            v = value[positions]
            in_start = layer.in_ptr[:-1]
            pair_start = layer.pairs.ptr[:-1]
            sweeps, residual = 0, 0.0
            while layer.cyclic:
                # Every keep rolls into its own layer and every position of a cyclic layer
                # has a legal keep, so no segment is empty here.
                q = const + np.add.reduceat(layer.in_prob * v[layer.in_target], in_start, axis=0)
                if policy is None:
                    best = np.maximum.reduceat(q[layer.keep_local], pair_start, axis=0)
                    new = np.maximum(floor, best)
                else:
                    new = _policy_values(
                        policy[world], positions, layer.keeps, q, stop_here, q_used
                    )
                residual = float(np.max(np.abs(new - v)))
                v = new
                sweeps += 1
                if BETA / (1 - BETA) * residual <= budget:
                    break
                if sweeps >= MAX_SWEEPS:
                    raise ConvergenceError(
                        f"{model.card.id}: layer of {layer.skulls} skull dice still moves by "
                        f"{residual:.3g} after {sweeps} sweeps"
                    )
            if not layer.cyclic:  # the rescue: only Sorceress moves, to a solved world
                q = const
                if policy is None:
                    v = floor
                else:
                    v = _policy_values(policy[world], positions, layer.keeps, q, stop_here, q_used)
                sweeps = 1
            value[positions] = v
            if layer.cyclic:
                eps += BETA / (1 - BETA) * residual
                residual_max = max(residual_max, residual)
            sweeps_total += sweeps
            if policy is None:
                pairs = layer.pairs
                cand = q[layer.keep_local]
                best = _segment_max(cand, pairs.ptr, positions.shape[0])
                keep_arg = _segment_argmax(cand, best, pairs.ptr, pairs.keep)
                stop_best = stop_here >= np.maximum(best, fixed) - TIE_TOL
                sor_best = ~stop_best & (fixed > best + TIE_TOL)
                code[positions] = np.where(
                    stop_best, STOP, np.where(sor_best, sor_keep[positions], keep_arg)
                )
                use_sor[positions] = sor_best
            else:
                code[positions] = policy[world][0][positions, :1]
                use_sor[positions] = policy[world][1][positions, :1]
        stored = np.where(plan.live[:, None], value, np.nan)
        worlds[world] = WorldSolution(
            value=stored,
            keep_value=roll_expectation(np.where(plan.live[:, None], value, 0.0), g) + bust_term,
            policy=code,
            sorceress=use_sor,
        )
    first = _first_roll_values(model, payoff, worlds[max(model.worlds)].value)
    return TurnSolution(
        card=model.card.id,
        rules=model.rules,
        objective=key,
        worlds=worlds,
        first_value=first,
        turn_value=roll_expectation(first, g)[g.empty],
        sweeps=sweeps_total,
        residual=residual_max,
        bound=eps,
        n_dice=model.n_dice,
    )


def _first_roll_values(model: TurnModel, payoff: Payoff, start: FloatArray) -> FloatArray:
    """The value of each position as the turn's first roll: the bust payoff, Skull Island
    (by skull dice), or `start`'s value (the world the turn starts in) where play goes on."""
    skull_dice = model.geometry.full_counts[:, 0]
    first = np.empty((model.n_full, payoff.columns))
    for j, o in enumerate(model.first_outcome):
        if o is Outcome.BUST:
            first[j] = payoff.first_bust
        elif o is Outcome.ISLAND:
            first[j] = payoff.island[skull_dice[j]]
        else:
            first[j] = start[j]
    return first


def _policy_values(
    policy: tuple[IntArray, NDArray[np.bool_]],
    positions: IntArray,
    keeps: IntArray,
    q: FloatArray,
    stop_here: FloatArray,
    q_used: FloatArray | None,
) -> FloatArray:
    """Values of a layer's positions under a fixed policy (its column 0, for every column)."""
    code = policy[0][positions, 0]
    sor = policy[1][positions, 0]
    out = np.array(stop_here, copy=True)
    normal = (code != STOP) & ~sor
    if normal.any():
        local = np.searchsorted(keeps, code[normal])
        local = np.minimum(local, keeps.shape[0] - 1)
        if not np.array_equal(keeps[local], code[normal]):
            raise ValueError("the policy keeps dice that are not a legal keep there")
        out[normal] = q[local]
    if sor.any():
        if q_used is None:
            raise ValueError("the policy uses the Sorceress where she is not available")
        out[sor] = q_used[code[sor]]
    if np.isinf(out).any():
        raise ValueError("the policy stops where it must move")
    return out


def solve_cards(
    cards: Sequence[str],
    rules: Rules,
    objective_factory: Callable[[], Objective] | None = None,
    *,
    n_jobs: int = 1,
    tol: float = DEFAULT_TOL,
) -> dict[str, TurnSolution]:
    """Solve several cards, in parallel with joblib when `n_jobs` != 1.

    Each card is solved by the same code in whichever process, so the results are the same
    bit for bit whatever the number of workers.
    """
    factory = objective_factory or ExpectedPoints
    if n_jobs == 1 or len(cards) <= 1:
        return {c: solve_turn(c, rules, factory(), tol=tol) for c in cards}
    from joblib import Parallel, delayed

    results = Parallel(n_jobs=n_jobs)(
        delayed(solve_turn)(c, rules, factory(), tol=tol) for c in cards
    )
    return dict(zip(cards, results, strict=True))


def finite_horizon_values(model: TurnModel, payoff: Payoff, rerolls: int) -> FloatArray:
    """The turn's value when at most `rerolls` rerolls are allowed (column per payoff).

    Backward induction from the last decision: with no reroll left the player stops (a
    rescue position is then a bust). Used by the tests to meet a brute-force reference on
    reduced games exactly; it shares the transition and legality tables with the solver.
    """
    g = model.geometry
    n_full = model.n_full
    skull_dice = g.full_counts[:, 0]
    values: dict[int, FloatArray] = {}
    keep_values: dict[int, FloatArray] = {}
    for world in model.worlds:
        alive = np.array([o is Outcome.ALIVE for o in model.outcome[world]])
        values[world] = np.where(alive[:, None], payoff.stop, 0.0)
        rescue = np.array([o is Outcome.RESCUE for o in model.outcome[world]])
        values[world][rescue] = payoff.first_bust
    every = np.arange(n_full)
    for _ in range(rerolls):
        new: dict[int, FloatArray] = {}
        for world in model.worlds:
            live = model.live(world)
            bust_term = _bust_probability(g, live)[:, None] * payoff.bust
            keep_values[world] = (
                roll_expectation(np.where(live[:, None], values[world], 0.0), g) + bust_term
            )
        for world in model.worlds:
            alive = np.array([o is Outcome.ALIVE for o in model.outcome[world]])
            rescue = np.array([o is Outcome.RESCUE for o in model.outcome[world]])
            best = np.where(alive[:, None], payoff.stop, -np.inf)
            keep_ok = model.legal & ~np.isin(g.counts[:, 0], skull_dice[rescue])
            normal = _pairs(g, every, keep_ok, sorceress=False)
            best = np.maximum(
                best, _segment_max(keep_values[world][normal.keep], normal.ptr, n_full)
            )
            if world == UNUSED:
                sp = _pairs(g, every, model.legal_sorceress, sorceress=True)
                best = np.maximum(best, _segment_max(keep_values[USED][sp.keep], sp.ptr, n_full))
            live = model.live(world)
            new[world] = np.where(live[:, None], best, 0.0)
        values = new
    first = _first_roll_values(model, payoff, values[max(model.worlds)])
    return roll_expectation(first, g)[g.empty]  # type: ignore[no-any-return]
