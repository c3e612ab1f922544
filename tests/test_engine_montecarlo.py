"""Monte Carlo: play the solved expected-points policy with real random dice.

An independent route to the engine's numbers: 8 physical dice are rolled with numpy's
Generator (fixed seed), the policy's keep is applied to them, what the roll leaves is judged
by :func:`solver.rules.scoring.classify_roll`, a stop is scored by ``stop_score``, a bust by
``bust_score`` with the dice that were not rolled (the chest), and Skull Island is played out
by rolling the non-skull dice until a roll adds no skull or fewer than 2 of them remain. The
simulator lives here on purpose (``solver/simulate.py``, for ``sabords simulate``, is the other
route and must not share code with this check).

Each card's sample is compared with the exact values of the same policy: the mean points with
the turn value, and the rates of bust and Skull Island and the mean island deduction with a
policy evaluation (``solve_payoff(..., policy=...)``) of their indicators. Test: a z-score,
|z| < 5 (two-sided false-alarm rate 5.7e-7 per comparison, about 1e-5 for the 20 comparisons of
this file); the seed is fixed, so a run is reproducible. With 40 000 turns a card the standard
error of the mean points is 1.2-4.2 points and that of a bust rate at most 0.25 percentage
points: an error of about 20 points in a turn value, or 1.3 points of percentage in a bust
rate, fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from solver.engine import (
    NO_MOVE,
    STOP,
    UNUSED,
    USED,
    Objective,
    Payoff,
    geometry,
    payoff_for,
    solve_payoff,
    turn_model,
)
from solver.rules import CARDS, NUM_DICE, Rules, get_card
from solver.rules.dice import Dice
from solver.rules.scoring import (
    Outcome,
    bust_score,
    classify_roll,
    island_deduction,
    stop_score,
)

N_TURNS = 40_000
Z_MAX = 5.0
SEED = 20_240_611


@dataclass
class Sample:
    points: np.ndarray  # (N,) the player's points
    bust: np.ndarray  # (N,) bool
    island: np.ndarray  # (N,) bool
    deduction: np.ndarray  # (N,) per opponent (0 off the island)
    rolls: int  # rerolls made in all
    sorceress: int  # rerolls that picked up a skull die


def simulate(card: str, rules: Rules, solution: Any, n: int, seed: int) -> Sample:
    """Play `n` turns of `card` following the solution's policy (column 0)."""
    c = get_card(card)
    g = geometry()
    rng = np.random.default_rng(seed)
    base = (NUM_DICE + 1) ** np.arange(6)

    def position(counts: np.ndarray) -> np.ndarray:
        """Full index (the policy tables' row) of dice counts."""
        return g.code_lut[counts @ base] - g.full_offset  # type: ignore[no-any-return]

    # What a roll leaves, and the points of a stop, judged by solver.rules.scoring once per
    # position.
    full = [Dice.of(x) for x in g.full_counts]
    worlds = (USED, UNUSED) if c.sorceress else (USED,)
    judged = {w: np.array([classify_roll(c, d, rules, first=False, sorceress_unused=w == UNUSED)
                           for d in full]) for w in worlds}
    first_judged = np.array([classify_roll(c, d, rules, first=True, sorceress_unused=c.sorceress)
                             for d in full])
    stop_points = np.array([stop_score(c, d, rules).points for d in full])
    bust_points: dict[int, int] = {}  # memo of bust_score by the dice left on the table

    def roll(k: np.ndarray) -> np.ndarray:
        """Counts per face of rolling k[i] physical dice for each turn i."""
        faces = rng.integers(0, 6, size=(k.shape[0], NUM_DICE))
        used = np.arange(NUM_DICE)[None, :] < k[:, None]
        return np.stack([((faces == f) & used).sum(axis=1) for f in range(6)], axis=1)

    points = np.zeros(n, dtype=np.int64)
    bust = np.zeros(n, dtype=bool)
    island = np.zeros(n, dtype=bool)
    deduction = np.zeros(n, dtype=np.int64)

    dice = roll(np.full(n, NUM_DICE))
    first = first_judged[position(dice)]
    # A first-roll bust (3+ skulls without rescue, or 4+ on a battle card): nothing on a chest.
    first_bust = first == Outcome.BUST
    points[first_bust] = bust_score(c, None, rules)
    bust[first_bust] = True
    # Skull Island: roll the non-skull dice while each roll adds a skull and 2+ of them remain.
    isl = np.flatnonzero(first == Outcome.ISLAND)
    island[isl] = True
    skulls = dice[isl, 0].copy()
    going = np.ones(isl.shape[0], dtype=bool)
    while going.any():
        free = NUM_DICE - skulls[going]
        added = roll(free)[:, 0]
        skulls[going] += added
        idx = np.flatnonzero(going)
        going[idx] = (added > 0) & (NUM_DICE - skulls[idx] >= 2)
    deduction[isl] = [island_deduction(c, int(s) + c.skulls) for s in skulls]

    live = np.flatnonzero((first == Outcome.ALIVE) | (first == Outcome.RESCUE))
    world = np.full(live.shape[0], UNUSED if c.sorceress else USED)
    dice = dice[live]
    rolls = sorceress = 0
    while live.shape[0]:
        j = position(dice)
        code = np.empty(live.shape[0], dtype=np.int64)
        sorc = np.zeros(live.shape[0], dtype=bool)
        for w in worlds:
            at = world == w
            code[at] = solution.worlds[w].policy[j[at], 0]
            sorc[at] = solution.worlds[w].sorceress[j[at], 0]
        assert not (code == NO_MOVE).any(), "no move at a position where the turn goes on"
        stops = code == STOP
        assert all(judged[w][jj] is Outcome.ALIVE for w, jj in zip(world[stops], j[stops],
                                                                    strict=True))
        points[live[stops]] = stop_points[j[stops]]
        go = ~stops
        live, dice, world, code, sorc = live[go], dice[go], world[go], code[go], sorc[go]
        if not live.shape[0]:
            break
        keep = g.counts[code]  # the dice left on the table, skull dice included
        # The keep is physically there: kept faces among the dice, the skull dice all staying
        # (one fewer when the Sorceress picks one up).
        assert (keep[:, 1:] <= dice[:, 1:]).all()
        assert (keep[:, 0] == dice[:, 0] - sorc).all()
        rolled = NUM_DICE - keep.sum(axis=1)
        assert (rolled >= 1).all()
        rolls += live.shape[0]
        sorceress += int(sorc.sum())
        world = np.where(sorc, USED, world)
        dice = keep + roll(rolled)
        j = position(dice)
        verdict = np.array([judged[w][jj] for w, jj in zip(world, j, strict=True)])
        busted = verdict == Outcome.BUST
        for t, k in zip(live[busted], code[busted], strict=True):
            if k not in bust_points:
                bust_points[k] = bust_score(c, g.dice(k), rules)  # the chest: unrolled dice
            points[t] = bust_points[k]
        bust[live[busted]] = True
        live, dice, world = live[~busted], dice[~busted], world[~busted]
    return Sample(points, bust, island, deduction, rolls, sorceress)


