r"""The values of a phase under fixed turns: every seat's probability of winning, from the
outcome distribution of every state's turn (the evaluation step of policy iteration), and a
proved bound on their error.

**The equations.**  With ``P[s, o]`` the probability that the turn at state ``s`` ends at
utility row ``o`` (points, then pirate magic; :class:`.turns.Improved`), ``p_d`` the deck's
probability of Skull Island deducting ``d`` and ``Z`` the stacked value table
(:mod:`.seats`), seat ``i``'s value is

.. math::

   V_i(s) = \sum_o P[s, o]\, Z_{i-1}(\mathrm{next}_o(s)) + \sum_d p_d\, Z_{i-1}(\mathrm{isl}_d(s)),

seats taken modulo ``N`` (the rotation). Rows of ``Z`` in other phases (solved before) and the
terminal rows are constants; the phase's own rows are the unknowns.

**The sweep.**  Gauss-Seidel, the states in a fixed order (decreasing sum of the totals: most
endings add points, so most successors are already updated), each value a sum over the
endings in their order: the same bits on every machine. :func:`sweep` is plain Python run by
the interpreter, or compiled by numba (:func:`solver.engine.kernel.compiled`): the same
operations in the same order, so the same bits.

**The bound.**  The error ``e = V - V^*`` of the iterate satisfies ``e = A e + r`` with ``A``
the matrix of the phase's own successors (non-negative, rows summing to at most 1) and ``r``
the residual of one more sweep; when the turns leave the phase with probability one,
``|e| <= T |r|_\infty`` with ``T = (I - A)^{-1} 1`` the expected number of turns still played in
the phase. :func:`turns_bound` proves a bound on ``T``: a function ``L`` with
``L >= 1 + A L`` at every state (checked with a margin for the rounding) bounds it from above
(a Lyapunov function; Meyn and Tweedie, *Markov Chains and Stochastic Stability*, ch. 11). An
error ``ε`` of the constant rows (the phases solved before) adds at most ``T ε``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine import FloatArray, IntArray

LYAPUNOV_SLACK = 1e-3
"""The candidate ``L`` is the iterated ``T`` times 1 + this, plus this (the room the check
needs against the iteration's own error)."""
FP_MARGIN = 1e-12
"""Rounding allowance, relative, of one evaluation of ``1 + A L`` (a sum of a few hundred
non-negative products)."""


def sweep(order: Any, endings: Any, points: Any, island: Any, p_island: Any, Z: Any,
          offset: int, magic: int, out: Any) -> float:
    """One Gauss-Seidel sweep over the states of `order` (phase indices), in place in `Z`
    (rows ``offset + s``); with `out` of rows (a Jacobi step), the new values go there
    instead and `Z` is left as it is. Returns the largest change of a value."""
    n_seats = Z.shape[1]
    n_k = points.shape[1]
    worst = 0.0
    acc = np.zeros(n_seats)
    jacobi = out.shape[0] > 0
    for j in range(order.shape[0]):
        s = order[j]
        for i in range(n_seats):
            acc[i] = 0.0
        for o in range(n_k):
            p = endings[s, o]
            if p != 0.0:
                row = points[s, o]
                for i in range(n_seats):
                    acc[i] += p * Z[row, i - 1 if i > 0 else n_seats - 1]
        p = endings[s, n_k]
        if p != 0.0:
            for i in range(n_seats):
                acc[i] += p * Z[magic, i - 1 if i > 0 else n_seats - 1]
        for d in range(island.shape[1]):
            p = p_island[d]
            if p != 0.0:
                row = island[s, d]
                for i in range(n_seats):
                    acc[i] += p * Z[row, i - 1 if i > 0 else n_seats - 1]
        others = 0.0  # the last seat's value is the rest, as the tables store it
        for i in range(n_seats - 1):
            others += acc[i]
        acc[n_seats - 1] = 1.0 - others
        for i in range(n_seats):
            change = abs(acc[i] - Z[offset + s, i])
            worst = change if change > worst else worst
            if jacobi:
                out[s, i] = acc[i]
            else:
                Z[offset + s, i] = acc[i]
    return worst


_COMPILED: list[Any] = []
_COMPILING = threading.Lock()
"""Held while compiling (profiles evaluate in threads: :mod:`.profiles`)."""


def _sweep_fn() -> Any:
    """:func:`sweep` compiled by numba when the kernel is (the same bits either way)."""
    from ..engine import kernel

    if kernel.compiled(2) is None:
        return sweep
    with _COMPILING:
        if not _COMPILED:
            import numba

            _COMPILED.append(numba.njit(cache=True, fastmath=False, nogil=True)(sweep))
    return _COMPILED[0]


@dataclass(frozen=True)
class Evaluation:
    """The phase's values under fixed turns, and how far the iteration went."""

    sweeps: int
    residual: float
    """The largest change of a value by one more (Jacobi) sweep at the result."""


def order_of(totals: IntArray) -> IntArray:
    """The states in the order of the sweeps: decreasing sum of the totals, then index."""
    total = totals.sum(axis=1)
    return np.lexsort((np.arange(total.shape[0]), -total)).astype(np.int64)


def evaluate(Z: FloatArray, offset: int, order: IntArray, endings: FloatArray,
             points: IntArray, island: IntArray, p_island: FloatArray, magic: int, *,
             tol: float, max_sweeps: int = 100_000) -> Evaluation:
    """Sweep the phase's rows of `Z` (from their current values) until a sweep changes no
    value by more than `tol`, then measure the residual with one Jacobi step."""
    fn = _sweep_fn()
    none = np.zeros((0, Z.shape[1]))
    n = 0
    while True:
        n += 1
        change = fn(order, endings, points, island, p_island, Z, offset, magic, none)
        if change <= tol or n >= max_sweeps:
            break
    jac = np.zeros((endings.shape[0], Z.shape[1]))
    residual = fn(order, endings, points, island, p_island, Z, offset, magic, jac)
    return Evaluation(sweeps=n, residual=float(residual))


def turns_sweep(order: Any, endings: Any, points: Any, island: Any, p_island: Any, T: Any,
                offset: int, size: int, out: Any) -> float:
    """One sweep of ``T = 1 + A T`` over the phase's states (``T`` over the rows of ``Z``, 0
    outside the phase: a turn leading there has left it), in place, or with `out` of rows its
    right side there (``T`` left as it is). Returns the largest change."""
    n_k = points.shape[1]
    worst = 0.0
    check = out.shape[0] > 0
    for j in range(order.shape[0]):
        s = order[j]
        acc = 1.0
        for o in range(n_k):
            p = endings[s, o]
            row = points[s, o]
            if p != 0.0 and offset <= row < offset + size:
                acc += p * T[row]
        for d in range(island.shape[1]):
            p = p_island[d]
            row = island[s, d]
            if p != 0.0 and offset <= row < offset + size:
                acc += p * T[row]
        change = abs(acc - T[offset + s])
        worst = change if change > worst else worst
        if check:
            out[s] = acc
        else:
            T[offset + s] = acc
    return worst


def _turns_fn() -> Any:
    from ..engine import kernel

    if kernel.compiled(2) is None:
        return turns_sweep
    _sweep_fn()
    with _COMPILING:
        if len(_COMPILED) < 2:
            import numba

            _COMPILED.append(numba.njit(cache=True, fastmath=False, nogil=True)(turns_sweep))
    return _COMPILED[1]


def turns_bound(offset: int, order: IntArray, endings: FloatArray, points: IntArray,
                island: IntArray, p_island: FloatArray, rows: int, *,
                max_sweeps: int = 100_000) -> float:
    """A proved bound on the expected number of turns still played in the phase from any of
    its states (module doc): ``max L`` for a checked ``L >= 1 + A L``; inf when the check
    fails (the turns need not leave the phase)."""
    fn = _turns_fn()
    size = endings.shape[0]
    T = np.zeros(rows)
    none = np.zeros(0)
    n = 0
    while True:
        n += 1
        change = fn(order, endings, points, island, p_island, T, offset, size, none)
        top = float(T[offset:offset + size].max(initial=0.0))
        if change <= 1e-9 * max(top, 1.0) or n >= max_sweeps:
            break
    L = T.copy()
    L[offset:offset + size] = T[offset:offset + size] * (1.0 + LYAPUNOV_SLACK) + LYAPUNOV_SLACK
    rhs = np.zeros(size)
    fn(order, endings, points, island, p_island, L, offset, size, rhs)
    if not np.all(rhs * (1.0 + FP_MARGIN) <= L[offset:offset + size]):
        return float("inf")
    return float(L[offset:offset + size].max(initial=0.0))
