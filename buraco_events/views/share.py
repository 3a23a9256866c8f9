"""Share: a game's replay as one self-contained HTML page (pure: builds text, reads no log).

`replay_page(steps, ...)` returns the page: inline CSS, JS and SVG, nothing fetched, so it opens
offline from disk. Its data is one `<script type="application/json" id="buraco-replay">` holding,
per step, the object of `buraco replay LOG --at SEQ --json [--as SEAT]` (`Timeline.replay_object`,
the one builder of both). Whole objects would make a 4-player hand's page about 400 KB, so
`encode_steps` stores the first in full and each later one as its changes to the one before;
`decode_steps` (and the page's script) undoes it by this rule, also written into the data:

    steps[0] is the object of the first step; every later entry is a list of changes
    [path, value] to the object before it: path [key] sets that key, path [key, i] sets
    item i of that list (i equal to the list's length appends); nothing else changes.

Privacy is by construction: the page is made only of the step objects it is given (for a seat,
that seat's views) and a few public facts (the log's name and head). It never sees the events.

The template is package data beside this module (`share_page/`): HTML, CSS and JS edited as
themselves; it is read once, like the module's own source, and never changes the output. The card
drawing (`cards.js`, `cards.css`) is one home for the share page, which inlines it at its marks, and
the live table, which the server hands it to as a module and a style sheet.
"""

from __future__ import annotations

import html
import re
import shlex
import textwrap
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import msgspec

from buraco_events.audit.verdicts import headline
from buraco_events.core.gate import team_of
from buraco_events.model.scoring import SHEET_ROWS
from buraco_events.util.text import plural, visible

from .projections import Timeline, team_label
from .render import MARK_SIGN, accuracy_words, decision_words, points_words, samples_words
from .text import hand_words

#: the `format` of the embedded data; a reader refuses another
FORMAT = "buraco-replay/1"
#: the decoding rule, carried in the data so a reader needs nothing else
DECODING = (
    "steps[0] is the object of the first step; every later entry is a list of changes "
    "[path, value] to the object before it: path [key] sets that key, path [key, i] sets item i "
    "of that list (i equal to the list's length appends); nothing else changes. Step i is the "
    "object of `buraco replay LOG --at SEQ --json [--as SEAT]` for SEQ = i."
)
#: the id of the data's script element (a public interface: other programs read it)
DATA_ID = "buraco-replay"

_encoder = msgspec.json.Encoder()
_DATA_RE = re.compile(
    r'<script type="application/json" id="' + DATA_ID + r'">(.*?)</script>', re.DOTALL
)
#: characters a JSON text may hold that would end or confuse a <script> element (or a JS string)
_SCRIPT_UNSAFE = {b"<": b"\\u003c", b">": b"\\u003e", b"&": b"\\u0026",
                  "\u2028".encode(): b"\\u2028", "\u2029".encode(): b"\\u2029"}
_SCRIPT_UNSAFE_RE = re.compile(b"|".join(re.escape(k) for k in _SCRIPT_UNSAFE))


class ShareDataError(ValueError):
    """Data that is not a replay page's (no data element, another format, a bad change)."""


# -- the steps: full first, then changes -------------------------------------------------------


def timeline_steps(timeline: Timeline, seat: int | None, *, sealed: bool, error: str | None,
                   rulings: Any = None, decisions: Mapping[int, Any] | None = None) -> list[dict[str, Any]]:
    """Return the replay object of every step of a timeline, seen by `seat` (None: referee),
    each carrying `rulings` (the log's rulings report as builtins, or None) and, with `decisions`
    (the seat's analysed decisions by seq), its `decision`."""
    return [timeline.replay_object(seq, seat, sealed=sealed, error=error, rulings=rulings, decisions=decisions)
            for seq in range(timeline.last + 1)]


def _encoded(obj: Mapping[str, Any]) -> dict[str, bytes | list[bytes]]:
    """Return each top-level value as JSON bytes (a list's as one per item).

    Values are compared by their JSON, not with `==`, for which 1 == True and 0 == False.
    """
    return {k: [_encoder.encode(x) for x in v] if isinstance(v, list | tuple) else _encoder.encode(v)
            for k, v in obj.items()}


