"""`player_view`: the one place hidden cards are removed (see `projections`, which re-exports it).

Kept apart from `projections` so that it compiles in the compiled build: a bot gets a view at
every decision, and built in Python the view was a fifth of self-play. It builds the Structs of
`views` (which stays Python) and keeps what rarely changes between two views: the meld views
(engine melds are immutable, so identity says a meld is unchanged) and the dead views.
"""

from __future__ import annotations

from typing import Final

from buraco_events.model.rules import Rules
from buraco_events.model.scoring import TeamScore
from buraco_events.model.terms import DeadFate
from buraco_events.model.views import DeadView, MeldView, PendingView, PileView, View, meld_kind

from .cards import ALL_CARDS, Card, sort_key
from .gate import team_of
from .melds import Meld
from .sheets import hand_scores, table_scores
from .state import PLAYING_PHASES, GameState, held_in_order

#: MeldViews by the id of their (immutable) engine meld, which the entry keeps alive
_MELD_VIEWS: Final[dict[int, tuple[Meld, Rules, MeldView]]] = {}
_MELD_VIEWS_MAX: Final = 4096


def _meld_view(m: Meld, rules: Rules) -> MeldView:
    """Return the view of a meld; a meld lives on across many views, so its view is kept."""
    hit = _MELD_VIEWS.get(id(m))
    if hit is not None and hit[0] is m and hit[1] is rules:
        return hit[2]
    shape = m.shape
    view = MeldView(
        id=m.id, team=m.team, cards=m.cards, type=shape.type, clean=shape.is_clean,
        kind=meld_kind(m.canasta(rules)), laid_by=m.laid_by, laid_seq=m.laid_seq,
        canasta_seq=m.canasta_seq,
    )
    if len(_MELD_VIEWS) >= _MELD_VIEWS_MAX:
        _MELD_VIEWS.clear()
    _MELD_VIEWS[id(m)] = (m, rules, view)
    return view


class _LastMelds:
    """The meld views of the last `player_view`: the melds rarely change between two views."""

    def __init__(self) -> None:
        self.melds: tuple[Meld, ...] = ()
        self.rules: Rules | None = None
        self.views: tuple[MeldView, ...] = ()


_LAST_MELDS: Final = _LastMelds()


def _same(old: tuple[Meld, ...], new: list[Meld]) -> bool:
    """Return whether two meld sequences hold the very same melds."""
    if len(old) != len(new):
        return False
    for i, m in enumerate(new):
        if old[i] is not m:
            return False
    return True


def _meld_views(melds: list[Meld], rules: Rules) -> tuple[MeldView, ...]:
    """Return the views of the table's melds, reusing the last tuple when every meld is the same
    (engine melds are immutable: a lay-off replaces its meld, so identity says nothing changed)."""
    last = _LAST_MELDS
    if last.rules is rules and _same(last.melds, melds):
        return last.views
    if last.rules is rules:
        # most often one meld changed (a lay-off) or one was added: the others keep their view
        old_melds, old_views, known = last.melds, last.views, len(last.melds)
        views = tuple([
            old_views[i] if i < known and old_melds[i] is m else _meld_view(m, rules)
            for i, m in enumerate(melds)
        ])
    else:
        views = tuple([_meld_view(m, rules) for m in melds])
    last.melds, last.rules, last.views = tuple(melds), rules, views
    return views


#: the cards in the display order of `cards.sorted_cards`, and each card's place in it
_DISPLAY_CARDS: Final = tuple(sorted(ALL_CARDS, key=sort_key))
_DISPLAY_ORDER: Final = {c: i for i, c in enumerate(_DISPLAY_CARDS)}


def _display_hand(hand: dict[Card, int]) -> tuple[Card, ...]:
    """Return the cards held in display order: `sorted(hand.elements())` by `sort_key`.

    Each distinct card held becomes one small int, its display place times 4 plus how many are
    held less one, so one sort of ints orders them and the counts come along without a second
    look-up; the ints stay below 256 (Python's cached ints: nothing allocated). A card held more
    than 4 times, which no deck allows, takes the plain way."""
    order = _DISPLAY_ORDER
    keys: list[int] = []
    for c, n in hand.items():
        if n < 1:
            continue  # as `held_in_order`: a card held 0 times is not shown
        if n > 4:
            return _display_hand_plain(hand)
        keys.append(order[c] * 4 + n - 1)
    keys.sort()
    cards = _DISPLAY_CARDS
    out: list[Card] = []
    for key in keys:
        c = cards[key >> 2]
        n = key & 3
        if n == 0:
            out.append(c)
        else:
            out.extend([c] * (n + 1))
    return tuple(out)


