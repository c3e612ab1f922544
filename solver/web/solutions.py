"""The server's solutions: tables read once, on-demand solves cached, every cache bounded.

What a request needs comes from the server's own configuration (:class:`Settings`: the tables
directories, the limits), never from the request: the library decides where a table of given
rules lives (:mod:`solver.turntables`: the repository's tables for the default rules, the cache
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

Every solve runs in one of :attr:`Settings.solve_slots` slots, so a burst of distinct
questions queues rather than running one solve per request at once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..advisor import NEED, POINTS, Goal, GoalSolution, objective_for, solve_goal
from ..errors import SettingsError
from ..rules import CARDS, Card, Rules
from .cache import BoundedCache

if TYPE_CHECKING:
    from ..game import GameSolution
    from ..gametables import NGameTable
    from ..turntables import TurnTable

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
    """Solves at once."""
    warm: bool = True
    """Read the default rules' tables at start-up."""

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
            elif isinstance(default, bool):
                values[f.name] = text.strip().lower() in ("1", "true", "yes", "on")
            else:
                try:
                    values[f.name] = int(text)
                except ValueError:
                    raise SettingsError(f"{ENV_PREFIX}{f.name.upper()} takes a number, not "
                                        f"{text!r}", subject=f.name) from None
        return cls(**values)


class GameTooLarge(SettingsError):
    """A game table this server does not solve on demand."""


class Solutions:
    """The solutions behind the answers, in bounded caches (module docstring): the server's
    :class:`solver.sources.SolutionSource`."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.tables: BoundedCache[tuple[str, Rules], TurnTable] = BoundedCache(
            settings.turn_tables)
        self.goals: BoundedCache[tuple[str, Rules, Goal], GoalSolution] = BoundedCache(
            settings.goal_solutions)
        self.games: BoundedCache[Rules, GameSolution] = BoundedCache(settings.game_tables)
        self.ngames: BoundedCache[tuple[Rules, int], NGameTable] = BoundedCache(
            settings.game_tables)
        self.answers: BoundedCache[tuple[Any, ...], bytes] = BoundedCache(settings.answers)
        self._slots = threading.BoundedSemaphore(max(1, settings.solve_slots))

    def _solve(self, make: Callable[[], T]) -> T:
        with self._slots:
            return make()

    # -- turn tables and goals -----------------------------------------------------------------

    def table(self, card: Card, rules: Rules) -> TurnTable:
        """The expected-points table of `card` under `rules`
        (:func:`solver.turntables.turn_table`)."""
        from ..turntables import turn_table
        turn = rules.turn_rules()
        return self.tables.get((card.id, turn), lambda: self._solve(
            lambda: turn_table(card, turn, self.settings.tables_dir)))

    def goal(self, card: Card, rules: Rules, goal: Goal) -> GoalSolution:
        """`card`'s turn solved for `goal` (:func:`solver.advisor.solve_goal`): points from
        its table, a need or a win solved now (or found in the cache)."""
        if goal.name == POINTS:
            return GoalSolution(goal, objective_for(None), self.table(card, rules).solution)
        goal.check(rules)
        key_rules = rules.turn_rules() if goal.name == NEED else rules
        found = self.goals.peek((card.id, key_rules, goal))
        if found is not None:
            return found
        game: GameSolution | NGameTable | None = None
        if goal.name != NEED:
            game = self.game(rules) if goal.players == 2 else self.ngame(rules, goal.players)
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

    def game(self, rules: Rules) -> GameSolution:
        """The game table of `rules` (:func:`solver.gametables.game_tables`); a table that is not on
        disk is solved only up to :attr:`Settings.max_game_target`."""
        return self.games.get(rules, lambda: self._solve(lambda: self._read_game(rules)))

    def _read_game(self, rules: Rules) -> GameSolution:
        from ..gametables import game_tables
        from ..sources import game_on_disk

        directory = self.settings.game_tables_dir
        limit = self.settings.max_game_target
        if not game_on_disk(rules, directory) and rules.target > limit:
            raise GameTooLarge(
                f"this server solves the two-player game on demand up to target={limit}; the "
                f"game of target={rules.target} is not solved here (its keeper can make its "
                f"table on the server)", subject="variant", kind="game_too_large",
                values={"target": rules.target, "max_game_target": limit})
        return game_tables(rules, directory)

    def ngame(self, rules: Rules, players: int) -> NGameTable:
        """The game table of `players` (three or more) under `rules`: read from the server's
        game tables (never solved here: an hour for three players at the default target)."""
        from ..gametables import read_ngame
        from ..tablepaths import game_default_dir

        directory = self.settings.game_tables_dir or game_default_dir(rules)
        return self.ngames.get((rules, players), lambda: self._solve(
            lambda: read_ngame(directory, rules, players)))

    # -- start-up ------------------------------------------------------------------------------

    def warm_up(self) -> None:
        """Read the default rules' twelve turn tables and the game table."""
        rules = Rules()
        for card in CARDS.values():
            self.table(card, rules)
        self.game(rules)

    def stats(self) -> dict[str, dict[str, int]]:
        return {"turn_tables": self.tables.stats(), "goal_solutions": self.goals.stats(),
                "game_tables": self.games.stats(), "ngame_tables": self.ngames.stats(),
                "answers": self.answers.stats()}


__all__ = ["ENV_PREFIX", "GameTooLarge", "Settings", "Solutions"]
