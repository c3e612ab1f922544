"""`sabords solve-game --players N` for three players and more: the solve on Dask, its progress
line and what it proved; the build itself (where it runs, its checkpoints, the table written) is
:func:`solver.tables.build.build_ngame`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from ..rules.rulebook import Rules
from .application import describe_rules, echo
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
    from ..tables.build import Start, build_ngame

    def started(s: Start) -> None:
        sys.stderr.write(f"solving the {players}-player game for {rules.describe()}: "
                         + ", ".join(f"{n} {size:,} states" for n, size in s.sizes.items())
                         + (f"; resuming {s.resumed} ({', '.join(s.done) or 'no phase'} done)"
                            if s.resumed is not None else "") + "\n")

    def unsaved(path: Path, exc: OSError) -> None:
        say(f"sabords: warning: cannot write the checkpoint {str(path)!r}: "
            f"{exc.strerror or exc}; the solve goes on, but cannot be resumed")

    built = build_ngame(rules, players, directory, scheduler=scheduler, workers=workers,
                        resume=resume, block=block, started=started, progress=_Progress(),
                        unsaved=unsaved)
    sol = built.solution
    for name in sol.seats.phases:
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
    echo(f"table   {built.path} ({built.change}), {built.seconds:.0f} s")
    echo(f"rules   {describe_rules(rules)}")
