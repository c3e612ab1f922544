"""The same rules give the same bytes on any machine: the 12 turn tables and a small game
(target 500) solved in fresh processes under settings that change how a CPU computes.

Each setting is one subprocess; all must write exactly the same bytes:

- ``OPENBLAS_CORETYPE`` unset, ``Haswell`` and ``Prescott`` (OpenBLAS kernels of three
  generations; nothing in a solve may call BLAS);
- ``NPY_DISABLE_CPU_FEATURES`` turning off numpy's AVX-512 and AVX2 paths (numpy 2.4 names them
  X86_V4 and X86_V3; older numpy AVX512F and AVX2);
- ``NUMBA_CPU_NAME=generic`` (numba compiles for a CPU without AVX or FMA);
- one and two threads of the kernel;
- numba present (and forced for every batch, ``SABORDS_KERNEL=numba``) and absent (the numpy
  reference everywhere).

The settings are combined a few to a process (every one appears somewhere), so the test takes
four processes, two at a time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from solver.rules import CARDS

REPO = Path(__file__).resolve().parent.parent

SOLVE = r"""
import hashlib, json, sys
if sys.argv[1] == "absent":
    sys.modules["numba"] = None  # an import of numba now fails: the numpy reference runs
from solver.engine import kernel
from solver.game import solve_game
from solver.rules import CARDS, CARD_IDS, Rules
from solver.tables.turn import build_tables, pack_table
from solver.tables.game import pack_game
tables = build_tables([CARDS[card] for card in CARD_IDS], Rules())
out = {card: hashlib.sha256(pack_table(table)).hexdigest()
       for card, table in zip(CARD_IDS, tables, strict=True)}
out["game"] = hashlib.sha256(pack_game(solve_game(Rules(target=500)))).hexdigest()
out["kernel"] = kernel.implementation(2)
print(json.dumps(out))
"""

AVX512_OFF = "X86_V4 AVX512_ICL AVX512_SPR AVX512F AVX512_SKX"
AVX2_OFF = "X86_V3 AVX2 FMA3 " + AVX512_OFF

SETTINGS: dict[str, dict[str, str]] = {
    "plain": {},
    "haswell, no avx-512, 1 thread": {"OPENBLAS_CORETYPE": "Haswell",
                                      "NPY_DISABLE_CPU_FEATURES": AVX512_OFF,
                                      "SABORDS_THREADS": "1", "NUMBA_NUM_THREADS": "1"},
    "prescott, no avx2, generic numba, 2 threads": {"OPENBLAS_CORETYPE": "Prescott",
                                                    "NPY_DISABLE_CPU_FEATURES": AVX2_OFF,
                                                    "NUMBA_CPU_NAME": "generic",
                                                    "SABORDS_KERNEL": "numba",
                                                    "SABORDS_THREADS": "2"},
    "numba absent": {"SABORDS_KERNEL": "numpy"},
}


def run(name: str, tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "NUMBA_CPU_NAME",
                        "SABORDS_THREADS", "NUMBA_NUM_THREADS", "SABORDS_KERNEL")}
    env.update(SETTINGS[name])
    env["PYTHONPATH"] = str(REPO)
    env["SABORDS_CACHE_DIR"] = str(tmp / "cache")
    # numba's compiled kernels come from the user's cache (NUMBA_CACHE_DIR, tests/conftest.py):
    # numba keys every entry by the CPU name and features it compiled for
    # (`codegen.magic_tuple()`), so the generic setting runs code compiled for the generic CPU
    assert "NUMBA_CACHE_DIR" in env
    mode = "absent" if name == "numba absent" else "present"
    proc = subprocess.run([sys.executable, "-c", SOLVE, mode], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, (name, proc.stderr[-2000:])
    return json.loads(proc.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_the_same_rules_give_the_same_bytes_under_every_setting(tmp_path: Path) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(SETTINGS, pool.map(lambda n: run(n, tmp_path), SETTINGS),
                           strict=True))
    assert results["numba absent"].pop("kernel") == "numpy"
    for name in SETTINGS:
        if name != "numba absent":
            assert results[name].pop("kernel") == "numba", name
    reference = results["plain"]
    for name, digests in results.items():
        assert digests == reference, name
    # and the committed tables are these bytes (make tables wrote them this way)
    from solver.tables.turn import table_path

    for card in (c for c in reference if c != "game"):
        import hashlib

        path = table_path(REPO / "tables", CARDS[card])
        committed = hashlib.sha256(path.read_bytes()).hexdigest()
        assert committed == reference[card], card
