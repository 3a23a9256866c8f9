"""Melds: what a multiset of cards forms under the rules (RULES 3), and the canasta kinds.

A meld's legality and kind depend only on its cards and the rules, never on history (except
`royal_in_one_turn`, which the engine passes in). `classify` finds the canonical arrangement of
RULES 3.4 or says the cards are no meld; `_Tally` answers the same yes or no (and the wild) on
card counts. The answers kept per rules object live in a `MeldRules` (the rules' caches, `caches_for`).
Positions inside a run are 1..14: the ace is 1 (low) or 14 (high). The candidate melds of a hand
are `hand_melds`'; the lay-offs onto a meld, `fits`'.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Final, get_args

from buraco_events.model.rules import Rules
from buraco_events.model.terms import CanastaKind, MeldType

from .cards import RANK, SUIT, SUIT_POS_CARDS, SUIT_RANK, WILD_RANKS, Card, Value
from .clubkinds import club_bonus, club_kind, club_kinds_on

CANASTA_KINDS: Final[tuple[CanastaKind, ...]] = get_args(CanastaKind)
#: a meld of this many cards or more is a canasta (RULES 3.5)
CANASTA_SIZE: Final = 7


#: the fields of a meld shape, in constructor order
_SHAPE_FIELDS: Final = ("type", "cards", "wild", "suit", "rank", "low", "high")


class MeldShape(Value):
    """A valid meld: its type (run or set), canonical arrangement, and the card acting as wild (if any).

    Immutable (read-only attributes), compared and hashed by value (`cards.Value`): meld shapes
    are built on every meld and lay-off.
    """

    __slots__ = ("type", "cards", "wild", "suit", "rank", "low", "high")
    _FIELDS: ClassVar[tuple[str, ...]] = _SHAPE_FIELDS

    def __init__(
        self,
        type: MeldType,
        cards: tuple[Card, ...],
        wild: Card | None,
        suit: str | None = None,
        rank: int | None = None,
        low: int = 0,
        high: int = 0,
    ) -> None:
        self.type: Final = type
        self.cards: Final = cards
        self.wild: Final = wild
        self.suit: Final = suit
        self.rank: Final = rank
        self.low: Final = low
        self.high: Final = high

    def _values(self) -> tuple[Any, ...]:
        return (self.type, self.cards, self.wild, self.suit, self.rank, self.low, self.high)

    @property
    def is_clean(self) -> bool:
        """Return whether no card acts as a wild."""
        return self.wild is None

    def __len__(self) -> int:
        return len(self.cards)


def _run_shape(cards: tuple[Card, ...], rules: Rules) -> MeldShape | None:
    """Return the run the cards form (RULES 3.1, 3.4), or None: positions as a bitmask.

    Bit p of a mask stands for run position p (1..14); the naturals other than aces and 2s sit
    at their rank, so a repeated rank, the only way two positions could clash, is refused early.
    """
    suit = ""
    mask = 0  # positions of the naturals 3..K
    aces = 0
    forced: Card | None = None  # the one card that can only stand as a wild
    n_forced = 0
    twos: list[Card] = []
    for c in cards:
        r = RANK[c]
        if r == 0:
            n_forced += 1
            forced = c
        elif r == 2:
            twos.append(c)
        else:
            s = SUIT[c]
            if s != suit:
                if suit:
                    return None  # RULES 3.1: one suit
                suit = s
            if r == 1:
                aces += 1
            else:
                bit = 1 << r
                if mask & bit:
                    return None  # a rank twice
                mask |= bit
    if not suit:
        return None  # only wilds: RULES 3.1, a run needs two natural cards
    own2 = 0
    for c in twos:
        if SUIT[c] == suit:
            own2 += 1
        else:
            n_forced += 1
            if forced is None:  # the jokers come first, as the cards' order has them
                forced = c
    if n_forced > 1 or aces > 2:
        return None  # RULES 3.1: at most one wild per meld
    own_two = "2" + suit
    # options: (wild card, own-suit 2 standing as natural), best first (RULES 3.4)
    options: list[tuple[Card | None, bool]]
    if forced is not None:
        if own2 > 1:
            return None
        options = [(forced, own2 == 1)]
    elif own2 == 0:
        options = [(None, False)]
    elif own2 == 1:
        options = [(None, True), (own_two, False)]
    elif own2 == 2:
        options = [(own_two, True)]
    else:
        return None
    if aces == 2:
        if not rules.ace_to_ace:
            return None  # RULES 3.1: without ace_to_ace a run holds one natural ace
        ace_options = _BOTH_ACES
    elif aces == 1:
        ace_options = _ONE_ACE
    else:
        ace_options = _NO_ACE
    row = SUIT_POS_CARDS[suit]
    for wild, nat2 in options:
        for ace_bits in ace_options:
            pos = mask | ace_bits | (4 if nat2 else 0)
            n = pos.bit_count()
            if n < 2:
                continue
            lo = (pos & -pos).bit_length() - 1
            hi = pos.bit_length() - 1
            gaps = hi - lo + 1 - n
            if wild is None:
                if gaps:
                    continue
                return MeldShape("run", row[lo:hi + 1], None, suit, None, lo, hi)
            if gaps > 1:
                continue
            if gaps == 1:
                hole = (((1 << (hi + 1)) - (1 << lo)) & ~pos).bit_length() - 1
            else:
                can_low, can_high = lo > 1, hi < 14
                if not (can_low or can_high):
                    continue
                go_low = (rules.wild_goes_low and can_low) or not can_high
                hole = lo - 1 if go_low else hi + 1
            lo, hi = min(lo, hole), max(hi, hole)
            return MeldShape("run", row[lo:hole] + (wild,) + row[hole + 1:hi + 1], wild, suit, None, lo, hi)
    return None


#: the ace positions to try (bit 1: low, bit 14: high), per number of natural aces
_NO_ACE: Final[tuple[int, ...]] = (0,)
_ONE_ACE: Final[tuple[int, ...]] = (1 << 1, 1 << 14)
_BOTH_ACES: Final[tuple[int, ...]] = ((1 << 1) | (1 << 14),)


def _set_shape(cards: tuple[Card, ...]) -> MeldShape | None:
    """Return the set the cards form (RULES 3.2), or None; `cards` sorted as strings.

    At most one wild, two naturals or more, all of one rank. Naturals of one rank sorted as
    strings stand in suit letter order (C D H S), the reverse of the display order (S H D C).
    """
    wild: Card | None = None
    rank = 0
    naturals: list[Card] = []
    for c in cards:
        r = RANK[c]
        if WILD_RANKS >> r & 1:
            if wild is not None:
                return None  # RULES 3.2: at most one wild
            wild = c
        elif r != rank:
            if rank:
                return None  # one rank
            rank = r
            naturals.append(c)
        else:
            naturals.append(c)
    if len(naturals) < 2:
        return None  # no set of 2s (nor of fewer than two naturals)
    naturals.reverse()
    if wild is not None:
        naturals.append(wild)
    return MeldShape("set", tuple(naturals), wild, None, rank)


class MeldRules:
    """The meld answers of one rules object: `classify` answers and the melds' kept entries
    (`fits.MeldFits`), each keyed by cards alone.

    Built by `caches_for(rules)`. A caller asking many times under one rules object may hold
    its caches and ask them directly (`classify_sorted`, `fits.fits_in`), sparing the lookup. Equal
    rules objects share one pair of dicts: the rules (a struct of some thirty fields) are hashed
    when the caches are built, not per lookup. Plain dicts (mypyc), cleared when full.
    """

    def __init__(
        self, rules: Rules, canonical: Rules, classified: dict[tuple[Card, ...], MeldShape | None],
        fits: dict[tuple[Card, ...], Any],
    ) -> None:
        #: the rules object the caches were built for (its key in `_CACHES_BY_ID`)
        self.rules: Final = rules
        #: the first rules object seen equal to `rules` (`canonical_rules`)
        self.canonical: Final = canonical
        #: `classify` answers by sorted cards, at most `_CLASSIFIED_MAX`
        self.classified: Final = classified
        #: `fits.MeldFits` by meld cards, at most `fits._FITS_MAX`: typed Any here, since `fits`
        #: builds on this module (no import back); `fits.fits_in`, its one reader, types them
        self.fits: Final = fits
        #: whether any club or tournament kind exists under the rules (RULES 3.5), read once
        self.club_kinds: Final = club_kinds_on(rules)

    def classify_sorted(self, cards: tuple[Card, ...]) -> MeldShape | None:
        """Return `classify` of cards already sorted (as strings), kept."""
        classified = self.classified
        shape = classified.get(cards, UNKNOWN_SHAPE)
        if shape is not UNKNOWN_SHAPE:
            return shape
        if len(cards) < 3:
            shape = None
        else:
            rules = self.rules
            shape = _run_shape(cards, rules)
            if shape is None and rules.sets:
                shape = _set_shape(cards)
        if len(classified) >= _CLASSIFIED_MAX:
            classified.clear()
        classified[cards] = shape
        return shape


#: the per-process registry of caches by the `id` of the rules object asked: an int key spares
#: hashing the rules' fields on each lookup, and each `MeldRules` holds its rules object, so an id
#: found here is that live object's own. At most `_CACHES_MAX` entries (cleared when full).
_CACHES_BY_ID: Final[dict[int, MeldRules]] = {}
#: the per-process registry of caches by rules value: where new caches find the dicts (and the
#: canonical rules object) of an equal rules object's. At most `_CACHES_MAX` entries.
_CACHES_BY_VALUE: Final[dict[Rules, MeldRules]] = {}
_CACHES_MAX: Final = 64
_CLASSIFIED_MAX: Final = 1 << 17
#: the classify cache's "not there yet" (None is a cached answer: no meld)
UNKNOWN_SHAPE: Final = MeldShape("set", (), None)


def caches_for(rules: Rules) -> MeldRules:
    """Return the meld caches of a rules object (equal rules objects share its answers)."""
    caches = _CACHES_BY_ID.get(id(rules))
    if caches is not None:
        return caches
    shared = _CACHES_BY_VALUE.get(rules)
    if shared is None:
        if len(_CACHES_BY_VALUE) >= _CACHES_MAX:
            _CACHES_BY_VALUE.clear()
        shared = _CACHES_BY_VALUE[rules] = MeldRules(rules, rules, {}, {})
    caches = MeldRules(rules, shared.canonical, shared.classified, shared.fits)
    if len(_CACHES_BY_ID) >= _CACHES_MAX:
        _CACHES_BY_ID.clear()
    _CACHES_BY_ID[id(rules)] = caches
    return caches


def canonical_rules(rules: Rules) -> Rules:
    """Return the first rules object seen equal to `rules` (lately): answers kept per rules
    object that depend only on the rules' values may be kept per this one."""
    return caches_for(rules).canonical


