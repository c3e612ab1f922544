"""A whole game on paper: the game record, a documented and versioned JSON format
(docs/record.md).

A record holds the rules of its game (and their hash), the players in seat order, and every
turn in the order it was played: its player, and the turn's outcome as the scoreboard takes
it (:meth:`solver.rules.scoreboard.Scoreboard.after`: the turn's ``points``, with ``magic``
for pirate magic, or Skull Island's ``deduction``); and, where they are known, the card drawn
and each roll: the 8 dice showing after it, and the decision that followed (``stop``, or the
non-skull dice kept for the next roll, ``keep``, with ``sorceress`` when the Sorceress's skull
die is rolled too; with the chest card the dice kept are the dice on the chest). A roll with no
decision ends the turn (a bust, Skull Island, a roll of the island); Skull Island's later rolls
may be left out, its deduction says how it ended. A turn may be its outcome alone.

``{"format": "mille-sabords game record", "version": 1, "rules": {...}, "rules_hash": "...",
"players": [{"name": "Anne"}, {"name": "Bruno", "policy": "win"}], "start": {"totals": [0, 0],
"mover": 0}, "turns": [{"player": 0, "card": "captain", "rolls": [{"dice": "kmmmpscc",
"keep": "mmmcc"}, {"dice": "kmmmmscc", "stop": true}], "points": 1600}, {"player": 1,
"points": 300}]}``

Optional: ``start`` (the totals in seat order and the player to move when the record begins;
default every total 0, the first player to move), ``need`` (a record of one player: each turn
played for at least that many points; without it, for points), ``source`` (a word on where
the record comes from), ``seed``.

:func:`read_record` reads a record (text or data) and refuses anything else in one
:class:`RecordError` naming what is wrong (not JSON, another format or a later version, a
field missing or malformed, rules whose hash is not theirs, a turn out of seat order or after
the end of the game); :meth:`GameRecord.as_dict` writes one (canonical: dice in the default
letters, fields in the documented order). Whether the dice and the decisions are legal, and
give the points the record says, is the review's to check (:mod:`solver.advice.review`
replays each turn through :class:`solver.advice.play.TurnPlay`).

Pure Python (the rules only).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import RulesError, SabordsError, quote
from .dice import EMPTY, Dice
from .rulebook import NUM_DICE, UNIT, Card, Rules, floor_total, get_card
from .scoreboard import MAX_POINTS, Scoreboard
from .standing import MAX_PLAYERS

RECORD_FORMAT = "mille-sabords game record"
"""The ``format`` of every record: what tells a record from any other JSON."""
RECORD_VERSION = 1
"""The version this code writes and reads (a record of a later version is refused)."""
MAX_TURNS = 1000
"""The most turns a record holds (a game to the largest target takes a few hundred)."""
MAX_ROLLS = 64
"""The most rolls of one turn (a turn at the table has far fewer)."""
MAX_NAME = 40
"""The longest player's name, in characters."""


class RecordError(RulesError):
    """Something that is not a game record this version reads, or a record whose turns are
    no game (module docstring); ``values["where"]`` names the place (``turn 3, roll 2``)."""

    default_kind = "record"

    def __init__(self, message: str, *, kind: str | None = None,
                 values: Mapping[str, Any] | None = None, subject: str = "record") -> None:
        super().__init__(message, subject=subject, kind=kind, values=values)


@dataclass(frozen=True)
class Roll:
    """A roll of a turn: the 8 dice showing after it, and the decision that followed."""

    dice: Dice
    stop: bool = False
    """The player stopped."""
    keep: Dice | None = None
    """A reroll: the non-skull dice that stayed on the table (None: no reroll)."""
    sorceress: bool = False
    """The reroll rolled a skull die too: the Sorceress's."""

    @property
    def decided(self) -> bool:
        """A decision followed this roll (a stop or a reroll)."""
        return self.stop or self.keep is not None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dice": str(self.dice)}
        if self.stop:
            out["stop"] = True
        if self.keep is not None:
            out["keep"] = str(self.keep)
            if self.sorceress:
                out["sorceress"] = True
        return out


