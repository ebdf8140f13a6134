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
// Screenshots: <scratch>/screenshots (01-renamed, 02-semantic-tokens).
import fs from "node:fs";
import path from "node:path";
import { fail, goToLine, log, openFromExplorer, parseArgs, timed, withSession } from "./session.mjs";

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
  return { agentText: fs.readFileSync(agent, "utf8"), cases, tool: tool + 1, entries, fuzzy: fuzzy + 1 };
}

async function colourOf(page, text) {
  return page.locator(".editor-instance .monaco-editor .view-lines span span").evaluateAll(
    (spans, wanted) => spans.filter((s) => s.textContent === wanted).map((s) => getComputedStyle(s).color),
    text,
  );
}

async function main() {
  const o = parseArgs(process.argv.slice(2), import.meta.url);
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
  });
}

main().catch((e) => { console.error(e.stack ?? String(e)); process.exit(1); });
