"""Build script: the compiled build of buraco-events (the pure core modules compiled by mypyc).

Everything declarative lives in pyproject.toml; this file only decides whether to compile:

- a normal build (`pip install .`, a wheel) compiles `COMPILED` with mypyc;
- an editable build (`pip install -e .`) stays pure Python, since compiled files beside the sources
  would shadow a developer's edits, unless `BURACO_COMPILE=1`; a pure editable build removes such
  files left by an earlier compiled one;
- `BURACO_COMPILE=0` forces pure Python, `BURACO_COMPILE=1` forces compiling;
- without mypyc, or when the C compiler fails, the build falls back to pure Python and says why
  in one line on stderr.

Which modules compile: the pure core that defines no msgspec Struct (mypyc drops Struct options
such as frozen and kw_only in compiled modules) and does no I/O (mypyc once evaluated the bounds
of `view[os.write(fd, view):]` twice, writing log lines twice). `rules`, `events`, `views`, `projections`
and `scoring` define Structs; `log`, `archive`, `audit`, `database`, `ingest`, `queries`, `sim`,
`pool` do I/O or run processes: they all stay Python. The engine is several compiled modules, each with one reason
to change, that call one another directly: `gate` (the phase gate and the error), `plays` (the
candidate plays), `discard` (the discard rule), `playcheck` (a meld's and a lay-off's check),
`deal` (the deal, made and checked), `sheets` (the score sheets of the hand in play, which only
call `scoring`), `engine` (the fold) and `moves` (the legal moves). `auditcore` is the audit's step for its regular lines, kept apart
from `audit` (Structs, files) so that it compiles with the engine it calls; `seatview` is
`projections.player_view`, kept apart from the views' Structs (`views`) for the same reason;
`rows` builds the index's rows from the replay (no I/O, no Struct); `melds`, `hand_melds` and
`fits` are the meld shapes, a hand's candidate melds and the lay-offs (no I/O, no Struct); `schema`, the analytics
tables' declaration it reads at import, stays Python (nothing in it runs per event).
"""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
#: the modules mypyc compiles, as paths from the project root
COMPILED = [
    f"buraco_events/{name}.py"
    for name in ("cards", "melds", "hand_melds", "fits", "lookahead", "state", "gate", "plays", "discard", "playcheck",
                 "deal", "sheets", "engine", "moves", "table", "choices", "seeds", "bots", "greedy",
                 "auditcore", "seatview", "rows")
]
#: mypyc's shared library holding every compiled module: `buraco_events/_core__mypyc.*.so`
GROUP = "buraco_events._core"
#: setup.py commands that build extensions (egg_info, dist_info and sdist only need metadata)
BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop", "bdist"}
#: commands of an editable install (PEP 660's editable_wheel; the legacy setup.py develop)
EDITABLE = {"editable_wheel", "develop"}


def say(message: str) -> None:
    """Print one line about the build on stderr (pip shows it with -v, and on failure)."""
    print(f"buraco-events: {message}", file=sys.stderr)


def compile_decision(argv: list[str], env: dict[str, str]) -> tuple[bool, str]:
    """Return (compile?, why not) for a setup.py command line and environment."""
    flag = env.get("BURACO_COMPILE", "")
    if flag == "0":
        return False, "BURACO_COMPILE=0"
    if flag != "1" and EDITABLE & set(argv):
        return False, "editable install (set BURACO_COMPILE=1 to compile)"
    return True, ""


def compiled_files(root: Path) -> list[Path]:
    """Return the compiled files an earlier in-place build left beside the sources under `root`."""
    package = root / "buraco_events"
    stems = [Path(p).stem for p in COMPILED] + [GROUP.rpartition(".")[2] + "__mypyc"]
    return [f for stem in stems for f in package.glob(f"{stem}.*.so")] + [
        f for stem in stems for f in package.glob(f"{stem}.*.pyd")
    ]


def remove_compiled_files(root: Path) -> None:
    """Remove compiled files beside the sources under `root`, so their pure Python runs."""
    for f in compiled_files(root):
        f.unlink()
        say(f"removed {f.relative_to(root)} (left by an earlier compiled build)")


#: compile flags of the shared library: its functions hidden from the dynamic linker, so that
#: the compiled modules call one another (and mypyc's runtime helpers) directly, not through
#: the PLT, and the C compiler may inline across them: 1.6% fewer instructions in self-play.
#: The modules' init functions stay visible (Python declares them so); gcc and clang take it.
HIDDEN = ["-fvisibility=hidden"]


def add_hidden(extensions: list[Any], compiler_type: str) -> None:
    """Add `HIDDEN` to each extension's compile flags for a unix compiler (gcc, clang), not MSVC."""
    if compiler_type != "unix":
        return
    for ext in extensions:
        ext.extra_compile_args = ext.extra_compile_args + [f for f in HIDDEN if f not in ext.extra_compile_args]


class BuildExtOrPure(build_ext):
    """build_ext that falls back to pure Python when the C compiler fails.

    The compiled modules only work together (each module's stub imports the shared library), so
    a failure removes whatever this build made and leaves the pure Python sources alone.
    """

    def build_extensions(self) -> None:
        """Build them with `HIDDEN` added where the compiler takes such flags."""
        add_hidden(self.extensions, self.compiler.compiler_type)
        super().build_extensions()

    def run(self) -> None:
        """Build the extensions, or report the failure and leave a pure build."""
        try:
            super().run()
        except Exception as exc:  # CompileError, LinkError, a missing compiler: any of them
            self._remove_outputs()
            reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
            say(f"pure Python build: the C compiler failed ({reason})")

    def _remove_outputs(self) -> None:
        """Remove the extensions this build may have written, in build/ and beside the sources."""
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            fullname = self.get_ext_fullname(ext.name)
            filename = self.get_ext_filename(fullname)
            package, _, _ = fullname.rpartition(".")
            in_place = Path(build_py.get_package_dir(package)) / Path(filename).name
            for path in (Path(self.build_lib) / filename, in_place):
                if path.exists():
                    path.unlink()


def ext_modules(argv: list[str], env: dict[str, str]) -> list[Any]:
    """Return the mypyc extensions to build, or [] for a pure build (saying why on stderr)."""
    if not BUILDING & set(argv):
        return []
    wanted, why_not = compile_decision(argv, env)
    if not wanted:
        if EDITABLE & set(argv):
            remove_compiled_files(HERE)
        say(f"pure Python build: {why_not}")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        say(f"pure Python build: mypyc cannot be imported ({exc})")
        return []
    if "group_name" not in inspect.signature(mypycify).parameters:
        say("pure Python build: this mypyc is too old (no group_name; pip install -U mypy)")
        return []
    os.chdir(HERE)  # mypycify takes paths from the project root and reads its mypy config
    say(f"compiled build: mypyc compiles {', '.join(Path(p).stem for p in COMPILED)}")
    try:
        return list(mypycify(COMPILED, group_name=GROUP))
    except (Exception, SystemExit) as exc:  # mypyc's type check failed (it exits on errors)
        if env.get("BURACO_COMPILE") == "1":
            raise  # asked for explicitly (CI): a type error must fail, not pass as a pure build
        say(f"pure Python build: mypyc failed ({type(exc).__name__}: {exc}); pip install -v . shows why")
        return []


if __name__ == "__main__":  # setuptools' build backend runs this file as __main__; tests import it
    setup(ext_modules=ext_modules(sys.argv, dict(os.environ)), cmdclass={"build_ext": BuildExtOrPure})
