"""`buraco fairplay LOGS... --player NAME`: did a player play as if they saw cards they could not see?

Every decision of the player in each finished game is played out on the information set and on
each oracle (`fairplay.judge`), the matches with the oracles' best weighed against an honest
player's of the same strength (`fairplay.verdict`), and the report lists the most telling
decisions, each with the command that opens it. The logs are read as every batch command reads
them (files, folders, archives, `ARCHIVE.bza/NAME`), or an index's (`INDEX.duckdb`: the logs
its games table points at, `analytics.indexed`; one that is gone is one line). A log that fails
its audit or whose game has not ended is reported in one line and not analysed. Exit codes: 0 reported, 1 a log was left out
(the report covers the others) or the player is in no log, 2 a path that cannot be read.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from buraco_events.analytics.database import DatabaseUnavailable
from buraco_events.analytics.indexed import indexed_logs, is_index
from buraco_events.audit.auditor import audit_lines
from buraco_events.fairplay.judge import DEFAULT_SAMPLES, judge_game
from buraco_events.fairplay.oracle import oracles_for
from buraco_events.fairplay.report import Game, build
from buraco_events.log.archive import ArchiveError
from buraco_events.log.lines import RawLines
from buraco_events.log.reader import EventReader
from buraco_events.log.sources import iter_logs
from buraco_events.model.events import Event
from buraco_events.util.pool import default_workers
from buraco_events.util.text import visible
from buraco_events.views.fairplay_page import fairplay_page

from .common import PROBLEMS, UNREADABLE, error, fail, os_reason, out


def _sound(name: str, lines: RawLines) -> list[Event] | None:
    """Return the events of a finished log that passes its audit, else None after one line."""
    whole = list(lines)
    audit = audit_lines(RawLines(name, whole, lines.tail), name, partial=True)
    report = audit.report
    if audit.not_a_log is not None:
        error(f"{name}: not a log: {audit.not_a_log} (not analysed)")
    elif report.first is not None and not report.ok:
        first = report.first
        error(f"{name}: seq {first.seq}: fails its audit ({first.kind}: {first.message}) (not analysed)")
    elif not report.complete:
        error(f"{name}: seq {report.events - 1}: the game has not ended; a fair-play report runs only on "
              "finished games (not analysed)")
    else:
        return [e for _, _, e in EventReader(RawLines(name, whole))]
    return None


def _sources(path: Path) -> Iterator[tuple[str, Path | None]]:
    """Yield the paths a path stands for: itself, or each log an index's games point at (None,
    after one line, for one that is gone)."""
    if not is_index(path):
        yield str(path), path
        return
    for game_id, source, found in indexed_logs(path):
        if found is None:
            error(f"{path}: game {visible(game_id)}: its log {visible(source)} is gone (not analysed)")
        yield source, found


def _read(paths: list[Path]) -> tuple[list[tuple[str, list[Event]]], int]:
    """Return the finished, sound games of the paths (name, events) and how many were left out;
    an index (`INDEX.duckdb`) stands for the logs its games table points at."""
    games: list[tuple[str, list[Event]]] = []
    left_out = 0
    for given in paths:
        try:
            for _, path in _sources(given):
                if path is None:
                    left_out += 1
                    continue
                for name, lines in iter_logs(path):
                    events = _sound(name, lines)
                    if events is None:
                        left_out += 1
                    else:
                        games.append((name, events))
        except OSError as exc:
            fail(f"{given}: cannot read: {os_reason(exc)}", UNREADABLE)
        except ArchiveError as exc:
            fail(f"{given}: {exc}", UNREADABLE)
        except DatabaseUnavailable as exc:
            fail(str(exc), UNREADABLE)
    return games, left_out


def fairplay_cmd(
    logs: Annotated[list[Path], typer.Argument(help="game logs: files, folders, archives, ARCHIVE.bza/NAME, or an "
                                               "index (INDEX.duckdb: the logs its games point at)",
                                               show_default=False)],
    player: Annotated[str | None, typer.Option("--player", metavar="NAME", help="the player weighed, by name")] = None,
    all_players: Annotated[bool, typer.Option("--all", help="weigh every player found in the logs")] = False,
    samples: Annotated[int, typer.Option("--samples", min=2, max=256, metavar="K",
                                         help="the deals each side of a decision is played out on at the most, in rounds of 4 until "
                                         "it is settled (two at the least: one shows no noise)")] = DEFAULT_SAMPLES,
    seed: Annotated[str, typer.Option("--seed", help="the deals' seed: the same seed, the same report")] = "1",
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, metavar="N",
        help="processes that judge decisions (default: the machine's cores); the report is the same whatever N")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON (one object per player)")] = False,
    html: Annotated[Path | None, typer.Option("--html", metavar="F", help="also write the report as one offline page",
                                              show_default=False)] = None,
) -> None:
    """Weigh whether a player played as if they saw cards they could not see: each decision judged on what
    they could know and on what they could not (the partner's hand, every hand, the stock), finished games
    only. It weighs evidence; it never accuses."""
    if (player is None) == (not all_players):
        fail("name one player with --player NAME, or --all (not both)", UNREADABLE)
    games, left_out = _read(logs)
    found = sorted({p for _, events in games for p in getattr(events[0], "players", ())})
    names = found if all_players else [player or ""]
    if not all_players and player not in found:
        fail(f"no player {player!r} in the finished logs given (players: {', '.join(found) or 'none'})", PROBLEMS)
    reports = [_weigh(name, games, samples, seed, workers or default_workers()) for name in names]
    if as_json:
        for report in reports:
            sys.stdout.write(json.dumps(report) + "\n")
    else:
        for report in reports:
            _print(report)
    if html is not None:
        try:
            html.write_text(fairplay_page(reports), encoding="utf-8")
        except OSError as exc:
            fail(f"{html}: cannot write: {os_reason(exc)}", UNREADABLE)
    if left_out:
        raise typer.Exit(PROBLEMS)


def _weigh(name: str, games: list[tuple[str, list[Event]]], samples: int, seed: str, workers: int) -> dict[str, Any]:
    """Return one player's report over the games they sat in."""
    mine: list[Game] = []
    oracles: set[str] = set()
    for log, events in games:
        players = tuple(getattr(events[0], "players", ()))
        if name in players:
            seat = players.index(name)
            mine.append(Game(log, seat, judge_game(events, seat, samples, seed, workers)))
            oracles.update(oracles_for(len(players)))
    return build(name, mine, sorted(oracles), samples, seed)


def _print(r: dict[str, Any]) -> None:
    console = out()
    console.print(Text(f"{visible(r['player'])}: {r['games']} games, {r['decisions']} decisions "
                       f"({r['samples']} deals a side, seed {visible(r['seed'])})", style="bold"), soft_wrap=True)
    table = Table(show_edge=False)
    for col in ("oracle", "decisions", "informative", "matches", "expected", "p-value", "level"):
        table.add_column(col, justify="left" if col in ("oracle", "level") else "right")
    for o in r["oracles"]:
        table.add_row(o["oracle"], str(o["decisions"]), str(o["informative"]), str(o["matches"]),
                      f"{o['expected']:.2f}", f"{o['p_value']:.2g}", o["level"])
    console.print(table)
    console.print(Text(r["words"]), soft_wrap=True)
    console.print(Text(f"p-value: {r['test']}", style="dim"), soft_wrap=True)
    for e in r["evidence"]:
        console.print(Text(f"- {visible(e['log'])} seq {e['seq']} ({e['oracle']}): {visible(e['seen'])}; chose "
                           f"{e['chosen']}, information set's best {e['infoset_best']}, oracle's best "
                           f"{e['oracle_best']} ({visible(e['hidden'])}); an honest player's chance "
                           f"{100 * e['chance']:.1f}%\n  {visible(e['command'])}"), soft_wrap=True)


__all__ = ["fairplay_cmd"]
