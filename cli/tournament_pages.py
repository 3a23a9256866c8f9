"""`buraco tournament standings --html FILE`: the standings page, and beside it (in
`FILE-games/`) each game's share page and audit page, which the standings page links to.

Every page is self-contained (it loads nothing); each is written atomically (`pages.write_page`)."""

from __future__ import annotations

from pathlib import Path

import msgspec

from buraco_events.audit.files import AuditInputError, audit_path
from buraco_events.tournament.director import games_of
from buraco_events.tournament.standings import Standings
from buraco_events.tournament.store import TournamentLog
from buraco_events.views.projections import Timeline
from buraco_events.views.replays import load, report_page, shown_name
from buraco_events.views.share import replay_page, timeline_steps
from buraco_events.views.tournament_page import standings_page

from .common import err, fail, out, shown
from .pages import check_output, write_page


def _share(log: Path) -> str | None:
    """Return a finished game's share page (every card: the game is over), None if it does not
    replay to its end."""
    loaded = load(log)
    if loaded.error:
        return None
    timeline = Timeline(loaded.events)
    steps = timeline_steps(timeline, None, sealed=loaded.sealed, error=None)
    opening = timeline.hand_start(0) if timeline.n_hands else 0
    return replay_page(steps, source=shown_name(log), head=loaded.head, sealed=loaded.sealed, seat=None,
                       at=opening, rules=msgspec.to_builtins(timeline.final.rules))


def write_pages(html: Path, log: TournamentLog, table: Standings, games: Path | None, force: bool) -> None:
    """Write the standings page at `html` and the games' pages in `html`'s `-games` folder."""
    check_output(html, force)
    folder = html.with_name(html.stem + "-games")
    source = games_of(log, games)
    links: dict[str, tuple[str | None, str | None]] = {}
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        fail(f"{folder}: cannot create: {exc.strerror or exc}", 2)
    for o in table.tables:
        game = source / f"{o.game_id}.jsonl"
        if not game.is_file():
            continue
        share = audit = None
        try:
            page = _share(game)
            if page is not None:
                share = f"{folder.name}/{o.game_id}.html"
                write_page(folder / f"{o.game_id}.html", page, True)
            report = next(iter(audit_path(game))).report
            audit_html, _ = report_page(report)
            audit = f"{folder.name}/{o.game_id}.audit.html"
            write_page(folder / f"{o.game_id}.audit.html", audit_html, True)
        except (AuditInputError, OSError, ValueError) as exc:
            err().print(f"note: {shown(game)}: no page: {shown(exc)}", soft_wrap=True)
        links[o.game_id] = (share, audit)
    page = standings_page(table, links, log.head, str(log.path.name))
    size = write_page(html, page, force)
    out().print(f"{shown(html)}: {size:,} bytes; {len(links)} games' pages in {shown(folder)}", soft_wrap=True)
