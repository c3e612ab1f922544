"""The server's configuration (:class:`Settings`): the tables directories, the caches' sizes, the
limits of the solves on demand. What a request needs comes from here, never from the request.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..errors import NUMBER_PROBLEMS, SettingsError, number_problem, quote

ENV_PREFIX = "SABORDS_WEB_"
"""Settings of an application made from the environment (:meth:`Settings.from_env`):
``SABORDS_WEB_TABLES``, ``SABORDS_WEB_MAX_GAME_TARGET``..."""


@dataclass(frozen=True)
class Settings:
    """The server's configuration (:func:`solver.web.create_app`)."""

    tables_dir: Path | None = None
    """Read the turn tables from this directory (`sabords advise --tables`); None: the
    repository's tables for the default rules, the cache for the others."""
    game_tables_dir: Path | None = None
    """Read the game table from this directory (`--game-tables`); None: as for turn tables."""
    turn_tables: int = 48
    """Turn tables kept in memory (12 cards of 4 sets of rules)."""
    goal_solutions: int = 256
    """Solutions of a need or a win goal kept (about 60 to 100 kB each)."""
    game_tables: int = 4
    """Game tables kept (about 1 MB each)."""
    answers: int = 4096
    """Recent answers kept, as JSON (a few kB each)."""
    max_game_target: int = 6000
    """The largest target whose game is solved on demand (a table on disk is always read)."""
    solve_slots: int = 1
    """Goal solves at once."""
    solve_on_demand: bool = True
    """Solve the tables of other rules on demand (off: read only the tables on disk)."""
    solve_queue: int = 4
    """Table solves that may wait while one runs (more: 429)."""
    solve_wait: int = 30
    """The longest a table solve may wait for the solves ahead of it, seconds: expected to
    wait longer, 429 at once, with ``Retry-After``; kept waiting longer than expected, 429 as
    soon as that is expected (:class:`~.queue.SolveQueue`)."""
    solve_process: bool = True
    """Solve tables in a process of lower priority (:mod:`solver.web.solving`); off: in the
    serving process's thread (for a test that replaces the library's solver)."""
    goal_queue: int = 32
    """Goal solves that may wait while :attr:`solve_slots` run (more: 429)."""
    cache_mb: int = 256
    """The most megabytes of tables kept in the cache directory (the oldest removed)."""
    warm: bool = True
    """Read the default rules' tables at start-up."""
    allowed_hosts: tuple[str, ...] = ()
    """The host names a request may be addressed to (``Host``); empty: any (a server that
    listens on this machine only)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``SABORDS_WEB_<NAME>`` variables (for an application imported by
        another ASGI server: ``solver.web:app``); the others keep their defaults."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            text = env.get(ENV_PREFIX + f.name.upper())
            if text is None:
                continue
            default = getattr(cls(), f.name)
            if f.name.endswith("_dir"):
                values[f.name] = Path(text) if text else None
            elif isinstance(default, tuple):
                values[f.name] = tuple(x.strip() for x in text.split(",") if x.strip())
            elif isinstance(default, bool):
                values[f.name] = text.strip().lower() in ("1", "true", "yes", "on")
            else:
                why = number_problem(text)
                if why is not None:
                    raise SettingsError(f"{ENV_PREFIX}{f.name.upper()} takes a number, not "
                                        f"{quote(text)}, which {NUMBER_PROBLEMS[why]}",
                                        subject=f.name, values={"value": text, "why": why})
                values[f.name] = int(text)
        return cls(**values)


__all__ = ["ENV_PREFIX", "Settings"]
