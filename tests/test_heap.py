"""solver/heap.py: a solve's heap keeps what it frees, and gives it back at the end."""

from __future__ import annotations

import platform
import resource

import numpy as np
import pytest

from solver import heap

SIZE = 48 << 20
"""An array above glibc's largest automatic mmap threshold (32 MiB) and below the kept 256 MiB."""

glibc = pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                           reason="glibc's malloc only")


def faults(cycles: int) -> int:
    """Page faults of `cycles` arrays of SIZE bytes, each written to and freed."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(cycles):
        a = np.empty(SIZE // 8)
        a.fill(1.0)
        del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


@glibc
def test_a_kept_heap_reuses_freed_arrays_and_maps_them_afresh_again_after() -> None:
    """By default each such array is mapped afresh and faulted in again (at least one fault
    per 2 MiB huge page, 24 a cycle); kept, the second and later ones reuse the first one's
    pages; after, they are mapped afresh again."""
    plain = faults(4)
    assert plain >= 4 * SIZE // (2 << 20)
    with heap.kept():
        faults(1)  # the heap grows to hold one
        inside = faults(4)
    after = faults(4)
    assert inside < plain // 4, (inside, plain)
    assert after >= 4 * SIZE // (2 << 20), after


@glibc
def test_kept_nests_and_only_the_outermost_gives_the_heap_back() -> None:
    with heap.kept():
        with heap.kept():
            faults(1)
        assert faults(4) < 4 * SIZE // (2 << 20) // 4  # still kept after the inner one
    assert heap._depth[0] == 0  # noqa: SLF001


def test_elsewhere_than_glibc_it_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_libc", [None])
    assert heap._keep() is False  # noqa: SLF001
    with heap.kept():
        assert heap._depth[0] == 1  # noqa: SLF001
    assert heap._depth[0] == 0  # noqa: SLF001
