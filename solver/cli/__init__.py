"""The `sabords` command line: it parses and renders, the library decides.

- :mod:`.main`: the entry point: the answers (`advise`, `ev`, `score`, `turn`) read by their
  one parser (:mod:`.quick`, without typer), else the typer application (:mod:`.commands`,
  :mod:`.application`: every other command, and the answers' help);
- :mod:`.application`: the application, its options shared by the commands, its usage errors;
  :mod:`.wording`: every library error in one line, and a command's body run under the
  conventions of the whole command line (typer-free);
- :mod:`.render`: the renderings shared by the commands (values, options, Skull Island, notes,
  progress); :mod:`.answers`: the bodies and the text of the answers (advise, ev, score);
- one module per group of commands: :mod:`.score` (`score`), :mod:`.solving` (`solve`, `ev`,
  `cache`), :mod:`.advise` (`advise`), :mod:`.turn` (`turn`), :mod:`.simulate` (`simulate`),
  :mod:`.game` (`winprob`, `solve-game`, `game`), :mod:`.serve` (`serve`).

Adding a command: a function decorated with :func:`.application.command` in one of these modules
(or a new one imported by :mod:`.commands`), with its help text and examples.

Importing this package imports nothing else (the cold start): ``app`` is made on first use.
"""

from __future__ import annotations

from typing import Any

from .main import main


def __getattr__(name: str) -> Any:
    if name == "app":
        from .commands import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "main"]
