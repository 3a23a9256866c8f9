"""What `buraco play` shows a person: the short forms and `.`, refusals naming the rule broken,
"you" in the words of the game, a score sheet that says when it is provisional, the table after
`--resume`, and the full-screen app at 80x24 (the end stays on screen until a key, ctrl+c stops
for `--resume`, no line wider than the screen).

The games are stbl, seed 5, with the human at seat 0 typing `.` (the hint's first line) at every
prompt: the human plays first, takes a dead and wins (the deal depends only on the seed).
"""

from __future__ import annotations

import asyncio
import os
import re
import select
import signal
import sys
import time
from pathlib import Path

import pytest
from rich.text import Text
from typer.testing import CliRunner

from buraco_events.audit.files import audit_path
from buraco_events.core.choices import Action, action_event
from buraco_events.core.engine import check, play
from buraco_events.core.gate import IllegalMove
from buraco_events.core.state import GameState
from buraco_events.model.events import decode_event
from buraco_events.play.commands import HELP, ONE_WILD, WORDS, parse_command, refusal_text
from buraco_events.views.render import render_text
from cli.main import app
from cli.narrator import second_person
from cli.session import new_session, resume_session

runner = CliRunner()
SEED = 5  # stbl 2p: seat 0 plays first, takes a dead, and wins typing `.`


def _text(renderable) -> str:
    return renderable.plain if isinstance(renderable, Text) else render_text(renderable, width=80)


def _dot_game(path: Path, stop_after: int | None = None) -> tuple[list[str], GameState, bool, int]:
    """Play seed 5 typing `.` at each prompt (at most `stop_after` of them, then end of input);
    return what was said, the state, whether the game ended, and how many lines were typed."""
    said: list[str] = []
    typed = [0]

    def read(state: GameState) -> str | None:
        typed[0] += 1
        return None if stop_after is not None and typed[0] > stop_after else "."

    session = new_session("stbl", 2, 0, ["greedy"], SEED, path, lambda r: said.append(_text(r)))
    try:
        finished = session.run(read)
    finally:
        session.close()
    return said, session.state, finished, min(typed[0], stop_after or typed[0])


@pytest.fixture(scope="module")
def dotted(tmp_path_factory):
    path = tmp_path_factory.mktemp("dot") / "g.jsonl"
    said, state, finished, typed = _dot_game(path)
    return {"said": said, "state": state, "finished": finished, "path": path, "typed": typed}


# -- short forms ------------------------------------------------------------------------------


def test_help_lists_every_short_form_and_fits_80_columns():
    shorts = {w: c for w, c in WORDS.items() if len(w) == 1}
    assert shorts == {"d": "draw", "p": "pile", "m": "meld", "a": "add", "x": "discard", ".": "best",
                      "?": "help", "h": "hint", "s": "show", "q": "quit"}
    rows = {line.split()[0]: line for line in HELP.splitlines()[1:-1]}
    for short, command in shorts.items():
        assert short in rows, short
        if command != "best":
            assert f" {command}" in rows[short]
    assert "hint's first line" in rows["."]
    assert all(len(line) <= 76 for line in HELP.splitlines())
    assert parse_command("x kd") == Action("discard", ("KD",)) == parse_command("discard KD")
    assert parse_command(".") == "best" and parse_command("h") == "hint" and parse_command("s") == "show"
    assert parse_command("?") == "help"


def test_dot_plays_the_hints_first_line(tmp_path):
    log = tmp_path / "dot.jsonl"
    result = runner.invoke(app, ["play", "--seed", str(SEED), "--log", str(log)], input="hint\n.\n?\nquit\n")
    assert result.exit_code == 0, result.output
    hint = result.output.split("> hint\n", 1)[1].splitlines()
    first = hint[0].split("   (the bot's choice: . plays it)")[0]
    assert hint[0].endswith("   (the bot's choice: . plays it)") and first in ("draw", "pile")
    assert f". plays {first}\n" in result.output
    events = [decode_event(line) for line in log.read_bytes().splitlines()]
    assert type(events[-1]).__name__ == ("Drew" if first == "draw" else "TookPile") and events[-1].player == 0
    assert "x  discard KD" in result.output  # `?` is help


def test_a_whole_game_typed_with_dots(dotted):
    assert dotted["finished"] and dotted["state"].winner == 0
    (audit,) = audit_path(dotted["path"])
    assert audit.report.ok and audit.report.complete


# -- refusals in the player's words ----------------------------------------------------------


def _play_states(path: Path):
    state = GameState()
    for line in path.read_bytes().splitlines():
        event = decode_event(line)
        if state.phase == "play" and state.to_play == 0 and state.pending_top is None and state.top_due is None:
            yield state.copy()
        play(state, event)


def _refused(state: GameState, action: Action) -> str:
    with pytest.raises(IllegalMove) as exc:
        check(state, action_event(state, action))
    return refusal_text(exc.value, action, state)


