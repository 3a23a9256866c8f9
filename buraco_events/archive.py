"""Archives (`.bza`): many game logs in one compact file, restored byte for byte.

A file is `MAGIC`, a format version byte, then one zstd stream of length-prefixed msgpack blobs:
a header (the card and event-type tables, so an archive describes itself), one blob per log, and
an end blob (an archive without it is truncated). One stream for all logs lets each log compress
against the ones before it, so no trained dictionary is needed.

Each line of a log is stored as either
- a compact record `[type code, field values...]`, when encoding its decoded event again (seq =
  the line index, prev = the previous line's hash, or absent if the log has none) gives back the
  exact line: cards become 1-byte codes, seq and prev are dropped, and the redundancy
  docs/log-format.md asks readers to check (`drew.card` is the stock's top, `took_pile.cards`
  the pile, `took_dead.cards` that dead) is dropped where it holds; or
- its bytes verbatim: another program's spacing or key order, unknown fields, a broken chain,
  a bad line. A torn last line is kept verbatim too.
Pack proves each record by restoring its line from the record's msgpack form, and each log
carries an 8-byte digest of its bytes that unpack checks again.

An archive may come from anyone, so reading it is bounded and checked. The stream is exactly one
zstd frame with its checksum (pack has always written it; a frame without one was not written by
this program and is refused), nothing may follow it, and it is decompressed a few hundred bytes at
a time. `Limits` caps what one log and the whole archive may restore to (64 MiB and 4 GiB by
default; `limits=`, or the environment variables `BURACO_MAX_MEMBER_SIZE` and
`BURACO_MAX_ARCHIVE_SIZE`, change them): a line counts at least `LINE_COST` bytes and a log at
least `MEMBER_COST`, so floods of empty lines or of empty logs are bounded like big ones. It also
caps how many logs an archive may hold (`MAX_MEMBERS`, `BURACO_MAX_MEMBERS`), and a log's name
is at most `MAX_NAME` bytes and `MAX_DEPTH` folders deep, whatever reads it. Unpack writes into
a fresh sibling folder that is renamed into place once complete, and never follows a link. Every
problem raises `ArchiveError`, naming the archive and the member; a cut archive names where the
file ends and the member it cuts.
"""

from __future__ import annotations

import calendar
import hashlib
import os
import re
import secrets
import shutil
import stat
import struct
import tempfile
import time
import typing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

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
from .logread import RawLines, StrPath, log_files, raw_lines
from .text import visible

MAGIC = b"\x89BZA\r\n\x1a\n"
FORMAT = 1
SUFFIX = ".bza"
LEVEL = 19  # tables sized by the input; a window over 8 MiB gains nothing here and costs 130 MB

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
#: a real game's log is 30-400 KB: 64 MiB is over 150 times the longest match, yet small
#: enough to hold in memory while its digest is checked
MAX_MEMBER_SIZE = 64 * MiB
#: about 30 million events (over 100,000 games) of JSON Lines: a club's whole history
MAX_ARCHIVE_SIZE = 4 * GiB
#: logs per archive: 2.5 times the 100,000 games the archive limit holds, each read and listed
#: in a few microseconds
MAX_MEMBERS = 250_000
#: a log's name, in UTF-8 bytes, and its folders: far beyond any real layout, and small enough
#: that any reader of the name (a terminal, a file system, a path walk) takes it at once
MAX_NAME = 1024
MAX_DEPTH = 64
#: a line counts at least this much against the limits: about what holding it in memory costs
LINE_COST = 64
#: a log counts at least this much against the archive's limit: the disk block its file takes
MEMBER_COST = 4 * KiB
ENV_MAX_MEMBER_SIZE = "BURACO_MAX_MEMBER_SIZE"
ENV_MAX_ARCHIVE_SIZE = "BURACO_MAX_ARCHIVE_SIZE"
ENV_MAX_MEMBERS = "BURACO_MAX_MEMBERS"

