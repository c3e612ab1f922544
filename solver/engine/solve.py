r"""The exact turn solver: stop-or-reroll Bellman equations over canonical dice multisets.

**States.**  A *position* is the multiset of the 8 dice after a roll, a count per face in the
order k m p s c d (1287 of them), in a world: ``used`` (the Sorceress is spent, or the card has
none) or ``unused`` (the Sorceress card, her reroll still available). A *partial position*
``x = (s, K)`` is what stays on the table before a roll: ``s`` skull dice and the kept
non-skull dice ``K``; the other ``r = 8 - s - |K|`` dice are rolled.

**Actions.**  From a live position ``y = (s, M)`` the player stops, for the payoff
``u_stop(y)``, where stopping is allowed, or keeps ``K ⊆ M`` and rolls the rest, where the turn
model's legality tables allow it (:mod:`solver.engine.model`, from :mod:`solver.rules.moves`). With
the Sorceress unused, a reroll may also take one skull die: the partial position is then
``(s - 1, K)`` in the ``used`` world.

**Bellman equation.**  With ``P_r(o)`` the multinomial probability that ``r`` dice show ``o``,

.. math::

   Q(x) = \sum_{o\,:\,x+o \text{ live}} P_r(o)\, V(x + o) + P(\text{bust} \mid x)\, u_{bust}(x),
   \qquad V(y) = \max\Big(u_{stop}(y),\ \max_{K \subseteq M \text{ legal}} Q(s, K)\Big).

The kernel (:mod:`solver.engine.kernel`) computes the sum one die at a time and the inner
maximum by a recursion over sub-multisets. The payoffs are data (:mod:`.objectives`).

**Why the solve terminates, and the bound.**  Skulls never leave the table except through the
Sorceress, which moves to the ``used`` world, so the positions fall into layers (world, skull
dice) that depend only on themselves and on layers solved before them: the ``used`` world from
the most skull dice down to none, then the ``unused`` world (the rescue layer of exactly 3
skulls first, where only her moves are legal: it needs one sweep). Rerolls are unlimited, so
each layer's equations are cyclic; inside a layer a reroll stays only when no skull is rolled,
with probability at most :math:`\beta = (5/6)^2 = 25/36` since at least 2 dice are rolled (the
Sorceress's moves leave the layer). The layer's Bellman operator is therefore a
:math:`\beta`-contraction in the sup norm (Puterman, *Markov Decision Processes*, 1994, §6.3),
and value iteration from the stop values converges. After a sweep :math:`V_{n+1} = T V_n`,

.. math::

   \|V_{n+1} - V^*\|_\infty \le \frac{\beta}{1-\beta}\,\|V_{n+1} - V_n\|_\infty + \varepsilon_{up},

where :math:`\varepsilon_{up}` is the bound of the layers it leads to (an error there is not
amplified: the layer's fixed point moves by at most it, since a reroll reaches other layers
with probability at most :math:`1 - p_{stay}`). Each layer iterates until its share of the
tolerance is met; :class:`TurnSolution` reports the sweeps, the final residual and the
certified bound on every value and every keep value. Floating-point rounding (about
:math:`10^{-13}` relative) is below the bound's scale; :mod:`solver.engine.exact` removes it.

**Ties.**  Moves whose values differ by less than :data:`TIE_TOL` are ties for the policy,
broken by one fixed rule: stop first, then a reroll without the Sorceress, then the keep with
the most dice, then the largest partial index. The same rule is the game's
(:mod:`solver.game`), through the same kernel function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..rules.rulebook import CARDS, NUM_DICE, Card, Rules
from ..rules.scoring import Outcome
from . import kernel
from .arrays import WorldArrays, first_roll, turn_value_lanes, world_arrays
from .codes import NO_MOVE, STOP, TIE_TOL, UNUSED, USED
from .kernel import from_lanes, lane_width, to_lanes
from .model import TurnModel, turn_model
from .objectives import ExpectedPoints, Objective, Payoff, payoff_for
from .positions import BoolArray, FloatArray, IntArray
from .results import Policy, TurnSolution, WorldSolution
from .rows import TurnStructure, structure

if TYPE_CHECKING:
    from concurrent.futures import Executor

BETA = (5 / 6) ** 2
"""Largest probability that a reroll stays in its skull layer (no skull among >= 2 dice)."""
DEFAULT_TOL = 1e-9
"""Certified bound required on every value (points, or probability for `need`)."""
MAX_SWEEPS = 10_000
"""Sweeps of one layer (or of one game phase) before giving up: a bug, not a user error."""


class ConvergenceError(RuntimeError):
    """Value iteration did not reach the required bound (a bug, not a user error)."""


# --------------------------------------------------------------------------------------------
# The solve
# --------------------------------------------------------------------------------------------


def solve_turn(
    card: Card,
    rules: Rules,
    objective: Objective | None = None,
    *,
    tol: float = DEFAULT_TOL,
    policy: Policy | None = None,
    n_dice: int = NUM_DICE,
) -> TurnSolution:
    """Solve one card's turn for an objective (default: expected points).

    With `policy` (per world: a keep code per position and whether it uses the Sorceress,
    column 0), the values are those of following it instead: exact policy evaluation.
    """
    objective = objective or ExpectedPoints()
    model = turn_model(card, rules, n_dice)
    return solve_payoff(model, payoff_for(model, objective), objective.key(), tol=tol,
                        policy=policy)


@dataclass
class _Lanes:
    """A payoff on the full structure, in lanes: stop rows, then bust rows, of one table."""

    u: FloatArray
    stop_idx: IntArray
    bust_idx: IntArray
    first_bust: FloatArray
    island: FloatArray


def _lanes(model: TurnModel, st: TurnStructure, payoff: Payoff, width: int) -> _Lanes:
    full = st.partial[st.full_row] - model.geometry.full_offset
    table = np.vstack([payoff.stop[full], payoff.bust[st.partial]])
    b = payoff.columns
    return _Lanes(
        u=to_lanes(table, width),
        stop_idx=np.arange(st.n_fo, dtype=np.int64),
        bust_idx=st.n_fo + np.arange(st.n_rows, dtype=np.int64),
        first_bust=to_lanes(np.broadcast_to(payoff.first_bust, (b,)).copy(), width),
        island=to_lanes(payoff.island, width),
    )


def _policy_lanes(model: TurnModel, st: TurnStructure, policy: Policy, world: int,
                  n_c: int, width: int) -> tuple[IntArray, BoolArray]:
    """A policy (column 0, partial indices) as kernel codes (rows), broadcast to the lanes."""
    g = model.geometry
    full = st.partial[st.full_row] - g.full_offset
    code = np.asarray(policy[world][0])[full, 0]
    sor = np.asarray(policy[world][1])[full, 0].astype(bool)
    live = model.live[world][full]
    if np.any(live & (code == NO_MOVE)):
        raise ValueError("the policy has no move where the turn goes on")
    if np.any(live & (code == STOP) & ~model.can_stop[world][full]):
        raise ValueError("the policy stops where it must move")
    if np.any(live & sor) and world != UNUSED:
        raise ValueError("the policy uses the Sorceress where she is not available")
    rows = np.where(code >= 0, st.row_of_partial[np.maximum(code, 0)], code)
    keeps = code >= 0
    skulls = st.counts[st.full_row, 0]
    kept = g.counts[np.maximum(code, 0)]
    ok = np.where(sor, kept[:, 0] == skulls - 1, kept[:, 0] == skulls)
    sub = np.all(kept[:, 1:] <= st.counts[st.full_row, 1:], axis=1)
    legal = np.where(sor, model.sorceress_legal[np.maximum(code, 0)],
                     model.keep_legal[world][np.maximum(code, 0)])
    if np.any(live & keeps & ~(ok & sub & legal)):
        raise ValueError("the policy keeps dice that are not a legal keep there")
    lanes_code = np.broadcast_to(rows[None, :, None], (n_c, st.n_fo, width)).copy()
    lanes_sor = np.broadcast_to(sor[None, :, None], (n_c, st.n_fo, width)).copy()
    return lanes_code, lanes_sor


@dataclass(frozen=True)
class LayerSolve:
    """The result of :func:`solve_layers`: per world the values of the full orbits and the
    keep values of the rows, in lanes, and how exact."""

    values: dict[int, FloatArray]
    keeps: dict[int, FloatArray]
    sweeps: int
    residual: float
    bound: float


def solve_layers(model: TurnModel, st: TurnStructure, u: FloatArray, stop_idx: IntArray,
                 bust_idx: IntArray, *, tol: float = DEFAULT_TOL,
                 policy: dict[int, tuple[IntArray, BoolArray]] | None = None,
                 per_lane: bool = False) -> LayerSolve:
    """Value iteration layer by layer (module doc) on a structure's rows, for the utility
    table `u` (lanes) indexed by `stop_idx` (full orbits) and `bust_idx` (rows).

    With `policy` (per world, kernel codes and Sorceress flags in lanes), the values are
    those of following it (policy evaluation); the bound is certified either way. With
    `per_lane`, every column stops on its own residual (:func:`.kernel.solve_layer`): its
    numbers are then the same whatever the other columns of the batch.
    """
    n_c, _, width = u.shape
    factor = BETA / (1 - BETA)
    budget = tol / 8  # at most 7 layers add their bounds
    eps, sweeps_total, residual_max = 0.0, 0, 0.0
    values: dict[int, FloatArray] = {}
    keeps: dict[int, FloatArray] = {}
    for world in model.worlds:  # USED first: the unused world's Sorceress lands there
        w = world_arrays(model, st, world, stop_idx, bust_idx)
        V = np.ascontiguousarray(np.where(w.can_stop[None, :, None], u[:, stop_idx, :], 0.0))
        e = np.zeros((n_c, st.n_rows + 1, width))
        q = np.zeros((n_c, st.n_rows + 1, width))
        q_used = keeps.get(USED) if world == UNUSED else None
        bs = kernel.sorceress_best(q_used, w.sorceress_ok, st) if q_used is not None else None
        code, sor = policy[world] if policy is not None else (None, None)
        for s in range(st.max_skulls, -1, -1):
            lo, hi = st.layer(s)
            rows = slice(int(st.level_lo[s, s]), int(st.level_lo[s, model.n_dice]))
            if code is None:
                cyclic = bool(np.any(w.keep_ok[rows])) and bool(np.any(w.live[lo:hi]))
            else:
                assert sor is not None
                cyclic = bool(np.any(w.live[lo:hi][None, :, None] & (code[:, lo:hi, :] >= 0)
                                     & ~sor[:, lo:hi, :]))
            # the Bellman sweeps need no keep values (they keep the best ones in e in place)
            q_now = q if code is not None else np.zeros((n_c, 0, width))
            if cyclic:
                n, residual = kernel.solve_layer(
                    V, e, q_now, u, w, st, s, factor=factor, budget=budget,
                    max_sweeps=MAX_SWEEPS, bs=bs, code=code, sor=sor, q_used=q_used,
                    per_lane=per_lane)
                if factor * residual > budget:
                    raise ConvergenceError(
                        f"{model.card.id}: layer of {s} skull dice still moves by "
                        f"{residual:.3g} after {n} sweeps")
                eps += factor * residual
                residual_max = max(residual_max, residual)
            else:  # the layer depends on solved layers only: one sweep is exact
                mode = kernel.MODE_BELLMAN if code is None else kernel.MODE_POLICY
                kernel.sweep(mode, V, e, q_now, u, w, st, s, s, bs=bs, code=code, sor=sor,
                             q_used=q_used)
                n = 1
            sweeps_total += n
            kernel.sweep(kernel.MODE_EXPECT, V, e, q, u, w, st, s, s)  # the final keep values
        values[world], keeps[world] = V, q
    return LayerSolve(values, keeps, sweeps_total, residual_max, eps)


def solve_payoff(
    model: TurnModel,
    payoff: Payoff,
    key: tuple[object, ...] = ("custom",),
    *,
    tol: float = DEFAULT_TOL,
    policy: Policy | None = None,
) -> TurnSolution:
    """Value iteration, layer by layer, to the certified bound `tol` (see the module doc)."""
    return solve_payoffs([(model, payoff, key)], tol=tol, policy=policy)[0]


def _batch_key(model: TurnModel) -> tuple[object, ...]:
    """What turns must share to be solved as the columns of one batch: the structure (one
    object for the cards it fits), and every world's legality and bust probabilities."""
    st = structure(model)
    parts: list[object] = [id(st), model.worlds]
    zero = np.zeros(0, dtype=np.int64)
    for world in model.worlds:
        w = world_arrays(model, st, world, zero, zero)
        parts += [a.tobytes() for a in (w.live, w.can_stop, w.keep_ok, w.sorceress_ok,
                                        w.p_bust)]
    return tuple(parts)


