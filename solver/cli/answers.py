"""The answers' bodies and their text, typer-free: `sabords advise`, `ev` and `score`.

Each body takes the command's inputs by name (:data:`solver.advice.requests.Given`: lists for
the repeatable ones, None where not given, and the command line's own options: ``top``,
``json``, ``tables``, ``game_tables``), reads them into the command's request once
(:mod:`solver.advice.requests`) and prints its answer, under the conventions of
:func:`.wording.run_command`. The one parser of these commands runs it (:mod:`.quick`,
without typer's import); typer only draws their help (:mod:`.advise`, :mod:`.solving`,
:mod:`.score`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..rules.aims import WIN
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
from .streams import echo, print_json
from .wording import describe_rules, notation_from, solutions_from

if TYPE_CHECKING:
    from ..advice.advisor import Advice, ExactValues
    from ..advice.answers import AdviceAnswer
    from ..advice.requests import Given
    from ..rules.notation import Notation
    from ..rules.rulebook import Card
    from ..rules.standing import Standing
    from ..rules.verdict import Verdict


# -- advise ------------------------------------------------------------------------------------


def advise_body(given: Given) -> None:
    """`sabords advise` (its help is :func:`.advise.advise`'s)."""
    from ..advice.answers import advice_answer
    from ..advice.requests import AdviceRequest
    from ..words.sentences import advice_sentence

    request = AdviceRequest.read(with_notation(given))
    notes, top, tables = request.notation, given.get("top"), given.get("tables")
    turn_cache_warning(request.rules, [request.card.id], tables)
    answer = advice_answer(request, solutions_from(tables, given.get("game_tables")))
    if given.get("json"):
        # the sentence in the letters asked, as the errors are; the dice fields in the default's
        print_json(answer.as_dict(lambda a: advice_sentence(a, notes.letters), top,
                                  notes.letters))
        return
    goal = request.goal
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


def with_notation(given: Given) -> Given:
    """The inputs with the notation of `--notation` (or of $SABORDS_NOTATION, whose errors the
    command line words its own way) resolved."""
    return {**given, "notation": notation_from(given.get("notation") or "default")}


def standing_words(standing: Standing, where: str | None = None) -> str:
    """The totals and the round, as the win answers' first line says them (`where`: the
    round in the command's words)."""
    target = standing.rules.target
    two = standing.players == 2  # "opponent" rather than a list of one
    if where is None:
        where = ("sudden death" if standing.sudden else
                 ("final turn, the opponent reached the target" if two else "final round")
                 if standing.final else "normal play")
    if standing.trigger is not None and not two:
        where += f", player {standing.trigger + 1} reached the target first"
    who = (f"opponent {standing.others[0]}" if two
           else f"then {', '.join(str(t) for t in standing.others)} in seat order")
    return f"you {standing.me}, {who}, target {target} ({where})"


def win_lines(answer: AdviceAnswer, shown: int, notation: Notation) -> Iterator[str]:
    """`advise --me/--opp`: every option with its probability of winning the game and its
    expected points."""
    from ..words.sentences import advice_sentence

    advice, points, goal = answer.advice, answer.points, answer.solved.goal
    assert points is not None and goal.standing is not None
    yield advice_sentence(advice, notation.letters)
    for note in advice.notes:
        yield f"  {note_line(note, notation)}"
    if (points.options and advice.options
            and option_key(points.options[0]) != option_key(advice.options[0])):
        yield f"  For expected points the best move would differ: " \
              f"{advice_sentence(points, notation.letters)}"
    yield ""
    yield f"score     {standing_words(goal.standing)}"
    yield f"card      {notation.card(advice.card)}"
    yield f"dice      {notation.dice(advice.dice)}" + ("  (first roll)" if advice.first else "")
    solved = answer.solved
    estimate = "" if solved.game_exact else " (the method's estimate)"
    best = advice.options[0].players if advice.options else advice.players
    if len(best) > 1 and best[0] == 1.0 and not any(best[1:]):
        estimate = " (certain)"  # not an estimate (a trial of a table of four)
    yield f"value     {100 * advice.value:.2f} % chance to win the game{estimate}"
    if solved.game is not None:
        yield from method_lines(solved.game)
    after = (advice.options[0].players, "after the best move") if advice.options else (
        advice.players, "after this turn")  # a bust or Skull Island: no move to make
    if solved.seats and after[0]:
        # each chance named (a screen reader reads the line aloud: a bare list made the
        # listener count places)
        chances = ", ".join(f"{'you' if i == 0 else f'player {i + 1}'} {100 * p:.2f} %"
                            for i, p in enumerate(after[0]))
        yield f"players   {chances} ({after[1]})"
    if advice.options:
        yield ""
        yield from option_rows(advice, shown, notation, answer.expected)
    yield f"rules     {describe_rules(advice.rules)}"


# -- score -------------------------------------------------------------------------------------


SCORE_NOTES: dict[str, str] = {
    "rescue_ended": "the turn is not over: the Sorceress must reroll a skull die",
    "island_if_first": "on a first roll these dice go to Skull Island instead (add --first)",
    "rescue_if_unused": ("if the Sorceress is still unused the turn is not over: she must "
                         "reroll a skull die"),
    "chest_on_stop": "the chest only matters on a bust: a stop scores all 8 dice",
}
"""The verdict's notes in the `note` lines of the answer."""


def score_body(given: Given) -> None:
    """`sabords score` (its help is :func:`.score.score`'s)."""
    from ..advice.requests import ScoreRequest
    from ..rules.verdict import score_turn

    r = ScoreRequest.read(with_notation(given))
    verdict = score_turn(r.card, r.dice, r.rules, chest=r.chest, first=r.first)
    if given.get("json"):
        print_json(verdict.as_dict())
        return
    for line in score_lines(verdict, r.notation):
        echo(line)


def score_lines(verdict: Verdict, notation: Notation) -> Iterator[str]:
    """The text answer of `sabords score`."""
    from ..rules.scoring import Outcome

    v = verdict
    yield f"card     {notation.card(v.card)}"
    yield f"dice     {notation.dice(v.dice)}" + ("  (first roll)" if v.first else "")
    if v.chest is not None:
        yield f"chest    {notation.dice(v.chest)}"
    yield f"points   {v.points}"
    if v.outcome is Outcome.ALIVE:
        what = ["stop"]
        if v.full_chest:
            what.append("full chest")
        if v.battle_won is not None:
            what.append(f"battle {'won' if v.battle_won else 'lost'}")
        if v.card.doubles:
            what.append("doubled by the captain")
        yield f"outcome  {', '.join(what)}"
        if v.magic:
            yield "         PIRATE MAGIC: nine of a kind wins the game at once"
    elif v.outcome is Outcome.ISLAND and v.island is not None:
        yield f"outcome  Skull Island ({v.skulls} skulls): nothing for the player"
        lines = island_lines(v.island, " " * 9)
        yield f"island   {next(lines)}"
        yield from lines
    else:
        kind = "rescue position ended here" if v.outcome is Outcome.RESCUE else "bust"
        extra = ""
        if v.battle_won is False:
            extra = f": battle lost, minus {v.card.battle_bonus}"
        elif v.card.chest and v.chest is not None:
            extra = ": the dice on the chest still score"
        yield f"outcome  {kind} ({v.skulls} skulls){extra}"
    for note in v.notes:
        yield f"note     {SCORE_NOTES[note.code]}"
    yield f"rules    {describe_rules(v.rules)}"


# -- ev ----------------------------------------------------------------------------------------


def cards_named(cards: list[str], notation: str) -> list[Card]:
    """The named cards, in the given order, each once."""
    notes = notation_from(notation)
    return list(dict.fromkeys(notes.parse_card(c) for c in cards))


def ev_body(given: Given) -> None:
    """`sabords ev` (its help is :func:`.solving.ev`'s)."""
    from ..advice.answers import ev_answer
    from ..advice.requests import EvRequest
    from ..rational import decimal_text, fraction_text
    from ..rules.rulebook import CARDS

    request = EvRequest.read(with_notation(given))
    rules, notes, tables = request.rules, request.notation, given.get("tables")
    turn_cache_warning(rules, [c.id for c in request.cards] if request.cards else CARDS, tables)
    answer = ev_answer(request, solutions_from(tables))
    if given.get("json"):
        print_json(answer.as_dict())
        return
    stats, deck, exact_ev, exact_deck = answer.stats, answer.deck, answer.exact_ev, \
        answer.exact_deck
    echo(f"{'card':<14}{'expected points':>16}{'P(bust)':>10}{'P(Skull Island)':>17}"
         f"{'island deduction':>18}")

    def row(name: str, values: dict[str, float]) -> str:
        return (f"{name:<14}{values['ev']:>16.2f}{values['p_bust']:>10.2%}"
                f"{values['p_island']:>17.2%}{values['island_deduction']:>18.2f}")

    for c in answer.cards:
        echo(row(notes.card(CARDS[c]), stats[c].as_dict()))
    echo(row("deck average", deck))
    echo("island deduction: points each opponent loses to this turn's Skull Island, on average")
    echo("deck average: over the 35 cards of the deck, weighted by their counts")
    echo(f"exact: every value is certified to within {answer.bound:.1e} of the true one")
    if exact_deck is not None:
        echo("")
        echo("exact expected points (proved optimal: no move does better, in exact arithmetic)")
        for name, value in [*((notes.card(CARDS[c]), exact_ev[c]) for c in answer.cards),
                            ("deck average", exact_deck)]:
            echo(f"{name:<14}{fraction_text(value)}")
            echo(f"{'':<14}≈ {decimal_text(value)}")
    echo(f"rules  {describe_rules(rules)}")


__all__ = ["SCORE_NOTES", "advice_lines", "advise_body", "cards_named", "ev_body", "exact_lines",
           "score_body", "score_lines", "standing_words", "win_lines", "with_notation"]
