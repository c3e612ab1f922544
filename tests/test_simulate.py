"""Monte-Carlo play (solver/simulate.py, `sabords simulate`) against the exact analysis.

Every statistical test has a fixed seed and a stated false-alarm rate of 1e-6 per test: a
chi-square goodness-of-fit p-value above 1e-6, or a two-sided z-test with |z| below
z* = Φ⁻¹(1 - 0.5e-6) ≈ 4.89. A wrong rule, score or policy shifts these by far more.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from solver.engine import DEFAULT_TOL, STOP, UNUSED, USED, geometry
from solver.rules import CARDS, Rules
from solver.strategy.analysis import optimal_distribution, policy_distribution
from solver.strategy.policies import (
    FIRST_ROLL,
    GREEDY,
    THRESHOLD,
    TWO_SKULLS,
    optimal_policy,
    parse_policy,
)
from solver.strategy.simulate import (
    ArrayPolicy,
    PolicyMoveError,
    SimulationError,
    deck_arrays,
    deck_cards,
    play_batch,
    play_turns,
    simulate,
)
from solver.tables.turn import turn_table

from .conftest import CliResult, assert_one_line_error

RULES = Rules()
ALPHA = 1e-6
Z_CRIT = float(stats.norm.isf(ALPHA / 2))
ROOT = Path(__file__).resolve().parent.parent

Run = Callable[..., CliResult]


def _chi_square_p(observed: Counter[tuple[str, int]], expected: list[tuple[str, int, float]],
                  n: int) -> tuple[float, int]:
    """Pearson's chi-square test: outcomes in score order, adjacent ones merged until each bin
    expects at least 5 turns (the last bin joins its neighbour if short)."""
    bins: list[tuple[float, int]] = []
    exp_acc, obs_acc = 0.0, 0
    for kind, points, q in expected:
        exp_acc += n * q
        obs_acc += observed.pop((kind, points), 0)
        if exp_acc >= 5:
            bins.append((exp_acc, obs_acc))
            exp_acc, obs_acc = 0.0, 0
    assert not observed, f"simulated outcomes the exact distribution does not have: {observed}"
    if exp_acc > 0 or obs_acc:
        e, o = bins.pop()
        bins.append((e + exp_acc, o + obs_acc))
    e = np.array([b[0] for b in bins])
    o = np.array([b[1] for b in bins])
    e *= n / e.sum()  # the unresolved mass (< 1e-15) only
    chi2 = float(((o - e) ** 2 / e).sum())
    return float(stats.chi2.sf(chi2, len(bins) - 1)), len(bins)


@pytest.mark.parametrize(("card", "seed"), [("none", 11), ("chest", 12), ("sorceress", 13),
                                            ("coin", 14)])
def test_simulated_scores_fit_the_exact_distribution(card: str, seed: int) -> None:
    n = 8_000
    turns = play_turns((CARDS[card],), None, RULES, parse_policy("optimal"), n, seed)
    observed = Counter((t.kind, t.points) for t in turns)
    p, bins = _chi_square_p(observed, list(optimal_distribution(CARDS[card], RULES).outcomes), n)
    assert bins >= 10
    assert p > ALPHA, (card, p)


def test_the_chi_square_test_rejects_a_wrong_distribution() -> None:
    # The same test, run against another card's distribution, must fail: it has power.
    n = 8_000
    turns = play_turns((CARDS["none"],), None, RULES, parse_policy("optimal"), n, 11)
    observed = Counter((t.kind, t.points) for t in turns)
    wrong = [(k, p, q) for k, p, q in optimal_distribution(CARDS["animals"], RULES).outcomes]
    known = {(k, p) for k, p, _ in wrong}
    observed = Counter({key: v for key, v in observed.items() if key in known})
    p, _ = _chi_square_p(observed, wrong, sum(observed.values()))
    assert p < ALPHA


def _z(mean: float, exact: float, sd: float, n: int) -> float:
    return (mean - exact) / (sd / math.sqrt(n))


@pytest.mark.parametrize(
    ("card", "policy", "seed"),
    [
        ("sorceress", FIRST_ROLL, 21),
        ("sorceress", TWO_SKULLS, 22),
        ("sorceress", GREEDY, 23),
        ("sorceress", THRESHOLD, 24),
        ("battle3", TWO_SKULLS, 25),
        ("battle3", GREEDY, 26),
        ("battle3", "threshold=900", 27),
    ],
)
def test_heuristic_values_meet_simulation(card: str, policy: str, seed: int) -> None:
    n = 4_000
    result = simulate(CARDS[card], RULES, policy, turns=n, seed=seed)
    exact = policy_distribution(policy, CARDS[card], RULES)
    assert abs(exact.mean - result.exact) <= 1e-9  # propagation = policy evaluation
    assert abs(result.z) < Z_CRIT, (policy, card, result.mean, result.exact)
    p = exact.p_bust
    assert abs(_z(result.bust_rate, p, math.sqrt(p * (1 - p)), n)) < Z_CRIT


def test_expected_rolls_and_island_rate_meet_simulation() -> None:
    n = 8_000
    turns = list(play_turns((CARDS["chest"],), None, RULES, parse_policy("optimal"), n, 31))
    exact = optimal_distribution(CARDS["chest"], RULES)
    rolls = np.array([t.rolls for t in turns], dtype=float)
    assert abs(_z(float(rolls.mean()), exact.expected_rolls, float(rolls.std(ddof=1)), n)) \
        < Z_CRIT
    island = np.array([t.kind == "island" for t in turns], dtype=float)
    p = exact.p_island
    assert abs(_z(float(island.mean()), p, math.sqrt(p * (1 - p)), n)) < Z_CRIT
    losses = np.array([t.island_skulls * 100 for t in turns], dtype=float)
    assert abs(_z(float(losses.mean()), exact.island_deduction, float(losses.std(ddof=1)), n)) \
        < Z_CRIT


def test_deck_simulation_meets_the_deck_value() -> None:
    result = simulate(None, RULES, "optimal", turns=5_000, seed=41)
    cards, weights = deck_cards()
    exact = sum(w * optimal_distribution(c, RULES).mean for c, w in zip(cards, weights,
                                                                       strict=True))
    assert abs(result.exact - exact) <= 1e-9
    assert abs(result.z) < Z_CRIT


def test_seeded_runs_are_reproducible() -> None:
    a = simulate(CARDS["captain"], RULES, "greedy", turns=500, seed=5)
    b = simulate(CARDS["captain"], RULES, "greedy", turns=500, seed=5)
    c = simulate(CARDS["captain"], RULES, "greedy", turns=500, seed=6)
    assert a == b
    assert a.mean != c.mean


def test_an_illegal_policy_is_refused() -> None:
    # Keep all eight dice (roll nothing) wherever the optimum rerolls: the simulator checks
    # every move against the turn model's legality (solver.rules.moves) and refuses it.
    code, sorceress = optimal_policy(CARDS["none"], RULES)[USED]
    keep_all = geometry().full_offset  # the first full position: its 8 dice all stay
    bad = np.where(code == STOP, STOP, keep_all)
    policy = ArrayPolicy("keep all", {"none": {USED: (bad, sorceress)}})
    with pytest.raises(PolicyMoveError, match="illegal move"):
        list(play_turns((CARDS["none"],), None, RULES, policy, 200, seed=1))
    # and a stop where the rules forbid it: the Sorceress's rescue (3 skulls, her unused)
    code, sorceress = optimal_policy(CARDS["sorceress"], RULES)[UNUSED]
    stops = {UNUSED: (np.where(code >= 0, STOP, code), sorceress),
             USED: optimal_policy(CARDS["sorceress"], RULES)[USED]}
    zeros = np.zeros(2000, dtype=np.int64)
    with pytest.raises(PolicyMoveError, match="not alive"):
        play_batch(zeros, deck_arrays(RULES, ("sorceress",)),
                   [ArrayPolicy("stop", {"sorceress": stops})], zeros, zeros, zeros,
                   np.random.Generator(np.random.PCG64(3)))


def test_turns_out_of_range() -> None:
    with pytest.raises(SimulationError, match="number of turns must be 1 to"):
        simulate(CARDS["none"], RULES, turns=0)


# -- the command line ------------------------------------------------------------------------


def test_simulate_json_is_reproducible(sabords: Run) -> None:
    args = ("simulate", "--card", "pirate", "--turns", "400", "--seed", "9", "--json")
    first, second = sabords(*args), sabords(*args)
    assert first.exit_code == 0, first.stderr
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert data["card"] == "captain" and data["seed"] == 9 and data["turns"] == 400
    assert data["rules_hash"] == RULES.hash
    direct = simulate(CARDS["captain"], RULES, "optimal", turns=400, seed=9)
    assert data["mean"] == direct.mean and data["z"] == direct.z
    # the exact value is the committed table's (the optimum's turn value, proved), within the
    # bound the float solve of the policy evaluation certifies
    table = turn_table(CARDS["captain"], RULES).solution.turn_value[0]
    assert abs(data["exact"] - table) <= DEFAULT_TOL


def test_simulate_text(sabords: Run) -> None:
    result = sabords("simulate", "--card", "skull2", "--policy", "two-skulls", "--turns", "300",
                     "--seed", "1")
    assert result.exit_code == 0, result.stderr
    for label in ("card        skull2", "policy      two-skulls", "mean", "exact", "z = ",
                  "bust", "island", "rolls", "rules"):
        assert label in result.stdout


def test_simulate_help_has_examples(sabords: Run) -> None:
    result = sabords("simulate", "--help")
    assert result.exit_code == 0
    for text in ("Examples:", "--policy", "--seed", "--deck", "--json", "threshold=T"):
        assert text in result.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--card", "none", "--deck"), "not both"),
        (("--policy", "bold"), "unknown policy 'bold'"),
        (("--turns", "0"), "--turns"),
        (("--card", "kraken"), "unknown card"),
        (("--variant", "keep_one=maybe"), "keep_one"),
    ],
)
def test_simulate_bad_input_is_one_line_exit_2(sabords: Run, args: tuple[str, ...],
                                               fragment: str) -> None:
    assert_one_line_error(sabords("simulate", *args), fragment)


def test_the_commands_page_transcript_is_real(sabords: Run) -> None:
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    m = re.search(r"\$ (sabords simulate [^\n]*)\n(.*?)```", page, re.S)
    assert m is not None
    result = sabords(*m.group(1).split()[1:])
    assert result.exit_code == 0
    assert result.stdout == m.group(2)
