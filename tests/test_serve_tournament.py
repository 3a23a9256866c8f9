"""`buraco serve --tournament`: the open round's tables live, played by scripted clients over the
socket protocol (Starlette's TestClient, in process), each result appended to the tournament log
as its game ends (the log audits clean, the standings count it), the next round paired from the
director's page without a restart; the deals are `tournament play`'s (with duplicate deals, every
table the same cards); a seat's link acts at its own table only; the director's facts need the
director's token and hold no card; the tournament log's one writer at a time; a restart gives
the same links."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest

pytest.importorskip("starlette", reason="the server's packages are not installed (pip install -e .)")

from test_serve import Player, Sockets, greedy, play_out  # noqa: E402

from buraco_events.log.sources import read_log  # noqa: E402
from buraco_events.model.events import HandStarted  # noqa: E402
from buraco_events.serve.app import AppOptions, create_app  # noqa: E402
from buraco_events.serve.live import TableOptions  # noqa: E402
from buraco_events.serve.store import log_path  # noqa: E402
from buraco_events.serve.tables import ServerOptions, Tables  # noqa: E402
from buraco_events.serve.tournament import LiveTournament, director_key, table_id_of  # noqa: E402
from buraco_events.tournament import director  # noqa: E402
from buraco_events.tournament.games import play_table, table_job  # noqa: E402
from buraco_events.tournament.scale import ITALIAN_3  # noqa: E402
from buraco_events.tournament.state import TournamentError  # noqa: E402
from buraco_events.tournament.store import read_tournament  # noqa: E402

AT = "2026-12-07T20:00:00Z"
HOSTILE = "<img src=x onerror=alert(1)>"
#: the longest a test waits for the server to record a result
WAIT = 30


def new_tournament(folder: Path, form: str = "singles", deals: str = "random", entries: int = 4,
                   rounds: int = 2, hands: int = 1) -> Path:
    """A tournament of `hands`-hand games (`burraco-torneo`) of `entries` entries, paired for round 1."""
    path = folder / "club.jsonl"
    director.new(path, name=f"Club {HOSTILE}", form=form, variant="burraco-torneo", rules={"hands_per_game": hands},
                 movement="round_robin", rounds=min(rounds, entries - 1), deals=deals, scale=ITALIAN_3, director="ana", at=AT,
                 tournament_id="club-1")
    per = 2 if form == "pairs" else 1
    for e in range(entries):
        players = [f"p{e}{k}" for k in range(per)]
        director.enter(path, players, HOSTILE if e == 0 else None, AT)
    director.pair(path, AT)
    return path


def serve_tournament(folder: Path, path: Path) -> tuple[Sockets, LiveTournament]:
    """Serve the tournament `path` from the tables' folder `folder` (made when missing), its round open."""
    folder.mkdir(exist_ok=True)
    server = ServerOptions(folder=folder, bots=("greedy",), table=TableOptions(bot_delay=0))
    tables = Tables(server)
    tables.load()
    live = LiveTournament(path, tables, director_key(folder))
    live.open_round()
    return Sockets(create_app(AppOptions(server=server, message_rate=1000.0), tables, live)), live


def bearer(live: LiveTournament) -> dict[str, str]:
    return {"Authorization": f"Bearer {live.director_token}"}


def snapshot(c: Sockets, live: LiveTournament) -> dict[str, Any]:
    answer = c.get("/api/director", headers=bearer(live))
    assert answer.status_code == 200, answer.text
    return answer.json()


def token_of(url: str) -> str:
    return url.split("#token=", 1)[1]


def seats_of(c: Sockets, table: dict[str, Any]) -> dict[int, Player]:
    humans = {s["seat"] for s in table["seats"]}
    return {s["seat"]: Player(c, table["table_id"], token_of(s["url"]), humans) for s in table["seats"]}


