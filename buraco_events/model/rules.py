"""Rules as data: every parameter of the rules (docs/rules.md), the seven presets and their aliases.

Glossary (one word per concept across the code):
- *run*: a meld of one suit in sequence; *set*: a meld of one rank (only where `sets` is on).
- *canasta*: a meld of 7+ cards (burraco in Italy); kinds ace_to_ace, royal, clean, dirty, and the
  club kinds semiclean, super, super_dirty, royal_dirty, ace_to_ace_dirty (each `bonus_<kind>`).
- *morto* / *dead*: one of the two 11-card extra hands; we say `dead` in code, as the log format does.
- *wild*: a joker, or a 2 that does not stand in its own place.
- *lay-off*: cards added to one of the team's melds: `laid_off` in logs (the contract), `lay_off` /
  `lay_off` in code; `add` is only the word a player types and the `Action` kind that hints show.
- *type* of a meld: run or set; *kind*: its canasta kind (`melds.MeldType`, `melds.CanastaKind`).
- *pile*: the discard pile; *stock*: the face-down draw pile.
- *closing*: going out, which ends the hand (RULES 6).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Final, Literal

import msgspec
from msgspec import UNSET, UnsetType, field

from .cards import HAND_SIZE

PileKind = Literal["open", "closed"]
StockEnd = Literal["refill", "two_left"]
UnusedDead = Literal["penalty", "count"]
PileTopUse = Literal["next_play", "turn_end"]
DeadOwner = Literal["first", "team"]
Refill = Literal["one", "all"]

#: how many play Buraco (RULES 1): two, each a team, or four in two fixed teams
PLAYER_COUNTS: tuple[int, ...] = (2, 4)


class PlayerCountError(ValueError):
    """A number of players Buraco is not played by."""


def check_players(n: int) -> None:
    """Raise `PlayerCountError` unless `n` players may sit at a table (RULES 1: 2 or 4)."""
    if n not in PLAYER_COUNTS:
        raise PlayerCountError(f"Buraco is for 2 or 4 players, got {n}")


class Rules(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The full rule set of one variant; goes into each game's first event."""

    jokers: int = 4
    upcard: bool = False
    pile: PileKind = "closed"
    wild_top_new_meld_only: bool = True
    no_single_card_return: bool = False
    sets: bool = False
    one_set_per_rank: bool = False
    ace_to_ace: bool = True
    bonus_royal: int = 500
    bonus_ace_to_ace: int = 1000
    bonus_clean: int = 200
    bonus_dirty: int = 100
    royal_in_one_turn: bool = False
    wild_goes_low: bool = False
    two_value: int = 10
    joker_value: int = 20
    close_needs_clean: bool = True
    close_by_discard: bool = False
    no_wild_last_discard: bool = False
    stock_end: StockEnd = "refill"
    unused_dead: UnusedDead = "penalty"
    close_bonus: int = 100
    no_dead_penalty: int = 100
    unused_dead_penalty: int = 100
    target: int = 0
    # added after the first release: the defaults are the behaviour from before they existed, so
    # a logged `rules` object without them keeps its meaning (RULES 9)
    pile_top_use: PileTopUse = "next_play"
    dead_owner: DeadOwner = "first"
    dead_by_discard: bool = False
    refill: Refill = "one"
    stalemate_rounds: Annotated[int, msgspec.Meta(ge=0)] = 0
    # the club and tournament parameters (RULES 3.5, 7, 8): unset unless given, and an unset one is
    # left out of the encoded rules, so a game played without them is written byte for byte as
    # before; read them by their public names (the properties below), never by these fields
    bonus_semiclean_: Annotated[int, msgspec.Meta(ge=0)] | UnsetType = field(default=UNSET, name="bonus_semiclean")
    bonus_super_: Annotated[int, msgspec.Meta(ge=0)] | UnsetType = field(default=UNSET, name="bonus_super")
    bonus_super_dirty_: Annotated[int, msgspec.Meta(ge=0)] | UnsetType = field(
        default=UNSET, name="bonus_super_dirty")
    bonus_royal_dirty_: Annotated[int, msgspec.Meta(ge=0)] | UnsetType = field(
        default=UNSET, name="bonus_royal_dirty")
    bonus_ace_to_ace_dirty_: Annotated[int, msgspec.Meta(ge=0)] | UnsetType = field(
        default=UNSET, name="bonus_ace_to_ace_dirty")
    dead_penalty_after_refill_: bool | UnsetType = field(default=UNSET, name="dead_penalty_after_refill")
    hands_per_game_: Annotated[int, msgspec.Meta(ge=0)] | UnsetType = field(default=UNSET, name="hands_per_game")

    @property
    def bonus_semiclean(self) -> int:
        """A semi-clean canasta's bonus (RULES 3.5); 0: no such kind."""
        v = self.bonus_semiclean_
        return 0 if isinstance(v, UnsetType) else v

    @property
    def bonus_super(self) -> int:
        """A super canasta's bonus (all 8 naturals of a rank, no wild); 0: no such kind."""
        v = self.bonus_super_
        return 0 if isinstance(v, UnsetType) else v

    @property
    def bonus_super_dirty(self) -> int:
        """A super dirty canasta's bonus (all 8 naturals of a rank and a wild); 0: no such kind."""
        v = self.bonus_super_dirty_
        return 0 if isinstance(v, UnsetType) else v

    @property
    def bonus_royal_dirty(self) -> int:
        """A dirty royal canasta's bonus (a royal with one wild standing in); 0: no such kind."""
        v = self.bonus_royal_dirty_
        return 0 if isinstance(v, UnsetType) else v

    @property
    def bonus_ace_to_ace_dirty(self) -> int:
        """A dirty ace-to-ace canasta's bonus (an ace-to-ace with one wild standing in); 0: none."""
        v = self.bonus_ace_to_ace_dirty_
        return 0 if isinstance(v, UnsetType) else v

    @property
    def dead_penalty_after_refill(self) -> bool:
        """Whether a team pays the no-dead penalty when the deads had become the stock (RULES 7)."""
        v = self.dead_penalty_after_refill_
        return True if isinstance(v, UnsetType) else v

    @property
    def hands_per_game(self) -> int:
        """The hands a game lasts (RULES 8); 0: play to `target`."""
        v = self.hands_per_game_
        return 0 if isinstance(v, UnsetType) else v

    @property
    def deck_size(self) -> int:
        """Return the number of cards in the deck (108 or 104)."""
        return 104 + self.jokers

    def stock_size(self, n_players: int) -> int:
        """Return the stock size right after the deal (RULES 1)."""
        return self.deck_size - HAND_SIZE * (n_players + 2) - (1 if self.upcard else 0)


