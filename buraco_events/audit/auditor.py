"""The auditor: a referee's check of one game log for format, integrity, deal, legality and score.

The checking is pure: `audit_lines` folds the raw lines of one log (bytes, without their `\\n`)
into an `Audit` (`report`), so a file, an archive member or a test's list of lines is audited the
same way. Files are `files.audit_path`'s, which reads them through `sources.iter_logs`.

What is checked, line by line (docs/log-format.md is the contract, docs/rules.md the game):
- format: each line decodes as an event (`lines.decode_line`); one problem per bad line.
- integrity: `seq` is 0, 1, 2... without gaps; `prev` is the SHA-256 of the previous line's exact
  bytes (64 zeros on line 0); the head (SHA-256 of the last line) equals the expected one if given;
  a log is sealed on every line or on none; nothing follows `game_ended` (one problem per line
  after it). A log without any `prev` is *unsealed*: reported (kind `unsealed`, seq 0) but not a
  failure.
- deal: the engine's check of `hand_started` (the variant's deck, 11 cards per seat, two deads of
  11, the stock size of RULES 1, the upcard, the hand number and first seat); the `commitment`
  against the salt revealed by that hand's `hand_ended`, and a commitment never revealed (its
  `hand_ended` has no salt, or the next deal or the end of the game comes first), both reported
  at the `hand_started` seq.
- legality: every event goes through `engine.check` then `engine.apply`; the first illegal event
  (or undecodable line, or bad deal) stops the replay.
- score: each `hand_ended.scores` claim and the `game_ended` totals and winner against the engine's
  recount (`engine.hand_scores`, kept in `GameState.hand_results`).
- unfinished: a log is *complete* when its last line is `game_ended` (the log format); one that stops
  earlier gets a problem of kind `unfinished` at its last seq, so it never passes as a whole game,
  unless the audit is `partial` (a game in progress: then it passes as far as it goes, and the
  report says `complete: false`).
- branch: a log holding a `branched` line is audited as any log (the engine checks the line where
  it stands) and its report names the fork (`branch`). Given its parent log (`ParentLog`), the
  lines before its last `branched` line are compared with the parent's byte for byte, and its
  `branched.parent` with the parent's game; a parent with a `branched` line at the same fork (the
  branch itself, or a sibling) proves nothing; a log without a `branched` line must be the parent
  or its first lines. Each failure is a problem of kind `branch` at the first line that differs.

Seqs in problems: a line's own `seq` when it decodes, else the seq the line should have had.
File-level problems use the seq of the line they concern: `unsealed` seq 0, a head mismatch, a
missing final newline or `unfinished` the last line's seq, an empty log seq 0.

Work is proportional to the input and memory bounded: a report keeps the first `PROBLEMS_KEPT`
problems in seq order (and always the first of each kind), and counts them all in
`problems_total`; a file whose first line is not an event stops at that line (`Audit.not_a_log`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import partial as partial_fn

import msgspec

from buraco_events.core.engine import apply, check
from buraco_events.core.gate import IllegalMove
from buraco_events.core.sheets import hand_scores
from buraco_events.core.state import GameState
from buraco_events.log.chain import Chain
from buraco_events.log.commit import Broken, Commitments
from buraco_events.log.lines import MAX_LINE, LogError, NotALogError, RawLines, TornTailError
from buraco_events.log.reader import EventReader
from buraco_events.model.events import (
    AnyEvent,
    Branched,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    decode_canonical,
    event_type,
)
from buraco_events.util.text import hand_words

from .auditcore import Regular
from .report import (
    PROBLEMS_KEPT,
    Audit,
    AuditReport,
    BranchInfo,
    Finding,
    HandReport,
    KeptProblems,
    Problem,
    team_line,
)
from .verdicts import FAILING, ProblemKind
from .verdicts import OTHER_HEAD as _OTHER_HEAD
from .verdicts import PLAY_KINDS as _PLAY_KINDS


@dataclass(frozen=True, slots=True)
class ParentLog:
    """A parent log a branch's prefix is proved against (`--parent`): its name as given, its game
    id and its whole lines as stored (bytes without `\\n`)."""

    name: str
    game_id: str
    lines: list[bytes]


def split_lines(data: bytes, name: str = "<log>") -> RawLines:
    """Split a file's bytes into whole lines (without `\\n`) and a torn last line (`tail`)."""
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the data ends with a newline
    return RawLines(name, lines, tail)


