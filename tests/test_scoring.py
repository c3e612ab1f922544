"""Scoring of a stop, bust payoffs, pirate magic and Skull Island (RULES.md, "Scoring a stop",
"Bust", "Skull Island"), card by card. Expected values are worked out by hand in comments."""

from __future__ import annotations

from fractions import Fraction

import pytest

from solver.rules import CARD_IDS, CARDS, NUM_DICE, Rules
from solver.rules.dice import Dice
from solver.rules.scoring import (
    Outcome,
    bust_score,
    classify_roll,
    island_deduction,
    island_distribution,
    stop_score,
    turn_points,
)

from .conftest import dice

RULES = Rules()

# One stop per card, worked out by hand (sets: 3 -> 100, 4 -> 200; coins/diamonds +100 each).
EVERY_CARD = {
    # m3 100 + s3 100 (parrots score nothing: no full chest)
    "none": ("mmmppsss", 200, False),
    # alive, the chest changes nothing: same as none
    "chest": ("mmmppsss", 200, False),
    # m3 100 + s3 100 + c2 200 + full chest 500 = 900, doubled
    "captain": ("mmmsssc c", 1800, True),
    # alive, the Sorceress changes nothing on a stop
    "sorceress": ("mmmppsss", 200, False),
    # coins 3 + card = 4: 200 + 400; m3 100; p2 nothing
    "coin": ("cccmmmpp", 700, False),
    # diamonds 2 + card = 3: 100 + 300; m3 100; s3 100; full chest 500
    "diamond": ("ddmmmsss", 1100, True),
    # m+p = 4: 200; s3 100; c 100; full chest 500
    "animals": ("mmppsssc", 900, True),
    # m3 100, s3 100, d2 200; the card's skull blocks the full chest
    "skull1": ("mmmsssdd", 400, False),
    "skull2": ("mmmsssdd", 400, False),
    # won (2 swords): m3 100 + c 100 + d2 200 + 300 bonus + full chest (swords fill it) 500
    "battle2": ("mmmsscdd", 1200, True),
    # won (3 swords): m3 100 + s3 100 + c2 200 + 500 bonus + full chest 500
    "battle3": ("mmmssscc", 1400, True),
    # lost (3 swords < 4): minus 1000, the dice are ignored
    "battle4": ("mmmssscc", -1000, False),
}


def test_every_card_has_a_case() -> None:
    assert set(EVERY_CARD) == set(CARD_IDS)


@pytest.mark.parametrize("card", CARD_IDS)
def test_stop_score_of_every_card(card: str) -> None:
    text, points, full = EVERY_CARD[card]
    result = stop_score(CARDS[card], dice(text), RULES)
    assert (result.points, result.full_chest) == (points, full)


def test_deck_counts_match_rules_md() -> None:
    # RULES.md, Components: 35 cards; none is not in the deck.
    counts = {c.id: c.count for c in CARDS.values()}
    assert counts == {
        "none": 0, "chest": 4, "captain": 4, "sorceress": 4, "coin": 4, "diamond": 4,
        "animals": 4, "skull1": 3, "skull2": 2, "battle2": 2, "battle3": 2, "battle4": 2,
    }  # fmt: skip
    assert sum(counts.values()) == 35


# -- bust payoffs ---------------------------------------------------------------------------


@pytest.mark.parametrize("card", [c for c in CARD_IDS if not CARDS[c].is_battle])
def test_bust_scores_zero_without_chest_or_battle(card: str) -> None:
    if CARDS[card].chest:
        assert bust_score(CARDS[card], None, RULES) == 0  # a first-roll bust: nothing on the chest
    else:
        assert bust_score(CARDS[card], Dice.parse("cccd"), RULES) == 0


@pytest.mark.parametrize(
    ("on_chest", "points"),
    [
        ("cccd", 500),  # RULES.md: 100 (set of 3 coins) + 300 + 100
        ("mmm", 100),  # a set of 3 on the chest
        ("mm", 0),  # no set, no coin
        ("ccccd", 200 + 400 + 100),  # set of 4 coins + 5 symbols
        ("ssssd", 200 + 100),  # never a full chest, however many dice score
    ],
)
def test_chest_bust_pays_the_dice_on_the_chest(on_chest: str, points: int) -> None:
    assert bust_score(CARDS["chest"], Dice.parse(on_chest), RULES) == points


