"""Tables on disk: each card's solved turn and the two-player game, in msgpack.

Every table file is a msgpack map ``{"format": <version>, "checksum": "sha256:<hex>",
"payload": <bytes>}`` (the version of its kind: :data:`FORMAT_VERSION` for turn tables,
:data:`GAME_FORMAT_VERSION` for the game table) where the checksum is the SHA-256 of
``payload``, itself a packed msgpack map with a ``header`` (what the table is and the rules it
was made for), the solve's figures and the ``arrays``, each as ``{"dtype", "shape", "data"}``
with the raw little-endian bytes, so a round trip is exact to the bit. Keys are sorted and
nothing depends on the time or the machine: the same rules give the same bytes.

- **Turn tables**, ``turn-<card>.msgpack``: the card's turn solved for expected points
  (:func:`build_table`): header ``card``, ``rules`` (the turn rules: the game-level variants
  ``target`` and ``ties`` do not change a turn, :meth:`solver.rules.Rules.turn_rules`),
  ``rules_hash``, ``objective``, ``n_dice``, ``solver_version``; ``solve`` (sweeps, residual,
  bound); ``stats`` (:mod:`solver.stats`); arrays ``first_value``, ``turn_value``,
  ``stop_value`` and per world (``used``, and ``unused`` for the Sorceress) ``value``,
  ``keep_value``, ``policy``, ``sorceress`` (:class:`solver.engine.TurnSolution`); and
  ``exact`` (:mod:`solver.engine.exact`): the same values as fractions (``first_value``,
  ``turn_value``, per world ``value`` and ``keep_value``, :func:`pack_exact`), the exact
  statistics as ``"p/q"`` strings, and the proof's record. The float arrays are the exact
  values rounded to the nearest double, so they too are the same bytes on every machine.
- **The game table**, ``game.msgpack``: the three phases of :mod:`solver.game` for one rules
  object, target and ties included (:class:`solver.game.GameSolution`).

Loading checks the format version, the checksum, the kind, the card and the rules, that
every array has the shape and type the table's geometry calls for, and that the exact turn
value and statistics round to the stored floats; anything else is refused
with a :class:`StaleTableError` (one line: the file and the command that makes it again).

Where tables come from: an explicit directory is used as it is; otherwise the default rules
read the committed tables of the repository (``tables/``, made by ``make tables``), and any
other variant is solved on demand and cached under the user's cache directory
(:func:`solver.caches.cache_root`), keyed by the kind, the solver and format versions and the
rules hash.

This module imports no joblib or scipy on the loading path (the advisor's cold start).
"""

from __future__ import annotations

import hashlib
import os
import re
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import msgpack
import numpy as np
from numpy.typing import NDArray

from . import __version__
from .caches import cache_root
from .engine import (
    NO_MOVE,
    USED,
    WORLD_NAMES,
    ExpectedPoints,
    FloatArray,
    TurnSolution,
    WorldSolution,
    geometry,
    payoff_for,
    solve_payoff,
    turn_model,
)
from .engine.exact import (
    ExactSolution,
    ExactWorld,
    ProofRecord,
    exact_payoff,
    rounded_solution,
    solve_exact,
)
from .engine.exact_linear import ObjectArray
from .errors import StaleTableError
from .rules import NUM_DICE, Card, Rules, get_card
from .stats import (
    STAT_NAMES,
    ExactTurnStats,
    TurnStats,
    exact_ending_payoff,
    exact_stats_of,
)

if TYPE_CHECKING:
    from .game import GameSolution, ProgressFn

_T = TypeVar("_T")

FORMAT_VERSION = 3
"""The layout of a turn table, bumped whenever it changes; older files are refused
(3: the exact values beside the floats, :mod:`solver.engine.exact`)."""
ZLIB_LEVEL = 6
"""The compression level of the game table's policies (:func:`pack_compressed`)."""
GAME_FORMAT_VERSION = 2
"""The layout of the game table (its own version: a turn table's change leaves it valid)."""
OBJECTIVE = ExpectedPoints()
"""Turn tables hold the expected-points solution (other objectives are solved when needed)."""
GAME_FILE = "game.msgpack"


