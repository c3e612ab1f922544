"""The `web` section of `make bench`: `sabords serve` under a bounded load, from this machine.

The server runs as a user starts it (`sabords serve` on 127.0.0.1 and a free port), once with
one process (the default) and once with `--workers 2` (a process per core). Once it answers, it
is warmed: every goal the load asks about (each card with each need N of :data:`NEEDS`, each
card with each pair of totals of :data:`TOTALS`) is asked once in each worker, so that the load
measures answers, not first solves (a first solve is measured apart, sequentially: "first
answer of a new need"). Then :data:`CLIENTS` threads, each with its own keep-alive
HTTP/1.1 connection (http.client), send requests one after the other for :data:`SECONDS` seconds
each phase: points queries, then need-N queries, then win queries, each a random valid position
(a card, 8 random dice, sometimes the first roll) drawn from a seeded generator. Every answer
must be 200. Latency is the time from sending a request to reading its whole answer.

Then the solves on demand under load (:func:`new_variants_load`, one server process with a
cache directory of its own): :data:`CLIENTS` threads ask queries of new sets of turn variants
(each a turn table to solve; the server solves one at a time and answers 429 beyond its queue)
while :data:`POINT_CLIENTS` more ask points queries of the default rules, for :data:`SECONDS`
seconds: the points queries' latency (target: a p95 under 50 ms), the share of 429s, and the
server's peak resident memory (VmHWM).

The load generator shares the machine's two cores with the server (Python threads, with the
GIL), so the figures are what one such machine does, client included; the machine is shared and
noisy. Printed, never asserted.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CLIENTS = 16
SECONDS = 10.0
CARDS = ("none", "chest", "captain", "sorceress", "coin", "diamond", "animals", "skull1",
         "skull2", "battle2", "battle3", "battle4")
NEEDS = tuple(range(500, 3001, 500))
"""The needs of the need-N load (each card with each need is warmed)."""
TARGET = 6000
FACES = "kmpscd"
TARGETS = {"points": 20.0, "need": 100.0, "win": 100.0}
"""The issue's p95 targets, ms."""
WORKERS = (1, 2)
POINT_CLIENTS = 2
"""Clients asking points queries while the others ask for new variants."""
NEW_VARIANTS_P95 = 50.0
"""The issue's p95 target of the points queries under new-variant load, ms."""
"""`sabords serve` as started by default (one process), and with a worker per core."""

Query = list[tuple[str, str]]


