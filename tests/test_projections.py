"""Projections: views never leak hidden cards, the timeline seeks exactly, melds keep a history."""

from __future__ import annotations

import functools
import random
import re
import time
from collections import Counter

import msgspec
import pytest
from helpers import random_game
from hypothesis import given, settings
from hypothesis import strategies as st

from buraco_events.core.cards import ALL_CARDS, sorted_cards
from buraco_events.core.engine import check, iter_states, play
from buraco_events.core.gate import IllegalMove, team_of
from buraco_events.core.melds import classify
from buraco_events.core.plays import iter_raw_plays
from buraco_events.core.state import PLAYING_PHASES, GameState
from buraco_events.model.events import (
    Discarded,
    Drew,
    HandEnded,
    HandStarted,
    LaidOff,
    Melded,
    TookDead,
    TookPile,
)
from buraco_events.model.rules import find_rules
from buraco_events.views.projections import (
    Timeline,
    describe,
    player_view,
    seat_error,
    wild_change,
    wild_stands_for,
)

# (variant, players, seed): closed and open piles, 2 and 4 players, refill and two_left
GAMES = [
    ("stbl", 2, 1), ("stbl-pl", 4, 0), ("fechado", 4, 2), ("fechado-sujo", 2, 0),
    ("burraco", 2, 0), ("aberto-sujo", 4, 0),
]


@pytest.fixture(scope="module")
def games() -> dict[tuple[str, int, int], list]:
    return {g: random_game(*g) for g in GAMES}


def _encode(state: GameState, seat: int | None) -> bytes:
    return msgspec.json.encode(player_view(state, seat))


def shuffle_hidden(state: GameState, seat: int, rng: random.Random) -> GameState:
    """Return a copy where every card `seat` may not see is dealt anew among the hidden zones.

    Hidden from `seat` (RULES 2, projections docstring): during a hand the other hands; always the
    stock order, the untaken deads, a closed pile below its top, and a closed pile just taken
    (its rest) when `seat` is not the taker. Zone sizes stay the same.
    """
    out = state.copy()
    playing = state.phase in PLAYING_PHASES
    zones: list[tuple[str, int | None, int]] = []
    if playing:
        zones += [("hand", s, state.hand_size(s)) for s in range(state.n_players) if s != seat]
    zones.append(("stock", None, len(state.stock)))
    zones += [("dead", i, len(d)) for i, d in enumerate(state.deads.left) if d is not None]
    closed = state.rules.pile == "closed"
    if closed and state.pile:
        zones.append(("pile", None, len(state.pile) - 1))
    if state.pending_top is not None and seat != state.to_play:
        zones.append(("pending", None, len(state.pending_rest)))
    pool: list[str] = []
    for kind, i, _ in zones:
        if kind == "hand":
            pool += list(Counter(state.hands[i]).elements())
        elif kind == "stock":
            pool += state.stock
        elif kind == "dead":
            pool += list(state.deads.left[i])
        elif kind == "pile":
            pool += state.pile[:-1]
        else:
            pool += state.pending_rest
    rng.shuffle(pool)
    for kind, i, n in zones:
        part, pool = pool[:n], pool[n:]
        if kind == "hand":
            out.hands[i] = Counter(part)
        elif kind == "stock":
            out.stock = part
        elif kind == "dead":
            out.deads.left[i] = tuple(part)
        elif kind == "pile":
            out.pile = part + state.pile[-1:]
        else:
            out.pending_rest = part
    return out


@pytest.mark.slow
def test_a_view_never_leaks(games):
    rng = random.Random(7)
    checked = changed = 0
    for events in games.values():
        for _, state in iter_states(events):
            for seat in range(state.n_players):
                other = shuffle_hidden(state, seat, rng)
                assert _encode(state, seat) == _encode(other, seat), (state.next_seq - 1, seat)
                checked += 1
                changed += _encode(state, None) != _encode(other, None)
    # the shuffles really moved cards the referee sees, so the equality above means something
    assert changed > 0.9 * checked


def test_a_view_hides_what_the_rules_hide(games):
    events = games[("fechado", 4, 2)]
    seen_pending = False
    for _, state in iter_states(events):
        if state.phase not in PLAYING_PHASES:
            continue
        view = player_view(state, 0)
        assert view.hands[0] == tuple(sorted_cards(Counter(state.hands[0]).elements()))
        assert all(isinstance(h, int) for s, h in enumerate(view.hands) if s != 0)
        assert view.pile.cards is None and view.pile.size == len(state.pile)
        assert all(isinstance(d.cards, int) for d in view.deads)
        assert not view.hands_counted and all(sc.hand_penalty == 0 for sc in view.hand_scores)
        if state.pending_top is not None and state.to_play != 0:
            seen_pending = True
            assert view.pending is not None and view.pending.rest == len(state.pending_rest)
    assert seen_pending


