"""The records of a game solve (:mod:`.solve`): its precisions, where it is (:class:`Progress`),
how each phase was solved and what is proved about it (:class:`PhaseRecord`) and the state a
solve goes on from after an interruption (:class:`Checkpoint`, with a cyclic phase's
:class:`CyclicWork`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import FloatArray, IntArray

FINAL_TOL = 1e-12
"""The certified bound of the last improvements' turn solves."""
FINAL_EPS = 1e-13
"""The probability a turn's pushes may leave unassigned per layer (every improvement: a state
left alone keeps its endings, which must then be as good as the last improvement's)."""
EVAL_TOL = 1e-15
"""An evaluation sweeps until no value moves by more than this."""
FIRST_TOL = 1e-5
"""The first improvement's precision (its values are only a start)."""
MAX_ITERATIONS = 60
"""Improvements of one phase before giving up (a bug, not a user error)."""
BLOCK = 4096
"""States a task improves (each takes seconds; any size gives the same bits)."""

ProgressFn = Callable[["Progress"], None]

IMPROVEMENT = "improvement"
VALUE_ITERATION = "value iteration"
FINAL_ROUND = "final round"
CYCLE = "cycle"
"""The steps a solve reports (:attr:`Progress.step`): a phase's improvements, two players'
value iteration (its sweeps), a final-round phase's one improvement (its end: `change` its
measured gap), and the settling of moves that go round in a cycle after an improvement
(:func:`.cycles.one_at_a_time`: `done` its evaluations so far, `blocks` the states whose
moves cycle): minutes of evaluations of the phase at four players at 2000."""


@dataclass(frozen=True)
class Progress:
    """Where a solve is: reported after every block of an improvement and every evaluation."""

    phase: str
    iteration: int
    done: int
    """Blocks of this improvement done."""
    blocks: int
    seconds: float
    """Since this improvement began."""
    change: float | None = None
    """The last evaluation's largest change of a value (None during an improvement)."""
    changed: int | None = None
    """States whose moves the last improvement changed."""
    step: str = IMPROVEMENT
    """:data:`IMPROVEMENT` (`iteration` the improvement, `done` of `blocks` its blocks),
    :data:`VALUE_ITERATION` (`iteration` its sweep; with `change`, its last residual), or
    :data:`CYCLE` (after improvement `iteration`, `done` evaluations of the moves of `blocks`
    states that cycle)."""


@dataclass
class PhaseRecord:
    """How a phase was solved, and what is proved about its values (module doc)."""

    name: str
    iterations: int = 0
    changed: list[int] = field(default_factory=list)
    """States whose moves each improvement changed (the first: every state)."""
    tol: list[float] = field(default_factory=list)
    """Each improvement's certified bound of the turn solves."""
    gap: float = 0.0
    """Measured: max over states of |the mover's best turn at the last improvement - the
    table's value of the mover| (cyclic phases: after the phase's last step)."""
    residual: float = 0.0
    """The last evaluation's residual (one more sweep's largest change)."""
    sweeps: int = 0
    """Sweeps of the last evaluation."""
    turns: float = 1.0
    """Proved: the bound on the expected turns played in the phase (1 when acyclic)."""
    lost: float = 0.0
    """The most probability a state's pushes left unassigned, last improvement."""
    bound: float = 0.0
    """Proved: max |value - the profile's exact value| over the phase's states and seats."""
    columns: int = 0
    """Distinct utility columns solved, over every improvement."""
    cycles: int = 0
    """States where best responses go round in a cycle (no profile of the moves met there is
    stable): their moves are the profile whose movers lose least
    (:func:`.cycles.stable_profile`)."""
    slack: float = 0.0
    """Measured: the most a mover of those states gains by changing its turn (0 without)."""
    settled: float = 0.0
    """Measured: by how much the phase's end moved a value from the iterate (cyclic phases:
    the values are those of the settled moves evaluated afresh, :func:`.cycles.settle`)."""
    adopted: int = 0
    """States whose near ties the phase's end settled by the tie rule (:func:`.cycles.settle`)."""
    certificate: dict[str, float] | None = None
    """Two players' cyclic phases (:func:`.solve._certified`): value iteration's ``sweeps``
    and ``residual``, and ``bound``, proved: max |value - the game's value| over the phase
    (with the figures of :class:`.certify.PhaseCertificate` it comes from)."""

    def as_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "iterations": self.iterations, "changed": self.changed,
               "tol": self.tol, "gap": self.gap, "residual": self.residual,
               "sweeps": self.sweeps, "turns": self.turns, "lost": self.lost,
               "bound": self.bound, "columns": self.columns, "cycles": self.cycles,
               "slack": self.slack, "settled": self.settled, "adopted": self.adopted}
        if self.certificate is not None:
            out["certificate"] = dict(self.certificate)
        return out

    @classmethod
    def of(cls, data: dict[str, Any]) -> PhaseRecord:
        """A record from :meth:`as_dict` (a table keeps all but ``name`` and ``columns``)."""
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**fields)


