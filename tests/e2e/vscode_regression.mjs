#!/usr/bin/env node
// Regression marks in a real VS Code (code-server): two runs of the sample stored by the CLI
// — the recording replayed as is, then a copy of it whose answer to one passing turn is wrong
// — and the editor, with no run of its own, marks that turn `⇣ regressed` in its lens title
// and in the Testing view, the case and the "Run all" lens count it, and the hover on the
// turn's `input:` says what changed. See README.md beside this file.
//
//   node tests/e2e/vscode_regression.mjs [--out PNG] [session.mjs options]
//
// --out PNG: where to copy the screenshot of the marked lens and the Testing view
// (tests/e2e/screenshots/regression.png in the repository). The turn made to regress is the
// first turn the recording gets right (replayVerdicts), not one this script assumes.
// Then "HoloDeck: Compare with Baseline" from the command palette: the Markdown preview it
// opens, read back from its webview, names the regressed case and turn and the base run (the
// stored run before the latest, from `holodeck-lsp runs --json`); the notification's "Open as
// page" opens the comparison page (a webview): its Content-Security-Policy meta, its summary
// naming the base, the regressed turn's cell marked, and no console error from either webview.
// Screenshots: 01-regressed-lens, 02-hover, 03-testing-view, 04-compare-preview,
// 05-compare-page (failure.png on a failure).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { copyOut, fail, goToLine, isMain, lensAbove, log, openFromExplorer, parseArgs, replayVerdicts, testingRows, timed, withSession } from "./session.mjs";

const RECORDING = "cassettes/oracle.json";
const BROKEN = "cassettes/oracle-broken.json";

/** The first frame, other than the workbench's own, for which `test(frame)` holds, waiting up
 * to `timeoutMs`. Webviews are iframes in iframes on another origin; playwright lists them all
 * in page.frames(). */
async function waitForFrame(page, test, what, timeoutMs = 30000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame !== page.mainFrame() && await test(frame).catch(() => false)) return frame;
    }
    if (Date.now() > end) fail(`${what} did not appear within ${timeoutMs / 1000} s`);
    await page.waitForTimeout(300);
  }
}
const bodyText = (frame) => frame.evaluate(() => (document.body ? document.body.innerText : ""));

/** The active text editor's cursor line from the status bar ("Ln 42, Col 7"), or null (no
 * text editor has focus). */
async function cursorLine(page) {
  const text = await page.locator("#status\\.editor\\.selection").first().textContent({ timeout: 1000 }).catch(() => null);
  const m = /Ln (\d+)/.exec(text ?? "");
  return m ? Number(m[1]) : null;
}

const CANARY = "holodeck-e2e console canary";
/** Log a canary error from `frame` and wait until the page's console listener (`errors`) has
 * it: without this, "no console error" could pass because a webview's messages never arrive. */
async function hearCanary(page, frame, errors, what) {
  const text = `${CANARY}: ${what}`;
  await frame.evaluate((t) => console.error(t), text);
  const end = Date.now() + 5000;
  while (!errors.some((e) => e.text === text) && Date.now() < end) await page.waitForTimeout(100);
  if (!errors.some((e) => e.text === text)) fail(`the console listener did not hear the ${what} webview's canary error`);
}

/** "HoloDeck: Compare with Baseline" (vscode-extension/src/compareView.ts): the Markdown
 * preview, then "Open as page". */
