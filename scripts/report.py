"""Write the strategy report, docs/strategy.md, and its PNG plots from the solver.

    make report                       # installs the `report` extra (matplotlib), then runs this
    .venv/bin/python scripts/report.py [--out docs] [--check]

Every number of the report is computed here by the solver's code (the same engine as
`sabords ev`); nothing is typed by hand. The output is deterministic: the same code and the same
library versions give the same bytes (PNG metadata carries no software or time stamp), so
`--check` regenerates into a temporary directory and fails if the committed files differ.

The report is a list of sections (:data:`SECTIONS`): each is a function of the shared
:class:`Report` (rules, cached results, a figure writer) returning Markdown. To add a section
(e.g. the game-level win probabilities), write such a function and append it to SECTIONS; a
section may save figures with :meth:`Report.figure`.
"""

from __future__ import annotations

import argparse
import filecmp
import io
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a fresh clone without installing
    sys.path.insert(0, str(ROOT))

from solver.analysis import (  # noqa: E402
    ScoreDistribution,
    ThumbRule,
    mixture,
    optimal_distribution,
    rules_of_thumb,
)
from solver.engine import UNUSED, solve_turn  # noqa: E402
from solver.policies import (  # noqa: E402
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
    threshold_candidates,
    threshold_reroll,
)
from solver.ranking import ranked_cards  # noqa: E402
from solver.rules import CARD_IDS, CARDS, DECK_SIZE, Rules, deck_weights, rules_with  # noqa: E402
from solver.stats import deck_average, turn_stats  # noqa: E402

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


# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------


def headline_table(r: Report) -> str:
    """The headline: optimal play per card (the README quotes this table)."""
    rows = []
    for c in r.cards:
        d = r.distributions[c]
        share = f"{CARDS[c].count}/{DECK_SIZE}" if CARDS[c].count else "-"
        rows.append([f"`{c}`", share, pts(r.optimal[c]), pct(d.p_bust), pct(d.p_island),
                     pct(d.p_at_least(1000)), str(d.median), f"{d.expected_rolls:.2f}",
                     pts(r.heuristics[GREEDY][c] - r.optimal[c])])
    d = r.deck_distribution
    rows.append(["**deck**", f"{DECK_SIZE}/{DECK_SIZE}", pts(r.deck(r.optimal)), pct(d.p_bust),
                 pct(d.p_island), pct(d.p_at_least(1000)), str(d.median),
                 f"{d.expected_rolls:.2f}", pts(r.deck(r.heuristics[GREEDY]) - r.deck(r.optimal))])
    return table(
        ["card", "in deck", "expected points", "P(bust)", "P(Skull Island)", "P(≥ 1000)",
         "median", "rolls", "greedy − optimal"],
        rows,
    )


def section_intro(r: Report) -> str:
    return f"""# Mille Sabords: what optimal play is worth

Exact figures for one turn of Mille Sabords, computed by this repository's solver under the
rules of `RULES.md` with the default variants ({r.rules.describe()}, rules hash
`{r.rules.hash}`). Every number on this page is generated by `scripts/report.py` (`make
report`) from the same engine as `sabords ev`; none is typed by hand. Expected points are
given to 0.1 point and probabilities to 0.1 %; the exact values behind them are certified to
about 1e-9 (see [How the numbers are made](#how-the-numbers-are-made)).

"Optimal" means the policy that maximises the expected points of the turn (Skull Island
scores 0 for the player). The deck figures average the 11 cards of the 35-card deck by their
counts; `none` (no card) is the baseline, not in the deck.

## Headline

{HEADLINE_START}
{headline_table(r)}
{HEADLINE_END}

*median*: the smallest score x such that the turn scores at most x with probability 50 % or
more. *rolls*:
expected number of rolls in the turn, the first included. *greedy − optimal*: the expected
points a player loses by playing the one-step lookahead heuristic instead of the optimum (see
[Heuristics](#simple-heuristics-against-optimal-play)).
"""


