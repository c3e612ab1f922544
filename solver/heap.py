"""The C heap of a solve: glibc's ``malloc`` told to keep the memory it frees.

A game solve allocates and frees the same large arrays thousands of times: each sweep's work
arrays, each block's pushes, each chunk's buffers in the kernel's threads (numpy's and numba's
arrays both come from ``malloc``). With glibc's defaults, an array above the mmap threshold
(128 KiB, raised as such arrays are freed, to 32 MiB at most) is mapped and unmapped each
time, and the free memory at the top of each heap is given back to the system above 128 KiB;
each time, the next array's pages are faulted in and zeroed by the kernel again (2 MiB huge
pages, for numpy's arrays). Measured with ``farm-bench`` on the 2-core machine of ``make
bench``, in turn with the code before: three players at 2000 on 2 workers, 136.2 s against
165.9 s (2 runs each with 1 GiB kept, system time 17.7 s against 44.4 s, the largest process
699 MiB against 620 MiB; with the 256 MiB kept here, one run: 135.4 s, 21.1 s, 697 MiB); the
two-player game at 6000, 16.9 s against 18.3 s (734 MiB against 724 MiB). What it saves is
the system's time, which depends on the machine's state (how easily it finds free huge pages).
The tables are the same bytes: the allocator decides where numbers live, not what they are.

:func:`kept` raises both thresholds to :data:`KEEP_BYTES` and pads each heap's growth by
:data:`TOP_PAD` for the time of a solve; at its end, what is free goes back to the system
(``malloc_trim``) and the thresholds become those glibc itself reaches once large arrays
have been freed (:data:`AFTER`: a threshold set by ``mallopt`` is fixed, so glibc's own
raising of it does not come back, and its first value, 128 KiB, would map every array of a
turn solve afresh). Nested, only the outermost does so: a solve's blocks in its own process
keep the heap between them; a Dask worker's block keeps it for the block. Elsewhere than glibc
(musl, macOS, Windows) it does nothing.
"""

from __future__ import annotations

import ctypes
import platform
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

M_TRIM_THRESHOLD = -1
M_TOP_PAD = -2
M_MMAP_THRESHOLD = -3
KEEP_BYTES = 256 << 20
"""Free memory a heap keeps, and the size from which an array is mapped on its own (256 MiB)."""
TOP_PAD = 16 << 20
"""What a heap grows by beyond each request (16 MiB)."""
AFTER = ((M_MMAP_THRESHOLD, 32 << 20), (M_TRIM_THRESHOLD, 64 << 20), (M_TOP_PAD, 128 << 10))
"""After a solve: the mmap threshold at glibc's largest automatic value (32 MiB on 64 bits),
the trim threshold at twice it (as glibc sets it), the top pad at its default (mallopt(3))."""

_libc: list[Any] = []
_depth = [0]
_lock = threading.Lock()


def _glibc() -> Any | None:
    """glibc's functions, or None elsewhere."""
    if not _libc:
        lib = None
        if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
            try:
                lib = ctypes.CDLL(None)
                lib.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
                lib.malloc_trim.argtypes = [ctypes.c_size_t]
            except (OSError, AttributeError):
                lib = None
        _libc.append(lib)
    return _libc[0]


def _keep() -> bool:
    """Keep freed memory in this process's heaps from now on (module doc); whether it could."""
    lib = _glibc()
    if lib is None:
        return False
    return all(lib.mallopt(option, value) == 1 for option, value in
               ((M_MMAP_THRESHOLD, KEEP_BYTES), (M_TRIM_THRESHOLD, KEEP_BYTES),
                (M_TOP_PAD, TOP_PAD)))


@contextmanager
def kept() -> Iterator[None]:
    """The heap kept (:func:`_keep`) within; at the end of the outermost, the free memory
    given back and the thresholds of :data:`AFTER` set."""
    with _lock:
        if _depth[0] == 0:
            _keep()
        _depth[0] += 1
    try:
        yield
    finally:
        with _lock:
            _depth[0] -= 1
            lib = _glibc()
            if _depth[0] == 0 and lib is not None:
                lib.malloc_trim(0)
                for option, value in AFTER:
                    lib.mallopt(option, value)
