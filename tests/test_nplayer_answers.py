"""What a player gets for three players: `sabords solve-game --players 3`, then
`winprob`, `advise` and `game` with `--opp` once per opponent, the web API's answers, the
refusals, and whole games with real dice whose win frequencies agree with the table.

One table of the three-player game at target 300 (8 dice: seconds to solve) for the module,
solved by the command a user runs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from starlette.testclient import TestClient

from solver.engine.codes import TIE_TOL
from solver.game import deck
from solver.rules import Rules
from solver.rules.standing import Standing
from solver.strategy.games import play_n_games
from solver.tables.game import read_game
from solver.web import create_app
from solver.web.settings import Settings

from .conftest import assert_one_line_error, run_sabords

TARGET = ["--variant", "target=300"]
RULES = Rules(target=300)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("three")
    done = run_sabords("solve-game", "--players", "3", *TARGET, "--out", str(out),
                       "--workers", "0")
    assert done.exit_code == 0, done.stderr
    assert "proved bound" in done.stdout
    return out


def _json(*args: str) -> dict[str, object]:
    done = run_sabords(*args, "--json")
    assert done.exit_code == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_winprob_gives_every_seat_s_chance_from_the_table(tables: Path) -> None:
    table = read_game(tables, RULES, 3)
    answer = _json("winprob", "--me", "0", "--opp", "0", "--opp", "0", *TARGET,
                   "--game-tables", str(tables))
    players = answer["players"]
    assert [p["total"] for p in players] == [0, 0, 0]  # type: ignore[index]
    chances = [p["win"] for p in players]  # type: ignore[index]
    assert chances == table.values["normal"][0].tolist()
    assert answer["win"] == chances[0]
    assert abs(sum(chances) - 1.0) <= 1e-15
    cards = answer["cards"]
    assert abs(sum(w * cards[c] for c, w in deck().items())  # type: ignore[index]
               - chances[0]) <= 1e-10


def test_a_bust_and_skull_island_give_every_seat_s_chance_after_them(tables: Path) -> None:
    """With no option to take, `advise --json` named only the player's chance (a new user's
    trial): the answer's `players` are now every seat's after the outcome, which are the
    table's at the state it leads to (Skull Island: over its deductions), in seat order."""
    def after(me: int, others: list[int], *rules: str) -> list[float]:  # the next to move
        got = _json("winprob", "--me", str(others[0]), *sum((["--opp", str(t)] for t in
                                                              [*others[1:], me]), []), *rules)
        chances = [p["win"] for p in got["players"]]  # type: ignore[index]
        return [chances[-1], *chances[:-1]]  # (in the asking player's seat order)

    small = (*TARGET, "--game-tables", str(tables))
    bust = _json("advise", "none", "kkkmmpsc", "--me", "100", "--opp", "0", "--opp", "200",
                 *small)
    assert bust["kind"] == "bust" and bust["options"] == []
    assert bust["players"] == pytest.approx(after(100, [0, 200], *small), abs=1e-12)
    # the committed table of three at 6000: every deduction (400 to 800) a state of its own
    island = _json("advise", "none", "kkkkmmpc", "--first", "--me", "100", "--opp", "3000",
                   "--opp", "5000")
    assert island["kind"] == "island" and island["players"][0] == island["value"]  # type: ignore[index]
    outcomes = island["island"]["distribution"]  # type: ignore[index]
    assert len({o["deduction"] for o in outcomes}) == 5
    expected = sum(o["probability"] * np.array(after(100, [3000 - o["deduction"],
                                                           5000 - o["deduction"]]))
                   for o in outcomes)
    assert island["players"] == pytest.approx(expected.tolist(), abs=1e-9)
    alive = _json("advise", "none", "kkmmmpsc", "--me", "100", "--opp", "0", "--opp", "200",
                  *small)
    assert alive["players"] == alive["options"][0]["players"]  # type: ignore[index]
    points = _json("advise", "none", "kkmmmpsc")
    assert "players" not in points
    # the text too: a bust or Skull Island printed the player's chance alone, where the
    # chances of everyone change most (a trial of a table of four)
    for args, said in [(("none", "kkkmmpsc", "--me", "100", "--opp", "0", "--opp", "200",
                         *small), bust),
                       (("none", "kkkkmmpc", "--first", "--me", "100", "--opp", "3000",
                         "--opp", "5000"), island)]:
        text = run_sabords("advise", *args).stdout
        line = next(x for x in text.splitlines() if x.startswith("players "))
        seats: list[float] = said["players"]  # type: ignore[assignment]
        chances = ", ".join(f"{who} {100 * p:.2f} %" for who, p in
                            zip(["you", "player 2", "player 3"], seats, strict=True))
        assert line == f"players   {chances} (after this turn)", line


