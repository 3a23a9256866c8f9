"""Running the app: one uvicorn server, one process, one event loop (a shell module).

The access log is off (a socket's URL holds its seat's token), as is uvicorn's banner: the
command says where the lobby is itself. WebSocket frames are limited to `MAX_FRAME` by the
protocol layer (a frame past it closes the socket); the app's own limit (`protocol.MAX_MESSAGE`)
answers anything between with an error message. Messages are not compressed: a view is a few
kilobytes and deflate would cost more CPU per message than it saves on a loopback or LAN.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path

import uvicorn

from .app import AppOptions, create_app
from .store import lock_folder
from .tables import Tables
from .tournament import LiveTournament, director_key

#: the largest WebSocket frame the protocol layer accepts
MAX_FRAME = 64 * 1024
#: how often a running server freezes what lives out of the collector's reach
#: (`AppOptions.freeze_every`: full collections stay short however many tables are open)
FREEZE_EVERY = 1.0


def serve(options: AppOptions, host: str, port: int, *, say: Callable[[str], None] = print,
          tournament: Path | None = None, tell: Callable[[str], None] = print) -> None:
    """Load the folder's tables and serve them until stopped (SIGINT or SIGTERM); raises
    `store.StoreError` when another server has the folder. With `tournament`, its open round's
    tables are opened (or taken from the folder) and `tell` gets the director's link and every
    seat's, once (raises `TournamentError` when the tournament log does not read)."""
    folder = options.server.folder
    lock = lock_folder(folder)
    try:
        tables = Tables(options.server)
        for problem in tables.load():
            say(f"note: {problem}")
        live = None
        links: list[tuple[str, str]] = []
        if tournament is not None:
            live = LiveTournament(tournament, tables, director_key(folder))
            links = live.open_round()
        if not options.freeze_every:
            options = dataclasses.replace(options, freeze_every=FREEZE_EVERY)
        app = create_app(options, tables, live)
        config = uvicorn.Config(
            app, host=host, port=port, access_log=False, log_level="warning", ws="websockets-sansio",
            ws_max_size=MAX_FRAME, ws_per_message_deflate=False, lifespan="on", server_header=False,
        )
        server = uvicorn.Server(config)
        open_tables = tables.open_count()
        shown = f"[{host}]" if ":" in host else host
        say(f"buraco serve: the lobby is at http://{shown}:{port}/ ; tables in {folder}: "
            f"{open_tables} unfinished, {len(tables.entries) - open_tables} ended")
        if live is not None:
            base = f"http://{shown}:{port}"
            tell(f"director: {base}/director#token={live.director_token}")
            for who, url in links:
                tell(f"{who}: {base}{url}")
            if not links:
                tell(live.idle_line())
        server.run()
    finally:
        os.close(lock)


__all__ = ["FREEZE_EVERY", "MAX_FRAME", "serve"]
