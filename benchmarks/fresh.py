"""Run each timed step in a fresh process with cold caches, timed in CPU seconds.

Every figure of the suite is measured this way, so none inherits a cache another step warmed
(the engine's meld caches, DuckDB's buffers, the page of a log just decoded): the parent writes
the logs, a fresh child reads them, does its untimed setup (reading files, decoding where the
step is not decoding), then runs the timed step once and returns `time.process_time()` (and wall)
deltas. Children fork from a clean fork server that has imported the libraries but run nothing,
so a child costs milliseconds rather than an interpreter start-up; where fork servers do not
exist (Windows, macOS without fork) they are spawned.

CPU time (of every thread of the child) makes a per-core figure that a busy shared machine does
not drag down; wall time is kept only where waiting is the point (fsync, scaling on 2 workers).
"""

from __future__ import annotations

import multiprocessing
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

#: how each kind of figure is measured, printed in the unit column beside it
CPU = "CPU, fresh process"
WALL = "wall, fresh process"

#: imported by the fork server before any child forks: import time is never measured anyway,
#: and nothing runs at import that fills a cache the timed steps use
_PRELOAD = ["msgspec", "buraco_events", "buraco_events.core.engine", "buraco_events.audit.files",
            "buraco_events.bots.registry", "buraco_events.log.reader", "buraco_events.play.sim"]
_context: Any = None


def build() -> str:
    """Return the build of buraco_events that this process runs (`pure` or `compiled`)."""
    import buraco_events

    return buraco_events.build()


def _mp_context() -> Any:
    global _context
    if _context is None:
        if "forkserver" in multiprocessing.get_all_start_methods():
            _context = multiprocessing.get_context("forkserver")
            _context.set_forkserver_preload(_PRELOAD)
        else:
            _context = multiprocessing.get_context("spawn")
    return _context


def _child(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[str, Any]:
    # a child inherits the fork-server start method; its own pools (simulate's workers) get the
    # platform's default, as in a normal `buraco` process
    multiprocessing.set_start_method(None, force=True)
    return build(), fn(*args)


def fresh(fn: Callable[..., Any], *args: Any) -> Any:
    """Return `fn(*args)` run in a new process (a module-level function; its result is pickled).

    Raises RuntimeError if the child ran another build than this process (e.g. another path).
    """
    with ProcessPoolExecutor(max_workers=1, mp_context=_mp_context()) as pool:
        child_build, result = pool.submit(_child, fn, args).result()
    if child_build != build():
        raise RuntimeError(f"the child ran the {child_build} build, this process {build()}")
    return result


def fresh_cpu(fn: Callable[..., Any], *args: Any, runs: int = 1) -> float:
    """Return the median CPU seconds that `fn(*args)` reports over `runs` fresh processes.

    `fn` returns the CPU seconds of its timed step (see `cpu_of`).
    """
    return statistics.median(float(fresh(fn, *args)) for _ in range(runs))


def cpu_of(step: Callable[[], Any]) -> float:
    """Return the CPU seconds of the process spent running `step()` once."""
    start = time.process_time()
    step()
    return time.process_time() - start


def wall_of(step: Callable[[], Any]) -> float:
    """Return the wall seconds of running `step()` once."""
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def row(name: str, value: float, unit: str, baseline: str | None = None,
        baseline_value: float | None = None) -> dict[str, Any]:
    """Return one row of the table (the runner adds the suite and the ratio)."""
    return {"name": name, "value": value, "unit": unit, "baseline": baseline,
            "baseline_value": baseline_value}
