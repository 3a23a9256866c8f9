"""Spark: game logs checked and replayed on a cluster, written as the Parquet tables of `export`.

A shell module; pyspark is optional (`pip install 'buraco-events[spark]'`, and Java 17) and only
imported when a job runs. Executors read whole files (Spark's `binaryFile` source: a log, or a
`.bza` archive expanded on the executor), check and replay the logs with `ingest.check_chunk`
(the same check as `buraco index`: no second implementation of rows or rules), many logs at a
time, and hand back Arrow batches (`mapInArrow`) of one narrow schema: each log's own row, and
per chunk of logs one row a table holding the chunk's rows of it as an Arrow IPC stream. Python
runs its check once per log; Spark alone decides duplicates (on the logs' rows) and writes each
table from the streams cached once, unpacked by that table's write alone. The job writes the
tables of `buraco export` (zstd Parquet, `DIR/<table>/variant=<v>/`, the same columns and types,
read back by `queries.connect_parquet`) and `DIR/rejects` (path, seq, kind, message): every log
that fails, one row each.

Duplicate game ids are decided as `buraco index` decides them in one run: the logs are ordered by
input (in the order given), then path, then position in an archive; the first log of a game is
stored, a later one with the same head is the same game offered again (dropped, not a reject),
and a later one with another head is a reject of kind `conflict` naming the stored log.

Branches are kept apart as `index` keeps them: one row each of `branches`, keyed by head, never a
conflict with their game. Rulings logs are not read (an executor holds one file at a time): the
`rulings` table is empty, and a game whose rulings log is among the inputs has its `ruled_*`
columns NULL (not judged) rather than the recount's, which they would claim. Analyses are not
read either: the `decisions` table is empty.

Daily loads (`append`): the games and branches already in the output are ranked first (input
-1), so a log of one of them is skipped (the same head) or a `conflict` (another head), and two
appends hold the rows of one run over both days' inputs. Nothing written is rewritten: the run
writes its tables aside in `DIR/_append-<time>-<id>/` and `commit` moves the files into the
tables (the folder marked `_COMMITTED` first, so that `recover` finishes a commit cut short and
removes a run that never reached it). A rulings log offered for a game written by an earlier
run leaves that game as written.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from buraco_events.audit.auditor import split_lines
from buraco_events.audit.rulings import is_rulings_log
from buraco_events.log.archive_format import MAGIC, ArchiveError
from buraco_events.log.archive_read import iter_archive
from buraco_events.log.lines import RULINGS_SUFFIX, RawLines
from buraco_events.log.sources import CHUNK_BYTES

from .arrowrows import ipc_stream
from .database import ARROW_TYPES, SCHEMAS, one_line
from .indexrun import Checked, Conflict, Rejected
from .ingest import check_chunk
from .queries import REJECTS
from .schema import TABLES
from .sparkcommit import COMMITTED as COMMITTED
from .sparkcommit import STAGING, commit, discard_run, hadoop_path, recover

INSTALL = "pip install 'buraco-events[spark]' (pyspark) and a Java 17 runtime (java on PATH or JAVA_HOME)"

#: the `kind` of a rulings log's row: neither a log indexed nor a reject
_RULINGS = "rulings"
#: the games columns after rulings, NULL where rulings were not read (see the module docstring)
_RULED = ("ruled_totals", "ruled_winner", "rulings")

#: the rejects table: one row per log (or input file) not indexed
REJECTS_SCHEMA = pa.schema([(name, ARROW_TYPES[word]) for name, word in REJECTS.columns])

#: the tables the executors fill (`rulings` and `decisions` are not read here: written empty)
ROW_TABLES = tuple(t for t in TABLES if t not in ("rulings", "decisions"))
#: the `part` of a log's own row (its outcome); every other row's `part` names its table
_LOG = "log"
#: where a row comes from: its log's place in the inputs (input, file, member); each table's
#: rows carry it, so that the rows of a log not kept are left out by it
_PLACE = (("input", pa.int32()), ("file", pa.string()), ("member", pa.int32()))
#: the prefix of the place's columns beside a table's own (`branches` has a `file` of its own)
_PLACED = "placed_"


def table_schema(table: str) -> pa.Schema:
    """Return a table's Arrow schema as written to Parquet: its columns, then variant."""
    schema = SCHEMAS[table]
    return schema if "variant" in schema.names else schema.append(pa.field("variant", pa.string()))


