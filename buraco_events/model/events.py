"""Events: the log contract (docs/log-format.md) as msgspec Structs in one tagged union.

Every event is a frozen Struct tagged by `type`; the field names and tags are the public contract.
This module also encodes and decodes single lines (JSON and msgpack) and computes the hash chain;
reading and writing files lives in `log`.
"""

from __future__ import annotations

import hashlib
import re
import typing
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from .cards import ALL_CARDS, CardError, parse_card
from .rules import Rules

SCHEMA_VERSION = 1
ZERO_HASH = "0" * 64

CardStr = Annotated[
    Literal[ALL_CARDS],  # type: ignore[valid-type]
    Meta(description="a card: rank A 2-10 J Q K then suit S H D C, or JK for a joker"),
]
Cards = tuple[CardStr, ...]
Seat = Annotated[int, Meta(ge=0, le=3, description="a seat index, 0-based, clockwise")]
Seq = Annotated[int, Meta(ge=0, le=2**53, description="position in the log, 0 first, no gaps")]
Hash = Annotated[
    str, Meta(min_length=64, max_length=64, description="lowercase hex SHA-256 (64 characters)")
]
Score = Annotated[int, Meta(ge=-(2**31), le=2**31)]
#: why a hand ended: a player closed (RULES 6), the stock ran out (RULES 5), or no progress for
#: `stalemate_rounds` rounds (RULES 5); the engine's `GameState.end_reason` is the same type
EndReason = Literal["closed", "stock_exhausted", "stalemate"]
Small = Annotated[int, Meta(ge=0, le=2**31)]


class Event(msgspec.Struct, frozen=True, kw_only=True, gc=False, omit_defaults=True,
            tag_field="type", forbid_unknown_fields=False):
    """Fields on every event: `seq`, the `prev` hash link and an optional `at` time."""

    seq: Seq
    prev: Hash | None = None
    at: str | None = None


class GameStarted(Event, tag="game_started", kw_only=True, frozen=True):
    """First line of every log: who plays which variant under which rules."""

    game_id: str
    variant: str
    players: tuple[str, ...]
    rules: Rules | None = None
    target: Small | None = None
    schema_version: Small | None = None


class HandStarted(Event, tag="hand_started", kw_only=True, frozen=True):
    """A deal: every card of the deck, in order, with the hand's first player."""

    hand: Small
    first: Seat
    hands: tuple[Cards, ...]
    deads: tuple[Cards, ...]
    stock: Cards
    discard: Cards
    commitment: Hash | None = None


class Drew(Event, tag="drew", kw_only=True, frozen=True):
    """Drew the stock's top card."""

    player: Seat
    card: CardStr


class TookPile(Event, tag="took_pile", kw_only=True, frozen=True):
    """Took the whole discard pile (cards bottom first, last = top)."""

    player: Seat
    cards: Cards


class Melded(Event, tag="melded", kw_only=True, frozen=True):
    """Laid a new meld, numbered `meld` within the hand."""

    player: Seat
    meld: Small
    cards: Cards


class LaidOff(Event, tag="laid_off", kw_only=True, frozen=True):
    """Added cards to one of the team's melds."""

    player: Seat
    meld: Small
    cards: Cards


class Discarded(Event, tag="discarded", kw_only=True, frozen=True):
    """Discarded a card, ending the turn."""

    player: Seat
    card: CardStr


class TookDead(Event, tag="took_dead", kw_only=True, frozen=True):
    """Took a dead hand (directly after a play, or indirectly after a discard)."""

    player: Seat
    dead: Annotated[int, Meta(ge=0, le=1)]
    cards: Cards


class StockRefilled(Event, tag="stock_refilled", kw_only=True, frozen=True):
    """The stock ran out; that dead became the stock, in its dealt order."""

    dead: Annotated[int, Meta(ge=0, le=1)]


class HandEnded(Event, tag="hand_ended", kw_only=True, frozen=True):
    """The hand is over; `scores` is the claim of whoever ran the game."""

    hand: Small
    reason: EndReason
    closed_by: Seat | None
    scores: tuple[Score, ...]
    salt: str | None = None


class GameEnded(Event, tag="game_ended", kw_only=True, frozen=True):
    """The match is over; `winner` null is a tie (`hands_per_game`, RULES 8)."""

    totals: tuple[Score, ...]
    winner: Annotated[int, Meta(ge=0, le=1)] | None


class Note(Event, tag="note", kw_only=True, frozen=True):
    """A remark by a referee or a player; changes nothing in the game."""

    by: str
    text: str


