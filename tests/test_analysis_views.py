"""A seat's analysis where people see it: `replay --as SEAT --analysis A.json` (static, `--json`
and the viewer) and `share --as SEAT --analysis A.json`, from real analyses (`analyze` at a few
samples), and analysis files that do not fit the log or are not analyses (one line, exit 1 or 2)."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import msgspec
import pytest
from helpers import with_marks
from typer.testing import CliRunner

from buraco_events.analysis.evaluate import Analysis, analyze
from buraco_events.analysis.load import MAX_BYTES, read_analysis
from buraco_events.log.sources import read_log
from buraco_events.views.projections import Timeline
from buraco_events.views.render import MARK_SIGN, decision_words, points_words, verdict_of
from cli.main import app

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "data" / "samples" / "stbl-4p-s0-00000.jsonl"
OTHER = ROOT / "data" / "samples" / "aberto-4p-s0-00000.jsonl"
runner = CliRunner()


def _events(path: Path) -> list:
    return [event for _, _, event in read_log(path)]


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    """Seat 0 of a 4-player stbl game at 4 samples, two decisions marked as a larger budget
    measures them (`helpers.with_marks`: at 4 samples no interval clears a mark)."""
    events = _events(LOG)
    result = with_marks(events, analyze(events, 0, samples=4, seed="1", workers=1))
    assert any(d.mark for d in result.decisions) and any(d.mark is None for d in result.decisions)
    return result


def old_format(analysis: Analysis) -> dict:
    """Return an analysis as a version 1 file holds it: no version, no interval, no deals."""
    doc = msgspec.to_builtins(analysis)
    del doc["version"], doc["accuracy_low"], doc["accuracy_high"]
    for d in doc["decisions"]:
        for name in ("low", "high", "samples"):
            del d[name]
    return doc


@pytest.fixture
def a_json(tmp_path: Path, analysis: Analysis) -> Path:
    path = tmp_path / "A.json"
    path.write_bytes(msgspec.json.encode(analysis))
    return path


def replay(*args: object):
    return runner.invoke(app, ["replay", *map(str, args)])


def one_line_error(result, code: int, *words: str) -> str:
    """Assert an exit code with one error line on stderr (no traceback) holding `words`."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr and isinstance(result.exception, SystemExit)
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


# -- replay: static and --json ------------------------------------------------------------------


@pytest.mark.slow
def test_static_replay_shows_the_mark_at_the_decisions_seq(a_json, analysis):
    marked = next(d for d in analysis.decisions if d.mark)
    result = replay(LOG, "--as", 0, "--analysis", a_json, "--at", marked.seq, "--static")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    want = (f"analysis: {marked.mark} ({MARK_SIGN[marked.mark]}): -{marked.loss:.0f} points (95%:"
            f" {marked.low:.0f}-{marked.high:.0f}, {marked.samples} deals); better: {marked.best}")
    at = lines.index(want)  # under the event (the seat's decision), above the status line
    assert lines[1].startswith(f"> seq {marked.seq}: greedy-0 ") and lines[at + 1].startswith("to play: ")
    # a step that is no decision of the seat has no analysis line; nor has any without --analysis
    other = next(s for s in range(marked.seq, 0, -1) if s not in {d.seq for d in analysis.decisions})
    before = replay(LOG, "--as", 0, "--analysis", a_json, "--at", other, "--static")
    assert before.exit_code == 0 and "analysis:" not in before.stdout
    plain = replay(LOG, "--as", 0, "--at", marked.seq, "--static")
    assert "analysis:" not in plain.stdout
    assert plain.stdout.splitlines() == [line for line in lines if not line.startswith("analysis:")]