def test_advise_ranks_by_my_chance_and_gives_every_player_s_after_each_move(
        tables: Path) -> None:
    answer = _json("advise", "none", "kkmmmpsc", "--me", "100", "--opp", "0", "--opp", "200",
                   *TARGET, "--game-tables", str(tables))
    options = answer["options"]
    values = [o["value"] for o in options]  # type: ignore[index]
    assert values == sorted(values, reverse=True)
    for option in options:  # type: ignore[union-attr]
        assert option["players"][0] == option["value"]
        assert abs(sum(option["players"]) - 1.0) <= 1e-9
    winprob = _json("winprob", "--me", "100", "--opp", "0", "--opp", "200", *TARGET,
                    "--game-tables", str(tables))
    assert 0.0 < options[0]["value"] <= 1.0  # type: ignore[index]
    assert winprob["players"][0]["total"] == 100  # type: ignore[index]


def test_a_final_round_and_its_refusals(tables: Path) -> None:
    answer = _json("winprob", "--me", "100", "--opp", "300", "--opp", "200", "--final",
                   *TARGET, "--game-tables", str(tables))
    assert answer["final"] is True
    assert answer["trigger"] == 2  # read from the totals, and said (it was not)
    said = run_sabords("winprob", "--me", "100", "--opp", "300", "--opp", "200", "--final",
                       *TARGET, "--game-tables", str(tables)).stdout.splitlines()[0]
    assert said.endswith("(your final turn, player 2 reached the target first)"), said
    # Nobody at the target: the first of the others triggered, and the last seat's Skull
    # Island pushed them back (the only reading with three players): the last final turn.
    pushed = _json("winprob", "--me", "100", "--opp", "200", "--opp", "200", "--final",
                   *TARGET, "--game-tables", str(tables))
    table = read_game(tables, RULES, 3)
    final1 = table.seats.phases["final1"]
    index = int(final1.encode(np.array([[1, 2, 2]]))[0])
    assert [p["win"] for p in pushed["players"]] == table.values["final1"][index].tolist()
    done = run_sabords("winprob", "--me", "100", "--opp", "300", "--opp", "200", *TARGET,
                       "--game-tables", str(tables))
    assert_one_line_error(done, "final turn")
    # four players without their table nor the three-player one: the table of three is
    # what is missing (their near-optimal play is read from it)
    done = run_sabords("winprob", "--me", "0", "--opp", "0", "--opp", "0", "--opp", "0",
                       *TARGET, "--game-tables", str(tables / "none"))
    assert_one_line_error(done, "4 players under target=300 are played on the three-player "
                          "table of these rules", "game-3.msgpack", "solve-game --players 3")


class _Table:
    """What :func:`solver.game.query.state_of` reads of a table: the rules and the phases of
    a game of `players` at the default target, 6000 (no values: none is read)."""

    def __init__(self, players: int) -> None:
        from solver.game.model import point_range
        from solver.game.seats import Seats

        self.rules = Rules()
        self.players = players
        r = point_range(self.rules)
        self.seats = Seats(players, 60, r.k_min, r.k_max, r.n_ded, "shared")


def test_a_final_round_whose_trigger_the_totals_do_not_say_names_the_option() -> None:
    """The refusal said the totals do not say who reached the target first, not how to say
    it (a blind player's trial: `--trigger 4` worked, but nothing said so)."""
    args = ("advise", "animals", "kkmmppsc", "--me", "5600", "--opp", "4800", "--opp", "5900",
            "--opp", "9200", "--final")
    assert_one_line_error(run_sabords(*args), "(player 2 or 4): say who with --trigger N "
                          "(--trigger 4 if nobody was pushed back)")
    assert run_sabords(*args, "--trigger", "4").exit_code == 0
    # the help said --trigger was needed only after a push-back: at a table of four, a plain
    # final turn is refused without it (a trial of a table of four)
    said = " ".join(run_sabords("advise", "--help").stdout.split())
    assert "with four or five players, a player below it may have reached it first" in said