#: where a branch's hidden cards come from: the parent's deck order, or dealt again from what one
#: seat knew
DeckSource = Literal["parent", "redealt"]


class Branched(Event, tag="branched", kw_only=True, frozen=True):
    """From here on this log is a hypothesis: a branch of game `parent` at `fork_seq`.

    The lines before it are the parent's, byte for byte; the events after it are played from the
    state at `fork_seq`. `seed` deals the hands the parent never recorded. A `redealt` deck
    carries its new arrangement (`hands`, `stock`, `deads`): the cards `seat` could not see,
    dealt again (`core.infoset`).
    """

    parent: str
    fork_seq: Seq
    deck: DeckSource
    seat: Seat | None = None
    seed: str
    by: str
    reason: str
    #: a `redealt` deck's new arrangement of the hidden cards (this project's optional fields):
    #: every hand (`seat`'s own as it was), the stock top first, each dead (empty once gone)
    hands: tuple[Cards, ...] | None = None
    stock: Cards | None = None
    deads: tuple[Cards, ...] | None = None


def branch_of(events: Iterable[Event]) -> Branched | None:
    """Return a log's last `branched` event (the fork that makes it what it is), or None for a
    log that is the game itself."""
    last = None
    for event in events:
        # by class, not isinstance: a Struct's isinstance goes through its metaclass, and the
        # index asks this of every event it reads
        if type(event) is Branched:
            last = event
    return last if isinstance(last, Branched) else None


def branch_words(game_id: str, branched: Branched) -> str:
    """Return how every tool names a branch: `branch of GAME at seq N`."""
    return f"branch of {game_id} at seq {branched.fork_seq}"


#: what a referee's ruling decides (docs/log-format.md, "Rulings")
RulingKind = Literal["score_adjusted", "hand_voided", "replay_from", "game_awarded", "warning", "withdrawn"]
RULING_KINDS: tuple[str, ...] = typing.get_args(RulingKind)


class Ruling(Event, tag="ruling", kw_only=True, frozen=True):
    """One decision of a referee, a line of a game's rulings log (never of the game log).

    It binds the game log as it was: `game_head` is the SHA-256 of its line `game_seq`.
    """

    game_id: str
    game_seq: Seq
    game_head: Hash
    kind: RulingKind
    hand: Small | None = None
    points: tuple[Score, ...] | None = None
    team: Annotated[int, Meta(ge=0, le=1)] | None = None
    branch_head: Hash | None = None
    ruling_seq: Seq | None = None
    by: str
    reason: str


AnyEvent = (
    GameStarted | HandStarted | Drew | TookPile | Melded | LaidOff | Discarded | TookDead
    | StockRefilled | HandEnded | GameEnded | Note | Branched | Ruling
)
EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__
TAGS: dict[str, type[Event]] = {str(t.__struct_config__.tag): t for t in EVENT_TYPES}

#: fields that hold one card or a list of cards, per tag (for lenient reading)
_CARD_FIELDS: dict[str, tuple[str, ...]] = {
    "hand_started": ("hands*", "deads*", "stock", "discard"),
    "drew": ("card",), "discarded": ("card",),
    "took_pile": ("cards",), "melded": ("cards",), "laid_off": ("cards",), "took_dead": ("cards",),
    "branched": ("hands*", "deads*", "stock"),
}

_json_encoder = msgspec.json.Encoder()
_json_decoder = msgspec.json.Decoder(AnyEvent)
_msgpack_encoder = msgspec.msgpack.Encoder()
_msgpack_decoder = msgspec.msgpack.Decoder(AnyEvent)


class EventFormatError(ValueError):
    """A line that is not an event of the contract; `field` names where, when known."""

    def __init__(self, message: str, field: str | None = None, seq: int | None = None):
        super().__init__(message)
        self.field = field
        self.seq = seq


def encode_event(event: Event) -> bytes:
    """Return the JSON line of an event (without the trailing newline)."""
    return _json_encoder.encode(event)


def encode_msgpack(event: Event) -> bytes:
    """Return the msgpack form of an event (same fields as the JSON form)."""
    return _msgpack_encoder.encode(event)


def decode_msgpack(data: bytes) -> AnyEvent:
    """Decode one msgpack event."""
    try:
        return _msgpack_decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise _format_error(exc, None) from None
    except msgspec.DecodeError as exc:
        raise EventFormatError(f"not msgpack: {exc}") from None


def line_hash(line: bytes) -> str:
    """Return the hex SHA-256 of a stored line (without its newline): the next `prev`."""
    return hashlib.sha256(line).hexdigest()


