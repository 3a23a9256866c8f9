"""Bots and the game loop: legal, card-conserving, deterministic games; greedy beats random."""

from __future__ import annotations

import copy
import pickle
import random
from collections import Counter
from collections.abc import Sequence

import pytest

from buraco_events.bots.registry import (
    Bot,
    EndlessGame,
    GreedyBot,
    RandomBot,
    bot_by_name,
    run_game,
    table_bots,
)
from buraco_events.core import choices as choices_module
from buraco_events.core import engine
from buraco_events.core import table as table_module
from buraco_events.core.cards import HAND_SIZE, SUIT_RANK, is_wild_card, make_deck
from buraco_events.core.choices import Action, legal_actions
from buraco_events.core.deal import all_cards
from buraco_events.core.state import GameState
from buraco_events.model.events import (
    Discarded,
    Drew,
    Event,
    GameStarted,
    HandEnded,
    HandStarted,
    Melded,
    decode_event,
    seal_lines,
)
from buraco_events.model.rules import PRESETS, Rules, find_rules
from buraco_events.views.projections import View, player_view

VARIANTS = list(PRESETS)
PAIRS = (("greedy", "greedy"), ("random", "random"), ("greedy", "random"), ("random", "greedy"))


def _seat_bots(pair: Sequence[str], players: int) -> list[Bot]:
    return [bot_by_name(pair[seat % len(pair)]) for seat in range(players)]


# -- whole games -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("variant", VARIANTS)
def test_games_replay_legal_and_conserve_cards(variant: str, players: int) -> None:
    """15 single-hand games per preset and player count (210 in all) replay from their sealed lines."""
    deck = Counter(make_deck(PRESETS[variant].jokers))
    for seed in range(15):
        pair = PAIRS[seed % len(PAIRS)]
        events, live = run_game(variant, players, seed, _seat_bots(pair, players), f"t-{seed}", target=0)
        decoded = [decode_event(line) for line in seal_lines(events)]
        state = GameState()
        for ev in decoded:
            engine.play(state, ev)
            if state.hand_no >= 0:
                assert all_cards(state) == deck, (variant, players, seed, ev.seq)
        assert state.phase == "over"
        final = engine.replay(decoded)
        assert final.hand_results == live.hand_results and final.winner == live.winner
        ended = [ev for ev in decoded if isinstance(ev, HandEnded)]
        # target 0: a single hand, or the hands of a tournament turn (burraco-torneo)
        assert len(ended) == (live.rules.hands_per_game or 1)
        assert ended[0].scores == tuple(s.total for s in final.hand_results[0])


def test_full_match_reaches_the_target() -> None:
    """A fechado match to 2000 between greedy bots ends with the winner at or past the target."""
    events, state = run_game("fechado", 2, 7, _seat_bots(("greedy",), 2), "match")
    assert state.rules.target == 2000
    assert len(state.hand_results) > 1
    assert max(state.totals) >= 2000 and state.totals[state.winner] == max(state.totals)
    hands = [ev for ev in events if isinstance(ev, HandStarted)]
    assert [h.first for h in hands] == [(hands[0].first + i) % 2 for i in range(len(hands))]


def test_same_seed_same_game_and_deals_independent_of_bots() -> None:
    """A seed fixes the game; the deal comes from its own rng, so other bots see the same cards."""
    greedy = _seat_bots(("greedy",), 4)
    a = seal_lines(run_game("burraco", 4, 11, greedy, "g", target=0)[0])
    b = seal_lines(run_game("burraco", 4, 11, greedy, "g", target=0)[0])
    c = seal_lines(run_game("burraco", 4, 12, greedy, "g", target=0)[0])
    assert a == b and a != c
    rand = run_game("burraco", 4, 11, _seat_bots(("random",), 4), "g", target=0)[0]
    deal_g, deal_r = decode_event(a[1]), rand[1]
    assert isinstance(deal_g, HandStarted) and isinstance(deal_r, HandStarted)
    assert (deal_g.first, deal_g.hands, deal_g.deads, deal_g.stock, deal_g.discard) == (
        deal_r.first, deal_r.hands, deal_r.deads, deal_r.stock, deal_r.discard)


