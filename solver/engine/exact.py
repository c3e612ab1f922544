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
Positions that make the same keep have the same equation but for their own value, so they
have the same value, the keep's value: the system is solved with one unknown per distinct keep
(2893 keeps for the 10012 rerolling positions of the 12 default cards). It is block
triangular: its strongly connected components are solved from the sinks up, a level of the
condensation at a time, the right side of each on a common denominator with the components
below it (:func:`.exact_linear.solve_system`). Under the default rules every keep is a
component of its own, solved by a division; keeps that reach one another, where a policy
makes any, are solved together, as their matrix's exact inverse by FLINT (``fmpz_mat.inv``,
python-flint) times their right side.

**Numbers.**  No rational object is made while solving: every array of exact numbers is
integers over one common denominator, kept at the least one (numpy adds and multiplies
arrays of Python integers at about 25 ns an entry, where a :class:`~fractions.Fraction`, or
FLINT's ``fmpq`` alike, spends about a microsecond on each entry's reduction). The results
hold them so (:class:`ExactArray`): a table is written from the integers and its floats
rounded from them; the fractions are made on first use (:attr:`ExactWorld.value`, ...).

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
from functools import cached_property
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
    doubles_over,
    exact_tables,
    least_denominator,
    on_denominator,
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
# Exact arrays
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ExactArray:
    """An array of exact numbers as integers over one common denominator: ``num / den``, None
    where `none` (its numerator 0). The fractions themselves (:attr:`fractions`) are made on
    first use only: a table is written from the integers (:meth:`flat`), its floats rounded
    from them (:meth:`floats`)."""

    num: ObjectArray
    """Python integers."""
    den: int
    """A positive multiple of the least common denominator of the numbers."""
    none: BoolArray | None = None
    """Where there is no number (the shape of `num`); None: a number everywhere."""

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.num.shape)

    def head(self, columns: int) -> ExactArray:
        """The first `columns` columns."""
        return ExactArray(self.num[:, :columns], self.den,
                          None if self.none is None else self.none[:, :columns])

    def flat(self) -> list[int]:
        """The numerators, row-major, 0 where there is no number."""
        return self.num.reshape(-1).tolist()  # type: ignore[no-any-return]

    @cached_property
    def fractions(self) -> ObjectArray:
        """The numbers as :class:`~fractions.Fraction` (None where there is none)."""
        den = self.den
        out = np.empty(self.num.shape, dtype=object)
        flat = out.reshape(-1)
        for i, v in enumerate(self.flat()):
            flat[i] = Fraction(v, den)
        if self.none is not None:
            out[self.none] = None
        return out

    def floats(self) -> FloatArray:
        """The numbers rounded to the nearest double (``int / int`` is correctly rounded),
        NaN where there is none."""
        den = self.den
        out = np.array([v / den for v in self.flat()], dtype=np.float64).reshape(self.shape)
        if self.none is not None:
            out[self.none] = np.nan
        return out


