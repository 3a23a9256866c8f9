"""Run every benchmark and print figures beside their baselines measured in the same run.

Usage: python benchmarks/run.py [--quick] [--json] [--only NAME]

Each `benchmarks/bench_*.py` module exposes `measure(quick: bool) -> list[dict]` with rows
{"name", "value", "unit", "baseline", "baseline_value"}; the ratio printed is value / baseline.
Every timed figure is measured in a fresh process on fresh logs with cold caches, in CPU time
unless its unit says wall (see `fresh.py`). The title names the build of buraco_events that ran:
as `buraco_events.build()` says: `pure` or `compiled` (the engine modules built by mypyc).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    """Run the suite; exit non-zero if a benchmark fails to run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds each")
    parser.add_argument("--json", action="store_true", help="print rows as JSON")
    parser.add_argument("--only", default=None, help="run only bench_<NAME>.py")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    from fresh import build

    import buraco_events

    print(f"build: {build()} ({Path(buraco_events.__file__).parent})", file=sys.stderr)
    rows: list[dict] = []
    failed = []
    for path in sorted(HERE.glob("bench_*.py")):
        if args.only and path.stem != f"bench_{args.only}":
            continue
        # a full run takes minutes per module and prints its table only at the end: say what runs
        print(f"{path.name}: running ({'quick' if args.quick else 'full'} sizes) ...", file=sys.stderr)
        start = time.perf_counter()
        try:
            module_rows = _load(path).measure(args.quick)
        except Exception as exc:  # a broken benchmark is reported, the others still run
            failed.append(f"{path.name}: {type(exc).__name__}: {exc}")
            continue
        for row in module_rows:
            row.setdefault("suite", path.stem.removeprefix("bench_"))
            base = row.get("baseline_value")
            row["ratio"] = (row["value"] / base) if base else None
            rows.append(row)
        print(f"{path.name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    meta = {
        "date": time.strftime("%Y-%m-%d"),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "quick": args.quick,
        "build": build(),
        "timing": "CPU time (wall where the unit says so), fresh process per figure",
    }
    if args.json:
        print(json.dumps({"meta": meta, "rows": rows, "failed": failed}, indent=2))
    else:
        from report import print_table

        print_table(rows, f"buraco-events benchmarks ({meta['build']} build, {meta['date']}, "
                    f"{meta['machine']}, Python {meta['python']}{', quick' if args.quick else ''})")
        for f in failed:
            print(f"FAILED {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
