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
from textual.screen import Screen
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


class PlayScreen(Screen[bool]):
    """The game's screen: the table scrolls above, commands go in below; dismissed with whether
    the match ended (True) or stopped (False) once the session is over. `PlayApp` shows it
    alone; the replay viewer opens it on a branch (`b`) and comes back when it is dismissed.
    `error` is a setup or log error that ended the session, for the caller to report."""

    CSS = """
    #table { height: 1fr; padding: 0 1; }
    #command { dock: bottom; }
    """
    BINDINGS = [Binding("ctrl+q", "stop", "stop (resume later)", priority=True)]

    def __init__(self, make_session: SessionFactory) -> None:
        super().__init__()
        self.make_session = make_session
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.error: BaseException | None = None
        self.finished = False  # the match ended (not stopped)
        self.session: SessionLike | None = None  # once made

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
        self.app.call_from_thread(self.query_one("#table", RichLog).write, renderable)

    def _read(self, state: GameState) -> str | None:
        return self.lines.get()  # blocks the worker until a line is typed (None: stop)

    def _play(self) -> None:
        try:
            self.session = self.make_session(self.say)
            try:
                self.finished = self.session.run(self._read)
            finally:
                self.session.close()
        except BaseException as exc:  # reported by the caller once the screen is gone
            self.error = exc
        if self.is_attached:
            try:
                self.app.call_from_thread(self.dismiss, self.finished)
            except RuntimeError:  # the app stopped meanwhile: nothing to go back to
                pass

    def on_unmount(self) -> None:
        """Stop a game still waiting for a line (the app is closing): its log holds every move."""
        self.lines.put(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Echo the typed line and hand it to the game."""
        event.stop()
        self.query_one("#table", RichLog).write(Text(f"> {visible(event.value)}", style="bold"))
        event.input.value = ""
        self.lines.put(event.value)

    def action_stop(self) -> None:
        """Stop the game where it is (the log holds every move: --resume continues it)."""
        self.lines.put(None)


class PlayApp(App[None]):
    """Play a game of Buraco in the terminal: the app is the `PlayScreen`, and ends with it."""

    BINDINGS = [Binding("ctrl+q", "stop", "stop (resume later)", priority=True)]

    def __init__(self, make_session: SessionFactory) -> None:
        super().__init__()
        self.make_session = make_session
        self.error: BaseException | None = None  # a setup or log error, for the command to report
        self.finished = False  # the match ended (not stopped)

    def on_mount(self) -> None:
        """Open the game's screen; the app ends when it is dismissed."""
        screen = PlayScreen(self.make_session)

        def done(finished: bool | None) -> None:
            self.finished, self.error = bool(finished), screen.error
            self.exit()

        self.push_screen(screen, done)

    def action_stop(self) -> None:
        """Stop the game where it is (the log holds every move: --resume continues it)."""
        if isinstance(self.screen, PlayScreen):
            self.screen.action_stop()
