"""Whole games of 2 to 5 players with real random dice between named policies (`sabords game`).

A game follows RULES.md, "End of the game", move by move, written here from the rules and not
from the solver's model (:mod:`solver.game.seats`), so that games played under the solved
policies test that model: each turn draws a card (independently, with the deck's frequencies,
as the solver assumes), the one turn simulator plays it
(:func:`solver.strategy.simulate.play_batch`: roll by roll on the card's turn model, every move
checked), and the totals move: a turn's points (never below 0,
:func:`solver.rules.floor_total`), Skull Island's deduction for every other player, pirate magic
wins at once; the first to end a turn at or above the target triggers the final round, every
other player in seat order plays one final turn, then the highest total wins (a tie shared, or
under ``ties=trigger`` won by the first to have reached the target); if nobody is at the target
then, sudden death from the trigger on: the next player to end a turn at or above it wins.

Policies: ``win`` (the move that maximises the player's probability of winning, from the game
game of the players, :meth:`solver.game.table.Game.win_play`: the turn solved from its values at
each state met), ``points`` (the
expected-points optimum, the same at every score), ``need`` (the probability of passing the
leader this turn: the points missing plus 100; the leader plays for points) and the heuristics
of :mod:`solver.strategy.policies` (``first-roll``, ``two-skulls``, ``greedy``,
``threshold[=T]``). The policies sit in the given order at game 0 and move one seat on every
game, so each plays every seat as often.

All the games are played side by side, turn after turn (numpy arrays over the games); the dice
come from one :class:`numpy.random.Generator` (PCG64) seeded with ``seed``: the same seed, games,
policies and rules give the same games on every machine. Each policy's win rate comes with its
95 % Wilson interval, by seat and over every seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import STOP, AtLeast, IntArray, solve_turn
from ..engine.stats import INTERVAL_METHOD, wilson_interval
from ..errors import SabordsError, SettingsError, quote
from ..game import UNIT, deck
from ..game.winplay import FINAL_KIND, NORMAL_KIND, SUDDEN_KIND
from ..rules.aims import NEED, POINTS, WIN
from ..rules.record import GameRecord, Player, Roll, Turn
from ..rules.rulebook import CARDS, Rules, floor_total
from .policies import OPTIMAL, ThresholdError, parse_policy
from .simulate import ISLAND, MAGIC, FixedPolicy, TurnPolicy, deck_arrays, play_batch

if TYPE_CHECKING:
    from ..game.winplay import WinPlay

MAX_GAMES = 1_000_000


class GameSettingsError(SettingsError):
    """Bad settings of whole games: unknown policy names, a number of games out of range."""


# --------------------------------------------------------------------------------------------
# Policies of whole games (the turns themselves: solver.strategy.simulate)
# --------------------------------------------------------------------------------------------


def policy_name(text: str) -> str:
    """The canonical name of a policy of whole games, read in any case (``WIN``, ``Points``,
    ``Threshold=600``); :class:`GameSettingsError` for an unknown one, the policy's own error
    for a threshold out of range."""
    name = text.strip().lower()
    if name in (WIN, POINTS, NEED):
        return name
    try:
        return str(parse_policy(name))
    except ThresholdError:
        raise
    except SabordsError:
        raise GameSettingsError(
            f"unknown policy {quote(text)}: expected win, points, need, first-roll, "
            f"two-skulls, greedy or threshold[=T]", subject="policy") from None


def check_policy_name(name: str) -> None:
    """Raise :class:`GameSettingsError` unless `name` is a policy of whole games
    (:func:`policy_name`)."""
    policy_name(name)


class NeedPolicy:
    """Play for the points missing to pass the leader: the turn maximising the probability of
    scoring at least them (``column`` is that need in units; 0: the player leads and plays for
    expected points)."""

    name: str = NEED

    def __init__(self, rules: Rules) -> None:
        self.rules = rules.turn_rules()
        self.points = FixedPolicy(parse_policy(OPTIMAL), rules, name=POINTS)
        self.solved: dict[tuple[str, int], Any] = {}

    def moves(self, card: str, world: int, phase: int, position: IntArray,
              column: IntArray) -> tuple[IntArray, Any]:
        keep = np.empty(position.shape[0], dtype=np.int64)
        sor = np.zeros(position.shape[0], dtype=bool)
        for need in np.unique(column).tolist():
            sel = column == need
            if need <= 0:
                keep[sel], sor[sel] = self.points.moves(card, world, phase, position[sel],
                                                        column[sel])
                continue
            if (card, need) not in self.solved:
                sol = solve_turn(CARDS[card], self.rules, AtLeast(need * UNIT))
                self.solved[(card, need)] = sol.policy()
            code, witch = self.solved[(card, need)][world]
            c = code[position[sel], 0]
            keep[sel] = np.where(c == STOP, -1, c)
            sor[sel] = witch[position[sel], 0].astype(bool)
        return keep, sor


def check_players_policies(names: Sequence[str], players: int) -> None:
    """One policy name per seat, each known."""
    if len(names) != players or not all(names):
        raise GameSettingsError(
            f"one policy name per seat: {players} names separated by commas, not "
            f"{quote(','.join(names))}", subject="policy", kind="policy_count",
            values={"players": players, "given": len(names)})
    for name in names:
        if name != NEED:
            check_policy_name(name)


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
class GamesResult:
    """The games: each policy's share of the wins, by seat and overall."""

    policies: tuple[str, ...]
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
        return {"policies": list(self.policies), "players": len(self.policies),
                "games": self.games, "seed": self.seed, "target": self.rules.target,
                "rules_hash": self.rules.hash, "mean_turns": self.mean_turns,
                "ci95_method": INTERVAL_METHOD,
                "overall": [row(self.overall(p)) for p in dict.fromkeys(self.policies)],
                "by_seat": [row(r) for r in self.seats]}


