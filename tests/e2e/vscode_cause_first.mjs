// Cause-first messages and quiet typing in a real VS Code (code-server 4.100.3, headless
// Chromium), with the packaged extension and the real holodeck-lsp. Run by
// tests/e2e/test_vscode_e2e.py; by hand:
//
//   node tests/e2e/vscode_cause_first.mjs [--vsix PATH] [--artifacts DIR] [--keep] [--width PX]
//
// Workspace: a copy of sample/financial-assistant, with holodeck.cassettePath =
// cassettes/oracle.json (the recording is opted in: edited cases are re-graded from it).
// The window is 1000 px wide (unless --width): a Problems row is then narrower than the
// location of a fault deep in a case, which is what used to hide the cause.
// Asserts, in order:
//  1. Typing `extra: ` (key by key) on a new line under an `args:` of agent.yaml: once the
//     server has checked the final text (its HD202 warning about `extra` is listed), and a
//     few seconds more for a re-grade from the recording, no error-severity diagnostic —
//     none in the Problems panel, no error squiggle in the editor.
//  2. broken.agent.yaml, written beside it with one `fuzzy:` matcher turned into a regex that
//     does not compile: its HD120 row in the Problems panel starts with the cause, and the
//     words "regex does not compile" are drawn inside the row's visible area (not cut off).
// Screenshots: <scratch>/screenshots (01-typed-extra, 02-problems-cause-first).
import fs from "node:fs";
import path from "node:path";
import { fail, goToLine, isMain, log, openFromExplorer, parseArgs, timed, withSession } from "./session.mjs";

const CASSETTE = "cassettes/oracle.json";
const BROKEN = "broken.agent.yaml";

function firstArgsLine(workspace) {
  const original = fs.readFileSync(path.join(workspace, "agent.yaml"), "utf8");
  const lines = original.split("\n");
  const at = lines.findIndex((l) => /^\s+args:$/.test(l));
  if (at < 0 || !/^\s+\w+: /.test(lines[at + 1] ?? "")) throw new Error("sample agent.yaml has no `args:` with a one-line argument under it");
  return { line: at + 2, original }; // 1-based line of the first argument
}

// The original agent.yaml with its first `fuzzy: "…"` matcher made a regex that does not compile.
function writeBrokenRegex(workspace, original) {
  const lines = original.split("\n");
  const at = lines.findIndex((l) => /^\s+fuzzy: "[^"]+"$/.test(l));
  if (at < 0) throw new Error("sample agent.yaml has no `fuzzy:` matcher line to break");
  lines[at] = lines[at].replace(/fuzzy: "([^"]+)"/, (_m, v) => `regex: "${v.replace(".", "\\\\.")}("`);
  fs.writeFileSync(path.join(workspace, BROKEN), lines.join("\n"));
}

/** Problems rows: text, severity (from the row's codicon) and whether `words` are drawn inside
 * the panel's visible box (a DOM Range over the words, against the row and the panel). */
async function problemRows(page, words = "") {
  return page.locator(".markers-panel .monaco-list-row").evaluateAll((rows, wanted) => {
    const panel = rows[0]?.closest(".markers-panel")?.getBoundingClientRect();
    return rows.map((row) => {
      const icon = row.querySelector(".codicon-error, .codicon-warning, .codicon-info");
      const severity = icon ? [...icon.classList].find((c) => c.startsWith("codicon-")).slice(8) : null;
      let visible = null;
      const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node && wanted; node = walker.nextNode()) {
        const at = node.textContent.indexOf(wanted);
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + wanted.length);
        const words = range.getBoundingClientRect();
        // the nearest clipping box: the message element (ellipsis), the row, the panel
        let clip = node.parentElement;
        while (clip && clip !== row && getComputedStyle(clip).overflow === "visible") clip = clip.parentElement;
        const box = (clip ?? row).getBoundingClientRect();
        visible = words.width > 0 && words.left >= box.left - 1 && words.right <= Math.min(box.right, panel.right) + 1;
      }
      return { text: row.textContent.replace(/\s+/g, " ").trim(), severity, visible };
    });
  }, words);
}

