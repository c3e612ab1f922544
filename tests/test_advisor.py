"""The advisor (`solver.advice.advisor`, `sabords advise`, `sabords turn`).

Oracles:
- the solver's own values (:func:`solver.engine.solve_turn`): a position's value is the best
  option's value; each option's value is the keep value of what stays on the table;
- an independent computation of every option: the sum, over every outcome of the rolled dice
  (enumerated as multisets with their exact multinomial probability, no engine geometry), of
  the solution's value of the position it leads to, or the bust payoff (RULES.md, Bust);
  the bust risk is the same sum with 1 for a bust;
- for `--need`, a naive value iteration over the 2-skull layer of the `none` card, where any
  skull rolled busts for 0 points (RULES.md, A turn, step 4), written from the rules functions
  alone; and the hand value 9/20 of keeping 4 coins and rolling 2 dice until a coin shows;
- Skull Island: :func:`solver.rules.scoring.island_distribution`; the chest bust of RULES.md's
  worked examples (3 coins and 1 diamond on the chest: 500).
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations_with_replacement
from math import factorial
from pathlib import Path

import numpy as np
import pytest

from solver.advice.advisor import BEST_TOLERANCE, Advice, Position, advise, exact_values, tie_key
from solver.advice.choices import AmbiguousMoveError, chosen_option
from solver.advice.goals import AdviceError, Goal, check_need, exact_solution_for, solve_goal
from solver.engine import STOP, TIE_TOL, UNUSED, USED, AtLeast, TurnSolution, geometry, solve_turn
from solver.rules import CARD_IDS, CARDS, NUM_DICE, Rules, get_card
from solver.rules.dice import Dice, DiceNotationError
from solver.rules.moves import IllegalMoveError, can_stop, legal_rerolls, reroll_is_legal
from solver.rules.notes import Note, note_text
from solver.rules.scoring import Outcome, bust_score, classify_roll, island_distribution, stop_score
from solver.rules.standing import Standing
from solver.words.sentences import advice_sentence

from .conftest import advise_at, assert_one_line_error, dice, run_sabords

RULES = Rules()


@pytest.fixture(scope="module")
def solutions() -> dict[str, TurnSolution]:
    """Expected-points solutions of every card, solved here (about 1 s for the 12)."""
    return {card: solve_turn(CARDS[card], RULES) for card in CARD_IDS}


@pytest.fixture(scope="module")
def tables_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A policy table written like `sabords solve --out DIR` (the other tests read the
    repository's committed tables, as `sabords advise` does by default)."""
    from solver.tables.turn import build_table, write_table

    directory = tmp_path_factory.mktemp("advisor-tables")
    write_table(build_table(CARDS["chest"], RULES), directory)
    return directory


# -- the independent computation ----------------------------------------------------------------


@cache
def outcomes(rolled: int) -> tuple[tuple[Dice, Fraction], ...]:
    """Every multiset `rolled` dice can show, with its exact probability."""
    out = []
    for faces in combinations_with_replacement(range(6), rolled):
        o = Dice.from_faces(faces)
        ways = factorial(rolled)
        for n in o.counts:
            ways //= factorial(n)
        out.append((o, Fraction(ways, 6**rolled)))
    return tuple(out)


def independent_option(advice: Advice, option_index: int, sol: TurnSolution) -> tuple[float,
                                                                                     Fraction]:
    """(value, bust risk) of a reroll, summed over the outcomes of its rolled dice: the
    solution's value of each position reached, or the bust payoff (the chest holds the kept
    dice)."""
    option = advice.options[option_index]
    card, position = advice.card, advice.dice
    unused_after = card.sorceress and not advice.sorceress_used and not option.sorceress
    world_after = UNUSED if unused_after else USED
    stays = (position.skulls - option.sorceress, *option.keep.counts[1:])
    value, p_bust = 0.0, Fraction(0)
    for o, p in outcomes(option.reroll.total):
        after = tuple(a + b for a, b in zip(stays, o.counts, strict=True))
        v = reached_value(sol, card.id, after, world_after, unused_after)
        if v is None:
            p_bust += p
            value += float(p) * bust_score(card, option.keep, RULES)
        else:
            value += float(p) * v
    return value, p_bust


