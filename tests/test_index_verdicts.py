"""The index records each stored game's audit verdict (issue: trust).

`games.audit_ok` and `games.audit_problems` say what `buraco audit` says of the same log (its
problems' kinds, in its words); `--passed-only` leaves the failing games out of every view and of
`stats`; `index --strict` rejects them instead of storing them.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.analytics.ingest import check_chunk, index
from buraco_events.analytics.sqlviews import VIEWS
from buraco_events.audit.auditor import audit_lines
from buraco_events.audit.verdicts import KINDS
from buraco_events.log.lines import RawLines
from cli.main import app

DISPUTES = Path(__file__).resolve().parent.parent / "data" / "disputes"
CLEAN = (DISPUTES / "clean.jsonl").read_bytes().split(b"\n")[:-1]
runner = CliRunner()


def _seqs(lines: list[bytes], tag: str) -> list[int]:
    return [i for i, line in enumerate(lines) if json.loads(line)["type"] == tag]


def _reseal(objs: list[dict], sealed: bool = True) -> list[bytes]:
    """Return the events as lines, sealed anew (or with no prev at all)."""
    out: list[bytes] = []
    prev = "0" * 64
    for seq, obj in enumerate(objs):
        obj = {**obj, "seq": seq}
        obj.pop("prev", None)
        if sealed:
            obj = {"type": obj["type"], "seq": seq, "prev": prev,
                   **{k: v for k, v in obj.items() if k not in ("type", "seq")}}
        out.append(json.dumps(obj, separators=(",", ":")).encode())
        prev = hashlib.sha256(out[-1]).hexdigest()
    return out


#: edits a referee meets, each sealed anew so the chain holds (what the index stores)
EDITS = ("claim", "totals", "winner", "salt", "commitment", "cut", "unsealed", "none")


def _edited(edits: list[str], cut_at: int) -> list[bytes]:
    objs = [json.loads(line) for line in CLEAN]
    ended = _seqs(CLEAN, "hand_ended")[0]
    started = _seqs(CLEAN, "hand_started")[0]
    sealed = True
    for edit in edits:
        if edit == "claim":
            objs[ended]["scores"] = [objs[ended]["scores"][0] + 5, objs[ended]["scores"][1]]
        elif edit == "totals":
            objs[-1]["totals"] = [objs[-1]["totals"][0], objs[-1]["totals"][1] - 5]
        elif edit == "winner":
            objs[-1]["winner"] = 1 - objs[-1]["winner"]
        elif edit == "salt":
            objs[ended].pop("salt", None)
        elif edit == "commitment":
            objs[started]["commitment"] = "f" * 64
        elif edit == "unsealed":
            sealed = False
    if "cut" in edits:
        objs = objs[:cut_at]
    return _reseal(objs, sealed)


def _audit_kinds(lines: list[bytes]) -> tuple[bool, list[str]]:
    audit = audit_lines(lines, "x.jsonl")
    kinds = set(audit.kind_counts)
    return audit.report.ok, [k for k in KINDS if k in kinds]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(EDITS), max_size=3, unique=True),
       st.integers(2, len(CLEAN) - 1))
def test_the_stored_verdict_is_the_audits(edits: list[str], cut_at: int) -> None:
    lines = _edited(edits, cut_at)
    ok, kinds = _audit_kinds(lines)
    chunk = check_chunk([("x.jsonl", RawLines("x.jsonl", lines))])
    [outcome] = chunk.outcomes
    games = chunk.tables["games"].to_pylist()
    assert len(games) == 1, outcome  # a sealed, legal log is always stored
    assert games[0]["audit_ok"] == ok
    assert games[0]["audit_problems"] == kinds


@pytest.mark.parametrize("field", ["scores", "totals"])
@pytest.mark.parametrize("teams", [(5, 0), (0, 5), (5, -5)], ids=["team 0", "team 1", "both"])
def test_a_forged_claim_of_either_team_is_stored_as_failing(field: str, teams: tuple[int, int]) -> None:
    """A hand's scores or the game's totals forged for team 0 alone, team 1 alone or both, sealed
    anew: the stored verdict fails on the score, whatever team the forgery favours."""
    objs = [json.loads(line) for line in CLEAN]
    at = _seqs(CLEAN, "hand_ended")[0] if field == "scores" else len(objs) - 1
    objs[at][field] = [objs[at][field][0] + teams[0], objs[at][field][1] + teams[1]]
    chunk = check_chunk([("x.jsonl", RawLines("x.jsonl", _reseal(objs)))])
    (game,) = chunk.tables["games"].to_pylist()
    assert game["audit_ok"] is False and game["audit_problems"] == ["score"]


@pytest.mark.slow
def test_strict_rejects_what_fails_and_the_views_can_leave_it_out(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a-clean.jsonl").write_bytes(b"\n".join(CLEAN) + b"\n")
    claim = [json.loads(line) for line in _edited(["claim"], 0)]
    claim[0]["game_id"] = "other"  # another game, its score claim off by 5
    (logs / "b-claim.jsonl").write_bytes(b"\n".join(_reseal(claim)) + b"\n")

    db = tmp_path / "all.duckdb"
    result = runner.invoke(app, ["index", str(logs), "--db", str(db), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "1 of them failing the audit" in result.stdout
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT game_id, audit_ok, audit_problems FROM games ORDER BY 1").fetchall()
    assert rows == [("club-stbl-4p-007", True, []), ("other", False, ["score"])]

    def games_in(view: str, *flags: str) -> int:
        out = runner.invoke(app, ["sql", f"SELECT count(*) AS n FROM {view}", "--db", str(db),
                                  "--json", *flags])
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)[0]["n"]

    assert games_in("counted_games") == 2
    assert games_in("counted_games", "--passed-only") == 1
    assert games_in("player_standings") == 4  # four names, each in both games
    stats = json.loads(runner.invoke(app, ["stats", "--db", str(db), "--json"]).stdout)
    passed = json.loads(runner.invoke(app, ["stats", "--db", str(db), "--json",
                                            "--passed-only"]).stdout)
    assert stats["closing_rates"][0]["hands"] == 2
    assert passed["closing_rates"][0]["hands"] == 1
    assert stats["win_rates"][0]["games"] == 2 and passed["win_rates"][0]["games"] == 1

    strict = tmp_path / "strict.duckdb"
    result = runner.invoke(app, ["index", str(logs), "--db", str(strict), "--strict",
                                 "--workers", "1"])
    assert result.exit_code == 1
    assert "b-claim.jsonl: fails the audit (score;" in result.stderr
    with duckdb.connect(str(strict), read_only=True) as con:
        assert con.execute("SELECT game_id FROM games").fetchall() == [("club-stbl-4p-007",)]


def test_every_view_counts_only_counted_games() -> None:
    # a view reading `games` directly would count the failing games whatever --passed-only says
    for name, view in VIEWS.items():
        if name != "counted_games":
            assert "counted_games" in view.sql, name
            assert not re.search(r"\b(FROM|JOIN)\s+games\b", view.sql, re.IGNORECASE), name


def test_a_database_indexed_before_the_verdict_gains_its_columns(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    log = tmp_path / "clean.jsonl"
    log.write_bytes(b"\n".join(CLEAN) + b"\n")
    index([log], db)
    with duckdb.connect(str(db)) as con:  # as a database of the release before the verdict
        con.execute("DROP VIEW counted_games CASCADE")
        for column in ("rulings", "ruled_winner", "ruled_totals"):  # nor the rulings, later
            con.execute(f"ALTER TABLE games DROP COLUMN {column}")
        con.execute("ALTER TABLE games DROP COLUMN audit_problems")
        con.execute("ALTER TABLE games DROP COLUMN audit_ok")
    other = [json.loads(line) for line in CLEAN]
    other[0]["game_id"] = "other"
    log2 = tmp_path / "other.jsonl"
    log2.write_bytes(b"\n".join(_reseal(other)) + b"\n")
    report = index([log2], db)
    assert report.added == 1 and report.ok
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT game_id, audit_ok FROM games ORDER BY 1").fetchall()
    assert rows == [("club-stbl-4p-007", None), ("other", True)]  # not judged is no pass
    out = runner.invoke(app, ["sql", "SELECT count(*) AS n FROM counted_games", "--db", str(db),
                              "--json", "--passed-only"])
    assert json.loads(out.stdout)[0]["n"] == 1


def test_sql_help_documents_the_verdict_columns() -> None:
    out = runner.invoke(app, ["sql", "--help"], env={"COLUMNS": "200"})
    assert "audit_ok" in out.stdout and "--passed-only" in out.stdout
