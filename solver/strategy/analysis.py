r"""Exact analysis of a turn under a fixed policy: the score distribution, the visits of every
position, and the rules of thumb read off the optimal policy.

**Score distribution by forward propagation.**  The probability mass of the turn is pushed
through the policy: the first roll spreads the mass over the 1287 positions (Skull Island and
first-roll busts end there); at each step the mass on a position either ends the turn (the
policy stops: the stop score) or moves to the kept partial position, whose roll spreads it
again (a bust ends it with the bust payoff of the dice that were not rolled). Rerolls are
unlimited, so the chain is cyclic; the live mass shrinks geometrically (every reroll rolls at
least 2 dice, and the policies here end the turn with probability 1), and the propagation stops
once the live mass is at most ``tol`` (default ``1e-15``). That remaining mass is reported
(:attr:`ScoreDistribution.unresolved`) and is a certified bound: every probability is exact to
within it, from below (the unresolved mass will end in *some* outcome), and the mean to within
it times the largest absolute score, floating-point rounding aside (about ``1e-16`` relative per
operation). The same propagation gives the expected number of rolls (the first roll plus the mass
rerolled at every step) and the *occupancy*: the expected number of times each position is a
decision point of the turn, the weight of the rules-of-thumb agreement.

It is a second route to the engine's values, not a copy of them: the mean of the distribution
equals the engine's turn value (to 1e-9 with the default tolerances; the tests check it), and
policy evaluation with indicator payoffs (:func:`indicator_check`) gives the same probabilities.

**Rules of thumb.**  For a card, a world (Sorceress unused or used) and a number of skulls, the
*safe stop value* is the smallest stop value from which the optimal policy stops whatever the
dice: above the largest stop value of a position (with positive occupancy) where it rerolls. The
simple rule "stop when the stop value reaches it, otherwise reroll" is then compared with the
optimal stop-or-reroll decision on every decision position, weighted by occupancy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from ..engine import (
    NO_MOVE,
    STOP,
    UNUSED,
    USED,
    FloatArray,
    IntArray,
    Objective,
    Policy,
    geometry,
    payoff_for,
    solve_payoff,
    turn_model,
)
from ..rules.moves import reroll_is_legal
from ..rules.rulebook import NUM_DICE, Card, Rules
from ..rules.scoring import Outcome, island_deduction
from .policies import PolicySpec, heuristic_tables, optimal_policy, optimal_solution, policy_for

DEFAULT_MASS_TOL = 1e-15
"""Forward propagation stops when the live probability mass is at most this."""
MAX_STEPS = 100_000

STOP_KIND, MAGIC_KIND, BUST_KIND, ISLAND_KIND = "stop", "magic", "bust", "island"
KINDS = (STOP_KIND, MAGIC_KIND, BUST_KIND, ISLAND_KIND)
"""How a turn ends: a stop, a stop with pirate magic, a bust, Skull Island."""


class PropagationError(RuntimeError):
    """The policy left mass where it cannot (a bug in a policy, not a user error)."""


@dataclass(frozen=True)
class ScoreDistribution:
    """The exact distribution of one turn's outcomes under one policy."""

    card: str
    rules: Rules
    policy: str
    outcomes: tuple[tuple[str, int, float], ...]
    """(kind, points for the player, probability), sorted by points then kind; Skull Island
    scores 0 for the player, pirate magic its points with the nine counted as an 8000 set."""
    island_losses: tuple[tuple[int, float], ...]
    """Skull Island: (points each opponent loses, probability), as probabilities of the turn
    (the island's final skull count times the card's cost per skull)."""
    expected_rolls: float
    """Expected number of rolls of the turn, the first included (a first roll that lands on
    Skull Island counts once: the island's own rolls are not counted)."""
    occupancy: dict[int, FloatArray]
    """Per world: expected number of times each position is a decision point."""
    unresolved: float
    """Live mass left when the propagation stopped: each probability is exact to within it."""
    steps: int

    # -- the distribution of the player's points (every kind merged) ----------------------

    @property
    def points(self) -> IntArray:
        """The distinct final scores, increasing."""
        return np.array(sorted({p for _, p, _ in self.outcomes}), dtype=np.int64)

    @property
    def prob(self) -> FloatArray:
        """P(final score == points[i])."""
        index = {int(p): i for i, p in enumerate(self.points)}
        out = np.zeros(len(index))
        for _, p, q in self.outcomes:
            out[index[p]] += q
        return out

    @property
    def total(self) -> float:
        return float(sum(q for _, _, q in self.outcomes))

    @property
    def mean(self) -> float:
        return float(sum(p * q for _, p, q in self.outcomes))

    @property
    def sd(self) -> float:
        m = self.mean
        return float(np.sqrt(sum(q * (p - m) ** 2 for _, p, q in self.outcomes)))

    def quantile(self, q: float) -> int:
        """The smallest score x with P(score <= x) >= q (0 < q < 1), up to 1e-12 of rounding."""
        cdf = np.cumsum(self.prob)
        return int(self.points[int(np.searchsorted(cdf, q - 1e-12))])

    @property
    def median(self) -> int:
        return self.quantile(0.5)

    @property
    def quartiles(self) -> tuple[int, int, int]:
        return self.quantile(0.25), self.quantile(0.5), self.quantile(0.75)

    def p_at_least(self, points: int) -> float:
        return float(sum(q for _, p, q in self.outcomes if p >= points))

    def p_kind(self, kind: str) -> float:
        return float(sum(q for k, _, q in self.outcomes if k == kind))

    @property
    def p_bust(self) -> float:
        return self.p_kind(BUST_KIND)

    @property
    def p_island(self) -> float:
        return self.p_kind(ISLAND_KIND)

    @property
    def p_magic(self) -> float:
        return self.p_kind(MAGIC_KIND)

    @property
    def island_deduction(self) -> float:
        """Expected points each opponent loses this turn (Skull Island)."""
        return float(sum(loss * q for loss, q in self.island_losses))


