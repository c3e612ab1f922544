"""Whole two-player games with real random dice between named policies (`sabords game`).

A game follows RULES.md, "End of the game", move by move: each turn draws a card from the deck
(independently, with the deck's frequencies, as the solver assumes), the turn is played roll by
roll on the card's turn model (:mod:`solver.engine.model`: the outcome of every position, the
stop and bust payoffs, the legality of every keep, all from :mod:`solver.scoring` and
:mod:`solver.moves`; the policy is only asked for its move, and every move is checked), and the
totals move as the game model says: a turn's points (never below 0), Skull Island's deduction for
the opponent, pirate magic wins at once; reaching the target gives the other player one final
turn; if Skull Island then brings the leader below the target, sudden death: the next player to
end a turn at or above the target wins.

Policies: ``win`` (the move that maximises the probability of winning at the current totals, the
game tables' policy of every state, :mod:`solver.game.policies`), ``points`` (the expected-points
optimum, the same at every score) and the heuristics of :mod:`solver.policies` (``first-roll``,
``two-skulls``, ``greedy``, ``threshold[=T]``).

All the games are played side by side, turn after turn (numpy arrays over the games); the dice
come from one :class:`numpy.random.Generator` (PCG64) seeded with ``seed``: the same seed, games,
policies and rules give the same games on every machine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .engine import NO_MOVE, STOP, UNUSED, USED, IntArray, geometry, turn_model
from .errors import SabordsError, SettingsError, quote
from .game import FINAL, NORMAL, SUDDEN, UNIT, GameSolution, deck
from .game.policies import actual_keep, orbit_of_positions
from .policies import OPTIMAL, ThresholdError, parse_policy, policy_for
from .rules import NUM_DICE, NUM_FACES, Rules, get_card
from .scoring import Outcome
from .stats import INTERVAL_METHOD, wilson_interval

WIN, POINTS = "win", "points"
MAX_GAMES = 1_000_000
PHASE_CODE = {NORMAL: 0, FINAL: 1, SUDDEN: 2}


class GameSettingsError(SettingsError):
    """Bad settings of whole games: unknown policy names, a number of games out of range."""


class PolicyMoveError(RuntimeError):
    """A policy asked for a move the rules do not allow (a bug in a policy)."""


# --------------------------------------------------------------------------------------------
# The turn model of every card, as the arrays the simulation reads
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeckArrays:
    """The turn models of the deck's cards as lookup arrays, a row per card (positions are full
    indices, keeps partial indices; a card without the Sorceress repeats its world)."""

    cards: tuple[str, ...]
    start_world: IntArray
    first_class: IntArray
    """(n_cards, n_full): 0 play on, 1 bust, 2 Skull Island, for the first roll."""
    live: Any
    """(n_cards, 2, n_full)."""
    stop_points: IntArray
    magic: Any
    bust_points: IntArray
    """(n_cards, n_partial): points of a bust with these dice not rolled."""
    keep_legal: Any
    """(n_cards, 2, n_partial)."""
    sorceress_legal: Any
    island_cdf: Any
    """(n_cards, n_dice + 1, NUM_DICE + 3): P(final skulls <= t) by skull dice of the first
    roll (the island's exact distribution, rounded)."""
    island_cost: IntArray


def deck_arrays(rules: Rules) -> DeckArrays:
    cards = tuple(deck())
    models = [turn_model(c, rules.turn_rules()) for c in cards]
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
        cards=cards,
        start_world=np.array([m.start_world for m in models], dtype=np.int64),
        first_class=np.array([[0 if o not in (Outcome.BUST, Outcome.ISLAND)
                               else 1 if o is Outcome.BUST else 2 for o in m.first_outcome]
                              for m in models], dtype=np.int64),
        live=np.array([[a, b] for a, b in worlds]),
        stop_points=np.array([m.stop_points for m in models]),
        magic=np.array([m.stop_magic for m in models]),
        bust_points=np.array([m.bust_points for m in models]),
        keep_legal=np.array([[m.keep_legal[USED], m.keep_legal[m.start_world]] for m in models]),
        sorceress_legal=np.array([m.sorceress_legal for m in models]),
        island_cdf=cdf,
        island_cost=np.array([get_card(c).island_cost for c in cards], dtype=np.int64),
    )


# --------------------------------------------------------------------------------------------
# Policies: the move at a batch of positions
# --------------------------------------------------------------------------------------------


class TurnPolicy:
    """A named policy: its move at positions of one card, in one world, at given states."""

    name: str

    def moves(self, card: str, world: int, phase: str, position: IntArray,
              column: IntArray) -> tuple[IntArray, Any]:
        """(the partial index of the dice kept, or -1 to stop; uses the Sorceress)."""
        raise NotImplementedError


class FixedPolicy(TurnPolicy):
    """A policy that ignores the score (expected points, or a heuristic)."""

    def __init__(self, name: str, rules: Rules) -> None:
        self.name = name
        self.spec = parse_policy(OPTIMAL if name == POINTS else name)
        self.rules = rules.turn_rules()
        self._arrays: dict[str, Any] = {}

    def moves(self, card: str, world: int, phase: str, position: IntArray,
              column: IntArray) -> tuple[IntArray, Any]:
        if card not in self._arrays:
            self._arrays[card] = policy_for(self.spec, card, self.rules)
        code, sor = self._arrays[card][world]
        c = code[position, 0]
        return np.where(c == STOP, -1, c), sor[position, 0].astype(bool)


