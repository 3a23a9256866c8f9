"""The `decisions` table: analyses of a seat (`buraco analyze --json`, the `Analysis` of
`analysis.evaluate`) read, matched to their indexed game and stored, one row per decision.

Its own module because both `buraco index --analysis DIR` (through `ingest`) and `buraco analyze
--db DB` store analyses, and they must store them the same way: the same checks, the same rows.

An analysis file is named `*.analysis.json` by convention (`buraco analyze LOG --as S --json >
GAME.sS.analysis.json`); every `*.json` file under a folder given is read, and one that does not
decode as an analysis is rejected with the field (and the seq, inside a decision) that is wrong.
A file larger than `MAX_ANALYSIS_BYTES` is refused unread.

An analysis is stored only against the game it judges: its game must be indexed (in `games`, so
never a branch), its seat and player those of the game, and at every decision the game's log must
hold an event of that seat in that hand at that seq whose action is the one the analysis says was
chosen. An analysis of a branch (a what-if log, whose lines after its fork are not the game's) or
of another log under the same game id is so rejected: `decisions` holds only the real games'
decisions, as the game tables do. An analysis whose decisions all lie in a branch's prefix shared
with its game judges the game's own decisions, and is stored as such.

Per game and seat, the stored decisions are those of the last analysis stored: the same analysis
again changes nothing (counted unchanged), another one replaces them. A game replaced by
`index --replace` loses its decisions (they judged the old log).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import duckdb
import msgspec
import pyarrow as pa

from buraco_events.analysis.evaluate import Analysis, format_problem

from .database import SCHEMAS, AnalyticsError, check_tables, connect, ensure_schema, one_line
from .schema import TABLES, int_range

#: the name an analysis file is given by convention (any `*.json` file is read)
SUFFIX = ".analysis.json"
#: the largest analysis file read (bytes): an analysis of thousands of decisions at 4096 samples
#: is a few MB; a larger file is not an analysis, and is not read into memory
MAX_ANALYSIS_BYTES = 64 << 20
#: the classes a decision may be marked with (`evaluate.mark_of`); NULL when unmarked
CLASSES: tuple[str, ...] = ("inaccuracy", "mistake", "blunder")

#: why an analysis was not stored (the kinds of `ingest.Rejected` it is reported as)
RejectKind = Literal["unreadable", "format", "range", "unmatched", "conflict"]
#: what storing an analysis did to its game and seat's rows
Outcome = Literal["added", "replaced", "unchanged"]


class AnalysisRejected(AnalyticsError):
    """An analysis not stored: why (one line, without the file's name), its kind, and the seq of
    the decision concerned (when one is)."""

    def __init__(self, reason: str, kind: RejectKind, seq: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind: RejectKind = kind
        self.seq = seq


def analysis_files(path: Path) -> list[Path]:
    """Return the analysis files `path` names: itself (a file), or every `*.json` file under it
    (a folder), in name order; raises `OSError` when it cannot be listed."""
    if not path.is_dir():
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file or folder")
        return [path]
    return sorted(p for p in path.rglob("*.json") if p.is_file())


def read_analysis(path: str | os.PathLike[str]) -> Analysis:
    """Read and check one analysis file; raises `AnalysisRejected` (a file that cannot be read,
    is too large, or does not hold an analysis whose values fit the table)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_ANALYSIS_BYTES + 1)
    except OSError as exc:
        raise AnalysisRejected(f"cannot read it: {exc.strerror or one_line(exc)}",
                               "unreadable") from None
    if len(data) > MAX_ANALYSIS_BYTES:
        raise AnalysisRejected(f"larger than {MAX_ANALYSIS_BYTES >> 20} MiB: not an analysis "
                               "(`buraco analyze --json` writes one)", "range")
    return decode_analysis(data)