def solve_payoffs(
    turns: Sequence[tuple[TurnModel, Payoff, tuple[object, ...]]],
    *,
    tol: float = DEFAULT_TOL,
    policy: Policy | None = None,
) -> list[TurnSolution]:
    """:func:`solve_payoff` of several turns (models, payoffs and their keys), in order. Turns
    whose structure, legality and bust probabilities are the same (most cards of one rules
    object) are solved together as the columns of one batch: every column is certified to
    `tol` (each layer sweeps until every column of the batch meets its share). With `policy`
    (one turn's), the turns of the same model (its objectives) are evaluated as one batch."""
    groups: dict[tuple[object, ...], list[int]] = {}
    for i, (model, _, _) in enumerate(turns):
        # one policy is one turn's: the objectives of the same turn under it share a batch
        groups.setdefault(_batch_key(model) if policy is None else (id(model),), []).append(i)
    out: list[TurnSolution | None] = [None] * len(turns)
    for members in groups.values():
        solved = _solve_batch([turns[i] for i in members], tol=tol, policy=policy)
        for i, sol in zip(members, solved, strict=True):
            out[i] = sol
    return [s for s in out if s is not None]


def _solve_batch(
    turns: Sequence[tuple[TurnModel, Payoff, tuple[object, ...]]],
    *,
    tol: float,
    policy: Policy | None,
) -> list[TurnSolution]:
    """Turns of one batch key (:func:`_batch_key`), their payoffs' columns side by side."""
    model = turns[0][0]
    st = structure(model)
    g = model.geometry
    payoff = Payoff.stack([p for _, p, _ in turns])
    b = payoff.columns
    width = lane_width(b)
    lanes = _lanes(model, st, payoff, width)
    n_c = lanes.u.shape[0]
    kernel_policy = None
    if policy is not None:
        kernel_policy = {w: _policy_lanes(model, st, policy, w, n_c, width)
                         for w in model.worlds}
    solved = solve_layers(model, st, lanes.u, lanes.stop_idx, lanes.bust_idx, tol=tol,
                          policy=kernel_policy)
    worlds: dict[int, WorldSolution] = {}
    for world in model.worlds:
        V, q = solved.values[world], solved.keeps[world]
        value = np.full((model.n_full, b), np.nan)
        v_full = from_lanes(V, b)
        live_pos = model.live[world]
        orbit = st.full_of_position
        value[live_pos] = v_full[orbit[live_pos]]
        keep = np.empty((g.n_partial, b))
        inside = st.row_of_partial < st.n_rows
        keep[inside] = from_lanes(q, b)[st.row_of_partial[inside]]
        keep[~inside] = payoff.bust[~inside]  # beyond the structure every roll busts
        is_full = np.arange(g.n_partial) >= g.full_offset
        pos_full = np.flatnonzero(is_full & inside)  # keeping all the dice: the position
        j = pos_full - g.full_offset
        keep[pos_full] = np.where(live_pos[j][:, None], v_full[orbit[j]], payoff.bust[pos_full])
        if policy is None:
            w = world_arrays(model, st, world, lanes.stop_idx, lanes.bust_idx)
            q_used = solved.keeps[USED] if world == UNUSED else None
            pol, use_sor = _extract_policy(model, st, world, q, q_used, lanes, w, b)
        else:
            pol = np.array(np.asarray(policy[world][0])[:, :1].repeat(b, axis=1))
            use_sor = np.array(np.asarray(policy[world][1])[:, :1].repeat(b, axis=1))
            pol[~live_pos] = NO_MOVE
            use_sor[~live_pos] = False
        worlds[world] = WorldSolution(value=value, keep_value=keep, policy=pol,
                                      sorceress=use_sor)
    out = []
    lo = 0
    start = model.start_world
    for turn_model_, pay, key in turns:
        cols = slice(lo, lo + pay.columns)
        lo += pay.columns
        fr = first_roll(turn_model_, st)
        turn = from_lanes(turn_value_lanes(
            to_lanes(from_lanes(solved.values[start], b)[:, cols].copy()), fr,
            to_lanes(pay.first_bust.copy()), to_lanes(pay.island.copy())), pay.columns)
        mine = {w: WorldSolution(value=ws.value[:, cols].copy(),
                                 keep_value=ws.keep_value[:, cols].copy(),
                                 policy=ws.policy[:, cols].copy(),
                                 sorceress=ws.sorceress[:, cols].copy())
                for w, ws in worlds.items()}
        out.append(TurnSolution(
            card=turn_model_.card.id,
            rules=turn_model_.rules,
            objective=key,
            worlds=mine,
            first_value=first_values(turn_model_, pay, mine[start].value),
            turn_value=turn,
            sweeps=solved.sweeps,
            residual=solved.residual,
            bound=solved.bound,
            n_dice=turn_model_.n_dice,
        ))
    return out


