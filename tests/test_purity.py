"""The functional core does no I/O: importing it loads neither the shell's libraries
(duckdb, typer, ...) nor the package's own shell modules (log, archive, audit, the index and queries, sim)."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import buraco_events

CORE = [
    "cards", "rules", "melds", "events", "scoring", "engine", "projections", "bots", "render",
    "rows", "schema", "commands", "share", "table", "auditcore", "state", "gate", "plays",
    "discard", "playcheck", "deal", "sheets", "moves", "hand_melds", "fits", "lookahead",
    "choices", "seeds", "greedy",
]
SHELL_ONLY = ["duckdb", "typer", "click", "pyarrow", "zstandard"]
#: the package's modules that read and write files, index or simulate: the core never needs them
SHELL_MODULES = [f"buraco_events.{m}" for m in (
    "log", "logread", "chain", "logwrite", "atomic", "repair", "archive", "archive_format",
    "archive_codec", "archive_read", "audit", "database", "ingest", "queries", "plots", "sim",
)]


def _loaded_by_core() -> dict[str, list[str]]:
    """Import the core modules one by one in a fresh interpreter; return what each newly loaded."""
    present = {m.name for m in pkgutil.iter_modules(buraco_events.__path__)}
    core = [m for m in CORE if m in present]
    assert {"cards", "rules", "melds", "events", "engine", "projections", "bots", "render",
            "scoring"} <= set(core)
    watched = SHELL_ONLY + SHELL_MODULES
    code = (
        "import importlib, json, sys\n"
        f"watched, out = {watched!r}, {{}}\n"
        f"for m in {core!r}:\n"
        "    importlib.import_module('buraco_events.' + m)\n"
        "    out[m] = [w for w in watched if w in sys.modules and w not in sum(out.values(), [])]\n"
        "print(json.dumps(out))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded: dict[str, list[str]] = json.loads(run.stdout)
    return loaded


def test_core_modules_load_neither_the_shell_libraries_nor_the_shell_modules() -> None:
    loaded = _loaded_by_core()
    offenders = {m: found for m, found in loaded.items() if found}
    assert offenders == {}, f"core modules imported the shell: {offenders}"

