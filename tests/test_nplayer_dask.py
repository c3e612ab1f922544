"""The n-player solve on Dask: the same bytes for any runner, number of workers and
block size; a worker killed in the middle of a solve changes nothing; a solve interrupted and
resumed from its checkpoint gives the bytes of one never interrupted. On a reduced game (three
players, four dice, target 500: seconds), on a ``LocalCluster`` of worker processes.
"""

from __future__ import annotations

import os
import signal
import socket
import warnings
from pathlib import Path
from typing import Any

import pytest

from solver.game.cluster import DaskRunner, local_cluster
from solver.game.records import Checkpoint
from solver.game.solve import solve_game
from solver.rules import Rules
from solver.tables.checkpoints import load_checkpoint, save_checkpoint
from solver.tables.game import pack_game

RULES = Rules(target=500)
PLAYERS, DICE = 3, 4


def _solve(runner: Any = None, **kwargs: Any) -> bytes:
    return pack_game(solve_game(RULES, PLAYERS, runner, n_dice=DICE, **kwargs))


@pytest.fixture(scope="module")
def reference() -> bytes:
    """The table solved in this process, in blocks of 4096 states."""
    return _solve()


@pytest.mark.parametrize(("workers", "block"), [(1, 64), (2, 300), (2, 4096)])
def test_any_number_of_workers_and_any_block_size_give_the_same_bytes(
        reference: bytes, workers: int, block: int) -> None:
    with local_cluster(workers) as client:
        got = _solve(DaskRunner(client, RULES, PLAYERS, DICE), block=block)
    assert got == reference


HEARTBEAT_ERRORS = ["Failed to communicate with scheduler during heartbeat.",
                    "Unexpected exception during heartbeat. Closing worker."]


def _logged(messages: list[str]) -> list[str]:
    """What a worker's "distributed.worker" logger lets through of `messages` (ERROR)."""
    import logging

    log = logging.getLogger("distributed.worker")
    return [m for m in messages
            if all(f(log.makeRecord(log.name, logging.ERROR, "", 0, m, (), None))
                   for f in log.filters)]


def test_a_local_cluster_s_workers_do_not_log_a_failed_heartbeat_but_other_errors() -> None:
    """As a cluster closed after Ctrl-C, a worker's heartbeat found the scheduler gone and
    logged an ERROR with a traceback of 30 lines (the Ctrl-C test below, once in many runs):
    the workers of a cluster of this process drop that message, and only that one."""
    with local_cluster(2) as client:
        seen = client.run(_logged, HEARTBEAT_ERRORS)
    assert len(seen) == 2
    assert all(got == HEARTBEAT_ERRORS[1:] for got in seen.values()), seen


def test_a_local_cluster_beside_another_says_nothing_of_port_8787() -> None:
    """Dask starts its scheduler's HTTP server even without a dashboard, on port 8787 unless
    told otherwise: with a second solve running (or a notebook's cluster), a solve printed
    Dask's four-line "Port 8787 is already in use" warning among its lines. The scheduler
    now serves on a free port of the loopback: with 8787 held, no warning, another port."""
    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 8787))
        held.listen()
    except OSError:  # held already by another process: as much the case under test
        pass
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with local_cluster(1) as client:
                port = client.scheduler_info()["services"]["dashboard"]
    finally:
        held.close()
    assert port != 8787
    assert not [str(w.message) for w in caught if "8787" in str(w.message)]


def test_four_players_on_dask_in_small_blocks_give_the_bytes_of_this_process() -> None:
    """Four players (three dice, target 400: the compact final round, phases with seats that
    have played and rows of a lead) on two workers, in blocks of 64 states."""
    rules = Rules(target=400)
    here = pack_game(solve_game(rules, 4, n_dice=3))
    with local_cluster(2) as client:
        there = pack_game(solve_game(rules, 4, DaskRunner(client, rules, 4, 3), n_dice=3,
                                         block=64))
    assert there == here


