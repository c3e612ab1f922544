"""The turn kernel compiled with numba: the operations of :mod:`solver.engine.kernel`'s numpy
reference, in the same order, row by row and chunk by chunk.

Imported only by :func:`solver.engine.kernel.compiled`, after it has pointed numba's cache at
the user's cache directory (``NUMBA_CACHE_DIR``). Module-level functions, so that numba's cache
finds them again in the next process. Chunks are independent: :func:`sweep_parallel` spreads
them over numba's threads, and :mod:`solver.engine.kernel` runs the other functions' shares on
threads of its own (they release the GIL). ``fastmath`` is off: no reassociation and no fused
multiply-add, so the compiled kernel rounds exactly like numpy on every CPU (the tests check it
with ``NUMBA_CPU_NAME=generic`` and the host's CPU). Every function's arguments are described in
:mod:`solver.engine.kernel`.
"""

# ruff: noqa: N803 (the kernel's arrays keep the names of the equations: V, e, q)
# mypy: ignore-errors

from __future__ import annotations

import numba
import numpy as np

SIXTH = 1.0 / 6.0

_jit = numba.njit(cache=True, fastmath=False, nogil=True)


@_jit
def chunk(c, ce, mode, V, V_out, e, q, bs, u, stop_idx, bust_idx, live, can_stop, keep_ok,
          p_bust, child, parent, level_lo, full_row, fo_lo, s_lo, s_hi, omega, use_bs, code, sor,
          q_used, step, first_fo, first_p, turn, best_out, fix_steps, fix_coef, frozen,
          lane_res):
    """One sweep of chunk `c` (module doc of :mod:`solver.engine.kernel`); its largest change.

    ``e[ce]`` holds the expectations, then (Bellman mode) the best keep of every
    sub-multiset, in place; ``q`` receives the keep values unless it has no rows. With
    ``fix_coef`` (an extrapolation), the chunk's values first become
    ``V - sum_j fix_coef[j] * fix_steps[j]``, in place, as :func:`combine` computes them.
    With ``frozen`` (one flag a lane), the frozen lanes keep their values (change 0); with
    ``lane_res`` (one entry a lane), it receives each lane's largest change.
    """
    n_rows = child.shape[0]
    n_dice = level_lo.shape[1] - 2
    width = V.shape[2]
    for i in range(V.shape[1]):
        for j in range(fix_coef.shape[0]):
            cj = fix_coef[j]
            for k in range(width):
                V[c, i, k] = V[c, i, k] - cj * np.float64(fix_steps[j, c, i, k])
    store_q = q.shape[1] > 0
    for k in range(width):
        e[ce, n_rows, k] = 0.0
    lo = fo_lo[s_lo]
    hi = fo_lo[s_hi + 1]
    for i in range(lo, hi):
        r = full_row[i]
        if live[i]:
            for k in range(width):
                e[ce, r, k] = V[c, i, k]
        else:
            for k in range(width):
                e[ce, r, k] = 0.0
    for s in range(s_hi, s_lo - 1, -1):
        for r in range(level_lo[s, n_dice] - 1, level_lo[s, s] - 1, -1):
            c0 = child[r, 0]
            c1 = child[r, 1]
            c2 = child[r, 2]
            c3 = child[r, 3]
            c4 = child[r, 4]
            c5 = child[r, 5]
            for k in range(width):
                acc = e[ce, c0, k]
                acc += e[ce, c1, k]
                acc += e[ce, c2, k]
                acc += e[ce, c3, k]
                acc += e[ce, c4, k]
                acc += e[ce, c5, k]
                e[ce, r, k] = acc * SIXTH
            if store_q:
                pb = p_bust[r]
                bi = bust_idx[r]
                for k in range(width):
                    q[c, r, k] = e[ce, r, k] + pb * u[c, bi, k]
    res = 0.0
    if mode == 0:
        return res
    if mode == 1:
        for k in range(width):
            e[ce, n_rows, k] = -np.inf
        for s in range(s_lo, s_hi + 1):
            for r in range(level_lo[s, s], level_lo[s, n_dice + 1]):
                p0 = parent[r, 0]
                p1 = parent[r, 1]
                p2 = parent[r, 2]
                p3 = parent[r, 3]
                p4 = parent[r, 4]
                pb = p_bust[r]
                bi = bust_idx[r]
                # the same comparisons, in the same order, as the numpy reference; every test
                # that does not change along the lanes is outside the lane loops, which are
                # then branch-free (they vectorise)
                if keep_ok[r]:
                    for k in range(width):
                        cur = e[ce, r, k] + pb * u[c, bi, k]
                        b = e[ce, p0, k]
                        cur = b if b > cur else cur
                        b = e[ce, p1, k]
                        cur = b if b > cur else cur
                        b = e[ce, p2, k]
                        cur = b if b > cur else cur
                        b = e[ce, p3, k]
                        cur = b if b > cur else cur
                        b = e[ce, p4, k]
                        cur = b if b > cur else cur
                        e[ce, r, k] = cur
                else:
                    for k in range(width):
                        cur = -np.inf
                        b = e[ce, p0, k]
                        cur = b if b > cur else cur
                        b = e[ce, p1, k]
                        cur = b if b > cur else cur
                        b = e[ce, p2, k]
                        cur = b if b > cur else cur
                        b = e[ce, p3, k]
                        cur = b if b > cur else cur
                        b = e[ce, p4, k]
                        cur = b if b > cur else cur
                        e[ce, r, k] = cur
    worst = np.zeros(width)
    target = np.empty(width)  # the value each lane moves to
    store_step = step.shape[1] > 0
    store_best = best_out.shape[1] > 0
    have_frozen = frozen.shape[0] > 0
    for i in range(lo, hi):
        r = full_row[i]
        si = stop_idx[i]
        if not live[i]:
            for k in range(width):
                target[k] = 0.0
        elif mode == 1:
            for k in range(width):
                target[k] = e[ce, r, k]
            if store_best:
                for k in range(width):
                    best_out[c, i, k] = e[ce, r, k]
            if use_bs:
                for k in range(width):
                    b = bs[c, i, k]
                    v = target[k]
                    target[k] = b if b > v else v
            if can_stop[i]:
                for k in range(width):
                    st = u[c, si, k]
                    v = target[k]
                    target[k] = st if st > v else v
        else:
            for k in range(width):
                cd = code[ce, i, k]
                if cd == -1:
                    target[k] = u[c, si, k]
                elif sor[c, i, k]:
                    target[k] = q_used[c, cd, k]
                else:
                    target[k] = q[c, cd, k]
        if have_frozen:
            for k in range(width):
                if frozen[k]:
                    target[k] = V[c, i, k]
        if store_step:
            for k in range(width):
                v = target[k]
                old = V[c, i, k]
                d = v - old
                ad = abs(d)
                worst[k] = ad if ad > worst[k] else worst[k]
                new = v if omega == 1.0 else old + omega * d
                V_out[c, i, k] = new
                step[c, i, k] = np.float32(new - old)
        else:
            for k in range(width):
                v = target[k]
                old = V[c, i, k]
                d = v - old
                ad = abs(d)
                worst[k] = ad if ad > worst[k] else worst[k]
                new = v if omega == 1.0 else old + omega * d
                V_out[c, i, k] = new
    for k in range(width):
        res = worst[k] if worst[k] > res else res
    if lane_res.shape[0] > 0:
        for k in range(width):
            lane_res[k] = worst[k]
    if first_fo.shape[0] > 0:  # the turn's value from the first roll on (first_sum)
        for k in range(width):
            turn[c, k] = 0.0
        for j in range(first_fo.shape[0]):
            p = first_p[j]
            i = first_fo[j]
            for k in range(width):
                turn[c, k] += p * V_out[c, i, k]
    return res


