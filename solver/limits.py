"""What a computation may ask of this machine, checked before it starts.

- **Workers** (:func:`check_jobs`): at most one per core (:func:`cores`); more only share the
  cores and each costs a process and its memory. A solve never starts more workers than it
  has tasks.
- **Seeds** (:func:`check_seed`): a non-negative integer below 2**64 (numpy's PCG64 and
  Python's `random` both take it; numpy refuses negative ones).
- **Outputs** (:func:`check_writable`): a directory a long solve will write into is created
  and tried with a scratch file first, so that a read-only or full disk is refused before the
  minute of solving, not after.
- **The game's size** (:func:`game_cost`): the memory and time the game of 2 to 5 players
  takes at a target, from measurements; the largest target is :data:`MAX_TARGET`, which the
  rules object enforces (:class:`solver.rules.Rules`). Every figure the project gives of it
  (help texts, the progress line, the refusal of a target) is :func:`game_cost_text`.

Every refusal is a :class:`~solver.errors.SettingsError` whose `subject` names the setting.
Pure Python (every command's start-up path).
"""

from __future__ import annotations

import os
from math import prod
from pathlib import Path

from .errors import SettingsError, quote

MAX_SEED = 2**64 - 1
MAX_TARGET = 20_000
"""The largest `target`: what a 2-core machine with 24 GB solves. The two-player game grows
with the square of the target in memory and time (one column per pair of totals): measured
0.84 GB and 20 s at target 6000, 3.4 GB and 106 s at 14000 on that machine (`sabords
solve-game`), about 0.24 GB + 0.16 MB x (target/100)^2 and 5.2 ms x (target/100)^2: at 20000
about 6.7 GB and 3.5 minutes (:func:`game_cost`)."""
PATH_LIMIT = 240
"""Paths are quoted whole up to this length (a path is needed whole to be found)."""


def cores() -> int:
    """The cores this process may run on: its CPU affinity where the system tells it, capped
    by the container's CPU quota (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``) where one is
    set. A machine of 2 cores in a host of 64 runs 2 workers and 2 threads, not 64 (each
    thread of the compiled kernel holds its own buffers)."""
    try:
        n = max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        n = max(1, os.cpu_count() or 1)
    quota = _cpu_quota()
    return max(1, min(n, quota)) if quota is not None else n


def _cpu_quota() -> int | None:
    """The cores the cgroup's CPU quota allows (rounded up), None where there is none."""
    from math import ceil

    def read(path: str) -> str:
        return Path(path).read_text(encoding="ascii").strip()

    for v2 in (True, False):
        try:
            if v2:
                quota, period = read("/sys/fs/cgroup/cpu.max").split()[:2]
            else:
                quota = read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
                period = read("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
            if quota in ("max", "-1"):
                return None
            return max(1, ceil(int(quota) / int(period)))
        except (OSError, ValueError, ZeroDivisionError):
            continue
    return None


CGROUP_MEMORY = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
"""Where the container's memory limit is read (cgroup v2, then v1): the first that exists."""


def memory(cgroup: tuple[str, ...] = CGROUP_MEMORY) -> int | None:
    """The bytes of memory this process may use: the machine's physical memory, capped by the
    container's limit (cgroup v2 ``memory.max``, v1 ``memory.limit_in_bytes``) where one is
    set; None where the system does not say."""
    total: int | None
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):  # not on a POSIX system that says
        total = None
    if total is not None and total <= 0:  # (-1 from a system that does not know)
        total = None
    for path in cgroup:
        try:
            limit = int(Path(path).read_text(encoding="ascii").strip())
        except (OSError, ValueError):  # absent, or "max": no limit
            continue
        if limit > 0:  # (v1's "no limit" is a huge number: the physical memory is less)
            total = limit if total is None else min(total, limit)
        break
    return total