def test_chest_first_roll_bust_keeps_nothing() -> None:
    # RULES.md, Bust: the chest holds none on a first-roll bust.
    assert turn_points(CARDS["chest"], dice("kkkcccdm"), RULES, first=True) == (Outcome.BUST, 0)


@pytest.mark.parametrize(("card", "bonus"), [("battle2", 300), ("battle3", 500), ("battle4", 1000)])
def test_battle_loss_costs_the_bonus(card: str, bonus: int) -> None:
    # Too few swords on a stop: minus the bonus, the dice ignored (8 coins would be 4000+800).
    assert stop_score(CARDS[card], dice("s ccccccc"), RULES).points == -bonus
    # A bust: minus the bonus too.
    assert turn_points(CARDS[card], dice("kkk sssss"), RULES) == (Outcome.BUST, -bonus)
    # 4+ skulls on the first roll: still a bust, no Skull Island with a battle card.
    assert turn_points(CARDS[card], dice("kkkk ssss"), RULES, first=True) == (Outcome.BUST, -bonus)


def test_battle_won_needs_exactly_the_swords() -> None:
    # battle4 with 4 swords: won. s4 200 + m4 200 + 1000 + full chest 500 = 1900.
    assert stop_score(CARDS["battle4"], dice("ssssmmmm"), RULES).points == 1900
    assert stop_score(CARDS["battle4"], dice("sssmmmmm"), RULES).points == -1000


# -- captain ------------------------------------------------------------------------------


def test_captain_doubles_everything_including_the_full_chest() -> None:
    # none: c4 200 + 400 + s3 100 + d 100 + full chest 500 = 1300; captain: 2600.
    assert stop_score(CARDS["none"], dice("ccccsssd"), RULES).points == 1300
    assert stop_score(CARDS["captain"], dice("ccccsssd"), RULES).points == 2600


def test_captain_island_costs_200_a_skull() -> None:
    assert island_deduction(CARDS["captain"], 5) == 1000
    assert island_deduction(CARDS["none"], 5) == 500


# -- full chest ---------------------------------------------------------------------------


@pytest.mark.parametrize("card", ["skull1", "skull2"])
def test_card_skulls_block_the_full_chest(card: str) -> None:
    # 8 monkeys: 4000; the full chest (+500) only when the card's skulls do not block it.
    assert stop_score(CARDS[card], dice("8 monkey"), RULES).points == 4000
    off = Rules(card_skulls_block_chest=False)
    assert stop_score(CARDS[card], dice("8 monkey"), off).points == 4500


def test_skull_die_blocks_the_full_chest() -> None:
    # 7 coins + 1 skull: every non-skull die scores, but a skull die is never a scoring die.
    result = stop_score(CARDS["none"], dice("ccccccck"), RULES)
    assert (result.points, result.full_chest) == (2000 + 700, False)


def test_a_lone_symbol_blocks_the_full_chest() -> None:
    # c4 200 + 400 + s3 100 + one monkey: no full chest -> 700.
    assert stop_score(CARDS["none"], dice("ccccsssm"), RULES).points == 700


# -- pirate magic -------------------------------------------------------------------------


@pytest.mark.parametrize(("card", "face"), [("coin", "c"), ("diamond", "d")])
def test_pirate_magic_under_both_nine_of_a_kind_values(card: str, face: str) -> None:
    eight = dice(face * 8)
    # magic: 9 of a kind counts 8000 as a set, + 900 symbols + 500 full chest; wins the game.
    magic = stop_score(CARDS[card], eight, Rules(nine_of_a_kind="magic"))
    assert (magic.points, magic.magic) == (8000 + 900 + 500, True)
    # set: an ordinary 8-set (4000), no instant win.
    as_set = stop_score(CARDS[card], eight, Rules(nine_of_a_kind="set"))
    assert (as_set.points, as_set.magic) == (4000 + 900 + 500, False)


def test_eight_of_a_kind_without_the_card_is_not_magic() -> None:
    result = stop_score(CARDS["none"], dice("cccccccc"), RULES)
    assert (result.points, result.magic) == (4000 + 800 + 500, False)


# -- outcomes -----------------------------------------------------------------------------