def _seq_words(got: int, want: int) -> str:
    if got > want:
        missing = f"seq {want}" if got == want + 1 else f"seqs {want}..{got - 1}"
        return f"seq {got} where {want} was expected: {missing} missing"
    return f"seq {got} where {want} was expected: a line repeated or out of order"


def _excerpt(line: bytes, at: int) -> str:
    """Return a few bytes of a line around byte `at`, quoted (as text: a message may show it)."""
    start = max(at - 12, 0)
    piece = line[start:at + 24].decode("utf-8", errors="replace")
    return ("…" if start else "") + repr(piece) + ("…" if at + 24 < len(line) else "")


def _diff_words(claimed: Iterable[int], recount: Iterable[int]) -> str:
    return ", ".join(f"team {t} {c - r:+d}" for t, (c, r) in enumerate(zip(claimed, recount, strict=False)) if c != r)


class _Auditor:
    """The fold of `audit_lines`: one instance per log, fed line by line."""

    def __init__(self, path: str, expect_head: str | None, partial: bool = False,
                 parent: ParentLog | None = None):
        self.path = path
        self.expect_head = expect_head
        self.partial = partial
        self.parent = parent
        # the place of the first whole line that is not the parent's line at the same place (or
        # that the parent does not have), as `audit_lines` compares them; None: none yet
        self.differs: int | None = None
        self.compared_line: bytes | None = None  # the line at `differs`
        self.branched: tuple[Branched, int] | None = None  # the last branched line, its place
        self.problems = KeptProblems()
        self.fresh: list[Problem] = []  # the problems the current line added
        self.state = GameState()
        self.live = True  # the replay goes on until the first illegal event
        self.finding: Finding | None = None
        self.game_id: str | None = None
        self.last_seq = -1
        self.last_line: bytes | None = None
        # the chain check every reader shares (seq, prev, nothing after game_ended); the audit
        # words what it finds and judges sealing over the whole log (see `finish`)
        self.chain = Chain(path)
        self.n_lines = 0
        self.n_decoded = 0
        # the regular lines' step (compiled), which also counts the lines with and without prev
        self.regular = Regular(self.state, decode_canonical, MAX_LINE, PROBLEMS_KEPT)
        self.complete = False  # the last line read is game_ended
        self.not_a_log: str | None = None
        self.commitments = Commitments()  # the deals whose commitments await their salt
        self.open_claim: HandEnded | None = None  # the claim of the hand the replay stopped in
        self.hands: list[HandReport] = []
        # the first line the chain proves edited (its seq) and the integrity problem proving it
        self.edit: tuple[int, Problem] | None = None
        # the place of the line being audited in the file (0 for the first line: its seq, while
        # no line is missing): an edit is placed by it, whatever seq an edited line claims
        self.here = -1
        # the place of the line each legality, deal or score problem rests on (a deal problem is
        # reported at its hand_started, found at its hand_ended or what came instead), by the
        # problem's identity (the problem is kept with it, so its id stays its own)
        self.rests_on: dict[int, tuple[Problem, int]] = {}

    @property
    def ended(self) -> int | None:
        """Return the seq of the first game_ended read (None before it)."""
        return self.chain.ended

    def add(self, seq: int, kind: ProblemKind, message: str) -> Problem:
        problem = Problem(seq, kind, message)
        self.problems.add(problem)
        self.fresh.append(problem)
        if kind in _PLAY_KINDS:
            self.rests_on[id(problem)] = (problem, self.here)
        return problem

    def add_edit(self, edited: int, seq: int, message: str) -> None:
        """Report a broken link at `seq` that proves the line at place `edited` (its seq in the
        unbroken part of the chain) is not as sealed, or that a line after it is missing; the
        earliest such line is the audit's headline."""
        problem = self.add(seq, "integrity", message)
        if self.edit is None or edited < self.edit[0]:
            self.edit = (edited, problem)

    def note_finding(self, seq: int, line: bytes, ev: AnyEvent | None,
                     before: GameState | None) -> None:
        """Keep the first failing problem this line added, with the table just before it."""
        if self.finding is not None or not self.live and before is None:
            return
        for p in self.fresh:
            if p.kind in FAILING and p.seq == seq:
                state = before if before is not None else self.state.copy()
                seat = getattr(ev, "player", None)
                if seat is None or seat >= state.n_players:
                    # no such seat in this game (a forged event): show the seat to play
                    seat = state.to_play if state.n_players else None
                self.finding = Finding(p, line, ev, state, seat)
                return

    def take_regular(self, lines: Iterator[bytes]) -> tuple[int, bytes | None]:
        """Audit the regular lines that come next (`auditcore.Regular`) in few steps; return how
        many were taken and the first line that is not one (None at the end), which the reader
        reads and `feed` audits (the reader's `FastRun`).

        What `feed` does for a regular line comes down to the counts below and the apply; any
        other line goes the general way, which finds and words whatever is irregular about it.
        None is regular unless the replay goes on, a line was read and no game_ended yet.
        """
        last, next_seq = self.chain.position()
        if not self.live or last is None or self.ended is not None:
            return 0, next(lines, None)
        regular = self.regular
        taken, line = regular.run(lines, last, next_seq)
        if taken:
            self.n_lines += taken
            self.n_decoded += taken
            self.complete = False
            self.last_seq = regular.last_seq
            self.here = self.n_lines - 1
            self.last_line = regular.last_line
            self.chain.take(regular.last_line, regular.last_seq, taken)
        return taken, line

    def feed(self, line: bytes, decoded: AnyEvent | LogError) -> None:
        """Audit one line, whatever it holds: the general path."""
        index = self.n_lines
        self.n_lines += 1
        want_seq = self.last_seq + 1
        self.here = index
        self.fresh = []
        ev: AnyEvent | None = None
        if isinstance(decoded, LogError):
            seq = decoded.seq if decoded.seq is not None and decoded.field != "seq" else want_seq
            if self.finding is None or self.problems.keeps(seq, "format"):
                self.add(seq, "format", f"line {index + 1}: {decoded.message}")
            else:  # a run of bad lines (a hostile file): counted, not built
                self.problems.count("format", 1)
            if isinstance(decoded, NotALogError):
                self.not_a_log = str(decoded)
        else:
            ev = decoded
            seq = ev.seq
            self.n_decoded += 1
            if isinstance(ev, Branched):
                self.branched = (ev, index)
            self._check_chain(ev, index)
        self.complete = isinstance(ev, GameEnded)
        self.last_seq = seq
        self.last_line = line
        after_end = self.ended is not None
        self.chain.skip(line, ev, seq)  # taken in as stored: the next line links to it
        if after_end:
            # the log format: nothing may follow game_ended; the game is over, so nothing is replayed
            self.add(seq, "integrity", f"{'an event' if ev is None else event_type(ev)} after"
                     f" game_ended (seq {self.ended}): nothing may follow game_ended (was the log"
                     " extended after the game?)")
        before: GameState | None = None
        if self.live:
            self.note_finding(seq, line, ev, None)  # format or chain: the table before it
            if ev is None:
                self.live = False  # a missing event leaves nothing sound to replay
            elif not after_end:
                before = self._replay(ev, line)
        if ev is not None and not after_end:
            self._note_claims(ev)
        self.note_finding(seq, line, ev, before)

    def _check_chain(self, ev: AnyEvent, index: int) -> None:
        link = self.chain.link(ev)
        if link.seq is not None:  # lines missing, repeated or moved: an edit from this line on
            self.add_edit(index, ev.seq, _seq_words(ev.seq, link.seq))
        self.regular.count_prev(ev.seq, ev.prev)
        if ev.prev is not None:
            if link.prev is not None:
                if index == 0:
                    self.add_edit(0, ev.seq, "prev of line 1 must be 64 zeros")
                else:
                    self.add_edit(index - 1, ev.seq,
                                  f"prev does not match the SHA-256 of line {index} (seq"
                                  f" {self.last_seq}): that line was changed, or a line is missing")
        if index == 0 and isinstance(ev, GameStarted):
            self.game_id = ev.game_id

    def _replay(self, ev: AnyEvent, line: bytes) -> GameState | None:
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
            self.note_finding(self.last_seq, line, ev, None)
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
            self.add(seq, "score", f"{hand_words(ev.hand)}: claimed {list(ev.scores)}, recount {recount}"
                     f" ({_diff_words(ev.scores, recount)})")

    def _judge_game(self, ev: GameEnded, seq: int) -> None:
        state = self.state
        if list(ev.totals) != state.totals:
            self.add(seq, "score", f"game totals: claimed {list(ev.totals)}, recount {state.totals}"
                     f" ({_diff_words(ev.totals, state.totals)})")
        if ev.winner != state.winner:
            self.add(seq, "score", f"winner: claimed {_winner_words(ev.winner)}, recount {_winner_words(state.winner)}")

    def _note_claims(self, ev: AnyEvent) -> None:
        """Check a commitment once its hand ends (`commit.Commitments`); keep the claim of the hand
        the replay stopped in."""
        if isinstance(ev, HandStarted):
            self._commitment(self.commitments.deal(ev))
        elif isinstance(ev, HandEnded):
            if not self.live and ev.hand == self.state.hand_no and self.open_claim is None:
                self.open_claim = ev
            self._commitment(self.commitments.ended(ev))

    def _commitment(self, broken: Broken | None) -> None:
        """Report a deal whose commitment fails, in words."""
        if broken is None:
            return
        hand, at = broken.deal.hand, broken.at
        if broken.why == "mismatch":
            words = (f"{hand_words(hand)}: the deal does not match its commitment with the salt of seq"
                     f" {at}: the cards were changed after the commitment")
        elif broken.why == "no_salt":
            words = (f"{hand_words(hand)}: the deal's commitment is never revealed: hand_ended (seq {at})"
                     " has no salt, so the deal cannot be checked")
        else:
            came = (f"the next deal (seq {at}) came first" if broken.why == "next_deal"
                    else "the game ended")
            words = (f"{hand_words(hand)}: the deal's commitment is never revealed: {came} without its"
                     " hand_ended and salt")
        self.add(broken.deal.seq, "deal", words)

    def finish(self, torn: TornTailError | None) -> Audit:
        last = max(self.last_seq, 0)
        head = self.chain.head
        complete = self.complete and torn is None
        if not self.n_lines:
            self.add(0, "format", "empty log: no events")
            self.not_a_log = f"{self.path}: empty file: not a log (a log holds at least its game_started line)"
        elif torn is not None:
            self.add(last, "format", f"line {torn.lineno}: {torn.message}")
        counted = self.regular
        sealed = counted.with_prev > 0
        if sealed:
            for seq in counted.without_prev:
                self.add_edit(seq, seq, "prev missing, but other lines have one: a log is sealed"
                              " on every line or on none (this line's seal was removed)")
            self.problems.count("integrity", counted.n_without_prev - len(counted.without_prev))
        elif self.n_decoded:
            self.add(0, "unsealed", "no line has a prev: the log is unsealed, so changes to it"
                     " cannot be detected (it is still replayed and checked)")
        other_head: Problem | None = None
        if self.expect_head is not None and head != self.expect_head:
            other_head = self.add(last, "integrity", f"{_OTHER_HEAD}{head} differs from the expected"
                                  f" {self.expect_head}: the log was changed, truncated or extended")
        if complete:
            self._commitment(self.commitments.game_ended(last))
        elif self.n_lines and self.ended is None and self.not_a_log is None and not self.partial:
            self.add(last, "unfinished", f"the log ends at seq {last} without game_ended: an"
                     " unfinished game (cut short, or still being played: audit a game in"
                     " progress with --partial)")
        hands = list(self.hands)
        state = self.state
        if state.phase in ("draw", "play", "dead", "hand_end") and len(state.hand_results) == state.hand_no:
            claim = self.open_claim
            sheet = hand_scores(state)
            hands.append(HandReport(
                hand=state.hand_no, reason=None, closed_by=state.closed_by,
                scores=[s.total for s in sheet],
                claimed=list(claim.scores) if claim is not None else None,
                detail=[team_line(s) for s in sheet],
            ))
        proof = self._prove_prefix() if self.n_lines and self.not_a_log is None else None
        counts = self.problems.counts
        changed = self.edit[0] if self.edit is not None else None
        attributed = partial_fn(self._attributed, changed=changed, other_head=other_head, proof=proof)
        problems = [attributed(p) for p in self.problems.kept()]
        failing = [p for p in problems if p.kind in FAILING]
        first = self.edit[1] if self.edit is not None else other_head
        if proof is not None and (self.edit is None or proof.seq < self.edit[0]):
            first = proof  # the parent shows this line is not the game's before the chain does
        if first is None and failing:
            first = failing[0]
        finding = self.finding
        if finding is not None:
            finding = replace(finding, problem=attributed(finding.problem),
                              rests_on=self._place(finding.problem))
        fork = self.branched[0] if self.branched is not None else None
        branch = None if fork is None else BranchInfo(
            seq=fork.seq, parent=fork.parent, fork_seq=fork.fork_seq, deck=fork.deck, seat=fork.seat,
            seed=fork.seed, by=fork.by, reason=fork.reason)
        report = AuditReport(
            path=self.path, game_id=self.game_id,
            ok=not any(counts[k] for k in FAILING), first=first, changed=changed,
            complete=complete, sealed=sealed, head=head,
            events=self.n_lines, hands=hands, problems=problems,
            problems_total=self.problems.total, branch=branch,
            parent=self.parent.name if self.parent is not None else None,
        )
        return Audit(report, finding, state.n_players, dict(counts), self.not_a_log, fork)

    def _prove_prefix(self) -> Problem | None:
        """Compare the log with its parent (`parent`), as the contract's "Branches" proves a
        branch: add a problem of kind `branch` where it fails, and return the one about the
        first line that is not the parent's (None when there is none).

        A branch's lines before its (last) `branched` line must be the parent's byte for byte,
        and its `branched.parent` the parent's game. A log without a `branched` line must be
        the parent itself or a part of it from its start: where it parts from the parent, no
        line says it is a branch.
        """
        parent = self.parent
        if parent is None:
            return None
        differs = self.differs
        parent_end = len(parent.lines) - 1
        if self.branched is not None:
            fork, place = self.branched
            if fork.parent != parent.game_id:
                self.add(fork.seq, "branch", f"branched names game {fork.parent!r} as its parent, but"
                         f" the parent log {parent.name} is game {parent.game_id!r}")
            if differs is None or differs >= place:  # the parent's own line at the fork: not a branched one
                forked = False
                with suppress(Exception):  # a log is untrusted input: a line that does not decode (or none) is no fork
                    forked = isinstance(decode_canonical(parent.lines[place]), Branched)
                return self.add(fork.seq, "branch", f"the parent log {parent.name} has a branched line at"
                                f" this fork too (seq {fork.seq}): it is this branch or another branch of the"
                                " same fork, not the log it forks from") if forked else None
            if differs > parent_end:
                why = (f"the parent has no line {differs} (it ends at seq {parent_end}), and"
                       f" the branched line (seq {fork.seq}) says lines 0..{place - 1} are the parent's")
            else:
                why = (f"line {differs} differs from the parent's ({self._difference(differs)}):"
                       f" a branch's lines 0..{place - 1}, up to its fork, are the parent's byte for byte")
            return self.add(differs, "branch", why)
        if differs is None:
            return None  # the parent itself, or its first lines
        if differs > parent_end:
            why = (f"seq {differs} goes on past the parent's last line (seq {parent_end}) and no"
                   " branched line says this is a branch")
        else:
            why = (f"seq {differs} differs from the parent's ({self._difference(differs)}) and no"
                   " branched line says this is a branch")
        return self.add(differs, "branch", why)

    def _difference(self, place: int) -> str:
        """Return where this log's line at `place` first differs from the parent's, in words."""
        assert self.parent is not None
        mine = self.compared_line or b""
        theirs = self.parent.lines[place]
        at = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                  min(len(mine), len(theirs)))
        return (f"from byte {at}: {_excerpt(mine, at)} where the parent has"
                f" {_excerpt(theirs, at)}")

    def _place(self, problem: Problem) -> int:
        """Return the place of the line a legality, deal or score problem rests on (`rests_on`);
        any other problem's own seq."""
        found = self.rests_on.get(id(problem))
        return found[1] if found is not None and found[0] is problem else problem.seq

    def _attributed(self, problem: Problem, changed: int | None,
                    other_head: Problem | None, proof: Problem | None = None) -> Problem:
        """Return `problem` with its message saying when it follows from an edit the file shows
        (a line the chain proves changed, a head other than the published one, or a line that is
        not the parent's) rather than from play: legality, deal and score findings only, the
        others being the file's own."""
        if problem.kind not in _PLAY_KINDS:
            return problem
        line = self._place(problem)
        if proof is not None and line >= proof.seq and (changed is None or proof.seq < changed):
            why = (f"it comes at or after line {proof.seq}, where this log is not its parent's:"
                   " it may follow from that difference rather than from play")
        elif changed is not None and line >= changed:
            if line == changed:
                why = (f"the line at seq {changed} is the one the chain shows was edited: this"
                       " follows from the edit, not from play")
            else:
                why = (f"it comes after the line at seq {changed}, which the chain shows was"
                       " edited: it may follow from the edit rather than from play")
        elif other_head is not None:
            why = ("the file is not the published log (its head differs): this may follow from"
                   " an edit rather than from play")
        else:
            return problem
        return Problem(problem.seq, problem.kind, f"{problem.message} ({why})")


