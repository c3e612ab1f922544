"""Every worked example of RULES.md ("Worked examples (default variants)"), and the examples
the rulebooks themselves work out (docs/seeds/), each cited."""

from __future__ import annotations

import pytest

from solver.rules import CARDS, Rules
from solver.rules.dice import Dice
from solver.rules.scoring import (
    Outcome,
    bust_score,
    island_deduction,
    stop_score,
    turn_points,
)

from .conftest import dice

RULES = Rules()

# RULES.md, "Worked examples (default variants)": card, dice, points of the stop.
STOP_EXAMPLES = [
    # none | 4 coin, 3 sword, 1 diamond | 200 + 400 + 100 + 100 + 500 full chest = 1300
    ("none", "4 coin 3 sword 1 diamond", 1300),
    # none | 4 coin, 2 monkey, 1 parrot, 1 skull | 200 + 400 = 600
    ("none", "4 coin 2 monkey 1 parrot 1 skull", 600),
    # animals | 3 monkey, 3 parrot, 1 sword, 1 coin | 1000 (set of 6) + 100 = 1100
    ("animals", "3 monkey 3 parrot 1 sword 1 coin", 1100),
    # coin | 7 coin, 1 skull | 4000 (8 coins with the card) + 800 = 4800
    ("coin", "7 coin 1 skull", 4800),
    # coin | 8 coin | Pirate magic (as points: 8000 + 900 + 500 = 9400)
    ("coin", "8 coin", 9400),
    # captain | 3 monkey, 3 sword, 2 coin | (100 + 100 + 200 + 500) x 2 = 1800
    ("captain", "3 monkey 3 sword 2 coin", 1800),
    # battle2 | 4 monkey, 2 sword, 2 coin | 200 + 200 + 300 + 500 full chest = 1200
    ("battle2", "4 monkey 2 sword 2 coin", 1200),
    # battle3 | 2 sword, 3 parrot, 3 coin (stop) | -500
    ("battle3", "2 sword 3 parrot 3 coin", -500),
    # skull1 | 8 monkey | 4000 (the card's skull blocks the full chest)
    ("skull1", "8 monkey", 4000),
]


@pytest.mark.parametrize(("card", "text", "points"), STOP_EXAMPLES)
def test_rules_md_worked_example_stop(card: str, text: str, points: int) -> None:
    assert stop_score(CARDS[card], dice(text), RULES).points == points
    assert turn_points(CARDS[card], dice(text), RULES) == (Outcome.ALIVE, points)


def test_rules_md_worked_example_pirate_magic_flag() -> None:
    # RULES.md: coin | 8 coin | Pirate magic.
    result = stop_score(CARDS["coin"], dice("cccccccc"), RULES)
    assert result.magic and result.full_chest


def test_rules_md_worked_example_chest_bust() -> None:
    # RULES.md: chest | bust with 3 coins and 1 diamond on the chest | 100 + 300 + 100 = 500
    on_chest = Dice.parse("3 coin 1 diamond")
    assert bust_score(CARDS["chest"], on_chest, RULES) == 500
    # The same through the turn: the fatal roll left 3 skulls and a monkey beside the chest.
    assert turn_points(CARDS["chest"], dice("kkkcccdm"), RULES, chest=on_chest) == (Outcome.BUST,
                                                                                    500)


def test_rules_md_worked_example_captain_skull_island() -> None:
    # RULES.md: captain | Skull Island ending with 6 skulls | 0 for the player; each opponent
    # -1200.
    assert island_deduction(CARDS["captain"], 6) == 1200
    outcome, points = turn_points(CARDS["captain"], dice("kkkkmmpc"), RULES, first=True)
    assert (outcome, points) == (Outcome.ISLAND, 0)


# The rulebooks' own examples (docs/seeds/).
def test_seed_four_gold_coins_are_600() -> None:
    # seeds 004 (Amigo rules): "4 pièces d'or, le joueur totalise 600 points : 200 points pour
    # la combinaison de dés (4 dés identiques) + 400 points pour les 4 faces pièces d'or".
    assert stop_score(CARDS["none"], dice("cccc m p s k"), RULES).points == 600


def test_seed_full_treasure_chest_1300() -> None:
    # seeds 004: "4 pièces d'or, 3 sabres, 1 diamant vallent : 200 + 400 + 100 + 100 + 500
    # (bonus). Total : 1300 points."
    assert stop_score(CARDS["none"], dice("pièce pièce pièce pièce sabre sabre sabre diamant"),
                      RULES) == (
        stop_score(CARDS["none"], dice("ccccsssd"), RULES)
    )
    assert stop_score(CARDS["none"], dice("ccccsssd"), RULES).points == 1300


def test_seed_animals_two_parrots_three_monkeys_is_a_set_of_five() -> None:
    # seeds 004: with the Animaux card "deux perroquets et trois singes forment une combinaison
    # de 5 dés identiques, soit 500 points". Other dice: 3 swords make a set of 3 (+100).
    assert stop_score(CARDS["animals"], dice("pp mmm sss"),
                      RULES).points == 500 + 100 + 500  # full chest


def test_seed_six_identical_animals() -> None:
    # seeds 000: "si vous obtenez 3 singes et 3 perroquet, cela compte comme une combinaison de
    # 6 symboles identique" (1000); two skulls keep the full chest away.
    assert stop_score(CARDS["animals"], dice("mmm ppp kk"), RULES).points == 1000
