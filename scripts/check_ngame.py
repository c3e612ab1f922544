"""Check a committed game table of three players and more, every state: one improvement of
every phase at the table's own values (each state's turns solved again, at the final precision)
and one Jacobi step of the values under those turns.

    python scripts/check_ngame.py [--players 3] [--tables DIR] [--block 4096]
        [--variant target=1000 ...] [--sample N]

Prints, per phase, the largest residual (|the step's values - the table's|: the table is the
fixed point of its strategies to that), the largest gap (by how much a mover's best turn
beats the table's value) and the states whose gap passes the final precision. It solves every
turn once: about as long as one improvement of each phase of the solve (minutes for three
players at 6000 on 2 cores). With ``--sample N``, N states of each phase (a fixed sample, the
same every run) instead of all: for the tables too big to check whole here (four players).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from solver.engine import kernel
from solver.game.evaluate import sweep
from solver.game.model import game_model
from solver.game.records import FINAL_EPS, FINAL_TOL
from solver.game.solve import blocks_of
from solver.game.turns import improve
from solver.rules import Rules, rules_with
from solver.tables.game import read_game
from solver.tables.paths import committed_dir


def check(players: int, tables: Path, block: int, rules: Rules | None = None,
          sample: int | None = None) -> dict[str, dict[str, float]]:
    rules = rules or Rules()
    table = read_game(tables, rules, players)
    gm = game_model(rules, table.n_dice)
    seats = table.seats
    Z = table.stacked()
    out: dict[str, dict[str, float]] = {}
    with kernel.compiled_whenever_installed():
        for name, phase in seats.phases.items():
            t0 = time.perf_counter()
            offset = seats.offset(name)
            residual, gap, over, lost = 0.0, 0.0, 0, 0.0
            every = np.arange(phase.size, dtype=np.int64)
            if sample is not None and sample < phase.size:
                rng = np.random.default_rng(20)  # the same sample every run
                every = np.sort(rng.choice(phase.size, size=sample, replace=False))
            for index in blocks_of(every, block):
                got = improve(gm, seats, name, index, Z, tol=FINAL_TOL, eps=FINAL_EPS)
                points, island = seats.successors(name, index)
                step = np.zeros((index.shape[0], players))
                sweep(np.arange(index.shape[0], dtype=np.int64), got.endings,
                      np.ascontiguousarray(points.T), np.ascontiguousarray(island.T),
                      gm.island_deductions(), Z, offset + int(index[0]), seats.magic_row(),
                      step)
                here = Z[offset + index]
                residual = max(residual, float(np.abs(step - here).max()))
                g = got.best - here[:, 0]
                gap = max(gap, float(g.max()))
                over += int(np.count_nonzero(g > FINAL_TOL))
                lost = max(lost, float(got.lost.max()))
            out[name] = {"states": phase.size, "checked": every.shape[0],
                         "residual": residual, "gap": gap, "gap_over_final_tol": over, "lost": lost,
                         "seconds": time.perf_counter() - t0}
            print(f"{name:<7} {every.shape[0]:>9,} of {phase.size:,} states  "
                  f"residual {residual:.1e}  gap {gap:.1e}"
                  f"  ({over} states above {FINAL_TOL:.0e})  {out[name]['seconds']:.0f} s",
                  flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--tables", type=Path, default=None)
    parser.add_argument("--block", type=int, default=4096)
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--sample", type=int, default=None, metavar="N",
                        help="check N states of each phase (a fixed sample), not all")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    got = check(args.players, args.tables or committed_dir(), args.block,
                rules_with(args.variant), args.sample)
    if args.json:
        json.dump(got, sys.stdout, indent=2)
        print()
    return 0


if __name__ == "__main__":
    from solver.cli.main import end_on_sigterm

    end_on_sigterm()  # (a kill ends its joblib workers and their folders too)
    sys.exit(main())
