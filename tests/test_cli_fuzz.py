"""Fuzz every command's arguments and its environment: whatever is typed, whatever the cache
variables, the encodings, the locale and the state of the standard streams, `sabords` answers
with exit code 0 or 2, never a traceback, and a refusal is one line on stderr.

The arguments are drawn from each command's own options with values both valid and not
(numbers out of range, malformed variants, unknown cards and faces, huge and empty strings,
text starting with a minus), in any order and repeated, with unknown options among them. The
solves behind a valid answer are replaced by the committed tables (the default rules) or by a
refusal (any other rules), so that an example takes milliseconds: the fuzz is about reading
the command line, the solves are checked by their own tests. The environment: the cache
variables in process; the output encodings, the locale and a closed or full stderr or stdout
in a fresh process each (slow, so a few cases, chosen among the commands that print, read or
refuse what an encoding may lack). Derandomised (tests/conftest.py).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from solver.errors import StaleTableError
from solver.rules import Rules
from solver.tables.paths import committed_dir

from .conftest import run_sabords

CARDS = ["none", "captain", "pirate", "sorceress", "chest", "battle3", "p", "m2", "b 3",
         "wizard", "", "-1", "500", "skull island", "z" * 300]
DICE = ["kkmppscd", "kkmpsssc", "kkkkmmpc", "mmsppéod", "kkk", "4 coin 3 sword d",
        "-1 coin 9 sword", "", "k" * 300, "zz", "kkkmcccd", "cccccccc", "፰ coin", "⓶ coin kkkkkk",
        "᧚x sword", "kkkk ⓼"]
NUMBERS = ["0", "1", "2", "3", "-1", "100", "150", "1000", "5500", "6000", "6200",
           "99999999999", "abc", "1e3", "", "-100", "፰", "⓶00", "5" * 5000]
VARIANTS = ["keep_one=off", "keep_one=on", "target=500", "target=100000000", "target=-100",
            "ties=trigger", "wizard=on", "keep_one", "=", "nine_of_a_kind=set", "target=abc"]
TEXT = st.sampled_from(["", "-", "--", "x", "é", "-1", "help", "--bogus", "k" * 200])

DIR = "DIR"
"""Replaced by a temporary directory (or a file in it, or a path that does not exist)."""
SILENT = "SILENT"
"""Replaced by the address of a port that accepts and never answers (:func:`silent`): a
scheduler that hangs."""

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
    "solve-game": {"--variant": VARIANTS, "--out": [DIR], "--workers": ["0", "1", "999", "-1"],
                   "--block": ["64", "10", "4096"], "--resume": None,
                   "--scheduler": ["tcp://127.0.0.1:99999", "inproc://x", "tcp://256.1.1.1:1",
                                   "", "tcp://:1", "http://127.0.0.1:8000", SILENT],
                   "--players": ["2", "3", "6", "x"]},
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
              "reroll kk", "kkmmppsc", "-1", "é", "²", "፫", "5" * 5000, "፰ coin kkkkkkk"]
OTHER_DIGITS = st.characters(categories=("Nd", "No"), exclude_characters="0123456789")
"""The characters Unicode calls digits but 0-9 (``፰``, ``⓶``, ``᧚``, ``٣``, ``²``;
`isdigit()` accepts many that `int()` cannot read)."""


@pytest.fixture
def fast_solves(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The committed tables stand for the solves of the default rules; other rules are
    refused as stale (a one-line answer like any other)."""
    import solver.game
    import solver.tables.game as gametables
    import solver.tables.turn as tables

    def build_table(card: Any, rules: Rules) -> Any:
        if rules.turn_rules() != Rules():
            raise StaleTableError("not solved in the fuzz", table="turn", path="fuzz",
                                  rules=rules.turn_rules())
        return tables.read_table(tables.table_path(committed_dir(), card), card,
                                 Rules())

    def build_tables(cards: Any, rules: Rules, n_jobs: int = 1) -> Any:
        return (build_table(c, rules) for c in cards)

    def solve_game(rules: Rules, players: int = 2, *args: Any, **kwargs: Any) -> Any:
        if rules != Rules() or players != 2:
            raise StaleTableError("not solved in the fuzz", table=f"game-{players}",
                                  path="fuzz", rules=rules)
        return gametables.read_game(committed_dir(), rules, 2)

    def write_game(sol: Any, directory: Any) -> Any:  # the committed bytes, without packing
        path = gametables.game_table_path(directory, sol.players)
        path.write_bytes(gametables.game_table_path(committed_dir(), sol.players).read_bytes())
        return path

    monkeypatch.setattr(gametables, "write_game", write_game)
    monkeypatch.setattr(tables, "build_table", build_table)
    monkeypatch.setattr(tables, "build_tables", build_tables)
    monkeypatch.setattr(solver.game, "solve_game", solve_game)

    import contextlib

    import solver.game.cluster as cluster
    monkeypatch.setattr(cluster, "local_cluster", lambda workers: contextlib.nullcontext(None))
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 0.3)  # a silent scheduler, given up on
    with tempfile.TemporaryDirectory() as cache:
        monkeypatch.setenv("SABORDS_CACHE_DIR", cache)
        yield


