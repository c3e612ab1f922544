"""`sabords advise`: every legal option from the dice showing, best first
(:mod:`solver.advice.advisor`), for expected points, a target (`--need`) or the game
(`--me/--opp`)."""

from __future__ import annotations

from typing import Annotated

from ..advice.inputs import (
    CHEST,
    DICE,
    FINAL,
    FIRST,
    ME,
    NEED,
    OPP,
    SORCERESS_USED,
    SUDDEN_DEATH,
    TOP,
    WIN_TRIGGER,
)
from .application import (
    ExactOption,
    GameTablesOption,
    JsonOption,
    NotationOption,
    TablesOption,
    VariantOption,
    argument,
    command,
    option,
)
from .render import (
    SHOWN_OPTIONS,
)
from .score import CardArgument

NeedOption = Annotated[int | None, option(NEED)]
MeOption = Annotated[int | None, option(ME)]
OppOption = Annotated[list[int] | None, option(OPP)]
FinalOption = Annotated[bool, option(FINAL)]
TriggerOption = Annotated[int | None, option(WIN_TRIGGER)]
SuddenOption = Annotated[bool, option(SUDDEN_DEATH)]
DiceArgument = Annotated[list[str], argument(DICE)]


@command("advise", help_only=True)
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
    trigger: TriggerOption = None,
    sudden: SuddenOption = False,
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
      sabords advise none mmmpppsc --me 5000 --opp 5900 --opp 4000 --trigger 2
      sabords advise none mmmpppsc --me 5000 --opp 5500 --sudden
      sabords advise t mmspééeo --notation braille
      sabords advise sorceress kkmmppsc --variant sorceress_alone=off
      sabords advise captain kkmmppsc --tables /tmp/t      # from `solve --all --out /tmp/t`
      sabords advise none mmmpppsc --me 0 --opp 0 --game-tables /tmp/g   # `solve-game`
    """


__all__ = ["DiceArgument", "FinalOption", "MeOption", "NeedOption", "OppOption",
           "SuddenOption", "TriggerOption", "advise"]
