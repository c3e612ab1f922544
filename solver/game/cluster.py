"""The n-player game's improvements on a Dask cluster (``dask.distributed``).

:class:`DaskRunner` is a runner of :mod:`.solve`: each improvement scatters the value table
``Z`` to the cluster (the workers copy it as their tasks need it), submits one task a
block of states (:func:`.solve.improve_block`, a pure function of its arguments) and yields
the blocks as they finish. A worker that dies in the middle of a block loses only that block:
the scheduler runs it again elsewhere, and since a block's numbers depend on its states alone
the table is the same bits; a worker gone between improvements fails the next scatter until
the scheduler knows, and the scatter is tried again (:func:`scatter`); blocks whose input
died with the only worker holding it are submitted again with the table scattered anew
(:data:`RESUBMITS`). What a block returns
(its states' outcome distributions, or their values in the final round) goes to this
process, which evaluates the phase (:mod:`.evaluate`: a few seconds; the improvements are
the hours).

:func:`local_cluster` starts a ``LocalCluster`` sized to the machine (one single-threaded
worker a core: the kernel's own threads are then one, ``SABORDS_THREADS``); :func:`connect`
joins an existing one (``dask scheduler`` and ``dask worker`` on the machines, docs/distributed.md).

Dask is imported here only, never on the advisor's path.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..engine import FloatArray, IntArray
from ..engine.kernel import THREADS_ENV
from ..errors import SettingsError, is_digits, quote, whole_number
from ..rules.rulebook import NUM_DICE, Rules
from .solve import improve_block


class DaskRunner:
    """Every block of an improvement a task on the cluster of `client`."""

    def __init__(self, client: Any, rules: Rules, players: int, n_dice: int = NUM_DICE) -> None:
        self.client, self.rules, self.players, self.n_dice = client, rules, players, n_dice

    def improve(self, phase: str, blocks: Sequence[IntArray], Z: FloatArray,
                tol: float, eps: float, values: bool,
                known: Sequence[np.ndarray] | None = None,
                margins: bool = True) -> Iterator[tuple[int, Any]]:
        from concurrent.futures import CancelledError

        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        pending = set(range(len(blocks)))
        for attempt in range(RESUBMITS + 1):
            table = scatter(self.client, Z)
            futures = {self.client.submit(improve_block, self.rules, self.players, self.n_dice,
                                          phase, blocks[i], table, tol, eps, values,
                                          None if known is None else known[i], True,
                                          margins,
                                          key=f"improve-{phase}-{i}-{table.key}-{margins:d}",
                                          retries=2): i
                       for i in sorted(pending)}
            try:
                for future in as_completed(futures):  # type: ignore[no-untyped-call]
                    try:
                        result = future.result()
                    except (CancelledError, KilledWorker, OSError):
                        if attempt == RESUBMITS:
                            raise
                        continue  # its input was lost with a worker: submitted again below
                    i = futures[future]
                    pending.discard(i)
                    future.release()
                    yield i, result
            finally:
                for future in futures:
                    future.release()
                table.release()
            if not pending:
                return


SCATTER_TRIES = 5
"""Times a scatter is tried: a worker that died since the last one fails it until the
scheduler knows (a second or so)."""
RESUBMITS = 3
"""Times the blocks of an improvement whose input was lost (the worker holding the value table
died before any other had a copy) are submitted again with the table scattered anew."""


def scatter(client: Any, Z: FloatArray, *, tries: int = SCATTER_TRIES) -> Any:
    """`Z` on one worker (a future; the workers that run a block copy it from there), tried
    again while a worker lost fails the scatter. Not ``broadcast``: a broadcast that meets a
    worker killed before the scheduler knew waits for it for ever (dask/distributed#5704, met
    by the kill test here)."""
    for attempt in range(tries):
        try:
            return client.scatter(Z, hash=False)
        except OSError:  # CommClosedError, a timeout: a worker gone in the meantime
            if attempt == tries - 1:
                raise
            time.sleep(1.0 + attempt)
    raise AssertionError("unreachable")


def workers(cluster_workers: int | None = None) -> int:
    """The workers of a local cluster: one a core unless said."""
    if cluster_workers is not None:
        return cluster_workers
    from ..limits import cores

    return cores()


SCHEDULER_HTTP = "127.0.0.1:0"
"""Where a local cluster's scheduler serves its HTTP routes (health, metrics; no dashboard):
a free port of this machine's loopback. Dask starts that server even with no dashboard
(``dashboard_address=None``, dask/distributed#8136), on port 8787 unless told otherwise, and
where another cluster holds 8787 (a second solve, a notebook's cluster) it printed a
four-line ``UserWarning`` among the solve's lines."""


@contextmanager
def local_cluster(n_workers: int | None = None) -> Iterator[Any]:
    """A client of a ``LocalCluster`` of `n_workers` single-threaded worker processes (one a
    core by default), closed on exit."""
    from distributed import Client, LocalCluster

    quiet_sync_cancel()
    with _workers_ignore_ctrl_c():
        cluster = LocalCluster(n_workers=workers(n_workers), threads_per_worker=1,
                               processes=True, env={THREADS_ENV: "1"}, dashboard_address=None,
                               scheduler_kwargs={"dashboard_address": SCHEDULER_HTTP},
                               silence_logs=40)  # type: ignore[no-untyped-call]
    log = logging.getLogger("distributed")
    level = log.level
    try:
        with cluster, Client(cluster) as client:  # type: ignore[no-untyped-call]
            client.register_plugin(_quiet_heartbeats_plugin())  # (workers restarted too)
            try:
                yield client
            except (KeyboardInterrupt, SystemExit):  # an interrupt: the scheduler's
                # complaints as its workers go ("Removing worker ... caused the cluster to lose
                # scattered data") are not the user's to read (an error's logs are kept)
                log.setLevel(logging.CRITICAL)
                raise
    finally:
        log.setLevel(level)


def _not_sync_cancel_bug(record: logging.LogRecord) -> bool:
    """Not the error Dask's ``utils.sync`` logs (through tornado, with a traceback) when a
    Ctrl-C comes before its call has started: its ``cancel`` reads a variable not yet set
    (``NameError: cannot access free variable 'future'``, distributed 2026.8.0). The
    interrupt itself goes on as ever; only that noise is dropped (found by a test of Ctrl-C,
    once in a CI run)."""
    exc = record.exc_info[1] if record.exc_info else None
    return not (isinstance(exc, NameError) and "'future'" in str(exc))


def quiet_sync_cancel() -> None:
    """Drop :func:`_not_sync_cancel_bug`'s record in this process (the client's): once."""
    tornado_log = logging.getLogger("tornado.application")
    if _not_sync_cancel_bug not in tornado_log.filters:
        tornado_log.addFilter(_not_sync_cancel_bug)


HEARTBEAT_FAILED = "Failed to communicate with scheduler during heartbeat"
"""What a Dask worker logs, with a traceback of 30 lines, when a heartbeat finds no scheduler:
as a cluster closes after Ctrl-C, where the scheduler can go first (found by a test, once in
many runs). Dask tries again at the next heartbeat, and a worker whose scheduler stays gone
closes itself; the client's own error says what failed."""


def _not_heartbeat_failure(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith(HEARTBEAT_FAILED)


def quiet_heartbeats() -> None:
    """In a worker process (:func:`_quiet_heartbeats_plugin`): its heartbeats that fail are
    not logged (:data:`HEARTBEAT_FAILED`)."""
    worker_log = logging.getLogger("distributed.worker")
    if _not_heartbeat_failure not in worker_log.filters:
        worker_log.addFilter(_not_heartbeat_failure)


def _quiet_heartbeats_plugin() -> Any:
    """A Dask worker plugin that calls :func:`quiet_heartbeats` in every worker, those a nanny
    starts again after a crash too (``client.run`` reaches the workers of the moment only).
    Made here, not at the module's level, so that Dask is imported only when a cluster is
    (the class is sent to the workers by value)."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class QuietHeartbeats(WorkerPlugin):
        name = "sabords-quiet-heartbeats"

        def setup(self, worker: Any) -> None:
            quiet_heartbeats()

    return QuietHeartbeats()


@contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """The worker processes started within ignore SIGINT: a Ctrl-C at the terminal reaches
    every process of its group, and each worker printed a traceback of 35 lines (a user's
    trial), while this process's Ctrl-C closes the cluster anyway. An ignored signal stays
    ignored in the processes started (and Python then installs no handler of its own); this
    process takes it again at once after. (From the main thread only: elsewhere signals are not
    Python's to set.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


CONNECT_SECONDS = 20.0
"""How long the whole handshake with a scheduler may take: the connection, the handshake of
Dask's protocol and the client's registration. (Dask's own time limit covers the connection
alone: a port that accepts and never answers, or a web server, held the client for ever.)"""
SCHEDULER_PROTOCOLS = ("tcp", "tls")
"""The protocols a scheduler of another process answers on (``inproc://`` is within one
process; ``ucx://`` needs a package this project does not install)."""
DEFAULT_PORT = 8786
"""Dask's scheduler port, for an address that gives none."""
_HOST_NAME = re.compile(r"(?=.{1,253}\.?$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
                        r"(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?")


def scheduler_address(text: str) -> str:
    """The address of a scheduler of another process written `text` (``tcp://HOST:PORT``,
    ``tls://HOST:PORT``, ``HOST:PORT`` for tcp, ``[IPv6]:PORT``; the port 8786 if none), in
    Dask's form; a :class:`SettingsError` that says what is wrong, before anything waits on
    it (a port above 65535, a host such as ``256.1.1.1``, ``inproc://``)."""
    shown = quote(text)
    expected = f"expected tcp://HOST:PORT, e.g. tcp://10.0.0.5:{DEFAULT_PORT}"

    def refuse(why: str) -> SettingsError:
        return SettingsError(f"{why} in the scheduler's address {shown}: {expected}",
                             subject="scheduler", values={"scheduler": text})

    protocol, sep, rest = text.strip().partition("://")
    if not sep:
        protocol, rest = "tcp", text.strip()
    if protocol.lower() not in SCHEDULER_PROTOCOLS:
        raise refuse(f"{quote(protocol)} is not a protocol a scheduler of another process "
                     f"answers on ({', '.join(SCHEDULER_PROTOCOLS)})")
    port: str | None
    if rest.startswith("["):  # [IPv6]:PORT
        host, bracket, after = rest[1:].partition("]")
        if not bracket or (after and not after.startswith(":")):
            raise refuse("an IPv6 address without its closing bracket")
        port = after[1:] if after else None
    elif rest.count(":") > 1:
        raise refuse("an IPv6 address without its brackets ([::1]:PORT)")
    else:
        host, colon, after = rest.partition(":")
        port = after if colon else None
    if not host:
        raise refuse("no host")
    if port is not None and not is_digits(port):
        raise refuse(f"{quote(port)} is not a port number")
    number = DEFAULT_PORT if port is None else whole_number(port, max_digits=6)
    if number is None or not 1 <= number <= 65535:
        raise refuse(f"port {port} is not between 1 and 65535")
    if rest.startswith("["):
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise refuse(f"{quote(host)} is not an IPv6 address") from None
        return f"{protocol.lower()}://[{host}]:{number}"
    if all(part.isascii() and part.isdigit() for part in host.split(".")):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise refuse(f"{quote(host)} is not an IP address") from None
    elif not _HOST_NAME.fullmatch(host):
        raise refuse(f"{quote(host)} is not a host name")
    return f"{protocol.lower()}://{host}:{number}"


@contextmanager
def connect(address: str, seconds: float | None = None) -> Iterator[Any]:
    """A client of the scheduler at `address` (:func:`scheduler_address`), closed on exit; a
    :class:`SettingsError` when the address cannot be one, or when no scheduler has answered
    within `seconds` (:data:`CONNECT_SECONDS`): the connection and the whole handshake."""
    from distributed import Client

    limit = CONNECT_SECONDS if seconds is None else seconds
    where = scheduler_address(address)
    quiet_sync_cancel()
    outcome: dict[str, Any] = {}
    given_up = threading.Event()

    def start() -> None:
        try:
            client = Client(where, timeout=f"{limit}s")  # type: ignore[no-untyped-call]
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc
            return
        outcome["client"] = client
        if given_up.is_set():  # answered after the caller left: nobody will use it
            client.close()  # type: ignore[no-untyped-call]

    # Dask's own limit bounds only the connection: the handshake runs in a thread of its own,
    # waited on for `limit` (a daemon: a scheduler that never answers holds no exit).
    thread = threading.Thread(target=start, name="sabords-connect", daemon=True)
    thread.start()
    thread.join(limit)
    if thread.is_alive():
        given_up.set()
        raise SettingsError(f"no Dask scheduler answered at {quote(address)} within "
                            f"{limit:g} s", subject="scheduler", values={"scheduler": address})
    error = outcome.get("error")
    if isinstance(error, MemoryError):  # another protocol's bytes read as a frame's length
        raise SettingsError(f"no Dask scheduler answers at {quote(address)}: what answers "
                            "there speaks another protocol (a web server?)",
                            subject="scheduler", values={"scheduler": address}) from None
    if isinstance(error, (OSError, TimeoutError, ValueError)):
        raise SettingsError(f"no Dask scheduler answers at {quote(address)}: {error}",
                            subject="scheduler", values={"scheduler": address}) from None
    if error is not None:
        raise error
    client = outcome["client"]
    try:
        yield client
    finally:
        client.close()