def distribution(card: Card, rules: Rules, policy: Policy | None = None, *,
                 name: str = "optimal", tol: float = DEFAULT_MASS_TOL) -> ScoreDistribution:
    """The exact outcome distribution of one card's turn under `policy` (default: optimal)."""
    if policy is None:
        policy = optimal_policy(card, rules)
    model = turn_model(card, rules)
    g = geometry()
    roll = _roll_matrix()
    start = max(model.worlds)
    live = {w: model.live[w] for w in model.worlds}
    alive = {w: np.array([o is Outcome.ALIVE for o in model.outcome[w]]) for w in model.worlds}
    p_bust = {w: np.asarray(roll @ (~live[w]).astype(float)) for w in model.worlds}

    # The first roll: its row of the roll matrix is the distribution of the 8 dice.
    first = np.asarray(roll[g.empty].toarray()).ravel()
    first_bust = float(first[[o is Outcome.BUST for o in model.first_outcome]].sum())
    island_by_dice: dict[int, float] = {}
    mass = {w: np.zeros(g.n_full) for w in model.worlds}
    for j, o in enumerate(model.first_outcome):
        if o is Outcome.ISLAND:
            s = int(g.full_counts[j, 0])
            island_by_dice[s] = island_by_dice.get(s, 0.0) + float(first[j])
        elif o is not Outcome.BUST:
            mass[start][j] = first[j]

    stop_mass = {w: np.zeros(g.n_full) for w in model.worlds}
    bust_mass = {w: np.zeros(g.n_partial) for w in model.worlds}
    occupancy = {w: np.zeros(g.n_full) for w in model.worlds}
    code = {w: policy[w][0][:, 0] for w in model.worlds}
    sor = {w: policy[w][1][:, 0] for w in model.worlds}
    for w in model.worlds:
        bad_stop = (code[w] == STOP) & ~alive[w] & live[w]
        no_move = (code[w] == NO_MOVE) & live[w]
        if bad_stop.any() or no_move.any():
            raise PropagationError(f"{card.id}: the policy stops or has no move where it must move")
    rolls = 1.0
    steps = 0
    remaining = sum(float(m.sum()) for m in mass.values())
    while remaining > tol:
        if steps >= MAX_STEPS:
            raise PropagationError(f"{card.id}: {remaining:.3g} live mass after {steps} steps")
        keep_mass = {w: np.zeros(g.n_partial) for w in model.worlds}
        for w in model.worlds:
            m = mass[w]
            occupancy[w] += m
            stops = code[w] == STOP
            stop_mass[w] += np.where(stops, m, 0.0)
            moves = ~stops & (m > 0)
            for dest, sel in ((w, moves & ~sor[w]), (USED, moves & sor[w])):
                if sel.any():
                    keep_mass[dest] += np.bincount(code[w][sel], weights=m[sel],
                                                   minlength=g.n_partial)
        mass = {}
        for w in model.worlds:
            rolls += float(keep_mass[w].sum())
            bust_mass[w] += keep_mass[w] * p_bust[w]
            mass[w] = np.where(live[w], np.asarray(roll.T @ keep_mass[w]), 0.0)
        steps += 1
        remaining = sum(float(m.sum()) for m in mass.values())

    magic = model.stop_magic & (rules.nine_of_a_kind == "magic")
    table: dict[tuple[str, int], float] = {}

    def add(kind: str, points: Iterable[int], probs: Iterable[float]) -> None:
        for p, q in zip(points, probs, strict=True):
            if q > 0:
                table[kind, int(p)] = table.get((kind, int(p)), 0.0) + float(q)

    for w in model.worlds:
        add(STOP_KIND, model.stop_points[~magic], stop_mass[w][~magic])
        add(MAGIC_KIND, model.stop_points[magic], stop_mass[w][magic])
        add(BUST_KIND, model.bust_points, bust_mass[w])
    add(BUST_KIND, [model.first_bust_points], [first_bust])
    island_final: dict[int, float] = {}
    for s, q in sorted(island_by_dice.items()):
        for final, p in sorted(model.island[s].items()):
            loss = island_deduction(card, final)
            island_final[loss] = island_final.get(loss, 0.0) + q * float(p)
    add(ISLAND_KIND, [0], [sum(island_by_dice.values())])
    order = {k: i for i, k in enumerate(KINDS)}
    outcomes = tuple(
        (k, p, q) for (k, p), q in sorted(table.items(), key=lambda kv: (kv[0][1], order[kv[0][0]]))
    )
    for a in occupancy.values():
        a.flags.writeable = False
    return ScoreDistribution(
        card=card.id,
        rules=rules,
        policy=name,
        outcomes=outcomes,
        island_losses=tuple(sorted(island_final.items())),
        expected_rolls=rolls,
        occupancy=occupancy,
        unresolved=remaining,
        steps=steps,
    )


