"""Golden playthroughs: every sample log in data/samples audits clean, and its recount is frozen.

The samples were played by the engine, so each `hand_ended` claim in them is the engine's own
score at the time. A change to legality or scoring shows up twice: the audit finds claims that
no longer match the recount, and the per-hand recount differs from `tests/golden/samples.json`
(regenerate it with UPDATE_GOLDEN=1 after a deliberate rules change, and review the diff).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from buraco_events.audit import audit_path
from buraco_events.rules import PRESETS

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "data" / "samples").glob("*.jsonl"))
GOLDEN = Path(__file__).resolve().parent / "golden" / "samples.json"


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


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_audits_clean_and_matches_its_golden_recount(path: Path) -> None:
    got = recount(path)
    assert got["ok"] and got["sealed"] and got["problems"] == []
    for hand in got["hands"]:  # type: ignore[attr-defined]
        # RULES 7: the total is the sum of the five items
        assert [sum(items) for items in hand["detail"]] == hand["scores"]
    if os.environ.get("UPDATE_GOLDEN"):
        golden = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
        golden[path.name] = got
        GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    golden = json.loads(GOLDEN.read_text())
    assert golden[path.name] == got
