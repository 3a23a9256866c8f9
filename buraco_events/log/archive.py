"""Archives (`.bza`): many game logs in one compact file, restored byte for byte; packing and
unpacking them.

Pack streams log files and folders into one archive (`archive_format` says what a file holds,
`archive_codec` how each line is stored), written aside and renamed into place. Unpack reads an
archive twice through `archive_read` (names and structure first, then the logs) and writes into a
fresh sibling folder that is renamed into place once complete, never following a link nor
replacing a file. Every problem raises `ArchiveError`, naming the archive and the member.

Its own module because it holds what writes files; it also gives the names the commands import
from it (the limits, `members`, `is_archive`), whose homes are the format and reading modules.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import msgspec
import zstandard

from buraco_events.util.sizes import parse_size as parse_size
from buraco_events.util.sizes import size_name as size_name
from buraco_events.util.text import visible

from .archive_codec import Codec, header_tables, log_blob
from .archive_format import (
    END,
    FORMAT,
    HEADER,
    LEN,
    LEVEL,
    MAGIC,
    MEMBER_COST,
    WINDOW_LOG,
    ArchiveError,
    Limits,
    log_cost,
    log_size,
    name_problem,
    over_limit,
    resolve_limits,
    too_many,
)
from .archive_format import MAX_ARCHIVE_SIZE as MAX_ARCHIVE_SIZE
from .archive_format import MAX_MEMBER_SIZE as MAX_MEMBER_SIZE
from .archive_format import MAX_MEMBERS as MAX_MEMBERS
from .archive_format import parse_count as parse_count
from .archive_read import Member as Member
from .archive_read import is_archive as is_archive
from .archive_read import iter_stored
from .archive_read import members as members
from .lines import StrPath, log_files, raw_lines

_encoder = msgspec.msgpack.Encoder()


@dataclass(frozen=True, slots=True)
class PackResult:
    """What `pack` stored: logs, lines (events), lines kept verbatim, and sizes in bytes."""

    logs: int
    events: int
    verbatim: int
    input_bytes: int
    output_bytes: int

    @property
    def bytes_per_event(self) -> float:
        """Return the archive's size per stored line."""
        return self.output_bytes / self.events if self.events else 0.0


@dataclass(frozen=True, slots=True)
class UnpackResult:
    """What `unpack` wrote: logs, lines and bytes."""

    logs: int
    events: int
    bytes: int


def log_sources(paths: StrPath | Iterable[StrPath]) -> list[tuple[str, Path]]:
    """Return (name in the archive, file) for log files and folders (their `*.jsonl`, recursive)."""
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    sources: list[tuple[str, Path]] = []
    for p in map(Path, paths):
        if p.is_dir():
            sources += [(f.relative_to(p).as_posix(), f) for f in log_files(p)]
        elif p.is_file():
            sources.append((p.name, p))
        else:
            raise ArchiveError(p, "no such file or folder")
    seen: dict[str, Path] = {}
    for name, f in sources:
        if name in seen:
            raise ArchiveError(
                f, f"two logs would be named {visible(repr(name))} in the archive: {seen[name]}, {f}",
                exit_code=1,
            )
        seen[name] = f
    return sources


