"""Legal rerolls (RULES.md, A turn, step 4, and Sorceress): counts of distinct rerolls (by kept
multiset) for positions worked out by hand."""

from __future__ import annotations

import pytest

from solver.rules import CARDS, Rules
from solver.rules.moves import can_stop, legal_rerolls, reroll_is_legal, sub_multisets

from .conftest import dice

RULES = Rules()


def _count(card: str, position: str, rules: Rules = RULES, **kw: bool) -> int:
    return len(legal_rerolls(CARDS[card], dice(position), rules, **kw))


def test_two_skulls_two_each_of_three_faces() -> None:
    # kkmmppss: keeps are (m, p, s) counts in 0..2 each: 3^3 = 27 multisets. 6 dice can move;
    # at least 2 are rolled, so keep <= 4: drop keep 6 (1 multiset: mmppss) and keep 5 (3: one
    # die of one face left out). The skulls always stay, so keep_one never bites: 27 - 4 = 23.
    assert _count("none", "kkmmppss") == 23


def test_eight_monkeys_keep_one_on_and_off() -> None:
    # mmmmmmmm: keep j monkeys, j = 0..8. Roll >= 2 -> j <= 6; keep_one -> j >= 1: 6 rerolls.
    assert _count("none", "mmmmmmmm") == 6
    # keep_one off: j = 0 (roll all eight) is allowed too: 7.
    assert _count("none", "mmmmmmmm", Rules(keep_one=False)) == 7


def test_two_skulls_six_monkeys() -> None:
    # kkmmmmmm: keep j of 6 monkeys, roll 6 - j >= 2 -> j = 0..4: 5 rerolls.
    assert _count("none", "kkmmmmmm") == 5


def test_skull2_card_skulls_are_not_dice() -> None:
    # skull2 with mmmmpppp: keeps (m, p) in 0..4 each = 25. Drop keep 0 (keep_one: 1 multiset),
    # keep 7 (roll 1: 2 multisets) and keep 8 (1): 25 - 4 = 21.
    assert _count("skull2", "mmmmpppp") == 21


def test_sorceress_unused_one_skull_seven_monkeys() -> None:
    # kmmmmmmm, Sorceress unused. Plain rerolls: keep j of 7, roll 7 - j >= 2 -> j = 0..5: 6.
    # With the skull die: roll 8 - j; alone allowed (>= 1), keep_one needs j >= 1 -> j = 1..7:
    # 7. Total 13.
    assert _count("sorceress", "kmmmmmmm", sorceress_unused=True) == 13
    # sorceress_alone off: the skull needs a companion, roll 8 - j >= 2 -> j = 1..6: 12.
    assert (
        _count("sorceress", "kmmmmmmm", Rules(sorceress_alone=False), sorceress_unused=True) == 12
    )
    # keep_one off: the skull may go with all 7 monkeys (j = 0): 6 + 8 = 14.
    assert _count("sorceress", "kmmmmmmm", Rules(keep_one=False), sorceress_unused=True) == 14
    # Sorceress already used: only the 6 plain rerolls.
    assert _count("sorceress", "kmmmmmmm", sorceress_unused=False) == 6


def test_sorceress_rescue_forces_her_use() -> None:
    # kkkmmmmm, Sorceress unused: a rescue position. Only rerolls with the skull die: keep j of
    # 5 monkeys, roll 6 - j >= 1 -> j = 0..5: 6. Stopping there is not allowed.
    moves = legal_rerolls(CARDS["sorceress"], dice("kkkmmmmm"), RULES, sorceress_unused=True)
    assert len(moves) == 6 and all(m.sorceress for m in moves)
    assert not can_stop(CARDS["sorceress"], dice("kkkmmmmm"), RULES, sorceress_unused=True)
    # sorceress_rescue off: three skulls end the turn.
    assert (
        _count("sorceress", "kkkmmmmm", Rules(sorceress_rescue=False), sorceress_unused=True) == 0
    )


def test_bust_position_has_no_moves() -> None:
    assert _count("none", "kkkmmmmm") == 0
    assert not can_stop(CARDS["none"], dice("kkkmmmmm"), RULES)


@pytest.mark.parametrize(
    ("rules", "skull_dice", "kept", "sorceress", "legal"),
    [
        (RULES, 0, 0, False, False),  # all 8 rolled: keep_one forbids it
        (Rules(keep_one=False), 0, 0, False, True),
        (RULES, 0, 6, False, True),  # 2 rolled
        (RULES, 0, 7, False, False),  # 1 die alone is never rolled
        (RULES, 2, 5, False, False),  # 1 rolled
        (RULES, 1, 7, True, True),  # the Sorceress's skull alone
        (Rules(sorceress_alone=False), 1, 7, True, False),
        (Rules(sorceress_alone=False), 1, 6, True, True),  # skull + 1 companion
        (RULES, 0, 6, True, False),  # no skull die to reroll
        (RULES, 3, 6, False, False),  # more dice than there are
    ],
)
def test_reroll_is_legal(
    rules: Rules, skull_dice: int, kept: int, sorceress: bool, legal: bool
) -> None:
    assert reroll_is_legal(rules, skull_dice, kept, sorceress=sorceress) is legal


def test_sub_multisets_are_distinct_and_skull_free() -> None:
    # kkmmppss: (2+1)^3 = 27 distinct keeps, none with a skull.
    keeps = list(sub_multisets(dice("kkmmppss")))
    assert len(keeps) == len(set(keeps)) == 27
    assert all(k.skulls == 0 for k in keeps)
