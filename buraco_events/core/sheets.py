"""The score sheets of the hand in play: both teams' sheets as the hand stands (`hand_scores`, kept
on the state for the next ask of the same position) and without the cards still held
(`table_scores`, what every seat may see).

Its own module: it reads a state and asks `scoring` (whose Structs keep it uncompiled) to count;
the engine asks it when a hand ends, the views and the table on every turn.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from buraco_events.model.events import GameEnded, HandEnded
from buraco_events.model.rules import Rules
from buraco_events.model.scoring import TeamScore

from .cards import ALL_CARDS, Card, card_value
from .deads import deads_became_stock
from .gate import team_of
from .melds import CanastaKind, canasta_bonus
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
        state.rules, tuple(state.melds), tuple([h.copy() for h in state.hands]), tuple(state.deads.unused),
        tuple(state.deads.team_took), tuple(state.deads.fate), state.closed_by, state.to_play, state.pending_top, tuple(state.pending_rest),
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
        unused = state.deads.unused[team]
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
                took_dead=state.deads.team_took[team] is not None,
                dead_unused=unused is not None,
                dead_spared=not rules.dead_penalty_after_refill and deads_became_stock(state, team),
            )
        )
    return out[0], out[1]


# -- the arithmetic: card points, a team's sheet, the match's result --------------------------------


@lru_cache(maxsize=64)
def _values(two_value: int, joker_value: int) -> dict[Card, int]:
    return {c: card_value(c, two_value, joker_value) for c in ALL_CARDS}


def cards_value(cards: Iterable[Card], rules: Rules) -> int:
    """Return the summed card values (RULES 7)."""
    values = _values(rules.two_value, rules.joker_value)
    return sum(map(values.__getitem__, cards))


def score_team(
    rules: Rules,
    team: int,
    melds: Iterable[tuple[Sequence[Card], CanastaKind | None]],
    hand_cards: Iterable[Card],
    unused_dead_cards: Sequence[Card],
    closed: bool,
    took_dead: bool,
    dead_unused: bool,
    dead_spared: bool = False,
) -> TeamScore:
    """Return a team's breakdown.

    `melds` are the team's melds as (cards, canasta kind or None); `hand_cards` are the cards left
    in the team's hands except an unused dead's, which come apart in `unused_dead_cards`;
    `dead_spared`: a team that took no dead is not charged for it (`dead_penalty_after_refill`
    no, and the deads became the stock before it could take one: RULES 7).
    """
    value = _values(rules.two_value, rules.joker_value).__getitem__
    meld_points = 0
    bonus = 0
    canastas: dict[str, int] = {}
    for cards, kind in melds:
        meld_points += sum(map(value, cards))
        if kind is not None:
            bonus += canasta_bonus(kind, rules)
            canastas[kind] = canastas.get(kind, 0) + 1
    hand_penalty = -sum(map(value, hand_cards))
    dead_penalty = 0
    if not took_dead:
        if not dead_spared:
            dead_penalty -= rules.no_dead_penalty
    elif dead_unused:
        if rules.unused_dead == "penalty":
            dead_penalty -= rules.unused_dead_penalty  # RULES 7: its cards are not counted
        else:
            hand_penalty -= cards_value(unused_dead_cards, rules)  # counted as hand cards
    close_bonus = rules.close_bonus if closed else 0
    return TeamScore(
        team=team, meld_points=meld_points, canasta_bonus=bonus, close_bonus=close_bonus,
        hand_penalty=hand_penalty, dead_penalty=dead_penalty,
        total=meld_points + bonus + close_bonus + hand_penalty + dead_penalty,
        canastas=canastas, took_dead=took_dead, dead_unused=dead_unused,
    )


def match_result(
    totals: Sequence[int], target: int, first_team: int, hands_played: int, hands_per_game: int = 0
) -> int | None:
    """Return the winning team once the match is over, else None (RULES 8).

    Over after one hand when `target` is 0, else when a team reaches `target`; the higher total
    wins, an exact tie goes to `first_team` (the team that played first in hand 0). With
    `hands_per_game` n > 0, over after n hands whatever the totals; equal totals are a tie, None
    (`match_over` tells a tie from a match going on).
    """
    if hands_played == 0:
        return None
    if hands_per_game > 0:
        if hands_played < hands_per_game or totals[0] == totals[1]:
            return None
        return 0 if totals[0] > totals[1] else 1
    if target > 0 and max(totals) < target:
        return None
    best = max(totals)
    leaders = [t for t, v in enumerate(totals) if v == best]
    return leaders[0] if len(leaders) == 1 else first_team


def match_over(winner: int | None, hands_played: int, hands_per_game: int) -> bool:
    """Return whether the match is over (RULES 8): a team won (`match_result`), or a tournament
    turn played its `hands_per_game` hands, which may end in a tie (no winner)."""
    return winner is not None or 0 < hands_per_game <= hands_played


# -- the events that end a hand and a game --------------------------------------------------------


def end_of_hand(state: GameState, salt: str | None = None) -> HandEnded:
    """Return the `hand_ended` event the engine would record now, with the recomputed scores."""
    scores = tuple(s.total for s in hand_scores(state))
    return HandEnded(
        seq=state.next_seq, hand=state.hand_no, reason=state.end_reason or "stock_exhausted",
        closed_by=state.closed_by, scores=scores, salt=salt,
    )


def end_of_game(state: GameState) -> GameEnded:
    """Return the `game_ended` event for a finished match (`winner` None: a tie, RULES 8)."""
    return GameEnded(seq=state.next_seq, totals=tuple(state.totals), winner=state.winner)
