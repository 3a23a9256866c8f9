"""`--help` of every command: plain flags and values (no typer type tags); `sql --help` lists
the tables and views from their definitions."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest
from typer.main import get_command
from typer.testing import CliRunner

from buraco_events.analytics import database, queries, sqlviews
from cli.main import app

runner = CliRunner()

#: typer's type tags: `<bool>`, `<str>`, `<path>`, `<list[Path]>`...
TYPE_TAG = re.compile(r"<(?:bool|str|int|float|path|list\[[^\]]*\])>", re.IGNORECASE)


def command_paths(command=None, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Return the argument path of the app and of every command and subcommand under it."""
    command = command or get_command(app)
    paths = [prefix]
    for name, sub in getattr(command, "commands", {}).items():
        paths += command_paths(sub, (*prefix, name))
    return paths


@pytest.mark.slow
def test_every_help_shows_plain_flags_and_values():
    paths = command_paths()
    assert ("sql",) in paths and ("archive", "pack") in paths and len(paths) > 15
    for path in paths:
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "100"})
        assert result.exit_code == 0, path
        assert not TYPE_TAG.search(result.stdout), (path, TYPE_TAG.search(result.stdout))
        # a flag stands alone, followed by its help
        assert re.search(r"--help\s+Show this message and exit", result.stdout), path
    sql = runner.invoke(app, ["sql", "--help"], env={"COLUMNS": "100"}).stdout
    assert re.search(r"--db\s+PATH\s+the DuckDB database file", sql)
    assert re.search(r"--json\s+print a JSON array", sql)
    assert re.search(r"--timeout\s+SECONDS\s+stop the query after", sql)
    assert re.search(r"--max-memory\s+SIZE\s+stop the query when", sql)
    audit = runner.invoke(app, ["audit", "--help"], env={"COLUMNS": "100"}).stdout
    assert re.search(r"paths(\.\.\.)?\s+PATH\s+log files", audit)  # typer 0.28 shows no dots


@pytest.mark.slow
def test_every_usage_line_names_its_arguments_in_capitals():
    for path in command_paths():
        usage = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).stdout
        line = next(x.strip() for x in usage.splitlines() if "Usage:" in x)
        assert "{" not in line and "}" not in line, line
        words = line.split("[OPTIONS]", 1)[1].split()
        assert all(w.strip("[].") == w.strip("[].").upper() for w in words), line
    assert usage_of("replay") == "Usage: buraco replay [OPTIONS] LOG"
    assert usage_of("audit") == "Usage: buraco audit [OPTIONS] PATHS..."
    assert usage_of("rules") == "Usage: buraco rules [OPTIONS] [PRESET]"
    assert usage_of("compare") == "Usage: buraco compare [OPTIONS] PARENT BRANCH"
    # a usage error shows the same line
    error = runner.invoke(app, ["replay"], env={"COLUMNS": "200"})
    assert error.exit_code == 2 and "Usage: buraco replay [OPTIONS] LOG" in error.output


def usage_of(*path: str) -> str:
    text = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).stdout
    return next(x.strip() for x in text.splitlines() if "Usage:" in x)


@pytest.mark.slow
def test_root_help_groups_the_commands_by_what_people_do_with_examples():
    from cli.main import EXAMPLES, ROOT_EXAMPLES

    text = runner.invoke(app, ["--help"], env={"COLUMNS": "200"}).stdout
    panels = {"Play and watch": ["play", "replay", "share", "demo", "serve", "simulate"],
              "Referee": ["audit", "rule", "branch", "compare", "fairplay", "log", "tournament"],
              "Analyse": ["index", "sql", "stats", "export", "spark-index", "rules", "analyze", "match", "league"],
              "Archives": ["schema", "archive"]}
    boxes = re.split(r"╭─ ", text)[1:]
    listed = {box.split(" ─", 1)[0]: re.findall(r"^│ (\S+)", box, re.MULTILINE) for box in boxes}
    assert {k: v for k, v in listed.items() if k != "Options"} == panels
    # every command of the app is in a panel, and its help ends with its example
    assert set(get_command(app).commands) == {c for cs in panels.values() for c in cs}
    for name, (panel, example) in EXAMPLES.items():
        assert name in panels[panel] and example.startswith(f"buraco {name} ")
        help_text = " ".join(runner.invoke(app, [name, "--help"], env={"COLUMNS": "300"}).stdout.split())
        assert f"Example: {example}" in help_text, name
    flat = " ".join(text.split())
    for panel, example in ROOT_EXAMPLES.items():
        assert f"{panel.lower()}: {example}" in flat


