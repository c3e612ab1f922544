"""The server's solving process: tables solved on demand away from the answers.

A table solved on demand (a card's turn table under new turn variants, a game under a new
target or tie rule) takes from a second to a minute of pure computation, and the game up
to about a gigabyte. Solved in a thread of the serving process it would hold the interpreter
(the answers wait their turn for it) and leave the process at the solve's peak memory. So it is
solved in one process of its own (:class:`SolverProcess`):

- **lower priority**: the process runs at ``nice`` :data:`NICENESS` with one thread for numba,
  so the answers keep a core and the scheduler gives them the other one first;
- **memory given back**: the process is stopped after a solve that leaves it holding more
  than :data:`KEEP_MB` (a game solve), and the next solve starts a new one; the serving process
  only reads the table it sends back (its packed bytes, the same as the file on disk), into its
  bounded caches;
- **the same table**: the process solves through the library (:func:`solver.tables.turn.
  turn_table`, :func:`solver.game.solve_game`), and writes it into the cache
  directory as a solve in the serving process would; an unwritable cache costs only the next
  solve.

The process is started (``spawn``: a fresh interpreter, never a fork of a threaded server) at
the first solve; :meth:`SolverProcess.close` stops it with the server, and a server asked to
stop (Ctrl-C, SIGTERM) ends the solve it runs at once (:func:`stop_solves_on_exit`).
"""

from __future__ import annotations

import os
import signal
import threading
import weakref
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import TYPE_CHECKING, Any

from ..errors import SettingsError
from ..rules.rulebook import CARDS, Card, Rules

if TYPE_CHECKING:
    from ..game import GameTable
    from ..tables.turn import TurnTable

KEEP_MB = 256
"""The most resident memory the solving process keeps after a solve (MB): above it (a game
solve: 0.4 GB at target 4000, 0.8 GB at 6000), the process is stopped, and the next solve
starts a new one (about half a second)."""
NICENESS = 10
"""How much lower the solving process's priority is than the server's (``nice``)."""


class SolverStopped(SettingsError):
    """The solving process stopped before its table was solved (HTTP 503): killed (the next
    solve starts a new one), or ended because the server is stopping (`stopping`)."""

    def __init__(self, stopping: bool = False) -> None:
        super().__init__("the server is stopping: the table was not solved" if stopping else
                         "the server's solving process stopped before the table was solved "
                         "(out of memory?): try again", subject="variant", kind="solver_stopped",
                         values={"stopping": stopping})


def _start() -> None:
    """In the solving process, before anything is imported: lower priority, one thread, and
    an end with the server (:func:`solver.limits.end_with_parent`: a server killed outright
    would leave it waiting forever)."""
    os.environ["NUMBA_NUM_THREADS"] = "1"
    os.environ["OMP_NUM_THREADS"] = "1"
    try:
        os.nice(NICENESS)
    except OSError:  # not allowed here: still a process of its own
        pass
    from ..limits import end_with_parent

    end_with_parent()


