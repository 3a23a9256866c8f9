"""The replay viewer's keys, in one place: its bindings, its key bar, its `?` screen and the
keys `buraco replay --help` lists all come from `KEYS` (plain data: no textual import, so the
help reads them without loading the viewer)."""

from __future__ import annotations

from typing import NamedTuple


class Key(NamedTuple):
    """One key of the viewer: the textual key names it binds, the textual action, the key as the
    bar and the help show it, a word or two for the bar (empty: help only), and what it does."""

    keys: str
    action: str
    label: str
    short: str
    what: str


KEYS: tuple[Key, ...] = (
    Key("n,right", "step(1)", "n →", "next", "the next event"),
    Key("p,left", "step(-1)", "p ←", "prev", "the previous event"),
    Key("right_square_bracket", "hand(1)", "]", "next hand", "the next hand's deal"),
    Key("left_square_bracket", "hand(-1)", "[", "prev hand", "back to this hand's deal, then the previous hand's"),
    Key("t", "turn", "t", "turn", "the next turn of the seat viewed (of any seat for the referee)"),
    Key("home", "jump(0)", "home", "", "the first event"),
    Key("end", "jump_end", "end", "", "the last event"),
    Key("g", "open_goto", "g", "go to", "a prompt: a seq (57) or a hand (h2); enter goes, escape closes"),
    Key("v", "cycle_view", "v", "view", "the next view: the referee, then each seat"),
    Key("m", "toggle_history", "m", "melds", "show or hide each meld's history"),
    Key("l", "toggle_moves", "l", "moves", "show or hide the move list (enter goes to the move chosen)"),
    Key("x", "next_mark", "x", "mistake", "with --analysis: the seat's next marked decision"),
    Key("b", "branch", "b", "branch", "play a branch from here (on a marked decision: before or after it)"),
    Key("up", "scroll(-1)", "↑ ↓", "", "scroll the table a line"),
    Key("pageup", "scroll(-10)", "pgup pgdn", "", "scroll the table a page"),
    Key("question_mark", "keys", "?", "keys", "this list of keys"),
    Key("q", "quit", "q", "quit", "quit (ctrl+c too)"),
)


def keys_text() -> str:
    """Return the keys as `buraco replay --help` and the `?` screen list them, a key a line."""
    width = max(len(k.label) for k in KEYS)
    return "\n".join(f"{k.label.ljust(width)}  {k.what}" for k in KEYS)


def bar_text(available: set[str] | None = None) -> str:
    """Return the key bar: each key with a word for it, two spaces apart (only the actions in
    `available`, when given)."""
    return "  ".join(f"{k.label.split()[0]} {k.short}" for k in KEYS
                     if k.short and (available is None or k.action in available))


__all__ = ["KEYS", "Key", "bar_text", "keys_text"]
