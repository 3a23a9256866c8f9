"""`buraco tournament`: a bots event from new to standings, every result bound to an audited
game log; duplicate deals; the same bytes for any --workers; refusals in one line with nothing
appended; a game log changed after its result makes it disputed; adjustments, ties, head to head.
The tests that play games are slow (`pytest -m slow`); the checks of hostile files, scales and
standings arithmetic run in the quick suite."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from buraco_events.model.events import HandStarted, decode_event
from buraco_events.tournament.events import (
    Entered,
    PairedTable,
    Result,
    RoundPaired,
    TournamentStarted,
)
from buraco_events.tournament.games import TableJob, Verdict, play_table
from buraco_events.tournament.scale import ITALIAN_3
from buraco_events.tournament.standings import outcome, standings
from buraco_events.tournament.state import fold
from cli.main import app

runner = CliRunner()


def run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, ["tournament", *map(str, args)])
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    if code:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        return lines[0]
    return result.stdout


def start(folder: Path, entries: int = 6, movement: str = "mitchell", rounds: int = 3,
          deals: str = "duplicate", form: str = "pairs") -> Path:
    t = folder / "club.jsonl"
    run("new", t, "--name", "Club night", "--variant", "stbl", "--movement", movement, "--rounds",
        rounds, "--deals", deals, "--form", form, "--director", "ana")
    for i in range(1, entries + 1):
        players = f"p{i}a,p{i}b" if form == "pairs" else f"p{i}"
        run("enter", t, "--players", players)
    return t


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


@pytest.mark.slow  # plays whole games through the CLI
def test_a_bots_event_runs_to_its_end_and_audits_clean(tmp_path: Path) -> None:
    t = start(tmp_path)
    for _ in range(3):
        run("pair", t)
        run("play", t, "--bots", "greedy,random", "--workers", "1")
        run("close", t)
    events = lines(t)
    assert [e["type"] for e in events[:2]] == ["tournament_started", "entered"]
    assert events[0]["vp_scale"][0] == [50, 10, 10] and events[0]["vp_scale"][-1] == [None, 20, 0]
    assert events[-1]["type"] == "tournament_ended"
    report = run("audit", t)
    assert "9 of 9 tables counted" in report and "ok:" in report
    table = json.loads(run("standings", t, "--json"))
    assert [r["place"] for r in table["rows"]] == sorted(r["place"] for r in table["rows"])
    assert [(s["entry"], s["vp"], s["place"]) for s in events[-1]["standings"]] == [
        (r["entry"], r["vp"], r["place"]) for r in table["rows"]]
    for o in table["tables"]:
        assert o["status"] == "counted" and sum(o["vp"]) == 20
        log = tmp_path / "club" / f"{o['game_id']}.jsonl"
        assert lines(log)[-1]["totals"] == o["totals"]
    for row in table["rows"]:  # three opponents, all different (Mitchell's lines)
        assert len({c["opponent"] for c in row["rounds"]}) == 3
        assert row["vp"] == sum(c["vp"] for c in row["rounds"])


@pytest.mark.slow  # plays whole games through the CLI
def test_duplicate_deals_give_every_table_of_a_round_the_same_cards(tmp_path: Path) -> None:
    t = start(tmp_path, entries=8, rounds=1)
    run("pair", t)
    run("play", t, "--bots", "greedy,random")
    deals = []
    for log in sorted((tmp_path / "club").glob("*.jsonl")):
        events = [decode_event(line) for line in log.read_bytes().splitlines()]
        deals.append([msgspec.structs.replace(e, seq=0, prev=None) for e in events if isinstance(e, HandStarted)])
    assert len(deals) == 4 and all(d[:1] == deals[0][:1] for d in deals)


@pytest.mark.slow  # plays whole games through the CLI
def test_random_deals_differ_and_play_gives_the_same_bytes_for_any_workers(tmp_path: Path) -> None:
    t = start(tmp_path, entries=8, rounds=1, deals="random")
    run("pair", t)
    other = tmp_path / "again"
    other.mkdir()
    shutil.copy(t, other / "club.jsonl")
    run("play", t, "--bots", "greedy", "--workers", "1")
    run("play", other / "club.jsonl", "--bots", "greedy", "--workers", "2")
    one = sorted((tmp_path / "club").glob("*.jsonl"))
    two = sorted((other / "club").glob("*.jsonl"))
    assert [p.name for p in one] == [p.name for p in two] and len(one) == 4
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(one, two, strict=True))
    firsts = {json.dumps(lines(p)[1]["hands"]) for p in one}
    assert len(firsts) == 4  # each table its own deal


def unchanged(t: Path, *args: str, code: int = 1) -> str:
    before = t.read_bytes()
    message = run(*args, code=code)
    assert t.read_bytes() == before
    return message


@pytest.mark.slow  # plays whole games through the CLI
def test_refusals_are_one_line_and_append_nothing(tmp_path: Path) -> None:
    t = start(tmp_path, entries=4, movement="round_robin", rounds=3, deals="random")
    assert "no entry 9" in unchanged(t, "withdraw", t, "9", "--reason", "gone")
    message = unchanged(t, "withdraw", t, "9", "--reason", "gone")
    assert message.startswith(f"error: {t}: seq 5: field entry:"), message
    assert "round 1 is not paired" in unchanged(t, "adjust", t, "--round", "1", "--entry", "2", "--vp",
                                                "1", "--by", "ana", "--reason", "x")
    assert "plays in entry 1 already" in unchanged(t, "enter", t, "--players", "p1a,zed")
    run("pair", t)
    paired = lines(t)[-1]
    assert "fixed once round 1 is paired" in unchanged(t, "enter", t, "--players", "x,y")
    first, second = paired["tables"]
    folder = tmp_path / "elsewhere"
    folder.mkdir()

    def seats(a: int, b: int) -> list[str]:
        return [f"p{a}a", f"p{b}a", f"p{a}b", f"p{b}b"]

    # a log of table 1's game, but with table 2's players
    wrong = TableJob(str(folder / "wrong.jsonl"), "stbl", None, first["game_id"], first["seed"],
                     seats(*second["entries"]), ["greedy"] * 4)
    play_table(wrong)
    message = unchanged(t, "record", t, folder / "wrong.jsonl")
    assert "field players" in message and "team 0 is entry 1" in message
    # the teams the other way round: not the pairing's seats either
    swapped = TableJob(str(folder / "swapped.jsonl"), "stbl", None, first["game_id"], first["seed"],
                       seats(*reversed(first["entries"])), ["greedy"] * 4)
    play_table(swapped)
    assert "field players" in unchanged(t, "record", t, folder / "swapped.jsonl")
    # another tournament's game
    stray = TableJob(str(folder / "stray.jsonl"), "stbl", None, "other-r1-t1", "s",
                     seats(*first["entries"]), ["greedy"] * 4)
    play_table(stray)
    assert "is no table of this tournament" in unchanged(t, "record", t, folder / "stray.jsonl")
    good = TableJob(str(folder / "good.jsonl"), "stbl", None, first["game_id"], first["seed"],
                    seats(*first["entries"]), ["greedy"] * 4)
    play_table(good)
    run("record", t, folder / "good.jsonl")
    assert "has a result already" in unchanged(t, "record", t, folder / "good.jsonl")
    run("play", t, "--bots", "greedy")  # the other table
    logs = sorted((tmp_path / "club").glob("*.jsonl"))
    assert "has a result already" in unchanged(t, "record", t, logs[-1])
    run("close", t)
    assert "round 1 is closed" in unchanged(t, "record", t, logs[0])
    assert "no open round" in unchanged(t, "close", t)
    assert "no such file" in unchanged(t, "record", t, tmp_path / "missing.jsonl", code=2)
    assert "cannot read" in run("standings", tmp_path / "none.jsonl", code=2)
    assert "exists already" in run("new", t, "--name", "x", "--variant", "stbl", "--movement",
                                   "swiss", "--rounds", "2", code=1)
    # a line edited by hand: the next line's prev no longer links to it
    data = t.read_bytes().splitlines(keepends=True)
    data[1] = data[1].replace(b"p1a", b"p1x")
    t.write_bytes(b"".join(data))
    message = unchanged(t, "standings", t)
    assert "line 3 (seq 2)" in message and "field prev" in message
    # a line that is no event
    data[1] = data[1].replace(b"p1x", b"p1a")
    t.write_bytes(b"".join(data) + b'{"type":"entered","seq":"x"}\n')
    message = unchanged(t, "pair", t)
    assert f"line {len(data) + 1}" in message and "seq" in message


@pytest.mark.slow  # plays whole games through the CLI
def test_a_disputed_result_counts_nothing_until_a_clean_one_comes(tmp_path: Path) -> None:
    t = start(tmp_path, entries=4, movement="swiss", rounds=2, deals="random")
    run("pair", t)
    run("play", t, "--bots", "greedy")
    # the game logs as played, then one of them edited by hand
    logs = sorted((tmp_path / "club").glob("*.jsonl"))
    original = logs[0].read_bytes()
    edited = original.replace(b'"discarded","seq":5', b'"discarded","seq":6', 1)
    assert edited != original
    logs[0].write_bytes(edited)
    result = runner.invoke(app, ["tournament", "standings", str(t), "--json"])
    assert result.exit_code == 1
    table = json.loads(result.stdout)
    assert table["disputed"] and table["tables"][0]["status"] == "disputed"
    assert "audit fails" in table["disputed"][0]["reason"]
    audit = runner.invoke(app, ["tournament", "audit", str(t)])
    assert audit.exit_code == 1 and "is disputed" in audit.stdout
    logs[0].write_bytes(original)
    assert "ok:" in run("audit", t)
    # a different, clean game of the same table after its result: disputed, never silently counted
    paired = next(e for e in lines(t) if e["type"] == "round_paired")["tables"][0]
    a, b = paired["entries"]
    other = TableJob(str(tmp_path / "other.jsonl"), "stbl", None, paired["game_id"], "another seed",
                     [f"p{a}a", f"p{b}a", f"p{a}b", f"p{b}b"], ["random"] * 4)
    play_table(other)
    shutil.copy(tmp_path / "other.jsonl", logs[0])
    audit = runner.invoke(app, ["tournament", "audit", str(t)])
    assert audit.exit_code == 1 and "changed after its result was recorded" in audit.stdout
    logs[0].write_bytes(original)
    # round 2 played into another folder: recorded, and kept beside the tournament too
    run("close", t)
    run("pair", t)
    run("play", t, "--bots", "greedy", "--out", tmp_path / "r2")
    second = sorted((tmp_path / "r2").glob("*.jsonl"))
    assert len(second) == 2 and all((tmp_path / "club" / p.name).read_bytes() == p.read_bytes() for p in second)
    assert "disputed" not in run("standings", t)


@pytest.mark.slow  # plays whole games through the CLI
def test_record_disputed_and_then_the_clean_log(tmp_path: Path) -> None:
    t = start(tmp_path, entries=2, movement="danish", rounds=1, deals="random", form="singles")
    run("pair", t)
    paired = lines(t)[-1]["tables"][0]
    a, b = paired["entries"]
    job = TableJob(str(tmp_path / "g.jsonl"), "stbl", None, paired["game_id"], paired["seed"],
                   [f"p{a}", f"p{b}"], ["greedy", "greedy"])
    play_table(job)
    good = (tmp_path / "g.jsonl").read_bytes()
    (tmp_path / "bad.jsonl").write_bytes(good.rsplit(b"\n", 2)[0] + b"\n")  # cut: no game_ended
    assert "unfinished" in unchanged(t, "record", t, tmp_path / "bad.jsonl")
    out = run("record", t, tmp_path / "bad.jsonl", "--disputed")
    assert "disputed: " in out and "unfinished" in out
    result = runner.invoke(app, ["tournament", "standings", str(t), "--json"])
    table = json.loads(result.stdout)
    assert result.exit_code == 1 and all(r["vp"] == 0 for r in table["rows"])
    run("record", t, tmp_path / "g.jsonl")
    table = json.loads(run("standings", t, "--json"))
    assert sum(r["vp"] for r in table["rows"]) == 20
    assert (tmp_path / "club" / f"{paired['game_id']}.jsonl").read_bytes() == good  # kept beside
    run("adjust", t, "--round", "1", "--entry", str(table["rows"][0]["entry"]), "--vp", "-25",
        "--by", "ana", "--reason", "slow play")
    after = json.loads(run("standings", t, "--json"))
    assert after["rows"][-1]["entry"] == table["rows"][0]["entry"] and after["adjustments"][0]["vp"] == -25
    run("close", t)
    assert "ok:" in run("audit", t)


def constructed(tables: list[tuple[int, int]]) -> tuple:
    events = [TournamentStarted(seq=0, tournament_id="t", name="t", form="singles", variant="stbl",
                                movement="swiss", rounds=3, vp_scale=ITALIAN_3)]
    events += [Entered(seq=i, entry=i, players=(f"p{i}",)) for i in range(1, 5)]
    paired = RoundPaired(seq=5, round=1, tables=tuple(
        PairedTable(table=i, entries=pair, game_id=f"g{i}", seed="s") for i, pair in enumerate(tables, 1)))
    return fold([*events, paired]), paired


def test_a_tie_and_head_to_head_with_constructed_verdicts() -> None:
    state, paired = constructed([(1, 2), (3, 4)])
    totals = {"g1": (700, 700), "g2": (900, 850)}  # a tie (winner null), and a 50 margin: 10-10 too

    def verdict(table: PairedTable) -> Verdict:
        return Verdict(table.game_id, "a" * 64, totals[table.game_id], None)

    results = {t.table: [Result(seq=6 + t.table, round=1, table=t.table, game_id=t.game_id, head="a" * 64,
                                totals=totals[t.game_id], vp=(10, 10))] for t in paired.tables}
    outcomes = [outcome(1, t, results[t.table], verdict, lambda v: (10, 10) if v.totals[0] == v.totals[1]
                        else (10, 10)) for t in paired.tables]
    assert [o.status for o in outcomes] == ["counted", "counted"] and outcomes[0].claims is None
    from buraco_events.tournament.scale import victory_points
    outcomes = [outcome(1, t, results[t.table], verdict, lambda v: victory_points(v.totals, ITALIAN_3))
                for t in paired.tables]
    rows = standings(state, outcomes).rows
    assert [(r.entry, r.vp, r.diff, r.place) for r in rows] == [(3, 10, 50, 1), (1, 10, 0, 2), (2, 10, 0, 2),
                                                                 (4, 10, -50, 4)]
    # a claim that differs is named, and the recount counts
    bad = [Result(seq=7, round=1, table=1, game_id="g1", head="a" * 64, totals=(800, 700), vp=(11, 9))]
    o = outcome(1, paired.tables[0], bad, verdict, lambda v: victory_points(v.totals, ITALIAN_3))
    assert o.vp == (10, 10) and o.claims is not None and "claims totals [800, 700]" in o.claims


def test_head_to_head_breaks_a_tie_on_points_and_difference() -> None:
    state, _ = constructed([(1, 2), (3, 4)])
    r2 = RoundPaired(seq=8, round=2, tables=(PairedTable(table=1, entries=(2, 1), game_id="h1", seed="s"),
                                             PairedTable(table=2, entries=(4, 3), game_id="h2", seed="s")))
    from buraco_events.tournament.state import apply
    state.rounds[0].closed = True
    apply(state, r2)
    totals = {"g1": (1000, 900), "g2": (0, 0), "h1": (1000, 900), "h2": (0, 0)}
    vps = {"g1": (11, 9), "g2": (10, 10), "h1": (11, 9), "h2": (10, 10)}
    outcomes = []
    for rnd, paired in enumerate((state.rounds[0].paired, r2), 1):
        for t in paired.tables:
            res = [Result(seq=20, round=rnd, table=t.table, game_id=t.game_id, head="b" * 64,
                          totals=totals[t.game_id], vp=vps[t.game_id])]
            outcomes.append(outcome(rnd, t, res, lambda t: Verdict(t.game_id, "b" * 64, totals[t.game_id], None),
                                    lambda v: vps[[k for k in totals if totals[k] == v.totals][0]]))
    rows = standings(state, outcomes).rows
    # 1 and 2 both have 20 VP and difference 0; so have 3 and 4 (two draws): all four tie on VP
    # and difference, and head to head (VP won against the tied) is 20 each: one shared place
    assert {r.place for r in rows} == {1} and [r.entry for r in rows] == [1, 2, 3, 4]


@pytest.mark.parametrize("scale", ["3", "4"])
def test_the_scale_rows_are_in_the_first_line(tmp_path: Path, scale: str) -> None:
    t = tmp_path / "t.jsonl"
    run("new", t, "--name", "x", "--variant", "stbl", "--movement", "swiss", "--rounds", "2", "--scale", scale)
    first = lines(t)[0]
    assert first["vp_scale"][0] == ([50, 10, 10] if scale == "3" else [100, 10, 10])
    csv = tmp_path / "s.csv"
    csv.write_text("0,10,10\n200,14,6\n,20,0\n")
    run("new", tmp_path / "u.jsonl", "--name", "x", "--variant", "stbl", "--movement", "swiss",
        "--rounds", "2", "--scale", str(csv))
    assert lines(tmp_path / "u.jsonl")[0]["vp_scale"] == [[0, 10, 10], [200, 14, 6], [None, 20, 0]]
    assert "--scale" in run("new", tmp_path / "v.jsonl", "--name", "x", "--variant", "stbl",
                            "--movement", "swiss", "--rounds", "2", "--scale", "5", code=2)
    assert "unknown variant" in run("new", tmp_path / "w.jsonl", "--name", "x", "--variant", "nope",
                                    "--movement", "swiss", "--rounds", "2", code=2)
    assert not (tmp_path / "v.jsonl").exists() and not (tmp_path / "w.jsonl").exists()


def test_hostile_tournament_logs_are_one_line_each(tmp_path: Path) -> None:
    t = tmp_path / "t.jsonl"
    run("new", t, "--name", "x", "--variant", "stbl", "--movement", "swiss", "--rounds", "2")
    good = t.read_bytes()
    cases = {
        b"": "line 1: empty file",
        b"\x00\xff garbage": "line 1",
        b"[" * 100_000 + b"\n": "line 1",
        b'{"type":"entered","seq":0}\n': "line 1",
        good + b'{"type":"entered","seq":1,"prev":"' + b"0" * 64 + b'","entry":1,"players":["a"]}\n':
            "line 2 (seq 1): field prev",
        good + b"x" * (2 << 20) + b"\n": "line 2",
        good + b'{"type":"entered","seq":1,"entry":1,"players":["a","b","c"]}\n': "line 2",
        good + good: "line 2 (seq 0)",
        good[:-1]: "line 1: no whole line",
        good + b'{"type":"entered","seq":1': "line 2: torn last line",
    }
    for data, words in cases.items():
        t.write_bytes(data)
        result = runner.invoke(app, ["tournament", "enter", str(t), "--players", "a,b"])
        assert result.exit_code in (1, 2), (data[:40], result.stderr)
        lines_ = result.stderr.strip().splitlines()
        assert len(lines_) == 1 and words in lines_[0], (data[:40], result.stderr)
        assert t.read_bytes() == data  # nothing appended


@pytest.mark.slow  # plays whole games through the CLI
def test_audit_names_every_claim_that_differs(tmp_path: Path) -> None:
    from buraco_events.tournament import store
    from buraco_events.tournament.events import RoundClosed, Standing, TournamentEnded

    t = start(tmp_path, entries=4, movement="danish", rounds=1, deals="random", form="singles")
    # a pairing written by another program: 1 v 3 and 2 v 4, where Danish pairs 1 v 2, 3 v 4
    forged = RoundPaired(seq=0, round=1, tables=(
        PairedTable(table=1, entries=(1, 3), game_id="club-x-r1-t1", seed="a"),
        PairedTable(table=2, entries=(2, 4), game_id="club-x-r1-t2", seed="b")))
    store.append(t, lambda log: [forged])
    run("play", t, "--bots", "greedy")
    played = lines(t)[-1]
    # a result whose claims are not the game log's, then standings claimed wrong
    log = store.read_tournament(t)
    first = log.state.rounds[0].results[1][0]
    store.append(t, lambda log: [RoundClosed(seq=0, round=1), TournamentEnded(seq=0, standings=(
        Standing(entry=1, vp=99, place=1),))])
    data = t.read_bytes()
    assert b'"vp":99' in data and played["type"] == "result"
    result = runner.invoke(app, ["tournament", "audit", str(t)])
    assert result.exit_code == 1
    assert "round 1 is not the pairing the danish movement gives" in result.stdout
    assert "entry 1 claims vp 99 place 1; the recount gives" in result.stdout
    assert first.game_id == "club-x-r1-t1"


@pytest.mark.slow  # plays whole games through the CLI
def test_record_binds_all_logs_or_none(tmp_path: Path) -> None:
    t = start(tmp_path, entries=4, movement="round_robin", rounds=3, deals="random", form="singles")
    run("pair", t)
    out = tmp_path / "played"
    run("play", t, "--bots", "greedy", "--out", out)  # records both tables
    first, second = sorted(out.glob("*.jsonl"))
    run("close", t)
    run("pair", t)
    tables = lines(t)[-1]["tables"]
    logs = []
    for table in tables:
        a, b = table["entries"]
        job = TableJob(str(tmp_path / f"{table['game_id']}.jsonl"), "stbl", None, table["game_id"],
                       table["seed"], [f"p{a}", f"p{b}"], ["random", "greedy"])
        play_table(job)
        logs.append(Path(job.path))
    # one good log and one of round 1 (closed): neither is recorded, and no copy is kept
    assert "round 1 is closed" in unchanged(t, "record", t, logs[0], first)
    assert not (tmp_path / "club" / logs[0].name).exists()
    assert "round 2 table 1" in run("record", t, *logs)
    assert (tmp_path / "club" / logs[1].name).read_bytes() == logs[1].read_bytes()
    assert second.exists()


def test_withdrawn_entries_are_not_paired_and_swiss_avoids_rematches(tmp_path: Path) -> None:
    from buraco_events.tournament import director, store
    from buraco_events.tournament.events import RoundClosed

    t = start(tmp_path, entries=6, movement="swiss", rounds=3, deals="random", form="singles")
    first = director.pair(t, "2026-01-01T00:00:00Z")
    assert [x.entries for x in first.tables] == [(1, 2), (3, 4), (5, 6)]

    def no_shows(log: store.TournamentLog) -> list:
        rnd = log.state.rounds[-1].paired
        return [Result(seq=0, round=rnd.round, table=x.table, game_id=x.game_id, head="0" * 64,
                       totals=(0, 0), vp=(0, 0), disputed="no-show") for x in rnd.tables] + [
            RoundClosed(seq=0, round=rnd.round)]

    store.append(t, no_shows)  # disputed results count nothing: everyone stays on 0
    run("withdraw", t, "3", "--reason", "ill")
    second = director.pair(t, "2026-01-01T01:00:00Z")
    paired = [set(x.entries) for x in second.tables]
    assert all(3 not in p for p in paired) and second.bye is not None and second.bye != 3
    assert not any(p in ({1, 2}, {3, 4}, {5, 6}) for p in paired)  # no rematch while avoidable
    assert "round 2 is not closed" in unchanged(t, "pair", t)