def decode_analysis(data: bytes) -> Analysis:
    """Decode an analysis (the JSON of `buraco analyze --json`) and check it; raises
    `AnalysisRejected` naming the field (and the seq of the decision) that is wrong."""
    try:
        analysis = msgspec.json.decode(data, type=Analysis)
    except msgspec.ValidationError as exc:
        text = str(exc)
        message, _, at = text.rpartition(" - at `")
        path = at.rstrip("`") if message else "$"
        seq = _seq_at(data, path)
        where = f"seq {seq}: " if seq is not None else ""
        what = (message or text).replace("`", "")
        raise AnalysisRejected(f"{where}{_field(path)}: {what} (not an analysis of "
                               "`buraco analyze --json`)", "format", seq) from None
    except msgspec.DecodeError as exc:
        raise AnalysisRejected(f"not JSON: {one_line(exc)}", "format") from None
    check_values(analysis)
    return analysis


def _field(path: str) -> str:
    """Return a msgspec path (`$.decisions[3].loss`) as a field's name (`decisions[3].loss`),
    or `the whole file` for the root."""
    name = path.removeprefix("$").removeprefix(".")
    return name or "the whole file"


def _seq_at(data: bytes, path: str) -> int | None:
    """Return the seq of the decision a msgspec path points into (`$.decisions[3]...`), if the
    file tells it."""
    if not path.startswith("$.decisions["):
        return None
    index = path[len("$.decisions["):].split("]", 1)[0]
    try:  # the seqs alone: the other fields skipped, whatever they hold
        seq = msgspec.json.decode(data, type=_Seqs).decisions[int(index)].seq
    except (msgspec.DecodeError, IndexError, ValueError):
        return None
    return seq


class _Seq(msgspec.Struct):
    seq: int


class _Seqs(msgspec.Struct):
    """The seqs of an analysis's decisions, read apart from everything else it holds."""

    decisions: list[_Seq]


def _number(value: int) -> str:
    # a huge int has no short decimal form (and str() refuses past 4300 digits)
    return str(value) if value.bit_length() <= 64 else f"a {value.bit_length()}-bit number"


def _fits(value: int, word: str) -> bool:
    low, high = int_range(word) or (0, 0)
    return low <= value <= high


def check_values(a: Analysis) -> None:
    """Raise `AnalysisRejected` where a value of the analysis cannot be a decision's (a loss
    below 0 or not finite, an unknown class, seqs out of order) or does not fit its column."""
    for name, value, word in (("seat", a.seat, "int8"), ("samples", a.samples, "int32")):
        if not _fits(value, word) or value < (0 if name == "seat" else 1):
            raise AnalysisRejected(f"{name}: {_number(value)} is not a {name} of an analysis",
                                   "range")
    last = -1
    for i, d in enumerate(a.decisions):
        if not _fits(d.seq, "int32") or d.seq < 0:
            raise AnalysisRejected(f"decisions[{i}].seq: {_number(d.seq)} is not a seq",
                                   "range")
        where = f"seq {d.seq}: decisions[{i}]"
        if d.seq <= last:
            raise AnalysisRejected(f"{where}.seq: {d.seq} does not follow seq {last} (decisions "
                                   "are in the order of the log)", "range", d.seq)
        last = d.seq
        if not _fits(d.hand, "int16") or d.hand < 0:
            raise AnalysisRejected(f"{where}.hand: {_number(d.hand)} is not a hand", "range",
                                   d.seq)
        if not (math.isfinite(d.loss) and d.loss >= 0):
            raise AnalysisRejected(f"{where}.loss: {d.loss} is not a loss (a number, at least 0)",
                                   "range", d.seq)
        if d.loss_stderr is not None and not (math.isfinite(d.loss_stderr) and d.loss_stderr >= 0):
            raise AnalysisRejected(f"{where}.loss_stderr: {d.loss_stderr} is not a standard "
                                   "error (a number, at least 0, or null)", "range", d.seq)
        if d.mark is not None and d.mark not in CLASSES:
            raise AnalysisRejected(f"{where}.mark: {d.mark!r} is not null nor one of "
                                   f"{', '.join(CLASSES)}", "format", d.seq)
    problem = format_problem(a)
    if problem is not None:
        name, why = problem
        at = re.match(r"decisions\[(\d+)\]", name)
        seq = a.decisions[int(at.group(1))].seq if at else None
        raise AnalysisRejected(f"{'' if seq is None else f'seq {seq}: '}{name}: {why}", "range", seq)


