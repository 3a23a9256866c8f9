"""`replay`, `share` and the audit page on a branch and beside a rulings log.

A branch is named "branch of GAME at seq N (by BY: REASON)" on every screen and in every step's
JSON (`branch`); the rulings of a game's rulings log are shown at their hands (the screen of a
hand's end lists the rulings on that hand, and only those), the last screen lists them all and
the standings after rulings apart from the recount. Text of the log or the rulings log (`by`,
`reason`) is shown escaped: bidi controls as `\\u202e`, markup as its characters.
"""

from __future__ import annotations

import hashlib
import html
import json
import shutil

import pytest
from typer.testing import CliRunner

from buraco_events.audit.rulings import RulingRequest, append_ruling, new_ruling
from buraco_events.bots.registry import run_game, table_bots
from buraco_events.log.writer import write_log
from buraco_events.model.events import Branched, HandEnded, branch_words
from buraco_events.play.branch import make_branch
from buraco_events.views.projections import Timeline
from buraco_events.views.replays import load
from buraco_events.views.share import decode_steps, page_data
from cli.main import app

runner = CliRunner()

#: hostile text in a branch's `by` and `reason`, and in a ruling's
BRANCH_BY = "ref\u202e<script>alert(1)</script>"
BRANCH_REASON = "[bold]what if[/bold] the 7H"
RULING_BY = "judge [red]x[/red]"
RULING_REASON = "late <img src=x onerror=alert(1)> \u202eoops"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A two-hand game `g.jsonl`, its rulings log, and two branches of it: `b.jsonl` forked at
    seq 5 and played to the game's end, `late.jsonl` forked 6 events before the first hand's end
    and played to that hand's end (a short one)."""
    d = tmp_path_factory.mktemp("branches")
    events, state = run_game("stbl", 2, 3, table_bots(["greedy", "random"]), "g-multi", target=1500, commit=True)
    write_log(d / "g.jsonl", events)
    ends = [e for e in events if isinstance(e, HandEnded)]
    assert len(ends) >= 2  # the rulings below rule on hands 0 and 1
    make_branch(d / "g.jsonl", 5, d / "b.jsonl", by=BRANCH_BY, reason=BRANCH_REASON, seed="s3cr3t-seed",
                bots=["random"], until="game")
    make_branch(d / "g.jsonl", ends[0].seq - 6, d / "late.jsonl", by="ref", reason="short", seed="1",
                bots=["random"], until="hand")
    for request in (
        RulingRequest("score_adjusted", RULING_BY, RULING_REASON, hand=0, points=[50, -50]),
        RulingRequest("hand_voided", "ref2", "misdeal", hand=1),
        RulingRequest("warning", "ref3", "slow play"),
        RulingRequest("withdrawn", "ref3", "warning made in error", ruling_seq=2),
    ):
        ruling, path = new_ruling(d / "g.jsonl", request)
        append_ruling(path, ruling)
    return d


@pytest.fixture(scope="module")
def game(folder):
    return load(folder / "g.jsonl").events


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def ok(*args: object) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


# -- the branch on every screen ---------------------------------------------------------------


@pytest.mark.slow
def test_every_screen_of_a_short_branch_names_it(folder, game):
    log = folder / "late.jsonl"
    tl = Timeline(load(log).events)
    fork = next(e for e in tl.events if isinstance(e, Branched))
    assert fork.fork_seq == next(e.seq for e in game if isinstance(e, HandEnded)) - 6
    label = f"branch of g-multi at seq {fork.fork_seq} (by ref: short)"
    assert branch_words("g-multi", fork) == f"branch of g-multi at seq {fork.fork_seq}"
    for seq in range(tl.last + 1):
        screen = ok("replay", log, "--static", "--at", seq, "--as", seq % 2 if seq % 3 else "0")
        lines = screen.splitlines()
        assert lines[1].startswith(label), (seq, lines[:3])  # right under the header
        side = "after the fork" if seq > fork.fork_seq else "before the fork"
        assert side in lines[1] or side in lines[2], (seq, lines[:3])
        # `replay --json` prints exactly this object (checked through the CLI at a few seqs below)
        doc = tl.replay_object(seq, None, sealed=True, error=None)
        assert doc["branch"] == {
            "words": f"branch of g-multi at seq {fork.fork_seq}", "parent": "g-multi",
            "fork_seq": fork.fork_seq, "deck": "parent", "seat": None, "by": "ref", "reason": "short",
            "after_fork": seq > fork.fork_seq,
        }
    for seq in (0, fork.fork_seq, fork.fork_seq + 1, tl.last):
        want = json.loads(json.dumps(tl.replay_object(seq, None, sealed=True, error=None)))
        assert json.loads(ok("replay", log, "--json", "--at", seq)) == want
    # the branched line itself, told in words
    told = ok("replay", log, "--static", "--at", fork.fork_seq + 1)
    assert f"seq {fork.fork_seq + 1}: branch of g-multi at seq {fork.fork_seq}: from here on a hypothesis" in told


