"""The information set of a seat and its sampler (`core.infoset`), and the fair what-if branch
it deals (`buraco branch --as SEAT`, `deck: redealt`).

Fair: what a seat knows does not change when the cards it never saw are dealt again, and neither
do the samples. Sound: the known cards are really where they are said to be, the pool is exactly
the hidden cards, and samples follow the deal's distribution (an enumerable case, exactly).
"""

from __future__ import annotations

import itertools
import math
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

from buraco_events.audit.files import audit_path
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


@pytest.mark.slow
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
            for dead in state.deads.left:
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
        Counter(elements(state.hands[0])) + Counter(state.stock) + sum((Counter(d or ()) for d in state.deads.left), Counter())
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


# -- uniformity of the sampler, by a chi-square test on enumerable cases ----------------------------

#: the significance of the uniformity tests: a fair sampler fails one in a thousand seeds
ALPHA = 0.001
#: samples drawn per case: every expected count is far above 5, so the chi-square law holds
N_SAMPLES = 20_000


def chi2_sf(x: float, df: int) -> float:
    """Return P(X >= x) for X chi-square with `df` degrees: the regularized upper incomplete gamma
    Q(df/2, x/2), by its series below a + 1 and its continued fraction (Lentz) above."""
    a, z = df / 2, x / 2
    if z <= 0:
        return 1.0
    log_front = a * math.log(z) - z - math.lgamma(a)
    if z < a + 1:
        term = total = 1 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= z / n
            total += term
        return 1 - total * math.exp(log_front)
    tiny = 1e-300
    b = z + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def test_the_chi_square_tail_matches_its_known_values() -> None:
    # 0.1% critical values from the tables (df 1, 11, 30), the median of df 2 (2 ln 2), and the
    # 5% point of df 100: the tail the uniformity tests read is right in both of its branches
    assert chi2_sf(10.828, 1) == pytest.approx(0.001, rel=1e-3)
    assert chi2_sf(31.264, 11) == pytest.approx(0.001, rel=1e-3)
    assert chi2_sf(59.703, 30) == pytest.approx(0.001, rel=1e-3)
    assert chi2_sf(2 * math.log(2), 2) == pytest.approx(0.5, rel=1e-9)
    assert chi2_sf(124.342, 100) == pytest.approx(0.05, rel=1e-3)


Deal = tuple[tuple[tuple[str, ...], ...], tuple[str, ...], tuple[tuple[str, ...] | None, ...]]


def _deals(info: InfoSet) -> dict[Deal, int]:
    """Every consistent deal of `info`, multiset-aware, with the number of orders of the physical
    cards (the copies of a card told apart) that give it.

    A deal puts a multiset in each other hand's unknown part and each untaken dead (their order does
    not count) and a sequence in the stock. Of the N! orders of the pool, a deal gets
    prod(m_c!) * prod over unordered places of size! / prod(n_c!), where m_c are the pool's copies
    of card c and n_c the copies the place holds: the copies of a card swap freely, and a place's
    own order does not count.
    """
    pool = Counter(info.pool)
    copies = math.prod(math.factorial(m) for m in pool.values())
    others = [s for s in range(len(info.hidden)) if s != info.seat]
    out: dict[Deal, int] = {}

    def multisets(left: Counter[str], k: int) -> list[Counter[str]]:
        """The sub-multisets of `left` with `k` cards."""
        if k == 0:
            return [Counter()]
        cards = sorted(c for c in left if left[c])
        found = []
        for i, card in enumerate(cards):  # the smallest card of the sub-multiset is `card`
            rest = Counter({c: left[c] for c in cards[i:]})
            rest[card] -= 1
            for tail in multisets(rest, k - 1):
                tail[card] += 1
                found.append(tail)
        return found

    def sequences(left: Counter[str], k: int) -> list[tuple[str, ...]]:
        if k == 0:
            return [()]
        return [(c, *tail) for c in sorted(c for c in left if left[c])
                for tail in sequences(left - Counter([c]), k - 1)]

    def ways(part: Counter[str]) -> int:
        return math.factorial(sum(part.values())) // math.prod(math.factorial(n) for n in part.values())

    def deal_from(left: Counter[str], hands: list, stock: tuple | None, deads: list, weight: int) -> None:
        if len(hands) < len(others):
            for part in multisets(left, info.hidden[others[len(hands)]]):
                deal_from(left - part, [*hands, part], None, deads, weight * ways(part))
            return
        if stock is None:
            for seq in sequences(left, info.stock):
                deal_from(left - Counter(seq), hands, seq, deads, weight)
            return
        if len(deads) < len(info.deads):
            size = info.deads[len(deads)]
            if size is None:
                deal_from(left, hands, stock, [*deads, None], weight)
            else:
                for part in multisets(left, size):
                    deal_from(left - part, hands, stock, [*deads, part], weight * ways(part))
            return
        assert not +left
        by_seat = dict(zip(others, hands, strict=True))
        dealt = tuple(info.own if s == info.seat else tuple(sorted(info.known[s] + tuple(by_seat[s].elements())))
                      for s in range(len(info.hidden)))
        key = (dealt, stock, tuple(None if d is None else tuple(sorted(d.elements())) for d in deads))
        out[key] = out.get(key, 0) + weight * copies

    deal_from(pool, [], None, [], 1)
    assert sum(out.values()) == math.factorial(len(info.pool))  # every order of the pool, once
    return out


