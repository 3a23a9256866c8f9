"""Render: a view of the table as rich renderables (pure: builds text, prints nothing).

Cards keep the notation of the log format; hearts and diamonds are red, spades and clubs plain, the
joker is the text `JK` (TECH-NOTES: the joker emoji is double width). `render_text` turns any
renderable into a string at a fixed width, with or without colour, for goldens and `--static`.

Text from the log (the game id, the variant, players' names, an event told in words, an error)
goes through `text.visible`, so control and bidi characters show as escapes and never repaint
the screen; every piece is a `Text`, never markup, so brackets in names are shown as they are.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from buraco_events.analysis.evaluate import CAP_FACTOR, INACCURACY
from buraco_events.core.cards import SUIT, Card
from buraco_events.core.gate import team_of
from buraco_events.model.scoring import HAND_TOTAL, SHEET_ROWS
from buraco_events.model.terms import KIND_WORDS
from buraco_events.util.text import visible

from .projections import MeldHistory, MeldView, View, team_label
from .text import hand_words

#: style of each suit letter (spades and clubs plain)
SUIT_STYLE: dict[str, str] = {"H": "red", "D": "red"}
#: each suit letter as its symbol (the joker stays `JK`: the emoji is double width)
SUIT_SYMBOL: dict[str, str] = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
#: how a meld's canasta kind reads
CANASTA_LABEL: dict[str, str] = {"none": "", **{str(k): v for k, v in KIND_WORDS.items()}}


def card_name(card: Card, symbols: bool = False) -> str:
    """Return a card in its notation, or with its suit as a symbol (`10♥`) when `symbols`."""
    suit = SUIT.get(card, "")
    return card[: -len(suit)] + SUIT_SYMBOL[suit] if symbols and suit else card


def card_text(card: Card, symbols: bool = False) -> Text:
    """Return a card in its notation (suit symbols when `symbols`), red for hearts and diamonds."""
    return Text(card_name(card, symbols), style=SUIT_STYLE.get(SUIT.get(card, ""), ""))


def cards_text(cards: Iterable[Card], symbols: bool = False) -> Text:
    """Return cards separated by spaces, each coloured by suit."""
    return Text(" ").join(card_text(c, symbols) for c in cards)


def seat_label(view: View, seat: int) -> str:
    """Return a seat as `name (seat n)`, the name made visible."""
    return f"{visible(view.players[seat])} (seat {seat})"


def team_text(view: View, team: int) -> str:
    """Return a team as its players' names, made visible."""
    return visible(team_label(view.players, team))


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _header(view: View, last: int | None) -> Text:
    who = "referee (all cards)" if view.seat is None else seat_label(view, view.seat)
    of = f" of {last}" if last is not None else ""
    hand = hand_words(view.hand) if view.hand >= 0 else "no hand dealt"
    line = Text(f"{visible(view.variant)} · game {visible(view.game_id)} · seq {view.seq}{of} · {hand}"
                f" · view: {who}")
    line.stylize("bold")
    return line


def _status(view: View) -> Text:
    if view.phase in ("game_end", "over") and view.winner is not None:
        return Text(f"game over: {team_text(view, view.winner)} won")
    if view.phase in ("game_end", "over"):  # RULES 8: a tournament turn ended with equal totals
        return Text("game over: a tie")
    if view.phase in ("draw", "play", "dead"):
        return Text(f"to play: {seat_label(view, view.to_play)} · phase: {view.phase}")
    return Text(f"phase: {view.phase}")


def _hands(view: View, symbols: bool = False) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True)
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column()
    for seat, hand in enumerate(view.hands):
        label = Text(seat_label(view, seat), style="bold" if seat == view.to_play else "")
        team = f"team {team_of(seat)}"
        if isinstance(hand, int):
            grid.add_row(label, team, _count(hand), Text("(hidden)", style="dim"))
        else:
            grid.add_row(label, team, _count(len(hand)), hand_text(hand, symbols) if symbols else cards_text(hand))
    return grid


