"""Typed commands of `buraco play`: one line of input into a `choices.Action` (pure: no I/O).

The parser only reads the words; whether the move is legal is the engine's call (`engine.check`),
so `add 99 5H` parses fine and the engine then says there is no meld 99. Cards are read leniently
(`cards.parse_cards`: lower case, `T` for 10, suit symbols). A typed move is the very `Action` a
bot would choose, which the table turns into its event (`choices.action_event`): there is no other
form of a move. `action_command` is the inverse for the moves a player types, so a list of legal
actions can be shown (and fed back) as commands.

Commands: `draw`, `pile`, `meld 3H 4H 5H`, `add 2 6H` (cards onto meld 2), `discard KD`, and the
session words `help`, `hint` (list the legal moves), `.` (play the hint's first line, the greedy
bot's choice), `show` (the table again), `dead` (a dead is taken automatically when the hand
empties; the word only explains that) and `quit`. Each has a one-letter short form (`WORDS`,
listed by `help`): `d`, `p`, `m`, `a`, `x` (discard: a cross through the card), `h`, `s`, `q`.

A refusal (`refusal_text`) names the rule broken in the player's words: a meld's cards are
checked against docs/rules.md section 3 (`broken_rule`: three cards, one wild, one suit,
consecutive ranks) and a lay-off names the team's melds, while the engine's own reasons (kept
as they are: the audit quotes them) stay for everything else.
"""

from __future__ import annotations

from collections.abc import Sequence

from buraco_events.core.cards import (
    JOKER,
    RANK,
    SUIT,
    Card,
    CardError,
    is_wild_card,
    parse_cards,
    sorted_cards,
)
from buraco_events.core.choices import Action
from buraco_events.core.gate import IllegalMove, team_of
from buraco_events.core.melds import classify
from buraco_events.core.state import GameState
from buraco_events.model.rules import Rules

#: each accepted word (and short form) -> the command it names
WORDS: dict[str, str] = {
    "draw": "draw", "d": "draw", "stock": "draw",
    "pile": "pile", "p": "pile", "take": "pile",
    "meld": "meld", "m": "meld",
    "add": "add", "a": "add",
    "discard": "discard", "x": "discard",
    ".": "best",
    "dead": "dead",
    "help": "help", "?": "help",
    "hint": "hint", "h": "hint", "moves": "hint",
    "show": "show", "s": "show", "table": "show",
    "quit": "quit", "q": "quit", "exit": "quit",
}

#: what `help` prints (at most 76 columns: the app's table at 80)
HELP = """\
commands, short form first; cards as 3H 10S JK (or 3h, T for 10, symbols)
  d  draw            draw the stock's top card
  p  pile            take the whole discard pile
  m  meld 3H 4H 5H   lay a new meld from your hand
  a  add 2 6H        add cards to your team's meld #2
  x  discard KD      discard a card, ending your turn
  .                  play the hint's first line (the bot's choice)
  h  hint            your legal moves, the bot's choice first
  s  show            the whole table and the score so far
  ?  help            this list
  q  quit            stop here; buraco play --resume LOG goes on
a dead is taken for you when your hand empties; no undo (the log only grows)"""

_NO_ARGS = ("draw", "pile", "best", "dead", "help", "hint", "show", "quit")


class CommandError(ValueError):
    """A line that is not a command; its str is a one-line reason."""


def parse_command(text: str) -> Action | str | None:
    """Return what a typed line names: a move as its `Action`, a session word (`help`, `hint`,
    `show`, `dead`, `quit`, and `best` for `.`) as that word, None for a blank line; raises
    `CommandError`."""
    words = text.split()
    if not words:
        return None
    head, args = words[0].lower(), words[1:]
    word = WORDS.get(head)
    if word is None:
        raise CommandError(f"unknown command {words[0]!r} (type help for the commands)")
    if word in _NO_ARGS:
        if args:
            raise CommandError(f"{words[0]} takes nothing after it")
        if word in ("draw", "pile"):
            return Action("draw") if word == "draw" else Action("pile")
        return word
    if word == "add":
        if len(args) < 2:
            raise CommandError("add takes a meld number, then cards: e.g. add 2 6H")
        number = args[0].removeprefix("#")
        if not number.isdigit():
            raise CommandError(f"add: {args[0]!r} is not a meld number (e.g. add 2 6H)")
        return Action("add", _cards(args[1:]), meld=int(number))
    if word == "meld":
        if not args:
            raise CommandError("meld takes the cards to lay: e.g. meld 3H 4H 5H")
        return Action("meld", _cards(args))
    if len(args) != 1:
        raise CommandError("discard takes exactly one card: e.g. discard KD")
    return Action("discard", _cards(args))


