"""The package as pip installs it: every subpackage, the page's assets and the
committed tables are in the wheel and the sdist, the tables are found as the package's data,
and the installed command answers from outside the repository without solving anything.

The wheel and the sdist are built by the project's own build backend (setuptools, as pip and
pipx call it) from a copy of the tree, so the checkout stays clean. ``.ci/run`` goes further:
it installs the wheel into a fresh virtual environment of every Python the machine has and
runs the transcripts of the README and of docs/ against it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA_PACKAGE = "solver.tabledata"
IGNORED = {".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
           ".hypothesis", "build", "dist"}


def _tree_packages() -> set[str]:
    """The packages of the source tree: every directory of solver/ with an __init__.py."""
    return {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "solver").rglob(
        "__init__.py") if not IGNORED & set(p.parts)}


def _package_files() -> set[str]:
    """Every file the installed package must hold, by its path in the wheel."""
    files = {p.relative_to(ROOT).as_posix() for p in (ROOT / "solver").rglob("*")
             if p.is_file() and not IGNORED & set(p.parts) and p.suffix != ".pyc"}
    files |= {f"solver/tabledata/{p.name}" for p in _tables()}
    return files


def _tables() -> list[Path]:
    """The committed tables, and the measured losses of near-optimal play beside them."""
    return [*(ROOT / "tables").glob("*.msgpack"), *(ROOT / "tables").glob("*.json")]


def test_the_package_list_names_every_package_of_the_tree() -> None:
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    assert set(setuptools["packages"]) == _tree_packages() | {DATA_PACKAGE}
    assert setuptools["package-dir"] == {DATA_PACKAGE: "tables"}
    assert not (ROOT / "solver" / "tabledata").exists()  # the tables stay in tables/ only


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The wheel and the sdist built from a copy of the tree, and a wheel built from the
    sdist (what `pip install` of an sdist does)."""
    where = tmp_path_factory.mktemp("build")
    tree = where / "tree"
    shutil.copytree(ROOT, tree, ignore=lambda _d, names: [n for n in names if n in IGNORED])
    out = where / "dist"
    wheel_name = _build(tree, "wheel", out)
    sdist_name = _build(tree, "sdist", out)
    with tarfile.open(out / sdist_name) as tar:
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(where / "unpacked", **safe)  # type: ignore[arg-type]
    from_sdist = where / "from-sdist"
    _build(next((where / "unpacked").iterdir()), "wheel", from_sdist)
    return {"wheel": out / wheel_name, "sdist": out / sdist_name,
            "wheel_from_sdist": from_sdist / wheel_name}


