"""Near-optimal play for four and five players (solver/game/reduced.py, estimate.py) and the
measurement of its chances and its loss (solver/strategy/measure.py), on reduced games (three
dice):

- on a game of its own size the method is the table: the sub-games' odds pooled give the
  table's values back, its utilities are the exact table's, and a seat that plays it loses
  nothing;
- the final round's race is the exact last turn's where nobody can be pushed back;
- every seat's chances sum to 1; the table's own play evaluated as a profile gives the table's
  values back (the evaluation is the game's);
- the exact table is an equilibrium: no seat gains by playing the method instead (the loss is
  never below the noise), and the method loses little; its chances are near the table's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.game import GameTable
from solver.game.solve import solve_game
from solver.rules import Rules
from solver.strategy.measure import measure_loss


def stacked(sol: GameTable) -> np.ndarray:
    seats = sol.seats
    return np.concatenate([*(sol.values[p] for p in seats.phases), seats.terminal])


@pytest.fixture(scope="module")
def four() -> tuple[GameTable, GameTable, GameTable]:
    rules = Rules(target=400)
    return (solve_game(rules, 4, n_dice=3), solve_game(rules, 2, n_dice=3),
            solve_game(rules, 3, n_dice=3))


def test_nobody_gains_by_the_method_and_it_loses_little(
        four: tuple[GameTable, GameTable, GameTable]) -> None:
    """Four players, the method on the tables of two and three: the table's own play
    evaluated as a profile gives the table back (the evaluation is the game's); the exact
    table is an equilibrium, so a seat that plays the method gains nothing anywhere (within
    the noise); it loses something (the method is not the table) but little; and the chances
    it shows are near the table's (three dice, target 400: measured 0.01 points of P(win)
    lost on average, the chances 0.1 points off in normal play)."""
    big, two, three = four
    loss = measure_loss(big, two, three)
    assert loss.noise < 1e-9 and loss.residual <= 1e-13
    assert loss.least > -1e-9  # nobody gains
    assert 0 < loss.mean < 0.002 and loss.worst < 0.01
    assert loss.start_exact == list(big.values["normal"][0])
    assert loss.chances["normal"].mean < 0.005 and loss.chances["normal"].worst < 0.02
    assert loss.chances["sudden"].mean < 0.005


def test_on_its_own_size_the_method_is_the_table() -> None:
    """Three players on the tables of two and three: the one set of three seats is the whole
    game, so the pooled odds (not extrapolated) are the table's, every state of normal play
    and sudden death; the method as it is (extrapolated, its final round a race) loses little
    there, and nobody gains by it."""
    from solver.game.estimate import Estimate

    rules = Rules(target=300)
    two, three = solve_game(rules, 2, n_dice=3), solve_game(rules, 3, n_dice=3)
    estimate = Estimate(two, three, 3, extrapolate={"normal": 0.0, "sudden": 0.0})
    for name in ("normal", "sudden"):
        phase = three.seats.phases[name]
        got = estimate.values(name, phase.decode(np.arange(phase.size)))
        assert np.abs(got - three.values[name]).max() <= 1e-12, name
    loss = measure_loss(three, two, three, play=True)
    assert 0 <= loss.mean < 1e-4 and loss.worst < 1e-3 and loss.least > -1e-9


def test_the_race_of_the_last_final_turn_is_the_exact_table_where_nobody_falls_back(
        four: tuple[GameTable, GameTable, GameTable]) -> None:
    """The last final turn, the leader so far ahead that no Skull Island brings it below the
    target: the mover plays to beat the leader, as the exact table's mover does, and the race
    gives every seat the table's chance."""
    from solver.game.estimate import Estimate

    big, two, three = four
    estimate = Estimate(two, three, 4)
    phase = big.seats.phases["final1"]
    totals = phase.decode(np.arange(phase.size))
    safe = totals[:, 1:].max(axis=1) >= big.seats.n + big.n_ded - 1
    got = estimate.values("final1", totals[safe])
    assert safe.sum() > 300
    assert np.abs(got - big.values["final1"][safe]).max() <= 1e-9


OFF_FINAL = 0.045
"""The race's largest error allowed there, as a fraction (measured: 0.043 in the second final
phase, 0.0046 in the third; the plain turns 0.079 and 0.045; the mean 0.0004 and 0.0001)."""


