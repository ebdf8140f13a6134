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
// Screenshots: 01-regressed-lens, 02-hover, 03-testing-view (failure.png on a failure).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { copyOut, fail, goToLine, lensAbove, log, openFromExplorer, parseArgs, replayVerdicts, testingRows, timed, withSession } from "./session.mjs";

const RECORDING = "cassettes/oracle.json";
const BROKEN = "cassettes/oracle-broken.json";

async function main() {
  const o = parseArgs(process.argv.slice(2), import.meta.url);
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
      return { suiteLine: lines.indexOf("test_cases:") + 1, target: { name: target.c.name, turn: target.k, line: target.t.line, turns: target.c.turns.length } };
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
  });
}

main().catch((e) => { console.error(`[e2e] FAILED: ${e.stack ?? e}`); process.exitCode = 1; });
