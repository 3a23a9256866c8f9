"""The analytics views: the SQL every indexed database (and every Parquet export read back) holds
over the index's tables.

Their own module because they change with the questions asked of the games (a new rate, another
quantile), not with how rows are stored or queried; `database.ensure_schema` creates them in a
database, `queries.connect_parquet` over a Parquet folder. SQL here only counts and averages what
the engine computed; it never scores.
"""

from __future__ import annotations

from typing import NamedTuple

from buraco_events.analysis.evaluate import ACCURACY_SCALE
from buraco_events.core.melds import CANASTA_KINDS

from .schema import TABLES, TOURNAMENT_TABLES

QUANTILES: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 0.9)


def _kinds_sql(first: int | None = None) -> str:
    """Return the canasta kinds as a SQL list (the `first` of them: 4, the kinds every variant
    has; the club kinds follow, RULES 3.5)."""
    return "[" + ", ".join(f"'{k}'" for k in CANASTA_KINDS[:first]) + "]"


def _quantile_cols(expr: str) -> str:
    return ", ".join(
        f"quantile_cont({expr}, {q}) AS p{round(q * 100)}" for q in QUANTILES
    )


class SqlView(NamedTuple):
    """An analytics view: one line on what it answers, and its SQL."""

    about: str
    sql: str


