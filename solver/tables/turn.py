"""Turn tables on disk: each card's solved turn, ``turn-<card>.msgpack``.

Each file is one envelope of :mod:`solver.tables.fileformat` (format version, checksum, packed
payload with sorted keys and raw little-endian arrays: the same rules give the same bytes); where a
table lives is :mod:`solver.tables.paths`; the game tables are :mod:`solver.tables.game`. A turn
table holds the card's turn solved for expected points (:func:`build_table`): header ``card``,
``rules`` (the turn rules: the game-level variants ``target`` and ``ties`` do not change a
turn, :meth:`solver.rules.Rules.turn_rules`), ``rules_hash``, ``objective``, ``n_dice``,
``solver_version``; ``solve`` (sweeps, residual, bound); ``stats`` (:mod:`solver.engine.stats`);
arrays ``first_value``, ``turn_value``, ``stop_value`` and per world (``used``, and ``unused``
for the Sorceress) ``value``, ``keep_value``, ``policy``, ``sorceress``
(:class:`solver.engine.TurnSolution`); and ``exact`` (:mod:`solver.engine.exact`): the same
values as fractions (``first_value``, ``turn_value``, per world ``value`` and ``keep_value``,
:func:`pack_exact`), the exact statistics as ``"p/q"`` strings, and the proof's record. The
float arrays are the exact values rounded to the nearest double, so they too are the same
bytes on every machine.

Loading checks the format version, the checksum, the kind, the card and the rules
(:func:`solver.tables.fileformat.open_table`), that every array has the shape and type the table's
geometry calls for, and that the exact turn value and statistics round to the stored floats;
anything else is refused with a :class:`StaleTableError` (the file, the reason, the table and
its rules: the front ends word the fix).

Where tables come from: an explicit directory is used as it is; otherwise the default rules
read the committed tables (the repository's ``tables/``, made by ``make tables``, installed
with the package: :func:`solver.tables.paths.committed_dir`), and any other variant is solved on
demand and cached under the user's cache directory (:func:`solver.caches.cache_root`), keyed
by the kind, the solver and format versions and the rules hash
(:func:`solver.tables.paths.default_dir`).

This module imports no numpy, joblib or scipy on the loading path (the advisor's cold start):
a table read with ``light=True`` (:func:`turn_table`) holds its arrays as
:class:`~solver.tables.fileformat.Column` views, indexed as numpy's (``[i, 0]``), which is all a
points answer reads; without it, numpy arrays of the same bytes. Both are checked by the same
code (:func:`unpack_table`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..engine.codes import NO_MOVE, USED, WORLD_NAMES, card_worlds, n_full, n_partial
from ..engine.objectives import ExpectedPoints
from ..engine.results import (
    STAT_NAMES,
    ExactTurnStats,
    ProofRecord,
    TurnSolution,
    TurnStats,
    WorldSolution,
)
from ..errors import StaleTableError
from ..rules.rulebook import NUM_DICE, Card, Rules
from .fileformat import (
    FORMAT_VERSION,
    Column,
    Refusal,
    check_exact,
    checked_column,
    exact_ints,
    fractions_of,
    keep_in_cache,
    open_table,
    pack_array,
    pack_envelope,
    pack_exact,
    pack_exact_ints,
    read_file,
    refusal,
    write_atomically,
)
from .paths import cached, default_dir

if TYPE_CHECKING:
    from ..engine.exact import ExactArray, ExactSolution
    from ..engine.model import TurnModel
    from ..engine.positions import FloatArray

OBJECTIVE = ExpectedPoints()
"""Turn tables hold the expected-points solution (other objectives are solved when needed)."""


# --------------------------------------------------------------------------------------------
# Turn tables
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnTable:
    """A card's solved turn as stored in a table: the solution, stop values, statistics, and
    the exact values (decoded on first use: :meth:`exact`)."""

    solution: TurnSolution
    """The exact values rounded to the nearest double, the proved policy; its bound is the
    rounding's."""
    stop_value: FloatArray | Column
    """(n_full, 1): the points of stopping at each position; NaN where stopping is not
    allowed."""
    stats: TurnStats
    """The exact statistics rounded to the nearest double."""
    solver_version: str
    """The solver version that made the table."""
    exact_data: dict[str, Any]
    """The exact part as stored (``exact`` of the payload, module doc), checked at load."""
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def card(self) -> str:
        return self.solution.card

    @property
    def rules(self) -> Rules:
        """The turn rules the table was made for (game-level variants at their defaults)."""
        return self.solution.rules

    def exact(self) -> ExactSolution:
        """The exact solution: every value and keep value as a fraction (one column)."""
        if "exact" not in self.cache:
            self.cache["exact"] = _decode_exact(self)
        return self.cache["exact"]  # type: ignore[no-any-return]

    def exact_stats(self) -> ExactTurnStats:
        """The exact statistics of the turn (expected points, P(bust), P(Skull Island) and the
        island deduction)."""
        stats = self.exact_data["stats"]
        return ExactTurnStats(**{name: Fraction(stats[name]) for name in STAT_NAMES})

    @property
    def proof(self) -> ProofRecord:
        """What the exact check found in the float policy it started from."""
        return ProofRecord(**{k: int(v) for k, v in self.exact_data["proof"].items()})


