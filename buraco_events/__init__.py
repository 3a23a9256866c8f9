"""buraco-events: Buraco as an event log.

The pure core (cards, melds, rules, events, engine, projections, scoring, table, bots, render) does
no I/O; `log` and `archive` are the shell that touches files and DuckDB.

For programs that run games (a game server, a club's scoring app), the public API is exported here
and described in `docs/api.md`: a `Table` to start or resume, the legal `Action`s of the seat to
move, a seat's `View`, `act` to apply an action and get the events appended, and the `Bot` protocol.
"""

from .choices import Action
from .engine import GameState, IllegalMove
from .events import Event
from .projections import View, player_view
from .rules import Rules, find_rules
from .seeds import PositionSeeds, RngPolicy, SeedStreams, SharedStream
from .table import Bot, BotError, EndlessGame, Table, WrongSeat, start_event

__version__ = "0.1.0"


def build() -> str:
    """Return which build of the engine runs: "compiled" (mypyc) or "pure" (Python)."""
    from importlib.machinery import EXTENSION_SUFFIXES

    from . import engine

    return "compiled" if engine.__file__.endswith(tuple(EXTENSION_SUFFIXES)) else "pure"


__all__ = [
    "Action", "Bot", "BotError", "EndlessGame", "Event", "build", "GameState", "IllegalMove", "PositionSeeds",
    "RngPolicy", "Rules", "SeedStreams", "SharedStream", "Table", "View", "WrongSeat", "find_rules",
    "player_view", "start_event",
]
