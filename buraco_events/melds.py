"""Melds: pure combinatorics of runs and sets on a multiset of cards (RULES 3).

A meld's legality and kind depend only on its cards and the rules, never on history (except
`royal_in_one_turn`, which the engine passes in). `classify` finds the canonical arrangement of
RULES 3.4 or says the cards are no meld; `candidate_melds` and `candidate_layoffs` generate the
plays a bot or a UI offers. Positions inside a run are 1..14: the ace is 1 (low) or 14 (high).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal, get_args

from .cards import (
    ALL_CARDS,
    JOKER,
    RANK,
    RANKS,
    SUIT,
    SUIT_RANK,
    SUITS,
    WILD_RANKS,
    Card,
    is_wild_card,
    sort_key,
    value_repr,
)
from .rules import Rules

#: a meld's type: a run of one suit or a set of one rank (`kind` is kept for the canasta kind)
MeldType = Literal["run", "set"]
#: the canasta kinds of RULES 3.5, best first
CanastaKind = Literal["ace_to_ace", "royal", "clean", "dirty"]
CANASTA_KINDS: Final[tuple[CanastaKind, ...]] = get_args(CanastaKind)
#: a meld of this many cards or more is a canasta (RULES 3.5)
CANASTA_SIZE: Final = 7


#: the fields of a meld shape, in constructor order
_SHAPE_FIELDS: Final = ("type", "cards", "wild", "suit", "rank", "low", "high")


class MeldShape:
    """A valid meld: its type (run or set), canonical arrangement, and the card acting as wild (if any).

    Immutable, compared and hashed by value. A plain class with read-only (`Final`) attributes
    rather than a frozen dataclass: compiled, the dataclass's generated `__init__` would stay
    interpreted, and meld shapes are built on every meld and lay-off.
    """

    __slots__ = ("type", "cards", "wild", "suit", "rank", "low", "high")

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

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MeldShape):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return value_repr("MeldShape", _SHAPE_FIELDS, self._values())

    def __reduce__(self) -> tuple[Any, ...]:
        return (MeldShape, self._values())


def _pos_card(pos: int, suit: str) -> Card:
    return RANKS[(pos - 1) % 13] + suit


#: the card at each run position 1..14 of each suit (index 0 unused; the ace at 1 and at 14)
_POS_CARDS: Final[dict[str, tuple[Card, ...]]] = {
    s: ("",) + tuple(RANKS[(p - 1) % 13] + s for p in range(1, 15)) for s in SUITS
}


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
    row = _POS_CARDS[suit]
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


class _RulesCaches:
    """The caches of one rules object: `classify` answers and the melds' kept entries.

    Keyed by cards alone: the rules (a struct of some thirty fields) are hashed once per switch
    of rules (`_caches`), not once per lookup. Plain dicts (mypyc), cleared when full.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        #: `_classify_sorted` by sorted cards
        self.classified: dict[tuple[Card, ...], MeldShape | None] = {}
        #: `MeldFits` by meld cards
        self.fits: dict[tuple[Card, ...], MeldFits] = {}


class _LastCaches:
    """The rules object used last and its caches (games ask with one rules object at a time;
    equal rules objects share caches, so the object is kept here, not the caches' own)."""

    def __init__(self) -> None:
        self.rules: Rules | None = None
        self.caches = _RulesCaches(Rules())


_CACHES: Final[dict[Rules, _RulesCaches]] = {}
_LAST: Final = _LastCaches()
_CLASSIFIED_MAX: Final = 1 << 17
_FITS_MAX: Final = 1 << 14
#: the classify cache's "not there yet" (None is a cached answer: no meld)
_UNKNOWN: Final = MeldShape("set", (), None)


def _caches(rules: Rules) -> _RulesCaches:
    """Return the caches of `rules` (equal rules share them)."""
    last = _LAST
    if last.rules is rules:
        return last.caches
    caches = _CACHES.get(rules)
    if caches is None:
        if len(_CACHES) >= 64:
            _CACHES.clear()
        caches = _CACHES[rules] = _RulesCaches(rules)
    last.rules, last.caches = rules, caches
    return caches


def canonical_rules(rules: Rules) -> Rules:
    """Return the first rules object seen equal to `rules` (lately): answers kept per rules
    object that depend only on the rules' values may be kept per this one."""
    return _caches(rules).rules


