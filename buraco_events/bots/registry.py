"""The built-in bots by name, the random bot, and the pure game loop of bots in every seat.

A bot (the protocol `table.Bot`) gets `projections.player_view(state, seat, scores=False)`, the
list of `choices.Action`s the engine offers, the rules and an injected `random.Random`; it returns
one of the actions. Bots never decide what is legal (the engine does); they only rank the
choices. `RandomBot` lives here; the one-ply `GreedyBot` and its rating of plays live in `greedy`.
`bot_by_name` is the registry the command line reads (a built-in name, or a user's
`module:Class`), and `run_game` runs a whole game on a `table.Table` with bots in every seat and
`simulate`'s rng scheme (`seeds.SeedStreams`).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Iterable, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from buraco_events.core.choices import Action, Choices
from buraco_events.core.commit import seeded_salts
from buraco_events.core.seeds import SeedStreams
from buraco_events.core.state import GameState
from buraco_events.core.table import Bot, EndlessGame, Table
from buraco_events.model.events import Event
from buraco_events.model.rules import Rules, check_players
from buraco_events.model.views import View

from .greedy import GreedyBot, TableMemory

# `Bot` (the protocol every player here follows) and `EndlessGame` are the table's: re-exported
__all__ = [
    "BOT_NAMES", "Bot", "EndlessGame", "GreedyBot", "RandomBot", "bot_by_name", "bot_spec", "run_game",
    "share_memory", "table_bots",
]


@mypyc_attr(allow_interpreted_subclasses=True)  # users' bots may build on it
class RandomBot:
    """Picks uniformly among the legal actions, preferring plays with probability `play_bias`.

    With `play_bias` = p, when at least one meld, lay-off or dead is on offer, the bot picks
    uniformly among those with probability p, and uniformly among all actions otherwise. Pure
    uniform play (p = 0) also ends its hands, only later (about 115 turns a 2-player hand against
    90 with the default 0.5, measured over the seven presets), so the bias just keeps hands short.
    """

    name = "random"

    def __init__(self, play_bias: float = 0.5):
        self.play_bias = play_bias

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        """Return a uniformly random action (a play with probability `play_bias` when any)."""
        if rng.random() < self.play_bias:
            plays = [a for a in actions if a.kind in _PLAY_KINDS]
            if plays:
                return rng.choice(plays)
        return rng.choice(actions)

    def decide(self, view: View, choices: Choices, rules: Rules, rng: random.Random) -> Action:
        """`choose` on the table's lazy offer: the same action from the same rng, and the discards
        are listed only when the bot does not pick a play."""
        if rng.random() < self.play_bias:
            # the plays come first among the actions (a dead phase offers only deads)
            plays = choices.plays() or choices.deads()
            if plays:
                return rng.choice(plays)[0]
        return rng.choice(choices.all())[0]


_PLAY_KINDS: Final = frozenset(("meld", "add", "dead"))


_BOTS: Final[dict[str, type[RandomBot] | type[GreedyBot]]] = {"random": RandomBot, "greedy": GreedyBot}
#: the expert bot decides by the analysis's evaluation (`analysis.expert`), a service built on the
#: rules: the rules import nothing above them, so it is found as a user's bot is, by its module's
#: name, when asked for
EXPERT: Final = "expert"
_EXPERT_MODULE: Final = "buraco_events.analysis.expert"
BOT_NAMES: Final[tuple[str, ...]] = (*_BOTS, EXPERT)
#: the cheating bots (`fairplay.peek`), for calibrating the fair-play check: named by the oracle
#: they peek at (`peek:partner`, `peek:hands`, `peek:stock`), never among `BOT_NAMES` (a server
#: seats none of them)
PEEK: Final = "peek"
_PEEK_MODULE: Final = "buraco_events.fairplay.peek"


def bot_spec(name: str) -> str:
    """Return a bot name as given on a command line, normalised: a built-in name in lower case,
    a `module:Class` spec as written (module and class names are case-sensitive)."""
    name = name.strip()
    return name if ":" in name else name.lower()


def bot_by_name(name: str) -> Bot:
    """Return a new bot: a built-in by name ('random', 'greedy', 'expert' or 'expert:samples=N')
    a cheating 'peek:ORACLE[:rate=R]' (`fairplay.peek`), or a user's `module:Class`.

    A `module:Class` spec imports `module`, instantiates `Class` with no arguments and checks it
    follows the bot protocol (`docs/api.md`): a string `name` and a callable `choose`. Raises
    ValueError with one line naming what is wrong.
    """
    spec = bot_spec(name)
    if spec.partition(":")[0].strip().lower() == EXPERT:
        expert: Bot = importlib.import_module(_EXPERT_MODULE).expert_from_spec(spec)
        return expert
    if spec.partition(":")[0].strip().lower() == PEEK:
        cheat: Bot = importlib.import_module(_PEEK_MODULE).peek_from_spec(spec)
        return cheat
    if ":" in spec:
        return _user_bot(spec)
    cls = _BOTS.get(spec)
    if cls is None:
        raise ValueError(f"unknown bot {name!r}; valid bots: {', '.join(BOT_NAMES)}, or module:Class")
    return cls()


def share_memory(bots: Iterable[object]) -> None:
    """Give the greedy bots among `bots`, the seats of one table, one game memory
    (`greedy.TableMemory`), so that a play rated or a meld indexed for one seat serves the
    others; a greedy bot that has a memory already keeps it."""
    shared = TableMemory()
    for bot in bots:
        if isinstance(bot, GreedyBot):
            bot.join(shared)


def table_bots(names: Sequence[str]) -> list[Bot]:
    """Return a new bot per name (`bot_by_name`) for the seats of one table, which play one game
    at a time: the greedy ones share their game's memory (`share_memory`)."""
    bots = [bot_by_name(name) for name in names]
    share_memory(bots)
    return bots


