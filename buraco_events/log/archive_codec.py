"""The compact record encoding of an archive's lines: events as `[type code, field values...]`.

Each line of a log is stored as either
- a compact record `[type code, field values...]`, when encoding its decoded event again (seq =
  the line index, prev = the previous line's hash, or absent if the log has none) gives back the
  exact line: cards become 1-byte codes, seq and prev are dropped, and the redundancy
  docs/log-format.md asks readers to check (`drew.card` is the stock's top, `took_pile.cards`
  the pile, `took_dead.cards` that dead) is dropped where it holds; or
- its bytes verbatim: another program's spacing or key order, unknown fields, a broken chain,
  a bad line. A torn last line is kept verbatim too.
Pack proves each record by restoring its line from the record's msgpack form (`log_blob`), and
`restore` turns a stored log's records back into its lines within a budget.

Its own module because it changes with the events (their fields, what they imply), while the
framing (`archive_format`), reading (`archive_read`) and packing (`archive`) do not.
"""

from __future__ import annotations

import calendar
import re
import time
import typing
from typing import Any, Final

import msgspec

from buraco_events.core.cards import CODE_CARD
from buraco_events.model.events import (
    TAGS,
    ZERO_HASH,
    Cards,
    CardStr,
    Discarded,
    Drew,
    Event,
    EventFormatError,
    HandStarted,
    StockRefilled,
    TookDead,
    TookPile,
    decode_event,
    encode_event,
    event_type,
    line_hash,
)

from .archive_format import LINE_COST, LOG, Damage, KiB, log_cost, log_digest, over_limit

_IMPLIED = {"drew": "card", "took_pile": "cards", "took_dead": "cards"}
_RECORD_MAX = 64 * KiB  # a compact record is never larger (pack keeps such a line verbatim)
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder()
#: decoders of a msgpack array kept raw, and of a bytes field: the records' and the reader's
RAW_LIST: Final = msgspec.msgpack.Decoder(list[msgspec.Raw])
BYTES: Final = msgspec.msgpack.Decoder(bytes)


def _kind(name: str, hint: Any) -> str:
    if hint == CardStr:
        return "card"
    if hint == Cards:
        return "cards"
    if hint == tuple[Cards, ...]:
        return "hands"
    return "time" if name == "at" else "value"


def header_tables() -> dict[str, Any]:
    """Return this version's tables: card codes and, per event type, its fields in record order."""
    base = Event.__struct_fields__
    types = []
    for tag, cls in TAGS.items():
        hints = typing.get_type_hints(cls, include_extras=True)
        names = [f for f in cls.__struct_fields__ if f not in base]
        names += [f for f in base if f not in ("seq", "prev")]  # optional `at` last: trimmed
        types.append([tag, [[n, _kind(n, hints[n])] for n in names]])
    return {"cards": list(CODE_CARD), "types": types}


_TICK: tuple[int, ...] = tuple(10 ** (9 - d) for d in range(10))  # ns per tick, by fraction digits
_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?Z"
)


def _parse_time(text: str) -> tuple[int, int] | None:
    """Return (ns since the epoch, digits of the fraction) of an RFC 3339 UTC time, if usual."""
    m = _TIME.fullmatch(text)
    if m is None:
        return None
    *fields, fraction = m.groups()
    try:
        seconds = calendar.timegm(tuple(map(int, fields)))
    except ValueError:  # year 0, month 13...
        return None
    fraction = fraction or ""
    return seconds * 10**9 + int(fraction.ljust(9, "0")), len(fraction)


def _time_text(ns: int, digits: int) -> str:
    """Return the RFC 3339 UTC form of `ns` since the epoch, with `digits` of fraction."""
    seconds, sub = divmod(ns, 10**9)
    t = time.gmtime(seconds)
    text = f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"
    return text + ("." + f"{sub:09d}"[:digits] if digits else "") + "Z"


