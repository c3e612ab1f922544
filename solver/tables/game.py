"""Game tables on disk: ``game-<N>.msgpack``, one format for every number of players.

Each file is one envelope of :mod:`solver.tables.fileformat`; where a table lives is
:mod:`solver.tables.paths`; the turn tables are :mod:`solver.tables.turn`.

A table holds every phase's values of an ``N``-player game (:class:`solver.game.GameTable`,
:mod:`solver.game.solve`) and what was proved and measured of them. Header: ``kind``
``game``, ``players``, the rules (target and ties included) and their hash, ``n_dice``, the
deck, the point range, every phase's box of totals (:class:`solver.game.seats.Phase`);
``solve``: each phase's record (:class:`solver.game.records.PhaseRecord`: iterations, proved
bound, measured gap..., and two players' value-iteration certificate). Arrays: per phase the
values of seats 0 to ``N - 2`` (the last seat's is 1 minus the others', as the solve sums
them), float64, their bytes shuffled (the k-th byte of every value together) and compressed
with zlib at level 9.

The same rules give the same bytes. Loading checks the kind, the rules
(:func:`solver.tables.fileformat.open_table`), the players, the point range and every phase's
box, every array's shape and type; a phase's values are decoded when an answer first needs
them, and checked then to be probabilities (:class:`LazyPhases`). The two-player table of
earlier versions (``game.msgpack``, another layout) is refused with its own reason.

:func:`game_of` is the one reader: the game of `players` under `rules` for an answer, its
table read from a directory or solved on demand where that is cheap, or for four and five
players near-optimal play on the tables of two and three
(:class:`solver.game.reduced.ReducedTable`).
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import __version__
from ..caches import on_disk
from ..engine.positions import FloatArray, IntArray
from ..errors import StaleTableError
from ..rules.rulebook import Rules
from .fileformat import (
    GAME_FORMAT_VERSION,
    keep_in_cache,
    open_table,
    pack_envelope,
    read_file,
    refusal,
    write_atomically,
)

if TYPE_CHECKING:
    from ..game import Game, GameTable
    from ..game.seats import Seats

OLD_TWO_PLAYER_FILE = "game.msgpack"
"""The two-player table of earlier versions (another layout): refused, never read."""
RECORD_FIELDS = ("iterations", "changed", "tol", "gap", "residual", "sweeps", "turns",
                 "lost", "bound", "cycles", "slack", "settled", "adopted")
"""What a phase's record keeps in the table: everything that does not depend on how the solve
was spread (the distinct columns solved do: they are counted per block); and two players'
``certificate`` where a phase has one."""


def game_file(players: int) -> str:
    return f"game-{players}.msgpack"


def game_table_path(directory: Path | str, players: int) -> Path:
    return Path(directory) / game_file(players)


def table_name(players: int) -> str:
    """The table's name in a refusal (:attr:`solver.errors.StaleTableError.table`)."""
    return f"game-{players}"


ON_DEMAND_SECONDS = 300.0
"""A game whose table is not on disk is solved on demand when its solve takes about this long
or less on a 2-core machine (:func:`solver.limits.game_cost`): every two-player game (the
largest target, 3.5 minutes), three players up to target 2900, four up to 1100, five up to
500; larger games are solved by `sabords solve-game`, or played near-optimally (four and five
players)."""

Solve = Callable[[Rules, int], "GameTable"]
"""Solves the game of (rules, players) now, as :func:`solver.game.solve_game` does (a front
end's: with its progress, in its own process...)."""


def game_of(rules: Rules, players: int, directory: Path | str | None = None, *,
            solve: Solve | None = None, within: float | None = None,
            before_need: Callable[[Rules, int], None] | None = None) -> Game:
    """The game of `players` under `rules` for an answer (module docstring), in this order:

    1. its exact table, from `directory` or the place of these rules
       (:func:`solver.tables.paths.game_default_dir`: the committed tables, the cache);
    2. solved now by `solve` and cached, when it takes at most `within` seconds
       (:func:`solver.limits.game_cost`; default :data:`ON_DEMAND_SECONDS`) and the table is
       not in `directory` (a directory given is read, never written);
    3. four and five players: near-optimal play on the games of two and three, found the
       same way (two players from their default place when `directory` has none);
    4. else the refusal of the table it needs (:class:`~solver.errors.StaleTableError`): the
       exact table's, or for four and five players the table of three's, for the question
       about `players` (:meth:`~solver.errors.StaleTableError.about_players`).

    `before_need` is called before near-optimal play solves the final round's endings it
    needs, when they are not cached (:func:`solver.tables.need.cached_need`).
    """
    from ..game.reduced import SMALL_PLAYERS, ReducedTable

    within = ON_DEMAND_SECONDS if within is None else within
    if players <= SMALL_PLAYERS or _made(rules, players, directory, solve, within):
        return exact_table(rules, players, directory, solve=solve, within=within)
    try:
        three = exact_table(rules, SMALL_PLAYERS, directory, solve=solve, within=within)
    except StaleTableError as exc:  # the question was the game of `players`
        raise exc.about_players(players) from None
    try:
        two = exact_table(rules, 2, directory, solve=solve, within=within)
    except StaleTableError:
        if directory is None:
            raise
        two = exact_table(rules, 2, solve=solve, within=within)  # its default place
    from .need import cached_need

    return ReducedTable(two, three, players, near_optimal_loss(players, rules.ties),
                        need=lambda: cached_need(rules, three.n_dice, before_need))


