"""Engine scenarios from literal deals: turns, the pile, deads, stock end, closing (RULES 2, 4-6, 8).

Each scenario builds a `hand_started` event from the cards that matter (the rest of the deck is
filled in deck order), then plays events one by one through `check` + `apply`. Every rejection is
asserted to leave the state exactly as it was.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import typing
from collections.abc import Callable
from typing import Any

import pytest
from helpers import DIRECT, Table, deal_event, direct_dead_table, random_game, sheet
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from buraco_events.core import gate
from buraco_events.core.cards import parse_cards
from buraco_events.core.deads import can_take_dead, stock_exhausted
from buraco_events.core.engine import check, play
from buraco_events.core.gate import TRANSITIONS, IllegalMove
from buraco_events.core.moves import legal_events
from buraco_events.core.sheets import hand_scores, score_team
from buraco_events.core.state import COPIED_LISTS, Deads, GameState, shallow_copy
from buraco_events.model.events import (
    Discarded,
    Drew,
    GameStarted,
    HandEnded,
    StockRefilled,
    TookDead,
    TookPile,
)
from buraco_events.model.rules import find_rules

# -- turn order and phases (RULES 2) -------------------------------------------------------------


def basic(first: int = 1, n: int = 2) -> Table:
    """A stbl table with plain filler hands and a known stock top."""
    return Table("stbl", [""] * n, stock="AD 8S KC 7H", first=first)


def test_turn_order_and_phases_two_players() -> None:
    # RULES 2: draw, play, discard; the turn passes clockwise
    t = basic(first=1)
    st = t.state
    assert (st.phase, st.to_play, st.turn) == ("draw", 1, 0)
    t.reject("drew", "it is seat 1's turn, not seat 0's", player=0)
    t.reject("discarded", "discarded is not allowed now; expected a draw", card=next(iter(t.hand(1))))
    t.reject("melded", "melded is not allowed now", cards="3S 4S 5S")
    t.do("drew")
    assert st.phase == "play" and t.hand(1)["AD"] >= 1
    t.reject("drew", "drew is not allowed now; expected a meld, a lay-off or a discard")
    t.do("discarded", card="AD")
    assert (st.phase, st.to_play, st.turn, st.pile) == ("draw", 0, 1, ["AD"])


def test_turn_order_four_players() -> None:
    # RULES 1: seats clockwise; with first = 2 the order is 2, 3, 0, 1, 2
    t = basic(first=2, n=4)
    order = []
    for _ in range(5):
        order.append(t.state.to_play)
        t.pass_turn()
    assert order == [2, 3, 0, 1, 2]
    t.reject("drew", "no seat 5 in a 4-player game", player=5)


def test_drew_must_equal_stock_top() -> None:
    # the log format: drew.card must equal the stock's top card
    t = basic()
    t.reject("drew", "drew KS but the stock's top card is AD", card="KS")


def test_illegal_move_names_seq_player_phase_and_rule() -> None:
    t = basic(first=1)
    err = t.reject("drew", "it is seat 1's turn", player=0)
    assert (err.seq, err.player, err.phase) == (2, 0, "draw")
    assert "seat 1's turn" in err.reason
    assert str(err) == f"seq 2: seat 0, phase draw: {err.reason}"
    err = t.reject("drew", "seq should be 2, got 7", seq=7)
    assert err.seq == 7


def test_discard_card_must_be_held() -> None:
    t = basic()
    t.do("drew")
    missing = next(c for c in parse_cards("KH QH JH 10H") if t.hand(1)[c] == 0)
    t.reject("discarded", f"{missing} is not in the hand", card=missing)


# -- closed pile (RULES 2) -----------------------------------------------------------------------

# seat 0: JS KS | 3H 4H 5H | 8D 9C 10C 6D 7C 4S   (JS KS wait for QS)
# seat 1: QS ... (discards KD then QS)
CLOSED_HANDS = ["JS KS 3H 4H 5H 8D 9C 10C 6D 7C 4S", "QS KD 2H 7D 9D QC JH AC 5C 6C 10H"]


def closed_pile_table(variant: str = "stcl") -> Table:
    """Seat 1 discards KD, seat 0 discards 8S, seat 1 discards QS: the pile is KD 8S QS.

    STCL (seeds 002/003): the top card must go into the very next play (`pile_top_use` next_play).
    """
    t = Table(variant, CLOSED_HANDS, stock="AD 8S KC", first=1)
    t.do("drew")
    t.do("discarded", card="KD")
    # seat 0 cannot take a closed pile whose top KD it cannot meld (no KS-QD, no sets in stbl)
    t.reject("took_pile", "closed pile: the top card KD cannot be melded at once")
    t.pass_turn()  # 8S
    t.do("drew")
    t.do("discarded", card="QS")
    return t


def test_closed_pile_top_must_go_into_first_play() -> None:
    t = closed_pile_table()
    st = t.state
    assert st.pile == ["KD", "8S", "QS"] and st.to_play == 0
    t.reject("took_pile", "took_pile cards KD QS differ from the pile KD 8S QS", cards="KD QS")
    t.do("took_pile")
    assert (st.pending_top, st.pending_rest, st.pile) == ("QS", ["KD", "8S"], [])
    # the top card must be in the very next play; no discard before using it
    t.reject("discarded", "closed pile: the top card QS must go into the first play", card="4S")
    t.reject("melded", "closed pile: the top card QS must go into the first play", cards="3H 4H 5H")
    # the rest of the pile is not in the hand yet: only cards held before the take combine with QS
    t.reject("melded", "cards not in hand: 8S", cards="QS KS JS 8S")
    t.do("melded", cards="JS QS KS")
    assert st.pending_top is None and st.pending_rest == []
    assert t.hand(0)["KD"] == 1 and t.hand(0)["8S"] == 1  # the rest joined after that play
    assert st.melds[0].cards == ("JS", "QS", "KS")
    assert t.state.hand_size(0) == 11 - 2 + 2


def test_closed_pile_top_laid_off() -> None:
    # RULES 2: the top card may also be laid off onto a team meld
    t = Table("stbl", ["5H 6H 7H 3D 8C KH QD AC 4C 9S 4S", "8H"], stock="JD AD", first=0)
    t.do("drew")
    t.do("melded", cards="5H 6H 7H")
    t.do("discarded", card="JD")
    t.do("drew")
    t.do("discarded", card="8H")
    t.do("took_pile")
    t.do("laid_off", meld=0, cards="8H")
    assert t.state.melds[0].cards == ("5H", "6H", "7H", "8H") and t.hand(0)["JD"] == 1


@pytest.mark.parametrize("pair", ["10S", "4S"])
def test_closed_pile_wild_top_new_meld_only(pair: str) -> None:
    # RULES 2, wild_top_new_meld_only: a wild on top only starts a new meld.
    # seat 0 after melding 5H 6H 7H holds 3D 8C KH QD AC 4C 9S + pair; seat 1 discards the JK.
    # With 10S the pile is taken for 9S 10S JK; with 4S no new meld is possible (no two naturals
    # of a suit within reach of one wild), so the pile cannot be taken at all.
    t = Table("stbl", ["5H 6H 7H 3D 8C KH QD AC 4C 9S " + pair, "JK"], stock="JD AD", first=0)
    t.do("drew")
    t.do("melded", cards="5H 6H 7H")
    t.do("discarded", card="JD")
    t.do("drew")
    t.do("discarded", card="JK")
    if pair == "4S":
        t.reject("took_pile", "closed pile: the top card JK cannot be melded at once")
        return
    t.do("took_pile")
    t.reject("laid_off", "closed pile: the wild JK on top may only start a new meld", meld=0, cards="JK")
    t.do("melded", cards="9S 10S JK")
    assert t.hand(0)["JD"] == 1


def test_closed_pile_two_on_top_laid_off_in_its_own_place() -> None:
    # RULES terms: a wild is a 2 that does not stand in its own place, so a 2S on top laid off as
    # the natural 2 of 3S 4S 5S is no wild and wild_top_new_meld_only does not stop it; laid off
    # as a wild (onto 5H 6H 7H) it is refused. Seat 0 keeps 5H JH KC 6C QD 7D 10S AH: no pair of a
    # suit close enough for a new meld with the 2S.
    t = Table("stbl", ["3S 4S 5S 5H JH KC 6C QD 7D 10S AH", "2S"], stock="10D AD", first=0)
    t.do("drew")
    t.do("melded", cards="3S 4S 5S")
    t.do("discarded", card="10D")
    t.do("drew")
    t.do("discarded", card="2S")
    t.do("took_pile")
    t.do("laid_off", meld=0, cards="2S")
    assert t.state.melds[0].cards == ("2S", "3S", "4S", "5S") and t.state.melds[0].shape.is_clean


def test_closed_pile_two_on_top_as_wild_refused() -> None:
    t = Table("stbl", ["3S 4S 5S 5H 6H 7H JH KC 6C QD 10S", "2D"], stock="10D AD", first=0)
    t.do("drew")
    t.do("melded", cards="3S 4S 5S")
    t.do("melded", cards="5H 6H 7H")
    t.do("discarded", card="10D")
    t.do("drew")
    t.do("discarded", card="2D")
    t.reject("took_pile", "closed pile: the top card 2D cannot be melded at once")


def test_closed_pile_hidden_from_legal_events_until_usable() -> None:
    # legal_events offers took_pile only when check accepts it
    t = closed_pile_table()
    assert any(isinstance(e, TookPile) for e in legal_events(t.state))
    t2 = Table("stbl", CLOSED_HANDS, stock="AD 8S KC", first=1)
    t2.do("drew")
    t2.do("discarded", card="KD")
    assert [type(e) for e in legal_events(t2.state)] == [Drew]


# -- open pile (RULES 2) -------------------------------------------------------------------------


def test_open_pile_and_no_single_card_return() -> None:
    # aberto: the open pile is taken without condition; a single card taken may not go back
    t = Table("aberto", ["KC 4H 9S 9D QD 8C 6S 7D AC 3H JH", "3S 4S 5S 6S 3D 4D 5D 6D 3C 4C 5C"],
              stock="10C", first=0)
    t.do("drew")
    t.do("discarded", card="KC")
    t.do("took_pile")  # KC is of no use to seat 1: still allowed on an open pile
    assert t.hand(1)["KC"] == 1 and t.state.pending_top is None
    t.reject("discarded", "no single-card return: KC was the one card taken from the pile", card="KC")
    t.do("melded", cards="3S 4S 5S 6S")
    t.do("melded", cards="3D 4D 5D 6D")
    # melding 3C 4C 5C would leave only KC, which could not be discarded
    t.reject("melded", "this play leaves only KC, which may not go back to the pile", cards="3C 4C 5C")
    t.do("discarded", card="5C")
    # next turn the rule no longer applies: seat 0 may take the pile of one (5C) and the card is free
    assert t.state.single_taken is None


def test_open_pile_of_two_may_return() -> None:
    # no_single_card_return concerns a pile of exactly one card
    t = Table("aberto", ["KC", "QD"], stock="10C 10D 10S", first=0)
    t.do("drew")
    t.do("discarded", card="KC")
    t.do("drew")
    t.do("discarded", card="QD")
    t.do("took_pile")
    assert t.state.pile == [] and t.hand(0)["KC"] == 1 and t.hand(0)["QD"] == 1
    assert t.state.single_taken is None  # two cards taken: no card is barred from going back
    t.do("discarded", card="QD")
    # the returned card is the pile again, alone, on top; the hand keeps the other card taken
    assert t.state.pile == ["QD"]
    assert t.hand(0)["QD"] == 0 and t.hand(0)["KC"] == 1
    assert (t.state.to_play, t.state.phase) == (1, "draw")


# -- deads (RULES 4) -----------------------------------------------------------------------------

def test_direct_dead_then_close() -> None:
    # RULES 4 direct: the player takes a dead at once and goes on playing the same turn
    t = direct_dead_table()
    st = t.state
    assert (st.phase, st.to_play) == ("dead", 0)
    assert [e.dead for e in legal_events(st)] == [0, 1]  # type: ignore[attr-defined]
    t.reject("discarded", "discarded is not allowed now; expected took_dead", card="6D")
    t.reject("took_dead", "took_dead cards differ from dead 0 as dealt", cards="7S 8S 9S")
    t.reject("took_dead", "it is seat 0's turn, not seat 1's", player=1)
    t.do("took_dead", dead=0)
    assert (st.phase, st.to_play, st.turn, st.deads.team_took) == ("play", 0, 0, [0, None])
    assert not can_take_dead(st, 0) and can_take_dead(st, 1)  # RULES 4: one dead per team
    t.do("laid_off", meld=0, cards="7S 8S 9S")
    t.do("laid_off", meld=1, cards="7H 8H 9H")
    t.do("laid_off", meld=2, cards="7D 8D 9D 10D")
    assert [m.canasta(t.rules) for m in st.melds] == ["clean", "clean", "clean"]
    # RULES 6: the team took its dead and holds a clean canasta: the last discard closes
    t.do("discarded", card="JD")
    assert (st.phase, st.closed_by, st.end_reason) == ("hand_end", 0, "closed")


def test_second_dead_refused_and_single_card_left_needs_canasta() -> None:
    # RULES 4: one dead per team; RULES 6: a play may not leave a single card that could not be
    # discarded. After the direct dead seat 0 holds JH QH KH JD QD KD 9S 10S JS QS 5C.
    t = direct_dead_table(deads=["JH QH KH JD QD KD 9S 10S JS QS 5C", ""])
    t.do("took_dead", dead=0)
    t.do("melded", cards="JH QH KH")
    t.do("melded", cards="JD QD KD")
    t.reject("melded", "this play leaves the single card 5C, which could not be discarded: the team has no clean canasta to close",
             cards="9S 10S JS QS")
    t.do("melded", cards="9S 10S JS")
    t.do("discarded", card="5C")
    assert t.state.phase == "draw" and t.state.to_play == 1


def test_closing_needs_clean_canasta_where_required() -> None:
    # RULES 6, close_needs_clean: stbl refuses to leave one card with only a dirty canasta;
    # fechado-sujo (any canasta) accepts it and the discard closes.
    # seat 0: 3C-8C JK (dirty canasta) | 3H-6H + 7H drawn | dead 0: 3S 4S 5S x2, 9D 10D JD QD, KH
    hands = ["3C 4C 5C 6C 7C 8C JK 3H 4H 5H 6H", "AD AD KS KS 8H 9H 10C 2S JK 6D 7D"]
    deads = ["3S 4S 5S 3S 4S 5S 9D 10D JD QD KH", ""]
    for variant, clean_needed in (("stbl", True), ("fechado-sujo", False)):
        t = Table(variant, hands, deads=deads, stock="7H")
        t.do("drew")
        t.do("melded", cards="3C 4C 5C 6C 7C 8C JK")
        t.do("melded", cards="3H 4H 5H 6H 7H")
        t.do("took_dead", dead=0)
        t.do("melded", cards="3S 4S 5S")
        t.do("melded", cards="3S 4S 5S")
        if clean_needed:
            t.reject("melded", "leaves the single card KH, which could not be discarded: the team has no clean canasta",
                     cards="9D 10D JD QD")
            continue
        t.do("melded", cards="9D 10D JD QD")
        t.do("discarded", card="KH")
        assert (t.state.closed_by, t.state.end_reason) == (0, "closed")
        # clubs 3-7 25 + 8C 10 + JK 20 = 55 (dirty +100); hearts 3-7 25; spades 15 + 15;
        # diamonds 9-Q 40 -> melds 150, bonus 100, close 100 = 350.
        # seat 1: AD AD 30, KS KS 20, 8H 9H 10C 30, 2S 10, JK 20, 6D 7D 10 = 120; no dead -100
        s0, s1 = hand_scores(t.state)
        assert sheet(s0) == (150, 100, 100, 0, 0, 350)
        assert sheet(s1) == (0, 0, 0, -120, -100, -220)


# indirect dead: seat 0 melds 3S-6S, 3H-6H, 3D-5D, discards KC and takes dead 0 (unused later)
# seat 1 draws KH, melds 3C-9C and 9H-KH, takes dead 1 directly, melds 6D-9D, 7S-10S, lays off
# 7H 8H onto hearts and closes by discarding 10C.
INDIRECT = {
    "hands": ["3S 4S 5S 6S 3H 4H 5H 6H 3D 4D 5D", "3C 4C 5C 6C 7C 8C 9C 9H 10H JH QH"],
    "stock": "KC KH",
    "deads": ["AS AS AH AH KD KD QD QD JK JK 2C", "6D 7D 8D 9D 7S 8S 9S 10S 7H 8H 10C"],
}


def indirect_dead_table(**overrides: Any) -> Table:
    """Seat 0 empties its hand by the discard and takes dead 0; the turn passes."""
    t = Table("stbl", **INDIRECT, overrides=overrides)
    t.do("drew")
    t.do("melded", cards="3S 4S 5S 6S")
    t.do("melded", cards="3H 4H 5H 6H")
    t.do("melded", cards="3D 4D 5D")  # leaves KC: fine, discarding it takes a dead
    t.do("discarded", card="KC")
    assert (t.state.phase, t.state.to_play, t.state.dead_mode) == ("dead", 0, "indirect")
    t.do("took_dead", dead=0)
    assert (t.state.phase, t.state.to_play) == ("draw", 1)  # RULES 4: the turn passes
    assert t.state.deads.unused == [0, None]
    return t


def close_by_seat1(t: Table) -> None:
    """Seat 1 goes out through dead 1 in one turn (see INDIRECT)."""
    t.do("drew")
    t.do("melded", cards="3C 4C 5C 6C 7C 8C 9C")
    t.do("melded", cards="9H 10H JH QH KH")
    t.do("took_dead", dead=1)
    t.do("melded", cards="6D 7D 8D 9D")
    t.do("melded", cards="7S 8S 9S 10S")
    t.do("laid_off", meld=4, cards="7H 8H")
    t.do("discarded", card="10C")
    assert (t.state.phase, t.state.closed_by) == ("hand_end", 1)


@pytest.mark.parametrize("mode", ["penalty", "count"])
def test_unused_dead_scoring(mode: str) -> None:
    # RULES 4/7: seat 0's dead is unused (the hand ended before seat 0 played again)
    t = indirect_dead_table(unused_dead=mode)
    close_by_seat1(t)
    s0, s1 = hand_scores(t.state)
    assert s0.took_dead and s0.dead_unused
    # team 0 melds: 3S-6S 20, 3H-6H 20, 3D-5D 15 = 55, no canasta.
    if mode == "penalty":
        # -100 and the dead's cards (AS AS AH AH KD KD QD QD JK JK 2C) are not counted
        assert sheet(s0) == (55, 0, 0, 0, -100, -45)
    else:
        # the dead's cards count as hand cards: 4 aces 60 + KD KD QD QD 40 + JK JK 40 + 2C 10 = 150
        assert sheet(s0) == (55, 0, 0, -150, 0, -95)
    # team 1: clubs 3-9 45 (clean 200), hearts 7H-KH 65 (clean 200), 6D-9D 30, 7S-10S 35
    # -> 175 + 400 + close 100 = 675
    assert sheet(s1) == (175, 400, 100, 0, 0, 675)
    assert s1.canastas == {"clean": 2}


def test_close_by_playing_the_last_card() -> None:
    # RULES 6: without close_by_discard, melding the last card also closes (stbl)
    t = indirect_dead_table()
    t.do("drew")
    t.do("melded", cards="3C 4C 5C 6C 7C 8C 9C")
    t.do("melded", cards="9H 10H JH QH KH")
    t.do("took_dead", dead=1)
    t.do("melded", cards="6D 7D 8D 9D")
    t.do("melded", cards="7S 8S 9S 10S")
    t.do("laid_off", meld=4, cards="7H 8H")
    t.do("laid_off", meld=3, cards="10C")
    assert (t.state.phase, t.state.closed_by, t.state.end_reason) == ("hand_end", 1, "closed")
    # as in test_unused_dead_scoring, plus the 10C in the clubs meld: 185 + 400 + 100
    assert sheet(hand_scores(t.state)[1]) == (185, 400, 100, 0, 0, 685)


def test_indirect_dead_used_once_taker_plays_again() -> None:
    # RULES 4: the dead is no longer unused once its taker starts another turn
    t = indirect_dead_table()
    t.pass_turn()  # seat 1
    assert hand_scores(t.state)[0].dead_unused
    t.do("drew")  # seat 0 starts a turn with the dead in hand
    assert t.state.deads.unused == [None, None]
    assert not hand_scores(t.state)[0].dead_unused


def test_four_players_partner_takes_no_second_dead() -> None:
    # RULES 4: each team takes at most one dead; seat 2 is seat 0's partner
    t = Table("stbl", ["3S 4S 5S 6S 3H 4H 5H 6H 3D 4D 5D", "", "", ""], stock="6D", first=0)
    t.do("drew")
    t.do("melded", cards="3S 4S 5S 6S")
    t.do("melded", cards="3H 4H 5H 6H")
    t.do("melded", cards="3D 4D 5D 6D")
    t.do("took_dead", dead=1)
    assert not can_take_dead(t.state, 0) and can_take_dead(t.state, 1)
    assert [e.dead for e in legal_events(t.state) if isinstance(e, TookDead)] == []


# -- stock end (RULES 5) -------------------------------------------------------------------------

# seat 0: 3S-6S 20, 3H-6H 20, 3D-5D 15 = 55; seat 1 the second copies: also 55
EQUAL = ["3S 4S 5S 6S 3H 4H 5H 6H 3D 4D 5D"] * 2


@pytest.mark.parametrize("first", [0, 1])
def test_stock_refill_then_exhausted_and_tie_break(first: int) -> None:
    # RULES 5 refill: an empty stock is refilled from an untaken dead (its own event); with no dead
    # left the hand ends at once, no closing bonus. RULES 8: a tie goes to the first team of hand 0.
    t = Table("stbl", EQUAL, first=first)
    st = t.state
    for _ in range(64):  # stbl, 2 players: 64 cards in the stock
        t.pass_turn()
    assert st.stock == [] and st.phase == "draw"
    assert legal_events(st) == [StockRefilled(seq=st.next_seq, dead=0), StockRefilled(seq=st.next_seq, dead=1)]
    t.reject("drew", "the stock is empty", card="AS")
    t.reject("took_pile", "the stock is empty: it is refilled (or the hand ends) first")
    t.reject("hand_ended", "hand_ended is not allowed now", hand=0, reason="stock_exhausted", closed_by=None, scores=(0, 0))
    dead1 = st.deads.left[1]
    t.do("stock_refilled", dead=1)
    assert st.stock[-1] == dead1[0] and len(st.stock) == 11 and st.deads.fate == [None, "stock"]
    t.reject("stock_refilled", "the stock still holds 11 cards", dead=0)
    for _ in range(11):
        t.pass_turn()
    t.reject("stock_refilled", "dead 1 is already gone (stock)", dead=1)
    t.do("stock_refilled", dead=0)
    for _ in range(11):
        t.pass_turn()
    assert st.phase == "draw" and st.stock == [] and not can_take_dead(st, 0)
    (end,) = legal_events(st)
    assert isinstance(end, HandEnded) and (end.reason, end.closed_by) == ("stock_exhausted", None)
    # each team: hand 55, no dead -100, no closing bonus -> -155 each
    assert end.scores == (-155, -155)
    t.reject("hand_ended", "reason should be stock_exhausted, got closed", hand=0, reason="closed", closed_by=None, scores=(0, 0))
    t.do_event(end)
    assert (st.phase, st.totals, st.winner) == ("game_end", [-155, -155], first % 2)
    t.do("game_ended", totals=(-155, -155), winner=first % 2)
    assert st.phase == "over"
    t.reject("drew", "the game is over", player=0, card="AS")


def test_two_left_ends_hand_after_the_turn() -> None:
    # RULES 5 two_left (burraco): the draw leaving exactly 2 cards makes it the hand's last turn
    t = Table("burraco", EQUAL, discard="KS")
    st = t.state
    assert len(st.stock) == 63  # 108 - 22 - 22 - upcard
    for _ in range(60):
        t.pass_turn()
    assert len(st.stock) == 3 and st.phase == "draw" and not st.last_turn
    drew = t.do("drew")
    assert len(st.stock) == 2 and st.last_turn and st.phase == "play"
    t.do("discarded", card=drew.card)  # type: ignore[attr-defined]
    assert (st.phase, st.end_reason, st.closed_by) == ("hand_end", "stock_exhausted", None)
    # each team: 55 in hand, no dead -100, no closing bonus
    assert [s.total for s in hand_scores(st)] == [-155, -155]


def test_hand_scores_kept_only_for_the_same_position() -> None:
    # the sheets counted for the offered hand_ended are reused by its apply, and recounted as
    # soon as anything they count changes (a hand changed in place included)
    t = Table("burraco", EQUAL, discard="KS")
    st = t.state
    first = hand_scores(st)
    kept = hand_scores(st)  # the same sheets (compiled, the pair itself is boxed anew per call)
    assert kept[0] is first[0] and kept[1] is first[1] and hand_scores(st.copy()) == first
    card = next(iter(st.hands[0]))
    st.hands[0][card] += 1
    again = hand_scores(st)
    fresh = st.copy()
    fresh.scored = None  # nothing kept: the sheets counted anew
    assert again != first and again == hand_scores(fresh)
    st.hands[0][card] -= 1
    assert hand_scores(st) == first


def test_two_left_closing_still_possible_and_burraco_closing_rules() -> None:
    # RULES 5: the player whose draw leaves 2 cards may still close in that turn.
    # RULES 6 burraco: close_by_discard, no_wild_last_discard, any canasta.
    # seat 0: 3C-9C (clean canasta), 3H-6H + 7H, direct dead 0 = 3S..QS + KD (KD discarded);
    # the 61st draw (seat 0's, leaving 2) is 2D: seat 0 holds 3S..QS 2D.
    t = Table("burraco", ["3C 4C 5C 6C 7C 8C 9C 3H 4H 5H 6H", "KH KH QH QH JH JH 10H 10H 9H 9D JK"],
              stock="7H", stock_bottom="2D KS KS", discard="AH",
              deads=["3S 4S 5S 6S 7S 8S 9S 10S JS QS KD", ""])
    st = t.state
    t.do("drew")
    t.do("melded", cards="3C 4C 5C 6C 7C 8C 9C")
    t.do("melded", cards="3H 4H 5H 6H 7H")
    t.do("took_dead", dead=0)
    t.do("discarded", card="KD")
    for _ in range(59):
        t.pass_turn()
    assert st.to_play == 0 and len(st.stock) == 3
    t.do("drew")
    assert st.last_turn and t.hand(0)["2D"] == 1
    t.reject("melded", "this play leaves the single card 2D, a wild, which may not be the closing discard",
             cards="3S 4S 5S 6S 7S 8S 9S 10S JS QS")
    t.reject("melded", "only a discard may close in this variant", cards="3S 4S 5S 6S 7S 8S 9S 10S JS QS 2D")
    t.do("melded", cards="3S 4S 5S 6S 7S 8S 9S 10S JS 2D")  # 2D stands for QS
    t.do("discarded", card="QS")
    assert (st.phase, st.end_reason, st.closed_by) == ("hand_end", "closed", 0)
    # team 0: clubs 45 (clean 200), hearts 25, spades 3-J 65 + 2D 20 = 85 (dirty 100)
    # -> 155 + 300 + close 100 = 555
    # team 1: KH KH QH QH JH JH 10H 10H 80, 9H 9D 20, JK 30 = 130; no dead -100 -> -230
    s0, s1 = hand_scores(st)
    assert sheet(s0) == (155, 300, 100, 0, 0, 555)
    assert sheet(s1) == (0, 0, 0, -130, -100, -230)


# -- sets (RULES 3.2) ----------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "allowed"), [("burraco", False), ("fechado", True)])
def test_one_set_per_rank(variant: str, allowed: bool) -> None:
    t = Table(variant, ["5S 5H 5D 5C 5C JK 9H 10H JH KC QD", ""], stock="AS", discard="KS" if variant == "burraco" else "")
    t.do("drew")
    t.do("melded", cards="5S 5H 5D")
    if allowed:
        t.do("melded", cards="5C 5C JK")
        assert len(t.state.melds) == 2
    else:
        t.reject("melded", "one set per rank: the team already has a set of that rank", cards="5C 5C JK")
        t.do("laid_off", meld=0, cards="5C 5C JK")  # the same cards may join the existing set


def test_meld_must_be_legal_and_numbered() -> None:
    t = Table("stbl", ["5S 5H 5D 3C 4C 5C", ""], stock="AS")
    t.do("drew")
    t.reject("melded", "5S 5H 5D is not a legal run (this variant has no sets)", cards="5S 5H 5D")
    t.reject("melded", "meld: the next meld number is 0, got 3", cards="3C 4C 5C", meld=3)
    t.reject("laid_off", "meld: there is no meld 0", meld=0, cards="5S")


def test_lay_off_only_onto_own_team() -> None:
    # RULES 1: a player lays off only onto its own team's melds
    t = Table("stbl", ["3C 4C 5C", "6C"], stock="AS KD", first=0)
    t.do("drew")
    t.do("melded", cards="3C 4C 5C")
    t.do("discarded", card="AS")
    t.do("drew")
    t.reject("laid_off", "meld 0 belongs to the other team", meld=0, cards="6C")


# -- hands and the match (RULES 1, 8) ------------------------------------------------------------


def test_rotation_and_target_over_two_hands() -> None:
    t = direct_dead_table(overrides={"target": 3000})
    t.do("took_dead", dead=0)
    t.do("laid_off", meld=0, cards="7S 8S 9S")
    t.do("laid_off", meld=1, cards="7H 8H 9H")
    t.do("laid_off", meld=2, cards="7D 8D 9D 10D")
    t.do("discarded", card="JD")
    st = t.state
    t.reject("hand_ended", "closed_by should be 0, got 1", hand=0, reason="closed", closed_by=1, scores=(0, 0))
    t.do("hand_ended", hand=0, reason="closed", closed_by=0, scores=(1, 2))  # the claim is not trusted
    assert st.totals == [845, -220] and st.phase == "deal" and st.winner is None  # 845 < 3000
    nxt = deal_event(t.rules, ["", ""], first=0, hand=1, seq=st.next_seq)
    before = st.copy()
    with pytest.raises(IllegalMove, match="first: hand 1 starts at seat 1"):
        play(st, nxt)
    assert st == before
    t.do_event(deal_event(t.rules, ["", ""], first=1, hand=1, seq=st.next_seq))
    assert (st.hand_no, st.to_play, st.melds, st.deads.team_took) == (1, 1, [], [None, None])


def test_team_left_without_a_dead_may_close_without_one() -> None:
    # RULES 5: "A team left with no dead to take may close without one". Seat 0 melds eleven
    # hearts (a clean canasta), discards its last card and takes dead 0 (indirect). The stock
    # runs out; dead 1 refills it, so team 1 has no dead left to take: seat 1 melds its eleven
    # spades and closes by discarding, without ever holding a dead.
    t = Table("stbl", ["3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"],
              stock="AD", first=0)
    st = t.state
    t.do("drew")
    t.do("melded", cards="3H 4H 5H 6H 7H 8H 9H 10H JH QH KH")
    t.do("discarded", card="AD")
    assert st.phase == "dead" and st.dead_mode == "indirect"
    t.do("took_dead", dead=0)
    for _ in range(63):  # the 63 cards left in the stock: seat 1 draws the last one
        t.pass_turn()
    assert st.stock == [] and st.to_play == 0
    t.do("stock_refilled", dead=1)
    assert not can_take_dead(st, 1)
    t.pass_turn()
    drew = t.do("drew")
    t.do("melded", cards="3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
    t.do("discarded", card=drew.card)  # type: ignore[attr-defined]
    assert (st.phase, st.closed_by, st.end_reason) == ("hand_end", 1, "closed")
    zero, one = hand_scores(st)
    # team 1: spades 3-7 = 25, 8-K = 60 -> 85; clean canasta 200; closing 100; no dead -100 = 285
    assert sheet(one) == (85, 200, 100, 0, -100, 285)
    # team 0: hearts 85 + clean 200; it took its dead and played on, so no dead penalty
    assert (zero.meld_points, zero.canasta_bonus, zero.close_bonus, zero.dead_penalty) == (85, 200, 0, 0)
    assert zero.hand_penalty < 0 and not zero.dead_unused


def test_deal_must_be_the_whole_deck_in_the_right_sizes() -> None:
    # RULES 1: 11 cards a seat, two deads of 11, the stock (64 for 2 players on 108 cards), no
    # upcard in stbl; all together exactly the deck
    rules = find_rules("stbl")
    st = GameState()
    play(st, GameStarted(seq=0, game_id="g", variant="stbl", players=("a", "b")))
    good = deal_event(rules, ["", ""])
    swapped = (*good.stock[:-1], "AS")  # a third AS, and one card of the deck missing
    cases = {
        "the deal is not the 108-card deck: extra AS; missing": replace(good, stock=swapped),
        "stock: 64 cards expected, got 63": replace(good, stock=good.stock[:-1]),
        "hands: the deal gives 11 cards to each of 2 seats": replace(good, hands=good.hands[:1]),
        "deads: the deal sets aside two deads of 11 cards": replace(good, deads=(good.deads[0], good.deads[1][:10])),
        "discard: no upcard in this variant": replace(good, discard=("AS",)),
        "hand should be 0, got 1": replace(good, hand=1),
    }
    for why, bad in cases.items():
        before = st.copy()
        with pytest.raises(IllegalMove, match=re.escape(why)):
            play(st, bad)
        assert st == before
    play(st, good)
    assert st.phase == "draw"


# -- the seed parameters (RULES 2, 4, 5 and 9) ------------------------------------------------------


def test_turn_end_top_card_melded_late_with_any_cards() -> None:
    # RULES 2 pile_top_use turn_end, stbl (seed 001: "you must use it before your turn ends").
    # seat 0: JS KS 3H 4H 5H 8D 9C 10C 6D 7C 4S; the pile KD 8S QS (top QS)
    t = closed_pile_table("stbl")
    st = t.state
    t.reject("took_pile", "took_pile cards KD QS differ from the pile KD 8S QS", cards="KD QS")
    t.do("took_pile")
    # the whole pile joins the hand at the take; QS is due
    assert (st.pending_top, st.top_due, st.pile) == (None, "QS", [])
    assert (t.hand(0)["KD"], t.hand(0)["8S"], t.hand(0)["QS"]) == (1, 1, 1)
    t.do("melded", cards="3H 4H 5H")  # another play first: legal under turn_end
    t.reject("discarded", "the top card QS taken from the pile must be melded before the turn ends", card="4S")
    t.do("melded", cards="JS QS KS")
    assert st.top_due is None
    t.do("discarded", card="KD")  # a card of the pile, now an ordinary hand card
    assert st.to_play == 1


def test_next_play_top_card_melded_late_is_illegal() -> None:
    # RULES 2 pile_top_use next_play, stcl (seeds 002/003: "immediately"): the same play as above
    # in a later play is refused, and so is using a card of the pile's rest in that first play
    t = closed_pile_table("stcl")
    t.do("took_pile")
    t.reject("melded", "closed pile: the top card QS must go into the first play after taking the pile", cards="3H 4H 5H")
    t.reject("discarded", "closed pile: the top card QS must go into the first play", card="4S")
    t.do("melded", cards="JS QS KS")


def test_turn_end_refuses_a_play_that_strands_the_top_card() -> None:
    # RULES 2 turn_end: the turn cannot end before the top is melded, so a play that leaves it no
    # legal meld is refused. stbl with dead_by_discard (RULES 4) on: JS QS KS alone may not empty
    # the hand by a play. seat 0: JS KS 3C 4C 5C 6C 7C 8D 9D 10D JD; seat 1 discards QS.
    t = Table("stbl", ["JS KS 3C 4C 5C 6C 7C 8D 9D 10D JD", "QS"], stock="AH", first=1,
              overrides={"dead_by_discard": True})
    t.do("drew")
    t.do("discarded", card="QS")
    t.do("took_pile")
    t.do("melded", cards="3C 4C 5C 6C 7C")
    t.reject("melded", "this play leaves no way to meld the top card QS taken from the pile", cards="8D 9D 10D JD")
    t.do("melded", cards="8D 9D 10D")  # leaves JD: JS QS KS can still be melded
    t.do("melded", cards="JS QS KS")
    t.do("discarded", card="JD")
    assert t.state.phase == "dead"  # RULES 4: emptied by the discard, an indirect dead


def test_dead_owner_team_takes_only_its_own_dead() -> None:
    # RULES 4 dead_owner team, stbl-pl (seed 000: "each dead is assigned to one player or team")
    t = direct_dead_table("stbl-pl")
    st = t.state
    assert st.phase == "dead"
    assert [e.dead for e in legal_events(st)] == [0]  # type: ignore[attr-defined]
    t.reject("took_dead", "dead 1 belongs to team 1", dead=1)
    t.do("took_dead", dead=0)
    assert not can_take_dead(st, 0) and can_take_dead(st, 1)


def test_dead_owner_first_takes_either_dead() -> None:
    # RULES 4 dead_owner first (stbl, seed 001): the first to run out takes either dead
    t = direct_dead_table("stbl")
    assert [e.dead for e in legal_events(t.state)] == [0, 1]  # type: ignore[attr-defined]
    t.do("took_dead", dead=1)


def test_dead_by_discard_hand_empties_only_by_a_discard() -> None:
    # RULES 4 dead_by_discard, aberto-sujo (seed 003, Dirty Open: "to go out or close, a card
    # must be discarded"): the play that would empty the hand is refused; the discard takes the
    # dead indirectly
    t = Table("aberto-sujo", **DIRECT)
    t.do("drew")
    t.do("melded", cards="3S 4S 5S 6S")
    t.do("melded", cards="3H 4H 5H 6H")
    t.reject("melded", "in this variant a hand may only empty by a discard", cards="3D 4D 5D 6D")
    t.do("melded", cards="3D 4D 5D")
    t.do("discarded", card="6D")
    st = t.state
    assert (st.phase, st.dead_mode) == ("dead", "indirect")
    t.do("took_dead", dead=0)
    assert st.to_play == 1 and st.deads.unused[0] == 0  # the turn passed (RULES 4 indirect)


def test_refill_all_puts_both_deads_into_the_stock_lowest_on_top() -> None:
    # RULES 5 refill all, stcl (seeds 002/003: the deads "are integrated into the stock"): both
    # untaken deads join the empty stock at once, each its own event, dead 0 first and on top
    t = Table("stcl", EQUAL)
    st = t.state
    for _ in range(64):  # 2 players: 64 cards in the stock
        t.pass_turn()
    assert legal_events(st) == [StockRefilled(seq=st.next_seq, dead=0)]
    t.reject("stock_refilled", "every untaken dead refills the stock, lowest first: dead 0 comes next", dead=1)
    dead0, dead1 = st.deads.left
    assert dead0 is not None and dead1 is not None
    t.do("stock_refilled", dead=0)
    t.reject("drew", "the stock is being refilled: dead 1 joins it first")
    t.reject("took_pile", "the stock is being refilled: dead 1 joins it first")
    assert legal_events(st) == [StockRefilled(seq=st.next_seq, dead=1)]
    t.do("stock_refilled", dead=1)
    assert st.stock == [*reversed(dead1), *reversed(dead0)]  # top last: dead 0's first card on top
    assert st.deads.fate == ["stock", "stock"] and not st.refilling
    assert not can_take_dead(st, 0) and not can_take_dead(st, 1)  # RULES 5: may close without one
    drew = t.do("drew")
    assert drew.card == dead0[0]  # type: ignore[attr-defined]


def test_refill_one_takes_one_dead_and_the_other_waits() -> None:
    # RULES 5 refill one, stbl (seed 001: "one of the deads replaces it"): after one dead refills,
    # play goes on and the other is no refill until the stock is empty again
    t = Table("stbl", EQUAL)
    st = t.state
    for _ in range(64):
        t.pass_turn()
    t.do("stock_refilled", dead=1)
    assert not st.refilling and st.deads.left[0] is not None
    t.reject("stock_refilled", "the stock still holds 11 cards", dead=0)
    t.pass_turn()


# burraco, 2 players: no meld in either hand, with the upcard QD or with anything the other
# discards below; every turn takes the one-card pile and discards another card
STALE = ["3S 5S 7S 9S JS KS 3H 5H 7H 9H JH", "4C 6C 8C 10C QC AC 4D 6D 8D 10D KD"]


def _quiet_turn(t: Table, discard: str) -> None:
    t.do("took_pile")
    t.do("discarded", card=discard)


def test_stalemate_claimed_too_early_then_on_time() -> None:
    # RULES 5 stalemate_rounds 2, burraco (seed 004: players "simply discard and pick up the
    # discards ... the game may end here and the hands are scored"): the hand ends after 2 rounds
    # (2 x 2 turns) without a stock draw, meld or lay-off, reason stalemate, no closing bonus
    t = Table("burraco", STALE, discard="QD")
    st = t.state
    _quiet_turn(t, "3S")
    _quiet_turn(t, "AC")
    assert (st.quiet_turns, st.phase) == (2, "draw")
    t.reject("hand_ended", "stalemate needs 2 rounds without progress; only 1 so far",
             hand=0, reason="stalemate", closed_by=None, scores=(0, 0))
    _quiet_turn(t, "5S")
    _quiet_turn(t, "4C")
    assert (st.phase, st.end_reason, st.closed_by) == ("hand_end", "stalemate", None)
    (end,) = legal_events(st)
    assert isinstance(end, HandEnded) and end.reason == "stalemate"
    s0, s1 = hand_scores(st)
    assert s0.close_bonus == s1.close_bonus == 0
    t.reject("hand_ended", "reason should be stalemate, got stock_exhausted",
             hand=0, reason="stock_exhausted", closed_by=None, scores=end.scores)
    t.do_event(end)
    assert st.phase == "deal"


def test_stalemate_count_restarts_after_a_stock_draw() -> None:
    # RULES 5: a stock draw is progress; the count of quiet turns starts again after it
    t = Table("burraco", STALE, discard="QD", stock="2C")
    st = t.state
    _quiet_turn(t, "3S")
    _quiet_turn(t, "AC")
    _quiet_turn(t, "5S")
    t.do("drew")  # seat 1 draws the stock's top card
    t.do("discarded", card="4C")
    assert st.quiet_turns == 0 and st.phase == "draw"
    for card in ("7S", "6C", "9S"):
        _quiet_turn(t, card)
    assert st.phase == "draw"
    _quiet_turn(t, "8C")
    assert (st.phase, st.end_reason) == ("hand_end", "stalemate")


def test_no_stalemate_where_the_variant_has_none() -> None:
    # RULES 5: stalemate_rounds 0 (aberto) never ends a hand for lack of progress
    t = Table("aberto", STALE)
    st = t.state
    t.do("drew")
    t.do("discarded", card="3S")
    for card in ("AC", "5S", "4C", "7S", "6C"):
        _quiet_turn(t, card)
    assert st.phase == "draw" and st.quiet_turns == 5
    t.reject("hand_ended", "this variant has no stalemate end (stalemate_rounds 0)",
             hand=0, reason="stalemate", closed_by=None, scores=(0, 0))


# -- GameState.copy: every mutable field is copied -----------------------------------------------

#: the container types a field may hold that `copy()` must not share
_MUTABLE = (list, dict, set, Deads)


def _mutable_fields() -> list[str]:
    """Return the GameState fields typed as a list, dict, Counter or set (from the dataclass)."""
    hints = typing.get_type_hints(GameState)
    return [
        f.name for f in dataclasses.fields(GameState)
        if isinstance(typing.get_origin(hints[f.name]) or hints[f.name], type)
        and issubclass(typing.get_origin(hints[f.name]) or hints[f.name], _MUTABLE)
    ]


def _probe(value: Any) -> None:
    """Mutate a container in place (and each container inside a list, and each list of a `Deads`)."""
    if isinstance(value, Deads):
        for name in ("left", "fate", "taker", "team_took", "direct", "unused"):
            _probe(getattr(value, name))
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, _MUTABLE):
                _probe(item)
        value.append("probe")
    elif isinstance(value, dict):
        value["probe"] = 1
    else:
        value.add("probe")


def _shared_fields(state: GameState, copy_of: Callable[[GameState], GameState] = GameState.copy) -> list[str]:
    """Return the mutable fields (or their inner containers) that `copy_of(state)` shares with `state`."""
    shared = []
    for name in _mutable_fields():
        before = copy.deepcopy(getattr(state, name))
        _probe(getattr(copy_of(state), name))
        if getattr(state, name) != before:
            shared.append(name)
            setattr(state, name, before)
    return shared


def _mid_hand_state() -> GameState:
    state = GameState()
    for ev in random_game("stbl", 4, seed=3)[:60]:
        play(state, ev)
    assert state.phase in ("draw", "play") and state.melds  # a hand in progress, melds on the table
    return state


def test_copy_shares_no_mutable_field() -> None:
    # `state == before` checks cannot see a shared list: a play on the copy would change both
    fields = _mutable_fields()
    assert {"hands", "stock", "pile", "deads", "melds", "totals", "hand_results"} <= set(fields)
    state = _mid_hand_state()
    assert _shared_fields(state) == []


def test_copy_copies_the_lists_it_names_and_only_those_hold_lists() -> None:
    # `COPIED_LISTS` is the one list of the fields `copy()` copies: every mutable field but the
    # hands (copied one level deeper) is in it, and the copy holds its own list of each
    assert set(COPIED_LISTS) | {"hands"} == set(_mutable_fields())
    state = _mid_hand_state()
    new = state.copy()
    for name in COPIED_LISTS:
        assert getattr(new, name) is not getattr(state, name) and getattr(new, name) == getattr(state, name), name
    assert all(a is not b and a == b for a, b in zip(new.hands, state.hands, strict=True))


def test_a_field_left_out_of_copy_is_found() -> None:
    # the check above can fail: a copy() that forgets the pile shares it, and the probe says so
    def forgets_the_pile(state: GameState) -> GameState:
        new = state.copy()
        new.pile = state.pile
        return new

    assert _shared_fields(_mid_hand_state(), forgets_the_pile) == ["pile"]


def test_shallow_copy_carries_every_field() -> None:
    # `shallow_copy` names each field by hand: one left out would be missing (an unset slot) or
    # default in the copy, so every field of the dataclass must come back as the very same object
    state = _mid_hand_state()
    state.closed_by, state.winner, state.end_reason = 1, 0, "closed"  # no field at its default
    state.dead_mode, state.pending_top, state.top_due, state.single_taken = "direct", "JK", "2c", "3c"
    state.refilling = state.last_turn = state.turn_progress = True
    state.first, state.first_of_game, state.to_play, state.quiet_turns = 1, 2, 3, 4
    state.pending_rest, state.totals = ["5h"], [120, -30]
    state.hand_results = [(score_team(state.rules, 0, [], [], [], True, False, False),) * 2]
    state.scored = ((), state.hand_results[0])  # what `hand_scores` keeps: (key, sheets)
    new = shallow_copy(state)
    default = GameState()
    for f in dataclasses.fields(GameState):
        assert getattr(new, f.name) is getattr(state, f.name), f.name
        assert getattr(state, f.name) != getattr(default, f.name), f.name


def test_shuffle_is_the_rngs_own() -> None:
    # `deal.shuffle` runs `Random.shuffle`'s loop itself: the same order and the rng left in
    # the same state, for decks of every size and many seeds; another rng class shuffles itself
    import random as _random

    from buraco_events.core.deal import shuffle

    class Other(_random.Random):
        def random(self) -> float:
            return super().random()

    for seed in range(300):
        for size in (0, 1, 2, 3, 7, 104, 108):
            for cls in (_random.Random, Other):
                ours, theirs = cls(seed), cls(seed)
                a = [f"c{i}" for i in range(size)]
                b = list(a)
                shuffle(ours, a)
                theirs.shuffle(b)
                assert a == b
                assert ours.getstate() == theirs.getstate()


def test_a_state_pickles_with_what_it_keeps() -> None:
    # an audit's finding carries its state back from a worker process: the rule bits and the
    # kept sheets travel with it (compiled, a class pickles only through its `__reduce__`)
    import pickle

    state = _mid_hand_state()
    sheets = hand_scores(state)
    gate.rules_context(state)
    copy = pickle.loads(pickle.dumps(state))
    assert copy == state
    assert copy.context.rules == state.rules and copy.context.pile_open == state.context.pile_open
    assert copy.scored is not None and copy.scored[1] == sheets


@settings(max_examples=8, deadline=None)
@given(st.integers(min_value=0, max_value=300))
def test_the_transition_table_is_what_check_and_the_legal_events_follow(seed: int) -> None:
    # the phase gate: at every state of a game, each legal event is of a class its phase expects,
    # and an event of a class no phase expects there is refused in the table's words
    events = random_game("stbl", 2, seed)
    state = GameState()
    for ev in events:
        expected = TRANSITIONS[state.phase]
        # besides, a hand ends in a playing phase once the stock is exhausted (RULES 5)
        ending = (HandEnded,) if stock_exhausted(state) else ()
        assert all(type(e) in expected.events + ending for e in legal_events(state))
        if state.phase in ("deal", "hand_end", "game_end"):
            wrong = Discarded(seq=state.next_seq, player=state.to_play, card="3S")
            with pytest.raises(IllegalMove, match=f"expected {re.escape(expected.words)}"):
                check(state, wrong)
        play(state, ev)
    assert state.phase == "over" and legal_events(state) == []
