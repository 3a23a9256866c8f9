"""Analytics: logs indexed into DuckDB match the engine's replay; the CLI's index, sql, stats, export."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from statistics import mean, median

import duckdb
import msgspec
import pyarrow.dataset as ds
import pytest
from helpers import hide_matplotlib, random_game
from typer.testing import CliRunner

from buraco_events import build
from buraco_events.analytics import ingest, rows
from buraco_events.analytics.ingest import Rejected, check_chunk, index
from buraco_events.analytics.rows import Columns
from buraco_events.analytics.schema import TABLES
from buraco_events.analytics.sqlviews import VIEWS
from buraco_events.audit.files import audit_path
from buraco_events.core.cards import ALL_CARDS
from buraco_events.core.engine import play
from buraco_events.core.state import GameState
from buraco_events.log.archive import pack
from buraco_events.log.sources import iter_logs, read_log
from buraco_events.log.writer import write_log
from buraco_events.model.events import (
    Discarded,
    Drew,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    Note,
    TookDead,
    TookPile,
    seal_lines,
)
from buraco_events.play.branch import make_branch
from buraco_events.views.projections import meld_kind
from cli.main import app

GAMES = [("stbl", 2, 1), ("stbl", 4, 2), ("burraco", 2, 3), ("aberto", 4, 4), ("fechado", 2, 5)]

runner = CliRunner()


def cli(*args: str):
    """Run the app; return the result (stdout and stderr apart)."""
    return runner.invoke(app, list(args))


def db_counts(db: Path) -> dict[str, int]:
    """Return the row count of every table."""
    with duckdb.connect(str(db), read_only=True) as con:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    """A folder of sealed logs of whole random games."""
    folder = tmp_path_factory.mktemp("logs")
    for variant, n, seed in GAMES:
        write_log(folder / f"{variant}-{n}p-{seed}.jsonl", random_game(variant, n, seed))
    return folder


@pytest.fixture(scope="module")
def indexed(logs: Path, tmp_path_factory) -> Path:
    """A database indexed once from `logs` (tests that change a database copy it first)."""
    db = tmp_path_factory.mktemp("db") / "games.duckdb"
    result = cli("index", str(logs), "--db", str(db))
    assert result.exit_code == 0, result.stderr
    return db


@pytest.fixture
def db_copy(indexed: Path, tmp_path: Path) -> Path:
    """A private copy of the indexed database."""
    db = tmp_path / "copy.duckdb"
    shutil.copy(indexed, db)
    return db


def engine_facts(path: Path) -> dict:
    """Replay a log through the engine and collect what the database must hold about it."""
    state = GameState()
    events = 0
    types: Counter[str] = Counter()
    canastas: Counter[tuple[int, str]] = Counter()  # (hand, kind) from the final melds
    totals: list[tuple[int, int, int]] = []  # (hand, team, total)
    for _, _, ev in read_log(path):
        play(state, ev)
        events += 1
        types[type(ev).__struct_config__.tag] += 1
        if isinstance(ev, HandEnded):
            for m in state.melds:
                canastas[(ev.hand, meld_kind(m.canasta(state.rules)))] += 1
            totals += [(ev.hand, s.team, s.total) for s in state.hand_results[-1]]
    return {"state": state, "events": events, "types": types, "canastas": canastas,
            "totals": totals}


@pytest.mark.slow
def test_database_matches_the_engine_replay(logs: Path, indexed: Path):
    con = duckdb.connect(str(indexed), read_only=True)
    files = sorted(logs.glob("*.jsonl"))
    assert con.execute("SELECT count(*) FROM games").fetchone()[0] == len(files)
    for path in files:
        facts = engine_facts(path)
        state = facts["state"]
        gid = state.game_id
        row = con.execute(
            "SELECT events, hands, totals, winner, complete, sealed, variant FROM games "
            "WHERE game_id = ?", [gid]).fetchone()
        assert row == (facts["events"], len(state.hand_results), state.totals, state.winner,
                       True, True, state.variant)
        assert con.execute("SELECT count(*) FROM events WHERE game_id = ?", [gid]).fetchone()[0] \
            == len(path.read_bytes().splitlines())
        by_type = dict(con.execute(
            "SELECT type, count(*) FROM events WHERE game_id = ? GROUP BY type", [gid]).fetchall())
        assert by_type == dict(facts["types"])
        assert con.execute("SELECT count(*) FROM hands WHERE game_id = ?", [gid]).fetchone()[0] \
            == len(state.hand_results)
        kinds = Counter({(h, k): n for h, k, n in con.execute(
            "SELECT hand, kind, count(*) FROM melds WHERE game_id = ? GROUP BY ALL", [gid]
        ).fetchall()})
        assert kinds == facts["canastas"]
        team_totals = con.execute(
            "SELECT hand, team, total FROM team_hands WHERE game_id = ? ORDER BY hand, team", [gid]
        ).fetchall()
        assert team_totals == facts["totals"]
        # every hand's recorded claim agrees with the engine for games the engine itself ran
        assert con.execute("SELECT bool_and(claims_match) FROM hands WHERE game_id = ?",
                           [gid]).fetchone()[0] is True
    # the view counts canastas exactly as the melds table does
    view = dict(con.execute(
        "SELECT kind, sum(canastas) FROM canasta_rates GROUP BY kind").fetchall())
    table = dict(con.execute(
        "SELECT kind, count(*) FROM melds WHERE kind <> 'none' GROUP BY kind").fetchall())
    assert {k: v for k, v in view.items() if v} == table
    con.close()


def test_reindex_is_idempotent(logs: Path, db_copy: Path):
    before = db_counts(db_copy)
    result = cli("index", str(logs), "--db", str(db_copy))
    assert result.exit_code == 0, result.stderr
    assert f"0 games added, 0 replaced, {len(GAMES)} already indexed" in result.stdout
    assert db_counts(db_copy) == before


def test_a_changed_log_is_a_conflict_until_replace(logs: Path, db_copy: Path, tmp_path: Path):
    source = sorted(logs.glob("*.jsonl"))[0]
    events = [ev for _, _, ev in read_log(source)]
    grown = tmp_path / "grown.jsonl"
    # the same game written again with one more line (nothing may follow game_ended, docs/log-format.md,
    # so the note goes before it): another head for the same game id
    write_log(grown, [*events[:-1], Note(seq=0, by="referee", text="checked"), events[-1]])
    before = db_counts(db_copy)

    result = cli("index", str(grown), "--db", str(db_copy))
    assert result.exit_code == 1
    assert "conflict:" in result.stderr and events[0].game_id in result.stderr
    assert db_counts(db_copy) == before

    result = cli("index", str(grown), "--db", str(db_copy), "--replace")
    assert result.exit_code == 0, result.stderr
    assert "1 replaced" in result.stdout
    after = db_counts(db_copy)
    assert after == before | {"events": before["events"] + 1}
    with duckdb.connect(str(db_copy), read_only=True) as con:
        assert con.execute("SELECT count(*), any_value(source) FROM games WHERE game_id = ?",
                           [events[0].game_id]).fetchone() == (1, str(grown))


@pytest.mark.slow
def test_an_illegal_log_is_rejected_and_the_rest_indexed(tmp_path: Path):
    events = random_game("stbl", 2, 7)
    bad_at = next(i for i, ev in enumerate(events) if isinstance(ev, Discarded))
    state = GameState()
    for ev in events[:bad_at]:
        play(state, ev)
    # the discard names a card the player does not hold: the engine must refuse it
    absent = next(c for c in ALL_CARDS if c not in state.hands[events[bad_at].player])
    events[bad_at] = msgspec.structs.replace(events[bad_at], card=absent)
    folder = tmp_path / "logs"
    folder.mkdir()
    bad = folder / "a-bad.jsonl"
    bad.write_bytes(b"".join(line + b"\n" for line in seal_lines(events)))
    write_log(folder / "b-good.jsonl", random_game("stbl", 2, 8))
    db = tmp_path / "t.duckdb"
    result = cli("index", str(folder), "--db", str(db))
    assert result.exit_code == 1
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and str(bad) in lines[0] and f"seq {bad_at}" in lines[0]
    assert "Traceback" not in result.stderr
    assert db_counts(db)["games"] == 1

    # the same bad log alone leaves an existing database exactly as it was
    before = db_counts(db)
    assert cli("index", str(bad), "--db", str(db)).exit_code == 1
    assert db_counts(db) == before


def table_rows(db: Path) -> dict[str, list[tuple]]:
    """Return every table's rows but the games' source (a path), sorted (insertion order aside)."""
    with duckdb.connect(str(db), read_only=True) as con:
        return {t: sorted(con.execute(f"SELECT * EXCLUDE ({'source' if t == 'games' else '_'}) "
                                      f"FROM (SELECT *, 0 AS _ FROM {t})").fetchall(), key=repr)
                for t in TABLES}


@pytest.mark.slow
def test_a_chunk_stores_exactly_the_rows_of_its_admitted_logs(logs: Path, tmp_path: Path):
    # one chunk holding, in turn, logs already stored (skipped), new logs, a rejected log and a
    # changed log of a stored game (a conflict, or with `replace` its new rows): the rows of the
    # logs admitted alone are stored, whatever runs of the chunk they form
    files = sorted(logs.glob("*.jsonl"))
    stored = files[0::2]
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for path in files:
        shutil.copy(path, mixed / path.name)
    bad = seal_lines(random_game("stbl", 2, 7))
    bad[3] = b"{not an event"  # a format error: rejected
    (mixed / "c-bad.jsonl").write_bytes(b"".join(line + b"\n" for line in bad))
    events = [ev for _, _, ev in read_log(stored[0])]
    grown = [*events[:-1], Note(seq=0, by="referee", text="checked"), events[-1]]
    write_log(mixed / "d-grown.jsonl", grown)  # the same game, another head
    whole, whole_grown = tmp_path / "whole.duckdb", tmp_path / "whole-grown.duckdb"
    assert index([logs], whole).ok
    regrown = tmp_path / "regrown"
    regrown.mkdir()
    for path in files[1:]:
        shutil.copy(path, regrown / path.name)
    write_log(regrown / stored[0].name, grown)
    assert index([regrown], whole_grown).ok

    for replace, expected in ((False, whole), (True, whole_grown)):
        db = tmp_path / f"replace-{replace}.duckdb"
        assert index(stored, db).added == len(stored)
        report = index([mixed], db, replace=replace, chunk_logs=100)
        assert (report.added, report.skipped, len(report.rejected), len(report.conflicts),
                report.replaced) == (len(files) - len(stored), len(stored), 1, 1 - replace, int(replace))
        assert table_rows(db) == table_rows(expected)


def test_an_unfinished_game_is_indexed_as_incomplete(tmp_path: Path):
    events = random_game("fechado", 2, 11)
    cut = [i for i, ev in enumerate(events) if isinstance(ev, HandEnded)][0] + 5  # inside hand 1
    path = tmp_path / "live.jsonl"
    write_log(path, events[:cut])
    db = tmp_path / "t.duckdb"
    assert cli("index", str(path), "--db", str(db)).exit_code == 0
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT complete, winner, hands, events FROM games").fetchall() == [
            (False, None, 1, cut)]
        assert con.execute("SELECT count(*) FROM events").fetchall() == [(cut,)]
        assert con.execute("SELECT count(*) FROM hands").fetchall() == [(1,)]


def test_a_tampered_line_is_rejected_by_the_chain(tmp_path: Path):
    path = tmp_path / "t.jsonl"
    write_log(path, random_game("stbl", 2, 9))
    lines = path.read_bytes().splitlines()
    lines[3] = lines[3].replace(b'"player":0', b'"player":1') if b'"player":0' in lines[3] \
        else lines[3].replace(b'"player":1', b'"player":0')
    path.write_bytes(b"".join(ln + b"\n" for ln in lines))
    result = cli("index", str(path), "--db", str(tmp_path / "t.duckdb"))
    assert result.exit_code == 1
    assert "line 5" in result.stderr and "prev" in result.stderr


def test_an_archive_indexes_like_its_folder(logs: Path, indexed: Path, tmp_path: Path):
    archive = tmp_path / "games.bza"
    pack(logs, archive)
    db = tmp_path / "a.duckdb"
    result = cli("index", str(archive), "--db", str(db))
    assert result.exit_code == 0, result.stderr
    assert db_counts(db) == db_counts(indexed)


def test_sql_is_read_only(indexed: Path):
    before = db_counts(indexed)
    result = cli("sql", "DELETE FROM games", "--db", str(indexed))
    assert result.exit_code == 1
    assert len(result.stderr.strip().splitlines()) == 1 and "read-only" in result.stderr
    assert "Traceback" not in result.stderr
    assert db_counts(indexed) == before


def test_a_bad_query_is_one_line(indexed: Path):
    result = cli("sql", "SELEC 1 FROM nowhere", "--db", str(indexed))
    assert result.exit_code == 1
    assert len(result.stderr.strip().splitlines()) == 1 and "syntax error" in result.stderr
    result = cli("sql", "SELECT nope FROM games", "--db", str(indexed))
    assert result.exit_code == 1
    assert len(result.stderr.strip().splitlines()) == 1 and "nope" in result.stderr


def test_a_missing_database_exits_2(tmp_path: Path):
    for args in (["sql", "SELECT 1"], ["stats"], ["export", "--parquet", str(tmp_path / "p")]):
        result = cli(*args, "--db", str(tmp_path / "none.duckdb"))
        assert result.exit_code == 2 and "no database" in result.stderr
    assert not (tmp_path / "none.duckdb").exists()


def test_sql_json_and_csv(indexed: Path):
    query = "SELECT game_id, players, totals FROM games ORDER BY game_id"
    rows = json.loads(cli("sql", query, "--db", str(indexed), "--json").stdout)
    assert len(rows) == len(GAMES) and all(len(r["totals"]) == 2 for r in rows)
    assert {len(r["players"]) for r in rows} == {2, 4}
    csv_lines = cli("sql", query, "--db", str(indexed), "--csv").stdout.splitlines()
    assert csv_lines[0] == "game_id,players,totals" and len(csv_lines) == len(GAMES) + 1
    table = cli("sql", query, "--db", str(indexed)).stdout
    assert all(r["game_id"] in table for r in rows)


@pytest.mark.slow
def test_stats_json_plot_and_variant(indexed: Path, tmp_path: Path):
    png = tmp_path / "s.png"
    result = cli("stats", "--db", str(indexed), "--json", "--plot", str(png))
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert set(doc) >= {"canasta_rates", "penalty_rates", "closing_rates", "win_rates",
                        "hand_lengths", "score_quantiles"}
    with duckdb.connect(str(indexed), read_only=True) as con:
        hands = dict(con.execute(
            "SELECT variant, count(*) FROM hands JOIN games USING (game_id) GROUP BY 1").fetchall())
    assert {r["variant"]: r["hands"] for r in doc["closing_rates"]} == hands
    for r in doc["closing_rates"]:
        assert r["closed_rate"] + r["exhausted_rate"] + r["stalemate_rate"] == pytest.approx(1.0)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    one = json.loads(cli("stats", "--db", str(indexed), "--json", "--variant", "stbl").stdout)
    assert {r["variant"] for rows in one.values() for r in rows} == {"stbl"}
    games = {r["n_players"]: r["games"] for r in one["win_rates"]}
    assert games == {2: 1, 4: 1}
    assert cli("stats", "--db", str(indexed), "--variant", "nope").exit_code == 1


def test_parquet_export_reads_back(indexed: Path, tmp_path: Path):
    out = tmp_path / "pq"
    counts = db_counts(indexed)
    for _ in range(2):  # a second export replaces the first (no duplicates, no error)
        result = cli("export", "--db", str(indexed), "--parquet", str(out))
        assert result.exit_code == 0, result.stderr
    variants = {v for v, _, _ in GAMES}
    for table in TABLES:
        if not counts[table]:  # no branch nor ruling among these logs: one empty file, the columns
            assert [p.name for p in (out / table).iterdir()] == ["empty.parquet"]
            empty = duckdb.sql(f"SELECT * FROM read_parquet('{out / table / 'empty.parquet'}')")
            assert empty.fetchall() == [] and set(TABLES[table].names()) <= set(empty.columns)
            continue
        assert {p.name for p in (out / table).iterdir()} == {f"variant={v}" for v in variants}
        glob = str(out / table / "**" / "*.parquet")
        n, nv = duckdb.sql(
            f"SELECT count(*), count(DISTINCT variant) FROM read_parquet('{glob}', "
            "hive_partitioning = true)").fetchall()[0]
        assert (n, nv) == (counts[table], len(variants))
        assert ds.dataset(out / table, partitioning="hive").count_rows() == counts[table]


def test_a_second_process_gets_a_clear_error(indexed: Path, logs: Path, tmp_path: Path):
    db = tmp_path / "locked.duckdb"
    shutil.copy(indexed, db)
    with subprocess.Popen(
        [sys.executable, "-c",
         "import duckdb, sys; con = duckdb.connect(sys.argv[1]); print('ready', flush=True); "
         "sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    ) as holder:  # a second process holding the write lock until its stdin closes
        assert holder.stdout.readline().strip() == "ready"
        result = cli("index", str(logs), "--db", str(db))
        reader = cli("sql", "SELECT 1", "--db", str(db))
        holder.stdin.close()
        holder.wait(timeout=30)
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "in use" in result.stderr
    assert reader.exit_code == 2 and "in use" in reader.stderr


@pytest.mark.spark
def test_spark_reads_the_parquet_export(indexed: Path, tmp_path: Path, monkeypatch):
    # the export is how a bigger engine takes over: Spark reads every table, the variant comes
    # back from the hive partition folders, and the counts equal the database's
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    monkeypatch.setenv("SPARK_LOCAL_IP", "127.0.0.1")  # stay on the loopback
    out = tmp_path / "pq"
    assert cli("export", "--db", str(indexed), "--parquet", str(out)).exit_code == 0
    counts = db_counts(indexed)
    spark = (SparkSession.builder.master("local[1]").appName("buraco-test")
             .config("spark.ui.enabled", "false").getOrCreate())
    try:
        for table in TABLES:
            df = spark.read.parquet(str(out / table))
            assert df.count() == counts[table]
            assert set(TABLES[table].names()) <= set(df.columns)  # an empty table too: its columns
            assert {r["variant"] for r in df.select("variant").distinct().collect()} == (
                {v for v, _, _ in GAMES} if counts[table] else set())
    finally:
        spark.stop()


@pytest.mark.slow
def test_stats_prints_the_player_standings(indexed: Path):
    with duckdb.connect(str(indexed), read_only=True) as con:
        standings = con.execute("SELECT player, games, wins FROM player_standings").fetchall()
    result = runner.invoke(app, ["stats", "--db", str(indexed)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.stderr
    text = result.stdout.split("player standings", 1)[1]
    rows = [[c.strip() for c in line.strip("│ ").split("│")] for line in text.splitlines()
            if line.startswith("│")]
    assert [tuple(r[:3]) for r in rows] == [(p, str(g), str(w)) for p, g, w in standings]
    assert "ruled_" not in text  # no ruling changes a standing: the same columns are not repeated
    doc = json.loads(cli("stats", "--db", str(indexed), "--json").stdout)
    assert [(r["player"], r["games"], r["wins"]) for r in doc["player_standings"]] == standings
    # the standings count every variant: one variant's stats leave them out
    one = cli("stats", "--db", str(indexed), "--variant", "stbl")
    assert one.exit_code == 0 and "player standings" not in one.stdout


def test_stats_standings_keep_the_ruled_columns_when_a_ruling_changes_them():
    from buraco_events.analytics.queries import Result
    from cli.analytics_cmd import _unruled

    columns = ["player", "games", "wins", "ruled_games", "ruled_wins"]
    same = Result(columns, [("ana", 2, 1, 2, 1)])
    assert _unruled(same).columns == ["player", "games", "wins"]
    ruled = Result(columns, [("ana", 2, 1, 2, 1), ("bruno", 2, 1, 2, 0)])
    assert _unruled(ruled) == ruled


def test_player_standings_view_counts_every_seat_of_every_finished_game(indexed: Path):
    # a club's table of players: one row per player name, over every complete game they sat in
    with duckdb.connect(str(indexed), read_only=True) as con:
        standings = con.execute("SELECT player, games, wins FROM player_standings").fetchall()
        seats = con.execute("SELECT sum(n_players) FROM games WHERE complete").fetchone()[0]
        winners = con.execute(
            "SELECT sum(n_players // 2) FROM games WHERE complete").fetchone()[0]
    assert sum(games for _, games, _ in standings) == seats
    # a winning team holds half the seats (one of two, or two of four)
    assert sum(wins for _, _, wins in standings) == winners
    assert {p for p, _, _ in standings} == {f"p{i}" for i in range(4)}


# -- sql and stats read the database and local files, and nothing else -------------------------


def file_digests(*paths: Path) -> dict[Path, bytes]:
    """Return each file's bytes (a missing file maps to b'' and must stay missing)."""
    return {p: p.read_bytes() if p.exists() else b"" for p in paths}


