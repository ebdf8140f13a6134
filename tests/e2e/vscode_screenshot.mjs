#!/usr/bin/env node
// Run the packaged HoloDeck VS Code extension (.vsix) inside a real VS Code build —
// code-server from npm — in headless Debian Chromium driven by playwright-core, and take
// screenshots of what the extension shows. See README.md beside this file.
//
//   node tests/e2e/vscode_screenshot.mjs [--vsix PATH] [--out PNG] [--keep] [--build]
//
// Options (all optional):
//   --vsix PATH         the extension; default: newest vscode-extension/holodeck-lsp-*.vsix
//   --build             build the .vsix first (npm ci && npm run package in vscode-extension/)
//   --out PNG           where to copy the chosen screenshot; default: none (only the scratch
//                       folder gets them). The README image is made with
//                       --out vscode-extension/images/screenshot.png
//   --code-server PATH  default: run install_code_server.sh (cached) and use its binary
//   --server-path PATH  holodeck-lsp executable; default: <repo>/.venv/bin/holodeck-lsp
//   --chromium PATH     default: /usr/bin/chromium
//   --width N --height N  viewport; default 1280x800
//   --keep              keep the scratch folder (it is always kept on failure)
//   --timeout-ms N      per-step timeout; default 120000
//
// Steps: copy sample/financial-assistant to a scratch folder and plant two faults in the copy
// (a typo `groundtruth` -> HD100, an invalid regex -> HD120); install the .vsix into a scratch
// extensions dir; write User/settings.json (holodeck.server.path, trust, no start-up editor);
// start code-server on 127.0.0.1:<free port> (stdout/stderr -> scratch/logs/code-server.log);
// open the folder in Chromium; open agent.yaml from the Explorer; wait for the server's
// diagnostics in the Problems panel; show the hover on the invalid regex; screenshot.
import fs from "node:fs";
import path from "node:path";
import { log, openFromExplorer, parseArgs, timed, withSession } from "./session.mjs";

// The sample, copied, with two faults planted: the checker must report both.
function plantFaults(dir) {
  const file = path.join(dir, "agent.yaml");
  let text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  // first turn of the first case: `ground_truth:` -> `groundtruth:` (HD100, with a quick fix)
  const gt = lines.findIndex((l) => /^\s+ground_truth: "60\.94"$/.test(l));
  // first expected tool's arg b: `fuzzy: "25.14"` -> an invalid regex (HD120)
  const fz = lines.findIndex((l) => /^\s+fuzzy: "25\.14"$/.test(l));
  if (gt < 0 || fz < 0) throw new Error("sample/financial-assistant/agent.yaml changed: cannot plant faults");
  lines[gt] = lines[gt].replace("ground_truth", "groundtruth");
  lines[fz] = lines[fz].replace(/fuzzy: "25\.14"/, 'regex: "25\\\\.14("');
  fs.writeFileSync(file, lines.join("\n"));
  return { typoLine: gt + 1, regexLine: fz + 1, regexCol: lines[fz].indexOf("regex") + 11 };
}

// ---------------------------------------------------------------- main
async function main() {
  const o = parseArgs(process.argv.slice(2), import.meta.url);
  await withSession(o, {
    prepare: (workspace) => {
      const faults = plantFaults(workspace);
      log(`planted HD100 at agent.yaml:${faults.typoLine} and HD120 at agent.yaml:${faults.regexLine}`);
      return faults;
    },
  }, async ({ page, shot, runCommand, prepared: faults }) => {
    await timed("open_agent_yaml", async () => openFromExplorer(page, "agent.yaml", "financial-assistant"));
    log("agent.yaml open");
    await shot("01-editor-open");

    const editor = page.locator(".editor-instance .monaco-editor").first();

    // Problems panel: wait until the server's diagnostics arrive
    await timed("diagnostics", async () => {
      await runCommand("View: Focus Problems");
      await page.locator(".markers-panel .monaco-list-row", { hasText: "HD120" }).first().waitFor();
      await page.locator(".markers-panel .monaco-list-row", { hasText: "HD100" }).first().waitFor();
    });
    log("diagnostics HD100 + HD120 shown in the Problems panel");
    await page.waitForTimeout(1500); // let code lenses / inlay hints settle
    await shot("02-problems");
    await runCommand("View: Toggle Primary Side Bar Visibility"); // more room for the editor

    // Go to the invalid regex and show the hover there (editor.action.showHover)
    await editor.click({ position: { x: 300, y: 40 } });
    await page.keyboard.press("Control+g");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor();
    await input.fill(`:${faults.regexLine}:${faults.regexCol}`);
    await page.keyboard.press("Enter");
    await page.waitForTimeout(300);
    // Go to Line centres the line; scroll the view up a few lines (the cursor stays) so the
    // hover, which opens above the line, has room for the message and the documentation.
    for (let i = 0; i < 6; i++) await page.keyboard.press("Control+ArrowUp");
    await page.waitForTimeout(300);
    await timed("hover", async () => {
      await page.keyboard.press("Control+k");
      await page.keyboard.press("Control+i");
      await page.locator(".monaco-hover:not(.hidden)", { hasText: "HD120" }).first().waitFor();
    });
    await page.waitForTimeout(500);
    await growHover(page);
    const hoverShot = await timed("screenshot", async () => shot("03-hover-problems"));

    if (o.out) {
      fs.mkdirSync(path.dirname(o.out), { recursive: true });
      fs.copyFileSync(hoverShot, o.out);
      log(`copied ${hoverShot} -> ${o.out}`);
    }
  });
}

// The hover is at most ~250 px high and scrolls; drag its free (top) edge up so that the
// whole hover — message, documentation and the "Quick Fix" link — is visible.
async function growHover(page) {
  const sashes = page.locator(".monaco-resizable-hover .monaco-sash.horizontal");
  let top = null;
  for (let i = 0; i < await sashes.count(); i++) {
    const b = await sashes.nth(i).boundingBox();
    if (b && (top === null || b.y < top.y)) top = b;
  }
  if (top === null) return;
  const x = top.x + top.width / 2; const y = top.y + top.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x, y - 60, { steps: 6 });
  await page.mouse.up();
  await page.waitForTimeout(300);
}

main().catch((e) => { console.error(`[e2e] FAILED: ${e.stack ?? e}`); process.exitCode = 1; });
