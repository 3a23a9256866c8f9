"""What spark-index's executors hand back, without Spark: each table's rows as Arrow IPC streams
a chunk (`spark.check_files`), unpacked by the table's write (`spark.unpack_rows`), are the rows
`buraco index` checks (`ingest.check_chunk`) with each row's log place beside them."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from buraco_events.analytics import spark
from buraco_events.analytics.ingest import check_chunk
from buraco_events.audit.auditor import split_lines

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "data" / "samples").glob("*.jsonl"))


def _unpacked(batches: list[pa.RecordBatch], table: str) -> pa.Table:
    mine = [b for b in batches if b.column("part")[0].as_py() == table]
    return pa.Table.from_batches(list(spark.unpack_rows(iter(mine))),
                                 schema=spark.placed_schema(table))


def test_streams_hold_the_rows_of_index_with_their_places(monkeypatch) -> None:
    monkeypatch.setattr(spark, "SPARK_CHUNK_LOGS", 5)  # several chunks, the last one short
    files = [(3, str(p), p.read_bytes()) for p in SAMPLES if not p.name.endswith(".rulings.jsonl")]
    batches = list(spark.check_files(iter(files)))
    assert all(b.schema == spark._CHECKED for b in batches)
    logs = [b for b in batches if b.column("part")[0].as_py() == spark._LOG]
    assert sum(b.num_rows for b in logs) == len(files)  # one row a log
    # a table's part is one row a chunk: its stream, no other column of a log's
    assert all(b.num_rows == 1 and b.column("rows")[0].is_valid and not b.column("source")[0].is_valid
               for b in batches if b.column("part")[0].as_py() != spark._LOG)
    expected = check_chunk([(s, split_lines(d, s)) for _, s, d in files])
    counted = pa.Table.from_batches(logs)
    for table in spark.ROW_TABLES:
        got = _unpacked(batches, table)
        want = expected.tables[table]
        assert got.num_rows == want.num_rows == sum(counted.column(f"n_{table}").to_pylist())
        for name in want.column_names:
            assert got.column(name).to_pylist() == want.column(name).to_pylist(), (table, name)
        # each row's place is its log's: the input given, the file, member 0 (not an archive)
        places = set(zip(*(got.column(f"placed_{n}").to_pylist() for n in ("input", "file", "member")),
                         strict=True))
        assert places <= {(3, s, 0) for _, s, _ in files}
        if table == "games":
            assert got.column("placed_file").to_pylist() == got.column("source").to_pylist()
