"""`buraco serve` as people run it: the real command on uvicorn in a subprocess, on 127.0.0.1 and
a free port, stopped at the end. Killed with SIGKILL mid-hand and started again, it resumes the
table from its log: the clients reconnect, nothing they were shown is lost, the game ends and
`buraco audit` passes the log with its commitments. The server never prints a token."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

websockets_sync = pytest.importorskip("websockets.sync.client", reason="the server's packages are not installed")

from buraco_events.serve.remote import greedy_choice, rules_of  # noqa: E402

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
#: the longest a socket waits for a message, and the server to start (seconds)
WAIT = 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`buraco serve` in its own process group, its stderr kept in a file."""

    def __init__(self, folder: Path, port: int, log: Path) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.log = log
        with open(log, "ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--dir", str(folder),
                 "--bot-delay", "0", "--message-rate", "1000"],
                cwd=ROOT, stdout=err, stderr=err, start_new_session=True,
                env={**os.environ, "NO_COLOR": "1"})
        deadline = time.monotonic() + WAIT
        while True:
            try:
                self.request("/api/variants")
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError(f"the server did not start: {log.read_text()}") from None
                time.sleep(0.05)

    def request(self, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as answer:
            return json.loads(answer.read())

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


class Seat:
    """One seat's socket, reconnecting after the server went away, as the browser client does."""

    def __init__(self, url: str, humans: set[int]) -> None:
        self.url = url
        self.humans = humans
        self.connect()

    def connect(self) -> None:
        deadline = time.monotonic() + WAIT
        while True:
            try:
                # entered as a context (websockets 17 warns otherwise); the test ends the process
                self.ws = websockets_sync.connect(self.url, open_timeout=5).__enter__()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.hello = json.loads(self.ws.recv(timeout=WAIT))
        assert self.hello["type"] == "hello"
        self.rules = rules_of(self.hello)
        self.view: dict[str, Any] | None = None

    def rest(self) -> dict[str, Any] | None:
        """Read to the next view where a person must act (None: the game ended)."""
        while True:
            message = json.loads(self.ws.recv(timeout=WAIT))
            assert message["type"] != "error", message
            if message["type"] == "ended":
                return None
            if message["type"] == "view":
                self.view = message
                if message["to_play"] in self.humans:
                    return message

    def act(self) -> None:
        assert self.view is not None
        action = greedy_choice(self.rules, self.view)
        self.ws.send(json.dumps({"type": "act", "seq": self.view["seq"], "action": action}))


def play(seats: dict[int, Seat], at: list[dict[str, Any] | None], moves: int | None = None) -> list:
    """Play `moves` actions (None: to the end); return where each socket is then."""
    done = 0
    while at[0] is not None and (moves is None or done < moves):
        assert len({view["seq"] for view in at if view is not None}) == 1
        seats[at[0]["to_play"]].act()
        at = [seat.rest() for seat in seats.values()]
        done += 1
    return at


def test_a_server_killed_mid_hand_resumes_its_tables_and_the_game_ends_audited(tmp_path: Path) -> None:
    folder, port, log = tmp_path / "tables", free_port(), tmp_path / "serve.log"
    server = Server(folder, port, log)
    try:
        made = server.request("/api/tables", {"players": 2, "target": 0, "names": {"0": "ana", "1": "bruno"}})
        table_id = made["table_id"]
        humans = {s["seat"] for s in made["seats"]}
        urls = {s["seat"]: f"ws://127.0.0.1:{port}/ws/{table_id}?token={s['token']}" for s in made["seats"]}
        seats = {seat: Seat(url, humans) for seat, url in urls.items()}
        at = play(seats, [seat.rest() for seat in seats.values()], moves=12)
        shown = at[0]["seq"]
        with pytest.raises(urllib.error.HTTPError) as early:
            server.request(f"/tables/{table_id}/log")
        assert early.value.code == 403
        server.kill()  # mid-hand: the table waits for a person
        lines = (folder / f"{table_id}.jsonl").read_bytes()
        assert len(lines.splitlines()) == shown + 1  # everything shown was on disk first
        server = Server(folder, port, log)
        assert [t["status"] for t in server.request("/api/tables")["tables"]] == ["playing"]
        for seat in seats.values():
            seat.connect()  # the clients come back to the same links
        again = [seat.rest() for seat in seats.values()]
        assert [view["seq"] for view in again] == [shown, shown]
        assert len(seats[0].hello["moves"]) == shown
        play(seats, again)
        ended = server.request("/api/tables")["tables"][0]
        assert ended["status"] == "ended"
        path = folder / f"{table_id}.jsonl"
        with urllib.request.urlopen(f"{server.base}/tables/{table_id}/log", timeout=10) as answer:
            assert answer.read() == path.read_bytes()
        with pytest.raises(Exception) as refused:  # a page of another site may not open a seat
            with websockets_sync.connect(urls[0], origin="http://evil.example", open_timeout=5):
                pass
        assert "403" in str(refused.value)
    finally:
        server.stop()
    audit = subprocess.run([sys.executable, "-m", "cli.main", "audit", str(path)], cwd=ROOT,
                           capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "120"})
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "commitment" not in audit.stdout.lower() or "mismatch" not in audit.stdout.lower()
    said = log.read_text()
    assert all(s["token"] not in said for s in made["seats"])
    assert "the lobby is at http://127.0.0.1" in said and "Traceback" not in said
