"""The messages of a live table, as bytes (pure: no I/O; docs/serve.md is the protocol).

Every message a client gets is built here, and what a seat's message may hold is decided here:

- a seat's `view` is exactly the object of `buraco replay --as SEAT --json` at that seq
  (`projections.Timeline.replay_object`), built from the live state rather than a new fold of
  the log: the view's fields (`player_view`, the one place hidden cards are removed), then the
  event in words (`describe`, which names only what the table sees), `last_seq`, `sealed`,
  `error`, `branch`, `rulings`;
- the spectators' view is the public one (`public_view`): every hand a count, as any seat sees the
  others', with `seat` null;
- a move's text names a drawn card only to the seat that drew it;
- the actions are offered only to the seat to play.

What a client sends is read by `read_message`: one JSON object, `act` or `ping`, anything else
refused with a one-line reason (the server answers it with one `error` message).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal

import msgspec

from buraco_events.core.choices import Action
from buraco_events.core.seatview import player_view
from buraco_events.core.state import GameState
from buraco_events.model.events import Drew, Event, HandEnded, TookDead
from buraco_events.model.scoring import HAND_TOTAL, SHEET_ROWS
from buraco_events.model.views import View
from buraco_events.play.commands import action_command, arranged

#: the largest message a client may send (bytes of its text frame)
MAX_MESSAGE = 4096
#: the seat `player_view` is asked for to build the public view: no seat's, so every hand and the
#: closed pile's rest are counts (the view then says `seat` null)
_NO_SEAT: Final = -1
#: the action kinds of the protocol, by the engine's (`add` is a lay-off on a meld)
KINDS: Final = {"draw": "draw", "pile": "pile", "meld": "meld", "add": "lay_off", "discard": "discard",
                "dead": "dead"}

_encode = msgspec.json.encode
#: the fields `replay_object` adds after the view's for a live table: a sealed log, replaying
#: (no error), the game itself (no branch), no rulings log
_REPLAY_TAIL: Final = b',"sealed":true,"error":null,"branch":null,"rulings":null}'


# -- what a client sends ---------------------------------------------------------------------


class Act(msgspec.Struct, tag="act", tag_field="type", forbid_unknown_fields=True):
    """`{"type": "act", "seq": N, "action": ID}`: the action ID of the view at seq N."""

    seq: int
    action: int


class Ping(msgspec.Struct, tag="ping", tag_field="type", forbid_unknown_fields=True):
    """`{"type": "ping"}`: answered by `{"type": "pong"}` (keep-alive)."""


ClientMessage = Act | Ping
_read = msgspec.json.Decoder(ClientMessage)


class BadMessage(ValueError):
    """A message the server refuses; its str is the one line the `error` message says."""


def read_message(data: str | bytes) -> ClientMessage:
    """Return a client's message; raises `BadMessage` (one line) for anything else."""
    if len(data) > MAX_MESSAGE:
        raise BadMessage(f"message too large: {len(data):,} bytes (at most {MAX_MESSAGE:,})")
    try:
        return _read.decode(data)
    except msgspec.ValidationError as exc:
        reason = str(exc)
        if "Invalid value" in reason and "$.type" in reason:
            return _unknown_type(data)
        raise BadMessage(f"bad message: {reason}") from None
    except msgspec.DecodeError as exc:
        raise BadMessage(f"not JSON: {exc}") from None
    except UnicodeDecodeError:
        raise BadMessage("not UTF-8 text") from None


def _unknown_type(data: str | bytes) -> ClientMessage:
    kind = msgspec.json.decode(data).get("type")
    shown = kind if isinstance(kind, str) and len(kind) <= 40 and kind.isprintable() else "?"
    raise BadMessage(f"unknown message type {shown!r} (act or ping)")


# -- what a seat sees ------------------------------------------------------------------------


def public_view(state: GameState) -> View:
    """Return the spectators' view: what every seat sees (no hand's cards), `seat` null."""
    return msgspec.structs.replace(player_view(state, _NO_SEAT), seat=None)


def seat_view(state: GameState, seat: int | None, public: View | None = None) -> View:
    """Return the view of a seat (None: a spectator, the public view).

    `public` (the public view of this state) lends its score sheet: `player_view` makes the same
    sheet for every seat and for nobody's (during a hand without the cards held, after it with
    them), and it is the costly part of a view, so a table makes it once per event, not per seat.
    """
    if seat is None:
        return public if public is not None else public_view(state)
    if public is None:
        return player_view(state, seat)
    own = player_view(state, seat, scores=False)
    return msgspec.structs.replace(own, scores=public.scores, hand_scores=public.hand_scores,
                                   hands_counted=public.hands_counted)


