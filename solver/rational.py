"""Exact numbers as text: a fraction as ``p/q`` and its decimal expansion.

Pure Python. One rendering for every exact number the project prints: the exact turn values
(:mod:`solver.engine.exact`), their statistics and the Skull Island probabilities of
`sabords score` (:mod:`solver.rules.verdict`).

- :func:`fraction_text`: ``"p/q"`` in lowest terms, the sign on ``p``, ``"p"`` for an integer
  (the form :class:`fractions.Fraction` prints and parses back);
- :func:`decimal_text`: the decimal expansion rounded to :data:`DIGITS` significant digits
  (round half to even, correctly rounded by :mod:`decimal`), written out in full (no
  exponent), and exact, with fewer digits, when the expansion ends sooner;
- :func:`exact_text`: both, ``"p/q = d"`` when ``d`` is exact, ``"p/q ≈ d"`` otherwise.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Context, Decimal, Inexact
from fractions import Fraction

DIGITS = 30
"""Significant digits of a decimal expansion."""


def fraction_text(x: Fraction | int) -> str:
    """``"p/q"`` in lowest terms (``"p"`` when q is 1): ``Fraction(fraction_text(x)) == x``."""
    return str(Fraction(x))


def _decimal(x: Fraction | int, digits: int) -> tuple[Decimal, bool]:
    if digits < 1:
        raise ValueError(f"a decimal expansion needs at least 1 significant digit, not {digits}")
    x = Fraction(x)
    ctx = Context(prec=digits, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999)
    d = ctx.divide(Decimal(x.numerator), Decimal(x.denominator))
    return d, not ctx.flags[Inexact]


def decimal_text(x: Fraction | int, digits: int = DIGITS) -> str:
    """The decimal expansion of `x` to `digits` significant digits (see the module doc)."""
    d, _ = _decimal(x, digits)
    return format(d, "f")


def decimal_is_exact(x: Fraction | int, digits: int = DIGITS) -> bool:
    """Whether :func:`decimal_text` of `x` is its whole expansion (it ends within `digits`)."""
    return _decimal(x, digits)[1]


def exact_text(x: Fraction | int, digits: int = DIGITS) -> str:
    """``"p/q ≈ d"`` (or ``"p/q = d"`` when the expansion is exact; ``"p"`` alone for an
    integer)."""
    x = Fraction(x)
    if x.denominator == 1:
        return fraction_text(x)
    d, exact = _decimal(x, digits)
    return f"{fraction_text(x)} {'=' if exact else '≈'} {format(d, 'f')}"


__all__ = ["DIGITS", "decimal_is_exact", "decimal_text", "exact_text", "fraction_text"]