def test_a_final_round_s_trigger_pushed_back_by_skull_island() -> None:
    from solver.game.model import GameError
    from solver.game.query import state_of

    three = _Table(3)

    def final(others: tuple[int, ...], trigger: int | None = None) -> Standing:
        return Standing.of(Rules(), 2500, others, final=True, trigger=trigger)

    # the state of the issue: 5600 is the trigger pushed back (4400 at least: two's turn
    # deducts at most 1600), 2000 played after it; this is the last final turn
    assert state_of(three, final((5600, 2000)))[0] == "final1"
    assert state_of(three, final((6200, 2000)))[0] == "final1"
    assert state_of(three, final((2000, 6200)))[0] == "final2"
    for others, kind in [((2000, 5600), "not_final"),  # the seat to play next was not pushed
                         ((4300, 2000), "not_final"),  # more than one turn's deduction
                         ((16600, 2000), "final_round")]:  # more than a turn can reach
        with pytest.raises(GameError) as refused:
            state_of(three, final(others))
        assert refused.value.kind == kind, (others, refused.value)
    # four players: seat 1 or seat 2 may be the trigger pushed back: the totals cannot say,
    # the standing says it
    with pytest.raises(GameError) as which:
        state_of(_Table(4), final((5500, 5500, 3000)))
    assert which.value.kind == "which_trigger"
    assert which.value.values["seats"] == [2, 3]  # players numbered from you, player 1
    assert state_of(_Table(4), final((5500, 5500, 3000), trigger=1))[0] == "final1"
    assert state_of(_Table(4), final((5500, 5500, 3000), trigger=2))[0] == "final2"
    # a player after the trigger at the target scored on its final turn: no Skull Island of
    # its, so the trigger pushed back by one island at most (a new user's trial found it
    # accepted at 3000)
    assert state_of(_Table(4), final((4400, 6200, 2000), trigger=1))[0] == "final1"
    for others in ((3000, 6200, 2000), (4300, 6200, 2000)):
        with pytest.raises(GameError) as refused:
            state_of(_Table(4), final(others, trigger=1))
        assert refused.value.kind == "final_round"
        assert (refused.value.values["low"], refused.value.values["islands"]) == (4400, 1)
    assert state_of(_Table(4), final((2800, 5900, 2000), trigger=1))[0] == "final1"
    # someone at the target, and a player before it whom an island after theirs may have
    # pushed back: two readings, refused as when nobody is there (the first at the target was
    # taken, silently); where no island could have, the one at the target, said in answers
    with pytest.raises(GameError) as which:
        state_of(_Table(4), final((5800, 6200, 3000)))
    assert which.value.kind == "which_trigger" and which.value.values["seats"] == [2, 3]
    from solver.game.query import resolved

    assert state_of(_Table(4), final((3000, 6200, 2000)))[0] == "final2"
    assert resolved(_Table(4), final((3000, 6200, 2000))).trigger == 2
    assert resolved(three, final((5600, 2000))).trigger == 1  # (pushed back: the table's)


def test_two_and_three_players_refuse_a_final_total_no_game_reaches() -> None:
    # one rule for both (the most a total reaches: 5900 then a turn's most, 10600)
    for opp in (["--opp", "16600"], ["--opp", "16600", "--opp", "2000"]):
        done = run_sabords("winprob", "--me", "2500", *opp, "--final")
        assert_one_line_error(done, "at most 16500")
    assert run_sabords("winprob", "--me", "2500", "--opp", "16500", "--final").exit_code == 0


def test_every_win_answer_says_its_table_is_exact_and_how_it_was_solved(tables: Path) -> None:
    """`"exact": true` and the method, for two players and three (the one solver: policy
    iteration): a near-optimal table would say false."""
    three = ["--opp", "0", "--opp", "100", *TARGET, "--game-tables", str(tables)]
    for opp, method in ((["--opp", "0", *TARGET], "policy iteration on the turns, proved bounds"),
                        (three, "policy iteration on the turns, proved bounds")):
        win = _json("winprob", "--me", "0", *opp)
        assert (win["exact"], win["method"]) == (True, method)
        advice = _json("advise", "none", "kkmmppsc", "--me", "0", *opp)
        assert advice["game"] == {"exact": True, "method": method}


from solver.game.reduced import METHOD as NEAR  # noqa: E402


