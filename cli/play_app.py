"""The interactive play screen: a textual app around the same `Session` the line mode drives.

The session runs in a worker thread exactly as in line mode (`Session.run` with a reader): what it
says goes to a scrolling log, and the reader waits for the line typed into the command box. So the
game, its log and every message are the line mode's; only the terminal changes. ctrl+q (or the
`quit` command) stops the game, which `buraco play --resume LOG` continues. Text from the log
reaches the screen through the session's renderers (escaped); typed lines are echoed as plain
`Text`, never markup.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from typing import Protocol

from rich.console import RenderableType
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Input, RichLog

from buraco_events.core.state import GameState
from buraco_events.views.text import visible


class SessionLike(Protocol):
    """What the app needs of a `buraco_events.play.session.Session`: run it with a reader, then close it."""

    def run(self, read: Callable[[GameState], str | None]) -> bool:
        """Play until the match is over (True) or input ends (False)."""
        ...

    def close(self) -> None:
        """Sync and close the log."""
        ...


#: builds the session with the `say` it must use (the app's log), in the worker thread
SessionFactory = Callable[[Callable[[RenderableType], None]], SessionLike]


class PlayApp(App[None]):
    """Play a game of Buraco in the terminal: the table scrolls above, commands go in below."""

    CSS = """
    #table { height: 1fr; padding: 0 1; }
    #command { dock: bottom; }
    """
    BINDINGS = [Binding("ctrl+q", "stop", "stop (resume later)")]

    def __init__(self, make_session: SessionFactory) -> None:
        super().__init__()
        self.make_session = make_session
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.error: BaseException | None = None  # a setup or log error, for the command to report
        self.finished = False  # the match ended (not stopped)

    def compose(self) -> ComposeResult:
        """Lay out the scrolling table and the command box."""
        yield RichLog(id="table", wrap=True, markup=False, highlight=False)
        yield Input(placeholder="draw, pile, meld 3H 4H 5H, add 0 6H, discard KD, hint, show, help, quit",
                    id="command")
        yield Footer()

    def on_mount(self) -> None:
        """Start the game in a worker thread; the command box takes the keys."""
        self.query_one("#command", Input).focus()
        self.run_worker(self._play, thread=True, exit_on_error=False)

    def say(self, renderable: RenderableType) -> None:
        """Show what the session says (called from the worker thread)."""
        self.call_from_thread(self.query_one("#table", RichLog).write, renderable)

    def _read(self, state: GameState) -> str | None:
        return self.lines.get()  # blocks the worker until a line is typed (None: stop)

    def _play(self) -> None:
        try:
            session = self.make_session(self.say)
            try:
                self.finished = session.run(self._read)
            finally:
                session.close()
        except BaseException as exc:  # reported by the command once the screen is gone
            self.error = exc
        self.call_from_thread(self.exit)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Echo the typed line and hand it to the game."""
        self.query_one("#table", RichLog).write(Text(f"> {visible(event.value)}", style="bold"))
        event.input.value = ""
        self.lines.put(event.value)

    def action_stop(self) -> None:
        """Stop the game where it is (the log holds every move: --resume continues it)."""
        self.lines.put(None)
