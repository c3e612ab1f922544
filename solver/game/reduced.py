r"""Near-optimal play for four and five players: every ending of the mover's turn valued by
the table of a smaller game, the mover against its most dangerous opponents.

**Why.**  The exact game of four players at the default target has 350 million states (five:
6.5 billion in the final round alone, compact): out of reach here (docs/playing-to-win.md).
The three-player game at 6000 is solved exactly. A turn's decisions need only the mover's
utility of each ending (its probability of winning after it), so a good estimate of that
utility gives good play.

**The method** (:func:`reduced_utilities`).  After each ending of the mover's turn, the state
of the big game (``N`` players) is *projected* onto a state of the small one (``M < N``
players, its table exact), the mover kept, the others cut to the ``M - 1`` most dangerous:

* normal play and sudden death: the ``M - 1`` opponents with the highest totals (a tie: the
  one who plays sooner), in seat order, then the mover; if the mover reached the target, it
  is the trigger of the small game's final round, the chosen opponents its final turns;
* the final round, with final turns still to play after the mover's: the most dangerous of
  those players, then the leader of the trigger and the players who have played (as the small
  game's trigger), then the mover (``M = 3``); with ``M = 2``, a mover at or above the target
  and the leader's total is the trigger of the small game's last final turn, a mover below a
  leader at or above the target loses, and with everybody below it (Skull Island) the small
  game's sudden death values it;
* the last final turn: the result itself (exact), or sudden death projected as above.

The utility is the mover's probability of winning at the projected state, from the small
table. Pirate magic wins, as in every game. The mover's turn is then the engine's exact turn
solve of those utilities: the moves maximise them, the tie rule is the engine's.

**What it is not.**  The values are not the big game's: the mover's estimate of its chance
is the small game's, and the other players' are not estimated. Its quality is *measured*
(:mod:`scripts.measure_reduced`): against the exact tables where they exist, the loss in
probability of winning of a seat that plays it while the others play the exact table, at
every state, and by whole games against players of points and of "need".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import FloatArray, IntArray
from .seats import NORMAL, SUDDEN, Phase, Seats, final_name
from .table import Chances

if TYPE_CHECKING:
    from ..rules.standing import Standing

SMALL_PLAYERS = 3
"""The players of the small game whose table values the ending of a turn of four or five."""


def dangerous(totals: IntArray, m: int) -> IntArray:
    """The columns of the `m` most dangerous of the candidates `totals` (E, C), per row: the
    highest totals, a tie to the lower column (who plays sooner); returned in column order."""
    c = totals.shape[1]
    key = -np.asarray(totals, dtype=np.int64) * (c + 1) + np.arange(c)[None, :]
    picked = np.argsort(key, axis=1, kind="stable")[:, :m]
    out: IntArray = np.sort(picked, axis=1)
    return out


def _take(totals: IntArray, columns: IntArray) -> IntArray:
    out: IntArray = np.take_along_axis(totals, columns, axis=1)
    return out


@dataclass(frozen=True)
class Projection:
    """The small game to value endings with: its seats and its value table ``Z``, or the
    table to read it from (only the phases an answer's endings reach are decoded)."""

    small: Seats
    Z: FloatArray | None = None
    table: Any = None

    @property
    def players(self) -> int:
        return self.small.players

    def value(self, name: str, totals: IntArray) -> FloatArray:
        """The last seat's value at states `totals` (E, M) of the small game's phase `name`
        (clipped into its box)."""
        phase: Phase = self.small.phases[name]
        t = np.clip(totals, np.array(phase.lo), np.array(phase.hi) - 1)
        rows = self.small.offset(name) + phase.encode(t)
        Z = self.Z if self.Z is not None else self.table.stacked(rows)
        out: FloatArray = Z[rows, self.players - 1]
        return out


def _after(big: Seats, proj: Projection, phase: Phase, mine: IntArray,
           others: IntArray) -> FloatArray:
    """The mover's utility (E,) of ending at `mine` (E,) against `others` (E, N - 1), the
    other players in seat order after it, in the current state's `phase`."""
    n, m = big.n, proj.players
    out = np.zeros(mine.shape[0])
    if phase.kind in (NORMAL, SUDDEN):
        chosen = _take(others, dangerous(others, m - 1))
        small = np.concatenate([chosen, mine[:, None]], axis=1)
        below = mine < n
        out[below] = proj.value(phase.kind, small[below])
        if phase.kind == NORMAL:
            out[~below] = proj.value(final_name(m - 1), small[~below])
        else:
            out[~below] = 1.0  # sudden death: the first to reach the target wins
        return out
    r = phase.remaining
    if r == 1:  # the last final turn: the result, or sudden death
        first = np.concatenate([mine[:, None], others], axis=1)
        mask = big.winners(first)
        over = mask > 0
        share = np.zeros(mine.shape[0])
        count = np.zeros(mine.shape[0])
        for seat in range(big.players):
            count += (mask >> seat) & 1
        share[over] = (mask[over] & 1) / count[over]
        out[over] = share[over]
        if np.any(~over):
            rest = others[~over]
            chosen = _take(rest, dangerous(rest, m - 1))
            small = np.concatenate([chosen, mine[~over, None]], axis=1)
            out[~over] = proj.value(SUDDEN, small)
        return out
    movers, rest = others[:, :r - 1], others[:, r - 1:]
    lead = rest.max(axis=1)
    mover = _take(movers, dangerous(movers, 1))
    if m == 3:
        small = np.concatenate([mover, lead[:, None], mine[:, None]], axis=1)
        return proj.value(final_name(1), small)
    if m != 2:
        raise ValueError(f"a small game of {m} players is not one this method uses")
    # the mover at or above the target leads the small game's last final turn (a tie with the
    # leader shared, or the leader's under ties=trigger: it reached the target first); below
    # it, the mover loses to a leader at or above the target, and with everybody pushed below
    # it by Skull Island the game goes on to sudden death, the small game's
    v = proj.value(final_name(1), np.concatenate([mover, np.maximum(mine, n)[:, None]],
                                                 axis=1))
    race = proj.value(SUDDEN, np.concatenate([mover, np.minimum(mine, n - 1)[:, None]], axis=1))
    tie = 0.5 if big.ties == "shared" else 0.0
    reached = np.where(mine > lead, v, np.where(mine == lead, tie * v, 0.0))
    result: FloatArray = np.where(mine >= n, reached, np.where(lead >= n, 0.0, race))
    return result


def reduced_utilities(big: Seats, proj: Projection, name: str, index: IntArray
                      ) -> tuple[FloatArray, FloatArray]:
    """The mover's utilities of every ending at states `index` of the big game's phase
    `name`, as :func:`.turns.mover_utilities` gives them from an exact table: (n_k + 1, S),
    the points rows then pirate magic (a win), and Skull Island's (n_ded, S)."""
    phase = big.phases[name]
    t = phase.decode(np.asarray(index, dtype=np.int64))
    s = t.shape[0]
    ks = np.arange(big.k_min, big.k_max + 1)
    mine = np.maximum(t[None, :, 0] + ks[:, None], 0).reshape(-1)
    others = np.broadcast_to(t[None, :, 1:], (ks.shape[0], s, big.players - 1)).reshape(
        -1, big.players - 1)
    u = np.empty((ks.shape[0] + 1, s))
    u[:-1] = _after(big, proj, phase, mine, others).reshape(ks.shape[0], s)
    u[-1] = 1.0
    d = np.arange(big.n_ded)
    cut = np.maximum(t[None, :, 1:] - d[:, None, None], 0).reshape(-1, big.players - 1)
    island = _after(big, proj, phase, np.broadcast_to(t[None, :, 0], (d.shape[0], s)).reshape(-1),
                    cut).reshape(d.shape[0], s)
    return u, island


def projection_of(table: Any) -> Projection:
    """The projection onto an exact game table (:class:`solver.game.GameTable`, two
    or three players)."""
    return Projection(small=table.seats, table=table)


__all__ = ["SMALL_PLAYERS", "Projection", "dangerous", "projection_of", "reduced_utilities"]


METHOD = ("near-optimal: each turn's endings valued by the three-player table, the player "
          "against its two most dangerous opponents")
"""The JSON's ``method`` of a table of four or five players played by this method."""


class ReducedTable:
    """The game of four or five players, played by the method of this module on an exact
    table of three (:class:`solver.game.table.GameTable`: not exact, its loss measured)."""

    exact = False
    method = METHOD

    def __init__(self, small: Any, players: int, loss: dict[str, Any] | None = None) -> None:
        if not small.players < players:
            raise ValueError("the small game has fewer players than the big one")
        self.small, self.players = small, players
        self.rules = small.rules
        self.n_dice = small.n_dice
        self.k_min, self.k_max, self.n_ded = small.k_min, small.k_max, small.n_ded
        self.loss = loss
        """The measured loss (:mod:`solver.strategy.measure`), as stored beside the tables,
        or None where nothing was measured."""
        self._projection: Projection | None = None
        self._seats = Seats(players=players, n=self.rules.target // 100, k_min=self.k_min,
                            k_max=self.k_max, n_ded=self.n_ded, ties=self.rules.ties)

    @property
    def seats(self) -> Seats:
        """The big game's seats (one object: its phases are built once, not per turn)."""
        return self._seats

    def projection(self) -> Projection:
        if self._projection is None:
            self._projection = projection_of(self.small)
        return self._projection

    def utilities(self, name: str, index: IntArray) -> tuple[FloatArray, FloatArray]:
        """The mover's utilities at states `index` of phase `name` (:func:`reduced_utilities`)."""
        return reduced_utilities(self.seats, self.projection(), name, index)

    def objectives(self, standing: Standing) -> tuple[Any, ...]:
        """The mover's objective only: the others' chances are not estimated."""
        from .model import GameUtility, TurnUtility
        from .query import state_of

        phase, index = state_of(self, standing)
        u, island = self.utilities(phase, np.array([index], dtype=np.int64))
        utility = TurnUtility(self.k_min, u[:-1], island)
        key = ("near-optimal", self.players, phase, index, self.rules.hash)
        return (GameUtility(utility, key=key),)

    def chances(self, standing: Standing) -> Chances:
        """The mover's estimate (its best turn's expected utility: the small game's values,
        not the big game's), after each card and over the deck; None for every other seat."""
        from ..engine import solve_turn
        from ..rules.rulebook import CARDS
        from .model import deck

        (mover,) = self.objectives(standing)
        rules = self.rules.turn_rules()
        weights = deck(self.n_dice)
        cards = {c: float(solve_turn(CARDS[c], rules, mover, n_dice=self.n_dice)
                          .turn_value[0]) for c in weights}
        total = 0.0
        for card, weight in weights.items():  # in the deck's order, as the solves sum them
            total += weight * cards[card]
        return Chances((total, *([None] * (self.players - 1))), cards)  # type: ignore[arg-type]

    def win_play(self) -> Any:
        from .winplay import ReducedWinPlay

        return ReducedWinPlay(self)