def check_jobs(jobs: int, tasks: int) -> int:
    """The workers to start for `tasks` tasks when `jobs` are asked: `jobs`, capped by the
    number of tasks; a :class:`SettingsError` unless 1 <= `jobs` <= :func:`cores`."""
    limit = cores()
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= limit:
        raise SettingsError(
            f"the number of workers must be 1 to {limit} (one per core of this machine, which "
            f"has {limit}), not {quote(jobs)}", subject="jobs")
    return max(1, min(jobs, tasks))


def check_seed(seed: int) -> int:
    """`seed`, or a :class:`SettingsError` unless 0 <= seed <= 2**64 - 1."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise SettingsError(f"a random seed is an integer from 0 to 2**64 - 1, not "
                            f"{quote(seed)}", subject="seed")
    return seed


def check_writable(directory: Path | str, what: str = "the tables") -> Path:
    """Create `directory` if needed and write and remove a scratch file in it; a
    :class:`SettingsError` naming the directory and the system's reason if that fails."""
    path = Path(directory)
    shown = quote(str(path), PATH_LIMIT)
    if str(directory) == "":
        raise SettingsError(f"cannot write {what} into '': give a directory", subject="out")
    if path.exists() and not path.is_dir():
        raise SettingsError(f"cannot write {what} into {shown}: it is not a directory",
                            subject="out")
    scratch = path / f".sabords-write-check.{os.getpid()}"
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, b"x")
        finally:
            os.close(fd)
            scratch.unlink(missing_ok=True)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise SettingsError(f"cannot write {what} into {shown}: {reason}",
                            subject="out") from None
    return path


def final_round_phases(n: int, players: int, k_max: int = 106, n_ded: int = 17) -> list[int]:
    """The rows of each phase of a game's final round at target `n` units
    (:class:`solver.game.seats.Seats`'s compact phases, counted without numpy; the defaults
    are the default rules' point range): ``final1`` first (the last final turn), the first
    final turn after the trigger's (``final{players-1}``) last. A test holds the counts to
    the seats'."""
    high = n + max(k_max, 1)
    out = []
    for r in range(1, players):
        lo = [0] * r + [max(0, n - (players - 1 - r) * (n_ded - 1))] + [0] * (players - 1 - r)
        hi = [n] * r + [high] * (players - r)
        safe = n + r * (n_ded - 1) if r < players - 1 and n + r * (n_ded - 1) < high else 0
        box_hi = hi[:r] + [min(h, safe) if safe else h for h in hi[r:]]
        box = prod(max(h - low, 0) for low, h in zip(lo, box_hi, strict=True))
        movers = prod(hi[i] - lo[i] for i in range(r))
        span = max(max(hi[r:]) - safe, 0) if safe else 0
        out.append(box + movers * (2 ** (players - r) - 1) * span)
    return out


def final_rounds(n: int, players: int, k_max: int = 106, n_ded: int = 17) -> int:
    """The rows of a game's final round at target `n` units: every phase's
    (:func:`final_round_phases`)."""
    return sum(final_round_phases(n, players, k_max, n_ded))


CYCLIC_CORE_MS = 10.0
"""Core-ms a state of a cyclic phase (normal play, sudden death) takes over its improvements
(both phases' states, wall clock on 2 cores): three players at 1000 and 2000 about 8.5 and
9.2 core-ms, at 6000 about 10; four at 500 and 700, 9.5 and 6.9; five at 500 and 1000, 8.1
and 9.3."""
FINAL_ROW_CORE_MS = {3: (0.46, 0.30), 4: (1.28, 0.21, 0.27),
                     5: (1.04, 0.26, 0.065, 0.019)}
