#!/usr/bin/env node
// "HoloDeck: Open Run Report" in a real VS Code (code-server): run the sample's suite from the
// editor (the server's "▶ Run all" lens; the run replays cassettes/oracle.json), open the run's
// HTML report in the extension's webview, check the page's summary against the run, then click
// a failed turn's cell in the page: the editor must reveal that turn's line in agent.yaml.
// See README.md beside this file.
//
//   node tests/e2e/vscode_report.mjs [--out PNG] [session.mjs options: --vsix, --build,
//        --code-server, --server-path, --chromium, --width, --height, --keep, --timeout-ms,
//        --artifacts]
//
// --out PNG: where to copy the last screenshot (the webview beside the revealed turn;
// tests/e2e/screenshots/run-report.png in the repository). Which turn is clicked and the numbers the summary must show come from
// replaying the recording with `holodeck-lsp run` first (replayVerdicts), not from this script.
// Screenshots: 01-run-all, 02-report-webview, 03-turn-revealed (failure.png on a failure).
import { copyOut, fail, goToLine, isMain, lensAbove, log, openFromExplorer, parseArgs, replayVerdicts, timed, withSession } from "./session.mjs";
import fs from "node:fs";
import path from "node:path";

const RECORDING = "cassettes/oracle.json";

/** The webview's page: VS Code draws a webview as an iframe holding the page's iframe. */
function reportFrame(page) {
  return page.frameLocator("iframe.webview").frameLocator("iframe#active-frame");
}

/** Run the command palette entry labelled exactly `label`: session.mjs's runCommand takes
 * the first row, and "Open Run Report" also fuzzy-matches "Open Last Run Report". */
async function runExactCommand(page, label) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor();
  await input.fill(`>${label}`);
  const exact = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
  const row = page.locator(".quick-input-widget .monaco-list-row")
    .filter({ has: page.locator(".label-name", { hasText: exact }) }).first();
  await row.waitFor();
  await row.click();
}

/** The active editor's cursor line from the status bar ("Ln 42, Col 7"), or null. */
async function cursorLine(page) {
  // Absent while no text editor has focus (the webview has it): short timeout.
  const text = await page.locator("#status\\.editor\\.selection").first().textContent({ timeout: 1000 }).catch(() => null);
  const m = /Ln (\d+)/.exec(text ?? "");
  return m ? Number(m[1]) : null;
}

