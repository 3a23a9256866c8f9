"""The index's rows as Arrow: each table's rows (`rows.Columns`) converted to its Arrow table
(`SCHEMAS`), the events rows held natively taken as they are, a table as one IPC stream, and
which value of a log's rows does not fit its column's type (`first_misfit`).

Its own module because it changes with pyarrow, the column types and how rows are held, not with
how logs are checked or the database written (`ingest`); `spark` sends its chunks' rows the same
way.
"""

from __future__ import annotations

import functools
import importlib.abc
import sys
from typing import Any, cast

import pyarrow as pa

from buraco_events.util.text import visible

from .database import ARROW_TYPES, SCHEMAS, AnalyticsError, one_line
from .rows import CARD_NAMES, EVENT_TAG_NAMES, Columns, EventBuffers
from .schema import TABLES, TYPES, int_range, is_list_type

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
    for name, word in TABLES[table].columns:
        bounds = int_range(word)
        if bounds is not None:
            out.append((name, is_list_type(word), *bounds))
    return out


#: the integer columns of each table, events first (its rows name their seq)
_INT_COLUMNS: dict[str, list[tuple[str, bool, int, int]]] = {
    t: _int_columns(t) for t in ("events", *(t for t in TABLES if t != "events"))
}


def first_misfit(rows: Columns) -> tuple[int | None, str] | None:
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
                ddl = TYPES[TABLES[table].type_of(name)]
                return seq, (f"{where}{table}.{name}: {_number(value)} is out of range for {ddl} "
                             f"({lo} to {hi})")
    for table in ("games", "branches"):  # their text names the file (may not be UTF-8)
        cols = rows.data[table]
        for name, word in TABLES[table].columns:
            if word in ("text", "text[]"):
                text = _first_not_utf8(cols[name])
                if text is not None:
                    seq = 0 if table == "games" and name in _STARTED_COLUMNS else None
                    where = "seq 0: " if seq is not None else ""
                    return seq, f"{where}{table}.{name}: {visible(text)!r} is not valid UTF-8 text"
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
    if "hand" not in cols:  # a branch's row: its whole log stands behind it
        return None
    # hands, melds and team_hands rows are written at their hand's hand_ended
    hand = cols["hand"][row]
    for seq, kind, h in zip(events["seq"], events["type"], events["hand"], strict=True):
        if kind == "hand_ended" and h == hand:
            return int(seq)
    return None


#: what converting a value that does not fit its column's type raises
MISFIT_ERRORS = (pa.ArrowException, OverflowError, UnicodeError)


def arrow_table(columns: Columns, table: str) -> pa.Table:
    """Return one table's rows as Arrow (`SCHEMAS`); raises one of `MISFIT_ERRORS` where a
    value does not fit its column's type."""
    if table == "events" and columns.native is not None:
        return native_events(columns.native)
    return pa.Table.from_pydict(columns.data[table], schema=SCHEMAS[table])


#: the Arrow type of the native events rows' `cards` column
_LIST = ARROW_TYPES["text[]"]


def skip_pandas_probe() -> None:
    """Spare this process pyarrow's import of pandas, where pandas is installed (about 0.16 s of
    each `buraco index`; the spark extra brings pandas, the base install does not).

    The first time pyarrow converts Python values it imports pandas, only to ask whether they
    are pandas objects; the index hands it lists, never pandas objects. With pandas unimportable
    during that first conversion, pyarrow takes it as absent for that question from then on in
    this process; anything that asks pyarrow for a pandas object still gets pandas imported.
    For a process of its own (the command), not for a library's caller.
    """
    if "pandas" in sys.modules:  # imported already: nothing to spare
        return
    sys.meta_path.insert(0, _NoPandas)
    try:
        pa.array([0], pa.int8())
    finally:
        sys.meta_path.remove(_NoPandas)


class _NoPandas(importlib.abc.MetaPathFinder):
    """An import finder that finds pandas unimportable (`skip_pandas_probe`)."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"{name} is not imported here", name=name)


@functools.cache
def _names() -> tuple[pa.Array, pa.Array]:
    """Return the strings behind the native events rows' codes (`rows.EventBuffers`): the event
    types' and the cards'. Built on first use, not at import: pyarrow's first conversion of
    Python values may import pandas (`skip_pandas_probe`)."""
    return pa.array(EVENT_TAG_NAMES, pa.string()), pa.array(CARD_NAMES, pa.string())


_NO_BYTES = pa.py_buffer(b"")


def _buffer(values: Any) -> pa.Buffer:
    """Return a vector's memory as an Arrow buffer (an empty vector has no pointer to give)."""
    return pa.py_buffer(values) if len(values) else _NO_BYTES


def _validity(ok: Any, n: int) -> pa.Buffer:
    """Return Arrow's validity bitmap of a vector of 1 (a value) and 0 (null)."""
    flags = pa.Array.from_buffers(pa.uint8(), n, [None, _buffer(ok)])
    return flags.cast(pa.bool_()).buffers()[1]


def native_events(buf: EventBuffers) -> pa.Table:
    """Return the events rows held natively as their Arrow table: each column a view of its
    vector (validity bitmaps and the string columns, taken from their codes, built by Arrow)."""
    n = len(buf)
    schema = SCHEMAS["events"]

    def ints(name: str, data: Any, ok: pa.Buffer | None = None) -> pa.Array:
        return pa.Array.from_buffers(schema.field(name).type, n, [ok, _buffer(data)])

    def codes(data: Any, rows: int, ok: pa.Buffer | None = None) -> pa.Array:
        return pa.Array.from_buffers(pa.uint8(), rows, [ok, _buffer(data)])

    tag_names, card_names = _names()
    player_ok = _validity(buf.player_ok, n)
    cards_ok = _validity(buf.cards_ok, n)
    card_codes = codes(buf.card_codes, len(buf.card_codes))
    cards = pa.Array.from_buffers(_LIST, n, [cards_ok, _buffer(buf.cards_end)],
                                  children=[card_names.take(card_codes)])
    game = pa.Array.from_buffers(pa.int32(), n, [None, _buffer(buf.game)])
    return pa.Table.from_arrays([
        pa.array(buf.game_ids, pa.string()).take(game),
        ints("seq", buf.seq),
        ints("hand", buf.hand, _validity(buf.hand_ok, n)),
        ints("turn", buf.turn, _validity(buf.turn_ok, n)),
        tag_names.take(codes(buf.type, n)),
        ints("player", buf.player, player_ok),
        ints("team", buf.team, player_ok),
        cards,
        card_names.take(codes(buf.card, n, _validity(buf.card_ok, n))),
        ints("meld", buf.meld, _validity(buf.meld_ok, n)),
        ints("dead", buf.dead, _validity(buf.dead_ok, n)),
        cards.value_lengths().cast(schema.field("n_cards").type),  # fits: see `add`
        pa.array(buf.at, pa.string()),
        pa.array(buf.note, pa.string()),
    ], schema=schema)


def arrow_tables(columns: Columns) -> dict[str, pa.Table]:
    """Return the rows as one Arrow table per table (`SCHEMAS`)."""
    tables = {}
    for table in TABLES:
        try:
            tables[table] = arrow_table(columns, table)
        except MISFIT_ERRORS as exc:
            # `ingest` checks the values first (`first_misfit`); should one pass: one line
            raise AnalyticsError(
                f"{table}: a value does not fit: {one_line(exc)} (nothing was indexed)"
            ) from None
    return tables


def ipc_stream(table: pa.Table) -> bytes:
    """Return a table as one Arrow IPC stream (its schema, then its batches)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return cast(bytes, sink.getvalue().to_pybytes())
