"""`buraco share` and `audit --html`: the page's data is `replay --json` at every step, a seat's
page holds nothing hidden from it, spoiler-free pages keep the result out, and files are safe."""

from __future__ import annotations

import json
import random
import re
import textwrap
from importlib import resources
from pathlib import Path

import msgspec
import pytest
from helpers import random_game
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.log.archive import pack
from buraco_events.model.events import Drew, HandEnded, StockRefilled, decode_event, seal_lines
from buraco_events.views.projections import Timeline
from buraco_events.views.share import (
    FORMAT,
    ShareDataError,
    decode_steps,
    encode_steps,
    page_data,
    replay_page,
    script_json,
    timeline_steps,
)
from cli.main import app

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data" / "samples"
DISPUTES = ROOT / "data" / "disputes"
runner = CliRunner()


def share(*args: object):
    return runner.invoke(app, ["share", *map(str, args)])


def write_sealed(path: Path, events: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line + b"\n" for line in seal_lines(events)))
    return path


def page_of(log: Path, out: Path, *args: object) -> str:
    result = share(log, "-o", out, *args)
    assert result.exit_code == 0, result.stderr
    return out.read_text("utf-8")


def steps_of(page: str) -> list[dict]:
    return decode_steps(page_data(page))


def replay_line(log: Path, seq: int, seat: int | None, code: int = 0) -> str:
    """Return `buraco replay LOG --at SEQ --json [--as SEAT]` (exit 1 for a log that stops)."""
    args = ["replay", str(log), "--at", str(seq), "--json"]
    if seat is not None:
        args += ["--as", str(seat)]
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def four() -> list:
    """A single hand of 4 players (stbl, closed pile)."""
    return random_game("stbl", 4, 3)


@pytest.fixture(scope="module")
def several() -> list:
    """A 2-player game of several hands (fechado, target 2000)."""
    return random_game("fechado", 2, 0)


# -- the data is `replay --json` ----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("seat", [None, 1])
def test_every_step_is_replay_json_byte_for_byte(tmp_path, four, seat):
    log = write_sealed(tmp_path / "g.jsonl", four)
    args = ("--as", seat) if seat is not None else ()
    steps = steps_of(page_of(log, tmp_path / "g.html", *args))
    assert len(steps) == len(four)
    # every step against the builder of `replay --json` (in process, fast)...
    tl = Timeline(four)
    for seq, step in enumerate(steps):
        want = tl.replay_object(seq, seat, sealed=True, error=None)
        assert msgspec.json.encode(step) == msgspec.json.encode(want), seq
    # ...and against the command itself at a spread of steps (one process each, slower)
    for seq in sorted({0, 1, 2, len(four) - 1, *range(3, len(four), 17)}):
        assert msgspec.json.encode(steps[seq]).decode() + "\n" == replay_line(log, seq, seat), seq


@pytest.mark.slow
def test_a_game_of_several_hands_and_an_archive_member(tmp_path, several):
    write_sealed(tmp_path / "logs" / "long.jsonl", several)
    pack([tmp_path / "logs"], tmp_path / "games.bza")
    log = tmp_path / "games.bza" / "long.jsonl"
    page = page_of(log, tmp_path / "long.html", "--as", "p0", "--at", 40)
    data = page_data(page)
    steps = decode_steps(data)
    assert data["format"] == FORMAT and data["seat"] == 0 and data["at"] == 40
    assert data["source"] == "games.bza/long.jsonl"
    assert data["verify"] == f"buraco audit games.bza/long.jsonl --expect-head {data['head']}"
    tl = Timeline(several)
    assert tl.n_hands > 2
    # the hand starts, their neighbours, the end and a sample between (a call reads the archive)
    seqs = {tl.hand_start(h) + d for h in range(tl.n_hands) for d in (-1, 0, 1)}
    seqs |= set(range(0, len(several), 37)) | {len(several) - 1}
    for seq in sorted(seqs):
        assert json.loads(replay_line(log, seq, 0)) == steps[seq], seq


def test_the_page_shows_the_head_the_game_and_the_check(tmp_path, four):
    log = write_sealed(tmp_path / "g.jsonl", four)
    result = share(log, "-o", tmp_path / "g.html")
    page = (tmp_path / "g.html").read_text()
    head = seal_lines(four)[-1]
    from buraco_events.model.events import line_hash

    want = line_hash(head)
    command = f"buraco audit g.jsonl --expect-head {want}"
    assert page_data(page)["head"] == want
    assert f"<code class=head id=head>{want}</code>" in page
    assert f"<pre id=verify-cmd>{command}</pre>" in page
    assert four[0].game_id in page.split('<script type="application/json"')[0]
    assert command not in result.stdout  # the page names the file; the sharer's line its path


