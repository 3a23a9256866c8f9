"""Queries: read-only connections to an indexed database (or its Parquet export), their limits
and statement checks, the queries `sql` and `stats` run, and the Parquet export.

Its own module because it changes with what a query may reach and how results come back, not
with how logs are indexed: a query connection reads the database that `ingest` wrote, locked
against files, the network and runaway queries.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from buraco_events.util.sizes import parse_size

from .database import (
    AnalyticsError,
    DatabaseUnavailable,
    check_tables,
    connect,
    creating_path,
    one_line,
    sql_string,
)
from .rows import variant_name
from .schema import TABLES, TYPES, Table
from .sqlviews import PASSED_ONLY, VIEWS


class AccessRefused(AnalyticsError):
    """A query reached for a file or the network that its connection does not allow (exit 1)."""


#: connect settings of a query connection: no extension is installed or loaded behind its back
#: (an unknown function or file type would otherwise fetch one from the network)
_QUERY_CONFIG: dict[str, Any] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}

#: how long one `sql` query (or all of `stats`) may run, in seconds, and how much memory DuckDB
#: may take for it: enough for any query on a club's archive, little enough that a runaway query
#: (a cross join, a string aggregate over millions of rows) stops before a laptop slows down
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_MEMORY = "1GB"

def parse_memory(text: str) -> int:
    """Return the bytes of a memory limit (`sizes.parse_size`: explicit units), 1MiB at least;
    raise `ValueError` with a one-line reason otherwise."""
    size = parse_size(text)
    if size < 2**20:
        raise ValueError(f"{text!r} is too small a memory limit (1MiB at least)")
    return size


@dataclass(frozen=True)
class Limits:
    """What a query connection may use: `timeout` seconds for the whole command's queries and
    `max_memory` (a size `parse_memory` reads) of memory; None for no limit. Nothing spills to disk:
    a query that needs more memory stops (a query connection writes no file)."""

    timeout: float | None = DEFAULT_TIMEOUT
    max_memory: str | None = DEFAULT_MAX_MEMORY

    def deadline(self) -> float | None:
        """Return the `time.monotonic()` by which the queries must be done (None: no limit)."""
        return None if self.timeout is None else time.monotonic() + self.timeout

    def max_bytes(self) -> int | None:
        """Return the memory limit in bytes (None: no limit)."""
        return None if self.max_memory is None else parse_memory(self.max_memory)


class QueryTimedOut(AnalyticsError):
    """A query ran past its connection's time limit and was stopped (exit 1)."""


class QueryOutOfMemory(AnalyticsError):
    """A query needed more memory than its connection's limit and was stopped (exit 1)."""


def connect_query(
    db: str | os.PathLike[str], readable: Iterable[str | os.PathLike[str]] = (),
    limits: Limits | None = None,
) -> duckdb.DuckDBPyConnection:
    """Open `db` for queries only: read-only, files readable under `readable` folders and nowhere
    else, no network, no extension loaded, memory within `limits`, and these settings locked
    against the query itself.

    `read_only` alone stops writes to this file only (ATTACH, COPY TO, EXPORT and INSTALL still
    work): the locks below stop files and the network, `check_query` stops the statements.
    """
    path = Path(db)
    if not path.exists() and creating_path(path).exists():
        raise DatabaseUnavailable(
            f"no database {path} yet: an index run is creating it or was interrupted while "
            "creating it (run `buraco index` again once no index runs)"
        )
    con = connect(db, read_only=True, config=_QUERY_CONFIG)
    try:
        check_tables(con, path)
    except DatabaseUnavailable:
        con.close()
        raise
    _lock(con, readable, db, limits or Limits())
    return con


def _lock(con: duckdb.DuckDBPyConnection, readable: Iterable[str | os.PathLike[str]],
          name: str | os.PathLike[str], limits: Limits) -> None:
    """Let `con` read files under `readable` only, reach no network, use memory within `limits`
    without spilling to disk, and change no setting."""
    folders = ", ".join(f"'{sql_string(Path(d).resolve())}{os.sep}'" for d in readable)
    try:
        if limits.max_memory is not None:
            con.execute(f"SET memory_limit = '{parse_memory(limits.max_memory)}B'")
        con.execute("SET temp_directory = ''")  # no spilling: a query connection writes no file
        # in this order: the folders cannot change once external access is off
        con.execute(f"SET allowed_directories = [{folders}]")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except (duckdb.Error, ValueError) as exc:
        con.close()
        raise DatabaseUnavailable(f"cannot open {name} for queries: {one_line(exc)}") from None


def _glob_literal(path: Path) -> str:
    """Return `path` as a pattern DuckDB's file globbing matches only literally (`*`, `?`, `[`,
    `]`, `{` and `}` each in a bracket class): a folder may be named `we*ird [1]?`."""
    return re.sub(r"([*?\[\]{}])", r"[\1]", os.fspath(path))