@pytest.mark.parametrize("between", [False, True], ids=["mid-improvement", "before-scatter"])
def test_a_worker_killed_in_the_middle_of_a_solve_changes_nothing(reference: bytes,
                                                                 between: bool) -> None:
    """Killed during an improvement (its blocks run again elsewhere) or just after an
    evaluation (the next improvement's scatter meets the dead worker and is tried again)."""
    killed: list[int] = []
    with local_cluster(2) as client:
        pids = sorted(client.run(os.getpid).values())

        def progress(p: Any) -> None:
            if not killed and p.phase == "normal" and (p.change is not None) == between:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

        got = _solve(DaskRunner(client, RULES, PLAYERS, DICE), block=64, progress=progress)
        client.wait_for_workers(2, timeout=120)
        after = sorted(client.run(os.getpid).values())
        quiet = client.run(_logged, HEARTBEAT_ERRORS)
    assert killed and killed[0] not in after  # the nanny started a new worker process
    assert got == reference
    # the new worker drops a failed heartbeat too (test_a_local_cluster_s_workers_do_not_...)
    assert len(quiet) == 2 and all(v == HEARTBEAT_ERRORS[1:] for v in quiet.values()), quiet


class Interrupted(Exception):
    pass


def test_a_solve_interrupted_and_resumed_gives_the_same_bytes(reference: bytes,
                                                              tmp_path: Path) -> None:
    path = tmp_path / "game-3.checkpoint"
    seen: list[Checkpoint] = []

    def checkpoint(state: Checkpoint) -> None:
        save_checkpoint(path, RULES, PLAYERS, DICE, state)
        seen.append(state)
        if state.phase == "normal" and state.iteration == 2:
            raise Interrupted  # as a kill would stop it: after a checkpoint

    with pytest.raises(Interrupted):
        _solve(checkpoint=checkpoint)
    from solver.game import game_model, point_range
    from solver.game.seats import seats_of

    gm = game_model(RULES, DICE)
    rows = seats_of(PLAYERS, point_range(RULES, DICE), gm.n, RULES.ties).rows
    state = load_checkpoint(path, RULES, PLAYERS, DICE, rows)
    assert state.phase == "normal" and state.iteration == 2 and "sudden" in state.done
    with local_cluster(2) as client:
        got = _solve(DaskRunner(client, RULES, PLAYERS, DICE), resume=state,
                     checkpoint=lambda st: save_checkpoint(path, RULES, PLAYERS, DICE, st))
    assert got == reference


# -- a scheduler address is checked at once, and a silent one is given up on --------


@pytest.mark.parametrize(("address", "says"), [
    ("tcp://127.0.0.1:99999", "port 99999 is not between 1 and 65535"),
    ("tcp://127.0.0.1:0", "port 0 is not between 1 and 65535"),
    ("tcp://256.1.1.1:8786", "'256.1.1.1' is not an IP address"),
    ("inproc://x", "'inproc' is not a protocol a scheduler of another process answers on"),
    ("http://127.0.0.1:8000", "'http' is not a protocol a scheduler of another process"),
    ("tcp://:8786", "no host"),
    ("tcp://host:port", "'port' is not a port number"),
    ("tcp://exa mple:8786", "'exa mple' is not a host name"),
    ("", "no host"),
])
def test_a_scheduler_address_that_cannot_be_one_is_refused_at_once(
        tmp_path: Path, address: str, says: str) -> None:
    """Port 99999 and host 256.1.1.1 waited 20 s before the refusal, `inproc://x`
    said "not enough values to unpack"; each is refused before anything starts."""
    from .conftest import assert_one_line_error, run_sabords

    result = run_sabords("solve-game", "--players", "3", "--variant", "target=500",
                         "--scheduler", address, "--out", str(tmp_path))
    line = assert_one_line_error(result, "--scheduler: ", says)
    assert "solving" not in result.stderr, line


