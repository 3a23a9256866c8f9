"""The published JSON Schema matches the event types; older logs are upcast on read."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from helpers import make_game
from typer.testing import CliRunner

from buraco_events.log.reader import check_log
from buraco_events.log.sources import read_log
from buraco_events.log.upcast import upcast
from buraco_events.model.events import (
    SCHEMA_VERSION,
    ZERO_HASH,
    Event,
    EventFormatError,
    HandStarted,
    StockRefilled,
    TookDead,
    decode_event,
    event_schema,
    line_hash,
)
from cli.main import app
from cli.schema_cmd import schema_text

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "schemas" / "events.schema.json"
runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})


def test_checked_in_schema_matches_the_event_types() -> None:
    assert json.loads(SCHEMA_FILE.read_text(encoding="utf-8")) == event_schema(), (
        "schemas/events.schema.json is stale: run `buraco schema`"
    )
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text()


def test_schema_names_every_event_type() -> None:
    tags = {d["properties"]["type"]["enum"][0] for d in event_schema()["$defs"].values()
            if "type" in d.get("properties", {})}
    assert {"game_started", "hand_started", "drew", "took_pile", "melded", "laid_off",
            "discarded", "took_dead", "stock_refilled", "hand_ended", "game_ended",
            "note"} <= tags


def test_schema_command_writes_then_checks(tmp_path: Path) -> None:
    target = tmp_path / "s" / "events.schema.json"
    result = runner.invoke(app, ["schema", "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8") == schema_text()
    result = runner.invoke(app, ["schema", "--check", "-o", str(target)])
    assert (result.exit_code, result.stdout.strip()) == (0, f"{target} is up to date")


def test_schema_check_fails_on_drift(tmp_path: Path) -> None:
    target = tmp_path / "events.schema.json"
    target.write_text(schema_text().replace('"seq"', '"sequence"'), encoding="utf-8")
    result = runner.invoke(app, ["schema", "--check", "-o", str(target)])
    assert result.exit_code == 1
    assert "is out of date with the event types; run `buraco schema" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    missing = runner.invoke(app, ["schema", "--check", "-o", str(tmp_path / "none.json")])
    assert missing.exit_code == 1 and "cannot read: no such file or folder" in missing.stderr


def test_schema_prints_unless_a_file_is_named(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["schema"])
    assert (result.exit_code, result.stdout) == (0, schema_text())
    assert list(tmp_path.iterdir()) == []  # nothing written into the working folder


def test_schema_check_defaults_to_the_repository_file(monkeypatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)  # its schema file is current
    result = runner.invoke(app, ["schema", "--check"])
    assert (result.exit_code, result.stdout.strip()) == (0, "schemas/events.schema.json is up to date")


# -- upcasting -----------------------------------------------------------------------------------

V1_TO_V0 = {"deads": "mortos", "dead": "morto"}  # the renames of schema 0 (see upcast)


def v0_log(tmp_path: Path) -> tuple[Path, list[Event]]:
    """Write a sealed log as the v0 prototype did (`mortos`, `morto`); return it and v1's events."""
    events = make_game(1, turns=6)
    events[0] = msgspec.structs.replace(events[0], schema_version=0)
    deal = next(e for e in events if isinstance(e, HandStarted))
    events[-1:-1] = [TookDead(seq=0, player=2, dead=1, cards=deal.deads[1]),
                     StockRefilled(seq=0, dead=0)]
    lines, prev = [], ZERO_HASH
    for seq, event in enumerate(events):
        raw = msgspec.to_builtins(event)
        raw = {V1_TO_V0.get(k, k): v for k, v in raw.items()}
        raw.update(seq=seq, prev=prev)
        lines.append(msgspec.json.encode(raw))
        prev = line_hash(lines[-1])
    path = tmp_path / "v0.jsonl"
    path.write_bytes(b"".join(x + b"\n" for x in lines))
    return path, [msgspec.structs.replace(e, seq=i) for i, e in enumerate(events)]


def test_a_v0_log_reads_as_the_current_schema(tmp_path: Path) -> None:
    path, expected = v0_log(tmp_path)
    assert b'"mortos":' in path.read_bytes() and b'"deads":' not in path.read_bytes()
    read = [msgspec.structs.replace(e, prev=None) for _, _, e in read_log(path)]
    assert read[0] == msgspec.structs.replace(expected[0], schema_version=SCHEMA_VERSION)
    assert read[1:] == expected[1:]
    status = check_log(path)  # the chain is over the stored v0 bytes
    assert status.sealed and status.events == len(expected)


def test_without_upcasting_a_v0_line_is_refused(tmp_path: Path) -> None:
    path, _ = v0_log(tmp_path)
    deal_line = path.read_bytes().splitlines()[1]
    with pytest.raises(EventFormatError, match="field deads: missing"):
        decode_event(deal_line)


def test_upcast_steps() -> None:
    raw = {"type": "took_dead", "seq": 5, "player": 1, "morto": 0, "cards": []}
    assert upcast(raw, 0) == {"type": "took_dead", "seq": 5, "player": 1, "dead": 0, "cards": []}
    assert upcast({"type": "game_started", "schema_version": 0}, 0)["schema_version"] == 1
    assert upcast(raw, SCHEMA_VERSION) is raw
    assert upcast(raw, SCHEMA_VERSION + 1) is raw  # newer: read as is, unknown fields ignored
    with pytest.raises(EventFormatError, match="unknown version -1"):
        upcast(raw, -1)