def _who() -> dict[str, int]:
    """The solving process: its pid, its niceness, its resident memory now (MB; Linux)."""
    rss = 0
    try:
        with open(f"/proc/{os.getpid()}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) // 1024
    except OSError:
        pass
    return {"pid": os.getpid(), "nice": os.nice(0), "rss_mb": rss}


def _turn_bytes(card_id: str, rules: Rules) -> tuple[bytes, dict[str, int]]:
    from ..tables.turn import pack_table, turn_table

    return pack_table(turn_table(CARDS[card_id], rules)), _who()


def _game_bytes(rules: Rules, players: int) -> tuple[bytes, dict[str, int]]:
    from ..game import solve_game
    from ..tables.fileformat import keep_in_cache
    from ..tables.game import game_table_path, pack_game, write_game
    from ..tables.paths import game_default_dir

    table = solve_game(rules, players)
    directory = game_default_dir(rules)
    keep_in_cache(lambda: write_game(table, directory), game_table_path(directory, players))
    return pack_game(table), _who()


_LIVE: weakref.WeakSet[SolverProcess] = weakref.WeakSet()
"""The solving processes of this server process (:func:`stop_solves`)."""


def stop_solves() -> None:
    """The server is stopping: every solve of this process ended now, and none started after
    (the requests that wait for one are answered 503 at once). Before, a server asked to stop
    waited for the solve it was running, minutes for a large game, before it stopped."""
    for solver in list(_LIVE):
        solver.close(now=True)


def stop_solves_on_exit() -> None:
    """Where the server's signal handlers are (uvicorn's, for SIGINT and SIGTERM, installed
    for the time it serves, then put back): each also ends the solves at once
    (:func:`stop_solves`). uvicorn waits for the requests in progress before the
    application's shutdown, so a request waiting for a solve kept a server asked to stop
    running, and its solve with it. Called at the application's start-up (in the main thread;
    elsewhere, as under a test client, nothing is done)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(sig)
        if not callable(previous) or getattr(previous, "stops_solves", False):
            continue

        def handler(signum: int, frame: Any, previous: Any = previous) -> None:
            threading.Thread(target=stop_solves, name="stop-solves", daemon=True).start()
            previous(signum, frame)

        handler.stops_solves = True  # type: ignore[attr-defined]
        signal.signal(sig, handler)


class SolverProcess:
    """One solving process of lower priority (module docstring), started at the first solve;
    thread-safe (the server's queue runs one solve at a time in it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self.stopped = False
        """Closed for good (:meth:`close` `now`: the server stops): no solve starts after."""
        _LIVE.add(self)
        self.last: dict[str, int] = {}
        """The process of the last solve: its ``pid`` and ``nice``."""
        self.started = 0
        """Processes started so far."""
        self._busy = 0

    def _submit(self, fn: Any, *args: Any) -> Future[Any]:
        """`fn(*args)` sent to the process (started now if there is none), under the lock: a
        stop that comes meanwhile waits until the process is there to be ended (before, a
        stop in the milliseconds a new process took to start ended nothing, and the solve
        ran on)."""
        with self._lock:
            if self.stopped:
                raise SolverStopped(stopping=True)
            if self._pool is None:
                self._pool = ProcessPoolExecutor(1, mp_context=get_context("spawn"),
                                                 initializer=_start)
                self.started += 1
            return self._pool.submit(fn, *args)

    def _run(self, fn: Any, *args: Any) -> bytes:
        self._busy += 1
        try:
            data, who = self._submit(fn, *args).result()
        except BrokenProcessPool:  # killed (out of memory, a signal): the next solve restarts
            self.close()
            raise SolverStopped(stopping=self.stopped) from None
        except CancelledError:  # sent, not yet started, when the server stopped
            raise SolverStopped(stopping=True) from None
        finally:
            self._busy -= 1
        self.last = who
        if who.get("rss_mb", 0) > KEEP_MB:  # a large solve's memory: given back
            self.close()
        return bytes(data)

    def turn_table(self, card: Card, rules: Rules) -> TurnTable:
        """`card`'s turn table under the turn rules `rules`, solved in the process."""
        from ..tables.turn import unpack_table

        data = self._run(_turn_bytes, card.id, rules)
        return unpack_table(data, source="the server's solving process", card=card,
                            rules=rules)

    def game(self, rules: Rules, players: int) -> GameTable:
        """The game table of `players` under `rules`, solved in the process (and cached on
        disk there)."""
        from ..tables.game import unpack_game

        data = self._run(_game_bytes, rules, players)
        return unpack_game(data, rules, players, source="the server's solving process")

    def close(self, *, now: bool = False) -> None:
        """Stop the process (a new one starts at the next solve); `now`: the server stops, a
        solve it is running ended without waiting, and no solve started after."""
        with self._lock:
            pool, self._pool = self._pool, None
            self.stopped = self.stopped or now
        if pool is None:
            return
        if now and self._busy:  # a solve running: ended (an idle process stops by itself)
            processes = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
        pool.shutdown(wait=True)


__all__ = ["KEEP_MB", "NICENESS", "SolverProcess", "SolverStopped", "stop_solves",
           "stop_solves_on_exit"]