def _answers_nothing(sock: Any, stop: Any, reply: bytes) -> None:
    """Accept every connection and keep it open, answering each with `reply` (nothing: a
    port that accepts and never answers; an HTTP answer: the web page's own port)."""
    held = []
    sock.settimeout(0.1)
    while not stop.is_set():
        try:
            conn, _ = sock.accept()
        except OSError:
            continue
        if reply:
            conn.sendall(reply)
        held.append(conn)
    for conn in held:
        conn.close()
    sock.close()


@pytest.mark.parametrize("reply", [b"", b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"])
def test_a_scheduler_that_never_answers_is_given_up_on_in_one_line(reply: bytes,
                                                                  tmp_path: Path) -> None:
    """A port that accepts and never answers (or an HTTP server) made `solve-game
    --scheduler` hang for ever: the time limit covered only the connection. The whole
    handshake is bounded now (here 2 s, so that the test is short; the subprocess' own
    limit only stops a test that would hang)."""
    import socket
    import subprocess
    import sys
    import threading

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    stop = threading.Event()
    server = threading.Thread(target=_answers_nothing, args=(sock, stop, reply), daemon=True)
    server.start()
    address = f"tcp://127.0.0.1:{sock.getsockname()[1]}"
    script = ("import sys, solver.game.cluster as c; c.CONNECT_SECONDS = 2; "
              "from solver.cli import main; sys.argv[0] = 'sabords'; main()")
    root = Path(__file__).resolve().parent.parent
    try:
        result = subprocess.run(
            [sys.executable, "-c", script, "solve-game", "--players", "3", "--variant",
             "target=500", "--scheduler", address, "--out", str(tmp_path)],
            capture_output=True, text=True, timeout=180, check=False,
            env={**os.environ, "PYTHONPATH": str(root)})
    finally:
        stop.set()
        server.join(5)
    errors = [line for line in result.stderr.splitlines() if line.startswith("sabords: ")]
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    said = ("what answers there speaks another protocol (a web server?)" if reply
            else "within 2 s")  # an HTTP answer is read as a Dask frame's length, at once
    assert len(errors) == 1 and errors[0].startswith(
        "sabords: error: --scheduler: no Dask scheduler answer") and said in errors[0], \
        result.stderr
    assert list(tmp_path.iterdir()) == []


# -- a long solve ends when its work ends, in bounded memory, whatever its warnings --------

_WARNED = """
import atexit, sys, warnings
import solver.game.cluster as cluster

improve, warned = cluster.DaskRunner.improve, [0]


def noisy(self, *args, **kwargs):  # every block of every improvement warned of {per} times
    for item in improve(self, *args, **kwargs):
        for n in range({per}):
            warned[0] += 1
            warnings.warn(f"block-warning {{warned[0]}}", UserWarning)
        yield item


cluster.DaskRunner.improve = noisy
atexit.register(lambda: print(f"warned {{warned[0]}}", file=sys.stderr))
from solver.cli import main
sys.argv[0] = "sabords"
main()
"""


def test_a_solve_warned_of_at_every_block_ends_when_its_work_ends_in_bounded_memory(
        tmp_path: Path) -> None:
    """`solve-game --players 3 --variant target=300 --workers 1 --block 100` printed its
    summary, then ran on until a MemoryError (3.4 GB): the command line recorded every warning
    of the solve to say the cache's at the end, and showing one that was not the cache's
    recorded it again, into the list being read. Here each block is warned of 50 times: the
    solve ends with its table, every warning shown once as it came, and its peak memory is
    that of a solve (0.23 GB here, 0.30 GB with numba's cache cold; 1.05 GB once on the CI
    machine, whose host shows more cores than the 2 it runs on: the threads are
    :func:`solver.limits.cores` since). The bound, 2 GB, is far below where the loop went
    (3.4 GB in 66 s, growing until the MemoryError).
    The subprocess' time limit only stops a solve that would not end."""
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parent.parent
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-c", _WARNED.format(per=50), "solve-game", "--players", "3",
             "--variant", "target=300", "--workers", "1", "--block", "100", "--out",
             str(tmp_path / "tables")], stdout=stdout, stderr=stderr,
            env={**os.environ, "PYTHONPATH": str(root)})
        limit = time.monotonic() + 600
        while True:  # os.wait4: this process' own peak memory and its workers', no other's
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > limit:
                process.kill()
                pid, status, usage = os.wait4(process.pid, 0)
                pytest.fail(f"the solve had not ended after 600 s: {err.read_text()[-2000:]}")
            time.sleep(0.2)
    process.returncode = os.waitstatus_to_exitcode(status)
    said = err.read_text()
    assert process.returncode == 0, said[-2000:]
    assert (tmp_path / "tables" / "game-3.msgpack").is_file()
    assert "table   " in out.read_text()
    shown = [line for line in said.splitlines() if "UserWarning: block-warning " in line]
    count = int(said.rsplit("warned ", 1)[1].split()[0])
    assert count >= 50 and len(shown) == count == len(set(shown)), said[-2000:]
    peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)  # bytes
    assert peak < 2 * 2**30, f"peak resident memory {peak / 2**20:.0f} MB"


