"""The words of a verdict, shared by everything that judges a log (`audit`, the index's `rows`).

A problem has one of `KINDS`; the `FAILING` ones make a log fail, `unsealed` is said but is no
failure. `branch` is found only against a parent log (`audit --parent`): a line that is not the
parent's where a branch (or the parent itself) must have the parent's. The index records the
kinds of each stored game's problems in these same words, in this order, so a query can keep the games that fail the audit out of its
figures.
"""

from __future__ import annotations

from typing import Literal

ProblemKind = Literal["format", "integrity", "deal", "illegal", "score", "unfinished", "unsealed",
                      "branch"]
#: every kind, in the order a game's kinds are listed
KINDS: tuple[str, ...] = ("format", "integrity", "deal", "illegal", "score", "unfinished",
                          "unsealed", "branch")
#: kinds that make a log fail (an unsealed log can still pass)
FAILING: frozenset[str] = frozenset(KINDS) - {"unsealed"}
#: the kinds that judge the play (the rules and the claims), which an edit of the file may cause
PLAY_KINDS: frozenset[str] = frozenset({"deal", "illegal", "score"})
#: how the message of a head other than the expected one begins (the headline tells it apart)
OTHER_HEAD = "head "


def headline(kind: str, seq: int, message: str, changed: int | None, sealed: bool) -> str:
    """Return a verdict's headline in words, from its first problem (`kind`, `seq`, `message`),
    the first line the chain shows edited (`changed`) and whether the log is sealed: the same
    words in the text report, its page and the demo. A `branch` problem is the headline only
    when it comes before any edit the chain shows (the parent shows the line changed first)."""
    if kind == "branch":
        return f"not the parent's where it must be: {message}"
    if changed is not None:
        return (f"the file was edited at seq {changed}: the chain breaks at seq {seq} ({message});"
                f" findings from seq {changed} on follow from the edit, not from play")
    if kind == "integrity" and message.startswith(OTHER_HEAD):
        return (f"not the published log: its head differs (seq {seq}); findings may follow from"
                " an edit, not from play")
    words = f"{kind} at seq {seq}"
    if not sealed and kind in PLAY_KINDS:
        words += " (the log is unsealed: an edit cannot be told from a play)"
    return words


__all__ = ["FAILING", "KINDS", "OTHER_HEAD", "PLAY_KINDS", "ProblemKind", "headline"]
