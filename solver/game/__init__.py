"""Playing to win: the game of 2 to 5 players, its states and its solvers (no table I/O).

- :mod:`.seats`: the game of any number of players as data: every phase's states and where
  each ending of a turn leads;
- :mod:`.model`: every card's turn in the game (the deck, the point range, a state's utility);
- :mod:`.table`: one way to ask a solved game, whatever its players (:class:`GameTable`);
- :mod:`.query`: a position's state, its seats' objectives and its chances per card.

Two players, solved exactly by value iteration with a proof (the fast route for ``N = 2``):

- :mod:`.final`: the final turn, by deficit (the engine's certified layered solve);
- :mod:`.iterate`: the batched iteration of a phase (normal play, sudden death);
- :mod:`.certify`: the proven bound of a phase, from the residual;
- :mod:`.solve`: the three phases in order (:class:`GameSolution`).

Any number of players, by policy iteration on the turns (:mod:`.nsolve`; the same bytes as the
two-player route at ``N = 2``):

- :mod:`.turns`: every state's best turn, from the value table;
- :mod:`.evaluate`: a phase's values under fixed turns;
- :mod:`.cycles`: states where best responses go round in a cycle;
- :mod:`.records`: what a solve records, proves and checkpoints;
- :mod:`.cluster`: the improvements on a Dask cluster.

And the policies of whole simulated games (:mod:`.policies`, :mod:`.profiles`). The tables are
read and written by :mod:`solver.tables.game`.
"""

from .final import FinalTable, solve_final
from .iterate import ProgressFn
from .model import (
    UNIT,
    GameError,
    GameModel,
    GameUtility,
    Lookup,
    TurnUtility,
    check_totals,
    deck,
    final_values,
    game_model,
    lookup,
    point_range,
    tail_rows,
)
from .seats import FINAL, NORMAL, SUDDEN, PointRange
from .solve import GameSolution, solve_game, state_utility, win_objective, win_probability

__all__ = [
    "FINAL",
    "NORMAL",
    "SUDDEN",
    "UNIT",
    "FinalTable",
    "GameError",
    "GameModel",
    "GameSolution",
    "GameUtility",
    "Lookup",
    "PointRange",
    "ProgressFn",
    "TurnUtility",
    "check_totals",
    "deck",
    "final_values",
    "game_model",
    "lookup",
    "point_range",
    "solve_final",
    "solve_game",
    "state_utility",
    "tail_rows",
    "win_objective",
    "win_probability",
]
