"""`buraco archive pack|unpack|list`: many logs in one compact `.bza` file, restored byte for byte.

Reading an archive is bounded: `--max-member-size`, `--max-archive-size` and `--max-members` (or
the environment variables `BURACO_MAX_MEMBER_SIZE`, `BURACO_MAX_ARCHIVE_SIZE` and
`BURACO_MAX_MEMBERS`, which every command reading archives honours) set what one log and the
whole archive may restore to, and how many logs it may hold.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Annotated

import msgspec
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from buraco_events.log.archive import (
    MAX_ARCHIVE_SIZE,
    MAX_MEMBER_SIZE,
    MAX_MEMBERS,
    ArchiveError,
    Limits,
    Member,
    log_sources,
    members,
    pack,
    parse_count,
    unpack,
)
from buraco_events.util.sizes import UNITS_HELP, parse_size, size_name
from buraco_events.util.text import visible

from .common import err, fail
from .log_cmd import fail_on, say

app = typer.Typer(help="Pack game logs into one compact archive, unpack it, or list it.",
                  no_args_is_help=True)

MaxMember = Annotated[str | None, typer.Option(
    "--max-member-size", metavar="SIZE", show_default=False,
    help=f"the most one log may restore to (default {size_name(MAX_MEMBER_SIZE)}, or "
         f"$BURACO_MAX_MEMBER_SIZE; {UNITS_HELP})")]
MaxArchive = Annotated[str | None, typer.Option(
    "--max-archive-size", metavar="SIZE", show_default=False,
    help=f"the most all its logs may restore to (default {size_name(MAX_ARCHIVE_SIZE)}, or "
         f"$BURACO_MAX_ARCHIVE_SIZE; {UNITS_HELP})")]
MaxMembers = Annotated[str | None, typer.Option(
    "--max-members", metavar="COUNT", show_default=False,
    help=f"the most logs it may hold (default {MAX_MEMBERS:,}, or $BURACO_MAX_MEMBERS)")]


def limits_of(max_member: str | None, max_archive: str | None,
              max_members: str | None = None) -> Limits:
    """Return the limits from the options, over the environment's or the defaults (exit 2 if bad)."""
    try:
        limits = Limits.from_env()
    except ValueError as exc:
        fail(str(exc), 2)
    for option, text, field, parse in (
        ("--max-member-size", max_member, "member", parse_size),
        ("--max-archive-size", max_archive, "archive", parse_size),
        ("--max-members", max_members, "members", parse_count),
    ):
        if text is not None:
            try:
                limits = dataclasses.replace(limits, **{field: parse(text)})
            except ValueError as exc:
                fail(f"{option}: {exc}", 2)
    return limits


