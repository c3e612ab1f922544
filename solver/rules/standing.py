"""Where a game stands for the player about to move: the one question of playing to win, for 2
to 5 players (RULES.md, "End of the game").

A :class:`Standing` is every player's total in seat order from the mover (the mover first),
and the round being played:

- **normal play**: everybody below the target;
- **the final round**: a player reached the target, the *trigger*, and every other player has
  one final turn, in seat order after the trigger. Seen from the mover, the trigger is the
  seat :attr:`Standing.trigger` (1 the next player, 2 the one after...): the seats between the
  mover and the trigger have their final turns still to play (below the target), the seats
  after the trigger have played theirs. Skull Island may have pushed the trigger back below
  the target; without :attr:`~Standing.trigger`, the trigger is read from the totals: the
  first of the others in seat order at or above the target (the only seat it can be when
  nobody was pushed back), else the table's game says which seats it could be;
- **sudden death**: the final round ended with everybody below the target (Skull Island); the
  next player to end a turn at or above it wins at once.

A standing is made for the rules of its game (the target and the tie rule) and checked once,
when made: what can be said of it without a game's table (:class:`StandingError`); what needs
the table's point range is checked when a table is asked (:func:`solver.game.query.state_of`).
The scoreboard of the table (:class:`solver.rules.scoreboard.Scoreboard`) gives the standing of
whoever is to move (:meth:`~solver.rules.scoreboard.Scoreboard.standing`); the command line
and the web build one from their inputs.

Pure Python (the rules only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import RulesError, quote
from .rulebook import UNIT, Rules

MAX_PLAYERS = 5
"""The most players a game has (the rulebooks' 2 to 5)."""


class StandingError(RulesError):
    """Totals or a round that are no state of a game (not multiples of 100, negative, past
    the target, a trigger that cannot be)."""


@dataclass(frozen=True)
class Standing:
    """Every total in seat order from the mover, and the round, under `rules` (module
    docstring); checked when made."""

    rules: Rules
    totals: tuple[int, ...]
    """The mover's total first, then every other player's in seat order (points)."""
    final: bool = False
    """The final round: another player has reached the target."""
    trigger: int | None = None
    """The final round: the seat, counted from the mover (1 .. players - 1), of the player who
    reached the target first; None: read from the totals."""
    sudden: bool = False
    """Sudden death."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "totals", tuple(self.totals))
        players = len(self.totals)
        if not 2 <= players <= MAX_PLAYERS:
            raise StandingError(f"the game is for 2 to {MAX_PLAYERS} players, not {players}",
                                subject="opp", kind="player_count",
                                values={"players": players, "least": 2, "most": MAX_PLAYERS})
        for seat, x in enumerate(self.totals):
            if isinstance(x, bool) or not isinstance(x, int) or x < 0 or x % UNIT:
                raise StandingError(f"{self.whose(seat)} must be a non-negative multiple of "
                                    f"{UNIT}, not {quote(x)}",
                                    subject="me" if seat == 0 else "opp", kind="not_points",
                                    values={"value": x if isinstance(x, int) else str(x),
                                            "unit": UNIT, "player": seat + 1,
                                            "players": players})
        if self.trigger is not None:
            t = self.trigger
            if isinstance(t, bool) or not isinstance(t, int) or not 1 <= t < players:
                raise StandingError(
                    f"the player who reached the target first is one of the other players "
                    f"(player 2 to {players}), not {quote(t if not isinstance(t, int) else t + 1)}",
                    subject="trigger", kind="no_such_player",
                    values={"trigger": t + 1 if isinstance(t, int) else str(t),
                            "players": players, "least": 2})
            object.__setattr__(self, "final", True)
        if self.sudden and self.final:
            raise StandingError("sudden death comes after the final round: a game in sudden "
                                "death has no final turn", subject="sudden",
                                kind="sudden_with_trigger")
        self._check()

    @classmethod
    def of(cls, rules: Rules, me: int, others: Sequence[int], *, final: bool = False,
           trigger: int | None = None, sudden: bool = False) -> Standing:
        """The standing of totals `me` then `others` in seat order after the mover."""
        return cls(rules, (me, *others), final=final, trigger=trigger, sudden=sudden)

    @property
    def players(self) -> int:
        return len(self.totals)

    @property
    def me(self) -> int:
        """The mover's total."""
        return self.totals[0]

    @property
    def others(self) -> tuple[int, ...]:
        """The other players' totals, in seat order after the mover."""
        return self.totals[1:]

    @property
    def round(self) -> str:
        """``"normal"``, ``"final"`` or ``"sudden"``."""
        return "sudden" if self.sudden else "final" if self.final else "normal"

    def whose(self, seat: int) -> str:
        """Seat `seat`'s total in words ("your total", "the total of player 3")."""
        if seat == 0:
            return "your total"
        return "the opponent's total" if self.players == 2 else f"the total of player {seat + 1}"

    def _check(self) -> None:
        """Raise :class:`StandingError` unless the standing can be a state of the game of its
        rules, as far as it can be told without the game's table (module docstring)."""
        target = self.rules.target
        values: dict[str, Any] = {"me": self.me, "opp": list(self.others), "target": target}
        if self.players == 2:
            values["opp"] = self.others[0]
        if self.me >= target:
            raise StandingError(f"your total {self.me} is at or above the target {target}: the "
                                f"game is over (the target is the variant target=N)",
                                subject="me", kind="game_over", values=values)
        reached = [seat for seat in range(1, self.players) if self.totals[seat] >= target]
        if self.sudden:
            if reached:
                raise StandingError(f"in sudden death nobody is at the target {target}: the "
                                    f"first to reach it has won ({self.whose(reached[0])} is "
                                    f"{self.totals[reached[0]]})", subject="sudden",
                                    kind="sudden_at_target",
                                    values={**values, "player": reached[0] + 1,
                                            "total": self.totals[reached[0]]})
            return
        if not self.final:
            if reached:
                seat = reached[0]
                who = ("the opponent's total" if self.players == 2
                       else f"player {seat + 1}'s total")
                mine = "your final turn" if self.players == 2 else "a final turn"
                raise StandingError(f"{who} {self.totals[seat]} is at or above the target "
                                    f"{target}: this is {mine}", subject="opp",
                                    kind="final_turn", values=values)
            return
        if self.players == 2 and not reached:
            raise StandingError(f"a final turn comes after the opponent reached the target "
                                f"{target}: their total must be at least {target}, not "
                                f"{self.others[0]}", subject="opp", kind="not_final",
                                values=values)
        if self.trigger is not None:
            early = [seat for seat in reached if seat < self.trigger]
            if early:
                raise StandingError(
                    f"player {self.trigger + 1} reached the target {target} first, so player "
                    f"{early[0] + 1}, whose final turn comes after yours, is below it: not "
                    f"{self.totals[early[0]]}", subject="opp", kind="final_round",
                    values={**values, "trigger": self.trigger + 1, "early": early[0] + 1,
                            "total": self.totals[early[0]]})

    def as_dict(self) -> dict[str, Any]:
        """The standing as the answers' JSON gives it (``me``, ``opp`` the next player's total,
        ``others`` the rest, ``final``; ``trigger`` and ``sudden`` when given, the trigger
        numbered as the question numbers it: the player, from the mover's 1)."""
        out: dict[str, Any] = {"me": self.me, "opp": self.others[0], "final": self.final}
        if self.players > 2:
            out["others"] = list(self.others[1:])
        if self.trigger is not None:
            out["trigger"] = self.trigger + 1
        if self.sudden:
            out["sudden"] = True
        return out


__all__ = ["MAX_PLAYERS", "Standing", "StandingError"]