def test_a_two_card_meld_names_the_three_card_rule(dotted):
    for state in _play_states(dotted["path"]):
        held = sorted(state.hands[0])
        pair = next(((a, b) for a in held for b in held if a < b and a[-1] == b[-1] != "K"), None)
        if pair is not None:
            break
    else:
        raise AssertionError("no two cards of a suit held")
    said = _refused(state, Action("meld", pair))
    assert said == f"cannot meld {pair[0]} {pair[1]}: a meld needs at least three cards"
    assert "this variant has no sets" not in said


def test_a_second_wild_names_the_one_wild_rule(dotted):
    # a dirty meld of the human's team and a joker in the human's hand
    for state in _play_states(dotted["path"]):
        dirty = [m for m in state.melds if m.team == 0 and m.shape.wild is not None]
        if dirty and "JK" in state.hands[0]:
            break
    else:
        raise AssertionError("no dirty meld with a joker in hand")
    meld = dirty[0]
    said = _refused(state, Action("add", ("JK",), meld=meld.id))
    assert said == (f"cannot add JK to meld #{meld.id} ({' '.join(meld.cards)}): {ONE_WILD}, "
                    f"and meld #{meld.id} has one already ({meld.shape.wild})")
    assert "does not make a legal meld" not in said


def test_a_meld_not_on_your_side_names_your_melds(dotted):
    for state in _play_states(dotted["path"]):
        ours = [m.id for m in state.melds if m.team == 0]
        theirs = [m.id for m in state.melds if m.team == 1]
        if ours and theirs:
            break
    else:
        raise AssertionError("no melds on both sides")
    listed = "your team's melds are " + ", ".join(f"#{i}" for i in ours)
    missing = len(state.melds)
    card = sorted(state.hands[0])[0]
    assert _refused(state, Action("add", (card,), meld=missing)) == (
        f"cannot add: there is no meld #{missing} on the table; {listed}")
    assert _refused(state, Action("add", (card,), meld=theirs[0])) == (
        f"cannot add to meld #{theirs[0]}: it is the other team's, and you add only to your own; {listed}")


def test_the_three_refusals_through_the_cli(tmp_path):
    log = tmp_path / "r.jsonl"
    result = runner.invoke(app, ["play", "--seed", str(SEED), "--log", str(log)],
                           input="d\nmeld 3S 4S\nadd 3 2H\nadd 0 2H\nquit\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "cannot meld 3S 4S: a meld needs at least three cards" in out
    assert out.count("cannot add: there is no meld #") == 2 and "your team has no meld yet" in out
    assert "meld: there is no meld" not in out and "not a legal run" not in out


def test_the_engines_reason_stays_when_no_rule_of_melds_is_broken(dotted):
    state = next(_play_states(dotted["path"]))
    run = next(r for r in (("3H", "4H", "5H"), ("3S", "4S", "5S"), ("3D", "4D", "5D"))
               if any(c not in state.hands[0] for c in r))
    said = _refused(state, Action("meld", run))
    assert said.startswith("cannot meld: cards not in hand: "), said


# -- "you" -------------------------------------------------------------------------------------


def test_the_game_is_told_to_you_in_the_second_person(dotted, tmp_path):
    text = "\n".join(dotted["said"])
    assert "hand 1 dealt; you play first" in text
    assert "emptying the hand: you take a dead for the next turn" in text
    assert re.search(r"seq \d+: game over: you win, totals", text)
    assert "you win, " in text and "after 1 hand (your team is team 0)" in text
    assert not re.search(r"\byou (plays|wins|takes|is)\b", text), re.findall(r"\byou \w+", text)
    assert "Bruno took dead 0 (11 cards); plays on" in text  # the bot's words stay third person
    assert dotted["said"][0].startswith("new game play-stbl-2p-s5: stbl, 2 players, one hand, seed 5; "
                                        "you are seat 0 (team 0); log ")
    # a resumed game: "you are seat 0", never "you are you"
    log = tmp_path / "r.jsonl"
    _dot_game(log, stop_after=3)
    said: list[str] = []
    resume_session(log, lambda r: said.append(_text(r))).close()
    assert said[0].endswith("you are seat 0 (team 0)") and "you are you" not in said[0]


def test_second_person_leaves_other_seats_alone():
    from buraco_events.model.events import HandStarted

    dealt = HandStarted(seq=2, hand=0, first=1, hands=[], deads=[], stock=[], discard=[])
    assert second_person("seq 2: hand 0 dealt; Bruno plays first", dealt, 0) == "seq 2: hand 0 dealt; Bruno plays first"
    mine = HandStarted(seq=2, hand=0, first=0, hands=[], deads=[], stock=[], discard=[])
    assert second_person("seq 2: hand 0 dealt; you plays first", mine, 0) == "seq 2: hand 0 dealt; you play first"


# -- the score sheet ---------------------------------------------------------------------------


def _rows(sheet: str) -> list[str]:
    """Return the row labels of a score sheet (the lines below its rule)."""
    lines = sheet.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("──")) + 1
    return [re.split(r"\s{2,}", line.strip())[0] for line in lines[start:] if line.strip()]


