"""The advisor: every legal move from a position, ranked by its value (RULES.md is the spec).

:func:`advise` answers "what should I reroll?" for the dice showing. It is a pure function of
its inputs and of the solved turn (it prints nothing); the command line (`solver/cli/`) prints
its answer, and what a player types for a move is read by :mod:`solver.advice.choices`.

- **Objectives.** ``need=None``: the expected points of the turn, read from the committed
  policy tables (:func:`solver.tables.turn.turn_solution`). ``need=N``: the probability that the
  turn ends with at least N points, :class:`solver.engine.AtLeast` solved on demand.
- **Options.** Stopping (when :func:`solver.rules.moves.can_stop`) and every distinct legal reroll
  of :func:`solver.rules.moves.legal_rerolls` (the single source of legality): one per kept
  multiset, and with the Sorceress unused, one per kept multiset with her skull rolled too.
  Their values are the solution's: a reroll keeping ``K`` with ``s`` skull dice on the table
  is ``keep_value`` of the partial position ``(s, K)`` in the position's world; a Sorceress
  reroll is ``keep_value`` of ``(s - 1, K)`` in the *used* world (RULES.md, Sorceress). A stop
  is the objective's utility of :func:`solver.rules.scoring.stop_score`.
- **Ranking.** Best value first; options whose values differ by at most the engine's tie
  tolerance (:data:`solver.engine.TIE_TOL`) are ties, in the engine's tie order
  (:func:`tie_key`: a stop first, then a reroll without the Sorceress, then the keep with the
  most dice, then the largest partial index), so the first option is the policy's move of the
  solution (the table's, for expected points). Each option lists the ranks of its ties; the
  options within :data:`BEST_TOLERANCE` of the best (the solver's certified bound: they
  cannot be told apart) are marked best.
- **Bust risk.** ``p_bust`` is the probability that this very roll ends the turn in a bust:
  the rolled dice show a number of skulls that is Binomial(rolled, 1/6), and each count is
  classified by :func:`solver.rules.scoring.classify_roll` (so a rescue, exactly 3 skulls with the
  Sorceress still unused, is not a bust; after her reroll the third skull is).
- **Positions** (:class:`~solver.rules.scoring.Outcome`): *alive* (stop or reroll), *rescue*
  (exactly 3 skulls, Sorceress unused: only her moves), *bust* (nothing to decide: the bust
  payoff; with the chest card the dice on the chest, i.e. the dice not rolled in the fatal
  roll, still score) and *island* (a first roll with 4+ skulls, not a battle card: nothing
  for the player; the expected deduction per opponent and the distribution of the final
  skull count). Whether the dice are the turn's first roll is an input (``first``): 4 or more
  skulls after a reroll are a bust, on a first roll Skull Island (RULES.md, A turn, step 3);
  without it the answer notes when the dice would be Skull Island on a first roll.

Letters are always in the order k m p s c d; ``keep`` lists the non-skull dice that stay (the
skull dice are locked and appear in neither ``keep`` nor ``reroll``, except the Sorceress's
skull, which is in ``reroll``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import TYPE_CHECKING, Any

from ..rules.aims import NEED, POINTS, WIN, Aim
from ..rules.dice import EMPTY, Dice, DiceNotationError
from ..rules.moves import Reroll, can_stop, legal_rerolls
from ..rules.notes import Note
from ..rules.rulebook import NUM_DICE, Card, Rules
from ..rules.scoring import (
    Outcome,
    bust_score,
    classify_roll,
    island_distribution,
    skulls_of,
    stop_score,
)
from ..rules.verdict import IslandNote, check_chest
from .goals import (
    AdviceError,
    GoalSolution,
    objective_for,
)
from .ranking import ranked_runs

if TYPE_CHECKING:
    from ..engine import Objective, TurnSolution
    from ..engine.exact import ExactSolution
    from ..rules.dice import Letters

BEST_TOLERANCE = 1e-9
"""Options within this of the best value are all marked best (the solver's certified bound
is of the same order: they cannot be told apart)."""



@dataclass(frozen=True)
class Option:
    """One move from the position, valued under the objective."""

    action: str
    """``stop`` or ``reroll``."""
    keep: Dice
    """Non-skull dice that stay on the table (all of them for a stop)."""
    reroll: Dice
    """Dice rolled; a skull (``k``) when the Sorceress rerolls one. Empty for a stop."""
    sorceress: bool
    """The reroll uses the Sorceress (one skull die is rolled with the others)."""
    value: float
    """Expected points, or the probability of ending with at least `need` points."""
    p_bust: float
    """Probability that this very roll busts (0 for a stop)."""
    regret: float
    """Best value minus this value (>= 0)."""
    best: bool
    """Within :data:`BEST_TOLERANCE` of the best value."""
    points: int | None = None
    """A stop: the points it scores."""
    ties: tuple[int, ...] = ()
    """The ranks (1-based) of the other options of the same value: its run of ties, the values
    within the engine's tie tolerance (:data:`TIE_TOL`) of the run's best, which the engine's
    tie order ranks among themselves."""
    players: tuple[float, ...] = ()
    """Playing to win: every player's probability of winning after this move, in seat order
    from the player (the first is `value`); empty for points and need."""

    @property
    def key(self) -> tuple[str, str, str, bool]:
        """The identity of the move across objectives: action, keep, reroll, Sorceress."""
        return (self.action, str(self.keep), str(self.reroll), self.sorceress)

    @property
    def move(self) -> Reroll | None:
        """The reroll (None for a stop)."""
        return None if self.action == "stop" else Reroll(self.keep, self.sorceress)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (keys of `sabords advise --json`)."""
        return {
            "action": self.action,
            "keep": str(self.keep),
            "reroll": str(self.reroll),
            "sorceress": self.sorceress,
            "value": self.value,
            "p_bust": self.p_bust,
            "regret": self.regret,
            "best": self.best,
            "ties": list(self.ties),
            **({"players": list(self.players)} if self.players else {}),
        }


