"""Analytics: game logs indexed into DuckDB, queried with SQL, summarised and exported to Parquet.

The shell around `rows`: it reads logs, replays each game through the engine (via `rows`), loads
the rows into DuckDB in Arrow batches and keeps analytics views in the database. SQL here only
counts and averages what the engine computed; it never scores.

Ingest policy (one transaction per run): each log is decoded, chain-checked, replayed and its rows
checked against the column types before any of them reach the database, so an illegal or
unreadable log, or one whose values do not fit (a `target` of 2**31), is skipped and reported
while the valid logs of the same run are committed together; an interrupted or crashed run
commits nothing. The database must be a DuckDB file (or not exist yet).
A damaged archive is reported too; the logs read from it before the damage (each checked against
its digest) are kept. A game already
stored with the same head is skipped; with another head it is a conflict, left alone unless
`replace` is set (then its old rows are deleted and the new ones inserted).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple, cast

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from . import build
from .chain import ChainStatus
from .engine import IllegalMove
from .events import Event
from .log import EventReader
from .logread import LogError, RawLines
from .melds import CANASTA_KINDS
from .pool import WorkerError, chunked, collector_paused, ordered_map
from .rows import (
    CARD_NAMES,
    COLUMNS,
    EVENT_TAG_NAMES,
    Columns,
    EventBuffers,
    game_rows,
    variant_name,
)
from .schema import TABLES as DECLARED
from .schema import TYPES, int_range, is_list_type
from .sources import CHUNK_BYTES, chunk_bytes, first_name, held_bytes, iter_logs
from .text import visible
from .verdicts import FAILING

DEFAULT_DB = "buraco.duckdb"
TABLES: tuple[str, ...] = tuple(COLUMNS)
QUANTILES: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 0.9)

#: the Arrow type of each type word of the declaration (`schema.TYPES`)
_ARROW_TYPES: dict[str, pa.DataType] = {
    "text": pa.string(), "bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(),
    "int32": pa.int32(), "text[]": pa.list_(pa.string()), "int32[]": pa.list_(pa.int32()),
}
_LIST = _ARROW_TYPES["text[]"]
#: Arrow type of every column, from the declaration (`DECLARED`)
SCHEMAS: dict[str, pa.Schema] = {
    table: pa.schema([(name, _ARROW_TYPES[word]) for name, word in declared.columns])
    for table, declared in DECLARED.items()
}
#: the DuckDB type of each column's Arrow type (`schema.TYPES`)
_DDL_TYPES: dict[pa.DataType, str] = {_ARROW_TYPES[word]: ddl for word, ddl in TYPES.items()}


def _kinds_sql() -> str:
    return "[" + ", ".join(f"'{k}'" for k in CANASTA_KINDS) + "]"


def _quantile_cols(expr: str) -> str:
    return ", ".join(
        f"quantile_cont({expr}, {q}) AS p{round(q * 100)}" for q in QUANTILES
    )


class View(NamedTuple):
    """An analytics view: one line on what it answers, and its SQL."""

    about: str
    sql: str


#: the query variable that leaves the games failing the audit out of every view (`counted_games`)
PASSED_ONLY = "buraco_passed_only"
#: the analytics views shipped in every indexed database (names are part of the interface)
VIEWS: dict[str, View] = {
    # first: the views below count the games of this one
    "counted_games": View("the games the views count: all, or those that pass the audit with"
                          " --passed-only", f"""
        SELECT * FROM games
        WHERE audit_ok OR NOT coalesce(getvariable('{PASSED_ONLY}'), false)"""),
    "canasta_rates": View("canastas of each kind per hand and per team hand, by variant", f"""
        WITH th AS (
            SELECT g.variant, count(*) AS team_hands, count(DISTINCT (t.game_id, t.hand)) AS hands
            FROM team_hands t JOIN counted_games g USING (game_id) GROUP BY g.variant),
        c AS (
            SELECT g.variant, m.kind, count(*) AS canastas,
                   count(DISTINCT (m.game_id, m.hand, m.team)) AS team_hands_with
            FROM melds m JOIN counted_games g USING (game_id) WHERE m.kind <> 'none'
            GROUP BY g.variant, m.kind)
        SELECT th.variant, k.kind, th.hands, th.team_hands,
               coalesce(c.canastas, 0) AS canastas,
               coalesce(c.canastas, 0) / th.hands AS per_hand,
               coalesce(c.canastas, 0) / th.team_hands AS per_team_hand,
               coalesce(c.team_hands_with, 0) / th.team_hands AS share_team_hands
        FROM th CROSS JOIN (SELECT unnest({_kinds_sql()}) AS kind) k
        LEFT JOIN c ON c.variant = th.variant AND c.kind = k.kind
        ORDER BY th.variant, list_position({_kinds_sql()}, k.kind)"""),
    "penalty_rates": View("how often teams took no dead or left it unused, penalties, by variant", """
        SELECT g.variant, count(*) AS team_hands,
               avg(CASE WHEN NOT t.took_dead THEN 1 ELSE 0 END) AS no_dead_rate,
               avg(CASE WHEN t.dead_unused THEN 1 ELSE 0 END) AS dead_unused_rate,
               avg(CASE WHEN t.dead_direct THEN 1 ELSE 0 END) AS dead_direct_rate,
               avg(t.dead_penalty) AS avg_dead_penalty,
               avg(t.hand_penalty) AS avg_hand_penalty
        FROM team_hands t JOIN counted_games g USING (game_id)
        GROUP BY g.variant ORDER BY g.variant"""),
    "closing_rates": View("share of hands closed, ended by the stock, claimed right, by variant", """
        SELECT g.variant, count(*) AS hands,
               avg(CASE WHEN h.reason = 'closed' THEN 1 ELSE 0 END) AS closed_rate,
               avg(CASE WHEN h.reason = 'stock_exhausted' THEN 1 ELSE 0 END) AS exhausted_rate,
               avg(CASE WHEN h.reason = 'stalemate' THEN 1 ELSE 0 END) AS stalemate_rate,
               avg(CASE WHEN h.claims_match THEN 1 ELSE 0 END) AS claims_match_rate
        FROM hands h JOIN counted_games g USING (game_id)
        GROUP BY g.variant ORDER BY g.variant"""),
    "hand_lengths": View("turns and events per hand (mean, median, max), by variant and end", """
        SELECT g.variant, h.reason, count(*) AS hands,
               avg(h.turns) AS avg_turns, median(h.turns) AS median_turns, max(h.turns) AS max_turns,
               avg(h.events) AS avg_events, median(h.events) AS median_events,
               max(h.events) AS max_events
        FROM hands h JOIN counted_games g USING (game_id)
        GROUP BY g.variant, h.reason ORDER BY g.variant, h.reason"""),
    "win_rates": View("wins of the team that played first and of team 0, by variant, players", """
        SELECT variant, n_players, count(*) AS games,
               avg(CASE WHEN winner = first_team THEN 1 ELSE 0 END) AS first_team_win_rate,
               avg(CASE WHEN winner = 0 THEN 1 ELSE 0 END) AS team0_win_rate,
               avg(hands) AS avg_hands
        FROM counted_games WHERE complete
        GROUP BY variant, n_players ORDER BY variant, n_players"""),
    "player_standings": View("games, wins and win rate per player name, over finished games", """
        WITH seats AS (
            SELECT game_id, variant, winner, totals, unnest(players) AS player,
                   generate_subscripts(players, 1) - 1 AS seat
            FROM counted_games WHERE complete)
        SELECT player, count(*) AS games, count(*) FILTER (WHERE winner = seat % 2) AS wins,
               avg(CASE WHEN winner = seat % 2 THEN 1 ELSE 0 END) AS win_rate,
               avg(totals[seat % 2 + 1]) AS avg_team_total,
               list(DISTINCT variant ORDER BY variant) AS variants
        FROM seats GROUP BY player ORDER BY win_rate DESC, games DESC, player"""),
    "score_quantiles": View("quantiles of team hand totals and of game totals, by variant", f"""
        SELECT g.variant, 'team_hand_total' AS measure, count(*) AS n, min(t.total) AS min,
               {_quantile_cols('t.total')}, max(t.total) AS max, avg(t.total) AS avg
        FROM team_hands t JOIN counted_games g USING (game_id) GROUP BY g.variant
        UNION ALL
        SELECT variant, 'game_total' AS measure, count(*) AS n, min(total) AS min,
               {_quantile_cols('total')}, max(total) AS max, avg(total) AS avg
        FROM (SELECT variant, unnest(totals) AS total FROM counted_games WHERE complete)
        GROUP BY variant
        ORDER BY 1, 2"""),
}


def relations() -> list[tuple[str, str]]:
    """Return (name, one line about it) for every table, then every view, a query can use."""
    return [(t, DECLARED[t].about) for t in TABLES] + [(v, VIEWS[v].about) for v in VIEWS]


class AnalyticsError(Exception):
    """A one-line failure the CLI prints as is (exit 1)."""


class DatabaseUnavailable(AnalyticsError):
    """The database file is missing or locked by another process (exit 2)."""


class InputUnreadable(DatabaseUnavailable):
    """The logs could not be read to the end: a worker process died or ran out of memory (exit 2,
    nothing was indexed)."""


class AccessRefused(AnalyticsError):
    """A query reached for a file or the network that its connection does not allow (exit 1)."""


#: why a log (or an input path) was not indexed: `Rejected.kind`, the `rejects` table's kind
#: (`deal`, `score`, `unfinished`: a game that fails the audit, refused by `index --strict`)
RejectKind = Literal["unreadable", "format", "illegal", "range", "internal", "conflict", "deal",
                     "score", "unfinished"]


@dataclass(frozen=True)
class Rejected:
    """A log that was not indexed: which file and why (one line), the kind of failure and the seq
    it concerns (when one event stands behind it)."""

    source: str
    reason: str
    kind: RejectKind = "unreadable"
    seq: int | None = None

    def __str__(self) -> str:
        return f"{self.source}: {self.reason}"


@dataclass(frozen=True)
class Conflict:
    """A game stored with another head than the log now offered."""

    game_id: str
    source: str
    stored_head: str
    new_head: str
    stored_source: str

    def __str__(self) -> str:
        return (
            f"{self.source}: game {self.game_id} is stored with head {self.stored_head[:12]} "
            f"(from {self.stored_source}), this log has head {self.new_head[:12]}"
        )


@dataclass
class IndexReport:
    """What one index run did."""

    added: int = 0
    replaced: int = 0
    skipped: int = 0
    events: int = 0
    failing: int = 0  # games stored that fail the audit (`games.audit_ok` false)
    rejected: list[Rejected] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Return whether every log offered is now in the database."""
        return not self.rejected and not self.conflicts


