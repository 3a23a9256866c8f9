"""The reference row builder: a plain `rows.game_rows` (one tuple per event through per-class
field readers), written for reading rather than speed, the oracle of tests/test_rows.py: the faster
builder must give the same rows, value for value, on every log. The tables' columns, the column
store and the variant's name are `rows`' own (the schema, not the row building under test)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from buraco_events.analytics.rows import COLUMNS, Columns, variant_name
from buraco_events.audit.auditor import audit_lines
from buraco_events.audit.verdicts import FAILING, KINDS
from buraco_events.core.cards import JOKER
from buraco_events.core.engine import play
from buraco_events.core.gate import team_of
from buraco_events.core.state import GameState
from buraco_events.model.events import (
    Discarded,
    Drew,
    Event,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    LaidOff,
    Melded,
    Note,
    StockRefilled,
    TookDead,
    TookPile,
    encode_event,
    event_type,
)
from buraco_events.views.projections import meld_kind

#: event types that start a turn (RULES 2: a turn begins with a draw or the pile)
_TURN_STARTS = frozenset({"drew", "took_pile"})


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


def _card_parts(ev: Drew | Discarded) -> Parts:
    return ev.player, [ev.card], ev.card, None, None, None


def _took_pile_parts(ev: TookPile) -> Parts:
    return ev.player, list(ev.cards), None, None, None, None


def _play_parts(ev: Melded | LaidOff) -> Parts:
    return ev.player, list(ev.cards), None, ev.meld, None, None


def _took_dead_parts(ev: TookDead) -> Parts:
    return ev.player, list(ev.cards), None, None, ev.dead, None


def _refill_parts(ev: StockRefilled) -> Parts:
    return None, None, None, None, ev.dead, None


def _note_parts(ev: Note) -> Parts:
    return None, None, None, None, None, ev.text


def _no_parts(ev: Event) -> Parts:
    return None, None, None, None, None, None


#: the field columns of each event class of the contract, read without a getattr/isinstance per
#: field; a class missing here falls back to `_generic_parts` (the tests compare both on every
#: class)
_PARTS: dict[type, Callable[[Any], Parts]] = {
    Drew: _card_parts, Discarded: _card_parts, TookPile: _took_pile_parts,
    Melded: _play_parts, LaidOff: _play_parts, TookDead: _took_dead_parts,
    StockRefilled: _refill_parts, Note: _note_parts,
    GameStarted: _no_parts, HandStarted: _no_parts, HandEnded: _no_parts, GameEnded: _no_parts,
}


def _hand_end_rows(out: Columns, game_id: str, state: GameState, ev: HandEnded,
                   first: int, turns: int, n_events: int) -> None:
    """Record a finished hand: its summary, its final melds and both teams' score sheets."""
    rules = state.rules
    result = state.hand_results[-1]
    scores = [s.total for s in result]
    out.add(
        "hands", game_id=game_id, hand=ev.hand, first=first, reason=state.end_reason,
        closed_by=state.closed_by, turns=turns, events=n_events, scores=scores,
        claimed_scores=list(ev.scores), claims_match=scores == list(ev.scores),
    )
    hand = ev.hand
    for m in state.melds:  # in COLUMNS["melds"] order
        cards = m.shape.cards
        out.add_values("melds", (
            game_id, hand, m.id, m.team, m.shape.type, len(cards), list(cards),
            meld_kind(m.canasta(rules)), m.shape.is_clean, JOKER in cards, m.laid_by, m.laid_seq,
            m.canasta_seq,
        ))
    for s in result:
        out.add(
            "team_hands", game_id=game_id, hand=ev.hand, team=s.team, meld_points=s.meld_points,
            canasta_bonus=s.canasta_bonus, close_bonus=s.close_bonus, hand_penalty=s.hand_penalty,
            dead_penalty=s.dead_penalty, took_dead=s.took_dead,
            dead_direct=s.took_dead and state.deads.direct[s.team],
            dead_unused=s.dead_unused, canastas=sum(s.canastas.values()), total=s.total,
        )


def game_rows(events: Iterable[Event], source: str, head: str, sealed: bool) -> Columns:
    """Replay a game (every event checked: raises `IllegalMove`) and return its rows.

    `head` and `sealed` describe the log (see `chain.Chain`); `source` names where it was read.
    """
    events = list(events)
    rows = Columns()
    state = GameState()
    first = turns = hand_events = 0
    # the events table is the big one: one tuple per event, turned into its columns at the end
    # (one C-level transpose rather than 14 appends per event)
    erows: list[tuple[Any, ...]] = []
    add_row = erows.append
    parts_of = _PARTS.get
    for ev in events:
        turn = state.turn
        play(state, ev)
        kind = event_type(ev)
        player, cards, card, meld, dead, note = parts_of(type(ev), _generic_parts)(ev)
        hand_no = state.hand_no
        if player is None:
            add_row((state.game_id, ev.seq, hand_no if hand_no >= 0 else None, None, kind, None,
                     None, cards, card, meld, dead, len(cards) if cards is not None else None,
                     ev.at, note))
        else:
            add_row((state.game_id, ev.seq, hand_no if hand_no >= 0 else None, turn, kind, player,
                     team_of(player), cards, card, meld, dead,
                     len(cards) if cards is not None else None, ev.at, note))
        if isinstance(ev, HandStarted):
            first, turns, hand_events = ev.first, 0, 0
        hand_events += 1
        if kind in _TURN_STARTS:
            turns += 1
        if isinstance(ev, HandEnded):
            _hand_end_rows(rows, state.game_id, state, ev, first, turns, hand_events)
    if erows:
        ecols = rows.data["events"]
        for name, values in zip(COLUMNS["events"], zip(*erows, strict=True), strict=True):
            ecols[name].extend(values)
    if state.phase == "start":
        raise ValueError("empty log: no game_started line")
    rows.add(
        "games", game_id=state.game_id, variant=variant_name(state.variant),
        players=list(state.players), n_players=state.n_players, target=state.rules.target, hands=len(state.hand_results),
        totals=list(state.totals), winner=state.winner,
        first_team=team_of(state.first_of_game) if state.hand_no >= 0 else None,
        events=state.next_seq, complete=state.phase == "over", sealed=sealed, head=head,
        source=source, **_verdict(events, sealed),
        ruled_totals=list(state.totals), ruled_winner=state.winner, rulings=0,
    )
    return rows


def _verdict(events: list[Event], sealed: bool) -> dict[str, Any]:
    """Return the verdict columns as the audit itself gives them for the events' lines (the
    chain's and the lines' own kinds left out: those logs are never stored; sealing as given)."""
    kinds = set(audit_lines([encode_event(ev) for ev in events], "x").kind_counts)
    kinds -= {"format", "integrity", "unsealed"}
    if not sealed:
        kinds.add("unsealed")
    return {"audit_ok": not kinds & FAILING, "audit_problems": [k for k in KINDS if k in kinds]}