_LEN = struct.Struct("<I")
_HEADER, _LOG, _END = 0, 1, 2
_IMPLIED = {"drew": "card", "took_pile": "cards", "took_dead": "cards"}
_WINDOW_LOG = 23  # 8 MiB, what level 19 picks: pack never uses more, so a reader allows no more
_IN_CHUNK = 256  # compressed bytes per step: a 4-byte zstd block restores at most 128 KiB: <= 8 MiB
_RECORD_MAX = 64 * KiB  # a compact record is never larger (pack keeps such a line verbatim)
_HEADER_MAX = 1 * MiB
_SLACK = 64 * KiB  # what a stored log adds to its lines: name, digest, msgpack framing
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder()
_raw_list = msgspec.msgpack.Decoder(list[msgspec.Raw])
_int = msgspec.msgpack.Decoder(int)
_bytes = msgspec.msgpack.Decoder(bytes)
_str = msgspec.msgpack.Decoder(str)
_bool = msgspec.msgpack.Decoder(bool)


class _Header(msgspec.Struct):
    """The header fields this version reads (`logs` is absent from archives packed before it)."""

    cards: list[str]
    types: list[tuple[str, list[tuple[str, str]]]]
    logs: int | None = None


_header_fields = msgspec.msgpack.Decoder(_Header)


class ArchiveError(ValueError):
    """An archive that cannot be read or written; its str is one line naming the archive and, for
    a problem inside it, the member: its position (from 1) and its name, shown escaped.

    `exit_code` follows the commands' rule: 2 when the archive or one of its logs cannot be read
    (missing pieces, damage, over a limit: nothing to judge), 1 for a problem found in what was
    read (an unsafe or repeated name, a folder in the way). `total` is how many logs the archive
    says it holds, when it says so; `unread` counts the ones from the damaged member on.
    """

    def __init__(
        self,
        path: StrPath,
        message: str,
        *,
        member: int | None = None,
        name: str | None = None,
        total: int | None = None,
        exit_code: int = 2,
    ) -> None:
        super().__init__(os.fspath(path), message, member, name)
        self.path = os.fspath(path)
        self.message = message
        self.member = member
        self.name = name
        self.total = total
        self.exit_code = exit_code

    def __str__(self) -> str:
        where = self.path
        if self.member is not None and self.total is not None and self.member > self.total:
            where += f": after its {self.total} logs"  # the end marker, or the stream's end
        elif self.member is not None:
            where += f": member {self.member}"
            if self.name is not None:
                where += f" ({visible(repr(self.name))})"
        # the message may quote the archive's bytes (a decoder naming a damaged field): escaped
        return f"{where}: {visible(self.message)}"

    @property
    def unread(self) -> int | None:
        """Return how many of the archive's logs were not read (None: unknown)."""
        if self.member is None or self.total is None:
            return None
        return max(0, self.total - self.member + 1)


class _Damage(Exception):
    """A problem inside an archive's stream; the reader adds the archive and the member."""


class _TooBig(_Damage):
    """A blob whose stored size is over what the limits allow."""


class _Cut(_Damage):
    """The file ends inside the compressed stream."""