# --------------------------------------------------------------------------------------------
# Exact payoffs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExactPayoff:
    """Utilities of every way a turn ends, exactly, one column per payoff
    (:class:`.objectives.Payoff` in exact numbers): the stops and busts as integers over one
    denominator `den`, the first-roll endings as fractions."""

    stop: ObjectArray
    """(n_full, B): stopping at each position (where stopping is allowed), over `den`."""
    bust: ObjectArray
    """(n_partial, B): busting with the dice of this partial position not rolled, over
    `den`."""
    den: int
    first_bust: tuple[Fraction, ...]
    """(B,): busting on the first roll."""
    island: ObjectArray
    """(n_dice + 1, B) fractions: a first roll with s skull dice going to Skull Island."""

    @property
    def columns(self) -> int:
        return int(self.stop.shape[1])

    @staticmethod
    def stack(parts: Sequence[ExactPayoff]) -> ExactPayoff:
        """The columns of several payoffs side by side."""
        den = lcm(*(p.den for p in parts))
        return ExactPayoff(stop=np.hstack([p.stop * (den // p.den) for p in parts]),
                           bust=np.hstack([p.bust * (den // p.den) for p in parts]),
                           den=den,
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
    n_stop = float_payoff.stop.size
    num, den = doubles_over(np.concatenate([float_payoff.stop.reshape(-1),
                                            float_payoff.bust.reshape(-1)]))
    return ExactPayoff(stop=num[:n_stop].reshape(float_payoff.stop.shape),
                       bust=num[n_stop:].reshape(float_payoff.bust.shape), den=den,
                       first_bust=tuple(fractions_of(float_payoff.first_bust).tolist()),
                       island=island)


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExactWorld:
    """Exact values and the proved policy of one world (Sorceress used / unused)."""

    values: ExactArray
    """(n_full, B): :attr:`value` as integers over one denominator."""
    keep_values: ExactArray
    """(n_partial, B): :attr:`keep_value` as integers over one denominator."""
    policy: IntArray
    """(n_full, 1): STOP, the partial index of the keep, or NO_MOVE (the objective's column)."""
    sorceress: BoolArray
    """(n_full, 1): the move uses the Sorceress (its keep is then in the used world)."""

    @property
    def value(self) -> ObjectArray:
        """(n_full, B) fractions: value of each position after a reroll; None where the turn
        is over."""
        return self.values.fractions

    @property
    def keep_value(self) -> ObjectArray:
        """(n_partial, B) fractions: value of keeping partial position (s, K) and rolling the
        other dice, legal or not (as :attr:`.solve.WorldSolution.keep_value`)."""
        return self.keep_values.fractions


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
    first_values: ExactArray
    """(n_full, B): :attr:`first_value` as integers over one denominator."""
    turn_value: tuple[Fraction, ...]
    """(B,): the value of the turn before the first roll."""
    proof: ProofRecord
    """How policy iteration went from the given policy to the proved one."""
    n_dice: int = NUM_DICE

    @property
    def start_world(self) -> int:
        return max(self.worlds)

    @property
    def first_value(self) -> ObjectArray:
        """(n_full, B) fractions: value of each position as the first roll (island and bust
        included)."""
        return self.first_values.fractions

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
        worlds[w] = WorldSolution(value=ew.values.head(columns).floats(),
                                  keep_value=ew.keep_values.head(columns).floats(),
                                  policy=np.repeat(ew.policy, columns, axis=1),
                                  sorceress=np.repeat(ew.sorceress, columns, axis=1))
    first = exact.first_values.head(columns).floats()
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

    code: IntArray
    """(n_fo,): STOP, NO_MOVE or a partial index."""
    sor: BoolArray
    s_num: ObjectArray
    """(n_rows + 1, B): S of the rows solved so far, on the denominator `den`; at a full
    orbit's row, its value times `den` (0 where the turn is over)."""
    den: int
    t_num: ObjectArray
    """(n_rows, B): T of each row, on ``t_den[block] * 6**n``."""
    t_den: dict[int, int] = field(default_factory=dict)
    keys: ObjectArray | None = None
    """(n_rows,): the tie-break keys of column 0 (for the Sorceress's recursion)."""


@dataclass(frozen=True)
class _Utilities:
    """The payoff on the structure's rows, integers over the least common denominator
    `den` of the utilities a layer reads."""

    stop: ObjectArray
    """(n_fo, B): stopping at each full orbit."""
    bust: ObjectArray
    """(n_rows, B): busting with the row's dice kept."""
    den: int


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
    stop_n, bust_n = pay.stop[full], pay.bust[st.partial]
    # a column without a stop or bust utility (Skull Island's: it follows the first roll
    # only) is 0 at every position and keep of the layers: they solve the others only
    cols = np.flatnonzero((stop_n != 0).any(axis=0) | (bust_n != 0).any(axis=0)
                          | (np.arange(b) == 0))
    stop_n, bust_n = stop_n[:, cols], bust_n[:, cols]
    least = least_denominator(np.concatenate([stop_n, bust_n]), pay.den)
    u = _Utilities(stop=on_denominator(stop_n, pay.den, least),
                   bust=on_denominator(bust_n, pay.den, least), den=least)
    fo_local = np.full(st.n_fo, -1, dtype=np.int64)
    layer_solves = improved = retied = changed = 0
    worlds: dict[int, _World] = {}
    for world in model.worlds:  # USED first: the Sorceress lands there
        tb = exact_tables(model, st, world)
        code, sor = _initial_policy(model, st, policy, world)
        given = code.copy(), sor.copy()
        ws = _World(code=code, sor=sor,
                    s_num=np.zeros((st.n_rows + 1, cols.shape[0]), dtype=object), den=u.den,
                    t_num=np.zeros((st.n_rows, cols.shape[0]), dtype=object))
        used = worlds.get(USED) if world == UNUSED else None
        for s in range(st.max_skulls, -1, -1):
            for round_ in range(MAX_ITERATIONS):
                _evaluate_layer(model, st, tb, ws, used, s, u, fo_local)
                layer_solves += 1
                better, retie = _improve(model, st, tb, ws, used, s, u)
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
    return _result(model, st, pay, cols, key, worlds, proof)


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
                    used: _World | None, s: int, u: _Utilities, fo_local: IntArray) -> None:
    """Solve the layer of `s` skull dice exactly under the world's policy, then its rows'
    S and T (module doc)."""
    n = model.n_dice
    lo, hi = st.layer(s)
    code, sor, live = ws.code[lo:hi], ws.sor[lo:hi], tb.live[lo:hi]
    frows = st.full_row[lo:hi]
    # the known values first (stops, and the Sorceress's keeps of the used world), on a
    # common denominator with the solved layers
    known: list[tuple[IntArray, ObjectArray, int]] = []
    stops = np.flatnonzero(live & (code == STOP))
    if stops.shape[0]:
        known.append((stops, u.stop[stops + lo], u.den))
    sorc = np.flatnonzero(live & (code >= 0) & sor)
    if sorc.shape[0]:
        assert used is not None
        rows = st.row_of_partial[code[sorc]]
        known.append((sorc, used.t_num[rows], used.t_den[s - 1] * 6**n))
    _set_den(ws, lcm(ws.den, *(least_denominator(num, d) for _, num, d in known)), st, s)
    values = np.zeros((hi - lo, ws.s_num.shape[1]), dtype=object)
    for where, num, d in known:
        values[where] = on_denominator(num, d, ws.den)
    ws.s_num[frows] = values
    _expectation_block(st, ws, s, n)
    unknown = np.flatnonzero(live & (code >= 0) & ~sor) + lo
    if unknown.shape[0]:
        x_num, x_den = _solve_unknowns(model, st, tb, ws, unknown, u, fo_local)
        factor = x_den // ws.den  # x_den is a multiple of ws.den
        _set_den(ws, x_den, st, s)
        values *= factor
        values[unknown - lo] = x_num
        ws.s_num[frows] = values
        _expectation_block(st, ws, s, n)
    # T of the block's rows: the keep values on ws.den * 6**n
    rlo, rhi = int(st.block_lo[s]), int(st.block_hi[s])
    ws.t_num[rlo:rhi] = tb.pow6_level[rlo:rhi] * (
        ws.s_num[rlo:rhi] + tb.bust_ways[rlo:rhi] * u.bust[rlo:rhi] * (ws.den // u.den))
    ws.t_den[s] = ws.den


def _solve_unknowns(model: TurnModel, st: TurnStructure, tb: ExactTables, ws: _World,
                    unknown: IntArray, u: _Utilities, fo_local: IntArray
                    ) -> tuple[ObjectArray, int]:
    """The values of the layer's positions that reroll without the Sorceress: the linear
    system of the module doc, as integers over a multiple of ``ws.den``. ``ws.s_num`` holds S
    with those values 0.

    Positions that make the same keep have the same equation but for their own value, so
    the same value, the keep's: the system is solved with one unknown per distinct keep (for
    the default rules, 2893 keeps for 10012 positions; and each keep its own strongly
    connected component, solved by a division)."""
    n, g = model.n_dice, model.geometry
    keeps_of = ws.code[unknown]
    order = np.argsort(keeps_of, kind="stable")
    new = np.concatenate(([True], keeps_of[order][1:] != keeps_of[order][:-1]))
    keep_of = np.empty(unknown.shape[0], dtype=np.int64)  # each position's keep, numbered
    keep_of[order] = np.cumsum(new) - 1
    keeps = keeps_of[order][new]
    m = keeps.shape[0]
    rows = st.row_of_partial[keeps]
    # the no-skull outcomes of each keep that land on a position of the system: the matrix W
    starts, lens = g.ptr[keeps], g.ptr[keeps + 1] - g.ptr[keeps]
    owner = np.repeat(np.arange(m), lens)
    entry = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()))
    stay = g.rolled_skulls[entry] == 0
    owner, entry = owner[stay], entry[stay]
    fo_local[unknown] = keep_of
    target = fo_local[st.full_of_position[g.col[entry]]]
    fo_local[unknown] = -1
    hit = target >= 0
    rhs = ws.s_num[rows] + tb.bust_ways[rows] * u.bust[rows] * (ws.den // u.den)
    num, den = solve_system(6 ** (n - g.total[keeps]), owner[hit], target[hit],
                            roll_ways(n)[entry[hit]], rhs, ws.den)
    return num[keep_of], den


def _improve(model: TurnModel, st: TurnStructure, tb: ExactTables, ws: _World,
             used: _World | None, s: int, u: _Utilities) -> tuple[int, int]:
    """The proof of the layer: every live position's best legal move, exactly, against the
    policy's value. Sets the policy to the best moves (tie-break rule) and returns (positions
    where a move is strictly better, positions re-tied among exactly equal moves).

    Every value compared is an integer over one common denominator: the plain keeps' (on
    ``t_den[s] * 6**n``), the Sorceress's (on the used world's), the stops' and the
    policy's."""
    lo, hi = st.layer(s)
    n = model.n_dice
    rlo, rhi = int(st.block_lo[s]), int(st.block_hi[s])
    keys = np.full(st.n_rows, NEG, dtype=object) if ws.keys is None else ws.keys
    keys[rlo:rhi] = tie_key(ws.t_num[rlo:rhi, 0], tb.level[rlo:rhi], st.partial[rlo:rhi])
    ws.keys = keys
    key_sentinel = np.append(keys, NEG)
    best_plain = best_subkeep(st, key_sentinel, np.append(tb.keep_ok, False), s, n)
    plain_key = best_plain[st.full_row[lo:hi]]
    plain_den = ws.t_den[s] * 6**n
    sorceress = used is not None and s >= 1 and used.keys is not None
    sor_den = used.t_den[s - 1] * 6**n if sorceress and used is not None else 1
    common = lcm(plain_den, sor_den, u.den, ws.den)
    plain_val = _key_values(plain_key, common // plain_den)
    if sorceress and used is not None and used.keys is not None:
        used_keys = np.append(used.keys, NEG)
        best_sor = best_subkeep(st, used_keys, np.append(tb.sorceress_ok, False), s - 1, n)
        sor_key = best_sor[st.sor_src[lo:hi]]
        sor_val = _key_values(sor_key, common // sor_den)
    else:
        sor_key = np.full(hi - lo, NEG, dtype=object)
        sor_val = sor_key
    live = tb.live[lo:hi]
    stop_val = np.where(tb.can_stop[lo:hi], u.stop[lo:hi, 0] * (common // u.den), NEG)
    move = np.where(sor_val > plain_val, sor_val, plain_val)
    best = np.where(stop_val >= move, stop_val, move)
    chosen = ws.s_num[st.full_row[lo:hi], 0] * (common // ws.den)
    better = live & (best > chosen).astype(bool)
    if np.any(live & (best < chosen).astype(bool)):
        raise ExactnessError(f"{model.card.id}: a policy value above every legal move")
    if np.any(live & (best == NEG)):
        raise ExactnessError(f"{model.card.id}: a live position without a legal move")
    stop = tb.can_stop[lo:hi] & (stop_val >= move).astype(bool)
    use_sor = ~stop & (sor_val > plain_val).astype(bool)
    pick = np.where(use_sor, sor_key, plain_key)
    found = (pick != NEG).astype(bool)
    index = np.where(found, np.where(found, pick, 0) & ((1 << IDX_BITS) - 1), NO_MOVE)
    new_code = np.where(live & ~stop, index.astype(np.int64), STOP)
    new_code = np.where(live, new_code, NO_MOVE)
    new_sor = live & use_sor
    changed = (new_code != ws.code[lo:hi]) | (new_sor != ws.sor[lo:hi])
    ws.code[lo:hi], ws.sor[lo:hi] = new_code, new_sor
    n_better = int(np.count_nonzero(better))
    return n_better, int(np.count_nonzero(changed & ~better))


def _key_values(keys: ObjectArray, factor: int) -> ObjectArray:
    """The keep values of best-keep keys as integers, ``T * factor`` (-inf where there is
    none)."""
    found = (keys != NEG).astype(bool)
    return np.where(found, (np.where(found, keys, 0) >> KEY_SHIFT) * factor, NEG)


def _result(model: TurnModel, st: TurnStructure, pay: ExactPayoff, cols: IntArray,
            key: tuple[object, ...], worlds: dict[int, _World], proof: ProofRecord
            ) -> ExactSolution:
    """The solution of the solved worlds (their columns `cols` of the payoff's; the others
    0 in the layers)."""
    g = model.geometry
    n, b = model.n_dice, pay.columns
    scale = 6**n
    out: dict[int, ExactWorld] = {}
    orbit = st.full_of_position
    inside = st.row_of_partial < st.n_rows
    rows = st.row_of_partial[inside]
    blocks = st.counts[rows, 0]
    for world, ws in worlds.items():
        live = model.live[world]
        value = np.zeros((g.n_full, b), dtype=object)
        value[np.ix_(np.flatnonzero(live), cols)] = ws.s_num[st.full_row[orbit[live]]]
        # the keep values: T on each block's t_den * 6**n; beyond the structure every roll
        # busts
        keep_den = lcm(pay.den, *(d * scale for d in ws.t_den.values()))
        factor = np.array([keep_den // (ws.t_den[k] * scale) if k in ws.t_den else 0
                           for k in range(st.max_skulls + 1)], dtype=object)
        keep = pay.bust * (keep_den // pay.den)
        keep[np.ix_(np.flatnonzero(inside), cols)] = ws.t_num[rows] * factor[blocks][:, None]
        policy = np.full((g.n_full, 1), NO_MOVE, dtype=np.int64)
        sor = np.zeros((g.n_full, 1), dtype=bool)
        policy[live, 0] = ws.code[orbit[live]]
        sor[live, 0] = ws.sor[orbit[live]]
        none = np.repeat(~live[:, None], b, axis=1)
        out[world] = ExactWorld(values=ExactArray(value, ws.den, none),
                                keep_values=ExactArray(keep, keep_den),
                                policy=policy, sorceress=sor)
    # the first roll: the start world's values, its busts and Skull Islands
    start = out[model.start_world].values
    outcome = model.first_outcome.tolist()
    bust = np.array([o is Outcome.BUST for o in outcome], dtype=bool)
    island = np.array([o is Outcome.ISLAND for o in outcome], dtype=bool)
    ends = [*pay.first_bust, *pay.island.reshape(-1).tolist()]
    first_den = lcm(start.den, *(v.denominator for v in ends))
    first = start.num * (first_den // start.den)
    first[bust] = [v.numerator * (first_den // v.denominator) for v in pay.first_bust]
    island_num = np.array([v.numerator * (first_den // v.denominator)
                           for v in pay.island.reshape(-1).tolist()],
                          dtype=object).reshape(pay.island.shape)
    first[island] = island_num[g.full_counts[island, 0]]
    assert start.none is not None
    first_none = start.none & ~(bust | island)[:, None]
    totals = first_roll_ways(n).astype(object).dot(first)
    turn = tuple(Fraction(int(t), first_den * scale) for t in totals.tolist())
    return ExactSolution(card=model.card.id, rules=model.rules, objective=key, worlds=out,
                         first_values=ExactArray(first, first_den, first_none),
                         turn_value=turn, proof=proof, n_dice=n)


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