#: the variant of a Parquet file, from its partition folder `variant=<v>` (percent-encoded by
#: the writer): read from the file's own folder, never from the folders above it, which may hold
#: `=` (hive partitioning would take `x=1/` above the export for a column `x`)
_VARIANT_OF_FILE = "url_decode(regexp_extract(filename, '/variant=([^/]*)/[^/]*$', 1))"


#: the tables every Parquet export holds a folder of (a folder written before `branches` and
#: `rulings` existed lacks theirs: read as empty tables)
_FIRST_TABLES = ("games", "hands", "events", "melds", "team_hands")


def _parquet_files(folder: Path) -> list[Path]:
    """Return the Parquet files under `folder` in name order, but those a name under it starting
    with `_` or `.` hides (as Spark's and Hadoop's readers hide them: a job's `_temporary/`
    files, not written yet)."""
    return sorted(f for f in folder.rglob("*.parquet")
                  if not any(part.startswith(("_", ".")) for part in f.relative_to(folder).parts))


#: the table `buraco spark-index` writes beside the index's (no variant: it is about files, not
#: games); over a folder without one (`buraco export`'s) its view is empty
REJECTS = Table(
    "one row per log (or input file) spark-index did not index: its path, the seq it concerns, "
    "kind (format, illegal, range, unreadable, internal, conflict) and message (--parquet only)", (
        ("path", "text"), ("seq", "int32"), ("kind", "text"), ("message", "text"),
    ))
#: every table of a Parquet folder: the index's, then `rejects`
PARQUET_TABLES: dict[str, Table] = {**TABLES, "rejects": REJECTS}


def connect_parquet(
    folder: str | os.PathLike[str], readable: Iterable[str | os.PathLike[str]] = (),
    limits: Limits | None = None,
) -> duckdb.DuckDBPyConnection:
    """Open a folder written by `export_parquet` (or `buraco spark-index`) for queries only.

    Each table is a view of the same name and column types over its Parquet files (listed here,
    in name order, so that the folder may have any name; the variant read back from each file's
    partition folder), and the analytics views stand on them: a query gives the same result as
    over the DuckDB file. `rejects` (`PARQUET_TABLES`) is a view too, of spark-index's rejects
    (empty over a folder that has none). Locked like `connect_query`; the folder is readable,
    and `readable` besides.
    """
    root = Path(folder)
    if not root.is_dir():
        raise DatabaseUnavailable(f"no Parquet folder {root} (write one with `buraco export`)")
    con = duckdb.connect(":memory:", config=_QUERY_CONFIG)
    try:
        for table, declared in PARQUET_TABLES.items():
            if not (root / table).is_dir() and table in _FIRST_TABLES:
                raise DatabaseUnavailable(
                    f"{root} is not a Parquet export: it has no {table}/ folder (`buraco export` "
                    "writes games, hands, events, melds and team_hands)"
                )
            values = {name: f'"{name}"' for name in declared.names()}
            files = _parquet_files(root.resolve() / table) if (root / table).is_dir() else []
            if files:
                listed = ", ".join(f"'{sql_string(_glob_literal(f))}'" for f in files)
                source = f"read_parquet([{listed}], filename = true, hive_partitioning = false)"
                values["variant"] = _VARIANT_OF_FILE
            else:  # no file at all (an export made before empty tables were written)
                source = ("(SELECT " + ", ".join(f'NULL AS "{name}"' for name in declared.names())
                          + ") WHERE false")
            cols = ", ".join(f'CAST({values[name]} AS {TYPES[word]}) AS "{name}"'
                             for name, word in declared.columns)
            con.execute(f"CREATE VIEW {table} AS SELECT {cols} FROM {source}")
        for name, view in VIEWS.items():
            con.execute(f"CREATE VIEW {name} AS {view.sql}")
    except duckdb.Error as exc:
        con.close()
        raise DatabaseUnavailable(f"cannot read the Parquet folder {root}: {one_line(exc)}") from None
    except DatabaseUnavailable:
        con.close()
        raise
    # DuckDB checks the file names as listed, before matching them: the listed form of the
    # folder is allowed too (it matches that folder only)
    listed_root = Path(_glob_literal(root.resolve()))
    _lock(con, [root, listed_root, *readable], root, limits or Limits())
    return con