# -- connections -------------------------------------------------------------------------------


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


#: where every DuckDB database file says what it is (the bytes before it are a checksum)
_MAGIC, _MAGIC_AT = b"DUCK", 8


def _check_header(path: Path) -> None:
    """Raise `DatabaseUnavailable` unless the existing `path` is a DuckDB database file.

    DuckDB opens some other files (JSON, CSV) as an in-memory database and saves nothing into
    them: indexing into one would report games added and keep none.
    """
    if path.is_dir():
        raise DatabaseUnavailable(f"{path} is a folder, not a DuckDB database")
    try:
        with path.open("rb") as f:
            head = f.read(_MAGIC_AT + len(_MAGIC))
    except OSError as exc:
        raise DatabaseUnavailable(f"cannot read {path}: {exc.strerror}") from None
    if head[_MAGIC_AT:] != _MAGIC:
        raise DatabaseUnavailable(
            f"{path} exists and is not a DuckDB database; choose another --db (nothing was done)"
        )


def connect(
    db: str | os.PathLike[str], read_only: bool = False, config: dict[str, Any] | None = None
) -> duckdb.DuckDBPyConnection:
    """Open the database; raises `DatabaseUnavailable` when missing (read-only) or locked."""
    path = Path(db)
    if read_only and not path.exists():
        raise DatabaseUnavailable(f"no database {path} (run `buraco index` first)")
    if path.exists():
        _check_header(path)
    try:
        return duckdb.connect(str(path), read_only=read_only, config=config or {})
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            raise DatabaseUnavailable(
                f"database {path} is in use by another process (DuckDB allows one writer); "
                "try again when it finishes"
            ) from None
        raise DatabaseUnavailable(f"cannot open {path}: {_one_line(exc)}") from None
    except duckdb.Error as exc:
        raise DatabaseUnavailable(f"cannot open {path}: {_one_line(exc)}") from None


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

