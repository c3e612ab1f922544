"""Every variant of RULES.md, "Variants": flipping it changes a score or a legality; the rules
object's canonical form and hash."""

from __future__ import annotations

import dataclasses
import json

import pytest

from solver.rules import CARDS, VARIANT_NAMES, Rules, VariantError, rules_with
from solver.rules.moves import legal_rerolls, reroll_is_legal
from solver.rules.scoring import Outcome, classify_roll, stop_score

from .conftest import dice

DEFAULT = Rules()


def flipped(name: str) -> Rules:
    """The default rules with one variant at its alternative value."""
    alternative = {
        "nine_of_a_kind": "set",
        "target": 5000,
        "ties": "trigger",
    }.get(name, not getattr(DEFAULT, name))
    return dataclasses.replace(DEFAULT, **{name: alternative})


def test_keep_one_changes_legality() -> None:
    # Rolling all 8 dice (no skull): forbidden under keep_one (Gigamic), allowed off (EN/DE).
    assert not reroll_is_legal(DEFAULT, 0, 0)
    assert reroll_is_legal(flipped("keep_one"), 0, 0)


def test_sorceress_rescue_changes_the_outcome() -> None:
    three = dice("kkkmmmmm")
    on = classify_roll(CARDS["sorceress"], three, DEFAULT, first=False, sorceress_unused=True)
    off = classify_roll(
        CARDS["sorceress"], three, flipped("sorceress_rescue"), first=False, sorceress_unused=True
    )
    assert (on, off) == (Outcome.RESCUE, Outcome.BUST)


def test_sorceress_alone_changes_legality() -> None:
    # One skull and 7 kept dice: the skull die rolled alone.
    assert reroll_is_legal(DEFAULT, 1, 7, sorceress=True)
    assert not reroll_is_legal(flipped("sorceress_alone"), 1, 7, sorceress=True)
    position = dice("kmmmmmmm")
    on = legal_rerolls(CARDS["sorceress"], position, DEFAULT, sorceress_unused=True)
    off = legal_rerolls(CARDS["sorceress"], position, flipped("sorceress_alone"),
                        sorceress_unused=True)
    assert len(on) == len(off) + 1


def test_card_skulls_block_chest_changes_a_score() -> None:
    assert stop_score(CARDS["skull1"], dice("8 monkey"), DEFAULT).points == 4000
    assert stop_score(CARDS["skull1"], dice("8 monkey"),
                      flipped("card_skulls_block_chest")).points == 4500


def test_battle_swords_fill_chest_changes_a_score() -> None:
    # RULES.md example: battle2, 4 monkey 2 sword 2 coin = 1200 with the full chest; without
    # the swords filling it: 200 + 200 + 300 = 700.
    assert stop_score(CARDS["battle2"], dice("mmmmsscc"), DEFAULT).points == 1200
    assert (
        stop_score(CARDS["battle2"], dice("mmmmsscc"),
                   flipped("battle_swords_fill_chest")).points == 700
    )


def test_nine_of_a_kind_changes_a_score() -> None:
    assert stop_score(CARDS["coin"], dice("cccccccc"), DEFAULT).points == 9400
    assert stop_score(CARDS["coin"], dice("cccccccc"), flipped("nine_of_a_kind")).points == 5400


@pytest.mark.parametrize("name", ["target", "ties"])
def test_game_level_variants_change_the_hash_but_not_the_turn(name: str) -> None:
    rules = flipped(name)
    assert rules.hash != DEFAULT.hash
    assert rules.turn_hash == DEFAULT.turn_hash
    assert rules.turn_rules() == DEFAULT


def test_every_variant_is_covered_here() -> None:
    # A new variant must get its own test above (and a row in RULES.md).
    assert VARIANT_NAMES == (
        "keep_one",
        "sorceress_rescue",
        "sorceress_alone",
        "card_skulls_block_chest",
        "battle_swords_fill_chest",
        "nine_of_a_kind",
        "target",
        "ties",
    )


# -- canonical form and hash --------------------------------------------------------------


def test_default_rules_hash_is_stable() -> None:
    # Pinned: tables and JSON answers carry this hash; changing it silently orphans them.
    assert DEFAULT.canonical() == (
        '{"battle_swords_fill_chest":true,"card_skulls_block_chest":true,"keep_one":true,'
        '"nine_of_a_kind":"magic","sorceress_alone":true,"sorceress_rescue":true,'
        '"target":6000,"ties":"shared"}'
    )
    assert DEFAULT.hash == "43ee515c730a028e"


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_each_variant_changes_the_hash_and_round_trips(name: str) -> None:
    rules = flipped(name)
    assert rules != DEFAULT and rules.hash != DEFAULT.hash
    assert Rules.from_dict(json.loads(rules.canonical())) == rules
    assert rules.non_defaults() == {name: getattr(rules, name)}


def test_rules_with_parses_the_variant_option() -> None:
    rules = rules_with(["keep_one=off", "nine-of-a-kind=set", "target=8000", "ties=trigger"])
    assert rules == Rules(keep_one=False, nine_of_a_kind="set", target=8000, ties="trigger")
    assert rules_with([]) == rules_with(None) == DEFAULT
    assert rules.describe() == "keep_one=off, nine_of_a_kind=set, target=8000, ties=trigger"


@pytest.mark.parametrize(
    ("item", "fragment"),
    [
        ("wizard=on", "'wizard'"),
        ("keep_one=maybe", "'maybe'"),
        ("nine_of_a_kind=nine", "'nine'"),
        ("target=150", "150"),
        ("target=0", "0"),
        ("target=lots", "'lots'"),
        ("ties=random", "'random'"),
        ("keep_one", "'keep_one'"),
    ],
)
def test_bad_variants_are_value_errors_quoting_the_input(item: str, fragment: str) -> None:
    with pytest.raises(VariantError) as raised:
        rules_with([item])
    assert isinstance(raised.value, ValueError)
    assert fragment in str(raised.value)