def refused(db: Path, query: str, why: str) -> None:
    """Assert `buraco sql query` is refused with one line holding `why`, exit 1."""
    result = cli("sql", query, "--db", str(db))
    assert result.exit_code == 1, result.stdout
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and why in lines[0], result.stderr


@pytest.mark.slow
def test_sql_cannot_attach_another_database_read_write(db_copy: Path, tmp_path: Path,
                                                        monkeypatch):
    # the attack: a scratch database attached, the indexed one attached READ_WRITE and
    # emptied; in one go, or one statement per run
    monkeypatch.chdir(tmp_path)
    scratch = tmp_path / "scratch.duckdb"
    duckdb.connect(str(scratch)).close()
    before = file_digests(db_copy, scratch, tmp_path / "new.duckdb")
    counts = db_counts(db_copy)
    refused(db_copy, f"ATTACH 'scratch.duckdb' AS s; USE s; DETACH copy; "
                     f"ATTACH '{db_copy}' AS w (READ_WRITE); DELETE FROM w.games",
            "only one statement may run; got 5")
    refused(db_copy, "ATTACH 'scratch.duckdb' AS s", "got ATTACH")
    refused(db_copy, "ATTACH 'new.duckdb' AS n", "got ATTACH")
    refused(db_copy, f"ATTACH '{db_copy}' AS w (READ_WRITE)", "got ATTACH")
    refused(db_copy, "DETACH copy", "got DETACH")
    refused(db_copy, "USE s", "got")
    refused(db_copy, "DELETE FROM games", "got DELETE")
    refused(db_copy, "WITH g AS (SELECT 1) DELETE FROM games", "got DELETE (WITH ...)")
    assert file_digests(db_copy, scratch, tmp_path / "new.duckdb") == before
    assert db_counts(db_copy) == counts


