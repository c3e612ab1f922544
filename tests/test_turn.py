"""A turn at the table: the state machine of `solver.advice.play` and the `sabords turn` helper.

The grading is checked against the advisor itself: each decision's cost is the best option's
value minus the chosen one's at that position (`advise` called independently), the turn's cost
their sum. Skull Island is followed with the rule of RULES.md, "Skull Island": it goes on while
each roll adds a skull and at least 2 non-skull dice remain; each opponent loses 100 a skull
(200 with the captain).
"""

from __future__ import annotations

import io
import json
import re

import pytest

from solver.advice.goals import solution_for
from solver.advice.play import Phase, new_turn
from solver.errors import IllegalMoveError
from solver.rules import CARD_IDS, CARDS, Rules, get_card
from solver.rules.dice import BRAILLE_LETTERS, Dice
from solver.rules.moves import Reroll, legal_rerolls, move_refusal, sub_multisets
from solver.rules.scoring import Outcome, classify_roll

from .conftest import advise_at, dice, run_sabords

RULES = Rules()


run = run_sabords  # `sabords ARGS...` with its input (tests/conftest.py)


# -- the state machine ---------------------------------------------------------------------------


def test_a_chest_turn_typed_as_at_the_table_is_graded_by_the_advisor() -> None:
    turn = new_turn(CARDS["chest"], RULES)
    assert turn.phase is Phase.ROLL and turn.rolled() == 8
    turn.enter_roll("kkmpsssc")
    assert turn.phase is Phase.MOVE
    turn.choose("")  # as advised: keep s s s c, reroll m p
    assert (str(turn.stays()), turn.rolled()) == ("kksssc", 2)
    assert turn.enter_roll("cs") == dice("kksssscc")  # only the rolled dice
    turn.choose("stop")
    graded = turn.graded()
    # RULES.md, Scoring a stop: 4 swords 200, 2 coins 200 (a set of 2 is nothing) = 400.
    assert (graded.outcome, graded.points, turn.phase) == ("stop", 400, Phase.OVER)
    solution = solution_for(CARDS["chest"], RULES)
    first = advise_at(CARDS["chest"], dice("kkmpsssc"), RULES, first=True, solution=solution)
    second = advise_at(CARDS["chest"], dice("kksssscc"), RULES, chest=Dice.parse("sssc"),
                    solution=solution)
    stop = next(o for o in second.options if o.action == "stop")
    assert [d.cost for d in graded.decisions] == [0.0, second.value - stop.value]
    assert graded.total_cost == second.value - stop.value > 0
    assert graded.start_value == first.value
    assert [d.best_move for d in graded.decisions] == [True, False]


def test_all_eight_dice_are_read_too_and_must_show_the_dice_that_stayed() -> None:
    turn = new_turn(CARDS["chest"], RULES)
    turn.enter_roll("kkmpsssc")
    turn.choose("")
    with pytest.raises(IllegalMoveError, match="does not show the dice that stayed"):
        turn.enter_roll("kkmmpppc")
    with pytest.raises(ValueError, match="expected the 2 rolled"):
        turn.enter_roll("ccc")
    assert turn.enter_roll("kksssccc") == dice("kksssccc")


def test_undo_takes_back_the_last_entry_and_only_it() -> None:
    turn = new_turn(CARDS["sorceress"], RULES)
    assert turn.undo() is None
    turn.enter_roll("kkmmppsc")
    advice = turn.advice
    turn.choose("reroll ks")
    assert turn.sorceress_used
    assert turn.undo() == "move"
    assert turn.phase is Phase.MOVE and turn.advice == advice and not turn.sorceress_used
    assert turn.undo() == "roll"
    assert turn.phase is Phase.ROLL and turn.dice is None and turn.entries == 0