def test_the_page_inlines_the_card_drawing_whole_at_its_mark(tmp_path, four):
    # the cards' one home (share_page/cards.*) is in the page as it is served to the live table
    folder = resources.files("buraco_events.views").joinpath("share_page")
    page = page_of(write_sealed(tmp_path / "g.jsonl", four), tmp_path / "g.html")
    script = page.split("<script>\n", 1)[1]
    style = page.split("<style>", 1)[1].split("</style>", 1)[0]
    assert textwrap.indent(folder.joinpath("cards.js").read_text("utf-8"), "  ") in script
    assert folder.joinpath("cards.css").read_text("utf-8") in style
    assert "function card(c, tag)" in script and ".card.red {" in style
    assert "/*@cards*/" not in page


def test_the_printed_check_works_from_the_folder_where_share_ran(tmp_path, four, monkeypatch):
    import shlex

    monkeypatch.chdir(tmp_path)
    write_sealed(tmp_path / "my logs" / "g.jsonl", four)
    result = share("my logs/g.jsonl", "-o", "g.html")
    assert result.exit_code == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("check: "))
    words = shlex.split(line.removeprefix("check: "))
    assert words[:3] == ["buraco", "audit", "my logs/g.jsonl"]
    check = runner.invoke(app, words[1:])  # as typed there
    assert check.exit_code == 0, check.stdout


def test_a_page_can_be_made_again_byte_for_byte(tmp_path, four):
    # how a reader checks that a page shows a log: make it again from the log and compare
    log = write_sealed(tmp_path / "g.jsonl", four)
    one = page_of(log, tmp_path / "one.html", "--as", 2, "--at", 50, "--spoiler-free")
    assert one == page_of(log, tmp_path / "two.html", "--as", 2, "--at", 50, "--spoiler-free")
    assert one != page_of(log, tmp_path / "three.html", "--as", 2, "--at", 51, "--spoiler-free")


def test_opening_defaults_to_the_first_deal(tmp_path, four):
    log = write_sealed(tmp_path / "g.jsonl", four)
    assert page_data(page_of(log, tmp_path / "a.html"))["at"] == 1
    assert page_data(page_of(log, tmp_path / "b.html", "--at", 77))["at"] == 77


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*-4p-*.jsonl")))
def test_a_4_player_hand_page_is_under_300_kb(tmp_path, name):
    # with the seat's analysis too (the options it keeps do not depend on the samples: 2 will do)
    from buraco_events.analysis.evaluate import analyze

    events = [decode_event(line) for line in (SAMPLES / name).read_bytes().splitlines()]
    analysis = tmp_path / "A.json"
    analysis.write_bytes(msgspec.json.encode(analyze(events, 0, samples=2, seed="1", workers=1)))
    for args in ((), ("--as", "0"), ("--as", "0", "--analysis", analysis)):
        page = page_of(SAMPLES / name, tmp_path / "p.html", "--force", *args)
        assert len(page.encode()) < 300_000, (name, args, len(page.encode()))
        assert ("analysis" in page_data(page)) == ("--analysis" in args)


# -- privacy: a seat's page is made of what it saw --------------------------------------------