"""Core-ms a row of each phase of the final round takes, the first final turn after the
trigger's first (the phase :func:`final_round_phases` lists last), the last final turn last.
A phase solves each distinct utility column once (:func:`solver.game.solve.column_blocks`):
the first final turn has almost one a row (the mover's chance depends on the totals of every
player still to play: four players at 700, 32,908 columns for 36,358 rows), the last one few
(it depends on little more than the deficit to the best total: 2,720 for 89,579), more a row
at larger targets. Timed phase by phase on 2 cores (docs/solver.md, "The cost model, phase by
phase"), the largest game of each size: three players at 2000 (9.76 and 4.25 s, one
process), four at 700 (23.34 and 8.86 s; the last final turn's 0.27 core-ms is four at
2000's, 129.7 s for 945,720 rows on two workers before the same moves were pushed once,
where the rate of four at 700, 0.040, would have said 19 s), five at 1000 (550.5, 452.3, 241.0 and
43.5 s, two workers). A flat 0.5 core-ms a row said 86 minutes for five players at 1000 and
3.7 minutes for five at 300, which took 38.7 minutes and 21.1 s."""
START_SECONDS = 3.0
"""A game of three players or more: the process's start, numba's kernels loaded from its
cache, the successors and the table written. Four players at 300 took 20.8 s (the process),
12.8 s of it its normal play settling a cycle of best responses, which no model of the size
foresees (10 s by the model)."""


def game_cost(target: int, players: int = 2) -> tuple[float, float]:
    """(seconds, bytes): about what solving the game of `players` at `target` takes on a
    2-core machine.

    Two players, fitted to measured solves (`sabords solve-game`, numba kernel compiled; peak
    resident memory by `/usr/bin/time`): targets 2000, 3000, 4000, 6000, 8000, 10000 and 14000
    took 3.0, 5.0, 10.8, 19.9, 30.1, 48.0 and 105.5 s and 0.26, 0.36, 0.47, 0.84, 1.33, 1.92 and
    3.37 GB. Both grow with the square of the target (one column per pair of totals; the
    sweeps grow slowly too: 85 at 6000, 141 at 14000).

    Three players and more, from the measured rates: :data:`CYCLIC_CORE_MS` a state of the cyclic
    phases over their improvements, :data:`FINAL_ROW_CORE_MS` a row of each phase of the final
    round, on both cores, and :data:`START_SECONDS`. Against whole solves (wall clock, one process
    up to :data:`IN_PROCESS_SECONDS`, else two workers; the model's in brackets): three players at
    1000 and 2000, 12.7 and 88.2 s (17 and 97 s); four at 500 and 700, 20.6 and 52.1 s (29 and 71
    s); five at 300, 400, 500 and 1000, 21.1, 50.5, 122.2 and 2321 s (36, 82, 168 and 2300 s);
    three at 6000, 2277 s before the same moves were pushed once (2275 s). Until 2026-12-08 a
    final-round row was a flat 0.5 core-ms: 86 minutes for five players at 1000, 3.7 minutes for
    five at 300, and 12 minutes for five at 500, which was then not solved on demand
    (:data:`solver.tables.game.ON_DEMAND_SECONDS`). Memory 80 bytes a row of every phase of every
    seat, and the solve's working memory (:func:`_working_memory`), or where more the arrays of the
    cyclic phase being solved (:data:`CYCLIC_STATE`), at least what was measured (peaks by
    `/usr/bin/time`, of the largest process unless said; the model's in brackets): three players at
    500, 0.27 GB (0.41); at 1500, 0.49 GB (0.80); at 6000, 2.76 GB and 2.97 GB, and 3.15 GB with
    the heap kept (solver/heap.py; 3300 s) (3.18); four at 500, 0.97 GB, and 1.62 GB for the whole
    process tree on Dask's two workers (1.63); four at 2000, 2.7 GB (3.97); five at 300, 2.68 GB
    for the tree (3.30); five at 1000, 5.34 GB, and 3.0 GB since (9.69). It said 0.7 GB at 6000,
    below the three-player solve's 2.76 GB (a reader's audit); then 2.95 GB for every game of three
    players and more, 3.0 GB where three at 500 took 0.27 GB (a new user's trial)."""
    n = target // 100
    if players == 2:
        return 1.0 + 5.2e-3 * n**2, 2.4e8 + 1.62e5 * n**2
    cyclic = 2 * n**players
    phases = final_round_phases(n, players)
    rates = FINAL_ROW_CORE_MS[players]
    final = sum(rows * rate for rows, rate in zip(reversed(phases), rates, strict=True))
    rows = _rows(target, players)
    seconds = START_SECONDS + (cyclic * CYCLIC_CORE_MS + final) * 1e-3 / 2
    base = PROCESS_BASE + (WORKERS_BASE if seconds > IN_PROCESS_SECONDS else 0.0)
    return seconds, max(_working_memory(rows), base + CYCLIC_STATE * n**players) + 80.0 * rows