@lru_cache(maxsize=100_000)
def _reached(card: str, counts: tuple[int, ...], unused: bool) -> Outcome:
    return classify_roll(CARDS[card], Dice.of(counts), RULES, first=False, sorceress_unused=unused)


def reached_value(sol: TurnSolution, card: str, counts: tuple[int, ...], world: int,
                  unused: bool) -> float | None:
    """The solution's value of landing on `counts` after a reroll; None for a bust."""
    if _reached(card, counts, unused) is Outcome.BUST:
        return None
    return float(sol.worlds[world].value[geometry().index(counts) - geometry().full_offset, 0])


def random_positions(card: str, unused: bool, count: int, seed: int) -> list[Dice]:
    """`count` distinct positions where the turn goes on, from rolls of 8 fair dice."""
    rng = random.Random(seed)
    out: list[Dice] = []
    while len(out) < count:
        d = Dice.from_faces(rng.randrange(6) for _ in range(NUM_DICE))
        live = classify_roll(CARDS[card], d, RULES, first=False, sorceress_unused=unused)
        if live is not Outcome.BUST and d not in out:
            out.append(d)
    return out


CASES = [(card, False) for card in CARD_IDS] + [("sorceress", True)]


@pytest.mark.parametrize(("card", "unused"), CASES, ids=[f"{c}-{'unused' if u else 'used'}"
                                                          for c, u in CASES])
def test_option_values_equal_the_solution_and_the_sum_over_outcomes(
    solutions: dict[str, TurnSolution], card: str, unused: bool
) -> None:
    sol = solutions[card]
    world = UNUSED if unused else USED
    is_sorceress = get_card(card).sorceress
    for position in random_positions(card, unused, 3, seed=CARD_IDS.index(card) + 100 * unused):
        advice = advise_at(CARDS[card], position, RULES, sorceress_used=is_sorceress and not unused,
                        solution=sol)
        assert advice.kind is classify_roll(CARDS[card], position, RULES, first=False,
                                            sorceress_unused=unused)
        # The position's value is the solver's, and it is the best option's.
        solver_value = sol.worlds[world].value[geometry().full_index(position), 0]
        assert advice.value == pytest.approx(solver_value, abs=sol.bound + 1e-9)
        # Exactly the legal options, each once.
        moves = {(o.keep, o.sorceress) for o in advice.options if o.action == "reroll"}
        legal = {(m.keep, m.sorceress)
                 for m in legal_rerolls(CARDS[card], position, RULES, sorceress_unused=unused)}
        assert moves == legal
        assert len(moves) == sum(o.action == "reroll" for o in advice.options)
        stops = [o for o in advice.options if o.action == "stop"]
        assert len(stops) == can_stop(CARDS[card], position, RULES, sorceress_unused=unused)
        for stop in stops:
            assert stop.value == stop_score(CARDS[card], position, RULES).points
            assert stop.p_bust == 0.0 and stop.reroll == Dice.of((0,) * 6)
        for i, option in enumerate(advice.options):
            if option.action == "stop":
                continue
            value, p_bust = independent_option(advice, i, sol)
            assert option.value == pytest.approx(value, abs=sol.bound + 1e-9 * max(1, abs(value)))
            assert option.p_bust == pytest.approx(float(p_bust), abs=1e-15)
            assert option.reroll.total == NUM_DICE - position.skulls - option.keep.total + \
                option.sorceress
            assert option.reroll.skulls == option.sorceress
        # Ranking: best first, regret against the best, best = within the tolerance.
        top = max(o.value for o in advice.options)
        assert advice.value == top
        for option in advice.options:
            assert option.regret == top - option.value
            assert option.best == (top - option.value <= BEST_TOLERANCE)
        flags = [o.best for o in advice.options]
        assert flags == sorted(flags, reverse=True)
        # Best first; values within the engine's tie tolerance (last-bit ties included) in
        # the engine's tie order, never by their last bits; each option lists its ties.
        for a, b in zip(advice.options, advice.options[1:], strict=False):
            assert a.value >= b.value - TIE_TOL
            if b.value > a.value:  # only a tie may put a smaller value first
                assert abs(a.value - b.value) <= TIE_TOL
                assert tie_key(position, a.move) < tie_key(position, b.move)
        # each option's ties are the others of its run: the options the engine's tie order
        # ranks among themselves, all within the tie tolerance of the run's first, which is
        # more than the tolerance below the run before
        values = [o.value for o in advice.options]
        for rank, option in enumerate(advice.options, 1):
            run = sorted((rank, *option.ties))
            assert run == list(range(run[0], run[-1] + 1)), (rank, run)
            first, last = run[0] - 1, run[-1]
            top = max(values[first:last])  # the best value left takes every value within
            assert min(values[first:last]) >= top - TIE_TOL  # the tolerance of it, no other
            assert all(v < top - TIE_TOL for v in values[last:])


