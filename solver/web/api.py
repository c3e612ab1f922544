"""The JSON API: each endpoint reads its inputs, asks the library, and answers its dictionary.

=================  =========================  =============================================
endpoint           the command's ``--json``   the library
=================  =========================  =============================================
``/api/advise``    `sabords advise`           :func:`solver.advice.answers.advice_answer`
``/api/score``     `sabords score`            :func:`solver.rules.verdict.score_turn`
``/api/ev``        `sabords ev`               :func:`solver.advice.answers.ev_answer`
``/api/winprob``   `sabords winprob`          :func:`solver.advice.answers.win_answer`
``/api/turn``      `sabords turn`             :class:`solver.advice.play.TurnPlay`, replayed
``/api/rules``     (the rules, their hash,    :func:`solver.rules.rules_with`
                   the players won for)
``/api/scores``    (the table's scoreboard)   :class:`solver.rules.scoreboard.Scoreboard`
``/api/meta``      (what the page needs)      cards, faces, letters, variants, sizes
``/api/review``    `sabords review`           :func:`solver.advice.review.review_game`
=================  =========================  =============================================

A handler reads its query (:mod:`solver.web.params`, the inputs of :mod:`solver.advice.inputs`)
into the command's request (:mod:`solver.advice.requests`: the values in the game's terms, in
the order the command line reads them, so that the first error is the same), asks
:mod:`solver.advice.answers` with the server's solutions (:class:`solver.web.solutions.Solutions`,
a :class:`solver.advice.sources.SolutionSource`) and answers the library's dictionary as JSON: the
same library calls as the command line's, whose `--json` is the same object. `/api/turn` is
stateless: the query carries the turn's entries so far (``entry``, repeated: the dice of each
roll and each move, as `sabords turn` reads them), the server replays them through
:class:`~solver.advice.play.TurnPlay` and answers its state; undoing is dropping the last entry.
`/api/review` is the one POST: its body is a game record (:mod:`solver.rules.record`), too long
for a query.

Errors (:mod:`solver.web.application` has one handler per kind): a query that cannot be read
is 400, an input the library refuses (:class:`~solver.errors.SabordsError`) 422 (`/api/turn`
adds ``"entry"``, the index of the entry refused), a table this server does not have for the
rules asked 503; each ``{"error": "...", "kind": "...", "param": "...", "values": {...}}``:
what went wrong as data (:func:`error_data`) and a sentence in the web's words (the library's
game terms, the input named as a player names it: never a command-line flag).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from ..advice import inputs as I
from ..errors import SabordsError, StaleTableError
from ..rules.aims import WIN
from ..words.sentences import advice_sentence
from .params import BadRequest, Endpoint, Limits, read_query

if TYPE_CHECKING:
    from ..rules.rulebook import Rules
    from .solutions import Solutions

GOAL = (I.NEED, I.ME, I.OPP, I.FINAL, I.WIN_TRIGGER, I.SUDDEN_DEATH)

ADVISE = Endpoint("/api/advise", "Every legal option from the dice showing, best first", (
    I.CARD, I.DICE, I.SORCERESS_USED, I.FIRST, I.CHEST, *GOAL, I.TOP, I.VARIANT, I.NOTATION),
    command="advise")
SCORE = Endpoint("/api/score", "What a turn's last dice are worth", (
    I.CARD, I.FINAL_DICE, I.FINAL_CHEST, I.FIRST_AT_END, I.VARIANT, I.NOTATION),
    command="score")
EV = Endpoint("/api/ev", "Optimal expected points of a turn per card", (
    I.CARD_LIST, I.VARIANT, I.EXACT, I.NOTATION), command="ev")
WINPROB = Endpoint("/api/winprob", "Every player's probability of winning the game", (
    I.MY_TOTAL, I.OPP_TOTAL, I.FINAL, I.WIN_TRIGGER, I.SUDDEN_DEATH, I.VARIANT),
    command="winprob")
TURN = Endpoint("/api/turn", "A whole turn, replayed entry by entry, and its grading", (
    I.CARD_DRAWN, *GOAL, I.VARIANT, I.NOTATION, I.ENTRY), command="turn")
RULES = Endpoint("/api/rules", "The rules of the variants given, their hash, and the numbers of "
                 "players this server computes winning for under them", (I.VARIANT,))
SCORES = Endpoint("/api/scores", "The table's scoreboard: the final turn, what beats the leader, "
                  "the totals after a turn, the end of the game and its winners", (
                      I.TOTAL, I.MOVER, I.TRIGGER, I.SUDDEN, I.POINTS, I.DEDUCTION, I.MAGIC,
                      I.VARIANT))

ENDPOINTS = (ADVISE, SCORE, EV, WINPROB, TURN, RULES, SCORES)


class EntryError(Exception):
    """An entry of a turn that the turn refuses (422, with the entry's index)."""

    def __init__(self, index: int, error: SabordsError) -> None:
        super().__init__(str(error))
        self.index = index
        self.error = error


def dumps(data: Any) -> bytes:
    """Compact JSON (the command line prints the same object with an indent)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


# -- errors, as data and in the web's words ----------------------------------------------------


def error_data(exc: SabordsError | BadRequest) -> dict[str, Any]:
    """The body of an error answer (module docstring): no answer carries a path of the
    server's disk (a table refused is named by its file's name); a game table refused says
    what making it takes (``values.making``: :func:`making_cost`)."""
    if isinstance(exc, BadRequest):
        return {"error": exc.message, "kind": exc.kind, "param": exc.param,
                "values": exc.values}
    data = exc.as_data()
    if isinstance(exc, StaleTableError):  # the file's name, never where the server keeps it
        values = {name: value for name, value in data["values"].items() if name != "path"}
        making = making_cost(exc.table, exc.rules.target)
        data["values"] = {**values, "file": PurePath(exc.path).name,
                          **({} if making is None else {"making": making})}
    return {"error": error_words(exc, data["values"]), **data}


def error_words(exc: SabordsError, values: dict[str, Any] | None = None) -> str:
    """A library error in the web's words: the library's sentence in the game's terms, a
    missing or stale table as the server's want of it (for the question asked: four or five
    players are played on the table of three), with what making it takes."""
    if isinstance(exc, StaleTableError):
        what = ("turn table" if exc.table == "turn"
                else f"table of the {exc.table.split('-')[1]}-player game")
        card = f" of the {exc.card} card" if exc.card else ""
        making = (values or {}).get("making")
        took = "" if making is None else (
            f" (about {duration_text(making['duration'])} and {making['gb']:.1f} GB on a "
            "2-core machine)")
        if exc.players is not None:
            return (f"winning a game of {exc.players} players is computed here on the table "
                    f"of the 3-player game (near-optimal play), and this server has none for "
                    f"these rules (rules hash {exc.rules.hash}): ask its keeper to make "
                    f"it{took}")
        return (f"this server has no {what}{card} for these rules (rules hash "
                f"{exc.rules.hash}): ask its keeper to make it{took}")
    if exc.kind == "which_trigger":  # (the usual one named, as the command line does)
        at = (exc.values or {}).get("at")
        return f"{exc.message}: say who with trigger=N" + (
            "" if at is None else f" (trigger={at} if nobody was pushed back)")
    return exc.message


def duration_text(duration: dict[str, Any]) -> str:
    """A duration of :func:`making_cost` in words, as the command line gives it (``"6 s"``,
    ``"58.4 minutes"``)."""
    value, unit = duration["value"], duration["unit"]
    return f"{value:.0f} s" if unit == "s" else f"{value:.1f} {unit}"


def making_cost(table: str, target: int) -> dict[str, Any] | None:
    """What making the game table `table` (``"game-2"``, ``"game-3"``...) at `target` takes on a
    2-core machine (:func:`solver.limits.game_cost`): ``{"seconds": 3504, "gb": 2.9,
    "duration": {"value": 58.4, "unit": "minutes"}}`` (the duration as every cost text gives
    it: :func:`solver.limits.duration`); None for a turn table, or a game the cost model does
    not know."""
    from ..limits import duration, game_cost

    players = int(table[5:]) if table.startswith("game-") else 0
    if not 2 <= players <= 5:
        return None
    seconds, memory = game_cost(target, players)
    value, unit = duration(seconds)
    return {"seconds": round(seconds), "gb": round(memory / 1e9, 1),
            "duration": {"value": value, "unit": unit}}


# -- the answers: each query read into its request, as the command line reads its inputs -----


def _rules(q: dict[str, Any]) -> Rules:
    from ..advice.requests import read_rules

    return read_rules(q)


def advise(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """`sabords advise --json`."""
    from ..advice.answers import advice_answer
    from ..advice.requests import AdviceRequest

    request = AdviceRequest.read(q)
    answer = advice_answer(request, solutions)
    letters = request.notation.letters  # (the sentence in the letters asked; the dice fields not)
    return answer.as_dict(lambda a: advice_sentence(a, letters), q["top"], letters)


def score(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """`sabords score --json`."""
    from ..advice.requests import ScoreRequest
    from ..rules.verdict import score_turn

    r = ScoreRequest.read(q)
    return score_turn(r.card, r.dice, r.rules, chest=r.chest, first=r.first).as_dict()


def ev(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """`sabords ev --json`."""
    from ..advice.answers import ev_answer
    from ..advice.requests import EvRequest

    return ev_answer(EvRequest.read(q), solutions).as_dict()


def winprob(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """`sabords winprob --json`."""
    from ..advice.answers import win_answer
    from ..advice.requests import WinRequest

    return win_answer(WinRequest.read(q), solutions).as_dict()


def turn(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """The state of `sabords turn --json` after the entries (its last line)."""
    from ..advice.play import Phase, TurnPlay
    from ..advice.requests import TurnRequest

    r = TurnRequest.read(q)
    play = TurnPlay.new(r.card, r.rules, r.goal, solutions=solutions,
                        letters=r.notation.letters)
    for index, entry in enumerate(q["entry"]):
        try:
            if play.phase is Phase.MOVE:
                play.choose(entry)
            else:
                play.enter_roll(entry)
        except SabordsError as exc:
            raise EntryError(index, exc) from None
    return play.as_dict(lambda a: advice_sentence(a, r.notation.letters))


def rules(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """The rules object of the variants, its hash and its description; and what this server
    answers of their game (`win`): the numbers of players it computes winning for
    (`players`); for each, whether its chances are exact and for near-optimal ones what was
    measured of them, as a win answer says it (`how`, by number of players: the
    page says it before the chances come, ``measured`` kept to each entry's kind, players and
    target); and, without the three-player table (on which four and five are played too),
    what making it takes (`making`: :func:`making_cost`; else None)."""
    from ..tables.game import near_optimal_loss

    the_rules = _rules(q)
    kinds = solutions.win_kinds(the_rules)
    counts = sorted(kinds)
    making = None if 3 in counts else making_cost("game-3", the_rules.target)

    def how(players: int, exact: bool) -> dict[str, Any]:
        if exact:
            return {"exact": True}
        loss = near_optimal_loss(players, the_rules.ties)
        if loss is not None:
            loss = {**loss, "measured": [{k: m[k] for k in ("kind", "players", "target")}
                                         for m in loss["measured"]]}
        return {"exact": False, "loss": loss}

    return {"rules": the_rules.as_dict(), "rules_hash": the_rules.hash,
            "turn_rules_hash": the_rules.turn_hash, "description": the_rules.describe(),
            "win": {"players": counts, "making": making,
                    "how": {str(n): how(n, e) for n, e in kinds.items()}}}


def scores(q: dict[str, Any], solutions: Solutions) -> dict[str, Any]:
    """The scoreboard of the totals (:class:`solver.rules.scoreboard.Scoreboard`), and after a turn
    (its `points`, or Skull Island's `deduction`) the next one."""
    from ..rules.scoreboard import Scoreboard

    the_rules = _rules(q)
    board = Scoreboard(the_rules, tuple(q["total"]), q["mover"] or 0, trigger=q["trigger"],
                       sudden=q["sudden"])
    if q["points"] is None and q["deduction"] is None and not q["magic"]:
        return board.as_dict()
    after = board.after(points=q["points"], deduction=q["deduction"], magic=q["magic"])
    return {**after.as_dict(), "before": board.as_dict()}


HANDLERS: dict[str, Callable[[dict[str, Any], Solutions], dict[str, Any]]] = {
    ADVISE.path: advise, SCORE.path: score, EV.path: ev, WINPROB.path: winprob,
    TURN.path: turn, RULES.path: rules, SCORES.path: scores,
}
NEVER_SOLVE = (SCORE, RULES, SCORES)
"""Endpoints that read no table and solve nothing."""


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
    if endpoint is not RULES:  # which tables the server has may change: asked each time
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
        from ..advice.requests import read_goal, read_notation

        try:
            the_rules = _rules(q)
            card = read_notation(q).parse_card(q["card"])
            goal = read_goal(q, the_rules)
        except SabordsError:
            return False, q  # an error answers at once
        return (solutions.cached_goal(card, the_rules, goal) is None
                or (goal.name == WIN and solutions.cached_goal(card, the_rules,
                                                                 type(goal)()) is None)), q
    return endpoint not in NEVER_SOLVE, q


def meta(win_players: list[int] | None = None,
         max_game_target: int | None = None) -> dict[str, Any]:
    """What the page needs to know: the cards, the faces and their letters, the variants, the
    sizes of the game (the dice, the points' unit, the largest target), and what this server
    answers: `win_players`, the numbers of players whose game it has for the default rules
    (Win is offered for a scoreboard of that many), `max_game_target`, the largest target whose
    game it solves on demand (None: it solves none, ``--solve-on-demand off``)."""
    from .. import __version__
    from ..rules.dice import BRAILLE_LETTERS, DEFAULT_LETTERS
    from ..rules.notation import braille_card_name
    from ..rules.rulebook import (
        CARD_IDS,
        CARDS,
        DECK_SIZE,
        MAX_TARGET,
        NINE_OF_A_KIND_VALUES,
        NUM_DICE,
        TIES_VALUES,
        UNIT,
        VARIANT_NAMES,
        Rules,
    )

    default = Rules()
    variants = []
    for name in VARIANT_NAMES:
        value = getattr(default, name)
        choices: list[Any] = ([True, False] if isinstance(value, bool) else
                              list(NINE_OF_A_KIND_VALUES) if name == "nine_of_a_kind" else
                              list(TIES_VALUES) if name == "ties" else [])
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
        "dice": NUM_DICE,
        "unit": UNIT,
        "max_target": MAX_TARGET,
        "variants": variants,
        "win_players": [2] if win_players is None else win_players,
        "max_game_target": max_game_target,
        "rules": default.as_dict(),
        "rules_hash": default.hash,
    }