_SIZE_UNITS = {
    "": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Return the bytes of a size such as `512MB`, `2GiB` or `1.5GB` (decimal and binary units);
    raise `ValueError` with a one-line reason otherwise."""
    match = _SIZE.fullmatch(text)
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in _SIZE_UNITS:
        raise ValueError(f"{text!r} is not a size (write e.g. 512MB, 2GB, 1GiB)")
    size = int(float(match.group(1)) * _SIZE_UNITS[unit])
    if size < 2**20:
        raise ValueError(f"{text!r} is too small a memory limit (1MiB at least)")
    return size


@dataclass(frozen=True)
class Limits:
    """What a query connection may use: `timeout` seconds for the whole command's queries and
    `max_memory` (a size `parse_size` reads) of memory; None for no limit. Nothing spills to disk:
    a query that needs more memory stops (a query connection writes no file)."""

    timeout: float | None = DEFAULT_TIMEOUT
    max_memory: str | None = DEFAULT_MAX_MEMORY

    def deadline(self) -> float | None:
        """Return the `time.monotonic()` by which the queries must be done (None: no limit)."""
        return None if self.timeout is None else time.monotonic() + self.timeout

    def max_bytes(self) -> int | None:
        """Return the memory limit in bytes (None: no limit)."""
        return None if self.max_memory is None else parse_size(self.max_memory)


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
    if not path.exists() and _creating_path(path).exists():
        raise DatabaseUnavailable(
            f"no database {path} yet: an index run is creating it or was interrupted while "
            "creating it (run `buraco index` again once no index runs)"
        )
    con = connect(db, read_only=True, config=_QUERY_CONFIG)
    try:
        _check_tables(con, path)
    except DatabaseUnavailable:
        con.close()
        raise
    _lock(con, readable, db, limits or Limits())
    return con


def _check_tables(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Raise `DatabaseUnavailable` when the database holds none of the index's tables (an empty
    DuckDB file, or another program's): one line that says why, rather than DuckDB's word that
    `games` does not exist."""
    names = {row[0] for row in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()"
    ).fetchall()}
    if not names & set(TABLES):
        raise DatabaseUnavailable(
            f"{path} holds no games tables: an index run was interrupted while creating it, or "
            "another program made it; run `buraco index` again (into a new --db if it is not yours)"
        )


def _lock(con: duckdb.DuckDBPyConnection, readable: Iterable[str | os.PathLike[str]],
          name: str | os.PathLike[str], limits: Limits) -> None:
    """Let `con` read files under `readable` only, reach no network, use memory within `limits`
    without spilling to disk, and change no setting."""
    folders = ", ".join(f"'{_sql_string(Path(d).resolve())}{os.sep}'" for d in readable)
    try:
        if limits.max_memory is not None:
            con.execute(f"SET memory_limit = '{parse_size(limits.max_memory)}B'")
        con.execute("SET temp_directory = ''")  # no spilling: a query connection writes no file
        # in this order: the folders cannot change once external access is off
        con.execute(f"SET allowed_directories = [{folders}]")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except (duckdb.Error, ValueError) as exc:
        con.close()
        raise DatabaseUnavailable(f"cannot open {name} for queries: {_one_line(exc)}") from None


def _glob_literal(path: Path) -> str:
    """Return `path` as a pattern DuckDB's file globbing matches only literally (`*`, `?`, `[`,
    `]`, `{` and `}` each in a bracket class): a folder may be named `we*ird [1]?`."""
    return re.sub(r"([*?\[\]{}])", r"[\1]", os.fspath(path))


#: the variant of a Parquet file, from its partition folder `variant=<v>` (percent-encoded by
#: the writer): read from the file's own folder, never from the folders above it, which may hold
#: `=` (hive partitioning would take `x=1/` above the export for a column `x`)
_VARIANT_OF_FILE = "url_decode(regexp_extract(filename, '/variant=([^/]*)/[^/]*$', 1))"


