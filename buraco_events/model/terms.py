"""The game's words as types, shared by the public formats and the rules: a meld's type and
canasta kind, a game's phases, what became of a dead and how it is taken.

Literal types, so that mypy checks every comparison against them; the rules (`core`) give them
their meaning (`core.melds`, the phase machine `core.engine.FLOW`).
"""

from __future__ import annotations

from typing import Final, Literal

#: a meld's type: a run of one suit or a set of one rank (RULES 3)
MeldType = Literal["run", "set"]
#: the canasta kinds a meld of seven cards or more scores as (RULES 3.5): the four of every
#: variant, best first, then the club and tournament kinds, which exist only where their bonus
#: (`bonus_<kind>`) is set
CanastaKind = Literal[
    "ace_to_ace", "royal", "clean", "dirty",
    "ace_to_ace_dirty", "royal_dirty", "super", "super_dirty", "semiclean",
]
#: each kind in words, as people read it (`semiclean`: a semi-clean canasta)
KIND_WORDS: Final[dict[CanastaKind, str]] = {
    "ace_to_ace": "ace-to-ace canasta", "royal": "royal canasta", "clean": "clean canasta",
    "dirty": "dirty canasta", "ace_to_ace_dirty": "dirty ace-to-ace canasta",
    "royal_dirty": "dirty royal canasta", "super": "super canasta", "super_dirty": "super dirty canasta",
    "semiclean": "semi-clean canasta",
}
#: the phases of a game: start -> deal -> (draw -> play -> [dead])* -> hand_end -> deal ... ->
#: game_end -> over
Phase = Literal["start", "deal", "draw", "play", "dead", "hand_end", "game_end", "over"]
#: what became of a dead that is gone: a player took it (RULES 4) or it refilled the stock (RULES 5)
DeadFate = Literal["taken", "stock"]
#: how a dead is being taken: right after a play emptied the hand, or after a discard (RULES 4)
DeadMode = Literal["direct", "indirect"]


def kind_phrase(kind: CanastaKind | None) -> str:
    """Return a canasta kind as a phrase with its article: `a semi-clean canasta`."""
    if kind is None:
        return "no canasta"
    words = KIND_WORDS[kind]
    return ("an " if words[0] in "aeiou" else "a ") + words
