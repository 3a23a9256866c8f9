"""The data dictionary: what every table, view and column of an indexed database means.

The tables' names, columns and types are `schema.TABLES`'s and the views' are those DuckDB
reports for `sqlviews.VIEWS`; this module adds what each column means (`MEANINGS`) and a few
questions with their SQL (`EXAMPLES`), and renders them as markdown (`docs/analytics.md`, checked
against this by the tests) or as plain text (`buraco sql --schema [TABLE]`). A team is the seat
number modulo 2: seats 0 and 2 are team 0, seats 1 and 3 team 1.
"""

from __future__ import annotations

from typing import NamedTuple

import duckdb

from .schema import TABLES, TOURNAMENT_TABLES, TYPES

#: what the dictionary says of teams and seats, once for every table
TEAMS = ("Seats are numbered from 0 in playing order; a seat's team is its number modulo 2 "
         "(seats 0 and 2 are team 0, seats 1 and 3 team 1). Per-team lists (`totals`, `scores`) "
         "hold team 0's value first: DuckDB counts list items from 1, so `totals[1]` is team "
         "0's and `totals[2]` team 1's. Hands are numbered from 0, as in the log.")

_GAME = "the game's id, as in its log's `game_started` line"
_HAND = "the hand's number, from 0"

#: every column's meaning, table by table and view by view, in the order they are listed
MEANINGS: dict[str, dict[str, str]] = {
    "games": {
        "game_id": _GAME,
        "variant": "the rules' preset name (`stbl`, `burraco`...), or the name logged for custom rules",
        "players": "the players' names, by seat",
        "n_players": "2 or 4",
        "target": "the points that end the game (0: one hand only)",
        "hands": "hands played to their end",
        "totals": "each team's points over every hand, recounted from the events",
        "winner": "the winning team, null while the game is unfinished or when it ended tied (`hands_per_game`)",
        "first_team": "the team of the seat that played first in the game's first hand",
        "events": "events in the log",
        "complete": "the game reached `game_ended`",
        "sealed": "the log ends with its seal line",
        "head": "the SHA-256 of the log's last line: the game's identity in the index",
        "source": "the file the game was read from",
        "audit_ok": "the audit passes (deal, scores and chain all prove out)",
        "audit_problems": "the audit's problem kinds (`deal`, `score`, `unfinished`, `unsealed`)",
        "ruled_totals": "`totals` after the game's rulings (the same when it has none)",
        "ruled_winner": "`winner` after the game's rulings",
        "rulings": "rulings that apply to the game",
    },
    "hands": {
        "game_id": _GAME,
        "hand": _HAND,
        "first": "the seat that played first in the hand",
        "reason": "how the hand ended: `closed`, `stock_exhausted` or `stalemate`",
        "closed_by": "the seat that closed the hand (null when it did not end by a close)",
        "turns": "turns played in the hand",
        "events": "events from the hand's start to its end",
        "scores": "each team's hand total, recounted from the events",
        "claimed_scores": "each team's hand total as the log's `hand_ended` line claims it",
        "claims_match": "the claimed scores are the recount",
    },
    "events": {
        "game_id": _GAME,
        "seq": "the event's line number in the log, from 0",
        "hand": "the hand the event belongs to (null before the first deal)",
        "turn": "the turn within the hand, from 0 (null outside turns)",
        "type": "the event's type (`drew`, `discarded`, `melded`... as in the log)",
        "player": "the seat that acted (null for the table's own events)",
        "team": "the acting seat's team (player modulo 2)",
        "cards": "the cards the event moved (one card for a draw or discard)",
        "card": "the single card of a draw or discard",
        "meld": "the meld laid or added to, by its number within the hand",
        "dead": "the dead (`morto`) taken, by its number",
        "n_cards": "the number of cards in `cards`",
        "at": "the time the event was recorded (RFC 3339); null when the log has none",
        "note": "a note's text",
    },
    "melds": {
        "game_id": _GAME,
        "hand": _HAND,
        "meld": "the meld's number within the hand",
        "team": "the team that owns the meld",
        "type": "`run` (a sequence in one suit) or `set` (cards of one rank)",
        "n_cards": "cards in the meld at the hand's end",
        "cards": "the meld's cards at the hand's end, in order",
        "kind": ("its canasta kind: `ace_to_ace`, `royal`, `clean` or `dirty`, and where the rules set their"
                 " bonuses the club kinds `super`, `ace_to_ace_dirty`, `royal_dirty`, `super_dirty` and"
                 " `semiclean`; `none` if not a canasta"),
        "clean": "no wild card stands in for another card",
        "has_joker": "a joker is among the cards",
        "laid_by": "the seat that laid it down",
        "laid_seq": "the seq of the event that laid it down",
        "canasta_seq": "the seq of the event that made it a canasta (null if it never was)",
    },
    "team_hands": {
        "game_id": _GAME,
        "hand": _HAND,
        "team": "the team (0: seats 0 and 2; 1: seats 1 and 3)",
        "meld_points": "the card points of the team's melds",
        "canasta_bonus": "the bonuses of its canastas",
        "close_bonus": "the bonus for closing the hand (0 if it did not close)",
        "hand_penalty": "the points of the cards left in its hands (negative)",
        "dead_penalty": "the penalty for a dead never taken (negative, 0 if none)",
        "took_dead": "the team took its dead",
        "dead_direct": "it took the dead directly, by playing its last card without discarding",
        "dead_unused": "it took the dead but never played from it",
        "canastas": "its canastas at the hand's end",
        "total": "its hand total: the line the score sheet sums to",
    },
    "branches": {
        "game_id": "the branch's own game id (its parent's game id)",
        "head": "the SHA-256 of the branch log's last line: its identity",
        "file": "the file the branch was read from",
        "parent": "the game id of the game it branches from",
        "fork_seq": "the parent's seq it forks at",
        "deck": "`parent` (the parent's cards) or `redealt` (the cards the seat could not see, dealt again)",
        "seat": "the seat whose knowledge a redealt deck keeps (null for the parent's deck)",
        "seed": "the seed that deals what the parent never recorded",
        "branched_by": "who made the branch (`branch --by`)",
        "reason": "why the branch was made (`branch --reason`)",
        "variant": "the rules' preset name",
        "n_players": "2 or 4",
        "events": "events in the branch log",
        "hands": "hands played to their end",
        "totals": "each team's points, recounted",
        "winner": "the winning team, null while unfinished or when the game ended tied",
        "complete": "the branch reached `game_ended`",
        "sealed": "the branch log ends with its seal line",
        "audit_ok": "the branch's audit passes",
        "audit_problems": "the audit's problem kinds",
    },
    "rulings": {
        "game_id": _GAME,
        "file": "the rulings log the ruling was read from",
        "seq": "the ruling's line in its rulings log",
        "kind": "`score_adjusted`, `hand_voided`, `game_awarded`, `replay_from` or `withdrawn`",
        "hand": "the hand it concerns (null for rulings on the whole game)",
        "points": "per team, the points it adds (`score_adjusted`)",
        "team": "the team it awards the game to (`game_awarded`)",
        "branch_head": "the head of the branch that replaces the game from its fork (`replay_from`)",
        "ruling_seq": "the seq of the ruling it withdraws (`withdrawn`)",
        "ruled_by": "the referee who made it",
        "reason": "the referee's reason",
        "applies": "the ruling applies to the game as indexed",
        "why_not": "why it does not apply (null when it does)",
    },
    "decisions": {
        "game_id": _GAME,
        "seq": "the seq of the decision's event",
        "seat": "the analysed seat",
        "player": "the name at that seat",
        "hand": _HAND,
        "phase": "the turn's phase when deciding: `draw`, `play` (melds and the discard) or `dead`",
        "chosen": "the move made, in the move list's words",
        "best": "the move the analysis found best",
        "loss": "points the chosen move loses against the best, in the analysis's estimate",
        "loss_low": "the lower end of the loss's 95% interval (the mark is decided on it; null in an analysis without intervals)",
        "loss_high": "the upper end of the loss's 95% interval (null in an analysis without intervals)",
        "loss_stderr": "the standard error of `loss` (null when not estimated)",
        "class": "`inaccuracy`, `mistake`, `blunder`, or null for a sound move",
        "samples": "the deals this decision was played out on (adaptive: more for a close call)",
        "seed": "the analysis's seed",
    },
    "tournaments": {
        "tournament_id": "the tournament's id (its games' ids start with it)",
        "name": "the tournament's name", "form": "`pairs` or `singles`", "variant": "the preset its games play",
        "movement": "`mitchell`, `danish`, `swiss` or `round_robin`", "deals": "`random` or `duplicate`",
        "rounds": "the rounds it plays", "rounds_closed": "the rounds closed so far",
        "entries": "entries entered", "ended": "every round is closed",
        "director": "the director named at `tournament new`", "file": "the tournament log's file",
        "head": "the SHA-256 of the tournament log's last line: its identity",
        "audit_ok": "the log's chain holds and every result and standing recomputes as recorded",
        "findings": "what the audit found to differ (empty when none)",
    },
    "tournament_entries": {
        "tournament_id": "the tournament's id", "entry": "the entry's number",
        "name": "the entry's name", "players": "its players", "withdrawn": "it withdrew",
        "place": "its place in the standings (equal entries share one)",
        "vp": "its victory points, adjustments included", "diff": "the sum of its games' differences",
        "adjusted": "the victory points the director's adjustments added or took",
    },
    "tournament_results": {
        "tournament_id": "the tournament's id", "round": "the round (1 first)", "table_no": "the table",
        "entry": "the entry", "opponent": "the entry it played (null for a bye)",
        "team": "the team the entry sat in (0: seats 0 and 2)", "game_id": "the game (a row of `games`)",
        "status": "`counted`, `disputed` or `pending`", "points": "the entry's team total, recounted",
        "opponent_points": "the opponent's team total, recounted", "vp": "the entry's victory points for the table",
        "head": "the SHA-256 of the game log's last line the result is bound to",
        "reason": "why a result is disputed (null when counted)",
    },
    "counted_games": {"*": "every column of `games`"},
    "canasta_rates": {
        "variant": "the preset", "kind": "the canasta kind",
        "hands": "hands counted", "team_hands": "team hands counted",
        "canastas": "canastas of the kind", "per_hand": "canastas of the kind a hand",
        "per_team_hand": "canastas of the kind a team hand",
        "share_team_hands": "the share of team hands with at least one",
    },
    "penalty_rates": {
        "variant": "the preset", "team_hands": "team hands counted",
        "no_dead_rate": "the share of team hands that never took their dead",
        "dead_unused_rate": "the share that took the dead and never played from it",
        "dead_direct_rate": "the share that took the dead directly",
        "avg_dead_penalty": "the mean dead penalty", "avg_hand_penalty": "the mean hand penalty",
    },
    "closing_rates": {
        "variant": "the preset", "hands": "hands counted",
        "closed_rate": "the share of hands closed", "exhausted_rate": "the share ended by the stock",
        "stalemate_rate": "the share ended in a stalemate",
        "claims_match_rate": "the share whose claimed scores are the recount",
    },
    "hand_lengths": {
        "variant": "the preset", "reason": "how the hands ended", "hands": "hands counted",
        "avg_turns": "mean turns a hand", "median_turns": "median turns", "max_turns": "most turns",
        "avg_events": "mean events a hand", "median_events": "median events",
        "max_events": "most events",
    },
    "win_rates": {
        "variant": "the preset", "n_players": "2 or 4", "games": "finished games counted",
        "first_team_win_rate": "the share won by the team that played first",
        "team0_win_rate": "the share won by team 0", "avg_hands": "mean hands a game",
        "ties": "games ended tied (equal totals after `hands_per_game` hands: no winner)",
        "ruled_games": "finished games counted after rulings",
        "ruled_first_team_win_rate": "`first_team_win_rate` after rulings",
        "ruled_team0_win_rate": "`team0_win_rate` after rulings",
    },
    "player_standings": {
        "player": "a player's name", "games": "finished games played", "wins": "games won",
        "win_rate": "wins / games", "avg_team_total": "the mean final total of the player's team",
        "variants": "the presets played", "ruled_games": "`games` after rulings",
        "ruled_wins": "`wins` after rulings", "ruled_win_rate": "`win_rate` after rulings",
        "ruled_avg_team_total": "`avg_team_total` after rulings",
    },
    "score_quantiles": {
        "variant": "the preset",
        "measure": "`team_hand_total` (one per team and hand) or `game_total` (one per team and game)",
        "n": "values counted", "min": "the smallest", "p10": "the 10th percentile",
        "p25": "the 25th percentile", "p50": "the median", "p75": "the 75th percentile",
        "p90": "the 90th percentile", "max": "the largest", "avg": "the mean",
    },
    "player_accuracy": {
        "player": "a player's name", "analyses": "analysed seats", "decisions": "decisions analysed",
        "mean_loss": "mean points lost a decision", "accuracy": "0-100: 100 is no loss at all",
        "inaccuracies": "decisions marked inaccuracy", "mistakes": "decisions marked mistake",
        "blunders": "decisions marked blunder",
    },
    "mistakes_by_phase": {
        "phase": "what was decided", "decisions": "decisions analysed",
        "marked": "decisions marked", "inaccuracies": "marked inaccuracy",
        "mistakes": "marked mistake", "blunders": "marked blunder",
        "mean_loss": "mean points lost a decision",
    },
}


