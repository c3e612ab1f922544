"""The exact solve (solver/engine/exact.py), its tables and its renderings.

Routes that must agree:

- **Reduced games against the naive brute force** of ``test_engine_bruteforce.py`` (ordered
  dice, legality from RULES.md, ``Fraction`` arithmetic): the exact values are *exactly* a
  fixed point of the naive Bellman operator (no tolerance: the operator is a contraction
  inside each layer, so its fixed point is unique and these are the optimal values), the turn
  value is the naive expectation of the first roll over them, the stored policy's move is the
  tie-break rule's among the naive reference's exactly best moves, and P(bust) is exactly the
  fixed point of the naive operator of that policy.
- **The float solve against the exact one**, 8 dice: every float value and keep value within
  the float solve's certified bound of the exact value (the float certificate, checked), for
  every card, several variants and ``AtLeast(N)``; each proof settles.
- **The committed tables**: every float is the exact value rounded to the nearest double.
- **Policy iteration**: a perturbed policy is caught by the exact check and repaired; a move
  exactly tied with the rule's is re-tied; an illegal move is refused.
"""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from math import comb, lcm
from typing import Any

import numpy as np
import pytest

from solver.advice.advisor import exact_values
from solver.advice.goals import exact_solution_for, solution_for
from solver.engine import (
    STOP,
    UNUSED,
    USED,
    AtLeast,
    ExpectedPoints,
    Objective,
    geometry,
    payoff_for,
    solve_payoff,
    turn_model,
)
from solver.engine.exact import (
    ExactSolution,
    PolicyError,
    exact_payoff,
    exact_turn,
    solve_exact,
    to_floats,
)
from solver.engine.exact_linear import doubles_over, solve_system, strong_components
from solver.engine.stats import (
    deck_average,
    exact_deck_average,
    exact_ending_payoff,
    exact_stats_of,
    turn_stats,
)
from solver.rational import decimal_is_exact, decimal_text, exact_text, fraction_text
from solver.rules import CARD_IDS, CARDS, DECK_SIZE, Rules, rules_with
from solver.rules.dice import Dice
from solver.tables.fileformat import fractions_of, pack_exact, pack_exact_ints
from solver.tables.paths import committed_dir
from solver.tables.turn import exact_solution, exact_stats, turn_table

from .conftest import advise_at, dice
from .test_engine_bruteforce import (
    DEDUCTION,
    FACES,
    POINTS,
    SKULL,
    Level,
    Naive,
    Utility,
    at_least,
    positions,
)

DEFAULT = Rules()

# --------------------------------------------------------------------------------------------
# Reduced games: the naive Fraction brute force
# --------------------------------------------------------------------------------------------

BUST = Utility("bust", lambda p, magic: Fraction(0), lambda p: Fraction(1), lambda d: Fraction(0))
"""P(bust) as a utility: 1 for a bust (a first-roll bust too), 0 for a stop or Skull Island."""


def exact_level(naive: Naive, exact: ExactSolution, column: int = 0) -> Level:
    """The exact values of a column as the naive reference's Level (positions as tuples)."""
    g = geometry(naive.n)
    value = {}
    for unused in naive.worlds():
        world = UNUSED if unused else USED
        layer = {}
        for pos in positions(naive.n):
            v = exact.worlds[world].value[g.full_index(Dice.from_faces(pos)), column]
            if naive.state(pos, first=False, unused=unused) == "bust":
                assert v is None, (pos, unused)
            else:
                layer[pos] = (v,)
        value[unused] = layer
    return Level.of(value)


def naive_moves(naive: Naive, pos: tuple[int, ...], unused: bool,
                level: Level) -> dict[tuple[int, bool], Fraction]:
    """Every distinct legal move of the naive reference from `pos`, valued on `level`:
    (STOP, False) or (partial index left on the table, uses the Sorceress)."""
    g = geometry(naive.n)
    state = naive.state(pos, first=False, unused=unused)
    out: dict[tuple[int, bool], Fraction] = {}
    if state == "alive":
        out[(STOP, False)] = naive.stop_utility(pos)[0]
    for rolled in naive.rerolls(pos, unused=unused, rescue=state == "rescue"):
        kept = [pos[i] for i in range(naive.n) if i not in rolled]
        move = (g.index([kept.count(f) for f in FACES]), any(pos[i] == SKULL for i in rolled))
        if move not in out:
            out[move] = naive.option_value(pos, rolled, unused, level)[0]
    return out


