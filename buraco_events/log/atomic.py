"""Files that appear whole or not at all: written aside, made durable, then linked into place,
never over an existing file.

Its own module because it is the file-system side of writing, which changes with the platform
(Linux's unnamed files and `syncfs`, /proc) and not with what a log holds: the writer of logs
(`writer`) places new logs through it and flushes a batch of them with one `syncfs`.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path


def sync_dir(path: Path) -> None:
    """Flush the folder holding `path`, so that a new file's name is on disk too."""
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@functools.cache
def syncfs() -> Callable[[int], int] | None:
    """Return Linux's `syncfs(fd)` (flush the file system holding `fd`), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int
    return function


def place_together(items: Sequence[tuple[Path, bytes]],
                   accept: Callable[[Path, bytes], None]) -> int:
    """Group commit of new files `(target, data)` of one folder: write them aside unnamed, flush
    their file system once, link them in order; return how many were placed (0 where this way is
    not open: the caller places the rest one by one, with `place`). Where syncfs fails, each file
    is fsynced. A target that exists already goes to `accept(target, data)`, which raises to
    refuse it; a failed fsync raises too (a failed flush links nothing)."""
    flush = syncfs()
    tmpfile = getattr(os, "O_TMPFILE", 0)
    if flush is None or not tmpfile or len({target.parent for target, _ in items}) != 1:
        return 0
    folder = os.open(items[0][0].parent, os.O_RDONLY | os.O_DIRECTORY)
    fds: list[int] = []
    try:
        for _, data in items:
            try:
                fd = os.open(".", tmpfile | os.O_WRONLY, 0o666, dir_fd=folder)
            except OSError:
                return 0  # a file system without unnamed files: nothing linked yet
            fds.append(fd)
            write_all(fd, data)
        if flush(folder) != 0:  # refused (a file system that cannot): an fsync each instead
            for fd in fds:
                os.fsync(fd)
        for placed, ((target, data), fd) in enumerate(zip(items, fds, strict=True)):
            try:
                os.link(f"/proc/self/fd/{fd}", target.name, dst_dir_fd=folder)
            except FileExistsError:
                accept(target, data)
            except OSError:
                return placed  # no /proc: the rest one by one (the unnamed files go with their fds)
        return len(items)
    finally:
        for fd in fds:
            os.close(fd)
        os.close(folder)


def place(target: Path, data: bytes) -> None:
    """Write `data` as the new file `target`, whole or not at all: written aside, fsynced, then
    linked into place (atomic, and FileExistsError rather than replace an existing file).

    Aside is an unnamed file in the target's folder (Linux `O_TMPFILE`, linked through
    /proc/self/fd): no name to create and remove, about a third of a short log's write cost.
    Where the system or the file system has none, a named temporary file beside the target.
    """
    if _place_unnamed(target, data):
        return
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    try:
        os.link(tmp, target)
    finally:
        tmp.unlink()


def _place_unnamed(target: Path, data: bytes) -> bool:
    """`place` through an unnamed file; False (nothing written) where the system cannot."""
    tmpfile = getattr(os, "O_TMPFILE", 0)
    if not tmpfile:
        return False
    folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fd = os.open(".", tmpfile | os.O_WRONLY, 0o666, dir_fd=folder)
        except OSError:
            return False  # a file system without unnamed files
        try:
            write_all(fd, data)
            os.fsync(fd)
            try:
                os.link(f"/proc/self/fd/{fd}", target.name, dst_dir_fd=folder)
            except FileExistsError:
                raise
            except OSError:
                return False  # no /proc: the unnamed file goes with its descriptor
            return True
        finally:
            os.close(fd)
    finally:
        os.close(folder)


def write_all(fd: int, data: bytes) -> None:
    """Write all of `data` to `fd` (os.write may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
