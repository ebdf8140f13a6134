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
import { spawn, spawnSync, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..", "..");

// ---------------------------------------------------------------- arguments
function parseArgs(argv) {
  const o = {
    vsix: null, build: false, out: null, codeServer: null,
    serverPath: path.join(REPO, ".venv", "bin", "holodeck-lsp"),
    chromium: "/usr/bin/chromium", width: 1280, height: 800, keep: false, timeoutMs: 120000,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => { if (i + 1 >= argv.length) throw new Error(`${a} needs a value`); return argv[++i]; };
    switch (a) {
      case "--vsix": o.vsix = path.resolve(next()); break;
      case "--build": o.build = true; break;
      case "--out": o.out = path.resolve(next()); break;
      case "--code-server": o.codeServer = path.resolve(next()); break;
      case "--server-path": o.serverPath = path.resolve(next()); break;
      case "--chromium": o.chromium = next(); break;
      case "--width": o.width = Number(next()); break;
      case "--height": o.height = Number(next()); break;
      case "--keep": o.keep = true; break;
      case "--timeout-ms": o.timeoutMs = Number(next()); break;
      case "-h": case "--help":
        console.log(fs.readFileSync(fileURLToPath(import.meta.url), "utf8").split("\nimport ")[0]);
        process.exit(0);
      default: throw new Error(`unknown argument ${a}`);
    }
  }
  return o;
}

const T0 = Date.now();
const timings = {};
function log(msg) {
  console.log(`[e2e ${((Date.now() - T0) / 1000).toFixed(1).padStart(6)}s] ${msg}`);
}
async function timed(name, fn) {
  const t = Date.now();
  try { return await fn(); } finally { timings[name] = (Date.now() - t) / 1000; }
}

// ---------------------------------------------------------------- helpers
function findVsix(build) {
  const ext = path.join(REPO, "vscode-extension");
  if (build) {
    log("building the .vsix: npm ci && npm run package (vscode-extension/)");
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: ext, stdio: "inherit" });
    execFileSync("npm", ["run", "package"], { cwd: ext, stdio: "inherit" });
  }
  const found = fs.existsSync(ext)
    ? fs.readdirSync(ext).filter((f) => /^holodeck-lsp-.*\.vsix$/.test(f))
        .map((f) => path.join(ext, f))
        .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)
    : [];
  if (found.length === 0) {
    throw new Error("no vscode-extension/holodeck-lsp-*.vsix: build it (cd vscode-extension && npm ci && npm run package), or pass --build / --vsix");
  }
  return found[0];
}

