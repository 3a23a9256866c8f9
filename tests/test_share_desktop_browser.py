"""A 4-player `buraco share` page on a desktop (1280x800) in a real browser: stepping through the
whole game, the melds and the seat to play stay in the viewport; the title names the winner only
at the last step, or from the start with `--spoiler`.

Run with `python -m pytest -m browser` (see tests/test_share_browser.py: Debian's chromium driven
by Playwright, the page opened from disk, nothing fetched)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_share_browser import Opened
from typer.testing import CliRunner

from cli.main import app

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "data" / "samples" / "stbl-4p-s0-00000.jsonl"
WIDTH, HEIGHT = 1280, 800
runner = CliRunner()

BOXES = """() => {
  const box = s => { const e = document.querySelector(s); if (!e) return null;
    const b = e.getBoundingClientRect(); return {top: b.top, bottom: b.bottom, left: b.left, right: b.right}; };
  return {melds: box('#melds'), turn: box('.seat.turn'), phase: document.getElementById('status').textContent};
}"""


def _page(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "p.html"
    result = runner.invoke(app, ["share", str(LOG), "-o", str(out), "--force", *args])
    assert result.exit_code == 0, result.output
    return out


def test_stepping_keeps_the_melds_and_the_seat_to_play_in_view(browser, tmp_path):  # noqa: F811
    opened = Opened(browser, _page(tmp_path), width=WIDTH, height=HEIGHT)
    turns = 0
    last = int(opened.page.evaluate("JSON.parse(document.getElementById('buraco-replay').textContent).steps.length")) - 1
    for _ in range(last):
        opened.page.keyboard.press("n")
        shown = opened.page.evaluate(BOXES)
        melds = shown["melds"]
        # the melds: their box starts on screen, whole in view or at least 200 px of it (it scrolls)
        seen = min(melds["bottom"], HEIGHT) - melds["top"]
        assert 0 <= melds["top"] < HEIGHT and seen >= min(200, melds["bottom"] - melds["top"]), (opened.seq, melds)
        assert melds["right"] <= WIDTH
        turn = shown["turn"]
        if turn is not None:  # the seat to play, whole in the viewport
            turns += 1
            assert turn["top"] >= 0 and turn["bottom"] <= HEIGHT and turn["right"] <= WIDTH, (opened.seq, turn)
    assert opened.seq == last and turns > 100
    assert opened.page.evaluate("window.scrollY") == 0  # nothing had to be scrolled to
    opened.page.screenshot(path=str(tmp_path / "desktop.png"))
    opened.close()


def test_the_title_names_the_winner_only_at_the_last_step_or_with_spoiler(browser, tmp_path):  # noqa: F811
    plain = Opened(browser, _page(tmp_path), width=WIDTH, height=HEIGHT)
    assert " win " not in plain.page.title() and "stbl-4p-s0-00000" in plain.page.title()
    assert " win " not in Path(tmp_path / "p.html").read_text().split("</title>")[0]
    plain.page.keyboard.press("End")
    assert " win " in plain.page.title()
    plain.page.keyboard.press("p")
    assert " win " not in plain.page.title()
    plain.close()
    spoiled = Opened(browser, _page(tmp_path, "--spoiler"), width=WIDTH, height=HEIGHT)
    assert " win " in spoiled.page.title()
    spoiled.close()


def test_spoiler_and_spoiler_free_together_are_refused(tmp_path):
    result = runner.invoke(app, ["share", str(LOG), "-o", str(tmp_path / "x.html"), "--spoiler", "--spoiler-free"])
    assert result.exit_code == 2 and "choose one of --spoiler and --spoiler-free" in result.output
