"""Playing to win (:mod:`solver.game`): `sabords winprob` reads the game table, `sabords
solve-game` writes it, `sabords game` plays whole games between two policies
(:mod:`solver.duel`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import quote
from ..inputs import MY_TOTAL, OPP_TOTAL
from ..limits import MAX_TARGET, game_cost_text
from ..ranking import ranked_cards
from .advise import FinalOption
from .app import (
    DIRECTORY,
    GameTablesOption,
    JsonOption,
    NotationOption,
    VariantOption,
    command,
    describe_rules,
    echo,
    fail,
    notation_from,
    option,
    print_json,
    rules_from,
    solutions_from,
)
from .render import end_progress, game_progress, progress_bar
from .streams import say


@command("winprob")
def winprob(
    me: Annotated[int, option(MY_TOTAL)],
    opp: Annotated[int, option(OPP_TOTAL)],
    final: FinalOption = False,
    variant: VariantOption = None,
    game_tables_dir: GameTablesOption = None,
    notation: NotationOption = "default",
    as_json: JsonOption = False,
) -> None:
    """Your probability of winning the game, about to draw a card, with totals ME and OPP.

    Both players play to win (the optimum of the two-player game), cards drawn independently
    with the deck's frequencies; also the probability after drawing each card.

    \b
    Examples:
      sabords winprob --me 0 --opp 0                 # the first player's chance
      sabords winprob --me 2000 --opp 5500 --json
      sabords winprob --me 4000 --opp 6200 --final   # your last turn
      sabords winprob --me 0 --opp 0 --variant target=5000
      sabords winprob --me 0 --opp 0 --game-tables /tmp/g  # from `solve-game --out /tmp/g`
      sabords winprob --me 0 --opp 0 --notation braille    # cards by their letters
    """
    from ..answers import win_answer
    from ..rules import CARDS

    rules = rules_from(variant)
    notes = notation_from(notation)
    answer = win_answer(rules, me, opp, solutions_from(game_tables=game_tables_dir),
                        final=final)
    win, cards = answer.win, answer.cards
    if as_json:
        print_json(answer.as_dict())
        return
    what = "your final turn" if final else "about to draw"
    echo(f"you {me}, opponent {opp}, target {rules.target} ({what})")
    echo(f"P(win)    {100 * win:.2f} %")
    echo("after drawing:")
    names = {card: notes.card(CARDS[card]) for card in cards}
    width = max(10, *map(len, names.values()))
    for card, p in ranked_cards(cards):  # equal chances in the deck's order
        echo(f"  {names[card]:<{width}} {100 * p:6.2f} %")
    echo(f"rules     {describe_rules(rules)}")


@command("solve-game", fill={"cost_6000": game_cost_text(6000), "max_target": str(MAX_TARGET),
                            "cost_max": game_cost_text(MAX_TARGET)})
def solve_game_command(
    variant: VariantOption = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", click_type=DIRECTORY, help=(
            "Write the game table into DIR (checked for writing before the solve). Default: "
            "the repository's tables/ for the default rules, the cache directory for other "
            "variants.")),
    ] = None,
) -> None:
    """Solve the two-player game (win probabilities at every score) and write its table.

    The table holds W(me, opp) for every pair of totals below the target, the sudden-death
    values, the final-turn table by deficit and each card's value; its header names the rules
    (target and ties included) and their hash. The same rules give the same bytes. Each phase
    prints its sweeps, last residual and certified bound (a proven bound on every value, or
    none where the rules leave the proof no progress to count on; see
    solver/game/certify.py). The default target 6000 takes {cost_6000}, the largest,
    {max_target}, {cost_max} (the cost model of solver/limits.py, fitted to `make bench`'s
    measurements): the time and the memory grow with the square of the target.

    \b
    Examples:
      sabords solve-game --out tables/               # what `make tables` runs
      sabords solve-game --variant target=5000 --variant ties=trigger
    """
    from ..game import solve_game
    from ..limits import check_writable
    from ..tablepaths import check_output, game_default_dir
    from ..tables import game_table_path, write_game

    rules = rules_from(variant)
    if out is not None:
        check_output(rules, out, "game")
    directory = check_writable(out if out is not None else game_default_dir(rules),
                               "the game table")
    say(f"solving the two-player game for {rules.describe()}: "
        f"{game_cost_text(rules.target)}")
    sol = solve_game(rules, progress=game_progress("solving"))
    end_progress()
    path = game_table_path(directory)
    before = path.read_bytes() if path.is_file() else None
    try:
        write_game(sol, directory)
    except OSError as exc:
        fail(f"cannot write the game table into {str(directory)!r}: {exc.strerror}")
    change = ("new" if before is None else
              "unchanged" if before == path.read_bytes() else "changed")
    for phase in ("final", "sudden", "normal"):
        certified = sol.certified_bound.get(phase, float("inf"))
        echo(f"{phase:<7} sweeps {sol.sweeps[phase]:4d}  residual {sol.residual[phase]:.1e}"
             + (f"  certified bound {certified:.1e}" if certified < float("inf")
                else "  certified bound: none (the progress bound failed)"))
    echo(f"P(first player wins) {sol.win[0, 0]:.6f}  ({sol.seconds:.1f} s)")
    echo(f"table   {path} ({change})")
    echo(f"rules   {describe_rules(rules)}")


@command("game", flags={"policy": "--policies"})
def game_command(
    games: Annotated[int, typer.Option("--games", metavar="N",
                                       help="Number of games, 1 to a million (seats swap "
                                       "every game).")] = 1000,
    policies: Annotated[str, typer.Option(
        "--policies", metavar="A,B",
        help="Two policies: win, points, first-roll, two-skulls, greedy, threshold[=T].")
    ] = "win,points",
    seed: Annotated[int | None, typer.Option(
        "--seed", metavar="S", help="Random seed, 0 to 2**64 - 1 (reproducible games).")] = None,
    variant: VariantOption = None,
    game_tables_dir: GameTablesOption = None,
    as_json: JsonOption = False,
) -> None:
    """Play whole two-player games with real random dice between two policies.

    Each policy's win rate (a shared tie counts 1/2) with its 95 % Wilson score interval,
    overall and by seat (seat 1 moves first). The win policy needs the game table; it solves each
    card's turns for all scores when first needed (a few seconds a card).

    \b
    Examples:
      sabords game --games 2000 --seed 1
      sabords game --policies win,threshold=600 --variant target=3000 --json
      sabords game --games 500 --game-tables /tmp/g      # from `solve-game --out /tmp/g`
    """
    import random

    from ..duel import WIN, check_games, check_win_tables, duel, policy_name
    from ..limits import check_seed
    from ..stats import INTERVAL_METHOD

    rules = rules_from(variant)
    given = [p.strip() for p in policies.split(",")]
    if len(given) != 2 or not all(given):
        fail(f"--policies takes two policy names separated by a comma, not {quote(policies)}")
    names = tuple(policy_name(p) for p in given)
    check_games(games)
    the_seed = check_seed(seed) if seed is not None else random.SystemRandom().randrange(2**32)
    sol = solutions_from(game_tables=game_tables_dir).game(rules) if WIN in names else None
    if sol is not None:
        check_win_tables(sol)
    with progress_bar(games, "playing") as advance:
        result = duel((names[0], names[1]), rules, games=games, seed=the_seed, sol=sol,
                      progress=advance)
    if as_json:
        print_json(result.as_dict())
        return
    echo(f"{games} games, seed {the_seed}, target {rules.target}, "
         f"{result.mean_turns:.1f} turns a game on average")
    echo(f"{'policy':<14} {'seat':<6} {'games':>7} {'win rate':>9}  95 % interval")
    for name in dict.fromkeys(names):
        for row in (result.overall(name), *[s for s in result.seats if s.policy == name]):
            lo, hi = row.interval
            seat = "both" if row.seat == 0 else str(row.seat)
            echo(f"{name:<14} {seat:<6} {row.games:>7} {100 * row.rate:>8.2f} %  "
                 f"[{100 * lo:.2f}, {100 * hi:.2f}]")
    echo(f"interval: the 95 % {INTERVAL_METHOD} interval of the win rate (a shared tie counts "
         "1/2)")
    echo(f"rules  {describe_rules(rules)}")
