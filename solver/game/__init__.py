"""Playing to win: the two-player game, solved exactly.

- :mod:`.model`: the game as data (phases, lookups of each ending, every card's turn);
- :mod:`.final`: the final turn, by deficit (the engine's certified layered solve);
- :mod:`.iterate`: the batched iteration of a phase (normal play, sudden death);
- :mod:`.certify`: the proven bound of a phase, from the residual;
- :mod:`.solve`: the three phases in order, and what the tables answer;
- :mod:`.policies`: the win policy of many states at once (whole simulated games).

The game table is read and written by :mod:`solver.gametables`.
"""

from .final import FinalTable, solve_final
from .iterate import ProgressFn
from .model import (
    FINAL,
    NORMAL,
    SUDDEN,
    UNIT,
    GameError,
    GameModel,
    GameUtility,
    Lookup,
    PointRange,
    TurnUtility,
    check_totals,
    deck,
    final_values,
    game_model,
    lookup,
    point_range,
    tail_rows,
)
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
