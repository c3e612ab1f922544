r"""How a turn ends under a fixed policy: the probability of every ending, by pushing the
probability mass of the positions forward (the transpose of the kernel's expectation).

The kernel (:mod:`.kernel`) computes values backwards: a keep's value is the expectation of
the positions its roll reaches. Under a fixed policy the same links carry probability the other
way: the first roll puts its mass on the positions; a position's mass goes to its ending
(a stop: the utility row :attr:`~.arrays.WorldArrays.stop_idx`) or to the keep its move takes;
a keep's mass busts with probability ``p_bust`` (the row ``bust_idx``) and otherwise rolls one
die at a time, a sixth to each child, until the dice reach positions again. The result is, for
every column (a game state, its own policy), the probability of every row of the utility
table: a turn's *outcome distribution*. A game solved at the level of turns (:mod:`solver.game`)
needs it for every player's value, not only the mover's.

**Order.**  The worlds from the start world down (the Sorceress's rerolls move mass from the
``unused`` world to the ``used`` one), the skull layers from none up (skulls only accumulate).
A layer's mass circulates (a reroll without a skull stays in the layer): it is pushed again
until the lane has at most ``eps`` left in the layer; that remainder is dropped and counted in
``lost`` (each lane on its own: its numbers are those of its own turn, whatever the lanes
beside it) (an ending's utility is in [0, 1] in the game, so the values
move by at most the lost mass). At least 2 dice are rolled, so each push keeps at most 25/36 of
the layer's mass in it. The rows of a level are pushed face by face, each face's children in
row order: numpy (here) and numba (:func:`.kernel_numba.forward`) add in the same order and
give the same bits.

Skull Island is not an ending here: it happens on the first roll, before any decision, and its
probability is the first roll's (:class:`.arrays.FirstRoll`); the first-roll bust is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import kernel
from .arrays import FirstRoll, WorldArrays
from .codes import STOP
from .kernel import SIXTH
from .positions import FloatArray, IntArray
from .rows import TurnStructure

MAX_PUSHES = 10_000
"""Pushes of one layer before giving up (the mass falls by 25/36 a push at worst)."""


@dataclass(frozen=True)
class Endings:
    """The outcome distribution of a batch of turns, in lanes."""

    mass: FloatArray
    """(C, n_u, L): the probability of every row of the utility table."""
    lost: FloatArray
    """(C, L): the probability left unassigned (at most ``eps`` per layer and world)."""
    pushes: int
    """The most pushes a layer took."""


def _stacked(st: TurnStructure, worlds: tuple[int, ...], arrays: dict[int, WorldArrays],
             code: dict[int, Any], sor: dict[int, Any]) -> tuple[Any, ...]:
    n_w = max(worlds) + 1
    c, n_fo, width = code[worlds[0]].shape
    codes = np.full((n_w, c, n_fo, width), -2, dtype=np.int64)
    sors = np.zeros((n_w, c, n_fo, width), dtype=np.bool_)
    live = np.zeros((n_w, n_fo), dtype=np.bool_)
    p_bust = np.zeros((n_w, st.n_rows), dtype=np.float64)
    for w in worlds:
        codes[w] = code[w]
        sors[w] = sor[w]
        live[w] = arrays[w].live
        p_bust[w] = arrays[w].p_bust
    return codes, sors, live, p_bust


def endings(st: TurnStructure, worlds: tuple[int, ...], arrays: dict[int, WorldArrays],
            code: dict[int, Any], sor: dict[int, Any], first: FirstRoll, first_bust_row: int,
            n_u: int, *, eps: float) -> Endings:
    """The outcome distribution of every lane's turn under its policy (module doc).

    `code` and `sor` are, per world, the moves of :func:`.kernel.best_moves` (lanes: STOP,
    NO_MOVE or the keep's place in the orbit's pair list, and whether it is the Sorceress's);
    `arrays` the worlds' kernel arrays (their ``stop_idx`` and ``bust_idx`` rows of a utility
    table of `n_u` rows); `first` the first roll (on `st`), whose bust ends at row
    `first_bust_row`. The worlds are pushed from the highest (the start world) down."""
    codes, sors, live, p_bust = _stacked(st, worlds, arrays, code, sor)
    w0 = arrays[worlds[0]]
    _, n_c, _, width = codes.shape
    start = max(worlds)
    out = np.zeros((n_c, n_u, width))
    lost = np.zeros((n_c, width))
    pushes = np.zeros(n_c, dtype=np.int64)
    args = (codes, sors, live, p_bust, w0.stop_idx, w0.bust_idx, st.child, st.level_lo,
            st.full_row, st.fo_lo, st.pairs_ptr, st.pairs_row, st.sor_ptr, st.sor_row,
            first.live_fo, first.live_prob, start, first_bust_row, first.bust_prob,
            float(eps), MAX_PUSHES, out, lost, pushes)
    k = kernel.compiled(n_c)
    if k is None:
        for c in range(n_c):
            _np_forward(c, *args)
    else:
        kernel._split(k["forward"], n_c, *args)  # noqa: SLF001  (the kernel's own threads)
    if int(pushes.max(initial=0)) >= MAX_PUSHES:
        raise RuntimeError(f"the outcome distribution still moves after {MAX_PUSHES} pushes")
    return Endings(out, lost, int(pushes.max(initial=0)))


def _np_forward(c: int, codes: Any, sors: Any, live: Any, p_bust: Any, stop_idx: IntArray,
                bust_idx: IntArray, child: IntArray, level_lo: IntArray, full_row: IntArray,
                fo_lo: IntArray, pairs_ptr: IntArray, pairs_row: IntArray, sor_ptr: IntArray,
                sor_row: IntArray, first_fo: IntArray, first_p: FloatArray, start: int,
                first_bust_row: int, first_bust_p: float, eps: float, max_pushes: int,
                out: FloatArray, lost: FloatArray, pushes: IntArray) -> None:
    """Chunk `c` of :func:`endings`, in numpy: the operations of the compiled one, in the same
    order (lanes side by side; contributions to one entry added in row order)."""
    n_w, _, n_fo, width = codes.shape
    n_rows = child.shape[0]
    n_dice = level_lo.shape[1] - 2
    max_s = level_lo.shape[0] - 1
    lanes = np.arange(width)
    mpos = np.zeros((n_w, n_fo, width))
    keep = np.zeros((n_w, n_rows + 1, width))
    roll = np.zeros((n_rows + 1, width))
    mpos[start, first_fo, :] = first_p[:, None]
    out[c] = 0.0
    out[c, first_bust_row, :] += first_bust_p
    lost[c] = 0.0
    for w in range(n_w - 1, -1, -1):
        for s in range(max_s + 1):
            lo, hi = int(fo_lo[s]), int(fo_lo[s + 1])
            n = 0
            done = np.zeros(width, dtype=bool)
            while True:
                m = mpos[w, lo:hi, :]
                cd = codes[w, c, lo:hi, :]
                sr = sors[w, c, lo:hi, :]
                has = m != 0.0
                pos = np.arange(lo, hi)[:, None]
                stop = has & (cd == STOP)
                plain = has & (cd >= 0) & ~sr
                witch = has & (cd >= 0) & sr
                flat_out = out[c].reshape(-1)
                np.add.at(flat_out, (np.broadcast_to(stop_idx[lo:hi, None], cd.shape) * width
                                     + lanes)[stop], m[stop])
                target = np.full(cd.shape, n_rows, dtype=np.int64)
                target[plain] = pairs_row[(np.broadcast_to(pairs_ptr[lo:hi, None], cd.shape)
                                           + cd)[plain]]
                keep_w = keep[w].reshape(-1)
                np.add.at(keep_w, (target * width + lanes)[plain], m[plain])
                target_s = np.full(cd.shape, n_rows, dtype=np.int64)
                if sor_row.shape[0]:
                    target_s[witch] = sor_row[(np.broadcast_to(sor_ptr[lo:hi, None], cd.shape)
                                               + cd)[witch]]
                keep_0 = keep[0].reshape(-1)
                np.add.at(keep_0, (target_s * width + lanes)[witch], m[witch])
                stray = has & (cd < 0) & (cd != STOP)
                lost_c = lost[c]
                np.add.at(lost_c, np.broadcast_to(lanes, cd.shape)[stray], m[stray])
                del pos
                mpos[w, lo:hi, :] = 0.0
                a, b = int(level_lo[s, s]), int(level_lo[s, n_dice])
                roll[a:b] = keep[w, a:b]
                keep[w, a:b] = 0.0
                flat_out = out[c].reshape(-1)
                np.add.at(flat_out, (bust_idx[a:b, None] * width + lanes).reshape(-1),
                          (p_bust[w, a:b, None] * roll[a:b]).reshape(-1))
                for d in range(s, n_dice):
                    for s2 in range(s, min(d, max_s) + 1):
                        a, b = int(level_lo[s2, d]), int(level_lo[s2, d + 1])
                        if b <= a:
                            continue
                        x = roll[a:b] * SIXTH
                        for f in range(6):
                            np.add.at(roll, child[a:b, f], x)
                        roll[a:b] = 0.0
                    roll[n_rows] = 0.0
                for s2 in range(s, max_s + 1):
                    a, b = int(fo_lo[s2]), int(fo_lo[s2 + 1])
                    rows = full_row[a:b]
                    arrived = np.where(live[w, a:b, None], roll[rows], 0.0)
                    mpos[w, a:b, :] += arrived
                    roll[rows] = 0.0
                n += 1
                left = np.zeros(width)
                for i in range(lo, hi):
                    left += mpos[w, i]
                newly = ~done & ((left <= eps) | (n >= max_pushes))
                for i in range(lo, hi):
                    lost[c] += np.where(newly, mpos[w, i], 0.0)
                mpos[w, lo:hi, :] = np.where(newly[None, :], 0.0, mpos[w, lo:hi, :])
                done |= newly
                if done.all():
                    break
            pushes[c] = max(int(pushes[c]), n)
