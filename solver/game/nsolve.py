r"""Solving the game for any number of players: every phase by policy iteration on the turns.

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

**Why not the two-player method.**  The two-player solve (:mod:`.iterate`) keeps every
position value of every state's turn between sweeps: its value is a scalar, and 3600 states'
turns fit in memory. For three players at the default target there are 216,000 states (13
million for four) and a value is a vector: that store would be about 56 GB in float64. Turns
re-solved at every sweep of value iteration would need only the value table, but a hundred
sweeps of 216,000 x 12 turn solves (about 1.2 ms a state on the 2-core machine of
``make bench``) is over seven hours.

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

**What is proved and what is measured** (:class:`PhaseRecord`, stored in the table).  Proved:
every value of the table is within ``bound`` of the exact value of the table's profile of
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

**The same bits.**  A cyclic phase ends with a last step (:func:`_settle`): its values are
those of its settled moves evaluated afresh, from every value at ``1/N`` (not from the
iterate), so that they depend on the moves and the phases before it alone, not on the path the
iteration took; and where the last improvement found a mover's best turn (by the one tie rule)
other than the move it kept, within the precision (a near tie), the best turn is taken if that
moves no value by more than :data:`ADOPT`. With two players it did at targets 1000 and 6000
(measured, not proved: the other seat's value is the rest, so only the mover's gains below the
precision spread): the moves are then every mover's best turn at the table's values, which
the certified two-player solve (:func:`.solve.solve_game`, another algorithm) reaches too, and
ending every phase with the same step (:func:`last_step`) it gives this solver's table bit for
bit. With three players a mover's near tie can move another seat's value by more, and those
moves stay.

The maths are plain functions of arrays (:mod:`.turns`, :mod:`.evaluate`); a *runner* places
the improvements' blocks of states: in this process (:class:`LocalRunner`) or on a Dask
cluster (:mod:`.cluster`). Every block's numbers are those of its states alone, so the table
is the same bits for any runner, any number of workers and any block size.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..engine import FloatArray, IntArray, kernel
from ..rules import NUM_DICE, Rules
from .evaluate import _sweep_fn, evaluate, order_of, turns_bound
from .model import NORMAL, SUDDEN, GameModel, game_model, point_range
from .seats import Seats, seats_of
from .turns import improve, mover_utilities

FINAL_TOL = 1e-12
"""The certified bound of the last improvements' turn solves."""
FINAL_EPS = 1e-13
"""The probability a turn's pushes may leave unassigned per layer (every improvement: a state
left alone keeps its endings, which must then be as good as the last improvement's)."""
EVAL_TOL = 1e-15
"""An evaluation sweeps until no value moves by more than this."""
FIRST_TOL = 1e-5
"""The first improvement's precision (its values are only a start)."""
MAX_ITERATIONS = 60
"""Improvements of one phase before giving up (a bug, not a user error)."""
BLOCK = 4096
"""States a task improves (each takes seconds; any size gives the same bits)."""

ProgressFn = Callable[["Progress"], None]


@dataclass(frozen=True)
class Progress:
    """Where a solve is: reported after every block of an improvement and every evaluation."""

    phase: str
    iteration: int
    done: int
    """Blocks of this improvement done."""
    blocks: int
    seconds: float
    """Since this improvement began."""
    change: float | None = None
    """The last evaluation's largest change of a value (None during an improvement)."""
    changed: int | None = None
    """States whose moves the last improvement changed."""


class Runner(Protocol):
    """Where the improvements' blocks run (:class:`LocalRunner`, :class:`.cluster.DaskRunner`)."""

    def improve(self, phase: str, blocks: Sequence[IntArray], Z: FloatArray,
                tol: float, eps: float, values: bool,
                known: Sequence[np.ndarray] | None = None) -> Iterator[tuple[int, Any]]:
        """Improve every block (the indices of its states; with `known`, the digests of their
        moves at their last improvement); yield (block number, result) as each finishes, in
        any order: an :class:`.turns.Improved`, or with `values` (a phase whose endings all
        lead out of it) the block's values (S, N)."""
        ...