def build_table(card: Card, rules: Rules) -> TurnTable:
    """Solve one card's turn for expected points: floats (:func:`solver.engine.solve_cards`,
    in the card's batch), then exactly from their policy, proved optimal
    (:func:`solver.engine.exact.solve_exact`, the statistics' columns evaluated under it);
    the floats stored are the exact values rounded."""
    from ..engine.solve import solve_cards

    turn = rules.turn_rules()
    return _exact_table_of(card, turn, solve_cards([card], turn)[card.id])


def _exact_table(model: TurnModel, floats: TurnSolution) -> TurnTable:
    """The table of a card from its float solution: the exact values from its policy."""
    import numpy as np

    from ..engine.exact import exact_payoff, rounded_solution, solve_exact
    from ..engine.objectives import payoff_for
    from ..engine.stats import exact_ending_payoff, exact_stats_of, rounded_stats

    exact = solve_exact(model, exact_payoff(model, OBJECTIVE), floats.policy(),
                        OBJECTIVE.key(), evaluate=exact_ending_payoff(model))
    stats = exact_stats_of(exact)
    return TurnTable(
        solution=rounded_solution(exact, floats),
        stop_value=np.where(model.can_stop[USED][:, None], payoff_for(model, OBJECTIVE).stop,
                            np.nan),
        stats=rounded_stats(stats),
        solver_version=__version__,
        exact_data=_encode_exact(exact, stats, floats.bound),
    )


def _exact_table_of(card: Card, rules: Rules, floats: TurnSolution) -> TurnTable:
    from ..engine.model import turn_model

    return _exact_table(turn_model(card, rules), floats)


def _encode_exact(exact: ExactSolution, stats: ExactTurnStats, float_bound: float
                  ) -> dict[str, Any]:
    """The ``exact`` part of a turn table (column 0 of the arrays)."""
    import numpy as np

    def column(values: ExactArray) -> dict[str, Any]:
        head = values.head(1)
        return pack_exact_ints(head.flat(), head.den, head.shape)

    return {
        "arrays": {
            "first_value": column(exact.first_values),
            "turn_value": pack_exact(np.array(exact.turn_value[:1], dtype=object)),
            "worlds": {WORLD_NAMES[w]: {"keep_value": column(ew.keep_values),
                                        "value": column(ew.values)}
                       for w, ew in exact.worlds.items()},
        },
        "float_bound": float_bound,
        "proof": exact.proof.as_dict(),
        "stats": stats.as_dict(),
    }


def _numpy(values: Any) -> Any:
    """A numpy array of a table's array (a :class:`Column` of a light table, or numpy's)."""
    return values.numpy() if isinstance(values, Column) else values


