"""A table's game: played by bots from its pairing, and a game log bound to its table.

`table_players` is the one place a pairing becomes seats: team 0 is the first entry (in pairs,
seats 0 and 2). `play_table` plays a table's game with bots, dealing from the pairing's `seed`
(`TableSeeds`: with duplicate deals every table of a round has the same seed, so the same
`hand_started` cards), the bots deciding from the seed and the game id. `verify_log` is what a
result rests on: the log audits clean and complete, is no branch, has the table's `game_id`,
players, seats and variant, and its totals are recounted from its hands; a failure is one line.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from buraco_events.audit.auditor import audit_lines
from buraco_events.audit.report import headline
from buraco_events.bots.registry import bot_by_name, bot_spec, table_bots
from buraco_events.core.table import Table
from buraco_events.log.atomic import place
from buraco_events.log.lines import LogError, RawLines, decode_line, os_reason
from buraco_events.log.writer import write_log
from buraco_events.model.events import GameStarted
from buraco_events.model.rules import canonical_variant, find_rules, rules_dict
from buraco_events.util.text import visible

from .events import PairedTable, TournamentStarted
from .scale import victory_points
from .state import EntryState, TournamentError

#: the largest game log a result is bound to (a long game is a few hundred KB)
MAX_GAME_LOG = 64 * 1024 * 1024


class TableSeeds:
    """A table's chance: hand N dealt from the pairing's seed and N alone (the same seed, the same
    deals; a live table resumed after a restart deals on as the uninterrupted one would), bot
    decisions from the seed and the game id (so tables with the same deals still differ)."""

    seed: int | None = None

    def __init__(self, seed: str, game_id: str) -> None:
        self.text = seed
        self._bots = random.Random(f"bots/{seed}/{game_id}")

    def deal_rng(self, hand: int) -> random.Random:
        """Return the rng that deals hand `hand` (0-based): `tournament play` and `buraco serve
        --tournament` deal a table from here alike."""
        return random.Random(f"deal/{self.text}/{hand}")

    def seat_rng(self, seq: int) -> random.Random:
        """Return the bots' stream."""
        return self._bots


def table_players(form: str, first: EntryState, second: EntryState) -> list[str]:
    """Return the players of a table in seat order: team 0 is `first` (pairs: seats 0 and 2)."""
    if form == "pairs":
        return [first.players[0], second.players[0], first.players[1], second.players[1]]
    return [first.players[0], second.players[0]]


def entry_bot(bots: Sequence[str], entry: int) -> str:
    """Return the bot that plays for `entry`: the names given go round the entries in order."""
    return bots[(entry - 1) % len(bots)]


def check_bots(bots: Sequence[str]) -> list[str]:
    """Return the bot names, each checked (raises `TournamentError` naming an unknown one)."""
    if not bots:
        raise TournamentError("--bots: give at least one bot name", 2)
    names = []
    for name in bots:
        try:
            bot_by_name(name)
        except (ValueError, ImportError, AttributeError) as exc:
            raise TournamentError(f"--bots: {exc}", 2) from None
        names.append(bot_spec(name))
    return names


@dataclass(frozen=True)
class TableGame:
    """What a table's game is, whoever plays it: its id, the seed that deals it, the variant and
    rules, and the players in seat order (`table_players`)."""

    game_id: str
    seed: str
    variant: str
    rules: dict[str, object] | None
    players: list[str]


def table_game(info: TournamentStarted, table: PairedTable, entries: dict[int, EntryState]) -> TableGame:
    """Return the game a paired table plays (`tournament play`'s bots or a live server's people)."""
    first, second = (entries[e] for e in table.entries)
    return TableGame(table.game_id, table.seed, info.variant,
                     dict(info.rules) if info.rules else None, table_players(info.form, first, second))


@dataclass(frozen=True)
class TableJob:
    """What a worker needs to play one table (it pickles)."""

    path: str
    variant: str
    rules: dict[str, object] | None
    game_id: str
    seed: str
    players: list[str]
    bots: list[str]  # one per seat


def play_table(job: TableJob) -> tuple[str, str]:
    """Play a table's game with bots and write its sealed log; return (path, head). The same
    job gives the same bytes in any process; an existing log with other bytes is kept (refused)."""
    seats = table_bots(job.bots)  # the greedy seats of one table share their game's memory
    events: list = []
    table = Table.start(job.variant, job.players, game_id=job.game_id, seats=seats,
                        rng=TableSeeds(job.seed, job.game_id), overrides=job.rules,
                        record=events.append)
    table.run()
    return job.path, write_log(job.path, events, exist_ok=True)


def table_job(info: TournamentStarted, table: PairedTable, entries: dict[int, EntryState],
              bots: Sequence[str], folder: Path) -> TableJob:
    """Return the job of playing `table` with `bots` (one per entry, see `entry_bot`)."""
    game = table_game(info, table, entries)
    per_entry = [entry_bot(bots, e) for e in table.entries]
    seat_bots = [per_entry[seat % 2] for seat in range(len(game.players))]
    return TableJob(str(folder / f"{game.game_id}.jsonl"), game.variant, game.rules, game.game_id,
                    game.seed, game.players, seat_bots)


@dataclass(frozen=True)
class Verdict:
    """A game log judged against its table: `problem` None when a result may rest on it."""

    path: str
    head: str | None
    totals: tuple[int, int] | None
    problem: str | None
    data: bytes = b""  # the log's bytes as read (`record` keeps a copy beside the tournament)

    @property
    def ok(self) -> bool:
        """Return whether the log is the table's finished, clean game."""
        return self.problem is None


