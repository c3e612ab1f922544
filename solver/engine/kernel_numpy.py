"""The turn kernel in plain numpy: the reference implementation of :mod:`.kernel`'s sweep,
best moves and decision margins, columns side by side ``(n, B)``, level by level.

It does the same floating-point operations in the same order as the compiled twin
(:mod:`.kernel_numba`), so the two give the same bits (the tests hold them to it); it runs
where numba is missing, and for a single chunk of columns, where compiling would cost more
than the work (:data:`.kernel.KERNEL_ENV`). :mod:`.kernel` chooses between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .codes import NO_MOVE, STOP
from .positions import FloatArray, IntArray

SIXTH = 1.0 / 6.0
"""The rounded constant 1/6 every expectation over a die is multiplied by."""
MODE_EXPECT, MODE_BELLMAN, MODE_POLICY = 0, 1, 2
"""What a sweep does: the expectations only, a Bellman step, or a fixed policy's step."""


def to_2d(a: Any) -> Any:
    """(C, n, L) lanes -> (n, C * L) columns (a copy)."""
    c, n, width = a.shape
    return np.ascontiguousarray(a.transpose(1, 0, 2).reshape(n, c * width))


def back(a2: Any, out: Any) -> None:
    """Write (n, C * L) columns back into the (C, n, L) lanes `out`."""
    c, n, width = out.shape
    out[:] = a2.reshape(n, c, width).transpose(1, 0, 2)


@dataclass(frozen=True)
class Level:
    lo: int
    hi: int
    links: tuple[IntArray, ...]
    """The child rows (expectation) or the parent rows (subset maximum), one array per face."""
    block: IntArray
    """The same links side by side, (rows, faces): one gather takes them all."""


def plan(st: Any) -> tuple[list[list[Level]], list[list[Level]]]:
    """Per skull block: the levels of the expectation (most dice first, children) and of the
    subset maximum (fewest dice first, parents), cached on the structure."""
    cached = st.cache.get("numpy-plan")
    if cached is None:
        n_dice = st.level_lo.shape[1] - 2
        expect, subset = [], []
        for s in range(st.level_lo.shape[0]):
            ex, sub = [], []
            for d in range(n_dice - 1, s - 1, -1):
                lo, hi = int(st.level_lo[s, d]), int(st.level_lo[s, d + 1])
                if hi > lo:
                    ex.append(Level(lo, hi, tuple(st.child[lo:hi, f].copy() for f in range(6)),
                                     st.child[lo:hi, :6].copy()))
            for d in range(s, n_dice + 1):
                lo, hi = int(st.level_lo[s, d]), int(st.level_lo[s, d + 1])
                if hi > lo:
                    sub.append(Level(lo, hi, tuple(st.parent[lo:hi, f].copy()
                                                    for f in range(5)),
                                      st.parent[lo:hi, :5].copy()))
            expect.append(ex)
            subset.append(sub)
        cached = st.cache["numpy-plan"] = (expect, subset)
    return cached  # type: ignore[no-any-return]


def np_sweep(mode: int, V: FloatArray, V_out: FloatArray, e: FloatArray, q: FloatArray | None,
              bs: FloatArray | None, u: FloatArray, w: Any, st: Any, s_lo: int, s_hi: int,
              omega: float, code: IntArray | None, sor: Any, q_used: FloatArray | None,
              step: Any = None, bust: FloatArray | None = None,
              frozen: Any = None) -> FloatArray:
    """One sweep on (n, B) columns; returns the absolute change of every value updated.

    ``e`` holds the expectations, then (Bellman mode) the best keep of every sub-multiset;
    ``q`` (if given) receives the keep values. `bust` is :func:`np_bust_terms` of `u` (computed
    here when not given: it is the same at every sweep of one table)."""
    expect, subset = plan(st)
    if bust is None:
        bust = np_bust_terms(u, w)
    n_rows = st.n_rows
    e[n_rows] = 0.0
    lo, hi = int(st.fo_lo[s_lo]), int(st.fo_lo[s_hi + 1])
    rows = st.full_row[lo:hi]
    e[rows] = np.where(w.live[lo:hi, None], V[lo:hi], 0.0)
    for s in range(s_hi, s_lo - 1, -1):
        for lv in expect[s]:
            ch = e[lv.block]  # (rows, 6, B): summed face by face, in order, as numba does
            acc = ch[:, 0] + ch[:, 1]
            for f in range(2, 6):
                acc += ch[:, f]
            acc *= SIXTH
            e[lv.lo:lv.hi] = acc
            if q is not None:
                q[lv.lo:lv.hi] = acc + bust[lv.lo:lv.hi]
    if mode == MODE_EXPECT:
        return np.zeros((0, V.shape[1]))
    if mode == MODE_BELLMAN:
        e[n_rows] = -np.inf
        for s in range(s_lo, s_hi + 1):
            for lv in subset[s]:
                cur = np.where(w.keep_ok[lv.lo:lv.hi, None], e[lv.lo:lv.hi] + bust[lv.lo:lv.hi],
                               -np.inf)
                parents = e[lv.block]
                for f in range(5):
                    b = parents[:, f]
                    np.copyto(cur, b, where=b > cur)
                e[lv.lo:lv.hi] = cur
        v = e[rows]
        if bs is not None:
            v = np.where(bs[lo:hi] > v, bs[lo:hi], v)
        stop = u[w.stop_idx[lo:hi]]
        v = np.where(w.can_stop[lo:hi, None] & (stop > v), stop, v)
    else:
        assert code is not None and q is not None and q_used is not None
        cd = code[lo:hi]
        safe = np.maximum(cd, 0)
        v = np.where(sor[lo:hi], np.take_along_axis(q_used, safe, axis=0),
                     np.take_along_axis(q, safe, axis=0))
        v = np.where(cd == STOP, u[w.stop_idx[lo:hi]], v)
    v = np.where(w.live[lo:hi, None], v, 0.0)
    if frozen is not None:  # frozen columns keep their values
        v = np.where(frozen[None, :], V[lo:hi], v)
    d = v - V[lo:hi]
    new = v if omega == 1.0 else V[lo:hi] + omega * d
    if step is not None:
        step[lo:hi] = (new - V[lo:hi]).astype(np.float32)
    V_out[lo:hi] = new
    return np.abs(d)


