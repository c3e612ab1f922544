r"""The game for any number of players as data: the states of every phase, and where each
ending of a turn leads (RULES.md, "End of the game", read for ``N`` players).

**States.**  Seats play in order. A state is every player's total (units of 100) seen from the
seat about to move: seat 0 is the mover, seats 1, 2, ... follow in seat order. Its value is a
vector, one probability of winning per seat (summing to 1); the tables store seats 0 to
``N - 2``, the last is the rest. A turn's ending moves to a state seen from the next seat: its
seat ``j`` is this state's seat ``j + 1`` (seat 0, the player who just moved, is its seat
``N - 1``): *the rotation*, the same for every ending, so that one table serves every seat.

**Phases** (each a dense box of totals, one range a seat):

* ``normal``: every total below the target ``n``. A turn ending with ``k`` points (totals never
  fall below 0) at ``t' < n`` passes the move; at ``t' >= n`` the player *triggers* the final
  round: ``final{N-1}``.
* ``final{r}``: ``r`` final turns to play, the mover's first. The mover and the ``r - 1`` seats
  after it have not played theirs (below the target); seat ``r`` triggered (at or above the
  target, unless Skull Island pushed it back); the seats after it have played. After the last
  (``final1``): if someone is at or above the target, the highest total wins, a tie shared by
  the tied players (``ties=trigger``: the one who reached the target first, the trigger and then
  the final turns in seat order); if nobody is, play goes on in ``sudden`` death with the next
  seat, the trigger.
* ``sudden``: every total below the target; the next player to end a turn at or above it wins.

Skull Island deducts from every other seat; pirate magic wins at once. The terminal results
(who wins: a set of seats sharing) are rows of a small table too, written in the frame of the
next state like every other ending, so that *every* ending is a row of one stacked value table
``Z`` (:meth:`Seats.offset`), read through the same rotation.

With two players, ``final1`` is the final turn ``G`` of :mod:`.model`'s lookups, which value
iteration reads from here (:func:`.model.lookup`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import prod
from typing import Any

import numpy as np

from ..engine import FloatArray, IntArray
from ..rules.standing import MAX_PLAYERS

NORMAL, FINAL, SUDDEN = "normal", "final", "sudden"
"""The kinds of phases of the game (module doc)."""
SUCCESSOR_CHUNK = 16_384
"""States whose successors :meth:`Seats.successor_table` builds at a time (about 140 MB of
working arrays)."""


@dataclass(frozen=True)
class PointRange:
    """The ranges of a game's utility tables, from the cards' turn models alone (no orbits):
    what reading a game table and a state's utility need."""

    k_min: int
    k_max: int
    """The least and the most points (units) a turn can end with, over the deck."""
    n_ded: int
    """Deductions of Skull Island are 0..n_ded - 1 units."""


