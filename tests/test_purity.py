"""The functional core does no I/O: importing it loads neither duckdb nor typer (STYLE.md)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import buraco_events

CORE = [
    "cards", "rules", "melds", "events", "scoring", "engine", "projections", "bots", "render",
    "rows", "commands", "share",
]
SHELL_ONLY = ["duckdb", "typer", "click", "pyarrow", "zstandard"]


def test_core_modules_do_not_load_the_shell():
    present = {m.name for m in pkgutil.iter_modules(buraco_events.__path__)}
    core = [m for m in CORE if m in present]
    assert {"cards", "rules", "melds", "events", "engine"} <= set(core)
    code = (
        "import sys\n"
        + "".join(f"import buraco_events.{m}\n" for m in core)
        + f"print(sorted(m for m in {SHELL_ONLY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"core imported shell modules: {out.stdout}"
