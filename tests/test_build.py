"""The two builds: pure Python, and the core modules compiled by mypyc (`setup.py`).

The whole suite runs in both builds (`.ci/run`); the tests here check which build runs, what
differs between the builds where users can see it (copying, pickling, subclassing), and how
`setup.py` decides whether to compile and falls back to pure Python.
"""

from __future__ import annotations

import copy
import ctypes
import importlib
import importlib.util
import os
import pickle
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
from helpers import random_game
from typer.testing import CliRunner

import buraco_events
from buraco_events import build
from buraco_events.bots.registry import GreedyBot, RandomBot, run_game
from buraco_events.core.choices import Action
from buraco_events.core.engine import play
from buraco_events.core.seeds import PositionSeeds
from buraco_events.core.state import GameState
from buraco_events.core.table import BotError, EndlessGame, Table
from cli.main import app

ROOT = Path(__file__).resolve().parent.parent


def _setup_module() -> ModuleType:
    """Import setup.py as a module (it calls setup() only when run as __main__)."""
    spec = importlib.util.spec_from_file_location("buraco_setup", ROOT / "setup.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_expected_build_runs() -> None:
    # CI sets BURACO_EXPECT_BUILD, so a compiled run that silently imported the pure sources fails
    expected = os.environ.get("BURACO_EXPECT_BUILD")
    if expected is None:
        pytest.skip("BURACO_EXPECT_BUILD is not set")
    assert build() == expected
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"buraco-events {buraco_events.__version__} ({expected} build)\n"


def test_the_compiled_modules_are_all_compiled_or_all_pure() -> None:
    # each compiled module's stub imports one shared library: a half-built install cannot work
    kinds = {}
    for path in _setup_module().COMPILED:
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        kinds[module.__name__] = "compiled" if module.__file__.endswith(tuple(EXTENSION_SUFFIXES)) else "pure"
    assert set(kinds.values()) == {build()}, kinds


def _mid_hand_state() -> GameState:
    state = GameState()
    for ev in random_game("stbl", 4, seed=3)[:60]:
        play(state, ev)
    assert state.melds
    return state


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_states_melds_and_actions_copy_and_pickle(how: str) -> None:
    # the frozen dataclasses restore through their constructor: compiled, they refuse setattr
    state = _mid_hand_state()
    meld = state.melds[0]
    objects = [state, meld, meld.shape, Action("add", ("3h", "JK"), meld=4, dead=1)]
    dup = {"copy": copy.copy, "deepcopy": copy.deepcopy,
           "pickle": lambda o: pickle.loads(pickle.dumps(o))}[how]
    for obj in objects:
        again = dup(obj)
        assert again == obj and type(again) is type(obj)
    assert meld.canasta_seq is None or dup(meld).canasta_seq == meld.canasta_seq


class _CautiousBot(GreedyBot):
    """A user's bot built on the greedy one (docs/api.md: users write bots)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def choose(self, view, actions, rules, rng):  # type: ignore[no-untyped-def]
        self.calls += 1
        return super().choose(view, actions, rules, rng)


class _CountingTable(Table):
    """A game server's table that counts the actions it was sent."""

    def act(self, seat, action, *, advance=True):  # type: ignore[no-untyped-def]
        self.sent = getattr(self, "sent", 0) + 1
        return super().act(seat, action, advance=advance)


def test_users_may_subclass_the_bots_and_the_table() -> None:
    bot = _CautiousBot()
    events = run_game("stbl", 2, 5, [bot, RandomBot()], "sub", target=0)[0]
    assert bot.calls > 0
    assert events == run_game("stbl", 2, 5, [GreedyBot(), RandomBot()], "sub", target=0)[0]
    table = _CountingTable.start("stbl", ["ana", "greedy"], game_id="t", seats=[None, GreedyBot()],
                                 rng=PositionSeeds(7), target=0)
    table.advance()
    table.act(table.to_move, table.legal_actions()[0])
    assert table.sent == 1 and isinstance(table, Table)
    assert issubclass(EndlessGame, RuntimeError)  # a Python class in both builds


class _Confused:
    """A user's bot that answers with something that is not an Action."""

    name = "confused"

    def choose(self, view, actions, rules, rng):  # type: ignore[no-untyped-def]
        return ("discard", "JK")


def test_a_bot_answering_a_non_action_gets_the_same_error_in_both_builds() -> None:
    # compiled, an `Action` annotation on the answer would raise TypeError before the check
    with pytest.raises(BotError, match=r"bot confused at seat 0 chose an action not offered: \('discard', 'JK'\)"):
        run_game("stbl", 2, 3, [_Confused(), GreedyBot()], "confused", target=0)


@pytest.mark.parametrize(("argv", "env", "compiles"), [
    (["bdist_wheel"], {}, True),  # pip install . / a wheel
    (["editable_wheel"], {}, False),  # pip install -e .
    (["editable_wheel"], {"BURACO_COMPILE": "1"}, True),
    (["develop"], {}, False),  # the legacy editable install
    (["bdist_wheel"], {"BURACO_COMPILE": "0"}, False),
    (["build_ext", "--inplace"], {}, True),
])
def test_setup_compiles_normal_builds_and_not_editable_ones(
    argv: list[str], env: dict[str, str], compiles: bool,
) -> None:
    assert _setup_module().compile_decision(["setup.py", *argv], env)[0] is compiles


def test_setup_asks_mypyc_nothing_for_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    # egg_info / dist_info (pip's metadata steps) need no extensions: no slow mypyc run for them
    assert _setup_module().ext_modules(["setup.py", "egg_info"], {}) == []
    assert capsys.readouterr().err == ""


def test_setup_falls_back_to_pure_without_mypyc(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    setup = _setup_module()
    monkeypatch.setitem(sys.modules, "mypyc.build", None)  # `from mypyc.build import` fails
    assert setup.ext_modules(["setup.py", "bdist_wheel"], {}) == []
    assert capsys.readouterr().err == (
        "buraco-events: pure Python build: mypyc cannot be imported "
        "(import of mypyc.build halted; None in sys.modules)\n")


def _failing_mypycify(paths: list[str], group_name: str | None = None, multi_file: bool = False) -> list[object]:
    raise SystemExit("buraco_events/model/rules.py:47: error: a type error")  # as mypyc exits on errors


@pytest.mark.parametrize(("env", "falls_back"), [({}, True), ({"BURACO_COMPILE": "1"}, False)])
def test_setup_falls_back_to_pure_when_mypyc_fails_unless_compiling_was_asked_for(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    env: dict[str, str], falls_back: bool,
) -> None:
    # `pip install .` must still install (pure) where mypyc's type check fails; CI, which sets
    # BURACO_COMPILE=1, must fail instead of passing with a pure build
    pytest.importorskip("mypyc.build")
    setup = _setup_module()
    monkeypatch.setattr("mypyc.build.mypycify", _failing_mypycify)
    monkeypatch.chdir(ROOT)  # ext_modules changes into the project root: undone after the test
    if falls_back:
        assert setup.ext_modules(["setup.py", "bdist_wheel"], env) == []
        assert capsys.readouterr().err.endswith(
            "buraco-events: pure Python build: mypyc failed (SystemExit: buraco_events/model/rules.py:47:"
            " error: a type error); pip install -v . shows why\n")
    else:
        with pytest.raises(SystemExit, match="a type error"):
            setup.ext_modules(["setup.py", "bdist_wheel"], env)


def test_a_pure_editable_build_removes_compiled_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # compiled files beside the sources would shadow a developer's edits
    package = tmp_path / "buraco_events"
    (package / "core").mkdir(parents=True)
    stale = [package / "core" / "engine.cpython-311-x86_64-linux-gnu.so", package / "_core__mypyc.abi3.so"]
    kept = [package / "core" / "engine.py", package / "log.cpython-311-x86_64-linux-gnu.so"]
    for f in stale + kept:
        f.write_text("")
    _setup_module().remove_compiled_files(tmp_path)
    assert sorted(p for p in package.rglob("*") if p.is_file()) == sorted(kept)
    assert "removed buraco_events/core/engine.cpython-311-x86_64-linux-gnu.so" in capsys.readouterr().err


@pytest.mark.slow
def test_a_failing_c_compiler_leaves_a_pure_build(tmp_path: Path) -> None:
    # no C compiler: mypyc generates C, the compile fails, the build succeeds pure and says why
    pytest.importorskip("mypyc.build")
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    for folder in ("buraco_events", "cli"):
        shutil.copytree(ROOT / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    env = {**os.environ, "CC": str(tmp_path / "no-such-cc"), "BURACO_COMPILE": "1"}
    run = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "buraco-events: compiled build: mypyc compiles core/cards" in run.stderr
    assert "buraco-events: pure Python build: the C compiler failed" in run.stderr
    assert list(tmp_path.rglob("*.so")) == []
    check = subprocess.run([sys.executable, "-c", "import buraco_events; print(buraco_events.build())"],
                           cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)},
                           capture_output=True, text=True, check=True)
    assert check.stdout == "pure\n"


def test_setup_hides_the_shared_librarys_functions_from_unix_compilers_only() -> None:
    # -fvisibility=hidden: the compiled modules call one another directly (1.6% fewer instructions)
    setup = _setup_module()
    unix = [SimpleNamespace(extra_compile_args=[]), SimpleNamespace(extra_compile_args=["-O2"])]
    setup.add_hidden(unix, "unix")
    setup.add_hidden(unix, "unix")  # twice: the flag once
    assert [e.extra_compile_args for e in unix] == [["-fvisibility=hidden"], ["-O2", "-fvisibility=hidden"]]
    msvc = [SimpleNamespace(extra_compile_args=[])]
    setup.add_hidden(msvc, "msvc")
    assert msvc[0].extra_compile_args == []


@pytest.mark.skipif(build() != "compiled" or not sys.platform.startswith("linux"), reason="the compiled build's library, on Linux")
def test_the_compiled_library_exports_its_init_functions_only() -> None:
    # what the dynamic linker sees of the shared library: the init function Python calls, none of
    # the compiled functions (each module's stub reaches them through a capsule, not by name)
    package = Path(buraco_events.__file__).parent
    (core,) = [p for p in package.iterdir() if p.name.startswith("_core__mypyc.") and p.suffix == ".so"]
    library = ctypes.CDLL(str(core))
    assert hasattr(library, "PyInit__core__mypyc")
    assert not hasattr(library, "CPyDef_engine___apply")
    assert not hasattr(library, "CPyDef_melds___classify")


def test_setup_compiles_on_every_core_unless_told_how_many(monkeypatch: pytest.MonkeyPatch) -> None:
    setup = _setup_module()
    assert setup.build_jobs({"BURACO_BUILD_JOBS": "3"}) == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert setup.build_jobs({}) == 2
    assert setup.build_jobs({"BURACO_BUILD_JOBS": "0"}) == 2  # not a count of compilers: the cores
    assert setup.build_jobs({"BURACO_BUILD_JOBS": "many"}) == 2


def test_setup_compiles_a_librarys_sources_at_once_largest_first_objects_in_order(tmp_path: Path) -> None:
    # the multi-file library's C files are compiled two at a time here; the objects come back in
    # the sources' order (the linker's), whatever order the compilers finish in
    import threading
    import time

    setup = _setup_module()
    sizes = {"a.c": 10, "b.c": 300, "c.c": 20, "d.c": 200}
    for name, size in sizes.items():
        (tmp_path / name).write_text("x" * size)
    started: list[str] = []
    running = [0, 0]  # now, most at once
    lock = threading.Lock()

    def compile_one(sources: list[str], output_dir: str | None = None, **kwargs: object) -> list[str]:
        assert len(sources) == 1 and output_dir == "out" and kwargs == {"debug": 0}
        with lock:
            started.append(Path(sources[0]).name)
            running[0] += 1
            running[1] = max(running)
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return [sources[0].replace(".c", ".o")]

    sources = [str(tmp_path / name) for name in sizes]
    objects = setup.parallel_compile(compile_one, 2)(sources, "out", debug=0)
    assert objects == [s.replace(".c", ".o") for s in sources]
    assert running[1] == 2
    assert started[:2] == ["b.c", "d.c"]  # the largest first
    # one job, or one source: distutils' own compile, unchanged
    calls: list[list[str]] = []
    serial = setup.parallel_compile(lambda s, *a, **k: calls.append(s) or ["x.o"], 1)
    assert serial(sources, "out") == ["x.o"] and calls == [sources]


def test_setup_puts_the_groups_header_folder_on_the_include_path() -> None:
    # mypyc's multi-file modules include `__native__core.h`, which lies beside the group's C file
    ext = SimpleNamespace(sources=["build/buraco_events/__native__core.c", "build/__native_a.c", "build/b.c"],
                          include_dirs=["build"])
    _setup_module().add_source_folders(ext)
    assert ext.include_dirs == ["build", "build/buraco_events"]