def _classify_sorted(cards: tuple[Card, ...], rules: Rules) -> MeldShape | None:
    """`classify` of cards already sorted (as strings), cached."""
    last = _LAST  # `_caches(rules)`, its common case inline
    caches = last.caches if last.rules is rules else _caches(rules)
    classified = caches.classified
    shape = classified.get(cards, _UNKNOWN)
    if shape is not _UNKNOWN:
        return shape
    if len(cards) < 3:
        shape = None
    else:
        shape = _run_shape(cards, rules)
        if shape is None and rules.sets:
            shape = _set_shape(cards)
    if len(classified) >= _CLASSIFIED_MAX:
        classified.clear()
    classified[cards] = shape
    return shape


def classify(cards: Iterable[Card], rules: Rules) -> MeldShape | None:
    """Return the meld the cards form under the rules (canonical arrangement), or None."""
    return _classify_sorted(tuple(sorted(cards)), rules)


def is_meld(cards: Iterable[Card], rules: Rules) -> bool:
    """Return whether the cards form a legal meld."""
    return classify(cards, rules) is not None


class _Tally:
    """What `classify` asks of a multiset of cards, as ints: whether it is a meld (`ok`) is then
    arithmetic, and a meld's tally grows by a card (`add`) without classifying a new card tuple.

    `ok()` equals `classify(cards) is not None` (tested against it): the checks of `_run_shape`
    and `_set_shape` on counts, no arrangement built.
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
    return _tally_of(cards).wild_code(rules)


def tally(cards: Iterable[Card]) -> _Tally:
    """Return the tally of some cards (`_Tally`)."""
    return _tally_of(tuple(cards))


def _tally_of(cards: tuple[Card, ...]) -> _Tally:
    t = _Tally()
    for c in cards:  # a tuple: compiled, no iterator protocol
        t.add(c)
    return t


def canasta_kind(shape: MeldShape, rules: Rules, one_turn: bool = True) -> CanastaKind | None:
    """Return the canasta kind of a meld (RULES 3.5), or None below 7 cards.

    `one_turn` says whether the meld was laid complete within a single turn; with
    `royal_in_one_turn` the royal and ace-to-ace bonuses need it.
    """
    return size_kind(len(shape.cards), shape.wild is None, shape.type == "run", rules, one_turn)


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
    return rules.bonus_ace_to_ace  # the last kind: mypy checks the ladder is exhaustive


#: the cards that may join a run of each suit: its naturals and every wild
_RUN_CARDS: Final = {s: frozenset(c for c in ALL_CARDS if SUIT[c] == s or is_wild_card(c)) for s in SUITS}
#: the cards that may join a set of each rank: its naturals and every wild
_SET_CARDS: Final = {r: frozenset(c for c in ALL_CARDS if RANK[c] in (0, 2, r)) for r in range(1, 14)}


# -- the candidate generator, on small ints ----------------------------------------------------
#
# A card's code is its index in the cards sorted as strings, so sorting codes sorts the cards as
# `sorted` sorts their strings: candidates are built and sorted on ints and turned into card
# strings once, when a suit's runs first meet the cache.

#: the cards in string order: the card of each code
_CODE_CARD: Final[tuple[Card, ...]] = tuple(sorted(ALL_CARDS))
#: the code of each card
_CODE: Final[dict[Card, int]] = {c: i for i, c in enumerate(_CODE_CARD)}
#: the suit index (`SUITS`) of each code; -1 for the joker
_CODE_SUIT: Final[list[int]] = [SUITS.index(SUIT[c]) if c != JOKER else -1 for c in _CODE_CARD]
#: the rank of each code (1..13; 0 for the joker)
_CODE_RANK: Final[list[int]] = [RANK[c] for c in _CODE_CARD]
#: the code of the card at each run position (1..14, the ace at 1 and 14) of each suit
_POS_CODE: Final[list[list[int]]] = [
    [-1] + [_CODE[RANKS[(p - 1) % 13] + s] for p in range(1, 15)] for s in SUITS
]
#: (code, suit index, rank) of each card: one lookup where the generator needs all three
_CARD_CODES: Final[dict[Card, tuple[int, int, int]]] = {
    c: (_CODE[c], _CODE_SUIT[_CODE[c]], _CODE_RANK[_CODE[c]]) for c in _CODE_CARD
}
#: a wild's bit in `candidate_melds`' set of the wilds held (0 for a natural)
_WILD_BIT: Final[list[int]] = [
    1 if c == JOKER else 2 << SUITS.index(SUIT[c]) if RANK[c] == 2 else 0 for c in _CODE_CARD
]
#: a suit's runs by one int: suit, held ranks bitmask, two aces, own 2s held (0, 1, 2 or more),
#: ace_to_ace and the wilds held (their bits), in `candidate_melds`' layout
_RUNS_CACHE: Final[dict[int, tuple[tuple[Card, ...], ...]]] = {}
_RUNS_CACHE_MAX: Final = 1 << 16


def candidate_melds(hand: Mapping[Card, int], rules: Rules) -> list[tuple[Card, ...]]:
    """Return every candidate new meld from a hand, each a sorted card tuple.

    Runs: every interval of positions of one suit held in full, or missing one position filled
    by one of the distinct wild cards held. Sets (where on): all the naturals of a rank held, and
    the same plus each distinct wild held. Each candidate is a legal meld.
    """
    return hand_melds(hand, rules)[0]


def hand_melds(hand: Mapping[Card, int], rules: Rules) -> tuple[list[tuple[Card, ...]], int]:
    """Return `candidate_melds` and the hand's mask: the `gate_bit` of every card held (a meld's
    gate and the mask share no bit when the hand holds no lay-off onto it: `MeldFits.gate_mask`)."""
    # one pass, on native ints: the ranks held per suit (14 bits a suit: bit suit * 14 + rank),
    # the suits with two naturals or more and those with two aces (a bit a suit), the wilds
    held: dict[Card, int] = hand if isinstance(hand, dict) else dict(hand)
    masks = 0
    one = two = two_aces = 0
    own_twos = [0, 0, 0, 0]
    wilds: list[int] = []
    wild_bits = 0
    naturals: list[int] = []  # the codes of the naturals held, each copy (sets only)
    sets = rules.sets
    total = 0
    for c, n in held.items():
        if n <= 0:
            continue
        total += n
        code, suit, rank = _CARD_CODES[c]
        if suit >= 0:
            bit = 1 << suit
            masks |= 1 << (suit * 14 + rank)
            if n >= 2 or one & bit:  # RULES 3.1: a run needs two natural cards (2s included)
                two |= bit
            one |= bit
            if rank == 1 and n >= 2:
                two_aces |= bit
        if WILD_RANKS >> rank & 1:
            wilds.append(code)
            wild_bits |= _WILD_BIT[code]
            if rank == 2:
                own_twos[suit] = n if n < 2 else 2  # `_suit_runs` asks only 0, 1 or 2 and more
        elif sets:  # the naturals matter to sets only
            if n == 1:
                naturals.append(code)
            else:
                naturals.extend([code] * n)
    if wild_bits & 1:
        masks |= 1  # the joker's bit (`gate_bit`)
    if total < 3:
        return [], masks  # every candidate is three cards of the hand or more (the pile-top checks ask often)
    wild_codes = tuple(wilds)  # in any order: each is tried, and the candidates are a set
    # the candidates are distinct without a set: runs of one suit are distinct (`_suit_runs`),
    # runs of two suits share no natural, a set's candidates differ in length or wild, and a
    # set holds two naturals of one rank that no run candidate holds (both aces need 1..14)
    out: list[tuple[Card, ...]] = []
    ace_to_ace = rules.ace_to_ace
    for suit in range(4):
        if two >> suit & 1:
            mask = masks >> (suit * 14) & 0x3FFF
            aces = two_aces >> suit & 1 == 1
            key = suit | mask << 2 | aces << 16 | own_twos[suit] << 17 | ace_to_ace << 19 | wild_bits << 20
            runs = _RUNS_CACHE.get(key)
            if runs is None:
                if len(_RUNS_CACHE) >= _RUNS_CACHE_MAX:
                    _RUNS_CACHE.clear()
                runs = _RUNS_CACHE[key] = _suit_runs(suit, mask, aces, wild_codes, own_twos[suit], ace_to_ace)
            out.extend(runs)
    if sets:
        # codes sort as the cards' strings, so the naturals of a rank stand together (no
        # natural's string starts as another rank's): one sort, then each rank's group
        naturals.sort()
        i, end = 0, len(naturals)
        while i < end:
            rank = _CODE_RANK[naturals[i]]
            j = i + 1
            while j < end and _CODE_RANK[naturals[j]] == rank:
                j += 1
            if j - i >= 2:
                codes = naturals[i:j]
                if j - i >= 3:
                    out.append(tuple([_CODE_CARD[c] for c in codes]))
                for w in wild_codes:
                    out.append(tuple([_CODE_CARD[c] for c in sorted([*codes, w])]))
            i = j
    return sorted(out), masks


def _suit_runs(
    suit: int, mask: int, two_aces: bool, wilds: tuple[int, ...], own_twos: int, ace_to_ace: bool
) -> tuple[tuple[Card, ...], ...]:
    """Return the candidate runs of one suit, from the bitmask of its ranks held (bit r: rank r).

    Every interval of positions 1..14 (the ace at both ends) of three or more, held in full or
    missing one position that one of the `wilds` fills; an own-suit 2 is a wild only when held
    twice if the interval also needs it as the natural 2. Each is a legal run by construction
    (RULES 3.1, 3.4): at most one wild, no rank twice, two naturals, both aces only ace to ace.
    """
    have = [False] * 15
    for pos in range(1, 14):
        have[pos] = (mask >> pos) & 1 == 1
    have[14] = have[1]
    pos_code = _POS_CODE[suit]
    own_two = pos_code[2]
    found: set[tuple[int, ...]] = set()
    for lo in range(1, 13):
        if not have[lo] and not (wilds and have[lo + 1]):
            continue  # an interval may open on a wild only when the next card is held
        missing = 0
        hole = 0
        for hi in range(lo, 15):
            if not have[hi]:
                missing += 1
                if missing > 1:
                    break
                hole = hi
            if hi - lo < 2:
                continue
            if lo == 1 and hi == 14 and not (two_aces and ace_to_ace):
                continue
            held = [pos_code[p] for p in range(lo, hi + 1) if missing == 0 or p != hole]
            if missing == 0:
                held.sort()
                found.add(tuple(held))
                continue
            if len(held) < 2:
                continue
            for w in wilds:
                # an own-suit 2 may be natural and wild only if held twice
                if w != own_two or own_twos > (1 if own_two in held else 0):
                    run = [*held, w]
                    run.sort()
                    found.add(tuple(run))
    return tuple([tuple([_CODE_CARD[c] for c in run]) for run in found])


def candidate_layoffs(
    hand: Counter[Card], meld: Sequence[Card], rules: Rules
) -> list[tuple[Card, ...]]:
    """Return every candidate addition of hand cards to a meld, each a sorted card tuple.

    Single cards that keep the meld legal; for runs, runs of consecutive naturals (and at most one
    wild) extending either end; for sets, all naturals of the rank held.
    """
    shape = classify(meld, rules)
    if shape is None:
        return []
    return list(shape_layoffs(tuple(sorted(hand.elements())), tuple(meld), shape, rules))


def shape_layoffs(
    held: tuple[Card, ...], meld: tuple[Card, ...], shape: MeldShape, rules: Rules
) -> tuple[tuple[Card, ...], ...]:
    """Return `candidate_layoffs` for a hand given as a sorted card tuple and a meld's `classify` shape."""
    return meld_fits(meld, rules).layoffs_in(held)  # its shape is `shape`: the meld's classify


