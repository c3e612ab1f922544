"""The game solver (solver/game/) at two players, checked by independent routes.

- The game's turns (orbits of the card's symmetries, kernel sweeps with the game values held)
  converge to the engine's certified turn solve on the same utilities.
- Consistency: W at every state is the deck-weighted value of its turns solved by the engine on
  the utilities the table gives (the fixed-point equation); the moves the win play takes at a
  few states, evaluated exactly by the engine, reproduce W; the certified start (value
  iteration) and the improvements from 1/2 give the same table.
- The certificates: each phase's proven bound holds against a tighter solve, and stays honest for
  a perturbed iterate (it grows to cover the error); it needs no pirate magic.
- A naive brute force of the whole game (2 dice, target 300: positions, rolls, moves and game
  states enumerated in plain Python from the rules' functions, no engine) agrees with the
  solver. With 2 dice only the Sorceress can reroll (one die is kept, 2 must roll): the turn
  engine's own brute-force tests cover the rerolls; this one covers the game: phases, final
  turn, ties, Skull Island, totals floored at 0, sudden death.
- Monte Carlo: whole games with real random dice where both players play the win policy; the
  first player's score must match W(0, 0) (z-test, |z| < 5: false-alarm rate 5.7e-7).

Targets are small (300 or 500) to keep the file fast; the default target is the benchmark's.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from solver import game
from solver.engine import AtLeast, kernel, solve_turn, symmetries, turn_model
from solver.engine.kernel import LANES, to_lanes
from solver.errors import StaleTableError
from solver.game import (
    GameTable,
    GameUtility,
    TurnUtility,
    deck,
    game_model,
    lookup,
    solve_game,
)
from solver.game import iterate as it
from solver.game import solve as solve_module
from solver.game.certify import certify
from solver.game.winplay import NORMAL_KIND
from solver.rules import CARDS, Rules
from solver.rules.dice import Dice
from solver.rules.moves import Reroll, reroll_is_legal, sub_multisets
from solver.rules.scoring import Outcome, bust_score, classify_roll, island_distribution, stop_score
from solver.rules.standing import Standing, StandingError
from solver.strategy.games import play_games
from solver.tables.game import pack_game, read_game, unpack_game

from .conftest import CliResult, assert_one_line_error

TOL = 1e-9


@pytest.fixture(scope="module")
def small() -> GameTable:
    return solve_game(Rules(target=500))


@pytest.fixture(scope="module")
def tiny() -> GameTable:
    return solve_game(Rules(target=300))


def two(table: GameTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two-player table's phases as matrices: ``W[a, b]`` (normal play, the mover `a`),
    ``S[a, b]`` (sudden death) and ``G[a' - n, b]`` (the final turn of `b` against the
    leader's ``a' >= n``)."""
    n = table.rules.target // 100
    win = table.values["normal"][:, 0].reshape(n, n)
    sudden = table.values["sudden"][:, 0].reshape(n, n)
    beyond = np.ascontiguousarray(table.values["final1"][:, 0].reshape(n, -1).T)
    return win, sudden, beyond


def standing(table: GameTable, a: int, b: int, **round_: bool) -> Standing:
    return Standing.of(table.rules, a * 100, [b * 100], **round_)


def random_utility(columns: int, seed: int = 1) -> TurnUtility:
    gm = game_model(Rules())
    rng = np.random.default_rng(seed)
    return TurnUtility(gm.k_min, rng.random((gm.n_k, columns)), rng.random((gm.n_ded, columns)))


# -- the game's turns ----------------------------------------------------------------------------