def test_tables_give_the_solution_values(solutions: dict[str, TurnSolution],
                                         tables_dir: Path) -> None:
    """Read through the policy tables (`--tables`), the advice is the fresh solve's: the same
    options in the same order, each value the table's exact value rounded to the nearest
    double, within the fresh float solve's certified bound of it."""
    position = dice("kkmpsssc")
    from_tables = advise_at(CARDS["chest"], position, RULES, tables_dir=tables_dir)
    fresh = advise_at(CARDS["chest"], position, RULES, solution=solutions["chest"])
    exact = exact_values(from_tables, exact_solution_for(CARDS["chest"], RULES,
                                                         tables_dir=tables_dir))
    assert [(o.action, o.keep, o.sorceress, o.p_bust) for o in from_tables.options] == \
        [(o.action, o.keep, o.sorceress, o.p_bust) for o in fresh.options]
    assert from_tables.value == float(exact.value)
    for table_option, fresh_option, value in zip(from_tables.options, fresh.options,
                                                 exact.options, strict=True):
        assert table_option.value == float(value)
        assert abs(Fraction(fresh_option.value) - value) <= solutions["chest"].bound


def _policy_move(solution: TurnSolution, world: int, j: int) -> tuple[str, str, bool]:
    """The solution's policy at full position `j` of `world`: (action, keep, Sorceress)."""
    g = geometry()
    code = int(solution.worlds[world].policy[j, 0])
    if code == STOP:
        return ("stop", str(g.dice(g.full_offset + j).without_skulls()), False)
    return ("reroll", str(g.dice(code).without_skulls()),
            bool(solution.worlds[world].sorceress[j, 0]))


GOALS = [Goal(), Goal(need=1000), Goal(standing=Standing.of(RULES, 2000, [3000]))]


@pytest.mark.slow
@pytest.mark.parametrize("goal", GOALS, ids=["points", "need-1000", "win-2000-3000"])
def test_the_first_option_is_the_policy_move_at_every_live_position(goal: Goal) -> None:
    """One tie rule: at every live position of every card and world, the advisor's first
    option is the solution's policy move (the table's for expected points, the engine's solve
    for a need or a win), ties included. Before the fix (the advisor ordered ties by
    str(keep) within 1e-9) 2325, 3180 and 2352 of the 12831 live positions differed for these
    three goals (under `animals`, kkmpsccd kept mccd, the policy pccd)."""
    from solver.advice.sources import Tables

    g = geometry()
    game = Tables().game(RULES, 2) if goal.name == "win" else None
    checked = 0
    for card in CARDS.values():
        solved = solve_goal(card, RULES, goal, game=game)
        for world in solved.solution.worlds:
            used = card.sorceress and world == USED
            for j in np.flatnonzero(solved.solution.worlds[world].policy[:, 0] >= STOP):
                position = g.dice(g.full_offset + int(j))
                advice = advise(Position(card, position, RULES, sorceress_used=used), solved)
                first = advice.options[0]
                assert (first.action, str(first.keep), first.sorceress) == \
                    _policy_move(solved.solution, world, int(j)), (card.id, world, position)
                checked += 1
    assert checked == 12831  # every live position: the 12 cards, both worlds of the Sorceress


