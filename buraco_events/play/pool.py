"""Worker processes for the batch commands: chunks of work mapped in order over all cores.

A shell module (processes). `ordered_map` gives the results in the order of the chunks, whatever
the number of workers, so `index` and `audit` write the same database and print the same report
with 1 or N workers. The parent reads the input and consumes the results; the workers do the
heavy part (decode, replay, build rows or reports). Only a bounded number of chunks is in flight,
and chunks may be cut by weight (`chunked`), so memory stays bounded however many logs there are
and however big each is: about what one chunk needs, times the workers.

The workers are plain processes, each with a pipe for its chunks and one for its results; this
process writes and reads them without blocking and waits on nothing but them and the workers'
ends. No helper thread can die unseen, and a worker that dies (killed for memory, say) or runs
out of memory ends the run with a `WorkerError` rather than a wait that never ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import multiprocessing
import os
import pickle
import selectors
import signal
import struct
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: chunks in flight per worker: enough to keep every worker busy while the parent consumes
AHEAD = 2


def default_workers() -> int:
    """Return the default number of worker processes: the machine's cores."""
    return os.cpu_count() or 1


#: net new objects that paused blocks may leave unscanned (their survivors handed to the oldest
#: generation without a collection) before a block's end collects everything once
UNSCANNED_MAX = 1_000_000
#: bytes of input that paused blocks may handle before a block's end collects everything once: a
#: cycle left by one block may hold its whole input (an audit's reader holds the log's lines)
#: in objects the count above does not see (bytes are not tracked), so a run of big logs from an
#: archive is collected every so many bytes
HELD_MAX = 64 << 20


class _Unscanned:
    """The net new objects paused blocks have left unscanned since the last collection they made,
    and the bytes of input they handled."""

    count = 0
    held = 0


@contextmanager
def collector_paused(unscanned_max: int | None = None, held: int = 0) -> Iterator[None]:
    """Run a block of batch work with the cyclic garbage collector out of the way.

    A batch (a chunk of logs to audit or index, a batch of games to play) allocates many small
    objects that plain reference counting frees, yet each allocation burst would start a
    collection that scans every live object again. So the objects already there (modules, caches,
    the work's setup) are frozen out of the collector's view, and the collector is off until the
    block ends; then both are restored.

    What the block kept (mostly the engine's caches, which a scan would only find alive) goes to
    the oldest generation unscanned, so the end of a batch costs no collection; once blocks have
    left more than `unscanned_max` (default `UNSCANNED_MAX`) net new objects so, a block's end
    collects everything once. Memory stays bounded: cycles the blocks made are at most that many
    objects before they are collected, and whatever they hold is collected once the blocks have
    been given more than `HELD_MAX` bytes of input (`held`: what this block's input holds).
    Not reentrant: an inner block ends the outer's freeze.
    """
    limit = UNSCANNED_MAX if unscanned_max is None else unscanned_max
    enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        kept = gc.get_count()[0]  # objects the block allocated less those it freed (tracked ones)
        _Unscanned.held += held
        if _Unscanned.count + kept <= limit and _Unscanned.held <= HELD_MAX:
            _Unscanned.count += kept
            gc.freeze()  # the block's survivors join the frozen objects, the young count restarts
            gc.unfreeze()  # and all of them go back to the oldest generation
        else:
            gc.unfreeze()
            gc.collect()
            _Unscanned.count = _Unscanned.held = 0
        if enabled:
            gc.enable()


def _context() -> Any:
    # fork where there is fork (as `sim` does): the workers start at once with everything the
    # parent imported, and run only the work function (never the parent's DuckDB connection,
    # whose file lock stays the parent's). A fork server or spawn would also re-run a main
    # script that lacks a `__main__` guard (a console-script wrapper), which fork never does.
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


