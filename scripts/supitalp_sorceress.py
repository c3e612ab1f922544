"""The Sorceress under supitalp/millesabords' reading, solved by this project's engine.

    python scripts/supitalp_sorceress.py

supitalp/millesabords (`analysis/expected_values.md`) publishes 906 points for the Guardian
(our `sorceress`) where `sabords ev` gives 912.18. Its solver (`solver/dp.py`,
`solver/actions.py`) reads the card differently from RULES.md in two ways:

- a voluntary Sorceress reroll (from 1 or 2 skull dice) must take the skull die with at least
  one non-skull die (`guardian_kept_options`: ``sum(kept) <= total_held - 1``): never alone;
- the rescue (a roll bringing exactly 3 skulls with the Guardian unused) rerolls the third
  skull die alone, automatically (``roll_outcomes(1)`` in ``_precompute``): the other dice
  stay put.

RULES.md allows both (variant ``sorceress_alone`` on: alone or with any dice, the rescue
included). Neither reading is a variant of ours, so this script swaps the one table that
encodes the Sorceress's legality (``TurnModel.sorceress_legal``: which partial position
``(s, K)`` a Sorceress reroll may leave) and solves with the same engine, under
``battle_swords_fill_chest=off`` like the rest of their table.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from solver.engine import ExpectedPoints, geometry, payoff_for, solve_payoff, turn_model
from solver.rules import CARDS, NUM_DICE, Rules, rules_with


def sorceress_value(rules: Rules, *, voluntary_alone: bool, rescue_with_dice: bool) -> float:
    """Expected points of a Sorceress turn with the chosen reading of her reroll.

    Our reading is both True (under the default `sorceress_alone`); supitalp's both False.
    """
    model = turn_model(CARDS["sorceress"], rules)
    g = geometry()
    skulls_after, kept = g.counts[:, 0], g.total - g.counts[:, 0]
    ours = model.sorceress_legal
    rescue = skulls_after + 1 == 3  # picked up from exactly 3 skull dice
    alone = skulls_after + 1 + kept == NUM_DICE  # every non-skull die kept: the skull rolls alone
    legal = np.where(
        rescue,
        ours if rescue_with_dice else ours & alone,
        ours if voluntary_alone else ours & ~alone,
    )
    custom = dataclasses.replace(model, sorceress_legal=legal)
    objective = ExpectedPoints()
    solution = solve_payoff(custom, payoff_for(custom, objective), objective.key())
    return float(solution.turn_value[0])


def main() -> None:
    rules = rules_with(["battle_swords_fill_chest=off"])
    print(f"rules: {rules.describe()}")
    print(f"{'voluntary reroll':<24}{'rescue':<26}{'expected points':>16}")
    for voluntary_alone, rescue_with_dice in ((True, True), (True, False), (False, True),
                                              (False, False)):
        value = sorceress_value(rules, voluntary_alone=voluntary_alone,
                                rescue_with_dice=rescue_with_dice)
        voluntary = "skull alone allowed" if voluntary_alone else "skull + >= 1 die"
        rescue = "skull + any dice" if rescue_with_dice else "skull alone only"
        note = {(True, True): "  RULES.md (ours)", (False, False): "  supitalp (906)"}.get(
            (voluntary_alone, rescue_with_dice), "")
        print(f"{voluntary:<24}{rescue:<26}{value:>16.2f}{note}")


if __name__ == "__main__":
    main()