class Example(NamedTuple):
    """A question an analyst asks first, and the SQL that answers it."""

    question: str
    sql: str


EXAMPLES: tuple[Example, ...] = (
    Example("How often does the team that plays first win, by variant?",
            "SELECT variant, n_players, games, first_team_win_rate FROM win_rates ORDER BY variant"),
    Example("What does a team score in a hand, by variant?",
            "SELECT variant, p10, p50, p90 FROM score_quantiles WHERE measure = 'team_hand_total'"),
    Example("Which seat closes hands most often?",
            "SELECT closed_by AS seat, count(*) AS closes FROM hands WHERE reason = 'closed' "
            "GROUP BY closed_by ORDER BY closes DESC"),
    Example("How many canastas does a team make when it takes its dead directly?",
            "SELECT dead_direct, avg(canastas) AS canastas, avg(total) AS total FROM team_hands "
            "WHERE took_dead GROUP BY dead_direct"),
    Example("Which games fail the audit, and why?",
            "SELECT game_id, source, audit_problems FROM games WHERE NOT audit_ok"),
)


class Column(NamedTuple):
    """One column of a relation: its name, DuckDB type and meaning."""

    name: str
    type: str
    meaning: str


class Relation(NamedTuple):
    """A table or view: its name, kind, one line on it, and its columns."""

    name: str
    kind: str  # "table" or "view"
    about: str
    columns: tuple[Column, ...]