@pytest.mark.parametrize(
    ("card", "rolls", "skulls"),
    [
        # 4 skulls: the 4 other dice roll; 1 more skull, 3 roll; no skull: over at 5.
        ("captain", ["kkkkmmpc", "kmpc", "mcp"], 5),
        # 6 skulls, the 2 others roll and show 1 skull: 1 die left, the island is over.
        ("none", ["kkkkkkmc", "kc"], 7),
        # 7 skull dice: a single die never rolls, the first roll ends it.
        ("none", ["kkkkkkkc"], 7),
        # 2 skull dice and the card's 2 skulls: 4, an island; all 8 dice typed.
        ("skull2", ["kkmmppsc", "kkkmmpsc", "kkkmmpsc"], 5),
    ],
)
def test_skull_island_is_followed_roll_by_roll(card: str, rolls: list[str],
                                               skulls: int) -> None:
    turn = new_turn(CARDS[card], RULES)
    for roll in rolls:
        assert turn.phase in (Phase.ROLL, Phase.ISLAND)
        turn.enter_roll(roll)
    graded = turn.graded()
    assert turn.phase is Phase.OVER and graded.outcome == "island"
    assert graded.island_skulls == skulls
    assert graded.deduction == get_card(card).island_cost * skulls
    assert (graded.points, graded.decisions) == (0, ())


def test_an_island_roll_keeps_the_skull_dice() -> None:
    turn = new_turn(CARDS["none"], RULES)
    turn.enter_roll("kkkkmmpc")
    with pytest.raises(IllegalMoveError, match="skull dice of the island"):
        turn.enter_roll("kkkmmppc")


@pytest.mark.parametrize(
    ("card", "position", "move", "rule"),
    [
        ("none", "kkmmppsc", "mmppsc", "a reroll rolls at least 2 dice"),
        ("none", "mmmppssc", "reroll mmmppssc", "at least one of the 8 dice stays"),
        ("none", "kkmmppsc", "reroll kc", "skull dice stay on the table until the turn ends"),
        ("sorceress", "kkkmmpsc", "reroll ps", "the move must use her"),
        ("none", "kkmmppsc", "ccc", "'ccc' is not among the dice 'kkmmppsc': 3 coins asked, 1"),
        ("none", "kkmmppcc", "x", "'x' is not among the dice 'kkmmppcc': no sword showing"),
        ("chest", "kkmmppsc", "reroll kk", "skull dice stay on the table until the turn ends"),
        ("sorceress", "kkmmppsc", "kmm", "or reroll a skull ('k') to use the Sorceress"),
        ("none", "kkmmppsc", "kmm", "skull dice stay on the table by themselves"),
        ("sorceress", "kkmmppsc", "reroll kk", "one skull die, not 2"),
        ("none", "kkkmmpsc", "stop", "stopping now is a bust"),
    ],
)
def test_an_illegal_move_names_the_one_rule_it_breaks(card: str, position: str, move: str,
                                                      rule: str) -> None:
    turn = new_turn(CARDS[card], RULES)
    if classify_roll(CARDS[card], dice(position), RULES, first=True,
                     sorceress_unused=get_card(card).sorceress) is Outcome.BUST:
        with pytest.raises(IllegalMoveError, match="no move is expected"):
            turn.enter_roll(position)
            turn.choose(move)
        return
    turn.enter_roll(position)
    with pytest.raises(IllegalMoveError) as raised:
        turn.choose(move)
    assert rule in str(raised.value)
    assert " (a reroll rolls at least 2 dice, the Sorceress" not in str(raised.value)


def test_the_sorceress_spent_is_the_rule_a_second_use_breaks() -> None:
    refusal = move_refusal(CARDS["sorceress"], dice("kkmmppsc"), RULES,
                           Reroll(dice("kkmmppsc").without_skulls() - Dice.parse("s"), True),
                           sorceress_unused=False)
    assert refusal is not None and "already used" in refusal


@pytest.mark.parametrize("rules", [Rules(), Rules(keep_one=False, sorceress_alone=False)])
def test_move_refusal_is_none_exactly_for_the_legal_rerolls(rules: Rules) -> None:
    """Every keep of every position of a sample, both Sorceress states: no refusal iff the
    move is one of legal_rerolls (the single source of legality)."""
    from solver.engine import geometry

    g = geometry()
    for card in ("none", "sorceress", "skull2"):
        for j in range(0, g.n_full, 7):
            position = g.dice(g.full_offset + j)
            for unused in (False, True) if card == "sorceress" else (False,):
                if classify_roll(CARDS[card], position, rules, first=False,
                                 sorceress_unused=unused) is Outcome.BUST:
                    continue
                legal = set(legal_rerolls(CARDS[card], position, rules, sorceress_unused=unused))
                for keep in sub_multisets(position):
                    for her in (False, True):
                        move = Reroll(keep, her)
                        refusal = move_refusal(CARDS[card], position, rules, move,
                                               sorceress_unused=unused)
                        assert (refusal is None) == (move in legal), (card, position, move)