class _State:
    """What earlier records tell: stock, deads and pile (for the implied fields) and the time.

    The cards move as the engine moves them (`state.GameState`: the deal, draws, discards, takes,
    refills), with three differences, each kept on purpose:

    - It follows any line, legal or not. An archive stores every log, illegal ones too, and only
      predicts fields: a prediction that misses keeps the field stored (pack proves each record by
      restoring its line). The engine's apply assumes an event its check passed (it pops the
      stock's top, asserts a dead is there), and checking each line would cost far more than this.
    - It is part of the archive format (`FORMAT` 1): the reader must imply exactly what pack
      implied, or archives already written would restore other lines and fail their digests. So
      it keeps its refill rule: the refilling dead becomes the stock. The engine's differs when
      cards are left in the stock at a refill (refill "all", from the second dead on: the dead goes
      below the cards there, as the engine applies `stock_refilled`); the `drew`s that follow keep
      their card (one byte each) instead of implying it.
    - It is cheap per event: the stock as `hand_started` lists it (top first) with the index of
      its top, not the engine's reversed list, and no deck or stock-size rule (a log whose stock has
      the wrong size is stored like any other; the card table is `cards.CODE_CARD`).
    """

    __slots__ = ("clock", "deads", "pile", "stock", "top")

    def __init__(self) -> None:
        self.stock: tuple[str, ...] = ()
        self.top = 0
        self.deads: list[tuple[str, ...]] = []
        self.pile: list[str] = []
        self.clock = 0

    def implied(self, tag: str, fields: dict[str, Any]) -> Any:
        """Return what docs/log-format.md says this event's implied field holds (None: unknown)."""
        if tag == "drew":
            return self.stock[self.top] if self.top < len(self.stock) else None
        if tag == "took_pile":
            return tuple(self.pile)
        dead = fields.get("dead")
        if isinstance(dead, int) and 0 <= dead < len(self.deads):
            return self.deads[dead]
        return None

    def time_code(self, text: str) -> int | str:
        """Return a time as `10 * (ticks since the last time) + fraction digits`, or as is."""
        parsed = _parse_time(text)
        if parsed is None:
            return text
        ns, digits = parsed
        ticks, rest = divmod(ns - self.clock, _TICK[digits])
        try:
            if rest or _time_text(ns, digits) != text:
                return text
        except (OverflowError, OSError, ValueError):
            return text
        return ticks * 10 + digits

    def time_text(self, code: int) -> str:
        """Return the time of a `time_code`."""
        ticks, digits = divmod(code, 10)
        return _time_text(self.clock + ticks * _TICK[digits], digits)

    def apply(self, event: Event) -> None:
        """Move the cards an event moves between stock, deads and pile; note its time."""
        if event.at is not None:
            parsed = _parse_time(event.at)
            if parsed is not None:
                self.clock = parsed[0]
        if isinstance(event, HandStarted):
            self.stock, self.top = event.stock, 0
            self.deads, self.pile = list(event.deads), list(event.discard)
        elif isinstance(event, Drew):
            self.top += 1
        elif isinstance(event, Discarded):
            self.pile.append(event.card)
        elif isinstance(event, TookPile):
            self.pile = []
        elif isinstance(event, TookDead | StockRefilled) and 0 <= event.dead < len(self.deads):
            if isinstance(event, StockRefilled):
                self.stock, self.top = self.deads[event.dead], 0
            self.deads[event.dead] = ()


class Codec:
    """Turns events into compact records and back, by one archive's tables."""

    def __init__(self, header: dict[str, Any]) -> None:
        cards = header["cards"]
        self.code_card: tuple[str, ...] = tuple(cards)
        self.card_code = {c: i for i, c in enumerate(cards)}
        self.types: list[tuple[str, type[Event] | None, list[tuple[str, str]]]] = [
            (tag, TAGS.get(tag), [(n, k) for n, k in layout]) for tag, layout in header["types"]
        ]
        self.code_of = {tag: code for code, (tag, _, _) in enumerate(self.types)}

    def record(self, event: Event, state: _State) -> list[Any]:
        """Return the compact record of an event, before `state` applies it."""
        tag = event_type(event)
        code = self.code_of[tag]
        layout = self.types[code][2]
        fields = {name: getattr(event, name) for name, _ in layout}
        implied = _IMPLIED.get(tag)
        rec: list[Any] = [code]
        code_of_card = self.card_code.__getitem__
        for name, kind in layout:
            v = fields[name]
            if v is None or (name == implied and v == state.implied(tag, fields)):
                v = None
            elif kind == "card":
                v = code_of_card(v)
            elif kind == "cards":
                v = bytes(map(code_of_card, v))
            elif kind == "hands":
                v = [bytes(map(code_of_card, group)) for group in v]
            elif kind == "time":
                v = state.time_code(v)
            rec.append(v)
        while rec[-1] is None:
            rec.pop()
        return rec

    def event(self, rec: list[Any], seq: int, prev: str | None, state: _State) -> Event:
        """Return the event of a compact record at `seq`, with `prev` (or none)."""
        tag, cls, layout = self.types[rec[0]]
        if cls is None:
            raise Damage(f"event type {tag!r} is unknown to this version")
        if len(rec) > len(layout) + 1:
            raise Damage(f"corrupt (a {tag} record has {len(rec) - 1} fields, at most {len(layout)})")
        card = self.code_card.__getitem__
        fields: dict[str, Any] = {}
        for i, (name, kind) in enumerate(layout, 1):
            v = rec[i] if i < len(rec) else None
            if v is not None:
                if kind == "card":
                    v = card(v)
                elif kind == "cards":
                    v = tuple(map(card, v))
                elif kind == "hands":
                    v = tuple(tuple(map(card, group)) for group in v)
                elif kind == "time" and isinstance(v, int):
                    v = state.time_text(v)
            fields[name] = v
        implied = _IMPLIED.get(tag)
        if implied and fields[implied] is None:
            fields[implied] = state.implied(tag, fields)
        event: Event = cls(seq=seq, prev=prev, **fields)
        return event