def section_distributions(r: Report) -> str:
    rows = []
    for c in (*r.cards, "deck"):
        d = r.distributions[c] if c != "deck" else r.deck_distribution
        q1, med, q3 = d.quartiles
        rows.append([f"`{c}`" if c != "deck" else "**deck**", pts(d.mean), pts(d.sd),
                     str(q1), str(med), str(q3), pct(d.p_bust), pct(d.p_island),
                     pct(d.p_at_least(1000)), _small_pct(d.p_magic),
                     pts(d.island_deduction), f"{d.expected_rolls:.2f}"])
    img = r.figure("strategy-distributions.png", plot_distributions(r),
                   "score distributions per card under optimal play")
    details = []
    for c in r.cards:
        d = r.distributions[c]
        lines = []
        cdf = 0.0
        for kind, points, q in d.outcomes:
            cdf += q
            lines.append([kind, str(points), _small_pct(q), pct(cdf)])
        details.append(
            f"<details><summary><code>{c}</code>: {len(d.outcomes)} outcomes</summary>\n\n"
            + table(["ending", "points", "probability", "cumulative"], lines, "lrrr")
            + "\n\n</details>"
        )
    return f"""## Score distributions under optimal play

The exact probability of every final score of a turn played optimally, bust and Skull Island
included, by forward propagation of the probability mass through the optimal policy
(`solver/analysis.py`). A bust scores 0, minus the bonus on a battle card, or the chest's dice
with the chest card; Skull Island scores 0 for the player (*island loss*: the points each
opponent loses, on average); pirate magic (nine of a kind, an instant win) is counted as its
points with the nine as an 8000 set. Quartiles are the smallest scores whose cumulative
probability reaches 25, 50 and 75 %.

{table(["card", "mean", "sd", "Q1", "median", "Q3", "P(bust)", "P(island)", "P(≥ 1000)",
        "P(magic)", "island loss", "rolls"], rows)}

{img}

The full distributions (every score and its probability, rounded here; `{DATA_NAME}` has them to
full precision):

{chr(10).join(details)}
"""


def _small_pct(q: float) -> str:
    return pct(q) if q >= 0.0005 else "< 0.1 %"


def section_heuristics(r: Report) -> str:
    names = ("optimal", *HEURISTICS)
    rows = []
    for c in (*r.cards, "deck"):
        if c == "deck":
            vals = {n: r.deck(r.heuristics[n]) for n in names}
            label = "**deck**"
        else:
            vals = {n: r.heuristics[n][c] for n in names}
            label = f"`{c}`"
        row = [label, pts(vals["optimal"])]
        for n in HEURISTICS:
            row.append(f"{pts(vals[n])} ({signed(vals[n] - vals['optimal'])})")
        row.append(str(r.thresholds[c]) if c != "deck" else "")
        rows.append(row)
    img = r.figure("strategy-heuristics.png", plot_heuristics(r),
                   "expected points of optimal play and of the heuristics per card")
    never = ", ".join(f"`{c}`" for c in r.cards
                      if r.thresholds[c] == threshold_candidates(CARDS[c], r.rules)[-1])
    return f"""## Simple heuristics against optimal play

Each heuristic is a fixed policy evaluated exactly on the same engine (policy evaluation,
`solver/policies.py`); in brackets, its difference from optimal play, a difference of two
exact values. When a heuristic rerolls, it rolls the **non-scoring dice**. A die *scores*
when removing it would lower the stop score: coins, diamonds and the dice of a set (nothing
while a battle is lost); on a battle card the swords the battle needs always count as scoring.
With the Sorceress unused, a skull die is rolled with them. A reroll the rules forbid (fewer
than 2 dice, or none left on the table) means stopping.

- **{POLICY_LABELS[FIRST_ROLL]}**: never reroll.
- **{POLICY_LABELS[TWO_SKULLS]}**: reroll the non-scoring dice while the turn has fewer than 2
  skulls (the card's included), then stop.
- **{POLICY_LABELS[GREEDY]}**: reroll the non-scoring dice when one more roll of them followed
  by a stop has a strictly higher expectation than stopping now.
- **{POLICY_LABELS[THRESHOLD]}**: stop as soon as the stop value reaches T, otherwise reroll
  the non-scoring dice; T is the card's best, found by an exhaustive search (only the stop
  values at which a reroll is possible play differently; all are multiples of 100).

{table(["card", "optimal", POLICY_LABELS[FIRST_ROLL], POLICY_LABELS[TWO_SKULLS],
        POLICY_LABELS[GREEDY], POLICY_LABELS[THRESHOLD], "best T"], rows)}

With this reroll, a single threshold that ignores the skulls often does best by never stopping
while the non-scoring dice can be rolled: the best T lies above every stop value at which a
reroll is possible for {never}.

{img}
"""


