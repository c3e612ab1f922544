"""Policy tables: a card's solved turn (expected-points objective) on disk, in msgpack.

One file per card, ``turn-<card>.msgpack``. The file is a msgpack map
``{"format": FORMAT_VERSION, "checksum": "sha256:<hex>", "payload": <bytes>}`` where the
checksum is the SHA-256 of ``payload``, itself a packed msgpack map:

- ``header``: ``format``, ``solver_version``, ``card``, ``rules`` (the turn rules object as a
  dict: the game-level variants ``target`` and ``ties`` do not change a turn, so they are at
  their defaults, :meth:`solver.rules.Rules.turn_rules`), ``rules_hash`` (its hash),
  ``objective``, ``n_dice``;
- ``solve``: ``sweeps``, ``residual``, ``bound`` (the certified bound on every value);
- ``stats``: ``ev``, ``p_bust``, ``p_island``, ``island_deduction`` and their ``bound``
  (:mod:`solver.stats`);
- ``arrays``: ``first_value``, ``turn_value``, ``stop_value`` and, per world (``used``, and
  ``unused`` for the Sorceress), ``value``, ``keep_value``, ``policy``, ``sorceress``: every
  array of :class:`solver.engine.TurnSolution`, each as ``{"dtype", "shape", "data"}`` with
  the raw little-endian bytes, so a round trip is exact to the bit.

Keys are sorted and nothing depends on the time or the machine: the same rules give the same
bytes. Loading checks the format version, the checksum, the card and the rules hash, and
refuses anything else with a :class:`StaleTableError` (one line: the file and the fix).

Where tables come from (:func:`turn_table`): an explicit directory (``--tables DIR``) is used
as is; otherwise the default rules read the committed tables of the repository
(``tables/``, made by ``make tables``), and any other variant is solved on demand and cached
under the user's cache directory (``$SABORDS_CACHE_DIR``, else
``$XDG_CACHE_HOME/mille-sabords``, else ``~/.cache/mille-sabords``), keyed by the format
version and the turn rules hash.

This module imports no joblib or scipy on the loading path (the advisor's cold start).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
from numpy.typing import NDArray

from . import __version__
from .engine import (
    USED,
    WORLD_NAMES,
    ExpectedPoints,
    FloatArray,
    TurnSolution,
    WorldSolution,
    payoff_for,
    solve_payoff,
    turn_model,
)
from .rules import Card, Rules, RulesError, get_card
from .scoring import Outcome
from .stats import TurnStats, turn_stats

FORMAT_VERSION = 1
"""Bumped whenever the layout of a table file changes; older files are refused."""
CACHE_ENV = "SABORDS_CACHE_DIR"
"""Environment variable overriding the cache directory of on-demand tables."""
OBJECTIVE = ExpectedPoints()
"""Tables hold the expected-points solution (the other objectives are solved when needed)."""


class StaleTableError(RulesError):
    """A policy table that is missing, corrupt, or made for other rules or another format."""


@dataclass(frozen=True)
class TurnTable:
    """A card's solved turn as stored in a table: the solution, stop values and statistics."""

    solution: TurnSolution
    stop_value: FloatArray
    """(n_full, 1): the points of stopping at each position; NaN where stopping is not
    allowed (3 or more skulls)."""
    stats: TurnStats
    solver_version: str
    """The solver version that made the table."""

    @property
    def card(self) -> str:
        return self.solution.card

    @property
    def rules(self) -> Rules:
        """The turn rules the table was made for (game-level variants at their defaults)."""
        return self.solution.rules


# -- building ----------------------------------------------------------------------------------


def build_table(card: Card | str, rules: Rules) -> TurnTable:
    """Solve one card's turn for expected points, with its stop values and statistics."""
    turn = rules.turn_rules()
    model = turn_model(card, turn)
    payoff = payoff_for(model, OBJECTIVE)
    solution = solve_payoff(model, payoff, OBJECTIVE.key())
    alive = np.array([o is Outcome.ALIVE for o in model.outcome[USED]])
    return TurnTable(
        solution=solution,
        stop_value=np.where(alive[:, None], payoff.stop, np.nan),
        stats=turn_stats(solution),
        solver_version=__version__,
    )


def build_tables(
    cards: Sequence[Card | str], rules: Rules, *, n_jobs: int = 1
) -> Iterator[TurnTable]:
    """Build the tables of `cards` in order, in parallel with joblib when `n_jobs` != 1.

    Every card is solved by the same code in whichever process, so the tables are the same
    bit for bit whatever the number of workers.
    """
    if n_jobs == 1 or len(cards) <= 1:
        for card in cards:
            yield build_table(card, rules)
        return
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_jobs, return_as="generator")
    yield from parallel(delayed(build_table)(card, rules) for card in cards)


# -- bytes ------------------------------------------------------------------------------------


def pack_array(array: NDArray[Any]) -> dict[str, Any]:
    a = np.ascontiguousarray(array)
    little = a.astype(a.dtype.newbyteorder("<"), copy=False)
    return {"data": little.tobytes(), "dtype": little.dtype.str, "shape": list(a.shape)}


