"""The one table every benchmark prints: figures beside their same-run baselines and ratios."""

from __future__ import annotations

import sys
from collections.abc import Iterable


def print_table(rows: Iterable[dict], title: str) -> None:
    """Print benchmark rows as a rich table (wide when piped, so nothing is cut)."""
    from rich.console import Console
    from rich.table import Table

    rows = list(rows)
    with_suite = any("suite" in r for r in rows)
    table = Table(title=title)
    columns = ("suite",) * with_suite + ("figure", "value", "unit", "baseline", "baseline value", "ratio")
    for col in columns:
        table.add_column(col, justify="right" if "value" in col or col == "ratio" else "left")
    for r in rows:
        base = r.get("baseline_value")
        ratio = r["value"] / base if base else None
        cells = [
            r["name"], f"{r['value']:,.1f}", r["unit"], r.get("baseline") or "",
            f"{base:,.1f}" if base else "", f"{ratio:.2f}x" if ratio is not None else "",
        ]
        table.add_row(*([r.get("suite", "")] if with_suite else []), *cells)
    Console(width=None if sys.stdout.isatty() else 160).print(table)
