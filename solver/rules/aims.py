"""What a player plays a turn for (RULES.md, "Objectives"), named once for the whole project.

Pure Python: the command line reads it on every command's start-up path.
"""

from __future__ import annotations

from enum import Enum


class Aim(str, Enum):
    """What a player plays a turn for, named once for the whole project: its expected points,
    at least a need of points, or winning the game. A member is its own text (``"win"``), so
    it reads and prints as the word the commands and the JSON use."""

    POINTS = "points"
    NEED = "need"
    WIN = "win"

    def __str__(self) -> str:
        return str(self.value)


POINTS, NEED, WIN = Aim.POINTS, Aim.NEED, Aim.WIN
"""The aims by name: ``goal.name == WIN`` reads as it says."""
