"""`buraco play`: command parsing, a whole game against bots, bad input, EOF, a killed process, resume.

A human auto-pilot drives the session: at each prompt it asks the greedy bot what to do from the
human's own view and types that move as a command. It also types bad lines at the first prompts
of each phase and checks that each gets a one-line reason and that nothing was written for it.
The script it typed is then replayed through the CLI (stdin), and a subprocess is killed midway
and resumed: all three must give the same log bytes, which the audit passes.
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
from helpers import random_game
from rich.text import Text
from typer.testing import CliRunner

from buraco_events.audit.files import audit_path
from buraco_events.bots.registry import GreedyBot
from buraco_events.core.choices import Action, legal_actions
from buraco_events.core.engine import play, replay
from buraco_events.core.melds import classify
from buraco_events.core.state import GameState
from buraco_events.core.table import table_event
from buraco_events.log.writer import write_log
from buraco_events.model.events import HandEnded, HandStarted, Note, decode_event
from buraco_events.play.commands import (
    CommandError,
    action_command,
    action_words,
    broken_rule,
    hint_text,
    options_text,
    parse_command,
)
from buraco_events.play.setup import Setup
from buraco_events.views.projections import player_view
from buraco_events.views.render import render_compact, render_text
from cli.main import app
from cli.session import new_session, resume_session

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
SEED = 11


# -- parsing ---------------------------------------------------------------------------------


def test_parse_moves_reads_cards_leniently():
    assert parse_command("meld 3h 4♥ 5H") == Action("meld", ("3H", "4H", "5H"))
    assert parse_command("  ADD #2 th jk ") == Action("add", ("10H", "JK"), meld=2)
    assert parse_command("discard kd") == Action("discard", ("KD",))
    assert parse_command("d") == Action("draw")
    assert parse_command("pile") == Action("pile")
    assert parse_command("quit") == "quit" and parse_command("moves") == "hint"
    assert parse_command("   ") is None


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("frobnicate", "unknown command 'frobnicate'"),
        ("meld", "meld takes the cards"),
        ("meld 3H ZZ", "not a card: 'ZZ'"),
        ("add 5H", "add takes a meld number"),
        ("add x 5H", "'x' is not a meld number"),
        ("discard", "exactly one card"),
        ("discard KD QD", "exactly one card"),
        ("draw 3H", "draw takes nothing"),
    ],
)
def test_parse_rejects_with_one_line(line, reason):
    with pytest.raises(CommandError) as exc:
        parse_command(line)
    assert reason in str(exc.value) and "\n" not in str(exc.value)


def test_every_offered_action_types_back_into_itself():
    events = random_game("burraco", 2, 3)
    state = GameState()
    checked = 0
    for ev in events:
        actions = [a for a in legal_actions(state) if a.kind != "dead"]
        for a in actions:
            assert parse_command(action_command(a)) == a
        checked += len(actions)
        play(state, ev)
    assert checked > 100


def test_a_dead_has_words_but_no_command():
    # the analysis names a taken dead `dead N`; a player never types one (it is taken for them)
    dead = Action("dead", dead=1)
    assert action_words(dead) == "dead 1"
    with pytest.raises(ValueError, match="dead is not typed"):
        action_command(dead)
    lay_off = Action("add", ("5H", "6H"), meld=2)
    assert action_words(lay_off) == action_command(lay_off) == "add 2 5H 6H"


def test_options_and_hint_name_each_kind_of_move():
    actions = [Action("meld", ("3H", "4H", "5H")), Action("meld", ("3H", "4H", "JK")),
               Action("add", ("6H",), meld=1), Action("discard", ("KD",)), Action("discard", ("3H",))]
    assert options_text(actions) == "you may: meld (2 ways), add (1 way), discard (any of 2 cards); hint lists them"
    assert options_text([Action("draw"), Action("pile")]) == "you may: draw, pile"
    assert hint_text(actions).splitlines() == [
        "meld 3H 4H 5H", "meld 3H 4H JK", "add 1 6H", "discard 3H | KD",
    ]


# -- a whole game with an auto-pilot ---------------------------------------------------------


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n")


def _text(renderable) -> str:
    """Return what the session said as text (a line of text unwrapped, as `say_out` prints it)."""
    return renderable.plain if isinstance(renderable, Text) else render_text(renderable, width=100)


class Pilot:
    """Types the greedy bot's choice for the human, plus bad lines it checks the answers to."""

    def __init__(self, path: Path, seat: int, said: list[str]) -> None:
        self.path, self.seat, self.said = path, seat, said
        self.script: list[str] = []
        self.prompt_seqs: list[int] = []  # the log's length at each prompt
        self.expect: str | None = None  # the reason the last (bad) line must have drawn
        self.queues: dict[str, list[tuple[str, str]] | None] = {"draw": None, "play": None}
        self.rejected = 0

    def __call__(self, state: GameState) -> str:
        assert state.to_play == self.seat and state.phase in ("draw", "play")
        assert _lines(self.path) == state.next_seq  # everything done is in the log already
        if self.expect is not None:
            assert self.prompt_seqs[-1] == state.next_seq, "a bad line changed the game"
            reason = self.said[-1].strip()
            assert self.expect in reason and "\n" not in reason, reason
            self.expect = None
            self.rejected += 1
        line = self._bad_line(state) or self._move(state)
        self.script.append(line)
        self.prompt_seqs.append(state.next_seq)
        return line

    def _bad_line(self, state: GameState) -> str | None:
        """Return the next bad line for this phase's first prompt (None once they are all typed)."""
        phase = state.phase
        if phase == "play" and state.pending_top is not None:
            return None  # a closed pile just taken: the top card must be played first
        if self.queues[phase] is None:
            held = sorted(state.hands[self.seat])
            if phase == "draw":
                self.queues[phase] = [
                    ("frobnicate", "unknown command"), ("meld zz 3H 4H", "not a card: 'zz'"),
                    (f"discard {held[0]}", "draw first: take the stock's top card (`draw`) or the whole pile (`pile`)"),
                ]
            else:
                junk = next(c for c in itertools.combinations(held, 3) if classify(c, state.rules) is None)
                self.queues[phase] = [
                    (f"meld {' '.join(junk)}", f"cannot meld {' '.join(junk)}: {broken_rule(junk, state.rules)}"),
                    (f"add 99 {held[0]}", "cannot add: there is no meld #99 on the table; your team"),
                    ("draw", "you have drawn this turn: meld, add to a meld, then discard"),
                ]
        queue = self.queues[phase]
        if not queue:
            return None
        line, self.expect = queue.pop(0)
        return line

    def _move(self, state: GameState) -> str:
        view = player_view(state, self.seat)
        action = GreedyBot().choose(view, legal_actions(state), state.rules, random.Random(0))
        return action_command(action)