def wait_for(c: Sockets, live: LiveTournament, done: Any) -> dict[str, Any]:
    """Poll the director's facts until `done(facts)`; fail after `WAIT` seconds."""
    deadline = time.monotonic() + WAIT
    while True:
        facts = snapshot(c, live)
        if done(facts):
            return facts
        assert time.monotonic() < deadline, facts
        time.sleep(0.05)


def recorded(facts: dict[str, Any]) -> bool:
    return all(t["result"]["status"] == "counted" for t in facts["tables"])


def play_round(c: Sockets, facts: dict[str, Any]) -> None:
    for table in facts["tables"]:
        players = seats_of(c, table)
        play_out(players, [])
        for p in players.values():
            p.close()


def hand_starts(folder: Path, table_id: str) -> list[HandStarted]:
    path = log_path(folder, table_id)
    return [e for _, _, e in read_log(path) if isinstance(e, HandStarted)]


def cards(deal: HandStarted) -> tuple:
    return deal.first, deal.hands, deal.deads, deal.stock, deal.discard


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the tournament log's writer lock, as another `buraco tournament` command would."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@pytest.mark.slow
def test_a_singles_round_is_played_live_recorded_and_the_next_paired_from_the_page(tmp_path: Path) -> None:
    path = new_tournament(tmp_path)
    folder = tmp_path / "tables"
    c, live = serve_tournament(folder, path)
    with c:
        facts = snapshot(c, live)
        assert facts["round"] == 1 and len(facts["tables"]) == 2 and not facts["can_close"]
        assert facts["tournament"]["name"] == f"Club {HOSTILE}"  # data: the page escapes it
        state = read_tournament(path).state
        for table, paired in zip(facts["tables"], state.rounds[0].paired.tables, strict=True):
            first, second = (state.entries[e] for e in paired.entries)
            assert table["players"] == [first.players[0], second.players[0]]  # team 0: the first entry
            assert table["game_id"] == paired.game_id and table["status"] == "waiting"
        play_round(c, facts)
        facts = wait_for(c, live, recorded)
        assert facts["can_close"] and not facts["can_pair"]
        audit = director.audit(path)
        assert audit.findings == []
        counted = [o for o in audit.standings.tables if o.status == "counted"]
        assert len(counted) == 2
        assert sum(r.vp for r in audit.standings.rows) == sum(sum(o.vp or (0, 0)) for o in counted) > 0
        assert [s["vp"] for s in facts["standings"]] == [r.vp for r in audit.standings.rows]
        assert "every table of round 1 has its result" in live.idle_line()
        closed = c.post("/api/director/close", headers=bearer(live))
        assert closed.status_code == 200, closed.text
        assert closed.json()["can_pair"] and not closed.json()["can_close"]
        assert "no open round" in live.idle_line()
        paired = c.post("/api/director/pair", headers=bearer(live))
        assert paired.status_code == 200, paired.text
        facts = paired.json()
        assert facts["round"] == 2 and len(facts["tables"]) == 2
        assert all(t["status"] in ("waiting", "playing") and t["seats"] for t in facts["tables"])
        again = c.post("/api/director/pair", headers=bearer(live))
        assert again.status_code == 409 and "nothing written" in again.json()["error"]
        play_round(c, facts)
        wait_for(c, live, recorded)
    assert director.audit(path).findings == []
    assert len(read_tournament(path).state.rounds[1].results) == 2


def test_a_pairs_round_of_two_tables_is_played_and_recorded(tmp_path: Path) -> None:
    path = new_tournament(tmp_path, form="pairs", rounds=1)
    folder = tmp_path / "tables"
    c, live = serve_tournament(folder, path)
    with c:
        facts = snapshot(c, live)
        state = read_tournament(path).state
        for table, paired in zip(facts["tables"], state.rounds[0].paired.tables, strict=True):
            first, second = (state.entries[e] for e in paired.entries)
            assert table["players"] == [first.players[0], second.players[0], first.players[1], second.players[1]]
        play_round(c, facts)
        facts = wait_for(c, live, recorded)
        closed = c.post("/api/director/close", headers=bearer(live))
        assert closed.status_code == 200 and closed.json()["ended"], closed.text
    audit = director.audit(path)
    assert audit.findings == [] and len([o for o in audit.standings.tables if o.status == "counted"]) == 2


