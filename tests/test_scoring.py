"""Scoring: exact hand scores per preset, item by item (RULES 7), canasta bonuses, the match (RULES 8)."""

from __future__ import annotations

import pytest
from helpers import Table, direct_dead_table, sheet

from buraco_events.core.sheets import hand_scores, match_result, score_team
from buraco_events.model.rules import PRESETS, find_rules

# seat 1 keeps KC KC QC QC JC JC 10C 10C (80) 9C (10) 2C (two_value) and a JK (joker_value), or an
# 8C (10) in aberto, which has no jokers; it takes no dead (-100).
TEAM1 = {
    "stbl": -(80 + 10 + 10 + 20) - 100,  # -220
    "stcl": -(80 + 10 + 10 + 20) - 100,  # -220
    "stbl-pl": -(80 + 10 + 10 + 50) - 100,  # -250
    "aberto": -(80 + 10 + 10 + 10) - 100,  # -210
    "aberto-sujo": -(80 + 10 + 20 + 30) - 100,  # -240
    "fechado": -(80 + 10 + 10 + 20) - 100,  # -220
    "fechado-sujo": -(80 + 10 + 10 + 20) - 100,  # -220
    "burraco": -(80 + 10 + 20 + 30) - 100,  # -240
    "burraco-torneo": -(80 + 10 + 20 + 30) - 100,  # burraco's
}


@pytest.mark.parametrize("variant", list(PRESETS))
def test_exact_hand_score_per_preset(variant: str) -> None:
    # Seat 0 goes out in its first turn: draws 6D, melds 3S-6S 3H-6H 3D-6D (direct dead 0),
    # lays off 7S 8S 9S / 7H 8H 9H / 7D 8D 9D 10D, closes by discarding JD (legal everywhere:
    # a discard, not a wild, three clean canastas). Aberto sujo's hand may only empty by a
    # discard (dead_by_discard): its scoring is checked with that one parameter off.
    overrides = {"dead_by_discard": False} if find_rules(variant).dead_by_discard else {}
    rules = find_rules(variant, **overrides)
    last = "JK" if rules.jokers else "8C"
    t = direct_dead_table(
        variant, hands=["3S 4S 5S 6S 3H 4H 5H 6H 3D 4D 5D", "KC KC QC QC JC JC 10C 10C 9C 2C " + last],
        discard="AH" if rules.upcard else "", overrides=overrides,
    )
    t.do("took_dead", dead=0)
    t.do("laid_off", meld=0, cards="7S 8S 9S")
    t.do("laid_off", meld=1, cards="7H 8H 9H")
    t.do("laid_off", meld=2, cards="7D 8D 9D 10D")
    t.do("discarded", card="JD")
    s0, s1 = hand_scores(t.state)
    # team 0: spades 3-9 = 25 + 20 = 45, hearts 3-9 = 45, diamonds 3-10 = 25 + 30 = 55 -> 145;
    # three clean canastas 3 x 200 = 600; closing 100; nothing in hand; dead taken and used
    assert sheet(s0) == (145, 600, 100, 0, 0, 845)
    assert s0.canastas == {"clean": 3} and s0.took_dead and not s0.dead_unused
    assert sheet(s1) == (0, 0, 0, TEAM1[variant] + 100, -100, TEAM1[variant])
    assert not s1.took_dead
    # the hand_ended the table would record carries the same scores
    end = t.make("hand_ended", hand=0, reason="closed", closed_by=0, scores=(845, TEAM1[variant]))
    t.do_event(end)
    assert t.state.hand_results[-1] == (s0, s1)
    assert t.state.totals == [845, TEAM1[variant]]
    # target 0 (stbl, stbl-pl): one hand is the match; else 845 < 2000 and play goes on
    assert t.state.phase == ("game_end" if rules.target == 0 else "deal")


ROYAL_HEARTS = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH"


@pytest.mark.parametrize(("variant", "kind", "bonus"), [("stbl", "royal", 500), ("stbl-pl", "clean", 200)])
def test_royal_across_turns(variant: str, kind: str, bonus: int) -> None:
    # RULES 3.5 royal_in_one_turn (stbl-pl): a royal completed in a later turn scores as clean.
    # Seat 0: melds AH..JH (11, drawn JH), discards KC and takes dead 0 (QH KH ...); two turns
    # later lays off QH KH: AH..KH = 15 + 10 + 25 + 60 = 110 points.
    hands = ["AH 2H 3H 4H 5H 6H 7H 8H 9H 10H KC", ""]
    t = Table(variant, hands, stock="JH", deads=["QH KH", ""])
    t.do("drew")
    t.do("melded", cards=ROYAL_HEARTS)
    t.do("discarded", card="KC")
    t.do("took_dead", dead=0)
    t.pass_turn()
    t.do("drew")
    t.do("laid_off", meld=0, cards="QH KH")
    meld = t.state.melds[0]
    assert len(meld.cards) == 13 and meld.shape.is_clean
    assert meld.canasta(t.rules) == kind
    s0 = hand_scores(t.state)[0]
    assert (s0.meld_points, s0.canasta_bonus, s0.canastas) == (110, bonus, {kind: 1})