@pytest.fixture(scope="module")
def piloted(tmp_path_factory):
    """One stbl game against a greedy bot, played in-process by the auto-pilot (seat 1)."""
    path = tmp_path_factory.mktemp("pilot") / "game.jsonl"
    said: list[str] = []

    def say(renderable) -> None:
        said.append(_text(renderable))

    started = time.perf_counter()
    session = new_session("stbl", 2, 1, ["greedy"], SEED, path, say)
    pilot = Pilot(path, 1, said)
    try:
        finished = session.run(pilot)
    finally:
        session.close()
    return {
        "path": path, "said": said, "pilot": pilot, "finished": finished, "state": session.state,
        "seconds": time.perf_counter() - started,
    }


def test_piloted_game_is_logged_whole_and_audits_clean(piloted):
    pilot, state, path = piloted["pilot"], piloted["state"], piloted["path"]
    assert piloted["finished"] and state.phase == "over"
    assert pilot.rejected == 6 and pilot.queues == {"draw": [], "play": []}
    events = [decode_event(line) for line in path.read_bytes().splitlines()]
    assert replay(events).totals == state.totals
    assert events[1] == Note(seq=1, prev=events[1].prev, by="buraco play",
                             text='{"human": 1, "bots": ["greedy"], "seed": 11, "commit": true}')
    assert events[0].players == ("Ana", "you")
    (audit,) = audit_path(path)
    assert audit.report.ok and audit.report.sealed, audit.report.problems
    # the deal of hand 0 comes from the (seed, hand) rng alone
    first = GameState()
    for ev in events[:2]:
        play(first, ev)
    assert table_event(first, random.Random(f"{SEED}:0")) == msgspec.structs.replace(
        events[2], prev=None, commitment=None)


