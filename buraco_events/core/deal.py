"""The deal: chance's event (`deal`, a `hand_started` from the rng it is given, shuffled exactly
as `random.Random.shuffle` does), its check and apply (the engine dispatches `hand_started`
here), and the multiset of every card on the table (`all_cards`, for conservation checks).

Its own module: the engine draws no random numbers, and the deck, its shuffle and what a deal
must hold change together, apart from the rules of a turn.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache
from itertools import chain
from typing import Final

from buraco_events.model.events import HandStarted

from .cards import HAND_SIZE, Card, make_deck
from .gate import card_list, expect_phase, illegal_move
from .state import Deads, GameState, counted, elements

#: whether `random.Random.shuffle` draws as `shuffle` below: each place from the top down swaps
#: with `_randbelow(i + 1)`, which asks `getrandbits` (CPython 3.11 and later)
_SHUFFLE_BY_BITS: Final = (
    getattr(random.Random, "_randbelow", None) is getattr(random.Random, "_randbelow_with_getrandbits", 0)
)


def shuffle(rng: random.Random, cards: list[Card]) -> None:
    """Shuffle `cards` in place exactly as `rng.shuffle(cards)` does: the same order, the rng left
    in the same state.

    For a plain `random.Random` the loop of `Random.shuffle` and `Random._randbelow` runs here
    (compiled: no Python frame per card, `getrandbits` called directly); any other rng (a
    subclass may draw otherwise) shuffles itself.
    """
    if type(rng) is not random.Random or not _SHUFFLE_BY_BITS:
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    i = len(cards) - 1
    while i > 0:
        n = i + 1
        k = n.bit_length()
        j: int = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
        i -= 1


def deal(state: GameState, rng: random.Random, first: int | None = None) -> HandStarted:
    """Return the next `hand_started` event: a shuffled deck from the injected `rng`."""
    rules, n = state.rules, state.n_players
    deck = list(make_deck(rules.jokers))
    shuffle(rng, deck)
    hand = state.hand_no + 1
    if hand > 0 or first is None:
        first = (state.first_of_game + hand) % n if hand > 0 else rng.randrange(n)
    hands = tuple(tuple(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(n))
    pos = HAND_SIZE * n
    deads = (tuple(deck[pos:pos + HAND_SIZE]), tuple(deck[pos + HAND_SIZE:pos + 2 * HAND_SIZE]))
    pos += 2 * HAND_SIZE
    upcard = 1 if rules.upcard else 0
    stock = tuple(deck[pos:len(deck) - upcard])
    discard = tuple(deck[len(deck) - upcard:]) if upcard else ()
    return HandStarted(
        seq=state.next_seq, hand=hand, first=first, hands=hands, deads=deads, stock=stock, discard=discard
    )


def all_cards(state: GameState) -> Counter[Card]:
    """Return the multiset of every card on the table, for conservation checks."""
    total: Counter[Card] = Counter()
    for h in state.hands:
        total.update(elements(h))
    total.update(state.stock)
    total.update(state.pile)
    for d in state.deads.left:
        if d is not None:
            total.update(d)
    if state.pending_top is not None:
        total[state.pending_top] += 1
    total.update(state.pending_rest)
    for m in state.melds:
        total.update(m.cards)
    return total


# -- hand_started ----------------------------------------------------------------------------------


def check_hand_started(state: GameState, ev: HandStarted) -> None:
    expect_phase(state, ev)
    n, rules = state.n_players, state.rules
    if ev.hand != state.hand_no + 1:
        raise illegal_move(state, ev, f"hand should be {state.hand_no + 1}, got {ev.hand}")
    if ev.first >= n:
        raise illegal_move(state, ev, f"first: no seat {ev.first} in a {n}-player game")
    if ev.hand > 0 and ev.first != (state.first_of_game + ev.hand) % n:
        want = (state.first_of_game + ev.hand) % n
        raise illegal_move(state, ev, f"first: hand {ev.hand} starts at seat {want} (one seat clockwise per hand)")
    if len(ev.hands) != n or any(len(h) != HAND_SIZE for h in ev.hands):
        raise illegal_move(state, ev, f"hands: the deal gives {HAND_SIZE} cards to each of {n} seats")
    if len(ev.deads) != 2 or any(len(d) != HAND_SIZE for d in ev.deads):
        raise illegal_move(state, ev, f"deads: the deal sets aside two deads of {HAND_SIZE} cards")
    want_stock = rules.stock_size(n)
    if len(ev.stock) != want_stock:
        raise illegal_move(state, ev, f"stock: {want_stock} cards expected, got {len(ev.stock)}")
    if len(ev.discard) != (1 if rules.upcard else 0):
        raise illegal_move(state, ev, "discard: the upcard" if rules.upcard else "discard: no upcard in this variant")
    dealt = Counter(chain.from_iterable(ev.hands))
    dealt.update(chain.from_iterable(ev.deads))
    dealt.update(ev.stock)
    dealt.update(ev.discard)
    deck = _deck_counts(rules.jokers)
    # both count only cards present (no zero counts), so equal items mean equal multisets; the
    # item views compare in C where `Counter.__eq__` runs a Python generator over every card
    if dealt.items() != deck.items():
        extra = dealt - deck
        short = deck - dealt
        parts = []
        if extra:
            parts.append("extra " + card_list(sorted(extra.elements())))
        if short:
            parts.append("missing " + card_list(sorted(short.elements())))
        raise illegal_move(state, ev, f"the deal is not the {rules.deck_size}-card deck: " + "; ".join(parts),
                    f"the deal is not the {rules.deck_size}-card deck")


@lru_cache(maxsize=8)
def _deck_counts(jokers: int) -> Counter[Card]:
    """Return the deck as a multiset (shared: callers only read it)."""
    return Counter(make_deck(jokers))


def apply_hand_started(state: GameState, ev: HandStarted) -> None:
    state.hand_no = ev.hand
    state.first = ev.first
    if ev.hand == 0:
        state.first_of_game = ev.first
    state.to_play = ev.first
    state.turn = 0
    state.hands = [counted(h) for h in ev.hands]
    state.stock = list(reversed(ev.stock))
    state.pile = list(ev.discard)
    state.deads = Deads.dealt(ev.deads)
    state.dead_mode = None
    state.pending_top = None
    state.pending_rest = []
    state.top_due = None
    state.refilling = False
    state.quiet_turns = 0
    state.turn_progress = False
    state.single_taken = None
    state.last_turn = False
    state.melds = []
    state.closed_by = None
    state.end_reason = None
