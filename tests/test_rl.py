"""The reinforcement-learning environment (`buraco_events.rl`, docs/rl.md): PettingZoo's own
tests, the action table against the engine's legal actions, the observation's secrecy, the deals
and the logs.

Needs the `rl` extra (pettingzoo, gymnasium, numpy): run with `pytest -m rl`; skipped without it.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import warnings
from pathlib import Path

import pytest
from helpers import import_or_skip

pytestmark = pytest.mark.rl

np = import_or_skip("numpy", "rl")
import_or_skip("pettingzoo", "rl")

from test_projections import shuffle_hidden  # noqa: E402

from buraco_events.audit.files import audit_path  # noqa: E402
from buraco_events.bots.registry import RandomBot, bot_by_name, run_game  # noqa: E402
from buraco_events.core.choices import Action  # noqa: E402
from buraco_events.core.melds import Meld, classify  # noqa: E402
from buraco_events.core.seatview import player_view  # noqa: E402
from buraco_events.model.events import HandEnded, HandStarted  # noqa: E402
from buraco_events.model.rules import PRESETS, Rules  # noqa: E402
from buraco_events.play.sim import game_id, game_seed  # noqa: E402
from buraco_events.rl import actions as A  # noqa: E402
from buraco_events.rl import env, raw_env  # noqa: E402
from buraco_events.rl.aec import BuracoEnv  # noqa: E402
from buraco_events.rl.observe import LAYOUT, SIZE, observe  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

with warnings.catch_warnings():  # pettingzoo.test loads some of PettingZoo's own envs, which warn
    warnings.simplefilter("ignore", DeprecationWarning)  # that their creation API is deprecated
    from pettingzoo.test import api_test, seed_test

#: the warnings PettingZoo's api_test gives every env whose observation is a dict and that is not
#: on its own lists of classic games (they are advice, not failures), and the all-zero mask of
#: an agent whose game is over (no action is legal then)
_ADVICE = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    "Action mask numpy array is all zeros (no legal actions).",
)


def _quiet(check) -> None:
    """Run a PettingZoo check, failing on any warning but `_ADVICE`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check()
    other = {str(w.message) for w in caught} - set(_ADVICE)
    assert other == set()


@pytest.mark.parametrize(("variant", "players"), [("stbl", 2), ("burraco", 4), ("aberto-sujo", 2)])
def test_pettingzoo_api_test_passes(variant: str, players: int) -> None:
    _quiet(lambda: api_test(env(variant, players), num_cycles=300))


@pytest.mark.parametrize(("variant", "players"), [("stbl", 4), ("fechado", 2)])
def test_pettingzoo_seed_test_passes(variant: str, players: int) -> None:
    _quiet(lambda: seed_test(lambda: env(variant, players), num_cycles=300))


# -- the action table ------------------------------------------------------------------------


def test_every_stateless_id_decodes_to_one_action_and_back() -> None:
    """Draw, pile, deads, discards and new melds: each id decodes to an engine action whose id it
    is, and no two ids name the same action."""
    seen: set[Action] = set()
    for i in range(A.LAY_OFF):
        action = A.decode(None, i)
        assert action is not None and A.encode(None, action) == i
        seen.add(action)
    assert len(seen) == A.LAY_OFF
    assert A.N_ACTIONS == A.LAY_OFF + A.MELD_SLOTS * A.LAY_OFF_BLOCK


