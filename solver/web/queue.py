"""The queue of the solves a server makes on demand (:class:`SolveQueue`): at most so many at
once and so many waiting, each refused at once (:class:`SolverBusy`, HTTP 429 with
``Retry-After``) when it would wait longer than the server's bound; a solve whose client left
while it waited is not started (:func:`answering`, :class:`Abandoned`).
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import SettingsError

T = TypeVar("T")


class SolverBusy(SettingsError):
    """The queue of solves is full, or would keep a new solve waiting longer than the server's
    bound (HTTP 429): try again after :attr:`retry_after` seconds."""

    def __init__(self, queued: int, retry_after: int) -> None:
        ahead = f"{queued} solve{'s' if queued != 1 else ''} ahead"
        super().__init__(f"the server is busy solving other rules ({ahead}): try again in "
                         f"{retry_after} s", subject="variant", kind="busy",
                         values={"queued": queued, "retry_after": retry_after})
        self.retry_after = retry_after


class Abandoned(Exception):
    """The client that asked for a solve left before it started: it is not started."""


_waiter = threading.local()
"""The request a thread answers: ``_waiter.gone``, an event set when its client has left
(:func:`answering`)."""


def answering(gone: threading.Event, fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` on behalf of a client whose leaving sets `gone`: a solve it would start is
    then not started (:class:`Abandoned`)."""
    _waiter.gone = gone
    try:
        return fn(*args)
    finally:
        _waiter.gone = None


POLL = 0.1
"""How often a waiting solve looks again (its client gone, its start expected too late)."""


