"""The rules of Mille Sabords as data: faces, cards, variants and the rules object.

This module is pure Python (no numpy) and is the single source of every rule constant.
`RULES.md` (at the top of the repository) is the specification; each house rule is a field of
:class:`Rules`.

Names follow the rulebook's words: a *skull* is a "tête de mort", the *captain* card is the
"Pirate" of the French edition, the *sorceress* the "Gardienne" (Guardian), the *chest* the
"Île au Trésor" (Treasure Island).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from typing import Any, TypeVar

from ..errors import (  # noqa: F401  (NotationError, RulesError: re-exported)
    NUMBER_PROBLEMS,
    NotationError,
    RulesError,
    number_problem,
    quote,
)
from ..limits import MAX_TARGET as MAX_TARGET  # re-exported: the rules enforce it
from ..limits import target_cost_words

NUM_DICE = 8
"""Eight dice are rolled in every turn."""


class Face(IntEnum):
    """The six faces of a die, in the canonical order k m p s c d."""

    SKULL = 0
    MONKEY = 1
    PARROT = 2
    SWORD = 3
    COIN = 4
    DIAMOND = 5

    @property
    def letter(self) -> str:
        return FACE_LETTERS[self]


FACE_LETTERS = "kmpscd"
"""One letter per face, in :class:`Face` order: skull, monkey, parrot, sword, coin, diamond."""

NUM_FACES = 6


class UnknownCardError(NotationError):
    """A card name that is not one of the deck's cards."""

    default_kind = "unknown_card"


class VariantError(RulesError):
    """An unknown variant name, a value the variant does not take, or two values for one."""


@dataclass(frozen=True)
class Card:
    """A pirate card: how it changes the turn it is drawn for.

    Attributes mirror the table of RULES.md; a card is data, never a branch elsewhere.
    """

    id: str
    count: int
    """How many copies are in the 35-card deck (0 for the `none` baseline)."""
    skulls: int = 0
    """Skulls printed on the card (skull1, skull2)."""
    extra_face: Face | None = None
    """A ninth, fixed symbol the turn starts with (coin or diamond card)."""
    animals: bool = False
    """Monkeys and parrots count as one symbol."""
    doubles: bool = False
    """The captain: the turn's points are doubled, Skull Island costs 200 a skull."""
    chest: bool = False
    """The treasure chest: kept dice still score on a bust."""
    sorceress: bool = False
    """One skull die may be rerolled once per turn."""
    battle_swords: int = 0
    """Battle cards: swords needed to win the battle (0 = not a battle card)."""
    battle_bonus: int = 0
    """Battle cards: points won with enough swords, lost otherwise."""

    @property
    def is_battle(self) -> bool:
        return self.battle_swords > 0

    @property
    def island_cost(self) -> int:
        """Points each opponent loses per skull when this turn goes to Skull Island."""
        return 200 if self.doubles else 100


CARDS: dict[str, Card] = {
    c.id: c
    for c in (
        Card("none", 0),
        Card("chest", 4, chest=True),
        Card("captain", 4, doubles=True),
        Card("sorceress", 4, sorceress=True),
        Card("coin", 4, extra_face=Face.COIN),
        Card("diamond", 4, extra_face=Face.DIAMOND),
        Card("animals", 4, animals=True),
        Card("skull1", 3, skulls=1),
        Card("skull2", 2, skulls=2),
        Card("battle2", 2, battle_swords=2, battle_bonus=300),
        Card("battle3", 2, battle_swords=3, battle_bonus=500),
        Card("battle4", 2, battle_swords=4, battle_bonus=1000),
    )
}
"""The 11 cards of the deck plus `none`, in the order of RULES.md."""

CARD_IDS: tuple[str, ...] = tuple(CARDS)
DECK_SIZE = sum(c.count for c in CARDS.values())
assert DECK_SIZE == 35


def deck_weights() -> dict[str, float]:
    """The probability of drawing each card (with replacement), `none` excluded."""
    return {c.id: c.count / DECK_SIZE for c in CARDS.values() if c.count}


def get_card(card: str | Card) -> Card:
    """The card with this id (ids only; names in other languages: `solver.rules.notation`)."""
    if isinstance(card, Card):
        return card
    try:
        return CARDS[card]
    except KeyError:
        raise UnknownCardError(
            f"unknown card {quote(card)}: expected one of {', '.join(CARD_IDS)}",
            subject="card", kind="unknown_card", values={"card": _plain(card)}
        ) from None


