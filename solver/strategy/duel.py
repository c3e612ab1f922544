"""Whole two-player games with real random dice between named policies (`sabords game`).

A game follows RULES.md, "End of the game", move by move: each turn draws a card from the deck
(independently, with the deck's frequencies, as the solver assumes), the turn is played by the
one turn simulator (:func:`solver.strategy.simulate.play_batch`: roll by roll on the card's turn
model, every move checked), and the totals move as the game model says: a turn's points (a total
never below 0, :func:`solver.rules.floor_total`), Skull Island's deduction for the opponent, pirate
magic wins at once; reaching the target gives the other player one final turn, a tie then worth
the rules' tie share (:attr:`solver.rules.Rules.tie_share`); if Skull Island brings the leader
below the target, sudden death: the next player to end a turn at or above the target wins.

Policies: ``win`` (the move that maximises the probability of winning at the current totals, the
game tables' policy of every state, :mod:`solver.game.policies`), ``points`` (the expected-points
optimum, the same at every score) and the heuristics of :mod:`solver.strategy.policies`
(``first-roll``, ``two-skulls``, ``greedy``, ``threshold[=T]``).

All the games are played side by side, turn after turn (numpy arrays over the games); the dice
come from one :class:`numpy.random.Generator` (PCG64) seeded with ``seed``: the same seed, games,
policies and rules give the same games on every machine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine import NO_MOVE, STOP, IntArray
from ..engine.stats import INTERVAL_METHOD, wilson_interval
from ..errors import SabordsError, SettingsError, quote
from ..game import FINAL, NORMAL, SUDDEN, UNIT, GameSolution, deck
from ..game.policies import actual_keep, orbit_of_positions
from ..rules.aims import POINTS, WIN
from ..rules.rulebook import Rules, floor_total
from .policies import OPTIMAL, ThresholdError, parse_policy
from .simulate import (
    ISLAND,
    MAGIC,
    FixedPolicy,
    PolicyMoveError,
    TurnPolicy,
    deck_arrays,
    play_batch,
)

MAX_GAMES = 1_000_000
PHASES = (NORMAL, FINAL, SUDDEN)
PHASE_CODE = {phase: code for code, phase in enumerate(PHASES)}
"""The phase of each game, as the small integer the turns' policies read."""


class GameSettingsError(SettingsError):
    """Bad settings of whole games: unknown policy names, a number of games out of range."""


# --------------------------------------------------------------------------------------------
# Policies of whole games (the turns themselves: solver.strategy.simulate)
# --------------------------------------------------------------------------------------------


class WinPolicy(TurnPolicy):
    """Maximise the probability of winning: the game table's policy at every state
    (:mod:`solver.game.policies`)."""

    name = WIN

    def __init__(self, sol: GameSolution) -> None:
        self.sol = sol
        self.rules = sol.rules.turn_rules()

    def moves(self, card: str, world: int, phase: int, position: IntArray,
              column: IntArray) -> tuple[IntArray, Any]:
        codes = self.sol.policies[PHASES[phase]].codes[(card, world)]
        orbit = orbit_of_positions(card, self.rules, self.sol.n_dice)[position]
        code = codes[orbit, column].astype(np.int64)
        if np.any(code == NO_MOVE):
            raise PolicyMoveError(f"{card}: the win policy has no move at a live position")
        keep, sor = actual_keep(self.rules, card, self.sol.n_dice, position, code)
        return np.where(code == STOP, -1, keep), sor


def policy_name(text: str) -> str:
    """The canonical name of a policy of whole games, read in any case (``WIN``, ``Points``,
    ``Threshold=600``); :class:`GameSettingsError` for an unknown one, the policy's own error
    for a threshold out of range."""
    name = text.strip().lower()
    if name in (WIN, POINTS):
        return name
    try:
        return str(parse_policy(name))
    except ThresholdError:
        raise
    except SabordsError:
        raise GameSettingsError(
            f"unknown policy {quote(text)}: expected win, points, first-roll, two-skulls, "
            f"greedy or threshold[=T]", subject="policy") from None


