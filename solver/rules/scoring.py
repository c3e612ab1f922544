"""Scoring: the points of a stop, the payoff of a bust, Skull Island, pirate magic.

Pure Python, exact: every function here is the single source of its rule (RULES.md,
"Scoring a stop", "Bust", "Skull Island"); the numeric engine tabulates them, never copies them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from functools import cache

from .dice import Dice
from .rulebook import (
    BUST_SKULLS,
    FULL_CHEST_BONUS,
    ISLAND_SKULLS,
    MAGIC_SET_POINTS,
    NUM_DICE,
    SET_POINTS,
    SYMBOL_POINTS,
    Card,
    Face,
    Rules,
)


class Outcome(Enum):
    """What a roll leaves: a position to play on, or the end of the turn."""

    ALIVE = "alive"
    RESCUE = "rescue"
    """Exactly 3 skulls with the Sorceress unused: the next move must use her."""
    BUST = "bust"
    ISLAND = "island"


@dataclass(frozen=True)
class StopScore:
    """The points of a turn that ends with these dice, and why."""

    points: int
    full_chest: bool = False
    magic: bool = False
    """Nine of a kind (coin or diamond with its card): pirate magic."""
    battle_won: bool | None = None
    """Battle cards only: whether the swords were enough."""


def skulls_of(card: Card, dice: Dice) -> int:
    """Skulls of the turn: skull dice plus skulls printed on the card."""
    return dice.skulls + card.skulls


def _symbol_counts(card: Card, dice: Dice) -> list[int]:
    """Symbol counts for sets, indexed by Face (the skull slot is 0): the card's ninth
    symbol added, animals merged into monkeys (the parrot slot is then 0)."""
    counts = list(dice.counts)
    counts[Face.SKULL] = 0
    if card.extra_face is not None:
        counts[card.extra_face] += 1
    if card.animals:
        counts[Face.MONKEY] += counts[Face.PARROT]
        counts[Face.PARROT] = 0
    return counts


def _set_points(n: int, rules: Rules) -> int:
    if n >= 9:
        return MAGIC_SET_POINTS if rules.nine_of_a_kind == "magic" else SET_POINTS[NUM_DICE]
    return SET_POINTS.get(n, 0)


def dice_points(card: Card, dice: Dice, rules: Rules) -> tuple[int, bool]:
    """Sets plus 100 per coin and diamond (the card's included); and whether it is magic.

    Pirate magic (nine of a kind) only exists under `nine_of_a_kind=magic`; under `set` a
    nine of a kind is an ordinary 8-set and wins nothing.
    """
    counts = _symbol_counts(card, dice)
    points = sum(_set_points(n, rules) for n in counts if n >= 3)
    points += SYMBOL_POINTS * (counts[Face.COIN] + counts[Face.DIAMOND])
    magic = rules.nine_of_a_kind == "magic" and max(counts) >= 9
    return points, magic


def is_full_chest(card: Card, dice: Dice, rules: Rules, battle_won: bool = False) -> bool:
    """Every one of the dice scores and the turn has no skull (RULES.md, Full chest)."""
    if dice.skulls:
        return False
    if card.skulls and rules.card_skulls_block_chest:
        return False
    counts = _symbol_counts(card, dice)
    for face in (Face.MONKEY, Face.PARROT, Face.SWORD):  # coins and diamonds always score
        if not dice.counts[face]:
            continue
        if face == Face.SWORD and battle_won and rules.battle_swords_fill_chest:
            continue
        symbol = Face.MONKEY if (card.animals and face == Face.PARROT) else face
        if counts[symbol] < 3:
            return False
    return True


def stop_score(card: Card, dice: Dice, rules: Rules) -> StopScore:
    """Points of a turn that stops alive with these 8 dice (RULES.md, Scoring a stop)."""
    if card.is_battle:
        won = dice[Face.SWORD] >= card.battle_swords
        if not won:
            return StopScore(-card.battle_bonus, battle_won=False)
        points, magic = dice_points(card, dice, rules)
        full = is_full_chest(card, dice, rules, battle_won=True)
        points += card.battle_bonus + (FULL_CHEST_BONUS if full else 0)
        return StopScore(points, full, magic, battle_won=True)
    points, magic = dice_points(card, dice, rules)
    full = is_full_chest(card, dice, rules)
    if full:
        points += FULL_CHEST_BONUS
    if card.doubles:
        points *= 2
    return StopScore(points, full, magic)


def bust_score(card: Card, chest: Dice | None, rules: Rules) -> int:
    """Points of a bust: minus the bonus for a battle, the chest's dice for the chest card.

    `chest` is the dice not rolled in the fatal roll (the chest card keeps them all on the
    chest, which is never worse); `None` or empty on a first-roll bust.
    """
    if card.is_battle:
        return -card.battle_bonus
    if card.chest and chest is not None:
        points, _ = dice_points(card, chest.without_skulls(), rules)
        return points
    return 0


def classify_roll(card: Card, dice: Dice, rules: Rules, *, first: bool,
                  sorceress_unused: bool = False) -> Outcome:
    """What a roll's 8 dice leave (RULES.md, A turn, steps 3-4, and Sorceress)."""
    skulls = skulls_of(card, dice)
    if first and skulls >= ISLAND_SKULLS and not card.is_battle:
        return Outcome.ISLAND
    if skulls < BUST_SKULLS:
        return Outcome.ALIVE
    if (skulls == BUST_SKULLS and card.sorceress and sorceress_unused
            and rules.sorceress_rescue):
        return Outcome.RESCUE
    return Outcome.BUST


def island_continues(free: int, added: int | None = None) -> bool:
    """Whether Skull Island rolls (again) with `free` non-skull dice left after a roll that
    added `added` skulls (None: the first roll, which brought the island): it goes on while
    each roll adds at least one skull and at least 2 non-skull dice remain (RULES.md, Skull
    Island)."""
    return (added is None or added >= 1) and free >= 2


@cache
def _island_rest(skulls: int, free: int) -> tuple[tuple[int, Fraction], ...]:
    """Final skull counts from `skulls` skulls with `free` non-skull dice about to roll."""
    out: dict[int, Fraction] = {}
    for j in range(free + 1):
        p = _binom(free, j) * Fraction(1, 6) ** j * Fraction(5, 6) ** (free - j)
        if not island_continues(free - j, j):
            out[skulls + j] = out.get(skulls + j, Fraction(0)) + p
            continue
        for final, q in _island_rest(skulls + j, free - j):
            out[final] = out.get(final, Fraction(0)) + p * q
    return tuple(sorted(out.items()))


def _binom(n: int, k: int) -> int:
    from math import comb

    return comb(n, k)


def island_distribution(
    card: Card, skull_dice: int, n_dice: int = NUM_DICE
) -> dict[int, Fraction]:
    """Exact distribution of the final skull count (dice and card) on Skull Island.

    The island starts after a first roll with `skull_dice` skull dice; all non-skull dice are
    rolled again while each roll adds a skull and at least 2 non-skull dice remain.
    """
    skulls, free = skull_dice + card.skulls, n_dice - skull_dice
    if not island_continues(free):
        return {skulls: Fraction(1)}
    return dict(_island_rest(skulls, free))


def island_deduction(card: Card, skulls: int) -> int:
    """Points each opponent loses for a Skull Island ending with `skulls` skulls."""
    return card.island_cost * skulls


def turn_points(card: Card, dice: Dice, rules: Rules, *, chest: Dice | None = None,
                first: bool = False, sorceress_unused: bool = False) -> tuple[Outcome, int]:
    """The outcome of ending a turn with these 8 dice and its points for the player.

    A stop when the dice are alive; the bust payoff at 3+ skulls (with `chest` the dice on the
    chest for the chest card); 0 for Skull Island; a rescue position scores as a bust if the
    player stops there.
    """
    outcome = classify_roll(card, dice, rules, first=first, sorceress_unused=sorceress_unused)
    if outcome is Outcome.ALIVE:
        return outcome, stop_score(card, dice, rules).points
    if outcome is Outcome.ISLAND:
        return outcome, 0
    return outcome, bust_score(card, chest, rules)