def test_a_final_turn_with_players_after_it_plays_to_their_chances_and_the_race_comes_nearer(
        four: tuple[GameTable, GameTable, GameTable]) -> None:
    """A final turn with others still to play after it, played to beat the best alone, leaves
    them an easy total to beat; the race's turns are the engine's exact turns for the chance
    that no later player beats each total (:meth:`Estimate.aim`). Against the exact table of
    four (three dice, target 400), at every state of each final phase with two or three turns
    left, the race is nearer on average and at worst, and within OFF_FINAL of the exact
    values everywhere. The last final turn is the plain one: exact."""
    from solver.game.estimate import Estimate

    big, two, three = four
    Z = np.asarray(big.stacked())
    seats = big.seats
    aimed, plain = Estimate(two, three, 4), Estimate(two, three, 4)
    plain.aimed = False
    for name in ("final2", "final3"):
        phase = seats.phases[name]
        index = np.arange(phase.size)
        exact = Z[seats.offset(name) + index]
        off = [np.abs(e.final_round(phase.decode(index), phase.remaining) - exact)
               for e in (aimed, plain)]
        assert off[0].mean() < off[1].mean(), name
        assert off[0].max() < off[1].max(), name
        assert off[0].max() <= OFF_FINAL, name
    last = seats.phases["final1"]
    totals = last.decode(np.arange(last.size))
    assert np.array_equal(aimed.final_round(totals, 1), plain.final_round(totals, 1))


def test_every_seat_s_chances_sum_to_one(four: tuple[GameTable, GameTable, GameTable]) -> None:
    from solver.game.estimate import Estimate

    big, two, three = four
    estimate = Estimate(two, three, 4)
    for name, phase in big.seats.phases.items():
        got = estimate.values(name, phase.decode(np.arange(min(phase.size, 3000))))
        assert np.abs(got.sum(axis=1) - 1.0).max() <= 1e-9, name
        assert got.min() >= 0.0


def test_one_player_down_the_pairs_alone_estimate_three_players() -> None:
    """Three players from the two-player table alone (what `scripts/measure_reduced.py down`
    measures at 6000): every seat's chances sum to 1 and are near the exact three-player
    table's, in every phase; the small games must be of m - 1 and m players, m at most the
    game's."""
    from solver.game.estimate import Estimate

    rules = Rules(target=400)
    two, three = solve_game(rules, 2, n_dice=3), solve_game(rules, 3, n_dice=3)
    loss = measure_loss(three, None, two, play=False, sample=500)
    assert loss.mean is None and loss.worst is None  # the play was not measured
    # the final round's phases sampled at most as many states as the others
    finals = [phase.size for phase in three.seats.phases.values() if phase.kind == "final"]
    assert max(finals) > 500
    assert loss.chances["final"].states == sum(min(size, 500) for size in finals)
    for name in ("normal", "sudden", "final"):  # measured 0.7, 2.3, 0.2 points (three dice)
        assert 0 < loss.chances[name].mean < 0.04, name
        values = np.concatenate([three.values[p] for p, phase in three.seats.phases.items()
                                 if p == name or phase.kind == name])
        uniform = np.abs(values - 1 / 3).mean()  # knowing nothing of the totals
        assert loss.chances[name].mean < uniform / 2, name
    estimate = Estimate(None, two, 3)
    got = estimate.values("normal", three.seats.phases["normal"].decode(np.arange(200)))
    assert np.abs(got.sum(axis=1) - 1.0).max() <= 1e-9
    with pytest.raises(ValueError, match="small games"):
        Estimate(two, two, 4)
    with pytest.raises(ValueError, match="small games"):
        Estimate(None, three, 2)


