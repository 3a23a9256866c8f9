"""Help in one form: descriptions wrap to the terminal (no line broken inside a sentence), a default
always reads `[default: ...]`, and `--bots` is explained in the same words wherever it appears."""

from __future__ import annotations

import re

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from buraco_events.bots.registry import BOT_NAMES
from cli.common import BOT_NAMES_WORDS, SEATING_WORDS
from cli.main import app, unwrapped

runner = CliRunner()


def _commands(command=None, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], object]]:
    command = command or get_command(app)
    found = [(prefix, command)]
    for name, sub in getattr(command, "commands", {}).items():
        found += _commands(sub, (*prefix, name))
    return found


def test_unwrapped_joins_lines_inside_paragraphs_and_keeps_a_marked_list() -> None:
    text = "First line\n    goes on.\n\nA second\nparagraph.\n\n\b\nn  next\np  prev"
    assert unwrapped(text) == "First line goes on.\n\nA second paragraph.\n\nn  next\np  prev"


def test_no_description_holds_a_line_break_inside_a_paragraph() -> None:
    for path, command in _commands():
        help_text = getattr(command, "help", None) or ""
        for paragraph in help_text.split("\n\n"):
            if path == ("replay",) and paragraph.startswith("n →"):
                continue  # the viewer's keys: a list, a key a line
            if path == ("sql",) and paragraph.startswith("games "):
                continue  # the tables and views: a list, one a line
            assert "\n" not in paragraph, (path, paragraph)


@pytest.mark.slow
def test_every_default_reads_in_one_form_at_80_columns() -> None:
    said = re.compile(r"\(default:|[;,] default:|\bdefault: [^\]]*$")
    for path, _ in _commands():
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
        assert result.exit_code == 0, path
        flat = " ".join(line.strip(" │") for line in result.stdout.splitlines())
        assert not said.search(flat.replace("[default:", "")), (path, said.search(flat))
    play = " ".join(runner.invoke(app, ["play", "--help"], env={"COLUMNS": "200"}).stdout.split())
    for shown in ("[default: stbl]", "[default: 2]", "[default: 0]", "[default: greedy]"):
        assert shown in play, shown


def test_bots_is_explained_in_the_same_words_everywhere() -> None:
    assert all(name in BOT_NAMES_WORDS for name in BOT_NAMES) and "module:Class" in BOT_NAMES_WORDS
    helps = {}
    for path, command in _commands():
        for param in getattr(command, "params", []):
            if "--bots" in getattr(param, "opts", ()) and path != ("serve",):  # serve: the bots a table allows
                helps[path] = param.help
    assert set(helps) >= {("play",), ("simulate",), ("branch",), ("match",), ("league",)}
    for path, text in helps.items():
        assert BOT_NAMES_WORDS in text, path
    # where the meaning is the same (the bots at a table's seats), it is one option: the same help
    assert helps[("simulate",)] == helps[("branch",)] and SEATING_WORDS in helps[("simulate",)]