def section_variants(r: Report) -> str:
    rows = []
    for c in (*r.cards, "deck"):
        if c == "deck":
            base = r.deck(r.optimal)
            vals = [r.deck(r.variants[v]) for v in VARIANTS]
            label = "**deck**"
        else:
            base = r.optimal[c]
            vals = [r.variants[v][c] for v in VARIANTS]
            label = f"`{c}`"
        rows.append([label, pts(base)] + [signed(x - base) for x in vals])
    img = r.figure("strategy-variants.png", plot_variants(r),
                   "change of the optimal expected points per card for each variant")
    return f"""## House rules: the effect of each variant

The optimal expected points under the default rules, and how much each variant of `RULES.md`
changes them when it alone is flipped (0.0: no effect to 0.1 point). `target` and `ties` are
game-level and do not change a turn.

{table(["card", "default rules", *[f"`{v}`" for v in VARIANTS]], rows)}

{img}
"""


def section_rules_of_thumb(r: Report) -> str:
    rows = []
    agree_deck = visits_deck = 0.0
    for c in r.cards:
        by_world: dict[int, dict[int, ThumbRule]] = {}
        for t in r.thumbs[c]:
            by_world.setdefault(t.world, {})[t.skulls] = t
        w_card = r.weights.get(c, 0.0)
        value = r.thumb_values[c]
        first = True
        for world, rules in sorted(by_world.items(), reverse=True):
            label = f"`{c}`"
            if CARDS[c].sorceress:
                label += " (Sorceress unused)" if world == UNUSED else " (Sorceress used)"
            cells = []
            for s in range(3):
                cell = rules.get(s)
                if cell is None:
                    cells.append("-")
                elif cell.largest_reroll is None:
                    cells.append(f"always stop ({pct(cell.agreement)})")
                elif cell.safe_stop is None:
                    cells.append(f"never stop ({pct(cell.agreement)})")
                else:
                    cells.append(f"{cell.safe_stop} ({pct(cell.agreement)})")
            agree = sum(t.agree for t in rules.values())
            visits = sum(t.visits for t in rules.values())
            agree_deck += w_card * agree
            visits_deck += w_card * visits
            tail = [pts(value), signed(value - r.optimal[c])] if first else ["", ""]
            rows.append([label, *cells, pct(agree / visits), *tail])
            first = False
    thumb_deck = r.deck(r.thumb_values)
    rows.append(["**deck**", "", "", "", pct(agree_deck / visits_deck), pts(thumb_deck),
                 signed(thumb_deck - r.deck(r.optimal))])
    return f"""## Rules of thumb

Read off the optimal policy and checked against it. For each card and number of skulls of the
turn (skull dice plus the card's), the **safe stop value** is the smallest stop value from which
the optimal policy stops whatever the dice: above the largest stop value at which it still
rerolls. *never stop*: the optimum rerolls at every stop value that occurs (with the Sorceress
unused a lone skull die can be rerolled at no risk); *always stop*: it never rerolls there.

In brackets, how often the simple rule "stop when the stop value reaches the safe value,
otherwise reroll" makes the same stop-or-reroll decision as the optimal policy, over the
positions a turn actually meets, weighted by how often optimal play meets them (expected
decision visits from the forward propagation); where no reroll is legal both stop. Rescue
positions (a forced Sorceress move) are not decisions. *rule's points*: the exact expected
points of playing the rule with the heuristics' reroll (the non-scoring dice), and its loss
against optimal play. The deck row weights the cards by their counts and their decision
visits.

{table(["card", "0 skulls", "1 skull", "2 skulls", "agreement", "rule's points", "loss"], rows)}

A safe stop value is a certainty, not a recommendation: below it the optimum often stops
too (that is where the rule and the optimum disagree), most of all with 2 skulls, where every
reroll risks the turn.
"""


