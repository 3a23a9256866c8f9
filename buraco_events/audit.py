"""Audit: a referee's check of game logs for format, integrity, deal, legality and score.

The checking is pure: `audit_lines` folds the raw lines of one log (bytes, without their `\\n`)
into an `Audit`, so a file, an archive member or a test's list of lines is audited the same way.
Only `audit_path` touches files, through `log.iter_logs` (this is a shell module).

What is checked, line by line (EVENTS.md is the contract, RULES.md the game):
- format: each line decodes as an event (`events.decode_event`); one problem per bad line.
- integrity: `seq` is 0, 1, 2... without gaps; `prev` is the SHA-256 of the previous line's exact
  bytes (64 zeros on line 0); the head (SHA-256 of the last line) equals the expected one if given.
  A log without any `prev` is *unsealed*: reported (kind `unsealed`, seq 0) but not a failure.
- deal: the engine's check of `hand_started` (the variant's deck, 11 cards per seat, two deads of
  11, the stock size of RULES 1, the upcard, the hand number and first seat); the `commitment`
  against the salt revealed by that hand's `hand_ended` (reported at the `hand_started` seq).
- legality: every event goes through `engine.check` then `engine.apply`; the first illegal event
  (or undecodable line, or bad deal) stops the replay.
- score: each `hand_ended.scores` claim and the `game_ended` totals and winner against the engine's
  recount (`engine.hand_scores`, kept in `GameState.hand_results`).

Seqs in problems: a line's own `seq` when it decodes, else the seq the line should have had.
File-level problems use the seq of the line they concern: `unsealed` seq 0, a head mismatch or a
missing final newline the last line's seq, an empty log seq 0.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import msgspec

from .archive import ArchiveError
from .engine import GameState, IllegalMove, apply, check, hand_scores
from .events import ZERO_HASH, AnyEvent, GameEnded, GameStarted, HandEnded, HandStarted
from .log import LogError, RawLines, decode_lines, iter_logs
from .scoring import TeamScore

ProblemKind = Literal["format", "integrity", "deal", "illegal", "score", "unsealed"]
#: kinds that make a log fail (an unsealed log can still pass)
FAILING: frozenset[str] = frozenset({"format", "integrity", "deal", "illegal", "score"})


class Problem(msgspec.Struct, frozen=True):
    """One finding: where (seq), what kind, and a one-line message."""

    seq: int
    kind: ProblemKind
    message: str


class TeamLine(msgspec.Struct, frozen=True):
    """One team's RULES 7 score sheet for a hand, as recomputed from the events."""

    team: int
    meld_points: int
    canasta_bonus: int
    close_bonus: int
    hand_penalty: int
    dead_penalty: int
    total: int


class HandReport(msgspec.Struct, frozen=True):
    """A hand's recount (`reason` None while unfinished) beside the claim of its `hand_ended`."""

    hand: int
    reason: str | None
    closed_by: int | None
    scores: list[int]
    claimed: list[int] | None
    detail: list[TeamLine]


class AuditReport(msgspec.Struct, frozen=True):
    """The verdict on one log: the exact `--json` shape of `buraco audit`."""

    path: str
    game_id: str | None
    ok: bool
    sealed: bool
    head: str | None
    events: int
    hands: list[HandReport]
    problems: list[Problem]


@dataclass(frozen=True, slots=True)
class Finding:
    """The first failing problem met while the replay was still going, with the table before it."""

    problem: Problem
    line: bytes
    event: AnyEvent | None
    state: GameState  # the state just before the line (independent copy)
    seat: int | None  # the acting seat: the event's player, else the seat to play


@dataclass(frozen=True, slots=True)
class Audit:
    """An audit's report plus what a human report needs to show the first finding."""

    report: AuditReport
    finding: Finding | None
    n_players: int


class AuditInputError(ValueError):
    """A path that cannot be read as game logs (missing, unreadable, no log inside).

    For a damaged archive, `unread` counts its logs that could not be read and `damage` says
    where it is damaged, so a tally accounts for every log it holds.
    """

    def __init__(self, message: str, unread: int = 0, damage: str | None = None) -> None:
        super().__init__(message)
        self.unread = unread
        self.damage = damage


# -- pure checks ------------------------------------------------------------------------------


