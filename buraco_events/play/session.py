"""A game of Buraco against bots, each action sealed in its log as it happens (the shell of `buraco play`).

A `Session` drives a `table.Table`: every event (the table's deals, refills and hand ends, the
bots' moves and the human's) is checked by the engine, appended to the log (one write and one
fsync per line) and only then told through the session's `say`, so a crash, a kill or an
interrupt leaves a valid log of everything played so far. The human's lines come from a `read`
callable; a bad line gets a one-line reason through `say` and nothing is written for it. There is
no undo. The caller owns the terminal: `say` and `read` are all the I/O with the player.

The setup note: the line after `game_started` is a `note` by "buraco play" (`NOTE_BY`) holding
the setup as JSON, `{"human": 0, "bots": ["greedy"], "seed": 7, "commit": true}` (`bots` names
the bot of each other seat, in seat order; `commit`: the deals are committed). `Setup.note`
writes it, `Setup.from_note` reads it back; it is not shown to the player. The game's chance is
`seeds.PositionSeeds(seed)`: it depends only on that seed and the position in the game, so
`resume_session` continues exactly as an uninterrupted session with the same input would. Logs
carry no `at` times, so the same seed and input give the same bytes.

The key file: every deal carries a commitment (`log/commit.py`), shown before the hand's first move;
the hand's `hand_ended` reveals the salt and `buraco audit` proves the deck was fixed before play.
The salts are secret (`commit.keyed_salts` under a random key kept in `key_path(log)`, `LOG.key`,
beside the log and never in it, readable by its owner only), not derived from the seed: the seed
is printed and written in the setup note, so a salt drawn from it could be worked out by anyone,
and a commitment is only worth something while its salt cannot be guessed. The key file lets a
resumed game reveal the salts the interrupted one committed to; without it a hand's salt is lost
and the audit says so.

Branches (`play.branch`): `resume_session` continues a branch (a log holding `branched`) by hand
and `branch_session` forks a log into a new branch played by hand (the replay viewer's `b`). Who
plays a branch is its own setup note (a `note` by "buraco play" right after `branched`, without a
seed), else its parent's at seq 1, else `--seat`/`--bots`; its chance is `seeds.BranchSeeds` of
the `branched` line's seed; the hands the parent recorded are dealt from the parent's log
(`branch.ParentDeck`, with the salts of the parent's key file), and never from anything else:
without the parent's log the next deal stops the session. Every screen of a branch starts with
"branch of GAME at seq N" (`events.branch_words`), so it is never taken for the game.

What the player is told: each event in words as it happens (bots' moves `pace` seconds apart),
and at each prompt a compact screen (`render.render_compact`: the hand by suit with the new cards
marked, the pile, the melds that changed; the first screen of a resumed game or a branch shows
every meld on the table); `show` tells the whole table and the score so far, `hint` the plays in
reading order with the greedy bot's choice first, and `.` plays that choice. A refused move is
told in the player's words (`commands.refusal_text`). The default name "you" is told in the
second person (`second_person`: "you play first"). The score sheet (`score_sheet`) says when its
figures are provisional (during a hand) and shows each row once. A match goes on hand after
hand to the target, with the score sheet after each hand.

Choices made here: a dead is taken automatically (the lowest one left) the moment the human's hand
empties, and the session says so; a game's id is `play-<variant>-<n>p-s<seed>`, and its default
log `./buraco-<game_id>.jsonl` is never appended to by a new game (resume it instead). The
messages of `SetupError` name the `buraco play` option at fault (`--seat: ...`).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table as Grid
from rich.text import Text

from buraco_events.core.bots import Bot, GreedyBot, bot_by_name, bot_spec, share_context
from buraco_events.core.cards import team_of
from buraco_events.core.choices import Action, legal_actions
from buraco_events.core.gate import IllegalMove
from buraco_events.core.seeds import BranchSeeds, PositionSeeds
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
    GameEnded,
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
from buraco_events.model.rules import Rules, UnknownVariant, canonical_variant
from buraco_events.model.scoring import HAND_TOTAL, SHEET_ROWS
from buraco_events.model.views import View
from buraco_events.views.projections import describe, player_view
from buraco_events.views.render import render_compact
from buraco_events.views.text import hand_words, visible

from .branch import BranchError, ParentDeck, read_parent, start_branch
from .commands import (
    HELP,
    CommandError,
    action_command,
    arranged,
    hint_text,
    options_text,
    parse_command,
    refusal_text,
)

#: the `note.by` of the setup line
NOTE_BY = "buraco play"
#: the player's name in the log unless `--name` gives one
DEFAULT_NAME = "you"
#: the bots' names in the log, by seat (one that clashes with the player's gets its seat number)
BOT_NAMES = ("Ana", "Bruno", "Carla", "Davi")
#: the longest `--name`
MAX_NAME = 40

#: where the human's lines come from; gets the live state (for test auto-pilots), None = end of input
Reader = Callable[[GameState], str | None]
#: where the session's output goes
Say = Callable[[RenderableType], None]


class SetupError(ValueError):
    """A game that cannot be started or resumed; its str is one line, `exit_code` the commands'
    exit code (2: bad options, or a log that is not a game of buraco play; 1: a problem in the log)."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True, slots=True)
