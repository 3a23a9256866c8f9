"""`buraco schema [-o FILE] [--check]`: print the events' JSON Schema, write it to a file, or check
a file is current. Nothing is written unless `-o` names the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from buraco_events.model.events import event_schema

from .common import fail, os_reason
from .log_cmd import say

#: the schema file of the repository: what `--check` checks when no `-o` is given
DEFAULT_PATH = Path("schemas/events.schema.json")


def schema_text() -> str:
    """Return the text of the schema file, exactly as `buraco schema` prints or writes it."""
    return json.dumps(event_schema(), indent=2, ensure_ascii=False) + "\n"


def schema(
    check: Annotated[bool, typer.Option(
        "--check", help=f"exit 1 if the file (-o, default: {DEFAULT_PATH}) differs from the"
        " schema of the event types")] = False,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", metavar="FILE",
        help="write the schema to this file (default: print it; '-' for stdout)")] = None,
) -> None:
    """Print the JSON Schema of the log events (generated from the event types), write it, or
    check a file is current."""
    text = schema_text()
    if check:
        path = output or DEFAULT_PATH
        try:
            current = path.read_text(encoding="utf-8")
        except OSError as exc:
            fail(f"{path}: cannot read: {os_reason(exc)}; `buraco schema -o {path}` writes it", 1)
        if current != text:
            fail(f"{path} is out of date with the event types; "
                 f"run `buraco schema -o {path}` to regenerate it", 1)
        say(f"{path} is up to date")
    elif output is None or str(output) == "-":
        typer.echo(text, nl=False)
    else:
        try:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            fail(f"{output}: cannot write: {os_reason(exc)}", 2)
        say(f"wrote {output}")