#: every parameter by its public name (the log's, `--rules`'), in order
PARAMETERS: Final[tuple[str, ...]] = Rules.__struct_encode_fields__
#: the club and tournament parameters: public name -> (field, value when unset) (RULES 9)
CLUB_PARAMETERS: Final[dict[str, tuple[str, Any]]] = {
    "bonus_semiclean": ("bonus_semiclean_", 0), "bonus_super": ("bonus_super_", 0),
    "bonus_super_dirty": ("bonus_super_dirty_", 0), "bonus_royal_dirty": ("bonus_royal_dirty_", 0),
    "bonus_ace_to_ace_dirty": ("bonus_ace_to_ace_dirty_", 0),
    "dead_penalty_after_refill": ("dead_penalty_after_refill_", True), "hands_per_game": ("hands_per_game_", 0),
}


def normal_rules(rules: Rules) -> Rules:
    """Return the rules with every club parameter given at its unset value left unset: equal
    rules are then one value, and a game played with them is written as without them."""
    back = {f: UNSET for f, unset in CLUB_PARAMETERS.values()
            if type(getattr(rules, f)) is type(unset) and getattr(rules, f) == unset}
    return msgspec.structs.replace(rules, **back) if back else rules


def read_rules(obj: Mapping[str, Any], strict: bool = True) -> Rules:
    """Return the rules of a mapping by public names (a logged rules object, a `--json` print),
    normalised (`normal_rules`); raises `msgspec.ValidationError` naming the field at fault."""
    return normal_rules(msgspec.convert(dict(obj), Rules, strict=strict))