def test_sorceress_moves_are_valued_in_the_used_world(solutions: dict[str, TurnSolution]) -> None:
    """A Sorceress reroll from (s, M) keeping K is the used world's keep value of (s-1, K)."""
    sol = solutions["sorceress"]
    advice = advise_at(CARDS["sorceress"], dice("kkmmppsc"), RULES, solution=sol)
    g = geometry()
    sorceress_moves = [o for o in advice.options if o.sorceress]
    assert sorceress_moves
    for option in sorceress_moves:
        counts = (1, *option.keep.counts[1:])
        assert option.value == sol.worlds[USED].keep_value[g.index(counts), 0]
    # The best move here uses her: reroll the skull with the lone sword (keep m m p p c).
    best = advice.options[0]
    assert best.sorceress and str(best.reroll) == "ks" and str(best.keep) == "mmppc"
    assert advice_sentence(advice).startswith("Use the Sorceress: reroll one skull with s")


# -- special positions ----------------------------------------------------------------------------


def test_bust_has_nothing_to_decide() -> None:
    advice = advise_at(CARDS["none"], dice("kkkmmppc"), RULES)
    assert advice.kind is Outcome.BUST and advice.options == () and advice.value == 0.0
    assert advice_sentence(advice) == "Bust (3 skulls): the turn is over: 0 points."
    battle = advise_at(CARDS["battle3"], dice("kkkmmpsc"), RULES)
    assert battle.value == -500 and "the battle is lost: -500 points" in advice_sentence(battle)


def test_chest_bust_scores_the_dice_on_the_chest() -> None:
    """RULES.md worked example: chest, bust with 3 coins and 1 diamond on the chest = 500."""
    advice = advise_at(CARDS["chest"], dice("kkkcccdm"), RULES, chest=Dice.parse("cccd"))
    assert advice.kind is Outcome.BUST and advice.value == 500 and advice.points == 500
    assert "the dice on the chest (c c c d) score 500 points" in advice_sentence(advice)
    unknown = advise_at(CARDS["chest"], dice("kkkcccdm"), RULES)
    assert unknown.value == 0 and Note("chest_unknown") in unknown.notes
    assert "--" not in advice_sentence(unknown)  # the library names no command-line flag
    first = advise_at(CARDS["chest"], dice("kkkcccdm"), RULES, first=True)  # nothing on the chest
    assert first.value == 0 and first.notes == ()


def test_skull_island_on_a_first_roll_only() -> None:
    advice = advise_at(CARDS["captain"], dice("kkkkmmpc"), RULES, first=True)
    assert advice.kind is Outcome.ISLAND and advice.options == () and advice.value == 0.0
    assert advice.island is not None
    assert dict(advice.island.distribution) == island_distribution(CARDS["captain"], 4)
    expected = sum((200 * s * p for s, p in island_distribution(CARDS["captain"], 4).items()),
                   Fraction(0))
    assert advice.island.expected_deduction == expected
    assert f"{float(expected):.1f} points on average (200 per skull)" in advice_sentence(advice)
    later = advise_at(CARDS["captain"], dice("kkkkmmpc"), RULES)  # after a reroll: a bust
    assert later.kind is Outcome.BUST and later.island_if_first
    assert Note("island_if_first") in later.notes
    battle = advise_at(CARDS["battle2"], dice("kkkkmmss"), RULES, first=True)  # never an island
    assert battle.kind is Outcome.BUST and battle.value == -300 and not battle.island_if_first


def test_rescue_offers_only_the_sorceress(solutions: dict[str, TurnSolution]) -> None:
    sol = solutions["sorceress"]
    position = dice("kkkmmpsc")
    advice = advise_at(CARDS["sorceress"], position, RULES, solution=sol)
    assert advice.kind is Outcome.RESCUE
    assert advice.options and all(o.sorceress and o.action == "reroll" for o in advice.options)
    assert advice.value == pytest.approx(
        sol.worlds[UNUSED].value[geometry().full_index(position), 0], abs=sol.bound)
    # Rolled alone, the skull busts only if it comes up a skull again: 1/6.
    alone = next(o for o in advice.options if str(o.reroll) == "k")
    assert alone.p_bust == pytest.approx(1 / 6, abs=1e-16)
    assert Note("rescue") in advice.notes
    # With the Sorceress used, the same dice are a bust.
    assert advise_at(CARDS["sorceress"], position, RULES, sorceress_used=True).kind is Outcome.BUST


