r"""Solving the game of 2 to 5 players: every phase by policy iteration on the turns
(:func:`solve_game`, the one solver; its result is the one table, :class:`.table.GameTable`).

**What is solved.**  Every player maximises their own probability of winning (RULES.md,
Objectives, *win*), the others' strategies given: in every state the mover plays the turn that
is best for the mover, its ties broken by the engine's one rule
(:data:`solver.engine.solve.TIE_TOL`), which fixes every other seat's value too; and a mover
keeps its moves at a state unless the best turn beats them by more than the turn solves'
precision (the rule that makes policy iteration end: a move changes only for a strict gain;
near ties matter, as a mover indifferent between two turns can move the others' chances by a
millionth). The values are
those of this profile of strategies, a subgame-perfect equilibrium of the game's states:
nobody gains by deviating in any one turn. With two players the game is zero-sum and its value
unique; with more, equilibria need not be unique, and this is the one the iteration reaches
from its start (every value ``1/N``), the same one on every machine.

**Why policy iteration.**  Value iteration keeps every position value of every state's turn
between sweeps: with two players a value is a scalar, and 3600 states' turns fit in memory;
for three players at the default target there are 216,000 states (13 million for four) and a
value is a vector: that store would be about 56 GB in float64. Turns re-solved at every sweep
of value iteration would need only the value table, but a hundred sweeps of 216,000 x 12 turn
solves (about 1.2 ms a state on the 2-core machine of ``make bench``) is over seven hours.

**Policy iteration on the turns** (Howard 1960; Puterman, *Markov Decision Processes*, 1994,
§6.4, here for each mover in turn).  An *improvement* solves every state's turn from the
current value table (:func:`.turns.improve`): the mover's best play, and the probability of
every ending under it. An *evaluation* then solves the phase's linear equations for every
seat's values under those turns (:mod:`.evaluate`: a sparse system of at most 135 endings a
state, Gauss-Seidel, a few seconds). Repeat until an improvement changes no move at the final
precision. Each improvement solves every turn once; the evaluations cost little. The
improvements' precision follows the iteration (:func:`schedule`): early ones, whose values
the next evaluation moves anyway, stop their solves sooner.

The phases in order: sudden death, the final round's turns from the last to the first (each
needs only those after it: one improvement and one evaluation, no iteration; its states solved
in blocks of states that share their utility columns, :func:`column_blocks`, since most do),
normal play.

**Two players: the first values certified** (:func:`_certified`).  The two-player game is
zero-sum, its value unique, and its position values fit in memory: a cyclic phase's first
values are those of value iteration (:mod:`.iterate`, a few seconds), with a proved bound on
their distance to the game's value (:mod:`.certify`, recorded as the phase's
``certificate``). From values that close, one improvement at the final precision and its
evaluation afresh, the last step every cyclic phase ends with (:func:`last_step`), end the
phase; its gap is measured as every phase's is. The value iteration replaces the improvements
from ``1/N`` (seven a phase at the default target, 2.6 times the time).

**What is proved and what is measured** (:class:`.records.PhaseRecord`, stored in the table).
Proved: every value of the table is within ``bound`` of the exact value of the table's profile of
strategies (the evaluation's residual times a checked bound on the expected number of turns
in the phase, :func:`.evaluate.turns_bound`, plus the phases before it, plus the probability
the pushes left unassigned, :mod:`solver.engine.forward`). Measured: ``gap``, by how much
the best turn of a mover beats the profile's at the final values (at most the turn solves'
certified ``tol``, as a move changes for any larger gain: each turn is a best response to
within ``gap + tol``, given the values), and the last improvements' counts of changed moves.
Where best responses go round in a cycle at a few states (no pure stationary equilibrium
there: each of two movers' best turn depends on the other's, as in matching pennies), the
moves kept are those whose movers lose least, and ``slack`` records that loss (measured: a
mover of those states could gain that much). Not proved: that the iteration's fixed point is
unique for three players or more (it is the one reached, and the tests meet it two other
ways: an exact brute force on a reduced game, and whole games with real dice).

**The same bits.**  A cyclic phase ends with a last step (:func:`.cycles.settle`): its values are
those of its settled moves evaluated afresh, from every value at ``1/N`` (not from the
iterate), so that they depend on the moves and the phases before it alone, not on the path the
iteration took; and where the last improvement found a mover's best turn (by the one tie rule)
other than the move it kept, within the precision (a near tie), the best turn is taken if that
moves no value by more than :data:`.cycles.ADOPT`. With two players it did at targets 1000 and 6000
(measured, not proved: the other seat's value is the rest, so only the mover's gains below the
precision spread): the moves are then every mover's best turn at the table's values, which
the certified start reaches too, so that both routes give the same table bit for bit (a test
checks it). With three players a mover's near tie can move another seat's value by more,
and those moves stay.

The maths are plain functions of arrays (:mod:`.turns`, :mod:`.evaluate`); a *runner* places
the improvements' blocks of states: in this process (:class:`LocalRunner`) or on a Dask
cluster (:mod:`.cluster`). Every block's numbers are those of its states alone, so the table
is the same bits for any runner, any number of workers and any block size.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..engine import FloatArray, IntArray, kernel
from ..heap import kept
from ..rules.rulebook import NUM_DICE, Rules
from .cycles import (
    PhaseEquations,
    one_at_a_time,
    profile_hash,
    settle,
    stalled,
)
from .evaluate import _sweep_fn, order_of, turns_bound
from .model import GameModel, game_model, point_range
from .records import (
    BLOCK,
    CYCLE,
    FINAL_EPS,
    FINAL_ROUND,
    FINAL_TOL,
    FIRST_TOL,
    MAX_ITERATIONS,
    VALUE_ITERATION,
    Checkpoint,
    CyclicWork,
    PhaseRecord,
    Progress,
    ProgressFn,
)
from .seats import NORMAL, SUDDEN, Seats, final_name, seats_of
from .table import GameTable
from .turns import improve, mover_utilities


class Runner(Protocol):
    """Where the improvements' blocks run (:class:`LocalRunner`, :class:`.cluster.DaskRunner`)."""

    def improve(self, phase: str, blocks: Sequence[IntArray], Z: FloatArray,
                tol: float, eps: float, values: bool,
                known: Sequence[np.ndarray] | None = None,
                margins: bool = True) -> Iterator[tuple[int, Any]]:
        """Improve every block (the indices of its states; with `known`, the digests of their
        moves at their last improvement); yield (block number, result) as each finishes, in
        any order: an :class:`.turns.Improved`, or with `values` (a phase whose endings all
        lead out of it) the block's values (S, N). `margins`: the moves' margins too (only a
        cyclic phase's next improvement reads them, :func:`.turns.improve`)."""
        ...