def test_piloted_game_shows_moves_sheet_and_result(piloted):
    text = "\n".join(piloted["said"])
    assert "Ana drew from the stock" in text  # the bot's moves are narrated
    assert "you drew from the stock" in text
    assert "hand total" in text and "canastas" in text and "cards left in hand" in text
    assert "you win" in text or "you lose" in text
    assert "your hand is empty: a dead is taken for you" in text
    assert "you took dead" in text  # seed 11: the human's dead is auto-taken
    assert "you took the pile" in text  # ... and it took a closed pile, playing its top first
    assert f"check it with buraco audit {piloted['path']}" in text


def _game(path: Path) -> list:
    """Return a log's events without what a secret salt changes (the commitments, the salts and
    so the chain): two sessions with the same seed and input play the same game."""
    events = []
    for line in path.read_bytes().splitlines():
        ev = decode_event(line)
        if isinstance(ev, HandStarted):
            ev = msgspec.structs.replace(ev, commitment=None)
        elif isinstance(ev, HandEnded):
            ev = msgspec.structs.replace(ev, salt=None)
        events.append(msgspec.structs.replace(ev, prev=None))
    return events


def _play_cli(*args: str, input: str):
    return runner.invoke(app, ["play", *args], input=input)


def test_cli_with_the_same_script_writes_the_same_log(piloted, tmp_path):
    log = tmp_path / "cli.jsonl"
    result = _play_cli("--seed", str(SEED), "--seat", "1", "--log", str(log),
                       input="\n".join(piloted["pilot"].script) + "\n")
    assert result.exit_code == 0, result.output
    assert _game(log) == _game(piloted["path"])
    assert "unknown command 'frobnicate'" in result.output
    assert "> " in result.output


def test_end_of_input_quits_and_resume_finishes_the_same_game(piloted, tmp_path):
    pilot, log = piloted["pilot"], tmp_path / "eof.jsonl"
    k = len(pilot.script) // 2
    first = _play_cli("--seed", str(SEED), "--seat", "1", "--log", str(log),
                      input="".join(line + "\n" for line in pilot.script[:k]))
    assert first.exit_code == 0 and "end of input" in first.output
    assert _lines(log) == pilot.prompt_seqs[k]
    # a game in progress: unfinished, so it passes only as a partial audit
    (audit,) = audit_path(log, partial=True)
    assert audit.report.ok and not audit.report.complete, audit.report.problems
    (whole,) = audit_path(log)
    assert [p.kind for p in whole.report.problems] == ["unfinished"]
    second = _play_cli("--resume", str(log), input="".join(line + "\n" for line in pilot.script[k:]))
    assert second.exit_code == 0, second.output
    assert "resumed game play-stbl-2p-s11" in second.output
    assert _game(log) == _game(piloted["path"])
    (audit,) = audit_path(log)
    assert audit.report.ok, audit.report.problems  # the resumed game revealed the committed salt


@pytest.mark.slow
def test_resume_after_sigkill_finishes_the_same_game(piloted, tmp_path):
    pilot, log = piloted["pilot"], tmp_path / "killed.jsonl"
    # kill at a prompt well into the hand, whose line is a legal move
    k = next(i for i in range(len(pilot.script) * 2 // 3, len(pilot.script))
             if i + 1 < len(pilot.prompt_seqs) and pilot.prompt_seqs[i + 1] > pilot.prompt_seqs[i])
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
    with open(tmp_path / "stdout.txt", "wb") as stdout:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "play", "--seed", str(SEED), "--seat", "1", "--log", str(log)],
            stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
        )
        try:
            assert proc.stdin is not None
            proc.stdin.write("".join(line + "\n" for line in pilot.script[:k]).encode())
            proc.stdin.flush()
            deadline = time.monotonic() + 30
            while not (log.exists() and _lines(log) >= pilot.prompt_seqs[k]):
                assert proc.poll() is None and time.monotonic() < deadline, "the game did not get there"
                time.sleep(0.02)
            time.sleep(0.1)  # it is waiting for line k: nothing more can be written
            assert _lines(log) == pilot.prompt_seqs[k]
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            proc.stdin.close()
    assert proc.returncode == -signal.SIGKILL
    result = _play_cli("--resume", str(log), input="".join(line + "\n" for line in pilot.script[k:]))
    assert result.exit_code == 0, result.output
    assert _game(log) == _game(piloted["path"])
    (audit,) = audit_path(log)
    assert audit.report.ok, audit.report.problems


