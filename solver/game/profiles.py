"""Every player's exact probability of winning when some play to win and others for points.

A *profile* gives each seat a way to play its turns: ``win`` (the game table's turn at every
state: the mover's best turn from the table's values, :mod:`.turns`) or ``points`` (the
expected-points optimum, the same turn at every state). The game under a profile is a Markov
chain on the states and on whose seat moves: its values are one linear system, solved by the
evaluation of :mod:`.evaluate` on a table of N copies of every phase (copy ``c``: seat ``c``
of the profile is about to move; a turn leads from copy ``c`` to copy ``c + 1``).

This is how the strategy report computes "the edge of playing to win" exactly, instead of
simulating games: seat 0 playing ``win`` against others playing ``points``, and the reverse.
The ``win`` turns are those of the table's values, as the solver's last improvement found
them; the profile's own values are then exact (up to the evaluation's bound, reported), and
nobody re-optimises against the points players (the solver's strategy, as it is).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..engine import TIE_TOL, FloatArray, kernel
from ..engine.codes import UNUSED, USED
from ..engine.forward import endings as push
from ..engine.kernel import from_lanes, to_lanes
from ..engine.objectives import ExpectedPoints
from ..engine.solve import solve_layers
from ..rules.aims import POINTS, WIN
from .evaluate import _sweep_fn, order_of
from .model import UNIT, GameModel, game_model
from .records import BLOCK, FINAL_EPS, FINAL_TOL
from .seats import NORMAL, SUDDEN, Seats
from .solve import blocks_of

EVAL_TOL = 1e-15


def points_endings(gm: GameModel) -> FloatArray:
    """(n_u,): the deck-weighted probability of every utility row of a turn played for
    expected points (the same at every state), Skull Island excluded."""
    objective = ExpectedPoints()
    k = np.arange(gm.k_min, gm.k_max + 1) * UNIT
    u = np.concatenate([objective.of_points(k)[:, 0],
                        objective.of_magic(np.array([k[-1]]))[:, 0]])[:, None]
    ul = to_lanes(u, 1)
    out = np.zeros(gm.n_u)
    for card, weight in gm.weights.items():
        ct = gm.cards[card]
        w0 = ct.worlds[ct.model.worlds[0]]
        solved = solve_layers(ct.model, ct.st, ul, w0.stop_idx, w0.bust_idx, tol=1e-10)
        code, sor = {}, {}
        for world in ct.model.worlds:
            w = ct.worlds[world]
            q_used = solved.keeps[USED] if world == UNUSED else None
            code[world], sor[world], _ = kernel.best_moves(solved.keeps[world], q_used, ul, w,
                                                           ct.st, TIE_TOL, w.sorceress_ok)
        ends = push(ct.st, ct.model.worlds, ct.worlds, code, sor, ct.first, ct.first_bust_row,
                    gm.n_u, eps=FINAL_EPS)
        out = out + weight * from_lanes(ends.mass, 1)[:, 0]
    return out


@dataclass(frozen=True)
class ProfileValues:
    """Every seat's probability of winning from every normal-play state under a profile."""

    profile: tuple[str, ...]
    normal: FloatArray
    """(size, N): seat ``j`` of the profile's probability, the state's totals from seat 0
    (seat 0 about to move)."""
    residual: float


def win_endings(table: Any, gm: GameModel, seats: Seats, runner: Any = None,
                progress: Callable[[str, int, int], None] | None = None,
                phases: Sequence[str] | None = None) -> dict[str, FloatArray]:
    """Per phase (size, n_u; `phases`, or every one): the endings of the mover's win turn at
    every state, from the table's values (the solver's turns), by `runner` (:mod:`.solve`:
    this process by default, or a Dask cluster's)."""
    from .solve import LocalRunner

    runner = runner or LocalRunner(table.rules, table.players, table.n_dice)
    Z = table.stacked()
    out = {}
    for name, phase in seats.phases.items():
        if phases is not None and name not in phases:
            continue
        ends = np.zeros((phase.size, gm.n_u))
        blocks = blocks_of(np.arange(phase.size), BLOCK)
        for i, got in runner.improve(name, blocks, Z, FINAL_TOL, FINAL_EPS, False,
                                     margins=False):
            ends[blocks[i]] = got.endings
            if progress is not None:
                progress(name, i + 1, len(blocks))
        out[name] = ends
    return out


LINK_BLOCK = 8192
"""States whose successors :func:`copy_links` computes at once (the whole final round of
three players at once, two profiles at a time, ran a 24 GB machine out of memory)."""


Rows = NDArray[np.integer[Any]]
"""Rows of a profile's table (int32 or int64: :func:`copy_links`)."""


def copy_links(seats: Seats, name: str, rows: int) -> list[tuple[Rows, Rows]]:
    """Per copy ``c`` of phase `name` (seat ``c`` of a profile moves; module doc): the rows
    every ending of its states leads to in the profile's table, ``points`` (size, n_k) and
    ``island`` (size, n_ded): the next seat's copy, or the terminal rows (kept once, after
    the copies). Built a block of states at a time, as int32 when the rows fit."""
    players = seats.players
    phase = seats.phases[name]
    kind = np.int32 if players * rows + 2**players < 2**31 else np.int64
    n_k = seats.k_max - seats.k_min + 1
    out: list[tuple[Rows, Rows]] = [
        (np.empty((phase.size, n_k), kind), np.empty((phase.size, seats.n_ded), kind))
        for _ in range(players)]
    for lo in range(0, phase.size, LINK_BLOCK):
        index = np.arange(lo, min(lo + LINK_BLOCK, phase.size), dtype=np.int64)
        for both in zip(seats.successors(name, index), *out, strict=True):
            r = both[0].T  # (block, n_k) or (block, n_ded): rows of the game table
            terminal = r >= rows
            for c, dest in enumerate(both[1:]):
                here = (c + 1) % players * rows  # a turn leads to the next seat's copy
                dest[lo:lo + r.shape[0]] = np.where(terminal, r - rows + players * rows,
                                                    r + here)
    return out


