"""`sabords serve`: the advisor in a phone's browser (:mod:`solver.web`)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..limits import MAX_TARGET, game_cost_text
from .app import GameTablesOption, TablesOption, command, echo, fail

LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


@command("serve", flags={"port": "--port", "jobs": "--workers"})
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
    """
    from ..limits import check_jobs
    from ..web.serve import serve as run
    from ..web.solutions import Settings

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
    settings = Settings(tables_dir=None if tables is None else tables.resolve(),
                        game_tables_dir=None if game_tables is None else game_tables.resolve(),
                        max_game_target=max_game_target)
    try:
        run(settings, host=host, port=port, workers=workers, log_level=level, say=echo)
    except KeyboardInterrupt:
        pass
