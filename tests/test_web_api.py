"""The JSON API of `sabords serve` is the command line's `--json`, through Starlette's TestClient.

Every endpoint answers; the values of /api/advise, /api/score, /api/ev, /api/winprob and
/api/turn equal the command line's `--json` for random positions of every card and every
objective (points, need N, win); every bad input of the command line gets a 4xx whose error is
data (its kind, the parameter, the values) and a sentence in the web's words, the library's
sentence the command line words with its flag (the fuzz lists of tests/test_cli_fuzz.py and the
bad inputs of tests/test_cli.py), never a 500 and never a flag; no query parameter reaches the
file system; requests are limited in size; the caches are bounded; the OpenAPI description is
served; the web stands beside the command line (no import of it); /api/scores gives the page
the rules of the scoreboard.
"""

from __future__ import annotations

import json
import random
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from solver.advice.play import Phase, TurnPlay
from solver.rules import CARD_IDS, CARDS, Rules, rules_with
from solver.web import create_app
from solver.web.api import ENDPOINTS
from solver.web.application import ASSETS
from solver.web.cache import BoundedCache
from solver.web.params import Limits
from solver.web.serve import phone_url, qr_lines, settings_env, url_of
from solver.web.settings import Settings

from .conftest import CliResult
from .test_cli_fuzz import CARDS as FUZZ_CARDS
from .test_cli_fuzz import DICE as FUZZ_DICE
from .test_cli_fuzz import NUMBERS as FUZZ_NUMBERS
from .test_cli_fuzz import VARIANTS as FUZZ_VARIANTS
from .test_cli_fuzz import fast_solves  # noqa: F401  (a fixture)

Run = Callable[..., CliResult]
Query = list[tuple[str, str]]
PREFIX = "sabords: error: "
FACE_LETTERS = "kmpscd"
TARGET = Rules().target


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    """The application with the default settings, started (the default tables read)."""
    with TestClient(create_app(Settings())) as c:
        yield c


def cli_json(sabords: Run, *args: str) -> dict[str, Any]:
    result = sabords(*args, "--json")
    assert result.exit_code == 0, (args, result.stderr)
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def cli_args(command: str, query: Query) -> list[str]:
    """The command line of the query: positional arguments, flags, options."""
    positional = {"advise": ("card", "dice"), "score": ("card", "dice"), "turn": ("card",)}
    named = dict(query)
    args = [command, *(named[p] for p in positional.get(command, ()) if p in named)]
    for name, value in query:
        if name in positional.get(command, ()):
            continue
        flag = "--" + name.replace("_", "-")
        if name in ("first", "final", "sorceress_used", "exact"):
            if value == "true":
                args.append(flag)
        else:
            args += [flag, value]
    return args


def get(client: TestClient, path: str, query: Query) -> Any:
    response = client.get(path, params=query)
    assert response.status_code == 200, (path, query, response.text)
    assert response.headers["content-type"] == "application/json"
    return response.json()