def _display_hand_plain(hand: dict[Card, int]) -> tuple[Card, ...]:
    """Return `_display_hand` the plain way: the distinct cards' places sorted, then repeated."""
    order = _DISPLAY_ORDER
    places = [order[c] for c in hand]
    places.sort()
    return held_in_order(hand, [_DISPLAY_CARDS[i] for i in places])


class _LastDeads:
    """The dead views of the last `player_view` and what they were built from: the deads change
    a few times a hand, the views are asked at every decision."""

    def __init__(self) -> None:
        self.hidden = False
        #: copies of the state's lists the views were built from (None: no views yet)
        self.deads: list[tuple[Card, ...] | None] | None = None
        self.takers: list[int | None] = []
        self.fates: list[DeadFate | None] = []
        self.unused: list[int | None] = []
        self.views: tuple[DeadView, ...] = ()


_LAST_DEADS: Final = _LastDeads()


def _dead_views(state: GameState, hidden: bool) -> tuple[DeadView, ...]:
    """Return the views of the deads (`hidden`: as a seat sees them, with counts for cards)."""
    deads, takers, unused_seat = state.deads.left, state.deads.taker, state.deads.unused
    fates = state.deads.fate
    # the deads' tuples are immutable and a dead only ever goes (to None): list equality (an
    # identity test first, per item) says whether anything changed
    last = _LAST_DEADS
    if (
        last.deads is not None and last.hidden == hidden and last.deads == deads
        and last.takers == takers and last.fates == fates and last.unused == unused_seat
    ):
        return last.views
    views = []
    for i, d in enumerate(deads):
        taker = takers[i]
        if d is not None:
            views.append(DeadView(taken_by=None, fate=None, cards=len(d) if hidden else tuple(d)))
        else:
            unused = taker is not None and unused_seat[team_of(taker)] == taker
            views.append(DeadView(taken_by=taker, fate=state.deads.fate[i], cards=0, unused=unused))
    last.hidden, last.deads, last.takers = hidden, list(deads), list(takers)
    last.fates, last.unused, last.views = list(fates), list(unused_seat), tuple(views)
    return last.views


_PLAYING: Final = frozenset(PLAYING_PHASES)


def player_view(state: GameState, seat: int | None = None, *, scores: bool = True) -> View:
    """Return what `seat` may see of the state (`None`: everything).

    During a hand other hands become counts, the stock and untaken deads become counts, a closed
    pile shows only its top card and size, a closed pile just taken shows its rest only to the
    taker, and the score sheet leaves out the cards still held. With `scores=False` the hand's
    score sheet is left out (`hand_scores` empty, `scores` = the totals of finished hands): what
    a bot needs, at a fraction of the cost.
    """
    rules = state.rules
    phase = state.phase
    playing = phase in _PLAYING
    hands: list[tuple[Card, ...] | int] = []
    for s, h in enumerate(state.hands):
        if seat is None or s == seat or not playing:
            hands.append(_display_hand(h))
        else:
            n = 0
            for k in h.values():
                n += k
            hands.append(n)
    melds = _meld_views(state.melds, rules)
    pile_cards = state.pile
    pile = PileView(
        size=len(pile_cards),
        top=pile_cards[-1] if pile_cards else None,
        cards=tuple(pile_cards) if seat is None or rules.pile == "open" else None,
    )
    deads = _dead_views(state, seat is not None)
    pending = None
    if state.pending_top is not None:
        rest: tuple[Card, ...] | int = (
            tuple(state.pending_rest) if seat is None or seat == state.to_play else len(state.pending_rest)
        )
        pending = PendingView(top=state.pending_top, rest=rest)
    counted = True
    sheet: tuple[TeamScore, ...]
    totals = tuple(state.totals)
    if not scores:
        sheet, running, counted = (), totals, False
    elif playing or phase == "hand_end":
        if seat is not None and playing:
            # the sheet without the cards held (the part of RULES 7 nobody else may see)
            sheet, counted = table_scores(state), False
        else:
            sheet = hand_scores(state)
        running = tuple([t + sc.total for t, sc in zip(state.totals, sheet, strict=True)])
    else:
        sheet = state.hand_results[-1] if state.hand_results else ()
        running = totals
    return View(
        seq=state.next_seq - 1, game_id=state.game_id, variant=state.variant,
        players=state.players, seat=seat, hand=state.hand_no, to_play=state.to_play,
        phase=phase, hands=tuple(hands), melds=melds, pile=pile, stock=len(state.stock),
        deads=deads, pending=pending, top_due=state.top_due, scores=running, totals=totals,
        hand_scores=tuple(sheet), hands_counted=counted, winner=state.winner,
    )
