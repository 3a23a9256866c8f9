"""Daily loads into DuckDB: `buraco index` run on each day's logs holds what one run over both
days holds, and a game stored on the first day is never replaced by the second."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from buraco_events.analytics.database import connect
from buraco_events.analytics.schema import TABLES
from buraco_events.log.archive import pack
from buraco_events.play.sim import simulate
from cli.main import app

runner = CliRunner()


def _rows(db: Path) -> dict[str, list[tuple]]:
    """Return every table's rows, each in one order (ORDER BY every column)."""
    with connect(db, read_only=True) as con:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in TABLES}


@pytest.mark.slow
def test_two_daily_index_runs_equal_one_run_over_both_days(tmp_path: Path):
    day1, day2 = tmp_path / "d1", tmp_path / "d2"
    simulate(day1, 4, "stbl", 2, 31, ["greedy", "random"], target=0)
    first = sorted(day1.glob("*.jsonl"))
    (day1 / "zz-bad.jsonl").write_bytes(b"not a log\n")
    simulate(day2, 3, "burraco", 2, 32, ["greedy", "random"], target=0)
    (day2 / "copy.jsonl").write_bytes(first[1].read_bytes())  # yesterday's game again: skipped
    lines = first[0].read_bytes().splitlines(keepends=True)
    (day2 / "partial.jsonl").write_bytes(b"".join(lines[:7]))  # another head: a conflict
    extra = tmp_path / "extra"
    simulate(extra, 2, "fechado", 2, 33, ["greedy", "random"], target=0)
    archive = tmp_path / "day2.bza"
    pack(extra, archive)

    daily = tmp_path / "daily.duckdb"
    loaded = runner.invoke(app, ["index", str(day1), "--db", str(daily)])
    assert loaded.exit_code == 1 and "1 rejected" in loaded.stdout, loaded.stdout
    yesterday = _rows(daily)
    loaded = runner.invoke(app, ["index", str(day2), str(archive), "--db", str(daily)])
    assert loaded.exit_code == 1 and "1 conflict " in loaded.stdout, loaded.stdout
    assert "partial.jsonl" in loaded.stderr and "1 already indexed" in loaded.stdout
    today = _rows(daily)
    # every row of the first day is still there as it was: the conflicting log replaced nothing
    for table in TABLES:
        assert all(row in today[table] for row in yesterday[table]), table
    games = {g[0]: g for g in today["games"]}
    assert len(games) == 4 + 3 + 2
    source = list(TABLES["games"].names()).index("source")
    stored = next(g for g in yesterday["games"] if g[source] == str(first[0]))
    assert games[stored[0]] == stored

    once = tmp_path / "once.duckdb"
    one_run = runner.invoke(app, ["index", str(day1), str(day2), str(archive), "--db", str(once)])
    assert one_run.exit_code == 1 and "1 rejected, 1 conflict " in one_run.stdout, one_run.stdout
    assert _rows(once) == today