async function compareWithBaseline(page, { shot, runCommand, info, editor }) {
  const { name, turn } = info.target;
  // Console errors from here on, with the URL of the frame that logged them.
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push({ text: m.text(), url: m.location().url ?? "" }); });
  page.on("pageerror", (e) => errors.push({ text: String(e), url: "" }));

  await runCommand("View: Toggle Primary Side Bar Visibility"); // room for the preview and the page
  await editor.click({ position: { x: 400, y: 40 } }); // agent.yaml is the active editor
  await goToLine(page, 1); // away from the broken turn: the page's click must bring it back
  const preview = await timed("compare_preview", async () => {
    await runCommand("HoloDeck: Compare with Baseline");
    return waitForFrame(page, async (f) => /Run comparison/.test(await bodyText(f)), "the comparison's Markdown preview");
  });
  const previewText = await bodyText(preview);
  // The regressed turn's row of the Regressions table, e.g. "<case> turn 1 [openai:…] | …".
  const rows = await preview.evaluate(() => [...document.querySelectorAll("tr")].map((tr) => tr.innerText.replace(/\s+/g, " ").trim()));
  const headings = await preview.evaluate(() => [...document.querySelectorAll("h1,h2,h3")].map((h) => h.innerText.trim()));
  log(`compare preview headings: ${JSON.stringify(headings)}`);
  const regressed = rows.find((r) => r.startsWith(`${name} turn ${turn} `) && r.includes("passed → failed"));
  log(`compare preview row: ${JSON.stringify(regressed)}`);
  if (!headings.includes("Regressions (1)")) fail(`the preview has no "Regressions (1)" heading: ${JSON.stringify(headings)}`);
  if (regressed === undefined) fail(`the preview's tables have no row "${name} turn ${turn} … passed → failed": ${JSON.stringify(rows)}`);
  const baseLine = previewText.split("\n").find((l) => l.startsWith("Base:"));
  log(`compare preview base: ${JSON.stringify(baseLine)}`);
  if (baseLine === undefined || !baseLine.includes(info.base)) fail(`the preview's "Base:" line does not name the previous run ${info.base}: ${JSON.stringify(baseLine)}`);
  await hearCanary(page, preview, errors, "preview"); // before the page: a webview may reload when moved
  await shot("04-compare-preview");

  // The notification beside it: the count and the sides; its button opens the page.
  const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "turn regressed" }).first();
  await toast.waitFor({ timeout: 15000 }).catch(() => fail('no "1 turn regressed" notification beside the preview'));
  const said = (await toast.locator(".notification-list-item-message").textContent()).trim();
  log(`notification: ${JSON.stringify(said)}`);
  if (!said.startsWith("HoloDeck: 1 turn regressed") || !said.includes(info.base)) fail(`the notification says ${JSON.stringify(said)}, not 1 turn regressed against ${info.base}`);
  const comparison = await timed("compare_page", async () => {
    await toast.locator(".monaco-button", { hasText: "Open as page" }).click();
    return waitForFrame(page, async (f) => (await f.locator("#baseline-summary").count()) > 0, "the comparison page (its #baseline-summary)");
  });
  const frame = comparison;
  await frame.locator("body[data-ready=true]").waitFor({ timeout: 15000 }).catch(() => fail("the comparison page is not drawn (body[data-ready=true])"));
  const csp = await frame.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content").catch(() => null);
  log(`compare page CSP: ${JSON.stringify(csp)}`);
  if (csp === null || !/default-src 'none'/.test(csp)) fail(`the comparison page has no Content-Security-Policy meta with default-src 'none': ${JSON.stringify(csp)}`);
  const summary = (await frame.locator("#baseline-summary").textContent()).trim();
  log(`compare page summary: ${JSON.stringify(summary)}`);
  if (!summary.startsWith("1 regression, ") || !summary.includes(info.base)) fail(`the page's summary ${JSON.stringify(summary)} is not 1 regression vs ${info.base}`);
  const cells = await frame.locator('button.cell[data-change="regression"]').evaluateAll((els) => els.map((b) => b.getAttribute("aria-label")));
  log(`compare page regressed cells: ${JSON.stringify(cells)}`);
  if (cells.length !== 1 || !cells[0].startsWith(`${name} · turn ${turn}: failed`)) fail(`the page marks ${JSON.stringify(cells)} as regressed, not ${name} turn ${turn}`);
  const problem = await frame.locator(".problem:not(#baseline-summary)").count();
  if (problem) fail(`the comparison page shows a problem: ${await frame.locator(".problem:not(#baseline-summary)").first().textContent()}`);
  // A click on the regressed cell opens its detail: what changed against the base.
  const cell = frame.locator('button.cell[data-change="regression"]').first();
  await cell.scrollIntoViewIfNeeded();
  await cell.click();
  const detail = frame.locator("#detail .change-detail.regression h3");
  await detail.waitFor({ timeout: 10000 }).catch(() => fail("the regressed cell's detail has no 'Compared with …: regression' part"));
  const compared = (await detail.textContent()).trim();
  log(`compare page detail: ${JSON.stringify(compared)}`);
  if (compared !== `Compared with ${info.base}: regression`) fail(`the regressed cell's detail says ${JSON.stringify(compared)}`);
  const end = Date.now() + 15000;
  let line = await cursorLine(page);
  while (line !== info.target.line && Date.now() < end) {
    await page.waitForTimeout(200);
    line = await cursorLine(page);
  }
  log(`compare page click: cursor on agent.yaml:${line}`);
  if (line !== info.target.line) fail(`after the click on the regressed cell the cursor is on line ${line}, not the broken turn's line ${info.target.line}`);
  await detail.scrollIntoViewIfNeeded();
  await shot("05-compare-page");

  // No console error since the command (a CSP violation is one); the canaries prove the
  // listener hears both webviews.
  await hearCanary(page, frame, errors, "page");
  const logged = errors.filter((e) => !e.text.startsWith(CANARY));
  log(`console errors since the command: ${JSON.stringify(logged)} (both canaries heard)`);
  if (logged.length) fail(`console errors while the comparison was shown: ${JSON.stringify(logged)}`);
}