@dataclass(frozen=True)
class Phase:
    """One phase's states: a box of totals, one range a seat (seat 0 the mover); a final-round
    phase with seats that have played is *compact* (:attr:`safe`)."""

    name: str
    kind: str
    """:data:`NORMAL`, :data:`SUDDEN` or :data:`FINAL`."""
    remaining: int
    """Final turns still to play, the mover's included (``final`` phases; 0 otherwise)."""
    lo: tuple[int, ...]
    hi: tuple[int, ...]
    """Seat ``i``'s totals are ``lo[i] .. hi[i] - 1`` units."""
    safe: int = 0
    """0: every state of the box is a row. Otherwise (a final-round phase with seats that have
    played): the total at or above which the leader of the trigger and the seats that have
    played stays at or above the target whatever the ``remaining`` turns do (each turn's Skull
    Island deducts at most ``n_ded - 1`` units, and only the first roll goes there). In a
    state where that leader is that high, nobody is pushed back to sudden death, so a seat of
    those below the leader never wins (the deductions keep their order): its total changes
    nothing, and the state is the row of the same totals with it at 0, one row for each
    set of seats sharing the lead and the lead's total (:meth:`encode`). The rows are the box
    with those seats' totals below `safe` (every such state its own row), then the led rows.
    Every seat's value is the same at a state and at its row (the seats set to 0 have 0
    either way)."""

    @property
    def _rest(self) -> int:
        """The first seat of the trigger and the seats that have played (``remaining``)."""
        return self.remaining

    @cached_property
    def _box_hi(self) -> tuple[int, ...]:
        if not self.safe:
            return self.hi
        r = self._rest
        return self.hi[:r] + tuple(min(h, self.safe) for h in self.hi[r:])

    @cached_property
    def _box_size(self) -> int:
        return prod(max(h - lo, 0) for lo, h in zip(self.lo, self._box_hi, strict=True))

    @property
    def _leads(self) -> int:
        """The sets of seats that can share the lead (non-empty subsets of the rest)."""
        return int(2 ** (len(self.lo) - self._rest)) - 1

    @property
    def _lead_span(self) -> int:
        return max(max(self.hi[self._rest:]) - self.safe, 0) if self.safe else 0

    @property
    def size(self) -> int:
        if not self.safe:
            return self._box_size
        movers = prod(h - lo for lo, h in zip(self.lo[:self._rest], self.hi[:self._rest],
                                             strict=True))
        return self._box_size + movers * self._leads * self._lead_span

    @cached_property
    def _radix(self) -> IntArray:
        return _radix_of(self.lo, self._box_hi)

    @cached_property
    def _mover_radix(self) -> IntArray:
        return _radix_of(self.lo[:self._rest], self.hi[:self._rest])

    def decode(self, index: IntArray) -> IntArray:
        """The totals (S, N) of rows `index` (S,): seat 0 varies slowest in the box; a led row
        has the seats below the lead at 0."""
        index = np.asarray(index, dtype=np.int64)
        lo = np.array(self.lo, dtype=np.int64)
        span = np.array(self._box_hi, dtype=np.int64) - lo
        out: IntArray = (index[:, None] // self._radix[None, :]) % np.maximum(span, 1)[None, :]
        out = out + lo[None, :]
        if not self.safe:
            return out
        led = index >= self._box_size
        if np.any(led):
            j = index[led] - self._box_size
            lead = j % self._lead_span + self.safe
            j = j // self._lead_span
            mask = j % self._leads + 1
            j = j // self._leads
            r = self._rest
            movers = ((j[:, None] // self._mover_radix[None, :])
                      % (np.array(self.hi[:r]) - lo[:r])[None, :]) + lo[None, :r]
            seats = np.arange(len(self.lo) - r)
            rest = np.where((mask[:, None] >> seats[None, :]) & 1, lead[:, None], 0)
            out[led] = np.concatenate([movers, rest], axis=1)
        return out

    def encode(self, totals: IntArray) -> IntArray:
        """The row of each state of `totals` (S, N), which must lie in the box (a led state's
        row is that of its lead, :attr:`safe`)."""
        t = np.asarray(totals, dtype=np.int64)
        lo = np.array(self.lo, dtype=np.int64)
        if not self.safe:
            out: IntArray = (t - lo) @ self._radix
            return out
        r = self._rest
        rest = t[:, r:]
        lead = rest.max(axis=1)
        led = lead >= self.safe
        out = np.empty(t.shape[0], dtype=np.int64)
        out[~led] = (t[~led] - lo) @ self._radix
        if np.any(led):
            weights = (1 << np.arange(rest.shape[1])).astype(np.int64)
            mask = (rest[led] == lead[led, None]).astype(np.int64) @ weights
            movers = (t[led, :r] - lo[:r]) @ self._mover_radix
            out[led] = self._box_size + ((movers * self._leads + mask - 1) * self._lead_span
                                         + lead[led] - self.safe)
        return out

    def contains(self, totals: IntArray) -> np.ndarray:
        """Whether every state of `totals` (..., N) lies in the phase's box of totals."""
        t = np.asarray(totals)
        inside: np.ndarray = np.all((t >= np.array(self.lo)) & (t < np.array(self.hi)), axis=-1)
        return inside


def _radix_of(lo: tuple[int, ...], hi: tuple[int, ...]) -> IntArray:
    span = np.array([max(h - low, 1) for low, h in zip(lo, hi, strict=True)], dtype=np.int64)
    if span.shape[0] == 0:
        return span
    return np.concatenate([np.cumprod(span[::-1])[::-1][1:], [1]]).astype(np.int64)


def final_name(remaining: int) -> str:
    return f"{FINAL}{remaining}"


@dataclass(frozen=True)
class Seats:
    """The phases of an ``N``-player game and the successors of every state's endings."""

    players: int
    n: int
    """The target in units."""
    k_min: int
    k_max: int
    n_ded: int
    """Skull Island deducts 0 .. n_ded - 1 units."""
    ties: str
    """``shared`` or ``trigger``."""
    compact: bool = True
    """Final-round phases compact (:attr:`Phase.safe`); False: every state of the box its own
    row (the dense layout, kept as the tests' reference)."""

    @property
    def high(self) -> int:
        """One past the largest total a game can reach (units)."""
        return self.n + max(self.k_max, 1)

    @cached_property
    def phases(self) -> dict[str, Phase]:
        """Every phase, in the order they are solved (each needs only those before it)."""
        big_n, n = self.players, self.n
        out = {SUDDEN: Phase(SUDDEN, SUDDEN, 0, (0,) * big_n, (n,) * big_n)}
        for r in range(1, big_n):
            trigger_lo = max(0, n - (big_n - 1 - r) * (self.n_ded - 1))
            lo = (0,) * r + (trigger_lo,) + (0,) * (big_n - 1 - r)
            hi = (n,) * r + (self.high,) + (self.high,) * (big_n - 1 - r)
            safe = 0
            if self.compact and r < big_n - 1 and n + r * (self.n_ded - 1) < self.high:
                safe = n + r * (self.n_ded - 1)
            out[final_name(r)] = Phase(final_name(r), FINAL, r, lo, hi, safe)
        out[NORMAL] = Phase(NORMAL, NORMAL, 0, (0,) * big_n, (n,) * big_n)
        return out

    @cached_property
    def offsets(self) -> dict[str, int]:
        """Each phase's first row in the stacked value table ``Z``; the terminal rows last."""
        out, at = {}, 0
        for name, phase in self.phases.items():
            out[name] = at
            at += phase.size
        out["terminal"] = at
        return out

    def offset(self, name: str) -> int:
        return int(self.offsets[name])

    @property
    def rows(self) -> int:
        """Rows of ``Z``: every phase's states, then one terminal row per set of winners."""
        return int(self.offsets["terminal"]) + int(2**self.players)

    # -- terminal results --------------------------------------------------------------------

    @cached_property
    def terminal(self) -> FloatArray:
        """(2^N, N): row ``mask`` is the result where the seats of `mask` share the win (seat
        0 the mover), written in the next state's frame (seat ``j`` there is seat ``j + 1``
        here): the rows of ``Z`` past :meth:`offset` ``("terminal")``. Row 0 is unused."""
        big_n = self.players
        out = np.zeros((2**big_n, big_n))
        for mask in range(1, 2**big_n):
            seats = [i for i in range(big_n) if mask >> i & 1]
            here = np.zeros(big_n)
            here[seats] = 1.0 / len(seats)
            out[mask] = np.roll(here, -1)  # next-frame seat j is seat j + 1 here
        return out

    def winners(self, totals: IntArray) -> IntArray:
        """The set of winners (a bit mask, seat 0 the last final turn's player) of final totals
        (S, N) where someone is at or above the target (0 where nobody is): the highest; a tie
        shared, or under ``ties=trigger`` won by the first to reach the target (seat 1 the
        trigger, then seats 2, ..., N - 1, then seat 0)."""
        t = np.asarray(totals)
        top = t.max(axis=1)
        at_top = (t == top[:, None]) & (top[:, None] >= self.n)
        if self.ties == "trigger":
            order = [*range(1, self.players), 0]
            first = np.zeros_like(at_top)
            taken = np.zeros(t.shape[0], dtype=bool)
            for seat in order:
                first[:, seat] = at_top[:, seat] & ~taken
                taken |= at_top[:, seat]
            at_top = first
        weights = (1 << np.arange(self.players)).astype(np.int64)
        mask: IntArray = (at_top.astype(np.int64) @ weights).astype(np.int64)
        return mask

    # -- successors ----------------------------------------------------------------------------

    def successors(self, name: str, index: IntArray) -> tuple[IntArray, IntArray]:
        """For states `index` (S,) of phase `name`: the row of ``Z`` each ending leads to,
        ``points`` (n_k, S) for ``k = k_min .. k_max`` units and ``island`` (n_ded, S) for
        Skull Island deducting ``d = 0 .. n_ded - 1`` units from every other seat. Pirate
        magic leads to the terminal row of the mover's win (:meth:`magic_row`). A solve's
        batches go to the compiled kernel (:mod:`.seats_numba`, the same rows, state by state:
        :func:`_compiled`); the arrays below are its reference and an answer's."""
        phase = self.phases[name]
        t = phase.decode(index)  # (S, N)
        compiled = _compiled(t.shape[0])
        if compiled is not None:
            return self._compiled_successors(compiled, phase, t)
        ks = np.arange(self.k_min, self.k_max + 1)
        mine = np.maximum(t[None, :, 0] + ks[:, None], 0)  # (n_k, S)
        others = np.broadcast_to(t[None, :, 1:], (ks.shape[0], *t[:, 1:].shape))
        points = self._lead(phase, mine, others)
        d = np.arange(self.n_ded)
        cut = np.maximum(t[None, :, 1:] - d[:, None, None], 0)  # (n_ded, S, N - 1)
        island = self._lead(phase, np.broadcast_to(t[None, :, 0], (d.shape[0], t.shape[0])),
                            cut)
        return points, island

    def encoder(self, name: str) -> IntArray:
        """Phase `name` as :mod:`.seats_numba`'s kernel reads it (its module doc)."""
        phase, big_n = self.phases[name], self.players
        mover_radix = np.zeros(big_n, dtype=np.int64)
        if phase.safe:
            mover_radix[:phase._rest] = phase._mover_radix
        head = [self.offset(name), phase.safe, phase._rest if phase.safe else 0,
                phase._box_size, phase._leads if phase.safe else 0, phase._lead_span]
        return np.concatenate([np.array(head, dtype=np.int64), np.array(phase.lo, dtype=np.int64),
                               phase._radix, mover_radix]).astype(np.int64)

    def _compiled_successors(self, fn: Any, phase: Phase, t: IntArray
                             ) -> tuple[IntArray, IntArray]:
        """:meth:`successors` by the compiled kernel `fn` (:func:`.seats_numba.successors`)."""
        from . import seats_numba as sn

        if phase.kind == NORMAL:
            mode, a, b = sn.NORMAL_MODE, NORMAL, final_name(self.players - 1)
        elif phase.kind == SUDDEN:
            mode, a, b = sn.SUDDEN_MODE, SUDDEN, SUDDEN
        elif phase.remaining > 1:
            mode = sn.FINAL_MODE
            a = b = final_name(phase.remaining - 1)
        else:
            mode, a, b = sn.LAST_MODE, SUDDEN, SUDDEN
        s = t.shape[0]
        points = np.empty((s, self.k_max - self.k_min + 1), dtype=np.int64)
        island = np.empty((s, self.n_ded), dtype=np.int64)
        if s:
            fn(np.ascontiguousarray(t, dtype=np.int64), self.k_min, self.n_ded, self.n, mode,
               self.ties == "trigger", self.encoder(a), self.encoder(b),
               self.offset("terminal"), self.magic_row(), points, island)
        return points.T, island.T  # (n_k, S) and (n_ded, S), as views

    def successor_table(self, name: str, index: IntArray,
                        chunk: int = SUCCESSOR_CHUNK) -> tuple[IntArray, IntArray]:
        """:meth:`successors` state by state: ``points`` (S, n_k) and ``island`` (S, n_ded),
        C-contiguous, the same rows. Built `chunk` states at a time, into the two arrays: the
        whole phase at once took 8.5 kB a state at its peak (its working arrays), where the
        two arrays are 1.1 kB (three players at 12000: 1.7 million states a phase)."""
        index = np.asarray(index, dtype=np.int64)
        size = index.shape[0]
        points = np.empty((size, self.k_max - self.k_min + 1), dtype=np.int64)
        island = np.empty((size, self.n_ded), dtype=np.int64)
        for lo in range(0, size, chunk):
            p, i = self.successors(name, index[lo:lo + chunk])
            points[lo:lo + chunk], island[lo:lo + chunk] = p.T, i.T
        return points, island

    def magic_row(self) -> int:
        """The row of ``Z`` of the mover's win (pirate magic; a sudden-death target reached)."""
        return self.offset("terminal") + 1

    def _lead(self, phase: Phase, mine: IntArray, others: IntArray) -> IntArray:
        """The rows of ``Z`` where the mover ends at `mine` (...) against `others` (..., N-1)."""
        n = self.n
        nxt = np.concatenate([others, mine[..., None]], axis=-1)  # the next state's frame
        flat = nxt.reshape(-1, self.players)
        out = np.empty(flat.shape[0], dtype=np.int64)
        me = mine.reshape(-1)
        if phase.kind == NORMAL:
            here = me < n
            out[here] = self.offset(NORMAL) + self.phases[NORMAL].encode(flat[here])
            final = self.phases[final_name(self.players - 1)]
            out[~here] = self.offset(final.name) + final.encode(flat[~here])
        elif phase.kind == SUDDEN:
            here = me < n
            out[here] = self.offset(SUDDEN) + self.phases[SUDDEN].encode(flat[here])
            out[~here] = self.magic_row()
        elif phase.remaining > 1:
            nxt_phase = self.phases[final_name(phase.remaining - 1)]
            out[:] = self.offset(nxt_phase.name) + nxt_phase.encode(flat)
        else:  # the last final turn: the result, or sudden death with the trigger to move
            mine_first = np.concatenate([mine[..., None], others], axis=-1).reshape(
                -1, self.players)
            mask = self.winners(mine_first)
            over = mask > 0
            out[over] = self.offset("terminal") + mask[over]
            out[~over] = self.offset(SUDDEN) + self.phases[SUDDEN].encode(flat[~over])
        return out.reshape(mine.shape)


def _compiled(states: int) -> Any:
    """:func:`.seats_numba.successors` for a batch of at least two chunks of
    :data:`~solver.engine.kernel.LANES` states where the engine's kernel runs numba for it (a
    solve's blocks and phases), else None: the numpy reference above (an answer's few states,
    so that numba stays off the advisor's path, even in a process that has it loaded)."""
    from ..engine import kernel

    if states < 2 * kernel.LANES or kernel.compiled(chunks=states // kernel.LANES) is None:
        return None
    from . import seats_numba

    return seats_numba.successors


def seats_of(players: int, ranges: PointRange, n: int, ties: str, *,
             compact: bool = True) -> Seats:
    """The seats of a game of `players` at target `n` units with a point range."""
    if not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"a game has 2 to {MAX_PLAYERS} players, not {players}")
    return Seats(players=players, n=n, k_min=ranges.k_min, k_max=ranges.k_max,
                 n_ded=ranges.n_ded, ties=ties, compact=compact)