def connect_parquet(
    folder: str | os.PathLike[str], readable: Iterable[str | os.PathLike[str]] = (),
    limits: Limits | None = None,
) -> duckdb.DuckDBPyConnection:
    """Open a folder written by `export_parquet` (or `buraco spark-index`) for queries only.

    Each table is a view of the same name and column types over its Parquet files (listed here,
    in name order, so that the folder may have any name; the variant read back from each file's
    partition folder), and the analytics views stand on them: a query gives the same result as
    over the DuckDB file. Locked like `connect_query`; the folder is readable, and `readable`
    besides.
    """
    root = Path(folder)
    if not root.is_dir():
        raise DatabaseUnavailable(f"no Parquet folder {root} (write one with `buraco export`)")
    con = duckdb.connect(":memory:", config=_QUERY_CONFIG)
    try:
        for table, schema in SCHEMAS.items():
            if not (root / table).is_dir():
                raise DatabaseUnavailable(
                    f"{root} is not a Parquet export: it has no {table}/ folder (`buraco export` "
                    "writes games, hands, events, melds and team_hands)"
                )
            values = {f.name: f'"{f.name}"' for f in schema}
            files = sorted((root.resolve() / table).rglob("*.parquet"))
            if files:
                listed = ", ".join(f"'{_sql_string(_glob_literal(f))}'" for f in files)
                source = f"read_parquet([{listed}], filename = true, hive_partitioning = false)"
                values["variant"] = _VARIANT_OF_FILE
            else:  # a table with no rows is exported as no file at all
                source = "(SELECT " + ", ".join(f'NULL AS "{f.name}"' for f in schema) + ") WHERE false"
            cols = ", ".join(
                f'CAST({values[f.name]} AS {_DDL_TYPES[f.type]}) AS "{f.name}"' for f in schema)
            con.execute(f"CREATE VIEW {table} AS SELECT {cols} FROM {source}")
        for name, view in VIEWS.items():
            con.execute(f"CREATE VIEW {name} AS {view.sql}")
    except duckdb.Error as exc:
        con.close()
        raise DatabaseUnavailable(f"cannot read the Parquet folder {root}: {_one_line(exc)}") from None
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
        raise AnalyticsError(_one_line(exc)) from None
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


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create the tables (when missing) and (re)create the analytics views."""
    for table, schema in SCHEMAS.items():
        cols = ", ".join(f'"{f.name}" {_DDL_TYPES[f.type]}' for f in schema)
        con.execute(f"CREATE TABLE IF NOT EXISTS {table} ({cols})")
        # a database indexed before a column existed gains it, NULL in the rows it holds (for
        # the verdict: not judged, which `counted_games` never takes for a pass)
        for f in schema:
            con.execute(f'ALTER TABLE {table} ADD COLUMN IF NOT EXISTS "{f.name}" {_DDL_TYPES[f.type]}')
        con.execute(f"COMMENT ON TABLE {table} IS '{_sql_string(DECLARED[table].about)}'")
    for name, view in VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {view.sql}")
        con.execute(f"COMMENT ON VIEW {name} IS '{_sql_string(view.about)}'")


# -- reading logs ------------------------------------------------------------------------------


def _decode_log(lines: RawLines) -> tuple[list[Event], ChainStatus]:
    """Decode a log's lines, checking seq and the hash chain; raises `LogError` at a bad line."""
    reader = EventReader(lines)
    events: list[Event] = [event for _, _, event in reader]
    return events, reader.status()


#: columns of the games table filled from the game_started line (seq 0)
_STARTED_COLUMNS = frozenset({"game_id", "variant", "players", "n_players", "target"})


def _number(value: int) -> str:
    # a huge int has no short decimal form (and str() refuses past 4300 digits)
    return str(value) if value.bit_length() <= 64 else f"a {value.bit_length()}-bit number"


def _int_columns(table: str) -> list[tuple[str, bool, int, int]]:
    """Return (name, is_list, low, high) for each integer (or list of integers) column: the
    range of its declared type (`schema.int_range`). A log may hold any int (a `target` of
    2**31, rules with huge bonuses) and the engine keeps counting past any width."""
    out = []
    for name, word in DECLARED[table].columns:
        bounds = int_range(word)
        if bounds is not None:
            out.append((name, is_list_type(word), *bounds))
    return out


#: the integer columns of each table, events first (its rows name their seq)
_INT_COLUMNS: dict[str, list[tuple[str, bool, int, int]]] = {
    t: _int_columns(t) for t in ("events", *(t for t in TABLES if t != "events"))
}


def _misfit(rows: Columns) -> tuple[int | None, str] | None:
    """Return (seq, why) one game's rows cannot be stored (a value out of its column's type), or
    None; seq is that of the event behind the value, when one is.

    Checked per log before any of its rows reach a batch, so that one such log is rejected and
    the others are indexed. Integers are checked against their column's range; the games row's
    text (a file name may not be UTF-8) is checked for UTF-8. Text from events needs no check:
    the decoder refuses invalid UTF-8 and lone surrogates.
    """
    events = rows.data["events"]
    for table, columns in _INT_COLUMNS.items():
        cols = rows.data[table]
        for name, is_list, lo, hi in columns:
            bad = _first_out_of_range(cols[name], is_list, lo, hi)
            if bad is not None:
                row, value = bad
                seq = _seq_of(table, name, cols, row, events)
                where = f"seq {seq}: " if seq is not None else ""
                ddl = TYPES[DECLARED[table].type_of(name)]
                return seq, (f"{where}{table}.{name}: {_number(value)} is out of range for {ddl} "
                             f"({lo} to {hi})")
    games = rows.data["games"]
    for name, word in DECLARED["games"].columns:
        if word in ("text", "text[]"):
            text = _first_not_utf8(games[name])
            if text is not None:
                seq = 0 if name in _STARTED_COLUMNS else None
                where = "seq 0: " if seq is not None else ""
                return seq, f"{where}games.{name}: {visible(text)!r} is not valid UTF-8 text"
    return None


def _first_out_of_range(values: list[Any], is_list: bool, lo: int, hi: int
                        ) -> tuple[int, int] | None:
    """Return (row, value) of the first int (or list element) outside lo..hi, else None."""
    if is_list:
        ints = [x for v in values if v is not None for x in v if x is not None]
    else:
        ints = [v for v in values if v is not None]
    if not ints or (lo <= min(ints) and max(ints) <= hi):
        return None  # the common case, without a row loop
    for row, v in enumerate(values):
        for x in (v or ()) if is_list else (v,):
            if x is not None and not lo <= x <= hi:
                return row, x
    return None