def relations() -> list[Relation]:
    """Return every table, then every view, with its columns (a view's as DuckDB reports them)."""
    from .database import ensure_schema
    from .sqlviews import VIEWS

    out = [Relation(name, "table", t.about, tuple(
        Column(c, TYPES[word], _meaning(name, c)) for c, word in t.columns))
        for name, t in {**TABLES, **TOURNAMENT_TABLES}.items()]
    con = duckdb.connect()
    try:
        ensure_schema(con)
        for name, view in VIEWS.items():
            described = con.execute(f'DESCRIBE "{name}"').fetchall()
            out.append(Relation(name, "view", view.about, tuple(
                Column(str(row[0]), str(row[1]), _meaning(name, str(row[0]))) for row in described)))
    finally:
        con.close()
    return out


def _meaning(relation: str, column: str) -> str:
    said = MEANINGS.get(relation, {})
    return said.get(column) or said.get("*") or ""


def markdown() -> str:
    """Return `docs/analytics.md`: every table and view, every column, the example questions."""
    lines = [
        "# The analytics database: a data dictionary",
        "",
        "`buraco index` stores games in a DuckDB database; `buraco sql` queries it (`buraco sql "
        "--schema` prints this dictionary, `buraco sql --schema TABLE` one table). Every table and "
        "view, every column with its type and meaning, then five questions and their SQL. This page "
        "is generated from the index's one schema (`buraco_events.analytics.dictionary`) and a test "
        "keeps it equal to it.",
        "",
        TEAMS,
        "",
    ]
    rels = relations()
    lines += ["## Tables and views", "", "| name | kind | what it holds |", "|---|---|---|"]
    lines += [f"| [`{r.name}`](#{r.name}) | {r.kind} | {_cell(r.about)} |" for r in rels]
    lines.append("")
    for r in rels:
        lines += [f"## {r.name}", "", f"{r.kind}: {r.about}.", "", "| column | type | meaning |", "|---|---|---|"]
        lines += [f"| `{c.name}` | {c.type} | {_cell(c.meaning)} |" for c in r.columns]
        lines.append("")
    lines += ["## Five first questions", ""]
    for ex in EXAMPLES:
        lines += [f"**{ex.question}**", "", "```sql", ex.sql, "```", ""]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def text(relation: str | None = None, width: int = 80) -> str:
    """Return the dictionary as plain text `width` columns wide (one table or view with
    `relation`); KeyError for a name that is neither."""
    import textwrap

    rels = relations()
    if relation is not None:
        rels = [r for r in rels if r.name == relation]
        if not rels:
            raise KeyError(relation)
    out: list[str] = []
    if relation is None:
        out += textwrap.wrap(TEAMS, width) + [""]
    for r in rels:
        out += textwrap.wrap(f"{r.name} ({r.kind}): {r.about}", width, subsequent_indent="    ")
        name_w = min(max(len(c.name) for c in r.columns), 26)
        type_w = max(len(c.type) for c in r.columns)
        for c in r.columns:
            head = f"  {c.name:<{name_w}}  {c.type:<{type_w}}  "
            if len(head) > width // 2:  # a long name: its meaning on the lines below
                out.append(f"  {c.name} {c.type}")
                out += textwrap.wrap(c.meaning, width, initial_indent=" " * 6, subsequent_indent=" " * 6)
                continue
            out += textwrap.wrap(c.meaning, width, initial_indent=head,
                                 subsequent_indent=" " * len(head)) or [head.rstrip()]
        out.append("")
    if relation is None:
        out.append("Five first questions:")
        for ex in EXAMPLES:
            out += ["", *textwrap.wrap(ex.question, width), *textwrap.wrap(ex.sql, width, initial_indent="  ",
                                                                           subsequent_indent="    ")]
    return "\n".join(out).rstrip() + "\n"


__all__ = ["EXAMPLES", "MEANINGS", "TEAMS", "Column", "Example", "Relation", "markdown", "relations", "text"]
