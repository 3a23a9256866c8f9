"""Rows: one game's events replayed through the engine and flattened into analytics table rows.

Pure: no I/O, no duckdb. Every number here comes from the engine (checked `play`, the final
state of each hand, `state.hand_results`) or from the events themselves; nothing re-implements a
rule or a score. `analytics` turns the columns into Arrow tables and stores them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final, cast

from .cards import ALL_CARDS, JOKER, team_of
from .engine import GameState, play
from .events import (
    TAGS,
    Discarded,
    Drew,
    Event,
    HandEnded,
    HandStarted,
    LaidOff,
    Melded,
    Note,
    TookDead,
    TookPile,
)
from .projections import meld_kind
from .rules import UnknownVariant, canonical_variant

#: the column names of each table, in table order (the analytics schema mirrors them)
COLUMNS: dict[str, tuple[str, ...]] = {
    "games": (
        "game_id", "variant", "players", "n_players", "target", "hands", "totals", "winner",
        "first_team", "events", "complete", "sealed", "head", "source",
    ),
    "hands": (
        "game_id", "hand", "first", "reason", "closed_by", "turns", "events", "scores",
        "claimed_scores", "claims_match",
    ),
    "events": (
        "game_id", "seq", "hand", "turn", "type", "player", "team", "cards", "card", "meld",
        "dead", "n_cards", "at", "note",
    ),
    "melds": (
        "game_id", "hand", "meld", "team", "type", "n_cards", "cards", "kind", "clean",
        "has_joker", "laid_by", "laid_seq", "canasta_seq",
    ),
    "team_hands": (
        "game_id", "hand", "team", "meld_points", "canasta_bonus", "close_bonus", "hand_penalty",
        "dead_penalty", "took_dead", "dead_direct", "dead_unused", "canastas", "total",
    ),
}

#: the event classes `game_rows` tells apart (Final: compiled, no lookup in the module's globals)
_DREW: Final = Drew
_TOOKPILE: Final = TookPile
_HANDSTARTED: Final = HandStarted
_HANDENDED: Final = HandEnded


class Columns:
    """Column lists for every table, filled game by game (cheap to turn into Arrow tables)."""

    def __init__(self) -> None:
        self.data: dict[str, dict[str, list[Any]]] = {
            t: {c: [] for c in cols} for t, cols in COLUMNS.items()
        }

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
        return {table: len(cols["game_id"]) for table, cols in self.data.items()}

    def rows(self, starts: dict[str, int], counts: dict[str, int]) -> Columns:
        """Return a copy of `counts[table]` rows of each table from `starts[table]` on."""
        part = Columns()
        for table, cols in self.data.items():
            start, end = starts[table], starts[table] + counts[table]
            part.data[table] = {name: values[start:end] for name, values in cols.items()}
        return part

    def count(self, table: str) -> int:
        """Return the number of rows held for a table."""
        return len(self.data[table]["game_id"])

    def clear(self) -> None:
        """Drop every row."""
        for cols in self.data.values():
            for values in cols.values():
                values.clear()


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
Parts = tuple[int | None, list[str] | None, str | None, int | None, int | None, str | None]


def _generic_parts(ev: Event) -> Parts:
    """Return an event's field columns by asking for each field (any event class)."""
    fields: tuple[str, ...] = ev.__struct_fields__
    return (_field(ev, fields, "player"), _cards_of(ev, fields), _field(ev, fields, "card"),
            _field(ev, fields, "meld"), _field(ev, fields, "dead"),
            ev.text if isinstance(ev, Note) else None)


def _hand_end_rows(out: Columns, game_id: str, state: GameState, ev: HandEnded,
                   first: int, turns: int, n_events: int) -> None:
    """Record a finished hand: its summary, its final melds and both teams' score sheets."""
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
    direct = state.team_dead_direct
    for s in result:  # in COLUMNS["team_hands"] order
        out.add_values("team_hands", (
            game_id, hand, s.team, s.meld_points, s.canasta_bonus, s.close_bonus, s.hand_penalty,
            s.dead_penalty, s.took_dead, s.took_dead and direct[s.team], s.dead_unused,
            sum(s.canastas.values()), s.total,
        ))


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