def _first_not_utf8(values: list[Any]) -> str | None:
    for v in values:
        for text in v if isinstance(v, list) else (v,):
            if isinstance(text, str):
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:  # a lone surrogate, e.g. from os.fsdecode
                    return text
    return None


def _seq_of(table: str, column: str, cols: dict[str, list[Any]], row: int,
            events: dict[str, list[Any]]) -> int | None:
    """Return the seq of the event behind a table row, where one event stands behind it."""
    if table == "events":
        return int(events["seq"][row])
    if table == "games":
        return 0 if column in _STARTED_COLUMNS else None
    # hands, melds and team_hands rows are written at their hand's hand_ended
    hand = cols["hand"][row]
    for seq, kind, h in zip(events["seq"], events["type"], events["hand"], strict=True):
        if kind == "hand_ended" and h == hand:
            return int(seq)
    return None


def _reason(exc: BaseException, source: str) -> str:
    """Return an error's one-line text without the source name it may start with."""
    text = _one_line(exc)
    return text[len(source) + 2:] if text.startswith(source + ": ") else text


@dataclass(frozen=True)
class Checked:
    """One accepted log of a chunk: its game and head, and how many rows it has in each table."""

    source: str
    game_id: str
    head: str
    events: int
    counts: dict[str, int]
    audit_problems: tuple[str, ...] = ()  # the kinds of the audit's problems (`verdicts.KINDS`)

    @property
    def failing(self) -> list[str]:
        """Return the kinds of problems that make the game fail the audit."""
        return [kind for kind in self.audit_problems if kind in FAILING]


@dataclass(frozen=True)
class CheckedChunk:
    """A chunk of logs checked: each log's outcome in order, and the rows of the accepted ones as
    one Arrow table per table (each log's rows follow the previous log's)."""

    outcomes: list[Checked | Rejected]
    tables: dict[str, pa.Table]


def _replay_log(source: str, lines: RawLines, into: Columns) -> Checked | Rejected:
    """Decode, chain-check and replay one log, appending its rows to `into` (all or none, and
    their values not yet checked against the column types); or the log's rejection."""
    before = into.counts()
    try:
        events, status = _decode_log(lines)
        head = status.head or ""
        game_rows(events, source, head, status.sealed, into)
    except OSError as exc:
        return Rejected(source, _reason(exc, source), "unreadable")
    except LogError as exc:
        return Rejected(source, _reason(exc, source), "format", exc.seq)
    except IllegalMove as exc:
        return Rejected(source, _reason(exc, source), "illegal", exc.seq)
    except ValueError as exc:  # e.g. an unknown variant in game_started
        return Rejected(source, _reason(exc, source), "illegal")
    except Exception as exc:  # an engine bug must not abort the run nor print a traceback
        reason = f"internal error {type(exc).__name__}: {_one_line(exc)}"
        return Rejected(source, reason, "internal")
    after = into.counts()
    counts = {t: after[t] - before[t] for t in TABLES}
    games = into.data["games"]
    return Checked(source, games["game_id"][-1], head, len(events), counts,
                   tuple(games["audit_problems"][-1]))


#: what converting a value that does not fit its column's type raises
_MISFIT_ERRORS = (pa.ArrowException, OverflowError, UnicodeError)


def _arrow_table(columns: Columns, table: str) -> pa.Table:
    """Return one table's rows as Arrow (`SCHEMAS`); raises one of `_MISFIT_ERRORS` where a
    value does not fit its column's type."""
    if table == "events" and columns.native is not None:
        return _native_events(columns.native)
    return pa.Table.from_pydict(columns.data[table], schema=SCHEMAS[table])


#: the strings behind the native events rows' codes (`rows.EventBuffers`)
_TAG_NAMES = pa.array(EVENT_TAG_NAMES, pa.string())
_CARD_NAMES = pa.array(CARD_NAMES, pa.string())


_NO_BYTES = pa.py_buffer(b"")


def _buffer(values: Any) -> pa.Buffer:
    """Return a vector's memory as an Arrow buffer (an empty vector has no pointer to give)."""
    return pa.py_buffer(values) if len(values) else _NO_BYTES


def _validity(ok: Any, n: int) -> pa.Buffer:
    """Return Arrow's validity bitmap of a vector of 1 (a value) and 0 (null)."""
    flags = pa.Array.from_buffers(pa.uint8(), n, [None, _buffer(ok)])
    return pc.cast(flags, pa.bool_()).buffers()[1]


def _native_events(buf: EventBuffers) -> pa.Table:
    """Return the events rows held natively as their Arrow table: each column a view of its
    vector (validity bitmaps and the string columns, taken from their codes, built by Arrow)."""
    n = len(buf)
    schema = SCHEMAS["events"]

    def ints(name: str, data: Any, ok: pa.Buffer | None = None) -> pa.Array:
        return pa.Array.from_buffers(schema.field(name).type, n, [ok, _buffer(data)])

    def codes(data: Any, rows: int, ok: pa.Buffer | None = None) -> pa.Array:
        return pa.Array.from_buffers(pa.uint8(), rows, [ok, _buffer(data)])

    player_ok = _validity(buf.player_ok, n)
    cards_ok = _validity(buf.cards_ok, n)
    card_codes = codes(buf.card_codes, len(buf.card_codes))
    cards = pa.Array.from_buffers(_LIST, n, [cards_ok, _buffer(buf.cards_end)],
                                  children=[_CARD_NAMES.take(card_codes)])
    game = pa.Array.from_buffers(pa.int32(), n, [None, _buffer(buf.game)])
    return pa.Table.from_arrays([
        pa.array(buf.game_ids, pa.string()).take(game),
        ints("seq", buf.seq),
        ints("hand", buf.hand, _validity(buf.hand_ok, n)),
        ints("turn", buf.turn, _validity(buf.turn_ok, n)),
        _TAG_NAMES.take(codes(buf.type, n)),
        ints("player", buf.player, player_ok),
        ints("team", buf.team, player_ok),
        cards,
        _CARD_NAMES.take(codes(buf.card, n, _validity(buf.card_ok, n))),
        ints("meld", buf.meld, _validity(buf.meld_ok, n)),
        ints("dead", buf.dead, _validity(buf.dead_ok, n)),
        pc.list_value_length(cards).cast(schema.field("n_cards").type),  # fits: see `add`
        pa.array(buf.at, pa.string()),
        pa.array(buf.note, pa.string()),
    ], schema=schema)