@pytest.mark.slow
def test_static_replay_words_for_a_choice_that_stands_and_an_interval_too_wide(a_json, analysis):
    """A choice shown as standing only when its interval says so; one too wide says that, never
    `=`; no line starts with a bare sign."""
    kinds = {verdict_of(msgspec.to_builtins(d)) for d in analysis.decisions}
    assert {"stands", "wide"} <= kinds, kinds
    for d in analysis.decisions:
        out = replay(LOG, "--as", "greedy-0", "--analysis", a_json, "--at", d.seq, "--static").stdout
        line = next(x for x in out.splitlines() if x.startswith("analysis: "))
        assert line == f"analysis: {decision_words(msgspec.to_builtins(d))}"
        assert not line.startswith(("analysis: ?", "analysis: ="))
        verdict = verdict_of(msgspec.to_builtins(d))
        if verdict == "stands":
            assert line.startswith("analysis: the choice stands: no alternative did better (95%")
            assert d.high is not None and d.high < 200 and f"{d.samples} deals" in line
        elif verdict == "wide":
            assert line.startswith("analysis: too wide to say: ") and d.high is not None and d.high >= 200
            assert f"{d.samples} deals" in line
            if d.best != d.chosen:
                assert f"-{d.loss:.0f} points (95%: {d.low:.0f}-{d.high:.0f}" in line and f"better: {d.best}" in line
        elif verdict == "small":
            assert line.startswith(f"analysis: no mark: -{d.loss:.0f} points (95%: ")


@pytest.mark.slow
def test_an_analysis_of_format_1_loads_and_says_it_has_no_interval(tmp_path, analysis):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old_format(analysis)))
    old = read_analysis(path)
    assert old.version == 1 and all(d.low is None and d.samples is None for d in old.decisions)
    marked = next(d for d in analysis.decisions if d.mark)
    out = replay(LOG, "--as", 0, "--analysis", path, "--at", marked.seq, "--static").stdout
    assert (f"analysis: {marked.mark} ({MARK_SIGN[marked.mark]}): -{points_words(marked.loss)} points (± 20;"
            " no interval: an analysis of format 1); better: ") in out
    page = page_of(LOG, tmp_path / "old.html", "--as", 0, "--analysis", path)
    assert "4 samples each (format 1: no intervals)" in page
    assert f"accuracy {points_words(analysis.accuracy)} (no interval: an analysis of format 1)" in page


@pytest.mark.slow
def test_an_analysis_of_format_2_loads_and_says_its_accuracy_has_no_interval(tmp_path, analysis):
    doc = msgspec.to_builtins(analysis)
    del doc["accuracy_low"], doc["accuracy_high"]
    path = tmp_path / "v2.json"
    path.write_text(json.dumps({**doc, "version": 2}))
    v2 = read_analysis(path)
    assert v2.version == 2 and v2.accuracy_low is None and v2.decisions == analysis.decisions
    page = page_of(LOG, tmp_path / "v2.html", "--as", 0, "--analysis", path)
    assert f"accuracy {points_words(analysis.accuracy)} (no interval: an analysis of format 2)" in page
    result = share(LOG, tmp_path / "v2b.html", "--as", 0, "--analysis", path)
    assert f"accuracy {analysis.accuracy:g} (no interval: an analysis of format 2)" in result.stdout


@pytest.mark.slow
def test_replay_json_carries_the_decision_of_its_seq(a_json, analysis):
    by_seq = {d.seq: d for d in analysis.decisions}
    marked = next(d for d in analysis.decisions if d.mark)
    for seq in (marked.seq, marked.seq - 1, 0):
        result = replay(LOG, "--as", 0, "--analysis", a_json, "--at", seq, "--json")
        assert result.exit_code == 0, result.stderr
        doc = json.loads(result.stdout)
        want = msgspec.to_builtins(by_seq[seq]) if seq in by_seq else None
        assert doc["decision"] == want, seq
        plain = json.loads(replay(LOG, "--as", 0, "--at", seq, "--json").stdout)
        assert "decision" not in plain and {k: v for k, v in doc.items() if k != "decision"} == plain


def test_decision_words_escape_text_from_the_file():
    words = decision_words({"loss": 250.0, "loss_stderr": 5.0, "mark": "inaccuracy", "best": "x\x1b[2J\u202e",
                            "low": 240.0, "high": 260.0, "samples": 32})
    assert words == "inaccuracy (?!): -250 points (95%: 240-260, 32 deals); better: x\\x1b[2J\\u202e"
    old = decision_words({"loss": 50.0, "loss_stderr": 5.0, "mark": None, "best": "x\x1b[2J\u202e"})
    assert old == "no mark: -50 points (± 5; no interval: an analysis of format 1); better: x\\x1b[2J\\u202e"


# -- the file against the log: one line, exit 1 (does not fit) or 2 (cannot be read) ------------


def edited(tmp_path: Path, analysis: Analysis, change) -> Path:
    doc = msgspec.to_builtins(analysis)
    change(doc)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.slow