def _user_bot(spec: str) -> Bot:
    """Return an instance of the bot class a `module:Class` spec names (see `bot_by_name`)."""
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise ValueError(f"bot {spec!r}: write module:Class, e.g. mybots:CautiousBot")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"bot {spec!r}: cannot import module {module_name!r} ({exc})") from None
    except Exception as exc:  # the user's module failed while loading: say so in one line
        raise ValueError(f"bot {spec!r}: importing {module_name!r} failed: {type(exc).__name__}: {exc}") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise ValueError(f"bot {spec!r}: module {module_name!r} has no class {class_name!r}")
    try:
        bot = cls()
    except Exception as exc:
        raise ValueError(f"bot {spec!r}: {class_name}() failed: {type(exc).__name__}: {exc}") from None
    if not isinstance(getattr(bot, "name", None), str) or not callable(getattr(bot, "choose", None)):
        raise ValueError(f"bot {spec!r}: not a bot: it needs a string `name` and a method "
                         "`choose(view, actions, rules, rng)` (see docs/api.md)")
    return bot


# -- the game loop ---------------------------------------------------------------------------


def run_game(
    variant: str,
    players: int,
    seed: int,
    bots: Sequence[Bot],
    game_id: str,
    target: int | None = None,
    overrides: dict[str, Any] | None = None,
    commit: bool = False,
) -> tuple[list[Event], GameState]:
    """Play one game deterministically from `seed`; return its (unsealed) events and the final state.

    `bots` has one bot per seat; `target` (0 = a single hand) and `overrides` change the preset's
    rules; chance follows `seeds.SeedStreams(seed)`. With `commit`, every deal carries a
    commitment whose salt comes from the seed (`seeded_salts`). Greedy bots without a memory of
    their own share one (`share_memory`). Raises `table.EndlessGame` past the safety bounds,
    which real play never reaches.
    """
    check_players(players)
    if len(bots) != players:
        raise ValueError(f"one bot per seat: {players} seats, {len(bots)} bots")
    share_memory(bots)
    events: list[Event] = []
    names = [f"{b.name}-{s}" for s, b in enumerate(bots)]
    table = Table.start(variant, names, game_id=game_id, seats=bots, rng=SeedStreams(seed),
                        target=target, overrides=overrides, record=events.append,
                        salts=seeded_salts(seed) if commit else None)
    return events, table.run()
