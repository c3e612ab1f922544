"""The turn engine: the model of a card's turn, the one turn kernel, and the certified solve.

- :mod:`.positions`: positions, partial positions, the roll distribution (rules-independent,
  :func:`geometry`);
- :mod:`.codes`: the engine's numbers without numpy (worlds, policy codes, the index of a
  partial position), for the readers of a table;
- :mod:`.model`: one card's rules tabulated per world, legality included (:func:`turn_model`);
- :mod:`.rows`: the rows the kernel sweeps (partial positions, or their orbits, :func:`structure`);
- :mod:`.objectives`: utilities of a turn's endings (:class:`ExpectedPoints`, :class:`AtLeast`);
- :mod:`.kernel`: the Bellman sweep, compiled with numba (:mod:`.kernel_numba`), with its
  numpy reference (:mod:`.kernel_numpy`);
- :mod:`.forward`: the probabilities of a turn's endings under a policy;
- :mod:`.results`: what a solve returns (values, policy, how exact), light for the readers;
- :mod:`.solve`: layer-by-layer value iteration to a certified bound (:func:`solve_turn`);
- :mod:`.exact`: the exact values as fractions, proved optimal by exact policy iteration from
  the float policy (:func:`exact_turn`, :func:`solve_exact`);
- :mod:`.stats`: how a turn ends under a policy (bust, Skull Island, deduction).
"""

from __future__ import annotations

# The names are the submodules' own, imported on first use (PEP 562): reading a table and
# answering from it (the advisor's cold start) imports neither numpy, the kernel nor the exact
# solver. No submodule has the name of a function of the package (a submodule's import sets
# the package's attribute of its name): `geometry` is in `.positions`, `structure` in `.rows`.
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .codes import NO_MOVE, STOP, TIE_TOL, UNUSED, USED, WORLD_NAMES
    from .exact import (
        ExactPayoff,
        ExactSolution,
        ExactWorld,
        exact_from,
        exact_payoff,
        exact_turn,
        solve_exact,
    )
    from .model import (
        TurnModel,
        symmetries,
        turn_model,
    )
    from .objectives import (
        AtLeast,
        ExpectedPoints,
        Objective,
        Payoff,
        Stacked,
        payoff_for,
    )
    from .positions import (
        BoolArray,
        FloatArray,
        Geometry,
        IntArray,
        geometry,
    )
    from .results import (
        Policy,
        ProofRecord,
        TurnSolution,
        WorldSolution,
    )
    from .rows import TurnStructure, structure
    from .solve import (
        BETA,
        DEFAULT_TOL,
        MAX_SWEEPS,
        ConvergenceError,
        finite_horizon_values,
        first_values,
        roll_expectation,
        solve_cards,
        solve_payoff,
        solve_payoffs,
        solve_turn,
    )

_WHERE = {
    "ExactPayoff": "exact",
    "ExactSolution": "exact",
    "ExactWorld": "exact",
    "ProofRecord": "results",
    "exact_from": "exact",
    "exact_payoff": "exact",
    "exact_turn": "exact",
    "solve_exact": "exact",
    "BoolArray": "positions",
    "FloatArray": "positions",
    "Geometry": "positions",
    "IntArray": "positions",
    "geometry": "positions",
    "NO_MOVE": "codes",
    "STOP": "codes",
    "Policy": "results",
    "TurnSolution": "results",
    "WorldSolution": "results",
    "UNUSED": "codes",
    "USED": "codes",
    "WORLD_NAMES": "codes",
    "TurnModel": "model",
    "symmetries": "model",
    "turn_model": "model",
    "AtLeast": "objectives",
    "ExpectedPoints": "objectives",
    "Objective": "objectives",
    "Payoff": "objectives",
    "payoff_for": "objectives",
    "Stacked": "objectives",
    "BETA": "solve",
    "DEFAULT_TOL": "solve",
    "MAX_SWEEPS": "solve",
    "TIE_TOL": "codes",
    "ConvergenceError": "solve",
    "finite_horizon_values": "solve",
    "first_values": "solve",
    "roll_expectation": "solve",
    "solve_cards": "solve",
    "solve_payoff": "solve",
    "solve_payoffs": "solve",
    "solve_turn": "solve",
    "TurnStructure": "rows",
    "structure": "rows",
}

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
    "Stacked",
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
    "solve_payoffs",
    "solve_turn",
    "structure",
    "symmetries",
    "turn_model",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