def _totals(rng: random.Random, n: int) -> list[tuple[int, int]]:
    return [(100 * rng.randrange(TARGET // 100), 100 * rng.randrange(TARGET // 100))
            for _ in range(n)]


TOTALS = _totals(random.Random("bench web totals"), 10)
"""The pairs of totals of the win load (each card with each pair is warmed)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def running_server(workers: int = 1, env: dict[str, str] | None = None,
                   pids: list[int] | None = None) -> Iterator[int]:
    """`sabords serve` on a free port of 127.0.0.1, answering; stopped on exit (its pid
    appended to `pids`)."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    process = subprocess.Popen(
        [sys.executable, "-m", "solver", "serve", "--port", str(port), "--log-level", "warning",
         "--workers", str(workers)],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if pids is not None:
        pids.append(process.pid)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if _get(http.client.HTTPConnection("127.0.0.1", port, timeout=5),
                        "/api/health", [])[0] == 200:
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("`sabords serve` did not start")
            time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _get(conn: http.client.HTTPConnection, path: str, query: Query) -> tuple[int, bytes]:
    conn.request("GET", f"{path}?{urllib.parse.urlencode(query)}" if query else path)
    response = conn.getresponse()
    return response.status, response.read()


def _position(rng: random.Random) -> Query:
    query = [("card", rng.choice(CARDS)), ("dice", "".join(rng.choice(FACES) for _ in range(8)))]
    if rng.random() < 0.3:
        query.append(("first", "true"))
    return query


def points_query(rng: random.Random) -> Query:
    return _position(rng)


def need_query(rng: random.Random) -> Query:
    return [*_position(rng), ("need", str(rng.choice(NEEDS)))]


def win_query(rng: random.Random) -> Query:
    me, opp = rng.choice(TOTALS)
    return [*_position(rng), ("me", str(me)), ("opp", str(opp))]


def _connections_per_worker(port: int, workers: int) -> list[http.client.HTTPConnection]:
    """One keep-alive connection to each worker process (a connection stays with the worker
    that accepted it; /api/health names it by its pid)."""
    found: dict[int, http.client.HTTPConnection] = {}
    for _ in range(200 * workers):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        pid = json.loads(_get(conn, "/api/health", [])[1])["pid"]
        if pid in found:
            conn.close()
        else:
            found[pid] = conn
        if len(found) == workers:
            return list(found.values())
    raise RuntimeError(f"found {len(found)} of the {workers} workers")


def warm(port: int, workers: int = 1) -> float:
    """Ask every goal of the load once in each worker (and a points answer of every card);
    the seconds it took."""
    start = time.perf_counter()
    goals: list[Query] = [[]]
    goals += [[("need", str(n))] for n in NEEDS]
    goals += [[("me", str(me)), ("opp", str(opp))] for me, opp in TOTALS]
    connections = _connections_per_worker(port, workers)
    for card in CARDS:
        for goal in goals:
            for conn in connections:  # in turn: none idles past uvicorn's keep-alive (5 s)
                status, body = _get(conn, "/api/advise",
                                    [("card", card), ("dice", "kkmmpscd"), *goal])
                if status != 200:
                    raise RuntimeError(f"warm-up answered {status}: {body[:200]!r}")
    for conn in connections:
        conn.close()
    return time.perf_counter() - start


def first_solves(port: int, n: int = 6) -> list[float]:
    """Seconds of the first answer of needs not asked before (a solve each), one at a time."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    out = []
    for i in range(n):
        start = time.perf_counter()
        status, _ = _get(conn, "/api/advise", [("card", CARDS[i % len(CARDS)]),
                                               ("dice", "kkmmpscd"), ("need", str(3100 + 100 * i))])
        out.append(time.perf_counter() - start)
        assert status == 200
    conn.close()
    return out


def load(port: int, make: Callable[[random.Random], Query], seed: str,
         clients: int = CLIENTS, seconds: float = SECONDS) -> dict[str, Any]:
    """`clients` threads asking `make`'s queries for `seconds`: the latencies and the rate."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    failures: list[str] = []
    barrier = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def client(i: int) -> None:
        rng = random.Random(f"{seed} {i}")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        barrier.wait()
        mine = latencies[i]
        while time.perf_counter() < stop_at[0]:
            query = make(rng)
            start = time.perf_counter()
            status, body = _get(conn, "/api/advise", query)
            mine.append(time.perf_counter() - start)
            if status != 200:
                failures.append(f"{status} {query} {body[:120]!r}")
                break
        conn.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    stop_at[0] = time.perf_counter() + seconds
    start = time.perf_counter()
    barrier.wait()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    if failures:
        raise RuntimeError(f"{len(failures)} requests failed, e.g. {failures[0]}")
    every = sorted(x for lat in latencies for x in lat)
    return {"requests": len(every), "seconds": elapsed, "rps": len(every) / elapsed,
            "p50": 1000 * statistics.median(every),
            "p95": 1000 * every[min(len(every) - 1, int(0.95 * len(every)))],
            "max": 1000 * every[-1]}


SWITCHES = ("keep_one", "sorceress_rescue", "sorceress_alone", "card_skulls_block_chest",
            "battle_swords_fill_chest")


def new_variant_query(rng: random.Random) -> Query:
    """A position under a random set of turn variants (one of 31 besides the defaults), with a
    random card: mostly a turn table not solved yet."""
    n = rng.randrange(1, 2 ** len(SWITCHES))
    return [*_position(rng), *(("variant", f"{s}=off") for k, s in enumerate(SWITCHES)
                               if n >> k & 1)]


def _peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _points_client(port: int, seed: str, stop_at: float, latencies: list[float]) -> None:
    """A client asking points queries of the default rules until `stop_at`, one after the
    other on a keep-alive connection; every answer must be a 200 (its latency appended)."""
    rng = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    while time.perf_counter() < stop_at:
        start = time.perf_counter()
        status, body = _get(conn, "/api/advise", points_query(rng))
        if status != 200:
            raise RuntimeError(f"a points query answered {status}: {body[:120]!r}")
        latencies.append(time.perf_counter() - start)
    conn.close()


def new_variants_load(seconds: float = SECONDS) -> dict[str, Any]:
    """The points queries' latency while :data:`CLIENTS` clients ask for new variants
    (module docstring)."""
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        pids: list[int] = []
        with running_server(1, {"SABORDS_CACHE_DIR": cache}, pids) as port:
            statuses: list[int] = []
            latencies: list[float] = []
            stop_at = time.perf_counter() + seconds
            lock = threading.Lock()

            def variants(i: int) -> None:
                rng = random.Random(f"bench web variants {i}")
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                while time.perf_counter() < stop_at:
                    status, _ = _get(conn, "/api/advise", new_variant_query(rng))
                    with lock:
                        statuses.append(status)
                    if status == 429:
                        time.sleep(0.05)
                conn.close()

            threads = [threading.Thread(target=variants, args=(i,)) for i in range(CLIENTS)]
            threads += [threading.Thread(target=_points_client, args=(
                port, f"bench web points under load {i}", stop_at, latencies))
                for i in range(POINT_CLIENTS)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            peak = _peak_mb(pids[0])
    every = sorted(latencies)
    return {"points": len(every), "p50": 1000 * statistics.median(every),
            "p95": 1000 * every[min(len(every) - 1, int(0.95 * len(every)))],
            "max": 1000 * every[-1], "variant_requests": len(statuses),
            "solved": statuses.count(200), "refused": statuses.count(429), "peak_mb": peak}


GAME_CLIENTS = 4
"""Clients asking win answers under new games (a two-player game solve each) in
:func:`game_solves_load`, while :data:`CLIENTS` ask points."""


def new_game_query(rng: random.Random) -> Query:
    """A win question under a two-player game not solved yet: a target of 2000 to 4000 (a few
    seconds of solving each) and a tie rule, at random."""
    target = 100 * rng.randrange(20, 41)
    ties = rng.choice(("shared", "trigger"))
    return [*_position(rng), ("me", "0"), ("opp", "0"), ("variant", f"target={target}"),
            ("variant", f"ties={ties}")]


def _tree_rss_mb(pid: int) -> float:
    """The resident memory of process `pid` and its children, now (MB)."""
    total = 0.0
    pids = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*"):  # each thread's children
        try:
            pids += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


GAME_SECONDS = 60.0
"""How long the game load lasts: long enough for several solves, so that the server's estimate
of a solve's time has learnt this machine's load (the first solves are all admitted)."""


def game_solves_load(seconds: float = GAME_SECONDS) -> dict[str, Any]:
    """The points queries' latency while :data:`GAME_CLIENTS` clients ask for games under new
    rules (each a solve), :data:`CLIENTS` asking points: the points p95 (target 50 ms), the
    solves answered and refused (429), the longest a solve's answer took and the longest a
    solve waited to start (the server's own measure, /api/health), the server's memory
    (its own peak, and the peak of it and its solving processes together, sampled)."""
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        pids: list[int] = []
        with running_server(1, {"SABORDS_CACHE_DIR": cache}, pids) as port:
            rss_start = _tree_rss_mb(pids[0])
            statuses: list[int] = []
            solve_seconds: list[float] = []
            latencies: list[float] = []
            stop_at = time.perf_counter() + seconds
            lock = threading.Lock()
            tree_peak = [rss_start]
            done = threading.Event()

            def sample() -> None:
                while not done.wait(0.1):
                    tree_peak[0] = max(tree_peak[0], _tree_rss_mb(pids[0]))

            def games(i: int) -> None:
                rng = random.Random(f"bench web games {i}")
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
                while time.perf_counter() < stop_at:
                    start = time.perf_counter()
                    status, _ = _get(conn, "/api/advise", new_game_query(rng))
                    with lock:
                        statuses.append(status)
                        if status == 200:
                            solve_seconds.append(time.perf_counter() - start)
                    if status == 429:
                        time.sleep(0.5)
                conn.close()

            sampler = threading.Thread(target=sample)
            sampler.start()
            threads = [threading.Thread(target=games, args=(i,)) for i in range(GAME_CLIENTS)]
            threads += [threading.Thread(target=_points_client, args=(
                port, f"bench web points under games {i}", stop_at, latencies))
                for i in range(CLIENTS)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            done.set()
            sampler.join()
            peak = _peak_mb(pids[0])
            health = json.loads(_get(http.client.HTTPConnection("127.0.0.1", port, timeout=30),
                                     "/api/health", [])[1])
    every = sorted(latencies)
    return {"points": len(every), "p50": 1000 * statistics.median(every),
            "p95": 1000 * every[min(len(every) - 1, int(0.95 * len(every)))],
            "max": 1000 * every[-1], "game_requests": len(statuses),
            "solved": statuses.count(200), "refused": statuses.count(429),
            "longest_solve_s": max(solve_seconds, default=float("nan")),
            "longest_wait_s": health["caches"]["table_solves"]["longest_wait_s"],
            "refused_late": health["caches"]["table_solves"]["refused_late"],
            "server_rss_start_mb": rss_start, "server_peak_mb": peak,
            "tree_peak_mb": tree_peak[0]}


def measure(workers: int = 1) -> dict[str, Any]:
    """Every figure of the section (module docstring) for `sabords serve --workers N`."""
    with running_server(workers) as port:
        warm_s = warm(port, workers)
        first = first_solves(port)
        phases = {name: load(port, make, f"bench web {name}")
                  for name, make in (("points", points_query), ("need", need_query),
                                     ("win", win_query))}
    return {"workers": workers, "warm_s": warm_s, "first_need_s": statistics.median(first),
            "phases": phases, "clients": CLIENTS, "seconds": SECONDS}


if __name__ == "__main__":
    only = sys.argv[1:]
    out: dict[str, Any] = {}
    if not only or "load" in only:
        out["workers"] = [measure(n) for n in WORKERS]
    if not only or "variants" in only:
        out["new_variants"] = new_variants_load()
    if not only or "games" in only:
        out["new_games"] = game_solves_load()
    print(json.dumps(out, indent=2))
