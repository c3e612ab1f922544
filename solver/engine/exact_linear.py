"""The integer side of the exact solve (:mod:`.exact`): its tables, exact arithmetic on arrays
of Python integers and fractions, and the block-triangular linear solve over the integers
(:func:`solve_system`, FLINT).

Everything here is exact: no float enters. The keys of :func:`tie_key` order keeps as the
policy's tie-break does (the most dice, then the largest partial index), so that a maximum over
them is also the policy's choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import factorial, lcm
from typing import cast

import numpy as np

from .arrays import bust_probability
from .model import TurnModel
from .positions import BoolArray, IntArray, ObjectArray, geometry
from .rows import TurnStructure

"""Arrays of Python :class:`~fractions.Fraction` or ``int`` (exact numbers)."""

NEG = float("-inf")
"""No legal move of that kind (compares below every integer and fraction)."""
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
            pow6_level=np.array([[6**int(d)] for d in level.tolist()], dtype=object)
            .reshape(-1, 1),
            bust_ways=np.array(bust_probability(model, st, world).tolist(), dtype=object)
            .reshape(-1, 1),
            keep_ok=model.keep_legal[world][st.partial],
            sorceress_ok=model.sorceress_legal[st.partial],
            live=model.live[world][full],
            can_stop=model.can_stop[world][full],
        )
    return cached


def ints_on(values: ObjectArray, den: int) -> ObjectArray:
    """Fractions (or ints) times `den`, as Python integers (`den` is a common multiple of
    their denominators)."""
    out = np.empty(values.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(values.reshape(-1).tolist()):
        flat[i] = v.numerator * (den // v.denominator)
    return out


def common_denominator(values: ObjectArray) -> int:
    """The least common denominator of an array of fractions (1 if empty)."""
    return lcm(1, *{v.denominator for v in values.reshape(-1).tolist()})


def fractions_over(nums: ObjectArray, den: int) -> ObjectArray:
    """``nums / den`` as an array of fractions."""
    out = np.empty(nums.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(nums.reshape(-1).tolist()):
        flat[i] = Fraction(v, den)
    return out


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


def solve_system(diag: IntArray, owner: IntArray, target: IntArray, ways: IntArray,
                 rhs: ObjectArray, den: int) -> ObjectArray:
    """The exact solution X (fractions, (m, B)) of
    ``diag[i] X[i] - sum over edges e from i of ways[e] X[target[e]] = rhs[i] / den``
    (edges ``owner[e] -> target[e]``, integers), for a strictly diagonally dominant system.

    The system is block triangular: its strongly connected components
    (:func:`strong_components`) are solved from the sinks up, a level of the condensation at a
    time, each component by FLINT's ``fmpz_mat.solve`` over the integers (the right side of a
    level collects the levels below it on one common denominator)."""
    import flint

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
    by_comp = np.argsort(comp, kind="stable")
    comp_lo = np.searchsorted(comp[by_comp], np.arange(n_comp + 1))
    e_inner = np.flatnonzero(inner)
    e_inner = e_inner[np.argsort(comp[owner[e_inner]], kind="stable")]
    inner_lo = np.searchsorted(comp[owner[e_inner]], np.arange(n_comp + 1))
    local = np.zeros(m, dtype=np.int64)
    local[by_comp] = np.arange(m) - np.repeat(comp_lo[:-1], np.diff(comp_lo))
    x_den = den  # the solved values are x_num / x_den
    x_num = np.zeros((m, b), dtype=object)
    out = np.empty((m, b), dtype=object)
    e_cross = np.flatnonzero(~inner)
    for lv in range(int(depth.max(initial=0)) + 1):
        members = np.flatnonzero(level_of == lv)
        # the right side on x_den: rhs and the edges into the levels solved
        acc = np.zeros((m, b), dtype=object)
        e = e_cross[level_of[owner[e_cross]] == lv]
        if e.shape[0]:
            np.add.at(acc, owner[e], x_num[target[e]] * ways[e].astype(object)[:, None])
        side = rhs[members] * (x_den // den) + acc[members]
        solved: list[tuple[IntArray, ObjectArray]] = []
        pos = {int(i): k for k, i in enumerate(members.tolist())}
        for c in np.unique(comp[members]).tolist():
            mem = by_comp[comp_lo[c]:comp_lo[c + 1]]
            k = mem.shape[0]
            ee = e_inner[inner_lo[c]:inner_lo[c + 1]]
            a = np.zeros((k, k), dtype=np.int64)
            np.add.at(a, (local[owner[ee]], local[target[ee]]), -ways[ee])
            a[np.arange(k), np.arange(k)] += diag[mem]
            r = side[[pos[int(i)] for i in mem.tolist()]]
            if k == 1:
                vals = np.array([[Fraction(v, int(a[0, 0]) * x_den) for v in r[0].tolist()]],
                                dtype=object)
            else:
                sol = cast("flint.fmpq_mat", flint.fmpz_mat(k, k, a.reshape(-1).tolist()).solve(
                    flint.fmpz_mat(k, b, r.reshape(-1).tolist())))
                num, d = sol.numer_denom()
                vals = fractions_over(np.array([int(v) for v in num.entries()], dtype=object)
                                  .reshape(k, b), int(d) * x_den)
            solved.append((mem, vals))
        for mem, vals in solved:
            out[mem] = vals
        new_den = lcm(x_den, *(common_denominator(vals) for _, vals in solved))
        x_num *= new_den // x_den
        x_den = new_den
        for mem, vals in solved:
            x_num[mem] = ints_on(vals, x_den)
    return out