@dataclass
class Checkpoint:
    """Everything a solve needs to go on after an interruption (:mod:`solver.tables.checkpoints`
    writes and reads it): the table so far, the phase and iteration, the last digest and change."""

    Z: FloatArray
    done: list[str]
    records: dict[str, PhaseRecord]
    phase: str | None = None
    iteration: int = 0
    digests: list[np.ndarray] = field(default_factory=list)
    """The moves' digests of the phase's last two improvements (the latest last)."""
    change: float | None = None
    work: dict[str, np.ndarray] = field(default_factory=dict)
    """A cyclic phase's state between improvements as the named arrays a file keeps
    (:meth:`CyclicWork.arrays`): what the next improvement keeps for the states it does not
    solve again."""

    @property
    def digest(self) -> np.ndarray | None:
        return self.digests[-1] if self.digests else None


@dataclass
class CyclicWork:
    """A cyclic phase's state between improvements (module doc): what the next improvement
    keeps for the states it does not solve again, and what tells a cycle or a stall. A
    checkpoint keeps it as arrays (:meth:`arrays`, :meth:`of`)."""

    endings: FloatArray
    """(size, n_u): every state's endings under its moves (the evaluation's equations)."""
    best: FloatArray
    """The mover's best turn at the last improvement."""
    digest: np.ndarray
    """Every state's moves, as a digest."""
    margin: FloatArray
    """By how much the moves beat the others at their last solve (0: nothing known)."""
    solved_at: FloatArray
    """The precision of each state's last solve."""
    columns: FloatArray
    """(size, n_k): the utilities each state was last solved for."""
    lost: FloatArray
    """The probability each state's pushes left unassigned."""
    slack: FloatArray
    """The gain a state's mover may leave (the states of a cycle; 0 elsewhere)."""
    moved_at: IntArray
    """The improvement at which each state's move last changed (-1: never)."""
    seen: np.ndarray
    """Every profile of the moves met, as a hash, in order, and :attr:`seen_at` its
    improvement."""
    seen_at: IntArray
    changes: FloatArray
    """Every evaluation's largest change of a value."""
    full: bool = True
    """The next improvement solves every state."""
    tol: float = FIRST_TOL
    """The tightest precision used so far (it never loosens)."""

    @classmethod
    def start(cls, size: int, n_u: int, n_k: int) -> CyclicWork:
        """Nothing known yet: every state is solved first."""
        return cls(endings=np.zeros((size, n_u)), best=np.zeros(size),
                   digest=np.zeros(size, dtype=np.uint64), margin=np.zeros(size),
                   solved_at=np.full(size, np.inf), columns=np.zeros((size, n_k)),
                   lost=np.zeros(size), slack=np.zeros(size),
                   moved_at=np.full(size, -1, dtype=np.int64),
                   seen=np.zeros(0, dtype=np.uint64), seen_at=np.zeros(0, dtype=np.int64),
                   changes=np.zeros(0))

    @classmethod
    def of(cls, arrays: dict[str, np.ndarray], size: int) -> CyclicWork:
        """The state a checkpoint keeps (:meth:`arrays`); one of an older solve may lack the
        arrays after ``full``, which then start afresh."""
        return cls(endings=arrays["endings"], best=arrays["best"], digest=arrays["digest"],
                   margin=arrays["margin"], solved_at=arrays["solved_at"],
                   columns=arrays["columns"], lost=arrays["lost"],
                   slack=arrays.get("slack", np.zeros(size)),
                   moved_at=arrays.get("moved_at", np.full(size, -1, dtype=np.int64)),
                   seen=arrays.get("seen", np.zeros(0, dtype=np.uint64)),
                   seen_at=arrays.get("seen_at", np.zeros(0, dtype=np.int64)),
                   changes=arrays.get("changes", np.zeros(0)),
                   full=bool(arrays["full"][0]),
                   tol=float(arrays.get("tol", np.full(1, FIRST_TOL))[0]))

    def arrays(self) -> dict[str, np.ndarray]:
        """The state as the named arrays a checkpoint keeps."""
        return {"endings": self.endings, "best": self.best, "digest": self.digest,
                "margin": self.margin, "solved_at": self.solved_at, "columns": self.columns,
                "lost": self.lost, "full": np.full(1, self.full, dtype=bool),
                "tol": np.full(1, self.tol), "moved_at": self.moved_at, "seen": self.seen,
                "seen_at": self.seen_at, "changes": self.changes, "slack": self.slack}
