"""Game tables on disk: the two-player game, ``game.msgpack``, and the games of three
players and more, ``game-<N>.msgpack``.

Each file is one envelope of :mod:`solver.tablefile`; where a table lives is
:mod:`solver.tablepaths`; the turn tables are :mod:`solver.turntables`.

- ``game.msgpack``: the three phases of :mod:`solver.game` for one rules object, target and
  ties included (:class:`solver.game.GameSolution`): the win probabilities, the certificates,
  every state's win policy (zlib).
- ``game-<N>.msgpack``: every phase's values of an ``N``-player game
  (:mod:`solver.game.nsolve`) and what was proved and measured of them. Header: ``kind``
  ``game``, ``players``, the rules (target and ties included) and their hash, ``n_dice``, the
  deck, the point range, every phase's box of totals (:class:`solver.game.seats.Phase`);
  ``solve``: each phase's record (:class:`solver.game.nsolve.PhaseRecord`: iterations, proved
  bound, measured gap...). Arrays: per phase the values of seats 0 to ``N - 2`` (the last
  seat's is 1 minus the others', as the solve sums them), float64, their bytes shuffled (the
  k-th byte of every value together) and compressed with zlib at level 9.

The same rules give the same bytes. Loading checks the kind, the rules
(:func:`solver.tablefile.open_table`), the players, the point range and every phase's box,
every array's shape and type, and that the values are probabilities.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import __version__
from .engine.geometry import FloatArray
from .engine.model import WORLD_NAMES
from .errors import StaleTableError
from .rules import Rules
from .tablefile import (
    GAME_FORMAT_VERSION,
    checked_array,
    open_table,
    pack_array,
    pack_compressed,
    pack_envelope,
    read_file,
    refusal,
    write_atomically,
)
from .tablepaths import cached, game_default_dir

if TYPE_CHECKING:
    from .game import GameSolution, ProgressFn

GAME_FILE = "game.msgpack"


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


def unpack_game(data: bytes, rules: Rules, *, source: str) -> GameSolution:
    """Read game table bytes, refusing them unless intact, made for exactly `rules`, and
    every array of the shape the target and the point range call for."""
    from .game import (
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
    from .game.policies import StoredPolicies

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
    from .game import solve_game

    if tables_dir is not None:
        return read_game(tables_dir, rules)
    directory = game_default_dir(rules)
    return cached(directory, lambda: read_game(directory, rules),
                   lambda: solve_game(rules, progress=progress),
                   lambda s: write_game(s, directory))


# --------------------------------------------------------------------------------------------
# Three players and more
# --------------------------------------------------------------------------------------------


NGAME_FORMAT_VERSION = 1
"""The format of ``game-<N>.msgpack``: a change bumps it, and older tables are refused."""
RECORD_FIELDS = ("iterations", "changed", "tol", "gap", "residual", "sweeps", "turns",
                 "lost", "bound", "cycles", "slack")
"""What a phase's record keeps in the table: everything that does not depend on how the solve
was spread (the distinct columns solved do: they are counted per block)."""


def ngame_file(players: int) -> str:
    return f"game-{players}.msgpack"


def ngame_table_path(directory: Path | str, players: int) -> Path:
    return Path(directory) / ngame_file(players)


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
    values: dict[str, FloatArray]
    """Per phase (size, N), seat 0 the mover; the last seat's is 1 minus the others'."""
    records: dict[str, dict[str, Any]]

    def seats(self) -> Any:
        from .game.seats import Seats

        return Seats(players=self.players, n=self.rules.target // 100, k_min=self.k_min,
                     k_max=self.k_max, n_ded=self.n_ded, ties=self.rules.ties)

    def stacked(self) -> FloatArray:
        """The value table ``Z`` of :mod:`solver.game.seats` (every phase, the terminal rows)."""
        seats = self.seats()
        return np.concatenate([*(self.values[p] for p in seats.phases), seats.terminal])


def two_player_table(sol: GameSolution) -> NGameTable:
    """The two-player game table as a table of N players (N = 2): the same values, in the
    phases of :mod:`solver.game.seats` (its final turn ``G(a', b)`` the phase ``final1``,
    the mover ``b`` against the leader ``a'``)."""
    def pair(v: FloatArray) -> FloatArray:
        flat = np.ascontiguousarray(v, dtype=np.float64).reshape(-1)
        return np.stack([flat, 1.0 - flat], axis=1)

    from .game import point_range

    values = {"sudden": pair(sol.sudden), "final1": pair(sol.beyond.T),
              "normal": pair(sol.win)}
    return NGameTable(rules=sol.rules, players=2, n_dice=sol.n_dice, k_min=sol.k_min,
                      k_max=sol.k_max, n_ded=point_range(sol.rules, sol.n_dice).n_ded,
                      values=values, records={})


def _header(rules: Rules, players: int, n_dice: int, seats: Any) -> dict[str, Any]:
    from .game import deck

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
        "phases": {name: {"lo": list(p.lo), "hi": list(p.hi)}
                   for name, p in seats.phases.items()},
    }


def pack_ngame(sol: Any) -> bytes:
    """The bytes of the table of an :class:`solver.game.nsolve.NGameSolution`."""
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
    from .game.model import PointRange
    from .game.seats import seats_of

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
        values = {}
        for name, phase in seats.phases.items():
            stored = unpack_values(payload["arrays"][name], (phase.size, players - 1))
            full = np.empty((phase.size, players))
            full[:, :-1] = stored
            others = np.zeros(phase.size)
            for i in range(players - 1):  # in seat order, as the solve sums them
                others = others + stored[:, i]
            full[:, -1] = 1.0 - others
            if not np.all((stored >= 0.0) & (stored <= 1.0)):
                raise refuse(f"phase {name!r} holds values outside [0, 1]")
            values[name] = full
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
