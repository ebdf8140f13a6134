// The packaged extension in a real VS Code (code-server 4.100.3 = VS Code 1.100, in headless
// Debian Chromium driven by playwright-core), against the real holodeck-lsp, on the sample.
// Run by tests/e2e/test_vscode_e2e.py (so by CI); by hand:
//
//   node tests/e2e/vscode_e2e.mjs [--vsix PATH] [--build] [--artifacts DIR] [--out PNG] [--keep]
//
//   --artifacts DIR  copy the screenshots and logs to DIR/holodeck-e2e, pass or fail (CI)
//   --out PNG        copy the README screenshot (hover on the broken regex) there
//   (more: --help of session.mjs's options: --server-path, --code-server, --chromium, …)
//
// Workspace: a copy of sample/financial-assistant with `broken.agent.yaml` beside agent.yaml —
// the same file with one `fuzzy:` matcher turned into a regex that does not compile — and the
// setting holodeck.cassettePath = cassettes/oracle.json (runs replay the recorded run).
// Asserts, in order:
//  1. Problems panel: broken.agent.yaml's HD120 with the server's message, at the planted
//     line and column; the hover there shows the message and the regex matcher's documentation.
//  2. Hover on a `fuzzy:` key of agent.yaml explains the fuzzy matcher's semantics.
//  3. The "Run turn N" code lens of a turn the recording got wrong -> a ✗ inlay hint on the
//     turn and the turn failed in the Testing view; the lens of a right turn -> ✓ and passed.
// Screenshots: <scratch>/screenshots (01-problems, 02-hover-regex, 03-hover-fuzzy,
// 04-run-turn, 05-testing-view); a failure exits 1 with "ASSERTION FAILED: …".
import fs from "node:fs";
import path from "node:path";
import { copyOut, fail, goToLine, lensAbove, log, openFromExplorer, parseArgs, replayVerdicts, testingRows, timed, turnRow, withSession } from "./session.mjs";

const CASSETTE = "cassettes/oracle.json";
const BROKEN = "broken.agent.yaml";

// broken.agent.yaml: agent.yaml with its first `fuzzy: "…"` matcher made an invalid regex.
function plantBrokenRegex(workspace) {
  const lines = fs.readFileSync(path.join(workspace, "agent.yaml"), "utf8").split("\n");
  const at = lines.findIndex((l) => /^\s+fuzzy: "[^"]+"$/.test(l));
  if (at < 0) throw new Error("sample/financial-assistant/agent.yaml has no `fuzzy:` matcher line to break");
  lines[at] = lines[at].replace(/fuzzy: "([^"]+)"/, (_m, v) => `regex: "${v.replace(".", "\\\\.")}("`);
  fs.writeFileSync(path.join(workspace, BROKEN), lines.join("\n"));
  // the diagnostic's range is the pattern (the quoted value), not the key
  return { line: at + 1, column: lines[at].indexOf('"') + 1 };
}

function fuzzyLine(workspace) {
  const lines = fs.readFileSync(path.join(workspace, "agent.yaml"), "utf8").split("\n");
  const at = lines.findIndex((l) => /^\s+fuzzy: "[^"]+"$/.test(l));
  return { line: at + 1, column: lines[at].indexOf("fuzzy") + 2 };
}

// Under load (2 CPUs shared with other test workers) the first hover request can reach the
// server before the document's analysis is ready, and VS Code then shows a hover without ours
// and never asks again: ask again until ours is there, within a generous overall limit.
const HOVER_TIMEOUT_MS = 90000;

