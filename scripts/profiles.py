"""Compute the edge of playing to win from the committed game table, into tables/profiles.json.

    make profiles                                  # three players at the default target
    .venv/bin/python scripts/profiles.py [--players 3] [--workers N]

Every seat's chance from the start when one seat alone plays to win against the others playing
for points, and the reverse (`solver/game/profiles.py: edge_of_play`): the win turns of every
state of the table (an improvement of the whole table, on a local Dask cluster), then 2 × N
linear systems, two at a time. Three players at 6000 took 20 minutes on 2 cores (1207 s). The
strategy report (`make report`) reads the result instead of computing it again; the entry
names the table file it was computed from, and a table solved again leaves it stale.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.rules import Rules  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Example: .venv/bin/python scripts/profiles.py")
    parser.add_argument("--players", type=int, default=3, choices=(2, 3),
                        help="the committed game table's players (default 3)")
    parser.add_argument("--workers", type=int, default=None,
                        help="local Dask workers for the win turns (default: one a core)")
    args = parser.parse_args(argv)

    from solver.advice.sources import Tables
    from solver.game import game_model
    from solver.game.cluster import DaskRunner, local_cluster
    from solver.game.profiles import edge_of_play, win_endings
    from solver.limits import cores
    from solver.tables.profiles import StoredEdge, table_digest, write_edge

    start = time.perf_counter()

    def log(message: str) -> None:
        print(f"profiles: {message} ({time.perf_counter() - start:.0f} s)", file=sys.stderr,
              flush=True)

    def progress(name: str, done: int, of: int) -> None:
        if done * 4 // of != (done - 1) * 4 // of:  # a quarter of the phase's blocks done
            log(f"  {name}: block {done} of {of}")

    rules = Rules()
    table = Tables().game(rules, args.players)
    digest = table_digest(args.players)
    log("the win turns of every state (an improvement of the whole table, on Dask)")
    with local_cluster(args.workers) as client:
        win = win_endings(table, game_model(rules), table.seats,
                          DaskRunner(client, rules, args.players), progress)
    edge = edge_of_play(table, win, log, threads=min(2, cores()))
    del win
    seconds = time.perf_counter() - start
    peak = max(resource.getrusage(who).ru_maxrss
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    path = write_edge(StoredEdge(players=args.players, rules_hash=rules.hash,
                                 target=rules.target, table=digest, profiles=edge.profiles,
                                 start=edge.start, residual=edge.residual,
                                 seconds=round(seconds, 1), peak_gb=round(peak / 2**20, 2)))
    for profile, values in zip(edge.profiles, edge.start, strict=True):
        chances = ", ".join(f"{100 * v:.2f} %" for v in values)
        print(f"{','.join(profile)}: {chances}")
    log(f"residual {edge.residual:.1e}; written to {path} (largest process "
        f"{peak / 2**20:.2f} GB)")
    return 0


if __name__ == "__main__":
    from solver.cli.main import end_on_sigterm

    end_on_sigterm()  # (a kill ends its joblib workers and their folders too)
    sys.exit(main())
