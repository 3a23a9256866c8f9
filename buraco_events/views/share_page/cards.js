// buraco cards: text made visible, and a card, a face-down back, a row of cards, a stack and an
// empty slot drawn as elements (the suits' symbols come from the page's #suit-* sprite). The share
// page inlines this file in its script; the live table imports it as a module.
// Every text goes through visible() and textContent: never parsed as markup.
var SVG = "http://www.w3.org/2000/svg";

// Control, bidi and other invisible characters written as escapes (text.visible in Python).
var INVISIBLE = /[\p{C}\p{Zl}\p{Zp}\p{Zs}]/gu;
function visible(text) {
  return String(text).replace(INVISIBLE, function (c) {
    if (c === " ") return c;
    var code = c.codePointAt(0);
    if (code < 0x100) return "\\x" + code.toString(16).padStart(2, "0");
    if (code < 0x10000) return "\\u" + code.toString(16).padStart(4, "0");
    return "\\U" + code.toString(16).padStart(8, "0");
  });
}

// An element with a class and a text (always as text).
function el(tag, cls, text) {
  var node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = visible(text);
  return node;
}

function icon(id, cls) {
  var svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", cls);
  svg.setAttribute("aria-hidden", "true");
  var use = document.createElementNS(SVG, "use");
  use.setAttribute("href", "#suit-" + id);
  svg.appendChild(use);
  return svg;
}

var SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };

// One card drawn as a card (a span unless `tag` says): its rank, its suit's symbol, red for
// hearts and diamonds.
function card(c, tag) {
  var node = el(tag || "span", "card");
  node.dataset.card = c;
  if (c === "JK") {
    node.classList.add("joker");
    node.setAttribute("aria-label", "joker");
    node.appendChild(el("span", "r", "JK"));
    node.appendChild(icon("J", "big"));
  } else {
    var suit = c.slice(-1), rank = c.slice(0, -1);
    if (suit === "H" || suit === "D") node.classList.add("red");
    node.setAttribute("aria-label", rank + " of " + (SUIT_NAME[suit] || suit));
    node.appendChild(el("span", "r", rank));
    node.appendChild(icon(suit, "s"));
    node.appendChild(icon(suit, "big"));
  }
  node.title = c;
  return node;
}

// A face-down card, with a label (a count) when given.
function back(label) {
  var node = el("span", "back");
  if (label !== undefined) node.appendChild(el("span", "n", label));
  return node;
}

// A row of cards, the one at topIndex marked as the top.
function cardRow(cards, topIndex) {
  var row = el("div", "cards");
  cards.forEach(function (c, i) {
    var node = card(c);
    if (i === topIndex) node.classList.add("top");
    row.appendChild(node);
  });
  return row;
}

// A face-down stack: one back carrying the count (an empty slot when there is none).
function stack(n) {
  var row = el("div", "cards");
  row.appendChild(n ? back(String(n)) : el("span", "slot"));
  return row;
}

function emptySlot() {
  var row = el("div", "cards");
  row.appendChild(el("span", "slot"));
  return row;
}

// A count with its word: "1 card", "3 cards".
function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

// A labelled place on the felt: its cards and the words under them.
function zone(content, label, id) {
  var z = el("div", "zone");
  if (id) z.id = id;
  z.appendChild(content);
  z.appendChild(el("span", "label", label));
  return z;
}

// The middle of the table (#center) for a view: the stock, the pile (every card, or the top only
// where the rules close it: `pileKind` is "open", "closed" or null), a taken pile's cards still to
// play, and each dead hand with its fate; `seatName(s)` names the seat that took a dead.
function middle(v, pileKind, seatName) {
  var box = el("div");
  box.id = "center";
  box.appendChild(zone(stack(v.stock), "stock " + plural(v.stock, "card"), "stock"));
  var pile = v.pile;
  var name = pileKind ? pileKind + " pile" : "pile";
  var words = name + ", " + plural(pile.size, "card");
  var row;
  if (!pile.size) {
    row = emptySlot();
    words = name + ": empty";
  } else if (pile.cards) {
    row = cardRow(pile.cards, pile.cards.length - 1);
  } else {
    row = el("div", "cards");
    if (pile.size > 1) row.appendChild(back(String(pile.size - 1)));
    var top = card(pile.top);
    top.classList.add("top");
    row.appendChild(top);
    words += ", only the top shows";
  }
  box.appendChild(zone(row, words, "pile"));
  if (v.pending) {
    var rest = v.pending.rest;
    var pending = cardRow([v.pending.top], 0);
    if (typeof rest === "number") {
      if (rest) pending.appendChild(back(String(rest)));
    } else {
      rest.forEach(function (c) { pending.appendChild(card(c)); });
    }
    box.appendChild(zone(pending, "taken pile: the top " + v.pending.top + " must be played first", "pending"));
  }
  v.deads.forEach(function (d, i) {
    var content, said;
    if (d.fate === "taken" && d.taken_by !== null) {
      content = emptySlot();
      said = "dead " + i + ": taken by " + seatName(d.taken_by) + (d.unused ? ", unused" : "");
    } else if (d.fate === "stock") {
      content = emptySlot();
      said = "dead " + i + ": became the stock";
    } else if (typeof d.cards === "number") {
      content = stack(d.cards);
      said = "dead " + i + ": " + plural(d.cards, "card") + ", untaken";
    } else {
      content = cardRow(d.cards);
      said = "dead " + i + ": " + plural(d.cards.length, "card") + ", untaken";
    }
    box.appendChild(zone(content, said, "dead-" + i));
  });
  return box;
}
