"""Solving the game: the three phases in order, each certified, and the questions the tables
answer (the win probability at given totals, the win objective of a turn).

:func:`solve_game` solves the final turn (:mod:`.final`), then sudden death, then normal play
(:mod:`.iterate`), and certifies each (:mod:`.certify`); :class:`GameSolution` is the result,
written and read by :mod:`solver.tables.game` (``game.msgpack``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..engine import TIE_TOL, FloatArray, Objective
from ..rules.rulebook import CARDS, NUM_DICE, Rules, floor_total
from .certify import PhaseCertificate, certify
from .final import FinalTable, solve_final
from .iterate import ProgressFn, bellman_at, iterate, start
from .model import (
    UNIT,
    GameError,
    GameUtility,
    TurnUtility,
    check_totals,
    deck,
    game_model,
    lookup,
    point_range,
)
from .policies import PhasePolicy, final_policy, phase_policy
from .seats import FINAL, NORMAL, SUDDEN

if TYPE_CHECKING:
    from .winplay import StoredWinPlay

DEFAULT_TOL = 1e-12
"""The iteration stops after a plain sweep that moves no value by more than this; the
certificates turn it into a proven bound (about 400 times it at the default target)."""
START = 0.5
"""Every value starts in the middle of [0, 1]."""
FINAL_TOL = 1e-11
"""The final-turn table's certified bound (the engine's layered solve; it is the tail of
normal play, so its bound enters normal play's)."""


@dataclass(frozen=True)
class GameSolution:
    """The two-player tables of one rules object (target and ties included).

    ``win[a, b]``: P(the player about to draw, with ``a`` units against ``b``, wins);
    ``sudden[x, y]``: the same in sudden death; ``final``: the final-turn table.
    """

    rules: Rules
    win: FloatArray
    sudden: FloatArray
    final: FinalTable
    cards: dict[str, FloatArray]
    """Each card's turn value in normal play, (n, n), at value iteration's iterate: ``win`` is
    their deck-weighted sum to within the last step's change
    (``certificates["normal"]["settled"]``)."""
    k_min: int
    k_max: int
    """The least and most points (units) a turn can end with."""
    beyond: FloatArray
    """``G(a', b)``: the trailing player's chance in the final turn when the leader has
    ``a' = n + i`` (row i), Skull Island and sudden death included."""
    sweeps: dict[str, int]
    residual: dict[str, float]
    """Per phase: the largest change of the last plain sweep."""
    certified_bound: dict[str, float]
    """Per phase: a proven bound on |table - exact| (:mod:`.certify`; inf if not proved)."""
    certificates: dict[str, dict[str, float]]
    """Per game phase, the figures of its certificate (visits, progress, ...)."""
    policies: Mapping[str, PhasePolicy]
    """Per phase, the win policy at every state (:mod:`.policies`; a table read from disk
    decodes a phase when first asked for it)."""
    seconds: float
    n_dice: int = NUM_DICE

    @property
    def n(self) -> int:
        return int(self.win.shape[0])

    players = 2
    """The two-player game (:class:`~.table.GameTable`)."""
    exact = True
    """Its values are the game's to within the certified bounds."""
    method = "value iteration, certified bounds"
    loss = None

    def objectives(self, me: int, others: Sequence[int], *,
                   final: bool = False) -> tuple[Objective, ...]:
        """:meth:`.table.GameTable.objectives`: the mover's (:func:`win_objective`)."""
        (opp,) = _opponent(self, others)
        return (win_objective(self, me, opp, final=final),)

    def chances(self, me: int, others: Sequence[int], *,
                final: bool = False) -> tuple[tuple[float, ...], dict[str, float]]:
        """:meth:`.table.GameTable.chances` (:func:`win_probability`)."""
        (opp,) = _opponent(self, others)
        win, cards = win_probability(self, me, opp, final=final)
        return (win, 1.0 - win), cards

    def win_play(self) -> StoredWinPlay:
        """:meth:`.table.GameTable.win_play`: the stored policy of every state."""
        from .winplay import StoredWinPlay

        return StoredWinPlay(self)


def _opponent(sol: GameSolution, others: Sequence[int]) -> tuple[int]:
    if len(others) != 1:
        raise GameError(f"this table is of 2 players, not {1 + len(others)}", subject="opp",
                        kind="players", values={"players": 1 + len(others), "table": 2})
    return (others[0],)