def test_the_braille_letters_are_read_and_the_grading_is_the_same() -> None:
    default = new_turn(CARDS["chest"], RULES)
    braille = new_turn(CARDS["chest"], RULES, letters=BRAILLE_LETTERS)
    for turn, entries in ((default, ["kkmpsssc", "sssc", "cs", "stop"]),
                          (braille, ["mmsp ééé o", "ééé o", "o é", "stop"])):
        turn.enter_roll(entries[0])
        turn.choose(entries[1])
        turn.enter_roll(entries[2])
        turn.choose(entries[3])
    assert braille.graded().as_dict() == default.graded().as_dict()


def test_a_win_goal_needs_both_totals_and_checks_them_when_made() -> None:
    from solver.advice.goals import goal_of

    with pytest.raises(ValueError, match="totals"):
        goal_of(RULES, me=100)
    with pytest.raises(ValueError, match="two objectives"):
        goal_of(RULES, need=500, me=0, opp=[0])
    with pytest.raises(ValueError, match="multiple of 100"):
        goal_of(RULES, me=150, opp=[0])


# -- `sabords turn` ---------------------------------------------------------------------------


def test_turn_types_only_the_rerolled_dice_and_ends_graded() -> None:
    result = run("turn", "chest", input="kkmpsssc\n\ncs\nstop\n")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Roll 2 (rolled mp; kksssc stayed), the 2 rolled dice or all 8: cs" in out
    assert "Turn over: you stop with kksssscc: 400 points." in out  # 200 + 2 x 100
    assert "Your turn, graded (playing for expected points; cost in expected points):" in out
    graded = new_turn(CARDS["chest"], RULES)
    for step in (graded.enter_roll, graded.choose, graded.enter_roll, graded.choose):
        step(["kkmpsssc", "", "cs", "stop"][graded.entries])
    cost = graded.graded().total_cost
    assert f"  total cost {cost:.2f} expected points;" in out
    rows = [line for line in out.splitlines() if line.startswith("  1 ") or
            line.startswith("  2 ")]
    assert rows[0].split()[-1] == "best" and rows[1].split()[-1] == f"{cost:.2f}"


def test_turn_rounds_every_option_alike_and_marks_ties() -> None:
    result = run("turn", "chest", input="kkmpsssc\nquit\n")
    options = [line for line in result.stdout.splitlines() if line.startswith("    ")
               and line.strip()[:2] in ("1.", "2.", "3.", "4.")]
    assert len(options) == 4
    advice = advise_at(CARDS["chest"], dice("kkmpsssc"), RULES, first=True)
    for line, option in zip(options, advice.options, strict=False):
        assert f"{option.value:.2f} expected points" in line
    # keep m s s c and keep p s s c are worth the same (the monkey and the parrot are alike)
    assert advice.options[1].value == advice.options[2].value
    assert options[1].endswith("tie with 3") and options[2].endswith("tie with 2")
    assert options[0].endswith("best") and "tie" not in options[3]


def test_turn_help_undo_and_quit_are_words_not_dice() -> None:
    result = run("turn", "none", input="help\nkkmmppsc\nundo\nkkmmppcc\nmmcc\nundo\nquit\n")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "undo: take back the last entry" in out
    assert out.count("Undone: the last ") == 2
    assert "Roll 1, the 8 dice showing: kkmmppcc" in out  # the first roll typed again
    assert out.rstrip().endswith("Turn abandoned.") and result.stderr == ""