@dataclass(frozen=True)
class Advice:
    """The ranked options of a position and the plain-sentence recommendation."""

    card: Card
    dice: Dice
    rules: Rules
    need: int | None
    """None: expected points; N: the probability of ending the turn with at least N."""
    kind: Outcome
    """ALIVE (stop or reroll), RESCUE (Sorceress moves only), BUST or ISLAND (nothing to
    decide)."""
    first: bool
    """The dice are the turn's first roll."""
    sorceress_used: bool
    chest: Dice | None
    """Chest card: the dice on the chest as given (they matter on a bust only)."""
    value: float
    """The value of the position: the best option's, or the bust / island payoff."""
    options: tuple[Option, ...]
    """Best first; empty for a bust or Skull Island."""
    points: int | None = None
    """Bust: its payoff in points. Alive: the points of stopping now."""
    island: IslandNote | None = None
    island_if_first: bool = False
    """Not a first roll, but these dice would go to Skull Island on a first roll."""
    bound: float = 0.0
    """Certified bound on every value (the solver's)."""
    objective_name: Aim | None = None
    """Set for an objective given to :func:`advise` (:data:`WIN`); else points or need."""
    players: tuple[float, ...] = ()
    """Playing to win: every player's probability of winning at this position, in seat order
    from the player (the first is `value`): the best option's, or after the bust or Skull
    Island; empty for points and need."""

    @property
    def objective(self) -> Aim:
        if self.objective_name is not None:
            return self.objective_name
        return POINTS if self.need is None else NEED

    @property
    def rules_hash(self) -> str:
        return self.rules.hash

    @property
    def recommended(self) -> Option | None:
        return self.options[0] if self.options else None

    @property
    def notes(self) -> tuple[Note, ...]:
        """What else the answer depends on (:mod:`solver.rules.notes`): the chest, the first-roll
        reading of 4+ skulls, a rescue."""
        out: list[Note] = []
        best = self.recommended
        if self.kind is Outcome.RESCUE:
            out.append(Note("rescue"))
        if self.card.chest and best is not None and best.action == "reroll" and best.keep.total:
            out.append(Note("chest_keep", {"keep": best.keep}))
        if self.chest is not None and self.kind is not Outcome.BUST:
            out.append(Note("chest_ignored"))
        if (self.kind is Outcome.BUST and self.card.chest and self.chest is None
                and not self.first):
            out.append(Note("chest_unknown"))
        if self.island_if_first:
            out.append(Note("island_if_first"))
        return tuple(out)

    def as_dict(self, sentence: Callable[[Advice], str],
                letters: Letters | None = None) -> dict[str, Any]:
        """The JSON form of `sabords advise --json` (the documented keys first, then extras),
        with the front end's `sentence` of the answer as its ``recommendation``; the notes'
        text in `letters` (the player's notation, as the sentence; their dice data in the
        default letters, as every dice field)."""
        from ..rules.notes import note_text
        return {
            "card": self.card.id,
            "dice": str(self.dice),
            "objective": self.objective,
            "need": self.need,
            "rules_hash": self.rules_hash,
            "value": self.value,
            "options": [o.as_dict() for o in self.options],
            "kind": self.kind.value,
            "skulls": skulls_of(self.card, self.dice),
            "first": self.first,
            "sorceress_used": self.sorceress_used,
            "chest": None if self.chest is None else str(self.chest),
            "points": self.points,
            "recommendation": sentence(self),
            "notes": [{**note.as_dict(), **({} if letters is None else
                                             {"text": note_text(note, letters)})}
                      for note in self.notes],
            "island": None if self.island is None else self.island.as_dict(),
            "bound": self.bound,
            **({"players": list(self.players)} if self.players else {}),
        }


