"""The audit's files: a path (a log file, a folder of logs or an archive) audited log by log in
worker processes, in the logs' order (`audit_path`), and the parent log a branch is proved
against (`read_parent_log`, `parent_log`). Whatever cannot be read is an `AuditInputError`: one
line naming the file; the checking itself is `auditor.audit_lines`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial as partial_fn
from pathlib import Path

from buraco_events.log.archive_format import ArchiveError
from buraco_events.log.lines import LogError, RawLines, decode_lines, os_reason
from buraco_events.log.sources import (
    CHUNK_BYTES,
    chunk_bytes,
    first_name,
    held_bytes,
    iter_logs,
    open_source,
)
from buraco_events.model.events import GameStarted, event_type
from buraco_events.util.pool import WorkerError, chunked, collector_paused, ordered_map

from .auditor import ParentLog, audit_lines
from .report import Audit


class AuditInputError(ValueError):
    """A path that cannot be read as game logs (missing, unreadable, no log inside).

    For a damaged archive, `unread` counts its logs that could not be read and `damage` says
    where it is damaged, so a tally accounts for every log it holds.
    """

    def __init__(self, message: str, unread: int = 0, damage: str | None = None) -> None:
        super().__init__(message)
        self.unread = unread
        self.damage = damage


def parent_log(name: str, lines: Iterable[bytes]) -> ParentLog:
    """Return a parent log from its whole lines; raises `AuditInputError` when its first line is
    not a `game_started` event (the input is not a log to prove a branch against)."""
    kept = list(lines)
    if not kept:
        raise AuditInputError(f"{name}: --parent: empty file: not a log (a log holds at least its"
                              " game_started line)")
    try:
        _, _, first = next(decode_lines(kept[:1], name))  # an older schema's line 1 upcast
    except LogError as exc:
        raise AuditInputError(f"--parent: {exc}") from None
    if not isinstance(first, GameStarted):
        raise AuditInputError(f"{name}: --parent: line 1: seq {first.seq}: field type: the first"
                              f" event of a log is game_started, not {event_type(first)}")
    return ParentLog(name, first.game_id, kept)


#: logs per chunk sent to a worker (see `pool.ordered_map`)
CHUNK_LOGS = 16


def read_parent_log(path: Path) -> ParentLog:
    """Read the parent log a branch is proved against: a log file or `ARCHIVE.bza/NAME`, its
    whole lines as stored. Raises `AuditInputError` when it cannot be read or is not a log."""
    try:
        raw = open_source(path)
        lines = list(raw)
    except MemoryError:
        raise AuditInputError(f"{path}: --parent: out of memory reading it") from None
    except OSError as exc:
        raise AuditInputError(f"{exc.filename or path}: --parent: cannot read:"
                              f" {os_reason(exc)}") from None
    except (ArchiveError, LogError) as exc:
        raise AuditInputError(f"--parent: {exc}") from None
    return parent_log(str(path), lines)


def _audit_chunk(chunk: list[tuple[str, RawLines]], expect_head: str | None,
                 partial: bool, parent: ParentLog | None = None) -> list[Audit]:
    """Audit a chunk of logs in order (a worker's job), the collector paused meanwhile."""
    with collector_paused():
        return [audit_lines(lines, name, expect_head, partial, parent) for name, lines in chunk]


def audit_path(path: Path, expect_head: str | None = None, partial: bool = False,
               workers: int = 1, parent: ParentLog | None = None) -> Iterator[Audit]:
    """Audit every log at a path: a log file, a folder of `*.jsonl` (recursive) or an archive.

    Raises `AuditInputError` when the path is missing, unreadable or holds no log. A file that is
    not a log at all is still yielded, its `Audit.not_a_log` set (the caller says so, exit 2).
    `workers` processes (this one among them) audit the logs in chunks; the audits come in the
    logs' order whatever their number, and a damaged archive raises after the audits of the logs
    before the damage.
    With `parent` (`read_parent_log`), every log is also proved against it (`audit_lines`).
    """
    if not path.exists():
        raise AuditInputError(f"{path}: cannot read: no such file or folder")
    found = False
    audit = partial_fn(_audit_chunk, expect_head=expect_head, partial=partial, parent=parent)
    chunks = chunked(iter_logs(path), CHUNK_LOGS, held_bytes, CHUNK_BYTES)
    try:
        for audits in ordered_map(audit, chunks, workers, weight=chunk_bytes, budget=CHUNK_BYTES,
                                  name=first_name, share=True):
            found = True
            yield from audits
    except WorkerError as exc:  # names the chunk's first log
        raise AuditInputError(f"{exc} (auditing the logs from there; fewer --workers or lower "
                              "limits need less memory)") from None
    except MemoryError:
        raise AuditInputError(f"{path}: out of memory reading it") from None
    except OSError as exc:
        raise AuditInputError(f"{exc.filename or path}: cannot read: {os_reason(exc)}") from None
    except ArchiveError as exc:
        damage = None
        if exc.member is not None:
            of = f" of {exc.total}" if exc.total is not None else ""
            damage = f"{exc.path} is damaged at member {exc.member}{of}"
        raise AuditInputError(str(exc), exc.unread or 0, damage) from None
    except LogError as exc:
        raise AuditInputError(str(exc)) from None
    if not found:
        raise AuditInputError(f"{path}: no *.jsonl log in this folder")