def view_json(view: View, event_text: str) -> bytes:
    """Return the `view` object of a message: `buraco replay --at SEQ --as SEAT --json` of a
    sealed live log, as bytes (the view's fields, then the step's)."""
    head = _encode(view)
    return b"".join((head[:-1], b',"event":', _encode(event_text), b',"last_seq":', str(view.seq).encode(),
                     _REPLAY_TAIL))


def move_text(event: Event, text: str, seat: int | None) -> str:
    """Return a move as `seat` may read it: the event in words (`describe`, without its `seq N: `),
    with the card a draw brought or the cards of a dead taken for the seat that took them."""
    text = text.partition(": ")[2] if text.startswith("seq ") else text
    if seat is None:
        return text
    if isinstance(event, Drew) and event.player == seat:
        return f"{text}: {event.card}"
    if isinstance(event, TookDead) and event.player == seat:
        return f"{text}: {' '.join(event.cards)}"
    return text


def action_items(actions: Sequence[Action], state: GameState) -> list[dict[str, Any]]:
    """Return the legal actions as the protocol offers them: `id` (the index), `text` (the
    command that types it, cards in reading order), `kind`, `cards`, `meld`, `dead`."""
    rules = state.rules
    items = []
    for i, action in enumerate(actions):
        shown = arranged(action, rules)
        text = f"take dead {action.dead}" if action.kind == "dead" else action_command(shown)
        items.append({"id": i, "text": text, "kind": KINDS[action.kind], "cards": list(shown.cards),
                      "meld": action.meld, "dead": action.dead})
    return items


class Frame(msgspec.Struct, kw_only=True, omit_defaults=False):
    """A `view` message (its `view` already encoded: `msgspec.Raw`)."""

    type: Literal["view"]
    seq: int
    view: msgspec.Raw
    actions: list[dict[str, Any]] | msgspec.Raw
    to_play: int | None
    moves: list[dict[str, Any]]
    connected: list[bool]
    clock: dict[str, Any] | None
    hand: int
    commitment: str | None


def view_message(
    view: bytes, seq: int, actions: list[dict[str, Any]] | bytes, to_play: int | None,
    moves: list[dict[str, Any]], connected: list[bool], clock: dict[str, Any] | None, hand: int,
    commitment: str | None,
) -> bytes:
    """Return a `view` message; `actions` may come encoded (the same list for many clients)."""
    acts: list[dict[str, Any]] | msgspec.Raw = msgspec.Raw(actions) if isinstance(actions, bytes) else actions
    return _encode(Frame(type="view", seq=seq, view=msgspec.Raw(view), actions=acts, to_play=to_play, moves=moves,
                         connected=connected, clock=clock, hand=hand, commitment=commitment))


NO_ACTIONS: Final = b"[]"


def hand_ended_message(event: HandEnded, state: GameState) -> bytes:
    """Return a `hand_ended` message: the hand's score sheet as the share page shows it (a row per
    item, a column per team), the scores and the totals after it, and the salt that proves the
    deal (docs/log-format.md)."""
    sheet = state.hand_results[-1]
    rows = [{"key": key, "label": label, "values": [getattr(team, key) for team in sheet]}
            for key, label in SHEET_ROWS]
    rows.append({"key": "total", "label": HAND_TOTAL, "values": [team.total for team in sheet]})
    return _encode({
        "type": "hand_ended", "seq": event.seq, "hand": event.hand, "scores": [team.total for team in sheet],
        "totals": list(state.totals), "salt": event.salt,
        "sheet": {"rows": rows, "teams": msgspec.to_builtins(sheet), "closed_by": event.closed_by,
                  "reason": event.reason},
    })


def ended_message(table_id: str, state: GameState) -> bytes:
    """Return the `ended` message: the totals, the winning team, the game's public pages."""
    base = f"/tables/{table_id}"
    return _encode({"type": "ended", "totals": list(state.totals), "winner": state.winner,
                    "log_url": f"{base}/log", "share_url": f"{base}/share", "audit_url": f"{base}/audit"})


def error_message(text: str) -> bytes:
    """Return an `error` message (one line)."""
    return _encode({"type": "error", "message": " ".join(text.split())})


def presence_message(connected: list[bool], spectators: int) -> bytes:
    """Return a `presence` message."""
    return _encode({"type": "presence", "connected": connected, "spectators": spectators})


PONG: Final = b'{"type":"pong"}'


__all__ = [
    "KINDS", "MAX_MESSAGE", "NO_ACTIONS", "PONG", "Act", "BadMessage", "ClientMessage", "Ping", "action_items",
    "ended_message", "error_message", "hand_ended_message", "move_text", "presence_message",
    "public_view", "read_message", "seat_view", "view_json", "view_message",
]