_SIZE = re.compile(r"\s*([0-9]{1,20})\s*([KMGT]?)(?:i?B)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "K": KiB, "M": MiB, "G": GiB, "T": 1 << 40}


def parse_size(text: str) -> int:
    """Return the bytes of a size such as `64MiB`, `4G` or `1000` (K, M, G, T: powers of 1024)."""
    m = _SIZE.fullmatch(text)
    if m is None or int(m[1]) == 0:
        raise ValueError(f"{text!r} is not a size (such as 64MiB, 4GiB or a number of bytes)")
    return int(m[1]) * _UNITS[m[2].upper()]


def size_name(n: int) -> str:
    """Return a size in the largest binary unit that divides it (`64 MiB`), else in bytes."""
    for unit in ("T", "G", "M", "K"):
        if n >= _UNITS[unit] and n % _UNITS[unit] == 0:
            return f"{n // _UNITS[unit]} {unit}iB"
    return f"{n:,} bytes"


def parse_count(text: str) -> int:
    """Return a positive count such as `250000` or `250,000`."""
    digits = text.strip().replace(",", "").replace("_", "")
    if not digits.isascii() or not digits.isdigit() or len(digits) > 20 or int(digits) == 0:
        raise ValueError(f"{text!r} is not a count of logs (such as 250000)")
    return int(digits)


@dataclass(frozen=True, slots=True)
class Limits:
    """What reading an archive may restore: bytes per log (`member`) and in all (`archive`), and
    how many logs (`members`).

    A line counts at least `LINE_COST` bytes and a log at least `MEMBER_COST`, so the limits
    bound the work and the files of a flood of empty lines or empty logs too.
    """

    member: int = MAX_MEMBER_SIZE
    archive: int = MAX_ARCHIVE_SIZE
    members: int = MAX_MEMBERS

    @classmethod
    def from_env(cls) -> Limits:
        """Return the defaults, changed by `BURACO_MAX_MEMBER_SIZE`, `BURACO_MAX_ARCHIVE_SIZE`
        and `BURACO_MAX_MEMBERS`."""
        limits = cls()
        for var, field, parse in ((ENV_MAX_MEMBER_SIZE, "member", parse_size),
                                  (ENV_MAX_ARCHIVE_SIZE, "archive", parse_size),
                                  (ENV_MAX_MEMBERS, "members", parse_count)):
            text = os.environ.get(var)
            if text:
                try:
                    limits = replace(limits, **{field: parse(text)})
                except ValueError as exc:
                    raise ValueError(f"{var}: {exc}") from None
        return limits


def _limits(path: StrPath, limits: Limits | None) -> Limits:
    if limits is not None:
        return limits
    try:
        return Limits.from_env()
    except ValueError as exc:
        raise ArchiveError(path, str(exc)) from None


def _cost(lines: Iterable[bytes], tail: bytes) -> int:
    """Return what a log counts against the limits: each line at least `LINE_COST` bytes."""
    cost = sum(max(len(line) + 1, LINE_COST) for line in lines)
    return cost + (max(len(tail), LINE_COST) if tail else 0)


def _over(what: str, limit: int, scope: str) -> str:
    """Return the message for a log (`scope` "log") or an archive over its limit, and the way out."""
    option, env = (
        ("--max-member-size", ENV_MAX_MEMBER_SIZE) if scope == "log"
        else ("--max-archive-size", ENV_MAX_ARCHIVE_SIZE)
    )
    return f"{what} more than {size_name(limit)}, the limit per {scope} (raise it with {option} or {env})"


def _too_many(what: str, limit: int) -> str:
    """Return the message for an archive of more logs than the limit, and the way out."""
    return (f"{what} more than {limit:,} logs, the limit per archive (raise it with "
            f"--max-members or {ENV_MAX_MEMBERS})")


def _name_problem(name: str) -> str | None:
    """Return why a log's name is over the name limits (too long, too deep), or None."""
    depth = name.count("/")
    if depth > MAX_DEPTH:
        return f"a log name {depth:,} folders deep, over {MAX_DEPTH}, the limit"
    size = len(name) if len(name) * 4 <= MAX_NAME else len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME:
        return f"a log name of {size:,} bytes, over {MAX_NAME:,}, the limit"
    return None


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
            raise _Damage(f"event type {tag!r} is unknown to this version")
        if len(rec) > len(layout) + 1:
            raise _Damage(f"corrupt (a {tag} record has {len(rec) - 1} fields, at most {len(layout)})")
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


def _restore(
    codec: _Codec, chained: bool, records: msgspec.Raw, tail: bytes, budget: int
) -> tuple[list[bytes], int]:
    """Return the lines of a log's records and their cost; `_Damage` past `budget` or on bad data.

    The records stay raw until each is restored, so a hostile log costs at most what its lines
    count: its record count is checked against the budget before any is decoded.
    """
    count = _array_len(records)
    if count is None:
        raise _Damage("corrupt (its records are not a list)")
    cost = _cost((), tail)
    if cost + count * LINE_COST > budget:
        raise _Damage(_over(f"{count:,} lines: restores to", budget, "log"))
    if not count:  # an empty log (a flood of them is listed at the pace of its names)
        return [], cost
    state = _State()
    lines: list[bytes] = []
    prev = ZERO_HASH
    decode, verbatim = _decoder.decode, _bytes.decode
    for i, raw in enumerate(_raw_list.decode(records)):
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
                raise _Damage(f"corrupt (line {i + 1}: {exc})") from None
        else:
            raise _Damage(f"corrupt (line {i + 1}: a record is neither a list nor a line)")
        size = len(line) + 1
        cost += size if size > LINE_COST else LINE_COST
        if cost > budget:
            raise _Damage(_over("restores to", budget, "log"))
        lines.append(line)
        if chained:
            prev = line_hash(line)
    return lines, cost


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
            raise ArchiveError(p, "no such file or folder")
    seen: dict[str, Path] = {}
    for name, f in sources:
        if name in seen:
            raise ArchiveError(
                f, f"two logs would be named {visible(repr(name))} in the archive: {seen[name]}, {f}",
                exit_code=1,
            )
        seen[name] = f
    return sources


def pack(
    paths: StrPath | Iterable[StrPath],
    out_file: StrPath,
    *,
    level: int = LEVEL,
    progress: Callable[[int, int], None] | None = None,
    limits: Limits | None = None,
) -> PackResult:
    """Pack log files and folders into an archive, streaming; `progress(done, total)` per log.

    A log over the limits is refused (exit code 1), so what is packed unpacks under them too.
    """
    sources = log_sources(paths)
    out = Path(out_file)
    limits = _limits(out, limits)
    if len(sources) > limits.members:
        raise ArchiveError(out, _too_many(f"the logs are {len(sources):,},", limits.members),
                           exit_code=1)
    for name, path in sources:
        why = _name_problem(name)
        if why is not None:
            raise ArchiveError(path, f"{why} (no archive may hold it)", exit_code=1)
    codec_header = _header() | {"logs": len(sources)}  # lets a reader count what damage hid
    codec = _Codec(codec_header)
    # sized by the input (an upper bound of the stream), so small packs set up small tables
    size = sum(path.stat().st_size for _, path in sources)
    params = zstandard.ZstdCompressionParameters.from_level(
        level, source_size=size, write_checksum=True
    )
    if params.window_log > _WINDOW_LOG:  # levels 20-22 ask more than a reader allows
        params = zstandard.ZstdCompressionParameters.from_level(
            level, source_size=size, write_checksum=True, window_log=_WINDOW_LOG
        )
    events = verbatim = input_bytes = spent = 0
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
                cost = _cost(lines, raw.tail)
                spent += max(cost, MEMBER_COST)
                if cost > limits.member:
                    raise ArchiveError(path, _over("restores to", limits.member, "log"),
                                       exit_code=1)
                if spent > limits.archive:
                    raise ArchiveError(out, _over("the logs restore to", limits.archive,
                                                  "archive"), exit_code=1)
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


# -- reading: bounded, every problem an ArchiveError ------------------------------------------


class _Frame:
    """An archive's one zstd frame, decompressed a little at a time so memory stays bounded.

    Reading past its end checks that the frame is whole (libzstd then checks its checksum) and
    that no byte follows it: no second frame, no trailing garbage. The file's last 4 bytes (the
    checksum of a whole frame) are fed last and alone, so a bad checksum is reported after the
    logs it does not hide.
    """

    def __init__(self, f: IO[bytes]) -> None:
        self._f = f
        self.size = os.fstat(f.fileno()).st_size
        self._left = self.size - f.tell()
        self._z = zstandard.ZstdDecompressor(max_window_size=1 << _WINDOW_LOG).decompressobj()
        self._out = b""
        self._at = 0
        self._trailing = False  # reported at the end, so the logs before it are still read

    def _fill(self) -> bool:
        """Decompress more; return False at the frame's end."""
        while not self._z.eof:
            chunk = self._f.read(min(_IN_CHUNK, self._left - 4) if self._left > 4 else 4)
            self._left -= len(chunk)
            if not chunk:
                raise _Cut(f"truncated archive (the file ends at byte {self.size:,}, inside "
                           "the compressed stream)")
            try:
                self._out, self._at = self._z.decompress(chunk), 0
            except zstandard.ZstdError as exc:
                if "memory" in str(exc):  # libzstd's allocation failed: no damage to report
                    raise MemoryError(str(exc)) from None
                raise
            if self._z.eof:
                self._trailing = bool(self._z.unused_data or self._f.read(1))
            if self._out:
                return True
        return False

    def read(self, n: int) -> bytes:
        """Return the next `n` bytes, fewer only at the frame's end."""
        at = self._at
        if at + n <= len(self._out):  # the usual case, for small blobs: one slice
            self._at = at + n
            return self._out[at:at + n]
        parts: list[bytes] = []
        while n:
            if self._at == len(self._out) and not self._fill():
                break
            part = self._out[self._at:self._at + n]
            self._at += len(part)
            n -= len(part)
            parts.append(part)
        return b"".join(parts)

    def end(self) -> None:
        """Check that the frame ends here, whole and with nothing after it."""
        try:
            more = self._at < len(self._out) or self._fill()
        except _Cut:  # all the logs and the end marker came: only the checksum can be missing
            raise _Cut(f"truncated archive (the file ends at byte {self.size:,}, inside the "
                       "checksum that closes the compressed stream)") from None
        if more:
            raise _Damage("corrupt archive (data follows the end marker)")
        if self._trailing:
            raise _Damage("corrupt archive (bytes follow the compressed stream: another frame "
                          "or garbage)")


def _open_frame(f: IO[bytes], path: StrPath) -> _Frame:
    """Check an archive's magic, version and frame header; return its frame to read."""
    start = f.read(len(MAGIC) + 1)
    if start[: len(MAGIC)] != MAGIC:
        raise ArchiveError(path, f"not a buraco archive (no {SUFFIX} magic)")
    if len(start) == len(MAGIC):
        raise ArchiveError(path, "truncated archive (nothing after the magic)")
    if start[len(MAGIC)] != FORMAT:
        raise ArchiveError(
            path, f"archive format {start[len(MAGIC)]}, this version reads {FORMAT}"
        )
    head = f.read(18)  # the longest zstd frame header
    f.seek(len(start))
    if head[:4] != zstandard.FRAME_HEADER:
        raise ArchiveError(path, "corrupt archive (no zstd frame after the magic)")
    try:
        params = zstandard.get_frame_parameters(head)
    except zstandard.ZstdError:
        raise ArchiveError(path, "corrupt archive (a damaged zstd frame header)") from None
    if not params.has_checksum:  # every archive pack wrote has one
        raise ArchiveError(path, "corrupt archive (the zstd frame has no checksum: not packed "
                                 "by buraco)")
    return _Frame(f)


def _next_blob(frame: _Frame, limit: int) -> list[msgspec.Raw]:
    """Read the next length-prefixed blob (at most `limit` bytes); return its fields, raw."""
    size = frame.read(_LEN.size)
    if not size:
        raise _Damage("truncated archive (the stream ends without its end marker)")
    if len(size) < _LEN.size:
        raise _Damage("truncated archive (cut inside a length)")
    (n,) = _LEN.unpack(size)
    if n > limit:
        raise _TooBig(f"stored in {n:,} bytes")
    data = frame.read(n)
    if len(data) < n:
        raise _Damage("truncated archive (a log is cut short)")
    if not data or not 0x91 <= data[0] <= 0x9F:  # a short list: never decode a huge one
        raise _Damage("corrupt (a blob is not a record)")
    return _raw_list.decode(data)


def _read_header(frame: _Frame) -> tuple[_Codec, int | None]:
    """Read the header blob: the codec of this archive and how many logs it says it holds."""
    fields = _next_blob(frame, _HEADER_MAX)
    if len(fields) != 2 or _int.decode(fields[0]) != _HEADER:
        raise _Damage("corrupt archive (no header)")
    header = _header_fields.decode(fields[1])
    codec = _Codec({"cards": header.cards, "types": header.types})
    return codec, header.logs


#: what decoding hostile bytes may raise, besides `_Damage`; all become one ArchiveError
_BAD_DATA = (
    zstandard.ZstdError, msgspec.MsgspecError, IndexError, KeyError, TypeError, ValueError,
    OverflowError, RecursionError,
)


def _iter_stored(
    path: StrPath, limits: Limits | None = None, *, restore: bool = True
) -> Iterator[tuple[str, list[bytes], bytes]]:
    """Yield (stored name, lines, torn tail) of each log in an archive, checking digests.

    The archive-reading function every reader goes through: any problem raises `ArchiveError`
    with the archive and the member; an unreadable file raises `OSError`. With `restore` False
    only the names are read (lines come back empty): the structure, the end marker, the checksum
    and the stored sizes are still checked.
    """
    limits = _limits(path, limits)
    stored_max = limits.member + limits.member // 8 + _SLACK  # a stored line is its bytes + 2..5
    with open(path, "rb") as f:
        frame = _open_frame(f, path)
        try:
            codec, total = _read_header(frame)
        except _Cut as exc:  # its first block, which may hold much more, is not whole
            raise ArchiveError(path, f"{exc}, before its header could be read") from None
        except _Damage as exc:
            raise ArchiveError(path, f"{exc}, in its header") from None
        except _BAD_DATA as exc:
            raise ArchiveError(path, f"corrupt archive header ({exc})") from None
        if total is not None and total > limits.members:
            raise ArchiveError(path, _too_many(f"its header counts {total:,} logs,",
                                               limits.members))
        member, lines_seen, spent = 1, 0, 0
        while True:
            name: str | None = None
            try:
                fields = _next_blob(frame, stored_max)
                kind = _int.decode(fields[0])
                if kind == _END and len(fields) == 3:
                    logs, lines_n = _int.decode(fields[1]), _int.decode(fields[2])
                    if logs != member - 1 or (restore and lines_n != lines_seen):
                        raise _Damage("corrupt archive (the end marker counts differ)")
                    if total is not None and total != logs:
                        raise _Damage(f"corrupt archive (its header counts {total} logs)")
                    frame.end()
                    return
                if kind != _LOG or len(fields) != 6:
                    raise _Damage("corrupt archive (a blob is not a log)")
                if member > limits.members:
                    raise _Damage(_too_many("it holds", limits.members))
                if len(fields[1]) > 64 * MAX_NAME:  # never decode a huge name
                    raise _Damage(f"a log name of more than {64 * MAX_NAME:,} bytes, over "
                                  f"{MAX_NAME:,}, the limit")
                name = _str.decode(fields[1])
                why = _name_problem(name)
                if why is not None:
                    name = name[:60] + "..."  # its start: the whole is the problem
                    raise _Damage(why)
                digest, chained = _bytes.decode(fields[2]), _bool.decode(fields[3])
                records, tail = fields[4], _bytes.decode(fields[5])
                lines: list[bytes] = []
                if restore:
                    lines, cost = _restore(codec, chained, records, tail, limits.member)
                    if _digest(lines, tail) != digest:
                        raise _Damage("does not match its digest (corrupt archive)")
                else:
                    cost = 0
                spent += max(cost, MEMBER_COST)
                if spent > limits.archive:
                    raise _Damage(_over("the archive restores to", limits.archive, "archive"))
                del fields, records  # the stored form: only the lines stay while they are used
            except _TooBig as exc:
                message = _over(f"{exc}, so it restores to", limits.member, "log")
                raise ArchiveError(path, message, member=member, name=name, total=total) from None
            except _Damage as exc:
                raise ArchiveError(path, str(exc), member=member, name=name, total=total) from None
            except _BAD_DATA as exc:
                raise ArchiveError(path, f"corrupt archive ({exc})", member=member, name=name,
                                   total=total) from None
            yield name, lines, tail
            member += 1
            lines_seen += len(lines)


#: what a line held in memory costs beyond its bytes: a bytes object's header and a list slot
_LINE_OVERHEAD = 48


class StoredLines(RawLines):
    """The lines of one log read from an archive, held in memory: `held` is about their bytes
    there, what sending them to a worker process costs too."""

    def __init__(self, name: str, lines: list[bytes], tail: bytes) -> None:
        super().__init__(name, lines, tail)
        self.held = sum(map(len, lines)) + _LINE_OVERHEAD * len(lines) + len(tail)


def iter_archive(archive: StrPath, limits: Limits | None = None) -> Iterator[tuple[str, RawLines]]:
    """Yield (stored name, lines) for each log of an archive, one log in memory at a time.

    Raises `ArchiveError` (see `_iter_stored`) and `OSError`; `limits` defaults to
    `Limits.from_env()`.
    """
    for name, lines, tail in _iter_stored(archive, limits):
        yield name, StoredLines(name, lines, tail)


@dataclass(frozen=True, slots=True)
class Member:
    """One log of an archive as `members` lists it: the head is the SHA-256 of its last line."""

    name: str
    events: int
    bytes: int
    head: str | None


def members(archive: StrPath, limits: Limits | None = None) -> Iterator[Member]:
    """Yield each log of an archive with its events, bytes and head (each checked, as unpack does)."""
    for name, lines, tail in _iter_stored(archive, limits):
        size = sum(map(len, lines)) + len(lines) + len(tail)
        yield Member(name, len(lines), size, line_hash(lines[-1]) if lines else None)


# -- unpacking ---------------------------------------------------------------------------------


class _Names:
    """The names of an archive's logs seen so far: each must be a safe relative path, and none may
    repeat or be another's folder."""

    def __init__(self, archive: StrPath) -> None:
        self.archive = archive
        self.files: dict[str, int] = {}
        self.folders: dict[str, int] = {}

    def check(self, member: int, name: str) -> list[str]:
        """Return the parts of a member's name, or raise `ArchiveError` (exit code 1)."""
        parts = name.split("/")

        def refuse(why: str) -> ArchiveError:
            return ArchiveError(self.archive, f"{why}; nothing was written", member=member,
                                name=name, exit_code=1)

        if any(part in ("", ".", "..") for part in parts) or "\\" in name or "\0" in name:
            raise refuse("unsafe log name (absolute, empty, `.`, `..`, a backslash or NUL)")
        if any(len(os.fsencode(part)) > 255 for part in parts):
            raise refuse("unsafe log name (a part longer than 255 bytes)")
        first = self.files.get(name, self.folders.get(name))
        folders = ["/".join(parts[:i]) for i in range(1, len(parts))]
        first = next((self.files[f] for f in folders if f in self.files), first)
        if first is not None:
            raise refuse(f"the same name as member {first}, or its folder")
        self.files[name] = member
        for folder in folders:
            self.folders.setdefault(folder, member)
        return parts


def _output(out: Path, overwrite: bool) -> bool:
    """Check the output folder; return whether it holds files already (to merge into)."""
    try:
        st = os.lstat(out)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(st.st_mode):
        raise ArchiveError(out, "is a link: give the folder itself", exit_code=1)
    if not stat.S_ISDIR(st.st_mode):
        raise ArchiveError(out, "already exists and is not a folder", exit_code=1)
    with os.scandir(out) as entries:
        if next(entries, None) is None:
            return False
    if not overwrite:
        raise ArchiveError(out, "already exists and is not empty (unpack writes a fresh folder)",
                           exit_code=1)
    return True


_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _same_file(fd: int, name: str, data: bytes) -> bool:
    """Return whether `name` in the folder `fd` is a plain file holding `data` (links are not)."""
    try:
        f = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
    except OSError:  # a link (ELOOP) or no file
        return False
    with open(f, "rb") as existing:
        if os.fstat(existing.fileno()).st_size != len(data) or not stat.S_ISREG(
            os.fstat(existing.fileno()).st_mode
        ):
            return False
        return existing.read() == data


def _place(src: Path, out: Path, parts: list[str], *, dry: bool) -> None:
    """Link `src` into `out` at `parts`, never through a link and never over another file.

    With `dry`, only check that it can be done. An existing file with the same bytes is accepted
    (as in `log.write_log`); anything else in the way raises `ArchiveError` (exit code 1).
    """
    target = out.joinpath(*parts)

    def refuse(why: str) -> ArchiveError:
        return ArchiveError(target, f"{why}; an unpack never replaces a file nor follows a link",
                            exit_code=1)

    fd = os.open(out, _DIR)
    try:
        for part in parts[:-1]:
            try:
                sub = os.open(part, _DIR, dir_fd=fd)
            except FileNotFoundError:
                if dry:
                    return  # nothing below it yet
                os.mkdir(part, dir_fd=fd)
                sub = os.open(part, _DIR, dir_fd=fd)
            except OSError:  # ELOOP: a link; ENOTDIR: a file
                raise refuse(f"{part!r} is a link or a file where a folder goes") from None
            os.close(fd)
            fd = sub
        try:
            os.lstat(parts[-1], dir_fd=fd)
        except FileNotFoundError:
            if not dry:
                try:
                    os.link(src, parts[-1], dst_dir_fd=fd)  # fails rather than replace
                except FileExistsError:
                    if not _same_file(fd, parts[-1], src.read_bytes()):
                        raise refuse("appeared meanwhile with other content") from None
            return
        if not _same_file(fd, parts[-1], src.read_bytes()):
            raise refuse("exists already with other content (or is a link)")
    finally:
        os.close(fd)


def unpack(
    archive: StrPath, out_dir: StrPath, *, overwrite: bool = False, limits: Limits | None = None
) -> UnpackResult:
    """Write every log of an archive under `out_dir`, byte for byte as it was packed.

    The archive is read twice: first its names and structure (damage, unsafe or repeated names
    are refused before anything is written), then its logs, into a fresh folder beside `out_dir`
    that is renamed into place once complete: the folder appears whole or not at all. `out_dir`
    must not exist or be empty; with `overwrite` it may hold files already: the logs are linked in
    beside them, a log already there with the same bytes is accepted and one with other bytes is
    refused (a file is never replaced, a link never followed).
    """
    out = Path(out_dir)
    names = _Names(archive)
    try:
        for member, (name, _, _) in enumerate(_iter_stored(archive, limits, restore=False), 1):
            names.check(member, name)
    except ArchiveError as exc:
        if exc.exit_code == 2:  # damage: this pass checks no digests, so find the first log hit
            for _ in _iter_stored(archive, limits):
                pass
        raise
    merge = _output(out, overwrite)
    whole = Path(os.path.abspath(out))  # `.` too has a name and a parent then
    whole.parent.mkdir(parents=True, exist_ok=True)
    tmp = whole.with_name(f".{whole.name}.unpack-{os.getpid()}-{secrets.token_hex(4)}")
    tmp.mkdir()  # ordinary permissions: it becomes the output folder
    try:
        names = _Names(archive)  # again: the file may have changed since the first pass
        logs = events = size = 0
        for member, (name, lines, tail) in enumerate(_iter_stored(archive, limits), 1):
            target = tmp.joinpath(*names.check(member, name))
            target.parent.mkdir(parents=True, exist_ok=True)
            data = b"".join(line + b"\n" for line in lines) + tail
            try:
                with open(target, "xb") as f:
                    f.write(data)
            except (FileExistsError, IsADirectoryError, NotADirectoryError):
                # names equal on this file system only (say, in another case)
                raise ArchiveError(archive, "clashes with another log's name on this file "
                                   "system; nothing was written", member=member, name=name,
                                   exit_code=1) from None
            logs += 1
            events += len(lines)
            size += len(data)
        if merge:
            files = sorted(p.relative_to(tmp) for p in tmp.rglob("*") if p.is_file())
            for dry in (True, False):  # check every file first, so a refusal writes nothing
                for rel in files:
                    _place(tmp / rel, out, list(rel.parts), dry=dry)
        else:
            try:
                os.rename(tmp, whole)  # replaces an empty folder, fails on one filled meanwhile
            except OSError as exc:
                raise ArchiveError(out, f"cannot be replaced by the unpacked folder "
                                   f"({exc.strerror}); nothing was written", exit_code=1) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # gone already once renamed into place
    return UnpackResult(logs, events, size)
