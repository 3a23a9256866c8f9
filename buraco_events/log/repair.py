"""Repairing a log: truncating a torn last line (a write cut short) after a backup.

Its own module because it is the one change ever made to stored bytes, with its own rule: only a
torn last line is removed, any other damage is reported and the file left untouched.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from .chain import verify_chain
from .lines import CorruptLogError, LogError, NotALogError, StrPath, end_error, raw_lines
from .writer import lock_log


@dataclass(frozen=True, slots=True)
class RepairResult:
    """What `repair` did: the events kept, the torn bytes removed, and the backup it made."""

    path: str
    events: int
    removed: int
    backup: str | None

    @property
    def repaired(self) -> bool:
        """Return whether a torn tail was removed."""
        return self.removed > 0


def _backup(path: Path) -> Path:
    """Copy the file to the first free `<path>.bak-<n>`, never overwriting a backup."""
    n = 1
    while True:
        bak = path.with_name(f"{path.name}.bak-{n}")
        try:
            dst = open(bak, "xb")
        except FileExistsError:
            n += 1
            continue
        with dst, open(path, "rb") as src:
            shutil.copyfileobj(src, dst)
            dst.flush()
            os.fsync(dst.fileno())
        return bak


def repair(path: StrPath) -> RepairResult:
    """Truncate a torn last line after a backup; any other damage raises and leaves the file be."""
    p = Path(path)
    fd = os.open(p, os.O_RDWR | os.O_CLOEXEC)
    try:
        lock_log(fd, p)
        lines = raw_lines(p)
        try:
            status = verify_chain(lines, lines.name)
        except NotALogError:
            raise
        except LogError as exc:
            raise CorruptLogError(
                exc.path, exc.lineno, exc.seq, exc.field,
                f"{exc.message}; only a torn last line is repaired: the file is left untouched",
            ) from None
        error = end_error(lines, status.events)
        if isinstance(error, NotALogError):
            raise error
        if not lines.torn:
            return RepairResult(str(p), status.events, 0, None)
        keep = os.fstat(fd).st_size - len(lines.tail)
        if os.pread(fd, len(lines.tail) + 1, keep) != lines.tail:
            raise CorruptLogError(p, None, None, None, "the file changed during the repair; retry")
        backup = _backup(p)
        os.ftruncate(fd, keep)
        os.fsync(fd)
        return RepairResult(str(p), status.events, len(lines.tail), str(backup))
    finally:
        os.close(fd)
