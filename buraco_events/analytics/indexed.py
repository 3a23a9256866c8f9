"""An index's logs as a source: the logs the `games` table of a `buraco index` database points at.

A batch command given `INDEX.duckdb` among its paths reads, for each game the index holds, the
log its `source` names (a file or `ARCHIVE.bza/NAME`, as `log.sources.iter_logs` reads them). A
source written relative to where `buraco index` ran is looked for from the working folder, then
from the index's folder. A log that is no longer there is the caller's to report, one line each:
`indexed_logs` yields it with `None` for its path.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import duckdb

from .database import DatabaseUnavailable, check_tables, connect, is_database_file, one_line


def is_index(path: str | os.PathLike[str]) -> bool:
    """Return whether `path` is a DuckDB database file (an index, when it holds the games
    tables: `indexed_logs` checks that)."""
    p = Path(path)
    try:
        return p.is_file() and is_database_file(p)
    except OSError:
        return False


def _present(path: Path) -> bool:
    """Return whether a log's path is there: a file, or a member of an archive that is."""
    return path.exists() or any(parent.is_file() for parent in path.parents)


def _locate(source: str, db: Path) -> Path | None:
    """Return where an indexed log's `source` is now, or None when it is gone."""
    path = Path(source)
    bases = [Path()] if path.is_absolute() else [Path(), db.parent]
    return next((base / path for base in bases if _present(base / path)), None)


def indexed_logs(db: str | os.PathLike[str]) -> Iterator[tuple[str, str, Path | None]]:
    """Yield (game id, source as indexed, its path now or None when it is gone) for each game of
    the index `db`, by source. Raises `DatabaseUnavailable` (one line) for a database that cannot
    be opened or holds no games tables."""
    path = Path(db)
    con = connect(path, read_only=True)
    try:
        check_tables(con, path)
        rows = con.execute("SELECT game_id, source FROM games ORDER BY source, game_id").fetchall()
    except duckdb.Error as exc:
        raise DatabaseUnavailable(f"{path}: cannot read its games: {one_line(exc)}") from None
    finally:
        con.close()
    for game_id, source in rows:
        yield str(game_id), str(source), _locate(str(source), path)


__all__ = ["indexed_logs", "is_index"]