/** The scenario, run alone (below) or by vscode_host.mjs on its shared host. */
export async function main(argv = process.argv.slice(2)) {
  const o = parseArgs(argv, import.meta.url);
  if (!process.argv.includes("--width")) o.width = 1000;
  await withSession(o, {
    prefix: "holodeck-e2e-cause-",
    prepare: firstArgsLine,
    settings: {
      "holodeck.cassettePath": CASSETTE,
      "testing.automaticallyOpenPeekView": "never",
      "testing.openTesting": "neverOpen",
      // What is typed is exactly what lands: no indentation guessed, no completion accepted.
      "editor.autoIndent": "keep",
      "editor.quickSuggestions": { other: "off", comments: "off", strings: "off" },
      "editor.suggestOnTriggerCharacters": false,
    },
  }, async ({ page, dirs, shot, runCommand, prepared }) => {
    const editor = page.locator(".editor-instance .monaco-editor").first();

    // 1. typing `extra: ` under `args:` in a file with an opted-in recording: no error
    await timed("open_agent", async () => openFromExplorer(page, "agent.yaml", "financial-assistant"));
    await runCommand("View: Focus Problems");
    await editor.click({ position: { x: 300, y: 40 } });
    await goToLine(page, prepared.line, 1);
    await page.keyboard.press("End");
    await page.keyboard.press("Enter"); // editor.autoIndent "keep": the argument's indentation
    await page.keyboard.type("extra: ", { delay: 60 });
    await timed("checked_typed_text", async () => {
      await page.locator(".markers-panel .monaco-list-row", { hasText: "HD202" }).first().waitFor({ timeout: 60000 })
        .catch(() => fail("no HD202 (argument 'extra' is not a parameter) within 60 s: the typed text was not checked"));
    });
    await page.waitForTimeout(4000); // a re-grade from the recording, if one runs, publishes by then
    const typed = await problemRows(page);
    log(`Problems after typing: ${JSON.stringify(typed)}`);
    const errors = typed.filter((r) => r.severity === "error");
    if (errors.length) fail(`typing \`extra: \` under args: gave error diagnostics: ${JSON.stringify(errors)}`);
    const squiggles = await editor.locator(".squiggly-error").count();
    if (squiggles) fail(`${squiggles} error squiggle(s) in agent.yaml after typing \`extra: \``);
    const hd202 = typed.find((r) => r.text.includes("HD202"));
    if (!hd202.text.startsWith("argument 'extra' is not a parameter")) fail(`the HD202 row does not lead with the cause: ${hd202.text}`);
    await shot("01-typed-extra");

    // 2. a broken regex: the Problems row shows the cause, visibly
    writeBrokenRegex(dirs.workspace, prepared.original);
    await timed("open_broken", async () => openFromExplorer(page, BROKEN, "financial-assistant"));
    await runCommand("View: Focus Problems");
    await timed("diagnostics", async () => {
      await page.locator(".markers-panel .monaco-list-row", { hasText: "HD120" }).first().waitFor({ timeout: 60000 })
        .catch(() => fail("no HD120 from holodeck-lsp in the Problems panel within 60 s"));
    });
    const row = (await problemRows(page, "regex does not compile")).find((r) => r.text.includes("HD120"));
    log(`Problems row: ${JSON.stringify(row)}`);
    if (!row.text.startsWith("regex does not compile")) fail(`the HD120 row does not start with the cause: ${row.text}`);
    if (!/\(case '[^']+', turn \d+, tool \w+, arg \w+, regex\)/.test(row.text)) fail(`the HD120 row lacks its location suffix: ${row.text}`);
    if (!row.visible) fail(`"regex does not compile" is cut off in the Problems row: ${row.text}`);
    await shot("02-problems-cause-first");
    log("PASS: cause-first Problems row, no error while typing `extra: ` under args:");
  });
}

if (isMain(import.meta.url)) main().catch((e) => { console.error(e.stack ?? String(e)); process.exit(1); });
