"""The tournament standings page in a real browser (Debian's headless Chromium driven by
Playwright; `python -m pytest -m browser`), at desktop and phone sizes: the standings as the
JSON gives them, the travellers of a duplicate event, every game linked to a share page and an
audit page that open, nothing loaded from anywhere but the files, text from the log escaped.
Screenshots go to the test's tmp folder and to /tmp/tournament-*.png."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

pytestmark = pytest.mark.browser

runner = CliRunner()


def tour(*args: object) -> str:
    result = runner.invoke(app, ["tournament", *map(str, args)])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result.stdout


@pytest.fixture(scope="module")
def event(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("tour")
    t = folder / "club.jsonl"
    tour("new", t, "--name", "Club <b>night</b>", "--variant", "stbl", "--movement", "mitchell",
         "--rounds", "3", "--deals", "duplicate")
    for i in range(1, 7):
        tour("enter", t, "--players", f"p{i}a,p{i}b", "--name", f"pair {i}" if i != 2 else "<i>two</i>")
    for r in range(1, 4):
        tour("pair", t)
        tour("play", t, "--bots", "greedy,random,random", "--workers", "1")
        if r == 3:
            tour("adjust", t, "--round", "3", "--entry", "4", "--vp", "-2", "--by", "ana",
                 "--reason", "late <start>")
        tour("close", t)
    html = folder / "club.html"
    tour("standings", t, "--html", html)
    return html, json.loads(tour("standings", t, "--json"))


@pytest.mark.parametrize(("label", "width", "height"), [("desktop", 1280, 900), ("phone", 390, 844)])
def test_the_standings_page_shows_the_standings_and_links_every_game(browser, event, tmp_path: Path,
                                                                      label: str, width: int, height: int) -> None:
    html, table = event
    page = browser.new_page(viewport={"width": width, "height": height})
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html.as_uri())
    assert page.title() == "Club <b>night</b>: standings"  # escaped text, not markup
    assert page.inner_text("h1") == "Club <b>night</b>"
    rows = page.eval_on_selector_all("#standings tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.innerText))")
    assert [(int(r[0]), int(r[1]), int(r[3].split()[0])) for r in rows] == [
        (r["place"], r["entry"], r["vp"]) for r in table["rows"]]
    assert "<i>two</i>" in page.inner_text("#standings")
    assert "late <start>" in page.inner_text("#adjustments")
    travellers = page.query_selector_all("table.traveller")
    assert len(travellers) == 3
    for t in travellers:  # each round's three tables on the same deals, against the field's average
        cells = t.eval_on_selector_all("tbody tr", "rs => rs.map(r => r.cells[6].innerText)")
        assert len(cells) == 3 and abs(sum(float(c) for c in cells)) < 0.2
    # the page fits the phone's width; wide tables scroll inside their own box
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    page.screenshot(path=str(tmp_path / f"tournament-{label}.png"), full_page=True)
    shutil.copy(tmp_path / f"tournament-{label}.png", f"/tmp/tournament-{label}.png")
    shares = page.eval_on_selector_all("a.share", "as => as.map(a => a.href)")
    audits = page.eval_on_selector_all("a.audit", "as => as.map(a => a.href)")
    assert len(set(shares)) == 9 and len(set(audits)) == 9
    page.click("#standings a.share >> nth=0")
    page.wait_for_load_state()
    assert page.url.split("#")[0] in shares and "Club" not in page.title()  # the game's replay page
    page.go_back()
    page.click("#standings a.audit >> nth=0")
    page.wait_for_load_state()
    assert page.url.split("#")[0] in audits
    assert not errors, errors
    assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
    page.close()