def deal_swaps(events: list, seat: int, rng: random.Random, want: int) -> list[list]:
    """Return logs that differ from `events` only in the first deal, by an exchange of two cards
    that `seat` never sees and no event ever names: a card that stays in another seat's hand
    (while the hand is being played), a stock card never drawn, a card of a dead never taken.

    Each exchange leaves every event after the deal as it was; only those the engine still
    accepts are kept (a hand's content may decide what is legal).
    """
    tl = Timeline(events)
    start = tl.hand_start(0)
    deal = events[start]
    states = [tl.state(s) for s in range(start, tl.last + 1)]
    over = any(isinstance(ev, HandEnded) for ev in events)  # then the hands are laid open
    draws = sum(isinstance(ev, Drew) for ev in events)
    refilled = any(isinstance(ev, StockRefilled) for ev in events)
    spots: list[tuple[str, int, int]] = []
    if not over:
        for h, cards in enumerate(deal.hands):
            if h != seat:
                spots += [("hands", h, i) for i, c in enumerate(cards)
                          if min(st.hands[h].get(c, 0) for st in states) >= 1]
    if not refilled:
        spots += [("stock", -1, i) for i in range(draws, len(deal.stock))]  # index 0 = the top
    spots += [("deads", d, i) for d in (0, 1) if states[-1].deads.left[d] is not None
              for i in range(len(deal.deads[d]))]

    def card_at(spot):
        zone, k, i = spot
        return deal.stock[i] if zone == "stock" else getattr(deal, zone)[k][i]

    pairs = [(a, b) for n, a in enumerate(spots) for b in spots[n + 1:]
             if card_at(a) != card_at(b) and not a[0] == b[0] == "stock"]  # the referee sees no
    # stock order either: an exchange inside the stock would prove nothing
    rng.shuffle(pairs)
    found = []
    for a, b in pairs:
        zones = {z: [list(x) for x in getattr(deal, z)] for z in ("hands", "deads")}
        zones["stock"] = [list(deal.stock)]
        (za, ka, ia), (zb, kb, ib) = a, b
        ka, kb = max(ka, 0), max(kb, 0)
        zones[za][ka][ia], zones[zb][kb][ib] = zones[zb][kb][ib], zones[za][ka][ia]
        other = msgspec.structs.replace(
            deal, hands=tuple(map(tuple, zones["hands"])), deads=tuple(map(tuple, zones["deads"])),
            stock=tuple(zones["stock"][0]))
        swapped = [*events[:start], other, *events[start + 1:]]
        if Timeline(swapped).error is None:
            found.append(swapped)
            if len(found) == want:
                break
    return found


def same_but_head(page_a: str, page_b: str) -> bool:
    head_a, head_b = page_data(page_a)["head"], page_data(page_b)["head"]
    assert head_a != head_b  # the logs differ, and the head says so
    return page_a.replace(head_a, "HEAD") == page_b.replace(head_b, "HEAD")


def games_to_swap(cut: str) -> list[list]:
    """Whole games of the sample bots (closed with a stock left), or random games cut in the
    middle of their hand (an unfinished log: the other hands are still hidden)."""
    if cut == "whole game":
        games = [[decode_event(line) for line in path.read_bytes().splitlines()]
                 for path in sorted(SAMPLES.glob("*-4p-*.jsonl"))]
        # those that end with a dead untaken: after the hand only the deads and stock are hidden
        return [g for g in games if any(d is not None for d in Timeline(g).final.deads.left)][:2]
    return [random_game(variant, 4, seed)[:90] for variant, seed in (("stbl", 0), ("fechado", 1))]


def referee_steps(events: list) -> list[dict]:
    return timeline_steps(Timeline(events), None, sealed=True, error=None)


@pytest.mark.slow
@pytest.mark.parametrize("cut", ["whole game", "mid-hand"])
def test_a_seat_page_never_holds_a_card_hidden_from_the_seat(tmp_path, cut):
    """Like the projections' no-leak test, on the whole file: deal anew cards the seat never
    sees (in other hands, the stock, the deads) and the seat's page does not change, but for
    the head (which seals the log). The referee's page does change: the swap moved real cards."""
    rng = random.Random(11)
    checked = 0
    for events in games_to_swap(cut):
        log = write_sealed(tmp_path / "a" / "g.jsonl", events)
        referee = referee_steps(events)
        for seat in range(4):
            page = page_of(log, tmp_path / "a" / "g.html", "--as", seat, "--force")
            for swapped in deal_swaps(events, seat, rng, 1):
                other = write_sealed(tmp_path / "b" / "g.jsonl", swapped)
                assert same_but_head(page, page_of(other, tmp_path / "b" / "g.html", "--as", seat,
                                                   "--force")), seat
                assert referee_steps(swapped) != referee, seat
                checked += 1
    assert checked == 8  # enough cards were dealt anew to make the test mean something


def test_mid_hand_swaps_reach_the_other_hands():
    # the exchanges above move cards held by the other seats, not only the stock and deads
    events = random_game("stbl", 4, 0)[:90]
    deal = events[Timeline(events).hand_start(0)]
    swapped = deal_swaps(events, 0, random.Random(1), 20)
    assert any(other[1].hands[1:] != deal.hands[1:] for other in swapped)


# -- spoiler-free -------------------------------------------------------------------------------


def outside_data(page: str) -> str:
    """Return the page without its data element (what a viewer is shown before stepping)."""
    return re.sub(r'<script type="application/json".*?</script>', "", page, flags=re.DOTALL)


