r"""Near-optimal play for four and five players: every seat's chance estimated from the exact
tables of two and three players, and each turn played to the mover's estimate.

**Why.**  The exact game of four players at the default target has 350 million states (five:
6.5 billion in the final round alone, compact): out of reach here (docs/playing-to-win.md).
The games of two and three players at 6000 are solved exactly.

**The method** (:class:`ReducedTable`).  Every seat's chance at every state of the big game is
estimated from the exact small tables (:mod:`.estimate`: the sub-games' odds pooled and
extrapolated in normal play and sudden death, a race to beat the best in the final round). The
mover's turn is the engine's exact turn solve of its estimated chance after each ending (its
moves maximise it, the tie rule is the engine's); the other seats' chances under it are its
evaluations of theirs. A final turn with others still to play after it is played, as a cheaper
stand-in, on the three-player table's final round: the mover against the most dangerous of
those still to play and the leader of those who have played (:func:`reduced_utilities`; the
last final turn's results are exact either way). A state's chances shown are one turn ahead:
the deck's average of the mover's best turns and of the others' chances under them, as an exact
table's values are.

**What it is not.**  The values are estimates, not the big game's. Their error and the play's
loss are *measured* (:mod:`solver.strategy.measure`, ``scripts/measure_reduced.py``): against
the exact tables where they exist (every state, every seat), and by whole games at 6000.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import FloatArray, IntArray
from .seats import FINAL, NORMAL, SUDDEN, Phase, Seats, final_name
from .table import Chances

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..rules.standing import Standing
    from .estimate import NeedEndings
    from .table import GameTable

SMALL_PLAYERS = 3
"""The most players of the exact small games the method pools (two and three)."""


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


METHOD = ("near-optimal: every seat's chance pooled from the exact two- and three-player "
          "tables, each turn played to the player's")
"""The JSON's ``method`` of a game of four or five players played by this module."""


