"""The index against the checked replay in instructions (valgrind's callgrind), not CPU time.

Run `python benchmarks/instructions_index.py [LOGS]` with valgrind installed (not part of the
suite: `run.py` measures CPU time, which this machine's neighbours swing by up to 2x between
runs; an instruction count repeats to within a few parts in a thousand). Without LOGS it
simulates 600 greedy stbl games of 4 players (seed 7). Each step runs in its own interpreter under
callgrind with `PYTHONHASHSEED=0`, twice: over the logs, and over an empty folder with the same
imports and setup; the difference is the step's own work, per event:

- the checked replay, as `bench_index`'s baseline (decode, chain check, engine `play`);
- the same replay as the index reads (`reader.EventReader`, `ingest._decode_log`);
- `ingest.index` with the events rows built natively (`rows.EventBuffers`), and with plain
  lists (`ingest._NATIVE_ROWS` off); for the native index, the part inside DuckDB's library.

From these it prints the index / replay ratio of each way and the best ratio DuckDB's own part
leaves (the index with its row building and Arrow conversion free). Run it on a compiled copy
(see `run.py`: `BURACO_COMPILE=1 python setup.py build_ext --inplace` in a clone, then
`PYTHONPATH=that-clone`); it says which build it measured.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

#: one step per mode, run by this file itself in the child: `--step MODE LOGS`
STEPS = ("replay", "reader", "index-native", "index-lists")


def _step(mode: str, logs: str) -> None:
    """Run one step over `logs` (the child's side)."""
    if mode.startswith("index"):
        from buraco_events.analytics import arrowrows, ingest
        from buraco_events.analytics.rows import Columns

        ingest._NATIVE_ROWS = mode == "index-native"
        arrowrows.arrow_tables(Columns())  # pyarrow's first conversion imports pandas: setup
        with tempfile.TemporaryDirectory() as folder:
            ingest.index([logs], Path(folder) / "index.duckdb")
        return
    from buraco_events.analytics.ingest import _decode_log
    from buraco_events.core.engine import play
    from buraco_events.core.state import GameState
    from buraco_events.log.chain import Chain
    from buraco_events.log.lines import decode_lines
    from buraco_events.log.sources import iter_logs

    for name, lines in iter_logs(logs):
        state = GameState()
        if mode == "reader":
            for ev in _decode_log(lines)[0]:
                play(state, ev)
        else:
            chain = Chain(name)
            for _, line, ev in decode_lines(lines, name):
                chain.add(line, ev)
                play(state, ev)


def _by_object(path: Path) -> Counter[str]:
    """Return the instructions of a callgrind output file by the object (library) they ran in."""
    names: dict[str, str] = {}
    current = "?"
    totals: Counter[str] = Counter()
    after_call = False
    with path.open() as f:
        for line in f:
            if line.startswith(("ob=", "cob=")):
                m = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line.strip())
                if m and m.group(2):
                    names[m.group(1)] = Path(m.group(2)).name
                if line.startswith("ob=") and m:
                    current = names.get(m.group(1), "?")
            elif line.startswith("calls="):
                after_call = True  # the next cost line is the call's inclusive cost
            elif line[:1].isdigit() or line[:1] in "+-*":
                if after_call:
                    after_call = False
                    continue
                parts = line.split()
                if len(parts) >= 2:
                    totals[current] += int(parts[1])
    return totals


def _measure(mode: str, logs: str, out: Path) -> Counter[str]:
    """Run one step under callgrind; return its instructions by object."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
         os.path.realpath(sys.executable), __file__, "--step", mode, logs],
        env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return _by_object(out)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--step"]:
        _step(argv[1], argv[2])
        return 0
    if shutil.which("valgrind") is None:
        print("instructions_index: valgrind is not installed (apt install valgrind)")
        return 2
    import buraco_events
    from buraco_events.log.sources import iter_logs
    from buraco_events.play.sim import simulate

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        logs = argv[0] if argv else str(work / "logs")
        if not argv:
            print("simulating 600 stbl games of 4 players ...", flush=True)
            simulate(Path(logs), 600, "stbl", 4, seed=7, bots=["greedy"], workers=2)
        events = sum(sum(1 for _ in lines) for _, lines in iter_logs(logs))
        empty = work / "empty"
        empty.mkdir()
        own: dict[str, Counter[str]] = {}
        for mode in STEPS:
            print(f"callgrind: {mode} ...", flush=True)
            full = _measure(mode, logs, work / f"{mode}.full")
            none = _measure(mode, str(empty), work / f"{mode}.empty")
            own[mode] = Counter({k: full[k] - none.get(k, 0) for k in full})
    total = {mode: sum(c.values()) for mode, c in own.items()}
    duckdb = sum(v for k, v in own["index-native"].items() if k.startswith("_duckdb"))
    per = {mode: total[mode] / events for mode in STEPS}
    print(f"\n{buraco_events.build()} build, {events:,} events; instructions per event "
          "(each step less the same process over no logs)")
    for mode in STEPS:
        print(f"  {mode:<14} {per[mode]:>9,.0f}")
    print(f"  {'in DuckDB':<14} {duckdb / events:>9,.0f}  (of index-native)")
    replay = total["replay"]
    for mode in ("index-native", "index-lists"):
        print(f"{mode} / checked replay: {replay / total[mode]:.3f}x")
    print(f"with row building and Arrow free (replay + DuckDB's part): "
          f"{replay / (replay + duckdb):.3f}x")
    beyond = own["index-native"] - own["reader"]  # Counter subtraction keeps what is positive
    print("index-native beyond the reader, per event, by library:")
    for name, n in beyond.most_common(8):
        print(f"  {name:<52} {n / events:>7,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