def mixture(dists: Iterable[ScoreDistribution], weights: Iterable[float], *,
            card: str = "deck") -> ScoreDistribution:
    """The distribution of a turn whose card is drawn with these weights (the deck): the
    weighted sum of the cards' distributions (occupancy is per card, so it is left empty)."""
    table: dict[tuple[str, int], float] = {}
    losses: dict[int, float] = {}
    rolls = unresolved = 0.0
    steps = 0
    pairs = list(zip(dists, weights, strict=True))
    for d, w in pairs:
        for k, p, q in d.outcomes:
            table[k, p] = table.get((k, p), 0.0) + w * q
        for loss, q in d.island_losses:
            losses[loss] = losses.get(loss, 0.0) + w * q
        rolls += w * d.expected_rolls
        unresolved += w * d.unresolved
        steps = max(steps, d.steps)
    order = {k: i for i, k in enumerate(KINDS)}
    return ScoreDistribution(
        card=card,
        rules=pairs[0][0].rules,
        policy=pairs[0][0].policy,
        outcomes=tuple((k, p, q) for (k, p), q in
                       sorted(table.items(), key=lambda kv: (kv[0][1], order[kv[0][0]]))),
        island_losses=tuple(sorted(losses.items())),
        expected_rolls=rolls,
        occupancy={},
        unresolved=unresolved,
        steps=steps,
    )


@lru_cache(maxsize=1)
def _roll_matrix() -> sparse.csr_matrix:
    """The roll distribution as a sparse (partial position x position) matrix."""
    g = geometry()
    return sparse.csr_matrix((g.prob, g.col, g.ptr), shape=(g.n_partial, g.n_full))


def optimal_distribution(card: Card, rules: Rules) -> ScoreDistribution:
    """The outcome distribution under the optimal (expected points) policy, cached."""
    return _optimal_distribution(card, rules)


@lru_cache(maxsize=256)
def _optimal_distribution(card: Card, rules: Rules) -> ScoreDistribution:
    return distribution(card, rules)


