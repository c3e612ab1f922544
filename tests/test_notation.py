"""Notation: card names from the rulebooks (docs/seeds/, RULES.md "Components") and dice
words, and their errors."""

from __future__ import annotations

import pytest

from solver.rules import CARD_IDS, UnknownCardError
from solver.rules.dice import Dice, DiceNotationError
from solver.rules.notation import parse_card, parse_dice

# Names as printed in the seeds and the RULES.md table, and common spellings.
CARD_NAMES = {
    "none": ["none", "NONE", "aucune", "aucune carte", "no card", "keine Karte"],
    "chest": [
        "chest", "coffre", "Île au Trésor", "ile au tresor", "Treasure Island",
        "Treasure Island/Chest", "Schatzinsel", "treasure chest", "L'île au Trésor",
    ],
    "captain": ["captain", "Pirate", "capitaine", "Pirat", "Kapitän", "PIRATE"],
    "sorceress": [
        "sorceress", "Gardienne", "Guardian", "Wächterin", "WÄCHTER", "sorcière", "witch",
    ],
    "coin": ["coin", "Pièce d'or", "pièce d’or", "piece", "Gold coin", "Goldmünze", "gold"],
    "diamond": ["diamond", "Diamant", "DIAMANT"],
    "animals": ["animals", "Animaux", "Monkey business", "Tiere"],
    "skull1": [
        "skull1", "skull 1", "tete1", "Tête de mort (1)", "une tête de mort", "Totenkopf",
        "skull",
    ],
    "skull2": [
        "skull2", "tete2", "Têtes de mort (2)", "2 têtes de mort", "deux têtes de mort",
        "Totenköpfe", "two skulls",
    ],
    "battle2": ["battle2", "Bateau pirate 2 sabres / 300", "bateau2", "300", "Piratenschiff 2"],
    "battle3": [
        "battle3", "bateau3", "battle 3", "Bateau pirate 3 sabres / 500", "500",
        "pirate ship 3", "ship 500",
    ],
    "battle4": ["battle4", "Bateau pirate 4 sabres / 1000", "1000", "bateau 4 sabres", "BATTLE4"],
}  # fmt: skip


def test_every_card_has_names() -> None:
    assert set(CARD_NAMES) == set(CARD_IDS)


@pytest.mark.parametrize(
    ("name", "card_id"), [(n, c) for c, names in CARD_NAMES.items() for n in names]
)
def test_parse_card_reads_rulebook_names(name: str, card_id: str) -> None:
    assert parse_card(name).id == card_id


@pytest.mark.parametrize(
    "text",
    [
        "wizard",
        "skull island",  # an event, not a card
        "bateau",  # which battle card?
        "bateau 5",
        "bateau 2 500",  # conflicting numbers
        "skull 3",
        "coin 2",
        "2",
        "",
        "coffre au trésor plein",  # the full chest bonus, not a card
    ],
)
def test_parse_card_refuses_with_the_input_quoted(text: str) -> None:
    with pytest.raises(UnknownCardError) as raised:
        parse_card(text)
    assert isinstance(raised.value, ValueError)
    assert repr(text) in str(raised.value)


def test_unknown_card_lists_the_ids() -> None:
    with pytest.raises(UnknownCardError, match="none, chest, captain, sorceress"):
        parse_card("wizard")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("kkmppscd", "kkmppscd"),
        ("DCSPPMKK", "kkmppscd"),
        ("x x s", "sss"),
        ("skull, monkey, parrot, sword, coin, diamond", "kmpscd"),
        ("tête de mort singe perroquet sabre pièce d'or diamant", "kmpscd"),
        ("tete-de-mort Singe Perroquet épée Pièce Diamant", "kmpscd"),
        ("Totenkopf Affe Papagei Säbel Goldmünze Diamant", "kmpscd"),
        ("Totenköpfe Affen Papageien Schwerter Goldmünzen Diamanten", "kmpscd"),
        ("teschio scimmia pappagallo spada moneta diamante", "kmpscd"),
        ("4 coin, 3 sword, 1 diamond", "sssccccd"),
        ("2 k 3 m pp s", "kkmmmpps"),
        # a name of several words is one die ("gold coin" was two)
        ("skull 3 monkey gold coin 2 diamond", "kmmmcdd"),
        ("3 gold coins, gold, coin", "ccccc"),
        ("2 têtes de mort, pièce d'or, Pièces d’or, piece d or", "kkccc"),
        ("moneta d'oro, 2 Totenköpfen", "kkc"),
        ("trois singes deux épées une pièce d'or", "mmmssc"),
        ("4coin 3 x d", "sssccccd"),  # a count may touch its face; 'x' alone is a sword
        ("2x skull 6x monkey", "kkmmmmmm"),  # "2x" is a count (it read 2 swords, a skull...)
        ("8 × coin", "cccccccc"),
    ],
)
def test_dice_words_and_letters(text: str, canonical: str) -> None:
    assert str(Dice.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("kkmpp", "has 5 dice, expected 8"),
        ("kkmppscdm", "has 9 dice, expected 8"),
        ("kkmppscz", "cannot read 'kkmppscz': 'z' (the 8th character) is not a die letter"),
        ("skull monkey dragon", "unknown word 'dragon' in 'skull monkey dragon'"),
        # a word that is mostly not dice letters is an unknown word, not a letter
        ("Totenkopf singe parrot sciabola", "unknown word 'sciabola' in"),
        ("monkeyz", "unknown word 'monkeyz' (did you mean 'monkey'?)"),
        ("4", "a count with no face"),
        ("2x", "a count with no face"),
        ("skull × 2", "'×' in 'skull × 2' must follow a count"),
        ("4 cc ss", "a count must precede one face"),
        ("9 c", "more than 8 dice"),
        ("", "no dice"),
    ],
)
def test_dice_errors_quote_the_input(text: str, fragment: str) -> None:
    with pytest.raises(DiceNotationError) as raised:
        parse_dice(text)
    assert isinstance(raised.value, ValueError)
    assert fragment in str(raised.value)
    assert repr(text) in str(raised.value)
