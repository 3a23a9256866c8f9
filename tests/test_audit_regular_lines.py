"""The audit's fast loop gives the very report of the general path, on every kind of log.

`_Auditor.take_regular` takes runs of regular play lines (chain continued, engine check passed) in
few steps (`auditcore.Regular.run`, compiled in the compiled build) and leaves every other line to
the general path (`_Auditor.feed`). Here the general path alone (`take_regular` made to take no
line, for the test) and the mixed one audit the same logs: the disputes of
data/disputes, the samples, and tampered copies with the irregularity in the middle of the log
(a line dropped, repeated, swapped, edited, unsealed, garbled, an illegal move, a line after the
end). Reports, findings and counts must be equal.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buraco_events.audit import auditor as audit_mod
from buraco_events.audit.auditor import audit_lines
from buraco_events.audit.report import Audit

ROOT = Path(__file__).resolve().parents[1]
DISPUTES = sorted((ROOT / "data" / "disputes").glob("*.jsonl"))
SAMPLES = sorted((ROOT / "data" / "samples").glob("*.jsonl"))[:6]


def lines_of(path: Path) -> list[bytes]:
    """Return a log file's lines without their newlines."""
    return path.read_bytes().split(b"\n")[:-1]


def summary(result: Audit) -> bytes:
    """Return everything an audit says, as bytes: report, finding, seats, counts."""
    finding = result.finding
    found = None if finding is None else (
        msgspec.json.encode(finding.problem), finding.line, finding.seat,
        None if finding.event is None else msgspec.json.encode(finding.event),
        finding.state.next_seq, finding.state.phase, sorted(Counter(finding.state.hands[0]).elements())
        if finding.state.hands else None,
    )
    return msgspec.json.encode(result.report) + repr(
        (found, result.n_players, sorted(result.kind_counts.items()), result.not_a_log)
    ).encode()


def _take_none(self: audit_mod._Auditor, lines: Iterator[bytes]) -> tuple[int, bytes | None]:
    """`take_regular` taking no line: the reader reads each one and `feed` audits it."""
    return 0, next(lines, None)


def general_audit(lines: list[bytes], monkeypatch: pytest.MonkeyPatch) -> Audit:
    """Audit with the general path for every line."""
    with monkeypatch.context() as m:
        m.setattr(audit_mod._Auditor, "take_regular", _take_none)
        return audit_lines(lines, "log")


def assert_same(lines: list[bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    """Assert the fast and the general path give the same audit of `lines`."""
    assert summary(audit_lines(lines, "log")) == summary(general_audit(lines, monkeypatch))


@pytest.mark.parametrize("path", DISPUTES + SAMPLES, ids=lambda p: p.name)
def test_fast_loop_equals_general_path_on_disputes_and_samples(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_same(lines_of(path), monkeypatch)


def test_fast_loop_really_takes_the_regular_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    # on a clean log most lines go the fast way: count the lines left to the general path
    lines = lines_of(ROOT / "data" / "disputes" / "clean.jsonl")
    general: list[int] = []
    feed = audit_mod._Auditor.feed

    def counting(self: audit_mod._Auditor, line: bytes, decoded: object) -> None:
        general.append(self.n_lines)
        feed(self, line, decoded)  # type: ignore[arg-type]

    monkeypatch.setattr(audit_mod._Auditor, "feed", counting)
    assert audit_lines(lines, "log").report.ok
    assert 0 < len(general) < len(lines) // 3


def _edit_card(line: bytes, rng: random.Random) -> bytes:
    """Return the line with one card changed (a cheat), or the line if it names no card."""
    for a, b in ((b'"AS"', b'"KS"'), (b'"5H"', b'"6H"'), (b'"JK"', b'"2C"'), (b'"QD"', b'"QC"')):
        if a in line:
            return line.replace(a, b, 1)
    return line


def _unseal(line: bytes) -> bytes:
    """Return the line without its `prev` seal, or the line if it is no JSON object (a line an
    earlier tampering already blanked or garbled)."""
    try:
        fields = msgspec.json.decode(line)
    except msgspec.DecodeError:
        return line
    if not isinstance(fields, dict):
        return line
    return msgspec.json.encode({k: v for k, v in fields.items() if k != "prev"})


#: tamperings of the line at index i (never the first): each returns the new list of lines
TAMPER: dict[str, Callable[[list[bytes], int, random.Random], list[bytes]]] = {
    "drop": lambda ls, i, r: ls[:i] + ls[i + 1:],
    "repeat": lambda ls, i, r: ls[:i + 1] + ls[i:],
    "swap": lambda ls, i, r: ls[:i] + [ls[i + 1], ls[i]] + ls[i + 2:] if i + 1 < len(ls) else ls,
    "edit": lambda ls, i, r: ls[:i] + [_edit_card(ls[i], r)] + ls[i + 1:],
    "unseal": lambda ls, i, r: ls[:i] + [_unseal(ls[i])] + ls[i + 1:],
    "garble": lambda ls, i, r: ls[:i] + [ls[i][: len(ls[i]) // 2]] + ls[i + 1:],
    "blank": lambda ls, i, r: ls[:i] + [b"  "] + ls[i + 1:],
    "after_end": lambda ls, i, r: ls + [ls[i]],
    "cut": lambda ls, i, r: ls[:i],
}


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(sorted(TAMPER)))
def test_fast_loop_equals_general_path_on_tampered_logs(seed: int, kind: str) -> None:
    rng = random.Random(seed)
    lines = lines_of(rng.choice(SAMPLES + DISPUTES))
    i = rng.randrange(1, len(lines))
    tampered = TAMPER[kind](lines, i, rng)
    if rng.random() < 0.3:  # a second irregularity further on
        j = rng.randrange(1, len(tampered))
        tampered = TAMPER[rng.choice(sorted(TAMPER))](tampered, j, rng)
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert_same(tampered, monkeypatch)


@pytest.mark.parametrize("first", ["blank", "garble"])
def test_unsealing_a_line_already_spoilt_keeps_it(first: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # a second tampering may unseal the very line the first one blanked or garbled (seed
    # 14722128 once drew that): the line stays as it was and both paths still agree
    lines = lines_of(DISPUTES[0])
    spoilt = TAMPER[first](lines, 3, random.Random(0))
    twice = TAMPER["unseal"](spoilt, 3, random.Random(0))
    assert twice == spoilt
    assert_same(twice, monkeypatch)