class SolveQueue:
    """At most `running` solves at once and `waiting` more waiting; beyond, or when a new solve
    would wait more than `max_wait` seconds, :class:`SolverBusy` at once (a wait the client
    gives up before its end is no queue). A solve's expected seconds are given with it (a game:
    :func:`solver.limits.game_cost`) or are the mean of the last solves of the queue
    (`first_guess` before any), a given cost scaled by how long the last solves took against
    theirs, or by how long a solve running now has taken against its own where that is more;
    the wait of a new solve is what the solves ahead of it still expect to take.
    A solve may also be given a one-time cost (`once`: numba's kernels compiled before a first
    game solve, :data:`solver.limits.COMPILE_SECONDS`): it is expected on top, and such a
    solve's time teaches the queue nothing (its own part is not known apart from the compiling).
    ``Retry-After`` is that wait, at least 1 s. A solve waiting is refused so too as soon as its
    start is expected past `max_wait` from its question, the solves ahead of it taking longer
    than expected (at the latest a poll, :data:`POLL`, before it has waited `max_wait`): no
    solve that starts has waited longer. A solve whose client has left while it waited
    (:func:`answering`) is not started."""

    def __init__(self, running: int, waiting: int, first_guess: float,
                 max_wait: float = math.inf) -> None:
        self.running = max(1, running)
        self.waiting = max(0, waiting)
        self.max_wait = max_wait
        self._slots = threading.BoundedSemaphore(self.running)
        self._lock = threading.Lock()
        self.queued = 0
        """Solves running or waiting."""
        self.most = 0
        """The most solves that ran at once (for the tests and the health answer)."""
        self._now = 0
        self.refused = 0
        self.refused_late = 0
        """Of the refused, those refused while they waited (the solves ahead of them took longer
        than expected)."""
        self.abandoned = 0
        self._durations: deque[float] = deque(maxlen=8)
        self._ratios: deque[float] = deque(maxlen=8)
        self._first_guess = first_guess
        self.longest_wait = 0.0
        """The longest a solve waited from its question to its start, seconds (what the
        bound `max_wait` is about: measured, where the bound is on what is expected)."""
        self._ahead: dict[int, tuple[float, bool, float, float | None]] = {}
        """Each solve running or waiting: its seconds before scaling (its given cost, or the
        mean of the last solves), whether it is scaled, its one-time seconds, and when it
        started."""
        self._ids = 0

    def _scale(self) -> float:
        """How much longer than their given cost the last solves took (1 before any): this
        machine, under its load of the moment."""
        return sum(self._ratios) / len(self._ratios) if self._ratios else 1.0

    def _mean(self) -> float:
        return (sum(self._durations) / len(self._durations) if self._durations
                else self._first_guess)

    def _live_scale(self, now: float) -> float:
        """:meth:`_scale`, or more where a solve running now has already taken longer than its
        scaled cost: the machine is slower at this moment than the last solves say (under a
        sudden load the first solves overran their costs, and the solves admitted behind them
        waited past the bound)."""
        scale = self._scale()
        for base, scaled, once, start in self._ahead.values():
            # (not a solve with a one-time part: its compiling's own overrun is no measure of
            # the machine, as its time teaches the queue nothing once ended)
            if scaled and start is not None and base > 0 and once == 0:
                scale = max(scale, (now - start) / base)
        return scale

    def expected_wait(self, before: int | None = None) -> float:
        """The seconds a solve queued now would wait: what the solves ahead still expect, each
        given cost scaled by :meth:`_live_scale` (`before`: of a solve waiting, those running
        and those queued before it; the solves need not start in the order they came). A solve
        with no cost given (its time the mean of the last ones) that runs past it is expected
        to end now."""
        now = time.monotonic()
        scale = self._live_scale(now)
        left = []
        for at, (base, scaled, once, start) in self._ahead.items():
            if before is not None and start is None and at >= before:
                continue
            cost = base * (scale if scaled else 1.0) + once
            left.append(cost if start is None else max(0.0, cost - (now - start)))
        if len(left) < self.running:
            return 0.0
        return sum(left) / self.running

    def run(self, make: Callable[[], T], cost: float | None = None, once: float = 0.0) -> T:
        """`make()` in its turn (class docstring); `cost`: its expected seconds; `once`: the
        seconds it takes first, this time only (learnt from by no estimate)."""
        gone: threading.Event | None = getattr(_waiter, "gone", None)
        with self._lock:
            base = self._mean() if cost is None else cost
            wait = self.expected_wait()
            # (a poll's margin, as a waiting solve has: one admitted is not refused at once)
            if self.queued >= self.running + self.waiting or wait + POLL > self.max_wait:
                self.refused += 1
                raise SolverBusy(max(0, self.queued - self.running + 1),
                                 max(1, math.ceil(wait)))
            self.queued += 1
            self._ids += 1
            me = self._ids
            self._ahead[me] = (base, cost is not None, once, None)
        asked = time.monotonic()
        try:
            while not self._slots.acquire(timeout=POLL):
                if gone is not None and gone.is_set():
                    with self._lock:
                        self.abandoned += 1
                    raise Abandoned()
                # the solves ahead take longer than expected: refused as soon as its start is
                # expected past the bound (at the latest a poll before it has waited that long)
                with self._lock:
                    left = self.expected_wait(before=me)
                    if time.monotonic() - asked + left + POLL > self.max_wait:
                        self.refused += 1
                        self.refused_late += 1
                        raise SolverBusy(sum(at < me or start is not None
                                             for at, (*_, start) in self._ahead.items()),
                                         max(1, math.ceil(left)))
            try:
                if gone is not None and gone.is_set():
                    with self._lock:
                        self.abandoned += 1
                    raise Abandoned()
                start = time.monotonic()
                with self._lock:
                    self._now += 1
                    self.most = max(self.most, self._now)
                    self._ahead[me] = (base, cost is not None, once, start)
                    self.longest_wait = max(self.longest_wait, start - asked)
                try:
                    return make()
                finally:
                    took = time.monotonic() - start
                    with self._lock:
                        if once > 0:
                            pass  # mostly the one-time part: nothing learnt of the solves
                        elif cost is None:
                            self._durations.append(took)
                        elif cost > 0:
                            self._ratios.append(took / cost)
                        self._now -= 1
            finally:
                self._slots.release()
        finally:
            with self._lock:
                self.queued -= 1
                self._ahead.pop(me, None)

    def stats(self) -> dict[str, float]:
        return {"running": self.running, "waiting": self.waiting, "queued": self.queued,
                "most_at_once": self.most, "refused": self.refused,
                "refused_late": self.refused_late, "abandoned": self.abandoned,
                "longest_wait_s": round(self.longest_wait, 3)}


__all__ = ["Abandoned", "SolveQueue", "SolverBusy", "answering"]