def np_bust_terms(u: FloatArray, w: Any) -> FloatArray:
    """``p_bust * u_bust`` of every row, (n_rows, B): the second term of a keep's value."""
    terms: FloatArray = w.p_bust[:, None] * u[w.bust_idx]
    return terms


def chunk_max(change: FloatArray, n_c: int, width: int) -> FloatArray:
    """The largest change of each chunk of (n, C * L) columns."""
    if not change.size:
        return np.zeros(n_c)
    return change.reshape(change.shape[0], n_c, width).max(axis=(0, 2))  # type: ignore[no-any-return]


def np_sorceress_best(q_used: FloatArray, sorceress_ok: Any, st: Any) -> FloatArray:
    _, subset = plan(st)
    best = np.empty_like(q_used)
    best[st.n_rows] = -np.inf
    for levels in subset:
        for lv in levels:
            cur = np.where(sorceress_ok[lv.lo:lv.hi, None], q_used[lv.lo:lv.hi], -np.inf)
            for p in lv.links:
                b = best[p]
                cur = np.where(b > cur, b, cur)
            best[lv.lo:lv.hi] = cur
    return best[st.sor_src]  # type: ignore[no-any-return]


def np_first_sum(V: FloatArray, first_fo: IntArray, first_p: FloatArray) -> FloatArray:
    out = np.zeros(V.shape[1])
    for j in range(first_fo.shape[0]):
        out += first_p[j] * V[first_fo[j]]
    return out


def np_best_moves(q: FloatArray, q_used: FloatArray | None, u: FloatArray, w: Any, st: Any,
                   tol: float, sorceress_ok: Any) -> tuple[IntArray, Any, FloatArray]:
    n_fo = st.n_fo
    b_ = q.shape[1]
    never = np.iinfo(np.int64).max

    def choice(ptr: IntArray, rows: IntArray, ok: Any, qq: FloatArray
               ) -> tuple[FloatArray, IntArray]:
        best = np.full((n_fo, b_), -np.inf)
        first = np.full((n_fo, b_), -1, dtype=np.int64)
        if not rows.shape[0]:
            return best, first
        cand = np.where(ok[rows][:, None], qq[rows], -np.inf)
        nonempty = ptr[1:] > ptr[:-1]
        starts = ptr[:-1][nonempty]
        best[nonempty] = np.maximum.reduceat(cand, starts, axis=0)
        seg = np.repeat(np.arange(n_fo), np.diff(ptr))
        hit = (cand >= best[seg] - tol) & (cand > -np.inf)
        idx = np.where(hit, np.arange(rows.shape[0])[:, None], never)
        m = np.minimum.reduceat(idx, starts, axis=0)
        first[nonempty] = np.where(m == never, -1, m - starts[:, None])
        return best, first

    best_n, first_n = choice(st.pairs_ptr, st.pairs_row, w.keep_ok, q)
    if q_used is not None:
        best_s, first_s = choice(st.sor_ptr, st.sor_row, sorceress_ok, q_used)
    else:
        best_s, first_s = np.full_like(best_n, -np.inf), np.full_like(first_n, -1)
    m = np.where(best_s > best_n, best_s, best_n)
    stop_u = np.where(w.can_stop[:, None], u[w.stop_idx], -np.inf)
    stop = w.can_stop[:, None] & (stop_u >= m - tol)
    use_s = ~stop & (best_s > best_n + tol)
    code = np.where(stop, STOP, np.where(use_s, first_s, first_n))
    value = np.where(stop, stop_u, np.where(use_s, best_s, best_n))
    dead = ~w.live
    code[dead] = NO_MOVE
    use_s[dead] = False
    value[dead] = 0.0
    return code, use_s, value


