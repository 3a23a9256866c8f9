// buraco serve: the table as the share page draws it (seats around the felt, the pile, the stock
// and the deads in the middle, the melds by team, a score sheet), from one view of the protocol.
import { backRow, cardRow, el, middle, plural, teamLabel, teamOf, visible } from "./common.js";

export const PLAYING = ["draw", "play", "dead"];
const KIND_LABEL = { dirty: "dirty canasta", clean: "clean canasta", royal: "royal canasta",
  ace_to_ace: "ace-to-ace canasta", semiclean: "semi-clean canasta", super: "super canasta",
    super_dirty: "super dirty canasta", royal_dirty: "dirty royal canasta",
    ace_to_ace_dirty: "dirty ace-to-ace canasta" };
const $ = (id) => document.getElementById(id);

function positions(n, seat) {
  const base = seat === null ? 0 : seat;
  const pos = {};
  if (n === 4) {
    pos[base] = "bottom"; pos[(base + 1) % 4] = "left"; pos[(base + 2) % 4] = "top"; pos[(base + 3) % 4] = "right";
  } else {
    pos[base] = "bottom"; pos[(base + 1) % n] = "top";
  }
  return pos;
}

function seatBox(v, s, pos, who) {
  const box = el("div", "seat pos-" + pos);
  box.id = "seat-" + s;
  const playing = PLAYING.includes(v.phase);
  if (playing && v.to_play === s) box.classList.add("turn");
  const line = el("div", "who");
  line.appendChild(el("span", "name", v.players[s]));
  line.appendChild(el("span", "seatno", "seat " + s + " · team " + teamOf(s, v.players.length)));
  const hand = v.hands[s];
  const count = typeof hand === "number" ? hand : hand.length;
  line.appendChild(el("span", "count", plural(count, "card")));
  if (who.seat === s) line.appendChild(el("span", "badge", "you"));
  if (who.isBot(s)) line.appendChild(el("span", "badge", "bot"));
  else if (who.connected.length && !who.connected[s]) line.appendChild(el("span", "badge off", "away"));
  if (playing && v.to_play === s) line.appendChild(el("span", "badge", "to play: " + v.phase));
  box.appendChild(line);
  if (who.seat === s && Array.isArray(hand) && who.handBelow) {
    box.appendChild(el("p", "sub", "your cards are below"));
  } else {
    box.appendChild(typeof hand === "number" ? backRow(hand) : cardRow(hand));
  }
  return box;
}

// The felt of a view: `who` says whose page it is ({seat, isBot(s), connected, seatName(s),
// handBelow: whether the seat's own cards are drawn apart, under the felt; pileKind: the rules'
// pile, open or closed}).
export function drawFelt(v, who) {
  const table = $("table");
  table.textContent = "";
  table.classList.toggle("two", v.players.length === 2);
  if (v.hand < 0) {
    table.appendChild(el("p", "", "no hand dealt yet"));
    return;
  }
  const pos = positions(v.players.length, who.seat);
  v.players.forEach((_, s) => table.appendChild(seatBox(v, s, pos[s], who)));
  table.appendChild(middle(v, who.pileKind, who.seatName));
}

// The melds by team; those of the seat's team answer a click (`onMeld(id)`), and the `targets`
// (the melds the selected cards can go on) are marked.
export function drawMeldPanels(v, seat, targets, onMeld) {
  const box = $("melds");
  box.textContent = "";
  if (v.hand < 0) return;
  [0, 1].forEach((team) => {
    const mine = v.melds.filter((m) => m.team === team);
    const panel = el("div", "team");
    panel.id = "melds-" + team;
    const ours = seat !== null && teamOf(seat, v.players.length) === team;
    panel.appendChild(el("h3", "", "team " + team + " (" + teamLabel(v.players, team) + ")" +
      (ours ? ", yours" : "") + ": " + plural(mine.length, "meld")));
    if (!mine.length) panel.appendChild(el("p", "none", "no melds yet"));
    mine.forEach((m) => {
      const row = el("div", "meld");
      row.id = "meld-" + m.id;
      row.dataset.kind = m.kind;
      row.dataset.meld = String(m.id);
      const tag = el("span", "tag");
      tag.appendChild(el("b", "", "#" + m.id));
      tag.appendChild(document.createTextNode(" " + visible(m.type) + " " + (m.clean ? "clean" : "dirty") + " "));
      if (m.kind !== "none") tag.appendChild(el("span", "kind kind-" + m.kind, KIND_LABEL[m.kind] || m.kind));
      row.appendChild(tag);
      row.appendChild(cardRow(m.cards));
      if (targets.has(m.id)) {
        row.classList.add("target");
        row.tabIndex = 0;
        row.setAttribute("role", "button");
        row.title = "lay the selected cards off on this meld";
      }
      if (ours) {
        row.addEventListener("click", () => onMeld(m.id));
        row.addEventListener("keydown", (e) => {
          if ((e.key === "Enter" || e.key === " ") && targets.has(m.id)) {
            e.preventDefault();
            e.stopPropagation();
            onMeld(m.id);
          }
        });
      }
      panel.appendChild(row);
    });
    box.appendChild(panel);
  });
}
