"""The strategy report's chapter on games reviewed: what the named heuristics lose per game in
P(win), by seat, and how much of a game's outcome is luck (:mod:`report`; the figures of
`scripts/review_games.py`, fewer games)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the report's sibling modules

from report_base import Report, table  # noqa: E402

REVIEWED = (("win", "points"), ("win", "greedy"), ("win", "two-skulls"),
            ("win", "threshold=600"), ("win", "win"), ("win", "points", "greedy"),
            ("win", "win", "win"))
"""The matchups reviewed: the Win table against each named heuristic at two players, against
two of them at three, and against itself (every decision best: the outcome is luck alone)."""
GAMES = {2: 60, 3: 30}
"""Games a matchup, by players (a review of a game of two takes about 0.25 s here, of three
0.5 s: the chapter's cost is bounded; each figure carries its standard error)."""
SEED = 1


def section_reviews(r: Report) -> str:
    """Simulated games between the Win table and the heuristics, each reviewed as `sabords
    review` reviews one: each policy's error per game by seat, and luck's share."""
    from solver.advice.reviews import review_games
    from solver.advice.sources import Tables

    source = Tables()
    rows, shares, luck = [], [], []
    for names in REVIEWED:
        players = len(names)
        r.log(f"games reviewed: {' v '.join(names)}")
        got = review_games(names, r.rules, source, games=GAMES[players], seed=SEED)
        label = f"{' v '.join(names)} ({players} players)"
        shares.append([label, str(got.games), f"{100 * got.luck_share:.1f} %"])
        luck.append(got.luck_share)
        for policy in dict.fromkeys(names):
            every = got.seat(policy)
            by_seat = [got.seat(policy, s) for s in range(1, players + 1)]
            each = every.error / every.decisions if every.decisions else float("nan")
            rows.append([label, f"`{policy}`",
                         f"{100 * every.error:.2f} ± {100 * every.error_se:.2f}",
                         *(f"{100 * s.error:.2f}" for s in by_seat),
                         *([""] if players == 2 else []),
                         f"{100 * each:.3f}", f"{every.decisions:.1f}",
                         f"{100 * every.result:.1f} %"])
    header = ["matchup", "policy", "error a game (± s.e.)", "seat 1", "seat 2", "seat 3",
              "a decision", "decisions a game", "wins"]
    return f"""## Games reviewed: where the heuristics lose, and how much is luck

Games between the Win table and a named heuristic, the seats turning every game, each game
reviewed as `sabords review` reviews one (`solver/advice/reviews.py`; the exact tables of two
and three players): a decision's **error** is the chance of winning the best move gave minus
the chance the move played gave; a policy's error a game is the sum of its decisions' errors,
in points of P(win) (0.01 = 1 point), with its standard error over the games; by seat (seat 1
moves first); a decision's on average, and its share of the wins. {GAMES[2]} games a matchup
at two players, {GAMES[3]} at three, seed {SEED} (`python scripts/review_games.py` for more).
The Win table against itself makes no error (its row is the check).

{table(header, rows, "llrrrrrrr")}

**How much of the outcome is luck.** For each player of each game, the result (1 a win, 0 a
loss, a shared tie its share) minus the chance at the start is exactly the sum of every event's
change of that player's chance: the luck (the cards drawn and the dice) plus the play (its own
decisions' and the others'). Luck's share of the outcome is Cov(luck, outcome) / Var(outcome)
over every player of every game:

{table(["matchup", "games", "luck's share"], shares)}

Luck's share is {100 * min(luck):.0f} to {100 * max(luck):.0f} % in these matchups (the rest
of the outcome's variance is play's: the decisions' errors above and the others' moves).
"""


__all__ = ["section_reviews"]