def check_games(games: int) -> None:
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise GameSettingsError(f"the number of games must be 1 to {MAX_GAMES}, not "
                                f"{quote(games)}", subject="games")


def play_n_games(names: Sequence[str], rules: Rules, *, games: int, seed: int,
                 win: WinPlay | None = None, progress: Callable[[int], None] | None = None,
                 start: Sequence[int] | None = None,
                 records: list[GameRecord] | None = None) -> tuple[np.ndarray, IntArray]:
    """Play `games` games of ``len(names)`` players side by side; game g has ``names[(i - g)
    % N]`` in seat i (seat 0 moves first), every game from the totals `start` (points, in
    seat order; default every total 0; all below the target: normal play). Returns (each
    seat's score per game, (games, N): 1, a share of a tie, or 0; turns per game). With
    `records`, every game's record is appended to it, in game order
    (:class:`solver.rules.record.GameRecord`: each turn's card, rolls and decisions); the
    games are the same with or without."""
    players = len(names)
    if start is not None and (len(start) != players or any(
            t < 0 or t % UNIT or t >= rules.target for t in start)):
        raise ValueError(f"a start is {players} totals of normal play, not {list(start)}")
    rng = np.random.Generator(np.random.PCG64(seed))
    built: dict[str, TurnPolicy] = {}
    for name in names:
        if name in built:
            continue
        if name == WIN:
            if win is None:
                raise ValueError("the win policy needs the game table's (GameTable.win_play)")
            if win.players != players:
                raise ValueError(f"the win policy of {win.players} players, not {players}")
            built[name] = win
        elif name == NEED:
            built[name] = NeedPolicy(rules)
        else:
            built[name] = FixedPolicy(parse_policy(OPTIMAL if name == POINTS else name), rules,
                                      name=name)
    order = list(built)
    policy_of = [built[n] for n in order]
    seat_policy = np.array([[order.index(names[(i - g) % players]) for i in range(players)]
                            for g in range(games)], dtype=np.int64)
    weights = deck()
    p_card = np.array(list(weights.values()))
    d = deck_arrays(rules, tuple(weights))
    n = rules.target // UNIT
    totals = np.zeros((games, players), dtype=np.int64)
    if start is not None:
        totals[:] = np.asarray(start, dtype=np.int64) // UNIT
    mover = np.zeros(games, dtype=np.int64)
    kind = np.full(games, NORMAL_KIND, dtype=np.int64)
    left = np.zeros(games, dtype=np.int64)  # final turns left, the mover's included
    trigger = np.full(games, -1, dtype=np.int64)
    done = np.zeros(games, dtype=bool)
    score = np.zeros((games, players))
    turns = np.zeros(games, dtype=np.int64)
    finished = 0
    seats = np.arange(players)
    played: list[list[Turn]] = [[] for _ in range(games)]
    while not done.all():
        idx = np.flatnonzero(~done)
        mv = mover[idx]
        frame = np.take_along_axis(totals[idx], (mv[:, None] + seats[None, :]) % players, 1)
        cards = rng.choice(len(d.cards), size=idx.shape[0], p=p_card)
        which = seat_policy[idx, mv]
        phase = np.zeros(idx.shape[0], dtype=np.int64)
        column = np.zeros(idx.shape[0], dtype=np.int64)
        if win is not None:
            sel = np.flatnonzero(which == order.index(WIN))
            phase[sel], column[sel] = win.locate(frame[sel], kind[idx][sel], left[idx][sel])
            win.prepare(phase[sel], column[sel], [d.cards[c] for c in cards[sel].tolist()])
        if NEED in built:
            uses = which == order.index(NEED)
            gap = frame[:, 1:].max(axis=1) + 1 - frame[:, 0]
            column[uses] = np.where(kind[idx][uses] == NORMAL_KIND,
                                    np.maximum(gap[uses], 0), np.maximum(gap[uses], 1))
        trace: list[list[dict[str, Any]]] | None = (
            None if records is None else [[] for _ in range(idx.shape[0])])
        batch = play_batch(cards, d, policy_of, which, phase, column, rng, trace)
        turns[idx] += 1
        magic = batch.kind == MAGIC
        island = batch.kind == ISLAND
        cost = d.island_cost[cards] // UNIT
        deduction = np.where(island, cost * batch.island_skulls, 0)
        new = totals[idx].copy()
        rows = np.arange(idx.shape[0])
        others = seats[None, :] != mv[:, None]
        new = np.where(others, floor_total(new - deduction[:, None]), new)
        new[rows, mv] = np.where(island, new[rows, mv],
                                 floor_total(new[rows, mv] + batch.points // UNIT))
        totals[idx] = new
        if trace is not None:
            for r, g in enumerate(idx.tolist()):
                played[g].append(_turn(int(mv[r]), d.cards[cards[r]], trace[r],
                                       int(batch.points[r]), int(deduction[r]) * UNIT,
                                       bool(island[r]), bool(magic[r])))
        outcome = np.zeros((idx.shape[0], players))
        ended = magic.copy()
        outcome[rows[magic], mv[magic]] = 1.0
        k = kind[idx]
        # sudden death: the first to end a turn at or above the target wins
        reach = ~ended & (k == SUDDEN_KIND) & (new[rows, mv] >= n)
        outcome[rows[reach], mv[reach]] = 1.0
        ended |= reach
        # the last final turn: the result, or sudden death from the trigger on
        last = ~ended & (k == FINAL_KIND) & (left[idx] == 1)
        top = new.max(axis=1)
        decided = last & (top >= n)
        for r in np.flatnonzero(decided).tolist():
            at_top = [s for s in range(players) if new[r, s] == top[r]]
            if len(at_top) > 1 and rules.ties == "trigger":
                t = int(trigger[idx[r]])
                at_top = [min(at_top, key=lambda s: (s - t) % players)]
            for s in at_top:
                outcome[r, s] = 1.0 / len(at_top)
        ended |= decided
        g_end = idx[ended]
        score[g_end] = outcome[ended]
        done[g_end] = True
        # the games that go on
        go = ~ended
        to_sudden = go & last
        kind[idx[to_sudden]] = SUDDEN_KIND
        more = go & (k == FINAL_KIND) & (left[idx] > 1)
        left[idx[more]] -= 1
        triggers = go & (k == NORMAL_KIND) & (new[rows, mv] >= n)
        kind[idx[triggers]] = FINAL_KIND
        left[idx[triggers]] = players - 1
        trigger[idx[triggers]] = mv[triggers]
        mover[idx[go]] = (mv[go] + 1) % players
        if progress is not None and g_end.shape[0]:
            finished += int(g_end.shape[0])
            progress(finished)
    if records is not None:
        source = f"sabords game --seed {seed}"
        # a policy given twice is two players: "points 1" and "points 2", in --policies order
        called = [n if names.count(n) == 1 else f"{n} {names[:j + 1].count(n)}"
                  for j, n in enumerate(names)]
        for g in range(games):
            seated = tuple(Player(called[(i - g) % players], names[(i - g) % players])
                           for i in range(players))
            records.append(GameRecord(rules, seated, tuple(played[g]),
                                      None if start is None else tuple(start), 0,
                                      source=source, seed=seed))
    return score, turns


def _turn(player: int, card: str, rolls: list[dict[str, Any]], points: int, deduction: int,
          island: bool, magic: bool) -> Turn:
    """A simulated turn as a record's (Skull Island: its first roll and its deduction)."""
    from ..rules.dice import EMPTY, Dice

    def roll(r: dict[str, Any]) -> Roll:
        keep = r.get("keep")
        return Roll(Dice.parse(r["dice"]), bool(r.get("stop")),
                    None if keep is None else Dice.parse(keep) if keep else EMPTY,
                    bool(r.get("sorceress")))

    return Turn(player, None if island else points, deduction if island else None, magic,
                CARDS[card], tuple(roll(r) for r in rolls))


def play_games(names: Sequence[str], rules: Rules, *, games: int, seed: int,
               win: WinPlay | None = None,
               progress: Callable[[int], None] | None = None,
               records: list[GameRecord] | None = None) -> GamesResult:
    """Play `games` games of ``len(names)`` players (:func:`play_n_games`; `win`, the win
    policy of their game table, :meth:`solver.game.table.GameTable.win_play`; `records`, a
    list the games' records are appended to) and count each policy's wins by seat."""
    check_games(games)
    names = tuple(policy_name(n) for n in names)
    check_players_policies(names, len(names))
    score, turns = play_n_games(names, rules, games=games, seed=seed, win=win,
                                progress=progress, records=records)
    players = len(names)
    rows = []
    for name in dict.fromkeys(names):
        for seat in range(players):
            mine = [g for g in range(games) if names[(seat - g) % players] == name]
            rows.append(SeatResult(name, seat + 1, len(mine), float(score[mine, seat].sum())))
    return GamesResult(policies=names, rules=rules, games=games, seed=seed,
                       seats=tuple(rows), mean_turns=float(turns.mean()))


__all__ = ["MAX_GAMES", "GameSettingsError", "GamesResult", "SeatResult", "check_games",
           "check_players_policies", "play_games", "play_n_games", "policy_name"]
