"""`sabords turn`: a whole turn at the table, roll by roll, then the turn graded (its dialogue
is :mod:`.dialogue`)."""

from __future__ import annotations

from typing import Annotated

from ..advice.inputs import CARD_DRAWN
from .advise import (
    FinalOption,
    MeOption,
    NeedOption,
    OppOption,
    SuddenOption,
    TriggerOption,
)
from .application import (
    GameTablesOption,
    JsonOption,
    NotationOption,
    TablesOption,
    VariantOption,
    argument,
    command,
)


@command("turn", help_only=True)
def turn(
    card: Annotated[str, argument(CARD_DRAWN)],
    need: NeedOption = None,
    me: MeOption = None,
    opp: OppOption = None,
    final: FinalOption = False,
    trigger: TriggerOption = None,
    sudden: SuddenOption = False,
    variant: VariantOption = None,
    tables: TablesOption = None,
    game_tables: GameTablesOption = None,
    notation: NotationOption = "default",
    as_json: JsonOption = False,
) -> None:
    """Play a whole turn with advice, typing the dice as they fall; then the turn graded.

    After each roll the best move is shown with the next best ones (equal values marked as
    ties). Answer with Enter to follow the advice, the number of an option listed, 'stop', the
    dice you keep ('sssc', or 'keep sssc'), or the dice you reroll ('reroll mp'; a skull in it
    uses the Sorceress).
    After a reroll type only the dice you rolled ('cs'), or all 8. Skull Island is followed
    roll by roll to its deduction. 'help' lists what you can type, 'undo' takes back the last
    entry, 'quit' ends the helper. At the end of the turn every decision you made is shown
    with the best one and what yours cost (expected points, or the chance of the --need, or
    of winning with --me/--opp), and the total.

    Bad input is explained in one line and asked again; the input ending mid-turn is an
    error (exit code 2), Ctrl-C ends the helper (exit code 130). With --json every answer is
    one JSON object on a line of its own (the turn's state, its advice and its grading), for a
    script that writes one entry a line.

    \b
    Examples:
      sabords turn captain
      printf 'kkmpsssc\\n\\ncs\\nstop\\n' | sabords turn chest
      sabords turn sorceress --need 1500
      sabords turn none --me 2000 --opp 5500
      sabords turn p --notation braille
      sabords turn captain --me 4000 --opp 6200 --final    # your last turn
      sabords turn none --me 4000 --opp 5800 --opp 3000 --trigger 2  # pushed back
      sabords turn none --me 4000 --opp 5800 --sudden      # sudden death
      sabords turn sorceress --variant sorceress_alone=off --tables /tmp/t
      sabords turn none --me 0 --opp 0 --game-tables /tmp/g
      printf 'kkmpsssc\\nstop\\n' | sabords turn chest --json   # one JSON object a line
    """


__all__ = ["turn"]