def check_policy_name(name: str) -> None:
    """Raise :class:`GameSettingsError` unless `name` is a policy of whole games
    (:func:`policy_name`)."""
    policy_name(name)


def check_win_tables(sol: GameSolution) -> None:
    """Decode and check the win policy of every phase now (a table read from disk decodes a
    phase when first asked, :class:`solver.tables.game.StoredPolicies`): a broken table is refused
    before a game is played."""
    for phase in sol.policies:
        sol.policies[phase]


def make_policy(name: str, rules: Rules, sol: GameSolution | None) -> TurnPolicy:
    name = policy_name(name)
    if name == WIN:
        if sol is None:
            raise ValueError("the win policy needs the game tables")
        return WinPolicy(sol)
    return FixedPolicy(parse_policy(OPTIMAL if name == POINTS else name), rules, name=name)


# --------------------------------------------------------------------------------------------
# Games, side by side
# --------------------------------------------------------------------------------------------


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
        """The 95 % Wilson score interval of the win rate
        (:func:`solver.engine.stats.wilson_interval`: inside [0, 1], never of zero width)."""
        return wilson_interval(self.score, self.games)

    def as_dict(self) -> dict[str, Any]:
        """The row as JSON data: a seat that played no game has no rate and no interval
        (``null``: JSON has no NaN)."""
        if not self.games:
            return {"policy": self.policy, "seat": self.seat, "games": 0, "score": 0.0,
                    "win_rate": None, "ci95": None}
        lo, hi = self.interval
        return {"policy": self.policy, "seat": self.seat, "games": self.games,
                "score": self.score, "win_rate": self.rate, "ci95": [lo, hi]}


def overall(seats: Sequence[SeatResult], policy: str) -> SeatResult:
    """A policy's games over every seat (seat 0: both)."""
    rows = [s for s in seats if s.policy == policy]
    return SeatResult(policy, 0, sum(r.games for r in rows), sum(r.score for r in rows))


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
        return overall(self.seats, policy)

    def as_dict(self) -> dict[str, Any]:
        row = SeatResult.as_dict
        return {
            "policies": list(self.policies),
            "games": self.games,
            "seed": self.seed,
            "target": self.rules.target,
            "rules_hash": self.rules.hash,
            "mean_turns": self.mean_turns,
            "ci95_method": INTERVAL_METHOD,
            "overall": [row(self.overall(p)) for p in dict.fromkeys(self.policies)],
            "by_seat": [row(r) for r in self.seats],
        }


def check_games(games: int) -> None:
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise GameSettingsError(f"the number of games must be 1 to {MAX_GAMES}, not "
                                f"{quote(games)}", subject="games")


