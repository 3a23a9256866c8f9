"""Shared fixtures: seeded games played by uniformly random legal actions through the engine, and
the system Chromium driven by Playwright for the browser tests (never Playwright's own download)."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

# a loaded CI machine must not turn a slow example into a failure: no per-example deadline
settings.register_profile("buraco", deadline=None, print_blob=True)
settings.load_profile("buraco")

os.environ.setdefault("COLUMNS", "120")
os.environ.setdefault("NO_COLOR", "1")
os.environ.pop("FORCE_COLOR", None)
os.environ.pop("PY_COLORS", None)

from buraco_events.core.choices import Action  # noqa: E402
from buraco_events.core.seeds import SharedStream  # noqa: E402
from buraco_events.core.table import Table  # noqa: E402
from buraco_events.model.events import Event, GameStarted  # noqa: E402
from buraco_events.model.rules import Rules  # noqa: E402
from buraco_events.views.projections import View  # noqa: E402


class _RandomPlayer:
    """Uniformly random legal actions, a meld or a lay-off preferred 4 times in 5 when any."""

    name = "p"

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        """Return a random action (a meld or lay-off with probability 0.8 when any is offered)."""
        plays = [a for a in actions if a.kind in ("meld", "add")]
        return rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(actions)


def random_game(variant: str = "stbl", n_players: int = 2, seed: int = 0, target: int | None = None,
                max_events: int = 20000) -> list[Event]:
    """Play a whole game with uniformly random legal actions (plays preferred) and return its events.

    One rng deals and chooses (`seeds.SharedStream`), and forced moves draw from it too.
    """
    start = GameStarted(
        seq=0, game_id=f"test-{variant}-{n_players}p-{seed}", variant=variant,
        players=tuple(f"p{i}" for i in range(n_players)), target=target,
    )
    events: list[Event] = []
    player = _RandomPlayer()
    table = Table([player] * n_players, SharedStream(random.Random(seed)), events.append, ask_forced=True)
    table.append(start)
    while not table.over and len(events) < max_events:
        table.step()
    return events


#: the environment variable naming the optional stages whose tests must run (comma-separated
#: markers: browser, spark, rl), as `.ci/run` sets it for each of those stages
REQUIRE = "BURACO_REQUIRE"


def required_stages() -> set[str]:
    """Return the markers whose tests may not skip in this run (`BURACO_REQUIRE`)."""
    return {m.strip() for m in os.environ.get(REQUIRE, "").split(",") if m.strip()}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """Under `BURACO_REQUIRE`, a test of a required stage that skips (no chromium, no Java, no
    extra installed) fails instead, saying why it would have skipped: a stage passes only by
    running its tests."""
    outcome = yield
    report = outcome.get_result()
    needed = required_stages() & {m.name for m in item.iter_markers()}
    if report.skipped and needed and not hasattr(report, "wasxfail"):
        why = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = (f"{REQUIRE}={os.environ[REQUIRE]}: this {'/'.join(sorted(needed))} test may not"
                           f" skip, and it would have: {why}")


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--update-golden`: the one way to rewrite the golden files (digests, recounts, screens)
    from today's outputs; review the diff before committing it. No environment variable does
    it, so a variable left in a shell never turns a golden test into a comparison with itself."""
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden files from today's outputs (review the diff)")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """Return whether this run rewrites the golden files (`--update-golden`)."""
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture
def game_factory():
    """Return `random_game`, for tests that need whole legal games."""
    return random_game


#: the Chromium the browser tests drive: Debian's, or BURACO_CHROMIUM's
CHROMIUM = os.environ.get("BURACO_CHROMIUM", "/usr/bin/chromium")
#: nothing a test page does may reach a network, and Chromium itself stays off it
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module; the module is skipped without Playwright or Chromium."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[browser]')")
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)) and not shutil.which(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set BURACO_CHROMIUM)")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()
