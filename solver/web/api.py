"""The JSON API: each endpoint is a command's `--json` answer, from the same library calls.

=================  =========================  =============================================
endpoint           the command                the library
=================  =========================  =============================================
``/api/advise``    `sabords advise --json`    :func:`solver.answers.advice_answer`
``/api/score``     `sabords score --json`     :func:`solver.verdict.score_turn`
``/api/ev``        `sabords ev --json`        :func:`solver.answers.ev_answer`
``/api/winprob``   `sabords winprob --json`   :func:`solver.answers.win_answer`
``/api/turn``      `sabords turn --json`      :class:`solver.play.TurnPlay`, replayed
``/api/rules``     (the rules and their hash) :func:`solver.rules.rules_with`
``/api/meta``      (what the page needs)      cards, faces, letters, variants
=================  =========================  =============================================

A handler reads its query (:mod:`solver.web.params`), reads the values in the game's terms the
way the command does (the rules, the notation, the card, the dice, the goal, in the command's
order, so the first error is the command's), asks the server's solutions
(:class:`solver.web.solutions.Solutions`) and the library, and answers the library's
dictionary as JSON. `/api/turn` is stateless: the query carries the turn's entries so far
(``entry``, repeated: the dice of each roll and each move, as `sabords turn` reads them), the
server replays them through :class:`~solver.play.TurnPlay` and answers its state, the last line
`sabords turn --json` prints; undoing is dropping the last entry.

Errors: a query that cannot be read is 400, an input the library refuses
(:class:`~solver.errors.SabordsError`) 422, both ``{"error": "<the command line's line>"}``
(:func:`solver.cli.app.error_line`; `/api/turn` adds ``"entry"``, the index of the entry
refused); a table of the server's that is missing or stale is 503.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import SabordsError, StaleTableError
from .params import FLAG, INT, LIST, BadRequest, Endpoint, Limits, Param, read_query

if TYPE_CHECKING:
    from ..advisor import Goal
    from ..dice import Dice
    from ..notation import Notation
    from ..rules import Card, Rules
    from .solutions import Solutions

VARIANT = Param("variant", LIST)
NOTATION = Param("notation")
GOAL = (Param("need", INT), Param("me", INT), Param("opp", INT), Param("final", FLAG))

ADVISE = Endpoint("/api/advise", "advise", "Every legal option from the dice showing, best first", (
    Param("card", required=True), Param("dice", required=True),
    Param("sorceress_used", FLAG), Param("first", FLAG), Param("chest"), *GOAL,
    Param("top", INT), VARIANT, NOTATION))
SCORE = Endpoint("/api/score", "score", "What a turn's last dice are worth", (
    Param("card", required=True), Param("dice", required=True), Param("chest"),
    Param("first", FLAG), VARIANT, NOTATION))
EV = Endpoint("/api/ev", "ev", "Optimal expected points of a turn per card", (
    Param("card", LIST), VARIANT, Param("exact", FLAG), NOTATION))
WINPROB = Endpoint("/api/winprob", "winprob", "Your probability of winning the game", (
    Param("me", INT, required=True), Param("opp", INT, required=True), Param("final", FLAG),
    VARIANT))
TURN = Endpoint("/api/turn", "turn", "A whole turn, replayed entry by entry, and its grading", (
    Param("card", required=True), *GOAL, VARIANT, NOTATION,
    Param("entry", LIST, cli=None, help=(
        "The turn's entries so far, in order (repeated): the dice of each roll (all 8 on the "
        "first roll; after a reroll the rolled dice alone, or all 8) and each move (stop, "
        "keep DICE, reroll DICE with a skull for the Sorceress, or empty: as advised)."))))
RULES = Endpoint("/api/rules", "score", "The rules of the variants given, and their hash",
                 (VARIANT,))

ENDPOINTS = (ADVISE, SCORE, EV, WINPROB, TURN, RULES)


class EntryError(Exception):
    """An entry of a turn that the turn refuses (422, with the entry's index)."""

    def __init__(self, index: int, error: SabordsError) -> None:
        super().__init__(str(error))
        self.index = index
        self.error = error


def dumps(data: Any) -> bytes:
    """Compact JSON (the command line prints the same object with an indent)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def error_body(exc: Exception) -> tuple[int, dict[str, Any]]:
    """The status and the body of an error answer (module docstring)."""
    from ..cli.app import error_line

    if isinstance(exc, BadRequest):
        return exc.status, {"error": exc.message}
    if isinstance(exc, EntryError):
        return 422, {"error": error_line(exc.error), "entry": exc.index}
    if isinstance(exc, StaleTableError):
        return 503, {"error": error_line(exc)}
    if isinstance(exc, SabordsError):
        return 422, {"error": error_line(exc)}
    raise exc


# -- reading the game's values, as the commands do ---------------------------------------------


def _rules(q: dict[str, Any]) -> Rules:
    from ..rules import rules_with

    return rules_with(q["variant"])


def _notation(q: dict[str, Any]) -> Notation:
    from ..notation import get_notation

    return get_notation(q["notation"] or "default")


def _goal(q: dict[str, Any], rules: Rules) -> Goal:
    from ..advisor import Goal

    goal = Goal(need=q["need"], me=q["me"], opp=q["opp"], final=q["final"])
    goal.check(rules)
    return goal


def _position(q: dict[str, Any]) -> tuple[Card, Dice, Dice | None]:
    """The card, the dice and the chest's dice of a query, in its notation."""
    notes = _notation(q)
    card = notes.parse_card(q["card"])
    dice = notes.parse_dice(q["dice"])
    chest = None if q["chest"] is None else notes.parse_dice(q["chest"], n=None)
    return card, dice, chest


# -- the answers -------------------------------------------------------------------------------


def advise(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """`sabords advise --json` (:mod:`solver.cli.advise`)."""
    from ..advisor import Goal
    from ..answers import advice_answer

    rules = _rules(q)
    card, dice, chest = _position(q)
    goal = _goal(q, rules)
    if goal.name == "win":
        solutions.game(rules)  # the game table before the position, as the command does
    solved = solutions.goal(card, rules, goal)
    answer = advice_answer(card, dice, rules, solved,
                           points=lambda: solutions.goal(card, rules, Goal()),
                           sorceress_used=q["sorceress_used"], chest=chest, first=q["first"])
    return answer.as_dict(q["top"])


def score(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """`sabords score --json` (:mod:`solver.cli.score`)."""
    from ..verdict import score_turn

    rules = _rules(q)
    card, dice, chest = _position(q)
    return score_turn(card, dice, rules, chest=chest, first=q["first"]).as_dict()


def ev(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """`sabords ev --json` (:mod:`solver.cli.solving`)."""
    from ..answers import ev_answer

    rules = _rules(q)
    notes = _notation(q)
    cards = [notes.parse_card(c) for c in q["card"]] or None
    return ev_answer(rules, cards, exact=q["exact"],
                     load=lambda c: solutions.table(c, rules)).as_dict()


def winprob(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """`sabords winprob --json` (:mod:`solver.cli.game`)."""
    from ..answers import win_answer
    from ..game import check_totals

    rules = _rules(q)
    check_totals(rules, q["me"], q["opp"], final=q["final"])
    return win_answer(solutions.game(rules), q["me"], q["opp"], final=q["final"]).as_dict()


def turn(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """The state of `sabords turn --json` after the entries (:mod:`solver.cli.turn`)."""
    from ..play import Phase, TurnPlay

    rules = _rules(q)
    notes = _notation(q)
    card = notes.parse_card(q["card"])
    goal = _goal(q, rules)
    play = TurnPlay(card, rules, solutions.goal(card, rules, goal), letters=notes.letters)
    for index, entry in enumerate(q["entry"]):
        try:
            if play.phase is Phase.MOVE:
                play.choose(entry)
            else:
                play.enter_roll(entry)
        except SabordsError as exc:
            raise EntryError(index, exc) from None
    return play.as_dict()


def rules(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """The rules object of the variants, its hash and its description."""
    the_rules = _rules(q)
    return {"rules": the_rules.as_dict(), "rules_hash": the_rules.hash,
            "turn_rules_hash": the_rules.turn_hash, "description": the_rules.describe()}


HANDLERS: dict[str, Callable[[dict[str, Any], Solutions], dict[str, Any]]] = {
    ADVISE.path: advise, SCORE.path: score, EV.path: ev, WINPROB.path: winprob,
    TURN.path: turn, RULES.path: rules,
}


def answer(endpoint: Endpoint, items: list[tuple[str, str]], solutions: Solutions,
           limits: Limits, q: dict[str, Any] | None = None) -> bytes:
    """The JSON answer of `endpoint` to the query `items` (cached), or an exception; `q` is
    the query already read (:func:`needs_solving`)."""
    key = (endpoint.path, tuple(items))
    found = solutions.answers.peek(key)
    if found is not None:
        return found
    if q is None:
        q = read_query(endpoint, items, limits)
    body = dumps(HANDLERS[endpoint.path](q, solutions))
    solutions.answers.put(key, body)
    return body


def needs_solving(endpoint: Endpoint, items: list[tuple[str, str]], solutions: Solutions,
                  limits: Limits) -> tuple[bool, dict[str, Any] | None]:
    """Whether answering may read or solve a table (then it runs in a worker thread; an
    answer from the caches is computed on the event loop), and the query read (None when it
    cannot be read: the error answers at once)."""
    if (endpoint.path, tuple(items)) in solutions.answers:
        return False, None
    try:
        q = read_query(endpoint, items, limits)
    except BadRequest:
        return False, None
    if endpoint in (ADVISE, TURN):
        try:
            the_rules = _rules(q)
            card = _notation(q).parse_card(q["card"])
            goal = _goal(q, the_rules)
        except SabordsError:
            return False, q  # an error answers at once
        return (solutions.cached_goal(card, the_rules, goal) is None
                or (goal.name == "win" and solutions.cached_goal(card, the_rules,
                                                                 type(goal)()) is None)), q
    return endpoint is not SCORE and endpoint is not RULES, q


def meta() -> dict[str, Any]:
    """What the page needs to know: the cards, the faces and their letters, the variants."""
    from .. import __version__
    from ..dice import BRAILLE_LETTERS, DEFAULT_LETTERS
    from ..notation import braille_card_name
    from ..rules import CARD_IDS, CARDS, DECK_SIZE, VARIANT_NAMES, Rules

    default = Rules()
    variants = []
    for name in VARIANT_NAMES:
        value = getattr(default, name)
        choices: list[Any] = ([True, False] if isinstance(value, bool) else
                              ["magic", "set"] if name == "nine_of_a_kind" else
                              ["shared", "trigger"] if name == "ties" else [])
        variants.append({"name": name, "default": value, "choices": choices})
    return {
        "version": __version__,
        "faces": ["skull", "monkey", "parrot", "sword", "coin", "diamond"],
        "letters": {"default": DEFAULT_LETTERS.faces, "braille": BRAILLE_LETTERS.faces},
        "cards": [{"id": c, "count": CARDS[c].count, "braille": braille_card_name(CARDS[c]),
                   "skulls": CARDS[c].skulls, "sorceress": CARDS[c].sorceress,
                   "chest": CARDS[c].chest, "battle_swords": CARDS[c].battle_swords,
                   "battle_bonus": CARDS[c].battle_bonus} for c in CARD_IDS],
        "deck_size": DECK_SIZE,
        "variants": variants,
        "rules": default.as_dict(),
        "rules_hash": default.hash,
    }


__all__ = ["ENDPOINTS", "EntryError", "answer", "dumps", "error_body", "meta", "needs_solving"]
