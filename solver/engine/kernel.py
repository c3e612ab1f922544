r"""The turn kernel: one Bellman sweep of a turn over the rows of a :class:`TurnStructure`.

This is the only implementation of a turn's Bellman step in the project; the turn tables, the
``need N`` objective, the three phases of the game, policy extraction and policy evaluation all
call it. It exists twice, in the same floating-point operations in the same order: compiled
with numba, and in plain numpy (the reference, and the fallback when numba is missing). The
tests require the two to give the same bits.

**Layout.**  A batch of ``B`` independent objectives (utility columns: one per score pair in the
game) is stored in *lanes*: arrays of shape ``(C, n, L)``, ``C = ceil(B / L)`` chunks of ``L``
columns, so that the innermost loop runs over contiguous columns (it vectorises) and a chunk's
rows stay in the cache. :func:`to_lanes` and :func:`from_lanes` convert.

**One sweep** of one world, for the skull blocks ``s_lo..s_hi``, with values ``V`` of the full
orbits (positions):

1. the expectation over rolling the missing dice, one die at a time, from the positions down:
   :math:`E(x) = \frac16 \sum_f E(x + e_f)`, the six children summed in the face order k m p s c
   d, then multiplied by the rounded constant 1/6 (a child beyond the structure, or a dead
   position, is worth 0 here: the bust comes next);
2. the value of each keep: :math:`Q(x) = E(x) + p_{bust}(x)\, u_{bust}(x)`;
3. the best legal keep of every sub-multiset, by the recursion
   :math:`M(x) = \max(Q(x)\ \text{if legal},\ \max_f M(x - e_f))`;
4. each position: the best of ``M``, the Sorceress's best (``bs``) and stopping, where allowed;
   0 where the turn is over. The update is over-relaxed by ``omega`` (exactly the new value when
   ``omega`` is 1) and the sweep returns the largest change.

Maxima take the later candidate only when it is strictly larger (the same choice in both
implementations, signed zeros included). No sum is left to a library: no BLAS, no reduction
whose order depends on the SIMD width or the number of threads. Chunks are independent, so
splitting them over threads changes nothing.

Utilities come as a table ``u`` (lanes) with an index per position (``stop_idx``) and per row
(``bust_idx``): the expected points of a stop, the probability of reaching a need, or the
game's lookups of a win probability are all rows of such a table.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import numpy as np

from . import kernel_numpy as knp
from .kernel_numpy import MODE_BELLMAN as MODE_BELLMAN  # the modes and 1/6, defined once there
from .kernel_numpy import MODE_EXPECT as MODE_EXPECT
from .kernel_numpy import MODE_POLICY as MODE_POLICY
from .kernel_numpy import SIXTH as SIXTH
from .positions import FloatArray, IntArray

AnyArray = np.ndarray[Any, Any]
"""An array of any dtype (the lane layout carries floats, policy codes and flags alike)."""

LANES = 64
"""Columns per chunk for large batches (the game). Each row of the sweep costs some index work
whatever its width, so wider is faster until a chunk's rows leave the core's cache: a game
sweep took 55, 44, 34 and 44 ms at 16, 32, 64 and 128 lanes on the 2-core machine of
``make bench`` (a chunk's work array is then ``rows * 64 * 8`` bytes, 500 KB at most)."""
KERNEL_ENV = "SABORDS_KERNEL"
"""Which implementation runs: ``auto`` (the default: numba for batches of more than one
chunk, when it is installed, and numpy for a single chunk, where starting numba would cost a
second for a few milliseconds of work, unless this process has started numba's kernels of a
turn solve already: :func:`_small_ready`), ``numba`` (whenever installed) or ``numpy``. The
numbers are the same bits whichever runs."""


def to_lanes(a: AnyArray, lanes: int | None = None, fill: Any = 0) -> AnyArray:
    """(n, B) or (B,) -> (C, n, L) (or (C, L)), padded to whole chunks with `fill` (a move's
    code must pad with one every position allows: :data:`~.results.STOP`)."""
    flat = a.ndim == 1
    m = a[None, :] if flat else a
    n, b = m.shape
    width = lanes or lane_width(b)
    c = -(-b // width)
    out = np.zeros((c, n, width), dtype=a.dtype)
    padded = np.full((n, c * width), fill, dtype=a.dtype)
    padded[:, :b] = m
    out[:] = padded.reshape(n, c, width).transpose(1, 0, 2)
    return out[:, 0, :] if flat else out


def from_lanes(a: AnyArray, b: int) -> AnyArray:
    """(C, n, L) -> (n, B), or (C, L) -> (B,)."""
    out: AnyArray
    if a.ndim == 2:
        out = a.reshape(-1)[:b].copy()
    else:
        c, n, width = a.shape
        out = a.transpose(1, 0, 2).reshape(n, c * width)[:, :b].copy()
    return out


def lane_width(columns: int) -> int:
    """Lanes per chunk for a batch of `columns`: up to :data:`LANES`."""
    return max(1, min(LANES, columns))


# --------------------------------------------------------------------------------------------
# The compiled implementation (numba): the same operations, row by row, chunk by chunk
# --------------------------------------------------------------------------------------------


def _compile() -> dict[str, Callable[..., Any]] | None:
    """The numba functions, or None when numba is not installed."""
    from ..caches import numba_cache_dir

    os.environ.setdefault("NUMBA_CACHE_DIR", str(numba_cache_dir()))
    try:
        import numba

        from . import kernel_numba as kn
    except ImportError:
        return None
    numba.set_num_threads(min(threads(), int(numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    _forgive_cache_saves()
    return {
        "sweep": kn.sweep,
        "sweep_parallel": kn.sweep_parallel,
        "solve_layer": kn.solve_layer,
        "sorceress_best": kn.sorceress_best,
        "first_sum": kn.first_sum,
        "best_moves": kn.best_moves,
        "gram_chunks": kn.gram_chunks,
        "combine": kn.combine,
        "forward": kn.forward,
        "decision_margins": kn.decision_margins,
        "moves_margins": kn.moves_margins,
    }


def _forgive_cache_saves() -> None:
    """A kernel compiled now that numba cannot save into its cache (``NUMBA_CACHE_DIR`` on a
    full or read-only disk) runs all the same, and is compiled again next time: numba itself
    fails the call (it forgives only Windows' EACCES), which lost the answer. The failure is a
    :class:`~solver.errors.CacheWarning`."""
    import warnings

    from numba.core import caching

    from ..errors import CacheWarning

    save = getattr(caching.Cache, "save_overload", None)
    if save is None or getattr(save, "forgiving", False):  # another numba, or done already
        return

    def save_overload(self: Any, sig: Any, data: Any) -> None:
        try:
            save(self, sig, data)
        except OSError as exc:
            where, reason = os.environ.get("NUMBA_CACHE_DIR", ""), exc.strerror or str(exc)
            warnings.warn(CacheWarning(f"numba's compiled kernels could not be cached in "
                                       f"{where!r}: {reason}; every run compiles them again",
                                       path=where, reason=reason),
                          stacklevel=2)

    save_overload.forgiving = True  # type: ignore[attr-defined]
    caching.Cache.save_overload = save_overload  # type: ignore[method-assign]


_COMPILED: list[dict[str, Callable[..., Any]] | None] = []
_FORCED: list[str] = []


def compiled(chunks: int = 2) -> dict[str, Callable[..., Any]] | None:
    """The numba kernel for a batch of `chunks` chunks, or None: the numpy reference runs
    (see :data:`KERNEL_ENV`)."""
    choice = _choice()
    if choice == "numpy" or (choice != "numba" and chunks <= 1 and not _small_ready()):
        return None
    if not _COMPILED:
        _COMPILED.append(_compile())
    return _COMPILED[0]


SMALL_SOLVE = ("sweep", "solve_layer", "sorceress_best", "best_moves")
"""The kernels of a turn's layered solve (a single chunk's runs :func:`first_sum` too: about
0.4 s to compile where numba's cache lacks it, loaded from the cache after)."""


def _small_ready() -> bool:
    """Whether this process has numba's kernels of :data:`SMALL_SOLVE` loaded already (a game
    solve, a simulation's win play or near-optimal final turns ran them): a single chunk then
    runs on numba too, its start paid. Measured: the review of a game of four players took
    16 s on numpy's single chunks after its win play had loaded numba, 6 s on numba's; the
    near-optimal chances of a state of five players, in a process that had answered one in
    the final round, 0.47 s on numpy's, 0.095 s on numba's (a server's answer)."""
    funcs = _COMPILED[0] if _COMPILED else None
    return funcs is not None and all(getattr(funcs[name], "signatures", None)
                                     for name in SMALL_SOLVE)


def force(choice: str | None) -> None:
    """Run ``numba`` or ``numpy`` whatever the batch (None: back to :data:`KERNEL_ENV`)."""
    _FORCED.clear()
    if choice is not None:
        if choice not in ("numba", "numpy", "auto"):
            raise ValueError(f"kernel implementation {choice!r}: numba, numpy or auto")
        _FORCED.append(choice)


_WHENEVER = [0]
"""How many threads are inside :func:`compiled_whenever_installed` now (a count, not a saved
choice restored at the exit: two threads leaving in the other order left numba forced for
the rest of the process, found by a review)."""
_WHENEVER_LOCK = threading.Lock()


def _choice() -> str:
    """``numba``, ``numpy`` or ``auto``: :func:`force`'s choice, else numba while a thread is
    inside :func:`compiled_whenever_installed` (unless :data:`KERNEL_ENV` asks for numpy),
    else :data:`KERNEL_ENV`'s."""
    if _FORCED:
        return _FORCED[0]
    env = os.environ.get(KERNEL_ENV, "auto").strip().lower()
    return "numba" if env != "numpy" and _WHENEVER[0] > 0 else env


@contextmanager
def compiled_whenever_installed() -> Iterator[None]:
    """Run numba for every batch, a single chunk too, while inside (the numpy reference when
    numba is missing, or asked for by :data:`KERNEL_ENV` or :func:`force`): for work made of
    many small batches, where numba's one-time start pays (the n-player game's settling
    steps). It holds for the whole process while any thread is inside (a simulation's threads
    run its batches), and ends when the last leaves. Before, ``SABORDS_KERNEL=numpy`` left a
    game solve on numba."""
    with _WHENEVER_LOCK:
        _WHENEVER[0] += 1
    try:
        yield
    finally:
        with _WHENEVER_LOCK:
            _WHENEVER[0] -= 1


def kernels_cached() -> bool:
    """Whether numba's cache holds the kernels every game solve runs (value iteration's sweep
    and a turn's layers), compiled from these sources: if not, the first solve compiles them
    before it starts (:data:`solver.limits.COMPILE_SECONDS`). True where a game solve does not
    run numba (not installed, or the numpy kernel forced) or its cache cannot be read (numba's
    index of a kernel, read as numba reads it: another numba's internals say nothing). It
    leaves the kernel's choice (:func:`force`) alone: a server's request threads ask it while
    a solve runs."""
    import pickle

    choice = _choice()
    if choice == "numpy":
        return True
    if not _COMPILED:
        _COMPILED.append(_compile())
    funcs = _COMPILED[0]
    if funcs is None:
        return True
    try:
        dispatchers: dict[str, Any] = funcs  # numba's, with their caches
        return all(bool(dispatchers[name]._cache._cache_file._load_index())
                   for name in ("sweep", "solve_layer"))
    except (AttributeError, OSError, EOFError, ValueError, pickle.UnpicklingError):
        return True


def numba_available() -> bool:
    """Whether numba is installed (importable)."""
    if not _COMPILED:
        _COMPILED.append(_compile())
    return _COMPILED[0] is not None


def implementation(chunks: int = 2) -> str:
    """``numba`` or ``numpy``: which implementation runs for a batch of `chunks` chunks."""
    return "numpy" if compiled(chunks) is None else "numba"


THREADS_ENV = "SABORDS_THREADS"
"""Threads of the compiled kernel (default: the CPUs of the machine). The numbers do not
depend on it: each thread takes whole chunks, which are independent."""
_POOL: list[ThreadPoolExecutor] = []
_CORES: list[int] = []
"""The cores of this process (:func:`solver.limits.cores`), read once: they were read at every
call of the kernel (the CPU affinity and the cgroup's files, 48 us a call by `timeit`): 2993
calls in the review of a game of four (3.7 s), 3328 in `sabords game --games 4000`."""


def threads() -> int:
    """How many threads run the compiled kernel's chunks."""
    text = os.environ.get(THREADS_ENV, "").strip()
    if text.isdigit() and int(text) >= 1:
        return int(text)
    if not _CORES:
        from ..limits import cores

        _CORES.append(cores())
    return _CORES[0]


def _split(fn: Callable[..., Any], n: int, *args: Any) -> None:
    """``fn(lo, hi, *args)`` over ``0:n`` in contiguous pieces, taken by the threads as they
    come free (a few pieces a thread: the cores of a shared machine run unevenly)."""
    t = min(threads(), n)
    if t <= 1:
        fn(0, n, *args)
        return
    if not _POOL or _POOL[0]._max_workers < t:  # noqa: SLF001
        _POOL[:] = [ThreadPoolExecutor(max_workers=t, thread_name_prefix="sabords-kernel")]
    pieces = min(n, 4 * t)
    bounds = [n * i // pieces for i in range(pieces + 1)]
    futures = [_POOL[0].submit(fn, bounds[i], bounds[i + 1], *args) for i in range(pieces)]
    for f in futures:
        f.result()


# --------------------------------------------------------------------------------------------
# The entry points
# --------------------------------------------------------------------------------------------


def _empty_code(V: FloatArray) -> tuple[IntArray, Any]:
    return (np.zeros((V.shape[0], 0, V.shape[2]), dtype=np.int64),
            np.zeros((V.shape[0], 0, V.shape[2]), dtype=np.bool_))


def sweep(mode: int, V: FloatArray, e: FloatArray, q: FloatArray, u: FloatArray,
          w: Any, st: Any, s_lo: int, s_hi: int, *, omega: float = 1.0,
          bs: FloatArray | None = None, code: IntArray | None = None, sor: Any = None,
          q_used: FloatArray | None = None, parallel: bool = False,
          out: FloatArray | None = None, step: Any = None,
          first: tuple[IntArray, FloatArray, FloatArray] | None = None,
          best: FloatArray | None = None,
          fix: tuple[Any, FloatArray] | None = None) -> FloatArray:
    """One sweep (see the module doc) of the skull blocks ``s_lo..s_hi`` of one world.

    `w` holds the world's arrays (:class:`solver.engine.arrays.WorldArrays`), `st` the
    structure. Mode :data:`MODE_EXPECT` only refreshes ``e`` and ``q`` (``q`` with no rows: not
    stored; ``e`` with no rows: a work array of each chunk's own, with `parallel`);
    :data:`MODE_BELLMAN` also updates the values by the Bellman max, and
    :data:`MODE_POLICY` by the policy ``code`` (rows, :data:`STOP`) and ``sor`` (its keep is a
    row of ``q_used``). The new values go to `out` (default: ``V``, in place; only the skull
    blocks swept are written), and the step each value took, rounded to float32, to `step`
    (optional). With `first` = (full orbits, probabilities, out), ``out`` (C, L) receives
    :func:`first_sum` of the new values; `best` (C, n_fo, L), in Bellman mode, the best plain
    keep's value at every full orbit. With `fix` = (steps, coef), the values ``V`` first become
    :func:`combine`'s ``V - sum_j coef[j] * steps[j]``, in place, each chunk as the sweep
    reaches it (an extrapolation, applied without a pass of its own over the values). Returns
    the largest change of each chunk.
    """
    V_out = V if out is None else out
    for name, a in (("V", V), ("out", V_out), ("e", e), ("q", q)):
        if not a.flags.c_contiguous:
            raise ValueError(f"kernel sweep: {name} must be C-contiguous (it is written)")
    u = np.ascontiguousarray(u)
    k = compiled(V.shape[0])
    if k is None:
        if fix is not None:
            combine(V, fix[0], fix[1])
        if e.shape[1] == 0:
            e = np.empty((V.shape[0], st.n_rows + 1, V.shape[2]))
        if best is not None and mode == MODE_BELLMAN:
            e = np.empty((V.shape[0], st.n_rows + 1, V.shape[2]))
        res = knp.np_lanes_sweep(mode, V, V_out, e, q, u, w, st, s_lo, s_hi, omega, bs, code, sor,
                              q_used, step=step)[1]
        if best is not None and mode == MODE_BELLMAN:
            lo, hi = int(st.fo_lo[s_lo]), int(st.fo_lo[s_hi + 1])
            best[:, lo:hi, :] = e[:, st.full_row[lo:hi], :]
        if first is not None and mode != MODE_EXPECT:
            first[2][:] = first_sum(V_out, first[0], first[1])
        return res
    use_bs = bs is not None
    bs_ = bs if bs is not None else np.zeros((V.shape[0], 0, V.shape[2]))
    if code is None:
        code, sor = _empty_code(V)
    q_used_ = q_used if q_used is not None else q
    step_ = step if step is not None else np.zeros((V.shape[0], 0, V.shape[2]), dtype=np.float32)
    if first is None:
        first = (np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros((0, V.shape[2])))
    best_ = best if best is not None else np.zeros((V.shape[0], 0, V.shape[2]))
    if fix is None:
        fix = (np.zeros((0,) + V.shape, dtype=np.float32), np.zeros(0))
    res = np.zeros(V.shape[0])
    args = (mode, V, V_out, e, q, bs_, u, w.stop_idx, w.bust_idx, w.live, w.can_stop,
            w.keep_ok, w.p_bust, st.child, st.parent, st.level_lo, st.full_row, st.fo_lo, s_lo,
            s_hi, float(omega), use_bs, code, sor, q_used_, step_, first[0], first[1], first[2],
            best_, np.ascontiguousarray(fix[0]), np.ascontiguousarray(fix[1], dtype=np.float64),
            res)
    if parallel:  # numba's threads take whole chunks (of e, q and the values alike)
        k["sweep_parallel"](*args)
    else:
        k["sweep"](0, V.shape[0], *args)
    return res


def solve_layer(V: FloatArray, e: FloatArray, q: FloatArray, u: FloatArray, w: Any, st: Any,
                s: int, *, factor: float, budget: float, max_sweeps: int,
                bs: FloatArray | None = None, code: IntArray | None = None, sor: Any = None,
                q_used: FloatArray | None = None, per_lane: bool = False) -> tuple[int, float]:
    """In-place sweeps of skull block `s`, each chunk until its own ``factor * residual <=
    budget`` (chunks are independent: the same numbers whatever runs them), or with
    `per_lane` each lane (column) until its own, frozen from then on (each column's numbers are
    then those of its own solve, whatever the columns beside it): (the most sweeps of a
    chunk, the largest last residual)."""
    mode = MODE_BELLMAN if code is None else MODE_POLICY
    for name, a in (("V", V), ("e", e), ("q", q)):
        if not a.flags.c_contiguous:
            raise ValueError(f"kernel solve_layer: {name} must be C-contiguous (it is written)")
    u = np.ascontiguousarray(u)
    n_c = V.shape[0]
    k = compiled(n_c)
    if k is None:
        done, worst = 0, 0.0
        for c in range(n_c):
            one = slice(c, c + 1)
            V_c = V[one]  # one object: the sweeps are in place
            n, res = knp.np_lanes_sweep(
                mode, V_c, V_c, e[one], q[one], u[one], w, st, s, s, 1.0,
                None if bs is None else bs[one], None if code is None else code[one],
                None if sor is None else sor[one],
                None if q_used is None or q_used is q else q_used[one],
                sweeps=max_sweeps, factor=factor, budget=budget, per_lane=per_lane)
            done, worst = max(done, n), max(worst, float(res.max(initial=0.0)))
        return done, worst
    use_bs = bs is not None
    bs_ = bs if bs is not None else np.zeros((n_c, 0, V.shape[2]))
    if code is None:
        code, sor = _empty_code(V)
    q_used_ = q_used if q_used is not None else q
    sweeps = np.zeros(n_c, dtype=np.int64)
    residual = np.zeros(n_c)
    _split(k["solve_layer"], n_c, V, e, q, bs_, u, w.stop_idx, w.bust_idx, w.live, w.can_stop,
           w.keep_ok, w.p_bust, st.child, st.parent, st.level_lo, st.full_row, st.fo_lo, s,
           use_bs, mode, code, sor, q_used_, float(factor), float(budget), int(max_sweeps),
           bool(per_lane), sweeps, residual)
    return int(sweeps.max(initial=0)), float(residual.max(initial=0.0))


def sorceress_best(q_used: FloatArray, sorceress_ok: Any, st: Any) -> FloatArray:
    """For every full orbit (s, M): the best legal Sorceress keep (s - 1, K ⊆ M) of the used
    world's keep values ``q_used`` (-inf where there is none)."""
    bs = np.empty((q_used.shape[0], st.n_fo, q_used.shape[2]))
    k = compiled(q_used.shape[0])
    if k is None:
        knp.back(knp.np_sorceress_best(knp.to_2d(q_used), sorceress_ok, st), bs)
    else:
        _split(k["sorceress_best"], q_used.shape[0], q_used, bs, sorceress_ok, st.parent,
               st.level_lo, st.sor_src)
    return bs


def first_sum(V: FloatArray, first_fo: IntArray, first_p: FloatArray) -> FloatArray:
    """``sum_j first_p[j] * V[:, first_fo[j], :]`` in the order of j: (C, L)."""
    V = np.ascontiguousarray(V)
    out = np.empty((V.shape[0], V.shape[2]))
    k = compiled(V.shape[0])
    if k is None:
        out[:] = knp.np_first_sum(knp.to_2d(V), first_fo, first_p).reshape(V.shape[0], V.shape[2])
    else:
        _split(k["first_sum"], V.shape[0], V, first_fo, first_p, out)
    return out


def best_moves(q: FloatArray, q_used: FloatArray | None, u: FloatArray, w: Any, st: Any,
               tol: float, sorceress_ok: Any = None, *, best: FloatArray | None = None,
               best_sorceress: FloatArray | None = None) -> tuple[IntArray, Any, FloatArray]:
    """The policy's move at every full orbit and column (see :data:`solve.TIE_TOL`): stop
    when within `tol` of the best move, else the Sorceress when better by more than `tol`,
    else the plain keep; among keeps within `tol` of the best, the first of the structure's
    order (most dice, then the largest partial index). Returns (code, sorceress, value) in
    lanes: the code is :data:`STOP`, :data:`NO_MOVE` or the keep's position in the orbit's
    pair list (``pairs`` or ``sor_pairs``). `best` and `best_sorceress` (C, n_fo, L), when
    given, are the best plain and Sorceress keep values (the Bellman sweep's maxima): the
    same choice, found without scanning every keep for the maximum."""
    c_, _, width = q.shape
    code = np.empty((c_, st.n_fo, width), dtype=np.int64)
    sor = np.empty((c_, st.n_fo, width), dtype=np.bool_)
    value = np.empty((c_, st.n_fo, width))
    s_ok = sorceress_ok if sorceress_ok is not None else np.zeros(q.shape[1], dtype=np.bool_)
    k = compiled(q.shape[0])
    if k is None:
        c2, s2, v2 = knp.np_best_moves(knp.to_2d(q), None if q_used is None else knp.to_2d(q_used),
                                    knp.to_2d(u), w, st, tol, s_ok)
        knp.back(c2, code)
        knp.back(s2, sor)
        knp.back(v2, value)
        return code, sor, value
    use_s = q_used is not None
    q_used_ = q_used if q_used is not None else q
    none = np.zeros((c_, 0, width))
    best_ = np.ascontiguousarray(best) if best is not None else none
    best_s_ = np.ascontiguousarray(best_sorceress) if best_sorceress is not None else none
    _split(k["best_moves"], q.shape[0], q, q_used_, np.ascontiguousarray(u), w.stop_idx,
           w.can_stop, w.live, w.keep_ok, s_ok, st.pairs_ptr, st.pairs_row, st.sor_ptr,
           st.sor_row, use_s, float(tol), best_, best_s_, code, sor, value)
    return code, sor, value


def decision_margins(q: FloatArray, q_used: FloatArray | None, u: FloatArray, w: Any, st: Any,
                     tol: float, sorceress_ok: Any, code: Any, sor: Any) -> FloatArray:
    """For every lane (C, L): how much every move value may move (each by at most this much)
    without changing a move of :func:`best_moves` (the moves `code`, `sor`) at any live
    position: half the smallest distance of one of its comparisons to its threshold (the
    stop against the best keep less `tol`, the Sorceress's best against the plain best plus
    `tol`, each keep of the chosen kind against its best less `tol`). A move within `tol` / 2
    of the value it is compared with is a tie that the same rule breaks the same way while
    the two move together (they are equal but for the rounding: the same dice, or the same
    endings), and is left out: a tie of two moves that part is found by the improvement that
    solves every state (:mod:`solver.game.solve`)."""
    c_, _, width = q.shape
    out = np.empty((c_, width))
    k = compiled(c_)
    if k is None:
        b = c_ * width
        out[:] = knp.np_decision_margins(
            knp.to_2d(q), None if q_used is None else knp.to_2d(q_used), knp.to_2d(u), w, st, tol,
            sorceress_ok, knp.to_2d(code), knp.to_2d(sor))[:b].reshape(c_, width)
        return out
    use_s = q_used is not None
    q_used_ = q_used if q_used is not None else q
    _split(k["decision_margins"], c_, q, q_used_, np.ascontiguousarray(u), w.stop_idx,
           w.can_stop, w.live, w.keep_ok, sorceress_ok, st.pairs_ptr, st.pairs_row,
           st.sor_ptr, st.sor_row, use_s, float(tol), code, sor, out)
    return out


def moves_and_margins(q: FloatArray, q_used: FloatArray | None, u: FloatArray, w: Any, st: Any,
                      tol: float, sorceress_ok: Any) -> tuple[IntArray, Any, FloatArray]:
    """:func:`best_moves`' moves (code, sorceress) and :func:`decision_margins` of them, the
    same bits as the two, in one pass of the compiled kernel: each position's best keeps are
    scanned once for both (measured on the three-player game at 6000: the two took a fourth of
    an improvement's time)."""
    k = compiled(q.shape[0])
    if k is None:
        code, sor, _ = best_moves(q, q_used, u, w, st, tol, sorceress_ok)
        return code, sor, decision_margins(q, q_used, u, w, st, tol, sorceress_ok, code, sor)
    c_, _, width = q.shape
    code = np.empty((c_, st.n_fo, width), dtype=np.int64)
    sor = np.empty((c_, st.n_fo, width), dtype=np.bool_)
    out = np.empty((c_, width))
    use_s = q_used is not None
    q_used_ = q_used if q_used is not None else q
    _split(k["moves_margins"], c_, q, q_used_, np.ascontiguousarray(u), w.stop_idx,
           w.can_stop, w.live, w.keep_ok, sorceress_ok, st.pairs_ptr, st.pairs_row,
           st.sor_ptr, st.sor_row, use_s, float(tol), code, sor, out)
    return code, sor, out


def gram(steps: Any) -> list[list[float]]:
    """The Gram matrix of the steps (k, C, n, L): ``G[i][j]`` = sum of ``steps[i] * steps[j]``
    (float64 products), summed in a fixed order: each chunk and lane over the rows, then the
    chunks, then the lanes. The same bits in numba and numpy (``cumsum`` is a sequential
    scan)."""
    n_s, n_c, _, width = steps.shape
    pairs = n_s * (n_s + 1) // 2
    k = compiled(n_c)
    if k is None:
        flat = steps.astype(np.float64)
        part = np.empty((n_c, pairs, width))
        p = 0
        for i in range(n_s):
            for j in range(i + 1):
                part[:, p, :] = np.cumsum(flat[i] * flat[j], axis=1)[:, -1, :]
                p += 1
    else:
        part = np.empty((n_c, pairs, width))
        _split(k["gram_chunks"], n_c, np.ascontiguousarray(steps), part)
    by_lane = np.cumsum(part, axis=0)[-1] if n_c else np.zeros((pairs, width))
    out = [[0.0] * n_s for _ in range(n_s)]
    p = 0
    for i in range(n_s):
        for j in range(i + 1):
            total = 0.0
            for x in by_lane[p].tolist():
                total += x
            out[i][j] = out[j][i] = total
            p += 1
    return out


def combine(x: FloatArray, steps: Any, coef: FloatArray) -> None:
    """``x -= coef[j] * steps[j]`` for every j in order, elementwise (steps: float32)."""
    k = compiled(x.shape[0])
    if k is None:
        for j in range(coef.shape[0]):
            x -= coef[j] * steps[j].astype(np.float64)
    else:
        _split(k["combine"], x.shape[0], x, np.ascontiguousarray(steps), coef)
