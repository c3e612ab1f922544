"""What a turn is worth if it ends with given dice: the answer of `sabords score`.

Pure Python and exact. It only assembles the single sources of the rules
(:func:`solver.rules.scoring.turn_points`, :func:`~solver.rules.scoring.stop_score`,
:func:`~solver.rules.scoring.island_distribution`) into one typed result; it scores nothing itself.

The dice are the turn's last 8 dice. Skull Island only follows a *first* roll (RULES.md, A turn,
step 3), so whether the dice are the first roll is an input (`first`): after a reroll, 4 or more
skulls are a bust like 3. On a first roll the Sorceress is necessarily unused, so with her card
exactly 3 skulls are a rescue position (the player must use her; stopping there is a bust).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import RulesError
from ..rational import fraction_text
from .dice import Dice, DiceNotationError
from .notes import Note
from .rulebook import NUM_DICE, Card, Rules
from .scoring import (
    Outcome,
    classify_roll,
    island_deduction,
    island_distribution,
    skulls_of,
    stop_score,
    turn_points,
)


class ChestError(RulesError):
    """Dice on the chest that this turn cannot have there."""

    def __init__(self, message: str, *, kind: str, values: dict[str, Any]) -> None:
        super().__init__(message, subject="chest", kind=kind, values=values)


@dataclass(frozen=True)
class IslandNote:
    """Skull Island after a first roll (RULES.md, Skull Island): what the opponents lose."""

    card: Card
    skull_dice: int
    """Skull dice of the first roll (the card's skulls come on top)."""
    distribution: tuple[tuple[int, Fraction], ...]
    """Exact probability of each final skull count (dice and card), in increasing order."""

    @property
    def cost_per_skull(self) -> int:
        return self.card.island_cost

    @property
    def expected_skulls(self) -> Fraction:
        return sum((p * s for s, p in self.distribution), Fraction(0))

    @property
    def expected_deduction(self) -> Fraction:
        """Expected points each opponent loses."""
        return sum((p * island_deduction(self.card, s) for s, p in self.distribution), Fraction(0))

    def as_dict(self) -> dict[str, Any]:
        return {
            "skull_dice": self.skull_dice,
            "card_skulls": self.card.skulls,
            "cost_per_skull": self.cost_per_skull,
            "expected_skulls": float(self.expected_skulls),
            "expected_deduction": float(self.expected_deduction),
            "expected_deduction_exact": fraction_text(self.expected_deduction),
            "distribution": [
                {
                    "skulls": s,
                    "probability": float(p),
                    "probability_exact": fraction_text(p),
                    "deduction": island_deduction(self.card, s),
                }
                for s, p in self.distribution
            ],
        }


@dataclass(frozen=True)
class Verdict:
    """The points of a turn that ends with `dice`, and why."""

    card: Card
    dice: Dice
    rules: Rules
    first: bool
    """The dice are the turn's first roll (Skull Island is possible, the Sorceress unused)."""
    chest: Dice | None
    """Dice on the chest (chest card only): the dice not rolled in the fatal roll."""
    outcome: Outcome
    points: int
    """Points for the player: the stop, the bust payoff, or 0 on Skull Island."""
    full_chest: bool = False
    magic: bool = False
    battle_won: bool | None = None
    """Battle cards only: whether the swords were enough."""
    island: IslandNote | None = None
    """Skull Island (outcome ISLAND): the deduction per opponent."""
    island_if_first: bool = False
    """Not marked as a first roll, but these dice would be Skull Island on a first roll."""
    rescue_if_unused: bool = False
    """Not marked as a first roll, but with the Sorceress unused this is a rescue position."""

    @property
    def skulls(self) -> int:
        """Skulls of the turn: skull dice plus skulls printed on the card."""
        return skulls_of(self.card, self.dice)

    @property
    def bust(self) -> bool:
        """The turn ends on skulls (a rescue position ended here is a bust too)."""
        return self.outcome in (Outcome.BUST, Outcome.RESCUE)

    @property
    def notes(self) -> tuple[Note, ...]:
        """What else the answer depends on (:mod:`solver.rules.notes`: a code and its data)."""
        out: list[Note] = []
        if self.outcome is Outcome.RESCUE:
            out.append(Note("rescue_ended"))
        if self.island_if_first:
            out.append(Note("island_if_first"))
        if self.rescue_if_unused:
            out.append(Note("rescue_if_unused"))
        if self.chest is not None and self.outcome is Outcome.ALIVE:
            out.append(Note("chest_on_stop"))
        return tuple(out)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the keys of `sabords score --json`."""
        return {
            "card": self.card.id,
            "dice": str(self.dice),
            "chest": None if self.chest is None else str(self.chest),
            "first": self.first,
            "outcome": "stop" if self.outcome is Outcome.ALIVE else self.outcome.value,
            "points": self.points,
            "bust": self.bust,
            "skulls": self.skulls,
            "full_chest": self.full_chest,
            "magic": self.magic,
            "battle_won": self.battle_won,
            "island": None if self.island is None else self.island.as_dict(),
            "island_if_first": self.island_if_first,
            "rescue_if_unused": self.rescue_if_unused,
            "rules": self.rules.as_dict(),
            "rules_hash": self.rules.hash,
        }


def check_chest(card: Card, dice: Dice, chest: Dice | None, *, first: bool) -> None:
    """Raise :class:`ChestError` unless `chest` can be the dice on the chest at the end."""
    if chest is None:
        return
    if not card.chest:
        raise ChestError(f"dice on the chest count only with the chest card, not {card.id!r}",
                         kind="chest_card", values={"card": card.id})
    values = {"chest": str(chest), "dice": str(dice)}
    if chest.skulls:
        raise ChestError(
            f"chest {str(chest)!r} holds skulls: skull dice are locked, only other dice "
            "go on the chest", kind="chest_skulls", values=values
        )
    if not chest <= dice:
        raise ChestError(f"chest dice {str(chest)!r} are not among the dice {str(dice)!r}",
                         kind="chest_not_among", values=values)
    if first and chest.total:
        raise ChestError(
            f"chest {str(chest)!r} on a first roll: nothing is on the chest before the first "
            "roll, so a first-roll bust keeps nothing", kind="chest_first_roll", values=values
        )


def score_turn(
    card: Card,
    dice: Dice,
    rules: Rules,
    *,
    chest: Dice | None = None,
    first: bool = False,
) -> Verdict:
    """The verdict on a turn that ends with these 8 dice (see the module docstring)."""
    if dice.total != NUM_DICE:
        raise DiceNotationError(f"{str(dice)!r} has {dice.total} dice, expected {NUM_DICE}",
                                kind="dice_count", values={"dice": str(dice),
                                                           "count": dice.total,
                                                           "expected": NUM_DICE})
    check_chest(card, dice, chest, first=first)
    outcome, points = turn_points(
        card, dice, rules, chest=chest, first=first, sorceress_unused=first
    )
    full_chest = magic = False
    battle_won: bool | None = False if card.is_battle else None
    if outcome is Outcome.ALIVE:
        stop = stop_score(card, dice, rules)
        full_chest, magic, battle_won = stop.full_chest, stop.magic, stop.battle_won
    island = None
    if outcome is Outcome.ISLAND:
        distribution = island_distribution(card, dice.skulls)
        island = IslandNote(card, dice.skulls, tuple(sorted(distribution.items())))
    island_if_first = rescue_if_unused = False
    if not first:
        island_if_first = classify_roll(card, dice, rules, first=True) is Outcome.ISLAND
        rescue_if_unused = (
            classify_roll(card, dice, rules, first=False, sorceress_unused=True) is Outcome.RESCUE
        )
    return Verdict(
        card=card,
        dice=dice,
        rules=rules,
        first=first,
        chest=chest,
        outcome=outcome,
        points=points,
        full_chest=full_chest,
        magic=magic,
        battle_won=battle_won,
        island=island,
        island_if_first=island_if_first,
        rescue_if_unused=rescue_if_unused,
    )
