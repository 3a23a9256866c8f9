"""A player on the far side of the protocol: picks its move from the messages a seat gets (pure).

What a program playing over a socket needs (the tests' and the benchmark's scripted clients, a
club's own bot): the game's `Rules` from `hello`, and from a `view` message the seat's `View`
and the offered actions as `choices.Action`s, so any bot of the bot protocol (docs/api.md) can
choose; `greedy_choice` asks the greedy bot and answers the action's id.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import msgspec

from buraco_events.bots.greedy import GreedyBot
from buraco_events.core.choices import Action, ActionKind
from buraco_events.model.rules import Rules
from buraco_events.model.views import View

#: the engine's action kinds, by the protocol's
ENGINE_KINDS: dict[str, ActionKind] = {"draw": "draw", "pile": "pile", "meld": "meld", "lay_off": "add", "discard": "discard", "dead": "dead"}


def rules_of(hello: Mapping[str, Any]) -> Rules:
    """Return the game's rules from a `hello` message."""
    return msgspec.convert(hello["rules"], Rules)


def view_of(message: Mapping[str, Any]) -> View:
    """Return the seat's `View` from a `view` message (its replay fields left aside)."""
    return msgspec.convert(message["view"], View)


def actions_of(message: Mapping[str, Any]) -> list[Action]:
    """Return the offered actions of a `view` message as `Action`s, in the order of their ids."""
    return [Action(ENGINE_KINDS[a["kind"]], tuple(a["cards"]), a["meld"], a["dead"]) for a in message["actions"]]


def greedy_choice(rules: Rules, message: Mapping[str, Any], bot: GreedyBot | None = None) -> int:
    """Return the id of the action the greedy bot picks from a `view` message that offers some."""
    actions = actions_of(message)
    if len(actions) == 1:
        return 0
    chosen = (bot or GreedyBot()).choose(view_of(message), actions, rules, random.Random(message["seq"]))
    return actions.index(chosen)


__all__ = ["ENGINE_KINDS", "actions_of", "greedy_choice", "rules_of", "view_of"]
