"""Writing a page: the output checked, the bytes written atomically, and the referee's report
page `buraco audit LOG --html FILE.html` writes (a page `buraco share` makes of a broken log).

The report page names a branch as `buraco share` does, and shows the game's rulings log (beside
the log) judged against it: the rulings table and the standings after rulings apart from the
recount. The audit's verdict stays about the log alone."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from buraco_events.audit.auditor import ParentLog
from buraco_events.audit.files import AuditInputError, audit_path
from buraco_events.audit.rulings import RulingError
from buraco_events.log.archive import ArchiveError
from buraco_events.log.reader import NotALogError
from buraco_events.views.replays import load_rulings, report_page

from .common import err, fail, fail_read, shown


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


def audit_page(html: Path, paths: list[Path], expect_head: str | None, force: bool,
               parent: ParentLog | None = None, rulings_file: Path | None = None) -> None:
    """Write the referee's report page of the one log `buraco audit --html` was given.

    The page holds the verdict, the problems, each hand's recount beside its claim, the rulings
    (from the rulings log beside the log) with the standings after them apart from the recount,
    and the referee's table at every step that replays, opening at the first bad event.
    """
    check_output(html, force)
    audits = []
    try:
        for path in paths:
            for result in audit_path(path, expect_head, parent=parent):
                audits.append(result)
                if len(audits) > 1:
                    fail("--html writes the report of one log: give one log file", 2)
    except AuditInputError as exc:
        fail(str(exc), 2)
    if not audits:
        fail("--html: no log to report on", 2)
    report = audits[0].report
    try:
        rulings = load_rulings(Path(report.path), rulings_file)
    except (RulingError, OSError, NotALogError, ArchiveError) as exc:
        err().print(f"note: the rulings are left out of the page: {shown(exc)}", soft_wrap=True)
        rulings = None
    try:
        page, at = report_page(report, rulings)
    except (OSError, NotALogError, ArchiveError) as exc:
        fail_read(exc)
    size = write_page(html, page, force)
    err().print(f"report page written to {shown(html)} ({size:,} bytes, opens at seq {at})")