@_jit
def sweep(c_lo, c_hi, mode, V, V_out, e, q, bs, u, stop_idx, bust_idx, live, can_stop, keep_ok,
          p_bust, child, parent, level_lo, full_row, fo_lo, s_lo, s_hi, omega, use_bs, code, sor,
          q_used, step, first_fo, first_p, turn, best_out, fix_steps, fix_coef, res):
    """Chunks ``c_lo:c_hi`` (one thread's share: chunks are independent). An ``e`` with no
    rows: the chunks work in an array of their own, which stays in the core's cache (the
    expectations are not kept)."""
    local = e.shape[1] == 0
    work = np.empty((1, child.shape[0] + 1, V.shape[2]))
    first = c_lo - c_lo  # 0, typed like c (a literal 0 would compile chunk a second time)
    no_flags = np.zeros(0, dtype=np.bool_)
    no_res = np.zeros(0)
    for c in range(c_lo, c_hi):
        if local:
            res[c] = chunk(c, first, mode, V, V_out, work, q, bs, u, stop_idx, bust_idx, live,
                           can_stop, keep_ok, p_bust, child, parent, level_lo, full_row, fo_lo,
                           s_lo, s_hi, omega, use_bs, code, sor, q_used, step, first_fo,
                           first_p, turn, best_out, fix_steps, fix_coef, no_flags, no_res)
        else:
            res[c] = chunk(c, c, mode, V, V_out, e, q, bs, u, stop_idx, bust_idx, live,
                           can_stop, keep_ok, p_bust, child, parent, level_lo, full_row, fo_lo,
                           s_lo, s_hi, omega, use_bs, code, sor, q_used, step, first_fo,
                           first_p, turn, best_out, fix_steps, fix_coef, no_flags, no_res)


