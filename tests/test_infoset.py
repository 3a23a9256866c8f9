"""The information set of a seat and its sampler (`core.infoset`), and the fair what-if branch
it deals (`buraco branch --as SEAT`, `deck: redealt`).

Fair: what a seat knows does not change when the cards it never saw are dealt again, and neither
do the samples. Sound: the known cards are really where they are said to be, the pool is exactly
the hidden cards, and samples follow the deal's distribution (an enumerable case, exactly).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path

import msgspec
import pytest
from conftest import random_game
from helpers import write_match
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.audit.report import audit_path
from buraco_events.core.engine import play
from buraco_events.core.gate import IllegalMove
from buraco_events.core.infoset import (
    InfoSet,
    InfoSetError,
    Knowledge,
    dealt_table,
    info_set,
    sample,
)
from buraco_events.core.state import PLAYING_PHASES, GameState, counted, elements
from buraco_events.log.sources import read_log
from buraco_events.model.events import Branched, TookPile
from cli.main import app

runner = CliRunner()


def _points(events, every: int = 7):
    """Yield (state copy, knowledge copy, event index) at every `every`-th playing point."""
    state, knowledge = GameState(), Knowledge()
    for i, event in enumerate(events):
        play(state, event)
        knowledge.see(event)
        if i % every == 0 and state.phase in PLAYING_PHASES and state.pending_top is None and not state.pending_rest:
            copy = Knowledge()
            copy.known = [Counter(k) for k in knowledge.known]
            yield state.copy(), copy, i


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), variant=st.sampled_from(["stbl", "burraco", "aberto", "fechado"]),
       players=st.sampled_from([2, 4]))
def test_what_a_seat_knows_and_its_samples_ignore_the_cards_it_never_saw(seed: int, variant: str, players: int) -> None:
    """Fair: re-deal what seat S never saw; S's information set and its samples stay the same."""
    events = random_game(variant, players, seed)
    rng = random.Random(seed)
    moved = 0
    for state, knowledge, _ in _points(events, every=11):
        for seat in range(players):
            info = info_set(state, knowledge, seat)
            other = dealt_table(state, info, rng)
            moved += other.hands != state.hands or other.stock != state.stock
            assert info_set(other, knowledge, seat) == info
            assert sample(info, random.Random(7)) == sample(info_set(other, knowledge, seat), random.Random(7))
    assert moved > 0  # the re-deals really moved hidden cards


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.sampled_from([2, 4]))
def test_the_known_cards_are_in_their_hands_and_the_pool_is_the_hidden_cards(seed: int, players: int) -> None:
    """Sound: every card known in a hand is in it; the pool is exactly the other hands' unknown
    cards, the stock and the untaken deads; each place keeps its size in a sample."""
    events = random_game("stbl", players, seed)
    for state, knowledge, _ in _points(events, every=3):
        for seat in range(players):
            info = info_set(state, knowledge, seat)
            hidden: Counter[str] = Counter(state.stock)
            for s in range(players):
                known = Counter(info.known[s])
                assert not known - Counter(elements(state.hands[s]))  # known cards are held
                if s != seat:
                    hidden.update(Counter(elements(state.hands[s])) - known)
            for dead in state.deads:
                hidden.update(dead or ())
            assert Counter(info.pool) == hidden
            dealt = sample(info, random.Random(seed))
            assert [len(h) for h in dealt.hands] == [sum(h.values()) for h in state.hands]
            assert dealt.hands[seat] == tuple(sorted(elements(state.hands[seat])))
            assert len(dealt.stock) == len(state.stock)


def test_a_pile_taken_is_known_until_played() -> None:
    """The cards a seat took from the pile are known to all in its hand until it lays them."""
    events = random_game("aberto", 2, 3)  # an open pile: taken often
    knowledge = Knowledge()
    checked = 0
    for event in events:
        knowledge.see(event)
        if isinstance(event, TookPile):
            assert not Counter(event.cards) - knowledge.known[event.player]
            checked += 1
    assert checked > 0