def read_game(path: Path) -> bytes:
    """Return a game log's bytes; raises `TournamentError` (2) when it cannot be read."""
    try:
        size = path.stat().st_size
        if size > MAX_GAME_LOG:
            raise TournamentError(f"{path}: {size:,} bytes: larger than a game log may be", 2)
        return path.read_bytes()
    except OSError as exc:
        raise TournamentError(f"{path}: cannot read: {os_reason(exc)}", 2) from None


def game_id_of(data: bytes, name: str) -> str:
    """Return the game id of a log's first line; raises `TournamentError` when it has none."""
    first = data.split(b"\n", 1)[0]
    try:
        event = decode_line(first, 1, name)
    except LogError as exc:
        raise TournamentError(str(exc), 2) from None
    if not isinstance(event, GameStarted):
        raise TournamentError(f"{name}: line 1: field type: a game log starts with game_started", 2)
    return event.game_id


def verify_log(data: bytes, name: str, info: TournamentStarted, table: PairedTable,
               entries: dict[int, EntryState]) -> Verdict:
    """Judge a game log's bytes against its table (see the module's doc)."""
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" after a final newline, else a torn last line
    audit = audit_lines(RawLines(name, lines, tail), name)
    report = audit.report

    def refused(problem: str) -> Verdict:
        return Verdict(name, report.head, None, problem, data)

    if audit.not_a_log:
        return refused(f"{name}: not a game log: {audit.not_a_log}")
    if not report.ok:
        return refused(f"{name}: the audit fails: {headline(report) or 'problems found'}")
    if not report.complete:
        return refused(f"{name}: unfinished (no game_ended): a result needs the whole game")
    if report.branch is not None:
        return refused(f"{name}: a branch (a what-if log) is never the game")
    if not report.sealed:
        return refused(f"{name}: unsealed (no prev chain): its head would not seal it")
    started = game_started(lines, name)
    if started.game_id != table.game_id:
        return refused(f"{name}: field game_id: {visible(started.game_id)!r} is not table "
                       f"{table.table}'s game ({table.game_id!r})")
    first, second = (entries[e] for e in table.entries)
    want = table_players(info.form, first, second)
    if list(started.players) != want:
        return refused(f"{name}: field players: {visible(', '.join(started.players))} are not the "
                       f"table's seats ({', '.join(want)}: team 0 is entry {first.entry})")
    if canonical_variant(started.variant) != canonical_variant(info.variant):
        return refused(f"{name}: field variant: {visible(started.variant)!r}, the tournament plays "
                       f"{info.variant!r}")
    if info.rules and started.rules is not None:
        played = rules_dict(started.rules)
        wanted = rules_dict(find_rules(info.variant, **info.rules))
        differ = sorted(k for k in wanted if played.get(k) != wanted[k])
        if differ:
            return refused(f"{name}: field rules: {differ[0]} is {played.get(differ[0])!r}, the "
                           f"tournament's is {wanted[differ[0]]!r}")
    totals = (sum(h.scores[0] for h in report.hands), sum(h.scores[1] for h in report.hands))
    return Verdict(name, report.head, totals, None, data)


def game_started(lines: list[bytes], name: str) -> GameStarted:
    """Return the `game_started` of an audited log's lines."""
    event = decode_line(lines[0], 1, name)
    assert isinstance(event, GameStarted)  # the audit passed: line 1 is game_started
    return event


def result_points(verdict: Verdict, info: TournamentStarted) -> tuple[int, int]:
    """Return the victory points of a clean verdict's totals on the tournament's scale."""
    assert verdict.totals is not None
    return victory_points(verdict.totals, info.vp_scale)


def verify_file(path: Path, info: TournamentStarted, table: PairedTable,
                entries: dict[int, EntryState]) -> Verdict:
    """`verify_log` of a file; a missing or unreadable file is a verdict with its problem."""
    try:
        data = read_game(path)
    except TournamentError as exc:
        return Verdict(str(path), None, None, str(exc))
    return verify_log(data, str(path), info, table, entries)


def table_seed(tournament_id: str, round_no: int, table: int | None) -> str:
    """Return the seed that deals a table's game (`table` None: the round's, for duplicate deals)."""
    key = f"{tournament_id}/r{round_no}" + ("" if table is None else f"/t{table}")
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def keep_copy(folder: Path, game_id: str, data: bytes) -> Path:
    """Keep a recorded game's log as `folder/GAME_ID.jsonl` (the tournament's games); an existing
    file with other bytes is refused, never replaced."""
    target = folder / f"{game_id}.jsonl"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        place(target, data)  # written aside, synced, then linked: whole or not at all
    except FileExistsError:
        if target.read_bytes() != data:
            raise TournamentError(f"{target}: exists with other bytes (a game log is never "
                                  "replaced); record the log that is there") from None
    except OSError as exc:
        raise TournamentError(f"{target}: cannot write: {os_reason(exc)}", 2) from None
    return target


__all__ = ["TableGame", "TableJob", "TableSeeds", "Verdict", "check_bots", "entry_bot", "game_id_of", "keep_copy",
           "play_table", "read_game", "result_points", "table_game", "table_job", "table_players",
           "table_seed", "verify_file", "verify_log"]
