"""The scoreboard at the table: the players' totals, whose turn it is, and what the rules make of
them (RULES.md, End of the game), for any number of players.

The web page keeps the table's scoreboard and asks here (``/api/scores``) what a turn is played
for and what it does to the totals, so that it computes no rule itself:

- the mover's turn is the **final** one when another player has reached the target;
- then the points that **beat the leader** (the best of the others): one unit more than the
  leader's lead, and at least what reaches the target (Skull Island in the final round may
  have pushed everybody back below it: a final turn that ends below the target wins nothing);
  under ``ties=shared`` one unit less **ties** (the tie is shared) when the leader is at the
  target; under ``ties=trigger`` a tie is the leader's;
- the **goal** of playing to win: the mover's :class:`~solver.rules.standing.Standing` (the
  totals in seat order from the mover, the final round and who triggered it, sudden death),
  as the win question's inputs (:meth:`Scoreboard.goal`);
- a turn's **points** move the mover's total, Skull Island's **deduction** every other total,
  never below 0 (:func:`solver.rules.floor_total`); then the next player moves;
- the **end of the game**: the player who first ends a turn at or above the target (the
  **trigger**) starts the final round; when play comes back to them the game is **over** and
  the highest total wins (a tie shared, or under ``ties=trigger`` the trigger's if they are
  among the best); if nobody is at the target then (Skull Island's deductions), **sudden
  death**: the next player to end a turn at or above it wins at once, and pirate magic wins at
  once at any time.

The scoreboard itself keeps no history: the trigger and sudden death are given with the totals
(the page keeps them from the last answer); without them, the trigger is inferred from the
totals: the mover at or above the target (the round came back to them), else the first of the
others *in seat order after the mover* at or above it. That is the only seat it can be when
nobody was pushed back by Skull Island: the seats between the mover and the trigger have their
final turns still to play, so they are below the target. (Only a trigger pushed back below the
target cannot be inferred: give it.)

Pure Python (the rules only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import RulesError, quote
from .rulebook import UNIT, Rules, floor_total
from .standing import Standing, StandingError

MAX_POINTS = 100_000
"""The largest total (and turn's points, either sign) the scoreboard takes: more than any game
of the largest target reaches (the target plus a turn's most points, 10,600 under the default
rules), and small enough to be read back exactly as a JavaScript number."""


class ScoreboardError(RulesError):
    """Totals, a mover or a turn's points that are no state of the table's game."""


@dataclass(frozen=True)
class Scoreboard:
    """The totals of the players in their seating order, the mover, and how the game stands
    (module docstring)."""

    rules: Rules
    totals: tuple[int, ...]
    mover: int = 0
    trigger: int | None = None
    """The player who first reached the target and started the final round (None: inferred
    from the totals, module docstring)."""
    sudden: bool = False
    """Sudden death: nobody was at the target when the final round ended."""
    won: int | None = None
    """A player who won at once (pirate magic, or sudden death), when the game is over so."""

    def __post_init__(self) -> None:
        if not self.totals:
            raise ScoreboardError("a game has at least one player: give their totals",
                                  subject="total", kind="no_players")
        for total in self.totals:
            _check_points(total, "total", "a total", allow_negative=False)
        for subject, seat in (("mover", self.mover), ("trigger", self.trigger)):
            if seat is not None and not 0 <= seat < len(self.totals):
                raise ScoreboardError(
                    f"the {'player whose turn it is' if subject == 'mover' else 'trigger'} "
                    f"must be one of the {len(self.totals)} players (0 to "
                    f"{len(self.totals) - 1}), not {quote(seat)}", subject=subject,
                    kind="no_such_player", values={subject: seat, "players": len(self.totals)})
        if self.sudden and self.trigger is not None:
            raise ScoreboardError("sudden death comes after the final round: a game in sudden "
                                  "death has no trigger", subject="sudden",
                                  kind="sudden_with_trigger")
        if self.sudden and self.at_target and self.won is None:
            raise ScoreboardError("in sudden death nobody is at the target: the first to "
                                  "reach it has won", subject="sudden",
                                  kind="sudden_at_target", values={"target": self.rules.target})
        object.__setattr__(self, "trigger", self._trigger())

    def _trigger(self) -> int | None:
        if self.trigger is not None or self.sudden or self.won is not None:
            return self.trigger
        if self.me >= self.rules.target:
            return self.mover  # the final round came back to them
        players = len(self.totals)
        after = [(self.mover + i) % players for i in range(1, players)]
        return next((i for i in after if self.totals[i] >= self.rules.target), None)

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
    def over(self) -> bool:
        """The game is over: a player won at once, or the final round came back to the
        trigger with someone at the target."""
        return self.won is not None or (self.trigger == self.mover and bool(self.at_target))

    @property
    def winners(self) -> list[int]:
        """The winners of a game over (more than one: a shared tie), else none."""
        if not self.over:
            return []
        if self.won is not None:
            return [self.won]
        best = max(self.totals)
        tied = [i for i, total in enumerate(self.totals) if total == best]
        if len(tied) > 1 and self.rules.tie_share == 0 and self.trigger is not None:
            # ties=trigger: the tied player who reached the target first, the trigger and
            # then the final turns in the order they were played (RULES.md)
            players = len(self.totals)
            order = [(self.trigger + i) % players for i in range(players)]
            return [next(i for i in order if i in tied)]
        return tied

    @property
    def final(self) -> bool:
        """Another player has reached the target: this is the mover's final turn."""
        return not self.over and self.trigger is not None and self.trigger != self.mover

    @property
    def beat(self) -> int | None:
        """The points that win: in the final turn, those that beat the leader and reach the
        target (Skull Island may have pushed the trigger back below it); in sudden death,
        those that reach the target (None otherwise)."""
        if self.over:
            return None
        if self.sudden:
            return self.rules.target - self.me
        if not self.final or self.leader is None:
            return None
        best = max(self.totals[self.leader] + UNIT, self.rules.target)
        return int(floor_total(best - self.me))

    @property
    def tie(self) -> int | None:
        """The points that tie with the leader in the final turn, when a tie is shared and the
        leader is at the target (a tie below it wins nothing)."""
        beat = self.beat
        if (self.sudden or beat is None or self.rules.tie_share == 0 or beat == 0
                or self.leader is None or self.totals[self.leader] < self.rules.target):
            return None
        return beat - UNIT

    def standing(self) -> Standing | None:
        """The mover's standing (:class:`~solver.rules.standing.Standing`: the totals in seat
        order from the mover, the round, the trigger seen from the mover), or None when the
        game is over or is no game of 2 to 5 players."""
        if self.over:
            return None
        n = len(self.totals)
        totals = tuple(self.totals[(self.mover + k) % n] for k in range(n))
        trigger = (None if not self.final or self.trigger is None
                   else (self.trigger - self.mover) % n)
        try:
            return Standing(self.rules, totals, final=self.final, trigger=trigger,
                            sudden=self.sudden)
        except StandingError:
            return None

    def goal(self) -> dict[str, Any] | None:
        """The win question of the mover, as the answers' inputs (``me``, ``opp`` the others'
        totals in seat order after the mover, ``final``, ``trigger`` the player who reached
        the target first numbered from the mover's 1, ``sudden``): :meth:`standing`."""
        st = self.standing()
        if st is None:
            return None
        return {"me": st.me, "opp": list(st.others), "final": st.final,
                "trigger": None if st.trigger is None else st.trigger + 1,
                "sudden": st.sudden}

    def after(self, *, points: int | None = None, deduction: int | None = None,
              magic: bool = False) -> Scoreboard:
        """The totals after the mover's turn, the next player to move: its `points` added to
        the mover's total (`magic`: pirate magic, which wins at once), or Skull Island's
        `deduction` taken from every other total; then how the game stands."""
        if self.over:
            raise ScoreboardError("the game is over: start a new game", subject="total",
                                  kind="game_is_over", values={"winners": self.winners})
        if (points is None) == (deduction is None) or (magic and points is None):
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
        nxt = (self.mover + 1) % len(totals)
        reached = totals[self.mover] >= self.rules.target
        if magic or (self.sudden and reached):
            return Scoreboard(self.rules, tuple(totals), nxt, won=self.mover)
        trigger = self.trigger
        if trigger is None and not self.sudden and reached:
            trigger = self.mover
        sudden = self.sudden
        if trigger == nxt and not any(t >= self.rules.target for t in totals):
            trigger, sudden = None, True  # the final round ended with nobody at the target
        return Scoreboard(self.rules, tuple(totals), nxt, trigger=trigger, sudden=sudden)

    def as_dict(self) -> dict[str, Any]:
        return {"totals": list(self.totals), "mover": self.mover, "target": self.rules.target,
                "at_target": self.at_target, "leader": self.leader, "final": self.final,
                "beat": self.beat, "tie": self.tie, "goal": self.goal(),
                "trigger": self.trigger, "sudden": self.sudden, "over": self.over,
                "winners": self.winners, "won": self.won, "rules_hash": self.rules.hash}


def _check_points(value: int, subject: str, what: str, *, allow_negative: bool) -> None:
    if (isinstance(value, bool) or not isinstance(value, int) or value % UNIT
            or (value < 0 and not allow_negative)):
        sign = "" if allow_negative else "non-negative "
        raise ScoreboardError(f"{what} must be a {sign}multiple of {UNIT}, not {quote(value)}",
                              subject=subject, kind="not_points",
                              values={"value": value if isinstance(value, int) else str(value),
                                      "unit": UNIT, "signed": allow_negative})
    if abs(value) > MAX_POINTS:
        raise ScoreboardError(f"{what} must be at most {MAX_POINTS} points (no game reaches "
                              f"more), not {quote(value)}", subject=subject,
                              kind="points_range", values={"value": str(value),
                                                           "max": MAX_POINTS})


__all__ = ["MAX_POINTS", "Scoreboard", "ScoreboardError"]
