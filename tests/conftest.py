"""Shared test set-up: fixed console width, derandomised hypothesis, CLI and dice helpers."""

from __future__ import annotations

import os

# Fixed console width and no colour for every CLI test; set before typer (and rich) are
# imported, since they read the environment at import time.
os.environ["COLUMNS"] = "100"
os.environ["TERMINAL_WIDTH"] = "100"
os.environ["NO_COLOR"] = "1"
os.environ.pop("FORCE_COLOR", None)

# numba's compiled kernels live in the user's cache (compiled once per machine, as `make run`'s
# install does), though the tests keep their tables in a private one (SABORDS_CACHE_DIR below):
# numba keys each entry by the source, the signature and the CPU it was compiled for.
from solver.caches import numba_cache_dir  # noqa: E402

os.environ.setdefault("NUMBA_CACHE_DIR", str(numba_cache_dir()))

from collections.abc import Callable, Iterator  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

from solver.rules import CARDS  # noqa: E402
from solver.rules.dice import Dice  # noqa: E402

# Hypothesis is derandomised everywhere (the same examples on every run, in CI and locally), so
# a failure is reproducible; HYPOTHESIS_PROFILE=explore searches with fresh random examples.
settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile("explore", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def dice(text: str) -> Dice:
    """Eight dice from the lenient notation: `dice("4 coin 3 sword diamond")`."""
    return Dice.parse(text, 8)


@dataclass(frozen=True)
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


def advise_at(card: Any, position: Dice, rules: Any, *, need: int | None = None,
              solution: Any = None, tables_dir: Any = None, sorceress_used: bool = False,
              chest: Dice | None = None, first: bool = False) -> Any:
    """:func:`solver.advice.advisor.advise` for expected points or `need`, the turn solved as
    the answers solve it (`solution`, when given, is that turn already solved)."""
    from solver.advice.advisor import Position, advise
    from solver.advice.goals import Goal, GoalSolution, objective_for, solution_for

    goal = Goal(need=need)
    if solution is None:
        solution = solution_for(card, rules, need, tables_dir=tables_dir)
    return advise(Position(card, position, rules, sorceress_used=sorceress_used, chest=chest,
                           first=first), GoalSolution(goal, objective_for(need), solution))


def run_sabords(*args: str, input: str | bytes | Any = None,
                env: dict[str, str | None] | None = None) -> CliResult:
    """Run `sabords ARGS...` in-process as :mod:`solver.cli.main` runs it, stdout and stderr
    apart, `input` on its standard input (a text, or a stream): the answers' forms by their
    parser (:mod:`solver.cli.quick`), the rest (other commands, help) by typer's CliRunner."""
    from typer.testing import CliRunner

    from solver.cli import app, quick

    runner = CliRunner()
    with runner.isolation(input=input, env=env) as (out, err, _):
        try:
            answered, code = quick.answer(list(args)), 0
        except SystemExit as exc:
            answered, code = True, exc.code if isinstance(exc.code, int) else 1
        if answered:
            return CliResult(code, out.getvalue().decode(), err.getvalue().decode())
    result = runner.invoke(app, list(args), input=input, env=env, prog_name="sabords")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a bug, not a user error: show the traceback
    return CliResult(result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def sabords() -> Callable[..., CliResult]:
    """:func:`run_sabords`: `sabords(*args, input=None)`."""
    return run_sabords


def assert_one_line_error(result: CliResult, *fragments: str) -> str:
    """Exit code 2, nothing on stdout, exactly one line on stderr containing `fragments`."""
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("sabords: error: "), line
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    return line


@pytest.fixture(autouse=True, scope="session")
def _private_table_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tables of non-default variants, solved on demand, are cached in a temporary directory
    for the whole session (SABORDS_CACHE_DIR), never in the user's ~/.cache."""
    patch = pytest.MonkeyPatch()
    patch.setenv("SABORDS_CACHE_DIR", str(tmp_path_factory.mktemp("table-cache")))
    yield
    patch.undo()


@pytest.fixture(scope="session")
def solved() -> Callable[..., Any]:
    """`solved(card, rules=Rules(), objective=None, n_dice=8)`: solve_turn, cached for the
    whole session (the engine's tests share their solutions; objectives are keyed by key())."""
    from solver.engine import ExpectedPoints, solve_turn
    from solver.rules import Rules

    cache: dict[tuple[Any, ...], Any] = {}

    def solve(card: str, rules: Any = None, objective: Any = None, n_dice: int = 8) -> Any:
        rules = rules if rules is not None else Rules()
        objective = objective if objective is not None else ExpectedPoints()
        key = (card, rules, objective.key(), n_dice)
        if key not in cache:
            cache[key] = solve_turn(CARDS[card], rules, objective, n_dice=n_dice)
        return cache[key]

    return solve


def stop_process(process: Any) -> None:
    """Stop a server the test started: terminate, then kill after 10 s."""
    import subprocess

    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
