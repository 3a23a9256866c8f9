"""The standings page of a tournament: one self-contained HTML file (no script, no request), the
standings with each round's opponent, totals and victory points, the disputed results and the
adjustments apart, every table's game linked to its share page and its audit page, and, with
duplicate deals, the travellers: each round's tables side by side on the same deals, each
entry's difference against the field's average on them.

Everything from the logs (names, players, reasons, game ids) is escaped and made visible.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from urllib.parse import quote

from buraco_events.tournament.standings import Outcome, Standings
from buraco_events.util.text import visible

#: a game's links: (share page, audit page), hrefs relative to the standings page
Links = Mapping[str, tuple[str | None, str | None]]

_CSS = """
:root { color-scheme: light dark; --line: #8884; --muted: #777; --bad: #c0392b; --good: #1e8449; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; padding: 12px; max-width: 1200px; }
h1 { font-size: 1.4em; margin: 0.2em 0; } h2 { font-size: 1.15em; margin: 1.2em 0 0.4em; }
p.meta { color: var(--muted); margin: 0 0 0.8em; overflow-wrap: anywhere; }
code { overflow-wrap: anywhere; word-break: break-all; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; max-width: 100%; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: right; white-space: nowrap; }
th { position: sticky; top: 0; background: Canvas; }
td.name, th.name { text-align: left; white-space: normal; min-width: 8em; }
td.cell small { display: block; color: var(--muted); }
.disputed { color: var(--bad); } .plus { color: var(--good); } .minus { color: var(--bad); }
a { color: inherit; }
ul { padding-left: 1.2em; }
@media (max-width: 600px) { body { font-size: 14px; padding: 8px; } th, td { padding: 3px 5px; } }
"""


def _h(text: object) -> str:
    return escape(visible(str(text)))


def _href(path: str | None) -> str | None:
    return None if path is None else quote(path)


def _game_links(game_id: str, links: Links) -> str:
    share, audit = links.get(game_id, (None, None))
    parts = []
    if share is not None:
        parts.append(f'<a class="share" href="{_h(_href(share))}">game</a>')
    if audit is not None:
        parts.append(f'<a class="audit" href="{_h(_href(audit))}">audit</a>')
    return " · ".join(parts)


def _signed(n: int) -> str:
    cls = "plus" if n > 0 else "minus" if n < 0 else ""
    return f'<span class="{cls}">{n:+d}</span>'


def _standings(table: Standings, links: Links) -> str:
    head = "".join(f"<th>R{i}</th>" for i in range(1, table.rounds_paired + 1))
    rows = []
    for row in table.rows:
        cells = []
        for c in row.rounds:
            if c.opponent is None:
                cells.append(f'<td class="cell">{_h(c.status)}</td>')
                continue
            link = _game_links(c.game_id or "", links)
            if c.status == "counted" and c.totals is not None:
                body = f"v {c.opponent}: <b>{c.vp}</b><small>{c.totals[0]}–{c.totals[1]} {link}</small>"
            else:
                body = f'v {c.opponent}: <span class="{_h(c.status)}">{_h(c.status)}</span><small>{link}</small>'
            cells.append(f'<td class="cell">{body}</td>')
        name = _h(row.name) + (" <small>(withdrawn)</small>" if row.withdrawn else "")
        adjusted = f" <small>({row.adjusted:+d} adj.)</small>" if row.adjusted else ""
        rows.append(f"<tr><td>{row.place}</td><td>{row.entry}</td><td class=\"name\">{name}</td>"
                    f"<td><b>{row.vp}</b>{adjusted}</td><td>{_signed(row.diff)}</td>{''.join(cells)}</tr>")
    return (f'<div class="scroll"><table id="standings"><thead><tr><th>#</th><th>entry</th>'
            f'<th class="name">name</th><th>VP</th><th>diff</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _apart(table: Standings) -> str:
    out = []
    if table.disputed:
        items = "".join(f"<li>round {d['round']} table {d['table']} ({_h(d['game_id'])}): "
                        f"{_h(d['reason'])}</li>" for d in table.disputed)
        out.append(f'<h2>Disputed results</h2><ul id="disputed" class="disputed">{items}</ul>')
    if table.adjustments:
        items = "".join(f"<li>round {a['round']}, entry {a['entry']}: {int(str(a['vp'])):+d} VP by "
                        f"{_h(a['by'])}: {_h(a['reason'])}</li>" for a in table.adjustments)
        out.append(f'<h2>Adjustments</h2><ul id="adjustments">{items}</ul>')
    return "".join(out)


def _travellers(table: Standings, names: Mapping[int, str], links: Links) -> str:
    """Each round's tables on the same deals side by side, each against the field's average."""
    out = ['<h2>Travellers</h2><p class="meta">Every table of a round played the same deals: team 0'
           ' (the first entry) held the same cards everywhere. "vs field" is the difference against'
           " the average of the round's counted tables.</p>"]
    for r in range(1, table.rounds_paired + 1):
        tables: list[Outcome] = [o for o in table.tables if o.round == r]
        diffs = [o.totals[0] - o.totals[1] for o in tables if o.status == "counted" and o.totals]
        mean = sum(diffs) / len(diffs) if diffs else 0.0
        rows = []
        for o in tables:
            a, b = o.entries
            if o.status == "counted" and o.totals is not None and o.vp is not None:
                d = o.totals[0] - o.totals[1]
                field = d - mean
                score = (f"<td>{o.totals[0]}</td><td>{o.totals[1]}</td><td>{_signed(d)}</td>"
                         f"<td>{field:+.1f}</td><td>{-field:+.1f}</td><td>{o.vp[0]}–{o.vp[1]}</td>")
            else:
                score = f'<td colspan="6" class="disputed">{_h(o.status)}</td>'
            rows.append(f"<tr><td>{o.table}</td><td class=\"name\">{a} {_h(names.get(a, ''))}</td>"
                        f"<td class=\"name\">{b} {_h(names.get(b, ''))}</td>{score}"
                        f"<td>{_game_links(o.game_id, links)}</td></tr>")
        out.append(f'<h3>Round {r}</h3><div class="scroll"><table class="traveller" data-round="{r}">'
                   "<thead><tr><th>table</th><th class=\"name\">team 0</th><th class=\"name\">team 1</th>"
                   "<th>points 0</th><th>points 1</th><th>diff</th><th>0 vs field</th><th>1 vs field</th>"
                   f"<th>VP</th><th></th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>")
    return "".join(out)


def standings_page(table: Standings, links: Links, head: str | None, source: str) -> str:
    """Return the standings page (`links`: each game's share and audit pages, by game id)."""
    names = {row.entry: row.name for row in table.rows}
    title = f"{visible(table.name)}: standings"
    closed = f"round {table.rounds_closed} of {table.rounds} closed"
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_h(table.name)}</h1>",
        f'<p class="meta">{_h(table.movement)}, {_h(table.deals)} deals, {closed}; '
        f"{_h(source)} head <code>{_h(head or '')}</code>. Every counted result is a game log that "
        "audits clean, recounted; check it with <code>buraco tournament audit</code>.</p>",
        _standings(table, links),
        _apart(table),
    ]
    if table.deals == "duplicate":
        parts.append(_travellers(table, names, links))
    parts.append("</body></html>\n")
    return "\n".join(parts)
