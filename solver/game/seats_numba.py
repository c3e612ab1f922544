"""Where every ending of a turn leads, compiled with numba: :meth:`.seats.Seats.successors`
state by state, in integers (the same rows as its numpy reference, which builds arrays of every
state's endings at once: 110 s of a 293-s solve of five players at 500 in one process went
there, most of it in the final round, measured; 6.9 s here).

Imported only by :meth:`.seats.Seats.successors`, when :func:`solver.engine.kernel.compiled`
runs numba for a batch of that size (it points numba's cache at the user's cache directory
first). A phase is described to the kernel by an *encoder*, a row of integers
(:meth:`.seats.Seats.encoder`): ``offset, safe, rest, box_size, leads, lead_span``, then ``lo``,
the box's ``radix`` and the movers' radix (``N`` each, the last padded with 0).
"""

# mypy: ignore-errors

from __future__ import annotations

import numba

_jit = numba.njit(cache=True, nogil=True)
_inline = numba.njit(cache=True, nogil=True, inline="always")
"""The helpers, inlined by numba into :func:`successors` (measured: no faster than calling
them; what made the kernel fast is :func:`_fixed`)."""

NORMAL_MODE, SUDDEN_MODE, FINAL_MODE, LAST_MODE = 0, 1, 2, 3
"""What a phase's endings lead to: normal play (``enc_a`` below the target, ``enc_b`` the
final round at or above it), sudden death (``enc_a`` below it, the mover's win at or above),
a final turn with others to come (``enc_a``, the next final-round phase), the last final turn
(the winners' terminal row, or ``enc_a``, sudden death, if nobody is at the target)."""


@_inline
def _encode(x, e):
    """The row of ``Z`` of the next state's totals `x` (N,) in the phase of encoder `e`
    (:meth:`.seats.Phase.encode` for one state, plus the phase's offset)."""
    big_n = x.shape[0]
    safe, rest, box_size, leads, span = e[1], e[2], e[3], e[4], e[5]
    lead = -1
    if safe:
        for j in range(rest, big_n):
            lead = x[j] if x[j] > lead else lead
    row = 0
    if safe == 0 or lead < safe:
        for j in range(big_n):
            row += (x[j] - e[6 + j]) * e[6 + big_n + j]
        return e[0] + row
    mask = 0
    for j in range(rest, big_n):
        if x[j] == lead:
            mask += 1 << (j - rest)
    movers = 0
    for j in range(rest):
        movers += (x[j] - e[6 + j]) * e[6 + 2 * big_n + j]
    return e[0] + box_size + ((movers * leads + mask - 1) * span + lead - safe)


@_inline
def _row(x, mine, mode, n, trigger, enc_a, enc_b, terminal, magic, first):
    """The row an ending leads to: the next state's totals `x` (its last seat the mover, at
    `mine`); `first` a scratch array for the last final turn's totals, the mover first."""
    big_n = x.shape[0]
    if mode == NORMAL_MODE:
        return _encode(x, enc_a) if mine < n else _encode(x, enc_b)
    if mode == SUDDEN_MODE:
        return _encode(x, enc_a) if mine < n else magic
    if mode == FINAL_MODE:
        return _encode(x, enc_a)
    first[0] = mine  # the last final turn: the winners (Seats.winners), seat 0 the mover
    top = mine
    for j in range(1, big_n):
        first[j] = x[j - 1]
        top = first[j] if first[j] > top else top
    if top < n:
        return _encode(x, enc_a)
    mask = 0
    if trigger:  # the first to reach the target: the trigger, the final turns, the mover
        for j in range(1, big_n):
            if first[j] == top:
                return terminal + (1 << j)
        return terminal + 1
    for j in range(big_n):
        if first[j] == top:
            mask += 1 << j
    return terminal + mask


@_inline
def _fixed(x, e):
    """The parts of encoder `e`'s row of the next state's totals `x` that do not depend on
    the mover's total (its last seat): the box's row without the mover, the lead of the
    seats of the rest before the mover and their bits, the movers' row."""
    big_n = x.shape[0]
    rest = e[2]
    base = e[0]
    for j in range(big_n - 1):
        base += (x[j] - e[6 + j]) * e[6 + big_n + j]
    lead = -1
    mask = 0
    if e[1]:
        for j in range(rest, big_n - 1):
            if x[j] > lead:
                lead = x[j]
                mask = 1 << (j - rest)
            elif x[j] == lead:
                mask += 1 << (j - rest)
    movers = 0
    for j in range(rest):
        movers += (x[j] - e[6 + j]) * e[6 + 2 * big_n + j]
    return base, lead, mask, movers


@_inline
def _with_mover(mine, e, big_n, base, lead_o, mask_o, movers):
    """:func:`_encode` of the totals whose :func:`_fixed` parts are given, the mover at
    `mine`: the same row, in a few operations."""
    safe = e[1]
    if safe:
        bit = 1 << (big_n - 1 - e[2])
        lead, mask = lead_o, mask_o
        if mine > lead_o:
            lead, mask = mine, bit
        elif mine == lead_o:
            mask = mask_o + bit
        if lead >= safe:
            return e[0] + e[3] + ((movers * e[4] + mask - 1) * e[5] + lead - safe)
    return base + (mine - e[6 + big_n - 1]) * e[6 + 2 * big_n - 1]


@_jit
def successors(t, k_min, n_ded, n, mode, trigger, enc_a, enc_b, terminal, magic, points,
               island):
    """:meth:`.seats.Seats.successors` of the states of totals `t` (S, N), state by state:
    ``points`` (S, n_k) for ``k = k_min ..`` units, ``island`` (S, n_ded) for a deduction of
    ``d = 0 ..`` units. A points ending changes only the mover's total: what the others'
    give is found once a state (:func:`_fixed`), each ending's row in a few operations
    (:func:`_with_mover`; the whole row each ending took 2.5 to 6 times as long, measured)."""
    big_n = t.shape[1]
    x = t[0].copy()
    first = t[0].copy()
    for s in range(t.shape[0]):
        for j in range(big_n - 1):
            x[j] = t[s, j + 1]
        a_base, a_lead, a_mask, a_movers = _fixed(x, enc_a)
        b_base, b_lead, b_mask, b_movers = _fixed(x, enc_b)
        top_o = -1  # the last final turn: the others' best, its holders (seat 0 the mover)
        held = 0
        first_o = 0
        for j in range(1, big_n):
            if x[j - 1] > top_o:
                top_o, held, first_o = x[j - 1], 1 << j, j
            elif x[j - 1] == top_o:
                held += 1 << j
        for i in range(points.shape[1]):
            mine = t[s, 0] + k_min + i
            mine = mine if mine > 0 else 0
            if mode == NORMAL_MODE and mine >= n:
                row = _with_mover(mine, enc_b, big_n, b_base, b_lead, b_mask, b_movers)
            elif mode == SUDDEN_MODE and mine >= n:
                row = magic
            elif mode == LAST_MODE and (mine >= n or top_o >= n):
                if mine > top_o:
                    row = terminal + 1
                elif trigger:
                    row = terminal + (1 << first_o)
                else:
                    row = terminal + held + (1 if mine == top_o else 0)
            else:
                row = _with_mover(mine, enc_a, big_n, a_base, a_lead, a_mask, a_movers)
            points[s, i] = row
        mine = t[s, 0]
        x[big_n - 1] = mine
        for d in range(n_ded):
            for j in range(big_n - 1):
                v = t[s, j + 1] - d
                x[j] = v if v > 0 else 0
            island[s, d] = _row(x, mine, mode, n, trigger, enc_a, enc_b, terminal, magic, first)