def improve_block(rules: Rules, players: int, n_dice: int, phase: str, index: IntArray,
                  Z: FloatArray, tol: float, eps: float, values: bool,
                  known: np.ndarray | None = None, compact: bool = True,
                  margins: bool = True) -> Any:
    """One block's improvement (a runner's task: every argument is data). With `values` (a
    final-round phase: every ending leads out of it) the block's values. `compact`: the
    phases' layout (:attr:`.seats.Seats.compact`). `margins`: :func:`.turns.improve`'s."""
    gm = game_model(rules, n_dice)
    seats = seats_of(players, point_range(rules, n_dice), gm.n, rules.ties, compact=compact)
    index = np.asarray(index, dtype=np.int64)
    links = seats.successors(phase, index) if values else None
    with kernel.compiled_whenever_installed(), kept():
        got = improve(gm, seats, phase, index, Z, tol=tol, eps=eps, known=known, links=links,
                      margins=margins and not values)
    if not values:
        return got
    assert links is not None
    points, island = links
    out = np.zeros((index.shape[0], players))
    # a Jacobi step into `out` (its change, measured from the rows it would replace, unused),
    # compiled when the kernel is (the same bits either way)
    _sweep_fn()(np.arange(index.shape[0], dtype=np.int64), got.endings,
          np.ascontiguousarray(points.T), np.ascontiguousarray(island.T),
          gm.island_deductions(), Z, seats.offset(phase), seats.magic_row(), out)
    return out, got.best, got.lost, got.columns


