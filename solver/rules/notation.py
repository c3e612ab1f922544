"""Notation used by every command: card names and dice, read leniently.

Cards are named by the ids of RULES.md (`none`, `chest`, `captain`, `sorceress`, `coin`,
`diamond`, `animals`, `skull1`, `skull2`, `battle2`, `battle3`, `battle4`) or by the names the
rulebooks give them (`docs/seeds/`), in English, French, German (and Italian, the fourth
language of the Gigamic rulebook), case- and accent-insensitive:

- `pirate`, `capitaine`, `Pirat`, `Kapitän` → captain (the French card "Pirate");
- `gardienne`, `guardian`, `Wächter(in)`, `witch`, `Hexe` → sorceress;
- `coffre`, `île au trésor`, `treasure island`, `Schatzinsel` → chest;
- `pièce d'or`, `gold coin`, `Goldmünze` → coin; `diamant` → diamond;
- `animaux`, `Tiere`, `monkey business` → animals;
- `tête de mort`, `skull`, `Totenkopf` with 1 or 2 (`tete2`, `2 têtes de mort`, `deux têtes de
  mort`); without a number a singular name is skull1 and a plural one skull2 (the French
  cards are "Tête de mort" and "Têtes de mort");
- `bateau pirate`, `battle`, `pirate ship`, `Piratenschiff` with the swords (2, 3, 4) or the
  bonus (300, 500, 1000), or the bonus alone: `bateau3`, `bateau pirate 3 sabres / 500`,
  `ship 1000`, `500`;
- `none`, `aucune`, `keine`, `no card` → none.

A name is read as words: every word must belong to one card's vocabulary (so `skull island`,
which is not a card, is refused rather than guessed).

**Notations.** A :class:`Notation` is the letters a player types and reads: :data:`DEFAULT`
(dice ``k m p s c d``, cards by id or name) or :data:`BRAILLE`, the accessibility adaptation
for blind players (`docs/seeds/004_21d4ea7dadce47ec.txt`, "Adaptation"): dice ``m s p é o d``
(:data:`solver.rules.dice.BRAILLE_LETTERS`) and cards by one letter, ``p`` pirate (captain), ``t``
treasure island (chest), ``m`` with the count of skulls (``m1``, ``m2``), ``b`` with the swords
or the bonus (``b2``, ``b 3``, ``b 1000``), ``g`` gardienne (sorceress), ``o`` pièce d'or
(coin), ``d`` diamant, ``a`` or ``p s`` animaux (animals). Names and words are read in both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import NotationError, quote
from .dice import BRAILLE_LETTERS, DEFAULT_LETTERS, Dice, Letters, fold
from .rulebook import CARD_IDS, CARDS, NUM_DICE, Card, UnknownCardError


@dataclass(frozen=True)
class _Names:
    """The words that name one card, or a family of cards told apart by a number."""

    heads: frozenset[str]
    """At least one of these words must appear."""
    modifiers: frozenset[str] = frozenset()
    """Words that may accompany a head word."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CARD_NAMES: dict[str, _Names] = {
    "none": _Names(_words("none no aucune aucun sans keine kein nessuna nothing rien nichts")),
    "chest": _Names(
        _words("chest coffre tresor treasure schatzinsel schatzkiste schatztruhe tesoro scrigno"),
        _words("island ile insel isola open ouvert offen"),
    ),
    "captain": _Names(_words("captain capitaine pirate pirat pirata kapitan capitano")),
    "sorceress": _Names(
        _words(
            "sorceress guardian gardienne gardien sorciere witch wachterin wachter hexe "
            "guardiano guardiana strega"
        )
    ),
    "coin": _Names(
        _words("coin coins piece pieces goldmunze munze moneta gold"),
        _words("or oro gold"),
    ),
    "diamond": _Names(_words("diamond diamonds diamant diamants diamante")),
    "animals": _Names(
        _words("animals animal animaux tiere tier animali business"),
        _words(
            "monkey monkeys parrot parrots singe singes perroquet perroquets affe affen "
            "papagei papageien"
        ),
    ),
}
"""Cards named by words alone."""

_SKULL_SINGULAR = _words("skull tete crane totenkopf teschio")
_SKULL_PLURAL = _words("skulls tetes cranes totenkopfe teschi")
_SKULL_NAMES = _Names(_SKULL_SINGULAR | _SKULL_PLURAL, _words("mort death"))
_BATTLE_NAMES = _Names(
    _words(
        "battle bataille combat ship bateau boat piratenschiff schiff nave galleon "
        "sabre sabres sword swords schwert schwerter sabel epee epees spada spade"
    ),
    _words("pirate pirates pirat piraten pirata bonus points pts punkte"),
)

_STOPWORDS = _words(
    "the a an of card cards carte cartes karte karten with avec mit and et und "
    "de du des la le les l d au aux der die das dem den il di "
    "one un une ein eine uno una"
)
# Articles and "one" are ignored ("une tête de mort" is skull1 by its singular noun); "or" is
# the French word for gold ("pièce d'or"), so it is not a stop word.

