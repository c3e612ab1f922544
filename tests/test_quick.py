"""The one parser of the answers (`solver/cli/quick.py`): `sabords advise`, `ev`, `score` and
`turn` are read by it alone; typer only draws their help.

What it reads (options anywhere, ``--name=value``, ``--``, a negative argument, repeated lists,
``$SABORDS_NOTATION``), what it refuses (one line each, exit code 2, the command's help named),
that the help typer draws lists exactly the options it reads, and that every route reads a
number alike (the web's too).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from solver.cli import quick
from tests.conftest import assert_one_line_error, run_sabords


def inputs(*args: str) -> dict[str, object]:
    """The body's inputs `args` are read as."""
    parsed = quick.parse(list(args))
    assert parsed is not None, args
    return parsed.given


READ = [
    (("advise", "captain", "kkssscdp"), {"card": "captain", "dice": ["kkssscdp"]}),
    (("advise", "captain", "--json", "kkssscdp"),
     {"card": "captain", "dice": ["kkssscdp"], "json": True}),
    (("advise", "pirate", "3", "monkey", "3", "sword", "2", "coin"),
     {"card": "pirate", "dice": ["3", "monkey", "3", "sword", "2", "coin"]}),
    (("advise", "captain", "kkssscdp", "--top=5"),
     {"card": "captain", "dice": ["kkssscdp"], "top": 5}),
    (("advise", "captain", "kkssscdp", "--top", "5", "--top", "5"),
     {"card": "captain", "dice": ["kkssscdp"], "top": 5}),
    (("advise", "none", "mmmpppsc", "--me", "2000", "--opp", "3500", "--opp", "1000"),
     {"card": "none", "dice": ["mmmpppsc"], "me": 2000, "opp": [3500, 1000]}),
    (("advise", "captain", "--", "-1", "coin"), {"card": "captain", "dice": ["-1", "coin"]}),
    (("advise", "captain", "-1", "coin"), {"card": "captain", "dice": ["-1", "coin"]}),
    (("advise", "none", "kkssscdp", "--me", "-100", "--opp", "0"),
     {"card": "none", "dice": ["kkssscdp"], "me": -100, "opp": [0]}),  # the library judges it
    (("advise", "captain", "kkssscdp", "--chest", "-x"),
     {"card": "captain", "dice": ["kkssscdp"], "chest": "-x"}),
    (("advise", "captain", "kkssscdp", "--tables", "/tmp"),
     {"card": "captain", "dice": ["kkssscdp"], "tables": Path("/tmp")}),
    (("advise", "captain", "kkssscdp", "--", "--help"),
     {"card": "captain", "dice": ["kkssscdp", "--help"]}),
    (("score", "coin", "cccccccc", "--variant", "nine_of_a_kind=set", "--variant", "target=300"),
     {"card": "coin", "dice": ["cccccccc"], "variant": ["nine_of_a_kind=set", "target=300"]}),
    (("score", "-1", "ccccsssd"), {"card": "-1", "dice": ["ccccsssd"]}),
    (("ev",), {}),
    (("ev", "--card", "captain", "--card=sorceress", "--exact"),
     {"card": ["captain", "sorceress"], "exact": True}),
    (("turn", "captain", "--game-tables", "g", "--sudden"),
     {"card": "captain", "game_tables": Path("g"), "sudden": True}),
]


@pytest.mark.parametrize(("args", "expected"), READ, ids=lambda a: " ".join(a)
                         if isinstance(a, tuple) else "")
def test_the_parser_reads_every_form_as_click_would(args: tuple[str, ...],
                                                    expected: dict[str, object]) -> None:
    assert inputs(*args) == expected


