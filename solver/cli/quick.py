"""The quick path: the plain forms of `sabords advise`, `ev`, `score` and `turn`, parsed
without typer.

A player at the table waits for each answer from a cold process, and typer (with click) is a
third of that start-up (`make bench`, advisor section). So :func:`answer` reads the forms a
player types (the command, its arguments, the options of the answer) itself and runs the
command's body (:mod:`.answers`) under the same conventions as typer's commands
(:func:`.wording.run_command`): the same answer, the same errors, the same exit codes.

It takes only what it reads exactly as click would, and leaves everything else to typer:
help (``-h``, ``--help``), ``--``, an option it does not know or that is given as
``--name=value``, a value missing or starting with a minus, a number the library's reader
refuses (:func:`solver.errors.read_number`, typer's too) or out of the option's range, an
option of one value given twice, an argument starting with a minus, text the terminal's
encoding could not decode, and ``$SABORDS_NOTATION`` (click reads it). Typer then answers
as it always did. The tests run every form both ways and compare the bytes
(`tests/test_quick.py`).

Typer-free and numpy-free: a points answer from the committed tables imports neither.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..advice.inputs import (
    CARD_LIST,
    CHEST,
    EXACT,
    FINAL,
    FINAL_CHEST,
    FIRST,
    FIRST_AT_END,
    FLAG,
    INT,
    LIST,
    ME,
    NEED,
    NOTATION,
    OPP,
    SORCERESS_USED,
    SUDDEN_DEATH,
    TOP,
    VARIANT,
    WIN_TRIGGER,
    Input,
)
from ..errors import number_problem
from .streams import EXIT_INTERRUPTED, undecodable
from .wording import NOTATION_ENV, run_command


@dataclass(frozen=True)
class Form:
    """A command's plain form: its arguments (the card, then every word left: the dice; or
    none), and its options by flag, each the input it reads and the body's parameter it
    fills."""

    arguments: str
    """``"card dice"``: a card, then every word left (advise, score); ``"card"``: a card
    (turn); ``""``: none (ev)."""
    options: dict[str, tuple[Input, str]]
    """By flag: the input and its name in the body's inputs (:mod:`solver.advice.requests`)."""
    body: Callable[[], Callable[..., None]]
    """The command's body (imported when the form is run)."""


def _options(*pairs: tuple[Input, str]) -> dict[str, tuple[Input, str]]:
    return {given.flag: (given, parameter) for given, parameter in pairs}


_JSON = Input("json", FLAG, "", "")
"""`--json` (the command line's own option: not an input of the library)."""


def _advise_body() -> Callable[..., None]:
    from .answers import advise_body

    return advise_body


def _ev_body() -> Callable[..., None]:
    from .answers import ev_body

    return ev_body


def _turn_body() -> Callable[..., None]:
    from .dialogue import turn_body

    return turn_body


def _score_body() -> Callable[..., None]:
    from .answers import score_body

    return score_body


FORMS: dict[str, Form] = {
    "advise": Form("card dice", _options(
        (SORCERESS_USED, "sorceress_used"), (NEED, "need"), (FIRST, "first"),
        (CHEST, "chest"), (VARIANT, "variant"), (TOP, "top"), (ME, "me"), (OPP, "opp"),
        (FINAL, "final"), (WIN_TRIGGER, "trigger"), (SUDDEN_DEATH, "sudden"),
        (NOTATION, "notation"), (EXACT, "exact"), (_JSON, "json")), _advise_body),
    "score": Form("card dice", _options(
        (FINAL_CHEST, "chest"), (FIRST_AT_END, "first"), (VARIANT, "variant"),
        (NOTATION, "notation"), (_JSON, "json")), _score_body),
    "ev": Form("", _options(
        (CARD_LIST, "card"), (VARIANT, "variant"), (NOTATION, "notation"), (EXACT, "exact"),
        (_JSON, "json")), _ev_body),
    "turn": Form("card", _options(
        (NEED, "need"), (ME, "me"), (OPP, "opp"), (FINAL, "final"), (WIN_TRIGGER, "trigger"),
        (SUDDEN_DEATH, "sudden"), (VARIANT, "variant"), (NOTATION, "notation"),
        (_JSON, "json")), _turn_body),
}
"""The commands the quick path reads, and their options (`--tables` and `--game-tables`, whose
folders click checks, are left to typer)."""

def parse(args: list[str]) -> tuple[Form, list[str], dict[str, Any]] | None:
    """The form, the arguments and the options of `args`, or None where typer must read
    them (module doc)."""
    if not args or args[0] not in FORMS or NOTATION_ENV in os.environ:
        return None
    form = FORMS[args[0]]
    positional: list[str] = []
    options: dict[str, Any] = {}
    i = 1
    while i < len(args):
        arg = args[i]
        if undecodable(arg):
            return None
        if not arg.startswith("-"):
            positional.append(arg)
            i += 1
            continue
        if arg not in form.options:
            return None  # --help, --, --name=value, an unknown option, a negative argument
        given, name = form.options[arg]
        if given.kind == FLAG:
            options[name] = True
            i += 1
            continue
        if i + 1 >= len(args) or args[i + 1].startswith("-") and given.kind != INT \
                and given.each != INT:
            return None
        value = args[i + 1]
        if undecodable(value):
            return None
        parsed = _value(given, value)
        if parsed is None:
            return None
        if given.kind == LIST:
            options.setdefault(name, []).append(parsed)
        elif name in options:
            return None  # given twice: typer says whether that is allowed
        else:
            options[name] = parsed
        i += 2
    wanted = len(form.arguments.split())
    if len(positional) < wanted if form.arguments == "card dice" else \
            len(positional) != wanted:
        return None  # an argument missing, or one too many: typer's usage error
    return form, positional, options


def _value(given: Input, text: str) -> Any:
    """An option's value as click reads it, or None where this path does not read it."""
    if given.kind == INT or (given.kind == LIST and given.each == INT):
        if number_problem(text) is not None:
            return None  # typer refuses it, with the same reader's words
        number = int(text)
        if (given.minimum is not None and number < given.minimum) or \
                (given.maximum is not None and number > given.maximum):
            return None
        return number
    if text.startswith("-"):
        return None  # click would take it for an option
    return text


def answer(args: list[str]) -> bool:
    """Answer `args` by the quick path, if it reads them (True: answered, its exit code raised
    as :class:`SystemExit` where not 0); False: typer must read them."""
    parsed = parse(args)
    if parsed is None:
        return False
    form, positional, options = parsed
    body = form.body()
    given = dict(options)
    if form.arguments:
        given["card"] = positional[0]
    if form.arguments == "card dice":
        given["dice"] = positional[1:]
    try:
        run_command(lambda: body(given))
    except KeyboardInterrupt:  # as typer ends a command that Ctrl-C stopped: quietly, 130
        raise SystemExit(EXIT_INTERRUPTED) from None
    return True


__all__ = ["FORMS", "Form", "answer", "parse"]
