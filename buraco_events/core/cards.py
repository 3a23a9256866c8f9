"""Cards as the rules see them: values, the deck of a variant, and the card geometry.

A card is its canonical string (`10H`, `AS`, `2C`, `JK`; the notation and its parse are
`model.cards`, re-exported here). The two copies of a card are the same string, so every zone is
a multiset. Ranks are numbered A=1, 2..10, J=11, Q=12, K=13; inside a
run the ace stands at position 1 (low) or 14 (high).

The geometry every meld module reads is here, once: a card's int codes and back, its rank and
suit from a code, wild or not, the run positions of each suit (`POS_CARDS`, one table), which
cards may join a run of a suit or a set of a rank (`RUN_CARDS`, `SET_CARDS`), the hand size.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Final

from buraco_events.model import cards as notation
from buraco_events.model.cards import Card
from buraco_events.model.cards import CardError as CardError  # re-exported: the notation's parse
from buraco_events.model.cards import parse_card as parse_card
from buraco_events.model.cards import parse_cards as parse_cards

#: the notation's names (`model.cards`) as this compiled module's own constants
RANKS: Final[tuple[str, ...]] = notation.RANKS
SUITS: Final[tuple[str, ...]] = notation.SUITS
JOKER: Final[Card] = notation.JOKER
ALL_CARDS: Final[tuple[Card, ...]] = notation.ALL_CARDS
#: the cards dealt to each seat, and to each of the two deads (RULES 1)
HAND_SIZE: Final = notation.HAND_SIZE
#: each suit letter's index in `SUITS` (a `SUIT_RANK` code's `code >> 4`)
SUIT_INDEX: Final[dict[str, int]] = {s: i for i, s in enumerate(SUITS)}

#: rank number of each canonical card (joker: 0)
RANK: Final[dict[Card, int]] = {r + s: i + 1 for s in SUITS for i, r in enumerate(RANKS)} | {JOKER: 0}
#: suit letter of each canonical card (joker: "")
SUIT: Final[dict[Card, str]] = {r + s: s for s in SUITS for r in RANKS} | {JOKER: ""}
#: the card of each small integer code, for compact encodings (the archive's dictionary)
CODE_CARD: Final[tuple[Card, ...]] = ALL_CARDS
#: each card as one small int for per-card tables (lists by code): its suit's index in `SUITS`
#: times 16 plus its rank; the joker is 64 (suit index 4, rank 0). So `code & 15` is every card's
#: rank (0 or 2 for a wild) and `code >> 4` a suit index only for the cards of a suit
SUIT_RANK: Final[dict[Card, int]] = {
    c: (SUITS.index(SUIT[c]) if SUIT[c] else len(SUITS)) * 16 + RANK[c] for c in ALL_CARDS
}
#: the length of a list indexed by `SUIT_RANK` codes
SUIT_RANK_SIZE: Final = 16 * len(SUITS) + 1
#: the ranks that are wild (RULES 3: the joker, rank 0, and every 2) as a bit mask by rank:
#: `WILD_RANKS >> rank & 1` is 1 for a wild rank (the form hot loops use; `is_wild_rank` says it)
WILD_RANKS: Final = 1 << 0 | 1 << 2

# -- run positions ------------------------------------------------------------------------------

#: the card at each run position 1..14 of each suit, by suit index (`SUITS`): index 0 unused
#: (""), the ace at 1 and at 14; `pos_card` and `POS_SORT_CODE` read this table
POS_CARDS: Final[tuple[tuple[Card, ...], ...]] = tuple(
    ("",) + tuple(RANKS[(p - 1) % 13] + s for p in range(1, 15)) for s in SUITS
)
#: the rows of `POS_CARDS` by suit letter (a meld's shape names its suit by letter)
SUIT_POS_CARDS: Final[dict[str, tuple[Card, ...]]] = dict(zip(SUITS, POS_CARDS, strict=True))


def pos_card(pos: int, suit: str) -> Card:
    """Return the card at run position `pos` (1..14, the ace at 1 and 14) of a suit letter."""
    return SUIT_POS_CARDS[suit][pos]


# -- sort codes: the cards as small ints that sort as their strings ---------------------------
#
# The candidate generator builds and sorts candidates on ints and turns them into card strings
# once; sorting these codes sorts the cards as `sorted` sorts their strings, which `SUIT_RANK`
# codes (suit, then rank) do not.

#: the cards in string order: the card of each sort code
SORT_CARD: Final[tuple[Card, ...]] = tuple(sorted(ALL_CARDS))
#: the sort code of each card
SORT_CODE: Final[dict[Card, int]] = {c: i for i, c in enumerate(SORT_CARD)}
#: the suit index (`SUITS`) of each sort code; -1 for the joker
SORT_CODE_SUIT: Final[list[int]] = [SUITS.index(SUIT[c]) if c != JOKER else -1 for c in SORT_CARD]
#: the rank of each sort code (1..13; 0 for the joker)
SORT_CODE_RANK: Final[list[int]] = [RANK[c] for c in SORT_CARD]
#: (sort code, suit index, rank) of each card: one lookup where a loop needs all three
SORT_CODES: Final[dict[Card, tuple[int, int, int]]] = {
    c: (SORT_CODE[c], SORT_CODE_SUIT[SORT_CODE[c]], SORT_CODE_RANK[SORT_CODE[c]]) for c in SORT_CARD
}
#: the sort code of the card at each run position (`POS_CARDS`) of each suit index (index 0: -1)
POS_SORT_CODE: Final[list[list[int]]] = [[-1] + [SORT_CODE[c] for c in row[1:]] for row in POS_CARDS]
#: a wild's bit in a set of wilds held, by sort code: the joker 1, the 2 of suit index i 2 << i;
#: 0 for a natural
SORT_CODE_WILD_BIT: Final[list[int]] = [
    1 if c == JOKER else 2 << SUITS.index(SUIT[c]) if RANK[c] == 2 else 0 for c in SORT_CARD
]


class Value:
    """The base of the immutable value classes (`melds.MeldShape`, `melds.Meld`,
    `choices.Action`): compared, hashed, shown and pickled by their fields' values, as a frozen
    dataclass would be. A subclass gives `_values()`, its fields' values in constructor order, and
    names them in `_FIELDS`. Plain classes rather than frozen dataclasses: compiled, a dataclass's
    generated `__init__` would stay interpreted.
    """

    __slots__ = ()
    #: the names of the fields `_values` gives, in constructor order
    _FIELDS: ClassVar[tuple[str, ...]] = ()

    def _values(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        pairs = zip(self._FIELDS, self._values(), strict=True)
        return f"{type(self).__name__}({', '.join(f'{n}={v!r}' for n, v in pairs)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self._values())


def is_joker(card: Card) -> bool:
    """Return whether the card is a joker."""
    return card == JOKER


def is_wild_rank(rank: int) -> bool:
    """Return whether cards of this rank (`RANK`, or `code & 15` of a `SUIT_RANK` code) are wild."""
    return WILD_RANKS >> rank & 1 == 1


def is_wild_card(card: Card) -> bool:
    """Return whether the card can act as a wild: a joker or any 2."""
    return WILD_RANKS >> RANK[card] & 1 == 1


#: the wild cards in display order (`sort_key`: the 2s by suit, then the joker)
WILDS_SHOWN: Final[tuple[Card, ...]] = tuple(c for c in ALL_CARDS if is_wild_card(c))
#: the cards that may join a run of each suit (by letter): its naturals and every wild
RUN_CARDS: Final[dict[str, frozenset[Card]]] = {
    s: frozenset(c for c in ALL_CARDS if SUIT[c] == s or is_wild_card(c)) for s in SUITS
}
#: the cards that may join a set of each rank (1..13): its naturals and every wild
SET_CARDS: Final[dict[int, frozenset[Card]]] = {
    r: frozenset(c for c in ALL_CARDS if RANK[c] == r or is_wild_card(c)) for r in range(1, 14)
}


def card_value(card: Card, two_value: int, joker_value: int) -> int:
    """Return the points of a card (RULES 7: 3-7 = 5, 8-K = 10, A = 15, 2 and joker by rules)."""
    r = RANK[card]
    if r == 0:
        return joker_value
    if r == 1:
        return 15
    if r == 2:
        return two_value
    return 5 if r <= 7 else 10


def make_deck(jokers: int) -> tuple[Card, ...]:
    """Return the unshuffled deck: two 52-card decks plus `jokers` jokers (108 or 104 cards)."""
    return ALL_CARDS[:-1] * 2 + (JOKER,) * jokers


def sort_key(card: Card) -> tuple[int, int]:
    """Sort by suit then rank, jokers last: the order hands are shown in."""
    if card == JOKER:
        return (4, 0)
    return (SUITS.index(SUIT[card]), RANK[card])


def sorted_cards(cards: Iterable[Card]) -> list[Card]:
    """Return the cards in display order."""
    return sorted(cards, key=sort_key)


#: the natural ranks, ace to king
NATURAL_RANKS: Final[tuple[int, ...]] = tuple(r for r in range(1, 14) if not is_wild_rank(r))
#: the `SUIT_RANK` codes of the wilds (the 2s of each suit, then the joker)
WILD_CODES: Final[tuple[int, ...]] = tuple(sorted(c for c in SUIT_RANK.values() if is_wild_rank(c & 15)))


def run_neighbours(rank: int, d: int) -> tuple[int, ...]:
    """Return the ranks at run distance `d` from `rank`, sorted: the ace stands at 1 and at 14,
    so the ace's neighbours at distance 1 are the 2 and the king."""
    positions = (1, 14) if rank == 1 else (rank,)
    out = {(p + step - 1) % 13 + 1 for p in positions for step in (-d, d) if 1 <= p + step <= 14}
    out.discard(rank)
    return tuple(sorted(out))

