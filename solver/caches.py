"""Where the project keeps what it computes on demand: the user's cache directory.

``$SABORDS_CACHE_DIR``, else ``$XDG_CACHE_HOME/mille-sabords``, else
``~/.cache/mille-sabords``. Inside it: the tables of rules variants solved on demand
(``turn-*``, ``game-*`` folders, see :mod:`solver.tablepaths`) and numba's compiled kernels
(``numba/``, see :mod:`solver.engine.kernel`), never inside the source tree.

:func:`cache_entries` lists what is there (``sabords cache``); tables are keyed by the solver
version, so a new version leaves the old ones behind until they are removed
(:func:`remove_entry`).

Pure Python and cheap to import (every command's start-up path).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

CACHE_ENV = "SABORDS_CACHE_DIR"
"""Environment variable overriding the cache directory."""
NUMBA_DIR = "numba"


def cache_root() -> Path:
    """The user cache directory of on-demand tables and compiled kernels."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mille-sabords"


def numba_cache_dir() -> Path:
    """Where numba caches the compiled turn kernel (``NUMBA_CACHE_DIR``, unless the user set
    it; see :mod:`solver.engine.kernel`)."""
    return cache_root() / NUMBA_DIR


# -- what is in the cache, and clearing it ---------------------------------------------------

_TABLE_ENTRY = re.compile(
    r"(?P<kind>turn|game)-(?P<version>.+)-v(?P<format>\d+)-(?P<hash>[0-9a-f]{16})")
"""A table folder's name (:func:`solver.tablepaths.cache_key`): kind, solver version, table
format and rules hash."""


@dataclass(frozen=True)
class CacheEntry:
    """One folder of the cache: a variant's tables, or numba's compiled kernels."""

    path: Path
    kind: str
    """``turn`` (a variant's turn tables), ``game`` (its game table) or ``numba``."""
    size: int
    """Bytes of the files in it."""
    version: str | None = None
    """Tables: the solver version that made them."""
    format: int | None = None
    rules_hash: str | None = None



def _size(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += (Path(root) / name).lstat().st_size
            except OSError:
                pass
    return total


def cache_entries(root: Path | None = None) -> list[CacheEntry]:
    """The folders of the cache this project made (table folders and ``numba/``), by name;
    anything else in the directory is not ours and is left out."""
    root = cache_root() if root is None else root
    if not root.is_dir():
        return []
    entries = []
    for path in sorted(root.iterdir()):
        if not path.is_dir() or path.is_symlink():
            continue
        if path.name == NUMBA_DIR:
            entries.append(CacheEntry(path, NUMBA_DIR, _size(path)))
            continue
        m = _TABLE_ENTRY.fullmatch(path.name)
        if m is not None:
            entries.append(CacheEntry(path, m["kind"], _size(path), m["version"],
                                      int(m["format"]), m["hash"]))
    return entries


def remove_entry(entry: CacheEntry) -> None:
    """Delete one folder of the cache (only folders :func:`cache_entries` lists)."""
    shutil.rmtree(entry.path)