def hand_text(hand: Sequence[Card], symbols: bool = False, new: Iterable[Card] = ()) -> Text:
    """Return a hand grouped by suit (two spaces between suits, the jokers last), each card with
    its suit as a symbol when `symbols`; the cards in `new` are marked `[..]`, one mark per copy.
    Play and the interactive viewer show a hand this way."""
    marks = list(new)
    groups: list[Text] = []
    for suit in (*SUIT_SYMBOL, ""):
        cards = [c for c in hand if SUIT.get(c, "") == suit]
        if not cards:
            continue
        parts = []
        for card in cards:
            text = card_text(card, symbols)
            if card in marks:
                marks.remove(card)
                text = Text.assemble("[", text, "]")
                text.stylize("bold")
            parts.append(text)
        groups.append(Text(" ").join(parts))
    return Text("  ").join(groups)


def _history_text(history: MeldHistory, players: Sequence[str]) -> Text:
    parts = []
    for step in history.steps:
        what = "laid" if step.action == "laid" else "+" + " ".join(step.cards)
        part = f"{what} by {visible(players[step.player])} @{step.seq}"
        if step.canasta:
            part += f", {CANASTA_LABEL.get(step.canasta, step.canasta)}"
        if step.wild:
            part += f" ({step.wild})"
        parts.append(part)
    return Text("; ".join(parts), style="dim")


def _melds(view: View, histories: Sequence[MeldHistory], symbols: bool = False) -> list[RenderableType]:
    by_id = {h.meld: h for h in histories}
    kinds = {m.kind for m in view.melds}
    out: list[RenderableType] = []
    for team in (0, 1):
        mine: list[MeldView] = [m for m in view.melds if m.team == team]
        out.append(Text(f"melds of team {team} ({team_text(view, team)}): {len(mine)}", style="bold"))
        if not mine:
            continue
        # fixed column widths keep both teams' melds aligned: the widest of the kinds every variant
        # has ("ace-to-ace canasta"), or of a club kind on the table
        grid = Table.grid(padding=(0, 2))
        grid.add_column(justify="right", no_wrap=True, min_width=3)
        grid.add_column(no_wrap=True, min_width=9)
        grid.add_column(no_wrap=True, min_width=max(len(CANASTA_LABEL.get(k, k)) for k in ("ace_to_ace", *kinds)))
        grid.add_column()
        for m in mine:
            kind = f"{m.type} {'clean' if m.clean else 'dirty'}"
            cards = cards_text(m.cards, symbols)
            if m.id in by_id:
                cards = Text("\n").join([cards, _history_text(by_id[m.id], view.players)])
            grid.add_row(f"#{m.id}", kind, CANASTA_LABEL.get(m.kind, m.kind), cards)
        out.append(grid)
    return out


def _table(view: View, symbols: bool = False) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column()
    pile = view.pile
    if pile.size == 0:
        grid.add_row("pile", "empty")
    elif pile.cards is None:
        grid.add_row("pile", Text.assemble(f"{_count(pile.size)}, top ", card_text(pile.top or "", symbols)))
    else:
        grid.add_row("pile", Text.assemble(f"{_count(pile.size)}, top last: ", cards_text(pile.cards, symbols)))
    if view.pending is not None:
        rest = view.pending.rest
        shown = Text(_count(rest), style="dim") if isinstance(rest, int) else cards_text(rest, symbols)
        grid.add_row(
            "taken pile", Text.assemble("top ", card_text(view.pending.top, symbols), " must be played; rest: ", shown)
        )
    if view.top_due is not None:
        grid.add_row("taken pile", Text.assemble("top ", card_text(view.top_due, symbols), " must be melded before the turn ends"))
    grid.add_row("stock", _count(view.stock))
    for i, dead in enumerate(view.deads):
        if dead.fate == "taken" and dead.taken_by is not None:
            text = Text(f"taken by {seat_label(view, dead.taken_by)}" + (", unused" if dead.unused else ""))
        elif dead.fate == "stock":
            text = Text("became the stock")
        elif isinstance(dead.cards, int):
            text = Text(f"{_count(dead.cards)}, untaken")
        else:
            text = Text.assemble(f"{_count(len(dead.cards))}, untaken: ", cards_text(dead.cards, symbols))
        grid.add_row(f"dead {i}", text)
    return grid


