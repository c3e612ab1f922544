"""Where tables live: the committed tables of the default rules and the user's cache.

An explicit directory is used as it is. Without one, the default rules read the committed tables
(:func:`committed_dir`), and any other variant is solved on demand and cached under the user's
cache directory (:func:`solver.caches.cache_root`), keyed by the kind, the solver and format
versions and the rules hash (:func:`cache_key`).

The committed tables are the repository's ``tables/`` (``make tables`` writes them). A wheel
installs the same files as the data of the package ``solver.tabledata`` (``pyproject.toml``
maps the directory), found with :mod:`importlib.resources`; a checkout (an editable install,
or the source on ``sys.path``) has no such package and reads ``tables/`` beside ``solver/``.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from .. import __version__
from ..caches import NUMBA_DIR, CacheEntry, cache_root
from ..errors import SettingsError, StaleTableError, quote
from ..limits import PATH_LIMIT
from ..rules.rulebook import Rules
from .fileformat import FORMAT_VERSION, GAME_FORMAT_VERSION

_T = TypeVar("_T")

COMMITTED_PACKAGE = "solver.tabledata"
"""The package whose data are the committed tables, in an installed wheel."""
_ANY_TABLE = "game-2.msgpack"
"""A file of the committed tables, to turn the package's resources into a directory."""


@lru_cache(maxsize=1)
def _checkout_tables() -> Path | None:
    """The repository's ``tables/``, when this package runs from a checkout."""
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "tables").is_dir():
        return root / "tables"
    return None


@lru_cache(maxsize=1)
def _installed_tables() -> Path | None:
    """The installed package data of the committed tables, if this package has them."""
    try:
        resources = importlib.resources.files(COMMITTED_PACKAGE)
    except ModuleNotFoundError:
        return None
    # A namespace package's resources are a MultiplexedPath: a file of it is a real path.
    return Path(str(resources.joinpath(_ANY_TABLE))).parent


def committed_dir() -> Path:
    """The directory of the committed tables of the default rules (module doc); a directory
    that does not exist when the package has neither its data nor a checkout."""
    found = _installed_tables() or _checkout_tables()
    return found if found is not None else Path(__file__).resolve().parents[1] / "tabledata"


def in_checkout() -> bool:
    """Whether the committed tables are a repository's ``tables/`` (``make tables`` rebuilds
    them there), not an installed package's data."""
    return _installed_tables() is None and _checkout_tables() is not None


def is_committed_dir(directory: Path | str) -> bool:
    """Whether `directory` holds the committed tables (they are never rebuilt on the fly: a
    stale one is refused with what makes it again, and no other rules' tables go there)."""
    try:
        return Path(directory).resolve() == committed_dir().resolve()
    except (OSError, RuntimeError):
        return False


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
    """Where the turn tables of `rules` live without a directory: the committed ones for the
    default rules, the cache's otherwise."""
    committed = committed_dir()
    if rules.turn_rules() == Rules() and committed.is_dir():
        return committed
    return cache_dir(rules)  # other rules, or a package installed without its tables


def game_default_dir(rules: Rules) -> Path:
    """Where the game table of `rules` lives without a directory (as :func:`default_dir`)."""
    committed = committed_dir()
    if rules == Rules() and committed.is_dir():
        return committed
    return game_cache_dir(rules)


def check_output(rules: Rules, directory: Path | str, kind: str) -> None:
    """Refuse to write the `kind` tables of rules other than the defaults into the committed
    tables' directory (the default advice would then be refused until they are rebuilt), and
    to write into an installed package's data at all."""
    if not is_committed_dir(directory):
        return
    default = (rules.turn_rules() if kind == "turn" else rules) == Rules()
    shown = quote(str(directory), PATH_LIMIT)
    if not default:
        raise SettingsError(f"{shown} holds the committed tables of the default rules: write "
                            f"other rules' tables into another directory", subject="out")
    if not in_checkout():
        raise SettingsError(f"{shown} holds the tables installed with mille-sabords: write "
                            f"tables into another directory", subject="out")


def cached(directory: Path, read: Callable[[], _T], build: Callable[[], _T],
           write: Callable[[_T], object]) -> _T:
    """A table from where it lives: from the committed tables, read (refusing what is
    stale); from the cache, read, or build and cache (an unwritable cache only costs a solve
    next time)."""
    if is_committed_dir(directory):
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