def test_first_event_records_rules_target_and_seats() -> None:
    """game_started names the canonical variant, the full rules with the target, and the bots."""
    events = run_game("Fechado-STCL", 2, 1, [GreedyBot(), RandomBot()], "g1", target=0)[0]
    start = events[0]
    assert isinstance(start, GameStarted)
    assert start.variant == "stcl" and start.target == 0
    assert start.rules == find_rules("stcl", target=0)
    assert start.players == ("greedy-0", "random-1")


class _Spy:
    """Wraps a bot and records what the loop shows it."""

    def __init__(self, inner: Bot):
        self.inner, self.name, self.views = inner, inner.name, []

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        self.views.append(view)
        return self.inner.choose(view, actions, rules, rng)


@pytest.mark.parametrize("variant", ["stbl", "aberto"])
def test_bots_see_only_their_own_view(variant: str) -> None:
    """Each bot gets its seat's view: other hands and the stock as counts, a closed pile's top only."""
    spies = [_Spy(GreedyBot()) for _ in range(4)]
    run_game(variant, 4, 3, spies, "spy", target=0)
    for seat, spy in enumerate(spies):
        assert spy.views
        for view in spy.views:
            assert view.seat == seat == view.to_play
            assert all(isinstance(h, int) for s, h in enumerate(view.hands) if s != seat)
            assert isinstance(view.hands[seat], tuple)
            assert all(isinstance(d.cards, int) for d in view.deads)
            if variant == "stbl":
                assert view.pile.cards is None


class _Cheat:
    name = "cheat"

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        return Action("discard", ("JK",)) if view.phase == "play" else actions[0]


def test_action_not_offered_is_refused() -> None:
    """The loop accepts only an action from the offered list."""
    with pytest.raises(ValueError, match="not offered"):
        run_game("aberto", 2, 1, [_Cheat(), _Cheat()], "cheat", target=0)


