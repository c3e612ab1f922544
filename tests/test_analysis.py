"""Exact analysis (solver/analysis.py, solver/policies.py) and the committed strategy report.

Several routes, one answer: the forward propagation of the score distribution meets the
engine's value iteration (mean = turn value), policy evaluation with indicator payoffs (every
probability), `solver.engine.stats` (bust, island, deduction), a naive Fraction enumeration of the
first roll, and a backward linear solve for the expected number of rolls.
"""

from __future__ import annotations

import re
from fractions import Fraction
from itertools import product
from math import factorial
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse.linalg import spsolve

from solver.engine import DEFAULT_TOL, STOP, UNUSED, USED, geometry, solve_turn, turn_model
from solver.engine.stats import deck_average, turn_stats
from solver.rules import CARD_IDS, CARDS, Rules, get_card, rules_with
from solver.rules.dice import EMPTY, Dice
from solver.rules.moves import legal_rerolls
from solver.rules.scoring import Outcome, bust_score, classify_roll, stop_score
from solver.strategy.analysis import (
    DEFAULT_MASS_TOL,
    distribution,
    indicator_check,
    optimal_distribution,
    policy_distribution,
    rules_of_thumb,
)
from solver.strategy.policies import (
    FIRST_ROLL,
    GREEDY,
    THRESHOLD,
    TWO_SKULLS,
    PolicyNameError,
    best_threshold,
    evaluate,
    heuristic_policy,
    heuristic_tables,
    optimal_policy,
    optimal_solution,
    parse_policy,
    scoring_dice,
    threshold_candidates,
    threshold_values,
)
from solver.tables.turn import turn_table

from .conftest import dice

RULES = Rules()
ROOT = Path(__file__).resolve().parent.parent


# -- the optimal distribution ---------------------------------------------------------------


@pytest.mark.parametrize("card", CARD_IDS)
def test_distribution_sums_to_one_and_its_mean_is_the_turn_value(card: str) -> None:
    d = optimal_distribution(CARDS[card], RULES)
    sol = optimal_solution(CARDS[card], RULES)
    assert d.unresolved <= DEFAULT_MASS_TOL
    # The unresolved mass is missing from the total; the rest is float rounding.
    assert abs(d.total - 1.0) <= d.unresolved + 1e-13
    assert abs(d.mean - sol.turn_value[0]) <= 1e-9
    assert all(q > 0 for _, _, q in d.outcomes)


@pytest.mark.parametrize("card", ["captain", "sorceress", "battle2"])
def test_mean_is_the_committed_tables_ev(card: str) -> None:
    # `sabords ev` reads the committed tables (tables/): the same number to 1e-9.
    table = turn_table(CARDS[card], RULES)
    assert abs(optimal_distribution(CARDS[card], RULES).mean - table.stats.ev) <= 1e-9


@pytest.mark.parametrize("card", CARD_IDS)
def test_bust_island_and_deduction_meet_policy_evaluation(card: str) -> None:
    d = optimal_distribution(CARDS[card], RULES)
    stats = turn_stats(optimal_solution(CARDS[card], RULES))
    assert abs(d.p_bust - stats.p_bust) <= 1e-9
    assert abs(d.p_island - stats.p_island) <= 1e-9
    assert abs(d.island_deduction - stats.island_deduction) <= 1e-9


@pytest.mark.parametrize("card", ["chest", "sorceress", "battle3"])
def test_every_probability_meets_indicator_policy_evaluation(card: str) -> None:
    d = optimal_distribution(CARDS[card], RULES)
    via_engine = indicator_check(CARDS[card], RULES, d.points)
    np.testing.assert_allclose(via_engine, d.prob, rtol=0, atol=DEFAULT_TOL)


def test_heuristic_distribution_meets_indicator_policy_evaluation() -> None:
    policy = heuristic_policy(GREEDY, CARDS["sorceress"], RULES)
    d = distribution(CARDS["sorceress"], RULES, policy, name=GREEDY)
    np.testing.assert_allclose(indicator_check(CARDS["sorceress"], RULES, d.points, policy), d.prob,
                               rtol=0, atol=DEFAULT_TOL)
    assert abs(d.mean - evaluate(CARDS["sorceress"], RULES, policy)) <= 1e-9


def _multisets(n: int) -> list[tuple[int, ...]]:
    """Every count vector of n dice over 6 faces (naive, not the engine's geometry)."""
    return [c for c in product(range(n + 1), repeat=6) if sum(c) == n]


