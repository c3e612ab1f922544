"""The page in a real browser: headless Chromium at a phone's size plays a turn by tapping.

A running `sabords serve` (a subprocess on a free port) serves the page to the system's Chromium
(Debian's `chromium` and `chromium-driver`, driven by selenium) at 390 x 844 with a phone's touch
emulation. The test reads what a person reads (visible text, roles, accessible names), plays a
whole turn with the captain (enter a roll with the face buttons, read the ranked options, take
the best, enter the rerolled dice, stop), checks the sentence and every option shown against the
API's answer for the same position, in English and in French, checks the accessible names of the
face buttons and of every control, and saves the screenshots shown in the README
(docs/web-en.png, docs/web-fr.png, docs/web-graded.png).

Without a browser the test is skipped locally, and fails when the environment variable CI is set
(`.ci/run` installs the browser and sets it).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
WIDTH, HEIGHT = 390, 844
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

FACES_EN = ["skulls", "monkeys", "parrots", "swords", "coins", "diamonds"]
FACES_FR = ["têtes de mort", "singes", "perroquets", "sabres", "pièces d'or", "diamants"]
LETTERS = "kmpscd"


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    return None


def _need_browser() -> None:
    missing = _missing()
    if missing is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"the browser test cannot run in CI: {missing}")
    pytest.skip(missing)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """`sabords serve` on a free port, answering (its default tables read)."""
    _need_browser()
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "solver", "serve", "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(url + "api/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                out = process.stdout.read() if process.stdout else ""
                pytest.fail(f"`sabords serve` did not answer: {out[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout:
            process.stdout.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    _need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--lang=en-US", "--hide-scrollbars", f"--window-size={WIDTH},{HEIGHT}"):
        options.add_argument(arg)
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": WIDTH, "height": HEIGHT, "pixelRatio": 2, "touch": True}})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


def api(server: str, path: str, query: list[tuple[str, str]]) -> Any:
    with urllib.request.urlopen(f"{server}api/{path}?{urllib.parse.urlencode(query)}") as r:
        return json.load(r)


# -- what a person reads -------------------------------------------------------------------------


class Page:
    """The page as a person uses it: buttons by their accessible names, regions by their
    headings, the text shown."""

    def __init__(self, driver: Any) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        self.d = driver
        self.By = By
        self.wait = WebDriverWait(driver, 20)

    def until(self, check: Callable[[], Any], what: str) -> Any:
        return self.wait.until(lambda _: check(), message=what)

    def buttons(self) -> list[Any]:
        return [b for b in self.d.find_elements(self.By.TAG_NAME, "button") if b.is_displayed()]

    def button(self, name: str) -> Any:
        """The one visible button whose accessible name starts with `name`."""
        def find() -> Any:
            found = [b for b in self.buttons() if b.accessible_name.startswith(name)]
            return found[0] if len(found) == 1 and found[0].is_enabled() else None
        return self.until(find, f"a button named {name!r}")

    def tap(self, name: str) -> None:
        button = self.button(name)
        self.d.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()

    def region(self, heading: str) -> Any:
        """The section whose heading is `heading`."""
        xpath = f"//section[.//h2[normalize-space()={json.dumps(heading)}]]"
        return self.until(lambda: next((s for s in self.d.find_elements(self.By.XPATH, xpath)
                                        if s.is_displayed()), None), f"the region {heading!r}")

    def sentence(self, heading: str) -> Any:
        return self.region(heading).find_element(self.By.CSS_SELECTOR, "[role=status]")

    def options(self, heading: str) -> list[str]:
        items = self.region(heading).find_elements(self.By.CSS_SELECTOR, "ol > li")
        return [li.text for li in items]

    def screenshot(self, name: str, heading: str) -> None:
        self.d.execute_script("arguments[0].scrollIntoView({block: 'start'})",
                              self.region(heading))
        time.sleep(0.2)
        DOCS.mkdir(exist_ok=True)
        assert self.d.save_screenshot(str(DOCS / name))

    def errors(self) -> list[str]:
        return [e["message"] for e in self.d.get_log("browser") if e["level"] == "SEVERE"]


def enter_dice(page: Page, dice: str, faces: list[str]) -> None:
    """Tap the face buttons, one tap a die: each button's name says the face and its count."""
    for i, letter in enumerate(dice):
        face = faces[LETTERS.index(letter)]
        page.tap(f"{face}: {dice[:i].count(letter)}, add one")


# -- the oracle: the API's answer, worded as the page words it ----------------------------------

