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

from ..errors import NotationError, is_digits, other_digits, quote
from .rulebook import FACE_LETTERS, NUM_DICE, NUM_FACES, Face


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
    "coin": Face.COIN, "coins": Face.COIN, "gold": Face.COIN, "gold coin": Face.COIN,
    "gold coins": Face.COIN,
    "diamond": Face.DIAMOND, "diamonds": Face.DIAMOND,
    # French (accents folded; the apostrophe of "pièce d'or" separates words)
    "tete": Face.SKULL, "tetes": Face.SKULL, "tete de mort": Face.SKULL,
    "tetes de mort": Face.SKULL, "crane": Face.SKULL, "cranes": Face.SKULL,
    "singe": Face.MONKEY, "singes": Face.MONKEY,
    "perroquet": Face.PARROT, "perroquets": Face.PARROT,
    "piece": Face.COIN, "pieces": Face.COIN, "piece d or": Face.COIN, "pieces d or": Face.COIN,
    "diamant": Face.DIAMOND, "diamants": Face.DIAMOND,
    "epee": Face.SWORD, "epees": Face.SWORD,
    # German (accents folded: Totenköpfe -> totenkopfe, Säbel -> sabel, Goldmünze -> goldmunze)
    "totenkopf": Face.SKULL, "totenkopfe": Face.SKULL, "totenkopfen": Face.SKULL,
    "affe": Face.MONKEY, "affen": Face.MONKEY,
    "papagei": Face.PARROT, "papageien": Face.PARROT,
    "sabel": Face.SWORD, "schwert": Face.SWORD, "schwerter": Face.SWORD,
    "goldmunze": Face.COIN, "goldmunzen": Face.COIN, "munze": Face.COIN, "munzen": Face.COIN,
    "diamanten": Face.DIAMOND,
    # Italian (the fourth language of the Gigamic rulebook: "moneta d'oro")
    "teschio": Face.SKULL, "teschi": Face.SKULL,
    "scimmia": Face.MONKEY, "scimmie": Face.MONKEY,
    "pappagallo": Face.PARROT, "pappagalli": Face.PARROT,
    "spada": Face.SWORD, "spade": Face.SWORD,
    "moneta": Face.COIN, "monete": Face.COIN, "moneta d oro": Face.COIN,
    "monete d oro": Face.COIN,
    "diamante": Face.DIAMOND, "diamanti": Face.DIAMOND,
}  # fmt: skip
"""Every name of a face, folded (lower case, no accents), its words separated by one space.
A name of several words (``gold coin``, ``tete de mort``, ``piece d or``) is one die."""

COUNT_WORDS: dict[str, int] = {  # fmt: skip
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8,
    "ein": 1, "eine": 1, "zwei": 2, "drei": 3, "vier": 4, "funf": 5, "sechs": 6, "sieben": 7,
    "acht": 8,
    "uno": 1, "una": 1, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6, "sette": 7,
    "otto": 8,
}  # fmt: skip
"""Counts written as words (``three monkeys``, ``deux têtes de mort``); none of them is made of
dice letters only, in either alphabet."""

_LONGEST_NAME = max(len(name.split()) for name in FACE_WORDS)


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
    spaced: bool = False
    """Dice in tables, moves and messages printed spaced (``p p o o``): the adaptation's
    players hear them read aloud, and a screen reader reads ``sé`` as a word, ``s é`` letter by
    letter (:meth:`Dice.listed`)."""

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
    spaced=True,
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

    def listed(self, letters: Letters = DEFAULT_LETTERS) -> str:
        """The dice in a message: spaced in letters read aloud (:attr:`Letters.spaced`),
        compact otherwise."""
        return self.spaced(letters) if letters.spaced else self.show(letters)

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


_WORD = re.compile(r"[0-9]+(?:[x×*](?=[\s,;:+/'\-]|$))?|[×*]|[^\s0-9,;:+/'\-×*]+")
"""A word of dice text: a count (``4``, or ``4x``: ``4x coin`` is 4 coins, not 4 swords and a
coin; ``4 x`` is 4 swords), a multiplication sign (``4 × coin``), or a run of anything but
separators, digits and signs (``4coin`` is a count and a face)."""
_TIMES = "x×*"
_BETWEEN_DICE = re.compile(r"[,;:+/]")
"""Separators that end a name: ``gold, coin`` is two dice, ``gold coin`` one."""


def _words_of(folded: str) -> list[tuple[int, str]]:
    """The words of folded dice text with where each starts, a name of several words
    (:data:`FACE_WORDS`: ``tete de mort``) joined into one, the longest name first."""
    found = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(folded)]
    words: list[tuple[int, str]] = []
    i = 0
    while i < len(found):
        for n in range(min(_LONGEST_NAME, len(found) - i), 1, -1):
            run = found[i:i + n]
            joined = " ".join(w for _, _, w in run)
            apart = any(_BETWEEN_DICE.search(folded[a[1]:b[0]])
                        for a, b in zip(run, run[1:], strict=False))
            if joined in FACE_WORDS and not apart:
                words.append((run[0][0], joined))
                i += n
                break
        else:
            words.append((found[i][0], found[i][2]))
            i += 1
    return words


