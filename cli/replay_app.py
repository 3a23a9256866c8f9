"""The interactive replay viewer: a textual app stepping through a `Timeline`.

The keys are `replay_keys.KEYS`: the key bar (which wraps rather than hide a key) shows the main
ones, `?` lists them all (as `buraco replay --help` does). The goto prompt (g) stays open on a bad
entry, saying under it what is wrong. q and ctrl+c quit, as ctrl+c stops `play`.

With a seat's analysis (`replay --as SEAT --analysis A.json`), the screen of each of the seat's
analysed decisions says what it cost under the event (`render.decision_line`: the mark, the loss
and the better action), and x jumps to the seat's next marked decision (back to the first after
the last). The analysis names the seat's own cards, so it is shown in the seat's view and the
referee's, never in another seat's; x goes back to the seat's view.

b opens a branch of the log at the seq on screen and plays it in the same terminal (on a marked
decision of the analysis, it first asks whether to branch before the decision, to try the better
move, or after it): the branch is
written to a new file, `LOG-branch-SEQ.jsonl` beside the log (in the working folder when the
log's folder is not writable; `-2`, `-3`... rather than name a file that exists), by
`session.branch_session` (by `by`, default "viewer"; the seed `seed`), with the human at the seat
being viewed (the seat to move in the referee's view) and greedy bots at the others; the game's
`PlayScreen` takes the terminal until the branch is over or stopped (`quit`, ctrl+q), then the
viewer comes back saying where the branch was written and how to go on with it. A branch log
(one holding `branched`) is named "branch of GAME at seq N" on every screen, in the status line.

The error of a log that stops early is shown at its last event, in the words of the seat being
viewed (`error_for`), so switching the view never shows a seat the referee's reason. Text from the
log reaches the screen through `render_view` (escaped); the status line is plain `Text`, never
markup.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static

from buraco_events.model.events import branch_of, branch_words
from buraco_events.util.text import visible
from buraco_events.views.projections import Timeline, branch_object
from buraco_events.views.render import render_view
from buraco_events.views.text import hand_words

from .replay_keys import KEYS, bar_text, keys_text

if TYPE_CHECKING:
    from buraco_events.analysis.evaluate import Analysis


class ReplayApp(App[None]):
    """Step through a game's events and look at the table as any seat."""

    AUTO_FOCUS = None  # keys go to the app's bindings; the goto prompt takes focus when opened
    CSS = """
    #status { height: auto; background: $boost; padding: 0 1; }
    #goto { display: none; }
    #goto.open { display: block; }
    #goto-error { display: none; color: $error; padding: 0 1; }
    #goto-error.open { display: block; }
    #table { padding: 0 1; }
    #moves { width: 30%; min-width: 22; max-width: 50; display: none; }
    #moves.open { display: block; }
    #keys { height: auto; background: $boost; padding: 0 1; }
    """
    BINDINGS = [
        *(Binding(k.keys, k.action, k.short or k.what, show=False) for k in KEYS),
        Binding("down", "scroll(1)", "scroll down", show=False),
        Binding("pagedown", "scroll(10)", "page down", show=False),
        Binding("escape", "close_goto", "close", show=False),
        Binding("ctrl+q", "stop", "quit", show=False, priority=True),
        Binding("ctrl+c", "stop", "quit", show=False, priority=True),
    ]

    def __init__(
        self, timeline: Timeline, seq: int = 0, seat: int | None = None,
        error_for: Callable[[int | None], str | None] | None = None, history: bool = False,
        log: Path | None = None, by: str = "viewer", seed: str = "1",
        rulings: dict[str, object] | None = None, analysis: Analysis | None = None, symbols: bool = False,
    ) -> None:
        super().__init__()
        self.symbols = symbols  # suits as symbols, hands grouped by suit (as play shows them)
        self.analysis = analysis  # the seat's analysis: its decisions shown, x jumps to the marked
        self.decisions = {d.seq: msgspec.to_builtins(d) for d in analysis.decisions} if analysis else {}
        self.marked = [d.seq for d in analysis.decisions if d.mark] if analysis else []
        self.log_path = log  # the file `b` branches (None: no branching)
        self.by = by
        self.branch_seed = seed
        branched = branch_of(timeline.events)
        self.label = visible(branch_words(branched.parent, branched)) if branched is not None else None
        self.branches: list[Path] = []  # the branches written here, told again on leaving
        self.rulings = rulings  # the rulings report's object, shown at each hand's end
        self.timeline = timeline
        self.seq = seq
        self.seat = seat
        self.error_for = error_for
        self.history = history
        self.message = ""

    def compose(self) -> ComposeResult:
        """Lay out the status line, the goto prompt, the table and the key footer."""
        yield Static(id="status")
        yield Input(placeholder="seq (57) or hand (h2), enter to go, escape to close", id="goto")
        yield Static(id="goto-error")
        with Horizontal():
            with VerticalScroll():
                yield Static(id="table")
            # every event in words; a click (or enter) goes there
            yield OptionList(*(visible(self.timeline.describe(s)) for s in range(self.timeline.last + 1)), id="moves")
        yield Static(id="keys")

    def on_mount(self) -> None:
        """Show the starting position and the key bar."""
        available = {k.action for k in KEYS if self.check_action(k.action, ()) is not False}
        self.query_one("#keys", Static).update(Text(bar_text(available)))
        self.show()

    def action_keys(self) -> None:
        """Open the list of every key (`?`); escape, ? or q closes it."""
        self.push_screen(KeysScreen())

    @property
    def status_text(self) -> str:
        """Return the status line: where we are, whose view, and any message."""
        who = "referee" if self.seat is None else f"seat {self.seat}"
        text = f"seq {self.seq} / {self.timeline.last} · {hand_words(self.timeline.hand_at(self.seq))} · view {who}"
        if self.label is not None:
            text = f"{self.label} · {text}"
        if self.message:
            text += f" · {self.message}"
        return text

    def show(self) -> None:
        """Redraw the status line and the table for the current seq and seat."""
        tl = self.timeline
        histories = tl.meld_histories(tl.hand_at(self.seq), self.seq) if self.history else ()
        error = self.error_for(self.seat) if self.error_for and self.seq == tl.last else None
        self.query_one("#status", Static).update(Text(self.status_text))
        self.query_one("#table", Static).update(render_view(
            tl.view(self.seq, self.seat), tl.describe(self.seq), last=tl.last,
            error=error, histories=histories,
            branch=branch_object(tl.final.game_id, tl.branched, self.seq), rulings=self.rulings,
            final=self.seq == tl.last, decision=self.decision_here, symbols=self.symbols,
        ))
        moves = self.query_one("#moves", OptionList)
        if moves.has_class("open") and moves.highlighted != self.seq:
            moves.highlighted = self.seq  # the event on screen, kept in the list's view

    @property
    def decision_here(self) -> dict[str, Any] | None:
        """Return the analysed decision of the seq on screen, when the view may show it (the
        analysis's seat or the referee), else None."""
        if self.analysis is None or self.seat not in (self.analysis.seat, None):
            return None
        return self.decisions.get(self.seq)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer x (and list it in the footer) only with an analysis."""
        if action == "next_mark" and self.analysis is None:
            return False
        return True

    def action_next_mark(self) -> None:
        """Jump to the seat's next marked decision (back to the first after the last), in its view."""
        if self.analysis is None:
            return
        self.seat = self.analysis.seat
        if not self.marked:
            self.go(self.seq, "no marked decision in the analysis")
            return
        later = [s for s in self.marked if s > self.seq]
        if later:
            self.go(later[0])
        else:
            self.go(self.marked[0], "no later marked decision: back to the first")

    def go(self, seq: int, message: str = "") -> None:
        """Move to a seq (clamped to the log) and redraw."""
        self.seq = max(0, min(seq, self.timeline.last))
        self.message = message
        self.show()

    def action_toggle_moves(self) -> None:
        """Show or hide the move list (focused while shown, so arrows and enter choose in it)."""
        moves = self.query_one("#moves", OptionList)
        moves.toggle_class("open")
        if moves.has_class("open"):
            moves.highlighted = self.seq
            moves.focus()
        else:
            self.set_focus(None)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Go to the event chosen in the move list."""
        self.go(event.option_index)

    def action_step(self, delta: int) -> None:
        """Step forward or back by events."""
        self.go(self.seq + delta)

    def action_jump(self, seq: int) -> None:
        """Jump to a seq."""
        self.go(seq)

    def action_jump_end(self) -> None:
        """Jump to the last event."""
        self.go(self.timeline.last)

    def action_hand(self, delta: int) -> None:
        """Jump to the deal of the next (1) or previous (-1) hand."""
        tl = self.timeline
        current = tl.hand_at(self.seq)
        if delta < 0 and current >= 0 and tl.hand_start(current) < self.seq:
            target = current  # back to the start of this hand first
        else:
            target = current + delta
        if 0 <= target < tl.n_hands:
            self.go(tl.hand_start(target))
        else:
            self.go(self.seq, "no such hand")

    def action_turn(self) -> None:
        """Jump to just before the next turn of the seat being viewed (any seat for the referee)."""
        seq = self.timeline.next_turn(self.seat, self.seq)
        if seq is None:
            self.go(self.seq, "no later turn")
        else:
            self.go(seq)

    def action_cycle_view(self) -> None:
        """Switch the view: referee, then each seat in turn."""
        n = len(self.timeline.players)
        self.seat = 0 if self.seat is None else (None if self.seat + 1 >= n else self.seat + 1)
        self.go(self.seq)

    def action_scroll(self, lines: int) -> None:
        """Scroll the table by lines (it may be taller than the terminal)."""
        self.query_one(VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_toggle_history(self) -> None:
        """Show or hide each meld's history."""
        self.history = not self.history
        self.show()

    def action_open_goto(self) -> None:
        """Open the goto prompt."""
        box = self.query_one("#goto", Input)
        box.value = ""
        box.add_class("open")
        box.focus()

    def action_close_goto(self) -> None:
        """Close the goto prompt (and its error line)."""
        box = self.query_one("#goto", Input)
        box.remove_class("open")
        self.query_one("#goto-error", Static).remove_class("open")
        self.set_focus(None)

    def goto_target(self, typed: str) -> int:
        """Return the seq a goto entry names: a seq (`57`) or a hand counted from 1 (`h2`); raise
        ValueError saying what is wrong with any other entry."""
        text = typed.strip().lower()
        hand = text.startswith("h")
        number = text[1:].strip() if hand else text
        if not number.isdigit():
            raise ValueError(f"{visible(typed.strip())!r} is not a seq (57) or a hand (h2)")
        n = int(number)
        if hand:
            if not 1 <= n <= self.timeline.n_hands:
                raise ValueError(f"no hand {n}: the log has hands 1 to {self.timeline.n_hands}"
                                 if self.timeline.n_hands else f"no hand {n}: the log has no deal")
            return self.timeline.hand_start(n - 1)  # as people count hands
        if n > self.timeline.last:
            raise ValueError(f"no seq {n}: the log's seqs are 0 to {self.timeline.last}")
        return n

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Go to the seq or hand typed in the prompt; on a bad entry the prompt stays open and the
        line under it says what is wrong."""
        try:
            target = self.goto_target(event.value)
        except ValueError as exc:
            said = self.query_one("#goto-error", Static)
            said.update(Text(f"{exc}; escape closes the prompt"))
            said.add_class("open")
            self.go(self.seq, str(exc))
            return
        self.action_close_goto()
        self.go(target)

    def action_branch(self) -> None:
        """Open a branch of the log at the seq on screen and play it here (see the module); on a
        marked decision, ask first whether to branch before it or after it."""
        if self.log_path is None:
            self.go(self.seq, "no log file to branch from")
            return
        decision = self.decision_here
        if decision is None or not decision.get("mark") or self.seq < 1:
            self.open_branch(self.seq)
            return
        at = self.seq

        def chosen(where: str | None) -> None:
            if where == "before":
                self.open_branch(at - 1)
            elif where == "after":
                self.open_branch(at)
            else:
                self.go(self.seq, "no branch")

        self.push_screen(BranchChoice(at, str(decision.get("best") or "")), chosen)

    def open_branch(self, at: int) -> None:
        """Branch the log after seq `at` and play the branch here (see the module)."""
        from buraco_events.play.branch_setup import branch_file

        from .play_app import PlayScreen
        from .session import branch_session

        assert self.log_path is not None
        log = self.log_path
        state = self.timeline.state(at)
        seat = self.seat if self.seat is not None else (state.to_play if state.to_play is not None else 0)
        out = branch_file(log, at)
        screen = PlayScreen(lambda say: branch_session(
            log, at, out, say, seat=seat, by=self.by, reason=f"opened in the viewer at seq {at}",
            seed=self.branch_seed))

        def back(finished: bool | None) -> None:
            error = screen.error
            if error is not None and not out.exists():
                self.go(self.seq, f"no branch: {visible(_one_line(error))}")
                return
            self.branches.append(out)
            said = f"branch written to {visible(str(out))}"
            if error is not None:
                said += f" (stopped: {visible(_one_line(error))})"
            self.go(self.seq, f"{said}; go on with: buraco play --resume {visible(str(out))} "
                              f"--parent {visible(str(log))}")

        self.push_screen(screen, back)

    async def action_stop(self) -> None:
        """ctrl+q, ctrl+c: stop the branch being played (back to the viewer), else quit."""
        from .play_app import PlayScreen

        if isinstance(self.screen, PlayScreen):
            self.screen.action_stop()
        else:
            await self.action_quit()

    async def action_quit(self) -> None:
        """Quit; say where the branches opened here were written."""
        told = "".join(f"branch written to {visible(str(p))}\n" for p in self.branches)
        self.exit(message=Text(told.rstrip("\n")) if told else None)


class KeysScreen(ModalScreen[None]):
    """Every key of the viewer and what it does (`?`); escape, ? or q closes it."""

    CSS = """
    KeysScreen { align: center middle; }
    #keylist { width: auto; max-width: 100%; height: auto; max-height: 100%; padding: 1 2;
               background: $panel; border: round $accent; }
    """
    BINDINGS = [Binding("escape,question_mark,q", "close", "close")]

    def compose(self) -> ComposeResult:
        """The keys, a key a line, and how to close the list."""
        with VerticalScroll(id="keylist"):
            yield Static(Text(f"{keys_text()}\n\nescape, ? or q closes this list"), id="keys-help")

    def action_close(self) -> None:
        """Close the list."""
        self.dismiss(None)


class BranchChoice(ModalScreen[str | None]):
    """b on a marked decision: branch before it (try the better move), after it, or not at all."""

    CSS = """
    BranchChoice { align: center middle; }
    #choice { width: auto; max-width: 100%; height: auto; padding: 1 2; background: $panel;
              border: round $accent; }
    """
    BINDINGS = [Binding("b,enter", "choose('before')", "before"), Binding("a", "choose('after')", "after"),
                Binding("escape,q", "choose('')", "cancel")]

    def __init__(self, seq: int, best: str) -> None:
        super().__init__()
        self.seq = seq
        self.best = best

    def compose(self) -> ComposeResult:
        """The question and its keys."""
        better = f" and try {visible(self.best)}" if self.best else ""
        yield Static(Text(
            f"seq {self.seq} is a marked decision.\n"
            f"b or enter: branch before it{better} (the branch keeps seqs 0 to {self.seq - 1})\n"
            f"a: branch after it (as played, seqs 0 to {self.seq})\n"
            "escape: no branch"), id="choice")

    def action_choose(self, where: str) -> None:
        """Close with the choice: "before", "after" or nothing."""
        self.dismiss(where or None)


def _one_line(exc: BaseException) -> str:
    """Return an error's message on one line."""
    return " ".join(str(exc).split()) or type(exc).__name__