/** The scenario, run alone (below) or by vscode_host.mjs on its shared host. */
export async function main(argv = process.argv.slice(2)) {
  const o = parseArgs(argv, import.meta.url);
  await withSession(o, {
    prefix: "holodeck-e2e-report-",
    prepare: (workspace) => {
      const verdicts = replayVerdicts(o.serverPath, workspace, RECORDING);
      const failing = verdicts.flatMap((c) => c.turns.map((t, k) => ({ c, k, t }))).filter((x) => !x.t.passed);
      if (failing.length === 0) throw new Error(`${RECORDING}: no failing turn to click`);
      // The last failing turn: far from the top of the file, so the reveal has to move the editor.
      const target = failing[failing.length - 1];
      const lines = fs.readFileSync(path.join(workspace, "agent.yaml"), "utf8").split("\n");
      return {
        suiteLine: lines.indexOf("test_cases:") + 1,
        casesPassed: verdicts.filter((c) => c.turns.every((t) => t.passed)).length,
        casesFailed: verdicts.filter((c) => !c.turns.every((t) => t.passed)).length,
        turnsFailed: failing.length,
        target: { index: target.c.index, name: target.c.name, turn: target.k, line: target.t.line },
      };
    },
    settings: {
      "holodeck.cassettePath": RECORDING,
      "testing.automaticallyOpenPeekView": "never",
      "testing.openTesting": "neverOpen",
    },
  }, async ({ page, shot, runCommand, prepared: info }) => {
    log(`expected: ${info.casesPassed} cases passed, ${info.casesFailed} failed, ${info.turnsFailed} turns failed; click ${info.target.name} turn ${info.target.turn} (agent.yaml:${info.target.line})`);
    await timed("open_agent_yaml", async () => openFromExplorer(page, "agent.yaml", "financial-assistant"));
    const editor = page.locator(".editor-instance .monaco-editor").first();
    await runCommand("View: Toggle Primary Side Bar Visibility"); // room for the editor and the webview
    await editor.click({ position: { x: 400, y: 40 } });
    await goToLine(page, info.suiteLine);

    // Run the suite from the editor: the server's "▶ Run all" lens above `test_cases:`.
    await timed("run_all", async () => {
      const lens = await lensAbove(editor, info.suiteLine, "Run all", 60000);
      await lens.click();
      await editor.locator(".codelens-decoration a", { hasText: /Run all \(\d+\/\d+ cases\)|✓ Run all/ }).first().waitFor({ timeout: 120000 })
        .catch(() => fail("the 'Run all' lens did not report the finished run within 120 s"));
    });
    const lensText = await editor.locator(".codelens-decoration a", { hasText: /Run all/ }).first().textContent();
    log(`run finished: lens "${lensText}"`);
    if (!lensText.includes(`${info.casesPassed}/${info.casesPassed + info.casesFailed} cases`)) {
      fail(`the Run all lens says "${lensText}", the replay ${info.casesPassed}/${info.casesPassed + info.casesFailed} cases`);
    }
    await shot("01-run-all");

    // The report in the webview.
    const frame = reportFrame(page);
    await timed("open_run_report", async () => {
      await runExactCommand(page, "HoloDeck: Open Run Report");
      await frame.locator("body[data-ready=true]").waitFor({ timeout: 30000 })
        .catch(() => fail("the run report webview did not show a drawn page (body[data-ready=true]) within 30 s"));
    });
    const tile = async (id) => (await frame.locator(`#${id} .num`).textContent()).trim();
    const shown = { passed: await tile("sum-cases-passed"), failed: await tile("sum-cases-failed"), turnsFailed: await tile("sum-turns-failed") };
    log(`webview summary: ${JSON.stringify(shown)}`);
    if (shown.passed !== String(info.casesPassed) || shown.failed !== String(info.casesFailed) || shown.turnsFailed !== String(info.turnsFailed)) {
      fail(`the webview's summary ${JSON.stringify(shown)} is not the run's (${info.casesPassed} passed, ${info.casesFailed} failed, ${info.turnsFailed} turns failed)`);
    }
    const problem = await frame.locator(".problem").count();
    if (problem) fail(`the page shows a problem: ${await frame.locator(".problem").first().textContent()}`);
    await shot("02-report-webview");

    // A click on the target turn's cell reveals that turn's line in agent.yaml.
    // The editor's cursor somewhere else first (line 1), then back to the webview's cell.
    await editor.click({ position: { x: 400, y: 40 } });
    await goToLine(page, 1);
    const before = await cursorLine(page);
    if (before !== 1) fail(`could not put the editor's cursor on line 1 before the click (status bar: ${before})`);
    const cell = frame.locator(`button.cell[data-case="${info.target.index}"][data-turn="${info.target.turn}"]`);
    await cell.scrollIntoViewIfNeeded();
    await timed("reveal_turn", async () => {
      await cell.click();
      await frame.locator(`#detail .detail-body[data-case="${info.target.index}"]`).waitFor({ timeout: 10000 })
        .catch(() => fail("the clicked cell's detail did not open in the webview"));
      const end = Date.now() + 15000;
      let line = before;
      while (line !== info.target.line && Date.now() < end) {
        await page.waitForTimeout(200);
        line = await cursorLine(page);
      }
      if (line !== info.target.line) fail(`after the click the cursor is on line ${line} (was ${before}), not ${info.target.name} turn ${info.target.turn}'s line ${info.target.line}`);
    });
    log(`revealed: cursor on agent.yaml:${info.target.line} (was ${before})`);
    copyOut(o, await shot("03-turn-revealed"));
    log("PASS: run report webview -> summary shown, click on a turn reveals its line");
  });
}

if (isMain(import.meta.url)) main().catch((e) => { console.error(`[e2e] FAILED: ${e.stack ?? e}`); process.exitCode = 1; });