def _where(rules: Rules, directory: Path | str | None) -> Path:
    from .paths import game_default_dir

    return Path(directory) if directory is not None else game_default_dir(rules)


def _cheap(rules: Rules, players: int, directory: Path | str | None, solve: Solve | None,
           within: float) -> bool:
    """Whether the game is solved on demand when its table is not on disk."""
    from ..limits import game_cost
    from .paths import is_committed_dir

    return (solve is not None and directory is None
            and not is_committed_dir(_where(rules, directory))
            and game_cost(rules.target, players)[0] <= within)


def _made(rules: Rules, players: int, directory: Path | str | None, solve: Solve | None,
          within: float) -> bool:
    """Whether the exact table of the game is on disk, or made on demand."""
    return (on_disk(game_table_path(_where(rules, directory), players))
            or _cheap(rules, players, directory, solve, within))


def exact_table(rules: Rules, players: int, directory: Path | str | None = None, *,
                solve: Solve | None = None, within: float | None = None) -> GameTable:
    """The exact table of the game (:func:`game_of`'s first two steps), or its refusal."""
    from .paths import cached

    within = ON_DEMAND_SECONDS if within is None else within
    where = _where(rules, directory)
    path = game_table_path(where, players)
    if not _cheap(rules, players, directory, solve, within):
        return read_game(where, rules, players)

    def build() -> GameTable:
        assert solve is not None
        return solve(rules, players)

    def write(table: GameTable) -> None:
        keep_in_cache(lambda: write_game(table, where), path)

    return cached(where, lambda: read_game(where, rules, players), build, write)


NEAR_OPTIMAL_FILE = "near-optimal.json"
"""The measured losses of near-optimal play (``scripts/measure_reduced.py`` writes it beside
the committed tables)."""


def _without_chunks(entry: dict[str, Any]) -> dict[str, Any]:
    """A measured entry as the answers carry it: a games entry's states without the chunks
    their games were played in, and without the probe (the measure's own bookkeeping, for a
    run that resumes)."""
    if "states" not in entry:
        return entry
    return {**{k: v for k, v in entry.items() if k != "probe"},
            "states": [{k: v for k, v in s.items() if k != "chunks"} for s in entry["states"]]}


def near_optimal_loss(players: int, ties: str) -> dict[str, Any] | None:
    """What was measured of near-optimal play for `players` under the tie rule `ties`
    (:mod:`solver.game.reduced`; ``scripts/measure_reduced.py`` writes it): ``{"measured":
    [...], "chances": {"mean", "worst"}, "final": {"mean", "worst"}, "play": {"mean",
    "worst"}, "games": {"inside", "checked"}}``: every entry of these players and ties
    (``exact``: against an exact table, :class:`solver.strategy.measure.Loss`; ``games``:
    against whole games at the default target), and the largest of their figures: the chances
    shown off the exact ones in normal play and sudden death (points of probability, as
    fractions), in the final round, and the moves' loss in P(win); how many seats' chances fell
    inside the 95 % interval of whole games. None if nothing was measured (or the file is
    unreadable: the answers then say "not measured")."""
    import json

    from .paths import committed_dir

    try:
        entries = json.loads((committed_dir() / NEAR_OPTIMAL_FILE).read_text(encoding="utf-8"))
        kept = [_without_chunks(e) for e in entries["measured"]
                if e["players"] == players and e["ties"] == ties]
        exact = [e for e in kept if e["kind"] == "exact"]
        games = [e for e in kept if e["kind"] == "games"]

        def most(kinds: tuple[str, ...], figure: str) -> float | None:
            values = [e["chances"][k][figure] for e in exact for k in kinds]
            return max(values) if values else None

        out: dict[str, Any] = {
            "measured": kept,
            "chances": {"mean": most(("normal", "sudden"), "mean"),
                        "worst": most(("normal", "sudden"), "worst")},
            "final": {"mean": most(("final",), "mean"), "worst": most(("final",), "worst")},
            "play": {"mean": max((e["mean"] for e in exact if e["mean"] is not None),
                                 default=None),
                     "worst": max((e["worst"] for e in exact if e["worst"] is not None),
                                  default=None)},
            "games": {"inside": sum(e["inside"] for e in games),
                      "checked": sum(e["checked"] for e in games)}}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return out if kept else None


