"""The optional stages of `.ci/run` (browser, spark, rl) pass only by running their tests: a stage
that collects none fails, and under `BURACO_REQUIRE` (which `.ci/run` sets for each stage) a
test of that stage that would skip (no chromium, no Java, an extra missing) fails instead."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CI = (ROOT / ".ci" / "run").read_text()


def _stage_function() -> str:
    """Return the `stage` shell function of `.ci/run`, as written there."""
    found = re.search(r"^stage\(\) \{.*?^\}$", CI, flags=re.DOTALL | re.MULTILINE)
    assert found is not None, "no stage() function in .ci/run"
    return found.group(0)


@pytest.mark.parametrize(("code", "passes"), [(0, True), (1, False), (5, False)])
def test_a_stage_passes_only_when_pytest_ran_and_passed(tmp_path: Path, code: int, passes: bool) -> None:
    """pytest's exit 5 (no test collected) fails a stage as any failure does; the stage's
    pytest runs with BURACO_REQUIRE naming the stage and -m selecting it."""
    fake = tmp_path / "python3"
    fake.write_text(f'#!/bin/sh\necho "require=$BURACO_REQUIRE args=$*"\nexit {code}\n')
    fake.chmod(0o755)
    script = f"{_stage_function()}\nif stage rl -n 0; then echo STAGE-PASSED; else echo STAGE-FAILED $?; fi\n"
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, check=True).stdout
    assert "require=rl args=-m pytest -m rl -n 0" in out
    assert ("STAGE-PASSED" in out) is passes and ("STAGE-FAILED" in out) is not passes
    if code == 5:
        assert "the rl stage collected no test" in out


def test_every_optional_stage_is_run_through_stage_and_none_tolerates_skips() -> None:
    for marker in ("browser", "spark", "rl"):
        assert re.search(rf"^stage {marker}\b.*\|\| status=1$", CI, flags=re.MULTILINE), marker
    assert "will skip" not in CI and "are skipped" not in CI and "status=0\nfi" not in CI
    assert "apt-get install -y" in CI and "openjdk-17-jre-headless" in CI
    assert 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2"' in CI


def _pytest(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-rs", *args],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, **env}, timeout=300)


@pytest.mark.slow
def test_a_browser_test_that_would_skip_fails_when_the_stage_is_required() -> None:
    args = ["tests/test_share_browser.py", "-m", "browser"]
    env = {"BURACO_CHROMIUM": "/nonexistent/chromium"}
    skipped = _pytest(args, {**env, "BURACO_REQUIRE": ""})
    assert skipped.returncode == 0 and "skipped" in skipped.stdout and "failed" not in skipped.stdout
    required = _pytest(args, {**env, "BURACO_REQUIRE": "browser"})
    assert required.returncode == 1 and "skipped" not in required.stdout.splitlines()[-1], required.stdout[-800:]
    assert "BURACO_REQUIRE=browser: this browser test may not skip" in required.stdout


@pytest.mark.slow
def test_an_rl_module_without_its_extra_fails_when_the_stage_is_required(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    (blocked / "numpy").mkdir(parents=True)
    (blocked / "numpy" / "__init__.py").write_text(  # as if numpy were not installed
        "raise ModuleNotFoundError('numpy is blocked here', name='numpy')\n")
    env = {"PYTHONPATH": os.pathsep.join([str(blocked), os.environ.get("PYTHONPATH", "")])}
    skipped = _pytest(["tests/test_rl.py", "-m", "rl"], {**env, "BURACO_REQUIRE": ""})
    # skipped at collection: nothing runs (pytest's 5, which `stage` fails as it is)
    assert skipped.returncode == 5 and "1 skipped" in skipped.stdout, skipped.stdout[-500:]
    required = _pytest(["tests/test_rl.py", "-m", "rl"], {**env, "BURACO_REQUIRE": "rl"})
    assert required.returncode not in (0, 5) and "numpy is blocked here" in required.stdout