class _Deduction(Objective):
    def of_points(self, points: np.ndarray) -> np.ndarray:
        return np.zeros((points.shape[0], 1))

    def of_island(self, deduction: np.ndarray) -> np.ndarray:
        return deduction.astype(np.float64)[:, None]


def exact_rates(card: str, rules: Rules, solution: Any) -> tuple[float, float, float]:
    """P(bust), P(Skull Island), E[deduction] of the solution's policy (policy evaluation)."""
    model = turn_model(CARDS[card], rules)
    g = geometry()
    deduct = payoff_for(model, _Deduction())
    payoff = Payoff(
        stop=np.zeros((model.n_full, 3)),
        bust=np.tile([1.0, 0.0, 0.0], (g.n_partial, 1)),
        first_bust=np.array([1.0, 0.0, 0.0]),
        # Payoff.island is only read for first rolls that do go to the island: ones everywhere
        # in the indicator column is right.
        island=np.column_stack([np.zeros(NUM_DICE + 1), np.ones(NUM_DICE + 1),
                                deduct.island[:, 0]]),
    )
    policy = {w: (ws.policy, ws.sorceress) for w, ws in solution.worlds.items()}
    evaluated = solve_payoff(model, payoff, policy=policy)
    return tuple(float(x) for x in evaluated.turn_value)  # type: ignore[return-value]


def z_mean(sample: np.ndarray, exact: float) -> float:
    se = sample.std(ddof=1) / np.sqrt(sample.shape[0])
    return float((sample.mean() - exact) / se) if se > 0 else float(sample.mean() != exact) * 1e9


def z_rate(hits: np.ndarray, p: float) -> float:
    se = np.sqrt(p * (1 - p) / hits.shape[0])
    return float((hits.mean() - p) / se) if se > 0 else float(hits.mean() != p) * 1e9


SAMPLED = ("sorceress", "chest", "skull2", "battle2", "coin")


@pytest.mark.parametrize("card", SAMPLED)
def test_simulated_turns_match_the_exact_values(card: str, solved: Callable[..., Any]) -> None:
    rules = Rules()
    solution = solved(card, rules)
    sample = simulate(card, rules, solution, N_TURNS, SEED + SAMPLED.index(card))
    p_bust, p_island, deduction = exact_rates(card, rules, solution)
    z = {
        "points": z_mean(sample.points.astype(float), float(solution.turn_value[0])),
        "bust": z_rate(sample.bust, p_bust),
        "island": z_rate(sample.island, p_island),
        "deduction": z_mean(sample.deduction.astype(float), deduction),
    }
    assert max(abs(v) for v in z.values()) < Z_MAX, z
    assert sample.rolls > 0  # the policy does reroll
    assert (sample.sorceress > 0) == (card == "sorceress")