def arrow_tables(columns: Columns) -> dict[str, pa.Table]:
    """Return the rows as one Arrow table per table (`SCHEMAS`)."""
    tables = {}
    for table in TABLES:
        try:
            tables[table] = _arrow_table(columns, table)
        except _MISFIT_ERRORS as exc:
            # `_misfit` lets no such value through; were one to pass, one line, no traceback
            raise AnalyticsError(
                f"{table}: a value does not fit: {_one_line(exc)} (nothing was indexed)"
            ) from None
    return tables


def _without_misfits(outcomes: list[Checked | Rejected], batch: Columns
                     ) -> tuple[list[Checked | Rejected], Columns]:
    """Return the outcomes with each log whose rows do not fit (`_misfit`) rejected, and the
    rows of the others."""
    kept = Columns()
    out: list[Checked | Rejected] = []
    offsets = dict.fromkeys(TABLES, 0)
    for outcome in outcomes:
        if isinstance(outcome, Checked):
            rows = batch.rows(offsets, outcome.counts)
            for table in TABLES:
                offsets[table] += outcome.counts[table]
            misfit = _misfit(rows)
            if misfit is not None:
                outcome = Rejected(outcome.source, misfit[1], "range", misfit[0])
            else:
                kept.extend(rows)
        out.append(outcome)
    return out, kept


#: whether `check_chunk` builds the events rows natively (`rows.EventBuffers`): in the compiled
#: build, where appending a machine int costs a few instructions; the pure build's plain lists
#: are the faster there (each append a call either way, and pyarrow converts lists in C)
_NATIVE_ROWS = build() == "compiled"


def check_chunk(logs: Sequence[tuple[str, RawLines]]) -> CheckedChunk:
    """Check a chunk of logs into their outcomes and Arrow rows (a worker's job): each log
    decoded, chain-checked and replayed (`_replay_log`), its values checked against their column
    types. The one check of a log: `index` (in process or in its workers) and `spark-index` both
    take it, and a log's outcome and rows are the same alone or in any chunk.

    The values are checked by the conversion to Arrow, the whole chunk at once; only when one
    does not fit is each log's rows checked alone (`_misfit`), so that the logs that do not fit
    are rejected (with the seq and column `_misfit` names) and the others kept.
    """
    batch = Columns(native=_NATIVE_ROWS)
    outcomes = [_replay_log(source, lines, batch) for source, lines in logs]
    try:
        tables = {table: _arrow_table(batch, table) for table in TABLES}
    except _MISFIT_ERRORS:
        batch.to_lists()
        outcomes, batch = _without_misfits(outcomes, batch)
        tables = arrow_tables(batch)
    return CheckedChunk(outcomes, tables)


#: logs per chunk sent to a worker: big enough that a chunk's work dwarfs sending it (64 cut the
#: Arrow conversions' fixed costs a little more, but an archive's chunk is held in memory: 16
#: logs of the 64 MiB a log may hold are the bound kept)
CHUNK_LOGS = 16


def _work(paths: Iterable[str | os.PathLike[str]], chunk_logs: int
          ) -> Iterator[list[tuple[str, RawLines]] | Rejected]:
    """Yield chunks of (name, lines) of the logs under `paths`, in order, and a `Rejected` for a
    path that cannot be read (after the logs read from it) or holds no log.

    Lines are sent unread where they come from a file (a worker opens it); an archive's logs are
    read here, as its members come.
    """
    for path in paths:
        found = False
        logs = iter_logs(path)
        try:
            for chunk in chunked(logs, chunk_logs, held_bytes, CHUNK_BYTES):
                found = True
                yield chunk
        except (OSError, ValueError) as exc:  # an unreadable folder or a damaged archive
            yield Rejected(str(path), _reason(exc, str(path)))
        else:
            if not found:
                yield Rejected(str(path), "no .jsonl logs found")


def _held(item: list[tuple[str, RawLines]] | Rejected) -> int:
    return 0 if isinstance(item, Rejected) else chunk_bytes(item)


def _first_name(item: list[tuple[str, RawLines]] | Rejected) -> str:
    return item.source if isinstance(item, Rejected) else first_name(item)


def _check_work(item: list[tuple[str, RawLines]] | Rejected) -> CheckedChunk | Rejected:
    if isinstance(item, Rejected):
        return item
    with collector_paused(held=_held(item)):  # many small objects, few cycles: see the pool
        return check_chunk(item)


