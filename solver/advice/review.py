r"""A game's review: where it was won and lost, luck against play (`sabords review`).

A game record (:mod:`solver.rules.record`) is replayed turn by turn, and every player's chance
of winning is followed through every **event** of the game: each card drawn, each roll, each
decision. For player :math:`i` and an event taking the game from :math:`x` to :math:`y`, the
event's change is :math:`\Delta_i = V_i(y) - V_i(x)`, where :math:`V_i` is player *i*'s
probability of winning with every player playing to win from there on (the game's table:
exact for two and three players, near-optimal estimates with a measured error for four and
five, :attr:`solver.game.table.Game.exact`):

- **a card drawn**: the mover's best turn with that card, and every other seat's chance under
  it (:func:`solver.advice.goals.solve_goals`), minus the chances before the draw: *luck*.
  Over the deck its expectation is 0 (for an exact table, to its proved bound);
- **a roll**: the value of the position the dice show (the best move's, a bust's, Skull
  Island's over the island's exact distribution) minus the value of the move that rolled them
  (the card's turn before the first roll): *luck*, of expectation 0 over the roll;
- **Skull Island's later rolls** (or, where the record gives only their end, the deduction):
  *luck*;
- **a decision**: the value of the move played minus the value of the best move. For the mover
  it is minus the decision's *error* (its regret, :class:`solver.advice.play.Decision`: 0 for
  a best move, within :data:`~solver.advice.advisor.BEST_TOLERANCE`); the other seats' change
  is what the mover's play gave or took from them;
- **a turn entered as its points alone**: the chances after it minus before, luck and play
  together (with its card known, the card's luck apart).

Consecutive events share their values (each event's *after* is the next one's *before*), and
a turn's last value is the next state's (the objective of a turn's endings *is* the game's
table at the states they lead to), so the changes add up: for each player,

.. math::  \text{result} - \text{chance at the start} = \sum_{\text{events}} \Delta_i,

the result being 1 for a win, :math:`1/k` for a share of a tie between *k*, 0 for a loss (or,
for a game not over, the chance now). Every review checks it to :data:`IDENTITY_TOLERANCE`
(:class:`IdentityError` otherwise: a bug, not an input).

With four and five players the chances are near-optimal estimates
(:mod:`solver.game.reduced`), and the estimates at successive states are not exactly
consistent (by up to their measured error): a turn ends on the estimates of its endings, while
the next state's chances (the ones ``winprob``, the scoreboard and the next card's luck start
from) are one turn ahead of them. The difference is the turn's last event, an **estimate**
step: neither luck nor play, counted apart (:attr:`PlayerReview.estimate`). A card's luck is
then of expectation 0 over the deck, as with an exact table, and every chance the review shows
after a turn is the one the scoreboard shows at that state.

A record of **one player** is reviewed in expected points (or, with a ``need``, in the
probability of scoring it each turn): each turn starts from the deck's expected value of a
turn, the same events follow, and the turn's points (or 1 for a need reached) end it; the
identity is then: the points scored minus the turns' expected points.

**Errors are classed** by their cost (:data:`THRESHOLDS`, in points of probability for a game,
1 point = 0.01; in expected points for one player): a best move, a *small* error, an
*inaccuracy*, a *mistake*, a *blunder*.

Every turn's dice and decisions are checked as the turn helper checks them
(:class:`solver.advice.play.TurnPlay`: the dice that stayed are showing, each move legal, its
one broken rule named), and the points the record gives must be the dice's: anything else is
refused in one :class:`~solver.rules.record.RecordError` naming the turn and the roll.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import SabordsError
from ..rules.aims import NEED, POINTS, WIN, Aim
from ..rules.dice import Dice
from ..rules.record import GameRecord, RecordError, Roll, Turn
from ..rules.rulebook import CARDS, Card, Rules, deck_weights
from ..rules.scoreboard import Scoreboard
from .advisor import Advice, Option
from .goals import Goal, GoalSolution
from .play import Decision, Phase, TurnPlay

if TYPE_CHECKING:
    from ..engine import Objective
    from ..game.table import Game
    from .sources import SolutionSource

IDENTITY_TOLERANCE = 1e-9
"""How far the changes of a player's chance may add up from their result minus their start
(the floating-point sums of a few hundred differences are far closer)."""

GRADES = ("best", "small", "inaccuracy", "mistake", "blunder")
"""The classes of a decision, from no error to the worst."""
THRESHOLDS: dict[str, tuple[float, float, float]] = {
    "probability": (0.005, 0.02, 0.05),
    "points": (25.0, 100.0, 250.0),
}
"""The least error of an inaccuracy, a mistake and a blunder, in the review's unit: for a game
(the probability of winning, or of a one-player need) half a point, two points and five points
of probability; for one player's expected points 25, 100 and 250 points. A move that is not
among the best but costs less than the first is *small*."""
LUCK = ("card", "roll", "island")
"""The events that are luck: the cards drawn and the dice rolled."""


class IdentityError(RuntimeError):
    """A review whose changes do not add up to the result (a bug in the review or in the
    values it read, never the record's fault)."""


def grade(error: float, unit: str, best: bool) -> str:
    """The class of a decision of `error` (:data:`THRESHOLDS` of `unit`)."""
    if best:
        return "best"
    inaccuracy, mistake, blunder = THRESHOLDS[unit]
    return ("blunder" if error >= blunder else "mistake" if error >= mistake
            else "inaccuracy" if error >= inaccuracy else "small")


@dataclass(frozen=True)
class Event:
    """One event of a turn and what it did to every player's chance (module docstring)."""

    kind: str
    """``card``, ``roll``, ``island``, ``decision``, ``turn`` (points alone), or
    ``estimate`` (a near-optimal game's step to the next state's chances: module docstring)."""
    chances: tuple[float, ...]
    """Every player's value after it, in seat order."""
    change: tuple[float, ...]
    """After minus before, in seat order."""
    roll: int | None = None
    """The roll it is or follows (1: the first)."""
    dice: Dice | None = None
    decision: Decision | None = None
    """A decision: the position's advice and the move played."""
    grade: str | None = None

    @property
    def error(self) -> float:
        """A decision's cost to its player (0 for the other events)."""
        return 0.0 if self.decision is None else self.decision.cost

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "chances": list(self.chances),
                               "change": list(self.change)}
        if self.roll is not None:
            out["roll"] = self.roll
        if self.dice is not None:
            out["dice"] = str(self.dice)
        d = self.decision
        if d is not None:
            a = d.advice
            out.update({"sorceress_used": a.sorceress_used,
                        "chest": None if a.chest is None else str(a.chest),
                        "points": a.points, "played": d.chosen.as_dict(),
                        "best": d.best.as_dict(),
                        "chance_best": a.value, "chance_played": d.chosen.value,
                        "error": d.cost, "grade": self.grade})
        return out


