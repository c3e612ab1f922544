"""The memory of a large game's solve, in its own process: what a cyclic phase holds a state
(the cost model's :data:`solver.limits.CYCLIC_STATE`), its successors built a chunk at a time,
and a checkpoint written with one copy of the state.

A new user's trial solved three players at 12000 and 20000: the cost model said 4.3 and 8.2 GB,
the solve passed 13.5 GB in 90 s at 12000 and was killed by the system at 20000 (24 GB). The
phase's successors took 8.5 kB a state while they were built (for the whole phase at once), and
a checkpoint held the state five times over while it was written.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from solver.game.model import game_model, point_range
from solver.game.records import Checkpoint, CyclicWork, PhaseRecord
from solver.game.seats import seats_of
from solver.limits import CYCLIC_STATE
from solver.rules import Rules, rules_with
from solver.tables.checkpoints import CHECKPOINT_VERSION, _header, load_checkpoint, save_checkpoint
from solver.tables.fileformat import bin_header, pack_array, pack_envelope, write_envelope


def _seats(target: int, players: int = 3) -> Any:
    rules = rules_with([f"target={target}"])
    gm = game_model(rules, 8)
    return gm, seats_of(players, point_range(rules, 8), gm.n, rules.ties, compact=True)


def _peak(work: Callable[[], Any]) -> tuple[Any, int]:
    """`work()`'s result and the most memory (bytes, numpy's arrays included) it held at once."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        got = work()
        return got, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("chunk", [7, 1000])
def test_a_phase_s_successor_table_is_its_successors_state_by_state(chunk: int) -> None:
    _, seats = _seats(1000)
    for name, phase in seats.phases.items():
        index = np.arange(phase.size, dtype=np.int64)[::3]
        points, island = seats.successor_table(name, index, chunk=chunk)
        want_points, want_island = seats.successors(name, index)
        assert points.dtype == island.dtype == np.int64
        assert points.flags.c_contiguous and island.flags.c_contiguous
        assert np.array_equal(points, want_points.T) and np.array_equal(island, want_island.T)


def test_a_phase_s_successors_take_their_rows_and_one_chunk_s_work() -> None:
    """Three players at 4000, normal play (64,000 states): the two arrays (1.1 kB a state)
    and one chunk's working arrays (about 12 kB a state of the chunk; 1.45 kB a state of the
    phase in all, measured); the whole phase at once took 8.5 kB a state."""
    _, seats = _seats(4000)
    index = np.arange(seats.phases["normal"].size, dtype=np.int64)
    chunk = 2048
    (points, island), peak = _peak(lambda: seats.successor_table("normal", index, chunk=chunk))
    rows = points.nbytes + island.nbytes
    assert peak <= rows + chunk * 16_000, (peak / index.shape[0], rows / index.shape[0])


def _state(size: int, rows: int) -> Checkpoint:
    rng = np.random.default_rng(7)
    gm, _ = _seats(6000)
    work = CyclicWork.start(size, gm.n_u, gm.n_k)
    work.endings[:] = rng.random(work.endings.shape)
    work.columns[:] = rng.random(work.columns.shape)
    work.digest[:] = rng.integers(0, 2**63, size, dtype=np.uint64)
    state = Checkpoint(Z=rng.random((rows, 3)), done=["sudden"],
                       records={"sudden": PhaseRecord("sudden")})
    state.phase, state.iteration, state.change = "normal", 4, 2.5e-4
    state.digests = [work.digest.copy(), work.digest.copy()]
    state.work = work.arrays()
    return state


def _old_bytes(state: Checkpoint, rules: Rules) -> bytes:
    """A checkpoint as it was written before: every array copied, the envelope around a copy
    of the payload."""
    return pack_envelope({
        "header": _header(rules, 3, 8), "Z": pack_array(state.Z), "done": list(state.done),
        "records": {n: r.as_dict() for n, r in state.records.items()},
        "phase": state.phase or "", "iteration": state.iteration,
        "digests": [pack_array(d) for d in state.digests],
        "change": -1.0 if state.change is None else state.change,
        "work": {k: pack_array(v) for k, v in state.work.items()}}, CHECKPOINT_VERSION)


