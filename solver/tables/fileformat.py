"""The table file format: the envelope of every table file, its arrays and its exact numbers.

A table file is a msgpack map ``{"format": <version>, "checksum": "sha256:<hex>", "payload":
<bytes>}``, the checksum the SHA-256 of ``payload``, itself a packed msgpack map with its keys
sorted (:func:`pack_envelope`, :func:`open_envelope`). Arrays are ``{"dtype", "shape",
"data"}`` with the raw little-endian bytes (:func:`pack_array`; :func:`pack_compressed` with the
data compressed), exact arrays a common denominator and fixed-width numerators
(:func:`pack_exact`). What the payload holds is the business of :mod:`solver.tables.turn`
and :mod:`solver.tables.game`; this module only reads and writes the format, and refuses what
does not fit it with a :class:`~solver.errors.StaleTableError`.

This module imports no numpy: a points answer reads its table as :class:`Column` views
(:func:`checked_column`); numpy is imported where a numpy array is made or written.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import sys
import warnings
import zlib
from array import array
from collections.abc import Callable
from fractions import Fraction
from math import gcd, lcm, prod
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgpack

from ..errors import MISSING, CacheWarning, StaleTableError
from ..rules.rulebook import Rules

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..engine.positions import ObjectArray

FORMAT_VERSION = 3
"""The layout of a turn table, bumped whenever it changes; older files are refused
(3: the exact values beside the floats, :mod:`solver.engine.exact`)."""
GAME_FORMAT_VERSION = 2
"""The layout of the game table (its own version: a turn table's change leaves it valid)."""
ZLIB_LEVEL = 6
"""The compression level of :func:`pack_compressed` (the game table's policies)."""

Refusal = Callable[[str], StaleTableError]
"""The refusal of one table file: the error that names the file, the reason given, its
table and its rules (:func:`refusal`)."""


def refusal(table: str, source: Path | str, rules: Rules, card: str | None = None) -> Refusal:
    """How the table `table` (``"turn"`` or ``"game"``) of `rules` in file `source` is
    refused: a :class:`StaleTableError` naming the file and the reason, carrying the table
    and the rules (never a command: the front ends word the fix)."""
    name = "game table" if table.startswith("game") else "policy table"

    def refuse(why: str) -> StaleTableError:
        return StaleTableError(f"{name} {source}: {why}", table=table, path=str(source),
                               rules=rules, card=card, reason=why)

    return refuse


def pack_array(values: NDArray[Any]) -> dict[str, Any]:
    """An array as a table file stores it: its bytes (little-endian, C order), type and
    shape."""
    entry = pack_view(values)
    entry["data"] = bytes(entry["data"])
    return entry


def pack_view(values: NDArray[Any]) -> dict[str, Any]:
    """:func:`pack_array` without copying a C-contiguous little-endian array: its data a view
    of the array's memory (packed to the same bytes; valid while the array is unchanged).
    For a checkpoint, whose arrays are a game's largest (three players at 12000: 3.4 GB)."""
    import numpy as np

    a = np.ascontiguousarray(values)
    little = a.astype(a.dtype.newbyteorder("<"), copy=False)
    return {"data": little.reshape(-1).data.cast("B"), "dtype": little.dtype.str,
            "shape": list(a.shape)}


def unpack_array(entry: dict[str, Any]) -> NDArray[Any]:
    import numpy as np

    shape: tuple[int, ...] = tuple(int(n) for n in entry["shape"])
    data = entry["data"]
    if entry.get("zlib"):
        data = zlib.decompress(data)
    return np.frombuffer(data, dtype=np.dtype(entry["dtype"])).reshape(shape)


_TYPECODES = {"<f8": "d", "<i8": "q", "|b1": "B"}
"""The array types of :class:`Column`: little-endian float64 and int64, and bool (a byte)."""


class Column:
    """An array of a table read without numpy: its raw little-endian bytes, its type
    (``"<f8"``, ``"<i8"`` or ``"|b1"``) and its shape, indexed as the numpy array it also
    gives (:meth:`numpy`, no copy): ``column[i, j]`` (or ``column[i]`` in one dimension) is
    the same Python float, int or bool as ``float(a[i, j])``, ``int(...)``, ``bool(...)``.
    A points answer reads a few dozen values of a table; this spares it numpy's import.

    Anything else is numpy's: a slice or an array of indices is read from :meth:`numpy`, and
    numpy takes a column for its array (``__array__``), so that code written for numpy arrays
    reads a light table too (importing numpy then)."""

    __slots__ = ("_values", "data", "dtype", "shape")

    def __init__(self, data: bytes, dtype: str, shape: tuple[int, ...]) -> None:
        self.data, self.dtype, self.shape = data, dtype, shape
        values = array(_TYPECODES[dtype])
        values.frombytes(data)
        if sys.byteorder == "big" and dtype != "|b1":
            values.byteswap()
        self._values = values

    def __getitem__(self, key: Any) -> Any:
        where = key if isinstance(key, tuple) else (key,)
        if len(where) != len(self.shape) or not all(type(i) is int for i in where):
            return self.numpy()[key]  # a slice, a row, indices of numpy's
        flat = 0
        for i, n in zip(where, self.shape, strict=True):
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for size {n}")
            flat = flat * n + (i % n)
        value = self._values[flat]
        return bool(value) if self.dtype == "|b1" else value

    def __len__(self) -> int:
        return self.shape[0]

    def __iter__(self) -> Any:
        return iter(self.numpy())

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[Any]:
        values = self.numpy()
        return values if dtype is None else values.astype(dtype)

    def min(self) -> Any:
        return min(self._values)

    def max(self) -> Any:
        return max(self._values)

    def numpy(self) -> NDArray[Any]:
        """The numpy array of the same bytes (read-only, no copy)."""
        import numpy as np

        return np.frombuffer(self.data, dtype=np.dtype(self.dtype)).reshape(self.shape)


def pack_compressed(array: NDArray[Any]) -> dict[str, Any]:
    """:func:`pack_array` with the data compressed by zlib at level 6, its default. The bytes
    are the same for the same data and the same zlib library (1.2.13 here); another deflate
    implementation (zlib-ng, say) may compress differently: the arrays read back the same, the
    file's bytes would not. The game's policies shrink a hundredfold, to 453 kB, in 0.35 s;
    level 9 saves 40 kB more and takes 2.4 s."""
    entry = pack_array(array)
    entry["data"] = zlib.compress(entry["data"], ZLIB_LEVEL)
    entry["zlib"] = True
    return entry


def sorted_payload(obj: Any) -> Any:
    """The same data with every map's keys in sorted order (deterministic bytes)."""
    if isinstance(obj, dict):
        return {k: sorted_payload(obj[k]) for k in sorted(obj)}
    if isinstance(obj, list | tuple):
        return [sorted_payload(x) for x in obj]
    return obj


def pack_exact(values: ObjectArray) -> dict[str, Any]:
    """An array of fractions (None: no value, stored as 0) over its least common denominator:
    ``den`` in decimal, the numerators as ``width``-byte big-endian two's complement integers
    in ``num`` (row-major), and the ``shape``. Deterministic: the same fractions give the
    same bytes."""
    flat = values.reshape(-1).tolist()
    den = lcm(1, *{v.denominator for v in flat if v is not None})
    return pack_exact_ints([0 if v is None else v.numerator * (den // v.denominator)
                            for v in flat], den, tuple(values.shape))


def pack_exact_ints(nums: list[int], den: int, shape: tuple[int, ...]) -> dict[str, Any]:
    """The numbers ``nums[i] / den`` (row-major, `den` positive, 0 where there is no value)
    as :func:`pack_exact` stores them: first brought to their least common denominator,
    ``den / gcd(den, nums...)``, so that the same numbers give the same bytes whichever
    common denominator they come on."""
    g = gcd(den, *nums)
    if g > 1:
        den //= g
        nums = [v // g for v in nums]
    # the bytes of the largest magnitude and a sign bit (the width of each alone, at most)
    top = max(max(nums, default=0), -min(nums, default=0))
    width = (top.bit_length() + 8) // 8 or 1
    return {"den": str(den), "num": b"".join([n.to_bytes(width, "big", signed=True)
                                              for n in nums]),
            "shape": list(shape), "width": width}


_DECIMAL = re.compile(r"[1-9][0-9]*")


def check_exact(entry: Any, name: str, shape: tuple[int, ...],
                refuse: Refusal) -> None:
    """Refuse an exact array unless it is well formed and of the expected shape (cheap: the
    numerators are not decoded)."""
    try:
        ok = (isinstance(entry["den"], str) and _DECIMAL.fullmatch(entry["den"]) is not None
              and isinstance(entry["num"], bytes) and isinstance(entry["width"], int)
              and entry["width"] >= 1)
        got = tuple(int(n) for n in entry["shape"])
    except (KeyError, TypeError, ValueError):
        raise refuse(f"exact array {name!r} is malformed") from None
    if not ok:
        raise refuse(f"exact array {name!r} is malformed")
    if got != shape:
        raise refuse(f"exact array {name!r} is {got}, expected {shape}")
    if len(entry["num"]) != entry["width"] * prod(shape):
        raise refuse(f"exact array {name!r} has {len(entry['num'])} bytes, not "
                     f"{entry['width']} per value")


def exact_ints(entry: dict[str, Any]) -> tuple[list[int], int]:
    """The numbers of :func:`pack_exact` as integers over one denominator, flat (row-major),
    without numpy: ``(nums, den)``."""
    den, width, data = int(entry["den"]), int(entry["width"]), entry["num"]
    return [int.from_bytes(data[i:i + width], "big", signed=True)
            for i in range(0, len(data) - width + 1, width)], den


def fractions_of(entry: dict[str, Any]) -> list[Fraction]:
    """The fractions of :func:`pack_exact`, flat (row-major), without numpy."""
    nums, den = exact_ints(entry)
    return [Fraction(v, den) for v in nums]


def pack_envelope(payload: dict[str, Any], version: int) -> bytes:
    """`payload` (keys sorted) in the envelope of every table file: format and checksum."""
    packed = msgpack.packb(sorted_payload(payload), use_bin_type=True)
    outer = {
        "checksum": "sha256:" + hashlib.sha256(packed).hexdigest(),
        "format": version,
        "payload": packed,
    }
    return msgpack.packb(outer, use_bin_type=True)  # type: ignore[no-any-return]


def write_envelope(path: Path, payload: dict[str, Any], version: int) -> Path:
    """:func:`write_atomically` of :func:`pack_envelope`'s bytes, without the copy of the
    payload that the envelope would make: its header, then the packed payload, written one
    after the other (the same bytes). The payload's arrays may be views (:func:`pack_view`):
    the state packed once at the peak, where :func:`pack_envelope` of :func:`pack_array`'s
    arrays held it five times (measured: tests/test_solve_memory.py)."""
    packer = msgpack.Packer(use_bin_type=True, autoreset=False)
    packer.pack(sorted_payload(payload))
    packed = packer.getbuffer()  # the packer's own buffer (`packb` returns a copy of it)
    head = msgpack.packb({"checksum": "sha256:" + hashlib.sha256(packed).hexdigest(),
                          "format": version, "payload": b""}, use_bin_type=True)
    # the payload's bin header in place of the empty one (0xc4 0x00)
    return write_atomically(path, head[:-2] + bin_header(len(packed)), packed)


def bin_header(size: int) -> bytes:
    """msgpack's header of a bin of `size` bytes (bin 8, 16 or 32, the smallest that holds
    it, as msgpack writes it); an OSError (EFBIG) from 4 GiB up, which no bin holds (three
    players from 13000 checkpoint 4.8 GB: a traceback after hours, found by a review)."""
    if size >= 1 << 32:
        raise OSError(errno.EFBIG, f"{size / 1e9:.1f} GB, more than a table file's payload "
                      "can hold (4.3 GB)")
    return (bytes([0xC4, size]) if size < 1 << 8 else
            b"\xc5" + size.to_bytes(2, "big") if size < 1 << 16 else
            b"\xc6" + size.to_bytes(4, "big"))


def open_envelope(data: bytes, *, refuse: Refusal, version: int,
                  kind: str = "table") -> dict[str, Any]:
    """The payload of table bytes, refused (:class:`StaleTableError`) unless the format
    version is `version` (this solver's for the kind) and the checksum matches. The caller
    checks the header."""
    file = "checkpoint file" if kind == "checkpoint" else "table file"
    try:
        outer = msgpack.unpackb(data, raw=False)
    except Exception:  # msgpack raises several unrelated types on garbage
        raise refuse(f"not a readable {file} (corrupt or truncated)") from None
    if not isinstance(outer, dict) or "format" not in outer:
        raise refuse(f"not a {kind} file")
    if outer["format"] != version:
        raise refuse(
            f"format version {outer['format']!r}, this solver reads version {version}"
        )
    packed = outer.get("payload")
    checksum = outer.get("checksum")
    if not isinstance(packed, bytes) or not isinstance(checksum, str):
        raise refuse("no payload or no checksum")
    if checksum != "sha256:" + hashlib.sha256(packed).hexdigest():
        raise refuse("checksum does not match its contents (corrupt or edited)")
    try:
        payload = msgpack.unpackb(packed, raw=False)
    except Exception:
        raise refuse(f"not a readable {file} (corrupt or truncated)") from None
    if not isinstance(payload, dict):
        raise refuse("incomplete table")
    return payload


def open_table(data: bytes, *, table: str, source: Path | str, rules: Rules, version: int,
               card: str | None = None) -> tuple[dict[str, Any], Refusal]:
    """The payload of a `table` (``"turn"``, ``"game"`` or ``"game-N"`` for ``N`` players) file
    made for exactly `rules`, and
    the refusal of that file (for the caller's own checks of the rest): refused unless the
    envelope is intact (:func:`open_envelope`), the header names this kind of table and the
    header's rules are `rules`, with their hash."""
    refuse = refusal(table, source, rules, card)
    game = table.startswith("game")
    payload = open_envelope(data, refuse=refuse, kind="game table" if game else "policy table",
                            version=version)
    header = payload.get("header")
    if not isinstance(header, dict) or header.get("kind") != ("game" if game else "turn"):
        raise refuse(f"not a {'game' if game else 'turn'} table")
    if header.get("rules_hash") != rules.hash or header.get("rules") != rules.as_dict():
        raise refuse(f"made for other rules (hash {header.get('rules_hash')}, these rules "
                     f"have {rules.hash})")
    return payload, refuse


def checked_column(entry: dict[str, Any], name: str, shape: tuple[int, ...], dtype: str,
                   refuse: Refusal) -> Column:
    """An array of the table as a :class:`Column` (no numpy), refused unless it has the
    expected shape and type (`dtype`: ``"<f8"``, ``"<i8"`` or ``"|b1"``, as
    :func:`pack_array` writes them) and its bytes fill that shape."""
    try:
        got = tuple(int(n) for n in entry["shape"])
        kind, data = entry["dtype"], entry["data"]
        if entry.get("zlib"):
            data = zlib.decompress(data)
        if not isinstance(kind, str) or not isinstance(data, bytes):
            raise TypeError
    except (KeyError, TypeError, ValueError, zlib.error):
        raise refuse(f"array {name!r} is malformed") from None
    if kind != dtype or got != shape:
        raise refuse(f"array {name!r} is {_type_name(kind)} {got}, expected "
                     f"{_type_name(dtype)} {shape}")
    if len(data) != int(dtype[2:]) * prod(shape):
        raise refuse(f"array {name!r} is malformed")
    return Column(data, dtype, shape)


_TYPE = re.compile(r"[<>|=]?([fiub])([1-9][0-9]?)")


def _type_name(dtype: object) -> str:
    """numpy's name of an array type (``"<f8"``: float64, ``"|b1"``: bool), as
    :func:`checked_array` words it; any other text as it is written."""
    match = _TYPE.fullmatch(dtype) if isinstance(dtype, str) else None
    if match is None:
        return repr(dtype)
    kind, size = match.groups()
    if kind == "b":
        return "bool"
    return {"f": "float", "i": "int", "u": "uint"}[kind] + str(8 * int(size))


def checked_array(entry: dict[str, Any], name: str, shape: tuple[int, ...], dtype: str,
                  refuse: Refusal) -> NDArray[Any]:
    """An array of the table, refused unless it has the expected shape and type."""
    import numpy as np

    try:
        a = unpack_array(entry)
    except (KeyError, TypeError, ValueError):
        raise refuse(f"array {name!r} is malformed") from None
    if a.shape != shape or a.dtype != np.dtype(dtype):
        raise refuse(f"array {name!r} is {a.dtype} {a.shape}, expected {np.dtype(dtype)} "
                     f"{shape}")
    return a


def write_atomically(path: Path, data: bytes, *more: bytes) -> Path:
    """Write `data` (then each of `more`, in order) to `path` (its folder created if needed)
    so that a reader never sees a half-written file: a temporary file beside it, then a
    rename. A failure leaves no temporary file behind and raises the write's own error."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as out:
            for part in (data, *more):
                out.write(part)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # the clean-up must not hide the first error
            pass
        raise
    return path


def write_compared(path: Path, write: Callable[[], object]) -> str:
    """Run `write`, which writes the table at `path`, and say what it did to the file:
    ``"new"``, ``"unchanged"`` (the same bytes as before: the same rules give the same bytes)
    or ``"changed"``. A failed write raises its own error."""
    before = path.read_bytes() if path.is_file() else None
    write()
    return ("new" if before is None else
            "unchanged" if before == path.read_bytes() else "changed")


def keep_in_cache(write: Callable[[], object], path: Path) -> None:
    """`write()` a table solved now into the cache, at `path`; a write that fails (a full or
    read-only disk) is a :class:`~solver.errors.CacheWarning` that names the file and the
    system's reason, not an error: the table solved is the answer all the same."""
    try:
        write()
    except OSError as exc:
        reason = _cache_reason(path) or exc.strerror or str(exc)
        warnings.warn(CacheWarning(f"the table {str(path)!r} could not be cached: {reason}",
                                   path=str(path), reason=reason), stacklevel=2)


def _cache_reason(path: Path) -> str | None:
    """Why no table can be written under the cache directory holding `path`, if it is one
    that can hold no directory at all (:func:`solver.caches.cache_state`: a symbolic link to
    nothing, where the system only says "File exists"); else None."""
    from ..caches import cache_root, cache_state

    root = cache_root()
    state = cache_state(root) if root in path.parents else None
    return None if state is None else f"the cache directory {str(root)!r} {state}"


def read_file(path: Path, refuse: Refusal) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise refuse(MISSING) from None
    except OSError as exc:
        raise refuse(f"cannot be read ({exc.strerror})") from None
