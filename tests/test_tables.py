"""Policy tables (solver/turntables.py), turn statistics (solver/stats.py), `sabords solve` and
`sabords ev`.

Routes that must agree: a msgpack round trip and the arrays it was made from (bit for bit), the
committed tables and a fresh solve (structure exactly, values to 1e-12), one joblib worker and
two (bit for bit), `sabords ev --json` and the engine. Tampered, stale and missing tables are
refused with one line naming the file and the fix.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import pytest

import solver.tables.paths as tablepaths
import solver.tables.turn as tables_module
from solver import __version__
from solver.engine import TurnSolution, solve_cards, solve_turn
from solver.engine.stats import STAT_NAMES, deck_average, turn_stats
from solver.errors import StaleTableError
from solver.rules import CARD_IDS, CARDS, DECK_SIZE, Rules, rules_with
from solver.tables.fileformat import FORMAT_VERSION
from solver.tables.paths import cache_dir, committed_dir
from solver.tables.turn import (
    TurnTable,
    build_table,
    build_tables,
    pack_table,
    read_table,
    table_path,
    turn_solution,
    turn_table,
    unpack_table,
    write_table,
)

from .conftest import CliResult, assert_one_line_error

Run = Callable[..., CliResult]
DEFAULT = Rules()
VALUE_TOL = 1e-12
"""Committed tables against a fresh solve: floats may differ by this (another machine)."""


@pytest.fixture(scope="module")
def fresh() -> dict[str, TurnTable]:
    """The 12 default tables solved now (about a second)."""
    return {t.card: t for t in build_tables(list(CARDS.values()), DEFAULT)}


def _arrays(sol: TurnSolution) -> dict[str, np.ndarray]:
    out = {"first_value": sol.first_value, "turn_value": sol.turn_value}
    for w, ws in sol.worlds.items():
        for name in ("value", "keep_value", "policy", "sorceress"):
            out[f"{w}.{name}"] = getattr(ws, name)
    return out


def _payload(data: bytes) -> dict[str, Any]:
    outer = msgpack.unpackb(data, raw=False)
    return msgpack.unpackb(outer["payload"], raw=False)  # type: ignore[no-any-return]


def _repack(data: bytes, edit: Callable[[dict[str, Any]], None]) -> bytes:
    """The file bytes with the outer map edited (the checksum is NOT recomputed)."""
    outer = msgpack.unpackb(data, raw=False)
    edit(outer)
    return msgpack.packb(outer, use_bin_type=True)  # type: ignore[no-any-return]


# -- round trip and determinism ---------------------------------------------------------------


@pytest.mark.parametrize("card", ["sorceress", "chest", "battle4"])
def test_round_trip_preserves_every_value_bit_for_bit(
    fresh: dict[str, TurnTable], tmp_path: Path, card: str
) -> None:
    table = fresh[card]
    path = write_table(table, tmp_path)
    loaded = read_table(path, CARDS[card], DEFAULT)
    before, after = _arrays(table.solution), _arrays(loaded.solution)
    assert before.keys() == after.keys()
    for name, a in before.items():
        b = after[name]
        assert (a.dtype, a.shape) == (b.dtype, b.shape), name
        assert a.tobytes() == b.tobytes(), name  # NaN where the turn is over, bit for bit
    assert loaded.stop_value.tobytes() == table.stop_value.tobytes()
    assert loaded.stats == table.stats
    sol, back = table.solution, loaded.solution
    assert (back.card, back.objective, back.sweeps, back.residual, back.bound, back.n_dice) == (
        sol.card, sol.objective, sol.sweeps, sol.residual, sol.bound, sol.n_dice)
    assert back.rules == DEFAULT and loaded.solver_version == __version__
    assert pack_table(loaded) == path.read_bytes()  # and back to the same bytes


def test_sorceress_table_has_both_worlds(fresh: dict[str, TurnTable]) -> None:
    payload = _payload(pack_table(fresh["sorceress"]))
    assert sorted(payload["arrays"]["worlds"]) == ["unused", "used"]
    assert sorted(_payload(pack_table(fresh["none"]))["arrays"]["worlds"]) == ["used"]


def test_header_records_how_the_table_was_made(fresh: dict[str, TurnTable]) -> None:
    payload = _payload(pack_table(fresh["captain"]))
    assert payload["header"] == {
        "card": "captain",
        "format": FORMAT_VERSION,
        "kind": "turn",
        "n_dice": 8,
        "objective": ["ExpectedPoints"],
        "rules": DEFAULT.as_dict(),
        "rules_hash": DEFAULT.hash,
        "solver_version": __version__,
    }
    sol = fresh["captain"].solution
    assert payload["solve"] == {"bound": sol.bound, "residual": sol.residual,
                                "sweeps": sol.sweeps}
    assert 0 < sol.bound <= 1e-9


def test_turn_rules_drop_the_game_level_variants(fresh: dict[str, TurnTable]) -> None:
    game = rules_with(["target=8000", "ties=trigger"])
    assert pack_table(build_table(CARDS["skull2"], game)) == pack_table(fresh["skull2"])


def test_one_worker_and_two_give_the_same_bits(fresh: dict[str, TurnTable]) -> None:
    cards = [CARDS[c] for c in ("sorceress", "chest", "battle2")]
    serial = solve_cards(cards, DEFAULT, n_jobs=1)
    parallel = solve_cards(cards, DEFAULT, n_jobs=2)
    for card in cards:
        a, b = _arrays(serial[card.id]), _arrays(parallel[card.id])
        assert all(a[k].tobytes() == b[k].tobytes() for k in a), card
    two = [pack_table(t) for t in build_tables(cards, DEFAULT, n_jobs=2)]
    assert two == [pack_table(fresh[c.id]) for c in cards]


def test_solve_all_in_a_fresh_process_writes_the_committed_bytes(tmp_path: Path) -> None:
    # `sabords solve --all` as `make tables` runs it: its workers forked from a process of one
    # thread (OpenBLAS on one thread, as the command line sets it), the largest batch's floats
    # solved in the parent meanwhile; the files are the committed ones, byte for byte
    import os
    import subprocess
    import sys

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    subprocess.run([sys.executable, "-m", "solver", "solve", "--all", "--jobs", "2", "--out",
                    str(tmp_path)], check=True, capture_output=True, env=env)
    for card in CARDS.values():
        name = f"turn-{card.id}.msgpack"
        assert (tmp_path / name).read_bytes() == (committed_dir() / name).read_bytes(), name


# -- the committed tables -----------------------------------------------------------------------


def _assert_matches(committed: Any, fresh: Any, where: str) -> None:
    """Same structure exactly; floats (scalars and float64 arrays) to VALUE_TOL."""
    if isinstance(fresh, dict):
        assert isinstance(committed, dict) and sorted(committed) == sorted(fresh), where
        if set(fresh) == {"data", "dtype", "shape"}:
            assert (committed["dtype"], committed["shape"]) == (fresh["dtype"],
                                                                fresh["shape"]), where
            a = np.frombuffer(committed["data"], dtype=committed["dtype"])
            b = np.frombuffer(fresh["data"], dtype=fresh["dtype"])
            if b.dtype.kind == "f":
                np.testing.assert_allclose(a, b, rtol=0, atol=VALUE_TOL, err_msg=where)
            else:
                assert np.array_equal(a, b), where
            return
        for key in fresh:
            _assert_matches(committed[key], fresh[key], f"{where}.{key}")
    elif isinstance(fresh, float):
        assert isinstance(committed, float), where
        assert math.isclose(committed, fresh, rel_tol=0, abs_tol=VALUE_TOL), where
    else:
        assert committed == fresh, where


@pytest.mark.parametrize("card", CARD_IDS)
def test_committed_tables_match_a_fresh_solve(fresh: dict[str, TurnTable], card: str) -> None:
    path = table_path(committed_dir(), CARDS[card])
    assert path.is_file(), f"{path} is missing: run `make tables`"
    committed = path.read_bytes()
    read_table(path, CARDS[card], DEFAULT)  # intact and made for these rules
    _assert_matches(_payload(committed), _payload(pack_table(fresh[card])), card)


def test_default_tables_come_from_the_repository(fresh: dict[str, TurnTable]) -> None:
    sol = turn_solution(CARDS["battle3"], rules_with(["target=5000"]))  # a game-level variant
    assert np.array_equal(sol.turn_value, fresh["battle3"].solution.turn_value)
    assert committed_dir() == Path(tables_module.__file__).resolve().parents[2] / "tables"


# -- refusals ---------------------------------------------------------------------------------


def _written(fresh: dict[str, TurnTable], directory: Path, card: str = "skull2") -> Path:
    return write_table(fresh[card], directory)


def _refusal(path: Path, card: str = "skull2", rules: Rules = DEFAULT) -> str:
    """The refusal's line on the command line (the library's message names no command: it
    carries the table and the rules, and the command line words the fix)."""
    from solver.cli.wording import error_line

    with pytest.raises(StaleTableError) as info:
        read_table(path, CARDS[card], rules)
    message = str(info.value)
    assert "\n" not in message and "sabords" not in message and "make" not in message
    assert message.startswith(f"policy table {path}: ")
    assert (info.value.table, info.value.path, info.value.card) == ("turn", str(path), card)
    assert info.value.rules == rules.turn_rules()
    return error_line(info.value)


def test_tampered_payload_is_refused_by_its_checksum(
    fresh: dict[str, TurnTable], tmp_path: Path
) -> None:
    path = _written(fresh, tmp_path)

    def flip(outer: dict[str, Any]) -> None:
        payload = bytearray(outer["payload"])
        payload[len(payload) // 2] ^= 1
        outer["payload"] = bytes(payload)

    path.write_bytes(_repack(path.read_bytes(), flip))
    message = _refusal(path)
    assert "checksum does not match" in message
    assert f"`sabords solve --all --out {tmp_path}`" in message


def test_table_of_other_rules_is_refused(tmp_path: Path) -> None:
    other = rules_with(["card_skulls_block_chest=off"])
    path = write_table(build_table(CARDS["skull2"], other), tmp_path)
    message = _refusal(path)
    assert f"made for other rules (hash {other.hash}, these rules have {DEFAULT.hash})" in message
    read_table(path, CARDS["skull2"], other)  # the rules it was made for read it


def test_older_format_is_refused(fresh: dict[str, TurnTable], tmp_path: Path) -> None:
    path = _written(fresh, tmp_path)
    path.write_bytes(_repack(path.read_bytes(), lambda o: o.update(format=FORMAT_VERSION - 1)))
    assert f"format version {FORMAT_VERSION - 1}, this solver reads version" in _refusal(path)


def test_table_of_another_card_is_refused(fresh: dict[str, TurnTable], tmp_path: Path) -> None:
    path = _written(fresh, tmp_path, "skull1")
    assert "made for card 'skull1', not 'skull2'" in _refusal(path, "skull2")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (None, "no such file"),
        (b"", "not a readable table file"),
        (b"\xc1garbage", "not a readable table file"),
        (msgpack.packb([1, 2]), "not a policy table file"),
        (msgpack.packb({"format": FORMAT_VERSION}), "no payload or no checksum"),
    ],
)
def test_missing_or_corrupt_file_is_refused(
    tmp_path: Path, content: bytes | None, why: str
) -> None:
    path = table_path(tmp_path, CARDS["skull2"])
    if content is not None:
        path.write_bytes(content)
    assert why in _refusal(path)


def test_incomplete_payload_is_refused(fresh: dict[str, TurnTable], tmp_path: Path) -> None:
    payload = _payload(pack_table(fresh["skull2"]))
    del payload["arrays"]["stop_value"]
    packed = msgpack.packb(payload, use_bin_type=True)
    data = msgpack.packb({"checksum": "sha256:" + __import__("hashlib").sha256(packed)
                          .hexdigest(), "format": FORMAT_VERSION, "payload": packed})
    with pytest.raises(StaleTableError, match="incomplete table"):
        unpack_table(data, source="x", card=CARDS["skull2"], rules=DEFAULT)


def _sealed(payload: dict[str, Any]) -> bytes:
    """Table bytes of an edited payload, with a checksum that matches (only the content is
    wrong)."""
    packed = msgpack.packb(payload, use_bin_type=True)
    return msgpack.packb({"checksum": "sha256:" + __import__("hashlib").sha256(packed)
                          .hexdigest(), "format": FORMAT_VERSION, "payload": packed})


def _edit_exact(payload: dict[str, Any], what: str) -> None:
    exact = payload["exact"]
    keep = exact["arrays"]["worlds"]["used"]["keep_value"]
    if what == "shape":
        keep["shape"] = [keep["shape"][0] - 1, 1]
    elif what == "bytes":
        keep["num"] = keep["num"][:-1]
    elif what == "den":
        keep["den"] = "0"
    elif what == "world":
        exact["arrays"]["worlds"]["unused"] = exact["arrays"]["worlds"]["used"]
    elif what == "turn":
        turn = exact["arrays"]["turn_value"]
        turn["num"] = (int.from_bytes(turn["num"], "big", signed=True) + 1).to_bytes(
            turn["width"], "big", signed=True)
    elif what == "stats":
        exact["stats"]["p_bust"] = "1/3"
    else:
        del exact["proof"]


@pytest.mark.parametrize(
    ("what", "why"),
    [("shape", "exact array 'used.keep_value' is (3002, 1), expected (3003, 1)"),
     ("bytes", "exact array 'used.keep_value' has"),
     ("den", "exact array 'used.keep_value' is malformed"),
     ("world", "exact worlds ['unused', 'used'], expected ['used']"),
     ("turn", "its exact turn value does not round to its float value"),
     ("stats", "its exact statistics do not round to its float statistics"),
     ("proof", "its exact part is malformed")],
)
def test_malformed_exact_part_is_refused(fresh: dict[str, TurnTable], what: str,
                                         why: str) -> None:
    payload = _payload(pack_table(fresh["skull2"]))
    _edit_exact(payload, what)
    with pytest.raises(StaleTableError, match=re.escape(why)):
        unpack_table(_sealed(payload), source="x", card=CARDS["skull2"], rules=DEFAULT)


ARRAY_EDITS = [
    ("dtype", lambda a: a.update(dtype="<f4"), "array 'used.value' is float32 (1287, 1), "
                                               "expected float64 (1287, 1)"),
    ("float64 spelled out", lambda a: a.update(dtype="float64"), "array 'used.value' is"),
    ("shape", lambda a: a.update(shape=[1286, 1]), "array 'used.value' is float64 (1286, 1)"),
    ("negative shape", lambda a: a.update(shape=[-1, 1]), "array 'used.value' is"),
    ("short data", lambda a: a.update(data=a["data"][:-8]), "array 'used.value' is malformed"),
    ("no data", lambda a: a.pop("data"), "array 'used.value' is malformed"),
    ("bad zlib", lambda a: a.update(zlib=True), "array 'used.value' is malformed"),
]


@pytest.mark.parametrize("light", [True, False], ids=["light", "numpy"])
@pytest.mark.parametrize(("what", "edit", "why"), ARRAY_EDITS, ids=[e[0] for e in ARRAY_EDITS])
def test_a_malformed_array_is_refused_light_or_not(fresh: dict[str, TurnTable], what: str,
                                                   edit: Any, why: str, light: bool) -> None:
    # one check for both readings of a table (tables/turn.py, `_table_of`): a points answer's
    # numpy-free columns refuse what numpy's arrays refuse, in the same words
    payload = _payload(pack_table(fresh["skull2"]))
    edit(payload["arrays"]["worlds"]["used"]["value"])
    with pytest.raises(StaleTableError, match=re.escape(why)):
        unpack_table(_sealed(payload), source="x", card=CARDS["skull2"], rules=DEFAULT,
                     light=light)


def test_policy_codes_out_of_range_are_refused_light_or_not(fresh: dict[str, TurnTable]) -> None:
    payload = _payload(pack_table(fresh["skull2"]))
    policy = payload["arrays"]["worlds"]["used"]["policy"]
    policy["data"] = (3003).to_bytes(8, "little", signed=True) + policy["data"][8:]
    for light in (True, False):
        with pytest.raises(StaleTableError, match="holds codes out of range"):
            unpack_table(_sealed(payload), source="x", card=CARDS["skull2"], rules=DEFAULT,
                         light=light)


def test_exact_part_round_trips(fresh: dict[str, TurnTable]) -> None:
    for card in ("sorceress", "battle4"):
        table = fresh[card]
        back = unpack_table(pack_table(table), source="x", card=CARDS[card], rules=DEFAULT)
        a, b = table.exact(), back.exact()
        assert a.turn_value == b.turn_value and a.proof == b.proof
        assert np.array_equal(a.first_value, b.first_value)
        for w in a.worlds:
            assert np.array_equal(a.worlds[w].value, b.worlds[w].value)
            assert np.array_equal(a.worlds[w].keep_value, b.worlds[w].keep_value)
        assert back.exact_stats() == table.exact_stats()


def test_repository_tables_name_make_tables_as_the_fix(
    fresh: dict[str, TurnTable], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from solver.cli.wording import error_line

    monkeypatch.setattr(tablepaths, "committed_dir", lambda: tmp_path)
    with pytest.raises(StaleTableError) as info:
        turn_table(CARDS["captain"], DEFAULT)
    assert str(info.value) == f"policy table {tmp_path / 'turn-captain.msgpack'}: no such file"
    assert error_line(info.value) == (
        f"policy table {tmp_path / 'turn-captain.msgpack'}: no such file; "
        "run `make tables` to make the tables"
    )


# -- the cache of other variants --------------------------------------------------------------


def test_other_variants_are_solved_once_then_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SABORDS_CACHE_DIR", str(tmp_path))
    rules = rules_with(["battle_swords_fill_chest=off", "target=5000"])
    assert cache_dir(rules) == tmp_path / f"turn-{__version__}-v{FORMAT_VERSION}-{rules.turn_hash}"
    path = table_path(cache_dir(rules), CARDS["battle2"])
    assert not path.exists()
    solved = turn_table(CARDS["battle2"], rules)
    assert path.is_file() and path.read_bytes() == pack_table(solved)

    def no_solve(*args: object) -> TurnTable:
        raise AssertionError("the cached table should have been loaded")

    monkeypatch.setattr(tables_module, "build_table", no_solve)
    loaded = turn_table(CARDS["battle2"], rules)
    assert pack_table(loaded) == pack_table(solved)
    assert solved.solution.rules == rules.turn_rules()

    path.write_bytes(b"corrupt")  # a bad cached table is solved again, not an error
    monkeypatch.undo()
    monkeypatch.setenv("SABORDS_CACHE_DIR", str(tmp_path))
    assert pack_table(turn_table(CARDS["battle2"], rules)) == pack_table(solved)
    assert path.read_bytes() == pack_table(solved)


def test_cache_location_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SABORDS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir(DEFAULT).parent == tmp_path / "mille-sabords"


# -- statistics -----------------------------------------------------------------------------


def _p_at_least(n: int, k: int) -> Fraction:
    """P(at least k skulls among n dice): the binomial law, exact."""
    return sum((comb(n, j) * Fraction(1, 6) ** j * Fraction(5, 6) ** (n - j)
                for j in range(k, n + 1)), Fraction(0))


@pytest.mark.parametrize(
    ("card", "island_skull_dice"),
    [("none", 4), ("captain", 4), ("sorceress", 4), ("skull1", 3), ("skull2", 2),
     ("battle3", None)],
)
def test_skull_island_probability_is_the_first_roll_law(
    fresh: dict[str, TurnTable], card: str, island_skull_dice: int | None
) -> None:
    # RULES.md, A turn, step 3: Skull Island only from the first roll, 4+ skulls (card's
    # included), never with a battle card; no decision can change it.
    stats = fresh[card].stats
    exact = 0 if island_skull_dice is None else _p_at_least(8, island_skull_dice)
    assert abs(stats.p_island - float(exact)) <= stats.bound + 1e-15


def test_stats_ev_is_the_turn_value_and_deduction_doubles_for_the_captain(
    fresh: dict[str, TurnTable],
) -> None:
    for card, table in fresh.items():
        assert table.stats.ev == float(table.solution.turn_value[0]), card
    none, captain = fresh["none"].stats, fresh["captain"].stats
    assert abs(captain.island_deduction - 2 * none.island_deduction) <= 2 * none.bound


def test_stats_are_those_of_the_solved_policy() -> None:
    # The table's statistics are the exact ones of the proved policy, rounded to the nearest
    # double; the float policy evaluation of the float solve meets them within its bound.
    sol = solve_turn(CARDS["sorceress"], DEFAULT)
    floats = turn_stats(sol)
    table = build_table(CARDS["sorceress"], DEFAULT)
    exact = table.exact_stats()
    for name in STAT_NAMES:
        assert getattr(table.stats, name) == float(getattr(exact, name)), name
    for name in ("p_bust", "p_island", "island_deduction"):
        assert abs(Fraction(getattr(floats, name)) - getattr(exact, name)) <= floats.bound, name
    assert abs(Fraction(floats.ev) - exact.ev) <= sol.bound


def test_deck_average_weights_the_35_cards() -> None:
    values = {c: float(i) for i, c in enumerate(CARD_IDS)}
    expected = sum(Fraction(CARDS[c].count, DECK_SIZE) * Fraction(values[c]) for c in CARD_IDS)
    assert deck_average(values) == pytest.approx(float(expected), rel=1e-15)
    with pytest.raises(KeyError):
        deck_average({"none": 1.0})


# -- the command line -------------------------------------------------------------------------


def test_ev_json_equals_the_engine(
    sabords: Run, fresh: dict[str, TurnTable], tmp_path: Path
) -> None:
    for table in fresh.values():
        write_table(table, tmp_path)
    result = sabords("ev", "--json", "--tables", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert sorted(data) == ["cards", "deck", "deck_ev", "rules_hash", "variants"]
    assert data["rules_hash"] == DEFAULT.hash and data["variants"] == DEFAULT.as_dict()
    assert list(data["cards"]) == list(CARD_IDS)  # `none` included
    for card, stats in data["cards"].items():
        assert stats == fresh[card].stats.as_dict()  # full precision: equal floats
    evs = {c: Fraction(fresh[c].stats.ev) for c in CARD_IDS}
    exact_deck = sum(Fraction(CARDS[c].count, DECK_SIZE) * evs[c] for c in CARD_IDS)
    assert data["deck_ev"] == pytest.approx(float(exact_deck), rel=1e-14)  # `none`: weight 0
    # the text's "deck average" row, every column of it (a writer's trial found only deck_ev)
    assert list(data["deck"]) == list(data["cards"]["none"]) and data["deck"]["ev"] == \
        data["deck_ev"]
    for name, value in data["deck"].items():
        weighted = sum(Fraction(CARDS[c].count, DECK_SIZE) * Fraction(data["cards"][c][name])
                       for c in CARD_IDS)
        assert value == pytest.approx(float(weighted), rel=1e-14, abs=1e-15), name


def test_ev_default_tables_and_selected_cards(sabords: Run, fresh: dict[str, TurnTable]) -> None:
    result = sabords("ev", "--json", "--card", "pirate", "--card", "battle3", "--card", "captain")
    assert result.exit_code == 0, result.stderr
    cards = json.loads(result.stdout)["cards"]
    assert list(cards) == ["captain", "battle3"]
    for card, stats in cards.items():
        for name in STAT_NAMES:
            assert math.isclose(stats[name], getattr(fresh[card].stats, name), rel_tol=0,
                                abs_tol=VALUE_TOL), (card, name)


def test_ev_text_shows_each_card_and_the_deck(sabords: Run, fresh: dict[str, TurnTable]) -> None:
    result = sabords("ev", "--card", "captain")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["card", "expected", "points", "P(bust)", "P(Skull", "Island)",
                                "island", "deduction"]
    s = fresh["captain"].stats
    assert lines[1].split() == ["captain", f"{s.ev:.2f}", f"{s.p_bust:.2%}",
                                f"{s.p_island:.2%}", f"{s.island_deduction:.2f}"]
    deck = deck_average({c: t.stats.ev for c, t in fresh.items()})
    assert lines[2].split()[:3] == ["deck", "average", f"{deck:.2f}"]
    assert result.stdout.rstrip().endswith(f"rules  default rules (hash {DEFAULT.hash})")


@pytest.mark.parametrize("make_bad", ["empty", "file", "garbage"])
def test_ev_with_a_bad_tables_dir_is_one_line(sabords: Run, tmp_path: Path,
                                              make_bad: str) -> None:
    directory = tmp_path / "t"
    if make_bad == "empty":
        directory.mkdir()
    elif make_bad == "file":
        directory.write_text("not a directory")
    else:
        directory.mkdir()
        table_path(directory, CARDS["none"]).write_bytes(b"garbage")
    result = sabords("ev", "--tables", str(directory))
    fix = (f"{directory} is a file, not a folder of tables: name a folder, where "
           "`sabords solve --all --out DIR` writes the tables" if make_bad == "file"
           else f"sabords solve --all --out {directory}")
    assert_one_line_error(result, f"policy table {directory / 'turn-none.msgpack'}", fix)


def test_solve_writes_the_tables_bit_for_bit(sabords: Run, fresh: dict[str, TurnTable],
                                             tmp_path: Path) -> None:
    result = sabords("solve", "--card", "skull2", "--card", "tête2", "--out", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["turn-skull2.msgpack"]
    assert table_path(tmp_path, CARDS["skull2"]).read_bytes() == pack_table(fresh["skull2"])
    assert "(new)" in result.stdout
    again = sabords("solve", "--card", "skull2", "--out", str(tmp_path))
    assert "(unchanged)" in again.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ((), "--card CARD"),
        (("--all", "--card", "none"), "not both"),
        (("--all", "--jobs", "0"), "--jobs"),
        (("--card", "nobody"), "unknown card"),
        (("--card", "none", "--variant", "keep_one=maybe"), "keep_one"),
    ],
)
def test_solve_bad_input_is_one_line(sabords: Run, tmp_path: Path, args: tuple[str, ...],
                                     fragment: str) -> None:
    assert_one_line_error(sabords("solve", "--out", str(tmp_path), *args), fragment)
    assert list(tmp_path.iterdir()) == []


def test_solve_into_an_unwritable_place_is_one_line(sabords: Run, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert_one_line_error(sabords("solve", "--card", "none", "--out", str(blocker / "t")),
                          "cannot write the tables")


# -- the Sorceress comparison of docs/solver.md ------------------------------------------------


def test_supitalp_sorceress_reading_gives_their_published_906() -> None:
    # supitalp/millesabords, analysis/expected_values.md: Guardian 906 points; its reading
    # (solver/actions.py guardian_kept_options, solver/dp.py rescue) as scripts/ encodes it.
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "scripts" / "supitalp_sorceress.py"
    spec = importlib.util.spec_from_file_location("supitalp_sorceress", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    rules = rules_with(["battle_swords_fill_chest=off"])
    theirs = script.sorceress_value(rules, voluntary_alone=False, rescue_with_dice=False)
    assert round(theirs) == 906
    ours = script.sorceress_value(rules, voluntary_alone=True, rescue_with_dice=True)
    assert ours == solve_turn(CARDS["sorceress"], rules).turn_value[0]  # the table is unchanged


def test_an_installed_package_without_the_repository_solves_default_tables_into_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A wheel ships `solver/` but not the repository's `tables/`: the default rules are then
    # solved on demand and cached like any other variant, never refused.
    monkeypatch.setenv("SABORDS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(tablepaths, "committed_dir",
                        lambda: tmp_path / "no-repo" / "tables")
    rules = Rules()
    table = turn_table(CARDS["skull2"], rules)
    assert table_path(cache_dir(rules), CARDS["skull2"]).exists()
    committed = read_table(table_path(committed_dir(), CARDS["skull2"]), CARDS["skull2"], rules)
    assert table.solution.turn_value.tobytes() == committed.solution.turn_value.tobytes()


@pytest.mark.parametrize("card", ["sorceress", "chest", "skull2"])
def test_a_light_table_holds_the_numpy_tables_values(card: str) -> None:
    # read light (numpy-free columns: a points answer's) and read with numpy: the same values
    # at every index, the same Python types at [i, 0], and numpy sees the same arrays
    light = turn_table(CARDS[card], DEFAULT, light=True)
    full = turn_table(CARDS[card], DEFAULT)
    pairs = [(light.solution.first_value, full.solution.first_value),
             (light.stop_value, full.stop_value)]
    for w, ws in full.solution.worlds.items():
        lw = light.solution.worlds[w]
        pairs += [(lw.value, ws.value), (lw.keep_value, ws.keep_value), (lw.policy, ws.policy),
                  (lw.sorceress, ws.sorceress)]
    for column, array in pairs:
        assert np.array_equal(np.asarray(column), array, equal_nan=array.dtype.kind == "f")
        for i in range(array.shape[0]):
            a, c = array[i, 0].item(), column[i, 0]
            assert type(c) is type(a) and (c == a or (a != a and c != c)), (i, a, c)
        assert column[-1, 0] == array[-1, 0] or array.dtype.kind == "f"
        assert np.array_equal(column[:, :1], array[:, :1], equal_nan=array.dtype.kind == "f")
    assert light.solution.turn_value[0] == full.solution.turn_value[0]
    assert pack_table(light) == pack_table(full)
    with pytest.raises(IndexError):
        light.solution.first_value[full.solution.first_value.shape[0], 0]