class LocalRunner:
    """Every block in this process, one after the other (`compact`: the phases' layout,
    :attr:`.seats.Seats.compact`; the dense one is the tests' reference)."""

    def __init__(self, rules: Rules, players: int, n_dice: int = NUM_DICE, *,
                 compact: bool = True) -> None:
        self.rules, self.players, self.n_dice = rules, players, n_dice
        self.compact = compact

    def improve(self, phase: str, blocks: Sequence[IntArray], Z: FloatArray,
                tol: float, eps: float, values: bool,
                known: Sequence[np.ndarray] | None = None,
                margins: bool = True) -> Iterator[tuple[int, Any]]:
        for i, index in enumerate(blocks):
            yield i, improve_block(self.rules, self.players, self.n_dice, phase, index, Z,
                                   tol, eps, values, None if known is None else known[i],
                                   self.compact, margins)


COARSE = 1e-2
"""Improvements stay coarse (at most :data:`FIRST_TOL`) while an evaluation changes some value
by more than this, and go to the final precision at once after."""


def schedule(change: float | None) -> tuple[float, float]:
    """The next improvement's (tol, eps): while the values still move by more than
    :data:`COARSE`, the turn solves' certified bound a thousandth of the last evaluation's
    change (at most :data:`FIRST_TOL`); then the final precision at once. The pushes are
    always at the final precision.

    No steps in between: every precision re-breaks the movers' near ties, and with three
    players a mover's near tie can move the others' chances by a thousandth. Measured on the
    three-player game at 6000 with a precision stepping down with the change (normal play):
    each step changed the moves at 34,000 to 44,000 states and the values by 5e-4 to 1.2e-3,
    and settled within the step after two more improvements, so that every step cost three
    improvements (about 9 minutes) and the changes never fell below the next step's
    threshold."""
    if change is None:
        return FIRST_TOL, FINAL_EPS
    if change > COARSE:
        return min(FIRST_TOL, change * 1e-3), FINAL_EPS
    return FINAL_TOL, FINAL_EPS


def blocks_of(index: IntArray, block: int) -> list[IntArray]:
    """`index` in consecutive blocks of at most `block` states."""
    return [index[lo:lo + block] for lo in range(0, index.shape[0], block)]


KEY_CHUNK = 65_536
"""States whose utility columns :func:`column_blocks` reads at once (about 60 MB)."""
GROUP_STATES = 16
"""A block of :func:`column_blocks` holds at most this many times `block` states."""


def column_blocks(seats: Seats, name: str, Z: FloatArray, block: int) -> list[IntArray]:
    """The states of final-round phase `name` in blocks of states that share utility columns:
    every state whose mover's utilities are the same (compared as bytes) in one block, at most
    `block` distinct columns a block (and :data:`GROUP_STATES` x `block` states). A block
    solves each distinct column once (:func:`.turns.improve`), so the phase solves about as
    many columns as it has distinct ones, not as many as each block of consecutive states
    has: in the final round most states share their columns (the last final turn's utilities
    depend on little more than the mover's deficit to the best total). A state's numbers are
    its column's alone, so the values are the same bits as in blocks of consecutive states.

    The blocks list the states by column, in order of each column's first state."""
    size = seats.phases[name].size
    group_of: dict[bytes, int] = {}
    groups = np.empty(size, dtype=np.int64)
    for lo in range(0, size, KEY_CHUNK):
        index = np.arange(lo, min(size, lo + KEY_CHUNK), dtype=np.int64)
        u, _ = mover_utilities(seats, name, index, Z)
        rows = np.ascontiguousarray(u.T)
        keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).reshape(-1)
        distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        ids = np.empty(distinct.shape[0], dtype=np.int64)
        for j in np.argsort(first, kind="stable").tolist():  # new columns in order of appearance
            ids[j] = group_of.setdefault(distinct[j].tobytes(), len(group_of))
        groups[index] = ids[inverse.reshape(-1)]
    order = np.argsort(groups, kind="stable")
    sorted_groups = groups[order]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    most = GROUP_STATES * block
    out: list[IntArray] = []
    lo, columns = 0, 0
    for g_start, g_end in zip(starts.tolist(), [*starts.tolist()[1:], size], strict=True):
        if columns and (columns == block or g_end - lo > most):  # the block is full
            out.append(order[lo:g_start])
            lo, columns = g_start, 0
        columns += 1
        while g_end - lo > most:  # a column of more states than a block holds
            out.append(order[lo:lo + most])
            lo += most
    if lo < size:
        out.append(order[lo:size])
    return out


