"""Archives (`.bza`): many game logs in one compact file, restored byte for byte.

A file is `MAGIC`, a format version byte, then one zstd stream of length-prefixed msgpack blobs:
a header (the card and event-type tables, so an archive describes itself), one blob per log, and
an end blob (an archive without it is truncated). One stream for all logs lets each log compress
against the ones before it, so no trained dictionary is needed.

Each line of a log is stored as either
- a compact record `[type code, field values...]`, when encoding its decoded event again (seq =
  the line index, prev = the previous line's hash, or absent if the log has none) gives back the
  exact line: cards become 1-byte codes, seq and prev are dropped, and the redundancy EVENTS.md
  asks readers to check (`drew.card` is the stock's top, `took_pile.cards` the pile,
  `took_dead.cards` that dead) is dropped where it holds; or
- its bytes verbatim: another program's spacing or key order, unknown fields, a broken chain,
  a bad line. A torn last line is kept verbatim too.
Pack proves each record by restoring its line from the record's msgpack form, and each log
carries an 8-byte digest of its bytes that unpack checks again.
"""

from __future__ import annotations

import calendar
import hashlib
import os
import re
import struct
import tempfile
import time
import typing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import msgspec
import zstandard

from .cards import CODE_CARD
from .events import (
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
from .log import RawLines, StrPath, log_files, raw_lines

MAGIC = b"\x89BZA\r\n\x1a\n"
FORMAT = 1
SUFFIX = ".bza"
LEVEL = 19  # tables sized by the input; a window over 8 MiB gains nothing here and costs 130 MB

_LEN = struct.Struct("<I")
_HEADER, _LOG, _END = 0, 1, 2
_IMPLIED = {"drew": "card", "took_pile": "cards", "took_dead": "cards"}
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder()


class ArchiveError(ValueError):
    """An archive that cannot be read or written; its str is one line."""


@dataclass(frozen=True, slots=True)
class PackResult:
    """What `pack` stored: logs, lines (events), lines kept verbatim, and sizes in bytes."""

    logs: int
    events: int
    verbatim: int
    input_bytes: int
    output_bytes: int

    @property
    def bytes_per_event(self) -> float:
        """Return the archive's size per stored line."""
        return self.output_bytes / self.events if self.events else 0.0


@dataclass(frozen=True, slots=True)
class UnpackResult:
    """What `unpack` wrote: logs, lines and bytes."""

    logs: int
    events: int
    bytes: int


# -- the codec -----------------------------------------------------------------------------------


def _kind(name: str, hint: Any) -> str:
    if hint == CardStr:
        return "card"
    if hint == Cards:
        return "cards"
    if hint == tuple[Cards, ...]:
        return "hands"
    return "time" if name == "at" else "value"


def _header() -> dict[str, Any]:
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
    """What earlier records tell: stock, deads and pile (for the implied fields) and the time."""

    __slots__ = ("clock", "deads", "pile", "stock", "top")

    def __init__(self) -> None:
        self.stock: tuple[str, ...] = ()
        self.top = 0
        self.deads: list[tuple[str, ...]] = []
        self.pile: list[str] = []
        self.clock = 0

    def implied(self, tag: str, fields: dict[str, Any]) -> Any:
        """Return what EVENTS.md says the implied field of this event must hold (None: unknown)."""
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


class _Codec:
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
            raise ArchiveError(f"event type {tag!r} is unknown to this version")
        if len(rec) > len(layout) + 1:
            raise ArchiveError(f"a {tag} record has {len(rec) - 1} fields, at most {len(layout)}")
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


# -- one log -------------------------------------------------------------------------------------


def _digest(lines: Iterable[bytes], tail: bytes) -> bytes:
    h = hashlib.blake2b(digest_size=8)
    for line in lines:
        h.update(line)
        h.update(b"\n")
    h.update(tail)
    return h.digest()


def _compact_records(codec: _Codec, lines: list[bytes]) -> tuple[bool, list[Any]]:
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
                rec = _decoder.decode(_encoder.encode(codec.record(event, state)))
            except OverflowError:  # an int msgpack cannot hold (JSON can)
                rec = None
            if rec is not None:
                back = codec.event(rec, i, event.prev, state)
                if encode_event(back) == line:
                    state.apply(back)
                    record = rec
        records.append(record)
        if chained:
            prev = line_hash(line)
    return chained, records


def _restore(codec: _Codec, chained: bool, records: list[Any]) -> list[bytes]:
    """Return the lines of a log's records."""
    state = _State()
    lines: list[bytes] = []
    prev = ZERO_HASH
    for i, rec in enumerate(records):
        if isinstance(rec, bytes):
            line = rec
        else:
            event = codec.event(rec, i, prev if chained else None, state)
            state.apply(event)
            line = encode_event(event)
        lines.append(line)
        if chained:
            prev = line_hash(line)
    return lines


def _log_blob(codec: _Codec, name: str, lines: list[bytes], tail: bytes) -> tuple[bytes, int]:
    """Return a log's msgpack blob and how many of its lines it keeps verbatim."""
    chained, records = _compact_records(codec, lines)
    blob = _encoder.encode([_LOG, name, _digest(lines, tail), chained, records, tail])
    return blob, sum(isinstance(r, bytes) for r in records)


# -- files ---------------------------------------------------------------------------------------


def is_archive(path: StrPath) -> bool:
    """Return whether a file starts with the archive magic."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except (IsADirectoryError, FileNotFoundError):
        return False


def log_sources(paths: StrPath | Iterable[StrPath]) -> list[tuple[str, Path]]:
    """Return (name in the archive, file) for log files and folders (their `*.jsonl`, recursive)."""
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    sources: list[tuple[str, Path]] = []
    for p in map(Path, paths):
        if p.is_dir():
            sources += [(f.relative_to(p).as_posix(), f) for f in log_files(p)]
        elif p.is_file():
            sources.append((p.name, p))
        else:
            raise ArchiveError(f"{p}: no such file or folder")
    seen: dict[str, Path] = {}
    for name, f in sources:
        if name in seen:
            raise ArchiveError(f"two logs would be named {name!r} in the archive: {seen[name]}, {f}")
        seen[name] = f
    return sources


def pack(
    paths: StrPath | Iterable[StrPath],
    out_file: StrPath,
    *,
    level: int = LEVEL,
    progress: Callable[[int, int], None] | None = None,
) -> PackResult:
    """Pack log files and folders into an archive, streaming; `progress(done, total)` per log."""
    sources = log_sources(paths)
    out = Path(out_file)
    codec_header = _header()
    codec = _Codec(codec_header)
    # sized by the input (an upper bound of the stream), so small packs set up small tables
    size = sum(path.stat().st_size for _, path in sources)
    params = zstandard.ZstdCompressionParameters.from_level(
        level, source_size=size, write_checksum=True
    )
    events = verbatim = input_bytes = 0
    tmp = tempfile.NamedTemporaryFile(dir=out.parent, prefix=f".{out.name}.", delete=False)
    try:
        with tmp:
            os.fchmod(tmp.fileno(), 0o644)  # an ordinary file once renamed, not a private temp
            tmp.write(MAGIC + bytes([FORMAT]))
            z = zstandard.ZstdCompressor(compression_params=params).stream_writer(tmp, closefd=False)

            def put(blob: bytes) -> None:
                z.write(_LEN.pack(len(blob)))
                z.write(blob)

            put(_encoder.encode([_HEADER, codec_header]))
            for done, (name, path) in enumerate(sources, 1):
                raw = raw_lines(path)
                lines = list(raw)
                blob, kept = _log_blob(codec, name, lines, raw.tail)
                put(blob)
                events += len(lines)
                verbatim += kept
                input_bytes += sum(map(len, lines)) + len(lines) + len(raw.tail)
                if progress:
                    progress(done, len(sources))
            put(_encoder.encode([_END, len(sources), events]))
            z.flush(zstandard.FLUSH_FRAME)
        os.replace(tmp.name, out)
    except BaseException:
        os.unlink(tmp.name)
        raise
    return PackResult(len(sources), events, verbatim, input_bytes, out.stat().st_size)


def _read_exact(reader: Any, n: int) -> bytes:
    data: bytes = reader.read(n)
    while len(data) < n:
        more = reader.read(n - len(data))
        if not more:
            break
        data += more
    return data


def _blobs(path: StrPath) -> Iterator[list[Any]]:
    """Yield the msgpack blobs of an archive after its header, up to the end blob."""
    with open(path, "rb") as f:
        start = f.read(len(MAGIC) + 1)
        if start[: len(MAGIC)] != MAGIC:
            raise ArchiveError(f"{path}: not a buraco archive (no {SUFFIX} magic)")
        if start[len(MAGIC)] != FORMAT:
            raise ArchiveError(
                f"{path}: archive format {start[len(MAGIC)]}, this version reads {FORMAT}"
            )
        reader = zstandard.ZstdDecompressor().stream_reader(f, closefd=False)
        try:
            while True:
                size = _read_exact(reader, _LEN.size)
                if len(size) < _LEN.size:
                    raise ArchiveError(f"{path}: truncated archive (no end marker)")
                (n,) = _LEN.unpack(size)
                data = _read_exact(reader, n)
                if len(data) < n:
                    raise ArchiveError(f"{path}: truncated archive (a log is cut short)")
                blob = _decoder.decode(data)
                if not isinstance(blob, list) or not blob:
                    raise ArchiveError(f"{path}: corrupt archive (a blob is not a record)")
                yield blob
                if blob[0] == _END:
                    return
        except (zstandard.ZstdError, msgspec.DecodeError) as exc:
            raise ArchiveError(f"{path}: corrupt archive ({exc})") from None


def _iter_stored(path: StrPath) -> Iterator[tuple[str, list[bytes], bytes]]:
    """Yield (stored name, lines, torn tail) of each log in an archive, checking digests."""
    blobs = _blobs(path)
    first = next(blobs, None)
    if not first or first[0] != _HEADER:
        raise ArchiveError(f"{path}: corrupt archive (no header)")
    codec = _Codec(first[1])
    logs = lines_seen = 0
    for blob in blobs:
        if blob[0] == _END:
            if blob[1:] != [logs, lines_seen]:
                raise ArchiveError(f"{path}: corrupt archive (the end marker counts differ)")
            return
        try:
            _, name, digest, chained, records, tail = blob
            lines = _restore(codec, chained, records)
        except (IndexError, KeyError, TypeError, ValueError, OverflowError, OSError) as exc:
            raise ArchiveError(f"{path}: corrupt archive (log #{logs + 1}: {exc})") from None
        if _digest(lines, tail) != digest:
            raise ArchiveError(f"{path}: log {name!r} does not match its digest (corrupt archive)")
        logs += 1
        lines_seen += len(lines)
        yield name, lines, tail


def iter_archive(archive: StrPath) -> Iterator[tuple[str, RawLines]]:
    """Yield (stored name, lines) for each log of an archive, one log in memory at a time."""
    for name, lines, tail in _iter_stored(archive):
        yield name, RawLines(name, lines, tail)


def _safe_name(name: str) -> PurePosixPath:
    p = PurePosixPath(name)
    if not name or p.is_absolute() or ".." in p.parts or "\\" in name or "\0" in name:
        raise ArchiveError(f"unsafe log name in archive: {name!r}")
    return p


def unpack(archive: StrPath, out_dir: StrPath, *, overwrite: bool = False) -> UnpackResult:
    """Write every log of an archive under `out_dir`, byte for byte as it was packed."""
    root = Path(out_dir)
    logs = events = size = 0
    for name, lines, tail in _iter_stored(archive):
        target = root.joinpath(*_safe_name(name).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = b"".join(line + b"\n" for line in lines) + tail
        try:
            with open(target, "wb" if overwrite else "xb") as f:
                f.write(data)
        except FileExistsError:
            raise ArchiveError(f"{target}: already exists (unpack does not overwrite)") from None
        logs += 1
        events += len(lines)
        size += len(data)
    return UnpackResult(logs, events, size)
