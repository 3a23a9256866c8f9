"""Rows: one game's events replayed through the engine and flattened into analytics table rows.

Pure: no I/O, no duckdb. Every number here comes from the engine (checked `play`, the final
state of each hand, `state.hand_results`) or from the events themselves; nothing re-implements a
rule or a score. `ingest` turns the columns into Arrow tables and stores them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final, cast

from librt.vecs import append, vec
from mypy_extensions import i16, i32, u8

from buraco_events.audit.verdicts import FAILING
from buraco_events.core.cards import ALL_CARDS, JOKER
from buraco_events.core.engine import play
from buraco_events.core.gate import team_of
from buraco_events.core.state import GameState
from buraco_events.log.commit import Commitments
from buraco_events.model.events import (
    TAGS,
    Discarded,
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
)
from buraco_events.model.rules import UnknownVariant, canonical_variant
from buraco_events.model.views import meld_kind

from .schema import TABLES, int_range

#: the column names of each table, in table order (declared with their types in `schema`)
COLUMNS: Final[dict[str, tuple[str, ...]]] = {t: table.names() for t, table in TABLES.items()}

#: the event classes `game_rows` tells apart (Final: compiled, no lookup in the module's globals)
_DREW: Final = Drew
_TOOKPILE: Final = TookPile
_HANDSTARTED: Final = HandStarted
_HANDENDED: Final = HandEnded
_GAMEENDED: Final = GameEnded


class Columns:
    """Column lists for every table, filled game by game (cheap to turn into Arrow tables)."""

    def __init__(self, native: bool = False) -> None:
        self.data: dict[str, dict[str, list[Any]]] = {
            t: {c: [] for c in cols} for t, cols in COLUMNS.items()
        }
        #: with `native`, `game_rows` writes the events table here rather than into `data`
        #: (until a row does not fit: see `EventBuffers`)
        self.native: EventBuffers | None = EventBuffers() if native else None

    def add(self, table: str, **row: Any) -> None:
        """Append one row (every column of the table must be given)."""
        cols = self.data[table]
        for name in COLUMNS[table]:
            cols[name].append(row[name])

    def add_values(self, table: str, values: tuple[Any, ...]) -> None:
        """Append one row given as its values in column order (`add` without the names)."""
        columns = self.data[table]
        if len(values) != len(columns):
            raise ValueError(f"{table}: {len(values)} values for {len(columns)} columns")
        for i, column in enumerate(columns.values()):  # compiled, zip(strict=True) is slow
            column.append(values[i])

    def extend(self, other: Columns) -> Columns:
        """Append all rows of another batch; return self."""
        for table, cols in other.data.items():
            mine = self.data[table]
            for name, values in cols.items():
                mine[name].extend(values)
        return self

    def counts(self) -> dict[str, int]:
        """Return the number of rows held for each table."""
        return {table: self.count(table) for table in self.data}

    def rows(self, starts: dict[str, int], counts: dict[str, int]) -> Columns:
        """Return a copy of `counts[table]` rows of each table from `starts[table]` on."""
        part = Columns()
        for table, cols in self.data.items():
            start, end = starts[table], starts[table] + counts[table]
            part.data[table] = {name: values[start:end] for name, values in cols.items()}
        return part

    def count(self, table: str) -> int:
        """Return the number of rows held for a table."""
        held = len(self.data[table]["game_id"])
        native = self.native
        return held + len(native.seq) if native is not None and table == "events" else held

    def to_lists(self) -> None:
        """Move the events rows held natively into the plain lists (after the rows there): from
        then on the events rows are built as lists (`game_rows`)."""
        native = self.native
        if native is None:
            return
        self.native = None
        lists = self.data["events"]
        ids = native.game_ids
        lists["game_id"].extend([ids[game] for game in native.game])
        for name, values in native.rows_as_lists(0, len(native)).columns("").items():
            if name != "game_id":
                lists[name].extend(values)


def variant_name(variant: str) -> str:
    """Return the preset name for a preset or alias, else the name as logged (custom rules)."""
    try:
        return canonical_variant(variant)
    except UnknownVariant:
        return variant


def _field(ev: Event, fields: tuple[str, ...], name: str) -> Any:
    # a missing field is not asked for: compiled, getattr's default costs a raised AttributeError
    return getattr(ev, name) if name in fields else None


def _cards_of(ev: Event, fields: tuple[str, ...]) -> list[str] | None:
    cards = _field(ev, fields, "cards")
    if cards is not None:
        return list(cards)
    card = _field(ev, fields, "card")
    return [card] if card is not None else None


#: the per-event columns that depend on the event's fields: player, cards, card, meld, dead, note
Parts = tuple[int | None, Sequence[str] | None, str | None, int | None, int | None, str | None]


def _generic_parts(ev: Event) -> Parts:
    """Return an event's field columns by asking for each field (any event class)."""
    fields: tuple[str, ...] = ev.__struct_fields__
    return (_field(ev, fields, "player"), _cards_of(ev, fields), _field(ev, fields, "card"),
            _field(ev, fields, "meld"), _field(ev, fields, "dead"),
            ev.text if isinstance(ev, Note) else None)


