"""The standard streams of the command line, whatever their encoding and state.

- **Output** (:func:`prepare_streams`, :func:`nearest_ascii`): a character the encoding of
  stdout or stderr lacks is printed as its nearest ASCII (``~`` for ``≈``, ``e`` for ``é``,
  else ``?``), never a `UnicodeEncodeError` (``PYTHONIOENCODING=latin-1``, a C locale).
- **Standard error** carries progress and messages only: closed (``2>&-``) or full
  (``2>/dev/full``), what it carries is lost quietly and the command still answers.
- **Standard output** carries the answer: :func:`echo` and :func:`print_json` raise
  :class:`OutputError` when it is closed or full (one line, exit code 2) and
  :class:`BrokenPipe` when its reader has gone (a quiet end, :data:`EXIT_BROKEN_PIPE`).
- **Input** the terminal's encoding could not decode (``é`` typed under ``LC_ALL=C``) is kept
  as surrogates (PEP 383) and refused in one line (:func:`undecodable`,
  :func:`undecodable_line`), never read as strange dice letters.

Pure Python, standard library only (every command's start-up path).
"""

from __future__ import annotations

import codecs
import errno
import io
import json
import os
import sys
from typing import Any, TextIO, cast

EXIT_BAD_INPUT = 2
"""Exit code of every refusal: bad input, a stale table, an unwritable output."""
EXIT_BROKEN_PIPE = 141
"""Exit code when the reader of standard output has gone (128 + SIGPIPE), as shells report a
tool that a closed pipe ended; nothing is said."""
EXIT_INTERRUPTED = 130
"""Exit code after Ctrl-C (128 + SIGINT), as shells report it."""
EXIT_TERMINATED = 143
"""Exit code after SIGTERM (128 + SIGTERM), as shells report a process it ended."""


class OutputError(Exception):
    """Standard output is closed or cannot be written (a full disk, a closed pipe)."""


class BrokenPipe(Exception):
    """The reader of standard output has gone: the command ends quietly
    (:data:`EXIT_BROKEN_PIPE`)."""


def echo(text: str = "", *, nl: bool = True) -> None:
    """Print on stdout, in the characters its encoding carries (:func:`prepare_streams`); a
    closed or full stdout raises :class:`OutputError`, a pipe whose reader has gone
    :class:`BrokenPipe`."""
    if sys.stdout is None:
        raise OutputError("standard output is closed")
    try:
        sys.stdout.write(text + "\n" if nl else text)
        sys.stdout.flush()
    except ValueError:  # a closed file
        raise OutputError("standard output is closed") from None
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            raise BrokenPipe from None
        raise OutputError(exc.strerror or str(exc)) from None


def print_json(data: dict[str, Any], *, indent: int | None = 2) -> None:
    """Print one JSON object on stdout (the `--json` convention); characters the output's
    encoding cannot carry are escaped (``\\u00e9``), so the JSON stays whole."""
    unicode = is_utf(getattr(sys.stdout, "encoding", None))
    echo(json.dumps(data, indent=indent, ensure_ascii=not unicode))


def is_utf(encoding: str | None) -> bool:
    """Whether an encoding carries every character (a UTF encoding)."""
    try:
        return codecs.lookup(encoding or "ascii").name.startswith("utf")
    except LookupError:
        return False


def undecodable(text: str) -> bool:
    """Whether `text` holds bytes the system could not decode in its encoding: Python keeps
    each as a lone surrogate, U+DC80 to U+DCFF (PEP 383)."""
    return any("\udc80" <= ch <= "\udcff" for ch in text)


EMPTY_PATH = "an empty path names no directory: give one (. for this one)"
"""The refusal of an empty folder name (``--tables ''``), by either parser."""


def undecodable_line(what: str, encoding: str | None = None) -> str:
    """The refusal of an input (`what`: an argument, an option, a line) that is not text in
    the encoding of the terminal (`encoding`, by default the system's)."""
    encoding = encoding or sys.getfilesystemencoding()
    fix = ("type it again" if is_utf(encoding) else
           "set a UTF-8 locale (for example LC_ALL=C.UTF-8) or type it without accents")
    return f"{what} is not valid {encoding} text, the encoding of this terminal: {fix}"


def say(text: str) -> None:
    """Print a line on stderr (a message, not the answer); lost quietly if stderr is closed or
    full, since nothing is left to tell it on."""
    try:
        if sys.stderr is not None:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
    except (OSError, ValueError):
        pass


NEAREST = "sabords-nearest"
"""The codec error handler of the standard streams (:func:`nearest_ascii`)."""
_ASCII: dict[str, str] = {
    "≈": "~", "…": "...", "’": "'", "‘": "'", "“": '"', "”": '"', "«": '"', "»": '"',
    "≥": ">=", "≤": "<=", "×": "x", "−": "-", "–": "-", "—": "-", "·": ".", "•": "*",
    "→": "->", "ß": "ss", "œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE", "█": "#", "▀": "'",
    "▄": ".", "├": "|", "└": "`", "─": "-", "│": "|",
}  # fmt: skip
"""The nearest ASCII of characters the project prints, where no accent-stripping gives one."""


def nearest_ascii(error: UnicodeError) -> tuple[str | bytes, int]:
    """A codec error handler for output: a character the stream's encoding lacks becomes its
    nearest ASCII (``~`` for ``≈``, ``e`` for ``é``, else ``?``); an undecodable input byte
    kept as a surrogate (PEP 383) is written back as the byte it was."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    import unicodedata

    ch = error.object[error.start]
    if "\udc80" <= ch <= "\udcff":
        return bytes([ord(ch) - 0xDC00]), error.start + 1
    if ch in _ASCII:
        return _ASCII[ch], error.start + 1
    plain = "".join(c for c in unicodedata.normalize("NFKD", ch)
                    if not unicodedata.combining(c))
    plain = "".join(_ASCII.get(c, c) for c in plain)
    return (plain if plain and plain.isascii() else "?"), error.start + 1


class _Lossy(io.TextIOBase):
    """Standard error whose writes may fail (a full disk, a closed file): what it carries
    (progress, messages) is then lost quietly instead of failing the command."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.stream, "errors", None)

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        try:
            self.stream.write(text)
        except (OSError, ValueError):
            pass
        return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def isatty(self) -> bool:
        try:
            return self.stream.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        return self.stream.fileno()


def prepare_streams() -> None:
    """Make the standard streams safe for any encoding and state: output in the characters
    its encoding carries (:func:`nearest_ascii`), undecodable input kept as surrogates (to be
    refused in one line), a closed stdin read as empty, a closed or full stderr lost
    quietly."""
    codecs.register_error(NEAREST, nearest_ascii)
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")
    elif isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="surrogateescape")
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors=NEAREST)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    if not isinstance(sys.stderr, _Lossy):
        sys.stderr = cast(TextIO, _Lossy(sys.stderr))


__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "NEAREST",
    "BrokenPipe",
    "OutputError",
    "echo",
    "is_utf",
    "nearest_ascii",
    "prepare_streams",
    "print_json",
    "say",
    "undecodable",
    "undecodable_line",
]