def _action_words(kind: str, cards: list[str] | None, meld: int | None, dead: int | None) -> str:
    """Return the words of the action an events row records, as an analysis names it
    (`commands.action_words`)."""
    cards_words = " ".join(cards or ())
    if kind == "drew":
        return "draw"
    if kind == "took_pile":
        return "pile"
    if kind == "melded":
        return f"meld {cards_words}"
    if kind == "laid_off":
        return f"add {meld} {cards_words}"
    if kind == "discarded":
        return f"discard {cards_words}"
    if kind == "took_dead":
        return f"dead {dead}"
    return kind


def match(con: duckdb.DuckDBPyConnection, a: Analysis) -> None:
    """Raise `AnalysisRejected` (kind `unmatched`) unless the analysis judges the indexed game of
    its game id: its seat and player, and at every decision its chosen action (see the module)."""
    game = con.execute("SELECT players FROM games WHERE game_id = ?", [a.game_id]).fetchone()
    if game is None:
        branched = con.execute("SELECT count(*) FROM branches WHERE game_id = ?",
                               [a.game_id]).fetchone()
        why = (" (only branches of it are: an analysis of a branch is not stored)"
               if branched and branched[0] else "")
        raise AnalysisRejected(f"game {a.game_id} is not indexed{why}; index its log first",
                               "unmatched")
    players: list[str] = game[0]
    if a.seat >= len(players):
        raise AnalysisRejected(f"seat: game {a.game_id} has {len(players)} seats (0 to "
                               f"{len(players) - 1}), not seat {a.seat}", "unmatched")
    if players[a.seat] != a.player:
        raise AnalysisRejected(f"player: seat {a.seat} of game {a.game_id} is {players[a.seat]!r}"
                               f", not {a.player!r}", "unmatched")
    rows = con.execute(
        "SELECT seq, hand, type, cards, meld, dead FROM events WHERE game_id = ? AND player = ?",
        [a.game_id, a.seat]).fetchall()
    actions = {seq: (hand, _action_words(kind, cards, meld, dead))
               for seq, hand, kind, cards, meld, dead in rows}
    for d in a.decisions:
        at = actions.get(d.seq)
        other = "a branch, or another log under the same game id"
        if at is None:
            raise AnalysisRejected(
                f"seq {d.seq}: chosen: the indexed game {a.game_id} has no action of seat "
                f"{a.seat} at seq {d.seq} (an analysis of {other})", "unmatched", d.seq)
        hand, words = at
        if words != d.chosen or hand != d.hand:
            raise AnalysisRejected(
                f"seq {d.seq}: chosen: {d.chosen!r} in hand {d.hand}, the indexed game "
                f"{a.game_id} has {words!r} in hand {hand} there (an analysis of {other})",
                "unmatched", d.seq)


#: the columns of `decisions`, in order
_COLUMNS = TABLES["decisions"].names()


def decision_rows(a: Analysis) -> list[tuple[Any, ...]]:
    """Return the analysis's rows of `decisions`, in column order and seq order."""
    return [(a.game_id, d.seq, a.seat, a.player, d.hand, d.phase, d.chosen, d.best, d.loss,
             d.loss_stderr, d.mark, a.samples if d.samples is None else d.samples, a.seed, d.low, d.high)
            for d in a.decisions]


def store(con: duckdb.DuckDBPyConnection, a: Analysis) -> Outcome:
    """Store a matched analysis's rows in place of its game and seat's (in the caller's
    transaction); return whether they were added, replaced others or were there already."""
    rows = decision_rows(a)
    cols = ", ".join(f'"{c}"' for c in _COLUMNS)
    stored = con.execute(f"SELECT {cols} FROM decisions WHERE game_id = ? AND seat = ? "
                         "ORDER BY seq", [a.game_id, a.seat]).fetchall()
    if stored == rows:
        return "unchanged"
    con.execute("DELETE FROM decisions WHERE game_id = ? AND seat = ?", [a.game_id, a.seat])
    if rows:
        table = pa.Table.from_pylist([dict(zip(_COLUMNS, r, strict=True)) for r in rows],
                                     schema=SCHEMAS["decisions"])
        con.from_arrow(table).insert_into("decisions")
    return "replaced" if stored else "added"


