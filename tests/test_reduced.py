"""Near-optimal play for four and five players (solver/game/reduced.py) and the measurement of
its loss (solver/game/deviation.py, solver/strategy/measure.py), on reduced games (three dice):

- on a game of its own size the method is the table: its utilities are the exact table's,
  every ending of every state, and a seat that plays it loses nothing;
- the table's own play evaluated as a profile gives the table's values back (the evaluation is
  the game's);
- the exact table is an equilibrium: no seat gains by playing the method instead (the loss is
  never below the noise), and the method loses little.
"""

from __future__ import annotations

import numpy as np
import pytest

from solver.game import GameTable
from solver.game.reduced import Projection, dangerous, reduced_utilities
from solver.game.solve import solve_game
from solver.game.turns import mover_utilities
from solver.rules import Rules
from solver.strategy.measure import measure_loss


def stacked(sol: GameTable) -> np.ndarray:
    seats = sol.seats
    return np.concatenate([*(sol.values[p] for p in seats.phases), seats.terminal])


@pytest.fixture(scope="module")
def four() -> tuple[GameTable, GameTable]:
    rules = Rules(target=400)
    return solve_game(rules, 4, n_dice=3), solve_game(rules, 3, n_dice=3)


def test_the_most_dangerous_are_the_highest_totals_a_tie_to_who_plays_sooner() -> None:
    totals = np.array([[5, 9, 9, 1], [3, 3, 3, 3], [0, 7, 2, 7]])
    assert dangerous(totals, 2).tolist() == [[1, 2], [0, 1], [1, 3]]
    assert dangerous(totals, 1).tolist() == [[1], [0], [1]]


@pytest.mark.parametrize("ties", ["shared", "trigger"])
def test_on_a_game_of_its_own_size_the_method_s_utilities_are_the_table_s(ties: str) -> None:
    """Three players projected onto three: every opponent is kept, every successor is the
    game's own state, so every utility of every ending is the exact table's (the method's code
    paths of every phase, the last final turn's results and sudden death included)."""
    sol = solve_game(Rules(target=500, ties=ties), 3, n_dice=3)
    Z = stacked(sol)
    proj = Projection(sol.seats, Z)
    for name, phase in sol.seats.phases.items():
        index = np.arange(phase.size, dtype=np.int64)
        exact, exact_island = mover_utilities(sol.seats, name, index, Z)
        ours, ours_island = reduced_utilities(sol.seats, proj, name, index)
        assert np.array_equal(exact, ours), name
        assert np.array_equal(exact_island, ours_island), name


def test_nobody_gains_by_the_method_and_it_loses_little(
        four: tuple[GameTable, GameTable]) -> None:
    """Four players, the method on the three-player table: the table's own play evaluated as
    a profile gives the table back (the evaluation is the game's); the exact table is an
    equilibrium, so a seat that plays the method gains nothing anywhere (within the noise);
    and it loses something (the method is not the table) but little: measured here 0.04
    points of P(win) on average in normal play, 0.34 at worst (three dice, target 400)."""
    big, small = four
    loss = measure_loss(big, small)
    assert loss.noise < 1e-9 and loss.residual <= 1e-13
    assert loss.least > -1e-9  # nobody gains
    assert 0 < loss.mean < 0.002 and loss.worst < 0.01
    lo = big.seats.offset("normal")
    assert loss.start_exact == list(stacked(big)[lo])


def test_a_seat_that_plays_the_method_on_its_own_size_loses_nothing() -> None:
    sol = solve_game(Rules(target=300), 3, n_dice=3)
    loss = measure_loss(sol, sol)
    assert abs(loss.mean) < 1e-9 and abs(loss.worst) < 1e-9 and loss.least > -1e-9
