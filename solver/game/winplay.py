"""The win policy as moves, for whole simulated games (:meth:`.table.GameTable.win_play`).

A simulator of whole games (:mod:`solver.strategy.games`) keeps, for every game, the kind of
its phase (:data:`NORMAL_KIND`, :data:`FINAL_KIND`, :data:`SUDDEN_KIND`), the final turns left
and every seat's total seen from the mover (its *frame*: the mover first, then the others in
seat order). A :class:`WinPlay` finds those states in its table (:meth:`WinPlay.locate`: a
phase code and a column), gets their turns ready (:meth:`WinPlay.prepare`) and gives the moves
at the positions met (:meth:`WinPlay.moves`, as every policy of the turn simulator does).

- :class:`TableWinPlay`: each state's turn solved from the table's values (by the kernel's
  one tie rule) the first time a game meets it, for every state of a round of turns at once;
- :class:`ReducedWinPlay`: the same from near-optimal play's utilities (:mod:`.reduced`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..engine import NO_MOVE, STOP, TIE_TOL, FloatArray, IntArray, kernel
from ..engine.codes import UNUSED, USED
from ..engine.kernel import from_lanes, to_lanes
from ..engine.results import PolicyMoveError
from ..engine.solve import solve_layers
from ..rules.aims import WIN
from .model import game_model
from .policies import SORCERESS_CODE, actual_keep, orbit_of_positions
from .records import FINAL_TOL
from .seats import NORMAL, SUDDEN, final_name
from .turns import mover_utilities

if TYPE_CHECKING:
    from .table import GameTable

NORMAL_KIND, FINAL_KIND, SUDDEN_KIND = 0, 1, 2
"""The kind of a game's phase, as a simulator of whole games keeps it."""


class WinPlay(Protocol):
    """The win policy of a game table, as the turn simulator's policies are (module doc)."""

    name: str
    players: int

    def locate(self, frame: IntArray, kind: IntArray, left: IntArray) -> tuple[IntArray,
                                                                              IntArray]:
        """(phase code, column) of each state: totals `frame` (units, the mover first), its
        phase `kind` and the final turns `left` (the mover's included)."""
        ...

    def prepare(self, phase: IntArray, column: IntArray, cards: Sequence[str]) -> None:
        """Get the turns of the states (`phase`, `column`) ready for their `cards`."""
        ...

    def moves(self, card: str, world: int, phase: int, position: IntArray,
              column: IntArray) -> tuple[IntArray, Any]:
        """(the partial index of the dice kept, or -1 to stop; uses the Sorceress)."""
        ...


class TableWinPlay:
    """The turn at each state met, solved from a game table (module doc)."""

    name: str = WIN

    def __init__(self, table: GameTable) -> None:
        self.table: Any = table
        self.players: int = table.players
        self.rules = table.rules.turn_rules()
        self.gm = game_model(table.rules, table.n_dice)
        self.seats = table.seats
        self.names = list(self.seats.phases)
        self.code = {name: code for code, name in enumerate(self.names)}
        self.Z = table.stacked()
        self.moves_of: dict[tuple[int, int, str], dict[int, np.ndarray]] = {}

    def locate(self, frame: IntArray, kind: IntArray, left: IntArray) -> tuple[IntArray,
                                                                              IntArray]:
        phase = np.zeros(frame.shape[0], dtype=np.int64)
        column = np.zeros(frame.shape[0], dtype=np.int64)
        label = np.where(kind == NORMAL_KIND, 0, np.where(kind == SUDDEN_KIND, -1, left))
        for one in np.unique(label).tolist():
            sel = np.flatnonzero(label == one)
            name = NORMAL if one == 0 else SUDDEN if one == -1 else final_name(one)
            phase[sel] = self.code[name]
            column[sel] = self.seats.phases[name].encode(frame[sel])
        return phase, column

    def prepare(self, phase: IntArray, column: IntArray, cards: Sequence[str]) -> None:
        """Solve the turns not solved yet of states (`phase`, `column`) for their `cards`."""
        want: dict[tuple[str, int], list[int]] = {}
        for p, s, c in zip(phase.tolist(), column.tolist(), cards, strict=True):
            if (p, s, c) not in self.moves_of:
                want.setdefault((c, p), []).append(s)
        # every state's utilities once, whatever its cards
        states_of: dict[int, list[int]] = {}
        for (_, p), states in want.items():
            states_of.setdefault(p, []).extend(states)
        columns: dict[tuple[int, int], FloatArray] = {}
        for p, states in states_of.items():
            index = np.array(sorted(set(states)), dtype=np.int64)
            u, _ = self.utilities(self.names[p], index)
            for j, s in enumerate(index.tolist()):
                columns[(p, s)] = u[:, j]
        with kernel.compiled_whenever_installed():
            for (card, p), states in want.items():
                index = np.array(sorted(set(states)), dtype=np.int64)
                u = np.stack([columns[(p, s)] for s in index.tolist()], axis=1)
                ul = to_lanes(u)
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

    def utilities(self, name: str, index: IntArray) -> tuple[FloatArray, FloatArray]:
        """The mover's utilities at states `index` of phase `name`, from the table."""
        return mover_utilities(self.seats, name, index, self.Z)

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


class ReducedWinPlay(TableWinPlay):
    """Four or five players on a table of three (:mod:`.reduced`): the turn at each state met,
    solved from the method's utilities."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.players = table.players
        self.rules = table.rules.turn_rules()
        self.gm = game_model(table.rules, table.n_dice)
        self.seats = table.seats
        self.names = list(self.seats.phases)
        self.code = {name: code for code, name in enumerate(self.names)}
        self.moves_of = {}

    def utilities(self, name: str, index: IntArray) -> tuple[FloatArray, FloatArray]:
        out: tuple[FloatArray, FloatArray] = self.table.utilities(name, index)
        return out


__all__ = ["FINAL_KIND", "NORMAL_KIND", "SUDDEN_KIND", "ReducedWinPlay", "TableWinPlay",
           "WinPlay"]
