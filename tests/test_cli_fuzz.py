"""Fuzz every command's arguments: whatever is typed, `sabords` answers with exit code 0 or 2,
never a traceback, and a refusal is one line on stderr.

The arguments are drawn from each command's own options with values both valid and not
(numbers out of range, malformed variants, unknown cards and faces, huge and empty strings,
text starting with a minus), in any order and repeated, with unknown options among them. The
solves behind a valid answer are replaced by the committed tables (the default rules) or by a
refusal (any other rules), so that an example takes milliseconds: the fuzz is about reading
the command line, the solves are checked by their own tests. Derandomised (tests/conftest.py).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.errors import StaleTableError
from solver.rules import Rules
from solver.tablepaths import committed_dir

from .conftest import run_sabords

CARDS = ["none", "captain", "pirate", "sorceress", "chest", "battle3", "p", "m2", "b 3",
         "wizard", "", "-1", "500", "skull island", "z" * 300]
DICE = ["kkmppscd", "kkmpsssc", "kkkkmmpc", "mmsppéod", "kkk", "4 coin 3 sword d",
        "-1 coin 9 sword", "", "k" * 300, "zz", "kkkmcccd", "cccccccc"]
NUMBERS = ["0", "1", "2", "3", "-1", "100", "150", "1000", "5500", "6000", "6200",
           "99999999999", "abc", "1e3", "", "-100"]
VARIANTS = ["keep_one=off", "keep_one=on", "target=500", "target=100000000", "target=-100",
            "ties=trigger", "wizard=on", "keep_one", "=", "nine_of_a_kind=set", "target=abc"]
TEXT = st.sampled_from(["", "-", "--", "x", "é", "-1", "help", "--bogus", "k" * 200])

DIR = "DIR"
"""Replaced by a temporary directory (or a file in it, or a path that does not exist)."""

OPTIONS: dict[str, dict[str, list[str] | None]] = {
    "score": {"--chest": DICE, "--first": None, "--variant": VARIANTS,
              "--notation": ["default", "braille", "morse"], "--json": None},
    "solve": {"--card": CARDS, "--all": None, "--variant": VARIANTS, "--out": [DIR],
              "--tables": [DIR], "--jobs": NUMBERS, "--notation": ["default", "braille"]},
    "ev": {"--card": CARDS, "--variant": VARIANTS, "--tables": [DIR], "--json": None,
           "--notation": ["default", "braille"]},
    "advise": {"--sorceress-used": None, "--need": NUMBERS, "--first": None, "--chest": DICE,
               "--variant": VARIANTS, "--top": NUMBERS, "--tables": [DIR], "--me": NUMBERS,
               "--opp": NUMBERS, "--final": None, "--game-tables": [DIR], "--json": None,
               "--notation": ["default", "braille", "x"]},
    "turn": {"--need": NUMBERS, "--me": NUMBERS, "--opp": NUMBERS, "--final": None,
             "--variant": VARIANTS, "--tables": [DIR], "--game-tables": [DIR],
             "--notation": ["default", "braille"], "--json": None},
    "simulate": {"--card": CARDS, "--deck": None, "--turns": ["1", "3", "0", "-1",
                                                              "100000000000", "x"],
                 "--policy": ["optimal", "greedy", "threshold=700", "threshold=x", "bold", ""],
                 "--seed": NUMBERS, "--variant": VARIANTS, "--json": None},
    "winprob": {"--me": NUMBERS, "--opp": NUMBERS, "--final": None, "--variant": VARIANTS,
                "--game-tables": [DIR], "--json": None},
    "solve-game": {"--variant": VARIANTS, "--out": [DIR]},
    "game": {"--games": ["1", "2", "0", "-3", "10000000", "x"],
             "--policies": ["win,points", "points,greedy", "win", "a,b,c", ",", "points,bold"],
             "--seed": NUMBERS, "--variant": VARIANTS, "--game-tables": [DIR], "--json": None},
    "cache": {"--clear": None, "--prune": None, "--json": None},
}
POSITIONAL: dict[str, list[list[str]]] = {"score": [CARDS, DICE], "advise": [CARDS, DICE],
                                          "turn": [CARDS]}
SAFE_DEFAULTS: dict[str, list[str]] = {
    "simulate": ["--turns", "3", "--card", "none"],  # 10 000 turns of the deck: seconds
    "game": ["--games", "2", "--policies", "points,points"],
    "solve": ["--out", DIR],  # never the repository's tables/
    "solve-game": ["--out", DIR],
}
"""Given first, so that a fuzzed option of the same name (given later) wins."""
TURN_LINES = ["kkmpsssc", "", "cs", "stop", "kkkkmmpc", "kmpc", "help", "undo", "quit", "zz",
              "reroll kk", "kkmmppsc", "-1", "é"]


@pytest.fixture
def fast_solves(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The committed tables stand for the solves of the default rules; other rules are
    refused as stale (a one-line answer like any other)."""
    import solver.game
    import solver.gametables as gametables
    import solver.turntables as tables

    def build_table(card: Any, rules: Rules) -> Any:
        if rules.turn_rules() != Rules():
            raise StaleTableError("not solved in the fuzz", table="turn", path="fuzz",
                                  rules=rules.turn_rules())
        return tables.read_table(tables.table_path(committed_dir(), card), card,
                                 Rules())

    def build_tables(cards: Any, rules: Rules, n_jobs: int = 1) -> Any:
        return (build_table(c, rules) for c in cards)

    def solve_game(rules: Rules, **kwargs: Any) -> Any:
        if rules != Rules():
            raise StaleTableError("not solved in the fuzz", table="game", path="fuzz",
                                  rules=rules)
        return gametables.read_game(committed_dir(), rules)

    def write_game(sol: Any, directory: Any) -> Any:  # the committed bytes, without packing
        path = gametables.game_table_path(directory)
        path.write_bytes(gametables.game_table_path(committed_dir()).read_bytes())
        return path

    monkeypatch.setattr(gametables, "write_game", write_game)
    monkeypatch.setattr(tables, "build_table", build_table)
    monkeypatch.setattr(tables, "build_tables", build_tables)
    monkeypatch.setattr(solver.game, "solve_game", solve_game)
    with tempfile.TemporaryDirectory() as cache:
        monkeypatch.setenv("SABORDS_CACHE_DIR", cache)
        yield


