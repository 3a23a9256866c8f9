"""The candidate plays of a seat before their check: every new meld and lay-off its hand could
make (`raw_plays`), and those that hold a closed pile's top card (`top_plays`, and the
look-ahead's `top_play_candidates` for a natural top).

Its own module: what a hand could play is generation, which changes with the meld finder and the
look-ahead (`melds`, `lookahead`); whether a play is legal is the checks' (`playcheck`), which ask
this module for the candidates of a take or a due top card.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, Literal

from .cards import ALL_CARDS, RANK, RUN_CARDS, SET_CARDS, SUIT, Card, is_wild_card
from .fits import may_lay_off, shape_lay_offs
from .gate import team_of
from .hand_melds import candidate_melds
from .lookahead import TopPlay, is_natural_top, top_candidates
from .state import GameState, Hand, sorted_held

#: a candidate play before its check: a new meld, or a lay-off onto meld id (the cards played)
CardPlay = tuple[Literal["meld", "lay_off"], int | None, tuple[Card, ...]]


#: per natural card, the cards that may share a meld with it: its suit, its rank, the wilds
_MELDS_WITH: Final[dict[Card, frozenset[Card]]] = {
    c: RUN_CARDS[SUIT[c]] | SET_CARDS[RANK[c]] for c in ALL_CARDS if not is_wild_card(c)
}


def top_plays(
    state: GameState, player: int, top: Card, held_top: int = 1
) -> Iterator[CardPlay]:
    """Yield the plays that use the closed pile's top card with the cards held.

    `held_top` is how many copies of the top the hand lacks: 1 while the top waits apart
    (`next_play`), 0 once it has joined the hand (`turn_end`).
    """
    held = state.hands[player]
    hand: Hand = {}  # the cards held plus the top (built in one pass)
    if is_wild_card(top):
        for c, n in held.items():
            if n > 0:
                hand[c] = n
    else:
        # only the top's suit (runs), its rank (sets) and the wilds can meld with it
        with_top = _MELDS_WITH[top]
        for c, n in held.items():
            if n > 0 and c in with_top:
                hand[c] = n
    hand[top] = held.get(top, 0) + held_top
    team = team_of(player)
    for cards in candidate_melds(hand, state.rules):
        if top in cards:
            yield "meld", None, cards
    # lay-offs of a wild top are generated too: `check` keeps only those where it stands natural
    yield from _lay_off_plays(state, hand, team, top)


def raw_plays(state: GameState) -> list[CardPlay]:
    """Return the candidate plays of the player to move before their check, in the order
    `moves.candidate_plays` keeps the legal ones (empty outside the play phase).

    A bot that ranks plays can score these first and check (`playcheck.checked_play`) only the best,
    instead of paying a check for every candidate.
    """
    if state.phase != "play":
        return []
    top = state.pending_top
    if top is not None and is_natural_top(top):
        return _natural_top_plays(state, state.to_play, top)  # no generator frames
    return list(iter_raw_plays(state, state.to_play))


def _natural_top_plays(state: GameState, player: int, top: Card) -> list[CardPlay]:
    """Return `top_plays` of a natural closed-pile top waiting apart, in its very order, built
    from the look-ahead's candidates (`lookahead.top_candidates`: the same plays, found without
    listing every meld of the hand).

    `top_plays` yields the new melds holding the top sorted (`candidate_melds` is sorted),
    then per team meld in table order its lay-offs holding the top, sorted (`shape_lay_offs`).
    The look-ahead may find a run twice (the wild at either end of the same naturals): the
    sorted melds (and lay-offs) are kept once each. A meld's id is its place on the table (`Melded.meld` is
    `len(state.melds)`, a lay-off replaces `state.melds[id]`), so the lay-offs sorted by
    (meld id, cards) come in table order.
    """
    melds: list[tuple[Card, ...]] = []
    lay_offs: list[tuple[int, tuple[Card, ...]]] = []
    for kind, meld_id, cards in top_play_candidates(state, player, top, 1):
        if kind == "meld":
            melds.append(cards)
        else:
            lay_offs.append((meld_id, cards))
    out: list[CardPlay] = []
    if melds:
        melds.sort()
        last: tuple[Card, ...] = ()
        for cards in melds:
            if cards != last:
                out.append(("meld", None, cards))
                last = cards
    if lay_offs:
        lay_offs.sort()
        seen: tuple[int, tuple[Card, ...]] = (-1, ())
        for entry in lay_offs:  # each once, as `shape_lay_offs` gives them
            if entry != seen:
                out.append(("lay_off", entry[0], entry[1]))
                seen = entry
    return out


def iter_raw_plays(state: GameState, player: int) -> Iterator[CardPlay]:
    top = state.pending_top
    if top is not None:
        if is_natural_top(top):
            yield from _natural_top_plays(state, player, top)
        else:
            yield from top_plays(state, player, top)
        return
    hand, team, rules = state.hands[player], team_of(player), state.rules
    for cards in candidate_melds(hand, rules):
        yield "meld", None, cards
    yield from _lay_off_plays(state, hand, team, None)


def _lay_off_plays(
    state: GameState, hand: Hand, team: int, top: Card | None
) -> Iterator[CardPlay]:
    """Yield the team's candidate lay-offs from `hand` (with `top` in them, when given)."""
    held: tuple[Card, ...] | None = None
    rules = state.rules
    for m in state.melds:
        if m.team != team:
            continue
        if top is not None and not may_lay_off(m.shape.cards, top, rules):
            continue  # no lay-off on this meld can hold the top: none is generated
        if held is None:
            held = sorted_held(hand)
        # a meld's shape is `classify` of its cards: `candidate_lay_offs` without classifying again
        for lay_off in shape_lay_offs(held, m.shape.cards, m.shape, rules):
            if top is None or top in lay_off:
                yield "lay_off", m.id, lay_off




def top_play_candidates(state: GameState, player: int, top: Card, held_top: int) -> list[TopPlay]:
    """Return the look-ahead's candidate plays holding the natural `top` (see `lookahead`)."""
    team = team_of(player)
    suit, rank = SUIT[top], RANK[top]
    # a natural joins only a run of its suit or a set of its rank (a run has no rank, a set no suit)
    team_melds = [
        (m.id, m.shape) for m in state.melds
        if m.team == team and (m.shape.suit == suit or m.shape.rank == rank)
    ]
    return top_candidates(state.hands[player], top, held_top, team_melds, state.rules)


