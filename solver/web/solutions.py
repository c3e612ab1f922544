"""The server's solutions: tables read once, on-demand solves cached, every cache bounded.

What a request needs comes from the server's own configuration (:class:`Settings`: the tables
directories, the limits), never from the request: the library decides where a table of given
rules lives (:mod:`solver.tables.turn`: the repository's tables for the default rules, the cache
directory, keyed by the rules hash, for other variants).

- **Turn tables** (expected points), per card and turn rules: read once (the default rules'
  twelve at start-up), other variants solved on demand (about a second a card) and cached by
  the library on disk too.
- **Goal solutions** (a need of N points, winning from two totals): solved on demand (tens of
  milliseconds to a few tenths of a second), at most :attr:`Settings.goal_solutions` kept.
- **Game tables** (win probabilities): the default rules' table read at start-up; another
  target or tie rule is solved on demand only up to :attr:`Settings.max_game_target` (what a
  solve takes: :func:`solver.limits.game_cost_text`), unless its table is already on disk.
- **Answers**: the JSON of recent answers, at most :attr:`Settings.answers`.

**Solves are bounded** (:class:`SolveQueue`): a table solved on demand (a turn table or a game
table that is not on disk) runs one at a time, at most :attr:`Settings.solve_queue` more wait,
and a request beyond that is refused at once (:class:`SolverBusy`, HTTP 429 with
``Retry-After``); a goal solve (short, in memory) runs in :attr:`Settings.solve_slots` slots
with at most :attr:`Settings.goal_queue` waiting. With :attr:`Settings.solve_on_demand` off,
no table is solved: only the tables on disk are read (the committed ones, the cache's), and
any other is refused (:class:`SolveRefused`, 503); goals are still solved.

**What the server writes**: only the tables it solves on demand, into the cache directory
(:func:`solver.caches.cache_root`, ``SABORDS_CACHE_DIR``), about 130 kB a card's turn table
and up to about 1 MB a game table; after each, the oldest folders of tables are removed until
the cache's tables take at most :attr:`Settings.cache_mb` megabytes (:func:`prune_cache`; the
newest table stays even if it alone is larger). The committed tables are never written.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..advice.goals import Goal, GoalSolution, objective_for, solve_goal
from ..caches import on_disk
from ..errors import NUMBER_PROBLEMS, SettingsError, number_problem, quote
from ..limits import game_cost, game_cost_text
from ..rules.aims import NEED, POINTS
from ..rules.rulebook import CARDS, Card, Rules
from .cache import BoundedCache
from .solving import SolverProcess

if TYPE_CHECKING:
    from ..game import Game, GameTable
    from ..tables.turn import TurnTable

T = TypeVar("T")

ENV_PREFIX = "SABORDS_WEB_"
"""Settings of an application made from the environment (:meth:`Settings.from_env`):
``SABORDS_WEB_TABLES``, ``SABORDS_WEB_MAX_GAME_TARGET``..."""


@dataclass(frozen=True)
class Settings:
    """The server's configuration (:func:`solver.web.create_app`)."""

    tables_dir: Path | None = None
    """Read the turn tables from this directory (`sabords advise --tables`); None: the
    repository's tables for the default rules, the cache for the others."""
    game_tables_dir: Path | None = None
    """Read the game table from this directory (`--game-tables`); None: as for turn tables."""
    turn_tables: int = 48
    """Turn tables kept in memory (12 cards of 4 sets of rules)."""
    goal_solutions: int = 256
    """Solutions of a need or a win goal kept (about 60 to 100 kB each)."""
    game_tables: int = 4
    """Game tables kept (about 1 MB each)."""
    answers: int = 4096
    """Recent answers kept, as JSON (a few kB each)."""
    max_game_target: int = 6000
    """The largest target whose game is solved on demand (a table on disk is always read)."""
    solve_slots: int = 1
    """Goal solves at once."""
    solve_on_demand: bool = True
    """Solve the tables of other rules on demand (off: read only the tables on disk)."""
    solve_queue: int = 4
    """Table solves that may wait while one runs (more: 429)."""
    solve_wait: int = 60
    """The longest a table solve may expect to wait for the solves ahead of it, seconds (more:
    429 at once, with ``Retry-After``)."""
    solve_process: bool = True
    """Solve tables in a process of lower priority (:mod:`solver.web.solving`); off: in the
    serving process's thread (for a test that replaces the library's solver)."""
    goal_queue: int = 32
    """Goal solves that may wait while :attr:`solve_slots` run (more: 429)."""
    cache_mb: int = 256
    """The most megabytes of tables kept in the cache directory (the oldest removed)."""
    warm: bool = True
    """Read the default rules' tables at start-up."""
    allowed_hosts: tuple[str, ...] = ()
    """The host names a request may be addressed to (``Host``); empty: any (a server that
    listens on this machine only)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``SABORDS_WEB_<NAME>`` variables (for an application imported by
        another ASGI server: ``solver.web:app``); the others keep their defaults."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            text = env.get(ENV_PREFIX + f.name.upper())
            if text is None:
                continue
            default = getattr(cls(), f.name)
            if f.name.endswith("_dir"):
                values[f.name] = Path(text) if text else None
            elif isinstance(default, tuple):
                values[f.name] = tuple(x.strip() for x in text.split(",") if x.strip())
            elif isinstance(default, bool):
                values[f.name] = text.strip().lower() in ("1", "true", "yes", "on")
            else:
                why = number_problem(text)
                if why is not None:
                    raise SettingsError(f"{ENV_PREFIX}{f.name.upper()} takes a number, not "
                                        f"{quote(text)}, which {NUMBER_PROBLEMS[why]}",
                                        subject=f.name, values={"value": text, "why": why})
                values[f.name] = int(text)
        return cls(**values)


class GameTooLarge(SettingsError):
    """A game table this server does not solve on demand."""


class SolveRefused(SettingsError):
    """A table this server would have to solve, with solves on demand off (HTTP 503)."""


class SolverBusy(SettingsError):
    """The queue of solves is full, or would keep a new solve waiting longer than the server's
    bound (HTTP 429): try again after :attr:`retry_after` seconds."""

    def __init__(self, queued: int, retry_after: int) -> None:
        ahead = f"{queued} solve{'s' if queued != 1 else ''} ahead"
        super().__init__(f"the server is busy solving other rules ({ahead}): try again in "
                         f"{retry_after} s", subject="variant", kind="busy",
                         values={"queued": queued, "retry_after": retry_after})
        self.retry_after = retry_after


class Abandoned(Exception):
    """The client that asked for a solve left before it started: it is not started."""


_waiter = threading.local()
"""The request a thread answers: ``_waiter.gone``, an event set when its client has left
(:func:`answering`)."""


def answering(gone: threading.Event, fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` on behalf of a client whose leaving sets `gone`: a solve it would start is
    then not started (:class:`Abandoned`)."""
    _waiter.gone = gone
    try:
        return fn(*args)
    finally:
        _waiter.gone = None