def improve_block(rules: Rules, players: int, n_dice: int, phase: str, index: IntArray,
                  Z: FloatArray, tol: float, eps: float, values: bool,
                  known: np.ndarray | None = None) -> Any:
    """One block's improvement (a runner's task: every argument is data). With `values` (a
    final-round phase: every ending leads out of it) the block's values."""
    gm = game_model(rules, n_dice)
    seats = seats_of(players, point_range(rules, n_dice), gm.n, rules.ties)
    index = np.asarray(index, dtype=np.int64)
    links = seats.successors(phase, index) if values else None
    with kernel.compiled_whenever_installed():
        got = improve(gm, seats, phase, index, Z, tol=tol, eps=eps, known=known, links=links)
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
    """Every block in this process, one after the other."""

    def __init__(self, rules: Rules, players: int, n_dice: int = NUM_DICE) -> None:
        self.rules, self.players, self.n_dice = rules, players, n_dice

    def improve(self, phase: str, blocks: Sequence[IntArray], Z: FloatArray,
                tol: float, eps: float, values: bool,
                known: Sequence[np.ndarray] | None = None) -> Iterator[tuple[int, Any]]:
        for i, index in enumerate(blocks):
            yield i, improve_block(self.rules, self.players, self.n_dice, phase, index, Z,
                                   tol, eps, values, None if known is None else known[i])


@dataclass
class PhaseRecord:
    """How a phase was solved, and what is proved about its values (module doc)."""

    name: str
    iterations: int = 0
    changed: list[int] = field(default_factory=list)
    """States whose moves each improvement changed (the first: every state)."""
    tol: list[float] = field(default_factory=list)
    """Each improvement's certified bound of the turn solves."""
    gap: float = 0.0
    """Measured: max over states of |the mover's best turn at the last improvement - the
    table's value of the mover| (cyclic phases: after the phase's last step)."""
    residual: float = 0.0
    """The last evaluation's residual (one more sweep's largest change)."""
    sweeps: int = 0
    """Sweeps of the last evaluation."""
    turns: float = 1.0
    """Proved: the bound on the expected turns played in the phase (1 when acyclic)."""
    lost: float = 0.0
    """The most probability a state's pushes left unassigned, last improvement."""
    bound: float = 0.0
    """Proved: max |value - the profile's exact value| over the phase's states and seats."""
    columns: int = 0
    """Distinct utility columns solved, over every improvement."""
    cycles: int = 0
    """States where best responses go round in a cycle (no profile of the moves met there is
    stable): their moves are the profile whose movers lose least (:func:`_stable_profile`)."""
    slack: float = 0.0
    """Measured: the most a mover of those states gains by changing its turn (0 without)."""
    settled: float = 0.0
    """Measured: by how much the phase's end moved a value from the iterate (cyclic phases:
    the values are those of the settled moves evaluated afresh, :func:`_settle`)."""
    adopted: int = 0
    """States whose near ties the phase's end settled by the tie rule (:func:`_settle`)."""

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "iterations": self.iterations, "changed": self.changed,
                "tol": self.tol, "gap": self.gap, "residual": self.residual,
                "sweeps": self.sweeps, "turns": self.turns, "lost": self.lost,
                "bound": self.bound, "columns": self.columns, "cycles": self.cycles,
                "slack": self.slack, "settled": self.settled, "adopted": self.adopted}


@dataclass
class NGameSolution:
    """Every phase's values of an ``N``-player game (seat 0 the mover), and their records."""

    rules: Rules
    players: int
    seats: Seats
    values: dict[str, FloatArray]
    """Per phase, (size, N): every state's value of every seat (the phase's box order)."""
    records: dict[str, PhaseRecord]
    n_dice: int = NUM_DICE

    def stacked(self, rows: IntArray | None = None) -> FloatArray:
        """The value table ``Z`` (every phase, then the terminal rows; `rows`, the rows a
        caller will read, as a table read from a file takes them, changes nothing here)."""
        return np.concatenate([*(self.values[p] for p in self.seats.phases),
                               self.seats.terminal])


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