class Setup:
    """What a session needs beyond the events: the human's seat, the bots, the seed."""

    human: int
    bots: tuple[str, ...]  # bot name of each other seat, in seat order
    seed: int
    commit: bool = False  # every deal is committed (a note without `commit`: none is)

    def note(self) -> Note:
        """Return the note that records the setup (seq 1, right after `game_started`)."""
        doc: dict[str, object] = {"human": self.human, "bots": list(self.bots), "seed": self.seed}
        if self.commit:
            doc["commit"] = True
        return Note(seq=1, by=NOTE_BY, text=json.dumps(doc))

    def branch_note(self, seq: int) -> Note:
        """Return the note that records who plays a branch played by hand (right after its
        `branched` line): the human's seat and the bots, no seed (the branch's chance is the
        seed of its `branched` line)."""
        return Note(seq=seq, by=NOTE_BY, text=json.dumps({"human": self.human, "bots": list(self.bots)}))

    @staticmethod
    def from_note(event: Event, n_players: int) -> Setup:
        """Return the setup a log's setup note records (at seq 1, or a branch's after its
        `branched` line, which has no seed); raises `SetupError` if it is not one."""
        if not isinstance(event, Note) or event.by != NOTE_BY:
            raise SetupError(f"seq 1 is not the {NOTE_BY!r} setup note: this log was not started by buraco play")
        try:
            doc = json.loads(event.text)
            seed = int(doc["seed"]) if event.seq == 1 else 0
            setup = Setup(int(doc["human"]), tuple(str(b) for b in doc["bots"]), seed,
                          doc.get("commit") is True)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise SetupError(f"the setup note at seq {event.seq} does not read: {exc}") from None
        if not 0 <= setup.human < n_players or len(setup.bots) != n_players - 1:
            raise SetupError(f"the setup note at seq {event.seq} does not fit a {n_players}-player game")
        return setup

    def bot_seats(self, n_players: int) -> dict[int, Bot]:
        """Return a new bot for each seat but the human's, the greedy ones sharing one game
        context (`bots.share_context`); raises ValueError for an unknown bot."""
        seats = [s for s in range(n_players) if s != self.human]
        bots = {s: bot_by_name(name) for s, name in zip(seats, self.bots, strict=True)}
        share_context(bots.values())
        return bots


def _hands(n: int) -> str:
    return "1 hand" if n == 1 else f"{n} hands"


def second_person(text: str, event: Event, human: int) -> str:
    """Return an event told in words (`describe`, third person) with the verbs of the human's
    own moves agreeing with "you" (the default name): `you play first`, `you win`, `you take a
    dead`. The words of other seats, and of a human with a name of their own, stay as told."""
    if isinstance(event, HandStarted) and event.first == human:
        return text.replace("; you plays first", "; you play first", 1)
    if isinstance(event, GameEnded):
        return text.replace("game over: you wins", "game over: you win", 1)
    if getattr(event, "player", None) == human:
        return (text.replace(": takes a dead", ": you take a dead", 1)
                .replace("; plays on", "; you play on", 1))
    return text