def _figures(cert: PhaseCertificate) -> dict[str, float]:
    return {"bound": cert.bound, "residual": cert.residual, "visits": cert.visits,
            "progress": cert.progress, "island": cert.island, "rolls": cert.rolls,
            "tail": cert.tail}


def _above(x: float) -> float:
    """A bound on the exact difference of two values in [0, 1] whose difference computed in
    floating point is `x` (one rounding of a subtraction)."""
    return x * (1.0 + 2.0 ** -52) + 2.0 ** -53


def solve_game(rules: Rules, *, tol: float = DEFAULT_TOL, n_dice: int = NUM_DICE,
               progress: ProgressFn | None = None, start_value: float = START) -> GameSolution:
    """Solve the final turn, then sudden death, then normal play, each to its certificate, and
    end each phase with the n-player solver's last step (:func:`.nsolve.last_step`: its moves'
    turns, evaluated afresh), so that the table is that solver's with two players, bit for bit.

    Certified: value iteration's iterate is within the certificate's bound of the game's value
    (:mod:`.certify`); the last step moves it by ``settled`` (measured, exactly up to the
    rounding of one subtraction), so the table is within their sum. The final turn past the
    target (``beyond``) is the last step's one-step values: its moves are best to within the
    turn solves' certified precision plus the measured gap, given sudden death's values."""
    from .nsolve import last_step, start_table
    from .records import FINAL_TOL as STEP_TOL
    from .seats import seats_of

    t0 = time.perf_counter()
    gm = game_model(rules, n_dice)
    n = gm.n
    seats = seats_of(2, point_range(rules, n_dice), n, rules.ties)
    Z = start_table(seats)

    def rows(name: str) -> slice:
        return slice(seats.offset(name), seats.offset(name) + seats.phases[name].size)

    def put(name: str, v: FloatArray) -> None:
        flat = np.ascontiguousarray(v, dtype=np.float64).reshape(-1)
        Z[rows(name)] = np.stack([flat, 1.0 - flat], axis=1)

    def mover(name: str) -> FloatArray:
        return np.ascontiguousarray(Z[rows(name), 0])

    final = solve_final(rules, tol=FINAL_TOL, n_dice=n_dice)
    if progress is not None:
        progress("final", final.sweeps, final.residual)
    sudden = start(SUDDEN, gm, lookup(SUDDEN, gm), start_value)
    report_s = iterate(sudden, np.zeros(1), tol=tol, progress=progress)
    # one Bellman sweep at the iterate: the certificate's residual and maxima, the policy
    at_s = bellman_at(sudden, np.zeros(1), (0.0, TIE_TOL))
    cert_s = certify(sudden, np.zeros(1), tail_bound=0.0, bellman=at_s)
    if progress is not None:
        progress("sudden certificate", cert_s.sweeps, cert_s.bound)
    put(SUDDEN, sudden.table())
    policies = {SUDDEN: phase_policy(sudden, np.zeros(1), at_s.within(TIE_TOL))}
    del at_s
    del sudden
    step_s = last_step(rules, seats, SUDDEN, Z, n_dice=n_dice)
    if progress is not None:
        progress("sudden last step", step_s.sweeps, step_s.settled)
    s_table = mover(SUDDEN).reshape(n, n)
    s_bound = cert_s.bound + _above(step_s.settled)
    step_f = last_step(rules, seats, "final1", Z, n_dice=n_dice)
    g = np.ascontiguousarray(mover("final1").reshape(n, -1).T)
    g_bound = s_bound + step_f.gap + STEP_TOL + step_f.lost
    normal = start(NORMAL, gm, lookup(NORMAL, gm), start_value)
    report_w = iterate(normal, g.ravel(), tol=tol, progress=progress)
    at_w = bellman_at(normal, g.ravel(), (0.0, TIE_TOL))
    cert_w = certify(normal, g.ravel(), tail_bound=g_bound, bellman=at_w)
    if progress is not None:
        progress("normal certificate", cert_w.sweeps, cert_w.bound)
    policies[NORMAL] = phase_policy(normal, g.ravel(), at_w.within(TIE_TOL))
    del at_w
    put(NORMAL, normal.table())
    step_w = last_step(rules, seats, NORMAL, Z, n_dice=n_dice)
    if progress is not None:
        progress("normal last step", step_w.sweeps, step_w.settled)
    policies[FINAL] = final_policy(gm, rules.ties, FINAL_TOL)
    figures_s = {**_figures(cert_s), "settled": step_s.settled}
    figures_w = {**_figures(cert_w), "settled": step_w.settled, "beyond": g_bound}
    return GameSolution(
        rules=rules,
        win=mover(NORMAL).reshape(n, n),
        sudden=s_table,
        final=final,
        cards={card: normal.table(v) for card, v in normal.cards_value.items()},
        k_min=gm.k_min,
        k_max=gm.k_max,
        beyond=g,
        sweeps={"final": final.sweeps, SUDDEN: report_s.sweeps, NORMAL: report_w.sweeps},
        residual={"final": final.residual, SUDDEN: report_s.residual,
                  NORMAL: report_w.residual},
        certified_bound={"final": final.bound, SUDDEN: s_bound,
                         NORMAL: cert_w.bound + _above(step_w.settled)},
        certificates={SUDDEN: figures_s, NORMAL: figures_w},
        policies=policies,
        seconds=time.perf_counter() - t0,
        n_dice=n_dice,
    )


