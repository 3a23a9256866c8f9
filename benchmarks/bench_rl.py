"""Learning speed: random-policy steps per CPU second of the PettingZoo env (`buraco_events.rl`),
beside PettingZoo's `gin_rummy_v4` (RLCard's gin rummy) in the same run.

Run `python benchmarks/bench_rl.py [--quick]`; `measure(quick)` returns the rows. Each figure is
one fresh process (the median of 3 in the full run) stepping whole games with one random policy,
the same for both envs: a uniform pick among the ids of the action mask. Its CPU time counts the
env's steps, its observations and masks (`last()`) and the policy's pick, resets included.

`gin_rummy_v4` left PettingZoo in 1.25: where `pettingzoo.classic` no longer has it, the baseline
is the same env rebuilt on PettingZoo's own RLCard base class (`RLCardBase("gin-rummy", 2, ...)`:
the observation's four planes, the 110-id mask, the wrappers its `env()` applied), which is what
`gin_rummy_v4` was. Without the `rl` extra (pettingzoo, gymnasium, numpy) `measure` returns no
rows; without rlcard (the `bench` extra: pip install -e '.[bench]', which adds PettingZoo's
classic games) the rows have no baseline.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fresh import CPU, fresh  # noqa: E402

Row = dict[str, Any]
#: the envs measured: (variant, players)
CASES = (("stbl", 2), ("stbl", 4), ("burraco", 4))


def _have(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


def _steps_per_second(env: Any, steps: int, seed: int) -> float:
    """Step `env` with the random policy until `steps` steps are done; return steps per CPU second."""
    import numpy as np

    rng = np.random.default_rng(seed)
    done = 0
    start = time.process_time()
    env.reset(seed=seed)
    while done < steps:
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:  # the mask is 0/1 int8: its bool view lists the legal ids fast
                legal = np.flatnonzero(observation["action_mask"].view(bool))
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            done += 1
        env.reset()
    return done / (time.process_time() - start)


def buraco_rate(variant: str, players: int, steps: int) -> float:
    """In a fresh process: random-policy steps per CPU second of the Buraco env."""
    from buraco_events.rl import env

    return _steps_per_second(env(variant, players), steps, 1)


def gin_env() -> Any:
    """Return PettingZoo's gin_rummy_v4 env (rebuilt on `RLCardBase` where PettingZoo dropped it)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            from pettingzoo.classic import gin_rummy_v4  # type: ignore[attr-defined]

            return gin_rummy_v4.env()
        except (ImportError, AttributeError):
            pass
    import numpy as np
    from pettingzoo.classic.rlcard_envs.rlcard_base import RLCardBase
    from pettingzoo.utils import wrappers

    class GinRummy(RLCardBase):
        """gin_rummy_v4's observation (four 52-card planes) and 110-id action mask."""

        metadata = {"name": "gin_rummy_v4", "render_modes": [], "is_parallelizable": False}

        def __init__(self) -> None:
            super().__init__("gin-rummy", 2, (4, 52))
            self.render_mode = None

        def observe(self, agent: str) -> dict[str, Any]:
            planes = self.env.get_state(self._name_to_int(agent))["obs"][0:4, :].astype(self._dtype)
            mask = np.zeros(110, "int8")
            mask[list(self.next_legal_moves)] = 1
            return {"observation": planes, "action_mask": mask}

        def render(self) -> None:
            return None

    env = wrappers.TerminateIllegalWrapper(GinRummy(), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))


def gin_rate(steps: int) -> float:
    """In a fresh process: random-policy steps per CPU second of gin_rummy_v4."""
    return _steps_per_second(gin_env(), steps, 1)


def _median(fn: Any, runs: int, *args: Any) -> float:
    values = sorted(fresh(fn, *args) for _ in range(runs))
    return values[len(values) // 2]


def measure(quick: bool) -> list[Row]:
    """Return the env figures (quick: fewer steps, one process each); none without the extra."""
    if not _have("numpy", "gymnasium", "pettingzoo"):
        print("bench_rl: skipped (the rl extra is not installed: pip install -e '.[rl]')", file=sys.stderr)
        return []
    steps = 2000 if quick else 20000
    runs = 1 if quick else 3
    gin = _median(gin_rate, runs, steps) if _have("rlcard") else None
    rows: list[Row] = []
    for variant, players in CASES:
        rate = _median(buraco_rate, runs, variant, players, steps)
        rows.append({
            "name": f"random policy, {variant} {players}p", "value": rate, "unit": f"env steps/s ({CPU})",
            "baseline": "gin_rummy_v4 (RLCard)" if gin is not None else None, "baseline_value": gin,
        })
    return rows


def main() -> None:
    """Print the figures as a table."""
    from report import print_table

    quick = "--quick" in sys.argv
    print_table(measure(quick), f"rl env ({'quick' if quick else 'full'})")


if __name__ == "__main__":
    main()
