"""Playing to win (:mod:`solver.game`): `sabords winprob` reads the game table, `sabords
solve-game` writes it, `sabords game` plays whole games between policies, one a
seat (:mod:`solver.strategy.games`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..advice.inputs import MY_TOTAL, OPP_TOTAL
from ..advice.ranking import ranked_cards
from ..errors import quote
from ..limits import MAX_TARGET, game_cost_text
from .advise import FinalOption
from .application import (
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
from .render import end_progress, game_progress, method_lines, progress_bar
from .streams import say


@command("winprob")
def winprob(
    me: Annotated[int, option(MY_TOTAL)],
    opp: Annotated[list[int], option(OPP_TOTAL)],
    final: FinalOption = False,
    variant: VariantOption = None,
    game_tables_dir: GameTablesOption = None,
    notation: NotationOption = "default",
    as_json: JsonOption = False,
) -> None:
    """Your probability of winning the game, about to draw a card, with totals ME and OPP.

    Every player plays to win, each maximising their own chance (--opp once per opponent, in
    seat order after you; two players: the game's optimum), cards drawn independently with
    the deck's frequencies; also your probability after drawing each card, and with three
    players or more every player's.

    \b
    Examples:
      sabords winprob --me 0 --opp 0                 # the first player's chance
      sabords winprob --me 2000 --opp 5500 --json
      sabords winprob --me 4000 --opp 6200 --final   # your last turn
      sabords winprob --me 0 --opp 0 --variant target=5000
      sabords winprob --me 0 --opp 0 --game-tables /tmp/g  # from `solve-game --out /tmp/g`
      sabords winprob --me 0 --opp 0 --notation braille    # cards by their letters
      sabords winprob --me 0 --opp 0 --opp 0         # three players: you move first
      sabords winprob --me 3000 --opp 6300 --opp 4500 --final
    """
    from ..advice.answers import win_answer
    from ..rules.rulebook import CARDS

    rules = rules_from(variant)
    notes = notation_from(notation)
    answer = win_answer(rules, me, opp[0], solutions_from(game_tables=game_tables_dir),
                        final=final, others=tuple(opp[1:]))
    win, cards = answer.win, answer.cards
    if as_json:
        print_json(answer.as_dict())
        return
    what = "your final turn" if final else "about to draw"
    if len(opp) == 1:
        echo(f"you {me}, opponent {opp[0]}, target {rules.target} ({what})")
        echo(f"P(win)    {100 * win:.2f} %")
    else:
        echo(f"you {me}, then {', '.join(map(str, opp))} in seat order, target "
             f"{rules.target} ({what})")
        echo(f"P(win)    {100 * win:.2f} %" + ("" if answer.exact else "  (an estimate)"))
        for seat, (total, p) in enumerate(zip(opp, answer.players[1:], strict=True), 2):
            chance = "     –  " if p is None else f"{100 * p:6.2f} %"
            echo(f"player {seat} {chance}  (total {total})"
                 + ("  (not estimated)" if p is None else ""))
    for line in method_lines(answer.exact, answer.method, answer.loss):
        echo(line)
    echo("after drawing:" if answer.exact else "after drawing (estimates):")
    names = {card: notes.card(CARDS[card]) for card in cards}
    width = max(10, *map(len, names.values()))
    for card, p in ranked_cards(cards):  # equal chances in the deck's order
        echo(f"  {names[card]:<{width}} {100 * p:6.2f} %")
    echo(f"rules     {describe_rules(rules)}")


BLOCK = 4096
"""States a task of the n-player solve solves, unless --block says."""


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
    players: Annotated[int, typer.Option(
        "--players", metavar="N", min=2, max=5,
        help="Players at the table, 2 to 5. Three and more are solved on Dask.")] = 2,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", metavar="ADDRESS",
        help="Run on the Dask cluster of this scheduler (tcp://HOST:8786) instead of a local "
             "one (three players and more).")] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", metavar="K", min=0,
        help="Workers of the local Dask cluster, at most one a core (default: one a core; 0: "
             "no Dask, in this process). Three players and more.")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue the solve interrupted in DIR from its last checkpoint "
                         "(the same bytes as a solve never interrupted).")] = False,
    block: Annotated[int | None, typer.Option(
        "--block", metavar="S", min=64, max=1_000_000,
        help="States a task solves (any size gives the same bytes; default 4096). Three "
             "players and more.")] = None,
) -> None:
    """Solve the game of --players players (win probabilities at every score) and write its
    table.

    Two players (the default): the table holds W(me, opp) for every pair of totals below the
    target, the sudden-death values, the final-turn table by deficit and each card's value;
    its header names the rules
    (target and ties included) and their hash. The same rules give the same bytes. Each phase
    prints its sweeps, last residual and certified bound (a proven bound on every value, or
    none where the rules leave the proof no progress to count on; see
    solver/game/certify.py). The default target 6000 takes {cost_6000}, the largest,
    {max_target}, {cost_max} (the cost model of solver/limits.py, fitted to `make bench`'s
    measurements): the time and the memory grow with the square of the target.

    With --players 3 (or more) it solves the game of that many players by policy iteration
    on Dask (solver/game/nsolve.py): a LocalCluster of one worker a core, or the cluster of
    --scheduler; a checkpoint after each improvement lets --resume continue an interrupted
    solve. Three players at the default target take about an hour on 2 cores.

    \b
    Examples:
      sabords solve-game --out tables/               # what `make tables` runs
      sabords solve-game --variant target=5000 --variant ties=trigger
      sabords solve-game --players 3 --variant target=2000 --out /tmp/t3
      sabords solve-game --players 3 --out tables/   # what `make tables-3p` runs
      sabords solve-game --players 3 --scheduler tcp://10.0.0.5:8786 --out /tmp/t3
      sabords solve-game --players 3 --out /tmp/t3 --resume
      sabords solve-game --players 3 --variant target=1000 --workers 0 --block 512 --out /tmp/t
    """
    from ..game import solve_game
    from ..limits import check_writable, cores
    from ..tables.fileformat import write_compared
    from ..tables.game import game_table_path, write_game
    from ..tables.paths import check_output, game_default_dir

    if players == 2:
        given = [flag for flag, value in (("--scheduler", scheduler), ("--workers", workers),
                                          ("--block", block)) if value is not None]
        given += ["--resume"] if resume else []
        if given:
            fail("the two-player game is solved in this process, in seconds: "
                 f"{' and '.join(given)} {'is' if len(given) == 1 else 'are'} for three "
                 "players and more")
    if workers is not None and scheduler is not None:
        fail("--workers sizes the local Dask cluster, which --scheduler replaces: give one "
             "of them")
    if workers is not None and workers > cores():
        fail(f"--workers: the local Dask cluster has one worker a core at most: 0 (no Dask) "
             f"to {cores()} on this machine, not {workers}")
    rules = rules_from(variant)
    if scheduler is not None and players > 2:
        from ..game.cluster import scheduler_address

        scheduler = scheduler_address(scheduler)  # refused now, not after a wait
    if out is not None:
        check_output(rules, out, "game")
    if resume and players > 2:  # before the directory is made
        from ..tables.checkpoints import resumable

        resumable(out if out is not None else game_default_dir(rules), players)
    directory = check_writable(out if out is not None else game_default_dir(rules),
                               "the game table")
    if players > 2:
        from .ngame import solve_players

        solve_players(rules, players, directory, scheduler=scheduler, workers=workers,
                      resume=resume, block=BLOCK if block is None else block)
        return
    say(f"solving the two-player game for {rules.describe()}: "
        f"{game_cost_text(rules.target)}")
    sol = solve_game(rules, progress=game_progress("solving"))
    end_progress()
    path = game_table_path(directory)
    try:
        change = write_compared(path, lambda: write_game(sol, directory))
    except OSError as exc:
        fail(f"cannot write the game table into {str(directory)!r}: {exc.strerror}")
    for phase in ("final", "sudden", "normal"):
        certified = sol.certified_bound.get(phase, float("inf"))
        settled = sol.certificates.get(phase, {}).get("settled")
        echo(f"{phase:<7} sweeps {sol.sweeps[phase]:4d}  residual {sol.residual[phase]:.1e}"
             + (f"  last step {settled:.1e}" if settled is not None else "")
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
        help="One policy a seat: win, points, need (pass the leader this turn), first-roll, "
             "two-skulls, greedy, threshold[=T].")
    ] = "win,points",
    players: Annotated[int, typer.Option(
        "--players", metavar="N", min=2, max=5,
        help="Players at the table, 2 to 5 (the win policy reads their game table; three and "
             "more: `solve-game --players N` makes it).")] = 2,
    seed: Annotated[int | None, typer.Option(
        "--seed", metavar="S", help="Random seed, 0 to 2**64 - 1 (reproducible games).")] = None,
    variant: VariantOption = None,
    game_tables_dir: GameTablesOption = None,
    as_json: JsonOption = False,
) -> None:
    """Play whole games with real random dice between policies, one a seat (two players by
    default).

    Each policy's win rate (a shared tie counts 1/2) with its 95 % Wilson score interval,
    overall and by seat (seat 1 moves first). The policies move one seat on every game, so that
    each plays every seat as often. The win policy needs the game table of the players: with
    two it plays the moves the table stores, with more it solves each state's turns when first
    met.

    \b
    Examples:
      sabords game --games 2000 --seed 1
      sabords game --policies win,threshold=600 --variant target=3000 --json
      sabords game --games 500 --game-tables /tmp/g      # from `solve-game --out /tmp/g`
      sabords game --players 3 --policies win,points,need --games 300 --seed 1
    """
    import random

    from ..engine.stats import INTERVAL_METHOD
    from ..limits import check_seed
    from ..rules.aims import WIN
    from ..strategy.games import check_games, play_games, policy_name

    rules = rules_from(variant)
    given = [p.strip() for p in policies.split(",")]
    if len(given) != players or not all(given):
        fail(f"--policies takes {players} policy names separated by commas (one a seat), not "
             f"{quote(policies)}")
    names = tuple(policy_name(p) for p in given)
    check_games(games)
    the_seed = check_seed(seed) if seed is not None else random.SystemRandom().randrange(2**32)
    # the win policy made first: a broken table is refused before the progress bar
    table = (solutions_from(game_tables=game_tables_dir).game(rules, players)
             if WIN in names else None)
    win = None if table is None else table.win_play()
    with progress_bar(games, "playing") as advance:
        result = play_games(names, rules, games=games, seed=the_seed, win=win,
                            progress=advance)
    if as_json:
        from ..game.table import how_solved

        print_json({**result.as_dict(), **({} if table is None else {
            "game": how_solved(table.exact, table.method, table.loss)})})
        return
    echo(f"{games} games, seed {the_seed}, target {rules.target}, "
         f"{result.mean_turns:.1f} turns a game on average")
    echo(f"{'policy':<14} {'seat':<6} {'games':>7} {'win rate':>9}  95 % interval")
    for name in dict.fromkeys(names):
        for row in (result.overall(name), *[s for s in result.seats if s.policy == name]):
            seat = str(row.seat) if row.seat else "both" if len(names) == 2 else "all"
            if not row.games:  # a seat this policy never sat in: no rate to give
                echo(f"{name:<14} {seat:<6} {0:>7} {'–':>8}    –")
                continue
            lo, hi = row.interval
            echo(f"{name:<14} {seat:<6} {row.games:>7} {100 * row.rate:>8.2f} %  "
                 f"[{100 * lo:.2f}, {100 * hi:.2f}]")
    echo(f"interval: the 95 % {INTERVAL_METHOD} interval of the win rate (a shared tie counts "
         "1/2)")
    if table is not None:
        for line in method_lines(table.exact, table.method, table.loss):
            echo(line)
    echo(f"rules  {describe_rules(rules)}")