@dataclass(frozen=True)
class ExactValues:
    """The exact values behind an :class:`Advice`: its value and each option's, in the
    order of ``advice.options``."""

    value: Fraction
    options: tuple[Fraction, ...]

    @property
    def regrets(self) -> tuple[Fraction, ...]:
        """Best value minus each option's value, exactly."""
        return tuple(self.value - v for v in self.options)


def exact_values(advice: Advice, exact: ExactSolution) -> ExactValues:
    """The exact value of the position and of every option of `advice` (points or `need`):
    a reroll is the exact ``keep_value`` of the same partial position as its float value
    (:func:`_valued`), a stop the objective's utility of its points, a bust its payoff's and
    Skull Island the exact first-roll value."""
    from ..engine.codes import UNUSED, USED, full_index

    objective = objective_for(advice.need)
    if advice.objective_name is not None or exact.objective != objective.key():
        raise ValueError(f"the exact solution is for {exact.card} {exact.objective}, not "
                         f"{advice.card.id} {objective.key()}")
    if exact.card != advice.card.id:
        raise ValueError(f"the exact solution is for {exact.card}, not {advice.card.id}")
    if advice.kind is Outcome.ISLAND:
        value = exact.first_value[full_index(advice.dice.counts), 0]
        return ExactValues(value=value, options=())
    if advice.kind is Outcome.BUST:
        assert advice.points is not None
        return ExactValues(value=Fraction(_utility(objective, advice.points)), options=())
    unused = advice.card.sorceress and not advice.sorceress_used
    here = exact.worlds[UNUSED if unused else USED].keep_value
    used = exact.worlds[USED].keep_value
    values = []
    for option in advice.options:
        move = option.move
        if move is None:
            stop = stop_score(advice.card, advice.dice, advice.rules)
            values.append(Fraction(_utility(objective, stop.points, magic=stop.magic)))
        else:
            values.append(_keep_value(move, advice.dice, here, used))
    return ExactValues(value=max(values), options=tuple(values))