def rolled_for(pos: tuple[int, ...], counts: list[int]) -> frozenset[int]:
    """The die indices rolled from `pos` to leave the partial position `counts` on the table."""
    left = Counter({f: c for f, c in enumerate(counts) if c})
    rolled = []
    for i, face in enumerate(pos):
        if left[face]:
            left[face] -= 1
        else:
            rolled.append(i)
    return frozenset(rolled)


def rule_choice(moves: dict[tuple[int, bool], Fraction], n_dice: int) -> tuple[int, bool]:
    """The tie-break rule among the exactly best moves: stop, then no Sorceress, then the keep
    with the most dice, then the largest partial index (solver/engine/solve.py, TIE_TOL)."""
    g = geometry(n_dice)
    best = max(moves.values())
    tied = [m for m, v in moves.items() if v == best]
    if (STOP, False) in tied:
        return (STOP, False)
    pool = [m for m in tied if not m[1]] or tied
    return max(pool, key=lambda m: (int(g.total[m[0]]), m[0]))


REDUCED = [
    *((card, (), "points") for card in CARD_IDS),
    *((card, (), "at_least_600") for card in ("none", "chest", "sorceress", "battle2")),
    ("sorceress", ("sorceress_rescue=off",), "points"),
    ("sorceress", ("sorceress_alone=off", "keep_one=off"), "points"),
    ("chest", ("keep_one=off",), "at_least_600"),
    ("battle2", ("battle_swords_fill_chest=off",), "points"),
    ("skull1", ("card_skulls_block_chest=off",), "points"),
]


@pytest.mark.parametrize(("card", "variants", "objective"), REDUCED,
                         ids=[f"{c}-{'+'.join(v) or 'default'}-{o}" for c, v, o in REDUCED])
def test_reduced_games_are_exactly_the_naive_fixed_point(card: str, variants: tuple[str, ...],
                                                         objective: str) -> None:
    n = 4
    rules = rules_with(list(variants))
    utility, obj = (POINTS, ExpectedPoints()) if objective == "points" else (
        at_least(600), AtLeast(600))
    model = turn_model(CARDS[card], rules, n)
    exact, _ = exact_turn(CARDS[card], rules, obj, n_dice=n, evaluate=exact_ending_payoff(model))
    naive = Naive(card, rules, n, [utility])
    level = exact_level(naive, exact)
    assert naive.bellman(level).value == level.value  # exactly: no tolerance
    assert naive.turn_value(level)[0] == exact.value
    # the policy: the rule's choice among the naive reference's exactly best moves
    g = geometry(n)
    for unused in naive.worlds():
        ew = exact.worlds[UNUSED if unused else USED]
        for pos in level.value[unused]:
            moves = naive_moves(naive, pos, unused, level)
            y = g.full_index(Dice.from_faces(pos))
            assert max(moves.values()) == level.value[unused][pos][0]
            assert (int(ew.policy[y, 0]), bool(ew.sorceress[y, 0])) == rule_choice(moves, n), pos
    # P(bust) (column 1 of the ending payoff): the fixed point of the naive operator of the
    # proved policy, and its first-roll expectation
    walker = Naive(card, rules, n, [BUST])
    bust = exact_level(walker, exact, column=1)
    for unused in walker.worlds():
        ew = exact.worlds[UNUSED if unused else USED]
        for pos, (v,) in bust.value[unused].items():
            y = g.full_index(Dice.from_faces(pos))
            code = int(ew.policy[y, 0])
            want = Fraction(0) if code == STOP else walker.option_value(
                pos, rolled_for(pos, g.counts[code].tolist()), unused, bust)[0]
            assert v == want, pos
    assert walker.turn_value(bust)[0] == exact.turn_value[1]


ISLAND = Utility("island", lambda p, m: Fraction(0), lambda p: Fraction(0),
                 lambda d: Fraction(1))
"""P(Skull Island) as a utility."""
FILLER = 2
"""A face for the dice a keep rolls (a parrot: not a skull, so the Sorceress stays as she
is): their faces before the roll do not matter."""