@dataclass
class AnalysesReport:
    """What storing analyses did: analyses added, replaced or unchanged (per game and seat),
    and the decisions stored."""

    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    decisions: int = 0
    #: each rejected file: (source, reason, kind, seq)
    rejected: list[tuple[str, str, RejectKind, int | None]] = field(default_factory=list)


class AnalysisStore:
    """Analyses stored in one transaction: each file read, checked, matched and stored; two
    different analyses of one game and seat in one run are a conflict (the later is rejected)."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.report = AnalysesReport()
        self.this_run: dict[tuple[str, int], tuple[str, list[tuple[Any, ...]]]] = {}

    def offer(self, source: str, a: Analysis) -> Outcome | None:
        """Store one analysis read from `source` (None, and a reject in the report, when not)."""
        try:
            match(self.con, a)
            key = (a.game_id, a.seat)
            earlier = self.this_run.get(key)
            if earlier is not None:
                if earlier[1] == decision_rows(a):
                    self.report.unchanged += 1
                    return "unchanged"
                raise AnalysisRejected(
                    f"game {a.game_id} seat {a.seat}: another analysis of it in this run "
                    f"({earlier[0]}) differs; one analysis per game and seat", "conflict")
            outcome = store(self.con, a)
        except AnalysisRejected as exc:
            self.report.rejected.append((source, exc.reason, exc.kind, exc.seq))
            return None
        self.this_run[key] = (source, decision_rows(a))
        if outcome == "unchanged":
            self.report.unchanged += 1
        else:
            self.report.decisions += len(a.decisions)
            if outcome == "added":
                self.report.added += 1
            else:
                self.report.replaced += 1
        return outcome

    def read(self, paths: Iterable[str | os.PathLike[str]]) -> None:
        """Read, check and store every analysis file `paths` name (files, or folders of them)."""
        for source, analysis in _analyses(paths, self.report):
            self.offer(source, analysis)


def _analyses(paths: Iterable[str | os.PathLike[str]], report: AnalysesReport
              ) -> Iterator[tuple[str, Analysis]]:
    """Yield (source, analysis) of every analysis file `paths` name; a path or a file that
    cannot be read or decoded is a reject in `report`."""
    for given in paths:
        try:
            files = analysis_files(Path(given))
        except OSError as exc:
            report.rejected.append((os.fspath(given), f"cannot list it: "
                                    f"{exc.strerror or one_line(exc)}", "unreadable", None))
            continue
        for path in files:
            try:
                yield str(path), read_analysis(path)
            except AnalysisRejected as exc:
                report.rejected.append((str(path), exc.reason, exc.kind, exc.seq))


def check_index(db: str | os.PathLike[str]) -> None:
    """Raise `DatabaseUnavailable` unless `db` is an existing index (before an analysis is run
    to be stored there)."""
    con = connect(db, read_only=True)
    try:
        check_tables(con, Path(db))
    finally:
        con.close()


def store_analysis(db: str | os.PathLike[str], a: Analysis) -> Outcome:
    """Store one analysis in the existing index `db` in a transaction of its own (`buraco analyze
    --db`); raises `AnalysisRejected` when it does not match its game, `DatabaseUnavailable`
    when `db` is not an index that can be opened."""
    check_values(a)
    con = connect(db)
    try:
        check_tables(con, Path(db))
        con.begin()
        try:
            ensure_schema(con)  # an index made before `decisions` existed gains it
            match(con, a)
            outcome = store(con, a)
            con.commit()
        except duckdb.Error as exc:
            con.rollback()
            raise AnalyticsError(f"{db}: {one_line(exc)} (nothing was stored)") from None
        except BaseException:
            con.rollback()
            raise
    finally:
        con.close()
    return outcome
