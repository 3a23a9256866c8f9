// buraco share: draws the table of each step from the page's own data; fetches nothing.
// Every text from the log goes through visible() and textContent: never parsed as markup.
(function () {
  "use strict";

  var PLAYING = ["draw", "play", "dead"];
  // the phases in which the step's hand has ended (render.ENDED_PHASES)
  var ENDED = ["hand_end", "deal", "game_end", "over"];
  var KIND_LABEL = { dirty: "dirty canasta", clean: "clean canasta", royal: "royal canasta",
    ace_to_ace: "ace-to-ace canasta", semiclean: "semi-clean canasta", super: "super canasta",
    super_dirty: "super dirty canasta", royal_dirty: "dirty royal canasta",
    ace_to_ace_dirty: "dirty ace-to-ace canasta" };

  var data = JSON.parse(document.getElementById("buraco-replay").textContent);
  var steps = decodeSteps(data.steps);
  var last = steps.length - 1;
  var spoilerFree = !!data.spoiler_free;
  var seq = 0;

  // The rule of `decoding` in the data: steps[0] whole, then lists of [path, value] changes.
  function decodeSteps(stored) {
    var out = [];
    var cur = null;
    for (var i = 0; i < stored.length; i++) {
      if (i === 0) {
        cur = stored[0];
      } else {
        cur = Object.assign({}, cur); // values are shared between steps, never changed in place
        var copied = {};
        for (var j = 0; j < stored[i].length; j++) {
          var path = stored[i][j][0], value = stored[i][j][1], key = path[0];
          if (path.length === 1) { cur[key] = value; continue; }
          if (!copied[key]) { cur[key] = cur[key].slice(); copied[key] = true; }
          cur[key][path[1]] = value;
        }
      }
      out.push(cur);
    }
    return out;
  }

  /*@cards*/

  function backRow(n) {
    var row = el("div", "cards hidden-hand");
    var shown = Math.min(n, 12); // a fan of backs, not a wall: the count says the rest
    for (var i = 0; i < shown; i++) row.appendChild(back(i === shown - 1 ? String(n) : undefined));
    return row;
  }

  function teamOf(s, n) { return n === 4 ? s % 2 : s; }
  function teamLabel(players, team) {
    return players.filter(function (_, s) { return teamOf(s, players.length) === team; }).join(" & ");
  }
  function seatName(v, s) { return v.players[s] + " (seat " + s + ")"; }

  // -- the table ----------------------------------------------------------------------------

  function positions(n) {
    var base = data.seat === null || data.seat === undefined ? 0 : data.seat;
    var pos = {};
    if (n === 4) {
      // clockwise from the viewer at the bottom
      pos[base] = "bottom"; pos[(base + 1) % 4] = "left"; pos[(base + 2) % 4] = "top";
      pos[(base + 3) % 4] = "right";
    } else {
      pos[base] = "bottom"; pos[(base + 1) % n] = "top";
    }
    return pos;
  }

  function seatBox(v, s, pos) {
    var box = el("div", "seat pos-" + pos);
    box.id = "seat-" + s;
    var playing = PLAYING.indexOf(v.phase) >= 0;
    if (playing && v.to_play === s) box.classList.add("turn");
    var who = el("div", "who");
    who.appendChild(el("span", "name", v.players[s]));
    who.appendChild(el("span", "seatno", "seat " + s + " · team " + teamOf(s, v.players.length)));
    var hand = v.hands[s];
    var count = typeof hand === "number" ? hand : hand.length;
    who.appendChild(el("span", "count", plural(count, "card")));
    if (data.seat === s) who.appendChild(el("span", "badge", "you"));
    if (playing && v.to_play === s) who.appendChild(el("span", "badge", "to play: " + v.phase));
    box.appendChild(who);
    box.appendChild(typeof hand === "number" ? backRow(hand) : cardRow(hand));
    return box;
  }

  function drawTable(v) {
    var table = document.getElementById("table");
    table.textContent = "";
    table.classList.toggle("two", v.players.length === 2);
    if (v.hand < 0) {
      table.appendChild(el("p", "", "no hand dealt yet"));
      return;
    }
    var pos = positions(v.players.length);
    v.players.forEach(function (_, s) { table.appendChild(seatBox(v, s, pos[s])); });
    table.appendChild(middle(v, data.rules ? data.rules.pile : null, function (s) { return seatName(v, s); }));
  }

  function drawMelds(v) {
    var box = document.getElementById("melds");
    box.textContent = "";
    if (v.hand < 0) return;
    [0, 1].forEach(function (team) {
      var mine = v.melds.filter(function (m) { return m.team === team; });
      var panel = el("div", "team");
      panel.id = "melds-" + team;
      panel.appendChild(el("h3", "", "team " + team + " (" + teamLabel(v.players, team) + "): " +
        plural(mine.length, "meld")));
      if (!mine.length) panel.appendChild(el("p", "none", "no melds yet"));
      mine.forEach(function (m) {
        var row = el("div", "meld");
        row.id = "meld-" + m.id;
        row.dataset.kind = m.kind;
        var tag = el("span", "tag");
        tag.appendChild(el("b", "", "#" + m.id));
        tag.appendChild(document.createTextNode(" " + m.type + " " + (m.clean ? "clean" : "dirty") + " "));
        if (m.kind !== "none") tag.appendChild(el("span", "kind kind-" + m.kind, KIND_LABEL[m.kind] || m.kind));
        row.appendChild(tag);
        row.appendChild(cardRow(m.cards));
        panel.appendChild(row);
      });
      box.appendChild(panel);
    });
  }

  function drawScores(v) {
    var box = document.getElementById("scores");
    box.textContent = "";
    box.appendChild(el("h2", "", "Score sheet (rules §7)"));
    var table = el("table", "sheet");
    table.id = "sheet";
    var head = el("tr");
    head.appendChild(el("th", "", v.hand >= 0 ? "hand " + (v.hand + 1) : "scores"));
    [0, 1].forEach(function (t) { head.appendChild(el("th", "", "team " + t)); });
    table.appendChild(el("thead")).appendChild(head);
    var body = table.appendChild(el("tbody"));
    function row(label, values, cls) {
      var tr = el("tr", cls || "");
      tr.appendChild(el("td", "", label));
      values.forEach(function (x) { tr.appendChild(el("td", "", x)); });
      body.appendChild(tr);
    }
    var sheet = v.hand_scores;
    function items(key) { return sheet.map(function (s) { return String(s[key]); }); }
    if (sheet.length) {
      // the sheet's rows and their names: model/scoring.py's SHEET_ROWS (a test keeps them equal)
      row("cards in melds", items("meld_points"));
      row("canastas", items("canasta_bonus"));
      row("closing", items("close_bonus"));
      row("cards left in hand", v.hands_counted ? items("hand_penalty") : sheet.map(function () { return "hidden"; }));
      row("dead penalty", items("dead_penalty"));
      row("hand total", items("total"), "total");
    }
    var during = PLAYING.indexOf(v.phase) >= 0 || v.phase === "hand_end";
    row(during ? "before this hand" : "totals", v.totals.map(String));
    row("running", v.scores.map(String), "running");
    box.appendChild(table);
    box.appendChild(el("p", "sub", "team 0: " + teamLabel(v.players, 0) + " · team 1: " +
      teamLabel(v.players, 1)));
  }

  function statusWords(v) {
    if ((v.phase === "game_end" || v.phase === "over") && v.winner !== null) {
      return "game over: " + teamLabel(v.players, v.winner) + " won";
    }
    if (v.phase === "game_end" || v.phase === "over") return "game over: a tie";
    if (PLAYING.indexOf(v.phase) >= 0) return "to play: " + seatName(v, v.to_play) + " · phase: " + v.phase;
    return "phase: " + v.phase;
  }

  // -- a branch and the rulings ----------------------------------------------------------------

  function drawBranch(v) {
    var side = document.getElementById("branch-side");
    if (!side || !v.branch) return;
    side.textContent = v.branch.after_fork ? "after the fork: a hypothesis, not the game"
      : "before the fork: the parent's own events";
    document.getElementById("branch-banner").classList.toggle("after", !!v.branch.after_fork);
  }

  function sign(n) { return (n > 0 ? "+" : "") + n; }

  // One judged ruling in words (render.ruling_words in Python).
  function rulingWords(r) {
    var what = "";
    if (r.kind === "score_adjusted" && r.points) what = " " + r.points.map(sign).join(" / ") + " on hand " + (r.hand + 1);
    else if (r.kind === "hand_voided") what = ": hand " + (r.hand + 1) + " counts 0 for both teams";
    else if (r.kind === "replay_from") what = ": the hands from hand " + (r.hand + 1) + " on are the branch's (head " +
      String(r.branch_head || "?").slice(0, 12) + "…)";
    else if (r.kind === "game_awarded") what = ": team " + r.team + " wins";
    else if (r.kind === "withdrawn") what = ": cancels ruling " + r.ruling_seq;
    var verdict = r.applies ? "applies" : "does not apply: " + r.why_not;
    return "ruling " + r.seq + ": " + r.kind + what + " (by " + r.by + ": " + r.reason + ") · " + verdict;
  }

  function standingsWords(st, players) {
    var who = st.winner === null ? "no winner decided"
      : "winner team " + st.winner + " (" + teamLabel(players, st.winner) + ")" + (st.awarded ? ", awarded" : "");
    return "totals " + st.totals.join(" / ") + " · " + who;
  }

  function rulingItem(r) {
    var li = el("li", r.applies ? "ruling applies" : "ruling void", rulingWords(r));
    li.dataset.rulingSeq = String(r.seq);
    return li;
  }

  // The rulings on the step's hand once it has ended; in the panel every ruling on a hand ended by
  // this step (nothing ahead of it), and at the last step every ruling and the standings after
  // them beside the recount, never instead of it.
  function drawRulings(v) {
    var here = document.getElementById("hand-rulings");
    var panel = document.getElementById("rulings");
    here.textContent = "";
    panel.textContent = "";
    var rulings = v.rulings;
    here.hidden = panel.hidden = !rulings;
    if (!rulings) return;
    var ended = v.hand >= 0 && ENDED.indexOf(v.phase) >= 0;
    var mine = rulings.rulings.filter(function (r) { return ended && r.hand === v.hand; });
    here.hidden = !mine.length;
    if (mine.length) {
      here.appendChild(el("p", "rulings-title", "rulings on hand " + (v.hand + 1) + " (from " + rulings.path +
        ", not in the log):"));
      var list = here.appendChild(el("ul"));
      mine.forEach(function (r) { list.appendChild(rulingItem(r)); });
    }
    var final = seq === last;
    var shown = rulings.rulings.filter(function (r) {
      return final || (r.hand !== null && (r.hand < v.hand || (r.hand === v.hand && ended)));
    });
    panel.appendChild(el("h2", "", "Rulings"));
    panel.appendChild(el("p", "sub", "a referee's decisions beside the log, not in it: " + rulings.path +
      (final ? "" : " · shown at their hands as the hands end")));
    if (rulings.problem) panel.appendChild(el("p", "warn", "the rulings log stops: " + rulings.problem));
    var all = panel.appendChild(el("ul"));
    all.id = "rulings-list";
    shown.forEach(function (r) { all.appendChild(rulingItem(r)); });
    if (!shown.length) panel.appendChild(el("p", "none", "no ruling on a hand ended so far"));
    if (final) {
      panel.appendChild(el("p", "", "recount (the log's events): " + standingsWords(rulings.recount, v.players)))
        .id = "standings-recount";
      panel.appendChild(el("p", "after", "after rulings (apart from the recount): " +
        standingsWords(rulings.after, v.players))).id = "standings-after";
    }
  }

  // -- the seat's analysis --------------------------------------------------------------------

  // the seqs of the seat's marked decisions, in order
  var marked = [];
  steps.forEach(function (v, i) { if (v.decision && v.decision.mark) marked.push(i); });

  function drawDecision(v) {
    var line = document.getElementById("decision");
    var d = v.decision;
    line.hidden = !d;
    line.className = d && d.mark ? "mark-" + d.mark : "";
    // the words were written by render.decision_words when the page was made (analysis.words)
    line.textContent = d ? visible("analysis: " + data.analysis.words[String(seq)]) : "";
    document.querySelectorAll("#marks .mark").forEach(function (a) {
      a.classList.toggle("here", a.dataset.seq === String(seq));
    });
  }

  function nextMark() {
    if (!marked.length) return go(seq, "no marked decision");
    var later = marked.filter(function (s) { return s > seq; });
    if (later.length) go(later[0]);
    else go(marked[0], "no later marked decision: back to the first");
  }

  // -- moving about -------------------------------------------------------------------------

  var handStarts = [];
  steps.forEach(function (v, i) {
    if (i > 0 && v.hand >= 0 && v.hand !== steps[i - 1].hand) handStarts.push(i);
  });

  function currentHandIndex() {
    var k = -1;
    handStarts.forEach(function (s, i) { if (s <= seq) k = i; });
    return k;
  }

  var seqBox = document.getElementById("seq");
  var slider = document.getElementById("slider");

  function render(message) {
    var v = steps[seq];
    document.getElementById("event").textContent = visible(v.event);
    document.getElementById("status").textContent = visible(statusWords(v));
    document.getElementById("message").textContent = message ? visible(message) : "";
    var error = document.getElementById("error");
    error.hidden = !(seq === last && v.error);
    error.textContent = seq === last && v.error ? visible("the log stops here: " + v.error) : "";
    seqBox.value = String(seq);
    slider.value = String(seq);
    var who = data.seat === null || data.seat === undefined
      ? "referee (all cards)" : seatName(v, data.seat);
    var hand = v.hand >= 0 ? "hand " + (v.hand + 1) + (spoilerFree ? "" : " of " + handStarts.length)
      : "no hand dealt";
    document.getElementById("where").textContent = visible(hand + " · view: " + who);
    document.getElementById("prev").disabled = seq === 0;
    document.getElementById("next").disabled = seq === last;
    drawTable(v);
    drawMelds(v);
    drawScores(v);
    drawBranch(v);
    drawRulings(v);
    drawDecision(v);
    drawMoves();
    document.body.dataset.seq = String(seq);
  }

  // The move list: one line per step (its seq and the event's words), a click goes to it. On a
  // spoiler-free page only the steps up to the one on screen are listed.
  var moveItems = [];
  function buildMoves() {
    var list = document.getElementById("move-list");
    steps.forEach(function (v, i) {
      var item = el("li");
      var button = el("button", "", v.event);  // the words begin with the seq
      button.type = "button";
      button.addEventListener("click", function () { go(i); });
      item.appendChild(button);
      list.appendChild(item);
      moveItems.push(item);
    });
  }
  var shownMove = -1;
  function drawMoves() {
    moveItems.forEach(function (item, i) {
      item.hidden = spoilerFree && i > seq;
      item.classList.toggle("current", i === seq);
    });
    if (shownMove !== seq && moveItems[seq]) {
      var list = document.getElementById("move-list");
      var item = moveItems[seq];
      // the current line kept in the list's view (the list is its items' offset parent), the
      // page itself not scrolled
      if (item.offsetTop < list.scrollTop || item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = item.offsetTop - list.clientHeight / 2;
      }
      shownMove = seq;
    }
  }

  function go(target, message) {
    if (isNaN(target)) return render("not a seq");
    var clamped = Math.max(0, Math.min(last, target));
    if (clamped !== target && !message) {
      message = target > last ? "the log ends at seq " + last : "seq starts at 0";
    }
    seq = clamped;
    render(message);
    // the result in the title only once the last step is reached (or all along with --spoiler)
    if (data.titles) document.title = seq === last ? data.titles[1] : data.titles[0];
    try { history.replaceState(null, "", "#seq=" + seq); } catch (e) { /* a file: URL may refuse */ }
  }

  function handJump(delta) {
    var cur = currentHandIndex();
    var target = delta < 0 && cur >= 0 && handStarts[cur] < seq ? cur : cur + delta;
    if (target >= 0 && target < handStarts.length) go(handStarts[target]);
    else if (delta > 0) go(last, seq === last ? "no later hand" : "no later hand: the end of the log");
    else go(0, seq === 0 ? "no earlier hand" : "");
  }

  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t === seqBox) {
      if (e.key === "Enter") { go(parseInt(seqBox.value, 10)); seqBox.blur(); e.preventDefault(); }
      else if (e.key === "Escape") { seqBox.value = String(seq); seqBox.blur(); }
      return;
    }
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA")) return;
    var actions = {
      ArrowRight: function () { go(seq + 1); }, n: function () { go(seq + 1); },
      ArrowLeft: function () { go(seq - 1); }, p: function () { go(seq - 1); },
      "]": function () { handJump(1); }, "[": function () { handJump(-1); },
      Home: function () { go(0); }, End: function () { go(last); },
      g: function () { seqBox.focus(); seqBox.select(); }
    };
    if (data.analysis) actions.x = nextMark; // only a page with the seat's analysis has marks
    var act = actions[e.key];
    if (act) { act(); e.preventDefault(); }
  }

  function start() {
    if (!steps.length) {
      document.getElementById("event").textContent = "no event of this log replays";
      ["controls", "table", "melds", "scores", "keys"].forEach(function (id) {
        document.getElementById(id).hidden = true;
      });
      return;
    }
    if (!spoilerFree) {
      document.getElementById("of").textContent = "of " + last;
      seqBox.max = String(last);
      slider.max = String(last);
      slider.hidden = false;
      slider.addEventListener("input", function () { go(parseInt(slider.value, 10)); });
    }
    buildMoves();
    document.getElementById("prev").addEventListener("click", function () { go(seq - 1); });
    document.getElementById("next").addEventListener("click", function () { go(seq + 1); });
    document.getElementById("prev-hand").addEventListener("click", function () { handJump(-1); });
    document.getElementById("next-hand").addEventListener("click", function () { handJump(1); });
    seqBox.addEventListener("change", function () { go(parseInt(seqBox.value, 10)); });
    document.addEventListener("keydown", onKey);
    if (data.analysis) {
      var keys = document.getElementById("keys").firstChild;
      keys.textContent = keys.textContent.replace("g seq box.", "g seq box · x next marked decision.");
    }
    document.querySelectorAll("[data-seq]").forEach(function (a) {
      a.addEventListener("click", function (e) {
        e.preventDefault();
        var target = parseInt(a.dataset.seq, 10);
        go(target, target > last ? "seq " + target + " is past the last event that replays" : "");
        document.getElementById("controls").scrollIntoView();
      });
    });
    var fromLink = /(?:^#|&)seq=(\d+)/.exec(location.hash);
    go(fromLink ? parseInt(fromLink[1], 10) : data.at);
  }

  start();
})();
