"""Rulings (docs/log-format.md, "Rulings"): a referee's decisions beside a game, never in it.

A game's rulings log (`GAME.rulings.jsonl` beside `GAME.jsonl`) is a sealed JSON Lines file of
`ruling` events with its own chain. Each ruling binds the game log as it was when it was made: it
names the game's line `game_seq` by its SHA-256 (`game_head`); if that line no longer hashes so,
the ruling does not apply, and every tool says so.

- `log_facts` replays a game log (or a branch) to the facts rulings need: its line hashes, each
  finished hand's recounted scores, its fork if it is a branch.
- `judge` applies rulings to a game's facts: which apply (and why not), and the standings after
  them (`Standings`), always beside the recounted ones, never instead of them.
- `new_ruling` checks a ruling against the game log and its rulings log before `append_ruling`
  writes it; `rulings_report` is what `audit`, `replay`, `share` and `index` show.

How rulings combine, in the order they were made: a `replay_from` takes the hands from its
branch's fork on from the branch (replacing those hands as they stood, earlier rulings on them
included); `hand_voided` counts its hand 0 for both teams; `score_adjusted` adds its points to its
hand; `game_awarded` names the winner whatever the totals (the last one wins); `warning` changes
nothing; `withdrawn` cancels an earlier ruling. Without an
award, the winner after rulings follows RULES 8 on the adjusted totals, and is None when no team
reaches the target any more or the game is not over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from buraco_events.core.engine import play
from buraco_events.core.gate import IllegalMove, team_of
from buraco_events.core.sheets import match_result
from buraco_events.core.state import GameState
from buraco_events.log.lines import (
    MAX_LINE,
    RULINGS_SUFFIX,
    LogError,
    RawLines,
    TornTailError,
    os_reason,
    raw_lines,
)
from buraco_events.log.reader import EventReader
from buraco_events.log.writer import open_log
from buraco_events.model.events import (
    Branched,
    Ruling,
    event_type,
    line_hash,
)
from buraco_events.util.text import hand_words

#: the kinds that name a hand
_HAND_KINDS = ("score_adjusted", "hand_voided")


def rulings_path(log: str | Path) -> Path:
    """Return the default rulings log of a game log: `GAME.rulings.jsonl` beside `GAME.jsonl`."""
    p = Path(log)
    stem = p.name[:-len(".jsonl")] if p.name.endswith(".jsonl") else p.name
    return p.with_name(stem + RULINGS_SUFFIX)


def is_rulings_log(path: str | Path) -> bool:
    """Return whether a file is a rulings log by its name (folders of game logs skip them)."""
    return Path(path).name.endswith(RULINGS_SUFFIX)


class RulingError(ValueError):
    """A ruling that cannot be made or read, in one line; `exit_code` 1 (a problem in what was
    read) or 2 (unreadable input, a bad option)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


# -- the facts of a log ----------------------------------------------------------------------------


@dataclass
class LogFacts:
    """What rulings need of a game log (or a branch): read as far as it reads and is legal."""

    game_id: str
    hashes: list[str]  # the SHA-256 of each whole line as stored, by position
    lines: list[bytes]  # the whole lines as stored (a branch's prefix is compared with them)
    hands: list[list[int]]  # each finished hand's recounted scores, per team
    target: int
    first_team: int
    complete: bool  # the log ends with game_ended
    winner: int | None  # the recount's winner (RULES 8), None while the match is not over
    fork: Branched | None = None  # the last `branched` line, if this log is a branch
    fork_hand: int = 0  # the first hand the branch plays after its fork
    stopped: str | None = None  # why reading stopped before the end, if it did
    illegal: bool = False  # it stopped at a line that reads but is not legal (else: does not read)
    stop_line: int | None = None  # the line (from 1) reading stopped at, if it did
    hands_per_game: int = 0  # a tournament turn's hands (RULES 8), 0: played to the target
    #: the first line whose `prev` is not the SHA-256 of the line before it (None: the chain holds,
    #: or the log is unsealed and has no chain): a ruling binds the lines up to its `game_seq`
    #: through the chain, so an edit anywhere before it unbinds it
    broken: int | None = None

    @property
    def head(self) -> str | None:
        """Return the SHA-256 of the last whole line."""
        return self.hashes[-1] if self.hashes else None

    @property
    def totals(self) -> list[int]:
        """Return the recounted totals per team."""
        return [sum(h[t] for h in self.hands) for t in range(2)]


