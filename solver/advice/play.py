"""A turn at the table, entry by entry, and the player's decisions graded.

:class:`TurnPlay` is a small state machine over what a player enters during a turn: the dice of
each roll and each move. It checks every entry against the rules (the dice that stayed on the
table are still showing, the move is legal: :func:`solver.advice.choices.chosen_option` names the
one rule an illegal move breaks), advises each position for the turn's
:class:`~solver.advice.advisor.Goal` (:func:`solver.advice.advisor.advise`), follows Skull
Island roll by roll to its deduction, can undo its last entry, and at the end grades the turn
(:class:`GradedTurn`): each decision the player made, the best one, and what the player's cost.

**Phases** (:class:`Phase`): ``roll`` (the dice of the next roll are expected: all 8 on the first
roll; after a reroll the rolled dice alone, or all 8), ``move`` (a stop or a reroll is expected),
``island`` (Skull Island: the next roll of its non-skull dice) and ``over``.

**Grading.** A decision's *cost* is its regret: the value of the best option minus the value of
the option chosen, both under optimal play afterwards, in the goal's unit (expected points, the
probability of at least `need` points, or the probability of winning the game). Options within
:data:`~solver.advice.advisor.BEST_TOLERANCE` of the best are best moves and cost 0. The turn's
cost is the sum over its decisions: the expected value given away, decision by decision, on the
path the turn took.

Used by `sabords turn` (:mod:`solver.cli.turn`) and the web page; it prints nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from ..errors import IllegalMoveError, quote
from ..rules.aims import POINTS, WIN
from ..rules.dice import DEFAULT_LETTERS, EMPTY, Dice, DiceNotationError, Letters
from ..rules.moves import Reroll
from ..rules.record import Roll
from ..rules.rulebook import NUM_DICE, Card, Rules
from ..rules.scoring import Outcome, island_continues, island_deduction, skulls_of, stop_score
from .advisor import Advice, Option, Position, advise
from .choices import chosen_option, next_roll, option_stays
from .goals import Goal, GoalSolution
from .sources import Tables

if TYPE_CHECKING:
    from .sources import SolutionSource


class Phase(str, Enum):
    """What the turn waits for."""

    ROLL = "roll"
    MOVE = "move"
    ISLAND = "island"
    OVER = "over"


@dataclass(frozen=True)
class Decision:
    """A move the player made, with the position's advice."""

    roll: int
    """The roll it followed (1: the first roll)."""
    advice: Advice
    chosen: Option

    @property
    def best(self) -> Option:
        """The recommended option (the first of the best ones)."""
        return self.advice.options[0]

    @property
    def best_move(self) -> bool:
        """The move chosen is one of the best (within the solver's tolerance)."""
        return self.chosen.best

    @property
    def cost(self) -> float:
        """The best value minus the chosen one (0 for a best move)."""
        return 0.0 if self.chosen.best else max(0.0, self.advice.value - self.chosen.value)

    def as_dict(self) -> dict[str, Any]:
        return {
            "roll": self.roll,
            "dice": str(self.advice.dice),
            "sorceress_used": self.advice.sorceress_used,
            "chosen": self.chosen.as_dict(),
            "best": self.best.as_dict(),
            "best_move": self.best_move,
            "cost": self.cost,
        }


@dataclass(frozen=True)
class GradedTurn:
    """The turn as played: its decisions with their costs, and how it ended."""

    card: Card
    rules: Rules
    goal: Goal
    decisions: tuple[Decision, ...]
    outcome: str
    """``stop``, ``magic`` (a stop with pirate magic), ``bust``, ``island``, or ``unfinished``."""
    points: int | None
    """The turn's points for the player (an island: 0; unfinished: None)."""
    start_value: float | None
    """The value of the first roll's position under optimal play (None before it)."""
    island_skulls: int | None = None
    """Skull Island: the final skull count (dice and card)."""
    deduction: int | None = None
    """Skull Island: the points each opponent loses."""

    @property
    def total_cost(self) -> float:
        return sum(d.cost for d in self.decisions)

    @property
    def unit(self) -> str:
        """``points`` (expected points) or ``probability`` (of the need, or of winning)."""
        return "points" if self.goal.name == POINTS else "probability"

    def as_dict(self) -> dict[str, Any]:
        return {
            "card": self.card.id,
            **self.goal.as_dict(),
            "rules_hash": self.rules.hash,
            "unit": self.unit,
            "start_value": self.start_value,
            "decisions": [d.as_dict() for d in self.decisions],
            "total_cost": self.total_cost,
            "outcome": self.outcome,
            "points": self.points,
            "island_skulls": self.island_skulls,
            "deduction": self.deduction,
        }