@pytest.mark.parametrize("card", list(deck()))
def test_the_games_turns_converge_to_the_engines_certified_solve(card: str) -> None:
    """The orbit rows, the game's utility tables and the kernel sweeps of :mod:`solver.game`
    give the engine's certified turn value on the same (random) utilities."""
    u = random_utility(2)
    gm = game_model(Rules())
    ct = gm.cards[card]
    table = np.vstack([u.points, np.ones((1, 2))])  # the magic row last
    u_l = to_lanes(table, LANES)
    isl = to_lanes(u.island, LANES)
    V = {w: np.full((1, ct.st.n_fo, LANES), 0.5) for w in ct.model.worlds}
    no_e = np.empty((1, 0, LANES))
    for _ in range(200):
        q_used = None
        for w in ct.model.worlds:
            q = np.empty((1, ct.st.n_rows + 1 if w == 0 and len(V) > 1 else 0, LANES))
            bs = None if q_used is None else kernel.sorceress_best(q_used,
                                                                   ct.worlds[w].sorceress_ok,
                                                                   ct.st)
            kernel.sweep(1, V[w], no_e, q, u_l, ct.worlds[w], ct.st, 0, ct.st.max_skulls,
                         bs=bs)
            q_used = q if w == 0 else None
    live = kernel.first_sum(V[ct.model.start_world], ct.first.live_fo, ct.first.live_prob)
    value = live + ct.first.bust_prob * u_l[:, ct.first_bust_row, :]
    for d, p in enumerate(ct.island.tolist()):
        value = value + p * isl[:, d, :]
    ref = solve_turn(CARDS[card], Rules(), GameUtility(u), tol=1e-12)
    assert np.max(np.abs(value[0, :2] - ref.turn_value)) <= 1e-11


def test_symmetries_are_found_not_assumed() -> None:
    # S3 x S2 (monkey/parrot/sword, coin/diamond) for plain cards; fewer where a face matters.
    def count(card: str) -> int:
        return int(symmetries(turn_model(CARDS[card], Rules())).shape[0])

    assert count("none") == 12
    assert count("coin") == 6  # the coin card's ninth symbol
    assert count("animals") == 4  # monkeys and parrots merged
    assert count("battle2") == 4  # swords count


def test_final_turn_under_trigger_ties_is_the_engines_at_least() -> None:
    """With ties=trigger the trailing player needs strictly more than the deficit d: the
    final turn's utilities are the engine's AtLeast((d + 1) x 100) objective's (Skull
    Island aside), so its best turn's value is that objective's."""
    table = solve_game(Rules(target=300, ties="trigger"))
    for card in ("captain", "sorceress", "battle4", "chest"):
        for lead, me in ((3, 2), (5, 1), (8, 0)):
            d = lead - me
            st = Standing.of(table.rules, me * 100, [lead * 100], final=True)
            mover, _ = table.objectives(st)
            points = np.arange(-10, 107) * 100
            want = AtLeast((d + 1) * 100).of_points(points)[:, 0]
            assert np.array_equal(mover.of_points(points)[:, 0], want), (card, d)


# -- consistency of the tables -------------------------------------------------------------------


def engine_state_values(table: GameTable, phase: str) -> np.ndarray:
    """Deck-weighted engine turn values at every state, the utilities the table gives."""
    n = table.rules.target // 100
    utilities = [table.objectives(standing(table, a, b, sudden=(phase == "sudden")))[0]
                 for a in range(n) for b in range(n)]
    u = TurnUtility.stack([o.utility for o in utilities])  # type: ignore[attr-defined]
    total = np.zeros(n * n)
    for card, weight in deck().items():
        total += weight * solve_turn(CARDS[card], Rules(), GameUtility(u), tol=1e-11).turn_value
    return total.reshape(n, n)


def test_win_at_every_state_is_the_card_weighted_value_of_its_turns(tiny: GameTable) -> None:
    win, sudden, _ = two(tiny)
    assert np.max(np.abs(engine_state_values(tiny, "win") - win)) <= TOL
    assert np.max(np.abs(engine_state_values(tiny, "sudden") - sudden)) <= TOL


def test_the_last_step_moves_value_iteration_below_its_bound(small: GameTable) -> None:
    # each cyclic phase's values are value iteration's, its moves' turns evaluated afresh (the
    # last step of the policy iteration), which moves them by ``settled``
    for phase in ("sudden", "normal"):
        record = small.records[phase]
        assert record.certificate is not None
        assert 0.0 <= record.settled < 1e-11
        assert record.certificate["bound"] < 1e-9


def test_value_iterations_lookups_are_the_tables_utilities(small: GameTable) -> None:
    n = 5
    gm = game_model(Rules(target=500))
    look = lookup(game.NORMAL, gm)
    win, _, g = two(small)
    z = np.concatenate([win.ravel(), g.ravel()])
    for a, b in ((0, 0), (4, 1), (2, 3)):
        mover, _ = small.objectives(standing(small, a, b))
        u = mover.utility  # type: ignore[attr-defined]
        assert np.array_equal(u.points[:, 0], 1.0 - z[look.points[:, a * n + b]])
        assert np.array_equal(u.island[:, 0], 1.0 - z[look.island[:, a * n + b]])