def test_analysis_needs_as(a_json):
    one_line_error(replay(LOG, "--analysis", a_json, "--static"), 2, "--analysis", "--as SEAT")
    one_line_error(runner.invoke(app, ["share", str(LOG), "-o", str(a_json.with_suffix(".html")),
                                       "--analysis", str(a_json)]), 2, "--analysis", "--as SEAT")
    assert not a_json.with_suffix(".html").exists()


@pytest.mark.slow
def test_an_analysis_of_another_seat_or_game_is_refused(a_json, tmp_path, analysis):
    line = one_line_error(replay(LOG, "--as", 2, "--analysis", a_json, "--static"), 1)
    assert line == f"error: {a_json}: seat: the analysis is of seat 0, not seat 2"
    one_line_error(replay(OTHER, "--as", 0, "--analysis", a_json, "--static"), 1,
                   f"{a_json}: game_id: the analysis is of game 'stbl-4p-s0-00000', not 'aberto-4p-s0-00000'")
    renamed = edited(tmp_path, analysis, lambda d: d.update(player="someone"))
    one_line_error(replay(LOG, "--as", 0, "--analysis", renamed, "--static"), 1, "player:", "'someone'")


@pytest.mark.slow
def test_decisions_the_seat_did_not_make_are_refused(tmp_path, analysis):
    tl = Timeline(_events(LOG))
    last = analysis.decisions[-1].seq
    other = next(e.seq for e in tl.events if e.seq > last and getattr(e, "player", None) == 1)
    k = len(analysis.decisions) - 1
    path = edited(tmp_path, analysis, lambda d: d["decisions"][k].update(seq=other))
    one_line_error(replay(LOG, "--as", 0, "--analysis", path, "--static"), 1,
                   f"decisions[{k}].seq:", f"seq {other} is not a decision of seat 0")
    path = edited(tmp_path, analysis, lambda d: d["decisions"][1].update(chosen="draw"))
    one_line_error(replay(LOG, "--as", 0, "--analysis", path, "--static"), 1, "decisions[1].chosen:", "not 'draw'")


@pytest.mark.slow
def test_an_analysis_naming_a_card_the_seat_did_not_hold_is_refused(tmp_path, analysis):
    """Privacy: the analysis is shown as the seat's; a file naming another hand's card is not."""
    first = analysis.decisions[0]
    tl = Timeline(_events(LOG))
    state = tl.state(first.seq - 1)
    hidden = next(c for c in state.hands[1] if state.hands[0].get(c, 0) == 0)
    path = edited(tmp_path, analysis, lambda d: d["decisions"][0].update(best=f"discard {hidden}"))
    one_line_error(replay(LOG, "--as", 0, "--analysis", path, "--static"), 1,
                   "decisions[0].best:", "names a card seat 0 did not hold")
    path = edited(tmp_path, analysis, lambda d: d["decisions"][0]["options"][0].update(action="shout"))
    one_line_error(replay(LOG, "--as", 0, "--analysis", path, "--static"), 1,
                   "decisions[0].options[0].action:", "'shout' is not an action")


@pytest.mark.slow
@pytest.mark.parametrize(("change", "field", "why"), [
    (lambda d: d.update(seat="0"), "seat:", "expected `int`, got `str`"),
    (lambda d: d["decisions"][2].update(loss="lots"), "decisions[2].loss:", "expected `float`, got `str`"),
    (lambda d: d["decisions"][0]["options"][1].pop("value"), "decisions[0].options[1].value:", "missing"),
    (lambda d: d.pop("game_id"), "game_id:", "missing"),
    (lambda d: d["decisions"][0].update(mark="brilliant"), "decisions[0].mark:", "'brilliant' is not one of"),
    (lambda d: d["decisions"][0].update(loss=-3), "decisions[0].loss:", "not a loss in points"),
    (lambda d: d["decisions"][1].update(seq=d["decisions"][0]["seq"]), "decisions[1].seq:", "does not follow"),
    (lambda d: d.update(decisions={"a": 1}), "decisions:", "expected `array`, got `object`"),
    (lambda d: d.update(version=4), "version:", "4 is not a version of the analysis format"),
    (lambda d: d.update(accuracy_high=None), "accuracy_low:", "both ends or neither"),
    (lambda d: d.update(accuracy_low=d["accuracy"] + 1), "accuracy_low:", "is not an interval (0-100) around"),
    (lambda d: d.update(accuracy_high=101.0), "accuracy_low:", "is not an interval (0-100) around"),
    (lambda d: d["decisions"][0].update(low=5.0, high=1.0), "decisions[0].low:", "is not an interval around"),
    (lambda d: d["decisions"][0].update(high=None), "decisions[0].low:", "both ends or neither"),
    (lambda d: d["decisions"][0].update(samples=0), "decisions[0].samples:", "0 is not a number of deals"),
    (lambda d: d["decisions"][0].update(mark="blunder"), "decisions[0].mark:", "not the class of the interval"),
])
def test_a_hostile_analysis_file_gets_one_line_and_exit_2(tmp_path, analysis, change, field, why):
    path = edited(tmp_path, analysis, change)
    for args in (["replay", str(LOG), "--static"], ["share", str(LOG), "-o", str(tmp_path / "p.html")]):
        result = runner.invoke(app, [*args, "--as", "0", "--analysis", str(path)])
        one_line_error(result, 2, f"{path}: {field}", why)
    assert not (tmp_path / "p.html").exists()