def placed_schema(table: str) -> pa.Schema:
    """Return a table's rows as an executor hands them back: its columns as written (then
    variant), then its log's place."""
    schema = table_schema(table)
    for name, kind in _PLACE:
        schema = schema.append(pa.field(f"{_PLACED}{name}", kind))
    return schema


#: what an executor hands back, in one narrow schema: per log one row of `part` `log` (where it
#: comes from, to order duplicates; its game and head; what duplicates are decided on, `key`:
#: the game id, or a branch's head; its rejection, kind set, `rulings` for a rulings log, read by
#: no one here; its rows per table, `n_<table>`), and per chunk of logs and table one row of
#: `part` the table, whose `rows` hold the chunk's rows of the table (`placed_schema`) as one
#: Arrow IPC stream. Python checks each log once; Spark moves and caches a few values a chunk
#: rather than every row beside every other table's columns, decides the duplicates on the logs'
#: rows, and each table's write unpacks that table's streams alone (`unpack_rows`).
_CHECKED = pa.schema([
    ("part", pa.string()), *_PLACE,
    ("source", pa.string()), ("game_id", pa.string()), ("head", pa.string()),
    ("branch", pa.bool_()), ("key", pa.string()),
    ("seq", pa.int32()), ("kind", pa.string()), ("message", pa.string()),
    *((f"n_{t}", pa.int64()) for t in ROW_TABLES),
    ("rows", pa.binary()),
])
#: logs checked at once on an executor (`ingest.check_chunk`): its Arrow conversions' fixed costs
#: spread over many logs, its memory bounded as `index` bounds a chunk (`CHUNK_BYTES`)
SPARK_CHUNK_LOGS = 64
#: the check's tasks per executor core: enough to even out tasks of unequal work
TASKS_PER_CORE = 4
#: the Arrow batches a task's Python worker gets at once, at most: the check's tasks each read
#: many files (`TASKS_PER_CORE`), and Spark's defaults (10,000 rows, no byte limit) would hand
#: over thousands of files' bytes in one batch; a file larger than the limit is a batch alone
_BATCH_LIMITS = {"spark.sql.execution.arrow.maxRecordsPerBatch": SPARK_CHUNK_LOGS,
                 "spark.sql.execution.arrow.maxBytesPerBatch": CHUNK_BYTES}
#: the Parquet codec of every table written, and its options: zstd at level 1 (Parquet's default
#: is 3), whose files are about 4% larger and whose writes leave the executors' cores about a
#: sixth more of the time for the check (`benchmarks/bench_scale.py`)
PARQUET_COMPRESSION = "zstd"
_PARQUET_OPTIONS = {"compression": PARQUET_COMPRESSION,
                    "parquet.compression.codec.zstd.level": "1"}


class SparkUnavailable(Exception):
    """pyspark or Java is missing, or Spark cannot start (exit 2)."""


class OutputExists(Exception):
    """The output folder exists and `replace` was not given (exit 2)."""


@dataclass(frozen=True)
class SparkReport:
    """What a spark-index job wrote: rows of each table, and the rejects."""

    counts: dict[str, int]
    rejects: list[tuple[str, int | None, str, str]]

    @property
    def ok(self) -> bool:
        """Return whether every log offered was indexed."""
        return not self.rejects


# -- on the executors: pure functions of a file's bytes -------------------------------------------


def file_logs(source: str, data: bytes) -> tuple[list[tuple[str, RawLines]], Rejected | None]:
    """Return the logs of one whole file, named as `buraco index` names them, and the file's
    rejection if it is a damaged archive (its logs before the damage are still returned)."""
    if not data.startswith(MAGIC):
        return [(source, split_lines(data, source))], None
    logs: list[tuple[str, RawLines]] = []
    # the archive reader reads files (bounded, checked): the bytes go to a private temporary file
    with tempfile.TemporaryDirectory(prefix="buraco-spark-") as tmp:
        path = os.path.join(tmp, "input.bza")
        with open(path, "wb") as f:
            f.write(data)
        try:
            for name, lines in iter_archive(path):
                logs.append((f"{source}/{name}", lines))
        except (OSError, ArchiveError) as exc:
            text = one_line(exc).replace(path, source)
            reason = text[len(source) + 2:] if text.startswith(source + ": ") else text
            return logs, Rejected(source, reason)
    return logs, None


