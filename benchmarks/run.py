"""Run every benchmark and print figures beside their baselines measured in the same run.

Usage: python benchmarks/run.py [--quick] [--json] [--only NAME[,NAME...]] [--build both|pure|compiled]

Each `benchmarks/bench_*.py` module exposes `measure(quick: bool) -> list[dict]` with rows
{"name", "value", "unit", "baseline", "baseline_value"}; the ratio printed is value / baseline.
Every timed figure is measured in a fresh process on fresh logs with cold caches, in CPU time
unless its unit says wall (see `fresh.py`).

Both builds run by default (issue 14), one after the other: the build the sources beside this
file are (`buraco_events.build()`: `pure` for a clone or an editable install) runs in this process;
the other runs on a copy of the sources in a temporary folder, compiled there by `setup.py` with
mypyc (`BURACO_COMPILE=1`, in place: about a minute on 2 cores), by this same script in a child
process. One table prints each figure per build and, beside the compiled one, its ratio to the pure
one. Without mypyc or a C compiler the compiled build cannot be made: the pure figures print, and
one line says why.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BUILDS = ("pure", "compiled")
#: what a copy of the sources needs to build and run the suite
COPIED = ("buraco_events", "cli", "benchmarks", "data", "setup.py", "pyproject.toml", "README.md")
#: set in the child that runs the other build, so it never copies the sources again
CHILD_ENV = "BURACO_BENCH_CHILD"


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def run_suite(quick: bool, only: str | None) -> tuple[list[dict], list[str]]:
    """Run the benchmark modules in this process; return their rows and the failures."""
    rows: list[dict] = []
    failed = []
    for path in sorted(HERE.glob("bench_*.py")):
        if only and path.stem.removeprefix("bench_") not in only.split(","):
            continue
        # a full run takes minutes per module and prints its table only at the end: say what runs
        print(f"{path.name}: running ({'quick' if quick else 'full'} sizes) ...", file=sys.stderr)
        start = time.perf_counter()
        try:
            module_rows = _load(path).measure(quick)
        except Exception as exc:  # a broken benchmark is reported, the others still run
            failed.append(f"{path.name}: {type(exc).__name__}: {exc}")
            continue
        for row in module_rows:
            row.setdefault("suite", path.stem.removeprefix("bench_"))
            base = row.get("baseline_value")
            row["ratio"] = (row["value"] / base) if base else None
            rows.append(row)
        print(f"{path.name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return rows, failed


def _copy_sources(dest: Path) -> None:
    """Copy what the suite needs to `dest`, without compiled files or caches."""
    skip = shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", "*.egg-info")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=skip)
        else:
            shutil.copy2(source, dest / name)


def _compile_in_place(folder: Path) -> str | None:
    """Compile the copy in `folder` with mypyc; return why not when no compiled build came out."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=folder,
                          env=os.environ | {"BURACO_COMPILE": "1"}, capture_output=True, text=True)
    said = [line for line in done.stderr.splitlines() if line.startswith("buraco-events: ")]
    if done.returncode != 0:
        return f"setup.py failed ({done.stderr.strip().splitlines()[-1:]})"
    if not list((folder / "buraco_events").rglob("engine.*.so")):  # core/engine, compiled
        return said[-1].removeprefix("buraco-events: ") if said else "setup.py built no extension"
    print(f"compiled build: mypyc and the C compiler took {time.perf_counter() - start:.0f} s "
          "(wall)", file=sys.stderr)
    return None