def test_the_final_turns_endings_are_kept_in_the_cache_and_a_foreign_file_is_solved_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """solver/tables/need.py: solved once and kept in the cache of the turn rules; read back
    the same; a damaged file, or one made for other dice, is solved again and replaced (the
    same endings); a cache that cannot be written warns and answers the same."""
    import warnings

    from solver.game.estimate import need_endings
    from solver.tables.need import cached_need, clear_kept, need_path, pack_need

    monkeypatch.setenv("SABORDS_CACHE_DIR", str(tmp_path / "cache"))
    clear_kept()
    rules = Rules(target=400)
    truth = need_endings(rules.turn_rules(), 3)
    first = cached_need(rules, 3)
    path = need_path(rules, 3)
    assert path.is_file()

    def same(a: object, b: object) -> bool:
        return (a.k_min, a.k_max) == (b.k_min, b.k_max) \
            and np.array_equal(a.dist, b.dist) and np.array_equal(a.island, b.island)

    assert same(first, truth)
    written = path.read_bytes()
    for bad in (written[:-7], b"garbage", pack_need(need_endings(rules.turn_rules(), 2), rules,
                                                    2)):
        path.write_bytes(bad)
        clear_kept()
        assert same(cached_need(rules, 3), truth)
        assert path.read_bytes() == written  # replaced by this one
    clear_kept()
    path.unlink()
    path.parent.chmod(0o500)
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            assert same(cached_need(rules, 3), truth)
        if not path.exists():  # root writes anyway
            assert said, "an unwritable cache is not warned of"
    finally:
        path.parent.chmod(0o700)
        clear_kept()


