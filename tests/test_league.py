"""`buraco league` (`play.league`): every pair of bots plays a duplicate match, OpenSkill rates
them; deterministic for a seed whatever the workers; every log written and auditable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import hide_matplotlib
from typer.testing import CliRunner

from buraco_events.audit.files import audit_path
from buraco_events.play.league import against, league, pair_folder
from cli.main import app

runner = CliRunner()
BOTS = ["random", "greedy", "buraco_events:RandomBot"]


@pytest.mark.slow
def test_a_league_rates_every_pair_on_the_same_deals(tmp_path: Path) -> None:
    result = league(tmp_path, BOTS, 3, seed=4, workers=1)
    assert [(p.a, p.b) for p in result.pairs] == [("random", "greedy"), ("random", "buraco_events:RandomBot"),
                                                  ("greedy", "buraco_events:RandomBot")]
    assert result.ratings[0].bot == "greedy"  # it beats both random bots on every deal
    assert all(abs(r.ordinal - (r.mu - 3 * r.sigma)) < 0.05 for r in result.ratings)
    clones = against(result, "random", "buraco_events:RandomBot")
    assert clones is not None and clones.mean_diff == 0 and clones.wins == (0, 3, 0)  # the same bot: even
    mirrored = against(result, "greedy", "random")
    plain = against(result, "random", "greedy")
    assert mirrored is not None and plain is not None and mirrored.mean_diff == -plain.mean_diff > 0
    for i, j in ((0, 1), (0, 2), (1, 2)):
        logs = sorted((tmp_path / pair_folder(i, j)).glob("*.jsonl"))
        assert len(logs) == 6
        audit = next(iter(audit_path(logs[0])))
        assert audit.report.ok, audit.report.first
    assert result == league(tmp_path, BOTS, 3, seed=4, workers=2)  # the same for any workers


@pytest.mark.parametrize(("bots", "words"), [(["greedy"], "at least two"), (["greedy", "greedy"], "named twice"),
                                             (["greedy", "nosuch"], "unknown bot")])
def test_a_league_refuses_bad_bots_before_playing(tmp_path: Path, bots: list[str], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        league(tmp_path, bots, 1)
    assert not any(tmp_path.iterdir())
    result = runner.invoke(app, ["league", "--bots", ",".join(bots), "--deals", "1", "--out", str(tmp_path / "l")])
    assert result.exit_code == 2 and words in result.output and "Traceback" not in result.output


def test_a_league_asked_for_a_chart_without_matplotlib_names_the_extra_before_playing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hide_matplotlib(monkeypatch)
    out = tmp_path / "l"
    result = runner.invoke(app, ["league", "--bots", "greedy,random", "--deals", "1", "--out", str(out),
                                 "--plot", str(tmp_path / "league.png")])
    assert result.exit_code == 2 and "buraco-events[plot]" in result.output and "Traceback" not in result.output
    assert not out.exists() and not (tmp_path / "league.png").exists()


@pytest.mark.slow
def test_league_command_json_text_and_plot(tmp_path: Path) -> None:
    args = ["league", "--bots", "greedy,random", "--deals", "2", "--out", str(tmp_path / "l"), "--workers", "1"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {"bots", "variant", "players", "seed", "deals", "ratings", "pairs", "out"}
    assert {r["bot"] for r in doc["ratings"]} == {"greedy", "random"} and len(doc["pairs"]) == 1
    chart = tmp_path / "league.png"
    text = runner.invoke(app, [*args, "--plot", str(chart)])
    assert text.exit_code == 0 and "vs random" in text.stdout and "OpenSkill" in text.stdout
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = runner.invoke(app, [*args, "--plot", str(tmp_path / "league.nope")])
    assert bad.exit_code == 2 and "--plot" in bad.output and "Traceback" not in bad.output
