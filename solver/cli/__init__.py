"""The `sabords` command line: it parses and renders, the library decides.

- :mod:`.app`: the application, its error handling (every library error one line on stderr,
  exit code 2, its subject worded with the command's flag) and the options shared by the
  commands;
- :mod:`.render`: the renderings shared by the commands (values, options, Skull Island, notes,
  progress);
- one module per group of commands: :mod:`.score` (`score`), :mod:`.solving` (`solve`, `ev`,
  `cache`), :mod:`.advise` (`advise`), :mod:`.turn` (`turn`), :mod:`.simulate` (`simulate`),
  :mod:`.game` (`winprob`, `solve-game`, `game`), :mod:`.serve` (`serve`).

Adding a command: a function decorated with :func:`.app.command` in one of these modules (or a
new one imported below), with its help text and examples.
"""

from . import advise, game, score, serve, simulate, solving, turn  # noqa: F401  (registers commands)
from .app import app, main

__all__ = ["app", "main"]
