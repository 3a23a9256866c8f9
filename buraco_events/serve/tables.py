"""The tables of a server: made on request, loaded from `--dir` at start (a shell module).

`Tables` holds every table of the folder: the unfinished ones live (`live.LiveTable`, resumed from
their logs: their bots move on), the finished ones as their public facts only (`Ended`), folded
from their log again while someone watches one. A request for a new table (`NewTable`, the body
of `POST /api/tables`) is checked whole before any file is written; its answer holds each human
seat's token, which exists nowhere else afterwards (the meta file keeps its SHA-256).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from buraco_events.bots.registry import bot_by_name, share_memory
from buraco_events.core.gate import IllegalMove
from buraco_events.core.seeds import PositionSeeds
from buraco_events.core.table import Bot, DealSource, Table, start_event
from buraco_events.log.commit import keyed_salts
from buraco_events.log.lines import LogError
from buraco_events.log.sources import read_log
from buraco_events.log.writer import open_log
from buraco_events.model.events import GameEnded, GameStarted, HandEnded, decode_event
from buraco_events.model.rules import PRESETS, UnknownVariant, canonical_variant
from buraco_events.play.setup import BOT_NAMES
from buraco_events.tournament.games import TableSeeds
from buraco_events.util.text import visible

from .live import LiveTable, TableOptions, now_rfc3339
from .store import (
    StoreError,
    TableMeta,
    deal_seed,
    log_path,
    meta_path,
    new_key,
    new_table_id,
    read_meta,
    table_ids,
    table_key,
    token_hash,
    write_meta,
)

log = logging.getLogger("buraco_events.serve")

#: the longest player name
MAX_NAME = 40
#: the highest target a request may set (a match longer than the table's bound never ends)
MAX_TARGET = 100_000
#: the longest tournament turn a table may be set up for (RULES 8: 3 or 4 are usual)
MAX_HANDS = 20


class Refused(ValueError):
    """A request the server refuses; its str is the one line of the answer's `error`, `status`
    its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class NewTable(msgspec.Struct, forbid_unknown_fields=True):
    """The body of `POST /api/tables`."""

    variant: str = "stbl"
    players: int = 4
    bots: dict[str, str] = {}
    names: dict[str, str] = {}
    rules: dict[str, Any] = {}
    target: int | None = None
    hands_per_game: int | None = None


@dataclass(frozen=True, slots=True)
class Ended:
    """A finished table's public facts (its log holds the rest)."""

    meta: TableMeta
    variant: str
    players: tuple[str, ...]
    hand: int
    totals: tuple[int, ...]

    def summary(self) -> dict[str, Any]:
        """Return the table as the lobby lists it."""
        return {
            "table_id": self.meta.table_id, "variant": self.variant, "players": list(self.players),
            "bots": dict(self.meta.bots), "status": "ended", "hand": self.hand, "totals": list(self.totals),
            "created": self.meta.created,
        }


class PairedChance:
    """A tournament table's chance: its hands dealt from the pairing's seed exactly as `tournament
    play` deals them (`TableSeeds`), the clock's greedy moves from the table's secret key."""

    def __init__(self, seed: str, key: bytes) -> None:
        self.seed: int | None = None
        self._deals = TableSeeds(seed, "")
        self._own = PositionSeeds(deal_seed(key))

    def deal_rng(self, hand: int) -> random.Random:
        """Return the rng that deals hand `hand` (the pairing's)."""
        return self._deals.deal_rng(hand)

    def seat_rng(self, seq: int) -> random.Random:
        """Return the rng of a decision the table makes for a seat (the table's own)."""
        return self._own.seat_rng(seq)


@dataclass
class ServerOptions:
    """What a server allows: its folder, the bots a table may seat, how many open tables."""

    folder: Path
    bots: tuple[str, ...] = ("greedy",)
    max_tables: int = 1000
    table: TableOptions = field(default_factory=TableOptions)


def variants() -> list[dict[str, Any]]:
    """Return the presets a table may play, as the lobby's form offers them."""
    return [{"name": name, "players": [2, 4], "target": rules.target,
             "hands_per_game": rules.hands_per_game} for name, rules in PRESETS.items()]


