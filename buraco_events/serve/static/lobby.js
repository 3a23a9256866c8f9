// buraco serve: the lobby. Creates a table (POST /api/tables), shows its links, remembers the
// tables this browser created (localStorage, with their links) and lists the server's tables.
// Every text from the server goes through textContent (common.el), never parsed as markup.
import { el, localUrl, visible } from "./common.js";

const $ = (id) => document.getElementById(id);
const STORE = "buraco-serve-tables";
// at most this many tables are remembered (the oldest are dropped first)
const REMEMBERED = 50;
// the server's tables are listed again this often
const REFRESH_MS = 15000;

let variants = [];
let bots = ["greedy"];
// the server's facts of each table by id (status, hand, totals), from its listing
let listed = {};


function remembered() {
  try {
    const list = JSON.parse(localStorage.getItem(STORE) || "[]");
    return Array.isArray(list) ? list : [];
  } catch (e) {
    return [];
  }
}

function remember(entry) {
  const list = remembered().filter((t) => t.table_id !== entry.table_id);
  list.unshift(entry);
  try { localStorage.setItem(STORE, JSON.stringify(list.slice(0, REMEMBERED))); } catch (e) { /* full or off */ }
}

function forget(tableId) {
  try { localStorage.setItem(STORE, JSON.stringify(remembered().filter((t) => t.table_id !== tableId))); } catch (e) { /* off */ }
}

// -- the form ------------------------------------------------------------------------------------

function chosenVariant() { return variants.find((v) => v.name === $("variant").value) || null; }
function playerCount() { return Number(document.querySelector('input[name="players"]:checked').value); }

function drawForm() {
  const v = chosenVariant();
  const counts = v && Array.isArray(v.players) ? v.players : [2, 4];
  [2, 4].forEach((n) => {
    const radio = $("players-" + n);
    radio.disabled = !counts.includes(n);
    radio.parentElement.hidden = radio.disabled;
  });
  if (document.querySelector('input[name="players"]:checked').disabled) {
    $("players-" + counts[0]).checked = true;
  }
  const hasTarget = v && v.target !== null && v.target !== undefined;
  const hasHands = v && v.hands_per_game !== null && v.hands_per_game !== undefined;
  $("target-label").hidden = $("target-hint").hidden = !hasTarget;
  $("hands-label").hidden = !hasHands;
  if (hasTarget) $("target").placeholder = String(v.target);
  if (hasHands) $("hands").placeholder = String(v.hands_per_game);
  drawSeats();
}

function drawSeats() {
  const box = $("seats");
  const n = playerCount();
  const old = {};
  box.querySelectorAll(".seatrow").forEach((row) => {
    old[row.dataset.seat] = { name: row.querySelector(".name").value, who: row.querySelector(".who").value };
  });
  box.textContent = "";
  for (let s = 0; s < n; s++) {
    const row = el("div", "seatrow");
    row.dataset.seat = String(s);
    row.appendChild(el("strong", "", "seat " + s));
    row.appendChild(el("span", "sub", "team " + (n === 4 ? s % 2 : s)));
    const who = el("select", "who");
    who.id = "who-" + s;
    who.setAttribute("aria-label", "who sits at seat " + s);
    const person = el("option", "", "a person (invite link)");
    person.value = "";
    who.appendChild(person);
    bots.forEach((b) => {
      const o = el("option", "", "bot: " + b);
      o.value = b;
      who.appendChild(o);
    });
    const name = el("input", "name");
    name.type = "text";
    name.id = "name-" + s;
    name.maxLength = 40;
    name.placeholder = "name (optional)";
    name.setAttribute("aria-label", "name of seat " + s);
    const was = old[String(s)];
    if (was) { name.value = was.name; who.value = was.who; } else if (s > 0) { who.value = bots[0]; }
    const label = el("label", "", "");
    label.appendChild(who);
    row.appendChild(label);
    row.appendChild(name);
    box.appendChild(row);
  }
}

