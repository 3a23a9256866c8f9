"""Properties over random legal games of every preset, 2 and 4 players (hypothesis picks the seed).

At every event: the deck is conserved; every event `legal_events` offers passes `check`; events
that are not offered are rejected without changing the state; `next_state` leaves its input alone.
At the end: `replay` of the log equals the live state. Hands rotate their first player (RULES 1).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from helpers import random_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buraco_events.core.cards import ALL_CARDS, make_deck
from buraco_events.core.deal import all_cards
from buraco_events.core.engine import check, next_state, replay
from buraco_events.core.gate import IllegalMove, team_of
from buraco_events.core.melds import classify
from buraco_events.core.moves import legal_events
from buraco_events.core.state import GameState
from buraco_events.model.events import (
    Discarded,
    Drew,
    Event,
    HandStarted,
    LaidOff,
    Melded,
    StockRefilled,
    TookDead,
    TookPile,
)
from buraco_events.model.rules import PRESETS
from buraco_events.views.projections import player_view

VARIANTS = st.sampled_from(list(PRESETS))
PLAYERS = st.sampled_from([2, 4])
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_rejected(state: GameState, ev: Event) -> None:
    """Assert `check` refuses the event and the state is untouched."""
    before = state.copy()
    try:
        check(state, ev)
    except IllegalMove as exc:
        assert exc.seq == ev.seq and exc.phase == state.phase and exc.reason
    else:
        raise AssertionError(f"not offered but accepted: {ev!r}")
    assert state == before


def mutants(state: GameState, rng: random.Random) -> list[Event]:
    """Return a few random events of the kinds `legal_events` lists completely."""
    seq, n = state.next_seq, max(state.n_players, 1)
    player = rng.randrange(n) if rng.random() < 0.3 else state.to_play
    card = rng.choice(ALL_CARDS)
    pile = tuple(state.pile)
    dead = rng.randrange(2)
    cards = state.deads.left[dead] if state.deads.left and state.deads.left[dead] is not None else (card,)
    out: list[Event] = [
        Drew(seq=seq, player=player, card=card),
        TookPile(seq=seq, player=player, cards=pile if rng.random() < 0.7 else pile[1:] + (card,)),
        Discarded(seq=seq, player=player, card=card),
        TookDead(seq=seq, player=player, dead=dead, cards=cards),
        StockRefilled(seq=seq, dead=dead),
        Drew(seq=seq + 1, player=state.to_play, card=state.stock[-1] if state.stock else card),
    ]
    return out


def random_meld(state: GameState, rng: random.Random) -> Event | None:
    """Return a meld of 3-5 random cards of the mover's hand, or None outside the play phase."""
    if state.phase != "play":
        return None
    held = list(Counter(state.hands[state.to_play]).elements())
    if len(held) < 3:
        return None
    cards = tuple(rng.sample(held, rng.randint(3, min(5, len(held)))))
    team_melds = [m.id for m in state.melds if m.team == team_of(state.to_play)]
    if team_melds and rng.random() < 0.5:
        return LaidOff(seq=state.next_seq, player=state.to_play, meld=rng.choice(team_melds), cards=cards[:2])
    return Melded(seq=state.next_seq, player=state.to_play, meld=len(state.melds), cards=cards)


def walk(events: list[Event], seed: int) -> GameState:
    """Fold the events with `next_state`, checking every property at every step; return the end state."""
    rng = random.Random(seed)
    state = GameState()
    deck: Counter[str] | None = None
    for ev in events:
        offered = legal_events(state)
        for legal in offered:
            check(state, legal)  # every offered event passes its own check
        for bad in mutants(state, rng):
            if bad not in offered:
                assert_rejected(state, bad)
        play_ev = random_meld(state, rng)
        if play_ev is not None and play_ev not in offered:
            before = state.copy()
            try:
                check(state, play_ev)
            except IllegalMove:
                assert state == before
            else:
                # candidates are not every legal play, but anything accepted must be a legal meld
                base = state.melds[play_ev.meld].cards if isinstance(play_ev, LaidOff) else ()
                assert classify(base + tuple(play_ev.cards), state.rules) is not None
        before = state.copy()
        new = next_state(state, ev)
        assert state == before  # next_state is pure
        state = new
        if deck is None and state.hand_no >= 0:
            deck = Counter(make_deck(state.rules.jokers))
        if deck is not None:
            assert all_cards(state) == deck, f"cards not conserved after {ev!r}"
    return state


@pytest.mark.slow
@FAST
@given(variant=VARIANTS, n_players=PLAYERS, seed=SEEDS)
def test_single_hand_games(variant: str, n_players: int, seed: int) -> None:
    events = random_game(variant, n_players, seed, target=0)
    end = walk(events, seed)
    # target 0: a single hand, or the hands of a tournament turn, which may end tied (RULES 8)
    hands = PRESETS[variant].hands_per_game or 1
    assert end.phase == "over" and len(end.hand_results) == hands
    assert end.winner is not None or (hands > 1 and end.totals[0] == end.totals[1])
    # replay of the log gives the live state, as everyone would see it
    assert player_view(replay(events), None) == player_view(end, None)
    assert all_cards(end).total() == PRESETS[variant].deck_size


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=VARIANTS, n_players=PLAYERS, seed=SEEDS)
def test_whole_matches(variant: str, n_players: int, seed: int) -> None:
    # multi-hand matches (preset targets, 2000 where the preset has none): rotation and target
    target = PRESETS[variant].target or 2000
    events = random_game(variant, n_players, seed, target=target)
    end = walk(events, seed)
    assert end.phase == "over"
    deals = [e for e in events if isinstance(e, HandStarted)]
    assert [d.hand for d in deals] == list(range(len(deals)))
    first0 = deals[0].first
    assert [d.first for d in deals] == [(first0 + d.hand) % n_players for d in deals]  # RULES 1
    # RULES 8: the match ends with the first hand where a team reaches the target, or after a
    # tournament turn's hands whatever the totals (equal totals: a tie)
    hands = PRESETS[variant].hands_per_game
    running = [0, 0]
    for i, result in enumerate(end.hand_results):
        running = [running[s.team] + s.total for s in result]
        if not hands:
            assert (max(running) >= target) == (i == len(end.hand_results) - 1)
    assert end.totals == running
    best = max(running)
    if hands:
        assert len(end.hand_results) == hands
        assert end.winner == (running.index(best) if running.count(best) == 1 else None)
    else:
        assert end.winner == (running.index(best) if running.count(best) == 1 else team_of(first0))
    assert player_view(replay(events), None) == player_view(end, None)


@settings(max_examples=20, deadline=None)
@given(variant=VARIANTS, n_players=PLAYERS, seed=SEEDS, cut=st.floats(0, 1))
def test_replay_prefix_equals_live(variant: str, n_players: int, seed: int, cut: float) -> None:
    # any prefix of a log replays to the state the live game had then (step-by-step replay)
    events = random_game(variant, n_players, seed, target=0)
    k = int(cut * (len(events) - 1)) + 1
    live = GameState()
    for ev in events[:k]:
        live = next_state(live, ev)
    assert player_view(replay(events[:k]), None) == player_view(live, None)
    for seat in range(n_players):
        assert player_view(replay(events[:k]), seat) == player_view(live, seat)
