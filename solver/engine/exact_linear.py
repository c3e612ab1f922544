"""The integer side of the exact solve (:mod:`.exact`): its tables, exact arithmetic on arrays
of Python integers over one denominator, and the block-triangular linear solve over the
integers (:func:`solve_system`, FLINT).

Everything here is exact: no float enters. An array of exact numbers is held as integer
numerators over one common denominator (``num / den``), never as one rational object per
entry: numpy adds and multiplies arrays of Python integers at about 25 ns an entry, where
:class:`fractions.Fraction` (and FLINT's ``fmpq`` alike) spends a microsecond on each
entry's reduction. The denominators are kept at the least common denominator of what they
hold (:func:`least_denominator`), so the integers stay small (about 100 bits for a turn).
The keys of :func:`tie_key` order keeps as the policy's tie-break does (the most dice, then
the largest partial index), so that a maximum over them is also the policy's choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import factorial, gcd, lcm
from typing import cast

import numpy as np

from .arrays import bust_probability
from .model import TurnModel
from .positions import BoolArray, FloatArray, IntArray, ObjectArray, geometry
from .rows import TurnStructure

NEG = float("-inf")
"""No legal move of that kind (compares below every integer)."""
IDX_BITS, DICE_BITS = 12, 4
KEY_SHIFT = IDX_BITS + DICE_BITS


# --------------------------------------------------------------------------------------------
# The tables of the exact solve (integers; cached per structure)
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def roll_ways(n_dice: int) -> IntArray:
    """For every entry of the geometry's roll matrix, how many of the ``6**r`` ordered
    outcomes of rolling the ``r`` missing dice show it (the multinomial coefficient)."""
    g = geometry(n_dice)
    outcome = g.full_counts[g.col] - g.counts[g.row]
    fact = np.array([factorial(k) for k in range(n_dice + 1)], dtype=np.int64)
    ways: IntArray = fact[n_dice - g.total[g.row]] // np.prod(fact[outcome], axis=1)
    ways.flags.writeable = False
    return ways


@dataclass(frozen=True)
class ExactTables:
    """Integer tables of one structure and world, as the exact solve reads them."""

    level: IntArray
    """(n_rows,): dice on the table of each row."""
    pow6_level: ObjectArray
    """(n_rows, 1): ``6**level`` (Python integers)."""
    bust_ways: ObjectArray
    """(n_rows, 1): of the ``6**r`` ordered outcomes of the row's roll, how many bust."""
    keep_ok: BoolArray
    sorceress_ok: BoolArray
    live: BoolArray
    """(n_fo,): the turn goes on at the full orbit (position)."""
    can_stop: BoolArray


def exact_tables(model: TurnModel, st: TurnStructure, world: int) -> ExactTables:
    key = f"exact-tables-{world}"
    cached = model.cache.get(key)
    if cached is None:
        level = st.counts.sum(axis=1)
        full = st.partial[st.full_row] - model.geometry.full_offset
        cached = model.cache[key] = ExactTables(
            level=level,
            pow6_level=(6 ** level.astype(np.int64)).astype(object).reshape(-1, 1),
            bust_ways=bust_probability(model, st, world).astype(object).reshape(-1, 1),
            keep_ok=model.keep_legal[world][st.partial],
            sorceress_ok=model.sorceress_legal[st.partial],
            live=model.live[world][full],
            can_stop=model.can_stop[world][full],
        )
    return cached


def least_denominator(num: ObjectArray, den: int) -> int:
    """The least common denominator of the exact numbers ``num / den`` (integers over a
    positive `den`): ``den / gcd(den, num...)``, prime by prime the largest power left in a
    denominator once each fraction is reduced."""
    return den // gcd(den, *num.reshape(-1).tolist())


