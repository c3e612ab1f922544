"""A player's move, in the words typed at the table, and the dice that follow it.

:func:`chosen_option` reads the move a player names against the options of an
:class:`~solver.advice.advisor.Advice` (an illegal one is refused with the one rule it breaks,
:func:`solver.rules.moves.move_refusal`); :func:`next_roll` reads the dice that show after a reroll,
only the rolled ones or all 8. :class:`solver.advice.play.TurnPlay` follows a turn with them.
"""

from __future__ import annotations

from ..errors import IllegalMoveError, SabordsError, quote
from ..rules.dice import DEFAULT_LETTERS, EMPTY, Dice, DiceNotationError, Letters
from ..rules.moves import Reroll, move_refusal, stop_refusal
from ..rules.rulebook import NUM_DICE, Face
from .advisor import Advice, Option

FACE_NAMES = ("skull", "monkey", "parrot", "sword", "coin", "diamond")
"""The faces in words, in :class:`~solver.rules.Face` order (for a refusal)."""

VERBS: dict[str, str] = {
    "stop": "stop", "arreter": "stop", "arrete": "stop", "arretez": "stop", "stopper": "stop",
    "keep": "keep", "garder": "keep", "garde": "keep", "gardez": "keep",
    "reroll": "reroll", "relancer": "reroll", "relance": "reroll", "relancez": "reroll",
}  # fmt: skip
"""A move's verb as typed (without accents), in English or French ("arrêter", "garder ppoo",
"relancer sé"), and the move it names."""
NOTHING = ("", "nothing", "none", "-", "rien")
EVERYTHING = ("all", "everything", "tout")
MOVES = "or a move: stop, keep DICE, reroll DICE"
"""What a move may be, after a dice error of a move typed as its dice alone."""


class AmbiguousMoveError(SabordsError):
    """A keep that two legal moves complete: with the Sorceress's reroll of a skull die, and
    without it. The player says which (:attr:`options`: both, the one without her first)."""

    default_kind = "ambiguous_move"

    def __init__(self, message: str, options: tuple[Option, ...]) -> None:
        super().__init__(message, subject="move",
                         values={"keep": str(options[0].keep),
                                 "rerolls": [str(o.reroll) for o in options]})
        self.options = options


def _missing(chosen: Dice, dice: Dice) -> str:
    """Which of the faces asked for are not showing: 'no sword showing', '3 coins asked, 2
    showing'."""
    parts = []
    for face, (asked, shown) in enumerate(zip(chosen.counts, dice.counts, strict=True)):
        if asked > shown:
            name = FACE_NAMES[face]
            parts.append(f"no {name} showing" if not shown else
                         f"{asked} {name}s asked, {shown} showing")
    return ", ".join(parts)