def _rows(target: int, players: int) -> int:
    """The rows of every phase of every seat of a game of three players or more: its two
    cyclic phases and its final round's, one a seat each."""
    n = target // 100
    return int(players * (2 * n**players + final_rounds(n, players)))


MEMORY_BASE = 0.35e9
"""The working memory of the smallest game of three players or more (:func:`_working_memory`)."""
MEMORY_PER_ROW = 3000.0
"""Its growth, in bytes a row of every phase of every seat, up to :data:`MEMORY_OVERHEAD`."""
MEMORY_OVERHEAD = 2.95e9
"""The working memory of a large game: what three players at 6000 took (2.76, 2.97 and
3.15 GB) beyond their rows."""


CYCLIC_STATE = 5.5e3
"""The bytes a state of the cyclic phase being solved (normal play or sudden death, one at a
time) holds in the solve's own process at its peak, with a margin: its endings and utilities
(118 and 117 floats), its successors (117 and 17 rows), the bookkeeping of its moves (3.0 kB
in all), and then either the utilities read for an improvement and their change (1.9 kB) or
the checkpoint packed after it (2.0 kB), measured by `tracemalloc`
(tests/test_solve_memory.py). At large targets the phase outgrows the rest: three players at
12000 have 1.7 million states a phase. The model said 4.3 GB for that solve, and a new user's
trial watched it pass 13.5 GB in its first 90 s (its successors, built for the whole phase at
once, took 8.5 kB a state then; a checkpoint held the state five times over); at 20000 it
said 8.2 GB, and the system killed the solve at 24 GB. Measured
since (peak resident memory, of the solve's process and of the process tree with its two
workers): at 8000 through the first improvement, its checkpoint and half the second, 3.01 and
3.62 GB (the model: 4.2 GB; 3.43 GB for the process in its first 20 s before); at 10000 and
12000 in the first improvement, 4.26 and 4.81 GB, 7.20 and 7.98 GB (the model: 7.3 and 11.8
GB; 13.5 GB for the tree in 90 s at 12000 before)."""
PROCESS_BASE = 0.35e9
"""With :data:`CYCLIC_STATE`: the interpreter, numba and the tables the solve reads."""
WORKERS_BASE = 0.6e9
"""With :data:`CYCLIC_STATE`: the local Dask cluster's two workers, 0.3 GB each, where the solve
starts them (:data:`IN_PROCESS_SECONDS`)."""
IN_PROCESS_SECONDS = 120.0
"""Without a number of workers, a game whose solve takes at most about this long
(:func:`game_cost`) is solved in this process: a local Dask cluster's start costs seconds and
its copies of the table memory."""


def _working_memory(rows: float) -> float:
    """The bytes a game of three players or more of `rows` rows (every phase, every seat)
    needs beyond its rows: its blocks' turn solves, the tables it reads, numba and the
    interpreter. It grows with the game (a block of a larger game is larger) up to what the
    largest games measured took (:data:`MEMORY_OVERHEAD`); :func:`exceeds_memory` leaves it
    out."""
    return min(MEMORY_BASE + MEMORY_PER_ROW * rows, MEMORY_OVERHEAD)


COMPILE_SECONDS = 19.0
""":func:`game_cost` counts numba's kernels compiled: where they are not in its cache yet (the
first solve on a machine, or of a new installation), numba compiles them first, this long on
a 2-core machine. `sabords winprob --me 0 --opp 0 --variant target=400` took 20.8 and 22.6 s
with an empty ``NUMBA_CACHE_DIR``, 2.9 and 3.2 s with its kernels cached (its own cache empty
both times)."""