def _hand_end_rows(out: Columns, game_id: str, state: GameState, ev: HandEnded,
                   first: int, turns: int, n_events: int) -> bool:
    """Record a finished hand: its summary, its final melds and both teams' score sheets; return
    whether the hand's claimed scores are the recount."""
    rules = state.rules
    result = state.hand_results[-1]
    scores = [s.total for s in result]
    hand = ev.hand
    claimed = list(ev.scores)
    out.add_values("hands", (  # in COLUMNS["hands"] order
        game_id, hand, first, state.end_reason, state.closed_by, turns, n_events, scores, claimed,
        scores == claimed,
    ))
    for m in state.melds:  # in COLUMNS["melds"] order
        cards = m.shape.cards
        out.add_values("melds", (
            game_id, hand, m.id, m.team, m.shape.type, len(cards), list(cards),
            meld_kind(m.canasta(rules)), m.shape.is_clean, JOKER in cards, m.laid_by, m.laid_seq,
            m.canasta_seq,
        ))
    direct = state.deads.direct
    for s in result:  # in COLUMNS["team_hands"] order
        out.add_values("team_hands", (
            game_id, hand, s.team, s.meld_points, s.canasta_bonus, s.close_bonus, s.hand_penalty,
            s.dead_penalty, s.took_dead, s.took_dead and direct[s.team], s.dead_unused,
            sum(s.canastas.values()), s.total,
        ))
    return scores == claimed


#: how `_EventColumns.add` reads the fields of the common event classes (compiled, a field is read
#: by name: a cast names the class only for the type checker): player and card (drew, discarded),
#: player and cards (took_pile), with meld (melded, laid_off) or dead (took_dead); any other class
#: (the game's and hands' starts and ends, refills, notes: a few a hand) is read by
#: `_generic_parts`. Final: compiled, a C static rather than a lookup in the module's globals.
_CARD: Final = 1
_CARDS: Final = 2
_MELD: Final = 3
_DEAD: Final = 4
_SHAPE: Final[dict[type, int]] = {
    Drew: _CARD, Discarded: _CARD, TookPile: _CARDS, Melded: _MELD, LaidOff: _MELD,
    TookDead: _DEAD,
}


class _Tags(dict[type, str]):
    def __missing__(self, cls: type) -> str:
        return str(cls.__struct_config__.tag)  # type: ignore[attr-defined]


#: the tag of each event class (another class is looked up)
_TAG_OF: Final = _Tags({cls: tag for tag, cls in TAGS.items()})
#: a drew's or a discard's cards column: its card alone (one shared tuple per card)
_ONE_CARD: Final[dict[str, tuple[str, ...]]] = {c: (c,) for c in ALL_CARDS}


def _event_parts(ev: Event) -> Parts:
    """Return an event's field columns (`Parts`): the common classes read by their fields'
    names (`_SHAPE`), any other by `_generic_parts`."""
    shape = _SHAPE.get(type(ev), 0)
    if shape == _CARD:
        drew = cast(Drew, ev)  # a discard's fields have the same names
        card = drew.card  # the engine took only a card of the notation; any other is its own
        return drew.player, _ONE_CARD.get(card) or (card,), card, None, None, None
    if shape:
        took = cast(TookDead, ev)  # took_pile, melded and laid_off name their fields alike
        if shape == _MELD:
            return took.player, took.cards, None, cast(Melded, ev).meld, None, None
        return took.player, took.cards, None, None, took.dead if shape == _DEAD else None, None
    return _generic_parts(ev)


