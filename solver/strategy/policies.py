"""Named policies of a turn as engine policy arrays: the optimum and four simple heuristics.

A policy is what :func:`solver.engine.solve_turn` evaluates exactly (``policy=``): per world
(Sorceress used / unused) a keep code per position (``STOP``, the partial index of the kept
dice, or ``NO_MOVE`` where the turn is over) and whether the move uses the Sorceress. The
heuristics are built here position by position from the single sources of the rules
(:func:`solver.rules.scoring.stop_score`, :func:`~solver.rules.scoring.classify_roll`,
:func:`solver.rules.moves.keep_is_legal`); the engine then values them on the same equations as the
optimum, so "loss against optimal play" is a difference of two exact numbers.

**The heuristics' reroll.**  Every heuristic that rerolls rolls the *non-scoring dice*. A die
*scores* when removing it would lower the stop score (:func:`~solver.rules.scoring.stop_score`): the
coins and diamonds, and the dice of a set (a symbol, counted as the scoring counts it, with the
card's ninth symbol and the animals merge, showing 3 or more); while a battle is lost no die
scores that way, and on a battle card the swords the battle needs (up to its number) always
count as scoring. The skull dice are locked. With the Sorceress unused and a skull die on the
table, that skull die is rolled with them (she is used at once; this is what her card is for).
The reroll must be legal (:func:`~solver.rules.moves.keep_is_legal`): if the Sorceress version is
not, the plain one is tried; if neither is, the heuristic stops. In a rescue position (3 skulls,
Sorceress unused: stopping is a bust) the move must use her; if the heuristic's Sorceress reroll
is not legal there (only under ``sorceress_alone=off`` with every die scoring) the optimal move
is played.

**The heuristics.**

- ``first-roll``: stop after the first roll.
- ``two-skulls``: reroll the non-scoring dice while the turn has fewer than 2 skulls (dice and
  card), then stop.
- ``greedy``: one-step lookahead: reroll the non-scoring dice when rolling them once and then
  stopping has a strictly higher immediate expectation than stopping now (a bust after that
  roll counts its bust payoff; a rescue position, where one cannot stop, counts as a bust).
- ``threshold``: stop as soon as the stop value reaches ``T``, reroll the non-scoring dice
  otherwise; ``T`` is given (``threshold=700``) or the card's best, found by an exhaustive
  search (:func:`best_threshold`: only the stop values where the heuristic can reroll, and one
  step above the largest, play differently; every stop value is a multiple of 100).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from ..engine import (
    NO_MOVE,
    STOP,
    UNUSED,
    USED,
    FloatArray,
    IntArray,
    Policy,
    TurnSolution,
    geometry,
    roll_expectation,
    solve_turn,
    turn_model,
)
from ..errors import SettingsError, quote
from ..rules.dice import Dice
from ..rules.moves import Reroll, keep_is_legal
from ..rules.rulebook import Card, Face, Rules
from ..rules.scoring import Outcome, classify_roll, skulls_of, stop_score

OPTIMAL = "optimal"
FIRST_ROLL = "first-roll"
TWO_SKULLS = "two-skulls"
GREEDY = "greedy"
THRESHOLD = "threshold"
HEURISTICS: tuple[str, ...] = (FIRST_ROLL, TWO_SKULLS, GREEDY, THRESHOLD)
POLICY_NAMES: tuple[str, ...] = (OPTIMAL, *HEURISTICS)

THRESHOLD_STEP = 100
"""Every stop value is a multiple of 100 (sets, coins, diamonds, bonuses; doubled by the captain),
so thresholds are too: a multiple of 50 plays like the multiple of 100 above it."""


class PolicyNameError(SettingsError):
    """A policy name that is not one of :data:`POLICY_NAMES` (or ``threshold=T``)."""


class ThresholdError(PolicyNameError):
    """``threshold=T`` with a T that is no stop value (negative, or not a multiple of 100)."""


@dataclass(frozen=True)
class PolicySpec:
    """A named policy: one of :data:`POLICY_NAMES`, with a fixed threshold or the card's best."""

    name: str
    threshold: int | None = None
    """``threshold`` only: the stop value ``T``; ``None`` for the best ``T`` of each card."""

    def __str__(self) -> str:
        if self.name == THRESHOLD and self.threshold is not None:
            return f"{THRESHOLD}={self.threshold}"
        return self.name