def split_lines(data: bytes, name: str = "<log>") -> RawLines:
    """Split a file's bytes into whole lines (without `\\n`) and a torn last line (`tail`)."""
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the data ends with a newline
    return RawLines(name, lines, tail)


def iter_decoded(lines: Iterable[bytes]) -> Iterator[tuple[bytes, AnyEvent | LogError]]:
    """Yield every line with its event, or the error naming what is wrong, going on past bad lines.

    Decoding is `log.decode_lines` (older schemas upcast by what line 1 declares); after a bad
    line it restarts on the remaining lines behind line 1 again, whose decoding is skipped.
    """
    rest = iter(lines)
    current = [b""]

    def tap() -> Iterator[bytes]:
        for line in rest:
            current[0] = line
            yield line

    first: list[bytes] = []  # line 1 once decoded (it fixes the schema) is fed to every restart
    while True:
        skip = bool(first)
        try:
            for lineno, line, event in decode_lines(itertools.chain(first, tap())):
                if skip:
                    skip = False
                    continue
                if lineno == 1:
                    first.append(line)
                yield line, event
            return
        except LogError as exc:
            yield current[0], exc
        except OSError:
            raise  # the source failed, not the line: the caller reports an unreadable path
        except Exception as exc:  # a log is untrusted input: no traceback, whatever the bytes
            yield current[0], LogError("<log>", None, None, None, f"not an event: {exc!r}")


def deck_text(ev: HandStarted) -> str:
    """Return the deal's cards joined by `,` in the commitment order of EVENTS.md."""
    cards = [c for h in ev.hands for c in h]
    for d in ev.deads:
        cards.extend(d)
    cards.extend(ev.stock)
    cards.extend(ev.discard)
    return ",".join(cards)


def deal_commitment(salt: str, ev: HandStarted) -> str:
    """Return the commitment a deal should carry: hex SHA-256 of `salt + "|" + deck`."""
    return hashlib.sha256(f"{salt}|{deck_text(ev)}".encode()).hexdigest()


def team_line(score: TeamScore) -> TeamLine:
    """Return the RULES 7 items of a team's score sheet."""
    return TeamLine(
        team=score.team, meld_points=score.meld_points, canasta_bonus=score.canasta_bonus,
        close_bonus=score.close_bonus, hand_penalty=score.hand_penalty,
        dead_penalty=score.dead_penalty, total=score.total,
    )


def _seq_words(got: int, want: int) -> str:
    if got > want:
        missing = f"seq {want}" if got == want + 1 else f"seqs {want}..{got - 1}"
        return f"seq {got} where {want} was expected: {missing} missing"
    return f"seq {got} where {want} was expected: a line repeated or out of order"


def _diff_words(claimed: Iterable[int], recount: Iterable[int]) -> str:
    parts = [
        f"team {t} {c - r:+d}"
        for t, (c, r) in enumerate(zip(claimed, recount, strict=False)) if c != r
    ]
    return ", ".join(parts)