EVERY_ARRAY = [("none", (), "points"), ("chest", (), "points"), ("sorceress", (), "points"),
               ("sorceress", ("sorceress_rescue=off",), "at_least_600"),
               ("battle2", (), "at_least_600"), ("skull1", ("card_skulls_block_chest=off",),
                                                 "points")]


@pytest.mark.parametrize(("card", "variants", "objective"), EVERY_ARRAY,
                         ids=[f"{c}-{'+'.join(v) or 'default'}-{o}" for c, v, o in EVERY_ARRAY])
def test_every_exact_array_is_the_naive_fraction_reference(card: str, variants: tuple[str, ...],
                                                           objective: str) -> None:
    # The exact solve works on integers over common denominators (FLINT's inverses for the
    # linear systems) and makes Fractions only at the end: every array it returns against
    # plain Fraction arithmetic on ordered dice, column by column (the objective and the
    # three ending payoffs), exactly and as Fractions (None where the turn is over).
    n = 4
    rules = rules_with(list(variants))
    utility, obj = (POINTS, ExpectedPoints()) if objective == "points" else (
        at_least(600), AtLeast(600))
    model = turn_model(CARDS[card], rules, n)
    exact, _ = exact_turn(CARDS[card], rules, obj, n_dice=n, evaluate=exact_ending_payoff(model))
    naive = Naive(card, rules, n, [utility, BUST, ISLAND, DEDUCTION])
    g = geometry(n)
    values = {}
    for unused in naive.worlds():
        value = exact.worlds[UNUSED if unused else USED].value
        layer = {}
        for pos in positions(n):
            row = tuple(value[g.full_index(Dice.from_faces(pos))])
            if naive.state(pos, first=False, unused=unused) == "bust":
                assert row == (None,) * 4, pos
            else:
                assert all(type(v) is Fraction for v in row), pos
                layer[pos] = row
        values[unused] = layer
    level = Level.of(values)
    # every keep, legal or not: keep the partial position and roll the other dice
    for unused in naive.worlds():
        keep = exact.worlds[UNUSED if unused else USED].keep_value
        for index, counts in enumerate(g.counts.tolist()):
            kept = tuple(f for f in FACES for _ in range(counts[f]))
            rolled = n - len(kept)
            if rolled:
                want = naive.option_value(kept + (FILLER,) * rolled,
                                          frozenset(range(len(kept), n)), unused, level)
            elif naive.state(kept, first=False, unused=unused) == "bust":
                want = naive.bust_utility(kept)
            else:
                want = level.value[unused][kept]
            got = tuple(keep[index])
            assert got == want and all(type(v) is Fraction for v in got), (unused, kept)
    # the first roll and the turn
    start = naive.card.sorceress
    for pos in positions(n):
        state = naive.state(pos, first=True, unused=start)
        want = (naive.island_utility(pos) if state == "island" else
                naive.bust_utility(None) if state == "bust" else level.value[start][pos])
        got = tuple(exact.first_value[g.full_index(Dice.from_faces(pos))])
        assert got == want and all(type(v) is Fraction for v in got), pos
    assert exact.turn_value == naive.turn_value(level)
    assert all(type(v) is Fraction for v in exact.turn_value)


@pytest.mark.parametrize("card", ["none", "sorceress", "skull1"])
def test_island_statistics_of_reduced_games_are_the_naive_ones(card: str) -> None:
    # Skull Island only follows the first roll: its probability and deduction are the naive
    # first-roll expectations of the island indicator and the deduction (no decision enters)
    n = 4
    model = turn_model(CARDS[card], DEFAULT, n)
    exact, _ = exact_turn(CARDS[card], DEFAULT, n_dice=n, evaluate=exact_ending_payoff(model))
    island = Utility("island", lambda p, m: Fraction(0), lambda p: Fraction(0),
                     lambda d: Fraction(1))
    deduction = Utility("deduction", lambda p, m: Fraction(0), lambda p: Fraction(0), Fraction)
    naive = Naive(card, DEFAULT, n, [island, deduction])
    zero = Level.of(naive.horizon_zero())
    assert naive.turn_value(zero) == exact.turn_value[2:]


# --------------------------------------------------------------------------------------------
# 8 dice: the float certificate against the exact values; every proof settles
# --------------------------------------------------------------------------------------------


