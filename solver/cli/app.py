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

import errno
import functools
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, ParamSpec, TypeVar

import click
import typer

from .. import __version__
from ..advice.inputs import ALL_INPUTS, EXACT, NOTATION, VARIANT, Input
from ..errors import SabordsError, StaleTableError, quote, shorten
from ..rules.rulebook import Rules, rules_with
from .parameters import DIRECTORY, help_through_echo, restore_argument_help
from .streams import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    BrokenPipe,
    OutputError,
    echo,
    prepare_streams,
    print_json,
    say,
    undecodable,
    undecodable_line,
)

if TYPE_CHECKING:
    from ..advice.sources import TablesDirectory
    from ..rules.notation import Notation

EXIT_INTERRUPTED = 130
"""Exit code after Ctrl-C (128 + SIGINT), as shells report it."""
NOTATION_ENV = "SABORDS_NOTATION"
"""Environment variable choosing the default notation (``default`` or ``braille``)."""

P = ParamSpec("P")
R = TypeVar("R")


# -- one line on stderr ------------------------------------------------------------------------


def fail(message: str) -> NoReturn:
    """Print `message` as one line on stderr and exit with code 2."""
    line = " ".join(message.split())
    say(f"sabords: error: {line}")
    raise typer.Exit(EXIT_BAD_INPUT)


FLAGS: dict[str, str] = {
    **{given.name: given.flag for given in ALL_INPUTS
       if not given.positional and given.name != "variant"},
    "jobs": "--jobs",
    "turns": "--turns",
    "games": "--games",
    "seed": "--seed",
    "policy": "--policy",
    "out": "--out",
    "scheduler": "--scheduler",
}
"""The flag of each error subject (:attr:`solver.errors.SabordsError.subject`): the option of
each input (:mod:`solver.advice.inputs`) and of the command line's own settings; subjects not here
(dice, card, variant, move, roll...) are named by the message itself."""

SUBJECT_WORDS: dict[str, str] = {
    "totals": "--me and --opp go together (both totals), --final with them",
    "objective": "--need and --me/--opp are two objectives: give one of them",
}
"""Subjects that are a combination of flags: the command line's own sentence."""


def error_line(exc: SabordsError, flags: dict[str, str] | None = None) -> str:
    """The one line of a library error, its subject worded with this command's flag; a stale
    table with the command that makes it again (:func:`fix_command`)."""
    if isinstance(exc, StaleTableError):
        return f"{exc}; {fix_words(exc)}"
    subject = exc.subject
    if subject in SUBJECT_WORDS:
        return SUBJECT_WORDS[subject]
    flag = {**FLAGS, **(flags or {})}.get(subject or "")
    return f"{flag}: {exc}" if flag else str(exc)


def fix_words(exc: StaleTableError) -> str:
    """What makes the refused table again, as a clause of the refusal: a command the user can
    run where they are (:func:`fix_command`). The committed tables are never overwritten with
    other rules' tables, and an installed package's are reinstalled, not rebuilt."""
    from ..tables.paths import in_checkout, is_committed_dir

    rules: Rules = exc.rules
    directory = Path(exc.path).parent
    players = _players(exc)
    if is_committed_dir(directory) and players not in SHIPPED_PLAYERS:
        return (f"no {players}-player table comes with mille-sabords "
                f"(docs/playing-to-win.md gives what its solve costs): write one with "
                f"`sabords solve-game --players {players}{_variants(rules)} --out DIR` and pass "
                f"--game-tables DIR")
    if is_committed_dir(directory):
        if rules != Rules():
            other = fix_command(exc, "DIR")
            return (f"{directory} holds the committed tables of the default rules: leave out "
                    f"the tables directory to solve these rules on demand (cached), or write "
                    f"them into another directory with `{other}`")
        if not in_checkout():
            return ("the tables installed with mille-sabords do not match it: reinstall "
                    "mille-sabords (with the pip or pipx command that installed it)")
    what = "it" if exc.table.startswith("game") else "the tables"
    return f"run `{fix_command(exc)}` to make {what} again"


def fix_command(exc: StaleTableError, directory: Path | str | None = None) -> str:
    """The command that writes the refused table again into `directory` (default: the folder
    it was read from): `make tables` for the committed tables of a checkout, else `sabords
    solve --all` (turn tables) or `sabords solve-game` (the game table) with the variants of
    its rules (the refusal carries them: a turn table's are its turn rules)."""
    from ..tables.paths import in_checkout, is_committed_dir

    rules: Rules = exc.rules
    where = Path(exc.path).parent if directory is None else directory
    players = _players(exc)
    if (rules == Rules() and is_committed_dir(where) and in_checkout()
            and players in SHIPPED_PLAYERS):
        return "make tables" if players == 2 else f"make tables-{players}p"
    command = ("solve --all" if exc.table == "turn" else "solve-game" if players == 2
               else f"solve-game --players {players}")
    return f"sabords {command}{_variants(rules)} --out {where}"


SHIPPED_PLAYERS = (2, 3)
"""The games whose default tables are committed (and installed): `make tables`, `make
tables-3p`."""


def _players(exc: StaleTableError) -> int:
    return int(exc.table.split("-")[1]) if exc.table.startswith("game-") else 2