REFUSED = [
    (("advise", "captain", "kkssscdp", "--frobnicate"), "No such option '--frobnicate'."),
    (("advise", "captain", "kkssscdp", "--foo"),
     "No such option '--foo'. (Did you mean one of: '--opp', '--top'?)"),
    (("ev", "--exat"), "No such option '--exat'. Did you mean '--exact'?"),
    (("advise", "captain", "kkssscdp", "-x"), "No such option '-x'."),
    (("score", "none", "ccccsssd", "--me", "0"), "No such option '--me'."),
    (("advise", "captain", "kkssscdp", "--need"), "Option '--need' requires an argument."),
    (("advise", "captain", "kkssscdp", "--me", "--opp", "0"),
     "--me needs a value, not the option --opp"),
    (("advise", "captain", "kkssscdp", "--chest", "--help"),
     None),  # help: typer's (it says the same: test below)
    (("advise", "captain", "kkssscdp", "--json=1"), "Option '--json' does not take a value."),
    (("advise", "captain", "kkssscdp", "--top", "5", "--top=6"),
     "--top is given twice, as '5' and '6': give it once"),
    (("advise", "captain", "kkssscdp", "--top", "-1"),
     "Invalid value for '--top': -1 is not in the range x>=0."),
    (("advise", "none", "kkssscdp", "--trigger", "9", "--me", "0", "--opp", "0"),
     "Invalid value for '--trigger': 9 is not in the range 2<=x<=5."),
    (("advise", "captain", "kkssscdp", "--top", "+5"), "Invalid value for '--top': '+5' has"),
    (("advise", "captain", "kkssscdp", "--tables", ""),
     "Invalid value for '--tables': an empty path names no directory"),
    (("advise",), "Missing argument 'CARD'."),
    (("advise", "captain"), "Missing argument 'DICE'."),
    (("turn",), "Missing argument 'CARD'."),
    (("turn", "captain", "kkssscdp"), "Got unexpected extra argument (kkssscdp)"),
    (("ev", "captain", "chest"), "Got unexpected extra arguments (captain chest)"),
]


@pytest.mark.parametrize(("args", "line"), [r for r in REFUSED if r[1] is not None],
                         ids=lambda a: " ".join(a) if isinstance(a, tuple) else "")
def test_a_form_the_parser_refuses_is_one_line(args: tuple[str, ...], line: str) -> None:
    with pytest.raises(quick.UsageProblem):
        quick.parse(list(args))
    assert_one_line_error(run_sabords(*args), line, f"(see 'sabords {args[0]} --help')")


def test_an_undecodable_input_is_refused_in_one_line() -> None:
    # a byte the terminal's encoding could not decode (os.fsdecode's surrogate escape)
    for args, what in [(("advise", "captain", "kk\udcffssscdp"), "DICE"),
                       (("advise", "\udcff", "kkssscdp"), "CARD"),
                       (("advise", "captain", "kkssscdp", "--chest", "\udcff"), "--chest")]:
        assert_one_line_error(run_sabords(*args), f"{what} is not valid")


HELP = [
    ("advise", "captain", "kkssscdp", "--help"),
    ("advise", "-h"),
    ("turn", "--help"),
    ("ev", "-h"),
    ("score", "--help", "none"),
    ("advise", "captain", "kkssscdp", "--chest", "--help"),
    ("winprob", "--me", "0", "--opp", "0"),
    ("--version",),
    (),
]


@pytest.mark.parametrize("args", HELP, ids=lambda a: " ".join(a) or "(nothing)")
def test_typer_answers_only_the_help_and_the_other_commands(args: tuple[str, ...]) -> None:
    assert quick.parse(list(args)) is None


