// The run report's conversation view: one test case as the conversation it was — each user
// turn, the tool calls the agent made with their arguments and results, the agent's answer,
// and the turn's verdict with why — alone, or beside the same case from another model or
// from the baseline run, with the turns that differ marked. docs/reports.md, "Conversation
// view".
//
// Long conversations stay responsive: turns are drawn in batches as they scroll into view
// (an IntersectionObserver on the last drawn turn; a "show more" button where there is none),
// and a long tool result or answer is folded behind a <details> until asked for. Text goes in
// through textContent only, as everywhere on the page (page.js).
var holodeckConversation = (function () {
  "use strict";
  var BATCH = 20;      // turns drawn at a time
  var FOLD = 600;      // characters of a tool result or answer shown before folding the rest

  function differences(turns) {
    // turns: one turn object per side (undefined where a side has no such turn).
    if (turns.length < 2) return [];
    var a = turns[0], b = turns[1], found = [];
    if (!a || !b) return ["turn missing on one side"];
    if (a.v !== b.v) found.push("verdict");
    if ((a.input || "") !== (b.input || "")) found.push("user turn");
    if ((a.response || "") !== (b.response || "")) found.push("answer");
    if (callNames(a) !== callNames(b)) found.push("tool calls");
    return found;
  }
  function callNames(t) { return (t.calls || []).map(function (c) { return c.n; }).join(","); }
  function reasons(t) {
    if (t.v === "passed") return [];
    var out = (t.errors || []).slice();
    (t.tools || []).forEach(function (x) {
      if (x.reason) out.push(x.reason.indexOf("tool '") === 0 ? x.reason : "tool '" + x.tool + "': " + x.reason);
    });
    return out.concat(t.why || []);
  }

  function view(h, opts) {
    // h: the page's helpers {el, add, json, turnLabel, fmtMs}; opts: {title, sides: [{label,
    // entry}], choices: [{label, value}], chosen, onChoose(value), onBack}.
    var el = h.el, sides = opts.sides;
    var count = sides.reduce(function (n, s) { return Math.max(n, s.entry.turns.length); }, 0);
    var differing = 0;
    for (var j = 0; j < count; j++) {
      if (differences(sides.map(function (s) { return s.entry.turns[j]; })).length) differing++;
    }
    var list = el("ol", { class: "conv-turns" + (sides.length > 1 ? " two" : ""), start: 0 });
    var drawn = 0, observer = null, more = el("button", { type: "button", class: "conv-more" });
    function drawBatch() {
      var end = Math.min(count, drawn + BATCH);
      for (; drawn < end; drawn++) list.appendChild(turnRow(h, sides, drawn));
      more.hidden = drawn >= count;
      more.textContent = "Show " + Math.min(BATCH, count - drawn) + " more of " + (count - drawn) + " turns left";
      if (observer) {
        observer.disconnect();
        if (drawn < count) observer.observe(list.lastChild);
      }
    }
    more.addEventListener("click", drawBatch);
    if (typeof IntersectionObserver === "function") {
      observer = new IntersectionObserver(function (seen) {
        if (seen.some(function (x) { return x.isIntersecting; })) drawBatch();
      }, { rootMargin: "400px" });
    }
    drawBatch();
    var head = el("div", { class: "conv-head" },
      el("h2", { dir: "auto" }, opts.title),
      el("p", { class: "meta" }, count + (count === 1 ? " turn" : " turns") +
        sides.map(function (s) { return " · " + s.label + ": " + tally(s.entry); }).join("") +
        (sides.length > 1 ? " · " + differing + (differing === 1 ? " turn differs" : " turns differ") : "")));
    var tools = el("div", { class: "conv-tools" });
    if (opts.onBack) {
      var back = el("button", { type: "button", class: "conv-back" }, "← Back to the turn");
      back.addEventListener("click", opts.onBack);
      tools.appendChild(back);
    }
    if (opts.choices && opts.choices.length) {
      var select = el("select", { class: "conv-beside", "aria-label": "Show beside" },
        [el("option", { value: "" }, "Show beside: nothing")].concat(opts.choices.map(function (c) {
          return el("option", { value: c.value }, "Show beside: " + c.label);
        })));
      select.value = opts.chosen || "";
      select.addEventListener("change", function () { opts.onChoose(select.value); });
      tools.appendChild(select);
    }
    return el("section", { class: "conversation", "data-turns": count, "data-differing": differing, "data-sides": sides.length },
      head, tools, list, more);
  }
  function tally(entry) {
    var passed = entry.turns.filter(function (t) { return t.v === "passed"; }).length;
    return passed + "/" + entry.turns.length + " passed";
  }

  function turnRow(h, sides, j) {
    var el = h.el, turns = sides.map(function (s) { return s.entry.turns[j]; });
    var differ = differences(turns);
    var row = el("li", { class: "conv-turn" + (differ.length ? " differs" : ""), "data-turn": j,
      "data-differs": differ.length ? differ.join(",") : null });
    if (differ.length) row.appendChild(el("p", { class: "conv-differs" }, "≠ differs: " + differ.join(", ")));
    var body = el("div", { class: "conv-sides" });
    turns.forEach(function (t, k) { body.appendChild(side(h, t, sides[k].label, j)); });
    row.appendChild(body);
    return row;
  }
  function side(h, t, label, j) {
    var el = h.el;
    if (!t) return el("div", { class: "conv-side absent", "data-side": label }, el("p", { class: "meta" }, label + ": no turn " + j));
    var parts = [
      el("div", { class: "bubble user", dir: "auto" }, el("span", { class: "who" }, "user"), folded(h, t.input || "")),
    ];
    if (t.calls && t.calls.length) parts.push(el("ol", { class: "conv-calls", start: 0 }, t.calls.map(function (c) { return call(h, c); })));
    parts.push(el("div", { class: "bubble agent", dir: "auto" }, el("span", { class: "who" }, "agent"),
      t.response === undefined ? el("em", null, "(no answer)") : folded(h, t.response)));
    var why = reasons(t);
    var facts = [t.ms !== undefined ? h.fmtMs(t.ms) : null, t.tokens ? t.tokens.toLocaleString("en-US") + " tokens" : null].filter(Boolean);
    parts.push(el("div", { class: "conv-verdict " + t.v },
      el("span", { class: "verdict " + t.v }, h.turnLabel(t) + " · " + t.v),
      facts.length ? el("span", { class: "meta" }, " · " + facts.join(" · ")) : null,
      t.truth !== undefined ? el("p", { class: "conv-truth", dir: "auto" }, el("span", { class: "label" }, "expected "), t.truth) : null,
      why.length ? el("ul", { class: "why" }, why.map(function (w) { return el("li", { dir: "auto" }, w); })) : null));
    return el("div", { class: "conv-side " + t.v, "data-side": label, "data-verdict": t.v }, parts);
  }
  function call(h, c) {
    // Keys as data.py writes them: n name, a args, r result, e error, p why it could not run.
    var el = h.el;
    return el("li", { class: "conv-call" + (c.e || c.p ? " failed" : "") },
      el("code", null, c.n), c.a !== undefined ? el("code", { class: "conv-args" }, compact(c.a)) : null,
      c.r !== undefined ? el("div", { class: "conv-result" }, el("span", { class: "label" }, "→ "), folded(h, typeof c.r === "string" ? c.r : compact(c.r))) : null,
      c.p ? el("p", { class: "reason call-problem", dir: "auto" }, c.p) : null,
      c.e ? el("p", { class: "reason", dir: "auto" }, "error: " + c.e) : null);
  }
  function compact(value) {
    try { return JSON.stringify(value); } catch (e) { return String(value); }
  }
  function folded(h, textValue) {
    var el = h.el, s = String(textValue);
    if (s.length <= FOLD) return el("span", { class: "conv-text" }, s);
    var rest = el("span", { class: "conv-text" });
    var box = el("details", { class: "conv-fold" }, el("summary", null, s.slice(0, FOLD) + "… (" + (s.length - FOLD).toLocaleString("en-US") + " more characters)"), rest);
    // The rest is put in only when opened: a 4,000-character result per call, 500 turns.
    box.addEventListener("toggle", function () { if (box.open && !rest.textContent) rest.textContent = s; });
    return box;
  }

  return { view: view, differences: differences };
})();
