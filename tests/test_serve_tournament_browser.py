"""`buraco serve --tournament` as a director runs it: the real command on 127.0.0.1 and a free port
(stopped at the end), its links read from its stdout, the round's tables played by scripted
clients over the socket protocol, and the director's page in Debian's headless Chromium at a
desktop's size and a phone's: the tables live, the results, the seat links, the standings, the
close and pair buttons, an entry's hostile name shown as text. Screenshots go to the test's tmp
folder and to /tmp/serve-director-*.png. Run with `python -m pytest -m browser`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from test_serve_browser import HOSTILE, ROOT, Context, free_port
from test_serve_restart import Seat, play

from buraco_events.tournament import director
from buraco_events.tournament.scale import ITALIAN_3

pytestmark = pytest.mark.browser

AT = "2026-12-07T20:00:00Z"


def new_tournament(folder: Path) -> Path:
    path = folder / "club.jsonl"
    director.new(path, name="Club night", form="singles", variant="burraco", rules={"target": 0},
                 movement="round_robin", rounds=3, deals="duplicate", scale=ITALIAN_3, director="ana", at=AT,
                 tournament_id="club-1")
    for players, name in [(["ana"], HOSTILE), (["bruno"], None), (["carla"], None), (["dario"], None)]:
        director.enter(path, players, name, AT)
    director.pair(path, AT)
    return path


class TournamentServer:
    """`buraco serve --tournament` in a subprocess; its stdout (the links) kept in a file."""

    def __init__(self, folder: Path, tournament: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.out = folder.parent / "serve.stdout"
        self.err = folder.parent / "serve.stderr"
        with open(self.out, "wb") as out, open(self.err, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "cli.main", "serve", "--port", str(self.port), "--dir", str(folder),
                 "--tournament", str(tournament), "--message-rate", "1000"],
                cwd=ROOT, stdout=out, stderr=err, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "400"})
        deadline = time.monotonic() + 30
        while "director: " not in self.out.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"the server did not start: {self.err.read_text()}")
            time.sleep(0.1)
        time.sleep(0.2)  # the seat lines follow the director's

    def links(self) -> dict[str, str]:
        """Return the links printed at start, by what they are for."""
        return dict(line.split(": ", 1) for line in self.out.read_text().splitlines() if ": http" in line)

    def facts(self, token: str) -> dict:
        request = urllib.request.Request(self.base + "/api/director", headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def shoot(page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)
    page.screenshot(path=f"/tmp/serve-director-{name}.png", full_page=True)


def test_the_directors_page_shows_the_round_live_and_pairs_the_next(browser, tmp_path: Path) -> None:  # noqa: F811
    tournament = new_tournament(tmp_path)
    server = TournamentServer(tmp_path / "tables", tournament)
    try:
        links = server.links()
        director_url = links.pop("director")
        token = re.sub(r".*#token=", "", director_url)
        assert len(links) == 4 and all("/t/" in url and "#token=" in url for url in links.values())
        assert token not in server.err.read_text()
        desk = Context(browser, server, width=1280, height=900)  # type: ignore[arg-type]
        page = desk.open(director_url)
        page.wait_for_selector("tr.round-table")
        assert page.locator("tr.round-table").count() == 2
        assert page.locator("img").count() == 0 and HOSTILE in page.inner_text("main")
        assert page.locator(".seat-link a").count() == 4
        assert not page.locator("#close-round").is_visible()
        shoot(page, tmp_path, "desktop-waiting")
        # play each table through its printed links, as two people would
        facts = server.facts(token)
        for table in facts["tables"]:
            humans = {0, 1}
            seats = {s["seat"]: Seat(f"ws://127.0.0.1:{server.port}/ws/{table['table_id']}?token="
                                     + s["url"].split("#token=")[1], humans) for s in table["seats"]}
            play(seats, [seat.rest() for seat in seats.values()])
            for seat in seats.values():
                seat.ws.close()
        page.wait_for_selector("#close-round:visible", timeout=30_000)
        assert page.locator(".result-counted").count() == 2
        assert "VP" in page.inner_text("#round-tables")
        shoot(page, tmp_path, "desktop-recorded")
        phone = Context(browser, server, width=390, height=844, is_mobile=True, has_touch=True)  # type: ignore[arg-type]
        small = phone.open(director_url)
        small.wait_for_selector("tr.round-table")
        assert small.evaluate("document.documentElement.scrollWidth") <= 390
        shoot(small, tmp_path, "phone-recorded")
        page.click("#close-round")
        page.wait_for_selector("#pair-next:visible")
        page.click("#pair-next")
        page.locator("#round-title", has_text="Round 2 of 3").wait_for()
        page.wait_for_selector("tr.round-table")
        assert page.locator(".seat-link a").count() == 4
        shoot(page, tmp_path, "desktop-round-2")
        assert server.facts(token)["round"] == 2
        phone.close()
        desk.close()
    finally:
        server.stop()
    assert director.audit(tournament).findings == []