def test_sql_runs_exactly_one_statement(indexed: Path):
    refused(indexed, "SELECT 1; SELECT 2", "only one statement may run; got 2")
    refused(indexed, "SELECT 1; SET threads = 1", "only one statement may run; got 2")
    refused(indexed, "  ; -- nothing", "no statement to run")
    # a trailing semicolon or comment is still one statement
    for query in ("SELECT 41 + 1;", "SELECT 41 + 1 -- the answer"):
        result = cli("sql", query, "--db", str(indexed), "--csv")
        assert result.exit_code == 0 and result.stdout.splitlines()[1] == "42", result.stderr


def test_sql_writes_no_file(db_copy: Path, tmp_path: Path, monkeypatch):
    # COPY TO would overwrite a user's file, EXPORT DATABASE write a folder: both in the working
    # folder, which queries may read
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "notes.txt"
    victim.write_text("mine, keep me\n")
    beside_db = db_copy.parent / "beside.csv"
    before = file_digests(victim, beside_db, db_copy)
    refused(db_copy, "COPY (SELECT 'gone') TO 'notes.txt'", "got COPY")
    refused(db_copy, f"COPY games TO '{beside_db}' (HEADER)", "got COPY")
    refused(db_copy, "COPY (FROM games) TO 'notes.txt' (FORMAT csv)", "got COPY")
    refused(db_copy, "EXPORT DATABASE 'dump'", "got EXPORT")
    assert file_digests(victim, beside_db, db_copy) == before
    assert not (tmp_path / "dump").exists() and not beside_db.exists()