def _decode_exact(table: TurnTable) -> ExactSolution:
    import numpy as np

    from ..engine.exact import ExactArray, ExactSolution, ExactWorld

    def exact(entry: dict[str, Any], none: Any = None) -> ExactArray:
        nums, den = exact_ints(entry)
        shape = tuple(int(n) for n in entry["shape"])
        return ExactArray(np.array(nums, dtype=object).reshape(shape), den, none)

    data = table.exact_data["arrays"]
    sol = table.solution
    worlds = {}
    for w, ws in sol.worlds.items():
        entry = data["worlds"][WORLD_NAMES[w]]
        worlds[w] = ExactWorld(values=exact(entry["value"], np.isnan(_numpy(ws.value))),
                               keep_values=exact(entry["keep_value"]),
                               policy=_numpy(ws.policy), sorceress=_numpy(ws.sorceress))
    return ExactSolution(card=sol.card, rules=sol.rules, objective=sol.objective,
                         worlds=worlds, first_values=exact(data["first_value"]),
                         turn_value=tuple(fractions_of(data["turn_value"])),
                         proof=table.proof, n_dice=sol.n_dice)


def build_tables(
    cards: Sequence[Card], rules: Rules, *, n_jobs: int = 1
) -> Iterator[TurnTable]:
    """Build the tables of `cards` in order: each card's float solve (the cards that share a
    batch together, :func:`solver.engine.solve_cards`), then its exact solve.

    With `n_jobs` > 1 the work is spread over that many worker processes (forked where that
    is safe: they inherit what this one has imported): every batch but the largest is solved
    whole (floats, then its exact solves) by a worker, while this process solves the largest
    batch's floats; then each of its cards' exact solves goes to a worker. Every card is
    solved by the same code in whichever process, so the tables are the same bit for bit
    whatever the number of workers.
    """
    from ..engine.solve import card_batches, solve_cards, worker_pool

    turn = rules.turn_rules()
    if n_jobs == 1 or len(cards) <= 1:
        floats = solve_cards(cards, turn)
        for card in cards:
            yield _exact_table_of(card, turn, floats[card.id])
        return
    groups = card_batches(cards, turn)
    largest = max(groups, key=len)
    # the exact solver imported once, here: workers forked from this process inherit it
    # instead of importing it each (FLINT is imported by a solve that needs it only)
    from ..engine import exact  # noqa: F401
    with worker_pool(n_jobs) as pool:
        done: dict[str, Any] = {}
        for group in groups:
            if group is not largest:
                batch = pool.submit(_batch_tables, group, turn)
                for k, card in enumerate(group):
                    done[card.id] = (batch, k)
        floats = solve_cards(largest, turn)  # meanwhile, here
        for card in largest:
            done[card.id] = (pool.submit(_exact_table_of, card, turn, floats[card.id]), None)
        for card in cards:
            future, k = done[card.id]
            yield future.result() if k is None else future.result()[k]


def _batch_tables(group: Sequence[Card], rules: Rules) -> list[TurnTable]:
    """The tables of one batch's cards: its float solve, then each card's exact solve."""
    from ..engine.solve import solve_cards

    floats = solve_cards(group, rules)
    return [_exact_table_of(card, rules, floats[card.id]) for card in group]


def pack_table(table: TurnTable) -> bytes:
    """The bytes of a table file (deterministic: the same table gives the same bytes)."""
    sol = table.solution
    turn = sol.rules.turn_rules()
    header = {
        "card": sol.card,
        "format": FORMAT_VERSION,
        "kind": "turn",
        "n_dice": sol.n_dice,
        "objective": list(sol.objective),
        "rules": turn.as_dict(),
        "rules_hash": turn.hash,
        "solver_version": table.solver_version,
    }
    worlds = {
        WORLD_NAMES[w]: {
            "keep_value": pack_array(_numpy(ws.keep_value)),
            "policy": pack_array(_numpy(ws.policy)),
            "sorceress": pack_array(_numpy(ws.sorceress)),
            "value": pack_array(_numpy(ws.value)),
        }
        for w, ws in sol.worlds.items()
    }
    payload = {
        "arrays": {
            "first_value": pack_array(_numpy(sol.first_value)),
            "stop_value": pack_array(_numpy(table.stop_value)),
            "turn_value": pack_array(_numpy(sol.turn_value)),
            "worlds": worlds,
        },
        "header": header,
        "exact": table.exact_data,
        "solve": {"bound": sol.bound, "residual": sol.residual, "sweeps": sol.sweeps},
        "stats": {**table.stats.as_dict(), "bound": table.stats.bound},
    }
    return pack_envelope(payload, FORMAT_VERSION)


