"""The library's errors: one base class, a subclass per cause, each quoting its input short.

Every error a person's input can cause is a :class:`SabordsError` (a `ValueError`), raised by
the library in the game's terms; the command line (:mod:`solver.cli`) turns each into one line
on stderr and exit code 2, the web page into a 4xx answer. The hierarchy::

    SabordsError                 ValueError: the input, not a bug
    ├── NotationError            text that cannot be read: dice, card names, NAME=VALUE
    ├── RulesError               a position, a variant or a game state the rules do not allow
    ├── IllegalMoveError         a move the rules do not allow from this position
    ├── StaleTableError          a table missing, corrupt, or made for other rules or geometry
    └── SettingsError            a setting of a computation out of range (workers, turns,
                                 games, seeds), or an output that cannot be written

Modules refine them where a caller may care (:class:`solver.dice.DiceNotationError`,
:class:`solver.rules.VariantError`, :class:`solver.game.GameError`...).

Each error carries, besides its message, a ``subject``: the input it is about, in the game's
words (``"need"``, ``"me"``, ``"opp"``, ``"chest"``, ``"jobs"``, ``"target"``...). The message
never names a command-line flag; the command line names its own flag from the subject.

Inputs are quoted with :func:`quote`, shortened to about :data:`QUOTE_LIMIT` characters, so
that a 100 000-character input makes a short message.

Pure Python, no imports beyond the standard library (every command's start-up path).
"""

from __future__ import annotations

from typing import Any

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


class SabordsError(ValueError):
    """Base class of every error that is the user's input (the CLI: one line, exit code 2).

    `subject` names the input the error is about in the game's words (``"need"``, ``"dice"``,
    ``"jobs"``...), so that a front end can point at its own field or flag.
    """

    def __init__(self, message: str, *, subject: str | None = None) -> None:
        super().__init__(message)
        self.subject = subject

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class NotationError(SabordsError):
    """Text that cannot be read: dice, a card name, a ``NAME=VALUE`` variant."""


class RulesError(SabordsError):
    """A position, a variant or a game state that the rules do not allow."""


class IllegalMoveError(SabordsError):
    """A move the rules do not allow from this position (the message names the one rule)."""


class StaleTableError(SabordsError):
    """A table that is missing, corrupt, or made for other rules, geometry or format.

    The message names the file and the command that makes it again.
    """


class SettingsError(SabordsError):
    """A setting of a computation out of range (workers, turns, games, a seed) or an output
    that cannot be written."""


__all__ = [
    "QUOTE_LIMIT",
    "IllegalMoveError",
    "NotationError",
    "RulesError",
    "SabordsError",
    "SettingsError",
    "StaleTableError",
    "quote",
    "shorten",
]