def render_scores(view: View) -> Table:
    """Return the RULES 7 score sheet of the view's hand, the totals before it and the running ones."""
    return _scores(view)


def _scores(view: View) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    hand = hand_words(view.hand) if view.hand >= 0 else "scores"
    table.add_column(hand)
    for team in (0, 1):
        table.add_column(f"team {team}", justify="right")
    sheet = view.hand_scores
    if sheet:
        for key, name in SHEET_ROWS:
            if key == "hand_penalty" and not view.hands_counted:
                table.add_row(name, *(Text("hidden", style="dim") for _ in sheet))
            else:
                table.add_row(name, *(str(getattr(s, key)) for s in sheet))
        table.add_row(HAND_TOTAL, *(str(s.total) for s in sheet))
    table.add_row("before this hand" if view.phase in ("draw", "play", "dead", "hand_end") else "totals",
                  *(str(t) for t in view.totals))
    table.add_row(Text("running", style="bold"), *(Text(str(s), style="bold") for s in view.scores))
    return table


#: the phases in which the view's hand has ended (`deal`: the next hand is yet to be dealt)
ENDED_PHASES = ("hand_end", "deal", "game_end", "over")


def branch_line(branch: Mapping[str, Any]) -> Text:
    """Return the line that names a branch on every screen of it: `branch of GAME at seq N (by
    BY: REASON)` and whether the screen lies before or after the fork (`projections.branch_object`)."""
    side = ("after the fork: a hypothesis, not the game" if branch["after_fork"]
            else "before the fork: the parent's own events")
    line = Text(f"{visible(branch['words'])} (by {visible(branch['by'])}: {visible(branch['reason'])}) · {side}")
    line.stylize("bold magenta")
    return line


def ruling_words(ruling: Mapping[str, Any]) -> str:
    """Return one judged ruling (a `RulingView` as builtins) in words: its seq, kind, what it
    decides, who made it and why, and whether it applies (and if not, why not); log text visible."""
    kind = ruling["kind"]
    what = ""
    if kind == "score_adjusted" and ruling.get("points"):
        what = " " + " / ".join(f"{p:+d}" for p in ruling["points"]) + f" on {hand_words(ruling['hand'])}"
    elif kind == "hand_voided":
        what = f": {hand_words(ruling['hand'])} counts 0 for both teams"
    elif kind == "replay_from":
        head = str(ruling.get("branch_head") or "?")[:12]
        what = f": the hands from {hand_words(ruling['hand'])} on are the branch's (head {head}…)"
    elif kind == "game_awarded":
        what = f": team {ruling['team']} wins"
    elif kind == "withdrawn":
        what = f": cancels ruling {ruling['ruling_seq']}"
    verdict = "applies" if ruling["applies"] else f"does not apply: {ruling['why_not']}"
    return visible(f"ruling {ruling['seq']}: {kind}{what} (by {ruling['by']}: {ruling['reason']}) · {verdict}")


def standings_words(standings: Mapping[str, Any], players: Sequence[str]) -> str:
    """Return a `Standings` object (builtins) in words: totals per team and the winner."""
    totals = " / ".join(str(t) for t in standings["totals"])
    winner = standings["winner"]
    if winner is None:
        who = "no winner decided"
    else:
        who = f"winner team {winner} ({team_label(players, winner)})" + (", awarded" if standings.get("awarded") else "")
    return visible(f"totals {totals} · {who}")


