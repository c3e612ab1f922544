"""`sabords serve`: the advisor in a phone's browser (:mod:`solver.web`)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..limits import MAX_TARGET, game_cost_text
from .application import GameTablesOption, TablesOption, command, echo, fail

LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


@command("serve", flags={"port": "--port", "jobs": "--workers", "allowed_host": "--allowed-host"})
def serve(
    host: Annotated[str, typer.Option(
        "--host", metavar="ADDRESS",
        help="The address to listen on: 127.0.0.1 (this machine only), or 0.0.0.0 for "
        "phones on the same network (the address they open is printed, with a QR code).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", metavar="PORT", min=1, max=65535,
                                      help="The port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(
        "--workers", metavar="N", help="Server processes (each with its own caches), at most "
        "one per core.")] = 1,
    tables: TablesOption = None,
    game_tables: GameTablesOption = None,
    max_game_target: Annotated[int, typer.Option(
        "--max-game-target", metavar="N",
        help="The largest target whose two-player game a request may have solved, a multiple "
        f"of 100 up to {MAX_TARGET} (at 6000 the solve takes {game_cost_text(6000)}); a game "
        "table already on disk is always read.")] = 6000,
    solve_on_demand: Annotated[str, typer.Option(
        "--solve-on-demand", metavar="on|off",
        help="Solve the tables of other rules when a request asks for them (one at a time, a "
        "bounded queue, 429 beyond it), or off: answer only from the tables on disk (the "
        "committed ones and the cache's).")] = "on",
    solve_queue: Annotated[int, typer.Option(
        "--solve-queue", metavar="N", help="Table solves that may wait while one runs; more "
        "requests get 429 with Retry-After.")] = 4,
    solve_wait: Annotated[int, typer.Option(
        "--solve-wait", metavar="S", help="The longest, in seconds, a table solve may wait for "
        "the solves ahead of it (1 to 3600): one expected to wait longer gets 429 at once, "
        "with Retry-After, and one that the solves ahead keep waiting longer than expected, "
        "429 as soon as that is expected.")] = 30,
    cache_mb: Annotated[int, typer.Option(
        "--cache-mb", metavar="MB", help="The most megabytes of tables the server keeps in the "
        "cache directory (the oldest removed after each solve).")] = 256,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", metavar="NAME",
        help="A host name the page is opened by (repeatable), besides this machine's "
        "addresses: with --host 0.0.0.0 a request for any other Host is refused (400), so that "
        "no other site's page can reach the server through a name of its own.")] = None,
    log_level: Annotated[str, typer.Option(
        "--log-level", metavar="LEVEL",
        help="uvicorn's log: " + ", ".join(LOG_LEVELS) + " (info logs every request; in any "
        "case).")
    ] = "info",
) -> None:
    """Serve the advisor to a browser: one page for the table, and its JSON API.

    The page (at /) enters a position with large buttons, ranks every option, follows a turn
    from roll to roll and grades it, keeps the table's scoreboard, and has a practice mode;
    in French or English. The API (/api/advise, /api/score, /api/ev, /api/winprob,
    /api/turn) answers the --json of the matching command; /api/openapi.json describes it.
    The default rules' tables are read at start-up; other variants and objectives are solved
    on demand and cached (bounded). Ctrl-C stops the server.

    \b
    Examples:
      sabords serve                        # http://127.0.0.1:8000/ on this machine
      sabords serve --host 0.0.0.0         # phones on the same network: address and QR code
      sabords serve --port 8080 --workers 2 --log-level warning
      sabords serve --tables /tmp/t --game-tables /tmp/g --max-game-target 3000
      sabords serve --host 0.0.0.0 --allowed-host sabords.lan --solve-on-demand off
      sabords serve --solve-queue 2 --solve-wait 10 --cache-mb 64
    """
    from ..limits import check_jobs
    from ..web.serve import allowed_hosts
    from ..web.serve import serve as run
    from ..web.settings import Settings

    level = log_level.strip().lower()
    if level not in LOG_LEVELS:
        fail(f"--log-level takes one of {', '.join(LOG_LEVELS)}, not {log_level!r}")
    workers = check_jobs(workers, workers)
    if not host.strip():
        fail("--host takes an address: 127.0.0.1 (this machine only) or 0.0.0.0 (every "
             "interface, for phones on the same network), not an empty one")
    if not 100 <= max_game_target <= MAX_TARGET or max_game_target % 100:
        fail(f"--max-game-target takes a target: a positive multiple of 100 up to "
             f"{MAX_TARGET}, not {max_game_target}")
    on_demand = solve_on_demand.strip().lower()
    if on_demand not in ("on", "off"):
        fail(f"--solve-on-demand takes on or off, not {solve_on_demand!r}")
    if solve_queue < 0:
        fail(f"--solve-queue takes a number of solves, 0 or more, not {solve_queue}")
    if not 1 <= solve_wait <= 3600:
        fail(f"--solve-wait takes a number of seconds, 1 to 3600, not {solve_wait}")
    if cache_mb < 1:
        fail(f"--cache-mb takes a positive number of megabytes, not {cache_mb}")
    settings = Settings(tables_dir=None if tables is None else tables.resolve(),
                        game_tables_dir=None if game_tables is None else game_tables.resolve(),
                        max_game_target=max_game_target,
                        solve_on_demand=on_demand == "on", solve_queue=solve_queue,
                        solve_wait=solve_wait,
                        cache_mb=cache_mb, allowed_hosts=allowed_hosts(host, allowed_host or []))
    try:
        run(settings, host=host, port=port, workers=workers, log_level=level, say=echo)
    except KeyboardInterrupt:
        pass
