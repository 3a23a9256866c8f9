"""The interactive play screen: a textual app around the same `Session` the line mode drives.

The session runs in a worker thread exactly as in line mode (`Session.run` with a reader): what it
says goes to a scrolling log, and the reader waits for the line typed into the command box. So the
game, its log and every message are the line mode's; only the terminal changes. ctrl+q, ctrl+c
(an interrupt, as in line mode) or the `quit` command stop the game, which `buraco play --resume
LOG` continues. When the match ends the screen stays: the closing move, the score sheet and the
result are on it until a key is pressed, and so is each hand's score sheet before the next deal.
PageUp and PageDown scroll the table while the command box has the keys, so a long `show`
(taller than a 24-line terminal) can be read back whole. Text from the log reaches the screen through the
session's renderers (escaped); typed lines are echoed as plain `Text`, never markup.

The table is rendered at the width it has (a RichLog's default `min_width` of 78 would cut the
right edge of an 80-column terminal) with the scrollbar's gutter kept, so a line drawn before the
scrollbar appears is not cut when it does.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Protocol

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Input, RichLog

from buraco_events.core.state import GameState
from buraco_events.util.text import visible


class SessionLike(Protocol):
    """What the app needs of a `session.Session`: run it with a reader, then close it."""

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
    the match ended (True) or stopped (False) once the session is over: at once when it
    stopped, after a key when it ended (the end stays on screen). `PlayApp` shows it alone;
    the replay viewer opens it on a branch (`b`) and comes back when it is dismissed. `error`
    is a setup or log error that ended the session, for the caller to report; `interrupted`
    says the game was stopped by ctrl+c."""

    CSS = """
    #table { height: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    #command { dock: bottom; }
    """
    BINDINGS = [
        Binding("ctrl+q", "stop", "stop (resume later)", priority=True),
        Binding("ctrl+c", "interrupt", "stop", show=False, priority=True),
        Binding("pageup", "scroll_table(-1)", "scroll up", show=False, priority=True),
        Binding("pagedown", "scroll_table(1)", "scroll down", show=False, priority=True),
    ]
    #: what the command box suggests (its short forms: `help` lists them all)
    PLACEHOLDER = "d draw · p pile · m 3H 4H 5H · a 0 6H · x KD · . bot's move · ? help"
    #: what the command box says once the match is over
    OVER = "the game is over: press any key to close"
    #: what the command box says while a hand's score sheet waits to be read
    NEXT = "the hand is over: press any key to deal the next hand"

    def __init__(self, make_session: SessionFactory) -> None:
        super().__init__()
        self.make_session = make_session
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.error: BaseException | None = None
        self.finished = False  # the match ended (not stopped)
        self.over = False  # the match ended and its end is on screen, waiting for a key
        self.interrupted = False  # stopped by ctrl+c
        self.session: SessionLike | None = None  # once made
        self.waiting = False  # a hand's score sheet is on screen, waiting for a key
        self._next_hand = threading.Event()  # set by that key, or by stopping

    def compose(self) -> ComposeResult:
        """Lay out the scrolling table and the command box."""
        yield RichLog(id="table", wrap=True, markup=False, highlight=False, min_width=20)
        yield Input(placeholder=self.PLACEHOLDER, id="command")
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
            if hasattr(self.session, "between_hands"):
                self.session.between_hands = self._wait_for_key
            try:
                self.finished = self.session.run(self._read)
            finally:
                self.session.close()
        except BaseException as exc:  # reported by the caller once the screen is gone
            self.error = exc
        if self.is_attached:
            try:
                if self.finished and self.error is None:
                    self.app.call_from_thread(self._show_end)
                else:
                    self.app.call_from_thread(self.dismiss, self.finished)
            except RuntimeError:  # the app stopped meanwhile: nothing to go back to
                pass

    def _wait_for_key(self) -> None:
        """Keep a hand's score sheet on screen until a key is pressed (called in the worker)."""
        self._next_hand.clear()
        try:
            self.app.call_from_thread(self._ask_for_key)
        except RuntimeError:  # the app stopped meanwhile
            return
        self._next_hand.wait()

    def _ask_for_key(self) -> None:
        self.waiting = True
        self.query_one("#table", RichLog).write(Text(self.NEXT, style="bold reverse"))
        command = self.query_one("#command", Input)
        command.placeholder = self.NEXT
        command.disabled = True  # the keys come to the screen (`on_key`)
        self.set_focus(None)

    def _next(self) -> None:
        """Go on to the next hand: the command box takes the keys again."""
        self.waiting = False
        command = self.query_one("#command", Input)
        command.placeholder = self.PLACEHOLDER
        command.disabled = False
        command.focus()
        self._next_hand.set()

    def action_scroll_table(self, pages: int) -> None:
        """Scroll the table a page up (-1) or down (1)."""
        table = self.query_one("#table", RichLog)
        if pages < 0:
            table.scroll_page_up(animate=False)
        else:
            table.scroll_page_down(animate=False)

    def _show_end(self) -> None:
        """Keep the ended match on screen (the session has told its end) until a key is pressed."""
        self.over = True
        self.query_one("#table", RichLog).write(Text(self.OVER, style="bold reverse"))
        command = self.query_one("#command", Input)
        command.placeholder = self.OVER
        command.disabled = True  # the keys come to the screen (`on_key`)
        self.set_focus(None)

    def on_key(self, event: events.Key) -> None:
        """Go on to the next hand, or close the ended match's screen, on any key."""
        if self.waiting:
            event.stop()
            self._next()
            return
        if self.over:
            event.stop()
            self.over = False
            self.dismiss(True)

    def on_unmount(self) -> None:
        """Stop a game still waiting for a line (the app is closing): its log holds every move."""
        self.lines.put(None)
        self._next_hand.set()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Echo the typed line and hand it to the game."""
        event.stop()
        self.query_one("#table", RichLog).write(Text(f"> {visible(event.value)}", style="bold"))
        event.input.value = ""
        self.lines.put(event.value)

    def action_stop(self) -> None:
        """Stop the game where it is (the log holds every move: --resume continues it); close an
        ended match's screen."""
        if self.over:
            self.over = False
            self.dismiss(True)
        else:
            self._next_hand.set()  # a hand's score sheet waiting for a key: stop there
            self.lines.put(None)

    def action_interrupt(self) -> None:
        """ctrl+c: stop as ctrl+q does, and say it was an interrupt (the command exits 130, as
        line mode does)."""
        if not self.over:
            self.interrupted = True
        self.action_stop()


