"""Rows: one game's events replayed through the engine and flattened into analytics table rows.

Pure: no I/O, no duckdb. Every number here comes from the engine (checked `play`, the final
state of each hand, `state.hand_results`) or from the events themselves; nothing re-implements a
rule or a score. `analytics` turns the columns into Arrow tables and stores them.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import repeat
from operator import attrgetter
from typing import Any

from .cards import ALL_CARDS, JOKER
from .engine import GameState, play, team_of
from .events import EVENT_TYPES, TAGS, Drew, Event, HandEnded, HandStarted, Note, TookPile
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

#: event classes that start a turn (RULES 2: a turn begins with a draw or the pile)
_TURN_STARTS: frozenset[type[Event]] = frozenset((Drew, TookPile))


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
        for column, value in zip(self.data[table].values(), values, strict=True):
            column.append(value)

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


def _cards_of(ev: Event) -> list[str] | None:
    cards = getattr(ev, "cards", None)
    if cards is not None:
        return list(cards)
    card = getattr(ev, "card", None)
    return [card] if card is not None else None


#: the per-event columns that depend on the event's fields: player, cards, card, meld, dead, note
Parts = tuple[int | None, list[str] | None, str | None, int | None, int | None, str | None]


def _generic_parts(ev: Event) -> Parts:
    """Return an event's field columns by asking for each field (any event class)."""
    return (getattr(ev, "player", None), _cards_of(ev), getattr(ev, "card", None),
            getattr(ev, "meld", None), getattr(ev, "dead", None),
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


def _fields(cls: type) -> frozenset[str]:
    return frozenset(getattr(cls, "__struct_fields__", ()))


#: event classes whose field columns the column-wise reader fills right: a player, cards or a
#: card, and no note; every other event (the game's and hands' starts and ends, refills, notes:
#: a few per hand) is read by `_generic_parts` after it
_REGULAR: frozenset[type] = frozenset(
    cls for cls in EVENT_TYPES
    if "player" in _fields(cls) and _fields(cls) & {"cards", "card"} and cls is not Note
)


class _Tags(dict[type, str]):
    def __missing__(self, cls: type) -> str:
        return str(cls.__struct_config__.tag)  # type: ignore[attr-defined]


#: the tag of each event class (another class is looked up)
_TAG_OF = _Tags({cls: tag for tag, cls in TAGS.items()})
#: a regular event's cards when it has a card (drew, discarded) rather than cards
_ONE_CARD: dict[str | None, tuple[str, ...]] = {c: (c,) for c in ALL_CARDS}
_ONE_CARD[None] = ()
_SEQ = attrgetter("seq")
_AT = attrgetter("at")


class _Teams(dict[int | None, int | None]):
    def __missing__(self, seat: int) -> int:
        return team_of(seat)


#: the team of each seat (the engine's `team_of`, kept for seats 0..3), and no team for no seat
_TEAM_OF = _Teams({seat: team_of(seat) for seat in range(4)})
_TEAM_OF[None] = None


def _event_columns(game_id: str, events: list[Event], turns: list[int | None],
                   hands: list[int | None], irregular: list[int]) -> dict[str, list[Any]]:
    """Return the events table's columns of a game, column by column (C-level maps rather than
    a row per event): every event read as a regular one, then the `irregular` ones (by index)
    read again by `_generic_parts`. `turns` and `hands` are the engine's turn before and hand
    after each event."""
    n = len(events)
    player = list(map(getattr, events, repeat("player"), repeat(None)))
    card = list(map(getattr, events, repeat("card"), repeat(None)))
    cards = list(map(getattr, events, repeat("cards"), map(_ONE_CARD.__getitem__, card)))
    n_cards: list[int | None] = list(map(len, cards))
    note: list[str | None] = [None] * n
    cols: dict[str, list[Any]] = {
        "game_id": [game_id] * n, "seq": list(map(_SEQ, events)), "hand": hands, "turn": turns,
        "type": list(map(_TAG_OF.__getitem__, map(type, events))), "player": player,
        "team": list(map(_TEAM_OF.__getitem__, player)), "cards": cards, "card": card,
        "meld": list(map(getattr, events, repeat("meld"), repeat(None))),
        "dead": list(map(getattr, events, repeat("dead"), repeat(None))), "n_cards": n_cards,
        "at": list(map(_AT, events)), "note": note,
    }
    team = cols["team"]
    dead = cols["dead"]
    meld = cols["meld"]
    for i in irregular:
        p, c, one, m, d, text = _generic_parts(events[i])
        if p is None:
            turns[i] = None
        player[i], team[i], cards[i], card[i], meld[i], dead[i], note[i] = (
            p, None if p is None else team_of(p), c, one, m, d, text)
        n_cards[i] = None if c is None else len(c)
    return cols


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
    # the loop keeps to what only the engine knows per event (the turn before it, the hand
    # after it); every other column is read from the events afterwards, column by column
    turns: list[int | None] = []
    hands: list[int | None] = []
    irregular: list[int] = []  # events `_event_columns` reads again (a few per hand)
    add_turn, add_hand, regular = turns.append, hands.append, _REGULAR
    start = 0  # index of the current hand's hand_started
    for ev in evs:
        add_turn(state.turn)
        play(state, ev)
        add_hand(state.hand_no)
        if type(ev) not in regular:
            i = len(hands) - 1
            irregular.append(i)
            if isinstance(ev, HandStarted):
                start = i
            elif isinstance(ev, HandEnded):
                dealt = evs[start]
                assert isinstance(dealt, HandStarted)
                n_turns = sum(map(_TURN_STARTS.__contains__, map(type, evs[start:i + 1])))
                _hand_end_rows(rows, state.game_id, state, ev, dealt.first, n_turns, i + 1 - start)
    if state.phase == "start":
        raise ValueError("empty log: no game_started line")
    if -1 in hands:  # the engine's hand before the first deal: no hand
        hands = [None if h == -1 else h for h in hands]
    rows.add(
        "games", game_id=state.game_id, variant=variant_name(state.variant),
        players=list(state.players), n_players=state.n_players, target=state.rules.target, hands=len(state.hand_results),
        totals=list(state.totals), winner=state.winner,
        first_team=team_of(state.first_of_game) if state.hand_no >= 0 else None,
        events=state.next_seq, complete=state.phase == "over", sealed=sealed, head=head,
        source=source,
    )
    columns = _event_columns(state.game_id, evs, turns, hands, irregular)
    out = rows if into is None else into.extend(rows)
    ecols = out.data["events"]
    for name, values in columns.items():
        ecols[name].extend(values)
    return out