def log_facts(lines: Iterable[bytes], name: str = "<log>") -> LogFacts:
    """Return a log's facts: the hash of every whole line as stored (what a ruling binds, legal
    or not), and the recount of a replay through the engine, which stops at the first line that
    does not read, chain or pass (`stopped` says why)."""
    stored = list(lines)
    state = GameState()
    facts = LogFacts("", [line_hash(line) for line in stored], stored, [], 0, 0, False, None)
    facts.broken = _first_unlinked(stored, facts.hashes)
    reader = EventReader(RawLines(name, stored))
    try:
        for _, _, event in reader:
            play(state, event)
            if isinstance(event, Branched):
                facts.fork = event
                facts.fork_hand = state.hand_no if state.phase not in ("deal", "start") else state.hand_no + 1
    except LogError as exc:
        facts.stopped = str(exc)
        facts.stop_line = exc.lineno
    except IllegalMove as exc:
        facts.stop_line = reader.chain.events  # the line just read
        what = "its branched line does not hold: " if isinstance(event, Branched) else ""
        facts.stopped = f"{name}: line {facts.stop_line}: {what}{exc}"
        facts.illegal = True
    facts.game_id = state.game_id
    facts.hands = [[s.total for s in result] for result in state.hand_results]
    facts.target = state.rules.target if state.n_players else 0
    facts.first_team = team_of(state.first_of_game)
    facts.hands_per_game = state.rules.hands_per_game if state.n_players else 0
    facts.complete = state.phase == "over" and facts.stopped is None
    facts.winner = state.winner
    return facts


class _Link(msgspec.Struct):
    """The one field the chain check reads of a line."""

    prev: str | None = None


_link_decoder = msgspec.json.Decoder(_Link)


def _first_unlinked(lines: Sequence[bytes], hashes: Sequence[str]) -> int | None:
    """Return the first line (by position) that does not link to the line before it, or None.
    A line too long to be an event, or whose `prev` cannot be read (whatever the bytes: broken
    JSON, bad UTF-8, a nesting too deep), links to nothing."""
    for i, line in enumerate(lines):
        if len(line) > MAX_LINE:
            return i
        try:
            prev = _link_decoder.decode(line).prev
        except Exception:  # a log is untrusted input: any failure to read prev is a break
            return i
        if i == 0:
            if prev is None:
                return None  # unsealed: no chain to hold
            continue
        if prev != hashes[i - 1]:
            return i
    return None


def facts_problem(facts: LogFacts, name: str = "") -> str | None:
    """Return the first thing that keeps a log from reading as sealed to its end, in one line:
    where its replay stopped or its chain breaks, whichever comes first (None: neither)."""
    if facts.stopped is not None and (facts.broken is None or (facts.stop_line or 0) <= facts.broken + 1):
        return facts.stopped
    return broken_words(facts, name)


def broken_words(facts: LogFacts, name: str = "") -> str | None:
    """Return where a log's chain breaks, in one line (None: it holds, or the log is unsealed)."""
    if facts.broken is None:
        return None
    return (f"{name or 'the log'}: line {facts.broken + 1}: it does not link to the line before it (its "
            "prev is not that line's SHA-256, or it does not read): the log is not as it was sealed")


def read_facts(path: str | Path) -> LogFacts:
    """`log_facts` of a file; raises `RulingError` (2) when it cannot be read."""
    try:
        raw = raw_lines(path)
        lines = list(raw)
    except OSError as exc:
        raise RulingError(f"{path}: cannot read: {os_reason(exc)}", 2) from None
    facts = log_facts(lines, raw.name)
    if not facts.game_id:
        raise RulingError(f"{path}: not a log: {facts.stopped or 'no line reads'}", 2)
    return facts


# -- judging rulings -------------------------------------------------------------------------------


class RulingView(msgspec.Struct, frozen=True):
    """One ruling as judged: the ruling's fields, whether it applies and, if not, why."""

    seq: int
    kind: str
    hand: int | None
    points: list[int] | None
    team: int | None
    branch_head: str | None
    ruling_seq: int | None
    by: str
    reason: str
    applies: bool
    why_not: str | None


