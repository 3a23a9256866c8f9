"""`buraco analyze` (`analysis.evaluate`): fair (only what the seat knew), reproducible for any
number of workers, and every command's contract (`--help`, `--json`, exit codes, one-line errors)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from buraco_events.analysis.evaluate import (
    CAP_FACTOR,
    FIRST_ROUND,
    FORMAT_VERSION,
    INACCURACY,
    Z95,
    Decision,
    Point,
    Verdict,
    accuracy_interval,
    accuracy_of,
    analyze,
    decision_points,
    evaluate,
    loss_noise,
    mark_of,
    t95,
)
from buraco_events.core.infoset import dealt_table
from buraco_events.log.sources import read_log
from buraco_events.views.render import accuracy_words
from cli.main import app

runner = CliRunner()
SAMPLES = Path(__file__).parent.parent / "data" / "samples"
LOG = SAMPLES / "stbl-2p-s0-00000.jsonl"


def _events(path: Path) -> list:
    return [event for _, _, event in read_log(path)]


def _redealt(point: Point, seed: int) -> Point:
    """The same decision on a table where the cards the seat never saw are dealt otherwise."""
    return Point(point.seq, dealt_table(point.state, point.info, random.Random(seed)), point.info, point.chosen)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "seat"), [("stbl-2p-s0-00000.jsonl", 0), ("stbl-4p-s0-00000.jsonl", 3),
                                            ("burraco-2p-s0-00000.jsonl", 1), ("aberto-4p-s0-00000.jsonl", 2)])
def test_a_decision_is_judged_the_same_whatever_the_cards_the_seat_never_saw(name: str, seat: int) -> None:
    """Fair: re-deal what the seat could not see at a decision; its evaluation is identical."""
    points = decision_points(_events(SAMPLES / name), seat)
    assert points
    for point in points[:: max(1, len(points) // 4)]:
        other = _redealt(point, point.seq)
        assert other.state.hands != point.state.hands or other.state.stock != point.state.stock
        assert evaluate(other, 2, "x") == evaluate(point, 2, "x")


@pytest.mark.slow
def test_the_same_seed_gives_the_same_analysis_for_any_workers() -> None:
    events = _events(LOG)
    one = analyze(events, 0, samples=2, seed="s", workers=1)
    two = analyze(events, 0, samples=2, seed="s", workers=2)
    assert one == two and one.decisions
    assert all(d.loss >= 0 and (d.best == d.chosen) == (d.loss == 0) for d in one.decisions)


@pytest.mark.slow
def test_a_decision_is_marked_by_the_lower_end_of_its_interval_and_sampled_until_settled() -> None:
    """Every mark is the class of the interval's lower end; each decision took from the first
    round to the cap of deals, the ones that stopped early settled; a decision settled under one
    cap is judged the same under a larger one (the deals do not depend on the cap)."""
    points = decision_points(_events(LOG), 0)[:12]
    small = [evaluate(p, 8, "c") for p in points]
    large = [evaluate(p, 32, "c") for p in points]
    for d in small:
        assert d.samples is not None and FIRST_ROUND <= d.samples <= CAP_FACTOR * 8
        assert d.low is not None and d.high is not None and d.low <= d.loss <= d.high
        assert d.mark == (mark_of(d.low) if d.best != d.chosen else None)
    assert any(d.samples < CAP_FACTOR * 32 for d in large), "no decision settled early"
    for d, bigger in zip(small, large, strict=True):
        if d.samples < CAP_FACTOR * 8:  # settled before the small cap: the same under the large
            assert bigger == d
        else:  # more deals: a narrower interval, never a mark undone into nothing
            assert bigger.samples is not None and bigger.samples >= d.samples


def test_a_verdict_is_settled_when_no_mark_is_in_doubt() -> None:
    """The adaptive stop: the rival at most 20 points better (95%), or better with the class of
    its gain the same at both ends of the interval."""
    half = t95(15)
    assert half == 2.131 and t95(1) == 12.706 and t95(100) == 1.96
    assert Verdict(0, 1, 5.0, 5.0, 16).settled  # 5 +- 10.7: within 20
    assert not Verdict(0, 1, 10.0, 8.0, 16).settled  # -7 to 27: not within 20, not apart from 0
    assert Verdict(1, 1, 100.0, 10.0, 16).settled  # 79 to 121: better, no mark either way
    assert not Verdict(1, 1, 210.0, 10.0, 16).settled  # 189 to 231: an inaccuracy or not
    assert Verdict(1, 1, 480.0, 20.0, 16).settled  # 437 to 523: a mistake at both ends
    assert Verdict(0, None, 0.0, None).settled and not Verdict(1, 1, 500.0, None, 1).settled


def test_marks_and_accuracy_follow_their_documented_formulas() -> None:
    assert [mark_of(x) for x in (0, 199.9, 200, 349, 350, 599, 600)] == \
        [None, None, "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder"]
    assert accuracy_of(0) == 100.0 and accuracy_of(110) == 36.8 and accuracy_of(-5) == 100.0
    assert accuracy_of(31.6) == 75.0  # the scale puts the measured spread's median seat near 75


def _decided(loss: float, stderr: float | None, low: float | None, high: float | None,
             samples: int | None = 32) -> Decision:
    return Decision(1, 0, "discard", "discard 5C", "discard 7D" if loss else "discard 5C", loss, stderr, None, [],
                    low, high, samples)


def test_a_decisions_noise_is_its_standard_error_or_that_its_interval_was_made_of() -> None:
    assert loss_noise(_decided(120.0, 40.0, 34.8, 205.2)) == 40.0  # a better action found: its own
    # the choice stands: the runner-up's interval, 0 to 98.6 over the 16 odd deals of 32
    assert loss_noise(_decided(0.0, None, 0.0, 98.6)) == pytest.approx(98.6 / (2 * t95(15)))
    assert loss_noise(_decided(0.0, None, 0.0, 0.0, 16)) == 0.0  # nothing else to play
    assert loss_noise(_decided(50.0, 5.0, None, None, None)) == 5.0  # a format 1 decision with a loss
    assert loss_noise(_decided(0.0, None, None, None, None)) is None  # one without: nothing to go on


def test_the_accuracy_interval_is_the_mean_loss_give_or_take_its_standard_errors() -> None:
    decisions = [_decided(x, 30.0, max(0.0, x - 60), x + 60) for x in (0.0, 40.0, 80.0, 120.0)]
    decisions[0] = _decided(0.0, None, 0.0, 30.0 * 2 * t95(15))  # a choice that stands, as noisy
    half = Z95 * (4 * 30.0 ** 2) ** 0.5 / 4  # 29.4 points either side of the mean loss, 60
    low, high = accuracy_interval(decisions) or (None, None)
    assert (low, high) == (accuracy_of(60 + half), accuracy_of(60 - half)) == (44.4, 75.7)
    assert low < accuracy_of(60) < high
    # the more decisions, the narrower: the same losses four times over
    low4, high4 = accuracy_interval(decisions * 4) or (0.0, 0.0)
    assert low < low4 < accuracy_of(60) < high4 < high
    assert accuracy_interval([]) == (100.0, 100.0)
    assert accuracy_interval([*decisions, _decided(0.0, None, None, None, 1)]) is None


@pytest.mark.slow
def test_analyze_command_json_and_text(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(LOG), "--as", "0", "--samples", "2", "--workers", "1", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {"game_id", "seat", "player", "samples", "seed", "decisions", "mean_loss", "accuracy",
                        "costliest", "version", "accuracy_low", "accuracy_high"}
    assert doc["seat"] == 0 and doc["samples"] == 2 and doc["decisions"] and doc["version"] == FORMAT_VERSION == 3
    assert 0 <= doc["accuracy_low"] < doc["accuracy"] < doc["accuracy_high"] <= 100
    assert set(doc["decisions"][0]) == {"seq", "hand", "phase", "chosen", "best", "loss", "loss_stderr", "mark",
                                        "options", "low", "high", "samples"}
    by_name = runner.invoke(app, ["analyze", str(LOG), "--as", doc["player"], "--samples", "2", "--workers", "1"])
    assert by_name.exit_code == 0 and f"seat 0 ({doc['player']})" in by_name.stdout
    # the text: the loss with its interval and the deals; `=` only where the choice stands
    assert "up to 4 deals a decision (--samples 2)" in by_name.stdout
    assert (f"accuracy {doc['accuracy']:g} (95%: {doc['accuracy_low']:g}-{doc['accuracy_high']:g})"
            == f"accuracy {accuracy_words(doc)}") and f"accuracy {accuracy_words(doc)}" in by_name.stdout
    rows = {int(line.split("│")[0]): [c.strip() for c in line.split("│")] for line in by_name.stdout.splitlines()
            if line.strip()[:1].isdigit()}
    for d in doc["decisions"][:40]:
        row = rows[d["seq"]]
        assert row[4] == f"{d['loss']:.0f} ({d['low']:.0f}-{d['high']:.0f})" and row[5] == str(d["samples"])
        wide = d["high"] >= INACCURACY and not d["mark"]
        assert row[6] == (d["mark"] or ("too wide" if wide else ""))
        assert row[3] == (d["best"] if d["best"] != d["chosen"] else "none found" if wide else "=")


@pytest.mark.parametrize(("args", "code", "words"), [
    (["--as", "5"], 2, "seat"),
    (["--as", "0", "--samples", "0"], 2, "--samples"),
])
def test_analyze_command_refuses_bad_options_in_one_line(args: list[str], code: int, words: str) -> None:
    result = runner.invoke(app, ["analyze", str(LOG), *args])
    assert result.exit_code == code and words in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_analyze_command_reads_no_garbage(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\x89PNG not a log\n")
    result = runner.invoke(app, ["analyze", str(junk), "--as", "0"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    cut = tmp_path / "cut.jsonl"  # the first 30 lines, then a move by the seat not to play
    lines = LOG.read_bytes().splitlines(keepends=True)
    turn = next(i for i in range(30, len(lines)) if b'"player":' in lines[i])
    bad = json.loads(lines[turn])
    bad["player"] = 1 - bad["player"]
    cut.write_bytes(b"".join(lines[:turn]) + json.dumps(bad, separators=(",", ":")).encode() + b"\n")
    result = runner.invoke(app, ["analyze", str(cut), "--as", "0", "--samples", "1", "--workers", "1"])
    assert result.exit_code == 1 and "analysed up to there" in result.output and "Traceback" not in result.output
