"""The entry point of `sabords` (the console script, `python -m solver`): the answers first,
read by their one parser (:mod:`.quick`: no typer, no numpy), else the typer application
(:mod:`.application`, every command registered by :mod:`.commands`); then the exit code, whatever
the streams did.

Typer-free: the start of every command.
"""

from __future__ import annotations

import errno
import os
import signal
import sys

from .streams import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    prepare_streams,
    say,
)
from .wording import OUTPUT_ERRNOS


def _stdout_broken() -> int | None:
    """Flush stdout; the error number if that fails (a full disk, a closed pipe)."""
    if sys.stdout is None:
        return None
    try:
        sys.stdout.flush()
    except OSError as exc:
        return exc.errno or errno.EIO
    except ValueError:  # closed
        return None
    return None


def _run(args: list[str]) -> None:
    """Answer `args`: an answer by its parser, anything else (and the answers' help) by
    the typer application."""
    from .quick import answer

    if answer(args):
        return
    from .commands import app

    app(prog_name="sabords")  # click reads sys.argv itself (and expands it on Windows)


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM (a `kill`, a service manager stopping a long solve): the command ends as
    Ctrl-C ends it, through its `finally` blocks (a Dask cluster closed, its workers and
    semaphores with it; a solve keeps its last checkpoint), with the shell's code, 143. A
    second SIGTERM while it ends (`timeout` signals the command, then its process group) is
    ignored: raised again in Python's shutdown, it printed a traceback."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise SystemExit(EXIT_TERMINATED)


def end_on_sigterm() -> None:
    """SIGTERM ends this process as Ctrl-C does (:func:`_terminated`), unless whoever runs us
    has a handler of its own: the command line's, and the scripts' (`make near-optimal`'s,
    `make report`'s: killed outright, their joblib workers went on computing, orphaned, and
    their folders stayed in /dev/shm)."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _terminated)


def main() -> None:
    """Entry point of the `sabords` console script and of `python -m solver`."""
    end_on_sigterm()
    # numpy's OpenBLAS starts a thread pool when it is imported: about 60 ms of every cold
    # start (`scripts/bench.py`, advisor section), for nothing, since no command does dense
    # linear algebra. A value set by the user wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    prepare_streams()
    code: int | str | None = 0
    try:
        _run(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt:
        say("")
        code = EXIT_INTERRUPTED
    except OSError as exc:  # the help or the version printed to a full or closed stdout
        if exc.errno not in OUTPUT_ERRNOS:
            raise
        code = EXIT_BROKEN_PIPE
        if exc.errno != errno.EPIPE:
            say(f"sabords: error: cannot write the output: {exc.strerror}")
            code = EXIT_BAD_INPUT
    broken = _stdout_broken()
    if broken is not None and code != EXIT_BROKEN_PIPE:
        code = EXIT_BROKEN_PIPE
        if broken != errno.EPIPE:
            say("sabords: error: cannot write the output")
            code = EXIT_BAD_INPUT
    if code not in (0, None) and sys.stdout is not None:
        # Nothing more may reach a broken stdout at exit (Python's own flush would print
        # "Exception ignored"): point it at /dev/null.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
    sys.exit(code)


__all__ = ["main"]