def test_the_referee_sees_everything_and_scores_complete(games):
    events = games[("stbl", 2, 1)]
    state = GameState()
    for ev in events[:40]:
        play(state, ev)
    view = player_view(state, None)
    assert [sum(1 for _ in h) for h in view.hands] == [state.hand_size(s) for s in range(2)]
    assert view.hands_counted
    assert view.scores == tuple(t + s.total for t, s in zip(state.totals, view.hand_scores, strict=True))


@pytest.mark.parametrize("every", [1, 7, 64])
def test_timeline_seeks_to_the_same_state_as_a_full_fold(games, every):
    events = games[("fechado", 4, 2)]
    tl = Timeline(events, every=every)
    assert tl.error is None and tl.last == len(events) - 1
    order = list(range(len(events)))
    random.Random(every).shuffle(order)
    folded = [state for _, state in iter_states(events)]
    for seq in order:
        assert _encode(tl.state(seq), None) == _encode(folded[seq], None)
    # a seek hands out a copy: changing it leaves the timeline alone
    s = tl.state(10)
    s.stock.clear()
    assert tl.state(10).stock == folded[10].stock


def test_seeking_a_long_game_is_quick():
    events = random_game("aberto", 4, 2, target=5000)
    tl = Timeline(events)
    rng = random.Random(1)
    seqs = [rng.randrange(len(events)) for _ in range(300)]
    t0 = time.perf_counter()
    for seq in seqs:
        tl.view(seq, 1)
    per_seek = (time.perf_counter() - t0) / len(seqs)
    assert len(events) > 1500
    assert per_seek < 0.02, f"{per_seek * 1000:.1f} ms per seek on {len(events)} events"


def test_timeline_stops_at_an_illegal_event(games):
    events = list(games[("stbl", 2, 1)])
    k = next(i for i, ev in enumerate(events) if isinstance(ev, Discarded) and i > 20)
    state = Timeline(events[:k]).final
    held = set(state.hands[events[k].player])
    bad_card = next(c for c in ("JK", "2S", "AH", "KD", "7C") if c not in held)
    events[k] = msgspec.structs.replace(events[k], card=bad_card)
    tl = Timeline(events)
    assert tl.last == k - 1
    assert tl.error is not None and tl.error.seq == k and bad_card in tl.error.reason
    assert _encode(tl.state(k - 1), None) == _encode(state, None)


def test_hand_starts_and_next_turns(games):
    events = games[("burraco", 2, 0)]
    tl = Timeline(events)
    starts = [ev.seq for ev in events if type(ev).__name__ == "HandStarted"]
    assert tl.n_hands == len(starts) >= 2
    assert [tl.hand_start(h) for h in range(tl.n_hands)] == starts
    assert tl.hand_at(starts[1]) == 1 and tl.hand_at(starts[1] - 1) == 0
    with pytest.raises(IndexError):
        tl.hand_start(tl.n_hands)
    seq = tl.next_turn(1, starts[0])
    assert seq is not None
    before = tl.state(seq)
    assert before.phase == "draw" and before.to_play == 1
    assert isinstance(events[seq + 1], Drew | TookPile) and events[seq + 1].player == 1
    assert tl.next_turn(1, seq) > seq


# -- meld histories --------------------------------------------------------------------------


def _shape(cards: str, variant: str = "stbl"):
    return classify(cards.split(), find_rules(variant))


@pytest.mark.parametrize(
    "before, added, words",
    [
        # RULES 3.3: the 2 of the suit goes to its own place, the meld turns clean
        ("3S 2S 5S", "4S", "2S went to its own place: the meld is clean"),
        # the wild moves to the open high end (RULES 3.4: high unless wild_goes_low)
        ("JS 2H KS", "QS", "wild 2H moved from QS to AS"),
        # a natural 2 becomes the wild when that is the only arrangement
        ("2H 3H 4H 5H 6H 7H", "9H", "the natural 2H became the wild for 8H"),
        # a wild with naturals on both sides stays put
        ("3D JK 5D", "6D", None),
    ],
)
def test_wild_change_tells_rules_3_3(before, added, words):
    old = _shape(before)
    new = _shape(before + " " + added)
    assert wild_change(old, new, added.split()) == words