def _parse_faces(text: str, letters: Letters = DEFAULT_LETTERS) -> list[Face]:
    folded = fold(text).replace("\u2019", "'")
    aligned = len(folded) == len(text)  # each character of `folded` stands where it was
    expected = letters.expected()
    shown = quote(text)
    if not folded.strip():
        raise DiceNotationError(f"no dice in {shown}: expected {expected}")
    negative = re.search(r"(?:^|[\s,;:+/])-\s*([0-9]+)", folded)
    if negative:
        raise DiceNotationError(
            f"a count of dice cannot be negative: {quote('-' + negative.group(1))} in {shown}; "
            f"expected {expected}")
    words = _words_of(folded)
    if not words:
        raise DiceNotationError(f"no dice in {shown}: expected {expected}")
    faces: list[Face] = []
    repeat: int | None = None  # a count before a face: "4 coin", "3 s", "trois singes"
    for start, word in words:
        if word in _TIMES[1:]:  # a multiplication sign: only after a count ("4 × coin")
            if repeat is None:
                raise DiceNotationError(f"{quote(word)} in {shown} must follow a count: "
                                        f"expected {expected}")
            continue
        if word[-1] in _TIMES and is_digits(word[:-1]):  # "4x coin": a count
            word = word[:-1]
        if other_digits(word):  # "፰ coin": digits int() may not read, and no die letters
            raise DiceNotationError(f"count {quote(word)} in {shown} is not written with the "
                                    f"digits 0-9: expected {expected}")
        count = int(word) if is_digits(word) and len(word) < 4 else COUNT_WORDS.get(word)
        if is_digits(word) or count is not None:
            if repeat is not None:
                raise DiceNotationError(f"two counts in a row in {shown}: expected {expected}")
            repeat = NUM_DICE + 1 if count is None else count
            if repeat > NUM_DICE:
                raise DiceNotationError(
                    f"count {quote(word)} in {shown} is more than {NUM_DICE} dice: expected "
                    f"{expected}", kind="count_over",
                    values={"dice": text, "count": word, "most": NUM_DICE})
            continue
        if word in FACE_WORDS:
            read = [FACE_WORDS[word]]
        elif all(ch in letters.aliases for ch in word):
            read = [letters.aliases[ch] for ch in word]
        else:
            where = start if aligned else None
            original = word if where is None else text[where:where + len(word)]
            message, values = _unreadable(text, original, word, where, letters)
            raise DiceNotationError(message, values=values)
        if repeat is not None:
            if len(read) != 1:
                raise DiceNotationError(
                    f"a count must precede one face, not {quote(word)}, in {shown}: expected "
                    f"{expected}")
            read *= repeat
            repeat = None
        faces.extend(read)
    if repeat is not None:
        raise DiceNotationError(f"a count with no face after it in {shown}: expected {expected}")
    return faces


def _unreadable(text: str, original: str, word: str, start: int | None,
                letters: Letters) -> tuple[str, dict[str, Any]]:
    """Why a word is neither a face's name nor dice letters: an unknown word (mostly not dice
    letters, or close to a name: ``sciabola``, ``monkeyz``), else the first character that is
    not a die letter and where it stands in the text (``kkmppscz``); and the error's values
    (``word`` and its ``guess``, or ``character`` and its ``position``, 1 the first, for a
    front end's own words)."""
    import difflib

    shown = quote(text)
    where = "" if original.strip() == text.strip() else f" in {shown}"
    expected = letters.expected()
    singles = [name for name in FACE_WORDS if " " not in name]
    close = difflib.get_close_matches(word, singles, n=1, cutoff=0.75)
    dice_letters = sum(ch in letters.aliases for ch in word)
    if close or (len(word) >= 3 and 2 * dice_letters < len(word)):
        guess = f" (did you mean {close[0]!r}?)" if close else ""
        return (f"unknown word {quote(original)}{guess}{where}: expected {expected}",
                {"dice": text, "word": original, "guess": close[0] if close else None})
    i, bad = next((i, ch) for i, ch in enumerate(word) if ch not in letters.aliases)
    what = shown if not where else f"{quote(original)}{where}"
    if start is None or start + i >= len(text):
        return (f"cannot read {what}: {quote(bad)} is not a die letter; expected {expected}",
                {"dice": text, "character": bad, "position": None})
    return (f"cannot read {what}: {quote(text[start + i])} (the {_ordinal(start + i + 1)} "
            f"character) is not a die letter; expected {expected}",
            {"dice": text, "character": text[start + i], "position": start + i + 1})
