"""`sabords advise`: every legal option from the dice showing, best first
(:mod:`solver.advice.advisor`), for expected points, a target (`--need`) or the game
(`--me/--opp`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

from ..advice.inputs import CHEST, DICE, FINAL, FIRST, ME, NEED, OPP, SORCERESS_USED, TOP
from ..rules.aims import WIN
from .app import (
    ExactOption,
    GameTablesOption,
    JsonOption,
    NotationOption,
    TablesOption,
    VariantOption,
    argument,
    command,
    describe_rules,
    echo,
    notation_from,
    option,
    print_json,
    rules_from,
    solutions_from,
)
from .render import (
    SHOWN_OPTIONS,
    is_probability,
    island_lines,
    method_lines,
    note_line,
    option_key,
    option_rows,
    turn_cache_warning,
    value_text,
)
from .score import CardArgument

if TYPE_CHECKING:
    from ..advice.advisor import Advice, ExactValues
    from ..advice.answers import AdviceAnswer
    from ..advice.goals import Goal
    from ..rules.notation import Notation

NeedOption = Annotated[int | None, option(NEED)]
MeOption = Annotated[int | None, option(ME)]
OppOption = Annotated[list[int] | None, option(OPP)]
FinalOption = Annotated[bool, option(FINAL)]
DiceArgument = Annotated[list[str], argument(DICE)]


@command("advise")
def advise(
    card: CardArgument,
    dice: DiceArgument,
    sorceress_used: Annotated[bool, option(SORCERESS_USED)] = False,
    need: NeedOption = None,
    first: Annotated[bool, option(FIRST)] = False,
    chest: Annotated[str | None, option(CHEST)] = None,
    variant: VariantOption = None,
    top: Annotated[int | None, option(TOP, more=(
        f" Default: all with --json, the first {SHOWN_OPTIONS} in the text view."))] = None,
    tables: TablesOption = None,
    me: MeOption = None,
    opp: OppOption = None,
    final: FinalOption = False,
    game_tables: GameTablesOption = None,
    notation: NotationOption = "default",
    exact: ExactOption = False,
    as_json: JsonOption = False,
) -> None:
    """What to do with the dice showing: every legal option, best first.

    Lists stopping and every distinct legal reroll (by the dice kept; with the Sorceress
    unused, also the rerolls that take one skull die), each with its value (the expected
    points of the turn, or with --need N the probability of ending it with at least N, or
    with --me/--opp the probability of winning the game), the probability that this very roll
    busts and the regret against the best. Options within 1e-9 of the best are all marked
    best. The first line is the recommendation.

    Special positions: a bust (3+ skulls: nothing to decide), a rescue (exactly 3 skulls
    with the Sorceress unused: her moves only), Skull Island (--first with 4+ skulls: the
    expected loss of each opponent). With the chest card, the kept dice go on the chest.

    \b
    Examples:
      sabords advise chest kkmpsssc
      sabords advise none ccccmmpk --need 1000
      sabords advise none ccccmmpk --need 1000 --exact
      sabords advise sorceress kkkmmpsc
      sabords advise sorceress kkmmppsc --sorceress-used --top 5
      sabords advise captain kkkkmmpc --first
      sabords advise chest kkkcccdm --chest cccd
      sabords advise pirate 3 monkey 3 sword 2 coin --json
      sabords advise none mmmpppsc --me 2000 --opp 5500      # play to win the game
      sabords advise captain ccmmmspk --me 4000 --opp 6200 --final
      sabords advise t mmspééeo --notation braille
      sabords advise sorceress kkmmppsc --variant sorceress_alone=off
      sabords advise captain kkmmppsc --tables /tmp/t      # from `solve --all --out /tmp/t`
      sabords advise none mmmpppsc --me 0 --opp 0 --game-tables /tmp/g   # `solve-game`
    """
    from ..advice.answers import advice_answer
    from ..words.sentences import advice_sentence

    rules = rules_from(variant)
    notes = notation_from(notation)
    the_card = notes.parse_card(card)
    the_dice = notes.parse_dice(" ".join(dice))
    the_chest = None if chest is None else notes.parse_dice(chest, n=None)
    goal = goal_of(need, me, opp, final)
    goal.check(rules)  # before the warning of a cache that cannot be written
    turn_cache_warning(rules, [the_card.id], tables)
    answer = advice_answer(the_card, the_dice, rules, goal, solutions_from(tables, game_tables),
                           sorceress_used=sorceress_used, chest=the_chest, first=first,
                           exact=exact)
    if as_json:
        print_json(answer.as_dict(advice_sentence, top))
        return
    shown = SHOWN_OPTIONS if top is None else (top or len(answer.advice.options))
    lines = win_lines(answer, shown, notes) if goal.name == WIN else \
        advice_lines(answer.advice, shown, notes)
    for line in lines:
        echo(line)
    if answer.exact is not None:
        for line in exact_lines(answer.exact, shown):
            echo(line)


def exact_lines(values: ExactValues, shown: int) -> Iterator[str]:
    """The exact value of the position and of each option shown (`advise --exact`)."""
    from ..rational import exact_text, fraction_text

    yield ""
    yield "exact values (proved optimal: no move does better, in exact arithmetic)"
    yield f"{'value':>5}  {exact_text(values.value)}"
    for rank, value in enumerate(values.options[:shown], 1):
        yield f"{rank:>5}  {fraction_text(value)}"


def advice_lines(advice: Advice, shown: int, notation: Notation) -> Iterator[str]:
    """The text answer of `sabords advise`: the sentence, notes, the table of options."""
    from ..rules.scoring import Outcome
    from ..words.sentences import advice_sentence

    a = advice
    yield advice_sentence(a, notation.letters)
    for note in a.notes:
        yield f"  {note_line(note, notation)}"
    yield ""
    yield f"card      {notation.card(a.card)}"
    yield f"dice      {notation.dice(a.dice)}" + ("  (first roll)" if a.first else "") + (
        "  (Sorceress used)" if a.sorceress_used else "")
    if a.chest is not None:
        yield f"chest     {notation.dice(a.chest) or '-'}"
    yield f"position  {a.kind.value}" + (
        f": {len(a.options)} legal options" if a.options else ": nothing to decide")
    probability = is_probability(a)
    yield f"value     {value_text(a.value, probability)}" + (
        "" if a.need is None else f" (P(at least {a.need} points))")
    if a.kind is Outcome.ISLAND and a.island is not None:
        lines = island_lines(a.island, " " * 10, expected="expected")
        yield f"island    {next(lines)}"
        yield from lines
    if a.options:
        yield ""
        yield from option_rows(a, shown, notation)
    yield f"rules     {describe_rules(a.rules)}"


def goal_of(need: int | None, me: int | None, opp: list[int] | None, final: bool) -> Goal:
    """The goal of `--need` / `--me --opp [--opp...] [--final]`."""
    from ..advice.goals import Goal

    opps = opp or []
    return Goal(need=need, me=me, opp=opps[0] if opps else None, final=final,
                others=tuple(opps[1:]))


def win_lines(answer: AdviceAnswer, shown: int, notation: Notation) -> Iterator[str]:
    """`advise --me/--opp`: every option with its probability of winning the game and its
    expected points."""
    from ..words.sentences import advice_sentence

    advice, points, goal = answer.advice, answer.points, answer.solved.goal
    assert points is not None
    yield advice_sentence(advice, notation.letters)
    for note in advice.notes:
        yield f"  {note_line(note, notation)}"
    if (points.options and advice.options
            and option_key(points.options[0]) != option_key(advice.options[0])):
        yield f"  For expected points the best move would differ: " \
              f"{advice_sentence(points, notation.letters)}"
    yield ""
    if goal.others:
        where = "final round" if goal.final else "normal play"
        others = ", ".join(str(t) for t in goal.opponents)
        yield (f"score     you {goal.me}, then {others} in seat order, target "
               f"{advice.rules.target} ({where})")
    else:
        where = "final turn, the opponent reached the target" if goal.final else "normal play"
        yield (f"score     you {goal.me}, opponent {goal.opp}, target {advice.rules.target} "
               f"({where})")
    yield f"card      {notation.card(advice.card)}"
    yield f"dice      {notation.dice(advice.dice)}" + ("  (first roll)" if advice.first else "")
    solved = answer.solved
    estimate = "" if solved.game_exact else " (the method's estimate)"
    yield f"value     {100 * advice.value:.2f} % chance to win the game{estimate}"
    yield from method_lines(solved.game_exact, solved.game_method, solved.game_loss)
    if goal.others and advice.options and solved.seats:
        chances = ", ".join(f"{100 * p:.2f} %" for p in advice.options[0].players)
        yield f"players   {chances} (you first, then in seat order, after the best move)"
    if advice.options:
        yield ""
        yield from option_rows(advice, shown, notation, answer.expected)
    yield f"rules     {describe_rules(advice.rules)}"


__all__ = ["DiceArgument", "FinalOption", "MeOption", "NeedOption", "OppOption", "advice_lines",
           "advise", "win_lines"]
