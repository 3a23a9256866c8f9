"""The tournaments' tables filled from rows (`schema.TOURNAMENT_TABLES`): each tournament's rows
replace the ones stored for its id, in one transaction. The rows come from the tournament logs
(`tournament.rows`, read by `buraco index` beside the games); this module knows only the tables.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import duckdb
import pyarrow as pa

from .database import TOURNAMENT_SCHEMAS, AnalyticsError, connect, ensure_schema, one_line
from .schema import TOURNAMENT_TABLES

#: one tournament's rows, by table
TournamentRows = Mapping[str, Sequence[Mapping[str, Any]]]


def store_tournaments(db: str | os.PathLike[str], tournaments: Iterable[TournamentRows]) -> int:
    """Replace the stored rows of each tournament (by its `tournament_id`); return how many."""
    con = connect(db)
    stored = 0
    try:
        con.begin()
        ensure_schema(con)
        for rows in tournaments:
            (tid,) = {row["tournament_id"] for row in rows["tournaments"]}
            for table in TOURNAMENT_TABLES:
                con.execute(f"DELETE FROM {table} WHERE tournament_id = ?", [tid])
                data = pa.Table.from_pylist(list(rows.get(table, [])), schema=TOURNAMENT_SCHEMAS[table])
                if data.num_rows:
                    con.from_arrow(data).insert_into(table)
            stored += 1
        con.commit()
    except (duckdb.Error, pa.ArrowException) as exc:
        raise AnalyticsError(f"{db}: the tournaments were not stored: {one_line(exc)}") from None
    finally:
        con.close()
    return stored
