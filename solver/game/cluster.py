"""The n-player game's improvements on a Dask cluster (``dask.distributed``), and its
checkpoints.

:class:`DaskRunner` is a runner of :mod:`.nsolve`: each improvement scatters the value table
``Z`` to the cluster (the workers copy it as their tasks need it), submits one task a
block of states (:func:`.nsolve.improve_block`, a pure function of its arguments) and yields
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
joins an existing one (``dask scheduler`` and ``dask worker`` on the machines, README).

:func:`save_checkpoint` and :func:`load_checkpoint` write and read the state of a solve after
each improvement (:class:`.nsolve.Checkpoint`: the table so far, the phase, the iteration and
what decides the next one), atomically, so that ``--resume`` continues an interrupted solve to
the same bytes.

Dask is imported here only, never on the advisor's path.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import FloatArray, IntArray
from ..engine.kernel import THREADS_ENV
from ..errors import SettingsError, StaleTableError, quote
from ..rules import NUM_DICE, Rules
from ..tablefile import (
    open_envelope,
    pack_array,
    pack_envelope,
    refusal,
    unpack_array,
    write_atomically,
)
from .nsolve import Checkpoint, PhaseRecord, improve_block

CHECKPOINT_VERSION = 1


class DaskRunner:
    """Every block of an improvement a task on the cluster of `client`."""

    def __init__(self, client: Any, rules: Rules, players: int, n_dice: int = NUM_DICE) -> None:
        self.client, self.rules, self.players, self.n_dice = client, rules, players, n_dice

    def improve(self, phase: str, blocks: Sequence[IntArray], Z: FloatArray,
                tol: float, eps: float, values: bool,
                known: Sequence[np.ndarray] | None = None) -> Iterator[tuple[int, Any]]:
        from concurrent.futures import CancelledError

        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        pending = set(range(len(blocks)))
        for attempt in range(RESUBMITS + 1):
            table = scatter(self.client, Z)
            futures = {self.client.submit(improve_block, self.rules, self.players, self.n_dice,
                                          phase, blocks[i], table, tol, eps, values,
                                          None if known is None else known[i],
                                          key=f"improve-{phase}-{i}-{table.key}", retries=2): i
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
    return max(1, os.cpu_count() or 1)


@contextmanager
def local_cluster(n_workers: int | None = None) -> Iterator[Any]:
    """A client of a ``LocalCluster`` of `n_workers` single-threaded worker processes (one a
    core by default), closed on exit."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers(n_workers), threads_per_worker=1, processes=True,
                      env={THREADS_ENV: "1"}, dashboard_address=None,
                      silence_logs=40) as cluster, Client(cluster) as client:  # type: ignore[no-untyped-call]
        yield client


@contextmanager
def connect(address: str) -> Iterator[Any]:
    """A client of the scheduler at `address` (``tcp://HOST:8786``), closed on exit; a
    :class:`SettingsError` when none answers."""
    from distributed import Client

    try:
        client = Client(address, timeout="20s")  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as exc:
        raise SettingsError(f"no Dask scheduler answers at {quote(address)}: {exc}",
                            subject="scheduler") from None
    try:
        yield client
    finally:
        client.close()  # type: ignore[no-untyped-call]


# --------------------------------------------------------------------------------------------
# Checkpoints
# --------------------------------------------------------------------------------------------


def _header(rules: Rules, players: int, n_dice: int) -> dict[str, Any]:
    return {"kind": "game-checkpoint", "rules": rules.as_dict(), "rules_hash": rules.hash,
            "players": players, "n_dice": n_dice}


def save_checkpoint(path: Path, rules: Rules, players: int, n_dice: int,
                    state: Checkpoint) -> None:
    """Write `state` to `path`, atomically (the last complete checkpoint is always there)."""
    payload = {
        "header": _header(rules, players, n_dice),
        "Z": pack_array(state.Z),
        "done": list(state.done),
        "records": {name: r.as_dict() for name, r in state.records.items()},
        "phase": state.phase or "",
        "iteration": state.iteration,
        "digests": [pack_array(d) for d in state.digests],
        "change": -1.0 if state.change is None else state.change,
        "work": {k: pack_array(v) for k, v in state.work.items()},
    }
    write_atomically(path, pack_envelope(payload, CHECKPOINT_VERSION))


def load_checkpoint(path: Path, rules: Rules, players: int, n_dice: int,
                    rows: int) -> Checkpoint:
    """The state saved at `path` by :func:`save_checkpoint`, refused (a
    :class:`~solver.errors.SettingsError` of the ``resume`` input) unless it is intact and of
    this game."""

    def refuse(why: str) -> SettingsError:
        return SettingsError(f"cannot resume from {quote(str(path))}: {why}", subject="resume")

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise refuse(exc.strerror or "it cannot be read") from None
    table_refusal = refusal("game", path, rules)
    try:
        payload = open_envelope(data, refuse=table_refusal, kind="checkpoint",
                                version=CHECKPOINT_VERSION)
    except StaleTableError as exc:
        raise refuse(exc.reason) from None
    try:
        if payload["header"] != _header(rules, players, n_dice):
            raise refuse("it was written by a solve of another game (rules, players or dice)")
        Z = np.array(unpack_array(payload["Z"]))
        if Z.shape != (rows, players) or Z.dtype != np.dtype("<f8"):
            raise refuse("its value table is not of this game")
        records = {name: PhaseRecord(**r) for name, r in payload["records"].items()}
        digests = [np.array(unpack_array(d)) for d in payload["digests"]]
        work = {k: np.array(unpack_array(v)) for k, v in payload["work"].items()}
        change = float(payload["change"])
        return Checkpoint(Z=Z, done=list(payload["done"]), records=records,
                          phase=payload["phase"] or None, iteration=int(payload["iteration"]),
                          digests=digests, change=None if change < 0 else change, work=work)
    except SettingsError:
        raise
    except (KeyError, TypeError, ValueError):
        raise refuse("it is incomplete (a field is missing or malformed)") from None