@pytest.mark.parametrize("name", list(quick.FORMS))
def test_the_help_typer_draws_lists_the_options_the_parser_reads(name: str) -> None:
    """The typer command of each answer only draws its help: it must list exactly the
    options and arguments the parser reads, no more, no fewer, their kinds alike."""
    import click
    import typer

    from solver.cli import app

    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    form = quick.FORMS[name]
    options = {flag: p for p in command.params if isinstance(p, click.Option)
               for flag in p.opts if flag not in ("-h", "--help")}
    assert set(options) == set(form.options)
    for flag, (given_input, parameter) in form.options.items():
        param = options[flag]
        assert param.name == ("as_json" if parameter == "json" else parameter)
        assert param.is_flag == (given_input.kind == "flag"), flag
        assert param.multiple == (given_input.kind == "list"), flag
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    assert [p.name for p in arguments] == [a.name for a in form.arguments]
    assert [p.nargs for p in arguments] == [-1 if form.rest and a is form.arguments[-1] else 1
                                            for a in form.arguments]
    result = run_sabords(name, "--help")
    assert result.exit_code == 0
    for flag in form.options:
        assert flag in result.stdout


def test_typer_never_runs_an_answer_itself() -> None:
    """Were typer asked an answer (not through `solver.cli.main`), it says it is not its to
    read instead of answering by a second parser."""
    from typer.testing import CliRunner

    from solver.cli import app

    result = CliRunner().invoke(app, ["score", "none", "ccccsssd"])
    assert isinstance(result.exception, AssertionError)
    assert "solver.cli.quick" in str(result.exception)


def test_the_notation_of_the_environment_is_read() -> None:
    braille = run_sabords("advise", "t", "mmspééeo", env={"SABORDS_NOTATION": "braille"})
    assert braille == run_sabords("advise", "t", "mmspééeo", "--notation", "braille")
    assert braille.exit_code == 0
    # an empty value is no value (as click reads it); --notation wins over the environment
    assert inputs("ev") == {}
    assert run_sabords("score", "none", "ccccsssd", env={"SABORDS_NOTATION": ""}) == \
        run_sabords("score", "none", "ccccsssd")
    assert run_sabords("score", "none", "ccccsssd", "--notation", "default",
                       env={"SABORDS_NOTATION": "braille"}) == \
        run_sabords("score", "none", "ccccsssd")
    assert_one_line_error(run_sabords("score", "none", "ccccsssd",
                                      env={"SABORDS_NOTATION": "morse"}),
                          "SABORDS_NOTATION=morse: unknown notation 'morse'")


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
def test_a_number_the_reader_refuses_is_refused_in_one_line(
        args: tuple[str, ...], text: str) -> None:
    """`--me ٣٠٠`, `--opp 1_000`, `--me +100`, `--me ' 100'` answered as 300, 1000, 100; now
    the answers' parser and typer's other commands refuse them alike, read by the library's
    reader (:func:`solver.errors.read_number`, the web's too)."""
    from solver.errors import quote

    given = [a.replace("{n}", text) for a in args]
    flag = given[given.index(text) - 1]
    assert_one_line_error(run_sabords(*given), f"Invalid value for '{flag}': {quote(text)} "
                          f"{REFUSED_NUMBERS[text]}")


@settings(max_examples=300)
@given(st.one_of(st.text(max_size=6), st.from_regex(r"[-+ ]?[0-9_]{0,21}[ \n]?", fullmatch=True),
                 st.integers().map(str)))
@example("٣٠٠")
@example("-0")
def test_every_route_takes_the_same_numbers(text: str) -> None:
    """The answers' parser, typer's options and the web's query read a number alike: each
    takes exactly the texts :func:`solver.errors.read_number` reads, as the same value."""
    import click

    from solver.advice.inputs import ME, OPP, TOTAL
    from solver.cli.parameters import WholeNumber
    from solver.errors import NumberError, read_number
    from solver.web.params import BadRequest, read_value

    try:
        expected: int | None = read_number(text)
    except NumberError:
        expected = None
    parsed: dict[str, int | None] = {}
    for given_input, flag in ((ME, "--me"), (OPP, "--opp")):
        try:
            parsed[flag] = quick._value(given_input, flag, text)
        except quick.UsageProblem:
            parsed[flag] = None
    assert parsed == {"--me": expected, "--opp": expected}
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