def test_three_skulls_bust_four_on_the_first_roll_is_island() -> None:
    assert classify_roll(CARDS["none"], dice("kkmmmmmm"), RULES, first=False) is Outcome.ALIVE
    assert classify_roll(CARDS["none"], dice("kkkmmmmm"), RULES, first=True) is Outcome.BUST
    assert classify_roll(CARDS["none"], dice("kkkkmmmm"), RULES, first=True) is Outcome.ISLAND
    assert classify_roll(CARDS["none"], dice("kkkkmmmm"), RULES, first=False) is Outcome.BUST


@pytest.mark.parametrize(("card", "skull_dice"), [("skull1", 3), ("skull2", 2)])
def test_card_skulls_count_toward_island_and_bust(card: str, skull_dice: int) -> None:
    four = dice("k" * skull_dice + "m" * (NUM_DICE - skull_dice))
    assert classify_roll(CARDS[card], four, RULES, first=True) is Outcome.ISLAND
    three = dice("k" * (skull_dice - 1) + "m" * (NUM_DICE - skull_dice + 1))
    assert classify_roll(CARDS[card], three, RULES, first=False) is Outcome.BUST


def test_sorceress_rescue_only_at_exactly_three_skulls() -> None:
    at_three = dice("kkkmmmmm")
    assert classify_roll(CARDS["sorceress"], at_three, RULES, first=False,
                         sorceress_unused=True) is (
        Outcome.RESCUE
    )
    assert classify_roll(CARDS["sorceress"], at_three, RULES, first=False,
                         sorceress_unused=False) is (
        Outcome.BUST
    )
    at_four = dice("kkkkmmmm")
    assert classify_roll(CARDS["sorceress"], at_four, RULES, first=False,
                         sorceress_unused=True) is (
        Outcome.BUST
    )
    assert classify_roll(CARDS["sorceress"], at_four, RULES, first=True, sorceress_unused=True) is (
        Outcome.ISLAND
    )


# -- Skull Island -------------------------------------------------------------------------


def _island_cases() -> list[tuple[str, int]]:
    """Every (card, skull dice) pair that can go to Skull Island on a first roll."""
    return [
        (card, k)
        for card in CARD_IDS
        if not CARDS[card].is_battle
        for k in range(NUM_DICE + 1)
        if k + CARDS[card].skulls >= 4
    ]


@pytest.mark.parametrize(("card", "skull_dice"), _island_cases())
def test_island_probabilities_sum_to_exactly_one(card: str, skull_dice: int) -> None:
    distribution = island_distribution(CARDS[card], skull_dice)
    assert sum(distribution.values()) == Fraction(1)
    assert all(p > 0 for p in distribution.values())
    # Skulls never go away; the card's skulls count.
    assert min(distribution) == skull_dice + CARDS[card].skulls


def test_island_distribution_from_six_skulls_by_hand() -> None:
    # 2 free dice: no skull (25/36) ends at 6; one skull (10/36) leaves 1 free die, which
    # cannot be rolled alone: ends at 7; two skulls (1/36): 8.
    assert island_distribution(CARDS["none"], 6) == {
        6: Fraction(25, 36),
        7: Fraction(10, 36),
        8: Fraction(1, 36),
    }


def test_island_distribution_from_five_skulls_by_hand() -> None:
    # 3 free dice (216 outcomes): 0 skulls 125/216 -> 5; 1 skull 75/216 -> as from 6 above;
    # 2 skulls 15/216 -> 7 (1 die left, stops); 3 skulls 1/216 -> 8.
    assert island_distribution(CARDS["none"], 5) == {
        5: Fraction(125, 216),
        6: Fraction(75, 216) * Fraction(25, 36),
        7: Fraction(75, 216) * Fraction(10, 36) + Fraction(15, 216),
        8: Fraction(75, 216) * Fraction(1, 36) + Fraction(1, 216),
    }


def test_island_stops_when_fewer_than_two_dice_remain() -> None:
    assert island_distribution(CARDS["none"], 7) == {7: Fraction(1)}
    assert island_distribution(CARDS["none"], 8) == {8: Fraction(1)}


def test_skull2_island_can_reach_ten_skulls() -> None:
    # 2 card skulls + 8 skull dice: the last 2 free dice both rolled skulls.
    assert max(island_distribution(CARDS["skull2"], 2)) == 10
