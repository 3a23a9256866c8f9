"""A tournament's rows for the index (`analytics.schema.TOURNAMENT_TABLES`): the tournament with
its audit's verdict, each entry's standing, and each entry's table of each round, all recomputed
from the game logs beside it (`director.audit`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .director import audit


def tournament_rows(path: Path, games: Path | None = None) -> dict[str, list[dict[str, Any]]]:
    """Return the rows of a tournament log, by table; raises `TournamentError` when it does not read."""
    checked = audit(path, games)
    state = checked.log.state
    info = state.info
    table = checked.standings
    tid = info.tournament_id
    results: list[dict[str, Any]] = []
    for o in table.tables:
        for team, entry in enumerate(o.entries):
            own = o.totals[team] if o.totals is not None else None
            other = o.totals[1 - team] if o.totals is not None else None
            results.append({
                "tournament_id": tid, "round": o.round, "table_no": o.table, "entry": entry,
                "opponent": o.entries[1 - team], "team": team, "game_id": o.game_id,
                "status": o.status, "points": own, "opponent_points": other,
                "vp": o.vp[team] if o.vp is not None else None, "head": o.head, "reason": o.reason})
    return {
        "tournaments": [{
            "tournament_id": tid, "name": info.name, "form": info.form, "variant": info.variant,
            "movement": info.movement, "deals": info.deals, "rounds": info.rounds,
            "rounds_closed": table.rounds_closed, "entries": len(state.entries),
            "ended": state.ended is not None, "director": info.director, "file": str(path),
            "head": checked.log.head, "audit_ok": not checked.findings, "findings": checked.findings}],
        "tournament_entries": [{
            "tournament_id": tid, "entry": r.entry, "name": r.name, "players": list(r.players),
            "withdrawn": r.withdrawn, "place": r.place, "vp": r.vp, "diff": r.diff,
            "adjusted": r.adjusted} for r in table.rows],
        "tournament_results": results,
    }
