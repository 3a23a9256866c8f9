"""Build script: the compiled build of buraco-events (the pure core modules compiled by mypyc).

Everything declarative lives in pyproject.toml; this file only decides whether to compile:

- a normal build (`pip install .`, a wheel) compiles `COMPILED` with mypyc;
- an editable build (`pip install -e .`) stays pure Python, since compiled files beside the sources
  would shadow a developer's edits, unless `BURACO_COMPILE=1`; a pure editable build removes such
  files left by an earlier compiled one;
- `BURACO_COMPILE=0` forces pure Python, `BURACO_COMPILE=1` forces compiling;
- without mypyc, or when the C compiler fails, the build falls back to pure Python and says why
  in one line on stderr.

Which modules compile: the pure code that defines no msgspec Struct (mypyc drops Struct options
such as frozen and kw_only in compiled modules) and does no I/O (mypyc once evaluated the bounds
of `view[os.write(fd, view):]` twice, writing log lines twice). That is every module of `core`
(the rules as code: they call one another directly inside the one shared library; the seat view
`core/seatview` among them, which `projections.player_view` is) but `infoset` and `commit`, which
run once per deal or per analysed decision through the standard library's samplers and hashes,
and two modules kept apart from their package's Structs and files so that they compile with the
engine they call: `audit/auditcore` (the audit's step for its regular lines) and `analytics/rows`
(the index's rows from the replay). `model` and
`views/projections` define Structs; `log`, `audit`, `analytics` and `play` do I/O or run
processes; `analytics/schema`, the tables' declaration read at import, runs nothing per event:
they all stay Python.

The compile uses every core: mypyc writes one C file per module (its multi-file output) and
`BuildExtOrPure` compiles them `build_jobs` at a time into the one shared library. Cut into
files, the library runs the same instructions as one C unit would (self-play and the audit
within 0.1%, measured with callgrind), and compiles in a third of the time on 2 cores.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
#: the modules mypyc compiles, as paths from the project root
COMPILED = [
    f"buraco_events/{name}.py"
    for name in (
        "core/cards",
        "core/melds",
        "core/clubkinds",
        "core/hand_melds",
        "core/fits",
        "core/lookahead",
        "core/state",
        "core/gate",
        "core/plays",
        "core/closing",
        "core/deads",
        "core/turn",
        "core/playcheck",
        "core/deal",
        "core/sheets",
        "core/engine",
        "core/moves",
        "core/seatview",
        "core/table",
        "core/choices",
        "core/seeds",
        "bots/registry",
        "bots/greedy",
        "bots/rating",
        "audit/auditcore",
        "analytics/rows",
    )
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
    group = root / "buraco_events" / (GROUP.rpartition(".")[2] + "__mypyc")
    modules = [root / Path(p).with_suffix("") for p in COMPILED] + [group]
    return [f for m in modules for suffix in ("so", "pyd") for f in m.parent.glob(f"{m.name}.*.{suffix}")]


def remove_compiled_files(root: Path) -> None:
    """Remove compiled files beside the sources under `root`, so their pure Python runs."""
    for f in compiled_files(root):
        f.unlink()
        say(f"removed {f.relative_to(root)} (left by an earlier compiled build)")


#: compile flags of the shared library: its functions hidden from the dynamic linker, so that
#: the compiled modules call one another (and mypyc's runtime helpers) directly, not through
#: the PLT. The modules' init functions stay visible (Python declares them so); gcc and clang
#: take it.
HIDDEN = ["-fvisibility=hidden"]


def add_hidden(extensions: list[Any], compiler_type: str) -> None:
    """Add `HIDDEN` to each extension's compile flags for a unix compiler (gcc, clang), not MSVC."""
    if compiler_type != "unix":
        return
    for ext in extensions:
        ext.extra_compile_args = ext.extra_compile_args + [f for f in HIDDEN if f not in ext.extra_compile_args]


def build_jobs(env: dict[str, str]) -> int:
    """Return how many C compilers run at once: `BURACO_BUILD_JOBS`, else one per usable core."""
    asked = env.get("BURACO_BUILD_JOBS", "")
    if asked.isdigit() and int(asked) > 0:
        return int(asked)
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    return max(1, len(cores) if cores else (os.cpu_count() or 1))


def parallel_compile(compile_one: Callable[..., list[str]], jobs: int) -> Callable[..., list[str]]:
    """Return a `CCompiler.compile` that compiles each source apart, `jobs` at a time.

    mypyc's multi-file output is one C file per module plus its runtime's files, all linked into
    one shared library; distutils compiles an extension's sources one after another. Each source
    goes to the same public `compile` on its own (its object's path depends on the source alone),
    the largest first so that the last to finish is short, and the objects come back in the
    sources' order, as the linker expects them.
    """

    def compile_all(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
        if jobs < 2 or len(sources) < 2:
            return compile_one(sources, *args, **kwargs)
        largest_first = sorted(range(len(sources)), key=lambda i: -os.path.getsize(sources[i]))
        with ThreadPoolExecutor(jobs) as pool:
            done = dict(zip(largest_first, pool.map(lambda i: compile_one([sources[i]], *args, **kwargs), largest_first), strict=True))
        return [obj for i in range(len(sources)) for obj in done[i]]

    return compile_all


class BuildExtOrPure(build_ext):
    """build_ext that compiles on every core and falls back to pure Python when the C compiler fails.

    The compiled modules only work together (each module's stub imports the shared library), so
    a failure removes whatever this build made and leaves the pure Python sources alone.
    """

    def build_extensions(self) -> None:
        """Build them with `HIDDEN` added where the compiler takes such flags, on every core.

        The shared library's sources compile `build_jobs` at a time; then the modules' stubs (one
        small C file each) build as many at a time.
        """
        add_hidden(self.extensions, self.compiler.compiler_type)
        self.check_extensions_list(self.extensions)
        jobs = build_jobs(dict(os.environ))
        self.compiler.compile = parallel_compile(self.compiler.compile, jobs)
        library = [ext for ext in self.extensions if len(ext.sources) > 1]
        stubs = [ext for ext in self.extensions if len(ext.sources) <= 1]
        for ext in library:
            self.build_extension(ext)
        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(self.build_extension, stubs))

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


def add_source_folders(ext: Any) -> None:
    """Add the folders of an extension's C sources to its include path.

    In mypyc's multi-file output each module's C file includes the group's header by its bare
    name, and that header lies beside the group's own C file (`build/buraco_events/`), not in the
    folder mypyc puts on the include path (`build/`).
    """
    for folder in dict.fromkeys(str(Path(source).parent) for source in ext.sources):
        if folder not in ext.include_dirs:
            ext.include_dirs.append(folder)


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
    say(f"compiled build: mypyc compiles {', '.join(p.removeprefix('buraco_events/').removesuffix('.py') for p in COMPILED)}")
    try:
        extensions = list(mypycify(COMPILED, group_name=GROUP, multi_file=True))
    except (Exception, SystemExit) as exc:  # mypyc's type check failed (it exits on errors)
        if env.get("BURACO_COMPILE") == "1":
            raise  # asked for explicitly (CI): a type error must fail, not pass as a pure build
        say(f"pure Python build: mypyc failed ({type(exc).__name__}: {exc}); pip install -v . shows why")
        return []
    for ext in extensions:
        add_source_folders(ext)
    return extensions


if __name__ == "__main__":  # setuptools' build backend runs this file as __main__; tests import it
    setup(ext_modules=ext_modules(sys.argv, dict(os.environ)), cmdclass={"build_ext": BuildExtOrPure})