def solve_game(rules: Rules, players: int = 2, runner: Runner | None = None, *,
               n_dice: int = NUM_DICE, block: int = BLOCK,
               progress: ProgressFn | None = None,
               checkpoint: Callable[[Checkpoint], None] | None = None,
               resume: Checkpoint | None = None, compact: bool = True,
               certified: bool = True) -> GameTable:
    """Solve every phase of the `players`-player game of `rules` (module doc), its
    improvements run by `runner` (default: in this process). `compact`: False lays every
    final-round state out as its own row (:attr:`.seats.Seats.compact`: the same values, the
    tests' reference), in this process only. `certified`: two players' cyclic phases from
    value iteration's certified values (False: improvements from ``1/N``, as for more
    players: the same table, the tests' check)."""
    if not compact and runner is not None and getattr(runner, "compact", True):
        raise ValueError("the dense layout is solved in this process only")
    with kernel.compiled_whenever_installed(), kept():  # the heap kept: solver/heap.py
        return _solve(rules, players, runner, n_dice, block, progress, checkpoint, resume,
                      compact, certified and players == 2)


def _solve(rules: Rules, players: int, runner: Runner | None, n_dice: int, block: int,
           progress: ProgressFn | None, checkpoint: Callable[[Checkpoint], None] | None,
           resume: Checkpoint | None, compact: bool, certified: bool) -> GameTable:
    gm = game_model(rules, n_dice)
    seats = seats_of(players, point_range(rules, n_dice), gm.n, rules.ties, compact=compact)
    runner = runner or LocalRunner(rules, players, n_dice, compact=compact)
    state = resume or _start(seats)
    p_island = gm.island_deductions()
    for name, phase in seats.phases.items():
        if name in state.done:
            continue
        cyclic = phase.kind in (NORMAL, SUDDEN)
        record = state.records.setdefault(name, PhaseRecord(name))
        if not cyclic:
            _acyclic(gm, seats, name, column_blocks(seats, name, state.Z, block), state,
                     record, runner, progress)
        elif certified:
            _certified(gm, seats, name, block, state, record, runner, progress)
        else:
            _cyclic(gm, seats, name, block, state, record, runner, p_island, progress,
                    checkpoint)
        state.done.append(name)
        state.phase, state.iteration, state.digests, state.change = None, 0, [], None
        state.work = {}
        if checkpoint is not None:
            checkpoint(state)
    values = {name: state.Z[seats.offset(name):seats.offset(name) + ph.size].copy()
              for name, ph in seats.phases.items()}
    return GameTable(rules=rules, players=players, ranges=point_range(rules, n_dice),
                     values=values, records=state.records, n_dice=n_dice, compact=compact)


def start_row(players: int) -> FloatArray:
    """Every seat's value before anything is solved: ``1/N`` each, the last the rest."""
    row = np.full(players, 1.0 / players)
    row[-1] = 1.0 - (players - 1) * (1.0 / players)
    return row


def start_table(seats: Seats) -> FloatArray:
    """The stacked value table ``Z`` before anything is solved (the terminal rows set)."""
    Z = np.tile(start_row(seats.players), (seats.rows, 1))
    Z[seats.offset("terminal"):] = seats.terminal
    return Z


@dataclass(frozen=True)
class Step:
    """What :func:`last_step` did to one phase."""

    digest: np.ndarray
    """(size,) the digest of every state's moves."""
    gap: float
    """Measured: the most a mover's best turn (solved at the table it was given) is above the
    value the phase's rows now hold."""
    lost: float
    """The most probability a state's pushes left unassigned."""
    settled: float
    """The largest change of a value from the rows it was given."""
    residual: float
    """Cyclic phases: one more sweep's largest change (0 for a final-round phase)."""
    turns: float
    """Cyclic phases: the proved bound on the turns played in the phase (1 otherwise)."""
    sweeps: int
    """Cyclic phases: the evaluation's sweeps (0 for a final-round phase)."""