def classify(cards: Iterable[Card], rules: Rules) -> MeldShape | None:
    """Return the meld the cards form under the rules (canonical arrangement), or None."""
    return caches_for(rules).classify_sorted(tuple(sorted(cards)))


def classify_in(caches: MeldRules, cards: Iterable[Card]) -> MeldShape | None:
    """Return `classify` under the rules of the caches a caller holds (a game's, on its state)."""
    return caches.classify_sorted(tuple(sorted(cards)))


def is_meld(cards: Iterable[Card], rules: Rules) -> bool:
    """Return whether the cards form a legal meld."""
    return classify(cards, rules) is not None


class _Tally:
    """What `classify` asks of a multiset of cards, as ints: whether it is a meld (`ok`) is then
    arithmetic, and a meld's tally grows by a card (`add`) without classifying a new card tuple.

    `ok()` equals `classify(cards) is not None` (tested against it): the checks of `_run_shape`
    and `_set_shape` on counts, no arrangement built.

    Why two classifications: `_run_shape` and `_set_shape` build the canonical arrangement (which
    card stands at which position, where a wild goes), which needs the cards themselves and a
    new sorted tuple per question; the tally keeps counts and bitmasks, grows by one card in a
    few int operations and answers from a copy, so the per-card and per-lay-off questions
    (`fits.MeldFits.fit`, the joins of longer lay-offs, the bots' `meld_wild`) build no tuple and
    fill no cache. Building the arrangement from a tally would first need the per-card identity
    the tally drops (which 2 is the wild), so each keeps the form its callers need.
    """

    def __init__(self) -> None:
        #: the cards counted
        self.n = 0
        #: the suits of the naturals (bit suit index), and their ranks (bit rank; the ace bit 1)
        self.suits = 0
        self.ranks = 0
        #: a natural rank 3..K held twice (no run), the naturals counted, the aces among them
        self.dup = False
        self.nats = 0
        self.aces = 0
        #: the 2s per suit (8 bits a suit: bits 8 * suit index), all the 2s, the jokers
        self.twos = 0
        self.n_twos = 0
        self.jokers = 0

    def copy(self) -> _Tally:
        t = _Tally()
        t.n, t.suits, t.ranks, t.dup = self.n, self.suits, self.ranks, self.dup
        t.nats, t.aces, t.twos, t.n_twos, t.jokers = self.nats, self.aces, self.twos, self.n_twos, self.jokers
        return t

    def add(self, card: Card) -> None:
        """Count one card more."""
        code = SUIT_RANK[card]
        self.n += 1
        r = code & 15
        if r == 0:
            self.jokers += 1
        elif r == 2:
            self.twos += 1 << ((code >> 4) * 8)
            self.n_twos += 1
        else:
            self.suits |= 1 << (code >> 4)
            bit = 1 << r
            if r == 1:
                self.aces += 1
            elif self.ranks & bit:
                self.dup = True
            self.ranks |= bit
            self.nats += 1

    def ok(self, rules: Rules) -> bool:
        """Return whether the cards counted form a meld: `classify(cards, rules) is not None`."""
        if self.n < 3:
            return False
        return self._run_ok(rules.ace_to_ace) or (rules.sets and self._set_ok())

    def wild_code(self, rules: Rules) -> int:
        """Return the `cards.SUIT_RANK` code of the card acting as wild in `classify(cards,
        rules)`, -1 for a clean meld, -2 for no meld (tested against `classify`).

        `_run_shape` first, its options in order: a joker or another suit's 2 (at most one) is the
        wild; else the suit's 2 held once stands as a natural when the run fits so, else as the
        wild; held twice, one is the wild. Then `_set_shape`: the wild held, if any.
        """
        if self.n < 3:
            return -2
        if self._run_ok(rules.ace_to_ace):
            suit = 0
            suits = self.suits
            while not suits >> suit & 1:
                suit += 1
            own2 = (self.twos >> (suit * 8)) & 255
            if self.jokers + self.n_twos > own2:  # one forced wild (`_run_ok` allows no more)
                return self._other_wild(suit)
            if own2 == 0:
                return -1
            if own2 == 1 and self._run_fits(
                self.ranks & ~2, self.nats - self.aces, self.aces, False, True, rules.ace_to_ace
            ):
                return -1
            return suit * 16 + 2
        if rules.sets and self._set_ok():
            return -1 if self.jokers + self.n_twos == 0 else self._other_wild(-1)
        return -2

    def _other_wild(self, suit: int) -> int:
        # the one wild counted that is not a 2 of `suit`: the joker, or the 2 of another suit
        if self.jokers:
            return 64
        twos = self.twos
        for t in range(4):
            if t != suit and (twos >> (t * 8)) & 255:
                return t * 16 + 2
        return -2  # not reached: the caller counted one

    def _set_ok(self) -> bool:
        # `_set_shape`: one wild at most, two naturals or more, all of one rank
        ranks = self.ranks
        return self.jokers + self.n_twos <= 1 and self.nats >= 2 and ranks & (ranks - 1) == 0

    def _run_ok(self, ace_to_ace: bool) -> bool:
        # `_run_shape`, on counts: naturals of one suit, no rank 3..K twice
        suits = self.suits
        if suits == 0 or suits & (suits - 1) or self.dup:
            return False
        suit = 0
        while not suits >> suit & 1:
            suit += 1
        own2 = (self.twos >> (suit * 8)) & 255
        n_forced = self.jokers + self.n_twos - own2
        aces = self.aces
        if n_forced > 1 or aces > 2:
            return False
        mask = self.ranks & ~2  # the positions of the naturals 3..K
        n_mask = self.nats - aces
        # the options of `_run_shape`: (a wild stands, the own 2 stands as natural), best first
        if n_forced == 1:
            if own2 > 1:
                return False
            if self._run_fits(mask, n_mask, aces, True, own2 == 1, ace_to_ace):
                return True
            return False
        if own2 == 0:
            return self._run_fits(mask, n_mask, aces, False, False, ace_to_ace)
        if own2 == 1:
            return (self._run_fits(mask, n_mask, aces, False, True, ace_to_ace)
                    or self._run_fits(mask, n_mask, aces, True, False, ace_to_ace))
        if own2 == 2:
            return self._run_fits(mask, n_mask, aces, True, True, ace_to_ace)
        return False

    def _run_fits(self, mask: int, n_mask: int, aces: int, wild: bool, nat2: bool, ace_to_ace: bool) -> bool:
        if nat2:
            mask |= 4
            n_mask += 1
        if aces == 2:
            if not ace_to_ace:
                return False
            return _positions_fit(mask | (1 << 1) | (1 << 14), n_mask + 2, wild)
        if aces == 1:
            return _positions_fit(mask | (1 << 1), n_mask + 1, wild) or _positions_fit(mask | (1 << 14), n_mask + 1, wild)
        return _positions_fit(mask, n_mask, wild)


