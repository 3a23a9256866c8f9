"""`buraco index` reads the tournament logs it finds beside the games into `tournaments`,
`tournament_entries` and `tournament_results`; the games keep their ordinary rows, and a
tournament log is never taken for a game log (by the index or the audit of a folder)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


def invoke(*args: object, code: int = 0) -> str:
    result = runner.invoke(app, list(map(str, args)))
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result.stdout


@pytest.mark.slow  # plays a Swiss event of 4 games, then indexes it twice
def test_index_stores_the_tournament_beside_its_games(tmp_path: Path) -> None:
    t = tmp_path / "season" / "club.jsonl"
    t.parent.mkdir()
    invoke("tournament", "new", t, "--name", "Club", "--variant", "stbl", "--movement", "swiss",
           "--rounds", "2", "--form", "singles")
    for name in ("ana", "bruno", "carla", "dario", "ema"):
        invoke("tournament", "enter", t, "--players", name)
    for _ in range(2):
        invoke("tournament", "pair", t)
        invoke("tournament", "play", t, "--bots", "greedy,random")
        invoke("tournament", "close", t)
    table = json.loads(invoke("tournament", "standings", t, "--json"))
    db = tmp_path / "b.duckdb"
    said = invoke("index", tmp_path / "season", "--db", db)
    assert "4 games added" in said and "0 rejected" in said and "1 tournament indexed" in said
    audited = invoke("audit", tmp_path / "season").splitlines()  # the tournament log is no game
    assert len(audited) == 4 and all(line.startswith("PASS ") for line in audited)
    invoke("index", tmp_path / "season", "--db", db)  # again: the rows are replaced, not doubled
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT name, movement, rounds_closed, entries, ended, audit_ok FROM tournaments"
                       ).fetchall() == [("Club", "swiss", 2, 5, True, True)]
    entries = con.execute("SELECT entry, place, vp, diff FROM tournament_entries ORDER BY place, entry").fetchall()
    assert entries == [(r["entry"], r["place"], r["vp"], r["diff"]) for r in table["rows"]]
    # each counted result joins its game's ordinary row, the totals as the games table recounts them
    joined = con.execute("""
        SELECT r.points, r.opponent_points, g.totals[r.team + 1], g.totals[2 - r.team]
        FROM tournament_results r JOIN games g USING (game_id) WHERE r.status = 'counted'""").fetchall()
    assert len(joined) == 8 and all(a == c and b == d for a, b, c, d in joined)
    # a season question: victory points per player over the tournaments
    assert con.execute("SELECT sum(vp) FROM tournament_results").fetchone()[0] == 4 * 20


def test_index_rejects_a_tournament_log_edited_by_hand(tmp_path: Path) -> None:
    t = tmp_path / "club.jsonl"
    invoke("tournament", "new", t, "--name", "Club", "--variant", "stbl", "--movement", "danish",
           "--rounds", "1", "--form", "singles")
    invoke("tournament", "enter", t, "--players", "ana")
    invoke("tournament", "enter", t, "--players", "bruno")
    t.write_bytes(t.read_bytes().replace(b'"ana"', b'"ann"'))
    result = runner.invoke(app, ["index", str(tmp_path), "--db", str(tmp_path / "b.duckdb")])
    assert result.exit_code == 1 and "rejected:" in result.stderr and "field prev" in result.stderr