class _Compared(RawLines):
    """A log's lines as they pass to the reader, each compared with the parent's line at the same
    place: the first that is not the parent's is noted in the auditor (`differs`,
    `compared_line`). The torn tail is the log's own, known once its whole lines are read.

    The iteration refers to this object, never this object to it: no cycle keeps the lines
    alive once the audit is done (a worker audits with the collector paused)."""

    def __init__(self, raw: RawLines, auditor: _Auditor, parent: ParentLog) -> None:
        super().__init__(raw.name)
        self.raw = raw
        self.auditor = auditor
        self.theirs = parent.lines

    def __iter__(self) -> Iterator[bytes]:
        auditor, theirs = self.auditor, self.theirs
        for place, line in enumerate(self.raw):
            if auditor.differs is None and (place >= len(theirs) or line != theirs[place]):
                auditor.differs = place
                auditor.compared_line = line
            yield line
        self.tail = self.raw.tail


def audit_lines(lines: Iterable[bytes], path: str = "", expect_head: str | None = None,
                partial: bool = False, parent: ParentLog | None = None) -> Audit:
    """Audit one log given as its whole lines (bytes without `\\n`).

    A `lines.RawLines` also brings its torn last line (`tail`), audited as a last line that lacks
    its newline. `partial` audits a game in progress: an unfinished log is then no problem (the
    report still says `complete: false`). A first line that is not an event ends the audit
    there: the input is not a log (`Audit.not_a_log`), and its other lines say nothing more.
    With `parent`, the log's whole lines are also compared with the parent's, place by place
    (`_Auditor._prove_prefix` says what must match).
    """
    auditor = _Auditor(path, expect_head, partial, parent)
    torn: TornTailError | None = None
    # the reader, reached through this list rather than a cell of `on_error`'s own: emptied at the
    # end, so no cycle (reader -> on_error -> reader) keeps the log's lines for the collector
    reading: list[EventReader] = []

    def on_error(error: LogError) -> None:
        """Audit a line that does not decode; keep a torn end for `finish` (which words the end)."""
        nonlocal torn
        if isinstance(error, TornTailError):
            torn = error
        elif error.lineno is not None:  # else: no line at all, which `finish` reports
            auditor.feed(reading[0].line, error)

    # the one reader decodes (older schemas upcast) and goes on past bad lines; the chain is the
    # audit's own check, which words each integrity problem and keeps going after it
    # the regular lines in between are the auditor's own (`take_regular`): most of a sound log
    raw = lines if isinstance(lines, RawLines) else RawLines(path, lines)
    if parent is not None:
        raw = _Compared(raw, auditor, parent)
    reader = EventReader(raw, on_error, tail=True, chain=False, name=path or "<log>",
                         fast=auditor.take_regular)
    reading.append(reader)
    feed = auditor.feed
    for _, line, event in reader:
        feed(line, event)
    reading.clear()
    return auditor.finish(torn)


def audit_bytes(data: bytes, path: str = "", expect_head: str | None = None,
                partial: bool = False, parent: ParentLog | None = None) -> Audit:
    """Audit one log given as the bytes of its file."""
    return audit_lines(split_lines(data, path), path, expect_head, partial, parent)


def _winner_words(team: int | None) -> str:
    """Return a game's winner in words: a team, or a tie (RULES 8, `hands_per_game`)."""
    return "a tie" if team is None else f"team {team}"
