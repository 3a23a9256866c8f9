"""The options `buraco replay` and `buraco share` both take: the log to open, `--as SEAT`,
`--at SEQ` / `--hand N`, `--rulings FILE` and `--analysis FILE`, each checked with a one-line error
and its exit code."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from buraco_events.audit.rulings import RulingError, RulingsReport
from buraco_events.log.archive import ArchiveError
from buraco_events.log.reader import NotALogError
from buraco_events.views.projections import Timeline
from buraco_events.views.replays import ErrorFor, Loaded, error_for, load, load_rulings

from .common import PROBLEMS, UNREADABLE, fail, fail_read

if TYPE_CHECKING:
    from buraco_events.analysis.evaluate import Analysis


def open_replay(log: Path, public: bool = False) -> tuple[Loaded, Timeline, ErrorFor]:
    """Read a log (a file or `ARCHIVE.bza/NAME`) and fold it: the loaded events, their timeline
    and the error each view shows (None for a whole legal log; see `error_for`).

    Exits 2 when the path cannot be read, 1 when not one event replays (with the words any seat
    may read when `public`: no seat is known yet to check what it may see).
    """
    if log.is_dir():
        fail(f"{log}: is a folder; give one log file", 2)
    try:
        loaded = load(log)
    except (OSError, NotALogError, ArchiveError) as exc:  # ArchiveError: ARCHIVE.bza/NAME
        fail_read(exc)
    timeline = Timeline(loaded.events)
    errors = error_for(log, loaded, timeline)
    if timeline.last < 0:
        fail(errors(0 if public else None) or f"{log}: no event replays", PROBLEMS)
    return loaded, timeline, errors


#: `--rulings FILE`, the same option on `replay` and `share`
RulingsOption = Annotated[Path | None, typer.Option(
    "--rulings", metavar="FILE",
    help="the game's rulings log (default: GAME.rulings.jsonl beside the log, when it is there):"
    " each ruling is shown at its hand, the standings after rulings apart from the recount")]


def open_rulings(log: Path, rulings_file: Path | None) -> RulingsReport | None:
    """Return the rulings report of `log` (None: no rulings log); a named rulings log that cannot
    be read exits 2, with one line."""
    try:
        return load_rulings(log, rulings_file)
    except RulingError as exc:
        fail(str(exc), exc.exit_code)
    except (OSError, NotALogError, ArchiveError) as exc:
        fail_read(exc)


def resolve_seat(text: str | None, players: tuple[str, ...]) -> int | None:
    """Return the seat `--as` names (an index or a player's name); None for the referee."""
    if text is None:
        return None
    if text in players:
        return players.index(text)
    if text.isdigit() and int(text) < len(players):
        return int(text)
    fail(f"--as {text}: no such seat (seats 0..{len(players) - 1}: {', '.join(players)})")


def resolve_seq(timeline: Timeline, at: int | None, hand: int | None, broken: bool) -> int:
    """Return the seq to show from `--at` / `--hand` (default: the last good event)."""
    if at is not None and hand is not None:
        fail("--at and --hand: give one or the other", 2)
    last = timeline.last
    if hand is not None:
        if hand < 1:
            fail(f"--hand {hand}: hands are counted from 1", 2)
        try:
            return timeline.hand_start(hand - 1)  # people count hands from 1
        except IndexError as exc:
            if broken:
                return last  # the hand lies past the error: show how far the log goes
            fail(f"--hand {hand}: {exc}", 2)
    if at is None:
        return last
    if at < 0:
        fail(f"--at {at}: a seq is 0 or more", 2)
    if at > last:
        if broken:
            return last
        fail(f"--at {at}: the log ends at seq {last}", 2)
    return at


#: `--analysis FILE`, the same option on `replay` and `share`
AnalysisOption = Annotated[Path | None, typer.Option(
    "--analysis", metavar="FILE",
    help="the seat's analysis (`buraco analyze LOG --as SEAT --json > FILE`; needs --as, the same"
    " seat): each of its decisions shows its mark, the loss and the better action")]


def open_analysis(path: Path | None, timeline: Timeline, seat: int | None) -> Analysis | None:
    """Return the analysis `--analysis` names, read and checked against the log as `seat` sees it
    (None: no `--analysis`). Exits 2 without `--as` or for a file that cannot be read or is not an
    analysis, 1 for one that does not fit the log (another game, seat or player, or decisions the
    seat did not make), with one line naming the file and the field."""
    if path is None:
        return None
    if seat is None:
        fail(f"--analysis {path}: an analysis is a seat's: give --as SEAT too", UNREADABLE)
    # the analysis (and the engine's bots it imports) loads only when asked for
    from buraco_events.analysis.load import AnalysisError, load_analysis

    try:
        return load_analysis(path, timeline.events, seat)
    except AnalysisError as exc:
        fail(str(exc), exc.exit_code)


def analysis_decisions(analysis: Analysis | None) -> dict[int, dict[str, Any]] | None:
    """Return an analysis's decisions as builtins by seq, each the `decision` of its replay step
    (None: no analysis)."""
    if analysis is None:
        return None
    from buraco_events.analysis.load import decision_objects

    return decision_objects(analysis)