@dataclass(frozen=True)
class TurnReview:
    """A turn of the record, reviewed: its events in order."""

    number: int
    """1: the record's first turn."""
    turn: Turn
    board: Scoreboard
    """The scoreboard before the turn."""
    goal: Goal
    """What its player played for."""
    before: tuple[float, ...]
    events: tuple[Event, ...]

    @property
    def player(self) -> int:
        return self.turn.player

    @property
    def after(self) -> tuple[float, ...]:
        return self.events[-1].chances if self.events else self.before

    def as_dict(self) -> dict[str, Any]:
        goal = self.board.goal() if self.goal.name == WIN else (
            {"need": self.goal.need} if self.goal.need is not None else {})
        return {"turn": self.number, "player": self.player,
                "card": None if self.turn.card is None else self.turn.card.id,
                "totals": list(self.board.totals), "goal": goal,
                **{k: v for k, v in self.turn.as_dict().items()
                   if k in ("points", "deduction", "magic")},
                "before": list(self.before), "after": list(self.after),
                "events": [e.as_dict() for e in self.events]}


@dataclass(frozen=True)
class PlayerReview:
    """One player's game in figures (module docstring); every figure in the review's unit,
    a change of the player's own value."""

    seat: int
    name: str
    start: float
    """The chance at the start (one player: the turns' expected value, summed)."""
    end: float
    """The result (one player: the turns' values, summed), or the chance now."""
    luck: float
    """Every card and roll of the game, the player's and the others'."""
    luck_own: float
    """The cards and rolls of the player's own turns."""
    play_own: float
    """The player's own decisions (minus their errors, to the last bits)."""
    play_others: float
    """The other players' decisions."""
    alone: float
    """Turns entered as their points alone, luck and play together."""
    estimate: float
    """A near-optimal game's steps from a turn's endings to the next state's chances (module
    docstring; 0 for an exact table)."""
    error: float
    """The sum of the player's decisions' errors."""
    decisions: int
    grades: dict[str, int]

    @property
    def change(self) -> float:
        return self.end - self.start

    @property
    def per_decision(self) -> float | None:
        return self.error / self.decisions if self.decisions else None

    @property
    def gap(self) -> float:
        """How far the parts add up from the change (:data:`IDENTITY_TOLERANCE`)."""
        return abs(self.change - (self.luck + self.play_own + self.play_others + self.alone
                                  + self.estimate))

    def as_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "start": self.start, "end": self.end,
                "change": self.change, "luck": self.luck, "luck_own": self.luck_own,
                "play_own": self.play_own, "play_others": self.play_others,
                "alone": self.alone, "estimate": self.estimate, "error": self.error,
                "decisions": self.decisions,
                "error_per_decision": self.per_decision, "grades": self.grades}