@pytest.mark.parametrize("opponents", [3, 4])
def test_four_and_five_players_get_near_optimal_answers_that_say_so(tables: Path,
                                                                     opponents: int) -> None:
    """No table of four or five: their win answers are near-optimal play on the tables of two
    and three, and every one says so (`"exact": false`, the method, its measured error);
    every seat's chance is estimated, in seat order, summing to 1, after every move too."""
    opp = [*["--opp", "0"] * opponents, *TARGET, "--game-tables", str(tables)]
    win = _json("winprob", "--me", "0", *opp)
    assert (win["exact"], win["method"]) == (False, NEAR) and "loss" in win
    chances = [p["win"] for p in win["players"]]  # type: ignore[index]
    assert len(chances) == opponents + 1 and all(0.0 < p < 1.0 for p in chances)
    assert abs(sum(chances) - 1.0) <= 1e-9 and chances[0] == win["win"]
    text = run_sabords("winprob", "--me", "0", *opp)
    assert text.exit_code == 0, text.stderr
    assert "not estimated" not in text.stdout and "near-optimal" in text.stdout
    advice = _json("advise", "none", "kkmmppsc", "--me", "100", *opp)
    assert advice["game"]["exact"] is False and advice["game"]["method"] == NEAR  # type: ignore[index]
    values = [o["value"] for o in advice["options"]]  # type: ignore[index]
    # best first; values equal but for their last bits are ties, in the policy's fixed order
    # (solver/advice/ranking.py)
    assert all(a >= b - TIE_TOL for a, b in zip(values, values[1:], strict=False))
    for option in advice["options"]:  # type: ignore[union-attr]
        assert len(option["players"]) == opponents + 1
        assert abs(sum(option["players"]) - 1.0) <= 1e-9
    turn = run_sabords("turn", "none", "--me", "100", *opp, "--json", input="kkmmppsc\n")
    start = json.loads(turn.stdout.splitlines()[0])
    assert start["event"] == "start" and start["game"]["exact"] is False
    # (a few games: their kind is checked here, not their rates, and five players' final
    # rounds are raced afresh at every state the games meet)
    games = _json("game", "--players", str(opponents + 1), "--policies",
                  ",".join(["win", "points", "need", "points", "need"][:opponents + 1]),
                  "--games", "20", "--seed", "2", *TARGET, "--game-tables", str(tables))
    assert games["game"]["exact"] is False  # type: ignore[index]
    rates = {r["policy"]: r["win_rate"] for r in games["overall"]}  # type: ignore[index]
    assert set(rates) == {"win", "points", "need"}


def test_an_exact_table_of_four_is_used_where_it_exists(tmp_path: Path) -> None:
    """With the four-player table beside the three-player one, four players get exact
    answers: the table's own values, every seat (target 200: seconds)."""
    small = ["--variant", "target=200"]
    for players in ("3", "4"):
        done = run_sabords("solve-game", "--players", players, *small, "--out", str(tmp_path),
                           "--workers", "0")
        assert done.exit_code == 0, done.stderr
    win = _json("winprob", "--me", "0", "--opp", "0", "--opp", "0", "--opp", "0", *small,
                "--game-tables", str(tmp_path))
    assert (win["exact"], "loss" in win) == (True, False)
    table = read_game(tmp_path, Rules(target=200), 4)
    assert [p["win"] for p in win["players"]] == table.values["normal"][0].tolist()  # type: ignore[index]


@pytest.mark.parametrize("command", [["winprob"], ["advise", "none", "kkmmppsc"],
                                     ["turn", "none"]])
def test_six_players_or_more_are_refused_naming_2_to_5(command: list[str]) -> None:
    """The game is for 2 to 5 players: six are refused before any table is looked for, and
    the refusal suggests no command (`solve-game --players 6` refuses them too). Before, it
    said to write a 6-player table with `sabords solve-game --players 6`."""
    for opponents in (5, 6):
        done = run_sabords(*command, "--me", "0", *["--opp", "0"] * opponents, input="")
        line = assert_one_line_error(done, f"the game is for 2 to 5 players, not "
                                           f"{1 + opponents}")
        assert "solve-game" not in line and "sabords " not in line


def test_the_web_refuses_six_players_in_the_player_s_language() -> None:
    with TestClient(create_app()) as client:
        six = [("me", "0"), *[("opp", "0")] * 5]
        got = client.get("/api/winprob", params=six, headers={"accept-language": "fr"})
        assert got.status_code == 422
        assert got.json()["error"] == "La partie se joue de 2 à 5 joueurs, pas 6"
        assert got.json()["kind"] == "player_count"
        got = client.get("/api/advise", params=[("card", "none"), ("dice", "kkmmppsc"), *six])
        assert got.json()["error"] == "the game is for 2 to 5 players, not 6"