def test_requests_needing_the_same_endings_at_once_wait_for_one_solve(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server's requests for four players on a new machine: eight threads asking for the
    same endings at once solve them once (each waits for it) and get them all, whatever
    their targets (the endings depend on the turn rules and the dice alone); other dice are
    solved beside them."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import solver.game.estimate as estimate
    from solver.tables.need import cached_need, clear_kept

    monkeypatch.setenv("SABORDS_CACHE_DIR", str(tmp_path / "cache"))
    clear_kept()
    solves: list[int] = []
    started = threading.Barrier(8)
    real = estimate.need_endings

    def counted(turn_rules: Rules, n_dice: int) -> object:
        solves.append(n_dice)
        return real(turn_rules, n_dice)

    monkeypatch.setattr(estimate, "need_endings", counted)

    def ask(target_dice: tuple[int, int]) -> object:
        started.wait()
        return cached_need(Rules(target=target_dice[0]), target_dice[1])

    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            got = list(pool.map(ask, [(400, 3), (500, 3), (6000, 3)] * 2 + [(400, 2)] * 2))
    finally:
        clear_kept()
    assert sorted(solves) == [2, 3]
    assert all(g is got[0] for g in got[:6]) and got[6] is got[7]
    assert got[0] is not got[6]


@pytest.mark.parametrize(("players", "m"), [(3, 2), (3, 3), (4, 2), (4, 3), (5, 2), (5, 3)])
def test_the_pooled_strengths_closed_form_is_the_least_squares_solution(players: int,
                                                                        m: int) -> None:
    """solver/game/estimate.py pools the sub-games by ``u = A^T d / (c N)``, ``c = C(N - 2,
    m - 2)``, in a fixed order: the minimum-norm least-squares solution (the pseudo-inverse,
    which LAPACK computes with the machine's last bits), to rounding."""
    import itertools
    from math import comb

    rows = []
    for S in itertools.combinations(range(players), m):
        for a, b in itertools.combinations(range(m), 2):
            row = np.zeros(players)
            row[S[a]], row[S[b]] = 1.0, -1.0
            rows.append(row)
    A = np.array(rows)
    closed = A.T / (comb(players - 2, m - 2) * players)
    assert np.abs(np.linalg.pinv(A) - closed).max() < 1e-14


def test_at_five_players_the_extrapolation_goes_on_the_line_to_five_seats() -> None:
    """The strengths extrapolated from the pairs and the triples along the line to the game's
    seats (``u3 + c (N - 3) (u3 - u2)``: twice the step at five players) are nearer the exact
    five-player table than one step alone, in normal play and sudden death (three dice,
    target 400, every state: measured 1.37 points off on average in sudden death, 2.63 with
    one step; 0.43 and 0.52 in normal play); at four players the line is the one step."""
    from solver.game.estimate import EXTRAPOLATE, Estimate

    rules = Rules(target=400)
    five, two, three = (solve_game(rules, n, n_dice=3) for n in (5, 2, 3))
    one_step = {phase: c / 2 for phase, c in EXTRAPOLATE.items()}
    for name in ("normal", "sudden"):
        phase = five.seats.phases[name]
        totals = phase.decode(np.arange(phase.size))
        line = np.abs(Estimate(two, three, 5).values(name, totals) - five.values[name])
        step = np.abs(Estimate(two, three, 5, extrapolate=one_step).values(name, totals)
                      - five.values[name])
        assert line.mean() < step.mean() and line.max() < step.max(), name
    from solver.game.estimate import pooled, softmax

    totals = np.array([[3, 0, 1, 2], [0, 0, 0, 3]])
    u2, u3 = pooled(two, "sudden", totals), pooled(three, "sudden", totals)
    assert np.array_equal(Estimate(two, three, 4).values("sudden", totals),
                          softmax(u3 + EXTRAPOLATE["sudden"] * (u3 - u2)))


@pytest.mark.slow
def test_measure_games_plays_one_state_alone_with_its_own_seed_and_never_stores_it(
        tmp_path: Path) -> None:
    """`measure_reduced.py games --start`: a second look at one state of the games' check (the
    totals in seat order), played with --seed itself, so that a miss can be played again on
    more games; wrong totals, --write, and a file to store in that cannot be one are refused
    in one line with exit code 2, before any game is played."""
    import json
    import subprocess
    import sys

    bad, wrong = tmp_path / "bad.json", tmp_path / "wrong.json"
    bad.write_text("{ not json", encoding="utf-8")
    wrong.write_text("[1, 2]", encoding="utf-8")

    script = Path(__file__).resolve().parents[1] / "scripts" / "measure_reduced.py"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(script), "games", "--players", "4", *args],
                              capture_output=True, text=True, timeout=300)

    for args, words in ((["--start", "2000,2000"], "needs 4 totals, not 2"),
                        (["--start", "2000,2x00,0,0"], "not totals"),
                        (["--start", "2050,0,0,0"], "multiples of 100"),
                        (["--start", "0,0,0,5900", "--write"], "not stored"),
                        (["--games", "0"], "--games is a number of games from 1, not 0"),
                        (["--chunk", "0"], "--chunk is a number of games from 1, not 0"),
                        (["--start", "0,0,0,0", "--resume"], "nothing stored to resume"),
                        (["--jobs", "0"], "--jobs is a number of processes from 1, not 0"),
                        (["--seed", "-1"], "--seed is a number from 0, not -1"),
                        (["--write", "--out", str(tmp_path)], "--out is a folder"),
                        (["--resume", "--out", str(tmp_path / "no" / "x.json")],
                         "--out: no such folder"),
                        (["--write", "--out", str(bad)], "--out: cannot read"),
                        (["--resume", "--out", str(wrong)], "not a file of measurements"),
                        (["--replace", "--write", "--out", str(tmp_path / "n.json")],
                         "--replace is for a run that resumes and stores")):
        got = run(*args)
        assert got.returncode == 2 and words in got.stderr, (args, got.stderr)
        assert "Traceback" not in got.stderr
    got = run("--start", "2000,2000,0,5900", "--games", "12", "--seed", "7")
    assert got.returncode == 0, got.stderr
    entry = json.loads(got.stdout)
    (state,) = entry["states"]
    assert state["start"] == [2000, 2000, 0, 5900] and state["seed"] == 7
    assert state["games"] == 12 and entry["checked"] == 4
    assert abs(sum(r["rate"] for r in state["seats"]) - 1) < 1e-12


