"""`buraco spark-index` in Spark's local mode equals `buraco index` on the same logs.

The Spark test runs with `python3 -m pytest -m spark` (needs `pip install -e '.[spark]'` and Java 17). The logs
are simulated games of two variants, in a folder and in an archive, with a file that is not a
log, the same game offered twice (skipped) and another head of a game (a conflict).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from buraco_events.analytics.queries import PARQUET_TABLES, connect_parquet
from buraco_events.analytics.schema import TABLES
from buraco_events.log.archive import pack
from buraco_events.play.sim import simulate
from cli.main import app

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def cli(*args: str):
    """Run the app; return the result (stdout and stderr apart)."""
    return runner.invoke(app, list(args))


@pytest.fixture
def spark_env(monkeypatch: pytest.MonkeyPatch):
    """Spark on the loopback, its Python workers importing this checkout; stopped afterwards."""
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java")
    monkeypatch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    yield
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()


@pytest.mark.spark
def test_spark_index_equals_index(spark_env, tmp_path: Path):
    logs = tmp_path / "logs"
    simulate(logs / "stbl", 6, "stbl", 4, 3, ["greedy", "random"], target=0)
    simulate(logs / "burraco", 4, "burraco", 2, 4, ["greedy", "random"], target=0)
    first = sorted((logs / "stbl").glob("*.jsonl"))
    (logs / "stbl" / "zz-bad.jsonl").write_bytes(b"not a log\n")
    (logs / "zz-copy.jsonl").write_bytes(first[1].read_bytes())  # the same head: once
    lines = first[0].read_bytes().splitlines(keepends=True)
    (logs / "zz-partial.jsonl").write_bytes(b"".join(lines[:7]))  # another head: a conflict
    archive = tmp_path / "more.bza"
    extra = tmp_path / "extra"
    simulate(extra, 3, "fechado", 2, 5, ["greedy", "random"], target=0)
    pack(extra, archive)
    inputs = [str(logs), str(archive)]

    db = tmp_path / "i.duckdb"
    indexed = cli("index", *inputs, "--db", str(db), "--workers", "1")
    assert indexed.exit_code == 1 and "1 rejected, 1 conflict " in indexed.stdout, indexed.stdout
    out = tmp_path / "pq"
    result = cli("spark-index", *inputs, "--out", str(out), "--master", "local[2]")
    assert result.exit_code == 1, result.stderr[-2000:]
    assert "zz-bad.jsonl" in result.stderr and "zz-partial.jsonl" in result.stderr

    # every table holds the same number of rows as the database, and the same stats follow
    with connect_parquet(out) as pcon:
        spark_counts = {t: pcon.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
        variants = {r[0] for r in pcon.execute("SELECT DISTINCT variant FROM games").fetchall()}
    from buraco_events.analytics.database import connect

    with connect(db, read_only=True) as con:
        db_counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    assert spark_counts == db_counts and db_counts["games"] == 6 + 4 + 3
    assert variants == {"stbl", "burraco", "fechado"}
    stats_db = cli("stats", "--db", str(db), "--json")
    stats_pq = cli("stats", "--parquet", str(out), "--json")
    assert stats_db.exit_code == stats_pq.exit_code == 0
    assert _rounded(json.loads(stats_pq.stdout)) == _rounded(json.loads(stats_db.stdout))

    rejects = pq.read_table(out / "rejects").to_pylist()
    by_kind = {r["kind"]: r for r in rejects}
    assert len(rejects) == 2 and set(by_kind) == {"format", "conflict"}
    assert by_kind["format"]["path"] == str(logs / "stbl" / "zz-bad.jsonl")
    assert by_kind["conflict"]["path"] == str(logs / "zz-partial.jsonl")
    assert "is stored with head" in by_kind["conflict"]["message"]
    # the same rows through `sql --parquet`, beside every table spark-index wrote
    over_sql = cli("sql", "SELECT * FROM rejects", "--parquet", str(out), "--json")
    assert over_sql.exit_code == 0, over_sql.stderr
    assert json.loads(over_sql.stdout) == rejects

    again = cli("spark-index", *inputs, "--out", str(out))
    assert again.exit_code == 2 and "exists" in again.stderr and "--replace" in again.stderr
    replaced = cli("spark-index", *inputs, "--out", str(out), "--replace")
    assert replaced.exit_code == 1
    with connect_parquet(out) as pcon:
        assert pcon.execute("SELECT count(*) FROM games").fetchone()[0] == db_counts["games"]


def _rounded(value):
    """Return the stats with floats to 9 significant digits (sums may be added in any order)."""
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def test_spark_index_without_pyspark_says_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path):
    import builtins

    real_import = builtins.__import__

    def no_pyspark(name, *args, **kwargs):
        if name == "pyspark" or name.startswith("pyspark."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyspark)
    result = cli("spark-index", str(tmp_path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'buraco-events[spark]'" in lines[0], result.stderr


def _files_of(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Return every file under `folder`: its size, modification time and inode, by path."""
    return {str(f.relative_to(folder)): (f.stat().st_size, f.stat().st_mtime_ns, f.stat().st_ino)
            for f in folder.rglob("*") if f.is_file()}