def test_rescue_threshold_in_the_bust_risk(solutions: dict[str, TurnSolution]) -> None:
    """Unused Sorceress: a third skull is a rescue, not a bust; after her reroll it is."""
    advice = advise_at(CARDS["sorceress"], dice("kkmmppsc"), RULES, solution=solutions["sorceress"])
    two = next(o for o in advice.options if not o.sorceress and o.reroll.total == 2)
    assert two.p_bust == pytest.approx(1 / 36, abs=1e-16)  # only 2 more skulls bust
    with_her = next(o for o in advice.options if o.sorceress and str(o.reroll) == "ks")
    assert with_her.p_bust == pytest.approx(1 / 36, abs=1e-16)  # 1 skull left + 2 rolled
    used = advise_at(CARDS["sorceress"], dice("kkmmppsc"), RULES, sorceress_used=True,
                  solution=solutions["sorceress"])
    two_used = next(o for o in used.options if o.reroll.total == 2)
    assert two_used.p_bust == pytest.approx(11 / 36, abs=1e-16)  # any skull busts


def test_chest_card_says_what_goes_on_the_chest(solutions: dict[str, TurnSolution]) -> None:
    advice = advise_at(CARDS["chest"], dice("kkmpsssc"), RULES, solution=solutions["chest"])
    assert advice_sentence(advice).startswith("Keep s s s c (on the chest), reroll m p: expected")
    assert advice.notes == (Note("chest_keep", {"keep": Dice.parse("sssc")}),)
    assert note_text(advice.notes[0]) == ("Chest card: put the kept dice (s s s c) on the "
                                          "chest; they still score if the reroll busts.")


def test_bad_requests_raise_rules_errors() -> None:
    with pytest.raises(AdviceError, match="only the sorceress card"):
        advise_at(CARDS["captain"], dice("kkmmppsc"), RULES, sorceress_used=True)
    with pytest.raises(AdviceError, match="first roll"):
        advise_at(CARDS["sorceress"], dice("kkmmppsc"), RULES, sorceress_used=True, first=True)
    with pytest.raises(DiceNotationError, match="expected 8"):
        advise_at(CARDS["none"], Dice.parse("kkmmpps"), RULES)
    for need in (-100, 150, 1.5):
        with pytest.raises(AdviceError, match="multiple of 100"):
            check_need(need)  # type: ignore[arg-type]


# -- `need`: a naive value iteration over the 2-skull layer of `none` ---------------------------


def naive_two_skull_layer(need: int) -> dict[Dice, float]:
    """P(at least `need`) of every keep (2 skull dice + kept K): any skull rolled busts (0).

    Plain value iteration over the 6 other dice (210 multisets of 5 faces), from the rules
    functions alone: stop_score for a stop, reroll_is_legal for the keeps.
    """
    card = get_card("none")
    skulls = Dice.of((2, 0, 0, 0, 0, 0))

    def multisets(n: int) -> list[Dice]:
        return [Dice.from_faces(c) for c in combinations_with_replacement(range(1, 6), n)]

    positions = multisets(6)
    at = {m: i for i, m in enumerate(positions)}
    keeps = [k for n in range(7) for k in multisets(n) if reroll_is_legal(RULES, 2, n)]
    rolls = [[(float(p), at[k + o]) for o, p in outcomes(6 - k.total) if not o.skulls]
             for k in keeps]
    stop = [float(stop_score(card, m + skulls, RULES).points >= need) for m in positions]
    keeps_of = [[j for j, k in enumerate(keeps) if k <= m] for m in positions]
    value = list(stop)
    for _ in range(2000):
        q = [sum(p * value[t] for p, t in roll) for roll in rolls]
        new = [max(stop[i], *(q[j] for j in keeps_of[i])) for i in range(len(positions))]
        delta = max(abs(a - b) for a, b in zip(new, value, strict=True))
        value = new
        if delta < 1e-14:  # error <= (25/36) / (11/36) * delta < 3e-14
            return {k + skulls: sum(p * value[t] for p, t in roll)
                    for k, roll in zip(keeps, rolls, strict=True)}
    raise AssertionError("the naive iteration did not converge")


@pytest.mark.parametrize(("position", "need"), [("kkccccmp", 1000), ("kkmmmpps", 500)])
def test_need_equals_a_naive_count(position: str, need: int) -> None:
    naive = naive_two_skull_layer(need)
    advice = advise_at(CARDS["none"], dice(position), RULES, need=need)
    assert advice.objective == "need" and advice.need == need
    for option in advice.options:
        if option.action == "stop":
            assert option.value == float(stop_score(CARDS["none"], dice(position),
                                                    RULES).points >= need)
            continue
        kept = option.keep + Dice.of((2, 0, 0, 0, 0, 0))
        assert option.value == pytest.approx(naive[kept], abs=1e-9)


