"""Plain versions of the greedy bot's helpers (`bots/greedy.py` and `bots/rating.py`: the useful cards of a pile, a
meld's worth kept, a play's score, the cheapest discard), written for reading rather than speed:
the oracles of the tests that the fast ones answer the same (tests/test_bots.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from buraco_events.core.cards import RANK, RANKS, SUIT, Card, card_value, is_wild_card
from buraco_events.core.choices import Action
from buraco_events.core.fits import shape_lay_offs
from buraco_events.core.gate import team_of
from buraco_events.core.hand_melds import candidate_melds
from buraco_events.core.melds import (
    canasta_bonus,
    canasta_kind,
    classify,
    is_closing_canasta,
)
from buraco_events.model.rules import Rules
from buraco_events.views.projections import MeldView, View


def useful_cards(view: View, pile: Sequence[Card], rules: Rules) -> int:
    """Return how many distinct natural pile cards would join a meld or a lay-off right away."""
    seat = view.seat if view.seat is not None else view.to_play
    own = view.hands[seat]
    hand = Counter(own if isinstance(own, tuple) else ())
    pile_cards = {c for c in pile if not is_wild_card(c)}
    suits, ranks = {SUIT[c] for c in pile_cards}, {RANK[c] for c in pile_cards}
    # runs hold one suit and sets one rank: hand cards sharing neither with the pile change nothing
    together = Counter(pile)
    together.update({
        c: n for c, n in hand.items() if is_wild_card(c) or SUIT[c] in suits or RANK[c] in ranks
    })
    used: set[Card] = set()
    # only wild-free plays count: the play phase will not spend a wild short of a canasta, and a
    # pile taken for a play it will not make is passed back and forth for ever
    for cards in candidate_melds(together, rules):
        if not any(is_wild_card(c) for c in cards):
            used.update(c for c in cards if c in pile_cards)
    team = team_of(seat)
    held: tuple[Card, ...] | None = None
    for m in view.melds:
        if m.team == team:
            # `candidate_lay_offs`, with the hand sorted once for all the melds
            shape = classify(m.cards, rules)
            if shape is None:
                continue
            if held is None:
                held = tuple(sorted(together.elements()))
            for lay_off in shape_lay_offs(held, tuple(m.cards), shape, rules):
                if not any(is_wild_card(c) for c in lay_off):
                    used.update(c for c in lay_off if c in pile_cards)
    return len(used)


def keep_melds(melds: Sequence[MeldView], team: int, card: Card, rules: Rules) -> float:
    """`GreedyBot`'s meld worth of a card, plainly: a classify per meld (its first natural card
    skips the runs of other suits and the sets of other ranks), 300 when it feeds an opponent's
    meld, 50 when it fits the team's."""
    score = 0.0
    fed = owned = False
    for m in melds:
        mine = m.team == team
        if owned if mine else fed:
            continue
        if not is_wild_card(card):
            anchor = next(c for c in m.cards if not is_wild_card(c))
            if (SUIT[anchor] != SUIT[card]) if m.type == "run" else (RANK[anchor] != RANK[card]):
                continue
        if classify(m.cards + (card,), rules) is None:
            continue
        if mine:
            owned, score = True, score + 50
        else:
            fed, score = True, score + 300
    return score


def _is_late(view: View, rules: Rules) -> bool:
    refill_left = rules.stock_end == "refill" and any(d.fate is None for d in view.deads)
    return view.stock <= 6 and not refill_left


def _bonus(kind: str | None, rules: Rules) -> int:
    return 0 if kind is None or kind == "none" else canasta_bonus(kind, rules)  # type: ignore[arg-type]


def play_score(view: View, action: Action, rules: Rules) -> float:
    """`GreedyBot`'s worth of a meld or a lay-off, plainly: float arithmetic, a classify per
    play (of the meld grown by the cards for a lay-off)."""
    seat = view.seat if view.seat is not None else view.to_play
    own = view.hands[seat]
    hand_n = len(own) if isinstance(own, tuple) else 0
    pending_rest = view.pending.rest if view.pending is not None else ()
    pending_n = len(pending_rest) if isinstance(pending_rest, tuple) else pending_rest
    cards = action.cards
    left = hand_n - (len(cards) - (1 if view.pending is not None else 0)) + pending_n
    if action.kind == "meld":
        shape = classify(cards, rules)
        old_bonus, old_dirty, old_clean_len = 0, False, 0
    else:
        m = next(m for m in view.melds if m.id == action.meld)
        shape = classify(m.cards + cards, rules)
        old_bonus, old_dirty, old_clean_len = _bonus(m.kind, rules), not m.clean, len(m.cards) if m.clean else 0
    assert shape is not None
    if left == 0:
        return 1000 + len(cards)
    value = {c: card_value(c, rules.two_value, rules.joker_value) for c in cards}
    wild, size = shape.wild, len(shape.cards)
    score = float(sum(value[c] for c in cards) + 4 * len(cards))
    score += 2 * size
    score += _bonus(canasta_kind(shape, rules), rules) - old_bonus
    if wild is not None and not old_dirty:
        if size < 7 and left > 3 and not _is_late(view, rules):
            score -= 45 + card_value(wild, rules.two_value, rules.joker_value)
        has_close_canasta = any(
            m.team == team_of(seat) and is_closing_canasta(len(m.cards), m.clean, rules) for m in view.melds
        )
        if old_clean_len and rules.close_needs_clean and not has_close_canasta:
            score -= 12 * old_clean_len
    elif old_dirty and wild is None:
        score += 25
    return score


def _run_neighbours(rank: int, d: int) -> set[int]:
    """The ranks at run distance `d` of a natural rank (the ace stands at 1 and at 14)."""
    positions = (1, 14) if rank == 1 else (rank,)
    near = {(p + step - 1) % 13 + 1 for p in positions for step in (-d, d) if 1 <= p + step <= 14}
    return near - {rank}


def cheapest_discard(view: View, discards: Sequence[Action], rules: Rules) -> Action:
    """`GreedyBot`'s discard, plainly, without its branch and bound: every card's full worth
    (hand worth in float points plus `keep_melds`), the least worth first, then the least hand
    worth, then the first offered."""
    seat = view.seat if view.seat is not None else view.to_play
    own = view.hands[seat]
    naturals = Counter(c for c in (own if isinstance(own, tuple) else ()) if not is_wild_card(c))
    late = _is_late(view, rules)

    def base(card: Card) -> float:
        value = card_value(card, rules.two_value, rules.joker_value)
        if is_wild_card(card):
            return 1000.0 + value
        score = 0.0
        for d, weight in ((1, 40), (2, 18)):
            for r in _run_neighbours(RANK[card], d):
                score += weight * naturals[RANKS[r - 1] + SUIT[card]]
        if rules.sets:
            score += 30 * (sum(n for c, n in naturals.items() if RANK[c] == RANK[card]) - 1)
        return score - (2 * value if late else value / 2)

    def worth(place: int) -> tuple[float, float, int]:
        card = discards[place].cards[0]
        cheap = base(card)
        return cheap + keep_melds(view.melds, team_of(seat), card, rules), cheap, place

    return discards[min(range(len(discards)), key=worth)]
