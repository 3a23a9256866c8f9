"""The greedy bot's rating of plays and discards, and what it keeps for the game it plays.

The rating is its own module because it changes with the bot's play (its weights and tables),
never with how the bot walks a decision (`greedy`) or the registry of bots (`registry`).
"""

from __future__ import annotations

from typing import Final

from buraco_events.core.cards import (
    NATURAL_RANKS,
    SUIT_INDEX,
    SUIT_RANK,
    SUIT_RANK_SIZE,
    SUITS,
    WILD_CODES,
    WILD_RANKS,
    Card,
    card_value,
    run_neighbours,
)
from buraco_events.core.choices import Action
from buraco_events.core.fits import MeldFits, fits_in, meld_fits
from buraco_events.core.gate import team_of
from buraco_events.core.hand_melds import hand_melds
from buraco_events.core.melds import (
    CANASTA_SIZE,
    CanastaKind,
    caches_for,
    canasta_bonus,
    canasta_kind,
    canonical_rules,
    classify,
    is_closing_canasta,
    meld_wild,
    size_kind,
)
from buraco_events.core.state import sorted_held
from buraco_events.model.rules import Rules
from buraco_events.model.views import MeldKind, MeldView, View

# GreedyBot weights, in points (the unit of RULES 7)
_EMPTY_HAND: Final = 1000  # taking the dead at once, or closing: always worth it
_WILD_COST: Final = 45  # a wild spent without completing a canasta (keep wilds for canastas)
_CLEAN_RISK: Final = 12  # per card of a clean meld dirtied while the team still needs a clean canasta
_CLEANED: Final = 25  # a dirty run made clean by a natural
_PER_CARD: Final = 4  # per card laid: prefer long melds and getting rid of cards
_PER_LENGTH: Final = 2  # per card of the resulting meld: build towards a canasta
_KEEP_WILD: Final = 1000  # a wild is discarded only when nothing else may go
_FEEDS_OPPONENT: Final = 300  # a discard that fits an opponent's meld
_NEIGHBOUR: Final = (0, 40, 18)  # a natural of the same suit at rank distance 1, 2
_SAME_RANK: Final = 30  # another card of the same rank (sets variants)
_FITS_OWN: Final = 50  # a card that fits one of the team's melds (to lay off on a later turn)


def is_late(view: View, refill: bool) -> bool:
    """Return whether the hand is near its end: a short stock and no dead left to refill it
    (`refill`: the rules refill the stock from a dead, RULES 8)."""
    if view.stock > 6:
        return False
    return not (refill and any(d.fate is None for d in view.deads))


class GameMemory:
    """What a greedy bot keeps for the game it plays, under one rules object.

    Built at the bot's first decision and again whenever the rules object changes (a new game),
    and held by the bot, or by the greedy bots of one table (`TableMemory`), so nothing is kept
    between the tables of a process:

    - what the bot reads of the rules, read once (the rules are a msgspec struct, whose fields
      compiled code reads generically);
    - the ratings of the plays it met (`Rated`), by the `id()` of the action each keeps alive:
      the table offers one shared action per play, decision after decision, and a rating holds
      while its meld view does; they depend on the rules' values only, so a memory of equal rules
      (`melds.canonical_rules`) takes over the last one's, up to `RATED_MAX` (cleared when full);
    - the index of the melds' kept entries (`MeldIndex`), brought up to each discard's view.
    """

    def __init__(self, rules: Rules, last: GameMemory | None = None) -> None:
        self.rules = rules
        #: the first rules object seen equal to these: games of equal rules share the ratings
        canon = self.canon = canonical_rules(rules)
        same = last is not None and last.canon is canon
        #: each card's points by code (`cards.card_value`)
        self.values: list[int] = last.values if last is not None and same else _values(rules.two_value, rules.joker_value)
        self.sets: bool = rules.sets
        self.close_needs_clean: bool = rules.close_needs_clean
        #: whether the stock is refilled from a dead (RULES 8)
        self.refill: bool = rules.stock_end == "refill"
        #: whether a club canasta kind exists (RULES 3.5): a canasta's kind then needs its shape
        self.club_kinds: bool = caches_for(rules).club_kinds
        #: the plays' ratings by the id() of their action (`Position.play_score`)
        self.rated: dict[int, Rated] = last.rated if last is not None and same else {}
        #: the melds' index for `Position.keep_melds` (None until a discard asks for it)
        self.index: MeldIndex | None = None


