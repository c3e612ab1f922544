"""The answers of the questions a player asks, as values and as the JSON of `--json`.

One place assembles what `sabords advise`, `sabords ev` and `sabords winprob` answer (and
`sabords score`, which is :meth:`solver.rules.verdict.Verdict.as_dict`), so that the command line
(:mod:`solver.cli`) and the web API (:mod:`solver.web`) give the same JSON from the same
library calls: each front end only reads its inputs into a request (:mod:`.requests`), asks
here with it and its source of solutions (:class:`solver.advice.sources.SolutionSource`: the
command line's tables directory, the server's bounded caches) and renders.

- :class:`AdviceAnswer` (:func:`advice_answer`): a position's ranked options for a goal; for
  the win goal also each option's expected points and the best move for points, and with an
  exact solution the exact value of every option.
- :class:`EvAnswer` (:func:`ev_answer`): each card's expected points and ending odds under the
  optimal points policy, the deck's average, optionally their exact values.
- :class:`WinAnswer` (:func:`win_answer`): every player's probability of winning the game from
  a standing, and the player's after drawing each card.

Prints nothing and raises the library's errors (:mod:`solver.errors`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..rules.aims import WIN
from ..rules.rulebook import CARD_IDS, CARDS, Card, Rules
from .advisor import Advice, ExactValues, Position, advise
from .goals import Goal, GoalSolution

if TYPE_CHECKING:
    from ..engine.exact import ExactSolution
    from ..engine.results import TurnStats
    from ..game.table import Chances, Game
    from ..rules.dice import Letters
    from ..rules.standing import Standing
    from .requests import AdviceRequest, EvRequest, WinRequest
    from .sources import SolutionSource


# -- advise ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AdviceAnswer:
    """What `sabords advise` answers: the advice, and what goes with it for its goal."""

    advice: Advice
    solved: GoalSolution
    points: Advice | None = None
    """The win goal: the same position's advice for expected points."""
    exact: ExactValues | None = None
    """The exact values of the advice (expected points or a need), when asked for."""

    @property
    def expected(self) -> dict[tuple[str, str, str, bool], float]:
        """The win goal: the expected points of each option, by its key
        (:attr:`solver.advice.advisor.Option.key`)."""
        if self.points is None:
            return {}
        return {o.key: o.value for o in self.points.options}

    def as_dict(self, sentence: Callable[[Advice], str], top: int | None = None,
                letters: Letters | None = None) -> dict[str, Any]:
        """The JSON of `sabords advise --json`, with the front end's `sentence` of the advice
        (`top`: only the first `top` options; None or 0: all of them)."""
        from ..rational import fraction_text

        data = self.advice.as_dict(sentence, letters)
        goal = self.solved.goal
        if goal.standing is not None:
            assert self.points is not None
            expected = self.expected
            data.update({**goal.standing.as_dict(), "target": self.advice.rules.target,
                         "game": self.solved.game_dict(),
                         "points_best": [o.as_dict() for o in self.points.options
                                         if o.best][:1]})
            for entry, o in zip(data["options"], self.advice.options, strict=True):
                entry["expected_points"] = expected.get(o.key)
        if self.exact is not None:
            data["exact"] = fraction_text(self.exact.value)
            for entry, value in zip(data["options"], self.exact.options, strict=True):
                entry["exact"] = fraction_text(value)
        if top:
            data["options"] = data["options"][:top]
        return data


def advice_answer(request: AdviceRequest, solutions: SolutionSource) -> AdviceAnswer:
    """The answer of `sabords advise` to `request`, its solutions from `solutions`. For the
    win goal also the position's advice for expected points; with `exact` (points or a need)
    the exact value of every option, proved optimal. The goal is solved first (the game table
    read first for a win), then the position."""
    from .advisor import exact_values

    card, rules, goal = request.card, request.rules, request.goal
    solved = solutions.goal(card, rules, goal)
    position = Position(card, request.dice, rules, sorceress_used=request.sorceress_used,
                        chest=request.chest, first=request.first)
    advice = advise(position, solved)
    if goal.name == WIN:
        points = solutions.goal(card, rules, Goal())
        return AdviceAnswer(advice, solved, points=advise(position, points))
    if not request.exact:
        return AdviceAnswer(advice, solved)
    return AdviceAnswer(advice, solved, exact=exact_values(advice, _exact(card, rules, solved,
                                                                          solutions)))


def _exact(card: Card, rules: Rules, solved: GoalSolution,
           solutions: SolutionSource) -> ExactSolution:
    """The exact solution behind `solved`: the table's exact values for expected points, a
    need solved exactly from its float policy (:func:`solver.engine.exact.exact_from`)."""
    if solved.goal.need is None:
        return solutions.table(card, rules).exact()
    from ..engine.exact import exact_from

    return exact_from(solved.solution, solved.objective)


