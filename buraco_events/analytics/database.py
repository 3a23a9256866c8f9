"""The index's DuckDB database: its tables' Arrow schemas, opening a database file, creating its
tables and views, building a new database file under another name and giving it its own once
committed, and the errors every step on it raises.

Its own module because both halves of the analytics stand on it: `ingest` writes a database,
`queries` reads one (or a Parquet export of it), and neither imports the other. The columns are
declared once, in `schema`; the Arrow and DuckDB types here are read from that declaration.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from .schema import TABLES, TOURNAMENT_TABLES, TYPES
from .sqlviews import VIEWS

DEFAULT_DB = "buraco.duckdb"

#: the Arrow type of each type word of the declaration (`schema.TYPES`)
ARROW_TYPES: dict[str, pa.DataType] = {
    "text": pa.string(), "bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(),
    "int32": pa.int32(), "float64": pa.float64(), "text[]": pa.list_(pa.string()), "int32[]": pa.list_(pa.int32()),
}
#: Arrow type of every column, from the declaration (`schema.TABLES`)
SCHEMAS: dict[str, pa.Schema] = {
    table: pa.schema([(name, ARROW_TYPES[word]) for name, word in declared.columns])
    for table, declared in TABLES.items()
}
#: the same for the tournaments' tables (`schema.TOURNAMENT_TABLES`), whose rows are no game's
TOURNAMENT_SCHEMAS: dict[str, pa.Schema] = {
    table: pa.schema([(name, ARROW_TYPES[word]) for name, word in declared.columns])
    for table, declared in TOURNAMENT_TABLES.items()
}


class AnalyticsError(Exception):
    """A one-line failure the CLI prints as is (exit 1)."""


class DatabaseUnavailable(AnalyticsError):
    """The database file is missing or locked by another process (exit 2)."""


def one_line(exc: BaseException) -> str:
    """Return an error's text on one line (the CLI prints it as is)."""
    return " ".join(str(exc).split())


def sql_string(text: str | os.PathLike[str]) -> str:
    """Return text (a path) as the inside of a SQL string literal: each quote doubled."""
    return os.fspath(text).replace("'", "''")


#: where every DuckDB database file says what it is (the bytes before it are a checksum)
_MAGIC, _MAGIC_AT = b"DUCK", 8


def _has_magic(path: Path) -> bool:
    """Return whether the file `path` starts as a DuckDB database file does (raises `OSError`)."""
    with path.open("rb") as f:
        head = f.read(_MAGIC_AT + len(_MAGIC))
    return head[_MAGIC_AT:] == _MAGIC


def is_database_file(path: Path) -> bool:
    """Return whether the file `path` is a DuckDB database file (raises `OSError`)."""
    return _has_magic(path)


def _check_header(path: Path) -> None:
    """Raise `DatabaseUnavailable` unless the existing `path` is a DuckDB database file.

    DuckDB opens some other files (JSON, CSV) as an in-memory database and saves nothing into
    them: indexing into one would report games added and keep none.
    """
    if path.is_dir():
        raise DatabaseUnavailable(f"{path} is a folder, not a DuckDB database")
    try:
        duckdb_file = _has_magic(path)
    except OSError as exc:
        raise DatabaseUnavailable(f"cannot read {path}: {exc.strerror}") from None
    if not duckdb_file:
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
        raise DatabaseUnavailable(f"cannot open {path}: {one_line(exc)}") from None
    except duckdb.Error as exc:
        raise DatabaseUnavailable(f"cannot open {path}: {one_line(exc)}") from None


def check_tables(con: duckdb.DuckDBPyConnection, path: Path) -> None:
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


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create the tables (when missing) and (re)create the analytics views."""
    for table, declared in {**TABLES, **TOURNAMENT_TABLES}.items():
        cols = ", ".join(f'"{name}" {TYPES[word]}' for name, word in declared.columns)
        con.execute(f"CREATE TABLE IF NOT EXISTS {table} ({cols})")
        # a database indexed before a column existed gains it, NULL in the rows it holds (for
        # the verdict: not judged, which `counted_games` never takes for a pass)
        for name, word in declared.columns:
            con.execute(f'ALTER TABLE {table} ADD COLUMN IF NOT EXISTS "{name}" {TYPES[word]}')
        con.execute(f"COMMENT ON TABLE {table} IS '{sql_string(declared.about)}'")
    for name, view in VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {view.sql}")
        con.execute(f"COMMENT ON VIEW {name} IS '{sql_string(view.about)}'")


def creating_path(db: Path) -> Path:
    """Return where `ingest.index` builds the new database `db` until it is committed."""
    return db.with_name(db.name + ".creating")


def discard(target: Path) -> None:
    """Remove a database being created, and its write-ahead log, if there."""
    for f in (target, target.with_name(target.name + ".wal")):
        with contextlib.suppress(FileNotFoundError):
            f.unlink()


def clear_stale(target: Path, db: Path) -> None:
    """Remove what a killed creation of `db` left at `target`: a second name of `db` itself
    (killed while `publish` renamed it), or a file that is not even a DuckDB file (killed before
    DuckDB wrote its header). Another DuckDB file there is reopened when `db` is created: it holds
    nothing uncommitted, and its committed games, if the kill came after the commit, are kept."""
    try:
        duckdb_file = _has_magic(target)
        same = db.exists() and os.path.samefile(target, db)
    except OSError:
        return
    if same or not duckdb_file:
        discard(target)


def publish(target: Path, db: Path) -> None:
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
