"""A game of Buraco against bots, each action sealed in its log as it happens (the shell of `buraco play`).

A `Session` drives a `table.Table`: every event (the table's deals, refills and hand ends, the
bots' moves and the human's) is checked by the engine, appended to the log (one write and one
fsync per line) and only then told through the session's `say`, so a crash, a kill or an
interrupt leaves a valid log of everything played so far. The human's lines come from a `read`
callable; a bad line gets a one-line reason through `say` and nothing is written for it. There is
no undo. The caller owns the terminal: `say` and `read` are all the I/O with the player.

A game starts with `new_session` (`game_started`, then the setup note of `setup.Setup`), goes on
with `resume_session`, and a branch is forked to be played by hand with `branch_session` (set up
as `branch_setup` says). The game's chance is `seeds.PositionSeeds(seed)`: it depends only on
that seed and the position in the game, so `resume_session` continues exactly as an
uninterrupted session with the same input would. Logs carry no `at` times, so the same seed and
input give the same bytes. Every deal is committed under the game's key file (`keys`).

What the player is told: each event in words as it happens (bots' moves `pace` seconds apart),
and at each prompt a compact screen (`render.render_compact`: the hand by suit with the new cards
marked, the pile, the melds that changed; the first screen of a resumed game or a branch shows
every meld on the table); `show` tells the whole table and the score so far
(`narrator.score_sheet`), `hint` the plays in reading order with the greedy bot's choice first,
and `.` plays that choice. A refused move is told in the player's words
(`commands.refusal_text`). A match goes on hand after hand to the target, with the score sheet
after each hand.

Choices made here: a dead is taken automatically (the lowest one left) the moment the human's hand
empties, and the session says so; a game's default log `./buraco-<game_id>.jsonl` is never
appended to by a new game (resume it instead).
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.text import Text

from buraco_events.bots.registry import GreedyBot
from buraco_events.core.choices import Action, legal_actions
from buraco_events.core.engine import apply
from buraco_events.core.gate import IllegalMove, team_of
from buraco_events.core.seeds import PositionSeeds
from buraco_events.core.state import GameState
from buraco_events.core.table import Table, start_event
from buraco_events.log.atomic import place
from buraco_events.log.commit import keyed_salts
from buraco_events.log.sources import read_log
from buraco_events.log.writer import LogWriter, open_log
from buraco_events.model.events import (
    Branched,
    Drew,
    Event,
    HandEnded,
    HandStarted,
    LaidOff,
    Melded,
    Note,
    TookDead,
    TookPile,
    branch_of,
    branch_words,
    decode_event,
)
from buraco_events.model.rules import UnknownVariant, canonical_variant
from buraco_events.play.branch import BranchError, read_parent, start_branch
from buraco_events.play.branch_setup import branch_table
from buraco_events.play.commands import (
    HELP,
    CommandError,
    action_command,
    arranged,
    hint_text,
    options_text,
    parse_command,
    refusal_text,
)
from buraco_events.play.keys import key_path, read_key, write_key
from buraco_events.play.setup import (
    DEFAULT_NAME,
    MAX_NAME,
    NOTE_BY,
    Say,
    Setup,
    SetupError,
    bot_kinds,
    bot_names,
    play_game_id,
)
from buraco_events.util.text import hand_words, visible
from buraco_events.views.projections import describe, player_view
from buraco_events.views.render import render_compact

from .narrator import hands_count, score_sheet, second_person, you_are

#: where the human's lines come from; gets the live state (for test auto-pilots), None = end of input
Reader = Callable[[GameState], str | None]


#: hex digits of a commitment or a salt shown on screen: enough to compare by eye (the log holds all)
SHORT_HEX = 12


def short_hex(digest: str) -> str:
    """Return the first `SHORT_HEX` hex digits of a commitment or salt, as the screen shows it."""
    return digest[:SHORT_HEX]


class Session:
    """A game in progress: its table, its log writer, and what the human is told through `say`."""

    def __init__(
        self, path: Path, writer: LogWriter, table: Table, setup: Setup, say: Say, *,
        symbols: bool = False, pace: float = 0.0, sleep: Callable[[float], None] = time.sleep,
        label: str | None = None, resume_args: str = "",
    ) -> None:
        self.path = path
        self.writer = writer
        self.table = table
        self.setup = setup
        self.say = say
        self.symbols = symbols  # suits as symbols (a terminal that shows them), letters otherwise
        self.pace = pace  # seconds before each bot move is shown
        self.sleep = sleep
        self.label = label  # "branch of GAME at seq N" for a branch: on every screen
        self.resume_args = resume_args  # what `--resume LOG` needs besides (a branch's --parent...)
        #: called after a hand's score sheet when another hand follows (a screen waits for a key
        #: there, so the sheet stays in view); None goes straight on, as line mode does
        self.between_hands: Callable[[], None] | None = None
        self._shown = -1  # next_seq when the screen was last shown to the human
        self._new: list[str] = []  # cards come into the human's hand since the last screen
        # melds laid or added to since the last screen: at first every meld on the table (a
        # resumed game or a branch starts mid-hand, and its first screen shows the whole table)
        self._melds: set[int] = set(range(len(table.state.melds)))
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
        self.writer.append(event, expected_seq=event.seq)  # the seq the table gave it, checked
        if isinstance(event, Note) and event.by == NOTE_BY:
            return  # a setup (seq 1, or a branch's): for --resume, not for the player
        player = getattr(event, "player", None)
        if player is not None and player in self.table.seats and self.pace > 0:
            self.sleep(self.pace)  # a bot's move, at a pace a person can follow
        text = visible(describe(event, state, state.players))  # names and notes come from the log
        mine = player == self.setup.human
        if self.setup.human < len(state.players) and state.players[self.setup.human] == DEFAULT_NAME:
            text = second_person(text, event, self.setup.human)
        if isinstance(event, Drew) and mine:
            text += f": {event.card}"
            self._new.append(event.card)
        elif isinstance(event, TookPile | TookDead) and mine:
            self._new.extend(event.cards)
        elif isinstance(event, Melded | LaidOff):
            self._melds.add(event.meld)
        elif isinstance(event, HandStarted):
            self._new, self._melds = [], set()
        self.say(Text(text))
        if isinstance(event, HandStarted) and event.commitment is not None:
            self.say(Text(f"deck fixed: commitment {short_hex(event.commitment)} (whole in the log); "
                          "salt at hand's end", style="bold"))
        elif isinstance(event, HandEnded) and event.salt is not None:
            path = visible(str(self.path))
            # the last hand ends the game: the whole log audits, with no --partial
            over = apply(state.copy(), event).phase == "game_end"
            self.say(Text(f"the deal's salt: {short_hex(event.salt)} (whole in the log); prove the deck was "
                          f"fixed before play: buraco audit {'' if over else '--partial '}{path}", style="bold"))

    def run(self, read: Reader) -> bool:
        """Play until the match is over (True) or the human quits or input ends (False)."""
        table = self.table
        while not table.over:
            event = table.step()  # the table's events and the bots' moves
            if event is not None:
                if isinstance(event, HandEnded):
                    self._sheet()  # the hands laid open and the RULES 7 score sheet
                    if self.between_hands is not None and table.state.phase == "deal":
                        self.between_hands()  # the sheet stays on screen until the human is ready
                continue
            if table.state.phase == "dead":
                self._take_dead()
            elif not self._prompt(read):
                return False
        self._result()
        return True

    def show(self) -> None:
        """Show the whole table as the human sees it: who is to play, the others' card counts,
        the hand, the pile, every meld, and the score sheet so far (`score_sheet`)."""
        self._say_label()
        state = self.state
        human = self.setup.human
        view = player_view(state, human)
        lines = [Text(f"{visible(view.variant)} · game {visible(view.game_id)} · {hand_words(view.hand)} · "
                      f"seq {view.seq} · to play: {self._name(view.to_play)}", style="bold")]
        for seat, hand in enumerate(view.hands):
            if seat != human:
                held = hand if isinstance(hand, int) else len(hand)
                side = "partner" if team_of(seat) == team_of(human) else "opponent"
                lines.append(Text(f"{visible(view.players[seat])} (seat {seat}, {side}): "
                                  f"{held} card{'s' if held != 1 else ''}"))
        lines.append(render_compact(view, melds=range(len(view.melds)), symbols=self.symbols))
        for i, dead in enumerate(view.deads):
            if dead.fate == "taken" and dead.taken_by is not None:
                lines.append(Text(f"dead {i} taken by {self._name(dead.taken_by)}"))
        self.say(Group(*lines, score_sheet(view, state.rules)))

    def _name(self, seat: int) -> str:
        """Return a seat's name as shown: `you` for the human, the name from the log otherwise."""
        return "you" if seat == self.setup.human else visible(self.state.players[seat])

    def _say_label(self) -> None:
        """Say what a branch is (`branch of GAME at seq N`) before each screen: never the game."""
        if self.label is not None:
            self.say(Text(visible(self.label), style="bold reverse"))

    def screen(self) -> None:
        """Show the compact screen: the hand with its new cards, the pile, the melds that changed."""
        self._say_label()
        view = player_view(self.state, self.setup.human, scores=False)
        self.say(render_compact(view, new=self._new, melds=self._melds, symbols=self.symbols))
        self._new, self._melds = [], set()
        self._shown = self.state.next_seq

    def _sheet(self) -> None:
        """Show a finished hand's score sheet and where the match stands."""
        state = self.state
        self._say_label()
        self.say(score_sheet(player_view(state, self.setup.human), state.rules))
        target = state.rules.target
        if state.rules.hands_per_game:
            totals = " · ".join(f"team {t} {v}" for t, v in enumerate(state.totals))
            self.say(Text(f"{state.rules.hands_per_game} hands: {totals} after "
                          f"{hands_count(len(state.hand_results))}", style="bold"))
        elif target:
            totals = " · ".join(f"team {t} {v}" for t, v in enumerate(state.totals))
            self.say(Text(f"match to {target}: {totals} after {hands_count(len(state.hand_results))}", style="bold"))

    def _take_dead(self) -> None:
        action = self.table.legal_actions()[0]  # RULES 4: the deads are face down, any will do
        self.say(Text("your hand is empty: a dead is taken for you", style="bold"))
        self.table.act(self.setup.human, action, advance=False)

    def _prompt(self, read: Reader) -> bool:
        """Show the screen if it changed, read one line and act on it; False when the human stops."""
        state = self.state
        if self._shown != state.next_seq:
            self.screen()
            self.say(Text(options_text(legal_actions(state)), style="bold"))
        line = read(state)
        if line is None:
            self.say(Text(f"end of input: the game stops here; {self.resume_hint()}"))
            return False
        try:
            command = parse_command(line)
        except CommandError as exc:
            self._reject(str(exc))
            return True
        if command is None:
            return True
        if command == "best":  # `.`: the hint's first line, told as the command it types
            command = self._best()
            self.say(Text(f". plays {action_command(arranged(command, state.rules))}", style="dim"))
        if isinstance(command, Action):
            try:
                self.table.act(self.setup.human, command, advance=False)
            except IllegalMove as exc:
                self._reject(refusal_text(exc, command, state))
            return True
        if command == "quit":
            self.say(Text(f"you quit; {self.resume_hint()}"))
            return False
        if command == "help":
            self.say(Text(HELP))
        elif command == "hint":
            self.say(Text(self._hint()))
        elif command == "show":
            self.show()
        elif command == "dead":
            self.say(Text("a dead is taken for you as soon as your hand empties"))
        return True

    def _hint(self) -> str:
        """Return the plays of the human's turn, the greedy bot's choice (from the human's view) first."""
        state = self.state
        actions = legal_actions(state)
        if not actions:
            return hint_text(actions)
        return hint_text(actions, state.rules, self._best())

    def _best(self) -> Action:
        """Return the greedy bot's choice for the human's turn, from the human's view: the first
        line of `hint`, and the move `.` plays (the prompt comes only when a move is legal)."""
        state = self.state
        view = player_view(state, self.setup.human, scores=False)
        # not logged: any fixed rng, the same for `hint` and `.`
        return GreedyBot().choose(view, legal_actions(state), state.rules, random.Random(state.next_seq))

    def _reject(self, reason: str) -> None:
        self.say(Text(visible(reason), style="red"))  # it may quote what was typed

    def resume_hint(self) -> str:
        """Return how to continue this game later."""
        path = visible(str(self.path))
        return f"the log {path} holds everything played: buraco play --resume {path}{visible(self.resume_args)}"

    def _result(self) -> None:
        self._say_label()
        for line in self.result_lines():
            self.say(line)

    def result_lines(self) -> list[Text]:
        """Return how the match ended, for the player: the result and totals, your team's
        first, and where the log is (the full-screen app prints them again once it closes)."""
        state = self.state
        winner = state.winner
        mine = team_of(self.setup.human)
        verdict = "a tie" if winner is None else "you win" if winner == mine else "you lose"
        theirs = 1 - mine
        score = f"{state.totals[mine]} to {state.totals[theirs]}"
        path = visible(str(self.path))
        return [
            Text(f"{verdict}, {score} after {hands_count(len(state.hand_results))} (your team is team {mine})",
                 style="bold"),
            Text(f"the log: {path} ({state.next_seq} events); check it with buraco audit {path}"),
        ]