_NUMBER_WORDS: dict[str, int] = {
    "two": 2, "deux": 2, "zwei": 2, "due": 2,
    "three": 3, "trois": 3, "drei": 3, "tre": 3,
    "four": 4, "quatre": 4, "vier": 4, "quattro": 4,
}  # fmt: skip

_SKULL_CARDS: dict[int, str] = {c.skulls: c.id for c in CARDS.values() if c.skulls}
_BATTLE_BY_SWORDS: dict[int, str] = {c.battle_swords: c.id for c in CARDS.values() if c.is_battle}
_BATTLE_BY_BONUS: dict[int, str] = {c.battle_bonus: c.id for c in CARDS.values() if c.is_battle}

_TOO_BIG = 10**9
"""A number too long to name a card (read as this, never as its digits)."""

_EXAMPLES = "'pirate', 'gardienne', 'coffre', 'bateau3', '500', 'tete2', 'animaux'"


def _expected() -> str:
    return f"expected one of {', '.join(CARD_IDS)} or a rulebook name such as {_EXAMPLES}"


def _unknown(text: str, why: str = "unknown card") -> UnknownCardError:
    return UnknownCardError(f"{why} {quote(text)}: {_expected()}", subject="card",
                            values={"card": text})


def parse_card(text: str | Card) -> Card:
    """The card named by `text`: an id of RULES.md or a rulebook name (see module docstring).

    Raises :class:`UnknownCardError` (a `ValueError`) with the input quoted and the ids listed.
    """
    if isinstance(text, Card):  # already a card: idempotent
        return text
    folded = fold(text).replace("\u2019", "'")
    compact = re.sub(r"[^a-z0-9]", "", folded)
    if compact in CARDS:
        return CARDS[compact]
    tokens = re.findall(r"[a-z]+|[0-9]+", folded)
    numbers = [int(t) if len(t) < 7 else _TOO_BIG for t in tokens if t.isdigit()]
    words = [t for t in tokens if not t.isdigit()]
    numbers += [_NUMBER_WORDS[w] for w in words if w in _NUMBER_WORDS]
    words = [w for w in words if w not in _NUMBER_WORDS and w not in _STOPWORDS]
    if not words and not numbers:
        raise _unknown(text, "no card in")
    present = set(words)

    def named_by(names: _Names) -> bool:
        return bool(present & names.heads) and present <= names.heads | names.modifiers

    if not words:  # a number alone names a battle card by its bonus: "500"
        if len(numbers) == 1 and numbers[0] in _BATTLE_BY_BONUS:
            return CARDS[_BATTLE_BY_BONUS[numbers[0]]]
        raise _unknown(text)
    if named_by(_BATTLE_NAMES):
        return _battle(text, numbers)
    if named_by(_SKULL_NAMES):
        return _skull(text, numbers, plural=bool(present & _SKULL_PLURAL))
    matches = [card_id for card_id, names in _CARD_NAMES.items() if named_by(names)]
    if len(matches) != 1 or numbers:
        raise _unknown(text)
    return CARDS[matches[0]]


def _battle(text: str, numbers: list[int]) -> Card:
    """A battle card from its swords (2, 3, 4) and/or its bonus (300, 500, 1000)."""
    ids: set[str] = set()
    for n in numbers:
        card_id = _BATTLE_BY_SWORDS.get(n) or _BATTLE_BY_BONUS.get(n)
        if card_id is None:
            many = "that many" if n == _TOO_BIG else str(n)
            raise UnknownCardError(
                f"no battle card has {many} swords or bonus in {quote(text)}: {_BATTLES}",
                subject="card", values={"card": text},
            )
        ids.add(card_id)
    if len(ids) != 1:
        problem = "gives no swords or bonus" if not ids else "has conflicting numbers"
        raise UnknownCardError(f"battle card {quote(text)} {problem}: {_BATTLES}",
                               subject="card", values={"card": text})
    return CARDS[ids.pop()]


_BATTLES = (
    f"expected one of {', '.join(_BATTLE_BY_SWORDS.values())}, named by the swords "
    f"({', '.join(map(str, _BATTLE_BY_SWORDS))}) or the bonus "
    f"({', '.join(map(str, _BATTLE_BY_BONUS))}), e.g. 'bateau3', 'battle 3', '500'"
)


def _skull(text: str, numbers: list[int], *, plural: bool) -> Card:
    """A skull card from its number of skulls (1 or 2); without one, plural names mean 2."""
    if not numbers:
        numbers = [max(_SKULL_CARDS) if plural else min(_SKULL_CARDS)]
    if len(set(numbers)) != 1 or numbers[0] not in _SKULL_CARDS:
        which = ", ".join(_SKULL_CARDS.values())
        raise UnknownCardError(
            f"no skull card matches {quote(text)}: expected one of {which}, e.g. 'tete2', "
            "'skull 1'", subject="card", values={"card": text}
        )
    return CARDS[_SKULL_CARDS[numbers[0]]]


