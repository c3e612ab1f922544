"""Playing to win: the game of 2 to 5 players, its one solver and its one table (no table I/O).

The way through, in order:

- :mod:`.seats`: the game as data: every phase's states and where each ending of a turn leads;
- :mod:`.model`: every card's turn in the game (the deck, the point range, a state's utility);
- :mod:`.solve`: :func:`solve_game`, the one solver: policy iteration on the turns, every
  phase in order; its improvements (:mod:`.turns`), evaluations (:mod:`.evaluate`), cycles of
  best responses (:mod:`.cycles`) and records (:mod:`.records`), its improvements on a Dask
  cluster (:mod:`.cluster`); two players' first values from value iteration (:mod:`.iterate`),
  certified (:mod:`.certify`);
- :mod:`.table`: :class:`GameTable`, the one table, what the solver returns and the file gives
  back; :class:`Game`, what playing to win asks of a game; :mod:`.query`, a standing's state,
  its seats' objectives and its chances per card;
- :mod:`.winplay`: the win policy as the moves of whole simulated games; :mod:`.profiles`:
  every seat's exact chance under a profile of ways to play;
- :mod:`.reduced`: four and five players without an exact table: near-optimal play on the
  table of three.

The question is a :class:`solver.rules.standing.Standing`; the tables are read and written by
:mod:`solver.tables.game`.
"""

from .model import (
    UNIT,
    GameError,
    GameModel,
    GameUtility,
    Lookup,
    TurnUtility,
    deck,
    game_model,
    lookup,
    point_range,
)
from .records import PhaseRecord, Progress, ProgressFn
from .seats import FINAL, NORMAL, SUDDEN, PointRange
from .solve import solve_game
from .table import Chances, Game, GameTable, how_solved

__all__ = [
    "FINAL",
    "NORMAL",
    "SUDDEN",
    "UNIT",
    "Chances",
    "Game",
    "GameError",
    "GameModel",
    "GameTable",
    "GameUtility",
    "Lookup",
    "PhaseRecord",
    "PointRange",
    "Progress",
    "ProgressFn",
    "TurnUtility",
    "deck",
    "game_model",
    "how_solved",
    "lookup",
    "point_range",
    "solve_game",
]