class WinPolicy(TurnPolicy):
    """Maximise the probability of winning: the game table's policy at every state
    (:mod:`solver.game.policies`)."""

    name = WIN

    def __init__(self, sol: GameSolution) -> None:
        self.sol = sol
        self.rules = sol.rules.turn_rules()

    def moves(self, card: str, world: int, phase: str, position: IntArray,
              column: IntArray) -> tuple[IntArray, Any]:
        codes = self.sol.policies[phase].codes[(card, world)]
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
    phase when first asked, :class:`solver.game.policies.StoredPolicies`): a broken table is refused
    before a game is played."""
    for phase in sol.policies:
        sol.policies[phase]


def make_policy(name: str, rules: Rules, sol: GameSolution | None) -> TurnPolicy:
    name = policy_name(name)
    if name == WIN:
        if sol is None:
            raise ValueError("the win policy needs the game tables")
        return WinPolicy(sol)
    return FixedPolicy(name, rules)


# --------------------------------------------------------------------------------------------
# Turns, side by side
# --------------------------------------------------------------------------------------------

P_FACE = np.full(NUM_FACES, 1.0 / NUM_FACES)


@dataclass
class TurnBatch:
    """The outcome of a batch of turns."""

    kind: IntArray
    """0 stop, 1 pirate magic, 2 bust, 3 Skull Island."""
    points: IntArray
    island_skulls: IntArray


def play_turns(cards: IntArray, d: DeckArrays, policy_of: list[TurnPolicy], which: IntArray,
               phase: IntArray, column: IntArray, rng: np.random.Generator) -> TurnBatch:
    """Play one turn for every entry: card ``d.cards[cards[i]]``, by the policy
    ``policy_of[which[i]]`` at phase ``phase[i]`` (a PHASE_CODE) and column ``column[i]``."""
    g = geometry()
    m = cards.shape[0]
    counts = rng.multinomial(NUM_DICE, P_FACE, size=m)
    pos = g.indices(counts) - g.full_offset
    world = d.start_world[cards]
    first = d.first_class[cards, pos]
    kind = np.where(first == 1, 2, np.where(first == 2, 3, 0))
    points = np.where(first == 1, d.bust_points[cards, 0], 0)
    isl = np.flatnonzero(first == 2)
    draw = rng.random(isl.shape[0])
    skulls = np.zeros(m, dtype=np.int64)
    skulls[isl] = (draw[:, None] >= d.island_cdf[cards[isl], counts[isl, 0]]).sum(axis=1)
    active = first == 0
    phase_names = {v: k for k, v in PHASE_CODE.items()}
    while active.any():
        keep = np.full(m, -2, dtype=np.int64)
        sor = np.zeros(m, dtype=bool)
        idx = np.flatnonzero(active)
        key = ((which[idx] * len(d.cards) + cards[idx]) * 2 + world[idx]) * 3 + phase[idx]
        for k in np.unique(key):
            sel = idx[key == k]
            ph, rest = int(k % 3), int(k // 3)
            w, rest = rest % 2, rest // 2
            c, pol = rest % len(d.cards), rest // len(d.cards)
            keep[sel], sor[sel] = policy_of[pol].moves(d.cards[c], w, phase_names[ph],
                                                       pos[sel], column[sel])
        stop = active & (keep == -1)
        kind = np.where(stop, np.where(d.magic[cards, pos], 1, 0), kind)
        points = np.where(stop, d.stop_points[cards, pos], points)
        go = active & (keep >= 0)
        _check_moves(go, keep, sor, pos, world, cards, d)
        kept = g.counts[np.maximum(keep, 0)]
        world = np.where(go & sor, USED, world)
        rolled = rng.multinomial(np.where(go, NUM_DICE - kept.sum(axis=1), 0), P_FACE)
        counts = np.where(go[:, None], kept + rolled, counts)
        pos = g.indices(counts) - g.full_offset
        live = d.live[cards, world, pos]
        busted = go & ~live
        kind = np.where(busted, 2, kind)
        points = np.where(busted, d.bust_points[cards, np.maximum(keep, 0)], points)
        active = go & live
    return TurnBatch(kind, points, skulls)


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
        """The 95 % Wilson score interval of the win rate (:func:`solver.stats.wilson_interval`:
        inside [0, 1], never of zero width)."""
        return wilson_interval(self.score, self.games)


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
    d = deck_arrays(rules)
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
        batch = play_turns(cards, d, policy_of, seat_policy[idx, mv], ph, column, rng)
        turns[idx] += 1
        magic = batch.kind == 1
        island = batch.kind == 3
        cost = d.island_cost[cards] // UNIT
        new_opp = np.where(island, np.maximum(0, opp - cost * batch.island_skulls), opp)
        new_me = np.where(island, me, np.maximum(0, me + batch.points // UNIT))
        totals[idx, mv], totals[idx, 1 - mv] = new_me, new_opp
        # who wins now: pirate magic; the end of a final turn with the leader at the target;
        # the first to reach the target in sudden death
        first_wins = np.full(idx.shape[0], np.nan)
        mover_is_first = mv == 0
        win_now = magic.copy()
        final = ph == PHASE_CODE[FINAL]
        leader_holds = final & ~magic & (new_opp >= n)
        shared = rules.ties == "shared"
        tie = leader_holds & (new_me == new_opp)
        mover_wins = magic | (leader_holds & (new_me > new_opp)) | (
            (ph == PHASE_CODE[SUDDEN]) & ~magic & (new_me >= n))
        other_wins = leader_holds & ((new_me < new_opp) | (tie & (not shared)))
        win_now = mover_wins | other_wins | (tie & shared)
        first_wins = np.where(mover_wins, mover_is_first.astype(float),
                              np.where(other_wins, (~mover_is_first).astype(float), 0.5))
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
