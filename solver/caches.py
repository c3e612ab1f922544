"""Where the project keeps what it computes on demand: the user's cache directory.

``$SABORDS_CACHE_DIR`` (a leading ``~`` is the home directory), else
``$XDG_CACHE_HOME/mille-sabords`` (the XDG Base Directory rule: a relative value is ignored),
else ``~/.cache/mille-sabords``, the home directory from ``$HOME`` when it is an absolute path,
else from the system's user database. Inside it: the tables of rules variants solved on
demand (``turn-*``, ``game-*`` folders, see :mod:`solver.tables.paths`) and numba's compiled kernels
(``numba/``, see :mod:`solver.engine.kernel`), never inside the source tree.

:func:`cache_state` says why the path can hold no directory at all (not a directory, a name
too long for the file system, a loop of symbolic links, a path through a file, a symbolic link
to nothing);
:func:`cache_problem` says why the cache cannot hold a table solved now (not a directory,
not writable), so that a front end warns instead of promising a cache.
:func:`cache_entries` lists what is there (``sabords cache``); tables are keyed by the solver
version, so a new version leaves the old ones behind until they are removed
(:func:`remove_entry`).

Pure Python and cheap to import (every command's start-up path).
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

CACHE_ENV = "SABORDS_CACHE_DIR"
"""Environment variable overriding the cache directory."""
XDG_ENV = "XDG_CACHE_HOME"
NUMBA_DIR = "numba"


def _home() -> Path:
    """The home directory: ``$HOME`` if it is an absolute path, else the user database's."""
    home = os.environ.get("HOME", "")
    if os.path.isabs(home):
        return Path(home)
    try:
        import pwd

        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError, OSError):  # no user database (not on a Unix)
        return Path.home()


def cache_root() -> Path:
    """The user cache directory of on-demand tables and compiled kernels (module docstring),
    an absolute path."""
    own = os.environ.get(CACHE_ENV, "")
    if own.strip():
        if own.startswith("~"):
            own = str(_home()) + own[1:] if own == "~" or own.startswith("~/") else \
                os.path.expanduser(own)
        return Path(own).absolute()
    xdg = os.environ.get(XDG_ENV, "")
    base = Path(xdg) if os.path.isabs(xdg) else _home() / ".cache"
    return base / "mille-sabords"


def cache_source() -> str:
    """Where :func:`cache_root` comes from, for a message: the variable that names it."""
    if os.environ.get(CACHE_ENV, "").strip():
        return f"${CACHE_ENV}"
    if os.path.isabs(os.environ.get(XDG_ENV, "")):
        return f"${XDG_ENV}"
    return "the home directory"


def cache_problem(root: Path | None = None) -> str | None:
    """Why the cache cannot hold a table solved now (no directory can be there:
    :func:`cache_state`; it cannot be created or written), or None: the directory is created
    and tried with a scratch file (:func:`solver.limits.check_writable`)."""
    from .errors import SettingsError, quote
    from .limits import PATH_LIMIT, check_writable

    root = cache_root() if root is None else root
    state = cache_state(root)
    if state is not None:
        return f"the cache directory {quote(str(root), PATH_LIMIT)} {state}"
    try:
        check_writable(root, "the cache")
    except SettingsError as exc:
        return str(exc)
    return None


_CANNOT_BE_A_DIRECTORY = {
    errno.ENAMETOOLONG: "is too long for the file system",
    errno.ELOOP: "is a loop of symbolic links",
    errno.ENOTDIR: "goes through a file that is not a directory",
}
"""What the system says of a path that no directory can ever be at, in a message's words."""


def cache_state(root: Path | None = None) -> str | None:
    """What keeps the cache directory from being one at all, in words that follow its path
    ("is not a directory", "is too long for the file system", "is a loop of symbolic links",
    "goes through a file that is not a directory"), or None: it is a directory, or one can be
    made there (whether it can be written is :func:`cache_problem`'s to say)."""
    root = cache_root() if root is None else root
    try:
        if not stat.S_ISDIR(root.stat().st_mode):
            return "is not a directory"
    except FileNotFoundError:
        return _dangling(root)
    except OSError as exc:
        return unusable_path(exc) or f"cannot be looked at: {exc.strerror or exc}"
    return None


def _dangling(path: Path) -> str | None:
    """Words for a symbolic link on the way to `path` (itself included) whose target does not
    exist, where no directory can be made (the system says "File exists"); else None."""
    from .errors import quote
    from .limits import PATH_LIMIT

    for link in (path, *path.parents):
        try:
            if link.is_symlink() and not link.exists():
                target = quote(os.readlink(link), PATH_LIMIT)
                return (f"is a symbolic link to {target}, which does not exist" if link == path
                        else f"goes through the symbolic link {quote(str(link), PATH_LIMIT)} to "
                        f"{target}, "
                        "which does not exist")
        except OSError:
            return None
    return None


def on_disk(path: Path) -> bool:
    """Whether a file is at `path`: False where the system cannot even look (a name too long
    for the file system, a loop of symbolic links), as where there is none."""
    try:
        return path.is_file()
    except OSError:
        return False


def unusable_path(exc: OSError) -> str | None:
    """:func:`cache_state`'s words for an error no directory at that path can escape (a name
    too long, a loop of symbolic links, a file on the way), or None for any other error."""
    return _CANNOT_BE_A_DIRECTORY.get(exc.errno or 0)


def numba_cache_dir() -> Path:
    """Where numba caches the compiled turn kernel (``NUMBA_CACHE_DIR``, unless the user set
    it; see :mod:`solver.engine.kernel`)."""
    return cache_root() / NUMBA_DIR


# -- what is in the cache, and clearing it ---------------------------------------------------

_TABLE_ENTRY = re.compile(
    r"(?P<kind>turn|game)-(?P<version>.+)-v(?P<format>\d+)-(?P<hash>[0-9a-f]{16})")
"""A table folder's name (:func:`solver.tables.paths.cache_key`): kind, solver version, table
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
    anything else in the directory is not ours and is left out. A cache that is no directory
    (:func:`cache_state`: a name too long, a link to nothing...) holds none."""
    root = cache_root() if root is None else root
    if cache_state(root) is not None or not root.is_dir():
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
