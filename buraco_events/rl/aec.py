"""`BuracoEnv`: a PettingZoo `AECEnv` over `Table` (the engine's own rules, no second copy).

Agents `player_0`..`player_{n-1}` sit at seats 0..n-1 (teams: seat % 2). The agent to move is
`agent_selection`; a turn is several steps of one agent (draw, melds and lay-offs, discard).
`observe(agent)` is `{"observation": observe.observe(...), "action_mask": int8[N_ACTIONS]}`; the
mask is the legal ids of the agent to move (all zeros for the others). Ids are `actions`'.

Rewards (`reward=`): "hand" gives each agent, at each hand's end, its team's hand total minus
the other team's (the scores `hand_ended` records); "match" gives +1 to the winning team and -1
to the other when the match ends. Every agent is terminated when the match ends (`target=`
sets its length: the preset's by default, 0 = one hand). A game that passes the table's safety
bounds (`table.MAX_TURNS_PER_HAND` turns in a hand, `table.MAX_HANDS_PER_GAME` hands) is
truncated instead.

Chance: `reset(seed=S)` deals as `buraco simulate --seed S` deals its first game
(`sim.game_seed(S, 0)`, `seeds.SeedStreams`); each later `reset()` without a seed deals the next
game of that run (`game_seed(S, 1)`, ...), so the env's games are dealt as simulate's. With
`log_dir`, each finished game's log is written there as `{game_id}.jsonl` (`log.write_log`),
named as simulate names its logs.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any, Final

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from buraco_events.core.choices import Action
from buraco_events.core.seatview import player_view
from buraco_events.core.seeds import SeedStreams
from buraco_events.core.table import MAX_TURNS_PER_HAND, EndlessGame, Table
from buraco_events.log.writer import write_log
from buraco_events.model.events import Event, GameEnded, HandEnded
from buraco_events.model.rules import canonical_variant, check_players
from buraco_events.play.sim import game_id, game_seed
from buraco_events.views.render import render_text, render_view

from . import observe as obs_mod
from .actions import N_ACTIONS, encode

REWARDS: Final = ("hand", "match")
RENDER_MODES: Final = ("ansi",)


def _action_id(action: object) -> int:
    """Return `action` as an action id: a Python or NumPy integer, taken as it is. Anything else
    (a float, a string, a list, a bool, None) raises `TypeError` naming the value: an id is
    never rounded or parsed, so no other value plays an action by chance."""
    if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
        raise TypeError(f"action {action!r} ({type(action).__name__}) is not an action id: an id is "
                        f"an integer (Python int or NumPy integer) in 0..{N_ACTIONS - 1}")
    return int(action)


class BuracoEnv(AECEnv):
    """Buraco for 2 or 4 agents (see the module docstring)."""

    metadata: dict[str, Any] = {"name": "buraco_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": False}

    def __init__(
        self,
        variant: str = "stbl",
        players: int = 2,
        *,
        reward: str = "hand",
        target: int | None = None,
        log_dir: str | Path | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        check_players(players)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.variant = canonical_variant(variant)
        self.players = players
        self.reward_kind = reward
        self.target = target
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        low = np.zeros(obs_mod.SIZE, dtype=np.float32)
        totals = obs_mod.OFFSET["scalars"] + obs_mod.SCALARS.index("total_ours")
        low[totals:totals + 2] = -np.inf  # the totals may fall below zero
        observation = spaces.Dict({
            "observation": spaces.Box(low=low, high=np.inf, shape=(obs_mod.SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self._seed: int | None = None
        self._game = -1
        self.table: Table | None = None
        self.events: list[Event] = []
        #: the legal ids of the agent to move, each with its engine action
        self._legal: dict[int, Action] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- the game ------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: game 0 of `simulate --seed seed`, or the next game of the last seed."""
        if seed is not None:
            self._seed, self._game = int(seed), 0
        elif self._seed is None:
            self._seed, self._game = secrets.randbits(63), 0
        else:
            self._game += 1
        assert self._seed is not None
        self.events = []
        names = [f"{agent}" for agent in self.possible_agents]
        self.table = Table.start(
            self.variant, names, game_id=game_id(self.variant, self.players, self._seed, self._game),
            rng=SeedStreams(game_seed(self._seed, self._game)), target=self.target,
            record=self.events.append,
        )
        self.table.advance()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._next()

    def step(self, action: int | None) -> None:
        """Play the agent to move's action id (None only for an agent already done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        assert table is not None
        chosen = self._legal.get(_action_id(action))
        if chosen is None:
            raise ValueError(f"action {action} is not legal for {agent} now (see the action_mask)")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        truncated = False
        try:
            events = table.act(self._seat[agent], chosen)
        except EndlessGame:  # the next hand would pass the safety bound: the match stops here
            events, truncated = [], True
        for event in events:
            if self.reward_kind == "hand" and type(event) is HandEnded:
                for a in self.agents:
                    team = self._seat[a] % 2
                    self.rewards[a] += float(event.scores[team] - event.scores[1 - team])
            elif self.reward_kind == "match" and type(event) is GameEnded:
                for a in self.agents:  # a tie (winner None, `hands_per_game`) rewards no one
                    if event.winner is not None:
                        self.rewards[a] += 1.0 if self._seat[a] % 2 == event.winner else -1.0
        if table.over:
            self.terminations = dict.fromkeys(self.agents, True)
            if self.log_dir is not None:
                self.log_dir.mkdir(parents=True, exist_ok=True)
                write_log(self.log_dir / f"{table.state.game_id}.jsonl", self.events)
        elif truncated or table.state.turn > MAX_TURNS_PER_HAND:
            self.truncations = dict.fromkeys(self.agents, True)
        self._next()
        self._accumulate_rewards()

    def _next(self) -> None:
        """Select the agent to move and list its legal ids (none once the game is done)."""
        table = self.table
        assert table is not None
        self._legal = {}
        seat = table.to_move
        if seat is None or any(self.terminations.values()) or any(self.truncations.values()):
            return
        self.agent_selection = self.possible_agents[seat]
        state = table.state
        self._legal = {encode(state, a): a for a in table.legal_actions()}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Return the agent's observation and action mask (see the module docstring)."""
        table = self.table
        assert table is not None
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if agent == self.agent_selection and self._legal:
            mask[list(self._legal)] = 1
        return {"observation": obs_mod.observe(table.state, self._seat[agent]), "action_mask": mask}

    def legal_actions(self) -> dict[int, Action]:
        """Return the legal ids of the agent to move, each with the engine action it plays."""
        return dict(self._legal)

    def render(self) -> str | None:
        """Return the table as the agent to move sees it (render_mode "ansi")."""
        if self.render_mode is None or self.table is None:
            return None
        seat = self._seat[self.agent_selection]
        return render_text(render_view(player_view(self.table.state, seat)))

    def close(self) -> None:
        """Nothing to release: the logs are written as each game ends."""


def raw_env(variant: str = "stbl", players: int = 2, **kwargs: Any) -> BuracoEnv:
    """Return the unwrapped env (the same arguments as `env`)."""
    return BuracoEnv(variant, players, **kwargs)


def env(variant: str = "stbl", players: int = 2, **kwargs: Any) -> AECEnv:
    """Return Buraco as a PettingZoo AEC env, wrapped as PettingZoo's classic games are.

    `variant` is a preset or alias, `players` 2 or 4; keywords: `reward` ("hand" or "match"),
    `target` (the match's length; 0 = one hand), `log_dir`, `render_mode` ("ansi").
    """
    return wrappers.OrderEnforcingWrapper(raw_env(variant, players, **kwargs))


__all__ = ["REWARDS", "BuracoEnv", "env", "raw_env"]
