"""Property tests (hypothesis, derandomised in conftest.py): each is named after its property
and pinned by an @example."""

from __future__ import annotations

import json
import random
import re

from hypothesis import assume, example, given
from hypothesis import strategies as st

from solver.rules import (
    CARD_IDS,
    CARDS,
    FACE_LETTERS,
    NINE_OF_A_KIND_VALUES,
    NUM_DICE,
    TIES_VALUES,
    Face,
    Rules,
)
from solver.rules.dice import FACE_WORDS, Dice, fold
from solver.rules.notation import parse_card
from solver.rules.scoring import stop_score

faces = st.sampled_from(list(Face))
eight_faces = st.lists(faces, min_size=NUM_DICE, max_size=NUM_DICE)
some_faces = st.lists(faces, min_size=1, max_size=NUM_DICE)
alive_faces = eight_faces.filter(lambda fs: fs.count(Face.SKULL) < 3)
cards = st.sampled_from(CARD_IDS)
rules = st.builds(
    Rules,
    keep_one=st.booleans(),
    sorceress_rescue=st.booleans(),
    sorceress_alone=st.booleans(),
    card_skulls_block_chest=st.booleans(),
    battle_swords_fill_chest=st.booleans(),
    nine_of_a_kind=st.sampled_from(NINE_OF_A_KIND_VALUES),
    target=st.integers(1, 200).map(lambda n: 100 * n),
    ties=st.sampled_from(TIES_VALUES),
)

WORDS_BY_FACE: dict[Face, list[str]] = {}
for _word, _face in FACE_WORDS.items():
    WORDS_BY_FACE.setdefault(_face, []).append(_word)


def faces_of(text: str) -> list[Face]:
    return list(Dice.parse(text).faces())


@given(some_faces)
@example(faces_of("kkmppscd"))
def test_dice_str_then_parse_is_identity(fs: list[Face]) -> None:
    d = Dice.from_faces(fs)
    assert Dice.parse(str(d)) == d
    assert str(Dice.parse(str(d))) == str(d)


TYPED_NAMES: dict[str, Face] = {
    "tête de mort": Face.SKULL, "Têtes de Mort": Face.SKULL, "tête-de-mort": Face.SKULL,
    "Totenkopf": Face.SKULL, "Totenköpfe": Face.SKULL, "Totenköpfen": Face.SKULL,
    "pièce d'or": Face.COIN, "pièce d’or": Face.COIN, "Pièces d'or": Face.COIN,
    "piece d or": Face.COIN, "Gold Coin": Face.COIN, "gold coins": Face.COIN,
    "GOLDMÜNZE": Face.COIN, "Goldmünzen": Face.COIN, "moneta d'oro": Face.COIN,
    "Monete d'Oro": Face.COIN, "Säbel": Face.SWORD, "épée": Face.SWORD,
}  # fmt: skip
"""Names as the rulebooks print them (docs/seeds/000_23d2d1da9ec8db0b.txt: "tête de mort",
"pièce d’or", "gold coin", "Totenköpfe", "Goldmünzen", "moneta d'oro"...), accents and capitals
kept; :data:`FACE_WORDS` holds every name folded."""
NAMES: dict[str, Face] = {**FACE_WORDS, **TYPED_NAMES}


def _name_words(name: str) -> list[str]:
    return [w for w in re.split(r"[\s'’-]+", fold(name)) if w]


def _joins_a_name(before: str, after: str) -> bool:
    """Whether the end of `before` and the start of `after`, one space apart, make a name of
    several words (``gold`` then ``coin``: ``gold coin``, one die)."""
    a, b = _name_words(before), _name_words(after)
    return any(" ".join(a[i:] + b[:j]) in FACE_WORDS
               for i in range(len(a)) for j in range(1, len(b) + 1))


@given(st.lists(st.tuples(st.sampled_from(sorted(NAMES)), st.integers(0, 3), st.booleans()),
                min_size=1, max_size=8),
       st.sampled_from([" ", ", ", ";", " / ", " + "]))
@example([("Gold Coin", 0, False), ("tête de mort", 3, False), ("pièce d'or", 0, True),
          ("Totenkopf", 2, False)], " ")
@example([("gold", 0, False), ("coin", 0, False)], ", ")
def test_every_name_of_every_face_is_one_die(items: list[tuple[str, int, bool]],
                                             separator: str) -> None:
    if separator == " ":
        assume(not any(_joins_a_name(a[0], b[0])
                       for a, b in zip(items, items[1:], strict=False) if not b[1]))
    words = [(f"{n} " if n else "") + (name.upper() if upper else name)
             for name, n, upper in items]
    expected = [NAMES[name] for name, n, _ in items for _ in range(n or 1)]
    assert Dice.parse(separator.join(words)) == Dice.from_faces(expected)