@pytest.mark.parametrize("form", ["pairs", "singles"])
def test_the_live_deal_is_tournament_plays_and_duplicate_tables_deal_the_same(tmp_path: Path, form: str) -> None:
    path = new_tournament(tmp_path, form=form, deals="duplicate")
    folder = tmp_path / "tables"
    c, live = serve_tournament(folder, path)
    state = read_tournament(path).state
    tables = state.rounds[0].paired.tables
    with c:
        deadline = time.monotonic() + WAIT
        while not all(hand_starts(folder, table_id_of(t.game_id)) for t in tables):
            assert time.monotonic() < deadline
            time.sleep(0.02)
    live_deals = [cards(hand_starts(folder, table_id_of(t.game_id))[0]) for t in tables]
    assert len(tables) == 2 and live_deals[0] == live_deals[1]
    bots = tmp_path / "bots"
    bots.mkdir()
    played, _ = play_table(table_job(state.info, tables[1], state.entries, ["greedy"], bots))
    by_bots = [e for _, _, e in read_log(Path(played)) if isinstance(e, HandStarted)][0]
    assert cards(by_bots) == live_deals[1]


def test_a_seat_link_acts_at_its_own_table_only(tmp_path: Path) -> None:
    path = new_tournament(tmp_path)
    folder = tmp_path / "tables"
    c, live = serve_tournament(folder, path)
    with c:
        one, two = snapshot(c, live)["tables"]
        with c.websocket_connect(f"/ws/{two['table_id']}?token={token_of(one['seats'][0]['url'])}") as ws:
            message = ws.receive_json()
            assert message["type"] == "error" and "wrong token" in message["message"]
        mine = Player(c, one["table_id"], token_of(one["seats"][0]["url"]), {0, 1})
        assert mine.hello["seat"] == 0
        with c.websocket_connect(f"/ws/{one['table_id']}") as ws:  # no spectator while it plays
            message = ws.receive_json()
            assert message["type"] == "error" and "watched once its game is over" in message["message"]
        assert c.get("/api/tables").json()["tables"] == []
        mine.close()
        play_round(c, {"tables": [one]})
        assert [t["table_id"] for t in c.get("/api/tables").json()["tables"]] == [one["table_id"]]
        watcher = Player(c, one["table_id"], None, {0, 1})
        assert watcher.hello["seat"] is None


def _keys(obj: Any, path: str = "") -> set[str]:
    if isinstance(obj, dict):
        return {f"{path}.{k}" for k in obj} | {k for key, v in obj.items() for k in _keys(v, f"{path}.{key}")}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v, f"{path}[]")}
    return set()


PUBLIC = {
    ".tournament", ".round", ".round_closed", ".ended", ".bye", ".tables", ".standings", ".can_close", ".can_pair",
    *(f".tournament.{k}" for k in ("name", "tournament_id", "form", "variant", "movement", "rounds", "deals")),
    *(f".tables[].{k}" for k in ("table", "game_id", "table_id", "entries", "players", "status", "hand", "totals",
                                  "connected", "failed", "result", "recording", "seats")),
    *(f".tables[].result.{k}" for k in ("status", "totals", "vp", "reason")),
    ".tables[].recording.state", ".tables[].recording.message",
    ".tables[].seats[].seat", ".tables[].seats[].player", ".tables[].seats[].url",
    *(f".standings[].{k}" for k in ("place", "entry", "name", "vp", "diff", "withdrawn")),
}