def within_bound(exact: ExactSolution, floats: object, bound: float) -> None:
    """Every float value and keep value within `bound` of the exact value (the float rounding
    of the exact value, half an ulp, allowed on top)."""
    pairs = [(exact.first_value[:, :1], floats.first_value),
             (np.array(exact.turn_value[:1], dtype=object), floats.turn_value)]
    for w, ew in exact.worlds.items():
        fw = floats.worlds[w]
        pairs += [(ew.value[:, :1], fw.value), (ew.keep_value[:, :1], fw.keep_value)]
        assert np.array_equal(ew.policy, fw.policy[:, :1])
        assert np.array_equal(ew.sorceress, fw.sorceress[:, :1])
    for e, f in pairs:
        x = to_floats(e)
        assert np.array_equal(np.isnan(x), np.isnan(f))
        ok = ~np.isnan(x)
        slack = bound + np.spacing(np.abs(x[ok]))
        assert np.all(np.abs(x[ok] - f[ok]) <= slack)


PROVED = [
    *((card, (), None) for card in CARD_IDS),
    ("sorceress", ("keep_one=off",), None),
    ("sorceress", ("sorceress_rescue=off",), None),
    ("sorceress", ("sorceress_alone=off",), None),
    ("battle2", ("battle_swords_fill_chest=off",), None),
    ("coin", ("nine_of_a_kind=set",), None),
    ("none", (), AtLeast(1000)),
    ("chest", (), AtLeast(1500)),
    ("sorceress", (), AtLeast(2000)),
    ("battle4", (), AtLeast(600)),
]


@pytest.mark.parametrize(("card", "variants", "objective"), PROVED,
                         ids=[f"{c}-{'+'.join(v) or 'default'}-{o.key() if o else 'points'}"
                              for c, v, o in PROVED])
def test_every_card_proves_optimal_and_the_float_bound_holds(
        card: str, variants: tuple[str, ...], objective: Objective | None) -> None:
    rules = rules_with(list(variants))
    exact, floats = exact_turn(CARDS[card], rules, objective)
    # the proof settled from the float policy; where the float policy was optimal and
    # tie-broken by the rule, one exact solve a layer sufficed
    p = exact.proof
    assert p.layer_solves >= len(turn_model(CARDS[card], rules).worlds)
    if p.changed == 0:
        assert p.improved == p.retied == 0
    else:  # a near-tie the floats got wrong: the values stay within their bound, the
        assert p.improved + p.retied >= 1  # policies may differ there
    if p.changed == 0:
        within_bound(exact, floats, floats.bound)
    else:
        assert abs(Fraction(float(floats.turn_value[0])) - exact.value) <= floats.bound
    if objective is None and not variants:  # the committed table holds these very values
        assert exact_solution(CARDS[card], DEFAULT).turn_value == exact.turn_value[:1]


def test_known_fractions_of_the_issue_trial() -> None:
    # A second computation, not an independent oracle: the first trial (FLINT on the float
    # policy, by another session) found these; the naive routes above are the oracles.
    assert exact_solution(CARDS["none"], DEFAULT).value == Fraction(3884764731712957155517,
                                                             6711770914379661312)
    assert exact_solution(CARDS["skull2"], DEFAULT).value == Fraction(134877235, 1197504)


# --------------------------------------------------------------------------------------------
# Policy iteration: caught, repaired, re-tied, refused
# --------------------------------------------------------------------------------------------


def _points(card: str, rules: Rules = DEFAULT, objective: Objective | None = None
            ) -> tuple[object, object, ExactSolution]:
    objective = objective or ExpectedPoints()
    model = turn_model(CARDS[card], rules)
    floats = solve_payoff(model, payoff_for(model, objective), objective.key())
    exact = solve_exact(model, exact_payoff(model, objective), floats.policy(), objective.key())
    return model, floats, exact


def _same_solution(a: ExactSolution, b: ExactSolution) -> bool:
    return (a.turn_value == b.turn_value
            and all(np.array_equal(a.worlds[w].value, b.worlds[w].value)
                    and np.array_equal(a.worlds[w].keep_value, b.worlds[w].keep_value)
                    and np.array_equal(a.worlds[w].policy, b.worlds[w].policy)
                    and np.array_equal(a.worlds[w].sorceress, b.worlds[w].sorceress)
                    for w in a.worlds))