def test_the_web_answers_for_three_players(tables: Path) -> None:
    with TestClient(create_app(Settings(game_tables_dir=tables))) as client:
        got = client.get("/api/winprob", params=[("me", "0"), ("opp", "0"), ("opp", "0"),
                                                 ("variant", "target=300")])
        assert got.status_code == 200, got.text
        assert got.json()["players"] == _json(
            "winprob", "--me", "0", "--opp", "0", "--opp", "0", *TARGET, "--game-tables",
            str(tables))["players"]
        advice = client.get("/api/advise", params=[
            ("card", "none"), ("dice", "kkmmmpsc"), ("me", "100"), ("opp", "0"),
            ("opp", "200"), ("variant", "target=300")]).json()
        assert len(advice["options"][0]["players"]) == 3
        four = client.get("/api/winprob", params=[("me", "0"), *[("opp", "0")] * 3,
                                                  ("variant", "target=300")]).json()
        assert four["exact"] is False and four["method"] == NEAR
        advice = client.get("/api/advise", params=[
            ("card", "none"), ("dice", "kkmmmpsc"), ("me", "100"), *[("opp", "0")] * 4,
            ("variant", "target=300")]).json()
        assert advice["game"]["exact"] is False and len(advice["options"][0]["players"]) == 5


def test_whole_games_with_real_dice_win_as_often_as_the_table_says(tables: Path) -> None:
    table = read_game(tables, RULES, 3)
    games = 6000
    score, _ = play_n_games(["win", "win", "win"], RULES, games=games, seed=7, win=table.win_play())
    expected = table.values["normal"][0]
    observed = score.sum(axis=0)  # seat 0 moves first in every game
    # a chi-square test of the three seats' wins (ties split: counted as shares) at 1 %
    chi2 = float(((observed - games * expected) ** 2 / (games * expected)).sum())
    assert chi2 < 9.21, (observed / games, expected)  # chi2(2 df) 99th percentile
    for seat in range(3):  # and each seat inside its 99.9 % binomial band
        sd = math.sqrt(expected[seat] * (1 - expected[seat]) / games)
        assert abs(observed[seat] / games - expected[seat]) < 3.29 * sd


@pytest.fixture(scope="module")
def win_turns(tables: Path) -> dict[str, np.ndarray]:
    """Every state's win turn's endings from the table (the profiles' win players)."""
    from solver.game import game_model
    from solver.game.profiles import win_endings

    table = read_game(tables, RULES, 3)
    return win_endings(table, game_model(RULES), table.seats)


def test_a_profile_of_win_players_has_the_table_s_values(
        tables: Path, win_turns: dict[str, np.ndarray]) -> None:
    """The report's exact edge of playing to win (solver.game.profiles): every seat playing
    the table's win turns is the table's own game, so its values are the table's."""
    from solver.game.profiles import profile_values

    table = read_game(tables, RULES, 3)
    got = profile_values(table, ["win"] * 3, win=win_turns)
    assert got.residual <= 1e-15
    assert np.abs(got.normal - table.values["normal"]).max() <= 1e-10


def test_profiles_of_win_and_points_players_win_as_often_in_whole_games(
        tables: Path, win_turns: dict[str, np.ndarray]) -> None:
    """Two routes to the values of a profile of play: its linear system (profile_values, two
    profiles evaluated at once in threads, as the report does) and whole games with real dice
    between a points player and two win players (a chi-square test); and the threads give the
    bits of one profile evaluated alone."""
    from concurrent.futures import ThreadPoolExecutor

    from solver.game import game_model
    from solver.game.profiles import points_endings, profile_values

    table = read_game(tables, RULES, 3)
    ends, points = win_turns, points_endings(game_model(RULES))
    names = ["points", "win", "win"]
    rotations = [[names[(i - g) % 3] for i in range(3)] for g in range(3)]  # play_n_games'
    with ThreadPoolExecutor(max_workers=2) as pool:
        values = list(pool.map(lambda p: profile_values(table, p, win=ends, points=points),
                               rotations))
    alone = profile_values(table, rotations[1], win=ends)
    assert np.array_equal(alone.normal, values[1].normal)
    start = [v.normal[0] for v in values]  # every seat's chance from 0, 0, 0 per rotation
    assert all(abs(float(v.sum()) - 1.0) <= 1e-12 for v in start)
    games = 6000
    score, _ = play_n_games(names, RULES, games=games, seed=11, win=table.win_play())
    expected = sum(start[g % 3] for g in range(games))
    observed = score.sum(axis=0)
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert chi2 < 9.21, (observed / games, expected / games)  # chi2(2 df) 99th percentile
    # and the points player's share, over its three seats, in its 99.9 % binomial band
    share = sum(float(score[g, g % 3]) for g in range(games)) / games
    p = sum(float(start[r][r]) for r in range(3)) / 3
    assert abs(share - p) < 3.29 * math.sqrt(p * (1 - p) / games), (share, p)