class TableMemory:
    """The `GameMemory` of the game a greedy bot plays: its own, or one shared by the greedy
    bots of one table (`bots.table_bots`), so that a play rated or a meld indexed for one seat
    serves the others (a rating or an index entry does not depend on the seat)."""

    def __init__(self) -> None:
        self.game: GameMemory | None = None


#: the most play ratings a `GameMemory` keeps
RATED_MAX: Final = 1 << 16


def _values(two_value: int, joker_value: int) -> list[int]:
    """Return each card's points by code (`cards.card_value`) for the values of the wilds."""
    values = [0] * SUIT_RANK_SIZE
    for c, code in SUIT_RANK.items():
        values[code] = card_value(c, two_value, joker_value)
    return values


class Rated:
    """The part of a play's score that does not depend on the decision (`Position.play_score`):
    what `action` lays onto which meld view, under the rules of the `GameMemory` that keeps it.
    In points: every term is an int."""

    def __init__(self, action: Action, meld: MeldView | None, base: int,
                 short_wild: bool, wild_cost: int, risk: int) -> None:
        #: the action rated, kept alive so that its id() keys this rating alone
        self.action = action
        self.meld = meld
        #: the cards laid
        self.n = len(action.cards)
        #: points laid, per card, length reached, canasta bonus gained, a dirty meld cleaned
        self.base = base
        #: a wild laid short of a canasta (onto no dirty meld): `wild_cost` is lost when the
        #: hand is not near its end
        self.short_wild = short_wild
        self.wild_cost = wild_cost
        #: the cost of dirtying a clean meld while the team has no canasta to close with (0: none)
        self.risk = risk


