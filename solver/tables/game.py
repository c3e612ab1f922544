"""Game tables on disk: the two-player game, ``game.msgpack``, and the games of three
players and more, ``game-<N>.msgpack``.

Each file is one envelope of :mod:`solver.tables.fileformat`; where a table lives is
:mod:`solver.tables.paths`; the turn tables are :mod:`solver.tables.turn`.

- ``game.msgpack``: the three phases of :mod:`solver.game` for one rules object, target and
  ties included (:class:`solver.game.GameSolution`): the win probabilities, the certificates,
  every state's win policy (zlib).
- ``game-<N>.msgpack``: every phase's values of an ``N``-player game
  (:mod:`solver.game.nsolve`) and what was proved and measured of them. Header: ``kind``
  ``game``, ``players``, the rules (target and ties included) and their hash, ``n_dice``, the
  deck, the point range, every phase's box of totals (:class:`solver.game.seats.Phase`);
  ``solve``: each phase's record (:class:`solver.game.records.PhaseRecord`: iterations, proved
  bound, measured gap...). Arrays: per phase the values of seats 0 to ``N - 2`` (the last
  seat's is 1 minus the others', as the solve sums them), float64, their bytes shuffled (the
  k-th byte of every value together) and compressed with zlib at level 9.

The same rules give the same bytes. Loading checks the kind, the rules
(:func:`solver.tables.fileformat.open_table`), the players, the point range and every phase's box,
every array's shape and type; a phase's values are decoded when an answer first needs them, and
checked then to be probabilities (:class:`LazyPhases`).
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import __version__
from ..caches import on_disk
from ..engine.codes import WORLD_NAMES
from ..engine.positions import FloatArray, IntArray
from ..errors import StaleTableError
from ..rules.rulebook import Rules
from .fileformat import (
    GAME_FORMAT_VERSION,
    checked_array,
    keep_in_cache,
    open_table,
    pack_array,
    pack_compressed,
    pack_envelope,
    read_file,
    refusal,
    write_atomically,
)
from .paths import cached, game_default_dir

if TYPE_CHECKING:
    from ..engine import Objective
    from ..game import GameSolution, ProgressFn
    from ..game.policies import PhasePolicy
    from ..game.winplay import SolvedWinPlay

GAME_FILE = "game.msgpack"


# --------------------------------------------------------------------------------------------
# The game table
# --------------------------------------------------------------------------------------------


def game_table_path(directory: Path | str) -> Path:
    return Path(directory) / GAME_FILE


def pack_game(sol: GameSolution) -> bytes:
    """The bytes of a game table (deterministic: the same solution gives the same bytes)."""
    from ..game import deck

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


def unpack_game(data: bytes, rules: Rules, *, source: str) -> GameSolution:
    """Read game table bytes, refusing them unless intact, made for exactly `rules`, and
    every array of the shape the target and the point range call for."""
    from ..game import (
        FINAL,
        NORMAL,
        SUDDEN,
        UNIT,
        FinalTable,
        GameSolution,
        deck,
        point_range,
        tail_rows,
    )

    payload, refuse = open_table(data, table="game", source=source, rules=rules,
                                 version=GAME_FORMAT_VERSION)
    try:
        header = payload["header"]
        if header.get("players", 2) != 2:
            raise refuse(f"a game table of {header['players']} players, not 2")
        n_dice = int(header["n_dice"])
        gm = point_range(rules, n_dice)
        if (header["k_min"], header["k_max"]) != (gm.k_min, gm.k_max):
            raise refuse("its point range is not these rules'")
        arrays, solve = payload["arrays"], payload["solve"]
        n = rules.target // UNIT
        square = (n, n)
        if set(arrays["cards"]) != set(deck(n_dice)):
            raise refuse("its cards are not the deck's")
        win = checked_array(arrays["win"], "win", square, "<f8", refuse)
        sudden = checked_array(arrays["sudden"], "sudden", square, "<f8", refuse)
        final = checked_array(arrays["final"], "final", (gm.k_max + 2,), "<f8", refuse)
        beyond = checked_array(arrays["beyond"], "beyond", (tail_rows(gm), n), "<f8", refuse)
        cards = {c: checked_array(v, f"cards.{c}", square, "<f8", refuse)
                 for c, v in arrays["cards"].items()}
        policies = StoredPolicies(arrays["policies"], rules, n_dice,
                                  {NORMAL: n * n, SUDDEN: n * n, FINAL: gm.k_max + 1}, refuse)
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
    data = read_file(path, refusal("game", path, rules))
    return unpack_game(data, rules, source=str(path))


def game_tables(rules: Rules, tables_dir: Path | str | None = None, *,
                progress: ProgressFn | None = None) -> GameSolution:
    """The game table of `rules`: from `tables_dir`, the repository (default rules) or the
    cache; other rules are solved now and cached."""
    from ..game import solve_game

    if tables_dir is not None:
        return read_game(tables_dir, rules)
    directory = game_default_dir(rules)
    return cached(directory, lambda: read_game(directory, rules),
                   lambda: solve_game(rules, progress=progress),
                   lambda s: keep_in_cache(lambda: write_game(s, directory),
                                           game_table_path(directory)))


# --------------------------------------------------------------------------------------------
# Three players and more
# --------------------------------------------------------------------------------------------


NGAME_FORMAT_VERSION = 2
"""The format of ``game-<N>.msgpack``: a change bumps it, and older tables are refused.
Version 2: the final round's phases with seats that have played are compact (their rows
:attr:`solver.game.seats.Phase.safe`); version 1 stored every state of their boxes."""
RECORD_FIELDS = ("iterations", "changed", "tol", "gap", "residual", "sweeps", "turns",
                 "lost", "bound", "cycles", "slack", "settled", "adopted")
"""What a phase's record keeps in the table: everything that does not depend on how the solve
was spread (the distinct columns solved do: they are counted per block)."""


def ngame_file(players: int) -> str:
    return f"game-{players}.msgpack"


def ngame_table_path(directory: Path | str, players: int) -> Path:
    return Path(directory) / ngame_file(players)


def read_players(directory: Path | str, rules: Rules, players: int) -> Any:
    """The game of `players` (three or more) of `rules` from `directory`: its exact table, or
    for four and five players without one, near-optimal play on the table of three
    (:class:`solver.game.reduced.ReducedTable`, its measured loss from
    :func:`near_optimal_loss`). A missing table of three is refused as that table, for the
    question about `players` (:meth:`solver.errors.StaleTableError.about_players`)."""
    from ..game.reduced import SMALL_PLAYERS, ReducedTable

    if players > SMALL_PLAYERS and not on_disk(ngame_table_path(directory, players)):
        try:
            small = read_ngame(directory, rules, SMALL_PLAYERS)
        except StaleTableError as exc:  # the question was the game of `players`
            raise exc.about_players(players) from None
        return ReducedTable(small, players, near_optimal_loss(players, rules.ties))
    return read_ngame(directory, rules, players)


def has_players(directory: Path | str, players: int) -> bool:
    """Whether :func:`read_players` finds a table for `players` in `directory`."""
    from ..game.reduced import SMALL_PLAYERS

    path = ngame_table_path(directory, players)
    return on_disk(path) or (players > SMALL_PLAYERS
                             and on_disk(ngame_table_path(directory, SMALL_PLAYERS)))


NEAR_OPTIMAL_FILE = "near-optimal.json"
"""The measured losses of near-optimal play (``scripts/measure_reduced.py`` writes it beside
the committed tables)."""


def near_optimal_loss(players: int, ties: str) -> dict[str, Any] | None:
    """What was measured of near-optimal play for `players` under the tie rule `ties`
    (:mod:`solver.game.reduced`): ``{"measured": [...]}``, each entry a
    :class:`solver.strategy.measure.Loss` of that many players, or of three (the same method
    one player down, onto the two-player table); None if nothing was (or the file is
    unreadable: the answers then say "not measured")."""
    import json

    from .paths import committed_dir

    try:
        entries = json.loads((committed_dir() / NEAR_OPTIMAL_FILE).read_text(encoding="utf-8"))
        kept = [e for e in entries["losses"]
                if e["players"] in (players, 3) and e["ties"] == ties]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return {"measured": kept} if kept else None


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


@dataclass(frozen=True)
class NGameTable:
    """A game table of ``N`` players as read: every phase's full value vectors."""

    rules: Rules
    players: int
    n_dice: int
    k_min: int
    k_max: int
    n_ded: int
    values: Mapping[str, FloatArray]
    """Per phase (size, N), seat 0 the mover; the last seat's is 1 minus the others'. Read
    from a file, a phase is decoded when first asked for (:class:`LazyPhases`)."""
    records: dict[str, dict[str, Any]]

    exact = True
    """Its values are those of the equilibrium the policy iteration reaches, to within the
    proved bounds of its records (:mod:`solver.game.nsolve`)."""
    method = "policy iteration on the turns, proved bounds"
    loss = None

    def seats(self) -> Any:
        from ..game.seats import Seats

        return Seats(players=self.players, n=self.rules.target // 100, k_min=self.k_min,
                     k_max=self.k_max, n_ded=self.n_ded, ties=self.rules.ties)

    def stacked(self, rows: IntArray | None = None) -> FloatArray:
        """The value table ``Z`` of :mod:`solver.game.seats` (every phase, the terminal rows).
        Read from a file it is read-only, and with `rows` only the phases holding those rows
        are sure to be decoded (the rest of ``Z`` is then undefined): an answer reads the
        phases its turn's endings lead to, not all of them."""
        if isinstance(self.values, LazyPhases):
            return self.values.table(rows)
        seats = self.seats()
        return np.concatenate([*(self.values[p] for p in seats.phases), seats.terminal])

    def objectives(self, me: int, others: Sequence[int], *,
                   final: bool = False) -> tuple[Objective, ...]:
        """:meth:`solver.game.table.GameTable.objectives`: every seat's, the mover's first."""
        from ..game.query import state_of, utilities

        phase, index = state_of(self, me, others, final=final)
        return tuple(utilities(self, phase, index))

    def chances(self, me: int, others: Sequence[int], *,
                final: bool = False) -> tuple[tuple[float, ...], dict[str, float]]:
        """:meth:`solver.game.table.GameTable.chances`: the state's values, and the mover's
        best turn after each card."""
        from ..game.query import card_chances, state_of

        phase, index = state_of(self, me, others, final=final)
        cards = {c: float(v[0]) for c, v in card_chances(self, phase, index, seats=1).items()}
        return tuple(float(x) for x in self.values[phase][index]), cards

    def win_play(self) -> SolvedWinPlay:
        """:meth:`solver.game.table.GameTable.win_play`: each state's turn solved when met."""
        from ..game.winplay import SolvedWinPlay

        return SolvedWinPlay(self)


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