@pytest.fixture(scope="module")
def silent() -> Iterator[str]:
    """A port of loopback that accepts connections and never answers, while the module runs:
    its address."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.1)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


@st.composite
def arguments(draw: st.DrawFn, command: str, directory: Path,
              silent: str = "tcp://127.0.0.1:9") -> list[str]:
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
    return [command, *(place.get(where, where) if t == DIR else silent if t == SILENT else t
                       for t in SAFE_DEFAULTS.get(command, []) + tokens)]


@pytest.mark.parametrize("command", sorted(OPTIONS))
@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_command_answers_0_or_2_never_a_traceback(command: str, data: st.DataObject,
                                                        fast_solves: None, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        silent: str) -> None:
    monkeypatch.chdir(tmp_path)  # a relative path given as a value lands here
    (tmp_path / "file").write_text("a file, not a directory")
    args = data.draw(arguments(command, tmp_path, silent), label="args")
    lines = data.draw(st.lists(st.sampled_from(TURN_LINES), max_size=6), label="stdin")
    result = run_sabords(*args, input="\n".join(lines) + "\n")  # raises what is a bug
    assert result.exit_code in (0, 2), (args, result.exit_code, result.stderr[-300:])
    assert "Traceback" not in result.stderr
    if result.exit_code == 2 and command != "turn":
        errors = [line for line in result.stderr.splitlines()
                  if line.startswith("sabords: error: ")]
        assert len(errors) == 1, result.stderr
        assert len(errors[0]) < 600


@pytest.mark.parametrize("extra", [[], ["--workers", "1"], ["--resume"], ["--block", "64"]])
def test_a_silent_scheduler_among_the_fuzzed_options_is_one_line(
        extra: list[str], fast_solves: None, tmp_path: Path, silent: str) -> None:
    """The fuzz's silent scheduler with three players, as the draws above may meet it: given
    up on after the (shortened) time limit, one line and exit 2 (it hung)."""
    result = run_sabords("solve-game", "--players", "3", "--variant", "target=300",
                         "--scheduler", silent, "--out", str(tmp_path), *extra)
    assert result.exit_code == 2, (result.exit_code, result.stderr[-300:])
    errors = [line for line in result.stderr.splitlines() if line.startswith("sabords: error")]
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize("command", ["score", "advise", "turn"])
@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(digit=OTHER_DIGITS, face=st.sampled_from(["coin", "k", "sword", "", " kkkk"]),
       chest=st.booleans())
@example(digit="፰", face="coin", chest=False)  # int() cannot read it
@example(digit="⓶", face="coin", chest=True)
def test_a_count_in_any_unicode_digit_answers_0_or_2_never_a_traceback(
        command: str, digit: str, face: str, chest: bool, fast_solves: None) -> None:
    """Dice counts are written with 0-9: any other digit ('፰', '⓶', '᧚', which
    `isdigit()` accepts and `int()` cannot read) is read as the notation folds it (a '²' is a
    2) or refused in one line, in the dice, the chest and at the turn helper's prompt."""
    text = f"{digit} {face}".strip()
    if command == "turn":
        result = run_sabords("turn", "chest", input=f"kkmppscd\n{text}\n{digit}\nquit\n")
        assert result.exit_code == 0, result.stderr
        assert "Traceback" not in result.stderr
        return
    args = [command, "chest", "kkkccccd", "--chest", text] if chest else [command, "none", text]
    result = run_sabords(*args)
    assert result.exit_code in (0, 2), (args, result.stderr)
    if result.exit_code == 2:
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith("sabords: error: ")


# -- the environment: cache variables in process, encodings and streams in a fresh process ----