def test_turn_refusals_are_one_line_and_asked_again() -> None:
    result = run("turn", "sorceress", input="banana\nkkmmppsc\nmmpp\nreroll ks\nkk\n")
    errors = result.stderr.splitlines()
    assert errors[0].startswith("  ! unknown word 'banana': expected letters k m p s c d")
    assert errors[1] == ("  ? keeping m m p p is two moves: roll s c, or use the Sorceress "
                         "and roll k s c; type 'reroll sc' or 'reroll ksc'")
    assert len(errors) == 2
    # Her reroll brings a third skull: after her reroll the third skull busts.
    assert "Bust (3 skulls): the turn is over: 0 points." in result.stdout
    assert result.exit_code == 0


def test_turn_follows_skull_island_to_the_deduction() -> None:
    result = run("turn", "captain", input="kkkkmmpc\nkmpc\nmcp\n")
    assert result.exit_code == 0, result.stderr
    assert "Skull Island goes on: 5 skulls, 3 dice to roll again." in result.stdout
    assert ("Turn over: Skull Island ended with 5 skulls: 0 points for you, each opponent "
            "loses 1000.") in result.stdout
    assert "No decision to grade" in result.stdout


def test_turn_input_ending_mid_turn_is_exit_2() -> None:
    result = run("turn", "chest", input="kkmpsssc\n\n")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["sabords: error: the input ended in the middle of "
                                          "the turn"]


