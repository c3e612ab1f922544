"""Measure near-optimal play for four and five players (solver/game/reduced.py) and store the
figures beside the committed tables (tables/near-optimal.json), where every near-optimal
answer reads them.

    python scripts/measure_reduced.py exact --players 4 --variant target=2000 --tables DIR
    python scripts/measure_reduced.py games --players 4 [--games 20000]
    python scripts/measure_reduced.py games --players 5 --games 20000 --chunk 1000 --resume --write
    python scripts/measure_reduced.py games --players 4 --start 2000,2000,2000,5900 --seed 4242
    python scripts/measure_reduced.py down [--sample 20000]
    python scripts/measure_reduced.py ahead --players 5 [--jobs 2]
    python scripts/measure_reduced.py ahead --down [--sample 2000]
    python scripts/measure_reduced.py ahead --players 5 --variant target=500 --tables DIR

``down``: the method one player down where the truth is known at the default target: three
players from the pairs alone (solver/game/estimate.py) against the committed three-player
table, the chances shown at a fixed sample of the states of every phase.

``ahead``: where the chances shown at 6000 miss the games (a diagnosis, never stored): at the
games' states, every seat's chance shown (the mover's turn solved one ahead, its endings
valued by the estimate) and valued two ahead (the same turn, each of its endings of normal
play valued by the next mover's turn solved on the estimate, as the chance shown at that
state is), against the win rates of the games stored in the --out file. With --down, one
player down (as ``down``) at a sample of normal play, zero ahead (the estimate itself: what
`advise` values an option's endings by, a stop's chance), one ahead and two ahead against
the exact three-player table; with --variant (e.g. target=500), the same against the exact
table of --players under those rules.

``exact``: against the exact table of the game (DIR holds the tables of 2, 3 and the players,
`sabords solve-game --players N --variant ... --out DIR`): the chances shown at every state of
normal play and sudden death and at a sample of the final round's, every seat, against the
table's; the moves' loss in P(win) (the final round played as the table does: the method's
normal play and sudden death, with --final-play the final round too); with --sample N, the
chances alone at a fixed sample of N states of every phase. ``games``: at the default target,
the chances shown at the start and at five states of the middle of a game, against the win
rate of whole games from there where every seat plays the method (each seat's 95 % Wilson
interval). With --chunk N a state's games are played N at a time, each chunk its own seed;
--resume keeps the chunks stored (of the same states and seeds, if the chances shown there and
a probe of two games from the start are unchanged) and plays only the missing ones, and with
--write stores each chunk as it ends: a check of many hours (five players on 20,000 games a
state) is played over several runs, and an interrupted one goes on where it stopped. A
resumed run that would leave out stored games (another --games, --chunk or --seed, a method
changed) is refused before it stores anything, unless --replace. (Without --resume the entry is
written once, at the end, in place of the stored one.) Prints the figures as JSON;
--write adds them to tables/near-optimal.json (replacing an entry of the same kind, players,
target and ties).
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import math
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


def _two_ahead(table: Any, two: Any, three: Any, index: Any,
               jobs: int = 1) -> tuple[Any, Any, int]:
    """Every seat's chance at states `index` of normal play of `table`'s game (an exact table,
    or the method's own :class:`~solver.game.reduced.ReducedTable`) by the method on the tables
    `two` and `three` (`two` None: one player down): one ahead, as shown (the mover's turn the
    method's, its endings valued by the estimate), and two ahead (the same turn, its endings of
    normal play valued one ahead, every next mover's turn in one batch); and how many states
    were valued one ahead."""
    import numpy as np

    from solver.game.model import game_model
    from solver.game.seats import NORMAL
    from solver.strategy.measure import _method, endings_of

    players = table.players
    lo, phase = table.seats.offset(NORMAL), table.seats.phases[NORMAL]
    ends, one = endings_of(table, two, three, NORMAL, index, chances=True, jobs=jobs)
    method = _method(two, three, players)
    points, island = method.seats.successors(NORMAL, index)
    rows = np.concatenate([points.ravel(), island.ravel()])
    values = method.estimate.rows(rows, shift=False)  # (as successor_values: not raced)
    sel = np.flatnonzero((rows >= lo) & (rows < lo + phase.size))
    unique, back = np.unique(rows[sel], return_inverse=True)
    _, next_one = endings_of(table, two, three, NORMAL, unique - lo, chances=True, jobs=jobs)
    values[sel] = next_one[back.reshape(-1)]
    values = np.roll(values, 1, axis=1)  # the next state's seat j is this one's j + 1
    cut = points.size
    gm = game_model(method.rules, method.n_dice)
    out = np.einsum("sk,ksn->sn", ends[:, :-1], values[:cut].reshape(*points.shape, players))
    out[:, 0] += ends[:, -1]
    out += np.einsum("d,dsn->sn", gm.island_deductions(),
                     values[cut:].reshape(*island.shape, players))
    return one, out, int(unique.shape[0])


def _ahead_once(players: int, start: tuple[int, ...]) -> dict[str, Any]:
    """`ahead`'s row of one of the games' states: the chances shown, and two ahead."""
    import numpy as np

    from solver.game.query import state_of
    from solver.rules import Rules
    from solver.rules.standing import Standing
    from solver.tables.game import game_of, read_game
    from solver.tables.paths import committed_dir

    rules = Rules()
    game = game_of(rules, players)
    two, three = read_game(committed_dir(), rules, 2), read_game(committed_dir(), rules, 3)
    t0 = time.perf_counter()
    _, index = state_of(game, Standing.of(rules, start[0], start[1:]))
    one, two_ahead, valued = _two_ahead(game, two, three, np.array([index], dtype=np.int64))
    return {"start": list(start), "shown": [float(x) for x in one[0]],
            "two_ahead": [float(x) for x in two_ahead[0]], "states_valued_one_ahead": valued,
            "seconds": time.perf_counter() - t0}


def _exact_ahead(big: Any, two: Any, three: Any, sample: int | None,
                 jobs: int) -> dict[str, Any]:
    """`ahead --down` or `--variant`: the method on the tables `two` and `three` (`two` None:
    one player down, three from the pairs) against the exact table `big` of its players, at
    every state of normal play or a fixed sample of `sample`, every seat's chance zero ahead
    (the estimate itself), one ahead and two ahead (:func:`_two_ahead`)."""
    from dataclasses import asdict

    import numpy as np

    from solver.game.seats import NORMAL
    from solver.strategy.measure import Off, _method

    phase, lo = big.seats.phases[NORMAL], big.seats.offset(NORMAL)
    rng = np.random.default_rng(2026)  # a fixed sample (the generator `down` draws with)
    index = (np.arange(phase.size, dtype=np.int64) if sample is None or sample >= phase.size
             else np.sort(rng.choice(phase.size, sample, replace=False)))
    t0 = time.perf_counter()
    one, two_ahead, valued = _two_ahead(big, two, three, index, jobs)
    say(f"{index.shape[0]:,} states, {valued:,} after them valued one ahead")
    exact = np.asarray(big.stacked()[lo + index])
    totals = phase.decode(index)
    # zero ahead: the estimate itself, by which `advise` values an option's endings (a stop's
    # chance is the estimate of the state it leads to)
    zero = _method(two, three, big.players).estimate.values(NORMAL, totals)
    return {"kind": "ahead", "down": two is None, "players": big.players,
            "target": big.rules.target, "sample": int(index.shape[0]),
            "valued_one_ahead": valued,
            "zero_ahead": asdict(Off.of(zero, exact, totals)),
            "one_ahead": asdict(Off.of(np.asarray(one), exact, totals)),
            "two_ahead": asdict(Off.of(two_ahead, exact, totals)),
            "seconds": time.perf_counter() - t0}


def ahead(args: argparse.Namespace) -> dict[str, object]:
    from concurrent.futures import ProcessPoolExecutor

    from solver.rules import Rules

    if args.down or args.variant:
        from solver.rules import rules_with
        from solver.tables.game import read_game
        from solver.tables.paths import committed_dir, game_default_dir

        if args.down:
            rules = Rules()
            two, three = (read_game(committed_dir(), rules, 2),
                          read_game(committed_dir(), rules, 3))
            return _exact_ahead(three, None, two, args.sample, args.jobs)
        rules = rules_with(args.variant)  # (a bad variant or a missing table: main's one line)
        tables = args.tables or game_default_dir(rules)
        return _exact_ahead(read_game(tables, rules, args.players), read_game(tables, rules, 2),
                            read_game(tables, rules, 3), args.sample, args.jobs)

    starts = [(0,) * args.players, *MIDGAME[args.players]]
    rules = Rules()
    stored = _stored(args.out, ("games", args.players, rules.target, rules.ties)) or {}
    won = {tuple(st["start"]): st for st in stored.get("states", [])}
    if args.jobs == 1:
        rows = [_ahead_once(args.players, start) for start in starts]
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(_ahead_once, [args.players] * len(starts), starts))
    for row in rows:
        games = won.get(tuple(row["start"]))
        row["games"] = None if games is None else games["games"]
        for key in ("rate", "ci95"):
            row[key] = None if games is None else [seat[key] for seat in games["seats"]]
        for how in ("shown", "two_ahead"):
            row[f"{how}_inside"] = None if games is None else sum(
                lo <= x <= hi for x, (lo, hi) in zip(row[how], row["ci95"], strict=True))
            row[f"{how}_widest_gap"] = None if games is None else max(
                abs(x - r) for x, r in zip(row[how], row["rate"], strict=True))
        say(f"{row['start']}: shown {[round(100 * x, 2) for x in row['shown']]}, two ahead "
            f"{[round(100 * x, 2) for x in row['two_ahead']]}"
            + ("" if games is None else f", won {[round(100 * x, 2) for x in row['rate']]}"))
    return {"kind": "ahead", "players": args.players, "target": rules.target, "states": rows}


CHUNK_SEED = 1000
"""With --chunk, chunk ``j`` of the state at place ``k`` is played with the seed ``seed + k +
CHUNK_SEED * j``: chunk 0's is the state's own (a run in one chunk is chunk 0)."""
SHARES = 60
"""A seat's wins are sums of shares of 1, 1/2 ... 1/5 (shared ties): whole multiples of
1/60, as an old entry's rates give them back."""


def _chunk(players: int, start: tuple[int, ...], games: int, seed: int) -> dict[str, Any]:
    """`games` whole games from `start` where every seat plays the method, with `seed`: each
    seat's wins (a shared tie a share) and the turns played."""
    from solver.rules import Rules
    from solver.strategy.games import play_n_games
    from solver.tables.game import game_of

    rules = Rules()
    game = game_of(rules, players)
    score, turns = play_n_games(["win"] * players, rules, games=games, seed=seed,
                                win=game.win_play(), start=start)
    return {"seed": seed, "games": games, "wins": [float(w) for w in score.sum(axis=0)],
            "turns": int(turns.sum())}


def _shown(players: int, start: tuple[int, ...]) -> list[float]:
    """Every seat's chance the method shows at `start` (the mover first)."""
    return list(_shown_once(players, start))


@functools.cache
def _shown_once(players: int, start: tuple[int, ...]) -> tuple[float, ...]:
    """:func:`_shown`, once a process (a process that runs main() again, as the tests do,
    asks the same states: the method is the same within a process)."""
    from solver.rules import Rules
    from solver.rules.standing import Standing
    from solver.tables.game import game_of

    rules = Rules()
    got = game_of(rules, players).chances(Standing.of(rules, start[0], start[1:])).seats
    return tuple(float(x) for x in got)


def _state(start: tuple[int, ...], seed: int, shown: list[float],
           chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """A state's row of the games' check: each seat's chance shown against its win rate over
    every chunk (95 % Wilson interval)."""
    from solver.engine.stats import wilson_interval

    games = sum(c["games"] for c in chunks)
    rows = []
    for seat, chance in enumerate(shown):
        wins = math.fsum(c["wins"][seat] for c in chunks)
        lo, hi = wilson_interval(wins, games)
        rows.append({"shown": chance, "rate": wins / games, "ci95": [lo, hi],
                     "inside": lo <= chance <= hi})
    return {"start": list(start), "games": games, "seed": seed,
            "turns": sum(c["turns"] for c in chunks) / games, "seats": rows,
            "chunks": chunks}


def _chunks_kept(old: dict[str, Any] | None, start: tuple[int, ...], seed: int,
                 shown: list[float]) -> list[dict[str, Any]]:
    """The chunks of `start` in the stored entry `old` that a resumed run keeps: those of the
    same state and seed, the chances shown there unchanged (else the method changed since:
    nothing is kept, and the run says so). An entry written before the chunks is one chunk,
    its wins from its rates."""
    if old is None:
        return []
    for state in old.get("states", []):
        if tuple(state["start"]) != start or state["seed"] != seed:
            continue
        if [r["shown"] for r in state["seats"]] != shown:
            say(f"{list(start)}: the chances shown changed since its {state['games']:,} games "
                "were played: they are played afresh")
            return []
        if "chunks" in state:
            return list(state["chunks"])
        games = state["games"]
        return [{"seed": seed, "games": games,
                 "wins": [round(r["rate"] * games * SHARES) / SHARES for r in state["seats"]],
                 "turns": round(state["turns"] * games)}]
    return []


PROBE = (2, 1)
"""The games (count, seed) from the start that a resumed run plays again before keeping the
stored chunks: a method whose play changed (the chances shown unchanged) almost surely plays
them otherwise, and then nothing stored is kept."""


def _probe(players: int) -> dict[str, Any]:
    return copy.deepcopy(_probe_once(players))


@functools.cache
def _probe_once(players: int) -> dict[str, Any]:
    """:func:`_probe`, once a process (as :func:`_shown_once`)."""
    games, seed = PROBE
    got = _chunk(players, (0,) * players, games, seed)
    return {"games": games, "seed": seed, "wins": got["wins"], "turns": got["turns"]}


class Refused(Exception):
    """A run that would lose what is stored: main() says it in one line (exit code 2)."""


def _games_stored(old: dict[str, Any] | None) -> int:
    """The games of a stored games entry, over its states."""
    return 0 if old is None else sum(state["games"] for state in old.get("states", []))


def _totals(text: str) -> tuple[int, ...]:
    try:
        totals = tuple(int(t) for t in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not totals: {text!r} (e.g. 2000,2000,2000,5900)") from None
    if any(t < 0 or t % 100 for t in totals):
        raise argparse.ArgumentTypeError(f"totals are multiples of 100 from 0: {text!r}")
    return totals


def games(args: argparse.Namespace, old: dict[str, Any] | None = None,
          save: Any = None) -> dict[str, object]:
    from joblib import Parallel, delayed

    from solver.rules import Rules

    rules = Rules()
    starts: list[tuple[int, ...]] = [(0,) * args.players, *MIDGAME[args.players]]
    if args.start is not None:
        starts = [args.start]
    t0 = time.perf_counter()
    size = args.chunk or args.games
    seeds = [args.seed + k for k in range(len(starts))]
    shown = [_shown(args.players, start) for start in starts]
    probe = _probe(args.players) if args.start is None else None
    stored = _games_stored(old) if args.resume else 0
    if old is not None and args.resume and old.get("probe", probe) != probe:
        say(f"the method plays otherwise than when the stored games were played (the probe's "
            f"{PROBE[0]} games from the start differ): all are played afresh")
        old = None
    have = [_chunks_kept(old if args.resume else None, start, seed, chances)
            for start, seed, chances in zip(starts, seeds, shown, strict=True)]
    matched = sum(c["games"] for h in have for c in h)  # of the method as it is now
    chunks = -(-args.games // size)
    planned = [[(seed + CHUNK_SEED * j, min(size, args.games - j * size))
                for j in range(chunks)] for seed in seeds]
    have = [sorted((c for c in kept if (c["seed"], c["games"]) in planned[k]),
                   key=lambda c: c["seed"]) for k, kept in enumerate(have)]
    tasks = []  # (state, seed, games): the chunks still to play, a chunk of every state in turn
    for j in range(chunks):  # (so that a run stopped early leaves the states even)
        for k in range(len(starts)):
            if all((c["seed"], c["games"]) != planned[k][j] for c in have[k]):
                tasks.append((k, *planned[k][j]))
    say(f"{len(tasks)} chunks to play ({sum(t[2] for t in tasks):,} games); "
        f"{sum(len(h) for h in have)} kept")
    dropped = stored - sum(c["games"] for h in have for c in h)
    if dropped > 0 and save is not None and not args.replace:
        why = ("the method plays otherwise now" if old is None else
               "the chances shown changed since" if matched < stored else
               "not of this run's --games, --chunk and --seed")
        raise Refused(f"{dropped:,} of the {stored:,} games stored in {args.out} would be "
                      f"left out ({why}); --replace plays on without them")

    def entry() -> dict[str, object]:
        states = [_state(start, seed, chances, chunks) for start, seed, chances, chunks
                  in zip(starts, seeds, shown, have, strict=True) if chunks]
        inside = sum(r["inside"] for s in states for r in s["seats"])
        total = sum(len(s["seats"]) for s in states)
        # seconds: this run's wall time (a resumed run's, not its stored chunks')
        return {"kind": "games", "players": args.players, "target": rules.target,
                "ties": rules.ties, "states": states, "inside": inside, "checked": total,
                "seconds": time.perf_counter() - t0, "chunks_played": played,
                **({"probe": probe} if probe is not None else {})}

    # each chunk its own seed (module doc): the same games for any --jobs and any chunk order
    runs = Parallel(n_jobs=args.jobs, return_as="generator")(
        delayed(_chunk)(args.players, starts[k], games, seed) for k, seed, games in tasks)
    played = 0
    for (k, _, _), chunk in zip(tasks, runs, strict=True):
        have[k] = sorted([*have[k], chunk], key=lambda c: c["seed"])
        played += 1
        games = sum(c["games"] for c in have[k])
        row = _state(starts[k], seeds[k], shown[k], have[k])["seats"]
        say(f"{time.perf_counter() - t0:7.0f} s  {list(starts[k])}, {games:,} games: "
            + ", ".join(f"{100 * r['shown']:.2f} in [{100 * r['ci95'][0]:.2f}, "
                        f"{100 * r['ci95'][1]:.2f}]" for r in row))
        if save is not None:  # each chunk kept as it ends: an interrupted run resumes
            save(entry())
    got = entry()
    if (not tasks and old is not None and args.resume and got["states"] == old["states"]
            and old.get("probe") == probe):
        return old  # nothing played nor left out: the stored entry as it is (its run's seconds)
    return got


def main() -> None:
    from solver.rules import Rules

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
    two.add_argument("--chunk", type=int, default=None, metavar="N",
                     help="play each state's games N at a time, chunk j with the seed "
                          f"seed + place + {CHUNK_SEED} j (default: all in one chunk)")
    two.add_argument("--resume", action="store_true",
                     help="keep the chunks stored in tables/near-optimal.json (same state, "
                          "seed and chances shown) and play only the missing ones (chunks "
                          "beyond --games are left out)")
    two.add_argument("--replace", action="store_true",
                     help="with --resume --write: play on even where stored games are left "
                          "out (else refused before the first chunk is stored)")
    three = sub.add_parser("down")
    three.add_argument("--sample", type=int, default=20_000)
    three.add_argument("--jobs", type=int, default=2, help="processes")
    four = sub.add_parser("ahead")
    four.add_argument("--players", type=int, default=None, choices=(4, 5))
    four.add_argument("--jobs", type=int, default=2, help="processes (the states in parallel)")
    four.add_argument("--down", action="store_true",
                      help="one player down: three from the pairs, against the exact table")
    four.add_argument("--sample", type=int, default=None,
                      help="with --down or --variant: the states of normal play measured (a "
                           "fixed sample; default: 2000 with --down, else every state)")
    four.add_argument("--variant", action="append", default=[],
                      help="against the exact table of --players under these rules (e.g. "
                           "target=500) instead of the games at 6000")
    four.add_argument("--tables", type=Path, default=None,
                      help="with --variant: the exact tables' directory (default: where "
                           "`sabords` finds them)")
    for p in (one, two, three, four):
        p.add_argument("--write", action="store_true")
        p.add_argument("--out", type=Path, default=OUT,
                       help="the file --write and --resume use (default: %(default)s)")
    args = parser.parse_args()
    _check(parser, args)
    if args.what == "games" and args.start is not None:
        if len(args.start) != args.players:
            parser.error(f"--start needs {args.players} totals, not {len(args.start)}")
        if args.write:
            parser.error("--start plays one state: its games are not stored (no --write)")
    if args.what == "games":
        if args.games < 1:
            parser.error(f"--games is a number of games from 1, not {args.games}")
        if args.chunk is not None and args.chunk < 1:
            parser.error(f"--chunk is a number of games from 1, not {args.chunk}")
        if args.resume and args.start is not None:
            parser.error("--start plays one state: nothing stored to resume (no --resume)")
        if args.replace and not (args.resume and args.write):
            parser.error("--replace is for a run that resumes and stores (--resume --write)")
        old = (_stored(args.out, ("games", args.players, Rules().target, Rules().ties))
               if args.resume or args.write else None)
        # each chunk stored as it ends only where a later run resumes from it (--resume): a
        # run without it that stops early must not replace the stored entry with a part
        save = (lambda e: _write(args.out, e)) if args.write and args.resume else None
        try:
            entry = games(args, old, save=save)
        except Refused as e:
            parser.error(str(e))
    elif args.what == "ahead":
        if args.write:
            parser.error("ahead is a diagnosis: nothing of it is stored (no --write)")
        if args.down and (args.players is not None or args.variant or args.tables):
            parser.error("--down is three players from the pairs, at the default rules and "
                         "the committed tables: no --players, --variant or --tables")
        if not args.down and args.players is None:
            parser.error("ahead needs --players 4 or 5 (the games at 6000; with --variant an "
                         "exact table), or --down (three players from the pairs)")
        if not args.down and not args.variant and (args.sample or args.tables):
            parser.error("--sample and --tables are for --down or --variant (the games' "
                         "states are six)")
        if args.down and args.sample is None:
            args.sample = 2000
        from solver.errors import SabordsError

        try:
            entry = ahead(args)
        except SabordsError as e:
            parser.error(str(e).splitlines()[0])
    else:
        entry = {"exact": exact, "down": down}[args.what](args)
    print(json.dumps(entry, indent=1))
    if args.write:
        _write(args.out, entry)
        say(f"written: {args.out}")


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The refusals common to every kind, in one line with exit code 2 (parser.error)."""
    if args.jobs < 1:
        parser.error(f"--jobs is a number of processes from 1, not {args.jobs}")
    if getattr(args, "seed", 0) < 0:
        parser.error(f"--seed is a number from 0, not {args.seed}")
    for name in ("sample", "final_sample"):
        if getattr(args, name, None) is not None and getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} is a number of states from 1, "
                         f"not {getattr(args, name)}")
    if args.write or getattr(args, "resume", False) or (
            args.what == "ahead" and not args.down and not args.variant):
        out: Path = args.out
        if out.is_dir():
            parser.error(f"--out is a folder, not a file: {out}")
        if not out.parent.is_dir():
            parser.error(f"--out: no such folder: {out.parent}")
        try:
            _read(out)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            parser.error(f"--out: cannot read {out}: {str(e).splitlines()[0]}")


def _read(out: Path) -> dict[str, Any]:
    """The measurements stored in `out` ({"measured": [...]}; none if there is no file)."""
    if not out.is_file():
        return {"measured": []}
    data = json.loads(out.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("measured", []), list):
        raise ValueError('not a file of measurements ({"measured": [...]})')
    return data


def _key(entry: dict[str, Any]) -> tuple[Any, ...]:
    return (entry["kind"], entry["players"], entry["target"], entry["ties"])


def _stored(out: Path, key: tuple[Any, ...]) -> dict[str, Any] | None:
    """The entry of `key` (kind, players, target, ties) stored in `out`, if any."""
    return next((e for e in _read(out)["measured"] if _key(e) == key), None)


def _write(out: Path, entry: dict[str, Any]) -> None:
    """`entry` into `out` (tables/near-optimal.json), in place of the entry of the same key
    (written whole to a new file beside it, flushed to the disk, then renamed over it: an
    interrupted write leaves the old file, and two runs never share the new one)."""
    import os
    import tempfile

    kept = [e for e in _read(out)["measured"] if _key(e) != _key(entry)]
    kept.append(entry)
    kept.sort(key=_key)
    if out.is_file():  # the old file's permissions (mkstemp's are the owner's alone)
        mode = out.stat().st_mode & 0o777
    else:  # or a new file's
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    fd, part = tempfile.mkstemp(dir=out.parent, prefix=out.name + ".", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), mode)
            f.write(json.dumps({"measured": kept}, indent=1) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, out)
    except BaseException:
        Path(part).unlink(missing_ok=True)
        raise

if __name__ == "__main__":
    from solver.cli.main import end_on_sigterm

    end_on_sigterm()  # (a kill ends its joblib workers and their folders too)
    main()