def _observed(dealt) -> Deal:
    return dealt.hands, dealt.stock, tuple(None if d is None else tuple(sorted(d)) for d in dealt.deads)


def _uniformity_p(info: InfoSet, rng: random.Random) -> tuple[float, int]:
    """Draw N_SAMPLES samples of `info`; return the chi-square test's p-value against the exact
    distribution of the consistent deals, and the number of deals."""
    exact = _deals(info)
    total = sum(exact.values())
    seen = Counter(_observed(sample(info, rng)) for _ in range(N_SAMPLES))
    assert set(seen) <= set(exact)  # never a deal that is not consistent
    expected = {k: N_SAMPLES * v / total for k, v in exact.items()}
    assert min(expected.values()) >= 5
    chi2 = sum((seen[k] - e) ** 2 / e for k, e in expected.items())
    return chi2_sf(chi2, len(exact) - 1), len(exact)


#: small late positions whose consistent deals can all be listed: 2 players (an unknown part of a
#: hand beside its known card, the stock, a dead) and 4 players (three hands, the stock, one dead),
#: with two copies of some cards
UNIFORM_CASES = {
    "2p": InfoSet(seat=0, own=("3C", "4C"), known=((), ("QS",)), hidden=(0, 2), stock=3, deads=(None, 1),
                  pool=("2C", "2C", "5D", "JK", "KH", "KH")),
    "4p": InfoSet(seat=2, own=("9S",), known=((), ("AH",), (), ()), hidden=(1, 2, 0, 1), stock=1, deads=(1, None),
                  pool=("7H", "7H", "AS", "AS", "JK", "10D")),
}


@pytest.mark.parametrize("case", sorted(UNIFORM_CASES))
def test_samples_are_uniform_over_the_consistent_deals(case: str) -> None:
    """Sound: every consistent deal (multiset-aware: the two copies of a card are one card) comes
    as often as the orders of the physical cards that give it; chi-square, 20,000 samples,
    p above 0.1%."""
    p, deals = _uniformity_p(UNIFORM_CASES[case], random.Random(f"uniform/{case}"))
    assert deals > 30  # enough deals for the test to have teeth
    assert p > ALPHA, f"{case}: p = {p:.2g}"


def _naive_swap(rng: random.Random, cards: list) -> None:
    """Swap each place with any place: n^n equally likely runs onto n! orders, so unevenly."""
    for i in range(len(cards)):
        j = rng.randrange(len(cards))
        cards[i], cards[j] = cards[j], cards[i]


def _by_kind(rng: random.Random, cards: list) -> None:
    """Pick each next card uniformly among the kinds left, not the copies: a multiset-blind deal."""
    left = Counter(cards)
    cards.clear()
    while left:
        card = rng.choice(sorted(left))
        cards.append(card)
        left[card] -= 1
        if not left[card]:
            del left[card]


@pytest.mark.slow
@pytest.mark.parametrize("bias", [_naive_swap, _by_kind])
def test_the_uniformity_test_catches_a_biased_shuffle(bias, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above can fail: the sampler given a biased shuffle fails it, far below 0.1%."""
    monkeypatch.setattr("buraco_events.core.infoset.shuffle", bias)
    for case, info in sorted(UNIFORM_CASES.items()):
        p, _ = _uniformity_p(info, random.Random(f"uniform/{case}"))
        assert p < ALPHA, f"{case}: a {bias.__name__} shuffle went unnoticed (p = {p:.2g})"
