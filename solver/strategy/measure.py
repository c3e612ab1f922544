"""The measured quality of near-optimal play for four and five players
(:mod:`solver.game.reduced`) against an exact table of the same game: the chances it shows and
the probability of winning its moves lose.

**The chances.**  At every state of normal play and of sudden death, and at a fixed sample of
the final round's, the chances the method shows (one turn ahead, as
:meth:`solver.game.reduced.ReducedTable.chances` gives them: the deck's average of the mover's
best turns on the estimates after them, every other seat's chance under those turns) against
the exact table's, every seat: their mean and largest difference.

**The play.**  Every state's turn is solved twice: by the table's values (the exact play,
:func:`solver.game.profiles.win_endings`) and by the method's utilities (:func:`endings_of`).
Then, for each seat ``j``, the profile where seat ``j`` plays the method and every other seat
the table is evaluated exactly (:func:`solver.game.profiles.profile_values`: a linear system
on a copy of the game a seat). The *loss* at a state is the table's probability of winning of
seat ``j`` minus that seat's under the profile, over every state of normal play and every
``j``. The table is an equilibrium, so nobody gains by the method (a loss below 0 only by the
noise; the tests check it).

The method's turns are solved in blocks of states, in parallel with joblib (a block's numbers
are its states' alone: the same bits for any number of jobs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import FloatArray, IntArray, kernel
from ..game.model import game_model
from ..game.profiles import profile_values, win_endings
from ..game.records import BLOCK, FINAL_EPS, FINAL_TOL
from ..game.seats import FINAL, NORMAL, SUDDEN
from ..game.solve import blocks_of
from ..game.turns import improve
from ..rules.aims import WIN

if TYPE_CHECKING:
    from ..game.reduced import ReducedTable
    from ..game.table import GameTable

NEAR = "near"
"""The method's name in a profile."""
FINAL_SAMPLE = 20_000
"""States of each final-round phase whose chances are measured (a fixed sample; all of them
where a phase has fewer)."""


def _method(two: GameTable | None, three: GameTable, players: int) -> ReducedTable:
    from ..game.reduced import ReducedTable

    return ReducedTable(two, three, players)


def _block(two: GameTable | None, three: GameTable, players: int, name: str, index: IntArray,
           chances: bool) -> tuple[FloatArray, FloatArray]:
    """One block of states: the method's endings (S, n_u), and with `chances` every seat's
    chance it shows there (S, N)."""
    method = _method(two, three, players)
    gm = game_model(method.rules, method.n_dice)
    seats = method.seats
    utilities = method.utilities(name, index)
    with kernel.compiled_whenever_installed():
        got = improve(gm, seats, name, index, np.zeros((1, players)), tol=FINAL_TOL,
                      eps=FINAL_EPS, utilities=utilities)
    if not chances:
        return got.endings, np.zeros((0, players))
    points, island = method.successor_values(name, index)  # (n_k, S, N), (n_d, S, N)
    ends = got.endings  # (S, n_u): the points rows, then pirate magic (the mover's win)
    shown = np.einsum("sk,ksn->sn", ends[:, :-1], points)
    shown[:, 0] += ends[:, -1]
    shown += np.einsum("d,dsn->sn", gm.island_deductions(), island)
    return ends, shown


def endings_of(table: GameTable, two: GameTable | None, three: GameTable, name: str,
               index: IntArray | None = None, *, chances: bool = False, jobs: int = 1,
               block: int = BLOCK) -> tuple[FloatArray, FloatArray]:
    """The method's play at states `index` (default: every state) of phase `name` of
    `table`'s game, on the exact tables `two` and `three`: (S, n_u) the endings, and with
    `chances` (S, N) the chances it shows; `jobs` processes at once."""
    size = table.seats.phases[name].size
    every = np.arange(size, dtype=np.int64) if index is None else np.asarray(index, np.int64)
    blocks = blocks_of(every, block)
    args = (two, three, table.players, name)
    if jobs == 1:
        parts = [_block(*args, b, chances) for b in blocks]
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=jobs)(delayed(_block)(*args, b, chances) for b in blocks)
    return (np.concatenate([e for e, _ in parts], axis=0),
            np.concatenate([c for _, c in parts], axis=0))


