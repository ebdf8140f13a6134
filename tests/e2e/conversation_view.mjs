// The run report's conversation view in headless Debian Chromium (playwright-core), every
// network request refused. Used by test_conversation_view_browser.py and
// bench/conversation_view.py.
//
//   node tests/e2e/conversation_view.mjs --page FILE --out RESULT.json [--beside VALUE]
//        [--chromium /usr/bin/chromium] [--screenshot FILE]
//   (several `--beside VALUE --out RESULT.json` pairs: each its own drive and result, in one
//   browser)
//
// Opens the page, clicks the first cell of case 0 (model 0), opens its whole conversation,
// then scrolls to the end until every turn is drawn, timing the opening, the scroll and the
// longest gap between two animation frames while scrolling (a stall shows as a long gap), and
// counting long tasks (over 50 ms). Reads back each drawn turn's verdict per side and its
// "differs" mark; with --beside, chooses that side ("m1": the second model, "base": the
// baseline run) and reads them again. Opens the first folded tool result.
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { openOffline } from "./offline_page.mjs";

const o = { page: null, outs: [], besides: [], chromium: "/usr/bin/chromium", screenshot: null };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i], next = () => process.argv[++i];
  if (a === "--page") o.page = path.resolve(next());
  else if (a === "--out") o.outs.push(path.resolve(next()));
  else if (a === "--beside") o.besides.push(next());
  else if (a === "--chromium") o.chromium = next();
  else if (a === "--screenshot") o.screenshot = path.resolve(next());
  else throw new Error(`unknown argument ${a}`);
}
if (!o.page || o.outs.length === 0) throw new Error("need --page FILE and --out FILE");
// One drive per --out: the i-th --beside (none: only the first side) with the i-th --out,
// each in a fresh browser context of one browser (a test asks for both sides at once).
if (o.besides.length > 1 && o.besides.length !== o.outs.length) throw new Error("give one --out per --beside");
const jobs = o.outs.map((out, i) => ({ out, beside: o.besides[i] ?? null }));

