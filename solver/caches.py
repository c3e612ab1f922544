"""Where the project keeps what it computes on demand: the user's cache directory.

``$SABORDS_CACHE_DIR``, else ``$XDG_CACHE_HOME/mille-sabords``, else
``~/.cache/mille-sabords``. Inside it: the tables of rules variants solved on demand
(``turn-*``, ``game-*`` folders, see :mod:`solver.tables`) and numba's compiled kernels
(``numba/``, see :mod:`solver.engine.kernel`), never inside the source tree.

Pure Python and cheap to import (every command's start-up path).
"""

from __future__ import annotations

import os
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
