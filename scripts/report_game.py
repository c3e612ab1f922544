"""The strategy report's chapters on playing to win: two players, then three (:mod:`report`)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the report's sibling modules

from typing import Any

from report_base import Report, pct, pts, signed, table  # noqa: E402
from report_plots import _pyplot  # noqa: E402

from solver.advice.ranking import ranked_cards  # noqa: E402
from solver.engine import solve_turn  # noqa: E402
from solver.rules import CARDS, Rules  # noqa: E402
from solver.strategy.policies import optimal_solution  # noqa: E402

GAME_GRID = (0, 1500, 3000, 4500, 5500)
"""Totals (points) of the score grid of the playing-to-win section's tables."""


def section_playing_to_win(r: Report) -> str:
    """The two-player game, W over the score grid, win policy against points policy."""
    from solver.advice.sources import Tables
    from solver.engine import ExpectedPoints
    from solver.game import GameUtility, deck, game_model
    from solver.game.profiles import profile_values, win_endings
    from solver.rules.standing import Standing

    r.log("game tables")
    two = Tables().game(r.rules, 2)
    target = r.rules.target
    n = target // 100
    win = two.values["normal"][:, 0].reshape(n, n)  # type: ignore[attr-defined]
    first = float(win[0, 0])
    lead = next(d for d in range(n) if win[0, d] < 0.5)
    heat = r.figure("strategy-win-probability.png", plot_win(win, target),
                    "Heat map of the probability that the player about to draw wins")
    r.log("win policy against points policy at a few scores")
    optimum = r.deck(r.optimal)
    rows_ev, rows_diff = [], []
    for me in GAME_GRID:
        ev_row, diff_row = [str(me)], [str(me)]
        for opp in GAME_GRID:
            u = two.objectives(Standing.of(r.rules, me, [opp]))[0].utility  # type: ignore[attr-defined]
            ev, differs = 0.0, 0.0
            for card, weight in deck().items():
                pol = solve_turn(CARDS[card], r.rules.turn_rules(), GameUtility(u)).policy()
                ev += weight * float(solve_turn(CARDS[card], r.rules.turn_rules(), ExpectedPoints(),
                                                policy=pol).turn_value[0])
                differs += weight * _points_move_loses(card, r.rules, u)
            ev_row.append(signed(ev - optimum))
            diff_row.append(pct(differs))
        rows_ev.append(ev_row)
        rows_diff.append(diff_row)
    header = ["you \\ opponent", *(str(o) for o in GAME_GRID)]
    r.log("win policy against points policy, exactly (the profile's values)")
    ends = win_endings(two, game_model(r.rules), two.seats)  # type: ignore[attr-defined]
    first_win = float(profile_values(two, ["win", "points"], win=ends).normal[0][0])
    second_win = float(profile_values(two, ["points", "win"], win=ends).normal[0][1])
    win_all = (first_win + second_win) / 2
    cards = two.chances(Standing.of(r.rules, 0, [0])).cards
    order = ranked_cards(cards)
    best_card, worst_card = order[0][0], order[-1][0]
    return f"""
## Playing to win (two players)

The expected-points optimum plays every turn the same at every score; `sabords advise --me
--opp` plays each turn to maximise the probability of winning the game (both players doing
so, cards drawn independently with the deck's frequencies; `solver/game/`). At the target
{target}:

- **First-player advantage.** The first player wins {pct(first)} of the games (the second
  {pct(1 - first)}; a shared tie counts 1/2). It is worth about a {lead * 100}-point head start:
  a first player at 0 against {lead * 100} has {100 * float(win[0, lead]):.2f} %. Drawing the
  {best_card} card for the first turn lifts the first player to {pct(cards[best_card])},
  the {worst_card} card drops them to {pct(cards[worst_card])}.
- **Win policy against points policy.** Exactly (the values of the game where one player
  plays the win policy's turns and the other the points optimum's: one linear system,
  `solver/game/profiles.py`), the win policy wins {pct(win_all)} of the games, seats swapped:
  {pct(first_win)} when moving first, {pct(second_win)} when moving second
  (`sabords game --policies win,points` plays such games with real dice). The edge is
  small: most of a game is decided by the dice, and the two policies agree on most moves far
  from the end.

{heat}

**Where the win policy departs from the points policy.** The expected points of the win
policy's turn (deck-weighted, exact policy evaluation) minus the points optimum
({pts(optimum)}): it gives points away to gamble when far behind, and to bank when ahead near
the target.

{table(header, rows_ev)}

The share of the positions (every live position of the turn's first world counted once,
deck-weighted) where the expected-points move loses probability of winning against the win
policy's move (by more than 1e-9: equally good moves, e.g. keeping the monkeys or the
parrots of a symmetric roll, are not counted):

{table(header, rows_diff)}
"""


HEAD_STARTS = (0, 500, 1000, 2000)
"""The head starts of the three-player chapter (points, seat 3's)."""