function body() {
  const out = { variant: $("variant").value, players: playerCount() };
  const botSeats = {}, names = {};
  document.querySelectorAll("#seats .seatrow").forEach((row) => {
    const s = row.dataset.seat;
    const who = row.querySelector(".who").value;
    const name = row.querySelector(".name").value.trim();
    if (who) botSeats[s] = who;
    if (name) names[s] = name;
  });
  if (Object.keys(botSeats).length) out.bots = botSeats;
  if (Object.keys(names).length) out.names = names;
  if (!$("target-label").hidden && $("target").value) out.target = Number($("target").value);
  if (!$("hands-label").hidden && $("hands").value) out.hands_per_game = Number($("hands").value);
  return out;
}

async function create(e) {
  e.preventDefault();
  const msg = $("create-message");
  const request = body();
  msg.textContent = "creating…";
  $("create-button").disabled = true;
  try {
    const headers = { "Content-Type": "application/json" };
    const lobbyToken = $("lobby-token").value.trim();
    if (lobbyToken) headers.Authorization = "Bearer " + lobbyToken;
    const res = await fetch("/api/tables", { method: "POST", headers, body: JSON.stringify(request) });
    let answer = null;
    try { answer = await res.json(); } catch (err) { answer = null; }
    if (!res.ok) {
      if (res.status === 401) {  // the server asks for its lobby token
        $("token-row").hidden = false;
        $("lobby-token").focus();
      }
      msg.textContent = visible("not created: " + ((answer && answer.error) || "HTTP " + res.status));
      return;
    }
    msg.textContent = "";
    const names = request.names || {};
    const entry = {
      table_id: answer.table_id, variant: request.variant, players: request.players,
      created: new Date().toISOString(), spectate_url: localUrl(answer.spectate_url),
      seats: answer.seats.map((s) => ({ seat: s.seat, name: names[String(s.seat)] || "", url: localUrl(s.url) })),
      bots: request.bots || {},
    };
    remember(entry);
    showCreated(entry);
    drawMine();
    loadTables();
  } catch (err) {
    msg.textContent = visible("not created: " + err.message);
  } finally {
    $("create-button").disabled = false;
  }
}

// -- links ---------------------------------------------------------------------------------------

async function copy(text, button) {
  let done = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      done = true;
    }
  } catch (e) { done = false; }
  if (!done) {
    // without the clipboard API (a plain-http address): a hidden text box copied the old way
    const area = el("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "sprite";
    document.body.appendChild(area);
    area.select();
    try { done = document.execCommand("copy"); } catch (e) { done = false; }
    area.remove();
  }
  button.textContent = done ? "copied" : "copy failed: select the link";
  setTimeout(() => { button.textContent = "copy"; }, 2000);
}

function linkRow(label, url, cls) {
  const row = el("div", "link " + (cls || ""));
  row.appendChild(el("strong", "", label));
  url = localUrl(url);
  if (!url) {
    row.appendChild(el("span", "warn", "no link on this server"));
    return row;
  }
  const a = el("a", "", url);
  a.href = url;
  a.target = "_blank";
  a.rel = "noopener";
  row.appendChild(a);
  const b = el("button", "", "copy");
  b.type = "button";
  b.addEventListener("click", () => copy(url, b));
  row.appendChild(b);
  return row;
}

function seatLinks(entry, box) {
  entry.seats.forEach((s) => {
    const who = "seat " + s.seat + (s.name ? " (" + s.name + ")" : "");
    const row = linkRow(who, s.url, "seat-link");
    row.dataset.seat = String(s.seat);
    box.appendChild(row);
  });
  box.appendChild(linkRow("spectators", entry.spectate_url, "spectate-link"));
}

function showCreated(entry) {
  $("created").hidden = false;
  $("created-id").textContent = visible(entry.table_id);
  const box = $("created-links");
  box.textContent = "";
  seatLinks(entry, box);
}