WORDS = {
    "en": {"faces": [("skull", "skulls"), ("monkey", "monkeys"), ("parrot", "parrots"),
                     ("sword", "swords"), ("coin", "coins"), ("diamond", "diamonds")],
           "and": "and", "dice": lambda n: f"{n} {'die' if n == 1 else 'dice'}",
           "keep": "Keep {keep}, reroll {reroll}", "stop": "Stop: {points} points",
           "worth": "{value} points expected", "risk": "{p} % bust risk",
           "regret": "regret {r}", "colon": ": ", "decimal": "."},
    "fr": {"faces": [("tête de mort", "têtes de mort"), ("singe", "singes"),
                     ("perroquet", "perroquets"), ("sabre", "sabres"),
                     ("pièce d'or", "pièces d'or"), ("diamant", "diamants")],
           "and": "et", "dice": lambda n: f"{n} {'dé' if n == 1 else 'dés'}",
           "keep": "Gardez {keep}, relancez {reroll}", "stop": "Arrêtez-vous : {points} points",
           "worth": "{value} points espérés", "risk": "{p} % de risque de tout perdre",
           "regret": "regret {r}", "colon": " : ", "decimal": ","},
}


def dice_words(letters: str, lang: str) -> str:
    w = WORDS[lang]
    items = [f"{letters.count(c)} {w['faces'][i][letters.count(c) != 1]}"
             for i, c in enumerate(LETTERS) if c != "k" and letters.count(c)]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {w['and']} {items[-1]}"


def number(x: float, digits: int, lang: str) -> str:
    return f"{x:.{digits}f}".replace(".", WORDS[lang]["decimal"])


def move_words(advice: dict[str, Any], option: dict[str, Any], lang: str, named: bool) -> str:
    w = WORDS[lang]
    if option["action"] == "stop":
        return str(w["stop"]).format(points=advice["points"])
    rolled = dice_words(option["reroll"], lang) if named else w["dice"](len(option["reroll"]))
    return str(w["keep"]).format(keep=dice_words(option["keep"], lang), reroll=rolled)


def expected_sentence(advice: dict[str, Any], lang: str) -> str:
    w, best = WORDS[lang], advice["options"][0]
    if best["action"] == "stop":
        return move_words(advice, best, lang, False) + "."
    return (move_words(advice, best, lang, False) + str(w["colon"])
            + str(w["worth"]).format(value=number(best["value"], 1, lang)) + ", "
            + str(w["risk"]).format(p=number(100 * best["p_bust"], 1, lang)) + ".")


def expected_option(advice: dict[str, Any], rank: int, lang: str) -> tuple[str, str]:
    """The first two lines of an option as shown: the move, and its figures."""
    w, o = WORDS[lang], advice["options"][rank]
    figures = [str(w["worth"]).format(value=number(o["value"], 1, lang))]
    if o["action"] != "stop":
        figures.append(str(w["risk"]).format(p=number(100 * o["p_bust"], 1, lang)))
    figures.append(str(w["regret"]).format(r=number(o["regret"], 1, lang)))
    return f"{rank + 1}. {move_words(advice, o, lang, True)}", " · ".join(figures)


def check_answer(page: Page, advice: dict[str, Any], lang: str, heading: str) -> None:
    """The sentence and every option shown are the API's answer."""
    page.until(lambda: page.sentence(heading).text == expected_sentence(advice, lang),
               f"the sentence {expected_sentence(advice, lang)!r}")
    shown = page.options(heading)
    assert 0 < len(shown) <= len(advice["options"])
    for rank, text in enumerate(shown):
        lines = text.splitlines()
        assert tuple(lines[:2]) == expected_option(advice, rank, lang), (rank, lines)
        best = advice["options"][rank]["best"]
        assert any(line.startswith("★") for line in lines) == best, (rank, lines)
        ties = [j + 1 for j, o in enumerate(advice["options"])
                if j != rank and abs(o["value"] - advice["options"][rank]["value"]) <= 1e-9]
        tie_word = "tie with" if lang == "en" else "à égalité avec"
        assert any(line.startswith(tie_word) for line in lines) == bool(ties), (rank, lines)


# -- the test -----------------------------------------------------------------------------------


