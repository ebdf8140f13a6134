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
//  4. Quick fix: that `fuzzy:` key misspelt `fuzy:` -> HD125 in the Problems panel; Ctrl+.
//     there offers "Change to 'fuzzy'", which (picked, Enter) gives the line back as it was.
//  5. Completion: the next `fuzzy:` line replaced by `fu`, Ctrl+Space (triggerSuggest): the
//     suggest widget lists `fuzzy` first and no `regex`; Enter gives `fuzzy: ""`.
// Screenshots: <scratch>/screenshots (01-problems, 02-hover-regex, 03-hover-fuzzy,
// 04-run-turn, 05-testing-view, 06-quick-fix-menu, 07-completion); a failure exits 1 with
// "ASSERTION FAILED: …".
import fs from "node:fs";
import path from "node:path";
import { copyOut, fail, goToLine, isMain, lensAbove, log, openFromExplorer, parseArgs, replayVerdicts, testingRows, timed, turnRow, withSession } from "./session.mjs";

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
  // the next `fuzzy:` matcher: its line is replaced by `fu` and completed
  const next = lines.findIndex((l, i) => i > at && /^\s+fuzzy: "[^"]+"$/.test(l));
  return {
    line: at + 1, column: lines[at].indexOf("fuzzy") + 2, text: lines[at],
    complete: { line: next + 1, column: lines[next].indexOf("fuzzy") + 1, text: lines[next] },
  };
}

// The text of line `n` (1-based) of the active editor as drawn (the view line level with its
// line number; spaces as drawn are non-breaking), or null when it is not drawn.
async function lineText(page, n) {
  return page.evaluate((n) => {
    const nums = [...document.querySelectorAll(".editor-instance .monaco-editor .margin-view-overlays .line-numbers")];
    const num = nums.find((e) => e.textContent.trim() === String(n));
    if (!num) return null;
    const y = num.getBoundingClientRect().top;
    const line = [...document.querySelectorAll(".editor-instance .monaco-editor .view-line")]
      .find((l) => Math.abs(l.getBoundingClientRect().top - y) < 4);
    return line ? line.textContent.replace(/\u00a0/g, " ") : null;
  }, n);
}

