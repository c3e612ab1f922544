r"""A certified bound on the game values of a phase, from the residual of the iterate.

**The residual.**  Write the phase's equations as ``x = F(x)``, ``x`` the game values ``W`` and
every turn's position values ``V`` (module doc of :mod:`.iterate`; one plain Jacobi sweep is
``F``). At the converged iterate ``x̂`` one more sweep gives ``r = F(x̂) - x̂``; every component
of ``r`` is at most :math:`\rho` (the kernel's largest change, and the change of ``W`` computed
from the old position values), plus :data:`FP_MARGIN` for the rounding of the sweep.

**From the residual to the error.**  Split each state into the mover's win probability ``W``
and its complement ``1 - W``: ``F`` becomes monotone, a maximum over the mover's moves at the
positions of ``W``'s player and a minimum at the other's, of affine maps with non-negative
coefficients that sum to at most 1. For any fixed point ``x*`` (the game's value is one) and
``e = x̂ - x*``, ``F(x̂) - F(x*) <= A_σ e`` where ``σ`` plays the greedy moves of ``x̂`` (the
policy ``π̂``) for one player and the moves of ``x*`` for the other; so
``e <= A_σ e + ρ`` and, when the chain ``A_σ`` ends with probability one,
:math:`e \le \rho\, \mathbb{E}_\sigma[\text{nodes visited}]`; the other side is the same with
the players swapped. Nodes are the turn starts and the positions after each roll.

**Bounding the visits: a Lyapunov function.**  The chain is a game where one player (F) plays
``π̂`` and the other (X) plays anything, X perhaps trying to make it last. With ``f`` F's total:

* a turn of either player visits at most ``1 + R̄`` nodes on average: every reroll rolls at
  least 2 dice and adds a skull with probability at least 11/36, the turn ends at the third
  skull, the Sorceress can take one back once (one roll of her own): ``R_c = 1 + σ_c +
  (3 - skulls_c + σ_c) · 36/11`` rolls for card ``c``, averaged over the deck (:func:`rolls_bound`);
* X's turn cannot lower ``f`` but by Skull Island: ``q̄`` units on average (the deck-weighted
  expected deduction);
* F's turn raises ``f`` by at least ``μ(f, g)`` on average, in this sense: ``μ`` is a lower
  bound on the expectation under ``π̂`` of ``φ_f(k) = clip(k, -f, n - f) + λ [f + k >= n]``
  (the progress capped at the target and floored at 0, plus :data:`REACH` units ``λ`` for
  reaching the target; pirate magic: ``n - f + λ``; Skull Island and a bust of nothing: 0),
  obtained by :data:`PSI_SWEEPS` sweeps of policy evaluation from the constant
  ``-min(f, -k_min)``, a sub-solution: each sweep of the monotone operator stays below the
  exact value.

With ``μ_min = min μ > q̄``, ``α = 2 (1 + R̄) / (μ_min - q̄)`` and ``β = λ α``, the functions
``L_X(f) = α (n - f) + β`` (X to move) and ``L_F(f) = L_X(f) - (1 + R̄) - α q̄`` (F to move,
required non-negative), both 0 once the phase is over, satisfy ``L >= 1 + R̄ + E[L(next)]``
at every state (for F's turn the expectation of ``L_X(f')`` is exactly
``α (n - f) + β - α E[φ_f]``), so they bound the expected number of nodes from every state:
``|W_table - W*| <= (α (n + λ)) ρ + ε_tail`` where ``ε_tail`` bounds the phase's tail (normal
play: the final-turn and sudden-death values, reached at most once). The bound holds for every
fixed point, so it needs no uniqueness argument.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine import FloatArray, kernel
from ..engine.codes import USED
from ..engine.kernel import LANES, MODE_POLICY, to_lanes
from ..rules.rulebook import BUST_SKULLS
from .iterate import (
    BellmanPass,
    Moves,
    PhaseState,
    bellman_at,
    deck_value,
    turn_value,
    utilities,
)

FP_MARGIN = 1e-13
"""Rounding allowance of one sweep: a turn value is a sum of at most a few hundred products
of numbers in [0, 1] after eight levels of six-term sums (below 5e-14 in all); the game value
sums eleven of them."""
PSI_SWEEPS = 8
"""Sweeps of the policy evaluation that bounds the progress of a turn from below."""
REACH = 5.0
"""λ: the progress is counted with a bonus of λ units for reaching the target (the
Lyapunov function jumps by β = λ α there)."""
SKULL_STEP = 36 / 11
"""Expected rerolls until one adds a skull: each rolls at least 2 dice, 1 - (5/6)**2 = 11/36."""


@dataclass(frozen=True)
class PhaseCertificate:
    """What :func:`certify` proved about one phase (see the module doc)."""

    bound: float
    """max |table - exact| over the phase's game values (inf when not proved)."""
    residual: float
    """The largest component of the residual of the certification sweep (rounding included)."""
    visits: float
    """The bound on the expected number of nodes visited from any state (α n + β)."""
    progress: float
    """μ_min: the least expected progress of a turn of the greedy policy (units)."""
    island: float
    """q̄: the expected Skull Island deduction of a turn (units)."""
    rolls: float
    """R̄: the bound on the expected rolls of a turn."""
    tail: float
    """The bound on the phase's tail values (0 for sudden death)."""
    sweeps: int
    """Sweeps the certificate took (the residual sweep and the policy evaluation)."""