def unpack_array(entry: dict[str, Any]) -> NDArray[Any]:
    shape: tuple[int, ...] = tuple(int(n) for n in entry["shape"])
    return np.frombuffer(entry["data"], dtype=np.dtype(entry["dtype"])).reshape(shape)


def _sorted(obj: Any) -> Any:
    """The same data with every map's keys in sorted order (deterministic bytes)."""
    if isinstance(obj, dict):
        return {k: _sorted(obj[k]) for k in sorted(obj)}
    if isinstance(obj, list | tuple):
        return [_sorted(x) for x in obj]
    return obj


def pack_table(table: TurnTable) -> bytes:
    """The bytes of a table file (deterministic: the same table gives the same bytes)."""
    sol = table.solution
    turn = sol.rules.turn_rules()
    header = {
        "card": sol.card,
        "format": FORMAT_VERSION,
        "n_dice": sol.n_dice,
        "objective": list(sol.objective),
        "rules": turn.as_dict(),
        "rules_hash": turn.hash,
        "solver_version": table.solver_version,
    }
    worlds = {
        WORLD_NAMES[w]: {
            "keep_value": pack_array(ws.keep_value),
            "policy": pack_array(ws.policy),
            "sorceress": pack_array(ws.sorceress),
            "value": pack_array(ws.value),
        }
        for w, ws in sol.worlds.items()
    }
    stats = table.stats
    payload = {
        "arrays": {
            "first_value": pack_array(sol.first_value),
            "stop_value": pack_array(table.stop_value),
            "turn_value": pack_array(sol.turn_value),
            "worlds": worlds,
        },
        "header": header,
        "solve": {"bound": sol.bound, "residual": sol.residual, "sweeps": sol.sweeps},
        "stats": {**stats.as_dict(), "bound": stats.bound},
    }
    return pack_envelope(payload)


def unpack_table(data: bytes, *, source: str, card: Card | str, rules: Rules,
                 fix: str) -> TurnTable:
    """Read table bytes, refusing them unless they are intact and made for `card`, `rules`.

    `source` names the file and `fix` the way to regenerate it, in the error message.
    """
    card_id = get_card(card).id
    turn = rules.turn_rules()

    def refuse(why: str) -> StaleTableError:
        return StaleTableError(f"policy table {source}: {why}; {fix}")

    payload = open_envelope(data, source=source, fix=fix, kind="policy table")
    try:
        header = payload["header"]
        if header["card"] != card_id:
            raise refuse(f"made for card {header['card']!r}, not {card_id!r}")
        if header["rules_hash"] != turn.hash or header["rules"] != turn.as_dict():
            raise refuse(
                f"made for other rules (hash {header['rules_hash']}, these rules have "
                f"{turn.hash})"
            )
        return _table_of(payload, turn)
    except StaleTableError:
        raise
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        raise refuse("incomplete table (a field is missing or malformed)") from None


def _table_of(payload: dict[str, Any], rules: Rules) -> TurnTable:
    header, arrays, solve = payload["header"], payload["arrays"], payload["solve"]
    worlds = {
        WORLD_NAMES.index(name): WorldSolution(
            value=unpack_array(w["value"]),
            keep_value=unpack_array(w["keep_value"]),
            policy=unpack_array(w["policy"]),
            sorceress=unpack_array(w["sorceress"]),
        )
        for name, w in arrays["worlds"].items()
    }
    solution = TurnSolution(
        card=header["card"],
        rules=rules,
        objective=tuple(header["objective"]),
        worlds=dict(sorted(worlds.items())),
        first_value=unpack_array(arrays["first_value"]),
        turn_value=unpack_array(arrays["turn_value"]),
        sweeps=solve["sweeps"],
        residual=solve["residual"],
        bound=solve["bound"],
        n_dice=header["n_dice"],
    )
    stats = payload["stats"]
    return TurnTable(
        solution=solution,
        stop_value=unpack_array(arrays["stop_value"]),
        stats=TurnStats(
            ev=stats["ev"],
            p_bust=stats["p_bust"],
            p_island=stats["p_island"],
            island_deduction=stats["island_deduction"],
            bound=stats["bound"],
        ),
        solver_version=header["solver_version"],
    )


# -- files and directories ----------------------------------------------------------------------


def table_path(directory: Path | str, card: Card | str) -> Path:
    """The file of `card`'s table in `directory`."""
    return Path(directory) / f"turn-{get_card(card).id}.msgpack"


def repo_tables_dir() -> Path:
    """The repository's `tables/` directory (committed tables of the default rules)."""
    return Path(__file__).resolve().parent.parent / "tables"