class _Interrupted(io.RawIOBase):
    """Standard input that gives `data`, then is interrupted (Ctrl-C) on the next read."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if not self.data:
            raise KeyboardInterrupt
        n = min(len(buffer), len(self.data))
        buffer[:n], self.data = self.data[:n], self.data[n:]
        return n


def test_turn_ctrl_c_ends_the_line_and_exits_130() -> None:
    result = run("turn", "chest", input=io.BufferedReader(_Interrupted(b"kkmpsssc\n")))
    assert result.exit_code == 130
    assert result.stdout.endswith("help): \nTurn abandoned (Ctrl-C).\n"), result.stdout[-80:]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "script", "unit"),
    [
        ((), "kkmmppsc\nmmpp\nskull coin\n", "points"),
        (("--need", "500"), "kkmmppsc\nmmpp\nskull coin\n", "probability"),
        (("--me", "2000", "--opp", "5500"), "kkccccmp\n\ncs\nstop\n", "probability"),
    ],
)
def test_turn_json_drives_one_turn_for_each_objective(args: tuple[str, ...], script: str,
                                                      unit: str) -> None:
    result = run("turn", "none", *args, "--json", input=script)
    assert result.exit_code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    names = [e["event"] for e in events]
    entries = len(script.splitlines())  # one answer a line, between the start and the end
    assert names == ["start", *(["roll", "move"] * entries)[:entries], "over"]
    last = events[-1]
    assert last["phase"] == "over" and last["graded"]["unit"] == unit
    graded = last["graded"]
    assert graded["total_cost"] == sum(d["cost"] for d in graded["decisions"])
    for decision in graded["decisions"]:
        assert decision["cost"] >= 0 and decision["best_move"] == (decision["cost"] == 0)
    assert last["rules_hash"] == RULES.hash


def test_turn_json_reports_a_refusal_as_an_event() -> None:
    result = run("turn", "none", "--json", input="kkk\nkkkmmppc\n")
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[1]["event"] == "error" and "has 3 dice" in events[1]["error"]
    assert events[-1]["event"] == "over" and events[-1]["graded"]["outcome"] == "bust"


def test_turn_braille_notation_reads_and_prints_the_adaptation_letters() -> None:
    result = run("turn", "t", "--notation", "braille", input="mmspéééo\n\noé\nstop\n")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Turn with the t (chest) card" in out
    assert "Advice: Keep é é é o (on the chest), reroll s p." in out
    # the dice spaced in the adaptation's letters, as its tables are (a screen reader read
    # "mmééééoo" as a word; a blind player's trial)
    assert "Roll 2 (rolled s p; m m é é é o stayed)" in out
    assert "Turn over: you stop with m m é é é é o o: 400 points." in out


def test_a_move_is_typed_in_french_words_and_a_wrong_one_lists_the_moves() -> None:
    """"relancer", "garder", "arrêter" (and "rien", "tout"), as "reroll", "keep", "stop";
    a move that reads as neither says what a move may be. Before: "arrêter" was refused as
    dice letters, and the error did not say that a move was expected (a blind player's trial)."""
    result = run("turn", "g", "--notation", "braille",
                 input="mmsppéoo\nfoo\nrelancer sé\nsé\narrêter\n")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "; or a move: stop, keep DICE, reroll DICE" in \
        out + result.stderr
    assert "  1     m m s p p é o o  keep p p o o, reroll s é" in out
    assert "Turn over: you stop with m m s p p é o o: 200 points." in out
    kept = run("turn", "none", input="kkmmppsc\nGarder mmpp\nsc\nrelance tout\n"
               "kkmmppsc\narrête\n")
    assert kept.exit_code == 0, kept.stderr
    assert "keep mmpp, reroll sc" in kept.stdout


def test_a_move_typed_where_the_dice_are_awaited_says_the_dice_are_awaited() -> None:
    """'stop' typed at the dice prompt after a reroll was read as dice: "'t' (the 2nd
    character) is not a die letter" (a blind player's trial). It says the move is made and
    the dice of the roll come now."""
    result = run("turn", "none", "--notation", "braille",
                 input="mmsspppo\nkeep pp\nstop\ngarder o\nsspo\n\n")
    said = [line for line in result.stderr.splitlines() if line.startswith("  ! ")]
    assert said == ["  ! the move is made: type the dice of the roll now (the 4 rolled dice "
                    "or all 8: letters m s p é o d, or words)"] * 2, result.stdout
    assert "Roll 2 (rolled s s p o; m m p p stayed)" in result.stdout


def test_the_dice_in_a_braille_turn_s_errors_are_spaced_as_in_its_tables() -> None:
    """The errors of a turn in the adaptation's letters show the dice spaced, as its tables
    and prompts do: "expected the 4 rolled dice (sspo)" was read as a word (a blind player's
    trial); the default letters stay compact."""
    result = run("turn", "none", "--notation", "braille",
                 input="mmsspppo\nkeep pp\nsp\nkeep pp\nsspo\n\n")
    said = [line for line in result.stderr.splitlines() if line.startswith("  ! ")]
    assert said[0] == "  ! 'sp' has 2 dice, expected the 4 rolled dice (s s p o) or all 8", said
    assert "Roll 2 (rolled s s p o; m m p p stayed)" in result.stdout
    default = run("turn", "none", input="kkmmpppc\nkeep pp\nmp\nkeep pp\nmmpc\n\n")
    said = [line for line in default.stderr.splitlines() if line.startswith("  ! ")]
    assert said[0] == "  ! 'mp' has 2 dice, expected the 4 rolled dice (mmpc) or all 8", said


def test_json_sentences_are_in_the_letters_asked_and_its_dice_in_the_default() -> None:
    """Braille: `recommendation` says "reroll s é" (a sword and a monkey in the adaptation's
    letters), as the errors do; the dice fields stay in the default letters. Before, the
    sentence said "reroll m s", which in the adaptation's letters is a skull and a monkey (a
    blind player's trial)."""
    from starlette.testclient import TestClient

    from solver.web import create_app
    from solver.web.solutions import Settings

    advised = json.loads(run("advise", "g", "mmsppéoo", "--json", "--notation", "braille").stdout)
    assert advised["recommendation"].startswith("Keep p p o o, reroll s é"), advised
    assert advised["dice"] == "kkmppscc" and advised["options"][0]["reroll"] == "ms"
    default = json.loads(run("advise", "sorceress", "kkmppscc", "--json").stdout)
    assert default["recommendation"].startswith("Keep p p c c, reroll m s")
    events = [json.loads(line) for line in run(
        "turn", "g", "--json", "--notation", "braille", input="mmsppéoo\n").stdout.splitlines()]
    assert events[1]["advice"]["recommendation"] == advised["recommendation"]
    with TestClient(create_app(Settings(warm=False))) as client:
        api = client.get("/api/advise", params={"card": "g", "dice": "mmsppéoo",
                                                "notation": "braille"}).json()
        turn = client.get("/api/turn", params=[("card", "g"), ("notation", "braille"),
                                               ("entry", "mmsppéoo")]).json()
    assert api["recommendation"] == turn["advice"]["recommendation"] == \
        advised["recommendation"]
    # a note's text too (its dice data in the default letters)
    chest = json.loads(run("advise", "t", "mmsppéoo", "--json", "--notation", "braille").stdout)
    assert chest["notes"][0]["text"] == ("Chest card: put the kept dice (p é o o) on the chest; "
                                         "they still score if the reroll busts.")
    assert chest["notes"][0]["keep"] == "pscc"


@pytest.mark.parametrize("card", CARD_IDS)
def test_every_card_can_start_a_turn(card: str) -> None:
    turn = new_turn(CARDS[card], RULES)
    turn.enter_roll("mmppsscd")
    assert turn.phase is Phase.MOVE and turn.advice is not None


# -- the helper takes the moves it advises, and speaks of what was typed -------------


@pytest.mark.parametrize("used", [False, True])
def test_the_keep_of_every_option_shown_is_that_option_or_a_question(used: bool) -> None:
    """Typing an option's keep gives that option; where its keep is also the other move (with
    or without the Sorceress), the helper asks which, naming both; 'reroll' and the rolled
    dice always give exactly the option. Every position of the Sorceress card, a sample."""
    from solver.advice.choices import AmbiguousMoveError, chosen_option
    from solver.engine import geometry

    g = geometry()
    sol = solution_for(CARDS["sorceress"], RULES)
    asked = 0
    for j in range(0, g.n_full, 5):
        position = g.dice(g.full_offset + j)
        if classify_roll(CARDS["sorceress"], position, RULES, first=False,
                         sorceress_unused=not used) is Outcome.BUST:
            continue
        advice = advise_at(CARDS["sorceress"], position, RULES, sorceress_used=used, solution=sol)
        for option in advice.options:
            if option.action == "stop":
                continue
            assert chosen_option(advice, f"reroll {option.reroll}") == option
            try:
                assert chosen_option(advice, str(option.keep) or "nothing") == option
            except AmbiguousMoveError as two:
                assert option in two.options and len(two.options) == 2 and not used
                assert {o.sorceress for o in two.options} == {False, True}
                assert all(o.keep == option.keep for o in two.options)
                asked += 1
    assert (asked > 0) is not used


def test_the_helper_takes_the_keep_it_advised_and_explains_the_sorceress() -> None:
    """'1. keep mmppc, reroll ks' advised, then 'mmppc' refused."""
    result = run("turn", "sorceress", input="kkmmppsc\nhelp\nmmppc\nmp\nquit\n")
    assert result.exit_code == 0 and result.stderr == "", result.stderr
    out = result.stdout
    assert "1. keep mmppc, reroll ks" in out
    assert "Roll 2 (rolled ks; kmmppc stayed), the 2 rolled dice or all 8: mp" in out
    assert ("the Sorceress: once a turn, reroll one skull die with the dice you roll, "
            "'reroll k' and those dice (e.g. 'reroll ks')") in out
    second = run("turn", "sorceress", input="kkmmppsc\nmmppsc\nm\nquit\n")
    assert "Roll 2 (rolled k; kmmppsc stayed), the rolled die or all 8: m" in second.stdout
    assert second.stderr == ""
    assert "Sorceress" not in run("turn", "none", input="help\nquit\n").stdout


def test_a_refusal_on_a_card_without_the_sorceress_never_names_her() -> None:
    result = run("turn", "chest", input="kkmpcccc\nreroll kk\nreroll k\nkeep kc\nmpcccc\nquit\n")
    errors = result.stderr.splitlines()
    assert errors[:2] == ["  ! skull dice stay on the table until the turn ends: name the "
                          "dice you reroll, without skulls"] * 2
    assert errors[2] == ("  ! skull dice stay on the table by themselves: name the other "
                         "dice you keep")
    assert errors[3].endswith("a reroll rolls at least 2 dice (one die alone is never rolled);"
                              " to keep them all, type 'stop'")
    assert len(errors) == 4 and not any("Sorceress" in e for e in errors)


def test_ties_are_the_values_as_printed_among_the_options_listed() -> None:
    """'3. ... tie with 4, 5, 6' named options not listed, and 1028.574 and 1028.568
    printed alike were not marked."""
    result = run("turn", "sorceress", input="kkmmppsc\nundo\nkmmpccdd\nquit\n")
    rows = [line for line in result.stdout.splitlines() if re.match(r"    \d\. ", line)]
    assert len(rows) == 8
    for shown in (rows[:4], rows[4:]):
        values = [re.search(r"  (\d+\.\d\d) expected points", r).group(1)  # type: ignore[union-attr]
                  for r in shown]
        for rank, row in enumerate(shown, 1):
            same = [str(j) for j, v in enumerate(values, 1) if j != rank and v == values[rank - 1]]
            tie = re.search(r"tie with ([\d, ]+)$", row)
            assert (tie.group(1).split(", ") if tie else []) == same, row
    assert rows[5].endswith("tie with 3, 4") and rows[7].endswith("tie with 2, 3")


def test_a_turn_without_a_card_is_named_so() -> None:
    out = run("turn", "none", input="quit\n").stdout
    assert out.startswith("A turn without a card, playing for expected points")
    assert "none card" not in out


def test_the_input_ending_before_anything_is_entered_ends_quietly() -> None:
    for args in ((), ("--json",)):
        result = run("turn", "none", *args, input="")
        assert (result.exit_code, result.stderr) == (0, ""), result.stderr
    events = [json.loads(line) for line in run("turn", "none", "--json", input="").stdout
              .splitlines()]
    assert [e["event"] for e in events] == ["start", "quit"]


def test_the_turn_helper_edits_lines_on_a_terminal_and_ctrl_d_ends_it() -> None:
    """On a terminal the helper reads lines with readline: the left arrow moves in the line
    (it printed ^[[D); Ctrl-D at the first prompt ends quietly (exit code 0)."""
    import os
    import pty
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent

    def session(keys: list[tuple[bytes, bytes]]) -> tuple[int, str]:
        """Run `sabords turn none` on a terminal, typing each key after its prompt."""
        leader, follower = pty.openpty()
        env = {**os.environ, "PYTHONPATH": str(root), "TERM": "xterm"}
        proc = subprocess.Popen([sys.executable, "-m", "solver", "turn", "none"],
                                stdin=follower, stdout=follower, stderr=follower, env=env)
        os.close(follower)
        out = b""

        def read(until: bytes | None) -> None:
            nonlocal out
            deadline = time.monotonic() + 30
            while (until is None or until not in out) and time.monotonic() < deadline:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:  # the helper has ended
                    return
                if not chunk:
                    return
                out += chunk

        for prompt, key in keys:
            read(prompt)
            os.write(leader, key)
        code = proc.wait(timeout=30)
        read(None)
        os.close(leader)
        return code, out.decode(errors="replace")

    code, text = session([(b"showing: ", b"kkmpssc\x1b[Ds\n"), (b"help): ", b"quit\n")])
    assert code == 0, text
    assert "Advice:" in text and "^[[D" not in text and "Turn abandoned." in text
    code, text = session([(b"showing: ", b"\x04")])
    assert code == 0 and "ended" not in text, text


def test_an_option_is_chosen_by_its_number_and_reroll_all_keeps_none() -> None:
    """Found trying the helper as a new user: the options are listed 1 to 4, and typing '2'
    was 'a count with no face after it'; 'reroll all' was an unknown word; an empty roll
    line was 'no dice in ''' and the letters' whole description."""
    result = run("turn", "none", input="\nkkmppscd\n9\n2\nundo\nreroll all\nquit\n")
    advice = advise_at(CARDS["none"], dice("kkmppscd"), RULES, first=True)
    graded = result.stdout[result.stdout.index("Your turn, graded"):]
    assert f"keep -, reroll {advice.dice.without_skulls()}" in graded
    assert result.stderr.splitlines() == [
        "  ! type the dice of the roll (the 8 dice showing: letters k m p s c d, or words); "
        "'help' for more",
        "  ! option 9 is not listed: type 1 to 4, or the move ('help' for more)"]
    assert "  Undone: the last move." in result.stdout
    events = [json.loads(line) for line in
              run("turn", "none", "--json", input="kkmppscd\n2\n").stdout.splitlines()]
    assert events[2]["event"] == "move"
    assert events[2]["graded"]["decisions"][0]["chosen"] == advice.options[1].as_dict()