@numba.njit(cache=True, fastmath=False, nogil=True, parallel=True)
def sweep_parallel(mode, V, V_out, e, q, bs, u, stop_idx, bust_idx, live, can_stop, keep_ok,
                   p_bust, child, parent, level_lo, full_row, fo_lo, s_lo, s_hi, omega, use_bs,
                   code, sor, q_used, step, first_fo, first_p, turn, best_out, fix_steps,
                   fix_coef, res):
    """:func:`sweep` of every chunk, the chunks spread over numba's threads (each chunk on one
    thread: the same numbers whatever the number of threads). The only parallel function:
    numba's scheduling of this hot loop beats threads started from Python."""
    local = e.shape[1] == 0
    no_flags = np.zeros(0, dtype=np.bool_)
    no_res = np.zeros(0)
    for c in numba.prange(V.shape[0]):
        if local:
            work = np.empty((1, child.shape[0] + 1, V.shape[2]))
            res[c] = chunk(c, c - c, mode, V, V_out, work, q, bs, u, stop_idx, bust_idx, live,
                           can_stop, keep_ok, p_bust, child, parent, level_lo, full_row, fo_lo,
                           s_lo, s_hi, omega, use_bs, code, sor, q_used, step, first_fo,
                           first_p, turn, best_out, fix_steps, fix_coef, no_flags, no_res)
        else:
            res[c] = chunk(c, c, mode, V, V_out, e, q, bs, u, stop_idx, bust_idx, live,
                           can_stop, keep_ok, p_bust, child, parent, level_lo, full_row, fo_lo,
                           s_lo, s_hi, omega, use_bs, code, sor, q_used, step, first_fo,
                           first_p, turn, best_out, fix_steps, fix_coef, no_flags, no_res)


