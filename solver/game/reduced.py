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
evaluations of theirs. A final turn is played to the race's chance after it, as any other
turn to its estimate (the race's own final turns with others after them are the engine's
exact turns for the later players' chances of beating each total: :meth:`.estimate.Estimate.aim`).
A state's chances shown
are one turn ahead: the deck's average of the mover's best turns and of the others' chances
under them, as an exact table's values are.

**What it is not.**  The values are estimates, not the big game's. Their error and the play's
loss are *measured* (:mod:`solver.strategy.measure`, ``scripts/measure_reduced.py``): against
the exact tables where they exist (every state, every seat), and by whole games at 6000.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import FloatArray, IntArray
from .seats import FINAL, Seats, final_name
from .table import Chances

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..rules.standing import Standing
    from .estimate import NeedEndings
    from .table import GameTable

SMALL_PLAYERS = 3
"""The most players of the exact small games the method pools (two and three)."""


METHOD = ("near-optimal: every seat's chance pooled from the exact two- and three-player "
          "tables and extrapolated to the game's seats, each turn played for the mover's "
          "best estimated chance")
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
        points rows then pirate magic (a win), and Skull Island's (n_ded, S). A final turn's
        are the race's (:meth:`.estimate.Estimate.final_round`), Skull Island's deductions
        carried."""
        phase = self.seats.phases[name]
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