def hand_rulings(rulings: Mapping[str, Any], hand: int) -> list[Mapping[str, Any]]:
    """Return the rulings of a report on `hand`, in rulings-log order."""
    return [r for r in rulings["rulings"] if r["hand"] == hand]


def _rulings(view: View, rulings: Mapping[str, Any], final: bool) -> list[RenderableType]:
    """Return the rulings lines of a screen: at a hand's end the rulings on that hand, on the last
    screen every ruling and the standings after them, always apart from the recount."""
    ended = view.hand >= 0 and view.phase in ENDED_PHASES
    mine = hand_rulings(rulings, view.hand) if ended else []
    if not final and not mine:
        return []
    source = visible(str(rulings["path"]))
    out: list[RenderableType] = [Text("")]
    if final:
        applied = sum(1 for r in rulings["rulings"] if r["applies"])
        out.append(Text(f"rulings from {source} (a referee's decisions beside the log, not in it): "
                        f"{len(rulings['rulings'])}, {applied} apply", style="bold"))
        out += [Text("  " + ruling_words(r)) for r in rulings["rulings"]]
        if rulings.get("problem"):
            out.append(Text("  the rulings log stops: " + visible(str(rulings["problem"])), style="bold red"))
        out.append(Text("recount (the log's events): " + standings_words(rulings["recount"], view.players)))
        out.append(Text("after rulings (apart from the recount): "
                        + standings_words(rulings["after"], view.players), style="bold"))
    else:
        out.append(Text(f"rulings on {hand_words(view.hand)} (from {source}, not in the log):", style="bold"))
        out += [Text("  " + ruling_words(r)) for r in mine]
    return out


#: how each mark reads after its name (the annotation signs of chess), and on a marks bar
MARK_SIGN: dict[str, str] = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
#: the style of each mark's line
MARK_STYLE: dict[str, str] = {"inaccuracy": "yellow", "mistake": "bold yellow", "blunder": "bold red"}
def points_words(x: float) -> str:
    """Return points as the analysis rounds them: one decimal at most, none when whole."""
    return f"{x:.1f}".removesuffix(".0")


def verdict_of(decision: Mapping[str, Any]) -> str:
    """Return what an analysed decision (a `Decision` as builtins) says: its mark, `stands` (no
    alternative did better), `small` (a loss under an inaccuracy, 95% sure), `wide` (the interval
    reaches an inaccuracy: too wide to say) or `old` (a version 1 analysis: no interval)."""
    if decision.get("samples") is None:
        return "old"
    if decision.get("mark"):
        return str(decision["mark"])
    high = decision.get("high")
    if high is None or float(high) >= INACCURACY:  # an interval reaching a mark: too wide to say
        return "wide"
    return "stands" if float(decision["loss"]) <= 0 else "small"


def loss_words(decision: Mapping[str, Any]) -> str:
    """Return the loss with its 95% interval in whole points, `466 (21-911)` (a version 1 analysis,
    as it rounds: `466.2 ± 222.3`)."""
    loss, low, high = decision["loss"], decision.get("low"), decision.get("high")
    if low is None or high is None:
        stderr = decision.get("loss_stderr")
        return points_words(float(loss)) + (f" ± {points_words(float(stderr))}" if stderr is not None else "")
    return f"{float(loss):.0f} ({float(low):.0f}-{float(high):.0f})"


