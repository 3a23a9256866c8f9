"""What every command shares: consoles built lazily, one-line errors, exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from buraco_events.log.archive import ArchiveError
from buraco_events.log.lines import os_reason as os_reason
from buraco_events.log.reader import LockedError, LogError, NotALogError
from buraco_events.model.rules import UnknownVariant, find_rules, parse_overrides
from buraco_events.util.text import visible

#: what a bot's name may be, in the same words wherever `--bots` is taken
BOT_NAMES_WORDS = ("random, greedy, expert (expert:samples=N for its budget, :noise=T for softmax noise) or "
                   "module:Class (docs/api.md)")
#: how a list of bots is spread over the seats (`play.sim.seat_bots`), in the same words everywhere
SEATING_WORDS = "one name for every seat, one per team (a seat's team is its number modulo 2) or one per seat"

#: `--bots` where it seats the table's players (`simulate`, `branch`): one option, one meaning
SeatBots = Annotated[str, typer.Option(
    "--bots", metavar="BOTS",
    help=f"the bots at the seats, comma-separated: {SEATING_WORDS}; a bot is {BOT_NAMES_WORDS}")]

#: exit codes, the same for every command: all good, problems in input that was read, input that
#: cannot be read (missing, unreadable, not a log)
OK, PROBLEMS, UNREADABLE = 0, 1, 2

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


def shown(text: object) -> str:
    """Return text from a log (or a database) ready for a Rich console: control and bidi
    characters written visibly, markup brackets escaped, so data never styles or moves the screen."""
    return escape(visible(str(text)))


def error(message: str) -> None:
    """Print a one-line error to stderr (the command goes on).

    The message may quote log content (a path, a game id, a bad line): it is `shown`, so it
    prints as one line that cannot style or move the screen.
    """
    err().print(f"[bold red]error:[/] {shown(message)}", markup=True, highlight=False, soft_wrap=True)


def shows_symbols(console: Console) -> bool:
    """Return whether cards show their suits as symbols on `console`: a terminal in UTF-8 (pipes
    and other encodings get the letters of the notation)."""
    return console.is_terminal and (console.encoding or "").lower().replace("-", "") == "utf8"


def fail(message: str, code: int = UNREADABLE) -> NoReturn:
    """Print a one-line error to stderr and exit with `code` (no traceback)."""
    error(message)
    raise typer.Exit(code)


def read_error_code(exc: BaseException) -> int:
    """Return the exit code of an error met reading a log: 2 when the input cannot be read
    (missing, unreadable, not a log), 1 for a problem in a log that was read."""
    if isinstance(exc, ArchiveError):  # a log inside an archive (ARCHIVE.bza/NAME)
        return exc.exit_code
    if isinstance(exc, LogError):  # a log another writer holds cannot be used now either
        return UNREADABLE if isinstance(exc, NotALogError | LockedError) else PROBLEMS
    return UNREADABLE if isinstance(exc, OSError) else PROBLEMS


def read_error_text(exc: BaseException) -> str:
    """Return the one-line text of an error met reading a log (`PATH: cannot read: why` for I/O)."""
    if isinstance(exc, OSError) and not isinstance(exc, LogError):
        return f"{exc.filename or ''}: cannot read: {os_reason(exc)}"
    return str(exc)


def fail_read(exc: BaseException) -> NoReturn:
    """Exit on an error met reading a log, with its one line and its exit code (1 or 2)."""
    fail(read_error_text(exc), read_error_code(exc))


def import_bots_from_cwd(names: Iterable[str]) -> None:
    """Let `--bots module:Class` import a module from the working folder, as `python -m` would.

    The console script's own folder, not the working one, heads `sys.path`; worker processes
    inherit the path, so a user's bot imports in every one.
    """
    if any(":" in name for name in names) and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


#: `--rules NAME=VALUE`: parameters changed on top of the preset, wherever rules are chosen
RulesOption = Annotated[list[str] | None, typer.Option(
    "--rules", metavar="NAME=VALUE",
    help="change a rule of the preset, e.g. bonus_semiclean=150 or hands_per_game=3 (repeat, or "
    "comma-separate; `buraco rules` lists them)", show_default=False)]


def rule_overrides(items: list[str] | None, variant: str | None = None) -> dict[str, Any]:
    """Return the parameters `--rules` gives (checked on `variant`'s rules when named); exit
    with one line naming the text at fault."""
    try:
        overrides = parse_overrides(items or ())
        if overrides and variant is not None:
            find_rules(variant, **overrides)
    except UnknownVariant as exc:
        fail(f"--variant: {exc}")
    except ValueError as exc:  # msgspec's validation errors are ValueErrors too
        fail(f"--rules: {exc}")
    return overrides