def test_need_by_hand_four_coins_roll_two_until_a_coin() -> None:
    """kk cccc m p, at least 1000: keep the 4 coins and roll 2 dice until a coin (a fifth
    coin: 500 + 500 = 1000) shows; a skull busts. Each roll: a coin and no skull 9/36, neither
    16/36 (roll again), so P = (9/36) / (1 - 16/36) = 9/20."""
    advice = advise_at(CARDS["none"], dice("kkccccmp"), RULES, need=1000)
    best = advice.options[0]
    assert str(best.keep) == "cccc" and str(best.reroll) == "mp"
    assert best.value == pytest.approx(9 / 20, abs=1e-9)
    assert advice_sentence(advice) == ("Keep c c c c, reroll m p: 45.0 % chance of at least "
                                     "1000 points, 30.6 % bust risk.")


def test_need_solution_is_the_at_least_objective() -> None:
    sol = solve_turn(CARDS["none"], RULES, AtLeast(500))
    advice = advise_at(CARDS["none"], dice("kkmmppsc"), RULES, need=500, solution=sol)
    assert advice.value == pytest.approx(
        sol.worlds[USED].value[geometry().full_index(dice("kkmmppsc")), 0], abs=sol.bound)
    with pytest.raises(ValueError, match="solution given"):
        advise_at(CARDS["none"], dice("kkmmppsc"), RULES, need=600, solution=sol)


# -- the turn's moves -----------------------------------------------------------------------------


def test_chosen_option_reads_the_moves(solutions: dict[str, TurnSolution]) -> None:
    advice = advise_at(CARDS["sorceress"], dice("kkmmppsc"), RULES, solution=solutions["sorceress"])
    assert chosen_option(advice, "") == advice.options[0]
    assert chosen_option(advice, "stop").action == "stop"
    kept = chosen_option(advice, "reroll s c")
    assert str(kept.keep) == "mmpp" and not kept.sorceress
    with pytest.raises(AmbiguousMoveError) as two:  # with or without the Sorceress
        chosen_option(advice, "keep mmpp")
    assert two.value.options == (kept, chosen_option(advice, "reroll k s c"))
    her = chosen_option(advice, "reroll k s")
    assert her.sorceress and str(her.keep) == "mmppc"
    assert chosen_option(advice, "mmppc") == her  # only her move keeps them: it is hers
    alone = chosen_option(advice, "mmppsc")  # a single die is rolled only by her
    assert alone.sorceress and str(alone.reroll) == "k"
    used = advise_at(CARDS["sorceress"], dice("kkmmppsc"), RULES, sorceress_used=True,
                  solution=solutions["sorceress"])
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        chosen_option(used, "mmppsc")
    with pytest.raises(IllegalMoveError, match="not among"):
        chosen_option(advice, "ccc")
    with pytest.raises(IllegalMoveError, match="one skull"):
        chosen_option(advice, "reroll kk")


# -- the command line -----------------------------------------------------------------------------


run = run_sabords  # `sabords ARGS...` with its input (tests/conftest.py)


def test_advise_text_sentence_first_then_table(tables_dir: Path) -> None:
    result = run("advise", "chest", "kkmpsssc", "--tables", str(tables_dir))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ("Keep s s s c (on the chest), reroll m p: expected 357.5 points, "
                        "30.6 % bust risk.")
    rows = [line for line in lines if line[:3].strip().isdigit()]
    assert len(rows) == 15 and rows[0].split()[:3] == ["1", "reroll", "sssc"]
    assert rows[0].endswith("best")
    assert "(13 more options left out: --top K shows K, --top 0 all of them)" in lines
    every = run("advise", "chest", "kkmpsssc", "--tables", str(tables_dir), "--top", "0")
    assert sum(line[:3].strip().isdigit() for line in every.stdout.splitlines()) == 28
    three = run("advise", "chest", "kkmpsssc", "--tables", str(tables_dir), "--top", "3")
    assert sum(line[:3].strip().isdigit() for line in three.stdout.splitlines()) == 3


