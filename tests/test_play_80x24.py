"""`buraco play` on an 80x24 terminal: each hand's score sheet stays on screen until a key is
pressed (the bots wait), and PageUp brings back what scrolled off (a `show` taller than the
screen) while the command box keeps the keys."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import RichLog

from buraco_events.views.render import render_text
from cli.play_app import PlayApp, PlayScreen
from cli.session import new_session


def _text(renderable) -> str:
    return renderable.plain if isinstance(renderable, Text) else render_text(renderable, width=80)


def _lines(screen) -> list[str]:
    return [str(line.text) for line in screen.query_one("#table", RichLog).lines]


async def _until(pilot, ok, seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if ok():
            return
        await pilot.pause(0.02)
    raise AssertionError("the app never got there")


def _match(path: Path, say):
    """fechado to 1000 against a greedy bot, seed 1: two hands."""
    return new_session("fechado", 2, 0, ["greedy"], 1, path, say, target=1000)


@pytest.mark.slow
def test_the_session_waits_after_each_sheet_but_the_last(tmp_path: Path) -> None:
    said: list[str] = []
    waits: list[int] = []
    session = _match(tmp_path / "m.jsonl", lambda r: said.append(_text(r)))
    session.between_hands = lambda: waits.append(len(said))
    try:
        assert session.run(lambda state: ".")
    finally:
        session.close()
    hands = len(session.state.hand_results)
    assert hands >= 2 and len(waits) == hands - 1
    for at in waits:  # each wait comes right after a score sheet, before the next deal is told
        assert "hand total" in "\n".join(said[at - 3:at])
        assert "dealt" in "\n".join(said[at:at + 3])


@pytest.mark.slow
def test_the_app_keeps_the_sheet_until_a_key_and_page_up_scrolls_back(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = PlayApp(lambda say: _match(tmp_path / "a.jsonl", say))
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, PlayScreen))
            screen = app.screen
            assert isinstance(screen, PlayScreen)
            table = screen.query_one("#table", RichLog)
            # `s` shows the whole table: taller than the screen; PageUp brings its top back
            await _until(pilot, lambda: any(line.startswith("you may:") for line in _lines(screen)))
            await pilot.press("s", "enter")
            await _until(pilot, lambda: "> s" in _lines(screen) and _lines(screen)[-1].startswith("hand total"))
            await pilot.pause(0.2)
            bottom = table.scroll_y
            shown_from = len(_lines(screen)) - _lines(screen)[::-1].index("> s") - 1
            for _ in range(3):
                await pilot.press("pageup")
            await pilot.pause(0.2)
            assert table.scroll_y < bottom and table.scroll_y <= shown_from
            assert screen.query_one("#command").has_focus  # typing still goes to the command box
            await pilot.press("pagedown", "pagedown", "pagedown")
            # play on with `.` until the first hand ends: its sheet stays, the bots wait for a key
            while not screen.waiting:
                n = sum(line.startswith("you may:") for line in _lines(screen))
                await pilot.press("full_stop", "enter")
                await _until(pilot, lambda n=n: screen.waiting
                             or sum(line.startswith("you may:") for line in _lines(screen)) > n)
            events = (tmp_path / "a.jsonl").read_bytes().count(b"\n")
            await pilot.pause(0.5)
            assert screen.waiting and (tmp_path / "a.jsonl").read_bytes().count(b"\n") == events  # no deal yet
            seen = _lines(screen)[-table.size.height:]
            assert seen[-1] == PlayScreen.NEXT and any("hand total" in line for line in seen)
            await pilot.press("space")
            await _until(pilot, lambda: not screen.waiting
                         and (tmp_path / "a.jsonl").read_bytes().count(b"\n") > events)
            assert screen.query_one("#command").has_focus
            await pilot.press("ctrl+q")
            await pilot.pause(0.3)

    asyncio.run(scenario())
