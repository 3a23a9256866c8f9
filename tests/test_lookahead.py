"""The closed pile's targeted look-ahead decides exactly as the general one (RULES 2).

`turn.closed_take_usable` (a take of a closed pile) and `playcheck._top_still_playable` (a
turn_end top still due) build only the plays that hold the top card (`buraco_events.core.lookahead`);
the general path, `any_play` over a trial copy of the state, builds every candidate and stays the oracle.
Random tables of every closed-pile preset with random rule overrides compare both; a few concrete
tables name the case they pin down.
"""

from __future__ import annotations

import random
from collections import Counter

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buraco_events.core.cards import RANK, make_deck, parse_cards
from buraco_events.core.engine import check
from buraco_events.core.gate import IllegalMove
from buraco_events.core.hand_melds import candidate_melds
from buraco_events.core.lookahead import is_natural_top, top_candidates
from buraco_events.core.melds import Meld, classify
from buraco_events.core.playcheck import _top_still_playable, any_play
from buraco_events.core.state import GameState, shallow_copy
from buraco_events.core.turn import closed_take_usable, legal_draws, start_turn
from buraco_events.model.events import TookPile
from buraco_events.model.rules import PRESETS, Rules

CLOSED = [name for name, rules in PRESETS.items() if rules.pile == "closed"]
#: boolean rules the look-ahead's candidates or their check depend on, flipped at random
FLAGS = ("sets", "one_set_per_rank", "ace_to_ace", "wild_top_new_meld_only", "close_needs_clean",
         "close_by_discard", "dead_by_discard", "no_wild_last_discard", "wild_goes_low")


def random_rules(rng: random.Random) -> Rules:
    """Return a closed-pile preset with some flags flipped."""
    rules = PRESETS[rng.choice(CLOSED)]
    flips = {f: not getattr(rules, f) for f in FLAGS if rng.random() < 0.25}
    return msgspec.structs.replace(rules, **flips)


def random_table(rng: random.Random) -> tuple[GameState, int]:
    """Return a state in the draw phase with a closed pile, and the seat to move.

    Melds come from `candidate_melds` of random cards, so they are legal and their cards leave the
    deck; the hand is small to large; the top is often near the hand's cards so both answers occur.
    """
    rules = random_rules(rng)
    n = rng.choice((2, 4))
    deck = list(make_deck(rules.jokers))
    rng.shuffle(deck)
    melds: list[Meld] = []
    for _ in range(rng.randrange(0, 6)):
        pool = Counter(deck[:14])
        options = candidate_melds(pool, rules)
        if not options:
            continue
        cards = rng.choice(options)
        shape = classify(cards, rules)
        assert shape is not None
        for c in cards:
            deck.remove(c)
        team = rng.randrange(2)
        melds.append(Meld(len(melds), team, shape, team, 1, 0, rng.randrange(2)))
    player = rng.randrange(n)
    size = rng.choice((1, 2, 3, 4, 6, 9, 11, 14))
    hand = deck[:size]
    rest = deck[size:]
    if rng.random() < 0.6 and hand:
        # a top of a held suit or rank, so the take is often legal
        near = rng.choice(hand)
        fits = [c for c in rest if c[-1] == near[-1] or RANK[c] == RANK[near]]
        top = rng.choice(fits) if fits else rest[0]
    else:
        top = rest[rng.randrange(len(rest))]
    rest.remove(top)
    pile = rest[:rng.randrange(0, 3)] + [top]
    state = GameState(rules=rules, players=tuple(f"p{i}" for i in range(n)), phase="draw",
                      next_seq=50, hand_no=0, to_play=player, turn=3)
    state.hands = [Counter() for _ in range(n)]
    state.hands[player] = Counter(hand)
    state.pile = pile
    state.stock = rest[5:20]
    dead_taken = [rng.random() < 0.4, rng.random() < 0.4]
    state.deads.left = [None if taken else tuple(rest[20 + 11 * i:31 + 11 * i])
                   for i, taken in enumerate(dead_taken)]
    state.deads.fate = ["taken" if taken else None for taken in dead_taken]
    state.deads.team_took = [0 if dead_taken[0] else None, 1 if dead_taken[1] else None]
    state.deads.taker = [None, None]
    state.deads.direct = [False, False]
    state.deads.unused = [None, None]
    state.melds = melds
    return state, player