def test_the_directors_facts_need_its_token_and_hold_no_card(tmp_path: Path) -> None:
    path = new_tournament(tmp_path)
    folder = tmp_path / "tables"
    c, live = serve_tournament(folder, path)
    with c:
        assert c.get("/api/director").status_code == 401
        assert c.get("/api/director", headers={"Authorization": "Bearer " + "x" * 24}).status_code == 401
        seat_token = token_of(live.seat_url(read_tournament(path).state.rounds[0].paired.tables[0].game_id, 0))
        assert c.get("/api/director", headers={"Authorization": f"Bearer {seat_token}"}).status_code == 401
        assert c.post("/api/director/close").status_code == 401
        foreign = c.post("/api/director/close", headers={**bearer(live), "Origin": "http://evil.example"})
        assert foreign.status_code == 403
        page = c.get("/director")
        assert page.status_code == 200 and live.director_token not in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]
        facts = snapshot(c, live)
        players = seats_of(c, facts["tables"][0])
        at = [p.rest() for p in players.values()]
        for _ in range(6):  # a few moves in: every hand holds cards the director's page must not show
            seat = at[0]["to_play"]
            mine = players[seat].view
            players[seat].send({"type": "act", "seq": mine["seq"], "action": 0})
            at = [p.rest() for p in players.values()]
        facts = snapshot(c, live)
        assert _keys(facts) <= PUBLIC, _keys(facts) - PUBLIC
        text = msgspec.json.encode(facts).decode()
        for seat, p in players.items():
            hand = p.view["view"]["hands"][seat]
            assert len(hand) > 5
            assert msgspec.json.encode(hand).decode() not in text and f'"{hand[0]}","{hand[1]}"' not in text
        assert facts["tables"][0]["status"] == "playing" and facts["tables"][0]["connected"] == [True, True]
        refused = c.post("/api/director/close", headers=bearer(live))
        assert refused.status_code == 409 and "have no result" in refused.json()["error"]


@pytest.mark.slow
def test_one_writer_at_a_time_the_server_waits_and_the_command_is_refused(tmp_path: Path) -> None:
    path = new_tournament(tmp_path, entries=2)
    folder = tmp_path / "tables"
    c, live = serve_tournament(folder, path)
    with c:
        facts = snapshot(c, live)
        with locked(path):
            play_round(c, facts)
            facts = wait_for(c, live, lambda f: (f["tables"][0]["recording"] or {}).get("state") == "waiting")
            assert "locked" in facts["tables"][0]["recording"]["message"]
            log = log_path(folder, facts["tables"][0]["table_id"])
            before = path.read_bytes()
            with pytest.raises(TournamentError) as refused:  # what `buraco tournament record` does
                director.record(path, [log], disputed=False, at=AT)
            assert refused.value.exit_code == 2 and "locked" in str(refused.value)
            assert path.read_bytes() == before
        # the result reaches the log before the table's recording state says so: wait for both
        facts = wait_for(c, live, lambda f: recorded(f) and f["tables"][0]["recording"]["state"] == "recorded")
    with pytest.raises(TournamentError, match="has a result already"):  # a second result: refused
        director.record(path, [log], disputed=False, at=AT)
    assert director.audit(path).findings == []


def test_a_result_refused_is_shown_and_the_server_goes_on(tmp_path: Path) -> None:
    path = new_tournament(tmp_path, entries=2)
    folder = tmp_path / "tables"
    c, live = serve_tournament(folder, path)
    with c:
        facts = snapshot(c, live)
        games = path.with_name("club")
        games.mkdir()
        (games / f"{facts['tables'][0]['game_id']}.jsonl").write_bytes(b"not this game\n")
        play_round(c, facts)
        facts = wait_for(c, live, lambda f: (f["tables"][0]["recording"] or {}).get("state") == "refused")
        assert "exists with other bytes" in facts["tables"][0]["recording"]["message"]
        assert snapshot(c, live)["tables"][0]["result"]["status"] == "pending"
    assert len(read_tournament(path).events) == 4  # started, 2 entered, paired: nothing appended


