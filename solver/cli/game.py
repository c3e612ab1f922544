"""Playing to win (:mod:`solver.game`): `sabords winprob` asks the game, `sabords solve-game`
writes its table, `sabords game` plays whole games between policies, one a seat
(:mod:`solver.strategy.games`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..advice.inputs import MY_TOTAL, OPP_TOTAL
from ..advice.ranking import ranked_cards
from ..errors import quote
from ..limits import COMPILE_SECONDS, MAX_TARGET, game_cost_text
from .advise import FinalOption, SuddenOption, TriggerOption
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
    option,
    print_json,
    rules_from,
    solutions_from,
)
from .render import SolveProgress, compiling_words, method_lines, players_words, progress_bar
from .streams import EXIT_INTERRUPTED, EXIT_TERMINATED, say

if TYPE_CHECKING:
    from ..game import GameTable
    from ..rules import Rules
    from ..rules.record import GameRecord


@command("winprob")
def winprob(
    me: Annotated[int, option(MY_TOTAL)],
    opp: Annotated[list[int], option(OPP_TOTAL)],
    final: FinalOption = False,
    trigger: TriggerOption = None,
    sudden: SuddenOption = False,
    variant: VariantOption = None,
    game_tables_dir: GameTablesOption = None,
    notation: NotationOption = "default",
    as_json: JsonOption = False,
) -> None:
    """Your probability of winning the game, about to draw a card, with totals ME and OPP.

    Every player plays to win, each maximising their own chance (--opp once per opponent, in
    seat order after you; two players: the game's optimum), cards drawn independently with
    the deck's frequencies; every player's probability, and yours after drawing each card.

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
      sabords winprob --me 3000 --opp 5800 --opp 4500 --trigger 2   # pushed back
      sabords winprob --me 3000 --opp 5800 --sudden  # sudden death
    """
    from ..advice.answers import win_answer
    from ..advice.requests import WinRequest
    from ..rules.rulebook import CARDS
    from .answers import standing_words, with_notation

    request = WinRequest.read(with_notation({
        "me": me, "opp": opp, "final": final, "trigger": trigger, "sudden": sudden,
        "variant": variant, "notation": notation}))
    answer = win_answer(request, solutions_from(game_tables=game_tables_dir))
    if as_json:
        print_json(answer.as_dict())
        return
    standing, notes = answer.standing, request.notation  # (its trigger said, when read)
    what = ("sudden death" if standing.sudden else "your final turn" if standing.final
            else "about to draw")
    echo(f"{standing_words(standing, what)}")
    estimate = "" if answer.game.exact else "  (an estimate)"
    echo(f"P(win)    {100 * answer.win:.2f} %{estimate}")
    for seat, (total, p) in enumerate(zip(standing.others, answer.players[1:], strict=True), 2):
        chance = "     –  " if p is None else f"{100 * p:6.2f} %"
        echo(f"player {seat} {chance}  (total {total})" + ("  (not estimated)" if p is None
                                                           else ""))
    for line in method_lines(answer.game):
        echo(line)
    echo("after drawing:" if answer.game.exact else "after drawing (estimates):")
    cards = answer.cards
    names = {card: notes.card(CARDS[card]) for card in cards}
    width = max(10, *map(len, names.values()))
    for card, p in ranked_cards(cards):  # equal chances in the deck's order
        echo(f"  {names[card]:<{width}} {100 * p:6.2f} %")
    echo(f"rules     {describe_rules(request.rules)}")


BLOCK = 4096
"""States a task of the n-player solve solves, unless --block says."""


@command("solve-game", fill={"cost_6000": game_cost_text(6000), "max_target": str(MAX_TARGET),
                            "cost_max": game_cost_text(MAX_TARGET),
                            "cost_3": game_cost_text(6000, 3)})
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
        help="Players at the table, 2 to 5.")] = 2,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", metavar="ADDRESS",
        help="Run on the Dask cluster of this scheduler (tcp://HOST:8786) instead of a local "
             "one.")] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", metavar="K", min=0,
        help="Workers of the local Dask cluster, at most one a core (default: one a core, or "
             "none for a game solved in two minutes or less; 0: no Dask, in this "
             "process).")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue the solve interrupted in DIR from its last checkpoint "
                         "(the same bytes as a solve never interrupted).")] = False,
    block: Annotated[int | None, typer.Option(
        "--block", metavar="S", min=64, max=1_000_000,
        help="States a task solves (any size gives the same bytes; default 4096).")] = None,
) -> None:
    """Solve the game of --players players (every player's chance of winning at every score)
    and write its table (game-N.msgpack).

    Every player maximises their own chance of winning; the solve is policy iteration on the
    turns (solver/game/solve.py), phase by phase: sudden death, the final round, normal play.
    Each phase prints its improvements, the moves its last one changed, its proved bound (every
    value within it of the exact value of the table's strategies) and its measured gap (by how
    much a mover's best turn beats the table's); two players' phases start from value
    iteration, whose certified bound (every value within it of the game's value) is printed
    too. The table's header names the rules (target and ties included) and their hash; the
    same rules give the same bytes, for any --workers, --scheduler and --block. A checkpoint
    after each improvement lets --resume continue an interrupted solve. A game that needs more
    memory than this machine has is refused before any work.

    Two players at the default target 6000 take {cost_6000}, at the largest target,
    {max_target}, {cost_max}; three players at 6000 {cost_3} (the cost model of
    solver/limits.py, fitted to `make bench`'s measurements).

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
    from ..limits import check_writable, cores
    from ..tables.build import Start, build_game
    from ..tables.paths import check_output, game_default_dir

    if workers is not None and scheduler is not None:
        fail("--workers sizes the local Dask cluster, which --scheduler replaces: give one "
             "of them")
    if workers is not None and workers > cores():
        fail(f"--workers: the local Dask cluster has one worker a core at most: 0 (no Dask) "
             f"to {cores()} on this machine, not {workers}")
    rules = rules_from(variant)
    _check_fits(rules, players)
    if scheduler is not None:
        from ..game.cluster import scheduler_address

        scheduler = scheduler_address(scheduler)  # refused now, not after a wait
    if out is not None:
        check_output(rules, out, "game")
    if resume and players > 2:  # before the directory is made
        from ..tables.checkpoints import resumable

        resumable(out if out is not None else game_default_dir(rules), players)
    if out is None:  # the cache's directory: its own words, not --out's
        from ..caches import cache_problem, cache_root, cache_source

        default = game_default_dir(rules)
        problem = cache_problem() if cache_root() in default.parents else None
        if problem is not None:
            fail(f"{problem} (set by {cache_source()}): the game table cannot be written "
                 "there; give a directory with --out, or another cache")
    directory = check_writable(out if out is not None else game_default_dir(rules),
                               "the game table")

    def started(s: Start) -> None:
        say(f"solving the {players_words(players)} game for {rules.describe()} "
            f"({game_cost_text(rules.target, players)}"
            f"{compiling_words(COMPILE_SECONDS)}): "
            + ", ".join(f"{n} {size:,} states" for n, size in s.sizes.items())
            + (f"; resuming {s.resumed} ({', '.join(s.done) or 'no phase'} done)"
               if s.resumed is not None else ""))

    def unsaved(path: Path, exc: OSError) -> None:
        say(f"sabords: warning: cannot write the checkpoint {str(path)!r}: "
            f"{exc.strerror or exc}; the solve goes on, but cannot be resumed")

    import time

    from ..rules.rulebook import NUM_DICE
    from ..tables.checkpoints import checkpoint_path, of_this_game

    kept = checkpoint_path(directory, players)
    if not resume and kept.is_file():
        say(f"sabords: warning: {str(kept)!r} holds the work of an interrupted solve"
            + ("; this one starts over and replaces it (--resume goes on from it instead)"
               if of_this_game(kept, rules, players, NUM_DICE)
               else " of another game; this one replaces it"))
    began = time.time()

    def ours() -> bool:  # the checkpoint there is this solve's (not one it has not replaced)
        try:
            return resume or kept.stat().st_mtime >= began
        except OSError:
            return False

    try:
        built = build_game(rules, players, directory, scheduler=scheduler, workers=workers,
                           resume=resume, block=BLOCK if block is None else block,
                           started=started, progress=SolveProgress(), unsaved=unsaved)
    except (KeyboardInterrupt, SystemExit) as exc:
        if isinstance(exc, KeyboardInterrupt) or exc.code == EXIT_TERMINATED:
            say("")
            if ours():
                say(f"sabords: interrupted; {str(kept)!r} keeps the work done: the same "
                    "command with --resume goes on from it")
            else:  # (a user's trial: stopped in its first seconds, the solve said nothing)
                say("sabords: interrupted before the solve's first checkpoint: none of its "
                    "work is kept, and the same command starts it again"
                    + ((f" ({str(kept)!r} still holds an earlier solve's work: --resume "
                        "goes on from it)" if of_this_game(kept, rules, players, NUM_DICE)
                        else f" ({str(kept)!r} still holds an earlier checkpoint, of another "
                        "game or damaged)")
                       if kept.is_file() else ""))
            if isinstance(exc, KeyboardInterrupt):  # (said: no second blank line)
                raise SystemExit(EXIT_INTERRUPTED) from None
        raise
    for line in solve_lines(built.solution):
        echo(line)
    echo(f"table   {built.path} ({built.change}), {built.seconds:.1f} s")
    echo(f"rules   {describe_rules(rules)}")


def _check_fits(rules: Rules, players: int) -> None:
    """Refuse, before any work, a game whose cost model needs more memory than this machine
    has (five players at 6000 ran out of memory with a traceback; three at 20000 was killed
    by the system at 24 GB)."""
    from ..limits import exceeds_memory

    over = exceeds_memory(rules.target, players)
    if over is not None:
        have = over[1]
        fail(f"the {players_words(players)} game for {rules.describe()} needs "
             f"{game_cost_text(rules.target, players)}: more memory than this machine's "
             f"{have / 1e9:.1f} GB; no solve started (a smaller target: --variant "
             f"target=N; docs/playing-to-win.md has the cost of each game)")


def solve_lines(table: GameTable) -> Iterator[str]:
    """What a solve proved and measured, a phase a line, then every seat's chance from 0."""
    from ..game.seats import FINAL

    for name, r in table.records.items():
        cert = r.certificate
        # (a user's trial: "1 improvement  moves changed 3600" read as a solve not finished)
        if cert:  # two players: value iteration, then every state's moves in one step
            head = (f"value iteration {cert['sweeps']:.0f} sweeps, then one step at "
                    f"{r.changed[-1]} states")
        elif table.seats.phases[name].kind == FINAL:  # every ending leads out of the phase
            head = f"one step at {r.changed[-1]} states"
        else:
            head = (f"{r.iterations} improvement{'s' if r.iterations != 1 else ''}, the last "
                    f"changing the moves of {r.changed[-1]} states")
        yield (f"{name:<7} {head}  proved bound {r.bound:.1e}  measured gap {r.gap:.1e}"
               + (f"  near ties settled by the tie rule at {r.adopted} states" if r.adopted
                  else "")
               + (f"  cycle at {r.cycles} states, measured slack {r.slack:.1e}" if r.cycles
                  else "")
               + (f"  certified bound {cert['bound']:.1e}" if cert else ""))
    yield ("P(win) from all totals 0, in seat order: "
           + ", ".join(f"{100 * p:.4f} %" for p in table.start()))
    yield ("proved: every value is within its phase's bound of the exact value of the table's "
           "strategies")
    if any(r.certificate for r in table.records.values()):
        yield ("proved: the certified bound, every value of the phase within it of the game's "
               "value")
    yield "measured: the gap, by how much a mover's best turn beats the table's at its values"
    if any(r.cycles for r in table.records.values()):
        yield ("measured: the slack, what a mover could still gain at the states where best "
               "responses went round in a cycle (no pure equilibrium there)")


@command("game", flags={"policy": "--policies"})
def game_command(
    games: Annotated[int, typer.Option("--games", metavar="N",
                                       help="Number of games, 1 to a million (seats swap "
                                       "every game).")] = 1000,
    policies: Annotated[str | None, typer.Option(
        "--policies", metavar="A,B",
        help="One policy a seat: win, points, need (pass the leader this turn), first-roll, "
             "two-skulls, greedy, threshold[=T] (default: win against points, win,points, "
             "and win,points,points... for more players).", show_default=False)
    ] = None,
    players: Annotated[int, typer.Option(
        "--players", metavar="N", min=2, max=5,
        help="Players at the table, 2 to 5 (the win policy reads their game table: two and "
             "three committed, four and five played near-optimally on the tables of two and "
             "three where their own is not solved).")] = 2,
    seed: Annotated[int | None, typer.Option(
        "--seed", metavar="S", help="Random seed, 0 to 2**64 - 1 (reproducible games).")] = None,
    variant: VariantOption = None,
    game_tables_dir: GameTablesOption = None,
    record: Annotated[Path | None, typer.Option(
        "--record", metavar="FILE", dir_okay=False,
        help="Write every game's record into FILE (docs/record.md: each card, roll and "
             "decision), one game a line; `sabords review FILE --game N` reviews one.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Play whole games with real random dice between policies, one a seat (two players by
    default).

    Each policy's win rate (a shared tie counts 1/2) with its 95 % Wilson score interval,
    overall and by seat (seat 1 moves first). The policies move one seat on every game, so that
    each plays every seat as often. The win policy needs the game of the players (its table, or
    near-optimal play for four and five): it solves each state's turns when first met.

    \b
    Examples:
      sabords game --games 2000 --seed 1
      sabords game --policies win,threshold=600 --variant target=3000 --json
      sabords game --games 500 --game-tables /tmp/g      # from `solve-game --out /tmp/g`
      sabords game --players 3 --policies win,points,need --games 300 --seed 1
      sabords game --games 1 --seed 7 --policies win,greedy --record /tmp/game.json
    """
    import random

    from ..engine.stats import INTERVAL_METHOD
    from ..limits import check_seed
    from ..rules.aims import WIN
    from ..strategy.games import check_games, play_games, policy_name

    rules = rules_from(variant)
    if policies is None:  # before: win,points whatever the players, refused for three and more
        policies = ",".join(["win"] + ["points"] * (players - 1))
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
    if record is not None:
        record.open("a").close()  # refused now, not after the games
    records: list[GameRecord] | None = None if record is None else []
    with progress_bar(games, "playing", "game") as advance:
        result = play_games(names, rules, games=games, seed=the_seed, win=win,
                            progress=advance, records=records)
    if record is not None and records is not None:
        record.write_text("".join(r.dumps() + "\n" for r in records), encoding="utf-8")
    if as_json:
        from ..game.table import how_solved

        print_json({**result.as_dict(), **({} if table is None else {
            "game": how_solved(table)})})
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
        for line in method_lines(table):
            echo(line)
    echo(f"rules  {describe_rules(rules)}")