@pytest.mark.slow
def test_spoiler_free_keeps_the_result_out(tmp_path, several):
    log = write_sealed(tmp_path / "g.jsonl", several)
    end = Timeline(several).final
    totals = " to ".join(map(str, end.totals))
    plain = page_of(log, tmp_path / "plain.html")
    free = page_of(log, tmp_path / "free.html", "--spoiler-free")
    hands = f"after {end.hand_no + 1} hands"
    # the plain page says who won, by how much, in how many hands; the spoiler-free one does not
    assert totals in outside_data(plain) and hands in outside_data(plain)
    for text in (totals, hands, " win ", " wins ", *map(str, end.totals)):
        assert text not in outside_data(free).split("<style>")[0], text  # title and head
        assert text not in re.sub(r"<style>.*?</style>|<script>.*?</script>", "", outside_data(free),
                                  flags=re.DOTALL), text
    assert page_data(free)["spoiler_free"] is True
    # the steps are all there: the viewer can play on to the end
    assert decode_steps(page_data(free)) == decode_steps(page_data(plain))


# -- safe text ----------------------------------------------------------------------------------


def test_log_text_cannot_break_out_of_the_page(tmp_path, four):
    evil = ("</script><script>alert(1)</script><!--", "a\u2028b\u2029c & <b>", "\u202eevil", "d")
    events = [msgspec.structs.replace(four[0], game_id="g</script><!--<x>", players=evil), *four[1:]]
    log = write_sealed(tmp_path / "g.jsonl", events)
    page = page_of(log, tmp_path / "g.html")
    assert page.count("</script>") == 2 and page.count("<script") == 2  # the data's and the code's
    assert "<!--<x>" not in page and "<b>" not in page and "\u2028" not in page
    assert "\u202e" not in page.split('<script type="application/json"')[0]  # shown as \u202e
    assert "g&lt;/script&gt;&lt;!--&lt;x&gt;" in page  # escaped in the title and header
    steps = steps_of(page)
    assert steps[0]["game_id"] == "g</script><!--<x>" and tuple(steps[0]["players"]) == evil


def test_script_json_escapes_and_round_trips():
    value = {"a": "</script><!-- & > \u2028\u2029 é"}
    text = script_json(value)
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text) == value


# -- the step encoding --------------------------------------------------------------------------

scalars = st.one_of(st.integers(-3, 3), st.booleans(), st.none(), st.sampled_from(["a", "b", "7S"]))
values = st.one_of(scalars, st.lists(scalars, max_size=4), st.lists(st.lists(scalars, max_size=2), max_size=3),
                   st.dictionaries(st.sampled_from(["x", "y"]), scalars, max_size=2))


@given(st.lists(st.fixed_dictionaries({"k": values, "l": values, "m": values}), min_size=1, max_size=6))
def test_decode_undoes_encode(objects):
    data = {"format": FORMAT, "steps": json.loads(json.dumps(encode_steps(objects)))}
    decoded = decode_steps(data)
    # compared as JSON: 1 == True in Python, and a change from one to the other must survive
    assert json.dumps(decoded, sort_keys=True) == json.dumps(objects, sort_keys=True)


def test_decode_refuses_what_is_not_a_replay():
    with pytest.raises(ShareDataError):
        decode_steps({"format": "something/2", "steps": []})
    with pytest.raises(ShareDataError):
        decode_steps({"format": FORMAT, "steps": [{"a": [1]}, [[["a", 5], 2]]]})
    with pytest.raises(ShareDataError):
        page_data("<html>no data</html>")


def test_replay_page_is_pure_and_checks_its_opening():
    steps = [{"seq": 0, "game_id": "g", "variant": "stbl", "players": ["a", "b"], "hand": -1,
              "phase": "deal", "winner": None, "totals": [0, 0]}]
    one = replay_page(steps, source="g.jsonl", head="ab" * 32)
    assert one == replay_page(steps, source="g.jsonl", head="ab" * 32)
    with pytest.raises(ValueError):
        replay_page(steps, source="g.jsonl", head=None, at=3)


# -- the command's files and errors -------------------------------------------------------------


def test_an_existing_output_is_kept_unless_force(tmp_path, four):
    log = write_sealed(tmp_path / "g.jsonl", four)
    out = tmp_path / "g.html"
    out.write_text("mine")
    result = share(log, "-o", out)
    assert result.exit_code == 2 and "exists; --force replaces it" in result.stderr
    assert out.read_text() == "mine"
    assert share(log, "-o", out, "--force").exit_code == 0
    assert page_data(out.read_text())["format"] == FORMAT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.html", "g.jsonl"]  # no temp left