@st.composite
def arguments(draw: st.DrawFn, command: str, directory: Path) -> list[str]:
    options = OPTIONS[command]
    tokens: list[str] = []
    for values in POSITIONAL.get(command, []):
        if draw(st.booleans()) or not tokens:
            tokens.append(draw(st.sampled_from(values) | TEXT))
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            tokens.append(draw(TEXT))  # stray text: an unknown option, an extra argument
            continue
        flag = draw(st.sampled_from(sorted(options)))
        values = options[flag]
        tokens.append(flag)
        if values is not None and draw(st.integers(0, 9)):  # sometimes the value is missing
            tokens.append(draw(st.sampled_from(values)))
    place = {DIR: str(directory), "FILE": str(directory / "file")}
    where = draw(st.sampled_from([DIR, "FILE", "/nonexistent/x"]))
    return [command, *(place.get(where, where) if t == DIR else t
                       for t in SAFE_DEFAULTS.get(command, []) + tokens)]


@pytest.mark.parametrize("command", sorted(OPTIONS))
@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_command_answers_0_or_2_never_a_traceback(command: str, data: st.DataObject,
                                                        fast_solves: None, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a relative path given as a value lands here
    (tmp_path / "file").write_text("a file, not a directory")
    args = data.draw(arguments(command, tmp_path), label="args")
    lines = data.draw(st.lists(st.sampled_from(TURN_LINES), max_size=6), label="stdin")
    result = run_sabords(*args, input="\n".join(lines) + "\n")  # raises what is a bug
    assert result.exit_code in (0, 2), (args, result.exit_code, result.stderr[-300:])
    assert "Traceback" not in result.stderr
    if result.exit_code == 2 and command != "turn":
        errors = [line for line in result.stderr.splitlines()
                  if line.startswith("sabords: error: ")]
        assert len(errors) == 1, result.stderr
        assert len(errors[0]) < 600