# --------------------------------------------------------------------------------------------
# The envelope of every table file
# --------------------------------------------------------------------------------------------


def pack_array(array: NDArray[Any]) -> dict[str, Any]:
    a = np.ascontiguousarray(array)
    little = a.astype(a.dtype.newbyteorder("<"), copy=False)
    return {"data": little.tobytes(), "dtype": little.dtype.str, "shape": list(a.shape)}


def unpack_array(entry: dict[str, Any]) -> NDArray[Any]:
    shape: tuple[int, ...] = tuple(int(n) for n in entry["shape"])
    data = entry["data"]
    if entry.get("zlib"):
        data = zlib.decompress(data)
    return np.frombuffer(data, dtype=np.dtype(entry["dtype"])).reshape(shape)


def pack_compressed(array: NDArray[Any]) -> dict[str, Any]:
    """:func:`pack_array` with the data compressed by zlib at level 6, its default. The bytes
    are the same for the same data and the same zlib library (1.2.13 here); another deflate
    implementation (zlib-ng, say) may compress differently: the arrays read back the same, the
    file's bytes would not. The game's policies shrink a hundredfold, to 453 kB, in 0.35 s;
    level 9 saves 40 kB more and takes 2.4 s."""
    entry = pack_array(array)
    entry["data"] = zlib.compress(entry["data"], ZLIB_LEVEL)
    entry["zlib"] = True
    return entry


def _sorted(obj: Any) -> Any:
    """The same data with every map's keys in sorted order (deterministic bytes)."""
    if isinstance(obj, dict):
        return {k: _sorted(obj[k]) for k in sorted(obj)}
    if isinstance(obj, list | tuple):
        return [_sorted(x) for x in obj]
    return obj


