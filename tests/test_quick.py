"""The quick path (`solver/cli/quick.py`) answers as typer does, byte for byte.

Every form below is run both ways in this process: through the quick path, and through the
typer application (the path every other test of the command line takes). Same stdout, same
stderr, same exit code: the answers, the one-line errors (a bad card, dice, a need that is not
points, totals without an opponent, a chest on the wrong card...) and the Braille notation.
The forms the quick path leaves to typer (help, `--name=value`, an unknown option, a number
out of range...) are checked to be left (`parse` gives None), so that typer answers them.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from solver.cli import quick
from tests.conftest import CliResult, run_sabords


def run_quick(*args: str, env: dict[str, str | None] | None = None,
              input: str | None = None) -> CliResult | None:
    """`sabords ARGS` by the quick path in an isolated stdout and stderr, `input` on its
    standard input (None: it left them to typer)."""
    with CliRunner().isolation(input=input, env=env) as (out, err, _):
        try:
            if not quick.answer(list(args)):
                return None
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        return CliResult(code, out.getvalue().decode(), err.getvalue().decode())


ANSWERED = [
    ("advise", "captain", "kkssscdp"),
    ("advise", "chest", "kkmpsssc", "--json"),
    ("advise", "sorceress", "kkmmppsc", "--sorceress-used", "--top", "5"),
    ("advise", "sorceress", "kkkmmpsc"),
    ("advise", "sorceress", "kkkmmpsc", "--top", "0", "--json"),
    ("advise", "captain", "kkkkmmpc", "--first"),
    ("advise", "chest", "kkkcccdm", "--chest", "cccd"),
    ("advise", "pirate", "3", "monkey", "3", "sword", "2", "coin"),
    ("advise", "captain", "--json", "kkssscdp"),  # an option between the arguments
    ("advise", "t", "mmspééeo", "--notation", "braille"),
    ("advise", "none", "ccccmmpk", "--need", "1000"),
    ("advise", "none", "mmmpppsc", "--me", "2000", "--opp", "5500"),
    ("advise", "none", "mmmpppsc", "--me", "2000", "--opp", "3500", "--opp", "1000"),
    ("advise", "captain", "ccmmmspk", "--me", "4000", "--opp", "6200", "--final"),
    ("advise", "skull2", "kkkkkkkk"),
    ("advise", "battle4", "ssssmmpk", "--json", "--top", "3"),
    ("score", "none", "ccccsssd"),
    ("score", "chest", "kkkcccdm", "--chest", "cccd"),
    ("score", "captain", "kkkkmmpc", "--first", "--json"),
    ("score", "coin", "cccccccc", "--variant", "nine_of_a_kind=set"),
    ("score", "p", "ssséééoo", "--notation", "braille"),
    ("ev",),
    ("ev", "--card", "captain", "--card", "sorceress"),
    ("ev", "--exact", "--card", "skull2"),
    ("ev", "--json"),
    ("ev", "--notation", "braille"),
    # errors, one line each and exit code 2, worded as typer's commands word them
    ("advise", "captian", "kkssscdp"),
    ("advise", "captain", "kkssscd"),
    ("advise", "captain", "kkssscdq"),
    ("advise", "none", "ccccmmpk", "--need", "150"),
    ("advise", "none", "ccccmmpk", "--me", "100"),
    ("advise", "captain", "kkssscdp", "--sorceress-used"),
    ("advise", "captain", "kkssscdp", "--chest", "cc"),
    ("advise", "none", "ccccmmpk", "--need", "1000", "--me", "0", "--opp", "0"),
    ("advise", "none", "ccccmmpk", "--notation", "morse"),
    ("score", "none", "ccccsss"),
    ("score", "none", "ccccsssd", "--variant", "nine_of_a_kind=maybe"),
    ("ev", "--card", "joker"),
]


@pytest.mark.parametrize("args", ANSWERED, ids=" ".join)
def test_the_quick_path_answers_as_typer_does(args: tuple[str, ...]) -> None:
    quick_result = run_quick(*args)
    assert quick_result is not None, f"the quick path left `{' '.join(args)}` to typer"
    assert quick_result == run_sabords(*args)


TURNS = [
    (("turn", "chest"), "kkmpsssc\n\ncs\nstop\n"),
    (("turn", "captain"), "kkssscdp\nhelp\n2\nkp\nundo\nmm\nstop\n"),
    (("turn", "sorceress", "--need", "1500"), "kkkmmpsc\n\nmps\n\n\n\nquit\n"),
    (("turn", "chest", "--json"), "kkmpsssc\nstop\n"),
    (("turn", "p", "--notation", "braille"), "mmspééeo\nstop\n"),
    (("turn", "none", "--me", "2000", "--opp", "5500"), "mmmpppsc\nstop\n"),
    (("turn", "captain"), "kkssscdp\n"),  # the input ends mid-turn: exit code 2
    (("turn", "captian"), ""),
    (("turn", "chest"), "\ufeffkkmpsssc\nstop\n"),  # a file saved with a byte-order mark
]


@pytest.mark.parametrize(("args", "lines"), TURNS, ids=lambda x: " ".join(x)
                         if isinstance(x, tuple) else repr(x))
def test_a_turn_goes_the_same_by_the_quick_path(args: tuple[str, ...], lines: str) -> None:
    quick_result = run_quick(*args, input=lines)
    assert quick_result is not None
    assert quick_result == run_sabords(*args, input=lines)
    assert quick_result.stdout or quick_result.stderr


LEFT = [
    ("advise", "captain", "kkssscdp", "--help"),
    ("advise", "-h"),
    ("advise", "captain", "kkssscdp", "--top=5"),
    ("advise", "captain", "kkssscdp", "--top", "-1"),
    ("advise", "captain", "kkssscdp", "--top", "+5"),
    ("advise", "captain", "kkssscdp", "--top", "5", "--top", "5"),
    ("advise", "captain", "kkssscdp", "--need"),
    ("advise", "captain", "kkssscdp", "--chest", "-x"),
    ("advise", "captain", "kkssscdp", "--tables", "/tmp"),
    ("advise", "captain", "kkssscdp", "--frobnicate"),
    ("advise", "captain", "--", "-1", "coin"),
    ("advise", "captain"),
    ("score", "-1", "ccccsssd"),
    ("ev", "captain"),
    ("ev", "--help"),
    ("winprob", "--me", "0", "--opp", "0"),
    ("turn", "captain", "--tables", "/tmp"),
    ("turn", "captain", "kkssscdp"),
    ("--version",),
    (),
]


@pytest.mark.parametrize("args", LEFT, ids=lambda a: " ".join(a) or "(nothing)")
def test_the_quick_path_leaves_the_rest_to_typer(args: tuple[str, ...]) -> None:
    assert quick.parse(list(args)) is None


def test_the_notation_of_the_environment_is_left_to_typer() -> None:
    # click reads SABORDS_NOTATION (an empty value too): the quick path does not guess
    assert run_quick("advise", "captain", "kkssscdp", env={"SABORDS_NOTATION": "braille"}) \
        is None
    assert run_quick("advise", "captain", "kkssscdp", env={"SABORDS_NOTATION": None}) \
        is not None


def test_the_check_can_fail() -> None:
    # the comparison sees a difference where there is one: another card's answer
    assert run_quick("advise", "captain", "kkssscdp") != run_sabords("advise", "none",
                                                                      "kkssscdp")


# -- one reader of numbers: the same digits taken and refused by every route ---------------

REFUSED_NUMBERS = {"٣٠٠": "is not written with the digits 0-9",
                   "1_000": "is not a whole number written with the digits 0-9",
                   "+100": "has a plus sign", " 100": "has spaces or line breaks around it",
                   "\n6000": "has spaces or line breaks around it",
                   "6000\r\n": "has spaces or line breaks around it",
                   "1" * 101: "has more than 100 digits"}
"""Numbers `int()` reads and a person's input is not (issue 39: click took them all)."""