def first_values(model: TurnModel, payoff: Payoff, start: FloatArray) -> FloatArray:
    """The value of each position as the turn's first roll: the bust payoff, Skull Island
    (by skull dice), or `start`'s value (the world the turn starts in) where play goes on."""
    skull_dice = model.geometry.full_counts[:, 0]
    first = np.array(start, copy=True)
    bust = np.array([o is Outcome.BUST for o in model.first_outcome])
    island = np.array([o is Outcome.ISLAND for o in model.first_outcome])
    first[bust] = payoff.first_bust
    first[island] = payoff.island[skull_dice[island]]
    return first


def _extract_policy(model: TurnModel, st: TurnStructure, world: int, q: FloatArray,
                    q_used: FloatArray | None, lanes: _Lanes, w: WorldArrays,
                    b: int) -> tuple[IntArray, BoolArray]:
    """The policy of every position (partial indices), by the kernel's tie-break rule."""
    code, sor, _ = kernel.best_moves(q, q_used, lanes.u, w, st, TIE_TOL, w.sorceress_ok)
    code_f, sor_f = from_lanes(code, b), from_lanes(sor, b)
    pick = np.maximum(code_f, 0)
    plain = st.pairs_partial[np.minimum(st.pairs_ptr[:-1, None] + pick,
                                        st.pairs_partial.shape[0] - 1)]
    if st.sor_partial.shape[0]:
        with_sor = st.sor_partial[np.minimum(st.sor_ptr[:-1, None] + pick,
                                             st.sor_partial.shape[0] - 1)]
        plain = np.where(sor_f, with_sor, plain)
    partial = np.where(code_f < 0, code_f, plain)
    g = model.geometry
    pol = np.full((g.n_full, b), NO_MOVE, dtype=np.int64)
    use_sor = np.zeros((g.n_full, b), dtype=bool)
    live = model.live[world]
    orbit = st.full_of_position
    pol[live] = partial[orbit[live]]
    use_sor[live] = sor_f[orbit[live]]
    return pol, use_sor


