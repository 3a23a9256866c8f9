"""The optional extras hold what they are for: `rl` only what the environment imports, the
benchmark's baseline (PettingZoo's classic games, about 180 MB) in `bench`."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _extras() -> dict[str, list[str]]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~;\s]", r, maxsplit=1)[0].lower() for r in requirements}


def test_rl_holds_only_what_the_environment_imports() -> None:
    extras = _extras()
    assert _names(extras["rl"]) == {"pettingzoo", "gymnasium", "numpy"}
    imported = set()
    for source in (ROOT / "buraco_events" / "rl").glob("*.py"):
        imported |= set(re.findall(r"^\s*(?:from|import) (\w+)", source.read_text(), re.MULTILINE))
    third_party = imported - set(sys.stdlib_module_names) - {"buraco_events", "__future__"}
    assert third_party and third_party <= {"pettingzoo", "gymnasium", "numpy"}, third_party
    assert "pettingzoo.classic" not in "".join(p.read_text() for p in (ROOT / "buraco_events" / "rl").glob("*.py"))


def test_the_benchmark_s_baseline_is_the_bench_extra() -> None:
    extras = _extras()
    assert "pettingzoo[classic]" in _names(extras["bench"])
    assert "rlcard" in (ROOT / "benchmarks" / "bench_rl.py").read_text()
    for name, requirements in extras.items():
        if name != "bench":
            assert "pettingzoo[classic]" not in _names(requirements), name