@dataclass(frozen=True)
class GameReview:
    """A whole record reviewed (module docstring)."""

    record: GameRecord
    objective: Aim
    """:data:`WIN` for a game; :data:`POINTS` or :data:`NEED` for one player."""
    game: Game | None
    """The game whose values were read (None: one player's turns)."""
    start: tuple[float, ...]
    turns: tuple[TurnReview, ...]
    players: tuple[PlayerReview, ...]
    over: bool
    winners: tuple[int, ...]

    @property
    def unit(self) -> str:
        """``probability`` (of winning, of a need) or ``points`` (expected points)."""
        return "points" if self.objective == POINTS else "probability"

    @property
    def gap(self) -> float:
        """The largest gap of the identity over the players (:data:`IDENTITY_TOLERANCE`)."""
        return max((p.gap for p in self.players), default=0.0)

    @property
    def decisions(self) -> list[tuple[TurnReview, Event]]:
        """Every decision of the game, in order."""
        return [(t, e) for t in self.turns for e in t.events if e.decision is not None]

    def mistakes(self, most: int | None = None) -> list[tuple[TurnReview, Event]]:
        """The decisions that were not best moves, the costliest first (`most` of them)."""
        wrong = [(t, e) for t, e in self.decisions if e.grade != "best"]
        wrong.sort(key=lambda te: (-te[1].error, te[0].number, te[1].roll or 0))
        return wrong if most is None else wrong[:most]

    def as_dict(self, story: Any = None) -> dict[str, Any]:
        """The review's JSON (`sabords review --json`, ``/api/review``); `story`, a front
        end's sentence of a player's game (:func:`solver.words.review.story`)."""
        from ..game.table import how_solved

        record = self.record
        out: dict[str, Any] = {
            "objective": self.objective, "need": record.need, "unit": self.unit,
            "rules": record.rules.as_dict(), "rules_hash": record.rules.hash,
            "players": [p.as_dict() for p in record.players],
            "game": None if self.game is None else {"players": self.game.players,
                                                     **how_solved(self.game)},
            "thresholds": dict(zip(GRADES[2:], THRESHOLDS[self.unit], strict=True)),
            "start": list(self.start), "over": self.over, "winners": list(self.winners),
            "result": [p.end for p in self.players] if self.over else None,
            "now": [p.end for p in self.players],
            "summary": [p.as_dict() for p in self.players],
            "turns": [t.as_dict() for t in self.turns],
            "identity": {"tolerance": IDENTITY_TOLERANCE, "gap": self.gap},
        }
        if story is not None:
            out["story"] = [story(self, p) for p in self.players]
        return out


