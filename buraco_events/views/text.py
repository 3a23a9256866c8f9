"""Words shared by what people are shown: a hand's number as people count it (pure).

Text from a log is made safe to show by `util.text.visible` (named here too, for the views).
"""

from __future__ import annotations

from buraco_events.util.text import visible as visible


def hand_words(hand: int) -> str:
    """Return a hand as people count it, from 1 ("hand 1" is the first); logs, JSON and SQL keep
    the log's number, from 0."""
    return f"hand {hand + 1}"