def test_a_perturbed_policy_is_caught_and_repaired() -> None:
    model, floats, base = _points("none")
    g = model.geometry
    code, sor = (a.copy() for a in floats.policy()[USED])
    # ppppcddd (1200 points, no skull) stops; make it keep the four parrots and roll the rest
    y = g.full_index(dice("ppppcddd"))
    assert code[y, 0] == STOP
    code[y, 0] = g.index([0, 0, 4, 0, 0, 0])
    perturbed = solve_exact(model, exact_payoff(model, ExpectedPoints()), {USED: (code, sor)},
                            ("ExpectedPoints",))
    assert perturbed.proof.improved >= 1  # caught: stopping there is strictly better
    assert perturbed.proof.layer_solves > base.proof.layer_solves  # policy iteration ran
    assert _same_solution(perturbed, base)  # repaired: the optimal values and policy
    assert perturbed.worlds[USED].policy[y, 0] == STOP


def test_a_perturbed_sorceress_move_is_caught_and_repaired() -> None:
    model, floats, base = _points("sorceress")
    g = model.geometry
    policy = {w: tuple(a.copy() for a in arrays)
              for w, arrays in floats.policy().items()}
    code, sor = policy[UNUSED]
    # kkmmppsc: the best move rerolls a skull with the lone sword (keep m m p p c); make it a
    # plain reroll of the sword and the coin instead
    y = g.full_index(dice("kkmmppsc"))
    assert sor[y, 0] and code[y, 0] == g.index([1, 2, 2, 0, 1, 0])
    code[y, 0], sor[y, 0] = g.index([2, 2, 2, 0, 0, 0]), False
    perturbed = solve_exact(model, exact_payoff(model, ExpectedPoints()), policy,
                            ("ExpectedPoints",))
    assert perturbed.proof.improved >= 1
    assert _same_solution(perturbed, base)


def test_a_move_exactly_tied_with_the_rules_choice_is_retied() -> None:
    # With the chest, six coins on the chest are worth 1600 even on a bust: for "at least
    # 600", keeping them and rolling the other two dice is exactly as good as stopping (both
    # are certain), and the rule stops.
    model, floats, base = _points("chest", objective=AtLeast(600))
    g = model.geometry
    code, sor = (a.copy() for a in floats.policy()[USED])
    y = g.full_index(dice("ccccccmp"))
    keep = g.index([0, 0, 0, 0, 6, 0])
    assert code[y, 0] == STOP and base.worlds[USED].keep_value[keep, 0] == 1
    code[y, 0] = keep
    retied = solve_exact(model, exact_payoff(model, AtLeast(600)), {USED: (code, sor)},
                         ("AtLeast", 600))
    assert retied.proof.improved == 0 and retied.proof.retied >= 1
    assert _same_solution(retied, base)


def test_an_illegal_policy_is_refused() -> None:
    model, floats, _ = _points("none")
    g = model.geometry
    code, sor = (a.copy() for a in floats.policy()[USED])
    code[g.full_index(dice("ppppcddd")), 0] = g.index([0] * 6)  # keep nothing: keep_one
    with pytest.raises(PolicyError, match="is not a legal move there"):
        solve_exact(model, exact_payoff(model, ExpectedPoints()), {USED: (code, sor)})


def test_the_block_triangular_solve_is_the_dense_solve() -> None:
    # a cycle 0 -> 1 -> 2 -> 0 feeding a self-loop 3 and a sink 4, and a lone row 5
    diag = np.array([36, 36, 216, 36, 6, 7])
    owner = np.array([0, 1, 2, 2, 3, 3, 0])
    target = np.array([1, 2, 0, 3, 3, 4, 4])
    ways = np.array([5, 10, 25, 1, 10, 3, 2])
    rhs = np.array([[7, 1], [0, 2], [3, 3], [11, 4], [5, 5], [-6, 6]], dtype=object)
    den = 10
    num, x_den = solve_system(diag, owner, target, ways, rhs, den)
    x = num * Fraction(1, x_den)
    a = np.diag(diag).astype(object)
    for i, j, w in zip(owner, target, ways, strict=True):
        a[i, j] -= w
    residual = a.dot(x) - rhs / Fraction(den)
    assert all(v == 0 for v in residual.reshape(-1).tolist())
    # on the least common denominator of the solution and `den`
    assert x_den == lcm(den, *(v.denominator for v in x.reshape(-1).tolist()))
    assert all(type(v) is int for v in num.reshape(-1).tolist())


