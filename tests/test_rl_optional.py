"""The `rl` extra is optional: without numpy, pettingzoo and gymnasium the package imports, the
action table works, and asking for the environment says which extra to install."""

from __future__ import annotations

import subprocess
import sys

#: a fresh interpreter where the extra's libraries cannot be imported
_WITHOUT_EXTRA = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numpy", "pettingzoo", "gymnasium"):
            raise ImportError(f"No module named {name!r}")
        return None
sys.meta_path.insert(0, Block())
import buraco_events
from buraco_events.rl import actions
from buraco_events.core.choices import Action
print(actions.encode(None, Action("draw")), actions.N_ACTIONS)
try:
    from buraco_events.rl import env
except ImportError as exc:
    print(exc)
"""


def test_the_package_and_the_action_table_import_without_the_extra() -> None:
    run = subprocess.run([sys.executable, "-c", _WITHOUT_EXTRA], capture_output=True, text=True, check=True)
    first, second = run.stdout.splitlines()
    assert first == "0 43193"
    assert second.startswith("buraco_events.rl needs the rl extra (pip install 'buraco-events[rl]')")