@dataclass
class Checkpoint:
    """Everything a solve needs to go on after an interruption (module :mod:`.cluster` writes
    and reads it): the table so far, the phase and iteration, the last digest and change."""

    Z: FloatArray
    done: list[str]
    records: dict[str, PhaseRecord]
    phase: str | None = None
    iteration: int = 0
    digests: list[np.ndarray] = field(default_factory=list)
    """The moves' digests of the phase's last two improvements (the latest last)."""
    change: float | None = None
    work: dict[str, np.ndarray] = field(default_factory=dict)
    """The phase's arrays between improvements (every state's endings, margin...): what the
    next improvement keeps for the states it does not solve again."""

    @property
    def digest(self) -> np.ndarray | None:
        return self.digests[-1] if self.digests else None


def solve_nplayer(rules: Rules, players: int, runner: Runner | None = None, *,
                  n_dice: int = NUM_DICE, block: int = BLOCK,
                  progress: ProgressFn | None = None,
                  checkpoint: Callable[[Checkpoint], None] | None = None,
                  resume: Checkpoint | None = None) -> NGameSolution:
    """Solve every phase of the `players`-player game of `rules` (module doc)."""
    with kernel.compiled_whenever_installed():
        return _solve(rules, players, runner, n_dice, block, progress, checkpoint, resume)


def _solve(rules: Rules, players: int, runner: Runner | None, n_dice: int, block: int,
           progress: ProgressFn | None, checkpoint: Callable[[Checkpoint], None] | None,
           resume: Checkpoint | None) -> NGameSolution:
    gm = game_model(rules, n_dice)
    seats = seats_of(players, point_range(rules, n_dice), gm.n, rules.ties)
    runner = runner or LocalRunner(rules, players, n_dice)
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
    return NGameSolution(rules=rules, players=players, seats=seats, values=values,
                         records=state.records, n_dice=n_dice)


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
    cyclic phase, as :func:`solve_nplayer` ends one) or in one step (a final-round phase, as it
    solves one). Given the same moves and the same rows of the other phases, the same bits:
    the two-player solve (:func:`.solve.solve_game`) ends every phase with it, so that its
    table is this solver's with two players, bit for bit."""
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
    for i, got in runner.improve(name, blocks, Z, FINAL_TOL, FINAL_EPS, False):
        at = blocks[i]
        endings[at], best[at], digest[at], lost[at] = got.endings, got.best, got.digest, got.lost
    points, island = seats.successors(name, index)
    ev = _PhaseEquations(offset=offset, order=order_of(phase.decode(index)),
                         points=np.ascontiguousarray(points.T.astype(np.int64)),
                         island=np.ascontiguousarray(island.T.astype(np.int64)),
                         p_island=gm.island_deductions(), magic=seats.magic_row(),
                         endings=endings)
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


