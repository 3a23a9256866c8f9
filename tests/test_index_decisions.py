"""Analyses in the index (`index --analysis`, `analyze --db`): the `decisions` table, matched to
its games (never a branch's, never another game's), and the views `player_accuracy` and
`mistakes_by_phase` checked against the `Analysis` objects they were made from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import msgspec
import pytest
from typer.testing import CliRunner

from buraco_events.analysis.evaluate import Analysis, Decision, accuracy_of, analyze
from buraco_events.analytics import decisions
from buraco_events.log.sources import read_log
from cli.main import app

#: every test here stands on analyses of whole games (seconds each): run with `-m slow`
pytestmark = pytest.mark.slow
runner = CliRunner()
SAMPLES = Path(__file__).parent.parent / "data" / "samples"
#: (log, seat) analysed; two seats of one game and a seat of another, two of them one player
ANALYSED = [("aberto-sujo-2p-s0-00000", 0), ("aberto-sujo-2p-s0-00000", 1), ("burraco-4p-s0-00000", 1)]
#: the marks given to the first decisions of the last analysis (samples=2 marks nothing), each
#: with an interval whose lower end is its class's
MARKS = ["inaccuracy", "mistake", "blunder", "mistake"]
LOWS = {"inaccuracy": 250.0, "mistake": 400.0, "blunder": 700.0}
ROW = ("seq, hand, phase, chosen, best, loss, loss_stderr, loss_low, loss_high, class, seat, player, samples, seed")


def cli(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def _events(name: str) -> list:
    return [event for _, _, event in read_log(SAMPLES / f"{name}.jsonl")]


def _expected(a: Analysis) -> list[tuple]:
    return [(d.seq, d.hand, d.phase, d.chosen, d.best, d.loss, d.loss_stderr, d.low, d.high, d.mark, a.seat,
             a.player, d.samples, a.seed) for d in a.decisions]


def _marked(d: Decision, mark: str) -> Decision:
    """Return a decision given `mark`, with an interval whose lower end is that class's."""
    low = LOWS[mark]
    return msgspec.structs.replace(d, mark=mark, low=low, loss=max(d.loss, low + 50), high=max(d.loss, low + 50) + 50)


def _write(folder: Path, a: Analysis, name: str | None = None) -> Path:
    path = folder / (name or f"{a.game_id}.s{a.seat}{decisions.SUFFIX}")
    path.write_bytes(msgspec.json.encode(a))
    return path


def _rows(db: Path, sql: str, params: list | None = None) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, params or []).fetchall()


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path | list[Analysis]]:
    """The sample logs of the analyses, the analyses (samples=2, the last with marks given to
    its first decisions) in a folder of their own, and a database indexed from both."""
    root = tmp_path_factory.mktemp("analysed")
    logs, folder = root / "logs", root / "analyses"
    logs.mkdir()
    folder.mkdir()
    results: list[Analysis] = []
    for name, seat in ANALYSED:
        shutil.copy(SAMPLES / f"{name}.jsonl", logs / f"{name}.jsonl")
        results.append(analyze(_events(name), seat, samples=2, seed="t"))
    last = results[-1]
    marked = [_marked(d, MARKS[i]) if i < len(MARKS) else d for i, d in enumerate(last.decisions)]
    results[-1] = msgspec.structs.replace(last, decisions=marked)
    for a in results:
        _write(folder, a)
    db = root / "games.duckdb"
    result = cli("index", logs, "--db", db, "--analysis", folder)
    assert result.exit_code == 0, result.output
    assert "analyses: 3 added, 0 replaced, 0 already indexed" in result.stdout
    total = sum(len(a.decisions) for a in results)
    assert f"({total} decisions stored" in result.stdout
    return {"root": root, "logs": logs, "folder": folder, "db": db, "analyses": results}


def _copy(made: dict, tmp_path: Path) -> Path:
    db = tmp_path / "copy.duckdb"
    shutil.copy(made["db"], db)
    return db


def test_decisions_hold_every_decision_of_each_analysis(made):
    db = made["db"]
    for a in made["analyses"]:
        assert a.decisions
        stored = _rows(db, f"SELECT {ROW} FROM decisions WHERE game_id = ? AND seat = ? ORDER BY seq",
                       [a.game_id, a.seat])
        assert stored == _expected(a)
    # the hand numbered as the other tables number it: the events row at the decision's seq
    joined = _rows(db, "SELECT count(*) FILTER (WHERE d.hand = e.hand AND d.seat = e.player), count(*) "
                   "FROM decisions d JOIN events e USING (game_id, seq)")
    assert joined[0][0] == joined[0][1] == sum(len(a.decisions) for a in made["analyses"])