def check_query(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Raise `AnalyticsError` unless `sql` is exactly one read-only query.

    Read-only is what DuckDB's parser types SELECT (SELECT, WITH, FROM-first, DESCRIBE, SHOW,
    SUMMARIZE); everything else (ATTACH, COPY, EXPORT, INSTALL, SET, PRAGMA, ...) is refused before
    anything runs.
    """
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise AnalyticsError(one_line(exc)) from None
    if not statements:
        raise AnalyticsError("sql: no statement to run (the query is empty)")
    if len(statements) != 1:
        raise AnalyticsError(f"sql: only one statement may run; got {len(statements)}")
    word = statements[0].query.split(maxsplit=1)[0].upper()
    try:
        kind = statements[0].type.name
    except ValueError:  # a statement type newer than the Python binding's enum (UPDATE EXTENSIONS):
        # named by its first two words, which tell it from the statement its first word starts
        kind = " ".join(statements[0].query.split()[:2]).upper()
        word = kind
    if kind != "SELECT":
        got = kind if word == kind else f"{kind} ({word} ...)"
        raise AnalyticsError(f"sql: only a read-only query (SELECT) may run; got {got}")


#: the views `stats` shows, in order
STATS_VIEWS: tuple[str, ...] = (
    "canasta_rates", "penalty_rates", "closing_rates", "hand_lengths", "win_rates",
    "score_quantiles",
)
#: the players' standings, which `stats` shows after those views when no variant is asked for:
#: the view counts a player over every variant they played (it has no variant column)
STANDINGS_VIEW = "player_standings"


@dataclass(frozen=True)
class Result:
    """A query result: column names and row tuples."""

    columns: list[str]
    rows: list[tuple[Any, ...]]

    def records(self) -> list[dict[str, Any]]:
        """Return the rows as dicts keyed by column name."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


#: rows fetched into Python at a time: between two batches the time and size limits are checked
_FETCH_ROWS = 10_000