def test_royal_and_ace_to_ace_in_one_turn() -> None:
    # stbl-pl: laid complete within one turn, the royal (500) and then ace-to-ace (1000) count.
    # Seat 0 holds AH..JH, draws QH, melds all 12 (direct dead 0 = KH AH ...), lays off KH, then AH.
    t = Table("stbl-pl", ["AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH", ""], stock="QH", deads=["KH AH", ""])
    t.do("drew")
    t.do("melded", cards=ROYAL_HEARTS + " QH")
    t.do("took_dead", dead=0)
    t.do("laid_off", meld=0, cards="KH")
    s0 = hand_scores(t.state)[0]
    assert (s0.meld_points, s0.canasta_bonus, s0.canastas) == (110, 500, {"royal": 1})
    t.do("laid_off", meld=0, cards="AH")
    s0 = hand_scores(t.state)[0]
    # 110 + the second ace 15 = 125; ace-to-ace 1000 replaces the royal (only the highest kind)
    assert (s0.meld_points, s0.canasta_bonus, s0.canastas) == (125, 1000, {"ace_to_ace": 1})


# -- score_team (RULES 7) ------------------------------------------------------------------------

STBL = find_rules("stbl")


def test_score_team_no_dead() -> None:
    # RULES 7: the team took no dead -> -100; hand cards count against (AS 15 + JK 20)
    s = score_team(STBL, 1, [(("3S", "4S", "5S"), None)], ["AS", "JK"], [], closed=False,
                   took_dead=False, dead_unused=False)
    assert sheet(s) == (15, 0, 0, -35, -100, -120)


def test_score_team_unused_dead_modes() -> None:
    # RULES 7: unused dead: penalty mode -100 and the dead's cards ignored; count mode counts them
    dead = ["KS", "KS", "2H"]  # 10 + 10 + 10 (stbl two_value)
    pen = score_team(STBL, 0, [], ["5H"], dead, closed=False, took_dead=True, dead_unused=True)
    assert sheet(pen) == (0, 0, 0, -5, -100, -105)
    count = score_team(find_rules("stbl", unused_dead="count"), 0, [], ["5H"], dead, closed=False,
                       took_dead=True, dead_unused=True)
    assert sheet(count) == (0, 0, 0, -35, 0, -35)


def test_score_team_canasta_and_close() -> None:
    meld = ("3S", "4S", "5S", "6S", "7S", "8S", "JK")  # 25 + 10 + 20 = 55, dirty
    s = score_team(STBL, 0, [(meld, "dirty")], [], [], closed=True, took_dead=True, dead_unused=False)
    assert sheet(s) == (55, 100, 100, 0, 0, 255)
    assert s.canastas == {"dirty": 1}


# -- the match (RULES 8) -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("totals", "target", "first_team", "hands", "winner"),
    [
        ((100, 50), 0, 1, 1, 0),  # target 0: one hand decides
        ((50, 50), 0, 1, 1, 1),  # exact tie: the team that played first in hand 0
        ((50, 50), 0, 0, 1, 0),
        ((100, 50), 0, 0, 0, None),  # no hand played yet
        ((1900, 1500), 2000, 0, 3, None),  # nobody reached the target
        ((1500, 2000), 2000, 0, 3, 1),  # reaching the target exactly is enough
        ((2100, 2300), 2000, 0, 4, 1),  # both passed it: the higher total wins
        ((2300, 2100), 2000, 1, 4, 0),
        ((2100, 2100), 2000, 1, 4, 1),  # both passed, tied: first team of hand 0
        ((-300, -200), 0, 0, 1, 1),  # negative totals: still the higher
    ],
)
def test_match_result(totals: tuple[int, int], target: int, first_team: int, hands: int, winner: int | None) -> None:
    assert match_result(totals, target, first_team, hands) == winner


def test_target_3000_override_keeps_playing() -> None:
    # RULES 9: a 3000-point target overrides the preset's; 845 after hand 0 is not enough
    t = direct_dead_table("fechado", overrides={"target": 3000})
    t.do("took_dead", dead=0)
    t.do("laid_off", meld=0, cards="7S 8S 9S")
    t.do("laid_off", meld=1, cards="7H 8H 9H")
    t.do("laid_off", meld=2, cards="7D 8D 9D 10D")
    t.do("discarded", card="JD")
    t.do("hand_ended", hand=0, reason="closed", closed_by=0, scores=(845, -220))
    assert (t.state.rules.target, t.state.phase, t.state.winner) == (3000, "deal", None)
