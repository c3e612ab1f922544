"""The game of three players and more: the seats model, the turns' endings, and the
policy iteration of :mod:`solver.game.solve`, met by routes that share none of its code:

- the two-player game's lookups are the seats model's successors, and its policy iteration
  gives the certified two-player solve's table (a different algorithm) bit for bit, with the
  same moves at every state;
- the endings kernel (the forward pushes) in numba equals its numpy reference bit for bit, its
  distribution gives the Bellman value back, and a column's numbers do not depend on the
  columns beside it;
- on reduced games (three dice, small targets) every state's table value is met by the
  engine's plain turn solve of that state (no orbits, no pushes, no evaluation): the mover's
  value is its best turn's, every other seat's the policy evaluation of that turn;
- a naive expectimax over ordered dice (written from RULES.md alone, tests/
  test_engine_bruteforce.py) gives the mover's best value at sample states.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from solver.engine import Objective, kernel, solve_turn
from solver.engine.arrays import turn_value_lanes
from solver.engine.codes import UNUSED, USED
from solver.engine.forward import endings
from solver.engine.kernel import LANES, from_lanes, to_lanes
from solver.engine.solve import TIE_TOL, solve_layers
from solver.game import GameTable, seats_numba, solve_game
from solver.game.model import GameUtility, TurnUtility, deck, game_model, lookup, point_range
from solver.game.records import FINAL_EPS, FINAL_TOL
from solver.game.seats import NORMAL, SUDDEN, _compiled, seats_of
from solver.game.solve import LocalRunner, blocks_of
from solver.rules import CARDS, Rules, floor_total

from .test_engine_bruteforce import Level, Naive, Utility


@pytest.fixture(scope="module")
def three() -> GameTable:
    return solve_game(Rules(target=300), 3, n_dice=3)


@pytest.fixture(scope="module")
def four() -> GameTable:
    return solve_game(Rules(target=400), 4, n_dice=3)


# -- the seats model ------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "target", "ties"), [
    (3, 300, "shared"), (3, 300, "trigger"), (4, 400, "shared"), (4, 400, "trigger"),
    (5, 200, "shared")])
def test_the_compact_final_round_is_the_dense_one_bit_for_bit(players: int, target: int,
                                                              ties: str) -> None:
    """The final round's compact rows (a state whose leader among the trigger and the seats
    that have played can no longer be pushed below the target is the row of its lead) give
    every state of every phase the values of the dense layout, where every state of the box
    is its own row (the layout of format 1): the same bits, every seat."""
    rules = Rules(target=target, ties=ties)
    compact = solve_game(rules, players, n_dice=3)
    dense = solve_game(rules, players, n_dice=3, compact=False)
    smaller = 0
    for name, box in dense.seats.phases.items():
        phase = compact.seats.phases[name]
        totals = box.decode(np.arange(box.size, dtype=np.int64))
        rows = phase.encode(totals)
        assert rows.min() >= 0 and rows.max() < phase.size
        assert np.array_equal(dense.values[name], compact.values[name][rows]), name
        smaller += box.size - phase.size
    assert smaller > 0  # (the final round has seats that have played: it is smaller)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_compact_row_decodes_to_a_state_of_that_row(players: int) -> None:
    """Every row of a compact phase decodes to totals whose row it is, and a state whose lead
    cannot be pushed back has the seats below the lead at 0 in its row (they never win)."""
    seats = seats_of(players, point_range(Rules(target=500), 3), 5, "shared")
    for name, phase in seats.phases.items():
        rows = np.arange(phase.size, dtype=np.int64)
        totals = phase.decode(rows)
        assert np.array_equal(phase.encode(totals), rows), name
        if phase.safe:
            rest = totals[:, phase.remaining:]
            led = rest.max(axis=1) >= phase.safe
            below = rest[led] < rest[led].max(axis=1, keepdims=True)
            assert led.any() and np.all(rest[led][below] == 0)


@pytest.mark.parametrize("target", [1000, 6000])
def test_two_player_lookups_are_the_seats_successors(target: int) -> None:
    gm = game_model(Rules(target=target))
    n = gm.n
    a, b = np.divmod(np.arange(n * n), n)
    k = np.arange(gm.k_min, gm.k_max + 1)[:, None]
    after = a[None, :] + k
    here = b[None, :] * n + floor_total(after)  # RULES.md: the move passes, totals >= 0
    d = np.arange(gm.n_ded)[:, None]
    island = floor_total(b[None, :] - d) * n + a[None, :]
    for phase, beyond in ((NORMAL, n * n + (after - n) * n + b[None, :]),  # G(a', b)
                          (SUDDEN, np.full_like(after, n * n))):  # the win
        got = lookup(phase, gm)
        assert np.array_equal(got.points, np.where(after >= n, beyond, here))
        assert np.array_equal(got.island, island)


def test_the_last_final_turn_shares_a_tie_or_gives_it_to_the_first_to_reach_the_target(
) -> None:
    ranges = point_range(Rules(), 8)
    shared = seats_of(3, ranges, 60, "shared")
    trigger = seats_of(3, ranges, 60, "trigger")
    # seat 0 the last final turn, seat 1 the trigger, seat 2 the first final turn
    totals = np.array([[6100, 6100, 6100], [6100, 6100, 5000], [6000, 6100, 6100],
                       [5900, 5000, 5800]]) // 100
    assert shared.winners(totals).tolist() == [0b111, 0b011, 0b110, 0]
    assert trigger.winners(totals).tolist() == [0b010, 0b010, 0b010, 0]
    assert np.allclose(shared.terminal[0b011], [0.5, 0.0, 0.5])  # next frame: seat j is j+1


@pytest.mark.parametrize(("players", "target", "ties", "compact"), [
    (2, 1000, "shared", True), (3, 1000, "trigger", True), (3, 600, "shared", False),
    (4, 600, "shared", True), (4, 500, "trigger", True), (5, 400, "shared", True),
    (5, 300, "trigger", True)])
def test_the_compiled_successors_are_the_numpy_reference_s_rows(
        players: int, target: int, ties: str, compact: bool) -> None:
    """solver/game/seats_numba.py, state by state with the others' part found once a state,
    against Seats.successors' arrays of every ending at once: every phase (all its states, or
    6000 spread over it), both tie rules, the compact final round (led rows, ties for the
    lead) and the dense one."""
    rules = Rules(target=target, ties=ties)
    gm = game_model(rules)
    seats = seats_of(players, point_range(rules, 8), gm.n, ties, compact=compact)
    for name, phase in seats.phases.items():
        index = np.arange(phase.size, dtype=np.int64)
        index = index[::max(1, phase.size // 6000)]
        try:
            kernel.force("numpy")
            want = seats.successors(name, index)
        finally:
            kernel.force(None)
        got = seats._compiled_successors(seats_numba.successors, phase, phase.decode(index))
        assert got[0].shape == want[0].shape and got[1].shape == want[1].shape
        assert np.array_equal(got[0], want[0]), name
        assert np.array_equal(got[1], want[1]), name
        if name == "final1":  # the last final turn reaches results and sudden death
            rows = np.concatenate([got[0].ravel(), got[1].ravel()])
            assert np.any(rows >= seats.offset("terminal"))
            assert np.any(rows < seats.offset("terminal"))


def test_the_compiled_successors_serve_a_solve_s_batches_and_not_an_answer_s_states() -> None:
    """Two chunks of lanes or more: the compiled kernel wherever the turn kernel runs numba;
    fewer (an answer's states), the numpy reference, even with numba loaded."""
    try:
        kernel.force("numba")
        assert _compiled(2 * LANES) is seats_numba.successors
        assert _compiled(2 * LANES - 1) is None
        kernel.force("numpy")
        assert _compiled(100 * LANES) is None
    finally:
        kernel.force(None)


# -- the endings of a turn --------------------------------------------------------------------


def _turns(n_dice: int, columns: int, seed: int) -> tuple[Any, np.ndarray]:
    gm = game_model(Rules(target=1000), n_dice)
    rng = np.random.default_rng(seed)
    k = np.arange(gm.k_min, gm.k_max + 1)
    u = np.vstack([np.array([1 / (1 + np.exp(-(k - rng.uniform(0, 15)) / 3))
                             for _ in range(columns)]).T, np.ones((1, columns))])
    return gm, u


def _solve_and_push(gm: Any, u: np.ndarray, width: int, impl: str) -> dict[str, Any]:
    kernel.force(impl)
    try:
        ul = to_lanes(u, width)
        b = u.shape[1]
        out = {}
        for card, ct in gm.cards.items():
            w0 = ct.worlds[ct.model.worlds[0]]
            solved = solve_layers(ct.model, ct.st, ul, w0.stop_idx, w0.bust_idx, tol=1e-12,
                                  per_lane=True)
            code, sor = {}, {}
            margin = np.full((ul.shape[0], ul.shape[2]), np.inf)
            for world in ct.model.worlds:
                w = ct.worlds[world]
                q_used = solved.keeps[USED] if world == UNUSED else None
                code[world], sor[world], _ = kernel.best_moves(solved.keeps[world], q_used, ul,
                                                               w, ct.st, TIE_TOL, w.sorceress_ok)
                margin = np.minimum(margin, kernel.decision_margins(
                    solved.keeps[world], q_used, ul, w, ct.st, TIE_TOL, w.sorceress_ok,
                    code[world], sor[world]))
            ends = endings(ct.st, ct.model.worlds, ct.worlds, code, sor, ct.first,
                           ct.first_bust_row, gm.n_u, eps=1e-14)
            turn = turn_value_lanes(solved.values[ct.model.start_world], ct.first,
                                    ul[:, ct.first_bust_row, :], None)
            out[card] = {"mass": from_lanes(ends.mass, b), "lost": from_lanes(ends.lost, b),
                         "turn": from_lanes(turn, b), "margin": from_lanes(margin, b),
                         "island": float(ct.island.sum())}
        return out
    finally:
        kernel.force(None)


def test_the_endings_and_margins_of_numba_are_numpys_bit_for_bit() -> None:
    gm, u = _turns(5, 70, seed=2)  # two chunks of lanes
    fast = _solve_and_push(gm, u, LANES, "numba")
    reference = _solve_and_push(gm, u, LANES, "numpy")
    for card in fast:
        for name in ("mass", "lost", "turn", "margin"):
            assert np.array_equal(fast[card][name], reference[card][name]), (card, name)


def test_the_endings_give_the_best_turn_value_back_and_sum_to_one() -> None:
    gm, u = _turns(8, 3, seed=1)
    got = _solve_and_push(gm, u, LANES, "numba")
    for card, g in got.items():
        # at the Bellman fixed point the best moves' value is the Bellman value
        assert np.abs((g["mass"] * u).sum(axis=0) - g["turn"]).max() <= 1e-12, card
        total = g["mass"].sum(axis=0) + g["island"] + g["lost"]
        assert np.abs(total - 1.0).max() <= 1e-14, card
        assert g["lost"].max() <= 1e-13


def test_a_column_alone_and_in_a_batch_gives_the_same_bits() -> None:
    gm, u = _turns(5, 70, seed=3)
    batch = _solve_and_push(gm, u, LANES, "numba")
    alone = _solve_and_push(gm, u[:, 5:6], 1, "numba")
    for card in batch:
        for name in ("mass", "lost", "turn", "margin"):
            b, a = batch[card][name], alone[card][name]
            assert np.array_equal(b[..., 5], a[..., 0]), (card, name)


@pytest.mark.parametrize("block", [64, 1000])
def test_the_final_round_in_blocks_of_shared_columns_gives_the_same_bits(
        monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    """The final round's states grouped by their utility columns (each distinct column solved
    once) give the values of blocks of consecutive states, bit for bit, solving fewer."""
    import solver.game.solve as ns

    rules = Rules(target=500)
    grouped = solve_game(rules, 3, n_dice=5, block=block)
    monkeypatch.setattr(ns, "column_blocks", lambda seats, name, Z, size: blocks_of(
        np.arange(seats.phases[name].size, dtype=np.int64), size))
    plain = solve_game(rules, 3, n_dice=5, block=block)
    for name, values in plain.values.items():
        assert np.array_equal(grouped.values[name], values), name
        assert grouped.records[name].as_dict() | {"columns": 0} == (
            plain.records[name].as_dict() | {"columns": 0}), name
    final = [n for n in plain.values if n.startswith("final")]
    assert sum(grouped.records[n].columns for n in final) < sum(
        plain.records[n].columns for n in final)


def test_a_final_round_block_s_values_compiled_are_the_plain_sweep_s() -> None:
    """improve_block's values come from the compiled sweep: the plain one's bits."""
    from solver.game.evaluate import _sweep_fn, sweep
    from solver.game.solve import start_table
    from solver.game.turns import improve

    if _sweep_fn() is sweep:
        pytest.skip("numba is not installed: both are the plain sweep")
    rules = Rules(target=500)
    gm = game_model(rules, 5)
    seats = seats_of(3, point_range(rules, 5), gm.n, rules.ties)
    Z = start_table(seats)
    index = np.arange(0, seats.phases["final1"].size, 7, dtype=np.int64)
    got = improve(gm, seats, "final1", index, Z, tol=FINAL_TOL, eps=FINAL_EPS)
    points, island = seats.successors("final1", index)
    outs = []
    for fn in (sweep, _sweep_fn()):
        out = np.zeros((index.shape[0], 3))
        fn(np.arange(index.shape[0], dtype=np.int64), got.endings,
           np.ascontiguousarray(points.T), np.ascontiguousarray(island.T),
           gm.island_deductions(), Z, seats.offset("final1"), seats.magic_row(), out)
        outs.append(out)
    assert np.array_equal(outs[0], outs[1]) and outs[0].any()


def test_column_blocks_hold_every_state_once_by_column() -> None:
    from solver.game.solve import GROUP_STATES, column_blocks, start_table

    rules = Rules(target=500)
    gm = game_model(rules, 5)
    seats = seats_of(3, point_range(rules, 5), gm.n, rules.ties)
    Z = start_table(seats)
    for block in (2, 7, 100):
        blocks = column_blocks(seats, "final1", Z, block)
        every = np.sort(np.concatenate(blocks))
        assert np.array_equal(every, np.arange(seats.phases["final1"].size))
        assert all(len(b) <= GROUP_STATES * block for b in blocks)
        from solver.game.turns import mover_utilities
        for b in blocks:
            u, _ = mover_utilities(seats, "final1", b, Z)
            assert len({c.tobytes() for c in np.ascontiguousarray(u.T)}) <= block


# -- the solves ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def warm_1000() -> Any:
    return solve_game(Rules(target=1000))


def test_two_player_policy_iteration_gives_the_certified_start_s_table_bit_for_bit(
        warm_1000: Any) -> None:
    # Two players' cyclic phases start from value iteration's certified values (one
    # improvement and the last step after); from 1/2, as for more players, the policy
    # iteration reaches the same moves at every state, and both end a phase with the same last
    # step (solve.last_step: those moves' turns, evaluated afresh), so every value is the same
    # bits
    rules = Rules(target=1000)
    two = warm_1000
    sol = solve_game(rules, 2, certified=False)
    assert max(r.bound for r in sol.records.values()) < 1e-11
    assert all(r.certificate is None for r in sol.records.values())
    for name in ("normal", "sudden", "final1"):
        mine = sol.values[name]
        assert np.array_equal(mine, two.values[name]), name
        assert np.array_equal(mine[:, 1], 1.0 - mine[:, 0]), name
    # and the same moves at every state of every phase: each state's turn solved from either
    # table's values has the same digest of its moves (the values being the same bits, this
    # checks the digests are the moves': solved twice, the same)
    runner = LocalRunner(rules, 2)
    for name, phase in sol.seats.phases.items():
        blocks = blocks_of(np.arange(phase.size), 512)
        digests = []
        for table in (two.stacked(), sol.stacked()):
            got = np.zeros(phase.size, dtype=np.uint64)
            for i, done in runner.improve(name, blocks, table, FINAL_TOL, FINAL_EPS, False):
                got[blocks[i]] = done.digest
            digests.append(got)
        assert np.count_nonzero(digests[0]) == phase.size, name
        assert np.array_equal(digests[0], digests[1]), name
    # the certified start's bound takes its last step's change into account
    record = two.records[NORMAL]
    assert record.settled > 0.0 and record.certificate is not None
    assert record.certificate["bound"] > record.settled


def test_a_near_tie_kept_through_the_iteration_is_settled_by_the_tie_rule(
        warm_1000: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """At target 1000 a mover of normal play kept a move within the precision of the one the
    tie rule picks (cycles.settle): the phase's end takes the tie rule's, which is what makes
    the bits the two-player table's; refused (as with three players when it would move some
    value by more than ADOPT), the kept move stays, and the values part in the last bits."""
    from solver.game import cycles

    rules = Rules(target=1000)
    monkeypatch.setattr(cycles, "ADOPT", 0.0)
    kept = solve_game(rules, 2, certified=False)
    assert kept.records[NORMAL].adopted == 0
    got = kept.values[NORMAL][:, 0]
    want = warm_1000.values[NORMAL][:, 0]
    assert not np.array_equal(got, want)
    assert np.abs(got - want).max() <= 1e-11
    monkeypatch.setattr(cycles, "ADOPT", 1e-10)
    assert solve_game(rules, 2, certified=False).records[NORMAL].adopted > 0


class _Seat(Objective):
    """Another seat's utility of a turn's endings (pirate magic: the mover wins, not it)."""

    def __init__(self, k_min: int, points: np.ndarray, island: np.ndarray) -> None:
        self.k_min, self.points, self.island = k_min, points, island

    def of_points(self, points: np.ndarray) -> np.ndarray:
        return self.points[np.asarray(points) // 100 - self.k_min][:, None]

    def of_magic(self, points: np.ndarray) -> np.ndarray:
        return np.zeros((np.asarray(points).shape[0], 1))

    def of_island(self, deduction: np.ndarray) -> np.ndarray:
        return self.island[np.asarray(deduction) // 100][:, None]

    def key(self) -> tuple[object, ...]:
        return ("seat", id(self))


def _plain_turns(sol: GameTable, name: str, s: int) -> np.ndarray:
    """Every seat's value at state `s` from the engine's plain turn solve of each card: the
    mover's best turn, and the policy evaluation of that turn for every other seat."""
    seats, Z, players = sol.seats, sol.stacked(), sol.players
    points, island = seats.successors(name, np.array([s]))
    rules = sol.rules.turn_rules()
    out = np.zeros(players)
    for card, weight in deck(sol.n_dice).items():
        mover = GameUtility(TurnUtility(seats.k_min, Z[points[:, 0], players - 1][:, None],
                                        Z[island[:, 0], players - 1][:, None]),
                            key=("mover", name, s))
        best = solve_turn(CARDS[card], rules, mover, n_dice=sol.n_dice, tol=1e-13)
        out[0] += weight * best.turn_value[0]
        for j in range(1, players):
            seat = _Seat(seats.k_min, Z[points[:, 0], j - 1], Z[island[:, 0], j - 1])
            evaluated = solve_turn(CARDS[card], rules, seat, n_dice=sol.n_dice,
                                   policy=best.policy(), tol=1e-13)
            out[j] += weight * evaluated.turn_value[0]
    return out


@pytest.mark.parametrize("game", ["three", "four"])
def test_every_phase_is_what_each_state_s_plain_turn_solve_gives(
        game: str, request: pytest.FixtureRequest) -> None:
    sol: GameTable = request.getfixturevalue(game)
    assert all(r.bound < 1e-11 for r in sol.records.values())
    for name, phase in sol.seats.phases.items():
        for s in np.linspace(0, phase.size - 1, 7).astype(int).tolist():
            got = _plain_turns(sol, name, s)
            assert np.abs(got - sol.values[name][s]).max() <= 1e-11, (name, s)
            assert abs(sol.values[name][s].sum() - 1.0) <= 1e-14


def test_the_mover_s_value_is_the_naive_expectimax_s(three: GameTable) -> None:
    sol, seats, Z = three, three.seats, three.stacked()
    rules = sol.rules.turn_rules()
    last = sol.players - 1
    name, phase = NORMAL, seats.phases[NORMAL]
    for s in (phase.size // 2,):
        points, island = seats.successors(name, np.array([s]))
        ks, ds = points[:, 0], island[:, 0]

        def stop(p: int, magic: bool, ks: Any = ks) -> float:
            return 1.0 if magic else float(Z[ks[p // 100 - seats.k_min], last])

        utility = Utility("mover", stop, lambda p, ks=ks: float(Z[ks[p // 100 - seats.k_min],
                                                                 last]),
                          lambda d, ds=ds: float(Z[ds[d // 100], last]))
        total = 0.0
        for card, weight in deck(sol.n_dice).items():
            naive = Naive(card, rules, sol.n_dice, [utility])
            values = Level.of(naive.horizon_zero())
            for _ in range(100):  # to the fixed point: a reroll stays with at most 25/36
                values = naive.bellman(values)
            total += weight * float(naive.turn_value(values)[0])
        assert abs(total - sol.values[name][s][0]) <= 1e-11


# -- the committed three-player table (target 6000) -------------------------------------------


def test_the_committed_three_player_table_is_met_by_each_state_s_plain_turn_solve() -> None:
    """The table of `make tables-3p` (an hour's solve, not re-run here): its header's point
    range is the rules' own (the reader trusts it), its record says what was proved, and at
    sample states of every phase the engine's plain turn solve of each card from the table's
    values gives the table's value of every seat back (the fixed point, to its proved
    bound)."""
    from solver.tables.game import read_game
    from solver.tables.paths import committed_dir

    rules = Rules()
    table = read_game(committed_dir(), rules, 3)
    ranges = point_range(rules)
    assert (table.k_min, table.k_max, table.n_ded) == (ranges.k_min, ranges.k_max,
                                                        ranges.n_ded)
    for name, record in table.records.items():
        assert record.changed[-1] == 0 or record.iterations == 1, name
        assert record.bound < 1e-9, name
        assert record.gap <= 1e-11, name
    sol = table
    for name, s in (("normal", 0), ("normal", 20 * 3600 + 35 * 60 + 10), ("final1", 4321),
                    ("final2", 100_000), ("sudden", 5 * 3600 + 58 * 60 + 59)):
        got = _plain_turns(sol, name, s)  # (1.5e-13 to 4e-15 measured)
        assert np.abs(got - table.values[name][s]).max() <= 1e-11, (name, s)


def test_a_table_read_lazily_goes_to_another_process_whole() -> None:
    """A table read from its file decodes its phases when first asked; sent to a worker
    (joblib pickles it: `scripts/measure_reduced.py exact --jobs 2`) it goes decoded, with
    its own lock, and gives the same values (it was refused as unpicklable: a lock and a
    local function)."""
    import pickle

    from solver.tables.game import read_game
    from solver.tables.paths import committed_dir

    table = read_game(committed_dir(), Rules(), 2)
    back = pickle.loads(pickle.dumps(table))
    assert np.array_equal(np.asarray(back.stacked()), np.asarray(table.stacked()))
    assert back.values.decoded == set(table.seats.phases)
    with pytest.raises(ValueError):  # still read-only
        np.asarray(back.stacked())[0, 0] = 0.5


def test_a_block_pushed_in_part_pads_its_lanes_with_stops(three: GameTable) -> None:
    """Before: the lanes padding the states pushed again (their moves new) carried the code
    0, no move where a position has no plain keep (two skulls of three dice: only the
    Sorceress's reroll): the compiled pushes read past the pair list and wrote elsewhere
    (found with NUMBA_BOUNDSCHECK=1; the suite's process then died at exit), the numpy
    reference raised an IndexError. Now both push those states as a whole block does."""
    from solver.game.turns import improve

    gm = game_model(three.rules, three.n_dice)
    seats, Z = three.seats, three.stacked()  # (every state its own utilities)
    index = np.arange(seats.phases[NORMAL].size, dtype=np.int64)
    whole = improve(gm, seats, NORMAL, index, Z, tol=1e-12, eps=1e-13)
    known = whole.digest.copy()
    known[::3] += np.uint64(1)  # a third of the states' moves new: pushed in lanes of their own
    for choice in ("numpy", "numba"):
        kernel.force(choice)
        try:
            part = improve(gm, seats, NORMAL, index, Z, tol=1e-12, eps=1e-13, known=known)
        finally:
            kernel.force(None)
        assert part.fresh.any() and not part.fresh.all()
        assert np.array_equal(part.endings[part.fresh], whole.endings[part.fresh]), choice


def test_columns_with_the_same_moves_are_pushed_once_with_the_same_endings(
        four: GameTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn's endings depend on its moves alone: the columns of a block whose moves are the same
    are pushed once (`turns._by_moves`), and every state's endings are the bits of pushing each
    column, in numba (and in numpy, in one phase: it is slow). Two different moves under one digest
    (forced here: every digest 0) are caught by comparing the moves whole, and every column is then
    pushed."""
    from solver.game import turns
    from solver.game.turns import improve

    gm = game_model(four.rules, four.n_dice)
    seats, Z = four.seats, four.stacked()
    real = turns._by_moves
    seen: list[tuple[int, int]] = []

    def spy(fresh: np.ndarray, *args: object) -> tuple[np.ndarray, np.ndarray]:
        lead, slot = real(fresh, *args)  # type: ignore[arg-type]
        seen.append((fresh.shape[0], lead.shape[0]))
        return lead, slot

    def every_column(fresh: np.ndarray, digest: object, moves: object,
                     b: int) -> tuple[np.ndarray, np.ndarray]:
        slot = np.full(b, -1, dtype=np.int64)
        slot[fresh] = np.arange(fresh.shape[0])
        return fresh, slot

    for name, choices in ((NORMAL, ("numpy", "numba")), ("final3", ("numba",)),
                          ("final2", ("numba",))):
        index = np.arange(seats.phases[name].size, dtype=np.int64)
        digests = improve(gm, seats, name, index, Z, tol=1e-12, eps=1e-13, margins=False).digest
        half = digests.copy()
        half[::2] += np.uint64(1)  # every other state's moves new: the fresh columns have gaps
        for choice, known in [(c, k) for c in choices for k in (None, half)]:
            kernel.force(choice)
            try:
                seen.clear()
                monkeypatch.setattr(turns, "_by_moves", spy)
                once = improve(gm, seats, name, index, Z, tol=1e-12, eps=1e-13, known=known)
                assert sum(lead for _, lead in seen) < sum(fresh for fresh, _ in seen), name
                got = [once]
                if known is None:
                    monkeypatch.setattr(turns, "_digest", lambda code, sor, h: h)  # all alike
                    seen.clear()
                    got.append(improve(gm, seats, name, index, Z, tol=1e-12, eps=1e-13))
                    assert [lead for _, lead in seen] == [fresh for fresh, _ in seen], name
                monkeypatch.undo()
                monkeypatch.setattr(turns, "_by_moves", every_column)
                each = improve(gm, seats, name, index, Z, tol=1e-12, eps=1e-13, known=known)
                monkeypatch.undo()
            finally:
                kernel.force(None)
            assert known is None or (not each.fresh.all() and each.fresh.any())
            for one in got:
                assert np.array_equal(one.endings, each.endings), (name, choice)
                assert np.array_equal(one.lost, each.lost), (name, choice)
                assert np.array_equal(one.fresh, each.fresh), (name, choice)


def test_moves_that_cycle_are_settled_with_progress_and_the_same_bytes(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Settling moves that go round in a cycle (`cycles.one_at_a_time`) evaluates the phase
    again and again: at four players at 2000 its 26th improvement was followed by minutes
    with no line. Each evaluation is now reported (the step CYCLE), the first line always;
    the numbers are those of a solve that reports nothing. Three players, three dice, target
    800: a cycle at a few states of normal play, in half a second."""
    from solver.cli.render import SolveProgress
    from solver.game.records import CYCLE
    from solver.tables.game import pack_game

    rules, seen = Rules(target=800), []
    table = solve_game(rules, 3, n_dice=3, progress=seen.append)
    cycle = [p for p in seen if p.step == CYCLE]
    assert cycle, "no cycle: the test's game no longer has one"
    assert [p.done for p in cycle] == list(range(len(cycle)))  # before each evaluation
    assert {(p.phase, p.blocks) for p in cycle} == {(NORMAL, cycle[0].blocks)}
    assert cycle[0].blocks >= 2 and cycle[0].iteration >= 1
    assert pack_game(table) == pack_game(solve_game(rules, 3, n_dice=3))
    show = SolveProgress()  # into a log (pytest's stderr is not a terminal): the first line
    for p in cycle:
        show(p)
    said = capsys.readouterr().err.splitlines()
    assert said == [f"normal improvement {cycle[0].iteration}: the moves of {cycle[0].blocks} "
                    "states go round in a cycle; settling them one mover at a time, "
                    "0 evaluations, 0 s"]


def test_settling_a_cycle_pushes_only_moves_not_met_before_and_gives_the_same_bytes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each profile of moves tried at a cycle's states solves their movers' best turns; their
    endings are pushed only where the moves are new there (`cycles._responses`), since the
    endings of moves met before are the same bits. Four players at 300 took 28 s to settle
    a cycle of 8 states, 12.8 s since. The table is the one of pushing every best turn, as
    before (the same bytes), every best turn's endings are those of pushing it, and some best
    turns were not pushed (else nothing was saved)."""
    from solver.game import cycles
    from solver.game.records import FINAL_EPS, FINAL_TOL
    from solver.game.turns import improve
    from solver.tables.game import pack_game

    rules, fresh = Rules(target=800), []
    real = cycles._responses

    def spy(*args: object) -> object:
        now = real(*args)  # type: ignore[arg-type]
        fresh.append(now.fresh.copy())
        gm, seats, name, order, Z, _ = args
        plain = improve(gm, seats, name, order, Z, tol=FINAL_TOL, eps=FINAL_EPS)  # type: ignore[arg-type]
        assert np.array_equal(now.endings, plain.endings)  # the endings copied are pushes'
        assert np.array_equal(now.best, plain.best) and np.array_equal(now.digest, plain.digest)
        return now

    monkeypatch.setattr(cycles, "_responses", spy)
    table = solve_game(rules, 3, n_dice=3)
    assert fresh, "no cycle: the test's game no longer has one"
    assert not all(f.all() for f in fresh)

    def pushing_all(gm: object, seats: object, name: str, order: np.ndarray, Z: np.ndarray,
                    met: object) -> object:
        return improve(gm, seats, name, order, Z, tol=FINAL_TOL, eps=FINAL_EPS)  # type: ignore[arg-type]

    monkeypatch.setattr(cycles, "_responses", pushing_all)
    assert pack_game(solve_game(rules, 3, n_dice=3)) == pack_game(table)
