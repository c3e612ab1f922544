"""The turn kernel (solver/engine/kernel.py): its numba and numpy implementations give the same
bits, on random inputs for every mode and on whole solves; and its pieces do what they say.

numba is a dependency of the project: these tests fail (they do not skip) when it is missing.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from solver.engine import kernel, solve_turn, structure, turn_model
from solver.engine.arrays import world_arrays
from solver.engine.kernel import LANES, MODE_BELLMAN, MODE_EXPECT, MODE_POLICY, to_lanes
from solver.engine.solve import solve_layers
from solver.rules import CARD_IDS, CARDS, Rules


@pytest.fixture
def both() -> Iterator[Callable[[str], None]]:
    """Switch the kernel's implementation: both("numba") / both("numpy")."""
    assert kernel.numba_available(), "numba is a dependency: install it (make test does)"
    yield kernel.force
    kernel.force(None)


@pytest.mark.parametrize(("env", "inside"), [(None, "numba"), ("auto", "numba"),
                                             ("numba", "numba"), ("numpy", "numpy")])
def test_work_of_small_batches_runs_numba_unless_numpy_is_asked_for(
        monkeypatch: pytest.MonkeyPatch, env: str | None, inside: str) -> None:
    """`compiled_whenever_installed` (a game solve's) runs numba for single chunks too, except
    where SABORDS_KERNEL asks for numpy (before, a game solve ran numba whatever it said); a
    kernel forced by a test is kept."""
    if env is None:
        monkeypatch.delenv(kernel.KERNEL_ENV, raising=False)
    else:
        monkeypatch.setenv(kernel.KERNEL_ENV, env)
    # as in a process whose numba has run nothing yet (the next test: one that has)
    monkeypatch.setattr(kernel, "_small_ready", lambda: False)
    assert kernel.numba_available()
    with kernel.compiled_whenever_installed():
        assert kernel.implementation(1) == inside
    assert kernel.implementation(1) == ("numba" if env == "numba" else "numpy")
    kernel.force("numpy")
    try:
        with kernel.compiled_whenever_installed():
            assert kernel.implementation(1) == "numpy"
    finally:
        kernel.force(None)


def test_two_threads_inside_leave_the_choice_as_it_was_in_either_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`compiled_whenever_installed` entered by A, then B, left by A, then B (two threads of a
    server or of a test): numba while either is inside, the default after. Before, each saved
    the choice at its entry and restored it at its exit: A's exit put the default back while
    B still ran, and B's left numba forced for the rest of the process (found by a review)."""
    monkeypatch.delenv(kernel.KERNEL_ENV, raising=False)
    monkeypatch.setattr(kernel, "_small_ready", lambda: False)
    a, b = kernel.compiled_whenever_installed(), kernel.compiled_whenever_installed()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    assert kernel.implementation(1) == "numba"  # B is still inside
    b.__exit__(None, None, None)
    assert kernel.implementation(1) == "numpy"


SMALL_AFTER_NUMBA = """
import hashlib, sys
import numpy as np
from solver.engine import kernel, solve_turn
from solver.game.estimate import need_endings
from solver.rules import CARDS, Rules

def digest():
    out = solve_turn(CARDS["sorceress"], Rules())  # two worlds
    h = hashlib.sha256()
    for w in sorted(out.worlds):
        for a in (out.worlds[w].value, out.worlds[w].keep_value, out.worlds[w].policy):
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()

before = (kernel.implementation(1), digest())
need_endings(Rules().turn_rules(), 3)  # near-optimal final turns: numba, whatever the batch
after = (kernel.implementation(1), digest())
with kernel.compiled_whenever_installed():  # as a simulation's win play does
    forced = digest()
print(before[0], after[0], before[1] == after[1] == forced)
"""


def test_a_single_chunk_runs_numba_once_this_process_has_loaded_its_kernels() -> None:
    """By default a single chunk runs numpy (starting numba would cost more than the work),
    until this process has run numba's kernels of a turn's layered solve (here the final
    turns of near-optimal play): from then on numba, the same bits (a review of four players:
    16 s of numpy's single chunks before, 6 s)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k != kernel.KERNEL_ENV}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, "-c", SMALL_AFTER_NUMBA], env=env,
                          capture_output=True, text=True, check=True, timeout=600)
    assert done.stdout.split() == ["numpy", "numba", "True"]


def test_asking_whether_the_kernels_are_cached_leaves_the_choice_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`kernels_cached` (a server's request threads ask it while a solve may run) only reads
    the kernel's choice: before, it entered and left `compiled_whenever_installed`, whose
    restoring could undo, or leave behind, the choice of a solve in another thread."""

    class ReadOnly(list[str]):
        def _written(self, *args: Any) -> None:
            raise AssertionError("the kernel's choice was written")

        append = clear = extend = __setitem__ = __delitem__ = _written  # type: ignore[assignment]

    monkeypatch.delenv(kernel.KERNEL_ENV, raising=False)
    for choice in ([], ["numba"], ["numpy"]):
        monkeypatch.setattr(kernel, "_FORCED", ReadOnly(choice))
        kernel.kernels_cached()  # (ReadOnly raises at any write)
    assert kernel.kernels_cached() is True  # numpy forced: nothing to compile