class Standings(msgspec.Struct, frozen=True):
    """A game's scores: per hand (per team), the totals and the winner (None: not decided, or a
    tie where `hands_per_game` allows one)."""

    hands: list[list[int]]
    totals: list[int]
    winner: int | None
    awarded: bool = False  # the winner is a `game_awarded` ruling's


class RulingsReport(msgspec.Struct, frozen=True):
    """A game's rulings beside its recount: the exact `rulings` object of the tools' JSON.

    `recount` is the standings the events give; `after` the standings after the rulings that
    apply (equal to `recount` when none does). `problem` says why the rulings log stopped being
    read, if it did: the rulings read before it are judged, and only those the file proves as
    written can apply (`RulingsRead`).
    """

    path: str
    rulings: list[RulingView]
    recount: Standings
    after: Standings
    problem: str | None = None

    @property
    def applied(self) -> int:
        """Return how many rulings apply."""
        return sum(r.applies for r in self.rulings)


def _unbound(ruling: Ruling, game: LogFacts) -> str | None:
    """Return why a ruling does not bind `game` as it is (its game, its line `game_seq` by
    `game_head`, the chain up to that line), or None when it does."""
    if ruling.game_id != game.game_id:
        return f"it names game {ruling.game_id!r}, not this log's game {game.game_id!r}"
    if ruling.game_seq >= len(game.hashes):
        return f"the game log changed: it has no line {ruling.game_seq} any more ({len(game.hashes)} lines)"
    if game.hashes[ruling.game_seq] != ruling.game_head:
        return (f"the game log changed: its line {ruling.game_seq} no longer hashes to the game_head "
                f"{ruling.game_head[:12]}… the ruling binds")
    if game.broken is not None and game.broken <= ruling.game_seq:
        return (f"the game log changed: its line {game.broken} no longer links to the line before it, "
                f"so the lines up to {ruling.game_seq} the ruling binds are not as they were")
    return None


def _why_not(ruling: Ruling, game: LogFacts, earlier: Mapping[int, Ruling],
             branches: Mapping[str, LogFacts]) -> str | None:
    """Return why a ruling that binds `game` does not apply to it (before withdrawals), or None
    when it does."""
    kind = ruling.kind
    if kind in _HAND_KINDS:
        if ruling.hand is None:
            return f"{kind} names no hand"
        if ruling.hand >= len(game.hands):
            return f"{hand_words(ruling.hand)} has not ended in this log ({len(game.hands)} hands ended)"
    if kind == "score_adjusted" and (ruling.points is None or len(ruling.points) != 2):
        return "score_adjusted needs points for both teams"
    if kind == "game_awarded" and ruling.team is None:
        return "game_awarded names no team"
    if kind == "replay_from":
        branch = branches.get(ruling.branch_head or "")
        if branch is None:
            return f"its branch (head {(ruling.branch_head or '?')[:12]}…) is not at hand beside the game log"
        proof = prefix_problem(branch, game)
        if proof is not None:
            return proof
    if kind == "withdrawn":
        target = earlier.get(ruling.ruling_seq if ruling.ruling_seq is not None else -1)
        if target is None:
            return f"no earlier ruling at seq {ruling.ruling_seq} to withdraw"
        if target.kind == "withdrawn":
            return "a withdrawal is not withdrawn (make the ruling again)"
    return None


def prefix_problem(branch: LogFacts, parent: LogFacts) -> str | None:
    """Return why `branch` is not a branch of `parent` (its fork, its game, its prefix byte for
    byte), or None when it is."""
    fork = branch.fork
    if fork is None and branch.stopped is not None:  # a branched line the engine refuses, or worse
        return f"it does not read as a branch: {branch.stopped}"
    if fork is None:
        return "it is not a branch: it has no branched line"
    if branch.game_id != parent.game_id:
        return f"it is a branch of game {branch.game_id!r}, not {parent.game_id!r}"
    n = fork.fork_seq + 1
    if len(parent.lines) < n:
        return f"it forks at seq {fork.fork_seq}, past the game log's {len(parent.lines)} lines"
    for seq in range(n):
        if branch.lines[seq] != parent.lines[seq]:
            return f"its line {seq} differs from the game log's: not the same game up to its fork"
    return None