def _positions_fit(pos: int, n: int, wild: bool) -> bool:
    """Return whether run positions `pos` (bits 1..14, `n` of them) make a run, with one wild
    standing or none: no gap, or one gap the wild fills, or the wild beside an end."""
    if n < 2:
        return False
    lo = 1
    while not pos >> lo & 1:
        lo += 1
    hi = 14
    while not pos >> hi & 1:
        hi -= 1
    gaps = hi - lo + 1 - n
    if not wild:
        return gaps == 0
    if gaps > 1:
        return False
    return gaps == 1 or lo > 1 or hi < 14


def meld_wild(cards: tuple[Card, ...], rules: Rules) -> int:
    """Return `_Tally.wild_code` of some cards: the code of the wild of `classify(cards)`, -1
    when it is clean, -2 when it is no meld."""
    return tally_of(cards).wild_code(rules)


def tally(cards: Iterable[Card]) -> _Tally:
    """Return the tally of some cards (`_Tally`)."""
    return tally_of(tuple(cards))


def tally_of(cards: tuple[Card, ...]) -> _Tally:
    t = _Tally()
    for c in cards:  # a tuple: compiled, no iterator protocol
        t.add(c)
    return t


def canasta_kind(shape: MeldShape, rules: Rules, one_turn: bool = True) -> CanastaKind | None:
    """Return the canasta kind of a meld (RULES 3.5), or None below 7 cards.

    `one_turn` says whether the meld was laid complete within a single turn; with
    `royal_in_one_turn` the royal and ace-to-ace bonuses, clean or dirty, need it. Only the
    highest kind scores; a club kind whose bonus is 0 does not exist (`club_kind`).
    """
    n = len(shape.cards)
    if n < CANASTA_SIZE:
        return None
    kind = size_kind(n, shape.wild is None, shape.type == "run", rules, one_turn)
    if kind == "clean" or kind == "dirty":
        if caches_for(rules).club_kinds:
            club = club_kind(shape, rules, one_turn)
            if club is not None:
                return club
    return kind


