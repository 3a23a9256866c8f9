// buraco serve: the panels around the table: a hand's score sheet, the game's result with the
// links to its pages, and the deal's commitment. Every text through textContent (common.el).
import { el, localUrl, teamLabel, teamOf } from "./common.js";

const PLAYING = ["draw", "play", "dead"];
const $ = (id) => document.getElementById(id);
// a team's score object's items and their names (model/scoring.py's SHEET_ROWS and HAND_TOTAL: a
// test keeps them equal), for the sheet of a hand still being played
const SHEET_ROWS = [
  ["meld_points", "cards in melds"], ["canasta_bonus", "canastas"], ["close_bonus", "closing"],
  ["hand_penalty", "cards left in hand"], ["dead_penalty", "dead penalty"], ["total", "hand total"],
];

// A score sheet's rows as [label, [value per team], key]: the rows the server names
// (`hand_ended`'s sheet), or those of each team's score object (a view's hand_scores).
export function sheetRows(sheet) {
  if (!sheet) return [];
  if (Array.isArray(sheet.rows)) {
    return sheet.rows.map((r) => Array.isArray(r) ? [String(r[0]), r.slice(1).flat(), ""]
      : [String(r.label || r.key), r.values || [], r.key || ""]);
  }
  const teams = Array.isArray(sheet) ? sheet : Array.isArray(sheet.teams) ? sheet.teams : null;
  if (teams && teams.length && typeof teams[0] === "object") {
    const known = SHEET_ROWS.filter(([k]) => k in teams[0]);
    const others = Object.keys(teams[0]).filter((k) => k !== "team" && !SHEET_ROWS.some(([n]) => n === k) &&
      teams.every((t) => typeof t[k] === "number"));
    return known.map(([k, label]) => [label, teams.map((t) => t[k]), k])
      .concat(others.map((k) => [k.replace(/_/g, " "), teams.map((t) => t[k]), k]));
  }
  return Object.keys(sheet).filter((k) => Array.isArray(sheet[k]) && sheet[k].every((x) => typeof x === "number"))
    .map((k) => [k.replace(/_/g, " "), sheet[k], k]);
}

// A score sheet as a table: a column per team, the running total last.
export function scoreTable(caption, rows, totals, players) {
  const table = el("table", "sheet");
  table.appendChild(el("caption", "", caption));
  const head = el("tr");
  head.appendChild(el("th", "", ""));
  [0, 1].forEach((t) => head.appendChild(el("th", "", "team " + t + " (" + teamLabel(players, t) + ")")));
  table.appendChild(el("thead")).appendChild(head);
  const body = table.appendChild(el("tbody"));
  const row = (label, values, cls) => {
    const tr = el("tr", cls || "");
    tr.appendChild(el("td", "", label));
    values.forEach((x) => tr.appendChild(el("td", "", String(x))));
    body.appendChild(tr);
  };
  rows.forEach(([label, values, key]) => row(label, values, key === "total" ? "total" : ""));
  if (totals) row("running total", totals, "total");
  return table;
}

// The score sheet: the last hand's as `hand_ended` gave it (it stays until the next hand ends),
// else the sheet of the hand so far from the view, and the totals before the hand while playing.
export function drawScores(ended, view, players) {
  const box = $("scores");
  box.textContent = "";
  box.appendChild(el("h2", "", "Score sheet"));
  if (ended) {
    let rows = sheetRows(ended.sheet);
    if (!rows.length && Array.isArray(ended.scores)) rows = [["hand total", ended.scores, "total"]];
    const t = scoreTable("hand " + (ended.hand + 1) + " (ended)", rows, ended.totals, players);
    t.id = "hand-sheet";
    box.appendChild(t);
  } else if (view && view.hand_scores && view.hand_scores.length) {
    const during = PLAYING.includes(view.phase);
    // the cards still held count only once every hand is seen (the share page says "hidden")
    const rows = sheetRows(view.hand_scores).map(([label, values, key]) =>
      [label, key === "hand_penalty" && view.hands_counted === false ? values.map(() => "hidden") : values, key]);
    box.appendChild(scoreTable("hand " + (view.hand + 1) + (during ? " so far" : ""), rows, view.scores, players));
  } else {
    box.appendChild(el("p", "none", "no hand has ended yet"));
  }
  if (view && PLAYING.includes(view.phase)) {
    box.appendChild(el("p", "sub", "totals before this hand: " + view.totals.join(" / ")));
  }
}

// The deals' commitments (hex by hand), each published at its deal, and the salts that open them
// once their hands have ended (by hand): what lets anyone check that a deal was fixed before
// play. The last two hands are shown.
export function drawFairness(commitments, salts) {
  const box = $("fairness");
  box.textContent = "";
  const hands = Object.keys(commitments).map(Number).sort((a, b) => a - b).slice(-2);
  box.hidden = !hands.length;
  hands.forEach((hand) => {
    const line = box.appendChild(el("span", "deal"));
    line.dataset.hand = String(hand);
    line.appendChild(el("span", "", "hand " + (hand + 1) + " deal committed: "));
    line.appendChild(el("code", "", commitments[hand].slice(0, 16) + "…")).title = commitments[hand];
    if (salts[hand]) {
      line.appendChild(el("span", "", " · salt revealed: "));
      line.appendChild(el("code", "salt", String(salts[hand]).slice(0, 16) + "…")).title = salts[hand];
    }
  });
}

// The game's result (the `ended` message), seen by `seat` (null: a spectator).
export function drawResult(r, players, seat) {
  const box = $("result");
  box.textContent = "";
  box.hidden = false;
  box.appendChild(el("h2", "", "Game over"));
  const won = r.winner !== null && r.winner !== undefined;
  let words = won ? "team " + r.winner + " (" + teamLabel(players, r.winner) + ") won" : "a tie";
  if (seat !== null && won) words += teamOf(seat, players.length) === r.winner ? ": you won" : ": you lost";
  box.appendChild(el("p", "winner", words)).id = "winner";
  box.appendChild(el("p", "totals", "final score: " +
    (r.totals || []).map((x, t) => "team " + t + " " + x).join(" · "))).id = "final-totals";
  const links = el("p", "links");
  [["log_url", "the log (JSON Lines)"], ["share_url", "the replay page"], ["audit_url", "the audit page"]]
    .forEach(([k, label]) => {
      const href = r[k] ? localUrl(r[k]) : null;
      if (!href) return;
      const a = el("a", "", label);
      a.href = href;
      a.id = "link-" + k.replace("_url", "");
      links.appendChild(a);
    });
  box.appendChild(links);
}