SET_POINTS: dict[int, int] = {3: 100, 4: 200, 5: 500, 6: 1000, 7: 2000, 8: 4000}
"""Points of a set of n identical symbols (n = 9 is pirate magic, see `nine_of_a_kind`)."""
MAGIC_SET_POINTS = 8000
"""A nine-of-a-kind counted as a set wherever an objective counts points (RULES.md)."""
FULL_CHEST_BONUS = 500
SYMBOL_POINTS = 100
"""Each coin and each diamond, the card's included."""
BUST_SKULLS = 3
ISLAND_SKULLS = 4

UNIT = 100
"""Every total, every turn's points and every target are multiples of 100 (sets, coins,
diamonds, bonuses and deductions all are)."""
TIE_SHARES: dict[str, float] = {"shared": 0.5, "trigger": 0.0}
"""What a tie with the leader at the end of the game is worth, by the `ties` variant: half a
win when ties are shared, nothing when who reached the target first wins (RULES.md, End of
the game)."""

NINE_OF_A_KIND_VALUES = ("magic", "set")
TIES_VALUES = tuple(TIE_SHARES)



@dataclass(frozen=True)
class Rules:
    """Every variant of RULES.md; the defaults are the project's standard reading.

    A rules object is hashable and has a canonical serialisation (:meth:`canonical`) and a
    stable hash (:attr:`hash`) that every table and every JSON answer carries.
    """

    keep_one: bool = True
    """At least one of the 8 dice stays unrolled (off: English and German rulebooks)."""
    sorceress_rescue: bool = True
    """A roll that brings skulls to exactly 3 with the Sorceress unused is not over yet."""
    sorceress_alone: bool = True
    """The Sorceress's skull die may be rerolled alone."""
    card_skulls_block_chest: bool = True
    """Skulls printed on a skull card prevent the full chest."""
    battle_swords_fill_chest: bool = True
    """With a won battle, swords count as scoring dice for the full chest."""
    nine_of_a_kind: str = "magic"
    """`magic`: nine of a kind wins the game (8000 as a set for points); `set`: an 8-set."""
    target: int = 6000
    """Game-level: the total that ends the game."""
    ties: str = "shared"
    """Game-level: `shared` ties, or `trigger` (who reached the target first wins)."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool) and not isinstance(value, bool):
                raise VariantError(f"variant {f.name!r} takes on/off, not {quote(value)}",
                                   subject="variant", kind="variant_value",
                                   values={"variant": f.name, "value": _plain(value),
                                           "choices": ["on", "off"]})
        if self.nine_of_a_kind not in NINE_OF_A_KIND_VALUES:
            raise VariantError(
                f"variant 'nine_of_a_kind' takes magic or set, not {quote(self.nine_of_a_kind)}",
                subject="variant", kind="variant_value",
                values={"variant": "nine_of_a_kind", "value": _plain(self.nine_of_a_kind),
                        "choices": list(NINE_OF_A_KIND_VALUES)},
            )
        if self.ties not in TIES_VALUES:
            raise VariantError(f"variant 'ties' takes shared or trigger, not {quote(self.ties)}",
                               subject="variant", kind="variant_value",
                               values={"variant": "ties", "value": _plain(self.ties),
                                       "choices": list(TIES_VALUES)})
        if (
            isinstance(self.target, bool)
            or not isinstance(self.target, int)
            or self.target <= 0
            or self.target % UNIT
            or self.target > MAX_TARGET
        ):
            too_large = isinstance(self.target, int) and self.target > MAX_TARGET
            why = f" ({target_cost_words(MAX_TARGET)})" if too_large else ""
            raise VariantError(
                f"variant 'target' takes a positive multiple of {UNIT} up to {MAX_TARGET}, not "
                f"{quote(self.target)}{why}", subject="variant", kind="target_range",
                values={"variant": "target", "value": _plain(self.target),
                        "max": MAX_TARGET, "unit": UNIT}
            )

    # -- serialisation -------------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def canonical(self) -> str:
        """Canonical JSON: sorted keys, no spaces. Equal rules give equal strings."""
        return json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))

    @property
    def hash(self) -> str:
        """A stable 16-hex-digit hash of :meth:`canonical`."""
        return _hash_of(self)

    def turn_rules(self) -> Rules:
        """The same rules with the game-level variants at their defaults.

        Turn tables do not depend on `target` or `ties`, so they are keyed by this.
        """
        return dataclasses.replace(self, target=Rules.target, ties=Rules.ties)

    @property
    def turn_hash(self) -> str:
        return self.turn_rules().hash

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise VariantError(
                f"unknown variant {quote(unknown[0])}: expected one of "
                f"{', '.join(sorted(names))}", subject="variant", kind="unknown_variant",
                values={"variant": _plain(unknown[0])}
            )
        return cls(**data)

    @property
    def tie_share(self) -> float:
        """What a tie at the end of the game is worth (:data:`TIE_SHARES`)."""
        return TIE_SHARES[self.ties]

    def non_defaults(self) -> dict[str, Any]:
        """The variants that differ from the defaults."""
        default = Rules()
        return {k: v for k, v in self.as_dict().items() if getattr(default, k) != v}

    def describe(self) -> str:
        changed = self.non_defaults()
        if not changed:
            return "default rules"
        return ", ".join(f"{k}={_show(v)}" for k, v in changed.items())


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _plain(value: Any) -> Any:
    """A value as JSON carries it (a refused input may be of any type)."""
    return value if isinstance(value, bool | int | float | str) or value is None else repr(value)


_Total = TypeVar("_Total")


def floor_total(total: _Total) -> _Total:
    """A player's total after a turn: never below 0 (RULES.md, End of the game: a lost battle
    or Skull Island's deduction stops at 0). For a number or an array of numbers."""
    return total * (total > 0)  # type: ignore[operator, return-value]