class Tables:
    """Every table of a server's folder, by id."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        self.folder = options.folder
        self.entries: dict[str, LiveTable | Ended] = {}

    # -- reading the folder ------------------------------------------------------------------

    def load(self) -> list[str]:
        """Load every table of the folder; return a line per table that could not be loaded."""
        problems = []
        for table_id in table_ids(self.folder):
            if table_id in self.entries:
                continue
            try:
                self.entries[table_id] = self._load(table_id)
            except (StoreError, LogError, IllegalMove, OSError, ValueError) as exc:
                problems.append(f"table {table_id} left out: {' '.join(str(exc).split())}")
        return problems

    def _load(self, table_id: str) -> LiveTable | Ended:
        meta = read_meta(meta_path(self.folder, table_id))
        path = log_path(self.folder, table_id)
        ended = _ended(meta, path)
        if ended is not None:
            return ended
        writer = open_log(path, create=False, fsync="hand")
        try:
            events = [event for _, _, event in read_log(path)]
            live = LiveTable.fold(meta, self._table(meta, table_key(self.folder, table_id)), events, writer,
                                  self.options.table)
        except BaseException:
            writer.close()
            raise
        live.on_end = self._ended
        return live

    def _table(self, meta: TableMeta, key: bytes, deals: DealSource | None = None) -> Table:
        seats: dict[int, Bot] = {seat: bot_by_name(name) for seat, name in meta.bot_seats().items()}
        share_memory(seats.values())
        chance = PairedChance(meta.seed, key) if meta.seed is not None else PositionSeeds(deal_seed(key))
        table = Table(seats, chance, salts=keyed_salts(key))
        table.deals = deals
        return table

    def start(self) -> None:
        """Let every unfinished table go on (inside the event loop, once it runs)."""
        for entry in self.entries.values():
            if isinstance(entry, LiveTable):
                entry.kick()

    def close(self) -> None:
        """Close every table's log (the server stops)."""
        for entry in self.entries.values():
            if isinstance(entry, LiveTable):
                entry.close()

    # -- asking ------------------------------------------------------------------------------

    def open_count(self) -> int:
        """Return how many tables are not finished."""
        return sum(1 for e in self.entries.values() if isinstance(e, LiveTable) and not e.over)

    def listing(self) -> list[dict[str, Any]]:
        """Return every table's public facts, the newest first; a tournament's table only once its
        game is over (while it plays, another table may be playing the same deals)."""
        rows = [entry.summary() for entry in self.entries.values()
                if entry.meta.seed is None or isinstance(entry, Ended) or entry.over]
        rows.sort(key=lambda row: row["created"], reverse=True)
        return rows

    def get(self, table_id: str) -> LiveTable | Ended | None:
        """Return a table by id, None when there is none."""
        return self.entries.get(table_id)

    def watch(self, table_id: str) -> LiveTable | None:
        """Return the live table of an id, a finished one folded from its log (kept while someone
        watches it); None when there is no such table."""
        entry = self.entries.get(table_id)
        if not isinstance(entry, Ended):
            return entry
        events = [event for _, _, event in read_log(log_path(self.folder, table_id))]
        live = LiveTable.fold(entry.meta, Table(), events, None, self.options.table)
        live.on_end = self._ended
        self.entries[table_id] = live
        return live

    def _ended(self, live: LiveTable) -> None:
        """A finished table nobody watches any more: keep its public facts only."""
        if self.entries.get(live.table_id) is live:
            state = live.table.state
            self.entries[live.table_id] = Ended(live.meta, state.variant, state.players, state.hand_no,
                                                tuple(state.totals))

    # -- making a table ----------------------------------------------------------------------

    def create(self, request: NewTable, deals: DealSource | None = None) -> tuple[LiveTable, dict[int, str]]:
        """Make a table as asked; return it and the token of each human seat. Raises `Refused`.

        `deals` fixes the deals (a test's: `Table.deals`); the table's secret chance deals the rest.
        """
        limit = self.options.max_tables
        if self.open_count() >= limit:
            raise Refused(f"the server holds its most open tables ({limit:,}); try later", 503)
        variant, names, bots, overrides, target = self._check(request)
        table_id = new_table_id()
        while table_id in self.entries or meta_path(self.folder, table_id).exists():
            table_id = new_table_id()
        tokens = {seat: secrets.token_urlsafe(16) for seat in range(request.players) if seat not in bots}
        key = new_key(self.folder, table_id)
        meta = TableMeta(table_id=table_id, bots={str(s): b for s, b in bots.items()},
                         tokens={str(s): token_hash(t) for s, t in tokens.items()}, created=now_rfc3339())
        write_meta(self.folder, meta)
        live = self._open(meta, key, start_event(variant, names, table_id, target, overrides), deals)
        return live, tokens

    def open_game(self, table_id: str, start: GameStarted, seed: str, tokens: dict[int, str]) -> LiveTable:
        """Make a table of a game fixed elsewhere (a tournament's: its `game_started`, the seed its
        hands are dealt from, a token for every seat, all of them people's). Raises `StoreError`
        when the table's files exist already."""
        if table_id in self.entries:
            raise StoreError(f"table {table_id} exists already")
        key = new_key(self.folder, table_id)
        meta = TableMeta(table_id=table_id, bots={}, tokens={str(s): token_hash(t) for s, t in tokens.items()},
                         created=now_rfc3339(), seed=seed)
        write_meta(self.folder, meta)
        return self._open(meta, key, start, None)

    def _open(self, meta: TableMeta, key: bytes, start: GameStarted, deals: DealSource | None) -> LiveTable:
        """Write a new table's first line and let it go on (now, or once the server runs)."""
        writer = open_log(log_path(self.folder, meta.table_id), fsync="hand")
        live = LiveTable(meta, self._table(meta, key, deals), writer, self.options.table)
        try:
            live.table.append(start)
        except BaseException:
            writer.close()
            raise
        live.on_end = self._ended
        self.entries[meta.table_id] = live
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return live  # made before the server runs: `start` lets it go on
        live.kick()
        return live

    def _check(self, request: NewTable) -> tuple[str, list[str], dict[int, str], dict[str, Any], int | None]:
        """Return the request's variant, names, bots by seat, rule overrides and target; raises
        `Refused` naming the field at fault."""
        try:
            variant = canonical_variant(request.variant)
        except UnknownVariant as exc:
            raise Refused(f"variant: {exc}") from None
        n = request.players
        if n not in (2, 4):
            raise Refused(f"players: Buraco is for 2 or 4 players, got {n}")
        bots = {_seat(key, n, "bots"): name.strip().lower() for key, name in request.bots.items()}
        for seat, name in bots.items():
            if name not in self.options.bots:
                raise Refused(f"bots.{seat}: this server seats the bots {', '.join(self.options.bots)}, "
                              f"not {visible(name)[:40]!r}")
        given = {_seat(key, n, "names"): name for key, name in request.names.items()}
        names = []
        for seat in range(n):
            name = given.get(seat, BOT_NAMES[seat] if seat in bots else f"seat {seat}")
            if not name.strip() or len(name) > MAX_NAME or visible(name) != name:
                raise Refused(f"names.{seat}: give 1 to {MAX_NAME} printable characters")
            names.append(name)
        overrides = dict(request.rules)
        if request.hands_per_game is not None:
            if not 0 <= request.hands_per_game <= MAX_HANDS:
                raise Refused(f"hands_per_game: give 0 (play to the target) to {MAX_HANDS} hands, "
                              f"got {request.hands_per_game}")
            overrides["hands_per_game"] = request.hands_per_game
        target = request.target
        if target is not None and not 0 <= target <= MAX_TARGET:
            raise Refused(f"target: give 0 (one hand) to {MAX_TARGET:,} points, got {target}")
        try:
            start = start_event(variant, names, "check", target, overrides)
            _deal_check(start)
        except (ValueError, TypeError, msgspec.MsgspecError, IllegalMove) as exc:
            raise Refused(f"rules: {' '.join(str(exc).split())}") from None
        return variant, names, bots, overrides, target