def section_method(r: Report) -> str:
    worst_mean = max(abs(r.distributions[c].mean - r.optimal[c]) for c in r.cards)
    worst_mass = max(r.distributions[c].unresolved for c in r.cards)
    steps = max(r.distributions[c].steps for c in r.cards)
    bound = max(optimal_solution(CARDS[c], r.rules).bound for c in r.cards)
    stats = {c: turn_stats(optimal_solution(CARDS[c], r.rules)) for c in r.cards}
    worst_bust = max(abs(stats[c].p_bust - r.distributions[c].p_bust) for c in r.cards)
    return f"""## How the numbers are made

- **Optimal values**: value iteration on the turn's Bellman equations (`solver/engine/`),
  certified to within {bound:.1e} points for every card (the engine's bound).
- **Distributions**: forward propagation of the probability mass through the optimal policy
  until the live mass is at most 1e-15 (at most {steps} rolls deep); the largest live mass left
  is {worst_mass:.1e}, a bound on the error of every probability. Two routes, one answer: the
  mean of each distribution meets the engine's value to within {worst_mean:.1e} points, and
  its bust probability meets the independent policy evaluation of `solver/stats.py` to
  within {worst_bust:.1e}.
- **Ties**: where two moves are worth the same (within the engine's tie tolerance), the policy
  takes one by a fixed rule: stop, then without the Sorceress, then the most dice kept; another
  choice between equal moves keeps every expected value but may move probability between
  scores.
- **Heuristics and variants**: exact policy evaluation and exact solves on the same engine.
- **Monte Carlo**: `sabords simulate` plays random turns under any of these policies with the
  rules' own functions and compares with the exact value (the tests run a chi-square test of the
  simulated scores against these distributions and z-tests of the heuristics' values).
- **Reproducible**: `make report` rewrites this page, its plots and `{DATA_NAME}`
  byte for byte (PNG files carry no time stamp); `scripts/report.py --check` verifies the
  committed files.
"""


GAME_GRID = (0, 1500, 3000, 4500, 5500)
"""Totals (points) of the score grid of the playing-to-win section's tables."""


def section_playing_to_win(r: Report) -> str:
    """Issue 6: the two-player game, W over the score grid, win policy against points policy."""
    from solver.engine import ExpectedPoints
    from solver.game import GameUtility, deck, game_model, state_utility, win_probability
    from solver.game.profiles import profile_values, win_endings
    from solver.gametables import game_tables, two_player_table

    r.log("game tables")
    sol = game_tables(r.rules)
    n, target = sol.n, r.rules.target
    first = float(sol.win[0, 0])
    lead = next(d for d in range(n) if sol.win[0, d] < 0.5)
    heat = r.figure("strategy-win-probability.png", plot_win(sol.win, target),
                    "Heat map of the probability that the player about to draw wins")
    r.log("win policy against points policy at a few scores")
    optimum = r.deck(r.optimal)
    rows_ev, rows_diff = [], []
    for me in GAME_GRID:
        ev_row, diff_row = [str(me)], [str(me)]
        for opp in GAME_GRID:
            a, b = me // 100, opp // 100
            u = state_utility(sol, a, b)
            ev, differs = 0.0, 0.0
            for card, weight in deck().items():
                pol = solve_turn(CARDS[card], r.rules.turn_rules(), GameUtility(u)).policy()
                ev += weight * float(solve_turn(CARDS[card], r.rules.turn_rules(), ExpectedPoints(),
                                                policy=pol).turn_value[0])
                differs += weight * _points_move_loses(card, r.rules, u)
            ev_row.append(signed(ev - optimum))
            diff_row.append(pct(differs))
        rows_ev.append(ev_row)
        rows_diff.append(diff_row)
    header = ["you \\ opponent", *(str(o) for o in GAME_GRID)]
    r.log("win policy against points policy, exactly (the profile's values)")
    two = two_player_table(sol)
    ends = win_endings(two, game_model(r.rules), two.seats())
    first_win = float(profile_values(two, ["win", "points"], win=ends).normal[0][0])
    second_win = float(profile_values(two, ["points", "win"], win=ends).normal[0][1])
    win_all = (first_win + second_win) / 2
    cards = win_probability(sol, 0, 0)[1]
    order = ranked_cards(cards)
    best_card, worst_card = order[0][0], order[-1][0]
    return f"""
## Playing to win (two players)

The expected-points optimum plays every turn the same at every score; `sabords advise --me
--opp` plays each turn to maximise the probability of winning the game (both players doing
so, cards drawn independently with the deck's frequencies; `solver/game/`). At the target
{target}:

- **First-player advantage.** The first player wins {pct(first)} of the games (the second
  {pct(1 - first)}; a shared tie counts 1/2). It is worth about a {lead * 100}-point head start:
  a first player at 0 against {lead * 100} has {pct(float(sol.win[0, lead]))}. Drawing the
  {best_card} card for the first turn lifts the first player to {pct(cards[best_card])},
  the {worst_card} card drops them to {pct(cards[worst_card])}.
- **Win policy against points policy.** Exactly (the values of the game where one player
  plays the win policy's turns and the other the points optimum's: one linear system,
  `solver/game/profiles.py`), the win policy wins {pct(win_all)} of the games, seats swapped:
  {pct(first_win)} when moving first, {pct(second_win)} when moving second
  (`sabords game --policies win,points` plays such games with real dice). The edge is
  small: most of a game is decided by the dice, and the two policies agree on most moves far
  from the end.

{heat}

**Where the win policy departs from the points policy.** The expected points of the win
policy's turn (deck-weighted, exact policy evaluation) minus the points optimum
({pts(optimum)}): it gives points away to gamble when far behind, and to bank when ahead near
the target.

{table(header, rows_ev)}

The share of the positions (every live position of the turn's first world counted once,
deck-weighted) where the expected-points move loses probability of winning against the win
policy's move (by more than 1e-9: equally good moves, e.g. keeping the monkeys or the
parrots of a symmetric roll, are not counted):

{table(header, rows_diff)}
"""