_BASE = Rules()
#: seeds 002/003 (the five modes of the Turkish and Portuguese texts): a match to 2000, and the
#: untaken deads "are integrated into the stock" all at once
_FIVE_MODES = msgspec.structs.replace(_BASE, refill="all", target=2000)
_OPEN = msgspec.structs.replace(
    _FIVE_MODES, pile="open", wild_top_new_meld_only=False, no_single_card_return=True
)

_BURRACO = msgspec.structs.replace(
    _OPEN, upcard=True, sets=True, one_set_per_rank=True, ace_to_ace=False, bonus_royal=0,
    bonus_ace_to_ace=0, wild_goes_low=True, two_value=20, joker_value=30,
    close_needs_clean=False, close_by_discard=True, no_wild_last_discard=True,
    stock_end="two_left", unused_dead="count", refill="one", stalemate_rounds=2,
)

#: the presets of RULES 9, each following its seed text (the seed is named beside it)
PRESETS: dict[str, Rules] = {
    # seed 001 (Italian STBL): the closed pile's top card may be used any time before the turn ends
    "stbl": msgspec.structs.replace(_BASE, pile_top_use="turn_end"),
    # seeds 002/003, STCL Fechado: the top card in the very next play, every dead refills at once
    "stcl": _FIVE_MODES,
    # seed 000 (Polish): each dead belongs to one team
    "stbl-pl": msgspec.structs.replace(
        _BASE, royal_in_one_turn=True, wild_goes_low=True, joker_value=50, dead_owner="team"
    ),
    "aberto": msgspec.structs.replace(_OPEN, jokers=0, joker_value=0),
    # seed 003's Dirty Open: "to go out or close, a card must be discarded"
    "aberto-sujo": msgspec.structs.replace(
        _OPEN, sets=True, ace_to_ace=False, bonus_ace_to_ace=0, two_value=20, joker_value=30,
        close_needs_clean=False, close_by_discard=True, unused_dead="count", dead_by_discard=True,
    ),
    "fechado": msgspec.structs.replace(_FIVE_MODES, sets=True),
    "fechado-sujo": msgspec.structs.replace(_FIVE_MODES, sets=True, close_needs_clean=False),
    # seed 004 (Hungarian text of Italian Burraco): a hand of mere pile exchanges may end
    "burraco": _BURRACO,
    # Italian Burraco in a tournament turn of 4 hands (RULES 8, 9)
    "burraco-torneo": msgspec.structs.replace(_BURRACO, hands_per_game_=4),
}

#: the seed text each preset follows (RULES 9), for `buraco rules` and the docs
SEEDS: dict[str, str] = {
    "stbl": "001 (Italian, Burraco chiuso STBL)",
    "stcl": "002/003 (Turkish and Portuguese, STCL Fechado)",
    "stbl-pl": "000 (Polish, Buraco Fechado)",
    "aberto": "002/003 (Aberto)",
    "aberto-sujo": "002/003 (Aberto sujo / Dirty Open)",
    "fechado": "002/003 (Fechado)",
    "fechado-sujo": "002/003 (Fechado sujo)",
    "burraco": "004 (Hungarian, Italian Burraco)",
    "burraco-torneo": "004 (Italian Burraco, a tournament turn of 4 hands)",
}

ALIASES: dict[str, str] = {"fechado-stcl": "stcl", "burraco-it": "burraco"}


class UnknownVariant(ValueError):
    """A variant name that is neither a preset nor an alias."""


def canonical_variant(name: str) -> str:
    """Return the preset name for a preset or alias name (case-insensitive)."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in PRESETS:
        valid = ", ".join(list(PRESETS) + list(ALIASES))
        raise UnknownVariant(f"unknown variant {name!r}; valid presets: {valid}")
    return key


def find_rules(name: str, **overrides: Any) -> Rules:
    """Return a preset's rules, by name or alias, with `overrides` applied on top."""
    rules = PRESETS[canonical_variant(name)]
    return rules_with(rules, overrides) if overrides else rules


def rules_with(rules: Rules, overrides: Mapping[str, Any]) -> Rules:
    """Return `rules` with some parameters (by public name) changed, validated."""
    unknown = set(overrides) - set(PARAMETERS)
    if unknown:
        raise ValueError(f"unknown rule parameter(s): {', '.join(sorted(unknown))}")
    return read_rules(msgspec.to_builtins(rules) | dict(overrides))