def last_step(rules: Rules, seats: Seats, name: str, Z: FloatArray, *, n_dice: int = NUM_DICE,
              block: int = BLOCK, runner: Runner | None = None) -> Step:
    """Phase `name`'s last step, in `Z`: every state's turn solved from `Z` at the final
    precision, and the phase's rows set to the values of those turns: evaluated afresh (a
    cyclic phase, as :func:`solve_game` ends one) or in one step (a final-round phase, as it
    solves one). Given the same moves and the same rows of the other phases, the same bits:
    a certified start (:func:`_certified`) ends its phase with it."""
    gm = game_model(rules, n_dice)
    phase = seats.phases[name]
    offset, size = seats.offset(name), phase.size
    index = np.arange(size, dtype=np.int64)
    blocks = blocks_of(index, block)
    runner = runner or LocalRunner(rules, seats.players, n_dice)
    before = Z[offset:offset + size].copy()
    digest = np.zeros(size, dtype=np.uint64)
    best, lost = np.zeros(size), np.zeros(size)
    if phase.kind not in (NORMAL, SUDDEN):
        blocks = column_blocks(seats, name, Z, block)
        new = np.empty((size, seats.players))
        for i, (v, b, lst, _) in runner.improve(name, blocks, Z, FINAL_TOL, FINAL_EPS, True):
            new[blocks[i]], best[blocks[i]], lost[blocks[i]] = v, b, lst
        Z[offset:offset + size] = new
        return Step(digest=digest, gap=float(np.max(np.abs(best - new[:, 0]), initial=0.0)),
                    lost=float(lost.max(initial=0.0)),
                    settled=float(np.max(np.abs(new - before), initial=0.0)),
                    residual=0.0, turns=1.0, sweeps=0)
    endings = np.zeros((size, gm.n_u))
    for i, got in runner.improve(name, blocks, Z, FINAL_TOL, FINAL_EPS, False, margins=False):
        at = blocks[i]
        endings[at], best[at], digest[at], lost[at] = got.endings, got.best, got.digest, got.lost
    points, island = seats.successor_table(name, index)
    ev = PhaseEquations(offset=offset, order=order_of(phase.decode(index)), points=points,
                         island=island, p_island=gm.island_deductions(),
                         magic=seats.magic_row(), endings=endings)
    with kernel.compiled_whenever_installed():
        settled = ev.settle(Z, start_row(seats.players))
    turns = turns_bound(offset, ev.order, ev.endings, ev.points, ev.island, ev.p_island,
                        Z.shape[0])
    return Step(digest=digest, gap=float(np.max(np.abs(best - Z[offset:offset + size, 0]),
                                                initial=0.0)),
                lost=float(lost.max(initial=0.0)), settled=settled, residual=ev.residual,
                turns=turns, sweeps=ev.sweeps)


def _start(seats: Seats) -> Checkpoint:
    return Checkpoint(Z=start_table(seats), done=[], records={})


def _acyclic(gm: GameModel, seats: Seats, name: str, blocks: list[IntArray],
             state: Checkpoint, record: PhaseRecord, runner: Runner,
             progress: ProgressFn | None) -> None:
    """A final-round phase: every ending leads out of it, so one improvement at the final
    precision and the values it gives are exact up to the solves' bounds."""
    t0 = time.perf_counter()
    offset = seats.offset(name)
    size = seats.phases[name].size
    new = np.empty((size, seats.players))
    best = np.empty(size)
    lost = 0.0
    for i, (v, b, lst, cols) in runner.improve(name, blocks, state.Z, FINAL_TOL, FINAL_EPS,
                                               True):
        new[blocks[i]], best[blocks[i]] = v, b
        lost = max(lost, float(np.max(lst, initial=0.0)))
        record.columns += cols
        if progress is not None:
            progress(Progress(name, 1, i + 1, len(blocks), time.perf_counter() - t0))
    state.Z[offset:offset + size] = new
    record.iterations, record.tol, record.changed = 1, [FINAL_TOL], [size]
    record.gap = float(np.max(np.abs(best - new[:, 0]), initial=0.0))
    record.lost = lost
    before = max((r.bound for n, r in state.records.items() if n in state.done), default=0.0)
    record.bound = before + lost
    if progress is not None:
        progress(Progress(name, 1, len(blocks), len(blocks), time.perf_counter() - t0,
                          change=record.gap, changed=size, step=FINAL_ROUND))


def _above(x: float) -> float:
    """A bound on the exact difference of two values in [0, 1] whose difference computed in
    floating point is `x` (one rounding of a subtraction)."""
    return x * (1.0 + 2.0 ** -52) + 2.0 ** -53


