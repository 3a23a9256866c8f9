"""`buraco play`: a game against bots in the terminal, each action sealed in the log as it happens.

Every event (the table's deals, refills and hand ends, the bots' moves and the human's) is checked
by the engine, appended to the log (one write and one fsync per line) and only then shown as done,
so a crash, a kill or Ctrl-C leaves a valid log of everything played so far. A bad line of input
gets a one-line reason and a new prompt, and nothing is written for it. There is no undo.

Resuming: the line after `game_started` is a `note` by "buraco play" holding the setup as JSON,
`{"human": 0, "bots": ["greedy"], "seed": 7}` (`bots` names the bot of each other seat, in seat
order). The game runs on a `table.Table` whose chance is `table.PositionSeeds(seed)`: it depends
only on that seed and the position in the game, so `--resume` continues exactly as an uninterrupted
session with the same input would. Logs carry no `at` times, so the same seed and input give the
same bytes. This module keeps the terminal only: prompts, narration and the log file.

Choices made here: a dead is taken automatically (the lowest one left) the moment the human's hand
empties, and the session says so; a game's id is `play-<variant>-<n>p-s<seed>`, and its default
log `./buraco-<game_id>.jsonl` is never appended to by a new game (resume it instead).
"""

from __future__ import annotations

import json
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import RenderableType
from rich.text import Text

from buraco_events.bots import Bot, bot_by_name, bot_spec
from buraco_events.commands import (
    HELP,
    CommandError,
    hint_text,
    options_text,
    parse_command,
)
from buraco_events.engine import GameState, IllegalMove, team_of
from buraco_events.events import Drew, Event, HandEnded, Note
from buraco_events.log import LogError, LogWriter, open_log, read_log
from buraco_events.projections import describe, player_view
from buraco_events.render import render_view
from buraco_events.rules import UnknownVariant, canonical_variant
from buraco_events.table import BotError, PositionSeeds, Table, legal_actions, start_event
from buraco_events.text import visible

from .common import PROBLEMS, UNREADABLE, fail, fail_read, import_bots_from_cwd, out

#: the `note.by` of the setup line
NOTE_BY = "buraco play"
#: the human's name in the log
HUMAN = "human"

#: where the human's lines come from; gets the live state (for test auto-pilots), None = end of input
Reader = Callable[[GameState], str | None]
#: where the session's output goes
Say = Callable[[RenderableType], None]


