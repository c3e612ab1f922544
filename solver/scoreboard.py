"""The scoreboard at the table: the players' totals, whose turn it is, and what the rules make of
them (RULES.md, End of the game), for any number of players.

The web page keeps the table's scoreboard and asks here (``/api/scores``) what a turn is played
for and what it does to the totals, so that it computes no rule itself:

- the mover's turn is the **final** one when another player has reached the target;
- then the points that **beat the leader** (the best of the others): one unit more than the
  leader's lead; under ``ties=shared`` one unit less **ties** (the tie is shared); under
  ``ties=trigger`` a tie is the leader's;
- with two players, the **goal** of playing to win (:class:`solver.advisor.Goal`: the totals and
  whether the turn is the final one);
- a turn's **points** move the mover's total, Skull Island's **deduction** every other total,
  never below 0 (:func:`solver.rules.floor_total`); then the next player moves.

Pure Python (the rules only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import RulesError, quote
from .rules import UNIT, Rules, floor_total


class ScoreboardError(RulesError):
    """Totals, a mover or a turn's points that are no state of the table's game."""


@dataclass(frozen=True)
class Scoreboard:
    """The totals of the players in their seating order, and the mover (module docstring)."""

    rules: Rules
    totals: tuple[int, ...]
    mover: int = 0

    def __post_init__(self) -> None:
        if not self.totals:
            raise ScoreboardError("a game has at least one player: give their totals",
                                  subject="total", kind="no_players")
        for total in self.totals:
            _check_points(total, "total", "a total", allow_negative=False)
        if not 0 <= self.mover < len(self.totals):
            raise ScoreboardError(
                f"the player whose turn it is must be one of the {len(self.totals)} players "
                f"(0 to {len(self.totals) - 1}), not {quote(self.mover)}", subject="mover",
                kind="no_such_player", values={"mover": self.mover, "players": len(self.totals)})

    @property
    def me(self) -> int:
        return self.totals[self.mover]

    @property
    def leader(self) -> int | None:
        """The best of the other players (the first of equals in seating order), or None."""
        others = [i for i in range(len(self.totals)) if i != self.mover]
        return max(others, key=lambda i: self.totals[i]) if others else None

    @property
    def at_target(self) -> list[int]:
        """The players (by seat) whose total has reached the target."""
        return [i for i, total in enumerate(self.totals) if total >= self.rules.target]

    @property
    def final(self) -> bool:
        """Another player has reached the target: this is the mover's final turn."""
        return self.leader is not None and self.totals[self.leader] >= self.rules.target

    @property
    def beat(self) -> int | None:
        """The points that beat the leader in the final turn (None before the final round)."""
        if not self.final or self.leader is None:
            return None
        return int(floor_total(self.totals[self.leader] - self.me + UNIT))

    @property
    def tie(self) -> int | None:
        """The points that tie with the leader in the final turn, when a tie is shared."""
        beat = self.beat
        if beat is None or self.rules.tie_share == 0 or beat == 0:
            return None
        return beat - UNIT

    def goal(self) -> dict[str, Any] | None:
        """Two players: the totals of playing to win (the goal's ``me``, ``opp``, ``final``)."""
        if len(self.totals) != 2 or self.me >= self.rules.target:
            return None
        return {"me": self.me, "opp": self.totals[1 - self.mover], "final": self.final}

    def after(self, *, points: int | None = None, deduction: int | None = None) -> Scoreboard:
        """The totals after the mover's turn, the next player to move: its `points` added to
        the mover's total, or Skull Island's `deduction` taken from every other total."""
        if (points is None) == (deduction is None):
            raise ScoreboardError("a turn ends with points or with Skull Island's deduction: "
                                  "give one of them", subject="points", kind="turn_outcome")
        totals = list(self.totals)
        if points is not None:
            _check_points(points, "points", "the turn's points", allow_negative=True)
            totals[self.mover] = int(floor_total(self.me + points))
        else:
            assert deduction is not None
            _check_points(deduction, "deduction", "the deduction", allow_negative=False)
            totals = [t if i == self.mover else int(floor_total(t - deduction))
                      for i, t in enumerate(totals)]
        return Scoreboard(self.rules, tuple(totals), (self.mover + 1) % len(totals))

    def as_dict(self) -> dict[str, Any]:
        return {"totals": list(self.totals), "mover": self.mover, "target": self.rules.target,
                "at_target": self.at_target, "leader": self.leader, "final": self.final,
                "beat": self.beat, "tie": self.tie, "goal": self.goal(),
                "rules_hash": self.rules.hash}


def _check_points(value: int, subject: str, what: str, *, allow_negative: bool) -> None:
    if (isinstance(value, bool) or not isinstance(value, int) or value % UNIT
            or (value < 0 and not allow_negative)):
        sign = "" if allow_negative else "non-negative "
        raise ScoreboardError(f"{what} must be a {sign}multiple of {UNIT}, not {quote(value)}",
                              subject=subject, kind="not_points",
                              values={"value": value if isinstance(value, int) else str(value),
                                      "unit": UNIT})


__all__ = ["Scoreboard", "ScoreboardError"]