def roll_expectation(model: TurnModel, world: int, values: FloatArray) -> FloatArray:
    """For every partial position (n_partial, B): the expectation, over rolling its missing
    dice, of `values` (n_full, B) at the positions where the turn goes on in `world` (0 where
    it is over), by the kernel's expectation."""
    st = structure(model)
    b = values.shape[1]
    width = lane_width(b)
    full = st.partial[st.full_row] - model.geometry.full_offset
    V = to_lanes(np.ascontiguousarray(values[full], dtype=np.float64), width)
    n_c = V.shape[0]
    u = np.zeros((n_c, 1, width))
    w = world_arrays(model, st, world, np.zeros(st.n_fo, dtype=np.int64),
                     np.zeros(st.n_rows, dtype=np.int64))
    e = np.zeros((n_c, st.n_rows + 1, width))
    q = np.zeros((n_c, st.n_rows + 1, width))  # = e: every bust is worth 0 here
    kernel.sweep(kernel.MODE_EXPECT, V, e, q, u, w, st, 0, st.max_skulls)
    out = np.zeros((model.geometry.n_partial, b))
    inside = st.row_of_partial < st.n_rows
    out[inside] = from_lanes(q, b)[st.row_of_partial[inside]]
    g = model.geometry
    pos = np.flatnonzero(inside & (np.arange(g.n_partial) >= g.full_offset))
    j = pos - g.full_offset
    out[pos] = np.where(model.live[world][j][:, None], values[j], 0.0)  # nothing to roll
    return out