@app.command("pack")
def pack_(
    paths: Annotated[list[Path], typer.Argument(
        help="log files and folders (their *.jsonl, recursively)", show_default=False)],
    output: Annotated[Path, typer.Option(
        "-o", "--output", help="the archive to write (.bza)", show_default=False)],
    max_member: MaxMember = None,
    max_archive: MaxArchive = None,
    max_members: MaxMembers = None,
) -> None:
    """Pack logs into an archive; print events, bytes and bytes per event."""
    limits = limits_of(max_member, max_archive, max_members)
    try:
        if not log_sources(paths):
            fail(f"no *.jsonl logs under {', '.join(map(str, paths))}: nothing to pack", 1)
    except ArchiveError as exc:
        fail_on(exc)
    progress = Progress(
        TextColumn("packing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=err(), transient=True, disable=not err().is_terminal,
    )
    task = progress.add_task("pack", total=None)
    try:
        with progress:
            result = pack(
                paths, output, limits=limits,
                progress=lambda done, total: progress.update(task, completed=done, total=total),
            )
    except (ArchiveError, OSError) as exc:
        fail_on(exc)
    except MemoryError:
        fail(f"{output}: out of memory packing it")
    say(
        f"{output}: {result.logs} logs, {result.events:,} events, {result.input_bytes:,} bytes "
        f"-> {result.output_bytes:,} bytes, {result.bytes_per_event:.2f} bytes/event "
        f"({result.verbatim} lines kept verbatim)",
    )


@app.command("unpack")
def unpack_(
    archive: Annotated[Path, typer.Argument(help="an archive (.bza)", show_default=False)],
    output: Annotated[Path, typer.Option(
        "-o", "--output", help="the folder to write the logs into (new or empty)",
        show_default=False)],
    max_member: MaxMember = None,
    max_archive: MaxArchive = None,
    max_members: MaxMembers = None,
) -> None:
    """Unpack an archive's logs, byte for byte, into a new folder that appears whole or not at all."""
    limits = limits_of(max_member, max_archive, max_members)
    try:
        result = unpack(archive, output, limits=limits)
    except (ArchiveError, OSError) as exc:
        fail_on(exc)
    except MemoryError:
        fail(f"{archive}: out of memory reading it (lower limits need less)")
    say(f"{output}: {result.logs} logs, {result.events:,} events, {result.bytes:,} bytes")


#: rows that set the listing's column widths; the rows after them stream in those widths
_WIDTH_ROWS = 1000
_COLUMNS = ("#", "log", "events", "bytes", "head")


class _Listing:
    """An archive's listing as a table, streamed: the first `_WIDTH_ROWS` rows set the widths of
    the columns, then every row is written as it comes (a longer one shifts its own line only).
    Plain text: names are shown escaped (`visible`), never interpreted."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.waiting: list[tuple[str, ...]] = []
        self.widths: list[int] | None = None
        self.lines: list[str] = []

    def add(self, number: int, member: Member) -> None:
        row = (str(number), visible(member.name), f"{member.events:,}", f"{member.bytes:,}",
               member.head or "-")
        if self.widths is None:
            self.waiting.append(row)
            if len(self.waiting) >= _WIDTH_ROWS:
                self._start()
        else:
            self._line(row)

    def _start(self) -> None:
        rows = self.waiting
        self.widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(_COLUMNS)]
        self.lines.append(self.title)
        self._line(_COLUMNS)
        self.lines.append("┼".join("─" * (w + 2) for w in self.widths)[1:-1])
        for row in rows:
            self._line(row)
        self.waiting = []

    def _line(self, row: tuple[str, ...]) -> None:
        assert self.widths is not None
        number, name, events, size, head = row
        w = self.widths
        self.lines.append(f"{number:>{w[0]}} │ {name:<{w[1]}} │ {events:>{w[2]}} │ "
                          f"{size:>{w[3]}} │ {head}")
        if len(self.lines) >= _WIDTH_ROWS:
            self.flush()

    def flush(self) -> None:
        sys.stdout.write("".join(line + "\n" for line in self.lines))
        self.lines = []

    def close(self) -> None:
        if self.waiting:
            self._start()
        self.flush()  # no rows: no table


@app.command("list")
def list_(
    archive: Annotated[Path, typer.Argument(help="an archive (.bza)", show_default=False)],
    as_json: Annotated[bool, typer.Option(
        "--json", help="print one JSON object per log (name, events, bytes, head)")] = False,
    max_member: MaxMember = None,
    max_archive: MaxArchive = None,
    max_members: MaxMembers = None,
) -> None:
    """List an archive's logs: name, events, bytes and head (SHA-256 of the last line), each checked."""
    limits = limits_of(max_member, max_archive, max_members)
    listing = _Listing(visible(str(archive)))
    encode = msgspec.json.encode
    logs = events = size = 0
    problem: ArchiveError | OSError | MemoryError | None = None
    batch: list[bytes] = []
    try:
        for logs, member in enumerate(members(archive, limits), 1):
            events += member.events
            size += member.bytes
            if as_json:
                batch.append(encode(member))
                if len(batch) >= _WIDTH_ROWS:
                    sys.stdout.write(b"\n".join(batch).decode() + "\n")
                    batch = []
            else:
                listing.add(logs, member)
    except (ArchiveError, OSError, MemoryError) as exc:
        problem = exc  # the logs read before it are still shown
    if batch:
        sys.stdout.write(b"\n".join(batch).decode() + "\n")
    if not as_json:
        listing.close()
    sys.stdout.flush()
    if isinstance(problem, MemoryError):
        fail(f"{archive}: out of memory reading it (lower limits need less)")
    if problem is not None:
        fail_on(problem)
    if not as_json:
        say(f"{archive}: {logs} logs, {events:,} events, {size:,} bytes")