START_VALUE = 0.5
"""Two players: value iteration starts every value in the middle of [0, 1]."""
VI_TOL = 1e-12
"""Two players: value iteration stops after a plain sweep that moves no value by more than
this; the certificate turns it into a proven bound (about 400 times it at the default
target)."""


def _certified(gm: GameModel, seats: Seats, name: str, block: int, state: Checkpoint,
               record: PhaseRecord, runner: Runner, progress: ProgressFn | None) -> None:
    """Two players: cyclic phase `name` from value iteration's certified values, then one
    improvement at the final precision and its evaluation afresh (module doc). The record's
    ``certificate``: value iteration's sweeps and residual, and ``bound``, a proved bound on
    |the table's values - the game's value| (the certificate's, plus the tail's, plus the
    last step's change); the record's own ``bound``, as every phase's, bounds the distance to
    the exact values of the table's moves."""
    from .certify import certify
    from .iterate import bellman_at, iterate
    from .iterate import start as first_values
    from .model import lookup

    t0 = time.perf_counter()
    n = gm.n
    offset, size = seats.offset(name), seats.phases[name].size
    if name == SUDDEN:
        tail, tail_bound = np.zeros(1), 0.0
    else:  # the final turn G(a', b): the mover b against the leader a' >= n, row a' - n
        final = seats.phases[final_name(1)]
        row = seats.offset(final.name)
        tail = np.ascontiguousarray(state.Z[row:row + final.size, 0].reshape(n, -1).T).ravel()
        done = state.records[final.name]
        tail_bound = (state.records[SUDDEN].certificate or {}).get("bound", np.inf) + \
            done.gap + FINAL_TOL + done.lost

    def swept(phase: str, sweep: int, residual: float) -> None:
        if progress is not None:
            progress(Progress(name, sweep, 0, 0, time.perf_counter() - t0, step=VALUE_ITERATION))

    phase_state = first_values(name, gm, lookup(name, gm), START_VALUE)
    report = iterate(phase_state, tail, tol=VI_TOL, progress=swept)
    cert = certify(phase_state, tail, tail_bound=tail_bound,
                   bellman=bellman_at(phase_state, tail, (0.0,)))
    values = phase_state.table().reshape(-1)
    del phase_state
    state.Z[offset:offset + size] = np.stack([values, 1.0 - values], axis=1)
    if progress is not None:
        progress(Progress(name, report.sweeps, 0, 0, time.perf_counter() - t0,
                          change=report.residual, step=VALUE_ITERATION))
    t1 = time.perf_counter()
    step = last_step(gm.rules, seats, name, state.Z, n_dice=gm.n_dice, block=block,
                     runner=runner)
    record.iterations, record.changed, record.tol = 1, [size], [FINAL_TOL]
    record.gap, record.lost, record.settled = step.gap, step.lost, step.settled
    record.residual, record.sweeps, record.turns = step.residual, step.sweeps, step.turns
    before = max((r.bound for n_, r in state.records.items() if n_ in state.done), default=0.0)
    record.bound = record.turns * (record.residual + before + record.lost)
    record.certificate = {"sweeps": report.sweeps, "residual": report.residual,
                          "bound": cert.bound + _above(step.settled), "visits": cert.visits,
                          "progress": cert.progress, "island": cert.island,
                          "rolls": cert.rolls, "tail": cert.tail}
    if progress is not None:
        progress(Progress(name, 1, 1, 1, time.perf_counter() - t1, change=step.settled,
                          changed=size))


@dataclass
class _Improved:
    """What one improvement of a cyclic phase found."""

    active: IntArray
    """The states it solved again."""
    blocks: int
    changed: int
    """States whose moves it changed."""
    moved: np.ndarray
    gap: float
    best_responses: list[tuple[IntArray, np.ndarray, FloatArray, FloatArray]]
    """Per block, the states whose movers kept a move within the precision of their best
    turn (a near tie), with that best turn's digest, endings and lost probability."""


