"""Reading archives: every log of one streamed back, bounded and checked, one log at a time.

An archive may come from anyone, so reading it is bounded and checked. The stream is exactly one
zstd frame with its checksum (pack has always written it; a frame without one was not written by
this program and is refused), nothing may follow it, and it is decompressed a few hundred bytes at
a time. What a log and the archive restore to is held to `archive_format.Limits`; every problem
raises `ArchiveError`, naming the archive and the member; a cut archive names where the file ends
and the member it cuts. `iter_stored` is the one function every reader goes through: the logs'
sources (`sources`), the listing (`members`) and unpack.

Its own module because hostile input is its concern: it changes with the checks a reader makes,
not with how archives are written.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import msgspec
import zstandard

from buraco_events.model.events import line_hash

from .archive_codec import BYTES, RAW_LIST, Codec, restore_lines
from .archive_format import (
    END,
    FORMAT,
    HEADER,
    LEN,
    LOG,
    MAGIC,
    MAX_NAME,
    MEMBER_COST,
    SUFFIX,
    WINDOW_LOG,
    ArchiveError,
    Damage,
    KiB,
    Limits,
    MiB,
    log_digest,
    log_size,
    name_problem,
    over_limit,
    resolve_limits,
    too_many,
)
from .lines import RawLines, StrPath

_IN_CHUNK = 256  # compressed bytes per step: a 4-byte zstd block restores at most 128 KiB: <= 8 MiB
_HEADER_MAX = 1 * MiB
_SLACK = 64 * KiB  # what a stored log adds to its lines: name, digest, msgpack framing
_int = msgspec.msgpack.Decoder(int)
_str = msgspec.msgpack.Decoder(str)
_bool = msgspec.msgpack.Decoder(bool)


class _Header(msgspec.Struct):
    """The header fields this version reads (`logs` is absent from archives packed before it)."""

    cards: list[str]
    types: list[tuple[str, list[tuple[str, str]]]]
    logs: int | None = None


_header_fields = msgspec.msgpack.Decoder(_Header)


class _TooBig(Damage):
    """A blob whose stored size is over what the limits allow."""


class _Cut(Damage):
    """The file ends inside the compressed stream."""


def is_archive(path: StrPath) -> bool:
    """Return whether a file starts with the archive magic."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except (IsADirectoryError, FileNotFoundError):
        return False


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
        self._z = zstandard.ZstdDecompressor(max_window_size=1 << WINDOW_LOG).decompressobj()
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
                words = str(exc)
                if "too much memory" in words:
                    # a frame header asking for a window past the bound this format writes:
                    # damage (or a hostile file), refused before anything is allocated
                    raise zstandard.ZstdError(f"the compressed stream asks for a window over "
                                              f"{(1 << WINDOW_LOG) >> 20} MiB (damaged)") from None
                if "memory" in words:  # libzstd's allocation failed: no damage to report
                    raise MemoryError(words) from None
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
            raise Damage("corrupt archive (data follows the end marker)")
        if self._trailing:
            raise Damage("corrupt archive (bytes follow the compressed stream: another frame "
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
    size = frame.read(LEN.size)
    if not size:
        raise Damage("truncated archive (the stream ends without its end marker)")
    if len(size) < LEN.size:
        raise Damage("truncated archive (cut inside a length)")
    (n,) = LEN.unpack(size)
    if n > limit:
        raise _TooBig(f"stored in {n:,} bytes")
    data = frame.read(n)
    if len(data) < n:
        raise Damage("truncated archive (a log is cut short)")
    if not data or not 0x91 <= data[0] <= 0x9F:  # a short list: never decode a huge one
        raise Damage("corrupt (a blob is not a record)")
    return RAW_LIST.decode(data)


def _read_header(frame: _Frame) -> tuple[Codec, int | None]:
    """Read the header blob: the codec of this archive and how many logs it says it holds."""
    fields = _next_blob(frame, _HEADER_MAX)
    if len(fields) != 2 or _int.decode(fields[0]) != HEADER:
        raise Damage("corrupt archive (no header)")
    header = _header_fields.decode(fields[1])
    codec = Codec({"cards": header.cards, "types": header.types})
    return codec, header.logs


#: what decoding hostile bytes may raise, besides `Damage`; all become one ArchiveError
_BAD_DATA = (
    zstandard.ZstdError, msgspec.MsgspecError, IndexError, KeyError, TypeError, ValueError,
    OverflowError, RecursionError,
)


def iter_stored(
    path: StrPath, limits: Limits | None = None, *, restore: bool = True
) -> Iterator[tuple[str, list[bytes], bytes]]:
    """Yield (stored name, lines, torn tail) of each log in an archive, checking digests.

    The archive-reading function every reader goes through: any problem raises `ArchiveError`
    with the archive and the member; an unreadable file raises `OSError`. With `restore` False
    only the names are read (lines come back empty): the structure, the end marker, the checksum
    and the stored sizes are still checked.
    """
    limits = resolve_limits(path, limits)
    stored_max = limits.member + limits.member // 8 + _SLACK  # a stored line is its bytes + 2..5
    with open(path, "rb") as f:
        frame = _open_frame(f, path)
        try:
            codec, total = _read_header(frame)
        except _Cut as exc:  # its first block, which may hold much more, is not whole
            raise ArchiveError(path, f"{exc}, before its header could be read") from None
        except Damage as exc:
            raise ArchiveError(path, f"{exc}, in its header") from None
        except _BAD_DATA as exc:
            raise ArchiveError(path, f"corrupt archive header ({exc})") from None
        if total is not None and total > limits.members:
            raise ArchiveError(path, too_many(f"its header counts {total:,} logs,",
                                               limits.members))
        if total is None and restore and _count_logs(path, stored_max, limits.members) > limits.members:
            # a header without the count (packed before it was written): the logs are counted
            # first, so no log is restored, listed or audited from an archive over the limit
            raise ArchiveError(path, too_many("it holds", limits.members), member=limits.members + 1)
        member, lines_seen, spent = 1, 0, 0
        while True:
            name: str | None = None
            try:
                fields = _next_blob(frame, stored_max)
                kind = _int.decode(fields[0])
                if kind == END and len(fields) == 3:
                    logs, lines_n = _int.decode(fields[1]), _int.decode(fields[2])
                    if logs != member - 1 or (restore and lines_n != lines_seen):
                        raise Damage("corrupt archive (the end marker counts differ)")
                    if total is not None and total != logs:
                        raise Damage(f"corrupt archive (its header counts {total} logs)")
                    frame.end()
                    return
                if kind != LOG or len(fields) != 6:
                    raise Damage("corrupt archive (a blob is not a log)")
                if member > limits.members:
                    raise Damage(too_many("it holds", limits.members))
                if len(fields[1]) > 64 * MAX_NAME:  # never decode a huge name
                    raise Damage(f"a log name of more than {64 * MAX_NAME:,} bytes, over "
                                  f"{MAX_NAME:,}, the limit")
                name = _str.decode(fields[1])
                why = name_problem(name)
                if why is not None:
                    name = name[:60] + "..."  # its start: the whole is the problem
                    raise Damage(why)
                digest, chained = BYTES.decode(fields[2]), _bool.decode(fields[3])
                records, tail = fields[4], BYTES.decode(fields[5])
                lines: list[bytes] = []
                if restore:
                    lines, cost = restore_lines(codec, chained, records, tail, limits.member)
                    if log_digest(lines, tail) != digest:
                        raise Damage("does not match its digest (corrupt archive)")
                else:
                    cost = 0
                spent += max(cost, MEMBER_COST)
                if spent > limits.archive:
                    raise Damage(over_limit("the archive restores to", limits.archive, "archive"))
                del fields, records  # the stored form: only the lines stay while they are used
            except _TooBig as exc:
                message = over_limit(f"{exc}, so it restores to", limits.member, "log")
                raise ArchiveError(path, message, member=member, name=name, total=total) from None
            except Damage as exc:
                raise ArchiveError(path, str(exc), member=member, name=name, total=total) from None
            except _BAD_DATA as exc:
                raise ArchiveError(path, f"corrupt archive ({exc})", member=member, name=name,
                                   total=total) from None
            yield name, lines, tail
            member += 1
            lines_seen += len(lines)


def _count_logs(path: StrPath, stored_max: int, most: int) -> int:
    """Return how many logs an archive holds, counting no further than `most` + 1, by the kind of
    each blob alone (nothing restored). Where the stream cannot be followed, the count stops
    there: the reading pass reports that damage where it is."""
    n = 0
    with open(path, "rb") as f:
        frame = _open_frame(f, path)
        try:
            _read_header(frame)
            while n <= most and _int.decode(_next_blob(frame, stored_max)[0]) == LOG:
                n += 1
        except (Damage, *_BAD_DATA):
            pass
    return n


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

    Raises `ArchiveError` (see `iter_stored`) and `OSError`; `limits` defaults to
    `Limits.from_env()`.
    """
    for name, lines, tail in iter_stored(archive, limits):
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
    for name, lines, tail in iter_stored(archive, limits):
        head = line_hash(lines[-1]) if lines else None
        yield Member(name, len(lines), log_size(lines, tail), head)