def parse_policy(text: str) -> PolicySpec:
    """``optimal``, ``first-roll``, ``two-skulls``, ``greedy``, ``threshold`` or ``threshold=T``."""
    raw = text.strip().lower().replace("_", "-")
    name, sep, value = raw.partition("=")
    if name in POLICY_NAMES and not sep:
        return PolicySpec(name)
    if name == THRESHOLD and sep:
        try:
            threshold = int(value)
        except ValueError:
            pass
        else:
            if threshold < 0 or threshold % THRESHOLD_STEP:
                raise ThresholdError(
                    f"the threshold of {quote(text)} is a stop value in points, a non-negative "
                    f"multiple of {THRESHOLD_STEP} (as every stop value is), not {threshold}",
                    subject="policy")
            return PolicySpec(THRESHOLD, threshold)
    raise PolicyNameError(
        f"unknown policy {quote(text)}: expected one of {', '.join(POLICY_NAMES)} or "
        "threshold=T (T in points, e.g. threshold=700)", subject="policy"
    )


# --------------------------------------------------------------------------------------------
# The heuristics' reroll, position by position (pure rules)
# --------------------------------------------------------------------------------------------


def scoring_dice(card: Card, dice: Dice, rules: Rules) -> Dice:
    """The dice that score (see the module doc): each die whose removal lowers the stop
    score, and on a battle card the swords the battle needs. Skull dice are never among them."""
    points = stop_score(card, dice, rules).points
    counts = [0] * len(dice.counts)
    for face in Face:
        if face == Face.SKULL or not dice[face]:
            continue
        one_less = list(dice.counts)
        one_less[face] -= 1
        # All dice of a face are alike: they score together or not at all.
        if stop_score(card, Dice.of(one_less), rules).points < points:
            counts[face] = dice[face]
    if card.is_battle:
        counts[Face.SWORD] = max(counts[Face.SWORD], min(dice[Face.SWORD], card.battle_swords))
    return Dice.of(counts)


def heuristic_reroll(card: Card, dice: Dice, rules: Rules, *,
                     sorceress_unused: bool = False) -> Reroll | None:
    """The heuristics' reroll from `dice` (after a roll): keep the scoring dice, roll the
    non-scoring ones, and the Sorceress's skull die when she is unused; ``None`` when no such
    reroll is legal (:func:`solver.rules.moves.keep_is_legal`: in a rescue position only her reroll
    is)."""
    outcome = classify_roll(card, dice, rules, first=False, sorceress_unused=sorceress_unused)
    if outcome is Outcome.BUST:
        return None
    keep = scoring_dice(card, dice, rules)
    for sorceress in (True, False):  # she is used at once: what her card is for
        if keep_is_legal(card, rules, dice.skulls, keep.total, sorceress=sorceress,
                         sorceress_unused=sorceress_unused):
            return Reroll(keep, sorceress)
    return None


# --------------------------------------------------------------------------------------------
# Tabulated per card: stop values, the heuristic reroll and its one-step expectation
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HeuristicTables:
    """Per world, over the 1287 positions: what the heuristics need to decide."""

    card: Card
    rules: Rules
    stop_value: IntArray
    """Points of stopping at each position (meaningful where alive)."""
    skulls: IntArray
    """Skulls of the turn at each position (dice and card)."""
    alive: dict[int, NDArray[np.bool_]]
    """Per world: stopping is allowed here."""
    rescue: dict[int, NDArray[np.bool_]]
    """Per world: a rescue position (the move must use the Sorceress)."""
    keep: dict[int, IntArray]
    """Per world: partial index of the heuristic reroll's keep (in the used world's indexing
    ``(s - 1, K)`` when it uses the Sorceress), ``NO_MOVE`` when no reroll is legal."""
    sorceress: dict[int, NDArray[np.bool_]]
    """Per world: whether the heuristic reroll uses the Sorceress."""
    one_step: dict[int, FloatArray]
    """Per world: expected points of the heuristic reroll followed by a stop (bust payoff when
    the roll busts or leaves a rescue position); NaN where there is no reroll."""


_A = TypeVar("_A", bound=NDArray[Any])


def _frozen(a: _A) -> _A:
    a.flags.writeable = False
    return a


def heuristic_tables(card: Card, rules: Rules) -> HeuristicTables:
    """Tabulate the heuristics' reroll and one-step expectation for one card (cached)."""
    return _heuristic_tables(card, rules)


