"""The checkpoints of an n-player game solve: its state after each improvement
(:class:`solver.game.records.Checkpoint`: the table so far, the phase, the iteration and what
decides the next one), written atomically, so that ``--resume`` continues an interrupted solve
to the same bytes. A checkpoint is an envelope of :mod:`.fileformat` of its own kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SettingsError, StaleTableError, quote
from ..game.records import Checkpoint, PhaseRecord
from ..limits import PATH_LIMIT
from ..rules.rulebook import Rules
from .fileformat import (
    bin_header,
    open_envelope,
    pack_view,
    refusal,
    unpack_array,
    write_envelope,
)

CHECKPOINT_VERSION = 1


def checkpoint_path(directory: Path, players: int) -> Path:
    """Where a solve of the `players`-player game into `directory` keeps its checkpoint."""
    return directory / f"game-{players}.checkpoint"


def resumable(directory: Path, players: int) -> Path:
    """The checkpoint a resumed solve of `players` into `directory` continues from, or a
    :class:`~solver.errors.SettingsError` when there is none (checked before anything is
    made: no directory is created for a solve that cannot resume)."""
    saved = checkpoint_path(directory, players)
    if not saved.is_file():
        raise SettingsError(f"nothing to resume: no checkpoint {saved} (a solve writes it "
                            f"after each improvement)")
    return saved




def _header(rules: Rules, players: int, n_dice: int) -> dict[str, Any]:
    return {"kind": "game-checkpoint", "rules": rules.as_dict(), "rules_hash": rules.hash,
            "players": players, "n_dice": n_dice}


def save_checkpoint(path: Path, rules: Rules, players: int, n_dice: int,
                    state: Checkpoint) -> None:
    """Write `state` to `path`, atomically (the last complete checkpoint is always there). Its
    arrays are packed from their memory, not copied first, and the envelope written around the
    packed payload, not copied into one: one copy of the state at the peak, where there were
    five (measured). A state over the 4 GiB a file's payload holds (three players from 13000)
    is an OSError (EFBIG) before anything is packed: a checkpoint not written, the solve goes
    on."""
    arrays = [state.Z, *state.digests, *state.work.values()]
    bin_header(sum(a.nbytes for a in arrays))  # (raises past 4 GiB, before the packing)
    payload = {
        "header": _header(rules, players, n_dice),
        "Z": pack_view(state.Z),
        "done": list(state.done),
        "records": {name: r.as_dict() for name, r in state.records.items()},
        "phase": state.phase or "",
        "iteration": state.iteration,
        "digests": [pack_view(d) for d in state.digests],
        "change": -1.0 if state.change is None else state.change,
        "work": {k: pack_view(v) for k, v in state.work.items()},
    }
    write_envelope(path, payload, CHECKPOINT_VERSION)


def of_this_game(path: Path, rules: Rules, players: int, n_dice: int) -> bool:
    """Whether `path` holds an intact checkpoint of this game (its header alone compared: what
    a solve says of a checkpoint it would replace)."""
    try:
        payload = open_envelope(path.read_bytes(), refuse=refusal("game", path, rules),
                                kind="checkpoint", version=CHECKPOINT_VERSION)
        return bool(payload["header"] == _header(rules, players, n_dice))
    except (OSError, StaleTableError, SettingsError, KeyError, TypeError, ValueError):
        return False


def load_checkpoint(path: Path, rules: Rules, players: int, n_dice: int,
                    rows: int) -> Checkpoint:
    """The state saved at `path` by :func:`save_checkpoint`, refused (a
    :class:`~solver.errors.SettingsError` of the ``resume`` input) unless it is intact and of
    this game."""

    def refuse(why: str) -> SettingsError:
        return SettingsError(f"cannot resume from {quote(str(path), PATH_LIMIT)}: {why}",
                             subject="resume")

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise refuse(exc.strerror or "it cannot be read") from None
    table_refusal = refusal("game", path, rules)
    try:
        payload = open_envelope(data, refuse=table_refusal, kind="checkpoint",
                                version=CHECKPOINT_VERSION)
    except StaleTableError as exc:
        raise refuse(exc.reason) from None
    try:
        if payload["header"] != _header(rules, players, n_dice):
            raise refuse("it was written by a solve of another game (rules, players or dice)")
        Z = np.array(unpack_array(payload["Z"]))
        if Z.shape != (rows, players) or Z.dtype != np.dtype("<f8"):
            raise refuse("its value table is not of this game")
        records = {name: PhaseRecord(**r) for name, r in payload["records"].items()}
        digests = [np.array(unpack_array(d)) for d in payload["digests"]]
        work = {k: np.array(unpack_array(v)) for k, v in payload["work"].items()}
        change = float(payload["change"])
        return Checkpoint(Z=Z, done=list(payload["done"]), records=records,
                          phase=payload["phase"] or None, iteration=int(payload["iteration"]),
                          digests=digests, change=None if change < 0 else change, work=work)
    except SettingsError:
        raise
    except (KeyError, TypeError, ValueError):
        raise refuse("it is incomplete (a field is missing or malformed)") from None
