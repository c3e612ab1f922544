"""The `sabords` application: its commands' registration, error handling and shared options.

Every command is registered with :func:`command`, which gives it the conventions of the whole
command line:

- every library error (:class:`~solver.errors.SabordsError`) becomes ONE line on stderr and
  exit code 2, never a traceback; the error's ``subject`` is worded with this command's flag
  (:func:`error_line`), since the library names no flag;
- a usage error (an unknown option, a malformed value) is one line too, its inputs shortened;
- writing to a closed or full standard output is one line (:class:`OutputError`, :func:`echo`),
  and a pipe closed by its reader (``sabords ev | head``) ends the command quietly;
- whatever the streams can carry (:mod:`solver.cli.streams`): characters an encoding lacks
  are printed as their nearest ASCII (``~`` for ``≈``), JSON escapes them; a closed or full
  standard error loses the progress and the messages quietly; input the terminal's encoding
  could not decode is refused in one line;
- an option that takes one value, given twice with two values, is refused ("given twice"),
  as a variant is;
- ``--variant NAME=VALUE`` (repeatable), ``--json`` and ``--notation`` (:data:`VariantOption`,
  :data:`JsonOption`, :data:`NotationOption`) mean the same everywhere.

Start-up time matters (the advisor's cold start): heavy modules (numpy, the engine, tables) are
imported inside the commands that need them, never at the top of a module of this package.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import click
import typer

from .. import __version__
from ..advice.inputs import EXACT, NOTATION, VARIANT, Input
from ..errors import quote, shorten
from .parameters import DIRECTORY, help_through_echo, read_numbers, restore_argument_help
from .streams import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    BrokenPipe,
    OutputError,
    echo,
    print_json,
    undecodable,
    undecodable_line,
)
from .wording import (
    NOTATION_ENV,
    describe_rules,
    error_line,
    fail,
    fix_command,
    fix_words,
    notation_from,
    rules_from,
    run_command,
    solutions_from,
)

P = ParamSpec("P")
R = TypeVar("R")


_QUOTED = re.compile(r"'([^']{61,})'|(\S{61,})")


def _short_usage(message: str) -> str:
    """A usage error with every long quoted input or word shortened (click echoes them)."""
    return _QUOTED.sub(lambda m: repr(shorten(m.group(1))) if m.group(1) is not None
                       else shorten(m.group(2)), message)


# -- the application ---------------------------------------------------------------------------

@contextmanager
def _one_line_usage_errors() -> Iterator[None]:
    """A usage error becomes one line on stderr and exit code 2, like every bad input (the
    help shown for a bare `sabords` is left alone)."""
    try:
        yield
    except click.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            raise
        fail(usage_line(exc))


def usage_line(exc: click.UsageError) -> str:
    """The one line of a usage error (an unknown option, a malformed value), its inputs
    shortened, with the command whose help to see."""
    ctx = getattr(exc, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    # typer adds its "Did you mean" to the same error each time click resolves the command
    message = _REPEATED.sub(r"\1", exc.format_message().replace(_SHIELD, ""))
    return _short_usage(message) + hint


_REPEATED = re.compile(r"( Did you mean [^?]*\?)(?:\1)+")


_NEGATIVE = re.compile(r"-\d")
_SHIELD = "\x00"


class _Command(typer.core.TyperCommand):
    """A command whose arguments may start with a minus and a digit (`'-1 coin'`, a card
    '-1'): they are read as arguments, not as unknown options, so that the library judges
    them. An option's value is never touched (`--me -100` stays the value -100).

    An option of one value given twice with two values is refused (click would keep the
    last), and so is text the terminal's encoding could not decode (:func:`undecodable`).
    Every whole number is read by the library's reader (:func:`read_numbers`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        restore_argument_help(self)
        read_numbers(self)

    def format_arguments(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Nothing: typer's own "Arguments" section lists them (click 8.5 would add a second
        one, "Positional arguments")."""

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        return help_through_echo(super().get_help_option(ctx))

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        takes_value = {name for p in self.params if isinstance(p, click.Option)
                       and not p.is_flag and not p.count for name in p.opts}
        options = {name for p in self.params if isinstance(p, click.Option)
                   for name in (*p.opts, *p.secondary_opts)} | {"-h", "--help"}
        single = {name: p for p in self.params if isinstance(p, click.Option)
                  and not p.multiple and not p.is_flag and not p.count for name in p.opts}
        given: dict[str, str] = {}

        def once(flag: str, value: str) -> None:
            param = single.get(flag)
            if param is None or param.name is None:
                return
            first = given.setdefault(param.name, value)
            if first != value:
                raise click.UsageError(
                    f"{'/'.join(param.opts)} is given twice, as {quote(first)} and "
                    f"{quote(value)}: give it once", ctx)

        shielded: list[str] = []
        previous = ""
        for arg in args:
            if arg == "--":
                shielded.extend(args[len(shielded):])
                break
            if previous in takes_value and arg in options:
                # click would take the option as the value (`--out --all`: a folder "--all")
                raise click.UsageError(f"{previous} needs a value, not the option {arg}", ctx)
            if previous in takes_value:
                once(previous, arg)
            elif arg.startswith("--") and "=" in arg:
                once(*arg.split("=", 1))
            if _NEGATIVE.match(arg) and previous not in takes_value:
                arg = _SHIELD + arg
            shielded.append(arg)
            previous = arg
        rest = super().parse_args(ctx, shielded)
        for key, value in ctx.params.items():
            if isinstance(value, str):
                ctx.params[key] = value.removeprefix(_SHIELD)
            elif isinstance(value, list | tuple):
                ctx.params[key] = type(value)(
                    v.removeprefix(_SHIELD) if isinstance(v, str) else v for v in value)
        for param in self.params:
            value = ctx.params.get(param.name or "")
            texts = value if isinstance(value, list | tuple) else [value]
            if any(isinstance(t, str) and undecodable(t) for t in texts):
                name = param.opts[0] if isinstance(param, click.Option) else \
                    param.human_readable_name
                raise click.UsageError(undecodable_line(name), ctx)
        return rest


COMMAND_ORDER = ("score", "solve", "ev", "advise", "turn", "simulate", "winprob", "solve-game",
                 "game", "review", "serve", "cache")
"""The order of `sabords --help`: the turn, then the game, then the cache."""


class _Group(typer.core.TyperGroup):
    """The `sabords` group, with one-line usage errors for itself and every command."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = super().list_commands(ctx)
        rank = {name: i for i, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda n: rank.get(n, len(rank)))

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        return help_through_echo(super().get_help_option(ctx))

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        with _one_line_usage_errors():
            return super().make_context(*args, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[_ARGS] = list(args)  # what --version checks it came alone
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        with _one_line_usage_errors():
            return super().invoke(ctx)


app = typer.Typer(
    name="sabords",
    cls=_Group,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def command(name: str, *, flags: dict[str, str] | None = None,
            fill: dict[str, str] | None = None, help_only: bool = False,
            **kwargs: Any) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Register a command on `app`: library errors become one line and exit code 2 (their
    subjects worded with `flags`, over :data:`FLAGS`), and so does a closed or full stdout.
    Each ``{key}`` of `fill` in the help text (the docstring) is replaced by its value: a
    figure the code computes.

    `help_only`: typer only draws the command's help (its options, their help, the
    examples); every other form of it is read by the one parser of the answers
    (:mod:`.quick`, run first by :mod:`.main`), so the function is never run."""

    def register(func: Callable[P, None]) -> Callable[P, None]:
        for key, value in (fill or {}).items():
            func.__doc__ = (func.__doc__ or "").replace("{" + key + "}", value)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kw: P.kwargs) -> None:
            if help_only:
                raise AssertionError(f"`sabords {name}` is read by solver.cli.quick: typer "
                                     "only draws its help")
            run_command(lambda: func(*args, **kw), flags)

        app.command(name, cls=_Command, **kwargs)(wrapper)
        return wrapper

    return register


# -- options shared by the commands ------------------------------------------------------------


def option(given: Input, *, more: str = "", **extra: Any) -> Any:
    """The typer option of an input (:mod:`solver.advice.inputs`): its flag, placeholder, range and
    help, with what the command line adds to the help (`more`) and to the option (`extra`)."""
    return typer.Option(given.flag, metavar=given.metavar, help=given.help + more,
                        min=given.minimum, max=given.maximum, **extra)


def argument(given: Input) -> Any:
    """The typer argument of an input (:mod:`solver.advice.inputs`): its placeholder and help."""
    return typer.Argument(metavar=given.metavar, help=given.help, show_default=False)


VariantOption = Annotated[list[str] | None, option(VARIANT)]
ExactOption = Annotated[bool, option(EXACT)]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object (with rules_hash) instead of text.")
]
NotationOption = Annotated[str, option(NOTATION, envvar=NOTATION_ENV, show_envvar=True)]


TablesOption = Annotated[
    Path | None,
    typer.Option(
        "--tables",
        metavar="DIR",
        click_type=DIRECTORY,
        help=(
            "Read the policy tables from DIR (written by `sabords solve --all --out DIR`). "
            "Default: the repository's tables/ for the default rules; other variants are "
            "solved on demand and cached (`sabords cache` shows where)."
        ),
    ),
]
GameTablesOption = Annotated[
    Path | None,
    typer.Option(
        "--game-tables",
        metavar="DIR",
        click_type=DIRECTORY,
        help=(
            "Read the game table from DIR (game-N.msgpack for N players, written by `sabords "
            "solve-game --players N --out DIR`). Default: the repository's tables/ for the "
            "default rules; other variants (target, ties...) are solved on first use and "
            "cached (`sabords cache`) when that takes five minutes or less (every two-player "
            "game, three players at small targets)."
        ),
    ),
]


# -- the root ----------------------------------------------------------------------------------


_ARGS = "sabords.args"
"""Where the group keeps its arguments in the context, for :func:`_show_version`."""


def _show_version(ctx: typer.Context, value: bool) -> None:
    if value:
        others = [arg for arg in ctx.meta.get(_ARGS, []) if arg != "--version"]
        if others:  # `sabords --version extra` printed the version and said nothing of it
            fail(f"--version takes nothing after it, not {quote(' '.join(others))}: run "
                 "sabords --version alone")
        typer.echo(f"sabords {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Mille Sabords: exact scores and optimal play (RULES.md, in the repository, is the
    specification; `docs/seeds/` holds the rule texts it was made from).

    Run `sabords COMMAND --help` for a command's options and examples.

    \b
    Notation, shared by every command:
      dice   one letter per die, k skull, m monkey, p parrot, s sword (or x), c coin,
             d diamond, any order and case ('kkmppscd'); or words, in English, French,
             German or Italian ('skull monkey', 'tête singe', 'Totenkopf Affe', 'teschio
             scimmia'), with counts ('4 coin 3 sword diamond'). Output is letters in the
             order k m p s c d.
      card   none chest captain sorceress coin diamond animals skull1 skull2 battle2
             battle3 battle4, or a rulebook name: pirate, gardienne, coffre, 'ile au
             tresor', piece, animaux, tete2, bateau3, 500, Wächterin, Schatzinsel...
      braille  --notation braille (or SABORDS_NOTATION=braille): the letters of the
             adaptation for blind players, dice m skull, s monkey, p parrot, é (or e)
             sword, o coin, d diamond ('mmsppéod'); cards p t m1 m2 b2 b3 b4 g o d a.
    """


__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERRUPTED",
    "BrokenPipe",
    "ExactOption",
    "GameTablesOption",
    "JsonOption",
    "NotationOption",
    "OutputError",
    "TablesOption",
    "VariantOption",
    "app",
    "DIRECTORY",
    "argument",
    "command",
    "describe_rules",
    "echo",
    "error_line",
    "fail",
    "fix_command",
    "fix_words",
    "notation_from",
    "option",
    "print_json",
    "rules_from",
    "solutions_from",
    "usage_line",
]