def test_wild_stands_for_reads_the_canonical_arrangement():
    assert wild_stands_for(_shape("3S 2S 5S")) == "4S"
    assert wild_stands_for(_shape("2S 3S 4S 5S")) is None  # clean: the 2 stands in its place
    assert wild_stands_for(_shape("5C 6C 7C 8C 9C 10C JC QC KC AC JK")) == "4C"  # high end blocked
    assert wild_stands_for(_shape("5H 5D 2C", "fechado")) is None  # a set's wild stands for no place


def test_meld_histories_add_up(games):
    for events in games.values():
        tl = Timeline(events)
        for hand in range(tl.n_hands):
            end = tl.hand_start(hand + 1) - 1 if hand + 1 < tl.n_hands else tl.last
            final = tl.state(end)
            histories = tl.meld_histories(hand)
            assert [h.meld for h in histories] == [m.id for m in final.melds]
            for h, meld in zip(histories, final.melds, strict=True):
                assert h.team == meld.team
                assert h.steps[0].action == "laid" and h.steps[0].seq == meld.laid_seq
                assert sum(len(s.cards) for s in h.steps) == len(meld.cards) == h.steps[-1].size
                made = [s.seq for s in h.steps if s.canasta]
                assert made == ([meld.canasta_seq] if meld.canasta_seq is not None else [])
                for s in h.steps:
                    assert team_of(s.player) == meld.team
                    assert isinstance(events[s.seq], Melded | LaidOff)


def test_meld_histories_up_to_a_seq(games):
    tl = Timeline(games[("stbl", 2, 1)])
    seq = 60
    assert all(s.seq <= seq for h in tl.meld_histories(0, seq) for s in h.steps)
    assert len(tl.meld_histories(0, seq)) == len(tl.state(seq).melds)


# -- describing events -----------------------------------------------------------------------


def test_describe_tells_only_what_the_table_sees(games):
    for key in (("fechado", 4, 2), ("burraco", 2, 0)):
        events = games[key]
        closed = find_rules(key[0]).pile == "closed"
        state = GameState()
        players = tuple(f"p{i}" for i in range(key[1]))
        for ev in events:
            text = describe(ev, state, players)
            assert text.startswith(f"seq {ev.seq}: ")
            before = msgspec.json.encode(player_view(state, None))
            if isinstance(ev, Drew):
                assert ev.card not in text.split() and "drew from the stock" in text
            if isinstance(ev, TookPile):
                n = len(ev.cards)
                assert f"({n} card" in text
                if closed:
                    assert text.endswith(f"top {ev.cards[-1]}")
                else:
                    assert text.endswith(" ".join(ev.cards))
            assert msgspec.json.encode(player_view(state, None)) == before  # describe changes nothing
            play(state, ev)


def test_describe_reports_a_score_claim_that_differs(games):
    events = games[("stbl", 2, 1)]
    k = next(i for i, ev in enumerate(events) if isinstance(ev, HandEnded))
    tl = Timeline(events)
    honest = tl.describe(k)
    assert "claims" not in honest
    lie = msgspec.structs.replace(events[k], scores=(9999, -9999))
    text = describe(lie, tl.state(k - 1), tl.players)
    assert text.endswith("(the log claims 9999 / -9999)")


# -- errors a seat reads name no card it cannot see ---------------------------------------------

_CARD_NAME = re.compile(r"(?<![\w])(?:10|[2-9AJQK])[SHDC](?![\w])|(?<![\w])JK(?![\w])")


def _face_up(state: GameState, ev) -> set[str]:
    """Return the cards every seat sees before `ev`, and those `ev` itself lays face up."""
    seen = {c for m in state.melds for c in m.cards}
    if state.pile:
        seen.update(state.pile if state.rules.pile == "open" else state.pile[-1:])
    seen.update(c for c in (state.pending_top, state.top_due, state.single_taken) if c is not None)
    if isinstance(ev, Melded | LaidOff) or isinstance(ev, TookPile) and state.rules.pile == "open":
        seen.update(ev.cards)  # laid face up, or claimed from a face-up pile (describe tells it)
    elif isinstance(ev, Discarded):
        seen.add(ev.card)
    elif isinstance(ev, HandStarted):
        seen.update(ev.discard)  # the upcard
    return seen