# -- the replay --------------------------------------------------------------------------------


def _at(where: str, exc: SabordsError) -> RecordError:
    """A refusal of the turn helper, placed in the record."""
    return RecordError(f"{where}: {exc.message}", kind=exc.kind,
                       values={**exc.values, "where": where})


def _ending(objectives: tuple[Objective, ...], *, points: int | None = None,
            deduction: int | None = None, magic: bool = False) -> tuple[float, ...]:
    """Every seat's value (the mover's frame) of a turn ending with `points` (pirate magic:
    `magic`) or Skull Island's `deduction`."""
    import numpy as np

    if deduction is not None:
        d = np.array([deduction], dtype=np.int64)
        return tuple(float(o.of_island(d)[0, 0]) for o in objectives)
    assert points is not None
    return tuple(o.utility_of(points, magic=magic) for o in objectives)


def _island(objectives: tuple[Objective, ...], card: Card, rules: Rules,
            skull_dice: int) -> tuple[float, ...]:
    """Every seat's value (the mover's frame) of Skull Island going on with `skull_dice`
    skull dice: the expectation over its exact distribution of deductions, summed as a turn's
    payoff sums it (:func:`solver.engine.payoff_for`)."""
    import numpy as np

    from ..engine import turn_model

    dist = sorted(turn_model(card, rules.turn_rules()).island_deduction(skull_dice).items())
    deductions = np.array([d for d, _ in dist], dtype=np.int64)
    out = []
    for o in objectives:
        acc = 0.0
        for (_, p), row in zip(dist, o.of_island(deductions), strict=True):
            acc = acc + float(p) * float(row[0])
        out.append(acc)
    return tuple(out)


def _option(advice: Advice, roll: Roll) -> Option:
    """The option of the decision recorded after a roll, or the turn helper's refusal."""
    from .choices import chosen_option

    for option in advice.options:
        if roll.stop and option.action == "stop":
            return option
        if (not roll.stop and option.action == "reroll" and option.keep == roll.keep
                and option.sorceress == roll.sorceress):
            return option
    if roll.stop:
        return chosen_option(advice, "stop")  # raises with the rule
    assert roll.keep is not None
    if not roll.keep <= advice.dice:
        return chosen_option(advice, f"keep {roll.keep}")  # raises: not showing
    rerolled = advice.dice.without_skulls() - roll.keep
    text = f"reroll {rerolled}{'k' if roll.sorceress else ''}"
    if not rerolled.total and not roll.sorceress:
        text = f"keep {roll.keep}"
    option = chosen_option(advice, text)
    if option.keep != roll.keep or option.sorceress != roll.sorceress:
        raise RecordError("not a legal move here", kind="illegal_move")
    return option


class _Chain:
    """The events of one turn, each from the last one's values (the mover's frame in, seat
    order out)."""

    def __init__(self, before: tuple[float, ...], mover: int) -> None:
        self.current = before
        self.mover = mover
        self.events: list[Event] = []

    def seat_order(self, frame: tuple[float, ...]) -> tuple[float, ...]:
        n = len(frame)
        out = [0.0] * n
        for k, value in enumerate(frame):
            out[(self.mover + k) % n] = float(value)
        return tuple(out)

    def add(self, kind: str, frame: tuple[float, ...], **detail: Any) -> None:
        self.add_seats(kind, self.seat_order(frame), **detail)

    def add_seats(self, kind: str, after: tuple[float, ...], **detail: Any) -> None:
        """An event whose values are given in seat order."""
        change = tuple(a - b for a, b in zip(after, self.current, strict=True))
        self.events.append(Event(kind, after, change, **detail))
        self.current = after