def pack(
    paths: StrPath | Iterable[StrPath],
    out_file: StrPath,
    *,
    level: int = LEVEL,
    progress: Callable[[int, int], None] | None = None,
    limits: Limits | None = None,
) -> PackResult:
    """Pack log files and folders into an archive, streaming; `progress(done, total)` per log.

    A log over the limits is refused (exit code 1), so what is packed unpacks under them too.
    """
    sources = log_sources(paths)
    out = Path(out_file)
    limits = resolve_limits(out, limits)
    if len(sources) > limits.members:
        raise ArchiveError(out, too_many(f"the logs are {len(sources):,},", limits.members),
                           exit_code=1)
    for name, path in sources:
        why = name_problem(name)
        if why is not None:
            raise ArchiveError(path, f"{why} (no archive may hold it)", exit_code=1)
    codec_header = header_tables() | {"logs": len(sources)}  # lets a reader count what damage hid
    codec = Codec(codec_header)
    # sized by the input (an upper bound of the stream), so small packs set up small tables
    size = sum(path.stat().st_size for _, path in sources)
    params = zstandard.ZstdCompressionParameters.from_level(
        level, source_size=size, write_checksum=True
    )
    if params.window_log > WINDOW_LOG:  # levels 20-22 ask more than a reader allows
        params = zstandard.ZstdCompressionParameters.from_level(
            level, source_size=size, write_checksum=True, window_log=WINDOW_LOG
        )
    events = verbatim = input_bytes = spent = 0
    tmp = tempfile.NamedTemporaryFile(dir=out.parent, prefix=f".{out.name}.", delete=False)
    try:
        with tmp:
            os.fchmod(tmp.fileno(), 0o644)  # an ordinary file once renamed, not a private temp
            tmp.write(MAGIC + bytes([FORMAT]))
            z = zstandard.ZstdCompressor(compression_params=params).stream_writer(tmp, closefd=False)

            def put(blob: bytes) -> None:
                z.write(LEN.pack(len(blob)))
                z.write(blob)

            put(_encoder.encode([HEADER, codec_header]))
            for done, (name, path) in enumerate(sources, 1):
                raw = raw_lines(path)
                lines = list(raw)
                cost = log_cost(lines, raw.tail)
                spent += max(cost, MEMBER_COST)
                if cost > limits.member:
                    raise ArchiveError(path, over_limit("restores to", limits.member, "log"),
                                       exit_code=1)
                if spent > limits.archive:
                    raise ArchiveError(out, over_limit("the logs restore to", limits.archive,
                                                  "archive"), exit_code=1)
                blob, kept = log_blob(codec, name, lines, raw.tail)
                put(blob)
                events += len(lines)
                verbatim += kept
                input_bytes += log_size(lines, raw.tail)
                if progress:
                    progress(done, len(sources))
            put(_encoder.encode([END, len(sources), events]))
            z.flush(zstandard.FLUSH_FRAME)
        os.replace(tmp.name, out)
    except BaseException:
        os.unlink(tmp.name)
        raise
    return PackResult(len(sources), events, verbatim, input_bytes, out.stat().st_size)


# -- unpacking ---------------------------------------------------------------------------------


class _Names:
    """The names of an archive's logs seen so far: each must be a safe relative path, and none may
    repeat or be another's folder."""

    def __init__(self, archive: StrPath) -> None:
        self.archive = archive
        self.files: dict[str, int] = {}
        self.folders: dict[str, int] = {}

    def check(self, member: int, name: str) -> list[str]:
        """Return the parts of a member's name, or raise `ArchiveError` (exit code 1)."""
        parts = name.split("/")

        def refuse(why: str) -> ArchiveError:
            return ArchiveError(self.archive, f"{why}; nothing was written", member=member,
                                name=name, exit_code=1)

        if any(part in ("", ".", "..") for part in parts) or "\\" in name or "\0" in name:
            raise refuse("unsafe log name (absolute, empty, `.`, `..`, a backslash or NUL)")
        if any(len(os.fsencode(part)) > 255 for part in parts):
            raise refuse("unsafe log name (a part longer than 255 bytes)")
        first = self.files.get(name, self.folders.get(name))
        folders = ["/".join(parts[:i]) for i in range(1, len(parts))]
        first = next((self.files[f] for f in folders if f in self.files), first)
        if first is not None:
            raise refuse(f"the same name as member {first}, or its folder")
        self.files[name] = member
        for folder in folders:
            self.folders.setdefault(folder, member)
        return parts


def _output(out: Path, overwrite: bool) -> bool:
    """Check the output folder; return whether it holds files already (to merge into)."""
    try:
        st = os.lstat(out)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(st.st_mode):
        raise ArchiveError(out, "is a link: give the folder itself", exit_code=1)
    if not stat.S_ISDIR(st.st_mode):
        raise ArchiveError(out, "already exists and is not a folder", exit_code=1)
    with os.scandir(out) as entries:
        if next(entries, None) is None:
            return False
    if not overwrite:
        raise ArchiveError(out, "already exists and is not empty (unpack writes a fresh folder)",
                           exit_code=1)
    return True


_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _same_file(fd: int, name: str, data: bytes) -> bool:
    """Return whether `name` in the folder `fd` is a plain file holding `data` (links are not)."""
    try:
        f = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
    except OSError:  # a link (ELOOP) or no file
        return False
    with open(f, "rb") as existing:
        if os.fstat(existing.fileno()).st_size != len(data) or not stat.S_ISREG(
            os.fstat(existing.fileno()).st_mode
        ):
            return False
        return existing.read() == data


