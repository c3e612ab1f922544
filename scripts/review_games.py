"""What the named heuristics lose per game in P(win), by seat, over simulated games each
reviewed as `sabords review` reviews one (solver/advice/reviews.py), and the share of a game's
outcome that is luck: the figures of the strategy report's review section.

    python scripts/review_games.py                      # every matchup below, 2 and 3 players
    python scripts/review_games.py --policies win,greedy --games 200 --seed 1
    python scripts/review_games.py --policies win,points,greedy --json

Each matchup's policies take turns in every seat (seat 1 moves first). Per policy and seat:
the games, the error per game (the sum of its decisions' costs, in points of P(win)), its
decisions and the error per decision, its luck per game (points), its win rate; then the share
of the outcome's variance that luck accounts for (Cov(luck, outcome) / Var(outcome), over every
player of every game).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

MATCHUPS = (("win", "points"), ("win", "need"), ("win", "greedy"), ("win", "two-skulls"),
            ("win", "first-roll"), ("win", "threshold=600"), ("win", "win"),
            ("win", "points", "greedy"), ("win", "win", "win"))
"""The matchups reviewed by default: the Win table against each heuristic at two players,
against two of them at three, and against itself (every decision best: the outcome is luck)."""


def main() -> None:
    from solver.advice.reviews import review_games
    from solver.advice.sources import Tables
    from solver.rules import rules_with

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policies", action="append", metavar="A,B[,C]",
                        help="a matchup, one policy a seat (repeatable; default: MATCHUPS)")
    parser.add_argument("--games", type=int, default=100, metavar="N")
    parser.add_argument("--seed", type=int, default=1, metavar="S")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    rules = rules_with(args.variant)
    matchups = ([tuple(p.split(",")) for p in args.policies] if args.policies
                else list(MATCHUPS))
    source = Tables()
    out = []
    for names in matchups:
        start = time.perf_counter()
        result = review_games(names, rules, source, games=args.games, seed=args.seed)
        seconds = time.perf_counter() - start
        out.append({**result.as_dict(), "seconds": seconds})
        if args.json:
            continue
        print(f"{' v '.join(names)}: {args.games} games, seed {args.seed}, "
              f"{'exact' if result.exact else 'near-optimal'} chances, {seconds:.0f} s")
        print(f"  {'policy':<14} {'seat':<5} {'games':>5} {'error':>7} {'decisions':>9} "
              f"{'each':>6} {'luck':>7} {'wins':>7}")
        for s in result.seats:
            each = 100 * s.error / s.decisions if s.decisions else float("nan")
            print(f"  {s.policy:<14} {s.seat or 'all':<5} {s.games:>5} {100 * s.error:>7.2f} "
                  f"{s.decisions:>9.1f} {each:>6.3f} {100 * s.luck:>+7.2f} "
                  f"{100 * s.result:>6.1f} %")
        print(f"  luck's share of the outcome: {100 * result.luck_share:.1f} %")
        sys.stdout.flush()
    if args.json:
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    from solver.cli.main import end_on_sigterm

    end_on_sigterm()  # (a kill ends its joblib workers and their folders too)
    main()