class Position:
    """What one play-phase decision needs from the view, computed once (or on first use).

    The view is a msgspec struct (its fields are read generically when compiled): each field is
    read once here. Meld ids are the melds' places on the table (the engine's `state.melds[id]`).
    """

    def __init__(self, view: View, game: GameMemory):
        seat = view.seat
        if seat is None:
            seat = view.to_play
        self.rules = game.rules
        self.game = game
        self.team = team_of(seat)
        own = view.hands[seat]
        held = own if isinstance(own, tuple) else ()
        #: the cards held (counted only by `cheapest_discard`: most decisions play instead)
        self.held: tuple[Card, ...] = held
        #: the cards held once a play is made, before taking away its cards: a closed pile's
        #: top and rest come to the hand, the top laid with the play (RULES 4)
        self.after = len(held)
        pending = view.pending
        if pending is not None:
            rest = pending.rest
            self.after += 1 + (len(rest) if isinstance(rest, tuple) else rest)
        self.melds = view.melds
        self._view = view
        #: `is_late` (-1: not asked yet)
        self._late = -1
        self._has_close_canasta: bool | None = None
        #: the team's index of the melds' kept entries, for `keep_melds` (set on first use)
        self._index: MeldIndex | None = None

    def is_late(self) -> bool:
        """Return `is_late` of the view (asked at most once)."""
        if self._late < 0:
            self._late = 1 if is_late(self._view, self.game.refill) else 0
        return self._late == 1

    def has_close_canasta(self) -> bool:
        """Return whether the team already holds a canasta it may close with (asked rarely)."""
        if self._has_close_canasta is None:
            team, rules = self.team, self.rules
            self._has_close_canasta = any(
                m.team == team and is_closing_canasta(len(m.cards), m.clean, rules) for m in self.melds
            )
        return self._has_close_canasta

    def play_score(self, action: Action) -> int:
        """Return how much a meld or a lay-off is worth now (0 = not worth playing yet)."""
        meld: MeldView | None = None
        if action.kind != "meld":
            meld = self.melds[action.meld or 0]
        # a kept rating keeps its action alive: the id() it is kept under is that action's
        rated = self.game.rated.get(id(action))
        if rated is None or rated.meld is not meld:
            rated = self._rate(action, meld)
        n = rated.n
        left = self.after - n
        if left == 0:
            return _EMPTY_HAND + n
        score = rated.base
        if rated.short_wild and left > 3 and not self.is_late():
            # a wild laid short of a canasta is gone for good: count it as a loss, not a gain
            score -= rated.wild_cost
        if rated.risk and not self.has_close_canasta():
            score -= rated.risk
        return score

    def _rate(self, action: Action, meld: MeldView | None) -> Rated:
        """Return the `Rated` of a meld (`meld` None) or a lay-off onto `meld`, and keep it."""
        rules, cards = self.rules, action.cards
        # the wild of `classify(cards)` or of `classify(meld + cards)` (its code; -1: clean), on
        # the cards' counts (`melds._Tally.wild_code`): no card tuple sorted nor classified
        if meld is None:
            wild = meld_wild(cards, rules)
            size = len(cards)
            old_bonus, old_dirty, old_clean_len = 0, False, 0
        else:
            laid = meld.cards  # the meld view's fields read once (a msgspec struct)
            wild = meld_fits(laid, rules).grown_wild(cards)
            size = len(laid) + len(cards)
            old_bonus, old_dirty = _bonus(meld.kind, rules), not meld.clean
            old_clean_len = 0 if old_dirty else len(laid)
        assert wild != -2, "the engine offers only plays that make a meld"
        values = self.game.values
        points = 0
        for c in cards:
            points += values[SUIT_RANK[c]]
        base = points + _PER_CARD * len(cards) + _PER_LENGTH * size
        base += _bonus(self._kind(size, wild, cards, meld), rules) - old_bonus
        short_wild, wild_cost, risk = False, 0, 0
        if wild != -1 and not old_dirty:
            short_wild, wild_cost = size < CANASTA_SIZE, _WILD_COST + values[wild]
            if old_clean_len and self.game.close_needs_clean:
                risk = _CLEAN_RISK * old_clean_len
        elif old_dirty and wild == -1:
            base += _CLEANED
        rated = Rated(action, meld, base, short_wild, wild_cost, risk)
        kept = self.game.rated
        if len(kept) >= RATED_MAX:
            kept.clear()
        kept[id(action)] = rated
        return rated

    def _kind(self, size: int, wild: int, cards: tuple[Card, ...], meld: MeldView | None) -> CanastaKind | None:
        """Return the canasta kind the play makes (`melds.canasta_kind`, scored by the one bonus
        function `canasta_bonus`), or None below a canasta."""
        rules = self.rules
        if size >= CANASTA_SIZE and self.game.club_kinds:
            # a club kind hangs on where the wild stands or on the set's ranks: the meld's shape
            shape = classify(cards if meld is None else meld.cards + cards, rules)
            return None if shape is None else canasta_kind(shape, rules)
        # `canasta_kind` on counts alone: a meld of 13 cards or more is a run (a set holds at most
        # the 8 naturals of its rank and one wild)
        return size_kind(size, wild == -1, size >= 13, rules)

    def cheapest_discard(self, discards: list[Action]) -> Action:
        """Return the discard whose card is worth least to keep (hand worth plus meld fits)."""
        # naturals held per card code and per rank, in flat int lists
        counts = [0] * SUIT_RANK_SIZE
        by_rank = [0] * 14
        codes = SUIT_RANK
        for c in self.held:  # card by card: the same counts as per distinct card times held
            code = codes[c]
            rank = code & 15
            if not WILD_RANKS >> rank & 1:
                counts[code] = counts[code] + 1
                by_rank[rank] = by_rank[rank] + 1
        # branch and bound: the meld checks only add to a card's worth, so once a card's full
        # worth is below every other card's cheap worth, no other card needs the meld checks;
        # the cards ranked by (worth, offer place) as one int each, the card's code below them
        # (looked up once): (worth << shift | place) << 7 | code
        shift = len(discards).bit_length()
        info = self.game
        values, sets, late = info.values, info.sets, self.is_late()
        ranked: list[int] = []
        for i, a in enumerate(discards):
            code = codes[a.cards[0]]
            # twice the card's worth from the hand alone (in half points: a value counts half
            # early in the hand): wilds, neighbours, same rank, its value
            value = values[code]
            rank = code & 15
            if WILD_RANKS >> rank & 1:
                worth = 2 * (_KEEP_WILD + value)
            else:
                near = far = 0
                for other in _NEAR_CODES[code]:
                    near += counts[other]
                for other in _FAR_CODES[code]:
                    far += counts[other]
                score = _NEIGHBOUR[1] * near + _NEIGHBOUR[2] * far
                if sets:
                    score += _SAME_RANK * (by_rank[rank] - 1)
                worth = 2 * score - (4 * value if late else value)
            ranked.append(((worth << shift) + i) << 7 | code)
        ranked.sort()
        mask = (1 << shift) - 1
        best = (ranked[0] >> 7) & mask
        best_score = (ranked[0] >> (shift + 7)) + 2 * self.keep_melds(discards[best].cards[0], ranked[0] & 127)
        for j in range(1, len(ranked)):
            key = ranked[j]
            base = key >> (shift + 7)
            if base >= best_score:
                break
            i = (key >> 7) & mask
            score = base + 2 * self.keep_melds(discards[i].cards[0], key & 127)
            if score < best_score:
                best, best_score = i, score
        return discards[best]

    def _index_melds(self) -> MeldIndex:
        """Return the index of the melds' kept entries (`fits.meld_fits`), brought up to this
        view's melds: one index for both teams (a meld's team is kept, `mine` is the test of
        `keep_melds`), kept by the game's memory across decisions, since few melds change
        between two discards (`MeldIndex.update`)."""
        game, melds = self.game, self.melds
        kept = game.index
        if kept is None or not kept.update(melds):
            kept = game.index = MeldIndex(game.rules)
            kept.update(melds)
        self._index = kept
        return kept

    def keep_melds(self, card: Card, code: int) -> int:
        """Return the worth (>= 0) a card adds by fitting a meld: an opponent's, or the team's
        (`code`: the card's `SUIT_RANK` code).

        Which meld it fits first does not matter: one own fit and one opponent's fit count.
        """
        index = self._index
        if index is None:
            index = self._index_melds()
        team_of_meld, fits, team = index.teams, index.fits, self.team
        score = 0
        fed = owned = False
        for i in index.by_code[code]:
            mine = team_of_meld[i] == team
            if owned if mine else fed:
                continue
            # `classify(m.cards + (card,))` is a meld, answered from the meld's kept fits
            if not fits[i].fit(card):
                continue
            if mine:
                owned, score = True, score + _FITS_OWN
            else:
                fed, score = True, score + _FEEDS_OPPONENT
            if owned and fed:
                break
        return score