def unpack_table(data: bytes, *, source: str, card: Card, rules: Rules,
                 light: bool = False) -> TurnTable:
    """Read table bytes, refusing them unless they are intact, made for `card` and `rules`,
    and every array has the shape and type of the geometry it claims (`source` names the
    file in the refusal). `light`: the arrays as :class:`Column` views, without numpy (a
    points answer's); else numpy arrays of the same bytes, checked the same way."""
    card_id = card.id
    turn = rules.turn_rules()
    payload, refuse = open_table(data, table="turn", source=source, rules=turn,
                                 version=FORMAT_VERSION, card=card_id)
    try:
        header = payload["header"]
        if header["card"] != card_id:
            raise refuse(f"made for card {header['card']!r}, not {card_id!r}")
        if header["n_dice"] != NUM_DICE:
            raise refuse(f"made for {header['n_dice']!r} dice, not {NUM_DICE}")
        return _table_of(payload, card, turn, refuse, light)
    except StaleTableError:
        raise
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        raise refuse("incomplete table (a field is missing or malformed)") from None


def _table_of(payload: dict[str, Any], card: Card, rules: Rules,
              refuse: Refusal, light: bool) -> TurnTable:
    header, arrays, solve = payload["header"], payload["arrays"], payload["solve"]
    worlds_of_card = card_worlds(card)
    n_b = 1
    full, partial = (n_full(NUM_DICE), n_b), (n_partial(NUM_DICE), n_b)

    def array(entry: dict[str, Any], name: str, shape: tuple[int, ...], dtype: str) -> Any:
        column = checked_column(entry, name, shape, dtype, refuse)
        return column if light else column.numpy()

    expected_worlds = {WORLD_NAMES[w] for w in worlds_of_card}
    if set(arrays["worlds"]) != expected_worlds:
        raise refuse(f"worlds {sorted(arrays['worlds'])}, expected {sorted(expected_worlds)}")
    worlds = {}
    for name, w in arrays["worlds"].items():
        world = WORLD_NAMES.index(name)
        policy = array(w["policy"], f"{name}.policy", full, "<i8")
        if policy.min() < NO_MOVE or policy.max() >= partial[0]:
            raise refuse(f"array '{name}.policy' holds codes out of range")
        worlds[world] = WorldSolution(
            value=array(w["value"], f"{name}.value", full, "<f8"),
            keep_value=array(w["keep_value"], f"{name}.keep_value", partial, "<f8"),
            policy=policy,
            sorceress=array(w["sorceress"], f"{name}.sorceress", full, "|b1"),
        )
    solution = TurnSolution(
        card=header["card"],
        rules=rules,
        objective=tuple(header["objective"]),
        worlds=dict(sorted(worlds.items())),
        first_value=array(arrays["first_value"], "first_value", full, "<f8"),
        turn_value=array(arrays["turn_value"], "turn_value", (n_b,), "<f8"),
        sweeps=int(solve["sweeps"]),
        residual=float(solve["residual"]),
        bound=float(solve["bound"]),
        n_dice=header["n_dice"],
    )
    stats = payload["stats"]
    table = TurnTable(
        solution=solution,
        stop_value=array(arrays["stop_value"], "stop_value", full, "<f8"),
        stats=TurnStats(
            ev=float(stats["ev"]),
            p_bust=float(stats["p_bust"]),
            p_island=float(stats["p_island"]),
            island_deduction=float(stats["island_deduction"]),
            bound=float(stats["bound"]),
        ),
        solver_version=header["solver_version"],
        exact_data=payload["exact"],
    )
    _check_exact_part(table, worlds_of_card, refuse)
    return table