def _closed_trial(state: GameState, ev: TookPile) -> GameState:
    """Return a copy of the state after a closed take, as the general path's oracle sees it.

    A closed pile is taken as under `next_play` whatever `pile_top_use` says: both ask whether
    the top card melds at once with the cards held before the take (RULES 2).
    """
    trial = shallow_copy(state)
    trial.deads = state.deads.copy()
    start_turn(trial, ev.player)
    trial.pile, trial.pending_top, trial.pending_rest = [], state.pile[-1], state.pile[:-1]
    trial.phase = "play"
    trial.next_seq = ev.seq + 1
    return trial


def take_decisions(state: GameState, player: int) -> tuple[bool, bool]:
    """Return (look-ahead, general path) on whether the closed pile may be taken."""
    ev = TookPile(seq=state.next_seq, player=player, cards=tuple(state.pile))
    return closed_take_usable(state, ev), any_play(_closed_trial(state, ev))


def due_decisions(state: GameState, player: int) -> tuple[bool, bool]:
    """Return (look-ahead, general path) on whether a due turn_end top can still be melded.

    The whole pile joins the hand with the top due, as after a turn_end take.
    """
    top = state.pile[-1]
    trial = state.copy()
    trial.hands[player] = dict(Counter(trial.hands[player]) + Counter(state.pile))
    trial.pile, trial.top_due, trial.phase = [], top, "play"
    return _top_still_playable(trial, player, top), any_play(trial, top_plays_only=True)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_lookahead_equals_general_path(seed: int) -> None:
    rng = random.Random(seed)
    state, player = random_table(rng)
    fast, slow = take_decisions(state, player)
    assert fast == slow, (state.rules, state.hands[player], state.pile, state.melds)
    fast, slow = due_decisions(state, player)
    assert fast == slow, (state.rules, state.hands[player], state.pile, state.melds)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_take_check_leaves_the_state_as_it_was(seed: int) -> None:
    # `closed_take_usable` checks the candidates on a trial of the take (`turn.trial_take`):
    # "check never writes" holds, pile list included
    state, player = random_table(random.Random(seed))
    before, pile = state.copy(), state.pile
    ev = TookPile(seq=state.next_seq, player=player, cards=tuple(state.pile))
    closed_take_usable(state, ev)
    assert state == before
    assert state.pile is pile


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_legal_draws_offers_the_take_check_accepts(seed: int) -> None:
    # `legal_draws` asks the pile's rule as a bool rather than raising: it offers the take exactly
    # when `check` accepts it, closed piles and open ones of a single card (no single-card return)
    rng = random.Random(seed)
    state, player = random_table(rng)
    if rng.random() < 0.3:
        state.rules = msgspec.structs.replace(state.rules, pile="open", no_single_card_return=True)
        state.pile = state.pile[-1:]
    ev = TookPile(seq=state.next_seq, player=player, cards=tuple(state.pile))
    try:
        check(state, ev)
        accepted = True
    except IllegalMove:
        accepted = False
    assert (ev in legal_draws(state)) == accepted


def test_lookahead_sees_both_answers() -> None:
    # the random tables above are no test if every answer were the same: count both, many seeds
    outcomes: Counter[tuple[bool, bool]] = Counter()
    for seed in range(1500):
        state, player = random_table(random.Random(seed))
        fast, slow = take_decisions(state, player)
        assert fast == slow, seed
        outcomes[(is_natural_top(state.pile[-1]), fast)] += 1
    assert outcomes[(True, True)] > 100 and outcomes[(True, False)] > 100


def test_candidates_are_the_general_ones_holding_the_top() -> None:
    # the look-ahead's candidates are exactly the general generator's that hold the top (as sets)
    from buraco_events.core.plays import top_plays

    for seed in range(600):
        state, player = random_table(random.Random(seed))
        top = state.pile[-1]
        if not is_natural_top(top):
            continue
        team = player % 2
        ours = set(top_candidates(state.hands[player], top, 1,
                                  [(m.id, m.shape) for m in state.melds if m.team == team], state.rules))
        theirs = {(k, -1 if i is None else i, c) for k, i, c in top_plays(state, player, top)}
        assert ours == theirs, seed