@dataclass(frozen=True)
class Turn:
    """A turn of the record: its player (a seat), its outcome, and what is known of it."""

    player: int
    points: int | None = None
    """The turn's points for its player (a stop, a bust; None: Skull Island)."""
    deduction: int | None = None
    """Skull Island: the points every other player loses (None: points)."""
    magic: bool = False
    """Pirate magic: the player wins at once."""
    card: Card | None = None
    rolls: tuple[Roll, ...] = ()

    @property
    def alone(self) -> bool:
        """The turn is its outcome alone (no rolls)."""
        return not self.rolls

    def after(self, board: Scoreboard) -> Scoreboard:
        """The scoreboard after this turn."""
        return board.after(points=self.points, deduction=self.deduction, magic=self.magic)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player}
        if self.card is not None:
            out["card"] = self.card.id
        if self.rolls:
            out["rolls"] = [roll.as_dict() for roll in self.rolls]
        if self.deduction is not None:
            out["deduction"] = self.deduction
        else:
            out["points"] = self.points
        if self.magic:
            out["magic"] = True
        return out


@dataclass(frozen=True)
class Player:
    """A player of the record: a name, and the policy of a simulated player."""

    name: str
    policy: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, **({} if self.policy is None else {"policy": self.policy})}


@dataclass(frozen=True)
class GameRecord:
    """A game as it was played (module docstring)."""

    rules: Rules
    players: tuple[Player, ...]
    turns: tuple[Turn, ...]
    start: tuple[int, ...] | None = None
    """The totals in seat order when the record begins (None: every total 0)."""
    mover: int = 0
    """The player to move first."""
    need: int | None = None
    """One player: each turn is played for at least this many points (None: for points)."""
    source: str | None = None
    seed: int | None = None

    @property
    def totals(self) -> tuple[int, ...]:
        """The totals when the record begins."""
        return self.start if self.start is not None else (0,) * len(self.players)

    @property
    def solo(self) -> bool:
        """A record of one player: turns played for points (or a need), no game to win."""
        return len(self.players) == 1

    def boards(self) -> list[Scoreboard]:
        """The scoreboard before each turn, then the one after the last (the game of one
        player is never over: its totals are the turns' points added, never below 0)."""
        board = Scoreboard(self.rules, self.totals, self.mover)
        out = [board]
        for turn in self.turns:
            if self.solo:
                board = Scoreboard(self.rules, (solo_total(board.totals[0], turn),))
            else:
                board = turn.after(board)
            out.append(board)
        return out

    def as_dict(self) -> dict[str, Any]:
        """The record as its JSON (module docstring)."""
        out: dict[str, Any] = {"format": RECORD_FORMAT, "version": RECORD_VERSION,
                               "rules": self.rules.as_dict(), "rules_hash": self.rules.hash,
                               "players": [p.as_dict() for p in self.players]}
        if self.start is not None or self.mover:
            out["start"] = {"totals": list(self.totals), "mover": self.mover}
        if self.need is not None:
            out["need"] = self.need
        if self.source is not None:
            out["source"] = self.source
        if self.seed is not None:
            out["seed"] = self.seed
        out["turns"] = [turn.as_dict() for turn in self.turns]
        return out

    def dumps(self) -> str:
        """The record as JSON text, one line."""
        return json.dumps(self.as_dict(), ensure_ascii=False, separators=(",", ":"))


def solo_total(total: int, turn: Turn) -> int:
    """The total of a record of one player after `turn`: its points added, never below 0
    (Skull Island deducts from nobody)."""
    return int(floor_total(total + (turn.points or 0)))


# -- reading ---------------------------------------------------------------------------------


def _refuse(where: str, what: str, kind: str = "record_field", **values: Any) -> RecordError:
    return RecordError(f"{where}: {what}" if where else what, kind=kind,
                       values={"where": where, **values})


