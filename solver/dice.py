"""Dice as canonical multisets: a count per face, in the order k m p s c d.

`Dice.parse` is lenient (letters in any order and case, or English/French/German/Italian
words, accents optional, a count may precede a face: `4 coin, 3 sword, d`); `str(dice)` is
canonical (letters in the order k m p s c d). They are inverses.

The letters are an alphabet (:class:`Letters`): :data:`DEFAULT_LETTERS` (``k m p s c d``, ``x``
also for a sword) or :data:`BRAILLE_LETTERS`, the letters of the accessibility adaptation of
the game for blind players (`docs/seeds/004_21d4ea7dadce47ec.txt`, "Adaptation": dice marked
``d`` diamant, ``o`` pièce d'or, ``s`` singe, ``p`` perroquet, ``é`` épée, ``m`` tête de mort),
which clash with the default letters (``s``, ``p``, ``m`` are other faces there). Words are
read in either alphabet.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .errors import NotationError, quote
from .rules import FACE_LETTERS, NUM_DICE, NUM_FACES, Face


class DiceNotationError(NotationError):
    """Dice text that cannot be read, or the wrong number of dice."""

    default_kind = "dice"

    def __init__(self, message: str, *, subject: str | None = "dice", kind: str | None = None,
                 values: Mapping[str, Any] | None = None) -> None:
        super().__init__(message, subject=subject, kind=kind, values=values)


def fold(text: str) -> str:
    """Lower case without accents: `Tête` -> `tete`."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


FACE_WORDS: dict[str, Face] = {  # fmt: skip
    # English
    "skull": Face.SKULL, "skulls": Face.SKULL,
    "monkey": Face.MONKEY, "monkeys": Face.MONKEY,
    "parrot": Face.PARROT, "parrots": Face.PARROT,
    "sword": Face.SWORD, "swords": Face.SWORD, "sabre": Face.SWORD, "sabres": Face.SWORD,
    "saber": Face.SWORD, "sabers": Face.SWORD,
    "coin": Face.COIN, "coins": Face.COIN, "gold": Face.COIN,
    "diamond": Face.DIAMOND, "diamonds": Face.DIAMOND,
    # French (accents folded)
    "tete": Face.SKULL, "tetes": Face.SKULL, "tete de mort": Face.SKULL,
    "tetes de mort": Face.SKULL, "crane": Face.SKULL, "cranes": Face.SKULL,
    "singe": Face.MONKEY, "singes": Face.MONKEY,
    "perroquet": Face.PARROT, "perroquets": Face.PARROT,
    "piece": Face.COIN, "pieces": Face.COIN, "piece d'or": Face.COIN, "pieces d'or": Face.COIN,
    "diamant": Face.DIAMOND, "diamants": Face.DIAMOND,
    "epee": Face.SWORD, "epees": Face.SWORD,
    # German (accents folded: Totenköpfe -> totenkopfe, Säbel -> sabel, Goldmünze -> goldmunze)
    "totenkopf": Face.SKULL, "totenkopfe": Face.SKULL,
    "affe": Face.MONKEY, "affen": Face.MONKEY,
    "papagei": Face.PARROT, "papageien": Face.PARROT,
    "sabel": Face.SWORD, "schwert": Face.SWORD, "schwerter": Face.SWORD,
    "goldmunze": Face.COIN, "goldmunzen": Face.COIN, "munze": Face.COIN, "munzen": Face.COIN,
    "diamanten": Face.DIAMOND,
    # Italian (the fourth language of the Gigamic rulebook)
    "teschio": Face.SKULL, "teschi": Face.SKULL,
    "scimmia": Face.MONKEY, "scimmie": Face.MONKEY,
    "pappagallo": Face.PARROT, "pappagalli": Face.PARROT,
    "spada": Face.SWORD, "spade": Face.SWORD,
    "moneta": Face.COIN, "monete": Face.COIN,
    "diamante": Face.DIAMOND, "diamanti": Face.DIAMOND,
}  # fmt: skip

@dataclass(frozen=True)
class Letters:
    """An alphabet of dice letters: one letter per face to print, the letters to read."""

    name: str
    faces: str
    """The letter printed for each face, in :class:`~solver.rules.Face` order."""
    aliases: dict[str, Face]
    """Every letter read, folded (lower case, no accents: ``é`` is read as ``e``)."""
    described: str
    """The letters for a person: 'k skull, m monkey, ...'."""
    example: str
    """Eight dice in these letters."""

    def expected(self) -> str:
        """What dice text is expected, for an error message."""
        return (f"letters {self.described}, e.g. {self.example!r}, or words such as 'skull "
                "monkey' or 'tête singe', a count may precede a face: '4 coin, 3 sword, d'")