def _values(option: Option) -> tuple[float, ...]:
    """Every seat's value after `option` (the mover's frame)."""
    return option.players if option.players else (option.value,)


def _replay(number: int, turn: Turn, rules: Rules, solved: GoalSolution, chain: _Chain,
            unit: str) -> None:
    """The events of a turn with its rolls (module docstring), checked by the turn helper."""
    card = turn.card
    assert card is not None
    objectives = (solved.objective, *(o for o, _ in solved.seats))
    play = TurnPlay(card, rules, solved)
    island = False
    for k, roll in enumerate(turn.rolls):
        where = f"turn {number}, roll {k + 1}"
        if play.phase is Phase.OVER:
            raise RecordError(f"{where}: the turn is over after roll {k} (its "
                              f"{play.graded().outcome}): no roll follows",
                              kind="record_roll", values={"where": where})
        try:
            dice = play.enter_roll(roll.dice)
        except SabordsError as exc:
            raise _at(where, exc) from None
        advice = play.advice
        assert advice is not None
        graded = play.graded()
        if play.phase is Phase.MOVE:
            frame = _values(advice.options[0])
        elif play.phase is Phase.ISLAND:
            frame = _island(objectives, card, rules, dice.skulls)
        elif graded.outcome == "island":
            frame = _ending(objectives, deduction=graded.deduction)
        else:
            frame = _ending(objectives, points=graded.points)
        chain.add("island" if island else "roll", frame, roll=k + 1, dice=dice)
        island = island or graded.outcome == "island"
        if roll.decided:
            if play.phase is not Phase.MOVE:
                what = ("Skull Island" if island else f"a {graded.outcome}")
                raise RecordError(f"{where}: the dice end the turn ({what}): no decision "
                                  f"follows them", kind="record_roll", values={"where": where})
            try:
                option = _option(advice, roll)
                play.choose(option)
            except SabordsError as exc:
                raise _at(where, exc) from None
            decision = Decision(play.roll, advice, option)
            chain.add("decision", _values(option), roll=play.roll, dice=dice,
                      decision=decision, grade=grade(decision.cost, unit, option.best))
        elif play.phase is Phase.MOVE:
            raise RecordError(f"{where}: a decision follows these dice: stop (\"stop\": true) "
                              f"or the dice kept (\"keep\")", kind="record_roll",
                              values={"where": where})
    _ended(number, turn, card, play, objectives, chain)


def _ended(number: int, turn: Turn, card: Card, play: TurnPlay,
           objectives: tuple[Objective, ...], chain: _Chain) -> None:
    """The end of a replayed turn: its points must be the record's; Skull Island's rolls
    left out end on the record's deduction."""
    where = f"turn {number}"
    graded = play.graded()
    if play.phase is Phase.ROLL:
        raise RecordError(f"{where}: the dice of the reroll after roll {play.roll} are "
                          f"missing", kind="record_roll", values={"where": where})
    if play.phase is Phase.ISLAND:  # the island's later rolls left out: its deduction
        from ..rules.scoring import island_distribution

        dice = play.dice
        assert dice is not None
        if turn.deduction is None:
            raise RecordError(f"{where}: Skull Island ends the turn with a deduction "
                              f"(\"deduction\"), not points", kind="record_outcome",
                              values={"where": where})
        skulls, rest = divmod(turn.deduction, card.island_cost)
        reachable = island_distribution(card, dice.skulls)
        if rest or skulls not in reachable:
            possible = ", ".join(str(card.island_cost * s) for s in sorted(reachable))
            raise RecordError(f"{where}: Skull Island with {dice.skulls} skull dice cannot "
                              f"deduct {turn.deduction} (it deducts {possible})",
                              kind="record_outcome", values={"where": where})
        chain.add("island", _ending(objectives, deduction=turn.deduction),
                  roll=play.roll, dice=None)
        return
    if graded.outcome == "island":
        if turn.deduction != graded.deduction:
            raise RecordError(f"{where}: Skull Island deducts {graded.deduction}, the record "
                              f"says {_said(turn)}", kind="record_outcome",
                              values={"where": where})
        return
    magic = graded.outcome == "magic"
    if turn.points != graded.points or turn.magic != magic:
        scored = f"{graded.points} points" + (" (pirate magic)" if magic else "")
        raise RecordError(f"{where}: the dice score {scored}, the record says {_said(turn)}",
                          kind="record_outcome", values={"where": where})