def play_games(names: tuple[str, str], rules: Rules, *, games: int, seed: int,
               sol: GameSolution | None = None,
               progress: Callable[[int], None] | None = None) -> tuple[Any, IntArray]:
    """Play `games` games side by side; game g has ``names[g % 2]`` in seat 1 (moving first).
    Returns (seat 1's score per game: 1, 1/2 or 0; turns per game)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    built: dict[str, TurnPolicy] = {}
    for name in names:
        if name not in built:
            built[name] = make_policy(name, rules, sol)
    order = list(built)
    policy_of = [built[n] for n in order]
    seat_policy = np.array([[order.index(names[g % 2]), order.index(names[1 - g % 2])]
                            for g in range(games)], dtype=np.int64)
    weights = deck()
    p_card = np.array(list(weights.values()))
    d = deck_arrays(rules, tuple(weights))
    n = rules.target // UNIT
    max_deficit = (sol.k_max + 1) if sol is not None else 0
    totals = np.zeros((games, 2), dtype=np.int64)
    mover = np.zeros(games, dtype=np.int64)
    phase = np.full(games, PHASE_CODE[NORMAL], dtype=np.int64)
    done = np.zeros(games, dtype=bool)
    score = np.zeros(games)
    turns = np.zeros(games, dtype=np.int64)
    finished = 0
    while not done.all():
        idx = np.flatnonzero(~done)
        mv = mover[idx]
        me, opp = totals[idx, mv], totals[idx, 1 - mv]
        ph = phase[idx]
        column = np.where(ph == PHASE_CODE[FINAL],
                          np.minimum(opp - me, max(max_deficit, 1)) - 1, me * n + opp)
        cards = rng.choice(len(d.cards), size=idx.shape[0], p=p_card)
        batch = play_batch(cards, d, policy_of, seat_policy[idx, mv], ph, column, rng)
        turns[idx] += 1
        magic = batch.kind == MAGIC
        island = batch.kind == ISLAND
        cost = d.island_cost[cards] // UNIT
        new_opp = np.where(island, floor_total(opp - cost * batch.island_skulls), opp)
        new_me = np.where(island, me, floor_total(me + batch.points // UNIT))
        totals[idx, mv], totals[idx, 1 - mv] = new_me, new_opp
        # who wins now: pirate magic; the end of a final turn with the leader at the target
        # (a tie worth the rules' tie share to the mover); the first to reach the target in
        # sudden death
        final = ph == PHASE_CODE[FINAL]
        leader_holds = final & ~magic & (new_opp >= n)
        mover_wins = magic | (leader_holds & (new_me > new_opp)) | (
            (ph == PHASE_CODE[SUDDEN]) & ~magic & (new_me >= n))
        win_now = mover_wins | leader_holds
        mover_score = np.where(mover_wins, 1.0,
                               np.where(leader_holds & (new_me == new_opp), rules.tie_share, 0.0))
        first_wins = np.where(mv == 0, mover_score, 1.0 - mover_score)
        ended = idx[win_now]
        score[ended] = first_wins[win_now]
        done[ended] = True
        # phase changes of the games that go on
        go_on = ~win_now
        to_sudden = go_on & final  # the final turn's island brought the leader below
        to_final = go_on & (ph == PHASE_CODE[NORMAL]) & (new_me >= n)
        new_phase = np.where(to_sudden, PHASE_CODE[SUDDEN],
                             np.where(to_final, PHASE_CODE[FINAL], ph))
        phase[idx] = new_phase
        mover[idx[go_on]] = 1 - mv[go_on]
        if progress is not None and ended.shape[0]:
            finished += int(ended.shape[0])
            progress(finished)
    return score, turns


def duel(names: tuple[str, str], rules: Rules, *, games: int, seed: int,
         sol: GameSolution | None = None,
         progress: Callable[[int], None] | None = None) -> DuelResult:
    """Play `games` games; the two policies swap seats every game (game 0: names[0] first)."""
    check_games(games)
    names = (policy_name(names[0]), policy_name(names[1]))
    score, turns = play_games(names, rules, games=games, seed=seed, sol=sol, progress=progress)
    seat_scores: dict[tuple[str, int], float] = {}
    seat_games: dict[tuple[str, int], int] = {}
    for g in range(games):
        first, second = (names[0], names[1]) if g % 2 == 0 else (names[1], names[0])
        seat_scores[(first, 1)] = seat_scores.get((first, 1), 0.0) + float(score[g])
        seat_scores[(second, 2)] = seat_scores.get((second, 2), 0.0) + 1.0 - float(score[g])
        seat_games[(first, 1)] = seat_games.get((first, 1), 0) + 1
        seat_games[(second, 2)] = seat_games.get((second, 2), 0) + 1
    seats = tuple(SeatResult(name, seat, seat_games.get((name, seat), 0),
                             seat_scores.get((name, seat), 0.0))
                  for name in dict.fromkeys(names) for seat in (1, 2))
    return DuelResult(policies=names, rules=rules, games=games, seed=seed, seats=seats,
                      mean_turns=float(turns.mean()))
