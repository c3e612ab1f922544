r"""Every seat's chance in a game of four or five players without its exact table, from the
exact tables of two and three players (:class:`Estimate`).

**Normal play and sudden death: the small games' odds, pooled and extrapolated.**  Take a
state of the big game (``N`` players) and a set ``S`` of ``m`` of its seats. The small game of
``S`` alone (the exact ``m``-player table, at the totals of ``S`` in seat order, the first of
``S`` after the mover about to move) gives every seat of ``S`` a chance ``P^S``. If the game
were a Plackett-Luce contest, each seat would have a strength ``e^{u_i}`` and every sub-game
the odds of those strengths: ``ln P^S_x - ln P^S_y = u_x - u_y``. The fit
:math:`u^{(m)}` is the least-squares solution of those equations over every set of ``m`` seats
(:func:`pooled`); ``P = softmax(u)`` sums to 1 over the seats. The game is not such a contest
(a seat's chance depends on how many it must beat in the final round, on Skull Island hitting
every other seat...), and pooling larger sub-games comes closer: measured against the exact
four-player game at target 500, pairs are 0.80 points of P(win) off on average and triples
0.37. The method extrapolates in the sub-games' size (Richardson), along the line through the
pairs and the triples to the ``N`` seats: ``u = u^{(3)} + c (N - 3) (u^{(3)} - u^{(2)})``,
``c`` :data:`EXTRAPOLATE` per phase (measured: docs/playing-to-win.md).

**One player down** (the method checked where the truth is known at the default target): three
players from the pairs alone, ``two`` None and ``three`` the two-player table. A game of one
seat has no odds to extrapolate from, so the pairs' pooled odds are the estimate, ``u =
u^{(2)}`` (the step that pools sub-games, measured where the truth is known at 6000; read as
``u^{(1)} = 0``, the extrapolation would take the chances 7.5 points off on average, not 1.0:
scripts/measure_reduced.py ``down``).

**The final round: a race to beat the best** (:meth:`Estimate.final_round`).  Once a player has
reached the target, each remaining player has one final turn, in seat order, and the best total
wins. The last plays its turn to beat the best total so far (or to reach the target): the
exact last turn (its endings for each deficit from the engine's exact turn solve of the need,
each card's apart: :func:`need_endings`, once per rules). One with players still to play after
it plays the engine's exact turn for the utility of each total it could end with: the chance
that it beats the best and that none of the later players beats it, each of them playing to
beat it in turn (:meth:`Estimate.aim`; a turn solve for each deficit and gaps to the later
players, kept for the estimate's life). The best total,
who holds it, and Skull Island's deductions so far are carried forward as a distribution; a
shared tie shares the win equally among its holders. A final round that ends with everybody
below the target (Skull Island) goes on in sudden death, valued as above. The endings of a turn
of normal play that reach the target are raced without Skull Island's deductions (an island
there ends the turn with nothing): a race of far fewer cells, for the many states whose turns
the method solves.

The estimates are measured against the exact tables of four players at 2000 and five at 1000
and against whole games at 6000 (``scripts/measure_reduced.py``, ``tables/near-optimal.json``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..engine import BoolArray, FloatArray, IntArray
from .seats import FINAL, NORMAL, SUDDEN, Seats

if TYPE_CHECKING:
    from ..rules.rulebook import Rules
    from .table import GameTable

TINY = 1e-12
"""A chance of 0 in a small game (a seat that cannot win there) counts as this: its odds are
finite."""
EXTRAPOLATE = {NORMAL: 0.75, SUDDEN: 1.0}
"""The extrapolation in the sub-games' size, per phase and per seat beyond three (module doc):
``u = u^{(3)} + c (N - 3) (u^{(3)} - u^{(2)})``, a line through the pairs and the triples
carried to the ``N`` seats. ``c`` fits the exact games of four players at target 500 best
(normal play 0.16 points off on average with it, 0.37 without; sudden death 0.07, 4.7
without). Carried to five seats as a line (``2c``), it is what the exact game of five at 500
asks for too: in sudden death the chances shown are 0.024 points off on average and 0.11 at
worst with ``2c``, 0.86 and 2.99 with ``c`` alone; in normal play 0.29 and 1.47, against 0.34
and 1.53. At five players at 1000, where nothing was fitted (every state): normal play 0.21 and
1.42, sudden death 0.12 and 0.86 (docs/playing-to-win.md)."""


@lru_cache(maxsize=16)
def _sets(players: int, m: int) -> tuple[tuple[int, ...], ...]:
    """The sets of `m` of `players` seats, in a fixed order."""
    return tuple(itertools.combinations(range(players), m))


def small_values(small: GameTable, phase: str, totals: IntArray) -> FloatArray:
    """The exact values (E, m) of the small game at `totals` (E, m) of its `phase` (clipped
    into the phase's box)."""
    seats = small.seats
    ph = seats.phases[phase]
    t = np.clip(totals, np.array(ph.lo), np.array(ph.hi) - 1)
    rows = seats.offset(phase) + ph.encode(t)
    out: FloatArray = small.stacked(rows)[rows]
    return out


def pooled(small: GameTable, phase: str, totals: IntArray) -> FloatArray:
    """The strengths ``u^{(m)}`` (E, N) of states `totals` (E, N) of the big game's `phase`
    (normal play or sudden death), from every set of ``m = small.players`` seats: the
    least-squares strengths whose differences fit every pair's log-odds within every set, the
    minimum-norm one (summing to 0). Every pair of seats shares ``c = C(N - 2, m - 2)`` sets,
    so the normal equations are ``c (N I - J) u = A^T d`` and the solution is ``u = A^T d /
    (c N)``: a sum in a fixed order (no linear algebra library, whose last bits depend on the
    machine)."""
    from math import comb

    players, m = totals.shape[1], small.players
    u = np.zeros((totals.shape[0], players))
    for S in _sets(players, m):
        logs = np.log(np.maximum(small_values(small, phase, totals[:, list(S)]), TINY))
        for a, b in itertools.combinations(range(m), 2):
            d = logs[:, a] - logs[:, b]
            u[:, S[a]] += d
            u[:, S[b]] -= d
    out: FloatArray = u / float(comb(players - 2, m - 2) * players)
    return out


def softmax(u: FloatArray) -> FloatArray:
    z = np.exp(u - u.max(axis=1, keepdims=True))
    out: FloatArray = z / z.sum(axis=1, keepdims=True)
    return out


@dataclass(frozen=True)
class NeedEndings:
    """A final turn played to beat a total: per column ``(D, w)`` (utility 1 for ending with
    more than ``D`` units, ``w`` for exactly ``D``), the deck-weighted probability of every
    utility row (points ``k_min .. k_max``, then pirate magic), Skull Island apart."""

    k_min: int
    k_max: int
    dist: FloatArray
    """(columns, n_u): column ``2 * (D - k_min + 1) + (w > 0)``."""
    island: FloatArray
    """(n_ded,): P(the turn goes to Skull Island deducting d units from every other seat)."""
    cards: FloatArray
    """(n_cards, columns, n_u): each card's share of :attr:`dist` (its weight in the deck
    times its turn's endings), in the deck's order: :attr:`dist` is their sum in that order
    (:func:`summed`)."""

    def column(self, D: IntArray, tie: IntArray) -> IntArray:
        d = np.clip(D, self.k_min - 1, self.k_max)
        out: IntArray = 2 * (d - self.k_min + 1) + tie
        return out

    @cached_property
    def beat(self) -> tuple[FloatArray, FloatArray]:
        """Per column ``(D, w)``: the probability of ending with more than ``D`` units (pirate
        magic included), and of ending with exactly ``D``."""
        columns = self.dist.shape[0]
        D = np.arange(columns) // 2 + self.k_min - 1
        k = np.arange(self.k_min, self.k_max + 1)
        more = (self.dist[:, :-1] * (k[None, :] > D[:, None])).sum(axis=1) + self.dist[:, -1]
        even = (self.dist[:, :-1] * (k[None, :] == D[:, None])).sum(axis=1)
        return more, even


@lru_cache(maxsize=4)
def need_endings(rules: Rules, n_dice: int) -> NeedEndings:
    """:class:`NeedEndings` of the turn rules of `rules` (the engine's exact turn solves, every
    deficit in one batch of columns; about 4 s, once per rules and process)."""
    from .model import game_model

    gm = game_model(rules, n_dice)
    ks = np.arange(gm.k_min, gm.k_max + 1)
    Ds = np.arange(gm.k_min - 1, gm.k_max + 1)
    u = np.zeros((gm.n_u, 2 * Ds.shape[0]))
    for j, D in enumerate(Ds.tolist()):
        for t, share in enumerate((0.0, 0.5)):
            u[:-1, 2 * j + t] = (ks > D) + share * (ks == D)
            u[-1, 2 * j + t] = 1.0
    cards = turn_endings(rules, n_dice, u)
    return NeedEndings(gm.k_min, gm.k_max, summed(cards), gm.island_deductions(), cards)


def turn_endings(rules: Rules, n_dice: int, u: FloatArray) -> FloatArray:
    """(n_cards, columns, n_u): each card's share (its deck weight times the endings) of a turn
    played for each utility column of `u` (n_u, columns: points ``k_min .. k_max``, then
    pirate magic; Skull Island, where no decision is made, apart), in the deck's order: the
    engine's exact turn solves, every column its own (its numbers the same whatever the other
    columns of the batch, and whichever kernel runs them). On numba's kernel even for a few
    columns: its start (about 0.5 s from its cache) pays for itself at a few dozen columns
    (an answer near the end of a game of five solves about 270: 1.9 s, 12 s on numpy's)."""
    from ..engine import TIE_TOL, kernel
    from ..engine.codes import UNUSED, USED
    from ..engine.forward import endings as push
    from ..engine.kernel import from_lanes, to_lanes
    from ..engine.solve import solve_layers
    from .model import game_model
    from .records import FINAL_EPS, FINAL_TOL

    gm = game_model(rules, n_dice)
    ul = to_lanes(u, kernel.LANES)
    shares = []
    with kernel.compiled_whenever_installed():
        for card, weight in gm.weights.items():  # in the deck's order
            ct = gm.cards[card]
            w0 = ct.worlds[ct.model.worlds[0]]
            solved = solve_layers(ct.model, ct.st, ul, w0.stop_idx, w0.bust_idx, tol=FINAL_TOL,
                                  per_lane=True)
            code, sor = {}, {}
            for world in ct.model.worlds:
                w = ct.worlds[world]
                q_used = solved.keeps[USED] if world == UNUSED else None
                code[world], sor[world], _ = kernel.best_moves(solved.keeps[world], q_used, ul,
                                                               w, ct.st, TIE_TOL,
                                                               w.sorceress_ok)
            ends = push(ct.st, ct.model.worlds, ct.worlds, code, sor, ct.first,
                        ct.first_bust_row, gm.n_u, eps=FINAL_EPS)
            shares.append(weight * from_lanes(ends.mass, u.shape[1]).T)
    return np.stack(shares)


def summed(cards: FloatArray) -> FloatArray:
    """The cards' shares of the endings summed in the deck's order (the same bits wherever
    they are summed: :func:`need_endings`, a file read back)."""
    out = np.zeros(cards.shape[1:])
    for share in cards:
        out = out + share
    return out


AIM_CACHE = 100_000
"""The most endings :meth:`Estimate.aim` keeps (about 100 MB; emptied when full)."""
MARGIN_STEPS = (0, 1, 2, 3, 4, 6, 8, 11, 15, 20, 30)
"""The margins (units) over the best among which a quick final turn chooses
(:meth:`Estimate._margined`): every one near the best, sparser above."""
AIM_SKIP = 1e-5
"""A final turn with others after it is played to beat the best alone where that loses at most
this much (:meth:`Estimate._aimed`: a bound, not a measure): 0.001 points of P(win), a tenth
of the last digit a chance is shown with. From 0, 0, 0, 0 at 6000 every final turn of the
successors is then the plain one (the later players could take at most 1.9e-6)."""
AIM_CHUNK = 512
"""Keys whose turns are solved at once (:meth:`Estimate._aimed`: a batch of the engine's
columns, each column's numbers its own whatever the batch)."""
RACE_CHUNK = 256
"""Final-round states raced at once (each state's cells grow with the turns left: about
20,000 after three turns)."""


class Estimate:
    """Every seat's chance at every state of the game of `players` under the rules of the exact
    tables `two` and `three` (module doc; `two` None: one player down)."""

    def __init__(self, two: GameTable | None, three: GameTable, players: int,
                 extrapolate: dict[str, float] | None = None,
                 need: Callable[[], NeedEndings] | None = None) -> None:
        if three.players > players or (two is not None and two.players != three.players - 1):
            raise ValueError("the small games are not of m - 1 and m < the players")
        self.two, self.three, self.players = two, three, players
        self.rules = three.rules
        self.n_dice = three.n_dice
        self.extrapolate = EXTRAPOLATE if extrapolate is None else extrapolate
        self._need = need
        """Where the final turns' endings come from (:func:`need_endings` by default; the
        tables' cache, :mod:`solver.tables.need`)."""
        self.aimed = True
        """Whether a final turn with others after it plays for their chances of beating it
        (:meth:`aim`; False: each final turn played to beat the best alone)."""
        self._aims: dict[tuple[bool | int, ...], FloatArray] = {}
        """:meth:`aim`'s endings by key, kept (at most :data:`AIM_CACHE`): a game's turns
        ask for the same ones again and again."""
        self.seats = Seats(players=players, n=self.rules.target // 100, k_min=three.k_min,
                           k_max=three.k_max, n_ded=three.n_ded, ties=self.rules.ties)

    @cached_property
    def need(self) -> NeedEndings:
        if self._need is not None:
            return self._need()
        return need_endings(self.rules.turn_rules(), self.n_dice)

    # -- the phases --------------------------------------------------------------------------

    def values(self, phase: str, totals: IntArray, *, shift: bool = True) -> FloatArray:
        """Every seat's chance (E, N) at states `totals` (E, N) of `phase`, seat 0 the
        mover (`shift`: :meth:`final_round`'s)."""
        totals = np.asarray(totals, dtype=np.int64)
        if totals.shape[0] == 0:
            return np.zeros((0, self.players))
        kind = self.seats.phases[phase].kind
        if kind == FINAL:  # a chunk of states at a time: each race's cells multiply
            r = self.seats.phases[phase].remaining
            return np.concatenate([self.final_round(totals[lo:lo + RACE_CHUNK], r, shift=shift)
                                   for lo in range(0, totals.shape[0], RACE_CHUNK)])
        u3 = pooled(self.three, kind, totals)
        if self.two is None:  # one player down: the pairs alone (module doc)
            return softmax(u3)
        u2 = pooled(self.two, kind, totals)
        c = self.extrapolate[kind] * (self.players - self.three.players)
        return softmax(u3 + c * (u3 - u2))

    def rows(self, rows: IntArray, *, shift: bool = True) -> FloatArray:
        """Every seat's chance (len, N) at rows of the stacked table ``Z`` of the big game's
        :class:`~.seats.Seats` (its terminal rows included; `shift`: :meth:`final_round`'s)."""
        rows = np.asarray(rows, dtype=np.int64).ravel()
        out = np.empty((rows.shape[0], self.players))
        seats = self.seats
        terminal = seats.offset("terminal")
        at = rows >= terminal
        out[at] = seats.terminal[rows[at] - terminal]
        for name, phase in seats.phases.items():
            lo = seats.offset(name)
            sel = np.flatnonzero((rows >= lo) & (rows < lo + phase.size))
            if sel.shape[0] == 0:
                continue
            unique, back = np.unique(rows[sel], return_inverse=True)
            out[sel] = self.values(name, phase.decode(unique - lo),
                                   shift=shift)[back.reshape(-1)]
        return out

    # -- the final round ---------------------------------------------------------------------

    def trigger_chance(self, totals: IntArray) -> FloatArray:
        """The chance (E,) of the player who has just reached the target, the last seat of
        states `totals` (E, N) of the final round's first phase, every other seat a final turn
        to play: the race's (:meth:`final_round` without Skull Island's deductions) in closed
        form: the trigger wins when nobody ends above its total, a shared tie's share among
        those who tie it (each final turn played to beat it, independently of the others')."""
        need, players = self.need, self.players
        tie = 1 if self.rules.ties == "shared" else 0
        y = totals[:, -1]
        ks = np.arange(need.k_min, need.k_max + 1)
        # ties[k]: P(nobody above the trigger and k of the final turns tie it)
        ties = np.zeros((totals.shape[0], players))
        ties[:, 0] = 1.0
        for j in range(players - 1):
            D = y - totals[:, j]
            dist = self.aim(totals[:, j], y, np.ones(y.shape[0], dtype=bool),
                            [totals[:, i] for i in range(j + 1, players - 1)], exact=False)
            above = (dist[:, :-1] * (ks[None, :] > D[:, None])).sum(axis=1) + dist[:, -1]
            level = (dist[:, :-1] * (ks[None, :] == D[:, None])).sum(axis=1) * tie
            below = 1.0 - above - level
            shifted = np.zeros_like(ties)
            shifted[:, 1:] = ties[:, :-1] * level[:, None]
            ties = ties * below[:, None] + shifted
        out: FloatArray = ties[:, 0].copy()
        for k in range(1, players):  # k others tie it: a share of 1 / (k + 1), in a fixed order
            out += ties[:, k] / (k + 1)
        return out

    def aim(self, t: IntArray, best: IntArray, above: BoolArray, later: list[IntArray], *,
            exact: bool = True) -> FloatArray:
        """The endings (cells, n_u) of each final turn (:class:`NeedEndings`' rows): the
        mover at total `t` (units, its deductions taken) to beat `best` (`above`: at or over
        the target; else to reach the target), with the players `later` (their totals) still
        to play after it. The last plays to beat the best, exactly. One with others after it
        plays the turn that maximises its chance of ending above the best and staying there:
        the engine's exact turn for the utility of each ending, the chance that none of the
        later players beats it, each playing to beat it in turn (:meth:`_aimed`; `exact`
        False: for each card the best of the turns that keep a margin over the best,
        :meth:`_margined`, for the many races of normal play, whose turns reach the target
        with a small chance). At 0, 400, 400, 800, the trigger last, four players at 500: 0.05
        points off with the exact turns, 4.2 with the margins' (docs/playing-to-win.md)."""
        need, n = self.need, self.seats.n
        tie = 1 if self.rules.ties == "shared" else 0
        D = np.where(above, best - t, n - 1 - t)
        if not later or t.shape[0] == 0 or not self.aimed:
            return need.dist[need.column(D, np.where(above, tie, 0))]
        # a turn's endings depend on the deficit and the gaps to the later players alone,
        # each clipped where nothing changes: each distinct one is aimed once
        lo, hi = need.k_min - 1, need.k_max
        keys = np.stack([above.astype(np.int64), np.clip(D, lo, hi),
                         *(np.clip(t - other, lo - need.k_max, hi - need.k_min)
                           for other in later)], axis=1)
        unique, back = np.unique(keys, axis=0, return_inverse=True)
        rows = [(exact, *row) for row in unique.tolist()]
        kept = self._aims
        missing = [i for i, row in enumerate(rows) if row not in kept]
        if missing:
            if len(kept) + len(missing) > AIM_CACHE:  # emptied: every row aimed anew
                kept.clear()
                missing = list(range(len(rows)))
            aimed = self._aimed if exact else self._margined
            for i, dist in zip(missing, aimed(unique[missing]), strict=True):
                kept[rows[i]] = dist
        out: FloatArray = np.stack([kept[row] for row in rows])[back.reshape(-1)]
        return out

    def _staying(self, keys: IntArray) -> tuple[FloatArray, FloatArray]:
        """For :meth:`aim`'s keys (K, 2 + L): above the target or not, the deficit ``D`` (the
        mover wins with more than ``D`` units), the gap to each later player (the mover's
        total minus theirs): per ending of ``k`` units (K, n_k), whether it beats the best (a
        shared tie half a win), and the chance that no later player beats it, each playing
        to beat it in turn."""
        need = self.need
        tie = 1 if self.rules.ties == "shared" else 0
        above, D, gaps = keys[:, 0].astype(bool), keys[:, 1], keys[:, 2:]
        ks = np.arange(need.k_min, need.k_max + 1)
        more, even = need.beat
        base = (ks[None, :] > D[:, None]).astype(np.float64)  # (K, n_k)
        if tie:  # a tie of the best: a share
            base += 0.5 * (above[:, None] & (ks[None, :] == D[:, None]))
        stays = np.ones(base.shape)
        for gap in gaps.T:  # each later player plays to beat the mover's new total
            c = need.column(ks[None, :] + gap[:, None], np.full(base.shape, tie))
            stays *= 1.0 - more[c] - 0.5 * tie * even[c]
        return base, stays

    def _aimed(self, keys: IntArray) -> FloatArray:
        """:meth:`aim`'s exact endings (K, n_u) for its keys (:meth:`_staying`'s): each key's
        turn is the engine's exact turn for the utility of ending with ``k`` units, beating
        the best times the chance that no later player beats it; pirate magic wins at once."""
        need = self.need
        tie = 1 if self.rules.ties == "shared" else 0
        above, D = keys[:, 0].astype(bool), keys[:, 1]
        base, stays = self._staying(keys)
        # The turn played to beat the best alone (the need's, u' = base; pirate magic 1 in
        # both) loses at most its chance of beating it with points times the most the later
        # players could take from such an ending (u' - u <= base (1 - stays)): where that
        # is under AIM_SKIP, it is the turn.
        plain = need.dist[need.column(D, np.where(above, tie, 0))]  # (K, n_u)
        beats = (plain[:, :-1] * base).sum(axis=1)
        taken = 1.0 - np.where(base > 0, stays, 1.0).min(axis=1)
        solve = np.flatnonzero(beats * taken > AIM_SKIP)
        out: FloatArray = plain.copy()
        u = np.ones((need.dist.shape[1], solve.shape[0]))  # pirate magic: a win, at once
        u[:-1] = (base * stays)[solve].T
        for lo in range(0, solve.shape[0], AIM_CHUNK):
            cards = turn_endings(self.rules, self.n_dice, u[:, lo:lo + AIM_CHUNK])
            out[solve[lo:lo + AIM_CHUNK]] = summed(cards)
        return out

    def _margined(self, keys: IntArray) -> FloatArray:
        """:meth:`aim`'s quick endings (K, n_u) for its keys (:meth:`_staying`'s): for each
        card, of the turns played to beat ``best + m`` (m in :data:`MARGIN_STEPS`), the one
        whose endings are worth most (the smallest such m, a difference under :data:`TINY`
        counting as none): no turn solve, for the many races of normal play."""
        need = self.need
        tie = 1 if self.rules.ties == "shared" else 0
        above, D = keys[:, 0].astype(bool), keys[:, 1]
        base, stays = self._staying(keys)
        win = base * stays
        cols = np.stack([need.column(D, np.where(above, tie, 0)) if m == 0 else
                         need.column(D + m, np.zeros_like(D)) for m in MARGIN_STEPS])
        dist = np.zeros((keys.shape[0], need.dist.shape[1]))
        every = np.arange(keys.shape[0])
        for card in need.cards:  # each card its own margin, in the deck's order
            value = np.empty(cols.shape)
            for lo in range(0, keys.shape[0], AIM_CHUNK):
                d = card[cols[:, lo:lo + AIM_CHUNK]]  # (M, chunk, n_u)
                value[:, lo:lo + AIM_CHUNK] = ((d[:, :, :-1] * win[None, lo:lo + AIM_CHUNK])
                                               .sum(axis=2) + d[:, :, -1])
            first = np.argmax(value >= value.max(axis=0, keepdims=True) - TINY, axis=0)
            dist += card[cols[first, every]]
        return dist

    def final_round(self, totals: IntArray, r: int, *, shift: bool = True) -> FloatArray:
        """Every seat's chance (E, N) at final-round states `totals` (E, N) with the movers
        0 .. r - 1 still to play (module doc: the race to beat the best). `shift`: Skull
        Island's deductions carried (False: an island ends the mover's turn with nothing, as
        a bust would: a race of far fewer cells)."""
        need, n, players = self.need, self.seats.n, self.players
        tie = 1 if self.rules.ties == "shared" else 0
        E = totals.shape[0]
        # cells: (state, best, its holders as a bit mask of seats, deductions so far, mass)
        best = totals[:, r:].max(axis=1)
        tied = totals[:, r:] == best[:, None]
        if not tie:  # ties=trigger: the first to reach it (the trigger, then in seat order)
            first = np.argmax(tied, axis=1)
            tied = np.zeros_like(tied)
            tied[np.arange(E), first] = True
        cell_m = tied.astype(np.int64) @ (1 << np.arange(r, players)).astype(np.int64)
        cell_e, cell_b = np.arange(E), best.astype(np.int64)
        cell_s, cell_p = np.zeros(E, dtype=np.int64), np.ones(E)
        won = np.zeros((E, players))
        ks = np.arange(need.k_min, need.k_max + 1)
        island = [(d, float(q)) for d, q in enumerate(need.island.tolist()) if q > 0.0]
        for j in range(r):
            below = (cell_b < n) & (j == r - 1)
            if np.any(below):  # the last final turn, nobody at the target: sudden death
                self._sudden(won, totals, cell_e[below], cell_s[below], cell_p[below], j)
                keep = ~below
                cell_e, cell_b, cell_m = cell_e[keep], cell_b[keep], cell_m[keep]
                cell_s, cell_p = cell_s[keep], cell_p[keep]
            t = np.maximum(totals[cell_e, j] - cell_s, 0)
            above = cell_b >= n
            later = [np.maximum(totals[cell_e, i] - cell_s, 0) for i in range(j + 1, r)]
            dist = self.aim(t, cell_b, above, later, exact=shift)  # (cells, n_u)
            np.add.at(won[:, j], cell_e, cell_p * dist[:, -1])  # pirate magic wins at once
            y = np.maximum(t[:, None] + ks[None, :], 0)  # (cells, n_k)
            q = dist[:, :-1]
            beat = (y >= n) & ((y > cell_b[:, None]) | ~above[:, None])
            even = bool(tie) & above[:, None] & (y == cell_b[:, None]) & (q > 0)
            stay = ~beat & ~even
            cells = _Cells()
            # the mover beats the best: the new best, the mover's alone
            ci, ki = np.nonzero(beat & (q > 0))
            cells.add(cell_e[ci], y[ci, ki], np.full(ci.shape[0], 1 << j, dtype=np.int64),
                      cell_s[ci], cell_p[ci] * q[ci, ki])
            # the mover ties the best (shared ties): one more holder
            ci, ki = np.nonzero(even)
            cells.add(cell_e[ci], cell_b[ci], cell_m[ci] | (1 << j), cell_s[ci],
                      cell_p[ci] * q[ci, ki])
            # below: nothing changes
            cells.add(cell_e, cell_b, cell_m, cell_s, cell_p * (q * stay).sum(axis=1))
            # Skull Island: the mover scores nothing, every other total loses d
            if shift:
                for d, p_d in island:
                    cells.add(cell_e, np.maximum(cell_b - d, 0), cell_m, cell_s + d,
                              cell_p * p_d)
            else:
                cells.add(cell_e, cell_b, cell_m, cell_s, cell_p * need.island.sum())
            cell_e, cell_b, cell_m, cell_s, cell_p = cells.merged()
        over = cell_b >= n
        seats = (cell_m[:, None] >> np.arange(players)[None, :]) & 1
        share = cell_p[:, None] * seats / seats.sum(axis=1, keepdims=True)
        np.add.at(won, cell_e[over], share[over])
        if np.any(~over):  # everybody below the target: sudden death, the trigger to move
            self._sudden(won, totals, cell_e[~over], cell_s[~over], cell_p[~over], r)
        return won

    def _sudden(self, won: FloatArray, totals: IntArray, e: IntArray, s: IntArray,
                p: FloatArray, first: int) -> None:
        """Add to `won` (E, N) the cells (`e`: their states, `s`: the deductions, `p`: the
        mass) of a final round where nobody is at the target any more (Skull Island), valued
        as sudden death with seat `first` to move: after the last final turn, the rule; and at
        the last final turn, the same game (a turn that reaches the target wins, as in sudden
        death, and the turn's points count if it does not: the race would drop them). Four
        players at 2000, at 100, 200, 500, 400 with one final turn left: 0.12 points off, where
        the race was 5.6. With more final turns left the race goes on (sudden death from the
        next mover there was up to 40 points off: a turn that reaches the target can still be
        beaten), each turn's points below the target dropped: the final round's worst below."""
        left = np.maximum(totals[e] - s[:, None], 0)
        v = self.values(SUDDEN, np.roll(left, -first, axis=1))
        np.add.at(won, e, p[:, None] * np.roll(v, first, axis=1))


class _Cells:
    """The cells of the final round's race after a turn (:meth:`Estimate.final_round`): each
    a state, the best total, its holders, the deductions so far and its mass."""

    def __init__(self) -> None:
        self.parts: list[tuple[IntArray, IntArray, IntArray, IntArray, FloatArray]] = []

    def add(self, e: IntArray, b: IntArray, m: IntArray, s: IntArray, p: FloatArray) -> None:
        self.parts.append((e, b, m, s, p))

    def merged(self) -> tuple[IntArray, IntArray, IntArray, IntArray, FloatArray]:
        """The cells with the same (state, best, holders, deductions) merged (their masses
        summed, in the cells' order), the empty ones dropped."""
        e, b, m, s, p = (np.concatenate([part[i] for part in self.parts]) for i in range(5))
        keep = p > 0.0
        e, b, m, s, p = e[keep], b[keep], m[keep], s[keep], p[keep]
        key = ((e * (int(b.max(initial=0)) + 1) + b) * (int(m.max(initial=0)) + 1) + m) * (
            int(s.max(initial=0)) + 1) + s
        unique, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        mass = np.zeros(unique.shape[0])
        np.add.at(mass, inverse.reshape(-1), p)
        return e[first], b[first], m[first], s[first], mass


__all__ = ["EXTRAPOLATE", "Estimate", "NeedEndings", "need_endings", "pooled", "softmax"]