def size_kind(n: int, clean: bool, run: bool, rules: Rules, one_turn: bool = True) -> CanastaKind | None:
    """Return `canasta_kind` of a meld of `n` cards, clean or not, a run or a set."""
    if n < CANASTA_SIZE:
        return None
    if not clean:
        return "dirty"
    if run and (one_turn or not rules.royal_in_one_turn):
        if n == 14 and rules.ace_to_ace and rules.bonus_ace_to_ace:
            return "ace_to_ace"
        if n == 13 and rules.bonus_royal:
            return "royal"
    return "clean"


def is_closing_canasta(size: int, clean: bool, rules: Rules) -> bool:
    """Return whether a meld of `size` cards, clean or not, is a canasta its team may close with.

    RULES 6: closing needs a canasta, a clean one where `close_needs_clean` is on. The engine's
    check and the bots' judgement both ask here.
    """
    return size >= CANASTA_SIZE and (clean or not rules.close_needs_clean)


def canasta_bonus(kind: CanastaKind | None, rules: Rules) -> int:
    """Return the bonus a canasta kind scores (RULES 3.5); 0 for no canasta."""
    if kind is None:
        return 0
    if kind == "clean":
        return rules.bonus_clean
    if kind == "dirty":
        return rules.bonus_dirty
    if kind == "royal":
        return rules.bonus_royal
    if kind == "ace_to_ace":
        return rules.bonus_ace_to_ace
    return club_bonus(kind, rules)


