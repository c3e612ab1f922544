"""solver/heap.py: a solve's heap keeps what it frees, and gives it back at the end.

The heap's settings belong to the whole process, and a test's worker also runs other tests'
solves in threads (a web test's solve may still be running when this one starts): each
measurement here runs in a fresh Python process of its own."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from solver import heap

SIZE = 48 << 20
"""An array above glibc's largest automatic mmap threshold (32 MiB) and below the kept 256 MiB."""
HUGE_PAGES = 4 * SIZE // (2 << 20)
"""At least one fault per 2 MiB huge page of 4 such arrays (96)."""

glibc = pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                           reason="glibc's malloc only")

PRELUDE = f"""
import json, resource
import numpy as np
from solver import heap

def faults(cycles):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(cycles):
        a = np.empty({SIZE} // 8)
        a.fill(1.0)
        del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
"""


def measured(body: str) -> Any:
    """What `body` prints as JSON, run after :data:`PRELUDE` in a fresh process (`faults(n)`:
    the page faults of n arrays of SIZE bytes, each written to and freed)."""
    script = PRELUDE + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@glibc
def test_a_kept_heap_reuses_freed_arrays_and_maps_them_afresh_again_after() -> None:
    """By default each such array is mapped afresh and faulted in again (at least one fault
    per 2 MiB huge page, 24 a cycle); kept, the second and later ones reuse the first one's
    pages; after, they are mapped afresh again."""
    plain, inside, after = measured("""
        plain = faults(4)
        with heap.kept():
            faults(1)  # the heap grows to hold one
            inside = faults(4)
        print(json.dumps([plain, inside, faults(4)]))
    """)
    assert plain >= HUGE_PAGES, plain
    assert inside < plain // 4, (inside, plain)
    assert after >= HUGE_PAGES, after


@glibc
def test_kept_nests_and_only_the_outermost_gives_the_heap_back() -> None:
    inner, depth, after = measured("""
        with heap.kept():
            with heap.kept():
                faults(1)
            inner = faults(4)  # still kept after the inner one
        print(json.dumps([inner, heap._depth[0], faults(4)]))
    """)
    assert inner < HUGE_PAGES // 4, inner
    assert depth == 0
    assert after >= HUGE_PAGES, after


def test_elsewhere_than_glibc_it_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_libc", [None])
    assert heap._keep() is False  # noqa: SLF001
    with heap.kept():
        assert heap._depth[0] == 1  # noqa: SLF001
    assert heap._depth[0] == 0  # noqa: SLF001
