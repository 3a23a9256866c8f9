"""`buraco archive pack|unpack`: many logs in one compact `.bza` file, restored byte for byte."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from buraco_events.archive import ArchiveError, log_sources, pack, unpack

from .common import err, fail
from .log_cmd import fail_on, say

app = typer.Typer(help="Pack game logs into one compact archive, or unpack it.",
                  no_args_is_help=True)


@app.command("pack")
def pack_(
    paths: Annotated[list[Path], typer.Argument(
        help="log files and folders (their *.jsonl, recursively)", show_default=False)],
    output: Annotated[Path, typer.Option(
        "-o", "--output", help="the archive to write (.bza)", show_default=False)],
) -> None:
    """Pack logs into an archive; print events, bytes and bytes per event."""
    try:
        if not log_sources(paths):
            fail(f"no *.jsonl logs under {', '.join(map(str, paths))}: nothing to pack", 1)
    except ArchiveError as exc:
        fail(str(exc), 1)
    progress = Progress(
        TextColumn("packing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=err(), transient=True, disable=not err().is_terminal,
    )
    task = progress.add_task("pack", total=None)
    try:
        with progress:
            result = pack(
                paths, output,
                progress=lambda done, total: progress.update(task, completed=done, total=total),
            )
    except ArchiveError as exc:
        fail(str(exc), 1)
    except OSError as exc:
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
        "-o", "--output", help="the folder to write the logs into", show_default=False)],
) -> None:
    """Unpack an archive's logs, byte for byte, into a folder (never overwriting a file)."""
    try:
        result = unpack(archive, output)
    except ArchiveError as exc:
        fail(str(exc), 1)
    except OSError as exc:
        fail_on(exc)
    say(f"{output}: {result.logs} logs, {result.events:,} events, {result.bytes:,} bytes")