class MeldIndex:
    """The kept entries of a table's melds, for both teams (`Position._index_melds`).

    Per meld position: its view, its team, its kept entry, its bucket (a run's
    suit index, 4 + a set's rank; -1 for no meld); `by_code` lists per card code the positions
    of the melds the card may join (a natural: the runs of its suit and the sets of its rank,
    RULES 3.1, 3.2; a wild: every meld). A lay-off replaces a meld's view at the same position
    and keeps its type, suit and rank, so `update` only refreshes the positions whose view
    changed and appends the new melds.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.views: list[MeldView] = []
        self.teams: list[int] = []
        self.fits: list[MeldFits] = []
        self.buckets: list[int] = []
        self.by_code: list[list[int]] = [[] for _ in range(SUIT_RANK_SIZE)]

    def update(self, melds: tuple[MeldView, ...]) -> bool:
        """Bring the index up to `melds`; False when it cannot (fewer melds, or a meld at a
        known position in another bucket: a new hand), and then it must be built afresh."""
        views = self.views
        known = len(views)
        if len(melds) < known:
            return False
        caches = caches_for(self.rules)
        for i, m in enumerate(melds):
            if i < known and views[i] is m:
                continue
            entry = fits_in(caches, m.cards)
            shape = entry.shape
            bucket = -1
            if shape is not None:
                bucket = SUIT_INDEX[shape.suit or ""] if shape.type == "run" else 4 + (shape.rank or 0)
            team = m.team
            if i < known:
                if bucket != self.buckets[i]:
                    return False
                views[i], self.teams[i], self.fits[i] = m, team, entry
                continue
            views.append(m)
            self.teams.append(team)
            self.fits.append(entry)
            self.buckets.append(bucket)
            if bucket >= 0:  # no meld: nothing joins it (`fit` is False)
                for code in _BUCKET_CODES[bucket]:
                    self.by_code[code].append(i)
        return True


#: per card code of a natural: the codes of its suit at run distance 1 (`_NEAR_CODES`) and 2
#: (`_FAR_CODES`); empty for a wild
_NEAR_CODES: Final[list[tuple[int, ...]]] = [
    tuple(code - code % 16 + r for r in run_neighbours(code % 16, 1)) if code % 16 in NATURAL_RANKS else ()
    for code in range(SUIT_RANK_SIZE)
]
_FAR_CODES: Final[list[tuple[int, ...]]] = [
    tuple(code - code % 16 + r for r in run_neighbours(code % 16, 2)) if code % 16 in NATURAL_RANKS else ()
    for code in range(SUIT_RANK_SIZE)
]
#: per `MeldIndex` bucket: the codes of the cards that may join its melds (the naturals of a
#: run's suit, of a set's rank) and the wilds
_BUCKET_CODES: Final[list[tuple[int, ...]]] = [
    tuple(s * 16 + r for r in NATURAL_RANKS) + WILD_CODES for s in range(len(SUITS))
] + [tuple(s * 16 + r for s in range(len(SUITS))) + WILD_CODES for r in range(14)]


def _bonus(kind: CanastaKind | MeldKind | None, rules: Rules) -> int:
    return 0 if kind is None or kind == "none" else canasta_bonus(kind, rules)


def useful_cards(view: View, pile: tuple[Card, ...], rules: Rules, enough: int = 64) -> int:
    """Return how many distinct natural pile cards would join a meld or a lay-off right away,
    or a number of `enough` or more once that many are found (the default counts them all).

    Only wild-free plays count: the play phase will not spend a wild short of a canasta, and a
    pile taken for a play it will not make is passed back and forth for ever. The wild-free
    candidates of some cards are exactly the candidates of those cards without their wilds (a
    run held in full or a set of naturals never needs one; a lay-off's stretch stops where a wild
    would be needed), so the wilds are left out from the start: fewer candidates, no wild tests.
    """
    seat = view.seat
    if seat is None:
        seat = view.to_play
    own = view.hands[seat]
    codes = SUIT_RANK
    # the natural pile cards as bits by card code (a natural's code is below 62: a small int,
    # no list to build), and their suits and ranks as bits
    in_pile = suits = ranks = 0
    together: dict[Card, int] = {}
    for c in pile:
        code = codes[c]
        rank = code & 15
        if not WILD_RANKS >> rank & 1:
            in_pile |= 1 << code
            suits |= 1 << (code >> 4)
            ranks |= 1 << rank
            together[c] = together.get(c, 0) + 1
    # runs hold one suit and sets one rank: hand cards sharing neither with the pile change nothing
    for c in own if isinstance(own, tuple) else ():
        code = codes[c]
        rank = code & 15
        if not WILD_RANKS >> rank & 1 and (suits >> (code >> 4) & 1 or ranks >> rank & 1):
            together[c] = together.get(c, 0) + 1
    used = n = 0
    found, together_mask = hand_melds(together, rules)
    for cards in found:
        used, n = _mark_used(cards, in_pile, used, n)
        if n >= enough:
            return n
    team = team_of(seat)
    held: tuple[Card, ...] | None = None
    caches = caches_for(rules)
    for m in view.melds:
        if m.team == team:
            # `candidate_lay_offs` from the meld's kept entry (`fits.meld_fits`), as the table's
            # candidates do, with the cards sorted once for all the melds
            entry = fits_in(caches, m.cards)
            if entry.shape is None or not entry.gate_mask & together_mask:
                continue  # no meld, or none of the cards every lay-off onto it holds one of
            if held is None:
                held = sorted_held(together)
            for lay_off in entry.lay_offs_in(held):
                used, n = _mark_used(lay_off, in_pile, used, n)
                if n >= enough:
                    return n
    return n


def _mark_used(cards: tuple[Card, ...], in_pile: int, used: int, n: int) -> tuple[int, int]:
    """Mark the natural pile cards among `cards` used (bits by card code of `in_pile`, `used`);
    return the new `used` and `n` plus those not marked before (the cards are naturals)."""
    for c in cards:
        bit = 1 << SUIT_RANK[c]
        if in_pile & bit and not used & bit:
            used |= bit
            n += 1
    return used, n