def test_resume_a_finished_game_shows_the_result(piloted, tmp_path):
    log = tmp_path / "done.jsonl"
    log.write_bytes(piloted["path"].read_bytes())
    result = _play_cli("--resume", str(log), input="")
    assert result.exit_code == 0
    assert "you win" in result.output or "you lose" in result.output
    assert log.read_bytes() == piloted["path"].read_bytes()


def test_four_players_partner_bot_and_pilot(tmp_path):
    path = tmp_path / "four.jsonl"
    said: list[str] = []
    session = new_session("stbl", 4, 2, ["greedy", "random", "greedy"], 5, path,
                          lambda r: said.append(_text(r)))
    try:
        pilot = Pilot(path, 2, said)
        assert session.run(pilot)
    finally:
        session.close()
    events = [decode_event(line) for line in path.read_bytes().splitlines()]
    assert events[0].players == ("Ana", "Bruno", "you", "Davi")
    (audit,) = audit_path(path)
    assert audit.report.ok, audit.report.problems
    # resuming a finished 4-player game reads the setup back
    again = resume_session(path, lambda r: None)
    try:
        assert again.setup == Setup(2, ("greedy", "random", "greedy"), 5, commit=True)
        assert {s: b.name for s, b in again.table.seats.items()} == {0: "greedy", 1: "random", 3: "greedy"}
    finally:
        again.close()


# -- bad options -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--players", "3"], "--players: Buraco is for 2 or 4 players"),
        (["--seat", "2"], "--seat: seats are 0..1"),
        (["--bots", "nobody"], "unknown bot 'nobody'"),
        (["--bots", "greedy,random"], "give 1 bot name or one per other seat (1)"),
        (["--variant", "poker"], "unknown variant 'poker'"),
    ],
)
def test_bad_options_fail_on_one_line(tmp_path, args, reason):
    log = tmp_path / "x.jsonl"
    result = _play_cli(*args, "--seed", "1", "--log", str(log), input="")
    assert result.exit_code == 2
    assert reason in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not log.exists()


def test_an_existing_log_is_never_appended_to_by_a_new_game(piloted, tmp_path):
    log = tmp_path / "taken.jsonl"
    log.write_bytes(piloted["path"].read_bytes())
    result = _play_cli("--seed", "1", "--log", str(log), input="")
    assert result.exit_code == 2 and "exists: continue it with buraco play --resume" in result.stderr
    assert log.read_bytes() == piloted["path"].read_bytes()


def test_resume_refuses_other_logs_and_extra_options(tmp_path):
    log = tmp_path / "sim.jsonl"
    write_log(log, random_game("stbl", 2, 1))
    result = _play_cli("--resume", str(log), input="")
    assert result.exit_code == 2 and "was not started by buraco play" in result.stderr
    result = _play_cli("--resume", str(log), "--seed", "3", input="")
    assert result.exit_code == 2 and "drop --seed" in result.stderr
    result = _play_cli("--resume", str(tmp_path / "missing.jsonl"), input="")
    assert result.exit_code == 2 and "no such file or folder" in result.stderr