class PlayApp(App[None]):
    """Play a game of Buraco in the terminal: the app is the `PlayScreen`, and ends with it."""

    BINDINGS = [Binding("ctrl+q", "stop", "stop (resume later)", priority=True),
                Binding("ctrl+c", "interrupt", "stop", show=False, priority=True)]

    def __init__(self, make_session: SessionFactory) -> None:
        super().__init__()
        self.make_session = make_session
        self.error: BaseException | None = None  # a setup or log error, for the command to report
        self.finished = False  # the match ended (not stopped)
        self.interrupted = False  # stopped by ctrl+c

    def on_mount(self) -> None:
        """Open the game's screen; the app ends when it is dismissed."""
        screen = PlayScreen(self.make_session)

        def done(finished: bool | None) -> None:
            self.finished, self.error, self.interrupted = bool(finished), screen.error, screen.interrupted
            self.exit()

        self.push_screen(screen, done)

    def action_stop(self) -> None:
        """Stop the game where it is (the log holds every move: --resume continues it)."""
        if isinstance(self.screen, PlayScreen):
            self.screen.action_stop()

    def action_interrupt(self) -> None:
        """ctrl+c: stop the game as an interrupt (see `PlayScreen.action_interrupt`)."""
        if isinstance(self.screen, PlayScreen):
            self.screen.action_interrupt()
