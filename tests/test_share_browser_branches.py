"""A branch's share page and the rulings on a page, in a real browser (`python -m pytest -m browser`).

The banner naming a branch stays on screen at every step and says before or after the fork; the
rulings on a hand appear at that hand's end and no earlier, the standings after rulings at the
last step beside the recount; hostile `by` and `reason` stay text. Setup as `test_share_browser`.
"""

from __future__ import annotations

import pytest
from test_share_browser import Opened
from typer.testing import CliRunner

from buraco_events.audit.rulings import RulingRequest, append_ruling, new_ruling
from buraco_events.bots.registry import run_game, table_bots
from buraco_events.log.writer import write_log
from buraco_events.model.events import HandEnded
from buraco_events.play.branch import make_branch
from cli.main import app

pytestmark = pytest.mark.browser
runner = CliRunner()
HOSTILE = "<img src=x onerror=alert(1)>\u202e[bold]"


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    d = tmp_path_factory.mktemp("branch-pages")
    events, _ = run_game("stbl", 2, 3, table_bots(["greedy", "random"]), "g-multi", target=1500, commit=True)
    write_log(d / "g.jsonl", events)
    make_branch(d / "g.jsonl", 5, d / "b.jsonl", by=HOSTILE, reason="what if", seed="1", bots=["random"],
                until="hand")
    for request in (RulingRequest("score_adjusted", HOSTILE, "late meld", hand=0, points=[50, -50]),
                    RulingRequest("hand_voided", "ref2", "misdeal", hand=1)):
        ruling, path = new_ruling(d / "g.jsonl", request)
        append_ruling(path, ruling)
    for name in ("g", "b"):
        result = runner.invoke(app, ["share", str(d / f"{name}.jsonl"), "-o", str(d / f"{name}.html")])
        assert result.exit_code == 0, result.stderr
    ends = [e.seq for e in events if isinstance(e, HandEnded)]
    return d, ends, len(events) - 1


def test_the_banner_names_the_branch_at_every_step(browser, pages):  # noqa: F811
    d, _, _ = pages
    opened = Opened(browser, d / "b.html", hash_="#seq=3")
    banner = opened.page.locator("#branch-banner")
    assert banner.is_visible()
    assert "branch of g-multi at seq 5" in banner.inner_text()
    assert "before the fork" in banner.inner_text()
    assert "by <img src=x onerror=alert(1)>\\u202e[bold]: what if" in banner.inner_text()
    assert opened.page.locator("img").count() == 0  # the name stayed text
    for _ in range(4):
        opened.page.keyboard.press("ArrowRight")
    assert opened.seq == 7 and "after the fork" in banner.inner_text()
    opened.page.mouse.wheel(0, 3000)  # the banner is in the sticky controls: still on screen
    assert banner.is_visible() and banner.bounding_box()["y"] < 200
    opened.close()


def test_rulings_appear_at_their_hand_and_the_standings_at_the_end(browser, pages):  # noqa: F811
    d, ends, last = pages
    opened = Opened(browser, d / "g.html", hash_=f"#seq={ends[0] - 1}")
    assert opened.page.locator("#hand-rulings").is_hidden()  # hand 0 not ended yet
    assert "ruling 0" not in opened.text("#rulings")
    opened.page.keyboard.press("ArrowRight")
    assert opened.seq == ends[0]
    here = opened.text("#hand-rulings")
    assert "rulings on hand 1" in here and "ruling 0: score_adjusted +50 / -50 on hand 1" in here
    assert "<img src=x onerror=alert(1)>\\u202e[bold]" in here and "ruling 1" not in here
    assert opened.page.locator("img").count() == 0
    opened.page.keyboard.press("End")
    assert opened.seq == last
    assert "ruling 1: hand_voided" in opened.text("#hand-rulings")
    panel = opened.text("#rulings")
    assert "ruling 0" in panel and "ruling 1" in panel
    assert "recount (the log's events): totals" in opened.text("#standings-recount")
    assert "after rulings (apart from the recount): totals" in opened.text("#standings-after")
    opened.close()
