"""The win policy's moves as codes, and from an orbit's move to the dice kept at an actual
position (what whole simulated games play, :mod:`.winplay`).

The moves of a turn are chosen on the orbits of its positions (the representative position of
each orbit of the card's symmetries, :func:`solver.engine.structure` with ``symmetric=True``),
by the kernel's one tie-break rule (:func:`solver.engine.kernel.best_moves` with
:data:`solver.engine.TIE_TOL`: stop, then no Sorceress, then the most dice). A code names, per
card and world, a move for every full orbit: :data:`~solver.engine.STOP`,
:data:`~solver.engine.NO_MOVE`, or a keep as its position in the orbit's keep list
(``pairs``), or, with :data:`SORCERESS_CODE` added, in its Sorceress list (``sor_pairs``).
:func:`actual_keep` turns it into the dice a player keeps from an actual position of the
orbit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..engine import BoolArray, IntArray
from ..engine.model import symmetries
from ..rules.rulebook import Rules
from .model import game_model

SORCERESS_CODE = 1 << 14
"""Added to a code that names a Sorceress keep (codes fit an int16)."""


@dataclass(frozen=True)
class OrbitMaps:
    """For one card: the full orbit of every position, and the face permutation that takes the
    orbit's representative's keeps to the position's: the partial index of the keep `k` of
    the representative is ``inverse[which[position], k]`` at the position. (Before, that map
    was stored for every position: 1287 x 3003 integers a card, 340 MB and 2.0 s for the
    eleven cards of a game.)"""

    orbit: IntArray
    """(n_full,): the full orbit of each position (-1 beyond the structure)."""
    which: IntArray
    """(n_full,): the row of :attr:`inverse` for each position."""
    inverse: IntArray
    """(n_symmetries, n_partial): partial index maps from the representative's sub-multisets to
    a position's (each a permutation of the faces)."""


@lru_cache(maxsize=32)
def _orbit_maps(card: str, rules: Rules, n_dice: int) -> OrbitMaps:
    gm = game_model(rules, n_dice)
    ct = gm.cards[card]
    g = ct.model.geometry
    perms = symmetries(ct.model)
    inverse = np.argsort(perms, axis=1)
    pos = np.arange(g.n_full) + g.full_offset
    rep = ct.st.partial[ct.st.full_row[np.maximum(ct.st.full_of_position, 0)]]
    which = np.argmax(perms[:, pos] == rep[None, :], axis=0)  # σ with σ(position) = rep
    return OrbitMaps(orbit=ct.st.full_of_position, which=which, inverse=inverse)


def orbit_of_positions(card: str, rules: Rules, n_dice: int) -> IntArray:
    """The full orbit of every position (full index) of `card`'s turn (-1 beyond the rows)."""
    return _orbit_maps(card, rules, n_dice).orbit


def actual_keep(rules: Rules, card: str, n_dice: int, position: IntArray,
                code: NDArray[np.signedinteger[Any]]
                ) -> tuple[IntArray, BoolArray]:
    """For positions (full indices) and their orbit's codes: (the partial index of the dice
    kept at the actual position, whether the move uses the Sorceress). Stops and NO_MOVE give
    -1."""
    gm = game_model(rules, n_dice)
    ct = gm.cards[card]
    maps = _orbit_maps(card, rules, n_dice)
    orbit = maps.orbit[position]
    sor = code >= SORCERESS_CODE
    pick = np.where(sor, code - SORCERESS_CODE, code).astype(np.int64)
    plain = ct.st.pairs_partial[np.clip(ct.st.pairs_ptr[orbit] + np.maximum(pick, 0), 0,
                                        max(ct.st.pairs_partial.shape[0] - 1, 0))]
    if ct.st.sor_partial.shape[0]:
        with_s = ct.st.sor_partial[np.clip(ct.st.sor_ptr[orbit] + np.maximum(pick, 0), 0,
                                           ct.st.sor_partial.shape[0] - 1)]
        rep_keep = np.where(sor, with_s, plain)
    else:
        rep_keep = plain
    keep = maps.inverse[maps.which[position], rep_keep]
    keep_at: IntArray = np.where(pick >= 0, keep, -1)
    return keep_at, sor & (pick >= 0)


__all__ = ["SORCERESS_CODE", "actual_keep", "orbit_of_positions"]