class SolveQueue:
    """At most `running` solves at once and `waiting` more waiting; beyond, or when a new solve
    would wait more than `max_wait` seconds, :class:`SolverBusy` at once (a wait the client
    gives up before its end is no queue). A solve's expected seconds are given with it (a game:
    :func:`solver.limits.game_cost`) or are the mean of the last solves of the queue
    (`first_guess` before any), a given cost scaled by how long the last solves took against
    theirs; the wait of a new solve is what the solves ahead of it still expect to take.
    ``Retry-After`` is that wait, at least 1 s. A solve whose client has left while it waited
    (:func:`answering`) is not started."""

    def __init__(self, running: int, waiting: int, first_guess: float,
                 max_wait: float = math.inf) -> None:
        self.running = max(1, running)
        self.waiting = max(0, waiting)
        self.max_wait = max_wait
        self._slots = threading.BoundedSemaphore(self.running)
        self._lock = threading.Lock()
        self.queued = 0
        """Solves running or waiting."""
        self.most = 0
        """The most solves that ran at once (for the tests and the health answer)."""
        self._now = 0
        self.refused = 0
        self.abandoned = 0
        self._durations: deque[float] = deque(maxlen=8)
        self._ratios: deque[float] = deque(maxlen=8)
        self._first_guess = first_guess
        self._ahead: dict[int, tuple[float, float | None]] = {}
        """Each solve running or waiting: its expected seconds, and when it started."""
        self._ids = 0

    def _scale(self) -> float:
        """How much longer than their given cost the last solves took (1 before any): this
        machine, under its load of the moment."""
        return sum(self._ratios) / len(self._ratios) if self._ratios else 1.0

    def _mean(self) -> float:
        return (sum(self._durations) / len(self._durations) if self._durations
                else self._first_guess)

    def expected_wait(self) -> float:
        """The seconds a solve queued now would wait: what the solves ahead still expect."""
        now = time.monotonic()
        left = [max(0.0, cost - (now - start)) if start is not None else cost
                for cost, start in self._ahead.values()]
        if len(left) < self.running:
            return 0.0
        return sum(left) / self.running

    def run(self, make: Callable[[], T], cost: float | None = None) -> T:
        """`make()` in its turn (class docstring); `cost`: its expected seconds."""
        gone: threading.Event | None = getattr(_waiter, "gone", None)
        expected = self._mean() if cost is None else cost * self._scale()
        with self._lock:
            wait = self.expected_wait()
            if self.queued >= self.running + self.waiting or wait > self.max_wait:
                self.refused += 1
                raise SolverBusy(max(0, self.queued - self.running + 1),
                                 max(1, math.ceil(wait)))
            self.queued += 1
            self._ids += 1
            me = self._ids
            self._ahead[me] = (expected, None)
        try:
            while not self._slots.acquire(timeout=0.1):
                if gone is not None and gone.is_set():
                    with self._lock:
                        self.abandoned += 1
                    raise Abandoned()
            try:
                if gone is not None and gone.is_set():
                    with self._lock:
                        self.abandoned += 1
                    raise Abandoned()
                with self._lock:
                    self._now += 1
                    self.most = max(self.most, self._now)
                    self._ahead[me] = (expected, time.monotonic())
                start = time.monotonic()
                try:
                    return make()
                finally:
                    took = time.monotonic() - start
                    if cost is None:
                        self._durations.append(took)
                    elif cost > 0:
                        self._ratios.append(took / cost)
                    with self._lock:
                        self._now -= 1
            finally:
                self._slots.release()
        finally:
            with self._lock:
                self.queued -= 1
                self._ahead.pop(me, None)

    def stats(self) -> dict[str, int]:
        return {"running": self.running, "waiting": self.waiting, "queued": self.queued,
                "most_at_once": self.most, "refused": self.refused,
                "abandoned": self.abandoned}