def test_resume_of_input_that_is_not_a_log_or_breaks_the_rules(piloted, tmp_path):
    # a 2 KB file of nested [ is not a log: one line and exit 2 on --resume, never a traceback
    nested = tmp_path / "nested.jsonl"
    nested.write_bytes(b"[" * 2000 + b"\n")
    result = _play_cli("--resume", str(nested), input="")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: {nested}: line 1: not a log")
    # a lying server's drew: the player reads the public reason, never the stock's top card
    from buraco_events.model.events import Drew, seal_lines

    events = [decode_event(line) for line in piloted["path"].read_bytes().splitlines()]
    k = next(i for i, e in enumerate(events) if isinstance(e, Drew) and i > 10)
    top = events[k].card
    wrong = "JK" if top != "JK" else "AS"
    events = [*events[:k], msgspec.structs.replace(events[k], card=wrong)]
    forged = tmp_path / "forged.jsonl"
    forged.write_bytes(b"".join(line + b"\n" for line in seal_lines(events)))
    result = _play_cli("--resume", str(forged), input="")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "drew a card that is not the stock's top card" in result.stderr
    assert f"top card is {top}" not in result.stderr


# -- the table as a player sees it: hands by suit, the pile, the melds -------------------------


@pytest.fixture(scope="module")
def match(tmp_path_factory):
    """A whole match of fechado to 1000 points against a greedy bot (seed 1: two hands), with
    the auto-pilot at seat 0, named, bots paced by a fake clock."""
    path = tmp_path_factory.mktemp("match") / "match.jsonl"
    said: list[str] = []
    naps: list[float] = []
    session = new_session("fechado", 2, 0, ["greedy"], 1, path, lambda r: said.append(_text(r)),
                          name="Zoe", target=1000, pace=0.5, sleep=naps.append)
    pilot = Pilot(path, 0, said)
    try:
        assert session.run(pilot)
    finally:
        session.close()
    return {"path": path, "said": said, "pilot": pilot, "state": session.state, "naps": naps}


def test_a_match_goes_hand_after_hand_to_the_target(match):
    state, text = match["state"], "\n".join(match["said"])
    assert len(state.hand_results) == 2 and max(state.totals) >= 1000
    events = [decode_event(line) for line in match["path"].read_bytes().splitlines()]
    assert events[0].players == ("Zoe", "Bruno") and events[0].target == 1000
    # the score sheet and the match's standing after each hand, then the result
    assert text.count("match to 1000: team 0") == 2 and text.count("hand total") == 2
    assert "after 2 hands" in text and ("you win, " in text or "you lose, " in text)
    assert "Zoe drew from the stock" in text and "Bruno drew from the stock" in text
    # the second hand's sheet: the hand, the totals before it and with it, each row once
    first, second = (s for s in match["said"] if "hand total" in s)
    assert "before this hand" not in first and "total " not in first.replace("hand total", "")
    rows = {line.split()[0] if not line.startswith("before") else "before": line.split()[-2:]
            for line in second.splitlines()[2:]}
    sheets = state.hand_results
    assert rows["before"] == [str(sheets[0][0].total), str(sheets[0][1].total)]
    assert rows["total"] == [str(t) for t in state.totals]
    assert second.count("total") == 2 and "running" not in second and "(provisional" not in second


def test_every_deal_is_committed_before_play_and_audit_proves_it(match):
    said, path = match["said"], match["path"]
    events = [decode_event(line) for line in path.read_bytes().splitlines()]
    deals = [e for e in events if isinstance(e, HandStarted)]
    ends = [e for e in events if isinstance(e, HandEnded)]
    assert len(deals) == len(ends) == 2
    for n, (deal, end) in enumerate(zip(deals, ends, strict=True)):
        # shown before the hand's first move, the salt at its end, each by its first 12 hex digits
        shown = next(i for i, line in enumerate(said) if f"commitment {deal.commitment[:12]} " in line)
        assert deal.commitment not in said[shown] and len(said[shown]) <= 76
        first_move = next(i for i, line in enumerate(said) if line.startswith(f"seq {deal.seq + 1}:"))
        revealed = next(i for i, line in enumerate(said) if f"the deal's salt: {end.salt[:12]} " in line)
        assert shown < first_move < revealed
        if n < len(ends) - 1:  # the match goes on: a game in progress audits with --partial
            assert f"buraco audit --partial {path}" in said[revealed]
        else:  # the last hand ends the game: no --partial for a complete game
            assert f"buraco audit {path}" in said[revealed] and "--partial" not in said[revealed]
    (audit,) = audit_path(path)
    assert audit.report.ok and audit.report.complete, audit.report.problems
    # the salts are secret: not in the log before their hand ends, kept beside it (owner only)
    assert all(end.salt.encode() not in path.read_bytes().split(b'"hand_ended"')[0] for end in ends)
    assert os.stat(f"{path}.key").st_mode & 0o077 == 0
    # a deal changed afterwards no longer opens with its salt
    lines = path.read_bytes().splitlines()
    k = next(i for i, e in enumerate(events) if isinstance(e, HandStarted))
    deal = events[k]
    swapped = msgspec.structs.replace(deal, stock=(*deal.stock[:-2], deal.stock[-1], deal.stock[-2]))
    forged = path.with_name("forged.jsonl")
    forged.write_bytes(b"\n".join([*lines[:k], msgspec.json.encode(swapped), *lines[k + 1:]]) + b"\n")
    (audit,) = audit_path(forged)
    assert any("does not match its commitment" in p.message for p in audit.report.problems)