UNUSABLE_CACHES = ["DIR/" + "a" * 300, "DIR/" + "/".join(["b" * 200] * 30), "DIR/loop",
                   "DIR/dangling", "FULL/cache"]
CACHES = ["DIR", "FILE", "FILE/below", "relative-cache", "~/cache", "", "DIR/new/deep",
          *UNUSABLE_CACHES]
"""Values of SABORDS_CACHE_DIR: a directory, a file, a path through a file, relative, under
the home, empty (the XDG rule then), a path still to create, a name and a path too long for
the file system, a loop of symbolic links, a symbolic link to nothing, a full file system
(``FULL``: a tmpfs of 16 KiB filled up, :func:`full_fs`)."""


@pytest.fixture(scope="module")
def full_fs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path | None]:
    """A file system with no space left (a tmpfs of 16 KiB, filled): mounted as root, which CI
    is; None where it cannot be (its cases are then skipped)."""
    import os
    import shutil
    import subprocess

    where = tmp_path_factory.mktemp("full")
    if os.geteuid() != 0 or shutil.which("mount") is None or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(where)],
            capture_output=True, check=False).returncode:
        yield None
        return
    try:
        try:
            with open(where / "filler", "wb") as filler:
                while True:
                    filler.write(b"x" * 1024)
                    filler.flush()
        except OSError:  # ENOSPC: full
            pass
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)
XDGS = [None, "relative", "DIR/xdg", "", "FILE"]
HOMES = ["DIR", "", "relative"]