def profile_values(table: Any, profile: Sequence[str], *,
                   win: dict[str, FloatArray] | None = None, runner: Any = None,
                   progress: Callable[[str, int, int], None] | None = None,
                   points: FloatArray | None = None,
                   ways: Mapping[str, Mapping[str, FloatArray]] | None = None,
                   exact: Sequence[str] = ()) -> ProfileValues:
    """The values of `profile` (one of ``win``/``points`` a seat, or of the names of `ways`,
    seat 0 moving first) at every normal-play state (module doc); `win` and `points` the
    endings of the two ways to play when known (:func:`win_endings`, :func:`points_endings`);
    `ways`: other ways to play, by name, as their endings per phase (size, n_u), such as a
    near-optimal method's (:mod:`solver.strategy.measure`); `exact`: phases every seat plays
    as the table does (their values the table's: nothing to evaluate there). The sweeps
    release the interpreter's lock: several profiles evaluate at once in threads."""
    gm = game_model(table.rules, table.n_dice)
    seats = table.seats
    players = table.players
    ways = ways or {}
    if len(profile) != players or set(profile) - {WIN, POINTS, *ways}:
        raise ValueError(f"a profile is {players} of win and points, not {list(profile)}")
    if WIN in profile and win is None:
        win = win_endings(table, gm, seats, runner, progress)
    if points is None:
        points = points_endings(gm)
    rows = seats.offset("terminal")
    # copy c of every row: seat c of the profile moves; the terminal rows once, at the end
    Z = np.full((players * rows + 2**players, players), 1.0 / players)
    Z[players * rows:] = seats.terminal
    p_island = gm.island_deductions()
    fn = _sweep_fn()
    magic = players * rows + 1
    none = np.zeros((0, players))
    residual = 0.0
    for name, phase in seats.phases.items():
        if name in exact:  # every copy the table's values
            lo = seats.offset(name)
            values = np.asarray(table.stacked(np.arange(lo, lo + phase.size)))[lo:lo + phase.size]
            for c in range(players):
                Z[c * rows + lo:c * rows + lo + phase.size] = values
            continue
        index = np.arange(phase.size, dtype=np.int64)
        cyclic = phase.kind in (NORMAL, SUDDEN)
        order = order_of(phase.decode(index)) if cyclic else index
        links = copy_links(seats, name, rows)
        # the points turn's endings, one array for every copy that plays it (the final round
        # has 1.2 million states with three players: 1.3 GB)
        same = (np.ascontiguousarray(np.broadcast_to(points, (phase.size, gm.n_u)))
                if POINTS in profile else None)
        copies = []
        for c in range(players):
            ends = (ways[profile[c]][name] if profile[c] in ways
                    else win[name] if profile[c] == WIN and win is not None else same)
            copies.append((order, ends, *links[c], p_island, Z, c * rows + seats.offset(name),
                           magic, none))
        del links, same
        while True:  # the copies of a phase read each other: swept together
            worst = max(fn(*args) for args in copies)
            if not cyclic or worst <= EVAL_TOL:
                break
        residual = max(residual, worst if cyclic else 0.0)
    start = seats.offset(NORMAL)
    size = seats.phases[NORMAL].size
    return ProfileValues(tuple(profile), Z[start:start + size].copy(), residual)


def lone_profiles(players: int) -> list[list[str]]:
    """The profiles of "the edge of playing to win": one seat playing ``win`` against the
    others playing ``points`` (seat 0, then 1, ...), then one seat playing ``points`` against
    the others playing ``win``; 2 × `players` profiles."""
    win, points = str(WIN.value), str(POINTS.value)
    alone = [[points] * i + [win] + [points] * (players - 1 - i) for i in range(players)]
    return alone + [[win] * i + [points] + [win] * (players - 1 - i) for i in range(players)]


@dataclass(frozen=True)
class EdgeOfPlay:
    """Every seat's chance from the start of the game under each of :func:`lone_profiles`."""

    profiles: tuple[tuple[str, ...], ...]
    start: tuple[tuple[float, ...], ...]
    """Per profile, every seat's probability of winning from the start (seat 0 to move)."""
    residual: float
    """The largest residual of the profiles' evaluations (their cyclic phases)."""


def edge_of_play(table: Any, win: dict[str, FloatArray],
                 log: Callable[[str], None] = lambda m: None, threads: int = 2) -> EdgeOfPlay:
    """The values from the start of :func:`lone_profiles` under `table`, `win` the win turns
    of every state (:func:`win_endings`: a cluster's work, done and closed before these
    sweeps), the profiles `threads` at a time (the sweeps release the interpreter's lock;
    three players at 6000, two at a time: 4.0 GB at most, `make profiles`)."""
    from concurrent.futures import ThreadPoolExecutor

    points = points_endings(game_model(table.rules, table.n_dice))
    profiles = lone_profiles(table.players)
    log(f"the values of {len(profiles)} profiles, {threads} at a time")
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        done = list(pool.map(lambda p: profile_values(table, p, win=win, points=points),
                             profiles))
    return EdgeOfPlay(tuple(tuple(p) for p in profiles),
                      tuple(tuple(float(x) for x in d.normal[0]) for d in done),
                      max(d.residual for d in done))