def np_lanes_sweep(mode: int, V: FloatArray, V_out: FloatArray, e: FloatArray,
                    q: FloatArray, u: FloatArray, w: Any, st: Any, s_lo: int, s_hi: int,
                    omega: float, bs: Any, code: Any, sor: Any, q_used: Any, sweeps: int = 1,
                    factor: float = 0.0, budget: float = -1.0,
                    step: Any = None, per_lane: bool = False) -> tuple[int, FloatArray]:
    """The numpy sweep on lanes: to columns, up to `sweeps` sweeps (stopping once
    ``factor * residual <= budget``, of the chunk or, with `per_lane`, of each column, frozen
    from then on; several sweeps only in place), back to lanes. Returns (sweeps, last chunk
    residuals)."""
    n_c, _, width = V.shape
    V2, e2, u2 = to_2d(V), to_2d(e), to_2d(u)
    out2 = V2 if V_out is V else np.empty_like(V2)
    q2 = to_2d(q) if q.shape[1] else None
    bs2 = None if bs is None else to_2d(bs)
    code2 = None if code is None else to_2d(code)
    sor2 = None if sor is None else to_2d(sor)
    qu2 = q2 if (q_used is None or q_used is q) else to_2d(q_used)
    step2 = None if step is None else np.zeros(V2.shape, dtype=np.float32)
    done, res = 0, np.zeros(n_c)
    bust = np_bust_terms(u2, w)
    frozen = np.zeros(V2.shape[1], dtype=bool) if per_lane else None
    last = np.zeros(V2.shape[1])
    while done < sweeps:
        change = np_sweep(mode, V2, out2, e2, q2, bs2, u2, w, st, s_lo, s_hi, omega, code2,
                           sor2, qu2, step2, bust, frozen)
        done += 1
        if frozen is not None:
            lane = change.max(axis=0, initial=0.0)
            newly = ~frozen & ((factor * lane <= budget) | (done >= sweeps))
            last = np.where(newly, lane, last)
            frozen |= newly
            res = chunk_max(last[None, :], n_c, width)
            if frozen.all():
                break
            continue
        res = chunk_max(change, n_c, width)
        if factor * float(res.max(initial=0.0)) <= budget:
            break
    if V_out is not V and mode != MODE_EXPECT:
        lo, hi = int(st.fo_lo[s_lo]), int(st.fo_lo[s_hi + 1])
        merged = V2.copy()
        merged[lo:hi] = out2[lo:hi]
        back(merged, V_out)
    else:
        back(V2, V)
    back(e2, e)
    if q2 is not None:
        back(q2, q)
    if step is not None and step2 is not None:
        lo, hi = int(st.fo_lo[s_lo]), int(st.fo_lo[s_hi + 1])
        full = to_2d(step)
        full[lo:hi] = step2[lo:hi]
        back(full, step)
    return done, res


def np_decision_margins(q: FloatArray, q_used: FloatArray | None, u: FloatArray, w: Any,
                         st: Any, tol: float, sorceress_ok: Any, code: Any, sor: Any
                         ) -> FloatArray:
    """:func:`decision_margins` on (n, B) columns: the compiled loops, lanes side by side."""
    b_ = q.shape[1]
    half = tol * 0.5
    out = np.full(b_, np.inf)
    use_s = q_used is not None
    qs = q_used if q_used is not None else q
    for i in range(st.n_fo):
        if not w.live[i]:
            continue
        prow = st.pairs_row[st.pairs_ptr[i]:st.pairs_ptr[i + 1]].tolist()
        srow = st.sor_row[st.sor_ptr[i]:st.sor_ptr[i + 1]].tolist()
        best_n = np.full(b_, -np.inf)
        for r in prow:
            if w.keep_ok[r]:
                best_n = np.where(q[r] > best_n, q[r], best_n)
        best_s = np.full(b_, -np.inf)
        if use_s:
            for r in srow:
                if sorceress_ok[r]:
                    best_s = np.where(qs[r] > best_s, qs[r], best_s)
        m = np.where(best_s > best_n, best_s, best_n)
        margin = np.full(b_, np.inf)

        def lower(margin: Any, d: Any, shift: float, where: Any) -> Any:
            e = np.abs(d + shift) * 0.5
            return np.where(where & (e < margin), e, margin)

        if w.can_stop[i]:
            d = u[w.stop_idx[i]] - m
            margin = lower(margin, d, tol, (m > -np.inf) & (np.abs(d) >= half))
        keeps = code[i] >= 0
        if use_s:
            d = best_s - best_n
            margin = lower(margin, d, -tol, keeps & (best_s > -np.inf) & (best_n > -np.inf)
                           & (np.abs(d) >= half))
        for witch, rows, values, g in ((True, srow, qs, best_s), (False, prow, q, best_n)):
            mine = keeps & (sor[i] == witch)
            for r in rows:
                if not (sorceress_ok[r] if witch else w.keep_ok[r]):
                    continue
                d = g - values[r]
                margin = lower(margin, d, -tol, mine & (d >= half))
        out = np.where(margin < out, margin, out)
    return out