@pytest.mark.slow
def test_sql_installs_and_loads_no_extension_and_reaches_no_network(indexed: Path):
    refused(indexed, "INSTALL httpfs", "got LOAD (INSTALL ...)")
    refused(indexed, "LOAD httpfs", "got LOAD")
    refused(indexed, "FORCE INSTALL httpfs FROM core_nightly", "got LOAD")
    # a SELECT may name a URL: the connection refuses it before any network access
    refused(indexed, "SELECT * FROM read_csv('https://example.com/x.csv')", "nothing from the network")
    refused(indexed, "SELECT * FROM 's3://bucket/x.parquet'", "Permission Error")


@pytest.mark.slow
def test_sql_cannot_change_the_settings_that_lock_it(indexed: Path, tmp_path: Path):
    for query in ("SET lock_configuration = false", "RESET lock_configuration",
                  "SET enable_external_access = true", "PRAGMA enable_external_access",
                  "SET allowed_directories = ['/']", "CALL pragma_version()"):
        refused(indexed, query, "only a read-only query (SELECT) may run")
    # and were one to slip past the statement check, the connection itself holds
    from buraco_events.analytics.queries import connect_query
    con = connect_query(indexed)
    try:
        for setting in ("SET lock_configuration = false", "SET enable_external_access = true",
                        "SET autoload_known_extensions = true"):
            with pytest.raises(duckdb.Error, match="locked"):
                con.execute(setting)
        with pytest.raises(duckdb.PermissionException):
            con.execute(f"ATTACH '{tmp_path / 'other.duckdb'}' AS w")
    finally:
        con.close()
    assert not (tmp_path / "other.duckdb").exists()