def you_are(name: str, seat: int) -> str:
    """Return who the human is at the table: `you are seat 0 (team 0)`, the name first when it
    is not the default (`you are Maria, seat 0 (team 0)`)."""
    who = "" if name == DEFAULT_NAME else f"{visible(name)}, "
    return f"you are {who}seat {seat} (team {team_of(seat)})"


def score_sheet(view: View, rules: Rules) -> RenderableType:
    """Return the RULES 7 score sheet of the view's hand as a player reads it.

    During the hand the figures are what the hand would score if it ended now: the sheet says
    so above it, the dead row counts the penalty of a dead not taken (yet), and the cards held
    are counted only at the end. Each row appears once: a hand's total, then, when hands came
    before it, the total before it and the total with it (in a one-hand game the hand's total is
    the game's)."""
    playing = view.phase in ("draw", "play", "dead")
    sheet = view.hand_scores
    yours = team_of(view.seat) if view.seat is not None else None
    table = Grid(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column(hand_words(view.hand) if view.hand >= 0 else "scores")
    for team in (0, 1):
        table.add_column(f"team {team}" + (" (you)" if team == yours else ""), justify="right")
    if sheet:
        for key, name in SHEET_ROWS:
            if key == "hand_penalty" and not view.hands_counted:
                table.add_row(name, *(Text("at the end", style="dim") for _ in sheet))
            elif key == "dead_penalty" and playing:
                # charged only if the hand ended now: the dead may still be taken
                table.add_row(f"{name} if it ended now", *(str(s.dead_penalty) for s in sheet))
            else:
                table.add_row(name, *(str(getattr(s, key)) for s in sheet))
        table.add_row(Text(f"{HAND_TOTAL} so far" if playing else HAND_TOTAL, style="bold"),
                      *(Text(str(s.total), style="bold") for s in sheet))
    totals = tuple(view.totals)
    before = totals if playing or not sheet else tuple(t - s.total for t, s in zip(totals, sheet, strict=True))
    if any(before) or view.hand > 0 or not sheet:
        table.add_row("before this hand", *(str(t) for t in before))
        table.add_row(Text("if it ended now" if playing else "total", style="bold"),
                      *(Text(str(t), style="bold") for t in view.scores))
    if not playing:
        return table
    told = Text(f"provisional, as if the hand ended now: a team that has not taken its dead loses "
                f"{rules.no_dead_penalty}; the cards still in hand are counted at the end", style="dim")
    return Group(told, table)


def play_game_id(variant: str, players: int, seed: int) -> str:
    """Return the id of the game a seed starts (the default log is `buraco-<id>.jsonl`)."""
    return f"play-{variant}-{players}p-s{seed}"


def key_path(log: Path) -> Path:
    """Return where a game's secret salt key is kept: beside its log, never in it."""
    return log.with_name(log.name + ".key")


def write_key(path: Path, key: bytes) -> None:
    """Write a game's salt key, readable by its owner only, synced before any deal uses it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, key.hex().encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)


def read_key(path: Path) -> bytes | None:
    """Return a game's salt key, or None when its file is missing or does not read."""
    try:
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        return None


def bot_names(human: str, players: int, seat: int) -> list[str]:
    """Return the names of the seats in order: `human` at `seat`, the bots from `BOT_NAMES`."""
    names = []
    for s in range(players):
        bot = BOT_NAMES[s] if BOT_NAMES[s].casefold() != human.casefold() else f"{BOT_NAMES[s]}-{s}"
        names.append(human if s == seat else bot)
    return names


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
            self.say(Text(f"deal commitment {event.commitment}: the deck is fixed; "
                          "its salt comes when the hand ends", style="bold"))
        elif isinstance(event, HandEnded) and event.salt is not None:
            path = visible(str(self.path))
            self.say(Text(f"the deal's salt: {event.salt}; prove the deck was fixed before play: "
                          f"buraco audit --partial {path}", style="bold"))

    def run(self, read: Reader) -> bool:
        """Play until the match is over (True) or the human quits or input ends (False)."""
        table = self.table
        while not table.over:
            event = table.step()  # the table's events and the bots' moves
            if event is not None:
                if isinstance(event, HandEnded):
                    self._sheet()  # the hands laid open and the RULES 7 score sheet
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
        if target:
            totals = " · ".join(f"team {t} {v}" for t, v in enumerate(state.totals))
            self.say(Text(f"match to {target}: {totals} after {_hands(len(state.hand_results))}", style="bold"))

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
            Text(f"{verdict}, {score} after {_hands(len(state.hand_results))} (your team is team {mine})",
                 style="bold"),
            Text(f"the log: {path} ({state.next_seq} events); check it with buraco audit {path}"),
        ]


