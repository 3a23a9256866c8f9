"""The analytics tables: every column of the index's tables declared once.

Each table is a line on what it holds and its columns in order, each a name and a type word
(`TYPES`); the rest follows from these: the column names `rows` fills (`rows.COLUMNS`), the Arrow
schemas and DuckDB types `database` stores the rows with, the range a value must be in to be
stored (`ingest`'s misfit check), and the widths of the machine ints `rows.EventBuffers` holds
(checked against the declared types when `rows` is imported).

Pure data: no pyarrow, no duckdb (the compiled `rows` imports it). This is not the events' JSON
Schema (`buraco schema`), which follows from the event types.
"""

from __future__ import annotations

from typing import Final, NamedTuple


class Table(NamedTuple):
    """One table: a line on what it holds (`buraco sql --help`, the table's COMMENT) and its
    columns in order, each (name, type word)."""

    about: str
    columns: tuple[tuple[str, str], ...]

    def names(self) -> tuple[str, ...]:
        """Return the column names in order."""
        return tuple(name for name, _ in self.columns)

    def type_of(self, column: str) -> str:
        """Return a column's type word (KeyError for a column the table does not have)."""
        for name, word in self.columns:
            if name == column:
                return word
        raise KeyError(column)


#: the type words and the DuckDB type each stands for; `word[]` is a list of `word`
TYPES: Final[dict[str, str]] = {
    "text": "VARCHAR", "bool": "BOOLEAN", "int8": "TINYINT", "int16": "SMALLINT",
    "int32": "INTEGER", "float64": "DOUBLE", "text[]": "VARCHAR[]", "int32[]": "INTEGER[]",
}
#: the bits of each integer type word (signed: an int of `bits` bits)
INT_BITS: Final[dict[str, int]] = {"int8": 8, "int16": 16, "int32": 32}

#: every table of the index, in table order
TABLES: Final[dict[str, Table]] = {
    "games": Table(
        "one row per game, never a branch: variant, players, target, hands, totals, winner, head,"
        " audit_ok, audit_problems; ruled_totals, ruled_winner, rulings: after its rulings", (
            ("game_id", "text"), ("variant", "text"), ("players", "text[]"),
            ("n_players", "int8"), ("target", "int32"), ("hands", "int16"),
            ("totals", "int32[]"), ("winner", "int8"), ("first_team", "int8"),
            ("events", "int32"), ("complete", "bool"), ("sealed", "bool"), ("head", "text"),
            ("source", "text"), ("audit_ok", "bool"), ("audit_problems", "text[]"),
            ("ruled_totals", "int32[]"), ("ruled_winner", "int8"), ("rulings", "int16"),
        )),
    "hands": Table(
        "one row per hand: first seat, end reason, turns, scores recounted and claimed", (
            ("game_id", "text"), ("hand", "int16"), ("first", "int8"), ("reason", "text"),
            ("closed_by", "int8"), ("turns", "int16"), ("events", "int32"),
            ("scores", "int32[]"), ("claimed_scores", "int32[]"), ("claims_match", "bool"),
        )),
    "events": Table(
        "one row per event: seq, hand, turn, type, player, cards, meld, dead, note", (
            ("game_id", "text"), ("seq", "int32"), ("hand", "int16"), ("turn", "int16"),
            ("type", "text"), ("player", "int8"), ("team", "int8"), ("cards", "text[]"),
            ("card", "text"), ("meld", "int16"), ("dead", "int8"), ("n_cards", "int16"),
            ("at", "text"), ("note", "text"),
        )),
    "melds": Table(
        "one row per meld at its hand's end: team, cards, canasta kind, laid by", (
            ("game_id", "text"), ("hand", "int16"), ("meld", "int16"), ("team", "int8"),
            ("type", "text"), ("n_cards", "int16"), ("cards", "text[]"), ("kind", "text"),
            ("clean", "bool"), ("has_joker", "bool"), ("laid_by", "int8"),
            ("laid_seq", "int32"), ("canasta_seq", "int32"),
        )),
    "team_hands": Table(
        "one row per team and hand: the RULES 7 score sheet (meld points to total)", (
            ("game_id", "text"), ("hand", "int16"), ("team", "int8"), ("meld_points", "int32"),
            ("canasta_bonus", "int32"), ("close_bonus", "int32"), ("hand_penalty", "int32"),
            ("dead_penalty", "int32"), ("took_dead", "bool"), ("dead_direct", "bool"),
            ("dead_unused", "bool"), ("canastas", "int16"), ("total", "int32"),
        )),
    "branches": Table(
        "one row per branch (a what-if log, in no game table), by head: its fork, its recount,"
        " its audit verdict", (
            ("game_id", "text"), ("head", "text"), ("file", "text"), ("parent", "text"),
            ("fork_seq", "int32"), ("deck", "text"), ("seat", "int8"), ("seed", "text"),
            ("branched_by", "text"), ("reason", "text"), ("variant", "text"),
            ("n_players", "int8"), ("events", "int32"), ("hands", "int16"),
            ("totals", "int32[]"), ("winner", "int8"), ("complete", "bool"), ("sealed", "bool"),
            ("audit_ok", "bool"), ("audit_problems", "text[]"),
        )),
    "rulings": Table(
        "one row per ruling of a game's rulings log (file), judged: applies, or why_not", (
            ("game_id", "text"), ("file", "text"), ("seq", "int32"), ("kind", "text"),
            ("hand", "int16"), ("points", "int32[]"), ("team", "int8"), ("branch_head", "text"),
            ("ruling_seq", "int32"), ("ruled_by", "text"), ("reason", "text"),
            ("applies", "bool"), ("why_not", "text"),
        )),
    "decisions": Table(
        "one row per decision of an analysed seat (`buraco analyze`, read by `index --analysis`):"
        " chosen, best, loss in points and its 95% interval, class, deals played", (
            ("game_id", "text"), ("seq", "int32"), ("seat", "int8"), ("player", "text"),
            ("hand", "int16"), ("phase", "text"), ("chosen", "text"), ("best", "text"),
            ("loss", "float64"), ("loss_stderr", "float64"), ("class", "text"),
            ("samples", "int32"), ("seed", "text"), ("loss_low", "float64"), ("loss_high", "float64"),
        )),
}


