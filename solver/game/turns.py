"""The turns of a block of states, solved from a value table: the mover's best play, and the
probability of every ending under it (the step of policy iteration that improves the policy).

For states of one phase (:mod:`.seats`) and the stacked value table ``Z`` of every phase:

1. each state's *utility column*: the mover's probability of winning after each ending of the
   turn (``k`` points, pirate magic: the mover's seat of the row of ``Z`` it leads to);
2. the columns that are equal are solved once (a state's numbers depend on its column only:
   the kernel's solves and pushes stop lane by lane, :func:`solver.engine.solve.solve_layers`
   and :mod:`solver.engine.forward`);
3. every card's turn, for every column: the engine's certified layered solve of the mover's
   objective (:func:`solver.engine.solve.solve_layers`), its moves by the one tie rule
   (:func:`solver.engine.kernel.best_moves`, within :data:`~solver.engine.solve.TIE_TOL`), and
   the outcome distribution of those moves (:func:`solver.engine.forward.endings`), pushed
   once for the columns whose moves are the same (:func:`_by_moves`);
4. per state, the deck-weighted distribution of the endings (summed in the deck's order), the
   mover's value of its best play (Skull Island included, which happens before any decision,
   by deduction), a digest of its moves (the policy, to see it change), the probability the
   pushes left unassigned, and the margin of its moves (how far every move value may move
   before a move changes: :func:`solver.engine.kernel.decision_margins`), which lets the next
   improvement leave the state alone when its utilities moved less.

A pure function of arrays (:func:`improve`): it runs the same in this process or on a Dask
worker (:mod:`.cluster`), and gives the same bits for any block of states.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine import TIE_TOL, FloatArray, IntArray, kernel
from ..engine.arrays import turn_value_lanes
from ..engine.codes import STOP, UNUSED, USED
from ..engine.forward import endings
from ..engine.kernel import LANES, from_lanes, to_lanes
from ..engine.solve import solve_layers
from .model import GameModel
from .seats import Seats

DIGEST_PRIME = np.uint64(1_000_003)
"""The multiplier of the moves' digest (a polynomial hash modulo 2**64)."""


@dataclass(frozen=True)
class Improved:
    """What :func:`improve` found for a block of states (one row a state)."""

    endings: FloatArray
    """(S, n_u): the probability of every utility row (points ``k_min .. k_max``, then pirate
    magic), Skull Island excluded (its probabilities are the deck's, by deduction)."""
    best: FloatArray
    """(S,): the mover's probability of winning with its best play, from ``Z``."""
    digest: np.ndarray
    """(S,) uint64: a digest of the mover's moves at every position of every card."""
    lost: FloatArray
    """(S,): the probability the pushes left unassigned (deck-weighted)."""
    margin: FloatArray
    """(S,): by how much every move value may move without changing a move of the state
    (:func:`solver.engine.kernel.decision_margins`, the least over its cards and worlds); 0
    where not computed (``margins=False``)."""
    columns: int
    """How many distinct utility columns were solved."""
    fresh: np.ndarray
    """(S,) bool: the states whose endings are given here (pushed, theirs or those of a
    column of the block with the same moves); the others' moves are the `known` ones: their
    `endings` and `lost` are zeros here, their last ones stand."""
    sweeps: int
    """The most sweeps a layer's solve took."""


def mover_utilities(seats: Seats, phase: str, index: IntArray, Z: FloatArray,
                    links: tuple[IntArray, IntArray] | None = None
                    ) -> tuple[FloatArray, FloatArray]:
    """The mover's utility of every ending for states `index`: (n_k + 1, S), the points rows
    then pirate magic (a win), and Skull Island's (n_ded, S) by deduction. The mover is the
    last seat of the state each ending leads to. `links`: the states' successors, if known
    (:meth:`.seats.Seats.successors`)."""
    points, island = seats.successors(phase, index) if links is None else links
    last = seats.players - 1
    u = np.empty((points.shape[0] + 1, points.shape[1]))
    u[:-1] = Z[points, last]
    u[-1] = 1.0
    return u, Z[island, last]


