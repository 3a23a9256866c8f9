"""Golden digests of today's outputs: what behaviour-preserving work (refactors, speed) must keep.

Frozen in `tests/golden/digests.json` (regenerate with `pytest tests/test_digests.py -m ''
--update-golden` only after a deliberate change of behaviour, and say why in the commit):
- `audit`: the audit report (JSON, as `buraco audit --json` prints it) of every sample, legacy
  sample and disputed log;
- `simulate`: the bytes of every log `simulate` writes for fixed seeds, on every preset with 2 and
  4 players (greedy against random bots);
- `index`: every table of the database `index` builds from those logs, row by row in a fixed
  order;
- `index_before_rulings`: the same over the columns the tables had before the `branches` and
  `rulings` tables and the `games.ruled_*` columns came: never regenerated (its values are those
  `index` had then), it proves those columns keep their exact values.
Each entry is a SHA-256, so a difference names the output that changed, not how.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import duckdb
import msgspec
import pytest

from buraco_events.analytics import ingest
from buraco_events.analytics.ingest import index
from buraco_events.analytics.schema import TABLES
from buraco_events.audit.files import audit_path
from buraco_events.model.rules import PRESETS
from buraco_events.play.sim import simulate

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "digests.json"
LOGS = sorted(
    [*(ROOT / "data" / "samples").glob("*.jsonl"), *(ROOT / "data" / "disputes").glob("*.jsonl"),
     *(ROOT / "tests" / "golden" / "legacy").glob("*.jsonl")]
)


#: the presets the `simulate` and `index` digests were frozen over: a preset added later plays
#: games of its own, which would add files to the folder the `index` digests cover whole (its
#: samples join the `audit` digests instead)
FROZEN_PRESETS = ("stbl", "stcl", "stbl-pl", "aberto", "aberto-sujo", "fechado", "fechado-sujo", "burraco")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _audit_digests() -> dict[str, str]:
    out = {}
    for path in LOGS:
        name = str(path.relative_to(ROOT))
        (result,) = audit_path(path)
        # the report names the path it was given: the repository's own, wherever it is cloned
        report = msgspec.structs.replace(result.report, path=name)
        out[name] = _sha(msgspec.json.encode(report))
    return out


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three games per preset and player count, fixed seeds, greedy against random."""
    folder = tmp_path_factory.mktemp("sim")
    assert set(FROZEN_PRESETS) <= set(PRESETS)
    for variant in FROZEN_PRESETS:
        for players in (2, 4):
            simulate(folder, 3, variant, players, 11, ["greedy", "random"], target=0)
    return folder


def _simulate_digests(folder: Path) -> dict[str, str]:
    return {p.name: _sha(p.read_bytes()) for p in sorted(folder.glob("*.jsonl"))}


#: the tables and their columns (in order, but `source`) before branches and rulings
COLUMNS_BEFORE_RULINGS: dict[str, tuple[str, ...]] = {
    "games": ("game_id", "variant", "players", "n_players", "target", "hands", "totals", "winner",
              "first_team", "events", "complete", "sealed", "head", "audit_ok", "audit_problems"),
    **{t: TABLES[t].names() for t in ("hands", "events", "melds", "team_hands")},
}


def _index_digests(folder: Path, db: Path,
                   tables: dict[str, tuple[str, ...]] | None = None) -> dict[str, str]:
    """Return the digest of each table the index builds from `folder` (of `tables`' columns
    only, when given)."""
    index([folder], db)
    out = {}
    with duckdb.connect(str(db), read_only=True) as con:
        for table in TABLES if tables is None else tables:
            # `source` is the file's path, which names this run's temporary folder
            columns = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall() if r[0] != "source"]
            if tables is not None:
                assert set(tables[table]) <= set(columns)
                columns = list(tables[table])
            order = ", ".join(f'"{c}" NULLS FIRST' for c in columns)
            select = ", ".join(f'"{c}"' for c in columns)
            rows = con.execute(f"SELECT {select} FROM {table} ORDER BY {order}").fetchall()
            out[table] = _sha(json.dumps([columns, rows], default=str).encode())
    return out


def _check(section: str, got: dict[str, str], update: bool = False) -> None:
    """Compare a section's digests with the golden ones (`update`: write them first)."""
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    if update:
        golden[section] = got
        GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    assert section in golden, f"no golden digests for {section}; run pytest with --update-golden"
    want = golden[section]
    changed = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
    assert not changed, f"{section}: outputs differ from the golden digests: {changed[:10]}"


def test_audit_reports_are_unchanged(update_golden: bool) -> None:
    _check("audit", _audit_digests(), update_golden)


@pytest.mark.slow
def test_simulated_logs_are_unchanged(simulated: Path, update_golden: bool) -> None:
    _check("simulate", _simulate_digests(simulated), update_golden)


@pytest.mark.parametrize("native", [False, True], ids=["lists", "native"])
def test_index_tables_are_unchanged(simulated: Path, tmp_path: Path, native: bool,
                                    monkeypatch: pytest.MonkeyPatch, update_golden: bool) -> None:
    # both ways of building the events rows (`ingest._NATIVE_ROWS`), whichever the build
    monkeypatch.setattr(ingest, "_NATIVE_ROWS", native)
    _check("index", _index_digests(simulated, tmp_path / "d.duckdb"), update_golden)


def test_index_columns_from_before_rulings_keep_their_values(simulated: Path, tmp_path: Path) -> None:
    # frozen once, never by --update-golden: the `index` digests as they were before the branches
    # and rulings tables and the games.ruled_* columns existed
    golden = json.loads(GOLDEN.read_text())["index_before_rulings"]
    got = _index_digests(simulated, tmp_path / "d.duckdb", COLUMNS_BEFORE_RULINGS)
    assert got == golden


def test_an_update_variable_left_in_the_shell_updates_nothing(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    """Only `--update-golden` rewrites a golden file: with UPDATE_GOLDEN (or any variable) set, a
    changed output still fails and the golden file is left as it was."""
    golden = tmp_path / "digests.json"
    golden.write_text(json.dumps({"audit": {"a.jsonl": "0" * 64}}))
    before = golden.read_bytes()
    monkeypatch.setattr(sys.modules[__name__], "GOLDEN", golden)
    monkeypatch.setenv("UPDATE_GOLDEN", "1")
    with pytest.raises(AssertionError, match="outputs differ from the golden digests"):
        _check("audit", {"a.jsonl": "1" * 64})
    assert golden.read_bytes() == before
    _check("audit", {"a.jsonl": "1" * 64}, update=True)  # the explicit way
    assert json.loads(golden.read_text())["audit"] == {"a.jsonl": "1" * 64}
