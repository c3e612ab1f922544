"""The batched iteration of a game phase: every state's turn, every card, one kernel sweep each.

The unknowns of a phase (normal play or sudden death) are the game values ``W`` of its ``n*n``
states and, for every state, card and world, the values of the turn's positions. The states are
the columns of one batched turn problem, in lanes (:mod:`solver.engine.kernel`).

**A sweep** updates every unknown once (Jacobi: every turn reads the previous ``W``):

1. the utility table of every state, from ``W`` and the phase's tail (:class:`~.model.Lookup`);
2. for every card, one kernel sweep of its turns (:func:`solver.engine.kernel.sweep`, all skull
   blocks, the chunks spread over the threads), the Sorceress's world after the used one;
3. every state's new ``W``: the deck-weighted value of its turns before the first roll (from
   the new position values), summed in the deck's order.

The position values are over-relaxed by ``omega_v`` inside the kernel (the game values are
not: the game's own modes are negative, where over-relaxation hurts). The largest change of a
sweep is the change a plain (``omega = 1``) update would make: the residual of the current
iterate.

**Extrapolation** (reduced rank extrapolation, RRE; Sidi, *Vector Extrapolation Methods with
Applications*, SIAM 2017, ch. 1-2).  The slow part of the iteration is a handful of real modes
with ratios 0.8 to 0.87 at the default target. Every :data:`RRE_STEPS` sweeps, the last
steps ``d_0..d_{k-1}`` (kept in float32: they only steer) give the combination
``gamma`` (summing to 1) of the last iterates with the smallest combined step of the game
values, by the normal equations of the Gram matrix of their steps; the iterate, position values
included, jumps to that combination. (With the position values' steps in the Gram matrix too,
sudden death at the default target took 82 sweeps instead of 85, each a tenth dearer: the game
values steer.) The Gram matrix is a sum of products in a fixed order (a sequential sum per
lane, then the lanes and chunks in order) and the small system is solved by Gaussian
elimination in plain Python, so the jump is the same bits on every machine.

Everything else is elementwise or summed in a fixed order, so the iterates are the same bits on
every machine and for any number of threads.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..engine import BoolArray, FloatArray, IntArray, kernel
from ..engine.codes import UNUSED, USED
from ..engine.kernel import LANES, MODE_BELLMAN, to_lanes
from ..engine.solve import MAX_SWEEPS, ConvergenceError
from .model import GameModel, Lookup

ProgressFn = Callable[[str, int, float], None]
"""Called after each sweep with (phase, sweep, residual)."""
OMEGA_V = 1.5
"""Over-relaxation of the position values (the turn's own modes have ratios in [0, 0.69])."""
RRE_STEPS = 5
"""Sweeps per extrapolation (and steps it combines)."""
RRE_START = 5
"""Plain sweeps before the first extrapolation cycle."""


@dataclass
class PhaseState:
    """The iterate of one phase, in lanes: game values and every card's position values."""

    name: str
    gm: GameModel
    look: Lookup
    W: FloatArray
    """(C, L): the game value of every state, state ``j`` at lane ``j % L`` of chunk
    ``j // L`` (padding lanes unused)."""
    V: dict[str, dict[int, FloatArray]]
    """Per card and world, (C, n_fo, L): the value of every full orbit of every state."""
    V_prev: dict[str, dict[int, FloatArray]] = field(repr=False)
    """The values before the last sweep (the buffer the next sweep writes into)."""
    look_points: IntArray = field(repr=False)
    look_island: IntArray = field(repr=False)
    cards_value: dict[str, FloatArray] = field(default_factory=dict, repr=False)
    """Each card's turn value at every state, from the last sweep (lanes)."""
    scratch: dict[str, FloatArray] = field(default_factory=dict, repr=False)

    @property
    def columns(self) -> int:
        return self.look.n * self.look.n

    @property
    def chunks(self) -> int:
        return int(self.W.shape[0])

    def table(self, lanes: FloatArray | None = None) -> FloatArray:
        """The game values (or other per-state lanes) as an (n, n) table."""
        n = self.look.n
        flat = (self.W if lanes is None else lanes).reshape(-1)[: n * n]
        out: FloatArray = flat.reshape(n, n).copy()
        return out

    def blocks(self) -> list[tuple[str, int]]:
        """The position-value blocks, in the fixed order of every sum over them."""
        return [(card, w) for card, ct in self.gm.cards.items() for w in ct.model.worlds]


def start(name: str, gm: GameModel, look: Lookup, value: float) -> PhaseState:
    """Every game value and every position value at `value` (0.5: the middle of [0, 1])."""
    b = look.n * look.n
    W = to_lanes(np.full(b, value), LANES)
    n_c = W.shape[0]
    V = {card: {w: np.full((n_c, ct.st.n_fo, LANES), value) for w in ct.model.worlds}
         for card, ct in gm.cards.items()}
    V_prev = {card: {w: v.copy() for w, v in per.items()} for card, per in V.items()}
    return PhaseState(name=name, gm=gm, look=look, W=W, V=V, V_prev=V_prev,
                      look_points=to_lanes(look.points.astype(np.int64), LANES),
                      look_island=to_lanes(look.island.astype(np.int64), LANES))


def utilities(state: PhaseState, tail: FloatArray,
              W: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """The utility tables of every state (C, n_u, L) and its Skull Island utilities by
    deduction (C, n_ded, L), from the game values `W` (default: the iterate's) and the
    phase's tail."""
    gm = state.gm
    z = np.concatenate([(state.W if W is None else W).reshape(-1)[: state.columns], tail])
    u = np.empty((state.chunks, gm.n_u, LANES))
    u[:, : gm.n_k, :] = 1.0 - z[state.look_points]
    u[:, gm.magic_row, :] = 1.0
    return u, 1.0 - z[state.look_island]


def turn_value(state: PhaseState, card: str, V_start: FloatArray | None, u: FloatArray,
               isl: FloatArray, live_part: FloatArray | None = None) -> FloatArray:
    """One card's turn value before the first roll at every state (lanes): play on from a
    live first roll (``live_part``, the first-roll sum of ``V_start`` when not given), bust on
    it, or go to Skull Island (by deduction, in increasing order), summed in that order."""
    ct = state.gm.cards[card]
    if live_part is None:
        assert V_start is not None
        live_part = kernel.first_sum(V_start, ct.first.live_fo, ct.first.live_prob)
    value = live_part + ct.first.bust_prob * u[:, ct.first_bust_row, :]
    for d, p in enumerate(ct.island.tolist()):
        if p:
            value = value + p * isl[:, d, :]
    return value


def deck_value(state: PhaseState, per_card: dict[str, FloatArray]) -> FloatArray:
    """The deck-weighted sum of the cards' turn values, in the deck's order."""
    total = np.zeros_like(state.W)
    for card, weight in state.gm.weights.items():
        total = total + weight * per_card[card]
    return total


def sweep(state: PhaseState, tail: FloatArray, *, omega_v: float, mode: int = MODE_BELLMAN,
          steps: dict[tuple[str, int], FloatArray] | None = None,
          fix: tuple[dict[tuple[str, int], FloatArray], FloatArray] | None = None
          ) -> tuple[float, float]:
    """One sweep of the phase (module doc): (largest position change, largest game change).
    The previous position values stay in ``V_prev``; with `steps`, each block's step (float32)
    is written there. With `fix` = (the recorded steps, ``c``), the position values first make
    the jump of the last extrapolation (:func:`extrapolate`), each chunk as the kernel reads
    it."""
    gm = state.gm
    u, isl = utilities(state, tail)
    res_v = 0.0
    no_e = np.empty((state.chunks, 0, LANES))
    live_part = {card: np.empty((state.chunks, LANES)) for card in gm.cards}
    for card, ct in gm.cards.items():
        st = ct.st
        q_used: FloatArray | None = None
        sorceress = len(ct.model.worlds) > 1
        for world in ct.model.worlds:
            # keep values are stored only where the Sorceress's world needs them
            q = np.empty((state.chunks, st.n_rows + 1 if sorceress and world == USED else 0,
                          LANES))
            bs = None
            if world == UNUSED and q_used is not None:
                bs = kernel.sorceress_best(q_used, ct.worlds[world].sorceress_ok, st)
            old, new = state.V[card][world], state.V_prev[card][world]
            first = None
            if world == ct.model.start_world:
                first = (ct.first.live_fo, ct.first.live_prob, live_part[card])
            res = kernel.sweep(mode, old, no_e, q, u, ct.worlds[world], st, 0, st.max_skulls,
                               omega=omega_v, bs=bs, parallel=True, out=new,
                               step=None if steps is None else steps[(card, world)],
                               fix=None if fix is None else (fix[0][(card, world)][1:], fix[1]),
                               first=first)
            state.V[card][world], state.V_prev[card][world] = new, old
            res_v = max(res_v, float(res.max(initial=0.0)))
            if world == USED:
                q_used = q
    per_card = {card: turn_value(state, card, None, u, isl, live_part=live_part[card])
                for card in gm.cards}
    state.cards_value = per_card
    new_w = deck_value(state, per_card)
    res_w = float(np.max(np.abs((new_w - state.W).reshape(-1)[: state.columns])))
    state.W = new_w
    return res_v, res_w


Moves = dict[tuple[str, int], tuple[IntArray, BoolArray]]
"""Per card and world: the move at every full orbit of every state, in lanes (a pair position,
:data:`~solver.engine.kernel.STOP` or ``NO_MOVE``; whether it is a Sorceress keep)."""


@dataclass(frozen=True)
class BellmanPass:
    """One plain Bellman sweep at the iterate, not applied: the moves it takes and how far it
    would move the position values."""

    tols: tuple[float, ...]
    moves: tuple[Moves, ...]
    """The moves of the kernel's tie-break rule within each of `tols`."""
    residual: float
    """The largest change of a position value (every lane)."""

    def within(self, tol: float) -> Moves:
        """The moves within `tol` (one of those asked for)."""
        return self.moves[self.tols.index(tol)]


def moves_at(state: PhaseState, tail: FloatArray, tol: float) -> Moves:
    """The moves of the kernel's tie-break rule (:func:`solver.engine.kernel.best_moves`,
    within `tol`) at the iterate, for the utilities of its game values (the iterate is left
    as it is)."""
    return bellman_at(state, tail, (tol,)).moves[0]


def bellman_at(state: PhaseState, tail: FloatArray, tols: tuple[float, ...]) -> BellmanPass:
    """A plain Bellman sweep at the iterate (left as it is), for the utilities of its game
    values: its moves within each of `tols` (the certificate's exact maxima and the policy's
    ties come from the same sweep) and the largest change it would make."""
    gm = state.gm
    u, _ = utilities(state, tail)
    out: tuple[Moves, ...] = tuple({} for _ in tols)
    residual = 0.0
    for card, ct in gm.cards.items():
        st = ct.st
        q_used: FloatArray | None = None
        for world in ct.model.worlds:
            w = ct.worlds[world]
            q = np.empty((state.chunks, st.n_rows + 1, LANES))
            bs = kernel.sorceress_best(q_used, w.sorceress_ok, st) if q_used is not None else None
            scratch = np.empty_like(state.V[card][world])
            best = np.empty_like(scratch)  # the best plain keep's value at every full orbit
            change = kernel.sweep(MODE_BELLMAN, state.V[card][world],
                                  np.empty((state.chunks, 0, LANES)), q, u, w, st, 0,
                                  st.max_skulls, bs=bs, parallel=True, out=scratch, best=best)
            residual = max(residual, float(change.max(initial=0.0)))
            for moves, tol in zip(out, tols, strict=True):
                moves[(card, world)] = kernel.best_moves(q, q_used, u, w, st, tol,
                                                         w.sorceress_ok, best=best,
                                                         best_sorceress=bs)[:2]
            if world == USED:
                q_used = q
    return BellmanPass(tols, out, residual)


# --------------------------------------------------------------------------------------------
# Reduced rank extrapolation
# --------------------------------------------------------------------------------------------


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting, in plain Python (None when singular)."""
    n = len(rhs)
    a = [row[:] + [rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if a[pivot][col] == 0.0:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            for c in range(col, n + 1):
                a[r][c] -= f * a[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        acc = a[r][n]
        for c in range(r + 1, n):
            acc -= a[r][c] * x[c]
        x[r] = acc / a[r][r]
    return x


def extrapolate(state: PhaseState, w_steps: FloatArray) -> FloatArray | None:
    """Jump to the combination of the last k + 1 iterates with the smallest combined step of
    the game values (RRE): ``x* = x_k - sum_j c_j d_j`` with ``c_j = gamma_0 + ... +
    gamma_{j-1}``, for the game and the position values alike. The game values jump here;
    the returned ``c`` is the position values' jump, which the next sweep makes as it reads
    them (:func:`sweep`'s `fix`). None (and no jump) when the normal equations are singular or
    the weights wild."""
    gram = kernel.gram(w_steps[:, :, None, :])
    k = len(gram)
    scale = max(gram[i][i] for i in range(k))
    if not scale > 0.0:
        return None
    gamma = _solve([[g / scale for g in row] for row in gram], [1.0] * k)
    if gamma is None:
        return None
    total = sum(gamma)
    if not total or any(abs(g / total) > 1e4 for g in gamma):
        return None
    gamma = [g / total for g in gamma]
    coef = np.array([sum(gamma[:j]) for j in range(1, k)])
    W = state.W[:, None, :].copy()
    kernel.combine(W, w_steps[1:, :, None, :], coef)
    state.W = W[:, 0, :]
    return coef


@dataclass(frozen=True)
class IterationReport:
    sweeps: int
    residual: float
    """The largest change of the last plain sweep (position and game values)."""
    seconds: float
    history: tuple[float, ...]
    extrapolations: int


def iterate(state: PhaseState, tail: FloatArray, *, tol: float,
            progress: ProgressFn | None = None, omega_v: float = OMEGA_V,
            rre: bool = True) -> IterationReport:
    """Sweeps until a plain sweep moves nothing by more than `tol` (module doc)."""
    t0 = time.perf_counter()
    history: list[float] = []
    jumps = 0
    v_steps = w_steps = None
    if rre:
        v_steps = {(c, w): np.empty((RRE_STEPS,) + state.V[c][w].shape, dtype=np.float32)
                   for c, w in state.blocks()}
        w_steps = np.empty((RRE_STEPS,) + state.W.shape, dtype=np.float32)
    states = to_lanes(np.ones(state.columns), LANES) > 0  # not the padding lanes
    cycle = 0
    jump: FloatArray | None = None  # the position values' part of the last extrapolation
    for n in range(1, MAX_SWEEPS + 1):
        recording = v_steps is not None and n > RRE_START and omega_v != 1.0
        steps = {b: a[cycle] for b, a in v_steps.items()} if recording else None  # type: ignore[union-attr]
        W_before = state.W
        res_v, res_w = sweep(state, tail, omega_v=omega_v, steps=steps,
                             fix=None if jump is None else (v_steps, jump))  # type: ignore[arg-type]
        jump = None
        if recording:
            w_steps[cycle] = np.where(states, state.W - W_before, 0.0)  # type: ignore[index]
            cycle += 1
        residual = max(res_v, res_w)
        history.append(residual)
        if progress is not None:
            progress(state.name, n, residual)
        if residual <= tol:
            if omega_v == 1.0:
                return IterationReport(n, residual, time.perf_counter() - t0, tuple(history),
                                       jumps)
            omega_v, cycle = 1.0, 0  # finish with plain sweeps: the residual is the iterate's
            continue
        if recording and cycle == RRE_STEPS:
            jump = extrapolate(state, w_steps)  # type: ignore[arg-type]
            jumps += jump is not None
            cycle = 0
    raise ConvergenceError(f"{state.name}: residual {history[-1]:.3g} after {MAX_SWEEPS} sweeps")
