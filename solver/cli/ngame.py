"""`sabords solve-game --players N` for three players and more: the solve on Dask, its progress
line, its checkpoints and what it proved (:mod:`solver.game.nsolve`, :mod:`solver.game.cluster`).
"""

from __future__ import annotations

import sys
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from ..rules import Rules
from .app import describe_rules, echo, fail
from .streams import say


class _Progress:
    """One line on stderr, redrawn on a terminal (a line a finished improvement into a log):
    the phase, the improvement, its blocks, the time it has taken and an estimate of the time
    it has left; after each, the largest change of a value and the moves it changed."""

    def __init__(self) -> None:
        self.live = sys.stderr.isatty()
        self.started = time.perf_counter()

    def __call__(self, p: Any) -> None:
        try:
            if p.change is None:
                if not self.live:
                    return
                rate = p.seconds / p.done if p.done else 0.0
                left = rate * (p.blocks - p.done)
                sys.stderr.write(f"\r{p.phase} improvement {p.iteration}: block {p.done} of "
                                 f"{p.blocks}, {p.seconds:.0f} s, about {left:.0f} s left   ")
            else:
                text = (f"{p.phase} improvement {p.iteration}: {p.seconds:.1f} s, largest "
                        f"change {p.change:.1e}, moves changed at {p.changed} states "
                        f"({time.perf_counter() - self.started:.0f} s in all)")
                sys.stderr.write(("\r" if self.live else "") + text + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed or full stderr: the solve goes on quietly
            pass


def solve_players(rules: Rules, players: int, directory: Path, *, scheduler: str | None,
                  workers: int | None, resume: bool, block: int) -> None:
    """Solve the `players`-player game of `rules` into `directory` (module doc)."""
    from ..game import game_model, point_range
    from ..game.cluster import (
        DaskRunner,
        connect,
        load_checkpoint,
        local_cluster,
        save_checkpoint,
    )
    from ..game.nsolve import LocalRunner, NoEquilibrium, Runner, solve_nplayer
    from ..game.seats import seats_of
    from ..gametables import ngame_table_path, write_ngame

    gm = game_model(rules)
    seats = seats_of(players, point_range(rules), gm.n, rules.ties)
    saved = directory / f"game-{players}.checkpoint"
    state = None
    if resume:
        if not saved.is_file():
            fail(f"nothing to resume: no checkpoint {saved} (a solve writes it after each "
                 f"improvement)")
        state = load_checkpoint(saved, rules, players, gm.n_dice, seats.rows)
    sizes = {name: phase.size for name, phase in seats.phases.items()}
    sys.stderr.write(f"solving the {players}-player game for {rules.describe()}: "
                     + ", ".join(f"{n} {s:,} states" for n, s in sizes.items())
                     + (f"; resuming {saved} ({', '.join(state.done) or 'no phase'} done)"
                        if state is not None else "") + "\n")

    unsaved: list[str] = []

    def checkpoint(st: Any) -> None:
        try:
            save_checkpoint(saved, rules, players, gm.n_dice, st)
        except OSError as exc:  # a full disk: the solve goes on, without a point to resume
            if not unsaved:
                say(f"sabords: warning: cannot write the checkpoint {str(saved)!r}: "
                    f"{exc.strerror or exc}; the solve goes on, but cannot be resumed")
            unsaved.append(str(exc))
        else:
            unsaved.clear()

    where: AbstractContextManager[Any]
    if scheduler is not None:
        where = connect(scheduler)
    elif workers == 0:
        where = nullcontext(None)
    else:
        where = local_cluster(workers)
    started = time.perf_counter()
    with where as client:
        runner: Runner = (LocalRunner(rules, players) if client is None
                          else DaskRunner(client, rules, players))
        try:
            sol = solve_nplayer(rules, players, runner, block=block, progress=_Progress(),
                                checkpoint=checkpoint, resume=state)
        except NoEquilibrium as exc:
            kept = ("" if unsaved else
                    f" (the checkpoint {saved} keeps the phases done)")
            fail(f"{exc}: no table written{kept}")
    seconds = time.perf_counter() - started
    path = ngame_table_path(directory, players)
    before = path.read_bytes() if path.is_file() else None
    try:
        write_ngame(sol, directory)
    except OSError as exc:
        fail(f"cannot write the game table into {str(directory)!r}: {exc.strerror}")
    saved.unlink(missing_ok=True)
    change = ("new" if before is None else
              "unchanged" if before == path.read_bytes() else "changed")
    for name in seats.phases:
        r = sol.records[name]
        echo(f"{name:<7} {r.iterations:2d} improvements  moves changed {r.changed[-1]}  "
             f"proved bound {r.bound:.1e}  measured gap {r.gap:.1e}"
             + (f"  near ties settled by the tie rule at {r.adopted} states" if r.adopted
                else "")
             + (f"  cycle at {r.cycles} states, measured slack {r.slack:.1e}" if r.cycles
                else ""))
    start = sol.values["normal"][0]
    echo("P(win) from all totals 0, in seat order: "
         + ", ".join(f"{100 * p:.4f} %" for p in start))
    echo("proved: every value is within its phase's bound of the exact value of the table's "
         "strategies")
    echo("measured: the gap, by how much a mover's best turn beats the table's at its values")
    if any(r.cycles for r in sol.records.values()):
        echo("measured: the slack, what a mover could still gain at the states where best "
             "responses went round in a cycle (no pure equilibrium there)")
    echo(f"table   {path} ({change}), {seconds:.0f} s")
    echo(f"rules   {describe_rules(rules)}")
