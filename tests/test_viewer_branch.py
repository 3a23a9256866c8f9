"""The replay viewer and branches, driven headlessly (textual's `run_test`): `b` opens a branch at
the seq on screen and plays it in the same app, and a branch log is named on every screen."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from helpers import write_match
from rich.console import Console
from textual.widgets import RichLog, Static

from buraco_events.audit.files import audit_path
from buraco_events.audit.rulings import RulingRequest, append_ruling, new_ruling
from buraco_events.model.events import Branched, Drew, HandEnded, Note, decode_event
from buraco_events.views.projections import Timeline
from buraco_events.views.replays import load_rulings, rulings_object
from cli.play_app import PlayScreen
from cli.replay_app import ReplayApp


@pytest.fixture(scope="module")
def parent(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("viewer") / "g.jsonl"
    assert len(write_match(path, 3000, "g-view").hand_results) == 3
    return path


def _timeline(path: Path) -> Timeline:
    return Timeline([decode_event(line) for line in path.read_bytes().splitlines()])


async def _wait(pilot, ready, tries: int = 400) -> None:
    for _ in range(tries):
        if ready():
            return
        await pilot.pause(0.05)
    raise AssertionError("the app never got there")


async def _type(pilot, text: str) -> None:
    for key in text:
        await pilot.press("space" if key == " " else key)
    await pilot.press("enter")


@pytest.mark.slow
def test_b_plays_a_branch_in_the_viewer_and_writes_it_beside_the_log(parent):
    tl = _timeline(parent)
    at = next(e.seq for e in tl.events if isinstance(e, Drew) and e.player == 1 and e.seq > 30) - 1
    assert tl.state(at).to_play == 1 and tl.state(at).phase == "draw"
    first, second = parent.with_name(f"g-branch-{at}.jsonl"), parent.with_name(f"g-branch-{at}-2.jsonl")

    async def drive() -> tuple[list[str], str, str]:
        viewer = ReplayApp(tl, seq=at, seat=None, log=parent)
        async with viewer.run_test(size=(160, 60)) as pilot:
            assert "branch of" not in viewer.status_text  # the game itself
            await pilot.press("b")
            await _wait(pilot, lambda: isinstance(viewer.screen, PlayScreen))
            play = viewer.screen
            table = play.query_one("#table", RichLog)
            await _wait(pilot, lambda: any("you may:" in str(line.text) for line in table.lines))
            await _type(pilot, "draw")  # seat 1, the seat to move, plays: typed words of buraco play
            await _wait(pilot, lambda: any("> draw" in str(line.text) for line in table.lines))
            await pilot.pause(0.3)
            shown = [str(line.text) for line in table.lines]
            await _type(pilot, "quit")  # `q` typed in the command box is a letter, not the viewer's key
            await _wait(pilot, lambda: not isinstance(viewer.screen, PlayScreen))
            back = viewer.status_text
            await pilot.press("b")  # a second branch at the same seq gets a name of its own
            await _wait(pilot, lambda: isinstance(viewer.screen, PlayScreen))
            await pilot.press("ctrl+q")
            await _wait(pilot, lambda: not isinstance(viewer.screen, PlayScreen))
            again = viewer.status_text
            await pilot.press("q")
        return shown, back, again

    shown, back, again = asyncio.run(drive())
    label = f"branch of g-view at seq {at}"
    assert sum(line == label for line in shown) >= 1 and any(line.startswith("you may: draw") for line in shown)
    assert f"branch written to {first}; go on with: buraco play --resume {first} --parent {parent}" in back
    assert f"branch written to {second}" in again
    parent_lines = parent.read_bytes().splitlines()
    for path in (first, second):
        lines = path.read_bytes().splitlines()
        assert lines[:at + 1] == parent_lines[:at + 1]
        branched = decode_event(lines[at + 1])
        assert isinstance(branched, Branched) and branched.fork_seq == at and branched.parent == "g-view"
        assert branched.by == "viewer" and branched.reason == f"opened in the viewer at seq {at}"
        assert branched.seed == "1" and branched.deck == "parent"
        note = decode_event(lines[at + 2])
        assert isinstance(note, Note) and note.by == "buraco play" and '"human": 1' in note.text
        (result,) = audit_path(path, partial=True)
        assert result.report.ok, result.report
    drew = decode_event(first.read_bytes().splitlines()[at + 3])
    assert isinstance(drew, Drew) and drew.player == 1  # the typed draw, by the human's seat


@pytest.mark.slow
def test_a_branch_log_is_named_on_every_screen_of_the_viewer(parent, tmp_path):
    from buraco_events.play.branch import make_branch

    tl = _timeline(parent)
    at = tl.hand_start(1) + 10
    branch = tmp_path / "b.jsonl"
    make_branch(parent, at, branch, until="hand", by="t", reason="r", seed="2")
    btl = _timeline(branch)
    label = f"branch of g-view at seq {at}"

    async def drive() -> list[str]:
        viewer = ReplayApp(btl, seq=0, seat=None, log=branch)
        seen = []
        async with viewer.run_test(size=(160, 60)) as pilot:
            for key in ("n", "end", "p", "v", "right_square_bracket", "t", "m", "home", "v"):
                await pilot.press(key)
                seen.append(viewer.status_text)
            await pilot.press("g", "x", "enter")
            seen.append(viewer.status_text)
            await pilot.press("q")
        return seen

    seen = asyncio.run(drive())
    assert len(seen) == 10 and all(text.startswith(label + " · seq ") for text in seen), seen
    assert "not a seq" in seen[-1]


def test_b_without_a_log_file_says_so(parent):
    tl = _timeline(parent)

    async def drive() -> str:
        viewer = ReplayApp(tl, seq=5)
        async with viewer.run_test(size=(120, 40)) as pilot:
            await pilot.press("b")
            assert not isinstance(viewer.screen, PlayScreen)
            return viewer.status_text

    assert "no log file to branch from" in asyncio.run(drive())


def test_the_viewer_shows_each_ruling_at_its_hand(parent, tmp_path):
    """Rulings: the viewer's screen of hand 1's end lists the ruling on hand 1, and no other."""
    log = tmp_path / "g.jsonl"
    log.write_bytes(parent.read_bytes())
    for hand, why in ((0, "misdeal at the first table"), (1, "exposed card in the second")):
        ruling, path = new_ruling(log, RulingRequest("hand_voided", "ref", why, hand=hand))
        append_ruling(path, ruling)
    tl = _timeline(log)
    end1 = next(e.seq for e in tl.events if isinstance(e, HandEnded) and e.hand == 1)

    async def drive() -> str:
        viewer = ReplayApp(tl, seq=end1, rulings=rulings_object(load_rulings(log)), log=log)
        async with viewer.run_test(size=(160, 80)) as pilot:
            await pilot.pause(0.2)
            console = Console(width=160, record=True, file=io.StringIO())
            console.print(viewer.query_one("#table", Static).content)
            text = console.export_text()
            await pilot.press("q")
        return text

    text = asyncio.run(drive())
    assert "exposed card in the second" in text and "misdeal at the first table" not in text
