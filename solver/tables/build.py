"""Building a game table: where the solve runs (this process, a local Dask cluster or a
scheduler's), its checkpoint after each improvement, ``--resume``, and the table written
(:func:`build_game`). The front ends only word what it reports: the command line its progress
line and its closing lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SettingsError
from ..game.records import Checkpoint, ProgressFn
from ..limits import IN_PROCESS_SECONDS
from ..rules.rulebook import Rules
from .checkpoints import checkpoint_path, load_checkpoint, resumable, save_checkpoint
from .fileformat import write_compared
from .game import game_table_path, write_game

if TYPE_CHECKING:
    from ..game import GameTable


class BuildError(SettingsError):
    """The solve ended without a table (no stable profile where best responses cycle), or the
    table could not be written."""


@dataclass(frozen=True)
class Start:
    """What a build is about to do: the phases' sizes and the checkpoint it resumes from."""

    sizes: dict[str, int]
    resumed: Path | None
    done: list[str]
    """The phases the checkpoint had finished (resuming)."""


@dataclass(frozen=True)
class Built:
    """A table built: the solution (its records say what is proved and what is measured), its
    file, whether the file is ``"new"``, ``"unchanged"`` or ``"changed"``, and the seconds the
    solve took."""

    solution: GameTable
    path: Path
    change: str
    seconds: float


def build_game(rules: Rules, players: int, directory: Path, *, scheduler: str | None = None,
               workers: int | None = None, resume: bool = False, block: int,
                started: Callable[[Start], None] | None = None,
                progress: ProgressFn | None = None,
                unsaved: Callable[[Path, OSError], None] | None = None) -> Built:
    """Solve the `players`-player game of `rules` and write its table into `directory`.

    The solve runs on the scheduler at `scheduler`, else on `workers` local Dask workers (0: in
    this process; None: one a core, or in this process for a game solved in about
    :data:`IN_PROCESS_SECONDS` or less). After each improvement its state is saved beside the
    table (:func:`.checkpoints.checkpoint_path`); `resume` continues from it, and a finished
    build removes it. A checkpoint that cannot be written (a full disk) is reported once to
    `unsaved` and the solve goes on without a point to resume.
    """
    from ..game import game_model, point_range, solve_game
    from ..game.cycles import NoEquilibrium
    from ..game.seats import seats_of
    from ..game.solve import LocalRunner, Runner
    from ..limits import game_cost

    gm = game_model(rules)
    seats = seats_of(players, point_range(rules), gm.n, rules.ties)
    saved = checkpoint_path(directory, players)
    state: Checkpoint | None = None
    if resume:
        state = load_checkpoint(resumable(directory, players), rules, players, gm.n_dice,
                                seats.rows)
    if started is not None:
        started(Start(sizes={name: phase.size for name, phase in seats.phases.items()},
                      resumed=saved if state is not None else None,
                      done=list(state.done) if state is not None else []))
    failing = False  # (a flag, not the errors: an error's traceback keeps the frames of the
    # write, and so a packed copy of the state, alive: one more at every failed write)

    def checkpoint(st: Checkpoint) -> None:
        nonlocal failing
        try:
            save_checkpoint(saved, rules, players, gm.n_dice, st)
        except OSError as exc:
            if not failing and unsaved is not None:
                unsaved(saved, exc)
            failing = True
        else:
            failing = False

    where: AbstractContextManager[Any]
    if scheduler is not None:
        from ..game.cluster import connect

        where = connect(scheduler)
    elif workers == 0 or (workers is None
                          and game_cost(rules.target, players)[0] <= IN_PROCESS_SECONDS):
        where = nullcontext(None)
    else:
        from ..game.cluster import local_cluster

        where = local_cluster(workers)
    began = time.perf_counter()
    with where as client:
        runner: Runner
        if client is None:
            runner = LocalRunner(rules, players)
        else:
            from ..game.cluster import DaskRunner

            runner = DaskRunner(client, rules, players)
        try:
            sol = solve_game(rules, players, runner, block=block, progress=progress,
                             checkpoint=checkpoint, resume=state)
        except NoEquilibrium as exc:
            kept = "" if failing else f" (the checkpoint {saved} keeps the phases done)"
            raise BuildError(f"{exc}: no table written{kept}") from None
    seconds = time.perf_counter() - began
    path = game_table_path(directory, players)
    try:
        change = write_compared(path, lambda: write_game(sol, directory))
    except OSError as exc:
        raise BuildError(f"cannot write the game table into {str(directory)!r}: "
                         f"{exc.strerror}") from None
    saved.unlink(missing_ok=True)
    return Built(solution=sol, path=path, change=change, seconds=seconds)
