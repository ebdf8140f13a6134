// Rename and semantic highlighting in a real VS Code (code-server 4.100.3, headless Chromium),
// with the packaged extension and the real holodeck-lsp. Run by tests/e2e/test_vscode_e2e.py;
// by hand: node tests/e2e/vscode_navigation.mjs [--vsix PATH] [--artifacts DIR] [--keep]
//
// Workspace: a copy of sample/financial-assistant whose cases are moved to a
// `test_cases_file` include (cases.yaml), so a rename crosses two files.
// Asserts, in order:
//  1. Rename Symbol (F2) on the tool `subtract`'s `name:` in agent.yaml, new name `minus`, then Save All:
//     agent.yaml's tool and every `expected_tools` entry `name: subtract` in cases.yaml are
//     renamed on disk, nothing else changed.
//  2. In cases.yaml a matcher kind (`fuzzy`) is coloured by the server's semantic tokens: its
//     colour differs from the colour of a YAML key (`args`) next to it.
//  3. Go to Definition (F12) on an `expected_tools` entry's `subtract` in inline.agent.yaml (the
//     sample's agent file as it is, cases inline, beside the split one): tools.py becomes the
//     active editor with the cursor on `def subtract`'s name.
//  4. Go to References (Shift+F12) on the tool's `name: subtract` in inline.agent.yaml: the
//     references peek says `N references` and lists each of them (the declaration and every
//     `expected_tools` entry), each row's preview the line naming `subtract`.
// Screenshots: <scratch>/screenshots (01-renamed, 02-semantic-tokens, 03-definition,
// 04-references).
import fs from "node:fs";
import path from "node:path";
import { fail, goToLine, isMain, log, openFromExplorer, parseArgs, timed, withSession } from "./session.mjs";

function splitSuite(workspace) {
  const agent = path.join(workspace, "agent.yaml");
  const text = fs.readFileSync(agent, "utf8");
  const at = text.indexOf("\ntest_cases:\n");
  if (at < 0) throw new Error("sample agent.yaml has no top-level test_cases:");
  const cases = text.slice(at + 1);
  fs.writeFileSync(path.join(workspace, "cases.yaml"), cases);
  fs.writeFileSync(agent, `${text.slice(0, at + 1)}test_cases_file: cases.yaml\n`);
  const lines = fs.readFileSync(agent, "utf8").split("\n");
  const tool = lines.findIndex((l) => l === "  - name: subtract");
  if (tool < 0) throw new Error("no `  - name: subtract` tool in the sample");
  const count = (s, re) => (s.match(re) || []).length;
  const entries = count(cases, /name: subtract\n/g);
  const fuzzy = cases.split("\n").findIndex((l) => /^\s+fuzzy: "[^"]+"$/.test(l));
  return { agentText: fs.readFileSync(agent, "utf8"), cases, tool: tool + 1, entries, fuzzy: fuzzy + 1, inline: inlineAgent(workspace, text) };
}

/** inline.agent.yaml: the sample's agent file unchanged (Go to Definition on an expected tool
 * is tested in the agent file itself: from a `test_cases_file` include the server finds no
 * definition yet). Where its tool `subtract` is declared and used, and where tools.py defines it. */
function inlineAgent(workspace, text) {
  fs.writeFileSync(path.join(workspace, "inline.agent.yaml"), text);
  const lines = text.split("\n");
  const tool = lines.findIndex((l) => l === "  - name: subtract");
  const entry = lines.findIndex((l, i) => i > tool && /^\s+- name: subtract$/.test(l));
  // the declaration and every expected_tools entry (1-based lines)
  const useLines = lines.flatMap((l, i) => (/^\s+- name: subtract$/.test(l) ? [i + 1] : []));
  const py = fs.readFileSync(path.join(workspace, "tools.py"), "utf8").split("\n");
  const def = py.findIndex((l) => l.startsWith("def subtract("));
  if (tool < 0 || entry < 0 || def < 0) throw new Error("the sample has no tool subtract, no expected_tools entry naming it, or no def subtract in tools.py");
  return {
    tool: tool + 1, toolColumn: lines[tool].indexOf("subtract") + 1,
    entry: entry + 1, entryColumn: lines[entry].indexOf("subtract") + 1,
    uses: useLines.length, useLines, def: def + 1, defColumn: "def ".length + 1,
  };
}

/** The active editor's cursor from the status bar ("Ln 54, Col 5"), or null. */
async function cursorAt(page) {
  const text = await page.locator("#status\\.editor\\.selection").first().textContent({ timeout: 1000 }).catch(() => null);
  const m = /Ln (\d+), Col (\d+)/.exec(text ?? "");
  return m ? { line: Number(m[1]), column: Number(m[2]) } : null;
}

