"""Render: golden text of fixed seeded games, colours by suit, hidden cards never printed.

Regenerate the goldens with `pytest tests/test_render.py --update-golden` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import random_game

from buraco_events.core.cards import RANK
from buraco_events.model.events import LaidOff, Melded, TookPile
from buraco_events.views.projections import Timeline
from buraco_events.views.render import card_text, cards_text, render_text, render_view

GOLDEN = Path(__file__).parent / "golden"
WIDTH = 100


def _first(events, pred) -> int:
    return next(i for i, ev in enumerate(events) if pred(ev))


def _render(tl: Timeline, seq: int, seat: int | None, history: bool = False) -> str:
    histories = tl.meld_histories(tl.hand_at(seq), seq) if history else ()
    view = render_view(tl.view(seq, seat), tl.describe(seq), last=tl.last, histories=histories)
    return render_text(view, width=WIDTH)


def _cases() -> list[tuple[str, str]]:
    """Return (golden name, text) for the selected steps of two fixed games."""
    out = []
    # a closed pile whose top goes into the next play (stcl, 2 players, one hand): the deal, the
    # first pile taken (seen by the taker and the other seat), the first canasta with meld
    # histories, the end of the game
    ev = random_game("stcl", 2, 1, target=0)
    tl = Timeline(ev)
    took = _first(ev, lambda e: isinstance(e, TookPile))
    taker = ev[took].player
    canasta = next(i for i, e in enumerate(ev) if isinstance(e, Melded | LaidOff)
                   and tl.state(i).melds[e.meld].canasta_seq == i)
    out += [
        ("stcl-2p-1-deal-seat0", _render(tl, 1, 0)),
        ("stcl-2p-1-pile-taker", _render(tl, took, taker)),
        ("stcl-2p-1-pile-other", _render(tl, took, 1 - taker)),
        ("stcl-2p-1-canasta-referee-history", _render(tl, canasta, None, history=True)),
        ("stcl-2p-1-end-referee", _render(tl, tl.last, None)),
    ]
    # a closed pile whose top is melded before the turn ends (stbl): the pile just taken
    ev = random_game("stbl", 2, 1)
    tl = Timeline(ev)
    took = _first(ev, lambda e: isinstance(e, TookPile))
    out.append(("stbl-2p-1-pile-taker", _render(tl, took, ev[took].player)))
    # an open pile with an upcard and sets (burraco, 4 players): the deal, a pile taken, a hand's end
    ev = random_game("burraco", 4, 0)
    tl = Timeline(ev)
    took = _first(ev, lambda e: isinstance(e, TookPile))
    ended = _first(ev, lambda e: type(e).__name__ == "HandEnded")
    out += [
        ("burraco-4p-0-deal-seat2", _render(tl, 1, 2)),
        ("burraco-4p-0-pile-seat1", _render(tl, took, 1)),
        ("burraco-4p-0-hand-ended-seat3", _render(tl, ended, 3)),
    ]
    return out


CASES = _cases()


@pytest.mark.parametrize("name, text", CASES, ids=[c[0] for c in CASES])
def test_golden_render(name, text, update_golden):
    path = GOLDEN / f"{name}.txt"
    if update_golden:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden {path}; run pytest with --update-golden"
    assert text == path.read_text(encoding="utf-8")


def test_goldens_fit_the_width_and_carry_no_colour():
    for _, text in CASES:
        assert "\x1b[" not in text
        assert max(len(line) for line in text.splitlines()) <= WIDTH


def test_suits_are_coloured_and_the_joker_is_text():
    assert card_text("7H").style == "red" and card_text("QD").style == "red"
    assert card_text("7S").style == "" and card_text("KC").style == ""
    coloured = render_text(cards_text(["7H", "7S", "JK"]), color=True)
    assert "\x1b[31m7H\x1b[0m" in coloured
    assert "\x1b[31m7S" not in coloured and "7S" in coloured
    assert "JK" in coloured and "🃏" not in coloured


def test_a_seat_view_prints_no_hidden_card():
    ev = random_game("fechado", 4, 2)
    tl = Timeline(ev)
    for seq in range(2, tl.last, 17):
        state = tl.state(seq)
        if state.phase not in ("draw", "play"):
            continue
        text = _render(tl, seq, 0)
        hidden_zone = text.split("melds of team 0")[0]
        for seat in (1, 2, 3):
            assert f"{state.hand_size(seat)} card" in hidden_zone
        assert "(hidden)" in text and "hidden" in text.split("cards left in hand")[1].splitlines()[0]
        pile_line = next(line for line in text.splitlines() if line.startswith("pile"))
        assert sum(word in RANK for word in pile_line.split()) <= 1  # the top only, if any


def test_every_score_sheet_names_its_rows_alike() -> None:
    """One vocabulary: play, replay, the share page, audit and its page name the sheet's rows as
    `scoring.SHEET_ROWS` does, and docs/rules.md §7 lists the same names."""
    import re
    from pathlib import Path

    from buraco_events.model.scoring import HAND_TOTAL, SHEET_ROWS

    root = Path(__file__).parent.parent
    page = (root / "buraco_events/views/share_page/page.js").read_text()
    shown = re.findall(r'row\("([^"]+)", (?:v\.hands_counted \? )?items\("(\w+)"\)', page)
    assert shown == [(name, key) for key, name in SHEET_ROWS] + [(HAND_TOTAL, "total")]
    rules = (root / "docs/rules.md").read_text().split("## 7.")[1].split("## 8.")[0]
    for _, name in SHEET_ROWS:
        assert f"| {name} |" in rules
