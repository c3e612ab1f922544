"""The library's errors: one base class, a subclass per cause, each quoting its input short.

Every error a person's input can cause is a :class:`SabordsError` (a `ValueError`), raised by
the library in the game's terms; the command line (:mod:`solver.cli`) turns each into one line
on stderr and exit code 2, the web page into a 4xx answer. The hierarchy::

    SabordsError                 ValueError: the input, not a bug
    ├── NotationError            text that cannot be read: dice, card names, NAME=VALUE
    │   └── NumberError          a number not written with the digits 0-9 alone
    ├── RulesError               a position, a variant or a game state the rules do not allow
    ├── IllegalMoveError         a move the rules do not allow from this position
    ├── StaleTableError          a table missing, corrupt, or made for other rules or geometry
    └── SettingsError            a setting of a computation out of range (workers, turns,
                                 games, seeds), or an output that cannot be written

Modules refine them where a caller may care (:class:`solver.rules.dice.DiceNotationError`,
:class:`solver.rules.VariantError`, :class:`solver.game.GameError`...).

Each error is data besides its message (:meth:`SabordsError.as_data`):

- ``kind``: what went wrong, a stable code (``"dice_count"``, ``"unknown_card"``,
  ``"need_not_points"``, ``"stale_table"``...; each class has a default, a raise site may
  be more precise);
- ``subject``: the input it is about, in the game's words (``"dice"``, ``"need"``, ``"me"``,
  ``"opp"``, ``"chest"``, ``"variant"``, ``"jobs"``...; the web's ``param``);
- ``values``: the values the error is about, JSON-ready (the input as typed, the count found
  and the count expected...).

A front end words an error from those three alone, in its own terms and language: the command
line with its flags, the web in the player's words. The message is the library's wording in
the game's terms, in English: it never names a command-line flag or a command.

Inputs are quoted with :func:`quote`, shortened to about :data:`QUOTE_LIMIT` characters, so
that a 100 000-character input makes a short message. A number inside a text (a count in
the dice, a rank typed at the turn helper's prompt) is read by :func:`is_digits` and
:func:`whole_number`: the digits 0-9 only, never the other characters Unicode calls digits
(``፰``, ``⓶``, ``٣``), some of which `int()` cannot read though `str.isdigit` accepts them.
A value that is a number and nothing else (an option's, a query's, a variant's: ``--me``,
``total=``, ``target=N``) is read by :func:`read_number` on both front ends alike: the digits
0-9 after an optional minus sign, and nothing else (no spaces or line breaks around them, no
plus sign, no ``_``, no other digits), else a :class:`NumberError`.

Pure Python, no imports beyond the standard library (every command's start-up path).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

QUOTE_LIMIT = 60
"""Quoted inputs longer than this are shortened (:func:`quote`)."""


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """`text` cut to about `limit` characters: its start, an ellipsis and how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}… ({len(text)} characters)"


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """`repr` of an input, shortened: ``'kkmpp'``, or ``'kkkkkkkk…' (100000 characters)``."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[: limit - 20]!r}… ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= limit else shorten(text, limit)


DIGITS = "0123456789"
"""The digits a number is written with, in every input (dice counts, options, queries)."""


def is_digits(text: str) -> bool:
    """`text` is a run of the digits 0-9 and nothing else (``str.isdigit`` also accepts
    ``²``, ``፰``, ``⓶``, which `int()` cannot read)."""
    return bool(text) and text.isascii() and text.isdigit()


def other_digits(text: str) -> str:
    """The characters of `text` that Unicode calls digits but that are not 0-9 (``'²፰'``),
    so that a refusal can say what it did not read as a number."""
    return "".join(ch for ch in text if ch not in DIGITS and (ch.isdigit() or ch.isdecimal()
                                                                or ch.isnumeric()))


def whole_number(text: str, max_digits: int = 18) -> int | None:
    """The whole number `text` writes (spaces around, an optional sign, then at most
    `max_digits` digits 0-9), or None: other digits, an empty text, and numbers longer than
    anything an input means (which `int()` may also refuse past 4300 digits) are no number."""
    body = text.strip()
    sign = body[:1] if body[:1] in ("-", "+") else ""
    digits = body[len(sign):]
    significant = digits.lstrip("0")
    if not is_digits(digits) or len(significant) > max_digits:
        return None
    return int(sign + (significant or "0"))


NUMBER_DIGITS = 100
"""The most significant digits of a number typed: far more than any value means (a seed's
largest, 2**64 - 1, has 20), so that the input's own range says what is wrong with a number too
large ("at most 100000 points"), and far fewer than the 4300 `int()` reads."""


NUMBER_PROBLEMS = {
    "digits": "is not written with the digits 0-9",
    "spaces": "has spaces or line breaks around it: write the digits 0-9 alone",
    "plus": "has a plus sign: write the digits 0-9 alone",
    "form": "is not a whole number written with the digits 0-9",
    "long": f"has more than {NUMBER_DIGITS} digits",
}
"""Why a text is not a whole number (:func:`number_problem`), and the clause that says it."""


def number_problem(text: str, max_digits: int = NUMBER_DIGITS) -> str | None:
    """Why `text` is not a whole number as :func:`read_number` reads it (a key of
    :data:`NUMBER_PROBLEMS`: ``"digits"``, other digits than 0-9; ``"spaces"`` around it;
    ``"plus"``, a plus sign; ``"long"``, more than `max_digits` significant digits;
    ``"form"``, anything else); None when it is one."""
    digits = text[1:] if text.startswith("-") else text
    if is_digits(digits):
        return None if len(digits.lstrip("0")) <= max_digits else "long"
    if other_digits(text):
        return "digits"
    if text.strip() != text and text.strip():
        return "spaces"
    if text.startswith("+"):
        return "plus"
    return "form"


def read_number(text: str, subject: str | None = None, *,
                max_digits: int = NUMBER_DIGITS) -> int:
    """The whole number `text` writes: an optional minus sign, then the digits 0-9, nothing
    around them (module doc); a :class:`NumberError` about `subject` otherwise: other digits
    (``٣٠٠``), ``1_000``, ``+100``, ``' 100'``, ``'6000\\r\\n'``, an empty text, more than
    `max_digits` significant digits. Its values: the text, why (:func:`number_problem`), and
    the other digits or the most digits where they are why."""
    why = number_problem(text, max_digits)
    if why is not None:
        values: dict[str, Any] = {"value": text, "why": why}
        if why == "digits":
            values["digits"] = other_digits(text)
        clause = NUMBER_PROBLEMS[why]
        if why == "long":
            values["most"] = max_digits
            clause = f"has more than {max_digits} digits"
        raise NumberError(f"{quote(text)} {clause}", subject=subject, values=values)
    return int(text)


class SabordsError(ValueError):
    """Base class of every error that is the user's input (the CLI: one line, exit code 2).

    `subject` names the input the error is about in the game's words (``"need"``, ``"dice"``,
    ``"jobs"``...), so that a front end can point at its own field or flag; `kind` says what
    went wrong (default: the class's :attr:`default_kind`) and `values` the values concerned
    (module docstring).
    """

    default_kind: ClassVar[str] = "bad_input"

    def __init__(self, message: str, *, subject: str | None = None, kind: str | None = None,
                 values: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.subject = subject
        self.kind = kind if kind is not None else self.default_kind
        self.values: dict[str, Any] = {
            name: shorten(value) if isinstance(value, str) else value
            for name, value in (values or {}).items()}

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    def as_data(self) -> dict[str, Any]:
        """The error as data: its kind, the input it concerns (``param``) and the values."""
        return {"kind": self.kind, "param": self.subject, "values": self.values}


class NotationError(SabordsError):
    """Text that cannot be read: dice, a card name, a ``NAME=VALUE`` variant."""

    default_kind = "notation"


class NumberError(NotationError):
    """A value that should be a whole number and is not one as :func:`read_number` reads it
    (``values``: the text, why, and the other digits or the most digits where they are why)."""

    default_kind = "not_a_whole_number"


class RulesError(SabordsError):
    """A position, a variant or a game state that the rules do not allow."""

    default_kind = "rules"


class IllegalMoveError(SabordsError):
    """A move the rules do not allow from this position (the message names the one rule)."""

    default_kind = "illegal_move"


class StaleTableError(SabordsError):
    """A table that is missing, corrupt, or made for other rules, geometry or format.

    It carries which table (`table`: ``"turn"`` or ``"game"``, the file `path`, the `card` of
    a turn table) and for which `rules`, never a command: the command line words the command
    that makes it again, a server says it has no table for these rules.
    """

    default_kind = "stale_table"

    def __init__(self, message: str, *, table: str, path: str, rules: Any,
                 card: str | None = None, reason: str = "", players: int | None = None) -> None:
        super().__init__(message, subject="tables",
                         values={"table": table, "path": path, "card": card, "reason": reason,
                                 "rules_hash": rules.hash, "target": rules.target,
                                 **({} if players is None else {"players": players})})
        self.table = table
        self.path = path
        self.rules = rules
        """The :class:`solver.rules.Rules` the table was asked for (this module imports none)."""
        self.card = card
        self.reason = reason
        self.players = players
        """The players of the game asked about, where the table refused is another game's:
        four or five players played on the table of three (:mod:`solver.game.reduced`)."""

    @property
    def missing(self) -> bool:
        """The table was never made (its file does not exist), rather than refused."""
        return self.reason == MISSING

    def about_players(self, players: int) -> StaleTableError:
        """This refusal, for a question about the game of `players` played on its table."""
        return StaleTableError(self.message, table=self.table, path=self.path,
                               rules=self.rules, card=self.card, reason=self.reason,
                               players=players)


MISSING = "no such file"
"""The reason of a :class:`StaleTableError` for a table whose file does not exist."""


class SettingsError(SabordsError):
    """A setting of a computation out of range (workers, turns, games, a seed) or an output
    that cannot be written."""

    default_kind = "settings"


class CacheWarning(UserWarning):
    """What was solved now could not be kept in the cache (a full or read-only disk): the
    answer stands, and the next run solves it again. A warning, never an error; each front
    end says it in its own way (the command line: a line on stderr), from its `path` (the
    file or directory not written) and `reason` (the system's)."""

    def __init__(self, message: str, *, path: str = "", reason: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason


__all__ = [
    "DIGITS",
    "CacheWarning",
    "QUOTE_LIMIT",
    "IllegalMoveError",
    "MISSING",
    "NUMBER_DIGITS",
    "NUMBER_PROBLEMS",
    "NotationError",
    "NumberError",
    "RulesError",
    "SabordsError",
    "SettingsError",
    "StaleTableError",
    "is_digits",
    "other_digits",
    "number_problem",
    "quote",
    "read_number",
    "shorten",
    "whole_number",
]
