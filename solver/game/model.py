r"""The two-player game as data: totals, the phases, where each ending of a turn leads.

**The game** (RULES.md, "End of the game" and "Skull Island").  Two players; totals are
multiples of 100, written in units of 100 here, below the target ``n = target / 100``. A turn
ends with ``k`` points for the mover (a stop, a bust, a lost battle: ``k`` may be negative),
with Skull Island (the *opponent* loses the deduction of
:func:`solver.rules.scoring.island_deduction`) or with pirate magic (the mover wins at once). A
total never goes below 0. Cards are drawn independently with the deck's frequencies (the real deck
is drawn without replacement; this model does not remember it).

**Three phases.**

* ``W(a, b)``, normal play: the player about to draw has ``a``, the other ``b``. Ending the
  turn at ``a' = max(0, a + k) < n`` hands the move over: ``1 - W(b, a')``. Reaching
  ``a' >= n`` gives the other player one final turn: ``1 - G(a', b)``. Skull Island deducting
  ``d``: ``1 - W(max(0, b - d), a)``.
* ``G(a', b)``, the final turn of the trailing player (``b``) against the leader's ``a' >= n``.
  Its decisions depend only on the deficit ``a' - b``: the turn wins with more points than the
  deficit, and a tie is worth 1/2 under ``ties=shared`` and 0 under ``ties=trigger``; pirate
  magic wins (the table ``final[deficit]``, Skull Island excluded). Skull Island happens on the
  first roll, before any decision; it lowers the leader's total, and if that falls below the
  target nobody is at the target after the final round: the game goes on in sudden death with
  the leader to move, ``1 - S(a' - d, b)``.
* ``S(x, y)``, sudden death: the next player to end a turn at or above the target wins at once:
  ``1`` when ``x + k >= n``, else ``1 - S(y, max(0, x + k))``.

**Turns as columns.**  Within a turn the mover maximises the probability of winning: the utility
of each ending is one of the lookups above, so every state is one column of one batched turn
problem. A column's utility table has a row per number of points ``k_min..k_max`` and a last
row for pirate magic (worth 1); Skull Island's utilities come by deduction ``0..max_ded``.
Each card's turn runs on the orbits of its positions (:func:`solver.engine.rows` with
``symmetric=True``) through the engine's one kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from ..engine import (
    FloatArray,
    IntArray,
    Objective,
    TurnModel,
    TurnStructure,
    structure,
    turn_model,
)
from ..engine.arrays import FirstRoll, WorldArrays, first_roll, world_arrays
from ..errors import RulesError, quote
from ..rules.rulebook import CARDS, NUM_DICE, Rules, deck_weights
from .seats import NORMAL, SUDDEN, PointRange, Seats, final_name

UNIT = 100
"""Totals and points are multiples of 100; the tables count in these units."""


class GameError(RulesError):
    """Totals that are not a game state (not multiples of 100, negative, past the target)."""


def deck(n_dice: int = NUM_DICE) -> dict[str, float]:
    """The cards and their probabilities (independent draws with the deck's frequencies), in
    the deck's order (every sum over the cards runs in this order)."""
    return deck_weights()


@dataclass(frozen=True)
class CardTurn:
    """One card's turn in the game: its model, its orbits and its endings in units."""

    card: str
    model: TurnModel
    st: TurnStructure
    worlds: dict[int, WorldArrays]
    """Per world, the kernel's arrays with indices into the game's utility table."""
    first: FirstRoll
    first_bust_row: int
    """The utility row of a first-roll bust."""
    island: FloatArray
    """(n_ded,): P(the first roll goes to Skull Island and it deducts d units)."""
    magic_first: float
    """P(the first roll is pirate magic): the turn then wins at once."""


@dataclass(frozen=True)
class GameModel:
    """Every card's turn and the ranges of the utility tables, for one rules object."""

    rules: Rules
    n_dice: int
    n: int
    """The target in units."""
    k_min: int
    k_max: int
    """The least and the most points (units) a turn can end with, over the deck."""
    n_ded: int
    """Deductions of Skull Island are 0..n_ded - 1 units."""
    cards: dict[str, CardTurn]
    weights: dict[str, float]

    @property
    def n_k(self) -> int:
        return self.k_max - self.k_min + 1

    @property
    def magic_row(self) -> int:
        return self.n_k

    @property
    def n_u(self) -> int:
        """Rows of a utility table: the points, then pirate magic."""
        return self.n_k + 1

    def island_deductions(self) -> FloatArray:
        """P(a turn goes to Skull Island and deducts d units), card-weighted, by d."""
        out = np.zeros(self.n_ded)
        for card, weight in self.weights.items():
            out = out + weight * self.cards[card].island
        return out

    def magic_probability(self) -> float:
        """P(the first roll of a turn is pirate magic), card-weighted: a turn ends the game
        with at least this probability whatever the totals."""
        return sum(w * self.cards[c].magic_first for c, w in self.weights.items())


def game_model(rules: Rules, n_dice: int = NUM_DICE) -> GameModel:
    """The game model of `rules` (its turns depend on the turn rules only, cached)."""
    turns = _game_model(rules.turn_rules(), n_dice)
    return GameModel(rules=rules, n_dice=n_dice, n=rules.target // UNIT, k_min=turns.k_min,
                     k_max=turns.k_max, n_ded=turns.n_ded, cards=turns.cards,
                     weights=turns.weights)


def point_range(rules: Rules, n_dice: int = NUM_DICE) -> PointRange:
    """The point range of the game of `rules` (it depends on the turn rules only, cached)."""
    return _point_range(rules.turn_rules(), n_dice)


@lru_cache(maxsize=8)
def _point_range(turn_rules: Rules, n_dice: int) -> PointRange:
    models = {c: turn_model(CARDS[c], turn_rules, n_dice) for c in deck(n_dice)}
    k_min = min(0, *(int(min(m.stop_points.min(), m.bust_points.min(), m.first_bust_points))
                     for m in models.values())) // UNIT
    k_max = max(int(max(m.stop_points.max(), m.bust_points.max())) for m in models.values())
    n_ded = max(d for m in models.values() for s in range(n_dice + 1)
                for d in m.island_deduction(s))
    return PointRange(k_min=k_min, k_max=k_max // UNIT, n_ded=n_ded // UNIT + 1)


@lru_cache(maxsize=8)
def _game_model(turn_rules: Rules, n_dice: int) -> GameModel:
    weights = deck(n_dice)
    models = {c: turn_model(CARDS[c], turn_rules, n_dice) for c in weights}
    ranges = _point_range(turn_rules, n_dice)
    k_min, k_max, n_ded = ranges.k_min, ranges.k_max, ranges.n_ded
    deductions = {c: {s: m.island_deduction(s) for s in range(n_dice + 1)}
                  for c, m in models.items()}
    n_k = k_max - k_min + 1
    cards = {}
    for card, model in models.items():
        st = structure(model, symmetric=True)
        full = st.partial[st.full_row] - model.geometry.full_offset
        stop_idx = np.where(model.stop_magic[full], n_k,
                            model.stop_points[full] // UNIT - k_min).astype(np.int64)
        bust_idx = (model.bust_points[st.partial] // UNIT - k_min).astype(np.int64)
        worlds = {w: world_arrays(model, st, w, stop_idx, bust_idx) for w in model.worlds}
        fr = first_roll(model, st)
        island = [Fraction(0)] * n_ded
        for s, ways in enumerate(fr.island_ways):
            for d, q in deductions[card][s].items() if ways else ():
                island[d // UNIT] += q * ways
        total = Fraction(6**n_dice)
        magic = sum((Fraction(int(st.first_ways[i])) for i in fr.live_fo.tolist()
                     if model.stop_magic[full[i]]), Fraction(0))
        cards[card] = CardTurn(
            card=card, model=model, st=st, worlds=worlds, first=fr,
            first_bust_row=model.first_bust_points // UNIT - k_min,
            island=np.array([float(p / total) for p in island]),
            magic_first=float(magic / total),
        )
    return GameModel(rules=turn_rules, n_dice=n_dice, n=turn_rules.target // UNIT, k_min=k_min,
                     k_max=k_max, n_ded=n_ded, cards=cards, weights=weights)


# --------------------------------------------------------------------------------------------
# Where each ending of a turn leads: the lookups of the phases
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lookup:
    """Where each ending of a turn leads, for every state of one phase.

    The utility of ending with ``k`` units for column ``j = a * n + b`` is
    ``1 - z[points[k - k_min, j]]`` where ``z`` is the phase's values (``n * n``) followed by
    its tail (the final-turn values ``G`` for normal play; a single 0, the win, for sudden
    death); Skull Island deducting ``d``: ``1 - z[island[d, j]]``.
    """

    n: int
    points: IntArray  # (n_k, n * n)
    island: IntArray  # (n_ded, n * n)


def lookup(phase: str, gm: GameModel) -> Lookup:
    """The two-player phase's lookups: the successors of the game of any number of players
    (:meth:`.seats.Seats.successors`, ``N = 2``), as indices into the phase's values followed
    by its tail (final turn ``G(a', b)`` at ``n * n + (a' - n) * n + b``; the win at
    ``n * n``)."""
    n = gm.n
    seats = Seats(players=2, n=n, k_min=gm.k_min, k_max=gm.k_max, n_ded=gm.n_ded,
                  ties="shared")  # the successors of normal play and sudden death know no ties
    if phase not in (NORMAL, SUDDEN):
        raise ValueError(f"no lookup for phase {phase!r}")
    points, island = seats.successors(phase, np.arange(n * n, dtype=np.int64))
    final = seats.phases[final_name(1)]
    start = seats.offset(final.name)

    def index(rows: IntArray) -> IntArray:
        out = rows - seats.offset(phase)
        tail = (rows >= start) & (rows < start + final.size)
        b, leader = final.decode(rows[tail] - start).T  # the mover b against a' >= n
        out[tail] = n * n + (leader - n) * n + b
        out[rows == seats.magic_row()] = n * n
        return out

    return Lookup(n=n, points=index(points), island=index(island))


def tail_rows(gm: GameModel | PointRange) -> int:
    """Rows of G(a', b): the leader's a' from n to n - 1 + max(k_max, 1)."""
    return max(gm.k_max, 1)


def final_values(final: FloatArray, sudden: FloatArray, gm: GameModel) -> FloatArray:
    """G(a', b) for a' = n .. n - 1 + k_max (rows) and b < n: the trailing player's chance.

    `final[d]` is the final-turn table by deficit (d >= 1; deficits past its end are worth its
    last value: only pirate magic wins). Skull Island: the leader loses d units with
    probability ``deductions[d]``; below the target, sudden death with the leader to move.
    """
    n = gm.n
    lead, trail = np.meshgrid(np.arange(n, n + tail_rows(gm)), np.arange(n), indexing="ij")
    deficit = np.minimum(lead - trail, final.shape[0] - 1)
    g = final[deficit].copy()
    for d, p in enumerate(gm.island_deductions().tolist()):
        if p == 0.0:
            continue
        left = lead - d
        below = left < n
        s = sudden[np.clip(left, 0, n - 1), trail]
        g = g + p * np.where(below, 1.0 - s, 0.0)
    return np.asarray(g, dtype=np.float64)


def check_totals(rules: Rules, me: int, opp: int, *, final: bool = False) -> tuple[int, int]:
    """The totals in units, or :class:`GameError`. With `final`, `opp` (the leader) is at or
    above the target and `me` below it."""
    for who, subject, x in (("your total", "me", me), ("the opponent's total", "opp", opp)):
        if isinstance(x, bool) or not isinstance(x, int) or x < 0 or x % UNIT:
            raise GameError(f"{who} must be a non-negative multiple of 100, not {quote(x)}",
                            subject=subject, kind="not_points",
                            values={"value": x if isinstance(x, int) else str(x), "unit": UNIT})
    values = {"me": me, "opp": opp, "target": rules.target}
    if me >= rules.target:
        raise GameError(f"your total {me} is at or above the target {rules.target}: the game "
                        f"is over (the target is the variant target=N)", subject="me",
                        kind="game_over", values=values)
    if final and opp < rules.target:
        raise GameError(f"a final turn comes after the opponent reached the target "
                        f"{rules.target}: their total must be at least {rules.target}, "
                        f"not {opp}", subject="opp", kind="not_final", values=values)
    if not final and opp >= rules.target:
        raise GameError(f"the opponent's total {opp} is at or above the target "
                        f"{rules.target}: this is your final turn", subject="opp",
                        kind="final_turn", values=values)
    return me // UNIT, opp // UNIT


def check_totals_of(rules: Rules, me: int, others: Sequence[int], *,
                    final: bool) -> list[int]:
    """What can be said of the totals `me` then `others` without a table (each a
    non-negative multiple of 100, mine below the target, nobody at it unless this is a final
    turn): a :class:`GameError`, before a table is read (a typo is told as such, not as a
    table to make); the seats reaching the target (1 for the next player...)."""
    target = rules.target
    totals = [me, *others]
    for i, x in enumerate(totals):
        subject = "me" if i == 0 else "opp"
        if isinstance(x, bool) or not isinstance(x, int) or x < 0 or x % UNIT:
            who = "your total" if i == 0 else f"the total of player {i + 1}"
            raise GameError(f"{who} must be a non-negative multiple of 100, not {quote(x)}",
                            subject=subject, kind="not_points",
                            values={"value": x if isinstance(x, int) else str(x),
                                    "unit": UNIT})
    values = {"me": me, "opp": list(others), "target": target}
    if me >= target:
        raise GameError(f"your total {me} is at or above the target {target}: the game is "
                        f"over (the target is the variant target=N)", subject="me",
                        kind="game_over", values=values)
    reached = [i for i, x in enumerate(others, 1) if x >= target]
    if not final and reached:
        raise GameError(f"player {reached[0] + 1}'s total {others[reached[0] - 1]} is at "
                        f"or above the target {target}: this is a final turn",
                        subject="opp", kind="final_turn", values=values)
    return reached


# --------------------------------------------------------------------------------------------
# One state's turn as an engine objective (the advisor's win objective)
# --------------------------------------------------------------------------------------------


@dataclass
class TurnUtility:
    """The utilities of every way a turn can end, one column per state.

    ``points[k - k_min]`` is the utility of ending with ``k`` units (stop or bust);
    ``island[d]`` of Skull Island deducting ``d`` units from the opponent; magic is 1.
    """

    k_min: int
    points: FloatArray  # (n_k, B)
    island: FloatArray  # (n_ded, B)

    @staticmethod
    def stack(utilities: list[TurnUtility]) -> TurnUtility:
        return TurnUtility(utilities[0].k_min, np.hstack([u.points for u in utilities]),
                           np.hstack([u.island for u in utilities]))


class GameUtility(Objective):
    """A :class:`TurnUtility` as an objective of :mod:`solver.engine` (one column a state)."""

    def __init__(self, utility: TurnUtility, key: tuple[object, ...] = ("GameUtility",)) -> None:
        self.utility = utility
        self._key = key

    def of_points(self, points: IntArray) -> FloatArray:
        u = self.utility
        return u.points[np.asarray(points) // UNIT - u.k_min]

    def of_magic(self, points: IntArray) -> FloatArray:
        return np.ones((np.asarray(points).shape[0], self.utility.points.shape[1]))

    def of_island(self, deduction: IntArray) -> FloatArray:
        return self.utility.island[np.asarray(deduction) // UNIT]

    def key(self) -> tuple[object, ...]:
        return self._key
