"""The strategy report's shared parts (:mod:`report`): its imports of the solver, its
constants, the formatting of numbers and the :class:`Report` every section reads."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a fresh clone without installing
    sys.path.insert(0, str(ROOT))

from solver.engine import solve_turn  # noqa: E402
from solver.engine.stats import deck_average  # noqa: E402
from solver.rules import CARD_IDS, CARDS, Rules, deck_weights, rules_with  # noqa: E402
from solver.strategy.analysis import (  # noqa: E402
    ScoreDistribution,
    ThumbRule,
    mixture,
    optimal_distribution,
    rules_of_thumb,
)
from solver.strategy.policies import (  # noqa: E402
    FIRST_ROLL,
    GREEDY,
    HEURISTICS,
    THRESHOLD,
    TWO_SKULLS,
    best_threshold,
    evaluate,
    heuristic_policy,
    optimal_solution,
    policy_from_rerolls,
    threshold_reroll,
)

REPORT_NAME = "strategy.md"
DATA_NAME = "strategy-distributions.csv"
HEADLINE_START = "<!-- headline:start -->"
HEADLINE_END = "<!-- headline:end -->"
"""The headline table sits between these markers (the README quotes it; a test compares)."""

VARIANTS: tuple[str, ...] = (
    "keep_one=off",
    "sorceress_rescue=off",
    "sorceress_alone=off",
    "card_skulls_block_chest=off",
    "battle_swords_fill_chest=off",
    "nine_of_a_kind=set",
)
"""Each variant of RULES.md flipped alone from the defaults (game-level ones change no turn)."""

POLICY_LABELS = {
    "optimal": "optimal",
    FIRST_ROLL: "stop after the first roll",
    TWO_SKULLS: "reroll while < 2 skulls",
    GREEDY: "greedy one-step",
    THRESHOLD: "best threshold T",
}


# --------------------------------------------------------------------------------------------
# Formatting: points to 0.1, probabilities to 0.1 %
# --------------------------------------------------------------------------------------------


def pts(x: float) -> str:
    text = f"{x:.1f}"
    return "0.0" if text == "-0.0" else text


def signed(x: float) -> str:
    text = f"{x:+.1f}"
    return "0.0" if text in ("+0.0", "-0.0") else text


def pct(p: float) -> str:
    return f"{100 * p:.1f} %"


def table(header: Sequence[str], rows: Iterable[Sequence[str]], align: str = "") -> str:
    """A Markdown table; `align` gives l/r per column (default: first left, others right)."""
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# The shared context: rules, cached results, figures
# --------------------------------------------------------------------------------------------


@dataclass
class Report:
    """What every section shares: the rules, the results (computed once), the output dir."""

    out: Path
    rules: Rules = field(default_factory=Rules)
    log: Callable[[str], None] = lambda message: None
    figures: list[str] = field(default_factory=list)

    @property
    def cards(self) -> tuple[str, ...]:
        return CARD_IDS

    @property
    def weights(self) -> dict[str, float]:
        return deck_weights()

    def deck(self, per_card: dict[str, float]) -> float:
        return deck_average(per_card)

    @cached_property
    def optimal(self) -> dict[str, float]:
        self.log("optimal values")
        return {c: float(optimal_solution(CARDS[c], self.rules).turn_value[0]) for c in self.cards}

    @cached_property
    def distributions(self) -> dict[str, ScoreDistribution]:
        self.log("score distributions (forward propagation)")
        return {c: optimal_distribution(CARDS[c], self.rules) for c in self.cards}

    @cached_property
    def deck_distribution(self) -> ScoreDistribution:
        w = self.weights
        return mixture([self.distributions[c] for c in w], w.values())

    @cached_property
    def heuristics(self) -> dict[str, dict[str, float]]:
        """Policy name -> card -> exact expected points."""
        self.log("heuristics (policy evaluation)")
        out: dict[str, dict[str, float]] = {"optimal": self.optimal}
        for name in HEURISTICS:
            if name == THRESHOLD:
                out[name] = {c: best_threshold(CARDS[c], self.rules)[1] for c in self.cards}
            else:
                out[name] = {c: evaluate(CARDS[c], self.rules,
                                         heuristic_policy(name, CARDS[c], self.rules))
                             for c in self.cards}
        return out

    @cached_property
    def thresholds(self) -> dict[str, int]:
        return {c: best_threshold(CARDS[c], self.rules)[0] for c in self.cards}

    @cached_property
    def variants(self) -> dict[str, dict[str, float]]:
        """Variant -> card -> optimal expected points with that variant flipped alone."""
        self.log("variants")
        return {
            v: {c: float(solve_turn(CARDS[c], rules_with([v])).turn_value[0]) for c in self.cards}
            for v in VARIANTS
        }

    @cached_property
    def thumbs(self) -> dict[str, tuple[ThumbRule, ...]]:
        self.log("rules of thumb")
        return {c: rules_of_thumb(CARDS[c], self.rules) for c in self.cards}

    @cached_property
    def thumb_values(self) -> dict[str, float]:
        """Exact expected points of playing each card's rule of thumb (see the section)."""
        out = {}
        for c, rules in self.thumbs.items():
            limits = {(r.world, r.skulls): thumb_limit(r) for r in rules}
            reroll = threshold_reroll(CARDS[c], self.rules, limits)
            out[c] = evaluate(CARDS[c], self.rules,
                              policy_from_rerolls(CARDS[c], self.rules, reroll))
        return out

    def figure(self, name: str, fig: Any, alt: str) -> str:
        """Save a matplotlib figure as docs/<name> with stable bytes; the Markdown image."""
        path = self.out / name
        fig.savefig(path, dpi=100, metadata={"Software": None})
        import matplotlib.pyplot as plt

        plt.close(fig)
        self.figures.append(name)
        return f"![{alt}]({name})"


def thumb_limit(rule: ThumbRule) -> int:
    """The threshold the rule of thumb plays: stop at the safe stop value; 'never stops' and
    'always stops' as thresholds beyond every stop value."""
    if rule.largest_reroll is None:
        return -(10**9)
    if rule.safe_stop is None:
        return 10**9
    return rule.safe_stop