class ReducedTable:
    """The game of four or five players without its exact table: every seat's chance
    estimated from the exact tables of two and three players (:class:`.estimate.Estimate`),
    and each turn played to maximise the mover's estimated chance after it
    (:class:`solver.game.table.Game`: not exact, its error measured)."""

    exact = False
    method = METHOD

    def __init__(self, two: GameTable | None, three: GameTable, players: int,
                 loss: dict[str, Any] | None = None,
                 need: Callable[[], NeedEndings] | None = None) -> None:
        """`two` None: the method one player down, `three` the largest small game; `need`:
        where the final turns' endings come from (:class:`.estimate.Estimate`)."""
        from .estimate import Estimate

        self.small = three
        self.estimate = Estimate(two, three, players, need=need)
        self.players = players
        self.rules = three.rules
        self.n_dice = three.n_dice
        self.k_min, self.k_max, self.n_ded = three.k_min, three.k_max, three.n_ded
        self.loss = loss
        """What was measured of the method (:mod:`solver.strategy.measure`), as stored
        beside the tables, or None where nothing was measured."""

    @property
    def seats(self) -> Seats:
        """The big game's seats (one object: its phases are built once, not per turn)."""
        return self.estimate.seats

    @property
    def projection(self) -> Projection:
        return Projection(small=self.small.seats, table=self.small)

    def successor_values(self, name: str, index: IntArray) -> tuple[FloatArray, FloatArray]:
        """Every seat's estimated chance after every ending of the mover's turn at states
        `index` of phase `name`, in the current state's frame (seat 0 the mover): points
        (n_k, S, N) for ``k_min .. k_max`` units and Skull Island (n_ded, S, N) by
        deduction."""
        points, island = self.seats.successors(name, np.asarray(index, dtype=np.int64))
        raced = self.seats.phases[name].kind == FINAL  # (module doc of .estimate)
        values = self.estimate.rows(np.concatenate([points.ravel(), island.ravel()]),
                                    shift=raced)
        values = np.roll(values, 1, axis=1)  # the next state's seat j is this one's j + 1
        cut = points.size
        return (values[:cut].reshape(*points.shape, self.players),
                values[cut:].reshape(*island.shape, self.players))

    def utilities(self, name: str, index: IntArray) -> tuple[FloatArray, FloatArray]:
        """The mover's utilities at states `index` of phase `name`, as
        :func:`.turns.mover_utilities` gives them from an exact table: (n_k + 1, S), the
        points rows then pirate magic (a win), and Skull Island's (n_ded, S). A final turn
        with others still to play after it is played on the three-player table's final
        round (:func:`reduced_utilities`: the most dangerous of them and the leader)."""
        phase = self.seats.phases[name]
        if phase.kind == FINAL and phase.remaining > 1:
            return reduced_utilities(self.seats, self.projection, name, index)
        points, island = self.seats.successors(name, np.asarray(index, dtype=np.int64))
        rows = np.concatenate([points.ravel(), island.ravel()])
        values = self.mover_rows(rows, raced=phase.kind == FINAL)
        u = np.empty((points.shape[0] + 1, points.shape[1]))
        u[:-1] = values[:points.size].reshape(points.shape)
        u[-1] = 1.0
        return u, values[points.size:].reshape(island.shape)

    def mover_rows(self, rows: IntArray, *, raced: bool) -> FloatArray:
        """The chance of the player who has just moved (the last seat) at rows of the big
        game's ``Z``: the estimate's, a row of the final round's first phase (the player has
        just reached the target) by its closed form (:meth:`.estimate.Estimate.trigger_chance`;
        the same as the race when `raced` is False)."""
        seats = self.seats
        first = seats.phases[final_name(self.players - 1)]
        lo = seats.offset(first.name)
        at = (rows >= lo) & (rows < lo + first.size) & (not raced)
        out = np.empty(rows.shape[0])
        if np.any(at):
            unique, back = np.unique(rows[at], return_inverse=True)
            out[at] = self.estimate.trigger_chance(first.decode(unique - lo))[back.reshape(-1)]
        if np.any(~at):
            out[~at] = self.estimate.rows(rows[~at], shift=raced)[:, -1]
        return out

    def objectives(self, standing: Standing) -> tuple[Any, ...]:
        """Every seat's objective, the mover's first (its moves maximise it), from the
        estimated chances after each ending."""
        from .model import GameUtility, TurnUtility
        from .query import SeatUtility, state_of

        phase, index = state_of(self, standing)
        points, island = self.successor_values(phase, np.array([index], dtype=np.int64))
        out: list[Any] = []
        for seat in range(self.players):
            u = TurnUtility(self.k_min, points[:, :, seat], island[:, :, seat])
            key = ("near-optimal", self.players, phase, index, seat, self.rules.hash)
            out.append(GameUtility(u, key=key) if seat == 0 else SeatUtility(u, key=key))
        return tuple(out)

    def chances(self, standing: Standing) -> Chances:
        """Every seat's estimated chance with the mover about to draw, one turn ahead: the
        mover's best turn of each card on the estimates after it, every other seat's chance
        under that turn, over the deck (the exact tables' values are such a step of their
        own); and the mover's after each card."""
        from ..engine.model import turn_model
        from ..engine.objectives import payoff_for
        from ..engine.solve import solve_payoffs
        from ..rules.rulebook import CARDS
        from .model import deck

        mover, *others = self.objectives(standing)
        rules = self.rules.turn_rules()
        weights = deck(self.n_dice)
        cards: dict[str, float] = {}
        seats = np.zeros(self.players)
        models = {card: turn_model(CARDS[card], rules, self.n_dice) for card in weights}
        bests = solve_payoffs([(m, payoff_for(m, mover), mover.key()) for m in models.values()])
        for (card, weight), best in zip(weights.items(), bests, strict=True):
            # in the deck's order, as the solves sum them
            model = models[card]
            theirs = solve_payoffs([(model, payoff_for(model, o), o.key()) for o in others],
                                   policy=best.policy())  # one batch under the mover's turn
            chance = [float(best.turn_value[0]), *(float(t.turn_value[0]) for t in theirs)]
            cards[card] = chance[0]
            seats += weight * np.array(chance)
        return Chances(tuple(float(x) for x in seats), cards)

    def seat_values(self, standing: Standing) -> tuple[float, ...]:
        """Every seat's estimated chance at `standing`, one turn ahead (:meth:`chances`)."""
        return self.chances(standing).seats

    def win_play(self) -> Any:
        from .winplay import ReducedWinPlay

        return ReducedWinPlay(self)
