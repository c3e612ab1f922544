"""What a turn is played for, and the solved turn behind the advice.

A :class:`Goal` is one objective value: expected points (the default), the probability of at
least `need` points, or the probability of winning the game from the players' totals.
:func:`solve_goal` solves a card's turn for it (:class:`GoalSolution`): points from the policy
tables, a need solved now, a win from the game table of its players
(:class:`solver.game.table.GameTable`, the same for any number of players).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import RulesError, quote
from ..rules.aims import NEED, POINTS, WIN, Aim
from ..rules.rulebook import Card, Rules

if TYPE_CHECKING:
    from ..engine import Objective, TurnSolution
    from ..engine.exact import ExactSolution
    from ..game.table import Game
    from ..rules.standing import Standing


class AdviceError(RulesError):
    """Advice asked for a position or an objective that cannot be (e.g. a negative target)."""


def check_need(need: int | None) -> None:
    """Raise :class:`AdviceError` unless `need` is None or a non-negative multiple of 100."""
    if need is None:
        return
    if isinstance(need, bool) or not isinstance(need, int) or need < 0 or need % 100:
        raise AdviceError(
            f"the points needed must be a non-negative multiple of 100 (points always are), "
            f"not {quote(need)}", subject="need", kind="not_points",
            values={"value": need if isinstance(need, int) else str(need), "unit": 100}
        )


# -- the solution behind the values ------------------------------------------------------------


def objective_for(need: int | None) -> Objective:
    """The engine objective of the advisor: expected points, or at least `need` points."""
    from ..engine import AtLeast, ExpectedPoints

    check_need(need)
    return ExpectedPoints() if need is None else AtLeast(need)


def solution_for(
    card: Card,
    rules: Rules,
    need: int | None = None,
    *,
    tables_dir: Path | str | None = None,
) -> TurnSolution:
    """The solved turn behind the advice: the points table, or `need` solved on demand.

    Points come from the policy tables (:func:`solver.tables.turn.turn_solution`: the committed
    tables for the default rules, `tables_dir` if given, the cache for other variants); a
    target `need` is solved now (:func:`solver.engine.solve_turn`, tens of milliseconds).
    """
    check_need(need)
    if need is None:
        from ..tables.turn import turn_solution

        return turn_solution(card, rules.turn_rules(), tables_dir)
    from ..engine import solve_turn

    return solve_turn(card, rules.turn_rules(), objective_for(need))


def exact_solution_for(
    card: Card,
    rules: Rules,
    need: int | None = None,
    *,
    tables_dir: Path | str | None = None,
    solution: TurnSolution | None = None,
) -> ExactSolution:
    """The exact counterpart of :func:`solution_for`, proved optimal
    (:mod:`solver.engine.exact`): points from the tables' exact values
    (:func:`solver.tables.turn.exact_solution`); a target `need` solved now, from `solution` (the
    float solution of that need, e.g. the advice's) or solved first."""
    check_need(need)
    if need is None:
        from ..tables.turn import exact_solution

        return exact_solution(card, rules.turn_rules(), tables_dir)
    from ..engine.exact import exact_from

    if solution is None:
        solution = solution_for(card, rules, need)
    return exact_from(solution, objective_for(need))


# -- what the turn is played for ---------------------------------------------------------------


@dataclass(frozen=True)
class Goal:
    """What a turn is played for: expected points (the default), the probability of at least
    `need` points, or the probability of winning the game from its `standing` (the totals in
    seat order from the player, and the round: :class:`~solver.rules.standing.Standing`,
    checked against its rules when made). Checked when made."""

    need: int | None = None
    standing: Standing | None = None

    def __post_init__(self) -> None:
        check_need(self.need)
        if self.need is not None and self.standing is not None:
            raise AdviceError("the points needed and the totals of the game are two "
                              "objectives: give one of them", subject="objective",
                              kind="two_objectives")

    @property
    def name(self) -> Aim:
        """:data:`POINTS`, :data:`NEED` or :data:`WIN`."""
        return WIN if self.standing is not None else POINTS if self.need is None else NEED

    @property
    def players(self) -> int:
        """The players of a win goal."""
        return 2 if self.standing is None else self.standing.players

    @property
    def me(self) -> int | None:
        return None if self.standing is None else self.standing.me

    @property
    def opponents(self) -> tuple[int, ...]:
        """The other players' totals in seat order after the player's."""
        return () if self.standing is None else self.standing.others

    @property
    def final(self) -> bool:
        return self.standing is not None and self.standing.final

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"objective": self.name, "need": self.need, "me": None,
                               "opp": None, "final": False}
        if self.standing is not None:
            out.update(self.standing.as_dict())
        return out