def rolls_bound(state: PhaseState) -> float:
    """R̄: the deck-weighted bound on the expected number of rolls of a turn, for any play."""
    total = 0.0
    for card, weight in state.gm.weights.items():
        c = state.gm.cards[card].model.card
        sigma = 1 if c.sorceress else 0
        total += weight * (1 + sigma + (BUST_SKULLS - c.skulls + sigma) * SKULL_STEP)
    return total


def residual(state: PhaseState, tail: FloatArray, bellman: BellmanPass) -> float:
    """The largest component of ``F(x̂) - x̂`` at the iterate ``x̂``: the position values'
    change by one plain sweep (`bellman`, at ``x̂``) and the game values' change from the same,
    old position values. The iterate is left at ``x̂``."""
    u, isl = utilities(state, tail)
    old = {card: turn_value(state, card, state.V[card][ct.model.start_world], u, isl)
           for card, ct in state.gm.cards.items()}
    change = deck_value(state, old) - state.W
    res_w = float(np.max(np.abs(change.reshape(-1)[: state.columns])))
    return max(bellman.residual, res_w)


def greedy_policy(state: PhaseState, bellman: BellmanPass) -> Moves:
    """The greedy moves of the iterate at every position and state (an exact maximum: the
    first keep reaching it, `bellman`'s moves within 0), as kernel codes (rows,
    :data:`STOP`) and Sorceress flags."""
    out: Moves = {}
    for (card, world), (code, sor) in bellman.within(0.0).items():
        st = state.gm.cards[card].st
        pick = np.maximum(code, 0)
        ptr = st.pairs_ptr[:-1][None, :, None]
        rows = st.pairs_row[np.minimum(ptr + pick, st.pairs_row.shape[0] - 1)]
        if st.sor_row.shape[0]:
            sptr = st.sor_ptr[:-1][None, :, None]
            srows = st.sor_row[np.minimum(sptr + pick, st.sor_row.shape[0] - 1)]
            rows = np.where(sor, srows, rows)
        out[(card, world)] = (np.where(code < 0, code, rows).astype(np.int64), sor)
    return out


def progress_bound(state: PhaseState, policy: Moves, sweeps: int = PSI_SWEEPS) -> FloatArray:
    """μ(s) per state (lanes): a lower bound on the expected capped progress of the mover's
    turn under `policy` (module doc), by `sweeps` sweeps of policy evaluation from below."""
    gm = state.gm
    n = gm.n
    f = np.arange(state.columns) // n
    k = np.arange(gm.k_min, gm.k_max + 1)[:, None]
    psi = np.clip(k, -f[None, :], n - f[None, :]).astype(np.float64)
    psi += REACH * (f[None, :] + k >= n)
    table = np.vstack([psi, (n - f + REACH)[None, :].astype(np.float64)])  # magic row last
    u = to_lanes(table, LANES)
    floor = to_lanes(-np.minimum(f, -gm.k_min).astype(np.float64), LANES)
    isl = np.zeros((state.chunks, gm.n_ded, LANES))  # F's own Skull Island: f unchanged
    per_card = {}
    for card, ct in gm.cards.items():
        values = {w: np.broadcast_to(floor[:, None, :], state.V[card][w].shape).copy()
                  for w in ct.model.worlds}
        e = np.empty((state.chunks, ct.st.n_rows + 1, LANES))
        for _ in range(sweeps):
            q_used = None
            for world in ct.model.worlds:
                code, sor = policy[(card, world)]
                q = np.empty_like(e)
                kernel.sweep(MODE_POLICY, values[world], e, q, u, ct.worlds[world], ct.st, 0,
                             ct.st.max_skulls, code=code, sor=sor,
                             q_used=q_used if q_used is not None else q, parallel=True)
                if world == USED:
                    q_used = q
        per_card[card] = turn_value(state, card, values[ct.model.start_world], u, isl)
    return deck_value(state, per_card)


def certify(state: PhaseState, tail: FloatArray, *, tail_bound: float,
            bellman: BellmanPass | None = None) -> PhaseCertificate:
    """Bound the distance of the converged iterate's game values to every fixed point (module
    doc), from a plain Bellman sweep at it (`bellman`, with its moves within 0; made here when
    not given). The iterate is left as it was."""
    if bellman is None:
        bellman = bellman_at(state, tail, (0.0,))
    policy = greedy_policy(state, bellman)  # the moves of the residual sweep's maxima
    rho = residual(state, tail, bellman) + FP_MARGIN
    mu = progress_bound(state, policy) - FP_MARGIN * state.gm.n
    mu_min = float(np.min(mu.reshape(-1)[: state.columns]))
    deductions = state.gm.island_deductions()
    q_bar = float(sum(d * p for d, p in enumerate(deductions.tolist())))
    r_bar = rolls_bound(state)
    sweeps = 1 + PSI_SWEEPS
    if not mu_min > q_bar:
        return PhaseCertificate(np.inf, rho, np.inf, mu_min, q_bar, r_bar, tail_bound, sweeps)
    alpha = 2 * (1 + r_bar) / (mu_min - q_bar)
    beta = REACH * alpha
    visits = alpha * state.gm.n + beta
    if alpha * (REACH - q_bar) < 1 + r_bar:  # L_F = α (n - f) + β - 1 - R̄ - α q̄ >= 0
        return PhaseCertificate(np.inf, rho, np.inf, mu_min, q_bar, r_bar, tail_bound, sweeps)
    return PhaseCertificate(visits * rho + tail_bound, rho, visits, mu_min, q_bar, r_bar,
                            tail_bound, sweeps)