#: a log's place in the inputs: (input, file, member), the order duplicates are decided in
Place = tuple[int, str, int]


def _checked_rows(part: str, n: int, columns: dict[str, pa.Array]) -> pa.RecordBatch:
    """Return `n` rows of `_CHECKED` of one part: the columns given, the others null."""
    arrays = [columns.get(f.name) for f in _CHECKED]
    arrays[0] = pa.array([part] * n, pa.string())
    return pa.RecordBatch.from_arrays(
        [a if a is not None else pa.nulls(n, f.type) for a, f in zip(arrays, _CHECKED, strict=True)],
        schema=_CHECKED)


def _log_rows(places: list[Place], outcomes: list[Checked | Rejected]) -> pa.RecordBatch:
    """Return the `log` rows of a chunk's logs: each one's place, outcome and rows per table."""
    rows: dict[str, list[Any]] = {name: [] for name in (
        "input", "file", "member", "source", "game_id", "head", "branch", "key", "seq", "kind",
        "message", *(f"n_{t}" for t in ROW_TABLES))}
    for (order, file, member), outcome in zip(places, outcomes, strict=True):
        for name, value in (("input", order), ("file", file), ("member", member),
                            ("source", outcome.source)):
            rows[name].append(value)
        if isinstance(outcome, Rejected):
            values: tuple[Any, ...] = (None, None, None, None, outcome.seq, outcome.kind,
                                       outcome.reason)
            counts = dict.fromkeys(ROW_TABLES, 0)
        else:
            key = outcome.head if outcome.branch else outcome.game_id
            values = (outcome.game_id, outcome.head, outcome.branch, key, None, None, None)
            counts = outcome.counts
        for name, value in zip(("game_id", "head", "branch", "key", "seq", "kind", "message"),
                               values, strict=True):
            rows[name].append(value)
        for t in ROW_TABLES:
            rows[f"n_{t}"].append(counts[t])
    columns = {name: pa.array(values, _CHECKED.field(name).type) for name, values in rows.items()}
    return _checked_rows(_LOG, len(places), columns)


def _table_rows(table: str, places: list[Place], variants: list[str | None],
                outcomes: list[Checked | Rejected], rows: pa.Table) -> pa.RecordBatch | None:
    """Return a chunk's rows of one table as one `_CHECKED` row of `part` the table: its
    `rows` an Arrow IPC stream of `placed_schema`, each row with its log's place and its game's
    variant (a table's rows follow its logs' order: `ingest.check_chunk`)."""
    if not rows.num_rows:
        return None
    owner: list[int] = []  # the log (its index in the chunk) of each row
    for i, outcome in enumerate(outcomes):
        if isinstance(outcome, Checked):
            owner += [i] * outcome.counts[table]
    which = pa.array(owner, pa.int32())
    columns = dict(zip(rows.column_names, rows.columns, strict=True))
    for n, (name, kind) in enumerate(_PLACE):
        columns[f"{_PLACED}{name}"] = pa.array([p[n] for p in places], kind).take(which)
    if "variant" not in columns:
        columns["variant"] = pa.array(variants, pa.string()).take(which)
    schema = placed_schema(table)
    placed = pa.Table.from_arrays([columns[name] for name in schema.names], schema=schema)
    return _checked_rows(table, 1, {"rows": pa.array([ipc_stream(placed)], pa.binary())})


