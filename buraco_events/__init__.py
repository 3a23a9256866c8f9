"""buraco-events: Buraco as an event log.

The packages, by reason to change: `core` (the rules as code: cards, melds, the engine's fold,
legal moves, the table, bots; compiled in the compiled build), `model` (the msgspec Structs: rules,
events, views, score sheets), `log` (files: logs, chain, archives), `views` (what a seat or a
person is shown), `audit`, `analytics` (the index, SQL, Spark) and `play` (sessions, simulation).
`core` and `model` do no I/O.

For programs that run games (a game server, a club's scoring app), the public API is exported here
and described in `docs/api.md`: a `Table` to start or resume, the legal `Action`s of the seat to
move, a seat's `View`, `act` to apply an action and get the events appended, and the `Bot` protocol.
"""

from .bots.registry import GreedyBot, RandomBot, bot_by_name
from .core.choices import Action
from .core.gate import IllegalMove
from .core.seeds import PositionSeeds, RngPolicy, SeedStreams, SharedStream
from .core.state import GameState
from .core.table import Bot, BotError, EndlessGame, Table, WrongSeat, start_event
from .model.events import Event
from .model.rules import Rules, find_rules
from .views.projections import View, player_view

__version__ = "0.1.0"


def build() -> str:
    """Return which build of the engine runs: "compiled" (mypyc) or "pure" (Python)."""
    from importlib.machinery import EXTENSION_SUFFIXES

    from .core import engine

    return "compiled" if engine.__file__.endswith(tuple(EXTENSION_SUFFIXES)) else "pure"


__all__ = [
    "Action", "Bot", "BotError", "EndlessGame", "Event", "build", "bot_by_name", "GameState", "GreedyBot",
    "IllegalMove", "PositionSeeds", "RandomBot",
    "RngPolicy", "Rules", "SeedStreams", "SharedStream", "Table", "View", "WrongSeat", "find_rules",
    "player_view", "start_event",
]
