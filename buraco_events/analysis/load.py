"""An analysis file (`buraco analyze --json`) read back and checked against its log.

`read_analysis` decodes the file into the `Analysis` Struct, refusing a file over `MAX_BYTES`, one
that is not JSON, a field of the wrong type and values no analysis holds (a negative seq, an
unknown mark, a loss that is not a finite number of points at least 0, a version of the format
not known, an interval that does not hold its loss or whose lower end is not of the decision's
class, an accuracy interval that does not hold the accuracy: `evaluate.format_problem`): each as
one line naming the file and the field, exit code 2. A file of format version 1 (no `version`: no
intervals, no deals per decision) is read all the same; its decisions are shown without
intervals, saying so (`views.render.decision_words`), as is the accuracy of a file of version 1
or 2 (`views.render.accuracy_words`). `check_analysis` holds it against the log it is shown with:
the same game, the same seat and player, and each decision one of the seat's decisions in the log
(`evaluate.decision_points`), at its seq, hand and phase, with the action the seat chose there.
Every action it names (chosen, best, the options) names only the cards the seat held at that
decision: the analysis is the seat's, so it is shown only in the seat's view, and a file edited to
name another seat's cards is refused rather than shown. A mismatch is one line, exit code 1.

`decision_objects` gives each decision as JSON-ready builtins by seq, the `decision` of a replay
step (`Timeline.replay_object`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from buraco_events.core.cards import RANK
from buraco_events.core.state import counted
from buraco_events.log.lines import os_reason
from buraco_events.model.events import Event
from buraco_events.play.commands import action_words

from .evaluate import Analysis, Decision, decision_points, format_problem

#: the largest analysis file read, in bytes (an analysis of a long game is tens of KB)
MAX_BYTES = 4 * 1024 * 1024
#: the marks a decision may carry, by increasing loss
MARKS = ("inaccuracy", "mistake", "blunder")
#: the exit codes: a file that was read and does not fit the log, a file that cannot be read
PROBLEMS, UNREADABLE = 1, 2
#: how a word of an action reads: its kind, then a meld or dead number, then cards
_KINDS = {"draw": 0, "pile": 0, "discard": 1, "meld": 2, "add": 3, "dead": 4}
_AT = re.compile(r" - at `\$(.*)`$")


class AnalysisError(ValueError):
    """An analysis file that cannot be shown: `str(exc)` is its one line, `exit_code` 1 or 2."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _field_error(path: Path, exc: msgspec.ValidationError) -> AnalysisError:
    """Return msgspec's `Expected X, got Y - at `$.a[0].b`` as `FILE: a[0].b: expected X, got Y`."""
    text = str(exc)
    found = _AT.search(text)
    where = found.group(1).lstrip(".") if found else ""
    text = text[: found.start()] if found else text
    missing = re.match(r"Object missing required field `(\w+)`", text)
    if missing:
        where = f"{where}.{missing.group(1)}".lstrip(".")
        text = "missing"
    else:
        text = text[:1].lower() + text[1:]
    return AnalysisError(f"{path}: {where or 'the analysis'}: {text}", UNREADABLE)


