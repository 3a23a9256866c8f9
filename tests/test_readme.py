"""The README's tour runs as printed, line by line in a shell (rules in `readme_tour`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import readme_tour as rt


def readme_commands() -> list[rt.Command]:
    """Return the tour's commands from the README."""
    return rt.tour(rt.README.read_text(encoding="utf-8").split("\n"))


def test_every_tour_line_parses_as_shell_when_pasted():
    # the README once had `buraco sql SELECT count(*) ...`: bash stops at the parenthesis
    commands = readme_commands()
    assert len(commands) >= 15 and commands[0].shell.startswith("cp ")
    for c in commands:
        done = subprocess.run(["bash", "-n", "-c", c.shell], capture_output=True, text=True)
        assert done.returncode == 0, (c.shell, done.stderr)


@pytest.mark.slow
def test_the_readme_tour_prints_what_the_readme_shows(tmp_path: Path):
    commands = readme_commands()
    runs = rt.run_tour(commands, tmp_path)
    drift = [rt.difference(c, r) for c, r in zip(commands, runs, strict=True) if not rt.matches(c, r)]
    assert not drift, "\n\n".join(drift) + "\n\n(`python tests/readme_tour.py --update` rewrites them)"


TOY = """# toy

## Tour

```
$ printf 'one\\ntwo\\nthree\\nfour\\n'
one
…
four
```

```
$ printf '  done in 1.25 s  \\n'; exit 3
done in 9.99 s
(exit 3)
```

```
you may: draw
> $ not a command: no `$ ` at the start of a line in this block
```

## After
```
$ false
```
"""


def test_gaps_masks_and_exit_status_by_the_rules(tmp_path: Path):
    commands = rt.tour(TOY.split("\n"))
    assert [c.shell for c in commands] == [
        "printf 'one\\ntwo\\nthree\\nfour\\n'", "printf '  done in 1.25 s  \\n'; exit 3"]
    assert [c.status for c in commands] == [0, 3]
    runs = rt.run_tour(commands, tmp_path)
    assert all(rt.matches(c, r) for c, r in zip(commands, runs, strict=True))
    # a run that differs outside the masks, or in its exit status, does not match
    assert not rt.matches(commands[0], rt.Run(["one", "two", "five"], 0))
    assert not rt.matches(commands[0], rt.Run(["one", "four"], 1))
    assert not rt.matches(commands[1], rt.Run(["done in 1.25 s"], 0))
    assert rt.matches(commands[1], rt.Run(["done in 123.5 s"], 3))


def test_update_rewrites_only_what_drifted_and_keeps_gaps(tmp_path: Path):
    drifted = TOY.replace("one\n…\nfour", "one\n… (the middle)\nfive").replace(
        "(exit 3)", "(exit 0)")
    readme = tmp_path / "README.md"
    readme.write_text(drifted, encoding="utf-8")
    changed = rt.update(readme)
    assert changed == ["printf 'one\\ntwo\\nthree\\nfour\\n'",
                       "printf '  done in 1.25 s  \\n'; exit 3"]
    text = readme.read_text(encoding="utf-8")
    assert "one\n… (the middle)\nfour\n```" in text
    # the masked timing of the second command keeps its run's value; its status is the real one
    assert "\n  done in 1.25 s  \n(exit 3)\n```" in text
    assert text.endswith("## After\n```\n$ false\n```\n")
    assert rt.update(readme) == []  # a second update finds nothing to change


def test_update_places_a_middle_excerpt_where_its_first_line_now_is():
    command = rt.tour("## Tour\n```\n$ x\nhead\n…\nhand 1\n  total 5\n…\nend\n```".split("\n"))[0]
    run = rt.Run(["head", "hand 0", "  total 3", "hand 1", "  total 7", "hand 2", "end"], 0)
    assert not rt.matches(command, run)
    assert rt.rewritten(command, run) == ["head", "…", "hand 1", "  total 7", "…", "end"]
