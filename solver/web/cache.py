"""A bounded, thread-safe cache that computes each missing value once.

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
from typing import Generic, TypeVar

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


__all__ = ["BoundedCache"]