function installCodeServer() {
  const r = spawnSync("bash", [path.join(HERE, "install_code_server.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (r.status !== 0) throw new Error(`install_code_server.sh failed (exit ${r.status})`);
  const lines = r.stdout.trim().split("\n");
  return lines[lines.length - 1];
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function waitHttp(url, timeoutMs, proc) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (proc.exitCode !== null) throw new Error(`code-server exited with ${proc.exitCode}`);
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${url}`);
}

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
  const o = parseArgs(process.argv.slice(2));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "holodeck-e2e-"));
  const dirs = {
    userData: path.join(scratch, "user-data"),
    extensions: path.join(scratch, "extensions"),
    logs: path.join(scratch, "logs"),
    shots: path.join(scratch, "screenshots"),
    xdg: path.join(scratch, "xdg"),
    workspace: path.join(scratch, "workspace", "financial-assistant"),
  };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  log(`scratch folder: ${scratch}`);

  let codeServer; let browser; let ok = false;
  try {
    if (!fs.existsSync(o.serverPath)) {
      throw new Error(`${o.serverPath} not found: python3 -m venv .venv && .venv/bin/pip install -e . (or pass --server-path)`);
    }
    const vsix = o.vsix ?? findVsix(o.build);
    log(`extension: ${vsix}`);
    const csBin = o.codeServer ?? await timed("install_code_server", async () => installCodeServer());
    // workspace: a copy of the sample with planted faults (sample/ itself is never touched)
    fs.cpSync(path.join(REPO, "sample", "financial-assistant"), dirs.workspace, { recursive: true });
    const faults = plantFaults(dirs.workspace);
    log(`planted HD100 at agent.yaml:${faults.typoLine} and HD120 at agent.yaml:${faults.regexLine}`);

    const env = {
      ...process.env,
      // keep code-server's own config.yaml / state out of $HOME
      XDG_CONFIG_HOME: path.join(dirs.xdg, "config"),
      XDG_DATA_HOME: path.join(dirs.xdg, "data"),
      XDG_CACHE_HOME: path.join(dirs.xdg, "cache"),
    };
    const csCommon = ["--user-data-dir", dirs.userData, "--extensions-dir", dirs.extensions];
    log(`code-server: ${csBin} (${execFileSync(csBin, ["--version"], { encoding: "utf8", env }).trim().split("\n").pop()})`);

    await timed("install_vsix", async () => {
      const r = spawnSync(csBin, [...csCommon, "--install-extension", vsix], { env, encoding: "utf8" });
      fs.writeFileSync(path.join(dirs.logs, "install-extension.log"), `${r.stdout}\n${r.stderr}`);
      if (r.status !== 0 || !/successfully installed/i.test(r.stdout + r.stderr)) {
        throw new Error(`--install-extension failed (exit ${r.status}): ${r.stdout}${r.stderr}`);
      }
    });
    log(`installed ${path.basename(vsix)}: ${fs.readdirSync(dirs.extensions).filter((f) => !f.endsWith(".json")).join(", ")}`);

    const userDir = path.join(dirs.userData, "User");
    fs.mkdirSync(userDir, { recursive: true });
    fs.writeFileSync(path.join(userDir, "settings.json"), JSON.stringify({
      "holodeck.server.path": o.serverPath,
      // no trust prompt: every folder is trusted (the scratch copy is ours)
      "security.workspace.trust.enabled": false,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "workbench.welcomePage.walkthroughs.openOnInstall": false,
      "workbench.secondarySideBar.defaultVisibility": "hidden",
      "chat.commandCenter.enabled": false,
      "extensions.ignoreRecommendations": true,
      "extensions.autoCheckUpdates": false,
      "extensions.autoUpdate": false,
      "telemetry.telemetryLevel": "off",
      "update.mode": "none",
      "git.enabled": false,
      "window.menuBarVisibility": "classic",
      "editor.fontSize": 13,
      "editor.minimap.enabled": false,
      "editor.stickyScroll.enabled": false,
      "editor.occurrencesHighlight": "off",
    }, null, 2));

    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const csLog = fs.openSync(path.join(dirs.logs, "code-server.log"), "a");
    await timed("start_code_server", async () => {
      codeServer = spawn(csBin, [
        "--bind-addr", `127.0.0.1:${port}`, "--auth", "none",
        "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
        "--disable-getting-started-override", "--ignore-last-opened",
        ...csCommon,
      ], { env, stdio: ["ignore", csLog, csLog], detached: true });
      await waitHttp(`${url}healthz`, o.timeoutMs, codeServer);
    });
    log(`code-server up on ${url} (pid ${codeServer.pid}, log ${path.join(dirs.logs, "code-server.log")})`);

    browser = await chromium.launch({
      executablePath: o.chromium,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    const page = await browser.newPage({ viewport: { width: o.width, height: o.height }, deviceScaleFactor: 1 });
    page.setDefaultTimeout(o.timeoutMs);
    const consoleLog = fs.createWriteStream(path.join(dirs.logs, "browser-console.log"));
    page.on("console", (m) => consoleLog.write(`[${m.type()}] ${m.text()}\n`));
    page.on("pageerror", (e) => consoleLog.write(`[pageerror] ${e.stack ?? e}\n`));

    const shot = async (name) => {
      const p = path.join(dirs.shots, `${name}.png`);
      await page.screenshot({ path: p });
      log(`screenshot ${p}`);
      return p;
    };

    await timed("workbench_load", async () => {
      await page.goto(`${url}?folder=${encodeURIComponent(dirs.workspace)}`);
      await page.locator(".monaco-workbench").waitFor();
      await page.locator(".explorer-folders-view .monaco-list-row").first().waitFor();
    });
    log("workbench loaded");

    await timed("open_agent_yaml", async () => {
      await page.locator('.explorer-folders-view .monaco-list-row[aria-label*="agent.yaml"]').first().click();
      await page.locator(".editor-instance .monaco-editor .view-lines", { hasText: "financial-assistant" }).first().waitFor();
    });
    log("agent.yaml open");
    await shot("01-editor-open");

    const editor = page.locator(".editor-instance .monaco-editor").first();
    const runCommand = async (label) => {
      await page.keyboard.press("F1");
      const input = page.locator(".quick-input-widget input");
      await input.waitFor();
      await input.fill(`>${label}`);
      await page.locator(".quick-input-widget .monaco-list-row", { hasText: label }).first().waitFor();
      await page.keyboard.press("Enter");
    };

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
    ok = true;
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (codeServer && codeServer.exitCode === null) {
      try { process.kill(-codeServer.pid, "SIGTERM"); } catch { /* gone */ }
    }
    // the extension's "HoloDeck" output channel (server start, errors) -> logs/HoloDeck-output.log
    const hoLogs = findFiles(dirs.userData, /^HoloDeck.*\.log$/);
    hoLogs.forEach((f, i) => fs.copyFileSync(f, path.join(dirs.logs, `HoloDeck-output${i ? `-${i}` : ""}.log`)));
    log(`timings (s): ${JSON.stringify(timings)}`);
    log(`logs (code-server, browser console, install-extension, HoloDeck output channel): ${dirs.logs}`);
    if (ok && !o.keep) {
      log(`screenshots: ${dirs.shots} (scratch folder removed except screenshots; pass --keep to keep all)`);
      for (const d of ["user-data", "extensions", "xdg", "workspace"]) fs.rmSync(path.join(scratch, d), { recursive: true, force: true });
    } else {
      log(`scratch folder kept: ${scratch}`);
    }
  }
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

function findFiles(dir, re, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) findFiles(p, re, out);
    else if (re.test(e.name)) out.push(p);
  }
  return out;
}

main().catch((e) => { console.error(`[e2e] FAILED: ${e.stack ?? e}`); process.exitCode = 1; });
