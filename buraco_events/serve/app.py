"""The HTTP and WebSocket side of `buraco serve`: a Starlette app over `tables.Tables`.

Routes (docs/serve.md is the protocol): the lobby and table pages and their assets (the client's,
in `static/`, and `static/cards.js` and `cards.css`: the share page's card drawing, one home for
both), `POST /api/tables` and `GET /api/tables`, `GET /api/variants`, a finished game's log,
share page and audit page, and the table's socket `GET /ws/{table_id}?token=T`. With a tournament
(`tournament.LiveTournament`), the director's page `/director`, its facts `GET /api/director` and
its buttons `POST /api/director/close` and `POST /api/director/pair`, each asking for the
director's token (Authorization: Bearer TOKEN; the page keeps it in the URL's fragment).

What keeps it safe (docs/serve.md, security): a seat's token is compared by hash in constant time
and never logged (the access log is off; the pages keep it in the URL's fragment); a socket acts
for its own seat only; every socket's messages are limited in size and rate, and every bad one
gets one `error` message, never a traceback; the Origin header, when a browser sends one, must be
this host; creating tables is limited per client address and minute, by `--max-tables`, and by
`--lobby-token` when set. Pages go out with a Content-Security-Policy that lets them load nothing
from elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import hmac
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from buraco_events.core.gate import IllegalMove
from buraco_events.log.lines import LogError
from buraco_events.tournament.state import TournamentError
from buraco_events.views.projections import Timeline

from . import protocol
from .live import REPLACED, Client, LiveTable, TableClosed
from .store import TABLE_ID, StoreError, log_path, seat_of_token
from .tables import Ended, NewTable, Refused, ServerOptions, Tables, variants
from .tournament import LiveTournament

#: the largest body of `POST /api/tables`
MAX_BODY = 16 * 1024
#: the finished games' pages kept ready (a page is made once per game, then served from here)
PAGES_KEPT = 32
#: where the lobby and table pages may load from: this server only; sockets to this host
PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
               "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
#: a finished game's share or audit page: self-contained, it loads nothing at all
SELF_CONTAINED_POLICY = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                         "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


@dataclass
class AppOptions:
    """A server's options beyond its tables': who may create tables and how fast, and how much
    each socket may send."""

    server: ServerOptions
    lobby_token: str | None = None
    #: tables one client address may create per minute (0: no limit)
    create_rate: int = 30
    #: messages a socket may send per second, and in one burst
    message_rate: float = 50.0
    message_burst: int = 100
    #: the collector's policy for a long-running server (seconds; 0: Python's own): every
    #: `freeze_every` the objects alive move out of the collector's reach (`gc.freeze`), so a
    #: full collection never walks every table's state (with 1,000 tables it stalled the loop
    #: 0.2-0.6 s); every `collect_every` they come back for one full collection, which frees the
    #: cycles of ended tables and closed sockets, so memory stays bounded
    freeze_every: float = 0.0
    collect_every: float = 600.0
    #: where the client's files are (the package's `static/` folder)
    static: Path = field(default_factory=lambda: Path(str(resources.files("buraco_events.serve") / "static")))


class Bucket:
    """A token bucket: `take` answers whether one more message fits the rate."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.level, self.at = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level < 1:
            return False
        self.level -= 1
        return True


class CreateLimit:
    """Tables created per client address in the last minute."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self.times: dict[str, deque[float]] = {}

    def allow(self, address: str) -> bool:
        if self.per_minute <= 0:
            return True
        now = time.monotonic()
        for key in [k for k, q in self.times.items() if not q or q[-1] < now - 60]:
            del self.times[key]  # addresses quiet for a minute are forgotten
        times = self.times.setdefault(address, deque())
        while times and times[0] < now - 60:
            times.popleft()
        if len(times) >= self.per_minute:
            return False
        times.append(now)
        return True


def _json(obj: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(obj), status_code=status, media_type="application/json",
                    headers={**_HEADERS, "Cache-Control": "no-store"})


def _error(message: str, status: int) -> Response:
    return _json({"error": " ".join(message.split())}, status)


def origin_ok(conn: HTTPConnection) -> bool:
    """Return whether a request's Origin (when it has one: browsers send it) is this host."""
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    host = conn.headers.get("host", "")
    return urlsplit(origin).netloc.lower() == host.lower() and host != ""


