"""A live table: a game's `Table`, its log writer, and the sockets watching it (one event loop).

Each event goes the same way, whoever makes it (a seat's `act`, a bot, the table's deal, refill
or hand end, a clock that ran out): the engine checks it, the log writer appends it (write-ahead:
on disk before anyone sees it; `Table`'s `record`), the table applies it, and only then every
socket gets its own message (`protocol`: each seat its own view, the spectators the public one,
`spectator_delay` events late). Engine work is synchronous and short; nothing here waits on a
socket: a client's messages go to its bounded queue, and a client whose queue is full is dropped
(it reconnects and gets the table again), so a slow or dead client never holds a table up.

Seats with a bot move by themselves, `bot_delay` seconds apart so people can follow; with a
`clock`, a human seat that has not acted within that many seconds of its decision gets the
greedy bot's move, recorded after a `note` by "table" saying why (docs/log-format.md).
Connections and clocks are not game events: they stay out of the log.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec

from buraco_events.bots.greedy import GreedyBot
from buraco_events.core.choices import Action, legal_actions
from buraco_events.core.gate import IllegalMove, team_of
from buraco_events.core.table import Table
from buraco_events.log.lines import LogError
from buraco_events.log.writer import LogWriter
from buraco_events.model.events import Event, GameEnded, HandEnded, HandStarted, Note
from buraco_events.model.views import View
from buraco_events.views.projections import describe, player_view

from . import protocol
from .store import TableMeta

log = logging.getLogger("buraco_events.serve")

#: the `note.by` of the events a table makes for a seat
TABLE_NOTE_BY = "table"
#: the close code of a socket whose seat a newer socket took
REPLACED = 4409


@dataclass(frozen=True, slots=True)
class TableOptions:
    """How every table of a server plays: the clock, the spectators' delay, the bots' pace, and
    how many messages a client's queue holds before the client is dropped."""

    clock: float | None = None
    spectator_delay: int = 0
    bot_delay: float = 0.3
    queue_limit: int = 256


