"""The command line's conventions without typer: one line for every error, the rules and the
notation of the options, and a command's body run under them (:func:`run_command`).

Every command runs its body through :func:`run_command`, whether typer parsed its arguments
(:mod:`.application`) or the answers' parser did (:mod:`.quick`: `advise`, `ev`, `score` and
`turn`, without typer's import): the same errors, worded the same, with the same exit codes.

- every library error (:class:`~solver.errors.SabordsError`) becomes ONE line on stderr and
  exit code 2, never a traceback; the error's ``subject`` is worded with this command's flag
  (:func:`error_line`), since the library names no flag;
- writing to a closed or full standard output is one line (:class:`OutputError`), and a pipe
  closed by its reader (``sabords ev | head``) ends the command quietly.

Pure Python, typer-free: a points answer's start-up path.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..advice.inputs import ALL_INPUTS
from ..errors import SabordsError, StaleTableError, shorten
from ..rules.rulebook import Rules, rules_with
from .streams import EXIT_BAD_INPUT, EXIT_BROKEN_PIPE, BrokenPipe, OutputError, say

if TYPE_CHECKING:
    from ..advice.sources import Tables
    from ..rules.notation import Notation

NOTATION_ENV = "SABORDS_NOTATION"
"""Environment variable choosing the default notation (``default`` or ``braille``)."""


def fail(message: str) -> NoReturn:
    """Print `message` as one line on stderr and exit with code 2."""
    line = " ".join(message.split())
    say(f"sabords: error: {line}")
    raise SystemExit(EXIT_BAD_INPUT)


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
        return f"{stale_words(exc)}; {fix_words(exc)}"
    subject = exc.subject
    if subject in SUBJECT_WORDS:
        return SUBJECT_WORDS[subject]
    flag = {**FLAGS, **(flags or {})}.get(subject or "")
    line = f"{flag}: {exc}" if flag else str(exc)
    # totals that do not say who triggered the final round: the option that says it (the web
    # names its query's parameter)
    if exc.kind != "which_trigger":
        return line
    at = (exc.values or {}).get("at")  # the player at the target: nobody pushed back, most often
    return f"{line}: say who with --trigger N" + (
        "" if at is None else f" (--trigger {at} if nobody was pushed back)")


def stale_words(exc: StaleTableError) -> str:
    """The refusal of a table, about the question asked: four or five players are played
    near-optimally on the table of three, which is the table refused."""
    if exc.players is None:
        return str(exc)
    made = "has not been made" if exc.missing else "is refused"
    return (f"{exc.players} players under {exc.rules.describe()} are played on the "
            f"three-player table of these rules (near-optimal play: there is no "
            f"{exc.players}-player table), which {made} ({exc})")


def making_words(exc: StaleTableError) -> str:
    """What making the refused game table takes, by the cost model of
    :func:`solver.limits.game_cost` ("making it takes about 6 s and 0.5 GB on a 2-core
    machine: "), or nothing (a turn table, a game of more players than the model knows)."""
    from ..limits import game_cost_text

    players = _players(exc)
    if not exc.table.startswith("game"):
        return ""
    return f"making it takes {game_cost_text(exc.rules.target, players)}: "


def fix_words(exc: StaleTableError) -> str:
    """What makes the refused table again, as a clause of the refusal: a command the user can
    run where they are (:func:`fix_command`). The committed tables are never overwritten with
    other rules' tables, and an installed package's are reinstalled, not rebuilt."""
    from ..caches import on_disk
    from ..tables.paths import in_checkout, is_committed_dir

    rules: Rules = exc.rules
    directory = Path(exc.path).parent
    players = _players(exc)
    if is_committed_dir(directory) and players and players not in SHIPPED_PLAYERS:
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
    if on_disk(directory):  # --game-tables or --tables naming a file, not its folder (False
        # where it cannot be told: Path.is_file raises EACCES in a folder one may not read)
        return (f"{directory} is a file, not a folder of tables: name a folder, where "
                f"`{fix_command(exc, 'DIR')}` writes {what}")
    again = "" if exc.missing else " again"
    making = making_words(exc)
    if making:
        return f"{making}run `{fix_command(exc)}`" + ("" if exc.missing else " to make it again")
    return f"run `{fix_command(exc)}` to make {what}{again}"


def fix_command(exc: StaleTableError, directory: Path | str | None = None) -> str:
    """The command that writes the refused table again into `directory` (default: the folder
    it was read from): `make tables` for the committed tables of a checkout, else `sabords
    solve --all` (turn tables) or `sabords solve-game` (the game table) with the variants of
    its rules (the refusal carries them: a turn table's are its turn rules)."""
    from ..tables.paths import in_checkout, is_committed_dir

    rules: Rules = exc.rules
    where = Path(exc.path).parent if directory is None else directory
    players = _players(exc)
    if rules == Rules() and is_committed_dir(where) and in_checkout():
        if exc.table == "turn":
            return "make tables"
        if players in SHIPPED_PLAYERS:
            return SHIPPED_PLAYERS[players]
    command = ("solve --all" if exc.table == "turn" else f"solve-game --players {players}")
    if exc.table.startswith("game") and rules != Rules() and _is_default(where, rules):
        return f"sabords {command}{_variants(rules)}"  # into the cache, where it is read
    return f"sabords {command}{_variants(rules)} --out {where}"


def _is_default(directory: Path | str, rules: Rules) -> bool:
    """`directory` is where `solve-game` writes the game table of `rules` by default (the
    cache's folder of these rules)."""
    from ..tables.paths import game_default_dir

    try:
        return Path(directory).resolve() == game_default_dir(rules).resolve()
    except OSError:  # a folder the system cannot resolve: named
        return False


SHIPPED_PLAYERS = {2: "make tables", 3: "make tables-3p"}
"""The games whose default tables are committed (and installed), and the target that makes
each again in a checkout."""


def _players(exc: StaleTableError) -> int:
    return int(exc.table.split("-")[1]) if exc.table.startswith("game-") else 0


def _variants(rules: Rules) -> str:
    return "".join(f" --variant {name}={_shown(value)}"
                   for name, value in rules.non_defaults().items())


def _shown(value: Any) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def rules_from(variants: list[str] | None) -> Rules:
    """The rules object of the `--variant` options (defaults when none is given)."""
    return rules_with(variants or [])


def solutions_from(tables: Path | None = None, game_tables: Path | None = None
                   ) -> Tables:
    """The solutions of `--tables` and `--game-tables`, a game solve reported on stderr."""
    from ..advice.sources import Tables
    from .render import SolveProgress, game_solve_notice, need_solve_notice

    return Tables(tables, game_tables, before_game_solve=game_solve_notice,
                  before_need_solve=need_solve_notice,
                  progress=SolveProgress("solving the game table"), light=True)


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


OUTPUT_ERRNOS = frozenset(getattr(errno, name) for name in
                           ("EPIPE", "ENOSPC", "EBADF", "EIO", "EDQUOT", "EFBIG")
                           if hasattr(errno, name))
"""The errors of writing to a full, closed or broken output."""


def run_command(body: Callable[[], object], flags: dict[str, str] | None = None) -> None:
    """Run a command's `body` under the conventions of the whole command line (module doc):
    library errors one line and exit code 2 (their subjects worded with `flags`, over
    :data:`FLAGS`), and so a closed or full stdout; a cache warning said once."""
    from .render import cache_warnings_said, unusable_cache

    if sys.stdout is None:  # closed before the start (``>&-``): said before any work is done
        fail("cannot write the output: standard output is closed")
    try:
        with cache_warnings_said():
            body()
    except SabordsError as exc:
        fail(error_line(exc, flags))
    except OutputError as exc:
        fail(f"cannot write the output: {exc}")
    except BrokenPipe:
        raise SystemExit(EXIT_BROKEN_PIPE) from None
    except OSError as exc:  # a cache directory no directory can be at
        line = unusable_cache(exc)
        if line is not None:
            fail(line)
        if exc.filename is None:
            raise
        verb = "cannot write" if exc.errno in OUTPUT_ERRNOS else "cannot use"
        fail(f"{verb} {str(exc.filename)!r}: {exc.strerror or exc}")
