"""One way to ask a solved game, whatever its number of players (:class:`GameTable`).

Two tables implement it: the two-player game (:class:`solver.game.GameSolution`, solved by the
certified two-player route) and the game of three players and more as read from its file
(:class:`solver.tables.game.NGameTable`). A caller asks for a position's objectives and
chances with the mover's total and the others' in seat order, or for the win policy of whole
simulated games, and never needs to know which.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..engine import Objective
    from ..rules.rulebook import Rules
    from .winplay import WinPlay


class GameTable(Protocol):
    """A solved game of :attr:`players` players under :attr:`rules`.

    A position is the mover's total `me` and every other player's, `others`, in seat order
    after the mover (points); `final` says that a player has reached the target and the final
    round is being played. A position the game cannot have is a
    :class:`~solver.game.GameError` saying why.
    """

    @property
    def rules(self) -> Rules: ...

    @property
    def players(self) -> int: ...

    @property
    def n_dice(self) -> int: ...

    @property
    def exact(self) -> bool:
        """Whether the table's values are the game's, to within its proved bounds (its
        players' best play), rather than those of a near-optimal method with a measured
        loss."""
        ...

    @property
    def method(self) -> str:
        """How the table was solved, in a few words (the JSON's ``method``)."""
        ...

    @property
    def loss(self) -> dict[str, Any] | None:
        """Near-optimal play: what was measured of its loss (the JSON's ``loss``); None for
        an exact table."""
        ...

    def objectives(self, me: int, others: Sequence[int], *,
                   final: bool = False) -> tuple[Objective, ...]:
        """The engine objectives of the mover's turn: the mover's own (its best moves
        maximise it), then, with three players or more, each other seat's (its chance of
        winning after each ending). With two players there is only the mover's: the other
        player's chance is its complement."""
        ...

    def chances(self, me: int, others: Sequence[int], *,
                final: bool = False) -> tuple[tuple[float, ...], dict[str, float]]:
        """Every seat's probability of winning with the mover about to draw, in seat order
        from the mover, and the mover's once it has drawn each card of the deck."""
        ...

    def win_play(self) -> WinPlay:
        """The win policy as moves, for whole simulated games (:mod:`.winplay`)."""
        ...


def how_solved(exact: bool, method: str, loss: dict[str, Any] | None) -> dict[str, Any]:
    """The JSON of how a game table was made (a win answer's ``game``): ``exact``, the
    ``method``, and for near-optimal play its measured ``loss`` (null: nothing measured)."""
    return {"exact": exact, "method": method, **({} if exact else {"loss": loss})}


def check_position(rules: Rules, me: int, others: Sequence[int], *, final: bool = False) -> None:
    """Raise :class:`~solver.game.GameError` for a position no game of `rules` has, before its
    table is read or solved: what can be said without the table (the two-player game checks
    it all here; a game of three players and more also checks what needs its table's point
    range when it is asked, :func:`solver.game.query.state_of`)."""
    from .model import GameError, check_totals
    from .seats import MAX_PLAYERS

    players = 1 + len(others)
    if not 2 <= players <= MAX_PLAYERS:
        raise GameError(f"the game is for 2 to {MAX_PLAYERS} players, not {players}",
                        subject="opp", kind="player_count",
                        values={"players": players, "least": 2, "most": MAX_PLAYERS})
    if players == 2:
        check_totals(rules, me, others[0], final=final)
    else:
        from .model import check_totals_of

        check_totals_of(rules, me, others, final=final)
