"""The README proves itself: every `$ sabords …` transcript in it is re-run and must match.

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

README = Path(__file__).resolve().parent.parent / "README.md"
INSTALLED_ENV = "SABORDS_INSTALLED"

SLOW: tuple[str, ...] = ()
"""Commands too slow for the suite (none since whole games take seconds)."""


def transcripts() -> list[tuple[int, str, str, int | None]]:
    """(line, command, expected output, expected exit code or None) of each transcript."""
    text = README.read_text(encoding="utf-8")
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


CASES = [t for t in transcripts() if "sabords " in t[1] and not t[1].startswith(SLOW)]


def test_the_readme_has_transcripts_of_every_command() -> None:
    commands = {shlex.split(c.split("|")[-1])[1] for _, c, _, _ in transcripts() if "sabords" in c}
    assert {"score", "ev", "advise", "turn", "simulate", "winprob", "game"} <= commands


@pytest.mark.parametrize(("line", "command", "expected", "code"), CASES,
                         ids=[f"README:{c[0]}" for c in CASES])
def test_transcript_matches_a_real_run(line: int, command: str, expected: str,
                                       code: int | None, tmp_path: Path) -> None:
    stdin = None
    if "|" in command:
        feed, command = (part.strip() for part in command.split("|", 1))
        printf = shlex.split(feed)
        assert printf[0] == "printf", f"README:{line}: only printf feeds input"
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
    assert shown == expected, f"README:{line}: `{command}` prints something else now"
    assert exit_code == (code if code is not None else 0), stderr


def _run_installed(command: str, args: list[str], stdin: str | None,
                   where: Path) -> tuple[int, str, str]:
    """Run the installed `command` in `where` (outside the clone), with a cache of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SABORDS_")}
    env.update(SABORDS_CACHE_DIR=str(where / "cache"), LC_ALL="C.UTF-8",
               PYTHONIOENCODING="utf-8")
    done = subprocess.run([command, *args], input=stdin, capture_output=True, text=True,
                          encoding="utf-8", cwd=where, env=env, timeout=600, check=False)
    return done.returncode, done.stdout, done.stderr