def test_a_turn_played_by_tapping_in_english_and_french(server: str, browser: Any) -> None:
    page = Page(browser)
    browser.get(server)
    page.until(lambda: browser.find_element(page.By.TAG_NAME, "body")
               .get_attribute("data-ready") == "true", "the page ready")
    browser.execute_script("localStorage.clear()")
    browser.refresh()
    page.until(lambda: browser.find_element(page.By.TAG_NAME, "body")
               .get_attribute("data-ready") == "true", "the page ready")
    assert browser.execute_script("return window.innerWidth") == WIDTH
    assert browser.execute_script(  # nothing wider than the phone
        "return document.documentElement.scrollWidth") <= WIDTH

    # The card, picked by its name, and the first roll, tapped face by face.
    from selenium.webdriver.support.ui import Select

    card = browser.find_element(page.By.XPATH, "//label[normalize-space()='Card']")
    select = Select(browser.find_element(page.By.ID, card.get_attribute("for")))
    select.select_by_visible_text("Captain (pirate)")
    first = "kmmmpscc"
    enter_dice(page, first, FACES_EN)
    # every face button announces its face and its count
    names = [b.accessible_name for b in page.buttons()]
    for face, name in enumerate(FACES_EN):
        n = first.count(LETTERS[face])
        assert [x for x in names if x.startswith(f"{name}: ")] == [
            f"{name}: {n}, add one", f"{name}: {n}, take one off"]
    assert "8 of 8 dice" in page.region("Roll 1: the 8 dice showing").text
    page.tap("Advise")

    # The answer: a sentence for the screen reader, the ranked options; all the API's.
    advice = api(server, "advise", [("card", "captain"), ("dice", first), ("first", "true")])
    check_answer(page, advice, "en", "Advice")
    sentence = page.sentence("Advice")
    assert sentence.get_attribute("aria-live") == "polite"
    assert sentence.text == ("Keep 3 monkeys and 2 coins, reroll 2 dice: "
                             f"{advice['options'][0]['value']:.1f} points expected, "
                             f"{100 * advice['options'][0]['p_bust']:.1f} % bust risk.")
    assert f"hash {advice['rules_hash']}" in page.region("Advice").text
    for control in browser.find_elements(page.By.CSS_SELECTOR, "button, input, select"):
        if control.is_displayed():
            assert control.accessible_name.strip(), control.get_attribute("outerHTML")[:200]
    page.screenshot("web-en.png", "Advice")

    # In French: the same answer, worded in French.
    page.tap("Français")
    check_answer(page, advice, "fr", "Conseil")
    page.screenshot("web-fr.png", "Conseil")
    page.tap("English")
    check_answer(page, advice, "en", "Advice")

    # Take the best move, enter only the rerolled dice, stop.
    best = advice["options"][0]
    page.tap(f"Take option 1: {move_words(advice, best, 'en', True)}")
    rerolled = "mc"
    assert len(rerolled) == len(best["reroll"])
    heading = f"Roll 2: the {len(best['reroll'])} rolled dice (or all 8)"
    stays = page.region(heading).text
    assert f"Staying on the table: 1 skull, {dice_words(best['keep'], 'en')}." in stays
    enter_dice(page, rerolled, FACES_EN)
    page.tap("Enter these dice")
    second = "".join(sorted("k" + best["keep"] + rerolled, key=LETTERS.index))
    advice2 = api(server, "advise", [("card", "captain"), ("dice", second)])
    check_answer(page, advice2, "en", "Advice")
    stop = next(i for i, o in enumerate(advice2["options"]) if o["action"] == "stop")
    page.tap(f"Take option {stop + 1}: Stop")

    # The turn graded: each decision, the best one, the cost; the API's grading.
    entries = [first, "", rerolled, "stop"]
    graded = api(server, "turn", [("card", "captain"), *(("entry", e) for e in entries)])
    assert graded["phase"] == "over"
    g = graded["graded"]
    turn = page.region("This turn")
    page.until(lambda: "Turn over" in turn.text, "the end of the turn")
    assert f"Turn over: you stop with {g['points']} points." in turn.text
    decisions = turn.find_elements(page.By.CSS_SELECTOR, "ol > li")
    assert len(decisions) == len(g["decisions"]) == 2
    assert "★ you took the best move" in decisions[0].text
    cost = g["decisions"][1]["cost"]
    assert f"Cost: {cost:.1f} expected points" in decisions[1].text
    assert f"Best move: {move_words(advice2, g['decisions'][1]['best'], 'en', True)}" \
        in decisions[1].text
    assert f"Total cost: {g['total_cost']:.1f} expected points." in turn.text
    page.screenshot("web-graded.png", "This turn")

    # One tap adds the turn's points to the player, and the next player is up.
    page.tap(f"Add {g['points']} points to Player 1")
    board = page.region("Scoreboard")
    assert page.button(f"Player 1: {g['points']} points") is not None
    assert page.button("Player 2: 0 points, playing now") is not None
    assert "Player 1" in board.text
    assert page.errors() == []
