"""`buraco index` keeps branches apart from the games and reads the rulings beside each game log.

Built on one multi-hand game (two hands, target 1500), a branch of it forked in its second hand
and played to the end, and a rulings log written with the library (`new_ruling`). Every expected
value is computed here from the logs' own lines (the `hand_ended` scores, the `game_ended`
winner) and the rulings' arithmetic, not read back from the index.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.analytics.ingest import index
from buraco_events.analytics.schema import TABLES
from buraco_events.audit.rulings import RulingRequest, append_ruling, new_ruling, rulings_path
from buraco_events.bots.registry import run_game, table_bots
from buraco_events.log.archive import pack
from buraco_events.log.writer import write_log
from buraco_events.play.branch import make_branch
from cli.main import app

runner = CliRunner()
GAME_TABLES = ("games", "hands", "events", "melds", "team_hands")
RULED = ("ruled_totals", "ruled_winner", "rulings")


def _objs(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().split(b"\n")[:-1]]


def _hand_scores(path: Path) -> list[list[int]]:
    """Return each hand's scores as its `hand_ended` line claims them (bots claim right)."""
    return [o["scores"] for o in _objs(path) if o["type"] == "hand_ended"]


def _last_line_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes().split(b"\n")[-2]).hexdigest()


def _rule(game: Path, kind: str, **fields) -> None:
    ruling, path = new_ruling(game, RulingRequest(kind, by="referee Ana", reason=f"why {kind}",
                                                  **fields))
    append_ruling(path, ruling)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A game of two hands and a branch of it beside it, in a folder; the same game alone in
    another folder."""
    root = tmp_path_factory.mktemp("branches")
    events, state = run_game("stbl", 2, 3, table_bots(["greedy", "random"]), "g-multi",
                             target=1500, commit=True)
    folder = root / "logs"
    folder.mkdir()
    game = folder / "g-multi.jsonl"
    write_log(game, events)
    objs = _objs(game)
    started = [o["seq"] for o in objs if o["type"] == "hand_started"]
    assert len(started) == 2 and objs[-1]["type"] == "game_ended"  # the game this file needs
    branch = folder / "g-multi.branch.jsonl"
    make_branch(game, started[1] + 5, branch, by="analyst Bo", reason="another meld",
                seed="1", bots=["random"], until="game")
    alone = root / "alone"
    alone.mkdir()
    shutil.copy(game, alone / game.name)
    index([alone], root / "alone.duckdb")
    return {"alone_db": root / "alone.duckdb","root": root, "folder": folder, "game": game, "branch": branch, "alone": alone,
            "fork": Path(str(started[1] + 5))}


def _rows(db: Path, sql: str, params: list | None = None) -> list[dict]:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute(sql, params or [])
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def _raw(db: Path) -> dict[str, list]:
    """Return every game table's rows but the columns that name where or after rulings."""
    out = {}
    with duckdb.connect(str(db), read_only=True) as con:
        for table in GAME_TABLES:
            cols = [c for c in TABLES[table].names() if c not in ("source", *RULED)]
            select = ", ".join(f'"{c}"' for c in cols)
            out[table] = con.execute(f"SELECT {select} FROM {table} ORDER BY ALL").fetchall()
    return out


# -- branches ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_branch_is_one_row_of_branches_and_in_no_game_table(made, tmp_path):
    db = tmp_path / "d.duckdb"
    report = index([made["folder"]], db)
    # the branch sorts before its game: neither is a conflict, neither is rejected
    assert report.conflicts == [] and report.rejected == []
    assert (report.added, report.branches, report.skipped) == (1, 1, 0)
    alone = tmp_path / "alone.duckdb"
    index([made["alone"]], alone)
    assert _raw(db) == _raw(alone)  # the game's rows, and nothing of the branch's
    (row,) = _rows(db, "SELECT * FROM branches")
    branch = made["branch"]
    objs = _objs(branch)
    scores = _hand_scores(branch)
    fork = int(str(made["fork"]))
    assert row["file"] == str(branch)
    assert row["game_id"] == "g-multi" and row["parent"] == "g-multi"
    assert row["head"] == _last_line_hash(branch)
    assert (row["fork_seq"], row["deck"], row["seat"], row["seed"]) == (fork, "parent", None, "1")
    assert (row["branched_by"], row["reason"]) == ("analyst Bo", "another meld")
    assert row["events"] == len(objs) and row["hands"] == len(scores) == 2
    assert row["totals"] == [sum(s[0] for s in scores), sum(s[1] for s in scores)]
    assert row["winner"] == objs[-1]["winner"] and row["complete"] and row["sealed"]
    assert row["audit_ok"] is True and row["audit_problems"] == []
    assert row["variant"] == "stbl" and row["n_players"] == 2
    # the branch is in no view either
    assert [r["games"] for r in _rows(db, "SELECT games FROM player_standings")] == [1, 1]
    assert [r["games"] for r in _rows(db, "SELECT games FROM win_rates")] == [1]


