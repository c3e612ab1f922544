"""The server's solutions: tables read once, on-demand solves cached, every cache bounded.

:class:`Solutions` is the library's one source of tables (:class:`solver.advice.sources.Tables`:
where a table comes from, what is solved on demand) with what a server needs on top: its
solves in a queue and a process of their own, every solution in a bounded cache. The pieces
have their rooms: the configuration :mod:`.settings`, the queue :mod:`.queue`, the bounded
caches and the pruning of the cache directory :mod:`.cache`, the solving process
:mod:`.solving`.

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

from collections.abc import Callable, Hashable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..advice.goals import Goal, GoalSolution, objective_for
from ..advice.sources import Tables
from ..caches import on_disk
from ..errors import SettingsError, StaleTableError
from ..limits import COMPILE_SECONDS, game_cost, game_cost_text
from ..rules.aims import NEED, POINTS
from ..rules.rulebook import CARDS, Card, Rules
from .cache import BoundedCache, prune_cache
from .queue import SolveQueue
from .settings import Settings
from .solving import SolverProcess

if TYPE_CHECKING:
    from ..game import Game, GameTable
    from ..tables.turn import TurnTable

T = TypeVar("T")


class GameTooLarge(SettingsError):
    """A game table this server does not solve on demand."""


class SolveRefused(SettingsError):
    """A table this server would have to solve, with solves on demand off (HTTP 503)."""


class Solutions(Tables):
    """The solutions behind the answers, in bounded caches (module docstring): the server's
    :class:`solver.advice.sources.SolutionSource`."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings.tables_dir, settings.game_tables_dir,
                         within=game_cost(settings.max_game_target)[0])
        self.settings = settings
        self.caches: dict[str, BoundedCache[Any, Any]] = {
            "table": BoundedCache(settings.turn_tables),
            "goal": BoundedCache(settings.goal_solutions),
            "game": BoundedCache(settings.game_tables)}
        self.answers: BoundedCache[tuple[Any, ...], bytes] = BoundedCache(settings.answers)
        # a turn table takes about a second in the solving process, its start included (a
        # game's cost is given with it, solver.limits.game_cost)
        self.table_solves = SolveQueue(1, settings.solve_queue, first_guess=2.0,
                                       max_wait=settings.solve_wait)
        self.solver = SolverProcess() if settings.solve_process else None
        self.goal_solves = SolveQueue(settings.solve_slots, settings.goal_queue,
                                      first_guess=0.5)
        self.pruned = 0
        self._kernels_ready = False
        """numba's kernels of a game solve compiled or cached (:meth:`_compiling`)."""

    # -- what is kept, and how it is solved ------------------------------------------------

    def kept(self, kind: str, key: Hashable, make: Callable[[], T]) -> T:
        """Every solution in its bounded cache (one computation for concurrent requests)."""
        out: T = self.caches[kind].get(key, make)
        return out

    def _solve_table(self, what: str, rules: Rules, written: Path,
                     make: Callable[[], T], values: dict[str, Any],
                     cost: float | None = None, once: float = 0.0) -> T:
        """A table solved on demand (`written`: the cache folder it goes to; `cost`: its
        expected seconds; `once`: what it takes first this time only), in its queue; refused
        when solves on demand are off; the cache pruned after."""
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

        return self.table_solves.run(solve, cost, once)

    def turn_table(self, card: Card, turn: Rules) -> TurnTable:
        """Read from the server's tables, else solved in the solving process, in the queue."""
        from ..tables.paths import default_dir
        from ..tables.turn import table_path
        from ..tables.turn import turn_table as read

        directory = self.tables_dir
        if directory is not None or on_disk(table_path(default_dir(turn), card)):
            return read(card, turn, directory)  # (a stale table in the cache: solved again)
        solver = self.solver
        solve = ((lambda: read(card, turn)) if solver is None
                 else lambda: solver.turn_table(card, turn))
        return self._solve_table(f"turn table of the {card.id} card", turn, default_dir(turn),
                                 solve, {"card": card.id})

    def solve_game(self, rules: Rules, players: int) -> GameTable:
        """A game cheap enough for this server (at most what the two-player game of
        :attr:`Settings.max_game_target` takes), solved in the solving process, in the
        queue."""
        from ..game import solve_game
        from ..tables.paths import game_default_dir

        solver = self.solver

        def solve() -> GameTable:
            if solver is not None:
                return solver.game(rules, players)
            table = solve_game(rules, players)
            self._kernels_ready = True  # compiled in this process, whatever numba's cache
            return table

        return self._solve_table("game table", rules, game_default_dir(rules), solve,
                                 {"table": f"game-{players}"},
                                 cost=game_cost(rules.target, players)[0],
                                 once=self._compiling() if self.settings.solve_on_demand
                                 else 0.0)

    def _compiling(self) -> float:
        """The seconds numba takes to compile a game solve's kernels before the first one
        (:data:`solver.limits.COMPILE_SECONDS`), where its cache does not hold them yet (a
        solving process is started afresh after a game's solve: it reads them from the
        cache, or compiles them again where the cache cannot hold them) and, solving in this
        process, no game was solved yet; else 0. Asked as a game solve is queued: each one
        queued before the first has compiled them is expected with it too (only the first
        compiles: the waits behind them are overstated, never understated). Before, a first
        game solve was expected to
        take its cost model's seconds alone (about 1 s for two players at 400, where `sabords
        winprob` with numba's cache empty took 20.8 s), and the queue learnt from its time that
        every solve takes that many times its cost."""
        if not self._kernels_ready:
            from ..engine.kernel import kernels_cached

            self._kernels_ready = kernels_cached()
        return 0.0 if self._kernels_ready else COMPILE_SECONDS

    def solve_goal(self, card: Card, rules: Rules, goal: Goal) -> GoalSolution:
        """A need or a win solved in the goals' queue (the game read or solved first)."""
        if goal.name != NEED:
            self.game(rules, goal.players)  # outside the goals' queue: a game has its own
        return self.goal_solves.run(lambda: Tables.solve_goal(self, card, rules, goal))

    def game(self, rules: Rules, players: int) -> Game:
        """The game of `players` under `rules` (:func:`solver.tables.game.game_of`): its table
        read from the server's game tables, or solved on demand in the solving process when
        that takes at most what the two-player game of :attr:`Settings.max_game_target` takes,
        or for four and five players near-optimal play on the tables of two and three."""
        try:
            return super().game(rules, players)
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

    def cached_goal(self, card: Card, rules: Rules, goal: Goal) -> GoalSolution | None:
        """The solution of `goal` if nothing needs to be read or solved for it, else None."""
        if goal.name == POINTS:
            table = self.caches["table"].peek((card.id, rules.turn_rules()))
            return None if table is None else GoalSolution(goal, objective_for(None),
                                                           table.solution)
        key_rules = rules.turn_rules() if goal.name == NEED else rules
        found: GoalSolution | None = self.caches["goal"].peek((card.id, key_rules, goal))
        return found

    def _budget(self) -> float:
        """The longest solve (seconds, the cost model's) this server makes on demand."""
        return game_cost(self.settings.max_game_target)[0]

    # -- start-up and health -----------------------------------------------------------------

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
        return sorted(self.win_kinds(rules))

    def win_kinds(self, rules: Rules | None = None) -> dict[int, bool]:
        """:meth:`win_players`, each with whether its game is exact (its table on disk or
        solved on demand) or played near-optimally on the table of three."""
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
        return {n: n in exact for n in sorted(set(exact) | set(near))}

    def stats(self) -> dict[str, Mapping[str, float]]:
        return {"turn_tables": self.caches["table"].stats(),
                "goal_solutions": self.caches["goal"].stats(),
                "game_tables": self.caches["game"].stats(),
                "answers": self.answers.stats(), "table_solves": self.table_solves.stats(),
                "goal_solves": self.goal_solves.stats(),
                "solver_process": ({} if self.solver is None else
                                   {**self.solver.last, "started": self.solver.started})}

    def close(self) -> None:
        """Stop the solving process, a solve it runs included (the server stops)."""
        if self.solver is not None:
            self.solver.close(now=True)


__all__ = ["GameTooLarge", "SolveRefused", "Solutions"]
