"""`buraco archive pack|unpack|list`: many logs in one compact `.bza` file, restored byte for byte.

Reading an archive is bounded: `--max-member-size` and `--max-archive-size` (or the environment
variables `BURACO_MAX_MEMBER_SIZE` and `BURACO_MAX_ARCHIVE_SIZE`, which every command reading
archives honours) set what one log and the whole archive may restore to.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Annotated

import msgspec
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from buraco_events.archive import (
    MAX_ARCHIVE_SIZE,
    MAX_MEMBER_SIZE,
    ArchiveError,
    Limits,
    log_sources,
    members,
    pack,
    parse_size,
    size_name,
    unpack,
)

from .common import err, fail, out, shown
from .log_cmd import fail_on, say

app = typer.Typer(help="Pack game logs into one compact archive, unpack it, or list it.",
                  no_args_is_help=True)

MaxMember = Annotated[str | None, typer.Option(
    "--max-member-size", metavar="SIZE", show_default=False,
    help=f"the most one log may restore to (default {size_name(MAX_MEMBER_SIZE)}, or "
         "$BURACO_MAX_MEMBER_SIZE; K, M, G are powers of 1024)")]
MaxArchive = Annotated[str | None, typer.Option(
    "--max-archive-size", metavar="SIZE", show_default=False,
    help=f"the most all its logs may restore to (default {size_name(MAX_ARCHIVE_SIZE)}, or "
         "$BURACO_MAX_ARCHIVE_SIZE)")]


def limits_of(max_member: str | None, max_archive: str | None) -> Limits:
    """Return the limits from the options, over the environment's or the defaults (exit 2 if bad)."""
    try:
        limits = Limits.from_env()
    except ValueError as exc:
        fail(str(exc), 2)
    for option, text, field in (("--max-member-size", max_member, "member"),
                                ("--max-archive-size", max_archive, "archive")):
        if text is not None:
            try:
                limits = dataclasses.replace(limits, **{field: parse_size(text)})
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
) -> None:
    """Pack logs into an archive; print events, bytes and bytes per event."""
    limits = limits_of(max_member, max_archive)
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
) -> None:
    """Unpack an archive's logs, byte for byte, into a new folder that appears whole or not at all."""
    limits = limits_of(max_member, max_archive)
    try:
        result = unpack(archive, output, limits=limits)
    except (ArchiveError, OSError) as exc:
        fail_on(exc)
    say(f"{output}: {result.logs} logs, {result.events:,} events, {result.bytes:,} bytes")


@app.command("list")
def list_(
    archive: Annotated[Path, typer.Argument(help="an archive (.bza)", show_default=False)],
    as_json: Annotated[bool, typer.Option(
        "--json", help="print one JSON object per log (name, events, bytes, head)")] = False,
    max_member: MaxMember = None,
    max_archive: MaxArchive = None,
) -> None:
    """List an archive's logs: name, events, bytes and head (SHA-256 of the last line), each checked."""
    limits = limits_of(max_member, max_archive)
    table = Table(title=shown(archive), title_justify="left", show_edge=False)
    for column in ("#", "log", "events", "bytes", "head"):
        table.add_column(column, justify="right" if column in ("#", "events", "bytes") else "left",
                         overflow="fold")
    logs = events = size = 0
    problem: ArchiveError | OSError | None = None
    try:
        for logs, member in enumerate(members(archive, limits), 1):
            events += member.events
            size += member.bytes
            if as_json:
                sys.stdout.write(msgspec.json.encode(dataclasses.asdict(member)).decode() + "\n")
            else:
                table.add_row(str(logs), shown(member.name), f"{member.events:,}",
                              f"{member.bytes:,}", member.head or "-")
    except (ArchiveError, OSError) as exc:
        problem = exc  # the logs read before it are still shown
    if not as_json and logs:
        out().print(table)
    if problem is not None:
        fail_on(problem)
    if not as_json:
        say(f"{archive}: {logs} logs, {events:,} events, {size:,} bytes")
