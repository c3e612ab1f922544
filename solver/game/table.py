"""The solved game: one table type for any number of players (:class:`GameTable`), and what
playing to win asks of a game (:class:`Game`), whether its table is exact or near-optimal play
on a smaller one (:mod:`.reduced`).

A :class:`GameTable` is what the solver returns (:func:`.solve.solve_game`) and what the file
gives back (:mod:`solver.tables.game`): every phase's values of every seat, and each phase's
record of how it was solved and what is proved about it (:class:`.records.PhaseRecord`). A
caller asks it about a :class:`~solver.rules.standing.Standing`, the one question: every total
in seat order from the mover, and the round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..engine import FloatArray, IntArray
from ..rules.rulebook import NUM_DICE, Rules
from .records import PhaseRecord
from .seats import PointRange, Seats, seats_of

if TYPE_CHECKING:
    from ..engine import Objective
    from ..rules.standing import Standing
    from .winplay import WinPlay


@dataclass(frozen=True)
class Chances:
    """Every seat's probability of winning with the mover about to draw, in seat order from
    the mover, and the mover's once it has drawn each card of the deck."""

    seats: tuple[float, ...]
    cards: dict[str, float]

    @property
    def mover(self) -> float:
        return self.seats[0]


class Game(Protocol):
    """What playing to win asks of the game of :attr:`players` players under :attr:`rules`: an
    exact :class:`GameTable`, or near-optimal play on a smaller one
    (:class:`.reduced.ReducedTable`). A standing the game cannot have is a
    :class:`~solver.rules.standing.StandingError` saying why."""

    @property
    def rules(self) -> Rules: ...

    @property
    def players(self) -> int: ...

    @property
    def n_dice(self) -> int: ...

    @property
    def exact(self) -> bool:
        """Whether the values are the game's, to within the table's proved bounds (its
        players' best play), rather than those of a near-optimal method with a measured
        error."""
        ...

    @property
    def method(self) -> str:
        """How the values were made, in a few words (the JSON's ``method``)."""
        ...

    @property
    def loss(self) -> dict[str, Any] | None:
        """Near-optimal play: what was measured of its play and of its chances (the JSON's
        ``loss``); None for an exact table."""
        ...

    def objectives(self, standing: Standing) -> tuple[Objective, ...]:
        """The engine objectives of the mover's turn, every seat's in seat order: the mover's
        first (its best moves maximise it), then each other seat's chance of winning after
        each ending of the mover's turn."""
        ...

    def chances(self, standing: Standing) -> Chances:
        """Every seat's probability of winning at `standing`, and the mover's per card."""
        ...

    def seat_values(self, standing: Standing) -> tuple[float, ...]:
        """Every seat's probability of winning at `standing`, in seat order from the mover:
        :meth:`chances` without the cards (an exact table's stored values)."""
        ...

    def win_play(self) -> WinPlay:
        """The win policy as moves, for whole simulated games (:mod:`.winplay`)."""
        ...


METHOD = "policy iteration on the turns, proved bounds"
"""How every exact table is solved (:mod:`.solve`)."""


@dataclass(frozen=True)
class GameTable:
    """A solved game of `players` under `rules` (module docstring): the one table type."""

    rules: Rules
    players: int
    ranges: PointRange
    values: Mapping[str, FloatArray]
    """Per phase (size, N), seat 0 the mover; the rows of :attr:`seats`' phases. Read from a
    file, a phase is decoded when first asked for (:class:`solver.tables.game.LazyPhases`)."""
    records: Mapping[str, PhaseRecord]
    """Per phase, how it was solved and what is proved and measured of it."""
    n_dice: int = NUM_DICE
    compact: bool = True
    """The final round's layout (:attr:`.seats.Seats.compact`; False: the dense layout, the
    tests' reference, never written to a file)."""

    exact = True
    """Its values are those of the equilibrium the solve reaches, to within the proved bounds
    of its records (:mod:`.solve`)."""
    method = METHOD
    loss = None

    @cached_property
    def seats(self) -> Seats:
        """The game's phases and where each ending leads (built once)."""
        return seats_of(self.players, self.ranges, self.rules.target // 100, self.rules.ties,
                        compact=self.compact)

    @property
    def k_min(self) -> int:
        return self.ranges.k_min

    @property
    def k_max(self) -> int:
        return self.ranges.k_max

    @property
    def n_ded(self) -> int:
        return self.ranges.n_ded

    def stacked(self, rows: IntArray | None = None) -> FloatArray:
        """The value table ``Z`` of :mod:`.seats` (every phase, then the terminal rows). Read
        from a file it is read-only, and with `rows` only the phases holding those rows are
        sure to be decoded (the rest of ``Z`` is then undefined): an answer reads the phases
        its turn's endings lead to, not all of them."""
        lazy = getattr(self.values, "table", None)
        if lazy is not None:
            out: FloatArray = lazy(rows)
            return out
        return np.concatenate([*(self.values[p] for p in self.seats.phases),
                               self.seats.terminal])

    def start(self) -> tuple[float, ...]:
        """Every seat's chance from all totals 0, in seat order."""
        return tuple(float(x) for x in self.values["normal"][0])

    def objectives(self, standing: Standing) -> tuple[Objective, ...]:
        """:meth:`Game.objectives`."""
        from .query import state_of, utilities

        phase, index = state_of(self, standing)
        return tuple(utilities(self, phase, index))

    def chances(self, standing: Standing) -> Chances:
        """:meth:`Game.chances`: the state's values, and the mover's best turn after each
        card."""
        from .query import card_chances, state_of

        phase, index = state_of(self, standing)
        cards = {c: float(v[0]) for c, v in card_chances(self, phase, index, seats=1).items()}
        return Chances(self.seat_values(standing), cards)

    def seat_values(self, standing: Standing) -> tuple[float, ...]:
        """:meth:`Game.seat_values`: the state's values."""
        from .query import state_of

        phase, index = state_of(self, standing)
        return tuple(float(x) for x in self.values[phase][index])

    def win_play(self) -> WinPlay:
        """:meth:`Game.win_play`: each state's turn solved from the table when met."""
        from .winplay import TableWinPlay

        return TableWinPlay(self)


def how_solved(game: Game) -> dict[str, Any]:
    """The JSON of how a game's values were made (a win answer's ``game``): ``exact``, the
    ``method``, and for near-optimal play what was measured (``loss``; null: nothing)."""
    return {"exact": game.exact, "method": game.method,
            **({} if game.exact else {"loss": game.loss})}


__all__ = ["METHOD", "Chances", "Game", "GameTable", "how_solved"]