def test_player_accuracy_is_the_analysis_formula_over_each_players_decisions(made):
    analyses: list[Analysis] = made["analyses"]
    got = {row[0]: row[1:] for row in _rows(made["db"], "SELECT * FROM player_accuracy")}
    players = {a.player for a in analyses}
    assert set(got) == players and len(players) == 2
    for player in players:
        mine = [a for a in analyses if a.player == player]
        losses = [d.loss for a in mine for d in a.decisions]
        marks = [d.mark for a in mine for d in a.decisions]
        n_analyses, n, mean_loss, accuracy, inaccuracies, mistakes, blunders = got[player]
        assert (n_analyses, n) == (len(mine), len(losses))
        assert mean_loss == pytest.approx(sum(losses) / len(losses))
        assert accuracy == pytest.approx(accuracy_of(sum(losses) / len(losses)), abs=0.051)
        if len(mine) == 1:  # one analysis: the very figures `analyze` gave it
            assert accuracy == pytest.approx(mine[0].accuracy, abs=0.051)
            assert round(mean_loss, 1) == pytest.approx(mine[0].mean_loss)
        assert (inaccuracies, mistakes, blunders) == tuple(marks.count(c) for c in decisions.CLASSES)
    assert sum(row[-1] for row in got.values()) == MARKS.count("blunder") == 1


def test_mistakes_by_phase_counts_the_marked_decisions_of_each_phase(made):
    all_decisions = [d for a in made["analyses"] for d in a.decisions]
    rows = _rows(made["db"], "SELECT * FROM mistakes_by_phase")
    assert [r[0] for r in rows] == sorted({d.phase for d in all_decisions})
    for phase, n, marked, inaccuracies, mistakes, blunders, mean_loss in rows:
        mine = [d for d in all_decisions if d.phase == phase]
        marks = [d.mark for d in mine]
        assert n == len(mine) and marked == sum(m is not None for m in marks)
        assert (inaccuracies, mistakes, blunders) == tuple(marks.count(c) for c in decisions.CLASSES)
        assert mean_loss == pytest.approx(sum(d.loss for d in mine) / len(mine))
    assert sum(r[2] for r in rows) == len(MARKS)


def test_the_same_analyses_again_change_nothing_and_another_replaces(made, tmp_path):
    db = _copy(made, tmp_path)
    before = _rows(db, "SELECT * FROM decisions ORDER BY ALL")
    again = cli("index", made["logs"], "--db", db, "--analysis", made["folder"])
    assert again.exit_code == 0, again.output
    assert "analyses: 0 added, 0 replaced, 3 already indexed (0 decisions stored" in again.stdout
    assert _rows(db, "SELECT * FROM decisions ORDER BY ALL") == before
    # another analysis of a game and seat (another seed) takes the place of the stored one
    a = made["analyses"][0]
    other = analyze(_events(ANALYSED[0][0]), a.seat, samples=2, seed="u")
    folder = tmp_path / "other"
    folder.mkdir()
    _write(folder, other)
    result = cli("index", "--db", db, "--analysis", folder)  # no logs: analyses alone
    assert result.exit_code == 0, result.output
    assert "analyses: 0 added, 1 replaced, 0 already indexed" in result.stdout
    stored = _rows(db, f"SELECT {ROW} FROM decisions WHERE game_id = ? AND seat = ? ORDER BY seq",
                   [a.game_id, a.seat])
    assert stored == _expected(other) and {r[-1] for r in stored} == {"u"}
    assert len(_rows(db, "SELECT * FROM decisions")) == len(before) - len(a.decisions) + len(other.decisions)


def test_analyze_db_stores_the_same_rows_as_index_analysis(made, tmp_path):
    name, seat = ANALYSED[0]
    db = tmp_path / "fresh.duckdb"
    assert cli("index", made["logs"], "--db", db).exit_code == 0
    result = cli("analyze", SAMPLES / f"{name}.jsonl", "--as", seat, "--samples", 2, "--seed", "t",
                 "--db", db, "--json")
    assert result.exit_code == 0, result.output
    printed = msgspec.json.decode(result.stdout.encode(), type=Analysis)  # stdout stays the analysis
    assert printed == made["analyses"][0]
    assert f"{len(printed.decisions)} decisions of game {name} seat {seat} stored" in result.stderr
    query = f"SELECT game_id, {ROW} FROM decisions ORDER BY ALL"
    from_index = _rows(made["db"], query.replace("ORDER", f"WHERE game_id = '{name}' AND seat = {seat} ORDER"))
    assert _rows(db, query) == from_index
    again = cli("analyze", SAMPLES / f"{name}.jsonl", "--as", seat, "--samples", 2, "--seed", "t", "--db", db)
    assert again.exit_code == 0 and "already stored" in again.stderr
    assert _rows(db, query) == from_index