@pytest.mark.parametrize("seed", range(3))
def test_random_block_triangular_systems_are_solved_exactly(seed: int) -> None:
    # strictly diagonally dominant systems with cycles, self-loops, repeated edges and lone
    # unknowns (the components by a division, by FLINT's inverses, level by level): the
    # residual is exactly 0 and the denominator the least one
    rng = np.random.default_rng(seed)
    for _ in range(30):
        m, b = int(rng.integers(1, 30)), int(rng.integers(1, 4))
        e = int(rng.integers(0, 3 * m))
        owner, target = rng.integers(0, m, e), rng.integers(0, m, e)
        ways = rng.integers(1, 20, e)
        diag = np.bincount(owner, weights=ways, minlength=m).astype(np.int64) + \
            rng.integers(1, 50, m)
        rhs = np.array([int(v) * 10**12 + 7 for v in rng.integers(-10**6, 10**6, (m, b))
                        .reshape(-1)], dtype=object).reshape(m, b)
        den = int(rng.integers(1, 10**6))
        num, x_den = solve_system(diag, owner, target, ways, rhs, den)
        x = num * Fraction(1, x_den)
        a = np.diag(diag).astype(object)
        np.add.at(a, (owner, target), -ways.astype(object))
        assert all(v == 0 for v in (a.dot(x) - rhs / Fraction(den)).reshape(-1).tolist())
        assert x_den == lcm(den, *(v.denominator for v in x.reshape(-1).tolist()))


def test_doubles_are_their_exact_values_over_one_denominator() -> None:
    # the payoffs' doubles as integers over their least common denominator, vectorised: each
    # the exact value Fraction(double) gives, subnormals and huge doubles too
    rng = np.random.default_rng(3)
    for values in (np.array([0.0, -0.0, 3.0, -1200.0, 2.0**61]),
                   rng.normal(size=50) * 10.0 ** rng.integers(-30, 30, 50),
                   np.array([0.1, 1e-300, 5e-324, 1e300, -2.5]).reshape(5, 1)):
        num, den = doubles_over(values)
        exact = [Fraction(x) for x in values.reshape(-1).tolist()]
        assert [Fraction(v, den) for v in num.reshape(-1).tolist()] == exact
        assert num.shape == values.shape and den == lcm(1, *(x.denominator for x in exact))
    with pytest.raises(ValueError, match="finite"):
        doubles_over(np.array([1.0, np.nan]))


def test_exact_arrays_pack_to_the_same_bytes_on_any_denominator() -> None:
    # a table's exact array is the same bytes whichever common denominator its numbers came on
    values = [Fraction(3, 4), Fraction(-5, 6), None, Fraction(0), Fraction(7)]
    packed = pack_exact(np.array(values, dtype=object))
    assert packed["den"] == "12"
    for den in (12, 24, 12 * 10**30):
        nums = [0 if v is None else int(v * den) for v in values]
        assert pack_exact_ints(nums, den, (5,)) == packed
    assert fractions_of(packed) == [Fraction(0) if v is None else v for v in values]


# --------------------------------------------------------------------------------------------
# The tables, the statistics, the deck
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("card", CARD_IDS)
def test_the_shipped_floats_are_the_exact_values_rounded(card: str) -> None:
    table = turn_table(CARDS[card], DEFAULT, committed_dir())
    exact, sol = table.exact(), table.solution
    assert to_floats(np.array(exact.turn_value, dtype=object)).tolist() == sol.turn_value.tolist()
    assert np.array_equal(to_floats(exact.first_value), sol.first_value)
    for w, ew in exact.worlds.items():
        ws = sol.worlds[w]
        assert np.array_equal(to_floats(ew.value), ws.value, equal_nan=True)
        assert np.array_equal(to_floats(ew.keep_value), ws.keep_value)
        assert np.array_equal(ew.policy, ws.policy) and np.array_equal(ew.sorceress,
                                                                      ws.sorceress)
    stats = table.exact_stats()
    for name, value in table.stats.as_dict().items():
        assert value == float(getattr(stats, name)), name
    assert stats.ev == exact.value


