"""Worker processes for the batch commands: chunks of work mapped in order over all cores.

`ordered_map` gives the results in the order of the chunks, whatever the number of workers, so
`index` and `audit` write the same database and print the same report with 1 or N workers. The
workers are a `concurrent.futures.ProcessPoolExecutor`; this module adds what the commands need
of it: results in order, a bounded number of chunks in flight (by count and by weight, so memory
stays about what one chunk needs, times the workers), this process computing chunks too
(`share`), and a worker that dies or runs out of memory ending the run with one `WorkerError` (a
`BrokenProcessPool`) naming the chunk it held, rather than a wait that never ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import multiprocessing
import os
import pickle
import signal
import stat
import struct
import sys
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: chunks in flight per worker: enough to keep every worker busy while this process consumes
AHEAD = 2


def default_workers() -> int:
    """Return the default number of worker processes: the machine's cores."""
    return os.cpu_count() or 1


@contextmanager
def collector_paused(held: int = 0) -> Iterator[None]:
    """Run a block of batch work with the cyclic garbage collector out of the way.

    A batch (a chunk of logs to audit or index, a batch of games to play) allocates many small
    objects that plain reference counting frees, yet each allocation burst would start a
    collection that scans every live object again. So the objects already there (modules, caches,
    earlier blocks' survivors) are frozen out of the collector's view and the collector is off
    while the block runs. At its end one collection of the youngest generation scans only what
    the block allocated and kept: the cycles it made are freed there (with whatever input they
    hold, `held` bytes at most: an audit's reader holds its log's lines), and its survivors join
    the older objects without a scan of those. No count is carried from one block to the next.
    Not reentrant: an inner block ends the outer's freeze.
    """
    del held  # the block's cycles are freed at its end, whatever they hold
    enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.collect(0)  # the frozen objects are not scanned
        gc.unfreeze()
        if enabled:
            gc.enable()


class WorkerError(BrokenProcessPool):
    """A worker process that could not start, ran out of memory or died: one line, what failed.

    `chunk` names the chunk it was given (the caller's `name` of it), when known.
    """

    def __init__(self, message: str, chunk: str | None = None) -> None:
        super().__init__(message)
        self.chunk = chunk

    def __str__(self) -> str:
        return f"{self.chunk}: {self.args[0]}" if self.chunk else str(self.args[0])


class _Starter:
    """How the workers start (multiprocessing's start method, which the standard library calls a
    "context"), keeping the processes it starts, for their exit codes."""

    def __init__(self, method: Any) -> None:
        self.method = method
        self.processes: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.method, name)

    def Process(self, *args: Any, **kwargs: Any) -> Any:  # noqa: N802 (multiprocessing's name)
        process = self.method.Process(*args, **kwargs)
        self.processes.append(process)
        return process


def _starter() -> _Starter:
    # fork where there is fork (as `sim` does): the workers start at once with everything this
    # process imported, and run only the work function (never its DuckDB connection, whose file
    # lock stays here). A fork server or spawn would also re-run a main script that lacks a
    # `__main__` guard (a console-script wrapper), which fork never does.
    methods = multiprocessing.get_all_start_methods()
    return _Starter(multiprocessing.get_context("fork" if "fork" in methods else "spawn"))


