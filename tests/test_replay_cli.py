"""`buraco replay`: JSON shape and values, seat views, broken logs, and the interactive viewer."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import msgspec
import pytest
from helpers import random_game
from typer.testing import CliRunner

from buraco_events.core.cards import sorted_cards
from buraco_events.log.writer import write_log
from buraco_events.model.events import Discarded, HandStarted, TookPile, encode_event, seal_lines
from buraco_events.views.projections import Timeline
from cli.main import app
from cli.replay_app import ReplayApp

runner = CliRunner()


@pytest.fixture(scope="module")
def game():
    """A closed-pile game of several hands (fechado, 2 players)."""
    return random_game("fechado", 2, 0)


@pytest.fixture
def log_path(tmp_path, game):
    path = tmp_path / "game.jsonl"
    write_log(path, game)
    return path


def run(*args: str):
    return runner.invoke(app, ["replay", *map(str, args)])


def run_json(*args: str) -> dict:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1  # exactly one object
    return json.loads(lines[0])


def test_json_shape_and_values_at_the_end(log_path, game):
    doc = run_json(log_path)
    tl = Timeline(game)
    state = tl.final
    assert doc["seq"] == len(game) - 1 == doc["last_seq"]
    assert doc["hand"] == state.hand_no and doc["phase"] == "over"
    assert doc["to_play"] == state.to_play
    assert doc["scores"] == list(state.totals) and doc["winner"] == state.winner
    assert doc["sealed"] is True and doc["error"] is None
    assert doc["event"].startswith(f"seq {len(game) - 1}: game over")


def test_json_at_a_seq(log_path, game):
    tl = Timeline(game)
    seq = next(i for i, ev in enumerate(game) if isinstance(ev, TookPile) and i > 30)
    doc = run_json(log_path, "--at", seq)
    state = tl.state(seq)
    assert doc["seq"] == seq and doc["phase"] == "play" and doc["to_play"] == game[seq].player
    assert doc["hands"] == [sorted_cards(Counter(h).elements()) for h in state.hands]
    assert [m["id"] for m in doc["melds"]] == [m.id for m in state.melds]
    for m, meld in zip(doc["melds"], state.melds, strict=True):
        assert m["team"] == meld.team and m["cards"] == list(meld.cards)
        assert m["kind"] == (meld.canasta(state.rules) or "none") and m["type"] == meld.shape.type
    assert doc["pile"] == {"size": 0, "top": None, "cards": []}  # just taken
    assert doc["pending"]["top"] == game[seq].cards[-1]
    assert doc["stock"] == len(state.stock)
    assert [d["taken_by"] for d in doc["deads"]] == state.deads.taker
    assert doc["event"] == f"seq {seq}: p{game[seq].player} took the pile ({_n(game[seq].cards)}), top {game[seq].cards[-1]}"
    running = [t + s.total for t, s in zip(state.totals, tl.view(seq).hand_scores, strict=True)]
    assert doc["scores"] == running


def _n(cards) -> str:
    return f"{len(cards)} card" + ("" if len(cards) == 1 else "s")


def test_hand_jumps_to_the_deal(log_path, game):
    starts = [ev.seq for ev in game if isinstance(ev, HandStarted)]
    assert len(starts) >= 2
    doc = run_json(log_path, "--hand", 2)  # people count hands from 1; the JSON keeps the log's number
    assert doc["seq"] == starts[1] and doc["hand"] == 1 and doc["phase"] == "draw"
    assert [len(h) for h in doc["hands"]] == [11, 11] and doc["melds"] == []
    assert run(log_path, "--hand", 99, "--json").exit_code == 2


def test_as_hides_what_the_seat_may_not_see(log_path, game):
    seq = next(i for i, ev in enumerate(game) if isinstance(ev, Discarded) and i > 40)
    state = Timeline(game).state(seq)
    ref = run_json(log_path, "--at", seq)
    for who in ("1", "p1"):
        doc = run_json(log_path, "--at", seq, "--as", who)
        assert doc["seat"] == 1
        assert doc["hands"][0] == state.hand_size(0) and isinstance(doc["hands"][1], list)
        assert "cards" not in doc["pile"] and doc["pile"]["top"] == game[seq].card  # closed pile
        assert doc["pile"]["size"] == ref["pile"]["size"] == len(state.pile)
        assert all(isinstance(d["cards"], int) for d in doc["deads"])
        assert doc["hands_counted"] is False
    assert run(log_path, "--as", "nobody", "--json").exit_code == 2


def test_static_text(log_path, game):
    seq = 40
    result = run(log_path, "--at", seq, "--static", "--as", "0")
    assert result.exit_code == 0
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"fechado · game {game[0].game_id} · seq {seq} of {len(game) - 1}")
    assert f"> seq {seq}: " in result.stdout and "(hidden)" in result.stdout
    assert "\x1b[" not in result.stdout


def _broken(tmp_path, game, k: int, line: bytes | None = None, reseal: bool = True):
    """Write the game with event k replaced: an illegal event (resealed), or a raw line."""
    events = list(game)
    if line is None:
        ev = events[k]
        assert isinstance(ev, Discarded)
        events[k] = msgspec.structs.replace(ev, card="JK" if ev.card != "JK" else "2S")
    lines = seal_lines(events)
    if line is not None:
        lines[k] = line
    path = tmp_path / "broken.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _illegal_k(game) -> int:
    tl = Timeline(game)
    for i, ev in enumerate(game):
        if isinstance(ev, Discarded) and i > 20:
            held = tl.state(i - 1).hands[ev.player]
            if "JK" not in held and ev.card != "JK":
                return i
    raise AssertionError("no discard to break")


def test_an_illegal_event_shows_the_state_before_it(tmp_path, game):
    k = _illegal_k(game)
    path = _broken(tmp_path, game, k)
    result = run(path, "--json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["seq"] == k - 1 and doc["last_seq"] == k - 1
    expected = json.loads(msgspec.json.encode(Timeline(game).view(k - 1)))
    assert {key: doc[key] for key in expected} == expected
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in result.output
    assert str(path) in err and f"seq {k}" in err and "JK is not in the hand" in err
    static = run(path, "--static")
    assert static.exit_code == 1 and f"seq {k - 1} of {k - 1}" in static.stdout
    # asking for a seq past the error shows how far the log goes, still with the error
    assert json.loads(run(path, "--at", k + 5, "--json").stdout)["seq"] == k - 1


def test_a_line_that_does_not_decode(tmp_path, game):
    k = 30
    path = _broken(tmp_path, game, k, line=b'{"type":"drew","seq":30,"player":0,"card":"XX"}')
    result = run(path, "--json")
    assert result.exit_code == 1 and json.loads(result.stdout)["seq"] == k - 1
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and f"line {k + 1}" in err and "card" in err


def test_a_broken_chain(tmp_path, game):
    k = 25
    changed = msgspec.structs.replace(game[k], at="2026-01-01T00:00:00Z")
    lines = seal_lines(list(game))
    lines[k] = encode_event(msgspec.structs.replace(changed, seq=k, prev=json.loads(lines[k])["prev"]))
    path = tmp_path / "tampered.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    result = run(path, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["seq"] == k  # line k itself is fine; line k+1 no longer links
    assert "prev" in result.stderr and f"seq {k + 1}" in result.stderr


def test_unreadable_paths_exit_2(tmp_path, log_path):
    for path in (tmp_path / "missing.jsonl", tmp_path):
        result = run(path)
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert len(result.stderr.strip().splitlines()) == 1
    assert run(log_path, "--at", 10**6, "--json").exit_code == 2
    assert run(log_path, "--at", 5, "--hand", 1, "--json").exit_code == 2


def test_an_empty_or_garbage_file_is_not_a_log_exit_2(tmp_path):
    # exit 2 for input that cannot be read as a log (1 is for problems in a log that was read)
    path = tmp_path / "junk.jsonl"
    for data, words in ((b"not json\n", "line 1: not a log: not JSON"), (b"", "empty file: not a log"),
                        (b"[" * 1000 + b"\n", "line 1: not a log: not an event: JSON nested too deeply")):
        path.write_bytes(data)
        result = run(path, "--json")
        assert (result.exit_code, result.stdout) == (2, ""), result.output
        assert result.stderr.startswith(f"error: {path}: {words}") and result.stderr.count("\n") == 1


def test_a_log_whose_first_event_is_illegal_exits_1(tmp_path):
    path = tmp_path / "three.jsonl"
    path.write_bytes(b'{"type":"game_started","seq":0,"game_id":"g","variant":"stbl",'
                     b'"players":["a","b","c"]}\n')
    result = run(path, "--json", "--as", "1")
    assert (result.exit_code, result.stdout) == (1, "")
    assert "Buraco is for 2 or 4 players" in result.stderr and result.stderr.count("\n") == 1


# -- the interactive viewer, driven headlessly --------------------------------------------------


@pytest.mark.slow
def test_the_viewer_steps_jumps_and_switches_view(game):
    tl = Timeline(game)
    starts = [ev.seq for ev in game if isinstance(ev, HandStarted)]

    async def drive() -> None:
        viewer = ReplayApp(tl, seq=5)
        async with viewer.run_test(size=(120, 60)) as pilot:
            assert viewer.seq == 5 and viewer.status_text.startswith(f"seq 5 / {tl.last}")
            await pilot.press("n", "right")
            assert viewer.seq == 7
            await pilot.press("p")
            assert viewer.seq == 6 and viewer.status_text.startswith("seq 6 ")
            await pilot.press("g", "4", "0", "enter")
            assert viewer.seq == 40
            await pilot.press("right_square_bracket")
            assert viewer.seq == starts[1]
            await pilot.press("left_square_bracket")
            assert viewer.seq == starts[0]
            await pilot.press("g", "h", "2", "enter")  # the second hand, as people count them
            assert viewer.seq == starts[1]
            await pilot.press("v")
            assert viewer.seat == 0 and "view seat 0" in viewer.status_text
            await pilot.press("t")
            turn = tl.state(viewer.seq)
            assert viewer.seq > starts[1] and turn.phase == "draw" and turn.to_play == 0
            await pilot.press("v", "v")
            assert viewer.seat is None
            await pilot.press("end")
            assert viewer.seq == tl.last
            await pilot.press("n")
            assert viewer.seq == tl.last  # clamped at the end
            await pilot.press("g", "x", "enter")
            assert viewer.seq == tl.last and "not a seq" in viewer.status_text
            await pilot.press("q")

    asyncio.run(drive())


def test_a_seat_never_reads_a_hidden_card_in_the_error(tmp_path, game):
    # `replay --as 1 --json` never puts a card seat 1 cannot see ("...the stock's top card is 3H")
    # in `error`
    from buraco_events.core.cards import ALL_CARDS
    from buraco_events.model.events import Drew

    k = next(i for i, e in enumerate(game) if isinstance(e, Drew) and i > 10)
    top = game[k].card
    wrong = next(c for c in ALL_CARDS if c != top)
    forged = [*game[:k], msgspec.structs.replace(game[k], card=wrong), *game[k + 1:]]
    path = tmp_path / "forged.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in seal_lines(forged)))  # re-sealed: a liar
    referee = run(path, "--json")
    assert referee.exit_code == 1 and f"the stock's top card is {top}" in json.loads(referee.stdout)["error"]
    for seat in ("0", "1"):
        for args in (("--json",), ("--static",)):
            result = run(path, "--as", seat, *args)
            assert result.exit_code == 1
            errors = [result.stderr]
            if args == ("--json",):
                errors.append(json.loads(result.stdout)["error"])
            for error in errors:
                assert error.rstrip().endswith("drew a card that is not the stock's top card")
                assert top not in error and wrong not in error


def test_the_viewer_shows_each_seat_its_own_words_for_the_error(tmp_path, game):
    from buraco_events.model.events import Drew

    k = next(i for i, e in enumerate(game) if isinstance(e, Drew) and i > 10)
    forged = [*game[:k], msgspec.structs.replace(game[k], card="JK" if game[k].card != "JK" else "AS")]
    tl = Timeline(forged)
    from textual.widgets import Static

    from buraco_events.views.render import render_text
    from buraco_events.views.replays import Loaded, error_for

    errors = error_for(tmp_path / "f.jsonl", Loaded(tl.events, True, None), tl)

    async def drive() -> None:
        viewer = ReplayApp(tl, seq=tl.last, seat=None, error_for=errors)
        async with viewer.run_test(size=(160, 60)) as pilot:
            table = lambda: render_text(viewer.query_one("#table", Static).content)  # noqa: E731
            assert f"top card is {game[k].card}" in table()
            await pilot.press("v")  # seat 0's view
            assert viewer.seat == 0 and "not the stock's top card" in table()
            assert f"top card is {game[k].card}" not in table()

    asyncio.run(drive())


def test_log_text_is_escaped_in_every_human_output(tmp_path, game):
    # escapes and bidi overrides from a log are shown escaped, and markup in it shown as typed
    evil = ("g\x1b[2J\r\u202e", ("Dani [/]", "[bold]Bo\x1b[31m"))
    events = [msgspec.structs.replace(game[0], game_id=evil[0], players=evil[1]), *game[1:40]]
    path = tmp_path / "evil\x1b].jsonl"
    write_log(path, events)
    static = run(path, "--static", "--as", "0")
    assert static.exit_code == 0
    assert not any(c in static.output for c in "\x1b\r\u202e")
    assert "game g\\x1b[2J\\x0d\\u202e" in static.stdout
    assert "Dani [/] (seat 0)" in static.stdout and "[bold]Bo\\x1b[31m" in static.stdout
    assert json.loads(run(path, "--json").stdout)["game_id"] == evil[0]  # JSON stays exact
    from cli.main import app as buraco

    missing = tmp_path / "evil\x1b]2.jsonl"
    for args in (["log", "check", str(path)], ["replay", str(missing)], ["log", "head", str(missing)]):
        result = runner.invoke(buraco, args)
        assert not any(c in result.output for c in "\x1b\r\u202e") and "evil\\x1b]" in result.output


def test_the_viewer_opens_at_the_first_deal_as_a_share_page_does(log_path, game, monkeypatch):
    """On a terminal, `replay LOG` with neither --at nor --hand opens the viewer at the first deal
    (the share page opens there too); --at still opens where it says."""
    import io
    import types

    import cli.replay_app
    import cli.replay_cmd

    opened: list[int] = []
    monkeypatch.setattr(cli.replay_app.ReplayApp, "run", lambda self: opened.append(self.seq))

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(cli.replay_cmd, "sys", types.SimpleNamespace(stdout=Terminal()))
    first = next(ev.seq for ev in game if isinstance(ev, HandStarted))
    assert runner.invoke(app, ["replay", str(log_path)]).exit_code == 0
    assert runner.invoke(app, ["replay", str(log_path), "--at", "7"]).exit_code == 0
    assert opened == [first, 7]


@pytest.mark.slow
def test_the_viewer_has_a_move_list_that_goes_where_chosen(game):
    tl = Timeline(game)

    async def drive() -> None:
        viewer = ReplayApp(tl, seq=5)
        async with viewer.run_test(size=(120, 40)) as pilot:
            from textual.widgets import OptionList

            moves = viewer.query_one("#moves", OptionList)
            assert not moves.display and moves.option_count == tl.last + 1
            await pilot.press("l")
            assert moves.display and moves.highlighted == 5
            assert str(moves.get_option_at_index(9).prompt) == tl.describe(9)
            await pilot.press("down", "down", "enter")
            assert viewer.seq == 7
            await pilot.press("n")
            assert viewer.seq == 8 and moves.highlighted == 8
            await pilot.press("l")
            assert not moves.display

    asyncio.run(drive())