NEED_SECONDS = 1.0
"""The final round's endings of four and five players (:mod:`solver.tables.need`), solved once
for each turn rules and then cached: `sabords winprob` of four players at 0-0-0-0 took 1.93 s
with them to solve, 0.79 s with them cached (numba's kernels cached both times)."""
NEED_COMPILE_SECONDS = 9.0
"""numba compiling the kernels those endings run, where its cache does not hold them yet (the
first four- or five-player answer on a machine, or of a new installation): the same
`winprob` took 11.4 and 11.5 s with numba's cache empty too, against 1.9 and 2.1 s. A subset
of what a game solve compiles (:data:`COMPILE_SECONDS`)."""


def exceeds_memory(target: int, players: int) -> tuple[float, int] | None:
    """(the model's bytes, the machine's) where the game of `players` at `target` cannot fit
    this machine's memory (:func:`memory`): its rows and the arrays of its cyclic phase's
    states (:data:`CYCLIC_STATE`), without the rest of its working memory
    (:func:`_working_memory`), need more than it has (on 24 GB: five players at 6000, four at
    6000, three from 15800, or 16100 on 24 GiB); else None, and where the system does not
    say."""
    need, have = game_cost(target, players)[1], memory()
    rows = need if players == 2 else (80.0 * _rows(target, players)
                                      + CYCLIC_STATE * (target // 100) ** players)
    return (need, have) if have is not None and rows > have else None


def game_cost_text(target: int, players: int = 2) -> str:
    """:func:`game_cost` in words: 'about 20 s and 0.8 GB on a 2-core machine'."""
    seconds, memory = game_cost(target, players)
    return f"about {duration_words(seconds)} and {memory / 1e9:.1f} GB on a 2-core machine"


def duration(seconds: float) -> tuple[float, str]:
    """A duration as the cost texts give it, its value and its unit: ``(6, "s")``, ``(2.2,
    "minutes")``, ``(4.5, "hours")`` (seconds whole, minutes and hours to a tenth)."""
    if seconds < 100:
        return round(seconds), "s"
    if seconds < 6000:
        return round(seconds / 60, 1), "minutes"
    return round(seconds / 3600, 1), "hours"


def duration_words(seconds: float) -> str:
    """:func:`duration` in words: ``"6 s"``, ``"2.2 minutes"``, ``"4.5 hours"``."""
    value, unit = duration(seconds)
    return f"{value:.0f} s" if unit == "s" else f"{value:.1f} {unit}"


def target_cost_words(target: int) -> str:
    """Why a target is limited, in words: what its game costs this machine
    (:func:`game_cost_text`)."""
    return (f"the two-player game grows with the square of the target: at {target} it takes "
            f"{game_cost_text(target)} with 24 GB")


__all__ = ["COMPILE_SECONDS", "IN_PROCESS_SECONDS", "MAX_SEED", "MAX_TARGET",
           "NEED_COMPILE_SECONDS", "NEED_SECONDS", "check_jobs", "check_seed", "check_writable",
           "cores", "duration", "duration_words", "exceeds_memory", "final_round_phases",
           "final_rounds", "game_cost", "game_cost_text", "memory", "target_cost_words"]


PARENT_POLL = 1.0
"""Seconds between a worker's looks at the process that started it (:func:`end_with_parent`)."""


def end_with_parent() -> None:
    """In a worker process (a pool's initializer): end it once the process that started it is
    gone. A parent killed outright (``kill -9``, out of memory) never stops its pool, and a
    pool's worker holds both ends of the pool's pipes, so no end of file ever reaches it: it
    would wait for work, or to hand back a result, forever (seen: a server's solving process
    blocked 18 minutes in sending its table). A daemon thread polls the parent's pid, which
    changes when the parent dies (the orphan is adopted)."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        import time

        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="sabords-parent-watch").start()

