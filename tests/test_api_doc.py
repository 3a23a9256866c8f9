"""docs/api.md: its example runs and prints what the page says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"


def _blocks(text: str) -> tuple[str, str]:
    """Return the page's python example and the output block that follows it."""
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None, "docs/api.md lost its example"
    shown = re.search(r"```\n(.*?)```", text[code.end():], re.S)
    assert shown is not None, "docs/api.md lost the example's output"
    return code.group(1), shown.group(1)


def test_api_example_runs_and_prints_what_the_page_shows() -> None:
    code, shown = _blocks(DOC.read_text(encoding="utf-8"))
    printed = io.StringIO()
    scope: dict[str, object] = {"__name__": "api_example"}
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(DOC), "exec"), scope)  # noqa: S102 - the page's own example
    assert printed.getvalue() == shown
    table = scope["table"]
    assert table.over and table.state.totals == [300, 1180]  # type: ignore[attr-defined]


def test_readme_links_the_api_page() -> None:
    readme = (DOC.parent.parent / "README.md").read_text(encoding="utf-8")
    assert "(docs/api.md)" in readme
