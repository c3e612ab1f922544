"""The n-player solve on Dask (issue 20): the same bytes for any runner, number of workers and
block size; a worker killed in the middle of a solve changes nothing; a solve interrupted and
resumed from its checkpoint gives the bytes of one never interrupted. On a reduced game (three
players, four dice, target 500: seconds), on a ``LocalCluster`` of worker processes.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from solver.game.cluster import DaskRunner, load_checkpoint, local_cluster, save_checkpoint
from solver.game.nsolve import Checkpoint, solve_nplayer
from solver.gametables import pack_ngame
from solver.rules import Rules

RULES = Rules(target=500)
PLAYERS, DICE = 3, 4


def _solve(runner: Any = None, **kwargs: Any) -> bytes:
    return pack_ngame(solve_nplayer(RULES, PLAYERS, runner, n_dice=DICE, **kwargs))


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
        after = sorted(client.run(os.getpid).values())
    assert killed and killed[0] not in after  # the nanny started a new worker process
    assert got == reference


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