def _digest(code: IntArray, sor: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Fold one card's moves (C, n_fo, L) into the lanes' digests `h` (C * L,)."""
    b = h.shape[0]
    moves = (from_lanes(code, b).astype(np.int64) + 3) * 2 + from_lanes(sor, b).astype(np.int64)
    for row in moves.astype(np.uint64):
        h = h * DIGEST_PRIME + row
    return h


def _by_moves(fresh: IntArray, digest: np.ndarray,
              moves: dict[str, tuple[dict[int, IntArray], dict[int, np.ndarray]]],
              b: int) -> tuple[IntArray, IntArray]:
    """The columns to push among the `fresh` ones: one for each distinct moves (the first
    column with them), since a turn's endings depend on its moves alone (the same moves, the
    same pushes, the same bits: each lane is pushed on its own). Returns those columns and,
    for each of the `b` columns, the place of the pushed column whose endings are its own (-1
    where none). Columns are grouped by their digest, and the moves of every card and world
    compared whole with their group's first column's; if any differ (two moves with one
    digest), every fresh column is pushed, as before. In the final round's first final turn
    after the trigger's, four thousand columns have six to seven hundred distinct moves (five
    players at 300); in normal play, about 1,600 (three players at 6000)."""
    slot = np.full(b, -1, dtype=np.int64)
    if fresh.shape[0] == 0:
        return fresh, slot
    _, first, group = np.unique(digest[fresh], return_index=True, return_inverse=True)
    group = group.reshape(-1)
    rank = np.argsort(np.argsort(first, kind="stable"), kind="stable")  # groups in column order
    lead = fresh[np.sort(first)]
    of = lead[rank[group]]  # each fresh column's group's first
    twin, ref = fresh[fresh != of], of[fresh != of]  # the columns that take another's endings
    same = all(np.array_equal(a[twin // a.shape[2], :, twin % a.shape[2]],
                              a[ref // a.shape[2], :, ref % a.shape[2]])
               for code, sor in moves.values() for world in code
               for a in (code[world], sor[world]))  # (stops at the first difference)
    if not same:
        slot[fresh] = np.arange(fresh.shape[0])
        return fresh, slot
    slot[fresh] = rank[group]
    return lead, slot


def improve(gm: GameModel, seats: Seats, phase: str, index: IntArray, Z: FloatArray, *,
            tol: float, eps: float, known: np.ndarray | None = None,
            links: tuple[IntArray, IntArray] | None = None,
            utilities: tuple[FloatArray, FloatArray] | None = None,
            margins: bool = True) -> Improved:
    """Solve the turns of states `index` of `phase` from the value table `Z` (module doc): every
    card's layered solve to the certified bound `tol`, its pushes until `eps`.

    `known`: the digests of the states' moves whose endings the caller keeps, pushed to the
    same `eps` ((S,), or (S, m): several a state); a state whose moves are one of its known
    ones is not pushed (its endings are those: they depend on its moves alone), and
    :attr:`Improved.fresh` says which states' endings are given here. `links`: the states'
    successors, if known. `utilities`: the mover's utilities, as :func:`mover_utilities`
    gives them, from elsewhere than `Z` (a near-optimal method's, :mod:`.reduced`).
    `margins`: compute the moves' margins (a sixth of the work: only policy iteration's next
    improvement reads them; without, :attr:`Improved.margin` is 0, as if every move could
    change)."""
    u, island_u = (mover_utilities(seats, phase, index, Z, links) if utilities is None
                   else utilities)
    # equal columns are solved once: rows of the transposed table compared as bytes
    rows = np.ascontiguousarray(u.T)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # the distinct columns in order of appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    cols = np.ascontiguousarray(u[:, first[order]])
    inverse = rank[inverse.reshape(-1)]
    b = cols.shape[1]
    ul = to_lanes(cols, LANES)
    best = np.zeros(b)
    digest = np.zeros(b, dtype=np.uint64)
    margin = np.full(b, np.inf)
    sweeps = 0
    moves: dict[str, tuple[dict[int, IntArray], dict[int, np.ndarray]]] = {}
    with np.errstate(over="ignore"):
        for card, weight in gm.weights.items():
            ct = gm.cards[card]
            w0 = ct.worlds[ct.model.worlds[0]]
            solved = solve_layers(ct.model, ct.st, ul, w0.stop_idx, w0.bust_idx, tol=tol,
                                  per_lane=True)
            sweeps = max(sweeps, solved.sweeps)
            code, sor = {}, {}
            for world in ct.model.worlds:
                w = ct.worlds[world]
                q_used = solved.keeps[USED] if world == UNUSED else None
                if margins:  # the moves and their margins in one pass
                    code[world], sor[world], m = kernel.moves_and_margins(
                        solved.keeps[world], q_used, ul, w, ct.st, TIE_TOL, w.sorceress_ok)
                    margin = np.minimum(margin, from_lanes(m, b))
                else:
                    code[world], sor[world], _ = kernel.best_moves(
                        solved.keeps[world], q_used, ul, w, ct.st, TIE_TOL, w.sorceress_ok)
                digest = _digest(code[world], sor[world], digest)
            moves[card] = code, sor
            turn = turn_value_lanes(solved.values[ct.model.start_world], ct.first,
                                    ul[:, ct.first_bust_row, :], None)
            best = best + weight * from_lanes(turn, b)
            del solved
    # the pushes, for the columns whose moves are new (a column of several states: new to one)
    if known is None:
        fresh_state = np.ones(index.shape[0], dtype=bool)
    else:  # new unless one of the state's known moves
        kept = np.asarray(known, dtype=np.uint64)
        kept = kept[:, None] if kept.ndim == 1 else kept
        fresh_state = (digest[inverse][:, None] != kept).all(axis=1)
    fresh_col = np.zeros(b, dtype=bool)
    fresh_col[inverse[fresh_state]] = True
    pushed, slot = _by_moves(np.flatnonzero(fresh_col), digest, moves, b)
    mass = np.zeros((gm.n_u, pushed.shape[0]))
    lost = np.zeros(pushed.shape[0])
    if pushed.shape[0]:
        for card, weight in gm.weights.items():
            ct = gm.cards[card]
            code, sor = moves.pop(card)
            if pushed.shape[0] < b:  # the pushed columns, in lanes of their own; the padding
                # lanes stop at once (a code 0 there is no move where a position has no keep,
                # and the compiled pushes read past the pair list: found by NUMBA_BOUNDSCHECK)
                code = {w: to_lanes(from_lanes(c, b)[:, pushed], LANES, fill=STOP)
                        for w, c in code.items()}
                sor = {w: to_lanes(from_lanes(c, b)[:, pushed], LANES) for w, c in sor.items()}
            ends = endings(ct.st, ct.model.worlds, ct.worlds, code, sor, ct.first,
                           ct.first_bust_row, gm.n_u, eps=eps)
            mass = mass + weight * from_lanes(ends.mass, pushed.shape[0])
            lost = lost + weight * from_lanes(ends.lost, pushed.shape[0])
    # Skull Island, by deduction (the deck's probabilities), in increasing deduction order
    island = np.zeros(index.shape[0])
    for d, p in enumerate(gm.island_deductions().tolist()):
        if p:
            island = island + p * island_u[d]
    where = slot[inverse]  # each state's pushed column (-1: not pushed)
    state_mass = np.zeros((index.shape[0], gm.n_u))
    state_lost = np.zeros(index.shape[0])
    state_mass[where >= 0] = mass[:, where[where >= 0]].T
    state_lost[where >= 0] = lost[where[where >= 0]]
    if not margins:
        margin = np.zeros(b)
    return Improved(endings=state_mass, best=best[inverse] + island, digest=digest[inverse],
                    lost=state_lost, margin=margin[inverse], columns=b, sweeps=sweeps,
                    fresh=where >= 0)