def test_a_huge_missing_or_non_json_file_gets_one_line_and_exit_2(tmp_path):
    huge = tmp_path / "huge.json"
    huge.write_bytes(b'{"game_id": "' + b"x" * MAX_BYTES + b'"}')
    one_line_error(replay(LOG, "--as", 0, "--analysis", huge, "--static"), 2, f"{huge}: more than")
    one_line_error(replay(LOG, "--as", 0, "--analysis", tmp_path / "none.json", "--static"), 2,
                   "none.json: cannot read: no such file or folder")
    one_line_error(replay(LOG, "--as", 0, "--analysis", tmp_path, "--static"), 2, f"{tmp_path}: cannot read: is a folder")
    for raw in (b"\xff\xfe not json", b'{"game_id": "g", ', b"[" * 100_000, b""):
        bad = tmp_path / "bad.json"
        bad.write_bytes(raw)
        one_line_error(replay(LOG, "--as", 0, "--analysis", bad, "--static"), 2, f"{bad}: ")


@pytest.mark.slow
def test_text_from_the_file_is_shown_escaped_in_errors(tmp_path, analysis):
    path = edited(tmp_path, analysis, lambda d: d.update(game_id="g\x1b[31m\u202e"))
    line = one_line_error(replay(LOG, "--as", 0, "--analysis", path, "--static"), 1, "game_id:")
    assert "\x1b" not in line and "\u202e" not in line and "\\x1b[31m\\u202e" in line


@pytest.mark.slow
def test_read_analysis_round_trips_the_analyze_json(a_json, analysis):
    assert read_analysis(a_json) == analysis
    assert re.fullmatch(r"\{.*\}", a_json.read_text())


# -- the viewer: the line on the decision's screen, x to the next marked decision ------------------


def offered(viewer) -> set[str]:
    """Return the key bar's words for x when the viewer offers it (empty: not offered)."""
    from textual.widgets import Static

    bar = str(viewer.query_one("#keys", Static).content)
    return {"next mistake"} if "x mistake" in bar and viewer.check_action("next_mark", ()) else set()


@pytest.mark.slow
def test_viewer_shows_the_line_and_x_jumps_to_the_next_marked_decision(analysis):
    from textual.widgets import Static

    from buraco_events.views.render import render_text
    from cli.replay_app import ReplayApp

    tl = Timeline(_events(LOG))
    marked = [d for d in analysis.decisions if d.mark]
    assert len(marked) >= 2

    async def drive() -> None:
        viewer = ReplayApp(tl, seq=0, seat=0, analysis=analysis)
        async with viewer.run_test(size=(160, 60)) as pilot:
            table = lambda: render_text(viewer.query_one("#table", Static).content, width=160)  # noqa: E731
            assert "analysis:" not in table()
            assert offered(viewer) == {"next mistake"}  # listed in the footer
            for d in marked:
                await pilot.press("x")
                assert viewer.seq == d.seq
                assert f"analysis: {decision_words(msgspec.to_builtins(d))}" in table()
            await pilot.press("x")  # past the last: back to the first, saying so
            assert viewer.seq == marked[0].seq and "back to the first" in viewer.status_text
            await pilot.press("v")  # seat 1's view: seat 0's analysis names seat 0's cards
            assert viewer.seat == 1 and "analysis:" not in table()
            await pilot.press("v", "v", "v")  # the referee sees every card: the line shows
            assert viewer.seat is None and "analysis:" in table()
            await pilot.press("v", "x")  # x goes back to the analysis's seat
            assert viewer.seat == 0 and viewer.seq == marked[1].seq and "analysis:" in table()
            await pilot.press("q")

    asyncio.run(drive())