def solve_cards(
    cards: Sequence[Card],
    rules: Rules,
    objective_factory: Callable[[], Objective] | None = None,
    *,
    n_jobs: int = 1,
    tol: float = DEFAULT_TOL,
) -> dict[str, TurnSolution]:
    """Solve several cards, each in its batch: the cards of the game (``none`` and the deck)
    that share its structure, legality and bust probabilities (:func:`solve_payoffs`), solved
    together whichever of them are asked for; the batches in worker processes when
    `n_jobs` != 1.

    A card is solved with the same columns whether it is asked for alone or with others, and
    each batch whole by the same code in whichever process (:func:`worker_pool`), so the
    results are the same bit for bit whatever the cards asked for with it and the number of
    workers. `objective_factory` goes to the workers: a class or a module's function.
    """
    factory = objective_factory or ExpectedPoints
    groups = _batches_of(cards, rules)
    if n_jobs == 1 or len(groups) <= 1:
        solved = [_solve_cards(group, rules, factory, tol) for group in groups]
    else:
        with worker_pool(min(n_jobs, len(groups))) as pool:
            solved = list(pool.map(_solve_cards, groups, [rules] * len(groups),
                                   [factory] * len(groups), [tol] * len(groups)))
    by_card = {s.card: s for batch in solved for s in batch}
    return {c.id: by_card[c.id] for c in cards}