@dataclass
class Off:
    """How far the chances shown are from the exact ones over a set of states: in points of
    probability (fractions here), every seat."""

    states: int
    mean: float
    worst: float
    worst_state: list[int]
    """The totals of the worst (points, the mover first), then the seat from the mover."""
    by_seat: list[float]
    """The mean, each seat from the mover."""

    @classmethod
    def of(cls, shown: FloatArray, exact: FloatArray, totals: IntArray) -> Off:
        off = np.abs(shown - exact)
        at = np.unravel_index(int(np.argmax(off)), off.shape)
        return cls(states=int(off.shape[0]), mean=float(off.mean()), worst=float(off.max()),
                   worst_state=[*(int(t) * 100 for t in totals[at[0]]), int(at[1])],
                   by_seat=[float(x) for x in off.mean(axis=0)])


@dataclass
class Loss:
    """A near-optimal method measured against an exact table."""

    players: int
    target: int
    ties: str
    n_dice: int
    mean: float | None
    """The mean over states of normal play and seats of the loss in P(win) of the seat that
    plays the method (None: the play was not measured, the chances alone)."""
    worst: float | None
    """The largest loss, over states and seats."""
    least: float | None
    """The least (below 0: the method gains there; an equilibrium leaves it only the noise)."""
    worst_state: list[int] | None
    """Its totals (points, the mover first), then the method's seat from the mover."""
    start: list[float] | None
    """At the game's start (every total 0): the loss of the method at each seat."""
    start_exact: list[float]
    """The table's probabilities of winning there, each seat."""
    noise: float | None
    """The table's own play evaluated the same way: its largest difference from the table (the
    others' values at near ties, and the evaluation's precision)."""
    residual: float | None
    final_play: bool = True
    """Whether the method played the final round in the profiles (else every seat played it
    as the table does: the loss is that of normal play and sudden death)."""
    chances: dict[str, Off] = field(default_factory=dict)
    """The chances shown against the exact ones: ``normal``, ``sudden`` and ``final`` (a
    sample of every final-round phase)."""
    start_shown: list[float] = field(default_factory=list)
    """The chances shown at the game's start, each seat."""
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["chances"] = {k: dict(v.__dict__) for k, v in self.chances.items()}
        return out