@pytest.mark.parametrize(("target", "code", "words"), [
    ("missing.duckdb", 2, "no database"),
    ("not-a-db.json", 2, "is not a DuckDB database"),
])
def test_analyze_db_refuses_a_database_that_is_not_an_index_before_analysing(tmp_path, target, code, words):
    (tmp_path / "not-a-db.json").write_text("{}")
    result = cli("analyze", SAMPLES / "stbl-2p-s0-00000.jsonl", "--as", 0, "--samples", 2,
                 "--db", tmp_path / target)
    assert result.exit_code == code and words in result.stderr
    assert result.stdout == "" and "Traceback" not in result.output


def test_an_analysis_of_a_game_not_indexed_is_rejected_in_one_line(made, tmp_path):
    db = tmp_path / "fresh.duckdb"
    assert cli("index", SAMPLES / "stbl-2p-s0-00000.jsonl", "--db", db).exit_code == 0
    result = cli("index", "--db", db, "--analysis", made["folder"])
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("rejected:")]
    assert len(lines) == 3 and all("is not indexed; index its log first" in line for line in lines)
    assert "3 rejected" in result.stdout and "analyses: 0 added" in result.stdout
    assert _rows(db, "SELECT count(*) FROM decisions") == [(0,)]
    # analyze --db says the same in one line, exit 1 (the analysis printed first)
    name, seat = ANALYSED[2]
    direct = cli("analyze", SAMPLES / f"{name}.jsonl", "--as", seat, "--samples", 2, "--db", db)
    assert direct.exit_code == 1 and f"game {name} is not indexed" in direct.stderr
    assert direct.stderr.count("\n") == 1 and "Traceback" not in direct.output


@pytest.mark.parametrize(("change", "field"), [
    ({"player": "someone"}, "player: seat 0 of game aberto-sujo-2p-s0-00000 is 'greedy-0', not 'someone'"),
    ({"seat": 3}, "seat: game aberto-sujo-2p-s0-00000 has 2 seats (0 to 1), not seat 3"),
])
def test_an_analysis_whose_seat_or_player_disagrees_with_its_game_is_rejected(made, tmp_path, change, field):
    db = _copy(made, tmp_path)
    folder = tmp_path / "bad"
    folder.mkdir()
    path = _write(folder, msgspec.structs.replace(made["analyses"][0], **change))
    before = _rows(db, "SELECT * FROM decisions ORDER BY ALL")
    result = cli("index", "--db", db, "--analysis", folder)
    assert result.exit_code == 1
    assert f"rejected: {path}: {field}" in result.stderr
    assert _rows(db, "SELECT * FROM decisions ORDER BY ALL") == before


def test_an_analysis_of_a_branch_is_rejected_and_the_branch_kept_apart(made, tmp_path):
    name, seat = ANALYSED[0]
    branch = tmp_path / "branch.jsonl"
    made_branch = cli("branch", made["logs"] / f"{name}.jsonl", "--at", 20, "-o", branch)
    assert made_branch.exit_code == 0, made_branch.output
    db = _copy(made, tmp_path)
    before = _rows(db, "SELECT * FROM decisions ORDER BY ALL")
    # analyze --db refuses a branch before analysing it
    direct = cli("analyze", branch, "--as", seat, "--samples", 2, "--db", db)
    assert direct.exit_code == 1 and direct.stdout == ""
    assert f"a branch of {name} at seq 20: the decisions table holds only games' decisions" in direct.stderr
    # its analysis, offered to the index (with the branch itself), does not match the game
    folder = tmp_path / "branch-analyses"
    folder.mkdir()
    path = _write(folder, analyze([e for _, _, e in read_log(branch)], seat, samples=2, seed="t"),
                  "branch.s0.analysis.json")
    result = cli("index", branch, "--db", db, "--analysis", folder)
    assert result.exit_code == 1
    assert "1 branch added to the branches table" in result.stdout
    rejected = [line for line in result.stderr.splitlines() if line.startswith("rejected:")]
    assert len(rejected) == 1 and rejected[0].startswith(f"rejected: {path}: seq ")
    assert "an analysis of a branch, or another log under the same game id" in rejected[0]
    assert _rows(db, "SELECT * FROM decisions ORDER BY ALL") == before