def parse_dice(text: str, n: int | None = NUM_DICE, letters: Letters = DEFAULT_LETTERS) -> Dice:
    """Dice in the lenient notation of :meth:`Dice.parse`; by default exactly 8 of them."""
    return Dice.parse(text, n, letters)


# -- notations: what a player types and reads ---------------------------------------------------

_BRAILLE_CARDS: dict[str, str] = {
    "p": "captain", "t": "chest", "g": "sorceress", "o": "coin", "d": "diamond",
    "a": "animals", "ps": "animals", "sp": "animals",
}  # fmt: skip
"""The one-letter cards of the adaptation; skull (``m``) and battle (``b``) cards take a number."""
_BRAILLE_LIST = ("p (captain), t (chest), g (sorceress), o (coin), d (diamond), a (animals), "
                 "m1, m2 (skulls), b2, b3, b4 (battles)")
"""Every card in the adaptation's letters, as an error lists them."""


@dataclass(frozen=True)
class Notation:
    """The letters of dice and cards a player types and reads (module docstring)."""

    name: str
    letters: Letters
    """The dice letters."""
    card_letters: bool
    """Cards are also read and shown by the adaptation's letters (``p``, ``m2``, ``b3``...)."""

    def parse_dice(self, text: str, n: int | None = NUM_DICE) -> Dice:
        return Dice.parse(text, n, self.letters)

    def dice(self, dice: Dice) -> str:
        """The dice in these letters (face order)."""
        return dice.show(self.letters)

    def spaced(self, dice: Dice) -> str:
        return dice.spaced(self.letters)

    def listed(self, dice: Dice) -> str:
        """The dice in a table's row, a move or a message: spaced in letters read aloud
        (:attr:`~solver.rules.dice.Letters.spaced`, the adaptation's), compact otherwise."""
        return dice.listed(self.letters)

    def parse_card(self, text: str | Card) -> Card:
        if not self.card_letters or not isinstance(text, str):
            return parse_card(text)
        try:
            card = _braille_card(text)
            return card if card is not None else parse_card(text)
        except UnknownCardError as exc:  # the adaptation's letters named too, not only names
            raise UnknownCardError(f"{exc.message}; or the adaptation's letters: "
                                   f"{_BRAILLE_LIST}", subject="card",
                                   kind=exc.kind, values=exc.values) from None

    def card(self, card: Card) -> str:
        """The card as a player of this notation names it: its id, or its letter and id."""
        letter = braille_card_name(card)
        return card.id if not self.card_letters or letter == card.id else f"{letter} ({card.id})"


def braille_card_name(card: Card) -> str:
    """The adaptation's letter of a card: ``p``, ``t``, ``m1``, ``b3``...; ``none`` has none."""
    if card.skulls:
        return f"m{card.skulls}"
    if card.is_battle:
        return f"b{card.battle_swords}"
    for letter, card_id in _BRAILLE_CARDS.items():
        if card_id == card.id:
            return letter
    return card.id


def _braille_card(text: str) -> Card | None:
    """The card of an adaptation letter (``p``, ``m2``, ``b 3 500``...), or None if `text` is
    not written that way (it is then read as a name)."""
    folded = fold(text).strip()
    compact = re.sub(r"[\s,;/-]+", "", folded)
    if compact in _BRAILLE_CARDS:
        return CARDS[_BRAILLE_CARDS[compact]]
    m = re.fullmatch(r"([mb])((?:[\s,;/-]*[0-9]+)*)", folded)
    if m is None:
        return None
    numbers = [int(x) if len(x) < 7 else _TOO_BIG for x in re.findall(r"[0-9]+", m.group(2))]
    if m.group(1) == "b":
        return _battle(text, numbers)
    if not numbers:
        raise UnknownCardError(
            f"skull card {quote(text)} without its skulls: write m1 or m2 (the count on the card)",
            subject="card", values={"card": text},
        )
    return _skull(text, numbers, plural=False)


DEFAULT = Notation("default", DEFAULT_LETTERS, card_letters=False)
BRAILLE = Notation("braille", BRAILLE_LETTERS, card_letters=True)
NOTATIONS: dict[str, Notation] = {n.name: n for n in (DEFAULT, BRAILLE)}


def get_notation(name: str) -> Notation:
    """The notation called `name` (``default`` or ``braille``), or :class:`NotationError`."""
    try:
        return NOTATIONS[name.strip().lower()]
    except KeyError:
        raise NotationError(f"unknown notation {quote(name)}: expected one of "
                            f"{', '.join(NOTATIONS)}", subject="notation",
                            kind="unknown_notation", values={"notation": name}) from None


__all__ = [
    "BRAILLE",
    "DEFAULT",
    "NOTATIONS",
    "Notation",
    "braille_card_name",
    "get_notation",
    "parse_card",
    "parse_dice",
]
