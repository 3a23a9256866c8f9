"""Audit and engine replay throughput (CPU time, fresh process, fresh logs) beside raw decoding.

The goals of issue 14: a full audit at >= 1,500 hands/s per core and an engine replay (check +
apply) at >= 400k events/s. The parent plays the sample games with greedy bots and writes them as
log files; each figure is then one fresh process that reads those files (untimed), runs its step
once with cold caches and reports its CPU seconds (the median of 3 processes in the full run). The
audit decodes every line, hashes it for the chain and replays it through the engine, so the replay
alone (decoded untimed first) shows the engine's share; `--profile` prints the hot spots of a
cold audit.

Usage: python benchmarks/bench_audit.py [--quick] [--profile]
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import msgspec  # noqa: E402
from fresh import CPU, cpu_of, fresh, fresh_cpu, row  # noqa: E402

from buraco_events.audit.auditor import audit_lines  # noqa: E402
from buraco_events.bots.registry import GreedyBot, run_game  # noqa: E402
from buraco_events.core.engine import play
from buraco_events.core.state import GameState
from buraco_events.model.events import AnyEvent, seal_lines  # noqa: E402

Row = dict[str, object]
#: (variant, players, target): single hands and 2000-point matches, 2 and 4 players
MIX = (("stbl", 2, 0), ("stbl", 4, 0), ("fechado", 2, 2000), ("burraco", 4, 2000))
GOAL_AUDIT = 1500.0  # hands/s per core, issue 14
GOAL_REPLAY = 400_000.0  # events/s per core, issue 14


def write_logs(folder: Path, n_games: int) -> None:
    """Write `n_games` greedy-bot games across the variant mix as sealed logs in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n_games):
        variant, players, target = MIX[i % len(MIX)]
        bots = [GreedyBot() for _ in range(players)]
        events = run_game(variant, players, i, bots, f"bench-{i}", target=target)[0]
        (folder / f"{i:04d}.jsonl").write_bytes(b"".join(x + b"\n" for x in seal_lines(events)))


def read_logs(folder: str) -> list[list[bytes]]:
    """Return the lines of every log in `folder`, in name order."""
    return [f.read_bytes().splitlines() for f in sorted(Path(folder).glob("*.jsonl"))]


def cpu_raw(folder: str) -> float:
    """In a fresh process: CPU seconds of typed msgspec decoding of every line."""
    logs = read_logs(folder)
    decoder = msgspec.json.Decoder(AnyEvent)
    return cpu_of(lambda: [decoder.decode(line) for lines in logs for line in lines])


def cpu_audit(folder: str) -> float:
    """In a fresh process: CPU seconds of the full audit of every log (each must pass)."""
    logs = read_logs(folder)

    def audit() -> None:
        for lines in logs:
            if not audit_lines(lines).report.ok:
                raise AssertionError("a sample log failed its audit")

    return cpu_of(audit)


def cpu_replay(folder: str) -> float:
    """In a fresh process: CPU seconds of check + apply (`engine.play`) of every event (decoded untimed)."""
    decoder = msgspec.json.Decoder(AnyEvent)
    decoded = [[decoder.decode(line) for line in lines] for lines in read_logs(folder)]

    def replay() -> None:
        for events in decoded:
            state = GameState()
            for ev in events:
                play(state, ev)  # check, then apply: the engine's fused step

    return cpu_of(replay)


def measure(quick: bool) -> list[Row]:
    """Return audit and replay rates beside raw typed decoding and the goals, this run."""
    runs = 1 if quick else 5  # the median of fresh processes: short runs swing with the load
    with tempfile.TemporaryDirectory() as tmp:
        folder = str(Path(tmp) / "logs")
        write_logs(Path(folder), 8 if quick else 160)
        logs = read_logs(folder)
        n_events = sum(len(lines) for lines in logs)
        n_hands = sum(line.count(b'"type":"hand_ended"') for lines in logs for line in lines)
        t_raw = fresh_cpu(cpu_raw, folder, runs=runs)
        t_audit = fresh_cpu(cpu_audit, folder, runs=runs)
        t_replay = fresh_cpu(cpu_replay, folder, runs=runs)
    raw_rate, audit_rate, replay_rate = n_events / t_raw, n_events / t_audit, n_events / t_replay
    unit = f"events/s ({CPU})"
    return [
        row("full audit, per core", audit_rate, unit, "raw typed decode (msgspec)", raw_rate),
        row("full audit, per core", n_hands / t_audit, f"hands/s ({CPU})", "goal", GOAL_AUDIT),
        row("engine replay (check+apply), per core", replay_rate, unit,
            "raw typed decode (msgspec)", raw_rate),
        row("engine replay (check+apply), per core", replay_rate, unit, "goal", GOAL_REPLAY),
        row("audit share spent in the replay", t_replay / t_audit, "fraction"),
        row(f"logs audited ({len(logs)} games, {n_hands} hands)", float(n_events), "events"),
    ]


def profile_audit(folder: str, top: int) -> str:
    """In a fresh process: the profile of one cold audit pass, most own CPU time first."""
    logs = read_logs(folder)
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    for lines in logs:
        audit_lines(lines)
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def hot_spots(quick: bool, top: int = 12) -> str:
    """Return the profile of a cold audit of fresh logs, the functions with the most own time first."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "logs"
        write_logs(folder, 8 if quick else 24)
        return str(fresh(profile_audit, str(folder), top))


def main() -> None:
    """Print the figures as a table (and the hot spots with --profile)."""
    from report import print_table

    quick = "--quick" in sys.argv
    print_table(measure(quick), f"audit ({'quick' if quick else 'full'})")
    if "--profile" in sys.argv:
        print(hot_spots(quick))


if __name__ == "__main__":
    main()
