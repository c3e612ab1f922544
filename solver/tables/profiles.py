"""The edge of playing to win, computed once beside the committed game table it belongs to.

Every seat's chance from the start when one seat alone plays to win against the others playing
for points, and the reverse (:func:`solver.game.profiles.edge_of_play`), takes about 20
minutes for three players at 6000 on 2 cores: the win turns of every state of the table, then
six linear systems. ``scripts/profiles.py`` (``make profiles``) computes it into
``tables/profiles.json``, and the strategy report reads it there instead of solving it again.

An entry names the table it was computed from: the players, the rules hash and the SHA-256 of
the table's file. A table solved again, or other rules, leaves the entry stale: it is refused
with the command that computes it again (:class:`ProfilesMissing`), never used.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rules.rulebook import Rules
from .game import game_table_path
from .paths import committed_dir

PROFILES_FILE = "profiles.json"
"""Beside the committed tables (``scripts/profiles.py`` writes it)."""
COMMAND = "make profiles"


class ProfilesMissing(LookupError):
    """No entry of ``tables/profiles.json`` for a table as it is now (the message says why
    and names the command that computes it)."""


def table_digest(players: int, directory: Path | None = None) -> str:
    """``sha256:<hex>`` of the committed game table file of `players`."""
    path = game_table_path(directory or committed_dir(), players)
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class StoredEdge:
    """One entry of the file: :class:`solver.game.profiles.EdgeOfPlay`'s figures and how they
    were made."""

    players: int
    rules_hash: str
    target: int
    table: str
    """The digest of the table file they were computed from (:func:`table_digest`)."""
    profiles: tuple[tuple[str, ...], ...]
    start: tuple[tuple[float, ...], ...]
    residual: float
    seconds: float
    peak_gb: float | None

    def lone(self, way: str) -> list[float]:
        """Per seat, its chance when it alone plays `way` (``win`` or ``points``)."""
        return [next(s[i] for p, s in zip(self.profiles, self.start, strict=True)
                     if p[i] == way and p.count(way) == 1) for i in range(self.players)]

    def as_json(self) -> dict[str, Any]:
        return {"players": self.players, "rules_hash": self.rules_hash, "target": self.target,
                "table": self.table, "profiles": [list(p) for p in self.profiles],
                "start": [list(s) for s in self.start], "residual": self.residual,
                "seconds": self.seconds, "peak_gb": self.peak_gb}


def _entries(path: Path) -> list[dict[str, Any]]:
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))["entries"]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ProfilesMissing(f"{path} is unreadable ({e}): run `{COMMAND}` to write it "
                              f"again") from None
    return list(entries)


def write_edge(entry: StoredEdge, directory: Path | None = None) -> Path:
    """Keep `entry` in the file, in place of any entry of the same players and rules."""
    path = (directory or committed_dir()) / PROFILES_FILE
    kept = [e for e in _entries(path)
            if (e.get("players"), e.get("rules_hash")) != (entry.players, entry.rules_hash)]
    kept.append(entry.as_json())
    kept.sort(key=lambda e: (e["players"], e["rules_hash"]))
    about = ("Every seat's chance from the start when one seat alone plays to win against "
             "the others playing for points, and the reverse (solver/game/profiles.py: "
             "edge_of_play), computed by scripts/profiles.py from the table file whose "
             "digest is `table`; the strategy report reads it.")
    text = json.dumps({"about": about, "entries": kept}, indent=1, ensure_ascii=False)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def read_edge(rules: Rules, players: int, directory: Path | None = None) -> StoredEdge:
    """The entry for the committed table of `players` under `rules` as it is now, or
    :class:`ProfilesMissing`."""
    where = directory or committed_dir()
    path = where / PROFILES_FILE
    found = [e for e in _entries(path)
             if e.get("players") == players and e.get("rules_hash") == rules.hash]
    if not found:
        raise ProfilesMissing(f"{path} holds no edge of play for {players} players under "
                              f"these rules (hash {rules.hash}): run `{COMMAND}`")
    e = found[0]
    now = table_digest(players, where)
    if e["table"] != now:
        raise ProfilesMissing(f"{path}: the edge of play of {players} players was computed "
                              f"from another table ({e['table'][:19]}…, the table is now "
                              f"{now[:19]}…): run `{COMMAND}`")
    return StoredEdge(players=e["players"], rules_hash=e["rules_hash"], target=e["target"],
                      table=e["table"], profiles=tuple(tuple(p) for p in e["profiles"]),
                      start=tuple(tuple(float(x) for x in s) for s in e["start"]),
                      residual=float(e["residual"]), seconds=float(e["seconds"]),
                      peak_gb=None if e["peak_gb"] is None else float(e["peak_gb"]))
