"""The candidate melds of a hand: every run and set a bot or a UI may offer (RULES 3).

Its own module because it changes for other reasons than the meld shapes (`melds`) and the
lay-offs (`fits`): it is the generator of new melds, built for speed on the cards' sort codes
(`cards.SORT_CODE`: sorting codes sorts the cards as strings), so candidates are built and sorted
on ints and turned into card strings once, when a suit's runs first meet the cache. Its run
enumeration (`run_spans`) also serves the closed pile's look-ahead (`lookahead`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from buraco_events.model.rules import Rules

from .cards import (
    POS_SORT_CODE,
    SORT_CARD,
    SORT_CODE_RANK,
    SORT_CODE_WILD_BIT,
    SORT_CODES,
    WILD_RANKS,
    Card,
)

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
        code, suit, rank = SORT_CODES[c]
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
            wild_bits |= SORT_CODE_WILD_BIT[code]
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
            rank = SORT_CODE_RANK[naturals[i]]
            j = i + 1
            while j < end and SORT_CODE_RANK[naturals[j]] == rank:
                j += 1
            if j - i >= 2:
                codes = naturals[i:j]
                if j - i >= 3:
                    out.append(tuple([SORT_CARD[c] for c in codes]))
                for w in wild_codes:
                    out.append(tuple([SORT_CARD[c] for c in sorted([*codes, w])]))
            i = j
    return sorted(out), masks


def run_spans(have: int, through: int, any_wild: bool, ace_to_ace_run: bool) -> list[int]:
    """Return the intervals of run positions that can make a candidate run of one suit.

    `have` has bit p set for each run position p (1..14, the ace at both ends) held. An interval
    is three positions or more, all held or missing one that a wild may fill (only when
    `any_wild`), and opens on a held position or on a wild just before one; 1..14 only when
    `ace_to_ace_run` (two aces held, `ace_to_ace` on); only intervals holding one of the positions
    of `through` are given. Each is `lo | hi << 4 | hole << 8` (hole 0: none missing), in order of
    `lo` then `hi`: the one enumeration of the hand's runs (`_suit_runs`) and of the runs through
    the closed pile's top (`lookahead`).
    """
    spans: list[int] = []
    last_lo = min(through.bit_length() - 1, 12)
    max_missing = 1 if any_wild else 0
    for lo in range(1, last_lo + 1):
        if not have >> lo & 1 and not (any_wild and have >> (lo + 1) & 1):
            continue  # an interval may open on a wild only when the next card is held
        hole = 0
        n_missing = 0
        for hi in range(lo, 15):
            if not have >> hi & 1:
                n_missing += 1
                if n_missing > max_missing:
                    break
                hole = hi
            if hi - lo < 2:
                continue
            if lo == 1 and hi == 14 and not ace_to_ace_run:
                continue
            if through & ((2 << hi) - (1 << lo)):
                spans.append(lo | hi << 4 | hole << 8)
    return spans


#: every run position (1..14): `run_spans` gives all the intervals
_ALL_POSITIONS: Final = (1 << 15) - 2


def _suit_runs(
    suit: int, mask: int, two_aces: bool, wilds: tuple[int, ...], own_twos: int, ace_to_ace: bool
) -> tuple[tuple[Card, ...], ...]:
    """Return the candidate runs of one suit, from the bitmask of its ranks held (bit r: rank r).

    Every interval of `run_spans`, held in full or with its hole filled by one of the `wilds`; an
    own-suit 2 is a wild only when held twice if the interval also needs it as the natural 2.
    Each is a legal run by construction (RULES 3.1, 3.4): at most one wild, no rank twice, two
    naturals, both aces only ace to ace. Two intervals may give the same cards (a wild beside
    either end of the same naturals): a set keeps them once.
    """
    have = mask | (mask >> 1 & 1) << 14  # the ace stands at 1 and at 14
    pos_code = POS_SORT_CODE[suit]
    own_two = pos_code[2]
    found: set[tuple[int, ...]] = set()
    for span in run_spans(have, _ALL_POSITIONS, len(wilds) > 0, two_aces and ace_to_ace):
        lo, hi, hole = span & 15, span >> 4 & 15, span >> 8
        held = [pos_code[p] for p in range(lo, hi + 1) if p != hole]
        if not hole:
            held.sort()
            found.add(tuple(held))
            continue
        for w in wilds:
            # an own-suit 2 may be natural and wild only if held twice
            if w != own_two or own_twos > (1 if own_two in held else 0):
                run = [*held, w]
                run.sort()
                found.add(tuple(run))
    return tuple([tuple([SORT_CARD[c] for c in run]) for run in found])