@pytest.mark.slow
def test_measure_games_in_chunks_resumes_where_it_stopped_with_the_same_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`measure_reduced.py games --chunk N --resume`: a check of many hours played over several
    runs. Each chunk has its own seed, so a run resumed from the stored chunks ends with the
    same games as a run in one go; an entry written before the chunks counts as its one chunk;
    a state whose chance shown changed since (the method changed) is played afresh."""
    import json
    import sys

    script = Path(__file__).resolve().parents[1] / "scripts" / "measure_reduced.py"
    m = _measure_script()
    # two states, the start and one near the end (short games), where the run has six: the
    # bookkeeping is each state's own (the games of all six took 25 s of the suite)
    monkeypatch.setattr(m, "MIDGAME", {4: [m.MIDGAME[4][3]]})

    def run(out: Path, *args: str, code: int = 0) -> tuple[dict, str]:
        """The script's main() in this process (its start-up and the estimates' caches paid
        once: the runs took 72 s as processes of their own); the exit code a process has."""
        monkeypatch.setattr(sys, "argv", [str(script), "games", "--players", "4",
                                          "--out", str(out), "--write", *args])
        try:
            m.main()
            got = 0
        except SystemExit as e:
            got = e.code
        said = capsys.readouterr()
        assert got == code, said.err
        return (json.loads(said.out) if code == 0 else {}), said.err

    def refused(out: Path, *args: str) -> str:
        """A resumed run that would leave out stored games: refused before it stores any."""
        before = out.read_bytes()
        _, said = run(out, *args, code=2)
        assert "would be left out" in said and "--replace" in said, said
        assert out.read_bytes() == before
        return said

    resumed, whole, old = tmp_path / "resumed.json", tmp_path / "whole.json", tmp_path / "old.json"
    _, said = run(resumed, "--games", "2", "--chunk", "2")
    assert "2 chunks to play (4 games); 0 kept" in said
    first = json.loads(resumed.read_text(encoding="utf-8"))["measured"][0]
    assert [s["games"] for s in first["states"]] == [2] * 2
    again, said = run(resumed, "--games", "5", "--chunk", "2", "--resume")
    assert "4 chunks to play (6 games); 2 kept" in said  # chunks of 2, 2 and 1 a state
    one_go, _ = run(whole, "--games", "5", "--chunk", "2")
    for a, b in zip(again["states"], one_go["states"], strict=True):
        assert a["games"] == 5 and [c["seed"] for c in a["chunks"]] == [b["seed"] + j * 1000
                                                                        for j in range(3)]
        assert a["chunks"] == b["chunks"] and a["seats"] == b["seats"]
    stored = json.loads(resumed.read_text(encoding="utf-8"))["measured"][0]
    assert stored["states"] == again["states"]  # each chunk written as it ended, the last too
    assert stored["chunks_played"] == 4
    before = resumed.read_bytes()
    _, said = run(resumed, "--games", "5", "--chunk", "2", "--resume")
    assert "0 chunks to play (0 games); 6 kept" in said
    assert resumed.read_bytes() == before  # nothing played: the entry as it was
    said = refused(resumed, "--games", "4", "--chunk", "2", "--resume")
    assert "2 of the 10 games stored" in said and "not of this run's --games" in said
    refused(resumed, "--games", "5", "--chunk", "1", "--resume")  # --chunk forgotten: none kept
    fewer, said = run(resumed, "--games", "4", "--chunk", "2", "--resume", "--replace")
    assert "0 chunks to play (0 games); 4 kept" in said  # the chunks beyond --games left out
    assert [s["games"] for s in fewer["states"]] == [4] * 2
    assert json.loads(resumed.read_text(encoding="utf-8"))["measured"][0] == fewer
    # a method that plays otherwise (its probe's games differ) keeps nothing stored
    changed = json.loads(resumed.read_text(encoding="utf-8"))
    changed["measured"][0]["probe"]["turns"] += 1
    resumed.write_text(json.dumps(changed), encoding="utf-8")
    assert "the method plays otherwise now" in refused(resumed, "--games", "2", "--chunk", "2",
                                                       "--resume")
    afresh, said = run(resumed, "--games", "2", "--chunk", "2", "--resume", "--replace")
    assert "plays otherwise" in said and "2 chunks to play (4 games); 0 kept" in said
    assert afresh["probe"] == first["probe"]
    assert [s["chunks"] for s in afresh["states"]] == [s["chunks"] for s in first["states"]]
    # an entry of before the chunks (rates alone) is its one chunk; a changed chance is replayed
    legacy = json.loads(whole.read_text(encoding="utf-8"))
    for state in legacy["measured"][0]["states"]:
        del state["chunks"]
    legacy["measured"][0]["states"][1]["seats"][0]["shown"] += 0.01
    old.write_text(json.dumps(legacy), encoding="utf-8")
    assert "the chances shown changed since" in refused(old, "--games", "5", "--resume")
    kept, said = run(old, "--games", "5", "--resume", "--replace")
    assert "1 chunks to play (5 games); 1 kept" in said
    assert "the chances shown changed" in said
    replayed = kept["states"][1]  # played afresh, in one chunk of its own seed, shown anew
    assert [c["seed"] for c in replayed["chunks"]] == [replayed["seed"]]
    assert replayed["games"] == 5
    assert [r["shown"] for r in replayed["seats"]] == [r["shown"] for r in
                                                       one_go["states"][1]["seats"]]
    for k, (a, b) in enumerate(zip(kept["states"], one_go["states"], strict=True)):
        if k != 1:
            assert [r["rate"] for r in a["seats"]] == pytest.approx(
                [r["rate"] for r in b["seats"]], abs=1e-15)
            assert a["chunks"][0]["seed"] == a["seed"] and a["chunks"][0]["games"] == 5


def _measure_script():  # scripts/measure_reduced.py as a module
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "scripts" / "measure_reduced.py"
    spec = importlib.util.spec_from_file_location("measure_reduced", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_entry_of_before_the_chunks_gives_back_each_seats_wins_to_the_share() -> None:
    """A games entry written before the chunks holds rates alone: a resumed run takes it as one
    chunk whose wins are the rates times the games, to the nearest 1/60 (wins are sums of
    shares 1, 1/2 ... 1/5 of shared ties), so that exactly the games played are counted."""
    from fractions import Fraction

    m = _measure_script()
    games = 7
    # two games won by seat 1, a tie of seats 1-3, a tie of 2 and 3, a tie of all four, two
    # games won by seat 4
    third, half, quarter = Fraction(1, 3), Fraction(1, 2), Fraction(1, 4)
    wins = [2 + third + quarter, third + half + quarter, third + half + quarter, 2 + quarter]
    assert sum(wins) == games
    state = {"start": [0, 0, 0, 0], "seed": 6000, "games": games, "turns": 61 / games,
             "seats": [{"shown": 0.25, "rate": float(w) / games} for w in wins]}
    (chunk,) = m._chunks_kept({"states": [state]}, (0, 0, 0, 0), 6000, [0.25] * 4)
    assert [Fraction(w).limit_denominator(60) for w in chunk["wins"]] == wins
    assert chunk["wins"] == [float(w) for w in wins]
    assert chunk == {"seed": 6000, "games": games, "wins": chunk["wins"], "turns": 61}
    assert m._chunks_kept({"states": [state]}, (0, 0, 0, 0), 6001, [0.25] * 4) == []
    assert m._chunks_kept({"states": [state]}, (0, 0, 0, 0), 6000, [0.3, 0.2, .25, .25]) == []


@pytest.mark.parametrize("resume", [False, True])
def test_each_chunk_is_stored_as_it_ends_only_for_a_run_that_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resume: bool) -> None:
    """A run without --resume writes its entry once, at its end: stopped early, it must not
    replace the stored entry (a whole run of hours) with a part of its own."""
    import sys

    m = _measure_script()
    out = tmp_path / "n.json"
    seen = {}

    def games(args, old, save=None):
        seen["save"] = save
        return {"kind": "games", "players": 4, "target": 6000, "ties": "shared", "states": []}

    monkeypatch.setattr(m, "games", games)
    monkeypatch.setattr(sys, "argv", ["measure_reduced.py", "games", "--players", "4", "--write",
                                      "--out", str(out), *(["--resume"] if resume else [])])
    m.main()
    assert (seen["save"] is not None) == resume
    assert m._read(out)["measured"][0]["states"] == []


def test_a_stored_measure_is_written_whole_or_not_at_all(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is written beside the old one under a name of its own and renamed over it, with
    the old file's permissions (a new one's from the umask): a write that fails leaves the old
    file as it was and no stray file."""
    import json
    import os

    m = _measure_script()
    out = tmp_path / "n.json"
    first = {"kind": "games", "players": 4, "target": 6000, "ties": "shared", "n": 1}
    mask = os.umask(0o022)
    try:
        m._write(out, first)
    finally:
        os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o644  # a new file's, not the temporary file's 600
    out.chmod(0o640)
    m._write(out, first)
    assert out.stat().st_mode & 0o777 == 0o640  # the old file's kept
    before = out.read_bytes()

    def fails(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fails)
    with pytest.raises(OSError):
        m._write(out, {**first, "n": 2})
    assert out.read_bytes() == before and json.loads(before)["measured"] == [first]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.json"]