@_jit
def solve_layer(c_lo, c_hi, V, e, q, bs, u, stop_idx, bust_idx, live, can_stop, keep_ok,
                p_bust, child, parent, level_lo, full_row, fo_lo, s, use_bs, mode, code, sor,
                q_used, factor, budget, max_sweeps, per_lane, sweeps, residual):
    """Sweeps of skull block `s`, chunk by chunk, each until its own factor * residual <=
    budget (with `per_lane`, each lane until its own, frozen from then on): the sweeps and the
    last residual of each chunk."""
    step = np.zeros((V.shape[0], 0, V.shape[2]), dtype=np.float32)
    first_fo = np.zeros(0, dtype=np.int64)
    first_p = np.zeros(0)
    turn = np.zeros((0, V.shape[2]))
    best_out = np.zeros((V.shape[0], 0, V.shape[2]))
    fix_steps = np.zeros((0, V.shape[0], V.shape[1], V.shape[2]), dtype=np.float32)
    fix_coef = np.zeros(0)
    width = V.shape[2]
    frozen = np.zeros(width if per_lane else 0, dtype=np.bool_)
    lane_res = np.zeros(width if per_lane else 0)
    for c in range(c_lo, c_hi):
        n = 0
        last = 0.0
        for k in range(frozen.shape[0]):
            frozen[k] = False
        while True:
            r = chunk(c, c, mode, V, V, e, q, bs, u, stop_idx, bust_idx, live, can_stop,
                      keep_ok, p_bust, child, parent, level_lo, full_row, fo_lo, s, s, 1.0,
                      use_bs, code, sor, q_used, step, first_fo, first_p, turn, best_out,
                      fix_steps, fix_coef, frozen, lane_res)
            n += 1
            if per_lane:
                done = True
                for k in range(width):
                    if not frozen[k]:
                        if factor * lane_res[k] <= budget or n >= max_sweeps:
                            frozen[k] = True
                            last = lane_res[k] if lane_res[k] > last else last
                        else:
                            done = False
                if done:
                    break
            elif factor * r <= budget or n >= max_sweeps:
                last = r
                break
        sweeps[c] = n
        residual[c] = last


@_jit
def sorceress_best(c_lo, c_hi, q_used, bs, sorceress_ok, parent, level_lo, sor_src):
    n_rows = parent.shape[0]
    n_dice = level_lo.shape[1] - 2
    width = q_used.shape[2]
    for c in range(c_lo, c_hi):
        best = np.empty((n_rows + 1, width))
        for k in range(width):
            best[n_rows, k] = -np.inf
        for s in range(level_lo.shape[0]):
            for r in range(level_lo[s, s], level_lo[s, n_dice + 1]):
                p0 = parent[r, 0]
                p1 = parent[r, 1]
                p2 = parent[r, 2]
                p3 = parent[r, 3]
                p4 = parent[r, 4]
                ok = sorceress_ok[r]
                for k in range(width):
                    best[r, k] = q_used[c, r, k] if ok else -np.inf
                for k in range(width):
                    cur = best[r, k]
                    b = best[p0, k]
                    cur = b if b > cur else cur
                    b = best[p1, k]
                    cur = b if b > cur else cur
                    b = best[p2, k]
                    cur = b if b > cur else cur
                    b = best[p3, k]
                    cur = b if b > cur else cur
                    b = best[p4, k]
                    cur = b if b > cur else cur
                    best[r, k] = cur
        for i in range(sor_src.shape[0]):
            src = sor_src[i]
            for k in range(width):
                bs[c, i, k] = best[src, k]


@_jit
def first_sum(c_lo, c_hi, V, first_fo, first_p, out):
    for c in range(c_lo, c_hi):
        for k in range(V.shape[2]):
            out[c, k] = 0.0
        for j in range(first_fo.shape[0]):
            p = first_p[j]
            i = first_fo[j]
            for k in range(V.shape[2]):
                out[c, k] += p * V[c, i, k]


@_jit
def _max_rows(c, x, rows, lo, hi, ok, best):
    """``best[k]`` raised to the largest ``x[c, r, k]`` of the rows ``rows[lo:hi]`` that are
    `ok`, for every lane `k`, in the rows' order (a maximum keeps the first largest)."""
    for p in range(lo, hi):
        r = rows[p]
        if ok[r]:
            for k in range(best.shape[0]):
                v = x[c, r, k]
                if v > best[k]:
                    best[k] = v


@_jit
def _first_within(c, x, rows, lo, hi, ok, best, tol, kind, want, chosen):
    """For every lane `k` whose move is of kind `want` and has no keep yet: the place in
    ``rows[lo:hi]`` of the first `ok` row with ``x[c, r, k]`` within `tol` of ``best[k]``."""
    for p in range(lo, hi):
        r = rows[p]
        if ok[r]:
            for k in range(best.shape[0]):
                if kind[k] == want and chosen[k] < 0 and x[c, r, k] >= best[k] - tol:
                    chosen[k] = p - lo


