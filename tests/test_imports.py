"""What an answer imports: a points answer, a win probability and a win advice read
the committed tables and import neither the solvers' heavy libraries (FLINT, numba, Dask),
nor the web stack, nor the kernel or the exact solver that made the tables. A test of what is
imported, not of how long it takes: the figures are `make bench`'s.

Each command runs in a fresh interpreter (this one has imported everything already).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("flint", "numba", "llvmlite", "dask", "distributed", "starlette", "uvicorn", "anyio",
         "scipy", "joblib", "segno")
"""Top-level packages no answer from the tables may import."""
SOLVERS = ("solver.engine.kernel", "solver.engine.kernel_numba", "solver.engine.exact",
           "solver.engine.exact_linear", "solver.engine.solve", "solver.web")
"""Our own modules that make tables, or serve them: not needed to answer from them."""

RUN = """
import contextlib, io, json, sys
from solver.cli import main
sys.argv = ["sabords", *sys.argv[1:]]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit as exit:
        code = exit.code
    else:
        code = 0
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _imported(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True,
                          text=True, check=True)
    answer = json.loads(done.stdout.splitlines()[-1])
    assert answer["code"] in (0, None), done.stderr
    return list(answer["modules"])


POINTS = [
    ("advise", "captain", "kkssscdp"),
    ("advise", "sorceress", "kkmmppsc", "--json"),
    ("score", "none", "ccccsssd"),
    ("ev",),
]
GAME = [
    ("winprob", "--me", "0", "--opp", "0"),
    ("advise", "none", "kkmmmmpc", "--me", "1000", "--opp", "5000"),
]


@pytest.mark.parametrize("args", POINTS + GAME, ids=" ".join)
def test_an_answer_from_the_tables_imports_no_heavy_library(args: tuple[str, ...]) -> None:
    heavy = sorted({m.split(".")[0] for m in _imported(*args)} & set(HEAVY))
    assert heavy == [], f"`sabords {' '.join(args)}` imports {heavy}"


@pytest.mark.parametrize("args", POINTS, ids=" ".join)
def test_a_points_answer_imports_no_solver(args: tuple[str, ...]) -> None:
    ours = sorted(set(_imported(*args)) & set(SOLVERS))
    assert ours == [], f"`sabords {' '.join(args)}` imports {ours}"


COLD = ("numpy", "typer", "click")
"""What a points answer from the committed tables does without: numpy (the table is read as
numpy-free columns, `solver.tables.fileformat.Column`) and typer with click (the answers'
parser, `solver.cli.quick`). Each is a third of the cold start it would cost (`make bench`)."""


@pytest.mark.parametrize("args", POINTS, ids=" ".join)
def test_a_points_answer_imports_neither_numpy_nor_typer(args: tuple[str, ...]) -> None:
    cold = sorted({m.split(".")[0] for m in _imported(*args)} & set(COLD))
    assert cold == [], f"`sabords {' '.join(args)}` imports {cold}"


def test_the_check_can_fail() -> None:
    # the same check sees the exact values' module when an answer needs them
    modules = _imported("advise", "captain", "kkssscdp", "--exact")
    assert "solver.engine.exact" in modules
    # and numpy and typer where an answer needs them: a need solved, a help printed
    assert "numpy" in _imported("advise", "none", "ccccmmpk", "--need", "1000")
    assert "typer" in _imported("advise", "--help")