def _said(turn: Turn) -> str:
    if turn.deduction is not None:
        return f"a deduction of {turn.deduction}"
    return f"{turn.points} points" + (" (pirate magic)" if turn.magic else "")


# -- the review ---------------------------------------------------------------------------------


def review_game(record: GameRecord, source: SolutionSource) -> GameReview:
    """The review of `record` (module docstring), its values from `source` (the game of its
    players under its rules; a one-player record's turn tables)."""
    from contextlib import nullcontext

    from ..engine import kernel

    # A review is many small solves. Of two and three players (exact tables) numpy's are as
    # fast (1.31 s for 30 turns of three, numba 1.35 s), and numba's first start on a machine
    # compiles for seconds (8 s): the default rule. Of four and five the estimate's own solves
    # gain from numba (a whole game of five: 2.2 s, 3.3 s without).
    many = len(record.players) > 3
    with kernel.compiled_whenever_installed() if many else nullcontext():
        return _review(record, source)


@dataclass(frozen=True)
class _Plan:
    """What a review reads, per turn: the goal, the card's turn solved for it, and each
    seat's objective of the turn's endings."""

    objective: Aim
    game: Game | None
    goals: list[Goal]
    solved: list[GoalSolution | None]
    objectives: list[tuple[Objective, ...]]
    start: tuple[float, ...]
    expected: float | None
    """One player: a turn's expected value (each turn starts there); None for a game."""


def _solo_plan(record: GameRecord, source: SolutionSource) -> _Plan:
    """One player: each card's turn for points or the need, from the deck's expected value."""
    from .goals import objective_for

    goal = Goal(need=record.need)
    cards = {*deck_weights(), *(t.card.id for t in record.turns if t.card is not None)}
    solutions = {c: source.goal(CARDS[c], record.rules, goal) for c in sorted(cards)}
    expected = sum(w * float(solutions[c].solution.turn_value[0])
                   for c, w in deck_weights().items())
    turns = record.turns
    return _Plan(NEED if record.need is not None else POINTS, None, [goal] * len(turns),
                 [None if t.card is None else solutions[t.card.id] for t in turns],
                 [(objective_for(record.need),)] * len(turns), (expected * len(turns),),
                 expected)


def _game_plan(record: GameRecord, source: SolutionSource) -> _Plan:
    """A game: each turn solved for the mover's chance of winning, in one batch."""
    from .goals import solve_goals

    rules, n = record.rules, len(record.players)
    game = source.game(rules, n)
    goals = []
    for i, board in enumerate(record.boards()[:-1]):
        standing = board.standing()
        if standing is None:  # a scoreboard of no state: the record's check refuses it first
            raise RecordError(f"turn {i + 1}: these totals are no state of the game",
                              kind="record_state", values={"where": f"turn {i + 1}"})
        goals.append(Goal(standing=standing))
    batch = iter(solve_goals(rules, game, [(t.card, g) for t, g in zip(record.turns, goals,
                                                                        strict=True)
                                            if t.card is not None]))
    solved = [None if t.card is None else next(batch) for t in record.turns]
    objectives = [game.objectives(g.standing) if s is None else _objectives(s)  # type: ignore[arg-type]
                  for g, s in zip(goals, solved, strict=True)]
    first = Scoreboard(rules, record.totals, record.mover).standing()
    start = (tuple(0.0 for _ in range(n)) if first is None
             else _seat_order(game.seat_values(first), record.mover))
    return _Plan(WIN, game, goals, solved, objectives, start, None)