@pytest.mark.slow
def test_a_branch_again_is_skipped_and_two_branches_of_a_game_are_both_kept(made, tmp_path):
    db = tmp_path / "d.duckdb"
    index([made["branch"]], db)  # the branch first, alone: still not a game
    assert _rows(db, "SELECT count(*) AS n FROM games") == [{"n": 0}]
    report = index([made["folder"]], db)
    assert (report.added, report.branches, report.skipped, report.conflicts) == (1, 0, 1, [])
    other = tmp_path / "other.branch.jsonl"
    make_branch(made["game"], 3, other, by="analyst Bo", reason="early", seed="2",
                bots=["random"], until="hand")
    report = index([other], db)
    assert (report.branches, report.conflicts, report.rejected) == (1, [], [])
    heads = {r["head"]: r for r in _rows(db, "SELECT head, fork_seq, complete FROM branches")}
    assert set(heads) == {_last_line_hash(made["branch"]), _last_line_hash(other)}
    assert heads[_last_line_hash(other)]["fork_seq"] == 3
    assert heads[_last_line_hash(other)]["complete"] is False  # played to its hand's end only
    assert _rows(db, "SELECT count(*) AS n FROM games") == [{"n": 1}]


def test_a_branch_in_an_archive_is_kept_apart_too(made, tmp_path):
    archive = tmp_path / "logs.bza"
    pack([made["folder"]], archive)
    db = tmp_path / "d.duckdb"
    report = index([archive], db)
    assert (report.added, report.branches, report.conflicts, report.rejected) == (1, 1, [], [])
    (row,) = _rows(db, "SELECT file, head FROM branches")
    assert row == {"file": f"{archive}/g-multi.branch.jsonl",
                   "head": _last_line_hash(made["branch"])}
    assert _rows(db, "SELECT source FROM games") == [{"source": f"{archive}/g-multi.jsonl"}]


# -- rulings -------------------------------------------------------------------------------------


@pytest.fixture
def ruled(made, tmp_path) -> Path:
    """The game alone in a folder with its rulings log: void hand 0, 600 more to team 1 in
    hand 1, an award to team 0 withdrawn, an award to team 1, a warning."""
    folder = tmp_path / "ruled"
    folder.mkdir()
    game = folder / "g-multi.jsonl"
    shutil.copy(made["game"], game)
    _rule(game, "hand_voided", hand=0)
    _rule(game, "score_adjusted", hand=1, points=[0, 600])
    _rule(game, "game_awarded", team=0)
    _rule(game, "withdrawn", ruling_seq=2)
    _rule(game, "game_awarded", team=1)
    _rule(game, "warning")
    return folder