class WorkerError(RuntimeError):
    """A worker process that could not start, ran out of memory or died: one line, what failed.

    `chunk` names the chunk it was given (the caller's `name` of it), when known.
    """

    def __init__(self, message: str, chunk: str | None = None) -> None:
        super().__init__(message)
        self.chunk = chunk

    def __str__(self) -> str:
        return f"{self.chunk}: {self.args[0]}" if self.chunk else str(self.args[0])


#: what a worker sends back: the result, the error `fn` raised, or that it ran out of memory
_OK, _RAISED, _NO_MEMORY = 0, 1, 2
_HEADER = struct.Struct("!i")  # multiprocessing.Connection's framing: a length, or -1 and a long one
_LONG = struct.Struct("!Q")
_PIPE_SIZE = 1 << 20  # what an unprivileged process may ask of Linux by default


def _serve(fn: Callable[[Any], Any], tasks: Connection, results: Connection,
           others: list[Connection]) -> None:
    """A worker's loop: take a pickled chunk, send back `fn` of it, until the parent closes.

    Whatever happens, the worker prints nothing: running out of memory is sent back if it can
    be, and any other failure ends the process, which the parent sees as its death.
    """
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent ends the run on Ctrl-C
        for conn in others:  # the parent's ends (forked): the parent's closing them must be seen
            conn.close()
        while True:
            try:
                data = tasks.recv_bytes()
            except EOFError:
                return
            results.send_bytes(_reply(fn, data))
            del data
    except MemoryError:
        with contextlib.suppress(BaseException):
            results.send_bytes(bytes([_NO_MEMORY]))
        os._exit(1)
    except BaseException:
        os._exit(1)


