"""A player's fair-play report: the figures of each oracle over their games, and the evidence a
referee can check (the `--json` shape of `buraco fairplay`)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from .judge import Judged
from .verdict import match_chance, temperature, weigh

#: the decisions the evidence lists at the most
EVIDENCE = 10
#: how the p-value is computed, said in every report
TEST = ("one-sided exact Poisson-binomial test (the exact binomial test with each decision's own chance): "
        "the probability that an honest player of the same strength matches the oracle at least this often")

WORDS = {
    "none": "Nothing stands out: the matches are within what an honest player of this strength makes.",
    "note": "Worth noting: more matches with hidden cards than an honest player of this strength usually makes; "
            "on its own this is weak evidence.",
    "review": "Worth a referee's review: far more matches with hidden cards than an honest player of this strength "
              "makes. This is evidence to weigh, not proof: look at the decisions below.",
}


@dataclass(frozen=True)
class Game:
    """One game of the player: the log's name as given, the seat, and its judged decisions."""

    log: str
    seat: int
    judged: list[Judged]


def build(player: str, games: Sequence[Game], oracles: Sequence[str], samples: int, seed: str) -> dict[str, Any]:
    """Return the report of `player` over `games` (each judged on the oracles of its size)."""
    decisions = [d for g in games for d in g.judged]
    t = temperature(decisions)
    figures = weigh(decisions, oracles, t)
    evidence: list[dict[str, Any]] = []
    for g in games:
        for d in g.judged:
            for side in d.oracles:
                if side.informative and side.best == 0:
                    evidence.append({
                        "log": g.log, "seq": d.seq, "hand": d.hand, "oracle": side.oracle, "seen": d.seen,
                        "chosen": d.candidates[0], "infoset_best": d.candidates[d.best],
                        "oracle_best": d.candidates[side.best], "hidden": side.hidden, "gain": side.gain,
                        "chance": round(match_chance(d, side, t), 4),
                        "command": f"buraco replay {shlex.quote(g.log)} --at {d.seq}",
                    })
    evidence.sort(key=lambda e: (e["chance"], -e["gain"], e["log"], e["seq"], e["oracle"]))
    worst = max((f.level for f in figures), key=("none", "note", "review").index, default="none")
    return {
        "player": player, "games": len(games), "decisions": len(decisions), "samples": samples, "seed": seed,
        "temperature": round(t, 1), "test": TEST, "level": worst, "words": WORDS[worst],
        "oracles": [msgspec.to_builtins(f) for f in figures], "evidence": evidence[:EVIDENCE],
    }


__all__ = ["EVIDENCE", "TEST", "WORDS", "Game", "build"]
