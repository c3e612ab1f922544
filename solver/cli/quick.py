"""The parser of the answers: `sabords advise`, `ev`, `score` and `turn`, read without typer.

A player at the table waits for each answer from a cold process, and typer (with click) is a
third of that start-up (`make bench`, advisor section). So these four commands have one parser,
this one: :func:`parse` reads every form of them (the command, its arguments, every option of
the answer) and :func:`answer` runs the command's body (:mod:`.answers`, :mod:`.dialogue`)
under the conventions of the whole command line (:func:`.wording.run_command`). Typer only
draws their help (``-h``, ``--help``): the typer commands of :mod:`.advise`, :mod:`.score`,
:mod:`.solving` and :mod:`.turn` declare the options the help lists, and are never run for
anything else (:func:`.application.command`, ``help_only``); the tests check that both list the
same options (`tests/test_quick.py`).

What the parser reads, as click would: options anywhere among the arguments, ``--name value``
and ``--name=value``, ``--`` (every word after it an argument), a word starting with a minus
and a digit as an argument (a card ``-1``), an option's value that starts with a minus as that
value (``--me -100``, refused by its range). And what it refuses, in one line with exit code 2
and the command whose help to see: an unknown option (with the close ones, as click suggests
them), a value missing or given as another option, a flag given a value, an option of one
value given twice with two values, a number the library's reader refuses
(:func:`solver.errors.read_number`, the web's too) or out of the option's range, an empty
folder name, an argument missing or one too many, text the terminal's encoding could not
decode. ``$SABORDS_NOTATION`` is the notation when ``--notation`` is not given (an empty value
is no value, as click reads it).

Typer-free and numpy-free: a points answer from the committed tables imports neither.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..advice.inputs import (
    CARD,
    CARD_DRAWN,
    CARD_LIST,
    CHEST,
    DICE,
    EXACT,
    FINAL,
    FINAL_CHEST,
    FINAL_DICE,
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
from ..errors import NumberError, quote, read_number, shorten
from .streams import EMPTY_PATH, EXIT_INTERRUPTED, undecodable, undecodable_line
from .wording import NOTATION_ENV, fail, run_command

FOLDER = "folder"
"""The kind of the options that name a folder (``--tables``, ``--game-tables``): the command
line's own, not inputs of the library."""


@dataclass(frozen=True)
class Form:
    """A command's form: its arguments (the card, then every word left: the dice; or none),
    and its options by flag, each the input it reads and the body's parameter it fills."""

    arguments: tuple[Input, ...]
    """The arguments in order; a last one of ``DICE`` takes every word left."""
    options: dict[str, tuple[Input, str]]
    """By flag: the input and its name in the body's inputs (:mod:`solver.advice.requests`)."""
    body: Callable[[], Callable[..., None]]
    """The command's body (imported when the form is run)."""

    @property
    def rest(self) -> bool:
        """Its last argument takes every word left (the dice)."""
        return bool(self.arguments) and self.arguments[-1].name == "dice"


def _options(*pairs: tuple[Input, str]) -> dict[str, tuple[Input, str]]:
    return {given.flag: (given, parameter) for given, parameter in pairs}


_JSON = Input("json", FLAG, "", "")
"""`--json` (the command line's own option: not an input of the library)."""
_TABLES = Input("tables", FOLDER, "", "")
_GAME_TABLES = Input("game_tables", FOLDER, "", "")
"""`--tables DIR` and `--game-tables DIR`: where the tables are read from."""


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
    "advise": Form((CARD, DICE), _options(
        (SORCERESS_USED, "sorceress_used"), (NEED, "need"), (FIRST, "first"),
        (CHEST, "chest"), (VARIANT, "variant"), (TOP, "top"), (_TABLES, "tables"),
        (ME, "me"), (OPP, "opp"), (FINAL, "final"), (WIN_TRIGGER, "trigger"),
        (SUDDEN_DEATH, "sudden"), (_GAME_TABLES, "game_tables"), (NOTATION, "notation"),
        (EXACT, "exact"), (_JSON, "json")), _advise_body),
    "score": Form((CARD, FINAL_DICE), _options(
        (FINAL_CHEST, "chest"), (FIRST_AT_END, "first"), (VARIANT, "variant"),
        (NOTATION, "notation"), (_JSON, "json")), _score_body),
    "ev": Form((), _options(
        (CARD_LIST, "card"), (VARIANT, "variant"), (_TABLES, "tables"), (NOTATION, "notation"),
        (EXACT, "exact"), (_JSON, "json")), _ev_body),
    "turn": Form((CARD_DRAWN,), _options(
        (NEED, "need"), (ME, "me"), (OPP, "opp"), (FINAL, "final"), (WIN_TRIGGER, "trigger"),
        (SUDDEN_DEATH, "sudden"), (VARIANT, "variant"), (_TABLES, "tables"),
        (_GAME_TABLES, "game_tables"), (NOTATION, "notation"), (_JSON, "json")), _turn_body),
}
"""The commands this parser reads, and every option of each (their typer commands list the
same ones in their help: `tests/test_quick.py`)."""

HELP = ("-h", "--help")


class UsageProblem(Exception):
    """A form the parser refuses: its one line (without the command whose help to see)."""


@dataclass(frozen=True)
class Parsed:
    """A form read: its command's form and the body's inputs (every option given, the
    arguments by name)."""

    form: Form
    given: dict[str, Any]


