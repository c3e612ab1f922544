r"""Playing to win: the exact two-player win probability and the turns that maximise it.

**The game.**  Two players; totals are multiples of 100, written in units of 100 here, below
the target ``N = target / 100``. A turn ends with ``p`` points for the mover (a stop, a bust,
a lost battle: ``p`` may be negative), with Skull Island (the *opponent* loses
``cost * skulls``, 200 a skull with the captain) or with pirate magic (the mover wins at
once). A total never goes below 0. Cards are drawn independently with the deck's
frequencies (the real deck is drawn without replacement; this model does not remember it).

**Three phases** (RULES.md, "End of the game"):

* ``W(a, b)``: normal play, the player about to draw has ``a``, the other ``b``. Ending the
  turn at ``a' = max(0, a + p) < N`` hands the move over: ``1 - W(b, a')``. Reaching
  ``a' >= N`` gives the other player one final turn: ``1 - G(a', b)``. Skull Island:
  ``1 - W(max(0, b - d), a)``.
* ``G(a', b)``: the final turn of the trailing player (``b``) against the leader's
  ``a' >= N``. Its decisions depend only on the deficit ``a' - b``: the turn wins with more
  points than the deficit, and a tie is worth 1/2 under ``ties=shared`` and 0 under
  ``ties=trigger``; pirate magic wins. That is the table ``final[deficit]``
  (:func:`solve_final`), Skull Island excluded. Skull Island happens on the first roll,
  before any decision; it lowers the leader's total, and if that falls below the target
  nobody is at the target after the final round: the game goes on in sudden death with the
  leader to move, ``1 - S(a' - d, b)``, else the leader wins.
* ``S(x, y)``: sudden death, the next player to end a turn at or above the target wins at
  once: ``1`` when ``x + p >= N``, else ``1 - S(y, max(0, x + p))``.

**The turn.**  Within a turn the mover maximises the probability of winning: the turn
utility of an ending is the lookup above, a vector over the game states, so every state is
one column of one batched turn problem (the turn engine's payoffs are data;
:class:`GameUtility` is that payoff for :mod:`solver.engine`). ``W`` at a state is the
card-weighted value of its turns.

**The solve.**  The equations are cyclic across turns (a bust hands back the same totals
with the roles swapped), so they are solved by value iteration on the joint system of game
values and turn values, one Bellman sweep of every turn per game sweep, warm-started from
the previous sweep ("one inner sweep per visit"). The sweep is the turn engine's Bellman
operator written for speed (:class:`CompactTurn`):

* positions are reduced to orbits under the face permutations that leave the card's rules
  unchanged (found by testing every permutation on the tabulated rules, not assumed);
* the reroll expectation is factorised one die at a time, :math:`E(x) = \frac16 \sum_f
  E(x + e_f)` over partial positions, 6 terms a partial position instead of a multinomial
  row;
* the best keep is a running maximum over sub-multisets, :math:`B(s, K) = \max(Q(s, K),
  \max_f B(s, K - e_f))`, 5 terms a partial position instead of every (position, keep)
  pair.

The game states are swept level by level, from the highest sum of totals to the lowest,
each level seeing the values the higher levels got in the same sweep (Gauss-Seidel): nearly
every turn raises the sum, so the end of the game reaches its start in one sweep. What is
left is slow: busts hand the same totals back, lost battles and Skull Island lower them, and
rerolls stay in their skull layer with probability up to 25/36. Two accelerations, both
guarded: the turn values are over-relaxed (factor :data:`OMEGA`, back to 1 as soon as a
sweep does worse), and when the residual has decayed at a steady ratio ``rho`` over five
sweeps (a single dominant mode) the last step is extended by ``rho / (1 - rho)``, the rest
of its geometric tail. The iteration stops after a plain sweep that moves no game value and
no turn value by more than ``tol / 10``; the result reports the sweeps and that residual.
``estimated_error`` is the residual times ``rho / (1 - rho)`` for the observed decay ``rho``
of the last sweeps: an estimate, not a bound. The tests check the fixed point independently:
by the engine's own certified turn solve at every state, by a brute force of a reduced game,
and by starting from 0, 1/2 and 1.

**The certificate** (``certified_bound``, per phase; :func:`certify`).

* *One solution.* Write ``T`` for the map from the game values of a phase to their update
  with every turn solved exactly (the tail ``G``, or the win, fixed). Utilities ``1 - W`` lie
  in [0, 1] when ``W`` does, so a turn's optimal value is non-decreasing and 1-Lipschitz in
  them (sup norm), except on a first roll that is pirate magic: stopping there is worth 1,
  which no utility exceeds, whatever ``W``. Hence ``T`` is a sup-norm contraction of [0, 1]^n
  with factor ``1 - p_m``, ``p_m`` the deck-weighted probability of a magic first roll
  (1.4e-7 by default, :func:`magic_probability`): the equations have exactly one solution
  in [0, 1]^n (Banach). The factor is far too close to 1 for an error bound; it proves
  uniqueness. The joint unknowns of the solve (game values and every turn's position
  values) have then one fixed point too: the turn's own equations have one solution for given
  utilities (the turn engine's layer argument). With ``nine_of_a_kind`` other than ``magic``
  ``p_m = 0``, uniqueness is not proven, and no bound is certified (``inf``).
* *A verified box.* The sweep ``S`` (one Gauss-Seidel pass over the blocks: per block one
  turn sweep, then the game values) is monotone in the turn values and order-reversing in
  the game values (a higher opponent value is a lower utility). So for a box ``[lo, hi]``
  of the joint unknowns, one *bracket sweep* -- the lower bounds updated from the utilities
  ``1 - hi`` and the lower turn values, the upper ones from ``1 - lo`` and the upper turn
  values, block by block -- bounds ``S(x)`` for every ``x`` in the box. If the result lies
  inside ``[lo, hi]``, ``S`` maps the box (compact, convex) into itself and, being
  continuous, has a fixed point in it (Brouwer): the unique solution is in the box. The box
  is centred on the iterate, ``x ± eps * h``; ``eps`` starts at twice the residual, ``h`` at
  1, and a failed box is followed by a wider one shaped on the image of the last; after
  :data:`CERT_RESHAPES` failures the search starts again uniform and :data:`CERT_JUMP`
  residuals wide (at most :data:`CERT_ATTEMPTS` boxes, one bracket sweep each). Further
  bracket sweeps from a verified box keep the solution inside and narrow it;
  ``certified_bound`` is the largest distance from a table value to its bounds. The
  final-turn table is bracketed by value iteration from 0 (the table) and from 1. The tail
  ``G`` of normal play is bounded from those and the sudden-death bounds. Every bound moves
  outward by :data:`FP_MARGIN` for rounding.
* *Its limit.* A bracket narrows only by what ends the game within a sweep: its widths add
  up, with no cancellation of signs (the plain iteration's signed errors can cancel), and
  a turn value whose best move is a reroll is not pulled in at all by one sweep (its bounds
  are averages of the old ones), so a box must be shaped to the sweep, and far from the
  target it verifies only some 1e3 to 1e4 residuals wide. At small targets (300, 500) every
  phase is certified below about 1e-9. At the default target the final-turn table is
  certified to 2.1e-11 and sudden death to 1.4e-6; normal play (whose tail carries the
  sudden-death width) finds no verified box within :data:`CERT_ATTEMPTS` and is reported
  ``inf``: its ``estimated_error`` is then all there is.

Results do not depend on numba: the compiled sweep does the numpy sweep's floating-point
operations in the same order (tested bit for bit); numba only makes it several times faster.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from .engine import UNUSED, USED, ConvergenceError, Objective, TurnModel, turn_model
from .rules import NUM_DICE, NUM_FACES, Rules, RulesError, deck_weights
from .scoring import Outcome

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

UNIT = 100
"""Totals and points are multiples of 100; the tables count in these units."""
DEFAULT_TOL = 1e-9
MAX_SWEEPS = 2000
OMEGA = 1.5
"""Over-relaxation of the turn values (guarded: back to 1 as soon as a sweep does worse)."""
EXTRAPOLATE = True
COMPILED = True
"""Use the numba sweep when numba is installed (same numbers, several times faster)."""
MAX_DEDUCTION = 16
"""Skull Island deducts at most 8 skulls x 200 = 16 units."""

ProgressFn = Callable[[str, int, float], None]
"""Called after each sweep with (phase, sweep, residual)."""


# --------------------------------------------------------------------------------------------
# One card's turn in orbit coordinates
# --------------------------------------------------------------------------------------------


def _symmetries(model: TurnModel) -> IntArray:
    """Partial-index permutations of the faces (skull fixed) under which every tabulated
    rule of the card is unchanged: (n_perm, n_partial), the identity included."""
    g = model.geometry
    out = []
    for perm in itertools.permutations(range(1, NUM_FACES)):
        idx = g.code_lut[g.code(g.counts[:, (0, *perm)])]
        full = idx[g.full_offset :] - g.full_offset
        same = (
            np.array_equal(model.stop_points[full], model.stop_points)
            and np.array_equal(model.stop_magic[full], model.stop_magic)
            and np.array_equal(model.bust_points[idx], model.bust_points)
            and np.array_equal(model.legal[idx], model.legal)
            and np.array_equal(model.legal_sorceress[idx], model.legal_sorceress)
            and np.array_equal(model.first_outcome[full], model.first_outcome)
            and all(np.array_equal(model.outcome[w][full], model.outcome[w])
                    for w in model.worlds)
        )
        if same:
            out.append(idx)
    return np.array(out, dtype=np.int64)


@dataclass(frozen=True)
class CompactTurn:
    """One card's turn on orbit representatives, with the tables of the fast sweep.

    Rows are partial positions (orbit representatives with at most ``max_skulls`` skull
    dice), ordered by number of dice; the full positions are the rows of the last level.
    Row ``n_rows`` of every work array is a sentinel (0 for expectations, -inf for maxima).
    """

    card: str
    rules: Rules
    n_dice: int
    worlds: tuple[int, ...]
    n_rows: int
    level_bounds: IntArray
    """Rows of level d (d dice on the table) are ``level_bounds[d]:level_bounds[d+1]``."""
    child: IntArray
    """(n_rows, 6): the row of x + one die of each face (sentinel beyond the skull limit)."""
    parent: IntArray
    """(n_rows, 5): the row of x minus one non-skull die of each face (sentinel if none)."""
    full_rows: IntArray
    """Rows of the full positions (the last level), in full-orbit order."""
    stop_k: IntArray
    """(n_fo,) points of stopping, in units."""
    magic: BoolArray
    alive: dict[int, BoolArray]
    live: dict[int, BoolArray]
    keep_ok: dict[int, BoolArray]
    """(n_rows,) per world: keeping (s, K) and rolling the rest is a legal reroll there."""
    sorceress_ok: BoolArray
    """(n_rows,): a Sorceress reroll to (s, K) in the used world is legal."""
    sorceress_src: IntArray
    """(n_fo,): the row of (s-1, M) for full position (s, M) (sentinel when s = 0)."""
    p_bust: dict[int, FloatArray]
    """(n_rows,) per world: probability that rolling from the row busts."""
    bust_k: IntArray
    """(n_rows,) bust points in units (the chest scores the kept dice)."""
    first_bust_k: int
    first_prob: FloatArray
    """(n_fo,): probability of each full orbit as the first roll."""
    first_class: IntArray
    """(n_fo,): -1 live (play on), -2 bust, s >= 0 Skull Island with s skull dice."""
    island: FloatArray
    """(n_dice + 1, n_ded): P(the island deducts d units | first roll with s skull dice)."""
    first_live: IntArray
    """Full orbits of the first roll where the turn goes on."""
    first_live_prob: FloatArray
    first_bust_prob: float
    first_island: FloatArray
    """(n_ded,): P(the first roll goes to Skull Island and it deducts d units)."""
    per_row_bust: bool
    """The bust payoff depends on the kept dice (the chest), not only on the card."""
    orbit_of_full: IntArray
    """(n_full,): full position index -> full-orbit index."""
    orbit_of_partial: IntArray
    """(n_partial,): partial index -> row (n_rows when beyond the skull limit)."""
    symmetries: int

    @property
    def n_full_orbits(self) -> int:
        return int(self.full_rows.shape[0])

    @property
    def start_world(self) -> int:
        return max(self.worlds)


@lru_cache(maxsize=64)
def compact_turn(card: str, rules: Rules, n_dice: int = NUM_DICE) -> CompactTurn:
    """Build the orbit tables of one card's turn from the engine's tabulated rules."""
    model = turn_model(card, rules.turn_rules(), n_dice)
    g = model.geometry
    perms = _symmetries(model)
    rep = perms.min(axis=0)  # canonical partial index of each partial position
    skull_dice = g.counts[:, 0]
    full_idx = np.arange(g.full_offset, g.n_partial)
    live_any = np.zeros(g.n_full, dtype=bool)
    for w in model.worlds:
        live_any |= model.live(w)
    max_skulls = int(skull_dice[full_idx][live_any].max()) if live_any.any() else 0
    reps = np.unique(rep[skull_dice <= max_skulls])
    reps = reps[np.lexsort((reps, g.total[reps]))]  # by level, then index
    n_rows = reps.shape[0]
    row_of = np.full(g.n_partial, n_rows, dtype=np.int64)
    row_of[reps] = np.arange(n_rows)
    orbit_of_partial = row_of[rep]
    levels = g.total[reps]
    level_bounds = np.searchsorted(levels, np.arange(n_dice + 2)).astype(np.int64)
    counts = g.counts[reps]
    child = np.full((n_rows, NUM_FACES), n_rows, dtype=np.int64)
    parent = np.full((n_rows, NUM_FACES - 1), n_rows, dtype=np.int64)
    for f in range(NUM_FACES):
        unit = np.zeros(NUM_FACES, dtype=np.int64)
        unit[f] = 1
        up = counts + unit
        ok = up.sum(axis=1) <= n_dice
        child[ok, f] = orbit_of_partial[g.code_lut[g.code(up[ok])]]
        if f:
            down = counts - unit
            ok = down[:, f] >= 0
            parent[ok, f - 1] = orbit_of_partial[g.code_lut[g.code(down[ok])]]
    full_rows = np.arange(level_bounds[n_dice], level_bounds[n_dice + 1])
    full_pos = reps[full_rows] - g.full_offset  # representative full position of each orbit
    orbit_of_full = np.full(g.n_full, -1, dtype=np.int64)
    full_orbit_rows = orbit_of_partial[full_idx]
    inside = full_orbit_rows < n_rows
    orbit_of_full[inside] = full_orbit_rows[inside] - level_bounds[n_dice]
    alive = {w: np.array([o is Outcome.ALIVE for o in model.outcome[w][full_pos]])
             for w in model.worlds}
    live = {w: model.live(w)[full_pos] for w in model.worlds}
    keep_ok = {}
    for w in model.worlds:
        rescue_skulls = {int(skull_dice[g.full_offset + j]) for j in
                         np.flatnonzero([o is Outcome.RESCUE for o in model.outcome[w]])}
        keep_ok[w] = model.legal[reps] & ~np.isin(counts[:, 0], sorted(rescue_skulls))
    n_fo = full_rows.shape[0]
    sorceress_src = np.full(n_fo, n_rows, dtype=np.int64)
    if model.card.sorceress:
        fc = counts[full_rows].copy()
        has = fc[:, 0] >= 1
        fc[has, 0] -= 1
        sorceress_src[has] = orbit_of_partial[g.code_lut[g.code(fc[has])]]
    # first roll: multinomial probability of each full position, summed over its orbit
    p_roll = g.prob[g.ptr[0] : g.ptr[1]]
    pos_roll = g.col[g.ptr[0] : g.ptr[1]]
    first_prob_full = np.zeros(g.n_full)
    np.add.at(first_prob_full, pos_roll, p_roll)
    first_prob = np.zeros(n_fo)
    ok = orbit_of_full >= 0
    np.add.at(first_prob, orbit_of_full[ok], first_prob_full[ok])
    first_class = np.full(n_fo, -1, dtype=np.int64)
    for j, pos in enumerate(full_pos):
        o = model.first_outcome[pos]
        if o is Outcome.BUST:
            first_class[j] = -2
        elif o is Outcome.ISLAND:
            first_class[j] = int(counts[full_rows[j], 0])
    # first rolls beyond the skull limit are busts or islands: their orbits are not rows
    extra_prob: dict[int, float] = {}
    for pos in np.flatnonzero(~ok):
        o = model.first_outcome[pos]
        key = -2 if o is Outcome.BUST else int(g.full_counts[pos, 0])
        if o not in (Outcome.BUST, Outcome.ISLAND):
            raise AssertionError("a live first roll beyond the skull limit")
        extra_prob[key] = extra_prob.get(key, 0.0) + float(first_prob_full[pos])
    if extra_prob:  # append them as pseudo-orbits (never played on)
        keys = sorted(extra_prob)
        first_prob = np.concatenate([first_prob, [extra_prob[k] for k in keys]])
        first_class = np.concatenate([first_class, np.array(keys, dtype=np.int64)])
    max_ded = max(model.card.island_cost * t for d in model.island.values() for t in d)
    island = np.zeros((n_dice + 1, max_ded // UNIT + 1))
    for s, dist in model.island.items():
        for t, p in dist.items():
            island[s, model.card.island_cost * t // UNIT] += p
    stop_points = model.stop_points[full_pos]
    first_live = np.flatnonzero(first_class == -1)
    first_island = np.zeros(island.shape[1])
    for s in np.unique(first_class[first_class >= 0]):
        first_island += first_prob[first_class == s].sum() * island[s]
    bust_k = model.bust_points[reps] // UNIT
    compact = CompactTurn(
        card=model.card.id,
        rules=rules,
        n_dice=n_dice,
        worlds=model.worlds,
        n_rows=n_rows,
        level_bounds=level_bounds,
        child=child,
        parent=parent,
        full_rows=full_rows,
        stop_k=stop_points // UNIT,
        magic=model.stop_magic[full_pos] & (rules.nine_of_a_kind == "magic"),
        alive=alive,
        live=live,
        keep_ok=keep_ok,
        sorceress_ok=model.legal_sorceress[reps],
        sorceress_src=sorceress_src,
        p_bust={},
        bust_k=bust_k,
        first_bust_k=model.first_bust_points // UNIT,
        first_prob=first_prob,
        first_class=first_class,
        island=island,
        first_live=first_live,
        first_live_prob=first_prob[first_live],
        first_bust_prob=float(first_prob[first_class == -2].sum()),
        first_island=first_island,
        per_row_bust=bool(np.unique(bust_k).shape[0] > 1),
        orbit_of_full=orbit_of_full,
        orbit_of_partial=orbit_of_partial,
        symmetries=int(perms.shape[0]),
    )
    for w in model.worlds:
        dead = (~live[w]).astype(np.float64)[:, None]
        compact.p_bust[w] = expectation(compact, dead, beyond=1.0)[:-1, 0]
    return compact


def expectation(ct: CompactTurn, full_values: FloatArray, beyond: float = 0.0) -> FloatArray:
    """E over rolling the missing dice of every row, one die at a time.

    `full_values` (n_fo, B) are the values of the full positions; `beyond` is the value of
    every position beyond the skull limit (where the turn is always over).
    Returns (n_rows + 1, B), the sentinel row last (`beyond`).
    """
    n_b = full_values.shape[1]
    e = np.empty((ct.n_rows + 1, n_b))
    e[-1] = beyond
    e[ct.full_rows] = full_values
    tmp = np.empty((0, n_b))
    for d in range(ct.n_dice - 1, -1, -1):
        lo, hi = int(ct.level_bounds[d]), int(ct.level_bounds[d + 1])
        if hi == lo:
            continue
        kids = ct.child[lo:hi]
        acc = e[lo:hi]
        np.take(e, kids[:, 0], axis=0, out=acc)
        if tmp.shape[0] < hi - lo:
            tmp = np.empty((hi - lo, n_b))
        buf = tmp[: hi - lo]
        for f in range(1, NUM_FACES):
            np.take(e, kids[:, f], axis=0, out=buf)
            acc += buf
        acc *= 1.0 / 6.0
    return e


def subset_max(ct: CompactTurn, q: FloatArray, top: int) -> FloatArray:
    """B(x) = max(q(x), max_f B(x - e_f)) for the rows of levels 0..`top`; (n_rows + 1, B).

    `q` is (n_rows + 1, B) with -inf where a keep is not allowed (the sentinel row too).
    Rows above `top` are left at -inf.
    """
    n_b = q.shape[1]
    out = np.full((ct.n_rows + 1, n_b), -np.inf)
    out[: ct.level_bounds[1]] = q[: ct.level_bounds[1]]
    tmp = np.empty((0, n_b))
    for d in range(1, top + 1):
        lo, hi = int(ct.level_bounds[d]), int(ct.level_bounds[d + 1])
        if hi == lo:
            continue
        acc = out[lo:hi]
        np.copyto(acc, q[lo:hi])
        if tmp.shape[0] < hi - lo:
            tmp = np.empty((hi - lo, n_b))
        buf = tmp[: hi - lo]
        for f in range(NUM_FACES - 1):
            np.take(out, ct.parent[lo:hi, f], axis=0, out=buf)
            np.maximum(acc, buf, out=acc)
    return out


@dataclass
class TurnUtility:
    """The utilities of every way a turn can end, one column per game state.

    ``points[k - k_min]`` is the utility of ending with ``k`` units (stop or bust);
    ``island[d]`` of Skull Island deducting ``d`` units from the opponent; magic is 1.
    """

    k_min: int
    points: FloatArray  # (n_k, B)
    island: FloatArray  # (n_ded, B)


def turn_sweep(
    ct: CompactTurn, values: dict[int, FloatArray], u: TurnUtility, *,
    compiled: bool | None = None, keep_values: dict[int, FloatArray] | None = None,
) -> tuple[dict[int, FloatArray], FloatArray]:
    """One Bellman sweep of the turn: new values of the full orbits per world, turn value.

    `compiled`: use the numba kernel (None: when numba is installed and :data:`COMPILED`
    is on). Both give the same numbers bit for bit. `keep_values`, if given, receives per
    world the value of every row as a keep, (n_rows + 1, B).
    """
    stop = u.points[ct.stop_k - u.k_min]
    stop[ct.magic] = 1.0
    per_row = ct.per_row_bust
    if per_row:
        bust_u = np.vstack([u.points[ct.bust_k - u.k_min], np.zeros((1, stop.shape[1]))])
    else:
        bust_u = u.points[int(ct.bust_k[0]) - u.k_min][None, :]
    kernel = _compiled_world_sweep() if (compiled or (compiled is None and COMPILED)) else None
    new: dict[int, FloatArray] = {}
    q_used: FloatArray | None = None
    for w in ct.worlds:  # USED first: the unused world's Sorceress lands there
        sorceress = w == UNUSED
        if kernel is not None:
            n_b = stop.shape[1]
            out = np.empty((ct.n_full_orbits, n_b))
            q = np.empty((ct.n_rows + 1, n_b))
            kernel(np.ascontiguousarray(values[w]), ct.live[w], ct.alive[w], ct.keep_ok[w],
                   ct.p_bust[w], bust_u, per_row, stop, ct.child, ct.parent,
                   ct.level_bounds, ct.full_rows, ct.n_dice, q_used if sorceress else q,
                   ct.sorceress_ok, ct.sorceress_src, sorceress, out, q)
            new[w] = out
            if keep_values is not None:
                keep_values[w] = q
            if w == USED:
                q_used = q
            continue
        v0 = np.where(ct.live[w][:, None], values[w], 0.0)
        q = expectation(ct, v0)
        q[:-1] += ct.p_bust[w][:, None] * (bust_u[:-1] if per_row else bust_u)
        if keep_values is not None:
            keep_values[w] = q
        if w == USED:
            q_used = q
        qm = np.where(np.append(ct.keep_ok[w], False)[:, None], q, -np.inf)
        best = subset_max(ct, qm, ct.n_dice)[ct.full_rows]
        if sorceress:
            assert q_used is not None
            qs = np.where(np.append(ct.sorceress_ok, False)[:, None], q_used, -np.inf)
            best = np.maximum(best, subset_max(ct, qs, ct.n_dice - 1)[ct.sorceress_src])
        v = np.where(ct.alive[w][:, None], np.maximum(stop, best), best)
        new[w] = np.where(ct.live[w][:, None], v, 0.0)
    return new, first_roll_value(ct, new[ct.start_world], u)


def first_roll_value(ct: CompactTurn, start_values: FloatArray, u: TurnUtility) -> FloatArray:
    """The turn's value before the first roll, given the start world's position values:
    play on from a live first roll, the first-roll bust, or Skull Island."""
    value = ct.first_live_prob @ start_values[ct.first_live]
    value += ct.first_bust_prob * u.points[ct.first_bust_k - u.k_min]
    value += ct.first_island @ u.island[: ct.first_island.shape[0]]
    return value


class GameUtility(Objective):
    """A :class:`TurnUtility` as an objective of :mod:`solver.engine` (one column a state)."""

    def __init__(self, utility: TurnUtility) -> None:
        self.utility = utility

    def of_points(self, points: IntArray) -> FloatArray:
        u = self.utility
        return u.points[np.asarray(points) // UNIT - u.k_min]

    def of_magic(self, points: IntArray) -> FloatArray:
        return np.ones((np.asarray(points).shape[0], self.utility.points.shape[1]))

    def of_island(self, deduction: IntArray) -> FloatArray:
        return self.utility.island[np.asarray(deduction) // UNIT]

    key_: tuple[object, ...] = ("GameUtility",)

    def key(self) -> tuple[object, ...]:
        return self.key_


# --------------------------------------------------------------------------------------------
# The final turn: the deficit table
# --------------------------------------------------------------------------------------------


class FinalTurn(Objective):
    """The trailing player's final turn: win with more points than the deficit.

    One column per deficit ``d`` (units, 1..``max_deficit``): ending with ``q`` points is
    worth 1 when ``q > d``, 1/2 when ``q == d`` under ``ties=shared`` (0 under ``trigger``,
    where the player who reached the target first wins ties), else 0; pirate magic wins.
    Skull Island is worth 0 here: it happens on the first roll, before any decision, and its
    effect (the leader's total falls) is added by the game model.
    """

    def __init__(self, max_deficit: int, ties: str) -> None:
        self.deficits = np.arange(1, max_deficit + 1, dtype=np.int64) * UNIT
        self.tie = 0.5 if ties == "shared" else 0.0

    def of_points(self, points: IntArray) -> FloatArray:
        p = np.asarray(points, dtype=np.int64)[:, None]
        value = (p > self.deficits).astype(np.float64) + self.tie * (p == self.deficits)
        return np.asarray(value, dtype=np.float64)

    def of_magic(self, points: IntArray) -> FloatArray:
        return np.ones((np.asarray(points).shape[0], self.deficits.shape[0]))

    def of_island(self, deduction: IntArray) -> FloatArray:
        return np.zeros((np.asarray(deduction).shape[0], self.deficits.shape[0]))

    def key(self) -> tuple[object, ...]:
        return ("FinalTurn", int(self.deficits.shape[0]), self.tie)


def deck(n_dice: int = NUM_DICE) -> dict[str, float]:
    """The cards and their probabilities (independent draws with the deck's frequencies)."""
    return deck_weights()


def points_range(rules: Rules, n_dice: int = NUM_DICE) -> tuple[int, int]:
    """The least and the most points (units) a turn can end with, over the deck."""
    lo, hi = 0, 0
    for card in deck(n_dice):
        ct = compact_turn(card, rules, n_dice)
        lo = min(lo, int(ct.stop_k.min()), int(ct.bust_k.min()), ct.first_bust_k)
        hi = max(hi, int(ct.stop_k.max()), int(ct.bust_k.max()))
    return lo, hi


@dataclass(frozen=True)
class FinalTable:
    """``value[d]``: the trailing player's probability of winning the final turn with a
    deficit of ``d`` units, Skull Island excluded (``value[0]`` unused, NaN); deficits
    above ``max_deficit`` are worth ``value[max_deficit]`` (only pirate magic wins)."""

    value: FloatArray
    cards: dict[str, FloatArray]
    residual: float
    """Largest change of a turn value in the last sweep."""
    sweeps: int

    @property
    def max_deficit(self) -> int:
        return int(self.value.shape[0]) - 1

    def at(self, deficit: IntArray | int) -> FloatArray:
        d = np.minimum(np.asarray(deficit), self.max_deficit)
        return self.value[d]  # type: ignore[no-any-return]


def solve_final(rules: Rules, *, tol: float = DEFAULT_TOL, n_dice: int = NUM_DICE,
                start: float = 0.0) -> FinalTable:
    """The final-turn table: every card's turn solved for all deficits at once (the fast
    sweep iterated until no value moves by more than ``tol / 100``). It does not depend on
    the target: cached per turn rules and ties.

    Value iteration is monotone and the utilities lie in [0, 1], so the iterates from
    `start` 0 (the table) are lower bounds of the exact values at every sweep, and those from
    `start` 1 upper bounds: the two bracket the final-turn table (the certificate)."""
    return _solve_final(rules.turn_rules(), rules.ties, tol, n_dice, start)


@lru_cache(maxsize=8)
def _solve_final(rules: Rules, ties: str, tol: float, n_dice: int,
                 start: float = 0.0) -> FinalTable:
    k_min, k_max = points_range(rules, n_dice)
    max_deficit = k_max + 1
    objective = FinalTurn(max_deficit, ties)
    ks = np.arange(k_min, k_max + 1, dtype=np.int64) * UNIT
    no_island = np.zeros((MAX_DEDUCTION + 1, max_deficit))
    utility = TurnUtility(k_min, objective.of_points(ks), no_island)
    total = np.zeros(max_deficit + 1)
    total[0] = np.nan
    cards: dict[str, FloatArray] = {}
    sweeps_max, residual_max = 0, 0.0
    for card, weight in deck(n_dice).items():
        ct = compact_turn(card, rules, n_dice)
        values = {w: np.full((ct.n_full_orbits, max_deficit), start) for w in ct.worlds}
        sweep, residual = 0, np.inf
        while residual > tol / 100:
            if sweep == MAX_SWEEPS:
                raise ConvergenceError(f"final turn of {card}: residual {residual:.3g}")
            new, turn = turn_sweep(ct, values, utility)
            residual = max(float(np.max(np.abs(new[w] - values[w]))) for w in ct.worlds)
            values = new
            sweep += 1
        sweeps_max = max(sweeps_max, sweep)
        residual_max = max(residual_max, residual)
        cards[card] = np.concatenate([[np.nan], turn])
        total[1:] += weight * turn
    return FinalTable(value=total, cards=cards, residual=residual_max, sweeps=sweeps_max)


def island_deductions(rules: Rules, n_dice: int = NUM_DICE) -> FloatArray:
    """P(a turn goes to Skull Island and deducts d units), card-weighted, by d."""
    out = np.zeros(MAX_DEDUCTION + 1)
    for card, weight in deck(n_dice).items():
        q = compact_turn(card, rules, n_dice).first_island
        out[: q.shape[0]] += weight * q
    return out


# --------------------------------------------------------------------------------------------
# The game: indexing of the utilities, the batched iteration
# --------------------------------------------------------------------------------------------

NORMAL, SUDDEN = "win", "sudden"


@dataclass(frozen=True)
class Lookup:
    """Where each ending of a turn leads, for every state of one phase.

    The utility of an ending for column ``j = a * n + b`` is ``1 - z[index]`` where ``z`` is
    the phase's values (``n * n``) followed by ``tail`` (the final-turn values ``G`` for
    normal play; a single 0, a win, for sudden death).
    """

    n: int
    k_min: int
    points: IntArray  # (n_k, n*n)
    island: IntArray  # (n_ded, n*n)


def lookup(phase: str, n: int, k_min: int, k_max: int, n_ded: int) -> Lookup:
    a, b = np.divmod(np.arange(n * n), n)
    k = np.arange(k_min, k_max + 1)[:, None]
    after = a[None, :] + k
    here = b[None, :] * n + np.maximum(after, 0)
    if phase == NORMAL:
        beyond = n * n + (after - n) * n + b[None, :]  # G(a', b), a' >= n
    else:
        beyond = np.full_like(after, n * n)  # the win
    points = np.where(after >= n, beyond, here)
    d = np.arange(n_ded)[:, None]
    island = np.maximum(b[None, :] - d, 0) * n + a[None, :]
    return Lookup(n=n, k_min=k_min, points=points, island=island)


def final_values(final: FinalTable, sudden: FloatArray, n: int, k_max: int,
                 deductions: FloatArray) -> FloatArray:
    """G(a', b) for a' = n .. n - 1 + k_max (rows) and b < n: the trailing player's chance.

    The final-turn table by deficit, plus Skull Island: the leader loses d units with
    probability ``deductions[d]``; below the target, sudden death with the leader to move.
    """
    lead, trail = np.meshgrid(np.arange(n, n + max(k_max, 1)), np.arange(n), indexing="ij")
    g = final.at(lead - trail).copy()
    for d, p in enumerate(deductions):
        if p == 0.0:
            continue
        left = lead - d
        below = left < n
        s = sudden[np.clip(left, 0, n - 1), trail]
        g += p * np.where(below, 1.0 - s, 0.0)
    return np.asarray(g, dtype=np.float64)


@dataclass
class _Phase:
    """The iterate of one phase: game values and every card's warm turn values, per block."""

    name: str
    values: FloatArray  # (n * n,) natural order
    blocks: list[IntArray]
    turn: dict[str, list[dict[int, FloatArray]]]
    cards: dict[str, FloatArray] = field(default_factory=dict)
    """Each card's turn value at every state, from the last sweep."""


def _blocks(n: int) -> list[IntArray]:
    """The states in blocks of equal sum of totals, from the highest sum to the lowest.

    Nearly every turn raises the sum, so a sweep in this order (Gauss-Seidel) carries the
    end of the game back to its start at once.
    """
    a, b = np.divmod(np.arange(n * n), n)
    total = a + b
    return [np.flatnonzero(total == t) for t in range(2 * n - 2, -1, -1)]


def _iterate(
    phase: _Phase,
    look: Lookup,
    tail: FloatArray,
    turns: dict[str, CompactTurn],
    weights: dict[str, float],
    *,
    tol: float,
    progress: ProgressFn | None,
) -> tuple[int, float, float]:
    """Gauss-Seidel sweeps over the blocks until nothing moves by more than `tol` / 10.

    Returns (sweeps, last residual, estimated bound).
    """
    history: list[float] = []
    omega = OMEGA
    since_jump = 0
    for sweep in range(1, MAX_SWEEPS + 1):
        residual = wres = 0.0
        steps: list[tuple[FloatArray, dict[str, dict[int, FloatArray]]]] = []
        for i, cols in enumerate(phase.blocks):
            z = np.concatenate([phase.values, tail])
            u = TurnUtility(look.k_min, 1.0 - z[look.points[:, cols]],
                            1.0 - z[look.island[:, cols]])
            total = np.zeros(cols.shape[0])
            turn_steps: dict[str, dict[int, FloatArray]] = {}
            for card, ct in turns.items():
                old = phase.turn[card][i]
                new, value = turn_sweep(ct, old, u)
                turn_steps[card] = {}
                for w in ct.worlds:
                    step = new[w] - old[w]
                    residual = max(residual, float(np.max(np.abs(step))))
                    if omega != 1.0:
                        step *= omega
                        new[w] = old[w] + step
                    turn_steps[card][w] = step
                phase.turn[card][i] = new
                phase.cards.setdefault(card, np.zeros_like(phase.values))[cols] = value
                total += weights[card] * value
            step = total - phase.values[cols]
            wres = max(wres, float(np.max(np.abs(step))))
            phase.values[cols] = total
            steps.append((step, turn_steps))
        residual = max(residual, wres)
        if omega != 1.0 and since_jump and len(history) > 3 and residual > history[-1]:
            omega = 1.0  # the guard: over-relaxation made things worse, plain sweeps on
        history.append(residual)
        since_jump += 1
        jump = _extrapolation(history[-since_jump:])
        if jump > 0.0:  # a steady geometric tail: jump to its limit
            for i, (step, turn_steps) in enumerate(steps):
                phase.values[phase.blocks[i]] += jump * step
                for card, by_world in turn_steps.items():
                    for w, st in by_world.items():
                        phase.turn[card][i][w] += jump * st
            since_jump = 0
        del steps
        if progress is not None:
            progress(phase.name, sweep, residual)
        if residual <= tol / 10 and since_jump:
            return sweep, residual, _bound(history)
    raise ConvergenceError(f"{phase.name}: residual {residual:.3g} after {MAX_SWEEPS} sweeps")


def _extrapolation(history: list[float]) -> float:
    """rho / (1 - rho) when the last sweeps decay at a steady ratio rho (a single dominant
    mode: the step of the last sweep times this is the rest of the geometric tail), else 0.
    """
    if len(history) < 6 or not EXTRAPOLATE:
        return 0.0
    ratios = [b / a for a, b in itertools.pairwise(history[-5:]) if a > 0]
    rho = ratios[-1]
    if len(ratios) < 4 or not 0.3 < rho < 0.9 or max(ratios) - min(ratios) > 0.01 * rho:
        return 0.0
    return rho / (1.0 - rho)


def _bound(history: list[float]) -> float:
    """residual * rho / (1 - rho), rho the largest decay ratio of the last sweeps."""
    tail = [h for h in history[-6:] if h > 0]
    ratios = [b / a for a, b in itertools.pairwise(tail)] if len(tail) > 1 else [0.5]
    rho = min(max(ratios), 0.999)
    return history[-1] * rho / (1 - rho)


def _start(name: str, n: int, turns: dict[str, CompactTurn], start: float) -> _Phase:
    blocks = _blocks(n)
    return _Phase(
        name=name,
        values=np.full(n * n, start),
        blocks=blocks,
        turn={card: [{w: np.full((ct.n_full_orbits, cols.shape[0]), start) for w in ct.worlds}
                     for cols in blocks] for card, ct in turns.items()},
    )


# --------------------------------------------------------------------------------------------
# The certificate: a verified box around the iterate, tightened by bracket sweeps
# --------------------------------------------------------------------------------------------

FP_MARGIN = 1e-13
"""Rounding allowance added outward to every bound a bracket sweep computes: a value is a
sum of at most a few hundred products of numbers in [0, 1] (rounding below 1e-13)."""
CERT_ATTEMPTS = 10
"""Boxes tried before giving up (each is one bracket sweep)."""
CERT_RESHAPES = 5
"""Boxes tried from twice the residual before starting again :data:`CERT_JUMP` wide."""
CERT_GROWTH = 2.0
"""How much wider each box is than the image of the last one."""
CERT_JUMP = 1000.0
"""After a first failure the next box is this many residuals wide: a bracket sweep pulls a
box in only by what ends the game within the sweep (no cancellation of signs, unlike the
plain iteration), about 1e-4 of its width at the default target."""
CERT_TIGHTEN = 1
"""Bracket sweeps after the box is verified (each narrows it)."""


def magic_probability(turns: dict[str, CompactTurn], weights: dict[str, float]) -> float:
    """P(the first roll of a turn is pirate magic): a turn ends the game with at least this
    probability whatever the totals (the stop there is worth 1, no other utility exceeds 1)."""
    p = 0.0
    for card, ct in turns.items():
        live = ct.first_live
        p += weights[card] * float(ct.first_prob[live][ct.magic[live]].sum())
    return p


def _copy_phase(phase: _Phase, values: FloatArray,
                turn: dict[str, list[dict[int, FloatArray]]]) -> _Phase:
    return _Phase(name=phase.name, values=values, blocks=phase.blocks, turn=turn)


def _box(phase: _Phase, h: _Phase, eps: float, sign: float) -> _Phase:
    """phase + sign * eps * h, clipped to [0, 1]."""
    return _copy_phase(
        phase, np.clip(phase.values + sign * eps * h.values, 0.0, 1.0),
        {card: [{w: np.clip(v + sign * eps * h.turn[card][i][w], 0.0, 1.0)
                 for w, v in blocks.items()} for i, blocks in enumerate(turn)]
         for card, turn in phase.turn.items()})


def _extent(center: _Phase, lo: _Phase, hi: _Phase) -> _Phase:
    """max(center - lo, hi - center) per component (the half-extent of a box about center)."""
    return _copy_phase(
        center, np.maximum(center.values - lo.values, hi.values - center.values),
        {card: [{w: np.maximum(v - lo.turn[card][i][w], hi.turn[card][i][w] - v)
                 for w, v in blocks.items()} for i, blocks in enumerate(turn)]
         for card, turn in center.turn.items()})


def _inside(inner_lo: _Phase, inner_hi: _Phase, lo: _Phase, hi: _Phase) -> bool:
    """[inner_lo, inner_hi] is inside [lo, hi], every component."""
    if np.any(inner_lo.values < lo.values) or np.any(inner_hi.values > hi.values):
        return False
    for card, turn in lo.turn.items():
        for i, blocks in enumerate(turn):
            for w, v in blocks.items():
                if (np.any(inner_lo.turn[card][i][w] < v)
                        or np.any(inner_hi.turn[card][i][w] > hi.turn[card][i][w])):
                    return False
    return True


def _bracket_sweep(lo: _Phase, hi: _Phase, look: Lookup, tail_lo: FloatArray,
                   tail_hi: FloatArray, turns: dict[str, CompactTurn],
                   weights: dict[str, float]) -> tuple[_Phase, _Phase]:
    """One Gauss-Seidel sweep of the bracket: new (lo, hi), the inputs untouched.

    The lower game values and turn values are updated from the utilities ``1 - hi`` and the
    lower turn values, the upper ones from ``1 - lo`` and the upper turn values; each block
    sees the new bounds of the blocks before it. Every bound moves outward by
    :data:`FP_MARGIN` and is clipped to [0, 1].
    """
    lo = _copy_phase(lo, lo.values.copy(), {c: [dict(b) for b in t] for c, t in lo.turn.items()})
    hi = _copy_phase(hi, hi.values.copy(), {c: [dict(b) for b in t] for c, t in hi.turn.items()})
    for i, cols in enumerate(lo.blocks):
        m = cols.shape[0]
        z_lo = np.concatenate([lo.values, tail_lo])
        z_hi = np.concatenate([hi.values, tail_hi])
        pts, isl = look.points[:, cols], look.island[:, cols]
        u = TurnUtility(look.k_min, np.hstack([1.0 - z_hi[pts], 1.0 - z_lo[pts]]),
                        np.hstack([1.0 - z_hi[isl], 1.0 - z_lo[isl]]))
        total = np.zeros(2 * m)
        for card, ct in turns.items():
            old = {w: np.hstack([lo.turn[card][i][w], hi.turn[card][i][w]]) for w in ct.worlds}
            new, value = turn_sweep(ct, old, u)
            for w in ct.worlds:
                lo.turn[card][i][w] = np.maximum(new[w][:, :m] - FP_MARGIN, 0.0)
                hi.turn[card][i][w] = np.minimum(new[w][:, m:] + FP_MARGIN, 1.0)
            total += weights[card] * value
        lo.values[cols] = np.maximum(total[:m] - FP_MARGIN, 0.0)
        hi.values[cols] = np.minimum(total[m:] + FP_MARGIN, 1.0)
    return lo, hi


@dataclass(frozen=True)
class Certificate:
    """What :func:`certify` proved about one phase (see the module doc)."""

    verified: bool
    """A box around the iterate was verified to be mapped into itself by a sweep."""
    unique: bool
    """The equations have one solution in [0, 1] (a first roll can be pirate magic)."""
    bound: float
    """max |table - exact| over the phase's values when `verified` and `unique`, else inf."""
    lower: FloatArray
    upper: FloatArray
    """Bounds on every exact value of the phase (the whole [0, 1] when not certified)."""
    sweeps: int


def certify(phase: _Phase, look: Lookup, tail_lo: FloatArray, tail_hi: FloatArray,
            turns: dict[str, CompactTurn], weights: dict[str, float], *,
            residual: float) -> Certificate:
    """Bound the distance from the converged iterate `phase` to the exact solution.

    Boxes ``phase ± eps * h`` (game values and turn values, clipped to [0, 1]) are tried until
    one bracket sweep maps a box into itself: first ``h = 1`` and ``eps`` twice the last
    residual; after a failure ``h`` is the half-extent of the sweep's image over ``eps`` (the
    next box is wider where the sweep pushed outward) and ``eps`` grows by
    :data:`CERT_GROWTH`. A verified box is
    then narrowed by :data:`CERT_TIGHTEN` bracket sweeps; each keeps the exact solution in.
    `tail_lo`, `tail_hi` bound the values past the phase (``G``, or the win).
    """
    unique = magic_probability(turns, weights) > 0.0
    eps = max(2.0 * residual, 1e-12)
    h = _copy_phase(phase, np.ones_like(phase.values),
                    {c: [{w: np.ones_like(v) for w, v in b.items()} for b in t]
                     for c, t in phase.turn.items()})
    n = look.n
    sweeps = 0
    ones = h
    for attempt in range(CERT_ATTEMPTS):
        lo, hi = _box(phase, h, eps, -1.0), _box(phase, h, eps, 1.0)
        lo, hi = _bracket_sweep(lo, hi, look, tail_lo, tail_hi, turns, weights)
        sweeps += 1
        if _inside(lo, hi, _box(phase, h, eps, -1.0), _box(phase, h, eps, 1.0)):
            break
        if attempt == CERT_RESHAPES - 1 and eps < CERT_JUMP * residual:
            eps, h = CERT_JUMP * residual, ones  # start again, uniform and wide
            continue
        h = _extent(phase, lo, hi)
        h.values /= eps
        for t in h.turn.values():
            for b in t:
                for w in b:
                    b[w] /= eps
        eps *= CERT_GROWTH
    else:
        none = np.ones((n, n))
        return Certificate(False, unique, np.inf, 0.0 * none, none, sweeps)
    for _ in range(CERT_TIGHTEN):
        lo, hi = _bracket_sweep(lo, hi, look, tail_lo, tail_hi, turns, weights)
        sweeps += 1
    bound = float(max(np.max(phase.values - lo.values), np.max(hi.values - phase.values)))
    return Certificate(True, unique, bound if unique else np.inf, lo.values.reshape(n, n),
                       hi.values.reshape(n, n), sweeps)


@dataclass(frozen=True)
class GameSolution:
    """The two-player tables of one rules object (target and ties included).

    ``win[a, b]``: P(the player about to draw, with ``a`` units against ``b``, wins);
    ``sudden[x, y]``: the same in sudden death; ``final``: the final-turn table.
    """

    rules: Rules
    win: FloatArray
    sudden: FloatArray
    final: FinalTable
    cards: dict[str, FloatArray]
    """Each card's turn value in normal play, (n, n): ``win`` is their deck-weighted sum."""
    k_min: int
    k_max: int
    """The least and most points (units) a turn can end with."""
    beyond: FloatArray
    """``G(a', b)``: the trailing player's chance in the final turn when the leader has
    ``a' = n + i`` (row i, up to ``n - 1 + k_max``), Skull Island and sudden death included."""
    sweeps: dict[str, int]
    residual: dict[str, float]
    estimated_error: dict[str, float]
    """residual x rho / (1 - rho), rho the observed decay of the last sweeps: an estimate."""
    certified_bound: dict[str, float]
    """Proven bound on |table - exact| per phase (module doc, "The certificate"); empty when
    the solve was not certified, inf when the certificate failed."""
    seconds: float
    n_dice: int = NUM_DICE

    @property
    def n(self) -> int:
        return int(self.win.shape[0])


def _report(progress: ProgressFn | None, name: str, cert: Certificate) -> None:
    if progress is not None:
        progress(f"{name} certificate", cert.sweeps, cert.bound)


def solve_game(
    rules: Rules,
    *,
    tol: float = DEFAULT_TOL,
    start: float = 0.5,
    n_dice: int = NUM_DICE,
    progress: ProgressFn | None = None,
    certify_solution: bool = True,
) -> GameSolution:
    """Solve the final turn, then sudden death, then normal play (see the module doc), and
    certify each phase (`certify_solution`): ``certified_bound`` (inf when a box could not be
    verified or the equations have more than one solution in [0, 1] for all we know)."""
    t0 = time.perf_counter()
    n = rules.target // UNIT
    weights = deck(n_dice)
    turns = {card: compact_turn(card, rules, n_dice) for card in weights}
    k_min, k_max = points_range(rules, n_dice)
    n_ded = max(ct.island.shape[1] for ct in turns.values())
    final = solve_final(rules, tol=tol, n_dice=n_dice)
    sweeps, residual, estimate = {"final": final.sweeps}, {"final": final.residual}, {}
    sudden = _start(SUDDEN, n, turns, start)
    look_s = lookup(SUDDEN, n, k_min, k_max, n_ded)
    sweeps[SUDDEN], residual[SUDDEN], estimate[SUDDEN] = _iterate(
        sudden, look_s, np.zeros(1), turns, weights, tol=tol, progress=progress)
    s_table = sudden.values.reshape(n, n)
    deductions = island_deductions(rules, n_dice)
    g = final_values(final, s_table, n, k_max, deductions)
    certified: dict[str, float] = {}
    if certify_solution:
        # the final-turn table from above: [final, final_hi] holds the exact one
        final_hi = solve_final(rules, tol=tol, n_dice=n_dice, start=1.0)
        slack = FP_MARGIN * (final.sweeps + final_hi.sweeps)
        f_lo = FinalTable(final.value - slack, {}, final.residual, final.sweeps)
        f_hi = FinalTable(final_hi.value + slack, {}, final_hi.residual, final_hi.sweeps)
        certified["final"] = max(float(np.nanmax(f_hi.value - final.value)), slack)
        cert = certify(sudden, look_s, np.zeros(1), np.zeros(1), turns, weights,
                       residual=residual[SUDDEN])
        _report(progress, SUDDEN, cert)
        certified[SUDDEN] = cert.bound
        g_lo = final_values(f_lo, cert.upper, n, k_max, deductions) - FP_MARGIN
        g_hi = final_values(f_hi, cert.lower, n, k_max, deductions) + FP_MARGIN
    del sudden.turn
    win = _start(NORMAL, n, turns, start)
    look = lookup(NORMAL, n, k_min, k_max, n_ded)
    sweeps[NORMAL], residual[NORMAL], estimate[NORMAL] = _iterate(
        win, look, g.ravel(), turns, weights, tol=tol, progress=progress)
    if certify_solution:
        cert = certify(win, look, g_lo.ravel(), g_hi.ravel(), turns, weights,
                       residual=residual[NORMAL])
        _report(progress, NORMAL, cert)
        certified[NORMAL] = cert.bound
    return GameSolution(
        rules=rules,
        win=win.values.reshape(n, n),
        sudden=s_table,
        final=final,
        cards={card: v.reshape(n, n) for card, v in win.cards.items()},
        k_min=k_min,
        k_max=k_max,
        beyond=g,
        sweeps=sweeps,
        residual=residual,
        estimated_error=estimate,
        certified_bound=certified,
        seconds=time.perf_counter() - t0,
        n_dice=n_dice,
    )


# --------------------------------------------------------------------------------------------
# Optional compiled sweep (numba): the same arithmetic in the same order, column by column
# --------------------------------------------------------------------------------------------

_COMPILED: list[object] = []


def _compiled_world_sweep() -> Callable[..., None] | None:
    """The numba version of one world's sweep, or None when numba is not installed.

    It performs exactly the floating-point operations of :func:`turn_sweep` (the same sums
    in the same order, no fused multiply-add), so both give the same numbers bit for bit;
    the tests check it.
    """
    if _COMPILED:
        return _COMPILED[0]  # type: ignore[return-value]
    try:
        import numba
    except ImportError:
        _COMPILED.append(None)
        return None

    @numba.njit(cache=True, fastmath=False)
    def world_sweep(values, live, alive, keep_ok, p_bust, bust_u, per_row_bust, stop,  # type: ignore[no-untyped-def]
                    child, parent, level_bounds, full_rows, n_dice,
                    q_used, sorceress_ok, sorceress_src, use_sorceress, new, q_out):
        n_rows = child.shape[0]
        n_fo = full_rows.shape[0]
        n_b = values.shape[1]
        width = 64
        sixth = 1.0 / 6.0
        n_chunks = (n_b + width - 1) // width
        for c in range(n_chunks):
            j0 = c * width
            cw = min(width, n_b - j0)
            e = np.empty((n_rows + 1, cw))
            best = np.empty((n_rows + 1, cw))
            for k in range(cw):
                e[n_rows, k] = 0.0
                best[n_rows, k] = -np.inf
            for i in range(n_fo):
                r = full_rows[i]
                for k in range(cw):
                    e[r, k] = values[i, j0 + k] if live[i] else 0.0
            for d in range(n_dice - 1, -1, -1):
                for r in range(level_bounds[d], level_bounds[d + 1]):
                    c0, c1, c2 = child[r, 0], child[r, 1], child[r, 2]
                    c3, c4, c5 = child[r, 3], child[r, 4], child[r, 5]
                    for k in range(cw):
                        acc = e[c0, k]
                        acc += e[c1, k]
                        acc += e[c2, k]
                        acc += e[c3, k]
                        acc += e[c4, k]
                        acc += e[c5, k]
                        e[r, k] = acc * sixth
            for r in range(n_rows):
                pb = p_bust[r]
                ok = keep_ok[r]
                br = r if per_row_bust else 0
                for k in range(cw):
                    q = e[r, k] + pb * bust_u[br, j0 + k]
                    q_out[r, j0 + k] = q
                    best[r, k] = q if ok else -np.inf
            for k in range(cw):
                q_out[n_rows, j0 + k] = 0.0
            for d in range(1, n_dice + 1):
                for r in range(level_bounds[d], level_bounds[d + 1]):
                    for f in range(parent.shape[1]):
                        pr = parent[r, f]
                        for k in range(cw):
                            best[r, k] = max(best[r, k], best[pr, k])
            if use_sorceress:
                bs = np.empty((n_rows + 1, cw))
                for k in range(cw):
                    bs[n_rows, k] = -np.inf
                for r in range(n_rows):
                    ok = sorceress_ok[r]
                    for k in range(cw):
                        bs[r, k] = q_used[r, j0 + k] if ok else -np.inf
                for d in range(1, n_dice):
                    for r in range(level_bounds[d], level_bounds[d + 1]):
                        for f in range(parent.shape[1]):
                            pr = parent[r, f]
                            for k in range(cw):
                                bs[r, k] = max(bs[r, k], bs[pr, k])
                for r in range(level_bounds[n_dice], n_rows):
                    for k in range(cw):
                        bs[r, k] = -np.inf
            for i in range(n_fo):
                r = full_rows[i]
                src = sorceress_src[i]
                for k in range(cw):
                    v = best[r, k]
                    if use_sorceress:
                        v = max(v, bs[src, k])
                    if alive[i]:
                        v = max(stop[i, j0 + k], v)
                    new[i, j0 + k] = v if live[i] else 0.0

    _COMPILED.append(world_sweep)
    return world_sweep


# --------------------------------------------------------------------------------------------
# Tables on disk and the questions they answer
# --------------------------------------------------------------------------------------------


class GameError(RulesError):
    """Totals that are not a game state (not multiples of 100, negative, past the target)."""


GAME_FILE = "game.msgpack"


def game_table_path(directory: Path | str) -> Path:
    return Path(directory) / GAME_FILE


def game_cache_dir(rules: Rules) -> Path:
    from .tables import cache_key, cache_root

    return cache_root() / cache_key("game", rules.hash)


def game_default_dir(rules: Rules) -> Path:
    """The repository's tables/ for the default rules, the cache for any other rules."""
    from .tables import repo_tables_dir

    repo = repo_tables_dir()
    if rules == Rules() and repo.is_dir():
        return repo
    return game_cache_dir(rules)  # other rules, or an installed package without the repository


def regenerate_game_command(rules: Rules, directory: Path | str) -> str:
    from .tables import repo_tables_dir

    if rules == Rules() and Path(directory).resolve() == repo_tables_dir():
        return "make tables"
    variants = "".join(
        f" --variant {k}={('on' if v else 'off') if isinstance(v, bool) else v}"
        for k, v in rules.non_defaults().items()
    )
    return f"sabords winprob --me 0 --opp 0{variants} (solves and caches them)"


def pack_game(sol: GameSolution) -> bytes:
    """The bytes of a game table (deterministic: the same solution gives the same bytes)."""
    from . import __version__
    from .tables import FORMAT_VERSION, pack_array, pack_envelope

    payload = {
        "header": {
            "kind": "game",
            "format": FORMAT_VERSION,
            "solver_version": __version__,
            "rules": sol.rules.as_dict(),
            "rules_hash": sol.rules.hash,
            "n_dice": sol.n_dice,
            "deck": deck(sol.n_dice),
            "k_min": sol.k_min,
            "k_max": sol.k_max,
        },
        "solve": {"sweeps": sol.sweeps, "residual": sol.residual,
                  "estimated_error": sol.estimated_error,
                  "certified_bound": sol.certified_bound},
        "arrays": {
            "win": pack_array(sol.win),
            "sudden": pack_array(sol.sudden),
            "final": pack_array(sol.final.value),
            "beyond": pack_array(sol.beyond),
            "cards": {card: pack_array(v) for card, v in sol.cards.items()},
        },
    }
    return pack_envelope(payload)


def unpack_game(data: bytes, rules: Rules, *, source: str, fix: str) -> GameSolution:
    """Read game table bytes, refusing them unless intact and made for exactly `rules`."""
    from .tables import StaleTableError, open_envelope, unpack_array

    payload = open_envelope(data, source=source, fix=fix)
    try:
        header = payload["header"]
        if header.get("kind") != "game":
            raise StaleTableError(f"table {source}: not a game table; {fix}")
        if header["rules_hash"] != rules.hash or header["rules"] != rules.as_dict():
            raise StaleTableError(
                f"table {source}: made for other rules (hash {header['rules_hash']}, these "
                f"rules have {rules.hash}); {fix}")
        arrays, solve = payload["arrays"], payload["solve"]
        final = unpack_array(arrays["final"])
        return GameSolution(
            rules=rules,
            win=unpack_array(arrays["win"]),
            sudden=unpack_array(arrays["sudden"]),
            final=FinalTable(value=final, cards={}, residual=solve["residual"]["final"],
                             sweeps=solve["sweeps"]["final"]),
            cards={card: unpack_array(v) for card, v in arrays["cards"].items()},
            k_min=header["k_min"],
            k_max=header["k_max"],
            beyond=unpack_array(arrays["beyond"]),
            sweeps=solve["sweeps"],
            residual=solve["residual"],
            estimated_error=solve["estimated_error"],
            certified_bound=solve["certified_bound"],
            seconds=0.0,
            n_dice=header["n_dice"],
        )
    except StaleTableError:
        raise
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        raise StaleTableError(f"table {source}: incomplete (a field is missing); {fix}") from None


def write_game(sol: GameSolution, directory: Path | str) -> Path:
    from .tables import write_atomically

    return write_atomically(game_table_path(directory), pack_game(sol))


def read_game(directory: Path | str, rules: Rules) -> GameSolution:
    from .tables import StaleTableError

    path = game_table_path(directory)
    fix = f"run `{regenerate_game_command(rules, path.parent)}` to make it again"
    try:
        data = path.read_bytes()
    except OSError:
        raise StaleTableError(f"table {path}: no such file or unreadable; {fix}") from None
    return unpack_game(data, rules, source=str(path), fix=fix)


def game_tables(rules: Rules, tables_dir: Path | str | None = None, *,
                progress: ProgressFn | None = None) -> GameSolution:
    """The game tables of `rules`: from `tables_dir`, the repository (default rules) or the
    cache; other rules are solved now (about a minute at target 6000) and cached."""
    from .tables import StaleTableError, repo_tables_dir

    if tables_dir is not None:
        return read_game(tables_dir, rules)
    directory = game_default_dir(rules)
    if directory == repo_tables_dir():
        return read_game(directory, rules)
    try:
        return read_game(directory, rules)
    except StaleTableError:
        pass
    sol = solve_game(rules, progress=progress)
    try:
        write_game(sol, directory)
    except OSError:
        pass
    return sol


def check_totals(rules: Rules, me: int, opp: int, *, final: bool = False) -> tuple[int, int]:
    """The totals in units, or :class:`GameError`. With `final`, `opp` (the leader) is at or
    above the target and `me` below it."""
    for name, x in (("--me", me), ("--opp", opp)):
        if isinstance(x, bool) or not isinstance(x, int) or x < 0 or x % UNIT:
            raise GameError(f"{name} takes a total: a non-negative multiple of 100, not {x!r}")
    if me >= rules.target:
        raise GameError(f"--me {me} is at or above the target {rules.target}: the game is over "
                        f"(the target is the variant target=N)")
    if final and opp < rules.target:
        raise GameError(f"--final is the last turn after the opponent reached the target "
                        f"{rules.target}: --opp must be at least {rules.target}, not {opp}")
    if not final and opp >= rules.target:
        raise GameError(f"--opp {opp} is at or above the target {rules.target}: that is your "
                        f"final turn, add --final")
    return me // UNIT, opp // UNIT


def state_utility(sol: GameSolution, me: int, opp: int, *, final: bool = False,
                  sudden: bool = False) -> TurnUtility:
    """The utility of every ending of the mover's turn at one state (units): one column.

    Normal play: the lookups of the module doc into ``win`` (and ``G`` past the target).
    Final turn (`opp` >= target): beat the leader's total; Skull Island may bring the
    leader below the target, into sudden death with the leader to move.
    """
    n = sol.n
    k_min, k_max = sol.k_min, sol.k_max
    ks = np.arange(k_min, k_max + 1)
    ded = np.arange(MAX_DEDUCTION + 1)
    if final:
        tie = 0.5 if sol.rules.ties == "shared" else 0.0
        mine = me + ks
        points = (mine > opp) + tie * (mine == opp)
        left = opp - ded
        island = np.where(left < n, 1.0 - sol.sudden[np.clip(left, 0, n - 1), me], 0.0)
        return TurnUtility(k_min, points.astype(np.float64)[:, None], island[:, None])
    after = me + ks
    if sudden:
        here = sol.sudden[opp, np.clip(after, 0, n - 1)]
        points = np.where(after >= n, 1.0, 1.0 - here)
        island = 1.0 - sol.sudden[np.maximum(opp - ded, 0), me]
        return TurnUtility(k_min, points[:, None], island[:, None])
    g = sol.beyond
    here = sol.win[opp, np.clip(after, 0, n - 1)]
    beyond = g[np.clip(after - n, 0, g.shape[0] - 1), opp]
    points = 1.0 - np.where(after >= n, beyond, here)
    island = 1.0 - sol.win[np.maximum(opp - ded, 0), me]
    return TurnUtility(k_min, points[:, None], island[:, None])


def win_objective(sol: GameSolution, me: int, opp: int, *, final: bool = False) -> Objective:
    """The engine objective of the mover's turn at (`me`, `opp`) in points."""
    a, b = check_totals(sol.rules, me, opp, final=final)
    obj = GameUtility(state_utility(sol, a, b, final=final))
    obj.key_ = ("win", me, opp, final, sol.rules.hash)
    return obj


def win_probability(sol: GameSolution, me: int, opp: int, *,
                    final: bool = False) -> tuple[float, dict[str, float]]:
    """P(the player about to draw wins) and per card, at totals `me`, `opp` (points)."""
    a, b = check_totals(sol.rules, me, opp, final=final)
    if not final:
        return float(sol.win[a, b]), {c: float(v[a, b]) for c, v in sol.cards.items()}
    from .engine import solve_turn

    obj = win_objective(sol, me, opp, final=True)
    cards = {c: float(solve_turn(c, sol.rules.turn_rules(), obj).turn_value[0])
             for c in deck(sol.n_dice)}
    weights = deck(sol.n_dice)
    return float(sum(weights[c] * v for c, v in cards.items())), cards


# --------------------------------------------------------------------------------------------
# Policies of many states at once (simulation, report): the fast sweep iterated, then argmax
# --------------------------------------------------------------------------------------------


def stack_utilities(utilities: list[TurnUtility]) -> TurnUtility:
    return TurnUtility(utilities[0].k_min, np.hstack([u.points for u in utilities]),
                       np.hstack([u.island for u in utilities]))


@dataclass(frozen=True)
class StatePolicies:
    """One card's optimal turn at several states (columns): values and engine policy arrays."""

    card: str
    turn_value: FloatArray
    policy: dict[int, tuple[IntArray, BoolArray]]
    """Per world, (keep code, uses the Sorceress) per full position and column, as
    :data:`solver.engine.Policy` (``STOP``, a partial index, ``NO_MOVE``)."""


def state_policies(card: str, rules: Rules, utility: TurnUtility, *, tol: float = 1e-12,
                   n_dice: int = NUM_DICE) -> StatePolicies:
    """Solve `card`'s turn for every column of `utility` and extract the optimal moves.

    The moves are chosen as the engine chooses them: stop when stopping is at least as good
    as every reroll, the Sorceress when strictly better than the best plain reroll, else the
    first best keep in the engine's order of keeps.
    """
    ct = compact_turn(card, rules, n_dice)
    model = turn_model(card, rules.turn_rules(), n_dice)
    n_b = utility.points.shape[1]
    values = {w: np.zeros((ct.n_full_orbits, n_b)) for w in ct.worlds}
    keep: dict[int, FloatArray] = {}
    residual, sweeps = np.inf, 0
    while residual > tol:
        if sweeps == MAX_SWEEPS:
            raise ConvergenceError(f"{card}: residual {residual:.3g}")
        new, turn = turn_sweep(ct, values, utility, keep_values=keep)
        residual = max(float(np.max(np.abs(new[w] - values[w]))) for w in ct.worlds)
        values, sweeps = new, sweeps + 1
    stop = utility.points[model.stop_points // UNIT - utility.k_min]
    stop[model.stop_magic & (rules.nine_of_a_kind == "magic")] = 1.0
    n_full = model.n_full
    policy: dict[int, tuple[IntArray, BoolArray]] = {}
    for w in ct.worlds:
        code = np.empty((n_full, n_b), dtype=np.int64)
        use_sor = np.empty((n_full, n_b), dtype=bool)
        for lo in range(0, n_b, POLICY_CHUNK):  # bounded memory: (keeps x chunk) arrays
            cols = slice(lo, min(lo + POLICY_CHUNK, n_b))
            code[:, cols], use_sor[:, cols] = _best_moves(
                model, ct, w, {v: k[:, cols] for v, k in keep.items()}, stop[:, cols])
        policy[w] = (code, use_sor)
    return StatePolicies(card=card, turn_value=turn, policy=policy)


POLICY_CHUNK = 128


def _best_moves(model: TurnModel, ct: CompactTurn, w: int, keep: dict[int, FloatArray],
                stop: FloatArray) -> tuple[IntArray, BoolArray]:
    """The engine's choice at every position of world `w` from the keep values."""
    from .engine import NO_MOVE, STOP, _pairs

    g = model.geometry
    every = np.arange(g.n_full)
    q = keep[w][ct.orbit_of_partial]  # (n_partial, B); beyond the rows: the sentinel
    outcome = model.outcome[w]
    alive = np.array([o is Outcome.ALIVE for o in outcome])
    live = model.live(w)
    rescue = live & ~alive
    rescue_skulls = np.unique(g.full_counts[rescue, 0])
    keep_ok = model.legal & ~np.isin(g.counts[:, 0], rescue_skulls)
    pairs = _pairs(g, every, keep_ok, sorceress=False)
    best, arg = _segment_best(q[pairs.keep], pairs.ptr, pairs.keep, g.n_full)
    sor_best = np.full_like(best, -np.inf)
    sor_arg = np.full(best.shape, NO_MOVE, dtype=np.int64)
    if w == UNUSED:
        sp = _pairs(g, every, model.legal_sorceress, sorceress=True)
        q_used = keep[USED][ct.orbit_of_partial]
        sor_best, sor_arg = _segment_best(q_used[sp.keep], sp.ptr, sp.keep, g.n_full)
    stop_here = np.where(alive[:, None], stop, -np.inf)
    stops = stop_here >= np.maximum(best, sor_best)
    use_sor = ~stops & (sor_best > best)
    code = np.where(stops, STOP, np.where(use_sor, sor_arg, arg))
    code[~live] = NO_MOVE
    use_sor[~live] = False
    return code, use_sor


def _segment_best(values: FloatArray, ptr: IntArray, keep: IntArray,
                  n: int) -> tuple[FloatArray, IntArray]:
    """Per segment: the largest value and the keep of its first occurrence (-2 if empty)."""
    best = np.full((n, values.shape[1]), -np.inf)
    arg = np.full((n, values.shape[1]), -2, dtype=np.int64)
    for j in range(n):
        lo, hi = ptr[j], ptr[j + 1]
        if hi > lo:
            seg = values[lo:hi]
            i = np.argmax(seg, axis=0)
            best[j] = seg[i, np.arange(seg.shape[1])]
            arg[j] = keep[lo:hi][i]
    return best, arg
