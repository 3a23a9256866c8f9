"""`buraco serve`: live tables in the browser, every move written to the table's sealed log.

The server is `buraco_events.serve` (docs/serve.md: the protocol, the files, the security notes).
This module reads the options, checks them with one-line errors (exit 2), and runs the server
until Ctrl-C or SIGTERM; the tables of `--dir` are loaded first (the unfinished ones go on, the
finished ones are listed), and a table that cannot be loaded is named on stderr and left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from buraco_events.bots.registry import BOT_NAMES

from .common import UNREADABLE, err, fail, os_reason, out, shown

#: the hosts that only this machine reaches
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _tell(line: str) -> None:
    """Print a line of the start's links to stdout at once (a program may be reading them)."""
    out().print(shown(line), soft_wrap=True)
    out().file.flush()


def serve(
    host: Annotated[str, typer.Option("--host", help="the address to listen on (loopback by default: "
                                      "see docs/serve.md before opening it to a network)")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="the port to listen on")] = 8000,
    folder: Annotated[Path, typer.Option("--dir", help="the folder of the tables' logs (made if missing)")] = Path("tables"),
    bots: Annotated[str, typer.Option("--bots", help="the bots a table may seat, comma-separated")] = "greedy",
    clock: Annotated[float | None, typer.Option(
        "--clock", metavar="SECONDS", help="each decision of a person gets this long, then the table plays the "
        "greedy bot's move for them (default: no clock)", show_default=False)] = None,
    spectator_delay: Annotated[int, typer.Option(
        "--spectator-delay", metavar="N", help="spectators see the table N events late")] = 0,
    max_tables: Annotated[int, typer.Option("--max-tables", help="the most unfinished tables at once")] = 1000,
    lobby_token: Annotated[str | None, typer.Option(
        "--lobby-token", envvar="BURACO_LOBBY_TOKEN", metavar="TOKEN",
        help="creating a table needs this token (Authorization: Bearer TOKEN); also read from "
        "BURACO_LOBBY_TOKEN, which keeps it out of the process list", show_default=False)] = None,
    create_rate: Annotated[int, typer.Option(
        "--create-rate", metavar="N", help="tables one client address may create per minute (0: no limit)")] = 30,
    message_rate: Annotated[float, typer.Option(
        "--message-rate", metavar="N", help="messages one socket may send per second (twice as many in a "
        "burst); more get an error each")] = 50.0,
    bot_delay: Annotated[float, typer.Option(
        "--bot-delay", metavar="SECONDS", help="the pause before each bot move, so people can follow")] = 0.3,
    tournament: Annotated[Path | None, typer.Option(
        "--tournament", metavar="T.jsonl", help="open the tournament's round: a table per pairing, a link per "
        "seat, each result recorded as its game ends, the director's page at /director (the links and "
        "the director's token are printed at start)", show_default=False)] = None,
) -> None:
    """Serve live tables: a lobby, a page per seat, every move in the table's sealed log."""
    from buraco_events.serve.app import AppOptions
    from buraco_events.serve.live import TableOptions
    from buraco_events.serve.server import serve as run
    from buraco_events.serve.store import StoreError
    from buraco_events.serve.tables import ServerOptions
    from buraco_events.tournament.state import TournamentError

    allowed = tuple(dict.fromkeys(b.strip().lower() for b in bots.split(",") if b.strip()))
    unknown = [b for b in allowed if b not in BOT_NAMES]
    if unknown:
        fail(f"--bots: unknown bot {unknown[0]!r}; a server seats built-in bots only: {', '.join(BOT_NAMES)}")
    if clock is not None and not 1 <= clock <= 86_400:
        fail(f"--clock: give 1 to 86400 seconds, got {clock:g}")
    if not 0 <= spectator_delay <= 1000:
        fail(f"--spectator-delay: give 0 to 1000 events, got {spectator_delay}")
    if max_tables < 1:
        fail(f"--max-tables: give 1 or more, got {max_tables}")
    if not 0 <= bot_delay <= 10:
        fail(f"--bot-delay: give 0 to 10 seconds, got {bot_delay:g}")
    if not 1 <= message_rate <= 100_000:
        fail(f"--message-rate: give 1 to 100000 a second, got {message_rate:g}")
    if not 0 < port < 65536:
        fail(f"--port: give 1 to 65535, got {port}")
    if lobby_token is not None and len(lobby_token) < 16:
        fail("--lobby-token: give at least 16 characters (a token anyone could guess protects nothing)")
    if host not in LOOPBACK and lobby_token is None:
        err().print(f"note: {shown(host)} is not loopback and there is no --lobby-token: anyone who reaches "
                    "this server can make tables (docs/serve.md, security notes)", soft_wrap=True)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"--dir {folder}: cannot make the folder: {os_reason(exc)}", UNREADABLE)
    table = TableOptions(clock=clock, spectator_delay=spectator_delay, bot_delay=bot_delay)
    server = ServerOptions(folder=folder, bots=allowed or ("greedy",), max_tables=max_tables, table=table)
    options = AppOptions(server=server, lobby_token=lobby_token, create_rate=create_rate,
                         message_rate=message_rate, message_burst=max(1, int(2 * message_rate)))
    try:
        run(options, host, port, say=lambda line: err().print(shown(line), soft_wrap=True),
            tournament=tournament, tell=_tell)
    except TournamentError as exc:
        fail(str(exc), exc.exit_code)
    except StoreError as exc:
        fail(str(exc), UNREADABLE)
    except OSError as exc:
        fail(f"cannot serve on {host}:{port}: {os_reason(exc)}", UNREADABLE)