def _case(card: str, symmetric: bool, chunks: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    model = turn_model(CARDS[card], Rules())
    st = structure(model, symmetric=symmetric)
    n_u = 40
    stop_idx = rng.integers(0, n_u, st.n_fo)
    bust_idx = rng.integers(0, n_u, st.n_rows)
    w = world_arrays(model, st, model.start_world, stop_idx, bust_idx)
    return {
        "st": st, "w": w,
        "V": rng.random((chunks, st.n_fo, LANES)),
        "u": rng.random((chunks, n_u, LANES)) * 10 - 5,
        "bs": rng.random((chunks, st.n_fo, LANES)) - 0.2,
        # keeps of rows whose keep value the sweep computes (not the full rows), or a stop
        "code": np.where(rng.random((chunks, st.n_fo, LANES)) < 0.2, -1,
                         rng.choice(np.concatenate([np.arange(lo, hi) for lo, hi in
                                                    zip(st.block_lo, st.full_lo, strict=True)]),
                                    (chunks, st.n_fo, LANES))),
        "sor": rng.random((chunks, st.n_fo, LANES)) < 0.1,
        "q_used": rng.random((chunks, st.n_rows + 1, LANES)),
        # an extrapolation's jump, made as the sweep reads the values
        "fix": ((rng.random((3, chunks, st.n_fo, LANES)) - 0.5).astype(np.float32),
                np.array([0.7, -0.2, 1.3])),
    }


def _run(case: dict[str, Any], mode: int, impl: str, force: Callable[[str], None],
         omega: float, parallel: bool) -> list[bytes]:
    force(impl)
    st, w = case["st"], case["w"]
    V = case["V"].copy()
    out = np.empty_like(V)
    e = np.empty((V.shape[0], st.n_rows + 1, LANES))
    q = np.empty_like(e)
    step = np.empty(V.shape, dtype=np.float32)
    first = (np.arange(0, st.n_fo, 3), np.linspace(0.01, 0.2, st.n_fo)[::3].copy(),
             np.empty((V.shape[0], LANES)))
    kw: dict[str, Any] = {"omega": omega, "parallel": parallel, "out": out, "step": step,
                          "first": first, "bs": case["bs"], "fix": case["fix"]}
    if mode == MODE_POLICY:
        kw.update(code=case["code"], sor=case["sor"], q_used=case["q_used"])
    res = kernel.sweep(mode, V, e, q, case["u"], w, st, 0, st.max_skulls, **kw)
    rows = st.level_lo[:, :-1]  # the expectations and keep values of the non-full rows
    keep = [q[:, lo:hi].tobytes() for lo, hi in zip(rows[:, 0], st.full_lo, strict=True)]
    parts = [res.tobytes(), e.tobytes(), V.tobytes(), *keep]
    if mode != MODE_EXPECT:
        parts += [out.tobytes(), step.tobytes(), first[2].tobytes()]
    return parts


@pytest.mark.parametrize("card", ["sorceress", "chest", "battle3", "animals", "skull2"])
@pytest.mark.parametrize("mode", [MODE_EXPECT, MODE_BELLMAN, MODE_POLICY])
def test_numba_and_numpy_sweeps_give_the_same_bits(card: str, mode: int,
                                                    both: Callable[[str], None]) -> None:
    for symmetric, chunks, omega in ((False, 1, 1.0), (True, 3, 1.5)):
        case = _case(card, symmetric, chunks, seed=hash((card, mode)) % 1000)
        a = _run(case, mode, "numba", both, omega, parallel=chunks > 1)
        b = _run(case, mode, "numpy", both, omega, parallel=False)
        assert a == b, (card, mode, symmetric)


@pytest.mark.parametrize("card", ["sorceress", "coin", "battle2"])
def test_numba_and_numpy_moves_and_helpers_give_the_same_bits(
        card: str, both: Callable[[str], None]) -> None:
    case = _case(card, True, 3, seed=7)
    st, w = case["st"], case["w"]
    rng = np.random.default_rng(3)
    q = np.round(rng.random((3, st.n_rows + 1, LANES)) * 8) / 8  # exact ties on purpose
    steps = rng.random((4, 3, st.n_fo, LANES)).astype(np.float32)
    results = []
    for impl in ("numba", "numpy"):
        both(impl)
        moves = kernel.best_moves(q, case["q_used"], case["u"], w, st, 0.01, w.sorceress_ok)
        bs = kernel.sorceress_best(case["q_used"], w.sorceress_ok, st)
        x = case["V"].copy()
        kernel.combine(x, steps[1:], np.array([0.5, -0.25, 2.0]))
        results.append([m.tobytes() for m in moves] + [bs.tobytes(), x.tobytes(),
                                                         repr(kernel.gram(steps)).encode()])
    assert results[0] == results[1]


def _edged(w: Any, st: Any, rng: np.random.Generator) -> Any:
    """World arrays with the kernels' edge cases: positions not live, and a live position
    that can neither stop nor keep (its keeps all disallowed: no move found)."""
    live, can_stop, keep_ok = w.live.copy(), w.can_stop.copy(), w.keep_ok.copy()
    live[rng.choice(np.flatnonzero(live), 5, replace=False)] = False
    stuck = int(np.flatnonzero(live & (np.diff(st.pairs_ptr) > 0))[0])
    keep_ok[st.pairs_row[st.pairs_ptr[stuck]:st.pairs_ptr[stuck + 1]]] = False
    can_stop[stuck] = False
    return dataclasses.replace(w, live=live, can_stop=can_stop, keep_ok=keep_ok)


@pytest.mark.parametrize("card", ["sorceress", "coin", "battle2", "skull2"])
@pytest.mark.parametrize("tol", [0.125, 1e-12])
@pytest.mark.parametrize("edges", ["none", "edges", "one position"])
def test_the_moves_and_their_margins_in_one_pass_are_the_two_apart(
        card: str, tol: float, edges: str, both: Callable[[str], None]) -> None:
    """`moves_and_margins` (an improvement's one pass, compiled) gives the bits of the numpy
    references of `best_moves` and `decision_margins` of its moves, and of the compiled two
    apart. The keep values are multiples of 1/16 and `tol` 1/8: exact ties, and differences of
    exactly `tol` and `tol` / 2, the thresholds of the choice and of the margins (margins of 0
    met); and `tol` 1e-12, the solves' tie rule, on values of 40 bits (margins of every size).
    With `edges`: positions not live, a position with no move at all, keep values of -inf;
    with one position live (the one of the most keeps), a lane's margin is that position's
    alone (over many, most lanes' least margin is 0)."""
    case = _case(card, True, 3, seed=5)
    st, w = case["st"], case["w"]
    rng = np.random.default_rng(17)
    grid = 16.0 if tol > 1e-6 else 2.0 ** 40  # 1e-12: near ties, not exact ones
    q = np.round(rng.random((3, st.n_rows + 1, LANES)) * grid) / grid
    q_used = np.round(case["q_used"] * grid) / grid
    u = np.round(case["u"] * grid) / grid
    if edges == "edges":
        w = _edged(w, st, rng)
        q[rng.random(q.shape) < 0.1] = -np.inf
        q_used[rng.random(q_used.shape) < 0.1] = -np.inf
    elif edges == "one position":
        live = np.zeros_like(w.live)
        live[int(np.argmax(np.diff(st.pairs_ptr) + np.diff(st.sor_ptr)))] = True
        w = dataclasses.replace(w, live=live)
    for q_u in (q_used, None):
        both("numpy")
        with np.errstate(invalid="ignore"):  # (-inf less -inf, a comparison that then fails)
            code, sor, _ = kernel.best_moves(q, q_u, u, w, st, tol, w.sorceress_ok)
            margin = kernel.decision_margins(q, q_u, u, w, st, tol, w.sorceress_ok, code, sor)
        reference = [code.tobytes(), sor.tobytes(), margin.tobytes()]
        both("numba")
        apart = kernel.best_moves(q, q_u, u, w, st, tol, w.sorceress_ok)[:2]
        apart += (kernel.decision_margins(q, q_u, u, w, st, tol, w.sorceress_ok, *apart),)
        one = kernel.moves_and_margins(q, q_u, u, w, st, tol, w.sorceress_ok)
        assert [a.tobytes() for a in one] == reference, q_u is None
        assert [a.tobytes() for a in apart] == reference, q_u is None
        kinds = set(code[:, w.live].ravel().tolist())
        assert -1 in kinds and len(kinds) > 3  # stops and several keeps
        if edges == "one position":  # margins of several sizes, 0 among them at 1/8
            assert len(set(margin.ravel().tolist())) > 3 and (tol < 1e-6 or 0.0 in margin)
        else:
            assert (0.0 in margin) if tol > 1e-6 else len(set(margin.ravel().tolist())) > LANES
        if card == "sorceress" and q_u is not None:
            assert sor.any() and (~sor & (code >= 0)).any()  # both kinds of keeps chosen
        if edges == "edges":  # not live: no move; no stop nor plain keep: none (or the Sorceress)
            stuck = w.live & ~w.can_stop & np.array(
                [not w.keep_ok[st.pairs_row[a:b]].any()
                 for a, b in zip(st.pairs_ptr[:-1], st.pairs_ptr[1:], strict=True)])
            assert stuck.any() and (code[:, ~w.live] == -2).all()
            assert ((code[:, stuck] == -1) | sor[:, stuck]).all()
            assert (code[:, stuck] == -1).any()


def test_best_moves_with_the_sweeps_maxima_is_the_full_scan(both: Callable[[str], None]) -> None:
    """Given the Bellman sweep's maxima, the choice is the same as scanning every keep."""
    both("numba")
    case = _case("sorceress", True, 2, seed=11)
    st, w = case["st"], case["w"]
    V = case["V"].copy()
    e = np.empty((2, st.n_rows + 1, LANES))
    q = np.empty_like(e)
    kernel.sweep(MODE_BELLMAN, V, e, q, case["u"], w, st, 0, st.max_skulls, out=V.copy())
    best = np.ascontiguousarray(e[:, st.full_row, :])
    full = kernel.best_moves(q, None, case["u"], w, st, 1e-9)
    quick = kernel.best_moves(q, None, case["u"], w, st, 1e-9, best=best)
    assert all(np.array_equal(a, b) for a, b in zip(full, quick, strict=True))


def _turn_bytes() -> str:
    digest = hashlib.sha256()
    for card in CARD_IDS:
        s = solve_turn(CARDS[card], Rules())
        digest.update(s.turn_value.tobytes())
        for ws in s.worlds.values():
            digest.update(ws.keep_value.tobytes())
            digest.update(ws.policy.tobytes())
    return digest.hexdigest()


def test_the_turn_tables_are_the_same_bits_in_numba_and_numpy(
        both: Callable[[str], None]) -> None:
    both("numba")
    a = _turn_bytes()
    both("numpy")
    assert _turn_bytes() == a


@pytest.mark.parametrize("impl", ["numba", "numpy"])
def test_a_jump_made_in_the_sweep_is_the_jump_made_before_it(
        impl: str, both: Callable[[str], None]) -> None:
    both(impl)
    case = _case("sorceress", True, 3, seed=5)
    st, w = case["st"], case["w"]
    steps, coef = case["fix"]
    outs = []
    for fused in (False, True):
        V = case["V"].copy()
        if not fused:
            kernel.combine(V, steps, coef)
        out = np.empty_like(V)
        e = np.empty((V.shape[0], 0, LANES))
        q = np.empty((V.shape[0], 0, LANES))
        res = kernel.sweep(MODE_BELLMAN, V, e, q, case["u"], w, st, 0, st.max_skulls,
                           omega=1.5, out=out, parallel=True,
                           fix=(steps, coef) if fused else None)
        outs.append((V.tobytes(), out.tobytes(), res.tobytes()))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("card", ["sorceress", "battle2"])
def test_layered_solves_of_several_chunks_are_the_same_bits(
        card: str, both: Callable[[str], None]) -> None:
    # Each chunk iterates until its own residual is small: numba runs the chunks on threads of
    # their own, numpy one after the other, and the numbers are the same.
    rng = np.random.default_rng(11)
    model = turn_model(CARDS[card], Rules())
    st = structure(model, symmetric=True)
    n_u = 30
    stop_idx = rng.integers(0, n_u, st.n_fo)
    bust_idx = rng.integers(0, n_u, st.n_rows)
    u = rng.random((3, n_u, LANES))
    out = []
    for impl in ("numba", "numpy"):
        both(impl)
        solved = solve_layers(model, st, u, stop_idx, bust_idx, tol=1e-11)
        out.append([solved.values[w].tobytes() for w in model.worlds]
                   + [solved.keeps[w].tobytes() for w in model.worlds]
                   + [np.float64(solved.residual).tobytes(), np.int64(solved.sweeps).tobytes()])
    assert out[0] == out[1]


def test_lanes_round_trip() -> None:
    b = 2 * LANES + 5  # two whole chunks and a padded one
    a = np.arange(3 * b, dtype=np.float64).reshape(3, b)
    lanes = to_lanes(a, LANES)
    assert lanes.shape == (3, 3, LANES)
    assert np.all(lanes[2, :, 5:] == 0)
    assert np.array_equal(kernel.from_lanes(lanes, b), a)
