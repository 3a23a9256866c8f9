"""A rulings log counts only as far as its chain proves it as written, and a ruling that no longer
binds the game log ends the rulings that count: in `rulings_report` and in every tool that shows
rulings (`audit` and its page, `replay`, `share`, `index`, `rule`).

The chain proves line k by line k+1's `prev`: a reading that stops at line k+1 (an edit, a
removed line, a line that does not read) leaves line k unproved, so neither it nor any line after
it counts. Each tool says why, about the file (never about a player).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import msgspec
import pytest
from helpers import write_match
from typer.testing import CliRunner

from buraco_events.audit.rulings import read_rulings, rulings_path, rulings_report
from buraco_events.views.share import decode_steps, page_data
from cli.main import app

runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-hand match (seed 3: 1420/350 then 935/480)."""
    path = tmp_path_factory.mktemp("match") / "g.jsonl"
    write_match(path)
    return path


def _rule(log: Path, *args: str) -> None:
    result = runner.invoke(app, ["rule", str(log), "--by", "ref", "--reason", "because", *args])
    assert result.exit_code == 0, result.output


def _ruled(match: Path, tmp_path: Path) -> Path:
    """A copy of the match with three rulings: +100/-100 on hand 1, a warning, hand 2 voided."""
    log = tmp_path / "g.jsonl"
    log.write_bytes(match.read_bytes())
    _rule(log, "--kind", "score_adjusted", "--hand", "1", "--points=100,-100")
    _rule(log, "--kind", "warning")
    _rule(log, "--kind", "hand_voided", "--hand", "2")
    return log


def _edit_line(path: Path, index: int, old: bytes, new: bytes) -> None:
    """Replace `old` by `new` in line `index` (from 0) of a file, leaving the chain as it was."""
    lines = path.read_bytes().split(b"\n")
    assert old in lines[index]
    lines[index] = lines[index].replace(old, new, 1)
    path.write_bytes(b"\n".join(lines))


def _reseal(path: Path) -> None:
    """Rewrite every `prev` of a file so that its chain holds again (a forger's last step)."""
    prev = "0" * 64
    out = []
    for line in path.read_bytes().split(b"\n")[:-1]:
        obj = json.loads(line)
        obj["prev"] = prev
        data = msgspec.json.encode(obj)
        out.append(data)
        prev = hashlib.sha256(data).hexdigest()
    path.write_bytes(b"\n".join(out) + b"\n")


def test_an_edited_first_ruling_counts_nowhere(match: Path, tmp_path: Path) -> None:
    """The edited line 1 and every line after it count in no tool; each says why, in one line."""
    log = _ruled(match, tmp_path)
    _edit_line(rulings_path(log), 0, b"[100,-100]", b"[900,-900]")
    report = rulings_report(log)
    assert report is not None
    assert [r.applies for r in report.rulings] == [False]  # line 2 stops the reading
    assert report.rulings[0].points == [900, -900]
    assert "nothing proves its line 1 as written" in (report.rulings[0].why_not or "")
    assert report.after == report.recount
    assert report.problem is not None and "no ruling from line 1 on counts" in report.problem

    audit = runner.invoke(app, ["audit", str(log), "--json"])
    assert audit.exit_code == 1 and audit.stderr.count("\n") == 1
    assert "line 2 (seq 1)" in audit.stderr and "no ruling from line 1 on counts" in audit.stderr
    doc = json.loads(audit.stdout)
    assert doc["ok"] is True  # the verdict is the game log's, which is sound
    assert doc["rulings"]["after"]["totals"] == doc["rulings"]["recount"]["totals"]
    assert not doc["rulings"]["rulings"][0]["applies"]
    text = runner.invoke(app, ["audit", str(log)])
    assert "+900" in text.stdout and "0 of 1 apply" in text.stdout  # shown, never applied

    page = tmp_path / "a.html"
    runner.invoke(app, ["audit", str(log), "--html", str(page)])
    section = page.read_text().split("<section id=rulings-report>")[1].split("</section>")[0]
    totals = doc["rulings"]["recount"]["totals"]
    assert f"<td>after rulings (apart from the recount)</td><td>{totals[0]}</td><td>{totals[1]}</td>" in section
    assert "does not apply: it does not count" in section

    replay = runner.invoke(app, ["replay", str(log), "--json"])
    assert replay.exit_code == 1 and replay.stderr.count("\n") == 1
    assert json.loads(replay.stdout)["rulings"]["after"]["totals"] == totals

    share = tmp_path / "g.html"
    result = runner.invoke(app, ["share", str(log), "-o", str(share)])
    assert result.exit_code == 1 and "no ruling from line 1 on counts" in result.stderr
    steps = decode_steps(page_data(share.read_text()))
    assert steps[-1]["rulings"]["after"]["totals"] == totals
    assert not steps[-1]["rulings"]["rulings"][0]["applies"]

    db = tmp_path / "g.duckdb"
    runner.invoke(app, ["index", str(log), "--db", str(db)])
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT list(applies) FROM rulings").fetchone()[0] == [False]
        ruled, raw = con.execute("SELECT ruled_totals, totals FROM games").fetchone()
    assert ruled == raw == totals

    refused = runner.invoke(app, ["rule", str(log), "--kind", "warning", "--by", "r", "--reason", "x"])
    assert refused.exit_code == 1 and refused.stderr.count("\n") == 1
    assert "nothing is added" in refused.stderr
    assert len(rulings_path(log).read_bytes().splitlines()) == 3