def unpack_rows(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Yield the rows of one table (`placed_schema`) from `_CHECKED` batches of its `rows` alone:
    a table's write, its `mapInArrow` (the streams are read, not checked again)."""
    for batch in batches:
        for blob in batch.column("rows"):
            yield from pa.ipc.open_stream(blob.as_buffer())


def check_logs(logs: list[tuple[Place, str, RawLines]]) -> Iterator[pa.RecordBatch]:
    """Check a chunk of logs (`ingest.check_chunk`, the check of `buraco index`) into
    `_CHECKED` batches: the logs' own rows, then each table's rows."""
    chunk = check_chunk([(source, lines) for _, source, lines in logs])
    places = [place for place, _, _ in logs]
    outcomes = chunk.outcomes
    # each game's variant, from its games row (a branch's rows are its `branches` row alone)
    games = iter(chunk.tables["games"].column("variant").to_pylist())
    variants = [next(games) if isinstance(o, Checked) and not o.branch else None
                for o in outcomes]
    yield _log_rows(places, outcomes)
    for table in ROW_TABLES:
        batch = _table_rows(table, places, variants, outcomes, chunk.tables[table])
        if batch is not None:
            yield batch


def check_files(files: Iterator[tuple[int, str, bytes]]) -> Iterator[pa.RecordBatch]:
    """Check every log of the files (input, source, bytes) into `_CHECKED` batches, the logs
    checked `SPARK_CHUNK_LOGS` at a time; a rulings log and a damaged archive are a `log` row of
    their own."""
    logs: list[tuple[Place, str, RawLines]] = []
    held = 0
    for order, source, data in files:
        if is_rulings_log(source) and not data.startswith(MAGIC):  # read beside its game, not here
            yield _checked_rows(_LOG, 1, {
                "input": pa.array([order], pa.int32()), "file": pa.array([source], pa.string()),
                "member": pa.array([0], pa.int32()), "source": pa.array([source], pa.string()),
                "kind": pa.array([_RULINGS], pa.string()),
                **{f"n_{t}": pa.array([0], pa.int64()) for t in ROW_TABLES}})
            continue
        found, damaged = file_logs(source, data)
        for member, (name, lines) in enumerate(found):
            logs.append(((order, source, member), name, lines))
            held += len(data) if member == 0 else 0
            if len(logs) >= SPARK_CHUNK_LOGS or held >= CHUNK_BYTES:
                yield from check_logs(logs)
                logs, held = [], 0
        if damaged is not None:
            place = (order, source, len(found))
            yield _log_rows([place], [damaged])
    if logs:
        yield from check_logs(logs)


def check_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Check the files of Arrow batches (input, source, content): the executors' `mapInArrow`."""
    for batch in batches:
        yield from check_files(zip(batch.column("input").to_pylist(),
                                   batch.column("source").to_pylist(),
                                   batch.column("content").to_pylist(), strict=True))


# -- on the driver --------------------------------------------------------------------------------


def session(master: str | None) -> Any:
    """Return a Spark session (`master` if given, else Spark's own default or spark-submit's)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkUnavailable(f"spark-index needs pyspark: {INSTALL}") from None
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        raise SparkUnavailable(f"spark-index needs Java: {INSTALL}")
    # no console progress bars: the command prints its own summary
    builder = (SparkSession.builder.appName("buraco spark-index")
               .config("spark.ui.showConsoleProgress", "false"))
    if master:
        builder = builder.master(master)
    try:
        spark = builder.getOrCreate()
    except Exception as exc:  # no JVM, a bad master URL: Spark's own words, on one line
        raise SparkUnavailable(f"Spark did not start: {one_line(exc)[:300]}") from None
    spark.sparkContext.setLogLevel("ERROR")  # Spark's warnings are for its operators, not ours
    return spark


def _files(spark: Any, inputs: Sequence[str]) -> Any:
    """Return a DataFrame (input, source, content) of every file of the inputs: a folder's
    `*.jsonl` (recursive), or the file given (a log or an archive)."""
    from pyspark.sql import functions as F

    frames = []
    for order, given in enumerate(inputs):
        fs, p = hadoop_path(spark, given)
        if not fs.exists(p):
            raise FileNotFoundError(2, "no such file or folder", given)
        qualified = fs.makeQualified(p).toString()
        reader = spark.read.format("binaryFile")
        if fs.getFileStatus(p).isDirectory():
            reader = reader.option("recursiveFileLookup", "true").option("pathGlobFilter", "*.jsonl")
            # named as `buraco index` names them: the input as given, then the path under it
            source = F.concat(F.lit(given.rstrip("/")),
                              F.expr(f"substring(path, {len(qualified.rstrip('/')) + 1})"))
        else:
            source = F.lit(given)
        frames.append(reader.load(given).select(
            F.lit(order).cast("int").alias("input"), source.alias("source"), "content"))
    files = frames[0]
    for frame in frames[1:]:
        files = files.unionByName(frame)
    return files


def spark_index(inputs: Sequence[str], out: str, master: str | None = None,
                replace: bool = False, spark: Any = None, append: bool = False) -> SparkReport:
    """Index the logs of `inputs` into Parquet tables under `out` with Spark; see the module
    docstring. With `append`, add them to the tables already under `out` (see "Daily loads").
    Raises `SparkUnavailable`, `OutputExists` (also for `append` with `replace`, or onto a
    folder that is not an output) or `FileNotFoundError` (an input)."""
    if append and replace:
        raise OutputExists("--append adds to an output, --replace overwrites it: give one")
    spark = spark or session(master)  # first: it says what to install when pyspark is missing
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import from_arrow_schema

    fs, out_path = hadoop_path(spark, out)
    existed = fs.exists(out_path)
    if existed and not (replace or append):
        raise OutputExists(f"{out} exists; --replace to overwrite it, --append to add to it "
                           "(nothing was done)")
    target = out.rstrip("/")
    stored = None
    if append:
        if existed:
            recover(spark, out)
            stored = _stored(spark, out)
        target = f"{target}/{STAGING}{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
    # a few tasks per executor core (not one per ~32 files, Spark's split of small files): a
    # task's fixed costs (its Python worker's start of work, its batches' round trips) and
    # every later job's scan of the cached rows are per task
    parts = max(1, spark.sparkContext.defaultParallelism)
    files = _files(spark, inputs).coalesce(parts * TASKS_PER_CORE)
    ranked = None
    previous = {name: spark.conf.get(name, None) for name in _BATCH_LIMITS}
    for name, limit in _BATCH_LIMITS.items():
        spark.conf.set(name, str(limit))
    checked = files.mapInArrow(check_batches, from_arrow_schema(_CHECKED)).persist(
        StorageLevel.MEMORY_AND_DISK)
    committed = False
    try:
        # duplicates are decided on the logs' own rows alone (names, heads: a small shuffle);
        # the games and branches already stored (`append`) come first, as input -1
        order = ["input", "file", "member"]
        counted = [f"n_{t}" for t in ROW_TABLES]
        first = Window.partitionBy("branch", "key").orderBy(*order)
        logs = checked.where(F.col("part") == _LOG)
        offered = (logs.where(F.col("kind").isNull())
                   .select(*order, "source", "game_id", "head", "branch", "key", *counted))
        if stored is not None:
            offered = stored.select(*order, "source", "game_id", "head", "branch", "key",
                                    *(F.lit(0).cast("long").alias(n) for n in counted)
                                    ).unionByName(offered)
        # one row a log: a few partitions (the window keeps them: no shuffle of its own), not
        # the hundreds of `spark.sql.shuffle.partitions`, each a task of its own
        ranked = (offered.repartition(parts, "branch", "key")
                  .withColumn("rank", F.row_number().over(first))
                  .withColumn("first_head", F.first("head").over(first))
                  .withColumn("first_source", F.first("source").over(first))
                  .where(F.col("input") >= 0)).persist(StorageLevel.MEMORY_AND_DISK)
        # the rejects in the logs' order, sorted here (they are few; Spark's sort is a job more)
        conflicts = [
            (r["source"], None, "conflict", str(Conflict(
                r["game_id"], r["source"], r["first_head"], r["head"], r["first_source"]
            ))[len(r["source"]) + 2:])
            for r in sorted(ranked.where(F.col("head") != F.col("first_head")).collect(),
                            key=_place)
        ]
        # the rejects and the rulings logs in one job (a few rows), apart on the driver
        marked = sorted(logs.where(F.col("kind").isNotNull())
                        .select(*order, "source", "seq", "kind", "message").collect(), key=_place)
        rejected = [(r["source"], r["seq"], r["kind"], r["message"])
                    for r in marked if r["kind"] != _RULINGS]
        # the game logs whose rulings log is among the inputs: their ruled_* are not judged here
        unjudged = [r["source"][:-len(RULINGS_SUFFIX)] + ".jsonl" for r in marked
                    if r["kind"] == _RULINGS]
        # the rows each table gets (the logs kept) and the logs not kept, in one job
        sums = ranked.agg(
            *(F.sum(F.when(F.col("rank") == 1, F.col(f"n_{t}"))).alias(t) for t in ROW_TABLES),
            F.count(F.when(F.col("rank") > 1, True)).alias("dropped")).collect()[0]
        # the rows of the logs not kept (the same game again, a conflict) are left out by their
        # place; usually there are none, and then no join at all
        dropped = ranked.where(F.col("rank") > 1).select(
            *(F.col(name).alias(f"{_PLACED}{name}") for name in order))
        n_dropped = int(sums["dropped"])
        if n_dropped and n_dropped <= _BROADCAST_MAX:
            dropped = F.broadcast(dropped)
        if replace and fs.exists(out_path):
            fs.delete(out_path, True)
        counts: dict[str, int] = {}
        writes: list[Any] = []  # each table's write, run together below
        for table in TABLES:
            counts[table] = int(sums[table] or 0) if table in ROW_TABLES else 0
            schema = from_arrow_schema(table_schema(table))
            if table not in ROW_TABLES:  # no rows: written as Spark writes an empty table
                rows = spark.createDataFrame([], schema)
            else:
                # a task (and a file per variant) per executor core, not per input partition:
                # each of those is a few dozen files, and their tasks' fixed costs were most of
                # a write
                placed = placed_schema(table)
                rows = (checked.where(F.col("part") == table).select("rows").coalesce(parts)
                        .mapInArrow(unpack_rows, from_arrow_schema(placed)))
                if n_dropped:
                    rows = rows.join(dropped, [f"{_PLACED}{name}" for name in order], "left_anti")
                rows = rows.select(*schema.names)
            if table == "games" and unjudged:
                for column in _RULED:
                    kind = schema[column].dataType
                    rows = rows.withColumn(column, F.when(F.col("source").isin(unjudged), F.lit(None)
                                                          .cast(kind)).otherwise(F.col(column)))
            writes.append(functools.partial(
                rows.write.mode("error").partitionBy("variant")
                .options(**_PARQUET_OPTIONS).parquet, f"{target}/{table}"))
        rejects = rejected + conflicts
        writes.append(functools.partial(
            spark.createDataFrame(rejects, from_arrow_schema(REJECTS_SCHEMA)).coalesce(1)
            .write.mode("error").options(**_PARQUET_OPTIONS).parquet,
            f"{target}/rejects"))
        # the writes are jobs of their own, each a task per executor core: run together, the
        # small tables' tasks and every job's scheduling fill the cores the largest leaves idle
        with ThreadPoolExecutor(len(writes)) as pool:
            for write in [pool.submit(w) for w in writes]:
                write.result()
        if append:
            commit(spark, target, out)
        committed = True
    finally:
        for name, value in previous.items():  # the session is the caller's: its settings back
            if value is None:
                spark.conf.unset(name)
            else:
                spark.conf.set(name, value)
        checked.unpersist()
        if ranked is not None:
            ranked.unpersist()
        if append and not committed:
            discard_run(spark, target, out, existed)
    return SparkReport(counts, rejects)


def _place(row: Any) -> Place:
    """Return a log's place in the inputs, from a row of its (`_CHECKED`'s input, file, member)."""
    return row["input"], row["file"], row["member"]


#: the most logs left out (duplicates, conflicts) sent to every executor whole for the join
#: that leaves their rows out; more are joined by a shuffle
_BROADCAST_MAX = 200_000


def _stored(spark: Any, out: str) -> Any:
    """Return the games and branches already under `out`, ranked before any log offered: as
    the `_CHECKED` columns the duplicates are decided on, input -1."""
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import from_arrow_schema

    fs, _ = hadoop_path(spark, out)
    if not fs.exists(hadoop_path(spark, f"{out.rstrip('/')}/games")[1]):
        raise OutputExists(f"{out} is not an output of spark-index: it has no games/ folder "
                           "(nothing was done)")

    def read(table: str) -> Any:
        schema = from_arrow_schema(table_schema(table))
        folder = f"{out.rstrip('/')}/{table}"
        if not fs.exists(hadoop_path(spark, folder)[1]):  # an output older than the table
            return spark.createDataFrame([], schema)
        return spark.read.schema(schema).parquet(folder)

    head = [F.lit(-1).cast("int").alias("input"), F.lit("").alias("file"),
            F.lit(0).cast("int").alias("member")]
    games = read("games").select(*head, "source", "game_id", "head", F.lit(False).alias("branch"),
                                 F.col("game_id").alias("key"))
    branches = read("branches").select(*head, F.col("file").alias("source"), "game_id", "head",
                                       F.lit(True).alias("branch"), F.col("head").alias("key"))
    return games.unionByName(branches)
