"""The final turn: the trailing player's chance by deficit, every card's turn solved at once.

The trailing player ends the game with this turn: with ``q`` points against a deficit of ``d``
units it wins when ``q > d``, ties when ``q == d`` (worth 1/2 under ``ties=shared``, 0 under
``ties=trigger``), and pirate magic wins. One column per deficit ``d = 1..k_max + 1`` (beyond,
only pirate magic wins: the value of ``k_max + 1``). Skull Island is worth 0 here: it happens on
the first roll, before any decision, and its effect (the leader's total falls) is the game's
(:func:`solver.game.model.final_values`).

Each card's turn is solved by the engine's layered value iteration on the card's orbits
(:func:`solver.engine.solve.solve_layers`), so the table carries the engine's certified bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..engine import FloatArray
from ..engine.arrays import turn_value_lanes
from ..engine.kernel import LANES, from_lanes, to_lanes
from ..engine.solve import DEFAULT_TOL, solve_layers
from ..rules.rulebook import NUM_DICE, TIE_SHARES, Rules
from .model import GameModel, game_model


@dataclass(frozen=True)
class FinalTable:
    """``value[d]``: the trailing player's probability of winning the final turn with a
    deficit of ``d`` units, Skull Island excluded (``value[0]`` unused, NaN); deficits above
    ``max_deficit`` are worth ``value[max_deficit]`` (only pirate magic wins)."""

    value: FloatArray
    cards: dict[str, FloatArray]
    """Each card's value by deficit (entry 0 NaN)."""
    sweeps: int
    """The most sweeps a card's solve took."""
    residual: float
    bound: float
    """Certified bound on every value (the largest of the cards' bounds)."""

    @property
    def max_deficit(self) -> int:
        return int(self.value.shape[0]) - 1

    def at(self, deficit: object) -> FloatArray:
        d = np.minimum(np.asarray(deficit), self.max_deficit)
        return self.value[d]  # type: ignore[no-any-return]


def final_utilities(gm: GameModel, ties: str) -> FloatArray:
    """(n_u, D) utilities of the final turn: a column per deficit d = 1..k_max + 1."""
    deficits = np.arange(1, gm.k_max + 2)
    k = np.arange(gm.k_min, gm.k_max + 1)[:, None]
    tie = TIE_SHARES[ties]
    u = np.empty((gm.n_u, deficits.shape[0]))
    u[: gm.n_k] = (k > deficits[None, :]).astype(np.float64) + tie * (k == deficits[None, :])
    u[gm.magic_row] = 1.0
    return u


def solve_final(rules: Rules, *, tol: float = DEFAULT_TOL, n_dice: int = NUM_DICE) -> FinalTable:
    """The final-turn table of `rules` (it depends on the turn rules and ties only: cached)."""
    return _solve_final(rules.turn_rules(), rules.ties, tol, n_dice)


@lru_cache(maxsize=8)
def _solve_final(turn_rules: Rules, ties: str, tol: float, n_dice: int) -> FinalTable:
    gm = game_model(turn_rules, n_dice)
    u = final_utilities(gm, ties)
    n_d = u.shape[1]
    u_l = to_lanes(u, LANES)
    total = np.zeros(n_d)
    cards: dict[str, FloatArray] = {}
    sweeps, residual, bound = 0, 0.0, 0.0
    for card, weight in gm.weights.items():
        ct = gm.cards[card]
        w0 = ct.worlds[ct.model.worlds[0]]
        solved = solve_layers(ct.model, ct.st, u_l, w0.stop_idx, w0.bust_idx, tol=tol)
        turn = turn_value_lanes(solved.values[ct.model.start_world], ct.first,
                                u_l[:, ct.first_bust_row, :], None)
        value = from_lanes(turn, n_d)
        cards[card] = np.concatenate([[np.nan], value])
        total = total + weight * value
        sweeps = max(sweeps, solved.sweeps)
        residual = max(residual, solved.residual)
        bound = max(bound, solved.bound)
    return FinalTable(value=np.concatenate([[np.nan], total]), cards=cards, sweeps=sweeps,
                      residual=residual, bound=bound)