def _reply(fn: Callable[[Any], Any], data: bytes) -> bytes:
    """Return the reply to one pickled chunk: its result, the error `fn` raised, or no memory."""
    try:
        return bytes([_OK]) + pickle.dumps(fn(pickle.loads(data)), pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        return bytes([_NO_MEMORY])
    except BaseException as exc:  # raised in the parent when its result is due
        try:
            return bytes([_RAISED]) + pickle.dumps(exc, pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            return bytes([_NO_MEMORY])
        except Exception:  # an exception that does not pickle: its words
            error = RuntimeError(f"{type(exc).__name__}: {exc}")
            return bytes([_RAISED]) + pickle.dumps(error)


class _Worker:
    """One worker process as the parent sees it: its pipes, what it was given, what it sent."""

    def __init__(self, ctx: Any, fn: Callable[[Any], Any], others: list[Connection]) -> None:
        task_r, self.tasks = ctx.Pipe(duplex=False)
        self.results, result_w = ctx.Pipe(duplex=False)
        fork = ctx.get_start_method() == "fork"
        mine = [self.tasks, self.results]
        self.process = ctx.Process(target=_serve, daemon=True, args=(
            fn, task_r, result_w, others + mine if fork else []))
        try:
            self.process.start()
        finally:
            task_r.close()
            result_w.close()
        os.set_blocking(self.tasks.fileno(), False)
        if hasattr(fcntl, "F_SETPIPE_SZ"):
            # Linux: a chunk goes in a few writes, and a worker's result waits in its pipe while
            # this process is busy with the ones before it, rather than stop the worker
            for conn in (self.tasks, self.results):
                with contextlib.suppress(OSError):
                    fcntl.fcntl(conn.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
        os.set_blocking(self.results.fileno(), False)
        self.given: deque[tuple[int, int, str | None]] = deque()  # (chunk, weight, name)
        self.out: deque[memoryview] = deque()  # framed chunks not yet written to its pipe
        self.inbox = bytearray()  # what it sent that is not yet a whole reply

    @property
    def weight(self) -> int:
        return sum(w for _, w, _ in self.given)

    def give(self, index: int, data: bytes, weight: int, name: str | None) -> None:
        n = len(data)
        header = _HEADER.pack(n) if n <= 0x7FFFFFFF else _HEADER.pack(-1) + _LONG.pack(n)
        self.out += (memoryview(header), memoryview(data))
        self.given.append((index, weight, name))

    def write(self) -> None:
        """Write what its pipe takes now (never blocks)."""
        while self.out:
            try:
                n = os.write(self.tasks.fileno(), self.out[0])
            except BlockingIOError:
                return
            except BrokenPipeError:
                raise self.failure() from None
            if n == len(self.out[0]):
                self.out.popleft()
            else:
                self.out[0] = self.out[0][n:]

    def read(self) -> list[bytes]:
        """Read what it sent now (never blocks); return the whole replies in it."""
        while True:
            try:
                data = os.read(self.results.fileno(), 1 << 20)
            except BlockingIOError:
                break
            if not data:  # its end closed: it has ended
                break
            self.inbox += data
        replies = []
        while len(self.inbox) >= 4:
            (n,) = _HEADER.unpack_from(self.inbox)
            at = 4
            if n == -1:
                if len(self.inbox) < 12:
                    break
                (n,) = _LONG.unpack_from(self.inbox, 4)
                at = 12
            if len(self.inbox) < at + n:
                break
            replies.append(bytes(self.inbox[at:at + n]))
            del self.inbox[:at + n]
        return replies

    def failure(self) -> WorkerError:
        """Return the error of a worker that died, naming the chunk it held."""
        self.process.join(5)
        code = self.process.exitcode
        name = self.given[0][2] if self.given else None
        if code is not None and code < 0:
            try:
                sig = signal.Signals(-code).name
            except ValueError:
                sig = f"signal {-code}"
            oom = ": out of memory?" if -code == signal.SIGKILL else ""
            return WorkerError(f"a worker process was killed ({sig}{oom})", name)
        return WorkerError(f"a worker process died (exit code {code})", name)

    def stop(self, wait: float) -> None:
        """Close its pipes and end it: at once (`wait` 0) or once it sees the end."""
        self.tasks.close()
        self.results.close()
        self.process.join(wait)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


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
    computes the first chunk (its result, the first due, needs no worker's start nor pipe), then
    a chunk whenever every worker has its fill, rather than wait for them (the cores are not
    shared among more processes than `workers`, and the chunks it computes are never sent
    through a pipe). A chunk it computes may raise here, in its turn, as any other.

    With one worker, or when there is a single chunk, everything runs in this process (no pool
    start-up for a small input). An exception raised by `chunks` itself (an unreadable input)
    comes after the results of the chunks before it, as it would in one process; one raised by
    `fn` comes when its result is due. `fn` and the chunks must pickle when `workers` > 1.

    Memory stays bounded: at most `AHEAD` chunks per worker are given out and not yet given
    back; each worker holds at most `AHEAD` of them (one worked on, the next waiting), a second
    only if the two `weight` at most `budget` bytes (so a heavy chunk waits here for an idle
    worker), and this process holds one chunk read ahead, and a chunk given only until it is
    written to its worker. A worker that cannot start,
    runs out of memory or dies raises `WorkerError` naming the chunk (`name` of it); this process
    only ever waits on the workers' pipes and on their ends, so it never waits for a dead one.
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
    del first, second  # held only until given out: a worker forked now must not keep them
    yield from _pooled(fn, popped(head, it), workers - 1 if share else workers, weight, budget,
                       name, share)


def popped(head: list[T], it: Iterator[T]) -> Iterator[T]:
    """Yield the items of `head` (holding each no longer than that), then those of `it`."""
    while head:
        yield head.pop(0)
    yield from it


def _pooled(fn: Callable[[T], R], it: Iterator[T], workers: int,
            weight: Callable[[T], int] | None, budget: int,
            name: Callable[[T], str] | None, share: bool = False) -> Iterator[R]:
    ctx = _context()
    pool: list[_Worker] = []
    selector: selectors.BaseSelector | None = None
    ok = False
    try:
        try:
            for _ in range(workers):
                pool.append(_Worker(ctx, fn, [c for w in pool for c in (w.tasks, w.results)]))
        except (OSError, RuntimeError) as exc:  # fork or a pipe refused (no memory, no process)
            raise WorkerError(f"cannot start a worker process ({exc})") from None
        selector = selectors.DefaultSelector()
        for w in pool:
            selector.register(w.process.sentinel, selectors.EVENT_READ, w)
            selector.register(w.results.fileno(), selectors.EVENT_READ, w)
        writing: set[int] = set()  # the workers' pipes with chunks waiting to be written
        done: dict[int, R] = {}
        failed: dict[int, BaseException] = {}
        held: tuple[T, int] | None = None  # the chunk read ahead, with its weight
        # with `share`, the first chunk is this process's: its result, the first due, is ready
        # without a worker's start and pipe, while the workers start on the next ones
        own: list[T] = [next(it)] if share else []
        given, due = len(own), 0

        def here(index: int, chunk: T) -> None:
            """Compute a chunk in this process; what it raises is raised when its result is
            due, as a worker's."""
            try:
                done[index] = fn(chunk)
            except Exception as exc:
                failed[index] = exc

        source_error: Exception | None = None
        exhausted = False
        while True:
            # the results due first: giving them back lets more chunks out
            while due in done or due in failed:
                if due in failed:
                    raise failed.pop(due)
                result = done.pop(due)
                due += 1
                yield result
            # hand out chunks while a worker can take one, and the results not yet given back
            # (a slow worker's, which the others' wait for) stay within the same bound
            while not exhausted and given - due < (workers + share) * AHEAD:
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
                chunk, w8 = held
                taker = _taker(pool, w8, budget)
                if taker is None:
                    break
                data = pickle.dumps(chunk, pickle.HIGHEST_PROTOCOL)
                taker.give(given, data, w8, name(chunk) if name else None)
                del data, chunk
                held = None
                given += 1
                taker.write()
            if own:  # after the workers have theirs
                here(0, own.pop())
                continue
            if due == given and held is None and exhausted:
                break
            for w in pool:
                fd = w.tasks.fileno()
                if w.out and fd not in writing:
                    selector.register(fd, selectors.EVENT_WRITE, w)
                    writing.add(fd)
                elif not w.out and fd in writing:
                    selector.unregister(fd)
                    writing.discard(fd)
            # with `share`, a chunk no worker can take now is computed here, once what the
            # workers sent meanwhile is read (without waiting) and none of them can take it
            for key, _ in selector.select(0 if share and held is not None else None):
                w = key.data
                if key.fd in writing:
                    w.write()
                    continue
                for reply in w.read():  # a worker's last replies come before its end
                    index, _, chunk_name = w.given.popleft()
                    if reply[0] == _OK:
                        done[index] = pickle.loads(reply[1:])
                    elif reply[0] == _RAISED:
                        failed[index] = pickle.loads(reply[1:])
                    else:  # when its result is due, after the results before it
                        failed[index] = WorkerError("a worker process ran out of memory",
                                                    chunk_name)
                if key.fd == w.process.sentinel:
                    raise w.failure()
            if share and held is not None and _taker(pool, held[1], budget) is None:
                chunk = held[0]
                held = None
                here(given, chunk)
                del chunk
                given += 1
        if source_error is not None:
            raise source_error
        ok = True
    finally:
        if selector is not None:
            selector.close()
        for w in pool:
            w.stop(5 if ok else 0)


def _taker(pool: list[_Worker], weight: int, budget: int) -> _Worker | None:
    """Return the worker to give a chunk of `weight` now: an idle one, else one holding fewer
    than `AHEAD` whose chunks and this one weigh at most `budget`; None when none can take it."""
    idle = [w for w in pool if not w.given]
    return idle[0] if idle else next(
        (w for w in pool if len(w.given) < AHEAD and w.weight + weight <= budget), None)


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
