"""The packages are layers: a module imports only from its own package and the layers below it,
at module level and inside functions alike (every module's syntax tree is walked, so an import
put off until a call counts too):

    model  <-  core  <-  bots, log, util  <-  audit, analytics, analysis, play  <-  views  <-  cli, serve, rl

`model` (the public formats) imports nothing of ours; `core` (the rules) only `model`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: each package's layer; a package not listed is an error (a new package takes its place here)
LAYERS: dict[str, int] = {
    "model": 0,
    "core": 1,
    "bots": 2, "log": 2, "util": 2,
    "audit": 3, "analytics": 3, "analysis": 3, "fairplay": 3, "play": 3, "tournament": 3,
    "views": 4,
    # the front doors, each drawing with `views`: the terminal (the play session and its narrator
    # included), the live tables' server, and the environment bot writers train in
    "cli": 5, "serve": 5, "rl": 5,
}


def package_of(module: str) -> str | None:
    """Return the package (layer key) of a module of ours, or None for another project's."""
    parts = module.split(".")
    if parts[0] == "cli":
        return "cli"
    if parts[0] != "buraco_events":
        return None
    return parts[1] if len(parts) > 1 else ""


def imports_of(path: Path, module: str) -> list[tuple[int, str]]:
    """Return (line, module imported) for every import in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.append((node.lineno, name))
            if node.module is None or node.level:  # `from . import x`: x may be a module
                out += [(node.lineno, f"{name}.{alias.name}") for alias in node.names]
    return out


def modules() -> list[tuple[Path, str]]:
    out = []
    for top in ("buraco_events", "cli"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out.append((path, ".".join(parts)))
    return out


def wrong_way() -> list[tuple[str, tuple[str, str]]]:
    """Return every import that runs from a lower layer up to a higher one: its words, and the
    pair (module, module imported)."""
    found = []
    for path, module in modules():
        own = package_of(module)
        for line, imported in imports_of(path, module):
            target = package_of(imported)
            if target is None or target == own or target == "" or own == "":
                continue
            if own not in LAYERS or target not in LAYERS:
                found.append((f"{path.relative_to(ROOT)}:{line}: {imported} (a package with no layer)", (module, imported)))
            elif LAYERS[target] > LAYERS[own]:
                found.append((f"{path.relative_to(ROOT)}:{line}: {own} (layer {LAYERS[own]}) imports {imported} (layer {LAYERS[target]})",
                              (module, imported)))
    return found


def test_no_import_runs_the_wrong_way() -> None:
    assert [line for line, _pair in wrong_way()] == []


def test_model_imports_nothing_of_ours_and_core_only_model() -> None:
    for line, (module, _imported) in wrong_way():
        assert package_of(module) not in ("model", "core"), line
    for path, module in modules():
        if package_of(module) == "model":
            assert {package_of(name) for _, name in imports_of(path, module)} <= {None, "model"}, module


@pytest.mark.parametrize(("source", "why"), [
    ("from buraco_events.core import engine\n", "model imports core"),
    ("def f():\n    from buraco_events.views.seatview import player_view\n", "an import inside a function"),
    ("from ..log import commit\n", "a relative import"),
])
def test_the_walk_sees_every_form_of_import(tmp_path: Path, source: str, why: str) -> None:
    path = tmp_path / "probe.py"
    path.write_text(source)
    module = "buraco_events.model.probe"
    targets = [package_of(name) for _, name in imports_of(path, module)]
    assert any(t is not None and LAYERS.get(t, 0) > LAYERS["model"] for t in targets), why
