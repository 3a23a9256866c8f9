"""`buraco index` on workers: the same database whatever the workers, and what a worker sends.

The writer takes each chunk from a worker as Arrow IPC streams (not pickled tables) and each
log's rulings log as the worker found it beside the log (the writer looks for no file itself):
the tables, their row order and the report must be those of one process, for any number of
workers and any chunk size.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from buraco_events.analytics.ingest import Checked, check_chunk, index
from buraco_events.analytics.schema import TABLES
from buraco_events.audit.rulings import RulingRequest, append_ruling, new_ruling, rulings_path
from buraco_events.log.sources import iter_logs
from buraco_events.play.sim import simulate


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Games of two variants, one game again under another name (skipped) and one with a
    rulings log beside it (its game hand 0 voided)."""
    folder = tmp_path_factory.mktemp("scale")
    simulate(folder / "stbl", 7, "stbl", 4, 3, ["greedy", "random"], target=0, workers=1)
    simulate(folder / "burraco", 4, "burraco", 2, 4, ["greedy", "random"], target=0, workers=1)
    first = sorted((folder / "stbl").glob("*.jsonl"))
    shutil.copy(first[2], folder / "zz-again.jsonl")
    ruling, path = new_ruling(first[1], RulingRequest("hand_voided", by="referee Ana",
                                                      reason="a misdeal", hand=0))
    append_ruling(path, ruling)
    return folder


def _tables(db: Path) -> dict[str, list[tuple]]:
    """Return every table's rows in the order they were stored."""
    with duckdb.connect(str(db), read_only=True) as con:
        return {t: con.execute(f"SELECT * FROM {t}").fetchall() for t in TABLES}


@pytest.mark.slow
def test_any_workers_store_the_same_rows_in_the_same_order(logs: Path, tmp_path: Path):
    one = index([logs], tmp_path / "one.duckdb", workers=1)
    assert (one.added, one.skipped, one.ruled, one.rejected, one.conflicts) == (11, 1, 1, [], [])
    rows = _tables(tmp_path / "one.duckdb")
    assert len(rows["rulings"]) == 1 and all(rows[t] for t in TABLES
                                             if t not in ("branches", "decisions"))
    # batches that end within the run (a game's rulings are stored after its batch)
    for chunk_logs, batch_events in ((3, 250_000), (1, 300), (2, 900)):
        expected = None
        for workers in (1, 2, 3):
            db = tmp_path / f"w{workers}-c{chunk_logs}-b{batch_events}.duckdb"
            report = index([logs], db, workers=workers, chunk_logs=chunk_logs,
                           batch_events=batch_events)
            assert report == one, (workers, chunk_logs, batch_events)
            stored = _tables(db)
            expected = expected or stored
            assert stored == expected, (workers, chunk_logs, batch_events)
            assert {t: sorted(map(repr, r)) for t, r in stored.items()} == {
                t: sorted(map(repr, r)) for t, r in rows.items()}


def test_a_chunk_travels_as_arrow_streams_with_its_rulings_found(logs: Path):
    chunk = check_chunk(list(iter_logs(logs / "stbl")))
    ruled = [o.source for o in chunk.outcomes if isinstance(o, Checked) and o.has_rulings]
    assert ruled == [str(sorted((logs / "stbl").glob("*.jsonl"))[1])]
    assert rulings_path(ruled[0]).is_file()
    data = pickle.dumps(chunk, pickle.HIGHEST_PROTOCOL)
    # no pyarrow object is pickled: each table is the bytes of one stream
    assert b"_unpack_chunk" in data and b"pyarrow" not in data
    back = pickle.loads(data)
    assert back.outcomes == chunk.outcomes
    assert set(back.tables) == set(TABLES)
    for table in TABLES:
        assert back.tables[table].equals(chunk.tables[table]), table
        assert back.tables[table].schema == chunk.tables[table].schema


#: a stand-in for pandas that leaves a mark when something imports it
_FAKE_PANDAS = ("import pathlib\n"
                "pathlib.Path(__file__).with_name('IMPORTED').touch()\n"
                "raise ImportError('a stand-in for pandas')\n")


def test_the_index_command_never_imports_pandas(logs: Path, tmp_path: Path):
    """pyarrow imports pandas on its first conversion of Python values, where pandas is
    installed (the spark extra brings it): about 0.16 s of every `buraco index` start. The
    command hands pyarrow no pandas object and spares that import (`skip_pandas_probe`)."""
    root = Path(__file__).resolve().parent.parent
    site = tmp_path / "site"
    (site / "pandas").mkdir(parents=True)
    (site / "pandas" / "__init__.py").write_text(_FAKE_PANDAS)
    mark = site / "pandas" / "IMPORTED"
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(site), str(root)])}
    # the stand-in is the pandas pyarrow finds: a conversion of a list imports it
    done = subprocess.run([sys.executable, "-c", "import pyarrow as pa; pa.array([1])"],
                          env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert mark.exists()
    mark.unlink()
    for workers in ("1", "2"):
        db = tmp_path / f"w{workers}.duckdb"
        done = subprocess.run([sys.executable, "-m", "cli.main", "index", str(logs), "--db",
                               str(db), "--workers", workers], env=env, capture_output=True,
                              text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "11 games added" in done.stdout, done.stdout
        assert not mark.exists(), workers