HEAD_STARTS = (0, 500, 1000, 2000)
"""The head starts of the three-player chapter (points, seat 3's)."""


def section_three_players(r: Report) -> str:
    """Issue 20: the three-player game: each seat's chance from the start, a head start, and
    the edge of playing to win, exactly."""
    from solver.game import game_model
    from solver.game.profiles import profile_values, win_endings
    from solver.game.query import state_of
    from solver.sources import TablesDirectory

    r.log("the three-player game table")
    game = TablesDirectory().ngame(r.rules, 3)
    target = r.rules.target
    start = game.values["normal"][0]
    records = game.records

    def chance(me: int, *others: int) -> Any:
        name, index = state_of(game, me, others, final=False)
        return game.values[name][index]

    heads = [(h, chance(0, 0, h)) for h in HEAD_STARTS]
    even = next((h for h in range(0, target, 100) if chance(0, 0, h)[2] >= chance(0, 0, h)[0]),
                None)
    r.log("the win turns of every state (for the profiles: one improvement of the whole "
          "table, on a local Dask cluster, about 17 minutes on 2 cores)")
    from solver.game.cluster import DaskRunner, local_cluster

    def progress(name: str, done: int, of: int) -> None:
        if done * 4 // of != (done - 1) * 4 // of:  # a quarter of the phase's blocks done
            r.log(f"  {name}: block {done} of {of}")

    with local_cluster() as client:
        ends = win_endings(game, game_model(r.rules), game.seats(),
                           DaskRunner(client, r.rules, 3), progress=progress)
    r.log("evaluating six profiles of play, two at a time (about 12 minutes on 2 cores)")
    from concurrent.futures import ThreadPoolExecutor

    from solver.game.profiles import points_endings
    from solver.limits import cores

    points = points_endings(game_model(r.rules))
    profiles = [["points"] * i + ["win"] + ["points"] * (2 - i) for i in range(3)]
    profiles += [["win"] * i + ["points"] + ["win"] * (2 - i) for i in range(3)]
    # two at once: the machine used 10.4 GB at most
    with ThreadPoolExecutor(max_workers=min(2, cores())) as pool:
        done = list(pool.map(lambda p: profile_values(game, p, win=ends, points=points),
                             profiles))
    alone = [float(done[i].normal[0][i]) for i in range(3)]
    points_alone = [float(done[3 + i].normal[0][i]) for i in range(3)]
    rows = [[str(h), *(pct(float(p)) for p in v)] for h, v in heads]
    proofs = [[name, str(rec["iterations"]), f"{rec['bound']:.1e}", f"{rec['gap']:.1e}",
               f"{rec['turns']:.1f}", str(rec.get("cycles", 0)),
               f"{rec.get('slack', 0.0):.1e}"] for name, rec in records.items()]
    if even is None:
        even_text = "more than the target"
    else:
        at = chance(0, 0, even)
        even_text = (f"about {even} points: at 0, 0, {even} the third seat has "
                     f"{pct(float(at[2]))} against the first's {pct(float(at[0]))}")
    return f"""
## Playing to win (three players)

Three players, each maximising their own probability of winning (`sabords winprob --me A
--opp B --opp C`; the exact game of `solver/game/nsolve.py`, solved by policy iteration on
Dask, `sabords solve-game --players 3`). At the target {target}:

- **From 0, 0, 0.** The first player wins {pct(float(start[0]))}, the second
  {pct(float(start[1]))}, the third {pct(float(start[2]))} (a shared tie split).
- **A head start.** The chances (first, second, third player) when the third player starts
  ahead; the head start that makes the third player even with the first is {even_text}:

{table(["third's head start", "first", "second", "third"], rows)}

- **The edge of playing to win**, exactly (the values of the game under a profile of play,
  `solver/game/profiles.py`): one player playing the win policy against two playing for
  expected points wins {pct(alone[0])} from the first seat, {pct(alone[1])} from the second,
  {pct(alone[2])} from the third; one player playing for points against two playing to win
  wins {pct(points_alone[0])}, {pct(points_alone[1])}, {pct(points_alone[2])}.

**What was proved and what was measured** (the table's record). Proved: every value is within
the bound of the exact value of the table's strategies (the evaluation's residual times a
checked bound on the expected turns in the phase, plus the phases before it). Measured: the
gap, by how much a mover's best turn beats the table's at its values (each turn is a best
response to that precision); the table's strategies are an equilibrium the iteration reached
from every value at 1/3, not proved the only one. Where best responses went round in a cycle
(at a few states no pure equilibrium exists: each of two movers' best turn depends on the
other's), the table keeps the moves whose movers lose least, and the slack is what a mover
there could still gain (measured).

{table(["phase", "improvements", "proved bound", "measured gap", "turns (bound)",
        "cycle states", "slack"], proofs)}
"""


