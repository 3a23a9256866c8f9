"""Sizes with explicit units: one parser for every size an option or the environment gives."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from buraco_events.analytics.queries import parse_memory
from buraco_events.util.sizes import parse_size, size_name
from cli.main import app

runner = CliRunner()


def test_sizes_parse_and_print() -> None:
    # KB, MB, GB, TB are powers of 1000, KiB, MiB, GiB, TiB of 1024: `1GB` and `1GiB` differ
    texts = ("64MiB", "4gib", "1000", "16 KiB", "2TB", "1GB", "1.5GB", "12 b", "1.5KiB")
    assert [parse_size(t) for t in texts] == [
        64 << 20, 4 << 30, 1000, 16 << 10, 2 * 10**12, 10**9, 1_500_000_000, 12, 1536]
    for bad in ("", "0", "-1", "4G", "16 k", "1.5G", "lots", "1P", "1PB", "0.5B", "1.0001KB"):
        with pytest.raises(ValueError, match="is not a size"):
            parse_size(bad)
    assert size_name(64 << 20) == "64 MiB" and size_name(1000) == "1,000 bytes"
    assert size_name(3 << 40) == "3 TiB" and size_name(1536) == "1,536 bytes"


def test_the_archive_limits_and_the_memory_limit_read_a_size_alike() -> None:
    for text in ("1GB", "1GiB", "512MB", "64 MiB"):
        assert parse_memory(text) == parse_size(text)
    with pytest.raises(ValueError, match="too small a memory limit"):
        parse_memory("1000KB")  # under 1MiB
    assert parse_memory("1024KiB") == 1 << 20


@pytest.mark.parametrize("command", [["archive", "list"], ["sql"]])
def test_help_says_what_the_units_are(command: list[str]) -> None:
    help_text = re.sub(r"[\s│]+", " ", runner.invoke(app, [*command, "--help"],
                                                    env={"COLUMNS": "300"}).stdout)
    assert "KB, MB, GB are powers of 1000, KiB, MiB, GiB of 1024" in help_text