def _cyclic(gm: GameModel, seats: Seats, name: str, block: int, state: Checkpoint,
            record: PhaseRecord, runner: Runner, p_island: FloatArray,
            progress: ProgressFn | None, checkpoint: Callable[[Checkpoint], None] | None
            ) -> None:
    """Normal play or sudden death: improvements and evaluations until no move changes
    (module doc). An improvement solves again only the states whose utilities moved by at
    least the margin of their moves at their last solve (the others' moves cannot have
    changed, :func:`.turns.improve`), and the last one every state, at the final precision.
    When some movers keep answering each other's changes (the improvements change the same
    moves back and forth), those moves change one at a time (:func:`_one_at_a_time`), and the
    improvements after that solve at the final precision: the precision never loosens, so
    near ties solved coarsely cannot swing the moves back."""
    phase = seats.phases[name]
    offset = seats.offset(name)
    size = phase.size
    index = np.arange(size, dtype=np.int64)
    points, island = seats.successors(name, index)
    if not state.work:
        state.work = {
            "endings": np.zeros((size, gm.n_u)),
            "best": np.zeros(size),
            "digest": np.zeros(size, dtype=np.uint64),
            "margin": np.zeros(size),  # nothing known yet: every state is solved first
            "solved_at": np.full(size, np.inf),  # the precision of each state's last solve
            "columns": np.zeros((size, gm.n_k)),  # the utilities it was last solved for
            "lost": np.zeros(size),
            "full": np.ones(1, dtype=bool),  # the next improvement solves every state
        }
    work = state.work
    # (a checkpoint of an older solve may lack these)
    work.setdefault("tol", np.full(1, FIRST_TOL))  # the tightest precision used so far
    work.setdefault("moved_at", np.full(size, -1, dtype=np.int64))  # when a move last changed
    work.setdefault("seen", np.zeros(0, dtype=np.uint64))  # every profile's hash, in order
    work.setdefault("seen_at", np.zeros(0, dtype=np.int64))  # and its improvement
    work.setdefault("changes", np.zeros(0))  # every evaluation's largest change
    work.setdefault("slack", np.zeros(size))  # the gain a state's mover may leave (cycles)
    ev = _PhaseEquations(offset=offset, order=order_of(phase.decode(index)),
                         points=np.ascontiguousarray(points.T.astype(np.int64)),
                         island=np.ascontiguousarray(island.T.astype(np.int64)),
                         p_island=p_island, magic=seats.magic_row(), endings=work["endings"])
    del points, island
    best, digest, margin = work["best"], work["digest"], work["margin"]
    solved_at, columns, lost = work["solved_at"], work["columns"], work["lost"]
    slack = work["slack"]
    state.phase = name
    while True:
        tol, eps = schedule(state.change)
        # never looser than before: near ties solved coarsely again could swing back
        tol = min(tol, float(work["tol"][0]))
        work["tol"][0] = tol
        t0 = time.perf_counter()
        now = state.Z[ev.points, seats.players - 1]  # (size, n_k): every state's utilities
        if work["full"][0] or state.digest is None:
            active = index
        else:
            moved_by = np.max(np.abs(now - columns), axis=1)
            active = np.flatnonzero(moved_by + solved_at + tol >= margin)
        blocks = blocks_of(active, block)
        before_digest = digest.copy()
        known = None if state.digest is None else [before_digest[at] for at in blocks]
        best_responses: list[tuple[IntArray, np.ndarray, FloatArray, FloatArray]] = []
        for i, got in runner.improve(name, blocks, state.Z, tol, eps, False, known):
            at = blocks[i]
            moves, gain_margin = got.digest.copy(), got.margin.copy()
            if state.digest is not None:  # a move changes only for a gain beyond the precision
                keep = ((moves != before_digest[at])
                        & (got.best - state.Z[offset + at, 0] <= tol + slack[at]))
                moves[keep], gain_margin[keep] = before_digest[at][keep], 0.0
                near = keep & (slack[at] == 0.0)  # (a cycle's moves are not near ties)
                best_responses.append((at[near], got.digest[near], got.endings[near],
                                       got.lost[near]))
            else:
                keep = np.zeros(at.shape[0], dtype=bool)
            best[at], digest[at] = got.best, moves
            margin[at], solved_at[at] = gain_margin, tol  # (a kept state is solved every time)
            fresh = got.fresh & ~keep
            new = at[fresh]  # the states pushed again (the others' moves are the last ones)
            ev.endings[new], lost[new] = got.endings[fresh], got.lost[fresh]
            columns[at] = now[at]
            record.columns += got.columns
            if progress is not None:
                progress(Progress(name, state.iteration + 1, i + 1, len(blocks),
                                  time.perf_counter() - t0))
        moved = (np.ones(size, dtype=bool) if state.digest is None
                 else digest != before_digest)
        changed = int(np.count_nonzero(moved))
        gap = float(np.max(np.abs(best - state.Z[offset:offset + size, 0]), initial=0.0))
        work["moved_at"][moved] = state.iteration + 1
        profile = _profile_hash(digest)
        again = np.flatnonzero(work["seen"] == profile)
        if changed and again.shape[0]:  # a profile met before: the moves go round in a cycle
            since = int(work["seen_at"][again[-1]])
            swing = np.flatnonzero(work["moved_at"] > since)
            _one_at_a_time(gm, seats, name, ev, state, digest, swing, slack)
            work["tol"][0] = FINAL_TOL  # and from now on at the final precision
        _remember(work, "seen", np.uint64(profile), np.uint64)
        _remember(work, "seen_at", state.iteration + 1, np.int64)
        change = ev.solve(state.Z)
        _remember(work, "changes", change, np.float64)
        if _stalled(work["changes"]):  # the moves still change, the values barely converge
            work["tol"][0] = FINAL_TOL
        state.iteration += 1
        record.iterations = state.iteration
        record.changed.append(changed)
        record.tol.append(tol)
        record.gap, record.residual, record.sweeps = gap, ev.residual, ev.sweeps
        record.lost = float(lost.max(initial=0.0))
        cyc = slack > 0
        record.cycles = int(np.count_nonzero(cyc))
        record.slack = float(np.max(best[cyc] - state.Z[offset:offset + size, 0][cyc],
                                    initial=0.0))
        state.digests, state.change = [*state.digests[-1:], digest.copy()], change
        if progress is not None:
            progress(Progress(name, state.iteration, len(blocks), len(blocks),
                              time.perf_counter() - t0, change=change, changed=changed))
        was_full = active.shape[0] == size
        if tol <= FINAL_TOL and changed == 0 and was_full:
            break  # (the phase's end is checkpointed by the caller)
        # the last improvement solves every state: once the moves settle at the final precision
        work["full"][0] = tol <= FINAL_TOL and changed == 0
        if checkpoint is not None:
            checkpoint(state)
        if state.iteration >= MAX_ITERATIONS:
            raise RuntimeError(f"{name}: moves still change after {MAX_ITERATIONS} improvements")
    record.settled, record.adopted = _settle(ev, state.Z, start_row(seats.players),
                                             best_responses, digest, lost)
    record.gap = float(np.max(np.abs(best - state.Z[offset:offset + size, 0]), initial=0.0))
    record.lost = float(lost.max(initial=0.0))
    record.residual, record.sweeps = ev.residual, ev.sweeps
    record.turns = turns_bound(offset, ev.order, ev.endings, ev.points, ev.island, p_island,
                               state.Z.shape[0])
    before = max((r.bound for n, r in state.records.items() if n in state.done), default=0.0)
    record.bound = record.turns * (record.residual + before + record.lost)


