"""The one table every benchmark prints: figures beside their same-run baselines and ratios."""

from __future__ import annotations

import sys
from collections.abc import Iterable


def print_table(rows: Iterable[dict], title: str) -> None:
    """Print benchmark rows as a rich table (wide when piped, so nothing is cut).

    Rows of two builds (a "build" key) get a build column and, in "vs pure", each compiled
    figure's ratio to the same figure of the pure build (the runner's `vs_pure`).
    """
    from rich.console import Console
    from rich.table import Table

    rows = list(rows)
    with_suite = any("suite" in r for r in rows)
    with_build = len({r["build"] for r in rows if "build" in r}) > 1  # both builds: say which
    table = Table(title=title)
    columns = (("suite",) * with_suite + ("figure",) + ("build",) * with_build
               + ("value", "unit", "baseline", "baseline value", "ratio")
               + ("vs pure",) * with_build)
    for col in columns:
        table.add_column(col, justify="right" if "value" in col or col in ("ratio", "vs pure") else "left")
    for r in rows:
        base = r.get("baseline_value")
        ratio = r["value"] / base if base else None
        vs_pure = r.get("vs_pure")
        cells = [
            f"{r['value']:,.1f}", r["unit"], r.get("baseline") or "",
            f"{base:,.1f}" if base else "", f"{ratio:.2f}x" if ratio is not None else "",
        ]
        table.add_row(*([r.get("suite", "")] if with_suite else []), r["name"],
                      *([r.get("build", "")] if with_build else []), *cells,
                      *([f"{vs_pure:.2f}x" if vs_pure is not None else ""] if with_build else []))
    Console(width=None if sys.stdout.isatty() else 160 + 30 * with_build).print(table)