// Every wait below is bounded: a stuck browser (a busy CI machine) ends this script with the step
// it was at, on stderr, rather than the test's subprocess timeout with nothing to read.
const started = Date.now();
let at = "launching Chromium";
const say = (step) => { at = step; console.error(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${step}`); };
const WATCHDOG_MS = 200000;
setTimeout(() => { console.error(`stuck for ${WATCHDOG_MS / 1000} s at: ${at}`); process.exit(2); }, WATCHDOG_MS).unref();
const browser = await chromium.launch({ executablePath: o.chromium, args: ["--no-sandbox"], timeout: 60000 });
let failed = null;
try {
  for (const [i, job] of jobs.entries()) {
    const r = await drive(job.beside, i === 0 ? o.screenshot : null);
    fs.writeFileSync(job.out, JSON.stringify(r, null, 1));
    if (r.error) { failed = r; break; }
  }
} finally {
  await browser.close();
}
if (failed) { console.error(failed.error + "\n" + failed.pageErrors.join("\n") + failed.console.join("\n")); process.exit(1); }

async function drive(beside, screenshot) {
  const r = { console: [], pageErrors: [], requests: [] };
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(() => {
      window.__long = [];
      try {
        new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); })
          .observe({ entryTypes: ["longtask"] });
      } catch (e) { window.__long = null; }
    });
    context.setDefaultTimeout(30000);
    const page = await context.newPage();
    say(`drive ${beside ?? "(one side)"}: opening the page`);
    r.readyMs = await openOffline(context, page, o.page, r);
    await page.locator('button.cell[data-case="0"][data-model="0"]').first().click();
    await page.waitForSelector("#detail .detail-body");
    const t1 = Date.now();
    await page.locator("#detail button.conv-open").click();
    await page.waitForSelector("#detail .conversation");
    r.openMs = Date.now() - t1;
    r.total = Number(await page.locator(".conversation").getAttribute("data-turns"));
    r.drawnFirst = await page.locator(".conv-turn").count();
    say("scrolling to the end");
    r.scroll = await scrollToEnd(page, r.total);
    r.turns = await readTurns(page);
    r.differing = Number(await page.locator(".conversation").getAttribute("data-differing"));
    r.choices = await page.locator("select.conv-beside option").evaluateAll((os) => os.map((x) => x.value));
    if (beside) {
      say(`choosing ${beside} beside`);
      const t2 = Date.now();
      await page.locator("select.conv-beside").selectOption(beside);
      await page.waitForSelector('.conversation[data-sides="2"]');
      r.besideMs = Date.now() - t2;
      r.besideScroll = await scrollToEnd(page, r.total);
      r.besideTurns = await readTurns(page);
      r.besideDiffering = Number(await page.locator(".conversation").getAttribute("data-differing"));
      r.sideLabels = await page.locator(".conv-turn").first().locator(".conv-side").evaluateAll((s) => s.map((x) => x.dataset.side));
    }
    say("opening the first fold");
    const fold = page.locator("details.conv-fold").first();
    // Drawn in batches after the scroll: wait for the fold rather than skip it when late.
    if (await fold.waitFor({ state: "attached", timeout: 20000 }).then(() => true, () => false)) {
      await fold.locator("summary").click();
      // The opened fold's text is filled on the toggle event: wait for it, then measure it.
      const text = fold.locator(".conv-text");
      await text.evaluate((n) => new Promise((done) => {
        const filled = () => n.parentElement.open && n.textContent.length > 0;
        if (filled()) return done();
        const watch = new MutationObserver(() => { if (filled()) { watch.disconnect(); done(); } });
        watch.observe(n, { childList: true, characterData: true, subtree: true });
        setTimeout(() => { watch.disconnect(); done(); }, 10000);
      }));
      r.foldOpenedLength = await text.evaluate((n) => n.textContent.length);
    }
    say("reading the page back");
    r.longTasks = await page.evaluate(() => window.__long);
    r.pwned = await page.evaluate(() => (window.__pwned === undefined ? null : String(window.__pwned)));
    r.handlers = await page.evaluate(() => Array.from(document.querySelectorAll("*")).filter((e) => Array.from(e.attributes).some((a) => a.name.startsWith("on"))).length);
    await page.locator("#detail button.conv-back").click();
    r.backToTurn = await page.locator("#detail .detail-body").count();
    if (screenshot) await page.screenshot({ path: screenshot });
    await context.close();
  } catch (e) {
    r.error = String(e);
  }
  return r;
}

async function scrollToEnd(page, total) {
  // Scrolls by a screen at a time, as a reader flicking down would, until every turn is drawn
  // and the end is reached; frame gaps are measured in the page (requestAnimationFrame).
  return await page.evaluate(async (total) => {
    const frames = [];
    let last = performance.now(), running = true;
    const tick = (now) => { frames.push(now - last); last = now; if (running) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    const start = performance.now();
    // Two frames, or a quarter second when frames stall, so a paused renderer cannot hang it;
    // bounded at a minute (`drawn` then tells the test how far it got).
    const wait = () => new Promise((done) => {
      requestAnimationFrame(() => requestAnimationFrame(done));
      setTimeout(done, 250);
    });
    for (let step = 0; step < 5000 && performance.now() - start < 60000; step++) {
      window.scrollBy(0, window.innerHeight);
      await wait();
      const drawn = document.querySelectorAll(".conv-turn").length;
      const atEnd = window.innerHeight + window.scrollY >= document.body.scrollHeight - 2;
      if (drawn >= total && atEnd) break;
    }
    running = false;
    const ms = performance.now() - start;
    frames.shift();
    return { ms: Math.round(ms), frames: frames.length, longestFrameMs: Math.round(Math.max(0, ...frames)),
      drawn: document.querySelectorAll(".conv-turn").length };
  }, total);
}

async function readTurns(page) {
  return await page.locator(".conv-turn").evaluateAll((rows) => rows.map((li) => ({
    t: Number(li.dataset.turn),
    differs: li.dataset.differs || null,
    sides: Array.from(li.querySelectorAll(".conv-side")).map((s) => s.dataset.verdict || "absent"),
    calls: li.querySelector(".conv-side").querySelectorAll(".conv-call").length,
  })));
}