class _EventRows:
    """A builder of the events table's rows, one event at a time (`_EventColumns`,
    `EventBuffers`)."""

    def add(self, ev: Event, turn: int | None, hand: int) -> bool:
        """Append one event's row; `turn` is the engine's turn before it, `hand` its hand after
        it (-1 before the first deal: no hand). Returns whether the row was appended."""
        raise NotImplementedError


class _EventColumns(_EventRows):
    """The events table's columns of one game but game_id, filled an event at a time as the
    replay goes (compiled: native lists, each field read once, no per-column pass)."""

    def __init__(self) -> None:
        self.seq: list[int] = []
        self.hand: list[int | None] = []
        self.turn: list[int | None] = []
        self.type: list[str] = []
        self.player: list[int | None] = []
        self.team: list[int | None] = []
        self.cards: list[Sequence[str] | None] = []
        self.card: list[str | None] = []
        self.meld: list[int | None] = []
        self.dead: list[int | None] = []
        self.n_cards: list[int | None] = []
        self.at: list[str | None] = []
        self.note: list[str | None] = []

    def add(self, ev: Event, turn: int | None, hand: int) -> bool:
        """Append one event's row (every row fits a list: True)."""
        player, cards, card, meld, dead, note = _event_parts(ev)
        self.seq.append(ev.seq)
        self.hand.append(None if hand == -1 else hand)
        self.turn.append(None if player is None else turn)
        self.type.append(_TAG_OF[type(ev)])
        self.player.append(player)
        self.team.append(None if player is None else team_of(player))
        self.cards.append(cards)
        self.card.append(card)
        self.meld.append(meld)
        self.dead.append(dead)
        self.n_cards.append(None if cards is None else len(cards))
        self.at.append(ev.at)
        self.note.append(note)
        return True

    def columns(self, game_id: str) -> dict[str, list[Any]]:
        """Return the columns by name, in table order (`COLUMNS["events"]`)."""
        return {
            "game_id": [game_id] * len(self.seq), "seq": self.seq, "hand": self.hand,
            "turn": self.turn, "type": self.type, "player": self.player, "team": self.team,
            "cards": self.cards, "card": self.card, "meld": self.meld, "dead": self.dead,
            "n_cards": self.n_cards, "at": self.at, "note": self.note,
        }


#: the strings of the native events rows' codes: each event class's tag, each card
EVENT_TAG_NAMES: Final[tuple[str, ...]] = tuple(TAGS)
CARD_NAMES: Final[tuple[str, ...]] = ALL_CARDS
_TAG_CODE: Final[dict[type, int]] = {cls: i for i, cls in enumerate(TAGS.values())}
_CARD_CODE: Final[dict[str, int]] = {c: i for i, c in enumerate(ALL_CARDS)}


#: the ranges of the machine ints `EventBuffers` holds, as literals (compiled, the checks of
#: `add` compare with constants rather than load a global); `_check_native_types` holds them to
#: the declared types' ranges (`schema.int_range`) when this module is imported
_INT32_LOW: Final = -(1 << 31)
_INT32_HIGH: Final = (1 << 31) - 1
_INT16_LOW: Final = -(1 << 15)
_INT16_HIGH: Final = (1 << 15) - 1
_INT8_LOW: Final = -(1 << 7)
_INT8_HIGH: Final = (1 << 7) - 1
#: the type of each events column `EventBuffers` holds as machine ints (its vector's), which
#: `arrowrows.native_events` reads as the column's declared type: the two must be one
_NATIVE_TYPES: Final[dict[str, str]] = {
    "seq": "int32", "hand": "int16", "turn": "int16", "player": "int8", "team": "int8",
    "meld": "int16", "dead": "int8", "n_cards": "int16",
}


