"""A log read for replaying: its good events, whether it is sealed, its head, and the error each
view of it shows (a shell module: it reads a file or one log of an archive through `sources`).

`load` reads a log up to its first bad line (one that does not decode, a seq gap or a broken
chain) and keeps that line's error; `projections.Timeline` folds the good events, stopping at an
illegal one. `error_for` then gives the one error each view shows: the bad line's if any, else the
illegal event's in the words the viewing seat may read (`projections.seat_error`), so a seat's
view never names a card that seat cannot see. `buraco replay` and `buraco share` show both.
`load_rulings` reads a log's rulings log (`GAME.rulings.jsonl` beside it, or one named) and
judges it against the log (`audit.rulings`): `replay`, `share` and the audit page show each ruling
at its hand, and the standings after rulings apart from the recount.
`report_page` makes the referee's report page of an audited log (`buraco audit --html`): every
step as `buraco replay --json` gives it, opening at the first bad event.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from buraco_events.audit.rulings import (
    RulingError,
    RulingsReport,
    log_facts,
    rulings_path,
    rulings_report,
)
from buraco_events.audit.verdicts import FAILING
from buraco_events.log.lines import LogError, NotALogError, raw_lines
from buraco_events.log.reader import EventReader
from buraco_events.log.sources import open_source
from buraco_events.model.events import Event, line_hash

from .projections import Timeline, seat_error
from .share import replay_page, timeline_steps

if TYPE_CHECKING:  # the audit is imported by who audits, not by every replay
    from buraco_events.audit.report import AuditReport

#: the error to show a seat (None: the referee), or None when the log replays to its end
ErrorFor = Callable[[int | None], str | None]


class Loaded(msgspec.Struct, frozen=True):
    """A log read as far as it goes: its good events, whether it is sealed, the first error,
    and the head (SHA-256 of the last good line; None when no line was read)."""

    events: list[Event]
    sealed: bool
    error: str | None
    head: str | None = None


def load(path: Path) -> Loaded:
    """Read a log's events (a file or `ARCHIVE.bza/NAME`) up to the first bad line (decode, seq
    or chain).

    OSError, `archive_format.ArchiveError` and `NotALogError` (input that is not a log at all) propagate.
    """
    reader = EventReader(open_source(path))
    events: list[Event] = []
    error: str | None = None
    try:
        events.extend(event for _, _, event in reader)
    except NotALogError:
        raise
    except LogError as exc:
        error = str(exc)
    status = reader.status()
    return Loaded(events, status.sealed, error, status.head)


def timeline_error(path: Path, timeline: Timeline, seat: int | None = None) -> str | None:
    """Return the illegal event that stopped the replay, as one line naming file, line and seq,
    in the words `seat` may read (None: the referee's, naming every card)."""
    exc = timeline.error
    if exc is None:
        return None
    line = f": line {exc.seq + 1}" if exc.seq is not None else ""
    return f"{path}{line}: illegal event: {seat_error(exc, seat)}"


def error_for(path: Path, loaded: Loaded, timeline: Timeline) -> ErrorFor:
    """Return the error each view shows: the first bad line's, else the illegal event's."""
    return lambda seat: loaded.error or timeline_error(path, timeline, seat)


def shown_name(log: Path) -> str:
    """Return the log's name as a page shows it: the file's name, or `ARCHIVE.bza/NAME`.

    The reader checks their own copy of the log; the sharer's folders are nobody's business.
    """
    if not log.exists():
        for parent in log.parents:
            if parent.is_file():  # an archive member: keep the member's path inside it
                return f"{parent.name}/{log.relative_to(parent).as_posix()}"
    return log.name


def load_rulings(log: Path, rulings_file: Path | None = None) -> RulingsReport | None:
    """Return the rulings report of a log: its rulings log (`rulings_file`, default
    `GAME.rulings.jsonl` beside it) judged against the log's lines as stored; None when the
    default rulings log is not there. Raises `RulingError` (2) for a named rulings log that is
    missing or unreadable, and OSError / `ArchiveError` as `load` does for the log."""
    path = rulings_file if rulings_file is not None else rulings_path(log)
    if not path.exists():
        if rulings_file is not None:
            raise RulingError(f"--rulings {path}: cannot read: no such file or folder", 2)
        return None
    if path.is_dir():
        raise RulingError(f"--rulings {path}: is a folder; give a rulings log (GAME.rulings.jsonl)", 2)
    facts = log_facts(list(open_source(log)), str(log))
    return rulings_report(log, game=facts, rulings_file=path)


def rulings_head(report: RulingsReport) -> str | None:
    """Return the head of a report's rulings log (the SHA-256 of its last line), None if empty.
    Read as every log is (`raw_lines`: bounded lines, streamed), the torn tail left out."""
    last = None
    try:
        for line in raw_lines(report.path):
            last = line or last  # the lines ended by a newline, blank ones skipped
    except OSError:
        return None
    return line_hash(last) if last else None


def rulings_object(report: RulingsReport | None, name_only: bool = False) -> dict[str, object] | None:
    """Return a report as the `rulings` object of a replay step (builtins); `name_only` keeps the
    rulings log's folders out (a page shows file names, as `shown_name` does for the log)."""
    if report is None:
        return None
    obj: dict[str, object] = msgspec.to_builtins(report)
    if name_only:
        obj["path"] = Path(report.path).name
    return obj


def report_page(report: AuditReport, rulings: RulingsReport | None = None) -> tuple[str, int]:
    """Return the referee's report page of an audited log and the seq it opens at.

    The page holds the verdict, the problems, each hand's recount beside its claim, the rulings
    (`rulings`, judged against this log) with the standings after them apart from the recount,
    and the referee's table at every step that replays. Reading the log raises as `load` does.
    """
    source = Path(report.path)
    loaded = load(source)
    timeline = Timeline(loaded.events)
    # each step is exactly `buraco replay --json` of this log, its error included
    error = error_for(source, loaded, timeline)(None)
    ruled = rulings_object(rulings, name_only=True)
    steps = timeline_steps(timeline, None, sealed=loaded.sealed, error=error, rulings=ruled)
    failing = [p.seq for p in report.problems if p.kind in FAILING]
    # the bad event itself when it replays (a score claim), else the table just before it
    at = max(0, min(failing[0] if failing else timeline.last, timeline.last))
    rules = msgspec.to_builtins(timeline.final.rules) if steps else None
    page = replay_page(
        steps, source=shown_name(source), head=report.head, sealed=report.sealed, seat=None, at=at,
        rules=rules, audit=msgspec.to_builtins(report),
        rulings_head=rulings_head(rulings) if rulings is not None else None,
    )
    return page, at
