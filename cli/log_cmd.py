"""`buraco log check|head|repair FILE`: one game log's integrity, head and torn-tail repair."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer

from buraco_events.archive import ArchiveError
from buraco_events.log import LogError, check_log, head, repair

from .common import fail, out

app = typer.Typer(
    help="Check a game log, print its head, or repair a torn last line.", no_args_is_help=True
)
LogFile = Annotated[Path, typer.Argument(help="a game log (JSON Lines)", show_default=False)]


def say(text: str) -> None:
    """Print a plain line to stdout (no markup, no wrapping)."""
    out().print(text, markup=False, highlight=False, soft_wrap=True)


def fail_on(exc: Exception) -> NoReturn:
    """Exit with the one-line message of a log or file error (1: bad log, 2: unreadable file)."""
    if isinstance(exc, ArchiveError):  # a log inside an archive (ARCHIVE.bza/NAME)
        fail(str(exc), exc.exit_code)
    if isinstance(exc, OSError):
        fail(f"{exc.filename or ''}: {exc.strerror or exc}", 2)
    fail(str(exc), 1)


@app.command("check")
def check(file: LogFile) -> None:
    """Check every line decodes, seq has no gaps, the hash chain holds and no line is torn."""
    try:
        status = check_log(file)
    except (LogError, ArchiveError, OSError) as exc:
        fail_on(exc)
    sealed = "sealed" if status.sealed else "unsealed (no prev fields: changes are not detectable)"
    say(f"{file}: ok, {sealed}, {status.events} events, head {status.head or '-'}")


@app.command("head")
def head_(file: LogFile) -> None:
    """Print the log's head: the SHA-256 of its last line, which seals the whole log."""
    try:
        typer.echo(head(file))
    except (LogError, ArchiveError, OSError) as exc:
        fail_on(exc)


@app.command("repair")
def repair_(file: LogFile) -> None:
    """Truncate a torn last line after a backup; refuse any other damage (exit 1)."""
    try:
        result = repair(file)
    except (LogError, ArchiveError, OSError) as exc:
        fail_on(exc)
    if result.repaired:
        say(f"{file}: removed a torn last line ({result.removed} bytes), kept "
                    f"{result.events} events; backup at {result.backup}")
    else:
        say(f"{file}: nothing to repair ({result.events} events)")