def _review(record: GameRecord, source: SolutionSource) -> GameReview:
    plan = _solo_plan(record, source) if record.solo else _game_plan(record, source)
    unit = "points" if plan.objective == POINTS else "probability"
    boards = record.boards()
    turns = []
    current = plan.start
    for i, turn in enumerate(record.turns):
        before = current if plan.expected is None else (plan.expected,)
        chain = _Chain(before, turn.player)
        solution = plan.solved[i]
        if solution is not None:
            chain.add("card", (float(solution.solution.turn_value[0]),
                               *(float(s.turn_value[0]) for _, s in solution.seats)))
        if turn.rolls:
            assert solution is not None
            _replay(i + 1, turn, record.rules, solution, chain, unit)
        else:
            chain.add("turn", _ending(plan.objectives[i], points=turn.points,
                                      deduction=turn.deduction, magic=turn.magic))
        _step(plan.game, boards[i + 1], chain)
        review = TurnReview(i + 1, turn, boards[i], plan.goals[i], before, tuple(chain.events))
        turns.append(review)
        current = review.after
    n = len(record.players)
    last = boards[-1]
    over = not record.solo and last.over
    winners = tuple(last.winners) if over else ()
    end: tuple[float, ...] = current
    if record.solo:
        end = (sum(t.after[0] for t in turns),)
    elif over:
        end = tuple(1.0 / len(winners) if seat in winners else 0.0 for seat in range(n))
    players = tuple(_player(record, seat, plan.start[seat], end[seat], turns)
                    for seat in range(n))
    result = GameReview(record, plan.objective, plan.game, plan.start, tuple(turns), players,
                        over, winners)
    if result.gap > IDENTITY_TOLERANCE:
        raise IdentityError(f"the changes of a player's chance add up {result.gap:.3g} away "
                            f"from the result (tolerance {IDENTITY_TOLERANCE})")
    return result


def _step(game: Game | None, board: Scoreboard, chain: _Chain) -> None:
    """A near-optimal game's estimate step after a turn (module docstring): to the chances of
    the state it leads to, one turn ahead (none at the game's end, nor with an exact table)."""
    standing = board.standing()
    if game is None or game.exact or standing is None:
        return
    chain.add_seats("estimate", _seat_order(game.seat_values(standing), board.mover))


def _seat_order(frame: tuple[float, ...], mover: int) -> tuple[float, ...]:
    n = len(frame)
    out = [0.0] * n
    for k, value in enumerate(frame):
        out[(mover + k) % n] = float(value)
    return tuple(out)


def _objectives(solved: GoalSolution) -> tuple[Objective, ...]:
    return (solved.objective, *(o for o, _ in solved.seats))


def _player(record: GameRecord, seat: int, start: float, end: float,
            turns: list[TurnReview]) -> PlayerReview:
    luck = luck_own = play_own = play_others = alone = estimate = error = 0.0
    decisions = 0
    grades = dict.fromkeys(GRADES, 0)
    for t in turns:
        own = t.player == seat
        for e in t.events:
            change = e.change[seat]
            if e.kind in LUCK:
                luck += change
                luck_own += change if own else 0.0
            elif e.kind == "turn":
                alone += change
            elif e.kind == "estimate":
                estimate += change
            elif own:
                play_own += change
                error += e.error
                decisions += 1
                grades[e.grade or "best"] += 1
            else:
                play_others += change
    return PlayerReview(seat, record.players[seat].name, start, end, luck, luck_own, play_own,
                        play_others, alone, estimate, error, decisions, grades)


__all__ = ["GRADES", "IDENTITY_TOLERANCE", "LUCK", "THRESHOLDS", "Event", "GameReview",
           "IdentityError", "PlayerReview", "TurnReview", "grade", "review_game"]
