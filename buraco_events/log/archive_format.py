"""The archive format (`.bza`): its framing, its limits, the names of its logs and its errors.

A file is `MAGIC`, a format version byte, then one zstd stream of length-prefixed msgpack blobs:
a header (the card and event-type tables, so an archive describes itself), one blob per log, and
an end blob (an archive without it is truncated). One stream for all logs lets each log compress
against the ones before it, so no trained dictionary is needed. Each log carries an 8-byte digest
of its bytes (`log_digest`), which pack writes and every reader checks.

An archive may come from anyone, so what reading one may restore is bounded: `Limits` caps what
one log and the whole archive may restore to (64 MiB and 4 GiB by default; `limits=`, or the
environment variables `BURACO_MAX_MEMBER_SIZE` and `BURACO_MAX_ARCHIVE_SIZE`, change them): a
line counts at least `LINE_COST` bytes and a log at least `MEMBER_COST`, so floods of empty lines
or of empty logs are bounded like big ones. It also caps how many logs an archive may hold
(`MAX_MEMBERS`, `BURACO_MAX_MEMBERS`), and a log's name is at most `MAX_NAME` bytes and
`MAX_DEPTH` folders deep, whatever reads it. Every problem raises `ArchiveError`, naming the
archive and the member.

Its own module because these are what pack (`archive`), the record encoding (`archive_codec`) and
the reader (`archive_read`) must agree on, and they change only with the format or its limits.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Iterable
from dataclasses import dataclass, replace

from buraco_events.util.sizes import parse_size, size_name
from buraco_events.util.text import visible

from .lines import SourceError, StrPath

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

#: each blob's length prefix, and the kind of blob its first field names
LEN = struct.Struct("<I")
HEADER, LOG, END = 0, 1, 2
WINDOW_LOG = 23  # 8 MiB, what level 19 picks: pack never uses more, so a reader allows no more


class ArchiveError(SourceError, ValueError):
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
        super().__init__(path, message, os.fspath(path), message, member, name)
        self.member = member
        self.name = name
        self.total = total
        self.exit_code = exit_code

    def where(self) -> str:
        where = self.path
        if self.member is not None and self.total is not None and self.member > self.total:
            where += f": after its {self.total} logs"  # the end marker, or the stream's end
        elif self.member is not None:
            where += f": member {self.member}"
            if self.name is not None:
                where += f" ({visible(repr(self.name))})"
        return where

    def __str__(self) -> str:
        # the message may quote the archive's bytes (a decoder naming a damaged field): escaped
        return f"{self.where()}: {visible(self.message)}"

    @property
    def unread(self) -> int | None:
        """Return how many of the archive's logs were not read (None: unknown)."""
        if self.member is None or self.total is None:
            return None
        return max(0, self.total - self.member + 1)


class Damage(Exception):
    """A problem inside an archive's stream; the reader adds the archive and the member."""


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


def resolve_limits(path: StrPath, limits: Limits | None) -> Limits:
    if limits is not None:
        return limits
    try:
        return Limits.from_env()
    except ValueError as exc:
        raise ArchiveError(path, str(exc)) from None


def log_cost(lines: Iterable[bytes], tail: bytes) -> int:
    """Return what a log counts against the limits: each line at least `LINE_COST` bytes."""
    cost = sum(max(len(line) + 1, LINE_COST) for line in lines)
    return cost + (max(len(tail), LINE_COST) if tail else 0)


def over_limit(what: str, limit: int, scope: str) -> str:
    """Return the message for a log (`scope` "log") or an archive over its limit, and the way out."""
    option, env = (
        ("--max-member-size", ENV_MAX_MEMBER_SIZE) if scope == "log"
        else ("--max-archive-size", ENV_MAX_ARCHIVE_SIZE)
    )
    return f"{what} more than {size_name(limit)}, the limit per {scope} (raise it with {option} or {env})"


def too_many(what: str, limit: int) -> str:
    """Return the message for an archive of more logs than the limit, and the way out."""
    return (f"{what} more than {limit:,} logs, the limit per archive (raise it with "
            f"--max-members or {ENV_MAX_MEMBERS})")


def name_problem(name: str) -> str | None:
    """Return why a log's name is over the name limits (too long, too deep), or None."""
    depth = name.count("/")
    if depth > MAX_DEPTH:
        return f"a log name {depth:,} folders deep, over {MAX_DEPTH}, the limit"
    size = len(name) if len(name) * 4 <= MAX_NAME else len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME:
        return f"a log name of {size:,} bytes, over {MAX_NAME:,}, the limit"
    return None


def log_size(lines: list[bytes], tail: bytes) -> int:
    """Return the bytes of a log file holding `lines` (each with its newline) and `tail`."""
    return sum(map(len, lines)) + len(lines) + len(tail)


def log_digest(lines: Iterable[bytes], tail: bytes) -> bytes:
    """Return the 8-byte digest a stored log carries: of its lines, each with its newline, and
    its torn tail."""
    h = hashlib.blake2b(digest_size=8)
    for line in lines:
        h.update(line)
        h.update(b"\n")
    h.update(tail)
    return h.digest()