def table(variant: str, hand: str, top: str, melds: tuple[str, ...] = (), pile: str = "") -> tuple[GameState, int]:
    """Return seat 0 to move in the draw phase holding `hand`, the pile `pile` + `top`, team 0's melds."""
    rules = PRESETS[variant]
    state = GameState(rules=rules, players=("a", "b"), phase="draw", next_seq=9, hand_no=0)
    state.hands = [Counter(parse_cards(hand)), Counter()]
    state.pile = [*parse_cards(pile), *parse_cards(top)]
    state.deads.left = [tuple(make_deck(4)[:11]), tuple(make_deck(4)[11:22])]
    state.deads.fate, state.deads.taker = [None, None], [None, None]
    state.deads.team_took, state.deads.direct, state.deads.unused = [None, None], [False, False], [None, None]
    for text in melds:
        shape = classify(parse_cards(text), rules)
        assert shape is not None
        state.melds.append(Meld(len(state.melds), 0, shape, 0, 1, 0, 0))
    return state, 0


@pytest.mark.parametrize(
    ("name", "variant", "hand", "top", "melds", "want"),
    [
        # RULES 3.1: a run through the top, held in full
        ("run in full", "stcl", "JS KS 4H", "QS", (), True),
        # RULES 3.1: one wild fills the hole beside the top
        ("run with a wild", "stcl", "JS 2D 4H", "KS", (), True),
        # RULES 3.1: the ace high after K (Q K A)
        ("high ace", "stcl", "QH KH 5C", "AH", (), True),
        # RULES 3.1: no two naturals of the suit within one wild's reach
        ("suit too far", "stcl", "9S 2D 4H", "KS", (), False),
        # RULES 3.2: sets only where the variant has them (fechado yes, stcl no)
        ("set where sets exist", "fechado", "7H 7C 4D", "7S", (), True),
        ("no sets in stcl", "stcl", "7H 7C 4D", "7S", (), False),
        # RULES 2: laid off onto a team run of its suit
        ("lay-off", "stcl", "4D 9C", "8H", ("5H 6H 7H",), True),
        # RULES 4: the play would empty the hand (one-card pile) with no dead taken: a direct dead
        ("empties into the dead", "stcl", "JS KS", "QS", (), True),
    ],
)
def test_named_takes(name: str, variant: str, hand: str, top: str, melds: tuple[str, ...], want: bool) -> None:
    state, player = table(variant, hand, top, melds)
    assert take_decisions(state, player) == (want, want), name


def test_take_refused_when_the_only_play_leaves_one_card_and_no_close() -> None:
    # RULES 4 and 6: JS QS KS takes both held cards and the pile's other card (8D) joins the hand
    # after it; with the team's dead already taken and no canasta, that single card could never
    # be discarded to close, so the play, and the take with it, are refused
    state, player = table("stcl", "JS KS", "QS", pile="8D")
    assert take_decisions(state, player) == (True, True)  # the dead is still there
    state.deads.team_took = [0, None]
    state.deads.left = [None, state.deads.left[1]]
    assert take_decisions(state, player) == (False, False)


def test_pending_top_plays_are_the_general_ones_in_order() -> None:
    # a natural top waiting apart: `raw_plays` builds the plays from the look-ahead, in the very
    # order of the general generator (`top_plays`), which stays the oracle; both answers occur
    from buraco_events.core.plays import raw_plays, top_plays

    seen = Counter()
    for seed in range(1500):
        state, player = random_table(random.Random(seed))
        ev = TookPile(seq=state.next_seq, player=player, cards=tuple(state.pile))
        trial = _closed_trial(state, ev)
        top = state.pile[-1]
        theirs = list(top_plays(trial, player, top))
        ours = raw_plays(trial)
        assert ours == theirs, seed
        seen[(is_natural_top(top), len(theirs) > 1)] += 1
    assert seen[(True, True)] > 50 and seen[(True, False)] > 100


@pytest.mark.slow
def test_pending_top_plays_in_self_play() -> None:
    # at every closed-pile top waiting in seeded greedy games: the same plays in the same order
    from buraco_events.bots.registry import GreedyBot
    from buraco_events.core.plays import raw_plays, top_plays
    from buraco_events.core.table import Table

    compared = 0
    for variant in CLOSED:
        for players in (2, 4):
            for seed in range(3):
                table = Table.start(variant, [f"p{i}" for i in range(players)], game_id="g",
                                    seats=[GreedyBot() for _ in range(players)], rng=seed, target=0)
                while table.step() is not None:
                    state = table.state
                    top = state.pending_top
                    if state.phase == "play" and top is not None:
                        assert raw_plays(state) == list(top_plays(state, state.to_play, top))
                        compared += 1
    assert compared > 30
