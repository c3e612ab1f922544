"""The turn tables: `sabords solve` writes them, `sabords ev` reads them, `sabords cache`
shows and clears the cache of the variants solved on demand."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..advice.inputs import CARD_LIST
from .answers import cards_named
from .application import (
    DIRECTORY,
    ExactOption,
    JsonOption,
    NotationOption,
    TablesOption,
    VariantOption,
    command,
    describe_rules,
    echo,
    fail,
    option,
    print_json,
    rules_from,
)
from .render import progress_bar

if TYPE_CHECKING:
    from ..caches import CacheEntry

CardsOption = Annotated[list[str] | None, option(CARD_LIST)]


@command("solve")
def solve(
    card: CardsOption = None,
    all_cards: Annotated[bool, typer.Option("--all", help="Solve all 12 cards.")] = False,
    variant: VariantOption = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "--tables",
            metavar="DIR",
            click_type=DIRECTORY,
            help=(
                "Write the tables into DIR (checked for writing before the solve). Default: "
                "the repository's tables/ for the default rules, the cache directory for other "
                "variants."
            ),
        ),
    ] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", metavar="N",
                                 help="Solve the cards in N worker processes at once, at "
                                      "most one per core. Default: every core.")
    ] = None,
    notation: NotationOption = "default",
) -> None:
    """Solve turns for expected points and write their policy tables (one file per card).

    Each table holds every position's value, stop value, best move and the value of every
    keep, certified to 1e-9 points, with a header naming the rules (and their hash) it was
    made for. The files are the same bit for bit on every run and whatever N.

    \b
    Examples:
      sabords solve --all --out tables/          # what `make tables` runs
      sabords solve --card captain --card sorceress --out /tmp/t
      sabords solve --all --variant battle_swords_fill_chest=off --jobs 2
      sabords solve --card g --card m2 --notation braille --out /tmp/t
    """
    from ..limits import check_jobs, check_writable, cores
    from ..rules.rulebook import CARDS
    from ..tables.fileformat import write_compared
    from ..tables.paths import check_output, default_dir
    from ..tables.turn import build_tables, table_path, write_table

    rules = rules_from(variant)
    if all_cards and card:
        fail("give either --card CARD... or --all, not both")
    if not all_cards and not card:
        fail("name the cards to solve with --card CARD (repeatable), or use --all")
    cards = list(CARDS.values()) if all_cards else cards_named(card or [], notation)
    workers = check_jobs(cores() if jobs is None else jobs, len(cards))
    if out is not None:
        check_output(rules, out, "turn")
    directory = check_writable(out if out is not None else default_dir(rules))
    lines = []
    with progress_bar(len(cards), "solving", "card") as advance:
        built = zip(cards, build_tables(cards, rules, n_jobs=workers), strict=True)
        for done, (solved_card, table) in enumerate(built, 1):
            path = table_path(directory, solved_card)
            try:
                change = write_compared(path, partial(write_table, table, directory))
            except OSError as exc:
                fail(f"cannot write the tables into {str(directory)!r}: {exc.strerror}")
            sol = table.solution
            lines.append(
                f"{sol.card:<10} ev {sol.turn_value[0]:8.2f}  sweeps {sol.sweeps:3d}  "
                f"bound {sol.bound:.1e}  {path} ({change})"
            )
            advance(done)
    for line in lines:
        echo(line)
    echo(f"rules  {describe_rules(rules.turn_rules())}")


@command("ev", help_only=True)
def ev(
    card: CardsOption = None,
    variant: VariantOption = None,
    tables: TablesOption = None,
    notation: NotationOption = "default",
    exact: ExactOption = False,
    as_json: JsonOption = False,
) -> None:
    """Optimal expected points of a turn per card, with its bust and Skull Island odds.

    For each card (all 12 by default): the expected points of a turn played to maximise
    them, the probability that it busts, that it goes to Skull Island, and the points each
    opponent loses to it on average (the island's deduction); then the average over the
    35-card deck (`none` is not in the deck). The values are the exact ones rounded; with
    --exact, the exact expected points themselves, as fractions and to 30 digits.

    \b
    Examples:
      sabords ev
      sabords ev --card captain --card sorceress
      sabords ev --exact --card skull2
      sabords ev --variant battle_swords_fill_chest=off --json
      sabords ev --tables /tmp/t --card captain     # from `sabords solve --out /tmp/t`
      sabords ev --notation braille                 # cards by their letters
    """


def _entry(e: CacheEntry) -> dict[str, object]:
    from ..tables.paths import is_current

    players, rules = _held(e)
    return {"path": str(e.path), "kind": e.kind, "size": e.size, "solver_version": e.version,
            "format": e.format, "rules_hash": e.rules_hash, "current": is_current(e),
            "players": players, "rules": rules}


def _held(e: CacheEntry) -> tuple[list[int] | None, str | None]:
    """A table folder's game tables (their players: None for turn tables and numba) and its
    rules in words, read from a table's header (None where none can be read). A user's
    trial: folders named by their rules hash alone could not be told apart."""
    import msgpack

    from ..rules.rulebook import Rules

    if e.kind not in ("turn", "game"):
        return None, None
    tables = [t for t in e.path.glob("*.msgpack") if _bytes(t) is not None]  # (files only)
    players = None
    if e.kind == "game":
        players = sorted(int(m[1]) for t in tables
                         if (m := re.fullmatch(r"game-([0-9]+)\.msgpack", t.name)))
    # a folder's tables share its rules: the smallest, read whole to reach its header (three
    # players at 12000 write about 0.4 GB)
    for table in sorted(tables, key=lambda t: _bytes(t) or 0):
        try:
            with table.open("rb") as f:
                data = f.read(HEADER_READ_LIMIT + 1)
            if len(data) > HEADER_READ_LIMIT:
                break
            payload = msgpack.unpackb(msgpack.unpackb(data)["payload"])
            return players, Rules.from_dict(payload["header"]["rules"]).describe()
        except Exception:  # noqa: BLE001  (a table of another format, or damaged: unnamed)
            continue
    return players, None


HEADER_READ_LIMIT = 64_000_000
"""`sabords cache` reads a table's header to name its rules from tables of at most this many
bytes (a table file is read whole to reach its header)."""


def _bytes(path: Path) -> int | None:
    """The size of a regular file, else None (a folder, a pipe, a device: never read)."""
    import stat

    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _what(e: CacheEntry) -> str:
    """A folder of the cache in words: what it holds, for which players and rules."""
    what = {"turn": "turn tables", "game": "game tables", "numba": "compiled kernels"}[e.kind]
    players, rules = _held(e)
    if e.kind == "turn":
        cards, need = (any(e.path.glob(f"{k}-*.msgpack")) for k in ("turn", "need"))
        what = " and ".join(["turn tables"] * cards + ["the final round's endings"] * need
                            ) or "turn tables (none)"
    if e.kind == "game" and players:
        what += f" of {', '.join(map(str, players))} players"
    elif e.kind == "game" and _empty(e.path):
        what += " (none: an interrupted solve's folder)"
    return what + (f", {rules}" if rules else "")


def _empty(folder: Path) -> bool:
    """Whether a folder holds nothing (False where it cannot be read)."""
    try:
        return not any(folder.iterdir())
    except OSError:
        return False


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


@command("cache")
def cache(
    clear: Annotated[bool, typer.Option(
        "--clear", help="Remove everything the cache holds (tables are solved again when "
        "next needed, numba's kernels compiled again).")] = False,
    prune: Annotated[bool, typer.Option(
        "--prune", help="Remove only the tables of other solver versions or table formats, "
        "which this version never reads.")] = False,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object (the root, each folder, its size) instead of "
        "text.")] = False,
) -> None:
    """Where the caches are, what they hold and their size; --clear or --prune empties them.

    The cache directory is $SABORDS_CACHE_DIR (a leading ~ is the home directory), else
    $XDG_CACHE_HOME/mille-sabords (if it is an absolute path, as the XDG rule says), else
    ~/.cache/mille-sabords. It holds the tables of rules variants solved on demand (a folder
    per kind, solver version, table format and rules hash: turn-... and game-...) and numba's
    compiled kernels (numba/). Nothing else in it is touched. The committed tables of the
    default rules live in the repository's tables/, not here.

    \b
    Examples:
      sabords cache
      sabords cache --prune        # the tables older versions left behind
      sabords cache --clear --json
    """
    from ..caches import cache_entries, cache_root, cache_source, cache_state, remove_entry
    from ..errors import quote
    from ..limits import PATH_LIMIT
    from ..tables.paths import is_current

    if clear and prune:
        fail("give either --clear (everything) or --prune (other versions' tables), not both")
    root = cache_root()
    problem = cache_state(root)
    if problem is not None:
        fail(f"the cache directory {quote(str(root), PATH_LIMIT)} ({cache_source()}) {problem}")
    entries = cache_entries(root)
    removed = [e for e in entries if clear or (prune and not is_current(e))]
    gone = [_entry(e) for e in removed] if as_json else []  # (described before removed)
    for entry in removed:
        try:
            remove_entry(entry)
        except OSError as exc:
            fail(f"cannot remove {str(entry.path)!r}: {exc.strerror}")
    kept = [e for e in entries if e not in removed]
    if as_json:
        print_json({"root": str(root),
                    "entries": [_entry(e) for e in kept],
                    "removed": gone,
                    "size": sum(e.size for e in kept)})
        return
    echo(f"cache    {root}" + ("" if root.is_dir() else "  (not created yet)"))
    for e in kept:
        old = "" if is_current(e) else \
            f"  (solver {e.version}, format {e.format}: not read by this version, --prune)"
        echo(f"  {e.path.name:<40} {_size(e.size):>9}  {_what(e)}{old}")
    echo(f"total    {_size(sum(e.size for e in kept))} in {_folders(len(kept))}")
    if removed:
        echo(f"removed  {_folders(len(removed))}, {_size(sum(e.size for e in removed))}")


def _folders(n: int) -> str:
    return f"{n} folder" + ("" if n == 1 else "s")
