"""The inputs a player gives, each defined once: its name, type, range, help and its words.

The command line and the web read the same inputs: `sabords advise captain kkmmppsc --need
1000` and `/api/advise?card=captain&dice=kkmmppsc&need=1000`. Each is an :class:`Input` here,
from which the command line builds its typer option or argument
(:mod:`solver.cli.application`) and the web reads its query parameter
(:mod:`solver.web.params`), neither through the other.

An input's :attr:`~Input.name` is also the `subject` of the library's errors about it
(:mod:`solver.errors`), so that each front end words an error with its own name for it: the
command line with its flag (:attr:`Input.flag`), the web with :attr:`Input.words`, the input in
the player's words (the errors of reading a query: :mod:`solver.web.params`).

Values are read by kind: a flag is true or false, an integer a whole number (within
:attr:`~Input.minimum` and :attr:`~Input.maximum` when they are given), a text is passed to the
library as typed (the notation reads dice and cards, :mod:`solver.rules` the variants), a list
is given once per value (each a text or an integer, :attr:`~Input.each`). Everything else
about a value is the library's to judge.

Pure Python, no imports beyond the library's rules (every command's start-up path).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..limits import MAX_TARGET
from ..rules.rulebook import VARIANT_NAMES

FLAG, INT, TEXT, LIST = "flag", "int", "text", "list"
"""The kinds of input: a boolean flag, an integer, a text, a text given once per value."""


@dataclass(frozen=True)
class Input:
    """One input a player gives (module docstring)."""

    name: str
    """Its name in the game's words: the web's query parameter and the errors' subject."""
    kind: str
    """:data:`FLAG`, :data:`INT`, :data:`TEXT` or :data:`LIST`."""
    help: str
    """What it is, for the command line's help and the API's description."""
    words: str
    """The input in a player's words, in a sentence ("the points needed")."""
    metavar: str | None = None
    """The placeholder of its value (``N``, ``DICE``...)."""
    positional: bool = False
    """The command line reads it as an argument (``CARD``, ``DICE``), not an option."""
    required: bool = False
    minimum: int | None = None
    maximum: int | None = None
    each: str = TEXT
    """A list: the kind of each of its values (:data:`TEXT` or :data:`INT`)."""

    @property
    def flag(self) -> str:
        """Its command-line option (``--sorceress-used``), or its argument (``DICE``)."""
        if self.positional:
            return self.metavar or self.name.upper()
        return "--" + self.name.replace("_", "-")


CARD_HELP = "an id (captain, chest, battle3...) or a rulebook name"

CARD = Input("card", TEXT, f"The card: {CARD_HELP}.", "the card", metavar="CARD",
             positional=True, required=True)
CARD_DRAWN = Input("card", TEXT, f"The card drawn: {CARD_HELP}.", "the card", metavar="CARD",
                   positional=True, required=True)
CARD_LIST = Input("card", LIST, f"A card (repeatable): {CARD_HELP}.", "the cards",
                  metavar="CARD")
DICE = Input("dice", TEXT, "The 8 dice showing: letters ('kkmppscd') or words.", "the dice",
             metavar="DICE", positional=True, required=True)
FINAL_DICE = Input("dice", TEXT,
                   "The 8 dice the turn ends with: letters ('kkmppscd') or words.", "the dice",
                   metavar="DICE", positional=True, required=True)
CHEST = Input("chest", TEXT, (
    "Chest card, on a bust: the dice on the chest (the dice not rolled in the last roll), which "
    "still score."), "the dice on the chest", metavar="DICE")
FINAL_CHEST = Input("chest", TEXT, (
    "Chest card only: the dice on the chest, i.e. the dice not rolled in the fatal roll. They "
    "still score when the turn busts. They are among the dice the turn ends with."),
    "the dice on the chest",
    metavar="DICE")
SORCERESS_USED = Input("sorceress_used", FLAG,
                       "Sorceress card only: her reroll has been used this turn.",
                       "the Sorceress used")
FIRST = Input("first", FLAG, (
    "The dice are the turn's first roll: 4+ skulls (not a battle card) are Skull Island. "
    "Otherwise 4+ skulls are a bust (the answer says when they would be Skull Island on a first "
    "roll)."),
    "the first roll")
FIRST_AT_END = Input("first", FLAG, (
    "The dice are the turn's first roll: 4+ skulls (not a battle card) go to Skull Island, and "
    "the Sorceress is unused. Otherwise the dice come after a reroll and 4+ skulls are a bust "
    "like 3."),
    "the first roll")
NEED = Input("need", INT, (
    "Maximise the probability that the turn ends with at least this many points (a final "
    "turn, or the points still missing) instead of the expected points: a non-negative "
    "multiple of 100."), "the points needed", metavar="N")
ME = Input("me", INT, "Your total (with the opponents' totals: play to win the game).",
           "your total", metavar="POINTS")
OPP = Input("opp", LIST, (
    "An opponent's total; with three players or more, once per opponent in seat order after "
    "you (the next player first)."), "the opponents' totals", metavar="POINTS", each=INT)