_NEGATIVE = re.compile(r"-\d")
"""A word read as an argument though it starts with a minus: a minus and a digit (``-1``)."""


def parse(args: list[str]) -> Parsed | None:
    """The form and the inputs of `args`; None where typer answers (another command, the
    group's own options, the help of one of these); :class:`UsageProblem` where the form is
    refused (module doc)."""
    if not args or args[0] not in FORMS:
        return None
    form, words = FORMS[args[0]], args[1:]
    options = words[:words.index("--")] if "--" in words else words
    if any(word in HELP for word in options):
        return None
    positional: list[str] = []
    given: dict[str, Any] = {}
    texts: dict[str, str] = {}
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            positional += words[i:]
            break
        if not word.startswith("-") or word == "-" or _NEGATIVE.match(word):
            at = min(len(positional), len(form.arguments) - 1)
            positional.append(_decoded(word, form.arguments[at].flag if at >= 0 else "argument"))
            continue
        flag, equals, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        if flag not in form.options:
            raise UsageProblem(_no_such_option(flag, form))
        given_input, name = form.options[flag]
        if given_input.kind == FLAG:
            if equals:
                raise UsageProblem(f"Option {flag!r} does not take a value.")
            given[name] = True
            continue
        if equals:
            text = inline
        elif i >= len(words):
            raise UsageProblem(f"Option {flag!r} requires an argument.")
        else:
            text = words[i]
            i += 1
            if text in form.options or text in HELP:
                raise UsageProblem(f"{flag} needs a value, not the option {text}")
        text = _decoded(text, flag)
        value = _value(given_input, flag, text)
        if given_input.kind == LIST:
            given.setdefault(name, []).append(value)
        elif name in texts and texts[name] != text:
            raise UsageProblem(f"{flag} is given twice, as {quote(texts[name])} and "
                               f"{quote(text)}: give it once")
        else:
            texts[name] = text
            given[name] = value
    _arguments(form, positional, given)
    if "notation" not in given and os.environ.get(NOTATION_ENV):
        given["notation"] = os.environ[NOTATION_ENV]
    return Parsed(form, given)


def _decoded(text: str, what: str) -> str:
    """`text`, refused where the terminal's encoding could not decode it."""
    if undecodable(text):
        raise UsageProblem(undecodable_line(what))
    return text


def _no_such_option(flag: str, form: Form) -> str:
    """An unknown option's line, with the close ones (as click suggests them)."""
    from difflib import get_close_matches  # only for a mistyped option: off the cold start

    close = sorted(get_close_matches(flag, [*form.options, "--help"]))
    line = f"No such option {quote(flag)}."
    if len(close) == 1:
        return f"{line} Did you mean {close[0]!r}?"
    if close:
        return f"{line} (Did you mean one of: {', '.join(repr(c) for c in close)}?)"
    return line


def _value(given: Input, flag: str, text: str) -> Any:
    """An option's value read by its kind: a whole number by the library's reader and within
    its range, a folder's name not empty, a text as typed."""
    if given.kind == FOLDER:
        if not text.strip():
            raise UsageProblem(f"Invalid value for {flag!r}: {EMPTY_PATH}")
        return Path(text)
    if given.kind != INT and not (given.kind == LIST and given.each == INT):
        return text
    try:
        number = read_number(text)
    except NumberError as exc:
        raise UsageProblem(f"Invalid value for {flag!r}: {exc.message}") from None
    low, high = given.minimum, given.maximum
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = (f"{low}<=x<={high}" if low is not None and high is not None else
                  f"x>={low}" if low is not None else f"x<={high}")
        raise UsageProblem(f"Invalid value for {flag!r}: {number} is not in the range "
                           f"{bounds}.")
    return number


def _arguments(form: Form, positional: list[str], given: dict[str, Any]) -> None:
    """The arguments into `given` by name: each one there, none left over."""
    if len(positional) < len(form.arguments):
        raise UsageProblem(f"Missing argument {form.arguments[len(positional)].flag!r}.")
    if len(positional) > len(form.arguments) and not form.rest:
        extra = positional[len(form.arguments):]
        raise UsageProblem(f"Got unexpected extra argument{'s' if len(extra) > 1 else ''} "
                           f"({shorten(' '.join(extra))})")
    for argument, word in zip(form.arguments, positional, strict=False):
        given[argument.name] = word
    if form.rest:
        given[form.arguments[-1].name] = positional[len(form.arguments) - 1:]


def answer(args: list[str]) -> bool:
    """Answer `args` if they are a form of these commands (True: answered, its exit code
    raised as :class:`SystemExit` where not 0); False: typer answers them (module doc)."""
    try:
        parsed = parse(args)
    except UsageProblem as exc:
        fail(f"{exc} (see 'sabords {args[0]} --help')")
    if parsed is None:
        return False
    body = parsed.form.body()
    try:
        # (an argument's error names no flag: `advise CARD` has no --card, `ev` has)
        run_command(lambda: body(parsed.given), {a.name: "" for a in parsed.form.arguments})
    except KeyboardInterrupt:  # as typer ends a command that Ctrl-C stopped: quietly, 130
        raise SystemExit(EXIT_INTERRUPTED) from None
    return True


__all__ = ["FORMS", "Form", "Parsed", "UsageProblem", "answer", "parse"]
