// The live table's shared helpers: text, teams, hands and the suits' sprite. The cards themselves
// are drawn by cards.js, the share page's own card drawing (one home for both).
// Every text from the server goes through visible() into textContent: never parsed as markup.

import { SVG, back, card, cardRow, el, emptySlot, middle, plural, stack, visible } from "./cards.js";

export { back, card, cardRow, el, emptySlot, middle, plural, stack, visible };

// A link from the server, as an absolute address on this server; null for anything else (a
// link elsewhere, or a javascript: one, is never put in a page).
export function localUrl(url) {
  try {
    const u = new URL(String(url), location.href);
    return u.origin === location.origin ? u.href : null;
  } catch (e) {
    return null;
  }
}

// a seat's team: partners sit opposite at four, each seat is its own team at two
export function teamOf(seat, n) { return n === 4 ? seat % 2 : seat; }

export function teamLabel(players, team) {
  return players.filter((_, s) => teamOf(s, players.length) === team).join(" & ");
}

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
// the order of the hand's groups: the colours alternate, the jokers last
const GROUP_ORDER = ["S", "H", "C", "D", ""];

export function suitOf(c) { return c === "JK" ? "" : c.slice(-1); }
export function rankOf(c) { return c === "JK" ? "JK" : c.slice(0, -1); }

// A hidden hand: a fan of backs (at most 8; the last carries the count).
export function backRow(n) {
  const row = el("div", "cards hidden-hand");
  const shown = Math.min(n, 8);
  for (let i = 0; i < shown; i++) row.appendChild(back(i === shown - 1 ? String(n) : undefined));
  if (!n) row.appendChild(el("span", "slot"));
  return row;
}

// The indexes of a hand's cards grouped by suit (spades, hearts, clubs, diamonds, jokers), each
// group in rank order: [[suit, [index, ...]], ...] with the empty groups left out.
export function groupBySuit(hand) {
  const groups = GROUP_ORDER.map((s) => [s, []]);
  hand.forEach((c, i) => groups[GROUP_ORDER.indexOf(suitOf(c))][1].push(i));
  groups.forEach(([, idx]) => idx.sort((a, b) =>
    RANKS.indexOf(rankOf(hand[a])) - RANKS.indexOf(rankOf(hand[b])) || a - b));
  return groups.filter(([, idx]) => idx.length);
}

// Whether two lists of cards hold the same cards as many times each (a multiset's equality).
export function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const x = a.slice().sort(), y = b.slice().sort();
  return x.every((c, i) => c === y[i]);
}

// The suits' drawings, once in the page, used by every card (<use href="#suit-S">).
export function addSprite() {
  if (document.getElementById("suit-S")) return;
  const paths = {
    H: "M50 90C22 66 4 50 4 30 4 15 15 5 28 5c10 0 18 6 22 14C54 11 62 5 72 5c13 0 24 10 24 25 0 20-18 36-46 60z",
    D: "M50 3 88 50 50 97 12 50z",
    S: "M50 4C78 30 96 44 96 62c0 13-10 22-22 22-9 0-16-5-20-11 1 10 5 17 12 23H34c7-6 11-13 12-23-4 6-11 11-20 11C14 84 4 75 4 62 4 44 22 30 50 4z",
    C: "M46 50h8c0 22 4 34 14 46H32c10-12 14-24 14-46z",
    J: "M50 4l13 30 33 3-25 22 8 33-29-17-29 17 8-33L4 37l33-3z",
  };
  const sprite = document.createElementNS(SVG, "svg");
  sprite.setAttribute("class", "sprite");
  sprite.setAttribute("aria-hidden", "true");
  Object.keys(paths).forEach((id) => {
    const symbol = document.createElementNS(SVG, "symbol");
    symbol.id = "suit-" + id;
    symbol.setAttribute("viewBox", "0 0 100 100");
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", paths[id]);
    symbol.appendChild(path);
    if (id === "C") {
      [[50, 27], [27, 58], [73, 58]].forEach(([cx, cy]) => {
        const circle = document.createElementNS(SVG, "circle");
        circle.setAttribute("cx", cx);
        circle.setAttribute("cy", cy);
        circle.setAttribute("r", 21);
        symbol.appendChild(circle);
      });
    }
    sprite.appendChild(symbol);
  });
  document.body.prepend(sprite);
}