def test_exact_statistics_are_the_policy_evaluation() -> None:
    # P(Skull Island) is the first-roll law (4+ skull dice of 8, RULES.md A turn step 3),
    # exactly; the captain's island costs twice as much; the float statistics of the float
    # solve meet the exact ones within their bound
    law = sum((comb(8, j) * Fraction(1, 6) ** j * Fraction(5, 6) ** (8 - j)
               for j in range(4, 9)), Fraction(0))
    none, captain = exact_stats(CARDS["none"], DEFAULT), exact_stats(CARDS["captain"], DEFAULT)
    assert none.p_island == law == captain.p_island
    assert captain.island_deduction == 2 * none.island_deduction
    assert exact_stats(CARDS["battle3"], DEFAULT).p_island == 0
    model = turn_model(CARDS["chest"], DEFAULT)
    exact, floats = exact_turn(CARDS["chest"], DEFAULT, evaluate=exact_ending_payoff(model))
    stats, approx = exact_stats_of(exact), turn_stats(floats)
    assert stats == exact_stats(CARDS["chest"], DEFAULT)
    for name in ("p_bust", "p_island", "island_deduction"):
        assert abs(Fraction(getattr(approx, name)) - getattr(stats, name)) <= approx.bound


def test_the_deck_average_is_the_exact_weighted_sum() -> None:
    evs = {c: exact_stats(CARDS[c], DEFAULT).ev for c in CARD_IDS}
    weighted = sum((CARDS[c].count * evs[c] for c in CARD_IDS), Fraction(0)) / DECK_SIZE
    deck = exact_deck_average(evs)
    assert deck == weighted
    assert deck.denominator > 1  # a fraction, not a rounded number
    floats = deck_average({c: float(v) for c, v in evs.items()})
    assert abs(Fraction(floats) - deck) <= 1e-12 * abs(deck)
    with pytest.raises(KeyError):
        exact_deck_average({"none": Fraction(1)})


# --------------------------------------------------------------------------------------------
# The advisor's exact values
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("card", "position", "need"),
                         [("sorceress", "kkmmppsc", None), ("sorceress", "kkkmmpsc", None),
                          ("chest", "kkmpsssc", 1500), ("none", "mmmpppsc", None)])
def test_every_option_has_its_exact_value(card: str, position: str, need: int | None) -> None:
    solution = solution_for(CARDS[card], DEFAULT, need)
    advice = advise_at(CARDS[card], dice(position), DEFAULT, need=need, solution=solution)
    exact = exact_values(advice, exact_solution_for(CARDS[card], DEFAULT, need, solution=solution))
    assert len(exact.options) == len(advice.options)
    assert exact.value == max(exact.options) and min(exact.regrets) == 0
    for option, value in zip(advice.options, exact.options, strict=True):
        if need is None:  # the tables' floats are the exact values rounded
            assert option.value == float(value)
        else:
            assert abs(Fraction(option.value) - value) <= solution.bound


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


def _digits_by_integers(x: Fraction, digits: int) -> str:
    """The decimal expansion to `digits` significant digits, half to even, by integer
    arithmetic alone (independent of the decimal module)."""
    sign, x = ("-" if x < 0 else ""), abs(x)
    exponent = 0
    while x >= 10 ** (exponent + 1):
        exponent += 1
    while x < 10**exponent:
        exponent -= 1
    shift = digits - 1 - exponent  # x * 10**shift has `digits` digits before the point
    scaled = x * Fraction(10) ** shift
    q, r = divmod(scaled.numerator, scaled.denominator)
    if 2 * r > scaled.denominator or (2 * r == scaled.denominator and q % 2):
        q += 1
    return sign + format(Decimal(f"{q}E{-shift}"), "f")  # exact: no context rounding


@pytest.mark.parametrize("x", [Fraction(3884764731712957155517, 6711770914379661312),
                               Fraction(-277447275133626288109709, 1783032043471810560000),
                               Fraction(2, 3), Fraction(1, 7 * 10**12), Fraction(51491, 1679616)])
