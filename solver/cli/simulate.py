"""`sabords simulate`: turns with random dice under a policy, against its exact value
(:mod:`solver.strategy.simulate`)."""

from __future__ import annotations

from typing import Annotated

import typer

from .application import (
    JsonOption,
    NotationOption,
    VariantOption,
    command,
    describe_rules,
    echo,
    fail,
    notation_from,
    print_json,
    rules_from,
)
from .render import progress_bar

PROGRESS_TURNS = 20_000
"""Runs of at least this many turns show a progress bar on stderr."""


@command("simulate")
def simulate(
    card: Annotated[
        str | None,
        typer.Option("--card", metavar="CARD", help="Play this card every turn (id or name)."),
    ] = None,
    deck: Annotated[
        bool,
        typer.Option("--deck", help="Draw each turn's card from the 35-card deck (the default)."),
    ] = False,
    turns: Annotated[
        int, typer.Option("--turns", metavar="N", help="Number of turns to play (1 to 10 "
                          "million).")
    ] = 10_000,
    policy: Annotated[
        str,
        typer.Option(
            "--policy",
            metavar="NAME",
            help=(
                "optimal (expected points), first-roll, two-skulls, greedy, threshold (the "
                "card's best T) or threshold=T. See `solver/strategy/policies.py` for the "
                "definitions."
            ),
        ),
    ] = "optimal",
    seed: Annotated[
        int | None,
        typer.Option("--seed", metavar="S",
                     help="Random seed, 0 to 2**64 - 1 (default: a fresh one, printed)."),
    ] = None,
    variant: VariantOption = None,
    notation: NotationOption = "default",
    as_json: JsonOption = False,
) -> None:
    """Play turns with random dice under a policy and compare with its exact value.

    Prints the mean points, their standard error, the bust and Skull Island rates and the
    z-score of the mean against the exact expected points of the same policy (exact policy
    evaluation); |z| above 3 or so would be a surprise. The same seed gives the same turns.

    \b
    Examples:
      sabords simulate --card captain --turns 100000 --seed 1
      sabords simulate --deck --policy two-skulls --seed 7
      sabords simulate --card battle3 --policy threshold=800 --json
      sabords simulate --card g --notation braille --variant sorceress_alone=off
    """
    import random

    from ..limits import check_seed
    from ..strategy.policies import parse_policy
    from ..strategy.simulate import check_turns
    from ..strategy.simulate import simulate as run_simulation

    rules = rules_from(variant)
    if card is not None and deck:
        fail("give either --card CARD or --deck, not both")
    the_card = None if card is None else notation_from(notation).parse_card(card)
    the_seed = check_seed(seed) if seed is not None else random.SystemRandom().randrange(2**32)
    check_turns(turns)  # before the progress bar: a refusal is then one line
    parse_policy(policy)
    if turns >= PROGRESS_TURNS:
        with progress_bar(turns, "playing", "turn") as advance:
            result = run_simulation(the_card, rules, policy, turns=turns, seed=the_seed,
                                    progress=advance)
    else:
        result = run_simulation(the_card, rules, policy, turns=turns, seed=the_seed)
    if as_json:
        print_json(result.as_dict())
        return
    r = result
    echo(f"card        {r.card if r.card is not None else 'deck (35 cards)'}")
    echo(f"policy      {r.policy}")
    echo(f"turns       {r.turns}  (seed {r.seed})")
    echo(f"mean        {r.mean:.2f} points  (standard error {r.se:.2f}, sd {r.sd:.1f})")
    echo(f"exact       {r.exact:.2f} points  (z = {r.z:+.2f})")
    echo(f"bust        {100 * r.bust_rate:.2f} %  (exact {100 * r.exact_bust_rate:.2f} %)")
    echo(f"island      {100 * r.island_rate:.2f} %  (exact {100 * r.exact_island_rate:.2f} %)")
    if r.magic_rate:
        echo(f"magic       {100 * r.magic_rate:.3f} %")
    echo(f"rolls       {r.mean_rolls:.3f} per turn  (exact {r.exact_rolls:.3f})")
    echo(f"rules       {describe_rules(rules)}")
