"""The replay viewer's keys at 80x24: a key bar that wraps rather than hide a key, `?` listing every
key (as `replay --help` does), the goto prompt saying what is wrong with an entry, ctrl+c quitting,
and `b` on a marked decision offering to branch before it, where the better move can be tried."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from helpers import with_marks
from rich.console import Console
from textual.widgets import Static
from typer.testing import CliRunner

from buraco_events.analysis.evaluate import Analysis, analyze
from buraco_events.log.sources import read_log
from buraco_events.views.projections import Timeline
from cli.main import app
from cli.replay_app import BranchChoice, KeysScreen, ReplayApp
from cli.replay_keys import KEYS, bar_text

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "data" / "samples" / "stbl-4p-s0-00000.jsonl"
runner = CliRunner()


def _events(path: Path) -> list:
    return [event for _, _, event in read_log(path)]


def _lines(text: str, width: int) -> list[str]:
    console = Console(width=width, file=open("/dev/null", "w"), color_system=None)  # noqa: SIM115
    with console.capture() as cap:
        console.print(text)
    console.file.close()
    return cap.get().splitlines()


def test_the_key_bar_at_80_columns_shows_every_key_wrapped_never_cut() -> None:
    async def drive() -> None:
        viewer = ReplayApp(Timeline(_events(LOG)), seq=5)
        async with viewer.run_test(size=(80, 24)) as pilot:
            bar = viewer.query_one("#keys", Static)
            text = str(bar.content)
            for word in ("n next", "p prev", "g go to", "l moves", "b branch", "? keys", "q quit", "v view"):
                assert word in text
            assert "x mistake" not in text  # no analysis: x is not offered
            inner = bar.content_region.width
            assert inner <= 80
            assert bar.content_region.height >= len(_lines(text, inner)) >= 2  # wrapped, every line shown
            assert bar.region.y + bar.region.height <= 24  # on screen
            await pilot.press("q")

    asyncio.run(drive())


def test_question_mark_lists_every_key_and_closes() -> None:
    async def drive() -> None:
        viewer = ReplayApp(Timeline(_events(LOG)), seq=5)
        async with viewer.run_test(size=(80, 24)) as pilot:
            await pilot.press("question_mark")
            assert isinstance(viewer.screen, KeysScreen)
            listed = str(viewer.screen.query_one("#keys-help", Static).content)
            for key in KEYS:
                assert key.what in listed
            await pilot.press("n")  # keys of the viewer do nothing under the list
            assert viewer.seq == 5
            await pilot.press("escape")
            assert not isinstance(viewer.screen, KeysScreen)
            await pilot.press("n")
            assert viewer.seq == 6
            await pilot.press("q")

    asyncio.run(drive())


def test_replay_help_lists_the_keys() -> None:
    result = runner.invoke(app, ["replay", "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    for key in KEYS:
        assert key.what[:30] in " ".join(result.stdout.split()), key


@pytest.mark.parametrize(("typed", "words"), [
    ("zzz", "'zzz' is not a seq (57) or a hand (h2)"),
    ("99999", "no seq 99999: the log's seqs are 0 to"),
    ("h9", "no hand 9: the log has hands 1 to 1"),
    ("h0", "no hand 0"),
])
def test_a_bad_goto_keeps_the_prompt_open_and_says_what_is_wrong(typed: str, words: str) -> None:
    async def drive() -> None:
        viewer = ReplayApp(Timeline(_events(LOG)), seq=5)
        async with viewer.run_test(size=(80, 24)) as pilot:
            await pilot.press("g", *typed, "enter")
            said = viewer.query_one("#goto-error", Static)
            assert said.display and words in str(said.content)
            assert viewer.seq == 5 and viewer.query_one("#goto").has_class("open")
            await pilot.press("escape")
            assert not said.display
            await pilot.press("g", "1", "2", "enter")  # a good entry goes, the prompt closes
            assert viewer.seq == 12 and not viewer.query_one("#goto").has_class("open")
            await pilot.press("q")

    asyncio.run(drive())


def test_ctrl_c_quits_the_viewer() -> None:
    async def drive() -> bool:
        viewer = ReplayApp(Timeline(_events(LOG)), seq=5)
        async with viewer.run_test(size=(80, 24)) as pilot:
            await pilot.press("ctrl+c")
            await pilot.pause()
            return viewer.is_running

    assert asyncio.run(drive()) is False


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    # at the few deals a test affords no interval clears a mark: the marks a larger budget gives
    events = _events(LOG)
    result: Analysis = with_marks(events, analyze(events, 0, samples=4, seed="1", workers=1))
    assert any(d.mark for d in result.decisions)
    return result


@pytest.mark.slow
@pytest.mark.parametrize(("key", "offset"), [("b", 1), ("enter", 1), ("a", 0), ("escape", None)])
def test_b_on_a_marked_decision_offers_to_branch_before_it(analysis: Analysis, key: str, offset: int | None,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[int] = []
    monkeypatch.setattr(ReplayApp, "open_branch", lambda self, at: opened.append(at))
    marked = next(d for d in analysis.decisions if d.mark)

    async def drive() -> None:
        viewer = ReplayApp(Timeline(_events(LOG)), seq=marked.seq, seat=0, analysis=analysis, log=LOG)
        async with viewer.run_test(size=(80, 24)) as pilot:
            await pilot.press("b")
            assert isinstance(viewer.screen, BranchChoice)
            asked = str(viewer.screen.query_one("#choice", Static).content)
            assert "before it" in asked and marked.best in asked
            await pilot.press(key)
            assert not isinstance(viewer.screen, BranchChoice)
            await pilot.press("g", "1", "enter")  # the deal, no decision: b branches at once
            await pilot.press("b")
            await pilot.press("q")

    asyncio.run(drive())
    first = [] if offset is None else [marked.seq - offset]
    assert opened == [*first, 1]


def test_bar_text_lists_only_what_is_available() -> None:
    assert "x mistake" in bar_text() and "x mistake" not in bar_text({"step(1)", "quit"})


def test_the_table_beside_the_move_list_at_80_columns_cuts_no_name_or_number() -> None:
    from buraco_events.views.render import render_text

    async def drive() -> None:
        viewer = ReplayApp(Timeline(_events(LOG)), seq=40)
        async with viewer.run_test(size=(80, 24)) as pilot:
            await pilot.press("l")
            table = viewer.query_one("#table", Static)
            text = render_text(table.content, width=table.content_region.width)
            wide = render_text(table.content, width=200)
            assert "…" not in text and sorted(text.split()) == sorted(wide.split())  # nothing cropped
            for seat in range(4):
                assert f"greedy-{seat} (seat {seat})" in text
            assert "cards" in text
            await pilot.press("q")

    asyncio.run(drive())
