"""The measured quality of near-optimal play (:mod:`solver.game.reduced`) against an exact
table.

Every state's turn is solved twice: by the table's values (the exact play,
:func:`solver.game.profiles.win_endings`) and by the method's utilities (its play,
:func:`endings_of`). Then, for each seat ``j``, the profile where seat ``j`` plays the method
and every other seat the table is evaluated exactly (:func:`solver.game.profiles.
profile_values`: a linear system on a copy of the game a seat). The *loss* at a state is the
table's probability of winning of the seat ``j`` from the mover minus that seat's under the
profile, over every state of normal play and every ``j``. The table is an equilibrium, so
nobody gains by the method (a loss below 0 only by the noise; the tests check it).

The method's turns are solved in blocks of states, in parallel with joblib (a block's numbers
are its states' alone: the same bits for any number of jobs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine import FloatArray, IntArray, kernel
from ..game.model import game_model, point_range
from ..game.profiles import profile_values, win_endings
from ..game.records import BLOCK, FINAL_EPS, FINAL_TOL
from ..game.reduced import Projection, reduced_utilities
from ..game.seats import NORMAL, seats_of
from ..game.solve import blocks_of
from ..game.turns import improve
from ..rules.aims import WIN
from ..rules.rulebook import Rules

NEAR = "near"
"""The method's name in a profile."""


def _block_endings(rules: Rules, players: int, n_dice: int, name: str, index: IntArray,
                   small_players: int, small_Z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """One block's endings under the method, and the mover's value of its best turn (the
    method's estimate of its chance)."""
    gm = game_model(rules, n_dice)
    ranges = point_range(rules, n_dice)
    seats = seats_of(players, ranges, gm.n, rules.ties)
    proj = Projection(seats_of(small_players, ranges, gm.n, rules.ties), small_Z)
    utilities = reduced_utilities(seats, proj, name, index)
    with kernel.compiled_whenever_installed():
        got = improve(gm, seats, name, index, np.zeros((1, players)), tol=FINAL_TOL,
                      eps=FINAL_EPS, utilities=utilities)
    return got.endings, got.best


def endings_of(table: Any, small: Any, name: str, *, jobs: int = 1, block: int = BLOCK
               ) -> tuple[FloatArray, FloatArray]:
    """The method's play at every state of phase `name` of `table`'s game, on the exact table
    `small` of fewer players: (size, n_u) the endings, (size,) the mover's value of its best
    turn; `jobs` processes at once."""
    size = table.seats.phases[name].size
    small_Z = np.asarray(small.stacked())
    args = (table.rules, table.players, table.n_dice, name)
    blocks = blocks_of(np.arange(size, dtype=np.int64), block)
    if jobs == 1:
        parts = [_block_endings(*args, b, small.players, small_Z) for b in blocks]
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=jobs)(delayed(_block_endings)(*args, b, small.players,
                                                              small_Z) for b in blocks)
    return (np.concatenate([e for e, _ in parts], axis=0),
            np.concatenate([b for _, b in parts], axis=0))


@dataclass
class Loss:
    """A near-optimal method's measured loss against an exact table (normal play)."""

    players: int
    small_players: int
    target: int
    ties: str
    n_dice: int
    mean: float
    """The mean over states and seats of the loss in P(win) of the seat that plays the method."""
    worst: float
    """The largest loss, over states and seats."""
    least: float
    """The least (below 0: the method gains there; an equilibrium leaves it only the noise)."""
    worst_state: list[int]
    """Its totals (points, the mover first), then the method's seat from the mover."""
    start: list[float]
    """At the game's start (every total 0): the loss of the method at each seat."""
    start_exact: list[float]
    """The table's probabilities of winning there, each seat."""
    estimate_mean: float
    estimate_worst: float
    """By how much the method's estimate of the mover's chance (its best turn's value, from
    the small table) is off the exact chance, on average and at worst."""
    noise: float
    """The table's own play evaluated the same way: its largest difference from the table (the
    others' values at near ties, and the evaluation's precision)."""
    residual: float
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def measure_loss(table: Any, small: Any, *, jobs: int = 1, runner: Any = None,
                 progress: Callable[[str], None] | None = None) -> Loss:
    """The loss of the method with the exact table `small` of fewer players against the exact
    table `table` (module doc). `runner`: where the table's turns are solved
    (:mod:`solver.game.solve`; this process by default)."""
    import time

    t0 = time.perf_counter()
    players = table.players
    gm = game_model(table.rules, table.n_dice)
    seats = table.seats

    def said(name: str, done: int, blocks: int) -> None:
        if progress is not None and done == blocks:
            progress(f"{name}: the table's turns ({seats.phases[name].size:,} states)")

    win = win_endings(table, gm, seats, runner, said)
    near: dict[str, FloatArray] = {}
    estimate = np.zeros(0)
    for name, phase in seats.phases.items():
        near[name], best = endings_of(table, small, name, jobs=jobs)
        if name == NORMAL:
            estimate = best
        if progress is not None:
            progress(f"{name}: the method's turns ({phase.size:,} states)")
    lo, size = seats.offset(NORMAL), seats.phases[NORMAL].size
    Z = np.asarray(table.stacked())[lo:lo + size]
    V = np.empty((size, players))
    residual = 0.0
    for j in range(players):
        profile = tuple(NEAR if s == j else WIN for s in range(players))
        got = profile_values(table, profile, win=win, ways={NEAR: near})
        V[:, j] = got.normal[:, j]
        residual = max(residual, got.residual)
        if progress is not None:
            progress(f"the method at seat {j + 1}: evaluated")
    own = profile_values(table, (WIN,) * players, win=win)
    loss = Z - V
    worst = np.unravel_index(int(np.argmax(loss)), loss.shape)
    totals = seats.phases[NORMAL].decode(np.array([worst[0]]))[0] * 100
    off = np.abs(estimate - Z[:, 0])
    return Loss(players=players, small_players=small.players, target=table.rules.target,
                ties=table.rules.ties, n_dice=table.n_dice, mean=float(loss.mean()),
                worst=float(loss.max()), least=float(loss.min()),
                worst_state=[*map(int, totals), int(worst[1])],
                start=[float(x) for x in loss[0]], start_exact=[float(x) for x in Z[0]],
                estimate_mean=float(off.mean()), estimate_worst=float(off.max()),
                noise=float(np.max(np.abs(own.normal - Z))),
                residual=max(residual, own.residual), seconds=time.perf_counter() - t0)


__all__ = ["NEAR", "Loss", "endings_of", "measure_loss"]