# -- every endpoint answers ------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(ASSETS))
def test_every_asset_of_the_page_is_served_by_the_package(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    name = ASSETS[path][0]
    stored = (Path(__file__).parent.parent / "solver" / "web" / "static" / name).read_bytes()
    if path == "/sw.js":  # the service worker names the files it keeps and their digest
        assert b"__ASSET" not in response.content
        kept = json.loads(response.text.split("const FILES = ")[1].split(";")[0])
        assert kept == sorted(p for p in ASSETS if p != "/sw.js")
    else:
        assert response.content == stored
    assert "default-src 'self'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"


def test_the_service_worker_never_keeps_an_answer_of_the_api(client: TestClient) -> None:
    """The worker keeps the page's own files (no /api/ path), and lets every /api/ request go
    to the network; a new set of files makes a new worker (its digest)."""
    worker = client.get("/sw.js").text
    kept = json.loads(worker.split("const FILES = ")[1].split(";")[0])
    assert kept and not [p for p in kept if p.startswith("/api/")]
    assert 'if (url.pathname.startsWith("/api/")) return;' in worker
    assert 'const VERSION = "' in worker and "__ASSETS_DIGEST__" not in worker
    manifest = client.get("/manifest.webmanifest")
    assert manifest.headers["content-type"] == "application/manifest+json"
    icons = {i["sizes"] for i in manifest.json()["icons"]}
    assert {"192x192", "512x512"} <= icons
    for icon in manifest.json()["icons"]:
        assert client.get(icon["src"]).status_code == 200


def test_the_page_loads_nothing_from_elsewhere(client: TestClient) -> None:
    page = client.get("/").text
    scripts = [client.get(p).text for p in ASSETS if p.endswith(".js")]
    for text in (page, *scripts, client.get("/app.css").text):
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text and "//cdn" not in text
    # every module a script imports is an asset
    import re

    for text in scripts:
        for module in re.findall(r'from "\./([\w.]+)"', text):
            assert f"/{module}" in ASSETS, module


@pytest.mark.parametrize(("path", "query"), [
    ("/api/advise", [("card", "captain"), ("dice", "kkmmmpsc")]),
    ("/api/score", [("card", "none"), ("dice", "ccccsssd")]),
    ("/api/ev", []),
    ("/api/winprob", [("me", "0"), ("opp", "0")]),
    ("/api/turn", [("card", "captain"), ("entry", "kkmmmpsc")]),
    ("/api/rules", [("variant", "keep_one=off")]),
    ("/api/meta", []),
    ("/api/openapi.json", []),
    ("/api/health", []),
])
def test_every_endpoint_answers_json(client: TestClient, path: str, query: Query) -> None:
    assert get(client, path, query)


def test_meta_describes_the_cards_and_the_deck(client: TestClient) -> None:
    meta = get(client, "/api/meta", [])
    assert [c["id"] for c in meta["cards"]] == list(CARD_IDS)
    assert sum(c["count"] for c in meta["cards"]) == meta["deck_size"] == 35
    assert {c["id"]: c["count"] for c in meta["cards"]} == {c: CARDS[c].count for c in CARD_IDS}
    assert meta["rules_hash"] == Rules().hash
    assert meta["letters"]["default"] == FACE_LETTERS


def test_the_openapi_description_lists_every_endpoint_and_parameter(client: TestClient) -> None:
    spec = get(client, "/api/openapi.json", [])
    assert spec["openapi"].startswith("3.1")
    for endpoint in ENDPOINTS:
        operation = spec["paths"][endpoint.path]["get"]
        described = {p["name"]: p for p in operation["parameters"]}
        assert list(described) == [p.name for p in endpoint.params]
        for p in endpoint.params:
            assert described[p.name]["description"].strip(), (endpoint.path, p.name)
            assert described[p.name]["required"] is p.required
        assert {"200", "400", "422"} <= set(operation["responses"])
    assert "/api/meta" in spec["paths"] and "/api/health" in spec["paths"]


# -- the values are the command line's --------------------------------------------------------


def random_dice(rng: random.Random) -> str:
    return "".join(rng.choice(FACE_LETTERS) for _ in range(8))


def random_position(rng: random.Random, card: str) -> Query:
    dice = random_dice(rng)
    query: Query = [("card", card), ("dice", dice)]
    first = rng.random() < 0.3
    if first:
        query.append(("first", "true"))
    if card == "sorceress" and not first and rng.random() < 0.5:
        query.append(("sorceress_used", "true"))
    if card == "chest" and not first and rng.random() < 0.7:
        kept = [d for d in dice if d != "k" and rng.random() < 0.5]
        if kept:
            query.append(("chest", "".join(kept)))
    return query


def random_goal(rng: random.Random, objective: str) -> Query:
    if objective == "need":
        return [("need", str(100 * rng.randrange(0, 31)))]
    if objective == "win":
        if rng.random() < 0.25:  # a final turn: the opponent reached the target
            opp = TARGET + 100 * rng.randrange(0, 6)
            return [("me", str(100 * rng.randrange(0, TARGET // 100))), ("opp", str(opp)),
                    ("final", "true")]
        return [("me", str(100 * rng.randrange(0, TARGET // 100))),
                ("opp", str(100 * rng.randrange(0, TARGET // 100)))]
    return []


@pytest.mark.parametrize("objective", ["points", "need", "win"])
@pytest.mark.parametrize("card", CARD_IDS)
def test_advise_is_the_command_lines_json(client: TestClient, sabords: Run, card: str,
                                          objective: str) -> None:
    rng = random.Random(f"advise {card} {objective}")
    for _ in range(3 if objective == "points" else 1):
        query = random_position(rng, card) + random_goal(rng, objective)
        if rng.random() < 0.3:
            query.append(("top", str(rng.randrange(0, 5))))
        web = get(client, "/api/advise", query)
        assert web == cli_json(sabords, *cli_args("advise", query)), query
        assert web["objective"] == objective
        assert web["rules_hash"] == Rules().hash


@pytest.mark.parametrize("card", CARD_IDS)
def test_score_is_the_command_lines_json(client: TestClient, sabords: Run, card: str) -> None:
    rng = random.Random(f"score {card}")
    for _ in range(3):
        query = random_position(rng, card)
        query = [(k, v) for k, v in query if k != "sorceress_used"]
        assert get(client, "/api/score", query) == cli_json(sabords, *cli_args("score", query))


@pytest.mark.parametrize("query", [
    [], [("card", "captain"), ("card", "pirate"), ("card", "battle4")],
    [("card", "skull2"), ("exact", "true")], [("card", "t"), ("notation", "braille")],
])
def test_ev_is_the_command_lines_json(client: TestClient, sabords: Run, query: Query) -> None:
    assert get(client, "/api/ev", query) == cli_json(sabords, *cli_args("ev", query))


def test_winprob_is_the_command_lines_json(client: TestClient, sabords: Run) -> None:
    rng = random.Random("winprob")
    for _ in range(4):
        query = random_goal(rng, "win")
        assert get(client, "/api/winprob", query) == cli_json(sabords,
                                                              *cli_args("winprob", query))


def random_turn(rng: random.Random, card: str, goal: Query) -> list[str]:
    """The entries of a turn played to its end with random dice and random legal moves (the
    library's TurnPlay keeps it legal), as a player types them."""
    from solver.advice.goals import goal_of
    from solver.web.solutions import Solutions

    g = dict(goal)
    the_goal = goal_of(Rules(), int(g["need"]) if "need" in g else None,
                       int(g["me"]) if "me" in g else None,
                       [int(g["opp"])] if "opp" in g else [], final=g.get("final") == "true")
    play = TurnPlay(CARDS[card], Rules(),
                    Solutions(Settings(warm=False)).goal(CARDS[card], Rules(), the_goal))
    entries: list[str] = []
    while play.phase is not Phase.OVER and len(entries) < 40:
        if play.phase is Phase.MOVE:
            assert play.advice is not None
            options = play.advice.options
            option = options[0] if rng.random() < 0.5 else rng.choice(options)
            entry = ("" if option is options[0] else "stop" if option.action == "stop"
                     else f"reroll {option.reroll}" if option.sorceress else f"keep {option.keep}")
            play.choose(entry)
        else:
            n = play.rolled() if play.roll else 8
            entry = "".join(rng.choice(FACE_LETTERS) for _ in range(n))
            play.enter_roll(entry)
        entries.append(entry)
    return entries


@pytest.mark.parametrize(("card", "objective"), [
    *((c, "points") for c in CARD_IDS), ("captain", "need"), ("sorceress", "need"),
    ("none", "win"), ("chest", "win"),
])
def test_a_turn_is_the_command_lines_last_json_line(client: TestClient, sabords: Run,
                                                    card: str, objective: str) -> None:
    rng = random.Random(f"turn {card} {objective}")
    goal = random_goal(rng, objective)
    entries = random_turn(rng, card, goal)
    query = [("card", card), *goal, *(("entry", e) for e in entries)]
    web = get(client, "/api/turn", query)
    result = sabords(*cli_args("turn", [("card", card), *goal]), "--json",
                     input="".join(e + "\n" for e in entries))
    assert result.exit_code == 0, result.stderr
    last = json.loads(result.stdout.splitlines()[-1])
    assert last.pop("event") in ("over", "move", "roll")
    assert web == last
    assert web["phase"] == "over" or len(entries) == 40


def test_a_refused_entry_of_a_turn_is_the_command_lines_message(client: TestClient,
                                                                sabords: Run) -> None:
    entries = ["kkmmmpsc", "keep kk"]
    response = client.get("/api/turn", params=[("card", "captain"),
                                               *(("entry", e) for e in entries)])
    assert response.status_code == 422
    result = sabords("turn", "captain", "--json", input="kkmmmpsc\nkeep kk\nquit\n")
    errors = [json.loads(line) for line in result.stdout.splitlines()
              if json.loads(line)["event"] == "error"]
    assert response.json() == {"error": errors[0]["error"], "entry": 1, "kind": "skulls_stay",
                               "param": "move", "values": {"dice": "kkmmmpsc"}}


# -- bad input: the command line's line, a 4xx, never a 500 -----------------------------------

BAD = [  # the bad inputs of tests/test_cli.py, and more
    ("/api/score", [("card", "none"), ("dice", "kkmpp")]),
    ("/api/score", [("card", "none"), ("dice", "kkmppscz")]),
    ("/api/score", [("card", "wizard"), ("dice", "kkmppscd")]),
    ("/api/score", [("card", "none"), ("dice", "kkmppscd"), ("variant", "wizard=on")]),
    ("/api/score", [("card", "none"), ("dice", "kkmppscd"), ("variant", "keep_one=maybe")]),
    ("/api/score", [("card", "none"), ("dice", "kkmppscd"), ("variant", "target=150")]),
    ("/api/score", [("card", "none"), ("dice", "kkmppscd"), ("variant", "keep_one")]),
    ("/api/score", [("card", "chest"), ("dice", "kkkcccdm"), ("chest", "ssd")]),
    ("/api/score", [("card", "chest"), ("dice", "kkkcccdm"), ("chest", "kc")]),
    ("/api/score", [("card", "captain"), ("dice", "kkkcccdm"), ("chest", "cc")]),
    ("/api/score", [("card", "chest"), ("dice", "kkkcccdm"), ("chest", "cc"), ("first", "true")]),
    ("/api/score", [("card", "chest"), ("dice", "kkkcccdm"), ("chest", "q")]),
    ("/api/score", [("card", "none"), ("dice", "-1 coin 9 sword")]),
    ("/api/score", [("card", "none"), ("dice", "kkmppscd"), ("variant", "keep_one=on"),
                    ("variant", "keep_one=off")]),
    ("/api/score", [("card", "none"), ("dice", "kkmppscd"), ("notation", "morse")]),
    ("/api/advise", [("card", "none"), ("dice", "kkmppscd"), ("need", "abc")]),
    ("/api/advise", [("card", "none"), ("dice", "kkmppscd"), ("need", "150")]),
    ("/api/advise", [("card", "none"), ("dice", "kkmppscd"), ("need", "100"), ("me", "0"),
                     ("opp", "0")]),
    ("/api/advise", [("card", "none"), ("dice", "kkmppscd"), ("me", "0")]),
    ("/api/advise", [("card", "none"), ("dice", "kkmppscd"), ("top", "-1")]),
    ("/api/advise", [("card", "none"), ("dice", "kkmppscd"), ("me", "6000"), ("opp", "0")]),
    ("/api/advise", [("card", "captain"), ("dice", "ccmmmspk"), ("me", "4000"), ("opp", "5000"),
                     ("final", "true")]),
    ("/api/advise", [("card", "none"), ("dice", "kkmppscd"), ("sorceress_used", "true")]),
    ("/api/advise", [("card", "none")]),
    ("/api/winprob", [("me", "-100"), ("opp", "0")]),
    ("/api/winprob", [("me", "0"), ("opp", "6000")]),
    ("/api/winprob", [("me", "0"), ("opp", "0"), ("variant", "target=100000000")]),
    ("/api/winprob", [("me", "0")]),
    ("/api/ev", [("card", "wizard")]),
    ("/api/ev", [("card", "z" * 300)]),
    ("/api/turn", [("card", "none"), ("need", "-100")]),
]


def _command(path: str) -> str:
    return {"/api/advise": "advise", "/api/score": "score", "/api/ev": "ev",
            "/api/winprob": "winprob", "/api/turn": "turn"}[path]


ERROR_KEYS = {"error", "kind", "param", "values"}


def assert_same_refusal(body: dict[str, Any], status: int, cli: CliResult) -> None:
    """The web's refusal is the command line's, each in its own words: both refuse; the web's
    error is data with a sentence that names no command-line flag; a refusal of the library
    (422, 503) is the library's sentence, which the command line words with its flag."""
    from solver.cli.wording import SUBJECT_WORDS

    assert cli.exit_code == 2, cli.stdout
    assert set(body) - {"entry"} == ERROR_KEYS, body
    words = body["error"]
    assert words and "\n" not in words and "Traceback" not in words
    assert " --" not in f" {words}" and "sabords " not in words and "--help" not in words, words
    line = cli.stderr.strip().removeprefix(PREFIX)
    if status == 422:  # the library's error: the same sentence, or the command line's own
        assert (line == SUBJECT_WORDS[body["param"]] if body["param"] in SUBJECT_WORDS
                else line.endswith(words)), (line, words)


@pytest.mark.parametrize(("path", "query"), BAD)
def test_bad_input_is_a_4xx_with_the_librarys_data_in_the_webs_words(
        client: TestClient, sabords: Run, path: str, query: Query) -> None:
    response = client.get(path, params=query)
    assert response.status_code in (400, 422), response.text
    assert response.headers["cache-control"] == "no-store"
    cli = sabords(*cli_args(_command(path), query))
    assert_same_refusal(response.json(), response.status_code, cli)


@pytest.mark.parametrize("digit", ["፰", "⓶", "⓼", "᧚"])
@pytest.mark.parametrize(("path", "query"), [
    ("/api/score", [("card", "none"), ("dice", "{d} coin kkkkk")]),
    ("/api/score", [("card", "chest"), ("dice", "kkkccccd"), ("chest", "{d} coin")]),
    ("/api/advise", [("card", "none"), ("dice", "{d} coin kkkkk")]),
    ("/api/turn", [("card", "none"), ("entry", "{d} coin kkkkk")]),
    ("/api/turn", [("card", "none"), ("entry", "kkmppscd"), ("entry", "{d} p")]),
])
def test_a_count_in_other_digits_is_a_4xx_not_a_500(
        client: TestClient, sabords: Run, digit: str, path: str, query: Query) -> None:
    """Digits `int()` cannot read ('፰', '⓶', '᧚') made a 500; they are the dice
    notation's refusal, in one line, as on the command line."""
    query = [(name, value.format(d=digit)) for name, value in query]
    response = client.get(path, params=query)
    assert 400 <= response.status_code < 500, response.text
    body = response.json()
    assert set(body) - {"entry"} == ERROR_KEYS and "0-9" in body["error"], body
    if path != "/api/turn":
        assert_same_refusal(body, response.status_code, sabords(*cli_args(_command(path), query)))


@pytest.mark.parametrize(("query", "kind", "param", "words"), [
    ([("card", "none"), ("dice", "kkmpp")], "dice_count", "dice",
     "'kkmpp' has 5 dice, expected 8"),
    ([("card", "wizard"), ("dice", "kkmppscd")], "unknown_card", "card", "unknown card 'wizard'"),
    ([("card", "none"), ("dice", "kkmppscd"), ("need", "abc")], "not_a_whole_number", "need",
     "the points needed: 'abc' is not a whole number"),
    ([("card", "none"), ("dice", "kkmppscd"), ("top", "-1")], "below_minimum", "top",
     "the number of options shown: -1 is below 0"),
    ([("card", "none")], "missing", "dice", "the dice is missing"),
    ([("card", "none"), ("dice", "kkmppscd"), ("sorceress_used", "maybe")], "not_true_or_false",
     "sorceress_used", "'maybe' is not true or false"),
    ([("card", "none"), ("dice", "kkmppscd"), ("me", "6000"), ("opp", "0")], "game_over", "me",
     "your total 6000 is at or above the target 6000"),
    ([("card", "none"), ("dice", "kkmppscd"), ("variant", "keep_one=maybe")], "variant_value",
     "variant", "variant 'keep_one' takes on or off, not 'maybe'"),
])
def test_an_error_is_its_kind_its_parameter_and_the_webs_words(
        client: TestClient, query: Query, kind: str, param: str, words: str) -> None:
    """The web words its errors itself, the library's errors as the library does (in the
    game's terms), and hands the data a page words in French: {error, kind, param, values}.
    Before, the web served the command line's lines: "--need: ...", "(see 'sabords advise
    --help')"."""
    body = client.get("/api/advise", params=query).json()
    assert (body["kind"], body["param"]) == (kind, param), body
    assert words in body["error"], body["error"]
    assert "--" not in body["error"] and "sabords" not in body["error"]


@pytest.mark.parametrize(("path", "query"), [
    ("/api/winprob", "me=0&opp=0&final="),
    ("/api/advise", "card=sorceress&dice=kkmmppsc&sorceress_used="),
    ("/api/advise", "card=none&dice=kkmmppsc&first=%20"),
    ("/api/score", "card=none&dice=kkmmppsc&first="),
    ("/api/ev", "card=none&exact="),
    ("/api/scores", "total=0&total=0&sudden="),
])
def test_an_empty_flag_is_refused_like_any_value_it_cannot_read(
        client: TestClient, path: str, query: str) -> None:
    """`final=` was read as false: an empty value says neither true nor false, and is
    refused as `final=maybe` is (a flag left out is false)."""
    response = client.get(f"{path}?{query}")
    assert response.status_code == 400, response.text
    body = response.json()
    name = query.rsplit("&", 1)[1].split("=")[0]
    assert (body["kind"], body["param"]) == ("not_true_or_false", name), body
    assert body["error"].endswith("is not true or false"), body
    left_out = client.get(f"{path}?{query.rsplit('&', 1)[0]}")
    assert left_out.status_code == 200, left_out.text


def test_a_table_the_server_lacks_is_a_503_that_names_no_command(tmp_path: Path) -> None:
    with TestClient(create_app(Settings(tables_dir=tmp_path, warm=False))) as c:
        response = c.get("/api/advise", params=[("card", "captain"), ("dice", "kkmmppsc")])
    assert response.status_code == 503
    body = response.json()
    assert body["kind"] == "stale_table" and body["param"] == "tables"
    assert body["values"]["table"] == "turn" and body["values"]["card"] == "captain"
    assert body["values"]["rules_hash"] == Rules().hash
    assert body["error"].startswith("this server has no turn table of the captain card for "
                                    "these rules")
    assert "sabords" not in body["error"] and "make tables" not in body["error"]
    assert body["values"]["file"] == "turn-captain.msgpack"


@pytest.mark.parametrize(("path", "query", "file"), [
    ("/api/advise", "card=captain&dice=kkmmppsc", "turn-captain.msgpack"),
    ("/api/winprob", "me=0&opp=0", "game-2.msgpack"),
    ("/api/winprob", "me=0&opp=0&opp=0", "game-3.msgpack"),
    ("/api/ev", "card=none", "turn-none.msgpack"),
])
@pytest.mark.parametrize("state", ["missing", "truncated", "other"])
def test_no_answer_carries_a_path_of_the_servers_disk(
        tmp_path: Path, path: str, query: str, file: str, state: str) -> None:
    """A 503 for a table missing showed the server's cache path in `values.path`: a table
    missing, truncated or not a table is named by its file's name, nowhere by its path."""
    tables = tmp_path / "server-secret"
    tables.mkdir()
    if state != "missing":
        source = Path(__file__).resolve().parent.parent / "tables" / file
        data = source.read_bytes()
        (tables / file).write_bytes(data[: len(data) // 2] if state == "truncated"
                                    else b"\x00" * 64)
    settings = Settings(tables_dir=tables, game_tables_dir=tables, warm=False,
                        solve_on_demand=False)
    with TestClient(create_app(settings)) as c:
        response = c.get(f"{path}?{query}")
    assert response.status_code == 503, response.text
    body = response.json()
    assert body["kind"] == "stale_table" and body["values"]["file"] == file, body
    assert str(tmp_path) not in response.text and "server-secret" not in response.text
    assert "path" not in body["values"]


def fuzz_query(draw: st.DrawFn, path: str) -> Query:
    """A query for `path` from the fuzz lists of the command line (tests/test_cli_fuzz.py)."""
    values = {"card": FUZZ_CARDS, "dice": FUZZ_DICE, "chest": FUZZ_DICE, "need": FUZZ_NUMBERS,
              "me": FUZZ_NUMBERS, "opp": FUZZ_NUMBERS, "top": FUZZ_NUMBERS,
              "variant": FUZZ_VARIANTS, "notation": ["default", "braille", "morse"],
              "first": ["true", "false"], "final": ["true", "false"],
              "sorceress_used": ["true", "false"], "exact": ["true", "false"]}
    endpoint = next(e for e in ENDPOINTS if e.path == path)
    query: Query = []
    for param in endpoint.params:
        if param.name in values and (param.required or draw(st.integers(0, 3)) == 0):
            query.append((param.name, draw(st.sampled_from(values[param.name]))))
    return query


@pytest.fixture(scope="module")
def cold_app() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(warm=False))) as c:
        yield c


@pytest.mark.parametrize("path", ["/api/advise", "/api/score", "/api/ev", "/api/winprob"])
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_fuzzed_query_is_the_command_lines_answer(
        path: str, data: st.DataObject, cold_app: TestClient, sabords: Run,
        fast_solves: None) -> None:  # noqa: F811
    query = data.draw(st.composite(lambda draw: fuzz_query(draw, path))(), label="query")
    # solved in this process, as the command line solves (its solves replaced by the fuzz's)
    cold_app.app.state.solutions.__init__(  # type: ignore[attr-defined]
        Settings(warm=False, solve_process=False))
    response = cold_app.get(path, params=query)
    cli = sabords(*cli_args(_command(path), query), "--json")
    assert response.status_code != 500
    if cli.exit_code == 0:
        assert response.status_code == 200, (query, response.text)
        assert response.json() == json.loads(cli.stdout)
        return
    message = cli.stderr.strip().removeprefix(PREFIX)
    assert_same_refusal(response.json(), response.status_code, cli)
    # a table the fuzz does not solve (tests/test_cli_fuzz.py) is the server's 503
    stale = "not solved in the fuzz" in message
    assert response.status_code == 503 if stale else 400 <= response.status_code < 500


@settings(max_examples=60)
@given(names=st.lists(st.sampled_from(["card", "dice", "need", "entry", "variant", "top", "me",
                                       "first", "x", "tables", "", "%00"]), max_size=6),
       values=st.lists(st.text(max_size=12), max_size=6),
       path=st.sampled_from([e.path for e in ENDPOINTS]))
def test_no_query_is_a_500(names: list[str], values: list[str], path: str) -> None:
    with TestClient(create_app(Settings(warm=False))) as c:
        response = c.get(path, params=list(zip(names, values, strict=False)))
    assert response.status_code in (200, 400, 422), response.text
    assert response.headers["content-type"] == "application/json"
    if response.status_code != 200:
        assert set(response.json()) - {"entry"} == ERROR_KEYS
        assert "Traceback" not in response.text and "\n" not in response.json()["error"]


@pytest.mark.parametrize(("raw", "status"), [
    ("card=%ff%fe&dice=kkmppscd", 422), ("card=none&dice=%00%00", 422), ("card&dice", 422),
    ("=&=", 400), ("card=none&dice=kkmppscd&need=1e3", 400), ("card=none&dice=k%kmppscd", 422),
    ("card=none&dice=kkmppscd&&&", 200),  # empty pairs are no parameters
])
def test_malformed_queries_are_answered(client: TestClient, raw: str, status: int) -> None:
    response = client.get(f"/api/advise?{raw}")
    assert response.status_code == status, response.text
    if status != 200:
        assert "\n" not in response.json()["error"]


def test_unknown_and_repeated_parameters_are_refused(client: TestClient) -> None:
    unknown = client.get("/api/advise", params=[("card", "none"), ("dice", "kkmppscd"),
                                                ("tables", "/tmp")])
    assert unknown.status_code == 400
    assert unknown.json()["error"].startswith("unknown parameter 'tables': /api/advise takes ")
    twice = client.get("/api/advise", params=[("card", "none"), ("card", "captain"),
                                              ("dice", "kkmppscd")])
    assert twice.json() == {"error": "parameter 'card' is given twice: give it once",
                            "kind": "given_twice", "param": "card", "values": {}}


# -- the file system, the sizes, the caches -----------------------------------------------------


def test_no_query_parameter_reaches_the_file_system(client: TestClient,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins
    import io
    import os

    marker = "evil-marker"
    touched: list[str] = []
    for module, name in ((builtins, "open"), (io, "open"), (os, "open"), (os, "stat"),
                         (os, "listdir"), (os, "scandir")):
        real = getattr(module, name)

        def spy(path: Any, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            touched.append(str(path))
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    paths = [f"/tmp/{marker}", f"../../{marker}", f"{marker}.msgpack", f"~/{marker}"]
    for endpoint in ENDPOINTS:
        for param in endpoint.params:
            for value in paths:
                client.get(endpoint.path, params=[(param.name, value)])
        for name in ("tables", "game_tables", "out", "cache"):  # options the server keeps
            assert client.get(endpoint.path, params=[(name, f"/tmp/{marker}")]).status_code == 400
    assert [p for p in touched if marker in p] == []
    # a default-rules answer, once the tables are read at start-up, opens no file at all
    touched.clear()
    get(client, "/api/advise", [("card", "coin"), ("dice", "kkmmpscd"), ("need", "700")])
    get(client, "/api/advise", [("card", "none"), ("dice", "kkmmpscd"), ("me", "100"),
                                ("opp", "200")])
    assert touched == []


def test_requests_are_limited_in_size(client: TestClient) -> None:
    limits = Limits()
    long = client.get("/api/score", params=[("card", "none"), ("dice", "k" * limits.query)])
    assert long.status_code == 414
    assert long.json()["error"].startswith("the query is ")
    assert client.get("/api/" + "x" * 300).status_code == 414
    body = client.request("GET", "/api/ev", content=b"x" * 10)
    assert body.status_code == 413 and "body" in body.json()["error"]
    assert client.post("/api/ev", content=b"{}").status_code == 405
    variants = client.get("/api/rules", params=[("variant", "keep_one=on")] * (limits.values + 1))
    assert variants.status_code == 400
    assert variants.json()["error"] == (f"parameter 'variant' is given more than "
                                        f"{limits.values} times")
    entries = client.get("/api/turn", params=[("card", "none")]
                         + [("entry", "kkmmppsc")] * (limits.entries + 1))
    assert entries.status_code == 400


def test_a_huge_input_is_refused_in_one_short_line(client: TestClient) -> None:
    for query in ([("card", "none"), ("dice", "k" * 10_000)],
                  [("card", "z" * 10_000), ("dice", "kkmmppsc")],
                  [("card", "none"), ("dice", "kkmmppsc"), ("need", "9" * 10_000)]):
        response = client.get("/api/advise", params=query)
        assert response.status_code == 414
        assert len(response.json()["error"]) < 100


def test_the_caches_stay_bounded_under_distinct_questions() -> None:
    settings_ = Settings(goal_solutions=2, answers=3, warm=False)
    with TestClient(create_app(settings_)) as c:
        for need in range(0, 1000, 100):
            get(c, "/api/advise", [("card", "none"), ("dice", "kkmmpscd"), ("need", str(need))])
        caches = get(c, "/api/health", [])["caches"]
    assert caches["goal_solutions"]["entries"] == 2
    assert caches["answers"]["entries"] == 3
    assert caches["goal_solutions"]["misses"] == 10


def test_a_bounded_cache_drops_the_least_recently_used() -> None:
    cache: BoundedCache[int, int] = BoundedCache(2)
    assert cache.get(1, lambda: 10) == 10
    assert cache.get(2, lambda: 20) == 20
    assert cache.get(1, lambda: -1) == 10  # a hit: 1 is now the most recent
    cache.get(3, lambda: 30)
    assert 2 not in cache and 1 in cache and len(cache) == 2
    with pytest.raises(ValueError):
        BoundedCache(0)


def test_a_bounded_cache_computes_a_missing_value_once_and_never_caches_an_error() -> None:
    cache: BoundedCache[str, int] = BoundedCache(4)
    calls: list[int] = []
    gate = threading.Event()

    def make() -> int:
        gate.wait(5)
        calls.append(1)
        return 7

    threads = [threading.Thread(target=cache.get, args=("k", make)) for _ in range(8)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join(10)
    assert calls == [1] and cache.get("k", lambda: 0) == 7

    def fail() -> int:
        raise ValueError("no")

    with pytest.raises(ValueError):
        cache.get("e", fail)
    assert "e" not in cache


# -- serving -----------------------------------------------------------------------------------


def test_the_application_is_importable_for_another_asgi_server(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.web

    env = settings_env(Settings(max_game_target=3000, answers=9, warm=False))
    assert env["SABORDS_WEB_MAX_GAME_TARGET"] == "3000" and env["SABORDS_WEB_WARM"] == "0"
    assert Settings.from_env(env) == Settings(max_game_target=3000, answers=9, warm=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(solver.web, "_app", None)
    app = solver.web.app
    assert app.state.settings == Settings(max_game_target=3000, answers=9, warm=False)
    assert solver.web.app is app
    from starlette.applications import Starlette
    from uvicorn.importer import import_from_string

    assert isinstance(app, Starlette)
    assert import_from_string("solver.web:app") is app  # what `uvicorn solver.web:app` loads


def test_the_address_for_phones_and_its_qr_code() -> None:
    assert url_of("192.168.1.20", 8000) == "http://192.168.1.20:8000/"
    assert url_of("::1", 80) == "http://[::1]:80/"
    assert phone_url("127.0.0.1", 8000) is None and phone_url("localhost", 8000) is None
    assert phone_url("10.0.0.5", 8080) == "http://10.0.0.5:8080/"
    lines = qr_lines("http://10.0.0.5:8080/")
    assert len(lines) >= 12 and len({len(line) for line in lines}) == 1  # a square block
    assert set("".join(lines)) <= set(" ▀▄█")


def test_serve_refuses_a_port_in_use_in_one_line(sabords: Run) -> None:
    from .conftest import assert_one_line_error

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert_one_line_error(sabords("serve", "--port", str(port)),
                              f"cannot listen on http://127.0.0.1:{port}/")
    assert_one_line_error(sabords("serve", "--log-level", "loud"), "--log-level takes one of")
    assert_one_line_error(sabords("serve", "--max-game-target", "150"), "--max-game-target")


def test_connections_have_nagle_off_even_on_a_socket_bound_like_uvicorns_workers() -> None:
    """With several workers uvicorn binds `socket.socket(AF_INET)` (protocol number 0), on
    which asyncio leaves Nagle's algorithm on: each keep-alive answer then waited 40 ms for
    the client's delayed ACK. The server's protocol turns it off on every connection."""
    import asyncio

    from uvicorn.config import Config
    from uvicorn.server import ServerState

    from solver.web.serve import NoDelayH11Protocol

    async def accepted_nodelay() -> int:
        listening = socket.socket(socket.AF_INET)  # as uvicorn's Config.bind_socket does
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        config = Config(app=create_app(Settings(warm=False)), log_level="warning")
        made: list[NoDelayH11Protocol] = []

        def factory() -> NoDelayH11Protocol:
            made.append(NoDelayH11Protocol(config, ServerState(), {}))
            return made[-1]

        server = await asyncio.get_running_loop().create_server(factory, sock=listening)
        _, writer = await asyncio.open_connection(*listening.getsockname())
        while not made:
            await asyncio.sleep(0.01)
        sock = made[0].transport.get_extra_info("socket")
        value: int = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        writer.close()
        server.close()
        return value

    assert asyncio.run(accepted_nodelay()) != 0


def readme_requests() -> list[tuple[str, str]]:
    """The `$ curl -s 'URL'` lines of the console blocks of the README and of the pages of
    `docs/` (the API's examples are in docs/web.md), and the JSON after each."""
    import re

    root = Path(__file__).parent.parent
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        lines = block.splitlines()
        for line, answer in zip(lines, lines[1:], strict=False):
            m = re.fullmatch(r"\$ curl -s '(http://127\.0\.0\.1:8000(/api/[^']*))'", line)
            if m:
                found.append((m.group(2), answer))
    return found


@pytest.mark.parametrize(("url", "answer"), readme_requests())
def test_the_readme_api_examples_are_what_the_server_answers(client: TestClient, url: str,
                                                            answer: str) -> None:
    response = client.get(url)
    assert response.json() == json.loads(answer)
    assert response.text == answer  # byte for byte, as the page shows it


def test_the_readme_shows_an_example_of_every_answering_endpoint() -> None:
    shown = {url.split("?")[0] for url, _ in readme_requests()}
    assert shown >= {e.path for e in ENDPOINTS} - {"/api/turn"}


# -- the web beside the command line ------------------------------------------------------------


def _imports(path: Path) -> set[str]:
    """The modules of the package `path` imports (relative imports resolved)."""
    import ast

    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


ROOT = Path(__file__).resolve().parent.parent


def test_the_web_stands_beside_the_command_line() -> None:
    """No module of the web imports the command line (it read its queries with the command
    line's click parameters and worded its errors with the command line's lines), and the
    command line imports the web only where `sabords serve` starts it."""
    web = sorted((ROOT / "solver" / "web").glob("*.py"))
    cli = sorted((ROOT / "solver" / "cli").glob("*.py"))
    assert web and cli
    for path in web:
        assert not {m for m in _imports(path) if m.startswith("solver.cli")}, path.name
        assert "click" not in _imports(path) and "typer" not in _imports(path), path.name
    to_web = {p.name for p in cli if any(m.startswith("solver.web") for m in _imports(p))}
    assert to_web == {"serve.py"}


def test_each_input_is_defined_once_for_the_command_line_and_the_web() -> None:
    """The command line's options and the web's parameters are built from the same inputs
    (solver.advice.inputs): the same help, and the web's description is the input's."""
    import typer.main

    from solver.cli import app
    from solver.web.openapi import openapi

    spec = openapi()
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    checked = 0
    for endpoint in ENDPOINTS:
        described = {p["name"]: p["description"]
                     for p in spec["paths"][endpoint.path]["get"]["parameters"]}
        options = {p.name: p for p in commands[endpoint.command].params} if endpoint.command \
            else {}
        for the_input in endpoint.params:
            assert described[the_input.name] == the_input.help
            option = options.get(the_input.name) or options.get(f"as_{the_input.name}")
            if option is not None and getattr(option, "help", None):
                assert option.help.startswith(the_input.help), (endpoint.path, the_input.name)
                checked += 1
    assert checked >= 20


def test_rules_has_its_own_parameters() -> None:
    from solver.web.api import RULES

    assert [p.name for p in RULES.params] == ["variant"] and RULES.command is None


# -- the scoreboard: the page computes no rule --------------------------------------------------


@pytest.mark.parametrize(("query", "expected"), [
    ([("total", "2000"), ("total", "5500")], {"final": False, "beat": None, "leader": 1,
                                               "goal": {"me": 2000, "opp": [5500],
                                                        "final": False, "trigger": None,
                                                        "sudden": False}}),
    ([("total", "4000"), ("total", "6200"), ("mover", "0")],
     {"final": True, "beat": 2300, "tie": 2200, "goal": {"me": 4000, "opp": [6200],
                                                          "final": True, "trigger": 2,
                                                          "sudden": False}}),
    ([("total", "4000"), ("total", "6200"), ("variant", "ties=trigger")],
     {"final": True, "beat": 2300, "tie": None}),
    # three players, the win question of the mover (player 1 of its own view), the trigger
    # numbered from it: the totals in seat order after it are 100, then the trigger's 6000
    ([("total", "100"), ("total", "6000"), ("total", "5900"), ("mover", "2")],
     {"final": True, "beat": 200, "leader": 1,
      "goal": {"me": 5900, "opp": [100, 6000], "final": True, "trigger": 3,
               "sudden": False}}),
])
def test_scores_say_whose_turn_is_final_and_what_beats_the_leader(
        client: TestClient, query: Query, expected: dict[str, Any]) -> None:
    body = get(client, "/api/scores", query)
    assert {k: body[k] for k in expected} == expected


def test_scores_after_a_turn_floor_the_totals_at_zero(client: TestClient) -> None:
    lost = get(client, "/api/scores", [("total", "200"), ("total", "3000"), ("points", "-500")])
    assert lost["totals"] == [0, 3000] and lost["mover"] == 1
    island = get(client, "/api/scores", [("total", "200"), ("total", "300"), ("total", "1000"),
                                          ("mover", "0"), ("deduction", "400")])
    assert island["totals"] == [200, 0, 600] and island["before"]["totals"] == [200, 300, 1000]
    bad = client.get("/api/scores", params=[("total", "150")])
    assert bad.status_code == 422 and bad.json()["kind"] == "not_points"
    both = client.get("/api/scores", params=[("total", "0"), ("points", "100"),
                                             ("deduction", "100")])
    assert both.status_code == 422 and both.json()["kind"] == "turn_outcome"


def test_the_page_computes_no_rule() -> None:
    """The page's scripts hold no number of the rules (the dice, the points' unit, the target,
    the deck, a tie share, a tolerance), no floor of a total, no test of the final turn and no
    guess of a Sorceress move from the letters: the API gives them (the turn's
    `dice_expected` and `rolled`, the options' `sorceress` and `ties`, /api/scores, /api/meta).
    Before: 8 dice in six places, `opp >= target`, `Math.max(0, ...)` twice, `+ 100`, 1e-9
    and `o.reroll.includes("k")`."""
    import re

    from solver.rules import DECK_SIZE, NUM_DICE, UNIT, Rules

    rule_numbers = {NUM_DICE, UNIT, Rules().target, DECK_SIZE}
    for name in ("app", "core", "practice", "words", "faces"):
        text = (ROOT / "solver" / "web" / "static" / f"{name}.js").read_text(encoding="utf-8")
        # comments may name the rules and strings word them: only the code is read
        code = re.sub(r"//[^\n]*|`(?:[^`\\]|\\.)*`|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\\n]|\\.)*'",
                      lambda m: "" if m.group(0).startswith("//") else '""', text)
        code = code.replace("100 * p", "")  # a percentage, not the points' unit
        numbers = {float(n) for n in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?:e-?\d+)?", code)}
        assert not numbers & rule_numbers, (name, sorted(numbers & rule_numbers))
        assert not re.search(r"(?<![\w.])(?:0\.5|1e-\d+)\b", code), name
        assert not re.search(r"Math\.max\(0,[^;]*(?:total|points|deduction)", code), name
        assert ">= target" not in code and "reroll.includes" not in code, name


@pytest.mark.parametrize(("encoded", "text", "why"), [
    ("%D9%A3%D9%A0%D9%A0", "٣٠٠", "is not written with the digits 0-9"),
    ("1_000", "1_000", "is not a whole number written with the digits 0-9"),
    ("%2B100", "+100", "has a plus sign"),
    ("%20100", " 100", "has spaces or line breaks around it"),
    ("%0A6000", "\n6000", "has spaces or line breaks around it"),
    ("6000%0D%0A", "6000\r\n", "has spaces or line breaks around it"),
])
@pytest.mark.parametrize(("path", "query", "param", "flag"), [
    ("/api/winprob", "me={n}&opp=0", "me", "--me"),
    ("/api/winprob", "me=0&opp={n}", "opp", "--opp"),
    ("/api/advise", "card=none&dice=mmmpppsc&me={n}&opp=0", "me", "--me"),
    ("/api/advise", "card=none&dice=ccccmmpk&need={n}", "need", "--need"),
    ("/api/turn", "card=none&me=0&opp={n}", "opp", "--opp"),
    ("/api/scores", "total={n}&total=0", "total", None),
    ("/api/scores", "total=0&total=0&points={n}", "points", None),
])
def test_a_number_is_read_by_the_web_as_by_the_command_line(
        client: TestClient, sabords: Run, path: str, query: str, param: str, flag: str | None,
        encoded: str, text: str, why: str) -> None:
    """`total=٣٠٠`, `me=%0A6000`, `me=6000%0D%0A`, `opp=1_000` were read as numbers (Python's
    `int`), where dice counts refuse `٣`: every number is read by one reader now, a 400 whose
    data says why, as the command line refuses it."""
    response = client.get(f"{path}?{query.format(n=encoded)}")
    assert response.status_code == 400, response.text
    body = response.json()
    assert (body["kind"], body["param"], body["values"]["value"]) == (
        "not_a_whole_number", param, text), body
    assert f"{text!r} {why}" in body["error"], body
    if flag is not None:
        args = cli_args(_command(path), [(k, v.replace("{n}", text)) for k, v in
                                         (pair.split("=") for pair in query.split("&"))])
        line = sabords(*args).stderr
        assert f"Invalid value for '{flag}': {text!r} {why}" in line, line



@pytest.mark.parametrize(("opps", "variant"), [  # (smaller games are solved on demand)
    (3, "ties=trigger"), (3, "target=4000"), (4, "target=3000")])
def test_a_game_without_its_three_player_table_is_a_503_about_the_question_asked(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, opps: int, variant: str) -> None:
    """Four and five players under rules without a three-player table: the 503 says the
    question's game is played on the three-player table, which the server lacks, and what
    making it takes (values.making, from the cost model), in English and French; /api/rules
    says which numbers of players the server computes winning for under those rules, and what
    making the three-player table takes, so that the page says it before anyone asks."""
    from solver.limits import duration, duration_words, game_cost

    monkeypatch.setenv("SABORDS_CACHE_DIR", str(tmp_path / "cache"))
    players = opps + 1
    target = rules_with([variant]).target
    seconds, memory = game_cost(target, 3)
    value, unit = duration(seconds)
    making = {"seconds": round(seconds), "gb": round(memory / 1e9, 1),
              "duration": {"value": value, "unit": unit}}
    query = [("me", "0"), *[("opp", "0")] * opps, ("variant", variant)]
    with TestClient(create_app(Settings(warm=False))) as c:
        en = c.get("/api/winprob", params=query)
        fr = c.get("/api/winprob", params=query, headers={"accept-language": "fr"})
        win = c.get("/api/rules", params=[("variant", variant)]).json()["win"]
        default = c.get("/api/rules").json()["win"]
    assert en.status_code == fr.status_code == 503
    body = en.json()
    assert body["values"]["making"] == making and body["values"]["file"] == "game-3.msgpack"
    assert body["values"].get("players") == (players if players > 3 else None), body
    took = f"(about {duration_words(seconds)} and {making['gb']:.1f} GB on a 2-core"
    assert took in body["error"], body
    french = fr.json()["error"]
    assert "environ" in french and "Go sur une machine à 2 cœurs" in french, french
    if players > 3:
        assert body["error"].startswith(f"winning a game of {players} players is computed here "
                                        "on the table of the 3-player game"), body
        assert french.startswith(f"La victoire à {players} joueurs se calcule ici sur la table "
                                 "de la partie à 3 joueurs"), french
    assert win == {"players": [2], "making": making, "how": {"2": {"exact": True}}}
    assert (default["players"], default["making"]) == ([2, 3, 4, 5], None)
    assert [default["how"][str(n)]["exact"] for n in (2, 3, 4, 5)] == [True, True, False, False]


def test_the_rules_say_how_each_number_of_players_is_answered_as_win_answers_do() -> None:
    """/api/rules's `how`: exact or near-optimal for each number of players, and for
    near-optimal chances what was measured, as the win answers say it (its `measured`
    entries kept to their kind, players and target): the page says it before the answer
    comes, and the words do not change when it comes (a winprob answer's `exact` and `loss`)."""
    with TestClient(create_app(Settings(warm=False))) as c:
        how = c.get("/api/rules").json()["win"]["how"]
        for opps in (3, 4):
            game = c.get("/api/winprob", params=[("me", "0"), *[("opp", "0")] * opps]).json()
            said = how[str(opps + 1)]
            assert said["exact"] is game["exact"] is False
            assert said["loss"]["measured"] == [
                {k: m[k] for k in ("kind", "players", "target")} for m in game["loss"]["measured"]]
            assert said["loss"]["measured"]
            assert {k: v for k, v in said["loss"].items() if k != "measured"} == \
                {k: v for k, v in game["loss"].items() if k != "measured"}
        assert how["2"] == how["3"] == {"exact": True}


@pytest.mark.parametrize("kind", ["too long", "dangling", "below a dangling link", "loop"])
def test_an_unusable_cache_directory_answers_every_endpoint(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: str) -> None:
    """A cache directory whose name the file system cannot hold made every answer that prunes
    the cache after a solve a 500 (`cache_entries` looked inside it); a symbolic link to
    nothing was "File exists". The server answers from what it solves, caching nothing."""
    import warnings

    from .test_cli_errors import _unusable_cache

    env, _, says = _unusable_cache(kind, tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    queries = ["/api/ev?card=none&variant=keep_one%3Doff",
               "/api/advise?card=none&dice=kkmmppsc&variant=keep_one%3Doff",
               "/api/winprob?me=0&opp=0&variant=target%3D100",
               "/api/rules?variant=target%3D100"]
    with warnings.catch_warnings(record=True) as caught, \
            TestClient(create_app(Settings(warm=False, solve_process=False))) as c:
        warnings.simplefilter("always")
        statuses = [c.get(q).status_code for q in queries]
        four = c.get("/api/winprob?me=0&opp=0&opp=0&opp=0&variant=target%3D100")
    assert statuses == [200] * len(queries)
    # four players at 100 (solved on demand in a second or two, on the turn tables the two
    # players' game solved just before): answered, exactly, and not cached
    assert four.status_code == 200 and four.json()["exact"] is True
    said = {str(w.message).split(": ", 1)[1] for w in caught
            if type(w.message).__name__ == "CacheWarning" and ".msgpack" in str(w.message)}
    assert said and all(says in reason for reason in said), said


def test_a_game_beyond_the_servers_largest_target_is_503_as_docs_web_md_says(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`/api/winprob` beyond `--max-game-target` answered 422 (an input the rules refuse),
    where docs/web.md says 503: it is the server's limit, not a rule (another server answers
    the same query), as a table it lacks or would solve with solves off is. A table already
    on disk is read whatever its target."""
    monkeypatch.setenv("SABORDS_CACHE_DIR", str(tmp_path))
    with TestClient(create_app(Settings(warm=False, max_game_target=300))) as c:
        beyond = [c.get(path, params=query) for path, query in (
            ("/api/winprob", [("me", "0"), ("opp", "0"), ("variant", "target=400")]),
            ("/api/advise", [("card", "none"), ("dice", "kkmmppsc"), ("me", "0"), ("opp", "0"),
                             ("variant", "target=400")]))]
        french = c.get("/api/winprob", params=[("me", "0"), ("opp", "0"),
                                                ("variant", "target=400")],
                       headers={"accept-language": "fr"})
        on_disk = c.get("/api/winprob", params=[("me", "0"), ("opp", "0")])
        rules = c.get("/api/rules", params=[("variant", "target=400")]).json()
    for response in beyond:
        assert response.status_code == 503, response.text
        body = response.json()
        assert (body["kind"], body["values"]) == (
            "game_too_large", {"target": 400, "max_game_target": 300}), body
    assert french.status_code == 503 and french.json()["error"].startswith(
        "Ce serveur ne calcule la partie que jusqu'à l'objectif 300")
    assert on_disk.status_code == 200  # the default rules' table, target 6000, is read
    assert rules["win"]["players"] == []
    web_md = (Path(__file__).parent.parent / "docs" / "web.md").read_text(encoding="utf-8")
    assert '`--max-game-target` (beyond it, 503 with `"kind": "game_too_large"`' in " ".join(
        web_md.split())


def test_totals_that_do_not_say_who_triggered_the_final_round_name_the_query_s_parameter(
        client: TestClient) -> None:
    """The refusal says how to say who reached the target first in the API's own terms
    (`trigger`), not the command line's `--trigger N`; the command line's says its option."""
    query = [("me", "5600"), ("opp", "4800"), ("opp", "5900"), ("opp", "9200"),
             ("final", "true")]
    answer = client.get("/api/winprob", params=query)
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert body["kind"] == "which_trigger"
    assert body["error"].endswith("(player 2 or 4): say who with trigger=N (trigger=4 if "
                                  "nobody was pushed back)"), body["error"]
    assert "--" not in body["error"]
    assert client.get("/api/winprob", params=[*query, ("trigger", "4")]).status_code == 200
