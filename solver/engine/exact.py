r"""Exact rational values of a turn, proved optimal by exact policy iteration.

The float solve (:mod:`.solve`) certifies every value to about :math:`10^{-9}`. This module
gives the values themselves, as fractions, and a proof that the policy attains them.

**Payoffs.**  Every way a turn ends has a rational utility: the objective's doubles taken at
their exact binary value (expected points and ``AtLeast(N)`` give integers), Skull Island's
utility the expectation over its exact distribution of deductions
(:meth:`.TurnModel.island_deduction`). :func:`exact_payoff` tabulates them
(:class:`ExactPayoff`), as :func:`.objectives.payoff_for` does in floats.

**Policy evaluation.**  Under a fixed policy :math:`\pi` the values of a layer (a world, then a
number of skull dice: the order of :mod:`.solve`) satisfy a linear system. For a position
:math:`y` whose move keeps :math:`x = \pi(y)` and rolls its :math:`r` other dice,

.. math::

   6^r\, V(y) - \sum_{o\ \text{no skull}} w(o)\, V(x + o)
   = \sum_{o\ \text{skull, live}} w(o)\, V(x + o) + b(x)\, u_{bust}(x),

with :math:`w(o)` the number of the :math:`6^r` ordered outcomes showing :math:`o` and
:math:`b(x)` the number of them that bust: integers. The right side reads only solved layers
(or the layer's stops and Sorceress moves, whose values are known), and the matrix is
:math:`6^r I - W` with :math:`W` the no-skull outcomes landing on the layer's other rerolls,
strictly diagonally dominant (a reroll stays with probability at most 25/36), so invertible.
It is block triangular: its strongly connected components (a reroll returns to a position only
through a few others: at most about 20 positions under the default rules) are solved from the
sinks up, each exactly over the integers by FLINT (``fmpz_mat.solve``, python-flint: Dixon's
p-adic lifting), the right side of each on a common denominator with the components below it
(:func:`.exact_linear.solve_system`; a layer of 443 unknowns takes about 30 ms).

**Keep values, exactly and vectorised.**  Over a common denominator :math:`D` of the values of
the layers solved, every partial position's value is an integer: with
:math:`S(x) = D \sum_{o} w(o) V(x + o)` over the live outcomes, computed one die at a time as
the float kernel does, :math:`S(x) = \sum_f S(x + e_f)` (a full position is :math:`D\,V(y)`
where live, 0 where over), the keep value is

.. math::

   Q(x) = \frac{T(x)}{D\, 6^{n}}, \qquad T(x) = 6^{d(x)} \big(S(x) + b(x)\, u_{bust}(x)\, D\big),

:math:`d(x)` the dice on the table and :math:`n` the dice of the game. The best legal keep of
every sub-multiset follows from the kernel's recursion
:math:`M(x) = \max(T(x)\ \text{if legal},\ \max_f M(x - e_f))`, over integers keyed by
``(T, dice kept, partial index)`` so that the maximum is also the tie-break of the policy: the
most dice, then the largest partial index. The Sorceress's best keep is the same recursion
over the used world's keep values and her legality. Numpy runs the recursions over arrays of
Python integers: no loop over (position, keep) pairs.

**The proof, and policy iteration.**  In every layer, every live position's value is compared
exactly with its best legal move: stopping (where allowed), the best plain keep, the best
Sorceress keep. If a move is strictly better somewhere, the policy switches to the best moves
and the layer is solved again (exact policy iteration, Howard 1960; Puterman, *Markov Decision
Processes*, 1994, §6.4): values only increase and policies are finitely many, so it stops.
When no move is strictly better, :math:`V = \max_a Q(a)` at every position: the Bellman
optimality equation holds exactly, and since every policy's operator is a contraction inside
a layer (a reroll stays there with probability at most 25/36), its fixed point is unique:
these are the optimal values, exactly. The stored policy is then the policy's one tie-break
rule among exactly tied moves (:data:`.solve.TIE_TOL`): stop, then no Sorceress, then the
keep with the most dice, then the largest partial index. A policy greedy for the optimal
values keeps them, so this changes no value (its other columns, e.g. P(bust), are evaluated
under it).

**Other columns.**  Further payoffs (``evaluate``: the bust and island indicators of
:mod:`solver.engine.stats`) are evaluated exactly under the same policy, in the same solves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from typing import Any

import numpy as np

from ..rules.rulebook import CARDS, NUM_DICE, Card, Rules
from ..rules.scoring import Outcome
from .codes import NO_MOVE, STOP, UNUSED, USED
from .exact_linear import (
    DICE_BITS,
    IDX_BITS,
    KEY_SHIFT,
    NEG,
    ExactTables,
    best_subkeep,
    common_denominator,
    exact_tables,
    ints_on,
    roll_ways,
    solve_system,
    tie_key,
)
from .model import TurnModel, turn_model
from .objectives import ExpectedPoints, Objective, payoff_for
from .positions import BoolArray, FloatArray, IntArray, ObjectArray, first_roll_ways
from .results import Policy, ProofRecord, TurnSolution, WorldSolution
from .rows import TurnStructure, structure
from .solve import solve_payoff

MAX_ITERATIONS = 100
"""Policy-iteration rounds of one layer before giving up (a bug, not a user error: a round
without a strict improvement ends it, and a float policy is nearly optimal)."""


class PolicyError(ValueError):
    """A policy given to the exact solve moves where it cannot (an illegal or missing move)."""


class ExactnessError(RuntimeError):
    """Policy iteration did not settle (a bug, not a user error)."""


# --------------------------------------------------------------------------------------------
# Exact payoffs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExactPayoff:
    """Utilities of every way a turn ends, as fractions, one column per payoff
    (:class:`.objectives.Payoff` in exact numbers)."""

    stop: ObjectArray
    """(n_full, B): stopping at each position (where stopping is allowed)."""
    bust: ObjectArray
    """(n_partial, B): busting with the dice of this partial position not rolled."""
    first_bust: tuple[Fraction, ...]
    """(B,): busting on the first roll."""
    island: ObjectArray
    """(n_dice + 1, B): a first roll with s skull dice going to Skull Island."""

    @property
    def columns(self) -> int:
        return int(self.stop.shape[1])

    @staticmethod
    def stack(parts: Sequence[ExactPayoff]) -> ExactPayoff:
        """The columns of several payoffs side by side."""
        return ExactPayoff(stop=np.hstack([p.stop for p in parts]),
                           bust=np.hstack([p.bust for p in parts]),
                           first_bust=tuple(x for p in parts for x in p.first_bust),
                           island=np.hstack([p.island for p in parts]))


def fractions_of(values: Any) -> ObjectArray:
    """An array of doubles (or integers) as fractions, each the exact value of its double."""
    a = np.asarray(values)
    out = np.empty(a.shape, dtype=object)
    flat = out.reshape(-1)
    for i, x in enumerate(a.reshape(-1).tolist()):
        flat[i] = Fraction(x)
    return out


def exact_payoff(model: TurnModel, objective: Objective) -> ExactPayoff:
    """The objective's utilities over the model's endings, exactly (see the module doc): the
    doubles of :func:`.objectives.payoff_for` for stops and busts, and Skull Island's exact
    expectation over its distribution of deductions."""
    float_payoff = payoff_for(model, objective)
    island = np.empty((model.n_dice + 1, float_payoff.columns), dtype=object)
    for s in range(model.n_dice + 1):
        dist = sorted(model.island_deduction(s).items())
        utility = fractions_of(objective.of_island(np.array([d for d, _ in dist],
                                                            dtype=np.int64)))
        for b in range(float_payoff.columns):
            island[s, b] = sum((p * utility[i, b] for i, (_, p) in enumerate(dist)),
                               Fraction(0))
    return ExactPayoff(stop=fractions_of(float_payoff.stop),
                       bust=fractions_of(float_payoff.bust),
                       first_bust=tuple(fractions_of(float_payoff.first_bust).tolist()),
                       island=island)


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExactWorld:
    """Exact values and the proved policy of one world (Sorceress used / unused)."""

    value: ObjectArray
    """(n_full, B): value of each position after a reroll; None where the turn is over."""
    keep_value: ObjectArray
    """(n_partial, B): value of keeping partial position (s, K) and rolling the other dice,
    legal or not (as :attr:`.solve.WorldSolution.keep_value`)."""
    policy: IntArray
    """(n_full, 1): STOP, the partial index of the keep, or NO_MOVE (the objective's column)."""
    sorceress: BoolArray
    """(n_full, 1): the move uses the Sorceress (its keep is then in the used world)."""


@dataclass(frozen=True)
class ExactSolution:
    """The exact solve of one card's turn: values, the proved policy, and how it was found.

    Column 0 is the objective the policy maximises; further columns are payoffs evaluated
    under that policy (the ``evaluate`` argument of :func:`solve_exact`).
    """

    card: str
    rules: Rules
    objective: tuple[object, ...]
    worlds: dict[int, ExactWorld]
    first_value: ObjectArray
    """(n_full, B): value of each position as the first roll (island and bust included)."""
    turn_value: tuple[Fraction, ...]
    """(B,): the value of the turn before the first roll."""
    proof: ProofRecord
    """How policy iteration went from the given policy to the proved one."""
    n_dice: int = NUM_DICE

    @property
    def start_world(self) -> int:
        return max(self.worlds)

    @property
    def value(self) -> Fraction:
        """The turn's exact value under the objective (column 0)."""
        return self.turn_value[0]

    def policy(self) -> Policy:
        """The proved policy, as :func:`.solve.solve_payoff` evaluates one."""
        return {w: (ew.policy, ew.sorceress) for w, ew in self.worlds.items()}


def to_floats(values: ObjectArray) -> FloatArray:
    """Exact values rounded to the nearest double (``int / int`` is correctly rounded), NaN
    for None."""
    flat = [np.nan if v is None else v.numerator / v.denominator
            for v in values.reshape(-1).tolist()]
    return np.array(flat, dtype=np.float64).reshape(values.shape)


def rounding_bound(values: Sequence[FloatArray]) -> float:
    """A bound on |double - exact| for doubles that are correctly rounded exact values: half
    a unit in the last place of the largest magnitude (0 if every value is 0)."""
    top = max((float(np.nanmax(np.abs(v))) for v in values if np.any(~np.isnan(v))),
              default=0.0)
    return float(np.spacing(top)) / 2 if top else 0.0


def rounded_solution(exact: ExactSolution, solution: TurnSolution,
                     columns: int = 1) -> TurnSolution:
    """`solution` (the float solve the exact one started from) with its arrays replaced by the
    exact values rounded to the nearest double, the proved policy, and the rounding bound as
    its bound. The first `columns` columns are kept."""
    worlds = {}
    for w, ew in exact.worlds.items():
        worlds[w] = WorldSolution(value=to_floats(ew.value[:, :columns]),
                                  keep_value=to_floats(ew.keep_value[:, :columns]),
                                  policy=np.repeat(ew.policy, columns, axis=1),
                                  sorceress=np.repeat(ew.sorceress, columns, axis=1))
    first = to_floats(exact.first_value[:, :columns])
    turn = to_floats(np.array(exact.turn_value[:columns], dtype=object))
    arrays = [first, turn, *(a for ws in worlds.values() for a in (ws.value, ws.keep_value))]
    return TurnSolution(card=solution.card, rules=solution.rules, objective=solution.objective,
                        worlds=worlds, first_value=first, turn_value=turn,
                        sweeps=solution.sweeps, residual=solution.residual,
                        bound=rounding_bound(arrays), n_dice=solution.n_dice)


# --------------------------------------------------------------------------------------------
# The solve
# --------------------------------------------------------------------------------------------


@dataclass
class _World:
    """The exact state of one world while its layers are solved."""

    values: ObjectArray
    """(n_fo, B) fractions (0 where the turn is over)."""
    code: IntArray
    """(n_fo,): STOP, NO_MOVE or a partial index."""
    sor: BoolArray
    s_num: ObjectArray
    """(n_rows + 1, B): S of the rows solved so far, on the denominator `den`."""
    den: int
    t_num: ObjectArray
    """(n_rows, B): T of each row, on ``t_den[block] * 6**n``."""
    t_den: dict[int, int] = field(default_factory=dict)
    keys: ObjectArray | None = None
    """(n_rows,): the tie-break keys of column 0 (for the Sorceress's recursion)."""


def solve_exact(
    model: TurnModel,
    payoff: ExactPayoff,
    policy: Policy,
    key: tuple[object, ...] = ("custom",),
    *,
    evaluate: ExactPayoff | None = None,
) -> ExactSolution:
    """The exact optimal values of `payoff` (one column), starting policy iteration from
    `policy` (a float solution's, :meth:`.solve.TurnSolution.policy`), with the further payoff
    columns `evaluate` under the proved policy (see the module doc).

    Raises :class:`PolicyError` if `policy` moves where it cannot.
    """
    if payoff.columns != 1:
        raise ValueError(f"the exact solve maximises one payoff column, not {payoff.columns}")
    pay = payoff if evaluate is None else ExactPayoff.stack([payoff, evaluate])
    st = structure(model)
    g = model.geometry
    n, b = model.n_dice, pay.columns
    if g.n_partial >= 1 << IDX_BITS or n >= 1 << DICE_BITS:
        raise ValueError("the exact solve's keys hold at most 4095 partial positions")
    full = st.partial[st.full_row] - g.full_offset
    stop_u = pay.stop[full]
    bust_u = pay.bust[st.partial]
    pay_den = lcm(common_denominator(stop_u), common_denominator(bust_u))
    scale = 6**n
    fo_local = np.full(st.n_fo, -1, dtype=np.int64)
    layer_solves = improved = retied = changed = 0
    worlds: dict[int, _World] = {}
    for world in model.worlds:  # USED first: the Sorceress lands there
        tb = exact_tables(model, st, world)
        code, sor = _initial_policy(model, st, policy, world)
        given = code.copy(), sor.copy()
        ws = _World(values=np.full((st.n_fo, b), Fraction(0), dtype=object), code=code,
                    sor=sor, s_num=np.zeros((st.n_rows + 1, b), dtype=object), den=pay_den,
                    t_num=np.zeros((st.n_rows, b), dtype=object))
        used = worlds.get(USED) if world == UNUSED else None
        for s in range(st.max_skulls, -1, -1):
            for round_ in range(MAX_ITERATIONS):
                _evaluate_layer(model, st, tb, ws, used, s, stop_u, bust_u, fo_local)
                layer_solves += 1
                better, retie = _improve(model, st, tb, ws, used, s, stop_u, scale)
                if round_ == 0:
                    improved += better
                    retied += retie
                if not better and not retie:
                    break
            else:
                raise ExactnessError(f"{model.card.id}: the layer of {s} skull dice did not "
                                     f"settle in {MAX_ITERATIONS} rounds")
        changed += int(np.count_nonzero((ws.code != given[0]) | (ws.sor != given[1])))
        worlds[world] = ws
    proof = ProofRecord(layer_solves=layer_solves, improved=improved, retied=retied,
                        changed=changed)
    return _result(model, st, pay, key, worlds, proof)


def _initial_policy(model: TurnModel, st: TurnStructure, policy: Policy,
                    world: int) -> tuple[IntArray, BoolArray]:
    """The given policy on the full orbits, checked: a legal move wherever the turn goes on."""
    g = model.geometry
    full = st.partial[st.full_row] - g.full_offset
    code = np.asarray(policy[world][0])[full, 0].astype(np.int64)
    sor = np.asarray(policy[world][1])[full, 0].astype(bool)
    live = model.live[world][full]
    keep = np.clip(code, 0, g.n_partial - 1)
    skulls = st.counts[st.full_row, 0]
    kept = g.counts[keep]
    shape_ok = (np.where(sor, kept[:, 0] == skulls - 1, kept[:, 0] == skulls)
                & np.all(kept[:, 1:] <= st.counts[st.full_row, 1:], axis=1))
    legal = np.where(sor, model.sorceress_legal[keep], model.keep_legal[world][keep])
    bad = live & ((code == NO_MOVE) | (code < NO_MOVE) | (code >= g.n_partial)
                  | ((code == STOP) & ~model.can_stop[world][full])
                  | ((code >= 0) & ~(shape_ok & legal))
                  | (sor & (world != UNUSED)))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise PolicyError(f"{model.card.id}: the policy's move {int(code[i])} at "
                          f"{g.dice(int(st.partial[st.full_row[i]]))} is not a legal move there")
    return np.where(live, code, NO_MOVE), live & sor & (code >= 0)


def _expectation_block(st: TurnStructure, ws: _World, s: int, n: int) -> None:
    """S of the rows of block `s` below its positions, one die at a time (module doc)."""
    for d in range(n - 1, s - 1, -1):
        lo, hi = int(st.level_lo[s, d]), int(st.level_lo[s, d + 1])
        if hi <= lo:
            continue
        ch = st.child[lo:hi]
        acc = ws.s_num[ch[:, 0]].copy()
        for f in range(1, ch.shape[1]):
            acc += ws.s_num[ch[:, f]]
        ws.s_num[lo:hi] = acc


def _set_den(ws: _World, den: int, st: TurnStructure, s: int) -> None:
    """Move S of the blocks above `s` to the common denominator `den` (a multiple)."""
    if den != ws.den:
        factor = den // ws.den
        lo = int(st.block_lo[s + 1]) if s + 1 <= st.max_skulls else st.n_rows
        ws.s_num[lo:st.n_rows] *= factor
        ws.den = den


def _evaluate_layer(model: TurnModel, st: TurnStructure, tb: ExactTables, ws: _World,
                    used: _World | None, s: int, stop_u: ObjectArray, bust_u: ObjectArray,
                    fo_local: IntArray) -> None:
    """Solve the layer of `s` skull dice exactly under the world's policy, then its rows'
    S and T (module doc)."""
    n = model.n_dice
    g = model.geometry
    lo, hi = st.layer(s)
    code, sor, live = ws.code[lo:hi], ws.sor[lo:hi], tb.live[lo:hi]
    values = ws.values
    values[lo:hi] = Fraction(0)
    stops = np.flatnonzero(live & (code == STOP)) + lo
    values[stops] = stop_u[stops]
    sorc = np.flatnonzero(live & (code >= 0) & sor) + lo
    if sorc.shape[0]:
        assert used is not None
        rows = st.row_of_partial[ws.code[sorc]]
        values[sorc] = _keep_fractions(used, st, rows, n)
    unknown = np.flatnonzero(live & (code >= 0) & ~sor) + lo
    # the known values first, on a common denominator with the solved layers
    _set_den(ws, lcm(ws.den, common_denominator(values[lo:hi])), st, s)
    frows = st.full_row[lo:hi]
    ws.s_num[frows] = ints_on(values[lo:hi], ws.den)
    _expectation_block(st, ws, s, n)
    if unknown.shape[0]:
        x = _solve_unknowns(model, st, tb, ws, unknown, bust_u, fo_local, n, g)
        values[unknown] = x
        _set_den(ws, lcm(ws.den, common_denominator(x)), st, s)
        ws.s_num[frows] = ints_on(values[lo:hi], ws.den)
        _expectation_block(st, ws, s, n)
    # T of the block's rows: the keep values on ws.den * 6**n
    rlo, rhi = int(st.block_lo[s]), int(st.block_hi[s])
    ws.t_num[rlo:rhi] = tb.pow6_level[rlo:rhi] * (
        ws.s_num[rlo:rhi] + tb.bust_ways[rlo:rhi] * ints_on(bust_u[rlo:rhi], ws.den))
    ws.t_den[s] = ws.den


def _keep_fractions(ws: _World, st: TurnStructure, rows: IntArray, n: int) -> ObjectArray:
    """The exact keep values of `rows` (all columns) from the world's T."""
    blocks = st.counts[rows, 0]
    out = np.empty((rows.shape[0], ws.t_num.shape[1]), dtype=object)
    for i, (r, blk) in enumerate(zip(rows.tolist(), blocks.tolist(), strict=True)):
        den = ws.t_den[blk] * 6**n
        for j in range(out.shape[1]):
            out[i, j] = Fraction(ws.t_num[r, j], den)
    return out


def _solve_unknowns(model: TurnModel, st: TurnStructure, tb: ExactTables, ws: _World,
                    unknown: IntArray, bust_u: ObjectArray, fo_local: IntArray, n: int,
                    g: Any) -> ObjectArray:
    """The values of the layer's positions that reroll without the Sorceress: the linear
    system of the module doc. ``ws.s_num`` holds S with those values 0."""
    m = unknown.shape[0]
    keeps = ws.code[unknown]
    rows = st.row_of_partial[keeps]
    # the no-skull outcomes of each keep that land on an unknown position: the matrix W
    starts, lens = g.ptr[keeps], g.ptr[keeps + 1] - g.ptr[keeps]
    owner = np.repeat(np.arange(m), lens)
    entry = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()))
    stay = g.rolled_skulls[entry] == 0
    owner, entry = owner[stay], entry[stay]
    fo_local[unknown] = np.arange(m)
    target = fo_local[st.full_of_position[g.col[entry]]]
    fo_local[unknown] = -1
    hit = target >= 0
    rhs = ws.s_num[rows] + tb.bust_ways[rows] * ints_on(bust_u[rows], ws.den)
    return solve_system(6 ** (n - g.total[keeps]), owner[hit], target[hit],
                        roll_ways(n)[entry[hit]], rhs, ws.den)