def encode_steps(objects: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Return the steps as stored in a page: the first object whole, then each one's changes."""
    if not objects:
        return []
    out: list[Any] = [dict(objects[0])]
    before = _encoded(objects[0])
    for obj in objects[1:]:
        now = _encoded(obj)
        if now.keys() != before.keys():
            raise ValueError("every step object must have the same keys")
        changes: list[list[Any]] = []
        for key, value in now.items():
            old = before[key]
            if value == old:
                continue
            if isinstance(value, list) and isinstance(old, list) and len(value) >= len(old):
                # a list that kept or grew its length changes item by item (melds, hands)
                changes += [[[key, i], obj[key][i]] for i, item in enumerate(value)
                            if i >= len(old) or item != old[i]]
            else:
                changes.append([[key], obj[key]])
        out.append(changes)
        before = now
    return out


def decode_steps(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return every step's object from a page's data (the rule in `DECODING`).

    Raises `ShareDataError` for another format or a change that does not fit the rule.
    """
    if data.get("format") != FORMAT:
        raise ShareDataError(f"format {data.get('format')!r} is not {FORMAT}")
    steps = data.get("steps")
    if not isinstance(steps, list):
        raise ShareDataError("steps: a list expected")
    if not steps:
        return []
    if not isinstance(steps[0], dict):
        raise ShareDataError("steps[0]: an object expected")
    out = [steps[0]]
    current: dict[str, Any] = steps[0]
    for n, changes in enumerate(steps[1:], 1):
        current = dict(current)  # values are shared between steps, never changed in place
        copied: set[str] = set()
        try:
            for path, value in changes:
                key = path[0]
                if len(path) == 1:
                    current[key] = value
                    continue
                (index,) = path[1:]
                if key not in copied:
                    current[key] = list(current[key])
                    copied.add(key)
                items = current[key]
                if index == len(items):
                    items.append(value)
                else:
                    items[index] = value
        except (TypeError, ValueError, KeyError, IndexError) as exc:
            raise ShareDataError(f"steps[{n}]: a change that does not fit the rule ({exc})") from None
        out.append(current)
    return out


def script_json(obj: Any) -> str:
    """Return JSON safe inside a <script> element: `<`, `>`, `&`, U+2028 and U+2029 escaped.

    Those characters only ever occur inside JSON strings, where `\\uXXXX` means the same, so the
    text still parses to the same value; `</script>` or `<!--` in a name cannot end the element.
    """
    raw = _encoder.encode(obj)
    return _SCRIPT_UNSAFE_RE.sub(lambda m: _SCRIPT_UNSAFE[m.group()], raw).decode()


def page_data(page: str) -> dict[str, Any]:
    """Return the data embedded in a replay page (decode its steps with `decode_steps`)."""
    found = _DATA_RE.search(page)
    if found is None:
        raise ShareDataError(f'no <script type="application/json" id="{DATA_ID}"> in the page')
    try:
        data = msgspec.json.decode(found.group(1))
    except msgspec.DecodeError as exc:
        raise ShareDataError(f"the page's data is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ShareDataError("the page's data is not a JSON object")
    return data


# -- the page -----------------------------------------------------------------------------------


#: where the card drawing goes in page.css and page.js (a line of its own)
_CARDS_MARK = "/*@cards*/\n"
#: what cards.js gives the live table's modules
_CARDS_EXPORTS = ("SVG", "SUIT_NAME", "back", "card", "cardRow", "el", "emptySlot", "middle", "plural", "stack", "visible")


def _read(name: str) -> str:
    """Return one file of the page's package data."""
    return resources.files(__package__).joinpath("share_page", name).read_text("utf-8")


def _splice(text: str, indent: str, cards: str) -> str:
    """Return `text` with its one card mark replaced by `cards`, each line indented as the mark."""
    mark = indent + _CARDS_MARK
    if text.count(mark) != 1:
        raise RuntimeError(f"the share page's template holds {text.count(mark)} card marks, not one")
    return text.replace(mark, textwrap.indent(cards, indent))


@lru_cache(maxsize=1)
def _template() -> tuple[str, str, str]:
    """Return the page's HTML, CSS and JS (package data, read once), the card drawing inlined."""
    css = _splice(_read("page.css"), "", _read("cards.css"))
    js = _splice(_read("page.js"), "  ", _read("cards.js"))
    return _read("page.html"), css, js


def cards_module() -> str:
    """Return cards.js as a JavaScript module: the live table draws its cards with it."""
    return _read("cards.js") + f"\nexport {{ {', '.join(_CARDS_EXPORTS)} }};\n"


def cards_css() -> str:
    """Return cards.css: the cards' style, for the live table."""
    return _read("cards.css")


def _h(text: object) -> str:
    """Return log text for HTML: control and bidi characters visible, markup escaped."""
    return html.escape(visible(str(text)), quote=True)


def audit_command(source: str, head: str | None) -> str:
    """Return the command that checks a log against its published head."""
    if head is None:
        return f"buraco audit {shlex.quote(source)}"
    return f"buraco audit {shlex.quote(source)} --expect-head {head}"


def _result_words(last: Mapping[str, Any]) -> str:
    """Return how the game went, from its last step: the winner and totals, or how far it got."""
    players = last["players"]
    hands = last["hand"] + 1
    played = plural(hands, "hand")
    if last["phase"] == "over" and last["winner"] is not None:
        winner = last["winner"]
        totals = " to ".join(str(t) for t in last["totals"])
        verb = "wins" if len(players) == 2 else "win"
        return f"{team_label(players, winner)} {verb} {totals} after {played}"
    if last["phase"] == "over":  # RULES 8: a tournament turn ended with equal totals
        return f"a tie, {' to '.join(str(t) for t in last['totals'])} after {played}"
    return f"unfinished: the log stops at seq {last['seq']}, in {hand_words(last['hand'])}"


def _view_words(first: Mapping[str, Any], seat: int | None) -> str:
    if seat is None:
        return "the referee's view: every card"
    return f"as {first['players'][seat]} (seat {seat}, team {team_of(seat)}) saw it"


def _titles(steps: Sequence[Mapping[str, Any]], spoiler: bool) -> tuple[str, str]:
    """Return a replay page's title (plain text) while stepping and at the last step: the result
    is in it only at the last step, or all along with `spoiler`."""
    first, last = steps[0], steps[-1]
    branch = first.get("branch")
    game = first["game_id"] if branch is None else branch["words"]
    plain = f"Buraco replay: {game} ({first['variant']})"
    result = f"Buraco replay: {game}: {_result_words(last)}"
    return (result if spoiler else plain), result


def _header(steps: Sequence[Mapping[str, Any]], seat: int | None, spoiler_free: bool,
            audit: Mapping[str, Any] | None, spoiler: bool = False) -> tuple[str, str]:
    """Return the page's <title> text and its header (both HTML, log text escaped)."""
    if not steps:
        name = audit.get("game_id") if audit else None
        title = f"Buraco audit: {_h(name or '?')}"
        return title, f"<h1>{title}</h1>"
    first, last = steps[0], steps[-1]
    branch = first.get("branch")
    # a branch is named in the title and the heading, never as the game itself
    game = _h(first["game_id"]) if branch is None else _h(branch["words"])
    players = ", ".join(_h(p) for p in first["players"])
    kind = "audit" if audit is not None else "replay"
    if audit is not None:
        title = f"{'PASS' if audit['ok'] else 'FAIL'} · Buraco audit: {game} ({_h(first['variant'])})"
    else:  # the result only with --spoiler; the page names it once the last step is reached
        title = _h(_titles(steps, spoiler and not spoiler_free)[0])
    lines = [
        f"<h1>Buraco {kind} <span class=gid>{game}</span></h1>",
        f"<p class=sub>{_h(first['variant'])} · {players} · {_h(_view_words(first, seat))}"
        + (" · spoiler-free" if spoiler_free else "") + "</p>",
    ]
    if not spoiler_free:
        by = "by the recount: " if audit is not None else ""
        if branch is not None:
            by += "in this branch (a hypothesis, not the game): "
        lines.append(f"<p class=result id=result>{by}{_h(_result_words(last))}</p>")
    return title, "\n".join(lines)


def _verify(source: str, head: str | None, sealed: bool,
            rulings: Mapping[str, Any] | None = None, rulings_head: str | None = None) -> str:
    """Return the block that tells how to check the page against the log (and names the rulings
    log, which the page shows as judged when it was made and does not verify)."""
    command = audit_command(source, head)
    parts = [
        "<h2>Check it</h2>",
        f"<p>Log <code>{_h(source)}</code>, head (SHA-256 of its last line):</p>",
        f"<p><code class=head id=head>{_h(head or 'none')}</code></p>",
        "<p>Anyone with the log can check that it is this one, line by line:</p>",
        f"<pre id=verify-cmd>{_h(command)}</pre>",
    ]
    if not sealed:
        parts.append("<p class=warn>This log is unsealed (no prev chain): the head covers only its"
                     " last line, so changes to earlier lines would go unseen.</p>")
    if rulings is not None:
        parts += [
            f"<p id=rulings-source>Rulings log <code>{_h(rulings['path'])}</code>, head"
            f" <code class=head>{_h(rulings_head or 'none')}</code>: a referee's decisions beside the"
            " log, not in it. <b>Not verified by this page</b>: they are shown as judged against the"
            " log when the page was made; the audit of the log and its rulings log checks them.</p>",
        ]
    return "\n".join(parts)




def _report(report: Mapping[str, Any]) -> str:
    """Return the top of the referee's report: the verdict and the problems (links to their seq)."""
    problems = report["problems"]
    failing = [p for p in problems if p["kind"] != "unsealed"]
    verdict = "PASS" if report["ok"] else "FAIL"
    seal = "sealed" if report["sealed"] else "UNSEALED"
    facts = [f"game {report['game_id'] or '?'}", plural(report["events"], "event"),
             plural(len(report["hands"]), "hand"), seal]
    head = report.get("first")
    first = None if head is None else headline(
        str(head["kind"]), int(head["seq"]), str(head["message"]), report.get("changed"),
        bool(report["sealed"]))
    # an edit, or an unsealed log, leads in a box of its own below the verdict: the verdict
    # line then says where, not the whole headline again
    boxed = first is not None and (report.get("changed") is not None or not report["sealed"])
    if failing and first is not None and head is not None:
        said = (f"the file was edited at seq {report['changed']}" if report.get("changed") is not None
                else f"{head['kind']} at seq {head['seq']}" if boxed else first)
        facts.append(f"{plural(len(failing), 'problem')}, first: {said}")
    out = ["<section id=report>",
           f"<h2>Audit: <span class='verdict {verdict.lower()}' id=verdict>{verdict}</span>"
           f" <span class=sub>{_h(report['path'])} ({_h(', '.join(facts))})</span></h2>"]
    if boxed and first is not None:
        out.append(f"<p class=warn id=headline>{_h(first[0].upper() + first[1:])}</p>")
    if problems:
        out.append("<table class=problems><thead><tr><th>seq</th><th>kind</th><th>message</th>"
                   "</tr></thead><tbody>")
        for p in problems:
            seq = int(p["seq"])
            out.append(f"<tr><td><a href='#seq={seq}' data-seq='{seq}'>{seq}</a></td>"
                       f"<td>{_h(p['kind'])}</td><td>{_h(p['message'])}</td></tr>")
        out.append("</tbody></table>")
    out.append("</section>")
    return "\n".join(out)


def _recount(report: Mapping[str, Any]) -> str:
    """Return each hand's RULES 7 recount beside the claim of its `hand_ended`."""
    if not report["hands"]:
        return ""
    out = ["<section id=recount><h2>Recount beside the claims (rules §7)</h2><div class=sheets>"]
    for hand in report["hands"]:
        if hand["reason"] is None:
            how = "unfinished (running recount)"
        elif hand["reason"] == "closed":
            how = f"closed by seat {hand['closed_by']}"
        else:
            how = str(hand["reason"]).replace("_", " ")
        teams = hand["detail"]
        out.append(f"<table class=sheet><caption>{hand_words(int(hand['hand']))}: {_h(how)}</caption>"
                   "<thead><tr><th>item</th>"
                   + "".join(f"<th>team {int(t['team'])}</th>" for t in teams) + "</tr></thead><tbody>")
        for key, label in SHEET_ROWS:
            out.append(f"<tr><td>{label}</td>" + "".join(f"<td>{int(t[key])}</td>" for t in teams) + "</tr>")
        out.append("<tr class=total><td>total (recount)</td>"
                   + "".join(f"<td>{int(t['total'])}</td>" for t in teams) + "</tr>")
        claimed = hand["claimed"]
        if claimed is not None and hand["reason"] is None:
            out.append("<tr><td>claimed (end not replayed)</td>"
                       + "".join(f"<td>{int(c)}</td>" for c in claimed) + "</tr>")
        elif claimed is not None:
            out.append("<tr><td>claimed</td>" + "".join(f"<td>{int(c)}</td>" for c in claimed) + "</tr>")
            marks = ["ok" if c == r else f"{c - r:+d}" for c, r in zip(claimed, hand["scores"], strict=False)]
            out.append("<tr class=diff><td>claimed − recount</td>"
                       + "".join(f"<td class={'ok' if m == 'ok' else 'bad'}>{m}</td>" for m in marks)
                       + "</tr>")
        out.append("</tbody></table>")
    out.append("</div></section>")
    return "\n".join(out)


def _banner(steps: Sequence[Mapping[str, Any]]) -> str:
    """Return the banner naming a branch, in the controls that stay on screen at every step; the
    script fills in whether the step lies before or after the fork. Empty for the game itself."""
    branch = steps[0].get("branch") if steps else None
    if branch is None:
        return ""
    return (f"<p id=branch-banner class=branch><b>{_h(branch['words'])}</b>"
            f" (by {_h(branch['by'])}: {_h(branch['reason'])})"
            " · <span id=branch-side>a hypothesis, not the game</span></p>")


def _ruling_cells(r: Mapping[str, Any]) -> str:
    what = ""
    if r["points"] is not None:
        what = " / ".join(f"{int(p):+d}" for p in r["points"])
    elif r["team"] is not None:
        what = f"team {int(r['team'])} wins"
    elif r["ruling_seq"] is not None:
        what = f"cancels ruling {int(r['ruling_seq'])}"
    elif r["branch_head"] is not None:
        what = f"branch head {_h(str(r['branch_head'])[:12])}…"
    applies = "applies" if r["applies"] else f"does not apply: {_h(r['why_not'])}"
    hand = "" if r["hand"] is None else str(int(r["hand"]) + 1)  # as people count hands
    return (f"<td>{int(r['seq'])}</td><td>{hand}</td><td>{_h(r['kind'])}</td><td>{what}</td>"
            f"<td>{_h(r['by'])}</td><td>{_h(r['reason'])}</td>"
            f"<td class={'ok' if r['applies'] else 'bad'}>{applies}</td>")


def _standings_cells(label: str, st: Mapping[str, Any], cls: str) -> str:
    winner = "not decided" if st["winner"] is None else f"team {int(st['winner'])}" + (
        " (awarded)" if st.get("awarded") else "")
    return (f"<tr class={cls}><td>{label}</td>" + "".join(f"<td>{int(t)}</td>" for t in st["totals"])
            + f"<td>{winner}</td></tr>")


def rulings_section(rulings: Mapping[str, Any]) -> str:
    """Return the referee's table of rulings (each with its hand, whether it applies and why not)
    and the standings after them beside the recount, never instead of it (log text escaped)."""
    out = ["<section id=rulings-report><h2>Rulings (a referee's decisions beside the log, not in it)</h2>",
           f"<p class=sub>from <code>{_h(rulings['path'])}</code>: {plural(len(rulings['rulings']), 'ruling')},"
           f" {sum(1 for r in rulings['rulings'] if r['applies'])} apply</p>"]
    if rulings.get("problem"):
        out.append(f"<p class=warn>The rulings log stops: {_h(rulings['problem'])}</p>")
    if rulings["rulings"]:
        out.append("<table class=problems id=rulings-table><thead><tr><th>seq</th><th>hand</th><th>kind</th>"
                   "<th>decides</th><th>by</th><th>reason</th><th>applies</th></tr></thead><tbody>")
        out += [f"<tr>{_ruling_cells(r)}</tr>" for r in rulings["rulings"]]
        out.append("</tbody></table>")
    out.append("<table class=sheet id=rulings-standings><thead><tr><th>standings</th><th>team 0</th>"
               "<th>team 1</th><th>winner</th></tr></thead><tbody>")
    out.append(_standings_cells("recount (the log's events)", rulings["recount"], "total"))
    out.append(_standings_cells("after rulings (apart from the recount)", rulings["after"], "after"))
    out.append("</tbody></table></section>")
    return "\n".join(out)


def analysis_summary(analysis: Any) -> dict[str, Any]:
    """Return an analysis (`analysis.evaluate.Analysis`) as the page's `analysis`: its fields as
    builtins, `decisions` the number of them (each is in its step, as `decision`, as `replay
    --json` has it), and `words` what each says by seq (`render.decision_words`, which the page
    shows as they are: the words have one home)."""
    doc: dict[str, Any] = msgspec.to_builtins(analysis)
    doc["words"] = {str(d["seq"]): decision_words(d) for d in doc["decisions"]}
    doc["decisions"] = len(doc["decisions"])
    return doc


def _analysis_line(summary: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> str:
    """Return the header's line on the analysis: whose, how sampled, its mean loss and accuracy."""
    marked = sum(1 for v in steps if (v.get("decision") or {}).get("mark"))
    return (f"<p class=sub id=analysis-summary>analysis of {_h(summary['player'])} (seat {int(summary['seat'])}):"
            f" {int(summary['decisions'])} decisions, {_h(samples_words(summary, steps))} (seed"
            f" {_h(summary['seed'])}), mean loss {_h(points_words(float(summary['mean_loss'])))} points a decision,"
            f" accuracy {_h(accuracy_words(summary))}; {marked} marked</p>")


def _marks(steps: Sequence[Mapping[str, Any]], spoiler_free: bool) -> str:
    """Return the seq bar's marks: a link per marked decision of the seat, coloured by its mark and
    titled with what it cost, placed along the seq bar (in a row when `spoiler_free`: a place on
    the bar would tell the game's length)."""
    last = max(len(steps) - 1, 1)
    links = []
    for seq, v in enumerate(steps):
        d = v.get("decision")
        if not d or not d.get("mark"):
            continue
        words = f"seq {seq}: {decision_words(d)}"
        place = "" if spoiler_free else f" style='left:{100 * seq / last:.2f}%'"
        links.append(f"<a class='mark mark-{_h(d['mark'])}' href='#seq={seq}' data-seq='{seq}'"
                     f" title='{_h(words)}' aria-label='{_h(words)}'{place}>{_h(MARK_SIGN[d['mark']])}</a>")
    bar = "".join(links) or "<span class=none>no marked decision</span>"
    return (f"<div id=marks class='{'row' if spoiler_free else 'bar'}' aria-label='the seat&#x27;s marked"
            f" decisions (x: the next one)'>{bar}</div>")


def replay_page(
    steps: Sequence[Mapping[str, Any]],
    *,
    source: str,
    head: str | None,
    sealed: bool = True,
    seat: int | None = None,
    at: int = 0,
    spoiler_free: bool = False,
    spoiler: bool = False,
    rules: Mapping[str, Any] | None = None,
    audit: Mapping[str, Any] | None = None,
    rulings_head: str | None = None,
    analysis: Mapping[str, Any] | None = None,
) -> str:
    """Return the page replaying `steps` (each step's replay object, seq 0 first), opening at `at`.

    `source` is the log's name as the page shows it, `head` its head; `seat` whose view the steps
    are (None: the referee's). The title names the result only at the last step (the page sets it
    there), or from the start with `spoiler`; `spoiler_free` keeps the result out of the header and
    any summary too. `rules` (the game's rules as builtins, public in its first event) tell the page
    whether the pile is open or closed. `audit` (an `AuditReport` as builtins) makes it the
    referee's report page. A branch's steps (their `branch`) put a banner naming it on screen at
    every step; their `rulings` (the same in every step) are shown at their hands, and
    `rulings_head` is the head of that rulings log, named beside the log's. `analysis` (the
    seat's, `analysis_summary`; the steps then carry their `decision`) is summed up in the header,
    each step shows what its decision cost and the seq bar marks the marked decisions.
    """
    if steps and not 0 <= at < len(steps):
        raise ValueError(f"at {at}: outside the steps 0..{len(steps) - 1}")
    data = {
        "format": FORMAT,
        "decoding": DECODING,
        "source": source,
        "head": head,
        "sealed": sealed,
        "verify": audit_command(source, head),
        "seat": seat,
        "at": at,
        "spoiler_free": spoiler_free,
        "rules": rules,
        "audit": audit,
        "rulings_head": rulings_head,
        "steps": encode_steps(steps),
    }
    if analysis is not None:
        data["analysis"] = dict(analysis)
    if steps and audit is None:  # the titles the page sets while stepping and at the last step
        data["titles"] = list(_titles(steps, spoiler and not spoiler_free))
    rulings = steps[0].get("rulings") if steps else None
    title, header = _header(steps, seat, spoiler_free, audit, spoiler)
    page, css, js = _template()
    parts = {
        "title": title,
        "css": css,
        "header": header + ("\n" + _analysis_line(analysis, steps) if analysis is not None else ""),
        "marks": _marks(steps, spoiler_free) if analysis is not None else "",
        "banner": _banner(steps),
        "report": _report(audit) if audit is not None else "",
        "recount": _recount(audit) if audit is not None else "",
        "rulings": rulings_section(rulings) if audit is not None and rulings is not None else "",
        "verify": _verify(source, head, sealed, rulings, rulings_head),
        "data": script_json(data),
        "js": js,
    }
    # one pass over the template: a value never has its own text searched for markers
    return re.sub(r"<!--@(\w+)-->", lambda m: parts[m.group(1)], page)


__all__ = [
    "DATA_ID", "DECODING", "FORMAT", "ShareDataError", "analysis_summary", "audit_command", "cards_css",
    "cards_module", "decode_steps",
    "encode_steps", "page_data", "replay_page", "rulings_section", "script_json", "timeline_steps",
]
