"""`sim.simulate` and `buraco simulate`: sealed logs, identical bytes, correct summaries, the CLI."""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from collections import Counter
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from buraco_events.core import engine
from buraco_events.log.reader import check_log
from buraco_events.log.sources import read_log
from buraco_events.model.events import GameStarted, HandEnded, line_hash
from buraco_events.play.sim import game_id, game_seed, seat_bots, simulate
from cli.main import app

ROOT = Path(__file__).resolve().parent.parent


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.jsonl"))}


def test_same_arguments_same_bytes(tmp_path: Path) -> None:
    """Two runs with the same arguments write the same files, byte for byte; another seed differs."""
    a = simulate(tmp_path / "a", 6, "stcl", 2, 5, ["greedy", "random"], target=0)
    b = simulate(tmp_path / "b", 6, "fechado-stcl", 2, 5, ["greedy", "random"], target=0)  # an alias
    simulate(tmp_path / "c", 6, "stcl", 2, 6, ["greedy", "random"], target=0)
    fa, fb, fc = _files(tmp_path / "a"), _files(tmp_path / "b"), _files(tmp_path / "c")
    assert list(fa) == [f"stcl-2p-s5-{i:05d}.jsonl" for i in range(6)]
    assert fa == fb
    assert set(fa.values()).isdisjoint(fc.values())
    assert (a.hands, a.events, a.wins, a.avg_hand_score) == (b.hands, b.events, b.wins, b.avg_hand_score)


def test_two_workers_give_the_same_bytes(tmp_path: Path) -> None:
    """A process pool of 2 writes exactly what a single process writes, and the same summary."""
    one = simulate(tmp_path / "one", 12, "aberto", 4, 3, ["greedy", "random"], workers=1, target=0)
    two = simulate(tmp_path / "two", 12, "aberto", 4, 3, ["greedy", "random"], workers=2, target=0)
    assert _files(tmp_path / "one") == _files(tmp_path / "two")
    strip = {"elapsed": 0.0, "hands_per_s": 0.0}
    assert {**_asdict(one), **strip} == {**_asdict(two), **strip}


def _asdict(s: object) -> dict[str, object]:
    return {f: getattr(s, f) for f in s.__struct_fields__}  # type: ignore[attr-defined]


def test_logs_are_sealed_legal_and_the_summary_adds_up(tmp_path: Path) -> None:
    """Each log checks (chain) and replays; the summary's figures are recomputed from the files."""
    calls: list[tuple[int, int]] = []
    s = simulate(tmp_path, 8, "fechado-sujo", 4, 1, ["random", "greedy"], target=0,
                 progress=lambda g, h: calls.append((g, h)))
    hands = events = closed = 0
    wins = [0, 0]
    score = [0, 0]
    canastas: Counter[tuple[str, int]] = Counter()
    for path in sorted(tmp_path.glob("*.jsonl")):
        status = check_log(path)  # raises on a broken chain
        decoded = [ev for _, _, ev in read_log(path)]
        assert status.sealed and status.events == len(decoded)
        assert status.head == line_hash(path.read_bytes().splitlines()[-1])
        start = decoded[0]
        assert isinstance(start, GameStarted)
        assert start.game_id == path.stem and start.players == ("random-0", "greedy-1", "random-2", "greedy-3")
        state = engine.replay(decoded)
        assert state.phase == "over"
        events += len(decoded)
        wins[state.winner] += 1
        for ev in decoded:
            if isinstance(ev, HandEnded):
                hands += 1
                closed += ev.reason == "closed"
                score[0] += ev.scores[0]
                score[1] += ev.scores[1]
        for result in state.hand_results:
            for sheet in result:
                canastas.update({(k, sheet.team): n for k, n in sheet.canastas.items()})
    assert (s.games, s.hands, s.events, s.wins) == (8, hands, events, tuple(wins))
    assert s.avg_hand_score == (score[0] / hands, score[1] / hands)
    assert s.closing_rate == closed / hands and sum(s.closes) == closed
    for kind, rates in s.canasta_rate.items():
        assert rates == (canastas[kind, 0] / hands, canastas[kind, 1] / hands)
    assert calls and calls[-1] == (8, hands)
    assert s.hands_per_s > 0


def test_full_match_by_default_target(tmp_path: Path) -> None:
    """Without --target a preset's own target (2000 for fechado) is played out."""
    s = simulate(tmp_path, 1, "fechado", 2, 2, ["greedy"])
    (path,) = tmp_path.glob("*.jsonl")
    state = engine.replay(ev for _, _, ev in read_log(path))
    assert s.hands == len(state.hand_results) > 1 and max(state.totals) >= 2000


def test_game_ids_and_seeds() -> None:
    """Ids name the run; each game's seed is stable and distinct."""
    assert game_id("stbl", 4, 7, 12) == "stbl-4p-s7-00012"
    assert game_seed(7, 12) == game_seed(7, 12)
    assert len({game_seed(s, i) for s in range(5) for i in range(200)}) == 1000


def test_seat_bots() -> None:
    """One name for all, two for the two teams, or one per seat; anything else is refused."""
    assert seat_bots(["greedy"], 4) == ("greedy",) * 4
    assert seat_bots(["greedy", "random"], 4) == ("greedy", "random", "greedy", "random")
    assert seat_bots(["random", "greedy", "greedy", "random"], 4) == ("random", "greedy", "greedy", "random")
    with pytest.raises(ValueError, match="give 1, 2 or 4 bot names"):
        seat_bots(["greedy", "random", "greedy"], 4)
    with pytest.raises(ValueError, match="unknown bot 'smart'"):
        seat_bots(["greedy", "smart"], 2)


