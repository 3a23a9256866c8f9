"""What a seat knows, and deals consistent with it: the information set of seat S at a point of a
game, and a sampler of the hidden cards.

A seat knows, with perfect memory of what it saw: its own hand; every meld; the discard pile (a
closed pile hides its cards from sight, not from memory: each was discarded face up); the cards
each other seat took from the pile and has not played since (they are in that hand); and the
number of cards in every hand, the stock and each dead. Everything else (the rest of the other
hands, the stock, the untaken deads) is one pool of unknown cards, and a *sample* deals that pool
at random into those places, the known cards left where they are.

`Knowledge` follows a game's events as a seat's memory does; `InfoSet` is what it adds up to at a
point; `sample` deals one consistent arrangement from an rng. None of it reads the hidden cards: the
pool is the deck less what the seat saw, and the places are counts (`info_set` reads the state's
sizes, the seat's own hand and the public table only). Its own module because it is the one place
that decides what a seat may know; the analysis, a fair what-if branch (`deck: redealt`) and a bot
that plays by samples all ask it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from buraco_events.core.cards import Card, make_deck
from buraco_events.core.deal import shuffle
from buraco_events.core.state import PLAYING_PHASES, GameState, counted, elements
from buraco_events.model.events import (
    Discarded,
    Event,
    HandStarted,
    LaidOff,
    Melded,
    TookPile,
)


class Knowledge:
    """The cards each seat is known by everyone to hold: taken from the pile in the hand in play
    and not played since (a multiset per seat). Fed every event of a log in order (`see`); it
    reads only what every seat saw (never a drawn card or a dead's cards)."""

    def __init__(self, n_players: int = 0) -> None:
        self.known: list[Counter[Card]] = [Counter() for _ in range(n_players)]

    def see(self, event: Event) -> None:
        """Take in one event as every seat saw it."""
        kind = type(event)
        if kind is HandStarted:
            assert isinstance(event, HandStarted)
            self.known = [Counter() for _ in event.hands]
        elif kind is TookPile:
            assert isinstance(event, TookPile)
            self.known[event.player].update(event.cards)
        elif kind is Melded or kind is LaidOff:
            assert isinstance(event, Melded | LaidOff)
            self._played(event.player, event.cards)
        elif kind is Discarded:
            assert isinstance(event, Discarded)
            self._played(event.player, (event.card,))

    def _played(self, seat: int, cards: Iterable[Card]) -> None:
        """A seat laid cards face up: those it was known to hold are known no more."""
        known = self.known[seat]
        for card in cards:
            if known[card] > 0:
                known[card] -= 1
                if not known[card]:
                    del known[card]


def knowledge_of(events: Iterable[Event]) -> Knowledge:
    """Return the knowledge after `events` (a log's prefix)."""
    knowledge = Knowledge()
    for event in events:
        knowledge.see(event)
    return knowledge


@dataclass(frozen=True)
class InfoSet:
    """What `seat` knows at a point of a hand in play: its hand, the cards known in each other
    hand, how many unknown cards each hand, the stock and each dead hold, and the pool of unknown
    cards (sorted: a multiset, whatever the true arrangement)."""

    seat: int
    own: tuple[Card, ...]
    known: tuple[tuple[Card, ...], ...]  # per seat (the seat's own: empty)
    hidden: tuple[int, ...]  # per seat, unknown cards in that hand (the seat's own: 0)
    stock: int
    deads: tuple[int | None, ...]  # per dead, its size while untaken, None once gone
    pool: tuple[Card, ...]


class InfoSetError(ValueError):
    """A point of a game with no hand in play, or with cards in passage (a pile being taken)."""


def info_set(state: GameState, knowledge: Knowledge, seat: int) -> InfoSet:
    """Return what `seat` knows at `state` (after the events `knowledge` saw).

    Reads the seat's own hand, the melds, the pile and the sizes of everything else: the pool is
    the deck less the cards the seat saw, never the hidden cards themselves.
    """
    if state.phase not in PLAYING_PHASES:
        raise InfoSetError(f"no hand in play at seq {state.next_seq - 1} (phase {state.phase}): nothing is hidden")
    if state.pending_top is not None or state.pending_rest:
        raise InfoSetError(f"seq {state.next_seq - 1}: a pile is being taken; fork after the play that takes it")
    if not 0 <= seat < state.n_players:
        raise InfoSetError(f"no seat {seat} in a {state.n_players}-player game")
    seen: Counter[Card] = Counter(elements(state.hands[seat]))
    seen.update(state.pile)
    for meld in state.melds:
        seen.update(meld.cards)
    memory = knowledge.known if len(knowledge.known) == state.n_players else [Counter()] * state.n_players
    known = tuple(() if s == seat else tuple(sorted(memory[s].elements())) for s in range(state.n_players))
    for cards in known:
        seen.update(cards)
    pool = Counter(make_deck(state.rules.jokers))
    pool.subtract(seen)
    hidden = tuple(0 if s == seat else sum(state.hands[s].values()) - len(known[s]) for s in range(state.n_players))
    deads = tuple(None if d is None else len(d) for d in state.deads.left)
    return InfoSet(seat, tuple(sorted(elements(state.hands[seat]))), known, hidden, len(state.stock), deads,
                   tuple(sorted(pool.elements())))


@dataclass(frozen=True)
class Sample:
    """One arrangement of the hidden cards: every hand (the seat's own as it is), the stock top
    first, each dead (None once gone)."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    deads: tuple[tuple[Card, ...] | None, ...]


def sample(info: InfoSet, rng: random.Random) -> Sample:
    """Deal the pool at random into the unknown places: each other hand's unknown cards, the
    stock, then each untaken dead; every consistent arrangement is equally likely."""
    pool = list(info.pool)
    shuffle(rng, pool)
    at = 0
    hands: list[tuple[Card, ...]] = []
    for s, n in enumerate(info.hidden):
        if s == info.seat:
            hands.append(info.own)
            continue
        hands.append(tuple(sorted(info.known[s] + tuple(pool[at:at + n]))))
        at += n
    stock = tuple(pool[at:at + info.stock])
    at += info.stock
    deads: list[tuple[Card, ...] | None] = []
    for size in info.deads:
        if size is None:
            deads.append(None)
        else:
            deads.append(tuple(pool[at:at + size]))
            at += size
    if at != len(pool):
        raise InfoSetError(f"the unknown cards ({len(pool)}) do not fill the unknown places ({at})")
    return Sample(tuple(hands), stock, tuple(deads))


def dealt_table(state: GameState, info: InfoSet, rng: random.Random) -> GameState:
    """Return a copy of `state` with the cards `info.seat` could not see dealt from `rng`
    (`sample`): the table a play-out of that seat's decision starts from."""
    dealt = sample(info, rng)
    table = state.copy()
    table.hands = [counted(h) for h in dealt.hands]
    table.stock = list(reversed(dealt.stock))
    table.deads.left = list(dealt.deads)
    return table


class Unseen:
    """What a seat deciding at a table may use of the cards it cannot see: its information set
    (`info`) and tables dealt from it (`deal`). It keeps no true hidden card: the table it deals
    from has its hidden places dealt once already, so every table it returns depends on the
    information set and the rng alone. `table.Table` gives one to a bot that has `decide_unseen`.
    """

    def __init__(self, state: GameState, knowledge: Knowledge, seat: int) -> None:
        self.info = info_set(state, knowledge, seat)
        self._masked = dealt_table(state, self.info, random.Random(0))

    @property
    def seat(self) -> int:
        """Return the seat deciding."""
        return self.info.seat

    def deal(self, rng: random.Random) -> GameState:
        """Return the table with the cards the seat cannot see dealt from `rng` (`sample`)."""
        return dealt_table(self._masked, self.info, rng)


def places(info: InfoSet) -> Sequence[int]:
    """Return the sizes of the unknown places in `sample`'s order (the tests count deals by them)."""
    sizes = [n for s, n in enumerate(info.hidden) if s != info.seat] + [info.stock]
    return sizes + [d for d in info.deads if d is not None]


__all__ = [
    "InfoSet", "InfoSetError", "Knowledge", "Sample", "Unseen", "dealt_table", "info_set", "knowledge_of", "places", "sample",
]
