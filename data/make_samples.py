"""Regenerate the sample logs in data/samples/ byte for byte: `python data/make_samples.py [OUT]`.

Greedy bots play, per preset, one single-hand game with 2 players and one with 4 (target 0, to
keep them small), plus one full fechado match to 2000 with 2 players (run seed 1, so its id
differs from the fechado single hand). Logs are written by `buraco_events.play.sim.simulate`, so the
same code and seeds always give the same bytes.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from buraco_events.model.rules import PRESETS
from buraco_events.play.sim import simulate

HERE = Path(__file__).resolve().parent
SINGLE_HAND_SEED = 0
MATCH_SEED = 1


def make_samples(out_dir: Path) -> list[Path]:
    """Write the sample logs into `out_dir` and return their paths, sorted."""
    for variant in PRESETS:
        for players in (2, 4):
            simulate(out_dir, 1, variant, players, SINGLE_HAND_SEED, ["greedy"], target=0)
    simulate(out_dir, 1, "fechado", 2, MATCH_SEED, ["greedy"], target=2000)
    return sorted(out_dir.glob("*.jsonl"))


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "samples"
    # logs are never replaced in place: play into a fresh folder, then swap the samples over
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        for path in make_samples(Path(tmp)):
            print(f"{path.name}  {path.stat().st_size:,} bytes")
            path.replace(out / path.name)