class _Auditor:
    """The fold of `audit_lines`: one instance per log, fed line by line."""

    def __init__(self, path: str, expect_head: str | None):
        self.path = path
        self.expect_head = expect_head
        self.problems: list[Problem] = []
        self.state = GameState()
        self.live = True  # the replay goes on until the first illegal event
        self.finding: Finding | None = None
        self.game_id: str | None = None
        self.last_seq = -1
        self.prev_hash = ZERO_HASH
        self.n_lines = 0
        self.n_decoded = 0
        self.with_prev = 0
        self.without_prev: list[int] = []
        self.deals: dict[int, HandStarted] = {}
        self.claims: dict[int, HandEnded] = {}
        self.hands: list[HandReport] = []

    def add(self, seq: int, kind: ProblemKind, message: str) -> None:
        self.problems.append(Problem(seq, kind, message))

    def note_finding(self, seq: int, line: bytes, ev: AnyEvent | None, before: GameState | None,
                     start: int) -> None:
        """Keep the first failing problem this line added, with the table just before it."""
        if self.finding is not None or not self.live and before is None:
            return
        for p in self.problems[start:]:
            if p.kind in FAILING and p.seq == seq:
                state = before if before is not None else self.state.copy()
                seat = getattr(ev, "player", None)
                if seat is None and state.n_players:
                    seat = state.to_play
                self.finding = Finding(p, line, ev, state, seat)
                return

    def feed(self, line: bytes, decoded: AnyEvent | LogError) -> None:
        index = self.n_lines
        self.n_lines += 1
        want_seq = self.last_seq + 1
        start = len(self.problems)
        ev: AnyEvent | None = None
        if isinstance(decoded, LogError):
            seq = decoded.seq if decoded.seq is not None and decoded.field != "seq" else want_seq
            self.add(seq, "format", f"line {index + 1}: {decoded.message}")
        else:
            ev = decoded
            seq = ev.seq
            self.n_decoded += 1
            self._check_chain(ev, want_seq, index)
        self.last_seq = seq
        self.prev_hash = hashlib.sha256(line).hexdigest()
        before: GameState | None = None
        if self.live:
            self.note_finding(seq, line, ev, None, start)  # format or chain: the table before it
            if ev is None:
                self.live = False  # a missing event leaves nothing sound to replay
            else:
                before = self._replay(ev, line, start)
        if ev is not None:
            self._note_claims(ev)
        self.note_finding(seq, line, ev, before, start)

    def _check_chain(self, ev: AnyEvent, want_seq: int, index: int) -> None:
        if ev.seq != want_seq:
            self.add(ev.seq, "integrity", _seq_words(ev.seq, want_seq))
        if ev.prev is None:
            self.without_prev.append(ev.seq)
        else:
            self.with_prev += 1
            if ev.prev != self.prev_hash:
                if index == 0:
                    self.add(ev.seq, "integrity", "prev of line 1 must be 64 zeros")
                else:
                    self.add(ev.seq, "integrity",
                             f"prev does not match the SHA-256 of line {index} (seq {self.last_seq}):"
                             " that line was changed, or a line is missing")
        if index == 0 and isinstance(ev, GameStarted):
            self.game_id = ev.game_id

    def _replay(self, ev: AnyEvent, line: bytes, start: int) -> GameState | None:
        """Check and apply one event; return a copy of the state before it if a claim is judged."""
        state = self.state
        if ev.seq != state.next_seq:
            # seq gaps are integrity findings (above): judge the event on its content alone
            ev = msgspec.structs.replace(ev, seq=state.next_seq)
        try:
            check(state, ev)
        except IllegalMove as exc:
            kind: ProblemKind = (
                "deal" if isinstance(ev, HandStarted) and state.phase == "deal" else "illegal"
            )
            self.add(self.last_seq, kind, exc.reason)
            self.note_finding(self.last_seq, line, ev, None, start)
            self.live = False
            return None
        judged = isinstance(ev, HandEnded | GameEnded)
        before = state.copy() if judged and self.finding is None else None
        apply(state, ev)
        if isinstance(ev, HandEnded):
            self._judge_hand(ev, self.last_seq)
        elif isinstance(ev, GameEnded):
            self._judge_game(ev, self.last_seq)
        return before

    def _judge_hand(self, ev: HandEnded, seq: int) -> None:
        state = self.state
        sheet = state.hand_results[-1]
        recount = [s.total for s in sheet]
        self.hands.append(HandReport(
            hand=state.hand_no, reason=state.end_reason, closed_by=state.closed_by,
            scores=recount, claimed=list(ev.scores), detail=[team_line(s) for s in sheet],
        ))
        if list(ev.scores) != recount:
            self.add(seq, "score", f"hand {ev.hand}: claimed {list(ev.scores)}, recount {recount}"
                     f" ({_diff_words(ev.scores, recount)})")

    def _judge_game(self, ev: GameEnded, seq: int) -> None:
        state = self.state
        if list(ev.totals) != state.totals:
            self.add(seq, "score", f"game totals: claimed {list(ev.totals)}, recount {state.totals}"
                     f" ({_diff_words(ev.totals, state.totals)})")
        if ev.winner != state.winner:
            self.add(seq, "score", f"winner: claimed team {ev.winner}, recount team {state.winner}")

    def _note_claims(self, ev: AnyEvent) -> None:
        """Remember deals and claims; check a commitment once its hand reveals the salt."""
        if isinstance(ev, HandStarted):
            self.deals.setdefault(ev.hand, ev)
        elif isinstance(ev, HandEnded):
            self.claims.setdefault(ev.hand, ev)
            deal = self.deals.get(ev.hand)
            if deal is not None and deal.commitment is not None and ev.salt is not None:
                if deal_commitment(ev.salt, deal) != deal.commitment:
                    self.add(deal.seq, "deal",
                             f"hand {ev.hand}: the deal does not match its commitment with the salt"
                             f" of seq {ev.seq}: the cards were changed after the commitment")

    def finish(self, torn: bool) -> Audit:
        last = max(self.last_seq, 0)
        head = self.prev_hash if self.n_lines else None
        if not self.n_lines:
            self.add(0, "format", "empty log: no events")
        elif torn:
            self.add(last, "format", f"line {self.n_lines}: torn last line (no final newline:"
                     " a write was cut short)")
        sealed = self.with_prev > 0
        if sealed:
            for seq in self.without_prev:
                self.add(seq, "integrity", "prev missing in a sealed log")
        elif self.n_decoded:
            self.add(0, "unsealed", "no line has a prev: the log is unsealed, so changes to it"
                     " cannot be detected (it is still replayed and checked)")
        if self.expect_head is not None and head != self.expect_head:
            self.add(last, "integrity", f"head {head} differs from the expected {self.expect_head}:"
                     " the log was changed, truncated or extended")
        hands = list(self.hands)
        state = self.state
        if state.phase in ("draw", "play", "dead", "hand_end") and len(state.hand_results) == state.hand_no:
            claim = self.claims.get(state.hand_no)
            sheet = hand_scores(state)
            hands.append(HandReport(
                hand=state.hand_no, reason=None, closed_by=state.closed_by,
                scores=[s.total for s in sheet],
                claimed=list(claim.scores) if claim is not None else None,
                detail=[team_line(s) for s in sheet],
            ))
        problems = sorted(self.problems, key=lambda p: p.seq)
        report = AuditReport(
            path=self.path, game_id=self.game_id,
            ok=not any(p.kind in FAILING for p in problems), sealed=sealed, head=head,
            events=self.n_lines, hands=hands, problems=problems,
        )
        return Audit(report, self.finding, state.n_players)