#: the query variable that leaves the games failing the audit out of every view (`counted_games`)
PASSED_ONLY = "buraco_passed_only"
#: the analytics views shipped in every indexed database (names are part of the interface)
VIEWS: dict[str, SqlView] = {
    # first: the views below count the games of this one
    "counted_games": SqlView("the games the views count: all, or those that pass the audit with"
                          " --passed-only", f"""
        SELECT * FROM games
        WHERE audit_ok OR NOT coalesce(getvariable('{PASSED_ONLY}'), false)"""),
    "canasta_rates": SqlView("canastas of each kind per hand and per team hand, by variant (a club"
                             " kind where one was made)", f"""
        WITH th AS (
            SELECT g.variant, count(*) AS team_hands, count(DISTINCT (t.game_id, t.hand)) AS hands
            FROM team_hands t JOIN counted_games g USING (game_id) GROUP BY g.variant),
        c AS (
            SELECT g.variant, m.kind, count(*) AS canastas,
                   count(DISTINCT (m.game_id, m.hand, m.team)) AS team_hands_with
            FROM melds m JOIN counted_games g USING (game_id) WHERE m.kind <> 'none'
            GROUP BY g.variant, m.kind)
        SELECT th.variant, k.kind, th.hands, th.team_hands,
               coalesce(c.canastas, 0) AS canastas,
               coalesce(c.canastas, 0) / th.hands AS per_hand,
               coalesce(c.canastas, 0) / th.team_hands AS per_team_hand,
               coalesce(c.team_hands_with, 0) / th.team_hands AS share_team_hands
        FROM th CROSS JOIN (SELECT unnest({_kinds_sql()}) AS kind) k
        LEFT JOIN c ON c.variant = th.variant AND c.kind = k.kind
        WHERE list_position({_kinds_sql(4)}, k.kind) IS NOT NULL OR c.canastas IS NOT NULL
        ORDER BY th.variant, list_position({_kinds_sql()}, k.kind)"""),
    "penalty_rates": SqlView("how often teams took no dead or left it unused, penalties, by variant", """
        SELECT g.variant, count(*) AS team_hands,
               avg(CASE WHEN NOT t.took_dead THEN 1 ELSE 0 END) AS no_dead_rate,
               avg(CASE WHEN t.dead_unused THEN 1 ELSE 0 END) AS dead_unused_rate,
               avg(CASE WHEN t.dead_direct THEN 1 ELSE 0 END) AS dead_direct_rate,
               avg(t.dead_penalty) AS avg_dead_penalty,
               avg(t.hand_penalty) AS avg_hand_penalty
        FROM team_hands t JOIN counted_games g USING (game_id)
        GROUP BY g.variant ORDER BY g.variant"""),
    "closing_rates": SqlView("share of hands closed, ended by the stock, claimed right, by variant", """
        SELECT g.variant, count(*) AS hands,
               avg(CASE WHEN h.reason = 'closed' THEN 1 ELSE 0 END) AS closed_rate,
               avg(CASE WHEN h.reason = 'stock_exhausted' THEN 1 ELSE 0 END) AS exhausted_rate,
               avg(CASE WHEN h.reason = 'stalemate' THEN 1 ELSE 0 END) AS stalemate_rate,
               avg(CASE WHEN h.claims_match THEN 1 ELSE 0 END) AS claims_match_rate
        FROM hands h JOIN counted_games g USING (game_id)
        GROUP BY g.variant ORDER BY g.variant"""),
    "hand_lengths": SqlView("turns and events per hand (mean, median, max), by variant and end", """
        SELECT g.variant, h.reason, count(*) AS hands,
               avg(h.turns) AS avg_turns, median(h.turns) AS median_turns, max(h.turns) AS max_turns,
               avg(h.events) AS avg_events, median(h.events) AS median_events,
               max(h.events) AS max_events
        FROM hands h JOIN counted_games g USING (game_id)
        GROUP BY g.variant, h.reason ORDER BY g.variant, h.reason"""),
    # the ruled_ columns count the games decided after rulings (finished, or awarded...) by
    # ruled_winner; the others count the finished games by the recount, as without rulings
    "win_rates": SqlView("wins of the team that played first and of team 0, by variant, players;"
                         " ruled_: after rulings", """
        SELECT variant, n_players, count(*) FILTER (WHERE complete) AS games,
               avg(CASE WHEN winner = first_team THEN 1 ELSE 0 END)
                   FILTER (WHERE complete) AS first_team_win_rate,
               avg(CASE WHEN winner = 0 THEN 1 ELSE 0 END) FILTER (WHERE complete) AS team0_win_rate,
               avg(hands) FILTER (WHERE complete) AS avg_hands,
               count(*) FILTER (WHERE complete AND winner IS NULL) AS ties,
               count(*) FILTER (WHERE ruled_winner IS NOT NULL) AS ruled_games,
               avg(CASE WHEN ruled_winner = first_team THEN 1 ELSE 0 END)
                   FILTER (WHERE ruled_winner IS NOT NULL) AS ruled_first_team_win_rate,
               avg(CASE WHEN ruled_winner = 0 THEN 1 ELSE 0 END)
                   FILTER (WHERE ruled_winner IS NOT NULL) AS ruled_team0_win_rate
        FROM counted_games WHERE complete OR ruled_winner IS NOT NULL
        GROUP BY variant, n_players ORDER BY variant, n_players"""),
    "player_standings": SqlView("games, wins and win rate per player name, over finished games;"
                                " ruled_: after rulings", """
        WITH seats AS (
            SELECT game_id, variant, complete, winner, totals, ruled_winner, ruled_totals,
                   unnest(players) AS player, generate_subscripts(players, 1) - 1 AS seat
            FROM counted_games WHERE complete OR ruled_winner IS NOT NULL)
        SELECT player, count(*) FILTER (WHERE complete) AS games,
               count(*) FILTER (WHERE complete AND winner = seat % 2) AS wins,
               avg(CASE WHEN winner = seat % 2 THEN 1 ELSE 0 END) FILTER (WHERE complete) AS win_rate,
               avg(totals[seat % 2 + 1]) FILTER (WHERE complete) AS avg_team_total,
               list(DISTINCT variant ORDER BY variant) FILTER (WHERE complete) AS variants,
               count(*) FILTER (WHERE ruled_winner IS NOT NULL) AS ruled_games,
               count(*) FILTER (WHERE ruled_winner = seat % 2) AS ruled_wins,
               avg(CASE WHEN ruled_winner = seat % 2 THEN 1 ELSE 0 END)
                   FILTER (WHERE ruled_winner IS NOT NULL) AS ruled_win_rate,
               avg(ruled_totals[seat % 2 + 1])
                   FILTER (WHERE ruled_winner IS NOT NULL) AS ruled_avg_team_total
        FROM seats GROUP BY player ORDER BY win_rate DESC, games DESC, player"""),
    "score_quantiles": SqlView("quantiles of team hand totals and of game totals, by variant", f"""
        SELECT g.variant, 'team_hand_total' AS measure, count(*) AS n, min(t.total) AS min,
               {_quantile_cols('t.total')}, max(t.total) AS max, avg(t.total) AS avg
        FROM team_hands t JOIN counted_games g USING (game_id) GROUP BY g.variant
        UNION ALL
        SELECT variant, 'game_total' AS measure, count(*) AS n, min(total) AS min,
               {_quantile_cols('total')}, max(total) AS max, avg(total) AS avg
        FROM (SELECT variant, unnest(totals) AS total FROM counted_games WHERE complete)
        GROUP BY variant
        ORDER BY 1, 2"""),
    # the analyses' decisions (`decisions`), of the counted games; accuracy is that of
    # `evaluate.accuracy_of`, over the mean loss of all the player's decisions analysed
    "player_accuracy": SqlView("per player name, over the decisions analysed: mean loss, accuracy,"
                               " inaccuracies, mistakes, blunders", f"""
        SELECT d.player, count(DISTINCT (d.game_id, d.seat)) AS analyses, count(*) AS decisions,
               avg(d.loss) AS mean_loss,
               round(100 * exp(-greatest(avg(d.loss), 0) / {ACCURACY_SCALE!r}), 1) AS accuracy,
               count(*) FILTER (WHERE d.class = 'inaccuracy') AS inaccuracies,
               count(*) FILTER (WHERE d.class = 'mistake') AS mistakes,
               count(*) FILTER (WHERE d.class = 'blunder') AS blunders
        FROM decisions d JOIN counted_games g USING (game_id)
        GROUP BY d.player ORDER BY accuracy DESC, decisions DESC, d.player"""),
    "mistakes_by_phase": SqlView("per phase (draw, play...), over the decisions analysed: marked"
                                 " decisions by class, mean loss", """
        SELECT d.phase, count(*) AS decisions, count(d.class) AS marked,
               count(*) FILTER (WHERE d.class = 'inaccuracy') AS inaccuracies,
               count(*) FILTER (WHERE d.class = 'mistake') AS mistakes,
               count(*) FILTER (WHERE d.class = 'blunder') AS blunders,
               avg(d.loss) AS mean_loss
        FROM decisions d JOIN counted_games g USING (game_id)
        GROUP BY d.phase ORDER BY d.phase"""),
}


def relations() -> list[tuple[str, str]]:
    """Return (name, one line about it) for every table, then every view, a query can use."""
    tables = {**TABLES, **TOURNAMENT_TABLES}
    return [(t, d.about) for t, d in tables.items()] + [(v, VIEWS[v].about) for v in VIEWS]