ADOPT = 1e-10
"""A phase's last near ties are settled by the one tie rule when that moves no value by more
than this (:func:`_settle`)."""


def _settle(ev: _PhaseEquations, Z: FloatArray, start: FloatArray,
            best_responses: list[tuple[IntArray, np.ndarray, FloatArray, FloatArray]],
            digest: np.ndarray, lost: FloatArray) -> tuple[float, int]:
    """A cyclic phase's end (module doc, *the same bits*): the values of its moves evaluated
    afresh, so that they depend on the moves alone, not on the iteration's path; and the moves
    themselves every mover's best response at the last improvement by the one tie rule, where
    a mover kept another move within the precision (a near tie), if the values move by at most
    :data:`ADOPT` for it (with two players they did at 1000 and 6000, measured; with
    more, a mover's near tie can move another seat's value by more, and the kept moves stay).
    Returns the largest change of a value from the iterate, and the moves adopted."""
    iterate = Z[ev.offset:ev.offset + ev.endings.shape[0]].copy()
    kept = ev.settle(Z, start)
    at = np.concatenate([b[0] for b in best_responses] or [np.zeros(0, dtype=np.int64)])
    if at.shape[0] == 0:
        return kept, 0
    values = Z[ev.offset:ev.offset + ev.endings.shape[0]].copy()
    saved = ev.endings[at].copy()
    figures = (ev.residual, ev.sweeps)
    for where, _, endings, _ in best_responses:
        ev.endings[where] = endings
    ev.settle(Z, start)
    after = Z[ev.offset:ev.offset + ev.endings.shape[0]]
    if float(np.max(np.abs(after - values), initial=0.0)) > ADOPT:
        ev.endings[at] = saved  # the kept moves stay
        Z[ev.offset:ev.offset + ev.endings.shape[0]] = values
        ev.residual, ev.sweeps = figures
        return kept, 0
    for where, moves, _, lst in best_responses:
        digest[where], lost[where] = moves, lst
    return float(np.max(np.abs(after - iterate), initial=0.0)), int(at.shape[0])