function drawMine() {
  const box = $("mine");
  const list = remembered();
  box.textContent = "";
  if (!list.length) { box.appendChild(el("p", "none", "none yet")); return; }
  list.forEach((entry) => {
    const item = el("details", "mine-table");
    item.dataset.table = entry.table_id;
    const facts = listed[entry.table_id];
    const status = facts ? " · " + facts.status + (facts.totals ? " " + facts.totals.join(" / ") : "") : "";
    const summary = el("summary", "", "table " + entry.table_id + " · " + entry.variant + " · " + entry.players +
      " players · created " + String(entry.created).replace("T", " ").slice(0, 16) + status);
    item.appendChild(summary);
    seatLinks(entry, item);
    const drop = el("button", "small", "forget this table");
    drop.type = "button";
    drop.addEventListener("click", () => { forget(entry.table_id); drawMine(); });
    item.appendChild(drop);
    box.appendChild(item);
  });
}

// -- the server's tables -------------------------------------------------------------------------

async function loadTables() {
  const box = $("server-tables");
  let data;
  try {
    const res = await fetch("/api/tables");
    data = await res.json();
    if (!res.ok) throw new Error((data && data.error) || "HTTP " + res.status);
  } catch (e) {
    box.textContent = "";
    box.appendChild(el("p", "warn", "could not list the tables: " + e.message));
    return;
  }
  box.textContent = "";
  const tables = data.tables || [];
  listed = {};
  tables.forEach((t) => { listed[t.table_id] = t; });
  drawMine();
  if (!tables.length) { box.appendChild(el("p", "none", "no table yet")); return; }
  const table = el("table", "tables");
  const head = el("tr");
  ["table", "rules", "players", "status", "score", ""].forEach((h) => head.appendChild(el("th", "", h)));
  table.appendChild(el("thead")).appendChild(head);
  const tbody = table.appendChild(el("tbody"));
  tables.forEach((t) => {
    const tr = el("tr");
    tr.dataset.table = t.table_id;
    tr.appendChild(el("td", "", t.table_id));
    tr.appendChild(el("td", "", t.variant));
    const botSeats = t.bots || {};
    tr.appendChild(el("td", "", (t.players || []).map((p, s) => p + (botSeats[String(s)] ? " (bot)" : "")).join(", ")));
    const status = t.status + (t.status === "playing" ? " · hand " + (t.hand + 1) : "");
    tr.appendChild(el("td", "status-" + t.status, status));
    tr.appendChild(el("td", "", t.totals ? t.totals.join(" / ") : ""));
    const links = el("td");
    const watch = el("a", "", t.status === "ended" ? "final table" : "watch");
    watch.href = "/t/" + encodeURIComponent(t.table_id);
    links.appendChild(watch);
    if (t.status === "ended") {
      [["log", "log"], ["share", "replay"], ["audit", "audit"]].forEach(([path, label]) => {
        links.appendChild(document.createTextNode(" · "));
        const a = el("a", "", label);
        a.href = "/tables/" + encodeURIComponent(t.table_id) + "/" + path;
        links.appendChild(a);
      });
    }
    tr.appendChild(links);
    tbody.appendChild(tr);
  });
  box.appendChild(table);
}

async function loadVariants() {
  try {
    const res = await fetch("/api/variants");
    const data = await res.json();
    variants = data.variants || [];
    if (Array.isArray(data.bots) && data.bots.length) bots = data.bots;
    if (data.lobby_token) $("token-row").hidden = false;
  } catch (e) {
    $("create-message").textContent = visible("could not read the rules presets: " + e.message);
  }
  const select = $("variant");
  select.textContent = "";
  variants.forEach((v) => {
    const o = el("option", "", v.name);
    o.value = v.name;
    select.appendChild(o);
  });
  drawForm();
}

function start() {
  $("variant").addEventListener("change", drawForm);
  document.querySelectorAll('input[name="players"]').forEach((r) => r.addEventListener("change", drawSeats));
  $("create").addEventListener("submit", create);
  $("refresh").addEventListener("click", loadTables);
  drawMine();
  loadVariants();
  loadTables();
  setInterval(loadTables, REFRESH_MS);
}

start();