def test_a_checkpoint_is_written_with_one_copy_of_the_state_and_the_same_bytes(
        tmp_path: Path) -> None:
    rules = Rules()
    state = _state(40_000, 400_000)
    held = (state.Z.nbytes + sum(a.nbytes for a in state.work.values())
            + sum(d.nbytes for d in state.digests))
    path = tmp_path / "game-3.checkpoint"
    _, peak = _peak(lambda: save_checkpoint(path, rules, 3, 8, state))
    assert peak <= 1.1 * held, peak / held  # 5.0 times the state before
    assert path.read_bytes() == _old_bytes(state, rules)  # the format is unchanged
    back = load_checkpoint(path, rules, 3, 8, state.Z.shape[0])
    assert np.array_equal(back.Z, state.Z) and back.iteration == 4
    assert all(np.array_equal(back.work[k], v) for k, v in state.work.items())


@pytest.mark.parametrize("packed", [1, 200, 255, 256, 65_535, 65_536, 70_000])
def test_an_envelope_written_in_parts_is_the_envelope_s_bytes(tmp_path: Path,
                                                               packed: int) -> None:
    """The packed payload's size sets its header (bin 8, 16 or 32): each side of each
    boundary, the packed payload of exactly that size."""
    import msgpack

    def size(n: int) -> int:
        return len(msgpack.packb({"b": b"x" * n}, use_bin_type=True))

    n = max(packed - size(0), 0)
    while n and size(n) > packed:
        n -= 1
    payload = {"b": b"x" * n} if packed > 1 else {}
    assert len(msgpack.packb(payload, use_bin_type=True)) == packed
    write_envelope(tmp_path / "f", payload, 9)
    assert (tmp_path / "f").read_bytes() == pack_envelope(payload, 9)


def test_a_payload_over_4_gib_is_an_error_of_the_file_not_a_traceback() -> None:
    """Three players from 13000 checkpoint more than a bin holds: an OSError (EFBIG), which
    the solve reports as a checkpoint it could not write and goes on."""
    import errno

    assert bin_header((1 << 32) - 1) == b"\xc6\xff\xff\xff\xff"
    with pytest.raises(OSError) as raised:
        bin_header(1 << 32)
    assert raised.value.errno == errno.EFBIG


def test_the_cost_model_counts_what_a_cyclic_phase_holds_a_state() -> None:
    """:data:`CYCLIC_STATE` is at least the arrays a state of the phase being solved holds in
    the solve's process (its work, its successors), with the larger of what comes on top: the
    utilities an improvement reads and their change, or the checkpoint's packed work."""
    gm, seats = _seats(6000)
    size = 1000
    work = CyclicWork.start(size, gm.n_u, gm.n_k)
    points, island = seats.successor_table("normal", np.arange(size, dtype=np.int64))
    arrays = sum(a.nbytes for a in work.arrays().values()) + points.nbytes + island.nbytes
    improvement = 2 * size * gm.n_k * 8  # the utilities read, and their change
    packed = sum(a.nbytes for a in work.arrays().values())
    assert CYCLIC_STATE >= (arrays + max(improvement, packed)) / size


def test_a_state_over_4_gib_is_a_checkpoint_not_written_before_it_is_packed(
        tmp_path: Path) -> None:
    """Three players from 13000: the state is refused as a file too large (EFBIG, which the
    solve reports once and goes on), before its packing would take its size again."""
    import errno

    state = _state(10, 100)
    state.work = {**state.work, "endings": np.broadcast_to(np.zeros(1), (1 << 30,))}  # 8 GiB
    path = tmp_path / "game-3.checkpoint"
    with pytest.raises(OSError) as raised:
        save_checkpoint(path, Rules(), 3, 8, state)
    assert raised.value.errno == errno.EFBIG and not path.exists()
