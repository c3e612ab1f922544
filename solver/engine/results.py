"""What a turn's solve returns, and what a turn table stores: values, policy, how exact.

Light on purpose (numpy and dataclasses): reading a table and answering from it needs these
types, not the kernel that made them. The policy codes are the kernel's
(:mod:`solver.engine.kernel`): :data:`STOP`, a keep's partial index (a row inside the kernel),
or :data:`NO_MOVE`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..rules.rulebook import NUM_DICE, Rules
from .geometry import BoolArray, FloatArray, IntArray

STOP = -1
"""Policy code for stopping; a keep is coded by its row (or its partial index outside the
kernel); NO_MOVE where nothing is decided (the turn is over)."""
NO_MOVE = -2
TIE_TOL = 1e-11
"""Moves whose values differ by less than this are ties for the policy
(:mod:`solver.engine.solve`, Ties). It is far below the certified bound, so a tie-broken move
loses at most TIE_TOL / (1 - BETA), and far above the rounding of the arithmetic, so the policy
is stable to the last bits. Here, beside the policy codes, for the readers of a solution that
rank its moves as the policy does (:mod:`solver.advice.advisor`)."""


class PolicyMoveError(RuntimeError):
    """A policy asked for a move the rules do not allow, or had none at a live position (a bug
    in a policy, never the player's input)."""


@dataclass(frozen=True)
class WorldSolution:
    """Values and policy of one world (Sorceress used / unused) of one card."""

    value: FloatArray
    """(n_full, B): value of each position after a reroll; NaN where the turn is over."""
    keep_value: FloatArray
    """(n_partial, B): value of keeping partial position (s, K) and rolling the other dice,
    legal or not, the bust payoff included. A Sorceress reroll from s+1 skull dice keeping
    K is worth ``keep_value`` of (s, K) in the used world."""
    policy: IntArray
    """(n_full, B): STOP, the partial index of the best keep, or NO_MOVE."""
    sorceress: BoolArray
    """(n_full, B): whether the best move uses the Sorceress (its keep is then (s-1, K),
    in the used world's keep values)."""


@dataclass(frozen=True)
class TurnSolution:
    """The solved turn of one card under one objective: values, policy, and how exact."""

    card: str
    rules: Rules
    objective: tuple[object, ...]
    worlds: dict[int, WorldSolution]
    first_value: FloatArray
    """(n_full, B): value of each position as the first roll (island and bust included)."""
    turn_value: FloatArray
    """(B,): the value of the turn before the first roll."""
    sweeps: int
    """Value-iteration sweeps over all layers."""
    residual: float
    """Largest final sweep-to-sweep change of a cyclic layer."""
    bound: float
    """Certified bound on |value - exact value| for every value and keep value."""
    n_dice: int = NUM_DICE

    @property
    def start_world(self) -> int:
        return max(self.worlds)

    def policy(self) -> Policy:
        """The solution's policy (column 0), as :func:`solve_payoff` evaluates one."""
        return {w: (ws.policy[:, :1], ws.sorceress[:, :1]) for w, ws in self.worlds.items()}


Policy = dict[int, tuple[IntArray, NDArray[np.bool_]]]
"""Per world: (keep code per position, uses-the-Sorceress per position), column 0 used."""


@dataclass(frozen=True)
class ProofRecord:
    """What the exact check found in the policy it was given (counts of positions)."""

    layer_solves: int
    """Exact solves of a layer, over all layers: one each when the given policy was already
    optimal and tie-broken by the rule, more where policy iteration went on."""
    improved: int
    """Positions where, with the layers after them optimal, a move strictly better than the
    given policy's exists: a choice the given policy got wrong."""
    retied: int
    """Positions where the given move is optimal but exactly tied with the move the tie-break
    rule takes."""
    changed: int
    """Positions whose move in the proved policy differs from the given one."""

    def as_dict(self) -> dict[str, int]:
        return {"layer_solves": self.layer_solves, "improved": self.improved,
                "retied": self.retied, "changed": self.changed}
