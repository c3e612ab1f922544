"""`sabords advise`: every legal option from the dice showing, best first
(:mod:`solver.advisor`), for expected points, a target (`--need`) or the game (`--me/--opp`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .app import (
    ExactOption,
    GameTablesOption,
    JsonOption,
    NotationOption,
    TablesOption,
    VariantOption,
    command,
    describe_rules,
    echo,
    fail,
    notation_from,
    print_json,
    rules_from,
)
from .render import (
    SHOWN_OPTIONS,
    is_probability,
    island_lines,
    note_line,
    option_key,
    option_rows,
    turn_cache_warning,
    value_text,
)
from .score import CardArgument

if TYPE_CHECKING:
    from ..advisor import Advice, ExactValues, Goal, GoalSolution
    from ..answers import AdviceAnswer
    from ..engine.exact import ExactSolution
    from ..notation import Notation
    from ..rules import Rules

NeedOption = Annotated[
    int | None,
    typer.Option(
        "--need",
        metavar="N",
        help=(
            "Maximise the probability that the turn ends with at least N points (a final "
            "turn, or the points still missing) instead of the expected points. N is a "
            "non-negative multiple of 100."
        ),
    ),
]
MeOption = Annotated[
    int | None,
    typer.Option("--me", metavar="POINTS",
                 help="Your total (play to win the game: with --opp, objective 'win')."),
]
OppOption = Annotated[
    int | None, typer.Option("--opp", metavar="POINTS", help="The opponent's total.")
]
FinalOption = Annotated[
    bool,
    typer.Option("--final", help="Your last turn: the opponent has reached the target "
                 "(--opp at or above it); beat their total."),
]


@command("advise")
def advise(
    card: CardArgument,
    dice: Annotated[
        list[str],
        typer.Argument(metavar="DICE", help="The 8 dice showing: letters ('kkmppscd') or words.",
                       show_default=False),
    ],
    sorceress_used: Annotated[
        bool,
        typer.Option("--sorceress-used",
                     help="Sorceress card only: her reroll has been used this turn."),
    ] = False,
    need: NeedOption = None,
    first: Annotated[
        bool,
        typer.Option(
            "--first",
            help=(
                "DICE are the turn's first roll: 4+ skulls (not a battle card) are Skull "
                "Island. Without it 4+ skulls are a bust (the answer says when they would be "
                "Skull Island on a first roll)."
            ),
        ),
    ] = False,
    chest: Annotated[
        str | None,
        typer.Option(
            "--chest",
            metavar="DICE",
            help=(
                "Chest card, on a bust: the dice on the chest (the dice not rolled in the "
                "last roll), which still score."
            ),
        ),
    ] = None,
    variant: VariantOption = None,
    top: Annotated[
        int | None,
        typer.Option(
            "--top",
            metavar="K",
            min=0,
            help=(
                f"Show the K best options (0: all). Default: all with --json, the first "
                f"{SHOWN_OPTIONS} in the text view."
            ),
        ),
    ] = None,
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
    from ..advisor import Goal, solve_goal
    from ..answers import advice_answer

    rules = rules_from(variant)
    notes = notation_from(notation)
    the_card = notes.parse_card(card)
    the_dice = notes.parse_dice(" ".join(dice))
    the_chest = None if chest is None else notes.parse_dice(chest, n=None)
    goal = Goal(need=need, me=me, opp=opp, final=final)
    goal.check(rules)
    if exact and goal.name == "win":
        fail("--exact: exact values are for expected points and --need N; the chances of "
             "winning come from the game table's floats")
    position: dict[str, Any] = {"sorceress_used": sorceress_used, "chest": the_chest,
                                "first": first}
    game = None
    if goal.name == "win":
        from .render import game_tables as load_game

        game = load_game(rules, game_tables)
    turn_cache_warning(rules, [the_card.id], tables)
    solved = solve_goal(the_card, rules, goal, tables_dir=tables, game=game)
    points, exact_solution = None, None
    if goal.name == "win":
        def points() -> GoalSolution:
            return solve_goal(the_card, rules, Goal(), tables_dir=tables)
    if exact:
        def exact_solution() -> ExactSolution:
            from ..advisor import exact_solution_for

            return exact_solution_for(the_card, rules, need, tables_dir=tables,
                                      solution=solved.solution)
    answer = advice_answer(the_card, the_dice, rules, solved, points=points,
                           exact=exact_solution, **position)
    if as_json:
        print_json(answer.as_dict(top))
        return
    advice = answer.advice
    if goal.name == "win":
        _print_win(answer, goal, rules, top, notes)
        return
    shown = SHOWN_OPTIONS if top is None else (top or len(advice.options))
    for line in advice_lines(advice, shown, notes):
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
    from ..scoring import Outcome

    a = advice
    yield a.sentence(notation.letters)
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


def _print_win(answer: AdviceAnswer, goal: Goal, rules: Rules, top: int | None,
               notation: Notation) -> None:
    """`advise --me/--opp`: every option with its probability of winning the game and its
    expected points."""
    advice, points = answer.advice, answer.points
    assert points is not None
    expected = answer.expected
    echo(advice.sentence(notation.letters))
    for note in advice.notes:
        echo(f"  {note_line(note, notation)}")
    if (points.options and advice.options
            and option_key(points.options[0]) != option_key(advice.options[0])):
        echo(f"  For expected points the best move would differ: "
             f"{points.sentence(notation.letters)}")
    echo("")
    where = "final turn, the opponent reached the target" if goal.final else "normal play"
    echo(f"score     you {goal.me}, opponent {goal.opp}, target {rules.target} ({where})")
    echo(f"card      {notation.card(advice.card)}")
    echo(f"dice      {notation.dice(advice.dice)}" + ("  (first roll)" if advice.first else ""))
    echo(f"value     {100 * advice.value:.2f} % chance to win the game")
    if advice.options:
        shown = SHOWN_OPTIONS if top is None else (top or len(advice.options))
        echo("")
        for line in option_rows(advice, shown, notation, expected):
            echo(line)
    echo(f"rules     {describe_rules(rules)}")


__all__ = ["FinalOption", "MeOption", "NeedOption", "OppOption", "advice_lines", "advise"]
