"""A turn at the table: the state machine of `solver.play` and the `sabords turn` helper.

The grading is checked against the advisor itself: each decision's cost is the best option's
value minus the chosen one's at that position (`advise` called independently), the turn's cost
their sum. Skull Island is followed with the rule of RULES.md, "Skull Island": it goes on while
each roll adds a skull and at least 2 non-skull dice remain; each opponent loses 100 a skull
(200 with the captain).
"""

from __future__ import annotations

import io
import json

import pytest

from solver.advisor import Goal, advise, solution_for
from solver.dice import BRAILLE_LETTERS, Dice
from solver.errors import IllegalMoveError
from solver.moves import Reroll, legal_rerolls, move_refusal, sub_multisets
from solver.play import Phase, TurnPlay, new_turn
from solver.rules import CARD_IDS, CARDS, Rules, get_card
from solver.scoring import Outcome, classify_roll

from .conftest import dice, run_sabords

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
    first = advise(CARDS["chest"], dice("kkmpsssc"), RULES, first=True, solution=solution)
    second = advise(CARDS["chest"], dice("kksssscc"), RULES, chest=Dice.parse("sssc"),
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
        ("none", "kkmmppsc", "reroll kc", "skull dice are locked"),
        ("sorceress", "kkkmmpsc", "mmp", "the move must use her"),
        ("none", "kkmmppsc", "ccc", "is not among the dice"),
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


def test_a_win_goal_needs_the_game_table_and_checks_the_totals() -> None:
    with pytest.raises(ValueError, match="totals"):
        Goal(me=100)
    with pytest.raises(ValueError, match="two objectives"):
        Goal(need=500, me=0, opp=0)
    with pytest.raises(ValueError, match="multiple of 100"):
        TurnPlay.new(CARDS["none"], RULES, Goal(me=150, opp=0))


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
    advice = advise(CARDS["chest"], dice("kkmpsssc"), RULES, first=True)
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
    result = run("turn", "sorceress", input="banana\nkkmmppsc\nmmppsc\nreroll ks\nkk\n")
    errors = result.stderr.splitlines()
    assert errors[0].startswith("  ! cannot read 'banana': 'b' (the 1st character) is not a "
                                "die letter")
    assert errors[1] == ("  ! keeping m m p p s c and rolling nothing is not a legal move "
                         "here: a reroll rolls at least 2 dice (one die alone is never rolled)")
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
    assert "Roll 2 (rolled sp; mmééé o stayed)".replace(" o", "o") in out
    assert "Turn over: you stop with mmééééoo: 400 points." in out


@pytest.mark.parametrize("card", CARD_IDS)
def test_every_card_can_start_a_turn(card: str) -> None:
    turn = new_turn(CARDS[card], RULES)
    turn.enter_roll("mmppsscd")
    assert turn.phase is Phase.MOVE and turn.advice is not None
