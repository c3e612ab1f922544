"""Objectives of a turn: the utility of every way a turn can end, as data.

A turn ends with a stop (its points; pirate magic under ``nine_of_a_kind=magic``), a bust (its
payoff: 0, minus a battle's bonus, the chest's dice) or Skull Island (nothing for the player,
a deduction for each opponent). An :class:`Objective` maps those endings to utilities, one
column per objective of a batch; :func:`payoff_for` tabulates them over a turn model's
positions (:class:`Payoff`), and the solver maximises the expected utility. Expected points,
the probability of reaching ``N`` points and the game's win probabilities are all such
payoffs, solved by the same code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where an objective is tabulated, not by a points answer
    from .model import TurnModel
    from .positions import FloatArray, IntArray


class Objective:
    """Maps the ways a turn can end to utilities, one column per objective of a batch.

    Subclasses define :meth:`of_points` (the turn ends with `points` for the player), and may
    override :meth:`of_magic` (pirate magic; by default its points, the nine counted as an
    8000 set) and :meth:`of_island` (Skull Island, costing each opponent `deduction`; by
    default 0 points for the player).
    """

    def of_points(self, points: IntArray) -> FloatArray:
        raise NotImplementedError

    def of_magic(self, points: IntArray) -> FloatArray:
        return self.of_points(points)

    def of_island(self, deduction: IntArray) -> FloatArray:
        import numpy as np

        return self.of_points(np.zeros_like(deduction))

    def key(self) -> tuple[object, ...]:
        """Identifies the objective in results and caches."""
        return (type(self).__name__,)

    def utility_of(self, points: int, *, magic: bool = False) -> float:
        """The utility (column 0) of one turn ending with `points` (pirate magic: `magic`):
        what the advisor values a stop or a bust at."""
        import numpy as np

        arr = np.array([points], dtype=np.int64)
        column = self.of_magic(arr) if magic else self.of_points(arr)
        return float(column[0, 0])


class ExpectedPoints(Objective):
    """Maximise the expected points of the turn (Skull Island is 0 for the player)."""

    def of_points(self, points: IntArray) -> FloatArray:
        import numpy as np

        return np.asarray(points, dtype=np.float64)[:, None]

    def utility_of(self, points: int, *, magic: bool = False) -> float:
        """The points themselves, as :meth:`of_points` gives them (a float64 of an integer),
        without numpy (a points answer's cold start)."""
        return float(points)


@dataclass(frozen=True)
class AtLeast(Objective):
    """Maximise the probability that the turn scores at least `need` points (pirate magic
    reaches every need)."""

    need: int

    def of_points(self, points: IntArray) -> FloatArray:
        import numpy as np

        return (np.asarray(points) >= self.need).astype(np.float64)[:, None]

    def of_magic(self, points: IntArray) -> FloatArray:
        import numpy as np

        return np.ones((np.asarray(points).shape[0], 1))

    def key(self) -> tuple[object, ...]:
        return ("AtLeast", self.need)


class Stacked(Objective):
    """Several objectives side by side, their columns in order: one solve or one policy
    evaluation of them all (:meth:`solver.engine.TurnSolution.column` takes a column
    back)."""

    def __init__(self, parts: tuple[Objective, ...]) -> None:
        if not parts:
            raise ValueError("no objective to stack")
        self.parts = parts

    def _stack(self, columns: list[FloatArray]) -> FloatArray:
        import numpy as np

        out: FloatArray = np.hstack(columns)
        return out

    def of_points(self, points: IntArray) -> FloatArray:
        return self._stack([p.of_points(points) for p in self.parts])

    def of_magic(self, points: IntArray) -> FloatArray:
        return self._stack([p.of_magic(points) for p in self.parts])

    def of_island(self, deduction: IntArray) -> FloatArray:
        return self._stack([p.of_island(deduction) for p in self.parts])

    def key(self) -> tuple[object, ...]:
        return ("Stacked", *(p.key() for p in self.parts))


@dataclass(frozen=True)
class Payoff:
    """Utilities of every way a turn can end, one column per objective."""

    stop: FloatArray
    """(n_full, B): stopping at each position (where stopping is allowed)."""
    bust: FloatArray
    """(n_partial, B): busting with the dice of this partial position not rolled."""
    first_bust: FloatArray
    """(B,): busting on the first roll."""
    island: FloatArray
    """(n_dice + 1, B): a first roll with s skull dice going to Skull Island."""

    @property
    def columns(self) -> int:
        return int(self.stop.shape[1])

    @staticmethod
    def stack(parts: list[Payoff]) -> Payoff:
        """The columns of several payoffs side by side (one batch)."""
        import numpy as np

        return Payoff(stop=np.hstack([p.stop for p in parts]),
                      bust=np.hstack([p.bust for p in parts]),
                      first_bust=np.concatenate([p.first_bust for p in parts]),
                      island=np.hstack([p.island for p in parts]))


def payoff_for(model: TurnModel, objective: Objective) -> Payoff:
    """Tabulate an objective's utilities over the turn model's endings.

    Skull Island's utility is its expectation over the island's exact distribution of
    deductions (:meth:`TurnModel.island_deduction`), summed in increasing deduction order.
    """
    import numpy as np

    stop = np.array(objective.of_points(model.stop_points), dtype=np.float64)
    magic = model.stop_magic
    if magic.any():
        stop[magic] = objective.of_magic(model.stop_points[magic])
    island = np.zeros((model.n_dice + 1, stop.shape[1]))
    for s in range(model.n_dice + 1):
        dist = sorted(model.island_deduction(s).items())
        utility = objective.of_island(np.array([d for d, _ in dist], dtype=np.int64))
        acc = np.zeros(stop.shape[1])
        for (_, p), row in zip(dist, utility, strict=True):
            acc = acc + float(p) * row
        island[s] = acc
    return Payoff(
        stop=stop,
        bust=np.asarray(objective.of_points(model.bust_points), dtype=np.float64),
        first_bust=objective.of_points(np.array([model.first_bust_points]))[0],
        island=island,
    )