def _rows_size(rows: list[tuple[Any, ...]]) -> int:
    """Return about how many bytes `rows` take in Python: each tuple and its values (not what
    lists and maps inside hold), measured on about a hundred rows spread over them."""
    sample = rows[::max(len(rows) // 100, 1)]
    measured = sum(sys.getsizeof(row) + sum(map(sys.getsizeof, row)) for row in sample)
    return measured * len(rows) // max(len(sample), 1)


def run_query(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = (),
              until: float | None = None, max_bytes: int | None = None,
              passed_only: bool = False) -> Result:
    """Run one query on an open connection; DuckDB's error becomes a one-line `AnalyticsError`.

    With `until` (a `time.monotonic()` deadline) the query is interrupted when it comes and
    `QueryTimedOut` raised; a query over the connection's memory limit raises `QueryOutOfMemory`,
    and so does a result whose rows take more than `max_bytes` in Python (DuckDB's limit does not
    count them). With `passed_only`, the views count only the games that pass the audit
    (`counted_games`).
    """
    if until is not None and time.monotonic() >= until:
        # past the deadline already (a command's earlier queries used it up): a timer started now
        # could fire only after a short query is done
        raise QueryTimedOut("the query ran past its time limit")
    cur = con.cursor()  # DuckDB 2.0: an unread result blocks its connection
    # the cursor's own interrupt: the connection's does not reach a query running on a cursor
    timer = None if until is None else threading.Timer(max(until - time.monotonic(), 0.0),
                                                        cur.interrupt)
    try:
        if passed_only:  # a variable of this cursor's own (each cursor is a connection of its own)
            cur.execute(f"SET VARIABLE {PASSED_ONLY} = true")
        if timer is not None:
            timer.daemon = True
            timer.start()
        cur.execute(sql, list(params))
        columns = [d[0] for d in cur.description] if cur.description else []
        rows: list[tuple[Any, ...]] = []
        size = 0
        while columns:
            batch = cur.fetchmany(_FETCH_ROWS)
            rows += batch
            if len(batch) < _FETCH_ROWS:
                break
            if until is not None and time.monotonic() >= until:
                raise QueryTimedOut("the query ran past its time limit")
            size += _rows_size(batch)
            if max_bytes is not None and size > max_bytes:
                raise QueryOutOfMemory("the query's result needs more memory than its limit")
    except duckdb.InterruptException:
        if until is not None and time.monotonic() >= until:
            raise QueryTimedOut("the query ran past its time limit") from None
        raise AnalyticsError("the query was interrupted") from None
    except duckdb.OutOfMemoryException:
        raise QueryOutOfMemory("the query needs more memory than its limit") from None
    except duckdb.PermissionException as exc:
        raise AccessRefused(one_line(exc)) from None
    except duckdb.Error as exc:
        raise AnalyticsError(one_line(exc)) from None
    finally:
        if timer is not None:
            timer.cancel()
        cur.close()
    return Result(columns, rows)


@contextlib.contextmanager
def _limited(command: str, limits: Limits) -> Iterator[None]:
    """Turn a query stopped by `limits` into the one line that says which limit and option."""
    try:
        yield
    except QueryTimedOut:
        raise QueryTimedOut(
            f"{command}: the query ran past --timeout {limits.timeout:g} s; stopped "
            "(raise --timeout)") from None
    except QueryOutOfMemory:
        raise QueryOutOfMemory(
            f"{command}: the query needs more memory than --max-memory {limits.max_memory}; "
            "stopped (raise --max-memory, or narrow the query)") from None


def query(db: str | os.PathLike[str], sql: str, parquet: str | os.PathLike[str] | None = None,
          limits: Limits | None = None, passed_only: bool = False) -> Result:
    """Run one read-only query on `db`, or on the Parquet folder `parquet` when given (see
    `check_query`), within `limits` (time and memory; the defaults when None); it may read local
    files under the working folder and the database's (or the Parquet) folder, nothing else (see
    `connect_query`). With `passed_only`, the views count only the games that pass the audit."""
    limits = limits or Limits()
    con = (
        connect_query(db, readable=(Path.cwd(), Path(db).parent), limits=limits)
        if parquet is None else connect_parquet(parquet, readable=(Path.cwd(),), limits=limits)
    )
    try:
        check_query(con, sql)
        with _limited("sql", limits):
            return run_query(con, sql, until=limits.deadline(), max_bytes=limits.max_bytes(),
                             passed_only=passed_only)
    except AccessRefused as exc:
        raise AccessRefused(
            f"{exc} (a query reads files only under the working folder and the database's "
            "folder, and nothing from the network)"
        ) from None
    finally:
        con.close()


def stats(
    db: str | os.PathLike[str], variant: str | None = None,
    parquet: str | os.PathLike[str] | None = None, limits: Limits | None = None,
    passed_only: bool = False,
) -> dict[str, Result]:
    """Return every analytics view (optionally for one variant or its alias; the players'
    standings, `STANDINGS_VIEW`, only over every variant), read-only, all within `limits` (one time limit for the whole); with `passed_only`, of the games that pass
    the audit only.

    The views are read from the database, which may come from anyone: they run on a query
    connection that reads no file but the database itself (or, with `parquet`, the views are
    this module's own over that folder's files).
    """
    name = variant_name(variant) if variant is not None else None
    limits = limits or Limits()
    con = (connect_query(db, limits=limits) if parquet is None
           else connect_parquet(parquet, limits=limits))
    until = limits.deadline()
    try:
        with _limited("stats", limits):
            views = STATS_VIEWS if name is not None else (*STATS_VIEWS, STANDINGS_VIEW)
            return {view: view_rows(con, view, name, until, passed_only) for view in views}
    finally:
        con.close()


def view_rows(con: duckdb.DuckDBPyConnection, view: str, variant: str | None = None,
              until: float | None = None, passed_only: bool = False) -> Result:
    """Return one analytics view, all variants or one (by `until` and of the games that pass
    the audit only with `passed_only`, see `run_query`)."""
    if view not in VIEWS:
        raise AnalyticsError(f"unknown view {view!r}; views: {', '.join(VIEWS)}")
    if variant is None:
        return run_query(con, f"SELECT * FROM {view}", until=until,
                         passed_only=passed_only)
    return run_query(con, f"SELECT * FROM {view} WHERE variant = ?", [variant], until=until,
                     passed_only=passed_only)


def export_parquet(db: str | os.PathLike[str], out_dir: str | os.PathLike[str]) -> dict[str, int]:
    """Write every table as zstd Parquet partitioned by variant (hive style); return row counts.

    Each table goes to `out_dir/<table>/variant=<v>/`, replacing that table's folder (OVERWRITE:
    COPY refuses a non-empty folder otherwise, and appending would duplicate rows).
    """
    con = connect(db, read_only=True)
    counts: dict[str, int] = {}
    try:
        check_tables(con, Path(db))
        for table in TABLES:
            select = (  # games and branches hold their variant, the others take their game's
                f"SELECT * FROM {table}" if "variant" in TABLES[table].names()
                else f"SELECT t.*, g.variant FROM {table} t JOIN games g USING (game_id)"
            )
            target = Path(out_dir) / table
            target.parent.mkdir(parents=True, exist_ok=True)
            counts[table] = run_query(con, f"SELECT count(*) FROM {table}").rows[0][0]
            try:
                if counts[table]:
                    con.execute(
                        f"COPY ({select}) TO '{sql_string(target)}' (FORMAT parquet, "
                        "COMPRESSION zstd, PARTITION_BY (variant), OVERWRITE)"
                    )
                else:  # no rows, no partition: one empty file holds the columns, so that any
                    # engine reading the folder finds the table's schema
                    if target.exists():
                        shutil.rmtree(target)
                    target.mkdir()
                    con.execute(f"COPY ({select}) TO '{sql_string(target / 'empty.parquet')}' "
                                "(FORMAT parquet, COMPRESSION zstd)")
            except (duckdb.Error, OSError) as exc:
                raise AnalyticsError(f"export of {table}: {one_line(exc)}") from None
    finally:
        con.close()
    return counts