def test_the_edge_of_playing_to_win_is_every_lone_profile_s_values(
        tables: Path, win_turns: dict[str, np.ndarray], tmp_path: Path) -> None:
    """The report's edge of playing to win (solver.game.profiles.edge_of_play): each seat
    alone playing win, then alone playing points, every seat's chance from the start as the
    profile's own evaluation gives it; kept in profiles.json beside its table and read back
    bit for bit, refused once the table file is another."""
    import shutil

    from solver.game.profiles import edge_of_play, profile_values
    from solver.tables.profiles import (
        ProfilesMissing,
        StoredEdge,
        read_edge,
        table_digest,
        write_edge,
    )

    table = read_game(tables, RULES, 3)
    edge = edge_of_play(table, win_turns)
    assert edge.profiles == (("win", "points", "points"), ("points", "win", "points"),
                             ("points", "points", "win"), ("points", "win", "win"),
                             ("win", "points", "win"), ("win", "win", "points"))
    for profile, start in zip(edge.profiles, edge.start, strict=True):
        alone = profile_values(table, profile, win=win_turns)
        assert start == tuple(float(x) for x in alone.normal[0])
        assert abs(sum(start) - 1.0) <= 1e-12
    assert edge.residual <= 1e-15
    where = tmp_path / "tables"
    where.mkdir()
    shutil.copy(tables / "game-3.msgpack", where)
    with pytest.raises(ProfilesMissing, match="make profiles"):
        read_edge(RULES, 3, where)
    stored = StoredEdge(players=3, rules_hash=RULES.hash, target=RULES.target,
                        table=table_digest(3, where), profiles=edge.profiles,
                        start=edge.start, residual=edge.residual, seconds=1.0, peak_gb=None)
    write_edge(stored, where)
    back = read_edge(RULES, 3, where)
    assert back == stored
    assert back.lone("win") == [edge.start[i][i] for i in range(3)]
    assert back.lone("points") == [edge.start[3 + i][i] for i in range(3)]
    with pytest.raises(ProfilesMissing, match="make profiles"):
        read_edge(Rules(target=400), 3, where)
    (where / "game-3.msgpack").write_bytes(b"another table")
    with pytest.raises(ProfilesMissing, match="from another table"):
        read_edge(RULES, 3, where)


def test_game_plays_three_player_games_between_policies(tables: Path) -> None:
    answer = _json("game", "--players", "3", "--policies", "win,points,need", "--games", "300",
                   "--seed", "1", *TARGET, "--game-tables", str(tables))
    rates = {r["policy"]: r["win_rate"] for r in answer["overall"]}  # type: ignore[index]
    assert set(rates) == {"win", "points", "need"}
    assert abs(sum(rates.values()) - 1.0) <= 1e-12  # every game's win shared out
    assert all(0.0 <= r["ci95"][0] <= r["win_rate"] <= r["ci95"][1] <= 1.0  # type: ignore[index]
               for r in answer["overall"])  # type: ignore[union-attr]


def test_game_of_three_players_or_more_plays_win_against_points_by_default(tables: Path) -> None:
    """`sabords game --players 3` without --policies was refused: "--policies takes 3 policy
    names separated by commas (one a seat), not 'win,points'", a default nobody typed (a new
    user's trial). Its default is now win against points at every number of players."""
    answer = _json("game", "--players", "3", "--games", "30", "--seed", "1", *TARGET,
                   "--game-tables", str(tables))
    assert answer["policies"] == ["win", "points", "points"]  # type: ignore[index]
    assert _json("game", "--games", "2", "--seed", "1")["policies"] == [  # type: ignore[index]
        "win", "points"]



# -- reading the table a phase at a time -------------------------------------------------------


