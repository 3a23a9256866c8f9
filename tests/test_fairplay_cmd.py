"""`buraco fairplay`: its `--json` shape, the page, and one line for each bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()
SAMPLES = Path(__file__).parent.parent / "data" / "samples"
LOG = SAMPLES / "burraco-2p-s0-00000.jsonl"


def _run(*args: str):
    return runner.invoke(app, ["fairplay", *args])


def _one_line(text: str) -> None:
    assert text.strip() and "Traceback" not in text
    assert all(line.startswith("error:") for line in text.strip().splitlines())


def test_an_unknown_player_is_one_line_exit_1() -> None:
    result = _run(str(LOG), "--player", "nobody", "--samples", "2", "--workers", "1")
    assert result.exit_code == 1
    _one_line(result.stderr)
    assert "nobody" in result.stderr and "greedy-0" in result.stderr


def test_a_player_or_all_must_be_named() -> None:
    result = _run(str(LOG))
    assert result.exit_code == 2
    _one_line(result.stderr)


def test_an_unreadable_path_is_one_line_exit_2(tmp_path: Path) -> None:
    result = _run(str(tmp_path / "missing.jsonl"), "--player", "x")
    assert result.exit_code == 2
    _one_line(result.stderr)


def test_an_unfinished_game_and_an_edited_log_are_reported_and_left_out(tmp_path: Path) -> None:
    lines = LOG.read_text().splitlines(keepends=True)
    (tmp_path / "a-cut.jsonl").write_text("".join(lines[:40]))
    at = next(i for i, line in enumerate(lines) if i > 10 and '"card":"' in line)
    edited = list(lines)
    edited[at] = lines[at].replace('"seq":', '"seq": ', 1).replace('"player":', '"player":9', 1)
    assert edited != lines
    (tmp_path / "b-edited.jsonl").write_text("".join(edited))
    result = _run(str(tmp_path), "--player", "greedy-0", "--samples", "2", "--workers", "1")
    assert result.exit_code == 1
    _one_line(result.stderr)
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 3  # each left-out log, then no finished log holds the player
    assert "a-cut.jsonl: seq 39: the game has not ended" in errors[0] and "not analysed" in errors[0]
    assert "b-edited.jsonl: seq" in errors[1] and "fails its audit" in errors[1]


@pytest.mark.slow
def test_the_json_report_and_the_page(tmp_path: Path) -> None:
    page = tmp_path / "fp.html"
    args = (str(LOG), "--player", "greedy-1", "--samples", "2", "--json", "--html", str(page))
    result = _run(*args, "--workers", "1")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert {"player", "games", "decisions", "oracles", "evidence"} <= set(doc)
    assert (doc["player"], doc["games"]) == ("greedy-1", 1) and doc["decisions"] > 0
    assert [o["oracle"] for o in doc["oracles"]] == ["hands", "stock"]  # no partner with two players
    for o in doc["oracles"]:
        assert {"informative", "matches", "expected", "p_value", "level"} <= set(o)
        assert 0 <= o["matches"] <= o["informative"] <= o["decisions"] and o["level"] in ("none", "note", "review")
    for e in doc["evidence"]:
        assert e["command"] == f"buraco replay {LOG} --at {e['seq']}"
    assert "exact Poisson-binomial" in doc["test"]
    assert _run(*args, "--workers", "2").stdout == result.stdout  # the same whatever the workers
    html = page.read_text()
    assert "function cardRow" in html and 'id="suit-S"' in html and "http" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', "").replace('"http://www.w3.org/2000/svg"', "")