def prune_cache(most_bytes: int, keep: Path | None = None) -> list[Path]:
    """Remove the oldest folders of tables from the cache directory until its tables take at
    most `most_bytes` (never `keep`, the folder just written; never numba's kernels). Returns
    the folders removed."""
    from ..caches import NUMBA_DIR, cache_entries, remove_entry

    entries = [e for e in cache_entries() if e.kind != NUMBA_DIR]
    total = sum(e.size for e in entries)
    removed: list[Path] = []

    def age(entry: Any) -> float:
        try:
            return float(entry.path.stat().st_mtime)
        except OSError:
            return 0.0

    for entry in sorted(entries, key=age):
        if total <= most_bytes:
            break
        if keep is not None and entry.path == keep:
            continue
        try:
            remove_entry(entry)
        except OSError:
            continue
        total -= entry.size
        removed.append(entry.path)
    return removed


class Solutions:
    """The solutions behind the answers, in bounded caches (module docstring): the server's
    :class:`solver.advice.sources.SolutionSource`."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.tables: BoundedCache[tuple[str, Rules], TurnTable] = BoundedCache(
            settings.turn_tables)
        self.goals: BoundedCache[tuple[str, Rules, Goal], GoalSolution] = BoundedCache(
            settings.goal_solutions)
        self.games: BoundedCache[tuple[Rules, int], Game] = BoundedCache(
            settings.game_tables)
        self.answers: BoundedCache[tuple[Any, ...], bytes] = BoundedCache(settings.answers)
        # a turn table takes about a second in the solving process, its start included (a
        # game's cost is given with it, solver.limits.game_cost)
        self.table_solves = SolveQueue(1, settings.solve_queue, first_guess=2.0,
                                       max_wait=settings.solve_wait)
        self.solver = SolverProcess() if settings.solve_process else None
        self.goal_solves = SolveQueue(settings.solve_slots, settings.goal_queue,
                                      first_guess=0.5)
        self.pruned = 0

    def _solve(self, make: Callable[[], T]) -> T:
        """A goal solve, in its queue."""
        return self.goal_solves.run(make)

    def _solve_table(self, what: str, rules: Rules, written: Path,
                     make: Callable[[], T], values: dict[str, Any],
                     cost: float | None = None) -> T:
        """A table solved on demand (`written`: the cache folder it goes to; `cost`: its
        expected seconds), in its queue; refused when solves on demand are off; the cache
        pruned after."""
        if not self.settings.solve_on_demand:
            raise SolveRefused(
                f"this server solves no table on demand: it has no {what} for these rules "
                f"(rules hash {rules.hash}), and answers only for the rules whose tables it "
                f"has", subject="variant", kind="solve_off",
                values={"rules_hash": rules.hash, **values})

        def solve() -> T:
            value = make()
            self.pruned += len(prune_cache(self.settings.cache_mb * 1_000_000, keep=written))
            return value

        return self.table_solves.run(solve, cost)

    # -- turn tables and goals -----------------------------------------------------------------

    def table(self, card: Card, rules: Rules) -> TurnTable:
        """The expected-points table of `card` under `rules`
        (:func:`solver.tables.turn.turn_table`)."""
        from ..tables.paths import default_dir
        from ..tables.turn import table_path, turn_table

        turn = rules.turn_rules()

        def make() -> TurnTable:
            directory = self.settings.tables_dir

            def read() -> TurnTable:
                return turn_table(card, turn, directory)

            if directory is not None or on_disk(table_path(default_dir(turn), card)):
                return read()  # on disk: read (a stale table in the cache is solved again)
            solver = self.solver
            solve = read if solver is None else lambda: solver.turn_table(card, turn)
            return self._solve_table(f"turn table of the {card.id} card", turn,
                                     default_dir(turn), solve, {"card": card.id})

        return self.tables.get((card.id, turn), make)

    def goal(self, card: Card, rules: Rules, goal: Goal) -> GoalSolution:
        """`card`'s turn solved for `goal` (:func:`solver.advice.advisor.solve_goal`): points from
        its table, a need or a win solved now (or found in the cache)."""
        if goal.name == POINTS:
            return GoalSolution(goal, objective_for(None), self.table(card, rules).solution)
        key_rules = rules.turn_rules() if goal.name == NEED else rules
        found = self.goals.peek((card.id, key_rules, goal))
        if found is not None:
            return found
        game = self.game(rules, goal.players) if goal.name != NEED else None
        return self.goals.get((card.id, key_rules, goal), lambda: self._solve(
            lambda: solve_goal(card, rules, goal, game=game)))

    def cached_goal(self, card: Card, rules: Rules, goal: Goal) -> GoalSolution | None:
        """The solution of `goal` if nothing needs to be read or solved for it, else None."""
        if goal.name == POINTS:
            table = self.tables.peek((card.id, rules.turn_rules()))
            return None if table is None else GoalSolution(goal, objective_for(None),
                                                           table.solution)
        key_rules = rules.turn_rules() if goal.name == NEED else rules
        return self.goals.peek((card.id, key_rules, goal))

    # -- the game ------------------------------------------------------------------------------

    def game(self, rules: Rules, players: int) -> Game:
        """The game of `players` under `rules` (:func:`solver.tables.game.game_of`): its table
        read from the server's game tables, or solved on demand in the solving process when
        that takes at most what the two-player game of :attr:`Settings.max_game_target` takes,
        or for four and five players near-optimal play on the table of three."""
        return self.games.get((rules, players), lambda: self._game(rules, players))

    def _budget(self) -> float:
        """The longest solve (seconds, the cost model's) this server makes on demand."""
        return game_cost(self.settings.max_game_target)[0]

    def _game(self, rules: Rules, players: int) -> Game:
        from ..errors import StaleTableError
        from ..tables.game import game_of

        try:
            return game_of(rules, players, self.settings.game_tables_dir,
                           solve=self._solve_game, within=self._budget())
        except StaleTableError as exc:  # a game this server does not solve on demand
            if (self.settings.solve_on_demand and self.settings.game_tables_dir is None
                    and exc.missing and exc.players is None):
                limit = self.settings.max_game_target
                raise GameTooLarge(
                    f"this server solves a game on demand when it takes no longer than the "
                    f"two-player game of target={limit}; the {players}-player game of "
                    f"target={rules.target} takes {game_cost_text(rules.target, players)} and "
                    f"is not solved here (its keeper can make its table on the server)",
                    subject="variant", kind="game_too_large",
                    values={"target": rules.target, "max_game_target": limit}) from None
            raise

    def _solve_game(self, rules: Rules, players: int) -> GameTable:
        from ..game import solve_game
        from ..tables.paths import game_default_dir

        solver = self.solver
        solve = ((lambda: solve_game(rules, players)) if solver is None
                 else lambda: solver.game(rules, players))
        return self._solve_table("game table", rules, game_default_dir(rules), solve,
                                 {"table": f"game-{players}"},
                                 cost=game_cost(rules.target, players)[0])

    # -- start-up ------------------------------------------------------------------------------

    def warm_up(self) -> None:
        """Read the default rules' twelve turn tables and the two-player game's table."""
        rules = Rules()
        for card in CARDS.values():
            self.table(card, rules)
        self.game(rules, 2)

    def win_players(self, rules: Rules | None = None) -> list[int]:
        """The numbers of players whose game this server answers for `rules` (the default
        rules if None): its table on disk, solved on demand, or near-optimal play on the table
        of three."""
        from ..game.reduced import SMALL_PLAYERS
        from ..rules.standing import MAX_PLAYERS
        from ..tables.game import game_table_path
        from ..tables.paths import game_default_dir

        rules = Rules() if rules is None else rules
        directory = self.settings.game_tables_dir or game_default_dir(rules)
        solvable = (self.settings.solve_on_demand and self.settings.game_tables_dir is None)

        def has(n: int) -> bool:
            return on_disk(game_table_path(directory, n)) or (
                solvable and game_cost(rules.target, n)[0] <= self._budget())

        exact = [n for n in range(2, MAX_PLAYERS + 1) if has(n)]
        near = list(range(SMALL_PLAYERS + 1, MAX_PLAYERS + 1)) if has(SMALL_PLAYERS) else []
        return sorted(set(exact) | set(near))

    def stats(self) -> dict[str, dict[str, int]]:
        return {"turn_tables": self.tables.stats(), "goal_solutions": self.goals.stats(),
                "game_tables": self.games.stats(),
                "answers": self.answers.stats(), "table_solves": self.table_solves.stats(),
                "goal_solves": self.goal_solves.stats(),
                "solver_process": ({} if self.solver is None else
                                   {**self.solver.last, "started": self.solver.started})}

    def close(self) -> None:
        """Stop the solving process, a solve it runs included (the server stops)."""
        if self.solver is not None:
            self.solver.close(now=True)


__all__ = ["ENV_PREFIX", "Abandoned", "GameTooLarge", "Settings", "SolveQueue", "SolveRefused",
           "SolverBusy", "Solutions", "answering", "prune_cache"]
