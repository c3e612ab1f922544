"""The answers of the questions a player asks, as values and as the JSON of `--json`.

One place assembles what `sabords advise`, `sabords ev` and `sabords winprob` answer (and
`sabords score`, which is :meth:`solver.rules.verdict.Verdict.as_dict`), so that the command line
(:mod:`solver.cli`) and the web API (:mod:`solver.web`) give the same JSON from the same
library calls: each front end only parses its inputs, asks here with its source of solutions
(:class:`solver.advice.sources.SolutionSource`: the command line's tables directory, the server's
bounded caches) and renders.

- :class:`AdviceAnswer` (:func:`advice_answer`): a position's ranked options for a goal; for
  the win goal also each option's expected points and the best move for points, and with an
  exact solution the exact value of every option.
- :class:`EvAnswer` (:func:`ev_answer`): each card's expected points and ending odds under the
  optimal points policy, the deck's average, optionally their exact values.
- :class:`WinAnswer` (:func:`win_answer`): the probability of winning the game from two totals,
  overall and after drawing each card.

Prints nothing and raises the library's errors (:mod:`solver.errors`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..rules.aims import WIN
from ..rules.dice import Dice
from ..rules.rulebook import CARD_IDS, CARDS, Card, Rules
from .advisor import Advice, ExactValues, Position, advise
from .goals import AdviceError, Goal, GoalSolution

if TYPE_CHECKING:
    from ..engine.exact import ExactSolution
    from ..engine.results import TurnStats
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

    def as_dict(self, sentence: Callable[[Advice], str], top: int | None = None
                ) -> dict[str, Any]:
        """The JSON of `sabords advise --json`, with the front end's `sentence` of the advice
        (`top`: only the first `top` options; None or 0: all of them)."""
        from ..rational import fraction_text

        data = self.advice.as_dict(sentence)
        goal = self.solved.goal
        if goal.name == WIN:
            assert self.points is not None
            expected = self.expected
            data.update({"me": goal.me, "opp": goal.opp, "final": goal.final,
                         "target": self.advice.rules.target,
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


def advice_answer(card: Card, dice: Dice, rules: Rules, goal: Goal, solutions: SolutionSource,
                  *, sorceress_used: bool = False, chest: Dice | None = None,
                  first: bool = False, exact: bool = False) -> AdviceAnswer:
    """The answer of `sabords advise` for the position and `goal`, its solutions from
    `solutions`. For the win goal also the position's advice for expected points; with
    `exact` (points or a need) the exact value of every option, proved optimal. The goal is
    checked first, then solved (the game table read first for a win), then the position."""
    from .advisor import exact_values

    goal.check(rules)
    if exact and goal.name == WIN:
        raise AdviceError("exact values are for expected points and a need; the chances of "
                          "winning come from the game table's floats", subject="exact",
                          kind="exact_win")
    solved = solutions.goal(card, rules, goal)
    position = Position(card, dice, rules, sorceress_used=sorceress_used, chest=chest,
                        first=first)
    advice = advise(position, solved)
    if goal.name == WIN:
        points = solutions.goal(card, rules, Goal())
        return AdviceAnswer(advice, solved, points=advise(position, points))
    if not exact:
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
                                "cards": cards, "deck_ev": self.deck["ev"]}
        if self.exact_deck is not None:
            for c in self.cards:
                cards[c]["exact"] = fraction_text(self.exact_ev[c])
            data["deck_ev_exact"] = fraction_text(self.exact_deck)
        return data


def ev_answer(rules: Rules, cards: Sequence[Card] | None, solutions: SolutionSource, *,
              exact: bool = False) -> EvAnswer:
    """The answer of `sabords ev` for `cards` (all 12 by default, each once), every card's
    table from `solutions` (the deck's average needs them all)."""
    from ..engine.results import STAT_NAMES, deck_average, exact_deck_average

    chosen = tuple(dict.fromkeys(c.id for c in cards)) if cards else CARD_IDS
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
    """What `sabords winprob` answers: P(win) about to draw, and after drawing each card."""

    rules: Rules
    me: int
    opp: int
    final: bool
    win: float
    cards: dict[str, float]
    others: tuple[int, ...] = ()
    """Three players and more: the totals after `opp`'s, in seat order."""
    players: tuple[float | None, ...] = ()
    """Every player's probability of winning, in seat order from the player (`win` first)."""
    exact: bool = True
    """The game table's values are the game's (:attr:`solver.game.table.GameTable.exact`)."""
    method: str = ""
    """How the game table was solved."""
    loss: dict[str, Any] | None = None
    """Near-optimal play: its measured loss; `players` then holds None for every other
    player (their chances are not estimated) and `win` is the method's estimate."""

    def as_dict(self) -> dict[str, Any]:
        """The JSON of `sabords winprob --json`: ``players`` every seat in seat order from
        the player, with its total and probability of winning; ``exact`` and ``method``, how
        the game table was solved."""
        totals = (self.me, self.opp, *self.others)
        out: dict[str, Any] = {
            "me": self.me, "target": self.rules.target, "opp": self.opp,
            "rules_hash": self.rules.hash, "win": self.win, "cards": self.cards,
            "final": self.final,
            "players": [{"total": t, "win": p} for t, p in zip(totals, self.players,
                                                              strict=True)],
            "exact": self.exact, "method": self.method}
        if not self.exact:
            out["loss"] = self.loss
        if self.others:
            out["others"] = list(self.others)
        return out


def win_answer(rules: Rules, me: int, opp: int, solutions: SolutionSource, *,
               final: bool = False, others: Sequence[int] = ()) -> WinAnswer:
    """The answer of `sabords winprob`: the totals checked, then the game table of `rules`
    (of two players, or of ``2 + len(others)``) from `solutions`."""
    from ..game.table import check_position

    check_position(rules, me, (opp, *others), final=final)  # before a table is read or solved
    table = solutions.game(rules, 2 + len(others))
    chances, cards = table.chances(me, (opp, *others), final=final)
    return WinAnswer(rules, me, opp, final, chances[0], cards, tuple(others), chances,
                     exact=table.exact, method=table.method, loss=table.loss)


__all__ = [
    "AdviceAnswer",
    "EvAnswer",
    "WinAnswer",
    "advice_answer",
    "ev_answer",
    "win_answer",
]