def judge(rulings: Sequence[Ruling], game: LogFacts,
          branches: Mapping[str, LogFacts] | None = None, path: str = "",
          problem: str | None = None, counted: int | None = None,
          why_uncounted: str | None = None) -> RulingsReport:
    """Judge `rulings` against `game` and return the report: each ruling and the standings.

    Only the first `counted` rulings (all by default) can apply: the rest are not proved as
    written (`RulingsRead`), for `why_uncounted`. A ruling that does not bind the game log as it
    is ends the rulings that count there: neither it nor any after it applies, since every later
    ruling was made on the game log it binds (`new_ruling` adds none while one does not bind)."""
    branches = branches or {}
    earlier: dict[int, Ruling] = {}
    why: dict[int, str | None] = {}
    unbound: Ruling | None = None  # the first ruling that does not bind the game log
    for i, ruling in enumerate(rulings):
        if counted is not None and i >= counted:
            why[ruling.seq] = f"it does not count: {why_uncounted or 'the rulings log does not prove it'}"
        elif (binding := _unbound(ruling, game)) is not None:
            why[ruling.seq] = binding
            unbound = unbound or ruling
        elif unbound is not None:
            why[ruling.seq] = (f"it does not count: ruling {unbound.seq} before it does not bind the game log "
                               "as it is, and no ruling from there on counts")
        else:
            why[ruling.seq] = _why_not(ruling, game, earlier, branches)
        earlier[ruling.seq] = ruling
    for ruling in rulings:  # a withdrawal that applies cancels its ruling
        if ruling.kind == "withdrawn" and why[ruling.seq] is None and ruling.ruling_seq is not None:
            if why.get(ruling.ruling_seq) is None:
                why[ruling.ruling_seq] = f"withdrawn by ruling {ruling.seq}"
    applying = [r for r in rulings if why[r.seq] is None]
    recount = Standings([list(h) for h in game.hands], game.totals, game.winner if game.complete else None)
    hands = [list(h) for h in game.hands]
    decided = game.complete
    for r in applying:  # in the order they were made: a replay replaces what came before it
        if r.kind == "replay_from":
            branch = branches[r.branch_head or ""]
            hands = hands[:branch.fork_hand] + [list(h) for h in branch.hands[branch.fork_hand:]]
            decided = branch.complete
        elif r.hand is not None and r.hand < len(hands):
            if r.kind == "hand_voided":
                hands[r.hand] = [0, 0]
            elif r.kind == "score_adjusted" and r.points is not None:
                hands[r.hand] = [hands[r.hand][t] + r.points[t] for t in range(2)]
    totals = [sum(h[t] for h in hands) for t in range(2)]
    awards = [r.team for r in applying if r.kind == "game_awarded"]
    if awards:
        after = Standings(hands, totals, awards[-1], awarded=True)
    else:
        winner = (match_result(totals, game.target, game.first_team, len(hands), game.hands_per_game)
                  if decided else None)
        after = Standings(hands, totals, winner)
    views = [
        RulingView(r.seq, r.kind, r.hand, None if r.points is None else list(r.points), r.team,
                   r.branch_head, r.ruling_seq, r.by, r.reason, why[r.seq] is None, why[r.seq])
        for r in rulings
    ]
    return RulingsReport(path, views, recount, after, problem)


# -- reading and writing rulings logs --------------------------------------------------------------


@dataclass
class RulingsRead:
    """A rulings log as read: its rulings as far as it reads, why it stopped (None: read whole)
    and how many of them, from the first, count (`counted`).

    A ruling counts only while the file proves it is as it was written: the chain proves a line
    by the next line's `prev`, so a line the reading stops at (changed, out of place, unreadable)
    leaves the line before it unproved, and neither counts. The last whole line stands, as in
    any log (a torn line after it is a write cut short). An unsealed rulings log proves no line:
    none of its rulings count.
    """

    rulings: list[Ruling]
    problem: str | None = None
    counted: int = 0
    why_uncounted: str | None = None  # why the rulings from `counted` on do not count