def test_a_solve_stopped_by_sigterm_closes_its_cluster_and_resumes_to_the_same_bytes(
        tmp_path: Path) -> None:
    """Found looking at long solves stopped: SIGTERM (a `kill`, a service manager) ended a
    solve on Dask without its `finally` blocks: "leaked semaphore objects" from Python's
    resource tracker, exit code -15. It ends as Ctrl-C does now: the cluster closed, nothing
    left in its session, its checkpoint kept, exit code 143; `--resume` finishes it with the
    bytes of a solve never stopped. The time limits only stop a solve that would not end."""
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    args = ["solve-game", "--players", "3", "--variant", "target=300", "--block", "64"]
    stopped, whole = tmp_path / "stopped", tmp_path / "whole"
    process = subprocess.Popen([sys.executable, "-m", "solver", *args, "--workers", "1",
                                "--out", str(stopped)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env,
                               start_new_session=True)
    said = _past_first_checkpoint(process)
    limit = time.monotonic() + 600
    process.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    process.send_signal(signal.SIGTERM)  # as `timeout` does: the command, then its group
    out, err = process.communicate(timeout=300)
    said += err
    assert process.returncode == 143, said[-2000:]
    # a second SIGTERM while it ended printed "Exception ignored in: <module 'threading'>"
    # and a traceback (a user's trial)
    assert "Traceback" not in said and "leaked" not in said, said[-2000:]
    assert "Exception ignored" not in said, said[-2000:]
    assert said.rstrip().endswith(
        f"sabords: interrupted; {str(stopped / 'game-3.checkpoint')!r} keeps the work done: "
        "the same command with --resume goes on from it"), said[-2000:]

    def left() -> list[str]:  # its workers and helpers, each ending when the solve has ended
        return subprocess.run(["ps", "-o", "pid=,args=", "-s", str(process.pid)],
                              capture_output=True, text=True, check=False).stdout.splitlines()

    while left() and time.monotonic() < limit:
        time.sleep(0.2)
    assert left() == []
    assert [p.name for p in stopped.iterdir()] == ["game-3.checkpoint"]
    resumed = subprocess.run([sys.executable, "-m", "solver", *args, "--workers", "0",
                              "--resume", "--out", str(stopped)], capture_output=True,
                             text=True, env=env, timeout=600, check=False)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "resuming" in resumed.stderr
    never = subprocess.run([sys.executable, "-m", "solver", *args, "--workers", "0", "--out",
                            str(whole)], capture_output=True, text=True, env=env, timeout=600,
                           check=False)
    assert never.returncode == 0, never.stderr[-2000:]
    assert (stopped / "game-3.msgpack").read_bytes() == (whole / "game-3.msgpack").read_bytes()
    assert not (stopped / "game-3.checkpoint").exists()


def test_ctrl_c_at_the_terminal_stops_a_dask_solve_in_one_line(tmp_path: Path) -> None:
    """Ctrl-C at a terminal signals every process of its group: each Dask worker printed a
    35-line traceback and the scheduler an ERROR line (a user's trial). Now the workers
    ignore it, the command ends with 130, and one line says where the work done is kept and
    how to go on; a run of the same command without --resume says it starts over."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    args = [sys.executable, "-m", "solver", "solve-game", "--players", "3", "--variant",
            "target=300", "--block", "64", "--workers", "2", "--out", str(tmp_path)]

    def default_ctrl_c() -> None:  # (the test's own process may ignore it: pytest-xdist)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env, start_new_session=True,
                               preexec_fn=default_ctrl_c)
    said = _past_first_checkpoint(process)
    os.killpg(process.pid, signal.SIGINT)  # the terminal's Ctrl-C: the whole group
    _, err = process.communicate(timeout=300)
    said += err
    assert process.returncode == 130, said[-2000:]
    assert "Traceback" not in said and "ERROR" not in said, said[-3000:]
    kept = tmp_path / "game-3.checkpoint"
    assert said.rstrip().endswith(
        f"sabords: interrupted; {str(kept)!r} keeps the work done: the same command with "
        "--resume goes on from it"), said[-2000:]
    assert kept.is_file()
    # the same command again, without --resume: said before the work is lost
    again = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env, start_new_session=True)
    assert again.stderr is not None
    first = again.stderr.readline()
    again.send_signal(signal.SIGTERM)
    again.communicate(timeout=300)
    assert first == (f"sabords: warning: {str(kept)!r} holds the work of an interrupted "
                     "solve; this one starts over and replaces it (--resume goes on from it "
                     "instead)\n")


def _past_first_checkpoint(process: Any) -> str:
    """What the solve `process` (a Popen, stderr piped as text) said until its second
    improvement began (the first's checkpoint written), the solve still going on."""
    import selectors
    import time

    assert process.stderr is not None
    said = ""
    watch = selectors.DefaultSelector()
    watch.register(process.stderr, selectors.EVENT_READ)
    limit = time.monotonic() + 600
    while "improvement 2:" not in said and process.poll() is None:
        assert time.monotonic() < limit, said
        if watch.select(1):
            said += process.stderr.readline()
    assert process.poll() is None, said  # improvements done, the solve going on
    return said


def test_dask_s_cancel_of_a_call_not_started_logs_nothing_at_a_ctrl_c() -> None:
    """A Ctrl-C that comes before a call of Dask's ``utils.sync`` has started made its
    ``cancel`` log a tornado ERROR with a traceback (``NameError: cannot access free variable
    'future'``, distributed 2026.8.0: the Ctrl-C test, once in a CI run). That record is
    dropped in a solve's process; any other error of tornado's is kept."""
    import logging

    from solver.game.cluster import quiet_sync_cancel

    quiet_sync_cancel()
    quiet_sync_cancel()  # (once)
    log = logging.getLogger("tornado.application")

    def record(exc: BaseException) -> logging.LogRecord:
        return logging.LogRecord("tornado.application", logging.ERROR, __file__, 1,
                                 "Exception in callback", None, (type(exc), exc, None))

    bug = NameError("cannot access free variable 'future' where it is not associated with a "
                    "value in enclosing scope")
    assert not log.filter(record(bug))
    assert log.filter(record(NameError("name 'x' is not defined")))
    assert log.filter(record(RuntimeError("'future'")))
    assert sum(f.__name__ == "_not_sync_cancel_bug" for f in log.filters  # type: ignore[union-attr]
               if callable(f)) == 1
