"""Audit throughput (events/s and hands/s, one core) beside raw typed decoding of the same logs.

The goal is an audit at >= 30% of raw msgspec decoding. The audit decodes every line, hashes it
for the chain, and replays it through the engine (`check` then `apply`), so the figures also show
the engine replay alone; `python benchmarks/bench_audit.py --profile` prints the hot spots.

Usage: python benchmarks/bench_audit.py [--quick] [--profile]
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgspec  # noqa: E402

from buraco_events.audit import audit_lines  # noqa: E402
from buraco_events.bots import GreedyBot, play_game  # noqa: E402
from buraco_events.engine import GameState, apply, check  # noqa: E402
from buraco_events.events import AnyEvent, HandEnded, seal_lines  # noqa: E402

Row = dict[str, object]
#: (variant, players, target): single hands and 2000-point matches, 2 and 4 players
MIX = (("stbl", 2, 0), ("stbl", 4, 0), ("fechado", 2, 2000), ("burraco", 4, 2000))


def sample_logs(n_games: int) -> list[list[bytes]]:
    """Return the sealed lines of `n_games` greedy-bot games across the variant mix."""
    logs = []
    for i in range(n_games):
        variant, players, target = MIX[i % len(MIX)]
        bots = [GreedyBot() for _ in range(players)]
        events = play_game(variant, players, i, bots, f"bench-{i}", target=target)
        logs.append(seal_lines(events))
    return logs


def _best(fn: Callable[[], object], repeat: int) -> float:
    """Return the best wall time of `repeat` runs (the least disturbed by the shared machine)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _row(name: str, value: float, unit: str, baseline: str | None = None,
         baseline_value: float | None = None) -> Row:
    return {"name": name, "value": value, "unit": unit, "baseline": baseline,
            "baseline_value": baseline_value}


def measure(quick: bool) -> list[Row]:
    """Return audit and replay rates beside raw typed decoding, measured in this run."""
    logs = sample_logs(8 if quick else 48)
    repeat = 2 if quick else 4
    n_events = sum(len(lines) for lines in logs)
    n_hands = sum(line.count(b'"type":"hand_ended"') for lines in logs for line in lines)
    decoder = msgspec.json.Decoder(AnyEvent)
    decoded = [[decoder.decode(line) for line in lines] for lines in logs]
    assert n_hands == sum(isinstance(e, HandEnded) for events in decoded for e in events)

    def raw() -> None:
        for lines in logs:
            for line in lines:
                decoder.decode(line)

    def audit() -> None:
        for lines in logs:
            if not audit_lines(lines).report.ok:
                raise AssertionError("a sample log failed its audit")

    def replay() -> None:
        for events in decoded:
            state = GameState()
            for ev in events:
                check(state, ev)
                apply(state, ev)

    t_raw, t_audit, t_replay = _best(raw, repeat), _best(audit, repeat), _best(replay, repeat)
    raw_rate, audit_rate = n_events / t_raw, n_events / t_audit
    return [
        _row("audit, events/s per core", audit_rate, "events/s",
             "raw typed decode (msgspec)", raw_rate),
        _row("audit, hands/s per core", n_hands / t_audit, "hands/s"),
        _row("engine replay alone (check+apply)", n_events / t_replay, "events/s",
             "raw typed decode (msgspec)", raw_rate),
        _row("audit share spent in the replay", t_replay / t_audit, "fraction"),
        _row("events audited", float(n_events), "events"),
    ]


def hot_spots(quick: bool, top: int = 12) -> str:
    """Return the profile of one audit pass, the functions with the most own time first."""
    logs = sample_logs(8 if quick else 24)
    profile = cProfile.Profile()
    profile.enable()
    for lines in logs:
        audit_lines(lines)
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main() -> None:
    """Print the figures as a table (and the hot spots with --profile)."""
    from report import print_table

    quick = "--quick" in sys.argv
    print_table(measure(quick), f"audit ({'quick' if quick else 'full'})")
    if "--profile" in sys.argv:
        print(hot_spots(quick))


if __name__ == "__main__":
    main()