def test_a_game_known_only_by_its_branches_says_so(made, tmp_path):
    name, seat = ANALYSED[0]
    branch = tmp_path / "branch.jsonl"
    assert cli("branch", made["logs"] / f"{name}.jsonl", "--at", 20, "-o", branch).exit_code == 0
    folder = tmp_path / "a"
    folder.mkdir()
    _write(folder, made["analyses"][0])
    db = tmp_path / "branch-only.duckdb"
    result = cli("index", branch, "--db", db, "--analysis", folder)
    assert result.exit_code == 1
    assert f"game {name} is not indexed (only branches of it are: an analysis of a branch is not stored)" \
        in result.stderr


def test_two_different_analyses_of_one_game_and_seat_in_a_run_conflict(made, tmp_path):
    db = tmp_path / "fresh.duckdb"
    folder = tmp_path / "two"
    folder.mkdir()
    a = made["analyses"][0]
    first = _write(folder, a, "a.analysis.json")
    _write(folder, a, "b.analysis.json")  # the same again: unchanged
    other = msgspec.structs.replace(a, seed="other")
    second = _write(folder, other, "c.analysis.json")
    result = cli("index", made["logs"], "--db", db, "--analysis", folder)
    assert result.exit_code == 1
    assert (f"rejected: {second}: game {a.game_id} seat {a.seat}: another analysis of it in this run "
            f"({first}) differs") in result.stderr
    assert "analyses: 1 added, 0 replaced, 1 already indexed" in result.stdout
    assert _rows(db, "SELECT DISTINCT seed FROM decisions") == [("t",)]


def _bad(made: dict, edit) -> bytes:
    data = json.loads(msgspec.json.encode(made["analyses"][0]))
    edit(data)
    return json.dumps(data).encode()


def _set(index: int, key: str, value):
    def edit(data: dict) -> None:
        data["decisions"][index][key] = value
    return edit


@pytest.mark.parametrize(("content", "words"), [
    (lambda m: b"{not json", "not JSON"),
    (lambda m: b"[]", "the whole file: Expected object, got array"),
    (lambda m: _bad(m, lambda d: d.pop("seed")), "the whole file: Object missing required field seed"),
    (lambda m: _bad(m, _set(1, "loss", "big")), "seq {seq1}: decisions[1].loss: Expected float, got str"),
    (lambda m: _bad(m, _set(1, "loss", -5)), "seq {seq1}: decisions[1].loss: -5.0 is not a loss"),
    (lambda m: _bad(m, _set(2, "mark", "oops")), "seq {seq2}: decisions[2].mark: 'oops' is not null nor one of"),
    (lambda m: _bad(m, _set(2, "seq", 1)), "seq 1: decisions[2].seq: 1 does not follow seq {seq1}"),
    (lambda m: _bad(m, _set(0, "hand", 1 << 40)), "seq {seq0}: decisions[0].hand: 1099511627776 is not a hand"),
    (lambda m: _bad(m, lambda d: d.update(seat=-1)), "seat: -1 is not a seat of an analysis"),
    (lambda m: _bad(m, _set(1, "seq", 1 << 40)), "decisions[1].seq: 1099511627776 is not a seq"),
    (lambda m: _bad(m, _set(1, "seq", 987654321)).replace(b"987654321", b"9" * 5000),
     "decisions[1].seq: Integer value out of range"),
    (lambda m: _bad(m, _set(1, "loss", 987654321)).replace(b"987654321", b"9" * 5000),
     "seq {seq1}: decisions[1].loss: Number out of range"),
    (lambda m: b'{"game_id": "\\u001b[2J"}', "the whole file: Object missing required field seat"),
])
def test_a_bad_analysis_file_is_one_line_naming_the_file_the_seq_and_the_field(made, tmp_path, content, words):
    db = _copy(made, tmp_path)
    folder = tmp_path / "bad"
    folder.mkdir()
    path = folder / "bad.analysis.json"
    path.write_bytes(content(made))
    seqs = {f"seq{i}": d.seq for i, d in enumerate(made["analyses"][0].decisions[:3])}
    result = cli("index", "--db", db, "--analysis", folder)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"rejected: {path}: {words.format(**seqs)}"), lines


def test_a_file_too_large_is_refused_unread(made, tmp_path, monkeypatch):
    folder = tmp_path / "big"
    folder.mkdir()
    path = _write(folder, made["analyses"][0])
    monkeypatch.setattr(decisions, "MAX_ANALYSIS_BYTES", path.stat().st_size - 1)
    result = cli("index", "--db", _copy(made, tmp_path), "--analysis", folder)
    assert result.exit_code == 1 and f"rejected: {path}: larger than" in result.stderr


