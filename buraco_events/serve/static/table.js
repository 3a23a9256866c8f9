// buraco serve: one seat's live table (or a spectator's). The server is the only judge: this page
// draws each view it is sent and offers the view's legal actions as controls; a click sends
// {"type": "act", "seq", "action"} and waits for the next view. Every text from the server goes
// through textContent (common.el), never parsed as markup.
import { addSprite, card, el, groupBySuit, plural, sameCards, visible } from "./common.js";
import { PLAYING, drawFelt, drawMeldPanels } from "./felt.js";
import { drawFairness, drawResult, drawScores } from "./panels.js";
import { Link } from "./socket.js";

const $ = (id) => document.getElementById(id);

const tableId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const token = new URLSearchParams(location.hash.replace(/^#/, "")).get("token");

// What the page knows; each message from the server replaces a part of it.
const st = {
  seat: null, players: [], bots: {}, variant: "",
  view: null, seq: -1, actions: [], toPlay: null, hand: -1, connected: [], spectators: 0,
  moves: [], clock: null, clockAt: 0, sheet: null, ended: null, pileKind: null, commitments: {}, salts: {}, title: "",
  selected: new Set(), focus: 0, order: [], handCards: [], waiting: false, link: null,
};

// -- the socket ----------------------------------------------------------------------------------

function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = token ? "?token=" + encodeURIComponent(token) : "";
  return scheme + "//" + location.host + "/ws/" + encodeURIComponent(tableId) + query;
}

function showSocket(state, words) {
  const box = $("socket");
  box.dataset.state = state;
  box.textContent = words;
  document.body.dataset.socket = state;
  $("reconnect").hidden = state !== "replaced";
  if (state !== "open") st.waiting = false;
  if (st.view) drawControls();
}

function connected() { return !!st.link && st.link.open; }

function send(msg) { return !!st.link && st.link.send(msg); }

function act(action) {
  if (st.waiting || !action) return;
  if (!send({ type: "act", seq: st.seq, action: action.id })) {
    say("not connected: the action was not sent", true);
    return;
  }
  st.waiting = true;
  hideChoice();
  say("sent: " + action.text);
  drawControls();
}

// -- messages ------------------------------------------------------------------------------------

function receive(msg) {
  switch (msg.type) {
    case "hello": return onHello(msg);
    case "view": return onView(msg);
    case "hand_ended": return onHandEnded(msg);
    case "ended": return onEnded(msg);
    case "presence":
      st.connected = msg.connected || st.connected;
      st.spectators = msg.spectators || 0;
      return drawPresence();
    case "error":
      st.waiting = false;
      say(msg.message || "refused", true);
      return drawControls();
    default:
      return undefined;
  }
}

function onHello(msg) {
  st.link.greeted();
  st.seat = msg.seat === undefined ? null : msg.seat;
  st.players = msg.players || [];
  st.bots = msg.bots || {};
  st.variant = msg.variant || "";
  st.pileKind = msg.rules && typeof msg.rules.pile === "string" ? msg.rules.pile : null;
  st.moves = (msg.moves || []).slice();
  st.waiting = false;
  say("");  // a new connection: what the last one was told is done with
  document.body.dataset.seat = st.seat === null ? "spectator" : String(st.seat);
  const late = msg.spectator_delay ? " (" + plural(msg.spectator_delay, "event") + " behind)" : "";
  const who = st.seat === null ? "spectator" + late : "seat " + st.seat + " (" + (st.players[st.seat] || "?") + ")";
  $("title").textContent = visible("table " + tableId);
  $("where").textContent = visible(st.variant + " · " + who);
  st.title = visible("buraco " + tableId + " · " + who);
  document.title = st.title;
  drawMoves(true);
}

function onView(msg) {
  const before = st.view ? playable(st.view) : null;
  const beforeSeq = st.seq;
  st.view = msg.view;
  st.seq = msg.seq;
  st.actions = msg.actions || [];
  st.toPlay = msg.to_play === undefined ? null : msg.to_play;
  st.hand = msg.hand === undefined ? msg.view.hand : msg.hand;
  if (msg.connected) st.connected = msg.connected;
  st.clock = msg.clock || null;
  if (msg.commitment) st.commitments[st.hand] = msg.commitment;
  st.clockAt = performance.now();
  st.waiting = false;
  if (msg.moves && msg.moves.length) {
    const lastSeq = st.moves.length ? st.moves[st.moves.length - 1].seq : -1;
    msg.moves.forEach((m) => { if (m.seq > lastSeq) st.moves.push(m); });
    drawMoves(false);
  }
  const mine = playable(st.view);
  // the selection holds positions in the hand: it stays only while the hand is the same
  if (!mine || !before || mine.cards.join() !== before.cards.join()) {
    clearSelection(mine);
  }
  if (msg.seq !== beforeSeq) say("");  // a new event: the last note or refusal is done with
  document.body.dataset.seq = String(st.seq);
  drawFairness(st.commitments, st.salts);
  draw();
}

function onHandEnded(msg) {
  st.sheet = msg;
  if (msg.salt) st.salts[msg.hand] = msg.salt;
  drawFairness(st.commitments, st.salts);
  drawScores(st.sheet, st.view, players());
}

function onEnded(msg) {
  st.ended = msg;
  st.actions = [];
  st.link.finish();
  say("");
  drawResult(st.ended, players(), st.seat);
  draw();
}

// -- drawing -------------------------------------------------------------------------------------

function say(text, isError) {
  const box = $("message");
  box.textContent = text ? visible(text) : "";
  box.classList.toggle("error", !!isError);
}

function seatName(s) {
  const name = st.players[s];
  return !name || name === "seat " + s ? "seat " + s : name + " (seat " + s + ")";
}

function players() { return st.view ? st.view.players : st.players; }

function isBot(s) { return Object.prototype.hasOwnProperty.call(st.bots, String(s)); }

function draw() {
  const v = st.view;
  if (!v) return;
  $("event").textContent = v.event ? visible(v.event) : "";
  drawTurn();
  drawPresence();
  drawTable(v);
  drawHand(v);
  drawMelds(v);
  drawControls();
  if (v.hand_scores && v.hand_scores.length && !PLAYING.includes(v.phase)) drawScores(st.sheet, v, players());
  else drawRunning();
}

function drawTurn() {
  const v = st.view;
  const box = $("turn");
  const playing = PLAYING.includes(v.phase) && !st.ended;
  // the seat to act (`to_play` is null while the table itself records, e.g. a refill)
  const turn = st.toPlay === null ? v.to_play : st.toPlay;
  const mine = playing && st.seat !== null && turn === st.seat;
  let words;
  if (st.ended) words = "game over";
  else if (!playing) words = "hand " + (st.hand + 1) + " · " + v.phase.replace("_", " ");
  else if (mine) words = "your turn: " + v.phase;
  else words = "to play: " + seatName(turn) + " · " + v.phase;
  if (playing && st.hand >= 0) words = "hand " + (st.hand + 1) + " · " + words;
  box.textContent = visible(words);
  box.classList.toggle("mine", mine);
  document.title = (mine ? "● your turn · " : "") + st.title;  // seen from another tab too
  document.body.dataset.turn = st.toPlay === null ? "" : String(st.toPlay);
  drawClock();
}

function drawClock() {
  const box = $("clock");
  if (!st.clock || st.ended) { box.hidden = true; return; }
  const left = Math.max(0, st.clock.remaining - (performance.now() - st.clockAt) / 1000);
  const secs = Math.ceil(left);
  box.hidden = false;
  box.textContent = visible((st.clock.seat === st.seat ? "your clock " : seatName(st.clock.seat) + ": ") +
    Math.floor(secs / 60) + ":" + String(secs % 60).padStart(2, "0"));
  box.classList.toggle("low", secs <= 10);
}

function drawPresence() {
  const box = $("presence");
  box.textContent = "";
  st.players.forEach((name, s) => {
    const bot = isBot(s);
    const on = !!st.connected[s];
    const item = el("span", bot ? "bot" : on ? "on" : "off");
    item.id = "presence-" + s;
    item.dataset.connected = bot ? "bot" : String(on);
    item.appendChild(el("span", "dot"));
    item.appendChild(document.createTextNode(visible(name + (bot ? " (bot)" : on ? "" : " (away)"))));
    item.title = bot ? "a bot" : on ? "connected" : "not connected";
    box.appendChild(item);
  });
  if (st.spectators) box.appendChild(el("span", "", plural(st.spectators, "spectator")));
}

// The cards the seat plays from: its hand, and the closed pile's top card it just took when
// that card must go into its next play (`pending`: the card is not in the hand yet, and the
// actions' cards name it).
function playable(v) {
  const hand = st.seat === null ? null : v.hands[st.seat];
  if (!Array.isArray(hand)) return null;
  const due = v.pending && v.to_play === st.seat && PLAYING.includes(v.phase) ? v.pending.top : null;
  return { hand, cards: due === null ? hand : hand.concat([due]), due: due === null ? -1 : hand.length };
}

function handCard(c, i, extra) {
  const node = card(c, "button");
  node.type = "button";
  node.dataset.index = String(i);
  node.setAttribute("role", "option");
  node.tabIndex = -1;
  if (extra) node.classList.add(extra);
  node.addEventListener("click", () => { st.focus = st.order.indexOf(i); toggle(i); });
  node.addEventListener("dblclick", (e) => { e.preventDefault(); discardCard(c); });
  st.order.push(i);
  return node;
}

// The seat's own hand: every card a button to select, grouped by suit.
function drawHand(v) {
  const box = $("hand-box");
  const mine = playable(v);
  if (!mine || st.ended) {
    box.hidden = true;
    st.handCards = [];
    st.order = [];
    return;
  }
  box.hidden = false;
  const { hand, cards, due } = mine;
  st.handCards = cards;
  const row = $("hand");
  const hadFocus = row.contains(document.activeElement);
  row.textContent = "";
  st.order = [];
  if (due >= 0) {
    const group = el("div", "group pile-top");
    group.dataset.suit = "pile";
    group.title = "taken from the pile: it goes into your next play";
    group.appendChild(handCard(cards[due], due, "due"));
    group.appendChild(el("span", "due-label", "from the pile: play it next"));
    row.appendChild(group);
  }
  const topDue = v.top_due && v.to_play === st.seat ? v.top_due : null;
  let marked = false;
  groupBySuit(hand).forEach(([suit, idx]) => {
    const group = el("div", "group");
    group.dataset.suit = suit || "joker";
    idx.forEach((i) => {
      // the closed pile's top taken this turn (stbl): it must be melded before the turn ends
      const isTop = !marked && hand[i] === topDue;
      marked = marked || isTop;
      const node = handCard(hand[i], i, isTop ? "due" : "");
      if (isTop) node.title = hand[i] + ": taken from the pile, meld it this turn";
      group.appendChild(node);
    });
    row.appendChild(group);
  });
  st.focus = Math.max(0, Math.min(st.focus, st.order.length - 1));
  const focused = row.querySelector('[data-index="' + st.order[st.focus] + '"]');
  if (focused) {
    focused.tabIndex = 0;
    if (hadFocus) focused.focus();
  }
  $("hand-count").textContent = plural(hand.length, "card") + (due >= 0 ? " and the pile's top" : "");
  drawSelection();
}

// No card selected but the pile's top that goes into the next play, when there is one.
function clearSelection(mine) {
  st.selected.clear();
  if (mine && mine.due >= 0) st.selected.add(mine.due);
}

function selectedCards() {
  return [...st.selected].sort((a, b) => a - b).map((i) => st.handCards[i]);
}

function drawSelection() {
  const chosen = selectedCards();
  $("selection").textContent = chosen.length ? "selected: " + chosen.join(" ") : "";
  document.querySelectorAll("#hand .card").forEach((node) => {
    const on = st.selected.has(Number(node.dataset.index));
    node.classList.toggle("selected", on);
    node.setAttribute("aria-selected", String(on));
  });
}

function toggle(i) {
  if (st.selected.has(i)) st.selected.delete(i);
  else st.selected.add(i);
  hideChoice();
  drawSelection();
  drawMelds(st.view);
  drawControls();
}

function moveFocus(delta) {
  if (!st.order.length) return;
  st.focus = (st.focus + delta + st.order.length) % st.order.length;
  document.querySelectorAll("#hand .card").forEach((node) => { node.tabIndex = -1; });
  const node = document.querySelector('#hand [data-index="' + st.order[st.focus] + '"]');
  if (node) { node.tabIndex = 0; node.focus(); }
}

// -- the actions as controls ---------------------------------------------------------------------

function ofKind(kind) { return st.actions.filter((a) => a.kind === kind); }

function matching(kind) {
  const chosen = selectedCards();
  if (!chosen.length) return [];
  return ofKind(kind).filter((a) => sameCards(a.cards || [], chosen));
}

function discardCard(c) {
  const a = ofKind("discard").find((x) => x.cards && x.cards[0] === c);
  if (a) act(a);
  else if (st.actions.length) say("you cannot discard " + c + " now", true);
}

function discardSelected() {
  const chosen = selectedCards();
  if (chosen.length === 1) discardCard(chosen[0]);
  else if (ofKind("discard").length) say("select one card to discard", true);
}

// One of several actions: the same cards may meld or lay off in more than one way.
function choose(options, what) {
  if (options.length === 1) { act(options[0]); return; }
  if (!options.length) return;
  const box = $("choice");
  box.textContent = "";
  box.appendChild(el("span", "", what + ": which one?"));
  options.forEach((a) => {
    const b = el("button", "", a.text);
    b.type = "button";
    b.addEventListener("click", () => act(a));
    box.appendChild(b);
  });
  const cancel = el("button", "", "cancel");
  cancel.type = "button";
  cancel.addEventListener("click", hideChoice);
  box.appendChild(cancel);
  box.hidden = false;
}

function hideChoice() { $("choice").hidden = true; $("choice").textContent = ""; }

function meldSelected() { choose(matching("meld"), "meld"); }
function layOffSelected(meld) {
  const options = matching("lay_off").filter((a) => meld === undefined || a.meld === meld);
  choose(options, "lay off");
}

function drawControls() {
  const controls = $("controls");
  const mine = st.seat !== null && !st.ended;
  controls.hidden = !mine;
  const live = mine && !st.waiting && connected() && st.actions.length > 0;
  const has = (kind) => live && ofKind(kind).length > 0;
  $("act-draw").disabled = !has("draw");
  $("act-pile").disabled = !has("pile");
  $("act-meld").disabled = !(live && matching("meld").length);
  $("act-layoff").disabled = !(live && matching("lay_off").length);
  const chosen = selectedCards();
  $("act-discard").disabled = !(live && chosen.length === 1 && ofKind("discard").some((a) => a.cards[0] === chosen[0]));
  const deads = $("dead-buttons");
  deads.textContent = "";
  (live ? ofKind("dead") : []).forEach((a) => {
    const b = el("button", "", "Take dead " + (a.dead === null || a.dead === undefined ? "" : a.dead));
    b.type = "button";
    b.className = "dead";
    b.dataset.dead = String(a.dead);
    b.title = a.text;
    b.addEventListener("click", () => act(a));
    deads.appendChild(b);
  });
  $("hint").textContent = hintWords(live);
  drawActionList(live);
}

function hintWords(live) {
  if (!st.view || st.seat === null) return "";
  if (st.ended) return "";
  if (st.waiting) return "waiting for the server…";
  if (!connected()) return "not connected: the actions come back with the connection";
  if (!live) return st.toPlay === st.seat ? "" : "wait for your turn";
  const phase = st.view.phase;
  if (phase === "draw") return "draw from the stock or take the pile";
  if (phase === "dead") return "take a dead";
  const n = matching("lay_off").length;
  return "select cards, then Meld" + (n ? ", Lay off, or click a highlighted meld" : " or click a meld to lay off") +
    "; discard one card to end your turn";
}

function drawActionList(live) {
  const details = $("actions-all");
  const list = $("action-list");
  list.textContent = "";
  const actions = live ? st.actions : [];
  details.hidden = !actions.length;
  $("action-count").textContent = String(actions.length);
  actions.forEach((a) => {
    const li = el("li");
    const b = el("button", "", a.text);
    b.type = "button";
    b.dataset.action = String(a.id);
    b.dataset.kind = a.kind || "";
    b.dataset.cards = (a.cards || []).join(" ");
    if (a.meld !== null && a.meld !== undefined) b.dataset.meld = String(a.meld);
    b.addEventListener("click", () => act(a));
    li.appendChild(b);
    list.appendChild(li);
  });
}

// -- melds, scores, moves, result ----------------------------------------------------------------

function drawMelds(v) {
  if (!v) return;
  const targets = new Set(st.waiting ? [] : matching("lay_off").map((a) => a.meld));
  drawMeldPanels(v, st.seat, targets, (id) => {
    if (targets.has(id)) layOffSelected(id);
    else if (st.actions.length && selectedCards().length) say("the selected cards do not go on meld #" + id, true);
  });
}

function drawTable(v) {
  // once the game is over the seat's last cards lie on the felt like everyone's
  drawFelt(v, { seat: st.seat, isBot, connected: st.connected, seatName, handBelow: !st.ended,
    pileKind: st.pileKind });
}

function drawRunning() {
  if (st.sheet) return;  // the last hand's sheet stays until the next hand ends
  drawScores(null, st.view, players());
}

function drawMoves(reset) {
  const list = $("move-list");
  if (reset) list.textContent = "";
  const shown = list.children.length;
  st.moves.slice(shown).forEach((m) => {
    const li = el("li", "", m.text);
    li.dataset.seq = String(m.seq);
    list.appendChild(li);
  });
  list.scrollTop = list.scrollHeight;
}

// -- keys ----------------------------------------------------------------------------------------

function showKeys(on) {
  $("keys").hidden = !on;
  if (on) $("keys-close").focus();
}

function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
  if (e.key === "?") { showKeys($("keys").hidden); e.preventDefault(); return; }
  if (e.key === "Escape") {
    if (!$("keys").hidden) showKeys(false);
    else if (st.view) {
      clearSelection(playable(st.view));
      hideChoice();
      drawSelection();
      drawMelds(st.view);
      drawControls();
    }
    return;
  }
  if (!$("keys").hidden) return;
  const inHand = t && t.closest && t.closest("#hand");
  const onButton = t && t.tagName === "BUTTON" && !inHand;
  if (onButton && (e.key === "Enter" || e.key === " ")) return;  // the focused button's own click
  const keys = {
    d: () => act(ofKind("draw")[0]),
    p: () => act(ofKind("pile")[0]),
    m: meldSelected,
    l: () => layOffSelected(),
    t: () => { const deads = ofKind("dead"); if (deads.length) choose(deads, "take a dead"); },
    Enter: discardSelected,
    ArrowRight: () => moveFocus(1),
    ArrowLeft: () => moveFocus(-1),
    " ": () => {
      if (inHand && t.dataset.index !== undefined) toggle(Number(t.dataset.index));
      else if (st.order.length) toggle(st.order[st.focus]);
    },
  };
  const fn = keys[e.key];
  if (!fn) return;
  e.preventDefault();
  if (st.waiting && !["ArrowRight", "ArrowLeft", " "].includes(e.key)) return;
  fn();
}

function start() {
  addSprite();
  $("act-draw").addEventListener("click", () => act(ofKind("draw")[0]));
  $("act-pile").addEventListener("click", () => act(ofKind("pile")[0]));
  $("act-meld").addEventListener("click", meldSelected);
  $("act-layoff").addEventListener("click", () => layOffSelected());
  $("act-discard").addEventListener("click", discardSelected);
  $("help-button").addEventListener("click", () => showKeys(true));
  $("reconnect").addEventListener("click", () => { st.link.greeted(); st.link.connect(); });
  $("keys-close").addEventListener("click", () => showKeys(false));
  $("keys").addEventListener("click", (e) => { if (e.target === $("keys")) showKeys(false); });
  document.addEventListener("keydown", onKey);
  setInterval(() => { if (st.view) drawClock(); }, 250);
  if (!tableId) {
    showSocket("closed", "no table in this address");
    return;
  }
  st.link = new Link(socketUrl(), receive, showSocket);
  st.link.connect();
}

start();
