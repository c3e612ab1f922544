"""Monte-Carlo play: turns with real random dice under a named policy, against the exact values.

Each turn is played die by die with the single sources of the rules: the first roll and every
reroll are classified by :func:`solver.scoring.classify_roll`, a stop scores
:func:`~solver.scoring.stop_score`, a bust :func:`~solver.scoring.bust_score` (the chest holds the
dice that were not rolled), Skull Island draws its final skull count from
:func:`~solver.scoring.island_distribution`, and every reroll the policy asks for is checked
with :func:`solver.moves.reroll_is_legal`. The policy is only consulted for its choice (the
arrays of :mod:`solver.policies`); nothing here reads the engine's values, so a simulation is an
independent check of them.

Randomness comes from :class:`random.Random` seeded with ``seed``: a run is reproducible bit for
bit (the same seed, turns, cards, policy and rules give the same turns).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from .analysis import policy_distribution
from .dice import Dice
from .engine import NO_MOVE, STOP, UNUSED, USED, Policy, geometry
from .errors import SettingsError, quote
from .moves import reroll_is_legal
from .policies import PolicySpec, parse_policy, policy_for, policy_value
from .rules import NUM_DICE, NUM_FACES, Card, Rules, deck_weights, get_card
from .scoring import Outcome, bust_score, classify_roll, island_distribution, stop_score

MAX_TURNS = 10_000_000


class SimulationError(SettingsError):
    """Bad simulation settings (a number of turns out of range)."""


class PolicyMoveError(RuntimeError):
    """The policy asked for a move the rules do not allow (a bug in a policy)."""


@dataclass(frozen=True)
class TurnResult:
    """One simulated turn."""

    card: str
    kind: str
    """stop, magic, bust or island (as in :mod:`solver.analysis`)."""
    points: int
    """Points for the player (Skull Island: 0; pirate magic: its points, 8000 for the nine)."""
    rolls: int
    island_skulls: int = 0
    """Skull Island: the final skull count (dice and card)."""


@lru_cache(maxsize=1)
def _full_index() -> dict[tuple[int, ...], int]:
    g = geometry()
    return {tuple(int(x) for x in c): j for j, c in enumerate(g.full_counts)}


def _roll(rng: random.Random, n: int) -> list[int]:
    counts = [0] * NUM_FACES
    for face in rng.choices(range(NUM_FACES), k=n):
        counts[face] += 1
    return counts


Counts = tuple[int, ...]


class Player:
    """Plays one card's turns under fixed policy arrays.

    The rules' functions are called through small memo tables (a position's outcome, its stop
    score, the bust payoff of a keep, the legality of the policy's move at a position): the
    answers are those of the single sources, computed once per distinct question.
    """

    def __init__(self, card: Card | str, rules: Rules, policy: Policy) -> None:
        self.card = get_card(card)
        self.rules = rules
        self.policy = {w: (p[0][:, 0].tolist(), p[1][:, 0].tolist()) for w, p in policy.items()}
        self._island: dict[int, tuple[list[int], list[float]]] = {}
        self._outcomes: dict[tuple[Counts, int, bool], Outcome] = {}
        self._stops: dict[Counts, tuple[str, int]] = {}
        self._busts: dict[Counts, int] = {}
        self._moves: dict[tuple[int, int], tuple[Counts, bool]] = {}

    def _outcome(self, counts: Counts, world: int, first: bool) -> Outcome:
        key = (counts, world, first)
        if key not in self._outcomes:
            self._outcomes[key] = classify_roll(self.card, Dice.of(counts), self.rules, first=first,
                                                sorceress_unused=(world == UNUSED))
        return self._outcomes[key]

    def _stop(self, counts: Counts) -> tuple[str, int]:
        if counts not in self._stops:
            score = stop_score(self.card, Dice.of(counts), self.rules)
            self._stops[counts] = ("magic" if score.magic else "stop", score.points)
        return self._stops[counts]

    def _bust(self, keep: Counts) -> int:
        if keep not in self._busts:
            self._busts[keep] = bust_score(self.card, Dice.of(keep), self.rules)
        return self._busts[keep]

    def _move(self, counts: Counts, world: int, j: int) -> tuple[Counts, bool]:
        """The policy's keep at position `counts` (index `j`), checked against the rules."""
        key = (world, j)
        if key not in self._moves:
            code, use_sorceress = self.policy[world][0][j], bool(self.policy[world][1][j])
            dice = Dice.of(counts)
            if code == NO_MOVE:
                raise PolicyMoveError(f"{self.card.id}: the policy has no move at {dice}")
            keep = tuple(int(x) for x in geometry().counts[code])
            if (keep[0] != dice.skulls - (1 if use_sorceress else 0)
                    or any(keep[f] > counts[f] for f in range(1, NUM_FACES))
                    or not reroll_is_legal(self.rules, dice.skulls, sum(keep[1:]),
                                           sorceress=use_sorceress)
                    or (use_sorceress and world != UNUSED)):
                raise PolicyMoveError(
                    f"{self.card.id}: illegal move from {dice}: keep {Dice.of(keep)}"
                    + (" with the Sorceress" if use_sorceress else ""))
            self._moves[key] = (keep, use_sorceress)
        return self._moves[key]

    def play(self, rng: random.Random) -> TurnResult:
        card = self.card
        world = UNUSED if card.sorceress else USED
        counts = tuple(_roll(rng, NUM_DICE))
        rolls = 1
        outcome = self._outcome(counts, world, True)
        if outcome is Outcome.ISLAND:
            return TurnResult(card.id, "island", 0, rolls, self._island_skulls(rng, counts[0]))
        if outcome is Outcome.BUST:
            return TurnResult(card.id, "bust", bust_score(card, None, self.rules), rolls)
        index = _full_index()
        while True:
            j = index[counts]
            if self.policy[world][0][j] == STOP:
                if outcome is not Outcome.ALIVE:
                    raise PolicyMoveError(
                        f"{card.id}: the policy stops at {Dice.of(counts)} (not alive)")
                kind, points = self._stop(counts)
                return TurnResult(card.id, kind, points, rolls)
            keep, use_sorceress = self._move(counts, world, j)
            if use_sorceress:
                world = USED
            rolled = _roll(rng, NUM_DICE - sum(keep))
            counts = tuple(a + b for a, b in zip(keep, rolled, strict=True))
            rolls += 1
            outcome = self._outcome(counts, world, False)
            if outcome is Outcome.BUST:
                return TurnResult(card.id, "bust", self._bust(keep), rolls)

    def _island_skulls(self, rng: random.Random, skull_dice: int) -> int:
        if skull_dice not in self._island:
            dist = island_distribution(self.card, skull_dice)
            finals = sorted(dist)
            self._island[skull_dice] = (finals, [float(dist[f]) for f in finals])
        finals, weights = self._island[skull_dice]
        return rng.choices(finals, weights=weights)[0]