MY_TOTAL = Input("me", INT, "Your total.", "your total", metavar="POINTS", required=True)
OPP_TOTAL = Input("opp", LIST, (
    "An opponent's total; with three players or more, once per opponent in seat order after "
    "you (the next player first)."), "the opponents' totals", metavar="POINTS",
    required=True, each=INT)
FINAL = Input("final", FLAG, (
    "Your final turn: an opponent has reached the target (their total at or above it). With three "
    "players or more, the first opponent in seat order at or above the target triggered the "
    "final round (unless --trigger says who did): those between you and them still have their "
    "final turns. Where an opponent before them may have reached it first and been pushed "
    "back by Skull Island, --trigger must say who did."),
    "the final turn")
WIN_TRIGGER = Input("trigger", INT, (
    "Your final turn: the player who reached the target first, numbered as the answers "
    "number the players (you 1, the first --opp 2, the next 3...); needed when the totals do "
    "not say who: Skull Island pushed them back below the target, or, with four or five "
    "players, a player below it may have reached it first and been pushed back after (the "
    "answer says so: --final alone is then refused). Implies --final. Example: --trigger 4."),
    "the player who reached the target first", metavar="PLAYER", minimum=2, maximum=5)
SUDDEN_DEATH = Input("sudden", FLAG, (
    "Sudden death: the final round ended with everybody below the target (Skull Island); the "
    "next player to end a turn at or above it wins at once."), "sudden death")
TOP = Input("top", INT, "Show the K best options (0: all).", "the number of options shown",
            metavar="K", minimum=0)
VARIANT = Input("variant", LIST, (
    f"Switch a rules variant (repeatable, once per variant): on/off switches, "
    f"nine_of_a_kind=magic|set, target=N (up to {MAX_TARGET}), ties=shared|trigger. Variants: "
    + ", ".join(VARIANT_NAMES) + "."), "the rules variants", metavar="NAME=VALUE")
NOTATION = Input("notation", TEXT, (
    "The letters of dice and cards, read and printed: default (k m p s c d) or braille (the "
    "adaptation for blind players: dice m s p é o d, cards p t m1 m2 b2 b3 b4 g o d a). JSON "
    "always uses the default letters."), "the notation", metavar="NAME")
EXACT = Input("exact", FLAG, (
    "Also the exact values, as fractions, proved optimal in exact arithmetic (the expected "
    "points and need N; not the game's win probabilities)."), "the exact values")
ENTRY = Input("entry", LIST, (
    "The turn's entries so far, in order (repeated): the dice of each roll (all 8 on the first "
    "roll; after a reroll the rolled dice alone, or all 8) and each move (stop, keep DICE, "
    "reroll DICE with a skull for the Sorceress, or empty: as advised)."), "the turn's entries",
    metavar="ENTRY")
TOTAL = Input("total", LIST, (
    "The players' totals at the table, in their seating order (repeated, one per player)."),
    "a player's total", metavar="POINTS", each=INT)
MOVER = Input("mover", INT, "The player whose turn it is: the position of their total among "
              "the totals, from 0.", "the player whose turn it is", metavar="I", minimum=0)
POINTS = Input("points", INT, "The points the turn just played scored for its player (a lost "
               "battle: negative).", "the turn's points", metavar="POINTS")
DEDUCTION = Input("deduction", INT, "Skull Island: the points each other player loses.",
                  "Skull Island's deduction", metavar="POINTS", minimum=0)
TRIGGER = Input("trigger", INT, "The player who first reached the target and started the final "
                "round: the position of their total, from 0 (without it: read from the totals, "
                "exact for two players).", "the player who reached the target first",
                metavar="I", minimum=0)
SUDDEN = Input("sudden", FLAG, "Sudden death: the final round ended with nobody at the target "
               "(Skull Island); the next player to reach it wins at once.", "sudden death")
MAGIC = Input("magic", FLAG, "The turn just played ended with pirate magic, which wins at once.",
              "pirate magic")

ALL_INPUTS: tuple[Input, ...] = (
    CARD, CARD_LIST, DICE, CHEST, SORCERESS_USED, FIRST, NEED, ME, OPP, FINAL, TOP, VARIANT,
    NOTATION, EXACT, ENTRY, TOTAL, MOVER, POINTS, DEDUCTION, TRIGGER, SUDDEN, MAGIC)
"""One input of each name (the others are the same input with a command's own help)."""

__all__ = [
    "ALL_INPUTS",
    "CARD",
    "CARD_LIST",
    "CARD_DRAWN",
    "CHEST",
    "DEDUCTION",
    "DICE",
    "ENTRY",
    "EXACT",
    "FINAL",
    "FINAL_CHEST",
    "FINAL_DICE",
    "FIRST",
    "FIRST_AT_END",
    "FLAG",
    "INT",
    "LIST",
    "MAGIC",
    "ME",
    "MOVER",
    "MY_TOTAL",
    "NEED",
    "NOTATION",
    "OPP",
    "OPP_TOTAL",
    "POINTS",
    "SORCERESS_USED",
    "SUDDEN",
    "TEXT",
    "TOP",
    "TOTAL",
    "TRIGGER",
    "SUDDEN_DEATH",
    "WIN_TRIGGER",
    "VARIANT",
    "Input",
]