async function waitForLine(page, n, wanted, what, timeout = 30000) {
  const end = Date.now() + timeout;
  let text = null;
  while (Date.now() < end) {
    text = await lineText(page, n);
    if (text === wanted) return text;
    await page.waitForTimeout(250);
  }
  fail(`${what}: line ${n} is ${JSON.stringify(text)}, not ${JSON.stringify(wanted)}`);
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

/** The scenario, run alone (below) or by vscode_host.mjs on its shared host. */
export async function main(argv = process.argv.slice(2)) {
  const o = parseArgs(argv, import.meta.url);
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

    // 4. a quick fix: the `fuzzy:` key misspelt `fuzy:` (HD125), Ctrl+. -> "Change to 'fuzzy'"
    await editor.click({ position: { x: 300, y: 40 } });
    const c = fuzzy.column - 2; // 0-based column of `fuzzy`
    await goToLine(page, fuzzy.line, c + 4); // after "fuz"
    await page.keyboard.press("Delete"); // fuzzy: -> fuzy:
    await waitForLine(page, fuzzy.line, fuzzy.text.replace("fuzzy:", "fuzy:"), "the misspelt key");
    await timed("quickfix_diagnostic", async () => {
      await runCommand("View: Focus Problems");
      await page.locator(".markers-panel .monaco-list-row", { hasText: "HD125" }).first().waitFor({ timeout: 60000 })
        .catch(() => fail("no HD125 (unknown matcher kind 'fuzy') in the Problems panel within 60 s"));
    });
    const fixTitle = "Change to 'fuzzy'";
    const offered = await timed("quickfix_menu", async () => {
      const item = page.locator(".action-widget .monaco-list-row", { hasText: fixTitle }).first();
      const deadline = Date.now() + 60000;
      for (let attempt = 1; ; attempt++) {
        await goToLine(page, fuzzy.line, c + 3); // inside the key
        await page.keyboard.press("Control+.");
        try {
          await item.waitFor({ timeout: Math.max(1000, Math.min(15000, deadline - Date.now())) });
          return (await page.locator(".action-widget .monaco-list-row").allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
        } catch {
          if (Date.now() >= deadline) fail(`Ctrl+. on agent.yaml:${fuzzy.line} offered no "${fixTitle}" within 60 s (${attempt} attempts)`);
          await page.keyboard.press("Escape");
        }
      }
    });
    log(`quick fixes offered: ${JSON.stringify(offered)}`);
    await shot("06-quick-fix-menu");
    // picked with the keyboard (the menu's pointer block takes clicks meant for its rows)
    for (let i = 0; ; i++) {
      const focused = await page.locator(".action-widget .monaco-list-row.focused").first().getAttribute("aria-label").catch(() => null);
      if (focused === fixTitle) break;
      if (i >= 10) fail(`"${fixTitle}" never got the focus in the quick fix menu (last: ${focused})`);
      await page.keyboard.press("ArrowDown");
      await page.waitForTimeout(150);
    }
    await page.keyboard.press("Enter");
    await timed("quickfix_applied", async () => waitForLine(page, fuzzy.line, fuzzy.text, `after "${fixTitle}"`));
    log(`quick fix applied: ${fuzzy.text.trim()}`);

    // 5. completion: a matcher key replaced by `fu`, suggestions triggered
    //    (editor.action.triggerSuggest, Ctrl+Space): the suggest widget's rows, then Enter
    const done = fuzzy.complete;
    const indent = " ".repeat(done.column - 1);
    await goToLine(page, done.line, done.column);
    await page.keyboard.press("Shift+End");
    await page.keyboard.type("fu", { delay: 60 });
    await waitForLine(page, done.line, `${indent}fu`, "the half-typed key");
    const rowsLocator = page.locator(".editor-widget.suggest-widget.visible .monaco-list-row");
    const suggested = await timed("completion", async () => {
      const deadline = Date.now() + 60000;
      for (let attempt = 1; ; attempt++) {
        await page.keyboard.press("Control+Space"); // editor.action.triggerSuggest
        try {
          await rowsLocator.filter({ hasText: "fuzzy" }).first().waitFor({ timeout: Math.max(1000, Math.min(15000, deadline - Date.now())) });
          await page.waitForTimeout(300); // every provider's rows drawn
          return (await page.locator(".editor-widget.suggest-widget.visible .monaco-list-row .label-name").allInnerTexts()).map((t) => t.trim());
        } catch {
          if (Date.now() >= deadline) fail(`no "fuzzy" suggestion at agent.yaml:${done.line} within 60 s (${attempt} attempts)`);
          await page.keyboard.press("Escape");
          await page.keyboard.press("End"); // back after the typed `fu`
        }
      }
    });
    log(`suggestions for "fu": ${JSON.stringify(suggested)}`);
    if (suggested[0] !== "fuzzy") fail(`"fuzzy" is not the first suggestion for "fu": ${JSON.stringify(suggested)}`);
    if (suggested.includes("regex")) fail(`"regex" suggested for "fu": ${JSON.stringify(suggested)}`);
    await shot("07-completion");
    await page.keyboard.press("Enter");
    await timed("completion_applied", async () => waitForLine(page, done.line, `${indent}fuzzy: ""`, "the accepted suggestion"));
    await page.keyboard.press("Escape");

    copyOut(o, readmeShot);
    log("PASS: Problems + hover on the planted fault, fuzzy hover, Run turn lenses -> ✓/✗ inline and in the Testing view, quick fix Change to 'fuzzy', completion of `fu`");
  });
}

if (isMain(import.meta.url)) main().catch((e) => { console.error(`[e2e] FAILED: ${e.stack ?? e}`); process.exitCode = 1; });