def _all_rows(folder: Path) -> dict[str, list[tuple]]:
    """Return the rows of every table of a Parquet folder, rejects too, each in one order."""
    with connect_parquet(folder) as pcon:
        return {t: pcon.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in PARQUET_TABLES}


@pytest.mark.spark
def test_two_daily_appends_equal_one_run_over_both_days(spark_env, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch):
    from buraco_events.analytics import spark as spark_mod

    day1, day2 = tmp_path / "d1", tmp_path / "d2"
    simulate(day1, 4, "stbl", 2, 21, ["greedy", "random"], target=0)
    (day1 / "zz-bad.jsonl").write_bytes(b"not a log\n")
    simulate(day2, 3, "burraco", 2, 22, ["greedy", "random"], target=0)
    first = sorted(f for f in day1.glob("*.jsonl") if f.name != "zz-bad.jsonl")
    (day2 / "copy.jsonl").write_bytes(first[1].read_bytes())  # yesterday's game again: skipped
    lines = first[0].read_bytes().splitlines(keepends=True)
    (day2 / "partial.jsonl").write_bytes(b"".join(lines[:7]))  # another head: a conflict
    extra = tmp_path / "extra"
    simulate(extra, 2, "fechado", 2, 23, ["greedy", "random"], target=0)
    archive = tmp_path / "day2.bza"
    pack(extra, archive)

    daily = tmp_path / "daily"
    loaded = cli("spark-index", str(day1), "--out", str(daily), "--append", "--master", "local[2]")
    assert loaded.exit_code == 1 and "zz-bad.jsonl" in loaded.stderr, loaded.stderr[-2000:]
    assert "rows added" in loaded.stdout
    before = _files_of(daily)
    rows_before = _all_rows(daily)
    assert len(rows_before["games"]) == 4 and len(rows_before["rejects"]) == 1

    # a run that fails half-way (after three tables were written aside) leaves the output as it
    # was: not a file added, changed or lost
    real_schema = spark_mod.table_schema

    def failing(table: str):
        if table == "melds":
            raise RuntimeError("failed half-way")
        return real_schema(table)

    monkeypatch.setattr(spark_mod, "table_schema", failing)
    with pytest.raises(RuntimeError, match="failed half-way"):
        spark_mod.spark_index([str(day2), str(archive)], str(daily), append=True)
    monkeypatch.setattr(spark_mod, "table_schema", real_schema)
    assert _files_of(daily) == before

    loaded = cli("spark-index", str(day2), str(archive), "--out", str(daily), "--append")
    assert loaded.exit_code == 1, loaded.stderr[-2000:]
    assert "rejected (conflict)" in loaded.stderr and "partial.jsonl" in loaded.stderr
    after = _files_of(daily)
    assert {k: v for k, v in after.items() if k in before} == before  # nothing rewritten
    assert not [k for k in after if k.startswith(spark_mod.STAGING)]

    once = tmp_path / "once"
    one_run = cli("spark-index", str(day1), str(day2), str(archive), "--out", str(once))
    assert one_run.exit_code == 1
    daily_rows, once_rows = _all_rows(daily), _all_rows(once)
    for table in PARQUET_TABLES:
        assert daily_rows[table] == once_rows[table], table
    assert len(daily_rows["games"]) == 4 + 3 + 2
    assert sorted(r[2] for r in daily_rows["rejects"]) == ["conflict", "format"]
    over_sql = cli("sql", "SELECT kind FROM rejects ORDER BY kind", "--parquet", str(daily), "--csv")
    assert over_sql.stdout.split() == ["kind", "conflict", "format"]

    # a folder that is not an output is refused, and left alone
    other = tmp_path / "other"
    (other / "notes").mkdir(parents=True)
    refused = cli("spark-index", str(day1), "--out", str(other), "--append")
    assert refused.exit_code == 2 and "is not an output of spark-index" in refused.stderr
    assert [p.name for p in other.iterdir()] == ["notes"]

    # a run's folder left by a driver killed before its commit is removed; one killed during
    # its commit (marked committed) is finished, by the next append
    dead = daily / f"{spark_mod.STAGING}dead" / "games" / "variant=stbl"
    dead.mkdir(parents=True)
    shutil.copy(next((daily / "games" / "variant=stbl").glob("*.parquet")), dead / "part-x.parquet")
    cut = daily / f"{spark_mod.STAGING}cut"
    (cut / "rejects").mkdir(parents=True)
    (cut / spark_mod.COMMITTED).write_bytes(b"")
    pq.write_table(pa.Table.from_pylist(
        [{"path": "late.jsonl", "seq": None, "kind": "format", "message": "m"}],
        schema=spark_mod.REJECTS_SCHEMA), cut / "rejects" / "part-cut.parquet")
    from pyspark.sql import SparkSession

    seen = spark_mod.recover(SparkSession.getActiveSession(), str(daily))
    assert sorted(Path(f).name for f in seen) == [cut.name, dead.parent.parent.name]
    assert not cut.exists() and not dead.parent.parent.exists()
    assert (daily / "rejects" / "part-cut.parquet").is_file()
    assert len(_all_rows(daily)["games"]) == 4 + 3 + 2