def test_rulings_are_read_beside_the_game_and_the_raw_tables_stay(made, ruled, tmp_path):
    db, plain = tmp_path / "ruled.duckdb", tmp_path / "plain.duckdb"
    report = index([ruled], db)
    assert report.rejected == [] and report.added == 1 and report.ruled == 1
    index([made["alone"]], plain)
    assert _raw(db) == _raw(plain)  # the rulings change no raw column of any game table
    scores = _hand_scores(ruled / "g-multi.jsonl")
    raw_totals = [scores[0][0] + scores[1][0], scores[0][1] + scores[1][1]]
    # hand 0 counts 0, hand 1 gets [0, 600] more; the award to team 1 stands
    want = [scores[1][0], scores[1][1] + 600]
    (game,) = _rows(db, "SELECT * FROM games")
    assert game["totals"] == raw_totals and game["winner"] == 0
    assert game["ruled_totals"] == want and game["ruled_winner"] == 1
    assert game["rulings"] == 5  # all but the withdrawn award
    (bare,) = _rows(plain, "SELECT * FROM games")
    assert (bare["ruled_totals"], bare["ruled_winner"], bare["rulings"]) == (raw_totals, 0, 0)
    rows = _rows(db, "SELECT * FROM rulings ORDER BY seq")
    assert [(r["seq"], r["kind"], r["applies"]) for r in rows] == [
        (0, "hand_voided", True), (1, "score_adjusted", True), (2, "game_awarded", False),
        (3, "withdrawn", True), (4, "game_awarded", True), (5, "warning", True)]
    assert rows[2]["why_not"] == "withdrawn by ruling 3"
    assert all(r["why_not"] is None for r in rows if r["applies"])
    assert rows[0]["hand"] == 0 and rows[1]["points"] == [0, 600] and rows[4]["team"] == 1
    assert rows[3]["ruling_seq"] == 2
    assert {r["game_id"] for r in rows} == {"g-multi"}
    assert {r["file"] for r in rows} == {str(rulings_path(ruled / "g-multi.jsonl"))}
    assert {(r["ruled_by"], r["reason"]) for r in rows[:1]} == {("referee Ana", "why hand_voided")}


def test_standings_after_rulings_are_columns_beside_the_raw_ones(ruled, tmp_path):
    db = tmp_path / "d.duckdb"
    index([ruled], db)
    scores = _hand_scores(ruled / "g-multi.jsonl")
    standings = {r["player"]: r for r in _rows(db, "SELECT * FROM player_standings")}
    # raw: team 0 (greedy-0, seat 0) won; after rulings the award gives it to team 1
    assert (standings["greedy-0"]["wins"], standings["random-1"]["wins"]) == (1, 0)
    assert (standings["greedy-0"]["ruled_wins"], standings["random-1"]["ruled_wins"]) == (0, 1)
    assert standings["random-1"]["ruled_win_rate"] == 1.0
    assert standings["greedy-0"]["ruled_win_rate"] == 0.0
    assert standings["greedy-0"]["avg_team_total"] == scores[0][0] + scores[1][0]
    assert standings["greedy-0"]["ruled_avg_team_total"] == scores[1][0]
    assert standings["random-1"]["ruled_avg_team_total"] == scores[1][1] + 600
    assert all(r["games"] == r["ruled_games"] == 1 for r in standings.values())
    (rates,) = _rows(db, "SELECT * FROM win_rates")
    # the game's first team is 0 (seat 0 deals... as the log says): read it from the games row
    (first,) = _rows(db, "SELECT first_team FROM games")
    assert rates["team0_win_rate"] == 1.0 and rates["ruled_team0_win_rate"] == 0.0
    assert rates["first_team_win_rate"] == float(first["first_team"] == 0)
    assert rates["ruled_first_team_win_rate"] == float(first["first_team"] == 1)
    assert rates["games"] == rates["ruled_games"] == 1


def _reseal(objs: list[dict]) -> bytes:
    out, prev = [], "0" * 64
    for obj in objs:
        obj = {"type": obj["type"], "seq": obj["seq"], "prev": prev,
               **{k: v for k, v in obj.items() if k not in ("type", "seq", "prev")}}
        line = json.dumps(obj, separators=(",", ":")).encode()
        out.append(line)
        prev = hashlib.sha256(line).hexdigest()
    return b"".join(line + b"\n" for line in out)


def test_a_ruling_on_a_log_changed_since_does_not_apply(ruled, tmp_path):
    folder = tmp_path / "changed"
    folder.mkdir()
    game = folder / "g-multi.jsonl"
    objs = _objs(ruled / "g-multi.jsonl")
    objs[0]["players"] = ["greedy-X", "random-1"]  # one byte of line 0, the chain sealed anew
    game.write_bytes(_reseal(objs))
    shutil.copy(rulings_path(ruled / "g-multi.jsonl"), rulings_path(game))
    db = tmp_path / "d.duckdb"
    report = index([folder], db)
    assert report.rejected == [] and report.added == 1
    rows = _rows(db, "SELECT seq, applies, why_not FROM rulings ORDER BY seq")
    assert len(rows) == 6 and not any(r["applies"] for r in rows)
    assert all(r["why_not"].startswith("the game log changed") for r in rows)
    (g,) = _rows(db, "SELECT totals, winner, ruled_totals, ruled_winner, rulings FROM games")
    assert (g["ruled_totals"], g["ruled_winner"], g["rulings"]) == (g["totals"], g["winner"], 0)