def test_the_meld_table_is_every_meld_once() -> None:
    """Each entry is a meld under some preset; every run and set the generous rules accept over a
    wide sample of card multisets is in the table."""
    rules = Rules(sets=True, ace_to_ace=True)
    assert all(classify(cards, rules) is not None for cards in A.MELDS)
    assert len(set(A.MELDS)) == len(A.MELDS)
    rng = random.Random(3)
    deck = [c for c in A.CARDS if c != "JK"] * 2 + ["JK"] * 4
    suits = {s: [c for c in deck if c.endswith(s)] + ["JK"] * 4 for s in "SHDC"}
    found = 0
    for _ in range(20000):  # runs: cards of one suit plus wilds; sets: cards of one rank plus wilds
        if rng.random() < 0.5:
            pool = suits[rng.choice("SHDC")]
        else:
            rank = rng.choice(["A", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"])
            pool = [c for c in deck if c[:-1] == rank] + ["JK", "2S", "2H", "2D", "2C"]
        cards = tuple(sorted(rng.sample(pool, rng.randint(3, min(9, len(pool))))))
        if classify(cards, rules) is not None:
            found += 1
            assert cards in A.MELD_INDEX, cards
    assert found > 1000


def test_an_illegal_id_is_refused_and_changes_nothing() -> None:
    e = raw_env("stbl", 2)
    e.reset(seed=1)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = len(e.events)
    with pytest.raises(ValueError, match="not legal"):
        e.step(illegal)
    assert len(e.events) == before


def _random_env_games(seeds: int):
    """Yield (env, legal actions) at every decision of random games over every preset, 2 and 4
    players; the moves are the random bot's (plays preferred half the time)."""
    bot = RandomBot()
    for variant in PRESETS:
        for players in (2, 4):
            for seed in range(seeds):
                e = raw_env(variant, players)
                e.reset(seed=seed)
                rng = random.Random(seed)
                while not (any(e.terminations.values()) or any(e.truncations.values())):
                    table = e.table
                    legal = table.legal_actions()
                    yield e, legal
                    view = player_view(table.state, table.to_move, scores=False)
                    action = bot.choose(view, legal, table.state.rules, rng)
                    e.step(A.encode(table.state, action))


def test_the_mask_is_the_engines_legal_actions_exactly() -> None:
    """In every state of random games (all presets, 2 and 4 players) every legal action has
    exactly one id, which decodes back to it, and the mask holds exactly those ids. Nothing is
    excluded. In every 300th state with melds, every id of every meld's lay-off block decodes to no action or
    to one whose id it is."""
    states = lay_offs = blocks = checked = 0
    for e, legal in _random_env_games(seeds=3):
        state = e.table.state
        obs = e.observe(e.agent_selection)
        ids = np.flatnonzero(obs["action_mask"])
        assert sorted(A.encode(state, a) for a in legal) == ids.tolist()
        assert [A.decode(state, int(i)) for i in ids] == sorted(legal, key=lambda a: A.encode(state, a))
        lay_offs += sum(a.kind == "add" for a in legal)
        if state.melds and (checked := checked + 1) % 300 == 0:
            for meld in range(min(len(state.melds), A.MELD_SLOTS)):
                first = A.LAY_OFF + meld * A.LAY_OFF_BLOCK
                for i in range(first, first + A.LAY_OFF_BLOCK):
                    action = A.decode(state, i)
                    assert action is None or A.encode(state, action) == i
                blocks += 1
        states += 1
    assert states > 3000 and lay_offs > 500 and blocks > 20


def test_lay_off_descriptions_that_name_the_same_cards_have_one_id() -> None:
    """Onto a run 3..Q, a stretch up (K as a joker, then the high ace) and one down (2 as a
    joker, then the low ace) are the same cards: the first description in block order (up) is
    their id, and the other decodes to no action."""
    e = raw_env("stbl", 2)
    e.reset(seed=0)
    state = e.table.state.copy()
    run = tuple(sorted(f"{r}H" for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q")))
    shape = classify(run, state.rules)
    assert shape is not None
    state.melds = [Meld(0, 0, shape, 0, 1, 0, 0)]
    action = Action("add", ("AH", "JK"), 0)
    stretches = A.LAY_OFF + len(A.CARDS) + len(A.SET_COUNTS)
    up = stretches + A.STRETCHES.index((1, 2, 0, "JK"))
    down = stretches + A.STRETCHES.index((-1, 2, 0, "JK"))
    assert A.decode(state, up) == action and A.encode(state, action) == up
    assert A.decode(state, down) is None
    assert A.decode(state, up + A.LAY_OFF_BLOCK) is None  # there is no meld 1


# -- the observation -----------------------------------------------------------------------


def test_the_layout_covers_the_array() -> None:
    ends = [offset + size for _, offset, size in LAYOUT]
    assert [offset for _, offset, _ in LAYOUT[1:]] == ends[:-1] and ends[-1] == SIZE


def test_an_observation_never_leaks() -> None:
    """A seat's observation is unchanged when the cards it cannot see are dealt anew, and the
    re-deals really moved cards (the referee's view changed)."""
    rng = random.Random(5)
    checked = changed = 0
    for n, (e, _) in enumerate(_random_env_games(seeds=1)):
        if n % 3:
            continue
        state = e.table.state
        for seat in range(state.n_players):
            other = shuffle_hidden(state, seat, rng)
            assert np.array_equal(observe(state, seat), observe(other, seat)), (state.next_seq, seat)
            checked += 1
            changed += player_view(state, None) != player_view(other, None)
    assert checked > 500 and changed > 0.9 * checked


def test_the_observation_reads_the_seats_hand_and_the_melds() -> None:
    e = raw_env("stbl", 2)
    e.reset(seed=2)
    state = e.table.state
    obs = observe(state, 0)
    held = sum(state.hands[0].values())
    assert obs[:53].sum() == held == 11
    assert all(obs[A.CARD_INDEX[c]] == n for c, n in state.hands[0].items())


# -- chance, rewards, logs, rendering -------------------------------------------------------


def _play_random(e: BuracoEnv, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _agent in e.agent_iter():
        obs, _, done, cut, _ = e.last()
        e.step(None if done or cut else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_reset_deals_as_simulate(tmp_path: Path) -> None:
    """The env's games after reset(seed=S) are dealt as `buraco simulate --seed S` deals games
    0, 1, ... (the deal stream does not depend on the moves), and bear simulate's game ids."""
    e = raw_env("stbl", 4)
    for index in range(2):
        e.reset(seed=7) if index == 0 else e.reset()
        e_deal = next(ev for ev in e.events if isinstance(ev, HandStarted))
        bots = [bot_by_name("greedy") for _ in range(4)]
        events, _ = run_game("stbl", 4, game_seed(7, index), bots, game_id("stbl", 4, 7, index))
        sim_deal = next(ev for ev in events if isinstance(ev, HandStarted))
        assert e_deal == sim_deal
        assert e.table.state.game_id == game_id("stbl", 4, 7, index)


def test_a_random_game_through_the_env_writes_a_log_that_audits_clean(tmp_path: Path) -> None:
    e = env("stcl", 4, log_dir=tmp_path, target=0)
    e.reset(seed=3)
    _play_random(e, 3)
    (log,) = tmp_path.glob("*.jsonl")
    assert log.name == f"{game_id('stcl', 4, 3, 0)}.jsonl"
    (audit,) = audit_path(log)
    assert audit.report.ok and audit.report.complete


def test_hand_rewards_are_the_team_difference_of_each_hand() -> None:
    e = raw_env("stbl", 2, reward="hand")
    e.reset(seed=4)
    got = {a: 0.0 for a in e.possible_agents}
    rng = np.random.default_rng(4)
    for _agent in e.agent_iter():
        obs, _, done, cut, _ = e.last()
        e.step(None if done or cut else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        for a, r in e.rewards.items():
            got[a] += r
    ends = [ev for ev in e.events if isinstance(ev, HandEnded)]
    want = sum(ev.scores[0] - ev.scores[1] for ev in ends)
    assert ends and got == {"player_0": want, "player_1": -want}


def test_match_rewards_and_termination() -> None:
    e = raw_env("stbl", 4, reward="match")
    e.reset(seed=6)
    total = {a: 0.0 for a in e.possible_agents}
    rng = np.random.default_rng(6)
    for agent in e.agent_iter():
        obs, reward, done, cut, _ = e.last()
        total[agent] += reward
        e.step(None if done or cut else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    winner = e.table.state.winner
    assert e.table.over and winner is not None
    assert total == {f"player_{s}": (1.0 if s % 2 == winner else -1.0) for s in range(4)}


def test_render_ansi_shows_the_seat_view_only() -> None:
    e = raw_env("fechado", 2, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    seat = int(e.agent_selection[-1])
    assert isinstance(text, str) and "stock" in text
    hidden = player_view(e.table.state, seat)
    assert isinstance(hidden.hands[1 - seat], int)
    assert raw_env("stbl", 2).render() is None


def test_bad_arguments_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="reward must be"):
        raw_env("stbl", 2, reward="points")
    with pytest.raises(ValueError, match="2 or 4"):
        raw_env("stbl", 3)
    with pytest.raises(ValueError, match="unknown variant"):
        raw_env("whist", 2)


def test_the_docs_example_runs_and_prints_what_the_page_shows() -> None:
    """docs/rl.md's random agent (20 lines at most), run as written."""
    text = (ROOT / "docs" / "rl.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None
    shown = re.search(r"```\n(.*?)```", text[code.end():], re.S)
    assert shown is not None
    assert len(code.group(1).strip().splitlines()) <= 20
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code.group(1), "docs/rl.md", "exec"), {})
    assert printed.getvalue() == shown.group(1)


def test_a_hand_past_the_turn_bound_truncates_every_agent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import buraco_events.rl.aec as aec

    monkeypatch.setattr(aec, "MAX_TURNS_PER_HAND", 2)
    e = env("stbl", 2, log_dir=tmp_path)
    e.reset(seed=1)
    seen: list[tuple[bool, bool]] = []
    rng = np.random.default_rng(1)
    for _agent in e.agent_iter():
        obs, _, done, cut, _ = e.last()
        seen.append((done, cut))
        e.step(None if done or cut else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen[-2:] == [(False, True), (False, True)] and not e.agents
    assert list(tmp_path.iterdir()) == []  # an unfinished game writes no log


def test_a_match_past_the_hand_bound_truncates_every_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    import buraco_events
    import buraco_events.core.table as table_module

    if buraco_events.build() == "compiled":
        pytest.skip("the compiled table reads its bound as a constant")
    monkeypatch.setattr(table_module, "MAX_HANDS_PER_GAME", 1)
    e = raw_env("stcl", 2)  # a match to 2000: the second deal passes the bound
    e.reset(seed=2)
    _play_random(e, 2)
    assert not e.table.over and e.table.state.hand_no == 0 and not e.agents


@pytest.mark.parametrize("bad", [0.9, 0.0, "0", "abc", [0], None, True, float("nan"), float("inf"), 1 + 0j])
def test_only_integer_ids_are_actions_and_the_bad_value_is_named(bad: object) -> None:
    e = raw_env("stbl", 2)
    e.reset(seed=1)
    before = len(e.events)
    with pytest.raises(TypeError, match=re.escape(repr(bad))):
        e.step(bad)  # type: ignore[arg-type]
    assert len(e.events) == before
    with pytest.raises(TypeError, match=re.escape(repr(np.float32(0.5)))):
        e.step(np.float32(0.5))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="array"):
        e.step(np.array([0]))  # type: ignore[arg-type]
    assert len(e.events) == before


def test_python_and_numpy_integer_ids_play_the_same_action() -> None:
    for kind in (int, np.int64, np.int32, np.uint16):
        e = raw_env("stbl", 2)
        e.reset(seed=1)
        legal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])
        e.step(kind(legal))
        ref = raw_env("stbl", 2)
        ref.reset(seed=1)
        ref.step(legal)
        assert e.events == ref.events and len(e.events) > 0
