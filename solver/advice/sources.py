"""Where the answers find their solutions: a small protocol, and a tables directory behind it.

Every answer (:mod:`solver.advice.answers`) and every turn played
(:class:`solver.advice.play.TurnPlay`) asks a :class:`SolutionSource` for what it needs: a card's
turn table (expected points), the game table of a set of rules (win probabilities), and a card's
turn solved for a goal (points, a need, a win). Two implement it:

- :class:`TablesDirectory`, the command line's: the tables of a directory (``--tables``,
  ``--game-tables``), else the repository's committed tables for the default rules and the
  cache for other variants (:mod:`solver.tables.turn`, :mod:`solver.tables.game`), a need or
  a win solved on demand; a game solve is reported through the callbacks it is given (the
  command line's progress);
- :class:`solver.web.solutions.Solutions`, the server's: the same, in bounded caches.

So a front end only parses its inputs, asks :mod:`solver.advice.answers` with its source, and
renders.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..rules.aims import POINTS, WIN
from ..rules.rulebook import Card, Rules
from .goals import Goal, GoalSolution, objective_for, solve_goal

if TYPE_CHECKING:
    from ..game import GameSolution, ProgressFn
    from ..game.table import GameTable
    from ..tables.turn import TurnTable


class SolutionSource(Protocol):
    """What the answers ask for (module docstring)."""

    def table(self, card: Card, rules: Rules) -> TurnTable:
        """`card`'s expected-points turn table under the turn rules of `rules`."""
        ...

    def game(self, rules: Rules, players: int = 2) -> GameTable:
        """The game table of `players` under `rules` (target and ties included): the
        two-player game read or solved; three players and more read, never solved here (an
        hour for three players at the default target: `sabords solve-game --players`)."""
        ...

    def goal(self, card: Card, rules: Rules, goal: Goal) -> GoalSolution:
        """`card`'s turn solved for `goal` (a win goal reads the game table first)."""
        ...


def game_on_disk(rules: Rules, directory: Path | None) -> bool:
    """Whether the game table of `rules` is read rather than solved: from `directory` (always
    read: a missing table there is refused), or the default place of these rules."""
    from ..caches import on_disk
    from ..tables.game import game_table_path
    from ..tables.paths import game_default_dir

    return directory is not None or on_disk(game_table_path(game_default_dir(rules)))


@dataclass
class TablesDirectory:
    """The solutions of a tables directory (module docstring). Nothing is kept between calls
    but what :mod:`solver.tables.turn`, :mod:`solver.tables.game` and the engine cache
    themselves."""

    tables_dir: Path | None = None
    """The turn tables' directory (None: the committed tables or the cache)."""
    game_tables_dir: Path | None = None
    """The game table's directory (None: as for turn tables)."""
    before_game_solve: Callable[[Rules], None] | None = None
    """Called before a game table is solved (not read)."""
    progress: ProgressFn | None = None
    """The sweeps of a game solve."""
    after_game_solve: Callable[[GameSolution], None] | None = None
    """Called after a game table was solved."""
    light: bool = False
    """Read the turn tables light (:func:`solver.tables.turn.turn_table`): their arrays as
    numpy-free columns, which is all the answers read (a few values each), so that a points
    answer imports no numpy (the command line's cold start)."""

    def table(self, card: Card, rules: Rules) -> TurnTable:
        from ..tables.turn import turn_table

        return turn_table(card, rules.turn_rules(), self.tables_dir, light=self.light)

    def game(self, rules: Rules, players: int = 2) -> GameTable:
        from ..tables.game import game_tables, read_players
        from ..tables.paths import game_default_dir

        if players != 2:
            table: GameTable = read_players(self.game_tables_dir or game_default_dir(rules),
                                            rules, players)
            return table
        solving = not game_on_disk(rules, self.game_tables_dir)
        if solving and self.before_game_solve is not None:
            self.before_game_solve(rules)
        sol = game_tables(rules, self.game_tables_dir, progress=self.progress)
        if sol.seconds and self.after_game_solve is not None:  # solved now, not read
            self.after_game_solve(sol)
        return sol

    def goal(self, card: Card, rules: Rules, goal: Goal) -> GoalSolution:
        goal.check(rules)
        if goal.name == POINTS:
            return GoalSolution(goal, objective_for(None), self.table(card, rules).solution)
        game = self.game(rules, goal.players) if goal.name == WIN else None
        return solve_goal(card, rules, goal, tables_dir=self.tables_dir, game=game)


__all__ = ["SolutionSource", "TablesDirectory", "game_on_disk"]
