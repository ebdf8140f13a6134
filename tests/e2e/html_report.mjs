// The HTML run report in headless Debian Chromium (playwright-core), every network request
// refused: opens each page given, checks it, writes a JSON verdict. Used by
// test_html_report.py, which builds the pages and compares the numbers with the JSON reports.
//
//   node tests/e2e/html_report.mjs --page FILE [--page FILE …] --out RESULT.json
//        [--screenshots DIR] [--chromium /usr/bin/chromium] [--width 1280 --height 900]
//
// For each page: console errors, page errors, requests (any URL other than the page itself),
// the summary tiles, the charts' bars (data-* attributes and drawn text), the cells of the
// grid, the cells shown with "failed turns only" on, the detail of the first failed cell
// after a click, whether any injected script ran (window.__pwned, <img>, extra <script>),
// and the time from navigation to the page's data-ready mark. With several models or repeats:
// the per-model summary table and each bar's and cell's model; with a baseline: its summary
// line, the cells "regressions only" shows, and the comparison in the first one's detail.
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { openOffline } from "./offline_page.mjs";

const o = { pages: [], out: null, screenshots: null, chromium: "/usr/bin/chromium", width: 1280, height: 900 };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i], next = () => process.argv[++i];
  if (a === "--page") o.pages.push(path.resolve(next()));
  else if (a === "--out") o.out = path.resolve(next());
  else if (a === "--screenshots") o.screenshots = path.resolve(next());
  else if (a === "--chromium") o.chromium = next();
  else if (a === "--width") o.width = Number(next());
  else if (a === "--height") o.height = Number(next());
  else throw new Error(`unknown argument ${a}`);
}
if (!o.out || o.pages.length === 0) throw new Error("need --page FILE and --out FILE");
if (o.screenshots) fs.mkdirSync(o.screenshots, { recursive: true });

