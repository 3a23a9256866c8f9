"""The data dictionary (`docs/analytics.md`, `buraco sql --schema`): every table, view and column of
the index with its type and meaning, kept equal to the schema, and example queries that run."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from buraco_events.analytics import dictionary
from buraco_events.analytics.ingest import index
from buraco_events.analytics.schema import TABLES, TOURNAMENT_TABLES
from buraco_events.analytics.sqlviews import VIEWS
from cli.main import app

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def test_docs_analytics_md_is_the_dictionary_generated_from_the_schema() -> None:
    """Regenerate with: python -c 'from buraco_events.analytics.dictionary import markdown;
    open("docs/analytics.md", "w").write(markdown())'."""
    assert (ROOT / "docs" / "analytics.md").read_text() == dictionary.markdown()


def test_every_column_of_every_table_and_view_has_a_meaning_and_no_meaning_is_left_over() -> None:
    rels = dictionary.relations()
    assert [r.name for r in rels] == [*TABLES, *TOURNAMENT_TABLES, *VIEWS]
    for r in rels:
        assert r.columns, r.name
        for c in r.columns:
            assert c.meaning.strip(), f"{r.name}.{c.name} has no meaning in dictionary.MEANINGS"
        said = set(dictionary.MEANINGS[r.name]) - {"*"}
        assert said <= {c.name for c in r.columns}, f"{r.name}: meanings of columns it lacks"
    games = next(r for r in rels if r.name == "games")
    assert [c.name for c in games.columns] == list(TABLES["games"].names())
    assert ("first_team", "TINYINT") in [(c.name, c.type) for c in games.columns]


def test_the_page_names_the_columns_an_analyst_asks_about_and_the_team_rule() -> None:
    page = (ROOT / "docs" / "analytics.md").read_text()
    for column in ("`first_team`", "`first`", "`closed_by`", "`canasta_bonus`", "`dead_direct`"):
        assert f"| {column} |" in page
    assert "modulo 2" in page and page.count("```sql") == 5


def test_the_five_example_questions_run_on_an_indexed_database(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    # the disputes: some are stored and fail the audit, the others are rejected
    index([ROOT / "data" / "samples", ROOT / "data" / "disputes"], db)
    con = duckdb.connect(str(db), read_only=True)
    try:
        for example in dictionary.EXAMPLES:
            rows = con.execute(example.sql).fetchall()
            assert rows, example.question
    finally:
        con.close()


def test_sql_schema_prints_the_dictionary_or_one_table_at_80_columns() -> None:
    whole = runner.invoke(app, ["sql", "--schema"], env={"COLUMNS": "80"})
    assert whole.exit_code == 0, whole.output
    assert all(len(line) <= 80 for line in whole.stdout.splitlines())
    for name in [*TABLES, *VIEWS]:
        assert f"\n{name} (" in whole.stdout
    one = runner.invoke(app, ["sql", "--schema", "hands"], env={"COLUMNS": "80"})
    assert one.exit_code == 0 and one.stdout.startswith("hands (table):")
    assert "closed_by" in one.stdout and "games (table)" not in one.stdout
    assert "TINYINT" in one.stdout and "the seat that closed the hand" in one.stdout


@pytest.mark.parametrize("args", [["sql", "--schema", "nosuch"], ["sql"]])
def test_sql_without_a_query_or_with_an_unknown_table_says_so_in_one_line(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