# -- a game's review: a record in the body ------------------------------------------------------

REVIEW_PATH = "/api/review"
"""The one endpoint that reads a body: a game record (docs/record.md) POSTed as JSON, answered
with the JSON of `sabords review --json`."""


def review_key(body: bytes) -> tuple[str, str]:
    """The answers' cache key of a review: the record's bytes, hashed."""
    import hashlib

    return (REVIEW_PATH, hashlib.sha256(body).hexdigest())


def review(body: bytes, solutions: Solutions) -> bytes:
    """`sabords review --json` of the record `body` (:func:`solver.advice.review.review_game`):
    a game's turns solved in the goals' queue (its table read, or solved, first); cached."""
    from ..advice.review import review_game
    from ..rules.record import read_record
    from ..words.review import story

    key = review_key(body)
    found = solutions.answers.peek(key)
    if found is not None:
        return found
    record = read_record(body)
    if record.solo:  # its need's turns are solved in the queue, one by one
        answer = review_game(record, solutions).as_dict(story)
    else:
        solutions.game(record.rules, len(record.players))  # in the tables' queue if solved
        answer = solutions.goal_solves.run(
            lambda: review_game(record, solutions).as_dict(story))
    out = dumps(answer)
    solutions.answers.put(key, out)
    return out


__all__ = ["ENDPOINTS", "REVIEW_PATH", "EntryError", "answer", "dumps", "error_data",
           "error_words", "meta", "needs_solving", "review", "review_key"]
