"""What every command shares: consoles built lazily, one-line errors, exit codes."""

from __future__ import annotations

import sys
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from buraco_events.text import visible

_out: Console | None = None
_err: Console | None = None


def out() -> Console:
    """Return the stdout console (built on first use, so tests can set COLUMNS/NO_COLOR)."""
    global _out
    if _out is None or _out.file is not sys.stdout:
        _out = Console(file=sys.stdout, highlight=False, soft_wrap=False)
    return _out


def err() -> Console:
    """Return the stderr console."""
    global _err
    if _err is None or _err.file is not sys.stderr:
        _err = Console(file=sys.stderr, highlight=False, soft_wrap=True)
    return _err


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit with `code` (no traceback)."""
    err().print(f"[bold red]error:[/] {escape(message)}", markup=True, highlight=False)
    raise typer.Exit(code)


def shown(text: object) -> str:
    """Return text from a log (or a database) ready for a Rich console: control and bidi
    characters written visibly, markup brackets escaped, so data never styles or moves the screen."""
    return escape(visible(str(text)))
