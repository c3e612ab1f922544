"""The turn engine: the model of a card's turn, the one turn kernel, and the certified solve.

- :mod:`.geometry`: positions, partial positions, the roll distribution (rules-independent);
- :mod:`.model`: one card's rules tabulated per world, legality included (:func:`turn_model`);
- :mod:`.structure`: the rows the kernel sweeps (partial positions, or their orbits);
- :mod:`.objectives`: utilities of a turn's endings (:class:`ExpectedPoints`, :class:`AtLeast`);
- :mod:`.kernel`: the Bellman sweep, compiled with numba, with its numpy reference;
- :mod:`.solve`: layer-by-layer value iteration to a certified bound (:func:`solve_turn`);
- :mod:`.exact`: the exact values as fractions, proved optimal by exact policy iteration from
  the float policy (:func:`exact_turn`, :func:`solve_exact`).
"""

from .exact import (
    ExactPayoff,
    ExactSolution,
    ExactWorld,
    ProofRecord,
    exact_from,
    exact_payoff,
    exact_turn,
    solve_exact,
)
from .geometry import BoolArray, FloatArray, Geometry, IntArray, geometry
from .kernel import NO_MOVE, STOP
from .model import UNUSED, USED, WORLD_NAMES, TurnModel, symmetries, turn_model
from .objectives import AtLeast, ExpectedPoints, Objective, Payoff, payoff_for
from .solve import (
    BETA,
    DEFAULT_TOL,
    MAX_SWEEPS,
    TIE_TOL,
    ConvergenceError,
    Policy,
    TurnSolution,
    WorldSolution,
    finite_horizon_values,
    first_values,
    roll_expectation,
    solve_cards,
    solve_payoff,
    solve_turn,
)
from .structure import TurnStructure, structure

__all__ = [
    "BETA",
    "DEFAULT_TOL",
    "MAX_SWEEPS",
    "NO_MOVE",
    "STOP",
    "TIE_TOL",
    "UNUSED",
    "USED",
    "WORLD_NAMES",
    "AtLeast",
    "BoolArray",
    "ConvergenceError",
    "ExactPayoff",
    "ExactSolution",
    "ExactWorld",
    "ExpectedPoints",
    "FloatArray",
    "Geometry",
    "IntArray",
    "Objective",
    "Payoff",
    "Policy",
    "ProofRecord",
    "TurnModel",
    "TurnSolution",
    "TurnStructure",
    "WorldSolution",
    "exact_from",
    "exact_payoff",
    "exact_turn",
    "finite_horizon_values",
    "first_values",
    "geometry",
    "payoff_for",
    "roll_expectation",
    "solve_cards",
    "solve_exact",
    "solve_payoff",
    "solve_turn",
    "structure",
    "symmetries",
    "turn_model",
]