@pytest.mark.slow
def test_the_game_itself_is_never_called_a_branch(folder, game):
    for seq in (0, 5, len(game) - 1):
        assert json.loads(ok("replay", folder / "g.jsonl", "--json", "--at", seq))["branch"] is None
        assert "branch of" not in ok("replay", folder / "g.jsonl", "--static", "--at", seq)


def test_a_branch_s_hostile_by_and_reason_are_shown_escaped(folder):
    screen = ok("replay", folder / "b.jsonl", "--static", "--at", 2)
    flat = screen.replace("\n", "")
    assert "\u202e" not in screen
    # rich prints the markup-like text as it is: never eaten as a style
    assert "by ref\\u202e<script>alert(1)</script>: [bold]what if[/bold] the 7H)" in flat
    doc = json.loads(ok("replay", folder / "b.jsonl", "--json", "--at", 2))
    assert doc["branch"]["by"] == BRANCH_BY and doc["branch"]["reason"] == BRANCH_REASON  # JSON stays exact


# -- rulings at their hands -----------------------------------------------------------------------


def _hand_end_seqs(game) -> list[int]:
    return [e.seq for e in game if isinstance(e, HandEnded)]


def _hand_scores(game) -> list[list[int]]:
    return [list(e.scores) for e in game if isinstance(e, HandEnded)]


def test_a_hand_s_end_lists_the_rulings_on_that_hand_only(folder, game):
    end0, end1 = _hand_end_seqs(game)[:2]
    at0 = ok("replay", folder / "g.jsonl", "--static", "--at", end0).replace("\n", "")
    assert "rulings on hand 1 (from" in at0
    assert "ruling 0: score_adjusted +50 / -50 on hand 1" in at0
    assert "(by judge [red]x[/red]: late <img src=x onerror=alert(1)> \\u202eoops) · applies" in at0
    assert "ruling 1" not in at0 and "ruling 2" not in at0
    at1 = ok("replay", folder / "g.jsonl", "--static", "--at", end1).replace("\n", "")
    assert "rulings on hand 2" in at1 and "ruling 1: hand_voided: hand 2 counts 0 for both teams" in at1
    assert "ruling 0:" not in at1
    # in the middle of a hand, no ruling is shown (its hand has not ended)
    assert "ruling" not in ok("replay", folder / "g.jsonl", "--static", "--at", end0 - 3)


def test_the_last_screen_shows_every_ruling_and_the_standings_after_them_apart(folder, game):
    scores = _hand_scores(game)
    recount = [sum(s[t] for s in scores) for t in (0, 1)]
    # by hand: hand 0 gets +50 / -50, hand 1 counts 0, the warning is withdrawn
    after = [scores[0][0] + 50 + sum(s[0] for s in scores[2:]), scores[0][1] - 50 + sum(s[1] for s in scores[2:])]
    screen = ok("replay", folder / "g.jsonl", "--static").replace("\n", "")
    assert "4, 3 apply" in screen
    assert "ruling 2: warning (by ref3: slow play) · does not apply: withdrawn by ruling 3" in screen
    assert "ruling 3: withdrawn: cancels ruling 2" in screen
    assert f"recount (the log's events): totals {recount[0]} / {recount[1]}" in screen
    assert f"after rulings (apart from the recount): totals {after[0]} / {after[1]}" in screen
    doc = json.loads(ok("replay", folder / "g.jsonl", "--json"))
    assert doc["rulings"]["recount"]["totals"] == recount and doc["rulings"]["after"]["totals"] == after
    assert doc["scores"] == recount  # the table's own totals stay the recount


def test_rulings_option_names_another_rulings_log(folder, tmp_path):
    log = tmp_path / "g.jsonl"
    shutil.copy(folder / "g.jsonl", log)
    assert json.loads(ok("replay", log, "--json"))["rulings"] is None  # none beside this copy
    other = tmp_path / "elsewhere.jsonl"
    shutil.copy(folder / "g.rulings.jsonl", other)
    doc = json.loads(ok("replay", log, "--json", "--rulings", other))
    assert len(doc["rulings"]["rulings"]) == 4 and doc["rulings"]["path"] == str(other)
    for missing in (tmp_path / "nope.jsonl", tmp_path):
        result = run("replay", log, "--json", "--rulings", missing)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "--rulings" in result.stderr
        assert "Traceback" not in result.stderr


# -- the share page ------------------------------------------------------------------------------