def _points_move_loses(card: str, rules: Rules, u: Any) -> float:
    """Share of the live positions of the first-roll world where the expected-points move
    has a lower probability of winning (by more than 1e-9) than the best move."""
    import numpy as np

    from solver.engine import STOP, USED, payoff_for, turn_model
    from solver.game import GameUtility

    objective = GameUtility(u)
    win = solve_turn(CARDS[card], rules.turn_rules(), objective)
    start = max(win.worlds)
    points = optimal_solution(CARDS[card], rules).worlds[start]
    stop = payoff_for(turn_model(CARDS[card], rules.turn_rules()), objective).stop[:, 0]
    code, sor = points.policy[:, 0], points.sorceress[:, 0]
    live = code != -2
    idx = np.maximum(code, 0)
    value = np.where(code == STOP, stop,
                     np.where(sor, win.worlds[USED].keep_value[idx, 0],
                              win.worlds[start].keep_value[idx, 0]))
    best = win.worlds[start].value[:, 0]
    return float((value[live] < best[live] - 1e-9).mean())


def plot_win(win: Any, target: int) -> Any:
    plt = _pyplot()
    import numpy as np

    fig, ax = plt.subplots(figsize=(7, 6))
    n = win.shape[0]
    im = ax.imshow(win, origin="lower", extent=(-50, n * 100 - 50, -50, n * 100 - 50),
                   cmap="RdBu", vmin=0, vmax=1)
    levels = [0.1, 0.25, 0.5, 0.75, 0.9]
    cs = ax.contour(np.arange(n) * 100, np.arange(n) * 100, win, levels=levels, colors="black",
                    linewidths=0.6)
    ax.clabel(cs, fmt="%.2f", fontsize=7)
    ax.set_xlabel("opponent's total")
    ax.set_ylabel("your total (you are about to draw)")
    ax.set_title(f"P(win) when both play to win, target {target}")
    fig.colorbar(im, ax=ax, label="probability of winning")
    fig.tight_layout()
    return fig


