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
    from ..game import ProgressFn
    from ..game.table import Game, GameTable
    from ..tables.turn import TurnTable


class SolutionSource(Protocol):
    """What the answers ask for (module docstring)."""

    def table(self, card: Card, rules: Rules) -> TurnTable:
        """`card`'s expected-points turn table under the turn rules of `rules`."""
        ...

    def game(self, rules: Rules, players: int) -> Game:
        """The game of `players` under `rules` (target and ties included): its table read,
        or solved where that is cheap, or near-optimal play for four and five players
        (:func:`solver.tables.game.game_of`)."""
        ...

    def goal(self, card: Card, rules: Rules, goal: Goal) -> GoalSolution:
        """`card`'s turn solved for `goal` (a win goal reads the game table first)."""
        ...


@dataclass
class TablesDirectory:
    """The solutions of a tables directory (module docstring). Nothing is kept between calls
    but what :mod:`solver.tables.turn`, :mod:`solver.tables.game` and the engine cache
    themselves."""

    tables_dir: Path | None = None
    """The turn tables' directory (None: the committed tables or the cache)."""
    game_tables_dir: Path | None = None
    """The game table's directory (None: as for turn tables)."""
    before_game_solve: Callable[[Rules, int], None] | None = None
    """Called before a game table is solved (not read), with its rules and players."""
    progress: ProgressFn | None = None
    """The progress of a game solve."""
    after_game_solve: Callable[[GameTable], None] | None = None
    """Called after a game table was solved."""
    light: bool = False
    """Read the turn tables light (:func:`solver.tables.turn.turn_table`): their arrays as
    numpy-free columns, which is all the answers read (a few values each), so that a points
    answer imports no numpy (the command line's cold start)."""

    def table(self, card: Card, rules: Rules) -> TurnTable:
        from ..tables.turn import turn_table

        return turn_table(card, rules.turn_rules(), self.tables_dir, light=self.light)

    def game(self, rules: Rules, players: int) -> Game:
        from ..tables.game import game_of

        return game_of(rules, players, self.game_tables_dir, solve=self._solve)

    def _solve(self, rules: Rules, players: int) -> GameTable:
        from ..game import solve_game

        if self.before_game_solve is not None:
            self.before_game_solve(rules, players)
        table = solve_game(rules, players, progress=self.progress)
        if self.after_game_solve is not None:
            self.after_game_solve(table)
        return table

    def goal(self, card: Card, rules: Rules, goal: Goal) -> GoalSolution:
        if goal.name == POINTS:
            return GoalSolution(goal, objective_for(None), self.table(card, rules).solution)
        game = self.game(rules, goal.players) if goal.name == WIN else None
        return solve_goal(card, rules, goal, tables_dir=self.tables_dir, game=game)


__all__ = ["SolutionSource", "TablesDirectory"]
