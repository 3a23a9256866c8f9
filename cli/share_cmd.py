"""`buraco share LOG -o FILE.html`: a replay anyone can open, one self-contained HTML page.

The page (built by `buraco_events.share.replay_page`) works offline from disk and holds, per step,
the object of `buraco replay LOG --at SEQ --json [--as SEAT]`. `--as` makes it that seat's page:
the steps are the seat's views, so nothing the seat could not see is in the file. `--spoiler-free`
keeps the result out of the title and the header. `buraco audit LOG --html FILE.html` writes the
referee's report as such a page (`audit_page`, called from the audit command).

The page is written atomically (a temporary file beside it, then renamed), and an existing file
is never replaced unless `--force` is given. Only a log that replays to its end is shared: a page
of a broken log is the audit's report. Exit 1 for a log that was read and is wrong, 2 for one that
cannot be read or for an output that cannot be written.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import Annotated

import msgspec
import typer

from buraco_events.archive import ArchiveError
from buraco_events.audit import FAILING, AuditInputError, audit_path
from buraco_events.log import NotALogError
from buraco_events.projections import Timeline
from buraco_events.replays import error_for, load
from buraco_events.share import audit_command, replay_page, timeline_steps

from .common import err, fail, fail_read, out, shown
from .replay_opts import open_replay, resolve_seat, resolve_seq


def shown_name(log: Path) -> str:
    """Return the log's name as a page shows it: the file's name, or `ARCHIVE.bza/NAME`.

    The reader checks their own copy of the log; the sharer's folders are nobody's business.
    """
    if not log.exists():
        for parent in log.parents:
            if parent.is_file():  # an archive member: keep the member's path inside it
                return f"{parent.name}/{log.relative_to(parent).as_posix()}"
    return log.name


def check_output(output: Path, force: bool, log: Path | None = None) -> None:
    """Refuse an output that is a folder, the log itself, or (without `force`) an existing file."""
    if output.is_dir():
        fail(f"{output}: is a folder; give the page's file name (FILE.html)", 2)
    if log is not None and output.exists() and log.exists() and output.samefile(log):
        fail(f"{output}: is the log itself; write the page elsewhere", 2)
    if output.exists() and not force:
        fail(f"{output}: exists; --force replaces it", 2)


def write_page(output: Path, page: str, force: bool) -> int:
    """Write the page atomically and return its size; never replace a file unless `force`.

    The bytes go to a temporary file beside the output, then take its name in one step: renamed
    over it with `force`, else hard-linked (which fails if the name exists, so a file that
    appeared meanwhile is kept). A reader never sees half a page.
    """
    data = page.encode()
    folder = output.parent
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{output.name}.", suffix=".tmp")
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror or exc}", 2)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o644)  # an ordinary file once renamed, not a private temp
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if force:
            os.replace(tmp, output)
        else:
            try:
                os.link(tmp, output)
            except FileExistsError:
                fail(f"{output}: exists; --force replaces it", 2)
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                    raise
                # a file system without hard links: check, then rename (a narrow race)
                if output.exists():
                    fail(f"{output}: exists; --force replaces it", 2)
                os.replace(tmp, output)
    except OSError as exc:
        fail(f"{output}: cannot write: {exc.strerror or exc}", 2)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return len(data)


def opening_seq(timeline: Timeline, at: int | None) -> int:
    """Return the seq the page opens at: `--at`, else the first deal (the first table to see)."""
    if at is not None:
        return resolve_seq(timeline, at, None, False)
    return timeline.hand_start(0) if timeline.n_hands else 0


def share(
    log: Annotated[Path, typer.Argument(
        help="a game log (.jsonl), or one log of an archive: ARCHIVE.bza/NAME.jsonl",
        show_default=False)],
    output: Annotated[Path, typer.Option(
        "-o", "--output", metavar="FILE.html", help="the page to write", show_default=False)],
    as_seat: Annotated[str | None, typer.Option(
        "--as", help="the page of this seat (index or player name): only what it could see")] = None,
    at: Annotated[int | None, typer.Option(
        "--at", help="open at this seq (default: the first deal)")] = None,
    spoiler_free: Annotated[bool, typer.Option(
        "--spoiler-free", help="keep totals, the winner and the number of hands out of the title,"
        " the first screen and any summary")] = False,
    force: Annotated[bool, typer.Option("--force", help="replace an existing output file")] = False,
) -> None:
    """Write one self-contained HTML page replaying a game, to open offline anywhere."""
    check_output(output, force, log)
    loaded, timeline, errors = open_replay(log, public=as_seat is not None)
    seat = resolve_seat(as_seat, timeline.players)
    error = errors(seat)  # in the words the page's seat may read
    if error:
        fail(f"{error} (only a log that replays to its end is shared; `buraco audit {log} --html"
             " FILE.html` writes the referee's report of this one)", 1)
    seq = opening_seq(timeline, at)
    steps = timeline_steps(timeline, seat, sealed=loaded.sealed, error=None)
    source = shown_name(log)
    page = replay_page(
        steps, source=source, head=loaded.head, sealed=loaded.sealed, seat=seat, at=seq,
        spoiler_free=spoiler_free, rules=msgspec.to_builtins(timeline.final.rules),
    )
    size = write_page(output, page, force)
    who = "the referee (every card)" if seat is None else f"seat {seat} ({timeline.players[seat]})"
    out().print(
        f"{shown(output)}: {len(steps)} steps, {size:,} bytes, seen by {shown(who)}, opens at seq"
        f" {seq}{', spoiler-free' if spoiler_free else ''}", soft_wrap=True,
    )
    out().print(f"check: {shown(audit_command(source, loaded.head))}", soft_wrap=True)
    if not loaded.sealed:
        err().print(f"note: {shown(log)} is unsealed (no prev chain): the head covers only its last line")


def audit_page(html: Path, paths: list[Path], expect_head: str | None, force: bool) -> None:
    """Write the referee's report page of the one log `buraco audit --html` was given.

    The page holds the verdict, the problems, each hand's recount beside its claim, and the
    referee's table at every step that replays, opening at the first bad event.
    """
    check_output(html, force)
    audits = []
    try:
        for path in paths:
            for result in audit_path(path, expect_head):
                audits.append(result)
                if len(audits) > 1:
                    fail("--html writes the report of one log: give one log file", 2)
    except AuditInputError as exc:
        fail(str(exc), 2)
    if not audits:
        fail("--html: no log to report on", 2)
    report = audits[0].report
    source = Path(report.path)
    try:
        loaded = load(source)
    except (OSError, NotALogError, ArchiveError) as exc:
        fail_read(exc)
    timeline = Timeline(loaded.events)
    # each step is exactly `buraco replay --json` of this log, its error included
    error = error_for(source, loaded, timeline)(None)
    steps = timeline_steps(timeline, None, sealed=loaded.sealed, error=error)
    failing = [p.seq for p in report.problems if p.kind in FAILING]
    # the bad event itself when it replays (a score claim), else the table just before it
    at = max(0, min(failing[0] if failing else timeline.last, timeline.last))
    rules = msgspec.to_builtins(timeline.final.rules) if steps else None
    page = replay_page(
        steps, source=shown_name(source), head=report.head, sealed=report.sealed, seat=None, at=at,
        rules=rules, audit=msgspec.to_builtins(report),
    )
    size = write_page(html, page, force)
    err().print(f"report page written to {shown(html)} ({size:,} bytes, opens at seq {at})")
