"""`sabords review`: a game record reviewed, where the game was won and lost, luck against play
(:mod:`solver.advice.review`)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .application import (
    GameTablesOption,
    JsonOption,
    NotationOption,
    TablesOption,
    command,
    describe_rules,
    echo,
    notation_from,
    print_json,
    solutions_from,
)
from .render import method_lines

if TYPE_CHECKING:
    from ..advice.review import Event, GameReview, TurnReview
    from ..rules.notation import Notation

MISTAKES = 5
"""The largest mistakes listed unless --mistakes says."""
GRADE_WORDS = {"small": "a small error", "inaccuracy": "an inaccuracy",
               "mistake": "a mistake", "blunder": "a blunder"}


@command("review", flags={"game": "--game"})
def review_command(
    record: Annotated[str, typer.Argument(
        metavar="GAME.json", show_default=False,
        help="The game record (docs/record.md): a JSON file, or '-' (the default) for "
             "standard input.")] = "-",
    game: Annotated[int | None, typer.Option(
        "--game", metavar="N", min=1,
        help="The N-th game of a file of several, one a line (as `sabords game --record` "
             "writes them).")] = None,
    mistakes: Annotated[int, typer.Option(
        "--mistakes", metavar="K", min=0,
        help=f"How many of the largest mistakes to list (default {MISTAKES}; 0: none).")
    ] = MISTAKES,
    events: Annotated[bool, typer.Option(
        "--events", help="List every event of every turn: each card, roll and decision, "
                         "and what it did to every player's chance.")] = False,
    tables: TablesOption = None,
    game_tables: GameTablesOption = None,
    notation: NotationOption = "default",
    as_json: JsonOption = False,
) -> None:
    """Review a game: every decision's cost, every card's and roll's luck, and each player's
    game in one line.

    The record is replayed turn by turn (its dice and moves checked as `sabords turn` checks
    them) and every player's probability of winning is followed through each event: a card
    drawn and a roll change it by luck (the value after minus the value expected before), a
    decision by the move played against the best (its error, for the player who made it);
    a turn entered as its points alone by both together. For each player the changes add up
    to the result (1 a win, 1/k a tie shared by k, 0 a loss; the chance now in a game not
    over) minus the chance at the start, checked on every review. Two and three players are
    exact; four and five use near-optimal estimates (their measured error is said), and a
    turn ends with the estimate's step to the next state's chances (as `winprob` gives
    them), counted apart from luck and play. A
    record of one player is reviewed in expected points, or with its need in the probability
    of reaching it. Errors are classed: an inaccuracy from 0.5 point of P(win), a mistake
    from 2, a blunder from 5 (one player's points: 25, 100, 250).

    \b
    Examples:
      sabords review game.json
      sabords game --games 1 --seed 7 --record /tmp/g.json && sabords review /tmp/g.json
      sabords review games.jsonl --game 12 --json
      cat game.json | sabords review --events --mistakes 10
      sabords review game.json --notation braille
      sabords review game.json --tables /tmp/t --game-tables /tmp/g
    """
    from ..advice.review import review_game
    from ..rules.record import read_game
    from ..words.review import story

    text = sys.stdin.buffer.read() if record == "-" else Path(record).read_bytes()
    game_record = read_game(text, game)
    notes = notation_from(notation)
    review = review_game(game_record, solutions_from(tables, game_tables))
    if as_json:
        print_json(review.as_dict(story))
        return
    for line in review_lines(review, notes, mistakes=mistakes, events=events):
        echo(line)
    for p in review.players:
        echo(story(review, p))
    echo(f"rules     {describe_rules(game_record.rules)}")


def _amount(review: GameReview, x: float, sign: bool = True) -> str:
    """A change in the review's unit: percentage points of probability, or points."""
    from ..words.review import signed

    if review.unit == "points":
        return signed(x, 0) if sign else f"{x:.0f}"
    return signed(100 * x, 1) if sign else f"{100 * x:.1f}"


def _share(review: GameReview, x: float) -> str:
    """A chance in % (a game), a turn's value or a sum of them (one player: points, or the
    turns that reach the need)."""
    if review.objective == "need" and x > 1:
        return f"{x:.2f}"
    return f"{x:.0f}" if review.unit == "points" else f"{100 * x:.1f}"


def review_lines(review: GameReview, notes: Notation, *, mistakes: int,
                 events: bool) -> Iterator[str]:
    """The text of `sabords review` but its stories and rules: the game, a line a turn, the
    largest mistakes, a line a player, the thresholds and the check."""
    from ..advice.review import THRESHOLDS

    record = review.record
    names = [p.name[:10] for p in record.players]
    n = len(names)
    if review.objective == "win":
        ended = ("the game is not over" if not review.over else
                 " and ".join(record.players[w].name for w in review.winners)
                 + (" shared the win" if len(review.winners) > 1 else " won"))
        turns = len(review.turns)
        yield (f"A game of {n} players, {turns} turn{'' if turns == 1 else 's'}: {ended}. "
               f"Chances of winning in %, luck and errors in percentage points of P(win).")
        assert review.game is not None
        yield from method_lines(review.game)
    else:
        what = ("expected points" if review.objective == "points"
                else f"the probability of scoring {record.need} (in percentage points)")
        turns = len(review.turns)
        yield f"One player, {turns} turn{'' if turns == 1 else 's'}, reviewed in {what}."
    width = max(6, *map(len, names))
    unit_head = "points" if review.unit == "points" else ""
    yield ""
    head = f"{'turn':>4}  {'player':<{width}} {'card':<10} {'scored':>9}  "
    if review.objective == "win":
        head += " ".join(f"{name:>{max(6, len(name))}}" for name in names)
    else:
        head += f"{'value':>7}"
    yield f"{head}  {'luck':>6} {'error':>6}{unit_head and ''}"
    for t in review.turns:
        yield _turn_line(review, t, names, width, notes)
        if events:
            for e in t.events:
                yield _event_line(review, t, e, names, width, notes)
    if mistakes:
        wrong = review.mistakes(mistakes)
        yield ""
        yield ("Largest mistakes:" if wrong else "Largest mistakes: none, every decision was "
                                                 "one of the best.")
        for rank, (t, e) in enumerate(wrong, 1):
            yield f"{rank:>3}. {_mistake(review, t, e, notes)}"
    yield ""
    alone = any(t.turn.alone for t in review.turns)
    steps = any(e.kind == "estimate" for t in review.turns for e in t.events)
    yield (f"{'player':<{width}} {'start':>6} {'end':>6} {'luck':>7} {'error':>6} "
           f"{'others':>6} " + (f"{'alone':>6} " if alone else "")
           + (f"{'est.':>6} " if steps else "")
           + f"{'moves':>5} {'each':>6}  grades")
    for p in review.players:
        each = "–" if p.per_decision is None else (
            f"{p.per_decision:.1f}" if review.unit == "points" else f"{100 * p.per_decision:.2f}")
        grades = ", ".join(f"{k} {v}" for k, v in p.grades.items()
                           if v and k not in ("best", "small"))
        yield (f"{p.name[:10]:<{width}} {_share(review, p.start):>6} {_share(review, p.end):>6} "
               f"{_amount(review, p.luck):>7} {_amount(review, p.error, sign=False):>6} "
               f"{_amount(review, p.play_others):>6} "
               + (f"{_amount(review, p.alone):>6} " if alone else "")
               + (f"{_amount(review, p.estimate):>6} " if steps else "")
               + f"{p.decisions:>5} {each:>6}  {grades or 'no inaccuracy'}")
    inaccuracy, mistake, blunder = THRESHOLDS[review.unit]
    scale, word = (1.0, "points") if review.unit == "points" else (100.0, "percentage "
                                                                   "points")
    yield ("Luck: every card and roll; error: the player's own decisions' cost, each: per "
           "decision; others: what the other players' decisions gave" + (
               "; alone: turns entered as their points alone (luck and play)" if alone else "")
           + ("; est.: the near-optimal estimate's adjustments from a turn's endings to the next "
              "state's chances, neither luck nor play" if steps else "")
           + f". An inaccuracy costs from {scale * inaccuracy:g} {word}, a mistake from "
           f"{scale * mistake:g}, a blunder from {scale * blunder:g}.")
    end = ("the result" if review.over else "the sum of the turns' values"
           if review.objective != "win" else "the chance now")
    yield (f"Checked: for every player, {end} minus the start is the sum of every event's "
           f"change (largest gap {review.gap:.1e}).")


def _turn_line(review: GameReview, t: TurnReview, names: list[str], width: int,
               notes: Notation) -> str:
    card = "–" if t.turn.card is None else notes.card(t.turn.card)
    scored = (f"isl −{t.turn.deduction}" if t.turn.deduction is not None
              else f"{t.turn.points}".replace("-", "−") + (" magic" if t.turn.magic else ""))
    line = f"{t.number:>4}  {names[t.player]:<{width}} {card[:10]:<10} {scored:>9}  "
    if review.objective == "win":
        line += " ".join(f"{100 * v:>{max(6, len(name))}.1f}"
                         for v, name in zip(t.after, names, strict=True))
    else:
        line += f"{_share(review, t.after[0]):>7}"
    luck = sum(e.change[t.player] for e in t.events if e.kind in ("card", "roll", "island"))
    error = sum(e.error for e in t.events)
    err = "–" if not any(e.decision for e in t.events) else _amount(review, error, sign=False)
    return f"{line}  {_amount(review, luck):>6} {err:>6}"


def _event_line(review: GameReview, t: TurnReview, e: Event, names: list[str], width: int,
                notes: Notation) -> str:
    """An event under its turn's line: each player's change in the player's column, then what
    it was."""
    what = {"card": "card drawn", "roll": f"roll {e.roll}", "island": "Skull Island",
            "turn": "the turn (points alone)",
            "estimate": "estimate adjustment (to the next state's chances)"}.get(e.kind, "")
    if e.dice is not None:
        what += f" {notes.dice(e.dice)}"
    if e.decision is not None:
        from .render import move_text

        what = f"decision {move_text(e.decision.chosen, notes)}"
        if e.grade != "best":
            what += f" ({e.grade}; best: {move_text(e.decision.best, notes)})"
    if review.objective == "win":
        changes = " ".join(f"{_amount(review, c):>{max(6, len(name))}}"
                           for c, name in zip(e.change, names, strict=True))
    else:
        changes = f"{_amount(review, e.change[0]):>7}"
    return f"{'':>4}  {'':<{width}} {'':<10} {'':>9}  {changes}  {what}"


def _mistake(review: GameReview, t: TurnReview, e: Event, notes: Notation) -> str:
    from .render import move_text

    d = e.decision
    assert d is not None
    card = "–" if t.turn.card is None else notes.card(t.turn.card)
    def value(x: float) -> str:
        return f"{x:.1f}" if review.unit == "points" else f"{100 * x:.2f} %"

    lost = f"{d.cost:.1f}" if review.unit == "points" else f"{100 * d.cost:.2f}"
    return (f"turn {t.number}, {review.record.players[t.player].name}, {card}, roll {e.roll} "
            f"{notes.dice(d.advice.dice)}: played {move_text(d.chosen, notes)} "
            f"({value(d.chosen.value)}), best {move_text(d.best, notes)} "
            f"({value(d.advice.value)}): {lost} lost, {GRADE_WORDS[e.grade or 'small']}")


__all__ = ["review_command", "review_lines"]
