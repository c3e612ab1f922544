r"""Many simulated games reviewed: what each policy loses per game in P(win), by seat, and how
much of a game's outcome is luck (the strategy report's figures, `scripts/review_games.py`).

Games between named policies (:func:`solver.strategy.games.play_n_games`, one policy a seat,
the seats turning every game) are recorded and each is reviewed (:mod:`.review`). For every
policy and seat, per game on average: the **error** (the sum of its decisions' costs in the
probability of winning: what its play gave away against the Win table's), its decisions, its
**luck** (the changes of its chance by the cards and the dice), and its result.

**The share of luck.** For a player of a game let :math:`O` be the result minus the chance at
the start (the outcome against expectation), :math:`L` its luck and :math:`P` the rest (its
own play and the others'): :math:`O = L + P` exactly (the review's identity). Over every
player of every game, :math:`\operatorname{Var} O = \operatorname{Cov}(L, O) +
\operatorname{Cov}(P, O)`, so :math:`\operatorname{Cov}(L, O) / \operatorname{Var} O` is the
share of the outcome's variance that luck accounts for, and the rest is play's (when every seat
plays the Win table, play changes nothing: the share of luck is 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..rules.aims import WIN
from ..rules.rulebook import Rules
from .review import GameReview, review_game

if TYPE_CHECKING:
    from ..rules.record import GameRecord
    from .sources import SolutionSource


@dataclass(frozen=True)
class SeatReview:
    """A policy's games at one seat (seat 0: every seat), per game on average."""

    policy: str
    seat: int
    """1: moves first; 0: every seat."""
    games: int
    error: float
    """The sum of its decisions' costs in a game (probability of winning)."""
    decisions: float
    luck: float
    result: float
    """Its share of the wins (a tie shared counts its share)."""
    error_se: float = float("nan")
    """The standard error of :attr:`error` (the games' sample deviation over the root of
    their number; NaN with fewer than two games)."""

    def as_dict(self) -> dict[str, Any]:
        return {"policy": self.policy, "seat": self.seat, "games": self.games,
                "error": self.error, "error_se": self.error_se, "decisions": self.decisions,
                "luck": self.luck, "result": self.result}


@dataclass(frozen=True)
class GamesReview:
    """Simulated games reviewed (module docstring)."""

    policies: tuple[str, ...]
    rules: Rules
    games: int
    seed: int
    seats: tuple[SeatReview, ...]
    """Per policy and seat (seat 0: over every seat)."""
    luck_share: float
    """Cov(luck, outcome) / Var(outcome) over every player of every game."""
    exact: bool
    """The chances are the game's exact ones (two and three players)."""

    def seat(self, policy: str, seat: int = 0) -> SeatReview:
        return next(s for s in self.seats if s.policy == policy and s.seat == seat)

    def as_dict(self) -> dict[str, Any]:
        return {"policies": list(self.policies), "players": len(self.policies),
                "games": self.games, "seed": self.seed, "rules_hash": self.rules.hash,
                "exact": self.exact, "luck_share": self.luck_share,
                "seats": [s.as_dict() for s in self.seats]}


def review_games(names: Sequence[str], rules: Rules, source: SolutionSource, *, games: int,
                 seed: int, progress: Callable[[int], None] | None = None) -> GamesReview:
    """Play `games` games between the policies `names` (one a seat), review each, and
    gather what each policy loses by seat and the share of luck (module docstring)."""
    from ..engine import kernel
    from ..strategy.games import check_games, check_players_policies, play_n_games, policy_name

    check_games(games)
    names = tuple(policy_name(n) for n in names)
    check_players_policies(names, len(names))
    game = source.game(rules, len(names))
    records: list[GameRecord] = []
    play_n_games(names, rules, games=games, seed=seed,
                 win=game.win_play() if WIN in names else None, records=records)
    reviews = []
    # Many reviews: numba's kernel (compiled once, or read from its cache) pays for itself
    # whatever the players (20 games of two: 4.7 s, 11.6 s with numpy's solves).
    with kernel.compiled_whenever_installed():
        for i, record in enumerate(records):
            reviews.append(review_game(record, source))
            if progress is not None:
                progress(i + 1)
    return gather(names, rules, seed, reviews, exact=game.exact)


def gather(names: Sequence[str], rules: Rules, seed: int, reviews: Sequence[GameReview], *,
           exact: bool) -> GamesReview:
    """The figures of reviewed games whose seat ``i`` of game ``g`` is ``names[(i - g) %
    N]`` (:func:`solver.strategy.games.play_n_games`)."""
    n = len(names)
    rows: dict[tuple[str, int], list[tuple[float, int, float, float]]] = {}
    outcomes, lucks = [], []
    for g, review in enumerate(reviews):
        for p in review.players:
            policy = names[(p.seat - g) % n]
            row = (p.error, p.decisions, p.luck, p.end)
            rows.setdefault((policy, p.seat + 1), []).append(row)
            rows.setdefault((policy, 0), []).append(row)
            outcomes.append(p.change)
            lucks.append(p.luck)
    seats = []
    for policy in dict.fromkeys(names):
        for seat in range(n + 1):
            got = rows.get((policy, seat), [])
            k = len(got)
            means = [sum(r[j] for r in got) / k if k else float("nan") for j in range(4)]
            se = (math.sqrt(sum((r[0] - means[0]) ** 2 for r in got) / (k - 1) / k) if k > 1
                  else float("nan"))
            error, decisions, luck, result = means
            seats.append(SeatReview(policy, seat, k, error, decisions, luck, result, error_se=se))
    return GamesReview(tuple(names), rules, len(reviews), seed, tuple(seats),
                       luck_share(lucks, outcomes), exact)


def luck_share(lucks: Sequence[float], outcomes: Sequence[float]) -> float:
    """Cov(luck, outcome) / Var(outcome) (NaN without variance)."""
    k = len(outcomes)
    if k < 2:
        return float("nan")
    mean_o = sum(outcomes) / k
    mean_l = sum(lucks) / k
    var = sum((o - mean_o) ** 2 for o in outcomes)
    cov = sum((lu - mean_l) * (o - mean_o) for lu, o in zip(lucks, outcomes, strict=True))
    return cov / var if var > 0 else float("nan")


__all__ = ["GamesReview", "SeatReview", "gather", "luck_share", "review_games"]
