"""What the server keeps: a bounded, thread-safe cache that computes each missing value once
(:class:`BoundedCache`), and the cache directory's tables pruned to a size (:func:`prune_cache`).

The server answers from several threads (Starlette's thread pool, or several workers each with
its own caches): :class:`BoundedCache` keeps at most ``size`` values, dropping the least
recently used first, so that memory stays bounded however many distinct questions arrive; and
concurrent requests for the same missing value wait for one computation instead of starting
one each ("single flight"). A computation that raises caches nothing: the next request tries
again (a bad input raises before anything is solved, so errors are never stored).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """At most `size` values, least recently used dropped first (module docstring)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a cache holds at least one value, not {size}")
        self.size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._flights: dict[K, threading.Lock] = {}
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def peek(self, key: K) -> V | None:
        """The value of `key` if it is cached (made the most recently used), else None."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                self.hits += 1
                return self._values[key]
        return None

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value of `key`, made by `make()` if it is not cached (once for all the threads
        asking at the same time)."""
        found = self.peek(key)
        if found is not None:
            return found
        with self._lock:
            flight = self._flights.setdefault(key, threading.Lock())
        with flight:
            with self._lock:
                if key in self._values:  # made by the thread we waited for
                    self._values.move_to_end(key)
                    self.hits += 1
                    return self._values[key]
            try:
                value = make()
                self.put(key, value)
            finally:
                with self._lock:
                    self._flights.pop(key, None)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self.misses += 1
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.size:
                self._values.popitem(last=False)

    def stats(self) -> dict[str, int]:
        return {"size": self.size, "entries": len(self._values), "hits": self.hits,
                "misses": self.misses}


def prune_cache(most_bytes: int, keep: Path | None = None) -> list[Path]:
    """Remove the oldest folders of tables from the cache directory until its tables take at
    most `most_bytes` (never `keep`, the folder just written; never numba's kernels). Returns
    the folders removed."""
    from ..caches import NUMBA_DIR, cache_entries, remove_entry

    entries = [e for e in cache_entries() if e.kind != NUMBA_DIR]
    total = sum(e.size for e in entries)
    removed: list[Path] = []

    def age(entry: Any) -> float:
        try:
            return float(entry.path.stat().st_mtime)
        except OSError:
            return 0.0

    for entry in sorted(entries, key=age):
        if total <= most_bytes:
            break
        if keep is not None and entry.path == keep:
            continue
        try:
            remove_entry(entry)
        except OSError:
            continue
        total -= entry.size
        removed.append(entry.path)
    return removed


__all__ = ["BoundedCache", "prune_cache"]