def parse_overrides(items: Iterable[str]) -> dict[str, Any]:
    """Return the parameters given as `name=value` texts (`--rules`; several may share one text,
    comma-separated), each value read as its parameter's type (a flag: yes/no, true/false).

    Raises `ValueError` naming the text at fault: an unknown name, or a value its parameter
    cannot take.
    """
    out: dict[str, Any] = {}
    for item in items:
        for part in item.split(","):
            name, eq, text = part.partition("=")
            name, text = name.strip(), text.strip()
            if not eq or not name:
                raise ValueError(f"{part.strip()!r}: give a rule as name=value, e.g. bonus_semiclean=150")
            if name not in PARAMETERS:
                raise ValueError(f"{name}: no such rule parameter; `buraco rules` lists them")
            value: Any = {"yes": "true", "no": "false"}.get(text.lower(), text)
            try:
                out[name] = getattr(msgspec.convert({name: value}, Rules, strict=False), name)
            except msgspec.ValidationError as exc:
                raise ValueError(f"{name}={text}: {exc}") from None
    return out


def rules_dict(rules: Rules) -> dict[str, Any]:
    """Return every parameter's value (by public name, unset ones at their value) in order."""
    return {name: getattr(rules, name) for name in PARAMETERS}


def _yes_no(yes: str, no: str) -> Any:
    return lambda v: yes if v else no