# --------------------------------------------------------------------------------------------
# What the tables answer
# --------------------------------------------------------------------------------------------


def state_utility(sol: GameSolution, me: int, opp: int, *, final: bool = False,
                  sudden: bool = False) -> TurnUtility:
    """The utility of every ending of the mover's turn at one state (units): one column.

    Normal play: the lookups of :mod:`.model` into ``win`` (and ``G`` past the target). Final
    turn (`opp` >= target): beat the leader's total; Skull Island may bring the leader below the
    target, into sudden death with the leader to move.
    """
    n = sol.n
    ks = np.arange(sol.k_min, sol.k_max + 1)
    ded = np.arange(point_range(sol.rules, sol.n_dice).n_ded)
    if final:
        tie = sol.rules.tie_share
        mine = me + ks
        points = (mine > opp) + tie * (mine == opp)
        left = opp - ded
        island = np.where(left < n, 1.0 - sol.sudden[np.clip(left, 0, n - 1), me], 0.0)
        return TurnUtility(sol.k_min, points.astype(np.float64)[:, None], island[:, None])
    after = me + ks
    if sudden:
        here = sol.sudden[opp, np.clip(after, 0, n - 1)]
        points = np.where(after >= n, 1.0, 1.0 - here)
        island = 1.0 - sol.sudden[floor_total(opp - ded), me]
        return TurnUtility(sol.k_min, points[:, None], island[:, None])
    g = sol.beyond
    here = sol.win[opp, np.clip(after, 0, n - 1)]
    beyond = g[np.clip(after - n, 0, g.shape[0] - 1), opp]
    points = 1.0 - np.where(after >= n, beyond, here)
    island = 1.0 - sol.win[floor_total(opp - ded), me]
    return TurnUtility(sol.k_min, points[:, None], island[:, None])


def check_state(sol: GameSolution, me: int, opp: int, *, final: bool = False) -> tuple[int, int]:
    """:func:`check_totals`, and in the final turn the opponent's total one a game reaches
    (the trigger was below the target before a turn of at most ``k_max`` units): the same
    rule, and the same refusal, as the game of three players and more."""
    a, b = check_totals(sol.rules, me, opp, final=final)
    high = sol.n + max(sol.k_max, 1)  # one past the largest total (seats.Seats.high)
    if final and b >= high:
        raise GameError(f"these totals cannot be a final turn of this game (a total is at most "
                        f"{(high - 1) * UNIT})", subject="opp", kind="final_round",
                        values={"me": me, "opp": opp, "target": sol.rules.target,
                                "high": (high - 1) * UNIT})
    return a, b


def win_objective(sol: GameSolution, me: int, opp: int, *, final: bool = False) -> Objective:
    """The engine objective of the mover's turn at (`me`, `opp`) in points."""
    a, b = check_state(sol, me, opp, final=final)
    return GameUtility(state_utility(sol, a, b, final=final),
                       key=("win", me, opp, final, sol.rules.hash))


def win_probability(sol: GameSolution, me: int, opp: int, *,
                    final: bool = False) -> tuple[float, dict[str, float]]:
    """P(the player about to draw wins) and per card, at totals `me`, `opp` (points)."""
    a, b = check_state(sol, me, opp, final=final)
    if not final:
        return float(sol.win[a, b]), {c: float(v[a, b]) for c, v in sol.cards.items()}
    from ..engine import solve_turn

    obj = win_objective(sol, me, opp, final=True)
    weights = deck(sol.n_dice)
    cards = {c: float(solve_turn(CARDS[c], sol.rules.turn_rules(), obj).turn_value[0])
             for c in weights}
    total = 0.0
    for c, w in weights.items():
        total += w * cards[c]
    return total, cards