@lru_cache(maxsize=128)
def _heuristic_tables(card: Card, rules: Rules) -> HeuristicTables:
    model = turn_model(card, rules)
    g = geometry()
    full = [g.dice(g.full_offset + j) for j in range(g.n_full)]
    stop_value = model.stop_points
    # One step then stop: the immediate payoff of landing on each position, per world (the
    # kernel's expectation of the stop value where stopping is allowed, and of that event).
    landing: dict[int, FloatArray] = {}
    alive_p: dict[int, FloatArray] = {}
    for w in model.worlds:
        can = model.can_stop[w]
        both = np.column_stack([np.where(can, stop_value, 0).astype(float), can.astype(float)])
        expected = roll_expectation(model, w, both)
        landing[w], alive_p[w] = expected[:, 0], expected[:, 1]
    alive: dict[int, NDArray[np.bool_]] = {}
    rescue: dict[int, NDArray[np.bool_]] = {}
    keep: dict[int, IntArray] = {}
    sorceress: dict[int, NDArray[np.bool_]] = {}
    one_step: dict[int, FloatArray] = {}
    for w in model.worlds:
        alive[w] = model.can_stop[w].copy()
        rescue[w] = model.live[w] & ~model.can_stop[w]
        keep_w = np.full(g.n_full, NO_MOVE, dtype=np.int64)
        sor_w = np.zeros(g.n_full, dtype=bool)
        step_w = np.full(g.n_full, np.nan)
        for j in np.flatnonzero(alive[w] | rescue[w]):
            move = heuristic_reroll(card, full[j], rules, sorceress_unused=(w == UNUSED))
            if move is None:
                continue
            k = g.index(move.kept_after(full[j]).counts)
            dest = USED if move.sorceress else w
            keep_w[j] = k
            sor_w[j] = move.sorceress
            step_w[j] = landing[dest][k] + (1.0 - alive_p[dest][k]) * model.bust_points[k]
        keep[w], sorceress[w], one_step[w] = keep_w, sor_w, step_w
    return HeuristicTables(
        card=card,
        rules=rules,
        stop_value=_frozen(np.array(stop_value)),
        skulls=_frozen(np.array([skulls_of(card, d) for d in full], dtype=np.int64)),
        alive={w: _frozen(a) for w, a in alive.items()},
        rescue={w: _frozen(a) for w, a in rescue.items()},
        keep={w: _frozen(a) for w, a in keep.items()},
        sorceress={w: _frozen(a) for w, a in sorceress.items()},
        one_step={w: _frozen(a) for w, a in one_step.items()},
    )


# --------------------------------------------------------------------------------------------
# Policies
# --------------------------------------------------------------------------------------------


def optimal_solution(card: Card, rules: Rules) -> TurnSolution:
    """The expected-points solution of one card (cached per process)."""
    return _optimal_solution(card, rules)


@lru_cache(maxsize=128)
def _optimal_solution(card: Card, rules: Rules) -> TurnSolution:
    return solve_turn(card, rules)


def optimal_policy(card: Card, rules: Rules) -> Policy:
    """The optimal policy's arrays, as :func:`solver.engine.solve_turn` evaluates them."""
    sol = optimal_solution(card, rules)
    return {w: (ws.policy[:, :1], ws.sorceress[:, :1]) for w, ws in sol.worlds.items()}


def policy_from_rerolls(card: Card, rules: Rules,
                        reroll: dict[int, NDArray[np.bool_]]) -> Policy:
    """The heuristic policy that rerolls (the non-scoring dice) where `reroll[world]` is true
    and the reroll is legal, and stops elsewhere; rescue positions always reroll."""
    t = heuristic_tables(card, rules)
    policy: Policy = {}
    for w in t.alive:
        has = t.keep[w] != NO_MOVE
        go = (reroll[w] & has & t.alive[w]) | t.rescue[w]
        code = np.where(go, t.keep[w], np.where(t.alive[w], STOP, NO_MOVE))
        sor = go & t.sorceress[w]
        stuck = t.rescue[w] & ~has
        if stuck.any():  # the heuristic's Sorceress reroll is illegal here: play the optimum
            opt = optimal_policy(card, rules)[w]
            code = np.where(stuck, opt[0][:, 0], code)
            sor = np.where(stuck, opt[1][:, 0], sor)
        policy[w] = (code.astype(np.int64)[:, None], sor.astype(bool)[:, None])
    return policy


