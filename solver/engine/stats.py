"""How a turn ends under a policy: bust and Skull Island probabilities, island deduction.

The optimal points policy of a card (:func:`solver.engine.solve_turn`) fixes every move; the
probabilities of the turn's endings under it are the values of the same policy for other
payoffs, so they come from the engine's exact policy evaluation
(:func:`solver.engine.solve_payoff` with ``policy=``), three payoff columns at once:

- ``p_bust``: 1 for a bust (a reroll reaching 3+ skulls, or a first roll with 3 skulls, or 4+
  with a battle card), 0 otherwise. With the Sorceress, a rescue position (exactly 3 skulls,
  her reroll unused) is not a bust: the turn goes on; a bust is a bust.
- ``p_island``: 1 for Skull Island (a first roll with 4+ skulls, not a battle card).
- ``island_deduction``: the points each opponent loses on the island, exactly in expectation
  over the island's rolls (:func:`solver.rules.scoring.island_distribution`); 0 for other endings.

Each is certified to the engine's bound, like the values. The exact counterparts
(:class:`ExactTurnStats`) are the same policy evaluation in fractions
(:func:`solver.engine.exact.solve_exact` with the same payoff columns,
:func:`exact_ending_payoff`).

**Intervals of simulated rates** (:func:`wilson_interval`): a rate measured by simulation (a
win rate of :mod:`solver.strategy.games`) is given with its Wilson score interval, which lies inside
[0, 1] and is never of zero width, unlike the normal approximation p ± z·sqrt(p(1-p)/n) that
gives [0, 0] for no success and runs past 1 for few games.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from ..rules.rulebook import CARDS, Card, Rules
from ..rules.scoring import island_deduction, island_distribution
from .model import TurnModel, turn_model
from .objectives import Payoff
from .results import (
    STAT_NAMES,
    ExactTurnStats,
    TurnSolution,
    TurnStats,
    deck_average,
    exact_deck_average,
)

if TYPE_CHECKING:
    from .exact import ExactPayoff, ExactSolution

Z_95 = 1.959963984540054
"""The two-sided 95 % quantile of the standard normal distribution, Φ⁻¹(0.975)."""
INTERVAL_METHOD = "Wilson score"
"""The name of the interval :func:`wilson_interval` gives, for the legends that print one."""


def wilson_interval(successes: float, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a rate: `successes` out of `trials` (a shared tie counts
    1/2, so `successes` may be a half-integer), at the confidence of the normal quantile `z`
    (95 % by default). E. B. Wilson, "Probable inference, the law of succession, and
    statistical inference", JASA 22 (1927), 209-212; Agresti and Coull, "Approximate is better
    than exact for interval estimation of binomial proportions", Am. Stat. 52 (1998) 119-126:

        (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n),   p = successes / trials.

    Inside [0, 1], of positive width for every trials >= 1; (nan, nan) for no trials."""
    if trials <= 0:
        return math.nan, math.nan
    n = trials
    p = min(1.0, max(0.0, successes / n))
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)
ENDING_COLUMNS = ("p_bust", "p_island", "island_deduction")
"""The payoff columns of :func:`ending_payoff`, in order."""


def _island_deduction(model: TurnModel, skull_dice: int) -> Fraction:
    """Expected points each opponent loses on Skull Island after `skull_dice` skull dice."""
    dist = island_distribution(model.card, skull_dice, model.n_dice)
    return sum((p * island_deduction(model.card, final) for final, p in dist.items()),
               Fraction(0))