@contextmanager
def worker_pool(n_jobs: int) -> Iterator[Executor]:
    """A pool of `n_jobs` worker processes for the turn solves (a
    :class:`concurrent.futures.Executor`).

    Forked on Linux when this process runs one thread (a fork copies what is imported and
    cached, in milliseconds, and a single thread holds no lock it could copy): the workers
    are forked at once, before this process does anything else, and ignore Ctrl-C (this
    process stops, and leaves without the tasks not started; those running end within a
    second). Elsewhere, or with threads running (numpy's OpenBLAS pool, unless
    ``OPENBLAS_NUM_THREADS=1`` as `sabords` sets it), joblib's loky workers, started afresh
    (each imports what it needs: about a second), which need no ``__main__`` guard."""
    if not _fork_is_safe():
        from joblib.externals.loky import get_reusable_executor

        yield get_reusable_executor(max_workers=n_jobs)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=n_jobs, initializer=_ignore_interrupts,
                               mp_context=multiprocessing.get_context("fork"))
    try:
        pool.submit(int).result()  # every worker forked now
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _fork_is_safe() -> bool:
    """Whether this process can fork its workers: Linux, and one thread running."""
    import os
    import sys

    if sys.platform != "linux":
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _ignore_interrupts() -> None:
    """A forked worker leaves Ctrl-C to the process that started it, and ends with it
    (:func:`solver.limits.end_with_parent`)."""
    import signal

    from ..limits import end_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with_parent()