def test_a_rulings_log_that_grew_or_went_is_read_again(made, tmp_path):
    folder = tmp_path / "live"
    folder.mkdir()
    game = folder / "g-multi.jsonl"
    shutil.copy(made["game"], game)
    scores = _hand_scores(game)
    _rule(game, "score_adjusted", hand=0, points=[-100, 50])
    db = tmp_path / "d.duckdb"
    index([folder], db)
    want = [scores[0][0] - 100 + scores[1][0], scores[0][1] + 50 + scores[1][1]]
    assert _rows(db, "SELECT ruled_totals, rulings FROM games") == [
        {"ruled_totals": want, "rulings": 1}]
    _rule(game, "hand_voided", hand=1)  # the rulings log grows after the index
    report = index([folder], db)
    assert (report.skipped, report.added, report.ruled) == (1, 0, 1)
    want = [scores[0][0] - 100, scores[0][1] + 50]
    assert _rows(db, "SELECT ruled_totals, rulings FROM games") == [
        {"ruled_totals": want, "rulings": 2}]
    assert [r["kind"] for r in _rows(db, "SELECT kind FROM rulings ORDER BY seq")] == [
        "score_adjusted", "hand_voided"]
    rulings_path(game).unlink()  # gone: the game stands as recounted
    index([folder], db)
    (g,) = _rows(db, "SELECT totals, winner, ruled_totals, ruled_winner, rulings FROM games")
    assert (g["ruled_totals"], g["ruled_winner"], g["rulings"]) == (g["totals"], g["winner"], 0)
    assert _rows(db, "SELECT count(*) AS n FROM rulings") == [{"n": 0}]


def test_replay_from_takes_the_hands_after_the_fork_from_the_branch_beside(made, tmp_path):
    folder = tmp_path / "replayed"
    shutil.copytree(made["folder"], folder)
    game, branch = folder / "g-multi.jsonl", folder / "g-multi.branch.jsonl"
    _rule(game, "replay_from", branch=branch)
    db = tmp_path / "d.duckdb"
    report = index([folder], db)
    assert (report.added, report.branches, report.rejected) == (1, 1, [])
    parent, other = _hand_scores(game), _hand_scores(branch)
    # the fork is in hand 1: hand 0 is the game's (the branch's is the same), hand 1 the branch's
    assert other[0] == parent[0]
    want = [parent[0][0] + other[1][0], parent[0][1] + other[1][1]]
    (g,) = _rows(db, "SELECT ruled_totals, ruled_winner, rulings FROM games")
    assert g == {"ruled_totals": want, "ruled_winner": _objs(branch)[-1]["winner"], "rulings": 1}
    (r,) = _rows(db, "SELECT kind, hand, branch_head, applies FROM rulings")
    assert r == {"kind": "replay_from", "hand": 1, "branch_head": _last_line_hash(branch),
                 "applies": True}


def test_a_damaged_rulings_log_is_reported_and_the_game_kept(made, tmp_path):
    folder = tmp_path / "damaged"
    folder.mkdir()
    game = folder / "g-multi.jsonl"
    shutil.copy(made["game"], game)
    _rule(game, "warning")
    _rule(game, "hand_voided", hand=0)
    path = rulings_path(game)
    lines = path.read_bytes().split(b"\n")
    # line 0 edited: line 1's prev no longer chains, so reading stops before it
    path.write_bytes(lines[0].replace(b"why warning", b"why warnin!") + b"\n" + lines[1] + b"\n")
    db = tmp_path / "d.duckdb"
    report = index([folder], db)
    assert report.added == 1
    (rejected,) = report.rejected
    assert rejected.source == str(path) and "no ruling from line 1 on counts" in rejected.reason
    # the edited line is stored as read, and does not count: nothing after it proves it
    assert _rows(db, "SELECT kind, applies FROM rulings") == [{"kind": "warning", "applies": False}]
    (g,) = _rows(db, "SELECT totals, ruled_totals, rulings FROM games")
    assert g["ruled_totals"] == g["totals"] and g["rulings"] == 0