def now_rfc3339() -> str:
    """Return the time now, RFC 3339 UTC to the millisecond (an event's `at`)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Client:
    """One socket's side of a table: its seat (None: a spectator) and its bounded message queue.

    The socket's writer task takes the messages from `queue` in order; None in the queue (or
    `dropped`) ends it. `push` never waits: a full queue drops the client.
    """

    def __init__(self, seat: int | None, limit: int) -> None:
        self.seat = seat
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(limit)
        self.dropped = False
        #: the close code its socket gets once dropped: 1013 (too slow: come back), 4409 (the
        #: seat was opened by a newer socket)
        self.close_code = 1013
        #: called once when the client is dropped (the socket's side closes it)
        self.on_drop: Callable[[], None] | None = None

    def push(self, data: bytes) -> None:
        """Queue a message; a full queue drops the client (its messages are no longer sent)."""
        if self.dropped:
            return
        try:
            self.queue.put_nowait(data)
        except asyncio.QueueFull:
            self.drop()

    def drop(self) -> None:
        """Stop sending to this client: its writer is told to stop after what is queued (a full
        queue is emptied first: the client gets the table whole when it comes back)."""
        if self.dropped:
            return
        self.dropped = True
        if self.queue.full():
            while not self.queue.empty():
                self.queue.get_nowait()
        self.queue.put_nowait(None)
        if self.on_drop is not None:
            self.on_drop()


class TableClosed(Exception):
    """An action refused by the table as a whole (it is over, or its log cannot be written)."""


class LiveTable:
    """A game being played live: the table, its writer (None once the game is over), the move
    list, and the connected clients."""

    def __init__(self, meta: TableMeta, table: Table, writer: LogWriter | None, options: TableOptions) -> None:
        self.meta = meta
        self.table_id = meta.table_id
        self.table = table
        self.writer = writer
        self.options = options
        self.bots = meta.bot_seats()
        #: each event in words (`describe`), by seq: the move list and each view's `event`
        self.texts: list[str] = []
        self.clients: dict[int, Client] = {}
        self.spectators: set[Client] = set()
        #: the spectators' messages of the last events, sent once `spectator_delay` events old,
        #: and the last ones sent (what a spectator who comes now is shown first)
        self.backlog: deque[tuple[int, list[bytes]]] = deque()
        self.shown: tuple[int, list[bytes]] | None = None
        self.commitment: str | None = None
        self.seen: set[int] = set()  # the human seats that connected at least once
        self.failed: str | None = None  # why the table stopped (its log cannot be written)
        self._playing = False  # every human seat came, or one moved: it stays so
        self._offered: tuple[int, list[Action]] | None = None
        self._driver: asyncio.Task[None] | None = None
        self._clock: asyncio.TimerHandle | None = None
        self._deadline: float | None = None
        self._greedy = GreedyBot()
        #: called when the game is over and its last socket has closed
        self.on_end: Callable[[LiveTable], None] | None = None
        #: called once when the game ends here, its log whole and closed (a tournament records it)
        self.on_game_end: Callable[[LiveTable], None] | None = None
        table.record = self._record

    # -- building ----------------------------------------------------------------------------

    @classmethod
    def fold(cls, meta: TableMeta, table: Table, events: Sequence[Event], writer: LogWriter | None,
             options: TableOptions) -> LiveTable:
        """Return the live table of a log's events, replayed through `table` (checked; raises
        `IllegalMove`), with the move list and the spectators' late messages rebuilt."""
        live = cls(meta, table, writer, options)
        table.record = None
        keep = len(events) - 1 - options.spectator_delay
        for event in events:
            live.texts.append(describe(event, table.state, table.state.players))
            table.append(event)
            live._note_event(event)
            if options.spectator_delay and event.seq >= keep:
                live.backlog.append((event.seq, live._spectator_messages(event)))
        if events:
            live._release(events[-1].seq)  # nobody watches yet: what is shown first
        table.record = live._record
        return live

    # -- what the server asks ----------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Return whether the game is over."""
        return self.table.over

    @property
    def humans(self) -> list[int]:
        """Return the seats without a bot."""
        return [s for s in range(self.table.state.n_players) if s not in self.bots]

    def connected(self) -> list[bool]:
        """Return, per seat, whether it is there: a bot always, a human while a socket is open."""
        return [s in self.bots or s in self.clients for s in range(self.table.state.n_players)]

    def status(self) -> str:
        """Return `ended`, `playing` (every human seat came, or one has moved) or `waiting`."""
        if self.over:
            return "ended"
        if not self._playing:
            humans = set(self.humans)
            self._playing = self.seen >= humans or any(getattr(e, "player", None) in humans
                                                       for e in self.table.history)
        return "playing" if self._playing else "waiting"

    def summary(self) -> dict[str, Any]:
        """Return the table's public facts, as the lobby lists them."""
        state = self.table.state
        return {
            "table_id": self.table_id, "variant": state.variant, "players": list(state.players),
            "bots": {str(s): name for s, name in self.bots.items()}, "status": self.status(),
            "hand": state.hand_no, "totals": list(state.totals) if state.hand_results else None,
            "created": self.meta.created,
        }

    # -- clients -----------------------------------------------------------------------------

    def join(self, client: Client) -> None:
        """Take a new socket: the newest of a seat replaces the one before; send it hello and
        the table as it may see it."""
        seat = client.seat
        if seat is None:
            self.spectators.add(client)
        else:
            old = self.clients.get(seat)
            self.clients[seat] = client
            self.seen.add(seat)
            if old is not None:
                old.push(protocol.error_message("this seat was opened elsewhere: the newest window plays"))
                old.close_code = REPLACED
                old.drop()
        self._hello(client)
        self._presence()

    def leave(self, client: Client) -> None:
        """Forget a socket that closed (or was dropped)."""
        if client.seat is None:
            self.spectators.discard(client)
        elif self.clients.get(client.seat) is client:
            del self.clients[client.seat]
        else:
            return
        self._presence()
        if self.over and not self.clients and not self.spectators and self.on_end is not None:
            self.on_end(self)

    def _hello(self, client: Client) -> None:
        state = self.table.state
        seat = client.seat
        n = state.n_players
        if seat is None and self.options.spectator_delay and not self.over:
            shown_seq, messages = self.shown if self.shown is not None else (0, [])
        else:
            shown_seq, messages = state.next_seq - 1, self._messages_now(seat)
        events = self.table.history
        moves = [{"seq": e.seq, "text": protocol.move_text(e, self.texts[e.seq], seat)} for e in events[:shown_seq]]
        client.push(msgspec.json.encode({
            "type": "hello", "table_id": self.table_id, "seat": seat, "players": list(state.players),
            "bots": {str(s): name for s, name in self.bots.items()}, "variant": state.variant,
            "players_count": n, "teams": [[s for s in range(n) if team_of(s) == t] for t in (0, 1)],
            "clock": self.options.clock, "spectator_delay": self.options.spectator_delay, "moves": moves,
            "rules": state.rules,
        }))
        for message in messages:
            client.push(message)

    def _messages_now(self, seat: int | None) -> list[bytes]:
        """Return what a new socket of `seat` gets after hello: the view now (and the result)."""
        state = self.table.state
        if state.next_seq == 0:
            return []
        seq = state.next_seq - 1
        messages = [self._view_message(seat, self.table.history[seq])]
        if self.over:
            messages.append(protocol.ended_message(self.table_id, state))
        return messages

    def _presence(self) -> None:
        data = protocol.presence_message(self.connected(), len(self.spectators))
        for client in self._everyone():
            client.push(data)

    def _everyone(self) -> list[Client]:
        return [*self.clients.values(), *self.spectators]

    # -- acting ------------------------------------------------------------------------------

    def act(self, seat: int | None, seq: int, action_id: int) -> None:
        """Play the action `action_id` of the view at `seq` for `seat`; raises `IllegalMove`,
        `TableClosed` or ValueError with the one line to tell the client (the table unchanged)."""
        if seat is None:
            raise ValueError("spectators watch: only a seat's link plays")
        if self.failed:
            raise TableClosed(f"the table stopped: {self.failed}")
        state = self.table.state
        if self.over:
            raise TableClosed("the game is over")
        if seq != state.next_seq - 1:
            raise ValueError(f"stale seq {seq}: the table is at seq {state.next_seq - 1} (act on the newest view)")
        to_move = self.table.to_move
        if to_move != seat:
            who = "the table moves next" if to_move is None else f"seat {to_move} is to play"
            raise ValueError(f"not your turn: {who}")
        actions = self.offered()
        if not 0 <= action_id < len(actions):
            raise ValueError(f"unknown action id {action_id} (the view at seq {seq} offers 0..{len(actions) - 1})")
        self._play(seat, actions[action_id])
        self.kick()

    def offered(self) -> list[Action]:
        """Return the legal actions of the seat to move now, in the order of their ids."""
        seq = self.table.state.next_seq
        if self._offered is None or self._offered[0] != seq:
            self._offered = (seq, legal_actions(self.table.state) if self.table.to_move is not None else [])
        return self._offered[1]

    def _play(self, seat: int, action: Action) -> None:
        try:
            events = self.table.act(seat, action, advance=False)
        except LogError as exc:
            self._fail(str(exc))
            raise TableClosed(f"the table stopped: {self.failed}") from None
        for event in events:
            self._publish(event)

    def kick(self) -> None:
        """Let the table go on by itself (its own events, the bots) until a human is to move."""
        if self.over or self.failed:
            return
        seat = self.table.to_move
        if seat is not None and seat not in self.bots:
            self._arm_clock()  # a person is to move: nothing to drive
            return
        if self._driver is None or self._driver.done():
            self._driver = asyncio.get_running_loop().create_task(self._drive())

    async def _drive(self) -> None:
        table = self.table
        while not table.over and not self.failed:
            seat = table.to_move
            if seat is not None and seat not in self.bots:
                self._arm_clock()
                return
            if seat is not None and self.options.bot_delay > 0:
                await asyncio.sleep(self.options.bot_delay)
            else:
                await asyncio.sleep(0)  # other tables' turn between two events of this one
            try:
                event = table.step()
            except LogError as exc:
                self._fail(str(exc))
                return
            except Exception as exc:  # a bot or a bound of the table: the table stops, the server goes on
                self._fail(f"{type(exc).__name__}: {exc}")
                return
            if event is not None:
                self._publish(event)

    def _fail(self, reason: str) -> None:
        self.failed = " ".join(reason.split())
        log.error("table %s stopped: %s", self.table_id, self.failed)
        data = protocol.error_message(f"the table stopped: {self.failed}")
        for client in self._everyone():
            client.push(data)

    # -- the clock ---------------------------------------------------------------------------

    def _arm_clock(self) -> None:
        """Start the clock of the human seat to move (each decision gets `clock` seconds)."""
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None
        self._deadline = None
        seconds = self.options.clock
        seat = self.table.to_move
        if seconds is None or self.over or seat is None or seat in self.bots:
            return
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + seconds
        self._clock = loop.call_later(seconds, self._expire, self.table.state.next_seq)

    def _clock_object(self) -> dict[str, Any] | None:
        seat = self.table.to_move
        if self._deadline is None or seat is None or seat in self.bots:
            return None
        remaining = max(0.0, self._deadline - asyncio.get_running_loop().time())
        return {"seat": seat, "remaining": round(remaining, 1)}

    def _expire(self, seq: int) -> None:
        """The clock ran out at `seq`: the table plays the greedy bot's move for the seat."""
        self._clock, self._deadline = None, None
        state = self.table.state
        seat = self.table.to_move
        if state.next_seq != seq or seat is None or seat in self.bots or self.over or self.failed:
            return
        note = Note(seq=state.next_seq, by=TABLE_NOTE_BY,
                    text=f"seat {seat}'s clock ran out: the table plays the greedy bot's move for it")
        try:
            self._publish(self.table.append(note))
            rng = self.table.rng.seat_rng(state.next_seq) if self.table.rng is not None else None
            view = player_view(state, seat, scores=False)
            actions = self.offered()
            action = self._greedy.choose(view, actions, state.rules, rng) if rng is not None else actions[0]
            self._play(seat, action)
        except (TableClosed, LogError, IllegalMove) as exc:
            if not self.failed:
                self._fail(str(exc))
            return
        self.kick()

    # -- telling -----------------------------------------------------------------------------

    def _record(self, event: Event) -> None:
        """The table's write-ahead: the event on disk (with its time), then told in words."""
        if self.writer is None:
            raise LogError(self.table_id, None, event.seq, None, "the game is over: its log is closed")
        self.writer.append(msgspec.structs.replace(event, at=now_rfc3339()), expected_seq=event.seq)
        state = self.table.state
        self.texts.append(describe(event, state, state.players))

    def _note_event(self, event: Event) -> None:
        if isinstance(event, HandStarted):
            self.commitment = event.commitment

    def _view_message(self, seat: int | None, event: Event, public: View | None = None) -> bytes:
        """Return the `view` message of `seat` after `event` (`public`: this state's public view,
        made once for all the seats)."""
        state = self.table.state
        to_play = self.table.to_move
        actions = self._action_items() if seat is not None and seat == to_play else protocol.NO_ACTIONS
        moves = [{"seq": event.seq, "text": protocol.move_text(event, self.texts[event.seq], seat)}]
        view = protocol.view_json(protocol.seat_view(state, seat, public), self.texts[event.seq])
        return protocol.view_message(view, event.seq, actions, to_play, moves, self.connected(),
                                     self._clock_object(), state.hand_no, self.commitment)

    def _action_items(self) -> list[dict[str, Any]]:
        return protocol.action_items(self.offered(), self.table.state)

    def _spectator_messages(self, event: Event, public: View | None = None) -> list[bytes]:
        messages = [self._view_message(None, event, public)]
        messages += self._result_messages(event)
        return messages

    def _result_messages(self, event: Event) -> list[bytes]:
        state = self.table.state
        if isinstance(event, HandEnded):
            return [protocol.hand_ended_message(event, state)]
        if isinstance(event, GameEnded):
            return [protocol.ended_message(self.table_id, state)]
        return []

    def _publish(self, event: Event) -> None:
        """Tell every socket the event just applied, each as its seat may see it."""
        self._note_event(event)
        if self.table.to_move is not None and self.table.to_move not in self.bots:
            self._arm_clock()
        results = self._result_messages(event)
        public = protocol.public_view(self.table.state)
        for seat, client in list(self.clients.items()):
            client.push(self._view_message(seat, event, public))
            for data in results:
                client.push(data)
        self._tell_spectators(event, public)
        if isinstance(event, GameEnded):
            self._end()

    def _tell_spectators(self, event: Event, public: View) -> None:
        if not self.options.spectator_delay:
            if self.spectators:
                messages = self._spectator_messages(event, public)
                for client in self.spectators:
                    for data in messages:
                        client.push(data)
            return
        self.backlog.append((event.seq, self._spectator_messages(event, public)))
        # once the game is over it is public: nothing is held back
        self._release(event.seq, everything=isinstance(event, GameEnded))

    def _release(self, seq: int, everything: bool = False) -> None:
        """Send the spectators every held message `spectator_delay` events old at `seq`."""
        upto = seq - self.options.spectator_delay
        while self.backlog and (everything or self.backlog[0][0] <= upto):
            self.shown = self.backlog.popleft()
            for client in self.spectators:
                for data in self.shown[1]:
                    client.push(data)

    def _end(self) -> None:
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None
        self._deadline = None
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        if self.on_game_end is not None:
            self.on_game_end(self)

    def close(self) -> None:
        """Stop the table's work and close its log (the server is stopping)."""
        if self._clock is not None:
            self._clock.cancel()
        if self._driver is not None:
            self._driver.cancel()
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        for client in self._everyone():
            client.drop()


__all__ = ["REPLACED", "TABLE_NOTE_BY", "Client", "LiveTable", "TableClosed", "TableOptions", "now_rfc3339"]