class SetupError(ValueError):
    """A game that cannot be started or resumed; its str is one line, `code` its exit code
    (2: bad options, or a log that is not a game of buraco play; 1: a problem in the log)."""

    def __init__(self, message: str, code: int = UNREADABLE):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Setup:
    """What a session needs beyond the events: the human's seat, the bots, the seed."""

    human: int
    bots: tuple[str, ...]  # bot name of each other seat, in seat order
    seed: int

    def note(self) -> Note:
        """Return the note that records the setup (seq 1, right after `game_started`)."""
        text = json.dumps({"human": self.human, "bots": list(self.bots), "seed": self.seed})
        return Note(seq=1, by=NOTE_BY, text=text)

    @staticmethod
    def from_note(event: Event, n_players: int) -> Setup:
        """Return the setup a log's seq-1 note records; raises `SetupError` if it is not one."""
        if not isinstance(event, Note) or event.by != NOTE_BY:
            raise SetupError(f"seq 1 is not the {NOTE_BY!r} setup note: this log was not started by buraco play")
        try:
            doc = json.loads(event.text)
            setup = Setup(int(doc["human"]), tuple(str(b) for b in doc["bots"]), int(doc["seed"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise SetupError(f"the setup note at seq 1 does not read: {exc}") from None
        if not 0 <= setup.human < n_players or len(setup.bots) != n_players - 1:
            raise SetupError(f"the setup note at seq 1 does not fit a {n_players}-player game")
        return setup

    def bot_seats(self, n_players: int) -> dict[int, Bot]:
        """Return a new bot for each seat but the human's; raises ValueError for an unknown bot."""
        seats = [s for s in range(n_players) if s != self.human]
        return {s: bot_by_name(name) for s, name in zip(seats, self.bots, strict=True)}


def play_game_id(variant: str, players: int, seed: int) -> str:
    """Return the id of the game a seed starts (the default log is `buraco-<id>.jsonl`)."""
    return f"play-{variant}-{players}p-s{seed}"


def say_out(renderable: RenderableType) -> None:
    """Print to stdout through the shared console (a line of text is never wrapped)."""
    out().print(renderable, soft_wrap=isinstance(renderable, Text))


class Session:
    """A game in progress: its table, its log writer, and what the human sees."""

    def __init__(self, path: Path, writer: LogWriter, table: Table, setup: Setup, say: Say) -> None:
        self.path = path
        self.writer = writer
        self.table = table
        self.setup = setup
        self.say = say
        self._shown = -1  # next_seq when the table was last shown to the human
        table.record = self._record

    @property
    def state(self) -> GameState:
        """Return the live state of the game (read it, never change it)."""
        return self.table.state

    def close(self) -> None:
        """Sync and close the log."""
        self.writer.close()

    def _record(self, event: Event) -> None:
        """Append an event the engine checked to the log, then narrate it (the table applies it next)."""
        state = self.table.state
        self.writer.append(event, expected_seq=state.next_seq)
        text = visible(describe(event, state, state.players))  # names and notes come from the log
        if isinstance(event, Drew) and event.player == self.setup.human:
            text += f": {event.card}"
        self.say(Text(text))

    def run(self, read: Reader) -> bool:
        """Play until the match is over (True) or the human quits or input ends (False)."""
        table = self.table
        while not table.over:
            event = table.step()  # the table's events and the bots' moves
            if event is not None:
                if isinstance(event, HandEnded):
                    self.show()  # the hands laid open and the RULES 7 score sheet
                continue
            if table.state.phase == "dead":
                self._take_dead()
            elif not self._prompt(read):
                return False
        self._result()
        return True

    def show(self) -> None:
        """Show the table as the human sees it."""
        self.say(render_view(player_view(self.state, self.setup.human)))
        self._shown = self.state.next_seq

    def _take_dead(self) -> None:
        action = self.table.legal_actions()[0]  # RULES 4: the deads are face down, any will do
        self.say(Text("your hand is empty: a dead is taken for you", style="bold"))
        self.table.act(self.setup.human, action, advance=False)

    def _prompt(self, read: Reader) -> bool:
        """Show the table if it changed, read one line and act on it; False when the human stops."""
        state = self.state
        if self._shown != state.next_seq:
            self.show()
            self.say(Text(options_text(legal_actions(state)), style="bold"))
        line = read(state)
        if line is None:
            self.say(Text(f"end of input: the game stops here; {self._resume_hint()}"))
            return False
        try:
            command = parse_command(line)
        except CommandError as exc:
            self._reject(str(exc))
            return True
        if command is None:
            return True
        word = command.word
        if word == "quit":
            self.say(Text(f"you quit; {self._resume_hint()}"))
            return False
        if word == "help":
            self.say(Text(HELP))
        elif word == "hint":
            self.say(Text(hint_text(legal_actions(state))))
        elif word == "show":
            self._shown = -1
        elif word == "dead":
            self.say(Text("a dead is taken for you as soon as your hand empties"))
        elif command.action is not None:
            try:
                self.table.act(self.setup.human, command.action, advance=False)
            except IllegalMove as exc:
                self._reject(exc.reason)
        return True

    def _reject(self, reason: str) -> None:
        self.say(Text(visible(reason), style="red"))  # it may quote what was typed

    def _resume_hint(self) -> str:
        path = visible(str(self.path))
        return f"the log {path} holds everything played: buraco play --resume {path}"

    def _result(self) -> None:
        state = self.state
        winner = state.winner
        mine = team_of(self.setup.human)
        verdict = "you win" if winner == mine else "you lose"
        totals = " / ".join(map(str, state.totals))
        self.say(Text(f"{verdict}: totals {totals} (team {mine} is yours)", style="bold"))
        path = visible(str(self.path))
        self.say(Text(f"the log: {path} ({state.next_seq} events); check it with buraco audit {path}"))


def new_session(
    variant: str, players: int, seat: int, bots: list[str], seed: int, log: Path | None, say: Say
) -> Session:
    """Start a game: write `game_started` and the setup note to a new log; raises SetupError."""
    try:
        name = canonical_variant(variant)
    except UnknownVariant as exc:
        raise SetupError(f"--variant: {exc}") from None
    if players not in (2, 4):
        raise SetupError(f"--players: Buraco is for 2 or 4 players, got {players}")
    if not 0 <= seat < players:
        raise SetupError(f"--seat: seats are 0..{players - 1}, got {seat}")
    import_bots_from_cwd(bots)
    names = [bot_spec(b) for b in bots]
    if len(names) == 1:
        names *= players - 1
    if len(names) != players - 1:
        raise SetupError(f"--bots: give 1 bot name or one per other seat ({players - 1}), got {len(bots)}")
    setup = Setup(seat, tuple(names), seed)
    try:
        bots_by_seat = setup.bot_seats(players)
    except ValueError as exc:
        raise SetupError(f"--bots: {exc}") from None
    game_id = play_game_id(name, players, seed)
    path = log if log is not None else Path(f"buraco-{game_id}.jsonl")
    if path.exists():
        raise SetupError(f"{path} exists: continue it with buraco play --resume {path}, or choose another --log or --seed")
    start = start_event(
        name, [HUMAN if s == seat else f"{bots_by_seat[s].name}-{s}" for s in range(players)], game_id
    )
    writer = open_log(path, fsync="event")
    session = Session(path, writer, Table(bots_by_seat, PositionSeeds(seed)), setup, say)
    say(Text(f"new game {game_id}: {name}, {players} players, seed {seed}; you are seat {seat} (team {team_of(seat)}); log {visible(str(path))}", style="bold"))
    session.table.append(start)
    session.table.append(setup.note())
    return session


def resume_session(path: Path, say: Say) -> Session:
    """Reopen a game's log, replay it through the engine (checked) and return its session."""
    writer = open_log(path, create=False, fsync="event")
    try:
        table = Table()  # seats and chance come from the setup note at seq 1
        state = table.state
        setup: Setup | None = None
        for _, _, event in read_log(path):
            try:
                table.append(event)
            except IllegalMove as exc:
                # a player reads it: the public reason, naming no card a seat cannot see
                raise SetupError(f"{path}: illegal event: {exc.public_text()}", PROBLEMS) from None
            if event.seq == 1:
                setup = Setup.from_note(event, state.n_players)
        if setup is None:
            raise SetupError(f"{path}: no setup note at seq 1: this log was not started by buraco play")
        try:
            table.seats = setup.bot_seats(state.n_players)
        except ValueError as exc:
            raise SetupError(f"{path}: the setup note at seq 1: {exc}") from None
        table.rng = PositionSeeds(setup.seed)
        session = Session(path, writer, table, setup, say)
    except BaseException:
        writer.close()
        raise
    say(Text(f"resumed game {visible(state.game_id)} at seq {state.next_seq - 1} (hand {state.hand_no}); you are seat {setup.human}", style="bold"))
    return session


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
    seat: Annotated[int | None, typer.Option("--seat", help="your seat (default: 0)", show_default=False)] = None,
    bots: Annotated[str | None, typer.Option("--bots", help="bot name (or module:Class, docs/api.md) for the other seats, or one per other seat, comma-separated (default: greedy)", show_default=False)] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="deal seed: same seed and moves, same log (default: random, printed)", show_default=False)] = None,
    log: Annotated[Path | None, typer.Option("--log", help="log file (default: ./buraco-<game_id>.jsonl)", show_default=False)] = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="continue the game of this log", show_default=False)] = None,
) -> None:
    """Play Buraco against bots; every action is written to a sealed log as it happens."""
    if resume is not None:
        given = [n for n, v in (("--variant", variant), ("--players", players), ("--seat", seat),
                                 ("--bots", bots), ("--seed", seed), ("--log", log)) if v is not None]
        if given:
            fail(f"--resume continues a game as it was set up: drop {', '.join(given)}")
    session: Session | None = None
    try:
        if resume is not None:
            session = resume_session(resume, say_out)
        else:
            session = new_session(
                "stbl" if variant is None else variant, 2 if players is None else players,
                0 if seat is None else seat, ("greedy" if bots is None else bots).split(","),
                secrets.randbelow(1_000_000) if seed is None else seed, log, say_out,
            )
        try:
            session.run(stdin_reader)
        finally:
            session.close()
    except SetupError as exc:
        fail(str(exc), exc.code)
    except BotError as exc:
        fail(f"--bots: {exc}")
    except LogError as exc:
        fail_read(exc)
    except OSError as exc:
        fail(f"{exc.filename or resume or log or 'buraco play'}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        # each event is one write: the log holds every event recorded before the interrupt
        where = visible(str(session.path)) if session is not None else "LOG"
        say_out(Text(f"\ninterrupted; the log holds everything played so far: buraco play --resume {where}"))
        raise typer.Exit(130) from None