#: each parameter in one plain sentence, as a player would read it, for the value it has
_EXPLAIN: dict[str, Any] = {
    "jokers": lambda v: f"The deck holds two 52-card packs and {v} jokers ({104 + v} cards).",
    "upcard": _yes_no("One card starts the discard pile face up.",
                      "The discard pile starts empty; the first discard starts it."),
    "pile": lambda v: (
        "The discard pile is open: anyone may take it, and all its cards are visible."
        if v == "open" else
        "The discard pile is closed: only its top card shows, and it may be taken only if that "
        "card can be melded at once with cards held before the take."),
    "wild_top_new_meld_only": _yes_no("A wild on top of a closed pile may only start a new meld.",
                                      "A wild on top of the pile may be used like any card."),
    "no_single_card_return": _yes_no(
        "A player who took a one-card pile may not discard that same card in the same turn.",
        "A card taken from the pile may be discarded again at once."),
    "sets": _yes_no("Sets (three or more cards of one rank) are allowed besides runs.",
                    "Only runs of one suit may be melded; there are no sets."),
    "one_set_per_rank": _yes_no("A team may hold only one set of each rank.",
                                "A team may hold several sets of the same rank."),
    "ace_to_ace": _yes_no("A run may go from ace to ace (A..K..A, 14 cards).",
                          "A run holds at most one natural ace."),
    "bonus_royal": lambda v: f"A royal canasta (13 clean cards, each rank once) scores {v}." if v
    else "There is no royal canasta bonus.",
    "bonus_ace_to_ace": lambda v: f"An ace-to-ace canasta (14 clean cards) scores {v}." if v
    else "There is no ace-to-ace canasta bonus.",
    "bonus_clean": lambda v: f"A clean canasta (7+ cards, no wild) scores {v}.",
    "bonus_dirty": lambda v: f"A dirty canasta (7+ cards with a wild) scores {v}.",
    "royal_in_one_turn": _yes_no(
        "Royal and ace-to-ace bonuses count only if the meld was laid complete in one turn.",
        "Royal and ace-to-ace bonuses count however many turns the meld took."),
    "wild_goes_low": _yes_no("A free wild sits at the low end of a run.",
                             "A free wild sits at the high end of a run."),
    "two_value": lambda v: f"A 2 is worth {v} points.",
    "joker_value": lambda v: f"A joker is worth {v} points.",
    "close_needs_clean": _yes_no("Closing needs a clean canasta.", "Closing needs any canasta."),
    "close_by_discard": _yes_no("Only a discard may close the hand.",
                                "A hand closes by a discard or by melding the last card."),
    "no_wild_last_discard": _yes_no("The closing discard may not be a wild.",
                                    "The closing discard may be any card."),
    "stock_end": lambda v: (
        "When the stock runs out, untaken deads refill it; with none left the hand ends."
        if v == "refill" else
        "When a draw leaves 2 cards in the stock, that player finishes the turn and the hand ends."),
    "unused_dead": lambda v: (
        "A dead taken but never played from costs the unused dead penalty; its cards are not counted."
        if v == "penalty" else "A dead taken but never played from counts as cards left in hand."),
    "close_bonus": lambda v: f"Closing scores {v}.",
    "no_dead_penalty": lambda v: f"A team that took no dead loses {v}.",
    "unused_dead_penalty": lambda v: f"The unused dead penalty is {v} (when unused_dead is penalty).",
    "target": lambda v: f"The match is played to {v} points, hand after hand." if v
    else "The match is a single hand.",
    "pile_top_use": lambda v: (
        "The top card of a closed pile must go into the very next play, with cards held before "
        "the take; the rest of the pile joins the hand after that play."
        if v == "next_play" else
        "The whole closed pile joins the hand at the take, and its top card must be melded, with "
        "any cards, before the turn ends."),
    "dead_owner": lambda v: (
        "The first player of a team to run out of cards takes either untaken dead."
        if v == "first" else "Each team has its own dead: team 0 takes dead 0, team 1 dead 1."),
    "dead_by_discard": _yes_no(
        "A hand may only empty by a discard, so every dead is taken after a discard.",
        "A hand may empty by a play (the dead is taken at once) or by a discard."),
    "refill": lambda v: (
        "When the stock runs out, one untaken dead becomes the new stock."
        if v == "one" else "When the stock runs out, every untaken dead joins it at once, dead 0 on top."),
    "stalemate_rounds": lambda v: (
        f"A hand ends, without a closing bonus, after {v} rounds with no stock draw, meld or lay-off."
        if v else "A hand never ends for lack of progress."),
    "bonus_semiclean": lambda v: (
        f"A semi-clean canasta (one wild at an end of a run, or in a set, over 7+ naturals) scores {v}."
        if v else "There is no semi-clean canasta: one with a wild is dirty."),
    "bonus_super": lambda v: f"A super canasta (a set of all 8 naturals of its rank) scores {v}." if v
    else "There is no super canasta: a set of all 8 naturals is clean.",
    "bonus_super_dirty": lambda v: f"A super dirty canasta (all 8 naturals of a rank and a wild) scores {v}."
    if v else "There is no super dirty canasta.",
    "bonus_royal_dirty": lambda v: f"A dirty royal canasta (a royal with one wild standing in) scores {v}."
    if v else "There is no dirty royal canasta.",
    "bonus_ace_to_ace_dirty": lambda v: (
        f"A dirty ace-to-ace canasta (an ace-to-ace with one wild standing in) scores {v}."
        if v else "There is no dirty ace-to-ace canasta."),
    "dead_penalty_after_refill": _yes_no(
        "A team that took no dead loses the penalty even when the deads had become the stock.",
        "A team that took no dead is spared the penalty when the deads had become the stock before "
        "it could take one."),
    "hands_per_game": lambda v: (
        f"The game lasts {v} hands whatever the totals (target ignored); equal totals are a tie."
        if v else "The game is played to the target."),
}


def explain(rules: Rules, name: str) -> str:
    """Return one plain sentence saying what parameter `name` means at its value in `rules`."""
    if name == "target" and rules.hands_per_game:  # RULES 8: a tournament turn ignores it
        return f"The target ({rules.target}) is ignored: the game lasts {rules.hands_per_game} hands."
    return str(_EXPLAIN[name](getattr(rules, name)))


def presets_markdown() -> str:
    """Return the preset table of RULES 9 as Markdown, every parameter of every preset."""

    def cell(value: Any) -> str:
        return ("yes" if value else "no") if isinstance(value, bool) else str(value)

    lines = [
        "| parameter | " + " | ".join(f"`{n}`" for n in PRESETS) + " |",
        "|---|" + "---|" * len(PRESETS),
        "| seed | " + " | ".join(SEEDS[n].split(" ")[0] for n in PRESETS) + " |",
    ]
    for name in PARAMETERS:
        lines.append(f"| `{name}` | " + " | ".join(cell(getattr(r, name)) for r in PRESETS.values()) + " |")
    return "\n".join(lines) + "\n"
