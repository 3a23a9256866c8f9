"""`buraco play`: a game against bots in the terminal, each action sealed in the log as it happens.

The game itself is `cli/session.py`: a `Session` started by `new_session` or continued by
`resume_session` (the setup note, the chance and the key file beside the log are described
there). This module is the terminal: it parses the options, builds the session with a `say` that
prints to stdout (or, on a terminal, the full-screen `PlayApp`'s log) and a `read` that prompts
for a line of stdin, and turns a setup or log error into one line and its exit code. Ctrl-C stops
the game with the log holding every event played so far (in the app too: exit 130 and the
`--resume` line either way); `--resume LOG` continues it. Once the app closes on an ended match,
its result is printed again, so it stays in the terminal.

`--resume BRANCH.jsonl` continues a branch by hand (`session.branch_table`): `--parent
PARENT.jsonl` gives the parent's log, whose recorded hands the branch deals (without it the
session stops at the next deal, exit 2, rather than deal another hand); `--seat N` and `--bots`
say who plays a branch from here on (needed for a branch of a game not started by buraco play,
which has no setup note). For a game of buraco play they are refused: it goes on as set up.
"""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import RenderableType
from rich.text import Text

from buraco_events.core.state import GameState
from buraco_events.core.table import BotError
from buraco_events.log.reader import LogError
from buraco_events.play.setup import DEFAULT_NAME, Say, SetupError
from buraco_events.util.text import visible

from .common import (
    BOT_NAMES_WORDS,
    RulesOption,
    fail,
    fail_read,
    import_bots_from_cwd,
    os_reason,
    out,
    rule_overrides,
    shows_symbols,
)
from .session import Session, new_session, resume_session


def say_out(renderable: RenderableType) -> None:
    """Print to stdout through the shared console (a line of text is never wrapped)."""
    out().print(renderable, soft_wrap=isinstance(renderable, Text))


def stdin_reader(state: GameState) -> str | None:
    """Prompt and return one line of stdin (None at end of input)."""
    out().print("> ", end="")
    line = sys.stdin.readline()
    if line and not sys.stdin.isatty():
        # a piped script reads as typed (its control characters shown, never obeyed)
        out().print(visible(line.rstrip("\n")), markup=False, highlight=False)
    return line if line else None


def play(
    variant: Annotated[str | None, typer.Option("--variant", help="preset name or alias (default: stbl)", show_default=False)] = None,
    players: Annotated[int | None, typer.Option("--players", help="2 or 4 (default: 2)", show_default=False)] = None,
    seat: Annotated[int | None, typer.Option("--seat", help="your seat (default: 0); with --resume of a branch: the seat you play from here on", show_default=False)] = None,
    bots: Annotated[str | None, typer.Option("--bots", metavar="BOTS", help=f"the bots at the other seats, comma-separated: one name for every other seat or one per other seat; a bot is {BOT_NAMES_WORDS}; with --resume of a branch: the bots from here on (default: greedy)", show_default=False)] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="deal seed: same seed and moves, same log (default: random, printed)", show_default=False)] = None,
    log: Annotated[Path | None, typer.Option("--log", help="log file (default: ./buraco-<game_id>.jsonl)", show_default=False)] = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="continue the game of this log (a match goes on to its target), or a branch", show_default=False)] = None,
    parent: Annotated[Path | None, typer.Option("--parent", help="with --resume of a branch: its parent's log, whose recorded hands the branch deals", show_default=False)] = None,
    name: Annotated[str | None, typer.Option("--name", help=f"your name in the log and on screen (default: {DEFAULT_NAME})", show_default=False)] = None,
    target: Annotated[int | None, typer.Option("--target", help="match target (0 = one hand; default: the preset's)", show_default=False)] = None,
    pace: Annotated[float, typer.Option("--pace", metavar="SECONDS", help="pause before each bot move is shown")] = 0.0,
    line: Annotated[bool, typer.Option("--line", help="line mode even on a terminal (no full-screen app)")] = False,
    rules: RulesOption = None,
) -> None:
    """Play Buraco against bots; every action is written to a sealed log as it happens."""
    if resume is not None:
        given = [n for n, v in (("--variant", variant), ("--players", players), ("--seed", seed),
                                 ("--log", log), ("--name", name), ("--target", target), ("--rules", rules))
                 if v is not None]
        if given:
            fail(f"--resume continues a game as it was set up: drop {', '.join(given)}")
    elif parent is not None:
        fail("--parent: only with --resume BRANCH.jsonl (the branch's parent log)")
    overrides = rule_overrides(rules)
    if pace < 0:
        fail(f"--pace: give 0 or more seconds, got {pace}")
    console = out()
    symbols = shows_symbols(console)
    session: Session | None = None

    def make_session(say: Say) -> Session:
        nonlocal session
        if resume is not None:
            names = None if bots is None else bots.split(",")
            if names is not None:
                import_bots_from_cwd(names)
            session = resume_session(resume, say, parent=parent, seat=seat, bots=names,
                                     symbols=symbols, pace=pace)
        else:
            names = ("greedy" if bots is None else bots).split(",")
            import_bots_from_cwd(names)
            session = new_session(
                "stbl" if variant is None else variant, 2 if players is None else players,
                0 if seat is None else seat, names,
                secrets.randbelow(1_000_000) if seed is None else seed, log, say,
                name=DEFAULT_NAME if name is None else name, target=target, symbols=symbols, pace=pace,
                rules=overrides,
            )
        return session

    try:
        if not line and sys.stdin.isatty() and sys.stdout.isatty():
            from .play_app import PlayApp  # textual loads only for the full-screen app

            app = PlayApp(make_session)
            app.run()
            if app.error is not None:
                raise app.error
            if session is None:
                return
            if app.interrupted:
                raise KeyboardInterrupt  # ctrl+c in the app: told and exited as in line mode
            if app.finished:  # the app's screen is gone: the result stays in the terminal
                for told in session.result_lines():
                    say_out(told)
            else:
                say_out(Text(f"the game stops here; {session.resume_hint()}"))
            return
        make_session(say_out)
        assert session is not None
        try:
            session.run(stdin_reader)
        finally:
            session.close()
    except SetupError as exc:
        fail(str(exc), exc.exit_code)
    except BotError as exc:
        fail(f"--bots: {exc}")
    except LogError as exc:
        fail_read(exc)
    except OSError as exc:
        fail(f"{exc.filename or resume or log or 'buraco play'}: {os_reason(exc)}")
    except KeyboardInterrupt:
        # each event is one write: the log holds every event recorded before the interrupt
        where = visible(str(session.path) + session.resume_args) if session is not None else "LOG"
        say_out(Text(f"\ninterrupted; the log holds everything played so far: buraco play --resume {where}"))
        raise typer.Exit(130) from None