def _place(src: Path, out: Path, parts: list[str], *, dry: bool) -> None:
    """Link `src` into `out` at `parts`, never through a link and never over another file.

    With `dry`, only check that it can be done. An existing file with the same bytes is accepted
    (as in `writer.write_log`); anything else in the way raises `ArchiveError` (exit code 1).
    """
    target = out.joinpath(*parts)

    def refuse(why: str) -> ArchiveError:
        return ArchiveError(target, f"{why}; an unpack never replaces a file nor follows a link",
                            exit_code=1)

    fd = os.open(out, _DIR)
    try:
        for part in parts[:-1]:
            try:
                sub = os.open(part, _DIR, dir_fd=fd)
            except FileNotFoundError:
                if dry:
                    return  # nothing below it yet
                os.mkdir(part, dir_fd=fd)
                sub = os.open(part, _DIR, dir_fd=fd)
            except OSError:  # ELOOP: a link; ENOTDIR: a file
                raise refuse(f"{part!r} is a link or a file where a folder goes") from None
            os.close(fd)
            fd = sub
        try:
            os.lstat(parts[-1], dir_fd=fd)
        except FileNotFoundError:
            if not dry:
                try:
                    os.link(src, parts[-1], dst_dir_fd=fd)  # fails rather than replace
                except FileExistsError:
                    if not _same_file(fd, parts[-1], src.read_bytes()):
                        raise refuse("appeared meanwhile with other content") from None
            return
        if not _same_file(fd, parts[-1], src.read_bytes()):
            raise refuse("exists already with other content (or is a link)")
    finally:
        os.close(fd)


def unpack(
    archive: StrPath, out_dir: StrPath, *, overwrite: bool = False, limits: Limits | None = None
) -> UnpackResult:
    """Write every log of an archive under `out_dir`, byte for byte as it was packed.

    The archive is read twice: first its names and structure (damage, unsafe or repeated names
    are refused before anything is written), then its logs, into a fresh folder beside `out_dir`
    that is renamed into place once complete: the folder appears whole or not at all. `out_dir`
    must not exist or be empty; with `overwrite` it may hold files already: the logs are linked in
    beside them, a log already there with the same bytes is accepted and one with other bytes is
    refused (a file is never replaced, a link never followed).
    """
    out = Path(out_dir)
    names = _Names(archive)
    try:
        for member, (name, _, _) in enumerate(iter_stored(archive, limits, restore=False), 1):
            names.check(member, name)
    except ArchiveError as exc:
        if exc.exit_code == 2:  # damage: this pass checks no digests, so find the first log hit
            for _ in iter_stored(archive, limits):
                pass
        raise
    merge = _output(out, overwrite)
    whole = Path(os.path.abspath(out))  # `.` too has a name and a parent then
    whole.parent.mkdir(parents=True, exist_ok=True)
    tmp = whole.with_name(f".{whole.name}.unpack-{os.getpid()}-{secrets.token_hex(4)}")
    tmp.mkdir()  # ordinary permissions: it becomes the output folder
    try:
        names = _Names(archive)  # again: the file may have changed since the first pass
        logs = events = size = 0
        for member, (name, lines, tail) in enumerate(iter_stored(archive, limits), 1):
            target = tmp.joinpath(*names.check(member, name))
            target.parent.mkdir(parents=True, exist_ok=True)
            data = b"".join(line + b"\n" for line in lines) + tail
            try:
                with open(target, "xb") as f:
                    f.write(data)
            except (FileExistsError, IsADirectoryError, NotADirectoryError):
                # names equal on this file system only (say, in another case)
                raise ArchiveError(archive, "clashes with another log's name on this file "
                                   "system; nothing was written", member=member, name=name,
                                   exit_code=1) from None
            logs += 1
            events += len(lines)
            size += len(data)
        if merge:
            files = sorted(p.relative_to(tmp) for p in tmp.rglob("*") if p.is_file())
            for dry in (True, False):  # check every file first, so a refusal writes nothing
                for rel in files:
                    _place(tmp / rel, out, list(rel.parts), dry=dry)
        else:
            try:
                os.rename(tmp, whole)  # replaces an empty folder, fails on one filled meanwhile
            except OSError as exc:
                raise ArchiveError(out, f"cannot be replaced by the unpacked folder "
                                   f"({exc.strerror}); nothing was written", exit_code=1) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # gone already once renamed into place
    return UnpackResult(logs, events, size)