def _obj(data: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise _refuse(where, f"expected an object {{...}}, not {_kind(data)}")
    return data


def _list(data: Any, where: str, most: int) -> Sequence[Any]:
    if not isinstance(data, list):
        raise _refuse(where, f"expected a list [...], not {_kind(data)}")
    if len(data) > most:
        raise _refuse(where, f"{len(data)} entries, at most {most}", kind="record_size",
                      most=most)
    return data


def _int(data: Any, where: str) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise _refuse(where, f"expected a whole number, not {_kind(data)}")
    return data


def _bool(data: Any, where: str) -> bool:
    if not isinstance(data, bool):
        raise _refuse(where, f"expected true or false, not {_kind(data)}")
    return data


def _str(data: Any, where: str) -> str:
    if not isinstance(data, str):
        raise _refuse(where, f"expected a text, not {_kind(data)}")
    return data


def _kind(data: Any) -> str:
    """What a JSON value is, in a few words, with the value when short."""
    names = {dict: "an object", list: "a list", str: "a text", bool: "true or false",
             type(None): "null", int: "a number", float: "a number"}
    name = next((v for t, v in names.items() if type(data) is t), type(data).__name__)
    if isinstance(data, dict | list):
        return name
    return f"{name} {quote(data)}"


def _known(data: Mapping[str, Any], where: str, fields: Sequence[str]) -> None:
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise _refuse(where, f"unknown field {quote(unknown[0])} (a record of this version "
                             f"has {', '.join(fields)})", kind="record_unknown_field",
                      field=unknown[0])


def _dice(text: Any, where: str) -> Dice:
    try:
        return Dice.parse(_str(text, where), NUM_DICE)
    except SabordsError as exc:
        raise RecordError(f"{where}: {exc.message}", kind=exc.kind,
                          values={**exc.values, "where": where}) from None


def _keep(text: Any, where: str) -> Dice:
    given = _str(text, where)
    try:
        keep = Dice.parse(given, None) if given.strip() else EMPTY
    except SabordsError as exc:
        raise RecordError(f"{where}: {exc.message}", kind=exc.kind,
                          values={**exc.values, "where": where}) from None
    if keep.skulls:
        raise _refuse(where, "the dice kept are the non-skull dice (skull dice stay on the "
                             "table; the Sorceress's skull rerolled is \"sorceress\": true)")
    return keep


ROLL_FIELDS = ("dice", "stop", "keep", "sorceress")
TURN_FIELDS = ("player", "card", "rolls", "points", "deduction", "magic")
RECORD_FIELDS = ("format", "version", "rules", "rules_hash", "players", "start", "need",
                 "source", "seed", "turns")


def _roll(data: Any, where: str) -> Roll:
    d = _obj(data, where)
    _known(d, where, ROLL_FIELDS)
    if "dice" not in d:
        raise _refuse(where, "the dice showing after the roll are missing (\"dice\")")
    dice = _dice(d["dice"], f"{where}, dice")
    stop = _bool(d["stop"], f"{where}, stop") if "stop" in d else False
    keep = _keep(d["keep"], f"{where}, keep") if "keep" in d else None
    sorceress = _bool(d["sorceress"], f"{where}, sorceress") if "sorceress" in d else False
    if stop and keep is not None:
        raise _refuse(where, "a roll is followed by one decision: stop, or keep dice and "
                             "reroll the others, not both")
    if sorceress and keep is None:
        raise _refuse(where, "\"sorceress\" says a reroll used her: give the dice kept "
                             "(\"keep\")")
    return Roll(dice, stop, keep, sorceress)


def _turn(data: Any, where: str, players: int) -> Turn:
    d = _obj(data, where)
    _known(d, where, TURN_FIELDS)
    if "player" not in d:
        raise _refuse(where, "whose turn it is is missing (\"player\", a seat from 0)")
    player = _int(d["player"], f"{where}, player")
    if not 0 <= player < players:
        raise _refuse(f"{where}, player", f"a seat from 0 to {players - 1}, not {player}",
                      kind="record_player", player=player, players=players)
    card = None
    if "card" in d:
        try:
            card = get_card(_str(d["card"], f"{where}, card"))
        except SabordsError as exc:
            raise RecordError(f"{where}, card: {exc.message}", kind=exc.kind,
                              values={**exc.values, "where": where}) from None
    rolls = tuple(_roll(r, f"{where}, roll {k + 1}")
                  for k, r in enumerate(_list(d.get("rolls", []), f"{where}, rolls",
                                              MAX_ROLLS)))
    if rolls and card is None:
        raise _refuse(where, "rolls without the card drawn (\"card\")")
    if ("points" in d) == ("deduction" in d):
        raise _refuse(where, "a turn ends with its points (\"points\") or with Skull Island's "
                             "deduction (\"deduction\"): give one of them",
                      kind="record_outcome")
    points = _int(d["points"], f"{where}, points") if "points" in d else None
    deduction = _int(d["deduction"], f"{where}, deduction") if "deduction" in d else None
    magic = _bool(d["magic"], f"{where}, magic") if "magic" in d else False
    if magic and points is None:
        raise _refuse(where, "pirate magic ends a turn with points, not a deduction",
                      kind="record_outcome")
    for value, name in ((points, "points"), (deduction, "deduction")):
        if value is not None and value % UNIT:
            raise _refuse(f"{where}, {name}", f"a multiple of {UNIT}, not {value}",
                          kind="not_points", value=value, unit=UNIT, signed=True)
    return Turn(player, points, deduction, magic, card, rolls)


def _players(data: Any) -> tuple[Player, ...]:
    items = _list(data, "players", MAX_PLAYERS)
    if not items:
        raise _refuse("players", "a game has at least one player", kind="record_players")
    out = []
    for i, item in enumerate(items):
        where = f"player {i + 1}"
        d = _obj(item, where)
        _known(d, where, ("name", "policy"))
        name = _str(d.get("name", f"Player {i + 1}"), f"{where}, name").strip()
        if not name or len(name) > MAX_NAME:
            raise _refuse(f"{where}, name", f"1 to {MAX_NAME} characters, not {quote(name)}")
        policy = _str(d["policy"], f"{where}, policy") if "policy" in d else None
        out.append(Player(name, policy))
    return tuple(out)


def _rules(data: Mapping[str, Any]) -> Rules:
    if "rules" not in data or "rules_hash" not in data:
        raise _refuse("", "a record names its rules and their hash (\"rules\", "
                          "\"rules_hash\")", kind="record_rules")
    try:
        rules = Rules.from_dict(dict(_obj(data["rules"], "rules")))
    except SabordsError as exc:
        if isinstance(exc, RecordError):
            raise
        raise RecordError(f"rules: {exc.message}", kind=exc.kind,
                          values={**exc.values, "where": "rules"}) from None
    except TypeError:
        raise _refuse("rules", "not the rules of a game") from None
    given = _str(data["rules_hash"], "rules_hash")
    if given != rules.hash:
        raise _refuse("rules_hash", f"{quote(given)} is not the hash of the record's rules "
                                    f"({rules.hash}): the rules were edited, or the record "
                                    f"was made by another version", kind="record_rules_hash",
                      given=given, hash=rules.hash)
    return rules


def read_record(source: str | bytes | Mapping[str, Any]) -> GameRecord:
    """The game record of `source` (its JSON text, or the data it reads into), checked as far
    as the rules of the scoreboard go (module docstring); else one :class:`RecordError`."""
    if isinstance(source, bytes | str):
        try:
            text = source.decode("utf-8") if isinstance(source, bytes) else source
        except UnicodeDecodeError:
            raise _refuse("", "not a game record: not UTF-8 text",
                          kind="not_a_record") from None
        if not text.strip():
            raise _refuse("", "not a game record: the input is empty", kind="not_a_record")
        try:
            data: Any = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            where = (f" (line {exc.lineno}, column {exc.colno}: {exc.msg})"
                     if isinstance(exc, json.JSONDecodeError) else "")
            raise _refuse("", f"not a game record: not JSON{where}",
                          kind="not_a_record") from None
    else:
        data = source
    if not isinstance(data, Mapping) or data.get("format") != RECORD_FORMAT:
        raise _refuse("", f"not a game record of mille-sabords (its JSON has no \"format\": "
                          f"\"{RECORD_FORMAT}\")", kind="not_a_record")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise _refuse("version", f"expected a whole number from 1, not {_kind(version)}")
    if version > RECORD_VERSION:
        raise _refuse("", f"a game record of version {version}: this version of "
                          f"mille-sabords reads version {RECORD_VERSION} (a later one "
                          f"wrote it)", kind="record_version", version=version,
                      reads=RECORD_VERSION)
    _known(data, "", RECORD_FIELDS)
    rules = _rules(data)
    players = _players(data.get("players"))
    n = len(players)
    start, mover = None, 0
    if "start" in data:
        d = _obj(data["start"], "start")
        _known(d, "start", ("totals", "mover"))
        totals = [_int(x, "start, totals") for x in _list(d.get("totals"), "start, totals",
                                                            MAX_PLAYERS)]
        if len(totals) != n:
            raise _refuse("start, totals", f"one total a player: {n}, not {len(totals)}")
        start = tuple(totals)
        mover = _int(d.get("mover", 0), "start, mover")
    need = None
    if "need" in data:
        need = _int(data["need"], "need")
        if n != 1 or need < 0 or need % UNIT:
            raise _refuse("need", f"a record of one player plays each turn for a need: a "
                                  f"non-negative multiple of {UNIT} (here {n} players, "
                                  f"need {need})")
    source_word = _str(data["source"], "source") if "source" in data else None
    seed = _int(data["seed"], "seed") if "seed" in data else None
    turns = tuple(_turn(t, f"turn {i + 1}", n)
                  for i, t in enumerate(_list(data.get("turns"), "turns", MAX_TURNS)))
    record = GameRecord(rules, players, turns, start, mover, need, source_word, seed)
    check_turns(record)
    return record


def read_game(source: str | bytes, number: int | None = None) -> GameRecord:
    """The record of a file's text: its one record, or of records one a line (JSON Lines, as
    `sabords game --record` writes several games), the `number`-th from 1 (required when
    there are several)."""
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError:
            raise _refuse("", "not a game record: not UTF-8 text", kind="not_a_record") from None
    lines = [line for line in source.splitlines() if line.strip()]
    several = False
    if len(lines) > 1:
        try:
            several = isinstance(json.loads(lines[0]), dict)
        except (json.JSONDecodeError, RecursionError):
            several = False
    count = len(lines) if several else 1
    if number is None and several:
        raise RecordError(f"the input holds {count} game records, one a line: pick one",
                          kind="record_which", values={"records": count}, subject="game")
    if number is not None and not 1 <= number <= count:
        raise RecordError(f"the input holds {count} game record{'s' if count > 1 else ''}: "
                          f"pick one from 1 to {count}, not {number}", kind="record_which",
                          values={"records": count, "number": number}, subject="game")
    return read_record(lines[(number or 1) - 1] if several else source)


def check_turns(record: GameRecord) -> None:
    """Raise :class:`RecordError` unless the record's turns are a game of its rules as far as
    the scoreboard tells: the start a state of the game, each turn its player's in seat order,
    its points or deduction a scoreboard's, no turn after the end of the game."""
    try:
        board = Scoreboard(record.rules, record.totals, record.mover)
    except SabordsError as exc:
        raise RecordError(f"start: {exc.message}", kind=exc.kind,
                          values={**exc.values, "where": "start"}) from None
    if not record.solo and board.over:
        raise _refuse("start", "the game is over at its start", kind="record_over")
    names = [p.name for p in record.players]
    for i, turn in enumerate(record.turns):
        where = f"turn {i + 1}"
        if record.solo:
            if abs(turn.points or turn.deduction or 0) > MAX_POINTS:
                raise _refuse(where, f"at most {MAX_POINTS} points (no game scores more)",
                              kind="points_range", max=MAX_POINTS)
            board = Scoreboard(record.rules, (solo_total(board.totals[0], turn),))
            continue
        if board.over:
            winners = " and ".join(names[w] for w in board.winners)
            raise _refuse(where, f"the game is over ({winners} won after turn {i}): a record "
                                 f"ends with its game", kind="record_over")
        if turn.player != board.mover:
            raise _refuse(where, f"it is {names[board.mover]}'s turn (seat {board.mover}), "
                                 f"not {names[turn.player]}'s (seat {turn.player}): the "
                                 f"players play in seat order", kind="record_order",
                          player=turn.player, mover=board.mover)
        try:
            board = turn.after(board)
        except SabordsError as exc:
            raise RecordError(f"{where}: {exc.message}", kind=exc.kind,
                              values={**exc.values, "where": where}) from None


__all__ = ["MAX_ROLLS", "MAX_TURNS", "RECORD_FORMAT", "RECORD_VERSION", "GameRecord", "Player",
           "RecordError", "Roll", "Turn", "check_turns", "read_game", "read_record",
           "solo_total"]