def threshold_reroll(card: Card, rules: Rules,
                     threshold: int | dict[tuple[int, int], int]) -> dict[int, NDArray[np.bool_]]:
    """Where a stop-value threshold rerolls: below ``T`` (one ``T``, or one per (world, skulls)
    of the turn, missing keys meaning 'always stop')."""
    t = heuristic_tables(card, rules)
    out = {}
    for w in t.alive:
        if isinstance(threshold, int):
            limit = np.full(t.stop_value.shape, threshold)
        else:
            limit = np.array([threshold.get((w, int(s)), -(10**9)) for s in t.skulls])
        out[w] = t.stop_value < limit
    return out


def heuristic_policy(name: str, card: Card, rules: Rules,
                     threshold: int | None = None) -> Policy:
    """The policy arrays of heuristic `name` (see the module doc) for one card."""
    t = heuristic_tables(card, rules)
    if name == FIRST_ROLL:
        reroll = {w: np.zeros_like(a) for w, a in t.alive.items()}
    elif name == TWO_SKULLS:
        reroll = dict.fromkeys(t.alive, t.skulls < 2)
    elif name == GREEDY:
        reroll = {w: np.nan_to_num(t.one_step[w], nan=-np.inf) > t.stop_value for w in t.alive}
    elif name == THRESHOLD:
        if threshold is None:
            threshold = best_threshold(card, rules)[0]
        reroll = threshold_reroll(card, rules, threshold)
    else:
        raise PolicyNameError(
            f"unknown heuristic {quote(name)}: expected one of {', '.join(HEURISTICS)}",
            subject="policy")
    return policy_from_rerolls(card, rules, reroll)


def policy_for(spec: PolicySpec | str, card: Card, rules: Rules) -> Policy:
    """The arrays of a named policy for one card."""
    spec = parse_policy(spec) if isinstance(spec, str) else spec
    if spec.name == OPTIMAL:
        return optimal_policy(card, rules)
    return heuristic_policy(spec.name, card, rules, spec.threshold)


def evaluate(card: Card, rules: Rules, policy: Policy) -> float:
    """Exact expected points of following `policy` (policy evaluation on the engine)."""
    return float(solve_turn(card, rules, policy=policy).turn_value[0])


def threshold_candidates(card: Card, rules: Rules) -> tuple[int, ...]:
    """Every threshold that makes a difference, in increasing order: the stop values of the
    positions where the heuristic can reroll, and one step above the largest (never stop while
    a reroll is legal). Any other ``T`` plays exactly like the next candidate up."""
    t = heuristic_tables(card, rules)
    values: set[int] = set()
    for w in t.alive:
        can = t.alive[w] & (t.keep[w] != NO_MOVE)
        values |= {int(v) for v in t.stop_value[can]}
    top = max(values, default=0) + THRESHOLD_STEP
    return (*sorted(values), top)


def threshold_values(card: Card, rules: Rules) -> tuple[tuple[int, float], ...]:
    """Exact expected points of the threshold heuristic for every candidate ``T``."""
    return _threshold_values(card, rules)


@lru_cache(maxsize=128)
def _threshold_values(card: Card, rules: Rules) -> tuple[tuple[int, float], ...]:
    return tuple(
        (t, evaluate(card, rules, heuristic_policy(THRESHOLD, card, rules, t)))
        for t in threshold_candidates(card, rules)
    )


def best_threshold(card: Card, rules: Rules) -> tuple[int, float]:
    """The best ``T`` for the card over all thresholds (the smallest of equals), and its value.

    The search is exhaustive: only :func:`threshold_candidates` play differently."""
    values = threshold_values(card, rules)
    best = max(v for _, v in values)
    return next((t, v) for t, v in values if v == best)


def policy_value(spec: PolicySpec | str, card: Card, rules: Rules) -> float:
    """Exact expected points of a named policy for one card."""
    spec = parse_policy(spec) if isinstance(spec, str) else spec
    if spec.name == OPTIMAL:
        return float(optimal_solution(card, rules).turn_value[0])
    if spec.name == THRESHOLD and spec.threshold is None:
        return best_threshold(card, rules)[1]
    return evaluate(card, rules, policy_for(spec, card, rules))

