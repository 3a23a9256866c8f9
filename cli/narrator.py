"""What the player of `buraco play` is told beside the events: the score sheet, who they are, and
the events' words in the second person for the default name.

The default name "you" is told in the second person (`second_person`: "you play first"). The
score sheet (`score_sheet`) says when its figures are provisional (during a hand) and shows each
row once.
"""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table as Grid
from rich.text import Text

from buraco_events.core.gate import team_of
from buraco_events.model.events import Event, GameEnded, HandStarted
from buraco_events.model.rules import Rules
from buraco_events.model.scoring import HAND_TOTAL, SHEET_ROWS
from buraco_events.model.views import View
from buraco_events.play.setup import DEFAULT_NAME
from buraco_events.util.text import hand_words, visible


def hands_count(n: int) -> str:
    return "1 hand" if n == 1 else f"{n} hands"


def second_person(text: str, event: Event, human: int) -> str:
    """Return an event told in words (`describe`, third person) with the verbs of the human's
    own moves agreeing with "you" (the default name): `you play first`, `you win`, `you take a
    dead`. The words of other seats, and of a human with a name of their own, stay as told."""
    if isinstance(event, HandStarted) and event.first == human:
        return text.replace("; you plays first", "; you play first", 1)
    if isinstance(event, GameEnded):
        return text.replace("game over: you wins", "game over: you win", 1)
    if getattr(event, "player", None) == human:
        return (text.replace(": takes a dead", ": you take a dead", 1)
                .replace("; plays on", "; you play on", 1))
    return text


def you_are(name: str, seat: int) -> str:
    """Return who the human is at the table: `you are seat 0 (team 0)`, the name first when it
    is not the default (`you are Maria, seat 0 (team 0)`)."""
    who = "" if name == DEFAULT_NAME else f"{visible(name)}, "
    return f"you are {who}seat {seat} (team {team_of(seat)})"


def score_sheet(view: View, rules: Rules) -> RenderableType:
    """Return the RULES 7 score sheet of the view's hand as a player reads it.

    During the hand the figures are what the hand would score if it ended now: the sheet says
    so above it, the dead row counts the penalty of a dead not taken (yet), and the cards held
    are counted only at the end. Each row appears once: a hand's total, then, when hands came
    before it, the total before it and the total with it (in a one-hand game the hand's total is
    the game's)."""
    playing = view.phase in ("draw", "play", "dead")
    sheet = view.hand_scores
    yours = team_of(view.seat) if view.seat is not None else None
    table = Grid(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column(hand_words(view.hand) if view.hand >= 0 else "scores")
    for team in (0, 1):
        table.add_column(f"team {team}" + (" (you)" if team == yours else ""), justify="right")
    if sheet:
        for key, name in SHEET_ROWS:
            if key == "hand_penalty" and not view.hands_counted:
                table.add_row(name, *(Text("at the end", style="dim") for _ in sheet))
            elif key == "dead_penalty" and playing:
                # charged only if the hand ended now: the dead may still be taken
                table.add_row(f"{name} if it ended now", *(str(s.dead_penalty) for s in sheet))
            else:
                table.add_row(name, *(str(getattr(s, key)) for s in sheet))
        table.add_row(Text(f"{HAND_TOTAL} so far" if playing else HAND_TOTAL, style="bold"),
                      *(Text(str(s.total), style="bold") for s in sheet))
    totals = tuple(view.totals)
    before = totals if playing or not sheet else tuple(t - s.total for t, s in zip(totals, sheet, strict=True))
    if any(before) or view.hand > 0 or not sheet:
        table.add_row("before this hand", *(str(t) for t in before))
        table.add_row(Text("if it ended now" if playing else "total", style="bold"),
                      *(Text(str(t), style="bold") for t in view.scores))
    if not playing:
        return table
    told = Text(f"provisional, as if the hand ended now: a team that has not taken its dead loses "
                f"{rules.no_dead_penalty}; the cards still in hand are counted at the end", style="dim")
    return Group(told, table)