def read_rulings(path: str | Path) -> RulingsRead:
    """Return the rulings of a rulings log (`RulingsRead`). A missing file holds no rulings.
    Raises `RulingError` (2) for a file that cannot be read at all."""
    p = Path(path)
    try:
        raw = raw_lines(p)
        lines = list(raw)
    except FileNotFoundError:
        return RulingsRead([])
    except OSError as exc:
        raise RulingError(f"{p}: cannot read: {os_reason(exc)}", 2) from None
    rulings: list[Ruling] = []
    try:
        for lineno, _, event in EventReader(RawLines(raw.name, lines, raw.tail)):
            if not isinstance(event, Ruling):
                return _stopped(rulings, lineno, f"{raw.name}: line {lineno}: seq {event.seq}: field type: "
                                f"{event_type(event)} in a rulings log (only ruling events)")
            rulings.append(event)
    except TornTailError as exc:  # the whole lines before it stand
        return RulingsRead(rulings, str(exc), len(rulings))
    except LogError as exc:
        return _stopped(rulings, exc.lineno or len(rulings) + 1, str(exc))
    if rulings and rulings[0].prev is None:
        return RulingsRead(rulings, f"{raw.name}: line 1 (seq 0): field prev: missing: the rulings log is "
                           "not sealed, so no line of it is proved as written and no ruling in it counts",
                           0, "the rulings log is not sealed (no prev): nothing proves this line as written")
    return RulingsRead(rulings, None, len(rulings))


def _stopped(rulings: list[Ruling], lineno: int, problem: str) -> RulingsRead:
    """Return the rulings read before the line the reading stopped at (`lineno`, from 1): the
    line before it is unproved and does not count, nor any after it."""
    counted = max(min(len(rulings), lineno - 2), 0)
    if counted == len(rulings):
        return RulingsRead(rulings, problem, counted)
    words = (f"the rulings log stops at its line {lineno}, so nothing proves its line {counted + 1} "
             "as written (it may have been changed, or a line after it removed)")
    return RulingsRead(rulings, f"{problem}; no ruling from line {counted + 1} on counts", counted, words)


def branches_beside(log: str | Path, heads: Iterable[str]) -> dict[str, LogFacts]:
    """Return the facts of the branch logs beside `log` (same folder) whose heads are `heads`.

    Each candidate is read as every log is (`raw_lines`: lines bounded in length, a torn last
    line apart); only one whose last whole line hashes to a wanted head is kept and replayed."""
    wanted = {h for h in heads if h}
    found: dict[str, LogFacts] = {}
    if not wanted:
        return found
    folder = Path(log).parent
    for candidate in sorted(folder.glob("*.jsonl")):
        if is_rulings_log(candidate) or candidate.resolve() == Path(log).resolve():
            continue
        raw = raw_lines(candidate)
        try:
            last = None
            for line in raw:
                last = line
            if last is None or raw.torn or line_hash(last) not in wanted:
                continue
            facts = log_facts(list(raw), str(candidate))
        except OSError:
            continue
        if facts.head in wanted:
            found[facts.head] = facts
    return found


def rulings_report(log: str | Path, game: LogFacts | None = None,
                   rulings_file: str | Path | None = None) -> RulingsReport | None:
    """Return the report of the rulings log of `log` (default `rulings_path(log)`), or None when
    there is none. Branches named by `replay_from` rulings are looked for beside the log."""
    path = Path(rulings_file) if rulings_file is not None else rulings_path(log)
    if not path.exists():
        return None
    read = read_rulings(path)
    if game is None:
        game = read_facts(log)
    heads = [r.branch_head for r in read.rulings[:read.counted] if r.kind == "replay_from" and r.branch_head]
    return judge(read.rulings, game, branches_beside(log, heads), str(path), read.problem,
                 read.counted, read.why_uncounted)


@dataclass
class RulingRequest:
    """What `buraco rule` asks for (the fields of a `ruling` but the game's binding)."""

    kind: str
    by: str
    reason: str
    hand: int | None = None
    points: list[int] | None = None
    team: int | None = None
    branch: Path | None = None
    ruling_seq: int | None = None