@pytest.mark.parametrize("card", ["none", "captain", "coin", "battle3", "skull1"])
def test_first_roll_policy_meets_a_naive_enumeration(card: str) -> None:
    # Stop after the first roll: the distribution is the first roll's, scored by the rules'
    # own functions, with exact multinomial probabilities.
    exact: dict[tuple[str, int], Fraction] = {}
    for counts in _multisets(8):
        p = Fraction(factorial(8), 6**8)
        for k in counts:
            p /= factorial(k)
        d = Dice.of(counts)
        outcome = classify_roll(CARDS[card], d, RULES, first=True)
        if outcome is Outcome.ISLAND:
            key = ("island", 0)
        elif outcome is Outcome.BUST:
            key = ("bust", bust_score(CARDS[card], None, RULES))
        else:
            score = stop_score(CARDS[card], d, RULES)
            key = ("magic" if score.magic else "stop", score.points)
        exact[key] = exact.get(key, Fraction(0)) + p
    dist = policy_distribution(FIRST_ROLL, CARDS[card], RULES)
    got = {(k, p): q for k, p, q in dist.outcomes}
    assert set(got) == set(exact)
    for key, q in exact.items():
        assert abs(got[key] - float(q)) <= 1e-14, key
    assert dist.expected_rolls == 1.0


def test_quantiles_follow_the_cumulative_distribution() -> None:
    d = optimal_distribution(CARDS["none"], RULES)
    cdf = dict(zip(d.points.tolist(), np.cumsum(d.prob).tolist(), strict=True))
    for q, x in zip((0.25, 0.5, 0.75), d.quartiles, strict=True):
        below = [p for p in cdf if p < x]
        assert cdf[x] >= q
        assert not below or cdf[max(below)] < q


@pytest.mark.parametrize("card", ["sorceress", "chest"])
def test_expected_rolls_meet_a_backward_linear_solve(card: str) -> None:
    # N(y) = 0 where the policy stops, 1 + sum_y' P(y') N(y') where it rerolls: solved
    # directly (sparse LU), against the forward propagation's count.
    model = turn_model(CARDS[card], RULES)
    g = geometry()
    policy = optimal_policy(CARDS[card], RULES)
    worlds = model.worlds
    n = g.n_full
    rows, cols, vals = [], [], []
    b = np.zeros(n * len(worlds))
    for w in worlds:
        code, sor = policy[w][0][:, 0], policy[w][1][:, 0]
        live = {v: model.live[v] for v in worlds}
        for j in range(n):
            if not live[w][j] or code[j] == STOP:
                continue
            dest = USED if sor[j] else w
            b[w * n + j] = 1.0
            k = code[j]
            for e in range(g.ptr[k], g.ptr[k + 1]):
                t = g.col[e]
                if live[dest][t]:
                    rows.append(w * n + j)
                    cols.append(dest * n + t)
                    vals.append(g.prob[e])
    a = sparse.identity(n * len(worlds), format="csr") - sparse.csr_matrix(
        (vals, (rows, cols)), shape=(n * len(worlds),) * 2)
    visits = spsolve(a.tocsc(), b)
    start = max(worlds)
    first = 1.0
    for e in range(g.ptr[0], g.ptr[1]):
        j = g.col[e]
        if model.first_outcome[j] in (Outcome.ALIVE, Outcome.RESCUE):
            first += g.prob[e] * visits[start * n + j]
    assert abs(optimal_distribution(CARDS[card], RULES).expected_rolls - first) <= 1e-12


# -- heuristics ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "position", "scoring"),
    [
        ("none", "mmmppscd", "mmmcd"),  # a set of monkeys, a coin, a diamond
        ("animals", "mmppsscd", "mmppcd"),  # monkeys and parrots make one set of 4
        ("coin", "ccmmppsk", "cc"),  # the card's coin makes a set of 3 coins
        ("battle3", "ssmmmcck", "ss"),  # battle lost: only the swords it needs count
        ("battle2", "sssmmcck", "ssscc"),  # won: the swords (a set) and the coins
        ("battle4", "ssssssmk", "ssssss"),  # won with a set of 6 swords
        ("none", "kkmpsmps", ""),  # nothing scores
    ],
)
def test_scoring_dice_worked_examples(card: str, position: str, scoring: str) -> None:
    expected = Dice.parse(scoring, n=None) if scoring else EMPTY
    assert scoring_dice(CARDS[card], dice(position), RULES) == expected