# -- the command line ----------------------------------------------------------------------------


def test_index_says_branches_apart_and_sql_reads_the_new_tables(made, ruled, tmp_path):
    folder = tmp_path / "both"
    shutil.copytree(ruled, folder)
    shutil.copy(made["branch"], folder / made["branch"].name)
    db = tmp_path / "d.duckdb"
    done = runner.invoke(app, ["index", str(folder), "--db", str(db), "--workers", "1"])
    assert done.exit_code == 0, done.output
    assert "1 game added" in done.output and "0 conflicts" in done.output
    assert "1 branch added to the branches table (never counted as games)" in done.output
    assert "rulings read for 1 game (the rulings table; games.ruled_totals" in done.output
    done = runner.invoke(app, ["sql", "SELECT game_id, fork_seq, branched_by FROM branches",
                               "--db", str(db), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) == [{"game_id": "g-multi", "fork_seq": int(str(made["fork"])),
                                        "branched_by": "analyst Bo"}]
    done = runner.invoke(app, ["sql", "SELECT seq, kind, applies FROM rulings ORDER BY seq",
                               "--db", str(db), "--json"])
    assert done.exit_code == 0, done.output
    assert [r["applies"] for r in json.loads(done.stdout)] == [True, True, False, True, True, True]
    done = runner.invoke(app, ["sql", "--help"])
    assert "branches" in done.output and "rulings" in done.output


@pytest.mark.slow
def test_export_keeps_branches_and_rulings_and_reads_them_back(made, ruled, tmp_path):
    folder = tmp_path / "both"
    shutil.copytree(ruled, folder)
    shutil.copy(made["branch"], folder / made["branch"].name)
    db, out = tmp_path / "d.duckdb", tmp_path / "pq"
    index([folder], db)
    assert runner.invoke(app, ["export", "--db", str(db), "--parquet", str(out)]).exit_code == 0
    for relation in ("branches", "rulings", "games", "player_standings", "win_rates"):
        sql = f"SELECT * FROM {relation} ORDER BY ALL"
        over_db = runner.invoke(app, ["sql", sql, "--db", str(db), "--json"])
        over_parquet = runner.invoke(app, ["sql", sql, "--parquet", str(out), "--json"])
        assert over_parquet.exit_code == 0, over_parquet.output
        assert json.loads(over_parquet.stdout) == json.loads(over_db.stdout) != []


@pytest.mark.slow
def test_a_database_indexed_before_rulings_judges_its_games_when_they_come_again(ruled, tmp_path):
    db = tmp_path / "old.duckdb"
    index([ruled], db)
    with duckdb.connect(str(db)) as con:  # as a database of the release before rulings
        con.execute("DROP VIEW counted_games CASCADE")
        con.execute("DROP TABLE rulings")
        con.execute("DROP TABLE branches")
        for column in ("rulings", "ruled_winner", "ruled_totals"):
            con.execute(f"ALTER TABLE games DROP COLUMN {column}")
    shutil.copy(ruled / "g-multi.jsonl", tmp_path / "copy.jsonl")  # the same game, no rulings
    report = index([tmp_path / "copy.jsonl"], db)
    assert (report.skipped, report.ruled) == (1, 1)  # not judged yet: judged (no rulings there)
    (g,) = _rows(db, "SELECT totals, winner, ruled_totals, ruled_winner, rulings FROM games")
    assert (g["ruled_totals"], g["ruled_winner"], g["rulings"]) == (g["totals"], g["winner"], 0)
    report = index([ruled], db)  # its own folder, with its rulings log
    assert (report.skipped, report.ruled) == (1, 1)
    assert _rows(db, "SELECT ruled_winner, rulings FROM games") == [
        {"ruled_winner": 1, "rulings": 5}]
    report = index([tmp_path / "copy.jsonl"], db)  # a copy elsewhere leaves its rulings
    assert (report.skipped, report.ruled) == (1, 0)
    assert _rows(db, "SELECT rulings FROM games") == [{"rulings": 5}]


@pytest.mark.spark
def test_spark_index_keeps_branches_apart_and_judges_no_rulings(made, ruled, tmp_path,
                                                              monkeypatch):
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java")
    from pyspark.sql import SparkSession

    from buraco_events.analytics.queries import connect_parquet

    root = Path(__file__).resolve().parent.parent
    monkeypatch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    folder = tmp_path / "both"
    shutil.copytree(ruled, folder)  # the game and its rulings log (a *.jsonl file too)
    shutil.copy(made["branch"], folder / made["branch"].name)
    shutil.copy(made["branch"], folder / "same-branch-again.jsonl")
    out = tmp_path / "pq"
    try:
        done = runner.invoke(app, ["spark-index", str(folder), "--out", str(out),
                                   "--master", "local[1]"])
    finally:
        active = SparkSession.getActiveSession()
        if active is not None:
            active.stop()
    assert done.exit_code == 0, done.output[-2000:]
    db = tmp_path / "d.duckdb"
    index([folder], db)
    with connect_parquet(out) as pcon:
        games = pcon.execute("SELECT game_id, totals, ruled_totals, ruled_winner, rulings "
                             "FROM games").fetchall()
        branches = pcon.execute("SELECT head, fork_seq, totals FROM branches").fetchall()
        n_rulings = pcon.execute("SELECT count(*) FROM rulings").fetchone()[0]
    # one game (its branch is no conflict); its rulings not read: not judged, not the recount's
    (game,) = games
    assert game[0] == "g-multi" and game[2:] == (None, None, None)
    assert branches == _rows_tuples(db, "SELECT head, fork_seq, totals FROM branches")
    assert len(branches) == 1 and n_rulings == 0


def _rows_tuples(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.one_of(
    st.tuples(st.just("void"), st.integers(0, 1)),
    st.tuples(st.just("adjust"), st.integers(0, 1), st.integers(-500, 500), st.integers(-500, 500)),
    st.tuples(st.just("withdraw"), st.integers(0, 10))), min_size=1, max_size=6))
