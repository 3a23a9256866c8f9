"""Analytics: logs indexed into DuckDB match the engine's replay; the CLI's index, sql, stats, export."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import duckdb
import msgspec
import pyarrow.dataset as ds
import pytest
from conftest import random_game
from typer.testing import CliRunner

from buraco_events.archive import pack
from buraco_events.cards import ALL_CARDS
from buraco_events.engine import GameState, play
from buraco_events.events import Discarded, HandEnded, Note, seal_lines
from buraco_events.log import read_log, write_log
from buraco_events.projections import meld_kind
from cli.main import app

GAMES = [("stbl", 2, 1), ("stbl", 4, 2), ("burraco", 2, 3), ("aberto", 4, 4), ("fechado", 2, 5)]
TABLES = ("games", "hands", "events", "melds", "team_hands")

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
    # the same game written again with one more line (nothing may follow game_ended, EVENTS.md,
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


def test_an_illegal_log_is_rejected_and_the_rest_indexed(tmp_path: Path):
    events = random_game("stbl", 2, 7)
    bad_at = next(i for i, ev in enumerate(events) if isinstance(ev, Discarded))
    state = GameState()
    for ev in events[:bad_at]:
        play(state, ev)
    # the discard names a card the player does not hold: the engine must refuse it
    absent = next(c for c in ALL_CARDS if state.hands[events[bad_at].player][c] == 0)
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
        assert r["closed_rate"] + r["exhausted_rate"] == pytest.approx(1.0)
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
            assert {r["variant"] for r in df.select("variant").distinct().collect()} == {
                v for v, _, _ in GAMES}
    finally:
        spark.stop()


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