def decision_words(decision: Mapping[str, Any]) -> str:
    """Return what an analysed decision (a `Decision` as builtins) cost, in words: its verdict
    (`verdict_of`) first, never a bare sign, the loss and its 95% interval, the deals it took and
    the better action; log text visible.

    `mistake (?): -466 points (95%: 381-551, 32 deals); better: discard 7S` (whole points); `too
    wide to say: -213 points (95%: 0-698, 32 deals); better: discard 7D`; `the choice stands: no alternative did
    better (95%: none more than 29 points better, 32 deals)`. A version 1 analysis (no interval)
    says so: `mistake (?): -483.8 points (± 147; no interval: an analysis of format 1); better: ...`."""
    verdict = verdict_of(decision)
    loss = float(decision["loss"])
    if verdict == "old":
        if loss <= 0:
            return "the choice stands: no alternative did better (no interval: an analysis of format 1)"
        mark = decision.get("mark")
        head = f"{mark} ({MARK_SIGN.get(str(mark), '')})" if mark else "no mark"
        stderr = decision.get("loss_stderr")
        spread = f"± {points_words(float(stderr))}; " if stderr is not None else ""
        return visible(f"{head}: -{points_words(loss)} points ({spread}no interval: an analysis of format 1);"
                       f" better: {decision['best']}")
    low, high, samples = decision.get("low"), decision.get("high"), decision.get("samples")
    deals = f"{samples} deals"
    if loss <= 0:
        if high is None:
            return f"too wide to say: no alternative did better on {deals}"
        if verdict == "wide":
            return f"too wide to say: no alternative did better, but one may be up to {float(high):.0f} points better (95%, {deals})"
        if float(high) <= 0:
            return f"the choice stands: no alternative did better (95%, {deals})"
        return f"the choice stands: no alternative did better (95%: none more than {float(high):.0f} points better, {deals})"
    head = {"wide": "too wide to say", "small": "no mark"}.get(verdict) or f"{verdict} ({MARK_SIGN.get(verdict, '')})"
    interval = f"95%: {float(low):.0f}-{float(high):.0f}, " if low is not None and high is not None else ""
    return visible(f"{head}: -{loss:.0f} points ({interval}{deals}); better: {decision['best']}")


def samples_words(analysis: Mapping[str, Any], decisions: Iterable[Mapping[str, Any]]) -> str:
    """Return how an analysis (as builtins) sampled: `up to 32 deals a decision (--samples 16), 27.5
    on average`, or for a version 1 analysis `16 samples each (format 1: no intervals)`. `decisions`:
    the decisions as builtins, or replay steps holding them as `decision`."""
    picked = [x["decision"] if "decision" in x else x for x in decisions]
    counts = [int(d["samples"]) for d in picked if d and d.get("samples") is not None]
    k = int(analysis["samples"])
    if int(analysis.get("version", 1)) < 2:
        return f"{k} samples each (format 1: no intervals)"
    mean = points_words(round(sum(counts) / len(counts), 1)) if counts else "0"
    return f"up to {CAP_FACTOR * k} deals a decision (--samples {k}), {mean} on average"


def accuracy_words(analysis: Mapping[str, Any]) -> str:
    """Return an analysis's (as builtins) accuracy with its 95% interval, `45.9 (95%: 27.5-76.7)`;
    one written before the interval (format 1 or 2) says so: `45.9 (no interval: an analysis of
    format 2)`."""
    accuracy = points_words(float(analysis["accuracy"]))
    low, high = analysis.get("accuracy_low"), analysis.get("accuracy_high")
    if low is not None and high is not None:
        return f"{accuracy} (95%: {points_words(float(low))}-{points_words(float(high))})"
    version = int(analysis.get("version", 1))
    if version < 3:
        return f"{accuracy} (no interval: an analysis of format {version})"
    return f"{accuracy} (no interval: a decision was measured on one deal)"


def decision_line(decision: Mapping[str, Any]) -> Text:
    """Return the screen line of an analysed decision: `analysis: ` and its words, styled by mark."""
    return Text("analysis: " + decision_words(decision), style=MARK_STYLE.get(str(decision.get("mark")), ""))