# -- bust risk ---------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def bust_probability(card: Card, rules: Rules, skull_dice: int, rolled: int, *,
                     sorceress_unused: bool) -> Fraction:
    """Exact probability that rolling `rolled` dice busts, `skull_dice` skull dice staying.

    The rolled dice show Binomial(rolled, 1/6) new skulls; whether a count busts is
    :func:`~solver.rules.scoring.classify_roll`'s decision (after the roll, with the Sorceress
    still unused or not), asked of a roll with that many skull dice (it depends on the
    skulls only: the other dice are shown as monkeys).
    """
    if skull_dice + rolled > NUM_DICE or rolled < 0 or skull_dice < 0:
        raise ValueError(f"{skull_dice} skull dice and {rolled} rolled dice are not 8 dice")
    p = Fraction(0)
    for j in range(rolled + 1):
        after = Dice.of((skull_dice + j, NUM_DICE - skull_dice - j, 0, 0, 0, 0))
        outcome = classify_roll(card, after, rules, first=False,
                                sorceress_unused=sorceress_unused)
        if outcome is Outcome.BUST:
            p += comb(rolled, j) * Fraction(1, 6) ** j * Fraction(5, 6) ** (rolled - j)
    return p


# -- the advice --------------------------------------------------------------------------------


def _utility(objective: Objective, points: int, *, magic: bool = False) -> float:
    """The objective's value of a turn ending with `points` (pirate magic: `magic`)."""
    return objective.utility_of(points, magic=magic)


TieKey = tuple[bool, bool, int, int]
STOP_KEY: TieKey = (False, False, 0, 0)


def tie_key(dice: Dice, move: Reroll | None) -> TieKey:
    """The engine's order among moves of equal value (:mod:`solver.engine.solve`, Ties): a stop
    (`move` None) first, then a reroll without the Sorceress, then the keep with the most dice
    on the table (the skull dice that stay included), then the largest partial index of what
    stays (:meth:`solver.engine.Geometry.index`)."""
    if move is None:
        return STOP_KEY
    from ..engine.codes import partial_index

    kept = move.kept_after(dice)
    return _reroll_key(move, kept, partial_index(kept.counts, dice.total))


def _reroll_key(move: Reroll, kept: Dice, index: int) -> TieKey:
    return (True, move.sorceress, -kept.total, -index)


@dataclass(frozen=True)
class _Candidate:
    """A legal move from the position, valued, before the ranking."""

    move: Reroll | None
    """The reroll, None for the stop."""
    rolled: Dice
    value: float
    p_bust: float
    key: TieKey
    """Its place among ties (:func:`tie_key`)."""
    points: int | None = None


@dataclass(frozen=True)
class Position:
    """The dice in front of the player: the card drawn, the 8 dice showing and what the turn has
    done so far. `sorceress_used`: the Sorceress card's reroll is spent. `first`: the dice are
    the turn's first roll (4+ skulls are then Skull Island). `chest`: the chest card's dice on
    the chest (the dice not rolled in the last roll), which score on a bust."""

    card: Card
    dice: Dice
    rules: Rules
    sorceress_used: bool = False
    chest: Dice | None = None
    first: bool = False