def on_denominator(num: ObjectArray, den: int, new: int) -> ObjectArray:
    """The exact numbers ``num / den`` as integers over `new` (a new array), `new` a multiple
    of their least common denominator (:func:`least_denominator`)."""
    if new % den == 0:
        return num * (new // den)  # type: ignore[no-any-return]
    g = gcd(den, *num.reshape(-1).tolist())
    least = den // g
    if new % least:
        raise ValueError(f"{new} is not a multiple of the denominator {least}")
    return (num // g) * (new // least)  # type: ignore[no-any-return]


def doubles_over(values: FloatArray) -> tuple[ObjectArray, int]:
    """Doubles as their exact values, integers over their least common denominator (a power
    of two): ``(num, den)``, each ``num / den`` the double's exact value as
    ``Fraction(double)`` gives it. Vectorised: ``frexp`` splits each double into a 53-bit
    integer and a power of two."""
    a = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise ValueError("only finite doubles have an exact value")
    if np.all(np.abs(a) < 2.0**62) and np.array_equal(a, np.trunc(a)):
        return a.astype(np.int64).astype(object), 1  # integers: the usual payoffs
    mantissa, exponent = np.frexp(a)
    ints = np.ldexp(mantissa, 53).astype(np.int64)  # a = ints * 2**(exponent - 53), exactly
    power = exponent.astype(np.int64) - 53
    nonzero = ints != 0
    k = max(0, -int(power[nonzero].min())) if nonzero.any() else 0
    shift = np.where(nonzero, power + k, 0)  # >= 0: a = (ints << shift) / 2**k
    num = np.left_shift(ints.astype(object), shift.astype(object))
    den = 1 << k
    g = gcd(den, *num.reshape(-1).tolist())
    return num // g, den // g


def tie_key(t: ObjectArray, level: IntArray, partial: IntArray) -> ObjectArray:
    """Integers ordered as (T, dice kept, partial index): their maximum is the best keep under
    the tie-break rule (the most dice, then the largest partial index)."""
    low = (level.astype(np.int64) << IDX_BITS) | partial.astype(np.int64)
    return (t << KEY_SHIFT) + low.astype(object)  # type: ignore[no-any-return]


def best_subkeep(st: TurnStructure, key: ObjectArray, ok: BoolArray, s: int,
                  n_dice: int) -> ObjectArray:
    """For every row of skull block `s`: the largest key of a legal sub-keep (the row itself
    and every sub-multiset of its non-skull dice), by the kernel's recursion
    ``M(x) = max(key(x) if legal, max_f M(x - e_f))``, fewest dice first; -inf if none."""
    m = np.full(st.n_rows + 1, NEG, dtype=object)
    for d in range(s, n_dice + 1):
        lo, hi = int(st.level_lo[s, d]), int(st.level_lo[s, d + 1])
        if hi <= lo:
            continue
        cur = np.where(ok[lo:hi], key[lo:hi], NEG)
        for f in range(st.parent.shape[1]):
            cur = np.maximum(cur, m[st.parent[lo:hi, f]])
        m[lo:hi] = cur
    return m


def strong_components(m: int, owner: IntArray, target: IntArray) -> tuple[int, IntArray]:
    """The strongly connected components of the graph of `m` nodes and edges ``owner[e] ->
    target[e]``: (how many, each node's component). Tarjan's algorithm, iterative, the nodes
    and each node's edges in their order (the components are numbered as they close: a
    component's successors before it).

    Here rather than scipy's ``connected_components``: the graphs of a turn are small (at most
    a few hundred positions, ten thousand edges: a millisecond or two), and scipy's sparse
    graphs cost `sabords solve` a sixth of a second to import in every worker.
    (`tests/test_exact.py` checks it against scipy's on random graphs.)"""
    order = np.argsort(owner, kind="stable")
    adj: list[int] = target[order].tolist()
    ptr: list[int] = np.searchsorted(owner[order], np.arange(m + 1)).tolist()
    index = [-1] * m
    low = [0] * m
    onstack = [False] * m
    comp = [0] * m
    stack: list[int] = []
    n = counter = 0
    for root in range(m):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        onstack[root] = True
        work = [(root, ptr[root])]
        while work:
            v, i = work[-1]
            end = ptr[v + 1]
            while i < end:
                w = adj[i]
                i += 1
                if index[w] == -1:  # descend into w; come back to v's edge i
                    work[-1] = (v, i)
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    onstack[w] = True
                    work.append((w, ptr[w]))
                    break
                if onstack[w] and index[w] < low[v]:
                    low[v] = index[w]
            else:  # every edge of v seen
                work.pop()
                if low[v] == index[v]:  # v roots a component: pop it
                    while True:
                        w = stack.pop()
                        onstack[w] = False
                        comp[w] = n
                        if w == v:
                            break
                    n += 1
                if work:
                    u = work[-1][0]
                    if low[v] < low[u]:
                        low[u] = low[v]
    return n, np.array(comp, dtype=np.int64)


_INVERSES: dict[bytes, tuple[ObjectArray, int]] = {}
"""The exact inverses of the components' matrices met so far (few: 35 distinct matrices in
the 1960 components of the 12 default cards' systems)."""


def exact_inverse(k: int, entries: IntArray) -> tuple[ObjectArray, int]:
    """The inverse of the k x k integer matrix of `entries` (row-major), exactly, by FLINT
    (``fmpz_mat.inv``): ``(N, d)``, the inverse ``N / d`` with N a (k, k) array of Python
    integers and d > 0 (kept for the matrices met again)."""
    key = entries.astype(np.int64).tobytes()
    found = _INVERSES.get(key)
    if found is None:
        import flint

        inv = cast("flint.fmpq_mat", flint.fmpz_mat(k, k, entries.tolist()).inv())
        num, d = inv.numer_denom()
        found = (np.array([int(v) for v in num.entries()], dtype=object).reshape(k, k),
                 int(d))
        if len(_INVERSES) >= 4096:
            _INVERSES.clear()
        _INVERSES[key] = found
    return found


def solve_system(diag: IntArray, owner: IntArray, target: IntArray, ways: IntArray,
                 rhs: ObjectArray, den: int) -> tuple[ObjectArray, int]:
    """The exact solution X ((m, B)) of
    ``diag[i] X[i] - sum over edges e from i of ways[e] X[target[e]] = rhs[i] / den``
    (edges ``owner[e] -> target[e]``, integers; `rhs` Python integers), for a strictly
    diagonally dominant system: ``(num, x_den)``, X = num / x_den, `x_den` the least common
    multiple of `den` and the denominators of X.

    The system is block triangular: its strongly connected components
    (:func:`strong_components`) are solved from the sinks up, a level of the condensation at a
    time: the right side of a level collects the levels below it on their common denominator
    (one sum of products per unknown), then its components of k unknowns are solved all at
    once, each as its matrix's exact inverse (:func:`exact_inverse`, FLINT; few distinct
    matrices) times its right side, a lone unknown by a division, each reduced to its least
    common denominator. Every component's matrix is laid out at once, in one flat buffer."""
    m, b = rhs.shape
    n_comp, comp = strong_components(m, owner, target)
    inner = comp[owner] == comp[target]
    # depth of each component in the condensation: 0 for a sink, else 1 + its successors'
    cu, cv = comp[owner[~inner]], comp[target[~inner]]
    depth = np.zeros(n_comp, dtype=np.int64)
    for _ in range(n_comp + 1):
        new = depth.copy()
        np.maximum.at(new, cu, depth[cv] + 1)
        if np.array_equal(new, depth):
            break
        depth = new
    level_of = depth[comp]
    n_levels = int(depth.max(initial=0)) + 1
    # the components' members, and their matrices row-major in one buffer
    sizes = np.bincount(comp, minlength=n_comp)
    by_comp = np.argsort(comp, kind="stable")
    comp_lo = np.concatenate(([0], np.cumsum(sizes)))
    local = np.empty(m, dtype=np.int64)
    local[by_comp] = np.arange(m) - np.repeat(comp_lo[:-1], sizes)
    mat_lo = np.concatenate(([0], np.cumsum(sizes * sizes)))
    a = np.zeros(int(mat_lo[-1]), dtype=np.int64)
    e_in = np.flatnonzero(inner)
    c_in = comp[owner[e_in]]
    np.add.at(a, mat_lo[c_in] + local[owner[e_in]] * sizes[c_in] + local[target[e_in]],
              -ways[e_in])
    a[mat_lo[comp] + local * sizes[comp] + local] += diag
    # the unknowns in level order (`at`: each one's place), and each level's plan: its rows,
    # the edges from them into the levels below (by owner: one sum of products each), and
    # its components by size (the lone unknowns: a division; the others: their exact
    # inverse, few distinct matrices)
    node_order = np.argsort(level_of, kind="stable")
    node_at = np.searchsorted(level_of[node_order], np.arange(n_levels + 1))
    at = np.empty(m, dtype=np.int64)
    at[node_order] = np.arange(m)
    e_cross = np.flatnonzero(~inner)
    e_cross = e_cross[np.argsort(at[owner[e_cross]], kind="stable")]
    edge_at = np.searchsorted(level_of[owner[e_cross]], np.arange(n_levels + 1))
    comp_order = np.argsort(depth * (m + 1) + sizes, kind="stable")  # by level, then size
    comp_at = np.searchsorted(depth[comp_order], np.arange(n_levels + 1))
    ways_obj = ways.astype(object)[:, None]
    rhs_at = rhs[node_order]
    plans = []
    for lv in range(n_levels):
        lo = int(node_at[lv])
        e = e_cross[edge_at[lv]:edge_at[lv + 1]]
        owners = at[owner[e]] - lo
        first = np.flatnonzero(np.concatenate(([True], owners[1:] != owners[:-1])))
        first = first[:owners.shape[0]]  # none without edges
        groups = []
        comps = comp_order[comp_at[lv]:comp_at[lv + 1]]
        size = sizes[comps]  # ascending (np.unique would import numpy.ma: 20 ms)
        cut = np.flatnonzero(np.concatenate(([True], size[1:] != size[:-1], [True])))
        for i, j in zip(cut[:-1].tolist(), cut[1:].tolist(), strict=True):
            cs, k = comps[i:j], int(size[i])
            rows = at[by_comp[comp_lo[cs][:, None] + np.arange(k)]] - lo  # (count, k)
            if k == 1:
                inv = None
                dets = a[mat_lo[cs]].astype(object)
            else:
                inverses = [exact_inverse(k, a[mat_lo[c]:mat_lo[c + 1]]) for c in cs.tolist()]
                inv = np.stack([n for n, _ in inverses])
                dets = np.array([d for _, d in inverses], dtype=object)
            groups.append((rows, inv, dets))
        plans.append((lo, int(node_at[lv + 1]), at[target[e]], ways_obj[e], owners[first],
                      first, groups))
    x_at = np.zeros((m, b), dtype=object)  # in level order
    x_den = den
    for lo, hi, targets, w, owners, first, groups in plans:
        side = rhs_at[lo:hi] * (x_den // den)
        if targets.shape[0]:
            side[owners] += np.add.reduceat(x_at[targets] * w, first, axis=0)
        rows_, nums_, dens_ = [], [], []
        for rows, inv, dets in groups:
            count, k = rows.shape
            x = side[rows] if inv is None else np.matmul(inv, side[rows])  # (count, k, b)
            d = dets * x_den  # x / d: each component's solution
            g = np.gcd(np.gcd.reduce(x.reshape(count, k * b), axis=1), d)
            rows_.append(rows.reshape(-1))
            nums_.append((x // g[:, None, None]).reshape(-1, b))
            dens_.append(np.repeat(d // g, k))
        dens = np.concatenate(dens_)
        new_den = lcm(x_den, *set(dens.tolist()))
        if new_den != x_den:  # the levels below, on the new denominator
            x_at[:lo] *= new_den // x_den
            x_den = new_den
        x_at[lo + np.concatenate(rows_)] = np.concatenate(nums_) * (x_den // dens)[:, None]
    x_num = x_at[at]
    return x_num, x_den