def pack_values(values: FloatArray) -> dict[str, Any]:
    """A phase's values (S, N - 1), byte-shuffled and compressed (deterministic)."""
    a = np.ascontiguousarray(values, dtype="<f8")
    shuffled = a.view(np.uint8).reshape(-1, 8).T.copy()
    return {"dtype": "<f8", "shape": list(a.shape), "shuffle": 8,
            "zlib": zlib.compress(shuffled.tobytes(), 9)}


def unpack_values(entry: dict[str, Any], shape: tuple[int, ...]) -> FloatArray:
    """The values of :func:`pack_values`, of `shape` (a ValueError when they are not)."""
    if entry.get("dtype") != "<f8" or entry.get("shuffle") != 8:
        raise ValueError("not shuffled float64")
    if tuple(int(n) for n in entry["shape"]) != shape:
        raise ValueError(f"shape {entry['shape']}, expected {list(shape)}")
    raw = zlib.decompress(entry["zlib"])
    count = int(np.prod(shape, dtype=np.int64))
    if len(raw) != 8 * count:
        raise ValueError("wrong length")
    bytes_ = np.frombuffer(raw, dtype=np.uint8).reshape(8, count).T.copy()
    values: FloatArray = bytes_.view("<f8").reshape(shape)
    return values


class LazyPhases(Mapping[str, FloatArray]):
    """The phases of a table read from a file, each decoded into its rows of one stacked
    table when first asked for (a cold three-player answer in normal play needs two phases of
    four: 29 % of the values). A phase that fails to decode is refused like the file."""

    def __init__(self, seats: Any, arrays: Mapping[str, Any], refuse: Callable[[str], Exception]
                 ) -> None:
        self._seats, self._arrays, self._refuse = seats, arrays, refuse
        players = seats.players
        self._Z = np.empty((seats.rows, players))
        self._Z[seats.offset("terminal"):] = seats.terminal
        self._view: FloatArray = self._Z.view()
        self._view.flags.writeable = False
        self._done: set[str] = set()
        self._lock = threading.Lock()
        self._spans = [(name, seats.offset(name), seats.offset(name) + phase.size)
                       for name, phase in seats.phases.items()]

    def __getitem__(self, name: str) -> FloatArray:
        if name not in self._seats.phases:
            raise KeyError(name)
        self._decode(name)
        lo = self._seats.offset(name)
        view: FloatArray = self._view[lo:lo + self._seats.phases[name].size]
        return view

    def __iter__(self) -> Iterator[str]:
        return iter(self._seats.phases)

    def __len__(self) -> int:
        return len(self._seats.phases)

    @property
    def decoded(self) -> set[str]:
        """The phases decoded so far."""
        return set(self._done)

    def table(self, rows: IntArray | None = None) -> FloatArray:
        """``Z``, with every phase decoded, or those holding `rows`."""
        at = None if rows is None else np.asarray(rows).ravel()
        for name, lo, hi in self._spans:
            if at is None or bool(np.any((at >= lo) & (at < hi))):
                self._decode(name)
        view: FloatArray = self._view
        return view

    def __getstate__(self) -> dict[str, Any]:
        """Sent to another process (joblib) decoded: every phase, without the lock, the
        file's bytes or the refusal (nothing is left to decode there)."""
        self.table()
        state = dict(self.__dict__)
        state.update(_lock=None, _arrays={}, _refuse=None, _view=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._view = self._Z.view()
        self._view.flags.writeable = False

    def _decode(self, name: str) -> None:
        if name in self._done:
            return
        with self._lock:
            if name in self._done:
                return
            seats, players = self._seats, self._seats.players
            size = seats.phases[name].size
            try:
                stored = unpack_values(self._arrays[name], (size, players - 1))
            except (KeyError, TypeError, ValueError, zlib.error):
                raise self._refuse(f"phase {name!r} is incomplete or malformed") from None
            if not (stored.min(initial=0.0) >= 0.0 and stored.max(initial=0.0) <= 1.0):
                raise self._refuse(f"phase {name!r} holds values outside [0, 1]")
            full = self._Z[seats.offset(name):seats.offset(name) + size]
            full[:, :-1] = stored
            others = stored[:, 0].copy()
            for i in range(1, players - 1):  # in seat order, as the solve sums them
                others += stored[:, i]
            np.subtract(1.0, others, out=full[:, -1])
            self._done.add(name)


def _header(rules: Rules, players: int, n_dice: int, seats: Seats) -> dict[str, Any]:
    from ..game import deck

    return {
        "kind": "game",
        "format": GAME_FORMAT_VERSION,
        "solver_version": __version__,
        "players": players,
        "rules": rules.as_dict(),
        "rules_hash": rules.hash,
        "n_dice": n_dice,
        "deck": deck(n_dice),
        "k_min": seats.k_min,
        "k_max": seats.k_max,
        "n_ded": seats.n_ded,
        "phases": {name: {"lo": list(p.lo), "hi": list(p.hi), "safe": p.safe}
                   for name, p in seats.phases.items()},
    }


def _record(record: Any) -> dict[str, Any]:
    data = record.as_dict()
    kept = {k: data[k] for k in RECORD_FIELDS}
    if data.get("certificate") is not None:
        kept["certificate"] = data["certificate"]
    return kept


def pack_game(table: GameTable) -> bytes:
    """The bytes of a game table (deterministic: the same values give the same bytes)."""
    if not table.compact:
        raise ValueError("the dense layout is the tests' reference, never written")
    header = _header(table.rules, table.players, table.n_dice, table.seats)
    payload = {
        "header": header,
        "solve": {name: _record(r) for name, r in table.records.items()},
        "arrays": {name: pack_values(np.asarray(table.values[name])[:, :-1])
                   for name in table.seats.phases},
    }
    return pack_envelope(payload, GAME_FORMAT_VERSION)


def unpack_game(data: bytes, rules: Rules, players: int, *, source: str) -> GameTable:
    """Read a table of `players`, refusing it unless intact and made for exactly `rules`."""
    from ..game import GameTable, PhaseRecord
    from ..game.seats import PointRange, seats_of

    payload, refuse = open_table(data, table=table_name(players), source=source, rules=rules,
                                 version=GAME_FORMAT_VERSION)
    try:
        header = payload["header"]
        if header.get("players") != players:
            raise refuse(f"a game table of {header.get('players', 2)} players, not {players}")
        n_dice = int(header["n_dice"])
        # The point range as the header says (the rules' own, by their hash: a test checks the
        # committed tables' against point_range, which tabulates every card's turn, 0.1 s)
        ranges = PointRange(k_min=int(header["k_min"]), k_max=int(header["k_max"]),
                            n_ded=int(header["n_ded"]))
        seats = seats_of(players, ranges, rules.target // 100, rules.ties)
        if _header(rules, players, n_dice, seats) != {**header,
                                                       "solver_version": __version__}:
            raise refuse("its point range or phases are not these rules'")
        arrays = payload["arrays"]
        for name, phase in seats.phases.items():  # their types and shapes now, values later
            entry = arrays[name]
            if entry.get("dtype") != "<f8" or [int(x) for x in entry["shape"]] != [
                    phase.size, players - 1] or not isinstance(entry["zlib"], bytes):
                raise refuse(f"phase {name!r} is not an array of {phase.size} x {players - 1} "
                             f"float64 values")
        values = LazyPhases(seats, arrays, refuse)
        records = {name: PhaseRecord.of({"name": name, **payload["solve"][name]})
                   for name in seats.phases}
    except StaleTableError:
        raise
    except (AttributeError, IndexError, KeyError, TypeError, ValueError, zlib.error):
        raise refuse("incomplete table (a field is missing or malformed)") from None
    return GameTable(rules=rules, players=players, ranges=ranges, values=values,
                     records=records, n_dice=n_dice)


def write_game(table: GameTable, directory: Path | str) -> Path:
    return write_atomically(game_table_path(directory, table.players), pack_game(table))


def read_game(directory: Path | str, rules: Rules, players: int) -> GameTable:
    """The exact table of `players` under `rules` in `directory` (refused unless there,
    intact and made for exactly `rules`)."""
    path = game_table_path(directory, players)
    refuse = refusal(table_name(players), path, rules)
    if players == 2 and not on_disk(path) and on_disk(Path(directory) / OLD_TWO_PLAYER_FILE):
        raise refuse(f"no such file; {OLD_TWO_PLAYER_FILE} beside it is the two-player table "
                     f"of an earlier version, in another format")
    data = read_file(path, refuse)
    return unpack_game(data, rules, players, source=str(path))


