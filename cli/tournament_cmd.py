"""`buraco tournament ...`: a tournament as a sealed log of its own, every result a game log
(`buraco_events.tournament`; this module only parses options and renders).

new, enter, withdraw, pair, play, record, adjust, close, standings, audit. Exit codes: 0 done, 1 a
refusal or a problem in what was read (one line, nothing appended), 2 input that cannot be read
or a bad option.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, NoReturn

import msgspec
import typer
from rich.table import Table

from buraco_events.tournament import director
from buraco_events.tournament.events import (
    DEALS,
    FORMS,
    MOVEMENTS,
    Result,
    RoundClosed,
    TournamentEnded,
)
from buraco_events.tournament.scale import MAX_SCALE_FILE, SCALES, ScaleError, parse_scale_csv
from buraco_events.tournament.standings import Standings
from buraco_events.tournament.state import TournamentError
from buraco_events.util.pool import default_workers

from .common import BOT_NAMES_WORDS, fail, out, shown

app = typer.Typer(help="Run a tournament: pairings, victory points and standings, every result a"
                  " verified game log.", no_args_is_help=True)
TFile = Annotated[Path, typer.Argument(help="the tournament log (JSON Lines)", show_default=False)]
Games = Annotated[Path | None, typer.Option(
    "--games", metavar="DIR", help="the folder of the tournament's game logs (default: T/ beside T.jsonl)")]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _refused(exc: TournamentError) -> NoReturn:
    fail(str(exc), exc.exit_code)


def _say(text: str) -> None:
    out().print(shown(text), soft_wrap=True, highlight=False)


def parse_rules(pairs: list[str]) -> dict[str, object]:
    """Return `--rules k=v` as overrides: whole numbers, true/false, else text."""
    rules: dict[str, object] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            fail(f"--rules {item}: give k=v (a rule parameter and its value)", 2)
        v: object = value.strip()
        if value.strip().lower() in ("true", "false"):
            v = value.strip().lower() == "true"
        elif value.strip().lstrip("-").isdigit():
            v = int(value)
        rules[key.strip()] = v
    return rules


def _scale(value: str) -> tuple[tuple[int | None, int, int], ...]:
    if value in SCALES:
        return SCALES[value]
    path = Path(value)
    try:
        if path.stat().st_size > MAX_SCALE_FILE:
            fail(f"--scale {value}: larger than {MAX_SCALE_FILE:,} bytes: not a scale", 2)
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"--scale {value}: not 3, 4 or a readable CSV file ({getattr(exc, 'strerror', None) or exc})", 2)
    try:
        return parse_scale_csv(text, value)
    except ScaleError as exc:
        fail(f"--scale {exc}", 2)


@app.command("new")
def new(
    file: TFile,
    name: Annotated[str, typer.Option("--name", help="the tournament's name")],
    variant: Annotated[str, typer.Option("--variant", help="the preset every game plays")],
    movement: Annotated[str, typer.Option("--movement", help="mitchell, danish, swiss or round_robin")],
    rounds: Annotated[int, typer.Option("--rounds", help="how many rounds")],
    form: Annotated[str, typer.Option("--form", help="pairs (4-player tables) or singles")] = "pairs",
    rules: Annotated[list[str] | None, typer.Option(
        "--rules", metavar="K=V", help="a rule parameter for every game (repeat for more)")] = None,
    deals: Annotated[str, typer.Option("--deals", help="random, or duplicate: every table of a round the same deals")]
    = "random",
    scale: Annotated[str, typer.Option("--scale", metavar="3|4|FILE",
                                       help="the victory point scale: Italian 3- or 4-hand, or a CSV of rows")] = "3",
    director_name: Annotated[str, typer.Option("--director", help="who directs")] = "",
    tournament_id: Annotated[str | None, typer.Option(
        "--id", help="the tournament's id, which starts every game id (default: from the name and the time)")]
    = None,
) -> None:
    """Start a tournament log (its first line, tournament_started, holds the scale's rows)."""
    for option, value, allowed in (("--form", form, FORMS), ("--movement", movement, MOVEMENTS),
                                   ("--deals", deals, DEALS)):
        if value not in allowed:
            fail(f"{option} {value}: choose from {', '.join(allowed)}", 2)
    if not 1 <= rounds <= 64:
        fail("--rounds: 1 to 64", 2)
    try:
        director.new(file, name=name, form=form, variant=variant, rules=parse_rules(rules or []),
                     movement=movement, rounds=rounds, deals=deals, scale=_scale(scale),
                     director=director_name, at=_now(), tournament_id=tournament_id)
    except TournamentError as exc:
        _refused(exc)
    _say(f"{file}: {name}: {form}, {variant}, {movement}, {rounds} rounds, {deals} deals, scale {scale}")


@app.command("enter")
def enter(
    file: TFile,
    players: Annotated[str, typer.Option("--players", metavar="A,B", help="the entry's players (one in singles)")],
    name: Annotated[str | None, typer.Option("--name", help="the entry's name")] = None,
) -> None:
    """Add an entry."""
    try:
        event = director.enter(file, [p for p in players.split(",")], name, _now())
    except TournamentError as exc:
        _refused(exc)
    _say(f"entry {event.entry}: {', '.join(event.players)}" + (f" ({event.name})" if event.name else ""))


@app.command("withdraw")
def withdraw(
    file: TFile,
    entry: Annotated[int, typer.Argument(help="the entry's number", show_default=False)],
    reason: Annotated[str, typer.Option("--reason", help="why it withdraws")],
) -> None:
    """Withdraw an entry: it is not paired again."""
    try:
        director.withdraw(file, entry, reason, _now())
    except TournamentError as exc:
        _refused(exc)
    _say(f"entry {entry} withdrawn")


@app.command("pair")
def pair(file: TFile, games: Games = None) -> None:
    """Pair the next round by the movement."""
    try:
        event = director.pair(file, _now(), games)
    except TournamentError as exc:
        _refused(exc)
    _say(f"round {event.round}: {len(event.tables)} tables")
    for t in event.tables:
        _say(f"  table {t.table}: entry {t.entries[0]} v entry {t.entries[1]}  {t.game_id}  seed {t.seed}")
    if event.bye is not None:
        _say(f"  bye: entry {event.bye}")
    for e in event.idle:
        _say(f"  idle (opponent withdrew): entry {e}")


def _results(results: list[Result]) -> None:
    for r in results:
        state = (f"disputed: {r.disputed}" if r.disputed
                 else f"totals {r.totals[0]}:{r.totals[1]}, vp {r.vp[0]}:{r.vp[1]}")
        _say(f"round {r.round} table {r.table}: {r.game_id}: {state}")


@app.command("play")
def play(
    file: TFile,
    bots: Annotated[str, typer.Option(
        "--bots", metavar="A,B,...",
        help=f"the bots, comma-separated, given to the entries in turn; a bot is {BOT_NAMES_WORDS}")],
    out_dir: Annotated[Path | None, typer.Option("--out", metavar="DIR", help="where the game logs go (default: T/)")]
    = None,
    workers: Annotated[int | None, typer.Option("--workers", metavar="N", help="processes (default: the cores)")]
    = None,
) -> None:
    """Play the open round's tables with bots (seeded: the same bytes for any --workers) and record them."""
    n = default_workers() if workers is None else workers
    if n < 1:
        fail("--workers: at least 1", 2)
    try:
        results = director.play(file, [b.strip() for b in bots.split(",")], out=out_dir, workers=n, at=_now())
    except TournamentError as exc:
        _refused(exc)
    _results(results)


@app.command("record")
def record(
    file: TFile,
    logs: Annotated[list[Path], typer.Argument(help="finished game logs", show_default=False)],
    disputed: Annotated[bool, typer.Option("--disputed", help="store a log that fails as a disputed result")] = False,
    games: Games = None,
) -> None:
    """Bind finished game logs to their tables (all or none): a result only for a clean log of the pairing."""
    try:
        results = director.record(file, logs, disputed=disputed, at=_now(), games=games)
    except TournamentError as exc:
        _refused(exc)
    _results(results)


@app.command("adjust")
def adjust(
    file: TFile,
    round_no: Annotated[int, typer.Option("--round", help="the round")],
    entry: Annotated[int, typer.Option("--entry", help="the entry")],
    vp: Annotated[int, typer.Option("--vp", help="victory points added (negative: a penalty)")],
    by: Annotated[str, typer.Option("--by", help="who decides")],
    reason: Annotated[str, typer.Option("--reason", help="why")],
) -> None:
    """Record a director's penalty or award."""
    try:
        director.adjust(file, round_no=round_no, entry=entry, vp=vp, by=by, reason=reason, at=_now())
    except TournamentError as exc:
        _refused(exc)
    _say(f"round {round_no}: entry {entry} {vp:+d} vp ({reason})")


@app.command("close")
def close(file: TFile, games: Games = None) -> None:
    """Close the open round (after the last one, the tournament ends with its standings)."""
    try:
        events = director.close(file, _now(), games)
    except TournamentError as exc:
        _refused(exc)
    for event in events:
        if isinstance(event, RoundClosed):
            _say(f"round {event.round} closed")
        elif isinstance(event, TournamentEnded):
            podium = ", ".join(f"{s.place}. entry {s.entry} ({s.vp} VP)" for s in event.standings[:3])
            _say(f"tournament ended: {podium}")


def render(table: Standings) -> None:
    """Print the standings."""
    console = out()
    console.print(shown(f"{table.name}: {table.movement}, round {table.rounds_closed} of {table.rounds} "
                        f"closed ({table.rounds_paired} paired)"), soft_wrap=True)
    grid = Table(show_edge=False)
    for column in ("#", "entry", "name", "VP", "diff"):
        grid.add_column(column, justify="left" if column == "name" else "right")
    for i in range(table.rounds_paired):
        grid.add_column(f"R{i + 1}", justify="right")
    for row in table.rows:
        cells = []
        for c in row.rounds:
            if c.status == "counted" and c.totals is not None:
                cells.append(f"v{c.opponent} {c.totals[0]}:{c.totals[1]} {c.vp}")
            else:
                cells.append(f"v{c.opponent} {c.status}" if c.opponent else c.status)
        name = row.name + (" (withdrawn)" if row.withdrawn else "")
        grid.add_row(str(row.place), str(row.entry), shown(name), str(row.vp), f"{row.diff:+d}",
                     *map(shown, cells))
    console.print(grid)
    for d in table.disputed:
        console.print(shown(f"disputed: round {d['round']} table {d['table']}: {d['reason']}"), soft_wrap=True)
    for a in table.adjustments:
        console.print(shown(f"adjusted: round {a['round']} entry {a['entry']} {a['vp']:+d} vp by {a['by']}: "
                            f"{a['reason']}"), soft_wrap=True)


@app.command("standings")
def standings_(
    file: TFile,
    as_json: Annotated[bool, typer.Option("--json", help="print the standings as JSON")] = False,
    html: Annotated[Path | None, typer.Option("--html", metavar="FILE", help="also write the standings page")]
    = None,
    games: Games = None,
    force: Annotated[bool, typer.Option("--force", help="replace an existing page")] = False,
) -> None:
    """Rank the entries by victory points, then the differences, then head to head; disputed
    results and adjustments apart (exit 1 while a table's result is disputed)."""
    try:
        log, table = director.current(file, games)
    except TournamentError as exc:
        _refused(exc)
    if html is not None:
        from .tournament_pages import write_pages
        write_pages(html, log, table, games, force)
    if as_json:
        sys.stdout.write(msgspec.json.encode(table).decode() + "\n")
    else:
        render(table)
    if any(t.status == "disputed" for t in table.tables):
        raise typer.Exit(1)  # a table whose result counts nothing until the director acts


@app.command("audit")
def audit(file: TFile, games: Games = None) -> None:
    """Check the chain, recompute every result and standing, name any claim that differs (exit 1)."""
    try:
        result = director.audit(file, games)
    except TournamentError as exc:
        _refused(exc)
    log = result.log
    counted = sum(1 for t in result.standings.tables if t.status == "counted")
    _say(f"{file}: {len(log.events)} events, sealed, head {log.head}; {counted} of "
         f"{len(result.standings.tables)} tables counted from audited game logs")
    for finding in result.findings:
        _say(f"problem: {finding}")
    if result.findings:
        raise typer.Exit(1)
    _say("ok: every result and standing recomputes as claimed")
