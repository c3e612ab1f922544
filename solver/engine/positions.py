"""Positions and partial positions of the dice, and the roll distribution between them.

Rules-independent and built once per process (8 dice; fewer for the tests' reduced games).

A *partial position* is what stays on the table before a roll: a count per face (order
k m p s c d) of at most ``n_dice`` dice; a *position* has all ``n_dice`` of them (1287 for 8
dice). Partial positions are ordered by their number of dice, then lexicographically
descending; the positions are the last ``n_full`` of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from math import factorial

import numpy as np
from numpy.typing import NDArray

from ..rules.dice import Dice
from ..rules.rulebook import NUM_DICE, NUM_FACES

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
ObjectArray = NDArray[np.object_]
"""An array of Python objects (the exact solver's integers and fractions)."""


@dataclass(frozen=True)
class RollMatrix:
    """Row ``i`` (entries ``ptr[i]:ptr[i+1]`` of ``col``, ``prob``) lists, for rolling the
    ``n_dice - total`` missing dice from partial position ``i``, each reachable position (a
    full index) and its multinomial probability; ``rolled_skulls`` is how many skulls that
    outcome rolled and ``row`` repeats ``i``."""

    ptr: IntArray
    col: IntArray
    prob: FloatArray
    rolled_skulls: IntArray
    row: IntArray


@dataclass(frozen=True)
class Geometry:
    """Every partial position of up to `n_dice` dice and the roll distribution between them.

    ``counts[i]`` is partial position ``i``; positions are the last ``n_full`` rows, from
    ``full_offset`` on. The roll matrix (:class:`RollMatrix`, its arrays also attributes of
    the geometry: ``ptr``, ``col``, ``prob``, ``rolled_skulls``, ``row``) is built on first
    use: the kernel rolls one die at a time (:mod:`solver.engine.kernel`) and reading a table
    needs none of it; the structures' keep lists, the exact solver, the forward propagation of
    :mod:`solver.strategy.analysis` and the tests do.
    """

    n_dice: int
    counts: IntArray  # (n_partial, 6)
    total: IntArray  # (n_partial,)
    full_offset: int
    code_lut: IntArray  # base-(n_dice+1) code -> partial index

    @property
    def n_partial(self) -> int:
        return int(self.counts.shape[0])

    @property
    def n_full(self) -> int:
        return self.n_partial - self.full_offset

    @property
    def full_counts(self) -> IntArray:
        return self.counts[self.full_offset :]

    @property
    def empty(self) -> int:
        """Partial index of the empty table (the first roll)."""
        return 0

    @cached_property
    def rolls(self) -> RollMatrix:
        """The roll matrix (class doc)."""
        return _roll_matrix(self)

    @property
    def ptr(self) -> IntArray:
        return self.rolls.ptr

    @property
    def col(self) -> IntArray:
        return self.rolls.col

    @property
    def prob(self) -> FloatArray:
        return self.rolls.prob

    @property
    def rolled_skulls(self) -> IntArray:
        return self.rolls.rolled_skulls

    @property
    def row(self) -> IntArray:
        return self.rolls.row

    def code(self, counts: IntArray) -> IntArray:
        base = (self.n_dice + 1) ** np.arange(NUM_FACES, dtype=np.int64)
        return np.asarray(counts, dtype=np.int64) @ base

    def index(self, counts: Sequence[int] | IntArray) -> int:
        """Partial index of a count vector (order k m p s c d)."""
        base = self.n_dice + 1  # :meth:`code` in Python ints: the advisor asks one at a time
        code = 0
        for c in reversed(counts):
            code = code * base + int(c)
        return int(self.code_lut[code])

    def indices(self, counts: IntArray) -> IntArray:
        """Partial indices of the rows of a (n, 6) count array."""
        return self.code_lut[self.code(counts)]

    def full_index(self, dice: Dice) -> int:
        return self.index(dice.counts) - self.full_offset

    def dice(self, i: int) -> Dice:
        """The dice of partial position `i`."""
        return Dice.of(self.counts[i])


@lru_cache(maxsize=64)
def compositions(total: int, parts: int) -> tuple[tuple[int, ...], ...]:
    """All count vectors of `parts` faces summing to `total`, lexicographically descending."""
    if parts == 1:
        return ((total,),)
    return tuple((first, *rest) for first in range(total, -1, -1)
                 for rest in compositions(total - first, parts - 1))


def _levels(n_dice: int) -> list[IntArray]:
    return [np.array(compositions(d, NUM_FACES), dtype=np.int64) for d in range(n_dice + 1)]


@lru_cache(maxsize=8)
def geometry(n_dice: int = NUM_DICE) -> Geometry:
    """The rules-independent structure, built once per process (8 dice; fewer in tests)."""
    levels = _levels(n_dice)
    counts = np.concatenate(levels)
    base = (n_dice + 1) ** np.arange(NUM_FACES, dtype=np.int64)
    lut = np.full((n_dice + 1) ** NUM_FACES, -1, dtype=np.int64)
    lut[counts @ base] = np.arange(counts.shape[0])
    full_offset = counts.shape[0] - levels[n_dice].shape[0]
    return Geometry(n_dice=n_dice, counts=counts, total=counts.sum(axis=1),
                    full_offset=full_offset, code_lut=lut)


def _roll_matrix(g: Geometry) -> RollMatrix:
    n_dice = g.n_dice
    levels = _levels(n_dice)
    base = (n_dice + 1) ** np.arange(NUM_FACES, dtype=np.int64)
    fact = np.array([factorial(k) for k in range(n_dice + 1)], dtype=np.float64)
    ptr, cols, probs, skulls, rows = [0], [], [], [], []
    start = 0
    for d, level in enumerate(levels):
        r = n_dice - d
        outcomes = levels[r]
        coef = fact[r] / fact[outcomes].prod(axis=1) / 6.0**r
        n, m = level.shape[0], outcomes.shape[0]
        targets = level[:, None, :] + outcomes[None, :, :]
        cols.append((g.code_lut[targets @ base] - g.full_offset).reshape(-1))
        probs.append(np.broadcast_to(coef, (n, m)).reshape(-1))
        skulls.append(np.broadcast_to(outcomes[:, 0], (n, m)).reshape(-1))
        rows.append(np.repeat(np.arange(start, start + n), m))
        ptr.extend((ptr[-1] + m * (np.arange(n) + 1)).tolist())
        start += n
    return RollMatrix(ptr=np.array(ptr, dtype=np.int64), col=np.concatenate(cols),
                      prob=np.concatenate(probs), rolled_skulls=np.concatenate(skulls),
                      row=np.concatenate(rows))


@lru_cache(maxsize=8)
def first_roll_ways(n_dice: int = NUM_DICE) -> IntArray:
    """For each position (full index), how many of the ``6**n_dice`` ordered first rolls show
    it (the multinomial coefficient): its probability is that over ``6**n_dice``, exactly."""
    g = geometry(n_dice)
    fact = [factorial(k) for k in range(n_dice + 1)]
    ways = [fact[n_dice] // (fact[a] * fact[b] * fact[c] * fact[d] * fact[e] * fact[f])
            for a, b, c, d, e, f in g.full_counts.tolist()]
    out = np.array(ways, dtype=np.int64)
    out.flags.writeable = False
    return out