def test_answers_carry_a_games_entry_without_its_bookkeeping() -> None:
    """The chunks and the probe are the measure's bookkeeping for a run that resumes; an
    answer's measured entry carries the figures."""
    from solver.tables.game import _without_chunks

    entry = {"kind": "games", "probe": {"games": 2}, "inside": 3,
             "states": [{"games": 5, "chunks": [{"seed": 1}], "seats": []}]}
    assert _without_chunks(entry) == {"kind": "games", "inside": 3,
                                      "states": [{"games": 5, "seats": []}]}


def test_ahead_sets_each_state_against_its_games_and_stores_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`measure_reduced.py ahead` (a diagnosis): the chances shown and two ahead at the games'
    states, each against the stored games' rates and intervals; --write is refused in one line,
    and so is an --out that cannot be read."""
    import json
    import sys

    m = _measure_script()
    out = tmp_path / "games.json"
    start4 = [(0, 0, 0, 0), *m.MIDGAME[4]]
    states = [{"start": list(s), "games": 100, "seed": 1, "turns": 20.0,
               "seats": [{"shown": 0.25, "rate": 0.25, "ci95": [0.2, 0.3], "inside": True}] * 4}
              for s in start4[1:]]  # (the start's games not stored: its row says None)
    out.write_text(json.dumps({"measured": [{"kind": "games", "players": 4, "target": 6000,
                                             "ties": "shared", "states": states}]}),
                   encoding="utf-8")

    def once(players: int, start: tuple[int, ...]) -> dict:
        assert players == 4
        return {"start": list(start), "shown": [0.25, 0.25, 0.25, 0.25],
                "two_ahead": [0.31, 0.23, 0.23, 0.23], "states_valued_one_ahead": 3,
                "seconds": 1.0}

    monkeypatch.setattr(m, "_ahead_once", once)

    def run(*args: str) -> int:
        monkeypatch.setattr(sys, "argv", ["measure_reduced.py", "ahead", "--players", "4",
                                          "--out", str(out), *args])
        try:
            m.main()
        except SystemExit as e:
            return int(e.code or 0)
        return 0

    assert run("--jobs", "1") == 0
    got = json.loads(capsys.readouterr().out)
    assert got["kind"] == "ahead" and [r["start"] for r in got["states"]] == \
        [list(s) for s in start4]
    first, *rest = got["states"]
    assert first["games"] is None and first["shown_inside"] is None
    for row in rest:
        assert row["games"] == 100 and row["rate"] == [0.25] * 4
        assert row["shown_inside"] == 4 and row["two_ahead_inside"] == 3  # 0.31 is outside
        assert row["shown_widest_gap"] == 0.0
        assert abs(row["two_ahead_widest_gap"] - 0.06) < 1e-12
    before = out.read_bytes()
    assert run("--jobs", "1", "--write") == 2
    assert "nothing of it is stored" in capsys.readouterr().err
    assert out.read_bytes() == before
    out.write_text("[1, 2]", encoding="utf-8")
    assert run("--jobs", "1") == 2
    assert "cannot read" in capsys.readouterr().err


def test_ahead_down_measures_both_depths_against_the_exact_table(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`ahead --down`: three players from the pairs alone at a sample of normal play, the
    chances zero ahead (the estimate itself), one ahead and two ahead against the committed
    three-player table; one ahead is what `measure_reduced.py down` measures at the same
    states."""
    import json
    import sys

    import numpy as np

    from solver.game.estimate import Estimate
    from solver.game.seats import NORMAL
    from solver.rules import Rules
    from solver.strategy.measure import endings_of
    from solver.tables.game import read_game
    from solver.tables.paths import committed_dir

    m = _measure_script()
    monkeypatch.setattr(sys, "argv", ["measure_reduced.py", "ahead", "--down", "--sample", "5",
                                      "--jobs", "1"])
    m.main()
    got = json.loads(capsys.readouterr().out)
    assert got["down"] and got["sample"] == 5 and got["valued_one_ahead"] > 5
    rules = Rules()
    two, three = read_game(committed_dir(), rules, 2), read_game(committed_dir(), rules, 3)
    phase = three.seats.phases[NORMAL]
    index = np.sort(np.random.default_rng(2026).choice(phase.size, 5, replace=False))
    _, one = endings_of(three, None, two, NORMAL, index, chances=True)
    exact = np.asarray(three.stacked()[three.seats.offset(NORMAL) + index])
    assert got["one_ahead"]["worst"] == float(np.abs(one - exact).max())
    # zero ahead: the estimate itself at those states (what `advise` values a stop by)
    zero = Estimate(None, two, 3).values(NORMAL, phase.decode(index))
    assert got["zero_ahead"]["worst"] == float(np.abs(zero - exact).max())
    assert got["zero_ahead"]["worst"] != got["one_ahead"]["worst"]
    for depth in ("zero_ahead", "one_ahead", "two_ahead"):
        off = got[depth]
        assert off["states"] == 5 and 0 < off["mean"] <= off["worst"] < 0.05
        assert len(off["worst_state"]) == 4 and len(off["by_seat"]) == 3
    # two ahead moves the chances, by little: a seat's values in another seat's place would
    # be tens of points off
    assert got["two_ahead"]["worst"] != got["one_ahead"]["worst"]
    assert abs(got["two_ahead"]["mean"] - got["one_ahead"]["mean"]) < 0.005
    for args, words in ((["ahead"], "--players 4 or 5"),
                        (["ahead", "--down", "--variant", "target=500"], "no --players, --variant"),
                        (["ahead", "--down", "--players", "5"], "no --players, --variant"),
                        (["ahead", "--players", "5", "--sample", "9"], "for --down or --variant"),
                        (["ahead", "--players", "5", "--variant", "target=-3"], "target"),
                        (["ahead", "--players", "5", "--variant", "target=700", "--tables",
                          str(Path(__file__).parent)], "game-5")):
        monkeypatch.setattr(sys, "argv", ["measure_reduced.py", *args])
        with pytest.raises(SystemExit) as e:
            m.main()
        assert e.value.code == 2 and words in capsys.readouterr().err