def _build(tree: Path, kind: str, out: Path) -> str:
    """Call the build backend in `tree` (a fresh process, as a build frontend does): the name
    of the `kind` (``wheel`` or ``sdist``) it writes into `out`."""
    call = (f"import sys; from setuptools import build_meta; "
            f"name = build_meta.build_{kind}(sys.argv[1]); print('built', name)")
    done = subprocess.run([sys.executable, "-c", call, str(out)], cwd=tree,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split("built ")[-1].strip()


def _wheel_files(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as z:
        return {n for n in z.namelist() if ".dist-info/" not in n}


@pytest.mark.parametrize("which", ["wheel", "wheel_from_sdist"])
def test_the_wheel_holds_every_module_asset_and_table(built: dict[str, Path],
                                                      which: str) -> None:
    files = _wheel_files(built[which])
    assert files == _package_files()
    with zipfile.ZipFile(built[which]) as z:
        for table in _tables():
            assert z.read(f"solver/tabledata/{table.name}") == table.read_bytes()
        top_level = next(n for n in z.namelist() if n.endswith("top_level.txt"))
        assert z.read(top_level).decode().split() == ["solver"]


def test_the_sdist_holds_the_tree_the_tables_and_the_rules(built: dict[str, Path]) -> None:
    with tarfile.open(built["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    expected = {p for p in _package_files() if not p.startswith("solver/tabledata/")}
    expected |= {f"tables/{p.name}" for p in _tables()}
    expected |= {"pyproject.toml", "README.md"}
    assert expected <= names, sorted(expected - names)


@pytest.fixture(scope="module")
def installed(built: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel unpacked as pip installs it (its files under one site directory)."""
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(built["wheel"]) as z:
        z.extractall(site)
    return site


def _run_installed(site: Path, where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m solver ARGS` with the unpacked wheel first on the path, run in `where`
    (outside the repository), with an empty cache of its own."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SABORDS_") and k != "NUMBA_CACHE_DIR"}
    env.update(SABORDS_CACHE_DIR=str(where / "cache"), PYTHONPATH=str(site),
               PYTHONSAFEPATH="1")
    code = ("import sys, runpy; sys.argv = ['sabords', *sys.argv[1:]]; "
            "runpy.run_module('solver', run_name='__main__')")
    return subprocess.run([sys.executable, "-c", code, *args], cwd=where, env=env,
                          capture_output=True, text=True, check=False)


def test_the_installed_package_finds_its_tables_as_package_data(installed: Path,
                                                                tmp_path: Path) -> None:
    code = ("import solver, solver.tables.paths as t; "
            "print(solver.__file__); print(t.committed_dir()); print(t.in_checkout())")
    env = {**os.environ, "PYTHONPATH": str(installed), "PYTHONSAFEPATH": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=True)
    module, committed, checkout = done.stdout.split()
    assert Path(module) == installed / "solver" / "__init__.py"
    assert Path(committed) == installed / "solver" / "tabledata"
    assert checkout == "False"


@pytest.mark.parametrize("args", [
    ("advise", "captain", "kkssscdp"),
    ("ev",),
    ("winprob", "--me", "0", "--opp", "0"),
])
def test_the_installed_command_answers_at_once_without_solving(
        installed: Path, tmp_path: Path, args: tuple[str, ...]) -> None:
    from tests.conftest import run_sabords

    done = _run_installed(installed, tmp_path, *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout == run_sabords(*args).stdout  # the checkout's answer
    assert not (tmp_path / "cache").exists()  # nothing solved, nothing compiled


def test_an_installed_package_never_suggests_make_tables(installed: Path,
                                                         tmp_path: Path) -> None:
    committed = installed / "solver" / "tabledata"
    damaged = committed / "turn-captain.msgpack"
    intact = damaged.read_bytes()
    damaged.write_bytes(intact[:-10])
    try:
        done = _run_installed(installed, tmp_path, "advise", "captain", "kkssscdp")
    finally:
        damaged.write_bytes(intact)
    assert done.returncode == 2
    assert "make tables" not in done.stderr
    assert "reinstall mille-sabords" in done.stderr
    done = _run_installed(installed, tmp_path, "solve", "--card", "none", "--out",
                          str(committed))
    assert done.returncode == 2
    assert "installed with mille-sabords" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_four_players_are_answered_near_optimally_with_the_loss_that_ships(
        installed: Path, tmp_path: Path) -> None:
    """No four-player table comes with the package: four players get near-optimal answers
    from the two- and three-player tables, with what was measured of that play (every entry
    of four players under these rules) installed beside the tables."""
    import json

    done = _run_installed(installed, tmp_path, "winprob", "--me", "0", "--opp", "0", "--opp",
                          "0", "--opp", "0", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["exact"] is False and answer["method"].startswith("near-optimal")
    shipped = json.loads((ROOT / "tables" / "near-optimal.json").read_text(encoding="utf-8"))
    # (as answers carry them: a games entry's states without the chunks they were played in,
    # and without the probe of a run that resumes)
    assert answer["loss"]["measured"] == [
        {**{k: v for k, v in e.items() if k != "probe"},
         **({"states": [{k: v for k, v in s.items() if k != "chunks"}
                        for s in e["states"]]} if "states" in e else {})}
        for e in shipped["measured"] if e["players"] == 4 and e["ties"] == "shared"]
    assert answer["loss"]["measured"], "nothing measured of four players ships"