def _same_token(given: str, expected: str) -> bool:
    return hmac.compare_digest(hashlib.sha256(given.encode("utf-8", "surrogatepass")).digest(),
                               hashlib.sha256(expected.encode()).digest())


async def _collector(freeze_every: float, collect_every: float) -> None:
    """Keep full collections short: freeze what lives every `freeze_every` seconds, and collect
    everything once every `collect_every` seconds (see `AppOptions.freeze_every`)."""
    since_collect = 0.0
    while True:
        await asyncio.sleep(freeze_every)
        since_collect += freeze_every
        if since_collect >= collect_every:
            since_collect = 0.0
            gc.unfreeze()
            gc.collect()
        gc.freeze()


def _bearer(request: Request, token: str, what: str) -> Response | None:
    """Return the refusal of a request without `token` as its bearer (None: it has it)."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not _same_token(given.strip(), token):
        return _error(f"{what} needs this server's {what.split()[0]} token (Authorization: Bearer TOKEN)", 401)
    return None


def create_app(options: AppOptions, tables: Tables | None = None,
               tournament: LiveTournament | None = None) -> Starlette:
    """Return the app; `tables` (made and loaded from the folder when not given) is the app's;
    with `tournament`, its open round's tables are the tournament's and `/director` is served."""
    if tables is None:
        tables = Tables(options.server)
        tables.load()
    limits = CreateLimit(options.create_rate)
    pages: OrderedDict[tuple[str, str], bytes] = OrderedDict()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tables.start()
        if tournament is not None:
            tournament.start()
        collector = (asyncio.get_running_loop().create_task(
            _collector(options.freeze_every, options.collect_every)) if options.freeze_every else None)
        try:
            yield
        finally:
            if collector is not None:
                collector.cancel()
                gc.unfreeze()
            if tournament is not None:
                tournament.close()
            tables.close()

    def page(name: str) -> Callable[[Request], Any]:
        async def serve(request: Request) -> Response:
            path = options.static / name
            if not path.is_file():
                return _error(f"{name} is not installed", 404)
            return FileResponse(path, media_type="text/html; charset=utf-8",
                                headers={**_HEADERS, "Content-Security-Policy": PAGE_POLICY})
        return serve

    async def cards_file(request: Request) -> Response:
        # the share page's card drawing, the one home of the cards (views/share_page/cards.*)
        from buraco_events.views.share import cards_css, cards_module

        if request.url.path.endswith(".js"):
            return Response(cards_module(), media_type="text/javascript; charset=utf-8", headers=_HEADERS)
        return Response(cards_css(), media_type="text/css; charset=utf-8", headers=_HEADERS)

    async def list_tables(request: Request) -> Response:
        return _json({"tables": tables.listing()})

    async def list_variants(request: Request) -> Response:
        return _json({"variants": variants()})

    async def create_table(request: Request) -> Response:
        if options.lobby_token is not None:
            refused = _bearer(request, options.lobby_token, "lobby")
            if refused is not None:
                return _error("creating a table needs this server's lobby token (Authorization: Bearer TOKEN)", 401)
        if not origin_ok(request):
            return _error("Origin is not this server", 403)
        address = request.client.host if request.client is not None else "?"
        if not limits.allow(address):
            return _error(f"at most {options.create_rate} new tables a minute from one address; try later", 429)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                return _error(f"the request is over {MAX_BODY:,} bytes", 413)
        try:
            spec = msgspec.json.decode(body or b"{}", type=NewTable)
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            return _error(f"bad request: {exc}", 400)
        try:
            live, tokens = tables.create(spec)
        except Refused as exc:
            return _error(str(exc), exc.status)
        table_id = live.table_id
        return _json({
            "table_id": table_id,
            "seats": [{"seat": seat, "url": f"/t/{table_id}#token={token}", "token": token}
                      for seat, token in tokens.items()],
            "spectate_url": f"/t/{table_id}",
        }, 201)

    def ended_path(request: Request) -> Path | Response:
        table_id = request.path_params["table_id"]
        entry = tables.get(table_id) if TABLE_ID.match(table_id) else None
        if entry is None:
            return _error(f"no table {table_id[:40]!r}", 404)
        if not isinstance(entry, Ended) and not entry.over:
            return _error("the game is not over: its log and pages are public once it has ended", 403)
        return log_path(tables.folder, table_id)

    async def game_log(request: Request) -> Response:
        path = ended_path(request)
        if isinstance(path, Response):
            return path
        return FileResponse(path, media_type="application/jsonl", headers=_HEADERS)

    def game_page(kind: str) -> Callable[[Request], Any]:
        async def serve(request: Request) -> Response:
            path = ended_path(request)
            if isinstance(path, Response):
                return path
            key = (path.name, kind)
            data = pages.get(key)
            if data is None:
                try:
                    data = await run_in_threadpool(share_page if kind == "share" else audit_page, path)
                except (OSError, LogError) as exc:
                    return _error(f"the game's page cannot be made: {exc}", 500)
                pages[key] = data
                while len(pages) > PAGES_KEPT:
                    pages.popitem(last=False)
            pages.move_to_end(key)
            return Response(data, media_type="text/html; charset=utf-8",
                            headers={**_HEADERS, "Content-Security-Policy": SELF_CONTAINED_POLICY})
        return serve

    async def socket(websocket: WebSocket) -> None:
        if not origin_ok(websocket):
            await websocket.close(code=1008)  # before accepting: the handshake is refused (403)
            return
        await websocket.accept()
        table_id = websocket.path_params["table_id"]
        token = websocket.query_params.get("token")
        try:
            live = tables.watch(table_id) if TABLE_ID.match(table_id) else None
        except (OSError, LogError, IllegalMove) as exc:
            await _refuse(websocket, f"the table cannot be shown: {exc}", 1011)
            return
        if live is None:
            await _refuse(websocket, f"no table {table_id[:40]!r}", 4404)
            return
        seat = None
        if token:
            seat = seat_of_token(token, live.meta)
            if seat is None:
                await _refuse(websocket, "wrong token for this table (the spectator link has none)", 4403)
                return
        elif live.meta.seed is not None and not live.over:
            await _refuse(websocket, "a tournament's table is watched once its game is over (another table "
                          "may be playing the same deals)", 4403)
            return
        await _session(websocket, live, seat, options)

    async def director_view(request: Request) -> Response:
        assert tournament is not None
        refused = _bearer(request, tournament.director_token, "director page")
        if refused is not None:
            return refused
        try:
            await run_in_threadpool(tournament.standings)  # the game logs audited off the loop
            return _json(tournament.snapshot())
        except (TournamentError, OSError) as exc:
            return _error(f"the tournament cannot be shown: {exc}", 500)

    def director_act(action: str) -> Callable[[Request], Any]:
        async def act(request: Request) -> Response:
            return await _director_act(request, action)
        return act

    async def _director_act(request: Request, action: str) -> Response:
        assert tournament is not None
        refused = _bearer(request, tournament.director_token, "director page")
        if refused is not None:
            return refused
        if not origin_ok(request):
            return _error("Origin is not this server", 403)
        try:
            async with tournament.writing:
                if action == "close":
                    await run_in_threadpool(tournament.close_round)
                else:
                    await run_in_threadpool(tournament.pair)
                    tournament.open_round()
            await run_in_threadpool(tournament.standings)
            return _json(tournament.snapshot())
        except TournamentError as exc:
            return _error(str(exc), 409)
        except (StoreError, OSError, LogError) as exc:
            return _error(f"the round's tables cannot be opened: {exc}", 500)

    director_routes = [
        Route("/director", page("director.html")),
        Route("/api/director", director_view, methods=["GET"]),
        Route("/api/director/close", director_act("close"), methods=["POST"]),
        Route("/api/director/pair", director_act("pair"), methods=["POST"]),
    ] if tournament is not None else []
    routes = [
        *director_routes,
        Route("/", page("lobby.html")),
        Route("/t/{table_id}", page("table.html")),
        Route("/api/tables", list_tables, methods=["GET"]),
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/variants", list_variants),
        Route("/tables/{table_id}/log", game_log),
        Route("/tables/{table_id}/share", game_page("share")),
        Route("/tables/{table_id}/audit", game_page("audit")),
        WebSocketRoute("/ws/{table_id}", socket),
        Route("/static/cards.js", cards_file),
        Route("/static/cards.css", cards_file),
        Mount("/static", StaticFiles(directory=options.static, check_dir=False), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.tables = tables
    app.state.tournament = tournament
    return app


async def _refuse(websocket: WebSocket, message: str, code: int) -> None:
    await websocket.send_text(protocol.error_message(message).decode())
    await websocket.close(code=code)


async def _session(websocket: WebSocket, live: LiveTable, seat: int | None, options: AppOptions) -> None:
    """Serve one socket of a table: its writer task sends its queue; this reads its messages."""
    client = Client(seat, live.options.queue_limit)
    loop = asyncio.get_running_loop()
    sending = False

    async def write() -> None:
        nonlocal sending
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            while (data := await client.queue.get()) is not None:
                sending = True
                await websocket.send_text(data.decode())
                sending = False
            await websocket.close(code=client.close_code)  # dropped: too slow, or replaced

    writer = loop.create_task(write())
    closing: set[asyncio.Task[None]] = set()

    def dropped() -> None:
        if sending and client.close_code != REPLACED:  # stuck on a socket that does not read: close it
            writer.cancel()
            task = loop.create_task(_close_quietly(websocket, client.close_code))
            closing.add(task)
            task.add_done_callback(closing.discard)

    client.on_drop = dropped
    live.join(client)
    bucket = Bucket(options.message_rate, options.message_burst)
    try:
        while not client.dropped:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:
                client.push(protocol.error_message("send JSON text frames"))
            elif not bucket.take():
                client.push(protocol.error_message(
                    f"too many messages: at most {options.message_rate:g} a second"))
            else:
                _handle(live, client, text)
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass
    finally:
        live.leave(client)
        client.drop()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(writer, timeout=5)


async def _close_quietly(websocket: WebSocket, code: int) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        await websocket.close(code=code)


def _handle(live: LiveTable, client: Client, text: str) -> None:
    """Answer one message of a socket: an action played, a pong, or one error message."""
    try:
        message = protocol.read_message(text)
        if isinstance(message, protocol.Ping):
            client.push(protocol.PONG)
            return
        live.act(client.seat, message.seq, message.action)
    except IllegalMove as exc:
        client.push(protocol.error_message(exc.public_text()))
    except (ValueError, TableClosed) as exc:  # BadMessage, a stale seq, not this seat's turn...
        client.push(protocol.error_message(str(exc)))


def share_page(path: Path) -> bytes:
    """Return the share page of a finished game's log (every card: the game is over)."""
    from buraco_events.views.replays import load, shown_name
    from buraco_events.views.share import replay_page, timeline_steps

    loaded = load(path)
    timeline = Timeline(loaded.events)
    steps = timeline_steps(timeline, None, sealed=loaded.sealed, error=loaded.error)
    opening = timeline.hand_start(0) if timeline.n_hands else 0
    page = replay_page(steps, source=shown_name(path), head=loaded.head, sealed=loaded.sealed, seat=None,
                       at=opening, rules=msgspec.to_builtins(timeline.final.rules))
    return page.encode()


def audit_page(path: Path) -> bytes:
    """Return the audit's report page of a finished game's log."""
    from buraco_events.audit.files import audit_path
    from buraco_events.views.replays import report_page

    report = next(iter(audit_path(path))).report
    page, _ = report_page(report)
    return page.encode()


__all__ = ["AppOptions", "audit_page", "create_app", "origin_ok", "share_page"]