#: the fields of a meld, in constructor order
_MELD_FIELDS: Final = ("id", "team", "shape", "laid_by", "laid_seq", "first_turn", "last_turn", "canasta_seq")


class Meld(Value):
    """A meld on the table: its team, canonical cards and the turns it was built in.

    Immutable (read-only attributes), compared and hashed by value, shared between copies of a
    state. A plain class rather than a frozen dataclass, whose generated `__init__` stays
    interpreted in the compiled build.
    """

    __slots__ = (*_MELD_FIELDS, "_fits", "_fits_rules")
    _FIELDS: ClassVar[tuple[str, ...]] = _MELD_FIELDS

    def __init__(
        self,
        id: int,
        team: int,
        shape: MeldShape,
        laid_by: int,
        laid_seq: int,
        first_turn: int,
        last_turn: int,
        canasta_seq: int | None = None,
    ) -> None:
        self.id: Final = id
        self.team: Final = team
        self.shape: Final = shape
        self.laid_by: Final = laid_by
        self.laid_seq: Final = laid_seq
        self.first_turn: Final = first_turn
        self.last_turn: Final = last_turn
        self.canasta_seq: Final = canasta_seq
        #: `playcheck.meld_entry`'s answer (a `fits.MeldFits`, held as an object: `fits` builds on
        #: this module) and the rules it is for; a cache, no part of the meld's value
        self._fits: object | None = None
        self._fits_rules: Rules | None = None

    def _values(self) -> tuple[Any, ...]:
        return (self.id, self.team, self.shape, self.laid_by, self.laid_seq, self.first_turn,
                self.last_turn, self.canasta_seq)

    @property
    def cards(self) -> tuple[Card, ...]:
        """Return the canonical arrangement (RULES 3.4)."""
        return self.shape.cards

    def with_shape(self, shape: MeldShape, last_turn: int, canasta_seq: int | None) -> Meld:
        """Return the meld grown to `shape`."""
        return Meld(self.id, self.team, shape, self.laid_by, self.laid_seq, self.first_turn,
                    last_turn, canasta_seq)

    def canasta(self, rules: Rules) -> CanastaKind | None:
        """Return the canasta kind this meld scores, or None (RULES 3.5)."""
        return canasta_kind(self.shape, rules, self.first_turn == self.last_turn)
