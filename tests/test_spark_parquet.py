"""`sql --parquet` and `stats --parquet` over a folder as `buraco spark-index` writes it: every
table, `rejects` too (no Spark needed: the folder's files are written here with pyarrow)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from buraco_events.analytics.queries import PARQUET_TABLES, REJECTS
from buraco_events.play.sim import simulate
from cli.main import app

runner = CliRunner()

REJECTS_SCHEMA = pa.schema([("path", pa.string()), ("seq", pa.int32()), ("kind", pa.string()),
                            ("message", pa.string())])


def cli(*args: str):
    """Run the app; return the result (stdout and stderr apart)."""
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """A few games indexed and exported to a Parquet folder (which has no rejects/)."""
    root = tmp_path_factory.mktemp("pq")
    simulate(root / "logs", 3, "stbl", 2, 7, ["greedy", "random"], target=0)
    db = root / "i.duckdb"
    assert cli("index", str(root / "logs"), "--db", str(db)).exit_code == 0
    assert cli("export", "--db", str(db), "--parquet", str(root / "out")).exit_code == 0
    return root / "out"


def test_rejects_over_an_export_is_an_empty_table_of_its_columns(exported: Path):
    assert not (exported / "rejects").exists()
    result = cli("sql", "SELECT * FROM rejects", "--parquet", str(exported), "--csv")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "path,seq,kind,message"
    assert list(PARQUET_TABLES)[-1] == "rejects" and REJECTS.names() == tuple(REJECTS_SCHEMA.names)


@pytest.mark.slow
def test_rejects_written_beside_the_tables_are_read(exported: Path, tmp_path: Path):
    folder = tmp_path / "out"
    shutil.copytree(exported, folder)
    (folder / "rejects").mkdir()
    rows = [{"path": "logs/zz-bad.jsonl", "seq": 0, "kind": "format", "message": "not a log"},
            {"path": "logs/other.jsonl", "seq": None, "kind": "conflict",
             "message": "game g is stored with head abc"}]
    pq.write_table(pa.Table.from_pylist(rows, schema=REJECTS_SCHEMA),
                   folder / "rejects" / "part-00000.zstd.parquet")
    # a job's files not written yet (`_temporary/`) and hidden files are not read, as Spark
    # does not read them
    (folder / "rejects" / "_temporary").mkdir()
    pq.write_table(pa.Table.from_pylist(rows[:1], schema=REJECTS_SCHEMA),
                   folder / "rejects" / "_temporary" / "part-00001.parquet")
    pq.write_table(pa.Table.from_pylist(rows[:1], schema=REJECTS_SCHEMA),
                   folder / "rejects" / ".part-00002.parquet")
    result = cli("sql", "SELECT * FROM rejects ORDER BY path", "--parquet", str(folder), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == sorted(rows, key=lambda r: r["path"])
    # every table is there besides, and the stats read as over the export alone
    for table in PARQUET_TABLES:
        counted = cli("sql", f"SELECT count(*) AS n FROM {table}", "--parquet", str(folder),
                      "--json")
        assert counted.exit_code == 0, (table, counted.stderr)
    games = cli("sql", "SELECT count(*) AS n FROM games", "--parquet", str(folder), "--json")
    assert json.loads(games.stdout) == [{"n": 3}]
    stats = cli("stats", "--parquet", str(folder), "--json")
    assert stats.exit_code == 0
    assert json.loads(stats.stdout) == json.loads(cli("stats", "--parquet", str(exported),
                                                      "--json").stdout)
