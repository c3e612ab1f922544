"""The game on paper, pure Python: the rules object, dice, notation, scoring, moves, a turn's
verdict and the scoreboard. Nothing here needs numpy.

``solver.rules`` hands on the rules object's names (:mod:`.rulebook`), so that
``from solver.rules import Rules`` reads as it says.
"""

from .rulebook import (
    BUST_SKULLS,
    CARD_IDS,
    CARDS,
    DECK_SIZE,
    FACE_LETTERS,
    MAX_TARGET,
    NINE_OF_A_KIND_VALUES,
    NUM_DICE,
    NUM_FACES,
    TIE_SHARES,
    TIES_VALUES,
    UNIT,
    VARIANT_NAMES,
    Card,
    Face,
    Rules,
    UnknownCardError,
    VariantError,
    deck_weights,
    floor_total,
    get_card,
    rules_with,
)

__all__ = [
    "BUST_SKULLS", "CARD_IDS", "CARDS", "DECK_SIZE", "FACE_LETTERS", "MAX_TARGET",
    "NINE_OF_A_KIND_VALUES", "NUM_DICE", "NUM_FACES", "TIE_SHARES", "TIES_VALUES", "UNIT",
    "VARIANT_NAMES", "Card", "Face", "Rules", "UnknownCardError", "VariantError",
    "deck_weights", "floor_total", "get_card", "rules_with",
]