def cache_root() -> Path:
    """The user cache directory of on-demand tables (see the module docstring)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mille-sabords"


def cache_key(kind: str, rules_hash: str) -> str:
    """The cache folder name: the solver version (a new solver may break ties or round
    differently), the format version and the rules hash."""
    return f"{kind}-{__version__}-v{FORMAT_VERSION}-{rules_hash}"


def cache_dir(rules: Rules) -> Path:
    """Where the on-demand tables of `rules` are cached (see :func:`cache_key`)."""
    return cache_root() / cache_key("turn", rules.turn_hash)


def default_dir(rules: Rules) -> Path:
    """Where the tables of `rules` live without `--tables`: the repository's for the default
    rules, the cache's otherwise."""
    repo = repo_tables_dir()
    if rules.turn_rules() == Rules() and repo.is_dir():
        return repo
    return cache_dir(rules)  # other rules, or an installed package without the repository


def regenerate_command(rules: Rules, directory: Path | str) -> str:
    """The command that writes the tables of `rules` into `directory`."""
    directory = Path(directory)
    if rules.turn_rules() == Rules() and directory.resolve() == repo_tables_dir():
        return "make tables"
    variants = "".join(
        f" --variant {k}={('on' if v else 'off') if isinstance(v, bool) else v}"
        for k, v in rules.turn_rules().non_defaults().items()
    )
    return f"sabords solve --all{variants} --out {directory}"


def write_table(table: TurnTable, directory: Path | str) -> Path:
    """Write `table` into `directory` (created if needed), atomically; return its path."""
    return write_atomically(table_path(directory, table.card), pack_table(table))


def write_atomically(path: Path, data: bytes) -> Path:
    """Write `data` to `path` (its folder created if needed) so that a reader never sees a
    half-written file: a temporary file beside it, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def read_table(path: Path | str, card: Card | str, rules: Rules) -> TurnTable:
    """Load the table of `card` under `rules` from `path`, or raise :class:`StaleTableError`."""
    path = Path(path)
    fix = f"run `{regenerate_command(rules, path.parent)}` to make the tables again"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise StaleTableError(f"policy table {path}: no such file; {fix}") from None
    except OSError as exc:
        raise StaleTableError(
            f"policy table {path}: cannot be read ({exc.strerror}); {fix}"
        ) from None
    return unpack_table(data, source=str(path), card=card, rules=rules, fix=fix)


def turn_table(card: Card | str, rules: Rules, tables_dir: Path | str | None = None) -> TurnTable:
    """The table of `card` under `rules` (see the module docstring for where it comes from).

    From `tables_dir` or the repository's tables, a missing or stale table raises
    :class:`StaleTableError`; a missing or stale cached table is solved again and cached.
    """
    if tables_dir is not None:
        return read_table(table_path(tables_dir, card), card, rules)
    directory = default_dir(rules)
    if directory == repo_tables_dir():
        return read_table(table_path(directory, card), card, rules)
    try:
        return read_table(table_path(directory, card), card, rules)
    except StaleTableError:
        pass
    table = build_table(card, rules)
    try:
        write_table(table, directory)
    except OSError:  # an unwritable cache only costs a solve next time
        pass
    return table


def turn_solution(
    card: Card | str, rules: Rules, tables_dir: Path | str | None = None
) -> TurnSolution:
    """The optimal expected-points solution of `card`'s turn, from its table."""
    return turn_table(card, rules, tables_dir).solution


# -- the envelope of every table file (turn tables here, the game table of solver.game) ------


def pack_envelope(payload: dict[str, Any]) -> bytes:
    """`payload` (keys sorted) in the envelope of every table file: format and checksum."""
    packed = msgpack.packb(_sorted(payload), use_bin_type=True)
    outer = {
        "checksum": "sha256:" + hashlib.sha256(packed).hexdigest(),
        "format": FORMAT_VERSION,
        "payload": packed,
    }
    return msgpack.packb(outer, use_bin_type=True)  # type: ignore[no-any-return]


def open_envelope(
    data: bytes, *, source: str, fix: str, kind: str = "table"
) -> dict[str, Any]:
    """The payload of table bytes, refused (:class:`StaleTableError`) unless the format
    version is this solver's and the checksum matches. The caller checks the header."""

    def refuse(why: str) -> StaleTableError:
        return StaleTableError(f"{kind} {source}: {why}; {fix}")

    try:
        outer = msgpack.unpackb(data, raw=False)
    except Exception:  # msgpack raises several unrelated types on garbage
        raise refuse("not a readable table file (corrupt or truncated)") from None
    if not isinstance(outer, dict) or "format" not in outer:
        raise refuse(f"not a {kind} file")
    if outer["format"] != FORMAT_VERSION:
        raise refuse(
            f"format version {outer['format']!r}, this solver reads version {FORMAT_VERSION}"
        )
    packed = outer.get("payload")
    checksum = outer.get("checksum")
    if not isinstance(packed, bytes) or not isinstance(checksum, str):
        raise refuse("no payload or no checksum")
    if checksum != "sha256:" + hashlib.sha256(packed).hexdigest():
        raise refuse("checksum does not match its contents (corrupt or edited)")
    try:
        payload = msgpack.unpackb(packed, raw=False)
    except Exception:
        raise refuse("not a readable table file (corrupt or truncated)") from None
    if not isinstance(payload, dict):
        raise refuse("incomplete table")
    return payload