class _Indexer:
    """One index run: the heads already stored, the rows waiting for the next flush, the report."""

    def __init__(self, con: duckdb.DuckDBPyConnection, replace: bool, batch_events: int,
                 strict: bool = False):
        self.con = con
        self.replace = replace
        self.strict = strict
        self.batch_events = batch_events
        self.batch: dict[str, list[pa.Table]] = {t: [] for t in TABLES}
        self.batched = 0
        self.report = IndexReport()
        self.stored: dict[str, tuple[str, str]] = {
            gid: (head, src)
            for gid, head, src in con.execute("SELECT game_id, head, source FROM games").fetchall()
        }
        self.this_run: set[str] = set()

    def take(self, chunk: CheckedChunk, on_game: Callable[[str, int], None] | None) -> None:
        """Store a checked chunk's accepted logs (or record why not), calling `on_game` per log."""
        # the rows of consecutive admitted logs are sliced as one run (usually the whole chunk):
        # every Arrow chunk costs DuckDB's insert a fixed setup, a slice per log many times it
        offsets = dict.fromkeys(TABLES, 0)
        starts: dict[str, int] | None = None  # where the current run of admitted logs began
        for outcome in chunk.outcomes:
            n = 0
            if isinstance(outcome, Rejected):
                self.report.rejected.append(outcome)
            else:
                if self.admit(outcome):
                    if starts is None:
                        starts = dict(offsets)
                    n = outcome.events
                    self.batched += n
                elif starts is not None:
                    self._keep(chunk, starts, offsets)
                    starts = None
                for table in TABLES:
                    offsets[table] += outcome.counts[table]
            if on_game is not None:
                on_game(outcome.source, n)
        if starts is not None:
            self._keep(chunk, starts, offsets)
        if self.batched >= self.batch_events:
            self.flush()

    def _keep(self, chunk: CheckedChunk, starts: dict[str, int], ends: dict[str, int]) -> None:
        """Batch the chunk's rows from `starts` to `ends` (a run of admitted logs), per table."""
        for table in TABLES:
            start = starts[table]
            self.batch[table].append(chunk.tables[table].slice(start, ends[table] - start))

    def admit(self, log: Checked) -> bool:
        """Return whether the log's rows are to be stored, counting it in the report either way."""
        report = self.report
        failing = log.failing
        if failing and self.strict:
            report.rejected.append(Rejected(
                log.source, f"fails the audit ({', '.join(failing)}; `buraco audit` says where):"
                " --strict stores only games that pass", cast(RejectKind, failing[0])))
            return False
        old = self.stored.get(log.game_id)
        if old is not None:
            old_head, old_source = old
            if old_head == log.head:
                report.skipped += 1
                return False
            if not self.replace or log.game_id in self.this_run:
                # two logs of one game in one run: neither is obviously the right one
                report.conflicts.append(
                    Conflict(log.game_id, log.source, old_head, log.head, old_source))
                return False
            for table in TABLES:
                self.con.execute(f"DELETE FROM {table} WHERE game_id = ?", [log.game_id])
            report.replaced += 1
        else:
            report.added += 1
        self.stored[log.game_id] = (log.head, log.source)
        self.this_run.add(log.game_id)
        report.events += log.events
        report.failing += bool(failing)
        return True

    def flush(self) -> None:
        """Insert the waiting rows, one Arrow table per table."""
        for table in TABLES:
            if self.batch[table]:
                # the chunks as they are: DuckDB 2.0 inserts a table of many chunks about as fast
                # as one, and joining them first copied every value again
                rows = pa.concat_tables(self.batch[table])
                if rows.num_rows:
                    self.con.from_arrow(rows).insert_into(table)
        self.batch = {t: [] for t in TABLES}
        self.batched = 0


#: connect settings of the index's connection: DuckDB inserts and checkpoints on one thread (its
#: threads there cost about a fifth more CPU for the same work, and the workers, when there are
#: some, use the other cores); the commit checkpoints at once (a threshold of 0 bytes) rather than
#: write the run's rows to the write-ahead log that closing then checkpoints anyway
_INDEX_CONFIG: dict[str, Any] = {"threads": 1, "checkpoint_threshold": "0b"}


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    with contextlib.suppress(duckdb.Error):  # a connection DuckDB already invalidated
        con.rollback()