def test_a_branch_s_share_page_names_it_at_every_step(folder, tmp_path):
    page = tmp_path / "b.html"
    out = ok("share", folder / "b.jsonl", "-o", page)
    assert "branch of g-multi at seq 5" in out
    text = page.read_text()
    steps = decode_steps(page_data(text))
    assert all(s["branch"]["words"] == "branch of g-multi at seq 5" for s in steps)
    assert [s["branch"]["after_fork"] for s in steps] == [s["seq"] > 5 for s in steps]
    # the banner sits in the controls, which stay on screen at every step; its text is escaped
    nav = text[text.index('<nav id="controls"'):text.index("</nav>")]
    assert "id=branch-banner" in nav and "<b>branch of g-multi at seq 5</b>" in nav
    assert "(by ref\\u202e&lt;script&gt;alert(1)&lt;/script&gt;: [bold]what if[/bold] the 7H)" in nav
    assert "<script>alert" not in text
    assert "s3cr3t-seed" not in text  # a seed could deal a seat the hidden cards: never on a page
    title = text[text.index("<title>"):text.index("</title>")]
    assert "branch of g-multi at seq 5" in title


def test_the_share_page_carries_the_rulings_at_their_hands(folder, game, tmp_path):
    page = tmp_path / "g.html"
    out = ok("share", folder / "g.jsonl", "-o", page, "--as", 1)
    assert "rulings: " in out and "4, 3 apply" in out
    text = page.read_text()
    data = page_data(text)
    steps = decode_steps(data)
    rulings = steps[0]["rulings"]
    assert all(s["rulings"] == rulings for s in steps)
    assert rulings["path"] == "g.rulings.jsonl"  # no folders on a page
    assert [r["hand"] for r in rulings["rulings"]] == [0, 1, None, None]
    assert rulings["rulings"][0]["reason"] == RULING_REASON
    last = (folder / "g.rulings.jsonl").read_bytes().split(b"\n")[-2]
    assert data["rulings_head"] == hashlib.sha256(last).hexdigest()
    assert "Not verified by this page" in text and data["rulings_head"] in text
    assert "<img src=x" not in text  # only ever as data, escaped in the JSON
    # each step is still `replay --json` of that seq, the rulings log named without folders
    doc = json.loads(ok("replay", folder / "g.jsonl", "--json", "--as", 1, "--at", 100))
    doc["rulings"]["path"] = "g.rulings.jsonl"
    assert steps[100] == doc


def test_the_audit_page_shows_the_rulings_table_and_the_standings_apart(folder, game, tmp_path):
    page = tmp_path / "a.html"
    result = run("audit", folder / "g.jsonl", "--html", page)
    assert result.exit_code == 0, result.stderr
    text = page.read_text()
    section = text[text.index("<section id=rulings-report>"):]
    section = section[:section.index("</section>")]
    assert html.escape("judge [red]x[/red]") in section
    assert "late &lt;img src=x onerror=alert(1)&gt; \\u202eoops" in section and "\u202e" not in section
    scores = _hand_scores(game)
    recount = [sum(s[t] for s in scores) for t in (0, 1)]
    after = [scores[0][0] + 50 + sum(s[0] for s in scores[2:]), scores[0][1] - 50 + sum(s[1] for s in scores[2:])]
    assert f"<td>recount (the log's events)</td><td>{recount[0]}</td><td>{recount[1]}</td>" in section
    assert f"<td>after rulings (apart from the recount)</td><td>{after[0]}</td><td>{after[1]}</td>" in section
    assert "does not apply: withdrawn by ruling 3" in section
    # the verdict is the log's alone
    assert "id=verdict>PASS</span>" in text

    branch_page = tmp_path / "b.html"
    assert run("audit", folder / "b.jsonl", "--html", branch_page).exit_code == 0
    title = branch_page.read_text().split("<title>")[1].split("</title>")[0]
    assert "branch of g-multi at seq 5" in title


def test_a_rulings_log_that_stops_is_shown_to_there_with_exit_1(folder, tmp_path):
    log = tmp_path / "g.jsonl"
    shutil.copy(folder / "g.jsonl", log)
    rulings = tmp_path / "g.rulings.jsonl"
    rulings.write_bytes((folder / "g.rulings.jsonl").read_bytes() + b'{"seq": 4, "type": "ruling"}\n')
    result = run("replay", log, "--static")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "line 5" in result.stderr and "Traceback" not in result.stderr
    screen = result.stdout.replace("\n", "")
    assert "ruling 3: withdrawn" in screen and "the rulings log stops" in screen
    result = run("share", log, "-o", tmp_path / "g.html")
    assert result.exit_code == 1 and "line 5" in result.stderr and (tmp_path / "g.html").exists()
