"""The rows the turn kernel works on: partial positions (or their orbits) and their links.

A *row* is a partial position ``(s, K)`` with at most :attr:`TurnStructure.max_skulls` skull
dice (beyond that every position is over), or, for the game's batched solves, the orbit of one
under the face permutations that leave the card's rules unchanged
(:func:`solver.engine.model.symmetries`): a value is the same on every member of an orbit,
so one representative stands for all.

Rows are ordered by skull dice, then by number of dice, then by partial index: the rows of
``s`` skull dice are ``block_lo[s]:block_hi[s]`` and their positions (all the dice on the table)
``full_lo[s]:block_hi[s]``, the last of the block. Position rows are also numbered on their own,
skull block by skull block: *full orbits* ``fo_lo[s]:fo_lo[s + 1]``, at rows ``full_row``.

Links (row ``n_rows`` is a sentinel):

- ``child[r, f]``: the row of ``(s, K)`` plus one die showing face ``f``; a skull beyond
  ``max_skulls`` leads to the sentinel (that roll is over, a bust);
- ``parent[r, f - 1]``: the row of ``(s, K)`` less one die of non-skull face ``f``;
- ``sor_src[i]``: for the full orbit ``(s, M)``, the row ``(s - 1, M)`` left on the table when
  the Sorceress picks up one skull die;
- ``pairs``: for each full orbit ``(s, M)``, every keep ``(s, K)``, ``K`` a proper
  sub-multiset of ``M``, and ``sor_pairs`` every Sorceress keep ``(s - 1, K)``, ``K ⊆ M``,
  each list ordered by the tie-break of the policy: the most dice first, then the largest
  partial index (the order of :data:`solver.engine.solve.TIE_TOL`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from ..rules.rulebook import NUM_FACES
from .model import TurnModel, symmetries
from .positions import FloatArray, Geometry, IntArray, first_roll_ways, geometry


@dataclass(frozen=True)
class TurnStructure:
    """Rows, their links and the first-roll probabilities of one turn model (see module doc)."""

    n_dice: int
    max_skulls: int
    symmetric: bool
    """Rows are orbits under the model's symmetries (else one row per partial position)."""
    n_symmetries: int
    n_rows: int
    counts: IntArray
    """(n_rows, 6): the counts of each row's representative."""
    partial: IntArray
    """(n_rows,): partial index of each row's representative."""
    row_of_partial: IntArray
    """(n_partial,): the row of every partial position (``n_rows`` beyond ``max_skulls``)."""
    block_lo: IntArray
    full_lo: IntArray
    block_hi: IntArray
    child: IntArray
    parent: IntArray
    full_row: IntArray
    """(n_fo,): the row of each full orbit."""
    fo_lo: IntArray
    """(max_skulls + 2,): full orbits of s skull dice are ``fo_lo[s]:fo_lo[s + 1]``."""
    level_lo: IntArray
    """(max_skulls + 1, n_dice + 2): rows of s skull dice and d dice in all are
    ``level_lo[s, d]:level_lo[s, d + 1]`` (empty for d < s)."""
    full_of_position: IntArray
    """(n_full,): the full orbit of every position (-1 beyond ``max_skulls``)."""
    sor_src: IntArray
    pairs_ptr: IntArray
    pairs_row: IntArray
    pairs_partial: IntArray
    """The partial index of the keep itself (a sub-multiset of the orbit's representative)."""
    sor_ptr: IntArray
    sor_row: IntArray
    sor_partial: IntArray
    first_prob: FloatArray
    """(n_fo,): probability of each full orbit as the first roll (exact, then rounded)."""
    first_ways: IntArray
    """(n_fo,): of the ``6**n_dice`` ordered first rolls, how many show the full orbit."""
    beyond_ways: IntArray
    """(n_dice + 1,): how many ordered first rolls show s skull dice with s beyond
    ``max_skulls`` (0 up to it): those rolls end the turn at once."""
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Derived index arrays of the kernel's implementations, filled on first use."""

    @property
    def n_fo(self) -> int:
        return int(self.full_row.shape[0])

    def layer(self, s: int) -> tuple[int, int]:
        """The full orbits of skull dice s: ``lo:hi``."""
        return int(self.fo_lo[s]), int(self.fo_lo[s + 1])


def structure(model: TurnModel, *, symmetric: bool = False) -> TurnStructure:
    """The kernel's rows for `model`: one per partial position, or orbits (cached). Without
    symmetries the rows depend on the dice and the most skull dice of a live position only,
    so the cards that share these share one structure (the same object)."""
    key = f"structure-{symmetric}"
    cached = model.cache.get(key)
    if cached is None:
        max_skulls = max(model.max_live_skulls(), 0)
        if symmetric:
            cached = _build(model.geometry, symmetries(model), max_skulls, symmetric=True)
        else:
            cached = _plain(model.n_dice, max_skulls)
        model.cache[key] = cached
    return cached


@lru_cache(maxsize=16)
def _plain(n_dice: int, max_skulls: int) -> TurnStructure:
    g = geometry(n_dice)
    return _build(g, np.arange(g.n_partial)[None, :], max_skulls, symmetric=False)