@_jit
def _choose(c, i, q, q_used, u, stop_idx, can_stop, keep_ok, sorceress_ok, pairs_row, sor_row,
            p_lo, p_hi, s_lo, s_hi, use_sorceress, tol, best_in, best_s_in, best_n, best_s, m,
            chosen, kind):
    """One live position's move for all its lanes (chunk `c`, position `i`, its keeps
    ``pairs_row[p_lo:p_hi]`` and ``sor_row[s_lo:s_hi]``), the lanes innermost. Fills the best
    plain and Sorceress keep values `best_n` / `best_s` (copied from `best_in` / `best_s_in`
    when those have rows), their larger `m`, the move's `kind` (0 stop, 1 plain keep, 2 the
    Sorceress's) and the `chosen` keep (its place among the position's keeps, -1 for a stop),
    and returns whether any lane keeps plainly, and with the Sorceress. The comparisons of the
    numpy reference in the same order of the keeps: a maximum keeps the first largest, the
    chosen keep is the first within `tol`."""
    width = best_n.shape[0]
    if best_in.shape[1] > 0:
        for k in range(width):
            best_n[k] = best_in[c, i, k]
    else:
        for k in range(width):
            best_n[k] = -np.inf
        _max_rows(c, q, pairs_row, p_lo, p_hi, keep_ok, best_n)
    for k in range(width):
        best_s[k] = -np.inf
    if use_sorceress:
        if best_s_in.shape[1] > 0:
            for k in range(width):
                best_s[k] = best_s_in[c, i, k]
        else:
            _max_rows(c, q_used, sor_row, s_lo, s_hi, sorceress_ok, best_s)
    any_n = False
    any_s = False
    for k in range(width):
        m[k] = best_s[k] if best_s[k] > best_n[k] else best_n[k]
        chosen[k] = -1
        if can_stop[i] and u[c, stop_idx[i], k] >= m[k] - tol:
            kind[k] = 0
        elif best_s[k] > best_n[k] + tol:
            kind[k] = 2
            any_s = True
        else:
            kind[k] = 1
            any_n = True
    if any_s:  # the first keep within tol of the best, in the pairs' order
        _first_within(c, q_used, sor_row, s_lo, s_hi, sorceress_ok, best_s, tol, kind, 2, chosen)
    if any_n:
        _first_within(c, q, pairs_row, p_lo, p_hi, keep_ok, best_n, tol, kind, 1, chosen)
    return any_n, any_s


@_jit
def best_moves(c_lo, c_hi, q, q_used, u, stop_idx, can_stop, live, keep_ok, sorceress_ok,
               pairs_ptr, pairs_row, sor_ptr, sor_row, use_sorceress, tol, best_in, best_s_in,
               code, sor, value):
    """The policy's move at every full orbit (module doc of :mod:`solver.engine.kernel`).
    ``best_in`` / ``best_s_in`` (when they have rows) are the best plain / Sorceress keep
    values, already known: only the choice among the keeps within `tol` is then scanned.

    The lanes innermost (:func:`_choose`: a position's keeps read row by row for all its lanes
    at once, contiguous): every lane makes the comparisons of the numpy reference in the same
    order of the keeps, so the same bits (measured: four times faster than a lane at a time
    over its keeps)."""
    n_fo = pairs_ptr.shape[0] - 1
    width = q.shape[2]
    best_n = np.empty(width)
    best_s = np.empty(width)
    m = np.empty(width)
    chosen = np.empty(width, dtype=np.int64)
    kind = np.empty(width, dtype=np.int64)
    for c in range(c_lo, c_hi):
        for i in range(n_fo):
            if not live[i]:
                for k in range(width):
                    code[c, i, k] = -2
                    sor[c, i, k] = False
                    value[c, i, k] = 0.0
                continue
            _choose(c, i, q, q_used, u, stop_idx, can_stop, keep_ok, sorceress_ok, pairs_row,
                    sor_row, pairs_ptr[i], pairs_ptr[i + 1], sor_ptr[i], sor_ptr[i + 1],
                    use_sorceress, tol, best_in, best_s_in, best_n, best_s, m, chosen, kind)
            for k in range(width):
                code[c, i, k] = chosen[k]
                sor[c, i, k] = kind[k] == 2
                if kind[k] == 0:
                    value[c, i, k] = u[c, stop_idx[i], k]
                elif kind[k] == 2:
                    value[c, i, k] = best_s[k]
                else:
                    value[c, i, k] = best_n[k]