def test_samples_regenerate_byte_identically(tmp_path: Path) -> None:
    """data/make_samples.py rebuilds data/samples exactly; the samples cover every preset."""
    make = runpy.run_path(str(ROOT / "data" / "make_samples.py"))["make_samples"]
    make(tmp_path)
    stored = _files(ROOT / "data" / "samples")
    assert _files(tmp_path) == stored
    assert len(stored) == 19  # 9 presets x 2 and 4 players, and one match
    assert sum(len(b) for b in stored.values()) < 3_000_000


# -- CLI ---------------------------------------------------------------------------------------

runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "canasta"], "unknown variant 'canasta'"),
        (["--bots", "greedy,clever"], "--bots: unknown bot 'clever'"),
        (["--players", "3"], "--players: Buraco is for 2 or 4 players, got 3"),
        (["--workers", "0"], "--workers >= 1"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    """Bad input gives one line on stderr, nothing on stdout, exit 2, and writes no logs."""
    result = runner.invoke(app, ["simulate", "--games", "2", "--out", str(tmp_path / "o"), *args])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr
    assert not (tmp_path / "o").exists()


def test_cli_json_summary(tmp_path: Path) -> None:
    """--json prints the summary on stdout; logs land in --out."""
    result = runner.invoke(app, [
        "simulate", "--games", "4", "--variant", "burraco", "--players", "4", "--seed", "9",
        "--bots", "greedy,random", "--out", str(tmp_path), "--workers", "1", "--target", "0", "--json",
    ])
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["games"] == 4 and summary["hands"] == 4 and summary["bots"] == ["greedy", "random"] * 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"burraco-4p-s9-{i:05d}.jsonl" for i in range(4)]


def test_cli_table_summary(tmp_path: Path) -> None:
    """Without --json a table with per-team rows goes to stdout."""
    result = runner.invoke(app, ["simulate", "--games", "2", "--out", str(tmp_path), "--target", "0"])
    assert result.exit_code == 0, result.stderr
    assert "2 games of stbl" in result.stdout and "wins" in result.stdout and "hands/s" in result.stdout


def test_bytes_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    """Processes with other string-hash seeds (spawned workers, reruns) write the same bytes."""
    code = ("import sys; from buraco_events.play.sim import simulate; "
            "simulate(sys.argv[1], 3, 'aberto-sujo', 2, 4, ['greedy', 'random'], target=0)")
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-c", code, str(tmp_path / hash_seed)], env=env, check=True,
                       cwd=ROOT)
    assert _files(tmp_path / "1") == _files(tmp_path / "2") != {}


def test_commit_commits_every_deal_reproducibly_and_audit_proves_it(tmp_path: Path) -> None:
    """`--commit`: each hand_started carries a commitment, its hand_ended the salt that opens it;
    the same arguments give the same bytes, the deals and moves are those of the run without it,
    and `buraco audit` passes every commitment (and fails a changed deal)."""
    from buraco_events.audit.files import audit_path
    from buraco_events.log.commit import deal_commitment
    from buraco_events.model.events import HandStarted, decode_event

    args = (2, "fechado", 2, 4, ["greedy"])
    simulate(tmp_path / "a", *args, target=1500, commit=True)
    simulate(tmp_path / "b", *args, target=1500, commit=True)
    simulate(tmp_path / "plain", *args, target=1500)
    committed, plain = _files(tmp_path / "a"), _files(tmp_path / "plain")
    assert committed == _files(tmp_path / "b")
    result = runner_invoke(["simulate", "--games", "2", "--variant", "fechado", "--seed", "4",
                            "--target", "1500", "--commit", "--out", str(tmp_path / "cli")])
    assert result.exit_code == 0, result.output
    assert _files(tmp_path / "cli") == committed
    hands = 0
    for name, data in committed.items():
        events = [decode_event(line) for line in data.splitlines()]
        deals = [e for e in events if isinstance(e, HandStarted)]
        ends = [e for e in events if isinstance(e, HandEnded)]
        assert len(deals) == len(ends) and all(d.commitment for d in deals)
        for d, e in zip(deals, ends, strict=True):
            assert e.salt and deal_commitment(e.salt, d) == d.commitment
        hands += len(deals)
        # the same game as without --commit, but for the commitment and the salt
        bare = [msgspec.structs.replace(e, commitment=None) if isinstance(e, HandStarted) else
                msgspec.structs.replace(e, salt=None) if isinstance(e, HandEnded) else e for e in events]
        assert [msgspec.structs.replace(e, prev=None) for e in bare] == [
            msgspec.structs.replace(decode_event(line), prev=None) for line in plain[name].splitlines()]
        (audit,) = audit_path(tmp_path / "a" / name)
        assert audit.report.ok, audit.report.problems
    assert hands > 3  # matches of several hands
    # a deal changed after the commitment is caught
    name = next(iter(committed))
    lines = committed[name].splitlines()
    deal = decode_event(lines[1])
    swapped = msgspec.structs.replace(deal, stock=(*deal.stock[:-2], deal.stock[-1], deal.stock[-2]))
    forged = tmp_path / "forged.jsonl"
    forged.write_bytes(b"\n".join([lines[0], msgspec.json.encode(swapped), *lines[2:]]) + b"\n")
    (audit,) = audit_path(forged)
    assert any(p.kind == "deal" and "does not match its commitment" in p.message for p in audit.report.problems)


def runner_invoke(args: list[str]):
    """Run the CLI in-process."""
    return CliRunner().invoke(app, args)
