"""Typed commands of `buraco play`: one line of input into a `choices.Action` (pure: no I/O).

The parser only reads the words; whether the move is legal is the engine's call (`engine.check`),
so `add 99 5H` parses fine and the engine then says there is no meld 99. Cards are read leniently
(`cards.parse_cards`: lower case, `T` for 10, suit symbols). A typed move is the very `Action` a
bot would choose, which the table turns into its event (`choices.action_event`): there is no other
form of a move. `action_command` is the inverse for the moves a player types, so a list of legal
actions can be shown (and fed back) as commands.

Commands: `draw`, `pile`, `meld 3H 4H 5H`, `add 2 6H` (cards onto meld 2), `discard KD`, and the
session words `help`, `hint` (list the legal moves), `show` (the table again), `dead` (a dead is
taken automatically when the hand empties; the word only explains that) and `quit`.
"""

from __future__ import annotations

from collections.abc import Sequence

from buraco_events.core.cards import CardError, parse_cards, sorted_cards
from buraco_events.core.choices import Action
from buraco_events.core.gate import IllegalMove
from buraco_events.core.melds import classify
from buraco_events.model.rules import Rules

#: each accepted word (and short form) -> the command it names
WORDS: dict[str, str] = {
    "draw": "draw", "d": "draw", "stock": "draw",
    "pile": "pile", "p": "pile", "take": "pile",
    "meld": "meld", "m": "meld",
    "add": "add", "a": "add",
    "discard": "discard",
    "dead": "dead",
    "help": "help", "h": "help", "?": "help",
    "hint": "hint", "moves": "hint",
    "show": "show", "table": "show",
    "quit": "quit", "q": "quit", "exit": "quit",
}

#: what `help` prints
HELP = """\
commands (cards like 3H 10S JK; lower case, T for 10 and suit symbols work too):
  draw               draw the stock's top card
  pile               take the whole discard pile
  meld 3H 4H 5H      lay a new meld from your hand
  add 2 6H           add cards to your team's meld #2
  discard KD         discard a card, ending your turn
  hint               list your legal moves (also: moves)
  show               show the table again
  help               this list
  quit               stop here (the log keeps the game: buraco play --resume LOG)
a dead is taken for you as soon as your hand empties; there is no undo (the log is append-only)"""

_NO_ARGS = ("draw", "pile", "dead", "help", "hint", "show", "quit")


class CommandError(ValueError):
    """A line that is not a command; its str is a one-line reason."""


def parse_command(text: str) -> Action | str | None:
    """Return what a typed line names: a move as its `Action`, a session word (`help`, `hint`,
    `show`, `dead`, `quit`) as that word, None for a blank line; raises `CommandError`."""
    words = text.split()
    if not words:
        return None
    head, args = words[0].lower(), words[1:]
    word = WORDS.get(head)
    if word is None:
        raise CommandError(f"unknown command {words[0]!r} (type help for the commands)")
    if word in _NO_ARGS:
        if args:
            raise CommandError(f"{word} takes nothing after it")
        if word in ("draw", "pile"):
            return Action(word)
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


def action_command(action: Action) -> str:
    """Return the line that types `action` (the inverse of `parse_command` for player moves)."""
    if action.kind in ("draw", "pile"):
        return action.kind
    if action.kind == "add":
        return f"add {action.meld} " + " ".join(action.cards)
    if action.kind in ("meld", "discard"):
        return f"{action.kind} " + " ".join(action.cards)
    raise ValueError(f"{action.kind} is not typed in buraco play")


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

    lines = [line(best) + "   (the bot's choice)"] if best is not None else []
    plays = [a for a in actions if a.kind != "discard" and a != best]
    discards = [a.cards[0] for a in actions if a.kind == "discard"]
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


def refusal_text(exc: IllegalMove, action: Action) -> str:
    """Return why the engine refused a player's `action`, in the player's words: a move out of
    its phase names what the phase asks for; any other refusal is the engine's public reason
    (the rule in words, naming no card the player cannot see)."""
    told = _WRONG_PHASE.get((exc.phase, action.kind))
    if told is not None:  # the engine checks the phase before anything else (`engine.check`)
        return told
    return f"cannot {action.kind}: {exc.public}"


__all__ = [
    "HELP", "HINT_LINES", "WORDS", "CommandError", "action_command", "arranged",
    "hint_text", "options_text", "parse_command", "refusal_text",
]