@pytest.mark.parametrize("text", list(REFUSED_NUMBERS), ids=repr)
@pytest.mark.parametrize("args", [
    ("advise", "none", "mmmpppsc", "--me", "{n}", "--opp", "0"),
    ("advise", "none", "mmmpppsc", "--me", "0", "--opp", "{n}"),
    ("advise", "none", "ccccmmpk", "--need", "{n}"),
    ("advise", "captain", "kkssscdp", "--top", "{n}"),
    ("turn", "none", "--me", "{n}", "--opp", "0"),
    ("winprob", "--me", "{n}", "--opp", "0"),
    ("winprob", "--me", "0", "--opp", "0", "--opp", "{n}"),
    ("simulate", "--turns", "{n}"),
    ("game", "--games", "{n}"),
], ids=lambda a: " ".join(a))
def test_a_number_the_reader_refuses_is_refused_by_both_routes_in_one_line(
        args: tuple[str, ...], text: str) -> None:
    """`--me ٣٠٠`, `--opp 1_000`, `--me +100`, `--me ' 100'` answered as 300, 1000, 100; now
    both routes refuse them: the quick path leaves them to typer, whose integers are read by
    the library's reader (:func:`solver.errors.read_number`, the web's too)."""
    from solver.errors import quote
    from tests.conftest import assert_one_line_error

    given = [a.replace("{n}", text) for a in args]
    flag = given[given.index(text) - 1]
    assert quick.parse(given) is None
    assert_one_line_error(run_sabords(*given), f"Invalid value for '{flag}': {quote(text)} "
                          f"{REFUSED_NUMBERS[text]}")


@settings(max_examples=300)
@given(st.one_of(st.text(max_size=6), st.from_regex(r"[-+ ]?[0-9_]{0,21}[ \n]?", fullmatch=True),
                 st.integers().map(str)))
@example("٣٠٠")
@example("-0")
def test_every_route_takes_the_same_numbers(text: str) -> None:
    """The quick path, typer's options and the web's query read a number alike: each takes
    exactly the texts :func:`solver.errors.read_number` reads, as the same value."""
    import click

    from solver.advice.inputs import ME, OPP, TOTAL
    from solver.cli.parameters import WholeNumber
    from solver.errors import NumberError, read_number
    from solver.web.params import BadRequest, read_value

    try:
        expected: int | None = read_number(text)
    except NumberError:
        expected = None
    assert quick._value(ME, text) == expected and quick._value(OPP, text) == expected
    try:
        typed: int | None = WholeNumber().convert(text, None, None)
    except click.BadParameter:
        typed = None
    assert typed == expected
    try:
        web: int | None = read_value(ME, text)
        assert read_value(TOTAL, [text]) == [web]
    except BadRequest as exc:
        assert exc.kind == "not_a_whole_number"
        web = None
    assert web == expected