def test_endless_hand_stops_with_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the turn bound the loop stops with EndlessGame naming the game and the seed."""
    monkeypatch.setattr(table_module, "MAX_TURNS_PER_HAND", 3)
    with pytest.raises(EndlessGame, match=r"g9 \(seed 9\): hand 0 passed 3 turns"):
        run_game("stbl", 2, 9, _seat_bots(("greedy",), 2), "g9", target=0)


@pytest.mark.slow
def test_greedy_beats_random() -> None:
    """Over 200 single hands on every preset (both seatings) greedy wins well over 70%."""
    wins = games = 0
    for seed in range(200):
        variant, players = VARIANTS[seed % len(VARIANTS)], 2 + 2 * (seed // 7 % 2)
        greedy_team = seed // 14 % 2
        pair = ("greedy", "random") if greedy_team == 0 else ("random", "greedy")
        _, state = run_game(variant, players, 1000 + seed, _seat_bots(pair, players), "gr", target=0)
        wins += state.winner == greedy_team
        games += 1
    rate = wins / games
    print(f"greedy win rate against random: {rate:.3f} over {games} single hands")
    assert rate > 0.7


# -- bot names and RandomBot -------------------------------------------------------------------


def test_bot_by_name() -> None:
    """Names are case-insensitive; an unknown name lists the valid ones."""
    assert isinstance(bot_by_name("Greedy"), GreedyBot)
    assert isinstance(bot_by_name("random"), RandomBot)
    with pytest.raises(ValueError, match="unknown bot 'clever'; valid bots: random, greedy"):
        bot_by_name("clever")


def test_random_bot_is_uniform_without_bias() -> None:
    """With play_bias 0 each of four actions comes up about a quarter of the time."""
    actions = [Action("meld", ("3H", "4H", "5H")), Action("discard", ("KS",)),
               Action("discard", ("QS",)), Action("discard", ("JS",))]
    rng = random.Random(5)
    bot = RandomBot(play_bias=0.0)
    counts = Counter(bot.choose(None, actions, Rules(), rng) for _ in range(4000))  # type: ignore[arg-type]
    assert set(counts) == set(actions)
    assert all(850 < n < 1150 for n in counts.values()), counts


def test_random_bot_bias_prefers_plays() -> None:
    """With play_bias 1 a meld on offer is always chosen."""
    actions = [Action("discard", ("KS",)), Action("meld", ("3H", "4H", "5H"))]
    bot = RandomBot(play_bias=1.0)
    rng = random.Random(1)
    assert all(bot.choose(None, actions, Rules(), rng).kind == "meld" for _ in range(50))  # type: ignore[arg-type]


# -- GreedyBot scenarios -----------------------------------------------------------------------


def _table(variant: str, hands: list[str], stock_top: str, dead0: str = "") -> GameState:
    """Return the state after a literal deal: given hands, stock top cards (top first), dead 0."""
    rules = find_rules(variant, target=0)
    given = [h.split() for h in hands]
    top, d0 = stock_top.split(), dead0.split()
    rest = Counter(make_deck(rules.jokers))
    rest.subtract(Counter([c for h in given for c in h] + top + d0))
    assert min(rest.values()) >= 0
    pool = sorted(rest.elements())
    dead0_cards = d0 + pool[:HAND_SIZE - len(d0)]
    pool = pool[HAND_SIZE - len(d0):]
    upcard = [pool.pop()] if rules.upcard else []
    state = GameState()
    engine.play(state, GameStarted(seq=0, game_id="s", variant=variant,
                                   players=tuple(f"p{i}" for i in range(len(given))), rules=rules))
    engine.play(state, HandStarted(
        seq=1, hand=0, first=0, hands=tuple(tuple(h) for h in given),
        deads=(tuple(dead0_cards), tuple(pool[:HAND_SIZE])), stock=tuple(top + pool[HAND_SIZE:]),
        discard=tuple(upcard),
    ))
    return state


def _greedy(state: GameState) -> Action:
    seat = state.to_play
    return GreedyBot().choose(player_view(state, seat), legal_actions(state), state.rules, random.Random(0))


def _do(state: GameState, *events: Event) -> None:
    for ev in events:
        engine.play(state, ev)


def test_greedy_lays_the_longest_clean_run_and_keeps_the_joker() -> None:
    # seat 0 after drawing QC:  3H 4H 5H 6H 7H | 8S 9S | JK | KD 5C 10D QC
    state = _table("stbl", ["3H 4H 5H 6H 7H JK 9S KD 5C 10D 8S", "AS AD AC KS KC QD QS JD JS 9D 9C"], "QC")
    _do(state, Drew(seq=2, player=0, card="QC"))
    first = _greedy(state)
    assert first == Action("meld", tuple(sorted(["3H", "4H", "5H", "6H", "7H"])))
    _do(state, choices_module.action_event(state, first))
    # 8S 9S JK would lay the joker for a 3-card meld: the bot discards instead
    second = _greedy(state)
    assert second.kind == "discard" and not is_wild_card(second.cards[0])


def test_greedy_does_not_feed_the_opponents_meld() -> None:
    # seat 1 lays 8C 9C 10C; seat 0 then holds JC (fits it), JK and low cards without neighbours
    state = _table("stbl", ["JC JK 3S 3S 3D 3D 3H 3C 7S 7D 7H",
                            "8C 9C 10C 4S 4D 4H 8S 8D 8H 10S 10D"], "KS QD 6C")
    _do(state, Drew(seq=2, player=0, card="KS"), Discarded(seq=3, player=0, card="KS"),
        Drew(seq=4, player=1, card="QD"), Melded(seq=5, player=1, meld=0, cards=("10C", "8C", "9C")),
        Discarded(seq=6, player=1, card="QD"), Drew(seq=7, player=0, card="6C"))
    choice = _greedy(state)
    # without the opponents' meld JC (worth 10) would be the cheapest card to let go
    assert choice.kind == "discard"
    assert choice.cards[0] not in ("JC", "JK")


def test_greedy_empties_its_hand_for_the_dead_then_closes() -> None:
    # seat 0: 3H..KH and draws AH: the 12-card run empties the hand (direct dead); dead 0 is
    # 3S..KS, so the next play empties the hand again with a clean canasta on the table: a close
    state = _table("stbl", ["3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", "AS AD AC KD KC QD QS JD JS 9D 9C"],
                   "AH", dead0="3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
    _do(state, Drew(seq=2, player=0, card="AH"))
    meld = _greedy(state)
    assert meld.kind == "meld" and len(meld.cards) == 12
    _do(state, choices_module.action_event(state, meld))
    assert state.phase == "dead"
    take = _greedy(state)
    assert take.kind == "dead"
    _do(state, choices_module.action_event(state, take))
    close = _greedy(state)
    assert close.kind == "meld" and len(close.cards) == HAND_SIZE
    _do(state, choices_module.action_event(state, close))
    assert state.phase == "hand_end" and state.closed_by == 0


@pytest.mark.parametrize(("last", "takes"), [("7D", True), ("KC", False)])
def test_greedy_takes_an_open_pile_only_when_it_melds(last: str, takes: bool) -> None:
    # aberto (open pile): seat 0 holds 5D 6D; seat 1 discards `last` onto seat 0's 9S
    state = _table("aberto", ["5D 6D 9S 3S 3H 3C 3D QH QS 10C 4C",
                              f"{last} AS AD AC KD QD JD JS 9D 9C 8H"], "KH 2S")
    _do(state, Drew(seq=2, player=0, card="KH"), Discarded(seq=3, player=0, card="9S"),
        Drew(seq=4, player=1, card="2S"), Discarded(seq=5, player=1, card=last))
    assert state.pile == ["9S", last]
    assert _greedy(state).kind == ("pile" if takes else "draw")


# -- the fast GreedyBot helpers answer as the plain ones (tests/reference_bots.py) -------------


@pytest.mark.parametrize("variant", ["stbl", "fechado", "aberto-sujo", "burraco"])
def test_useful_cards_equals_the_reference_at_every_draw(variant: str) -> None:
    """`useful_cards` (wilds left out from the start) counts the pile cards the plain one counts
    (`tests/reference_bots.py`: every candidate generated, the wild-free ones kept) at every draw
    decision of greedy hands, from the view the bot gets; told to stop at `enough`, it answers on
    the same side of `enough`."""
    from reference_bots import useful_cards as reference_useful_cards

    from buraco_events.bots.rating import useful_cards

    compared = useful = 0
    for players, seed in ((2, 3), (4, 4)):
        events, _ = run_game(variant, players, seed, [GreedyBot() for _ in range(players)], "u", target=0)
        state = GameState()
        for ev in events:
            if state.phase == "draw" and state.pile:
                view = player_view(state, state.to_play, scores=False)
                for pile in (view.pile.cards or (), tuple(state.pile)):
                    got = useful_cards(view, pile, state.rules)
                    assert got == reference_useful_cards(view, pile, state.rules)
                    for enough in (0, 1, 2, 3):  # counting stops at `enough`: the same side of it
                        assert (useful_cards(view, pile, state.rules, enough) >= enough) == (got >= enough)
                    compared, useful = compared + 1, useful + (got > 0)
            engine.play(state, ev)
    assert compared > 50 and useful > 5


def test_useful_cards_counts_only_wild_free_plays() -> None:
    # seat 0 holds 5H 6H and JK: the pile's 7H makes 5H 6H 7H (counts); its 9S would need the
    # joker for 8S-9S-JK or 9S-JK-10S, a wild short of a canasta (does not count)
    state = _table("stbl", ["5H 6H JK 8S 3D 4C QD KC AS 10C 9D", "AD AC KS KH QC QS JD JS 9C 8C 7C"], "4S")
    view = player_view(state, 0, scores=False)
    from buraco_events.bots.rating import useful_cards

    assert useful_cards(view, ("7H",), state.rules) == 1
    assert useful_cards(view, ("9S",), state.rules) == 0
    assert useful_cards(view, ("9S", "7H", "2D"), state.rules) == 1


@pytest.mark.parametrize("variant", ["stbl", "fechado", "burraco"])
def test_keep_melds_equals_the_reference_at_every_play_decision(variant: str) -> None:
    """The meld worth of every card held (the runs of its suit and the sets of its rank only,
    from each meld's kept entry) is the classify-per-meld worth (`tests/reference_bots.py`)
    at every play decision of greedy hands: 300 feeding an opponent, 50 fitting the team."""
    from reference_bots import keep_melds as reference_keep_melds

    from buraco_events.bots.rating import Position

    compared = fits = 0
    bot = GreedyBot()  # its game memory keeps the melds' index from decision to decision
    for players, seed in ((2, 5), (4, 6)):
        events, _ = run_game(variant, players, seed, [GreedyBot() for _ in range(players)], "k", target=0)
        state = GameState()
        for ev in events:
            if state.phase == "play":
                view = player_view(state, state.to_play, scores=False)
                pos = Position(view, bot._memory(state.rules))
                for card in sorted(state.hands[state.to_play]):
                    got = pos.keep_melds(card, SUIT_RANK[card])
                    assert got == reference_keep_melds(view.melds, pos.team, card, state.rules)
                    compared, fits = compared + 1, fits + (got > 0)
            engine.play(state, ev)
    assert compared > 100 and fits > 5


def test_keep_melds_stays_the_reference_when_games_interleave() -> None:
    """The meld index is kept across decisions by the bot's game memory, shared by both teams
    (`greedy.MeldIndex.update`): views of two games asked in turn (melds replaced, added, dropped, other buckets at a known position, another
    team's melds at one) still give the reference worth of every card held."""
    from reference_bots import keep_melds as reference_keep_melds

    from buraco_events.bots.rating import Position

    games = []
    for variant, players, seed in (("stbl", 2, 5), ("fechado", 4, 6), ("stbl", 4, 7)):
        events, _ = run_game(variant, players, seed, [GreedyBot() for _ in range(players)], "i", target=0)
        views = []
        state = GameState()
        for ev in events:
            if state.phase == "play" and state.melds:
                view = player_view(state, state.to_play, scores=False)
                views.append((view, state.rules, sorted(state.hands[state.to_play])))
            engine.play(state, ev)
        games.append(views)
    compared = 0
    bot = GreedyBot()
    for i in range(max(len(g) for g in games)):
        for views in games:
            view, rules, held = views[(i * 7) % len(views)]  # jump about: melds come and go
            pos = Position(view, bot._memory(rules))
            for card in held:
                assert pos.keep_melds(card, SUIT_RANK[card]) == reference_keep_melds(view.melds, pos.team, card, rules)
                compared += 1
    assert compared > 300


def test_meld_index_update_refuses_another_bucket_at_a_known_position() -> None:
    """A meld of another suit or rank at a position already indexed (a new hand) is refused, so
    the index is built afresh; a lay-off (same suit, same position) is taken in place."""
    from buraco_events.bots.rating import MeldIndex
    from buraco_events.core.cards import SUIT_RANK, SUITS
    from buraco_events.views.projections import MeldView

    rules = PRESETS["stbl"]

    def view(cards: str, team: int, type_: str = "run") -> MeldView:
        return MeldView(id=0, team=team, cards=tuple(cards.split()), type=type_,  # type: ignore[arg-type]
                        clean=True, kind="none", laid_by=team, laid_seq=1)

    index = MeldIndex(rules)
    assert index.update((view("5H 6H 7H", 0),))
    grown = view("5H 6H 7H 8H", 0)
    assert index.update((grown,)) and index.views == [grown] and index.buckets == [SUITS.index("H")]
    assert index.by_code[SUIT_RANK["9H"]] == index.by_code[SUIT_RANK["JK"]] == [0] and not index.by_code[SUIT_RANK["9S"]]
    assert index.fits[0].fit("9H") and not index.fits[0].fit("5H")
    assert not index.update((view("5S 6S 7S", 1),))  # another suit where the hearts were
    assert not index.update((view("9C 9D 9S", 0, "set"),))  # a set where a run was
    assert not index.update(())  # fewer melds: a new hand


@pytest.mark.parametrize("variant", VARIANTS)
def test_play_scores_and_discards_equal_the_reference_at_every_play_decision(variant: str) -> None:
    """At every play decision of greedy hands, asked in play order and then jumbled (the scores
    are kept per action across decisions, `greedy._Rated`): every candidate scores the plain float
    score, and the discard chosen is the plain one, found without the branch and bound: the least
    full worth, then the least hand worth, then the first offered (`tests/reference_bots.py`)."""
    from reference_bots import cheapest_discard as reference_cheapest_discard
    from reference_bots import play_score as reference_play_score

    from buraco_events.bots.rating import Position
    from buraco_events.core.choices import Choices

    decisions = []
    for players, seed in ((2, 8), (4, 9)):
        events, _ = run_game(variant, players, seed, [GreedyBot() for _ in range(players)], "p", target=0)
        state = GameState()
        for ev in events:
            if state.phase == "play":
                choices = Choices(state)
                view = player_view(state, state.to_play, scores=False)
                decisions.append((view, state.rules, choices.candidates(), choices.discard_actions()))
            engine.play(state, ev)
    scored = discarded = 0
    bot = GreedyBot()
    for i in [*range(len(decisions)), *((i * 7) % len(decisions) for i in range(len(decisions)))]:
        view, rules, candidates, discards = decisions[i]
        pos = Position(view, bot._memory(rules))
        for action in candidates:
            assert pos.play_score(action) == reference_play_score(view, action, rules), (i, action)
            scored += 1
        if discards:
            assert pos.cheapest_discard(discards) == reference_cheapest_discard(view, discards, rules), i
            discarded += 1
    assert scored > 100 and discarded > 40


def test_a_greedy_bot_keeps_its_ratings_in_its_own_game_memory() -> None:
    # the greedy bot keeps what it derives from the rules, the plays' ratings and the melds' index
    # in a memory of its own (`rating.GameMemory`), built for each rules object: another bot
    # starts empty, an action carries nothing, and a fresh copy of a rated action rates the same
    from buraco_events.bots.rating import RATED_MAX, Position

    bot, other = GreedyBot(), GreedyBot()
    events = run_game("fechado", 2, 3, [bot, bot], "rated", target=0)[0]
    assert bot._shared is not None and other._shared is None
    first = bot._shared.game
    assert first is not None and first.rated
    stbl = bot._memory(PRESETS["stbl"])  # other rules: a memory of their own, no rating taken over
    assert stbl is not first and not stbl.rated and bot._memory(PRESETS["stbl"]) is stbl
    state = GameState()
    compared = 0
    for ev in events:
        if state.phase == "play":
            choices = choices_module.Choices(state)
            view = player_view(state, state.to_play, scores=False)
            pos = Position(view, bot._memory(state.rules))
            for action in choices.candidates():
                score = pos.play_score(action)
                fresh = pickle.loads(pickle.dumps(action))
                assert fresh == action and hash(fresh) == hash(action) and repr(fresh) == repr(action)
                assert copy.copy(action) == action and not hasattr(action, "__dict__")
                assert pos.play_score(fresh) == score
                compared += 1
        engine.play(state, ev)
    rated = bot._memory(state.rules).rated
    assert compared > 20 and 0 < len(rated) <= RATED_MAX
    assert all(key == id(r.action) for key, r in rated.items())


def test_the_greedy_bots_of_one_table_share_their_game_memory() -> None:
    # `table_bots` gives the greedy seats of a table one memory (ratings and meld index serve
    # every seat), the other seats their own bots; the games are those of separate bots
    seats = table_bots(["greedy", "random", "greedy", "greedy"])
    assert [b.name for b in seats] == ["greedy", "random", "greedy", "greedy"]
    greedy = [b for b in seats if isinstance(b, GreedyBot)]
    shared = {id(b._shared) for b in greedy}
    assert len(shared) == 1 and None not in {b._shared for b in greedy}
    alone = [GreedyBot() for _ in range(4)]
    together = table_bots(["greedy"] * 4)
    for seed in (1, 2):
        assert run_game("fechado", 4, seed, together, "t", target=0)[0] == run_game("fechado", 4, seed, alone, "t", target=0)[0]
    memory = together[0]._shared.game  # type: ignore[union-attr]
    assert memory is not None and memory.rated and memory.index is not None