def test_the_sheet_says_when_it_is_provisional_and_shows_each_row_once(tmp_path):
    log = tmp_path / "s.jsonl"
    result = runner.invoke(app, ["play", "--seed", str(SEED), "--log", str(log)], input="s\nquit\n")
    assert result.exit_code == 0, result.output
    shown = result.output.split("> s\n", 1)[1].split("\n> ", 1)[0]
    assert ("provisional, as if the hand ended now: a team that has not taken its dead loses 100; "
            "the cards still in hand are counted at the end") in " ".join(shown.split())
    sheet = shown[shown.index("hand 1"):]
    rows = _rows(sheet)
    assert rows == ["cards in melds", "canastas", "closing", "cards left in hand", "dead penalty if it ended now",
                    "hand total so far"]
    assert "at the end" in sheet and "running" not in sheet
    assert "team 0 (you)" in sheet


def test_the_end_sheet_has_no_duplicate_rows(dotted):
    sheet = next(s for s in dotted["said"] if "hand total" in s)
    rows = _rows(sheet)
    assert rows == ["cards in melds", "canastas", "closing", "cards left in hand", "dead penalty", "hand total"]
    assert len(set(rows)) == len(rows) and "provisional" not in sheet


# -- after --resume ------------------------------------------------------------------------------


def test_a_resumed_game_shows_the_melds_on_its_first_screen(tmp_path):
    log = tmp_path / "m.jsonl"
    said, state, finished, _ = _dot_game(log, stop_after=12)
    assert not finished and len(state.melds) >= 2
    shown: list[str] = []
    session = resume_session(log, lambda r: shown.append(_text(r)))
    try:
        assert not session.run(lambda s: None)
    finally:
        session.close()
    screen = next(s for s in shown if s.startswith("your hand ("))
    for meld in state.melds:
        assert f"meld #{meld.id} (" in screen and " ".join(meld.cards) in screen, (meld.id, screen)


# -- the full-screen app ---------------------------------------------------------------------


def _lines(screen) -> list[str]:
    from textual.widgets import RichLog

    return [str(line.text) for line in screen.query_one("#table", RichLog).lines]


async def _until(pilot, ok, seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if ok():
            return
        await pilot.pause(0.02)
    raise AssertionError("the app never got there")


@pytest.mark.slow
def test_the_app_shows_the_end_at_80x24_and_waits_for_a_key(dotted, tmp_path):
    from textual.widgets import Input, RichLog

    from cli.play_app import PlayApp, PlayScreen

    log = tmp_path / "app.jsonl"
    _dot_game(log, stop_after=dotted["typed"] - 6)  # the game's last moves are played in the app

    async def scenario():
        app = PlayApp(lambda say: resume_session(log, say, symbols=True))
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, PlayScreen))
            screen = app.screen

            def prompts() -> int:
                lines = _lines(screen)
                return sum(line.startswith("you may:") for line in lines) - lines.count("> .")

            while not screen.over:  # `.` at each prompt (each comes with a new screen: `you may:`)
                await _until(pilot, lambda: screen.over or prompts() > 0)
                if not screen.over:
                    typed = _lines(screen).count("> .")
                    await pilot.press("full_stop", "enter")
                    await _until(pilot, lambda typed=typed: _lines(screen).count("> .") > typed)
            await pilot.pause(0.5)
            still = app.screen is screen and app.is_running  # the end stays
            table = screen.query_one("#table", RichLog)
            width = table.scrollable_content_region.width
            widest = max(line.cell_length for line in table.lines)
            visible = [str(line.text) for line in table.lines[-table.size.height:]]
            placeholder = screen.query_one("#command", Input).placeholder
            await pilot.press("space")
            await pilot.pause(0.3)
            return app, still, width, widest, visible, placeholder

    app, still, width, widest, visible, placeholder = asyncio.run(scenario())
    assert still and app.finished and app.error is None and not app.interrupted
    assert width >= 70 and widest <= width  # no line drawn wider than the screen has room for
    shown = "\n".join(visible)
    # the last screen: the closing move, the sheet, the result, and what to press
    assert re.search(r"seq \d+: you (discarded|added|laid).*, closing the hand", shown) or "closed" in shown, shown
    assert "hand total" in shown and "game over: you win" in shown and "you win, " in shown
    assert visible[-1] == "the game is over: press any key to close" == placeholder
    assert len("d draw · p pile · m 3H 4H 5H · a 0 6H · x KD · . bot's move · ? help") <= width