def test_greedy_one_step_meets_a_fraction_enumeration() -> None:
    # none, kmmmccps: the non-scoring dice are p and s; roll them once and stop: enumerate
    # the 36 ordered outcomes of two dice, scored by the rules' own functions.
    position = dice("kmmmccps")
    keep = dice("kmmmccps") - Dice.parse("ps", n=None)
    total = Fraction(0)
    for a, b in product(range(6), repeat=2):
        counts = list(keep.counts)
        counts[a] += 1
        counts[b] += 1
        after = Dice.of(counts)
        if classify_roll(CARDS["none"], after, RULES, first=False) is Outcome.BUST:
            total += Fraction(bust_score(CARDS["none"], keep, RULES), 36)
        else:
            total += Fraction(stop_score(CARDS["none"], after, RULES).points, 36)
    t = heuristic_tables(CARDS["none"], RULES)
    j = geometry().full_index(position)
    assert abs(t.one_step[USED][j] - float(total)) <= 1e-9
    assert geometry().dice(int(t.keep[USED][j])) == keep


@pytest.mark.parametrize("card", CARD_IDS)
def test_no_heuristic_beats_optimal_play(card: str) -> None:
    best = optimal_solution(CARDS[card], RULES).turn_value[0]
    for name in (FIRST_ROLL, TWO_SKULLS, GREEDY):
        assert evaluate(CARDS[card], RULES, heuristic_policy(name, CARDS[card],
                                                             RULES)) <= best + 2e-9


def test_best_threshold_search_is_exhaustive() -> None:
    # Every multiple of 100 from below the lowest stop value to above the highest plays
    # exactly like the next candidate up, and none beats the best candidate.
    t_best, v_best = best_threshold(CARDS["battle4"], RULES)
    candidates = threshold_candidates(CARDS["battle4"], RULES)
    values = dict(threshold_values(CARDS["battle4"], RULES))
    for t in range(-1100, candidates[-1] + 300, 100):
        v = evaluate(CARDS["battle4"], RULES, heuristic_policy(THRESHOLD, CARDS["battle4"], RULES,
                                                               t))
        assert v <= v_best + 1e-9
        up = min((c for c in candidates if c >= t), default=candidates[-1])
        assert abs(v - values[up]) <= 1e-12, t
    assert values[t_best] == v_best


@pytest.mark.parametrize("variant", ["sorceress_alone=off", "sorceress_rescue=off",
                                     "keep_one=off"])
def test_heuristics_are_legal_policies_under_sorceress_variants(variant: str) -> None:
    # The engine refuses a policy with an illegal keep or a stop in a rescue position.
    rules = rules_with([variant])
    best = solve_turn(CARDS["sorceress"], rules).turn_value[0]
    for name in (FIRST_ROLL, TWO_SKULLS, GREEDY):
        assert evaluate(CARDS["sorceress"], rules, heuristic_policy(name, CARDS["sorceress"],
                                                                    rules)) <= best


def test_policy_names() -> None:
    assert parse_policy("Threshold=700").threshold == 700
    assert str(parse_policy("two_skulls")) == TWO_SKULLS
    with pytest.raises(PolicyNameError, match="unknown policy 'bold'"):
        parse_policy("bold")
    with pytest.raises(PolicyNameError):
        parse_policy("threshold=high")


# -- rules of thumb ------------------------------------------------------------------------


@pytest.mark.parametrize("card", ["animals", "skull1", "sorceress"])
def test_rules_of_thumb_recomputed_position_by_position(card: str) -> None:
    # Naively, with the moves module's own list of legal rerolls: the safe stop value is safe,
    # the largest reroll value is a reroll, and the agreement counts match.
    sol = optimal_solution(CARDS[card], RULES)
    occ = optimal_distribution(CARDS[card], RULES).occupancy
    g = geometry()
    got = {(r.world, r.skulls): r for r in rules_of_thumb(CARDS[card], RULES)}
    model = turn_model(CARDS[card], RULES)
    agree: dict[tuple[int, int], float] = {}
    visits: dict[tuple[int, int], float] = {}
    for w in model.worlds:
        for j in range(g.n_full):
            d = g.dice(g.full_offset + j)
            unused = w == UNUSED
            if classify_roll(CARDS[card], d, RULES, first=False, sorceress_unused=unused) \
                    is not Outcome.ALIVE or occ[w][j] <= 0:
                continue
            key = (w, d.skulls + get_card(card).skulls)
            rule = got[key]
            stop_value = stop_score(CARDS[card], d, RULES).points
            optimal_stops = sol.worlds[w].policy[j, 0] == STOP
            if rule.safe_stop is not None and stop_value >= rule.safe_stop:
                assert optimal_stops, (card, str(d))
            if rule.largest_reroll is None:
                assert optimal_stops
                rule_stops = True
            else:
                limit = rule.safe_stop if rule.safe_stop is not None else 10**9
                rule_stops = stop_value >= limit or not legal_rerolls(
                    CARDS[card], d, RULES, sorceress_unused=unused)
            visits[key] = visits.get(key, 0.0) + occ[w][j]
            agree[key] = agree.get(key, 0.0) + (occ[w][j] if rule_stops == optimal_stops else 0)
    assert set(visits) == set(got)
    for key, rule in got.items():
        assert abs(rule.visits - visits[key]) <= 1e-12
        assert abs(rule.agree - agree[key]) <= 1e-12
        if rule.largest_reroll is not None:
            w, s = key
            rerolled = [
                stop_score(CARDS[card], g.dice(g.full_offset + j), RULES).points
                for j in range(g.n_full)
                if occ[w][j] > 0 and sol.worlds[w].policy[j, 0] >= 0
                and model.outcome[w][j] is Outcome.ALIVE
                and int(heuristic_tables(CARDS[card], RULES).skulls[j]) == s
            ]
            assert max(rerolled) == rule.largest_reroll


