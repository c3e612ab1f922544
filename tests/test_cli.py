"""The `sabords` command line through typer's CliRunner: exit codes, one-line errors, --help,
--json fields. The values asserted are RULES.md worked examples."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from solver import __version__
from solver.rules import CARDS, Rules
from solver.rules.scoring import island_distribution

from .conftest import CliResult, assert_one_line_error

Run = Callable[..., CliResult]


def test_help_lists_the_commands(sabords: Run) -> None:
    result = sabords("--help")
    assert result.exit_code == 0
    assert "score" in result.stdout and "Notation" in result.stdout


def test_no_arguments_shows_help(sabords: Run) -> None:
    result = sabords()
    assert "Usage: sabords" in result.stdout + result.stderr


def test_score_help_has_examples_and_options(sabords: Run) -> None:
    result = sabords("score", "--help")
    assert result.exit_code == 0
    for text in ("Examples:", "--chest", "--first", "--variant", "--json", "NAME=VALUE"):
        assert text in result.stdout


def test_version(sabords: Run) -> None:
    result = sabords("--version")
    assert (result.exit_code, result.stdout.strip()) == (0, f"sabords {__version__}")


def test_score_text(sabords: Run) -> None:
    # RULES.md: none | 4 coin, 3 sword, 1 diamond | 1300 with the full chest.
    result = sabords("score", "none", "ccccsssd")
    assert result.exit_code == 0, result.stderr
    assert "points   1300" in result.stdout
    assert "full chest" in result.stdout
    assert Rules().hash in result.stdout


def test_score_accepts_names_and_words(sabords: Run) -> None:
    # RULES.md: captain | 3 monkey, 3 sword, 2 coin | 1800.
    result = sabords("score", "pirate", "3", "singe", "3", "sabre", "2", "pièce", "--json")
    assert json.loads(result.stdout)["points"] == 1800


def test_score_json_fields(sabords: Run) -> None:
    result = sabords("score", "battle2", "mmmmsscc", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    # RULES.md: battle2 | 4 monkey, 2 sword, 2 coin | 1200.
    assert data["card"] == "battle2"
    assert data["dice"] == "mmmmsscc"
    assert data["points"] == 1200 and type(data["points"]) is int
    assert data["outcome"] == "stop"
    assert (data["bust"], data["full_chest"], data["magic"], data["battle_won"]) == (
        False,
        True,
        False,
        True,
    )
    assert data["rules_hash"] == Rules().hash
    assert data["rules"] == Rules().as_dict()


def test_score_json_pirate_magic_and_variant(sabords: Run) -> None:
    magic = json.loads(sabords("score", "coin", "cccccccc", "--json").stdout)
    assert (magic["points"], magic["magic"]) == (9400, True)
    as_set = json.loads(
        sabords("score", "coin", "cccccccc", "--variant", "nine_of_a_kind=set", "--json").stdout
    )
    assert (as_set["points"], as_set["magic"]) == (5400, False)
    assert as_set["rules_hash"] == Rules(nine_of_a_kind="set").hash != magic["rules_hash"]


def test_variant_is_repeatable(sabords: Run) -> None:
    result = sabords(
        "score", "skull1", "mmmmmmmm", "--variant", "card_skulls_block_chest=off",
        "--variant", "target=8000", "--json",
    )  # fmt: skip
    data = json.loads(result.stdout)
    assert data["points"] == 4500
    assert data["rules_hash"] == Rules(card_skulls_block_chest=False, target=8000).hash


def test_score_chest_bust(sabords: Run) -> None:
    # RULES.md: chest | bust with 3 coins and 1 diamond on the chest | 500.
    data = json.loads(sabords("score", "coffre", "kkkcccdm", "--chest", "cccd", "--json").stdout)
    assert (data["outcome"], data["bust"], data["points"], data["chest"]) == (
        "bust",
        True,
        500,
        "cccd",
    )


def test_score_battle_loss_on_bust(sabords: Run) -> None:
    data = json.loads(sabords("score", "bateau4", "kkkssssm", "--json").stdout)
    assert (data["outcome"], data["points"], data["battle_won"]) == ("bust", -1000, False)


def test_four_skulls_is_a_bust_unless_first(sabords: Run) -> None:
    later = json.loads(sabords("score", "captain", "kkkkmmpc", "--json").stdout)
    assert (later["outcome"], later["points"], later["island"]) == ("bust", 0, None)
    assert later["island_if_first"] is True
    text = sabords("score", "captain", "kkkkmmpc").stdout
    assert "--first" in text


def test_skull_island_note(sabords: Run) -> None:
    result = sabords("score", "captain", "kkkkmmpc", "--first", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["outcome"], data["points"], data["bust"]) == ("island", 0, False)
    island = data["island"]
    expected = island_distribution(CARDS["captain"], 4)
    rows = island["distribution"]
    assert {row["skulls"]: Fraction(row["probability_exact"]) for row in rows} == expected
    assert sum(Fraction(row["probability_exact"]) for row in rows) == 1
    assert all(row["deduction"] == 200 * row["skulls"] for row in rows)  # captain: 200 a skull
    mean = sum(200 * s * p for s, p in expected.items())
    assert Fraction(island["expected_deduction_exact"]) == mean
    assert island["expected_deduction"] == pytest.approx(float(mean), rel=1e-15)
    text = sabords("score", "captain", "kkkkmmpc", "--first").stdout
    assert "Skull Island" in text and str(mean) in text


def test_battle_card_first_roll_four_skulls_is_not_island(sabords: Run) -> None:
    data = json.loads(sabords("score", "battle3", "kkkkssss", "--first", "--json").stdout)
    assert (data["outcome"], data["points"], data["island"]) == ("bust", -500, None)


def test_sorceress_first_roll_three_skulls_is_a_rescue(sabords: Run) -> None:
    data = json.loads(sabords("score", "gardienne", "kkkmmmmm", "--first", "--json").stdout)
    assert (data["outcome"], data["points"], data["bust"]) == ("rescue", 0, True)
    later = json.loads(sabords("score", "gardienne", "kkkmmmmm", "--json").stdout)
    assert (later["outcome"], later["rescue_if_unused"]) == ("bust", True)


# -- bad input: one line on stderr, exit code 2 -------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("score", "none", "kkmpp"), ["'kkmpp'", "has 5 dice, expected 8"]),
        (("score", "none", "kkmppscz"), ["'kkmppscz'", "expected letters k m p s c d"]),
        (("score", "wizard", "kkmppscd"), ["'wizard'", "none, chest, captain"]),
        (("score", "none", "kkmppscd", "--variant", "wizard=on"), ["'wizard'", "keep_one"]),
        (("score", "none", "kkmppscd", "--variant", "keep_one=maybe"), ["'maybe'", "on or off"]),
        (("score", "none", "kkmppscd", "--variant", "target=150"), ["150", "multiple of 100"]),
        (("score", "none", "kkmppscd", "--variant", "keep_one"), ["'keep_one'", "NAME=VALUE"]),
        (("score", "chest", "kkkcccdm", "--chest", "ssd"), ["'ssd'", "not among the dice"]),
        (("score", "chest", "kkkcccdm", "--chest", "kc"), ["'kc'", "skull"]),
        (("score", "captain", "kkkcccdm", "--chest", "cc"), ["chest card", "'captain'"]),
        (("score", "chest", "kkkcccdm", "--chest", "cc", "--first"), ["'cc'", "first roll"]),
        (("score", "chest", "kkkcccdm", "--chest", "q"), ["'q'", "cannot read"]),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    sabords: Run, args: tuple[str, ...], fragments: list[str]
) -> None:
    assert_one_line_error(sabords(*args), *fragments)


def test_python_dash_m_solver_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "solver", "score", "none", "kkkmmmmm"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "points   0" in result.stdout and "bust" in result.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "solver", "score", "none", "kkk"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


@pytest.mark.parametrize("args", [("score", "skull1", "kkkmmmmm", "--first"),
                                  ("score", "captain", "kkkkmmpc", "--first"),
                                  ("score", "skull2", "kkkkcccc", "--first"),
                                  ("advise", "skull1", "kkkmmmmm", "--first")])
def test_the_island_table_is_in_columns(sabords: Run, args: tuple[str, ...]) -> None:
    """With skull1 the fractions outgrew a fixed width and pushed the last column."""
    out = sabords(*args).stdout.splitlines()
    header = next(i for i, line in enumerate(out) if "final skulls" in line)
    rows = [out[header]]
    rows += [line for line in out[header + 1:] if line.split()[0].isdigit()]
    assert len(rows) > 5
    starts = {len(line) - len(line.split()[-1]) for line in rows[1:]}
    assert starts == {rows[0].index("each opponent loses")}, rows
    probability = rows[0].index("probability")
    assert {line.index(line.split()[1]) for line in rows[1:]} == {probability}, rows


def _commands() -> dict[str, Any]:
    import typer.main

    from solver.cli import app

    group = typer.main.get_command(app)
    return dict(group.commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(_commands()))
def test_every_argument_and_option_is_described_and_shown_in_an_example(sabords: Run,
                                                                        name: str) -> None:
    """Click 8.3 dropped the help of positional arguments (advise --help said nothing
    of CARD and DICE), and no example showed --tables, --game-tables or --variant for advise,
    --final or --json for turn."""
    import click

    command = _commands()[name]
    out = sabords(name, "--help").stdout
    examples = out[out.index("Examples:"):out.index("Arguments:" if "Arguments:" in out
                                                     else "Options:")]
    for param in command.params:
        if isinstance(param, click.Argument):
            help_text = " ".join((param.help or "").split())
            assert help_text and help_text in " ".join(out.split()), (name, param.name)
            continue
        assert param.help, (name, param.opts)
        if "--help" in param.opts:
            continue
        assert any(opt in examples for opt in param.opts + param.secondary_opts), \
            (name, param.opts)
    assert out.count("rguments:") <= 1


def test_a_progress_line_piped_into_a_log_says_what_is_done_and_how_much(sabords: Run) -> None:
    """No bar is drawn where stderr is not a terminal: its label is the one line written, and
    a bare "playing" said nothing of what was played."""
    games = sabords("game", "--players", "2", "--games", "3", "--seed", "1")
    assert games.exit_code == 0, games.stderr
    assert games.stderr.splitlines() == ["playing 3 games"]
    one = sabords("game", "--players", "2", "--games", "1", "--seed", "1")
    assert one.stderr.splitlines() == ["playing 1 game"]
    turns = sabords("simulate", "--card", "coin", "--turns", "20000", "--seed", "1")
    assert turns.exit_code == 0, turns.stderr
    assert turns.stderr.splitlines() == ["playing 20,000 turns"]