def test_text_from_an_analysis_is_shown_escaped(made, tmp_path):
    folder = tmp_path / "odd"
    folder.mkdir()
    odd = msgspec.structs.replace(made["analyses"][0], game_id="x\x1b[2J\u202e")
    _write(folder, odd, "odd.analysis.json")
    result = cli("index", "--db", _copy(made, tmp_path), "--analysis", folder)
    assert result.exit_code == 1
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr
    assert "game x\\x1b[2J\\u202e is not indexed" in result.stderr


def test_index_needs_logs_or_analyses_and_says_a_missing_folder(tmp_path):
    nothing = cli("index", "--db", tmp_path / "x.duckdb")
    assert nothing.exit_code == 2 and "give the logs to index, or --analysis DIR" in nothing.stderr
    missing = cli("index", "--db", tmp_path / "x.duckdb", "--analysis", tmp_path / "none")
    assert missing.exit_code == 2 and "none: no such file or folder" in missing.stderr
    assert not (tmp_path / "x.duckdb").exists()


def test_sql_cannot_write_the_decisions(made):
    result = cli("sql", "DELETE FROM decisions", "--db", made["db"])
    assert result.exit_code == 1 and "only a read-only query" in result.stderr
    assert _rows(made["db"], "SELECT count(*) FROM decisions")[0][0] > 0


def test_replacing_a_game_drops_the_decisions_that_judged_its_old_log(made, tmp_path):
    name, _ = ANALYSED[2]
    db = _copy(made, tmp_path)
    changed = tmp_path / "changed.jsonl"
    lines = (made["logs"] / f"{name}.jsonl").read_bytes().splitlines(keepends=True)
    changed.write_bytes(b"".join(lines[:-3]))  # the same game, cut short: another head
    result = cli("index", changed, "--db", db, "--replace")
    assert "1 replaced" in result.stdout, result.output
    assert _rows(db, "SELECT count(*) FROM decisions WHERE game_id = ?", [name]) == [(0,)]
    assert _rows(db, "SELECT count(*) FROM decisions")[0][0] > 0  # the other game's stay


@pytest.mark.parametrize("relation", ["decisions", "player_accuracy", "mistakes_by_phase"])
def test_decisions_and_their_views_read_the_same_over_parquet(made, tmp_path, relation):
    folder = tmp_path / "parquet"
    exported = cli("export", "--db", made["db"], "--parquet", folder)
    assert exported.exit_code == 0, exported.output
    assert list((folder / "decisions").glob("variant=*/*.parquet"))
    sql = f"SELECT * FROM {relation} ORDER BY ALL"
    over_db = json.loads(cli("sql", sql, "--db", made["db"], "--json").stdout)
    over_parquet = cli("sql", sql, "--parquet", folder, "--json")
    assert over_parquet.exit_code == 0, over_parquet.output
    assert json.loads(over_parquet.stdout) == over_db and over_db


def test_an_index_without_analyses_exports_decisions_as_one_empty_file(made, tmp_path):
    db = tmp_path / "plain.duckdb"
    assert cli("index", made["logs"], "--db", db).exit_code == 0
    folder = tmp_path / "parquet"
    assert cli("export", "--db", db, "--parquet", folder).exit_code == 0
    assert [p.name for p in (folder / "decisions").iterdir()] == ["empty.parquet"]
    result = cli("sql", "SELECT count(*) AS n FROM decisions", "--parquet", folder, "--json")
    assert json.loads(result.stdout) == [{"n": 0}]


def test_analyze_db_stores_nothing_of_a_log_that_stops_replaying(made, tmp_path):
    name, seat = ANALYSED[0]
    lines = (made["logs"] / f"{name}.jsonl").read_bytes().splitlines(keepends=True)
    turn = next(i for i in range(30, len(lines)) if b'"player":' in lines[i])
    bad = json.loads(lines[turn])
    bad["player"] = 1 - bad["player"]  # a move by the seat not to play
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:turn]) + json.dumps(bad, separators=(",", ":")).encode() + b"\n")
    db = tmp_path / "fresh.duckdb"
    assert cli("index", made["logs"], "--db", db).exit_code == 0
    result = cli("analyze", cut, "--as", seat, "--samples", 1, "--db", db)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"(analysed up to there; not stored in {db})" in result.stderr
    assert _rows(db, "SELECT count(*) FROM decisions") == [(0,)]