def read_analysis(path: Path) -> Analysis:
    """Return the analysis in a file; raises `AnalysisError` (exit 2) for one that cannot be read."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise AnalysisError(f"{path}: cannot read: {os_reason(exc)}", UNREADABLE) from None
    if len(raw) > MAX_BYTES:
        raise AnalysisError(f"{path}: more than {MAX_BYTES:,} bytes: not an analysis (`buraco analyze"
                            " --json` writes tens of KB)", UNREADABLE)
    try:
        analysis = msgspec.json.decode(raw, type=Analysis)
    except msgspec.ValidationError as exc:
        raise _field_error(path, exc) from None
    except msgspec.DecodeError as exc:
        raise AnalysisError(f"{path}: not an analysis: not JSON ({exc})", UNREADABLE) from None
    _check_values(path, analysis)
    return analysis


def _check_values(path: Path, a: Analysis) -> None:
    """Refuse the values no analysis holds, whatever the log."""
    def bad(field: str, why: str) -> AnalysisError:
        return AnalysisError(f"{path}: {field}: {why}", UNREADABLE)

    if a.seat < 0:
        raise bad("seat", f"{a.seat} is not a seat")
    for name in ("mean_loss", "accuracy"):
        if not math.isfinite(getattr(a, name)):
            raise bad(name, "not a finite number")
    for i, d in enumerate(a.decisions):
        at = f"decisions[{i}]"
        if d.seq < 0:
            raise bad(f"{at}.seq", f"{d.seq} is not a seq")
        if i and d.seq <= a.decisions[i - 1].seq:
            raise bad(f"{at}.seq", f"{d.seq} does not follow seq {a.decisions[i - 1].seq}: one decision a seq, in order")
        if d.mark is not None and d.mark not in MARKS:
            raise bad(f"{at}.mark", f"{d.mark!r} is not one of {', '.join(MARKS)} (or null)")
        if not (math.isfinite(d.loss) and d.loss >= 0):
            raise bad(f"{at}.loss", f"{d.loss!r} is not a loss in points (0 or more)")
        if d.loss_stderr is not None and not (math.isfinite(d.loss_stderr) and d.loss_stderr >= 0):
            raise bad(f"{at}.loss_stderr", f"{d.loss_stderr!r} is not a standard error (0 or more)")
        for j, o in enumerate(d.options):
            if not (math.isfinite(o.value) and math.isfinite(o.stderr)):
                raise bad(f"{at}.options[{j}]", "not a finite value and standard error")
    problem = format_problem(a)
    if problem is not None:
        raise bad(*problem)


def _action_cards(words: str) -> tuple[str, ...] | None:
    """Return the cards an action's words name (None: not the words of an action)."""
    parts = words.split(" ")
    kind = _KINDS.get(parts[0])
    if kind is None:
        return None
    if kind == 0:
        return () if len(parts) == 1 else None
    if kind == 4:
        return () if len(parts) == 2 and parts[1].isdigit() else None
    if kind == 3:
        if len(parts) < 3 or not parts[1].isdigit():
            return None
        parts = parts[1:]
    cards = tuple(parts[1:])
    if not cards or (kind == 1 and len(cards) != 1) or any(c not in RANK for c in cards):
        return None
    return cards


def check_analysis(path: Path, a: Analysis, events: Sequence[Event], seat: int) -> None:
    """Hold an analysis against the log it is shown with, as seen by `seat` (see the module);
    raises `AnalysisError` with exit code 1 at the first thing that does not fit."""
    def bad(field: str, why: str) -> AnalysisError:
        return AnalysisError(f"{path}: {field}: {why}", PROBLEMS)

    start = events[0] if events else None
    game_id = getattr(start, "game_id", "")
    players: tuple[str, ...] = getattr(start, "players", ())
    if a.game_id != game_id:
        raise bad("game_id", f"the analysis is of game {a.game_id!r}, not {game_id!r}")
    if a.seat != seat:
        raise bad("seat", f"the analysis is of seat {a.seat}, not seat {seat}")
    if seat < len(players) and a.player != players[seat]:
        raise bad("player", f"the analysis is of {a.player!r}, but seat {seat} is {players[seat]!r}")
    points = {p.seq: p for p in decision_points(events, seat)}
    for i, d in enumerate(a.decisions):
        at = f"decisions[{i}]"
        point = points.get(d.seq)
        if point is None:
            raise bad(f"{at}.seq", f"seq {d.seq} is not a decision of seat {seat} in the log")
        chosen = action_words(point.chosen)
        if d.chosen != chosen:
            raise bad(f"{at}.chosen", f"at seq {d.seq} seat {seat} chose {chosen!r}, not {d.chosen!r}")
        if d.hand != point.state.hand_no or d.phase != point.state.phase:
            raise bad(f"{at}.hand" if d.hand != point.state.hand_no else f"{at}.phase",
                      f"seq {d.seq} is in hand {point.state.hand_no}, phase {point.state.phase}")
        held = point.state.hands[seat]
        named = [("best", d.best)] + [(f"options[{j}].action", o.action) for j, o in enumerate(d.options)]
        for field, words in named:
            cards = _action_cards(words)
            if cards is None:
                raise bad(f"{at}.{field}", f"{words!r} is not an action")
            counts = counted(cards)
            if any(held.get(c, 0) < n for c, n in counts.items()):
                raise bad(f"{at}.{field}", f"{words!r} names a card seat {seat} did not hold at seq {d.seq}")


def decision_objects(a: Analysis) -> dict[int, dict[str, Any]]:
    """Return each decision as JSON-ready builtins (as in `analyze --json`), by seq."""
    return {d.seq: msgspec.to_builtins(d) for d in a.decisions}


def load_analysis(path: Path, events: Sequence[Event], seat: int) -> Analysis:
    """Return the analysis in a file, read and checked against the log seen by `seat`."""
    analysis = read_analysis(path)
    check_analysis(path, analysis, events, seat)
    return analysis


__all__ = [
    "MARKS", "MAX_BYTES", "Analysis", "AnalysisError", "Decision", "check_analysis", "decision_objects",
    "load_analysis", "read_analysis",
]
