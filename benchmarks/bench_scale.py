"""Scale-out figures: index and audit on 1 and 2 workers, and spark-index in local mode.

Run `python benchmarks/bench_scale.py [--quick]` for a table; `measure(quick)` returns the rows.
Games come from `sim.simulate` with the greedy bot (quick: 120 stbl games; full: 2,000). Workers
run in processes of their own, so the CPU time of one process says nothing about them: these
figures are wall time (each run in a fresh process over the same files), on a machine whose 2
cores may be shared, and so a floor. The issue 15 goal is >= 1.6x with 2 workers on 2 free
cores. `spark-index` (full mode only: a Spark session alone takes seconds) runs in local mode
on 2 cores, timed after its session started, beside `index --workers 2` on the same logs.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fresh import WALL, fresh, row, wall_of  # noqa: E402

Row = dict[str, Any]
GOAL_TWO_WORKERS = 1.6  # events/s on 2 workers over 1, issue 15


def wall_index(logs: str, db: str, workers: int) -> tuple[float, int]:
    """In a fresh process: wall seconds of `buraco index --workers N` into a new database."""
    from buraco_events.analytics import ingest

    if os.path.exists(db):
        os.remove(db)
    reports = []
    wall = wall_of(lambda: reports.append(ingest.index([logs], db, workers=workers)))
    assert reports[0].ok, reports[0]
    return wall, reports[0].events


def wall_audit(logs: str, workers: int) -> tuple[float, int]:
    """In a fresh process: wall seconds of auditing every log with N workers."""
    from buraco_events.audit.report import audit_path

    events = [0]

    def audit() -> None:
        for result in audit_path(Path(logs), workers=workers):
            assert result.report.ok
            events[0] += result.report.events

    return wall_of(audit), events[0]


def wall_spark(logs: str, out: str) -> tuple[float, float]:
    """In a fresh process: wall seconds of a local[2] Spark session start, then of spark-index."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from buraco_events.analytics.spark import session, spark_index

    spark: list[Any] = []
    start = wall_of(lambda: spark.append(session("local[2]")))
    try:
        job = wall_of(lambda: spark_index([logs], out, replace=True, spark=spark[0]))
    finally:
        spark[0].stop()
    return start, job


def _has_spark() -> bool:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return shutil.which("java") is not None or bool(os.environ.get("JAVA_HOME"))


def measure(quick: bool) -> list[Row]:
    """Return the scale-out figures (see the module docstring)."""
    from buraco_events.play.sim import simulate

    rows: list[Row] = []
    rate = f"events/s ({WALL})"
    games = 120 if quick else 2000
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp) / "logs"
        simulate(logs, games, "stbl", 4, 7, ["greedy"], workers=2)
        db = str(Path(tmp) / "bench.duckdb")
        t1, events = fresh(wall_index, str(logs), db, 1)
        t2, events2 = fresh(wall_index, str(logs), db, 2)
        assert events == events2
        size = f"{games:,} games, {events:,} events"
        rows.append(row(f"index, 2 workers ({size})", events / t2, rate, "1 worker", events / t1))
        rows.append(row("index speed-up, 2 workers", t1 / t2, "ratio", "goal", GOAL_TWO_WORKERS))
        a1, audited = fresh(wall_audit, str(logs), 1)
        a2, _ = fresh(wall_audit, str(logs), 2)
        rows.append(row("audit, 2 workers", audited / a2, rate, "1 worker", audited / a1))
        rows.append(row("audit speed-up, 2 workers", a1 / a2, "ratio", "goal", GOAL_TWO_WORKERS))
        if not quick and _has_spark():
            start, job = fresh(wall_spark, str(logs), str(Path(tmp) / "pq"))
            rows.append(row("spark-index, local[2] (after its session start)", events / job, rate,
                            "index --workers 2", events / t2))
            rows.append(row("spark session start, local[2]", start, "s (wall)"))
    return rows


def main() -> None:
    """Print the figures as a table."""
    from report import print_table

    quick = "--quick" in sys.argv
    print_table(measure(quick), f"scale-out ({'quick' if quick else 'full'})")


if __name__ == "__main__":
    main()
