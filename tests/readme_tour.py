"""The README's tour, run as a shell would: parsed, run, compared, and rewritten from a real run.

`tests/test_readme.py` runs it and fails on any drift; `python tests/readme_tour.py --update`
rewrites the README's outputs that drifted from a real run (other lines stay as they are).

The rules the README follows:

- The tour is the README from its `## Tour` heading to the next `## ` heading. Its commands are
  the lines starting with `$ ` inside its ``` blocks (a block without one, such as the transcript
  of interactive play, is not run: nothing interactive or needing a terminal is a `$ ` line).
- Each command runs with bash, in order, in one empty folder (later lines use earlier outputs),
  stdout and stderr together as a terminal shows them, with COLUMNS=100, NO_COLOR=1, PYTHONPATH
  and REPO set to the repository, and `buraco` on the PATH running this repository's CLI. The
  tour's setup is its own first line, which copies the disputed logs it audits from `$REPO/data`.
- A command's expected output is the block's lines after it, up to the next `$ ` line or the
  block's end, trailing blank lines left out.
- A last line `(exit N)` expects exit status N; without one the status must be 0.
- A line whose first non-blank character is `…` stands for any number of output lines (text after
  the `…` is a comment). The lines before the first `…` start the output, the lines after the last
  one end it, and the lines between two `…` appear in between, in order.
- Before comparing, both sides are masked (`MASKS`: run-dependent timings and rates) and each line
  has its runs of spaces and of table rules collapsed to one and its ends stripped: a masked value
  of another width changes a table's column widths, never its content.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
GAP = "…"
EXIT = re.compile(r"^\(exit (\d+)\)$")
#: run-dependent values, masked on both sides: (pattern, replacement)
MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\d+(?:\.\d+)? s\b"), "<time> s"),  # elapsed: 1.77 s
    (re.compile(r"(/s\b[\s│┃|]*)\d[\d,.]*"), r"\1<rate>"),  # hands/s │ 113.2
)
_SPACES = re.compile(r" {2,}")
_RULES = re.compile(r"([━─═])\1+")
#: seconds one command may take (the simulation of 200 games is the longest)
TIMEOUT = 600


@dataclass
class Command:
    """One `$ ` line of the tour and the output the README shows for it."""

    line: int  # index of the `$ ` line in the README's lines
    shell: str  # the command, without `$ `
    expected: list[str]  # the output lines shown (exit line included), up to `end`
    end: int  # index just past the shown output (trailing blank lines excluded)

    @property
    def status(self) -> int:
        """Return the exit status the README shows (0 when no `(exit N)` line)."""
        m = EXIT.match(self.expected[-1]) if self.expected else None
        return int(m.group(1)) if m else 0

    @property
    def shown(self) -> list[str]:
        """Return the output lines without the `(exit N)` line."""
        return self.expected[:-1] if self.expected and EXIT.match(self.expected[-1]) else self.expected


@dataclass
class Run:
    """What a command printed (stdout and stderr together) and its exit status."""

    output: list[str]
    status: int


def tour(lines: list[str]) -> list[Command]:
    """Return the tour's commands, in order, from the README's lines."""
    start = next(i for i, ln in enumerate(lines) if ln.strip() == "## Tour")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    commands: list[Command] = []
    in_block = False
    current: Command | None = None
    for i in range(start, end):
        ln = lines[i]
        if ln.startswith("```"):
            in_block = not in_block
            current = None
            continue
        if not in_block:
            continue
        if ln.startswith("$ "):
            current = Command(i, ln[2:], [], i + 1)
            commands.append(current)
        elif current is not None:
            current.expected.append(ln)
            if ln.strip():
                current.end = i + 1
    for c in commands:
        c.expected = c.expected[: c.end - c.line - 1]
    return commands


def normal(line: str) -> str:
    """Return a line masked (run-dependent values) and with its widths collapsed."""
    for pattern, replacement in MASKS:
        line = pattern.sub(replacement, line)
    return _RULES.sub(r"\1", _SPACES.sub(" ", line)).strip()


def is_gap(line: str) -> bool:
    """Return whether a README line stands for left-out output."""
    return line.lstrip().startswith(GAP)


def segments(shown: list[str]) -> list[list[str]]:
    """Return the runs of shown lines between `…` lines (one more than there are `…` lines)."""
    out: list[list[str]] = [[]]
    for ln in shown:
        if is_gap(ln):
            out.append([])
        else:
            out[-1].append(ln)
    return out


def placed(command: Command, output: list[str]) -> list[int] | None:
    """Return where each segment of the README's output starts in a run's output (masked,
    widths collapsed), or None when the output does not hold them as shown."""
    parts = [[normal(ln) for ln in seg] for seg in segments(command.shown)]
    got = [normal(ln) for ln in output]
    if len(parts) == 1:
        return [0] if got == parts[0] else None
    first, *middle, last = parts
    if got[: len(first)] != first:
        return None
    starts, at = [0], len(first)
    for seg in middle:
        found = next((i for i in range(at, len(got) - len(seg) + 1) if got[i: i + len(seg)] == seg),
                     None)
        if found is None:
            return None
        starts.append(found)
        at = found + len(seg)
    end = len(got) - len(last)
    if end < at or got[end:] != last:
        return None
    return [*starts, end]


def matches(command: Command, run: Run) -> bool:
    """Return whether a run printed what the README shows (masked, widths collapsed)."""
    return run.status == command.status and placed(command, run.output) is not None


def difference(command: Command, run: Run) -> str:
    """Return a readable diff of what the README shows and what the command printed."""
    want = [normal(ln) for ln in command.expected]
    got = [normal(ln) for ln in run.output] + ([f"(exit {run.status})"] if run.status else [])
    diff = difflib.unified_diff(want, got, "README", "run", lineterm="", n=2)
    return f"$ {command.shell}  (README line {command.line + 1})\n" + "\n".join(diff)


def environment(bin_dir: Path) -> dict[str, str]:
    """Return the environment of the tour's shell: this repository's `buraco`, width 100."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS")}
    env.update(
        COLUMNS="100", NO_COLOR="1", PYTHONPATH=str(REPO), REPO=str(REPO), PYTHONUNBUFFERED="1",
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
    )
    return env