def test_sql_reads_local_files_under_the_working_and_database_folders(indexed: Path,
                                                                      tmp_path: Path,
                                                                      monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    (work / "club.csv").write_text("player,rating\nAna,3\n")
    (indexed.parent / "near.txt").write_text("beside the database\n")
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not yours to query\n")
    monkeypatch.chdir(work)
    rows = json.loads(cli("sql", "SELECT * FROM read_csv('club.csv')", "--db", str(indexed),
                          "--json").stdout)
    assert rows == [{"player": "Ana", "rating": 3}]
    result = cli("sql", f"SELECT content FROM read_text('{indexed.parent / 'near.txt'}')",
                 "--db", str(indexed), "--csv")
    assert result.exit_code == 0 and "beside the database" in result.stdout
    refused(indexed, f"SELECT content FROM read_text('{elsewhere}')",
            "reads files only under the working folder and the database's folder")
    refused(indexed, "SELECT content FROM read_text('../elsewhere.txt')", "Permission Error")


def test_sql_accepts_every_read_only_form(indexed: Path):
    for query in ("WITH g AS (SELECT * FROM games) SELECT count(*) FROM g",
                  "FROM games SELECT count(*)", "DESCRIBE games", "SUMMARIZE hands",
                  "SHOW TABLES"):
        result = cli("sql", query, "--db", str(indexed), "--json")
        assert result.exit_code == 0, (query, result.stderr)
        assert json.loads(result.stdout)


def test_stats_views_from_a_hostile_database_read_no_file(db_copy: Path, tmp_path: Path):
    # a database is input from anyone: a view rewritten to read a file must not reach it
    secret = tmp_path / "secret.txt"
    secret.write_text("a private key\n")
    with duckdb.connect(str(db_copy)) as con:
        con.execute(f"CREATE OR REPLACE VIEW win_rates AS SELECT content AS variant "
                    f"FROM read_text('{secret}')")
    result = cli("stats", "--db", str(db_copy), "--json")
    assert result.exit_code == 1 and "a private key" not in result.stdout + result.stderr
    assert "Permission Error" in result.stderr and len(result.stderr.strip().splitlines()) == 1


# -- data is shown as text: no markup, no escape sequences, no crash -----------------------------


def test_sql_shows_markup_and_control_characters_literally(indexed: Path):
    query = "SELECT '[/]' AS a, '[bold]b[/bold]' AS \"[red]c\", chr(27) || '[2Jd' || chr(8238) AS e"
    result = cli("sql", query, "--db", str(indexed))
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "[/]" in out and "[bold]b[/bold]" in out and "[red]c" in out
    assert "\\x1b[2Jd\\u202e" in out and "\x1b" not in out and "\u202e" not in out
    # JSON and CSV stay exact
    rows = json.loads(cli("sql", query, "--db", str(indexed), "--json").stdout)
    assert rows == [{"a": "[/]", "[red]c": "[bold]b[/bold]", "e": "\x1b[2Jd\u202e"}]
    csv_out = cli("sql", query, "--db", str(indexed), "--csv").stdout
    assert csv_out == "a,[red]c,e\n[/],[bold]b[/bold],\x1b[2Jd\u202e\n"


@pytest.mark.slow
def test_stats_shows_a_hostile_variant_and_players_literally(tmp_path: Path):
    from buraco_events.model.rules import find_rules

    events = random_game("stbl", 2, 3)
    variant = "club [/] $x^$ \x1b[2J"
    events[0] = msgspec.structs.replace(events[0], variant=variant, rules=find_rules("stbl"),
                                        players=("Dani [/]", "[bold]Bo\u202e"))
    log = tmp_path / "hostile.jsonl"
    write_log(log, events)
    db = tmp_path / "h.duckdb"
    assert cli("index", str(log), "--db", str(db)).exit_code == 0
    result = cli("stats", "--db", str(db), "--plot", str(tmp_path / "s.svg"))
    assert result.exit_code == 0, result.stderr
    assert "club [/] $x^$ \\x1b[2J" in result.stdout and "\x1b" not in result.stdout
    assert (tmp_path / "s.svg").read_bytes().startswith(b"<?xml")
    table = cli("sql", "SELECT players FROM games", "--db", str(db)).stdout
    assert '"Dani [/]"' in table and '"[bold]Bo\\u202e"' in table


def test_stats_plot_names_the_chart_formats(indexed: Path, tmp_path: Path):
    for name in ("x.xyz", "chart"):
        result = cli("stats", "--db", str(indexed), "--plot", str(tmp_path / name))
        assert result.exit_code == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and ".png" in lines[0] and ".svg" in lines[0] and name in lines[0]
        assert result.stdout == "" and not (tmp_path / name).exists()


def test_stats_plot_without_matplotlib_names_the_extra_and_prints_nothing(
        indexed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    hide_matplotlib(monkeypatch)
    chart = tmp_path / "s.png"
    result = cli("stats", "--db", str(indexed), "--plot", str(chart))
    assert result.exit_code == 2 and result.stdout == "" and not chart.exists()
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--plot" in lines[0] and "buraco-events[plot]" in lines[0]
    assert cli("stats", "--db", str(indexed)).exit_code == 0  # the figures need no matplotlib


def test_index_shows_a_rejected_log_name_literally(tmp_path: Path):
    log = tmp_path / "a\x1b[2J[bold]b.jsonl"
    log.write_bytes(b'{"seq":0}\n')
    result = cli("index", str(log), "--db", str(tmp_path / "t.duckdb"))
    assert result.exit_code == 1
    assert "a\\x1b[2J[bold]b.jsonl" in result.stderr and "\x1b" not in result.stderr


# -- index: only into a DuckDB database; a log that does not fit is rejected, the others kept ----


@pytest.mark.parametrize("name, content", [
    ("games.json", b'{"games": []}\n'), ("games.jsonl", b'{"seq":0}\n'),
    ("games.csv", b"game_id,winner\ng1,0\n"), ("games.duckdb", b""),
])
def test_index_refuses_an_existing_file_that_is_not_a_duckdb_database(logs: Path, tmp_path: Path,
                                                                     name: str, content: bytes):
    db = tmp_path / name
    db.write_bytes(content)
    for args in (["index", str(logs)], ["sql", "SELECT 1"], ["stats"],
                 ["export", "--parquet", str(tmp_path / "pq")]):
        result = cli(*args, "--db", str(db))
        assert result.exit_code == 2, (args, result.stdout)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "not a DuckDB database" in lines[0] and name in lines[0]
        assert result.stdout == ""
    assert db.read_bytes() == content and sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_index_refuses_a_folder_as_database(logs: Path, tmp_path: Path):
    result = cli("index", str(logs), "--db", str(tmp_path))
    assert result.exit_code == 2 and "is a folder" in result.stderr


def out_of_range_logs(folder: Path) -> dict[str, str]:
    """Write logs whose values do not fit the tables; return {file name: what must be named}."""
    big = 2**31
    started = random_game("stbl", 2, 21, target=big, max_events=150)  # unfinished: fine
    write_log(folder / "big-target.jsonl", started)
    events = random_game("stbl", 2, 22)
    end = next(i for i, ev in enumerate(events) if isinstance(ev, HandEnded))
    events[end] = msgspec.structs.replace(events[end], scores=(big, -big))
    write_log(folder / "big-claim.jsonl", events)
    return {"big-target.jsonl": "seq 0: games.target: 2147483648 is out of range for INTEGER",
            "big-claim.jsonl": f"seq {end}: hands.claimed_scores: 2147483648 is out of range"}


def test_index_rejects_a_log_that_does_not_fit_and_indexes_the_others(tmp_path: Path):
    folder = tmp_path / "logs"
    folder.mkdir()
    expected = out_of_range_logs(folder)
    for seed in range(3):
        write_log(folder / f"good-{seed}.jsonl", random_game("stbl", 2, 30 + seed))
    db = tmp_path / "t.duckdb"
    result = cli("index", str(folder), "--db", str(db))
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2
    for name, why in expected.items():
        line = next(ln for ln in lines if name in ln)
        assert line.startswith(f"rejected: {folder / name}: ") and why in line, line
    assert "3 games added" in result.stdout and "2 rejected" in result.stdout
    assert db_counts(db)["games"] == 3


def test_a_log_that_does_not_fit_never_replaces_the_stored_game(tmp_path: Path):
    events = random_game("stbl", 2, 23)
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    write_log(good, events)
    end = next(i for i, ev in enumerate(events) if isinstance(ev, HandEnded))
    events[end] = msgspec.structs.replace(events[end], scores=(2**31, 0))
    write_log(bad, events)
    db = tmp_path / "t.duckdb"
    assert cli("index", str(good), "--db", str(db)).exit_code == 0
    before = db_counts(db)
    result = cli("index", str(bad), "--db", str(db), "--replace")
    assert result.exit_code == 1 and "out of range" in result.stderr
    assert db_counts(db) == before
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT source FROM games").fetchall() == [(str(good),)]


def test_a_log_whose_file_name_is_not_utf8_is_rejected_alone(tmp_path: Path):
    folder = tmp_path / "logs"
    folder.mkdir()
    write_log(folder / "good.jsonl", random_game("stbl", 2, 24))
    odd = os.fsdecode(bytes(folder) + b"/odd-\xff.jsonl")
    write_log(odd, random_game("stbl", 2, 25))
    db = tmp_path / "t.duckdb"
    result = cli("index", str(folder), "--db", str(db))
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert "games.source" in result.stderr and "not valid UTF-8" in result.stderr
    assert db_counts(db)["games"] == 1


# -- the same queries over Parquet (sql --parquet, stats --parquet) ------------------------------


@pytest.fixture(scope="module")
def exported(indexed: Path, tmp_path_factory) -> Path:
    """The indexed database exported to a Parquet folder."""
    folder = tmp_path_factory.mktemp("parquet") / "out"
    result = cli("export", "--db", str(indexed), "--parquet", str(folder))
    assert result.exit_code == 0, result.stderr
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("relation", [*TABLES, *VIEWS])
def test_every_table_and_view_reads_the_same_over_parquet(indexed: Path, exported: Path, relation: str):
    # the same name, columns and rows (in a fixed order) over the DuckDB file and the Parquet folder
    sql = f"SELECT * FROM {relation} ORDER BY ALL"
    over_db = json.loads(cli("sql", sql, "--db", str(indexed), "--json").stdout)
    result = cli("sql", sql, "--parquet", str(exported), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == over_db
    # every relation has rows in this archive but branches and rulings (tests/test_index_branches),
    # and the analyses' decisions and their views (tests/test_index_decisions)
    assert over_db or relation in ("branches", "rulings", "decisions", "player_accuracy",
                                   "mistakes_by_phase")


def test_stats_over_parquet_equal_stats_over_the_database(indexed: Path, exported: Path):
    over_db = cli("stats", "--db", str(indexed), "--json")
    over_parquet = cli("stats", "--parquet", str(exported), "--json")
    assert over_parquet.exit_code == 0, over_parquet.stderr
    assert json.loads(over_parquet.stdout) == json.loads(over_db.stdout)


def test_parquet_queries_are_read_only_too(exported: Path, tmp_path: Path):
    target = tmp_path / "x.csv"
    result = cli("sql", f"COPY (SELECT 1) TO '{target}'", "--parquet", str(exported))
    assert result.exit_code == 1 and "only a read-only query" in result.stderr and not target.exists()
    assert cli("sql", "SELECT 1; SELECT 2", "--parquet", str(exported)).exit_code == 1


def test_a_folder_that_is_not_an_export_is_refused(tmp_path: Path):
    result = cli("sql", "SELECT 1", "--parquet", str(tmp_path / "missing"))
    assert result.exit_code == 2 and "no Parquet folder" in result.stderr
    (tmp_path / "games").mkdir()
    result = cli("stats", "--parquet", str(tmp_path))
    assert result.exit_code == 2 and "has no hands/ folder" in result.stderr


@pytest.mark.parametrize("native", [False, True], ids=["lists", "native"])
def test_a_chunk_with_values_that_do_not_fit_rejects_those_logs_alone(
        tmp_path: Path, native: bool, monkeypatch: pytest.MonkeyPatch):
    # the chunk's conversion to Arrow fails on the misfits; then each log is checked alone and
    # the outcomes are those of each log checked in a chunk of its own, and the rows those of
    # the logs kept; the same with the events rows built either way (`ingest._NATIVE_ROWS`)
    monkeypatch.setattr(ingest, "_NATIVE_ROWS", native)
    folder = tmp_path / "logs"
    folder.mkdir()
    out_of_range_logs(folder)
    for seed in range(2):
        write_log(folder / f"good-{seed}.jsonl", random_game("stbl", 2, 30 + seed))
    # a branch among them: its one row is in `branches`, the chunk's rows in order around it
    make_branch(folder / "good-0.jsonl", 3, folder / "good-0-what-if.jsonl", by="t", reason="t",
                bots=["random"], until="hand")
    (folder / "garbled.jsonl").write_bytes(b"{not an event\n")
    odd = os.fsdecode(bytes(folder) + b"/odd-\xff.jsonl")
    write_log(odd, random_game("stbl", 2, 25))
    logs = list(iter_logs(folder))
    assert len(logs) == 7
    chunk = check_chunk(logs)
    alone = [check_chunk([log]) for log in logs]
    assert chunk.outcomes == [one.outcomes[0] for one in alone]
    assert sum(isinstance(one.outcomes[0], Rejected) for one in alone) == 4
    assert "range" in {o.kind for o in chunk.outcomes if isinstance(o, Rejected)}
    expected = {t: [row for one in alone for row in one.tables[t].to_pylist()] for t in TABLES}
    assert {t: chunk.tables[t].to_pylist() for t in TABLES} == expected
    # every table but rulings and decisions (read beside the logs by the index, and from
    # analyses, not by the chunk's check)
    assert all(len(expected[t]) for t in TABLES if t not in ("rulings", "decisions"))
    assert not expected["decisions"]
    assert [r["file"] for r in expected["branches"]] == [str(folder / "good-0-what-if.jsonl")]
    # a chunk that fits is converted at once, to the same rows
    good = [log for log, one in zip(logs, alone, strict=True)
            if not isinstance(one.outcomes[0], Rejected)]
    assert {t: check_chunk(good).tables[t].to_pylist() for t in TABLES} == expected


@pytest.mark.skipif(build() == "compiled", reason="rows._TAG_CODE is a compiled constant")
def test_a_row_the_native_columns_refuse_moves_the_chunk_to_lists(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # the native builder refuses a row (here: a note, its class taken out of the codes) in the
    # second log: the rows built so far (the first log's, the second's up to the note) move to
    # the plain lists, the replay goes on in them, and the chunk's tables and outcomes are those
    # of the lists alone; every event is played once
    for seed in range(3):
        events = random_game("stbl", 2, 40 + seed)
        if seed == 1:
            events = [*events[:-1], Note(seq=0, by="referee", text="checked"), events[-1]]
        write_log(tmp_path / f"g{seed}.jsonl", events)
    monkeypatch.setattr(ingest, "_NATIVE_ROWS", False)
    expected = check_chunk(list(iter_logs(tmp_path)))
    monkeypatch.setattr(ingest, "_NATIVE_ROWS", True)
    codes = {cls: code for cls, code in rows._TAG_CODE.items() if cls is not Note}
    monkeypatch.setattr(rows, "_TAG_CODE", codes)
    calls: list[int] = []
    real = Columns.to_lists
    monkeypatch.setattr(Columns, "to_lists", lambda cols: calls.append(1) or real(cols))
    played: list[int] = []
    real_play = rows.play
    monkeypatch.setattr(rows, "play", lambda state, ev: played.append(ev.seq) or real_play(state, ev))
    got = check_chunk(list(iter_logs(tmp_path)))
    assert calls == [1]  # once: the chunk stays in lists after
    logs = [list(read_log(path)) for path in sorted(tmp_path.glob("*.jsonl"))]
    assert played == [ev.seq for log in logs for _, _, ev in log]  # no game replayed again
    assert got.outcomes == expected.outcomes
    assert {t: got.tables[t].to_pylist() for t in TABLES} == {
        t: expected.tables[t].to_pylist() for t in TABLES}


# -- limits, statements, terminals, folder names, interrupted creation --------------------------

REPO = Path(__file__).resolve().parent.parent


def buraco(*args: str, **kwargs) -> subprocess.Popen:
    """Start `buraco ARGS` in a new process (this repository's app)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.Popen([sys.executable, "-m", "cli.main", *args], env=env, **kwargs)


def one_line_error(result, code: int, why: str) -> None:
    """Assert the command exited `code` with one line on stderr holding `why`, no traceback."""
    assert result.exit_code == code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and why in lines[0], result.stderr
    assert "Traceback" not in result.stderr and not isinstance(result.exception, Exception)


@pytest.mark.slow
def test_sql_stops_a_query_past_its_timeout(indexed: Path, exported: Path):
    cross = "SELECT count(*) FROM range(1000000) a, range(1000000) b"  # minutes of work
    for where in (["--db", str(indexed)], ["--parquet", str(exported)]):
        result = cli("sql", cross, "--timeout", "1", *where)
        one_line_error(result, 1, "sql: the query ran past --timeout 1 s; stopped (raise --timeout)")
    result = cli("stats", "--db", str(indexed), "--timeout", "0.001")
    one_line_error(result, 1, "stats: the query ran past --timeout 0.001 s")


def test_sql_stops_a_query_past_its_memory_limit(indexed: Path, exported: Path):
    big = "SELECT length(string_agg(range::VARCHAR || repeat('x', 100), ',')) FROM range(10000000)"
    for where in (["--db", str(indexed)], ["--parquet", str(exported)]):
        result = cli("sql", big, "--max-memory", "64MB", *where)
        one_line_error(result, 1, "sql: the query needs more memory than --max-memory 64MB")


def test_sql_limits_memory_by_default_and_spills_nothing(indexed: Path, exported: Path):
    settings = ("SELECT current_setting('memory_limit') AS m, "
                "current_setting('temp_directory') AS t")
    for where in (["--db", str(indexed)], ["--parquet", str(exported)]):
        rows = json.loads(cli("sql", settings, *where, "--json").stdout)
        assert rows == [{"m": "953.6 MiB", "t": ""}]  # 1GB
        rows = json.loads(cli("sql", settings, *where, "--json", "--max-memory", "2GiB").stdout)
        assert rows == [{"m": "2.0 GiB", "t": ""}]
    for size in ("12XB", "lots", "0.5KB", ""):
        one_line_error(cli("sql", "SELECT 1", "--db", str(indexed), "--max-memory", size), 2,
                       "--max-memory")


#: a statement of every type DuckDB's parser names, SELECT aside (and one its Python binding
#: does not name: UPDATE EXTENSIONS)
EVERY_STATEMENT = [
    "UPDATE EXTENSIONS", "UPDATE EXTENSIONS (httpfs)", "INSERT INTO games (game_id) VALUES ('x')",
    "UPDATE games SET target = 1", "DELETE FROM games", "TRUNCATE games",
    "CREATE TABLE t AS SELECT 1", "CREATE VIEW v AS SELECT 1", "CREATE MACRO m() AS 1",
    "CREATE SECRET s (TYPE s3)", "CREATE SEQUENCE s", "CREATE TYPE t AS INTEGER",
    "CREATE INDEX i ON games (game_id)", "DROP TABLE games", "DROP SECRET s", "DEALLOCATE p",
    "ALTER TABLE games RENAME TO g", "COMMENT ON TABLE games IS 'x'", "COPY games TO 'x.csv'",
    "COPY games FROM 'x.csv'", "COPY FROM DATABASE a TO b", "ATTACH 'x.duckdb' AS x",
    "DETACH x", "EXPORT DATABASE 'dump'", "IMPORT DATABASE 'dump'", "INSTALL httpfs",
    "FORCE INSTALL httpfs", "LOAD httpfs", "SET threads = 1", "SET VARIABLE v = 1",
    "RESET threads", "RESET VARIABLE v", "PRAGMA version", "CALL pragma_version()", "VACUUM",
    "ANALYZE", "CHECKPOINT", "FORCE CHECKPOINT", "EXPLAIN SELECT 1", "EXPLAIN ANALYZE SELECT 1",
    "PREPARE p AS SELECT 1", "EXECUTE p", "BEGIN", "BEGIN TRANSACTION", "START TRANSACTION",
    "COMMIT", "END", "ROLLBACK", "ABORT", "USE memory",
    "MERGE INTO games USING games g ON true WHEN MATCHED THEN DELETE", "PIVOT games ON variant",
    "WITH a AS (SELECT 1) INSERT INTO games (game_id) SELECT 'x' FROM a",
]


@pytest.mark.slow
def test_every_statement_type_but_select_is_refused_in_one_line(db_copy: Path, tmp_path: Path,
                                                                monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = file_digests(db_copy)
    for statement in EVERY_STATEMENT:
        result = cli("sql", statement, "--db", str(db_copy))
        one_line_error(result, 1, "sql: only a read-only query (SELECT) may run; got ")
        assert result.stdout == ""
    refused(db_copy, "UPDATE EXTENSIONS", "got UPDATE EXTENSIONS")
    assert file_digests(db_copy) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.duckdb"]  # no file written


@pytest.mark.slow
def test_a_query_may_begin_with_a_comment(indexed: Path):
    db = str(indexed)
    for args in (["sql", "-- note\nSELECT 1 AS x", "--db", db, "--csv"],
                 ["sql", "--db", db, "--csv", "-- note\nSELECT 1 AS x"],
                 ["sql", "--csv", "--db", db, "--", "-- note\nSELECT 1 AS x"],
                 ["sql", "--note\nSELECT 1 AS x", "--csv", "--db", db],
                 ["sql", "-- note\n-- more\n  SELECT 1 AS x -- trailing", "--csv", "--db", db]):
        result = cli(*args)
        assert result.exit_code == 0, (args, result.stderr)
        assert result.stdout == "x\n1\n"
    one_line_error(cli("sql", "-- only a comment", "--db", db), 1, "no statement to run")
    # an option's value stays its value, whatever it looks like
    one_line_error(cli("sql", "--db", "-- x\ny.duckdb", "SELECT 1"), 2, "no database")


@pytest.mark.slow
def test_csv_on_a_terminal_shows_control_characters_and_into_a_pipe_stays_exact(
        indexed: Path, tmp_path: Path):
    import pty

    query = "SELECT chr(27) || '[2J' || chr(7) || 'a' || chr(13) || 'b' || chr(8238) || 'c' AS h"
    exact = io.StringIO()
    csv.writer(exact, lineterminator="\n").writerows([["h"], ["\x1b[2J\x07a\rb\u202ec"]])
    with buraco("sql", query, "--db", str(indexed), "--csv", stdout=subprocess.PIPE) as proc:
        piped = proc.stdout.read()
    assert proc.returncode == 0 and piped.decode() == exact.getvalue()  # a pipe: the exact data
    for fmt in ("--csv", "--json", None):
        controller, terminal = pty.openpty()
        args = ["sql", query, "--db", str(indexed), *([fmt] if fmt else [])]
        with buraco(*args, stdout=terminal) as proc:
            os.close(terminal)
            shown = b""
            while True:
                try:
                    chunk = os.read(controller, 4096)
                except OSError:  # the terminal's other end closed
                    break
                if not chunk:
                    break
                shown += chunk
        os.close(controller)
        assert proc.returncode == 0, fmt
        text = shown.decode().replace("\r\n", "\n")  # the terminal's own line ends
        if fmt is None:  # the table's own styles (bold headers) aside
            text = re.sub(r"\x1b\[[0-9;]*m", "", text)
        for raw in ("\x1b", "\x07", "\r", "\u202e"):
            assert raw not in text, (fmt, text)
        if fmt == "--csv":
            assert text == "h\n\\x1b[2J\\x07a\\x0db\\u202ec\n"
        else:
            assert "\\u001b[2J\\u0007a\\rb\\u202ec" in text if fmt == "--json" else "\\x1b[2J" in text


@pytest.mark.slow
def test_a_parquet_folder_may_have_any_name(indexed: Path, tmp_path: Path):
    # glob characters in the folder's name, `=` in a folder above it (hive partitioning would
    # take `variant=zzz` for the variant), and a decoy folder its name would match as a glob
    weird = tmp_path / "variant=zzz" / "we*ird [1]?,{a}"
    assert cli("export", "--db", str(indexed), "--parquet", str(weird)).exit_code == 0
    decoy = tmp_path / "variant=zzz" / "weXird 1X,{a}"
    shutil.copytree(weird, decoy)
    for relation in (*TABLES, "canasta_rates"):
        sql = f"SELECT * FROM {relation} ORDER BY ALL"
        over_db = json.loads(cli("sql", sql, "--db", str(indexed), "--json").stdout)
        result = cli("sql", sql, "--parquet", str(weird), "--json")
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout) == over_db, relation
    over_db = cli("stats", "--db", str(indexed), "--json")
    assert cli("stats", "--parquet", str(weird), "--json").stdout == over_db.stdout


@pytest.mark.slow
def test_an_index_killed_while_creating_a_database_leaves_none(logs: Path, tmp_path: Path):
    import signal
    import time

    db = tmp_path / "new.duckdb"
    fifo = tmp_path / "waiting.jsonl"
    os.mkfifo(fifo)  # the run blocks reading it: killed while the new database is open
    with buraco("index", str(fifo), "--db", str(db), "--workers", "1",
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as proc:
        creating = tmp_path / "new.duckdb.creating"
        try:
            deadline = time.monotonic() + 60
            while not creating.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert creating.exists() and proc.poll() is None
            time.sleep(0.5)  # the schema made in its transaction
        finally:  # killed whatever happened: it would wait on the pipe for ever
            proc.send_signal(signal.SIGKILL)
    assert not db.exists()
    for args in (["sql", "SELECT count(*) FROM games"], ["stats"]):
        one_line_error(cli(*args, "--db", str(db)), 2,
                       "an index run is creating it or was interrupted while creating it")
    # the next run takes the half-made file up and gives the database its name
    assert cli("index", str(logs), "--db", str(db)).exit_code == 0
    assert not creating.exists() and db_counts(db)["games"] == len(GAMES)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.duckdb", "waiting.jsonl"]


def test_what_a_killed_creation_left_beside_a_database_is_cleared(logs: Path, tmp_path: Path):
    db = tmp_path / "new.duckdb"
    creating = tmp_path / "new.duckdb.creating"
    creating.write_bytes(b"")  # killed before DuckDB wrote its header
    assert cli("index", str(logs), "--db", str(db)).exit_code == 0
    os.link(db, creating)  # killed between the database's two names
    assert cli("index", str(logs), "--db", str(db)).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.duckdb"]
    assert db_counts(db)["games"] == len(GAMES)


def test_an_index_that_fails_while_creating_a_database_leaves_none(tmp_path: Path, monkeypatch):
    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ingest, "ensure_schema", stop)
    db = tmp_path / "new.duckdb"
    with pytest.raises(KeyboardInterrupt):
        index([], db)
    assert list(tmp_path.iterdir()) == []


def test_a_database_with_no_tables_says_an_index_was_interrupted(tmp_path: Path):
    db = tmp_path / "empty.duckdb"
    duckdb.connect(str(db)).close()  # an empty database: what an index stopped mid-creation leaves
    for args in (["sql", "SELECT count(*) FROM games"], ["stats"],
                 ["export", "--parquet", str(tmp_path / "p")]):
        one_line_error(cli(*args, "--db", str(db)), 2,
                       "holds no games tables: an index run was interrupted while creating it")


def test_sql_timeout_zero_is_no_limit_and_a_negative_one_is_refused(indexed: Path):
    result = cli("sql", "SELECT 1 AS x", "--db", str(indexed), "--timeout", "0", "--csv")
    assert result.exit_code == 0 and result.stdout == "x\n1\n"
    for value in ("-1", "nan"):
        one_line_error(cli("sql", "SELECT 1", "--db", str(indexed), "--timeout", value), 2,
                       "--timeout")


def test_a_result_too_big_for_the_memory_limit_stops_while_fetched():
    # DuckDB's memory limit does not count the rows made in Python: the fetch counts them
    from buraco_events.analytics.queries import QueryOutOfMemory, QueryTimedOut, run_query

    with duckdb.connect() as con:
        many = "SELECT range, range::VARCHAR FROM range(100000)"
        assert len(run_query(con, many, max_bytes=100_000_000).rows) == 100_000
        with pytest.raises(QueryOutOfMemory):
            run_query(con, many, max_bytes=1_000_000)
        with pytest.raises(QueryTimedOut):
            run_query(con, many, until=0.0)


@pytest.mark.slow
def test_the_stats_chart_draws_no_box_twice_and_compares_the_players(tmp_path: Path):
    """One-hand games: a game's totals are its hand's, so the chart leaves the game's box out;
    games of several hands keep both. The standings panel is drawn over every variant."""
    from buraco_events.analytics.plots import score_boxes
    from buraco_events.analytics.queries import stats

    one = tmp_path / "one"
    assert cli("simulate", "--games", "4", "--target", "0", "--out", str(one), "--workers", "1").exit_code == 0
    many = tmp_path / "many"
    assert cli("simulate", "--games", "3", "--variant", "burraco", "--bots", "greedy,random", "--out", str(many),
               "--workers", "1").exit_code == 0
    db = tmp_path / "s.duckdb"
    assert cli("index", str(one), str(many), "--db", str(db)).exit_code == 0
    results = stats(db)
    labels = [b["label"] for b in score_boxes(results["score_quantiles"].records())]
    assert labels == ["burraco\ngame", "burraco\nteam hand", "stbl\nteam hand"]
    players = {r["player"] for r in results["player_standings"].records()}
    assert {"greedy-0", "random-1"} <= players
    png = tmp_path / "s.png"
    assert cli("stats", "--db", str(db), "--plot", str(png)).exit_code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _quantile(values: list[float], q: float) -> float:
    """Return the q-quantile of `values` by linear interpolation between the closest ranks."""
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _plain_stats(folder: Path) -> dict[str, list[dict]]:
    """`penalty_rates`, `hand_lengths` and `score_quantiles` computed in plain Python from the
    logs themselves: the events walked hand by hand (turns, events, who took which dead and how,
    whether its taker played again) and the audit's score sheets for the penalties."""
    team_hands: dict[str, list[dict]] = {}
    lengths: dict[tuple[str, str], list[tuple[int, int]]] = {}
    game_totals: dict[str, list[int]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        events = [ev for _, _, ev in read_log(path)]
        (audit,) = audit_path(path)
        start = events[0]
        assert isinstance(start, GameStarted) and audit.report.ok
        variant = start.variant
        hand = n_events = turns = 0
        took: list[bool] = []
        direct: list[bool] = []
        unused: list[int | None] = []
        for i, ev in enumerate(events):
            if isinstance(ev, HandStarted):
                n_events, turns, took, direct, unused = 0, 0, [False, False], [False, False], [None, None]
            n_events += 1
            if isinstance(ev, Drew | TookPile):
                turns += 1
                if unused[ev.player % 2] == ev.player:
                    unused[ev.player % 2] = None  # the taker played again
            elif isinstance(ev, TookDead):
                team = ev.player % 2
                took[team] = True
                direct[team] = not isinstance(events[i - 1], Discarded)
                unused[team] = None if direct[team] else ev.player
            elif isinstance(ev, HandEnded):
                lengths.setdefault((variant, ev.reason), []).append((turns, n_events))
                for team, sheet in enumerate(audit.report.hands[hand].detail):
                    team_hands.setdefault(variant, []).append({
                        "no_dead": not took[team], "unused": unused[team] is not None,
                        "direct": took[team] and direct[team], "dead_penalty": sheet.dead_penalty,
                        "hand_penalty": sheet.hand_penalty, "total": sheet.total})
                hand += 1
            elif isinstance(ev, GameEnded):
                game_totals.setdefault(variant, []).extend(ev.totals)
    penalty = [{
        "variant": v, "team_hands": len(ts),
        "no_dead_rate": mean(t["no_dead"] for t in ts), "dead_unused_rate": mean(t["unused"] for t in ts),
        "dead_direct_rate": mean(t["direct"] for t in ts),
        "avg_dead_penalty": mean(t["dead_penalty"] for t in ts),
        "avg_hand_penalty": mean(t["hand_penalty"] for t in ts),
    } for v, ts in sorted(team_hands.items())]
    hand_lengths = [{
        "variant": v, "reason": r, "hands": len(xs),
        "avg_turns": mean(t for t, _ in xs), "median_turns": median(t for t, _ in xs),
        "max_turns": max(t for t, _ in xs), "avg_events": mean(e for _, e in xs),
        "median_events": median(e for _, e in xs), "max_events": max(e for _, e in xs),
    } for (v, r), xs in sorted(lengths.items())]
    quantiles = []
    for v in sorted(team_hands):
        for measure, values in (("game_total", game_totals.get(v, [])),
                                ("team_hand_total", [t["total"] for t in team_hands[v]])):
            if values:
                quantiles.append({
                    "variant": v, "measure": measure, "n": len(values), "min": min(values),
                    **{f"p{round(q * 100)}": _quantile(values, q) for q in (0.1, 0.25, 0.5, 0.75, 0.9)},
                    "max": max(values), "avg": mean(values)})
    return {"penalty_rates": penalty, "hand_lengths": hand_lengths, "score_quantiles": quantiles}


def test_three_stats_equal_a_plain_recount_of_the_logs(logs: Path, indexed: Path) -> None:
    """`penalty_rates`, `hand_lengths` and `score_quantiles` as `stats --json` gives them equal
    the same numbers computed another way: plain Python over the logs, row by row."""
    result = cli("stats", "--db", str(indexed), "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    want = _plain_stats(logs)
    for view in ("penalty_rates", "hand_lengths", "score_quantiles"):
        got = doc[view]
        assert len(got) == len(want[view]) > 0, view
        for row, expected in zip(got, want[view], strict=True):
            assert set(row) == set(expected), (view, set(row) ^ set(expected))
            assert row == {k: pytest.approx(v) if isinstance(v, float) else v for k, v in expected.items()}, view
