"""Dice as canonical multisets: a count per face, in the order k m p s c d.

`Dice.parse` is lenient (letters in any order and case, or English/French/German/Italian
words, accents optional, a count may precede a face: `4 coin, 3 sword, d`); `str(dice)` is
canonical (letters in the order k m p s c d). They are inverses.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .rules import FACE_LETTERS, NUM_DICE, NUM_FACES, Face, RulesError


class DiceNotationError(RulesError):
    """Dice text that cannot be read, or the wrong number of dice."""


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

LETTER_ALIASES: dict[str, Face] = {ch: Face(i) for i, ch in enumerate(FACE_LETTERS)}
LETTER_ALIASES["x"] = Face.SWORD

_EXPECTED = (
    "letters k m p s c d (skull monkey parrot sword coin diamond, x also for sword), "
    "e.g. 'kkmppscd', or words such as 'skull monkey' or 'tête singe', "
    "a count may precede a face: '4 coin, 3 sword, d'"
)


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
    def from_faces(cls, faces: Iterable[Face | int]) -> Dice:
        counts = [0] * NUM_FACES
        for f in faces:
            counts[int(f)] += 1
        return cls.of(counts)

    @classmethod
    def parse(cls, text: str, n: int | None = None) -> Dice:
        """Read dice written as letters or words; with `n`, require exactly n dice."""
        dice = cls.from_faces(_parse_faces(text))
        if n is not None and dice.total != n:
            raise DiceNotationError(
                f"{text!r} has {dice.total} dice, expected {n}"
                + (" (one per die, e.g. 'kkmppscd')" if n == NUM_DICE else "")
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
        return "".join(FACE_LETTERS[f] * n for f, n in enumerate(self.counts))

    def spaced(self) -> str:
        """Letters separated by spaces: 'k m p p'."""
        return " ".join(str(self))

    def faces(self) -> Iterator[Face]:
        for f, n in enumerate(self.counts):
            for _ in range(n):
                yield Face(f)

    def __add__(self, other: Dice) -> Dice:
        return Dice.of(a + b for a, b in zip(self.counts, other.counts, strict=True))

    def __sub__(self, other: Dice) -> Dice:
        if not other <= self:
            raise DiceNotationError(f"{str(other)!r} is not among {str(self)!r}")
        return Dice.of(a - b for a, b in zip(self.counts, other.counts, strict=True))

    def __le__(self, other: object) -> bool:  # sub-multiset
        if not isinstance(other, Dice):
            return NotImplemented
        return all(a <= b for a, b in zip(self.counts, other.counts, strict=True))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Dice):
            return NotImplemented
        return self <= other and self != other

    def without_skulls(self) -> Dice:
        return Dice.of((0, *self.counts[1:]))


EMPTY = Dice((0, 0, 0, 0, 0, 0))


def _parse_faces(text: str) -> list[Face]:
    raw = fold(text).replace("\u2019", "'").strip()
    if not raw:
        raise DiceNotationError(f"no dice in {text!r}: expected {_EXPECTED}")
    tokens = [t for t in re.split(r"[\s,;+/-]+", raw) if t]
    # Multi-word names first ("tete de mort", "piece d'or").
    joined = " ".join(tokens)
    faces: list[Face] = []
    for multi in ("tetes de mort", "tete de mort", "pieces d'or", "piece d'or"):
        if multi in joined:
            joined = joined.replace(multi, multi.replace(" ", "_"))
    repeat: int | None = None  # a count before a face: "4 coin", "3 s"
    for tok in joined.split(" "):
        word = tok.replace("_", " ")
        if tok.isdigit():
            if repeat is not None:
                raise DiceNotationError(f"two counts in a row in {text!r}: expected {_EXPECTED}")
            repeat = int(tok)
            if repeat > NUM_DICE:
                raise DiceNotationError(
                    f"count {tok!r} in {text!r} is more than {NUM_DICE} dice: expected {_EXPECTED}"
                )
            continue
        if word in FACE_WORDS:
            read = [FACE_WORDS[word]]
        elif all(ch in LETTER_ALIASES for ch in word):
            read = [LETTER_ALIASES[ch] for ch in word]
        else:
            raise DiceNotationError(f"cannot read {tok!r} in {text!r}: expected {_EXPECTED}")
        if repeat is not None:
            if len(read) != 1:
                raise DiceNotationError(
                    f"a count must precede one face, not {tok!r}, in {text!r}: expected {_EXPECTED}"
                )
            read *= repeat
            repeat = None
        faces.extend(read)
    if repeat is not None:
        raise DiceNotationError(f"a count with no face after it in {text!r}: expected {_EXPECTED}")
    return faces