def test_an_answer_decodes_only_the_phases_its_turn_leads_to_and_the_same_bits(
        tables: Path) -> None:
    """A normal-play answer reads normal play and the final round's first turn (the phases
    of its endings), not the others; a phase read late has the bits of one read with all."""
    from solver.game.query import card_chances, state_of

    lazy = read_game(tables, RULES, 3)
    name, index = state_of(lazy, Standing.of(RULES, 100, [0, 200]))
    chances = card_chances(lazy, name, index)
    assert lazy.values.decoded == {"normal", "final2"}  # type: ignore[attr-defined]
    whole = read_game(tables, RULES, 3)
    Z = whole.stacked()
    assert whole.values.decoded == set(whole.seats.phases)  # type: ignore[attr-defined]
    assert card_chances(whole, name, index).keys() == chances.keys()
    for card, got in card_chances(whole, name, index).items():
        assert np.array_equal(got, chances[card]), card
    for phase in whole.seats.phases:
        assert np.array_equal(lazy.values[phase], whole.values[phase]), phase
        v = lazy.values[phase]
        assert np.array_equal(v[:, 2], 1.0 - (v[:, 0] + v[:, 1]))  # the solve's own sum
    assert np.array_equal(lazy.stacked(), Z)
    with pytest.raises(ValueError):
        Z[0, 0] = 0.5  # read-only: no answer can change the table under another


def test_a_phase_that_holds_no_probabilities_is_refused_when_an_answer_reads_it(
        tables: Path, tmp_path: Path) -> None:
    from dataclasses import replace

    from solver.tables.game import game_table_path, pack_game

    table = read_game(tables, RULES, 3)
    values = {name: np.array(v) for name, v in table.values.items()}
    values["final2"][5, 0] = 1.5  # not a probability, in a phase normal play leads to
    broken = replace(table, values=values)
    game_table_path(tmp_path, 3).write_bytes(pack_game(broken))
    read_game(tmp_path, RULES, 3)  # the file itself is whole: read, its phases not yet
    done = run_sabords("advise", "none", "kkmmmpsc", "--me", "100", "--opp", "0", "--opp",
                       "200", *TARGET, "--game-tables", str(tmp_path))
    assert_one_line_error(done, "final2", "outside [0, 1]")