@pytest.mark.slow
def test_every_example_parses_as_its_command():
    import shlex

    from cli.main import EXAMPLES

    for name, (_, example) in EXAMPLES.items():
        command = get_command(app)
        ctx = command.make_context("buraco", shlex.split(example)[1:])
        args = [*ctx._protected_args, *ctx.args]
        while getattr(command, "commands", None):  # the command, or a group's subcommand
            _, command, args = command.resolve_command(ctx, args)
            ctx = command.make_context(name, args, parent=ctx)  # raises on a bad option
            args = [*getattr(ctx, "_protected_args", []), *ctx.args]
        assert not args, (name, args)


def test_sql_help_tells_the_limits_and_which_output_keeps_the_data_exact():
    text = " ".join(runner.invoke(app, ["sql", "--help"], env={"COLUMNS": "200"}).stdout.split())
    assert (f"A query stops after --timeout seconds ({queries.DEFAULT_TIMEOUT:g} by default) and "
            f"when it needs more than --max-memory ({queries.DEFAULT_MAX_MEMORY} by default)"
            in text)
    assert "in --csv when stdout is a terminal. --csv into a pipe or a file" in text
    assert "A query may begin with a -- comment" in text


def test_sql_help_lists_every_table_and_view_from_their_definitions():
    result = runner.invoke(app, ["sql", "--help"], env={"COLUMNS": "200"})
    names = [name for name, _ in sqlviews.relations()]
    every_table = [*database.SCHEMAS, *database.TOURNAMENT_SCHEMAS]
    tables = len(every_table)
    assert names[:tables] == every_table and names[tables:] == list(sqlviews.VIEWS)
    for name, about in sqlviews.relations():
        assert re.search(rf"^ {name} +{re.escape(about)} *$", result.stdout, re.MULTILINE), name


def test_an_indexed_database_describes_its_tables_and_views(tmp_path, game_factory):
    from buraco_events.log.writer import write_log

    write_log(tmp_path / "g.jsonl", game_factory("stbl", 2, 1))
    db = tmp_path / "g.duckdb"
    assert runner.invoke(app, ["index", str(tmp_path / "g.jsonl"), "--db", str(db)]).exit_code == 0
    with duckdb.connect(str(db), read_only=True) as con:
        comments = dict(con.execute(
            "SELECT table_name, comment FROM duckdb_tables() UNION ALL "
            "SELECT view_name, comment FROM duckdb_views() WHERE NOT internal").fetchall())
    assert comments == dict(sqlviews.relations())


def test_version_names_the_build():
    from buraco_events import __version__, build
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"buraco-events {__version__} ({build()} build)\n"
    # which build this should be: tests/test_build.py (BURACO_EXPECT_BUILD)


def test_the_app_installs_under_the_project_name():
    # nothing called `cli` lands in site-packages (a top-level `cli` would clash with others); the console
    # script is `buraco`
    import tomllib
    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    setup = project["tool"]["setuptools"]
    assert all(p == "buraco_events" or p.startswith("buraco_events.") for p in setup["packages"])
    assert setup["package-dir"] == {"buraco_events.cli": "cli"}
    assert project["project"]["scripts"] == {"buraco": "buraco_events.cli.main:main"}