def _check_native_types() -> None:
    """Raise `TypeError` where `EventBuffers` holds an events column as another type than the
    declared one (`schema.TABLES`), or where a limit above is not its type's range."""
    limits = {"int8": (_INT8_LOW, _INT8_HIGH), "int16": (_INT16_LOW, _INT16_HIGH),
              "int32": (_INT32_LOW, _INT32_HIGH)}
    for word, limit in limits.items():
        if int_range(word) != limit:
            raise TypeError(f"rows: the {word} limits {limit} are not {word}'s range")
    events = TABLES["events"]
    for name, word in _NATIVE_TYPES.items():
        declared = events.type_of(name)
        if declared != word:
            raise TypeError(f"rows: EventBuffers holds events.{name} as {word}, declared {declared}")


_check_native_types()


class EventBuffers(_EventRows):
    """The events table's rows of a chunk of games as native columns (compiled: machine ints in
    `librt` vectors, no Python object a value), which Arrow takes without a pass over the values
    (`ingest`). Strings are codes: `type` into `EVENT_TAG_NAMES`, `card` and the cards into
    `CARD_NAMES`; a nullable column has a vector of 1 (a value) or 0 (null) beside it; `game`
    is each row's index into `game_ids`.

    `add` holds what the columns' declared types hold (`schema`, `_NATIVE_TYPES`), but for the
    int8 columns (player, team, dead) only 0 to 127, held as u8 (the same bytes as int8: the
    stubs know no i8); a row with a value beyond that, a card outside the notation or an event
    class outside `TAGS` is refused (False), so that `game_rows` goes on in the plain lists, which
    hold any value and say what did not fit (`rows_as_lists` moves the rows held so far there).
    """

    def __init__(self) -> None:
        self.game_ids: list[str] = []
        self.game: vec[i32] = vec[i32]()
        self.seq: vec[i32] = vec[i32]()
        self.hand: vec[i16] = vec[i16]()
        self.hand_ok: vec[u8] = vec[u8]()
        self.turn: vec[i16] = vec[i16]()
        self.turn_ok: vec[u8] = vec[u8]()
        self.type: vec[u8] = vec[u8]()
        self.player: vec[u8] = vec[u8]()
        self.team: vec[u8] = vec[u8]()
        self.player_ok: vec[u8] = vec[u8]()  # also team's
        self.cards_end: vec[i32] = vec[i32]([0])  # Arrow's list offsets: row i's cards end
        self.cards_ok: vec[u8] = vec[u8]()  # n_cards is Arrow's length of each row's cards
        self.card_codes: vec[u8] = vec[u8]()  # every row's cards, one after the other
        self.card: vec[u8] = vec[u8]()
        self.card_ok: vec[u8] = vec[u8]()
        self.meld: vec[i16] = vec[i16]()
        self.meld_ok: vec[u8] = vec[u8]()
        self.dead: vec[u8] = vec[u8]()
        self.dead_ok: vec[u8] = vec[u8]()
        self.at: list[str | None] = []
        self.note: list[str | None] = []

    def __len__(self) -> int:
        return len(self.seq)

    def add(self, ev: Event, turn: int | None, hand: int) -> bool:
        """Append one event's row as `_EventColumns.add` reads it; False (nothing appended)
        where a value does not fit (see the class)."""
        player, cards, card, meld, dead, note = _event_parts(ev)
        tag = _TAG_CODE.get(type(ev), -1)
        seq = ev.seq
        if tag < 0 or not _INT32_LOW <= seq <= _INT32_HIGH or not -1 <= hand <= _INT16_HIGH:
            return False
        if player is not None and (not 0 <= player <= _INT8_HIGH or turn is not None
                                   and not _INT16_LOW <= turn <= _INT16_HIGH):
            return False
        if (meld is not None and not _INT16_LOW <= meld <= _INT16_HIGH
                or dead is not None and not 0 <= dead <= _INT8_HIGH):
            return False
        code = 0
        if card is not None:
            code = _CARD_CODE.get(card, -1)
            if code < 0:
                return False
        start = len(self.card_codes)
        if cards is not None:
            if len(cards) > _INT16_HIGH:  # n_cards
                return False
            codes = self.card_codes
            for c in cards:
                each = _CARD_CODE.get(c, -1)
                if each < 0:
                    self.card_codes = codes[:start]
                    return False
                codes = append(codes, u8(each))
            self.card_codes = codes
        self.game = append(self.game, i32(len(self.game_ids)))
        self.seq = append(self.seq, i32(seq))
        self.hand = append(self.hand, i16(max(hand, 0)))
        self.hand_ok = append(self.hand_ok, 0 if hand == -1 else 1)
        if player is None or turn is None:
            self.turn = append(self.turn, 0)
            self.turn_ok = append(self.turn_ok, 0)
        else:
            self.turn = append(self.turn, i16(turn))
            self.turn_ok = append(self.turn_ok, 1)
        self.type = append(self.type, u8(tag))
        if player is None:
            self.player = append(self.player, 0)
            self.team = append(self.team, 0)
            self.player_ok = append(self.player_ok, 0)
        else:
            self.player = append(self.player, u8(player))
            self.team = append(self.team, u8(team_of(player)))
            self.player_ok = append(self.player_ok, 1)
        self.cards_end = append(self.cards_end, i32(len(self.card_codes)))
        self.cards_ok = append(self.cards_ok, 0 if cards is None else 1)
        self.card = append(self.card, u8(code))
        self.card_ok = append(self.card_ok, 0 if card is None else 1)
        self.meld = append(self.meld, i16(0 if meld is None else meld))
        self.meld_ok = append(self.meld_ok, 0 if meld is None else 1)
        self.dead = append(self.dead, u8(0 if dead is None else dead))
        self.dead_ok = append(self.dead_ok, 0 if dead is None else 1)
        self.at.append(ev.at)
        self.note.append(note)
        return True

    def rows_as_lists(self, start: int, end: int) -> _EventColumns:
        """Return the rows from `start` to `end` as the plain lists hold them (`_EventColumns`,
        no game_id): each code read back as its string, a value beside a 0 as None."""
        out = _EventColumns()
        ends = self.cards_end
        for i in range(start, end):
            has_player = self.player_ok[i] != 0
            cards = ([CARD_NAMES[c] for c in self.card_codes[ends[i]:ends[i + 1]]]
                     if self.cards_ok[i] else None)
            out.seq.append(int(self.seq[i]))
            out.hand.append(int(self.hand[i]) if self.hand_ok[i] else None)
            out.turn.append(int(self.turn[i]) if self.turn_ok[i] else None)
            out.type.append(EVENT_TAG_NAMES[self.type[i]])
            out.player.append(int(self.player[i]) if has_player else None)
            out.team.append(int(self.team[i]) if has_player else None)
            out.cards.append(cards)
            out.card.append(CARD_NAMES[self.card[i]] if self.card_ok[i] else None)
            out.meld.append(int(self.meld[i]) if self.meld_ok[i] else None)
            out.dead.append(int(self.dead[i]) if self.dead_ok[i] else None)
            out.n_cards.append(None if cards is None else len(cards))
            out.at.append(self.at[i])
            out.note.append(self.note[i])
        return out

    def end_game(self, game_id: str) -> None:
        """Name the game whose rows were added since the last `end_game`."""
        self.game_ids.append(game_id)

    def cut(self, rows: int) -> None:
        """Drop the rows from `rows` on (the rows of a game that did not finish)."""
        self.card_codes = self.card_codes[:self.cards_end[rows]]
        self.cards_end = self.cards_end[:rows + 1]
        self.game = self.game[:rows]
        self.seq = self.seq[:rows]
        self.hand = self.hand[:rows]
        self.hand_ok = self.hand_ok[:rows]
        self.turn = self.turn[:rows]
        self.turn_ok = self.turn_ok[:rows]
        self.type = self.type[:rows]
        self.player = self.player[:rows]
        self.team = self.team[:rows]
        self.player_ok = self.player_ok[:rows]
        self.cards_ok = self.cards_ok[:rows]
        self.card = self.card[:rows]
        self.card_ok = self.card_ok[:rows]
        self.meld = self.meld[:rows]
        self.meld_ok = self.meld_ok[:rows]
        self.dead = self.dead[:rows]
        self.dead_ok = self.dead_ok[:rows]
        del self.at[rows:]
        del self.note[rows:]


