"""The text renderings shared by the commands: values, options, Skull Island, notes, progress.

Each renderer takes library values and yields lines; nothing here decides anything about the
game. Values are shown with one precision per unit everywhere: points with 2 decimals,
probabilities as percentages with 2 decimals, bust risks with 1.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..rules.aims import POINTS
from .streams import say

if TYPE_CHECKING:
    from ..advice.advisor import Advice, Option
    from ..errors import CacheWarning
    from ..game.records import Progress
    from ..game.table import Game
    from ..rules.dice import Dice
    from ..rules.notation import Notation
    from ..rules.notes import Note
    from ..rules.rulebook import Rules
    from ..rules.verdict import IslandNote

SHOWN_OPTIONS = 15
"""Options shown by the text view of `advise` when --top is not given."""


# -- values ------------------------------------------------------------------------------------


def value_text(value: float, probability: bool, *, unit: bool = True) -> str:
    """Expected points (`357.54 expected points`) or a probability (`45.00 %`)."""
    if probability:
        return f"{100 * value:.2f} %"
    return f"{value:.2f}" + (" expected points" if unit else "")


def is_probability(advice: Advice) -> bool:
    return advice.objective != POINTS


def letters_of(dice: Dice, notation: Notation) -> str:
    """The dice as letters of the notation (compact, or spaced in the Braille adaptation's:
    :meth:`~solver.rules.notation.Notation.listed`), '-' for none."""
    return notation.listed(dice) or "-"


def move_text(option: Option, notation: Notation) -> str:
    """'stop' or 'keep sssc, reroll mp' (a skull in the reroll: the Sorceress's)."""
    if option.action == "stop":
        return "stop"
    return f"keep {letters_of(option.keep, notation)}, reroll {notation.listed(option.reroll)}"


# -- notes -------------------------------------------------------------------------------------

CLI_NOTES: dict[str, str] = {
    "chest_ignored": "The dice on the chest only matter on a bust (--chest is ignored here).",
    "chest_unknown": ("With the chest card the dice on the chest (the dice not rolled in the "
                      "last roll) still score: give them with --chest."),
    "island_if_first": ("If these dice are the turn's first roll, this is Skull Island instead "
                        "(add --first)."),
}
"""The notes whose wording names a flag of the command line (the others: the library's)."""


def note_line(note: Note, notation: Notation) -> str:
    """A note worded for the command line (:data:`CLI_NOTES`, else the game-terms text)."""
    from ..rules.notes import note_text

    if note.code in CLI_NOTES:
        return CLI_NOTES[note.code]
    return note_text(note, notation.letters)


# -- Skull Island ------------------------------------------------------------------------------


def island_lines(island: IslandNote, indent: str, expected: str = "expected loss"
                 ) -> Iterator[str]:
    """The expected deduction and the exact distribution of the final skull count, in columns
    as wide as their longest entry."""
    yield (f"each opponent loses {island.cost_per_skull} per skull; {expected} "
           f"{float(island.expected_deduction):.2f} (exactly {island.expected_deduction})")
    exact = [f"{float(p):.6f} ({p})" for _, p in island.distribution]
    width = max(len("probability"), *map(len, exact))
    yield f"{indent}{'final skulls':<14} {'probability':<{width}} each opponent loses"
    for (skulls, _), text in zip(island.distribution, exact, strict=True):
        yield f"{indent}{skulls:<14} {text:<{width}} {island.cost_per_skull * skulls}"


# -- the table of options ----------------------------------------------------------------------


def option_rows(advice: Advice, shown: int, notation: Notation,
                expected: dict[tuple[str, str, str, bool], float] | None = None) -> Iterator[str]:
    """The table of `advise`: rank, move, keep, reroll, value, bust risk, then the regret, or
    with `expected` (the win objective) the expected points of each option."""
    probability = is_probability(advice)
    rows = advice.options[:shown]  # (spaced letters: the dice columns as wide as their rows)
    w = max([9, *(len(letters_of(d, notation)) + 1 for o in rows for d in (o.keep, o.reroll))])
    if expected is None:
        column = "expected" if not probability else f"P(>={advice.need})"
        yield (f"{'#':>3}  {'move':<7} {'keep':<{w}} {'reroll':<{w}} {column:>12} "
               f"{'bust risk':>10} {'regret':>10}")
    else:
        yield (f"{'#':>3}  {'move':<7} {'keep':<{w}} {'reroll':<{w}} {'P(win)':>9} "
               f"{'expected':>9} {'bust risk':>10}")
    for rank, o in enumerate(rows, 1):
        keep, reroll = letters_of(o.keep, notation), letters_of(o.reroll, notation)
        head = f"{rank:>3}  {o.action:<7} {keep:<{w}} {reroll:<{w}} "
        best = "  best" if o.best else ""
        if expected is None:
            regret = f"{100 * o.regret:.2f} pp" if probability else f"{o.regret:.2f}"
            yield (f"{head}{value_text(o.value, probability, unit=False):>12} "
                   f"{100 * o.p_bust:>8.1f} % {regret:>10}{best}")
        else:
            ev = expected.get(option_key(o))
            yield (f"{head}{100 * o.value:>7.2f} % {'' if ev is None else f'{ev:9.1f}':>9} "
                   f"{100 * o.p_bust:>8.1f} %{best}")
    left = len(advice.options) - min(shown, len(advice.options))
    if left:
        yield f"({left} more options left out: --top K shows K, --top 0 all of them)"
    if expected is None and probability:  # a difference of two chances: not a percentage
        yield ("regret in percentage points (pp): the best option's chance minus this "
               "option's")


def option_key(option: Option) -> tuple[str, str, str, bool]:
    """The identity of an option across objectives (the same move: :attr:`Option.key`)."""
    return option.key


# -- progress ----------------------------------------------------------------------------------


def method_lines(game: Game) -> Iterator[str]:
    """How a win answer's game values were made: nothing for an exact table; near-optimal play
    says so in one line, with how far its chances were measured from exact play (or that
    nothing was measured: docs/playing-to-win.md has every figure)."""
    if game.exact:
        return
    yield f"method    {near_optimal_words(game.loss)}"


def near_optimal_words(loss: dict[str, Any] | None) -> str:
    """Near-optimal play in one clause: how far its chances were measured off exact play (in
    normal play and sudden death, and in the final round, whose Skull Islands the estimate
    races less well), and how many fell inside whole games' intervals (the web's
    ``lossWords``)."""
    chances = (loss or {}).get("chances") or {}
    if chances.get("worst") is None:
        return "near-optimal, not exact (not measured)"
    assert loss is not None
    targets: dict[int, list[int]] = {}
    for e in loss["measured"]:
        if e.get("kind") == "exact":
            targets.setdefault(e["players"], []).append(e["target"])
    where = ", ".join(f"{n} players at target {_and(map(str, sorted(set(t))))}"
                      for n, t in sorted(targets.items()))
    words = (f"near-optimal, not exact: chances within {bound(chances['worst'])} percentage "
             f"points of exact play, {mean_points(chances['mean'])} on average")
    final = loss.get("final") or {}
    if final.get("worst") is not None:
        words += (f"; in the final round within {bound(final['worst'])}, "
                  f"{mean_points(final['mean'])} on average")
    words += f" (measured against {where})"
    games = loss.get("games") or {}
    played = [e for e in loss["measured"] if e.get("kind") == "games"]
    if games.get("checked") and played:
        words += (f"; at target {played[0]['target']}, {games['inside']} of {games['checked']} "
                  f"chances inside the 95 % interval of whole games")
    return words


def _and(items: Iterable[str]) -> str:
    """'500', '500 and 2000', '500, 1000 and 2000'."""
    words = list(items)
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def mean_points(p: float) -> str:
    """A mean error `p` (a fraction) in points: to 0.01, and below 0.01 to its first
    significant digit (0.004 points, not "0.00", which reads as none)."""
    import math

    v = 100 * p
    digits = 2 if v >= 0.01 or v <= 0 else max(2, -math.floor(math.log10(v)))
    return f"{v:.{digits}f}"


def bound(p: float) -> str:
    """A bound `p` (a fraction) in points to 0.1, rounded up: 1.45 points off is "within 1.5",
    never "within 1.4" (the web's ``bound``)."""
    import math

    return f"{math.ceil(round(1e9 * p) / 1e6) / 10:.1f}"  # the float's last bits aside


@contextmanager
def progress_bar(length: int, label: str, unit: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr, labelled with what is done and how much (`label` "playing",
    `unit` "game": "playing 4,000 games"); piped into a log, where no bar is drawn, that label
    is the one line written. Yields `advance(done)`, the count done so far."""
    import typer

    words = f"{label} {length:,} {unit}{'' if length == 1 else 's'}"
    with typer.progressbar(length=length, label=words, file=sys.stderr, show_pos=True) as bar:
        done = [0]

        def advance(n: int) -> None:
            bar.update(n - done[0])
            done[0] = n

        yield advance


class SolveProgress:
    """A game solve's progress on stderr (:class:`solver.game.records.Progress`): one line
    redrawn on a terminal (into a log, a line a finished step): the phase, the improvement
    and its blocks, the time it has taken and an estimate of the time it has left; after
    each, the largest change of a value and the moves it changed (two players' value
    iteration: its sweep and residual)."""

    LOG_EVERY = 60.0
    """Into a log, a line of a long improvement's blocks at most this often (seconds)."""

    def __init__(self, label: str = "") -> None:
        self.live = sys.stderr.isatty()
        self.started = time.perf_counter()
        self.label = f"{label}: " if label else ""
        self.logged = self.started

    def __call__(self, p: Progress) -> None:
        from ..game.records import CYCLE, FINAL_ROUND, VALUE_ITERATION

        try:
            if p.step == CYCLE:  # the first line always, then as an improvement's blocks
                now = time.perf_counter()
                if p.done and not self.live and now - self.logged < self.LOG_EVERY:
                    return
                text = (f"{self.label}{p.phase} improvement {p.iteration}: the moves of "
                        f"{p.blocks} states go round in a cycle; settling them one mover at "
                        f"a time, {p.done} evaluations, {p.seconds:.0f} s")
                sys.stderr.write(f"\r{text}   " if self.live else f"{text}\n")
                self.logged = now
            elif p.step == FINAL_ROUND:
                text = (f"{self.label}{p.phase}: {p.changed:,} states solved once, "
                        f"{p.seconds:.1f} s, measured gap {p.change:.1e} "
                        f"({time.perf_counter() - self.started:.0f} s in all)")
                sys.stderr.write(("\r" if self.live else "") + text + "\n")
                self.logged = time.perf_counter()
            elif p.step == VALUE_ITERATION:
                if p.change is None:
                    if self.live:
                        sys.stderr.write(f"\r{self.label}{p.phase} value iteration: sweep "
                                         f"{p.iteration}, {p.seconds:.0f} s   ")
                else:
                    text = (f"{self.label}{p.phase} value iteration: {p.iteration} sweeps, "
                            f"{p.seconds:.1f} s, residual {p.change:.1e}")
                    sys.stderr.write(("\r" if self.live else "") + text + "\n")
            elif p.change is None:
                now = time.perf_counter()
                if not self.live and now - self.logged < self.LOG_EVERY:
                    return
                rate = p.seconds / p.done if p.done else 0.0
                left = rate * (p.blocks - p.done)
                text = (f"{self.label}{p.phase} improvement {p.iteration}: block {p.done} of "
                        f"{p.blocks}, {p.seconds:.0f} s, about {left:.0f} s left")
                sys.stderr.write(f"\r{text}   " if self.live else f"{text}\n")
                self.logged = now
            else:
                text = (f"{self.label}{p.phase} improvement {p.iteration}: {p.seconds:.1f} s, "
                        f"largest change {p.change:.1e}, moves changed at {p.changed} states "
                        f"({time.perf_counter() - self.started:.0f} s in all)")
                sys.stderr.write(("\r" if self.live else "") + text + "\n")
                self.logged = time.perf_counter()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed or full stderr: the solve goes on quietly
            pass


def end_progress() -> None:
    """End the redrawn progress line on a terminal (a log already has whole lines)."""
    if sys.stderr.isatty():
        sys.stderr.write("\n")


CACHE_LINES = 32
"""The most distinct lines of cache warnings a command keeps to say at its end (a solve of
hours warned of at every block keeps a few lines)."""


class _CacheWarnings:
    """The cache warnings of one command, gathered to be said once each at its end: the tables
    not cached by directory and reason (one line each), the other warnings once each, at most
    :data:`CACHE_LINES` lines. Nothing else is kept: every other warning is shown as it
    comes."""

    def __init__(self) -> None:
        self.tables: dict[tuple[str, str], set[str]] = {}  # (directory, reason): files
        self.lines: dict[str, None] = {}
        self.unusable: set[str] = set()
        """Cache directories already said to be unusable (:func:`cache_warning`): what could
        not be written inside them goes without saying."""

    def add(self, message: CacheWarning) -> None:
        if any(message.path.startswith(root + os.sep) for root in self.unusable):
            return
        if message.path.endswith(".msgpack"):
            path = Path(message.path)
            key = (str(path.parent), message.reason)
            if key in self.tables or len(self.tables) + len(self.lines) < CACHE_LINES:
                self.tables.setdefault(key, set()).add(path.name)
        elif len(self.tables) + len(self.lines) < CACHE_LINES:
            self.lines[str(message)] = None

    def said(self) -> Iterator[str]:
        yield from self.lines
        for (directory, reason), names in self.tables.items():
            yield (f"the table {str(Path(directory) / min(names))!r} could not be cached: "
                   f"{reason}; every run solves it again" if len(names) == 1
                   else f"{len(names)} tables could not be cached in {directory!r}: {reason}; "
                   "every run solves them again")


@contextmanager
def cache_warnings_said() -> Iterator[None]:
    """What the library could not keep in the cache (:class:`solver.errors.CacheWarning`: a
    full or read-only disk) said on stderr, once each, after the answer (which stands); every
    other warning is shown as it comes, as Python shows it, and never kept: a solve of hours
    warned of at every block holds no memory for it, and ends when its work ends."""
    from ..errors import CacheWarning

    global _gathering
    gathered, outer = _CacheWarnings(), _gathering
    _gathering = gathered
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", CacheWarning)
            shown = warnings.showwarning  # Python's, or the hook of whoever runs the command

            def show(message: Warning | str, category: type[Warning], filename: str,
                     lineno: int, file: TextIO | None = None, line: str | None = None) -> None:
                if isinstance(message, CacheWarning):
                    gathered.add(message)
                else:
                    shown(message, category, filename, lineno, file, line)

            warnings.showwarning = show
            yield
    finally:
        _gathering = outer
        for line in gathered.said():
            say(f"sabords: warning: {line}")


_gathering: _CacheWarnings | None = None
"""The cache warnings of the command running (:func:`cache_warnings_said`), if any."""


def unusable_cache(exc: OSError) -> str | None:
    """If `exc` is the system refusing to look inside the cache directory at all (a path too
    long for the file system, a loop of symbolic links: :func:`solver.caches.cache_state`),
    the refusal's line, which names the directory and the variable that set it; else None."""
    from ..caches import cache_root, cache_source, cache_state, unusable_path
    from ..errors import quote
    from ..limits import PATH_LIMIT

    root = cache_root()
    if unusable_path(exc) is None or not str(exc.filename or "").startswith(str(root)):
        return None
    problem = cache_state(root) or unusable_path(exc)
    return f"the cache directory {quote(str(root), PATH_LIMIT)} ({cache_source()}) {problem}"


def cache_warning(files: Iterable[Path]) -> bool:
    """Before a table is solved on demand into the cache: whether it will be cached there (or
    is already, or is not the cache's). If the cache cannot hold it (not a directory, not
    writable: :func:`solver.caches.cache_problem`), a warning on stderr says so, since every
    run will then solve it again; False."""
    from ..caches import cache_problem, cache_root, cache_source, on_disk

    root = cache_root()
    missing = [f for f in files if root in f.parents and not on_disk(f)]
    if not missing:
        return True
    problem = cache_problem(root)
    if problem is None:
        return True
    say(f"sabords: warning: {problem} (set by {cache_source()}); what is solved now is not "
        "cached, and every run solves it again")
    if _gathering is not None:
        _gathering.unusable.add(str(root))
    return False


def turn_cache_warning(rules: Rules, cards: Iterable[str], directory: Path | None) -> None:
    """:func:`cache_warning` for the turn tables of `cards` read from the default directory
    (`directory` None): the cache's for rules other than the default ones."""
    if directory is not None:
        return
    from ..tables.paths import default_dir

    where = default_dir(rules)
    cache_warning([where / f"turn-{card}.msgpack" for card in cards])


def game_solve_notice(rules: Rules, players: int) -> None:
    """Before a game table is solved (not read): what the solve will take (the cost model's
    figure) and whether it will be cached (:func:`cache_warning`), on stderr."""
    from ..limits import COMPILE_SECONDS, game_cost_text
    from ..tables.game import game_table_path
    from ..tables.paths import game_default_dir

    cached = cache_warning([game_table_path(game_default_dir(rules), players)])
    compiling = compiling_words(COMPILE_SECONDS)
    say(f"solving the {players_words(players)} game for {rules.describe()}: "
        f"{game_cost_text(rules.target, players)}" + (", once (then cached)" if cached else "")
        + compiling)


def compiling_words(seconds: float) -> str:
    """What a notice adds where numba's cache lacks the kernels a solve runs (else nothing):
    once, or on every run where numba's cache cannot be written (a user's trial: "once"
    beside a cache that could not keep them)."""
    from ..engine.kernel import kernels_cached
    from ..limits import duration_words

    if kernels_cached():
        return ""
    return (f"; before it, numba compiles the solver's kernels: about "
            f"{duration_words(seconds)}, "
            + ("once" if _numba_cache_writable() else
               "on every run (numba's cache cannot be written)"))


def _numba_cache_writable() -> bool:
    """Whether numba can keep its compiled kernels: in ``NUMBA_CACHE_DIR`` where the user set
    it (its nearest existing folder writable), else in this cache (:func:`~solver.caches.
    cache_problem`)."""
    from ..caches import cache_problem

    given = os.environ.get("NUMBA_CACHE_DIR")
    if given is None:  # (set to this cache by the kernel, solver/engine/kernel.py)
        return cache_problem() is None
    if not given:  # numba's own places (beside the package): not known here
        return True
    try:
        folder = Path(given).absolute()  # (as numba reads it: no ~, no spaces stripped)
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)
    except OSError:  # a name too long, a folder that cannot be looked into: not known
        return True


def need_solve_notice(rules: Rules, n_dice: int) -> None:
    """Before the final round's endings of four and five players are solved (not read): what
    it takes, and numba's compiling first where its cache lacks the kernels, on stderr (a
    first answer for four or five players took 11.4 s in silence: :data:`solver.limits.
    NEED_COMPILE_SECONDS`)."""
    from ..limits import NEED_COMPILE_SECONDS, NEED_SECONDS, duration_words
    from ..tables.need import need_path

    cached = cache_warning([need_path(rules, n_dice)])
    compiling = compiling_words(NEED_COMPILE_SECONDS)
    say(f"solving the final round of four and five players for "
        f"{rules.turn_rules().describe()}: about "
        f"{duration_words(NEED_SECONDS)}" + (", once (then cached)" if cached else "")
        + compiling)


def players_words(players: int) -> str:
    """'two-player', 'three-player'... (the game of that many)."""
    return {2: "two", 3: "three", 4: "four", 5: "five"}.get(players, str(players)) + "-player"


__all__ = [
    "CLI_NOTES",
    "SHOWN_OPTIONS",
    "cache_warning",
    "end_progress",
    "SolveProgress",
    "game_solve_notice",
    "need_solve_notice",
    "players_words",
    "island_lines",
    "letters_of",
    "move_text",
    "note_line",
    "option_key",
    "option_rows",
    "progress_bar",
    "turn_cache_warning",
    "value_text",
]
