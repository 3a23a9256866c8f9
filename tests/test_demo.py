"""`buraco demo`: the whole product on a fresh folder, and one clean error for bad options."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from buraco_events.model.rules import PRESETS
from cli.main import app

runner = CliRunner()


def one_error(result, *words: str) -> None:
    """Assert exit 2 with one stderr line holding every word, and nothing on stdout."""
    assert result.exit_code == 2, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), result.stderr
    assert result.stdout == ""


def test_demo_with_no_games_is_one_error_before_anything_runs(tmp_path: Path):
    for option in ("--games", "--workers"):
        result = runner.invoke(app, ["demo", "--out", str(tmp_path / "d"), option, "0"])
        one_error(result, "--games and --workers must be at least 1")
    assert not (tmp_path / "d").exists()


def test_demo_out_where_no_folder_can_be_made_is_one_error(tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    result = runner.invoke(app, ["demo", "--out", str(blocker / "demo")])
    one_error(result, str(blocker / "demo"), "cannot make the demo folder")
    assert blocker.read_text() == "not a folder\n"


def test_demo_leaves_a_folder_it_did_not_make(tmp_path: Path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("keep\n")
    result = runner.invoke(app, ["demo", "--out", str(mine)])
    one_error(result, "was not made by `buraco demo`")
    assert [p.name for p in mine.iterdir()] == ["keep.txt"]


@pytest.mark.slow
def test_demo_runs_every_step(tmp_path: Path):
    out = tmp_path / "demo"
    result = runner.invoke(app, ["demo", "--out", str(out), "--games", "1", "--workers", "1"])
    assert result.exit_code == 0, result.stderr
    for step in ("$ buraco simulate", "$ buraco index", "$ buraco stats", "$ buraco sql",
                 "$ buraco replay", "$ buraco audit", "demo done"):
        assert step in result.stdout
    assert "error:" not in result.stderr
    # one game per preset
    assert (out / "buraco.duckdb").exists() and len(list((out / "logs").rglob("*.jsonl"))) == len(PRESETS)


def test_demo_headers_are_commands_quoted_for_a_shell():
    import shlex

    from cli import demo_cmd

    query = "SELECT variant, count(*) AS games FROM games GROUP BY variant"
    line = demo_cmd.command_line(["sql", query, "--db", "buraco-demo/buraco.duckdb"])
    assert line == f"$ buraco sql '{query}' --db buraco-demo/buraco.duckdb"
    assert shlex.split(line[2:]) == ["buraco", "sql", query, "--db", "buraco-demo/buraco.duckdb"]


def test_a_long_header_wraps_instead_of_being_cut(monkeypatch, capsys):
    from cli import demo_cmd

    monkeypatch.setenv("COLUMNS", "60")
    long = ["sql", "SELECT variant, count(*) AS games, round(avg(hands), 2) AS hands_per_game"
            " FROM games GROUP BY variant ORDER BY variant", "--db", "x.duckdb"]
    demo_cmd._run(long)
    text = " ".join(capsys.readouterr().out.split())
    assert demo_cmd.command_line(long) in text