def _forged(state: GameState, deal: HandStarted, rng: random.Random) -> list:
    """Return events the player to move (or the table) might forge here, most of them illegal."""
    seq, seat = state.next_seq, state.to_play
    pick = lambda k: tuple(rng.sample(ALL_CARDS, k))  # noqa: E731
    if state.phase == "deal":
        cards = list(deal.hands[0])
        cards[rng.randrange(11)] = rng.choice(ALL_CARDS)
        return [msgspec.structs.replace(deal, seq=seq, hand=state.hand_no + 1,
                                        hands=(tuple(cards), *deal.hands[1:]))]
    if state.phase == "draw":
        pile = list(state.pile)
        if pile:
            pile[rng.randrange(len(pile))] = rng.choice(ALL_CARDS)
        return [*(Drew(seq=seq, player=seat, card=c) for c in pick(4)),
                TookPile(seq=seq, player=seat, cards=tuple(pile)),
                TookPile(seq=seq, player=seat, cards=tuple(state.pile))]
    if state.phase == "play":
        raw = list(iter_raw_plays(state, seat))
        plays = [Melded(seq=seq, player=seat, meld=len(state.melds), cards=c) if kind == "meld"
                 else LaidOff(seq=seq, player=seat, meld=m, cards=c) for kind, m, c in raw]
        return [*rng.sample(plays, min(len(plays), 40)),
                Melded(seq=seq, player=seat, meld=len(state.melds), cards=pick(3)),
                *(Discarded(seq=seq, player=seat, card=c) for c in ALL_CARDS)]
    if state.phase == "dead":
        return [TookDead(seq=seq, player=seat, dead=d, cards=pick(11)) for d in (0, 1)]
    return []


@functools.cache
def _game(key: tuple[str, int, int]) -> list:
    return random_game(*key)


def _check_forged(events: list, k: int, seed: int) -> tuple[int, int]:
    """Check the errors of events forged after `events[:k]`; return (errors, referee leaks)."""
    rng = random.Random(seed)
    state = Timeline(events[:k]).final if k else GameState()
    deal = next(e for e in events if isinstance(e, HandStarted))
    errors = hidden = 0
    for ev in _forged(state, deal, rng):
        try:
            check(state, ev)
        except IllegalMove as exc:
            visible = _face_up(state, ev)
            for seat in range(state.n_players):
                assert set(_CARD_NAME.findall(seat_error(exc, seat))) <= visible, (exc.reason, seat)
            assert seat_error(exc, None) == str(exc)  # the referee reads the full reason
            errors += 1
            hidden += not set(_CARD_NAME.findall(exc.reason)) <= visible
    return errors, hidden


@pytest.mark.slow
def test_an_error_shown_to_a_seat_names_no_card_it_cannot_see():
    errors = hidden = 0
    for key in GAMES:
        events = _game(key)
        for k in range(0, len(events), max(1, len(events) // 30)):
            e, h = _check_forged(events, k, k)
            errors, hidden = errors + e, hidden + h
    # the referee's reasons did name hidden cards, so the seats' words above mean something
    assert errors > 1000 and hidden > 50


@settings(max_examples=30)
@given(game=st.sampled_from(GAMES), where=st.floats(0, 1, exclude_max=True), seed=st.integers(0, 999))
def test_an_error_shown_to_a_seat_names_no_card_it_cannot_see_anywhere(game, where, seed):
    events = _game(game)
    _check_forged(events, int(where * len(events)), seed)


def test_the_referee_reads_the_hidden_card_a_seat_does_not():
    # a refusal that names the stock's top card ("...the stock's top card is 3H") never reaches seat 1
    events = _game(("stbl", 2, 1))
    k = next(i for i, e in enumerate(events) if isinstance(e, Drew) and i > 10)
    state = Timeline(events[:k]).final
    wrong = next(c for c in ALL_CARDS if c != events[k].card)
    with pytest.raises(IllegalMove) as caught:
        check(state, msgspec.structs.replace(events[k], card=wrong))
    assert f"the stock's top card is {events[k].card}" in seat_error(caught.value, None)
    for seat in (0, 1):
        text = seat_error(caught.value, seat)
        assert text.endswith("drew a card that is not the stock's top card")
        assert not _CARD_NAME.search(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ALL_CARDS), max_size=24), st.lists(st.sampled_from(ALL_CARDS), max_size=6))
def test_display_hand_is_the_cards_held_in_display_order(held: list[str], gone: list[str]) -> None:
    # a hand the engine played from keeps zero (or fewer) counts: they show no card
    from buraco_events.core.seatview import _display_hand

    hand = Counter(held)
    hand.subtract(gone)
    assert _display_hand(hand) == tuple(sorted_cards(hand.elements()))