const browser = await chromium.launch({ executablePath: o.chromium, args: ["--no-sandbox"] });
const results = [];
try {
  for (const file of o.pages) {
    const context = await browser.newContext({ viewport: { width: o.width, height: o.height } });
    const page = await context.newPage();
    const r = { file, console: [], pageErrors: [], requests: [] };
    r.readyMs = await openOffline(context, page, file, r, { readyTimeout: 10000 });
    r.perfReadyMs = await page.evaluate(() => performance.now());
    // Interactive: a click on the first cell gets its detail drawn.
    const t1 = Date.now();
    const cells = await page.locator("button.cell").count();
    if (cells > 0) {
      await page.locator("button.cell").first().click();
      await page.waitForSelector("#detail .detail-body");
    }
    r.firstClickMs = Date.now() - t1;
    Object.assign(r, await page.evaluate(() => {
      const num = (id) => { const n = document.querySelector(`#${id} .num`); return n ? n.textContent : null; };
      const bars = (id) => Array.from(document.querySelectorAll(`#${id} g.bar`)).map((g) => ({
        label: g.dataset.label, model: Number(g.dataset.model), passed: Number(g.dataset.passed), total: Number(g.dataset.total), rate: Number(g.dataset.rate),
        text: Array.from(g.querySelectorAll("text")).map((t) => t.textContent),
      }));
      return {
        pwned: window.__pwned === undefined ? null : String(window.__pwned),
        imgs: document.querySelectorAll("img, iframe, object, embed").length,
        scripts: document.querySelectorAll("script").length,
        handlers: Array.from(document.querySelectorAll("*")).filter((e) => Array.from(e.attributes).some((a) => a.name.startsWith("on"))).length,
        title: document.title,
        summary: { casesPassed: num("sum-cases-passed"), casesFailed: num("sum-cases-failed"), turnsPassed: num("sum-turns-passed"),
          turnsFailed: num("sum-turns-failed"), turnsSkipped: num("sum-turns-skipped"), tokens: num("sum-tokens") },
        cost: (() => { const t = document.querySelector("#sum-cost"); return t ? { value: num("sum-cost"),
          title: t.getAttribute("title") } : null; })(),
        time: (() => { const t = document.querySelector("#sum-time"); return t ? { value: num("sum-time"),
          label: t.querySelector(".label").textContent, title: t.getAttribute("title") } : null; })(),
        turnChart: bars("chart-turns"), toolChart: bars("chart-tools"),
        kindChart: Array.from(document.querySelectorAll("#chart-kinds g.bar")).map((g) => ({ kind: g.dataset.kind, model: Number(g.dataset.model), count: Number(g.dataset.count), text: g.querySelector("text.value").textContent })),
        cells: Array.from(document.querySelectorAll("button.cell")).map((b) => ({ c: b.dataset.case, t: b.dataset.turn, v: b.dataset.verdict,
          m: b.dataset.model, passes: b.dataset.passes, runs: b.dataset.runs, flaky: b.dataset.flaky || null, change: b.dataset.change || null, text: b.textContent })),
        modelSummaries: Array.from(document.querySelectorAll("#model-summaries tbody tr")).map((tr) =>
          Object.fromEntries(Array.from(tr.children).map((td) => [td.dataset.field, td.textContent]))),
        legend: Array.from(document.querySelectorAll("#legend .series")).map((n) => n.textContent),
        baselineSummary: document.getElementById("baseline-summary") ? document.getElementById("baseline-summary").textContent : null,
        noCases: !!document.getElementById("no-cases"),
        responses: Array.from(document.querySelectorAll("#detail .text.response")).map((n) => n.textContent),
      };
    }));
    if (cells > 0) {
      await page.locator("#filter-failed").check();
      r.failedShown = await page.evaluate(() => Array.from(document.querySelectorAll("#grid tbody tr:not([hidden]) td:not(.filtered-out) button.cell"))
        .map((b) => ({ c: b.dataset.case, t: b.dataset.turn, v: b.dataset.verdict })));
      r.filterCount = await page.locator("#filter-count").textContent();
      const failed = page.locator("#grid tbody tr:not([hidden]) td:not(.filtered-out) button.cell");
      if (await failed.count() > 0) {
        await failed.first().click();
        r.detail = await page.evaluate(() => {
          const d = document.querySelector("#detail .detail-body");
          return { c: d.dataset.case, t: d.dataset.turn, heading: d.querySelector("h2").textContent,
            why: Array.from(d.querySelectorAll(".why li")).map((li) => li.textContent),
            differs: Array.from(d.querySelectorAll(".args dt.differs")).map((n) => n.textContent) };
        });
      }
      if (await page.locator("#filter-regressions").count() > 0) {
        await page.locator("#filter-failed").uncheck();
        await page.locator("#filter-regressions").check();
        r.regressionsShown = await page.evaluate(() => Array.from(document.querySelectorAll("#grid tbody tr:not([hidden]) td:not(.filtered-out) button.cell"))
          .map((b) => ({ c: b.dataset.case, t: b.dataset.turn, m: b.dataset.model })));
        const regressed = page.locator("#grid tbody tr:not([hidden]) td:not(.filtered-out) button.cell");
        if (await regressed.count() > 0) {
          await regressed.first().click();
          // As narrow as the editor's side panel: the base / this-run table must still fit,
          // its row names on one line each (they once wrapped a letter per line).
          const wide = page.viewportSize();
          await page.setViewportSize({ width: 560, height: wide.height });
          r.changeDetail = await page.evaluate(() => {
            const d = document.querySelector("#detail .change-detail");
            const sides = d && d.querySelector("table.sides");
            // Lines of a cell's text (its box is as tall as the row's tallest cell).
            const lines = (n) => { const range = document.createRange(); range.selectNodeContents(n); return new Set(Array.from(range.getClientRects()).map((b) => Math.round(b.top))).size; };
            return d && { kind: d.dataset.kind, heading: d.querySelector("h3").textContent,
              overflows: sides.getBoundingClientRect().right > d.getBoundingClientRect().right + 1,
              wrappedRowNames: Array.from(sides.querySelectorAll("tbody th")).filter((th) => lines(th) > 1).map((th) => th.textContent),
              base: Array.from(d.querySelectorAll("td.side.base")).map((n) => n.textContent),
              head: Array.from(d.querySelectorAll("td.side.head")).map((n) => n.textContent),
              deltas: Array.from(d.querySelectorAll(".deltas tbody tr")).map((tr) => Array.from(tr.children).map((n) => n.textContent)),
              repeats: Array.from(document.querySelectorAll("#detail .repeats .rep")).map((n) => n.textContent) };
          });
          await page.setViewportSize(wide);
        }
        if (o.screenshots) await page.screenshot({ path: path.join(o.screenshots, path.basename(file, ".html") + "-regressions.png"), fullPage: true });
      }
      r.pwnedAfter = await page.evaluate(() => (window.__pwned === undefined ? null : String(window.__pwned)));
    }
    if (o.screenshots) {
      await page.screenshot({ path: path.join(o.screenshots, path.basename(file, ".html") + ".png"), fullPage: true });
    }
    results.push(r);
    await context.close();
  }
} finally {
  await browser.close();
}
fs.writeFileSync(o.out, JSON.stringify(results, null, 2));
console.log(`checked ${results.length} page(s): ${o.out}`);