def _compact_records(codec: Codec, lines: list[bytes]) -> tuple[bool, list[Any]]:
    """Return whether the log is chained and, per line, its compact record or the line itself.

    A record is used only if, after a msgpack round trip, it restores the exact line.
    """
    state = _State()
    records: list[Any] = []
    chained = False
    prev = ZERO_HASH
    for i, line in enumerate(lines):
        try:
            event = decode_event(line)
        except EventFormatError:
            event = None
        if i == 0:
            chained = event is not None and event.prev is not None
        record: Any = line
        if event is not None and event.seq == i and event.prev == (prev if chained else None):
            try:
                packed = _encoder.encode(codec.record(event, state))
            except OverflowError:  # an int msgpack cannot hold (JSON can)
                packed = b""
            # a record over _RECORD_MAX would be refused on reading: such a line stays verbatim
            rec = _decoder.decode(packed) if 0 < len(packed) <= _RECORD_MAX else None
            if rec is not None:
                back = codec.event(rec, i, event.prev, state)
                if encode_event(back) == line:
                    state.apply(back)
                    record = rec
        records.append(record)
        if chained:
            prev = line_hash(line)
    return chained, records


def _array_len(raw: msgspec.Raw) -> int | None:
    """Return the length of the msgpack array `raw` holds, read from its header (None: no array)."""
    view = memoryview(raw)[:5]
    if view and 0x90 <= view[0] <= 0x9F:
        return view[0] & 0x0F
    head = bytes(view)
    if head[:1] == b"\xdc" and len(head) >= 3:
        return int.from_bytes(head[1:3], "big")
    if head[:1] == b"\xdd" and len(head) == 5:
        return int.from_bytes(head[1:5], "big")
    return None


def restore_lines(
    codec: Codec, chained: bool, records: msgspec.Raw, tail: bytes, budget: int
) -> tuple[list[bytes], int]:
    """Return the lines of a log's records and their cost; `Damage` past `budget` or on bad data.

    The records stay raw until each is restored, so a hostile log costs at most what its lines
    count: its record count is checked against the budget before any is decoded.
    """
    count = _array_len(records)
    if count is None:
        raise Damage("corrupt (its records are not a list)")
    cost = log_cost((), tail)
    if cost + count * LINE_COST > budget:
        raise Damage(over_limit(f"{count:,} lines: restores to", budget, "log"))
    if not count:  # an empty log (a flood of them is listed at the pace of its names)
        return [], cost
    state = _State()
    lines: list[bytes] = []
    prev = ZERO_HASH
    decode, verbatim = _decoder.decode, BYTES.decode
    for i, raw in enumerate(RAW_LIST.decode(records)):
        # a record past _RECORD_MAX may only be a line kept verbatim (bytes: no objects to build)
        rec = decode(raw) if len(raw) <= _RECORD_MAX else verbatim(raw)
        if rec.__class__ is bytes:
            line = rec
        elif rec.__class__ is list and rec:
            try:
                event = codec.event(rec, i, prev if chained else None, state)
                state.apply(event)
                line = encode_event(event)
            except OSError as exc:  # gmtime of a time out of range
                raise Damage(f"corrupt (line {i + 1}: {exc})") from None
        else:
            raise Damage(f"corrupt (line {i + 1}: a record is neither a list nor a line)")
        size = len(line) + 1
        cost += size if size > LINE_COST else LINE_COST
        if cost > budget:
            raise Damage(over_limit("restores to", budget, "log"))
        lines.append(line)
        if chained:
            prev = line_hash(line)
    return lines, cost


def log_blob(codec: Codec, name: str, lines: list[bytes], tail: bytes) -> tuple[bytes, int]:
    """Return a log's msgpack blob and how many of its lines it keeps verbatim."""
    chained, records = _compact_records(codec, lines)
    blob = _encoder.encode([LOG, name, log_digest(lines, tail), chained, records, tail])
    return blob, sum(isinstance(r, bytes) for r in records)
