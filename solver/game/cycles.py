"""Where best responses go round in a cycle, and a cyclic phase's end (:mod:`.solve`, module
doc: *what is proved and what is measured*, *the same bits*).

A cyclic phase is evaluated by :class:`PhaseEquations`. Its end, :func:`settle`, evaluates its
settled moves afresh so that its values depend on the moves alone. When the values stall,
:func:`one_at_a_time` lets one mover at a time change its turn; where that still cycles
(no pure equilibrium at those states), :func:`stable_profile` keeps the profile of the moves
whose movers lose least, and records that loss as measured slack.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine import FloatArray, IntArray
from .evaluate import evaluate
from .model import GameModel
from .records import EVAL_TOL, FINAL_EPS, FINAL_TOL, Checkpoint
from .seats import Seats
from .turns import Improved, improve

ADOPT = 1e-10
"""A phase's last near ties are settled by the one tie rule when that moves no value by more
than this (:func:`settle`)."""


def settle(ev: PhaseEquations, Z: FloatArray, start: FloatArray,
            best_responses: list[tuple[IntArray, np.ndarray, FloatArray, FloatArray]],
            digest: np.ndarray, lost: FloatArray) -> tuple[float, int]:
    """A cyclic phase's end (module doc, *the same bits*): the values of its moves evaluated
    afresh, so that they depend on the moves alone, not on the iteration's path; and the moves
    themselves every mover's best response at the last improvement by the one tie rule, where
    a mover kept another move within the precision (a near tie), if the values move by at most
    :data:`ADOPT` for it (with two players they did at 1000 and 6000, measured; with
    more, a mover's near tie can move another seat's value by more, and the kept moves stay).
    Returns the largest change of a value from the iterate, and the moves adopted."""
    iterate = Z[ev.offset:ev.offset + ev.endings.shape[0]].copy()
    kept = ev.settle(Z, start)
    at = np.concatenate([b[0] for b in best_responses] or [np.zeros(0, dtype=np.int64)])
    if at.shape[0] == 0:
        return kept, 0
    values = Z[ev.offset:ev.offset + ev.endings.shape[0]].copy()
    saved = ev.endings[at].copy()
    figures = (ev.residual, ev.sweeps)
    for where, _, endings, _ in best_responses:
        ev.endings[where] = endings
    ev.settle(Z, start)
    after = Z[ev.offset:ev.offset + ev.endings.shape[0]]
    if float(np.max(np.abs(after - values), initial=0.0)) > ADOPT:
        ev.endings[at] = saved  # the kept moves stay
        Z[ev.offset:ev.offset + ev.endings.shape[0]] = values
        ev.residual, ev.sweeps = figures
        return kept, 0
    for where, moves, _, lst in best_responses:
        digest[where], lost[where] = moves, lst
    return float(np.max(np.abs(after - iterate), initial=0.0)), int(at.shape[0])


def profile_hash(digest: np.ndarray) -> int:
    """A hash of the moves of every state of a phase (their digests, in order)."""
    import hashlib

    return int.from_bytes(hashlib.blake2b(np.ascontiguousarray(digest, dtype="<u8").tobytes(),
                                          digest_size=8).digest(), "little")


STALL = 4
"""Evaluations whose changes, within a factor 2 of each other, show the values stalled."""


def stalled(changes: FloatArray) -> bool:
    """Whether the last :data:`STALL` evaluations changed the values by about the same: the
    moves changing at a few near ties of the coarse turn solves, which a finer solve settles."""
    last = changes[-STALL:]
    return last.shape[0] == STALL and bool(last.min() > 0) and bool(last.max() <= 2 * last.min())


@dataclass
class PhaseEquations:
    """A cyclic phase's evaluation: its successors, and every state's endings."""

    offset: int
    order: IntArray
    points: IntArray
    island: IntArray
    p_island: FloatArray
    magic: int
    endings: FloatArray
    residual: float = 0.0
    sweeps: int = 0

    def solve(self, Z: FloatArray) -> float:
        """Evaluate the phase in `Z` from its current values; the largest change."""
        size = self.endings.shape[0]
        before = Z[self.offset:self.offset + size].copy()
        got = evaluate(Z, self.offset, self.order, self.endings, self.points, self.island,
                       self.p_island, self.magic, tol=EVAL_TOL)
        self.residual, self.sweeps = got.residual, got.sweeps
        return float(np.max(np.abs(Z[self.offset:self.offset + size] - before), initial=0.0))

    def settle(self, Z: FloatArray, start: FloatArray) -> float:
        """Evaluate the phase in `Z` afresh, its rows from `start`: its values are then a
        function of its endings and the other phases' rows alone. The largest change from
        the values it had."""
        size = self.endings.shape[0]
        before = Z[self.offset:self.offset + size].copy()
        Z[self.offset:self.offset + size] = start
        self.solve(Z)
        return float(np.max(np.abs(Z[self.offset:self.offset + size] - before), initial=0.0))


TickFn = Callable[[int], None]
"""Called before each evaluation of the phase that settling a cycle makes, with the count of
those done (a solve's progress: each is seconds at four players at 2000)."""


def _no_tick(done: int) -> None:
    pass


def _after(tick: TickFn, before: int, done: int) -> None:
    tick(before + done)


def one_at_a_time(gm: GameModel, seats: Seats, name: str, ev: PhaseEquations,
                   state: Checkpoint, digest: np.ndarray, swing: IntArray,
                   slack: FloatArray, tick: TickFn = _no_tick) -> None:
    """Settle the moves that the improvements change back and forth (at the states `swing`):
    from the last improvement's profile, evaluate the phase; the first of those states (in
    index order) whose best move differs takes it; again, until none would change. Each step
    is one mover's best response to all the others (sequential best responses). When those
    go round in a cycle, the profiles of the moves met at these states are tried in turn
    (:func:`stable_profile`). A state's mover keeps its move for a gain up to its `slack`.
    `tick`: told before each evaluation, with the count of those done."""
    order = np.sort(swing)
    seen: set[bytes] = set()
    met: list[dict[int, np.ndarray]] = [{} for _ in order]  # per state: digest -> endings
    for j, s in enumerate(order.tolist()):
        met[j][int(digest[s])] = ev.endings[s].copy()
    done = 0
    while True:
        tick(done)
        ev.solve(state.Z)
        done += 1
        now = _responses(gm, seats, name, order, state.Z, met)
        for j in range(order.shape[0]):
            met[j].setdefault(int(now.digest[j]), now.endings[j].copy())
        differ = np.flatnonzero(_gains(now, digest, order, state.Z, ev.offset) > slack[order])
        if differ.shape[0] == 0:
            return
        key = digest[order].tobytes()
        if key in seen:
            stable_profile(gm, seats, name, ev, state, digest, order, met, slack,
                           functools.partial(_after, tick, done))
            return
        seen.add(key)
        j = int(differ[0])
        ev.endings[order[j]] = now.endings[j]
        digest[order[j]] = now.digest[j]


def _responses(gm: GameModel, seats: Seats, name: str, order: IntArray, Z: FloatArray,
               met: list[dict[int, np.ndarray]]) -> Improved:
    """Every mover's best turn at the states `order`, solved at the final precision from `Z`:
    its value and moves, and its endings. A state's endings are pushed only where its moves
    are none of those met there (`met`: per state, the digest of each of its moves met so far
    and their endings, pushed at the same precision): the endings of moves met are the same
    bits (they depend on the moves alone), so each profile tried costs the turn solves alone.
    The margins are not computed (nothing here reads them). Four players at 300, whose normal
    play settles a cycle of 8 states over 273 profiles: 28.3 s before, 12.8 s since."""
    width = max(len(m) for m in met)
    known = np.zeros((order.shape[0], width), dtype=np.uint64)
    for j, m in enumerate(met):
        digests = list(m)  # (never empty: a state's own moves are met first)
        known[j] = digests + [digests[0]] * (width - len(digests))
    now = improve(gm, seats, name, order, Z, tol=FINAL_TOL, eps=FINAL_EPS, known=known,
                  margins=False)
    for j in np.flatnonzero(~now.fresh).tolist():
        now.endings[j] = met[j][int(now.digest[j])]
    return now


def _gains(now: Any, digest: np.ndarray, order: IntArray, Z: FloatArray,
           offset: int) -> FloatArray:
    """By how much the movers of the states `order` would gain by changing their moves: their
    best turn (`now`, solved at the final precision) over their moves' value, beyond that
    precision (0 where the best turn is their moves or gains no more)."""
    gain = now.best - Z[offset + order, 0] - FINAL_TOL
    return np.where(now.digest != digest[order], np.maximum(gain, 0.0), 0.0)


MAX_PROFILES = 4096
"""Profiles of moves :func:`stable_profile` tries before giving up."""
MAX_SLACK = 1e-4
"""The most a mover may gain by changing its turn at a state of a cycle (else no profile).
Three players at 6000 leave 7.8e-12 at their one cycle state; four players at target 300 with
8 dice leave 5.4e-6 at 2 states of normal play (of the 8 whose moves cycled; recorded)."""


class NoEquilibrium(RuntimeError):
    """Best responses cycle at some states and no profile of the moves met there is stable to
    :data:`MAX_SLACK` (or there are too many to try): the phase has no table."""


def stable_profile(gm: GameModel, seats: Seats, name: str, ev: PhaseEquations,
                    state: Checkpoint, digest: np.ndarray, order: IntArray,
                    met: list[dict[int, np.ndarray]], slack: FloatArray,
                    tick: TickFn = _no_tick) -> None:
    """Sequential best responses cycle at the states `order`: try every profile of the moves
    met there (each state's in the order they were met, the first state's varying slowest)
    until one is stable (every mover's best response is its own move, or gains at most its
    `slack`), adding the best responses met on the way and trying again. When none is and no
    new move turns up (a pure stationary equilibrium need not exist, as in matching pennies:
    each mover's best move is the other of the two at the other state's), the profile whose
    largest gain is least, the first of those tried, is kept and each of its movers may leave
    twice its gain (`slack`, recorded as :attr:`PhaseRecord.slack`); :class:`NoEquilibrium`
    if even that gain is above :data:`MAX_SLACK`. With more than :data:`MAX_PROFILES` profiles
    to try (five players at target 500: 51 states, 2^51 profiles), the profile the cycle is
    at is kept the same way if its largest gain is within :data:`MAX_SLACK`. `tick`: told
    before each evaluation, with the count of those done."""
    import itertools

    least: tuple[float, tuple[int, ...], FloatArray] | None = None
    done = 0
    while True:
        options = [list(m.items()) for m in met]
        count = 1
        for o in options:
            count *= len(o)
        if count > MAX_PROFILES:  # too many to try: the profile the cycle is at, if its
            # movers leave little (recorded as the slack, like a least-gain profile's)
            tick(done)
            ev.solve(state.Z)
            now = _responses(gm, seats, name, order, state.Z, met)
            gains = _gains(now, digest, order, state.Z, ev.offset)
            if gains.max(initial=0.0) > MAX_SLACK:
                raise NoEquilibrium(
                    f"{name}: best responses cycle at {order.shape[0]} states ({count} "
                    f"profiles of their moves: too many to try), and the profile they are at "
                    f"leaves a mover {gains.max():.1e}")
            slack[order] = np.maximum(slack[order], 2.0 * gains)
            return
        new = False
        for profile in itertools.product(*(range(len(o)) for o in options)):
            for j, pick in enumerate(profile):
                d, endings = options[j][pick]
                ev.endings[order[j]] = endings
                digest[order[j]] = np.uint64(d)
            tick(done)
            ev.solve(state.Z)
            done += 1
            now = _responses(gm, seats, name, order, state.Z, met)
            gains = _gains(now, digest, order, state.Z, ev.offset)
            if not (gains > slack[order]).any():
                return
            if least is None or gains.max() < least[0]:
                least = (float(gains.max()), profile, gains)
            for j in range(order.shape[0]):
                if int(now.digest[j]) not in met[j]:
                    met[j][int(now.digest[j])] = now.endings[j].copy()
                    new = True
        if not new:
            break
    assert least is not None
    worst, profile, gains = least
    if worst > MAX_SLACK:
        raise NoEquilibrium(f"{name}: no profile of the moves met at {order.shape[0]} states "
                            f"is stable (each mover's best response to the others): the "
                            f"least gain a mover leaves is {worst:.1e}")
    for j, pick in enumerate(profile):
        d, endings = options[j][pick]
        ev.endings[order[j]] = endings
        digest[order[j]] = np.uint64(d)
    slack[order] = np.maximum(slack[order], 2.0 * gains)
    ev.solve(state.Z)
