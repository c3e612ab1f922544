"""`sabords turn`'s dialogue: a whole turn at the table, roll by roll, then the turn graded.

Typer-free (its help is :mod:`.turn`'s; its parser is the answers', :mod:`.quick`): the first
advice of a turn comes as fast as `sabords advise`'s. The turn
itself is :class:`solver.advice.play.TurnPlay` (the state machine: rolls, moves, undo, Skull
Island, the grading); this module reads the player's lines, says what they mean to the turn
(``help``, ``undo``, ``quit`` or an entry) and renders the answers: as text at the table, or
with ``--json`` one JSON object a line for a script that drives it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

from ..errors import SabordsError, is_digits, shorten, whole_number
from ..rules.aims import POINTS
from .answers import with_notation
from .render import method_lines, move_text, note_line, turn_cache_warning, value_text
from .streams import EXIT_INTERRUPTED, echo, print_json, say, undecodable, undecodable_line
from .wording import describe_rules, error_line, fail, solutions_from

if TYPE_CHECKING:
    from ..advice.advisor import Advice
    from ..advice.play import GradedTurn, TurnPlay
    from ..advice.requests import Given
    from ..rules.notation import Notation

SHOWN = 4
"""Options listed after each roll: the best and the next three."""
HELP = "help"
UNDO = "undo"
QUIT = "quit"
WORDS = {"help": HELP, "?": HELP, "h": HELP, "undo": UNDO, "u": UNDO, "quit": QUIT,
         "exit": QUIT, "q": QUIT}
"""What the helper reads as a word rather than an entry."""
SKIPPED_NOTES = ("chest_ignored", "island_if_first", "chest_unknown")
"""Notes about the inputs of `advise`: the helper tracks the chest and the first roll."""


def turn_body(given: Given) -> None:
    """`sabords turn` (its help is :func:`.turn.turn`'s)."""
    from ..advice.play import TurnPlay
    from ..advice.requests import TurnRequest

    request = TurnRequest.read(with_notation(given))
    tables, as_json = given.get("tables"), bool(given.get("json"))
    turn_cache_warning(request.rules, [request.card.id], tables)
    play = TurnPlay.new(request.card, request.rules, request.goal,
                        solutions=solutions_from(tables, given.get("game_tables")),
                        letters=request.notation.letters)
    helper = _Helper(play, request.notation, as_json, sys.stdin)  # the CliRunner swaps stdin
    try:
        helper.run()
    except KeyboardInterrupt:
        echo("")
        if not as_json:
            echo("Turn abandoned (Ctrl-C).")
        raise SystemExit(EXIT_INTERRUPTED) from None


def rolled_dice(n: int, what: str, *, the: bool = False) -> str:
    """'the rolled die' / 'the 3 rolled dice' (or without 'the': '1 other die', '3 other
    dice')."""
    if n == 1:
        return f"the {what} die" if the else f"{what} die"
    return f"the {n} {what} dice" if the else f"{n} {what} dice"


BYTE_ORDER_MARKS = ("\ufeff", "\udcef\udcbb\udcbf", "\xef\xbb\xbf")
"""A byte-order mark before a text's first line: UTF-8's, read as UTF-8, undecodable in an
encoding such as ASCII (its bytes kept: :func:`~solver.cli.streams.prepare_streams`), or read
as Latin-1 or cp1252 ("ï»¿")."""


def without_bom(line: str) -> str:
    """`line` without the byte-order mark an editor may save before a file's first line."""
    for mark in BYTE_ORDER_MARKS:
        if line.startswith(mark):
            return line[len(mark):]
    return line


class _Helper:
    """The dialogue of one turn: prompts, answers, the graded end."""

    def __init__(self, play: TurnPlay, notation: Notation, as_json: bool, stdin: TextIO):
        self.play = play
        self.notation = notation
        self.as_json = as_json
        self.stdin = stdin
        self.echo_input = not as_json and not stdin.isatty()
        self.first_line = True

    # -- the loop ----------------------------------------------------------------------------

    def run(self) -> None:
        from ..advice.play import Phase

        play = self.play
        self.event("start")
        if not self.as_json:
            goal = self.goal_words()
            turn = ("A turn without a card" if play.card.id == "none" else
                    f"Turn with the {self.notation.card(play.card)} card")
            echo(f"{turn}, playing for {goal} (rules: {describe_rules(play.rules)}).")
            if play.solved.game is not None:
                for said in method_lines(play.solved.game):
                    echo(said)
            echo(f"Type the dice as they fall: letters "
                 f"{' '.join(self.notation.letters.faces)} (or words), one roll a line; "
                 "'help' for more.")
        while play.phase is not Phase.OVER:
            line = self.ask(self.prompt())
            if line is None:  # the input ended before anything was entered
                self.event("quit")
                return
            word = WORDS.get(line.strip().lower())
            if word == HELP:
                self.show_help()
                continue
            if word == UNDO:
                self.undo()
                continue
            if word == QUIT:
                self.event("quit")
                if not self.as_json:
                    echo("Turn abandoned.")
                    if play.graded().decisions:
                        self.show_graded(play.graded())
                return
            self.enter(line)
        self.event("over")
        if not self.as_json:
            self.show_end()

    def enter(self, line: str) -> None:
        from ..advice.choices import AmbiguousMoveError
        from ..advice.play import Phase

        play = self.play
        phase = play.phase
        try:
            if undecodable(line):
                self.error(undecodable_line("the line", getattr(self.stdin, "encoding", None)))
                return
            if phase is Phase.MOVE:
                listed = play.advice.options[:SHOWN] if play.advice is not None else ()
                if is_digits(line.strip()):  # an option by its rank in the list
                    rank = whole_number(line)  # None: more digits than any list has ranks
                    if rank is None or not 1 <= rank <= len(listed):
                        ranks = "1" if len(listed) == 1 else f"1 to {len(listed)}"
                        self.error(f"option {shorten(line)} is not listed: type {ranks}, or "
                                   "the move ('help' for more)")
                        return
                    play.choose(listed[rank - 1])
                else:
                    play.choose(line)
            elif not line:
                self.error(f"type the dice of the roll ({self.rolled_text()}: letters "
                           f"{' '.join(self.notation.letters.faces)}, or words); 'help' for more")
                return
            elif _a_move(line):  # (it was read as dice: "'t' is not a die letter")
                self.error(f"the move is made: type the dice of the roll now "
                           f"({self.rolled_text()}: letters "
                           f"{' '.join(self.notation.letters.faces)}, or words)")
                return
            else:
                play.enter_roll(line)
        except AmbiguousMoveError as exc:
            self.error(str(exc), mark="?", choices=[o.as_dict() for o in exc.options])
            return
        except SabordsError as exc:
            self.error(error_line(exc))
            return
        if phase is Phase.MOVE:
            self.event("move")
            return
        self.event("roll")
        if not self.as_json:
            if phase is Phase.ISLAND:
                self.show_island_roll()
            else:
                self.show_position()

    def undo(self) -> None:
        what = self.play.undo()
        self.event("undo", undone=what)
        if self.as_json:
            return
        if what is None:
            echo("  Nothing to undo.")
            return
        echo(f"  Undone: the last {what}.")
        if self.play.advice is not None and what == "move":
            self.show_position()

    # -- input -------------------------------------------------------------------------------

    def ask(self, prompt: str) -> str | None:
        """The next line, stripped; None when the input ends before the turn's first entry
        (Ctrl-D at the first prompt: the helper ends quietly). On a terminal the line is read
        with the standard library's line editing (:mod:`readline`: the arrow keys, history)
        where it exists."""
        line: str | None
        if self.line_editing():
            try:
                line = input(prompt) + "\n"
            except EOFError:
                line = ""
        else:
            if not self.as_json:
                echo(prompt, nl=False)
            line = self.stdin.readline()
        if self.first_line:  # a file saved with a byte-order mark: the mark is no die
            self.first_line = False
            line = without_bom(line)
        if not line:
            if not self.as_json:
                echo("")
            if not self.play.entries:
                return None
            fail("the input ended in the middle of the turn")
        if self.echo_input:
            echo(line.rstrip("\n"))
        return line.strip()

    def line_editing(self) -> bool:
        """Whether lines are read by :func:`input` with :mod:`readline` loaded: the text view
        on the process's own terminal (imported here only, never on another command's start)."""
        if self.as_json or self.stdin is not sys.stdin or not sys.stdin.isatty() \
                or not sys.stdout.isatty():
            return False
        try:
            import readline  # noqa: F401  (loading it gives input() its line editing)
        except ImportError:  # not on every platform
            pass
        return True

    def prompt(self) -> str:
        from ..advice.play import Phase

        play, n = self.play, self.notation
        if play.phase is Phase.MOVE:
            return "Your move (Enter: as advised; stop; the dice you keep; reroll ...; help): "
        rolled = play.rolled()
        if play.phase is Phase.ISLAND:
            return (f"Skull Island: roll the {rolled_dice(rolled, 'other')}; "
                    f"{rolled_dice(rolled, 'rolled', the=True)} (or all 8): ")
        pending = play.pending
        if pending is None:
            return "Roll 1, the 8 dice showing: "
        stays = n.listed(play.stays()) or "nothing"  # (spaced in the Braille letters)
        return (f"Roll {play.roll + 1} (rolled {n.listed(pending.reroll)}; {stays} stayed), "
                f"{rolled_dice(rolled, 'rolled', the=True)} or all 8: ")

    def rolled_text(self) -> str:
        """'the 8 dice showing', 'the 2 rolled dice or all 8'."""
        from ..advice.play import Phase

        if self.play.phase is Phase.ROLL and self.play.pending is None:
            return "the 8 dice showing"
        return f"{rolled_dice(self.play.rolled(), 'rolled', the=True)} or all 8"

    def error(self, message: str, *, mark: str = "!", **extra: Any) -> None:
        """A line refused (``!``) or a question (``?``: which of two moves), asked again."""
        if self.as_json:
            self.event("error", error=message, **extra)
        else:
            say(f"  {mark} {message}")

    # -- output ------------------------------------------------------------------------------

    def event(self, name: str, **extra: Any) -> None:
        from ..words.sentences import advice_sentence

        if self.as_json:
            letters = self.notation.letters  # (the sentence's letters; the dice fields' default)
            print_json({"event": name, **extra,
                        **self.play.as_dict(lambda a: advice_sentence(a, letters))}, indent=None)

    def goal_words(self) -> str:
        goal = self.play.goal
        st = goal.standing
        if st is not None:
            final = (", sudden death" if st.sudden else ", your final turn" if st.final
                     else "")
            if st.trigger is not None:
                final += f" (player {st.trigger + 1} reached the target first)"
            who = (f"opponent {st.others[0]}" if st.players == 2 else
                   f"then {', '.join(map(str, st.others))} in seat order")
            return (f"the chance to win the game (you {st.me}, {who}, target "
                    f"{st.rules.target}{final})")
        if goal.need is not None:
            return f"the chance of at least {goal.need} points"
        return "expected points"

    def value(self, value: float) -> str:
        return value_text(value, self.play.goal.name != POINTS)

    def show_help(self) -> None:
        from ..advice.play import Phase

        lines = [
            "  Type what the table shows, one line at a time:",
            f"    the dice of a roll ({' '.join(self.notation.letters.faces)}, or words); "
            "after a reroll only the rolled dice, or all 8",
            "    your move: Enter (as advised), the number of an option listed, stop, the dice "
            f"you keep (e.g. {self.notation.letters.example[2:6]}), or reroll and the dice you "
            "roll (reroll all: keep none); in French too: arrêter, garder, relancer",
            "    undo: take back the last entry; quit: end the helper; help: this",
        ]
        if self.play.card.sorceress:
            skull = self.notation.letters.faces[0]
            used = " (used this turn)" if self.play.sorceress_used else ""
            lines.insert(3, (
                f"    the Sorceress{used}: once a turn, reroll one skull die with the dice you "
                f"roll, 'reroll {skull}' and those dice (e.g. 'reroll {skull}s'); the dice you "
                "keep are enough when only her move keeps them"))
        if self.play.phase is Phase.MOVE:
            lines.append("  Now: your move.")
        else:
            lines.append(f"  Now: the dice of the roll ({self.play.rolled()} rolled).")
        if self.as_json:
            self.event("help", help="\n".join(line.strip() for line in lines))
            return
        for line in lines:
            echo(line)

    def show_position(self) -> None:
        """The advice after a roll: the best move, then the next ones, ties marked."""
        from ..rules.scoring import Outcome
        from ..words.sentences import advice_sentence

        advice = self.play.advice
        assert advice is not None
        n = self.notation
        if advice.kind in (Outcome.BUST, Outcome.ISLAND):
            echo(f"  {advice_sentence(advice, n.letters)}")
            for line in self.notes(advice):
                echo(line)
            return
        from ..words.sentences import move_words

        echo(f"  Advice: {move_words(advice.card, advice.options[0], n.letters)}.")
        for line in self.notes(advice):
            echo(line)
        shown = advice.options[:SHOWN]
        moves = [move_text(o, n) for o in shown]
        values = [self.value(o.value) for o in shown]
        wide, width = max(map(len, moves)), max(map(len, values))
        for rank, o in enumerate(shown, 1):
            marks = ["best"] if o.best else []
            # a tie is what the player reads: the same value as printed, among those listed
            tied = [j for j, v in enumerate(values, 1) if j != rank and v == values[rank - 1]]
            if tied:
                marks.append("tie with " + ", ".join(map(str, tied)))
            echo(f"    {rank}. {moves[rank - 1]:<{wide}}  {values[rank - 1]:>{width}}  bust "
                 f"{100 * o.p_bust:4.1f} %  {', '.join(marks)}".rstrip())

    def notes(self, advice: Advice) -> Iterator[str]:
        for note in advice.notes:
            if note.code not in SKIPPED_NOTES:
                yield f"  {note_line(note, self.notation)}"

    def show_island_roll(self) -> None:
        from ..advice.play import Phase

        play = self.play
        skulls = play.graded().island_skulls
        if play.phase is Phase.OVER:
            return
        echo(f"  Skull Island goes on: {skulls} skulls, {play.rolled()} dice to roll again.")

    def show_end(self) -> None:
        graded = self.play.graded()
        n = self.notation
        dice = self.play.dice
        assert dice is not None
        if graded.outcome in ("stop", "magic"):
            magic = " PIRATE MAGIC: you win the game." if graded.outcome == "magic" else ""
            echo(f"Turn over: you stop with {n.listed(dice)}: {graded.points} points.{magic}")
        elif graded.outcome == "island":
            echo(f"Turn over: Skull Island ended with {graded.island_skulls} skulls: 0 points "
                 f"for you, each opponent loses {graded.deduction}.")
        else:
            echo(f"Turn over: {graded.points} points.")
        self.show_graded(graded)

    def show_graded(self, graded: GradedTurn) -> None:
        """Each decision, the best one and what yours cost; the total."""
        n = self.notation
        if not graded.decisions:
            echo("No decision to grade: the dice decided this turn.")
            return
        unit = "expected points" if graded.unit == "points" else "percentage points"
        echo(f"Your turn, graded (playing for {self.goal_words()}; cost in {unit}):")
        rows = [(n.listed(d.advice.dice), move_text(d.chosen, n), move_text(d.best, n),
                 "best" if d.best_move else self.cost(d.cost)) for d in graded.decisions]
        dw = max([9, *(len(r[0]) + 1 for r in rows)])  # (spaced letters: as wide as their rows)
        mw = max([24, *(len(m) + 1 for r in rows for m in r[1:3])])
        echo(f"  {'roll':<5} {'dice':<{dw}} {'your move':<{mw}} {'best move':<{mw}} {'cost':>8}")
        for d, (dice, chosen, best, cost) in zip(graded.decisions, rows, strict=True):
            echo(f"  {d.roll:<5} {dice:<{dw}} {chosen:<{mw}} {best:<{mw}} {cost:>8}")
        total = graded.total_cost
        worth = ""
        if graded.start_value is not None:
            worth = f"; best play was worth {self.value(graded.start_value)} from the first roll"
        verdict = "0 (every decision was a best move)" if total == 0 else \
            f"{self.cost(total)} {unit}"
        echo(f"  total cost {verdict}{worth}.")

    def cost(self, value: float) -> str:
        if self.play.goal.name == POINTS:
            return f"{value:.2f}"
        return f"{100 * value:.2f}"


def _a_move(line: str) -> bool:
    """A move typed where the dice of a roll are awaited ('stop', 'keep ...', 'garder ...')."""
    from ..advice.choices import VERBS
    from ..rules.dice import fold

    words = fold(line).split()
    return bool(words) and words[0] in VERBS