def run_tour(commands: list[Command], folder: Path) -> list[Run]:
    """Run every command in `folder` (empty), in order; return what each printed."""
    bin_dir = folder / ".bin"
    bin_dir.mkdir()
    script = bin_dir / "buraco"  # this repository's CLI, with this interpreter
    script.write_text(f"#!{sys.executable}\nfrom cli.main import main\n\nmain()\n")
    script.chmod(0o755)
    env = environment(bin_dir)
    runs = []
    for c in commands:
        done = subprocess.run(["bash", "-c", c.shell], cwd=folder, env=env, timeout=TIMEOUT,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        output = done.stdout.decode("utf-8", "replace").split("\n")
        while output and not output[-1].strip():
            output.pop()
        runs.append(Run(output, done.returncode))
    return runs


def rewritten(command: Command, run: Run) -> list[str]:
    """Return the README lines for a command's output from a real run, keeping its `…` lines and
    its `(exit N)` line: as many lines as before start and end the output, and each run between
    two `…` is taken where its first line now appears (all the output when one does not)."""
    parts = segments(command.shown)
    gaps = [ln for ln in command.shown if is_gap(ln)]
    output = run.output
    if gaps:
        first, *middle, last = parts
        lines, at = output[: len(first)], len(first)
        for gap, seg in zip(gaps, middle, strict=False):
            key = normal(seg[0]) if seg else None
            found = next((i for i in range(at, len(output)) if normal(output[i]) == key), None)
            if found is None:
                lines = output  # the excerpt no longer fits: all of it, to be trimmed by hand
                break
            lines += [gap, *output[found: found + len(seg)]]
            at = found + len(seg)
        else:
            tail = output[max(at, len(output) - len(last)):] if last else []
            lines += [gaps[-1], *tail]
        output = lines
    if run.status or len(command.shown) != len(command.expected):
        output = [*output, f"(exit {run.status})"]
    return output


def update(readme: Path = README) -> list[str]:
    """Rewrite the README's tour outputs that differ from a real run; return their commands."""
    lines = readme.read_text(encoding="utf-8").split("\n")
    commands = tour(lines)
    with tempfile.TemporaryDirectory(prefix="readme-tour-") as tmp:
        runs = run_tour(commands, Path(tmp))
    changed = []
    for c, r in reversed(list(zip(commands, runs, strict=True))):  # from the end: indices hold
        if not matches(c, r):
            lines[c.line + 1: c.end] = rewritten(c, r)
            changed.append(c.shell)
    if changed:
        readme.write_text("\n".join(lines), encoding="utf-8")
    return changed[::-1]


def main() -> None:
    """Run the tour and report drift, or rewrite the README from a real run (`--update`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true",
                        help="rewrite the README's outputs that drifted from a real run")
    args = parser.parse_args()
    if args.update:
        for shell in update():
            print(f"updated: $ {shell}")
        return
    commands = tour(README.read_text(encoding="utf-8").split("\n"))
    with tempfile.TemporaryDirectory(prefix="readme-tour-") as tmp:
        runs = run_tour(commands, Path(tmp))
    drift = [difference(c, r) for c, r in zip(commands, runs, strict=True) if not matches(c, r)]
    print("\n\n".join(drift) or f"the README's tour holds ({len(commands)} commands)")
    sys.exit(1 if drift else 0)


if __name__ == "__main__":
    main()