def new_session(
    variant: str, players: int, seat: int, bots: list[str], seed: int, log: Path | None, say: Say,
    *, name: str = DEFAULT_NAME, target: int | None = None, symbols: bool = False, pace: float = 0.0,
    sleep: Callable[[float], None] = time.sleep, rules: dict[str, Any] | None = None,
) -> Session:
    """Start a game: write `game_started` and the setup note to a new log; raises SetupError.

    `rules` changes parameters of the preset's rules (`--rules`).

    `log` None is `./buraco-<game_id>.jsonl`; an existing log is refused. A bot `module:Class`
    is imported from `sys.path` (`bots.bot_spec`). Every deal is committed with a secret salt
    whose key is written to `key_path(log)` first."""
    try:
        variant_name = canonical_variant(variant)
    except UnknownVariant as exc:
        raise SetupError(f"--variant: {exc}") from None
    if players not in (2, 4):
        raise SetupError(f"--players: Buraco is for 2 or 4 players, got {players}")
    if not 0 <= seat < players:
        raise SetupError(f"--seat: seats are 0..{players - 1}, got {seat}")
    if not name.strip() or len(name) > MAX_NAME or visible(name) != name:
        raise SetupError(f"--name: give 1 to {MAX_NAME} printable characters, got {visible(name)!r}")
    if target is not None and target < 0:
        raise SetupError(f"--target: give 0 (one hand) or more points, got {target}")
    if pace < 0:
        raise SetupError(f"--pace: give 0 or more seconds, got {pace}")
    setup = Setup(seat, tuple(bot_kinds(bots, players)), seed, commit=True)
    try:
        bots_by_seat = setup.bot_seats(players)
    except ValueError as exc:
        raise SetupError(f"--bots: {exc}") from None
    game_id = play_game_id(variant_name, players, seed)
    path = log if log is not None else Path(f"buraco-{game_id}.jsonl")
    if path.exists():
        raise SetupError(f"{path} exists: continue it with buraco play --resume {path}, or choose another --log or --seed")
    try:
        start = start_event(variant_name, bot_names(name, players, seat), game_id, target, rules or None)
    except ValueError as exc:  # msgspec's validation errors too
        raise SetupError(f"--rules: {exc}") from None
    key = secrets.token_bytes(32)
    write_key(key_path(path), key)
    writer = open_log(path, fsync="event")
    table = Table(bots_by_seat, PositionSeeds(seed), salts=keyed_salts(key))
    session = Session(path, writer, table, setup, say, symbols=symbols, pace=pace, sleep=sleep)
    hands = start.rules.hands_per_game if start.rules is not None else 0
    match = (f", a tournament turn of {hands} hands" if hands else
             f", a match to {start.target}" if start.target else ", one hand")
    say(Text(f"new game {game_id}: {variant_name}, {players} players{match}, seed {seed}; "
             f"{you_are(name, seat)}; log {visible(str(path))}", style="bold"))
    session.table.append(start)
    session.table.append(setup.note())
    return session


