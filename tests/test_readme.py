"""The documentation proves itself: every `$ sabords …` transcript of the README and of the
pages under `docs/` is re-run and must match, and every relative link between them resolves.

A transcript is a ```console block: `$ sabords ARGS` lines, each followed by what the command
prints (stdout; and stderr, where the error line goes, when it fails), and
optionally `$ echo $?` with the exit code. `printf '…' | sabords …` feeds the input. A
command too slow for the suite is listed in SLOW and checked by hand (`make` targets).

The transcripts run in this process through typer's runner, or, with ``SABORDS_INSTALLED``
naming an installed ``sabords`` (``.ci/run`` installs the wheel into a fresh virtual environment
of each Python), as that command in a directory outside the clone.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
"""The pages whose transcripts are re-run: the README and every page of `docs/`."""
INSTALLED_ENV = "SABORDS_INSTALLED"

SLOW: tuple[str, ...] = ()
"""Commands too slow for the suite (none since whole games take seconds)."""

README_COMMANDS = {"advise", "ev", "winprob"}
"""The main job: the README itself shows these, in this order."""

UNTRANSCRIBED = {
    "solve": "writes tables into a directory; `make tables` runs it and a test compares bytes",
    "solve-game": "a solve of seconds to an hour, with progress on a terminal",
    "serve": "a server: its API examples are re-run by tests/test_web_api.py",
    "cache": "lists the machine's own cache directory (a ```text example in docs/caches.md)",
}
"""Commands without a ```console transcript, and why; docs/commands.md still describes each."""


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def transcripts(page: Path = README) -> list[tuple[int, str, str, int | None]]:
    """(line, command, expected output, expected exit code or None) of each transcript."""
    text = page.read_text(encoding="utf-8")
    found: list[tuple[int, str, str, int | None]] = []
    for block in re.finditer(r"```console\n(.*?)```", text, re.S):
        first_line = text[: block.start()].count("\n") + 2
        lines = block.group(1).splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if not line.startswith("$ ") or line == "$ echo $?":
                continue
            command, out = line[2:], []
            start = first_line + i - 1
            while i < len(lines) and not lines[i].startswith("$ "):
                out.append(lines[i])
                i += 1
            code = None
            if i < len(lines) and lines[i] == "$ echo $?":
                code = int(lines[i + 1])
                i += 2
            found.append((start, command, "\n".join(out), code))
    return found


def _commands(page: Path) -> list[str]:
    """The `sabords` commands a page's transcripts run, in order."""
    return [shlex.split(c.split("|")[-1])[1] for _, c, _, _ in transcripts(page)
            if "sabords" in c]


CASES = [(_name(page), *t) for page in PAGES for t in transcripts(page)
         if "sabords " in t[1] and not t[1].startswith(SLOW)]


def test_the_readme_has_transcripts_of_every_command() -> None:
    import typer.main

    from solver.cli import app

    shown = {command for page in PAGES for command in _commands(page)}
    assert {"score", "ev", "advise", "turn", "simulate", "winprob", "game"} <= shown
    # Every command of the command line has a transcript somewhere, or a reason not to.
    every = set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    assert every - shown == set(UNTRANSCRIBED), every - shown
    described = (DOCS / "commands.md").read_text(encoding="utf-8")
    for command in every:
        assert f"`sabords {command}" in described or f"`{command}`" in described, command
    # The README shows the main job first: advise, then ev, then winprob.
    readme = _commands(README)
    assert README_COMMANDS <= set(readme), readme
    firsts = [readme.index(c) for c in ("advise", "ev", "winprob")]
    assert firsts == sorted(firsts), readme


def test_every_page_of_docs_is_linked_from_the_readme() -> None:
    readme = README.read_text(encoding="utf-8")
    for page in sorted(DOCS.glob("*.md")):
        assert f"]({_name(page)})" in readme, _name(page)


def test_the_readme_stays_short() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 300


@pytest.mark.parametrize(("page", "line", "command", "expected", "code"), CASES,
                         ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_transcript_matches_a_real_run(page: str, line: int, command: str, expected: str,
                                       code: int | None, tmp_path: Path) -> None:
    where = f"{page}:{line}"
    stdin = None
    if "|" in command:
        feed, command = (part.strip() for part in command.split("|", 1))
        printf = shlex.split(feed)
        assert printf[0] == "printf", f"{where}: only printf feeds input"
        stdin = printf[1].encode().decode("unicode_escape")
    args = shlex.split(command)
    assert args[0] == "sabords"
    installed = os.environ.get(INSTALLED_ENV)
    if installed:
        exit_code, stdout, stderr = _run_installed(installed, args[1:], stdin, tmp_path)
    else:
        from .conftest import run_sabords

        result = run_sabords(*args[1:], input=stdin)
        exit_code, stdout, stderr = result.exit_code, result.stdout, result.stderr
    # A run that succeeds shows stdout (stderr carries only progress bars, which a terminal
    # redraws); a refused one shows its error line.
    shown = (stdout if exit_code == 0 else stdout + stderr).rstrip("\n")
    assert shown == expected, f"{where}: `{command}` prints something else now"
    assert exit_code == (code if code is not None else 0), stderr


# -- links between the pages -------------------------------------------------------------------

LINK_PAGES = [README, *sorted(DOCS.rglob("*.md"))]


def _prose(text: str) -> str:
    """The text outside fenced code blocks (their lines blanked, so line numbers stay)."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else line)
    return "\n".join(out)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces
    as hyphens, a repeated one numbered (-1, -2...)."""
    seen: dict[str, int] = {}
    found = set()
    for m in re.finditer(r"^#{1,6} +(.+?) *#*$", _prose(page.read_text(encoding="utf-8")),
                         re.M):
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(page: Path) -> list[tuple[int, str]]:
    """(line, target) of each relative link of a page: markdown links and images, and the
    `src` and `href` of its HTML, outside code blocks."""
    text = _prose(page.read_text(encoding="utf-8"))
    found = []
    for m in re.finditer(r"\]\(([^)\s]+)\)|(?:src|href)=\"([^\"]+)\"", text):
        target = m.group(1) or m.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not ours to check
            continue
        found.append((text[: m.start()].count("\n") + 1, target))
    return found


LINKS = [(_name(page), line, target) for page in LINK_PAGES for line, target in links(page)]


def test_the_pages_link_to_each_other() -> None:
    assert len(LINKS) >= 40
    assert {"README.md", "docs/commands.md", "docs/web.md"} <= {page for page, _, _ in LINKS}


@pytest.mark.parametrize(("page", "line", "target"), LINKS,
                         ids=[f"{p}:{n}:{t}" for p, n, t in LINKS])
def test_every_relative_link_resolves(page: str, line: int, target: str) -> None:
    path, _, anchor = target.partition("#")
    linked = (ROOT / page).parent / path if path else ROOT / page
    assert linked.exists(), f"{page}:{line}: {target} is not a file"
    if anchor and linked.suffix == ".md":
        assert anchor in anchors(linked), f"{page}:{line}: {target}: no such heading"


def _run_installed(command: str, args: list[str], stdin: str | None,
                   where: Path) -> tuple[int, str, str]:
    """Run the installed `command` in `where` (outside the clone), with a cache of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SABORDS_")}
    env.update(SABORDS_CACHE_DIR=str(where / "cache"), LC_ALL="C.UTF-8",
               PYTHONIOENCODING="utf-8")
    done = subprocess.run([command, *args], input=stdin, capture_output=True, text=True,
                          encoding="utf-8", cwd=where, env=env, timeout=600, check=False)
    return done.returncode, done.stdout, done.stderr
