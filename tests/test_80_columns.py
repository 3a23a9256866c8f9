"""At 80 columns no number or name is cut: every command that prints a table prints it whole
(wrapped, or in slices of columns each led by the row's key), never with `…` inside a cell."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table
from typer.testing import CliRunner

from buraco_events.views.fit import fitted, print_fitted
from cli.main import app

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
WIDTH = 80
#: the characters that draw a Rich table's cells and rules (a box without sides has rules only)
CELL_RULES = "│┃─━"
#: a cell Rich cut short: `…` ends it, before the cell's side or the line's end
CUT = re.compile(r"…\s*(?:[│┃]|$)")


def _cut_cells(text: str) -> list[str]:
    """Return the lines of `text` where a cell was cut short with `…`."""
    return [line for line in text.splitlines() if CUT.search(line)]


def _wide_table() -> Table:
    table = Table(title="wide")
    table.add_column("key")
    for i in range(12):
        table.add_column(f"column_number_{i}")
    table.add_row("row-one", *(f"value-{i}-{'x' * i}" for i in range(12)))
    return table


def _render(table: Table, width: int = WIDTH) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"), color_system=None)  # noqa: SIM115
    print_fitted(console, table)
    console.file.close()
    return console.export_text()


def test_a_table_too_wide_prints_in_slices_each_led_by_its_key_and_nothing_is_cut() -> None:
    text = _render(_wide_table())
    assert not _cut_cells(text)
    assert all(len(line) <= WIDTH for line in text.splitlines())
    for i in range(12):
        assert f"column_number_{i}" in text and f"value-{i}-{'x' * i}" in text
    assert len(fitted(_wide_table(), Console(width=WIDTH))) > 1
    assert text.count("row-one") == len(fitted(_wide_table(), Console(width=WIDTH)))
    assert text.count("wide") == 1  # the title once, over the first slice


def test_a_table_that_fits_is_one_table_and_a_long_cell_wraps_whole() -> None:
    small = Table()
    small.add_column("a")
    small.add_column("b")
    small.add_row("1", "two")
    assert fitted(small, Console(width=WIDTH)) == [small]
    long = Table()
    for name in ("game", "head", "n"):
        long.add_column(name)
    long.add_row("g1", "0123456789abcdef" * 8, "3")
    text = _render(long)
    assert not _cut_cells(text)
    assert "".join(line.split("│")[2].strip() for line in text.splitlines() if line.count("│") >= 2) \
        .startswith("0123456789abcdef" * 8)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Logs, a database, a branch and a rulings log: what the table-printing commands read."""
    root = tmp_path_factory.mktemp("eighty")
    env = {"COLUMNS": str(WIDTH)}
    for args in (
        ["simulate", "--games", "3", "--players", "4", "--seed", "7", "--out", str(root / "logs"),
         "--bots", "greedy,random"],
        ["index", str(root / "logs"), "--db", str(root / "g.duckdb")],
        ["branch", str(root / "logs" / "stbl-4p-s7-00000.jsonl"), "--at", "20", "-o", str(root / "b.jsonl"),
         "--by", "analysis", "--until", "game"],
        ["rule", str(root / "logs" / "stbl-4p-s7-00001.jsonl"), "--kind", "score_adjusted", "--hand", "1",
         "--points=-300,0", "--by", "referee", "--reason", "slow play, warned twice"],
    ):
        result = runner.invoke(app, args, env=env)
        assert result.exit_code == 0, (args, result.output)
    shutil.copy(ROOT / "data" / "disputes" / "changed_card.jsonl", root / "changed_card.jsonl")
    return root


def _commands(root: Path) -> list[list[str]]:
    logs = root / "logs"
    db = str(root / "g.duckdb")
    return [
        ["simulate", "--games", "2", "--players", "2", "--seed", "1", "--out", str(root / "sim2"),
         "--bots", "greedy,buraco_events:RandomBot"],
        ["rules"],
        ["rules", "stbl"],
        ["stats", "--db", db],
        ["sql", "SELECT * FROM games", "--db", db],
        ["sql", "SELECT * FROM hands", "--db", db],
        ["sql", "SELECT * FROM team_hands", "--db", db],
        ["sql", "SELECT * FROM score_quantiles", "--db", db],
        ["export", "--db", db, "--parquet", str(root / "parquet")],
        ["audit", str(root / "changed_card.jsonl")],
        ["audit", str(logs / "stbl-4p-s7-00001.jsonl")],
        ["compare", str(logs / "stbl-4p-s7-00000.jsonl"), str(root / "b.jsonl")],
        ["rule", str(logs / "stbl-4p-s7-00002.jsonl"), "--kind", "warning", "--by", "referee",
         "--reason", "a warning"],
        ["match", "--bots", "greedy,buraco_events:RandomBot", "--deals", "2", "--out", str(root / "m"),
         "--workers", "1"],
        ["league", "--bots", "greedy,random,buraco_events:RandomBot", "--deals", "1", "--out", str(root / "l"),
         "--workers", "1"],
        ["replay", str(logs / "stbl-4p-s7-00000.jsonl"), "--static", "--as", "0"],
        ["demo", "--out", str(root / "demo")],  # its score quantiles among the rest
    ]


@pytest.mark.slow
def test_every_table_printing_command_prints_whole_cells_at_80_columns(folder: Path) -> None:
    for args in _commands(folder):
        result = runner.invoke(app, args, env={"COLUMNS": str(WIDTH)})
        assert result.exit_code in (0, 1), (args, result.output)
        assert "Traceback" not in result.output
        cut = _cut_cells(result.stdout)
        assert not cut, f"buraco {' '.join(args)} cuts cells at {WIDTH} columns:\n" + "\n".join(cut)
        assert any(c in result.stdout for c in CELL_RULES), f"buraco {' '.join(args)} printed no table"


def test_each_slice_repeats_the_columns_that_tell_the_rows_apart() -> None:
    table = Table()
    for name in ("variant", "measure", *(f"quantile_{q}" for q in range(10, 100, 10))):
        table.add_column(name)
    for measure in ("game_total", "team_hand_total"):
        table.add_row("stbl", measure, *(str(1000 + q) for q in range(9)))
    parts = fitted(table, Console(width=WIDTH))
    assert len(parts) > 1
    for part in parts:
        assert [c.header for c in part.columns[:2]] == ["variant", "measure"]
    assert sum(len(part.columns) - 2 for part in parts) == 9