def _variants(rules: Rules) -> str:
    return "".join(f" --variant {name}={_shown(value)}"
                   for name, value in rules.non_defaults().items())


def _shown(value: Any) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


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
    last), and so is text the terminal's encoding could not decode (:func:`undecodable`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        restore_argument_help(self)

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
                 "game", "serve", "cache")
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
            fill: dict[str, str] | None = None,
            **kwargs: Any) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Register a command on `app`: library errors become one line and exit code 2 (their
    subjects worded with `flags`, over :data:`FLAGS`), and so does a closed or full stdout.
    Each ``{key}`` of `fill` in the help text (the docstring) is replaced by its value: a
    figure the code computes."""

    def register(func: Callable[P, R]) -> Callable[P, R]:
        for key, value in (fill or {}).items():
            func.__doc__ = (func.__doc__ or "").replace("{" + key + "}", value)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kw: P.kwargs) -> R:
            from .render import cache_warnings_said, unusable_cache

            try:
                with cache_warnings_said():
                    return func(*args, **kw)
            except SabordsError as exc:
                fail(error_line(exc, flags))
            except OutputError as exc:
                fail(f"cannot write the output: {exc}")
            except BrokenPipe:
                raise typer.Exit(EXIT_BROKEN_PIPE) from None
            except OSError as exc:  # a cache directory no directory can be at
                line = unusable_cache(exc)
                if line is not None:
                    fail(line)
                if exc.filename is None:
                    raise
                verb = "cannot write" if exc.errno in _OUTPUT_ERRNOS else "cannot use"
                fail(f"{verb} {str(exc.filename)!r}: {exc.strerror or exc}")

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
            "Read the game table from DIR (game.msgpack for two players, game-N.msgpack for N; "
            "written by `sabords solve-game --out DIR`). Default: the repository's tables/ for "
            "the default rules; for two players, other variants (target, ties...) are solved on "
            "first use and cached (`sabords cache`)."
        ),
    ),
]


def rules_from(variants: list[str] | None) -> Rules:
    """The rules object of the `--variant` options (defaults when none is given)."""
    return rules_with(variants or [])


def solutions_from(tables: Path | None = None, game_tables: Path | None = None
                   ) -> TablesDirectory:
    """The solutions of `--tables` and `--game-tables`, a game solve reported on stderr."""
    from ..advice.sources import TablesDirectory
    from .render import end_progress, game_progress, game_solve_notice

    return TablesDirectory(tables, game_tables, before_game_solve=game_solve_notice,
                           progress=game_progress("solving the game tables"),
                           after_game_solve=lambda _: end_progress())


def notation_from(name: str) -> Notation:
    """The notation of `--notation` (or of $SABORDS_NOTATION)."""
    from ..rules.notation import get_notation

    try:
        return get_notation(name)
    except SabordsError as exc:
        if os.environ.get(NOTATION_ENV) == name:
            fail(f"{NOTATION_ENV}={shorten(name)}: {exc}")
        raise


def describe_rules(rules: Rules) -> str:
    return f"{rules.describe()} (hash {rules.hash})"


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


_OUTPUT_ERRNOS = frozenset(getattr(errno, name) for name in
                           ("EPIPE", "ENOSPC", "EBADF", "EIO", "EDQUOT", "EFBIG")
                           if hasattr(errno, name))
"""The errors of writing to a full, closed or broken output."""


def _stdout_broken() -> int | None:
    """Flush stdout; the error number if that fails (a full disk, a closed pipe)."""
    if sys.stdout is None:
        return None
    try:
        sys.stdout.flush()
    except OSError as exc:
        return exc.errno or errno.EIO
    except ValueError:  # closed
        return None
    return None


def main() -> None:
    """Entry point of the `sabords` console script and of `python -m solver`."""
    # numpy's OpenBLAS starts a thread pool when it is imported: about 60 ms of every cold
    # start (`scripts/bench.py`, advisor section), for nothing, since no command does dense
    # linear algebra. A value set by the user wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    prepare_streams()
    code: int | str | None = 0
    try:
        app(prog_name="sabords")
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt:
        say("")
        code = EXIT_INTERRUPTED
    except OSError as exc:  # the help or the version printed to a full or closed stdout
        if exc.errno not in _OUTPUT_ERRNOS:
            raise
        code = EXIT_BROKEN_PIPE
        if exc.errno != errno.EPIPE:
            say(f"sabords: error: cannot write the output: {exc.strerror}")
            code = EXIT_BAD_INPUT
    broken = _stdout_broken()
    if broken is not None and code != EXIT_BROKEN_PIPE:
        code = EXIT_BROKEN_PIPE
        if broken != errno.EPIPE:
            say("sabords: error: cannot write the output")
            code = EXIT_BAD_INPUT
    if code not in (0, None) and sys.stdout is not None:
        # Nothing more may reach a broken stdout at exit (Python's own flush would print
        # "Exception ignored"): point it at /dev/null.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
    sys.exit(code)


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
    "main",
    "notation_from",
    "option",
    "print_json",
    "rules_from",
    "solutions_from",
    "usage_line",
]