@_jit
def gram_chunks(c_lo, c_hi, steps, out):
    """``out[c, p, k]``: for chunk c, pair p = (i, j) (j <= i, in the order (0,0), (1,0),
    (1,1), ...) and lane k, the sum over the rows of ``steps[i] * steps[j]`` in row order
    (float64 products), every pair in one pass over the steps."""
    n = steps.shape[0]
    width = steps.shape[3]
    for c in range(c_lo, c_hi):
        for p in range(out.shape[1]):
            for k in range(width):
                out[c, p, k] = 0.0
        for r in range(steps.shape[2]):
            p = 0
            for i in range(n):
                for j in range(i + 1):
                    for k in range(width):
                        a = np.float64(steps[i, c, r, k])
                        out[c, p, k] += a * np.float64(steps[j, c, r, k])
                    p += 1


@_jit
def combine(c_lo, c_hi, x, steps, coef):
    """``x -= coef[j] * steps[j]`` for j in order, elementwise (the steps are float32)."""
    for c in range(c_lo, c_hi):
        for r in range(x.shape[1]):
            for k in range(x.shape[2]):
                v = x[c, r, k]
                for j in range(coef.shape[0]):
                    v = v - coef[j] * np.float64(steps[j, c, r, k])
                x[c, r, k] = v


@_jit
def forward(c_lo, c_hi, codes, sors, live, p_bust, stop_idx, bust_idx, child, level_lo,
            full_row, fo_lo, pairs_ptr, pairs_row, sor_ptr, sor_row, first_fo, first_p, start,
            first_bust_row, first_bust_p, eps, max_pushes, out, lost, pushes):
    """The outcome distribution of chunks ``c_lo:c_hi`` under their policies: the pushes of
    :mod:`solver.engine.forward`, in the order of its numpy reference."""
    n_w = codes.shape[0]
    n_fo = codes.shape[2]
    width = codes.shape[3]
    n_rows = child.shape[0]
    n_dice = level_lo.shape[1] - 2
    max_s = level_lo.shape[0] - 1
    for c in range(c_lo, c_hi):
        mpos = np.zeros((n_w, n_fo, width))
        keep = np.zeros((n_w, n_rows + 1, width))
        roll = np.zeros((n_rows + 1, width))
        left = np.zeros(width)
        for j in range(first_fo.shape[0]):
            i = first_fo[j]
            for k in range(width):
                mpos[start, i, k] = first_p[j]
        for r in range(out.shape[1]):
            for k in range(width):
                out[c, r, k] = 0.0
        for k in range(width):
            out[c, first_bust_row, k] += first_bust_p
            lost[c, k] = 0.0
        for w in range(n_w - 1, -1, -1):
            for s in range(max_s + 1):
                lo = fo_lo[s]
                hi = fo_lo[s + 1]
                n = 0
                done = np.zeros(width, dtype=np.bool_)
                while True:
                    for i in range(lo, hi):
                        si = stop_idx[i]
                        pp = pairs_ptr[i]
                        sp = sor_ptr[i]
                        for k in range(width):
                            m = mpos[w, i, k]
                            if m == 0.0:
                                continue
                            cd = codes[w, c, i, k]
                            if cd == -1:
                                out[c, si, k] += m
                            elif cd >= 0:
                                if sors[w, c, i, k]:
                                    keep[0, sor_row[sp + cd], k] += m
                                else:
                                    keep[w, pairs_row[pp + cd], k] += m
                            else:
                                lost[c, k] += m
                    for i in range(lo, hi):
                        for k in range(width):
                            mpos[w, i, k] = 0.0
                    for r in range(level_lo[s, s], level_lo[s, n_dice]):
                        pb = p_bust[w, r]
                        bi = bust_idx[r]
                        for k in range(width):
                            x = keep[w, r, k]
                            keep[w, r, k] = 0.0
                            roll[r, k] = x
                            out[c, bi, k] += pb * x
                    for d in range(s, n_dice):
                        for s2 in range(s, min(d, max_s) + 1):
                            a = level_lo[s2, d]
                            b = level_lo[s2, d + 1]
                            for f in range(6):
                                for r in range(a, b):
                                    ch = child[r, f]
                                    if ch == n_rows:
                                        continue
                                    for k in range(width):
                                        roll[ch, k] += roll[r, k] * SIXTH
                            for r in range(a, b):
                                for k in range(width):
                                    roll[r, k] = 0.0
                    for s2 in range(s, max_s + 1):
                        for i in range(fo_lo[s2], fo_lo[s2 + 1]):
                            r = full_row[i]
                            if live[w, i]:
                                for k in range(width):
                                    mpos[w, i, k] += roll[r, k]
                            for k in range(width):
                                roll[r, k] = 0.0
                    n += 1
                    for k in range(width):
                        left[k] = 0.0
                    for i in range(lo, hi):
                        for k in range(width):
                            left[k] += mpos[w, i, k]
                    busy = False
                    for k in range(width):  # a lane is done once its layer holds <= eps
                        if done[k]:
                            continue
                        if left[k] <= eps or n >= max_pushes:
                            done[k] = True
                            for i in range(lo, hi):
                                lost[c, k] += mpos[w, i, k]
                                mpos[w, i, k] = 0.0
                        else:
                            busy = True
                    if not busy:
                        break
                if n > pushes[c]:
                    pushes[c] = n