@pytest.mark.slow
def test_the_match_resumes_in_its_second_hand_and_ends_the_same(match, tmp_path):
    pilot, log = match["pilot"], tmp_path / "m.jsonl"
    events = [decode_event(line) for line in match["path"].read_bytes().splitlines()]
    second = next(e.seq for e in events if isinstance(e, HandStarted) and e.hand == 1)
    k = next(i for i, seq in enumerate(pilot.prompt_seqs) if seq > second + 10)
    args = ("--variant", "fechado", "--target", "1000", "--seed", "1", "--name", "Zoe", "--log", str(log))
    first = _play_cli(*args, input="".join(line + "\n" for line in pilot.script[:k]))
    assert first.exit_code == 0 and "end of input" in first.output, first.output
    rest = _play_cli("--resume", str(log), "--pace", "0", input="".join(line + "\n" for line in pilot.script[k:]))
    assert rest.exit_code == 0, rest.output
    assert "resumed game play-fechado-2p-s1" in rest.output and "(hand 2); you are Zoe" in rest.output
    assert _game(log) == _game(match["path"])
    (audit,) = audit_path(log)
    assert audit.report.ok and audit.report.complete, audit.report.problems
    assert "after 2 hands" in rest.output


def test_pace_pauses_before_each_bot_move_only(match):
    events = [decode_event(line) for line in match["path"].read_bytes().splitlines()]
    bot_moves = [e for e in events if getattr(e, "player", None) == 1]
    assert match["naps"] == [0.5] * len(bot_moves) and bot_moves


def test_the_compact_screen_marks_new_cards_and_changed_melds(match):
    said = match["said"]
    screens = [s for s in said if s.startswith("your hand (")]
    assert screens and all(len(s.splitlines()) <= 12 for s in screens)  # never the whole table
    assert not any("melds of team" in s for s in said)  # the full table only on `show`
    drew = next(i for i, s in enumerate(said) if s.startswith("seq ") and "Zoe drew from the stock" in s)
    card = said[drew].rsplit(": ", 1)[1]
    screen = next(s for s in said[drew:] if s.startswith("your hand ("))
    assert f"[{card}]" in screen and "pile: " in screen and " · stock " in screen
    assert any("(theirs, " in s or "(yours, " in s for s in screens)


def test_render_compact_groups_suits_with_symbols():
    view = player_view(_dealt_state(), 0)
    letters = render_compact(view, new=(view.hands[0][0],)).plain
    symbols = render_compact(view, symbols=True).plain
    first = view.hands[0][0]
    assert f"[{first}]" in letters and "♥" not in letters
    assert any(s in symbols for s in "♠♥♦♣") and "H " not in symbols.splitlines()[0].replace("JK", "")


def _dealt_state() -> GameState:
    state = GameState()
    for ev in random_game("stbl", 2, 1)[:3]:
        play(state, ev)
    return state


def test_hint_reads_in_run_order_best_first_at_most_a_screen():
    rules = _dealt_state().rules
    actions = [Action("meld", ("10D", "8D", "9D")), *[Action("meld", ("3H", "4H", f"{r}H")) for r in "56789"],
               *[Action("add", ("KS", "QS"), meld=m) for m in range(8)], Action("discard", ("KD",))]
    lines = hint_text(actions, rules, best=actions[0]).splitlines()
    assert lines[0] == "meld 8D 9D 10D   (the bot's choice: . plays it)"
    assert "add 0 QS KS" in lines
    assert len(lines) == 10 and lines[-1] == "discard KD" and lines[-2].startswith("… and 6 more plays")
    assert "meld 10D 8D 9D" not in lines


