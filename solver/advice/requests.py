"""What a player asks, as values: one request type a question, built once from the inputs and
checked once, whichever front end read them.

The command line and the web read the same inputs (:mod:`.inputs`: one definition each, by
name) and hand them over by name; :meth:`AdviceRequest.read` and its siblings read them in the
game's terms, in one order (the rules, the notation, the card, the dice, the goal), so that a
bad question gives the same first error on both front ends, and build a frozen request that the
answers (:mod:`.answers`) and the turn helper (:mod:`.play`) take whole. A request is checked
when made: the goal against the rules once (a win's standing,
:class:`solver.rules.standing.Standing`), never again on the way to the answer.

An input not given is None (a flag False, a repeated input empty); a repeated text input may
be given as its words (the command line's ``sabords advise captain kk mm pp sc``), joined with
spaces; ``notation`` is a notation's name, or the :class:`~solver.rules.notation.Notation`
itself (the command line resolves ``$SABORDS_NOTATION`` its own way).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..rules.aims import WIN
from .goals import AdviceError, Goal, goal_of

if TYPE_CHECKING:
    from ..rules.dice import Dice
    from ..rules.notation import Notation
    from ..rules.rulebook import Card, Rules
    from ..rules.standing import Standing

Given = Mapping[str, Any]
"""The inputs of a question, by their names (:mod:`.inputs`)."""


def read_rules(given: Given) -> Rules:
    """The rules of the `variant` inputs (the defaults without any)."""
    from ..rules.rulebook import rules_with

    return rules_with(list(given.get("variant") or []))


def read_notation(given: Given) -> Notation:
    """The notation of the `notation` input (the default without it)."""
    from ..rules.notation import Notation, get_notation

    named = given.get("notation")
    return named if isinstance(named, Notation) else get_notation(named or "default")


def _text(value: str | Sequence[str]) -> str:
    return value if isinstance(value, str) else " ".join(value)


def read_goal(given: Given, rules: Rules) -> Goal:
    """The goal of the `need`, `me`, `opp` (repeated), `final`, `trigger` and `sudden`
    inputs, checked against `rules` (:func:`.goals.goal_of`)."""
    return goal_of(rules, given.get("need"), given.get("me"), tuple(given.get("opp") or ()),
                   final=bool(given.get("final")), trigger=given.get("trigger"),
                   sudden=bool(given.get("sudden")))


@dataclass(frozen=True)
class AdviceRequest:
    """`sabords advise`, `/api/advise`: every option of a position, for a goal."""

    rules: Rules
    notation: Notation
    card: Card
    dice: Dice
    goal: Goal
    sorceress_used: bool = False
    chest: Dice | None = None
    first: bool = False
    exact: bool = False
    """Also the exact values (expected points and a need only)."""

    def __post_init__(self) -> None:
        if self.exact and self.goal.name == WIN:
            raise AdviceError("exact values are for expected points and a need; the chances "
                              "of winning come from the game table's floats", subject="exact",
                              kind="exact_win")

    @classmethod
    def read(cls, given: Given) -> AdviceRequest:
        rules = read_rules(given)
        notation = read_notation(given)
        card = notation.parse_card(given["card"])
        dice = notation.parse_dice(_text(given["dice"]))
        chest = given.get("chest")
        return cls(rules, notation, card, dice, read_goal(given, rules),
                   sorceress_used=bool(given.get("sorceress_used")),
                   chest=_chest(notation, chest),
                   first=bool(given.get("first")), exact=bool(given.get("exact")))


def _chest(notation: Notation, text: Any) -> Dice | None:
    """The dice on the chest, or None; an error of them is the chest's (`--chest: ...`), not
    the roll's."""
    from ..rules.dice import DiceNotationError

    if text is None:
        return None
    try:
        return notation.parse_dice(text, n=None)
    except DiceNotationError as exc:
        raise DiceNotationError(exc.message, subject="chest", kind=exc.kind,
                                values=exc.values) from None


@dataclass(frozen=True)
class ScoreRequest:
    """`sabords score`, `/api/score`: what a turn's last dice are worth."""

    rules: Rules
    notation: Notation
    card: Card
    dice: Dice
    chest: Dice | None = None
    first: bool = False

    @classmethod
    def read(cls, given: Given) -> ScoreRequest:
        rules = read_rules(given)
        notation = read_notation(given)
        card = notation.parse_card(given["card"])
        dice = notation.parse_dice(_text(given["dice"]))
        chest = given.get("chest")
        return cls(rules, notation, card, dice,
                   chest=_chest(notation, chest),
                   first=bool(given.get("first")))


@dataclass(frozen=True)
class EvRequest:
    """`sabords ev`, `/api/ev`: each card's expected points (all twelve without `cards`)."""

    rules: Rules
    notation: Notation
    cards: tuple[Card, ...] = ()
    """The cards asked about, in the order asked, each once (none: all twelve)."""
    exact: bool = False

    @classmethod
    def read(cls, given: Given) -> EvRequest:
        rules = read_rules(given)
        notation = read_notation(given)
        cards = tuple(dict.fromkeys(notation.parse_card(c) for c in given.get("card") or ()))
        return cls(rules, notation, cards, exact=bool(given.get("exact")))


@dataclass(frozen=True)
class WinRequest:
    """`sabords winprob`, `/api/winprob`: every player's chance of winning from a standing."""

    rules: Rules
    notation: Notation
    standing: Standing

    @classmethod
    def read(cls, given: Given) -> WinRequest:
        rules = read_rules(given)
        notation = read_notation(given)
        goal = read_goal({**given, "need": None}, rules)
        if goal.standing is None:
            raise AdviceError("playing to win needs both totals, yours and the opponent's (a "
                              "final turn too)", subject="totals", kind="both_totals")
        return cls(rules, notation, goal.standing)


@dataclass(frozen=True)
class TurnRequest:
    """`sabords turn`, `/api/turn`: a whole turn of a card, played for a goal."""

    rules: Rules
    notation: Notation
    card: Card
    goal: Goal

    @classmethod
    def read(cls, given: Given) -> TurnRequest:
        rules = read_rules(given)
        notation = read_notation(given)
        card = notation.parse_card(given["card"])
        return cls(rules, notation, card, read_goal(given, rules))


__all__ = ["AdviceRequest", "EvRequest", "Given", "ScoreRequest", "TurnRequest", "WinRequest",
           "read_goal", "read_notation", "read_rules"]