def test_append_and_replace_together_are_refused(tmp_path: Path):
    result = cli("spark-index", str(tmp_path), "--out", str(tmp_path / "o"), "--append",
                 "--replace")
    assert result.exit_code == 2 and "give one" in result.stderr
    assert not (tmp_path / "o").exists()



@pytest.mark.spark
def test_spark_index_gives_the_callers_session_its_arrow_settings_back(spark_env, tmp_path: Path):
    """The check's Arrow batches are held to `SPARK_CHUNK_LOGS` files and `CHUNK_BYTES` while a
    job runs (a task reads many files); the session is the caller's and gets its own back."""
    from buraco_events.analytics import spark as spark_mod

    records = "spark.sql.execution.arrow.maxRecordsPerBatch"
    size = "spark.sql.execution.arrow.maxBytesPerBatch"
    assert spark_mod._BATCH_LIMITS == {records: spark_mod.SPARK_CHUNK_LOGS, size: spark_mod.CHUNK_BYTES}
    logs = tmp_path / "logs"
    simulate(logs, 3, "stbl", 2, 9, ["greedy", "random"], target=0)
    session = spark_mod.session("local[1]")
    session.conf.set(records, "5000")
    session.conf.unset(size)
    default_size = session.conf.get(size)
    report = spark_mod.spark_index([str(logs)], str(tmp_path / "pq"), spark=session)
    assert report.counts["games"] == 3
    assert {name: session.conf.get(name) for name in (records, size)} == {records: "5000", size: default_size}