def deck_cards() -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The deck's cards and their probabilities (each turn draws one, with replacement)."""
    weights = deck_weights()
    return tuple(weights), tuple(weights.values())


def play_turns(cards: Sequence[str], weights: Sequence[float] | None, rules: Rules,
               spec: PolicySpec, turns: int, seed: int,
               progress: Callable[[int], None] | None = None,
               chunk: int = 1000) -> Iterator[TurnResult]:
    """Play `turns` turns; each draws its card from `cards` (by `weights`) when there are
    several. `progress` is called with the number of turns done after every `chunk`."""
    rng = random.Random(seed)
    players = {c: Player(c, rules, policy_for(spec, c, rules)) for c in cards}
    only = players[cards[0]] if len(cards) == 1 else None
    for i in range(turns):
        if only is not None:
            player = only
        else:
            player = players[rng.choices(cards, weights=weights)[0]]
        yield player.play(rng)
        if progress is not None and ((i + 1) % chunk == 0 or i + 1 == turns):
            progress(i + 1)


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


def exact_figures(card: str | None, rules: Rules, spec: PolicySpec) -> ExactFigures:
    """Exact expected points (policy evaluation), bust and island probabilities and expected
    rolls (forward propagation) of the policy, for one card or the deck (card None)."""
    if card is not None:
        cards: tuple[str, ...] = (card,)
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


def simulate(card: Card | str | None, rules: Rules, policy: PolicySpec | str = "optimal", *,
             turns: int = 10_000, seed: int = 0,
             progress: Callable[[int], None] | None = None) -> SimulationResult:
    """Play `turns` turns of one card (or the deck: `card` None) and compare with the exact
    expected points of the same policy."""
    check_turns(turns)
    spec = parse_policy(policy) if isinstance(policy, str) else policy
    card_id = None if card is None else get_card(card).id
    if card_id is None:
        cards, weights = deck_cards()
        draw: Sequence[float] | None = weights
    else:
        cards, draw = (card_id,), None
    exact = exact_figures(card_id, rules, spec)
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