@_jit
def decision_margins(c_lo, c_hi, q, q_used, u, stop_idx, can_stop, live, keep_ok,
                     sorceress_ok, pairs_ptr, pairs_row, sor_ptr, sor_row, use_sorceress, tol,
                     code, sor, out):
    """For every lane, the least margin of the moves `code`/`sor` over the live positions
    (:func:`solver.engine.kernel.decision_margins`), in the order of its numpy reference."""
    n_fo = pairs_ptr.shape[0] - 1
    width = q.shape[2]
    half = tol * 0.5
    for c in range(c_lo, c_hi):
        for k in range(width):
            out[c, k] = np.inf
        for i in range(n_fo):
            if not live[i]:
                continue
            for k in range(width):
                best_n = -np.inf
                for p in range(pairs_ptr[i], pairs_ptr[i + 1]):
                    r = pairs_row[p]
                    if keep_ok[r] and q[c, r, k] > best_n:
                        best_n = q[c, r, k]
                best_s = -np.inf
                if use_sorceress:
                    for p in range(sor_ptr[i], sor_ptr[i + 1]):
                        r = sor_row[p]
                        if sorceress_ok[r] and q_used[c, r, k] > best_s:
                            best_s = q_used[c, r, k]
                m = best_s if best_s > best_n else best_n
                margin = np.inf
                if can_stop[i] and m > -np.inf:
                    d = u[c, stop_idx[i], k] - m
                    if abs(d) >= half:
                        e = abs(d + tol) * 0.5
                        margin = e if e < margin else margin
                if code[c, i, k] >= 0:
                    if use_sorceress and best_s > -np.inf and best_n > -np.inf:
                        d = best_s - best_n
                        if abs(d) >= half:
                            e = abs(d - tol) * 0.5
                            margin = e if e < margin else margin
                    witch = sor[c, i, k]
                    g = best_s if witch else best_n
                    lo = sor_ptr[i] if witch else pairs_ptr[i]
                    hi = sor_ptr[i + 1] if witch else pairs_ptr[i + 1]
                    for p in range(lo, hi):
                        if witch:
                            r = sor_row[p]
                            ok = sorceress_ok[r]
                            v = q_used[c, r, k]
                        else:
                            r = pairs_row[p]
                            ok = keep_ok[r]
                            v = q[c, r, k]
                        if ok:
                            d = g - v
                            if d >= half:
                                e = abs(d - tol) * 0.5
                                margin = e if e < margin else margin
                out[c, k] = margin if margin < out[c, k] else out[c, k]