@pytest.mark.parametrize("command", ["advise", "ev", "turn", "cache", "winprob"])
@pytest.mark.parametrize("given_cache", [None, *UNUSABLE_CACHES])
@settings(max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_cache_setting_answers_0_or_2_never_a_traceback(
        command: str, given_cache: str | None, data: st.DataObject, fast_solves: None,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, full_fs: Path | None) -> None:
    """Whatever the cache variables say (a file, a path through a file, a relative
    XDG_CACHE_HOME, a `~`, an empty HOME; a name or a path too long for the file
    system, a loop of symbolic links, each in every run of its own), the command answers (a
    warning at most) or refuses in one line."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "FILE").write_text("a file, not a directory")
    if not (tmp_path / "loop").is_symlink():  # the same directory for every example
        (tmp_path / "loop").symlink_to(tmp_path / "loop-back")
        (tmp_path / "loop-back").symlink_to(tmp_path / "loop")
        (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")

    if given_cache is not None and given_cache.startswith("FULL") and full_fs is None:
        pytest.skip("no full file system here (mounting a tmpfs needs root)")

    def place(value: str) -> str:
        if value.startswith("FULL"):
            return value.replace("FULL", str(full_fs)) if full_fs is not None else str(tmp_path)
        return value.replace("DIR", str(tmp_path)).replace("FILE", str(tmp_path / "FILE"))

    args = data.draw(arguments(command, tmp_path), label="args")
    cache = given_cache or data.draw(st.sampled_from(CACHES), label="SABORDS_CACHE_DIR")
    xdg = data.draw(st.sampled_from(XDGS), label="XDG_CACHE_HOME")
    home = data.draw(st.sampled_from(HOMES), label="HOME")
    with monkeypatch.context() as env:
        env.setenv("SABORDS_CACHE_DIR", place(cache))
        env.setenv("HOME", place(home) if home != "" else str(tmp_path))
        if xdg is None:
            env.delenv("XDG_CACHE_HOME", raising=False)
        else:
            env.setenv("XDG_CACHE_HOME", place(xdg))
        result = run_sabords(*args, input="kkmpsssc\n\ncs\nstop\n")  # raises what is a bug
    assert result.exit_code in (0, 2), (args, result.exit_code, result.stderr[-300:])
    errors = [line for line in result.stderr.splitlines() if line.startswith("sabords: error")]
    if command != "turn":
        assert len(errors) == (result.exit_code == 2), result.stderr


OUTPUT_ENCODINGS = [None, "utf-8", "latin-1", "ascii", "cp1252"]
LOCALES = [None, "C", "C.UTF-8"]
RUNS: list[tuple[list[str], str]] = [
    (["ev", "--exact", "--card", "skull2"], ""),
    (["advise", "t", "mmspééeo", "--notation", "braille"], ""),
    (["score", "none", "tête de mort, 3 singes, pièce d’or, Säbel, épée, diamant"], ""),
    (["score", "coffre", "kkkcccdm", "--chest", "cccd", "--json"], ""),
    (["advise", "sorceress", "kkmmppsc", "--top", "3", "--top", "4"], ""),
    (["turn", "t", "--notation", "braille"], "mmspéééo\n\noé\nstop\n"),
    (["turn", "sorceress", "--json"], "kkmmppsc\nmmppc\nkkéz\n"),
    (["advise", "--help"], ""),
    (["solve", "--card", "none", "--out", "DIR"], ""),
    (["cache"], ""),
]
"""Commands that print what an encoding may lack (≈, é, ’, the Braille letters), read it, or
refuse it, with progress on stderr (solve) or none."""


@settings(max_examples=8, deadline=None)
@given(run=st.sampled_from(RUNS), encoding=st.sampled_from(OUTPUT_ENCODINGS),
       locale=st.sampled_from(LOCALES), stderr=st.sampled_from(["pipe", "closed", "full"]),
       stdout=st.sampled_from(["pipe", "pipe", "pipe", "full"]))
@example(RUNS[0], "latin-1", None, "pipe", "pipe")  # UnicodeEncodeError on '≈'
@example(RUNS[1], None, "C", "pipe", "pipe")  # '\udcc3' is not a die letter
@example(RUNS[8], None, None, "full", "pipe")  # no table written
@example(RUNS[7], "ascii", None, "pipe", "pipe")  # found by this fuzz: --help in UTF-8 anyway
@example(RUNS[5], "ascii", None, "pipe", "pipe")  # found by this fuzz: the typed line echoed
def test_any_encoding_locale_and_stream_state_answers_0_or_2_never_a_traceback(
        run: tuple[list[str], str], encoding: str | None, locale: str | None, stderr: str,
        stdout: str) -> None:
    """The promise of docs/commands.md, "bad input is one line on stderr and exit code 2, never a
    traceback", under an output encoding short of the characters printed, a C locale (input
    that it cannot decode), and a standard error closed or full; a full stdout is one line."""
    import os
    import subprocess
    import sys

    if "full" in (stderr, stdout) and not Path("/dev/full").exists():
        return
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as directory:
        args = [a.replace("DIR", directory) for a in run[0]]
        env = {**os.environ, "PYTHONPATH": str(root), "SABORDS_CACHE_DIR": directory,
               "PYTHONCOERCECLOCALE": "0"}
        env.pop("PYTHONIOENCODING", None)
        if encoding is not None:
            env["PYTHONIOENCODING"] = encoding
        if locale is not None:
            env.update(LC_ALL=locale, PYTHONUTF8="0")
        with open(os.devnull, "wb") as sink, open("/dev/full", "wb") as full:
            streams = {"pipe": subprocess.PIPE, "full": full, "closed": sink}
            # a closed stderr: the child closes its fd 2 before Python starts
            command = [sys.executable, "-m", "solver", *args]
            if stderr == "closed":
                command = ["sh", "-c", 'exec "$@" 2>&-', "sh", *command]
            result = subprocess.run(command, input=run[1].encode(), check=False, env=env,
                                    stdout=streams[stdout], stderr=streams[stderr]
                                    if stderr != "closed" else None, timeout=120)
    assert result.returncode in (0, 2), (args, encoding, locale, stderr, result)
    err = (result.stderr or b"").decode("utf-8", "replace")
    assert "Traceback" not in err and "Exception ignored" not in err, err
    if stdout == "full":  # the answer cannot be written (or the input was refused first)
        assert result.returncode == 2
        if stderr == "pipe" and args[0] != "turn":
            assert [line for line in err.splitlines() if not line.startswith("solving")] == \
                [err.splitlines()[-1]] and err.startswith("sabords: error: "), err
        return
    # in the stream's encoding, but for a line typed in bytes it cannot decode, echoed as typed
    codec = encoding or ("ascii" if locale == "C" else "utf-8")
    out = result.stdout.decode(codec, "surrogateescape")
    typed = run[1].encode().decode(codec, "surrogateescape").splitlines()
    for line in out.splitlines():
        if any("\udc80" <= ch <= "\udcff" for ch in line):
            assert any(t and line.endswith(t) for t in typed), line
    if result.returncode == 2 and stderr == "pipe" and args[0] != "turn":
        assert [line for line in err.splitlines() if not line.startswith("solving")] == \
            [err.splitlines()[-1]] and err.startswith("sabords: error: ")
    if result.returncode == 0:
        assert out