def test_refusals_name_the_rule_in_a_players_words(tmp_path):
    log = tmp_path / "r.jsonl"
    result = _play_cli("--seed", "11", "--seat", "1", "--log", str(log),
                       input="meld 3H 4H 5H\ndiscard KD\nhint\ndraw\npile\nadd 99 8D\nquit\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.count("draw first: take the stock's top card (`draw`) or the whole pile (`pile`)") == 2
    assert "you have drawn this turn: meld, add to a meld, then discard (`discard CARD`)" in out
    assert "cannot add: there is no meld #99 on the table; your team has no meld yet" in out
    assert "discarded is not allowed" not in out and "expected a draw" not in out
    hint = out.split("> hint\n", 1)[1].split("\n> ", 1)[0].splitlines()
    assert hint[0] in ("draw   (the bot's choice: . plays it)", "pile   (the bot's choice: . plays it)")


def test_bad_name_and_pace_fail_on_one_line(tmp_path):
    log = tmp_path / "n.jsonl"
    for args, reason in ((["--name", ""], "--name: give 1 to 40"), (["--name", "a\x1b[2J"], "--name: give 1 to 40"),
                         (["--pace", "-1"], "--pace: give 0 or more seconds")):
        result = _play_cli(*args, "--seed", "1", "--log", str(log), input="")
        assert result.exit_code == 2 and reason in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "\x1b" not in result.stderr
        assert not log.exists()


# -- the full-screen app (textual), driven headlessly ---------------------------------------------


@pytest.mark.slow
def test_play_app_plays_typed_moves_into_the_log_and_stops_for_resume(tmp_path: Path):
    import asyncio

    from textual.widgets import RichLog

    from cli.play_app import PlayApp

    log = tmp_path / "app.jsonl"

    def make(say):
        return new_session("stbl", 2, 0, ["greedy"], 5, log, say, name="ana")

    async def scenario() -> tuple[PlayApp, list[str]]:
        app = PlayApp(make)
        async with app.run_test() as pilot:
            for _ in range(50):  # the worker deals and the bots move first
                await pilot.pause(0.05)
                if log.exists() and b'"hand_started"' in log.read_bytes():
                    break
            for text in ("hint", "draw"):
                for key in text:
                    await pilot.press(key)
                await pilot.press("enter")
                await pilot.pause(0.2)
            shown = [str(line.text) for line in app.screen.query_one("#table", RichLog).lines]
            await pilot.press("ctrl+q")
            await pilot.pause(0.2)
        return app, shown

    app, shown = asyncio.run(scenario())
    assert app.error is None and not app.finished
    screen = "\n".join(shown)
    assert "> hint" in screen and "> draw" in screen  # the typed lines, echoed
    assert "deck fixed: commitment" in screen  # the session's own narration, as in line mode
    events = [decode_event(line) for line in log.read_bytes().splitlines()]
    assert any(type(e).__name__ == "Drew" and e.player == 0 for e in events)  # the typed draw was played
    # the log is whole: it audits as a game in progress, and play --resume continues it
    (result,) = audit_path(log, partial=True)
    assert result.report.ok and not result.report.complete
    session = resume_session(log, lambda r: None)
    assert session.state.next_seq == len(events)
    session.close()


def test_the_viewer_shows_a_hand_as_play_does():
    """One face: with symbols (a UTF-8 terminal), the replay viewer's table groups each hand by
    suit with suit symbols, the same text as play's screen; without, the notation as recorded."""
    from buraco_events.views.render import hand_text, render_view

    view = player_view(_dealt_state(), 0)
    hand = view.hands[0]
    played = render_compact(view, symbols=True).plain.splitlines()[0]
    viewed = render_text(render_view(view, symbols=True))
    assert hand_text(hand, symbols=True).plain in played and hand_text(hand, symbols=True).plain in viewed
    plain = render_text(render_view(view))
    assert " ".join(hand) in plain and "♥" not in plain
