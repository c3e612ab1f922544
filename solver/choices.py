"""A player's move, in the words typed at the table, and the dice that follow it.

:func:`chosen_option` reads the move a player names against the options of an
:class:`~solver.advisor.Advice` (an illegal one is refused with the one rule it breaks,
:func:`solver.moves.move_refusal`); :func:`next_roll` reads the dice that show after a reroll,
only the rolled ones or all 8. :class:`solver.play.TurnPlay` follows a turn with them.
"""

from __future__ import annotations

from .advisor import Advice, Option
from .dice import DEFAULT_LETTERS, EMPTY, Dice, DiceNotationError, Letters
from .errors import IllegalMoveError, quote
from .moves import Reroll, move_refusal, stop_refusal
from .rules import NUM_DICE, Face


def chosen_option(advice: Advice, text: str, letters: Letters = DEFAULT_LETTERS) -> Option:
    """The option a player names: '' (as advised), 'stop', 'keep LETTERS', 'reroll LETTERS'
    or bare letters (the dice kept), in `letters`. A reroll with a skull uses the Sorceress.

    Raises :class:`~solver.errors.IllegalMoveError` naming the one rule a move breaks (or a
    notation error) for a move that is not among the position's legal options.
    """
    if not advice.options:
        raise IllegalMoveError("the turn is over: there is no move to make", subject="move")
    words = text.strip().lower().split(maxsplit=1)
    if not words:
        return advice.options[0]
    verb, rest = words[0], (words[1] if len(words) > 1 else "")
    unused = advice.card.sorceress and not advice.sorceress_used
    if verb == "stop" and not rest:
        for option in advice.options:
            if option.action == "stop":
                return option
        reason = stop_refusal(advice.card, advice.dice, advice.rules, sorceress_unused=unused)
        raise IllegalMoveError(reason or "stopping is not a legal move here", subject="move",
                               kind="illegal_stop", values={"dice": str(advice.dice)})
    if verb not in ("keep", "reroll"):
        verb, rest = "keep", text
    if verb == "keep" and rest.strip().lower() in ("", "nothing", "none", "-"):
        chosen = EMPTY
    else:
        chosen = Dice.parse(rest, None, letters)
    skull = quote(letters.faces[Face.SKULL])
    if not chosen <= advice.dice:
        raise IllegalMoveError(f"{quote(chosen.show(letters))} is not among the dice "
                               f"{quote(advice.dice.show(letters))}", subject="move")
    if verb == "keep":
        if chosen.skulls:
            raise IllegalMoveError(
                "skull dice stay on the table by themselves: name the other dice you keep, or "
                f"reroll a skull ({skull}) to use the Sorceress", subject="move")
        move = Reroll(chosen, False)
    else:
        if chosen.skulls > 1:
            raise IllegalMoveError(
                f"the Sorceress rerolls one skull die, not {chosen.skulls}", subject="move")
        move = Reroll(advice.dice.without_skulls() - chosen.without_skulls(), bool(chosen.skulls))
    for option in advice.options:
        if (option.action == "reroll" and option.keep == move.keep
                and option.sorceress == move.sorceress):
            return option
    reason = move_refusal(advice.card, advice.dice, advice.rules, move, sorceress_unused=unused)
    rolled = move.rolled(advice.dice)
    what = (f"keeping {move.keep.spaced(letters) or 'nothing'} and rolling "
            f"{rolled.spaced(letters) or 'nothing'}")
    raise IllegalMoveError(f"{what} is not a legal move here: {reason or 'not a legal move'}",
                           subject="move")


def next_roll(advice: Advice, option: Option, text: str,
              letters: Letters = DEFAULT_LETTERS) -> Dice:
    """The 8 dice showing after `option` (a reroll), from what the player types: only the dice
    that were rolled (as many as were rolled), or all 8. Raises a notation error, or
    :class:`~solver.errors.IllegalMoveError` when 8 dice do not show the dice that stayed."""
    rolled = option.reroll.total
    stays = option_stays(advice, option)
    dice = Dice.parse(text, None, letters)
    if dice.total == rolled:
        return stays + dice
    if dice.total != NUM_DICE:
        raise DiceNotationError(
            f"{quote(text)} has {dice.total} dice, expected the {rolled} rolled "
            f"({option.reroll.show(letters)}) or all {NUM_DICE}", kind="roll_count",
            values={"dice": text, "count": dice.total, "rolled": rolled, "all": NUM_DICE})
    check_next_roll(advice, option, dice, letters)
    return dice


def option_stays(advice: Advice, option: Option) -> Dice:
    """The dice that stay on the table during `option`'s reroll: the kept dice and the locked
    skull dice (the Sorceress's skull is rolled): :meth:`solver.moves.Reroll.kept_after`."""
    return Reroll(option.keep, option.sorceress).kept_after(advice.dice)


def check_next_roll(advice: Advice, option: Option, after: Dice,
                    letters: Letters = DEFAULT_LETTERS) -> None:
    """Raise :class:`~solver.errors.IllegalMoveError` unless `after` can follow the reroll:
    the kept dice and the locked skull dice are still showing."""
    stays = option_stays(advice, option)
    if after.total != NUM_DICE:
        raise DiceNotationError(f"{quote(after.show(letters))} has {after.total} dice, "
                                f"expected {NUM_DICE}", kind="dice_count",
                                values={"dice": after.show(letters), "count": after.total,
                                        "expected": NUM_DICE})
    if not stays <= after:
        raise IllegalMoveError(
            f"{quote(after.show(letters))} does not show the dice that stayed on the table "
            f"({quote(stays.show(letters))}: the kept dice and the skull dice)", subject="roll",
            kind="stays_missing", values={"dice": after.show(letters),
                                          "stays": stays.show(letters)})


__all__ = ["check_next_roll", "chosen_option", "next_roll", "option_stays"]