def _improve(model: TurnModel, st: TurnStructure, tb: ExactTables, ws: _World,
             used: _World | None, s: int, stop_u: ObjectArray, scale: int) -> tuple[int, int]:
    """The proof of the layer: every live position's best legal move, exactly, against the
    policy's value. Sets the policy to the best moves (tie-break rule) and returns (positions
    where a move is strictly better, positions re-tied among exactly equal moves)."""
    lo, hi = st.layer(s)
    n = model.n_dice
    rlo, rhi = int(st.block_lo[s]), int(st.block_hi[s])
    keys = np.full(st.n_rows, NEG, dtype=object) if ws.keys is None else ws.keys
    keys[rlo:rhi] = tie_key(ws.t_num[rlo:rhi, 0], tb.level[rlo:rhi], st.partial[rlo:rhi])
    ws.keys = keys
    key_sentinel = np.append(keys, NEG)
    best_plain = best_subkeep(st, key_sentinel, np.append(tb.keep_ok, False), s, n)
    plain_key = best_plain[st.full_row[lo:hi]]
    plain_val = _key_values(plain_key, ws.t_den[s] * scale)
    if used is not None and s >= 1 and used.keys is not None:
        used_keys = np.append(used.keys, NEG)
        best_sor = best_subkeep(st, used_keys, np.append(tb.sorceress_ok, False), s - 1, n)
        sor_key = best_sor[st.sor_src[lo:hi]]
        sor_val = _key_values(sor_key, used.t_den[s - 1] * scale)
    else:
        sor_key = np.full(hi - lo, NEG, dtype=object)
        sor_val = sor_key
    live = tb.live[lo:hi]
    stop_val = np.where(tb.can_stop[lo:hi], stop_u[lo:hi, 0], NEG)
    move = np.where(sor_val > plain_val, sor_val, plain_val)
    best = np.where(stop_val >= move, stop_val, move)
    chosen = ws.values[lo:hi, 0]
    better = live & (best > chosen).astype(bool)
    if np.any(live & (best < chosen).astype(bool)):
        raise ExactnessError(f"{model.card.id}: a policy value above every legal move")
    if np.any(live & (best == NEG)):
        raise ExactnessError(f"{model.card.id}: a live position without a legal move")
    stop = tb.can_stop[lo:hi] & (stop_val >= move).astype(bool)
    use_sor = ~stop & (sor_val > plain_val).astype(bool)
    pick = np.where(use_sor, sor_key, plain_key)
    new_code = np.where(stop, STOP, np.array([(k & (1 << IDX_BITS) - 1) if k != NEG else
                                              NO_MOVE for k in pick.tolist()], dtype=np.int64))
    new_code = np.where(live, new_code, NO_MOVE)
    new_sor = live & use_sor
    changed = (new_code != ws.code[lo:hi]) | (new_sor != ws.sor[lo:hi])
    ws.code[lo:hi], ws.sor[lo:hi] = new_code, new_sor
    n_better = int(np.count_nonzero(better))
    return n_better, int(np.count_nonzero(changed & ~better))