def _cards(texts: Sequence[str]) -> tuple[str, ...]:
    try:
        return parse_cards(texts)
    except CardError as exc:
        raise CommandError(str(exc)) from None


def action_words(action: Action) -> str:
    """Return an action in the words of `buraco play`'s commands, a dead as `dead N` (the words
    `buraco analyze` names a decision by)."""
    if action.kind in ("draw", "pile"):
        return action.kind
    if action.kind == "add":
        return f"add {action.meld} " + " ".join(action.cards)
    if action.kind == "dead":
        return f"dead {action.dead}"
    return f"{action.kind} " + " ".join(action.cards)


def action_command(action: Action) -> str:
    """Return the line that types `action` (the inverse of `parse_command` for player moves:
    a dead is taken for the player, never typed)."""
    if action.kind not in ("draw", "pile", "meld", "add", "discard"):
        raise ValueError(f"{action.kind} is not typed in buraco play")
    return action_words(action)


def _ways(n: int) -> str:
    return "1 way" if n == 1 else f"{n} ways"


def options_text(actions: Sequence[Action]) -> str:
    """Return the legal actions in short form, e.g. `you may: meld (2 ways), discard (9 cards)`."""
    kinds = [a.kind for a in actions]
    parts: list[str] = [k for k in ("draw", "pile") if k in kinds]
    for kind in ("meld", "add"):
        if kind in kinds:
            parts.append(f"{kind} ({_ways(kinds.count(kind))})")
    if "discard" in kinds:
        n = kinds.count("discard")
        parts.append("discard (1 card)" if n == 1 else f"discard (any of {n} cards)")
    text = "you may: " + ", ".join(parts)
    return text + ("; hint lists them" if "meld" in kinds or "add" in kinds else "")


#: the most lines `hint` prints: a screen, not a list to scroll
HINT_LINES = 10


def arranged(action: Action, rules: Rules) -> Action:
    """Return `action` with its cards in reading order: a meld in its canonical arrangement
    (`melds.classify`: a run in rank order, the wild where it stands), other cards by suit and rank."""
    if action.kind == "meld":
        shape = classify(action.cards, rules)
        if shape is not None:
            return Action("meld", shape.cards)
    if action.kind == "add":
        return Action("add", tuple(sorted_cards(action.cards)), meld=action.meld)
    return action


def hint_text(
    actions: Sequence[Action], rules: Rules | None = None, best: Action | None = None,
    limit: int = HINT_LINES,
) -> str:
    """Return the legal actions as the commands that play them: `best` first (marked), the plays
    in reading order (`arranged`, with `rules`), discards on one line, at most `limit` lines."""
    def line(a: Action) -> str:
        return action_command(arranged(a, rules) if rules is not None else a)

    lines = [line(best) + "   (the bot's choice: . plays it)"] if best is not None else []
    plays = [a for a in actions if a.kind != "discard" and a != best]
    discards = sorted_cards(a.cards[0] for a in actions if a.kind == "discard")  # as the hand reads
    if not lines and not plays and not discards:
        return "no move of yours now"
    room = limit - len(lines) - (1 if discards else 0)
    if len(plays) > room:
        room -= 1  # the last line counts what is left out
        lines += [line(a) for a in plays[:room]]
        lines.append(f"… and {len(plays) - room} more plays (any legal meld or add is accepted)")
    else:
        lines += [line(a) for a in plays]
    if discards:
        lines.append("discard " + " | ".join(discards))
    return "\n".join(lines)


#: what a player is told when an action comes in the wrong phase (the engine's phase, the action)
_WRONG_PHASE: dict[tuple[str, str], str] = {
    ("draw", "meld"): "draw first: take the stock's top card (`draw`) or the whole pile (`pile`)",
    ("draw", "add"): "draw first: take the stock's top card (`draw`) or the whole pile (`pile`)",
    ("draw", "discard"): "draw first: take the stock's top card (`draw`) or the whole pile (`pile`)",
    ("play", "draw"): "you have drawn this turn: meld, add to a meld, then discard (`discard CARD`)",
    ("play", "pile"): "you have drawn this turn: meld, add to a meld, then discard (`discard CARD`)",
}