# -- the committed report ------------------------------------------------------------------

REPORT = ROOT / "docs" / "strategy.md"


def _headline() -> str:
    text = REPORT.read_text(encoding="utf-8")
    start, end = text.index("<!-- headline:start -->"), text.index("<!-- headline:end -->")
    return text[start:end]


def test_report_headline_numbers_come_from_the_engine() -> None:
    rows = {}
    for line in _headline().splitlines():
        m = re.match(r"\| (`\w+`|\*\*deck\*\*) \|", line)
        if m:
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`*")] = cells
    assert set(rows) == {*CARD_IDS, "deck"}
    evs = {}
    for card in CARD_IDS:
        sol = solve_turn(CARDS[card], RULES)
        evs[card] = float(sol.turn_value[0])
        stats = turn_stats(sol)
        assert rows[card][2] == f"{evs[card]:.1f}", card
        assert rows[card][3] == f"{100 * stats.p_bust:.1f} %", card
        assert rows[card][4] == f"{100 * stats.p_island:.1f} %", card
    assert rows["deck"][2] == f"{deck_average(evs):.1f}"
    # Published reference (team brief: supitalp/millesabords analysis/expected_values.md,
    # battle_swords_fill_chest=off): the captain's 1158 and none's 579, rounded.
    assert round(evs["captain"]) == 1158 and round(evs["none"]) == 579


def test_report_data_file_is_the_exact_distribution() -> None:
    lines = (ROOT / "docs" / "strategy-distributions.csv").read_text().splitlines()
    table: dict[str, list[tuple[str, int, float]]] = {}
    for line in lines[2:]:
        card, kind, points, q = line.split(",")
        table.setdefault(card, []).append((kind, int(points), float(q)))
    for card in ("none", "chest", "battle4"):
        assert tuple(table[card]) == optimal_distribution(CARDS[card], RULES).outcomes


def test_readme_quotes_the_report_headline() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/strategy.md" in readme
    assert _headline() in readme


def test_report_three_player_chapter_reads_the_committed_table() -> None:
    """The three-player chapter's chances from 0, 0, 0 and with a head start, and its record
    table, are the committed three-player table's (a reread, not a solve); its edge of playing
    to win is tables/profiles.json's, which belongs to that table's file."""
    from solver.advice.sources import Tables
    from solver.game.query import state_of
    from solver.rules.standing import Standing
    from solver.tables.profiles import read_edge

    text = REPORT.read_text(encoding="utf-8")
    chapter = text[text.index("## Playing to win (three players)"):]
    chapter = chapter[:chapter.index("\n## ", 1)]
    game = Tables().game(RULES, 3)

    def pct(p: float) -> str:
        return f"{100 * p:.1f} %"

    start = game.values["normal"][0]
    assert (f"The first player wins {pct(start[0])}, the second\n  {pct(start[1])}, the "
            f"third {pct(start[2])}") in chapter
    for head in (0, 500, 1000, 2000):
        name, index = state_of(game, Standing.of(Rules(), 0, (0, head)))
        row = "| " + " | ".join([str(head), *(pct(float(p)) for p in game.values[name][index])])
        assert row + " |" in chapter, head
    for name, rec in game.records.items():
        assert (f"| {name} | {rec.iterations} | {rec.bound:.1e} | {rec.gap:.1e} |"
                in chapter), name
    # the edge of playing to win: tables/profiles.json, made from this very table file
    edge = read_edge(RULES, 3)
    alone, points = edge.lone("win"), edge.lone("points")
    assert (f"expected points wins {pct(alone[0])} from the first seat, {pct(alone[1])} from "
            f"the second,\n  {pct(alone[2])} from the third") in chapter
    assert (f"wins {pct(points[0])}, {pct(points[1])}, {pct(points[2])}.") in chapter