def pack_exact(values: ObjectArray) -> dict[str, Any]:
    """An array of fractions (None: no value, stored as 0) over its least common denominator:
    ``den`` in decimal, the numerators as ``width``-byte big-endian two's complement integers
    in ``num`` (row-major), and the ``shape``. Deterministic: the same fractions give the
    same bytes."""
    flat = values.reshape(-1).tolist()
    den = lcm(1, *{v.denominator for v in flat if v is not None})
    nums = [0 if v is None else v.numerator * (den // v.denominator) for v in flat]
    width = max(1, *((abs(n).bit_length() + 8) // 8 for n in nums))
    return {"den": str(den), "num": b"".join(n.to_bytes(width, "big", signed=True)
                                             for n in nums),
            "shape": list(values.shape), "width": width}


_DECIMAL = re.compile(r"[1-9][0-9]*")


def check_exact(entry: Any, name: str, shape: tuple[int, ...],
                refuse: Callable[[str], StaleTableError]) -> None:
    """Refuse an exact array unless it is well formed and of the expected shape (cheap: the
    numerators are not decoded)."""
    try:
        ok = (isinstance(entry["den"], str) and _DECIMAL.fullmatch(entry["den"]) is not None
              and isinstance(entry["num"], bytes) and isinstance(entry["width"], int)
              and entry["width"] >= 1)
        got = tuple(int(n) for n in entry["shape"])
    except (KeyError, TypeError, ValueError):
        raise refuse(f"exact array {name!r} is malformed") from None
    if not ok:
        raise refuse(f"exact array {name!r} is malformed")
    if got != shape:
        raise refuse(f"exact array {name!r} is {got}, expected {shape}")
    if len(entry["num"]) != entry["width"] * int(np.prod(shape, dtype=np.int64)):
        raise refuse(f"exact array {name!r} has {len(entry['num'])} bytes, not "
                     f"{entry['width']} per value")


def unpack_exact(entry: dict[str, Any], none_where: NDArray[np.bool_] | None = None
                 ) -> ObjectArray:
    """The fractions of :func:`pack_exact` (None where `none_where`, e.g. where the float
    array is NaN)."""
    den, width, data = int(entry["den"]), int(entry["width"]), entry["num"]
    shape = tuple(int(n) for n in entry["shape"])
    count = len(data) // width
    flat = [Fraction(int.from_bytes(data[i * width:(i + 1) * width], "big", signed=True), den)
            for i in range(count)]
    out = np.empty(count, dtype=object)
    out[:] = flat
    values = out.reshape(shape)
    if none_where is not None:
        values[none_where] = None
    return values


def pack_envelope(payload: dict[str, Any], version: int = FORMAT_VERSION) -> bytes:
    """`payload` (keys sorted) in the envelope of every table file: format and checksum."""
    packed = msgpack.packb(_sorted(payload), use_bin_type=True)
    outer = {
        "checksum": "sha256:" + hashlib.sha256(packed).hexdigest(),
        "format": version,
        "payload": packed,
    }
    return msgpack.packb(outer, use_bin_type=True)  # type: ignore[no-any-return]


def open_envelope(data: bytes, *, source: str, fix: str, kind: str = "table",
                  version: int = FORMAT_VERSION) -> dict[str, Any]:
    """The payload of table bytes, refused (:class:`StaleTableError`) unless the format
    version is `version` (this solver's for the kind) and the checksum matches. The caller
    checks the header."""

    def refuse(why: str) -> StaleTableError:
        return StaleTableError(f"{kind} {source}: {why}; {fix}")

    try:
        outer = msgpack.unpackb(data, raw=False)
    except Exception:  # msgpack raises several unrelated types on garbage
        raise refuse("not a readable table file (corrupt or truncated)") from None
    if not isinstance(outer, dict) or "format" not in outer:
        raise refuse(f"not a {kind} file")
    if outer["format"] != version:
        raise refuse(
            f"format version {outer['format']!r}, this solver reads version {version}"
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


def checked_array(entry: dict[str, Any], name: str, shape: tuple[int, ...], dtype: str,
                  refuse: Callable[[str], StaleTableError]) -> NDArray[Any]:
    """An array of the table, refused unless it has the expected shape and type."""
    try:
        a = unpack_array(entry)
    except (KeyError, TypeError, ValueError):
        raise refuse(f"array {name!r} is malformed") from None
    if a.shape != shape or a.dtype != np.dtype(dtype):
        raise refuse(f"array {name!r} is {a.dtype} {a.shape}, expected {np.dtype(dtype)} "
                     f"{shape}")
    return a


def write_atomically(path: Path, data: bytes) -> Path:
    """Write `data` to `path` (its folder created if needed) so that a reader never sees a
    half-written file: a temporary file beside it, then a rename. A failure leaves no
    temporary file behind and raises the write's own error."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # the clean-up must not hide the first error
            pass
        raise
    return path


def _read(path: Path, kind: str, fix: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise StaleTableError(f"{kind} {path}: no such file; {fix}") from None
    except OSError as exc:
        raise StaleTableError(f"{kind} {path}: cannot be read ({exc.strerror}); {fix}") from None


# --------------------------------------------------------------------------------------------
# Where tables live
# --------------------------------------------------------------------------------------------


def repo_tables_dir() -> Path:
    """The repository's `tables/` directory (committed tables of the default rules)."""
    return Path(__file__).resolve().parent.parent / "tables"


def cache_key(kind: str, rules_hash: str) -> str:
    """The cache folder name: the solver version (a new solver may break ties or round
    differently), the format version and the rules hash."""
    version = GAME_FORMAT_VERSION if kind == "game" else FORMAT_VERSION
    return f"{kind}-{__version__}-v{version}-{rules_hash}"


def cache_dir(rules: Rules) -> Path:
    """Where the on-demand turn tables of `rules` are cached (see :func:`cache_key`)."""
    return cache_root() / cache_key("turn", rules.turn_hash)


def game_cache_dir(rules: Rules) -> Path:
    """Where the on-demand game table of `rules` is cached."""
    return cache_root() / cache_key("game", rules.hash)


def default_dir(rules: Rules) -> Path:
    """Where the turn tables of `rules` live without a directory: the repository's for the
    default rules, the cache's otherwise."""
    repo = repo_tables_dir()
    if rules.turn_rules() == Rules() and repo.is_dir():
        return repo
    return cache_dir(rules)  # other rules, or an installed package without the repository


def game_default_dir(rules: Rules) -> Path:
    """Where the game table of `rules` lives without a directory (as :func:`default_dir`)."""
    repo = repo_tables_dir()
    if rules == Rules() and repo.is_dir():
        return repo
    return game_cache_dir(rules)


def _variants(rules: Rules) -> str:
    return "".join(f" --variant {k}={('on' if v else 'off') if isinstance(v, bool) else v}"
                   for k, v in rules.non_defaults().items())


def regenerate_command(rules: Rules, directory: Path | str) -> str:
    """The command that writes the turn tables of `rules` into `directory`."""
    directory = Path(directory)
    if rules.turn_rules() == Rules() and directory.resolve() == repo_tables_dir():
        return "make tables"
    return f"sabords solve --all{_variants(rules.turn_rules())} --out {directory}"


def regenerate_game_command(rules: Rules, directory: Path | str) -> str:
    """The command that writes the game table of `rules` into `directory`."""
    directory = Path(directory)
    if rules == Rules() and directory.resolve() == repo_tables_dir():
        return "make tables"
    return f"sabords solve-game{_variants(rules)} --out {directory}"


# --------------------------------------------------------------------------------------------
# Turn tables
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnTable:
    """A card's solved turn as stored in a table: the solution, stop values, statistics, and
    the exact values (decoded on first use: :meth:`exact`)."""

    solution: TurnSolution
    """The exact values rounded to the nearest double, the proved policy; its bound is the
    rounding's."""
    stop_value: FloatArray
    """(n_full, 1): the points of stopping at each position; NaN where stopping is not
    allowed."""
    stats: TurnStats
    """The exact statistics rounded to the nearest double."""
    solver_version: str
    """The solver version that made the table."""
    exact_data: dict[str, Any]
    """The exact part as stored (``exact`` of the payload, module doc), checked at load."""
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def card(self) -> str:
        return self.solution.card

    @property
    def rules(self) -> Rules:
        """The turn rules the table was made for (game-level variants at their defaults)."""
        return self.solution.rules

    def exact(self) -> ExactSolution:
        """The exact solution: every value and keep value as a fraction (one column)."""
        cached = self.cache.get("exact")
        if not isinstance(cached, ExactSolution):
            cached = self.cache["exact"] = _decode_exact(self)
        return cached

    def exact_stats(self) -> ExactTurnStats:
        """The exact statistics of the turn (expected points, P(bust), P(Skull Island) and the
        island deduction)."""
        stats = self.exact_data["stats"]
        return ExactTurnStats(**{name: Fraction(stats[name]) for name in STAT_NAMES})

    @property
    def proof(self) -> ProofRecord:
        """What the exact check found in the float policy it started from."""
        return ProofRecord(**{k: int(v) for k, v in self.exact_data["proof"].items()})


def build_table(card: Card | str, rules: Rules) -> TurnTable:
    """Solve one card's turn for expected points: floats (:func:`solver.engine.solve_payoff`),
    then exactly from their policy, proved optimal (:func:`solver.engine.exact.solve_exact`,
    the statistics' columns evaluated under it); the floats stored are the exact values
    rounded."""
    turn = rules.turn_rules()
    model = turn_model(card, turn)
    payoff = payoff_for(model, OBJECTIVE)
    floats = solve_payoff(model, payoff, OBJECTIVE.key())
    exact = solve_exact(model, exact_payoff(model, OBJECTIVE), floats.policy(),
                        OBJECTIVE.key(), evaluate=exact_ending_payoff(model))
    stats = exact_stats_of(exact)
    return TurnTable(
        solution=rounded_solution(exact, floats),
        stop_value=np.where(model.can_stop[USED][:, None], payoff.stop, np.nan),
        stats=stats.rounded(),
        solver_version=__version__,
        exact_data=_encode_exact(exact, stats, floats.bound),
    )


def _encode_exact(exact: ExactSolution, stats: ExactTurnStats, float_bound: float
                  ) -> dict[str, Any]:
    """The ``exact`` part of a turn table (column 0 of the arrays)."""
    return {
        "arrays": {
            "first_value": pack_exact(exact.first_value[:, :1]),
            "turn_value": pack_exact(np.array(exact.turn_value[:1], dtype=object)),
            "worlds": {WORLD_NAMES[w]: {"keep_value": pack_exact(ew.keep_value[:, :1]),
                                        "value": pack_exact(ew.value[:, :1])}
                       for w, ew in exact.worlds.items()},
        },
        "float_bound": float_bound,
        "proof": exact.proof.as_dict(),
        "stats": stats.as_dict(),
    }


def _decode_exact(table: TurnTable) -> ExactSolution:
    data = table.exact_data["arrays"]
    sol = table.solution
    worlds = {}
    for w, ws in sol.worlds.items():
        entry = data["worlds"][WORLD_NAMES[w]]
        worlds[w] = ExactWorld(value=unpack_exact(entry["value"], np.isnan(ws.value)),
                               keep_value=unpack_exact(entry["keep_value"]),
                               policy=ws.policy, sorceress=ws.sorceress)
    return ExactSolution(card=sol.card, rules=sol.rules, objective=sol.objective,
                         worlds=worlds, first_value=unpack_exact(data["first_value"]),
                         turn_value=tuple(unpack_exact(data["turn_value"]).tolist()),
                         proof=table.proof, n_dice=sol.n_dice)


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


def pack_table(table: TurnTable) -> bytes:
    """The bytes of a table file (deterministic: the same table gives the same bytes)."""
    sol = table.solution
    turn = sol.rules.turn_rules()
    header = {
        "card": sol.card,
        "format": FORMAT_VERSION,
        "kind": "turn",
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
    payload = {
        "arrays": {
            "first_value": pack_array(sol.first_value),
            "stop_value": pack_array(table.stop_value),
            "turn_value": pack_array(sol.turn_value),
            "worlds": worlds,
        },
        "header": header,
        "exact": table.exact_data,
        "solve": {"bound": sol.bound, "residual": sol.residual, "sweeps": sol.sweeps},
        "stats": {**table.stats.as_dict(), "bound": table.stats.bound},
    }
    return pack_envelope(payload)


def unpack_table(data: bytes, *, source: str, card: Card | str, rules: Rules,
                 fix: str) -> TurnTable:
    """Read table bytes, refusing them unless they are intact, made for `card` and `rules`,
    and every array has the shape and type of the geometry it claims.

    `source` names the file and `fix` the way to regenerate it, in the error message.
    """
    card_id = get_card(card).id
    turn = rules.turn_rules()

    def refuse(why: str) -> StaleTableError:
        return StaleTableError(f"policy table {source}: {why}; {fix}")

    payload = open_envelope(data, source=source, fix=fix, kind="policy table")
    try:
        header = payload["header"]
        if header.get("kind") != "turn":
            raise refuse("not a turn table")
        if header["card"] != card_id:
            raise refuse(f"made for card {header['card']!r}, not {card_id!r}")
        if header["rules_hash"] != turn.hash or header["rules"] != turn.as_dict():
            raise refuse(
                f"made for other rules (hash {header['rules_hash']}, these rules have "
                f"{turn.hash})"
            )
        if header["n_dice"] != NUM_DICE:
            raise refuse(f"made for {header['n_dice']!r} dice, not {NUM_DICE}")
        return _table_of(payload, turn, refuse)
    except StaleTableError:
        raise
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        raise refuse("incomplete table (a field is missing or malformed)") from None


def _table_of(payload: dict[str, Any], rules: Rules,
              refuse: Callable[[str], StaleTableError]) -> TurnTable:
    header, arrays, solve = payload["header"], payload["arrays"], payload["solve"]
    g = geometry(NUM_DICE)
    model = turn_model(header["card"], rules)
    n_b = 1
    full, partial = (g.n_full, n_b), (g.n_partial, n_b)
    expected_worlds = {WORLD_NAMES[w] for w in model.worlds}
    if set(arrays["worlds"]) != expected_worlds:
        raise refuse(f"worlds {sorted(arrays['worlds'])}, expected {sorted(expected_worlds)}")
    worlds = {}
    for name, w in arrays["worlds"].items():
        world = WORLD_NAMES.index(name)
        policy = checked_array(w["policy"], f"{name}.policy", full, "<i8", refuse)
        if np.any((policy < NO_MOVE) | (policy >= g.n_partial)):
            raise refuse(f"array '{name}.policy' holds codes out of range")
        worlds[world] = WorldSolution(
            value=checked_array(w["value"], f"{name}.value", full, "<f8", refuse),
            keep_value=checked_array(w["keep_value"], f"{name}.keep_value", partial, "<f8",
                                     refuse),
            policy=policy,
            sorceress=checked_array(w["sorceress"], f"{name}.sorceress", full, "|b1", refuse),
        )
    solution = TurnSolution(
        card=header["card"],
        rules=rules,
        objective=tuple(header["objective"]),
        worlds=dict(sorted(worlds.items())),
        first_value=checked_array(arrays["first_value"], "first_value", full, "<f8", refuse),
        turn_value=checked_array(arrays["turn_value"], "turn_value", (n_b,), "<f8", refuse),
        sweeps=int(solve["sweeps"]),
        residual=float(solve["residual"]),
        bound=float(solve["bound"]),
        n_dice=header["n_dice"],
    )
    stats = payload["stats"]
    table = TurnTable(
        solution=solution,
        stop_value=checked_array(arrays["stop_value"], "stop_value", full, "<f8", refuse),
        stats=TurnStats(
            ev=float(stats["ev"]),
            p_bust=float(stats["p_bust"]),
            p_island=float(stats["p_island"]),
            island_deduction=float(stats["island_deduction"]),
            bound=float(stats["bound"]),
        ),
        solver_version=header["solver_version"],
        exact_data=payload["exact"],
    )
    _check_exact_part(table, model.worlds, refuse)
    return table


def _check_exact_part(table: TurnTable, worlds: tuple[int, ...],
                      refuse: Callable[[str], StaleTableError]) -> None:
    """Refuse a malformed exact part, or one whose turn value and statistics do not round to
    the table's floats (the arrays are decoded on use only: the cold start)."""
    g = geometry(NUM_DICE)
    exact = table.exact_data
    arrays = exact["arrays"]
    check_exact(arrays["first_value"], "first_value", (g.n_full, 1), refuse)
    check_exact(arrays["turn_value"], "turn_value", (1,), refuse)
    names = {WORLD_NAMES[w] for w in worlds}
    if set(arrays["worlds"]) != names:
        raise refuse(f"exact worlds {sorted(arrays['worlds'])}, expected {sorted(names)}")
    for name in sorted(names):
        check_exact(arrays["worlds"][name]["value"], f"{name}.value", (g.n_full, 1), refuse)
        check_exact(arrays["worlds"][name]["keep_value"], f"{name}.keep_value",
                    (g.n_partial, 1), refuse)
    try:
        stats = table.exact_stats()
        _ = table.proof
        turn = unpack_exact(arrays["turn_value"])[0]
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        raise refuse("its exact part is malformed") from None
    if float(turn) != float(table.solution.turn_value[0]) or stats.ev != turn:
        raise refuse("its exact turn value does not round to its float value")
    if any(float(getattr(stats, n)) != getattr(table.stats, n) for n in STAT_NAMES):
        raise refuse("its exact statistics do not round to its float statistics")


def table_path(directory: Path | str, card: Card | str) -> Path:
    """The file of `card`'s table in `directory`."""
    return Path(directory) / f"turn-{get_card(card).id}.msgpack"


def write_table(table: TurnTable, directory: Path | str) -> Path:
    """Write `table` into `directory` (created if needed), atomically; return its path."""
    return write_atomically(table_path(directory, table.card), pack_table(table))


def read_table(path: Path | str, card: Card | str, rules: Rules) -> TurnTable:
    """Load the table of `card` under `rules` from `path`, or raise :class:`StaleTableError`."""
    path = Path(path)
    fix = f"run `{regenerate_command(rules, path.parent)}` to make the tables again"
    data = _read(path, "policy table", fix)
    return unpack_table(data, source=str(path), card=card, rules=rules, fix=fix)


def _cached(directory: Path, read: Callable[[], _T], build: Callable[[], _T],
            write: Callable[[_T], object]) -> _T:
    """From the repository's tables: read (refusing what is stale). From the cache: read,
    or build and cache (an unwritable cache only costs a solve next time)."""
    if directory == repo_tables_dir():
        return read()
    try:
        return read()
    except StaleTableError:
        pass
    value = build()
    try:
        write(value)
    except OSError:
        pass
    return value


def turn_table(card: Card | str, rules: Rules, tables_dir: Path | str | None = None) -> TurnTable:
    """The table of `card` under `rules` (see the module docstring for where it comes from).

    From `tables_dir` or the repository's tables, a missing or stale table raises
    :class:`StaleTableError`; a missing or stale cached table is solved again and cached.
    """
    if tables_dir is not None:
        return read_table(table_path(tables_dir, card), card, rules)
    directory = default_dir(rules)
    return _cached(directory, lambda: read_table(table_path(directory, card), card, rules),
                   lambda: build_table(card, rules), lambda t: write_table(t, directory))


def turn_solution(
    card: Card | str, rules: Rules, tables_dir: Path | str | None = None
) -> TurnSolution:
    """The optimal expected-points solution of `card`'s turn, from its table."""
    return turn_table(card, rules, tables_dir).solution


def exact_solution(
    card: Card | str, rules: Rules, tables_dir: Path | str | None = None
) -> ExactSolution:
    """The exact expected-points solution of `card`'s turn, proved optimal, from its table:
    every value and keep value as a fraction (:class:`solver.engine.exact.ExactSolution`)."""
    return turn_table(card, rules, tables_dir).exact()


def exact_stats(
    card: Card | str, rules: Rules, tables_dir: Path | str | None = None
) -> ExactTurnStats:
    """The exact expected points, P(bust), P(Skull Island) and island deduction of `card`'s
    turn under the proved optimal policy, from its table."""
    return turn_table(card, rules, tables_dir).exact_stats()


# --------------------------------------------------------------------------------------------
# The game table
# --------------------------------------------------------------------------------------------


def game_table_path(directory: Path | str) -> Path:
    return Path(directory) / GAME_FILE


def pack_game(sol: GameSolution) -> bytes:
    """The bytes of a game table (deterministic: the same solution gives the same bytes)."""
    from .game import deck

    payload = {
        "header": {
            "kind": "game",
            "format": GAME_FORMAT_VERSION,
            "solver_version": __version__,
            "rules": sol.rules.as_dict(),
            "rules_hash": sol.rules.hash,
            "n_dice": sol.n_dice,
            "deck": deck(sol.n_dice),
            "k_min": sol.k_min,
            "k_max": sol.k_max,
        },
        "solve": {"sweeps": sol.sweeps, "residual": sol.residual,
                  "certified_bound": sol.certified_bound,
                  "certificates": sol.certificates},
        "arrays": {
            "win": pack_array(sol.win),
            "sudden": pack_array(sol.sudden),
            "final": pack_array(sol.final.value),
            "beyond": pack_array(sol.beyond),
            "cards": {card: pack_array(v) for card, v in sol.cards.items()},
            "policies": {phase: {f"{card}/{WORLD_NAMES[w]}": pack_compressed(codes)
                                 for (card, w), codes in policy.codes.items()}
                         for phase, policy in sol.policies.items()},
        },
    }
    return pack_envelope(payload, GAME_FORMAT_VERSION)


def unpack_game(data: bytes, rules: Rules, *, source: str, fix: str) -> GameSolution:
    """Read game table bytes, refusing them unless intact, made for exactly `rules`, and
    every array of the shape the target and the point range call for."""
    from .game import (
        FINAL,
        NORMAL,
        SUDDEN,
        FinalTable,
        GameSolution,
        deck,
        game_model,
        tail_rows,
    )
    from .game.policies import SORCERESS_CODE, PhasePolicy

    def refuse(why: str) -> StaleTableError:
        return StaleTableError(f"game table {source}: {why}; {fix}")

    payload = open_envelope(data, source=source, fix=fix, kind="game table",
                            version=GAME_FORMAT_VERSION)
    try:
        header = payload["header"]
        if header.get("kind") != "game":
            raise refuse("not a game table")
        if header["rules_hash"] != rules.hash or header["rules"] != rules.as_dict():
            raise refuse(f"made for other rules (hash {header['rules_hash']}, these rules have "
                         f"{rules.hash})")
        n_dice = int(header["n_dice"])
        gm = game_model(rules, n_dice)
        if (header["k_min"], header["k_max"]) != (gm.k_min, gm.k_max):
            raise refuse("its point range is not these rules'")
        arrays, solve = payload["arrays"], payload["solve"]
        n = gm.n
        square = (n, n)
        if set(arrays["cards"]) != set(deck(n_dice)):
            raise refuse("its cards are not the deck's")
        win = checked_array(arrays["win"], "win", square, "<f8", refuse)
        sudden = checked_array(arrays["sudden"], "sudden", square, "<f8", refuse)
        final = checked_array(arrays["final"], "final", (gm.k_max + 2,), "<f8", refuse)
        beyond = checked_array(arrays["beyond"], "beyond", (tail_rows(gm), n), "<f8", refuse)
        cards = {c: checked_array(v, f"cards.{c}", square, "<f8", refuse)
                 for c, v in arrays["cards"].items()}
        policies = {}
        for phase, columns in ((NORMAL, n * n), (SUDDEN, n * n), (FINAL, gm.k_max + 1)):
            codes = {}
            for card, ct in gm.cards.items():
                for w in ct.model.worlds:
                    name = f"{card}/{WORLD_NAMES[w]}"
                    a = checked_array(arrays["policies"][phase][name],
                                      f"policies.{phase}.{name}", (ct.st.n_fo, columns), "<i2",
                                      refuse)
                    if np.any((a < NO_MOVE) | (a >= 2 * SORCERESS_CODE)):
                        raise refuse(f"policy {phase}/{name} holds codes out of range")
                    codes[(card, w)] = a
            policies[phase] = PhasePolicy(phase=phase, columns=columns, codes=codes)
        for name, a in (("win", win), ("sudden", sudden), ("beyond", beyond)):
            if not np.all((a >= 0.0) & (a <= 1.0)):
                raise refuse(f"array {name!r} holds values outside [0, 1]")
        return GameSolution(
            rules=rules,
            win=win,
            sudden=sudden,
            final=FinalTable(value=final, cards={}, sweeps=int(solve["sweeps"]["final"]),
                             residual=float(solve["residual"]["final"]),
                             bound=float(solve["certified_bound"]["final"])),
            cards=cards,
            k_min=gm.k_min,
            k_max=gm.k_max,
            beyond=beyond,
            sweeps=dict(solve["sweeps"]),
            residual=dict(solve["residual"]),
            certified_bound=dict(solve["certified_bound"]),
            certificates=dict(solve["certificates"]),
            policies=policies,
            seconds=0.0,
            n_dice=n_dice,
        )
    except StaleTableError:
        raise
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        raise refuse("incomplete table (a field is missing or malformed)") from None


def write_game(sol: GameSolution, directory: Path | str) -> Path:
    return write_atomically(game_table_path(directory), pack_game(sol))


def read_game(directory: Path | str, rules: Rules) -> GameSolution:
    path = game_table_path(directory)
    fix = f"run `{regenerate_game_command(rules, path.parent)}` to make it again"
    data = _read(path, "game table", fix)
    return unpack_game(data, rules, source=str(path), fix=fix)


def game_tables(rules: Rules, tables_dir: Path | str | None = None, *,
                progress: ProgressFn | None = None) -> GameSolution:
    """The game table of `rules`: from `tables_dir`, the repository (default rules) or the
    cache; other rules are solved now and cached."""
    from .game import solve_game

    if tables_dir is not None:
        return read_game(tables_dir, rules)
    directory = game_default_dir(rules)
    return _cached(directory, lambda: read_game(directory, rules),
                   lambda: solve_game(rules, progress=progress),
                   lambda s: write_game(s, directory))
