"""The kernel's arrays of one turn model on a structure: per world, and for the first roll.

:func:`world_arrays` turns a :class:`~.model.TurnModel`'s legality and payoff tables into the
flat arrays the kernel reads (:class:`WorldArrays`), on the rows of a
:class:`~.structure.TurnStructure`, with the row of a utility table for every stop and bust;
:func:`first_roll` classifies the first roll (play on, bust, Skull Island) with its exact
probabilities; :func:`turn_value_lanes` is the turn's value before that roll. The solver
(:mod:`.solve`), the game (:mod:`solver.game`) and the simulations use them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules.scoring import Outcome
from . import kernel
from .model import TurnModel
from .positions import BoolArray, FloatArray, IntArray
from .rows import TurnStructure


@dataclass(frozen=True)
class WorldArrays:
    """The tables of one world on a structure's rows, as the kernel reads them."""

    live: BoolArray
    """(n_fo,): the turn goes on at the full orbit."""
    can_stop: BoolArray
    keep_ok: BoolArray
    """(n_rows + 1,): keeping the row and rolling the rest is legal (sentinel False)."""
    sorceress_ok: BoolArray
    """(n_rows + 1,): a Sorceress reroll leaving the row (in the used world) is legal."""
    p_bust: FloatArray
    """(n_rows,): probability that rolling the missing dice from the row ends the turn
    (exact, then rounded)."""
    stop_idx: IntArray
    """(n_fo,): the row of the utility table worth stopping there."""
    bust_idx: IntArray
    """(n_rows,): the row of the utility table worth a bust with the row's dice kept."""


def bust_probability(model: TurnModel, st: TurnStructure, world: int) -> IntArray:
    """For each row, how many of the ``6**r`` ordered outcomes of rolling its ``r`` missing
    dice end the turn (a bust): counted one die at a time, a child beyond the structure
    bringing all its completions. The probability is the count over ``6**r``, exactly.

    Vectorised a level of a block at a time, and kept with the structure (read-only) for
    each set of positions where the turn is over: the cards of one batch count once."""
    dead_full = ~model.live[world][st.partial[st.full_row] - model.geometry.full_offset]
    key = "bust-ways-" + dead_full.tobytes().hex()
    cached = st.cache.get(key)
    if cached is None:
        n_dice = st.n_dice
        count = np.zeros(st.n_rows + 1, dtype=np.int64)  # the sentinel's is never read
        count[st.full_row] = dead_full
        for s in range(st.max_skulls, -1, -1):
            for d in range(n_dice - 1, s - 1, -1):
                lo, hi = int(st.level_lo[s, d]), int(st.level_lo[s, d + 1])
                if hi > lo:
                    child = st.child[lo:hi]
                    count[lo:hi] = np.where(child == st.n_rows, 6 ** (n_dice - d - 1),
                                            count[child]).sum(axis=1)
        cached = count[: st.n_rows]
        cached.flags.writeable = False
        st.cache[key] = cached
    return cached


def world_arrays(model: TurnModel, st: TurnStructure, world: int, stop_idx: IntArray,
                 bust_idx: IntArray) -> WorldArrays:
    """The world's tables on the structure's rows, with the given utility indices."""
    key = f"world-{st.symmetric}-{world}"
    base = model.cache.get(key)
    if base is None:
        full = st.partial[st.full_row] - model.geometry.full_offset
        sentinel_false = np.zeros(1, dtype=bool)
        base = model.cache[key] = WorldArrays(
            live=model.live[world][full].copy(),
            can_stop=model.can_stop[world][full].copy(),
            keep_ok=np.concatenate([model.keep_legal[world][st.partial], sentinel_false]),
            sorceress_ok=np.concatenate([model.sorceress_legal[st.partial], sentinel_false]),
            # int / int is correctly rounded: the exact probability to the nearest double
            # (so is numpy's division of these doubles: both are integers below 2**53)
            p_bust=bust_probability(model, st, world).astype(np.float64)
            / (6 ** (st.n_dice - st.counts.sum(axis=1))).astype(np.float64),
            stop_idx=np.zeros(0, dtype=np.int64),
            bust_idx=np.zeros(0, dtype=np.int64),
        )
    return WorldArrays(base.live, base.can_stop, base.keep_ok, base.sorceress_ok, base.p_bust,
                       np.ascontiguousarray(stop_idx, dtype=np.int64),
                       np.ascontiguousarray(bust_idx, dtype=np.int64))


@dataclass(frozen=True)
class FirstRoll:
    """The first roll on a structure: where play goes on, and what ends the turn at once."""

    live_fo: IntArray
    """Full orbits where the turn goes on (in the start world)."""
    live_prob: FloatArray
    bust_prob: float
    """P(the first roll busts): 3 skulls (4+ with a battle card), exact then rounded."""
    island_prob: FloatArray
    """(n_dice + 1,): P(the first roll goes to Skull Island with s skull dice)."""
    bust_ways: int
    island_ways: tuple[int, ...]
    """The same as counts of the ``6**n_dice`` ordered first rolls (exact)."""


def first_roll(model: TurnModel, st: TurnStructure) -> FirstRoll:
    """The first roll's classes on the structure (cached on the model)."""
    key = f"first-{st.symmetric}"
    cached = model.cache.get(key)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    g = model.geometry
    total = 6**model.n_dice
    bust = 0
    island = [0] * (model.n_dice + 1)
    live_fo: list[int] = []
    outcome_of_orbit = model.first_outcome[st.partial[st.full_row] - g.full_offset]
    ways = st.first_ways.tolist()
    for i, o in enumerate(outcome_of_orbit):
        s = int(st.counts[st.full_row[i], 0])
        if o is Outcome.BUST:
            bust += ways[i]
        elif o is Outcome.ISLAND:
            island[s] += ways[i]
        else:
            live_fo.append(i)
    for s, n in enumerate(st.beyond_ways.tolist()):
        if not n:
            continue
        o = model.first_outcome[int(np.argmax(g.full_counts[:, 0] == s))]
        if o is Outcome.ISLAND:
            island[s] += n
        elif o is Outcome.BUST:
            bust += n
        else:
            raise AssertionError("a live first roll beyond the structure")
    fr = FirstRoll(
        live_fo=np.array(live_fo, dtype=np.int64),
        live_prob=st.first_prob[live_fo],
        bust_prob=bust / total,  # int / int: correctly rounded
        island_prob=np.array([n / total for n in island]),
        bust_ways=bust,
        island_ways=tuple(island),
    )
    model.cache[key] = fr
    return fr


def turn_value_lanes(V_start: FloatArray, fr: FirstRoll, first_bust: FloatArray,
                     island: FloatArray | None) -> FloatArray:
    """The turn's value before the first roll, in lanes (C, L): play on from a live first
    roll (``V_start``), the first-roll bust, or Skull Island (`island`, (C, n_dice + 1, L) by
    skull dice; None: the caller adds it); summed in a fixed order."""
    value = kernel.first_sum(V_start, fr.live_fo, fr.live_prob)
    value = value + fr.bust_prob * first_bust
    if island is not None:
        for s, p in enumerate(fr.island_prob.tolist()):
            if p:
                value = value + p * island[:, s, :]
    return value


