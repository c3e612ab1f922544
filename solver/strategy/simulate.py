"""Monte-Carlo play: turns with real random dice under a named policy, against the exact values.

The one turn simulator of the project: :func:`play_batch` plays a batch of turns side by side
(numpy arrays over the turns), roll by roll, on each card's turn model
(:mod:`solver.engine.model`: the outcome of every position, the stop and bust payoffs, the
legality of every keep, all from :mod:`solver.rules.scoring` and :mod:`solver.rules.moves`). A
policy (:class:`TurnPolicy`) is only asked for its move, and every move is checked against the
model's legality (:class:`PolicyMoveError` otherwise); Skull Island draws its final skull
count from the island's exact distribution. Nothing here reads the engine's values, so a
simulation is an independent check of them. `sabords simulate` plays turns with it
(:func:`play_turns`, :func:`simulate`), `sabords game` whole games (:mod:`solver.strategy.games`).

Randomness comes from one :class:`numpy.random.Generator` (PCG64) seeded with ``seed``: the
same seed, turns, cards, policy and rules give the same turns on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..engine import NO_MOVE, STOP, UNUSED, USED, IntArray, Policy, geometry, turn_model
from ..engine.results import PolicyMoveError
from ..errors import SettingsError, quote
from ..rules.rulebook import CARDS, FACE_LETTERS, NUM_DICE, NUM_FACES, Card, Rules, deck_weights
from ..rules.scoring import Outcome
from .analysis import policy_distribution
from .policies import PolicySpec, parse_policy, policy_for, policy_value

MAX_TURNS = 10_000_000
KINDS = ("stop", "magic", "bust", "island")
"""How a turn ends (as in :mod:`solver.strategy.analysis`), by its code in
:attr:`TurnBatch.kind`."""
STOPPED, MAGIC, BUSTED, ISLAND = range(len(KINDS))
P_FACE = np.full(NUM_FACES, 1.0 / NUM_FACES)


class SimulationError(SettingsError):
    """Bad simulation settings (a number of turns out of range)."""


# --------------------------------------------------------------------------------------------
# The turn model of every card, as the arrays the simulation reads
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeckArrays:
    """The turn models of some cards as lookup arrays, a row per card (positions are full
    indices, keeps partial indices; a card without the Sorceress repeats its world)."""

    cards: tuple[str, ...]
    start_world: IntArray
    first_class: IntArray
    """(n_cards, n_full): 0 play on, 1 bust, 2 Skull Island, for the first roll."""
    live: Any
    """(n_cards, 2, n_full)."""
    can_stop: Any
    """(n_cards, 2, n_full): stopping is allowed (alive; not in a rescue)."""
    stop_points: IntArray
    magic: Any
    bust_points: IntArray
    """(n_cards, n_partial): points of a bust with these dice not rolled."""
    first_bust_points: IntArray
    """(n_cards,): points of a bust on the first roll."""
    keep_legal: Any
    """(n_cards, 2, n_partial)."""
    sorceress_legal: Any
    island_cdf: Any
    """(n_cards, n_dice + 1, NUM_DICE + 3): P(final skulls <= t) by skull dice of the first
    roll (the island's exact distribution, rounded)."""
    island_cost: IntArray


def deck_arrays(rules: Rules, cards: Sequence[str]) -> DeckArrays:
    """The arrays of `cards` (ids) under the turn rules of `rules`."""
    models = [turn_model(CARDS[c], rules.turn_rules()) for c in cards]
    worlds = [(m.live[USED], m.live[m.start_world]) for m in models]
    top = NUM_DICE + 3  # final skull counts 0 .. 10 (8 dice and a card's 2 skulls)
    cdf = np.ones((len(cards), NUM_DICE + 1, top))
    for i, m in enumerate(models):
        for s in range(NUM_DICE + 1):
            acc = 0.0
            for t in range(top):
                acc += float(m.island[s].get(t, 0))
                cdf[i, s, t] = acc if t < max(m.island[s]) else 1.0
    return DeckArrays(
        cards=tuple(cards),
        start_world=np.array([m.start_world for m in models], dtype=np.int64),
        first_class=np.array([[0 if o not in (Outcome.BUST, Outcome.ISLAND)
                               else 1 if o is Outcome.BUST else 2 for o in m.first_outcome]
                              for m in models], dtype=np.int64),
        live=np.array([[a, b] for a, b in worlds]),
        can_stop=np.array([[m.can_stop[USED], m.can_stop[m.start_world]] for m in models]),
        stop_points=np.array([m.stop_points for m in models]),
        magic=np.array([m.stop_magic for m in models]),
        bust_points=np.array([m.bust_points for m in models]),
        first_bust_points=np.array([m.first_bust_points for m in models], dtype=np.int64),
        keep_legal=np.array([[m.keep_legal[USED], m.keep_legal[m.start_world]] for m in models]),
        sorceress_legal=np.array([m.sorceress_legal for m in models]),
        island_cdf=cdf,
        island_cost=np.array([CARDS[c].island_cost for c in cards], dtype=np.int64),
    )


# --------------------------------------------------------------------------------------------
# Policies: the move at a batch of positions
# --------------------------------------------------------------------------------------------


class TurnPolicy(Protocol):
    """A policy: its move at positions of one card, in one world, at given states (`phase`
    and `column`: where a policy of the game reads the score; a turn's policy ignores them).
    The game's win policies are of this kind too (:mod:`solver.game.winplay`)."""

    name: str

    def moves(self, card: str, world: int, phase: int, position: IntArray,
              column: IntArray) -> tuple[IntArray, Any]:
        """(the partial index of the dice kept, or -1 to stop; uses the Sorceress)."""
        ...


class ArrayPolicy(TurnPolicy):
    """A policy given by its engine arrays (:data:`solver.engine.Policy`), per card id."""

    def __init__(self, name: str, arrays: dict[str, Policy] | None = None) -> None:
        self.name = name
        self.arrays: dict[str, Policy] = dict(arrays or {})

    def policy(self, card: str) -> Policy:
        return self.arrays[card]

    def moves(self, card: str, world: int, phase: int, position: IntArray,
              column: IntArray) -> tuple[IntArray, Any]:
        code, sor = self.policy(card)[world]
        c = code[position, 0]
        if np.any(c == NO_MOVE):
            raise PolicyMoveError(f"{card}: the policy has no move at a live position")
        return np.where(c == STOP, -1, c), sor[position, 0].astype(bool)


class FixedPolicy(ArrayPolicy):
    """A named policy of a turn (:mod:`solver.strategy.policies`: the optimum or a heuristic), the
    same at every score; its arrays are made when a card is first played."""

    def __init__(self, spec: PolicySpec, rules: Rules, name: str | None = None) -> None:
        super().__init__(str(spec) if name is None else name)
        self.spec = spec
        self.rules = rules.turn_rules()

    def policy(self, card: str) -> Policy:
        if card not in self.arrays:
            self.arrays[card] = policy_for(self.spec, CARDS[card], self.rules)
        return self.arrays[card]


# --------------------------------------------------------------------------------------------
# Turns, side by side
# --------------------------------------------------------------------------------------------


@dataclass
class TurnBatch:
    """The outcome of a batch of turns."""

    kind: IntArray
    """How each turn ended: an index into :data:`KINDS`."""
    points: IntArray
    """Points for the player (Skull Island: 0; pirate magic: its stop's points)."""
    island_skulls: IntArray
    """Skull Island: the final skull count (dice and card); 0 otherwise."""
    rolls: IntArray


def play_batch(cards: IntArray, d: DeckArrays, policy_of: Sequence[TurnPolicy], which: IntArray,
               phase: IntArray, column: IntArray, rng: np.random.Generator,
               trace: list[list[dict[str, Any]]] | None = None) -> TurnBatch:
    """Play one turn for every entry: card ``d.cards[cards[i]]``, by the policy
    ``policy_of[which[i]]`` at phase ``phase[i]`` (a small integer the policy reads) and column
    ``column[i]``. With `trace` (a list per entry), each turn's rolls are appended to its list
    as a game record writes them (:class:`solver.rules.record.Roll`: the dice showing, then the
    decision: ``stop``, or the non-skull dice kept and whether the Sorceress's skull was
    rolled); the random numbers drawn are the same with or without it."""
    g = geometry()
    m = cards.shape[0]
    counts = rng.multinomial(NUM_DICE, P_FACE, size=m)
    if trace is not None:
        for i in range(m):
            trace[i].append({"dice": _letters(counts[i])})
    pos = g.indices(counts) - g.full_offset
    world = d.start_world[cards]
    first = d.first_class[cards, pos]
    kind = np.where(first == 1, BUSTED, np.where(first == 2, ISLAND, STOPPED))
    points = np.where(first == 1, d.first_bust_points[cards], 0)
    isl = np.flatnonzero(first == 2)
    draw = rng.random(isl.shape[0])
    skulls = np.zeros(m, dtype=np.int64)
    skulls[isl] = (draw[:, None] >= d.island_cdf[cards[isl], counts[isl, 0]]).sum(axis=1)
    rolls = np.ones(m, dtype=np.int64)
    active = first == 0
    n_phases = int(phase.max()) + 1 if m else 1
    while active.any():
        keep = np.full(m, -2, dtype=np.int64)
        sor = np.zeros(m, dtype=bool)
        idx = np.flatnonzero(active)
        key = ((which[idx] * len(d.cards) + cards[idx]) * 2 + world[idx]) * n_phases + phase[idx]
        for k in np.unique(key):
            sel = idx[key == k]
            ph, rest = int(k % n_phases), int(k // n_phases)
            w, rest = rest % 2, rest // 2
            c, pol = rest % len(d.cards), rest // len(d.cards)
            keep[sel], sor[sel] = policy_of[pol].moves(d.cards[c], w, ph, pos[sel],
                                                       column[sel])
        stop = active & (keep == -1)
        _check_stops(stop, pos, world, cards, d)
        kind = np.where(stop, np.where(d.magic[cards, pos], MAGIC, STOPPED), kind)
        points = np.where(stop, d.stop_points[cards, pos], points)
        go = active & (keep >= 0)
        _check_moves(go, keep, sor, pos, world, cards, d)
        kept = g.counts[np.maximum(keep, 0)]
        world = np.where(go & sor, USED, world)
        rolled = rng.multinomial(np.where(go, NUM_DICE - kept.sum(axis=1), 0), P_FACE)
        counts = np.where(go[:, None], kept + rolled, counts)
        if trace is not None:
            for i in np.flatnonzero(stop).tolist():
                trace[i][-1]["stop"] = True
            for i in np.flatnonzero(go).tolist():
                trace[i][-1]["keep"] = _letters((0, *kept[i, 1:]))
                if sor[i]:
                    trace[i][-1]["sorceress"] = True
                trace[i].append({"dice": _letters(counts[i])})
        pos = g.indices(counts) - g.full_offset
        rolls += go
        live = d.live[cards, world, pos]
        busted = go & ~live
        kind = np.where(busted, BUSTED, kind)
        points = np.where(busted, d.bust_points[cards, np.maximum(keep, 0)], points)
        active = go & live
    return TurnBatch(kind, points, skulls, rolls)


def _letters(counts: Sequence[int]) -> str:
    """Dice counts (k m p s c d) as their letters."""
    return "".join(FACE_LETTERS[f] * int(n) for f, n in enumerate(counts))


def _check_stops(stop: Any, pos: IntArray, world: IntArray, cards: IntArray,
                 d: DeckArrays) -> None:
    """Raise :class:`PolicyMoveError` unless every stop is allowed (not in a rescue)."""
    bad = np.flatnonzero(stop & ~d.can_stop[cards, world, pos])
    if bad.shape[0]:
        g = geometry()
        j = bad[0]
        raise PolicyMoveError(f"{d.cards[cards[j]]}: the policy stops at "
                              f"{g.dice(g.full_offset + pos[j])} (not alive)")


def _check_moves(go: Any, keep: IntArray, sor: Any, pos: IntArray, world: IntArray,
                 cards: IntArray, d: DeckArrays) -> None:
    """Raise :class:`PolicyMoveError` unless every move is a legal keep of its position."""
    g = geometry()
    i = np.flatnonzero(go)
    here = g.full_counts[pos[i]]
    kept = g.counts[keep[i]]
    left = here[:, 0] - sor[i]
    legal = np.where(sor[i], d.sorceress_legal[cards[i], keep[i]] & (world[i] == UNUSED),
                     d.keep_legal[cards[i], world[i], keep[i]])
    bad = (kept[:, 0] != left) | np.any(kept[:, 1:] > here[:, 1:], axis=1) | ~legal
    if bad.any():
        j = i[np.flatnonzero(bad)[0]]
        raise PolicyMoveError(f"{d.cards[cards[j]]}: illegal move from "
                              f"{g.dice(g.full_offset + pos[j])}: keep {g.dice(keep[j])}"
                              + (" with the Sorceress" if sor[j] else ""))


# --------------------------------------------------------------------------------------------
# Turns one by one (sabords simulate)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnResult:
    """One simulated turn."""

    card: str
    kind: str
    """stop, magic, bust or island (as in :mod:`solver.strategy.analysis`)."""
    points: int
    """Points for the player (Skull Island: 0; pirate magic: its points, 8000 for the nine)."""
    rolls: int
    island_skulls: int = 0
    """Skull Island: the final skull count (dice and card)."""


def deck_cards() -> tuple[tuple[Card, ...], tuple[float, ...]]:
    """The deck's cards and their probabilities (each turn draws one, with replacement)."""
    weights = deck_weights()
    return tuple(CARDS[c] for c in weights), tuple(weights.values())


def play_turns(cards: Sequence[Card], weights: Sequence[float] | None, rules: Rules,
               policy: PolicySpec | TurnPolicy, turns: int, seed: int,
               progress: Callable[[int], None] | None = None,
               chunk: int = 10_000) -> Iterator[TurnResult]:
    """Play `turns` turns in batches of `chunk`; each draws its card from `cards` (by
    `weights`) when there are several. `progress` is called with the number of turns done
    after every batch."""
    rng = np.random.Generator(np.random.PCG64(seed))
    ids = tuple(c.id for c in cards)
    player = FixedPolicy(policy, rules) if isinstance(policy, PolicySpec) else policy
    d = deck_arrays(rules, ids)
    p = None if weights is None else np.asarray(weights, dtype=float)
    done = 0
    while done < turns:
        m = min(chunk, turns - done)
        drawn = (rng.choice(len(ids), size=m, p=p) if len(ids) > 1
                 else np.zeros(m, dtype=np.int64))
        zeros = np.zeros(m, dtype=np.int64)
        batch = play_batch(drawn, d, [player], zeros, zeros, zeros, rng)
        for i in range(m):
            yield TurnResult(ids[drawn[i]], KINDS[batch.kind[i]], int(batch.points[i]),
                             int(batch.rolls[i]), int(batch.island_skulls[i]))
        done += m
        if progress is not None:
            progress(done)


@dataclass(frozen=True)
class SimulationResult:
    """Summary of a simulation against the exact value of the same policy."""

    card: str | None
    """The card, or None for the deck."""
    policy: str
    rules: Rules
    seed: int
    turns: int
    mean: float
    sd: float
    se: float
    """Standard error of the mean: sd / sqrt(turns)."""
    bust_rate: float
    island_rate: float
    magic_rate: float
    mean_rolls: float
    exact: float
    """The exact expected points of the policy (policy evaluation on the engine)."""
    z: float
    """(mean - exact) / se."""
    exact_bust_rate: float
    """The exact probabilities and expected rolls of the policy (forward propagation)."""
    exact_island_rate: float
    exact_rolls: float
    kinds: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "card": self.card if self.card is not None else "deck",
            "policy": self.policy,
            "seed": self.seed,
            "turns": self.turns,
            "mean": self.mean,
            "sd": self.sd,
            "standard_error": self.se,
            "bust_rate": self.bust_rate,
            "island_rate": self.island_rate,
            "magic_rate": self.magic_rate,
            "mean_rolls": self.mean_rolls,
            "exact": self.exact,
            "z": self.z,
            "exact_bust_rate": self.exact_bust_rate,
            "exact_island_rate": self.exact_island_rate,
            "exact_mean_rolls": self.exact_rolls,
            "rules": self.rules.as_dict(),
            "rules_hash": self.rules.hash,
        }


@dataclass(frozen=True)
class ExactFigures:
    """What a simulation is compared with: exact figures of the same policy."""

    ev: float
    p_bust: float
    p_island: float
    rolls: float


def exact_figures(card: Card | None, rules: Rules, spec: PolicySpec) -> ExactFigures:
    """Exact expected points (policy evaluation), bust and island probabilities and expected
    rolls (forward propagation) of the policy, for one card or the deck (card None)."""
    if card is not None:
        cards: tuple[Card, ...] = (card,)
        weights: tuple[float, ...] = (1.0,)
    else:
        cards, weights = deck_cards()
    ev = p_bust = p_island = rolls = 0.0
    for c, w in zip(cards, weights, strict=True):
        dist = policy_distribution(spec, c, rules)
        ev += w * policy_value(spec, c, rules)
        p_bust += w * dist.p_bust
        p_island += w * dist.p_island
        rolls += w * dist.expected_rolls
    return ExactFigures(ev, p_bust, p_island, rolls)


def check_turns(turns: int) -> int:
    """`turns`, or a :class:`SimulationError` unless it is 1 to :data:`MAX_TURNS`."""
    if isinstance(turns, bool) or not isinstance(turns, int) or not 1 <= turns <= MAX_TURNS:
        raise SimulationError(f"the number of turns must be 1 to {MAX_TURNS}, not "
                              f"{quote(turns)}", subject="turns")
    return turns


def simulate(card: Card | None, rules: Rules, policy: PolicySpec | str = "optimal", *,
             turns: int = 10_000, seed: int = 0,
             progress: Callable[[int], None] | None = None) -> SimulationResult:
    """Play `turns` turns of one card (or the deck: `card` None) and compare with the exact
    expected points of the same policy."""
    check_turns(turns)
    spec = parse_policy(policy) if isinstance(policy, str) else policy
    card_id = None if card is None else card.id
    if card is None:
        cards, weights = deck_cards()
        draw: Sequence[float] | None = weights
    else:
        cards, draw = (card,), None
    exact = exact_figures(card, rules, spec)
    points = np.empty(turns)
    rolls = np.empty(turns)
    kinds: dict[str, int] = {"stop": 0, "magic": 0, "bust": 0, "island": 0}
    for i, r in enumerate(play_turns(cards, draw, rules, spec, turns, seed, progress)):
        points[i] = r.points
        rolls[i] = r.rolls
        kinds[r.kind] += 1
    mean = float(points.mean())
    sd = float(points.std(ddof=1)) if turns > 1 else 0.0
    se = sd / math.sqrt(turns)
    if se > 0:
        z = (mean - exact.ev) / se
    else:
        z = 0.0 if abs(mean - exact.ev) < 1e-9 else math.copysign(math.inf, mean - exact.ev)
    return SimulationResult(
        card=card_id,
        policy=str(spec),
        rules=rules,
        seed=seed,
        turns=turns,
        mean=mean,
        sd=sd,
        se=se,
        bust_rate=kinds["bust"] / turns,
        island_rate=kinds["island"] / turns,
        magic_rate=kinds["magic"] / turns,
        mean_rolls=float(rolls.mean()),
        exact=exact.ev,
        z=z,
        exact_bust_rate=exact.p_bust,
        exact_island_rate=exact.p_island,
        exact_rolls=exact.rolls,
        kinds=kinds,
    )
