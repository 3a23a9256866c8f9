"""The fair-play report as one offline HTML page (`buraco fairplay --html F`).

The page draws its cards as the share page does: the share page's `cards.js` and `cards.css`
inlined, with its suit sprite. The report goes in as JSON inside the page (every `<` escaped,
so no text from a log can close the script), and the script writes every text with
`textContent`: nothing from a log is parsed as markup. Nothing is fetched: one file, offline.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

_STYLE = """
:root { --ink: #1b1b1b; --red: #c8102e; --paper: #fffdf7; --cw: 40px; --ch: 56px; --overlap: -12px;
  --felt: #1f6f43; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: #f4f1ea; color: var(--ink); }
main { max-width: 980px; margin: 0 auto; padding: 16px; }
.sprite { display: none; }
table.oracles { border-collapse: collapse; margin: 8px 0 16px; }
table.oracles td, table.oracles th { border-bottom: 1px solid #ccc; padding: 4px 10px; text-align: right; }
.level-review { color: #a33; font-weight: 700; } .level-note { color: #a60; font-weight: 700; }
.ev { background: var(--felt); color: #fff; border-radius: 8px; padding: 10px 14px; margin: 12px 0; }
.ev .line { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin: 4px 0; }
.ev .label { min-width: 130px; opacity: .85; }
.ev code { background: rgba(0,0,0,.3); padding: 2px 6px; border-radius: 4px; }
.note { color: #555; }
.words { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.words .cards { padding-left: 12px; margin-top: 0; }
"""

_SCRIPT = r"""
var REPORT = JSON.parse(document.getElementById("report").textContent);
var CARD = /^(10|[2-9AJQK])[SHDC]$|^JK$/;
function words(text) {
  // runs of cards drawn as the share page's card rows, the words between them as text
  var out = el("span", "words"), run = [];
  function flush() { if (run.length) { out.appendChild(cardRow(run, -1)); run = []; } }
  String(text).split(" ").forEach(function (w) {
    if (CARD.test(w)) { run.push(w); } else if (w) { flush(); out.appendChild(el("span", "w", w)); }
  });
  flush();
  return out;
}
function line(label, node) {
  var div = el("div", "line");
  div.appendChild(el("span", "label", label));
  div.appendChild(node);
  return div;
}
var root = document.getElementById("root");
REPORT.forEach(function (r) {
  root.appendChild(el("h2", "", r.player + ": " + r.games + " games, " + r.decisions + " decisions"));
  root.appendChild(el("p", "note", r.test));
  var t = el("table", "oracles");
  var head = el("tr");
  ["oracle", "informative", "matches", "expected", "p-value", "level"].forEach(function (h) {
    head.appendChild(el("th", "", h));
  });
  t.appendChild(head);
  r.oracles.forEach(function (o) {
    var tr = el("tr");
    [o.oracle, o.informative, o.matches, o.expected, o.p_value.toPrecision(3)].forEach(function (v) {
      tr.appendChild(el("td", "", v));
    });
    tr.appendChild(el("td", "level-" + o.level, o.level));
    t.appendChild(tr);
  });
  root.appendChild(t);
  root.appendChild(el("p", "note", r.words));
  r.evidence.forEach(function (e) {
    var box = el("div", "ev");
    box.appendChild(el("strong", "", e.log + ", seq " + e.seq + " (hand " + (e.hand + 1) + "), oracle " + e.oracle));
    box.appendChild(line("could see", words(e.seen.replace(/[;:]/g, " "))));
    box.appendChild(line("chose", words(e.chosen)));
    box.appendChild(line("info-set best", words(e.infoset_best)));
    box.appendChild(line("oracle best", words(e.oracle_best)));
    box.appendChild(line("hidden", words(e.hidden.replace(/[;:]/g, " "))));
    box.appendChild(line("honest chance", el("span", "", (100 * e.chance).toFixed(1) + "%")));
    box.appendChild(line("open it", el("code", "", e.command)));
    root.appendChild(box);
  });
});
"""


def _share(name: str) -> str:
    return resources.files(__package__).joinpath("share_page", name).read_text("utf-8")


def _sprite() -> str:
    found = re.search(r'<svg class="sprite".*?</svg>', _share("page.html"), re.S)
    if found is None:
        raise RuntimeError("the share page's template holds no suit sprite")
    return found.group(0)


def fairplay_page(reports: list[dict[str, Any]]) -> str:
    """Return the page of one or more players' fair-play reports (the `--json` objects)."""
    data = json.dumps(reports).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>Fair-play report</title>\n"
        f"<style>{_STYLE}\n{_share('cards.css')}</style></head><body>\n{_sprite()}\n"
        "<main><h1>Fair-play report</h1>\n"
        "<p class=\"note\">This page weighs evidence; it does not accuse anyone. A level says how unusual the "
        "matches with hidden cards are for an honest player of the same strength.</p>\n"
        "<div id=\"root\"></div></main>\n"
        f"<script type=\"application/json\" id=\"report\">{data}</script>\n"
        f"<script>\n{_share('cards.js')}\n{_SCRIPT}</script>\n</body></html>\n"
    )


__all__ = ["fairplay_page"]