def index(
    paths: Iterable[str | os.PathLike[str]],
    db: str | os.PathLike[str] = DEFAULT_DB,
    replace: bool = False,
    on_game: Callable[[str, int], None] | None = None,
    batch_events: int = 250_000,
    workers: int = 1,
    chunk_logs: int = CHUNK_LOGS,
    strict: bool = False,
) -> IndexReport:
    """Index every log under `paths` into `db` in one transaction; see the module docstring.

    Each game is stored with the audit's verdict (`games.audit_ok`, `games.audit_problems`);
    with `strict`, a game that fails the audit is rejected instead (its kind the first of its
    failing kinds).

    `workers` processes check and replay the logs, `chunk_logs` at a time; this process alone
    writes the database, taking the chunks in order, so the database is the same whatever
    `workers` is.
    """
    path = Path(db)
    # a new database is built under another name and takes its own once committed: an index
    # stopped while creating it (killed, a full disk) leaves no half-made database at `db`
    creating = not path.exists()
    target = _creating_path(path) if creating else path
    _clear_stale(_creating_path(path), path)
    con = connect(target, config=_INDEX_CONFIG)
    committed = False
    try:
        con.begin()
        ensure_schema(con)
        # with workers, small batches: this process inserts while the workers replay the next
        # chunks, rather than all at the end (the rows and their order are the same)
        run = _Indexer(con, replace, batch_events if workers <= 1 else batch_events // 8, strict)
        for done in ordered_map(_check_work, _work(paths, chunk_logs), workers, weight=_held,
                                budget=CHUNK_BYTES, name=_first_name):
            if isinstance(done, Rejected):  # a path, not a log: no game to count
                run.report.rejected.append(done)
            else:
                run.take(done, on_game)
        run.flush()
        con.commit()
        committed = True
    except duckdb.Error as exc:  # e.g. a database written by another schema, a full disk
        _rollback(con)
        raise AnalyticsError(f"{db}: {_one_line(exc)} (nothing was indexed)") from None
    except (WorkerError, MemoryError) as exc:  # a worker's names the chunk's first log
        _rollback(con)
        why = str(exc) if isinstance(exc, WorkerError) else "out of memory reading the logs"
        raise InputUnreadable(f"{why} (nothing was indexed; fewer --workers or lower limits "
                              "need less memory)") from None
    except BaseException:
        _rollback(con)
        raise
    finally:
        con.close()
        if creating and not committed:
            _remove(target)
    if creating:
        _publish(target, path)
    return run.report


def _creating_path(db: Path) -> Path:
    """Return where `index` builds the new database `db` until it is committed."""
    return db.with_name(db.name + ".creating")


def _remove(target: Path) -> None:
    """Remove a database being created, and its write-ahead log, if there."""
    for f in (target, target.with_name(target.name + ".wal")):
        with contextlib.suppress(FileNotFoundError):
            f.unlink()


def _clear_stale(target: Path, db: Path) -> None:
    """Remove what a killed creation of `db` left at `target`: a second name of `db` itself
    (killed while `_publish` renamed it), or a file that is not even a DuckDB file (killed before
    DuckDB wrote its header). Another DuckDB file there is reopened when `db` is created: it holds
    nothing uncommitted, and its committed games, if the kill came after the commit, are kept."""
    try:
        with target.open("rb") as f:
            head = f.read(_MAGIC_AT + len(_MAGIC))
        same = db.exists() and os.path.samefile(target, db)
    except OSError:
        return
    if same or head[_MAGIC_AT:] != _MAGIC:
        _remove(target)


def _publish(target: Path, db: Path) -> None:
    """Give the committed new database `target` the name `db`, never over a file that another
    program put at `db` meanwhile."""
    try:
        os.link(target, db)
    except FileExistsError:
        raise AnalyticsError(
            f"{db}: another program created this file while the index ran; the indexed games "
            f"are in {target}") from None
    except OSError:  # a file system without hard links: rename (which would replace)
        try:
            os.rename(target, db)
        except OSError as exc:
            raise AnalyticsError(
                f"{db}: cannot give the new database its name ({exc.strerror}); the indexed "
                f"games are in {target}") from None
        return
    target.unlink()


# -- querying ----------------------------------------------------------------------------------

#: the views `stats` shows, in order
STATS_VIEWS: tuple[str, ...] = (
    "canasta_rates", "penalty_rates", "closing_rates", "hand_lengths", "win_rates",
    "score_quantiles",
)


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
        raise AccessRefused(_one_line(exc)) from None
    except duckdb.Error as exc:
        raise AnalyticsError(_one_line(exc)) from None
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
    """Return every analytics view (optionally for one variant or its alias), read-only, all
    within `limits` (one time limit for the whole); with `passed_only`, of the games that pass
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
            return {view: view_rows(con, view, name, until, passed_only) for view in STATS_VIEWS}
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


def _label(text: str) -> str:
    """Return a variant name as a chart label: control characters visible, `$` not mathtext."""
    return visible(text).replace("$", r"\$")


def plot_formats() -> list[str]:
    """Return the file extensions a chart can be written as (png, svg, pdf, ...), sorted."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    return sorted(FigureCanvasAgg.get_supported_filetypes())


def plot_stats(results: dict[str, Result], path: str | os.PathLike[str]) -> None:
    """Write a chart (its format from the file's extension, see `plot_formats`): canasta rates by
    kind per variant, and score distributions per variant."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    rates = results["canasta_rates"].records()
    variants = sorted({r["variant"] for r in rates})
    labels = [_label(v) for v in variants]
    width = 0.8 / max(len(CANASTA_KINDS), 1)
    for k, kind in enumerate(CANASTA_KINDS):
        per = {r["variant"]: r["per_hand"] for r in rates if r["kind"] == kind}
        xs = [i + k * width for i in range(len(variants))]
        ax1.bar(xs, [per.get(v, 0.0) for v in variants], width, label=kind)
    ax1.set_xticks([i + 0.4 - width / 2 for i in range(len(variants))], labels, rotation=30)
    ax1.set_ylabel("canastas per hand")
    ax1.set_title("canasta rates by kind")
    ax1.legend()
    boxes = [
        {"label": f"{_label(r['variant'])}\n{r['measure'].replace('_total', '')}", "whislo": r["p10"],
         "q1": r["p25"], "med": r["p50"], "q3": r["p75"], "whishi": r["p90"], "fliers": []}
        for r in results["score_quantiles"].records()
    ]
    if boxes:
        ax2.bxp(boxes, showfliers=False)
        ax2.tick_params(axis="x", labelrotation=30)
    ax2.set_ylabel("points (whiskers p10-p90)")
    ax2.set_title("score distribution")
    fig.tight_layout()
    # the format named, not guessed: savefig would add its default extension to a bare name
    fig.savefig(path, dpi=100, format=Path(path).suffix.lstrip(".").lower())
    plt.close(fig)


def export_parquet(db: str | os.PathLike[str], out_dir: str | os.PathLike[str]) -> dict[str, int]:
    """Write every table as zstd Parquet partitioned by variant (hive style); return row counts.

    Each table goes to `out_dir/<table>/variant=<v>/`, replacing that table's folder (OVERWRITE:
    COPY refuses a non-empty folder otherwise, and appending would duplicate rows).
    """
    con = connect(db, read_only=True)
    counts: dict[str, int] = {}
    try:
        _check_tables(con, Path(db))
        for table in TABLES:
            select = (
                "SELECT * FROM games" if table == "games"
                else f"SELECT t.*, g.variant FROM {table} t JOIN games g USING (game_id)"
            )
            target = Path(out_dir) / table
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                con.execute(
                    f"COPY ({select}) TO '{_sql_string(target)}' (FORMAT parquet, "
                    "COMPRESSION zstd, PARTITION_BY (variant), OVERWRITE)"
                )
            except duckdb.Error as exc:
                raise AnalyticsError(f"export of {table}: {_one_line(exc)}") from None
            counts[table] = run_query(con, f"SELECT count(*) FROM {table}").rows[0][0]
    finally:
        con.close()
    return counts


def _sql_string(text: str | os.PathLike[str]) -> str:
    return os.fspath(text).replace("'", "''")