def chosen_option(advice: Advice, text: str, letters: Letters = DEFAULT_LETTERS) -> Option:
    """The option a player names: '' (as advised), 'stop', 'keep LETTERS', 'reroll LETTERS'
    or bare letters (the dice kept), in `letters`. A reroll with a skull uses the Sorceress.

    The dice kept name the move they leave: where only one legal move keeps them (with the
    Sorceress's reroll of a skull die, or without it), that move; where both are legal,
    :class:`AmbiguousMoveError` asks which. Raises
    :class:`~solver.errors.IllegalMoveError` naming the one rule a move breaks (or a notation
    error) for a move that is not among the position's legal options.
    """
    if not advice.options:
        raise IllegalMoveError("the turn is over: there is no move to make", subject="move")
    words = text.strip().lower().split(maxsplit=1)
    if not words:
        return advice.options[0]
    from ..rules.dice import fold

    verb, rest = VERBS.get(fold(words[0]), words[0]), (words[1] if len(words) > 1 else "")
    unused = advice.card.sorceress and not advice.sorceress_used
    if verb == "stop" and not rest:
        for option in advice.options:
            if option.action == "stop":
                return option
        reason = stop_refusal(advice.card, advice.dice, advice.rules, sorceress_unused=unused)
        raise IllegalMoveError(reason or "stopping is not a legal move here", subject="move",
                               kind="illegal_stop", values={"dice": str(advice.dice)})
    bare = verb not in ("keep", "reroll")
    if bare:
        verb, rest = "keep", text.strip()
    if verb == "keep" and rest.strip().lower() in NOTHING:
        chosen = EMPTY
    elif verb == "reroll" and rest.strip().lower() in EVERYTHING:
        verb, chosen = "keep", EMPTY  # every die but the skulls
    else:
        try:
            chosen = Dice.parse(rest, None, letters)
        except DiceNotationError as exc:  # dice alone, or a move that is none
            if not bare:
                raise
            raise DiceNotationError(f"{exc.message}; {MOVES}", subject=exc.subject,
                                    kind=exc.kind, values=exc.values) from None
    card = advice.card
    if not chosen <= advice.dice:
        raise IllegalMoveError(f"{quote(rest.strip())} is not among the dice "
                               f"{quote(advice.dice.listed(letters))}: "
                               f"{_missing(chosen, advice.dice)}", subject="move",
                               kind="dice_not_showing",
                               values={"typed": rest.strip(), "dice": str(advice.dice)})
    if chosen.skulls and (verb == "keep" or not unused):
        kind = "skulls_stay"
        if verb == "reroll" and card.sorceress:
            kind = "sorceress_used"
            skulls = "the Sorceress's reroll is already used this turn (once per turn)"
        elif verb == "keep":
            skulls = "skull dice stay on the table by themselves: name the other dice you keep"
            if unused:
                skulls += (f", or reroll a skull ({quote(letters.faces[Face.SKULL])}) to use the "
                           "Sorceress")
        else:
            skulls = ("skull dice stay on the table until the turn ends: name the dice you "
                      "reroll, without skulls")
        raise IllegalMoveError(skulls, subject="move", kind=kind,
                               values={"dice": str(advice.dice)})
    if chosen.skulls > 1:
        raise IllegalMoveError(
            f"the Sorceress rerolls one skull die, not {chosen.skulls}", subject="move")
    if verb == "keep":
        moves = [Reroll(chosen, False), Reroll(chosen, True)]
    else:
        moves = [Reroll(advice.dice.without_skulls() - chosen.without_skulls(),
                        bool(chosen.skulls))]
    legal = tuple(option for move in moves for option in advice.options
                  if option.action == "reroll" and option.keep == move.keep
                  and option.sorceress == move.sorceress)
    if len(legal) == 1:
        return legal[0]
    if legal:
        plain, hers = legal
        raise AmbiguousMoveError(
            f"keeping {plain.keep.spaced(letters) or 'nothing'} is two moves: roll "
            f"{plain.reroll.spaced(letters)}, or use the Sorceress and roll "
            f"{hers.reroll.spaced(letters)}; type 'reroll {plain.reroll.listed(letters)}' or "
            f"'reroll {hers.reroll.listed(letters)}'", legal)
    move = moves[0]
    reason = move_refusal(card, advice.dice, advice.rules, move, sorceress_unused=unused)
    rolled = move.rolled(advice.dice)
    what = (f"keeping {move.keep.spaced(letters) or 'nothing'} and rolling "
            f"{rolled.spaced(letters) or 'nothing'}")
    hint = ""
    if move.keep == advice.dice.without_skulls() and not move.sorceress:
        hint = "; to keep them all, type 'stop'"
    raise IllegalMoveError(f"{what} is not a legal move here: {reason or 'not a legal move'}"
                           f"{hint}", subject="move")


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
        which = "the rolled die" if rolled == 1 else f"the {rolled} rolled dice"
        raise DiceNotationError(
            f"{quote(text)} has {dice.total} dice, expected {which} "
            f"({option.reroll.listed(letters)}) or all {NUM_DICE}", kind="roll_count",
            values={"dice": text, "count": dice.total, "rolled": rolled, "all": NUM_DICE})
    check_next_roll(advice, option, dice, letters)
    return dice


def option_stays(advice: Advice, option: Option) -> Dice:
    """The dice that stay on the table during `option`'s reroll: the kept dice and the locked
    skull dice (the Sorceress's skull is rolled): :meth:`solver.rules.moves.Reroll.kept_after`."""
    return Reroll(option.keep, option.sorceress).kept_after(advice.dice)


def check_next_roll(advice: Advice, option: Option, after: Dice,
                    letters: Letters = DEFAULT_LETTERS) -> None:
    """Raise :class:`~solver.errors.IllegalMoveError` unless `after` can follow the reroll:
    the kept dice and the locked skull dice are still showing."""
    stays = option_stays(advice, option)
    if after.total != NUM_DICE:
        raise DiceNotationError(f"{quote(after.listed(letters))} has {after.total} dice, "
                                f"expected {NUM_DICE}", kind="dice_count",
                                values={"dice": after.show(letters), "count": after.total,
                                        "expected": NUM_DICE})
    if not stays <= after:
        raise IllegalMoveError(
            f"{quote(after.listed(letters))} does not show the dice that stayed on the table "
            f"({quote(stays.listed(letters))}: the kept dice and the skull dice)", subject="roll",
            kind="stays_missing", values={"dice": after.show(letters),
                                          "stays": stays.show(letters)})


__all__ = ["AmbiguousMoveError", "check_next_roll", "chosen_option", "next_roll",
           "option_stays"]
