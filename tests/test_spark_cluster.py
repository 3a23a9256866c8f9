"""`buraco spark-index` on a real standalone cluster equals `buraco index`, table by table.

A master and two workers (1 core, 1 GB each) run as separate processes on the loopback
(`analytics.cluster.standalone`, pyspark's `bin/spark-class`); the driver is this process. Run
with `python3 -m pytest -m spark` (needs `pip install -e '.[spark]'` and Java 17). Every process
the cluster started is stopped when a test ends, also when it fails, and the tests check it.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from buraco_events.analytics.cluster import group_members
from buraco_events.analytics.database import connect
from buraco_events.analytics.queries import connect_parquet
from buraco_events.analytics.schema import TABLES
from buraco_events.log.archive import pack
from buraco_events.play.sim import simulate
from cli.main import app

runner = CliRunner()


@pytest.fixture
def spark_env(monkeypatch: pytest.MonkeyPatch):
    """pyspark and Java present, the driver on the loopback, the executors on this Python; the
    Spark session stopped afterwards."""
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java")
    monkeypatch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    yield
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()


@pytest.fixture
def cluster(spark_env, tmp_path: Path):
    """A running standalone cluster (a master, two workers); every process of it stopped after
    the test, and none left."""
    from buraco_events.analytics.cluster import standalone

    with standalone(tmp_path / "cluster", workers=2, cores=1, memory="1g",
                    env={"PYSPARK_PYTHON": sys.executable}) as running:
        try:
            yield running
        finally:  # the driver leaves the cluster before the cluster stops
            from pyspark.sql import SparkSession

            active = SparkSession.getActiveSession()
            if active is not None:
                active.stop()
    assert running.alive() == []


def _rows(con, table: str) -> list[tuple]:
    """Return a table's rows, every column, in one order (tables have none of their own)."""
    return con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()


@pytest.mark.spark
def test_spark_index_on_a_cluster_equals_index(cluster, tmp_path: Path):
    status = cluster.status()
    assert status["aliveworkers"] == 2 and status["cores"] == 2
    logs = tmp_path / "logs"
    simulate(logs / "stbl", 12, "stbl", 2, 11, ["greedy", "random"], target=0)
    simulate(logs / "burraco", 6, "burraco", 4, 12, ["greedy", "random"], target=0)
    (logs / "stbl" / "zz-bad.jsonl").write_bytes(b"not a log\n")
    extra = tmp_path / "extra"
    simulate(extra, 8, "fechado", 2, 13, ["greedy", "random"], target=0)
    archive = tmp_path / "more.bza"
    pack(extra, archive)
    inputs = [str(logs), str(archive)]

    db = tmp_path / "i.duckdb"
    indexed = runner.invoke(app, ["index", *inputs, "--db", str(db), "--workers", "1"])
    assert indexed.exit_code == 1 and "1 rejected" in indexed.stdout, indexed.stdout
    out = tmp_path / "pq"
    result = runner.invoke(app, ["spark-index", *inputs, "--out", str(out),
                                 "--master", cluster.master])
    assert result.exit_code == 1, result.stderr[-3000:]
    assert "zz-bad.jsonl" in result.stderr

    # the job ran on the cluster's executors, not in the driver
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    assert active is not None and active.sparkContext.master == cluster.master
    assert any(app_["name"] == "buraco spark-index" for app_ in cluster.status()["activeapps"])

    # the workers started the executors in their own process groups: stopping a group stops them
    executors = [pid for group in cluster.groups[1:] for pid in group_members(group)
                 if b"CoarseGrainedExecutorBackend" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert len(executors) == 2

    # every table holds the very rows of the database
    with connect(db, read_only=True) as con:
        expected = {t: _rows(con, t) for t in TABLES}
    with connect_parquet(out) as pcon:
        got = {t: _rows(pcon, t) for t in TABLES}
    for table in TABLES:
        assert got[table] == expected[table], table
    assert len(expected["games"]) == 12 + 6 + 8 and len(expected["events"]) > 1000

    rejects = pq.read_table(out / "rejects").to_pylist()
    assert [(r["path"], r["kind"]) for r in rejects] == [
        (str(logs / "stbl" / "zz-bad.jsonl"), "format")]


@pytest.mark.spark
def test_the_cluster_stops_also_when_the_block_fails(spark_env, tmp_path: Path):
    from buraco_events.analytics.cluster import standalone

    with pytest.raises(RuntimeError, match="the test failed here"):
        with standalone(tmp_path / "cluster", workers=1) as running:
            groups = running.groups
            assert len(groups) == 2 and running.alive() == groups
            raise RuntimeError("the test failed here")
    assert running.alive() == []
