"""The words of a verdict, shared by everything that judges a log (`audit`, the index's `rows`).

A problem has one of `KINDS`; the `FAILING` ones make a log fail, `unsealed` is said but is no
failure. The index records the kinds of each stored game's problems in these same words, in
this order, so a query can keep the games that fail the audit out of its figures.
"""

from __future__ import annotations

from typing import Literal

ProblemKind = Literal["format", "integrity", "deal", "illegal", "score", "unfinished", "unsealed"]
#: every kind, in the order a game's kinds are listed
KINDS: tuple[str, ...] = ("format", "integrity", "deal", "illegal", "score", "unfinished",
                          "unsealed")
#: kinds that make a log fail (an unsealed log can still pass)
FAILING: frozenset[str] = frozenset(KINDS) - {"unsealed"}

__all__ = ["FAILING", "KINDS", "ProblemKind"]