@pytest.mark.slow
def test_a_measure_killed_ends_its_workers_and_leaves_nothing_in_dev_shm(
        tmp_path: Path) -> None:
    """Found stopping `make near-optimal`: `measure_reduced.py` killed (SIGTERM) died at once,
    and its two joblib workers went on computing, orphaned (97 % of a core each), their
    folders left in /dev/shm. It ends as Ctrl-C does now: exit code 143, the workers ended,
    their folders removed."""
    import os
    import shutil
    import signal
    import subprocess
    import sys
    import time

    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no /dev/shm: joblib's folders are elsewhere")
    script = Path(__file__).resolve().parents[1] / "scripts" / "measure_reduced.py"
    said = tmp_path / "stderr"
    with said.open("w") as err:  # (a pipe would stay open in orphaned workers)
        process = subprocess.Popen([sys.executable, str(script), "down", "--sample", "2000",
                                    "--jobs", "2"], stdout=subprocess.DEVNULL, stderr=err,
                                   start_new_session=True)

    def left() -> list[str]:  # the script's processes: itself, its workers and helpers
        return subprocess.run(["ps", "-o", "pid=,args=", "-s", str(process.pid)],
                              capture_output=True, text=True, check=False).stdout.splitlines()

    def folders() -> list[str]:
        return [p.name for p in shm.iterdir()
                if f"_{process.pid}_" in p.name or f"-{process.pid}-" in p.name]

    limit = time.monotonic() + 240
    while (len(left()) < 3 or not folders()) and time.monotonic() < limit:  # workers at work
        assert process.poll() is None, said.read_text()[-2000:]
        time.sleep(0.2)
    assert len(left()) >= 3 and folders(), left()
    os.kill(process.pid, signal.SIGTERM)
    try:
        assert process.wait(timeout=120) == 143, said.read_text()[-2000:]
        limit = time.monotonic() + 20
        while (left() or folders()) and time.monotonic() < limit:
            time.sleep(0.2)
        assert left() == [] and folders() == [], (left(), folders())
    finally:  # (on a failure: nothing of it left running on the machine, or in /dev/shm)
        subprocess.run(["pkill", "-KILL", "-s", str(process.pid)], check=False)
        for name in folders():
            shutil.rmtree(shm / name, ignore_errors=True)
            (shm / name).unlink(missing_ok=True)
