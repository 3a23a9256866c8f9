"""Analytics figures: index throughput, database size and stats query times on simulated games.

Run `python benchmarks/bench_index.py [--quick]` for a table; `measure(quick)` returns the rows.
Games come from `sim.simulate` with the greedy bot (quick: 200 games of stbl and burraco; full:
10,000 stbl games, about four minutes of simulation on 2 idle cores). Baselines are measured in the same run on the same files:
the validated replay alone (decode, chain check, engine `play`, no database) and DuckDB's own
`read_ndjson` of the logs (no checks at all).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

from buraco_events import analytics
from buraco_events.engine import GameState, play
from buraco_events.log import Chain, decode_lines
from buraco_events.sim import simulate
from buraco_events.sources import iter_logs

Row = dict[str, Any]

#: (variant, players, games in quick mode, games in full mode); the full run keeps to stbl (one
#: hand a game) to fit in minutes, and because greedy burraco 2p game 243 of seed 7 never ends
MIX = (("stbl", 4, 150, 8000), ("stbl", 2, 0, 2000), ("burraco", 2, 50, 0))


def _simulate(folder: Path, quick: bool) -> int:
    """Write the benchmark's games into `folder`; return the number of games."""
    total = 0
    for variant, players, small, big in MIX:
        games = small if quick else big
        if games:
            simulate(folder / f"{variant}-{players}p", games, variant, players, seed=7,
                     bots=["greedy"], workers=2)
        total += games
    return total


def _replay_all(folder: Path) -> int:
    """Decode, chain-check and replay every log (what index does before touching DuckDB)."""
    events = 0
    for name, lines in iter_logs(folder):
        chain, state = Chain(name), GameState()
        for _, line, ev in decode_lines(lines, name):
            chain.add(line, ev)
            play(state, ev)
            events += 1
    return events


def _timed(fn: Any, *args: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def measure(quick: bool) -> list[Row]:
    """Return the analytics figures (see the module docstring)."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        logs = base / "logs"
        n_games = _simulate(logs, quick)
        log_bytes = sum(f.stat().st_size for f in logs.rglob("*.jsonl"))
        db = base / "bench.duckdb"

        t_index, report = _timed(analytics.index, [logs], db)
        events = report.events
        assert report.ok and report.added == n_games, report
        t_replay, replayed = _timed(_replay_all, logs)
        assert replayed == events
        glob = str(logs / "**" / "*.jsonl")
        with duckdb.connect() as con:
            t_json, _ = _timed(con.execute, "CREATE TABLE raw AS SELECT * FROM read_ndjson("
                               f"'{glob}', union_by_name = true)")
            assert con.execute("SELECT count(*) FROM raw").fetchall()[0][0] == events

        size = f"{n_games:,} games, {events:,} events"
        rows.append({"name": f"index throughput ({size})", "value": events / t_index,
                     "unit": "events/s", "baseline": "validated replay alone (no database)",
                     "baseline_value": events / t_replay})
        rows.append({"name": "index throughput", "value": events / t_index, "unit": "events/s",
                     "baseline": "DuckDB read_ndjson of the same files (unchecked)",
                     "baseline_value": events / t_json})
        rows.append({"name": "database size", "value": db.stat().st_size / events,
                     "unit": "bytes/event", "baseline": "the JSON Lines logs",
                     "baseline_value": log_bytes / events})

        con = analytics.connect(db, read_only=True)
        try:
            t_scan, _ = _timed(analytics.run_query, con, "SELECT count(*), sum(n_cards) FROM events")
            for view in analytics.STATS_VIEWS:
                t_view, _ = _timed(analytics.view_rows, con, view)
                rows.append({"name": f"stats query {view}", "value": t_view * 1000, "unit": "ms",
                             "baseline": "full scan of events", "baseline_value": t_scan * 1000})
        finally:
            con.close()

        out = base / "parquet"
        t_export, _ = _timed(analytics.export_parquet, db, out)
        pq_bytes = sum(f.stat().st_size for f in out.rglob("*.parquet"))
        rows.append({"name": "parquet export size (zstd, all tables)", "value": pq_bytes / events,
                     "unit": "bytes/event", "baseline": "database file",
                     "baseline_value": db.stat().st_size / events})
        rows.append({"name": "parquet export", "value": events / t_export, "unit": "events/s",
                     "baseline": "", "baseline_value": None})
    return rows


def main() -> None:
    """Print the figures as a table."""
    from report import print_table

    quick = "--quick" in sys.argv
    print_table(measure(quick), f"analytics ({'quick' if quick else 'full'})")


if __name__ == "__main__":
    main()