def resume_session(
    path: Path, say: Say, *, parent: Path | None = None, seat: int | None = None,
    bots: list[str] | None = None, symbols: bool = False, pace: float = 0.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Session:
    """Reopen a game's log, replay it through the engine (checked) and return its session.

    A game of `buraco play`: the setup note gives the seats' bots and the seed; the key file
    beside the log gives the salts of the deals still to reveal (a missing key is said, and the
    game goes on). A branch (a log holding `branched`) goes on as `branch_table` says, with
    `parent`, `seat` and `bots`; they are refused for a game. Raises SetupError."""
    writer = open_log(path, create=False, fsync="event")
    try:
        table = Table()  # seats and chance come from the setup note, or the branch
        state = table.state
        events: list[Event] = []
        for _, _, event in read_log(path):
            try:
                table.append(event)
            except IllegalMove as exc:
                # a player reads it: the public reason, naming no card a seat cannot see
                raise SetupError(f"{path}: illegal event: {exc.public_text()}", 1) from None
            events.append(event)
        branched = branch_of(events)
        if branched is not None:
            setup, label, hint = branch_table(table, path, events, branched, parent=parent, seat=seat,
                                              bots=bots, say=say)
        else:
            given = [n for n, v in (("--parent", parent), ("--seat", seat), ("--bots", bots)) if v is not None]
            if given:
                raise SetupError(f"{', '.join(given)} with --resume: only for a branch (a log holding "
                                 f"branched); {path} is a game, set up as it was started")
            setup = _play_setup(table, path, events, say)
            label, hint = None, ""
        session = Session(path, writer, table, setup, say, symbols=symbols, pace=pace, sleep=sleep,
                          label=label, resume_args=hint)
    except BaseException:
        writer.close()
        raise
    what = f"the {visible(label)}, now" if label is not None else f"game {visible(state.game_id)}"
    say(Text(f"resumed {what} at seq {state.next_seq - 1} ({hand_words(state.hand_no)}); "
             f"{you_are(state.players[setup.human], setup.human)}", style="bold"))
    return session


def _play_setup(table: Table, path: Path, events: list[Event], say: Say) -> Setup:
    """Set a resumed game of `buraco play` up from its setup note: bots, chance, salts."""
    state = table.state
    if len(events) < 2:
        raise SetupError(f"{path}: no setup note at seq 1: this log was not started by buraco play")
    setup = Setup.from_note(events[1], state.n_players)
    try:
        table.seats = setup.bot_seats(state.n_players)
    except ValueError as exc:
        raise SetupError(f"{path}: the setup note at seq 1: {exc}") from None
    table.rng = PositionSeeds(setup.seed)
    if setup.commit:
        key = read_key(key_path(path))
        if key is not None:
            table.salts = keyed_salts(key)
        elif not table.over:
            say(Text(f"{visible(str(key_path(path)))} is missing: the salts of this game's deals "
                     "cannot be revealed, so the audit will report them", style="red"))
    return setup


def branch_session(
    parent: Path, at: int, out: Path, say: Say, *, seat: int, bots: list[str] | None = None,
    by: str, reason: str, seed: str = "1", symbols: bool = False, pace: float = 0.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Session:
    """Fork `parent` after its seq `at` into the new log `out` and return the session that plays
    it by hand: the parent's lines `0..at` as stored and the `branched` line are written first
    (a file that exists is never replaced: SetupError), then the branch's setup note (the human
    at `seat`, `bots` at the others, greedy by default) and every event as it is played. The
    deals are the parent's where it recorded them (its key file gives the salts it never
    revealed), else from `seed`. Raises SetupError for a fork that cannot be made."""
    key = read_key(key_path(parent))
    try:
        read = read_parent(parent)
        table, lines = start_branch(read, at, by=by, reason=reason, seed=seed, key=key)
    except BranchError as exc:
        raise SetupError(str(exc), exc.exit_code) from None
    state = table.state
    n = state.n_players
    if not 0 <= seat < n:
        raise SetupError(f"--seat: seats are 0..{n - 1}, got {seat}")
    setup = Setup(seat, tuple(bot_kinds(bots or ["greedy"], n)), 0)
    try:
        table.seats = setup.bot_seats(n)
    except ValueError as exc:
        raise SetupError(f"--bots: {exc}") from None
    try:
        place(out, b"".join(line + b"\n" for line in lines))
    except FileExistsError:
        raise SetupError(f"{out} exists: a branch never replaces a file", 2) from None
    writer = open_log(out, create=False, fsync="event")
    branched = decode_event(lines[-1])
    assert isinstance(branched, Branched)
    label = branch_words(branched.parent, branched)
    session = Session(out, writer, table, setup, say, symbols=symbols, pace=pace, sleep=sleep,
                      label=label, resume_args=f" --parent {parent}")
    try:
        say(Text(f"{visible(label)}: a new branch, log {visible(str(out))}; "
                 f"{you_are(state.players[seat], seat)}", style="bold"))
        table.append(setup.branch_note(state.next_seq))
    except BaseException:
        writer.close()
        raise
    return session