def _key_values(keys: ObjectArray, den: int) -> ObjectArray:
    """The keep values of best-keep keys (-inf where there is none)."""
    return np.array([k if k == NEG else Fraction(k >> KEY_SHIFT, den)
                     for k in keys.tolist()], dtype=object)


def _result(model: TurnModel, st: TurnStructure, pay: ExactPayoff, key: tuple[object, ...],
            worlds: dict[int, _World], proof: ProofRecord) -> ExactSolution:
    g = model.geometry
    n, b = model.n_dice, pay.columns
    out: dict[int, ExactWorld] = {}
    orbit = st.full_of_position
    inside = st.row_of_partial < st.n_rows
    for world, ws in worlds.items():
        live = model.live[world]
        value = np.full((g.n_full, b), None, dtype=object)
        value[live] = ws.values[orbit[live]]
        keep = np.array(pay.bust, dtype=object)  # beyond the structure every roll busts
        rows = st.row_of_partial[inside]
        keep[inside] = _keep_fractions(ws, st, rows, n)
        policy = np.full((g.n_full, 1), NO_MOVE, dtype=np.int64)
        sor = np.zeros((g.n_full, 1), dtype=bool)
        policy[live, 0] = ws.code[orbit[live]]
        sor[live, 0] = ws.sor[orbit[live]]
        out[world] = ExactWorld(value=value, keep_value=keep, policy=policy, sorceress=sor)
    start = model.start_world
    first = np.array(out[start].value, dtype=object)
    skull_dice = g.full_counts[:, 0]
    for y, o in enumerate(model.first_outcome.tolist()):
        if o is Outcome.BUST:
            first[y] = pay.first_bust
        elif o is Outcome.ISLAND:
            first[y] = pay.island[skull_dice[y]]
    ways = first_roll_ways(n).tolist()
    turn = tuple(
        sum((w * v for w, v in zip(ways, first[:, j].tolist(), strict=True)), Fraction(0))
        / 6**n for j in range(b))
    return ExactSolution(card=model.card.id, rules=model.rules, objective=key, worlds=out,
                         first_value=first, turn_value=turn, proof=proof, n_dice=n)