def measure_loss(table: GameTable, two: GameTable | None, three: GameTable, *, jobs: int = 1,
                 runner: Any = None, play: bool = True, final_play: bool = True,
                 sample: int | None = None, final_sample: int = FINAL_SAMPLE,
                 progress: Callable[[str], None] | None = None) -> Loss:
    """The method on the exact tables `two` and `three` against the exact table `table` of
    more players (module doc); `play`: also its loss in P(win) (the profiles' evaluations:
    the longest part); `final_play`: the method plays the final round too (else every seat
    plays it as the table does: the loss of normal play and sudden death, a profile of far
    fewer states). `sample` (without `play`): the chances of every phase measured on a fixed
    sample of at most that many states (the final round's: at most `final_sample`, by
    default :data:`FINAL_SAMPLE`, each final phase; with `play` too: a race of five players'
    fourth final turn is the longest part of a measure then).
    `two` None: the method one player down (:class:`solver.game.estimate.Estimate`).
    `runner`: where the table's turns are solved (:mod:`solver.game.solve`; this process by
    default)."""
    import time

    if play and sample is not None:
        raise ValueError("the play is measured at every state: no sample")
    t0 = time.perf_counter()
    players = table.players
    seats = table.seats
    Z = np.asarray(table.stacked())
    chances: dict[str, Off] = {}
    near: dict[str, FloatArray] = {}
    shown_at: dict[str, tuple[FloatArray, FloatArray, IntArray]] = {}
    rng = np.random.default_rng(2026)  # the same sample every run
    for name, phase in seats.phases.items():
        index = np.arange(phase.size, dtype=np.int64)
        most = (min(sample or final_sample, final_sample) if phase.kind == FINAL else sample)
        sampled = most is not None and phase.size > most
        if sampled:  # the chances of a sample (a final state's values a race of the others)
            index = np.sort(rng.choice(phase.size, most, replace=False))
            if phase.kind != FINAL:  # the game's start always measured
                index = np.union1d(index, [0]).astype(np.int64)
        ends, shown = endings_of(table, two, three, name, index, chances=True, jobs=jobs)
        if play and (final_play or phase.kind != FINAL):  # every state's play: the profiles'
            near[name] = ends if not sampled else endings_of(table, two, three, name,
                                                             jobs=jobs)[0]
        shown_at[name] = (shown, Z[seats.offset(name) + index], phase.decode(index))
        if progress is not None:
            progress(f"{name}: the method's turns and chances ({index.shape[0]:,} states)")
    for kind in (NORMAL, SUDDEN, FINAL):
        parts = [v for name, v in shown_at.items() if seats.phases[name].kind == kind]
        chances[kind] = Off.of(np.concatenate([p[0] for p in parts]),
                               np.concatenate([p[1] for p in parts]),
                               np.concatenate([p[2] for p in parts]))
    lo, size = seats.offset(NORMAL), seats.phases[NORMAL].size
    exact_normal = Z[lo:lo + size]
    start = [float(x) for x in shown_at[NORMAL][0][0]]  # the start: index 0
    loss = np.zeros((size, players))
    residual = noise = 0.0
    if play:
        gm = game_model(table.rules, table.n_dice)

        def said(name: str, done: int, blocks: int) -> None:
            if progress is not None and done == blocks:
                progress(f"{name}: the table's turns ({seats.phases[name].size:,} states)")

        exact = () if final_play else tuple(n for n, p in seats.phases.items()
                                             if p.kind == FINAL)
        win = win_endings(table, gm, seats, runner, said,
                          phases=[n for n in seats.phases if n not in exact])
        V = np.empty((size, players))
        for j in range(players):
            profile = tuple(NEAR if s == j else WIN for s in range(players))
            got = profile_values(table, profile, win=win, ways={NEAR: near}, exact=exact)
            V[:, j] = got.normal[:, j]
            residual = max(residual, got.residual)
            if progress is not None:
                progress(f"the method at seat {j + 1}: evaluated")
        own = profile_values(table, (WIN,) * players, win=win, exact=exact)
        loss = exact_normal - V
        noise = float(np.max(np.abs(own.normal - exact_normal)))
        residual = max(residual, own.residual)
    start_exact = [float(x) for x in exact_normal[0]]
    if not play:  # the chances alone: nothing of the play was measured
        return Loss(players=players, target=table.rules.target, ties=table.rules.ties,
                    n_dice=table.n_dice, mean=None, worst=None, least=None, worst_state=None,
                    final_play=final_play, start=None, start_exact=start_exact, noise=None,
                    residual=None, chances=chances, start_shown=start,
                    seconds=time.perf_counter() - t0)
    worst = np.unravel_index(int(np.argmax(loss)), loss.shape)
    totals = seats.phases[NORMAL].decode(np.array([worst[0]]))[0] * 100
    return Loss(players=players, target=table.rules.target, ties=table.rules.ties,
                n_dice=table.n_dice, mean=float(loss.mean()), worst=float(loss.max()),
                least=float(loss.min()), worst_state=[*map(int, totals), int(worst[1])],
                final_play=final_play,
                start=[float(x) for x in loss[0]],
                start_exact=start_exact, noise=noise,
                residual=residual, chances=chances, start_shown=start,
                seconds=time.perf_counter() - t0)


__all__ = ["FINAL_SAMPLE", "NEAR", "Loss", "Off", "endings_of", "measure_loss"]
