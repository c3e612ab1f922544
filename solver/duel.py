"""Whole two-player games with real random dice between named policies (`sabords game`).

A game follows RULES.md, "End of the game", move by move: each turn draws a card from the deck
(independently, with the deck's frequencies, as the solver assumes), the turn is played die by
die by :class:`solver.simulate.Player` (the single sources of the rules; the policy is only
asked for its choice), and the totals move as the game model says: a turn's points (never below
0), Skull Island's deduction for the opponent, pirate magic wins at once; reaching the target
gives the other player one final turn; if Skull Island then brings the leader below the target,
sudden death: the next player to end a turn at or above the target wins.

Policies: ``win`` (the turn that maximises the probability of winning the game at the current
totals, from the game tables: :func:`solver.game.state_policies`), ``points`` (the
expected-points optimum, the same at every score) and the heuristics of :mod:`solver.policies`
(``first-roll``, ``two-skulls``, ``greedy``, ``threshold[=T]``).

Randomness: :class:`random.Random` seeded with ``seed``; the same seed, games, policies and
rules give the same games.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .engine import Policy
from .game import (
    UNIT,
    FinalTurn,
    GameSolution,
    TurnUtility,
    deck,
    stack_utilities,
    state_policies,
    state_utility,
)
from .policies import OPTIMAL, parse_policy, policy_for
from .rules import Rules, RulesError, get_card
from .simulate import Player

WIN, POINTS = "win", "points"
MAX_GAMES = 1_000_000
MAX_PLAYERS = 2000
"""Players (a card at a state) kept ready by the win policy; rebuilt when needed again."""
NORMAL, FINAL, SUDDEN = "normal", "final", "sudden"


class GameSettingsError(RulesError):
    """Bad `sabords game` settings: unknown policy names, a number of games out of range."""


class TurnPolicy:
    """A named policy: the :class:`Player` of a card at a state of the game."""

    name: str

    def player(self, card: str, phase: str, me: int, opp: int) -> Player:
        raise NotImplementedError


class FixedPolicy(TurnPolicy):
    """A policy that ignores the score (expected points, or a heuristic)."""

    def __init__(self, name: str, rules: Rules) -> None:
        self.name = name
        self.spec = parse_policy(OPTIMAL if name == POINTS else name)
        self.rules = rules
        self._players: dict[str, Player] = {}

    def player(self, card: str, phase: str, me: int, opp: int) -> Player:
        if card not in self._players:
            self._players[card] = Player(card, self.rules.turn_rules(),
                                         policy_for(self.spec, card, self.rules.turn_rules()))
        return self._players[card]


class WinPolicy(TurnPolicy):
    """Maximise the probability of winning: the optimal turn of every state, solved per card
    and phase for all states at once when first needed."""

    name = WIN

    def __init__(self, sol: GameSolution, progress: Callable[[str], None] | None = None) -> None:
        self.sol = sol
        self.progress = progress
        self._policies: dict[tuple[str, str], tuple[dict[int, Any], dict[int, Any]]] = {}
        self._players: dict[tuple[str, str, int], Player] = {}
        self.max_deficit = sol.k_max + 1

    def _utility(self, phase: str) -> TurnUtility:
        n = self.sol.n
        if phase == FINAL:  # the decisions depend on the deficit only (island: no decision)
            obj = FinalTurn(self.max_deficit, self.sol.rules.ties)
            k_min, k_max = self.sol.k_min, self.sol.k_max
            ks = np.arange(k_min, k_max + 1, dtype=np.int64) * UNIT
            return TurnUtility(k_min, obj.of_points(ks), np.zeros((17, self.max_deficit)))
        return stack_utilities([state_utility(self.sol, a, b, sudden=(phase == SUDDEN))
                                for a in range(n) for b in range(n)])

    def _column(self, phase: str, me: int, opp: int) -> int:
        if phase == FINAL:
            return min(opp - me, self.max_deficit) - 1
        return me * self.sol.n + opp

    def player(self, card: str, phase: str, me: int, opp: int) -> Player:
        col = self._column(phase, me, opp)
        key = (card, phase, col)
        if key not in self._players:
            if (card, phase) not in self._policies:
                if self.progress is not None:
                    self.progress(f"solving the {phase} turns of {card}")
                sp = state_policies(card, self.sol.rules, self._utility(phase),
                                    n_dice=self.sol.n_dice)
                self._policies[(card, phase)] = (
                    {w: p[0].astype(np.int16) for w, p in sp.policy.items()},
                    {w: p[1] for w, p in sp.policy.items()},
                )
            codes, sors = self._policies[(card, phase)]
            policy: Policy = {w: (codes[w][:, col:col + 1].astype(np.int64),
                                  sors[w][:, col:col + 1]) for w in codes}
            if len(self._players) >= MAX_PLAYERS:  # bounded memory: a Player holds lists
                self._players.clear()
            self._players[key] = Player(card, self.sol.rules.turn_rules(), policy)
        return self._players[key]


def check_policy_name(name: str) -> None:
    """Raise :class:`GameSettingsError` unless `name` is a policy of `sabords game`."""
    if name in (WIN, POINTS):
        return
    try:
        parse_policy(name)
    except RulesError:
        raise GameSettingsError(
            f"unknown policy {name!r}: expected win, points, first-roll, two-skulls, greedy "
            f"or threshold[=T]") from None


def make_policy(name: str, rules: Rules, sol: GameSolution | None) -> TurnPolicy:
    check_policy_name(name)
    if name == WIN:
        if sol is None:
            raise ValueError("the win policy needs the game tables")
        return WinPolicy(sol)
    return FixedPolicy(name, rules)


def play_game(policies: tuple[TurnPolicy, TurnPolicy], rules: Rules,
              rng: random.Random) -> tuple[float, int]:
    """One game, seat 0 moving first: (seat 0's score: 1 win, 1/2 shared tie, 0; turns)."""
    cards, weights = list(deck()), list(deck().values())
    n = rules.target // UNIT
    totals = [0, 0]
    mover, phase, turns = 0, NORMAL, 0
    while True:
        other = 1 - mover
        card = rng.choices(cards, weights=weights)[0]
        turn = policies[mover].player(card, phase, totals[mover], totals[other]).play(rng)
        turns += 1
        if turn.kind == "magic":
            return (1.0 if mover == 0 else 0.0), turns
        if turn.kind == "island":
            cost = get_card(card).island_cost // UNIT
            totals[other] = max(0, totals[other] - cost * turn.island_skulls)
        else:
            totals[mover] = max(0, totals[mover] + turn.points // UNIT)
        if phase == FINAL:  # the trailing player's last turn is over
            if totals[other] >= n:  # the leader is still at the target: highest total wins
                if totals[mover] > totals[other]:
                    return (1.0 if mover == 0 else 0.0), turns
                if totals[mover] == totals[other] and rules.ties == "shared":
                    return 0.5, turns
                return (1.0 if other == 0 else 0.0), turns
            phase = SUDDEN  # nobody at the target: the next to reach it wins
        elif totals[mover] >= n:
            if phase == SUDDEN:
                return (1.0 if mover == 0 else 0.0), turns
            phase = FINAL
        mover = other


@dataclass(frozen=True)
class SeatResult:
    policy: str
    seat: int
    """1: moves first; 2: second."""
    games: int
    score: float
    """Wins plus half the shared ties."""

    @property
    def rate(self) -> float:
        return self.score / self.games if self.games else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        """95 % normal-approximation confidence interval of the win rate."""
        p, n = self.rate, self.games
        half = 1.959964 * math.sqrt(max(p * (1 - p), 0.0) / n) if n else float("nan")
        return p - half, p + half


@dataclass(frozen=True)
class DuelResult:
    policies: tuple[str, str]
    rules: Rules
    games: int
    seed: int
    seats: tuple[SeatResult, ...]
    """Per policy and seat."""
    mean_turns: float

    def overall(self, policy: str) -> SeatResult:
        rows = [s for s in self.seats if s.policy == policy]
        return SeatResult(policy, 0, sum(r.games for r in rows), sum(r.score for r in rows))

    def as_dict(self) -> dict[str, Any]:
        def row(r: SeatResult) -> dict[str, Any]:
            lo, hi = r.interval
            return {"policy": r.policy, "seat": r.seat, "games": r.games, "score": r.score,
                    "win_rate": r.rate, "ci95": [lo, hi]}

        return {
            "policies": list(self.policies),
            "games": self.games,
            "seed": self.seed,
            "target": self.rules.target,
            "rules_hash": self.rules.hash,
            "mean_turns": self.mean_turns,
            "overall": [row(self.overall(p)) for p in dict.fromkeys(self.policies)],
            "by_seat": [row(r) for r in self.seats],
        }


def duel(names: tuple[str, str], rules: Rules, *, games: int, seed: int,
         sol: GameSolution | None = None,
         progress: Callable[[int], None] | None = None) -> DuelResult:
    """Play `games` games; the two policies swap seats every game (game 0: names[0] first)."""
    if isinstance(games, bool) or not 1 <= games <= MAX_GAMES:
        raise GameSettingsError(f"--games takes 1 to {MAX_GAMES}, not {games!r}")
    built: dict[str, TurnPolicy] = {}
    for name in names:
        if name not in built:
            built[name] = make_policy(name, rules, sol)
    rng = random.Random(seed)
    score = {(name, seat): 0.0 for name in names for seat in (1, 2)}
    count = {(name, seat): 0 for name in names for seat in (1, 2)}
    total_turns = 0
    for g in range(games):
        first, second = (names[0], names[1]) if g % 2 == 0 else (names[1], names[0])
        s, turns = play_game((built[first], built[second]), rules, rng)
        total_turns += turns
        score[(first, 1)] += s
        score[(second, 2)] += 1.0 - s
        count[(first, 1)] += 1
        count[(second, 2)] += 1
        if progress is not None:
            progress(g + 1)
    seats = tuple(SeatResult(name, seat, count[(name, seat)], score[(name, seat)])
                  for name in dict.fromkeys(names) for seat in (1, 2))
    return DuelResult(policies=names, rules=rules, games=games, seed=seed, seats=seats,
                      mean_turns=total_turns / games)