def refusal_text(exc: IllegalMove, action: Action, state: GameState | None = None) -> str:
    """Return why the engine refused a player's `action`, in the player's words.

    A move out of its phase names what the phase asks for. With the `state` the move was tried
    in, a meld or a lay-off that breaks a rule of melds names that rule (`broken_rule`), and a
    lay-off onto a meld that is not the team's names the team's melds. Any other refusal is the
    engine's public reason (the rule in words, naming no card the player cannot see)."""
    told = _WRONG_PHASE.get((exc.phase, action.kind))
    if told is not None:  # the engine checks the phase before anything else (`engine.check`)
        return told
    if state is not None and action.kind in ("meld", "add"):
        seat = exc.player if exc.player is not None else state.to_play
        words = _play_refusal(exc.public, action, state, seat)
        if words is not None:
            return words
    return f"cannot {action.kind}: {exc.public}"


def _play_refusal(public: str, action: Action, state: GameState, seat: int) -> str | None:
    """Return a refused meld or lay-off in a player's words, or None to keep the engine's.

    Which check refused it is read from the engine's reason (its words are fixed: the audit
    quotes them); the rule is then worked out from the cards and the rules here."""
    rules = state.rules
    typed = " ".join(action.cards)
    if action.kind == "meld":
        if len(action.cards) < 3 or " is not a legal " in public:
            return f"cannot meld {typed}: {broken_rule(action.cards, rules)}"
        return None
    team = team_of(seat)
    ours = [m.id for m in state.melds if m.team == team]
    listed = ("your team's melds are " + ", ".join(f"#{i}" for i in ours) if ours
              else "your team has no meld yet (lay one with meld)")
    number = action.meld if action.meld is not None else -1
    if public.startswith("meld: there is no meld"):
        return f"cannot add: there is no meld #{number} on the table; {listed}"
    if public.endswith("belongs to the other team"):
        return f"cannot add to meld #{number}: it is the other team's, and you add only to your own; {listed}"
    if public.endswith("does not make a legal meld") and 0 <= number < len(state.melds):
        meld = state.melds[number]
        rule = broken_rule(tuple(meld.cards) + tuple(action.cards), rules)
        if rule == ONE_WILD and meld.shape.wild is not None:
            rule += f", and meld #{number} has one already ({meld.shape.wild})"
        return f"cannot add {typed} to meld #{number} ({' '.join(meld.cards)}): {rule}"
    return None


#: the rule of one wild per meld (docs/rules.md 3.1, 3.2), in a player's words
ONE_WILD = "a meld holds one wild card at most (a joker or a 2)"


def broken_rule(cards: Sequence[Card], rules: Rules) -> str:
    """Return which rule of melds (docs/rules.md section 3) `cards` break, in a player's words:
    three cards at least, one wild at most, not only wilds, one suit (or, where `rules.sets`,
    one rank), each rank once, consecutive ranks. For cards that make no meld (`classify`)."""
    if len(cards) < 3:
        return "a meld needs at least three cards"
    naturals = [c for c in cards if not is_wild_card(c)]
    twos = [c for c in cards if c != JOKER and is_wild_card(c)]
    suits = {SUIT[c] for c in naturals}
    # a 2 of a run's own suit may stand in its own place as a natural card: one of them is no wild
    own = 1 if len(suits) == 1 and any(SUIT[c] in suits for c in twos) else 0
    if not naturals:
        return "a meld cannot be only wild cards (jokers and 2s)"
    if cards.count(JOKER) + len(twos) - own > 1:
        return ONE_WILD
    ranks = [RANK[c] for c in naturals]
    if len(suits) > 1:
        if rules.sets and len(set(ranks)) > 1:
            return "a run is one suit and a set one rank: these cards are neither"
        if not rules.sets and len(set(ranks)) == 1:
            return "this variant has no sets: a meld is a run of one suit"
        if not rules.sets:
            return "a run is all one suit"
        return f"these cards make no legal {'run or set' if rules.sets else 'run'}"
    aces = ranks.count(1)
    if any(ranks.count(r) > 1 for r in set(ranks) if r != 1) or aces > (2 if rules.ace_to_ace else 1):
        return "a run holds each rank once"
    if len(naturals) + own < 2:
        return "a run needs at least two natural cards"
    if own and cards.count(JOKER) + len(twos) > 1:
        # the 2 of the run's suit fits nowhere as itself, so it would be a second wild
        return ONE_WILD
    return "a run needs consecutive ranks (its one wild may fill one gap)"


__all__ = [
    "HELP", "HINT_LINES", "ONE_WILD", "WORDS", "CommandError", "action_command", "action_words",
    "arranged",
    "broken_rule", "hint_text", "options_text", "parse_command", "refusal_text",
]
