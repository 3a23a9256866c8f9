"""`buraco serve` in process: the HTTP API, the socket protocol and its refusals, whole games
played by scripted clients over the protocol (Starlette's TestClient; no network), their logs
audited, each view held against `buraco replay --as SEAT --json`, and the no-leak test: the
cards a seat never sees dealt otherwise, and every message it got compared byte for byte."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

pytest.importorskip("starlette", reason="the server's packages are not installed (pip install -e .)")

from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from buraco_events.audit.files import audit_path  # noqa: E402
from buraco_events.core.state import PLAYING_PHASES  # noqa: E402
from buraco_events.log.commit import deal_commitment, keyed_salts  # noqa: E402
from buraco_events.log.sources import read_log  # noqa: E402
from buraco_events.model.events import (  # noqa: E402
    Discarded,
    Drew,
    GameEnded,
    HandEnded,
    HandStarted,
    LaidOff,
    Melded,
    Note,
    StockRefilled,
    TookDead,
    TookPile,
)
from buraco_events.serve import protocol, tables  # noqa: E402
from buraco_events.serve.app import AppOptions, create_app  # noqa: E402
from buraco_events.serve.live import Client, TableOptions  # noqa: E402
from buraco_events.serve.remote import greedy_choice, rules_of  # noqa: E402
from buraco_events.serve.store import log_path, meta_path, token_hash  # noqa: E402
from buraco_events.serve.tables import NewTable, ServerOptions, Tables  # noqa: E402
from buraco_events.views.projections import Timeline  # noqa: E402

HOSTILE = "<img src=x onerror=alert(1)>"
#: the longest a socket waits for its next message (a test fails rather than hang)
WAIT = 20


class Sockets(TestClient):
    """A test client that closes the sockets opened through it when it closes (a socket left
    open would keep the app from stopping)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.players: list[Player] = []

    def __exit__(self, *exc: Any) -> None:
        for player in self.players:
            player.close()
        super().__exit__(*exc)


def make_app(folder: Path, tables_: Tables | None = None, **options: Any) -> Sockets:
    table = TableOptions(**{k: options.pop(k) for k in list(options) if k in TableOptions.__dataclass_fields__},
                         bot_delay=options.pop("bot_delay", 0))
    server = ServerOptions(folder=folder, bots=options.pop("bots", ("greedy", "random")),
                           max_tables=options.pop("max_tables", 1000), table=table)
    options.setdefault("message_rate", 1000.0)  # scripted players act far faster than people
    app = create_app(AppOptions(server=server, **options), tables_)
    return Sockets(app)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Sockets]:
    with make_app(tmp_path) as c:
        yield c