def two_player_table(sol: GameSolution) -> NGameTable:
    """The two-player game table as a table of N players (N = 2): the same values, in the
    phases of :mod:`solver.game.seats` (its final turn ``G(a', b)`` the phase ``final1``,
    the mover ``b`` against the leader ``a'``)."""
    def pair(v: FloatArray) -> FloatArray:
        flat = np.ascontiguousarray(v, dtype=np.float64).reshape(-1)
        return np.stack([flat, 1.0 - flat], axis=1)

    from ..game import point_range

    values = {"sudden": pair(sol.sudden), "final1": pair(sol.beyond.T),
              "normal": pair(sol.win)}
    return NGameTable(rules=sol.rules, players=2, n_dice=sol.n_dice, k_min=sol.k_min,
                      k_max=sol.k_max, n_ded=point_range(sol.rules, sol.n_dice).n_ded,
                      values=values, records={})


def _header(rules: Rules, players: int, n_dice: int, seats: Any) -> dict[str, Any]:
    from ..game import deck

    return {
        "kind": "game",
        "format": NGAME_FORMAT_VERSION,
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


def pack_ngame(sol: Any) -> bytes:
    """The bytes of the table of an :class:`solver.game.records.NGameSolution`."""
    header = _header(sol.rules, sol.players, sol.n_dice, sol.seats)
    payload = {
        "header": header,
        "solve": {name: {k: r.as_dict()[k] for k in RECORD_FIELDS}
                  for name, r in sol.records.items()},
        "arrays": {name: pack_values(v[:, :-1]) for name, v in sol.values.items()},
    }
    return pack_envelope(payload, NGAME_FORMAT_VERSION)


def unpack_ngame(data: bytes, rules: Rules, players: int, *, source: str) -> NGameTable:
    """Read a table of `players`, refusing it unless intact and made for exactly `rules`."""
    from ..game.seats import PointRange, seats_of

    payload, refuse = open_table(data, table=f"game-{players}", source=source, rules=rules,
                                 version=NGAME_FORMAT_VERSION)
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
                raise ValueError(name)
        values = LazyPhases(seats, arrays, refuse)
        records = {name: dict(payload["solve"][name]) for name in seats.phases}
    except StaleTableError:
        raise
    except (AttributeError, IndexError, KeyError, TypeError, ValueError, zlib.error):
        raise refuse("incomplete table (a field is missing or malformed)") from None
    return NGameTable(rules=rules, players=players, n_dice=n_dice, k_min=seats.k_min,
                      k_max=seats.k_max, n_ded=seats.n_ded, values=values, records=records)


def write_ngame(sol: Any, directory: Path | str) -> Path:
    return write_atomically(ngame_table_path(directory, sol.players), pack_ngame(sol))


def read_ngame(directory: Path | str, rules: Rules, players: int) -> NGameTable:
    path = ngame_table_path(directory, players)
    data = read_file(path, refusal(f"game-{players}", path, rules))
    return unpack_ngame(data, rules, players, source=str(path))


class StoredPolicies(Mapping[str, "PhasePolicy"]):
    """The win policies of a game table read from disk, each phase decoded and checked against
    the orbits of the game's turns (:func:`solver.game.game_model`) when first asked for: what
    whole simulated games play. `winprob` and `advise --me/--opp` never ask, so they do not
    build the orbits (about 0.6 s)."""

    def __init__(self, entries: dict[str, Any], rules: Rules, n_dice: int,
                 columns: dict[str, int], refuse: Callable[[str], StaleTableError]) -> None:
        self._entries, self._rules, self._n_dice = entries, rules, n_dice
        self._columns, self._refuse = columns, refuse
        self._decoded: dict[str, PhasePolicy] = {}

    def __getitem__(self, phase: str) -> PhasePolicy:
        if phase not in self._columns:
            raise KeyError(phase)
        if phase not in self._decoded:
            self._decoded[phase] = self._decode(phase)
        return self._decoded[phase]

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)

    def _decode(self, phase: str) -> PhasePolicy:
        from ..game import game_model as _game_model
        from ..game.policies import PhasePolicy, codes_in_range

        refuse, columns = self._refuse, self._columns[phase]
        codes = {}
        try:
            for card, ct in _game_model(self._rules, self._n_dice).cards.items():
                for w in ct.model.worlds:
                    name = f"{card}/{WORLD_NAMES[w]}"
                    a = checked_array(self._entries[phase][name], f"policies.{phase}.{name}",
                                      (ct.st.n_fo, columns), "<i2", refuse)
                    if not codes_in_range(ct.st, a):
                        raise refuse(f"policy {phase}/{name} names moves its positions do not "
                                     "have")
                    codes[(card, w)] = a
        except StaleTableError:
            raise
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            raise refuse(f"incomplete policies of {phase} (a field is missing or "
                         "malformed)") from None
        return PhasePolicy(phase=phase, columns=columns, codes=codes)
