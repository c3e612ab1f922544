"""Re-run the `$ sabords …` transcripts of the README and of docs/ and write what they print
now (tests/test_readme.py checks them; run this after a change of an answer's text, then read
the diff: every changed line is a changed answer).

    python scripts/transcripts.py [PAGE ...]     # default: README.md and docs/*.md
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rerun(command: str) -> tuple[str, int]:
    """What `command` shows now (stdout, and its error line when it fails) and its exit code,
    run as the tests run it."""
    from tests.conftest import run_sabords

    stdin = None
    if "|" in command:
        feed, command = (part.strip() for part in command.split("|", 1))
        stdin = shlex.split(feed)[1].encode().decode("unicode_escape")
    result = run_sabords(*shlex.split(command)[1:], input=stdin)
    shown = result.stdout if result.exit_code == 0 else result.stdout + result.stderr
    return shown.rstrip("\n"), result.exit_code


def regenerate(page: Path) -> int:
    """Rewrite the transcripts of `page`; the number of commands whose output changed."""
    text = page.read_text(encoding="utf-8")
    changed = 0

    def block(m: re.Match[str]) -> str:
        nonlocal changed
        lines, out, i = m.group(1).splitlines(), [], 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if not line.startswith("$ ") or "sabords " not in line:
                out.append(line)
                continue
            old = []
            while i < len(lines) and not lines[i].startswith("$ "):
                old.append(lines[i])
                i += 1
            shown, code = rerun(line[2:])
            changed += shown != "\n".join(old)
            out += [line, *([shown] if shown else [])]
            if i < len(lines) and lines[i] == "$ echo $?":
                out += ["$ echo $?", str(code)]
                i += 2
        return "```console\n" + "\n".join(out) + "\n```"

    page.write_text(re.sub(r"```console\n(.*?)```", block, text, flags=re.S), encoding="utf-8")
    return changed


def main() -> None:
    pages = [Path(p) for p in sys.argv[1:]] or [ROOT / "README.md",
                                                 *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        print(f"{page}: {regenerate(page)} transcripts changed")


if __name__ == "__main__":
    main()