def _quiet() -> None:
    """Start a worker: Ctrl-C is this process's to handle, and a worker prints nothing (what it
    fails with comes back as its result or as its death)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (open for the worker's life)


class _Parcel:
    """A pickled chunk, handed over once: pickling it for the pipe lets go of it here."""

    def __init__(self, data: bytes | None) -> None:
        self.data = data

    def __reduce__(self) -> tuple[type[_Parcel], tuple[bytes | None]]:
        data, self.data = self.data, None
        return _Parcel, (data,)


#: a worker's reply: status, then the pickled result or exception; `_NO_MEMORY` alone
_OK, _RAISED, _NO_MEMORY = b"\0", b"\1", b"\2"
_NOTICE = struct.Struct("!qq")
_PIPE_SIZE = 1 << 20  # what an unprivileged process may ask of Linux by default  # (worker pid, chunk index), written as a worker starts a chunk


def _call(fn: Callable[[Any], Any], parcel: _Parcel, index: int, notices: int) -> bytes:
    """Compute one chunk in a worker; return the reply (never raises, so it always pickles)."""
    if notices >= 0:
        os.write(notices, _NOTICE.pack(os.getpid(), index))  # one atomic write (< PIPE_BUF)
    try:
        assert parcel.data is not None
        chunk = pickle.loads(parcel.data)
        parcel.data = None
        return _OK + pickle.dumps(fn(chunk), pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        return _NO_MEMORY
    except BaseException as exc:  # raised here when its result is due
        try:
            return _RAISED + pickle.dumps(exc, pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            return _NO_MEMORY
        except Exception:  # an exception that does not pickle: its words
            return _RAISED + pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))


def ordered_map(
    fn: Callable[[T], R],
    chunks: Iterable[T],
    workers: int,
    *,
    weight: Callable[[T], int] | None = None,
    budget: int = 0,
    name: Callable[[T], str] | None = None,
    share: bool = False,
) -> Generator[R, None, None]:
    """Yield `fn(chunk)` for each chunk, in order, computed by up to `workers` processes.

    With `share`, this process is one of the `workers`: `workers - 1` are started, and this one
    computes the first chunk (its result, the first due, needs no worker), then a chunk whenever
    the workers have their fill, rather than wait for them. With one worker, or a single chunk,
    everything runs here. An exception raised by `chunks` itself (an unreadable input) comes
    after the results of the chunks before it, as it would in one process; one raised by `fn`
    comes when its result is due. `fn` and the chunks must pickle when `workers` > 1.

    Memory stays bounded: at most `AHEAD` chunks per worker are out and their results not yet
    given back; more chunks than workers are out only while all of them weigh (`weight`) at most
    `budget` per worker, so a heavy chunk waits for an idle worker. A chunk is pickled as it is
    given out and not held here after that. A worker that cannot start, runs out of memory or
    dies raises `WorkerError` naming the chunk it held (`name` of it).
    """
    it = iter(chunks)
    if workers <= 1:
        yield from map(fn, it)
        return
    try:
        first = next(it)
    except StopIteration:
        return
    try:
        second = next(it)
    except StopIteration:
        yield fn(first)  # one chunk: not worth a pool
        return
    except Exception:
        yield fn(first)  # the work before the failure first, as in one process
        raise
    head = [first, second]
    del first, second  # held only until given out
    yield from _pooled(fn, popped(head, it), workers - 1 if share else workers, weight, budget,
                       name, share)


def popped(head: list[T], it: Iterator[T]) -> Iterator[T]:
    """Yield the items of `head` (holding each no longer than that), then those of `it`."""
    while head:
        yield head.pop(0)
    yield from it


def _pooled(fn: Callable[[T], R], it: Iterator[T], procs: int,
            weight: Callable[[T], int] | None, budget: int,
            name: Callable[[T], str] | None, share: bool) -> Iterator[R]:
    starter = _starter()
    fork = starter.get_start_method() == "fork"
    read_end, write_end = os.pipe() if fork else (-1, -1)  # the workers' notices (inherited)
    if fork:
        os.set_blocking(read_end, False)
    opened = _pipes()
    # a start method in all but its Process, which keeps what it starts
    pool = ProcessPoolExecutor(procs, mp_context=starter, initializer=_quiet)  # type: ignore[call-overload]
    _widen(_pipes() - opened)
    out: dict[int, tuple[Future[bytes], int, str | None]] = {}  # index: (future, weight, name)
    done: dict[int, tuple[bool, Any]] = {}  # computed here: (True, result) or (False, raised)
    started: dict[int, int] = {}  # worker pid: the chunk it started last
    own = [next(it)] if share else []  # the first chunk is this process's
    given, due = len(own), 0
    held: tuple[T, int] | None = None  # the chunk read ahead, with its weight
    source_error: Exception | None = None
    exhausted = False
    ok = False

    def can_take(w8: int) -> bool:
        busy = [w for f, w, _ in out.values() if not f.done()]
        return len(busy) < procs or (len(busy) < procs * AHEAD and sum(busy) + w8 <= budget * procs)

    def broken() -> WorkerError:
        pool.shutdown(wait=True)  # the pool has ended its workers: their exit codes are known
        _read_notices(read_end, started)
        dead = [p for p in starter.processes if p.exitcode not in (0, None, -signal.SIGTERM)]
        if not dead:
            return WorkerError("a worker process died", _first_unfinished(out))
        held_by = started.get(dead[0].pid)
        chunk = out[held_by][2] if held_by in out else _first_unfinished(out)
        code = dead[0].exitcode
        if code < 0:
            try:
                sig = signal.Signals(-code).name
            except ValueError:
                sig = f"signal {-code}"
            oom = ": out of memory?" if -code == signal.SIGKILL else ""
            return WorkerError(f"a worker process was killed ({sig}{oom})", chunk)
        return WorkerError(f"a worker process died (exit code {code})", chunk)

    try:
        while True:
            while due in done or due in out and out[due][0].done():  # the results due first
                if due in done:
                    fine, result = done.pop(due)
                else:
                    future, _, chunk_name = out[due]
                    try:
                        fine, result = _unpacked(future.result(), chunk_name)
                    except BrokenProcessPool:
                        raise broken() from None
                    del out[due]
                due += 1
                if not fine:
                    raise result
                yield result
            _read_notices(read_end, started)
            while not exhausted and given - due < (procs + share) * AHEAD:  # hand chunks out
                if held is None:
                    try:
                        chunk = next(it)
                    except StopIteration:
                        exhausted = True
                        break
                    except Exception as exc:  # after the work before it, as in one process
                        source_error, exhausted = exc, True
                        break
                    held = chunk, weight(chunk) if weight else 0
                    del chunk
                if not can_take(held[1]):
                    break
                chunk, w8 = held
                held = None
                parcel = _Parcel(pickle.dumps(chunk, pickle.HIGHEST_PROTOCOL))
                chunk_name = name(chunk) if name else None
                del chunk
                try:
                    future = pool.submit(_call, fn, parcel, given, write_end)
                except BrokenProcessPool:
                    raise broken() from None
                except (OSError, RuntimeError) as exc:  # fork or a pipe refused
                    raise WorkerError(f"cannot start a worker process ({exc})") from None
                out[given] = future, w8, chunk_name
                given += 1
                del parcel
            if own:  # after the workers have theirs
                done[0] = _here(fn, own.pop())
                continue
            if due == given and held is None and exhausted:
                break
            if share and held is not None and not can_take(held[1]):
                chunk = held[0]  # no worker can take it now: computed here
                held = None
                done[given] = _here(fn, chunk)
                del chunk
                given += 1
                continue
            running = [f for f, _, _ in out.values() if not f.done()]
            if running:  # a result, and room for another chunk
                wait(running, return_when=FIRST_COMPLETED)
        if source_error is not None:
            raise source_error
        ok = True
    finally:
        if not ok:  # the workers' chunks are no longer wanted
            for process in starter.processes:
                process.kill()
        pool.shutdown(wait=True, cancel_futures=True)
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)


def _pipes() -> set[int]:
    """Return this process's open pipes (their file descriptors), where Linux lists them."""
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return set()
    found = set()
    for fd in map(int, fds):
        with contextlib.suppress(OSError):
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                found.add(fd)
    return found


