"""Ranked lists: values within a tolerance of each other are ties, put in a fixed order.

Every list the project prints best first (the cards by win probability, the advisor's options,
the strategy report's best and worst card) goes through :func:`ranked`. Two values that are
equal but for their last bits (which may differ from one machine to another) are a tie, and
ties come out in the order of a fixed key: the deck's card order for cards (:func:`card_key`),
the policy's tie-break for a turn's options. So the same rules print the same list
everywhere.

A run of ties starts at the best value left and takes every value within the tolerance of it;
the next run starts below. Values a tolerance apart are far above the last-bit differences
(about 1e-16) and far below anything a player could tell apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from ..rules.rulebook import CARDS

T = TypeVar("T")

_CARD_ORDER = {card: i for i, card in enumerate(CARDS)}


def card_key(card: str) -> tuple[int, str]:
    """The deck's order of the cards (unknown ids after them, by name)."""
    return (_CARD_ORDER.get(card, len(_CARD_ORDER)), card)


def ranked(items: Iterable[T], value: Callable[[T], float], key: Callable[[T], Any], *,
           tol: float | None = None) -> list[T]:
    """`items` from the largest value down, each run of values within `tol` of the run's
    best in the order of `key` (default: the policy's tie tolerance,
    :data:`solver.engine.results.TIE_TOL`)."""
    return [x for run in ranked_runs(items, value, key, tol=tol) for x in run]


def ranked_runs(items: Iterable[T], value: Callable[[T], float], key: Callable[[T], Any], *,
                tol: float | None = None) -> list[list[T]]:
    """:func:`ranked`, run by run: each run the values within `tol` of its best (the ties),
    in the order of `key`."""
    if tol is None:
        from ..engine.codes import TIE_TOL

        tol = TIE_TOL
    values = [(value(x), x) for x in items]
    values.sort(key=lambda vx: -vx[0])  # stable: the key decides among ties below
    runs: list[list[T]] = []
    i = 0
    while i < len(values):
        top = values[i][0]
        j = i + 1
        while j < len(values) and values[j][0] >= top - tol:
            j += 1
        run = [x for _, x in values[i:j]]
        runs.append(sorted(run, key=key) if len(run) > 1 else run)  # keys of ties only
        i = j
    return runs


def ranked_cards(values: dict[str, float], *,
                 tol: float | None = None) -> list[tuple[str, float]]:
    """(card, value) pairs from the best value down, ties in the deck's order."""
    return ranked(values.items(), value=lambda kv: kv[1], key=lambda kv: card_key(kv[0]),
                  tol=tol)