def audit_lines(lines: Iterable[bytes], path: str = "", expect_head: str | None = None) -> Audit:
    """Audit one log given as its whole lines (bytes without `\\n`).

    A `log.RawLines` also brings its torn last line (`tail`), audited as a last line that lacks
    its newline.
    """
    auditor = _Auditor(path, expect_head)
    torn = False

    def with_tail() -> Iterator[bytes]:
        nonlocal torn
        yield from lines
        tail = lines.tail if isinstance(lines, RawLines) else b""
        if tail:
            torn = True
            yield tail

    for line, decoded in iter_decoded(with_tail()):
        auditor.feed(line, decoded)
    return auditor.finish(torn)


def audit_bytes(data: bytes, path: str = "", expect_head: str | None = None) -> Audit:
    """Audit one log given as the bytes of its file."""
    return audit_lines(split_lines(data, path), path, expect_head)


# -- shell: files -----------------------------------------------------------------------------


def audit_path(path: Path, expect_head: str | None = None) -> Iterator[Audit]:
    """Audit every log at a path: a log file, a folder of `*.jsonl` (recursive) or an archive.

    Raises `AuditInputError` when the path is missing, unreadable or holds no log.
    """
    if not path.exists():
        raise AuditInputError(f"{path}: no such file or folder")
    found = False
    try:
        for name, lines in iter_logs(path):
            found = True
            yield audit_lines(lines, name, expect_head)
    except OSError as exc:
        raise AuditInputError(f"{exc.filename or path}: cannot read ({exc.strerror or exc})") from None
    except ArchiveError as exc:
        damage = None
        if exc.member is not None:
            of = f" of {exc.total}" if exc.total is not None else ""
            damage = f"{exc.path} is damaged at member {exc.member}{of}"
        raise AuditInputError(str(exc), exc.unread or 0, damage) from None
    except LogError as exc:
        raise AuditInputError(str(exc)) from None
    if not found:
        raise AuditInputError(f"{path}: no *.jsonl log in this folder")