# -- ev ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvAnswer:
    """What `sabords ev` answers: every card's statistics (the deck average needs them all)
    and the cards asked about."""

    rules: Rules
    cards: tuple[str, ...]
    """The cards shown, in the order asked."""
    stats: dict[str, TurnStats]
    """Every card's statistics."""
    deck: dict[str, float]
    """The deck's average of each statistic."""
    bound: float
    """The largest certified bound of the values and statistics."""
    exact_ev: dict[str, Fraction] = field(default_factory=dict)
    """Each card's exact expected points (when asked for)."""
    exact_deck: Fraction | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON of `sabords ev --json`."""
        from ..rational import fraction_text

        cards: dict[str, dict[str, object]] = {c: dict(self.stats[c].as_dict())
                                               for c in self.cards}
        data: dict[str, Any] = {"rules_hash": self.rules.hash, "variants": self.rules.as_dict(),
                                "cards": cards, "deck_ev": self.deck["ev"],
                                "deck": dict(self.deck)}  # the text's "deck average" row
        if self.exact_deck is not None:
            for c in self.cards:
                cards[c]["exact"] = fraction_text(self.exact_ev[c])
            data["deck_ev_exact"] = fraction_text(self.exact_deck)
        return data


def ev_answer(request: EvRequest, solutions: SolutionSource) -> EvAnswer:
    """The answer of `sabords ev` for the request's cards (all 12 by default), every card's
    table from `solutions` (the deck's average needs them all)."""
    from ..engine.results import STAT_NAMES, deck_average, exact_deck_average

    rules, exact = request.rules, request.exact
    chosen = tuple(c.id for c in request.cards) if request.cards else CARD_IDS
    loaded = {c.id: solutions.table(c, rules) for c in CARDS.values()}
    stats = {c: t.stats for c, t in loaded.items()}
    bound = max(max(t.solution.bound, t.stats.bound) for t in loaded.values())
    deck = {name: deck_average({c: getattr(s, name) for c, s in stats.items()})
            for name in STAT_NAMES}
    if not exact:
        return EvAnswer(rules, chosen, stats, deck, bound)
    exact_ev = {c: t.exact_stats().ev for c, t in loaded.items()}
    return EvAnswer(rules, chosen, stats, deck, bound, exact_ev, exact_deck_average(exact_ev))


# -- winprob -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WinAnswer:
    """What `sabords winprob` answers: every player's chance of winning about to draw, and the
    player's after drawing each card."""

    standing: Standing
    chances: Chances
    game: Game
    """The game the chances come from (exact, or near-optimal with a measured error)."""

    @property
    def rules(self) -> Rules:
        return self.standing.rules

    @property
    def win(self) -> float:
        return self.chances.mover

    @property
    def cards(self) -> dict[str, float]:
        return self.chances.cards

    @property
    def players(self) -> tuple[float, ...]:
        """Every player's probability of winning, in seat order from the player."""
        return self.chances.seats

    def as_dict(self) -> dict[str, Any]:
        """The JSON of `sabords winprob --json`: the standing (``me``, ``opp``, ``others``,
        ``final``...), ``win`` and ``cards`` the player's, ``players`` every seat in seat
        order from the player, with its total and probability of winning; ``exact`` and
        ``method``, how the values were made (and near-optimal play's measured ``loss``)."""
        from ..game.table import how_solved

        st = self.standing
        said = st.as_dict()
        return {"me": st.me, "target": self.rules.target, "opp": said.pop("opp"),
                "rules_hash": self.rules.hash, "win": self.win, "cards": self.cards,
                "final": said.pop("final"),
                "players": [{"total": t, "win": p} for t, p in zip(st.totals, self.players,
                                                                  strict=True)],
                **how_solved(self.game), **{k: v for k, v in said.items() if k != "me"}}


def win_answer(request: WinRequest, solutions: SolutionSource) -> WinAnswer:
    """The answer of `sabords winprob` to `request`: the game of its players from
    `solutions`, asked about its standing."""
    from ..game.query import resolved

    standing = request.standing
    game = solutions.game(standing.rules, standing.players)
    standing = resolved(game, standing)  # (a trigger read from the totals, said)
    return WinAnswer(standing, game.chances(standing), game)


__all__ = [
    "AdviceAnswer",
    "EvAnswer",
    "WinAnswer",
    "advice_answer",
    "ev_answer",
    "win_answer",
]
