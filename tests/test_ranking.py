"""Ranked lists: ties within the tolerance in a fixed order, never by their last bits."""

from __future__ import annotations

import random

from solver.advice.ranking import card_key, ranked, ranked_cards


def test_last_bit_ties_come_out_in_the_deck_order() -> None:
    # coin and diamond are the same card for the rules: their values may differ in the last
    # bits from one machine to another, and the list must not.
    base = 0.5347512
    for coin, diamond in ((base, base + 2e-16), (base + 2e-16, base), (base, base)):
        cards = {"diamond": diamond, "battle2": 0.41, "coin": coin, "captain": 0.6}
        assert [c for c, _ in ranked_cards(cards)] == ["captain", "coin", "diamond", "battle2"]


def test_values_a_tolerance_apart_keep_their_order() -> None:
    cards = {"coin": 0.5, "diamond": 0.5 + 1e-9}
    assert [c for c, _ in ranked_cards(cards)] == ["diamond", "coin"]
    assert [c for c, _ in ranked_cards(cards, tol=1e-8)] == ["coin", "diamond"]


def test_runs_start_at_the_best_value_left() -> None:
    # 1.0, 0.95, 0.9 with a tolerance of 0.06: 0.95 ties the best, 0.9 starts the next run
    # (it is within the tolerance of 0.95 but not of the run's best).
    items = [("c", 0.9), ("b", 0.95), ("a", 1.0)]
    out = ranked(items, value=lambda x: x[1], key=lambda x: x[0], tol=0.06)
    assert out == [("a", 1.0), ("b", 0.95), ("c", 0.9)]
    out = ranked(items, value=lambda x: x[1], key=lambda x: -ord(x[0]), tol=0.06)
    assert out == [("b", 0.95), ("a", 1.0), ("c", 0.9)]


def test_the_order_does_not_depend_on_the_input_order() -> None:
    rng = random.Random(7)
    values = [0.3, 0.3 + 1e-15, 0.3 - 1e-15, 0.2, 0.7, 0.7, 0.2 + 3e-12]
    items = list(enumerate(values))
    expected = ranked(items, value=lambda x: x[1], key=lambda x: x[0])
    assert [i for i, _ in expected] == [4, 5, 0, 1, 2, 3, 6]
    for _ in range(20):
        rng.shuffle(items)
        assert ranked(items, value=lambda x: x[1], key=lambda x: x[0]) == expected


def test_card_key_is_the_deck_order() -> None:
    assert sorted(["battle4", "coin", "chest", "diamond"], key=card_key) == [
        "chest", "coin", "diamond", "battle4"]