class MeldFits:
    """One meld's shape and, per card tried so far, whether it joins the meld alone."""

    def __init__(self, meld: tuple[Card, ...], rules: Rules) -> None:
        self.rules = rules
        #: the meld's cards as given (the key of its entry)
        self.meld = meld
        #: the meld's cards sorted as strings, sorted once: its shape is classified from them,
        #: and `grown` sorts them with the cards added
        self.sorted = tuple(sorted(meld))
        self.shape = _classify_sorted(self.sorted, rules)
        self.fits: dict[Card, bool] = {}
        shape = self.shape
        #: the meld's cards as counts: whether cards join it is arithmetic on a copy (`_Tally.ok`)
        self.tally = _tally_of(meld)
        #: the hand cards that may take part in a lay-off: a run's suit and the wilds, but not
        #: the naturals 3..K it holds already (a rank twice is no run, and its stretches only
        #: reach beyond its ends); a set's rank and the wilds
        self.relevant: frozenset[Card] = (
            frozenset() if shape is None
            else _run_relevant(shape.suit or "", meld)
            if shape.type == "run" else _SET_CARDS[shape.rank or 0]
        )
        #: the gate: every lay-off onto the meld (`_new_layoffs`) holds one of these cards, so a
        #: hand holding none of them has none (`_gate`)
        self.gate: frozenset[Card] = frozenset()
        #: the gate's mask (`gate_bit`): a hand's mask (`hand_melds`) and this one share no bit
        #: when the hand holds no lay-off onto the meld
        self.gate_mask = 0
        if shape is not None:
            self.gate, self.gate_mask = _gate(shape, meld)
        #: per addition asked of `grown`: the meld it makes (None: none)
        self.grows: dict[tuple[Card, ...], MeldShape | None] = {}
        #: per lay-off of two cards or more tried so far (a sorted tuple), whether it joins
        self.joins: dict[tuple[Card, ...], bool] = {}
        #: the lay-offs by the relevant hand cards (a sorted tuple)
        self.layoffs: dict[tuple[Card, ...], tuple[tuple[Card, ...], ...]] = {}

    def fit(self, card: Card) -> bool:
        """Return whether `card` joins the meld alone (`fits_alone`)."""
        fit = self.fits.get(card)
        if fit is None:
            if self.shape is None:
                fit = False
            else:  # `classify(meld + (card,)) is not None`, on the meld's counts
                t = self.tally.copy()
                t.add(card)
                fit = t.ok(self.rules)
            self.fits[card] = fit
        return fit


    def layoffs_of(self, relevant: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
        """Return the lay-offs onto the meld from the hand cards `relevant` (the hand's cards
        in `relevant`, sorted): `shape_layoffs`, kept per those cards."""
        if not relevant:
            return ()
        found = self.layoffs.get(relevant)
        if found is None:
            found = self.layoffs[relevant] = _new_layoffs(self, self.meld, relevant, self.rules)
        return found

    def layoffs_in(self, held: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
        """Return the lay-offs onto the meld from a hand given as a sorted card tuple: only the
        cards that may take part in one (`relevant`) are kept, then `layoffs_of`."""
        relevant = self.relevant
        return self.layoffs_of(tuple([c for c in held if c in relevant]))  # no generator frames

    def grown_wild(self, cards: tuple[Card, ...]) -> int:
        """Return `_Tally.wild_code` of the meld grown by `cards`: the code of the wild of
        `grown(cards)`, -1 when it is clean, -2 when it is no meld (no card tuple classified)."""
        t = self.tally.copy()
        for c in cards:
            t.add(c)
        return t.wild_code(self.rules)

    def grown(self, cards: tuple[Card, ...]) -> MeldShape | None:
        """Return `classify(meld + cards)`: the meld grown by a lay-off, kept per addition (a
        bot scores the same lay-offs turn after turn while the meld stands)."""
        grows = self.grows
        shape = grows.get(cards, _UNKNOWN)
        if shape is _UNKNOWN:
            shape = grows[cards] = _classify_sorted(tuple(sorted(self.sorted + cards)), self.rules)
        return shape


#: `_run_relevant` by one int: the suit's index and the ranks 3..K the run holds (bit r: rank r)
_RUN_RELEVANT: Final[dict[int, frozenset[Card]]] = {}


def _run_relevant(suit: str, meld: tuple[Card, ...]) -> frozenset[Card]:
    """Return the cards that may take part in a lay-off onto a run of `suit` (`MeldFits.relevant`):
    the suit's cards and the wilds, but not the naturals 3..K the run holds. Kept per those
    ranks: a run's naturals 3..K are all of its suit, so they and the suit make the answer."""
    held = 0
    for c in meld:
        rank = RANK[c]
        if rank >= 3:
            held |= 1 << rank
    key = held << 2 | SUITS.index(suit)
    found = _RUN_RELEVANT.get(key)
    if found is None:
        found = _RUN_RELEVANT[key] = _RUN_CARDS[suit].difference([c for c in meld if RANK[c] >= 3])
    return found


#: the gates kept by one int: a set's rank and cleanness, or a run's suit, ends, wild's position,
#: cleanness and whether it holds its suit's 2 (`_gate`)
_GATES: Final[dict[int, tuple[frozenset[Card], int]]] = {}


def gate_bit(card: Card) -> int:
    """Return a card's bit in a gate's or a hand's mask: bit suit index * 14 + rank, the joker
    bit 0 (the mask `hand_melds` gives along)."""
    _, suit, rank = _CARD_CODES[card]
    return 1 if suit < 0 else 1 << (suit * 14 + rank)


def _gate(shape: MeldShape, meld: tuple[Card, ...]) -> tuple[frozenset[Card], int]:
    """Return cards of which every lay-off onto the meld (`_new_layoffs`) holds one, and their
    mask (`gate_bit`).

    A lay-off is a single card that joins the meld alone (`MeldFits.fit`) or a longer one: all
    the naturals of a set's rank held (each joins alone), or a run's stretch from one end, whose
    first card is a natural at `low - 1` or `high + 1` (it joins alone: the meld's arrangement
    with it beside that end) or a wild (clean runs only). So the gate holds every card that may
    join alone. A set: its rank's naturals, and the wilds when it is clean (a second wild makes
    no set, and a set plus one card is never a run). A run: its suit's naturals at positions
    `low - 2 .. high + 2` but those it holds (a natural joins at a position beside the other
    naturals, or two away with the wild between; aces and the suit's 2, which may change places
    or roles, only move within that span), its suit's 2, and the other wilds when it is clean or
    holds its suit's 2 (with a wild standing already, a joker or another suit's 2 joins only
    when the suit's 2 turns natural). Tested against `classify` and the reference lay-offs over
    many melds and hands (`tests/test_layoff_gate.py`).
    """
    clean = shape.wild is None
    if shape.type == "set":
        rank = shape.rank or 0
        key = rank << 1 | clean
        found = _GATES.get(key)
        if found is None:
            cards = [c for c in ALL_CARDS if RANK[c] == rank]
            if clean:
                cards.extend(_WILDS_SHOWN)
            found = _GATES[key] = _gate_entry(cards)
        return found
    lo, hi = shape.low, shape.high
    arranged = shape.cards
    suit = shape.suit or ""
    row = _POS_CARDS[suit]
    own_two = row[2]
    hole = 0  # the wild's position (0: none)
    if not clean:  # the arrangement is the row with the wild at one position (its suit's 2 may be both)
        for p in range(lo, hi + 1):
            if arranged[p - lo] != row[p]:
                hole = p
                break
    holds_two = own_two in meld
    key = 1 << 30 | _CARD_CODES[own_two][1] | hole << 2 | lo << 6 | hi << 10 | clean << 14 | holds_two << 15
    found = _GATES.get(key)
    if found is None:
        # the naturals 3..K at the meld's positions but the wild's are held already, and a rank
        # twice is no run (nor a relevant card: `MeldFits.relevant`)
        cards = [
            row[p] for p in range(max(lo - 2, 1), min(hi + 2, 14) + 1)
            if not (lo <= p <= hi and 3 <= p <= 13 and p != hole)
        ]
        cards.append(own_two)
        if clean or holds_two:
            cards.extend(_WILDS_SHOWN)
        found = _GATES[key] = _gate_entry(cards)
    return found


def _gate_entry(cards: list[Card]) -> tuple[frozenset[Card], int]:
    mask = 0
    for c in cards:
        mask |= gate_bit(c)
    return frozenset(cards), mask


def meld_fits(meld: tuple[Card, ...], rules: Rules) -> MeldFits:
    """Return the kept entry of a meld (made on first use): its shape, which cards join it alone
    (`MeldFits.fit`), which may take part in a lay-off, its lay-offs by the hand cards."""
    last = _LAST  # `_caches(rules)`, its common case inline
    caches = last.caches if last.rules is rules else _caches(rules)
    fits = caches.fits
    entry = fits.get(meld)
    if entry is None:
        if len(fits) >= _FITS_MAX:
            fits.clear()
        entry = fits[meld] = MeldFits(meld, rules)
    return entry


def may_lay_off(meld: tuple[Card, ...], card: Card, rules: Rules) -> bool:
    """Return False when no lay-off onto the meld (`shape_layoffs`) can hold `card`: it is
    none of the cards that take part in them (a cheap filter, from the meld's kept entry)."""
    return card in meld_fits(meld, rules).relevant


def fits_alone(meld: tuple[Card, ...], card: Card, rules: Rules) -> bool:
    """Return whether `card` joins the meld on its own: `classify(meld + (card,))` is a meld.

    A meld lives on across many turns (and views), so the answers are kept per meld: a bot's
    "does this card fit" and the single-card lay-offs become a dict lookup once asked. False
    when `meld` is no meld.
    """
    return meld_fits(meld, rules).fit(card)


def _new_layoffs(
    entry: MeldFits, meld: tuple[Card, ...], relevant: tuple[Card, ...], rules: Rules
) -> tuple[tuple[Card, ...], ...]:
    """Return the lay-offs onto a meld from the relevant hand cards: the single cards that fit
    (`fits_alone`), for a run the stretches of naturals (at most one wild) extending either end,
    for a set all its naturals."""
    shape = entry.shape
    assert shape is not None
    if len(relevant) == 1 and not WILD_RANKS >> RANK[relevant[0]] & 1:
        # one natural, no wild: no stretch of two cards, no set of two naturals, so the card alone
        return ((relevant[0],),) if entry.fit(relevant[0]) else ()
    hand: dict[Card, int] = {}  # a plain dict: cheaper than a Counter on this cache-miss path
    for c in relevant:
        hand[c] = hand.get(c, 0) + 1
    # `entry.fit`, not a bound method kept aside: compiled, that is a direct native call
    singles = [(c,) for c in hand if entry.fit(c)]  # checked already: no classify below
    longer: set[tuple[Card, ...]] = set()
    if shape.type == "run":
        row = _POS_CARDS[shape.suit or ""]
        # the wilds held, in display order (`cards.sort_key`: the 2s by suit, then the joker)
        wilds = [w for w in _WILDS_SHOWN if w in hand] if shape.wild is None else []
        high, low = shape.high + 1, shape.low - 1
        _stretches(longer, row, hand, high, 1, None)
        for wild in wilds:
            _stretches(longer, row, hand, high, 1, wild)
        _stretches(longer, row, hand, low, -1, None)
        for wild in wilds:
            _stretches(longer, row, hand, low, -1, wild)
    else:
        same = [c for c in hand for _ in range(hand[c]) if RANK[c] == shape.rank]
        if len(same) >= 2:
            longer.add(tuple(sorted(same)))
    # whether a longer lay-off joins the meld is kept per meld: the same stretches come back
    # with every new hand, and the short key spares sorting and hashing the grown meld
    joins = entry.joins
    out: list[tuple[Card, ...]] = []
    for a in longer:
        ok = joins.get(a)
        if ok is None:  # `classify(meld + a) is not None`, on the meld's counts
            t = entry.tally.copy()
            for c in a:
                t.add(c)
            ok = joins[a] = t.ok(rules)
        if ok:
            out.append(a)
    out.extend(singles)
    out.sort()
    return tuple(out)


#: the wild cards in display order (`cards.sort_key`)
_WILDS_SHOWN: Final[tuple[Card, ...]] = tuple(sorted((c for c in ALL_CARDS if is_wild_card(c)), key=sort_key))


def _stretches(
    longer: set[tuple[Card, ...]], row: tuple[Card, ...], hand: dict[Card, int], start: int, step: int,
    wild: Card | None,
) -> None:
    """Add to `longer` the stretches of two cards or more from run position `start` on, one
    position a step: the naturals held, `wild` (if any) standing once for a natural not held."""
    added: list[Card] = []
    used_wild = False
    p = start
    while 1 <= p <= 14:
        card = row[p]
        # the copies of `card` in `added`: only as the wild (a position is visited once, and
        # the ace's two positions 1 and 14 are never both on one walk)
        if hand.get(card, 0) > (1 if used_wild and card == wild else 0):
            added.append(card)
        elif wild is not None and not used_wild:
            added.append(wild)
            used_wild = True
        else:
            break
        if len(added) >= 2:
            longer.add(tuple(sorted(added)))
        p += step
