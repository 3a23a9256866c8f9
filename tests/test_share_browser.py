"""`buraco share` pages in a real browser: Debian's headless Chromium driven by Playwright.

Run with `python -m pytest -m browser` (left out of the default run). Needs `pip install -e
'.[browser]'` and `apt-get install chromium`; Playwright's own browser download is never used.
The pages are opened from disk (file://), stepped with keys, and what they show is checked
against the replay objects; screenshots go to the test's tmp folder and to /tmp/share-*.png.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from helpers import random_game
from typer.testing import CliRunner

from buraco_events.model.events import seal_lines
from buraco_events.views.projections import Timeline
from buraco_events.views.share import decode_steps, page_data
from cli.main import app

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


class Opened:
    """A page opened in the browser, with every request and script error it made."""

    def __init__(self, browser, path: Path, width: int = 1280, height: int = 900, hash_: str = ""):
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.goto(path.as_uri() + hash_)

    @property
    def seq(self) -> int:
        assert not self.errors, self.errors  # a script that failed shows nothing to check
        return int(self.page.evaluate("document.body.dataset.seq"))

    def text(self, selector: str) -> str:
        return self.page.inner_text(selector)

    def cards(self, selector: str) -> list[str]:
        return self.page.eval_on_selector_all(selector + " .card", "els => els.map(e => e.dataset.card)")

    def close(self) -> None:
        assert not self.errors, self.errors
        # offline by construction: the file itself is the only thing loaded
        assert all(u.startswith(("file:", "data:", "about:")) for u in self.requests), self.requests
        self.page.close()


def write(tmp_path: Path, events: list, *args: str, name: str = "g") -> tuple[Path, list[dict]]:
    log = tmp_path / f"{name}.jsonl"
    log.write_bytes(b"".join(line + b"\n" for line in seal_lines(events)))
    out = tmp_path / f"{name}.html"
    result = runner.invoke(app, ["share", str(log), "-o", str(out), *args])
    assert result.exit_code == 0, result.stderr
    return out, decode_steps(page_data(out.read_text()))


def check_shown(opened: Opened, step: dict) -> None:
    """Assert the page shows this step: seq, event, hands, melds, pile, stock."""
    assert opened.seq == step["seq"]
    assert opened.page.input_value("#seq") == str(step["seq"])
    assert opened.text("#event") == step["event"]
    if step["hand"] < 0:
        return
    for seat, hand in enumerate(step["hands"]):
        count = hand if isinstance(hand, int) else len(hand)
        assert opened.text(f"#seat-{seat} .count") == f"{count} card" + ("" if count == 1 else "s")
        if isinstance(hand, int):
            assert opened.cards(f"#seat-{seat}") == []  # backs only: nothing to read
            assert opened.text(f"#seat-{seat} .back:last-child .n") == str(hand)
        else:
            assert opened.cards(f"#seat-{seat}") == hand
    shown_melds = opened.page.eval_on_selector_all(".meld", "els => els.map(e => e.id)")
    assert sorted(shown_melds) == sorted(f"meld-{m['id']}" for m in step["melds"])
    for m in step["melds"]:
        assert opened.cards(f"#melds-{m['team']} #meld-{m['id']}") == m["cards"]
        assert opened.page.get_attribute(f"#meld-{m['id']}", "data-kind") == m["kind"]
    pile = step["pile"]
    if pile["size"]:
        assert opened.cards("#pile") == (pile["cards"] if "cards" in pile else [pile["top"]])
    assert opened.text("#stock .label") == f"stock {step['stock']} card" + ("" if step["stock"] == 1 else "s")


def test_keys_step_through_a_seat_page(browser, tmp_path):
    events = random_game("fechado", 2, 0)
    tl = Timeline(events)
    starts = [tl.hand_start(h) for h in range(tl.n_hands)]
    out, steps = write(tmp_path, events, "--as", "1", "--at", "30")
    opened = Opened(browser, out)
    check_shown(opened, steps[30])
    # (key, where it leads from the seq before)
    moves = [
        ("ArrowRight", lambda s: s + 1), ("n", lambda s: s + 1), ("ArrowRight", lambda s: s + 1),
        ("ArrowLeft", lambda s: s - 1), ("p", lambda s: s - 1),
        ("]", lambda s: next(x for x in starts if x > s)), ("]", lambda s: next(x for x in starts if x > s)),
        ("ArrowRight", lambda s: s + 1), ("[", lambda s: max(x for x in starts if x <= s)),
        ("[", lambda s: max(x for x in starts if x < s)), ("End", lambda s: len(steps) - 1),
        ("ArrowRight", lambda s: s), ("Home", lambda s: 0), ("ArrowLeft", lambda s: 0),
    ]
    for key, where in moves:
        want = where(opened.seq)
        opened.page.keyboard.press(key)
        check_shown(opened, steps[want])
    # the seq box, and the buttons
    opened.page.fill("#seq", "57")
    opened.page.press("#seq", "Enter")
    check_shown(opened, steps[57])
    opened.page.click("#next")
    check_shown(opened, steps[58])
    opened.page.click("#prev-hand")
    check_shown(opened, steps[max(x for x in starts if x <= 58)])
    # the seat's own cards are faces; the other's are backs with a count
    assert isinstance(steps[opened.seq]["hands"][0], int)
    opened.close()


def test_a_4_player_page_on_a_desktop_and_a_phone(browser, tmp_path):
    log = ROOT / "data" / "samples" / "fechado-4p-s0-00000.jsonl"
    out = tmp_path / "four.html"
    result = runner.invoke(app, ["share", str(log), "-o", str(out), "--as", "2", "--at", "60"])
    assert result.exit_code == 0, result.stderr
    steps = decode_steps(page_data(out.read_text()))
    for name, width, height in (("desktop", 1280, 900), ("phone", 390, 844)):
        opened = Opened(browser, out, width, height)
        check_shown(opened, steps[60])
        # the pile is closed: a seat sees its top only; the score sheet hides the cards held
        assert opened.text("#pile .label").startswith("closed pile")
        assert "hidden" in opened.text("#sheet")
        assert opened.page.is_visible("#seat-2 .badge")  # "you"
        for path in (tmp_path / f"share-{name}.png", Path(f"/tmp/share-{name}.png")):
            opened.page.screenshot(path=str(path), full_page=name == "desktop")
            assert path.stat().st_size > 10_000
        # nothing spills past a phone's width
        overflow = opened.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, (name, overflow)
        opened.close()


def test_a_link_opens_at_its_seq_and_spoiler_free_tells_nothing_ahead(browser, tmp_path):
    events = random_game("fechado", 2, 0)
    end = Timeline(events).final
    out, steps = write(tmp_path, events, "--spoiler-free")
    opened = Opened(browser, out, hash_="#seq=30")
    check_shown(opened, steps[30])
    title = opened.page.title()
    where = opened.text("#where")
    assert " of " not in where and opened.text("#of") == "" and not opened.page.is_visible("#slider")
    assert opened.page.query_selector("#result") is None
    for total in map(str, end.totals):
        assert total not in title and total not in opened.text("header")
    opened.page.keyboard.press("End")  # the viewer chose to reach the end: now it shows
    assert "game over" in opened.text("#status")
    opened.close()
    plain, _ = write(tmp_path, events, name="plain")
    opened = Opened(browser, plain)
    assert " of " in opened.text("#where") and "wins" in opened.text("#result")
    opened.close()


def test_log_text_is_shown_as_text(browser, tmp_path):
    events = random_game("stbl", 2, 1)
    evil = ('<img src=x onerror="window.pwned=1">', "b\u202e</script><!--")
    events = [msgspec.structs.replace(events[0], players=evil, game_id="<i>g</i>"), *events[1:]]
    out, steps = write(tmp_path, events)
    opened = Opened(browser, out)
    assert opened.page.evaluate("window.pwned") is None
    assert opened.page.query_selector("img") is None and opened.page.query_selector("main i") is None
    assert evil[0] in opened.text("#seat-0 .name")
    assert opened.text("#seat-1 .name") == "b\\u202e</script><!--"  # the bidi override made visible
    opened.close()


def test_the_audit_page_opens_at_the_first_bad_event(browser, tmp_path):
    out = tmp_path / "audit.html"
    result = runner.invoke(app, ["audit", str(ROOT / "data" / "disputes" / "wrong_score.jsonl"),
                                 "--html", str(out)])
    assert result.exit_code == 1
    data = page_data(out.read_text())
    steps = decode_steps(data)
    first, last = (p["seq"] for p in data["audit"]["problems"])
    opened = Opened(browser, out)
    assert opened.text("#verdict") == "FAIL"
    check_shown(opened, steps[first])
    assert "the log claims" in opened.text("#event")
    opened.page.click(f"#report a[data-seq='{last}']")
    check_shown(opened, steps[last])
    opened.page.screenshot(path=str(tmp_path / "audit.png"))
    opened.close()


def test_a_report_page_with_nothing_to_replay(browser, tmp_path):
    log = tmp_path / "no-start.jsonl"  # a log whose first event may not come first
    log.write_bytes(b'{"type":"drew","seq":0,"player":0,"card":"AS"}\n')
    out = tmp_path / "no-start.html"
    assert runner.invoke(app, ["audit", str(log), "--html", str(out)]).exit_code == 1
    opened = Opened(browser, out)
    assert opened.text("#verdict") == "FAIL"
    assert opened.text("#event") == "no event of this log replays"
    assert not opened.page.is_visible("#controls") and not opened.page.is_visible("#table")
    opened.close()


def test_a_seat_page_with_its_analysis_shows_the_marks_and_x_jumps(browser, tmp_path):
    from helpers import with_marks

    from buraco_events.analysis.evaluate import analyze
    from buraco_events.log.sources import read_log
    from buraco_events.views.render import decision_words

    log = ROOT / "data" / "samples" / "stbl-4p-s0-00000.jsonl"
    events = [e for _, _, e in read_log(log)]
    analysis = with_marks(events, analyze(events, 0, samples=4, seed="1", workers=1))
    marked = [d for d in analysis.decisions if d.mark]
    assert len(marked) >= 2
    path = tmp_path / "A.json"
    path.write_bytes(msgspec.json.encode(analysis))
    out = tmp_path / "a.html"
    result = runner.invoke(app, ["share", str(log), "-o", str(out), "--as", "0", "--analysis", str(path)])
    assert result.exit_code == 0, result.stderr
    steps = decode_steps(page_data(out.read_text()))
    opened = Opened(browser, out)
    assert not opened.page.is_visible("#decision")  # the deal is no decision of the seat
    assert "x next marked decision" in opened.text("#keys")
    shown = opened.page.eval_on_selector_all("#marks .mark", "els => els.map(e => [e.dataset.seq, e.title])")
    assert shown == [[str(d.seq), f"seq {d.seq}: {decision_words(msgspec.to_builtins(d))}"] for d in marked]
    for d in marked:  # x: the next marked decision, its line under the event
        opened.page.keyboard.press("x")
        check_shown(opened, steps[d.seq])
        assert opened.text("#decision") == f"analysis: {decision_words(msgspec.to_builtins(d))}"
        assert opened.page.get_attribute("#decision", "class") == f"mark-{d.mark}"
        assert opened.page.get_attribute(f"#marks .mark[data-seq='{d.seq}']", "class").endswith(" here")
    opened.page.keyboard.press("x")  # past the last: back to the first, saying so
    check_shown(opened, steps[marked[0].seq])
    assert "back to the first" in opened.text("#message")
    stands = next(d for d in analysis.decisions if d.loss == 0)
    opened.page.fill("#seq", str(stands.seq))
    opened.page.press("#seq", "Enter")
    assert opened.text("#decision") == f"analysis: {decision_words(msgspec.to_builtins(stands))}"
    assert opened.text("#decision").startswith(("analysis: the choice stands: ", "analysis: too wide to say: "))
    opened.page.click(f"#marks .mark[data-seq='{marked[1].seq}']")  # a mark on the bar is a link
    check_shown(opened, steps[marked[1].seq])
    for shot in (tmp_path / "share-analysis.png", Path("/tmp/share-analysis.png")):
        opened.page.screenshot(path=str(shot))
    overflow = opened.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    opened.close()


def test_x_does_nothing_on_a_page_without_an_analysis(browser, tmp_path):
    out, steps = write(tmp_path, random_game("stbl", 2, 1), "--as", "0", "--at", "5")
    opened = Opened(browser, out)
    opened.page.keyboard.press("x")
    check_shown(opened, steps[5])
    assert opened.text("#message") == "" and "x next" not in opened.text("#keys")
    assert not opened.page.is_visible("#decision") and opened.page.query_selector("#marks") is None
    opened.close()


def test_the_move_list_lists_every_step_and_a_click_goes_there(browser, tmp_path):
    events = random_game("fechado", 2, 0)
    out, steps = write(tmp_path, events, "--as", "1", "--at", "30")
    opened = Opened(browser, out)
    items = opened.page.locator("#move-list li")
    assert items.count() == len(steps)
    assert opened.text("#move-list li.current") == steps[30]["event"]
    items.nth(45).locator("button").click()
    check_shown(opened, steps[45])
    assert opened.text("#move-list li.current") == steps[45]["event"]
    opened.close()
    # a spoiler-free page lists the steps up to the one on screen, nothing ahead
    free, _ = write(tmp_path, events, "--spoiler-free", name="free")
    opened = Opened(browser, free, hash_="#seq=20")
    visible = opened.page.eval_on_selector_all("#move-list li", "els => els.filter(e => !e.hidden).length")
    assert visible == 21
    opened.close()
