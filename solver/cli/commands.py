"""The typer application with every command registered: importing a command's module
registers it on :data:`.application.app` (:func:`.application.command`)."""

from __future__ import annotations

from . import advise, game, review, score, serve, simulate, solving, turn  # noqa: F401  (registers)
from .application import app

__all__ = ["app"]
