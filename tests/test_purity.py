"""The functional core does no I/O: importing it loads neither the shell's libraries
(duckdb, typer, ...) nor the package's own shell modules (log, archive, audit, the index and queries, sim),
nor the `rl` extra's libraries (numpy, pettingzoo, gymnasium) and modules."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import buraco_events

CORE = [
    "core.cards",
    "model.rules",
    "core.melds",
    "model.events",
    "model.scoring",
    "core.engine",
    "views.projections",
    "bots.registry",
    "views.render",
    "analytics.rows",
    "analytics.schema",
    "play.commands",
    "views.share",
    "core.table",
    "audit.auditcore",
    "core.state",
    "core.gate",
    "core.plays",
    "core.closing",
    "core.deads",
    "core.turn",
    "core.playcheck",
    "core.deal",
    "core.sheets",
    "core.moves",
    "core.hand_melds",
    "core.fits",
    "core.lookahead",
    "core.choices",
    "core.seeds",
    "bots.greedy", "bots.rating",
    "core.infoset",
]
SHELL_ONLY = ["duckdb", "typer", "click", "pyarrow", "zstandard"]
#: the libraries of the `rl` extra: only `buraco_events.rl` may load them (the core runs without)
RL_ONLY = ["numpy", "pettingzoo", "gymnasium"]
#: the package's modules that read and write files, index or simulate: the core never needs them
SHELL_MODULES = [f"buraco_events.{m}" for m in (
    "log.reader",
    "log.lines",
    "log.chain",
    "log.writer",
    "log.atomic",
    "log.repair",
    "log.archive",
    "log.archive_format",
    "log.archive_codec",
    "log.archive_read",
    "audit.auditor",
    "audit.files",
    "audit.report",
    "audit.rulings",
    "analytics.database",
    "analytics.ingest",
    "analytics.queries",
    "analytics.plots",
    "play.sim",
    "play.branch",
    "rl.aec",
    "rl.observe",
)]


def _loaded_by_core() -> dict[str, list[str]]:
    """Import the core modules one by one in a fresh interpreter; return what each newly loaded."""
    present = {m.name.removeprefix("buraco_events.") for m in
               pkgutil.walk_packages(buraco_events.__path__, "buraco_events.") if not m.ispkg}
    core = [m for m in CORE if m in present]
    assert {"core.cards", "model.rules", "core.melds", "model.events", "core.engine", "views.projections", "bots.registry", "views.render", "model.scoring"} <= set(core)
    watched = SHELL_ONLY + RL_ONLY + SHELL_MODULES
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