async function hoverAt(page, line, column, hasText) {
  const hover = page.locator(".monaco-hover:not(.hidden)", { hasText }).first();
  const deadline = Date.now() + HOVER_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    await goToLine(page, line, column);
    // Go to Line centres the line: scroll up a little so the hover (drawn above) has room.
    for (let i = 0; i < 6; i++) await page.keyboard.press("Control+ArrowUp");
    await page.keyboard.press("Control+k");
    await page.keyboard.press("Control+i");
    try {
      await hover.waitFor({ timeout: Math.max(1000, Math.min(15000, deadline - Date.now())) });
      if (attempt > 1) log(`hover containing "${hasText}" at ${line}:${column}: attempt ${attempt}`);
      return (await hover.innerText()).replace(/\s+/g, " ");
    } catch {
      if (Date.now() >= deadline) {
        fail(`no hover containing "${hasText}" at ${line}:${column} within ${HOVER_TIMEOUT_MS / 1000} s (${attempt} attempts)`);
      }
      await page.keyboard.press("Escape"); // close whatever hover came, then ask again
    }
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2), import.meta.url);
  await withSession(o, {
    prefix: "holodeck-e2e-",
    prepare: (workspace) => {
      const planted = plantBrokenRegex(workspace);
      const verdicts = replayVerdicts(o.serverPath, workspace, CASSETTE);
      // a case the recording got partly wrong: one failing and one passing turn to run
      const chosen = verdicts.find((c) => c.turns.some((t) => !t.passed) && c.turns.some((t) => t.passed));
      if (!chosen) throw new Error(`${CASSETTE} has no case with both a failing and a passing turn`);
      const wrong = chosen.turns.findIndex((t) => !t.passed);
      const right = chosen.turns.findIndex((t) => t.passed);
      log(`planted HD120 at ${BROKEN}:${planted.line}:${planted.column}; will run ${chosen.name} turn ${wrong} (recorded wrong: ${chosen.turns[wrong].response}) and turn ${right}`);
      return { planted, fuzzy: fuzzyLine(workspace), chosen, wrong, right };
    },
    settings: {
      "holodeck.cassettePath": CASSETTE,
      "testing.automaticallyOpenPeekView": "never",
      "testing.openTesting": "neverOpen",
      "editor.inlayHints.enabled": "on",
    },
  }, async ({ page, shot, runCommand, prepared }) => {
    const { planted, fuzzy, chosen, wrong, right } = prepared;
    const editor = page.locator(".editor-instance .monaco-editor").first();

    // 1. the planted fault: Problems panel entry at the right place, hover with the docs
    await timed("open_broken", async () => openFromExplorer(page, BROKEN, "financial-assistant"));
    await timed("diagnostics", async () => {
      await runCommand("View: Focus Problems");
      await page.locator(".markers-panel .monaco-list-row", { hasText: "HD120" }).first().waitFor({ timeout: 60000 })
        .catch(() => fail("no HD120 from holodeck-lsp in the Problems panel within 60 s"));
    });
    const row = (await page.locator(".markers-panel .monaco-list-row", { hasText: "HD120" }).first().innerText()).replace(/\s+/g, " ");
    log(`Problems: ${row}`);
    if (!row.includes("regex does not compile")) fail(`the HD120 entry lacks the server's message: ${row}`);
    if (!row.includes(`[Ln ${planted.line}, Col ${planted.column}]`)) fail(`HD120 is not at Ln ${planted.line}, Col ${planted.column}: ${row}`);
    await shot("01-problems");
    await runCommand("View: Toggle Primary Side Bar Visibility"); // room for the editor
    await editor.click({ position: { x: 300, y: 40 } });
    const regexHover = await timed("hover_regex", async () => hoverAt(page, planted.line, planted.column + 2, "HD120"));
    if (!/regex/i.test(regexHover) || !regexHover.includes("does not compile")) fail(`hover on the broken regex: ${regexHover.slice(0, 300)}`);
    await page.waitForTimeout(500);
    const readmeShot = await shot("02-hover-regex");
    await page.keyboard.press("Escape");

    // 2. hover on `fuzzy` in the clean agent.yaml
    await runCommand("View: Toggle Primary Side Bar Visibility");
    await timed("open_agent", async () => openFromExplorer(page, "agent.yaml", "financial-assistant"));
    await runCommand("View: Toggle Primary Side Bar Visibility");
    await editor.click({ position: { x: 300, y: 40 } });
    const fuzzyHover = await timed("hover_fuzzy", async () => hoverAt(page, fuzzy.line, fuzzy.column, "not edit distance"));
    log(`hover on fuzzy: ${fuzzyHover.slice(0, 160)}…`);
    if (!fuzzyHover.includes("normalised comparison")) fail(`the fuzzy hover does not explain the semantics: ${fuzzyHover.slice(0, 300)}`);
    await shot("03-hover-fuzzy");
    await page.keyboard.press("Escape");

    // 3. "Run turn N" lenses on the recorded run: ✗ / ✓ inline and in the Testing view
    const runTurn = async (turn, mark) => {
      const line = chosen.turns[turn].line;
      await goToLine(page, line);
      const lens = await lensAbove(editor, line, `Run turn ${turn}`);
      await timed(`run_turn_${turn}`, async () => {
        await lens.click();
        await page.waitForFunction(([n, m]) => {
          const nums = [...document.querySelectorAll(".editor-instance .monaco-editor .margin-view-overlays .line-numbers")];
          const num = nums.find((e) => e.textContent.trim() === String(n));
          if (!num) return false;
          const y = num.getBoundingClientRect().top;
          return [...document.querySelectorAll(".editor-instance .monaco-editor .view-line")]
            .some((l) => Math.abs(l.getBoundingClientRect().top - y) < 4 && l.textContent.includes(m));
        }, [line, mark], { timeout: 30000 }).catch(() => fail(`no ${mark} inlay hint on agent.yaml:${line} after "Run turn ${turn}"`));
      });
      const text = await editor.locator(".view-line", { hasText: mark }).first().innerText();
      log(`Run turn ${turn} -> ${text.trim()}`);
    };
    await runTurn(wrong, "✗");
    await runTurn(right, "✓");
    await shot("04-run-turn");

    await timed("testing_view", async () => {
      await runCommand("Testing: Focus on Test Explorer View");
      // expand agent.yaml, then the case (rows are collapsed until opened)
      for (const [label, child] of [["agent.yaml", chosen.name], [chosen.name, `turn ${wrong}`]]) {
        const row = page.locator(".test-explorer .monaco-list-row", { hasText: label }).first();
        await row.waitFor({ timeout: 15000 }).catch(() => fail(`the Testing view does not list ${label}`));
        if ((await row.getAttribute("aria-expanded")) === "false") await row.locator(".monaco-tl-twistie").click();
        await page.locator(".test-explorer .monaco-list-row", { hasText: child }).first().waitFor({ timeout: 10000 })
          .catch(() => fail(`the Testing view does not list ${child} under ${label}`));
      }
    });
    const rows = await testingRows(page);
    // a row's text is its label and, once run, its duration: "turn 1" + "1.0ms"
    log(`Testing view: turn ${wrong} ${JSON.stringify(turnRow(rows, wrong)?.icons)}, turn ${right} ${JSON.stringify(turnRow(rows, right)?.icons)}`);
    if (!turnRow(rows, wrong)?.icons.some((i) => i.includes("failed"))) fail(`turn ${wrong} is not failed in the Testing view: ${JSON.stringify(rows)}`);
    if (!turnRow(rows, right)?.icons.some((i) => i.includes("passed"))) fail(`turn ${right} is not passed in the Testing view: ${JSON.stringify(rows)}`);
    await shot("05-testing-view");

    copyOut(o, readmeShot);
    log("PASS: Problems + hover on the planted fault, fuzzy hover, Run turn lenses -> ✓/✗ inline and in the Testing view");
  });
}

main().catch((e) => { console.error(`[e2e] FAILED: ${e.stack ?? e}`); process.exitCode = 1; });
