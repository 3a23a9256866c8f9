"""The tournament log's events (docs/log-format.md, "Tournament logs"): msgspec Structs in a
tagged union of their own, sharing the game log's `seq`, `prev` and `at`.

The field names and tags are the public contract. Sizes are bounded here, so a hostile line
cannot make a reader hold more than a line's worth of entries, tables or text.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from buraco_events.model.events import Event, EventFormatError

#: the most entries, tables and rounds a tournament holds (a club's largest events are far below)
MAX_ENTRIES = 512
MAX_ROUNDS = 64

Text = Annotated[str, Meta(max_length=200)]
Long = Annotated[str, Meta(max_length=2000)]
EntryNo = Annotated[int, Meta(ge=1, le=MAX_ENTRIES, description="an entry's number, from 1")]
RoundNo = Annotated[int, Meta(ge=1, le=MAX_ROUNDS, description="a round's number, from 1")]
TableNo = Annotated[int, Meta(ge=1, le=MAX_ENTRIES, description="a table's number, from 1")]
Points = Annotated[int, Meta(ge=-(2**31), le=2**31)]
VP = Annotated[int, Meta(ge=-1000, le=1000)]
Hash = Annotated[str, Meta(min_length=64, max_length=64, pattern="^[0-9a-f]{64}$")]

Form = Literal["pairs", "singles"]
Movement = Literal["mitchell", "danish", "swiss", "round_robin"]
Deals = Literal["random", "duplicate"]
FORMS: tuple[str, ...] = ("pairs", "singles")
MOVEMENTS: tuple[str, ...] = ("mitchell", "danish", "swiss", "round_robin")
DEALS: tuple[str, ...] = ("random", "duplicate")

#: a scale row: [max_diff (None on the last row: any larger difference), vp_high, vp_low]
ScaleRow = tuple[Annotated[int, Meta(ge=0)] | None, VP, VP]


class TournamentStarted(Event, tag="tournament_started", kw_only=True, frozen=True):
    """First line: what is played, how entries move, and the victory point scale."""

    tournament_id: Text
    name: Text
    form: Form
    variant: Text
    rules: dict[Text, int | bool | str] | None = None
    movement: Movement
    rounds: RoundNo
    deals: Deals = "random"
    vp_scale: Annotated[tuple[ScaleRow, ...], Meta(min_length=1, max_length=64)]
    director: Text = ""


class Entered(Event, tag="entered", kw_only=True, frozen=True):
    """An entry joins: its players (2 in pairs, 1 in singles)."""

    entry: EntryNo
    players: Annotated[tuple[Text, ...], Meta(min_length=1, max_length=2)]
    name: Text | None = None


class Withdrawn(Event, tag="withdrawn", kw_only=True, frozen=True):
    """An entry leaves; it is not paired again."""

    entry: EntryNo
    reason: Long


class PairedTable(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=False):
    """One table of a round: its entries (team 0, team 1), its game's id and the seed that deals it."""

    table: TableNo
    entries: Annotated[tuple[EntryNo, EntryNo], Meta()]
    game_id: Text
    seed: Text


class RoundPaired(Event, tag="round_paired", kw_only=True, frozen=True):
    """The pairings of a round. `idle` (this project's optional field) lists the entries left
    without a table by a withdrawn opponent in a fixed movement (mitchell, round_robin)."""

    round: RoundNo
    tables: Annotated[tuple[PairedTable, ...], Meta(max_length=MAX_ENTRIES)]
    bye: EntryNo | None = None
    idle: Annotated[tuple[EntryNo, ...], Meta(max_length=MAX_ENTRIES)] = ()


class Result(Event, tag="result", kw_only=True, frozen=True):
    """A finished game bound to its table by the game log's head; `totals` and `vp` are claims.
    `disputed` (this project's optional field) says why the director stored it as disputed."""

    round: RoundNo
    table: TableNo
    game_id: Text
    head: Hash
    totals: tuple[Points, Points]
    vp: tuple[VP, VP]
    disputed: Long | None = None


class Adjusted(Event, tag="adjusted", kw_only=True, frozen=True):
    """A director's penalty (negative) or award, in victory points."""

    round: RoundNo
    entry: EntryNo
    vp: VP
    by: Text
    reason: Long


class RoundClosed(Event, tag="round_closed", kw_only=True, frozen=True):
    """No more results for the round."""

    round: RoundNo


class Standing(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=False):
    """One entry's claimed final standing."""

    entry: EntryNo
    vp: Points
    place: EntryNo


class TournamentEnded(Event, tag="tournament_ended", kw_only=True, frozen=True):
    """The final standings, as claimed when the last round closed (readers recompute them)."""

    standings: Annotated[tuple[Standing, ...], Meta(max_length=MAX_ENTRIES)]


TournamentEvent = (
    TournamentStarted | Entered | Withdrawn | RoundPaired | Result | Adjusted | RoundClosed
    | TournamentEnded
)
TOURNAMENT_TAGS: tuple[str, ...] = tuple(
    str(t.__struct_config__.tag) for t in TournamentEvent.__args__)

_decoder = msgspec.json.Decoder(TournamentEvent)
_encoder = msgspec.json.Encoder()


def encode(event: Event) -> bytes:
    """Return the JSON line of an event (without its newline)."""
    return _encoder.encode(event)


def decode(line: bytes) -> TournamentEvent:
    """Return one line's event; raise `EventFormatError` naming the field that is wrong."""
    try:
        return _decoder.decode(line)
    except msgspec.ValidationError as exc:
        message = str(exc)
        field = None
        if "at `$" in message:
            field = message.rsplit("at `$", 1)[1].rstrip("`").lstrip(".") or None
            message = message.rsplit(" - at `$", 1)[0]
        if "Invalid value" in message and field == "type":
            message = f"not a tournament event (known: {', '.join(TOURNAMENT_TAGS)})"
        raise EventFormatError(f"field {field}: {message}" if field else message, field) from None
    except msgspec.DecodeError as exc:
        raise EventFormatError(f"not JSON: {exc}") from None
    except (UnicodeDecodeError, RecursionError) as exc:
        raise EventFormatError(f"not an event ({type(exc).__name__})") from None
