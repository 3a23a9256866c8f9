"""Words every output shares: text from a log made safe to show, and a hand's number as people
count it (pure).

A log is input from anyone: a `game_id`, a player's name or a note may hold terminal escape
sequences or bidi overrides that would repaint the screen or reverse what a referee reads. Every
human-readable output passes such text through `visible`; JSON output stays exact. It sits here,
below `log` and `views`, because the logs' own error messages quote what they read.
"""

from __future__ import annotations

import re

#: bidi embeddings, overrides, isolates and marks, and the invisible characters that hide or
#: reorder text; `str.isprintable` lets some of them through
_BIDI = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def _escape(c: str) -> str:
    code = ord(c)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """Return `text` with every control, bidi and non-printable character as a visible escape."""
    if text.isprintable() and not _BIDI.search(text):
        return text  # the common case, at C speed
    return "".join(c if c.isprintable() and not _BIDI.match(c) else _escape(c) for c in text)


def hand_words(hand: int) -> str:
    """Return a hand as people count it, from 1 ("hand 1" is the first); logs, JSON and SQL keep
    the log's number, from 0."""
    return f"hand {hand + 1}"


def plural(count: int, word: str, words: str | None = None) -> str:
    """Return `count word` with the word's plural when the count is not one ("1 hand", "2 hands",
    "0 hands"); `words` is the plural where adding an s is wrong."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"


def signed(x: float) -> str:
    """Return points with their sign, a whole number without a decimal point (+12, -3.5, 0)."""
    if x == 0:
        return "0"
    return f"{x:+.0f}" if x == int(x) else f"{x:+.1f}"