def _check_exact_part(table: TurnTable, worlds: tuple[int, ...],
                      refuse: Refusal) -> None:
    """Refuse a malformed exact part, or one whose turn value and statistics do not round to
    the table's floats (the arrays are decoded on use only: the cold start)."""
    full, partial = n_full(NUM_DICE), n_partial(NUM_DICE)
    exact = table.exact_data
    arrays = exact["arrays"]
    check_exact(arrays["first_value"], "first_value", (full, 1), refuse)
    check_exact(arrays["turn_value"], "turn_value", (1,), refuse)
    names = {WORLD_NAMES[w] for w in worlds}
    if set(arrays["worlds"]) != names:
        raise refuse(f"exact worlds {sorted(arrays['worlds'])}, expected {sorted(names)}")
    for name in sorted(names):
        check_exact(arrays["worlds"][name]["value"], f"{name}.value", (full, 1), refuse)
        check_exact(arrays["worlds"][name]["keep_value"], f"{name}.keep_value",
                    (partial, 1), refuse)
    try:
        stats = table.exact_stats()
        _ = table.proof
        turn = fractions_of(arrays["turn_value"])[0]
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        raise refuse("its exact part is malformed") from None
    if float(turn) != float(table.solution.turn_value[0]) or stats.ev != turn:
        raise refuse("its exact turn value does not round to its float value")
    if any(float(getattr(stats, n)) != getattr(table.stats, n) for n in STAT_NAMES):
        raise refuse("its exact statistics do not round to its float statistics")


def table_path(directory: Path | str, card: Card) -> Path:
    """The file of `card`'s table in `directory`."""
    return _table_file(directory, card.id)


def _table_file(directory: Path | str, card_id: str) -> Path:
    return Path(directory) / f"turn-{card_id}.msgpack"


def write_table(table: TurnTable, directory: Path | str) -> Path:
    """Write `table` into `directory` (created if needed), atomically; return its path."""
    return write_atomically(_table_file(directory, table.card), pack_table(table))


def read_table(path: Path | str, card: Card, rules: Rules, *, light: bool = False
               ) -> TurnTable:
    """Load the table of `card` under `rules` from `path`, or raise :class:`StaleTableError`
    (`light`: :func:`unpack_table`)."""
    path = Path(path)
    data = read_file(path, refusal("turn", path, rules.turn_rules(), card.id))
    return unpack_table(data, source=str(path), card=card, rules=rules, light=light)


def turn_table(card: Card, rules: Rules, tables_dir: Path | str | None = None, *,
               light: bool = False) -> TurnTable:
    """The table of `card` under `rules` (see the module docstring for where it comes from).

    From `tables_dir` or the repository's tables, a missing or stale table raises
    :class:`StaleTableError`; a missing or stale cached table is solved again and cached.
    `light`: a table read holds :class:`Column` views (no numpy); one solved now, numpy's.
    """
    if tables_dir is not None:
        return read_table(table_path(tables_dir, card), card, rules, light=light)
    directory = default_dir(rules)
    return cached(directory,
                  lambda: read_table(table_path(directory, card), card, rules, light=light),
                   lambda: build_table(card, rules),
                   lambda t: keep_in_cache(lambda: write_table(t, directory),
                                           table_path(directory, card)))


def turn_solution(
    card: Card, rules: Rules, tables_dir: Path | str | None = None
) -> TurnSolution:
    """The optimal expected-points solution of `card`'s turn, from its table."""
    return turn_table(card, rules, tables_dir).solution


def exact_solution(
    card: Card, rules: Rules, tables_dir: Path | str | None = None
) -> ExactSolution:
    """The exact expected-points solution of `card`'s turn, proved optimal, from its table:
    every value and keep value as a fraction (:class:`solver.engine.exact.ExactSolution`)."""
    return turn_table(card, rules, tables_dir).exact()


def exact_stats(
    card: Card, rules: Rules, tables_dir: Path | str | None = None
) -> ExactTurnStats:
    """The exact expected points, P(bust), P(Skull Island) and island deduction of `card`'s
    turn under the proved optimal policy, from its table."""
    return turn_table(card, rules, tables_dir).exact_stats()