def new_ruling(log: str | Path, request: RulingRequest, rulings_file: str | Path | None = None,
               ) -> tuple[Ruling, Path]:
    """Return the ruling `request` makes on the game log `log` as it is now, and the rulings log
    it goes to. Raises `RulingError` when the request does not fit the game, or when an earlier
    ruling no longer binds the game log (it was changed after that ruling: nothing more is
    added until the referee has looked)."""
    path = Path(rulings_file) if rulings_file is not None else rulings_path(log)
    game = read_facts(log)
    unsound = facts_problem(game, str(log))
    if unsound is not None:
        raise RulingError(f"{unsound}: the game log does not read as sealed to its end, so a ruling cannot bind it")
    read = read_rulings(path)
    rulings = read.rulings
    if read.problem is not None:
        raise RulingError(f"{read.problem}: nothing is added until the rulings log is mended")
    for r in rulings:
        if r.game_id == game.game_id and (r.game_seq >= len(game.hashes) or game.hashes[r.game_seq] != r.game_head):
            raise RulingError(f"{path}: ruling {r.seq} binds the game log's line {r.game_seq} as it was, and that "
                              "line is not so any more: the game log was changed after the ruling; nothing is added")
        if r.game_id != game.game_id:
            raise RulingError(f"{path}: ruling {r.seq} is about game {r.game_id!r}, not {game.game_id!r}: "
                              "is this the rulings log of another game?")
    kind = request.kind
    hand = request.hand
    branch_head = None
    if kind in _HAND_KINDS and hand is None:
        raise RulingError(f"--hand: {kind} names the hand it rules on", 2)
    if hand is not None and hand >= len(game.hands):
        raise RulingError(f"--hand: {hand_words(hand)} has not ended in {log} ({len(game.hands)} hands ended)", 2)
    points = request.points
    if kind == "score_adjusted":
        if points is None or len(points) != 2:
            raise RulingError("--points: score_adjusted gives points for both teams: A,B", 2)
    elif points is not None:
        raise RulingError(f"--points: only score_adjusted gives points, not {kind}", 2)
    if (kind == "game_awarded") != (request.team is not None):
        raise RulingError("--team: game_awarded names the team (0 or 1) it awards, and only it", 2)
    if kind == "replay_from":
        if request.branch is None:
            raise RulingError("--branch: replay_from names the branch log the game continues as", 2)
        branch = read_facts(request.branch)
        if branch.stopped is not None or branch.broken is not None:
            raise RulingError(f"--branch: {request.branch}: the branch does not read to its end: "
                              f"{facts_problem(branch, str(request.branch))}")
        proof = prefix_problem(branch, game)
        if proof is not None:
            raise RulingError(f"--branch: {request.branch}: {proof}")
        branch_head = branch.head
        hand = branch.fork_hand if hand is None else hand
    elif request.branch is not None:
        raise RulingError(f"--branch: only replay_from names a branch, not {kind}", 2)
    if kind == "withdrawn":
        by_seq = {r.seq: r for r in rulings}
        target = by_seq.get(request.ruling_seq if request.ruling_seq is not None else -1)
        if target is None:
            raise RulingError(f"--ruling-seq: {path} has no ruling at seq {request.ruling_seq}", 2)
        if target.kind == "withdrawn":
            raise RulingError(f"--ruling-seq: ruling {target.seq} is a withdrawal; a withdrawal is not withdrawn", 2)
        if any(r.kind == "withdrawn" and r.ruling_seq == target.seq for r in rulings):
            raise RulingError(f"--ruling-seq: ruling {target.seq} is withdrawn already", 2)
    elif request.ruling_seq is not None:
        raise RulingError(f"--ruling-seq: only withdrawn names a ruling, not {kind}", 2)
    last = len(game.hashes) - 1
    ruling = Ruling(
        seq=len(rulings), game_id=game.game_id, game_seq=last, game_head=game.hashes[last], kind=kind,  # type: ignore[arg-type]
        hand=hand, points=None if points is None else tuple(points), team=request.team,
        branch_head=branch_head, ruling_seq=request.ruling_seq, by=request.by, reason=request.reason,
    )
    return ruling, path


def append_ruling(path: Path, ruling: Ruling) -> bytes:
    """Append `ruling` to the rulings log at `path` (created if missing) as its one writer, synced
    at once; return the line written."""
    with open_log(path, fsync="event") as writer:
        return writer.append(ruling, expected_seq=ruling.seq)


__all__ = [
    "RULINGS_SUFFIX", "LogFacts", "RulingError", "RulingRequest", "RulingView", "RulingsRead", "RulingsReport",
    "Standings",
    "append_ruling", "branches_beside", "broken_words", "facts_problem", "is_rulings_log", "judge", "log_facts",
    "new_ruling", "prefix_problem", "read_facts", "read_rulings", "rulings_path", "rulings_report",
]