VARIANT_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules))
TURN_VARIANTS: tuple[str, ...] = tuple(v for v in VARIANT_NAMES if v not in ("target", "ties"))


def parse_variant_value(name: str, text: str) -> Any:
    """The value of variant `name` written as `text` (on/off, magic/set, numbers)."""
    fields = {f.name: f for f in dataclasses.fields(Rules)}
    if name not in fields:
        raise VariantError(
            f"unknown variant {quote(name)}: expected one of {', '.join(VARIANT_NAMES)}",
            subject="variant", kind="unknown_variant", values={"variant": name},
        )
    default = getattr(Rules(), name)
    t = text.strip().lower()
    if isinstance(default, bool):
        if t in ("on", "true", "yes", "1"):
            return True
        if t in ("off", "false", "no", "0"):
            return False
        raise VariantError(f"variant {name!r} takes on or off, not {quote(text)}",
                           subject="variant", kind="variant_value",
                           values={"variant": name, "value": text, "choices": ["on", "off"]})
    if isinstance(default, int):  # a number as every input's (the form's spaces aside)
        why = number_problem(t)
        if why is not None:
            raise VariantError(
                f"variant {name!r} takes a positive multiple of {UNIT} up to {MAX_TARGET}, not "
                f"{quote(text)}, which {NUMBER_PROBLEMS[why]}", subject="variant",
                kind="target_range",
                values={"variant": name, "value": text, "max": MAX_TARGET, "unit": UNIT})
        return int(t)
    return t


@lru_cache(maxsize=256)
def _hash_of(rules: Rules) -> str:
    """:attr:`Rules.hash`, computed once per set of rules (every answer carries it)."""
    return hashlib.sha256(rules.canonical().encode()).hexdigest()[:16]


def rules_with(variants: list[str] | tuple[str, ...] | None = None) -> Rules:
    """Rules from `NAME=VALUE` strings (the `--variant` option); no strings: the defaults.

    A variant may be repeated with the same value; two different values for one variant are
    refused (:class:`VariantError`), never resolved by their order.
    """
    values: dict[str, Any] = {}
    given: dict[str, str] = {}
    for item in variants or ():
        name, sep, text = item.partition("=")
        if not sep:
            raise VariantError(
                f"variant {quote(item)} is not of the form NAME=VALUE (e.g. keep_one=off)",
                subject="variant", kind="variant_form", values={"text": item},
            )
        name = name.strip().lower().replace("-", "_")
        value = parse_variant_value(name, text)
        if name in values and values[name] != value:
            raise VariantError(
                f"variant {name!r} is given twice, as {quote(given[name].strip())} and "
                f"{quote(text.strip())}: give it once", subject="variant", kind="variant_twice",
                values={"variant": name, "first": given[name].strip(), "second": text.strip()}
            )
        values[name], given[name] = value, text
    return Rules(**values)
