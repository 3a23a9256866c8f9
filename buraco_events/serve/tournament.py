"""`buraco serve --tournament T.jsonl`: the open round's tables live, each result recorded as its
game ends, and the director's view of them (a shell module: it reads and appends the tournament log).

A round's table is a live table (`tables.Tables.open_game`) of the pairing's game as the tournament
package describes it (`tournament.games.table_game`: its game id, the players in seat order, the
variant and rules), dealt from the pairing's seed (`tables.PairedChance`), every seat a person's.
What a restart must find again is derived, never stored: the table id from the game id, each
seat's token and the director's token by HMAC from the folder's director key (`DIRECTOR_KEY`,
readable by its owner only). A token is never written anywhere else, and never in a log.

When a table's game ends, its log is bound to its table through `tournament.director.record`, the
same checks as `buraco tournament record`. The tournament log has one writer at a time: each
append takes its `flock` (`tournament.store.append`), so a `buraco tournament record` run while the
server writes is refused ("locked"), and the server, finding the log locked, tries again every
`RETRY_EVERY` seconds for `RETRY_FOR` seconds; the server's own appends go one at a time
(`writing`). A refusal is logged and shown on the director's page.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buraco_events.core.table import start_event
from buraco_events.play.keys import read_key, write_key
from buraco_events.tournament import director
from buraco_events.tournament.events import PairedTable
from buraco_events.tournament.games import TableGame, table_game
from buraco_events.tournament.standings import Standings
from buraco_events.tournament.state import TournamentError
from buraco_events.tournament.store import TournamentLog, read_tournament

from .live import LiveTable, now_rfc3339
from .store import StoreError, log_path, token_hash
from .tables import Ended, Tables

log = logging.getLogger("buraco_events.serve")

#: the folder's director key: the secret the seat and director tokens are derived from
DIRECTOR_KEY = ".buraco-director.key"
#: while the tournament log is locked by another writer, a result is tried again this often, so long
RETRY_EVERY = 0.5
RETRY_FOR = 120.0


def _token(key: bytes, what: str) -> str:
    digest = hmac.new(key, f"buraco-serve/{what}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def table_id_of(game_id: str) -> str:
    """Return the live table id of a tournament game (public, as every table id is)."""
    return hashlib.sha256(f"tournament/{game_id}".encode()).hexdigest()[:12]


def director_key(folder: Path) -> bytes:
    """Return the folder's director key, written (readable by its owner only) when missing;
    raises `StoreError` when the file is there but does not read."""
    path = folder / DIRECTOR_KEY
    if not path.exists():
        write_key(path, os.urandom(32))
    key = read_key(path)
    if key is None or len(key) < 16:
        raise StoreError(f"{path}: not a key file (the tournament tables' links come from it)")
    return key


@dataclass
class Recording:
    """Where the recording of one table's result stands: `state` is recording, waiting (the
    tournament log is locked), recorded or refused; `message` is the one line to show."""

    state: str
    message: str = ""


class LiveTournament:
    """A tournament served live: its open round's tables, their results, the director's view."""

    def __init__(self, path: Path, tables: Tables, key: bytes) -> None:
        self.path = path
        self.tables = tables
        self.key = key
        self.recording: dict[str, Recording] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: the server's own appends to the tournament log, one at a time (results, close, pair):
        #: the server never finds the log locked by itself
        self.writing = asyncio.Lock()
        self._standings: tuple[tuple[int, int], Standings] | None = None
        self.log = read_tournament(path)

    # -- tokens ------------------------------------------------------------------------------

    @property
    def director_token(self) -> str:
        """Return the token the director's page asks for."""
        return _token(self.key, f"director/{self.log.state.info.tournament_id}")

    def seat_token(self, game_id: str, seat: int) -> str:
        """Return the token of a seat of a tournament game."""
        return _token(self.key, f"seat/{game_id}/{seat}")

    # -- the round's tables ------------------------------------------------------------------

    def open_round(self) -> list[tuple[str, str]]:
        """Open a live table for every table of the open round without a result (or take the one
        the folder has); return each seat's (who, link), the link relative. Raises `StoreError`
        when a table of the folder is not the pairing's game."""
        self.log = read_tournament(self.path)
        rnd = self.log.state.open_round()
        if rnd is None:
            return []
        lines = []
        for paired in rnd.paired.tables:
            game = self._game(paired)
            entry = self._table(paired, game)
            if entry is None:
                continue
            if isinstance(entry, LiveTable):
                entry.on_game_end = self._game_ended
            for seat, player in enumerate(game.players):
                lines.append((f"round {rnd.paired.round} table {paired.table} seat {seat} ({player})",
                              self.seat_url(paired.game_id, seat)))
        return lines

    def _game(self, paired: PairedTable) -> TableGame:
        state = self.log.state
        return table_game(state.info, paired, state.entries)

    def _table(self, paired: PairedTable, game: TableGame) -> LiveTable | Ended | None:
        table_id = table_id_of(game.game_id)
        entry = self.tables.get(table_id)
        tokens = {seat: self.seat_token(game.game_id, seat) for seat in range(len(game.players))}
        if entry is None:
            if paired.table in self.log.state.rounds[-1].results:
                return None  # recorded elsewhere (`buraco tournament record`): nothing to play
            start = start_event(game.variant, game.players, game.game_id, None, game.rules)
            return self.tables.open_game(table_id, start, game.seed, tokens)
        meta = entry.meta
        want = {str(seat): token_hash(token) for seat, token in tokens.items()}
        if meta.seed != game.seed or list(_players(entry)) != game.players or meta.tokens != want:
            raise StoreError(f"{log_path(self.tables.folder, table_id)}: not table {paired.table}'s game "
                             f"{game.game_id!r} as this tournament and the folder's {DIRECTOR_KEY} make it")
        return entry

    def idle_line(self) -> str:
        """Return why no table is open, in a line for the director."""
        state = self.log.state
        rnd = state.open_round()
        if state.ended is not None:
            return "the tournament is over: its standings are on the director's page"
        if rnd is None:
            return "no open round: pair the next one on the director's page"
        return f"every table of round {rnd.paired.round} has its result: close it on the director's page"

    def seat_url(self, game_id: str, seat: int) -> str:
        """Return a seat's link (relative: the page or the command puts the server in front)."""
        return f"/t/{table_id_of(game_id)}#token={self.seat_token(game_id, seat)}"

    # -- results -----------------------------------------------------------------------------

    def start(self) -> None:
        """Record the games of the open round that ended while nobody recorded them (inside the
        event loop, once it runs)."""
        rnd = self.log.state.open_round()
        if rnd is None:
            return
        for paired in rnd.paired.tables:
            entry = self.tables.get(table_id_of(paired.game_id))
            if paired.table not in rnd.results and (isinstance(entry, Ended)
                                                    or (isinstance(entry, LiveTable) and entry.over)):
                self._schedule(paired.game_id)

    def _game_ended(self, live: LiveTable) -> None:
        self._schedule(live.table.state.game_id)

    def _schedule(self, game_id: str) -> None:
        if game_id in self.recording and self.recording[game_id].state in ("recording", "waiting", "recorded"):
            return
        self.recording[game_id] = Recording("recording")
        task = asyncio.get_running_loop().create_task(self._record(game_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _record(self, game_id: str) -> None:
        path = log_path(self.tables.folder, table_id_of(game_id))
        waited = 0.0
        while True:
            try:
                async with self.writing:
                    await asyncio.to_thread(director.record, self.path, [path], disputed=False, at=now_rfc3339())
            except TournamentError as exc:
                message = " ".join(str(exc).split())
                if "locked" in message and waited < RETRY_FOR:
                    self.recording[game_id] = Recording("waiting", message)
                    await asyncio.sleep(RETRY_EVERY)
                    waited += RETRY_EVERY
                    continue
                if self._recorded(game_id):
                    self.recording[game_id] = Recording("recorded", "recorded by another writer")
                    return
                log.error("tournament %s: the result of %s is refused: %s", self.path, game_id, message)
                self.recording[game_id] = Recording("refused", message)
                return
            except OSError as exc:
                self.recording[game_id] = Recording("refused", f"{self.path}: {exc}")
                log.error("tournament %s: the result of %s is not recorded: %s", self.path, game_id, exc)
                return
            self.recording[game_id] = Recording("recorded")
            return

    def _recorded(self, game_id: str) -> bool:
        try:
            state = read_tournament(self.path).state
        except TournamentError:
            return False
        return any(r.game_id == game_id and r.disputed is None
                   for rnd in state.rounds for results in rnd.results.values() for r in results)

    def close(self) -> None:
        """Stop recording (the server stops; an unrecorded game is recorded at the next start)."""
        for task in list(self._tasks):
            task.cancel()

    # -- the director ------------------------------------------------------------------------

    def standings(self) -> tuple[TournamentLog, Standings]:
        """Return the log as read and its standings, recomputed only when the log changed."""
        stat = self.path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        if self._standings is None or self._standings[0] != stamp:
            log_, table = director.current(self.path)
            self._standings = (stamp, table)
            self.log = log_
        return self.log, self._standings[1]

    def close_round(self) -> None:
        """Close the open round (raises `TournamentError` with the one line of a refusal)."""
        director.close(self.path, now_rfc3339())

    def pair(self) -> None:
        """Pair the next round (raises `TournamentError`); `open_round` then opens its tables."""
        director.pair(self.path, now_rfc3339())

    def snapshot(self) -> dict[str, Any]:
        """Return the director's view: the round's tables live (public facts only: players, hand,
        totals, status, the result), every seat's link, the standings. Never a card."""
        tlog, table = self.standings()
        state = tlog.state
        info = state.info
        outcomes = {o.game_id: o for o in table.tables}
        rnd = state.rounds[-1] if state.rounds else None
        tables = []
        for paired in rnd.paired.tables if rnd is not None else ():
            game = self._game(paired)
            entry = self.tables.get(table_id_of(paired.game_id))
            o = outcomes.get(paired.game_id)
            rec = self.recording.get(paired.game_id)
            live = entry.summary() if entry is not None else None
            tables.append({
                "table": paired.table, "game_id": paired.game_id,
                "table_id": table_id_of(paired.game_id) if entry is not None else None,
                "entries": [_label(state.entries[e].label, e) for e in paired.entries],
                "players": game.players,
                "status": live["status"] if live is not None else "not served",
                "hand": live["hand"] if live is not None else None,
                "totals": live["totals"] if live is not None else None,
                "connected": entry.connected() if isinstance(entry, LiveTable) else None,
                "failed": entry.failed if isinstance(entry, LiveTable) else None,
                "result": {"status": o.status if o is not None else "pending",
                           "totals": o.totals if o is not None else None,
                           "vp": o.vp if o is not None else None,
                           "reason": o.reason if o is not None else None},
                "recording": {"state": rec.state, "message": rec.message} if rec is not None else None,
                "seats": [{"seat": s, "player": p, "url": self.seat_url(paired.game_id, s)}
                          for s, p in enumerate(game.players)] if entry is not None else [],
            })
        every = rnd is not None and all(t.table in rnd.results for t in rnd.paired.tables)
        return {
            "tournament": {"name": info.name, "tournament_id": info.tournament_id, "form": info.form,
                           "variant": info.variant, "movement": info.movement, "rounds": info.rounds,
                           "deals": info.deals},
            "round": rnd.paired.round if rnd is not None else None,
            "round_closed": rnd.closed if rnd is not None else None,
            "ended": state.ended is not None,
            "bye": _label(state.entries[rnd.paired.bye].label, rnd.paired.bye)
            if rnd is not None and rnd.paired.bye is not None else None,
            "tables": tables,
            "standings": [{"place": r.place, "entry": r.entry, "name": r.name, "vp": r.vp, "diff": r.diff,
                           "withdrawn": r.withdrawn} for r in table.rows],
            "can_close": rnd is not None and not rnd.closed and every,
            "can_pair": state.ended is None and (rnd is None or rnd.closed) and len(state.rounds) < info.rounds,
        }


def _players(entry: LiveTable | Ended) -> tuple[str, ...]:
    return entry.players if isinstance(entry, Ended) else entry.table.state.players


def _label(label: str, entry: int) -> str:
    return f"{entry}. {label}"


__all__ = ["DIRECTOR_KEY", "LiveTournament", "Recording", "director_key", "table_id_of"]