def test_viewer_without_an_analysis_offers_no_x():
    from cli.replay_app import ReplayApp

    tl = Timeline(_events(LOG))

    async def drive() -> None:
        viewer = ReplayApp(tl, seq=5, seat=0)
        async with viewer.run_test(size=(120, 40)) as pilot:
            assert offered(viewer) == set()
            await pilot.press("x")
            assert viewer.seq == 5
            await pilot.press("q")

    asyncio.run(drive())


@pytest.mark.slow
def test_viewer_with_no_marked_decision_says_so(analysis):
    from cli.replay_app import ReplayApp

    calm = msgspec.structs.replace(analysis, decisions=[msgspec.structs.replace(d, mark=None)
                                                        for d in analysis.decisions])
    tl = Timeline(_events(LOG))

    async def drive() -> None:
        viewer = ReplayApp(tl, seq=3, seat=0, analysis=calm)
        async with viewer.run_test(size=(120, 40)) as pilot:
            await pilot.press("x")
            assert viewer.seq == 3 and "no marked decision" in viewer.status_text
            await pilot.press("q")

    asyncio.run(drive())


# -- share: the page carries the decisions, marks them on the seq bar, and stays the seat's -------


def share(log: Path, out: Path, *args: object):
    return runner.invoke(app, ["share", str(log), "-o", str(out), "--force", *map(str, args)])


def page_of(log: Path, out: Path, *args: object) -> str:
    result = share(log, out, *args)
    assert result.exit_code == 0, result.stderr
    return out.read_text("utf-8")


@pytest.mark.slow
def test_share_steps_are_replay_json_with_the_analysis(tmp_path, a_json, analysis):
    from buraco_events.views.share import decode_steps, page_data

    result = share(LOG, tmp_path / "p.html", "--as", 0, "--analysis", a_json)
    assert result.exit_code == 0, result.stderr
    marked = [d for d in analysis.decisions if d.mark]
    assert (f"analysis: {len(analysis.decisions)} decisions of seat 0, {len(marked)} marked"
            f", accuracy {analysis.accuracy:g} (95%: {analysis.accuracy_low:g}-{analysis.accuracy_high:g}),"
            " shown at their steps") in result.stdout
    data = page_data((tmp_path / "p.html").read_text())
    steps = decode_steps(data)
    by_seq = {d.seq: msgspec.to_builtins(d) for d in analysis.decisions}
    assert [s["decision"] for s in steps] == [by_seq.get(seq) for seq in range(len(steps))]
    for seq in (0, marked[0].seq, marked[0].seq + 1, analysis.decisions[-1].seq):
        line = replay(LOG, "--as", 0, "--analysis", a_json, "--at", seq, "--json").stdout
        assert msgspec.json.encode(steps[seq]).decode() + "\n" == line, seq
    summary = data["analysis"]
    words = {str(d.seq): decision_words(msgspec.to_builtins(d)) for d in analysis.decisions}
    assert summary == msgspec.to_builtins(analysis) | {"decisions": len(analysis.decisions), "words": words}
    # without --analysis the page is as before: no decision in the steps, no analysis, no marks
    plain = (page_of(LOG, tmp_path / "q.html", "--as", 0))
    assert "decision" not in decode_steps(page_data(plain))[0] and "analysis" not in page_data(plain)
    assert "id=marks" not in plain and "analysis of" not in plain