def _cyclic(gm: GameModel, seats: Seats, name: str, block: int, state: Checkpoint,
            record: PhaseRecord, runner: Runner, p_island: FloatArray,
            progress: ProgressFn | None, checkpoint: Callable[[Checkpoint], None] | None
            ) -> None:
    """Normal play or sudden death: improvements and evaluations until no move changes
    (module doc). An improvement solves again only the states whose utilities moved by at
    least the margin of their moves at their last solve (the others' moves cannot have
    changed, :func:`.turns.improve`), and the last one every state, at the final precision.
    When some movers keep answering each other's changes (the improvements change the same
    moves back and forth), those moves change one at a time (:func:`one_at_a_time`), and the
    improvements after that solve at the final precision: the precision never loosens, so
    near ties solved coarsely cannot swing the moves back."""
    phase = seats.phases[name]
    size = phase.size
    index = np.arange(size, dtype=np.int64)
    work = (CyclicWork.of(state.work, size) if state.work
            else CyclicWork.start(size, gm.n_u, gm.n_k))
    points, island = seats.successor_table(name, index)
    ev = PhaseEquations(offset=seats.offset(name), order=order_of(phase.decode(index)),
                        points=points, island=island, p_island=p_island,
                        magic=seats.magic_row(), endings=work.endings)
    del points, island
    state.phase = name
    while True:
        tol, eps = schedule(state.change)
        tol = min(tol, work.tol)  # never looser than before: near ties could swing back
        work.tol = tol
        t0 = time.perf_counter()
        got = _improve(seats, name, block, state, work, ev, record, runner, tol, eps,
                       progress, t0)
        _watch_cycles(gm, seats, name, state, work, ev, got, progress)
        change = ev.solve(state.Z)
        _evaluated(work, change)
        state.iteration += 1
        _record(record, state, work, ev, got, tol, change)
        if progress is not None:
            progress(Progress(name, state.iteration, got.blocks, got.blocks,
                              time.perf_counter() - t0, change=change, changed=got.changed))
        if tol <= FINAL_TOL and got.changed == 0 and got.active.shape[0] == size:
            state.work = work.arrays()
            break  # (the phase's end is checkpointed by the caller)
        # the last improvement solves every state: once the moves settle at the final precision
        work.full = tol <= FINAL_TOL and got.changed == 0
        state.work = work.arrays()
        if checkpoint is not None:
            checkpoint(state)
        if state.iteration >= MAX_ITERATIONS:
            raise RuntimeError(f"{name}: moves still change after {MAX_ITERATIONS} improvements")
    _end_cyclic(seats, state, record, work, ev, got.best_responses, p_island)


def _improve(seats: Seats, name: str, block: int, state: Checkpoint, work: CyclicWork,
             ev: PhaseEquations, record: PhaseRecord, runner: Runner, tol: float, eps: float,
             progress: ProgressFn | None, t0: float) -> _Improved:
    """One improvement: solve again the states whose utilities moved by at least the margin
    of their moves (every state when :attr:`CyclicWork.full`); a mover's move changes only for
    a gain beyond the precision (plus the slack of a cycle's states)."""
    size, offset = work.best.shape[0], ev.offset
    now = state.Z[ev.points, seats.players - 1]  # (size, n_k): every state's utilities
    if work.full or state.digest is None:
        active = np.arange(size, dtype=np.int64)
    else:
        moved = now - work.columns  # in place after: one array of the phase's size, not two
        np.abs(moved, out=moved)
        moved_by = moved.max(axis=1)
        del moved
        active = np.flatnonzero(moved_by + work.solved_at + tol >= work.margin)
    blocks = blocks_of(active, block)
    before_digest = work.digest.copy()
    known = None if state.digest is None else [before_digest[at] for at in blocks]
    best_responses: list[tuple[IntArray, np.ndarray, FloatArray, FloatArray]] = []
    for i, got in runner.improve(name, blocks, state.Z, tol, eps, False, known):
        at = blocks[i]
        moves, gain_margin = got.digest.copy(), got.margin.copy()
        if state.digest is not None:  # a move changes only for a gain beyond the precision
            keep = ((moves != before_digest[at])
                    & (got.best - state.Z[offset + at, 0] <= tol + work.slack[at]))
            moves[keep], gain_margin[keep] = before_digest[at][keep], 0.0
            near = keep & (work.slack[at] == 0.0)  # (a cycle's moves are not near ties)
            best_responses.append((at[near], got.digest[near], got.endings[near],
                                   got.lost[near]))
        else:
            keep = np.zeros(at.shape[0], dtype=bool)
        work.best[at], work.digest[at] = got.best, moves
        # (a kept state is solved every time)
        work.margin[at], work.solved_at[at] = gain_margin, tol
        fresh = got.fresh & ~keep
        new = at[fresh]  # the states pushed again (the others' moves are the last ones)
        ev.endings[new], work.lost[new] = got.endings[fresh], got.lost[fresh]
        work.columns[at] = now[at]
        record.columns += got.columns
        if progress is not None:
            progress(Progress(name, state.iteration + 1, i + 1, len(blocks),
                              time.perf_counter() - t0))
    moved = (np.ones(size, dtype=bool) if state.digest is None
             else work.digest != before_digest)
    gap = float(np.max(np.abs(work.best - state.Z[offset:offset + size, 0]), initial=0.0))
    return _Improved(active=active, blocks=len(blocks), changed=int(np.count_nonzero(moved)),
                     moved=moved, gap=gap, best_responses=best_responses)


