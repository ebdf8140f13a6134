// The HoloDeck run report page: draws the summary, charts (inline SVG, no library), the
// case x turn grid, filters and the turn detail from the JSON block #report-data.
// Every piece of report text goes into the page through textContent / createTextNode, never
// as markup: a response holding a script element shows as text. See docs/reports.md.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var PAGE_FORMAT = 1;
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
  // Defaults data.py leaves out to keep the page small: a turn passed, an assertion held.
  data.runs.forEach(function (r) {
    r.cases.forEach(function (c) {
      c.turns.forEach(function (t) {
        t.v = t.v || "passed";
        (t.tools || []).forEach(function (x) { x.ok = x.unchecked ? undefined : x.ok !== false; });
      });
    });
  });
  var run = data.runs[0];
  var state = { failedOnly: false, tool: "", kind: "", text: "", selected: null };

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
  function fmtMs(ms) { return ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(2) + " s"; }
  function turnLabel(turn) { return turn.t === undefined ? "case" : "turn " + turn.t; }
  function eachTurn(fn) {
    run.cases.forEach(function (c) { c.turns.forEach(function (t) { fn(c, t); }); });
  }

  // ------------------------------------------------------------ numbers
  function byTurnIndex() {
    var rows = {};
    eachTurn(function (c, t) {
      if (t.v === "skipped") return;
      var key = t.t === undefined ? 0 : t.t;
      rows[key] = rows[key] || { passed: 0, total: 0 };
      rows[key].total++;
      if (t.v === "passed") rows[key].passed++;
    });
    return Object.keys(rows).map(Number).sort(function (a, b) { return a - b; })
      .map(function (k) { return { label: String(k), passed: rows[k].passed, total: rows[k].total }; });
  }
  function byKind() {
    var counts = {};
    eachTurn(function (c, t) { (t.kinds || []).forEach(function (k) { counts[k] = (counts[k] || 0) + 1; }); });
    return Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a] || (a < b ? -1 : 1); })
      .map(function (k) { return { label: k, count: counts[k] }; });
  }
  function byTool() {
    var rows = {};
    eachTurn(function (c, t) {
      (t.tools || []).forEach(function (x) {
        if (x.ok === undefined) return;
        rows[x.tool] = rows[x.tool] || { passed: 0, total: 0 };
        rows[x.tool].total++;
        if (x.ok) rows[x.tool].passed++;
      });
    });
    return Object.keys(rows).sort().map(function (k) { return { label: k, passed: rows[k].passed, total: rows[k].total }; });
  }

  // ------------------------------------------------------------ charts (inline SVG)
  function rateChart(id, title, rows, what) {
    var w = 44, gap = 14, h = 120, top = 18, width = Math.max(200, rows.length * (w + gap) + gap);
    var chart = svg("svg", { viewBox: "0 0 " + width + " " + (h + top + 34), width: width, height: h + top + 34, role: "img", "aria-label": title });
    rows.forEach(function (r, i) {
      var rate = pct(r.passed, r.total), x = gap + i * (w + gap), bh = Math.round((h * rate) / 100);
      chart.appendChild(svg("g", { class: "bar", "data-label": r.label, "data-passed": r.passed, "data-total": r.total, "data-rate": rate },
        svg("rect", { class: "track", x: x, y: top, width: w, height: h }),
        svg("rect", { class: "fill", x: x, y: top + h - bh, width: w, height: bh }),
        svg("text", { x: x + w / 2, y: top - 5, "text-anchor": "middle", class: "value" }, rate + "%"),
        svg("text", { x: x + w / 2, y: top + h + 14, "text-anchor": "middle" }, r.label),
        svg("text", { x: x + w / 2, y: top + h + 28, "text-anchor": "middle", class: "sub" }, r.passed + "/" + r.total),
        svg("title", null, what + " " + r.label + ": " + r.passed + " of " + r.total + " passed (" + rate + "%)")));
    });
    return figure(id, title, rows.length ? chart : el("p", { class: "empty" }, "nothing to show"));
  }
  function kindChart(rows) {
    var max = rows.reduce(function (m, r) { return Math.max(m, r.count); }, 0), bar = 18, labelW = 210, barW = 240;
    var chart = svg("svg", { viewBox: "0 0 " + (labelW + barW + 50) + " " + (rows.length * (bar + 6) + 6), width: labelW + barW + 50, height: rows.length * (bar + 6) + 6, role: "img", "aria-label": "failures by kind" });
    rows.forEach(function (r, i) {
      var y = 6 + i * (bar + 6), bw = max ? Math.max(2, Math.round((barW * r.count) / max)) : 0;
      chart.appendChild(svg("g", { class: "bar kind", "data-kind": r.label, "data-count": r.count },
        svg("text", { x: labelW - 6, y: y + bar - 5, "text-anchor": "end" }, r.label),
        svg("rect", { class: "fill failed", x: labelW, y: y, width: bw, height: bar }),
        svg("text", { x: labelW + bw + 6, y: y + bar - 5, class: "value" }, String(r.count)),
        svg("title", null, r.label + ": " + r.count + " failed turns")));
    });
    return figure("chart-kinds", "Failed turns by kind", rows.length ? chart : el("p", { class: "empty" }, "no failed turns"));
  }
  function figure(id, title, body) {
    return el("figure", { id: id, class: "chart" }, el("figcaption", null, title), body);
  }

  // ------------------------------------------------------------ summary
  function summary() {
    var s = run.summary, env = data.report.environment || {};
    var failedTurns = s.turns - s.turns_passed - s.turns_skipped;
    function tile(id, label, value, cls) {
      return el("div", { class: "tile " + (cls || ""), id: id }, el("span", { class: "num" }, String(value)), el("span", { class: "label" }, label));
    }
    var models = [run.model ? "agent " + run.model : null].concat(run.judge_models.map(function (m) { return "judge " + m; })).filter(Boolean);
    return el("section", { id: "summary" },
      el("h1", { dir: "auto" }, data.report.agent),
      el("p", { class: "meta", dir: "auto" },
        data.report.path + " · " + data.report.timestamp + " · " + data.report.version +
        (env.mode ? " · " + env.mode : "") + (env.backend ? " (" + env.backend + ")" : "") + (s.cancelled ? " · cancelled" : "")),
      el("div", { class: "tiles" },
        tile("sum-cases-passed", "cases passed", s.passed, "passed"),
        tile("sum-cases-failed", "cases failed", s.failed, s.failed ? "failed" : ""),
        tile("sum-turns-passed", "turns passed", s.turns_passed, "passed"),
        tile("sum-turns-failed", "turns failed", failedTurns, failedTurns ? "failed" : ""),
        tile("sum-turns-skipped", "turns skipped", s.turns_skipped, ""),
        tile("sum-tokens", "tokens", s.tokens.toLocaleString("en-US"), ""),
        tile("sum-time", "time", fmtMs(s.duration_ms), "")),
      models.length ? el("p", { class: "meta", id: "models" }, "Models: " + models.join(", ")) : null);
  }

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
    var failed = el("input", { type: "checkbox", id: "filter-failed" });
    failed.addEventListener("change", function () { state.failedOnly = failed.checked; applyFilters(); });
    var search = el("input", { type: "search", id: "filter-text", placeholder: "search input, response, tools…" });
    search.addEventListener("input", function () { state.text = search.value.toLowerCase(); applyFilters(); });
    return el("section", { id: "filters" },
      el("label", null, failed, " failed turns only"),
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
  function matches(c, t) {
    if (state.failedOnly && t.v !== "failed") return false;
    if (state.kind && (t.kinds || []).indexOf(state.kind) < 0) return false;
    if (state.tool && !(t.tools || []).some(function (x) { return x.tool === state.tool; }) &&
        !(t.calls || []).some(function (x) { return x.n.indexOf(state.tool) >= 0; })) return false;
    if (state.text && searchable(c, t).indexOf(state.text) < 0) return false;
    return true;
  }
  function applyFilters() {
    var shown = 0, total = 0;
    rows.forEach(function (row) {
      var any = false;
      row.cells.forEach(function (cell) {
        var on = matches(row.c, cell.t);
        cell.node.classList.toggle("filtered-out", !on);
        if (on) { any = true; shown++; }
        total++;
      });
      row.node.hidden = !any;
    });
    document.getElementById("filter-count").textContent = shown + " of " + total + " turns shown";
  }

  // ------------------------------------------------------------ grid
  var rows = [];
  function grid() {
    var widest = run.cases.reduce(function (m, c) { return Math.max(m, c.turns.length); }, 0);
    var head = el("tr", null, el("th", { scope: "col" }, "case"));
    for (var i = 0; i < widest; i++) head.appendChild(el("th", { scope: "col" }, String(i)));
    var body = el("tbody");
    run.cases.forEach(function (c) {
      var tr = el("tr", { class: c.passed ? "case passed" : "case failed", "data-case": c.i },
        el("th", { scope: "row", dir: "auto", title: c.name }, c.name));
      var row = { c: c, node: tr, cells: [] };
      c.turns.forEach(function (t) {
        var btn = el("button", { type: "button", class: "cell " + t.v, "data-case": c.i, "data-turn": t.t === undefined ? "" : t.t, "data-verdict": t.v,
          title: c.name + " · " + turnLabel(t) + ": " + t.v + (t.kinds ? " (" + t.kinds.join(", ") + ")" : ""),
          "aria-label": c.name + " " + turnLabel(t) + " " + t.v }, t.v === "passed" ? "✓" : t.v === "failed" ? "✗" : "–");
        btn.addEventListener("click", function () { select(c, t, btn); });
        var td = el("td", null, btn);
        tr.appendChild(td);
        row.cells.push({ t: t, node: td });
      });
      body.appendChild(tr);
      rows.push(row);
    });
    var table = el("table", { id: "grid" }, el("thead", null, head), body);
    return el("section", { id: "grid-section" }, el("h2", null, "Cases × turns"),
      run.cases.length ? table : el("p", { class: "empty", id: "no-cases" }, "This report has no test cases."));
  }

  // ------------------------------------------------------------ turn detail
  function select(c, t, btn) {
    if (state.selected) state.selected.classList.remove("selected");
    state.selected = btn;
    btn.classList.add("selected");
    var panel = document.getElementById("detail");
    panel.replaceChildren(detail(c, t));
    panel.hidden = false;
    // The editor finds the case / turn in the agent file itself (its test tree knows where).
    if (vscode) vscode.postMessage({ type: "reveal", case: c.i, turn: t.t === undefined ? null : t.t, loc: t.loc || c.loc || null });
  }
  function section(title, body) { return el("div", { class: "part" }, el("h3", null, title), body); }
  function detail(c, t) {
    var parts = [el("h2", { dir: "auto" }, c.name + " · " + turnLabel(t) + " · ", el("span", { class: "verdict " + t.v }, t.v))];
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
    if (t.errors) parts.push(section("Errors", el("ul", null, t.errors.map(function (e) { return el("li", { dir: "auto" }, e); }))));
    if (c.errors) parts.push(section("Case errors", el("ul", null, c.errors.map(function (e) { return el("li", { dir: "auto" }, e); }))));
    var facts = [t.ms !== undefined ? fmtMs(t.ms) : null, t.tokens ? t.tokens.toLocaleString("en-US") + " tokens" : null].filter(Boolean);
    if (facts.length) parts.push(el("p", { class: "meta" }, facts.join(" · ")));
    return el("div", { class: "detail-body", "data-case": c.i, "data-turn": t.t === undefined ? "" : t.t }, parts);
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
    // Keys as data.py writes them: n name, a args, r result, e error.
    return el("li", { class: call.e ? "call failed" : "call" },
      el("code", null, call.n), call.a ? json(call.a) : null,
      call.r !== undefined ? [el("span", { class: "label" }, "result "), json(call.r)] : null,
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
  var charts = el("section", { id: "charts" },
    rateChart("chart-turns", "Pass rate by turn index", byTurnIndex(), "turn"),
    kindChart(byKind()),
    rateChart("chart-tools", "Tool assertions passed, per tool", byTool(), "tool"));
  app.replaceChildren(summary(), charts, filters(), grid(), el("section", { id: "detail", hidden: true }));
  if (rows.length) applyFilters();
  app.setAttribute("aria-busy", "false");
  document.body.setAttribute("data-ready", "true");
})();