class _EventColumns:
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

    def add(self, ev: Event, turn: int | None, hand: int) -> None:
        """Append one event's row; `turn` is the engine's turn before it, `hand` its hand after
        it (-1 before the first deal: no hand)."""
        shape = _SHAPE.get(type(ev), 0)
        card: str | None = None
        cards: Sequence[str] | None
        meld: int | None = None
        dead: int | None = None
        note: str | None = None
        if shape == _CARD:
            drew = cast(Drew, ev)  # a discard's fields have the same names
            player: int | None = drew.player
            card = drew.card
            cards = _ONE_CARD[card]
        elif shape:
            took = cast(TookDead, ev)  # took_pile, melded and laid_off name their fields alike
            player = took.player
            cards = took.cards
            if shape == _MELD:
                meld = cast(Melded, ev).meld
            elif shape == _DEAD:
                dead = took.dead
        else:
            player, cards, card, meld, dead, note = _generic_parts(ev)
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

    def columns(self, game_id: str) -> dict[str, list[Any]]:
        """Return the columns by name, in table order (`COLUMNS["events"]`)."""
        return {
            "game_id": [game_id] * len(self.seq), "seq": self.seq, "hand": self.hand,
            "turn": self.turn, "type": self.type, "player": self.player, "team": self.team,
            "cards": self.cards, "card": self.card, "meld": self.meld, "dead": self.dead,
            "n_cards": self.n_cards, "at": self.at, "note": self.note,
        }


def game_rows(events: Iterable[Event], source: str, head: str, sealed: bool,
              into: Columns | None = None) -> Columns:
    """Replay a game (every event checked: raises `IllegalMove`) and return its rows.

    `head` and `sealed` describe the log (see `log.Chain`); `source` names where it was read.
    With `into`, the rows are appended to it (and it is returned), all of them or, when the
    game raises, none.
    """
    rows = Columns()
    state = GameState()
    evs = events if isinstance(events, list) else list(events)
    # one pass: each event is checked and applied, then its row read (the turn before it, the
    # hand after it from the engine, the rest from the event)
    cols = _EventColumns()
    dealt: HandStarted | None = None  # the current hand's hand_started
    n_events = n_turns = 0  # the events and turns of the current hand so far
    for ev in evs:
        turn = state.turn
        play(state, ev)
        cols.add(ev, turn, state.hand_no)
        kind = type(ev)
        n_events += 1
        if kind is _DREW or kind is _TOOKPILE:  # RULES 2: a turn begins with a draw or the pile
            n_turns += 1
        elif kind is _HANDSTARTED:
            dealt = cast(HandStarted, ev)
            n_events, n_turns = 1, 0
        elif kind is _HANDENDED:
            assert dealt is not None  # the engine ends no hand before its deal
            _hand_end_rows(rows, state.game_id, state, cast(HandEnded, ev), dealt.first,
                           n_turns, n_events)
    if state.phase == "start":
        raise ValueError("empty log: no game_started line")
    rows.add(
        "games", game_id=state.game_id, variant=variant_name(state.variant),
        players=list(state.players), n_players=state.n_players, target=state.rules.target, hands=len(state.hand_results),
        totals=list(state.totals), winner=state.winner,
        first_team=team_of(state.first_of_game) if state.hand_no >= 0 else None,
        events=state.next_seq, complete=state.phase == "over", sealed=sealed, head=head,
        source=source,
    )
    columns = cols.columns(state.game_id)
    out = rows if into is None else into.extend(rows)
    ecols = out.data["events"]
    for name, values in columns.items():
        ecols[name].extend(values)
    return out