def test_ruled_totals_are_the_rulings_sum_and_the_raw_columns_never_move(made, tmp_path, plan):
    folder = Path(tempfile.mkdtemp(dir=tmp_path))  # one per example (tmp_path is shared)
    game = folder / "g-multi.jsonl"
    shutil.copy(made["game"], game)
    hands = [list(h) for h in _hand_scores(game)]
    made_rulings: list[tuple] = []  # (kind, hand, points) per ruling seq, None once withdrawn
    voided: set[int] = set()
    for step in plan:
        if step[0] == "void" and not any(r and r[1] == step[1] for r in made_rulings):
            _rule(game, "hand_voided", hand=step[1])  # a hand voided is adjusted no more here
            made_rulings.append(("void", step[1], None))
            voided.add(step[1])
        elif step[0] == "adjust" and step[1] not in voided:
            _rule(game, "score_adjusted", hand=step[1], points=[step[2], step[3]])
            made_rulings.append(("adjust", step[1], (step[2], step[3])))
        elif step[0] == "withdraw" and step[1] < len(made_rulings) and made_rulings[step[1]]:
            if made_rulings[step[1]][0] != "withdrawn":
                _rule(game, "withdrawn", ruling_seq=step[1])
                if made_rulings[step[1]][0] == "void":
                    voided.discard(made_rulings[step[1]][1])
                made_rulings[step[1]] = None
                made_rulings.append(("withdrawn", None, None))
    if not made_rulings:
        return
    db = folder / "d.duckdb"
    index([game], db)
    want = [list(h) for h in hands]
    for r in made_rulings:
        if r and r[0] == "void":
            want[r[1]] = [0, 0]
    for r in made_rulings:
        if r and r[0] == "adjust":
            want[r[1]] = [want[r[1]][t] + r[2][t] for t in range(2)]
    (g,) = _rows(db, "SELECT * FROM games")
    assert g["ruled_totals"] == [sum(h[t] for h in want) for t in range(2)]
    assert g["totals"] == [sum(h[t] for h in hands) for t in range(2)]
    assert _raw(db) == _raw(made["alone_db"])
