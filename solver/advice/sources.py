"""Where the answers find their solutions: one source of tables for both front ends.

Every answer (:mod:`solver.advice.answers`) and every turn played
(:class:`solver.advice.play.TurnPlay`) asks a :class:`SolutionSource` for what it needs: a card's
turn table (expected points), the game of a set of rules (win probabilities), and a card's turn
solved for a goal (points, a need, a win). :class:`Tables` implements it once: where a table
comes from (a directory given, else the repository's committed tables for the default rules and
the cache for other variants: :mod:`solver.tables.turn`, :mod:`solver.tables.game`), what is
solved on demand (a turn table; a game whose solve is cheap by the cost model,
:func:`solver.tables.game.game_of`), and what a goal's turn is solved from. A front end
changes only *how* a solve runs and what it keeps:

- the command line (:func:`solver.cli.wording.solutions_from`): :class:`Tables` as it is, a game
  solve said and its progress shown on stderr (the callbacks it is given), nothing kept between
  calls but what the library caches itself;
- the server (:class:`solver.web.solutions.Solutions`, a :class:`Tables`): its solves in a queue
  and a process of their own, every solution kept in a bounded cache (:meth:`Tables.kept`).

So a front end only parses its inputs, asks :mod:`solver.advice.answers` with its source, and
renders.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from ..rules.aims import POINTS, WIN
from ..rules.rulebook import Card, Rules
from .goals import Goal, GoalSolution, objective_for, solve_goal

if TYPE_CHECKING:
    from ..game import ProgressFn
    from ..game.table import Game, GameTable
    from ..tables.turn import TurnTable

T = TypeVar("T")


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
class Tables:
    """The tables of a directory or of their default places (module docstring)."""

    tables_dir: Path | None = None
    """The turn tables' directory (None: the committed tables or the cache)."""
    game_tables_dir: Path | None = None
    """The game tables' directory (None: as for turn tables)."""
    before_game_solve: Callable[[Rules, int], None] | None = None
    """Called before a game table is solved (not read), with its rules and players."""
    progress: ProgressFn | None = None
    """The progress of a game solve."""
    after_game_solve: Callable[[GameTable], None] | None = None
    """Called after a game table was solved."""
    before_need_solve: Callable[[Rules, int], None] | None = None
    """Called before the final round's endings of four and five players are solved (not read:
    :func:`solver.tables.need.cached_need`), with their rules and dice."""
    light: bool = False
    """Read the turn tables light (:func:`solver.tables.turn.turn_table`): their arrays as
    numpy-free columns, which is all the answers read (a few values each), so that a points
    answer imports no numpy (the command line's cold start)."""
    within: float | None = None
    """The longest game solve made on demand, in seconds by the cost model
    (:func:`solver.tables.game.game_of`; None: its default)."""

    # -- what is asked -----------------------------------------------------------------------

    def table(self, card: Card, rules: Rules) -> TurnTable:
        turn = rules.turn_rules()
        return self.kept("table", (card.id, turn), lambda: self.turn_table(card, turn))

    def game(self, rules: Rules, players: int) -> Game:
        from ..tables.game import game_of

        return self.kept("game", (rules, players), lambda: game_of(
            rules, players, self.game_tables_dir, solve=self.solve_game, within=self.within,
            before_need=self.before_need_solve))

    def goal(self, card: Card, rules: Rules, goal: Goal) -> GoalSolution:
        if goal.name == POINTS:
            return GoalSolution(goal, objective_for(None), self.table(card, rules).solution)
        key_rules = rules.turn_rules() if goal.name != WIN else rules
        return self.kept("goal", (card.id, key_rules, goal),
                         lambda: self.solve_goal(card, rules, goal))

    # -- how: what a front end may change ------------------------------------------------------

    def kept(self, kind: str, key: Hashable, make: Callable[[], T]) -> T:
        """A solution of `kind` (``"table"``, ``"game"``, ``"goal"``) by `key`: made now (a
        front end that keeps solutions keeps them here)."""
        return make()

    def turn_table(self, card: Card, turn: Rules) -> TurnTable:
        """`card`'s turn table under the turn rules `turn`: read, or solved and cached
        (:func:`solver.tables.turn.turn_table`)."""
        from ..tables.turn import turn_table

        return turn_table(card, turn, self.tables_dir, light=self.light)

    def solve_game(self, rules: Rules, players: int) -> GameTable:
        """The game of `players` solved now (cheap enough, :func:`solver.tables.game.game_of`
        decides), in this process, said and shown through the callbacks."""
        from ..game import solve_game

        if self.before_game_solve is not None:
            self.before_game_solve(rules, players)
        table = solve_game(rules, players, progress=self.progress)
        if self.after_game_solve is not None:
            self.after_game_solve(table)
        return table

    def solve_goal(self, card: Card, rules: Rules, goal: Goal) -> GoalSolution:
        """`card`'s turn solved for a need or a win (the game read or solved first)."""
        game = self.game(rules, goal.players) if goal.name == WIN else None
        return solve_goal(card, rules, goal, tables_dir=self.tables_dir, game=game)


__all__ = ["SolutionSource", "Tables"]
