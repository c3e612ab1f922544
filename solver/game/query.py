"""What a game table answers about a standing (:class:`~solver.rules.standing.Standing`): its
state, every seat's probability of winning there, and the utilities of the mover's turn (the
advisor's objective) and of every other seat's (their probabilities under the mover's play).

A standing's state: normal play, sudden death, or the final round's phase of its trigger
(:mod:`.seats`: ``final{r}`` when the trigger is seat ``r`` from the mover: the players
between the mover and the trigger have their final turns still to play, those after it have
played theirs). The trigger is the standing's, or read from the totals: the first of the
others, in seat order, at or above the target, unless one before it may have reached the
target first and been pushed back by an island played after theirs (then the standing must
say which: :func:`_pushed_back_to`). When nobody is at the target, Skull Island
pushed the trigger back during the final round; that needs a final turn played after the
trigger's, so the trigger is one of the others but the last, and whichever of them the
table's final round holds (with three players, always the first of the others); where the
totals leave two possible, the standing must say which.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import FloatArray, IntArray, Objective, solve_turn
from ..rules.rulebook import CARDS, Card, Rules
from .model import UNIT, GameError, GameUtility, TurnUtility, deck
from .seats import NORMAL, SUDDEN, final_name

if TYPE_CHECKING:
    from ..rules.standing import Standing
    from .table import GameTable


def state_of(table: Any, standing: Standing) -> tuple[str, int]:
    """The phase and index of the state of `standing` in `table`'s game (a
    :class:`~.table.GameTable`, or a near-optimal game's seats), or a
    :class:`~solver.rules.standing.StandingError` saying what is wrong with it: the standing
    was checked against its rules when made, this checks what needs the table."""
    rules: Rules = table.rules
    target = rules.target
    players = standing.players
    if standing.rules != rules:
        raise ValueError("a standing of other rules than the table's")
    if players != table.players:
        raise GameError(f"this table is of {table.players} players, not {players}",
                        subject="opp", kind="players",
                        values={"players": players, "table": table.players})
    totals = list(standing.totals)
    values: dict[str, Any] = {"me": standing.me, "opp": list(standing.others),
                              "target": target}
    seats = table.seats
    units = np.array([totals]) // UNIT
    if standing.sudden:
        return SUDDEN, int(seats.phases[SUDDEN].encode(units)[0])
    if not standing.final:
        return NORMAL, int(seats.phases[NORMAL].encode(units)[0])
    reached = [i for i, x in enumerate(standing.others, 1) if x >= target]
    if standing.trigger is not None:
        trigger = standing.trigger
    elif reached:
        trigger = reached[0]
        # or one before it below the target, pushed back by a Skull Island played after
        # theirs (not by the player at the target: it scored on its final turn)
        pushed = [r for r in range(1, trigger)
                  if bool(seats.phases[final_name(r)].contains(units)[0])
                  and totals[r] >= _pushed_back_to(standing, r, seats.n_ded)[0]]
        if pushed:
            raise GameError(f"player {trigger + 1} has reached the target {target}, but player "
                            f"{pushed[0] + 1} may have reached it first and been pushed back "
                            f"by Skull Island: these totals do not say who reached it first "
                            f"(player {' or '.join(str(r + 1) for r in [*pushed, trigger])})",
                            subject="opp", kind="which_trigger",
                            values={**values, "seats": [r + 1 for r in [*pushed, trigger]],
                                    "at": trigger + 1})
    else:  # pushed back by Skull Island: a seat with a final turn played after it
        pushed = [r for r in range(1, players - 1)
                  if bool(seats.phases[final_name(r)].contains(units)[0])]
        if not pushed:
            raise GameError(f"a final turn comes after another player reached the target "
                            f"{target}: nobody has, and no player with a final turn played "
                            f"after theirs is near enough to it to have been pushed back by "
                            f"Skull Island", subject="opp",
                            kind="not_final", values=values)
        if len(pushed) > 1:
            raise GameError(f"nobody is at the target {target}: Skull Island pushed the "
                            f"trigger back, and these totals do not say who it was (player "
                            f"{pushed[0] + 1} or {pushed[-1] + 1})",
                            subject="opp",
                            kind="which_trigger", values={**values,
                                                          "seats": [r + 1 for r in pushed]})
        trigger = pushed[0]
    low, islands = _pushed_back_to(standing, trigger, seats.n_ded)
    if totals[trigger] < low:
        most = (seats.n_ded - 1) * UNIT
        raise GameError(f"player {trigger + 1} reached the target {target} first, so their "
                        f"total is at least {low}, not {totals[trigger]}: Skull Island deducts "
                        f"at most {most} a turn, and of the final turns played after theirs "
                        f"{islands or 'none'} could have been one (a player at the target "
                        "scored on theirs)", subject="opp", kind="final_round",
                        values={**values, "trigger": trigger + 1, "low": low,
                                "islands": islands, "total": totals[trigger], "most": most})
    phase = seats.phases[final_name(trigger)]
    if not bool(phase.contains(units)[0]):
        high = (seats.high - 1) * UNIT
        raise GameError(f"these totals cannot be a final round of this game (a total is at "
                        f"most {high}, a trigger pushed back by Skull Island at least "
                        f"{phase.lo[trigger] * UNIT})", subject="opp", kind="final_round",
                        values={**values, "high": high, "pushed": phase.lo[trigger] * UNIT})
    return phase.name, int(phase.encode(units)[0])


def resolved(table: Any, standing: Standing) -> Standing:
    """`standing` with its final round's trigger said, where the totals said it (the first
    player at the target, or the one the game's final round holds as pushed back: the answers
    echo it); else `standing` itself."""
    if not standing.final or standing.trigger is not None or standing.players == 2:
        return standing
    from dataclasses import replace

    phase, _ = state_of(table, standing)
    return replace(standing, trigger=table.seats.phases[phase].remaining)


def _pushed_back_to(standing: Standing, trigger: int, n_ded: int) -> tuple[int, int]:
    """The least total of the trigger (seat `trigger` from the mover) in the final round of
    `standing`, and the final turns played after theirs that could have been Skull Island:
    those of the players after it below the target (one at or above it scored on its final
    turn: it was below the target before, or it would have reached it first)."""
    target = standing.rules.target
    islands = sum(1 for x in standing.totals[trigger + 1:] if x < target)
    return max(0, target - islands * (n_ded - 1) * UNIT), islands


class SeatUtility(Objective):
    """Another seat's probability of winning after each ending of the mover's turn (pirate
    magic: the mover wins, this seat does not)."""

    def __init__(self, utility: TurnUtility, key: tuple[object, ...]) -> None:
        self.utility = utility
        self._key = key

    def of_points(self, points: IntArray) -> FloatArray:
        u = self.utility
        out: FloatArray = u.points[np.asarray(points) // UNIT - u.k_min]
        return out

    def of_magic(self, points: IntArray) -> FloatArray:
        return np.zeros((np.asarray(points).shape[0], self.utility.points.shape[1]))

    def of_island(self, deduction: IntArray) -> FloatArray:
        out: FloatArray = self.utility.island[np.asarray(deduction) // UNIT]
        return out

    def key(self) -> tuple[object, ...]:
        return self._key


def utilities(table: GameTable, phase: str, index: int) -> list[Objective]:
    """Every seat's objective for the mover's turn at the state: the mover's (seat 0, a
    :class:`~.model.GameUtility`: its moves maximise it), then each other seat's
    (:class:`SeatUtility`)."""
    seats = table.seats
    points, island = seats.successors(phase, np.array([index], dtype=np.int64))
    Z = table.stacked(np.concatenate([points.ravel(), island.ravel()]))  # (those phases)
    players = table.players
    out: list[Objective] = []
    for seat in range(players):
        frame = (seat - 1) % players  # seat j of the next state is this state's seat j + 1
        u = TurnUtility(seats.k_min, Z[points[:, 0], frame][:, None],
                        Z[island[:, 0], frame][:, None])
        key = ("win", players, phase, index, seat, table.rules.hash)
        out.append(GameUtility(u, key=key) if seat == 0 else SeatUtility(u, key=key))
    return out


def card_chances(table: GameTable, phase: str, index: int, cards: Sequence[Card] | None = None, *,
                 seats: int | None = None) -> dict[str, FloatArray]:
    """Per card (the deck's, or `cards`): every seat's probability of winning once the mover
    has drawn it (the mover's best turn, the others' under it); the first `seats` seats only
    when given (1: the mover's)."""
    objectives = utilities(table, phase, index)[:seats]
    rules = table.rules.turn_rules()
    out = {}
    for card in cards or [CARDS[c] for c in deck(table.n_dice)]:
        best = solve_turn(card, rules, objectives[0], n_dice=table.n_dice)
        chances = [float(best.turn_value[0])]
        for objective in objectives[1:]:
            evaluated = solve_turn(card, rules, objective, policy=best.policy(),
                                   n_dice=table.n_dice)
            chances.append(float(evaluated.turn_value[0]))
        out[card.id] = np.array(chances)
    return out