/** The active editor tab's label ("tools.py"), or null. */
async function activeTab(page) {
  const label = await page.locator(".tabs-container .tab.active .label-name").first().textContent({ timeout: 1000 }).catch(() => null);
  return label?.trim() ?? null;
}

async function colourOf(page, text) {
  return page.locator(".editor-instance .monaco-editor .view-lines span span").evaluateAll(
    (spans, wanted) => spans.filter((s) => s.textContent === wanted).map((s) => getComputedStyle(s).color),
    text,
  );
}

/** The scenario, run alone (below) or by vscode_host.mjs on its shared host. */
export async function main(argv = process.argv.slice(2)) {
  const o = parseArgs(argv, import.meta.url);
  await withSession(o, {
    prefix: "holodeck-e2e-nav-",
    prepare: splitSuite,
    settings: { "editor.semanticHighlighting.enabled": true },
  }, async ({ page, dirs, shot, runCommand, prepared }) => {
    const { agentText, cases, tool, entries, fuzzy } = prepared;
    if (entries < 2) fail(`the include names subtract only ${entries} times`);
    log(`cases.yaml names subtract in ${entries} expected_tools entries; tool at agent.yaml:${tool}`);

    // 1. rename across the agent and its include
    await timed("open_agent", async () => openFromExplorer(page, "agent.yaml", "financial-assistant"));
    // The server is up and has answered for this file once its document links are drawn (the
    // `file: tools.py` values): only then does the editor have a rename provider, and Rename
    // Symbol is in the command palette.
    await page.locator(".editor-instance .monaco-editor .view-lines .detected-link", { hasText: "tools.py" }).first()
      .waitFor({ timeout: 60000 }).catch(() => fail("no document link on `file: tools.py` within 60 s"));
    await page.waitForTimeout(500);
    await goToLine(page, tool, 12);
    await timed("rename", async () => {
      await runCommand("Rename Symbol"); // F2 (a key the browser page may not pass on)
      const input = page.locator(".rename-box input, .rename-box textarea, .rename-input").first();
      await input.waitFor({ timeout: 15000 }).catch(() => fail("F2 opened no rename box"));
      await input.fill("minus");
      await page.keyboard.press("Enter");
      await page.waitForTimeout(1000);
      await runCommand("File: Save All");
    });
    const agentFile = path.join(dirs.workspace, "agent.yaml");
    const casesFile = path.join(dirs.workspace, "cases.yaml");
    const end = Date.now() + 20000;
    let renamedAgent = ""; let renamedCases = "";
    while (Date.now() < end) {
      renamedAgent = fs.readFileSync(agentFile, "utf8");
      renamedCases = fs.readFileSync(casesFile, "utf8");
      if (renamedCases.includes("name: minus") && renamedAgent.includes("- name: minus")) break;
      await page.waitForTimeout(250);
    }
    if (renamedAgent !== agentText.replace("  - name: subtract\n", "  - name: minus\n")) {
      fail(`agent.yaml after the rename is not the original with the tool renamed`);
    }
    if (renamedCases !== cases.replaceAll("name: subtract\n", "name: minus\n")) {
      fail(`cases.yaml after the rename: ${(renamedCases.match(/name: minus\n/g) || []).length} of ${entries} entries renamed, or other text changed`);
    }
    log(`renamed: agent.yaml's tool and ${entries} entries in cases.yaml`);
    await shot("01-renamed");

    // 2. semantic tokens: `fuzzy` (type) is coloured unlike the YAML key `args`
    await timed("open_cases", async () => openFromExplorer(page, "cases.yaml", "test_cases"));
    await goToLine(page, fuzzy, 1);
    let fuzzyColours = []; let argsColours = [];
    const until = Date.now() + 30000;
    while (Date.now() < until) {
      fuzzyColours = await colourOf(page, "fuzzy");
      argsColours = await colourOf(page, "args");
      if (fuzzyColours.length && argsColours.length && !argsColours.includes(fuzzyColours[0])) break;
      await page.waitForTimeout(300);
    }
    log(`colours: fuzzy ${JSON.stringify(fuzzyColours)}, args ${JSON.stringify(argsColours)}`);
    if (!fuzzyColours.length || !argsColours.length) fail("no `fuzzy` or `args` key visible in cases.yaml");
    if (argsColours.includes(fuzzyColours[0])) fail(`fuzzy has the colour of a YAML key (${fuzzyColours[0]}): no semantic token`);
    await shot("02-semantic-tokens");
    log("PASS: rename across the agent and its include, semantic colour on a matcher kind");

    // 3. Go to Definition (F12) on an expected tool's name: tools.py at `def subtract`
    const { inline } = prepared;
    await timed("open_inline", async () => openFromExplorer(page, "inline.agent.yaml", "financial-assistant"));
    await page.locator(".editor-instance .monaco-editor .view-lines .detected-link", { hasText: "tools.py" }).first()
      .waitFor({ timeout: 60000 }).catch(() => fail("no document link on `file: tools.py` in inline.agent.yaml within 60 s"));
    let landed = null; let tab = null;
    await timed("definition", async () => {
      // F12 again (back in inline.agent.yaml) until the server answers: the first request
      // may come before its parse of the file.
      const until2 = Date.now() + 30000;
      for (;;) {
        await goToLine(page, inline.entry, inline.entryColumn + 2);
        await page.keyboard.press("F12");
        await page.waitForTimeout(1500);
        tab = await activeTab(page);
        landed = await cursorAt(page);
        if (tab === "tools.py" || Date.now() > until2) break;
        await page.keyboard.press("Escape"); // a "No definition found" message
      }
    });
    log(`F12 on inline.agent.yaml:${inline.entry}:${inline.entryColumn + 2}: active tab ${tab}, cursor ${JSON.stringify(landed)}`);
    if (tab !== "tools.py") fail(`F12 on the expected tool \`subtract\` (inline.agent.yaml:${inline.entry}) did not open tools.py (active tab: ${tab})`);
    if (landed?.line !== inline.def || landed?.column !== inline.defColumn) {
      fail(`F12 put the cursor at ${JSON.stringify(landed)} in tools.py, not on \`def subtract\`'s name (Ln ${inline.def}, Col ${inline.defColumn})`);
    }
    const defLine = page.locator(".editor-instance .monaco-editor .view-line", { hasText: "def subtract(" });
    await defLine.first().waitFor({ timeout: 5000 }).catch(() => fail("tools.py shows no `def subtract(` line after F12"));
    await shot("03-definition");

    // 4. Go to References (Shift+F12) on the tool's declaration: the peek lists every use
    // back to inline.agent.yaml (its tab: the Explorer's open waits for the file's first line,
    // scrolled out of view since F12)
    await page.locator('.tabs-container .tab[aria-label*="inline.agent.yaml"]').first().click();
    for (const until = Date.now() + 10000; await activeTab(page) !== "inline.agent.yaml";) {
      if (Date.now() > until) fail("could not go back to inline.agent.yaml's tab");
      await page.waitForTimeout(200);
    }
    let meta = ""; let previews = [];
    await timed("references", async () => {
      await goToLine(page, inline.tool, inline.toolColumn + 2);
      await page.keyboard.press("Shift+F12");
      const peek = page.locator(".peekview-widget").first();
      await peek.waitFor({ timeout: 30000 }).catch(() => fail("Shift+F12 opened no references peek within 30 s"));
      const until3 = Date.now() + 20000;
      for (;;) {
        meta = ((await peek.locator(".peekview-title .meta").first().textContent().catch(() => "")) ?? "").trim();
        previews = await peek.locator(".ref-tree .monaco-list-row").evaluateAll((els) => els.map((e) => ({ text: e.textContent.trim(), label: e.getAttribute("aria-label") })));
        if (previews.length >= inline.uses || Date.now() > until3) break;
        await page.waitForTimeout(300);
      }
    });
    log(`references peek: ${JSON.stringify(meta)}, rows ${JSON.stringify(previews)}`);
    if (meta !== `References (${inline.uses})`) fail(`the references peek says ${JSON.stringify(meta)}, not "References (${inline.uses})" (the tool's name: and each expected_tools entry)`);
    if (previews.length !== inline.uses || !previews.every((p) => /name: subtract$/.test(p.text))) {
      fail(`the references peek lists ${previews.length} rows, not the ${inline.uses} lines naming subtract: ${JSON.stringify(previews)}`);
    }
    // each row's accessible name: "- name: subtract in inline.agent.yaml on line 123 at column 19"
    const rowLines = previews.map((p) => Number(/ in inline\.agent\.yaml on line (\d+) /.exec(p.label ?? "")?.[1]));
    if (JSON.stringify(rowLines) !== JSON.stringify(inline.useLines)) {
      fail(`the references peek lists lines ${JSON.stringify(rowLines)} of inline.agent.yaml, not ${JSON.stringify(inline.useLines)}`);
    }
    await shot("04-references");
    await page.keyboard.press("Escape");
    log("PASS: Go to Definition on an expected tool, Go to References on the tool");
  });
}

if (isMain(import.meta.url)) main().catch((e) => { console.error(e.stack ?? String(e)); process.exit(1); });