def policy_distribution(spec: PolicySpec | str, card: Card,
                        rules: Rules) -> ScoreDistribution:
    """The outcome distribution under a named policy (see :mod:`solver.strategy.policies`)."""
    return distribution(card, rules, policy_for(spec, card, rules), name=str(spec))


# --------------------------------------------------------------------------------------------
# Second route: policy evaluation with indicator payoffs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Indicators(Objective):
    """One column per score value: 1 if the turn ends with exactly that many points."""

    values: tuple[int, ...]

    def of_points(self, points: IntArray) -> FloatArray:
        hits: FloatArray = (points[:, None] == np.array(self.values)[None, :]).astype(np.float64)
        return hits


def indicator_check(card: Card, rules: Rules, values: Iterable[int],
                    policy: Policy | None = None) -> FloatArray:
    """P(score == v) for each v by policy evaluation on the engine (indicator payoffs, all
    kinds of ending merged), a route independent of the forward propagation."""
    policy = policy if policy is not None else optimal_policy(card, rules)
    model = turn_model(card, rules)
    objective = _Indicators(tuple(int(v) for v in values))
    sol = solve_payoff(model, payoff_for(model, objective), ("indicators",), policy=policy)
    return sol.turn_value


# --------------------------------------------------------------------------------------------
# Rules of thumb read off the optimal policy
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThumbRule:
    """The safe stop value of one (card, world, skulls) and how well the rule agrees."""

    card: str
    world: int
    skulls: int
    safe_stop: int | None
    """Smallest stop value from which the optimum always stops (None: it never rerolls)."""
    largest_reroll: int | None
    """Largest stop value at which the optimum still rerolls (None: it never rerolls)."""
    visits: float
    """Expected decision visits per turn at this (world, skulls) under optimal play."""
    agree: float
    """Expected visits where 'stop at >= safe_stop, else reroll' matches the optimum."""

    @property
    def agreement(self) -> float:
        return self.agree / self.visits if self.visits else 1.0


def rules_of_thumb(card: Card, rules: Rules) -> tuple[ThumbRule, ...]:
    """Per world and skulls of the turn, the safe stop value and the occupancy-weighted
    agreement of the threshold rule with the optimal stop-or-reroll decision.

    The rule rerolls below the safe stop value when some reroll is legal (otherwise it stops,
    like every policy must); rescue positions (a forced Sorceress move) are not decisions."""
    sol = optimal_solution(card, rules)
    model = turn_model(card, rules)
    dist = optimal_distribution(card, rules)
    t = heuristic_tables(card, rules)
    g = geometry()
    out = []
    for w in model.worlds:
        alive = t.alive[w]
        occ = dist.occupancy[w]
        opt_stop = sol.worlds[w].policy[:, 0] == STOP
        can_reroll = _can_reroll(card, rules, w)
        for s in sorted({int(x) for x in t.skulls[alive]}):
            sel = alive & (t.skulls == s) & (occ > 0)
            if not sel.any():
                continue
            rerolls = sel & ~opt_stop
            largest = int(t.stop_value[rerolls].max()) if rerolls.any() else None
            above = t.stop_value[sel & (t.stop_value > (largest if largest is not None
                                                         else -(10**9)))]
            safe = int(above.min()) if above.shape[0] else None
            if largest is None:
                rule_stop = np.ones(g.n_full, dtype=bool)
            else:
                limit = safe if safe is not None else largest + 1
                rule_stop = (t.stop_value >= limit) | ~can_reroll
            agree = float(occ[sel & (rule_stop == opt_stop)].sum())
            out.append(ThumbRule(card.id, w, s, safe if largest is not None else None,
                                 largest, float(occ[sel].sum()), agree))
    return tuple(out)


def _can_reroll(card: Card, rules: Rules, world: int) -> NDArray[np.bool_]:
    """Whether some reroll (the Sorceress's included, when she is available) is legal from
    each position; it depends on the skull dice only."""
    g = geometry()
    skull_dice = g.full_counts[:, 0]
    sorceress = card.sorceress and world == UNUSED
    by_skulls = [
        any(reroll_is_legal(rules, s, kept) for kept in range(NUM_DICE - s + 1))
        or (sorceress and s >= 1
            and any(reroll_is_legal(rules, s, kept, sorceress=True)
                    for kept in range(NUM_DICE - s + 1)))
        for s in range(NUM_DICE + 1)
    ]
    return np.array(by_skulls)[skull_dice]
