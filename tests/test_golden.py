"""Golden playthroughs: every sample log audits clean, and its recount is frozen.

The samples were played by the engine, so each `hand_ended` claim in them is the engine's own
score at the time. A change to legality or scoring shows up twice: the audit finds claims that
no longer match the recount, and the per-hand recount differs from its golden file
(regenerate it with `pytest tests/test_golden.py --update-golden` after a deliberate rules change,
and review the diff).

Two sets: `data/samples` (played by today's engine, golden `samples.json`) and
`tests/golden/legacy` (the samples of the first release, whose `rules` objects predate the five
parameters of RULES 9's last paragraph; golden `legacy.json`, frozen then and never regenerated:
old logs keep their meaning).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from buraco_events.audit.files import audit_path
from buraco_events.model.rules import PRESETS

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
SAMPLES = sorted((ROOT / "data" / "samples").glob("*.jsonl"))
GOLDEN = HERE / "golden" / "samples.json"
LEGACY = sorted((HERE / "golden" / "legacy").glob("*.jsonl"))
LEGACY_GOLDEN = HERE / "golden" / "legacy.json"
#: the parameters added after the first release (RULES 9)
NEW_PARAMETERS = ("pile_top_use", "dead_owner", "dead_by_discard", "refill", "stalemate_rounds")


def recount(path: Path) -> dict[str, object]:
    """Return the audit's verdict and recount of one log, as plain data."""
    (result,) = audit_path(path)
    report = result.report
    return {
        "ok": report.ok,
        "sealed": report.sealed,
        "events": report.events,
        "head": report.head,
        "problems": [p.kind for p in report.problems],
        "hands": [
            {"reason": h.reason, "closed_by": h.closed_by, "scores": list(h.scores),
             "detail": [[d.meld_points, d.canasta_bonus, d.close_bonus, d.hand_penalty,
                         d.dead_penalty] for d in h.detail]}
            for h in report.hands
        ],
    }


def test_samples_cover_every_preset_with_two_and_four_players() -> None:
    names = {p.name for p in SAMPLES}
    for variant in PRESETS:
        for players in (2, 4):
            assert f"{variant}-{players}p-s0-00000.jsonl" in names


def _check_against_golden(path: Path, golden_path: Path, update: bool) -> None:
    got = recount(path)
    assert got["ok"] and got["sealed"] and got["problems"] == []
    for hand in got["hands"]:  # type: ignore[attr-defined]
        # RULES 7: the total is the sum of the five items
        assert [sum(items) for items in hand["detail"]] == hand["scores"]
    if update:
        golden = json.loads(golden_path.read_text()) if golden_path.exists() else {}
        golden[path.name] = got
        golden_path.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    golden = json.loads(golden_path.read_text())
    assert golden[path.name] == got


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_audits_clean_and_matches_its_golden_recount(path: Path, update_golden: bool) -> None:
    _check_against_golden(path, GOLDEN, update_golden)


def test_legacy_logs_lack_the_new_parameters() -> None:
    assert len(LEGACY) == 15
    for path in LEGACY:
        rules = json.loads(path.read_bytes().split(b"\n", 1)[0])["rules"]
        assert not set(NEW_PARAMETERS) & set(rules), path.name


@pytest.mark.parametrize("path", LEGACY, ids=[p.stem for p in LEGACY])
def test_legacy_log_gives_the_same_verdict_as_before(path: Path) -> None:
    # RULES 9: a rules object without the new parameters reads with the behaviour before them
    # (next_play, first, no dead_by_discard, refill one, no stalemate): the frozen recount holds
    _check_against_golden(path, LEGACY_GOLDEN, update=False)