def _watch_cycles(gm: GameModel, seats: Seats, name: str, state: Checkpoint,
                  work: CyclicWork, ev: PhaseEquations, got: _Improved,
                  progress: ProgressFn | None = None) -> None:
    """A profile of the moves met before: the moves go round in a cycle, and those that
    changed since change one at a time (:func:`one_at_a_time`, its evaluations reported as
    the step :data:`CYCLE`); the precision is the final one from then on."""
    work.moved_at[got.moved] = state.iteration + 1
    profile = profile_hash(work.digest)
    again = np.flatnonzero(work.seen == profile)
    if got.changed and again.shape[0]:
        since = int(work.seen_at[again[-1]])
        swing = np.flatnonzero(work.moved_at > since)
        t0 = time.perf_counter()

        def tick(done: int) -> None:
            if progress is not None:
                progress(Progress(name, state.iteration + 1, done, int(swing.shape[0]),
                                  time.perf_counter() - t0, step=CYCLE))

        one_at_a_time(gm, seats, name, ev, state, work.digest, swing, work.slack, tick)
        work.tol = FINAL_TOL
    work.seen = np.append(work.seen, np.asarray([profile], dtype=np.uint64))
    work.seen_at = np.append(work.seen_at, np.asarray([state.iteration + 1], dtype=np.int64))


def _evaluated(work: CyclicWork, change: float) -> None:
    """An evaluation's largest change, remembered: values that barely converge while the
    moves still change (:func:`stalled`) go to the final precision."""
    work.changes = np.append(work.changes, np.asarray([change], dtype=np.float64))
    if stalled(work.changes):
        work.tol = FINAL_TOL


def _record(record: PhaseRecord, state: Checkpoint, work: CyclicWork, ev: PhaseEquations,
            got: _Improved, tol: float, change: float) -> None:
    """The phase's record after an improvement and its evaluation."""
    size, offset = work.best.shape[0], ev.offset
    record.iterations = state.iteration
    record.changed.append(got.changed)
    record.tol.append(tol)
    record.gap, record.residual, record.sweeps = got.gap, ev.residual, ev.sweeps
    record.lost = float(work.lost.max(initial=0.0))
    cyc = work.slack > 0
    record.cycles = int(np.count_nonzero(cyc))
    record.slack = float(np.max(work.best[cyc] - state.Z[offset:offset + size, 0][cyc],
                                initial=0.0))
    state.digests, state.change = [*state.digests[-1:], work.digest.copy()], change


def _end_cyclic(seats: Seats, state: Checkpoint, record: PhaseRecord, work: CyclicWork,
                ev: PhaseEquations,
                best_responses: list[tuple[IntArray, np.ndarray, FloatArray, FloatArray]],
                p_island: FloatArray) -> None:
    """The phase's end (:func:`settle`) and what is proved about it."""
    size, offset = work.best.shape[0], ev.offset
    record.settled, record.adopted = settle(ev, state.Z, start_row(seats.players),
                                            best_responses, work.digest, work.lost)
    record.gap = float(np.max(np.abs(work.best - state.Z[offset:offset + size, 0]),
                              initial=0.0))
    record.lost = float(work.lost.max(initial=0.0))
    record.residual, record.sweeps = ev.residual, ev.sweeps
    record.turns = turns_bound(offset, ev.order, ev.endings, ev.points, ev.island, p_island,
                               state.Z.shape[0])
    before = max((r.bound for n, r in state.records.items() if n in state.done), default=0.0)
    record.bound = record.turns * (record.residual + before + record.lost)