DEFAULT_LETTERS = Letters(
    name="default",
    faces=FACE_LETTERS,
    aliases={**{ch: Face(i) for i, ch in enumerate(FACE_LETTERS)}, "x": Face.SWORD},
    described="k m p s c d (skull monkey parrot sword coin diamond, x also for sword)",
    example="kkmppscd",
)
BRAILLE_LETTERS = Letters(
    name="braille",
    faces="mspéod",
    aliases={"m": Face.SKULL, "s": Face.MONKEY, "p": Face.PARROT, "e": Face.SWORD,
             "o": Face.COIN, "d": Face.DIAMOND},
    described=("m s p é o d (tête de mort, singe, perroquet, épée, pièce d'or, diamant; e also "
               "for é)"),
    example="mmsppéod",
)
"""The accessibility adaptation's letters (module docstring); ``é`` may be typed ``e``."""

LETTER_ALIASES: dict[str, Face] = DEFAULT_LETTERS.aliases
"""The default letters read (``x`` also for a sword)."""

@dataclass(frozen=True)
class Dice:
    """A multiset of dice faces: `counts[f]` dice show face `f` (order k m p s c d)."""

    counts: tuple[int, int, int, int, int, int]

    def __post_init__(self) -> None:
        counts = self.counts
        if (
            type(counts) is not tuple
            or len(counts) != NUM_FACES
            or not all(type(n) is int for n in counts)
            or min(counts) < 0
        ):
            raise DiceNotationError(f"dice counts must be 6 non-negative integers: {counts!r}")

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def of(cls, counts: Iterable[int]) -> Dice:
        return cls(tuple(map(int, counts)))  # type: ignore[arg-type]

    @classmethod
    def unchecked(cls, counts: tuple[int, ...]) -> Dice:
        """Dice of counts known to be 6 non-negative ints (the library's own arithmetic and
        enumerations), without checking them again: the advisor makes thousands a position."""
        return _made(counts)

    @classmethod
    def from_faces(cls, faces: Iterable[Face | int]) -> Dice:
        counts = [0] * NUM_FACES
        for f in faces:
            counts[int(f)] += 1
        return cls.of(counts)

    @classmethod
    def parse(cls, text: str, n: int | None = None, letters: Letters = DEFAULT_LETTERS) -> Dice:
        """Read dice written as letters (of `letters`) or words; with `n`, require exactly n."""
        dice = cls.from_faces(_parse_faces(text, letters))
        if n is not None and dice.total != n:
            raise DiceNotationError(
                f"{quote(text)} has {dice.total} dice, expected {n}"
                + (f" (one per die, e.g. {letters.example!r})" if n == NUM_DICE else ""),
                kind="dice_count", values={"dice": text, "count": dice.total, "expected": n}
            )
        return dice

    # -- queries ---------------------------------------------------------------------------

    @property
    def total(self) -> int:
        return sum(self.counts)

    @property
    def skulls(self) -> int:
        return self.counts[Face.SKULL]

    def __getitem__(self, face: Face | int) -> int:
        return self.counts[int(face)]

    def __str__(self) -> str:
        return _letters(self.counts)

    def show(self, letters: Letters = DEFAULT_LETTERS) -> str:
        """The dice in `letters`, in face order: ``str(dice)`` for the default letters."""
        return "".join(letters.faces[f] * n for f, n in enumerate(self.counts))

    def spaced(self, letters: Letters = DEFAULT_LETTERS) -> str:
        """Letters separated by spaces: 'k m p p'."""
        return " ".join(self.show(letters))

    def faces(self) -> Iterator[Face]:
        for f, n in enumerate(self.counts):
            for _ in range(n):
                yield Face(f)

    def __add__(self, other: Dice) -> Dice:
        return _made(tuple(a + b for a, b in zip(self.counts, other.counts, strict=True)))

    def __sub__(self, other: Dice) -> Dice:
        counts = tuple(a - b for a, b in zip(self.counts, other.counts, strict=True))
        if min(counts) < 0:  # `other` is not a sub-multiset
            raise DiceNotationError(f"{str(other)!r} is not among {str(self)!r}", subject=None)
        return _made(counts)

    def __le__(self, other: object) -> bool:  # sub-multiset
        if not isinstance(other, Dice):
            return NotImplemented
        return all(a <= b for a, b in zip(self.counts, other.counts, strict=True))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Dice):
            return NotImplemented
        return self <= other and self != other

    def without_skulls(self) -> Dice:
        return _made((0, *self.counts[1:]))


