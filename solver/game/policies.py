"""The win policy at every state at once: what whole simulated games play (``sabords game``).

The moves are chosen by the kernel's one tie-break rule (:func:`solver.engine.kernel.best_moves`
with :data:`solver.engine.TIE_TOL`: stop, then no Sorceress, then the most dice) at the solve's
converged iterate (normal play, sudden death: residual 1e-12, ten times below the tie
tolerance, so the choices are stable) and at the final turn's layered solve (by deficit). They
are stored in the game table with the values (:mod:`solver.tables.game`), so the games read them.

A policy names, per card and world, a move for every full orbit (the representative position of
each orbit of the card's symmetries) and every column (state or deficit): :data:`STOP`,
:data:`NO_MOVE`, or a keep as its position in the orbit's keep list (``pairs``), or, with
:data:`SORCERESS_CODE` added, in its Sorceress list (``sor_pairs``). :func:`actual_keep` turns it
into the dice a player keeps from an actual position of the orbit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..engine import NO_MOVE, STOP, TIE_TOL, BoolArray, FloatArray, IntArray, kernel
from ..engine.codes import UNUSED, USED
from ..engine.kernel import LANES, from_lanes, to_lanes
from ..engine.model import symmetries
from ..engine.rows import TurnStructure
from ..engine.solve import solve_layers
from ..rules.rulebook import CARDS, Rules
from .final import final_utilities
from .iterate import Moves, PhaseState, moves_at
from .model import GameModel, game_model
from .seats import FINAL

CodeArray = NDArray[np.int16]
"""Policy codes as stored (see :class:`PhasePolicy`)."""

SORCERESS_CODE = 1 << 14
"""Added to a code that names a Sorceress keep (codes are stored as int16)."""


@dataclass(frozen=True)
class PhasePolicy:
    """The win policy of one phase for every card: codes (n_fo, columns) per card and world."""

    phase: str
    columns: int
    codes: dict[tuple[str, int], CodeArray]
    """int16: STOP, NO_MOVE, a pair position, or SORCERESS_CODE + a Sorceress pair position."""


def codes_in_range(st: TurnStructure, codes: CodeArray) -> bool:
    """Whether every code (n_fo, columns) names a move the orbit has: STOP, NO_MOVE, one of the
    orbit's keeps, or one of its Sorceress keeps (what a table read from disk must hold)."""
    n_keeps = np.diff(st.pairs_ptr)[:, None]
    n_sor = np.diff(st.sor_ptr)[:, None] if st.sor_ptr.shape[0] > 1 else np.zeros((1, 1),
                                                                                   np.int64)
    plain = (codes >= 0) & (codes < np.minimum(n_keeps, SORCERESS_CODE))
    sor = (codes >= SORCERESS_CODE) & (codes - SORCERESS_CODE < n_sor)
    return bool(np.all(plain | sor | (codes == STOP) | (codes == NO_MOVE)))


def phase_codes(moves: Moves, columns: int) -> dict[tuple[str, int], CodeArray]:
    """Moves in lanes (:func:`~.iterate.moves_at`) as int16 codes (n_fo, columns)."""
    out = {}
    for key, (code, sor) in moves.items():
        merged = np.where(sor, code + SORCERESS_CODE, code)
        out[key] = np.ascontiguousarray(from_lanes(merged, columns).astype(np.int16))
    return out


def phase_policy(state: PhaseState, tail: FloatArray,
                 moves: Moves | None = None) -> PhasePolicy:
    """The win policy of a converged phase iterate (the rule of :data:`~solver.engine.TIE_TOL`):
    `moves` (the iterate's, within TIE_TOL), found here when not given."""
    if moves is None:
        moves = moves_at(state, tail, TIE_TOL)
    return PhasePolicy(phase=state.name, columns=state.columns,
                       codes=phase_codes(moves, state.columns))


def final_policy(gm: GameModel, ties: str, tol: float) -> PhasePolicy:
    """The win policy of the final turn, by deficit (the engine's layered solve, as
    :mod:`.final`)."""
    u = final_utilities(gm, ties)
    columns = u.shape[1]
    u_l = to_lanes(u, LANES)
    codes: dict[tuple[str, int], CodeArray] = {}
    for card, ct in gm.cards.items():
        w0 = ct.worlds[ct.model.worlds[0]]
        solved = solve_layers(ct.model, ct.st, u_l, w0.stop_idx, w0.bust_idx, tol=tol)
        moves: Moves = {}
        for world in ct.model.worlds:
            w = ct.worlds[world]
            q_used = solved.keeps[USED] if world == UNUSED else None
            moves[(card, world)] = kernel.best_moves(solved.keeps[world], q_used, u_l, w, ct.st,
                                                     TIE_TOL, w.sorceress_ok)[:2]
        codes.update(phase_codes(moves, columns))
    return PhasePolicy(phase=FINAL, columns=columns, codes=codes)


# --------------------------------------------------------------------------------------------
# From an orbit's move to the dice kept at an actual position
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OrbitMaps:
    """For one card: the full orbit of every position, and the face permutation that takes the
    orbit's representative's keeps to the position's."""

    orbit: IntArray
    """(n_full,): the full orbit of each position (-1 beyond the structure)."""
    back: IntArray
    """(n_full, n_partial): partial index map from the representative's sub-multisets to the
    position's (a permutation of the faces)."""


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
    return OrbitMaps(orbit=ct.st.full_of_position, back=inverse[which])


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
    keep = maps.back[position, rep_keep]
    keep_at: IntArray = np.where(pick >= 0, keep, -1)
    return keep_at, sor & (pick >= 0)


def engine_policy(policy: PhasePolicy, rules: Rules, card: str, column: int,
                  n_dice: int) -> dict[int, tuple[IntArray, BoolArray]]:
    """One column of a phase policy as the engine's policy arrays of `card` (per world: the
    partial index of the keep, or STOP / NO_MOVE, and the Sorceress flag, per position), as
    :func:`solver.engine.solve_payoff` evaluates them."""
    from ..engine import turn_model

    model = turn_model(CARDS[card], rules.turn_rules(), n_dice)
    orbit = orbit_of_positions(card, rules.turn_rules(), n_dice)
    positions = np.arange(model.n_full)
    out = {}
    for w in model.worlds:
        codes = policy.codes[(card, w)]
        code = np.where(orbit >= 0, codes[np.maximum(orbit, 0), column], NO_MOVE)
        code = code.astype(np.int64)
        keep, sor = actual_keep(rules.turn_rules(), card, n_dice, positions, code)
        full = np.where(code == STOP, STOP, np.where(code == NO_MOVE, NO_MOVE, keep))
        full = np.where(model.live[w], full, NO_MOVE)
        out[w] = (full[:, None].astype(np.int64), (sor & model.live[w])[:, None])
    return out