def run_other_build(which: str, args: argparse.Namespace) -> tuple[list[dict], list[str]] | str:
    """Run the suite on `which` build from a copy of the sources; return rows and failures,
    or why that build cannot be made here."""
    with tempfile.TemporaryDirectory(prefix=f"buraco-bench-{which}-") as tmp:
        folder = Path(tmp)
        _copy_sources(folder)
        if which == "compiled":
            why_not = _compile_in_place(folder)
            if why_not is not None:
                return why_not
        command = [sys.executable, str(folder / "benchmarks" / "run.py"), "--build", which, "--json"]
        command += ["--quick"] * args.quick + (["--only", args.only] if args.only else [])
        path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH")) if p)
        # run from the copy: Python 3.11's fork server ignores the parent's sys.path and imports
        # from its working folder first, so elsewhere its children could import other sources
        child = subprocess.run(command, stdout=subprocess.PIPE, text=True, cwd=folder,
                               env=os.environ | {"PYTHONPATH": path, CHILD_ENV: "1"})
        try:
            result = json.loads(child.stdout)
        except json.JSONDecodeError:
            return f"the {which} run failed (exit {child.returncode})"
    if result["meta"]["build"] != which:
        raise RuntimeError(f"the copy ran the {result['meta']['build']} build, not the {which} one")
    return result["rows"], result["failed"]


def interleave(by_build: dict[str, list[dict]]) -> list[dict]:
    """Return the rows of every build, each compiled figure after its pure one with their ratio."""
    def key(r: dict) -> tuple[object, ...]:  # a figure may have several baselines, or units
        return r["suite"], r["name"], r["unit"], r.get("baseline")

    compiled: dict[tuple[object, ...], list[dict]] = {}
    for r in by_build.get("compiled", []):
        compiled.setdefault(key(r), []).append(r)
    rows = []
    for r in by_build.get("pure", []):
        rows.append(r)
        twins = compiled.get(key(r))
        if twins:
            twin = twins.pop(0)
            # a speed-up for rates and sizes; a share (%, fraction) of two builds is no ratio
            share = str(r["unit"]).startswith(("%", "fraction"))
            twin["vs_pure"] = twin["value"] / r["value"] if r["value"] and not share else None
            rows.append(twin)
    return rows + [r for left in compiled.values() for r in left]


def main() -> int:
    """Run the suite; exit non-zero if a benchmark fails to run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds each")
    parser.add_argument("--json", action="store_true", help="print rows as JSON")
    parser.add_argument("--only", default=None, help="run only bench_<NAME>.py (names separated by commas: audit,sim)")
    parser.add_argument("--build", choices=("both", *BUILDS), default="both",
                        help="which builds to measure (default both; see the module's doc)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(HERE))
    from fresh import build

    import buraco_events

    here = build()
    print(f"build: {here} ({Path(buraco_events.__file__).parent})", file=sys.stderr)
    wanted = BUILDS if args.build == "both" else (args.build,)
    by_build: dict[str, list[dict]] = {}
    failed: list[str] = []
    notes: list[str] = []
    for which in wanted:
        if which == here:
            rows, failures = run_suite(args.quick, args.only)
        elif os.environ.get(CHILD_ENV):
            raise RuntimeError(f"the copy for the {which} build runs the {here} one")
        else:
            print(f"build: {which} (a copy of the sources, in a temporary folder)", file=sys.stderr)
            got = run_other_build(which, args)
            if isinstance(got, str):
                notes.append(f"no {which} build here: {got}; its figures are left out")
                print(notes[-1], file=sys.stderr)
                continue
            rows, failures = got
        for row in rows:
            row["build"] = which
        by_build[which] = rows
        failed += [f"{which} build: {f}" for f in failures]
    rows = interleave(by_build)
    builds = [b for b in BUILDS if b in by_build]
    meta = {
        "date": time.strftime("%Y-%m-%d"),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "quick": args.quick,
        "build": "+".join(builds),
        "timing": "CPU time (wall where the unit says so), fresh process per figure",
    }
    if args.json:
        print(json.dumps({"meta": meta, "rows": rows, "failed": failed, "notes": notes}, indent=2))
    else:
        from report import print_table

        print_table(rows, f"buraco-events benchmarks ({' and '.join(builds)} build"
                    f"{'s' * (len(builds) > 1)}, {meta['date']}, {meta['machine']}, "
                    f"Python {meta['python']}{', quick' if args.quick else ''})")
        for note in notes:
            print(note)
        for f in failed:
            print(f"FAILED {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