def _made(counts: tuple[int, ...]) -> Dice:
    """Dice from counts that are already 6 non-negative ints (the arithmetic of two valid
    dice): what ``Dice(counts)`` makes, without checking them again (the advisor's hot path)."""
    dice = object.__new__(Dice)
    object.__setattr__(dice, "counts", counts)
    return dice


@lru_cache(maxsize=4096)
def _letters(counts: tuple[int, ...]) -> str:
    """The default letters of the counts (``str(dice)``; 3003 multisets of at most 8 dice)."""
    return "".join(FACE_LETTERS[f] * n for f, n in enumerate(counts))


EMPTY = Dice((0, 0, 0, 0, 0, 0))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _parse_faces(text: str, letters: Letters = DEFAULT_LETTERS) -> list[Face]:
    folded = fold(text).replace("\u2019", "'")
    raw = folded.strip()
    # Where each character of `raw` stands in `text` (when folding kept the length).
    offset = len(folded) - len(folded.lstrip()) if len(folded) == len(text) else None
    expected = letters.expected()
    shown = quote(text)
    if not raw:
        raise DiceNotationError(f"no dice in {shown}: expected {expected}")
    negative = re.search(r"(?:^|[\s,;+/])-\s*(\d+)", raw)
    if negative:
        raise DiceNotationError(
            f"a count of dice cannot be negative: {quote('-' + negative.group(1))} in {shown}; "
            f"expected {expected}")
    tokens = [t for t in re.split(r"[\s,;+/-]+", raw) if t]
    # Multi-word names first ("tete de mort", "piece d'or").
    joined = " ".join(tokens)
    faces: list[Face] = []
    for multi in ("tetes de mort", "tete de mort", "pieces d'or", "piece d'or"):
        if multi in joined:
            joined = joined.replace(multi, multi.replace(" ", "_"))
    repeat: int | None = None  # a count before a face: "4 coin", "3 s"
    cursor = 0
    for tok in joined.split(" "):
        word = tok.replace("_", " ")
        start = raw.find(word, cursor)
        cursor = start + len(word) if start >= 0 else cursor
        if tok.isdigit():
            if repeat is not None:
                raise DiceNotationError(f"two counts in a row in {shown}: expected {expected}")
            repeat = int(tok) if len(tok) < 4 else NUM_DICE + 1
            if repeat > NUM_DICE:
                raise DiceNotationError(
                    f"count {quote(tok)} in {shown} is more than {NUM_DICE} dice: expected "
                    f"{expected}")
            continue
        if word in FACE_WORDS:
            read = [FACE_WORDS[word]]
        elif all(ch in letters.aliases for ch in word):
            read = [letters.aliases[ch] for ch in word]
        else:
            where = None if offset is None or start < 0 else offset + start
            original = word if where is None else text[where:where + len(word)]
            what = shown if word == raw else f"{quote(original)} in {shown}"
            bad = _bad_character(text, word, where, letters)
            raise DiceNotationError(f"cannot read {what}: {bad}; expected {expected}")
        if repeat is not None:
            if len(read) != 1:
                raise DiceNotationError(
                    f"a count must precede one face, not {quote(tok)}, in {shown}: expected "
                    f"{expected}")
            read *= repeat
            repeat = None
        faces.extend(read)
    if repeat is not None:
        raise DiceNotationError(f"a count with no face after it in {shown}: expected {expected}")
    return faces


def _bad_character(text: str, token: str, start: int | None, letters: Letters) -> str:
    """The first character of a token (neither a face word nor letters) that is not a die
    letter, and where it stands in the text (the token starts at `start`, if known)."""
    i, bad = next((i, ch) for i, ch in enumerate(token) if ch not in letters.aliases)
    if start is None or start + i >= len(text):
        return f"{quote(bad)} is not a die letter"
    return f"{quote(text[start + i])} (the {_ordinal(start + i + 1)} character) is not a die letter"
