"""The README's Quickstart timed as a newcomer meets it: a fresh clone, a fresh venv, no pip cache.

Run `python benchmarks/newcomer.py [--out FILE] [--repeat N]` from the repository root. Each run
clones the committed tree (`git clone`, so only what is committed) into a temporary folder,
makes a new virtual environment there with this interpreter, and times in wall seconds, with
`PIP_NO_CACHE_DIR=1` so no wheel or build comes from an earlier run:

- `pip install . && buraco demo` (the first Quickstart command), each half apart;
- `pip install -e '.[test]' && python -m pytest` (the second), each half apart, in another clone.

Wheels come from wherever this machine's pip is configured to find them (its index, its
find-links); a machine behind a slower network adds its download time. The figures print as a
table beside the goals (60 s and 120 s on 2 cores) and, with `--out`, go to a JSON file
(`benchmarks/results/newcomer.json` holds the run the README quotes). Not part of `run.py`:
a run takes minutes and needs the machine otherwise idle.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the issue's goals, wall seconds on 2 cores: install + demo, install + tests
GOALS = {"install+demo": 60.0, "install+tests": 120.0}


def _timed(command: str, cwd: Path, env: dict[str, str], log: Path) -> float:
    """Run a shell command in `cwd`, its output appended to `log`; return its wall seconds."""
    start = time.perf_counter()
    with log.open("ab") as out:
        done = subprocess.run(command, shell=True, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"newcomer: `{command}` failed (exit {done.returncode}); see {log}")
    return wall


def _fresh(where: Path, name: str) -> tuple[Path, dict[str, str]]:
    """Clone the repository to `where/name` with a new venv inside; return the clone and its env."""
    clone = where / name
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(clone / ".venv")], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "BURACO_COMPILE")}
    env["PATH"] = f"{clone / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(clone / ".venv")
    env["PIP_NO_CACHE_DIR"] = "1"
    return clone, env


#: each Quickstart command as its two halves, (figure, shell command), with the name of its sum
COMMANDS = [
    ("install+demo", [("install (compiled)", "pip install ."), ("demo", "buraco demo")]),
    ("install+tests", [("install -e .[test]", "pip install -e '.[test]'"), ("tests", "python -m pytest")]),
]


def run_once(log: Path) -> dict[str, float]:
    """Time both Quickstart commands once, each in a clone of its own; return the figures."""
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="newcomer-") as tmp:
        for total, halves in COMMANDS:
            clone, env = _fresh(Path(tmp), total.replace("+", "-"))
            for figure, command in halves:
                print(f"newcomer: {command} ...", file=sys.stderr)
                figures[figure] = _timed(command, clone, env, log)
            figures[total] = sum(figures[figure] for figure, _ in halves)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--repeat", type=int, default=1, help="runs (the table shows each)")
    args = parser.parse_args()
    log = Path(tempfile.mkdtemp(prefix="newcomer-log-")) / "output.txt"
    runs = [run_once(log) for _ in range(args.repeat)]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.strip()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"commit {commit}, {cores} cores, Python {platform.python_version()}, wall seconds")
    print(f"{'step':<22}" + "".join(f"{'run ' + str(i + 1):>10}" for i in range(len(runs))) + f"{'goal':>10}")
    for step in runs[0]:
        goal = f"{GOALS[step]:>10.0f}" if step in GOALS else f"{'':>10}"
        print(f"{step:<22}" + "".join(f"{run[step]:>10.1f}" for run in runs) + goal)
    if args.out:
        args.out.write_text(json.dumps({"commit": commit, "cores": cores, "python": platform.python_version(),
                                        "goals": GOALS, "runs": runs}, indent=1) + "\n")
    shutil.rmtree(log.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