def test_advise_json_schema() -> None:
    result = run("advise", "sorceress", "kkmmppsc", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data)[:7] == ["card", "dice", "objective", "need", "rules_hash", "value",
                              "options"]
    assert (data["card"], data["dice"], data["objective"], data["need"]) == (
        "sorceress", "kkmmppsc", "points", None)
    assert data["rules_hash"] == RULES.hash
    advice = advise_at(CARDS["sorceress"], dice("kkmmppsc"), RULES)
    assert data["value"] == advice.value  # full precision: the float itself
    assert len(data["options"]) == len(advice.options) == 68
    for got, option in zip(data["options"], advice.options, strict=True):
        assert list(got) == ["action", "keep", "reroll", "sorceress", "value", "p_bust",
                             "regret", "best", "ties"]
        assert got["value"] == option.value and got["p_bust"] == option.p_bust
        for letters in (got["keep"], got["reroll"]):
            assert letters == str(Dice.parse(letters)) if letters else True  # order k m p s c d
        assert got["sorceress"] is option.sorceress and got["ties"] == list(option.ties)
    assert data["options"][0] == {"action": "reroll", "keep": "mmppc", "reroll": "ks",
                                  "sorceress": True, "value": advice.value, "p_bust": 1 / 36,
                                  "regret": 0.0, "best": True, "ties": []}
    # the ties the JSON carries: every other option of the same value, by its rank
    tied = [o for o in data["options"] if o["ties"]]
    assert tied and all(data["options"][r - 1]["value"] == pytest.approx(o["value"], abs=1e-11)
                        for o in tied for r in o["ties"])
    need = json.loads(run("advise", "none", "kkccccmp", "--need", "1000", "--json",
                          "--top", "2").stdout)
    assert need["objective"] == "need" and need["need"] == 1000 and len(need["options"]) == 2
    assert need["value"] == pytest.approx(9 / 20, abs=1e-9)


def test_the_regret_of_a_chance_is_in_percentage_points() -> None:
    """A difference of two chances is in percentage points, not "%": a writer's trial read
    "22.00 %" as a loss of 22 % (`turn` already said "percentage points")."""
    table = run("advise", "none", "kkccccmp", "--need", "1000", "--top", "2").stdout
    assert "   23.00 %     30.6 %   22.00 pp\n" in table
    assert "regret in percentage points (pp): the best option's chance minus this option's" in table
    points = run("advise", "none", "kkccccmp", "--top", "2").stdout
    assert "     38.89\n" in points and "pp" not in points


def test_advise_special_positions_on_the_command_line() -> None:
    island = run("advise", "captain", "kkkkmmpc", "--first")
    assert island.stdout.startswith("Skull Island: nothing for you this turn; each opponent "
                                    "loses 988.6 points on average (200 per skull).")
    assert "4              0.482253 (625/1296)      800" in island.stdout
    bust = json.loads(run("advise", "chest", "kkkcccdm", "--chest", "cccd", "--json").stdout)
    assert (bust["kind"], bust["value"], bust["options"]) == ("bust", 500.0, [])


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["none", "kkmmpps"], "has 7 dice, expected 8"),
        (["none", "kkmmppscc"], "has 9 dice, expected 8"),
        (["captain", "kkmmppsc", "--sorceress-used"], "--sorceress-used: only the sorceress card"),
        (["none", "kkmmppsc", "--need", "-100"], "non-negative multiple of 100"),
        (["none", "kkmmppsc", "--need", "150"], "non-negative multiple of 100"),
        (["none", "kkmmppsc", "--top", "-1"], "--top"),
        (["sorceress", "kkmmppsc", "--first", "--sorceress-used"], "first roll"),
        (["nonsense", "kkmmppsc"], "unknown card"),
        (["none", "kkmmppsc", "--bogus"], "No such option"),
        (["none", "kkmmppsc", "--need", "abc"], "--need"),
        (["none", "kkmmppsc", "--tables", "/nonexistent"], "policy table"),
    ],
)
def test_advise_bad_input_is_one_line_and_exit_2(args: list[str], fragment: str) -> None:
    assert_one_line_error(run("advise", *args), fragment)
