"""Notes: what else an answer depends on, as a code and its data, never as a sentence.

The library answers with typed values; where an answer has a remark (the kept dice go on the
chest, these dice would be Skull Island on a first roll...), it attaches a :class:`Note`: a
code from :data:`NOTE_CODES` and the data the remark needs. A front end words each note in its
own terms: the command line names its flags (``add --first``), the web page its fields.
:func:`note_text` is the wording in the game's terms, for a front end with nothing to add.

Pure Python (every command's start-up path).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .dice import DEFAULT_LETTERS, Dice, Letters

NOTE_CODES: dict[str, str] = {
    "rescue": ("Rescue: 3 skulls with the Sorceress unused; stopping now would be a bust, so she "
               "must reroll a skull die."),
    "chest_keep": ("Chest card: put the kept dice ({keep}) on the chest; they still score if the "
                   "reroll busts."),
    "chest_ignored": "The dice on the chest only matter on a bust; they are ignored here.",
    "chest_unknown": ("With the chest card the dice on the chest (the dice not rolled in the "
                      "last roll) still score; they were not given."),
    "island_if_first": ("If these dice are the turn's first roll, this is Skull Island "
                        "instead."),
    "rescue_ended": "The turn is not over: the Sorceress must reroll a skull die.",
    "rescue_if_unused": ("If the Sorceress is still unused the turn is not over: she must "
                         "reroll a skull die."),
    "chest_on_stop": "The chest only matters on a bust: a stop scores all 8 dice.",
}
"""Every note code and its wording in the game's terms (``{name}``: a datum of the note)."""


@dataclass(frozen=True)
class Note:
    """A remark on an answer: a code of :data:`NOTE_CODES` and its data (dice, numbers)."""

    code: str
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.code not in NOTE_CODES:
            raise ValueError(f"unknown note code {self.code!r}")

    def as_dict(self, letters: Letters = DEFAULT_LETTERS) -> dict[str, Any]:
        """The JSON form: the code, the data (dice as letters) and the game-terms text."""
        data = {k: v.show(letters) if isinstance(v, Dice) else v for k, v in self.data.items()}
        return {"code": self.code, **data, "text": note_text(self, letters)}


def note_text(note: Note, letters: Letters = DEFAULT_LETTERS) -> str:
    """The note in the game's terms, dice spaced in `letters`."""
    data = {k: v.spaced(letters) if isinstance(v, Dice) else v for k, v in note.data.items()}
    return NOTE_CODES[note.code].format(**data)


__all__ = ["NOTE_CODES", "Note", "note_text"]
