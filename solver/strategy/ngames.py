"""Whole games of three players and more with real random dice between named policies
(`sabords game --players N`).

A game follows RULES.md, "End of the game" (with any number of players), move by move, written
here from the rules and not from the solver's model (:mod:`solver.game.seats`), so that games
played under the solved policies test that model: each turn draws a card (independently, with
the deck's frequencies), the one turn simulator plays it
(:func:`solver.strategy.simulate.play_batch`), and the totals move: a turn's points (never below
0), Skull Island's deduction for every other player, pirate magic wins at once; the first to end a
turn at or above the target triggers the final round, every other player in seat order plays one
final turn, then the highest total wins (a tie shared, or under ``ties=trigger`` won by the first
to have reached the target); if nobody is at the target then, sudden death from the trigger on.

Policies: ``win`` (the move that maximises the player's probability of winning, the turn solved
at the state from the game table of N players, :mod:`solver.game.query`), ``points``, ``need``
(the probability of passing the leader this turn: the points missing plus 100; the leader
plays for points) and the heuristics of :mod:`solver.strategy.policies`. The policies sit in the
given order at game 0 and move one seat on every game, so each plays every seat as often.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine import NO_MOVE, STOP, TIE_TOL, AtLeast, IntArray, kernel, solve_turn
from ..engine.kernel import LANES, from_lanes, to_lanes
from ..engine.model import UNUSED, USED
from ..engine.solve import solve_layers
from ..errors import quote
from ..game import UNIT, deck, game_model
from ..game.policies import SORCERESS_CODE, actual_keep, orbit_of_positions
from ..game.records import FINAL_TOL
from ..game.seats import final_name
from ..game.turns import mover_utilities
from ..rules.aims import NEED, POINTS, WIN
from ..rules.rulebook import CARDS, Rules, floor_total
from .duel import GameSettingsError, SeatResult, check_games, check_policy_name, overall
from .policies import OPTIMAL, parse_policy
from .simulate import (
    ISLAND,
    MAGIC,
    FixedPolicy,
    PolicyMoveError,
    TurnPolicy,
    deck_arrays,
    play_batch,
)

NORMAL_KIND, FINAL_KIND, SUDDEN_KIND = 0, 1, 2


class WinPolicyN(TurnPolicy):
    """Maximise the mover's probability of winning: the turn at each state met solved from
    the game table of N players (each state's turns once, for the states of a whole turn of
    every game at once: :meth:`prepare`)."""

    name = WIN

    def __init__(self, table: Any) -> None:
        self.table = table
        self.rules = table.rules.turn_rules()
        self.gm = game_model(table.rules, table.n_dice)
        self.seats = table.seats()
        self.names = list(self.seats.phases)
        self.Z = table.stacked()
        self.moves_of: dict[tuple[int, int, str], dict[int, np.ndarray]] = {}

    def prepare(self, phase: IntArray, state: IntArray, cards: Sequence[str]) -> None:
        """Solve the turns not solved yet of states (`phase`, `state`) for their `cards`."""
        want: dict[tuple[str, int], list[int]] = {}
        for p, s, c in zip(phase.tolist(), state.tolist(), cards, strict=True):
            if (p, s, c) not in self.moves_of:
                want.setdefault((c, p), []).append(s)
        with kernel.compiled_whenever_installed():
            for (card, p), states in want.items():
                index = np.array(sorted(set(states)), dtype=np.int64)
                u, _ = mover_utilities(self.seats, self.names[p], index, self.Z)
                ul = to_lanes(u, LANES)
                ct = self.gm.cards[card]
                w0 = ct.worlds[ct.model.worlds[0]]
                solved = solve_layers(ct.model, ct.st, ul, w0.stop_idx, w0.bust_idx,
                                      tol=FINAL_TOL, per_lane=True)
                per_world = {}
                b = index.shape[0]
                for world in ct.model.worlds:
                    w = ct.worlds[world]
                    q_used = solved.keeps[USED] if world == UNUSED else None
                    code, sor, _ = kernel.best_moves(solved.keeps[world], q_used, ul, w, ct.st,
                                                     TIE_TOL, w.sorceress_ok)
                    code_f, sor_f = from_lanes(code, b), from_lanes(sor, b)
                    # as the two-player tables store them: a Sorceress keep's code shifted
                    per_world[world] = np.where(sor_f, code_f + SORCERESS_CODE, code_f)
                for j, s in enumerate(index.tolist()):
                    self.moves_of[(p, s, card)] = {w: c[:, j] for w, c in per_world.items()}

    def moves(self, card: str, world: int, phase: int, position: IntArray,
              column: IntArray) -> tuple[IntArray, Any]:
        orbit = orbit_of_positions(card, self.rules, self.table.n_dice)[position]
        code = np.array([self.moves_of[(phase, s, card)][world][o]
                         for s, o in zip(column.tolist(), orbit.tolist(), strict=True)],
                        dtype=np.int64)
        if np.any(code == NO_MOVE):
            raise PolicyMoveError(f"{card}: the win policy has no move at a live position")
        keep, used = actual_keep(self.rules, card, self.table.n_dice, position, code)
        return np.where(code == STOP, -1, keep), used


class NeedPolicy(TurnPolicy):
    """Play for the points missing to pass the leader: the turn maximising the probability of
    scoring at least them (``column`` is that need in units; 0: the player leads and plays for
    expected points)."""

    name = NEED

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
class GamesResult:
    """The games of N players: each policy's share of the wins, by seat and overall."""

    policies: tuple[str, ...]
    rules: Rules
    games: int
    seed: int
    seats: tuple[SeatResult, ...]
    mean_turns: float

    def overall(self, policy: str) -> SeatResult:
        return overall(self.seats, policy)

    def as_dict(self) -> dict[str, Any]:
        row = SeatResult.as_dict
        return {"policies": list(self.policies), "players": len(self.policies),
                "games": self.games, "seed": self.seed, "target": self.rules.target,
                "rules_hash": self.rules.hash, "mean_turns": self.mean_turns,
                "overall": [row(self.overall(p)) for p in dict.fromkeys(self.policies)],
                "by_seat": [row(r) for r in self.seats]}