def test_bad_input_gets_one_line(tmp_path, four):
    log = write_sealed(tmp_path / "g.jsonl", four)
    cases = [
        ((tmp_path / "missing.jsonl", "-o", tmp_path / "x.html"), 2, "cannot read"),
        ((log, "-o", tmp_path), 2, "is a folder"),
        ((log, "-o", log, "--force"), 2, "is the log itself"),
        ((log, "-o", tmp_path / "x.html", "--as", "9"), 2, "no such seat"),
        ((log, "-o", tmp_path / "x.html", "--at", 10**6), 2, "the log ends at seq"),
        ((log, "-o", tmp_path / "no" / "dir" / "x.html"), 2, "cannot write"),
    ]
    for args, code, words in cases:
        result = share(*args)
        assert result.exit_code == code, (args, result.stderr)
        assert words in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "x.html").exists()


def test_a_log_that_does_not_replay_is_refused_toward_the_audit(tmp_path, four):
    lines = seal_lines(four)
    bad = json.loads(lines[10])
    bad["player"] = (bad.get("player", 0) + 1) % 4  # out of turn
    lines = seal_lines([*four[:10], decode_event(json.dumps(bad)), *four[11:]])
    log = tmp_path / "bad.jsonl"
    log.write_bytes(b"".join(line + b"\n" for line in lines))
    result = share(log, "-o", tmp_path / "bad.html")
    assert result.exit_code == 1
    assert "illegal event" in result.stderr and "--html" in result.stderr
    assert not (tmp_path / "bad.html").exists()


# -- audit --html -------------------------------------------------------------------------------


def audit_html(*args: object):
    return runner.invoke(app, ["audit", *map(str, args)])


@pytest.mark.parametrize("name, at", [("wrong_score.jsonl", "first"), ("illegal_close.jsonl", "before"),
                                      ("clean.jsonl", "end")])
def test_audit_html_is_the_referees_report(tmp_path, name, at):
    log = DISPUTES / name
    out = tmp_path / "r.html"
    result = audit_html(log, "--html", out)
    report = json.loads(audit_html(log, "--json").stdout)
    assert result.exit_code == (0 if report["ok"] else 1)
    page = out.read_text()
    data = page_data(page)
    assert data["audit"] == report and data["seat"] is None
    verdict = "PASS" if report["ok"] else "FAIL"
    assert f"id=verdict>{verdict}</span>" in page
    for p in report["problems"]:
        assert f"data-seq='{p['seq']}'" in page
    steps = decode_steps(data)
    first = report["problems"][0]["seq"] if report["problems"] else None
    want = {"first": first, "before": (first or 1) - 1, "end": len(steps) - 1}[at]
    assert data["at"] == want
    # every step is the referee's `replay --json`, the error that stops the replay included
    stops = steps[-1]["error"] is not None
    for seq in {0, want, len(steps) - 1}:
        assert msgspec.json.encode(steps[seq]).decode() + "\n" == replay_line(log, seq, None, int(stops))
    # the recount of each hand beside its claim
    assert page.count("<td>total (recount)</td>") == len(report["hands"])
    judged = [h for h in report["hands"] if h["claimed"] is not None and h["reason"] is not None]
    assert page.count("<td>claimed − recount</td>") == len(judged)


def test_audit_html_takes_one_log_and_keeps_files(tmp_path):
    out = tmp_path / "r.html"
    result = audit_html(DISPUTES, "--html", out)
    assert result.exit_code == 2 and "one log" in result.stderr and not out.exists()
    out.write_text("mine")
    result = audit_html(DISPUTES / "clean.jsonl", "--html", out)
    assert result.exit_code == 2 and "exists" in result.stderr and out.read_text() == "mine"
    assert audit_html(DISPUTES / "clean.jsonl", "--html", out, "--force").exit_code == 0
    assert page_data(out.read_text())["audit"]["ok"] is True


def test_audit_html_of_a_log_where_nothing_replays(tmp_path):
    out = tmp_path / "r.html"
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"not json\n")
    result = audit_html(garbage, "--html", out)  # not a log at all: unreadable input, no page
    assert result.exit_code == 2 and not out.exists()
    log = tmp_path / "no-start.jsonl"  # a log whose first event may not come first
    log.write_bytes(b'{"type":"drew","seq":0,"player":0,"card":"AS"}\n')
    result = audit_html(log, "--html", out)
    assert result.exit_code == 1 and "report page written" in result.stderr
    data = page_data(out.read_text())
    assert data["steps"] == [] and data["audit"]["ok"] is False
    assert "id=verdict>FAIL</span>" in out.read_text()