def _batches_of(cards: Sequence[Card], rules: Rules) -> list[list[Card]]:
    """The batches (all their cards, in the game's card order) holding any of `cards`."""
    wanted = {c.id for c in cards}
    batches: dict[tuple[object, ...], list[Card]] = {}
    for card in CARDS.values():
        batches.setdefault(_batch_key(turn_model(card, rules)), []).append(card)
    return [group for group in batches.values() if wanted & {c.id for c in group}]


def card_batches(cards: Sequence[Card], rules: Rules) -> list[list[Card]]:
    """`cards` grouped by the batch :func:`solve_cards` solves each in (the cards of a group
    in their order in `cards`): a group's float solves are one solve, whichever process
    makes it."""
    batches = _batches_of(cards, rules)
    return [[c for c in cards if any(c.id == b.id for b in group)] for group in batches]


def _solve_cards(cards: Sequence[Card], rules: Rules, factory: Callable[[], Objective],
                 tol: float) -> list[TurnSolution]:
    turns = []
    for card in cards:
        model, objective = turn_model(card, rules), factory()
        turns.append((model, payoff_for(model, objective), objective.key()))
    return solve_payoffs(turns, tol=tol)


def finite_horizon_values(model: TurnModel, payoff: Payoff, rerolls: int) -> FloatArray:
    """The turn's value when at most `rerolls` rerolls are allowed (column per payoff).

    Backward induction from the last decision: with no reroll left the player stops (a
    rescue position is then a bust). Used by the tests to meet a brute-force reference on
    reduced games exactly; it runs the kernel's sweep over every layer at once.
    """
    st = structure(model)
    b = payoff.columns
    width = lane_width(b)
    lanes = _lanes(model, st, payoff, width)
    n_c = lanes.u.shape[0]
    arrays = {w: world_arrays(model, st, w, lanes.stop_idx, lanes.bust_idx)
              for w in model.worlds}
    first_bust = lanes.first_bust[:, None, :]
    V: dict[int, FloatArray] = {
        w: np.ascontiguousarray(np.where(a.can_stop[None, :, None], lanes.u[:, : st.n_fo, :],
                                         np.where(a.live[None, :, None], first_bust, 0.0)))
        for w, a in arrays.items()}
    e = np.zeros((n_c, st.n_rows + 1, width))
    for _ in range(rerolls):
        new: dict[int, FloatArray] = {w: v.copy() for w, v in V.items()}
        q_used: FloatArray | None = None
        for world in model.worlds:
            q = np.zeros((n_c, st.n_rows + 1 if world == USED else 0, width))
            a = arrays[world]
            bs = None
            if world == UNUSED and q_used is not None:
                bs = kernel.sorceress_best(q_used, a.sorceress_ok, st)
            kernel.sweep(kernel.MODE_BELLMAN, new[world], e, q, lanes.u, a, st, 0,
                         st.max_skulls, bs=bs)
            if world == USED:
                q_used = q
        V = new
    fr = first_roll(model, st)
    return from_lanes(turn_value_lanes(V[model.start_world], fr, lanes.first_bust,
                                       lanes.island), b)
