"""The score sheets of the hand in play: both teams' sheets as the hand stands (`hand_scores`, kept
on the state for the next ask of the same position) and without the cards still held
(`table_scores`, what every seat may see).

Its own module: it reads a state and asks `scoring` (whose Structs keep it uncompiled) to count;
the engine asks it when a hand ends, the views and the table on every turn.
"""

from __future__ import annotations

from buraco_events.model.scoring import TeamScore, score_team

from .cards import Card, team_of
from .melds import CanastaKind
from .state import GameState, elements


def hand_scores(state: GameState) -> tuple[TeamScore, TeamScore]:
    """Return both teams' score sheets for the hand as it stands (RULES 7); kept on the state
    (`GameState.scored`) for the next ask of the same position."""
    key = _sheets_key(state)
    last = state.scored
    if last is not None and last[0] == key:
        return last[1]
    sheets = _sheets(state, True)
    state.scored = (key, sheets)
    return sheets


def _sheets_key(state: GameState) -> tuple[object, ...]:
    """Return what `_sheets` reads of a state to count the cards held, by value (the hands are
    copied: they change in place; melds are immutable)."""
    return (
        state.rules, tuple(state.melds), tuple([h.copy() for h in state.hands]), tuple(state.unused_seat),
        tuple(state.team_dead), state.closed_by, state.to_play, state.pending_top, tuple(state.pending_rest),
    )


def table_scores(state: GameState) -> tuple[TeamScore, TeamScore]:
    """Return both teams' sheets without the cards still held (their `hand_penalty` is 0).

    What every seat may see during a hand: the cards held (and an unused dead counted as hand
    cards) would tell what the hands hold.
    """
    return _sheets(state, False)


def _sheets(state: GameState, count_hands: bool) -> tuple[TeamScore, TeamScore]:
    rules = state.rules
    by_team: tuple[list[tuple[tuple[Card, ...], CanastaKind | None]], ...] = ([], [])
    for m in state.melds:
        by_team[m.team].append((m.shape.cards, m.canasta(rules)))
    out = []
    for team in (0, 1):
        unused = state.unused_seat[team]
        hand_cards: list[Card] = []
        dead_cards: list[Card] = []
        if count_hands:
            for seat in range(state.n_players):
                if team_of(seat) == team:
                    (dead_cards if seat == unused else hand_cards).extend(elements(state.hands[seat]))
            if state.pending_top is not None and team_of(state.to_play) == team:
                hand_cards.append(state.pending_top)
                hand_cards.extend(state.pending_rest)
        out.append(
            score_team(
                rules, team, by_team[team], hand_cards, dead_cards,
                closed=state.closed_by is not None and team_of(state.closed_by) == team,
                took_dead=state.team_dead[team] is not None,
                dead_unused=unused is not None,
            )
        )
    return out[0], out[1]