def _build(g: Geometry, perms: IntArray, max_skulls: int, *, symmetric: bool) -> TurnStructure:
    n_dice = g.n_dice
    rep = perms.min(axis=0)  # the smallest partial index of each orbit is its representative
    skull_dice = g.counts[:, 0]
    is_rep = np.zeros(g.n_partial, dtype=bool)  # (np.unique would import numpy.ma: 40 ms)
    is_rep[rep[skull_dice <= max_skulls]] = True
    reps = np.flatnonzero(is_rep)
    reps = reps[np.lexsort((reps, g.total[reps], skull_dice[reps]))]
    n_rows = int(reps.shape[0])
    row_of_rep = np.full(g.n_partial, n_rows, dtype=np.int64)
    row_of_rep[reps] = np.arange(n_rows)
    row_of_partial = row_of_rep[rep]
    counts = g.counts[reps]
    skulls, level = counts[:, 0], g.total[reps]
    block_lo = np.searchsorted(skulls, np.arange(max_skulls + 1)).astype(np.int64)
    block_hi = np.searchsorted(skulls, np.arange(max_skulls + 1), side="right").astype(np.int64)
    full_lo = np.array([block_lo[s] + np.searchsorted(level[block_lo[s]:block_hi[s]], n_dice)
                        for s in range(max_skulls + 1)], dtype=np.int64)
    child = np.full((n_rows, NUM_FACES), n_rows, dtype=np.int64)
    parent = np.full((n_rows, NUM_FACES - 1), n_rows, dtype=np.int64)
    for f in range(NUM_FACES):
        unit = np.zeros(NUM_FACES, dtype=np.int64)
        unit[f] = 1
        up = counts + unit
        ok = up.sum(axis=1) <= n_dice
        child[ok, f] = row_of_partial[g.indices(up[ok])]
        if f:
            down = counts - unit
            ok = down[:, f] >= 0
            parent[ok, f - 1] = row_of_partial[g.indices(down[ok])]
    level_lo = np.array([block_lo[s] + np.searchsorted(level[block_lo[s]:block_hi[s]],
                                                       np.arange(n_dice + 2))
                         for s in range(max_skulls + 1)], dtype=np.int64)
    full_row = np.concatenate([np.arange(full_lo[s], block_hi[s]) for s in range(max_skulls + 1)])
    fo_lo = np.concatenate([[0], np.cumsum(block_hi - full_lo)]).astype(np.int64)
    full_of_position = np.full(g.n_full, -1, dtype=np.int64)
    fo_of_row = np.full(n_rows + 1, -1, dtype=np.int64)
    fo_of_row[full_row] = np.arange(full_row.shape[0])
    inside = skull_dice[g.full_offset:] <= max_skulls
    full_of_position[inside] = fo_of_row[row_of_partial[g.full_offset:][inside]]
    sor_src = np.full(full_row.shape[0], n_rows, dtype=np.int64)
    fc = counts[full_row].copy()
    has = fc[:, 0] >= 1
    fc[has, 0] -= 1
    sor_src[has] = row_of_partial[g.indices(fc[has])]
    pairs = _pairs(g, counts[full_row], row_of_partial, sorceress=False)
    sor_pairs = _pairs(g, counts[full_row], row_of_partial, sorceress=True)
    ways = first_roll_ways(n_dice)
    first_ways = np.zeros(full_row.shape[0], dtype=np.int64)
    inside_fo = full_of_position >= 0
    np.add.at(first_ways, full_of_position[inside_fo], ways[inside_fo])  # integers: exact
    beyond_ways = np.zeros(n_dice + 1, dtype=np.int64)
    np.add.at(beyond_ways, skull_dice[g.full_offset:][~inside_fo], ways[~inside_fo])
    total = 6**n_dice
    return TurnStructure(
        n_dice=n_dice,
        max_skulls=max_skulls,
        symmetric=symmetric,
        n_symmetries=int(perms.shape[0]),
        n_rows=n_rows,
        counts=counts,
        partial=reps,
        row_of_partial=row_of_partial,
        block_lo=block_lo,
        full_lo=full_lo,
        block_hi=block_hi,
        child=child,
        parent=parent,
        full_row=full_row.astype(np.int64),
        fo_lo=fo_lo,
        level_lo=level_lo,
        full_of_position=full_of_position,
        sor_src=sor_src,
        pairs_ptr=pairs[0], pairs_row=pairs[1], pairs_partial=pairs[2],
        sor_ptr=sor_pairs[0], sor_row=sor_pairs[1], sor_partial=sor_pairs[2],
        first_prob=np.array([n / total for n in first_ways.tolist()]),  # correctly rounded
        first_ways=first_ways,
        beyond_ways=beyond_ways,
    )


def _pairs(g: Geometry, full: IntArray, row_of_partial: IntArray,
           *, sorceress: bool) -> tuple[IntArray, IntArray, IntArray]:
    """For each position (s, M) of `full` (counts): its keeps, ordered most dice first, then
    by partial index descending: plain keeps (s, K), K a proper sub-multiset of M; with
    `sorceress`, (s - 1, K) for every K ⊆ M (none when s = 0).

    The pairs K ⊆ M are the skull-free outcomes of the roll matrix: M = K + o."""
    pos = g.indices(full) - g.full_offset
    order_of = np.full(g.n_full, -1, dtype=np.int64)
    order_of[pos] = np.arange(pos.shape[0])
    sel = g.rolled_skulls == 0
    keep, y = g.row[sel], g.col[sel]
    mine = order_of[y] >= 0
    keep, y = keep[mine], order_of[y[mine]]
    if sorceress:
        ok = g.counts[keep, 0] >= 1
        keep, y = keep[ok], y[ok]
        shifted = g.counts[keep].copy()
        shifted[:, 0] -= 1
        keep = g.indices(shifted)
    else:
        ok = g.total[keep] < g.n_dice  # a proper sub-multiset: at least one die is rolled
        keep, y = keep[ok], y[ok]
    order = np.lexsort((-keep, -g.total[keep], y))
    keep, y = keep[order], y[order]
    ptr = np.searchsorted(y, np.arange(pos.shape[0] + 1)).astype(np.int64)
    return ptr, row_of_partial[keep].astype(np.int64), keep.astype(np.int64)
