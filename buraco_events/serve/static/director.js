// buraco serve: the director's page of a tournament. Reads GET /api/director every few seconds
// with the director's token (kept in the URL's fragment, sent as a bearer token, never in a
// query), shows the round's tables (public facts only), the seat links and the standings, and
// closes the round or pairs the next with POST /api/director/close and /api/director/pair.
// Every text from the server goes into textContent (el): never parsed as markup.

import { el, localUrl, plural } from "./common.js";

const $ = (id) => document.getElementById(id);
const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
const EVERY = 2000;

async function call(path, method) {
  const answer = await fetch(path, { method: method || "GET", headers: { Authorization: "Bearer " + token },
    cache: "no-store" });
  const body = await answer.json().catch(() => ({ error: "the server answered " + answer.status }));
  if (!answer.ok) throw new Error(body.error || "the server answered " + answer.status);
  return body;
}

function say(text) {
  $("message").hidden = !text;
  $("message").textContent = text || "";
}

function resultText(t) {
  const r = t.result;
  if (r.status === "counted") return "recorded: " + r.totals.join(" – ") + " (VP " + r.vp.join(" – ") + ")";
  if (r.status === "disputed") return "disputed: " + (r.reason || "");
  const rec = t.recording;
  if (rec && rec.state === "refused") return "refused: " + rec.message;
  if (rec && rec.state === "waiting") return "waiting to record: " + rec.message;
  if (rec && rec.state === "recording") return "recording…";
  return "no result yet";
}

function renderTables(data) {
  const box = $("round-tables");
  box.replaceChildren();
  if (!data.tables.length) {
    box.appendChild(el("p", "none", data.ended ? "the tournament is over" : "no round is open"));
    return;
  }
  const table = el("table", "tables");
  const head = el("tr");
  for (const h of ["table", "entries", "players", "hand", "totals", "status", "result"]) head.appendChild(el("th", "", h));
  const thead = el("thead");
  thead.appendChild(head);
  table.appendChild(thead);
  const body = el("tbody");
  for (const t of data.tables) {
    const tr = el("tr", "round-table");
    tr.dataset.table = String(t.table);
    tr.appendChild(el("td", "", "table " + t.table));
    tr.appendChild(el("td", "", t.entries.join(" v ")));
    const players = t.players.map((p, s) => p + (t.connected ? (t.connected[s] ? " ●" : " ○") : ""));
    const who = el("td", "", players.join(", "));
    who.dataset.label = "players";
    tr.appendChild(who);
    tr.appendChild(el("td", "hand", t.hand === null || t.hand < 0 ? "" : "hand " + (t.hand + 1)));
    const totals = el("td", "totals", t.totals ? t.totals.join("–") : "");
    totals.dataset.label = "totals";
    tr.appendChild(totals);
    tr.appendChild(el("td", "status-" + t.status, t.failed ? "stopped: " + t.failed : t.status));
    tr.appendChild(el("td", "result result-" + t.result.status, resultText(t)));
    body.appendChild(tr);
  }
  table.appendChild(body);
  box.appendChild(table);
}

function renderLinks(data) {
  const box = $("links");
  box.replaceChildren();
  let any = false;
  for (const t of data.tables) {
    for (const s of t.seats) {
      const url = localUrl(s.url);
      if (!url) continue;
      any = true;
      const row = el("div", "link seat-link");
      row.appendChild(el("span", "", "table " + t.table + ", seat " + s.seat + " (" + s.player + ")"));
      const a = el("a", "", url);
      a.href = url;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      row.appendChild(a);
      box.appendChild(row);
    }
  }
  if (!any) box.appendChild(el("p", "none", "none"));
}

function renderStandings(data) {
  const body = $("standings").querySelector("tbody");
  body.replaceChildren();
  for (const r of data.standings) {
    const tr = el("tr");
    tr.appendChild(el("td", "", String(r.place)));
    tr.appendChild(el("td", "", r.entry + ". " + r.name + (r.withdrawn ? " (withdrawn)" : "")));
    tr.appendChild(el("td", "", String(r.vp)));
    tr.appendChild(el("td", "", String(r.diff)));
    body.appendChild(tr);
  }
}

function render(data) {
  const t = data.tournament;
  $("title").textContent = t.name;
  $("what").textContent = t.form + ", " + t.variant + ", " + t.movement + ", " + plural(t.rounds, "round")
    + (t.deals === "duplicate" ? ", duplicate deals" : "");
  $("round-title").textContent = data.round === null ? "No round yet"
    : "Round " + data.round + " of " + t.rounds + (data.round_closed ? " (closed)" : "");
  $("bye").hidden = !data.bye;
  $("bye").textContent = data.bye ? "bye: " + data.bye : "";
  renderTables(data);
  renderLinks(data);
  renderStandings(data);
  $("close-round").hidden = !data.can_close;
  $("pair-next").hidden = !data.can_pair;
}

async function refresh() {
  try {
    render(await call("/api/director"));
    say("");
    $("socket").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    say(e.message);
  }
}

async function act(path, button) {
  button.disabled = true;
  $("action-message").textContent = "…";
  try {
    render(await call(path, "POST"));
    $("action-message").textContent = "";
  } catch (e) {
    $("action-message").textContent = e.message;
  } finally {
    button.disabled = false;
  }
}

$("close-round").addEventListener("click", () => act("/api/director/close", $("close-round")));
$("pair-next").addEventListener("click", () => act("/api/director/pair", $("pair-next")));
if (!token) say("this page needs the director's link (the one the server printed at start)");
refresh();
setInterval(refresh, EVERY);