def play_n_games(names: Sequence[str], rules: Rules, *, games: int, seed: int,
                 table: Any = None, progress: Callable[[int], None] | None = None
                 ) -> tuple[np.ndarray, IntArray]:
    """Play `games` games of ``len(names)`` players side by side; game g has ``names[(i - g)
    % N]`` in seat i (seat 0 moves first). Returns (each seat's score per game, (games, N):
    1, a share of a tie, or 0; turns per game)."""
    players = len(names)
    rng = np.random.Generator(np.random.PCG64(seed))
    built: dict[str, TurnPolicy] = {}
    for name in names:
        if name in built:
            continue
        if name == WIN:
            if table is None:
                raise ValueError("the win policy needs the game table")
            built[name] = WinPolicyN(table)
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
    win = built.get(WIN)
    phase_code = {name: code for code, name in enumerate(win.names)} if isinstance(
        win, WinPolicyN) else {}
    totals = np.zeros((games, players), dtype=np.int64)
    mover = np.zeros(games, dtype=np.int64)
    kind = np.full(games, NORMAL_KIND, dtype=np.int64)
    left = np.zeros(games, dtype=np.int64)  # final turns left, the mover's included
    trigger = np.full(games, -1, dtype=np.int64)
    done = np.zeros(games, dtype=bool)
    score = np.zeros((games, players))
    turns = np.zeros(games, dtype=np.int64)
    finished = 0
    seats = np.arange(players)
    while not done.all():
        idx = np.flatnonzero(~done)
        mv = mover[idx]
        frame = np.take_along_axis(totals[idx], (mv[:, None] + seats[None, :]) % players, 1)
        cards = rng.choice(len(d.cards), size=idx.shape[0], p=p_card)
        which = seat_policy[idx, mv]
        phase = np.zeros(idx.shape[0], dtype=np.int64)
        column = np.zeros(idx.shape[0], dtype=np.int64)
        if isinstance(win, WinPolicyN):
            uses = which == order.index(WIN)
            names_of = np.where(kind[idx] == NORMAL_KIND, 0, np.where(
                kind[idx] == SUDDEN_KIND, -1, left[idx]))
            for label in np.unique(names_of[uses]).tolist():
                sel = np.flatnonzero(uses & (names_of == label))
                name = "normal" if label == 0 else "sudden" if label == -1 else final_name(label)
                box = win.seats.phases[name]
                phase[sel] = phase_code[name]
                column[sel] = box.encode(frame[sel])
            sel = np.flatnonzero(uses)
            win.prepare(phase[sel], column[sel], [d.cards[c] for c in cards[sel].tolist()])
        if NEED in built:
            uses = which == order.index(NEED)
            gap = frame[:, 1:].max(axis=1) + 1 - frame[:, 0]
            column[uses] = np.where(kind[idx][uses] == NORMAL_KIND,
                                    np.maximum(gap[uses], 0), np.maximum(gap[uses], 1))
        batch = play_batch(cards, d, policy_of, which, phase, column, rng)
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
    return score, turns


def play_games_n(names: Sequence[str], rules: Rules, *, games: int, seed: int,
                 table: Any = None, progress: Callable[[int], None] | None = None
                 ) -> GamesResult:
    """Play the games (:func:`play_n_games`) and count each policy's wins by seat."""
    check_games(games)
    check_players_policies(names, len(names))
    score, turns = play_n_games(names, rules, games=games, seed=seed, table=table,
                                progress=progress)
    players = len(names)
    rows = []
    for name in dict.fromkeys(names):
        for seat in range(players):
            mine = [g for g in range(games) if names[(seat - g) % players] == name]
            rows.append(SeatResult(name, seat + 1, len(mine), float(score[mine, seat].sum())))
    return GamesResult(policies=tuple(names), rules=rules, games=games, seed=seed,
                       seats=tuple(rows), mean_turns=float(turns.mean()))