@pytest.mark.slow
def test_the_seq_bar_marks_each_marked_decision(tmp_path, a_json, analysis):
    page = page_of(LOG, tmp_path / "p.html", "--as", 0, "--analysis", a_json)
    last = len(_events(LOG)) - 1
    bar = re.search(r"<div id=marks class='bar'[^>]*>(.*?)</div>", page).group(1)
    links = re.findall(r"<a class='mark mark-(\w+)' href='#seq=(\d+)' data-seq='\d+' title='([^']*)'"
                       r" aria-label='[^']*' style='left:([\d.]+)%'>([^<]*)</a>", bar)
    marked = [d for d in analysis.decisions if d.mark]
    assert [(m, int(s)) for m, s, *_ in links] == [(d.mark, d.seq) for d in marked]
    for (_, seq, title, left, sign), d in zip(links, marked, strict=True):
        words = decision_words(msgspec.to_builtins(d)).replace("'", "&#x27;")
        assert title == f"seq {seq}: {words}" and sign == MARK_SIGN[d.mark]
        assert abs(float(left) - 100 * d.seq / last) < 0.01
    mean = points_words(round(sum(d.samples for d in analysis.decisions) / len(analysis.decisions), 1))
    assert (f"analysis of greedy-0 (seat 0): {len(analysis.decisions)} decisions, up to 8 deals a decision"
            f" (--samples 4), {mean} on average (seed 1),"
            f" mean loss {points_words(analysis.mean_loss)} points a decision, accuracy"
            f" {points_words(analysis.accuracy)} (95%: {points_words(analysis.accuracy_low)}-"
            f"{points_words(analysis.accuracy_high)}); {len(marked)} marked") in page
    # spoiler-free: the marks in a row, not placed along the bar (a place would tell the length)
    free = page_of(LOG, tmp_path / "f.html", "--as", 0, "--analysis", a_json, "--spoiler-free")
    row = re.search(r"<div id=marks class='row'[^>]*>(.*?)</div>", free).group(1)
    assert row.count("class='mark ") == len(marked) and "left:" not in row


@pytest.mark.slow
def test_the_analysis_is_only_in_its_seats_page(tmp_path, a_json):
    for args in (("--as", 1), ("--as", "greedy-2")):
        one_line_error(share(LOG, tmp_path / "p.html", *args, "--analysis", a_json), 1,
                       "seat: the analysis is of seat 0, not seat")
    assert not (tmp_path / "p.html").exists()


@pytest.mark.slow
def test_a_seat_page_with_its_analysis_holds_nothing_hidden_from_the_seat(tmp_path):
    """Deal anew cards seat 0 never sees; its analysis (made again on that log, as the seat could
    know it) and its page with the analysis do not change, but for the head."""
    from helpers import random_game
    from test_share import deal_swaps, same_but_head, write_sealed

    events = random_game("stbl", 4, 0)[:90]  # cut mid-hand: the other hands are still hidden
    found = deal_swaps(events, 0, random.Random(1), 20)
    hands = [other for other in found if other[1].hands[1:] != events[1].hands[1:]]  # other seats' cards
    rest = [other for other in found if other[1].hands[1:] == events[1].hands[1:]]  # the stock's, the deads'
    assert hands and rest
    swapped = [hands[0], rest[0]]
    pages = []
    for n, log_events in enumerate([events, *swapped]):
        log = write_sealed(tmp_path / f"g{n}" / "g.jsonl", log_events)
        a = analyze(log_events, 0, samples=2, seed="p", workers=1)
        path = tmp_path / f"g{n}" / "A.json"
        path.write_bytes(msgspec.json.encode(a))
        pages.append(page_of(log, tmp_path / f"g{n}" / "g.html", "--as", 0, "--analysis", path))
    from buraco_events.views.share import page_data

    assert page_data(pages[0])["analysis"]["decisions"] > 5
    assert all(same_but_head(pages[0], other) for other in pages[1:])


@pytest.mark.slow
def test_text_from_the_analysis_is_escaped_in_the_page(tmp_path):
    from buraco_events.views.share import page_data

    evil = "p</script><!--<b>\u202e"
    events = _events(LOG)
    events = [msgspec.structs.replace(events[0], players=(evil, *events[0].players[1:])), *events[1:]]
    from test_share import write_sealed

    log = write_sealed(tmp_path / "g.jsonl", events)
    a = analyze(events, 0, samples=2, seed="s</script>\u2028", workers=1)
    path = tmp_path / "A.json"
    path.write_bytes(msgspec.json.encode(a))
    page = page_of(log, tmp_path / "g.html", "--as", 0, "--analysis", path)
    assert page.count("</script>") == 2 and "<b>" not in page and "\u2028" not in page
    assert "analysis of p&lt;/script&gt;&lt;!--&lt;b&gt;\\u202e (seat 0)" in page
    assert "(seed s&lt;/script&gt;\\u2028)" in page
    assert page_data(page)["analysis"]["seed"] == "s</script>\u2028"