def create(c: TestClient, **body: Any) -> dict[str, Any]:
    answer = c.post("/api/tables", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def line_count(folder: Path, table_id: str) -> int:
    return len(log_path(folder, table_id).read_bytes().splitlines())


class Player:
    """One socket of a table (a seat, or a spectator when `token` is None): every text message it
    got, in order, and the last view."""

    def __init__(self, c: Sockets, table_id: str, token: str | None, humans: set[int]) -> None:
        query = f"?token={token}" if token else ""
        self.ctx = c.websocket_connect(f"/ws/{table_id}{query}")
        self.ws = self.ctx.__enter__()
        self.open = True
        c.players.append(self)
        self.texts: list[str] = []
        self.humans = humans
        self.hello = self.next()
        assert self.hello["type"] == "hello"
        self.rules = rules_of(self.hello)
        self.view: dict[str, Any] | None = None
        self.ended: dict[str, Any] | None = None

    def next(self) -> dict[str, Any]:
        """Return the next message but `presence` (which is kept in `texts` too)."""
        while True:
            text = self._receive()
            self.texts.append(text)
            message = json.loads(text)
            if message["type"] != "presence":
                break
        if message["type"] == "view":
            self.view = message
        elif message["type"] == "ended":
            self.ended = message
        return message

    def _receive(self) -> str:
        """Return the next text message, failing (rather than hanging) after `WAIT` seconds."""
        ws = self.ws

        async def take() -> Any:
            with anyio.fail_after(WAIT):
                return await ws._send_rx.receive()

        message = ws.portal.call(take)
        ws._raise_on_close(message)
        return message["text"]

    def rest(self) -> dict[str, Any] | None:
        """Read until the table waits for a person (that view), or the game's end (None)."""
        while True:
            message = self.next()
            if message["type"] == "ended":
                return None
            assert message["type"] != "error", message
            if message["type"] == "view" and message["to_play"] in self.humans:
                return message

    def send(self, obj: Any) -> None:
        self.ws.send_text(obj if isinstance(obj, str) else json.dumps(obj))

    def close(self) -> None:
        if self.open:
            self.open = False
            self.ctx.__exit__(None, None, None)


Chooser = Callable[[Player, dict[str, Any]], int]


def greedy(player: Player, view: dict[str, Any]) -> int:
    return greedy_choice(player.rules, view)


def play_out(players: dict[int, Player], watchers: list[Player], choose: Chooser = greedy,
             script: list[int] | None = None, at: list[dict[str, Any] | None] | None = None) -> list[int]:
    """Play the table to its end: the seat to play picks (`choose`, or the next id of `script`),
    every socket reads to the next point where a person must act (`at`: where each socket is
    already). Return the ids played."""
    everyone = [*players.values(), *watchers]
    if at is None:
        at = [p.rest() for p in everyone]
    played: list[int] = []
    while at[0] is not None:
        seqs = {view["seq"] for view in at if view is not None}
        assert len(seqs) == 1 and all(view is not None for view in at), "the sockets saw different tables"
        view = at[0]
        seat = view["to_play"]
        mine = players[seat].view
        assert mine is not None and mine["actions"], "the seat to play was offered nothing"
        action = script[len(played)] if script is not None else choose(players[seat], mine)
        played.append(action)
        players[seat].send({"type": "act", "seq": mine["seq"], "action": action})
        at = [p.rest() for p in everyone]
    assert all(view is None for view in at)
    return played


def whole_game(c: TestClient, folder: Path, n: int = 2, **body: Any) -> tuple[dict, dict[int, Player], Player]:
    made = create(c, players=n, target=0, **body)
    humans = {s["seat"] for s in made["seats"]}
    players = {s["seat"]: Player(c, made["table_id"], s["token"], humans) for s in made["seats"]}
    watcher = Player(c, made["table_id"], None, humans)
    play_out(players, [watcher])
    return made, players, watcher


# -- HTTP ---------------------------------------------------------------------------------------


def test_a_new_table_answers_a_link_per_person_and_keeps_no_token(client: TestClient, tmp_path: Path) -> None:
    made = create(client, variant="stbl", players=4, bots={"1": "greedy"}, names={"0": "ana"})
    table_id = made["table_id"]
    assert [s["seat"] for s in made["seats"]] == [0, 2, 3]
    for seat in made["seats"]:
        assert len(seat["token"]) >= 22  # 16 random bytes, URL-safe base64
        assert seat["url"] == f"/t/{table_id}#token={seat['token']}"
    assert made["spectate_url"] == f"/t/{table_id}"
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert all(s["token"].encode() not in stored for s in made["seats"])
    meta = json.loads(meta_path(tmp_path, table_id).read_text())
    assert meta["tokens"] == {str(s["seat"]): token_hash(s["token"]) for s in made["seats"]}
    key = tmp_path / f"{table_id}.jsonl.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    listed = client.get("/api/tables").json()["tables"]
    assert listed == [{"table_id": table_id, "variant": "stbl", "players": ["ana", "Bruno", "seat 2", "seat 3"],
                       "bots": {"1": "greedy"}, "status": "waiting", "hand": 0, "totals": None,
                       "created": meta["created"]}]
    names = [v["name"] for v in client.get("/api/variants").json()["variants"]]
    assert "stbl" in names and "burraco" in names


@pytest.mark.parametrize(("body", "status", "words"), [
    ({"variant": "nope"}, 400, "variant: unknown variant"),
    ({"players": 3}, 400, "players: Buraco is for 2 or 4"),
    ({"bots": {"1": "expert"}}, 400, "bots.1: this server seats the bots greedy, random"),
    ({"bots": {"1": "os:system"}}, 400, "bots.1"),
    ({"bots": {"7": "greedy"}}, 400, "bots: seats are"),
    ({"names": {"0": "a\x1b[31mb"}}, 400, "names.0: give 1 to 40 printable"),
    ({"names": {"0": "x" * 41}}, 400, "names.0"),
    ({"rules": {"no_such_rule": 1}}, 400, "rules: unknown rule parameter"),
    ({"rules": {"jokers": "many"}}, 400, "rules:"),
    ({"target": -5}, 400, "target:"),
    ({"hands_per_game": -1}, 400, "hands_per_game: give 0"),
    ({"rules": {"bonus_semiclean": -150}}, 400, "rules:"),
    ({"colour": "red"}, 400, "bad request"),
])
def test_a_bad_request_gets_one_line_and_writes_nothing(client: TestClient, tmp_path: Path, body: dict,
                                                        status: int, words: str) -> None:
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == status
    error = answer.json()["error"]
    assert words in error and "\n" not in error and "Traceback" not in error
    assert not list(tmp_path.glob("*.jsonl"))


def test_malformed_and_huge_bodies_are_refused(client: TestClient) -> None:
    answer = client.post("/api/tables", content=b"{not json", headers={"Content-Type": "application/json"})
    assert answer.status_code == 400 and answer.json()["error"].startswith("bad request")
    answer = client.post("/api/tables", content=b"[" + b"1," * 20000 + b"1]")
    assert answer.status_code == 413


def test_the_lobby_token_the_origin_the_rate_and_the_table_limit(tmp_path: Path) -> None:
    with make_app(tmp_path, lobby_token="s3cret-lobby-token-0123", create_rate=2, max_tables=2) as c:
        assert c.post("/api/tables", json={}).status_code == 401
        wrong = {"Authorization": "Bearer nope"}
        assert c.post("/api/tables", json={}, headers=wrong).status_code == 401
        good = {"Authorization": "Bearer s3cret-lobby-token-0123"}
        evil = {**good, "Origin": "http://evil.example"}
        assert c.post("/api/tables", json={}, headers=evil).status_code == 403
        same = {**good, "Origin": "http://testserver"}
        assert c.post("/api/tables", json={"players": 2}, headers=same).status_code == 201
        assert c.post("/api/tables", json={"players": 2}, headers=good).status_code == 201
        answer = c.post("/api/tables", json={"players": 2}, headers=good)
        assert answer.status_code == 429 and "a minute" in answer.json()["error"]
    (tmp_path / "full").mkdir()
    with make_app(tmp_path / "full", max_tables=1) as c:
        assert c.post("/api/tables", json={"players": 2}).status_code == 201
        answer = c.post("/api/tables", json={"players": 2})
        assert answer.status_code == 503 and "most open tables" in answer.json()["error"]


def test_the_log_and_pages_are_refused_before_the_end(client: TestClient) -> None:
    made = create(client, players=2)
    for page in ("log", "share", "audit"):
        answer = client.get(f"/tables/{made['table_id']}/{page}")
        assert answer.status_code == 403 and "not over" in answer.json()["error"]
    assert client.get("/tables/000000000000/log").status_code == 404
    assert client.get("/tables/..%2F..%2Fetc/log").status_code == 404


def test_the_cards_are_served_from_the_share_pages_one_home(client: TestClient) -> None:
    folder = resources.files("buraco_events.views").joinpath("share_page")
    own = folder.joinpath("cards.js").read_text("utf-8")
    script = client.get("/static/cards.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    # the file as the share page inlines it, then the names the live table's modules import
    assert script.text.startswith(own)
    exported = script.text[len(own):].strip()
    assert exported.startswith("export {") and " card," in exported and " visible " in exported
    style = client.get("/static/cards.css")
    assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")
    assert style.text == folder.joinpath("cards.css").read_text("utf-8")
    for page in ("/", "/t/000000000000"):
        head = client.get(page).text.split("</head>")[0]
        # the cards' style before the table's (which refines it), the module before its users
        assert head.index("/static/cards.css") < head.index("/static/table.css")
        assert head.index("/static/cards.js") < head.index('<script type="module"')


# -- the socket's refusals ---------------------------------------------------------------------


def _refused(c: TestClient, path: str) -> tuple[dict[str, Any], int]:
    with c.websocket_connect(path) as ws:
        message = json.loads(ws.receive_text())
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    return message, closed.value.code


def test_a_wrong_token_or_table_gets_one_error_and_the_socket_closes(client: TestClient) -> None:
    made = create(client, players=2)
    message, code = _refused(client, f"/ws/{made['table_id']}?token=not-a-token")
    assert message == {"type": "error", "message": "wrong token for this table (the spectator link has none)"}
    assert code == 4403
    message, code = _refused(client, "/ws/abcdefabcdef")
    assert message["type"] == "error" and "no table" in message["message"] and code == 4404
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(f"/ws/{made['table_id']}", headers={"Origin": "http://evil.example"}) as ws:
            ws.receive_text()


def test_every_bad_message_gets_one_error_and_changes_nothing(client: TestClient, tmp_path: Path) -> None:
    made = create(client, players=2)
    table_id = made["table_id"]
    seats = {s["seat"]: s["token"] for s in made["seats"]}
    players = {seat: Player(client, table_id, token, {0, 1}) for seat, token in seats.items()}
    views = {seat: p.rest() for seat, p in players.items()}
    to_play = views[0]["to_play"]
    mover, other = players[to_play], players[1 - to_play]
    seq = views[0]["seq"]
    lines = line_count(tmp_path, table_id)
    bad = [
        (mover, "{not json", "not JSON"),
        (mover, json.dumps({"type": "shout"}), "unknown message type 'shout'"),
        (mover, json.dumps({"type": "act", "seq": seq}), "bad message"),
        (mover, json.dumps({"type": "act", "seq": seq, "action": 0, "seat": 1}), "bad message"),
        (mover, json.dumps({"type": "act", "seq": seq - 1, "action": 0}), f"stale seq {seq - 1}"),
        (mover, json.dumps({"type": "act", "seq": seq, "action": 999}), "unknown action id 999"),
        (mover, json.dumps({"type": "act", "seq": seq, "action": -1}), "unknown action id -1"),
        (other, json.dumps({"type": "act", "seq": seq, "action": 0}), f"not your turn: seat {to_play} is to play"),
        (mover, json.dumps({"type": "ping", "pad": "x" * 5000}), "message too large"),
        (mover, "[]", "bad message"),
    ]
    for player, text, words in bad:
        player.send(text)
        player.send({"type": "ping"})
        answer = player.next()
        assert answer["type"] == "error" and words in answer["message"], (text[:60], answer)
        assert "Traceback" not in answer["message"] and "\n" not in answer["message"]
        assert player.next() == {"type": "pong"}  # one error, and the socket goes on
    mover.ws.send_bytes(b'{"type": "ping"}')
    assert mover.next() == {"type": "error", "message": "send JSON text frames"}
    watcher = Player(client, table_id, None, {0, 1})
    watcher.rest()
    watcher.send({"type": "act", "seq": seq, "action": 0})
    assert watcher.next() == {"type": "error", "message": "spectators watch: only a seat's link plays"}
    assert line_count(tmp_path, table_id) == lines
    mover.send({"type": "act", "seq": seq, "action": 0})  # the table goes on as before
    assert mover.rest() is not None and line_count(tmp_path, table_id) > lines
    for p in [*players.values(), watcher]:
        p.close()


def test_the_message_rate_of_a_socket_is_bounded(tmp_path: Path) -> None:
    with make_app(tmp_path, message_rate=1.0, message_burst=3) as c:
        made = create(c, players=2)
        player = Player(c, made["table_id"], made["seats"][0]["token"], {0, 1})
        player.rest()
        for _ in range(5):
            player.send({"type": "ping"})
        answers = [player.next() for _ in range(5)]
        assert [a["type"] for a in answers].count("pong") == 3
        assert all(a["message"].startswith("too many messages") for a in answers if a["type"] == "error")
        player.close()


# -- whole games ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_whole_game_of_two_people_ends_and_its_log_audits_with_its_commitments(client: TestClient,
                                                                                 tmp_path: Path) -> None:
    made, players, watcher = whole_game(client, tmp_path, names={"0": HOSTILE})
    table_id = made["table_id"]
    path = log_path(tmp_path, table_id)
    events = [event for _, _, event in read_log(path)]
    assert isinstance(events[-1], GameEnded)
    deals = [e for e in events if isinstance(e, HandStarted)]
    assert deals and all(d.commitment for d in deals)
    assert all(e.salt for e in events if isinstance(e, HandEnded))
    report = next(iter(audit_path(path))).report
    assert report.ok and report.complete and report.sealed, report.problems
    # every line carries its time; the tokens are nowhere in the folder
    assert all(e.at for e in events)
    folder = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert all(s["token"].encode() not in folder for s in made["seats"])
    # the socket told each seat the deal's commitment at the deal, and the salt at the end
    for player in players.values():
        views = [json.loads(t) for t in player.texts if json.loads(t)["type"] == "view"]
        assert {v["commitment"] for v in views if v["hand"] == 0 and v["seq"] >= deals[0].seq} == {deals[0].commitment}
        ended = [json.loads(t) for t in player.texts if json.loads(t)["type"] == "hand_ended"]
        assert deal_commitment(ended[0]["salt"], deals[0]) == deals[0].commitment
        assert player.ended is not None and player.ended["totals"] == list(events[-1].totals)
        assert player.hello["players"][0] == HOSTILE  # data, as given: the page escapes it
    assert client.get(f"/tables/{table_id}/log").content == path.read_bytes()
    for page in ("share", "audit"):
        answer = client.get(f"/tables/{table_id}/{page}")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
        assert HOSTILE not in answer.text and "default-src 'none'" in answer.headers["content-security-policy"]
    table_page = client.get(f"/t/{table_id}")
    assert HOSTILE not in table_page.text and "script-src 'self'" in table_page.headers["content-security-policy"]
    listed = client.get("/api/tables").json()["tables"][0]
    assert listed["status"] == "ended" and listed["totals"] == list(events[-1].totals)


@pytest.mark.slow
def test_each_view_is_what_replay_as_the_seat_shows_at_its_seq(client: TestClient, tmp_path: Path) -> None:
    made, players, watcher = whole_game(client, tmp_path)
    events = [event for _, _, event in read_log(log_path(tmp_path, made["table_id"]))]
    checked = 0
    for seat, player in [*players.items(), (None, watcher)]:
        for text in player.texts:
            message = json.loads(text)
            if message["type"] != "view":
                continue
            seq = message["seq"]
            timeline = Timeline(events[:seq + 1])
            if seat is None:
                view = message["view"]
                assert view["seat"] is None
                assert all(isinstance(h, int) for h in view["hands"]) or view["phase"] not in PLAYING_PHASES
                assert view["pending"] is None or isinstance(view["pending"]["rest"], int)
            else:
                expected = timeline.replay_object(seq, seat, sealed=True, error=None)
                assert message["view"] == json.loads(msgspec.json.encode(expected)), seq
            assert message["moves"] == [{"seq": seq, "text": protocol.move_text(
                events[seq], timeline.describe(seq), seat)}]
            checked += 1
    assert checked > 100


@pytest.mark.slow
def test_the_view_is_byte_for_byte_the_replay_command(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app

    with make_app(tmp_path) as c:
        made = create(c, players=2, bots={"1": "greedy"})
        player = Player(c, made["table_id"], made["seats"][0]["token"], {0})
        view = player.rest()
        player.close()
    inner = json.dumps(view["view"], separators=(",", ":"), ensure_ascii=False)
    run = CliRunner().invoke(app, ["replay", str(log_path(tmp_path, made["table_id"])), "--as", "0", "--json",
                                   "--at", str(view["seq"])])
    assert run.exit_code == 0, run.output
    assert json.loads(run.stdout) == view["view"]
    assert run.stdout.strip() == inner


def _never_seen(events: list) -> list[tuple[str, int, int]]:
    """Return the places of the first deal (`stock` or `deads`, which dead, index) whose cards
    nobody ever saw: those still in the stock when the hand ended (each place followed through
    draws from the top and refills, a dead going below the stock) and the deads nobody took."""
    deal = next(e for e in events if isinstance(e, HandStarted))
    end = next(e for e in events if isinstance(e, HandEnded))
    # the state's stock is listed top last, a deal's top first (the log format)
    stock = [("stock", 0, i) for i in reversed(range(len(deal.stock)))]
    for event in events[deal.seq + 1:end.seq]:
        if isinstance(event, Drew):
            stock.pop()
        elif isinstance(event, StockRefilled):
            stock = [("deads", event.dead, i) for i in reversed(range(len(deal.deads[event.dead])))] + stock
    state = Timeline(events[:end.seq]).final
    untaken = [("deads", d, i) for d, dead in enumerate(state.deads.left) if dead is not None for i in range(len(dead))]

    def card(place: tuple[str, int, int]) -> str:
        kind, d, i = place
        return deal.stock[i] if kind == "stock" else deal.deads[d][i]

    assert [card(p) for p in stock] == list(state.stock)
    assert [card(p) for p in untaken] == [c for dead in state.deads.left if dead is not None for c in dead]
    return stock + untaken


def _redealt(deal: HandStarted, places: list[tuple[str, int, int]], key: bytes) -> HandStarted:
    """Return the deal with the cards of `places` in reverse order, committed under `key`."""
    cards = [deal.stock[i] if kind == "stock" else deal.deads[d][i] for kind, d, i in places]
    stock, deads = list(deal.stock), [list(d) for d in deal.deads]
    for (kind, d, i), card in zip(places, reversed(cards), strict=True):
        if kind == "stock":
            stock[i] = card
        else:
            deads[d][i] = card
    other = msgspec.structs.replace(deal, stock=tuple(stock), deads=tuple(tuple(d) for d in deads), commitment=None)
    return msgspec.structs.replace(other, commitment=deal_commitment(keyed_salts(key)(0), other))


@pytest.mark.slow
def test_no_message_depends_on_a_card_its_socket_cannot_see(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Play a 4-player hand over the protocol; deal it again with the cards nobody saw permuted
    (the same public events); replay the same choices: every seat's and the spectator's messages
    are the same bytes (the deal's commitment aside: a salted hash of the whole deck)."""
    key = bytes(range(32))
    monkeypatch.setattr(tables, "new_table_id", lambda: "0123456789ab")
    monkeypatch.setattr(tables, "new_key", lambda folder, table_id: (
        (folder / f"{table_id}.jsonl.key").write_text(key.hex() + "\n"), key)[1])

    def play(folder: Path, deal: HandStarted | None, script: list[int] | None) -> tuple[dict, list[int], list]:
        folder.mkdir()
        held = Tables(ServerOptions(folder=folder, table=TableOptions(bot_delay=0)))
        fixed = None if deal is None else (lambda state: deal if state.hand_no == -1 else None)
        with make_app(folder, held) as c:
            live, tokens = c.portal.call(lambda: held.create(NewTable(players=4, target=0), deals=fixed))
            players = {seat: Player(c, live.table_id, token, set(tokens)) for seat, token in tokens.items()}
            watcher = Player(c, live.table_id, None, set(tokens))
            ids = play_out(players, [watcher], script=script)
            texts = {seat: p.texts for seat, p in players.items()} | {None: watcher.texts}
        return texts, ids, [e for _, _, e in read_log(log_path(folder, live.table_id))]

    first, ids, events = play(tmp_path / "a", None, None)
    deal = next(e for e in events if isinstance(e, HandStarted))
    places = _never_seen(events)
    other = _redealt(deal, places, key)
    assert (other.stock, other.deads) != (deal.stock, deal.deads), "nothing to deal otherwise"
    second, again, redealt = play(tmp_path / "b", other, ids)
    assert again == ids
    dealt = next(e for e in redealt if isinstance(e, HandStarted))
    assert (dealt.stock, dealt.deads, dealt.hands) == (other.stock, other.deads, deal.hands)
    for who, texts in first.items():
        same = [t.replace(deal.commitment or "-", "C") for t in texts]
        changed = [t.replace(other.commitment or "-", "C") for t in second[who]]
        assert same == changed, who
    assert [e.seq for e in events] == [e.seq for e in redealt]


# -- bots, clocks, spectators, restarts -------------------------------------------------------------


@pytest.mark.slow
def test_a_person_against_a_bot_plays_to_the_end(client: TestClient, tmp_path: Path) -> None:
    made = create(client, players=2, bots={"1": "greedy"}, target=0)
    player = Player(client, made["table_id"], made["seats"][0]["token"], {0})
    play_out({0: player}, [])
    assert player.ended is not None and player.ended["share_url"] == f"/tables/{made['table_id']}/share"
    report = next(iter(audit_path(log_path(tmp_path, made["table_id"])))).report
    assert report.ok and report.complete


def test_a_clock_that_runs_out_plays_the_greedy_move_after_a_note_by_the_table(tmp_path: Path) -> None:
    with make_app(tmp_path, clock=0.05) as c:
        made = create(c, players=2, bots={"1": "greedy"})
        player = Player(c, made["table_id"], made["seats"][0]["token"], {0})
        while True:  # the person never acts: the table acts for them
            message = player.next()
            if message["type"] == "view" and message["view"]["event"].startswith(f"seq {message['seq']}: note by table"):
                break
        note_seq = message["seq"]
        following = player.next()
        player.close()
    events = [e for _, _, e in read_log(log_path(tmp_path, made["table_id"]))]
    note = events[note_seq]
    assert isinstance(note, Note) and note.by == "table" and "seat 0's clock ran out" in note.text
    assert getattr(events[note_seq + 1], "player", None) == 0
    assert following["seq"] == note_seq + 1
    assert message["clock"] is None or message["clock"]["seat"] == 0


@pytest.mark.slow
def test_spectators_see_the_public_view_some_events_late(tmp_path: Path) -> None:
    with make_app(tmp_path, spectator_delay=3) as c:
        made = create(c, players=2, target=0)
        humans = {0, 1}
        players = {s["seat"]: Player(c, made["table_id"], s["token"], humans) for s in made["seats"]}
        watcher = Player(c, made["table_id"], None, humans)
        at = [p.rest() for p in players.values()]
        for _ in range(6):
            seat = at[0]["to_play"]
            players[seat].send({"type": "act", "seq": at[0]["seq"], "action": greedy(players[seat], players[seat].view)})
            at = [p.rest() for p in players.values()]
        now = at[0]["seq"]
        while watcher.view is None or watcher.view["seq"] < now - 3:
            watcher.next()
        assert watcher.view["seq"] == now - 3
        assert watcher.view["view"]["seat"] is None
        assert all(isinstance(h, int) for h in watcher.view["view"]["hands"])
        play_out(players, [], at=at)
        while watcher.ended is None:  # once over, nothing is held back
            watcher.next()


def test_a_slow_client_is_dropped_and_never_holds_the_table() -> None:
    import asyncio

    async def run() -> None:
        client = Client(0, limit=3)
        dropped: list[bool] = []
        client.on_drop = lambda: dropped.append(True)
        for i in range(3):
            client.push(b"%d" % i)
        assert not client.dropped
        client.push(b"3")  # full: dropped at once, never waited on
        assert client.dropped and dropped == [True]
        assert client.queue.get_nowait() is None and client.queue.empty()
        client.push(b"4")
        assert client.queue.empty()

    asyncio.run(run())


def test_a_restart_resumes_the_table_from_its_log_and_the_seat_comes_back(tmp_path: Path) -> None:
    with make_app(tmp_path) as c:
        made = create(c, players=2, target=0)
        players = {s["seat"]: Player(c, made["table_id"], s["token"], {0, 1}) for s in made["seats"]}
        at = [p.rest() for p in players.values()]
        for _ in range(5):
            seat = at[0]["to_play"]
            players[seat].send({"type": "act", "seq": at[0]["seq"], "action": greedy(players[seat], players[seat].view)})
            at = [p.rest() for p in players.values()]
        before = [json.loads(t) for t in players[0].texts]
        told = before[0]["moves"] + [m for b in before if b["type"] == "view" for m in b["moves"]]
        for p in players.values():
            p.close()
    lines = log_path(tmp_path, made["table_id"]).read_bytes()
    with make_app(tmp_path) as c:
        listed = c.get("/api/tables").json()["tables"]
        assert [t["status"] for t in listed] == ["playing"]
        players = {s["seat"]: Player(c, made["table_id"], s["token"], {0, 1}) for s in made["seats"]}
        moves = players[0].hello["moves"]
        again = [p.rest() for p in players.values()]
        view = again[0]
        assert view["seq"] == at[0]["seq"] and len(moves) == view["seq"]
        assert moves == told[:view["seq"]]
        assert log_path(tmp_path, made["table_id"]).read_bytes() == lines
        play_out(players, [], at=again)
    report = next(iter(audit_path(log_path(tmp_path, made["table_id"])))).report
    assert report.ok and report.complete


def test_the_newest_socket_of_a_seat_wins(client: TestClient) -> None:
    made = create(client, players=2)
    token = made["seats"][0]["token"]
    first = Player(client, made["table_id"], token, {0, 1})
    first.rest()
    second = Player(client, made["table_id"], token, {0, 1})
    second.rest()
    while True:
        message = first.next()
        if message["type"] == "error":
            break
    assert "opened elsewhere" in message["message"]
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            first.next()
    assert closed.value.code == 4409
    second.close()


def test_the_serve_command_refuses_bad_options_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app

    for args, words in [
        (["--bots", "mybots:Clever"], "--bots: unknown bot"),
        (["--clock", "0"], "--clock: give 1 to 86400"),
        (["--spectator-delay", "-1"], "--spectator-delay"),
        (["--max-tables", "0"], "--max-tables"),
        (["--lobby-token", "short"], "--lobby-token: give at least 16"),
    ]:
        run = CliRunner().invoke(app, ["serve", "--dir", str(tmp_path / "t"), *args])
        assert run.exit_code == 2, run.output
        assert words in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert os.listdir(tmp_path) in ([], ["t"])


def _hidden_at(events: list, cut: int, seat: int | None) -> list[tuple[str, int, int]]:
    """Return the places of the first deal whose cards `seat` (None: a spectator) has not seen by
    seq `cut`: the stock not drawn yet, the deads not taken, and in every other seat's dealt hand
    the cards of a value that no event before `cut` showed or moved (never laid, discarded, taken
    from the pile or a dead, nor drawn by anyone, so every copy dealt is still where it was)."""
    deal = next(e for e in events if isinstance(e, HandStarted))
    before = events[deal.seq + 1:cut + 1]
    assert not any(isinstance(e, HandEnded | StockRefilled) for e in before)
    moved = set(deal.discard)
    drawn = 0
    for event in before:
        if isinstance(event, Drew):
            moved.add(event.card)
            drawn += 1
        elif isinstance(event, Discarded):
            moved.add(event.card)
        elif isinstance(event, Melded | LaidOff | TookPile | TookDead):
            moved.update(event.cards)
    taken = {e.dead for e in before if isinstance(e, TookDead)}
    places = [("stock", 0, i) for i in range(drawn, len(deal.stock))]  # a deal's stock: top first
    places += [("deads", d, i) for d in range(len(deal.deads)) if d not in taken for i in range(len(deal.deads[d]))]
    for other, hand in enumerate(deal.hands):
        if other != seat:
            places += [("hands", other, i) for i, card in enumerate(hand) if card not in moved]
    return places


def _card_at(deal: HandStarted, place: tuple[str, int, int]) -> str:
    kind, which, i = place
    return deal.stock[i] if kind == "stock" else getattr(deal, kind)[which][i]


def _shuffled(deal: HandStarted, places: list[tuple[str, int, int]], key: bytes) -> HandStarted:
    """Return the deal with the cards of `places` rotated by one place, committed under `key`."""
    cards = [_card_at(deal, p) for p in places]
    cards = cards[1:] + cards[:1]
    table = {"stock": [list(deal.stock)], "deads": [list(d) for d in deal.deads], "hands": [list(h) for h in deal.hands]}
    for (kind, which, i), card in zip(places, cards, strict=True):
        table[kind][which][i] = card
    other = msgspec.structs.replace(deal, stock=tuple(table["stock"][0]), commitment=None,
                                    deads=tuple(map(tuple, table["deads"])), hands=tuple(map(tuple, table["hands"])))
    return msgspec.structs.replace(other, commitment=deal_commitment(keyed_salts(key)(0), other))


@pytest.mark.slow
def test_no_message_before_a_card_is_seen_depends_on_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mid-hand: for each seat and a spectator, deal again with every card it has not seen by then
    moved to another of those places (the other hands' unplayed cards, the stock, the deads),
    replay the same moves by value up to there: everything that socket got is the same bytes."""
    key = bytes(range(32))
    monkeypatch.setattr(tables, "new_table_id", lambda: "0123456789ab")
    monkeypatch.setattr(tables, "new_key", lambda folder, table_id: (
        (folder / f"{table_id}.jsonl.key").write_text(key.hex() + "\n"), key)[1])

    def play(folder: Path, deal: HandStarted | None, moves: dict[int, dict] | None, cut: int | None) -> tuple:
        folder.mkdir()
        held = Tables(ServerOptions(folder=folder, table=TableOptions(bot_delay=0)))
        fixed = None if deal is None else (lambda state: deal if state.hand_no == -1 else None)
        played: dict[int, dict] = {}
        with make_app(folder, held) as c:
            live, tokens = c.portal.call(lambda: held.create(NewTable(players=4, target=0), deals=fixed))
            players = {seat: Player(c, live.table_id, token, set(tokens)) for seat, token in tokens.items()}
            watcher = Player(c, live.table_id, None, set(tokens))
            everyone = [*players.values(), watcher]
            at = [p.rest() for p in everyone]
            while at[0] is not None and (cut is None or at[0]["seq"] < cut):
                mine = players[at[0]["to_play"]].view
                if moves is None:
                    item = mine["actions"][greedy(players[at[0]["to_play"]], mine)]
                else:  # the same move by value: its id may differ, the hands being dealt otherwise
                    want = moves[mine["seq"]]
                    same = [a for a in mine["actions"] if (a["kind"], a["cards"], a["meld"], a["dead"]) ==
                            (want["kind"], want["cards"], want["meld"], want["dead"])]
                    assert len(same) == 1, (mine["seq"], want, [a["text"] for a in mine["actions"]])
                    item = same[0]
                played[mine["seq"]] = item
                players[at[0]["to_play"]].send({"type": "act", "seq": mine["seq"], "action": item["id"]})
                at = [p.rest() for p in everyone]
            texts = {seat: list(p.texts) for seat, p in players.items()} | {None: list(watcher.texts)}
        events = [e for _, _, e in read_log(log_path(folder, live.table_id))]
        return texts, played, events, at

    first, moves, events, _ = play(tmp_path / "a", None, None, None)
    deal = next(e for e in events if isinstance(e, HandStarted))
    end = next(e for e in events if isinstance(e, HandEnded))
    # a turn's start (after a discard): a pile taken before it was melded from before it
    rests = sorted(seq for seq in moves if deal.seq < seq < end.seq and isinstance(events[seq], Discarded) and
                   not any(isinstance(e, StockRefilled) for e in events[deal.seq:seq + 1]))
    cut = rests[len(rests) // 2]
    for n, seat in enumerate([0, 1, 2, 3, None]):
        places = _hidden_at(events, cut, seat)
        other = _shuffled(deal, places, key)
        assert (other.hands, other.stock, other.deads) != (deal.hands, deal.stock, deal.deads)
        second, _, _, at = play(tmp_path / f"b{n}", other, moves, cut)
        assert at[0] is not None and at[0]["seq"] == cut

        def upto(texts: list[str], commitment: str) -> list[str]:
            kept = []
            for text in texts:
                kept.append(text.replace(commitment, "C"))
                if json.loads(text).get("type") == "view" and json.loads(text)["seq"] == cut:
                    return kept
            raise AssertionError(f"no view at seq {cut}")

        assert upto(first[seat], deal.commitment) == upto(second[seat], other.commitment), seat


def test_a_running_server_keeps_what_lives_out_of_full_collections_and_still_collects() -> None:
    """The collector policy: objects alive at a freeze leave the collector's reach (a full
    collection with 1,000 tables open stalled every table for 0.2-0.6 s), and the periodic full
    collection brings them back, so a cycle that died meanwhile (an ended table's) is freed."""
    import asyncio
    import gc
    import weakref

    from buraco_events.serve.app import _collector

    async def scenario() -> tuple[bool, bool, bool]:
        task = asyncio.get_running_loop().create_task(_collector(0.01, 0.1))
        alive = _Cyclic()
        ref = weakref.ref(alive)
        await asyncio.sleep(0.03)  # at least one freeze with the cycle alive
        frozen = gc.get_freeze_count() > 0
        del alive
        gc.collect()  # no await since the freeze: the collector task cannot run in between
        kept_by_freeze = ref() is not None
        for _ in range(100):
            await asyncio.sleep(0.02)
            if ref() is None:
                break
        task.cancel()
        return frozen, kept_by_freeze, ref() is None

    try:
        frozen, kept_by_freeze, freed = asyncio.run(scenario())
    finally:
        gc.unfreeze()
    assert (frozen, kept_by_freeze, freed) == (True, True, True)


def test_a_stopped_server_leaves_the_collector_as_it_found_it(tmp_path: Path) -> None:
    import gc
    import time

    assert gc.get_freeze_count() == 0
    with make_app(tmp_path, freeze_every=0.01) as c:
        create(c, variant="stbl", players=2, bots={"1": "greedy"})
        deadline = time.monotonic() + 10
        while gc.get_freeze_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


class _Cyclic:
    def __init__(self) -> None:
        self.me = self
