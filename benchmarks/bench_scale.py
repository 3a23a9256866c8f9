"""Scale-out figures: index on 1 and 2 workers, audit likewise, spark-index per executor core.

Run `python benchmarks/bench_scale.py [--quick] [--runs N] [--out FILE]` for a table (and the
rows as JSON, a run added to FILE's: `benchmarks/results/scale.json` holds the runs quoted); `measure(quick)` returns
the rows. Games come from `sim.simulate` with the greedy bot (quick: 120 stbl games of 4 players;
full: 2,000). Workers run in processes of their own, so the CPU time of one process says nothing
about them: these figures are wall time, on a machine whose 2 cores may be shared (a floor).

- `buraco index --workers 2` against `--workers 1`, the whole command: a new `python -m cli.main
  index` process each time (interpreter start, imports, the run, the commit), into a new
  database, with its modules' bytecode written beforehand as an install has it; goal 1.6x.
  Beside it, the same two as `ingest.index` calls alone (a fresh process, imports done before
  the clock starts), and (full mode) the whole command again on 10,000 games (the 2,000 and
  8,000 more), where the command's fixed costs weigh a fifth as much.
- `spark-index` (full mode only: a Spark session alone takes seconds) in local mode on 2 cores
  (`local[2]`), timed after its session started: its events/s per executor core (the rate over
  2) beside `index --workers 1`'s events/s (one core) on the same logs. Its first job in the
  session and a second one (the JVM warm) are both given, as plain rates (all the logs' events
  over the job's wall time).
- The goal figure (>= 0.5) is the marginal rate, "after start-up" in the goal's words: the same
  job on N logs (half the games) and on 2N in one warm session (three jobs on all the logs
  first), events/s per executor core = the events the second half adds over the wall time it
  adds (the median of `SPARK_PAIRS` pairs of jobs, each pair run one after the other), over the
  cores. It leaves out what
  a job costs whatever its size (scheduling a dozen small jobs, listing files, starting the
  writes), which a day's million games spread to nothing, and keeps every cost that grows with
  the logs (the Python check, Arrow transfer, the cache, the duplicates' ranking, the writes).
  `index --workers 1` is measured the same way (the run alone on N and on 2N logs, fresh
  processes: its database opened and its tables created are its fixed cost) so the two rates
  are alike; the plain rates stay printed beside them.
- The cores a million games a day needs on each path, at the goal figures' rates per core (the
  marginal ones; the plain ones beside them) and the logs' events per game: the cores that index a day's games in an hour (a 24th of that keeps up
  with the day as it comes).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fresh import WALL, build, fresh, row, wall_of  # noqa: E402

Row = dict[str, Any]
GOAL_TWO_WORKERS = 1.6  # wall, whole command, 2 workers over 1 on 2 cores
GOAL_SPARK_PER_CORE = 0.5  # spark-index events/s per executor core over index --workers 1, marginal
GAMES_A_DAY = 1_000_000
#: the games of the second, bigger whole-command figure (full mode)
MORE_GAMES = 10_000
HOUR = 3_600.0


def wall_index(logs: str, db: str, workers: int) -> tuple[float, int]:
    """In a fresh process: wall seconds of `ingest.index(workers=N)` into a new database."""
    from buraco_events.analytics import ingest

    if os.path.exists(db):
        os.remove(db)
    reports = []
    wall = wall_of(lambda: reports.append(ingest.index([logs], db, workers=workers)))
    assert reports[0].ok, reports[0]
    return wall, reports[0].events


def command_env() -> tuple[Path, dict[str, str]]:
    """Return the folder that holds this build's `buraco_events` and `cli`, and the environment
    that runs `python -m cli.main` from it."""
    import buraco_events

    root = Path(buraco_events.__file__).resolve().parent.parent
    env = os.environ | {"PYTHONPATH": os.pathsep.join(
        p for p in (str(root), os.environ.get("PYTHONPATH")) if p)}
    return root, env


def write_bytecode(logs: str, db: str) -> None:
    """Run the command once, untimed, writing the bytecode of every module it imports.

    An installed command has its modules' bytecode (pip compiles it at install); a source tree
    run where PYTHONDONTWRITEBYTECODE is set (as on this machine) would compile every module
    again in each timed run, about a second that no install pays and that counts once whatever
    the workers.
    """
    root, env = command_env()
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    first = str(sorted(Path(logs).glob("*.jsonl"))[0])
    done = subprocess.run([sys.executable, "-m", "cli.main", "index", first, "--db", db], cwd=root,
                          env=env, capture_output=True)
    assert done.returncode == 0, done.stderr[-2000:]
    os.remove(db)


def wall_command(logs: str | list[str], db: str, workers: int) -> float:
    """Wall seconds of the whole `buraco index LOGS... --db DB --workers N` command, a new
    process of this build (run from the folder that holds its `buraco_events` and `cli`), its
    modules' bytecode written beforehand (`write_bytecode`)."""
    if os.path.exists(db):
        os.remove(db)
    root, env = command_env()
    inputs = [logs] if isinstance(logs, str) else logs
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "cli.main", "index", *inputs, "--db", db,
                           "--workers", str(workers)], cwd=root, env=env, capture_output=True)
    wall = time.perf_counter() - start
    assert done.returncode == 0, done.stderr[-2000:]
    return wall