def engine_policy(play: object, card: str, phase: int, column: int, n_dice: int = 8
                  ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The win play's moves at one state as the engine's policy arrays of `card` (per world:
    the partial index of the keep, or STOP / NO_MOVE, and the Sorceress flag, per position)."""
    from solver.engine import NO_MOVE, STOP

    rules = Rules()
    model = turn_model(CARDS[card], rules, n_dice)
    positions = np.arange(model.n_full)
    live_any = np.zeros(model.n_full, dtype=bool)
    for w in model.worlds:
        live_any |= model.live[w]
    out = {}
    for w in model.worlds:
        keep = np.full(model.n_full, NO_MOVE, dtype=np.int64)
        sor = np.zeros(model.n_full, dtype=bool)
        at = np.flatnonzero(model.live[w])
        if at.shape[0]:
            got, used = play.moves(card, w, phase, at, np.full(at.shape[0], column))  # type: ignore[attr-defined]
            keep[at] = np.where(got == -1, STOP, got)
            sor[at] = used
        out[w] = (keep[:, None], sor[:, None])
    del positions, live_any
    return out


@pytest.mark.parametrize("state", [(0, 0), (3, 1), (1, 4)])
def test_the_win_plays_moves_evaluated_exactly_reproduce_win(
        small: GameTable, state: tuple[int, int]) -> None:
    a, b = state
    win, _, _ = two(small)
    mover, _ = small.objectives(standing(small, a, b))
    play = small.win_play()
    phase, column = play.locate(np.array([[a, b]]), np.array([NORMAL_KIND]), np.array([0]))
    cards = list(deck())
    play.prepare(np.repeat(phase, len(cards)), np.repeat(column, len(cards)), cards)
    total = 0.0
    for card, weight in deck().items():
        policy = engine_policy(play, card, int(phase[0]), int(column[0]))
        evaluated = solve_turn(CARDS[card], Rules(), mover, policy=policy, tol=1e-11)
        total += weight * evaluated.turn_value[0]
    assert abs(total - win[a, b]) <= TOL


def test_the_win_plays_moves_do_not_depend_on_the_states_solved_beside_them(
        small: GameTable) -> None:
    """A simulator prepares the states of a round of games together, in batches of any width
    (one lane a state, padded to no fixed width): each state's moves are those it has when
    prepared alone, at every position of every world of every card."""
    cards = list(deck())
    states = np.array([[a, b] for a in range(5) for b in range(5)])
    kinds = np.full(states.shape[0], NORMAL_KIND)
    together = small.win_play()
    phase, column = together.locate(states, kinds, np.zeros(states.shape[0], dtype=np.int64))
    together.prepare(np.repeat(phase, len(cards)), np.repeat(column, len(cards)),
                     cards * states.shape[0])
    for p, s in zip(phase.tolist(), column.tolist(), strict=True):
        alone = small.win_play()
        alone.prepare(np.array([p]), np.array([s]), [cards[s % len(cards)]])
        card = cards[s % len(cards)]
        for world, moves in alone.moves_of[(p, s, card)].items():
            assert np.array_equal(moves, together.moves_of[(p, s, card)][world]), (s, card)


def test_the_certified_start_and_the_improvements_give_the_same_table(
        tiny: GameTable) -> None:
    """Two players' cyclic phases start from value iteration's certified values; started from
    1/2 as for more players, the policy iteration reaches the same table, bit for bit."""
    other = solve_game(Rules(target=300), certified=False)
    for phase in tiny.values:
        assert np.array_equal(other.values[phase], tiny.values[phase]), phase
    assert other.records["normal"].iterations > 1


# -- the certificates (solver/game/certify.py) ---------------------------------------------------


def test_magic_probability_is_a_magic_first_roll() -> None:
    # Pirate magic on the first roll: 8 coins with the coin card or 8 diamonds with the
    # diamond card (nine of a kind, RULES.md), each (1/6)^8.
    weights = deck()
    expected = (weights["coin"] + weights["diamond"]) * 6.0**-8
    assert game_model(Rules()).magic_probability() == pytest.approx(expected, rel=1e-12)
    assert game_model(Rules(nine_of_a_kind="set")).magic_probability() == 0.0


def test_certified_bounds_hold_against_a_tighter_solve(small: GameTable,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # Both solves are certified: their tables can differ by at most the sum of the bounds
    # (that the bound is not vacuous: test_certificate_covers_a_perturbed_iterate).
    monkeypatch.setattr(solve_module, "VI_TOL", 1e-14)
    tight = solve_game(Rules(target=500))
    for phase in ("normal", "sudden"):
        bound = small.records[phase].certificate["bound"]  # type: ignore[index]
        assert bound <= 1e-9, phase
        gap = float(np.max(np.abs(small.values[phase] - tight.values[phase])))
        assert gap <= bound + tight.records[phase].certificate["bound"], phase  # type: ignore[index]


def _converged_sudden(target: int) -> it.PhaseState:
    gm = game_model(Rules(target=target))
    state = it.start(game.SUDDEN, gm, lookup(game.SUDDEN, gm), 0.5)
    it.iterate(state, np.zeros(1), tol=1e-13)
    return state


def test_certificate_covers_a_perturbed_iterate() -> None:
    """The certificate bounds the distance to the exact values from the residual: move one
    value of a converged iterate by 1e-4 and the proven bound grows beyond 1e-4 (the iterate
    is that far from the exact values), while the converged iterate's bound is tiny."""
    state = _converged_sudden(500)
    good = certify(state, np.zeros(1), tail_bound=0.0)
    assert good.bound <= 1e-10
    state.W[0, 7] += 1e-4
    bad = certify(state, np.zeros(1), tail_bound=0.0)
    assert bad.bound >= 1e-4
    assert bad.residual >= 1e-4


def test_a_certificate_without_pirate_magic() -> None:
    # The residual bound needs no uniqueness argument: with nine_of_a_kind=set (no magic)
    # every phase is still certified, and the brute force below agrees too.
    table = solve_game(Rules(target=300, nine_of_a_kind="set"))
    assert max(r.certificate["bound"] for r in table.records.values()  # type: ignore[index]
               if r.certificate) <= 1e-9


def test_first_player_advantage_and_symmetry_facts(small: GameTable) -> None:
    # Moving first at equal totals is an advantage; more points of one's own never hurt.
    win, _, _ = two(small)
    assert all(win[a, a] > 0.5 for a in range(5))
    assert np.all(np.diff(win, axis=0) > 0)  # more for the mover: better
    assert np.all(np.diff(win, axis=1) < 0)  # more for the opponent: worse


# -- tables on disk ------------------------------------------------------------------------------


def test_game_table_round_trip_is_bit_exact_and_refuses_other_rules(tiny: GameTable) -> None:
    data = pack_game(tiny)
    back = unpack_game(data, Rules(target=300), 2, source="t")
    for phase in tiny.values:
        assert np.array_equal(back.values[phase], tiny.values[phase])
    assert back.records["normal"].certificate == tiny.records["normal"].certificate
    assert pack_game(back) == data
    with pytest.raises(StaleTableError, match="other rules"):
        unpack_game(data, Rules(target=300, ties="trigger"), 2, source="t")
    with pytest.raises(StaleTableError, match="of 2 players, not 3"):
        unpack_game(data, Rules(target=300), 3, source="t")
    broken = bytearray(data)
    broken[-5] ^= 0xFF
    with pytest.raises(StaleTableError):
        unpack_game(bytes(broken), Rules(target=300), 2, source="t")


def test_the_two_player_table_of_earlier_versions_is_refused_with_its_reason(
        tmp_path: Path, tiny: GameTable) -> None:
    (tmp_path / "game.msgpack").write_bytes(b"old")
    with pytest.raises(StaleTableError, match="game.msgpack beside it is the two-player table "
                                              "of an earlier version"):
        read_game(tmp_path, Rules(target=300), 2)


def test_a_standing_is_checked_when_made_and_the_table_answers_it(tiny: GameTable) -> None:
    rules = Rules(target=300)
    with pytest.raises(StandingError, match="multiple of 100"):
        Standing.of(rules, 150, [0])
    with pytest.raises(StandingError, match="final turn"):
        Standing.of(rules, 0, [300])
    chances = tiny.chances(Standing.of(rules, 100, [200]))
    win, _, _ = two(tiny)
    assert chances.seats == (win[1, 2], 1.0 - win[1, 2]) and set(chances.cards) == set(deck())


# -- brute force: 2 dice, target 300 -------------------------------------------------------------

N_DICE = 2


@cache
def rolls(n: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every way n dice can fall, as counts, by enumerating the 6**n ordered outcomes."""
    out: dict[tuple[int, ...], Fraction] = {}
    for faces in itertools.product(range(6), repeat=n):
        counts = tuple(faces.count(f) for f in range(6))
        out[counts] = out.get(counts, Fraction(0)) + Fraction(1, 6**n)
    return tuple((c, float(p)) for c, p in out.items())


def brute_force_game(rules: Rules) -> tuple[dict[tuple[int, int], float], ...]:
    """W, S of the 2-dice game by plain value iteration over (state, card, world, dice)."""
    n = rules.target // 100
    cards = deck()
    positions = [c for c, _ in rolls(N_DICE)]

    def value_of_turn(card: str, utility: Callable[[str, int], float],
                      v: dict[tuple[str, int, tuple[int, ...]], float]) -> float:
        c = CARDS[card]
        total = 0.0
        for counts, p in rolls(N_DICE):
            dice = Dice.of(counts)
            o = classify_roll(c, dice, rules, first=True, sorceress_unused=c.sorceress)
            if o is Outcome.ISLAND:
                dist = island_distribution(c, dice.skulls, N_DICE)
                total += p * sum(float(q) * utility("island", c.island_cost * t)
                                 for t, q in dist.items())
            elif o is Outcome.BUST:
                total += p * utility("points", bust_score(c, None, rules))
            else:
                total += p * v[(card, int(c.sorceress), counts)]
        return total

    def sweep_turn(card: str, utility: Callable[[str, int], float],
                   v: dict[tuple[str, int, tuple[int, ...]], float]) -> None:
        c = CARDS[card]
        for world in ((1, 0) if c.sorceress else (0,)):
            for counts in positions:
                dice = Dice.of(counts)
                unused = world == 1
                o = classify_roll(c, dice, rules, first=False, sorceress_unused=unused)
                if o is Outcome.BUST:
                    continue
                best = -math.inf
                if o is Outcome.ALIVE:
                    s = stop_score(c, dice, rules)
                    best = 1.0 if s.magic else utility("points", s.points)
                moves = [Reroll(keep, sor) for keep in sub_multisets(dice)
                         for sor in (False, True)
                         if (sor or o is Outcome.ALIVE) and (not sor or (unused and dice.skulls))
                         and reroll_is_legal(rules, dice.skulls, keep.total, sorceress=sor,
                                             n_dice=N_DICE)]
                for move in moves:
                    kept = move.kept_after(dice)
                    after = 0 if move.sorceress else world
                    q = 0.0
                    for rolled, p in rolls(N_DICE - kept.total):
                        new = Dice.of(tuple(a + b for a, b in zip(kept.counts, rolled,
                                                                  strict=True)))
                        o2 = classify_roll(c, new, rules, first=False,
                                           sorceress_unused=(after == 1))
                        if o2 is Outcome.BUST:
                            q += p * utility("points", bust_score(c, move.keep, rules))
                        else:
                            q += p * v[(card, after, new.counts)]
                    best = max(best, q)
                v[(card, world, counts)] = best

    def solve(utility_of: Callable[..., Callable[[str, int], float]],
              states: list[tuple[int, ...]], table: dict[tuple[int, ...], float]) -> None:
        v = {(card, w, pos): 0.5 for card in cards for w in (0, 1) for pos in positions}
        vs = {s: dict(v) for s in states}
        for _ in range(400):
            change = 0.0
            for s in states:
                utility = utility_of(*s)
                total = 0.0
                for card, weight in cards.items():
                    sweep_turn(card, utility, vs[s])
                    total += weight * value_of_turn(card, utility, vs[s])
                change = max(change, abs(total - table.get(s, 0.5)))
                table[s] = total
            if change < 1e-13:
                return
        raise AssertionError("brute force did not converge")

    sudden: dict[tuple[int, ...], float] = {}

    def sudden_utility(a: int, b: int) -> Callable[[str, int], float]:
        def u(kind: str, points: int) -> float:
            if kind == "island":
                return 1.0 - sudden.get((max(b - points // 100, 0), a), 0.5)
            after = max(a + points // 100, 0)
            return 1.0 if after >= n else 1.0 - sudden.get((b, after), 0.5)
        return u

    grid = [(a, b) for a in range(n) for b in range(n)]
    solve(sudden_utility, grid, sudden)

    final: dict[tuple[int, ...], float] = {}
    tie = 0.5 if rules.ties == "shared" else 0.0

    def final_utility(me: int, lead: int) -> Callable[[str, int], float]:
        def u(kind: str, points: int) -> float:
            if kind == "island":
                left = max(lead - points // 100, 0)
                return 0.0 if left >= n else 1.0 - sudden[(left, me)]
            mine = max(me + points // 100, 0)
            return 1.0 if mine > lead else tie if mine == lead else 0.0
        return u

    k_max = max(stop_score(CARDS[c], Dice.of(p), rules).points // 100 for c in cards
                for p in positions)
    leads = [(me, lead) for me in range(n) for lead in range(n, n + k_max + 1)]
    solve(final_utility, leads, final)

    win: dict[tuple[int, ...], float] = {}

    def win_utility(a: int, b: int) -> Callable[[str, int], float]:
        def u(kind: str, points: int) -> float:
            if kind == "island":
                return 1.0 - win.get((max(b - points // 100, 0), a), 0.5)
            after = max(a + points // 100, 0)
            return 1.0 - (final[(b, after)] if after >= n else win.get((b, after), 0.5))
        return u

    solve(win_utility, grid, win)
    return win, sudden  # type: ignore[return-value]


@pytest.mark.parametrize("ties", ["shared", "trigger"])
def test_bruteforce_two_dice_game_agrees(ties: str) -> None:
    rules = Rules(target=300, ties=ties)
    table = solve_game(rules, n_dice=N_DICE)
    win, sudden = brute_force_game(rules)
    w, s, _ = two(table)
    for (a, b), value in win.items():
        assert abs(w[a, b] - value) <= TOL, (a, b)
    for (a, b), value in sudden.items():
        assert abs(s[a, b] - value) <= TOL, (a, b)


# -- Monte Carlo: whole games ----------------------------------------------------------------------


def test_monte_carlo_games_between_win_policies_match_exact_value(small: GameTable) -> None:
    """Both seats play the win policy: seat 1's expected score (a shared tie is 1/2) is W(0, 0).

    40 000 games, z-test with the sample variance, |z| < 5 (false alarm 5.7e-7): the standard
    error is about 0.0025, so an error of 0.013 in W(0, 0) fails.
    """
    result = play_games(("win", "win"), Rules(target=500), games=40_000, seed=2026,
                        win=small.win_play())
    first = next(s for s in result.seats if s.seat == 1)
    p = first.rate
    se = math.sqrt(p * (1 - p) / first.games)  # >= the true one: a score s in {0, 1/2, 1}
    w00 = small.start()[0]
    z = (p - w00) / se
    assert abs(z) < 5, (p, w00, z)


# -- the command line ----------------------------------------------------------------------------


def test_cli_winprob_json_reads_the_committed_table(sabords: Callable[..., CliResult]) -> None:
    import json

    from solver.tables.paths import game_default_dir

    result = sabords("winprob", "--me", "2000", "--opp", "5500", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data)[:6] == ["me", "target", "opp", "rules_hash", "win", "cards"]
    table = read_game(game_default_dir(Rules()), Rules(), 2)
    assert data["win"] == two(table)[0][20, 55] and data["rules_hash"] == Rules().hash
    # (each card's value is its best turn's from the table's values, certified to the turn
    # solve's tolerance; the table's value is their deck-weighted sum to within the solve's
    # measured gap)
    from solver.engine.solve import DEFAULT_TOL

    gap = table.records["normal"].gap
    assert abs(sum(deck()[c] * p for c, p in data["cards"].items()) - data["win"]) <= (
        DEFAULT_TOL + gap)


def test_cli_advise_win_lists_win_probability_and_expected_points(
        sabords: Callable[..., CliResult]) -> None:
    import json

    result = sabords("advise", "none", "mmmpppsc", "--me", "2000", "--opp", "5500", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["objective"] == "win" and data["me"] == 2000 and data["opp"] == 5500
    best = [o for o in data["options"] if o["best"]]
    assert best and all(o["expected_points"] is not None for o in data["options"])
    assert best[0]["value"] == max(o["value"] for o in data["options"]) == data["value"]


@pytest.mark.parametrize(("args", "fragment"), [
    (("winprob", "--me", "150", "--opp", "0"), "multiple of 100"),
    (("winprob", "--me", "0", "--opp", "6000"), "final turn"),
    (("winprob", "--me", "0", "--opp", "5000", "--final"), "at least 6000"),
    (("advise", "none", "mmmpppsc", "--me", "100"), "--me and --opp"),
    (("advise", "none", "mmmpppsc", "--me", "0", "--opp", "0", "--need", "500"), "--need"),
    (("game", "--policies", "win"), "2 policy names"),
    (("game", "--policies", "win,bogus", "--games", "2"), "unknown policy"),
])
def test_cli_bad_input_is_one_line(sabords: Callable[..., CliResult], args: tuple[str, ...],
                                   fragment: str) -> None:
    assert_one_line_error(sabords(*args), fragment)


def test_cli_game_is_reproducible_with_a_seed(sabords: Callable[..., CliResult],
                                               tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.setenv("SABORDS_CACHE_DIR", str(tmp_path))
    args = ("game", "--games", "40", "--seed", "7", "--policies", "win,points",
            "--variant", "target=500", "--json")
    first, second = sabords(*args), sabords(*args)
    assert first.exit_code == 0, first.stderr
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert sum(r["score"] for r in data["overall"]) == 40  # every game has one unit of score


# Newcombe, "Two-sided confidence intervals for the single proportion: comparison of seven
# methods", Statistics in Medicine 17 (1998) 857-872, Table II, method 3 (Wilson score).
NEWCOMBE_WILSON = [((81, 263), (0.2553, 0.3662)), ((15, 148), (0.0624, 0.1605)),
                   ((0, 20), (0.0000, 0.1611)), ((1, 29), (0.0061, 0.1718))]


@pytest.mark.parametrize(("counts", "published"), NEWCOMBE_WILSON)
def test_the_wilson_interval_is_newcombes(counts: tuple[int, int],
                                          published: tuple[float, float]) -> None:
    from solver.engine.stats import wilson_interval

    lo, hi = wilson_interval(*counts)
    assert (round(lo, 4), round(hi, 4)) == published


def test_win_rate_intervals_lie_inside_0_100_and_are_never_zero_width(
        sabords: Callable[..., CliResult]) -> None:
    """4 games gave [32.57, 117.43], [-19.30, 119.30], [0.00, 0.00]."""
    import json

    text = sabords("game", "--games", "4", "--seed", "1")
    assert text.exit_code == 0, text.stderr
    rows = [line for line in text.stdout.splitlines() if line.endswith("]")]
    assert len(rows) == 6
    for line in rows:
        lo, hi = (float(x) for x in line[line.index("[") + 1:-1].split(", "))
        assert 0 <= lo < hi <= 100, line
    assert "Wilson score interval" in text.stdout
    data = json.loads(sabords("game", "--games", "4", "--seed", "1", "--json").stdout)
    assert data["ci95_method"] == "Wilson score"
    for row in data["overall"] + data["by_seat"]:
        lo, hi = row["ci95"]
        assert 0 <= lo < row["win_rate"] or lo == row["win_rate"] == 0
        assert lo < hi <= 1


@pytest.mark.parametrize("players", [2, 3])
def test_a_seat_that_played_no_game_is_null_in_json_not_nan(players: int) -> None:
    # one game: each policy sat in one seat only; JSON has no NaN (json.loads would take it,
    # so every constant is refused here, as a strict reader does)
    import json

    from .conftest import run_sabords

    policies = ["--policies", "win,points,need"] if players == 3 else []
    done = run_sabords("game", "--games", "1", "--seed", "1", "--players", str(players),
                       "--json", *policies)
    assert done.exit_code == 0, done.stderr

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in the JSON")

    answer = json.loads(done.stdout, parse_constant=refuse)
    empty = [row for row in answer["by_seat"] if row["games"] == 0]
    assert empty and all(r["win_rate"] is None and r["ci95"] is None for r in empty)
    text = run_sabords("game", "--games", "1", "--seed", "1", "--players", str(players),
                       *policies)
    assert text.exit_code == 0 and "nan" not in text.stdout.lower()
    assert ("both" if players == 2 else "all") in text.stdout
