"""Measure near-optimal play (solver/game/reduced.py) against an exact table, at every state,
and store the figures beside the committed tables (tables/near-optimal.json), where every
near-optimal answer reads them.

    python scripts/measure_reduced.py --players 4 --variant target=1000 --tables DIR
    python scripts/measure_reduced.py --players 3            # against 2 players, at 6000

DIR holds the exact tables of the players and of three (`sabords solve-game --players N
--variant ... --out DIR`). With --players 3 the method's small game is the two-player one
(the same method one player down, against the exact three-player table: the committed one
for the default rules). Prints the figures as JSON; --write adds them to
tables/near-optimal.json (replacing an entry of the same players, target and ties).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tables" / "near-optimal.json"


def main() -> None:
    from solver.rules import rules_with
    from solver.strategy.measure import measure_loss
    from solver.tables.game import read_game
    from solver.tables.paths import game_default_dir

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, required=True, choices=(3, 4, 5))
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--tables", type=Path, default=None,
                        help="the exact tables' directory (default: where `sabords` finds them)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="processes (the table's turns on a local Dask cluster)")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    rules = rules_with(args.variant)
    tables = args.tables or game_default_dir(rules)
    big = read_game(tables, rules, args.players)
    small = read_game(tables, rules, args.players - 1 if args.players == 3 else 3)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    if args.jobs > 1:  # the table's turns on a local Dask cluster, as the solve runs them
        from solver.game.cluster import DaskRunner, local_cluster

        with local_cluster(args.jobs) as client:
            runner = DaskRunner(client, rules, big.players, big.n_dice)
            loss = measure_loss(big, small, jobs=args.jobs, runner=runner, progress=say)
    else:
        loss = measure_loss(big, small, jobs=1, progress=say)
    entry = loss.as_dict()
    print(json.dumps(entry, indent=1))
    if args.write:
        data = json.loads(OUT.read_text(encoding="utf-8")) if OUT.is_file() else {"losses": []}
        key = (entry["players"], entry["target"], entry["ties"])
        data["losses"] = [e for e in data["losses"]
                          if (e["players"], e["target"], e["ties"]) != key] + [entry]
        data["losses"].sort(key=lambda e: (e["players"], e["target"], e["ties"]))
        OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        say(f"written: {OUT}")


if __name__ == "__main__":
    main()