@dataclass(frozen=True)
class _Roll:
    dice: Dice


@dataclass(frozen=True)
class _Move:
    option: Option


@dataclass
class _State:
    phase: Phase = Phase.ROLL
    roll: int = 0
    dice: Dice | None = None
    advice: Advice | None = None
    pending: Option | None = None
    """The reroll whose dice are awaited."""
    sorceress_used: bool = False
    chest: Dice | None = None
    decisions: list[Decision] = field(default_factory=list)
    outcome: str = "unfinished"
    points: int | None = None
    start_value: float | None = None
    island_skulls: int | None = None


class TurnPlay:
    """One turn at the table (module docstring): :meth:`enter_roll`, :meth:`choose`,
    :meth:`undo`, :meth:`graded`. Entries are read in `letters` (the player's notation)."""

    def __init__(self, card: Card, rules: Rules, solved: GoalSolution, *,
                 letters: Letters = DEFAULT_LETTERS) -> None:
        self.card = card
        self.rules = rules
        self.solved = solved
        self.letters = letters
        self._entries: list[_Roll | _Move] = []
        self._state = _State()

    @classmethod
    def new(cls, card: Card, rules: Rules, goal: Goal | None = None, *,
            solutions: SolutionSource | None = None,
            letters: Letters = DEFAULT_LETTERS) -> TurnPlay:
        """A new turn of `card` played for `goal` (expected points by default), its solution
        from `solutions` (default: the committed tables, or the cache, :class:`Tables`)."""
        goal = goal if goal is not None else Goal()
        source = solutions if solutions is not None else Tables()
        return cls(card, rules, source.goal(card, rules, goal), letters=letters)

    # -- what the turn shows ---------------------------------------------------------------

    @property
    def goal(self) -> Goal:
        return self.solved.goal

    @property
    def phase(self) -> Phase:
        return self._state.phase

    @property
    def roll(self) -> int:
        """The number of the last roll entered (0 before the first)."""
        return self._state.roll

    @property
    def dice(self) -> Dice | None:
        """The 8 dice showing (None before the first roll)."""
        return self._state.dice

    @property
    def advice(self) -> Advice | None:
        """The advice of the position showing (None before the first roll and on the island)."""
        return self._state.advice

    @property
    def pending(self) -> Option | None:
        """The reroll whose dice are awaited (phase ``roll`` after the first roll)."""
        return self._state.pending if self._state.phase is Phase.ROLL else None

    @property
    def sorceress_used(self) -> bool:
        return self._state.sorceress_used

    @property
    def entries(self) -> int:
        """How many entries (rolls and moves) the turn has."""
        return len(self._entries)

    def stays(self) -> Dice:
        """The dice that stay on the table during the awaited roll (none before the first)."""
        s = self._state
        if s.phase is Phase.ISLAND and s.dice is not None:  # every die but the skulls rolls
            return Reroll(EMPTY).kept_after(s.dice)
        if s.phase is Phase.ROLL and s.pending is not None and s.advice is not None:
            return option_stays(s.advice, s.pending)
        return EMPTY

    def rolled(self) -> int:
        """How many dice the awaited roll rolls."""
        return NUM_DICE - self.stays().total

    # -- entries ---------------------------------------------------------------------------

    def enter_roll(self, text: str | Dice) -> Dice:
        """Enter the dice of the awaited roll: only the rolled dice, or all 8 (a `Dice` or
        text in the player's letters). Returns the 8 dice showing. Raises a notation error or
        :class:`~solver.errors.IllegalMoveError` (the dice that stayed are not showing)."""
        s = self._state
        if s.phase not in (Phase.ROLL, Phase.ISLAND):
            raise IllegalMoveError(
                "the dice of a roll are not expected now: " + (
                    "the turn is over" if s.phase is Phase.OVER else "choose a move first"),
                subject="roll")
        dice = self._read_roll(text)
        self._apply(_Roll(dice))
        self._entries.append(_Roll(dice))
        return dice

    def choose(self, text: str | Option) -> Option:
        """Enter the move made: an option of the advice, or text ('' as advised, 'stop', the
        dice kept, 'reroll ...'). Raises :class:`~solver.errors.IllegalMoveError` naming the
        one rule an illegal move breaks."""
        s = self._state
        if s.phase is not Phase.MOVE or s.advice is None:
            raise IllegalMoveError(
                "no move is expected now: " + ("the turn is over" if s.phase is Phase.OVER
                                               else "enter the dice of the roll"),
                subject="move")
        if isinstance(text, Option):
            if text not in s.advice.options:
                raise IllegalMoveError("that option is not one of this position's",
                                       subject="move")
            option = text
        else:
            option = chosen_option(s.advice, text, self.letters)
        self._apply(_Move(option))
        self._entries.append(_Move(option))
        return option

    def undo(self) -> str | None:
        """Take back the last entry; returns what it was ('roll' or 'move'), None if there is
        nothing to take back."""
        if not self._entries:
            return None
        last = self._entries.pop()
        self._state = _State()
        for entry in self._entries:
            self._apply(entry)
        return "roll" if isinstance(last, _Roll) else "move"

    def graded(self) -> GradedTurn:
        """The turn so far (or over), graded (module docstring)."""
        s = self._state
        deduction = None
        if s.island_skulls is not None and s.phase is Phase.OVER:
            deduction = island_deduction(self.card, s.island_skulls)
        return GradedTurn(card=self.card, rules=self.rules, goal=self.goal,
                          decisions=tuple(s.decisions), outcome=s.outcome, points=s.points,
                          start_value=s.start_value, island_skulls=s.island_skulls,
                          deduction=deduction)

    def rolls(self) -> tuple[Roll, ...]:
        """The turn's rolls so far as a game record writes them
        (:class:`solver.rules.record.Roll`: the 8 dice showing after each, Skull Island's
        rolls too, and the decision that followed)."""
        out: list[Roll] = []
        for entry in self._entries:
            if isinstance(entry, _Roll):
                out.append(Roll(entry.dice))
                continue
            option, last = entry.option, out[-1]
            out[-1] = (Roll(last.dice, stop=True) if option.action == "stop"
                       else Roll(last.dice, keep=option.keep, sorceress=option.sorceress))
        return tuple(out)

    def as_dict(self, sentence: Callable[[Advice], str]) -> dict[str, Any]:
        """The turn's state for a script or a web page: the phase, what is expected, the
        advice showing (with the front end's `sentence` of it), the graded turn, and the
        rolls as a game record writes them (``rolls``)."""
        s = self._state
        expected: list[int] = []
        rolled = None
        if s.phase in (Phase.ROLL, Phase.ISLAND):
            rolled = self.rolled()
            expected = sorted({rolled, NUM_DICE})
        return {
            "card": self.card.id,
            **self.goal.as_dict(),
            **({"game": self.solved.game_dict()} if self.goal.name == WIN else {}),
            "rules_hash": self.rules.hash,
            "phase": s.phase.value,
            "roll": s.roll,
            "dice": None if s.dice is None else str(s.dice),
            "stays": str(self.stays()),
            "rolled": rolled,
            "dice_expected": expected,
            "sorceress_used": s.sorceress_used,
            "chest": None if s.chest is None else str(s.chest),
            "advice": None if s.advice is None or s.phase is Phase.ISLAND
            else s.advice.as_dict(sentence, self.letters),
            "graded": self.graded().as_dict(),
            "rolls": [roll.as_dict() for roll in self.rolls()],
        }

    # -- the machine -------------------------------------------------------------------------

    def _read_roll(self, text: str | Dice) -> Dice:
        s = self._state
        if s.phase is Phase.ROLL and s.pending is not None and s.advice is not None:
            if isinstance(text, Dice):
                text = text.show(self.letters)
            return next_roll(s.advice, s.pending, text, self.letters)
        if isinstance(text, Dice):
            dice = text
        else:
            dice = Dice.parse(text, NUM_DICE if s.phase is Phase.ROLL else None, self.letters)
        stays = self.stays()
        if s.phase is Phase.ISLAND and dice.total == self.rolled():
            return stays + dice
        if dice.total != NUM_DICE:
            shown = quote(text if isinstance(text, str) else dice.listed(self.letters))
            expected = (f"the {self.rolled()} dice rolled on the island or all {NUM_DICE}"
                        if s.phase is Phase.ISLAND else f"{NUM_DICE}")
            raise DiceNotationError(
                f"{shown} has {dice.total} dice, expected {expected}",
                kind="roll_count" if s.phase is Phase.ISLAND else "dice_count",
                values={"dice": text if isinstance(text, str) else dice.show(self.letters),
                        "count": dice.total, **({"rolled": self.rolled(), "all": NUM_DICE}
                                                if s.phase is Phase.ISLAND
                                                else {"expected": NUM_DICE})})
        if not stays <= dice:
            raise IllegalMoveError(
                f"{quote(dice.listed(self.letters))} does not show the {stays.total} skull dice "
                "of the island (skull dice stay on the table)", subject="roll",
                kind="stays_missing", values={"dice": dice.show(self.letters),
                                              "stays": stays.show(self.letters)})
        return dice

    def _apply(self, entry: _Roll | _Move) -> None:
        s = self._state
        if isinstance(entry, _Move):
            assert s.advice is not None
            option = entry.option
            s.decisions.append(Decision(s.roll, s.advice, option))
            if option.action == "stop":
                s.phase = Phase.OVER
                stop = stop_score(self.card, s.advice.dice, self.rules)
                s.outcome, s.points = ("magic" if stop.magic else "stop"), stop.points
                return
            s.pending = option
            s.sorceress_used = s.sorceress_used or option.sorceress
            if self.card.chest:
                s.chest = option.keep
            s.phase = Phase.ROLL
            return
        dice = entry.dice
        if s.phase is Phase.ISLAND:
            assert s.dice is not None and s.island_skulls is not None
            added = dice.skulls - s.dice.skulls
            s.dice = dice
            s.island_skulls = skulls_of(self.card, dice)
            if not island_continues(NUM_DICE - dice.skulls, added):
                s.phase = Phase.OVER
            return
        s.roll += 1
        s.dice = dice
        first = s.roll == 1
        advice = advise(Position(self.card, dice, self.rules, sorceress_used=s.sorceress_used,
                                 chest=None if first else s.chest, first=first), self.solved)
        s.advice = advice
        if first:
            s.start_value = advice.value
        if advice.kind is Outcome.BUST:
            s.phase, s.outcome, s.points = Phase.OVER, "bust", advice.points
        elif advice.kind is Outcome.ISLAND:
            s.outcome, s.points = "island", 0
            s.island_skulls = skulls_of(self.card, dice)
            s.phase = Phase.ISLAND if island_continues(NUM_DICE - dice.skulls) else Phase.OVER
        else:
            s.phase = Phase.MOVE


def new_turn(card: Card, rules: Rules, goal: Goal | None = None, *,
             solutions: SolutionSource | None = None,
             letters: Letters = DEFAULT_LETTERS) -> TurnPlay:
    """:meth:`TurnPlay.new`: a new turn of `card` for `goal`."""
    return TurnPlay.new(card, rules, goal, solutions=solutions, letters=letters)


__all__ = ["Decision", "GradedTurn", "Phase", "TurnPlay", "new_turn"]
