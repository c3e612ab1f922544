"""Where tables live: the repository's committed tables and the user's cache.

An explicit directory is used as it is. Without one, the default rules read the committed tables
of the repository (``tables/``, made by ``make tables``), and any other variant is solved on
demand and cached under the user's cache directory (:func:`solver.caches.cache_root`), keyed by
the kind, the solver and format versions and the rules hash (:func:`cache_key`).
"""

from __future__ import annotations

from pathlib import Path

from . import __version__
from .caches import NUMBA_DIR, CacheEntry, cache_root
from .rules import Rules
from .tablefile import FORMAT_VERSION, GAME_FORMAT_VERSION


def repo_tables_dir() -> Path:
    """The repository's `tables/` directory (committed tables of the default rules)."""
    return Path(__file__).resolve().parent.parent / "tables"


def is_repo_dir(directory: Path | str) -> bool:
    """Whether `directory` is the repository's `tables/` (its tables are never rebuilt on
    the fly: a stale one is refused with the command that makes it again)."""
    return Path(directory) == repo_tables_dir()


def cache_key(kind: str, rules_hash: str) -> str:
    """The cache folder name: the solver version (a new solver may break ties or round
    differently), the format version and the rules hash."""
    version = GAME_FORMAT_VERSION if kind == "game" else FORMAT_VERSION
    return f"{kind}-{__version__}-v{version}-{rules_hash}"


def is_current(entry: CacheEntry) -> bool:
    """Whether this solver reads the tables of a cache folder: its name is the one this version
    writes for its kind and rules hash (each kind has its own format version). numba's kernels
    are always current: numba checks them itself."""
    if entry.kind == NUMBA_DIR or entry.rules_hash is None:
        return True
    return entry.path.name == cache_key(entry.kind, entry.rules_hash)


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