def new_session(
    variant: str, players: int, seat: int, bots: list[str], seed: int, log: Path | None, say: Say,
    *, name: str = DEFAULT_NAME, target: int | None = None, symbols: bool = False, pace: float = 0.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Session:
    """Start a game: write `game_started` and the setup note to a new log; raises SetupError.

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
    kinds = [bot_spec(b) for b in bots]
    if len(kinds) == 1:
        kinds *= players - 1
    if len(kinds) != players - 1:
        raise SetupError(f"--bots: give 1 bot name or one per other seat ({players - 1}), got {len(bots)}")
    setup = Setup(seat, tuple(kinds), seed, commit=True)
    try:
        bots_by_seat = setup.bot_seats(players)
    except ValueError as exc:
        raise SetupError(f"--bots: {exc}") from None
    game_id = play_game_id(variant_name, players, seed)
    path = log if log is not None else Path(f"buraco-{game_id}.jsonl")
    if path.exists():
        raise SetupError(f"{path} exists: continue it with buraco play --resume {path}, or choose another --log or --seed")
    start = start_event(variant_name, bot_names(name, players, seat), game_id, target)
    key = secrets.token_bytes(32)
    write_key(key_path(path), key)
    writer = open_log(path, fsync="event")
    table = Table(bots_by_seat, PositionSeeds(seed), salts=keyed_salts(key))
    session = Session(path, writer, table, setup, say, symbols=symbols, pace=pace, sleep=sleep)
    match = f", a match to {start.target}" if start.target else ", one hand"
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


def branch_table(
    table: Table, path: Path, events: list[Event], branched: Branched, *, parent: Path | None,
    seat: int | None, bots: list[str] | None, say: Say,
) -> tuple[Setup, str, str]:
    """Set a resumed branch's table up: who plays, its chance, its deals; return the setup, the
    branch's label (`branch_words`) and the options `--resume` needs again.

    Who plays: `seat` and `bots` when given (a branch of a game not started by buraco play has
    no setup note: `seat` is needed), else the branch's own setup note (after `branched`) or its
    parent's at seq 1; `bots` defaults to the note's, else greedy. Chance: `BranchSeeds` of the
    `branched` line's seed, for the deals the parent never recorded and for the bots. A `deck:
    parent` branch deals the parent's recorded hands (`ParentDeck`, from `parent`'s lines and
    its key file `key_path(parent)`): without `parent`, the next deal stops the session with a
    `SetupError` (2) asking for it rather than deal a hand the parent may have dealt otherwise.
    """
    state = table.state
    n = state.n_players
    label = branch_words(branched.parent, branched)
    notes = [e for e in events if isinstance(e, Note) and e.by == NOTE_BY and (e.seq == 1 or e.seq > branched.seq)]
    noted = Setup.from_note(notes[-1], n) if notes else None
    if seat is not None and not 0 <= seat < n:
        raise SetupError(f"--seat: seats are 0..{n - 1}, got {seat}")
    human = seat if seat is not None else noted.human if noted is not None else None
    if human is None:
        raise SetupError(f"{path} ({label}): no setup note (the game was not started by buraco play): "
                         "say which seat you play with --seat N (the others' bots with --bots)")
    if bots is not None:
        kinds = [bot_spec(b) for b in bots]
        kinds = kinds * (n - 1) if len(kinds) == 1 else kinds
        if len(kinds) != n - 1:
            raise SetupError(f"--bots: give 1 bot name or one per other seat ({n - 1}), got {len(bots)}")
    elif noted is not None and noted.human == human:
        kinds = list(noted.bots)
    else:
        kinds = ["greedy"] * (n - 1)
    setup = Setup(human, tuple(kinds), 0)
    try:
        table.seats = setup.bot_seats(n)
    except ValueError as exc:
        raise SetupError(f"--bots: {exc}") from None
    table.rng = BranchSeeds(branched.seed)
    hint = ""
    if branched.deck == "parent":
        if parent is not None:
            deck = parent_deck(path, branched, parent)
            table.deals, table.salts = deck.deal, deck.salt
            hint = f" --parent {parent}"
        else:
            table.deals = _ask_for_parent(path, branched)
            hand = next((e for e in reversed(events) if isinstance(e, HandStarted)), None)
            if hand is not None and hand.commitment is not None and state.phase not in ("deal", "over"):
                say(Text(f"the salt of {hand_words(hand.hand)}'s deal is the parent's: without --parent it "
                         "cannot be revealed, so the audit will report it", style="red"))
    if seat is not None and (noted is None or noted.human != seat):
        hint += f" --seat {seat}"
    if bots is not None:
        hint += f" --bots {','.join(bots)}"
    return setup, label, hint


def parent_deck(path: Path, branched: Branched, parent: Path) -> ParentDeck:
    """Return the deck of a branch's parent: its recorded deals, and the salts it revealed or its
    key file holds. Raises `SetupError` (2) for a parent that does not read or is not the
    branch's: its lines up to the fork must be the branch's, byte for byte."""
    try:
        read = read_parent(parent)
    except BranchError as exc:
        raise SetupError(f"--parent: {exc}", 2) from None
    fork = branched.fork_seq
    mine = path.read_bytes().split(b"\n")[:fork + 1]
    if read.lines[:fork + 1] != mine:
        first = next((i for i, (a, b) in enumerate(zip(read.lines, mine, strict=False)) if a != b),
                     min(len(read.lines), len(mine)))
        raise SetupError(f"--parent: {parent} is not the parent of {path}: its line at seq {first} "
                         f"differs (the branch's lines 0..{fork} are its parent's)", 2)
    return ParentDeck(read.events, read_key(key_path(parent)))


def _ask_for_parent(path: Path, branched: Branched) -> Callable[[GameState], HandStarted | None]:
    """Return a deal source that stops the session at the next deal: it is the parent's to give."""

    def deal(state: GameState) -> HandStarted | None:
        raise SetupError(
            f"{path}: {hand_words(state.hand_no + 1)} of this {branch_words(branched.parent, branched)} is "
            f"dealt as its parent recorded it: pass the parent's log with --parent PARENT.jsonl", 2)

    return deal


def branch_file(log: Path, seq: int) -> Path:
    """Return a new file name for a branch of `log` at `seq`: `LOG-branch-SEQ.jsonl` beside the
    log (in the working folder when the log's folder is not writable, or the log is in an
    archive), with `-2`, `-3`... added
    rather than name a file that exists."""
    folder = log.parent if log.parent.is_dir() and os.access(log.parent, os.W_OK) else Path.cwd()
    stem = log.name[:-len(".jsonl")] if log.name.endswith(".jsonl") else log.name
    name = f"{stem}-branch-{seq}"
    path = folder / f"{name}.jsonl"
    n = 1
    while path.exists() or key_path(path).exists():
        n += 1
        path = folder / f"{name}-{n}.jsonl"
    return path


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
    kinds = [bot_spec(b) for b in (bots or ["greedy"])]
    kinds = kinds * (n - 1) if len(kinds) == 1 else kinds
    if len(kinds) != n - 1:
        raise SetupError(f"--bots: give 1 bot name or one per other seat ({n - 1}), got {len(kinds)}")
    setup = Setup(seat, tuple(kinds), 0)
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
