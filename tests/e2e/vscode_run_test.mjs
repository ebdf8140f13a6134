#!/usr/bin/env node
// Run a test case from the HoloDeck extension's Testing integration in a real VS Code
// (code-server) and check that the results come back: the gutter Run glyph, the Testing
// view, the failure peek and the server's inlay hints. No model is called: the runs replay a
// cassette written into the scratch copy of the sample. See README.md beside this file.
//
//   node tests/e2e/vscode_run_test.mjs [--vsix PATH] [--out PNG] [--keep] [--build] [--case N]
//
// Options: session.mjs's (--vsix, --build, --code-server, --server-path, --chromium, --width,
// --height, --keep, --timeout-ms, --artifacts) and
//   --out PNG     where to copy the failure-peek screenshot; the repo's copy is made with
//                 --out tests/e2e/screenshots/run-test.png
//   --case N      which test case (0-based) to run first; default: the first case of 2+ turns
//                 the recording answers all right. Its turn 1 is answered wrong.
//
// Steps: copy sample/financial-assistant; write e2e.cassette.json there: the sample's recorded
// run (cassettes/oracle.json) with turn 1 of case N answered "99.99" (which cases the recording
// got all right comes from replaying it with holodeck-lsp run); settings holodeck.server.path,
// holodeck.cassettePath = "e2e.cassette.json"; open agent.yaml; wait for the Testing gutter
// glyphs (discovery) and the "Run case" code lens; click the gutter Run glyph on the case's
// line; assert: the glyphs turn failed (case + turn 1) and passed (the other turns), the
// server's ✓/✗ inlay hints are in the editor, the Problems panel has the failed turn, the
// failure peek shows the diff (Test: Peek Output on the failed turn), and the Testing view
// lists the case and turn 1 as failed, the other turns as passed. Then two more ways to run:
// the Run button of another all-right case's row in the Testing view -> that row passed;
// Test: Run Test at Cursor on the last case's first turn -> a passed glyph on that line.
// Screenshots go to <scratch>/screenshots/; any failed assertion exits 1 with
// "ASSERTION FAILED: ..." and a failure.png, keeping the scratch folder.
import fs from "node:fs";
import path from "node:path";
import { copyOut, fail, goToLine, isMain, log, openFromExplorer, parseArgs, replayVerdicts, testingRows, timed, turnRow, withSession } from "./session.mjs";

const RECORDING = "cassettes/oracle.json";
const CASSETTE = "e2e.cassette.json";
const WRONG = "99.99";


// The cassette: the sample's recorded run (cassettes/oracle.json), with turn 1 of a case the
// recording got all right answered WRONG instead. Which cases those are comes from replaying
// the recording (replayVerdicts), not from this script.
function writeCassette(workspace, caseIndex, serverPath) {
  const verdicts = replayVerdicts(serverPath, workspace, RECORDING);
  const allRight = verdicts.filter((c) => c.turns.length >= 2 && c.turns.every((t) => t.passed));
  const chosen = caseIndex === null ? allRight[0] : allRight.find((c) => c.index === caseIndex);
  if (!chosen) throw new Error(`case ${caseIndex ?? "(any)"}: not a case of 2+ turns that ${RECORDING} answers all right`);
  const other = allRight.find((c) => c !== chosen && c !== allRight[allRight.length - 1]);
  const last = verdicts[verdicts.length - 1];
  if (!other || !last.turns.every((t) => t.passed)) throw new Error(`${RECORDING}: too few cases answered all right`);
  const cassette = JSON.parse(fs.readFileSync(path.join(workspace, RECORDING), "utf8"));
  const turn = cassette.cases[chosen.index].turns[1];
  const right = turn.response;
  turn.response = WRONG;
  fs.writeFileSync(path.join(workspace, CASSETTE), JSON.stringify(cassette, null, 2));
  return { caseName: chosen.name, caseLine: chosen.line, wrongTurnLine: chosen.turns[1].line, turns: chosen.turns.length, right, otherName: other.name, lastTurnLine: last.turns[0].line };
}