def test_decimal_expansion_is_correctly_rounded_to_30_digits(x: Fraction) -> None:
    assert decimal_text(x) == _digits_by_integers(x, 30)
    assert not decimal_is_exact(x)
    assert exact_text(x) == f"{x.numerator}/{x.denominator} ≈ {decimal_text(x)}"
    assert Fraction(fraction_text(x)) == x


def test_renderings_of_short_and_whole_numbers() -> None:
    assert decimal_text(Fraction(1, 4)) == "0.25" and decimal_is_exact(Fraction(1, 4))
    assert exact_text(Fraction(1175, 4)) == "1175/4 = 293.75"
    assert exact_text(Fraction(-300)) == fraction_text(-300) == "-300"
    assert decimal_text(Fraction(1, 8), 2) == "0.12"  # half to even
    assert decimal_text(Fraction(3, 8), 2) == "0.38"
    assert decimal_text(0) == "0"
    with pytest.raises(ValueError, match="at least 1 significant digit"):
        decimal_text(Fraction(1, 3), 0)


# -- the command line: `ev --exact`, `advise --exact` ------------------------------------------


def test_ev_exact_json_gives_every_card_and_the_deck_as_fractions(sabords: Any) -> None:
    result = sabords("ev", "--exact", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    cards = data["cards"]
    assert sorted(cards) == sorted(CARD_IDS)
    exact = {c: Fraction(v["exact"]) for c, v in cards.items()}
    for c, v in cards.items():
        assert float(exact[c]) == v["ev"]  # the shipped float is the exact value rounded
    assert Fraction(data["deck_ev_exact"]) == exact_deck_average(exact)
    # the first trial: none = 3884764731712957155517 / 6711770914379661312
    assert exact["none"] == Fraction(3884764731712957155517, 6711770914379661312)
    assert exact["skull2"] == Fraction(134877235, 1197504)


def test_ev_exact_text_prints_fraction_and_decimal(sabords: Any) -> None:
    result = sabords("ev", "--exact", "--card", "skull2")
    assert result.exit_code == 0, result.stderr
    assert "134877235/1197504" in result.stdout
    assert f"≈ {decimal_text(Fraction(134877235, 1197504))}" in result.stdout
    assert "proved optimal" in result.stdout


def test_advise_exact_values_round_to_the_float_values(sabords: Any) -> None:
    for args in (("sorceress", "kkmmppsc"), ("none", "ccccmmpk", "--need", "1000")):
        result = sabords("advise", *args, "--exact", "--json")
        assert result.exit_code == 0, result.stderr
        data = json.loads(result.stdout)
        assert abs(float(Fraction(data["exact"])) - data["value"]) <= 1e-9
        values = [Fraction(o["exact"]) for o in data["options"]]
        assert max(values) == Fraction(data["exact"])
        for o, v in zip(data["options"], values, strict=True):
            assert abs(float(v) - o["value"]) <= 1e-9
        text = sabords("advise", *args, "--exact", "--top", "2").stdout
        assert data["options"][1]["exact"] in text


def test_advise_exact_refuses_the_win_objective_in_one_line(sabords: Any) -> None:
    result = sabords("advise", "none", "ccccmmpk", "--me", "0", "--opp", "0", "--exact")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "--exact" in result.stderr


@pytest.mark.parametrize("seed", range(4))
def test_the_strong_components_are_scipys(seed: int) -> None:
    # the exact solve's own Tarjan against scipy's connected_components: the same partition
    # of the nodes, on random graphs from empty to dense, self-loops and repeated edges too
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(seed)
    for _ in range(100):
        m = int(rng.integers(1, 80))
        e = int(rng.integers(0, 4 * m))
        owner, target = rng.integers(0, m, e), rng.integers(0, m, e)
        n, comp = strong_components(m, owner, target)
        n_ref, ref = connected_components(csr_matrix((np.ones(e), (owner, target)),
                                                     shape=(m, m)),
                                          directed=True, connection="strong")
        pairs = set(zip(comp.tolist(), ref.tolist(), strict=True))
        assert n == n_ref and len(pairs) == n == len(set(comp.tolist()))
        # numbered as they close: an edge between two components runs to a smaller number
        cross = comp[owner] != comp[target]
        assert np.all(comp[owner][cross] > comp[target][cross])