@given(some_faces, st.data())
@example(faces_of("kkmppscd"), None)
def test_parse_is_lenient_on_case_order_and_words(fs: list[Face], data: st.DataObject) -> None:
    if data is None:  # the @example: reversed upper-case letters
        tokens = [FACE_LETTERS[f].upper() for f in reversed(fs)]
    else:
        order = data.draw(st.permutations(fs))
        tokens = []
        for f in order:
            letter = FACE_LETTERS[f]
            token = data.draw(st.sampled_from([letter, *WORDS_BY_FACE[f]]))
            if data.draw(st.booleans()):
                token = token.upper()
            tokens.append(token)
    separator = ", " if data is None else data.draw(st.sampled_from([" ", ", ", ";", " / "]))
    if separator == " ":
        assume(not any(_joins_a_name(a, b) for a, b in zip(tokens, tokens[1:], strict=False)))
    assert Dice.parse(separator.join(tokens)) == Dice.from_faces(fs)


@given(cards, eight_faces, st.randoms(use_true_random=False))
@example("none", faces_of("ccccsssd"), None)
def test_score_does_not_depend_on_the_order_of_the_dice(
    card: str, fs: list[Face], rnd: random.Random | None
) -> None:
    shuffled = list(fs)
    if rnd is not None:
        rnd.shuffle(shuffled)
    else:
        shuffled.reverse()
    as_text = "".join(FACE_LETTERS[f] for f in fs)
    shuffled_text = "".join(FACE_LETTERS[f] for f in shuffled)
    assert stop_score(CARDS[card], Dice.parse(as_text), Rules()) == stop_score(
        CARDS[card], Dice.parse(shuffled_text), Rules()
    )


@given(alive_faces, rules)
@example(faces_of("mmmssscc"), Rules())
def test_captain_scores_twice_the_no_card_score(fs: list[Face], r: Rules) -> None:
    d = Dice.from_faces(fs)
    assert stop_score(CARDS["captain"], d, r).points == 2 * stop_score(CARDS["none"], d, r).points


@given(cards, alive_faces, rules)
@example("skull1", faces_of("mmmmmmmm"), Rules())
def test_full_chest_implies_no_skull(card: str, fs: list[Face], r: Rules) -> None:
    d = Dice.from_faces(fs)
    if stop_score(CARDS[card], d, r).full_chest:
        assert d.skulls == 0
        assert CARDS[card].skulls == 0 or not r.card_skulls_block_chest


@given(cards, alive_faces, rules)
@example("battle4", faces_of("sssccccc"), Rules())
def test_battle_cards_lose_exactly_the_bonus_without_the_swords(
    card: str, fs: list[Face], r: Rules
) -> None:
    the_card = CARDS[card]
    points = stop_score(CARDS[card], Dice.from_faces(fs), r).points
    if the_card.is_battle and fs.count(Face.SWORD) < the_card.battle_swords:
        assert points == -the_card.battle_bonus
    elif the_card.is_battle:
        assert points >= the_card.battle_bonus
    else:
        assert points >= 0


@given(cards, alive_faces)
@example("coin", faces_of("cccccccc"))
def test_magic_needs_nine_of_a_kind_with_the_card_and_the_magic_variant(
    card: str, fs: list[Face]
) -> None:
    d = Dice.from_faces(fs)
    extra = CARDS[card].extra_face
    nine = extra is not None and d[extra] == NUM_DICE
    assert stop_score(CARDS[card], d, Rules(nine_of_a_kind="magic")).magic is nine
    assert stop_score(CARDS[card], d, Rules(nine_of_a_kind="set")).magic is False


@given(rules)
@example(Rules())
def test_rules_canonical_round_trip_and_hash_identify_the_rules(r: Rules) -> None:
    assert Rules.from_dict(json.loads(r.canonical())) == r
    assert (r.hash == Rules().hash) is (r == Rules())


@given(cards, st.data())
@example("sorceress", None)
def test_card_ids_parse_in_any_case(card: str, data: st.DataObject) -> None:
    if data is None:
        text = "GARDIENNE"
    else:
        flips = data.draw(st.lists(st.booleans(), min_size=len(card), max_size=len(card)))
        text = "".join(ch.upper() if up else ch for ch, up in zip(card, flips, strict=True))
    assert parse_card(text).id == card
