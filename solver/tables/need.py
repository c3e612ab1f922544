"""The final turns' endings of four and five players, kept in the cache: ``need-<n>.msgpack``.

The near-optimal game of four and five players races the final round on one table: a final
turn played to beat every deficit, the probability of each of its endings, each card's
(:func:`solver.game.estimate.need_endings`, about a second of turn solves). A cold answer
would solve it again every time; it is kept beside the turn tables cached for the same turn
rules (:func:`solver.tables.paths.cache_dir`: it depends on the turn rules and the number of
dice alone), in the envelope of every table file (format, checksum). A file that is not this
one (other rules, another format, damaged) is solved again and replaced; a cache that cannot
be written warns, as every cache does, and the answer is the same.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from .. import __version__
from .fileformat import (
    FORMAT_VERSION,
    keep_in_cache,
    open_envelope,
    pack_array,
    pack_envelope,
    refusal,
    unpack_array,
    write_atomically,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from ..game.estimate import NeedEndings
    from ..rules.rulebook import Rules


def need_path(rules: Rules, n_dice: int) -> Path:
    from .paths import cache_dir

    return cache_dir(rules) / f"need-{n_dice}.msgpack"


def _header(rules: Rules, n_dice: int) -> dict[str, object]:
    turn = rules.turn_rules()
    return {"kind": "need", "rules": turn.as_dict(), "rules_hash": turn.hash,
            "n_dice": n_dice, "solver_version": __version__}


def pack_need(need: NeedEndings, rules: Rules, n_dice: int) -> bytes:
    return pack_envelope({"header": _header(rules, n_dice), "k_min": need.k_min,
                          "k_max": need.k_max, "cards": pack_array(need.cards),
                          "island": pack_array(need.island)}, FORMAT_VERSION)


def unpack_need(data: bytes, rules: Rules, n_dice: int, source: str) -> NeedEndings:
    """The endings of `data`, refused (:class:`~solver.errors.StaleTableError`) unless made
    by this solver for these turn rules and dice."""
    import numpy as np

    from ..game.estimate import NeedEndings, summed

    refuse = refusal("need", source, rules.turn_rules())
    payload = open_envelope(data, refuse=refuse, version=FORMAT_VERSION)
    if payload.get("header") != _header(rules, n_dice):
        raise refuse("made for other rules, dice or solver")
    try:
        cards = np.array(unpack_array(payload["cards"]), dtype=np.float64)
        island = np.array(unpack_array(payload["island"]), dtype=np.float64)
        k_min, k_max = int(payload["k_min"]), int(payload["k_max"])
    except (KeyError, TypeError, ValueError):
        raise refuse("incomplete table") from None
    if cards.ndim != 3 or cards.shape[1:] != (2 * (k_max - k_min + 2), k_max - k_min + 2) \
            or island.ndim != 1:
        raise refuse("arrays of the wrong shape")
    return NeedEndings(k_min, k_max, summed(cards), island, cards)


_KEPT: dict[tuple[Rules, int], NeedEndings] = {}
"""The endings read or solved in this process, by (turn rules, dice): the last :data:`KEEP`
kept."""
KEEP = 4
_lock = threading.Lock()
_GATES: dict[tuple[Rules, int], threading.Lock] = {}
"""One lock a (turn rules, dice) being read or solved: a server's requests that need the same
endings at once wait for the one solve (on 2 cores, sixteen solves side by side would take
sixteen times as long, each)."""


def cached_need(rules: Rules, n_dice: int,
                before_solve: Callable[[Rules, int], None] | None = None) -> NeedEndings:
    """The final turns' endings under `rules` with `n_dice` dice: from this process's or the
    disk's cache when it holds them, else solved now (`before_solve(rules, n_dice)` called
    first: a front end says so) and kept there (module doc); one thread at a time reads or
    solves the same endings, the others wait for them (:data:`_GATES`). (Not an
    ``lru_cache``: it would be keyed by `before_solve` too.)"""
    key = (rules.turn_rules(), n_dice)  # (the endings depend on nothing else)
    with _lock:
        kept = _KEPT.get(key)
        if kept is not None:
            return kept
        gate = _GATES.setdefault(key, threading.Lock())
    with gate:
        try:
            with _lock:
                kept = _KEPT.get(key)
            if kept is not None:  # read or solved by the thread this one waited for
                return kept
            need = _read_or_solve(rules, n_dice, before_solve)
            with _lock:
                _KEPT[key] = need
                while len(_KEPT) > KEEP:
                    del _KEPT[next(iter(_KEPT))]
        finally:  # (a solve that failed too: the threads waiting try in turn)
            with _lock:
                if _GATES.get(key) is gate:
                    del _GATES[key]
    return need


def _read_or_solve(rules: Rules, n_dice: int,
                   before_solve: Callable[[Rules, int], None] | None) -> NeedEndings:
    from ..errors import StaleTableError
    from ..game.estimate import need_endings

    path = need_path(rules, n_dice)
    try:
        return unpack_need(path.read_bytes(), rules, n_dice, str(path))
    except (OSError, StaleTableError):
        if before_solve is not None:
            before_solve(rules, n_dice)
        need = need_endings(rules.turn_rules(), n_dice)
        keep_in_cache(lambda: write_atomically(path, pack_need(need, rules, n_dice)), path)
        return need


def clear_kept() -> None:
    """Forget the endings kept in this process (the disk's cache stays)."""
    with _lock:
        _KEPT.clear()


__all__ = ["cached_need", "clear_kept", "need_path", "pack_need", "unpack_need"]