@pytest.mark.slow
def test_ctrl_c_in_the_app_stops_for_resume_and_the_table_is_back_after_it(tmp_path):
    from cli.play_app import PlayApp, PlayScreen

    log = tmp_path / "c.jsonl"

    async def first_part():
        app = PlayApp(lambda say: new_session("stbl", 2, 0, ["greedy"], SEED, log, say))
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, PlayScreen))
            screen = app.screen
            for _ in range(12):  # a few moves, till melds are on the table
                n = sum(line.startswith("you may:") for line in _lines(screen))
                await pilot.press("full_stop", "enter")
                await _until(pilot, lambda n=n: sum(line.startswith("you may:") for line in _lines(screen)) > n)
            await pilot.press("ctrl+c")
            await pilot.pause(0.5)
            return app, app.is_running

    app, running = asyncio.run(first_part())
    assert not running and app.interrupted and not app.finished and app.error is None
    (audit,) = audit_path(log, partial=True)
    assert audit.report.ok and not audit.report.complete
    melds = resume_session(log, lambda r: None)
    state = melds.state
    melds.close()
    assert len(state.melds) >= 2

    async def resumed():
        app = PlayApp(lambda say: resume_session(log, say))
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(pilot, lambda: isinstance(app.screen, PlayScreen)
                         and any(line.startswith("you may:") for line in _lines(app.screen)))
            lines = _lines(app.screen)
            await pilot.press("ctrl+q")
            await pilot.pause(0.3)
            return app, lines

    app, lines = asyncio.run(resumed())
    assert not app.interrupted and not app.finished
    shown = "\n".join(lines)
    assert "you are seat 0 (team 0)" in shown
    for meld in state.melds:
        assert f"meld #{meld.id} (" in shown


class Terminal:
    """`buraco play` run on a pseudo-terminal of 80x24, so it opens the full-screen app."""

    def __init__(self, *args: str) -> None:
        import fcntl
        import pty
        import struct
        import termios

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child
            os.environ.update(TERM="xterm-256color", COLUMNS="80", LINES="24")
            os.execv(sys.executable, [sys.executable, "-m", "cli.main", "play", *args])
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.out = b""

    def pump(self, until=lambda: False, seconds: float = 30.0) -> None:
        """Read what the app draws until `until()` holds or `seconds` pass."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and not until():
            if select.select([self.fd], [], [], 0.1)[0]:
                try:
                    self.out += os.read(self.fd, 65536)
                except OSError:  # the app has exited
                    return

    def type(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def close(self) -> int:
        """Wait for the command to end; return its exit code (what it printed is in `out`)."""
        self.pump(seconds=5)
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid == 0:  # still running: a test that failed midway; never leave it behind
            os.kill(self.pid, signal.SIGKILL)
            _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)

    def after_the_app(self) -> bytes:
        """Return what was printed once the app left the alternate screen."""
        return self.out.rsplit(b"\x1b[?1049l", 1)[-1]


pty_only = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")


@pytest.mark.slow
@pty_only
def test_ctrl_c_in_the_real_app_exits_130_with_the_resume_line(tmp_path):
    log = tmp_path / "t.jsonl"
    term = Terminal("--seed", str(SEED), "--log", str(log))
    try:
        term.pump(lambda: log.exists() and b'"hand_started"' in log.read_bytes())
        term.pump(seconds=1.5)  # the first screen drawn, the prompt waiting
        term.type(b"\x03")
        term.pump(lambda: b"--resume" in term.out, 20)
    finally:
        code = term.close()
    assert code == 130, term.out[-500:]
    assert (f"interrupted; the log holds everything played so far: buraco play --resume {log}".encode()
            in term.after_the_app())
    (audit,) = audit_path(log, partial=True)
    assert audit.report.ok


@pytest.mark.slow
@pty_only
def test_the_real_app_waits_for_a_key_at_the_end_then_prints_the_result(dotted, tmp_path):
    log = tmp_path / "e.jsonl"
    left = 4
    _dot_game(log, stop_after=dotted["typed"] - left)
    term = Terminal("--resume", str(log))
    try:
        term.pump(lambda: b"you may" in term.out)
        for _ in range(left):  # typed ahead: the lines wait for their prompts
            term.type(b".\r")
            term.pump(seconds=0.2)
        term.pump(lambda: b"press any key to close" in term.out)
        term.pump(seconds=1)
        assert b"\x1b[?1049l" not in term.out  # still on screen, waiting
        term.type(b" ")
    finally:
        code = term.close()
    assert code == 0, term.out[-500:]
    after = term.after_the_app().decode()
    assert "you win, 1395 to 530 after 1 hand (your team is team 0)" in after
    assert f"check it with buraco audit {log}" in after
    (audit,) = audit_path(log)
    assert audit.report.ok and audit.report.complete
