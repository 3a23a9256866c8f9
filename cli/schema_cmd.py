"""`buraco schema [--check] [-o FILE]`: write the events' JSON Schema, or check it is current."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from buraco_events.model.events import event_schema

from .common import fail
from .log_cmd import say

DEFAULT_PATH = Path("schemas/events.schema.json")


def schema_text() -> str:
    """Return the text of the schema file, exactly as `buraco schema` writes it."""
    return json.dumps(event_schema(), indent=2, ensure_ascii=False) + "\n"


def schema(
    check: Annotated[bool, typer.Option(
        "--check", help="exit 1 if the file differs from the schema of the event types")] = False,
    output: Annotated[Path, typer.Option(
        "-o", "--output", help="the schema file ('-' for stdout)")] = DEFAULT_PATH,
) -> None:
    """Write the JSON Schema of the log events (generated from the event types), or check it."""
    text = schema_text()
    if check:
        try:
            current = output.read_text(encoding="utf-8")
        except OSError as exc:
            fail(f"{output}: {exc.strerror}; `buraco schema -o {output}` writes it", 1)
        if current != text:
            fail(f"{output} is out of date with the event types; "
                        f"run `buraco schema -o {output}` to regenerate it", 1)
        say(f"{output} is up to date")
    elif str(output) == "-":
        typer.echo(text, nl=False)
    else:
        try:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            fail(f"{output}: {exc.strerror}", 2)
        say(f"wrote {output}")