def render_view(
    view: View,
    event_text: str | None = None,
    *,
    last: int | None = None,
    error: str | None = None,
    histories: Sequence[MeldHistory] = (),
    branch: Mapping[str, Any] | None = None,
    rulings: Mapping[str, Any] | None = None,
    final: bool = False,
    decision: Mapping[str, Any] | None = None,
    symbols: bool = False,
) -> RenderableType:
    """Return the table after an event: hands, melds by team, pile, stock, deads and scores.

    With `symbols` (a terminal that shows them: the interactive viewer), cards show their suits
    as symbols and each hand is grouped by suit, as play shows them; otherwise (pipes, golden
    files) cards are in their notation, each hand in the view's order.

    `branch` (a replay step's `branch` object) puts the line naming the branch under the header;
    `rulings` (a rulings report as builtins) lists the rulings on the hand at its end and, when
    `final` (the last screen), every ruling and the standings after them beside the recount.
    `decision` (an analysed decision of the viewing seat, the event's) puts what it cost under the
    event (`decision_line`).
    """
    parts: list[RenderableType] = [_header(view, last)]
    if branch is not None:
        parts.append(branch_line(branch))
    if event_text:
        parts.append(Text("> " + visible(event_text)))
    if decision is not None:
        parts.append(decision_line(decision))
    parts.append(_status(view))
    if error:
        parts.append(Text("error: " + visible(error), style="bold red"))
    if view.hand >= 0:
        parts += [Text(""), _hands(view, symbols), Text(""), *_melds(view, histories, symbols), Text(""),
                  _table(view, symbols)]
    parts += [Text(""), _scores(view)]
    if rulings is not None:
        parts += _rulings(view, rulings, final)
    return Group(*parts)


def render_compact(
    view: View, *, new: Iterable[Card] = (), melds: Iterable[int] = (), symbols: bool = False
) -> Text:
    """Return the few lines a player needs between moves: the seat's hand grouped by suit (cards in
    `new` marked `[..]`, one mark per copy), the pile, stock and deads, and the melds in `melds`."""
    if view.seat is None:
        raise ValueError("the compact screen is a seat's")
    hand = view.hands[view.seat]
    assert not isinstance(hand, int)  # a seat always sees its own hand
    lines = [Text.assemble(f"your hand ({_count(len(hand))}): ", hand_text(hand, symbols, new))]
    pile = view.pile
    top = Text.assemble("top ", card_text(pile.top, symbols)) if pile.top is not None else Text("empty")
    size = f" ({_count(pile.size)})" if pile.size else ""
    deads = sum(1 for d in view.deads if d.fate is None)
    lines.append(Text.assemble("pile: ", top, f"{size} · stock {view.stock} · deads left {deads}"))
    if view.pending is not None:
        lines.append(Text.assemble("the pile's top ", card_text(view.pending.top, symbols), " must be played first"))
    if view.top_due is not None:
        lines.append(Text.assemble("the pile's top ", card_text(view.top_due, symbols), " must be melded this turn"))
    by_id = {m.id: m for m in view.melds}
    for meld_id in sorted(set(melds)):
        m = by_id.get(meld_id)
        if m is None:
            continue
        kind = CANASTA_LABEL.get(m.kind, m.kind) or f"{m.type} {'clean' if m.clean else 'dirty'}"
        whose = "yours" if view.seat is not None and m.team == team_of(view.seat) else "theirs"
        lines.append(Text.assemble(f"meld #{m.id} ({whose}, {kind}): ", cards_text(m.cards, symbols)))
    return Text("\n").join(lines)


def render_text(renderable: RenderableType, width: int = 100, color: bool = False) -> str:
    """Return a renderable as text at a fixed width (ANSI colours only when `color`)."""
    buf = io.StringIO()
    console = Console(
        file=buf, width=width, color_system="standard" if color else None, force_terminal=color,
        no_color=not color, highlight=False, legacy_windows=False, _environ={},
    )
    console.print(renderable)
    return "\n".join(line.rstrip() for line in buf.getvalue().split("\n"))
