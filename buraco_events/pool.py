"""Worker processes for the batch commands: chunks of work mapped in order over all cores.

A shell module (processes). `ordered_map` gives the results in the order of the chunks, whatever
the number of workers, so `index` and `audit` write the same database and print the same report
with 1 or N workers. The parent reads the input and consumes the results; the workers do the
heavy part (decode, replay, build rows or reports). Only a bounded number of chunks is in flight,
so memory stays bounded however many logs there are.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
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


class _Unscanned:
    """The net new objects paused blocks have left unscanned since the last collection they made."""

    count = 0


@contextmanager
def collector_paused(unscanned_max: int | None = None) -> Iterator[None]:
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
    objects before they are collected. Not reentrant: an inner block ends the outer's freeze.
    """
    limit = UNSCANNED_MAX if unscanned_max is None else unscanned_max
    enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        kept = gc.get_count()[0]  # objects the block allocated less those it freed (tracked ones)
        if _Unscanned.count + kept <= limit:
            _Unscanned.count += kept
            gc.freeze()  # the block's survivors join the frozen objects, the young count restarts
            gc.unfreeze()  # and all of them go back to the oldest generation
        else:
            gc.unfreeze()
            gc.collect()
            _Unscanned.count = 0
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


def ordered_map(fn: Callable[[T], R], chunks: Iterable[T], workers: int) -> Iterator[R]:
    """Yield `fn(chunk)` for each chunk, in order, computed by up to `workers` processes.

    With one worker, or when there is a single chunk, everything runs in this process (no pool
    start-up for a small input). An exception raised by `chunks` itself (an unreadable input)
    comes after the results of the chunks before it, as it would in one process; one raised by
    `fn` comes when its result is due. `fn` and the chunks must pickle when `workers` > 1.
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
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=_context())
    pending: deque[Future[R]] = deque([pool.submit(fn, first), pool.submit(fn, second)])
    try:
        while True:
            while len(pending) >= workers * AHEAD:
                yield pending.popleft().result()
            try:
                chunk = next(it)
            except StopIteration:
                break
            except Exception:
                while pending:  # the work before the failure first, as in one process
                    yield pending.popleft().result()
                raise
            pending.append(pool.submit(fn, chunk))
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Yield lists of up to `size` consecutive items (an error of `items` after the items before)."""
    it = iter(items)
    chunk: list[T] = []
    while True:
        try:
            item = next(it)
        except StopIteration:
            break
        except Exception:
            if chunk:
                yield chunk
            raise
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