def test_samples_follow_the_deals_distribution_exactly_on_a_small_case() -> None:
    """Sound: with a pool of AS AS KH JK into places of 1 (seat 1), 2 (stock) and 1 (dead 0), the
    frequency of each arrangement matches the share of the 4! orders of the physical cards that
    give it (chi-square, 8,000 samples, far below the 0.1% critical value)."""
    info = InfoSet(seat=0, own=("3C",), known=((), ("QS",)), hidden=(0, 1), stock=2, deads=(1, None),
                   pool=("AS", "AS", "JK", "KH"))
    exact: Counter[tuple] = Counter()
    for order in itertools.permutations(info.pool):
        exact[((tuple(sorted(("QS", order[0]))),), order[1:3], order[3:])] += 1
    total = sum(exact.values())
    rng = random.Random(2024)
    n = 8000
    seen: Counter[tuple] = Counter()
    for _ in range(n):
        dealt = sample(info, rng)
        seen[((dealt.hands[1],), dealt.stock, dealt.deads[0])] += 1
    assert set(seen) == set(exact)
    chi2 = sum((seen[k] - n * v / total) ** 2 / (n * v / total) for k, v in exact.items())
    df = len(exact) - 1
    assert df == 11 and chi2 < 31.3  # the 0.1% critical value of chi-square with 11 degrees


def test_no_information_set_between_hands() -> None:
    events = random_game("stbl", 2, 1)
    state, knowledge = GameState(), Knowledge()
    for event in events[:1]:
        play(state, event)
        knowledge.see(event)
    with pytest.raises(InfoSetError, match="no hand in play"):
        info_set(state, knowledge, 0)


# -- the fair what-if branch -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def parent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("redeal") / "g.jsonl"
    write_match(path)
    return path


def test_a_fair_branch_deals_again_only_what_the_seat_could_not_see(parent: Path, tmp_path: Path) -> None:
    """Branches, deck redealt: the seat's hand and the table are as they were, the hidden cards
    are the same cards in other places, the branch audits clean against its parent."""
    out = tmp_path / "fair.jsonl"
    result = runner.invoke(app, ["branch", str(parent), "--at", "40", "-o", str(out), "--as", "1", "--until", "game",
                                 "--bots", "random", "--by", "ana", "--json"])
    assert result.exit_code == 0, result.output
    events = [e for _, _, e in read_log(out)]
    fork = events[41]
    assert isinstance(fork, Branched) and fork.deck == "redealt" and fork.seat == 1
    state = GameState()
    for event in events[:41]:
        play(state, event)
    assert counted(fork.hands[1]) == state.hands[1]
    assert fork.hands[0] != tuple(sorted(elements(state.hands[0])))
    assert Counter(fork.hands[0]) + Counter(fork.stock) + sum((Counter(d) for d in fork.deads), Counter()) == \
        Counter(elements(state.hands[0])) + Counter(state.stock) + sum((Counter(d or ()) for d in state.deads), Counter())
    audit = next(iter(audit_path(out)))
    assert audit.report.ok, audit.report.first
    again = tmp_path / "again.jsonl"
    runner.invoke(app, ["branch", str(parent), "--at", "40", "-o", str(again), "--as", "1", "--until", "game",
                        "--bots", "random", "--by", "ana"])
    assert again.read_bytes() == out.read_bytes()  # the seed fixes the redeal


def test_a_redealt_line_that_moves_the_seats_own_cards_or_changes_cards_is_illegal(parent: Path) -> None:
    """Branches, deck redealt: the engine holds the seat's hand, the sizes and the cards."""
    events = [e for _, _, e in read_log(parent)][:41]
    state = GameState()
    for event in events:
        play(state, event)
    knowledge = Knowledge()
    for event in events:
        knowledge.see(event)
    dealt = sample(info_set(state, knowledge, 1), random.Random(1))
    good = Branched(seq=41, parent=state.game_id, fork_seq=40, deck="redealt", seat=1, seed="1", by="t",
                    reason="r", hands=dealt.hands, stock=dealt.stock, deads=tuple(d or () for d in dealt.deads))
    play(state.copy(), good)
    swapped = msgspec.structs.replace(good, hands=(good.hands[1], good.hands[0]))
    with pytest.raises(IllegalMove, match="own hand"):
        play(state.copy(), swapped)
    changed = msgspec.structs.replace(good, stock=("JK",) + good.stock[1:] if good.stock[0] != "JK" else ("2C",) + good.stock[1:])
    with pytest.raises(IllegalMove, match="not the cards the seat could not see"):
        play(state.copy(), changed)
    short = msgspec.structs.replace(good, stock=good.stock[1:])
    with pytest.raises(IllegalMove, match="stock"):
        play(state.copy(), short)
    no_cards = msgspec.structs.replace(good, hands=None)
    with pytest.raises(IllegalMove, match="new arrangement"):
        play(state.copy(), no_cards)


def test_branch_as_a_seat_between_hands_is_refused_in_one_line(parent: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["branch", str(parent), "--at", "0", "-o", str(tmp_path / "x.jsonl"), "--as", "0"])
    assert result.exit_code == 2 and "no hand in play" in result.output
    assert len(result.output.strip().splitlines()) == 1