def test_a_profile_s_links_are_the_same_for_any_block_of_states(
        tables: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's profiles build each copy's successor rows a block of states at a time
    (the whole final round at once ran a 24 GB machine out of memory): any block gives the
    rows the whole phase at once gives."""
    from solver.game import profiles

    seats = read_game(tables, RULES, 3).seats
    rows = seats.offset("terminal")
    for name, phase in seats.phases.items():
        whole = profiles.copy_links(seats, name, rows)
        pts, isl = seats.successors(name, np.arange(phase.size, dtype=np.int64))
        for c, (p, i) in enumerate(whole):  # the next seat's copy, or the terminal rows
            here = (c + 1) % 3 * rows
            assert np.array_equal(p, np.where(pts >= rows, pts + 2 * rows, pts + here).T)
            assert np.array_equal(i, np.where(isl >= rows, isl + 2 * rows, isl + here).T)
        monkeypatch.setattr(profiles, "LINK_BLOCK", 7)
        small = profiles.copy_links(seats, name, rows)
        monkeypatch.undo()
        assert all(np.array_equal(a, b) for x, y in zip(whole, small, strict=True)
                   for a, b in zip(x, y, strict=True))


def test_near_optimal_answers_say_what_was_measured_in_one_line() -> None:
    """The method line: the chances' worst and mean off exact play, the final round's apart
    (its Skull Islands are raced less well), where they were measured, and whole games; the
    figures of tables/near-optimal.json as near_optimal_loss reads them."""
    from solver.cli.render import bound, near_optimal_words
    from solver.tables.game import near_optimal_loss

    assert near_optimal_words(None) == "near-optimal, not exact (not measured)"
    # a bound rounded up: 1.45 points off is within 1.5, never 1.4
    assert [bound(x) for x in (0.0145, 0.014, 0.01401, 0.0)] == ["1.5", "1.4", "1.5", "0.0"]
    loss = near_optimal_loss(4, "shared")
    assert loss is not None, "tables/near-optimal.json has nothing of four players"
    words = near_optimal_words(loss)
    assert "\n" not in words
    assert f"within {bound(loss['chances']['worst'])} percentage points" in words
    assert f"in the final round within {bound(loss['final']['worst'])}" in words
    for e in loss["measured"]:
        assert (str(e["target"]) in words), e["kind"]
    assert f"{loss['games']['inside']} of {loss['games']['checked']} chances" in words
    # three targets listed as English lists them (it said "500 and 1000 and 2000")
    targets = sorted({e["target"] for e in loss["measured"] if e["kind"] == "exact"})
    assert len(targets) == 3, targets
    assert f"4 players at target {targets[0]}, {targets[1]} and {targets[2]})" in words


def test_near_optimal_answers_carry_the_games_but_not_the_chunks_they_were_played_in() -> None:
    """Five players' games are played in chunks (`measure_reduced.py games --chunk`), stored
    for a run that resumes; an answer carries each state's figures, not the chunks."""
    import json

    from solver.tables.game import NEAR_OPTIMAL_FILE, near_optimal_loss
    from solver.tables.paths import committed_dir

    stored = json.loads((committed_dir() / NEAR_OPTIMAL_FILE).read_text(encoding="utf-8"))
    (five,) = [e for e in stored["measured"] if e["kind"] == "games" and e["players"] == 5]
    assert all(len(s["chunks"]) * 1000 == s["games"] for s in five["states"])
    loss = near_optimal_loss(5, "shared")
    assert loss is not None
    (games,) = [e for e in loss["measured"] if e["kind"] == "games"]
    assert [s["games"] for s in games["states"]] == [s["games"] for s in five["states"]]
    assert not any("chunks" in s for s in games["states"])


def test_a_mean_error_below_a_hundredth_of_a_point_is_not_said_as_none() -> None:
    """Five players' final round is 0.004 points off on average: the method line said "0.00
    on average" (a new user's trial), which reads as no error at all."""
    from solver.cli.render import mean_points

    assert [mean_points(p) for p in (0.0024, 0.0003, 0.00004, 0.0000016, 0.0)] == [
        "0.24", "0.03", "0.004", "0.0002", "0.00"]
    line = run_sabords("winprob", "--me", "0", *["--opp", "0"] * 4).stdout
    assert "near-optimal" in line and " 0.00 on average" not in line


def test_a_stop_that_wins_the_game_is_said_certain_not_estimated() -> None:
    """In sudden death a stop at the target wins the game: four players' answer said "100.00 %
    chance to win the game (the method's estimate)" (a trial of a table of four); a move
    that does not end the game stays the method's estimate."""
    sudden = ("advise", "none", "kmmccccc", "--me", "5200", "--opp", "4900", "--opp", "5900",
              "--opp", "5100")
    value = [x for x in run_sabords(*sudden, "--sudden").stdout.splitlines()
             if x.startswith("value ")]
    assert value == ["value     100.00 % chance to win the game (certain)"]
    value = [x for x in run_sabords(*sudden).stdout.splitlines() if x.startswith("value ")]
    assert len(value) == 1 and value[0].endswith("% chance to win the game (the method's "
                                                 "estimate)"), value


def test_make_near_optimal_measures_what_is_stored() -> None:
    """`make near-optimal` writes tables/near-optimal.json, each step in place of the entry of
    its kind, players, target and ties: its steps measured a sample where an entry holds every
    state (four players at 2000 would have gone back to a sample of its chances, its moves'
    loss lost; a review found it). Each stored entry against exact play has a step of the same
    players and target, with a sample as stored, the method's final turns as stored, and as
    many final states a phase."""
    import json
    import re
    import shlex

    from solver.tables.game import NEAR_OPTIMAL_FILE
    from solver.tables.paths import committed_dir

    root = Path(__file__).resolve().parents[1]
    make = (root / "Makefile").read_text(encoding="utf-8")
    defaults = dict(re.findall(r"^(\w+) \?= (\S+)$", make, flags=re.M))
    steps = []
    for line in re.findall(r"^\t\$\(PY\) scripts/measure_reduced\.py exact (.*)$", make,
                           flags=re.M):
        words = shlex.split(re.sub(r"\$\((\w+)\)", lambda m: defaults[m.group(1)], line))
        flags = dict(zip(words, [*words[1:], ""], strict=True))  # each word: the next one
        steps.append((int(flags["--players"]), int(flags["--variant"].split("=")[1]),
                      int(flags["--sample"]) if "--sample" in flags else None,
                      "--final-play" in flags,
                      int(flags.get("--final-sample", flags.get("--sample", 20_000)))))
    stored = json.loads((committed_dir() / NEAR_OPTIMAL_FILE).read_text(encoding="utf-8"))
    exact = [e for e in stored["measured"] if e["kind"] == "exact"]
    assert len(exact) == len(steps) == 5, steps
    for e in exact:
        finals = e["chances"]["final"]["states"]
        step = [s for s in steps if s[:4] == (e["players"], e["target"], e["sample"],
                                              e["final_play"])]
        assert len(step) == 1, (e["players"], e["target"], e["sample"], e["final_play"], steps)
        phases = e["players"] - 1  # the final round's phases: at most the step's sample each
        assert finals <= phases * step[0][4], (e["players"], e["target"], finals)
        assert e["sample"] is not None or e["mean"] is not None  # every state: the moves too
