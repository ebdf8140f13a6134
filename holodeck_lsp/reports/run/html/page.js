// The HoloDeck run report page: draws the summary, charts (inline SVG, no library), the
// case x turn grid, filters and the turn detail from the JSON block #report-data.
// Every piece of report text goes into the page through textContent / createTextNode, never
// as markup: a response holding a script element shows as text. See docs/reports.md.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var PAGE_FORMAT = 2;
  // In the VS Code webview the extension answers "reveal" messages; in a browser this is null.
  var vscode = typeof acquireVsCodeApi === "function" ? acquireVsCodeApi() : null;
  var app = document.getElementById("app");
  var data;
  try {
    data = JSON.parse(document.getElementById("report-data").textContent);
  } catch (e) {
    app.appendChild(el("p", { class: "problem" }, "The report data of this page cannot be read: " + e.message));
    return;
  }
  if (!data || data.format > PAGE_FORMAT) {
    app.appendChild(el("p", { class: "problem" },
      "This page's data is format " + (data && data.format) + "; this page draws format " + PAGE_FORMAT + ". Render it again with this holodeck-lsp: holodeck-lsp report REPORT.json --html FILE"));
    return;
  }
  // Defaults data.py leaves out to keep the page small: a turn passed, an assertion held,
  // and (compact.py) a turn's input / truth are those of the first column's first run, a
  // metric's name, kind, threshold and judge come from the page's metrics table.
  var runs = data.runs, multi = runs.length > 1, base = data.baseline;
  // The baseline run's own columns, when the page was made with it (the conversation view
  // shows its turns beside this run's): drawn nowhere else.
  var baseRuns = data.base_runs || [];
  function entries(c) { return [c].concat(c.more || []); }
  function slot(t) { return t.t === undefined ? 0 : t.t; }
  var ref = {};
  runs[0].cases.forEach(function (c) { c.turns.forEach(function (t) { ref[c.i + "|" + slot(t)] = t; }); });
  runs.concat(baseRuns).forEach(function (r) {
    r.cases.forEach(function (c) {
      entries(c).forEach(function (e) {
        e.turns.forEach(function (t) {
          var same = ref[c.i + "|" + slot(t)] || {};
          if (!("input" in t)) t.input = same.input;
          if (!("truth" in t)) t.truth = same.truth;
          if (t.truth === null) delete t.truth;
          t.v = t.v || "passed";
          (t.metrics || []).forEach(function (m) {
            var def = data.metrics[m.x];  // [name, kind, threshold, judge model] (compact.py)
            m.n = def[0];
            if (def[1] !== null) m.k = def[1];
            if (def[2] !== null) m.th = def[2];
            if (def[3] !== null) m.m = def[3];
          });
          (t.tools || []).forEach(function (x) { x.ok = x.unchecked ? undefined : x.ok !== false; });
          // A failure line ending in a metric's reasoning: [the rest, metric index] (data.py).
          if (t.why) t.why = t.why.map(function (w) { return typeof w === "string" ? w : w[0] + " (" + t.metrics[w[1]].r + ")"; });
        });
      });
    });
  });
  var changes = {};
  ((base && base.changes) || []).forEach(function (ch) { if (ch.i !== null) changes[ch.m + "|" + ch.i + "|" + ch.t] = ch; });
  var state = { failedOnly: false, regressionsOnly: false, tool: "", kind: "", text: "", selected: null };

  // ------------------------------------------------------------ helpers
  function el(tag, attrs) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }
  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) node.setAttribute(k, String(attrs[k]));
    });
  }
  function add(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { add(node, c); }); return; }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  function text(cls, value) { return el("div", { class: "text " + (cls || ""), dir: "auto" }, value); }
  function json(value) {
    return el("pre", { class: "json", dir: "auto" }, typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value, null, 2));
  }
  function pct(n, d) { return d ? Math.round((1000 * n) / d) / 10 : 0; }
  // What the time tile measures, beside the terminal's "wall time" (docs/reports.md).
  var COST = "the agent's tokens at the price list: prompt tokens at the input price, completion tokens at the output price";
  // As the terminal and the Markdown report write money (engine/reports/view.py usd()).
  function fmtUsd(amount) {
    return (amount >= 10 ? amount.toFixed(2) : amount >= 0.01 || amount === 0 ? amount.toFixed(4) : amount.toFixed(6)) + " USD";
  }
  var PASS_RATE = "cases passed of those measured, with the 95% Wilson interval: where the true rate plausibly lies given this many cases";
  var TURN_TIME = "the time of one turn, median (p50) and 95th percentile (p95), over the turns that were answered";
  var AGENT_TIME = "the agent's answering time, summed over turns (judging, grading and start-up not included; turns run in parallel add up)";
  function fmtMs(ms) { return ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(2) + " s"; }
  function turnLabel(turn) { return turn.t === undefined ? "case" : "turn " + turn.t; }
  // Every turn of run r (all runs when r is undefined), every repeat.
  function eachTurn(fn, r) {
    (r === undefined ? runs : [r]).forEach(function (one) {
      one.cases.forEach(function (c) { entries(c).forEach(function (e) { e.turns.forEach(function (t) { fn(c, t, e); }); }); });
    });
  }
  function modelLetter(m) { return String.fromCharCode(65 + (m % 26)) + (m >= 26 ? Math.floor(m / 26) : ""); }

  // ------------------------------------------------------------ numbers (per run, all repeats)
  function byTurnIndex(r) {
    var rows = {};
    eachTurn(function (c, t) {
      if (t.v === "skipped" || t.v === "errored") return;
      var key = slot(t);
      rows[key] = rows[key] || { passed: 0, total: 0 };
      rows[key].total++;
      if (t.v === "passed") rows[key].passed++;
    }, r);
    return rows;
  }
  function byKind(r) {
    var counts = {};
    eachTurn(function (c, t) { (t.kinds || []).forEach(function (k) { counts[k] = (counts[k] || 0) + 1; }); }, r);
    return counts;
  }
  function byTool(r) {
    var rows = {};
    eachTurn(function (c, t) {
      (t.tools || []).forEach(function (x) {
        if (x.ok === undefined) return;
        rows[x.tool] = rows[x.tool] || { passed: 0, total: 0 };
        rows[x.tool].total++;
        if (x.ok) rows[x.tool].passed++;
      });
    }, r);
    return rows;
  }
  // The labels of all runs' tables, in the order given.
  function labelsOf(tables, order) {
    var seen = {};
    tables.forEach(function (tb) { Object.keys(tb).forEach(function (k) { seen[k] = 1; }); });
    return Object.keys(seen).sort(order);
  }

  // ------------------------------------------------------------ charts (inline SVG)
  // One bar per run in each group: with several models the runs are the series.
  function rateChart(id, title, tables, what, order) {
    var labels = labelsOf(tables, order), n = tables.length;
    var w = n > 1 ? 30 : 44, gap = 14, h = 120, top = 18, group = n * w + (n - 1) * 2;
    var width = Math.max(200, labels.length * (group + gap) + gap);
    var chart = svg("svg", { viewBox: "0 0 " + width + " " + (h + top + 34), width: width, height: h + top + 34, role: "img", "aria-label": title });
    labels.forEach(function (label, i) {
      var x0 = gap + i * (group + gap);
      tables.forEach(function (tb, m) {
        var r = tb[label];
        if (!r) return;
        var rate = pct(r.passed, r.total), x = x0 + m * (w + 2), bh = Math.round((h * rate) / 100);
        chart.appendChild(svg("g", { class: "bar", "data-label": label, "data-model": m, "data-model-label": runs[m].label,
          "data-passed": r.passed, "data-total": r.total, "data-rate": rate },
          svg("rect", { class: "track", x: x, y: top, width: w, height: h }),
          svg("rect", { class: "fill" + (n > 1 ? " s" + (m % 6) : ""), x: x, y: top + h - bh, width: w, height: bh }),
          svg("text", { x: x + w / 2, y: top - 5, "text-anchor": "middle", class: n > 1 ? "value small" : "value" }, rate + "%"),
          svg("text", { x: x + w / 2, y: top + h + 28, "text-anchor": "middle", class: "sub" }, r.passed + "/" + r.total),
          svg("title", null, (n > 1 ? runs[m].label + ", " : "") + what + " " + label + ": " + r.passed + " of " + r.total + " passed (" + rate + "%)")));
      });
      chart.appendChild(svg("text", { x: x0 + group / 2, y: top + h + 14, "text-anchor": "middle" }, label));
    });
    return figure(id, title, labels.length ? chart : el("p", { class: "empty" }, "nothing to show"));
  }
  function kindChart(tables) {
    var n = tables.length, total = {};
    tables.forEach(function (tb) { Object.keys(tb).forEach(function (k) { total[k] = (total[k] || 0) + tb[k]; }); });
    var labels = Object.keys(total).sort(function (a, b) { return total[b] - total[a] || (a < b ? -1 : 1); });
    var max = 0;
    tables.forEach(function (tb) { labels.forEach(function (k) { max = Math.max(max, tb[k] || 0); }); });
    var bar = n > 1 ? 13 : 18, labelW = 210, barW = 240, rowH = n * (bar + 2) + 6;
    var chart = svg("svg", { viewBox: "0 0 " + (labelW + barW + 50) + " " + (labels.length * rowH + 6), width: labelW + barW + 50, height: labels.length * rowH + 6, role: "img", "aria-label": "failures by kind" });
    labels.forEach(function (k, i) {
      var y0 = 6 + i * rowH;
      chart.appendChild(svg("text", { x: labelW - 6, y: y0 + bar - 4, "text-anchor": "end" }, k));
      tables.forEach(function (tb, m) {
        var count = tb[k] || 0, y = y0 + m * (bar + 2), bw = max && count ? Math.max(2, Math.round((barW * count) / max)) : 0;
        chart.appendChild(svg("g", { class: "bar kind", "data-kind": k, "data-model": m, "data-model-label": runs[m].label, "data-count": count },
          svg("rect", { class: "fill failed" + (n > 1 ? " s" + (m % 6) : ""), x: labelW, y: y, width: bw, height: bar }),
          svg("text", { x: labelW + bw + 6, y: y + bar - 3, class: "value" }, String(count)),
          svg("title", null, (n > 1 ? runs[m].label + ", " : "") + k + ": " + count + " failed turns")));
      });
    });
    return figure("chart-kinds", "Failed turns by kind", labels.length ? chart : el("p", { class: "empty" }, "no failed turns"));
  }
  function figure(id, title, body) {
    return el("figure", { id: id, class: "chart" }, el("figcaption", null, title), body);
  }
  function legend() {
    return el("p", { class: "legend", id: "legend" }, runs.map(function (r, m) {
      return el("span", { class: "series", "data-model": m }, el("span", { class: "swatch s" + (m % 6) }), modelLetter(m) + " " + r.label);
    }));
  }

  // ------------------------------------------------------------ summary
  function total(field) { return runs.reduce(function (n, r) { return n + r.summary[field]; }, 0); }
  function summary() {
    var env = data.report.environment || {}, cancelled = runs.some(function (r) { return r.summary.cancelled; });
    // The run's cost only when every model's is known: a partial sum would pass for the bill.
    var cost = runs.every(function (r) { return typeof r.summary.cost_usd === "number"; })
      ? runs.reduce(function (sum, r) { return sum + r.summary.cost_usd; }, 0) : null;
    var turns = total("turns"), passed = total("turns_passed"), skipped = total("turns_skipped"), errored = total("turns_errored") || 0, failedTurns = turns - passed - skipped - errored;
    var flaky = total("flaky"), repeats = data.report.repeats || 1;
    function tile(id, label, value, cls, title) {
      return el("div", { class: "tile " + (cls || ""), id: id, title: title || null }, el("span", { class: "num" }, String(value)), el("span", { class: "label" }, label));
    }
    var judges = {};
    runs.forEach(function (r) { r.judge_models.forEach(function (m) { judges[m] = 1; }); });
    var models = (multi ? [] : [runs[0].model ? "agent " + runs[0].model : null]).concat(Object.keys(judges).sort().map(function (m) { return "judge " + m; })).filter(Boolean);
    var what = repeats > 1 ? "case runs" : "cases";
    return el("section", { id: "summary" },
      el("h1", { dir: "auto" }, data.report.agent),
      el("p", { class: "meta", dir: "auto" },
        data.report.path + " · " + data.report.timestamp + " · " + data.report.version +
        (env.mode ? " · " + env.mode : "") +  // the mode, never the backend's class name
        (multi ? " · " + runs.length + " models" : "") + (repeats > 1 ? " · " + repeats + " runs per case" : "") + (cancelled ? " · cancelled" : "")),
      el("div", { class: "tiles" },
        tile("sum-cases-passed", what + " passed", total("passed"), "passed"),
        tile("sum-cases-failed", what + " failed", total("failed"), total("failed") ? "failed" : ""),
        !multi && runs[0].summary.stats ? tile("sum-pass-rate", "pass rate, 95% interval", runs[0].summary.stats.rate, "", PASS_RATE) : null,
        tile("sum-turns-passed", "turns passed", passed, "passed"),
        tile("sum-turns-failed", "turns failed", failedTurns, failedTurns ? "failed" : ""),
        tile("sum-turns-skipped", "turns skipped", skipped, ""),
        errored ? tile("sum-cases-errored", what + " errored (not measured)", total("errored") || 0, "errored") : null,
        errored ? tile("sum-turns-errored", "turns errored", errored, "errored") : null,
        total("simulator_failed") ? tile("sum-cases-simulator", what + " simulator failed (no verdict)", total("simulator_failed"), "errored") : null,
        repeats > 1 ? tile("sum-flaky", "flaky turns", flaky, flaky ? "flaky" : "") : null,
        tile("sum-tokens", "tokens", total("tokens").toLocaleString("en-US"), ""),
        cost !== null ? tile("sum-cost", "cost", fmtUsd(cost), "", COST + (env.prices_as_of ? " (prices as of " + env.prices_as_of + ")" : "")) : null,
        tile("sum-time", "agent time", fmtMs(data.report.duration_ms || total("duration_ms")), "", AGENT_TIME),
        !multi && runs[0].summary.stats && runs[0].summary.stats.p50_ms !== null ? tile("sum-latency", "turn time", runs[0].summary.stats.latency, "", TURN_TIME) : null),
      multi || repeats > 1 ? modelTable() : null,
      (data.report.paired || []).length ? el("ul", { id: "paired", class: "notes" }, data.report.paired.map(function (n) { return el("li", { dir: "auto" }, n); })) : null,
      models.length ? el("p", { class: "meta", id: "models" }, "Models: " + models.join(", ")) : null,
      // Turns stopped at the tool-round limit (engine/tool_loop.py words it), per run.
      runs.some(function (r) { return r.summary.tool_limit; }) ? el("p", { class: "meta", id: "tool-limit" },
        runs.filter(function (r) { return r.summary.tool_limit; }).map(function (r) { return (multi ? r.label + ": " : "") + r.summary.tool_limit; }).join(" · ")) : null,
      base ? baselineSummary() : null);
  }
  function modelTable() {
    // [heading, data-field (the summary's key where it is one)]
    var cols = [["model", "model"], ["cases passed", "passed"], ["cases failed", "failed"], ["turns passed", "turns_passed"],
      ["turns failed", "turns_failed"], ["turns skipped", "turns_skipped"], ["flaky turns", "flaky"], ["pass rate (turns)", "turn_pass_rate"],
      ["pass rate [95%]", "stat_rate"], ["pass^k", "stat_hat"], ["tokens", "tokens"], ["cost", "cost"], ["agent time", "duration_ms"],
      ["turn time", "stat_latency"]];
    var body = el("tbody");
    runs.forEach(function (r, m) {
      var s = r.summary, ran = s.turns - s.turns_skipped - (s.turns_errored || 0);
      var values = { model: modelLetter(m) + " " + r.label, turns_failed: ran - s.turns_passed, turn_pass_rate: pct(s.turns_passed, ran) + "%",
        tokens: s.tokens.toLocaleString("en-US"), duration_ms: fmtMs(s.duration_ms),
        cost: typeof s.cost_usd === "number" ? fmtUsd(s.cost_usd) : "-",
        stat_rate: s.stats ? s.stats.rate : "-", stat_hat: s.stats && s.stats.pass_hat_k ? s.stats.pass_hat_k : "-",
        stat_latency: s.stats ? s.stats.latency : "-" };
      body.appendChild(el("tr", { "data-model": m }, cols.map(function (col) {
        var v = col[1] in values ? values[col[1]] : s[col[1]];
        return el(col[1] === "model" ? "th" : "td", { "data-field": col[1], dir: "auto", scope: col[1] === "model" ? "row" : null }, String(v));
      })));
    });
    return el("table", { id: "model-summaries", class: "metrics" },
      el("thead", null, el("tr", null, cols.map(function (c) { return el("th", null, c[0]); }))), body);
  }
  // What a comparison's change kinds are called on the page: [one, several].
  var KIND_WORDS = { regression: ["regression", "regressions"], fix: ["fix", "fixes"], new_reason: ["new reason", "new reasons"],
    score: ["score change", "score changes"], edited: ["edited turn", "edited turns"], added: ["added turn", "added turns"],
    removed: ["removed turn", "removed turns"], not_run: ["not run", "not run"] };
  function kindWord(k, n) { var w = KIND_WORDS[k] || [k, k]; return n === 1 ? w[0] : w[1]; }
  function baselineSummary() {
    var c = base.counts, others = Object.keys(c).filter(function (k) { return k !== "regression" && k !== "fix"; });
    var off = base.changes.filter(function (ch) { return ch.i === null; });
    return el("div", { id: "baseline" },
      el("p", { id: "baseline-summary", class: c.regression ? "problem" : "" , dir: "auto" },
        (c.regression || 0) + " " + kindWord("regression", c.regression || 0) + ", " + (c.fix || 0) + " " + kindWord("fix", c.fix || 0) + " vs " + base.label +
        (others.length ? " · " + others.map(function (k) { return c[k] + " " + kindWord(k, c[k]); }).join(", ") : "") +
        " · unchanged: " + base.unchanged_passing + " passing, " + base.unchanged_failing + " failing"),
      base.notes.length ? el("ul", { class: "notes" }, base.notes.map(function (n) { return el("li", { dir: "auto" }, n); })) : null,
      (base.statistics || []).length ? el("ul", { id: "baseline-statistics", class: "notes" }, base.statistics.map(function (n) { return el("li", { dir: "auto" }, n); })) : null,
      off.length ? el("details", { id: "baseline-elsewhere" }, el("summary", null, off.length + " change(s) to turns not in this run's grid"),
        el("ul", null, off.map(function (ch) {
          return el("li", { dir: "auto", "data-kind": ch.k }, kindWord(ch.k, 1) + ": " + ch.case + " · turn " + ch.t + (ch.model ? " · " + ch.model : "") + sideWords(ch));
        }))) : null);
  }
  function sideText(side) {
    if (!side) return "absent";
    return side.v + (side.runs > 1 ? " (" + side.passes + "/" + side.runs + ")" : "");
  }
  function sideWords(ch) { return " — base " + sideText(ch.base) + " → this run " + sideText(ch.head); }

  // ------------------------------------------------------------ filters
  function filters() {
    var tools = {}, kinds = {};
    eachTurn(function (c, t) {
      (t.tools || []).forEach(function (x) { tools[x.tool] = 1; });
      (t.kinds || []).forEach(function (k) { kinds[k] = 1; });
    });
    function select(id, label, values, key) {
      var s = el("select", { id: id }, el("option", { value: "" }, "any " + label));
      Object.keys(values).sort().forEach(function (v) { s.appendChild(el("option", { value: v }, v)); });
      s.addEventListener("change", function () { state[key] = s.value; applyFilters(); });
      return el("label", null, label + " ", s);
    }
    function box(id, label, key) {
      var input = el("input", { type: "checkbox", id: id });
      input.addEventListener("change", function () { state[key] = input.checked; applyFilters(); });
      return el("label", null, input, " " + label);
    }
    var search = el("input", { type: "search", id: "filter-text", placeholder: "search input, response, tools…" });
    search.addEventListener("input", function () { state.text = search.value.toLowerCase(); applyFilters(); });
    return el("section", { id: "filters" },
      box("filter-failed", "failed turns only", "failedOnly"),
      base ? box("filter-regressions", "regressions only", "regressionsOnly") : null,
      select("filter-tool", "tool", tools, "tool"),
      select("filter-kind", "kind", kinds, "kind"),
      search,
      el("span", { id: "filter-count", "aria-live": "polite" }));
  }
  function searchable(c, t) {
    if (t._text === undefined) {
      t._text = [c.name, t.input, t.response, t.truth].concat(t.why || [], t.errors || [],
        (t.tools || []).map(function (x) { return x.reason || ""; }),
        (t.calls || []).map(function (x) { return x.n + " " + JSON.stringify(x.a || {}); }),
        (t.tools || []).map(function (x) { return x.tool; })).join("\n").toLowerCase();
    }
    return t._text;
  }
  function turnMatches(c, t) {
    if (state.kind && (t.kinds || []).indexOf(state.kind) < 0) return false;
    if (state.tool && !(t.tools || []).some(function (x) { return x.tool === state.tool; }) &&
        !(t.calls || []).some(function (x) { return x.n.indexOf(state.tool) >= 0; })) return false;
    if (state.text && searchable(c, t).indexOf(state.text) < 0) return false;
    return true;
  }
  function matches(cell) {
    if (state.failedOnly && cell.v !== "failed") return false;
    if (state.regressionsOnly && !(cell.change && cell.change.k === "regression")) return false;
    if (!state.kind && !state.tool && !state.text) return true;
    return cell.reps.some(function (x) { return turnMatches(cell.c, x.turn); });
  }
  function applyFilters() {
    var shown = 0, count = 0;
    rows.forEach(function (row) {
      var any = false;
      row.cells.forEach(function (cell) {
        var on = matches(cell);
        cell.node.classList.toggle("filtered-out", !on);
        if (on) { any = true; shown++; }
        count++;
      });
      row.node.hidden = !any;
    });
    document.getElementById("filter-count").textContent = shown + " of " + count + " turns shown";
  }

  // ------------------------------------------------------------ grid
  // A row per case (by position, over all runs); per turn, one cell per run (model). A cell
  // holds the turn's repeats: its verdict is "passed" only when every run of it passed.
  var rows = [];
  function gridRows() {
    var byPos = {}, order = [];
    runs.forEach(function (r, m) {
      r.cases.forEach(function (c) {
        if (!byPos[c.i]) { byPos[c.i] = { i: c.i, name: c.name, per: [] }; order.push(c.i); }
        byPos[c.i].per[m] = c;
      });
    });
    order.sort(function (a, b) { return a - b; });
    return order.map(function (i) { return byPos[i]; });
  }
  function cellOf(c, j, m) {
    var reps = [];
    entries(c).forEach(function (e) { if (e.turns[j]) reps.push({ e: e, turn: e.turns[j], r: e.r || 1 }); });
    if (!reps.length) return null;
    var ran = reps.filter(function (x) { return x.turn.v !== "skipped" && x.turn.v !== "errored"; });
    var errored = reps.some(function (x) { return x.turn.v === "errored"; });
    var passes = ran.filter(function (x) { return x.turn.v === "passed"; }).length;
    var t = reps[0].turn;
    return { c: c, m: m, t: t, reps: reps, passes: passes, n: ran.length,
      v: !ran.length ? (errored ? "errored" : "skipped") : passes === ran.length ? "passed" : "failed",
      flaky: passes > 0 && passes < ran.length, change: changes[m + "|" + c.i + "|" + slot(t)] || null };
  }
  var MARKS = { regression: "▼", fix: "▲" };
  function cellButton(cell) {
    var t = cell.t, many = cell.reps.length > 1, ch = cell.change;
    var label = cell.c.name + " · " + turnLabel(t) + (multi ? " · " + runs[cell.m].label : "") + ": " + cell.v +
      (many ? " (" + cell.passes + "/" + cell.n + " runs passed" + (cell.flaky ? ", flaky" : "") + ")" : "") +
      (ch ? " · " + kindWord(ch.k, 1) + " vs " + base.label : "");
    var btn = el("button", { type: "button", class: "cell " + cell.v + (cell.flaky ? " flaky" : "") + (many ? " rate" : "") + (ch ? " change " + ch.k : ""),
      "data-case": cell.c.i, "data-turn": t.t === undefined ? "" : t.t, "data-model": cell.m, "data-verdict": cell.v,
      "data-passes": cell.passes, "data-runs": cell.n, "data-flaky": cell.flaky ? "true" : null, "data-change": ch ? ch.k : null,
      title: label + (t.kinds ? " (" + t.kinds.join(", ") + ")" : ""), "aria-label": label },
      many ? (cell.n ? cell.passes + "/" + cell.n : "–") : cell.v === "passed" ? "✓" : cell.v === "failed" ? "✗" : cell.v === "errored" ? "!" : "–",
      cell.flaky ? el("span", { class: "mark flaky-mark", "aria-hidden": "true" }, "≈") : null,
      ch ? el("span", { class: "mark change-mark", "aria-hidden": "true" }, MARKS[ch.k] || "•") : null);
    btn.addEventListener("click", function () { select(cell, btn); });
    return btn;
  }
  function grid() {
    var found = gridRows(), n = runs.length;
    var widest = found.reduce(function (w, row) {
      return row.per.reduce(function (x, c) { return c ? Math.max(x, c.turns.length) : x; }, w);
    }, 0);
    var head = el("tr", null, el("th", { scope: "col", rowspan: multi ? 2 : null }, "case"));
    for (var i = 0; i < widest; i++) head.appendChild(el("th", { scope: "colgroup", colspan: n > 1 ? n : null, class: "turn-head" }, String(i)));
    var heads = [head];
    if (multi) {
      var second = el("tr", { class: "model-head" });
      for (var j = 0; j < widest; j++) runs.forEach(function (r, m) { second.appendChild(el("th", { scope: "col", title: r.label, "data-model": m }, modelLetter(m))); });
      heads.push(second);
    }
    var body = el("tbody");
    found.forEach(function (row) {
      var passed = row.per.every(function (c) { return !c || entries(c).every(function (e) { return e.passed; }); });
      var tr = el("tr", { class: passed ? "case passed" : "case failed", "data-case": row.i },
        el("th", { scope: "row", dir: "auto", title: row.name }, row.name));
      var entry = { node: tr, cells: [] };
      for (var j = 0; j < widest; j++) {
        for (var m = 0; m < n; m++) {
          var c = row.per[m], cell = c ? cellOf(c, j, m) : null;
          var td = el("td", { class: (m === n - 1 && n > 1 ? "group-end" : null) });
          if (cell) { td.appendChild(cellButton(cell)); cell.node = td; entry.cells.push(cell); }
          tr.appendChild(td);
        }
      }
      body.appendChild(tr);
      rows.push(entry);
    });
    var table = el("table", { id: "grid", class: multi ? "matrix" : null }, el("thead", null, heads), body);
    return el("section", { id: "grid-section" }, el("h2", null, "Cases × turns" + (multi ? " × models" : "")),
      found.length ? table : el("p", { class: "empty", id: "no-cases" }, "This report has no test cases."));
  }

  // ------------------------------------------------------------ turn detail
  function select(cell, btn) {
    if (state.selected) state.selected.classList.remove("selected");
    state.selected = btn;
    btn.classList.add("selected");
    var panel = document.getElementById("detail");
    panel.replaceChildren(detail(cell));
    panel.hidden = false;
    var c = cell.c, t = cell.t;
    // The editor finds the case / turn in the agent file itself (its test tree knows where).
    if (vscode) vscode.postMessage({ type: "reveal", case: c.i, turn: t.t === undefined ? null : t.t, loc: t.loc || c.loc || null });
  }
  function section(title, body) { return el("div", { class: "part" }, el("h3", null, title), body); }
  function detail(cell) {
    var c = cell.c, t = cell.t, many = cell.reps.length > 1;
    var first = cell.reps.filter(function (x) { return x.turn.v === "failed"; })[0] || cell.reps[0];
    var body = el("div", { class: "turn-body" });
    var head = el("h2", { dir: "auto" }, c.name + " · " + turnLabel(t) + (multi ? " · " + runs[cell.m].label : "") + " · ",
      el("span", { class: "verdict " + cell.v }, cell.v), many ? " · " + cell.passes + "/" + cell.n + " runs passed" + (cell.flaky ? " (flaky)" : "") : "");
    var parts = [head];
    if (cell.change) parts.push(changeDetail(cell.change));
    if (many) {
      var tabs = el("div", { class: "repeats", role: "tablist" });
      cell.reps.forEach(function (x) {
        var tab = el("button", { type: "button", role: "tab", class: "rep " + x.turn.v, "data-rep": x.r }, "run " + x.r + " " + (x.turn.v === "passed" ? "✓" : x.turn.v === "failed" ? "✗" : "–"));
        tab.addEventListener("click", function () { showRep(tabs, body, c, x); });
        tabs.appendChild(tab);
      });
      parts.push(tabs);
      showRep(tabs, body, c, first);
    } else {
      add(body, turnParts(c, first.e, first.turn));
    }
    if (c.turns.length > 1) {
      var whole = el("button", { type: "button", class: "conv-open" }, "Whole conversation (" + c.turns.length + " turns)");
      whole.addEventListener("click", function () { showConversation(cell, body.getAttribute("data-rep"), ""); });
      parts.push(el("p", null, whole));
    }
    parts.push(body);
    return el("div", { class: "detail-body", "data-case": c.i, "data-turn": t.t === undefined ? "" : t.t, "data-model": cell.m }, parts);
  }
  // ------------------------------------------------------------ conversation (conversation.js)
  function showConversation(cell, rep, beside) {
    var c = cell.c, x = cell.reps.filter(function (y) { return String(y.r) === String(rep); })[0] || cell.reps[0];
    var many = cell.reps.length > 1;
    var sides = [{ label: runs[cell.m].label + (many ? " · run " + x.r : ""), entry: x.e }];
    var choices = [];
    runs.forEach(function (r, m) {
      var other = caseAt(r, c.i);
      if (m !== cell.m && other) choices.push({ label: r.label, value: "m" + m, entry: other });
    });
    var theirs = baseRuns.filter(function (r) { return r.label === runs[cell.m].label; })[0] || baseRuns[0];
    var inBase = theirs ? caseAt(theirs, c.i) : null;
    if (inBase) choices.push({ label: base ? "baseline " + base.label : "the baseline run", value: "base", entry: inBase });
    var chosen = choices.filter(function (ch) { return ch.value === beside; })[0];
    if (chosen) sides.push({ label: chosen.label, entry: chosen.entry });
    var panel = document.getElementById("detail");
    panel.replaceChildren(holodeckConversation.view({ el: el, add: add, json: json, turnLabel: turnLabel, fmtMs: fmtMs }, {
      title: c.name + " · conversation", sides: sides, choices: choices, chosen: chosen ? chosen.value : "",
      onChoose: function (value) { showConversation(cell, x.r, value); },
      onBack: function () { panel.replaceChildren(detail(cell)); },
    }));
    panel.hidden = false;
    // From its first turn: left where the last view ended, the page would sit below the new
    // view's first batch and draw every batch at once.
    if (panel.getBoundingClientRect().top < 0) panel.scrollIntoView();
  }
  function caseAt(r, i) { return r.cases.filter(function (c) { return c.i === i; })[0] || null; }
  function showRep(tabs, body, c, x) {
    Array.prototype.forEach.call(tabs.children, function (b) { b.setAttribute("aria-selected", String(b.getAttribute("data-rep") === String(x.r))); });
    body.setAttribute("data-rep", x.r);
    body.replaceChildren();
    add(body, turnParts(c, x.e, x.turn));
  }
  function changeDetail(ch) {
    var rows = [["verdict", function (s) { return s ? s.v : "absent"; }], ["passed runs", function (s) { return s ? s.passes + "/" + s.runs : ""; }],
      ["reason", function (s) { return s && s.reason ? s.reason : ""; }]];
    var table = el("table", { class: "metrics sides" }, el("thead", null, el("tr", null, el("th", null, ""), el("th", null, /^base/i.test(base.label) ? base.label : "base " + base.label), el("th", null, "this run"))),
      el("tbody", null, rows.map(function (r) {
        return el("tr", { "data-row": r[0] }, el("th", null, r[0]), el("td", { class: "side base", dir: "auto" }, r[1](ch.base)), el("td", { class: "side head", dir: "auto" }, r[1](ch.head)));
      })));
    var deltas = ch.deltas ? el("table", { class: "metrics deltas" },
      el("thead", null, el("tr", null, ["metric", "kind", "base", "this run", "change"].map(function (h) { return el("th", null, h); }))),
      el("tbody", null, ch.deltas.map(function (d) {
        return el("tr", { "data-metric": d.n }, el("td", null, d.n), el("td", null, d.k), el("td", null, num(d.b)), el("td", null, num(d.h)),
          el("td", { class: d.d < 0 ? "worse" : d.d > 0 ? "better" : null }, d.d === null || d.d === undefined ? "" : (d.d > 0 ? "+" : "") + num(d.d)));
      }))) : null;
    return el("div", { class: "part change-detail " + ch.k, "data-kind": ch.k },
      el("h3", null, "Compared with " + base.label + ": " + kindWord(ch.k, 1)), table, deltas);
  }
  function num(v) { return typeof v === "number" ? String(Math.round(v * 10000) / 10000) : v === null || v === undefined ? "—" : String(v); }
  function turnParts(c, e, t) {
    var parts = [];
    if (t.v === "failed") {
      // As engine/reports/view.py words it: errors, each failed tool assertion, the rest.
      var why = (t.errors || []).concat((t.tools || []).filter(function (x) { return x.reason; }).map(function (x) {
        return x.reason.indexOf("tool '") === 0 ? x.reason : "tool '" + x.tool + "': " + x.reason;
      }), t.why || []);
      parts.push(section("Why it failed", el("ul", { class: "why" }, why.map(function (w) { return el("li", { dir: "auto" }, w); }))));
    }
    parts.push(section("Input", text("input", t.input)));
    parts.push(el("div", { class: "part compare" },
      el("div", null, el("h3", null, "Response (actual)"), text("response", t.response === undefined ? "(no response)" : t.response)),
      el("div", null, el("h3", null, "Ground truth (expected)"), text("truth", t.truth === undefined ? "(none asserted)" : t.truth))));
    if (t.tools) parts.push(section("Expected tools", el("div", null, t.tools.map(function (x) { return expectation(x, t.calls || []); }))));
    if (t.calls) parts.push(section("Tool calls", el("ol", { start: 0, class: "calls" }, t.calls.map(callItem))));
    if (t.metrics) parts.push(section("Metrics, graders and judges", metricTable(t.metrics)));
    if (t.errors) parts.push(section("Errors", el("ul", null, t.errors.map(function (x) { return el("li", { dir: "auto" }, x); }))));
    if (e.sim) parts.push(section("Simulated user", el("p", { class: "meta" }, [
      e.sim.model + " · prompt " + e.sim.fingerprint,
      e.sim.failure ? "failed: " + e.sim.failure + (e.sim.detail ? " (" + e.sim.detail + ")" : "") : null,
      e.sim.diverged !== null && e.sim.diverged !== undefined ? "diverged from the recording at turn " + e.sim.diverged : null,
    ].filter(Boolean).join(" · "))));
    if (e.errors) parts.push(section("Case errors", el("ul", null, e.errors.map(function (x) { return el("li", { dir: "auto" }, x); }))));
    var facts = [t.ms !== undefined ? fmtMs(t.ms) : null, t.tokens ? t.tokens.toLocaleString("en-US") + " tokens" : null].filter(Boolean);
    if (facts.length) parts.push(el("p", { class: "meta" }, facts.join(" · ")));
    return parts;
  }
  function expectation(x, calls) {
    var which = x.call !== undefined ? x.call : x.closest;
    var status = x.ok === undefined ? "asserted" : x.ok ? "matched" : "not matched";
    var box = el("div", { class: "expect " + (x.ok === false ? "failed" : x.ok ? "passed" : ""), "data-tool": x.tool },
      el("div", { class: "expect-head" }, el("code", null, x.tool), " · " + status +
        (x.count ? " · " + matched(x) + " of " + x.count + " calls required" : "") +
        (x.call !== undefined ? " · call " + x.call : x.closest !== undefined ? " · closest call " + x.closest : "")));
    if (x.args) {
      var list = el("dl", { class: "args" });
      Object.keys(x.args).forEach(function (k) {
        var actual = which !== undefined && calls[which] && calls[which].a ? calls[which].a[k] : undefined;
        list.appendChild(el("dt", { class: k === x.arg ? "differs" : null }, k));
        list.appendChild(el("dd", { class: k === x.arg ? "differs" : null },
          el("span", { class: "label" }, "expected "), json(x.args[k]),
          which !== undefined ? [el("span", { class: "label" }, "actual "), actual === undefined ? el("em", null, "missing") : json(actual)] : null));
      });
      box.appendChild(list);
    }
    if (x.reason) box.appendChild(el("p", { class: "reason", dir: "auto" }, x.reason));
    return box;
  }
  function matched(x) { return x.matched !== undefined ? x.matched : x.ok ? (x.count || 1) : 0; }
  function callItem(call) {
    // Keys as data.py writes them: n name, a args, r result, e error, p why it could not run.
    return el("li", { class: call.e ? "call failed" : "call" },
      el("code", null, call.n), call.a ? json(call.a) : null,
      call.r !== undefined ? [el("span", { class: "label" }, "result "), json(call.r)] : null,
      call.p ? el("p", { class: "reason call-problem", dir: "auto" }, call.p) : null,
      call.e ? el("p", { class: "reason", dir: "auto" }, "error: " + call.e) : null);
  }
  function metricTable(metrics) {
    // Keys as data.py writes them: n name, k kind, s score, st status, th threshold, e error,
    // r reasoning, m model, d details.
    var body = el("tbody");
    metrics.forEach(function (m) {
      var status = m.st || "passed";
      body.appendChild(el("tr", { class: "metric " + status, "data-metric": m.n },
        el("td", null, m.n), el("td", null, m.k || "standard"), el("td", null, status),
        el("td", null, (typeof m.s === "number" ? String(Math.round(m.s * 10000) / 10000) : String(m.s)) + (m.th !== undefined ? " / " + m.th : "")),
        el("td", { dir: "auto" }, m.e ? "error: " + m.e : m.r || "", m.m ? " (" + m.m + ")" : "",
          m.d ? el("details", null, el("summary", null, "details"), json(m.d)) : null)));
    });
    return el("table", { class: "metrics" },
      el("thead", null, el("tr", null, ["metric", "kind", "status", "score / threshold", "reason"].map(function (h) { return el("th", null, h); }))), body);
  }

  // ------------------------------------------------------------ page
  document.title = "HoloDeck report · " + data.report.agent;
  function numericOrder(a, b) { return Number(a) - Number(b); }
  var charts = el("section", { id: "charts" },
    rateChart("chart-turns", "Pass rate by turn index", runs.map(byTurnIndex), "turn", numericOrder),
    kindChart(runs.map(byKind)),
    rateChart("chart-tools", "Tool assertions passed, per tool", runs.map(byTool), "tool"));
  app.replaceChildren();
  add(app, [summary(), multi ? legend() : null, charts, filters(), grid(), el("section", { id: "detail", hidden: true })]);
  if (rows.length) applyFilters();
  app.setAttribute("aria-busy", "false");
  document.body.setAttribute("data-ready", "true");
})();
