"""`buraco analyze` (`analysis.evaluate`): fair (only what the seat knew), reproducible for any
number of workers, and every command's contract (`--help`, `--json`, exit codes, one-line errors)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from buraco_events.analysis.evaluate import (
    Point,
    accuracy_of,
    analyze,
    decision_points,
    evaluate,
    mark_of,
)
from buraco_events.core.infoset import dealt_table
from buraco_events.log.sources import read_log
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


def test_marks_and_accuracy_follow_their_documented_formulas() -> None:
    assert [mark_of(x) for x in (0, 199.9, 200, 349, 350, 599, 600)] == \
        [None, None, "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder"]
    assert accuracy_of(0) == 100.0 and accuracy_of(160) == 36.8 and accuracy_of(-5) == 100.0
    assert accuracy_of(46) == 75.0  # the median seat of the measured spread (docs/analysis.md)


@pytest.mark.slow
def test_analyze_command_json_and_text(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(LOG), "--as", "0", "--samples", "2", "--workers", "1", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {"game_id", "seat", "player", "samples", "seed", "decisions", "mean_loss", "accuracy",
                        "costliest"}
    assert doc["seat"] == 0 and doc["samples"] == 2 and doc["decisions"]
    assert set(doc["decisions"][0]) == {"seq", "hand", "phase", "chosen", "best", "loss", "loss_stderr", "mark",
                                        "options"}
    by_name = runner.invoke(app, ["analyze", str(LOG), "--as", doc["player"], "--samples", "2", "--workers", "1"])
    assert by_name.exit_code == 0 and f"seat 0 ({doc['player']})" in by_name.stdout


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