def game_rows(events: Iterable[Event], source: str, head: str, sealed: bool,
              into: Columns | None = None) -> Columns:
    """Replay a game (every event checked: raises `IllegalMove`) and return its rows.

    `head` and `sealed` describe the log (see `chain.Chain`); `source` names where it was read.
    With `into`, the rows are appended to it (and it is returned), all of them or, when the
    game raises, none. Where `into` holds its events rows natively (`Columns.native`), a row
    they cannot hold moves them to the plain lists (`Columns.to_lists`, the game's rows so far
    with them) and the replay goes on in the lists: each event is played once.
    """
    native = None if into is None else into.native
    if native is None:
        return _game_rows(events, source, head, sealed, into, _EventColumns(), 0)
    rows = len(native)
    try:
        return _game_rows(events, source, head, sealed, into, native, rows)
    except BaseException:
        if into is not None and into.native is native:  # still native: the game's rows dropped
            native.cut(rows)
        raise


def _game_rows(events: Iterable[Event], source: str, head: str, sealed: bool,
               into: Columns | None, cols: _EventRows, start: int) -> Columns:
    """`game_rows`, the events rows built by `cols`: `into.native` (the game's rows from row
    `start` on) or plain lists of this game's own."""
    rows = Columns()
    state = GameState()
    evs = events if isinstance(events, list) else list(events)
    # one pass: each event is checked and applied, then its row read (the turn before it, the
    # hand after it from the engine, the rest from the event)
    dealt: HandStarted | None = None  # the current hand's hand_started
    n_events = n_turns = 0  # the events and turns of the current hand so far
    # the audit's verdict on what `play` does not refuse: the claims and the deal commitments
    commitments = Commitments()
    bad_deal = bad_score = False
    for ev in evs:
        turn = state.turn
        play(state, ev)
        if not cols.add(ev, turn, state.hand_no):
            # a value the machine ints cannot hold: the game goes on in plain lists, its rows so
            # far with it, and the chunk's earlier rows move to `into`'s lists before them
            native = cast(EventBuffers, cols)
            cols = native.rows_as_lists(start, len(native))
            native.cut(start)
            cast(Columns, into).to_lists()
            cols.add(ev, turn, state.hand_no)
        kind = type(ev)
        n_events += 1
        if kind is _DREW or kind is _TOOKPILE:  # RULES 2: a turn begins with a draw or the pile
            n_turns += 1
        elif kind is _HANDSTARTED:
            dealt = cast(HandStarted, ev)
            n_events, n_turns = 1, 0
            bad_deal |= commitments.deal(dealt) is not None
        elif kind is _HANDENDED:
            assert dealt is not None  # the engine ends no hand before its deal
            ended = cast(HandEnded, ev)
            bad_score |= not _hand_end_rows(rows, state.game_id, state, ended, dealt.first,
                                            n_turns, n_events)
            bad_deal |= commitments.ended(ended) is not None
        elif kind is _GAMEENDED:
            over = cast(GameEnded, ev)
            bad_score |= list(over.totals) != state.totals or over.winner != state.winner
            bad_deal |= commitments.game_ended(ev.seq) is not None
    if state.phase == "start":
        raise ValueError("empty log: no game_started line")
    complete = state.phase == "over"
    problems = [kind for kind, found in (
        ("deal", bad_deal), ("score", bad_score), ("unfinished", not complete),
        ("unsealed", not sealed)) if found]
    rows.add(
        "games", game_id=state.game_id, variant=variant_name(state.variant),
        players=list(state.players), n_players=state.n_players, target=state.rules.target, hands=len(state.hand_results),
        totals=list(state.totals), winner=state.winner,
        first_team=team_of(state.first_of_game) if state.hand_no >= 0 else None,
        events=state.next_seq, complete=complete, sealed=sealed, head=head, source=source,
        audit_ok=not any(kind in FAILING for kind in problems), audit_problems=problems,
        # no ruling read yet: the totals after rulings are the recount's (`ingest` reads them)
        ruled_totals=list(state.totals), ruled_winner=state.winner, rulings=0,
    )
    out = rows if into is None else into.extend(rows)
    if isinstance(cols, EventBuffers):
        cols.end_game(state.game_id)
    else:
        ecols = out.data["events"]
        for name, values in cast(_EventColumns, cols).columns(state.game_id).items():
            ecols[name].extend(values)
    return out
