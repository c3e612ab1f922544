"""The strategy report's plots (matplotlib, imported here only: an optional extra)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the report's sibling modules

from typing import Any

from report_base import POLICY_LABELS, VARIANTS, Report, pts, signed  # noqa: E402

from solver.strategy.policies import HEURISTICS  # noqa: E402

# --------------------------------------------------------------------------------------------
# Plots (matplotlib, imported here only: an optional extra)
# --------------------------------------------------------------------------------------------


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "svg.hashsalt": "mille-sabords"})
    return plt


def plot_distributions(r: Report) -> Any:
    plt = _pyplot()
    fig, axes = plt.subplots(4, 3, figsize=(12, 11), sharey=False)
    colors = {"stop": "#3b6ea8", "magic": "#3b6ea8", "bust": "#c0392b", "island": "#7f8c8d"}
    for ax, c in zip(axes.ravel(), r.cards, strict=True):
        d = r.distributions[c]
        top = d.quantile(0.995)
        bottom = min(p for _, p, _ in d.outcomes)
        stacks: dict[int, float] = {}
        for kind in ("island", "bust", "stop", "magic"):
            xs = [p for k, p, _ in d.outcomes if k == kind and p <= top]
            ys = [100 * q for k, p, q in d.outcomes if k == kind and p <= top]
            base = [stacks.get(x, 0.0) for x in xs]
            if xs:
                ax.bar(xs, ys, bottom=base, width=70, color=colors[kind],
                       label=kind if kind != "magic" else None)
            for x, y in zip(xs, ys, strict=True):
                stacks[x] = stacks.get(x, 0.0) + y
        ax.axvline(d.mean, color="black", linewidth=0.8, linestyle="--")
        ax.set_title(f"{c}: mean {pts(d.mean)}, median {d.median}")
        ax.set_xlim(bottom - 100, top + 100)
        ax.set_ylabel("probability (%)")
    axes[0, 0].legend(loc="upper right")
    fig.suptitle("Final score of a turn under optimal play (scores up to the 99.5th percentile; "
                 "dashed: mean)")
    fig.tight_layout()
    return fig


def plot_heuristics(r: Report) -> Any:
    plt = _pyplot()
    names = ("optimal", *HEURISTICS)
    cards = (*r.cards, "deck")
    fig, ax = plt.subplots(figsize=(11, 6))
    width = 0.16
    for i, n in enumerate(names):
        vals = [r.heuristics[n][c] if c != "deck" else r.deck(r.heuristics[n]) for c in cards]
        xs = [j + (i - 2) * width for j in range(len(cards))]
        ax.bar(xs, vals, width=width, label=POLICY_LABELS[n])
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xticks(range(len(cards)))
    ax.set_xticklabels(cards, rotation=30)
    ax.set_ylabel("expected points of the turn")
    ax.set_title("Optimal play against simple heuristics (exact policy evaluation)")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_variants(r: Report) -> Any:
    plt = _pyplot()
    import numpy as np

    cards = list(r.cards)
    delta = np.array([[r.variants[v][c] - r.optimal[c] for v in VARIANTS] for c in cards])
    limit = max(float(np.abs(delta).max()), 1.0)
    fig, ax = plt.subplots(figsize=(10, 6.5))
    ax.imshow(delta, cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
    for i in range(len(cards)):
        for j in range(len(VARIANTS)):
            text = signed(float(delta[i, j]))
            strong = abs(float(delta[i, j])) > 0.6 * limit
            ax.text(j, i, text, ha="center", va="center", fontsize=8,
                    color="white" if strong else "black" if text != "0.0" else "#999999")
    ax.set_xticks(range(len(VARIANTS)))
    ax.set_xticklabels(VARIANTS, rotation=20, ha="right")
    ax.set_yticks(range(len(cards)))
    ax.set_yticklabels(cards)
    ax.set_title("Change of the optimal expected points when one variant is flipped")
    fig.tight_layout()
    return fig
