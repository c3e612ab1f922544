"""The measuring of `make bench` (scripts/bench.py): a figure, a run in a fresh process (its
wall time, peak memory and CPU), and the median of repeated runs. Printed, never asserted."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Figure:
    """One measured figure; `target` is the project's goal for it, when there is one."""

    name: str
    value: float
    unit: str
    target: float | None = None
    runs: list[float] = field(default_factory=list)
    note: str = ""

    def line(self) -> str:
        value = f"{self.value:.3f}" if self.unit == "s" else f"{self.value:.1f}"
        value = f"{self.value:.2f}" if self.unit == "x" else value
        text = f"  {self.name:<52} {value:>10} {self.unit:<3}"
        if self.target is not None:
            verdict = "ok" if self.value <= self.target else "OVER"
            text += f"  (target <= {self.target:.3g} {self.unit}: {verdict})"
        if self.note:
            text += f"  {self.note}"
        return text


@dataclass(frozen=True)
class Run:
    wall: float
    """Seconds from spawning the process to reaping it."""
    peak_mb: float
    """Maximum resident set size, MiB (Linux reports ru_maxrss in KiB)."""
    stdout: str
    cpu: float = 0.0
    """User + system CPU seconds of the process (less sensitive than wall to a busy machine)."""


def fresh_process(code: str, *args: str, env: dict[str, str] | None = None,
                  stdin: bytes = b"") -> Run:
    """Run `python -c code args...` in a fresh process from the repository's root, `stdin` on
    its standard input."""
    return _measured([sys.executable, "-c", code, *args], REPO,
                     {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}, "benchmark process",
                     stdin)


def _measured(command: list[str], cwd: Path, env: dict[str, str], what: str,
              stdin: bytes = b"") -> Run:
    """Run `command` in a fresh process: its output, wall time, peak memory and CPU."""
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as given:
        given.write(stdin)
        given.seek(0)
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=given, stdout=subprocess.PIPE,
                                stderr=err)
        assert proc.stdout is not None
        out = proc.stdout.read().decode()
        proc.stdout.close()
        # Reap the child ourselves: wait4 returns its rusage (the child and the descendants
        # it waited for), which Popen.wait would discard.
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status):
            err.seek(0)
            raise RuntimeError(f"{what} failed:\n{err.read().decode()}")
    return Run(wall=wall, peak_mb=usage.ru_maxrss / 1024, stdout=out,
               cpu=usage.ru_utime + usage.ru_stime)


def repeated(code: str, *args: str, repeat: int) -> list[Run]:
    return [fresh_process(code, *args) for _ in range(repeat)]


def median_figures(name: str, runs: list[Run], *, target: float | None = None,
                   note: str = "") -> list[Figure]:
    walls = [r.wall for r in runs]
    peaks = [r.peak_mb for r in runs]
    return [
        Figure(f"{name}: wall", statistics.median(walls), "s", target, walls, note),
        Figure(f"{name}: peak memory", max(peaks), "MiB", None, peaks),
    ]


def shell(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    """Run a command (not Python) in a fresh process: wall time and peak memory."""
    return _measured(command, cwd, {**os.environ, **(env or {})}, " ".join(command))
