"""`buraco rules [PRESET]`: print a preset's parameters."""

from __future__ import annotations

import json
import sys

import typer
from rich.table import Table

from buraco_events.model.rules import (
    ALIASES,
    PRESETS,
    SEEDS,
    UnknownVariant,
    canonical_variant,
    explain,
    find_rules,
    presets_markdown,
    rules_dict,
)
from buraco_events.views.fit import print_fitted

from .common import fail, out


def rules(
    preset: str = typer.Argument(None, help="preset name or alias; all presets when omitted"),
    as_json: bool = typer.Option(False, "--json", help="print the rules as JSON"),
    markdown: bool = typer.Option(
        False, "--markdown", help="print the table of every preset as Markdown (docs/rules.md)"),
) -> None:
    """Print the parameters of a preset (or compare all presets side by side)."""
    if markdown:
        sys.stdout.write(presets_markdown())
        return
    if preset is not None:
        try:
            r = find_rules(preset)
        except UnknownVariant as exc:
            fail(str(exc))
        if as_json:
            print(json.dumps(rules_dict(r), indent=2))
            return
        name = canonical_variant(preset)
        table = Table(title=f"rules of {name}, following seed {SEEDS[name]}")
        table.add_column("parameter")
        table.add_column("value")
        table.add_column("what it means")
        for k, v in rules_dict(r).items():
            table.add_row(k, str(v), explain(r, k))
        print_fitted(out(), table)
        return
    if as_json:
        print(json.dumps({k: rules_dict(v) for k, v in PRESETS.items()}, indent=2))
        return
    table = Table(title="presets (aliases: " + ", ".join(f"{a}={b}" for a, b in ALIASES.items()) + ")")
    table.add_column("parameter")
    for name in PRESETS:
        table.add_column(name)
    table.add_row("seed", *(SEEDS[name].split(" ")[0] for name in PRESETS))
    for field in rules_dict(PRESETS["stbl"]):
        table.add_row(field, *(str(rules_dict(r)[field]) for r in PRESETS.values()))
    print_fitted(out(), table)
