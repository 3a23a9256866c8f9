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


def _index(tmp_path: Path, *logs: Path) -> Path:
    from buraco_events.analytics.ingest import index

    folder = tmp_path / "logs"
    folder.mkdir()
    for log in logs:
        (folder / log.name).write_bytes(log.read_bytes())
    db = tmp_path / "games.duckdb"
    index([folder], db)
    return db


def test_an_index_stands_for_the_logs_its_games_point_at(tmp_path: Path) -> None:
    other = SAMPLES / "stbl-4p-s0-00000.jsonl"
    db = _index(tmp_path, LOG, other)
    # an unknown player: the error names the players of both indexed logs, so both were read
    result = _run(str(db), "--player", "nobody", "--samples", "2", "--workers", "1")
    assert result.exit_code == 1
    _one_line(result.stderr)
    assert "greedy-0" in result.stderr and "greedy-3" in result.stderr


def test_an_indexed_log_that_is_gone_is_one_line(tmp_path: Path) -> None:
    db = _index(tmp_path, LOG, SAMPLES / "stbl-4p-s0-00000.jsonl")
    (tmp_path / "logs" / LOG.name).unlink()
    result = _run(str(db), "--player", "nobody", "--samples", "2", "--workers", "1")
    assert result.exit_code == 1
    _one_line(result.stderr)
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 2  # the log gone, then the player in no log
    assert f"{db}: game " in errors[0] and f"{LOG.name} is gone (not analysed)" in errors[0]
    assert "greedy-3" in errors[1]  # the other log was still read


def test_a_database_without_games_is_one_line_exit_2(tmp_path: Path) -> None:
    import duckdb

    db = tmp_path / "empty.duckdb"
    duckdb.connect(str(db)).close()
    result = _run(str(db), "--player", "x")
    assert result.exit_code == 2
    _one_line(result.stderr)
    assert "no games tables" in result.stderr


def test_indexed_logs_are_found_from_the_index_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from buraco_events.analytics.indexed import indexed_logs, is_index

    monkeypatch.chdir(tmp_path)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / LOG.name).write_bytes(LOG.read_bytes())
    from buraco_events.analytics.ingest import index

    index([Path("logs")], Path("games.duckdb"))  # sources written relative to here
    assert is_index("games.duckdb") and not is_index(LOG) and not is_index(tmp_path / "none")
    away = tmp_path / "away"
    away.mkdir()
    monkeypatch.chdir(away)
    [(game_id, source, found)] = list(indexed_logs(tmp_path / "games.duckdb"))
    assert source == f"logs/{LOG.name}" and found == tmp_path / "logs" / LOG.name and game_id