@pytest.mark.parametrize("line", [0, 1])
def test_a_break_at_line_k_plus_1_leaves_line_k_and_all_after_uncounted(
        match: Path, tmp_path: Path, line: int) -> None:
    log = _ruled(match, tmp_path)
    _edit_line(rulings_path(log), line, b'"reason":"because"', b'"reason":"becausf"')
    read = read_rulings(rulings_path(log))
    assert read.counted == line and len(read.rulings) == line + 1
    report = rulings_report(log)
    assert report is not None
    assert [r.applies for r in report.rulings] == [True] * line + [False]
    hands = report.recount.hands
    expected = [[hands[0][0] + 100, hands[0][1] - 100], hands[1]] if line else hands
    assert report.after.hands == expected


def test_a_removed_line_leaves_the_line_before_it_uncounted(match: Path, tmp_path: Path) -> None:
    log = _ruled(match, tmp_path)
    path = rulings_path(log)
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([lines[0], *lines[2:]]))  # the warning is gone
    report = rulings_report(log)
    assert report is not None and [r.applies for r in report.rulings] == [False]
    assert report.after == report.recount


def test_the_last_whole_line_stands_beside_a_torn_one(match: Path, tmp_path: Path) -> None:
    """A write cut short (a torn last line) disproves nothing before it."""
    log = _ruled(match, tmp_path)
    path = rulings_path(log)
    path.write_bytes(path.read_bytes() + b'{"type":"ruling","seq":3')
    report = rulings_report(log)
    assert report is not None and [r.applies for r in report.rulings] == [True, True, True]


def test_an_unsealed_rulings_log_counts_nothing(match: Path, tmp_path: Path) -> None:
    log = _ruled(match, tmp_path)
    path = rulings_path(log)
    lines = [json.loads(x) for x in path.read_bytes().splitlines()]
    path.write_bytes(b"".join(msgspec.json.encode({**x, "prev": None}) + b"\n" for x in lines))
    report = rulings_report(log)
    assert report is not None and [r.applies for r in report.rulings] == [False, False, False]
    assert report.after == report.recount and "not sealed" in (report.problem or "")
    assert "not sealed" in (report.rulings[2].why_not or "")


def test_a_ruling_that_does_not_bind_ends_the_rulings_that_count(match: Path, tmp_path: Path) -> None:
    """A forger who edits ruling 0's binding and seals the chain again: ruling 0 no longer binds
    the game log, and the later rulings, which bind it, do not count either."""
    log = _ruled(match, tmp_path)
    path = rulings_path(log)
    first = json.loads(path.read_bytes().splitlines()[0])
    _edit_line(path, 0, first["game_head"].encode(), b"f" * 64)
    _reseal(path)
    assert read_rulings(path).problem is None  # the chain holds again
    report = rulings_report(log)
    assert report is not None and [r.applies for r in report.rulings] == [False, False, False]
    assert "no longer hashes" in (report.rulings[0].why_not or "")
    assert "ruling 0 before it does not bind" in (report.rulings[2].why_not or "")
    assert report.after == report.recount
