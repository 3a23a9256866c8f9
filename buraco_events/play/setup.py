"""Who plays a game of `buraco play`: the setup note, the seats' names and bots, the game's id.

The setup note: the line after `game_started` is a `note` by "buraco play" (`NOTE_BY`) holding
the setup as JSON, `{"human": 0, "bots": ["greedy"], "seed": 7, "commit": true}` (`bots` names
the bot of each other seat, in seat order; `commit`: the deals are committed). `Setup.note`
writes it, `Setup.from_note` reads it back; it is not shown to the player. A branch played by
hand has its own note right after its `branched` line, without a seed (`Setup.branch_note`).

A game's id is `play-<variant>-<n>p-s<seed>` (`play_game_id`). The messages of `SetupError` name
the `buraco play` option at fault (`--seat: ...`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import RenderableType

from buraco_events.bots.registry import Bot, bot_by_name, bot_spec, share_memory
from buraco_events.model.events import Event, Note

#: the `note.by` of the setup line
#: where the output of `buraco play` goes (the terminal draws it)
Say = Callable[[RenderableType], None]

NOTE_BY = "buraco play"
#: the player's name in the log unless `--name` gives one
DEFAULT_NAME = "you"
#: the bots' names in the log, by seat (one that clashes with the player's gets its seat number)
BOT_NAMES = ("Ana", "Bruno", "Carla", "Davi")
#: the longest `--name`
MAX_NAME = 40


class SetupError(ValueError):
    """A game that cannot be started or resumed; its str is one line, `exit_code` the commands'
    exit code (2: bad options, or a log that is not a game of buraco play; 1: a problem in the log)."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True, slots=True)
class Setup:
    """What a session needs beyond the events: the human's seat, the bots, the seed."""

    human: int
    bots: tuple[str, ...]  # bot name of each other seat, in seat order
    seed: int
    commit: bool = False  # every deal is committed (a note without `commit`: none is)

    def note(self) -> Note:
        """Return the note that records the setup (seq 1, right after `game_started`)."""
        doc: dict[str, object] = {"human": self.human, "bots": list(self.bots), "seed": self.seed}
        if self.commit:
            doc["commit"] = True
        return Note(seq=1, by=NOTE_BY, text=json.dumps(doc))

    def branch_note(self, seq: int) -> Note:
        """Return the note that records who plays a branch played by hand (right after its
        `branched` line): the human's seat and the bots, no seed (the branch's chance is the
        seed of its `branched` line)."""
        return Note(seq=seq, by=NOTE_BY, text=json.dumps({"human": self.human, "bots": list(self.bots)}))

    @staticmethod
    def from_note(event: Event, n_players: int) -> Setup:
        """Return the setup a log's setup note records (at seq 1, or a branch's after its
        `branched` line, which has no seed); raises `SetupError` if it is not one."""
        if not isinstance(event, Note) or event.by != NOTE_BY:
            raise SetupError(f"seq 1 is not the {NOTE_BY!r} setup note: this log was not started by buraco play")
        try:
            doc = json.loads(event.text)
            seed = int(doc["seed"]) if event.seq == 1 else 0
            setup = Setup(int(doc["human"]), tuple(str(b) for b in doc["bots"]), seed,
                          doc.get("commit") is True)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise SetupError(f"the setup note at seq {event.seq} does not read: {exc}") from None
        if not 0 <= setup.human < n_players or len(setup.bots) != n_players - 1:
            raise SetupError(f"the setup note at seq {event.seq} does not fit a {n_players}-player game")
        return setup

    def bot_seats(self, n_players: int) -> dict[int, Bot]:
        """Return a new bot for each seat but the human's, the greedy ones sharing one game
        memory (`bots.share_memory`); raises ValueError for an unknown bot."""
        seats = [s for s in range(n_players) if s != self.human]
        bots = {s: bot_by_name(name) for s, name in zip(seats, self.bots, strict=True)}
        share_memory(bots.values())
        return bots



def bot_kinds(bots: list[str], players: int) -> list[str]:
    """Return the bot of each seat but the human's from `--bots`: one name for them all, or one
    per other seat; a `module:Class` is imported from `sys.path` (`bots.bot_spec`). Raises
    `SetupError` for a count that fits neither."""
    kinds = [bot_spec(b) for b in bots]
    if len(kinds) == 1:
        kinds *= players - 1
    if len(kinds) != players - 1:
        raise SetupError(f"--bots: give 1 bot name or one per other seat ({players - 1}), got {len(bots)}")
    return kinds


def play_game_id(variant: str, players: int, seed: int) -> str:
    """Return the id of the game a seed starts (the default log is `buraco-<id>.jsonl`)."""
    return f"play-{variant}-{players}p-s{seed}"



def bot_names(human: str, players: int, seat: int) -> list[str]:
    """Return the names of the seats in order: `human` at `seat`, the bots from `BOT_NAMES`."""
    names = []
    for s in range(players):
        bot = BOT_NAMES[s] if BOT_NAMES[s].casefold() != human.casefold() else f"{BOT_NAMES[s]}-{s}"
        names.append(human if s == seat else bot)
    return names

