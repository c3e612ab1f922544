"""A game's review in sentences: each player's game in one line (`sabords review`, and the
``story`` of its JSON). The page says the same in the player's language from the figures
(``review.js``).

A change of a probability is said in points (1 point = 0.01: from 35 % to 40 % is 5 points).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rules.aims import NEED, POINTS

if TYPE_CHECKING:
    from ..advice.review import GameReview, PlayerReview

def signed(value: float, digits: int = 1) -> str:
    """'+5.2', '−3.0' (a true minus sign), '0.0'."""
    text = f"{abs(value):.{digits}f}"
    if float(text) == 0:
        return text
    return ("+" if value > 0 else "\u2212") + text


def story(review: GameReview, player: PlayerReview) -> str:
    """A player's game in one line: how it ended, from which chance, and what luck and play
    did ("Anne won from 35.0 % at the start: +58.2 points of luck, 3.1 lost to her own play,
    +10.4 from the others' play.")."""
    name = player.name
    if review.objective == POINTS:
        turns = sum(1 for t in review.turns if t.player == player.seat)
        return (f"{name} scored {player.end:.0f} points in {turns} turn{_s(turns)}, "
                f"{signed(player.change, 0)} against the {player.start:.0f} expected: "
                f"{_parts(player, 1.0, 'points', digits=0)}.")
    if review.objective == NEED:
        turns = sum(1 for t in review.turns if t.player == player.seat)
        return (f"{name} reached {review.record.need} in {player.end:.0f} of {turns} "
                f"turn{_s(turns)}, {player.start:.1f} expected: "
                f"{_parts(player, 1.0, 'turns', digits=2)}.")
    if review.over:
        shared = len(review.winners) > 1
        verb = ("shared the win" if shared and player.seat in review.winners
                else "won" if player.seat in review.winners else "lost")
        head = f"{name} {verb} from {100 * player.start:.1f} % at the start"
    else:
        head = (f"{name} is at {100 * player.end:.1f} % from {100 * player.start:.1f} % at "
                f"the start")
    return f"{head}: {_parts(player, 100.0, 'points')}."


def _parts(player: PlayerReview, scale: float, unit: str, digits: int = 1) -> str:
    """Luck, own play, the others' play, the turns entered alone and a near-optimal game's
    estimate steps, in `unit` (each figure times `scale`; below half its last digit, none)."""
    small = 0.5 * 10.0 ** -digits
    luck = scale * player.luck
    parts = [f"{signed(luck, digits)} {unit} of luck" if abs(luck) >= small
             else "no luck either way"]
    lost = scale * player.error
    parts.append(f"{lost:.{digits}f} lost to own play" if lost >= small
                 else "nothing lost to own play")
    others = scale * player.play_others
    if abs(others) >= small:
        parts.append(f"{signed(others, digits)} from the others' play")
    alone = scale * player.alone
    if abs(alone) >= small:
        parts.append(f"{signed(alone, digits)} in turns entered as points alone")
    estimate = scale * player.estimate
    if abs(estimate) >= small:
        parts.append(f"{signed(estimate, digits)} from the estimate's adjustments between turns")
    return ", ".join(parts)


def _s(n: int) -> str:
    return "" if n == 1 else "s"


__all__ = ["signed", "story"]
