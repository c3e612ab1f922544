"""Invariants of the solved turn (8 dice, every card): what any correct solution must satisfy.

- the roll distribution: every row is a probability distribution, and on 3 dice it is the
  ordered-dice enumeration exactly;
- values are finite where the turn goes on and NaN exactly where it is over, and no NaN leaks
  into keep values, first-roll values or turn values;
- every value is at least its stop value, no legal option (from :mod:`solver.rules.moves`) is worth
  more than the value, the best one is worth it, and the policy's move is legal and best;
- the certified bound is at most 1e-9 and honest (a loose solve is within its own bound of a
  tight one); policy evaluation of the optimal policy gives back the optimal values;
- ``AtLeast(N)`` values are probabilities, non-increasing in N, 1 for N below every payoff,
  and for a huge N the probability of pirate magic: positive for coin and diamond (equal to an
  independent little DP), 0 for every other card and under ``nine_of_a_kind=set``.

"Within the bound" below means within ``2 * bound`` (+ 1e-12 relative for float rounding): two
quantities each within ``bound`` of the exact values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from itertools import product
from math import comb
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from solver.engine import (
    BETA,
    DEFAULT_TOL,
    NO_MOVE,
    STOP,
    UNUSED,
    USED,
    AtLeast,
    ExpectedPoints,
    Payoff,
    geometry,
    payoff_for,
    solve_payoff,
    solve_turn,
    turn_model,
)
from solver.rules import CARD_IDS, CARDS, NUM_DICE, Rules, rules_with
from solver.rules.dice import Dice
from solver.rules.moves import legal_rerolls
from solver.rules.scoring import Outcome, classify_roll, stop_score

RULES = Rules()
Solve = Callable[..., Any]


def slack(solution: Any, scale: float = 1.0) -> float:
    return 2 * solution.bound + 1e-12 * max(1.0, scale)


# --------------------------------------------------------------------------------------------
# The roll distribution
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_dice", [NUM_DICE, 4])
def test_every_roll_row_is_a_probability_distribution(n_dice: int) -> None:
    g = geometry(n_dice)
    sums = np.add.reduceat(g.prob, g.ptr[:-1])
    assert np.abs(sums - 1).max() <= 1e-12
    assert (g.prob > 0).all()
    lengths = np.diff(g.ptr)
    missing = n_dice - g.total
    # one entry per multiset of the rolled dice: C(r + 5, 5)
    assert (lengths == [comb(int(r) + 5, 5) for r in missing]).all()
    # every outcome adds exactly the rolled dice to what stays on the table
    rows = np.repeat(np.arange(g.n_partial), lengths)
    added = g.full_counts[g.col] - g.counts[rows]
    assert (added >= 0).all()
    assert (added.sum(axis=1) == missing[rows]).all()
    assert (added[:, 0] == g.rolled_skulls).all()


def test_roll_rows_equal_the_ordered_dice_enumeration_on_three_dice() -> None:
    g = geometry(3)
    for i in range(g.n_partial):
        kept = g.counts[i]
        r = 3 - int(kept.sum())
        exact: Counter[tuple[int, ...]] = Counter()
        for faces in product(range(6), repeat=r):
            exact[tuple(int(x) for x in kept + np.bincount(np.array(faces, dtype=int),
                                                          minlength=6))] += 1
        got = {tuple(int(x) for x in g.full_counts[c]): p
               for c, p in zip(g.col[g.ptr[i]:g.ptr[i + 1]], g.prob[g.ptr[i]:g.ptr[i + 1]],
                               strict=True)}
        assert set(got) == set(exact)
        for counts, k in exact.items():
            assert abs(got[counts] - Fraction(k, 6**r)) <= 1e-15


# --------------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("card", CARD_IDS)
def test_values_are_finite_exactly_where_the_turn_goes_on(card: str, solved: Solve) -> None:
    solution = solved(card)
    model = turn_model(CARDS[card], RULES)
    assert set(solution.worlds) == set(model.worlds)
    for w, ws in solution.worlds.items():
        live = model.live[w]
        assert np.isfinite(ws.value[live]).all()
        assert np.isnan(ws.value[~live]).all()
        assert np.isfinite(ws.keep_value).all()
        assert (ws.policy[~live] == NO_MOVE).all()
        assert (ws.policy[live] != NO_MOVE).all()
    assert np.isfinite(solution.first_value).all()
    assert np.isfinite(solution.turn_value).all()


@pytest.mark.parametrize("card", CARD_IDS)
def test_the_bound_is_certified_and_reported(card: str, solved: Solve) -> None:
    solution = solved(card)
    assert 0 < solution.bound <= DEFAULT_TOL
    assert solution.sweeps > 0
    # the bound is built from the final residuals: beta / (1 - beta) * residual per layer
    assert 0 < solution.residual and BETA / (1 - BETA) * solution.residual <= solution.bound


@pytest.mark.parametrize("card", ["sorceress", "chest", "battle3"])
def test_a_loose_solve_is_within_its_own_bound(card: str, solved: Solve) -> None:
    """The bound is honest: a solve stopped early (tol 1) is within its reported bound of the
    1e-9 solve, everywhere (values, keep values, turn value)."""
    tight = solved(card)
    loose = solve_turn(CARDS[card], RULES, ExpectedPoints(), tol=1.0)
    assert loose.bound <= 1.0 and loose.sweeps < tight.sweeps
    allowed = loose.bound + tight.bound + 1e-9
    for w in tight.worlds:
        a, b = loose.worlds[w], tight.worlds[w]
        assert np.nanmax(np.abs(a.value - b.value)) <= allowed
        assert np.abs(a.keep_value - b.keep_value).max() <= allowed
    assert abs(loose.turn_value[0] - tight.turn_value[0]) <= allowed
    # and it is not vacuous: the loose solve is visibly off somewhere
    assert max(np.nanmax(np.abs(loose.worlds[w].value - tight.worlds[w].value))
               for w in tight.worlds) > 1e-6


def options(card: str, dice: Dice, unused: bool, solution: Any, rules: Rules = RULES
            ) -> list[tuple[bool, tuple[int, ...], float]]:
    """Every legal reroll of solver.rules.moves: (uses the Sorceress, dice left on the table, value
    from the engine's keep values)."""
    g = geometry()
    moves = legal_rerolls(CARDS[card], dice, rules, sorceress_unused=unused)
    if not moves:
        return []
    # the dice left on the table: the kept dice and the skull dice (one fewer for her)
    kept = np.array([m.keep.counts for m in moves])
    sorceress = np.array([m.sorceress for m in moves])
    kept[:, 0] = dice.skulls - sorceress
    index = g.code_lut[g.code(kept)]
    values = np.where(sorceress | (not unused),
                      solution.worlds[USED].keep_value[index, 0],
                      solution.worlds[max(solution.worlds)].keep_value[index, 0])
    return [(bool(m), tuple(int(x) for x in k), float(v))
            for m, k, v in zip(sorceress, kept, values, strict=True)]


def check_position(card: str, dice: Dice, unused: bool, solution: Any) -> None:
    """The value is the best of the stop (if allowed) and every legal option, and the policy's
    move is legal and achieves it."""
    g = geometry()
    world = UNUSED if unused else USED
    j = g.full_index(dice)
    outcome = classify_roll(CARDS[card], dice, RULES, first=False, sorceress_unused=unused)
    value = float(solution.worlds[world].value[j, 0])
    if outcome is Outcome.BUST:
        assert np.isnan(value)
        return
    tol = slack(solution, abs(value))
    stop = stop_score(CARDS[card], dice, RULES).points if outcome is Outcome.ALIVE else -np.inf
    moves = options(card, dice, unused, solution)
    best = max([stop, *(v for _, _, v in moves)])
    assert value >= stop - tol
    assert all(v <= value + tol for _, _, v in moves), (dice, value)
    assert abs(best - value) <= tol, (dice, value, best)
    code = int(solution.worlds[world].policy[j, 0])
    if code == STOP:
        assert outcome is Outcome.ALIVE and abs(stop - value) <= tol
        return
    sorceress = bool(solution.worlds[world].sorceress[j, 0])
    kept = tuple(int(x) for x in g.counts[code])
    chosen = [v for m, k, v in moves if m == sorceress and k == kept]
    assert len(chosen) == 1, (dice, kept, sorceress)  # the policy's move is a legal move
    assert abs(chosen[0] - value) <= tol


@pytest.mark.parametrize("card", CARD_IDS)
def test_no_legal_option_beats_the_value_and_the_policy_is_best(card: str,
                                                                 solved: Solve) -> None:
    """Every position of every world (1287 per world), all options from solver.rules.moves."""
    solution = solved(card)
    g = geometry()
    for w in solution.worlds:
        for j in range(g.n_full):
            check_position(card, g.dice(g.full_offset + j), w == UNUSED, solution)


@given(
    card=st.sampled_from(CARD_IDS),
    faces=st.lists(st.integers(0, 5), min_size=NUM_DICE, max_size=NUM_DICE),
    unused=st.booleans(),
    variant=st.sampled_from(["", "keep_one=off", "sorceress_alone=off", "sorceress_rescue=off",
                             "battle_swords_fill_chest=off", "nine_of_a_kind=set"]),
)
@example(card="sorceress", faces=[0, 0, 0, 1, 1, 3, 4, 5], unused=True, variant="")  # rescue
@example(card="chest", faces=[0, 0, 4, 4, 4, 5, 1, 2], unused=False, variant="keep_one=off")
def test_value_is_at_least_every_legal_option(card: str, faces: list[int], unused: bool,
                                               variant: str, solved: Solve) -> None:
    rules = rules_with([variant] if variant else [])
    solution = solved(card, rules)
    unused = unused and card == "sorceress"
    dice = Dice.from_faces(faces)
    g = geometry()
    world = UNUSED if unused else USED
    value = float(solution.worlds[world].value[g.full_index(dice), 0])
    outcome = classify_roll(CARDS[card], dice, rules, first=False, sorceress_unused=unused)
    if outcome is Outcome.BUST:
        assert np.isnan(value)
        return
    tol = slack(solution, abs(value))
    if outcome is Outcome.ALIVE:
        assert value >= stop_score(CARDS[card], dice, rules).points - tol
    for _, _, option in options(card, dice, unused, solution, rules):
        assert option <= value + tol


@pytest.mark.parametrize("card", CARD_IDS)
def test_policy_evaluation_of_the_optimal_policy_gives_the_optimal_values(
    card: str, solved: Solve
) -> None:
    solution = solved(card)
    model = turn_model(CARDS[card], RULES)
    policy = {w: (ws.policy, ws.sorceress) for w, ws in solution.worlds.items()}
    evaluated = solve_payoff(model, payoff_for(model, ExpectedPoints()), policy=policy)
    tol = solution.bound + evaluated.bound + 1e-9
    for w in solution.worlds:
        a, b = evaluated.worlds[w], solution.worlds[w]
        assert np.array_equal(np.isnan(a.value), np.isnan(b.value))
        assert np.nanmax(np.abs(a.value - b.value)) <= tol
        assert np.abs(a.keep_value - b.keep_value).max() <= tol
    assert abs(evaluated.turn_value[0] - solution.turn_value[0]) <= tol


# --------------------------------------------------------------------------------------------
# AtLeast(N)
# --------------------------------------------------------------------------------------------

NEEDS = (-10**6, -999, -300, 0, 1, 100, 300, 500, 1000, 2000, 4000, 8000, 10**6)


def at_least_batch(card: str, rules: Rules = RULES) -> Any:
    """One solve, a column per need of NEEDS (the columns are independent objectives)."""
    model = turn_model(CARDS[card], rules)
    parts = [payoff_for(model, AtLeast(k)) for k in NEEDS]
    payoff = Payoff(
        stop=np.hstack([p.stop for p in parts]),
        bust=np.hstack([p.bust for p in parts]),
        first_bust=np.concatenate([p.first_bust for p in parts]),
        island=np.hstack([p.island for p in parts]),
    )
    return solve_payoff(model, payoff)


@pytest.mark.parametrize("card", CARD_IDS)
def test_at_least_values_are_probabilities_non_increasing_in_the_need(card: str) -> None:
    solution = at_least_batch(card)
    tol = slack(solution)
    arrays = [solution.turn_value[None, :], solution.first_value]
    for ws in solution.worlds.values():
        arrays += [ws.value[~np.isnan(ws.value[:, 0])], ws.keep_value]
    for a in arrays:
        assert (a >= -tol).all() and (a <= 1 + tol).all()
        assert (np.diff(a, axis=1) <= tol).all()
    # below every payoff (battle4 loses 1000 at worst) every turn reaches the need
    assert abs(solution.turn_value[0] - 1) <= tol
    # a single column solved alone equals its column of the batch (the columns are independent)
    alone = solve_turn(CARDS[card], RULES, AtLeast(300))
    assert abs(alone.turn_value[0] - solution.turn_value[NEEDS.index(300)]) <= tol + alone.bound


@cache
def magic_probability() -> float:
    """P(pirate magic) under the best play, by a small DP of its own: with the coin card, 8 coin
    dice are needed. A state is (skull dice, coin dice), the other dice are junk; a move rolls
    k junk dice and m coin dice (k + m >= 2, at least one die stays: RULES.md, A turn)."""
    value = np.zeros((3, NUM_DICE + 1))

    def p(k: int, a: int, b: int) -> float:
        """k dice show a skulls, b coins, the rest junk."""
        return comb(k, a) * comb(k - a, b) * 4 ** (k - a - b) / 6**k

    for _ in range(120):  # each sweep shrinks the error by 25/36 at least: below 1e-18
        new = np.zeros_like(value)
        new[0, NUM_DICE] = 1.0  # eight coin dice: pirate magic
        for s in range(3):
            for c in range(NUM_DICE - s + 1):
                if s == 0 and c == NUM_DICE:
                    continue
                junk = NUM_DICE - s - c
                best = 0.0
                for k, m in product(range(junk + 1), range(c + 1)):
                    if k + m < 2 or k + m > NUM_DICE - 1:
                        continue
                    best = max(best, sum(p(k + m, a, b) * value[s + a, c - m + b]
                                         for a in range(3 - s) for b in range(k + m - a + 1)))
                new[s, c] = best
        value = new
    # the first roll of 8 dice (3 skulls or more: bust or Skull Island, no magic)
    return sum(p(NUM_DICE, a, b) * value[a, b] for a in range(3) for b in range(NUM_DICE - a + 1))


@pytest.mark.parametrize("card", CARD_IDS)
def test_at_least_a_huge_need_is_the_probability_of_pirate_magic(card: str) -> None:
    huge = AtLeast(10**6)
    p = float(solve_turn(CARDS[card], RULES, huge).turn_value[0])
    if card in ("coin", "diamond"):
        assert abs(p - magic_probability()) <= 1e-9
        assert p > 0
    else:
        assert p == 0
    # no magic under nine_of_a_kind=set: a nine of a kind is an ordinary 8-set
    assert solve_turn(CARDS[card], rules_with(["nine_of_a_kind=set"]), huge).turn_value[0] == 0


def test_a_replaced_model_does_not_share_the_solver_cache() -> None:
    # scripts/supitalp_sorceress.py solves a model with another Sorceress legality table
    # made by dataclasses.replace; the solver's per-model plan cache must not leak between
    # the two (it once did, and the default Sorceress then solved to the other reading).
    import dataclasses

    rules = Rules()
    model = turn_model(CARDS["sorceress"], rules)
    before = solve_payoff(model, payoff_for(model, ExpectedPoints())).turn_value
    # supitalp's voluntary reroll: the skull die with at least one non-skull die, i.e. the
    # partial position (s, K) left on the table holds at most n_dice - 2 dice.
    legal = model.sorceress_legal & (model.geometry.total <= model.n_dice - 2)
    other = dataclasses.replace(model, sorceress_legal=legal)
    changed = solve_payoff(other, payoff_for(other, ExpectedPoints())).turn_value
    after = solve_payoff(model, payoff_for(model, ExpectedPoints())).turn_value
    assert changed[0] < before[0] - 1.0  # the other reading is worth less: a real change
    assert after[0] == before[0]