/** The scenario, run alone (below) or by vscode_host.mjs on its shared host. */
export async function main(argv = process.argv.slice(2)) {
  const o = parseArgs(argv, import.meta.url);
  await withSession(o, {
    prefix: "holodeck-e2e-regression-",
    prepare: (workspace) => {
      // Stored run 1: the recording (replayVerdicts runs `holodeck-lsp run`, which stores it).
      const verdicts = replayVerdicts(o.serverPath, workspace, RECORDING);
      const target = verdicts.flatMap((c) => c.turns.map((t, k) => ({ c, k, t }))).find((x) => x.t.passed);
      if (target === undefined) throw new Error(`${RECORDING}: no passing turn to break`);
      const cassette = JSON.parse(fs.readFileSync(path.join(workspace, RECORDING), "utf8"));
      const recorded = cassette.cases.find((c) => c.name === target.c.name) ?? cassette.cases[target.c.index];
      recorded.turns[target.k].response = "I cannot tell.";
      fs.writeFileSync(path.join(workspace, BROKEN), JSON.stringify(cassette, null, 2));
      // Stored run 2: the broken copy — the latest run, compared with the one before.
      const r = spawnSync(o.serverPath, ["run", path.join(workspace, "agent.yaml"), "--replay", path.join(workspace, BROKEN), "--quiet"], { encoding: "utf8" });
      if (r.status !== 0 && r.status !== 1) throw new Error(`holodeck-lsp run --replay ${BROKEN} failed (exit ${r.status}): ${r.stdout}${r.stderr}`);
      const lines = fs.readFileSync(path.join(workspace, "agent.yaml"), "utf8").split("\n");
      // The stored runs, oldest first: the comparison's base is the one before the latest.
      const listed = spawnSync(o.serverPath, ["runs", "--json", path.join(workspace, "agent.yaml")], { cwd: workspace, encoding: "utf8" });
      if (listed.status !== 0) throw new Error(`holodeck-lsp runs --json failed (exit ${listed.status}): ${listed.stdout}${listed.stderr}`);
      const parsed = JSON.parse(listed.stdout);
      const ids = (Array.isArray(parsed) ? parsed : parsed.runs).map((r) => r.id);
      if (ids.length !== 2) throw new Error(`expected 2 stored runs, holodeck-lsp runs lists ${JSON.stringify(ids)}`);
      return { suiteLine: lines.indexOf("test_cases:") + 1, base: ids[0], head: ids[1], target: { name: target.c.name, turn: target.k, line: target.t.line, turns: target.c.turns.length } };
    },
    settings: {
      "holodeck.cassettePath": RECORDING,
      "testing.automaticallyOpenPeekView": "never",
      "testing.openTesting": "neverOpen",
    },
  }, async ({ page, shot, runCommand, prepared: info }) => {
    log(`broken: ${info.target.name} turn ${info.target.turn} (agent.yaml:${info.target.line})`);
    await timed("open_agent_yaml", async () => openFromExplorer(page, "agent.yaml", "financial-assistant"));
    const editor = page.locator(".editor-instance .monaco-editor").first();
    await editor.click({ position: { x: 400, y: 40 } });

    // The "Run all" lens counts the regression against the previous stored run.
    await goToLine(page, info.suiteLine);
    const all = await timed("run_all_lens", async () => lensAbove(editor, info.suiteLine, "⇣ 1 regressed vs", 60000));
    log(`Run all lens: "${await all.textContent()}"`);

    // The broken turn's own lens.
    await goToLine(page, info.target.line);
    const lens = await timed("turn_lens", async () => lensAbove(editor, info.target.line, "⇣ regressed", 30000));
    const title = await lens.textContent();
    log(`turn lens: "${title}"`);
    if (!title.includes(`Run turn ${info.target.turn}`)) fail(`the regressed lens above line ${info.target.line} is "${title}", not turn ${info.target.turn}'s`);
    await shot("01-regressed-lens");

    // The hover on the turn's `input:` says what changed.
    await timed("hover", async () => {
      // The cursor on the turn's `input:` value, then "Show or Focus Hover" (Ctrl+K Ctrl+I).
      await goToLine(page, info.target.line, 14);
      let shown = "";
      const end = Date.now() + 20000;
      while (!shown.includes("Regressed") && Date.now() < end) {
        await page.keyboard.press("Control+k");
        await page.keyboard.press("Control+i");
        await page.locator(".monaco-hover-content").first().waitFor({ timeout: 5000 }).catch(() => {});
        shown = (await page.locator(".monaco-hover-content").allTextContents()).join("\n");
      }
      log(`hover: ${JSON.stringify(shown.slice(0, 300))}`);
      if (!shown.includes("Regressed") || !shown.includes("passed") || !shown.includes("failed")) fail(`the hover on line ${info.target.line} does not say what regressed: ${JSON.stringify(shown.slice(0, 300))}`);
    });
    await shot("02-hover");
    await page.keyboard.press("Escape");

    // The Testing view: the turn (and its case) described as regressed.
    await timed("testing_view", async () => {
      await runCommand("View: Show Testing");
      await page.locator(".test-explorer").waitFor({ timeout: 30000 });
      const end = Date.now() + 60000;
      let rows = await testingRows(page);
      while (!rows.some((r) => (r.text ?? "").includes("⇣")) && Date.now() < end) {
        // Expand the tree: file, then the cases (the marks are descriptions of their rows).
        const collapsed = page.locator(".test-explorer .monaco-list-row[aria-expanded=false]");
        if (await collapsed.count()) await collapsed.first().click();
        await page.waitForTimeout(300);
        rows = await testingRows(page);
      }
      const marked = rows.filter((r) => (r.text ?? "").includes("⇣")).map((r) => r.text);
      log(`testing view marks: ${JSON.stringify(marked)}`);
      if (marked.length === 0) fail("no Testing view row says ⇣ regressed");
      // Open the marked case: its regressed turn says so too.
      const caseRow = page.locator(".test-explorer .monaco-list-row[aria-expanded=false]", { hasText: info.target.name }).first();
      if (await caseRow.count()) await caseRow.click();
      const turnEnd = Date.now() + 15000;
      let turn;
      do {
        await page.waitForTimeout(300);
        turn = (await testingRows(page)).find((r) => new RegExp(`^turn ${info.target.turn}: .*⇣ regressed`).test(r.text ?? ""));
      } while (turn === undefined && Date.now() < turnEnd);
      if (turn === undefined) fail(`the Testing view's row of turn ${info.target.turn} is not described as ⇣ regressed`);
      log(`testing view turn: ${JSON.stringify(turn.text)}`);
      // Widen the side bar (drag its edge) so the screenshot shows the descriptions whole.
      const bar = await page.locator(".part.sidebar").boundingBox();
      if (bar) {
        await page.mouse.move(bar.x + bar.width - 1, bar.y + bar.height / 2);
        await page.mouse.down();
        await page.mouse.move(bar.x + bar.width + 260, bar.y + bar.height / 2, { steps: 8 });
        await page.mouse.up();
        await page.waitForTimeout(300);
      }
    });
    copyOut(o, await shot("03-testing-view"));
    log("PASS: regression marks -> lens titles, hover and the Testing view");

    await compareWithBaseline(page, { shot, runCommand, info, editor });
    log("PASS: Compare with Baseline -> Markdown preview and page name the regressed turn and the base");
  });
}

if (isMain(import.meta.url)) main().catch((e) => { console.error(`[e2e] FAILED: ${e.stack ?? e}`); process.exitCode = 1; });