def _profile_hash(digest: np.ndarray) -> int:
    """A hash of the moves of every state of a phase (their digests, in order)."""
    import hashlib

    return int.from_bytes(hashlib.blake2b(np.ascontiguousarray(digest, dtype="<u8").tobytes(),
                                          digest_size=8).digest(), "little")


def _remember(work: dict[str, np.ndarray], key: str, value: Any, dtype: Any) -> None:
    """Append `value` to the history ``work[key]``."""
    work[key] = np.append(work[key], np.asarray([value], dtype=dtype))


STALL = 4
"""Evaluations whose changes, within a factor 2 of each other, show the values stalled."""


def _stalled(changes: FloatArray) -> bool:
    """Whether the last :data:`STALL` evaluations changed the values by about the same: the
    moves changing at a few near ties of the coarse turn solves, which a finer solve settles."""
    last = changes[-STALL:]
    return last.shape[0] == STALL and bool(last.min() > 0) and bool(last.max() <= 2 * last.min())


@dataclass
class _PhaseEquations:
    """A cyclic phase's evaluation: its successors, and every state's endings."""

    offset: int
    order: IntArray
    points: IntArray
    island: IntArray
    p_island: FloatArray
    magic: int
    endings: FloatArray
    residual: float = 0.0
    sweeps: int = 0

    def solve(self, Z: FloatArray) -> float:
        """Evaluate the phase in `Z` from its current values; the largest change."""
        size = self.endings.shape[0]
        before = Z[self.offset:self.offset + size].copy()
        got = evaluate(Z, self.offset, self.order, self.endings, self.points, self.island,
                       self.p_island, self.magic, tol=EVAL_TOL)
        self.residual, self.sweeps = got.residual, got.sweeps
        return float(np.max(np.abs(Z[self.offset:self.offset + size] - before), initial=0.0))

    def settle(self, Z: FloatArray, start: FloatArray) -> float:
        """Evaluate the phase in `Z` afresh, its rows from `start`: its values are then a
        function of its endings and the other phases' rows alone. The largest change from
        the values it had."""
        size = self.endings.shape[0]
        before = Z[self.offset:self.offset + size].copy()
        Z[self.offset:self.offset + size] = start
        self.solve(Z)
        return float(np.max(np.abs(Z[self.offset:self.offset + size] - before), initial=0.0))


def _one_at_a_time(gm: GameModel, seats: Seats, name: str, ev: _PhaseEquations,
                   state: Checkpoint, digest: np.ndarray, swing: IntArray,
                   slack: FloatArray) -> None:
    """Settle the moves that the improvements change back and forth (at the states `swing`):
    from the last improvement's profile, evaluate the phase; the first of those states (in
    index order) whose best move differs takes it; again, until none would change. Each step
    is one mover's best response to all the others (sequential best responses). When those
    go round in a cycle, the profiles of the moves met at these states are tried in turn
    (:func:`_stable_profile`). A state's mover keeps its move for a gain up to its `slack`."""
    order = np.sort(swing)
    seen: set[bytes] = set()
    met: list[dict[int, np.ndarray]] = [{} for _ in order]  # per state: digest -> endings
    for j, s in enumerate(order.tolist()):
        met[j][int(digest[s])] = ev.endings[s].copy()
    while True:
        ev.solve(state.Z)
        now = improve(gm, seats, name, order, state.Z, tol=FINAL_TOL, eps=FINAL_EPS)
        for j in range(order.shape[0]):
            met[j].setdefault(int(now.digest[j]), now.endings[j].copy())
        differ = np.flatnonzero(_gains(now, digest, order, state.Z, ev.offset) > slack[order])
        if differ.shape[0] == 0:
            return
        key = digest[order].tobytes()
        if key in seen:
            _stable_profile(gm, seats, name, ev, state, digest, order, met, slack)
            return
        seen.add(key)
        j = int(differ[0])
        ev.endings[order[j]] = now.endings[j]
        digest[order[j]] = now.digest[j]