@_jit
def moves_margins(c_lo, c_hi, q, q_used, u, stop_idx, can_stop, live, keep_ok, sorceress_ok,
                  pairs_ptr, pairs_row, sor_ptr, sor_row, use_sorceress, tol, code, sor, out):
    """:func:`best_moves` (without the values) and :func:`decision_margins` of its moves in one
    pass, the lanes innermost: each position's keeps are read row by row for all its lanes at
    once (contiguous, where the two read every lane's rows apart), and its best plain and
    Sorceress keeps found once for both. Every lane makes the same comparisons as in the two,
    in the same order of the keeps (a maximum keeps the first largest, the chosen keep is the
    first within `tol`, a margin is a least value): the same bits."""
    n_fo = pairs_ptr.shape[0] - 1
    width = q.shape[2]
    half = tol * 0.5
    best_n = np.empty(width)
    best_s = np.empty(width)
    m = np.empty(width)
    margin = np.empty(width)
    chosen = np.empty(width, dtype=np.int64)
    kind = np.empty(width, dtype=np.int64)  # 0 stop, 1 plain keep, 2 the Sorceress's
    no_best = np.empty((0, 0, 0))  # the best keeps are found here, not given
    for c in range(c_lo, c_hi):
        for k in range(width):
            out[c, k] = np.inf
        for i in range(n_fo):
            if not live[i]:
                for k in range(width):
                    code[c, i, k] = -2
                    sor[c, i, k] = False
                continue
            p_lo, p_hi = pairs_ptr[i], pairs_ptr[i + 1]
            s_lo, s_hi = sor_ptr[i], sor_ptr[i + 1]
            any_n, any_s = _choose(c, i, q, q_used, u, stop_idx, can_stop, keep_ok,
                                   sorceress_ok, pairs_row, sor_row, p_lo, p_hi, s_lo, s_hi,
                                   use_sorceress, tol, no_best, no_best, best_n, best_s, m,
                                   chosen, kind)
            for k in range(width):
                code[c, i, k] = chosen[k]
                sor[c, i, k] = kind[k] == 2
                # the margin (decision_margins' comparisons)
                mk = np.inf
                if can_stop[i] and m[k] > -np.inf:
                    d = u[c, stop_idx[i], k] - m[k]
                    if abs(d) >= half:
                        e = abs(d + tol) * 0.5
                        mk = e if e < mk else mk
                if chosen[k] >= 0 and use_sorceress and best_s[k] > -np.inf \
                        and best_n[k] > -np.inf:
                    d = best_s[k] - best_n[k]
                    if abs(d) >= half:
                        e = abs(d - tol) * 0.5
                        mk = e if e < mk else mk
                margin[k] = mk
            if any_s:
                for p in range(s_lo, s_hi):
                    r = sor_row[p]
                    if sorceress_ok[r]:
                        for k in range(width):
                            if kind[k] == 2 and chosen[k] >= 0:
                                d = best_s[k] - q_used[c, r, k]
                                if d >= half:
                                    e = abs(d - tol) * 0.5
                                    margin[k] = e if e < margin[k] else margin[k]
            if any_n:
                for p in range(p_lo, p_hi):
                    r = pairs_row[p]
                    if keep_ok[r]:
                        for k in range(width):
                            if kind[k] == 1 and chosen[k] >= 0:
                                d = best_n[k] - q[c, r, k]
                                if d >= half:
                                    e = abs(d - tol) * 0.5
                                    margin[k] = e if e < margin[k] else margin[k]
            for k in range(width):
                out[c, k] = margin[k] if margin[k] < out[c, k] else out[c, k]