def exact_from(solution: TurnSolution, objective: Objective | None = None, *,
               evaluate: ExactPayoff | None = None) -> ExactSolution:
    """The exact solve of a float solution's turn (its card, rules and dice) for `objective`
    (default: expected points; it must be the one `solution` was solved for), starting from
    its policy."""
    objective = objective or ExpectedPoints()
    if solution.objective != objective.key():
        raise ValueError(f"the solution is for {solution.objective}, not {objective.key()}")
    model = turn_model(CARDS[solution.card], solution.rules, solution.n_dice)
    return solve_exact(model, exact_payoff(model, objective), solution.policy(),
                       objective.key(), evaluate=evaluate)


def exact_turn(
    card: Card,
    rules: Rules,
    objective: Objective | None = None,
    *,
    n_dice: int = NUM_DICE,
    evaluate: ExactPayoff | None = None,
) -> tuple[ExactSolution, TurnSolution]:
    """Solve one card's turn in floats (:func:`.solve.solve_payoff`), then exactly from its
    policy: the exact solution and the float one it started from."""
    objective = objective or ExpectedPoints()
    model = turn_model(card, rules, n_dice)
    solution = solve_payoff(model, payoff_for(model, objective), objective.key())
    return exact_from(solution, objective, evaluate=evaluate), solution