def exact_ending_payoff(model: TurnModel) -> ExactPayoff:
    """Three payoff columns, exactly: bust indicator, island indicator, island deduction."""
    from .exact import ExactPayoff

    g = model.geometry
    zero, one = Fraction(0), Fraction(1)
    bust = np.zeros((g.n_partial, 3), dtype=object)  # integers over 1
    bust[:, 0] = 1
    island = np.full((model.n_dice + 1, 3), zero, dtype=object)
    for skull_dice in range(model.n_dice + 1):
        island[skull_dice, 1] = one
        island[skull_dice, 2] = _island_deduction(model, skull_dice)
    return ExactPayoff(stop=np.zeros((model.n_full, 3), dtype=object), bust=bust, den=1,
                       first_bust=(one, zero, zero), island=island)


def ending_payoff(model: TurnModel) -> Payoff:
    """Three payoff columns: bust indicator, island indicator, island deduction (the exact
    deduction rounded to the nearest double)."""
    g = model.geometry
    n_dice = model.n_dice
    bust = np.zeros((g.n_partial, 3))
    bust[:, 0] = 1.0
    island = np.zeros((n_dice + 1, 3))
    for skull_dice in range(n_dice + 1):
        island[skull_dice] = (0.0, 1.0, float(_island_deduction(model, skull_dice)))
    return Payoff(
        stop=np.zeros((model.n_full, 3)),
        bust=bust,
        first_bust=np.array([1.0, 0.0, 0.0]),
        island=island,
    )


def turn_stats(solution: TurnSolution) -> TurnStats:
    """Bust and island statistics of a points solution's policy (its column 0)."""
    model = turn_model(CARDS[solution.card], solution.rules, solution.n_dice)
    policy = {w: (ws.policy, ws.sorceress) for w, ws in solution.worlds.items()}
    from .solve import solve_payoff

    endings = solve_payoff(model, ending_payoff(model), ("endings",), policy=policy)
    p_bust, p_island, deduction = (float(x) for x in endings.turn_value)
    return TurnStats(
        ev=float(solution.turn_value[0]),
        p_bust=p_bust,
        p_island=p_island,
        island_deduction=deduction,
        bound=endings.bound,
    )


def rounded_stats(stats: ExactTurnStats) -> TurnStats:
    """The statistics rounded to the nearest double; the bound is the rounding's (half a unit
    in the last place of the largest of p_bust, p_island, island_deduction)."""
    from .exact import rounding_bound

    p_bust, p_island, deduction = (float(x) for x in
                                   (stats.p_bust, stats.p_island, stats.island_deduction))
    return TurnStats(ev=float(stats.ev), p_bust=p_bust, p_island=p_island,
                     island_deduction=deduction,
                     bound=rounding_bound([np.array([p_bust, p_island, deduction])]))


def exact_stats_of(exact: ExactSolution) -> ExactTurnStats:
    """The statistics of an exact solve whose further columns are :func:`exact_ending_payoff`
    (``solve_exact(..., evaluate=exact_ending_payoff(model))``)."""
    if len(exact.turn_value) != 1 + len(ENDING_COLUMNS):
        raise ValueError("the exact solve was not made with the ending payoff columns")
    ev, p_bust, p_island, deduction = exact.turn_value
    return ExactTurnStats(ev=ev, p_bust=p_bust, p_island=p_island, island_deduction=deduction)


def exact_turn_stats(card: Card, rules: Rules) -> tuple[ExactTurnStats, ExactSolution]:
    """Solve `card`'s turn for expected points exactly (floats first, then the proof), with
    its statistics: (statistics, exact solution)."""
    from .exact import exact_turn

    model = turn_model(card, rules.turn_rules())
    exact, _ = exact_turn(card, rules.turn_rules(), evaluate=exact_ending_payoff(model))
    return exact_stats_of(exact), exact


__all__ = [
    "ENDING_COLUMNS",
    "INTERVAL_METHOD",
    "STAT_NAMES",
    "Z_95",
    "ExactTurnStats",
    "TurnStats",
    "deck_average",
    "ending_payoff",
    "exact_deck_average",
    "exact_ending_payoff",
    "exact_stats_of",
    "exact_turn_stats",
    "rounded_stats",
    "turn_stats",
    "wilson_interval",
]