def _seat(key: str, n: int, what: str) -> int:
    if not key.isdigit() or not 0 <= int(key) < n:
        raise Refused(f"{what}: seats are \"0\" to \"{n - 1}\", got {visible(key)[:20]!r}")
    return int(key)


def _deal_check(start: GameStarted) -> None:
    """Deal a hand of these rules on a scratch table (a rule set the engine cannot deal is
    refused before any file is written)."""
    table = Table(rng=PositionSeeds(0))
    table.append(start)
    table.step()


def _ended(meta: TableMeta, path: Path) -> Ended | None:
    """Return a finished log's public facts from its first and last lines (None: unfinished)."""
    lines = path.read_bytes().split(b"\n")
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        return None
    try:
        last = decode_event(lines[-1])
        if not isinstance(last, GameEnded):
            return None
        first = decode_event(lines[0])
        hand = 0
        for line in reversed(lines[:-1]):
            event = decode_event(line)
            if isinstance(event, HandEnded):
                hand = event.hand
                break
    except msgspec.DecodeError:
        return None  # the loader reads it as it is and says what is wrong
    if not isinstance(first, GameStarted):
        return None
    return Ended(meta, first.variant, first.players, hand, tuple(last.totals))

__all__ = ["Ended", "NewTable", "PairedChance", "Refused", "ServerOptions", "Tables", "variants"]