/** The scenario, run alone (below) or by vscode_host.mjs on its shared host. */
export async function main(argv = process.argv.slice(2)) {
  let caseIndex = null;
  const o = parseArgs(argv, import.meta.url, { "--case": (_o, next) => { caseIndex = Number(next()); } });
  await withSession(o, {
    prefix: "holodeck-e2e-run-",
    prepare: (workspace) => {
      const info = writeCassette(workspace, caseIndex, o.serverPath);
      log(`wrote ${CASSETTE}: ${RECORDING} with case ${info.caseName} (line ${info.caseLine}, line ${info.caseLine}, ${info.turns} turns), turn 1 answered "${WRONG}" instead of "${info.right}"`);
      return info;
    },
    settings: {
      "holodeck.cassettePath": CASSETTE,
      "testing.automaticallyOpenPeekView": "never", // the script opens it itself
      "testing.openTesting": "neverOpen", // keep the editor's height: the hints are on the turn lines
      "testing.gutterEnabled": true,
      "editor.inlayHints.enabled": "on",
    },
  }, async ({ page, shot, runCommand, dirs, prepared: info }) => {
    await timed("open_agent_yaml", async () => openFromExplorer(page, "agent.yaml", "financial-assistant"));
    log("agent.yaml open");
    const editor = page.locator(".editor-instance .monaco-editor").first();
    await runCommand("View: Toggle Primary Side Bar Visibility"); // more room for the editor

    // Show the case's line (the editor renders only the visible lines' lenses and glyphs).
    await editor.click({ position: { x: 400, y: 40 } });
    await page.keyboard.press("Control+g");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor();
    await input.fill(`:${info.caseLine}:1`);
    await page.keyboard.press("Enter");
    await page.waitForTimeout(300);
    // Discovery: the Testing glyphs in the gutter and the server's "Run case" code lens.
    await timed("discovery", async () => {
      await page.locator(".monaco-editor .codelens-decoration", { hasText: "Run case" }).filter({ visible: true }).first().waitFor({ timeout: 30000 })
        .catch(() => fail("no 'Run case' code lens from holodeck-lsp within 30 s"));
      await page.locator(".glyph-margin-widgets .testing-run-glyph").filter({ visible: true }).first().waitFor({ timeout: 30000 })
        .catch(() => fail("no Testing 'Run Test' glyph (.testing-run-glyph) in the gutter within 30 s: the Testing view has no items for agent.yaml"));
    });
    log("discovered: Testing gutter glyphs + 'Run case' code lens");

    await shot("01-before-run");

    // The glyph on the case's line: same vertical position as the line number.
    const lineNo = editor.locator(".margin-view-overlays .line-numbers", { hasText: new RegExp(`^${info.caseLine}$`) }).first();
    await lineNo.waitFor();
    const lb = await lineNo.boundingBox();
    const glyphs = editor.locator(".glyph-margin-widgets .testing-run-glyph");
    let target = null;
    for (let i = 0; i < await glyphs.count(); i++) {
      const b = await glyphs.nth(i).boundingBox();
      if (b && Math.abs((b.y + b.height / 2) - (lb.y + lb.height / 2)) < lb.height / 2) { target = glyphs.nth(i); break; }
    }
    if (!target) fail(`no Testing "Run Test" glyph on agent.yaml:${info.caseLine} (the case's line)`);
    const cls = await target.getAttribute("class");
    log(`clicking the gutter glyph at line ${info.caseLine} (class "${cls}")`);

    await timed("run_to_results", async () => {
      await target.click();
      // the glyph of the case turns failed; passed glyphs appear for the right turns
      await editor.locator(".glyph-margin-widgets .codicon-testing-failed-icon").first().waitFor({ timeout: 60000 })
        .catch(() => fail("no .codicon-testing-failed-icon in the gutter within 60 s after the run"));
      await editor.locator(".glyph-margin-widgets .codicon-testing-passed-icon").first().waitFor({ timeout: 10000 })
        .catch(() => fail("no .codicon-testing-passed-icon in the gutter after the run"));
    });
    const nFailed = await editor.locator(".glyph-margin-widgets .codicon-testing-failed-icon").count();
    const nPassed = await editor.locator(".glyph-margin-widgets .codicon-testing-passed-icon").count();
    log(`gutter after the run: ${nFailed} failed, ${nPassed} passed glyph(s) visible`);

    // The server's inlay hints (after a run): `✓ …` on right turns, `✗ …` on the wrong one.
    await timed("inlay_hints", async () => {
      await editor.locator(".view-lines", { hasText: "✓" }).first().waitFor({ timeout: 15000 })
        .catch(() => fail("no ✓ inlay hint in the editor after the run"));
      await goToLine(page, info.wrongTurnLine); // the wrong turn may be below the visible lines
      await editor.locator(".view-lines", { hasText: "✗" }).first().waitFor({ timeout: 15000 })
        .catch(() => fail("no ✗ inlay hint in the editor after the run"));
    });
    const hints = await editor.locator(".view-lines span").evaluateAll((els) =>
      [...new Set(els.map((e) => e.textContent).filter((t) => /^\s*[✓✗]/.test(t ?? "")))]);
    log(`inlay hints: ${JSON.stringify(hints)}`);
    if (!hints.some((h) => h.includes(WRONG))) fail(`no ✗ hint showing the wrong answer ${WRONG}: ${JSON.stringify(hints)}`);
    await shot("02-after-run");

    // The failure peek: Go to the failed turn's ground_truth line and open the test peek.
    const text = fs.readFileSync(path.join(dirs.workspace, "agent.yaml"), "utf8").split("\n");
    let gtLine = -1; let turnsSeen = -1;
    for (let i = info.caseLine; i < text.length; i++) {
      if (/^\s+- input:/.test(text[i])) turnsSeen++;
      if (turnsSeen === 1 && /^\s+ground_truth:/.test(text[i])) { gtLine = i + 1; break; }
    }
    await page.keyboard.press("Control+g");
    await input.waitFor();
    await input.fill(`:${gtLine}:1`);
    await page.keyboard.press("Enter");
    await page.waitForTimeout(300);
    await timed("peek", async () => {
      await runCommand("Test: Peek Output");
      await page.locator(".test-output-peek, .peekview-widget", { hasText: WRONG }).first().waitFor({ timeout: 15000 })
        .catch(() => fail(`the test peek did not open with the failure (${WRONG})`));
    });
    const peekText = (await page.locator(".test-output-peek, .peekview-widget").first().innerText()).replace(/\s+/g, " ").slice(0, 300);
    log(`peek: ${peekText}`);
    await page.waitForTimeout(800);
    const peekShot = await shot("03-failure-peek");

    // The Problems panel: the server's `holodeck-run` diagnostic on the failed turn.
    await runCommand("View: Focus Problems");
    await page.locator(".markers-panel .monaco-list-row", { hasText: WRONG }).first().waitFor({ timeout: 15000 })
      .catch(() => fail(`no Problems entry mentioning ${WRONG} after the run`));
    log("Problems panel lists the failed turn");

    // The Testing view: the case item is failed, some turn items passed.
    await timed("testing_view", async () => {
      await runCommand("Testing: Focus on Test Explorer View");
      await page.locator(".test-explorer .monaco-list-row", { hasText: info.caseName }).first().waitFor({ timeout: 15000 })
        .catch(() => fail(`the Testing view does not list ${info.caseName}`));
    });
    const rowInfo = await testingRows(page);
    log(`Testing view rows: ${JSON.stringify(rowInfo)}`);
    const caseRow = rowInfo.find((r) => (r.text ?? "").includes(info.caseName));
    if (!caseRow || !caseRow.icons.some((i) => i.includes("failed"))) fail(`the Testing view's ${info.caseName} row is not failed: ${JSON.stringify(caseRow)}`);
    const turnRows = rowInfo.filter((r) => /^turn \d+/.test(r.text ?? ""));
    if (!turnRows.some((r) => r.icons.some((i) => i.includes("passed")))) fail("no passed turn in the Testing view");
    if (!turnRow(rowInfo, 1)?.icons.some((i) => i.includes("failed"))) fail("turn 1 is not failed in the Testing view");
    await shot("04-testing-view");

    // 2nd way: the Run button of another case's row in the Testing view (its answers are all right).
    {
      const otherName = info.otherName;
      const row = page.locator(".test-explorer .monaco-list-row", { hasText: otherName }).first();
      await timed("run_from_testing_view", async () => {
        await row.hover();
        await row.locator(".action-label.codicon-testing-run-icon").first().click();
        await row.locator(".codicon-testing-passed-icon").first().waitFor({ timeout: 30000 })
          .catch(() => fail(`${otherName}: not passed in the Testing view after its Run button`));
      });
      log(`Testing view: Run button on ${otherName} -> passed`);
      await shot("05-testing-view-run");
    }

    // 3rd way: Test: Run Test at Cursor on a turn's input line (server command runTurn).
    const lastCase = text.findLastIndex((l) => /^  - name: /.test(l));
    const turnLine = text.findIndex((l, i) => i > lastCase && /^\s+- input:/.test(l)) + 1;
    await runCommand("View: Close Primary Side Bar").catch(() => {});
    await editor.click({ position: { x: 400, y: 40 } });
    await page.keyboard.press("Control+g");
    await input.waitFor();
    await input.fill(`:${turnLine}:12`);
    await page.keyboard.press("Enter");
    await page.waitForTimeout(300);
    await timed("run_at_cursor", async () => {
      await runCommand("Test: Run Test at Cursor");
      const row = editor.locator(".view-line", { hasText: "✓" });
      await page.waitForFunction(([n]) => {
        const nums = [...document.querySelectorAll(".editor-instance .monaco-editor .margin-view-overlays .line-numbers")];
        const num = nums.find((e) => e.textContent.trim() === String(n));
        if (!num) return false;
        const y = num.getBoundingClientRect().top;
        return [...document.querySelectorAll(".editor-instance .monaco-editor .glyph-margin-widgets .codicon-testing-passed-icon")]
          .some((g) => Math.abs(g.getBoundingClientRect().top - y) < 4);
      }, [turnLine], { timeout: 30000 }).catch(() => fail(`no passed glyph on agent.yaml:${turnLine} after Test: Run Test at Cursor`));
      await row.first().waitFor({ timeout: 5000 });
    });
    log(`Test: Run Test at Cursor on agent.yaml:${turnLine} -> passed glyph on that line`);

    copyOut(o, peekShot);
    log("PASS: run from the gutter -> failed/passed glyphs, ✓/✗ inlay hints, failure peek, Problems, Testing view");
  });
}

if (isMain(import.meta.url)) main().catch((e) => { console.error(`[e2e] FAILED: ${e.stack ?? e}`); process.exitCode = 1; });
