"""Measure near-optimal play for four and five players (solver/game/reduced.py) and store the
figures beside the committed tables (tables/near-optimal.json), where every near-optimal
answer reads them.

    python scripts/measure_reduced.py exact --players 4 --variant target=2000 --tables DIR
    python scripts/measure_reduced.py games --players 4 [--games 20000]
    python scripts/measure_reduced.py games --players 4 --start 2000,2000,2000,5900 --seed 4242
    python scripts/measure_reduced.py down [--sample 20000]

``down``: the method one player down where the truth is known at the default target: three
players from the pairs alone (solver/game/estimate.py) against the committed three-player
table, the chances shown at a fixed sample of the states of every phase.

``exact``: against the exact table of the game (DIR holds the tables of 2, 3 and the players,
`sabords solve-game --players N --variant ... --out DIR`): the chances shown at every state of
normal play and sudden death and at a sample of the final round's, every seat, against the
table's; the moves' loss in P(win) (the final round played as the table does: the method's
normal play and sudden death, with --final-play the final round too); with --sample N, the
chances alone at a fixed sample of N states of every phase. ``games``: at the default target,
the chances shown at the start and at five states of the middle of a game, against the win
rate of whole games from there where every seat plays the method (each seat's 95 % Wilson
interval). Prints the figures as JSON; --write adds them to
tables/near-optimal.json (replacing an entry of the same kind, players, target and ties).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tables" / "near-optimal.json"

MIDGAME = {4: [(3000, 3000, 3000, 3000), (4500, 2000, 5000, 1500), (1000, 4000, 2500, 5500),
               (5800, 5800, 0, 3000), (2000, 2000, 2000, 5900)],
           5: [(3000, 3000, 3000, 3000, 3000), (4500, 2000, 5000, 1500, 3500),
               (1000, 4000, 2500, 5500, 0), (5800, 5800, 0, 3000, 4000),
               (2000, 2000, 2000, 2000, 5900)]}
"""The states of the middle of a game whose chances whole games check (points, the mover
first): even, mixed, a leader near the target, two near it, one at 5900."""


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def exact(args: argparse.Namespace) -> dict[str, object]:
    from solver.rules import rules_with
    from solver.strategy.measure import measure_loss
    from solver.tables.game import read_game
    from solver.tables.paths import game_default_dir

    rules = rules_with(args.variant)
    tables = args.tables or game_default_dir(rules)
    big = read_game(tables, rules, args.players)
    two, three = read_game(tables, rules, 2), read_game(tables, rules, 3)
    t0 = time.perf_counter()
    loss = measure_loss(big, two, three, jobs=args.jobs, final_play=args.final_play,
                        play=args.sample is None, sample=args.sample,
                        final_sample=args.final_sample,
                        progress=lambda s: say(f"{time.perf_counter() - t0:7.0f} s  {s}"))
    return {"kind": "exact", "sample": args.sample, **loss.as_dict()}


def down(args: argparse.Namespace) -> dict[str, object]:
    from solver.rules import Rules
    from solver.strategy.measure import measure_loss
    from solver.tables.game import read_game
    from solver.tables.paths import committed_dir

    rules = Rules()
    two, three = read_game(committed_dir(), rules, 2), read_game(committed_dir(), rules, 3)
    t0 = time.perf_counter()
    loss = measure_loss(three, None, two, jobs=args.jobs, play=False, sample=args.sample,
                        progress=lambda s: say(f"{time.perf_counter() - t0:7.0f} s  {s}"))
    return {"kind": "down", "sample": args.sample, **loss.as_dict()}


def _state_games(players: int, start: tuple[int, ...], games: int, seed: int) -> dict[str, Any]:
    """Whole games from `start` where every seat plays the method: each seat's chance shown
    there against its win rate (95 % Wilson interval)."""
    from solver.engine.stats import wilson_interval
    from solver.rules import Rules
    from solver.rules.standing import Standing
    from solver.strategy.games import play_n_games
    from solver.tables.game import game_of

    rules = Rules()
    game = game_of(rules, players)
    shown = game.chances(Standing.of(rules, start[0], start[1:])).seats
    score, turns = play_n_games(["win"] * players, rules, games=games, seed=seed,
                                win=game.win_play(), start=start)
    wins = score.sum(axis=0)
    rows = []
    for seat in range(players):
        lo, hi = wilson_interval(float(wins[seat]), games)
        rows.append({"shown": shown[seat], "rate": float(wins[seat]) / games,
                     "ci95": [lo, hi], "inside": lo <= shown[seat] <= hi})
    return {"start": list(start), "games": games, "seed": seed, "turns": float(turns.mean()),
            "seats": rows}


def _totals(text: str) -> tuple[int, ...]:
    try:
        totals = tuple(int(t) for t in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not totals: {text!r} (e.g. 2000,2000,2000,5900)") from None
    if any(t < 0 or t % 100 for t in totals):
        raise argparse.ArgumentTypeError(f"totals are multiples of 100 from 0: {text!r}")
    return totals


def games(args: argparse.Namespace) -> dict[str, object]:
    from joblib import Parallel, delayed

    from solver.rules import Rules

    rules = Rules()
    starts: list[tuple[int, ...]] = [(0,) * args.players, *MIDGAME[args.players]]
    if args.start is not None:
        starts = [args.start]
    t0 = time.perf_counter()
    # each state its own seed (the seed plus its place): the same games for any --jobs
    runs = Parallel(n_jobs=args.jobs, return_as="generator")(
        delayed(_state_games)(args.players, start, args.games, args.seed + k)
        for k, start in enumerate(starts))
    states = []
    for state in runs:
        states.append(state)
        rows = state["seats"]
        say(f"{time.perf_counter() - t0:7.0f} s  {state['start']}: "
            + ", ".join(f"{100 * r['shown']:.2f} in [{100 * r['ci95'][0]:.2f}, "
                        f"{100 * r['ci95'][1]:.2f}]" for r in rows))
    inside = sum(r["inside"] for s in states for r in s["seats"])
    total = sum(len(s["seats"]) for s in states)
    return {"kind": "games", "players": args.players, "target": rules.target,
            "ties": rules.ties, "states": states, "inside": inside, "checked": total,
            "seconds": time.perf_counter() - t0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    one = sub.add_parser("exact")
    one.add_argument("--players", type=int, required=True, choices=(4, 5))
    one.add_argument("--variant", action="append", default=[])
    one.add_argument("--tables", type=Path, default=None,
                     help="the exact tables' directory (default: where `sabords` finds them)")
    one.add_argument("--jobs", type=int, default=2, help="processes")
    one.add_argument("--final-play", action="store_true",
                     help="the method plays the final round in the profiles too")
    one.add_argument("--sample", type=int, default=None,
                     help="the chances alone, at a fixed sample of N states of every phase "
                          "(the play is measured at every state: a large game's takes hours)")
    one.add_argument("--final-sample", type=int, default=20_000,
                     help="the chances of at most N states of each final phase (a fixed sample)")
    two = sub.add_parser("games")
    two.add_argument("--players", type=int, required=True, choices=(4, 5))
    two.add_argument("--games", type=int, default=20_000)
    two.add_argument("--seed", type=int, default=6000)
    two.add_argument("--jobs", type=int, default=1,
                     help="processes (the states in parallel: the same games for any number)")
    two.add_argument("--start", type=_totals, default=None, metavar="T1,T2,...",
                     help="one state alone (the totals in seat order, the mover first), "
                          "played with --seed itself: a second look, not stored (no --write)")
    three = sub.add_parser("down")
    three.add_argument("--sample", type=int, default=20_000)
    three.add_argument("--jobs", type=int, default=2, help="processes")
    for p in (one, two, three):
        p.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if args.what == "games" and args.start is not None:
        if len(args.start) != args.players:
            parser.error(f"--start needs {args.players} totals, not {len(args.start)}")
        if args.write:
            parser.error("--start plays one state: its games are not stored (no --write)")
    entry = {"exact": exact, "games": games, "down": down}[args.what](args)
    print(json.dumps(entry, indent=1))
    if args.write:
        data = json.loads(OUT.read_text(encoding="utf-8")) if OUT.is_file() else {}
        key = (entry["kind"], entry["players"], entry["target"], entry["ties"])
        kept = [e for e in data.get("measured", [])
                if (e["kind"], e["players"], e["target"], e["ties"]) != key]
        kept.append(entry)
        kept.sort(key=lambda e: (e["kind"], e["players"], e["target"], e["ties"]))
        OUT.write_text(json.dumps({"measured": kept}, indent=1) + "\n", encoding="utf-8")
        say(f"written: {OUT}")


if __name__ == "__main__":
    main()