def _widen(fds: set[int]) -> None:
    """Let the pool's pipes hold `_PIPE_SIZE` bytes (Linux): a worker's result then waits in its
    pipe in one piece while this process computes a chunk, instead of a write per 64 KiB, each
    waiting for the thread that reads it to get the interpreter from the computing one."""
    if hasattr(fcntl, "F_SETPIPE_SZ"):
        for fd in fds:
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)


def _here(fn: Callable[[T], R], chunk: T) -> tuple[bool, Any]:
    """Compute a chunk in this process: (True, its result) or (False, what it raised, to raise
    when its result is due)."""
    try:
        return True, fn(chunk)
    except Exception as exc:
        return False, exc


def _unpacked(reply: bytes, chunk_name: str | None) -> tuple[bool, Any]:
    """Return a worker's reply as `_here` does."""
    if reply[:1] == _NO_MEMORY:
        return False, WorkerError("a worker process ran out of memory", chunk_name)
    return reply[:1] == _OK, pickle.loads(memoryview(reply)[1:])


def _read_notices(fd: int, started: dict[int, int]) -> None:
    """Take in the workers' notices of the chunks they start (never blocks)."""
    with contextlib.suppress(BlockingIOError):
        while fd >= 0 and (data := os.read(fd, _NOTICE.size * 256)):
            for pid, index in _NOTICE.iter_unpack(data):
                started[pid] = index


def _first_unfinished(out: dict[int, tuple[Future[bytes], int, str | None]]) -> str | None:
    return next((out[i][2] for i in sorted(out) if not out[i][0].done()
                 or out[i][0].exception() is not None), None)


def chunked(items: Iterable[T], size: int, weight: Callable[[T], int] | None = None,
            budget: int = 0) -> Iterator[list[T]]:
    """Yield lists of up to `size` consecutive items (an error of `items` after the items before).

    With `weight`, a list also ends before the item that would take its weight past `budget`:
    a list weighs at most `budget`, or is one item that alone weighs more.
    """
    it = iter(items)
    chunk: list[T] = []
    held = 0
    while True:
        try:
            item = next(it)
        except StopIteration:
            break
        except Exception:
            if chunk:
                yield chunk
            raise
        if weight is not None:
            w = weight(item)
            if chunk and held + w > budget:
                yield chunk
                chunk, held = [], 0
            held += w
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk, held = [], 0
    if chunk:
        yield chunk
