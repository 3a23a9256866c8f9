"""Duplicate matches and leagues beside other games: every game's id names the pair, the deal and
the seating, so simulate, match, league and branch folders index together without a conflict;
progress counts games from the start; the per-deal difference is the seatings' mean."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from buraco_events.analytics.ingest import index
from buraco_events.play.league import league, pair_folder
from buraco_events.play.match import match, match_id
from buraco_events.play.sim import simulate
from buraco_events.util.text import plural, signed
from cli.main import app

runner = CliRunner()


def test_a_game_id_names_the_pair_the_deal_and_the_seating() -> None:
    ab = match_id("stbl", 2, 0, ["greedy", "expert:samples=8"], 3, False)
    ba = match_id("stbl", 2, 0, ["greedy", "expert:samples=8"], 3, True)
    assert ab == "match-stbl-2p-s0-greedy-v-expert_samples=8-00003-ab"
    assert ba.endswith("-00003-ba") and ab != ba
    others = {match_id("stbl", 2, 0, pair, 3, False)
              for pair in (["greedy", "random"], ["random", "greedy"], ["greedy", "expert:samples=16"])}
    assert ab not in others and len(others) == 3
    assert "/" not in match_id("stbl", 2, 0, ["my/bots:Clever", "greedy"], 0, False)


def test_league_match_simulate_and_branch_folders_index_without_a_conflict(tmp_path: Path) -> None:
    result = league(tmp_path / "league", ["greedy", "random", "buraco_events:RandomBot"], 2, seed=0, workers=1)
    ids = [g for p in result.pairs for g in (Path(p.out).glob("*.jsonl"))]
    assert len(ids) == 12 and len({p.stem for p in ids}) == 12  # 3 pairs, 2 deals, 2 seatings
    match(tmp_path / "match", ["greedy", "random"], 2, seed=0, workers=1)  # the league's first pair again
    match(tmp_path / "other", ["random", "greedy"], 1, seed=0, workers=1)
    simulate(tmp_path / "sim", 2, "stbl", 2, seed=0, bots=["greedy", "random"])
    assert sorted(p.name for p in (tmp_path / "league").iterdir()) == [pair_folder(0, 1), pair_folder(0, 2),
                                                                       pair_folder(1, 2)]
    report = index([tmp_path / "league", tmp_path / "match", tmp_path / "other", tmp_path / "sim"],
                   tmp_path / "all.duckdb")
    assert report.ok and not report.conflicts and not report.rejected
    assert report.added == 12 + 2 + 2  # the match repeats the league's first pair: the same games, skipped
    assert report.skipped == 4
    listed = runner.invoke(app, ["index", str(tmp_path / "league"), str(tmp_path / "match"),
                                 "--db", str(tmp_path / "cli.duckdb")])
    assert listed.exit_code == 0, listed.output
    assert "12 games added" in listed.stdout and "0 conflicts" in listed.stdout


def test_progress_counts_games_from_before_the_first(tmp_path: Path) -> None:
    heard: list[tuple[int, int]] = []
    match(tmp_path, ["greedy", "random"], 2, seed=1, workers=1, on_game=lambda d, t: heard.append((d, t)))
    assert heard == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    heard.clear()
    league(tmp_path / "l", ["greedy", "random", "buraco_events:RandomBot"], 1, workers=1,
           on_game=lambda d, t: heard.append((d, t)))
    assert heard[0] == (0, 6) and heard[-1] == (6, 6)
    assert [d for d, _ in heard] == sorted(d for d, _ in heard)


def test_a_deal_s_difference_is_the_mean_of_its_seatings(tmp_path: Path) -> None:
    result = match(tmp_path, ["greedy", "random"], 2, seed=3, workers=1)
    for d in result.deals:
        assert d.diff == (d.a_team0 + d.a_team1) / 2
    text = runner.invoke(app, ["match", "--bots", "greedy,random", "--deals", "1", "--out", str(tmp_path / "m"),
                               "--workers", "1"], env={"COLUMNS": "80"})
    assert text.exit_code == 0, text.output
    assert "duplicate match, 1 deal of" in text.stdout and "(2 games)" in text.stdout
    (row,) = [line for line in text.stdout.splitlines() if line.strip().startswith("1 ")]
    cells = row.replace("│", " ").split()
    assert float(cells[3]) == (int(cells[1]) + int(cells[2])) / 2
    assert "points a game" in text.stdout


def test_plurals_and_signs() -> None:
    assert [plural(n, "hand") for n in (0, 1, 2, 1200)] == ["0 hands", "1 hand", "2 hands", "1,200 hands"]
    assert plural(1, "ruling") == "1 ruling" and plural(3, "analysis", "analyses") == "3 analyses"
    assert [signed(x) for x in (12, -3.5, 0, 1050.0, 2100)] == ["+12", "-3.5", "0", "+1050", "+2100"]