def _field_of(message: str) -> str | None:
    marker = "at `$"
    i = message.rfind(marker)
    if i < 0:
        return None
    path = message[i + len(marker):].rstrip("`")
    return path.lstrip(".") or None


def _seq_of(raw: Any) -> int | None:
    """Return a raw line's `seq` when it is an int (to name the line in an error), else None."""
    seq = raw.get("seq") if isinstance(raw, dict) else None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


def _format_error(exc: Exception, raw: Any) -> EventFormatError:
    msg = str(exc)
    field = _field_of(msg)
    seq = _seq_of(raw)
    if isinstance(raw, dict) and "type" in raw and raw["type"] not in TAGS:
        return EventFormatError(
            f"unknown event type {raw['type']!r} (known: {', '.join(TAGS)})", "type", seq
        )
    missing = re.search(r"missing required field `(\w+)`", msg)
    if missing:
        where = f"{field}." if field else ""
        name = where + missing.group(1)
        return EventFormatError(f"field {name}: missing", name, seq)
    if field:
        msg = msg.replace(f" - at `${'.' + field if not field.startswith('[') else field}`", "")
        return EventFormatError(f"field {field}: {msg}", field, seq)
    return EventFormatError(msg, None, seq)


def _normalize_cards(raw: dict[str, Any]) -> None:
    for spec in _CARD_FIELDS.get(raw.get("type", ""), ()):
        name = spec.rstrip("*")
        if name not in raw:
            continue
        value = raw[name]
        try:
            if spec.endswith("*") and isinstance(value, list):
                raw[name] = [
                    [parse_card(c) for c in group] if isinstance(group, list) else group
                    for group in value
                ]
            elif isinstance(value, list):
                raw[name] = [parse_card(c) for c in value]
            elif isinstance(value, str):
                raw[name] = parse_card(value)
        except CardError as exc:
            raise EventFormatError(f"field {name}: {exc}", name, _seq_of(raw)) from None


#: the typed decoder alone: for a line of the current contract with canonical cards it returns
#: what `decode_event` returns, and it raises on any other line (whose reader then asks
#: `decode_event`, which accepts the lenient card forms and words what is wrong)
decode_canonical: Callable[[bytes], AnyEvent] = _json_decoder.decode


def decode_event(line: bytes | str) -> AnyEvent:
    """Decode one JSON line into its event, accepting the lenient card forms of the log format."""
    try:
        return _json_decoder.decode(line)
    except msgspec.ValidationError:
        pass
    except msgspec.DecodeError as exc:
        raise EventFormatError(f"not JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise EventFormatError(f"not UTF-8: {exc}") from None
    except RecursionError:
        raise EventFormatError("not an event: JSON nested too deeply") from None
    try:
        raw = msgspec.json.decode(line)
    except msgspec.DecodeError as exc:
        raise EventFormatError(f"not JSON: {exc}") from None
    except RecursionError:
        raise EventFormatError("not an event: JSON nested too deeply") from None
    if not isinstance(raw, dict):
        raise EventFormatError("an event must be a JSON object")
    if "type" not in raw:
        raise EventFormatError("field type: missing (every event has a type)", "type", _seq_of(raw))
    if not isinstance(raw["type"], str):
        raise EventFormatError("field type: not a string (it names the event)", "type", _seq_of(raw))
    _normalize_cards(raw)
    try:
        return msgspec.convert(raw, AnyEvent)
    except msgspec.ValidationError as exc:
        raise _format_error(exc, raw) from None


def event_type(event: Event) -> str:
    """Return the tag of an event."""
    return event.__struct_config__.tag  # type: ignore[return-value]


def seal_lines(events: list[Event]) -> list[bytes]:
    """Return the sealed JSON lines of events: `seq` from 0 and the `prev` chain."""
    out: list[bytes] = []
    prev = ZERO_HASH
    for i, ev in enumerate(events):
        line = encode_event(msgspec.structs.replace(ev, seq=i, prev=prev))
        out.append(line)
        prev = line_hash(line)
    return out


def event_schema() -> dict[str, Any]:
    """Return the JSON Schema of the event union (the file `schemas/events.schema.json`)."""
    (ref,), components = msgspec.json.schema_components([AnyEvent], ref_template="#/$defs/{name}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://buraco-events/schemas/events.schema.json",
        "title": "buraco-events game log line",
        "description": "One line of a game log (JSON Lines). See docs/log-format.md for the meanings.",
        "x-schema-version": SCHEMA_VERSION,
        **ref,
        "$defs": components,
    }