def test_a_restart_gives_the_same_links_and_resumes_the_tables(tmp_path: Path) -> None:
    path = new_tournament(tmp_path, entries=2)
    folder = tmp_path / "tables"
    c, live = serve_tournament(folder, path)
    with c:
        first = snapshot(c, live)
        players = seats_of(c, first["tables"][0])
        at = [p.rest() for p in players.values()]
        seat = at[0]["to_play"]
        players[seat].send({"type": "act", "seq": players[seat].view["seq"], "action": 0})
        at = [p.rest() for p in players.values()]
        for p in players.values():
            p.close()
    key = (folder / ".buraco-director.key")
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    c, again = serve_tournament(folder, path)
    assert again.director_token == live.director_token
    with c:
        second = snapshot(c, again)
        assert second["tables"][0]["seats"] == first["tables"][0]["seats"]
        assert second["tables"][0]["status"] == "playing"
        play_round(c, second)
        wait_for(c, again, recorded)
    assert director.audit(path).findings == []
    for table in second["tables"]:
        data = log_path(folder, table["table_id"]).read_bytes() + (folder / f"{table['table_id']}.meta.json").read_bytes()
        assert all(token_of(s["url"]).encode() not in data for s in table["seats"])
        assert again.director_token.encode() not in path.read_bytes() + data


@pytest.mark.slow
def test_the_serve_command_refuses_a_tournament_it_cannot_read(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app

    missing = CliRunner().invoke(app, ["serve", "--dir", str(tmp_path / "t"), "--tournament", str(tmp_path / "no.jsonl")])
    assert missing.exit_code == 2 and "cannot read" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    path = new_tournament(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"p00"', b'"px0"')
    path.write_bytes(b"".join(lines))
    edited = CliRunner().invoke(app, ["serve", "--dir", str(tmp_path / "t"), "--tournament", str(path)])
    assert edited.exit_code == 1, edited.output
    assert "prev" in edited.stderr and len(edited.stderr.strip().splitlines()) == 1


def test_a_game_that_ended_unrecorded_is_recorded_at_the_next_start(tmp_path: Path) -> None:
    path = new_tournament(tmp_path, entries=2)
    folder = tmp_path / "tables"
    c, live = serve_tournament(folder, path)
    with locked(path):
        with c:
            facts = snapshot(c, live)
            play_round(c, facts)
            wait_for(c, live, lambda f: (f["tables"][0]["recording"] or {}).get("state") == "waiting")
        # the server stopped while another writer held the log: the result is not in it
        assert read_tournament(path).state.rounds[0].results == {}
    c, again = serve_tournament(folder, path)
    with c:
        facts = wait_for(c, again, recorded)
        assert facts["tables"][0]["status"] == "ended"
    assert director.audit(path).findings == []


@pytest.mark.slow
def test_a_table_resumed_between_hands_deals_every_hand_as_tournament_play(tmp_path: Path) -> None:
    path = new_tournament(tmp_path, entries=2, hands=2)
    folder = tmp_path / "tables"
    c, live = serve_tournament(folder, path)
    with c:
        table = snapshot(c, live)["tables"][0]
        players = seats_of(c, table)
        at = [p.rest() for p in players.values()]
        while at[0]["view"]["hand"] == 0:  # the first hand, to its end
            seat = at[0]["to_play"]
            mine = players[seat].view
            players[seat].send({"type": "act", "seq": mine["seq"], "action": greedy(players[seat], mine)})
            at = [p.rest() for p in players.values()]
        for p in players.values():
            p.close()
    log = log_path(folder, table["table_id"])
    second = hand_starts(folder, table["table_id"])[1]
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:second.seq]))  # stopped before its second deal was written
    c, again = serve_tournament(folder, path)  # the resumed table deals the second hand itself
    with c:
        play_round(c, snapshot(c, again))
        wait_for(c, again, recorded)
    state = read_tournament(path).state
    bots = tmp_path / "bots"
    bots.mkdir()
    played, _ = play_table(table_job(state.info, state.rounds[0].paired.tables[0], state.entries, ["greedy"], bots))
    by_bots = [cards(e) for _, _, e in read_log(Path(played)) if isinstance(e, HandStarted)]
    assert [cards(d) for d in hand_starts(folder, table["table_id"])] == by_bots and len(by_bots) == 2
    assert director.audit(path).findings == []