def advise(position: Position, solved: GoalSolution) -> Advice:
    """Rank every legal option from `position` (see the module docstring) for one objective:
    `solved`, the card's turn solved for a :class:`~.goals.Goal` (:func:`.goals.solve_goal`:
    expected points, a need, or winning the game). Playing to win, each option carries every
    player's probability of winning after it (:attr:`Option.players`: with two players the
    other's is the rest; with more, from the other seats' evaluations of the mover's play)."""
    card, dice, rules = position.card, position.dice, position.rules
    sorceress_used, chest, first = position.sorceress_used, position.chest, position.first
    goal, objective, solution = solved.goal, solved.objective, solved.solution
    need = goal.need
    _check_position(card, dice, sorceress_used=sorceress_used, chest=chest, first=first)
    if solution.card != card.id or solution.objective != objective.key():
        raise ValueError(f"the solution given is for {solution.card} {solution.objective}, "
                         f"not {card.id} {objective.key()}")
    unused = card.sorceress and not sorceress_used
    kind = classify_roll(card, dice, rules, first=first, sorceress_unused=unused)
    island_if_first = (not first and not sorceress_used and (chest is None or not chest.total)
                       and classify_roll(card, dice, rules, first=True) is Outcome.ISLAND)
    common: dict[str, Any] = {
        "card": card, "dice": dice, "rules": rules, "need": need, "kind": kind,
        "first": first, "sorceress_used": sorceress_used, "chest": chest,
        "island_if_first": island_if_first,
        "objective_name": WIN if goal.name == WIN else None,
    }
    if kind is Outcome.BUST:
        points = bust_score(card, None if first else chest, rules)
        value = _utility(objective, points)
        return Advice(**common, value=value, options=(), points=points, players=(
            (value, *(_utility(o, points) for o, _ in solved.seats)) if solved.seats else ()))
    if kind is Outcome.ISLAND:
        return _island_advice(common, card, dice, solution, solved.seats)
    candidates = _candidates(card, dice, rules, solution, objective, unused=unused)
    options = _ranked(dice, candidates)
    if solved.seats:
        options = _with_seats(card, dice, rules, options, solved.seats, unused=unused)
    stop = candidates[0] if candidates and candidates[0].move is None else None
    return Advice(**common, value=options[0].value + options[0].regret, options=options,
                  points=None if stop is None else stop.points, bound=solution.bound,
                  players=options[0].players)


def _check_position(card: Card, dice: Dice, *, sorceress_used: bool, chest: Dice | None,
                    first: bool) -> None:
    """Raise the library's error unless the position can be."""
    if dice.total != NUM_DICE:
        raise DiceNotationError(f"{str(dice)!r} has {dice.total} dice, expected {NUM_DICE}",
                                subject="dice", kind="dice_count",
                                values={"dice": str(dice), "count": dice.total,
                                        "expected": NUM_DICE})
    if sorceress_used and not card.sorceress:
        raise AdviceError(
            f"only the sorceress card has a Sorceress to use, not {card.id!r}",
            subject="sorceress_used", kind="no_sorceress", values={"card": card.id},
        )
    if sorceress_used and first:
        raise AdviceError("on the first roll the Sorceress cannot have been used yet",
                          subject="sorceress_used", kind="sorceress_used_on_first_roll")
    check_chest(card, dice, chest, first=first)


def _island_advice(common: dict[str, Any], card: Card, dice: Dice, solution: TurnSolution,
                   seats: tuple[tuple[Objective, TurnSolution], ...]) -> Advice:
    """Skull Island: nothing to decide; its value and the distribution of the final skulls
    (and playing to win, every seat's chance after it: each seat's evaluation's value of
    this first roll)."""
    from ..engine.codes import full_index

    distribution = island_distribution(card, dice.skulls)
    island = IslandNote(card, dice.skulls, tuple(sorted(distribution.items())))
    at = full_index(dice.counts)
    value = float(solution.first_value[at, 0])
    players = (value, *(float(e.first_value[at, 0]) for _, e in seats)) if seats else ()
    return Advice(**common, value=value, options=(), points=0, island=island,
                  bound=solution.bound, players=players)


