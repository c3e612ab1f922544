"""The engine's numbers, without numpy: the worlds of a turn, the policy's codes, the tie
tolerance, and where a partial position sits in the engine's order.

A reader of a solved turn (the advisor answering from a table, :mod:`solver.tables.turn`
checking one) needs these and nothing of the kernel: this module imports no numpy, so that a
points answer does not either (the advisor's cold start, `make bench`). The engine's modules
take them from here (:mod:`.positions`, :mod:`.model`, :mod:`.results`).

**Partial positions** (:mod:`.positions`): a count per face (order k m p s c d) of at most
``n_dice`` dice, ordered by their number of dice, then lexicographically descending; the
positions (all ``n_dice`` dice) are the last :func:`n_full` of them. :func:`partial_index`
is the rank of a count vector in that order, computed (binomial coefficients), not looked up.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import comb

from ..rules.rulebook import NUM_DICE, NUM_FACES, Card

USED, UNUSED = 0, 1
"""Worlds: the Sorceress spent (or no Sorceress card), or her reroll still available."""
WORLD_NAMES = ("used", "unused")

STOP = -1
"""Policy code for stopping; a keep is coded by its row (or its partial index outside the
kernel); NO_MOVE where nothing is decided (the turn is over)."""
NO_MOVE = -2
TIE_TOL = 1e-11
"""Moves whose values differ by less than this are ties for the policy
(:mod:`solver.engine.solve`, Ties). It is far below the certified bound, so a tie-broken move
loses at most TIE_TOL / (1 - BETA), and far above the rounding of the arithmetic, so the policy
is stable to the last bits. Here, beside the policy codes, for the readers of a solution that
rank its moves as the policy does (:mod:`solver.advice.advisor`)."""


def card_worlds(card: Card) -> tuple[int, ...]:
    """The worlds of a card's turn, in the order they are solved: ``used`` only, or ``used``
    then ``unused`` for the Sorceress (her reroll still to come)."""
    return (USED, UNUSED) if card.sorceress else (USED,)


def multisets(dice: int, faces: int = NUM_FACES) -> int:
    """How many count vectors of `faces` faces sum to `dice`."""
    return comb(dice + faces - 1, faces - 1)


@lru_cache(maxsize=16)
def _level_offsets(n_dice: int) -> tuple[int, ...]:
    """The partial index of the first position of each number of dice, 0..n_dice + 1."""
    out = [0]
    for d in range(n_dice + 1):
        out.append(out[-1] + multisets(d))
    return tuple(out)


def n_partial(n_dice: int = NUM_DICE) -> int:
    """How many partial positions there are (3003 for 8 dice)."""
    return _level_offsets(n_dice)[-1]


def n_full(n_dice: int = NUM_DICE) -> int:
    """How many positions of all `n_dice` dice there are (1287 for 8 dice)."""
    return multisets(n_dice)


def partial_index(counts: Sequence[int], n_dice: int = NUM_DICE) -> int:
    """The partial index of a count vector (order k m p s c d) of at most `n_dice` dice.

    Within its number of dice ``d``, the vectors run lexicographically descending: a vector's
    rank is the number of vectors of ``d`` dice before it, those with a larger first count at
    the first face where they differ. (Remembered: an advice asks it of every option, for
    every seat.)"""
    return _partial_index(tuple(counts), n_dice)


@lru_cache(maxsize=16384)
def _partial_index(counts: tuple[int, ...], n_dice: int) -> int:
    total = sum(counts)
    if total > n_dice or len(counts) != NUM_FACES or min(counts) < 0:
        raise ValueError(f"{tuple(counts)} is not a partial position of {n_dice} dice")
    rank, left = 0, total
    for face, c in enumerate(counts[:-1]):
        rest = NUM_FACES - face - 1  # faces after this one
        # vectors with a larger count on this face: count a in (c, left], the rest on `rest`
        for a in range(c + 1, left + 1):
            rank += multisets(left - a, rest)
        left -= c
    return _level_offsets(n_dice)[total] + rank


def full_index(counts: Sequence[int], n_dice: int = NUM_DICE) -> int:
    """The full index (among the positions only) of a count vector of all `n_dice` dice."""
    if sum(counts) != n_dice:
        raise ValueError(f"{tuple(counts)} is not a position of {n_dice} dice")
    return partial_index(counts, n_dice) - _level_offsets(n_dice)[n_dice]


__all__ = [
    "NO_MOVE",
    "STOP",
    "TIE_TOL",
    "UNUSED",
    "USED",
    "WORLD_NAMES",
    "card_worlds",
    "full_index",
    "multisets",
    "n_full",
    "n_partial",
    "partial_index",
]
