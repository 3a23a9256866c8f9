"""`buraco log check|head|repair FILE`: one game log's integrity, head and torn-tail repair."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from buraco_events.log.lines import SourceError
from buraco_events.log.reader import check_lines, repair
from buraco_events.log.sources import open_source, refuse_archive
from buraco_events.play.branch import branch_in_lines
from buraco_events.util.text import visible

from .common import fail_read, out

app = typer.Typer(
    help="Check a game log, print its head, or repair a torn last line.", no_args_is_help=True
)
LogFile = Annotated[Path, typer.Argument(help="a game log (JSON Lines)", show_default=False)]


def say(text: str) -> None:
    """Print a line to stdout as it is (log content in it is escaped by the caller)."""
    out().print(text, markup=False, highlight=False, soft_wrap=True)


#: the exit on a read error, under the name other command groups import it by
fail_on = fail_read


@app.command("check")
def check(file: LogFile) -> None:
    """Check every line decodes, seq has no gaps, the hash chain holds, nothing follows
    game_ended and no line is torn; exit 1 on a problem, 2 if FILE cannot be read as a log."""
    try:
        lines = open_source(file)  # a file, or ARCHIVE.bza/NAME
        status = check_lines(lines)
    except (SourceError, OSError) as exc:
        fail_read(exc)
    sealed = "sealed" if status.sealed else "unsealed (no prev fields: changes are not detectable)"
    first = next(iter(lines), b"")
    if b'"type":"ruling"' in first[:40]:  # a referee's rulings log: it has no game_ended to reach
        say(f"{visible(str(file))}: ok, a rulings log, {sealed}, {status.events} rulings, head {status.head}")
        return
    what = branch_in_lines(lines)  # a what-if log is never the game: say so
    if what is not None:
        sealed = f"{visible(what)}, {sealed}"
    # the log format: a log without game_ended at its end is unfinished (a live game, or cut short)
    done = "complete" if status.complete else "unfinished (no game_ended yet: a live game or cut short)"
    say(f"{visible(str(file))}: ok, {sealed}, {done}, {status.events} events, head {status.head}")


@app.command("head")
def head_(file: LogFile) -> None:
    """Print the log's head, the SHA-256 of its last line, which seals the whole log; the whole
    log is checked first as `log check` does (exit 1 or 2, and no head, if it fails)."""
    try:
        status = check_lines(open_source(file))  # a file, or ARCHIVE.bza/NAME
    except (SourceError, OSError) as exc:
        fail_read(exc)
    typer.echo(status.head)


@app.command("repair")
def repair_(file: LogFile) -> None:
    """Truncate a torn last line after a backup; refuse any other damage (exit 1)."""
    try:
        refuse_archive(file)  # an archive is never a log to truncate
        result = repair(file)
    except (SourceError, OSError) as exc:
        fail_read(exc)
    if result.repaired:
        say(f"{visible(str(file))}: removed a torn last line ({result.removed} bytes), kept "
            f"{result.events} events; backup at {visible(str(result.backup))}")
    else:
        say(f"{visible(str(file))}: nothing to repair ({result.events} events)")