def _gains(now: Any, digest: np.ndarray, order: IntArray, Z: FloatArray,
           offset: int) -> FloatArray:
    """By how much the movers of the states `order` would gain by changing their moves: their
    best turn (`now`, solved at the final precision) over their moves' value, beyond that
    precision (0 where the best turn is their moves or gains no more)."""
    gain = now.best - Z[offset + order, 0] - FINAL_TOL
    return np.where(now.digest != digest[order], np.maximum(gain, 0.0), 0.0)


MAX_PROFILES = 4096
"""Profiles of moves :func:`_stable_profile` tries before giving up."""
MAX_SLACK = 1e-4
"""The most a mover may gain by changing its turn at a state of a cycle (else no profile).
Three players at 6000 leave 7.8e-12 at their one cycle state; four players at target 300 with
8 dice leave 5.4e-6 at 2 states of normal play (of the 8 whose moves cycled; recorded)."""


class NoEquilibrium(RuntimeError):
    """Best responses cycle at some states and no profile of the moves met there is stable to
    :data:`MAX_SLACK` (or there are too many to try): the phase has no table."""


def _stable_profile(gm: GameModel, seats: Seats, name: str, ev: _PhaseEquations,
                    state: Checkpoint, digest: np.ndarray, order: IntArray,
                    met: list[dict[int, np.ndarray]], slack: FloatArray) -> None:
    """Sequential best responses cycle at the states `order`: try every profile of the moves
    met there (each state's in the order they were met, the first state's varying slowest)
    until one is stable (every mover's best response is its own move, or gains at most its
    `slack`), adding the best responses met on the way and trying again. When none is and no
    new move turns up (a pure stationary equilibrium need not exist, as in matching pennies:
    each mover's best move is the other of the two at the other state's), the profile whose
    largest gain is least, the first of those tried, is kept and each of its movers may leave
    twice its gain (`slack`, recorded as :attr:`PhaseRecord.slack`); :class:`NoEquilibrium`
    if even that gain is above :data:`MAX_SLACK`."""
    import itertools

    least: tuple[float, tuple[int, ...], FloatArray] | None = None
    while True:
        options = [list(m.items()) for m in met]
        count = 1
        for o in options:
            count *= len(o)
        if count > MAX_PROFILES:
            raise NoEquilibrium(f"{name}: best responses cycle at {order.shape[0]} states "
                                f"({count} profiles of their moves: too many to try)")
        new = False
        for profile in itertools.product(*(range(len(o)) for o in options)):
            for j, pick in enumerate(profile):
                d, endings = options[j][pick]
                ev.endings[order[j]] = endings
                digest[order[j]] = np.uint64(d)
            ev.solve(state.Z)
            now = improve(gm, seats, name, order, state.Z, tol=FINAL_TOL, eps=FINAL_EPS)
            gains = _gains(now, digest, order, state.Z, ev.offset)
            if not (gains > slack[order]).any():
                return
            if least is None or gains.max() < least[0]:
                least = (float(gains.max()), profile, gains)
            for j in range(order.shape[0]):
                if int(now.digest[j]) not in met[j]:
                    met[j][int(now.digest[j])] = now.endings[j].copy()
                    new = True
        if not new:
            break
    assert least is not None
    worst, profile, gains = least
    if worst > MAX_SLACK:
        raise NoEquilibrium(f"{name}: no profile of the moves met at {order.shape[0]} states "
                            f"is stable (each mover's best response to the others): the "
                            f"least gain a mover leaves is {worst:.1e}")
    for j, pick in enumerate(profile):
        d, endings = options[j][pick]
        ev.endings[order[j]] = endings
        digest[order[j]] = np.uint64(d)
    slack[order] = np.maximum(slack[order], 2.0 * gains)
    ev.solve(state.Z)