def wall_audit(logs: str, workers: int) -> tuple[float, int]:
    """In a fresh process: wall seconds of auditing every log with N workers."""
    from buraco_events.audit.files import audit_path

    events = [0]

    def audit() -> None:
        for result in audit_path(Path(logs), workers=workers):
            assert result.report.ok
            events[0] += result.report.events

    return wall_of(audit), events[0]


#: executor cores of the local Spark session
SPARK_CORES = 2
#: pairs of spark-index jobs (half the logs, then all) behind the marginal rate
SPARK_PAIRS = 4


def wall_spark(runs: list[str], out: str) -> tuple[float, list[float], list[int]]:
    """In a fresh process: wall seconds of a local[2] Spark session start, then of a spark-index
    job on each log folder of `runs` in turn in that session, and each job's events written."""
    import buraco_events

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # the executors' Python workers import this very build
    root = str(Path(buraco_events.__file__).resolve().parent.parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from buraco_events.analytics.spark import session, spark_index

    spark: list[Any] = []
    start = wall_of(lambda: spark.append(session(f"local[{SPARK_CORES}]")))
    walls, events = [], []
    try:
        for logs in runs:
            begun = time.perf_counter()
            report = spark_index([logs], out, replace=True, spark=spark[0])
            walls.append(time.perf_counter() - begun)
            events.append(report.counts["events"])
    finally:
        spark[0].stop()
    return start, walls, events


def marginal(small: tuple[float, int], big: tuple[float, int]) -> float:
    """Return the events/s that the bigger run adds over the smaller one: (wall s, events) each."""
    return (big[1] - small[1]) / (big[0] - small[0])


def _median_ratio(what: str, pairs: list[tuple[float, float]]) -> Row:
    """Return the row of the median speed-up of (1 worker, 2 workers) wall pairs, each pair's
    ratio named: a shared machine's wall times swing, the pairs' median is the figure."""
    ratios = [c1 / c2 for c1, c2 in pairs]
    return row(f"{what}, median of {len(pairs)} pairs ({', '.join(f'{r:.2f}' for r in ratios)})",
               statistics.median(ratios), "ratio", "goal", GOAL_TWO_WORKERS)


def _has_spark() -> bool:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return shutil.which("java") is not None or bool(os.environ.get("JAVA_HOME"))


def _cores(events_per_game: float, per_core: float) -> float:
    """Return the core-hours a million games take at `per_core` events/s a core: the cores that
    index a day's million games in an hour (a 24th of it keeps up with the day as it comes)."""
    return GAMES_A_DAY * events_per_game / per_core / HOUR


def measure(quick: bool, runs: int = 1) -> list[Row]:
    """Return the scale-out figures (see the module docstring), each index pair `runs` times."""
    from buraco_events.play.sim import simulate

    rows: list[Row] = []
    rate = f"events/s ({WALL})"
    games = 120 if quick else 2000
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp) / "logs"
        simulate(logs, games, "stbl", 4, 7, ["greedy"], workers=2)
        db = str(Path(tmp) / "bench.duckdb")
        t1s: list[float] = []
        commands: list[tuple[float, float]] = []
        write_bytecode(str(logs), db)
        for run in range(runs):
            tag = f", run {run + 1} of {runs}" if runs > 1 else ""
            c1 = wall_command(str(logs), db, 1)
            c2 = wall_command(str(logs), db, 2)
            commands.append((c1, c2))
            rows.append(row(f"buraco index --workers 2, whole command (s{tag})", c2, "s (wall)",
                            "--workers 1", c1))
            rows.append(row(f"index speed-up, 2 workers, whole command{tag}", c1 / c2, "ratio",
                            "goal", GOAL_TWO_WORKERS))
            t1, events = fresh(wall_index, str(logs), db, 1)
            t2, events2 = fresh(wall_index, str(logs), db, 2)
            assert events == events2
            t1s.append(t1)
            size = f"{games:,} games, {events:,} events"
            rows.append(row(f"index, 2 workers, the run alone ({size}{tag})", events / t2, rate,
                            "1 worker", events / t1))
            rows.append(row(f"index speed-up, 2 workers, the run alone{tag}", t1 / t2, "ratio",
                            "goal", GOAL_TWO_WORKERS))
        if runs > 1:
            rows.append(_median_ratio("index speed-up, 2 workers, whole command", commands))
        if not quick:
            # a bigger load, the whole command again: its fixed costs (start-up, imports, the
            # schema, the commit) weigh less beside the run
            more = Path(tmp) / "more"
            simulate(more, MORE_GAMES - games, "stbl", 4, 8, ["greedy"], workers=2)
            inputs = [str(logs), str(more)]
            pairs = [(wall_command(inputs, db, 1), wall_command(inputs, db, 2))
                     for _ in range(runs)]
            median = _median_ratio(f"index speed-up, 2 workers, whole command, {MORE_GAMES:,} "
                                   "games", pairs)
            c1, c2 = min(pairs, key=lambda p: abs(p[0] / p[1] - median["value"]))
            rows.append(row(f"buraco index --workers 2, whole command, {MORE_GAMES:,} games (s)",
                            c2, "s (wall)", "--workers 1", c1))
            rows.append(median)
            shutil.rmtree(more)
        a1, audited = fresh(wall_audit, str(logs), 1)
        a2, _ = fresh(wall_audit, str(logs), 2)
        rows.append(row("audit, 2 workers", audited / a2, rate, "1 worker", audited / a1))
        rows.append(row("audit speed-up, 2 workers", a1 / a2, "ratio", "goal", GOAL_TWO_WORKERS))
        per_game = events / games
        index_rate = events / min(t1s)  # one core: the run alone, its best
        # the marginal rate: the run alone on the first half of the logs, then on them all
        half = Path(tmp) / "half"
        half.mkdir()
        for log in sorted(logs.iterdir())[:games // 2]:
            os.link(log, half / log.name)
        halves = [fresh(wall_index, str(half), db, 1) for _ in range(2)]
        index_small = min(halves)
        index_marginal = marginal(index_small, (min(t1s), events))
        rows.append(row(f"index --workers 1, marginal ({index_small[1]:,} events to {events:,},"
                        " the run alone; the goal figures' baseline)", index_marginal, rate,
                        "plain", index_rate))
        rows.append(row(f"{GAMES_A_DAY:,} games a day, index ({per_game:.0f} events a game, "
                        f"{index_marginal:,.0f} events/s a core, marginal)",
                        _cores(per_game, index_marginal), "cores for a day in an hour",
                        "plain rate", _cores(per_game, index_rate)))
        if not quick and _has_spark():
            # the first job, a second, a third (the JVM warming up over them), then pairs of a
            # half and the whole, one after the other: the marginal rate from the median of the
            # pairs' differences, each pair's two jobs seconds apart
            order = [logs, logs, logs, *[x for _ in range(SPARK_PAIRS) for x in (half, logs)]]
            start, jobs, written = fresh(wall_spark, [str(x) for x in order],
                                        str(Path(tmp) / "pq"))
            assert written[0] == events and written[3] == index_small[1], (written, events)
            for n, which in ((0, "first job"), (1, "again, same session")):
                per_core = events / jobs[n] / SPARK_CORES
                rows.append(row(f"spark-index per executor core, local[{SPARK_CORES}] ({which},"
                                " after its session start, plain)",
                                per_core, rate, "index --workers 1", index_rate))
                rows.append(row(f"{GAMES_A_DAY:,} games a day, spark-index ({which}, plain)",
                                _cores(per_game, per_core), "cores for a day in an hour",
                                "index", _cores(per_game, index_rate)))
            pairs = [(jobs[n], jobs[n + 1]) for n in range(3, len(order), 2)]
            added = statistics.median(big - small for small, big in pairs)
            spark_marginal = (events - index_small[1]) / added / SPARK_CORES
            rows.append(row(f"spark-index per executor core, local[{SPARK_CORES}], marginal "
                            f"({index_small[1]:,} events to {events:,}, warm session, median of "
                            f"{SPARK_PAIRS} pairs; goal ratio >= {GOAL_SPARK_PER_CORE})",
                            spark_marginal, rate, "index --workers 1, marginal", index_marginal))
            rows.append(row(f"{GAMES_A_DAY:,} games a day, spark-index (marginal)",
                            _cores(per_game, spark_marginal), "cores for a day in an hour",
                            "index, marginal", _cores(per_game, index_marginal)))
            rows.append(row(f"spark session start, local[{SPARK_CORES}]", start, "s (wall)"))
            rows.append(row("spark-index jobs in order (s): " + ", ".join(
                f"{'all' if x == logs else 'half'} {w:.1f}" for x, w in zip(order, jobs,
                                                                           strict=True)),
                sum(jobs), "s (wall)"))
    return rows


def main() -> None:
    """Print the figures as a table (and with `--out FILE`, add them to its runs as JSON)."""
    from report import print_table

    quick = "--quick" in sys.argv
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 1
    rows = measure(quick, runs)
    print_table(rows, f"scale-out ({'quick' if quick else 'full'}, {build()} build)")
    if "--out" in sys.argv:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent,
                                capture_output=True, text=True).stdout.strip()
        doc = {"commit": commit, "cores": os.cpu_count(), "python": platform.python_version(),
               "build": build(), "mode": "quick" if quick else "full",
               "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None, "rows": rows}
        out = Path(sys.argv[sys.argv.index("--out") + 1])
        runs = json.loads(out.read_text())["runs"] if out.exists() else []  # a run more
        out.write_text(json.dumps({"runs": [*runs, doc]}, indent=1) + "\n")


if __name__ == "__main__":
    main()
