"""`buraco serve` in a real browser: Debian's headless Chromium driven by Playwright.

Run with `python -m pytest -m browser` (left out of the default run). Needs `pip install -e
'.[browser]'` and `apt-get install chromium`; Playwright's own browser download is never used.
Each test starts the real server (`buraco serve` in a subprocess, on 127.0.0.1 and a free port,
bots without delay, its folder in the test's tmp folder) and stops it at the end. People play by
clicks and keys on the table pages; every request a page makes is checked to stay on loopback
(any other is blocked, and the test fails). Screenshots go to the test's tmp folder and to
/tmp/serve-*.png.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser
pytest.importorskip("starlette", reason="the server's packages are not installed (pip install -e .)")

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = "<img src=x onerror=alert(1)>"
#: the longest a whole game played by clicks may take (seconds)
GAME_TIME = 300
#: the longest one page may wait for the server's answer (milliseconds)
WAIT_MS = 15_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`buraco serve` in a subprocess on a free loopback port, its folder in `folder`."""

    def __init__(self, folder: Path, *options: str) -> None:
        self.folder = folder
        self.options = options
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.stderr = folder.parent / "serve.stderr"
        self.start()

    def start(self) -> None:
        with open(self.stderr, "ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "cli.main", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                 "--dir", str(self.folder), "--bot-delay", "0", "--create-rate", "0", *self.options],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, env={**os.environ, "NO_COLOR": "1"})
        deadline = time.monotonic() + 30
        while True:
            try:
                self.get("/api/variants")
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError(f"the server did not start: {self.stderr.read_text()}") from None
                time.sleep(0.1)

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(self.base + path, timeout=10) as answer:
            return json.loads(answer.read())

    def create(self, **body) -> dict:
        request = urllib.request.Request(self.base + "/api/tables", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def table(self, table_id: str) -> dict:
        return next(t for t in self.get("/api/tables")["tables"] if t["table_id"] == table_id)

    def kill(self) -> None:
        """Stop the server as a crash would (SIGKILL)."""
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path / "tables")
    yield srv
    srv.stop()


class Context:
    """A browser context (one person's browser) that may reach the server only: any other request
    is blocked and remembered, as are script errors and alerts."""

    def __init__(self, browser, server: Server, width: int = 1280, height: int = 800, **options) -> None:
        self.ctx = browser.new_context(viewport={"width": width, "height": height}, **options)
        self.ctx.set_default_timeout(WAIT_MS)
        self.server = server
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.ctx.route("**/*", self._route)
        self.pages: list = []

    def _route(self, route) -> None:
        url = route.request.url
        if urlsplit(url).hostname == "127.0.0.1" or url.startswith(("data:", "about:")):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def open(self, path: str):
        page = self.ctx.new_page()
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("websocket", lambda ws: None if urlsplit(ws.url).hostname == "127.0.0.1"
                else self.outside.append(ws.url))
        page.goto(path if path.startswith("http") else self.server.base + path)
        self.pages.append(page)
        return page

    def close(self, expected: tuple[str, ...] = ()) -> None:
        """Close the context and check it; the browser's own lines holding one of `expected`
        (a refused reconnection while the server was down, an answer 401) are no script error."""
        self.ctx.close()
        assert self.outside == [], self.outside  # nothing from the internet, ever
        assert self.dialogs == [], self.dialogs  # no script ran from a name
        errors = [e for e in self.errors if not any(x in e for x in expected)]
        assert errors == [], errors


# -- reading and driving a table page ------------------------------------------------------------

def seq_of(page) -> int:
    return int(page.evaluate("document.body.dataset.seq || -1"))


def actions_of(page) -> list[dict]:
    """The legal actions the page offers (its list of every action)."""
    return page.eval_on_selector_all("#action-list button", """els => els.map(b => ({
        id: b.dataset.action, kind: b.dataset.kind, text: b.textContent,
        cards: b.dataset.cards ? b.dataset.cards.split(" ") : [], meld: b.dataset.meld}))""")


def hand_of(page) -> list[str]:
    return page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")


def select(page, cards: list[str]) -> None:
    """Click the hand's cards (one card element per card, copies apart) to select them."""
    page.keyboard.press("Escape")  # a clean selection first (but a pile's top due in this play)
    kept = Counter(page.eval_on_selector_all("#hand .card.selected", "els => els.map(e => e.dataset.card)"))
    for c in (Counter(cards) - kept).elements():
        page.locator(f'#hand .card[data-card="{c}"]:not(.selected)').first.click()
    chosen = page.eval_on_selector_all("#hand .card.selected", "els => els.map(e => e.dataset.card)")
    assert Counter(chosen) == Counter(cards)


def wait_change(page, before: int) -> None:
    """Wait for the next view (a new seq) or a refusal shown on the page."""
    page.wait_for_function(
        "([s]) => Number(document.body.dataset.seq) !== s || document.getElementById('message').classList.contains('error')"
        " || !document.getElementById('result').hidden", arg=[before], timeout=WAIT_MS)
    assert not page.eval_on_selector("#message", "m => m.classList.contains('error')"), page.inner_text("#message")


def click_turn(page, style: str = "buttons") -> str:
    """Play one action of the seat to play by the page's controls: draw, else meld (or lay off)
    what the actions offer, else discard the first discard action. Returns the kind played.

    `style` "buttons" uses the buttons and lays off by a click on the meld; "keys" draws with d,
    melds with m, lays off with l and discards with the arrows, space and Enter; "dblclick"
    discards with a double-click on the card and lays off with the Lay off button.
    """
    actions = actions_of(page)
    kinds = {a["kind"] for a in actions}
    before = seq_of(page)
    if "draw" in kinds:
        if style == "keys":
            page.keyboard.press("d")
        else:
            page.click("#act-draw")
        kind = "draw"
    elif "dead" in kinds:
        page.locator("#dead-buttons button").first.click()
        kind = "dead"
    elif "meld" in kinds:
        meld = next(a for a in actions if a["kind"] == "meld")
        select(page, meld["cards"])
        if style == "keys":
            page.keyboard.press("m")
        else:
            page.click("#act-meld")
        if page.is_visible("#choice"):  # the same cards meld more than one way: the first
            page.locator("#choice button").first.click()
        kind = "meld"
    elif "lay_off" in kinds:
        lay = next(a for a in actions if a["kind"] == "lay_off")
        select(page, lay["cards"])
        assert "target" in (page.get_attribute(f"#meld-{lay['meld']}", "class") or "")
        if style == "keys":
            page.keyboard.press("l")
        elif style == "dblclick":
            page.click("#act-layoff")
        else:
            page.click(f"#meld-{lay['meld']} .tag")  # a click on the meld lays the selection off on it
        if page.is_visible("#choice"):
            page.locator("#choice button").first.click()
        kind = "lay_off"
    else:
        card = next(a for a in actions if a["kind"] == "discard")["cards"][0]
        if style == "dblclick":
            page.locator(f'#hand .card[data-card="{card}"]').first.dblclick()
        elif style == "keys":
            page.keyboard.press("Escape")
            page.locator("#hand .card").first.focus()
            hand_order = hand_of(page)
            for _ in range(hand_order.index(card)):
                page.keyboard.press("ArrowRight")
            page.keyboard.press(" ")
            page.keyboard.press("Enter")
        else:
            select(page, [card])
            page.click("#act-discard")
        kind = "discard"
    wait_change(page, before)
    return kind


def my_turn(page) -> bool:
    return page.evaluate("document.querySelectorAll('#action-list button').length > 0 && "
                         "!document.getElementById('actions-all').hidden")


def play_out(pages: list, styles: list[str] | None = None, until=None) -> Counter:
    """Play the game on the seat pages by clicks until it ends (or `until()` holds), each page
    in its `styles` (see `click_turn`); returns the kinds played."""
    played: Counter = Counter()
    deadline = time.monotonic() + GAME_TIME
    while time.monotonic() < deadline:
        if until is not None and until():
            return played
        if all(p.is_visible("#result") for p in pages):
            return played
        acted = False
        for i, page in enumerate(pages):
            if my_turn(page):
                played[click_turn(page, styles[i] if styles else "buttons")] += 1
                acted = True
                break
        if not acted:
            pages[0].wait_for_timeout(30)
    raise AssertionError(f"the game did not end in {GAME_TIME} s: {played}")


def no_page_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    client = page.evaluate("document.documentElement.clientWidth")
    assert width <= client, f"the page scrolls sideways: {width} > {client}"


def in_view(page, selector: str) -> None:
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    assert box is not None, selector
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5, (selector, box)
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5, (selector, box)


# -- the tests -----------------------------------------------------------------------------------

def test_four_people_play_a_hand_to_its_end_by_clicks(browser, server, tmp_path):
    host = Context(browser, server)
    lobby = host.open("/")
    lobby.wait_for_selector("#variant option[value=stbl]", state="attached")
    lobby.select_option("#variant", "stbl")  # a single hand (target 0)
    lobby.check("#players-4")
    for s, name in enumerate(["ana", "bia", "caio", "duda"]):
        lobby.select_option(f"#who-{s}", "")  # a person at every seat
        lobby.fill(f"#name-{s}", name)
    lobby.click("#create-button")
    lobby.wait_for_selector("#created-links .spectate-link")
    links = lobby.eval_on_selector_all("#created-links .seat-link a", "els => els.map(a => a.href)")
    assert len(links) == 4 and all("#token=" in u for u in links)
    table_id = lobby.inner_text("#created-id")
    # the table is remembered by this browser, and listed by the server
    assert lobby.locator(f'#mine [data-table="{table_id}"]').count() == 1
    lobby.wait_for_selector(f'#server-tables tr[data-table="{table_id}"]')
    people = [Context(browser, server) for _ in range(4)]
    pages = [people[s].open(links[s]) for s in range(4)]
    for s, page in enumerate(pages):
        page.wait_for_function("() => document.body.dataset.socket === 'open' && document.body.dataset.seq")
        assert page.get_attribute("body", "data-seat") == str(s)
        assert "you" in page.inner_text(f"#seat-{s} .who")
    played = play_out(pages, styles=["buttons", "keys", "dblclick", "buttons"])  # each seat its way
    assert played["draw"] > 0 and played["discard"] > 0
    totals = server.table(table_id)["totals"]
    assert server.table(table_id)["status"] == "ended"
    for page in pages:
        assert page.inner_text("#final-totals") == f"final score: team 0 {totals[0]} · team 1 {totals[1]}"
        assert page.is_visible("#hand-sheet")  # the hand's score sheet
        assert page.get_attribute("#link-log", "href") == f"{server.base}/tables/{table_id}/log"
        assert page.get_attribute("#link-share", "href") == f"{server.base}/tables/{table_id}/share"
        assert page.get_attribute("#link-audit", "href") == f"{server.base}/tables/{table_id}/audit"
    pages[0].screenshot(path=str(tmp_path / "ended.png"), full_page=True)
    shutil.copy(tmp_path / "ended.png", "/tmp/serve-ended-desktop.png")
    # the links lead to the game's pages
    log = pages[1].evaluate("() => fetch(document.getElementById('link-log').href).then(r => r.text())")
    assert len(log.splitlines()) == seq_of(pages[1]) + 1  # every event, the last one shown included
    pages[1].click("#link-audit")
    pages[1].wait_for_selector("#buraco-replay", state="attached")
    pages[0].click("#link-share")
    pages[0].wait_for_selector("#buraco-replay", state="attached")
    for ctx in people + [host]:
        ctx.close()


def test_a_person_plays_a_bot_to_the_end_and_sees_the_score(browser, server):
    made = server.create(variant="stbl", players=2, bots={"1": "greedy"}, names={"0": "ana"})
    assert [s["seat"] for s in made["seats"]] == [0]
    person = Context(browser, server)
    page = person.open(made["seats"][0]["url"])
    page.wait_for_function("() => document.body.dataset.socket === 'open' && document.body.dataset.seq")
    assert "bot" in page.inner_text("#presence-1")
    # keys, double-clicks and buttons in turn
    styles = ["keys", "dblclick", "buttons"]
    kinds: Counter = Counter()
    deadline = time.monotonic() + GAME_TIME
    while not page.is_visible("#result"):
        assert time.monotonic() < deadline, kinds
        if my_turn(page):
            kinds[click_turn(page, styles[kinds["discard"] % 3])] += 1
        else:
            page.wait_for_timeout(30)
    table = server.table(made["table_id"])
    totals = table["totals"]
    assert table["status"] == "ended" and kinds["draw"] > 0
    assert page.inner_text("#final-totals") == f"final score: team 0 {totals[0]} · team 1 {totals[1]}"
    winner = page.inner_text("#winner")
    if totals[0] != totals[1]:
        assert winner.endswith(": you won" if totals[0] > totals[1] else ": you lost")
    assert not page.is_visible("#controls")  # nothing left to do
    person.close()


def public_cards(view: dict) -> list[str]:
    """Every card the public view shows face up (melds, pile, pending pile, deads, hands)."""
    cards = [c for m in view["melds"] for c in m["cards"]]
    pile = view["pile"]
    if pile["size"]:
        cards += pile["cards"] if pile.get("cards") else [pile["top"]]
    if view["pending"]:
        cards.append(view["pending"]["top"])
        if isinstance(view["pending"]["rest"], list):
            cards += view["pending"]["rest"]
    for d in view["deads"]:
        if isinstance(d["cards"], list):
            cards += d["cards"]
    for hand in view["hands"]:
        if isinstance(hand, list):
            cards += hand
    return cards


def test_a_spectator_page_never_shows_a_hidden_card(browser, server):
    from websockets.sync.client import connect

    made = server.create(variant="stbl", players=2, bots={"1": "greedy"}, names={"0": "ana"})
    table_id = made["table_id"]
    person = Context(browser, server)
    seat = person.open(made["seats"][0]["url"])
    watcher = Context(browser, server, 390, 844)
    spectator = watcher.open(made["spectate_url"])
    spectator.wait_for_function("() => document.body.dataset.socket === 'open' && document.body.dataset.seq")
    assert spectator.get_attribute("body", "data-seat") == "spectator"
    # the public views, from a spectator's socket of our own
    public: dict[int, dict] = {}
    with connect(f"ws://127.0.0.1:{server.port}/ws/{table_id}", open_timeout=10) as ws:
        checked = 0
        playing: set[int] = set()

        def catch_up() -> None:
            while True:
                try:
                    msg = json.loads(ws.recv(timeout=0.01))
                except TimeoutError:
                    return
                if msg["type"] == "view":
                    public[msg["seq"]] = msg["view"]

        def check() -> bool:
            nonlocal checked
            catch_up()
            # what the page shows, read at once (a new view may come between two reads)
            page = spectator.evaluate("""() => ({
                seq: Number(document.body.dataset.seq),
                shown: [...document.querySelectorAll('#table .card, #melds .card')].map(e => e.dataset.card),
                inHands: document.querySelectorAll('#table .seat .card, #hand .card').length,
                handBox: document.getElementById('hand-box').hidden,
                controls: document.getElementById('controls').hidden})""")
            at = page["seq"]
            if at not in public:
                return False
            view = public[at]
            assert page["handBox"] and page["controls"]
            assert Counter(page["shown"]) == Counter(public_cards(view)), at
            if view["phase"] in ("draw", "play", "dead"):  # (a hand's end shows the cards left)
                assert all(isinstance(h, int) for h in view["hands"]), view["hands"]
                assert page["inHands"] == 0  # every hand as backs only
                playing.add(at)
            checked += 1
            return False

        play_out([seat], until=check)
        check()
    assert checked > 10 and len(playing) > 10
    assert spectator.is_visible("#result")
    person.close()
    watcher.close()


def test_a_tab_closed_mid_turn_takes_its_seat_back(browser, server):
    made = server.create(variant="stbl", players=2, bots={"1": "greedy"}, names={"0": "ana"})
    url = made["seats"][0]["url"]
    person = Context(browser, server)
    page = person.open(url)
    page.wait_for_function("() => document.body.dataset.socket === 'open' && document.body.dataset.seq")
    page.wait_for_function("() => document.querySelectorAll('#action-list button').length > 0")
    assert click_turn(page) == "draw"  # mid-turn: drawn, not yet discarded
    hand = hand_of(page)
    at = seq_of(page)
    page.close()
    again = person.open(url)
    again.wait_for_function("() => document.body.dataset.socket === 'open' && document.body.dataset.seq")
    assert seq_of(again) == at
    assert Counter(hand_of(again)) == Counter(hand)
    assert again.get_attribute("#presence-0", "data-connected") == "true"
    kinds = {a["kind"] for a in actions_of(again)}
    assert "discard" in kinds and "draw" not in kinds
    before = seq_of(again)
    discard = next(a for a in actions_of(again) if a["kind"] == "discard")["cards"][0]
    select(again, [discard])
    again.click("#act-discard")
    wait_change(again, before)
    assert seq_of(again) > before
    assert any(discard in t for t in again.eval_on_selector_all("#move-list li", "els => els.map(e => e.textContent)"))
    person.close()


def test_desktop_and_phone_sizes(browser, server, tmp_path):
    made = server.create(variant="stbl", players=4, bots={"1": "greedy", "2": "greedy", "3": "greedy"},
                         names={"0": "ana"})
    for name, width, height in (("desktop", 1280, 800), ("phone", 390, 844)):
        person = Context(browser, server, width, height)
        lobby = person.open("/")
        lobby.wait_for_selector("#variant option", state="attached")
        lobby.wait_for_selector(f'#server-tables tr[data-table="{made["table_id"]}"]')
        no_page_scroll(lobby)
        in_view(lobby, "#variant")
        shot = tmp_path / f"lobby-{name}.png"
        lobby.screenshot(path=str(shot), full_page=True)
        shutil.copy(shot, f"/tmp/serve-lobby-{name}.png")
        page = person.open(made["seats"][0]["url"])
        page.wait_for_function("() => document.querySelectorAll('#action-list button').length > 0")
        for _ in range(3):  # a few moves in: a pile on the table
            page.wait_for_function("() => document.querySelectorAll('#action-list button').length > 0")
            click_turn(page)
        page.wait_for_function("() => document.querySelectorAll('#action-list button').length > 0")
        no_page_scroll(page)
        for selector in ("#act-draw", "#act-discard", "#act-meld", "#hand .card", "#socket", "#turn"):
            in_view(page, selector)  # the controls and the hand on the first screen
        # the hand wraps rather than widen the page
        assert page.evaluate("document.getElementById('hand').scrollWidth <= document.getElementById('hand').clientWidth")
        page.screenshot(path=str(tmp_path / f"table-{name}.png"))
        page.screenshot(path=str(tmp_path / f"table-{name}-full.png"), full_page=True)
        shutil.copy(tmp_path / f"table-{name}.png", f"/tmp/serve-table-{name}.png")
        shutil.copy(tmp_path / f"table-{name}-full.png", f"/tmp/serve-table-{name}-full.png")
        page.keyboard.press("?")
        assert page.is_visible("#keys")
        page.screenshot(path=str(tmp_path / f"keys-{name}.png"))
        shutil.copy(tmp_path / f"keys-{name}.png", f"/tmp/serve-keys-{name}.png")
        page.keyboard.press("Escape")
        assert not page.is_visible("#keys")
        person.close()


def test_a_hostile_name_shows_as_text(browser, server):
    made = server.create(variant="stbl", players=2, bots={"1": "greedy"}, names={"0": HOSTILE, "1": HOSTILE + "2"})
    person = Context(browser, server)
    page = person.open(made["seats"][0]["url"])
    page.wait_for_function("() => document.body.dataset.socket === 'open' && document.body.dataset.seq")
    assert page.inner_text("#seat-0 .name") == HOSTILE
    assert page.inner_text("#seat-1 .name") == HOSTILE + "2"
    assert HOSTILE in page.inner_text("#presence")
    assert HOSTILE in page.inner_text("#where")
    assert HOSTILE in page.inner_text("#move-list")
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    spectator = person.open(made["spectate_url"])
    spectator.wait_for_function("() => document.body.dataset.socket === 'open' && document.body.dataset.seq")
    assert spectator.inner_text("#seat-0 .name") == HOSTILE
    assert HOSTILE in spectator.inner_text("#melds-0 h3")
    assert spectator.evaluate("document.querySelectorAll('img').length") == 0
    lobby = person.open("/")
    lobby.wait_for_selector(f'#server-tables tr[data-table="{made["table_id"]}"]')
    assert HOSTILE in lobby.inner_text(f'#server-tables tr[data-table="{made["table_id"]}"]')
    assert lobby.evaluate("document.querySelectorAll('img').length") == 0
    person.close()  # no alert ran (the context fails on any dialog)


def test_the_page_reconnects_by_itself_after_the_server_was_killed(browser, server):
    made = server.create(variant="stbl", players=2, bots={"1": "greedy"}, names={"0": "ana"})
    person = Context(browser, server)
    page = person.open(made["seats"][0]["url"])
    page.wait_for_function("() => document.querySelectorAll('#action-list button').length > 0")
    assert click_turn(page) == "draw"
    hand, at = hand_of(page), seq_of(page)
    server.kill()
    page.wait_for_function("() => document.body.dataset.socket !== 'open'")
    page.wait_for_function("() => document.getElementById('socket').textContent.includes('retrying')")
    assert page.is_disabled("#act-discard") and not my_turn(page)  # no action without the server
    server.start()  # the same folder and port: the table resumes from its log
    page.wait_for_function("() => document.body.dataset.socket === 'open'", timeout=30_000)
    page.wait_for_function("() => document.querySelectorAll('#action-list button').length > 0")
    assert seq_of(page) == at and Counter(hand_of(page)) == Counter(hand)
    click_turn(page)  # the seat acts again
    assert seq_of(page) > at
    person.close(expected=("net::ERR_CONNECTION_REFUSED",))


def test_the_clock_shows_the_time_left(browser, tmp_path):
    server = Server(tmp_path / "tables", "--clock", "40")
    try:
        made = server.create(variant="stbl", players=2, bots={"1": "greedy"}, names={"0": "ana"})
        person = Context(browser, server)
        page = person.open(made["seats"][0]["url"])
        page.wait_for_function("() => document.querySelectorAll('#action-list button').length > 0")
        page.wait_for_selector("#clock", state="visible")
        first = page.inner_text("#clock")
        assert first.startswith("your clock 0:") and 30 <= int(first[-2:]) <= 40, first
        page.wait_for_function("([t]) => document.getElementById('clock').textContent !== t", arg=[first])
        assert int(page.inner_text("#clock")[-2:]) < int(first[-2:])  # it counts down
        person.close()
    finally:
        server.stop()


def test_the_top_of_a_taken_closed_pile_goes_into_a_meld_by_clicks(browser, server):
    # stcl: the closed pile's top goes into the very next play, and is not in the hand till then
    made = server.create(variant="stcl", players=2, bots={"1": "greedy"}, names={"0": "ana"})
    person = Context(browser, server)
    page = person.open(made["seats"][0]["url"])
    deadline = time.monotonic() + GAME_TIME
    while True:
        assert time.monotonic() < deadline and not page.is_visible("#result"), "no pile was ever offered"
        if not my_turn(page):
            page.wait_for_timeout(30)
            continue
        if "pile" not in {a["kind"] for a in actions_of(page)}:
            click_turn(page)
            continue
        top = page.get_attribute("#pile .card.top", "data-card")
        before = seq_of(page)
        page.click("#act-pile")
        wait_change(page, before)
        break
    page.wait_for_function("() => document.querySelectorAll('#action-list button').length > 0")
    due = page.locator("#hand .card.due")
    assert due.count() == 1 and due.get_attribute("data-card") == top
    assert "selected" in due.get_attribute("class")  # the top goes into the play: selected already
    plays = [a for a in actions_of(page) if a["kind"] in ("meld", "lay_off")]
    assert plays and all(top in a["cards"] for a in plays)
    kind = click_turn(page)  # the first meld (or lay-off), by clicks on the hand's cards
    assert kind in ("meld", "lay_off")
    assert page.locator("#hand .card.due").count() == 0
    assert top in page.inner_text("#move-list li:last-child")
    person.close()


def test_the_lobby_asks_for_its_token_and_copies_links(browser, tmp_path):
    secret = "lobby-token-for-this-test"
    server = Server(tmp_path / "tables", "--lobby-token", secret)
    try:
        person = Context(browser, server, permissions=["clipboard-read", "clipboard-write"])
        lobby = person.open("/")
        lobby.wait_for_selector("#variant option", state="attached")
        lobby.select_option("#variant", "stbl")
        lobby.check("#players-2")
        assert lobby.locator("#seats .seatrow").count() == 2
        assert lobby.is_hidden("#token-row")
        lobby.click("#create-button")
        lobby.wait_for_selector("#token-row", state="visible")  # the server asked for it
        assert "lobby token" in lobby.inner_text("#create-message")
        assert lobby.is_hidden("#created")
        lobby.fill("#lobby-token", secret)
        lobby.click("#create-button")
        lobby.wait_for_selector("#created-links .spectate-link")
        seat_link = lobby.get_attribute("#created-links .seat-link a", "href")
        assert lobby.locator("#created-links .seat-link").count() == 1  # seat 1 is the bot's
        lobby.click("#created-links .seat-link button")
        lobby.wait_for_function("() => document.querySelector('#created-links .seat-link button').textContent === 'copied'")
        assert lobby.evaluate("() => navigator.clipboard.readText()") == seat_link
        person.close(expected=("status of 401",))
    finally:
        server.stop()


def test_the_live_sheet_names_its_rows_as_the_scoring_does():
    """The table page names a hand's sheet rows as `scoring.SHEET_ROWS` (and `HAND_TOTAL`) do."""
    import re

    from buraco_events.model.scoring import HAND_TOTAL, SHEET_ROWS

    panels = (ROOT / "buraco_events/serve/static/panels.js").read_text()
    listed = panels.split("const SHEET_ROWS = [")[1].split("];")[0]
    assert re.findall(r'\["(\w+)", "([^"]+)"\]', listed) == [*SHEET_ROWS, ("total", HAND_TOTAL)]


def test_a_seat_opened_in_a_second_tab_moves_there_and_can_be_taken_back(browser, server):
    made = server.create(variant="stbl", players=2, bots={"1": "greedy"}, names={"0": "ana"})
    url = made["seats"][0]["url"]
    person = Context(browser, server)
    first = person.open(url)
    first.wait_for_function("() => document.body.dataset.socket === 'open' && document.body.dataset.seq")
    second = person.open(url)
    second.wait_for_function("() => document.body.dataset.socket === 'open' && document.body.dataset.seq")
    # the newest socket has the seat; the first tab says so and does not fight for it
    first.wait_for_function("() => document.body.dataset.socket === 'replaced'")
    assert first.is_visible("#reconnect") and first.is_disabled("#act-draw")
    assert "error" in first.get_attribute("#message", "class")  # the server's word on it
    assert first.inner_text("#message")
    first.wait_for_timeout(2500)  # longer than the first reconnect's wait
    assert first.get_attribute("body", "data-socket") == "replaced"
    assert second.get_attribute("body", "data-socket") == "open"
    first.click("#reconnect")  # taken back by hand
    first.wait_for_function("() => document.body.dataset.socket === 'open'")
    first.wait_for_function("() => document.getElementById('message').textContent === ''")
    second.wait_for_function("() => document.body.dataset.socket === 'replaced'")
    first.wait_for_function("() => document.querySelectorAll('#action-list button').length > 0")
    assert click_turn(first) == "draw"
    person.close()


def test_a_hand_ends_its_sheet_stays_and_the_next_deal_is_committed(browser, server):
    made = server.create(variant="stbl", players=2, bots={"1": "greedy"}, names={"0": "ana"}, target=10_000)
    person = Context(browser, server)
    page = person.open(made["seats"][0]["url"])
    page.wait_for_function("() => document.body.dataset.socket === 'open' && document.body.dataset.seq")
    page.wait_for_selector("#fairness .deal[data-hand='0']")  # published at the deal
    assert page.locator("#fairness .salt").count() == 0  # the salt only once the hand has ended
    play_out([page], until=lambda: page.inner_text("#turn").startswith("hand 2 · "))
    assert page.inner_text("#hand-sheet caption") == "hand 1 (ended)"
    totals = server.table(made["table_id"])["totals"]
    running = page.eval_on_selector_all("#hand-sheet tr.total:last-child td", "els => els.map(e => e.textContent)")
    assert running == ["running total", *map(str, totals)]
    assert page.locator("#fairness .deal[data-hand='0'] .salt").count() == 1
    assert page.locator("#fairness .deal[data-hand='1']").count() == 1
    assert page.locator("#fairness .deal[data-hand='1'] .salt").count() == 0
    person.close()


def test_a_wrong_link_says_why_and_does_not_retry(browser, server):
    made = server.create(variant="stbl", players=2, bots={"1": "greedy"}, names={"0": "ana"})
    person = Context(browser, server)
    for path in (f"/t/{made['table_id']}#token=not-this-tables-token", "/t/000000000000"):
        page = person.open(path)
        page.wait_for_function("() => document.body.dataset.socket === 'refused'")
        assert "error" in page.get_attribute("#message", "class") and page.inner_text("#message")
        page.wait_for_timeout(2500)  # longer than the first reconnect's wait: no retry
        assert page.get_attribute("body", "data-socket") == "refused"
        assert page.is_hidden("#hand-box") and page.locator("#hand .card").count() == 0
    person.close()