def _candidates(card: Card, dice: Dice, rules: Rules, solution: TurnSolution,
                objective: Objective, *, unused: bool) -> list[_Candidate]:
    """Every legal move valued: the stop (first, when allowed) and each legal reroll, its
    value the solution's keep value of what stays on the table and its bust risk."""
    from ..engine.codes import UNUSED, USED, partial_index

    here = solution.worlds[UNUSED if unused else USED].keep_value
    used = solution.worlds[USED].keep_value
    out: list[_Candidate] = []
    if can_stop(card, dice, rules, sorceress_unused=unused):
        stop = stop_score(card, dice, rules)
        out.append(_Candidate(None, EMPTY, _utility(objective, stop.points, magic=stop.magic),
                              0.0, STOP_KEY, stop.points))
    risks: dict[tuple[bool, int], float] = {}  # a few distinct (sorceress, rolled) pairs
    for move in legal_rerolls(card, dice, rules, sorceress_unused=unused):
        rolled, kept = move.rolled(dice), move.kept_after(dice)
        risk = (move.sorceress, rolled.total)
        if risk not in risks:  # the skull dice that stay, the dice rolled
            risks[risk] = float(bust_probability(
                card, rules, kept.skulls, rolled.total,
                sorceress_unused=unused and not move.sorceress))
        index = partial_index(kept.counts)
        value = float((used if move.sorceress else here)[index, 0])
        out.append(_Candidate(move, rolled, value, risks[risk], _reroll_key(move, kept, index)))
    return out


def _ranked(dice: Dice, candidates: list[_Candidate]) -> tuple[Option, ...]:
    """The options best first, ties (within :data:`TIE_TOL`) in the engine's tie order
    (:func:`tie_key`), each with its regret, whether it is best and the ranks of its ties."""
    from ..engine.codes import TIE_TOL

    runs = ranked_runs(candidates, value=lambda c: c.value, key=lambda c: c.key, tol=TIE_TOL)
    top = runs[0][0].value
    options: list[Option] = []
    for run in runs:
        ranks = tuple(range(len(options) + 1, len(options) + len(run) + 1))
        for rank, c in zip(ranks, run, strict=True):
            move = c.move
            options.append(Option(
                "stop" if move is None else "reroll",
                dice.without_skulls() if move is None else move.keep, c.rolled,
                move is not None and move.sorceress, c.value, c.p_bust, top - c.value,
                top - c.value <= BEST_TOLERANCE, c.points,
                () if len(ranks) == 1 else tuple(r for r in ranks if r != rank)))
    return tuple(options)


def _with_seats(card: Card, dice: Dice, rules: Rules, options: tuple[Option, ...],
                seats: tuple[tuple[Objective, TurnSolution], ...], *,
                unused: bool) -> tuple[Option, ...]:
    """The options with every player's probability of winning after each: the mover's value,
    then each other seat's under the mover's play (its evaluation's keep values)."""
    from ..engine.codes import UNUSED, USED

    out = []
    for option in options:
        chances = [option.value]
        for objective, evaluated in seats:
            move = option.move
            if move is None:
                stop = stop_score(card, dice, rules)
                chances.append(_utility(objective, stop.points, magic=stop.magic))
            else:
                here = evaluated.worlds[UNUSED if unused else USED].keep_value
                chances.append(float(_keep_value(move, dice, here,
                                                 evaluated.worlds[USED].keep_value)))
        out.append(replace(option, players=tuple(chances)))
    return tuple(out)


def _keep_value(move: Reroll, dice: Dice, keep_value: Any, used_keep_value: Any) -> Any:
    """The solution's value of a reroll: the keep value of what stays on the table
    (:meth:`~solver.rules.moves.Reroll.kept_after`), in the used world's keep values for a Sorceress
    reroll (a float, or the exact solution's fraction)."""
    from ..engine.codes import partial_index

    table = used_keep_value if move.sorceress else keep_value
    return table[partial_index(move.kept_after(dice).counts, dice.total), 0]


__all__ = [
    "BEST_TOLERANCE",
    "Advice",
    "ExactValues",
    "Option",
    "advise",
    "Position",
    "bust_probability",
    "exact_values",
    "tie_key",
]