def section_three_players(r: Report) -> str:
    """The three-player game: each seat's chance from the start, a head start, and
    the edge of playing to win, exactly."""
    from solver.advice.sources import Tables
    from solver.game.query import state_of
    from solver.rules.standing import Standing
    from solver.tables.profiles import read_edge

    r.log("the three-player game table")
    game = Tables().game(r.rules, 3)
    target = r.rules.target
    start = game.values["normal"][0]
    records = game.records

    def chance(me: int, *others: int) -> Any:
        name, index = state_of(game, Standing.of(r.rules, me, others))
        return game.values[name][index]

    heads = [(h, chance(0, 0, h)) for h in HEAD_STARTS]
    even = next((h for h in range(0, target, 100) if chance(0, 0, h)[2] >= chance(0, 0, h)[0]),
                None)
    r.log("the edge of playing to win (tables/profiles.json: make profiles)")
    edge = read_edge(r.rules, 3)
    alone, points_alone = edge.lone("win"), edge.lone("points")
    rows = [[str(h), *(pct(float(p)) for p in v)] for h, v in heads]
    proofs = [[name, str(rec.iterations), f"{rec.bound:.1e}", f"{rec.gap:.1e}",
               f"{rec.turns:.1f}", str(rec.cycles), f"{rec.slack:.1e}"]
              for name, rec in records.items()]
    if even is None:
        even_text = "more than the target"
    else:
        at = chance(0, 0, even)
        even_text = (f"about {even} points: at 0, 0, {even} the third seat has "
                     f"{pct(float(at[2]))} against the first's {pct(float(at[0]))}")
    return f"""
## Playing to win (three players)

Three players, each maximising their own probability of winning (`sabords winprob --me A
--opp B --opp C`; the exact game of `solver/game/solve.py`, solved by policy iteration on
Dask, `sabords solve-game --players 3`). At the target {target}:

- **From 0, 0, 0.** The first player wins {pct(float(start[0]))}, the second
  {pct(float(start[1]))}, the third {pct(float(start[2]))} (a shared tie split).
- **A head start.** The chances (first, second, third player) when the third player starts
  ahead; the head start that makes the third player even with the first is {even_text}:

{table(["third's head start", "first", "second", "third"], rows)}

- **The edge of playing to win**, exactly (the values of the game under a profile of play,
  `solver/game/profiles.py`): one player playing the win policy against two playing for
  expected points wins {pct(alone[0])} from the first seat, {pct(alone[1])} from the second,
  {pct(alone[2])} from the third; one player playing for points against two playing to win
  wins {pct(points_alone[0])}, {pct(points_alone[1])}, {pct(points_alone[2])}. The win
  turns of every state, then six linear systems (residual {edge.residual:.0e}): `make
  profiles` computes them from the committed table into `tables/profiles.json` (about
  {round(edge.seconds / 60)} minutes on 2 cores) and this report reads them there.

**What was proved and what was measured** (the table's record). Proved: every value is within
the bound of the exact value of the table's strategies (the evaluation's residual times a
checked bound on the expected turns in the phase, plus the phases before it). Measured: the
gap, by how much a mover's best turn beats the table's at its values (each turn is a best
response to that precision); the table's strategies are an equilibrium the iteration reached
from every value at 1/3, not proved the only one. Where best responses went round in a cycle
(at a few states no pure equilibrium exists: each of two movers' best turn depends on the
other's), the table keeps the moves whose movers lose least, and the slack is what a mover
there could still gain (measured). The final round's phases are its turns from the last:
`final1` is its last turn, `final2` the one before (solved in that order).

{table(["phase", "improvements", "proved bound", "measured gap", "turns (bound)",
        "cycle states", "slack"], proofs)}
"""


def _points_move_loses(card: str, rules: Rules, u: Any) -> float:
    """Share of the live positions of the first-roll world where the expected-points move
    has a lower probability of winning (by more than 1e-9) than the best move."""
    import numpy as np

    from solver.engine import STOP, USED, payoff_for, turn_model
    from solver.game import GameUtility

    objective = GameUtility(u)
    win = solve_turn(CARDS[card], rules.turn_rules(), objective)
    start = max(win.worlds)
    points = optimal_solution(CARDS[card], rules).worlds[start]
    stop = payoff_for(turn_model(CARDS[card], rules.turn_rules()), objective).stop[:, 0]
    code, sor = points.policy[:, 0], points.sorceress[:, 0]
    live = code != -2
    idx = np.maximum(code, 0)
    value = np.where(code == STOP, stop,
                     np.where(sor, win.worlds[USED].keep_value[idx, 0],
                              win.worlds[start].keep_value[idx, 0]))
    best = win.worlds[start].value[:, 0]
    return float((value[live] < best[live] - 1e-9).mean())


def plot_win(win: Any, target: int) -> Any:
    plt = _pyplot()
    import numpy as np

    fig, ax = plt.subplots(figsize=(7, 6))
    n = win.shape[0]
    im = ax.imshow(win, origin="lower", extent=(-50, n * 100 - 50, -50, n * 100 - 50),
                   cmap="RdBu", vmin=0, vmax=1)
    levels = [0.1, 0.25, 0.5, 0.75, 0.9]
    cs = ax.contour(np.arange(n) * 100, np.arange(n) * 100, win, levels=levels, colors="black",
                    linewidths=0.6)
    ax.clabel(cs, fmt="%.2f", fontsize=7)
    ax.set_xlabel("opponent's total")
    ax.set_ylabel("your total (you are about to draw)")
    ax.set_title(f"P(win) when both play to win, target {target}")
    fig.colorbar(im, ax=ax, label="probability of winning")
    fig.tight_layout()
    return fig
