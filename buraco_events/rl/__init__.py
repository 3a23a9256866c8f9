"""Buraco for reinforcement learning: a PettingZoo environment over the engine (docs/rl.md).

Needs the `rl` extra (`pip install 'buraco-events[rl]'`: pettingzoo, gymnasium, numpy); the rest
of the package never imports this one. `actions` (the fixed action table) is pure Python and
imports without the extra; `observe` (the observation array) needs numpy; `env`, `raw_env` and
`BuracoEnv` (the `AECEnv`, in `rl.aec`) need pettingzoo too, and load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

_ENV_NAMES = ("BuracoEnv", "env", "raw_env")


def __getattr__(name: str) -> Any:
    """Load the environment on first use, so that `rl.actions` imports without the extra."""
    if name not in _ENV_NAMES:
        raise AttributeError(f"module 'buraco_events.rl' has no attribute {name!r}")
    try:
        aec = importlib.import_module("buraco_events.rl.aec")
    except ImportError as exc:
        raise ImportError(f"buraco_events.rl needs the rl extra (pip install 'buraco-events[rl]'): {exc}") from exc
    return getattr(aec, name)


__all__ = ["BuracoEnv", "env", "raw_env"]
