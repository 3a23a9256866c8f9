"""Log sources: the one way every command names and opens the logs a path holds (a shell module).

A path is a log file, a folder (its `*.jsonl`, recursively, sorted: `lines.log_files`), an archive
(`.bza`, its logs in stored order) or one log inside an archive, written `ARCHIVE.bza/NAME`. Each
log comes as a `lines.RawLines` whose `name` is what commands print (`FOLDER/x.jsonl`,
`ARCHIVE.bza/NAME`), read with `reader.EventReader`. Files are read through `lines.raw_lines` and
archives through `archive_read.iter_archive`, bounded as they are; this module only names and
opens. It imports both, so that neither imports the other.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from buraco_events.model.events import AnyEvent

from .archive_read import StoredLines, is_archive, iter_archive
from .lines import NotALogError, RawLines, StrPath, is_tournament_log, log_files, raw_lines
from .reader import EventReader


class WholeArchiveError(NotALogError, ValueError):
    """A whole archive given where one log is asked for: not a log (exit 2), named with how to
    name one of its logs. It is a ValueError too, as a damaged archive's error is, so a reader
    that takes an archive's errors takes this one."""


def refuse_archive(path: Path) -> None:
    """Raise `WholeArchiveError` if a path is an archive file, where one log is asked for."""
    if path.is_file() and is_archive(path):
        raise WholeArchiveError(path, None, None, None,
                                f"an archive: name a member ({path}/NAME), see `buraco archive list {path}`")


def _archive_member(path: Path) -> tuple[Path, str] | None:
    """Return (archive, member name) for a path `ARCHIVE.bza/NAME` that is no file, else None."""
    if path.exists():
        return None
    for parent in path.parents:
        if parent.is_file() and is_archive(parent):
            return parent, path.relative_to(parent).as_posix()
    return None


def open_source(path: StrPath) -> RawLines:
    """Return the lines of one log: a file, or `ARCHIVE.bza/NAME` (read whole from the archive).

    A member the archive does not hold raises `FileNotFoundError`; a damaged archive
    `archive_format.ArchiveError`; a whole archive, where one log is asked for,
    `WholeArchiveError` saying how to name one of its logs.
    """
    p = Path(path)
    found = _archive_member(p)
    if found is None:
        refuse_archive(p)
        return raw_lines(p)
    archive, member = found
    for name, lines in iter_archive(archive):
        if name == member:
            return RawLines(str(p), list(lines), lines.tail)
    raise FileNotFoundError(2, f"no log {member!r} in the archive", str(archive))


def iter_logs(path: StrPath) -> Iterator[tuple[str, RawLines]]:
    """Yield (name, lines) for each log a path holds, named as commands print them.

    A folder gives each `*.jsonl` under it (recursive, sorted) but the tournament logs, an archive each of its logs
    (named `ARCHIVE.bza/NAME`, one in memory at a time), anything else the one log it names
    (`open_source`). An unreadable path raises `OSError`, a damaged archive `ArchiveError` after
    the logs before the damage.
    """
    p = Path(path)
    if p.is_dir():
        for f in log_files(p):
            if not is_tournament_log(f):  # a tournament's own log: no game (`tournament_files`)
                yield str(f), raw_lines(f)
    elif is_archive(p):
        for name, lines in iter_archive(p):
            lines.name = f"{p}/{name}"
            yield lines.name, lines
    else:
        lines = open_source(p)
        yield lines.name, lines


#: the weight (`held_bytes`) of a chunk of logs sent to a worker at once: 16 real games (30-400 KB
#: each) fit; a bigger log goes alone
CHUNK_BYTES = 8 << 20


def held_bytes(item: tuple[str, RawLines]) -> int:
    """Return about the memory a log from `iter_logs` holds until it is read: its lines when they
    come from an archive, nothing for a file (read as it is used)."""
    lines = item[1]
    return lines.held if isinstance(lines, StoredLines) else 0


def chunk_bytes(chunk: list[tuple[str, RawLines]]) -> int:
    """Return about the memory a chunk of logs from `iter_logs` holds (`held_bytes` of each): the
    weight `util.pool.ordered_map` budgets."""
    return sum(map(held_bytes, chunk))


def first_name(chunk: list[tuple[str, RawLines]]) -> str:
    """Return the name of a chunk's first log: how a worker's failure names its chunk."""
    return chunk[0][0]


def read_log(path: StrPath) -> Iterator[tuple[int, bytes, AnyEvent]]:
    """Yield (line number from 1, line, event) of one log (a file or `ARCHIVE.bza/NAME`),
    checking it as `reader.EventReader` does and raising the first problem."""
    return iter(EventReader(open_source(path)))