#: the tournaments' tables (`buraco index` reads the tournament logs it finds beside the games):
#: apart from `TABLES`, whose rows come from game logs
TOURNAMENT_TABLES: Final[dict[str, Table]] = {
    "tournaments": Table(
        "one row per tournament log (file): its form, movement, rounds, head, and its audit:"
        " audit_ok and the findings (results and standings recomputed from the game logs)", (
            ("tournament_id", "text"), ("name", "text"), ("form", "text"), ("variant", "text"),
            ("movement", "text"), ("deals", "text"), ("rounds", "int16"),
            ("rounds_closed", "int16"), ("entries", "int16"), ("ended", "bool"),
            ("director", "text"), ("file", "text"), ("head", "text"), ("audit_ok", "bool"),
            ("findings", "text[]"),
        )),
    "tournament_entries": Table(
        "one row per entry of a tournament: players, place, victory points (adjustments"
        " included), the sum of differences, recomputed", (
            ("tournament_id", "text"), ("entry", "int16"), ("name", "text"),
            ("players", "text[]"), ("withdrawn", "bool"), ("place", "int16"), ("vp", "int32"),
            ("diff", "int32"), ("adjusted", "int32"),
        )),
    "tournament_results": Table(
        "one row per entry and table of a tournament round: the opponent, the game (a row of"
        " games), status (counted, disputed, pending), totals and vp recomputed, own first", (
            ("tournament_id", "text"), ("round", "int16"), ("table_no", "int16"),
            ("entry", "int16"), ("opponent", "int16"), ("team", "int8"), ("game_id", "text"),
            ("status", "text"), ("points", "int32"), ("opponent_points", "int32"),
            ("vp", "int32"), ("head", "text"), ("reason", "text"),
        )),
}


def is_list_type(word: str) -> bool:
    """Return whether a type word is a list type (`word[]`)."""
    return word.endswith("[]")


def element(word: str) -> str:
    """Return a list type word's element type word (a scalar type word itself)."""
    return word[:-2] if is_list_type(word) else word


def int_range(word: str) -> tuple[int, int] | None:
    """Return (low, high) of the values an integer type word holds (of its elements, for a list
    of integers), or None for a type that holds no integers."""
    bits = INT_BITS.get(element(word))
    if bits is None:
        return None
    half = 1 << (bits - 1)
    return -half, half - 1