def goal_of(rules: Rules, need: int | None = None, me: int | None = None,
            opp: Sequence[int] = (), *, final: bool = False, trigger: int | None = None,
            sudden: bool = False) -> Goal:
    """The goal a player asks for: `need` points, or with `me` and the opponents' totals
    `opp` (in seat order after the player) winning the game (`final`: a final turn; `trigger`:
    the player, numbered from the player's 1, who reached the target first; `sudden`: sudden
    death); expected points without either."""
    from ..rules.standing import Standing

    if (me is None) != (not opp) or ((final or trigger is not None or sudden) and me is None):
        raise AdviceError("playing to win needs both totals, yours and the opponent's (a "
                          "final turn too)", subject="totals", kind="both_totals")
    if me is None:
        return Goal(need=need)
    if need is not None:
        raise AdviceError("the points needed and the totals of the game are two objectives: "
                          "give one of them", subject="objective", kind="two_objectives")
    return Goal(standing=Standing.of(rules, me, opp, final=final, sudden=sudden,
                                     trigger=None if trigger is None else trigger - 1))


@dataclass(frozen=True)
class GoalSolution:
    """A card's turn solved for a :class:`Goal`: the engine objective and its solution."""

    goal: Goal
    objective: Objective
    solution: TurnSolution
    seats: tuple[tuple[Objective, TurnSolution], ...] = ()
    """Three players and more: every other seat's objective and the evaluation of the mover's
    play for it (its probability of winning after each move)."""
    game: Game | None = None
    """Playing to win: the game whose values the turn was solved from (exact, or near-optimal
    with a measured error: :attr:`solver.game.table.Game.exact`)."""

    @property
    def game_exact(self) -> bool:
        return self.game is None or self.game.exact

    def game_dict(self) -> dict[str, Any]:
        """The JSON's ``game`` of a win answer: ``exact``, ``method``, and near-optimal play's
        measured ``loss`` (null: nothing measured)."""
        from ..game.table import how_solved

        assert self.game is not None
        return how_solved(self.game)


def solve_goal(card: Card, rules: Rules, goal: Goal, *,
               tables_dir: Path | str | None = None,
               game: Game | None = None) -> GoalSolution:
    """The solved turn behind advice for `goal`: expected points from the policy tables
    (`tables_dir`, see :func:`solution_for`), a `need` solved now, or winning the game from the
    game table `game` of the goal's players (required for that goal)."""
    if goal.name != WIN:
        return GoalSolution(goal, objective_for(goal.need),
                            solution_for(card, rules, goal.need, tables_dir=tables_dir))
    assert goal.standing is not None
    if game is None:
        raise ValueError("playing to win needs the game table")
    from dataclasses import replace

    from ..engine import solve_turn
    from ..game.query import resolved

    standing = resolved(game, goal.standing)
    goal = replace(goal, standing=standing)  # (its trigger said, where the totals said it)
    mover, *others = game.objectives(standing)
    best = solve_turn(card, rules.turn_rules(), mover)
    seats = tuple((o, solve_turn(card, rules.turn_rules(), o, policy=best.policy()))
                  for o in others)
    return GoalSolution(goal, mover, best, seats, game=game)


def solve_goals(rules: Rules, game: Game, wanted: list[tuple[Card, Goal]]
                ) -> list[GoalSolution]:
    """:func:`solve_goal` of many turns of one game at once, each (card, win goal) of
    `wanted`: the movers' best turns solved as the columns of one batch where their cards
    allow (:func:`solver.engine.solve_payoffs`), and every other seat's chance under each
    mover's play in one policy evaluation of their objectives side by side
    (:class:`~solver.engine.objectives.Stacked`). Each value is within its solve's certified
    bound of :func:`solve_goal`'s (a whole game's review: :mod:`.review`)."""
    from ..engine import Stacked, payoff_for, solve_payoff, solve_payoffs, turn_model

    turn_rules = rules.turn_rules()
    objectives = []
    for _, goal in wanted:
        if goal.standing is None:
            raise ValueError("solve_goals solves win goals")
        objectives.append(game.objectives(goal.standing))
    models = [turn_model(card, turn_rules, game.n_dice) for card, _ in wanted]
    best = solve_payoffs([(m, payoff_for(m, o[0]), o[0].key())
                          for m, o in zip(models, objectives, strict=True)])
    out = []
    for (_, goal), model, (mover, *others), solution in zip(wanted, models, objectives, best,
                                                             strict=True):
        stacked = Stacked(tuple(others))
        evaluated = solve_payoff(model, payoff_for(model, stacked), stacked.key(),
                                 policy=solution.policy())
        seats = tuple((o, evaluated.column(j)) for j, o in enumerate(others))
        out.append(GoalSolution(goal, mover, solution, seats, game=game))
    return out


__all__ = ["AdviceError", "Goal", "GoalSolution", "check_need", "exact_solution_for",
           "goal_of", "objective_for", "solution_for", "solve_goal", "solve_goals"]