def section_exact(r: Report) -> str:
    """Issue 12: the appendix of exact values (fractions), solved and proved now."""
    from solver.rational import decimal_text, exact_text, fraction_text
    from solver.stats import exact_deck_average, exact_turn_stats

    r.log("exact values (exact policy iteration)")
    solved = {c: exact_turn_stats(CARDS[c], r.rules) for c in r.cards}
    stats = {c: s for c, (s, _) in solved.items()}
    proofs = [e.proof for _, e in solved.values()]
    rows = [[f"`{c}`", f"{fraction_text(s.ev)}", decimal_text(s.ev)] for c, s in stats.items()]
    bust_rows = [[f"`{c}`", fraction_text(s.p_bust), decimal_text(s.p_bust)]
                 for c, s in stats.items()]
    deck = exact_deck_average({c: s.ev for c, s in stats.items()})
    weighted = " + ".join(f"{CARDS[c].count}·`{c}`" for c in r.cards if CARDS[c].count)
    deck_bust = exact_deck_average({c: s.p_bust for c, s in stats.items()})
    changed = sum(p.changed for p in proofs)
    improved = sum(p.improved for p in proofs)
    solves = sum(p.layer_solves for p in proofs)
    if changed:
        float_note = (f"Policy iteration changed the float policy's move at {changed} positions "
                      f"({improved} of them strictly better moves).")
    else:
        float_note = (f"The float solver's policy passed as it was: no move was strictly better "
                      f"anywhere and every tie was already broken by the rule ({solves} exact "
                      f"layer solves for the {len(proofs)} cards).")
    intro = textwrap.fill(
        "Every value of a turn is a fraction. For each card, `solver/engine/exact.py` solves "
        "the linear equations of the float solver's policy layer by layer in exact rational "
        "arithmetic (FLINT) and proves the policy optimal: at every position of the turn, "
        "with the Sorceress used or not, no legal move (stopping, any reroll, a Sorceress "
        "reroll) is worth more, in exact arithmetic, than the policy's move, so these are the "
        f"largest expected points a turn can have, not approximations. {float_note} "
        "Decimals are the fractions' expansions to 30 significant digits (rounded half to "
        "even).", width=95)
    return f"""## Appendix: exact values

{intro}

{table(["card", "expected points (exact)", "decimal"], rows, "lrr")}

Bust probabilities under the optimal policy, exactly (the policy's own evaluation with a bust
indicator as payoff, `solver/stats.py`):

{table(["card", "P(bust) (exact)", "decimal"], bust_rows, "lrr")}

{textwrap.fill(f"The deck averages weight each card by its count in the 35-card deck, "
                f"({weighted}) / 35:", width=95)}

- expected points: {exact_text(deck)}
- P(bust): {exact_text(deck_bust)}
"""


SECTIONS: list[Callable[[Report], str]] = [
    section_intro,
    section_distributions,
    section_heuristics,
    section_variants,
    section_rules_of_thumb,
    section_playing_to_win,
    section_three_players,
    section_method,
    section_exact,
]
"""The report's sections, in order."""


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


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def distributions_csv(r: Report) -> str:
    """Every card's exact distribution under optimal play, full precision (repr of floats)."""
    out = io.StringIO()
    out.write(f"# rules_hash={r.rules.hash}; policy=optimal (expected points)\n")
    out.write("card,ending,points,probability\n")
    for c in r.cards:
        for kind, points, q in r.distributions[c].outcomes:
            out.write(f"{c},{kind},{points},{q!r}\n")
    return out.getvalue()


def write_report(out: Path, rules: Rules | None = None,
                 log: Callable[[str], None] = lambda m: None) -> list[Path]:
    """Write docs/strategy.md, its plots and the distributions CSV into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    r = Report(out=out, rules=rules or Rules(), log=log)
    parts = []
    for section in SECTIONS:
        parts.append(section(r).strip() + "\n")
    text = "\n".join(parts)
    (out / REPORT_NAME).write_text(text, encoding="utf-8")
    (out / DATA_NAME).write_text(distributions_csv(r), encoding="utf-8")
    return [out / REPORT_NAME, out / DATA_NAME, *(out / f for f in r.figures)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Example: .venv/bin/python scripts/report.py --check")
    parser.add_argument("--out", type=Path, default=ROOT / "docs",
                        help="directory to write into (default: docs/)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temporary directory and compare with --out")
    args = parser.parse_args(argv)
    start = time.perf_counter()

    def log(message: str) -> None:
        print(f"report: {message} ({time.perf_counter() - start:.1f} s)", file=sys.stderr)

    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            written = write_report(Path(tmp), log=log)
            stale = [p.name for p in written
                     if not (args.out / p.name).is_file()
                     or not filecmp.cmp(p, args.out / p.name, shallow=False)]
        if stale:
            print(f"report: out of date in {args.out}: {', '.join(stale)} (run make report)",
                  file=sys.stderr)
            return 1
        log("up to date")
        return 0
    for path in write_report(args.out, log=log):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
