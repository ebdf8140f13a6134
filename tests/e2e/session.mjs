// Shared by the vscode_*.mjs scenarios: the host (the packaged extension installed into a
// scratch code-server, user settings, code-server started on a free port, headless Chromium
// from playwright-core), started once for all the scenarios vscode_host.mjs runs or once per
// script run by hand; per scenario a scratch copy of the sample, opened in a window of its
// own (a new browser context), logs collected, cleaned up. See README.md beside this file.
import { spawn, spawnSync, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, "..", "..");

// ---------------------------------------------------------------- arguments
/** Common options; `extra` maps more flags to handlers `(o, next) => void`. */
export function parseArgs(argv, scriptUrl, extra = {}) {
  const o = {
    vsix: null, build: false, out: null, codeServer: null,
    serverPath: path.join(REPO, ".venv", "bin", "holodeck-lsp"),
    chromium: "/usr/bin/chromium", width: 1280, height: 800, keep: false, timeoutMs: 120000,
    artifacts: null,
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
      case "--artifacts": o.artifacts = path.resolve(next()); break;
      case "--timeout-ms": o.timeoutMs = Number(next()); break;
      case "-h": case "--help":
        console.log(fs.readFileSync(fileURLToPath(scriptUrl), "utf8").split("\nimport ")[0]);
        process.exit(0);
      default:
        if (extra[a]) { extra[a](o, next); break; }
        throw new Error(`unknown argument ${a}`);
    }
  }
  return o;
}

let T0 = Date.now();
export const timings = {};
/** Where log lines go: stdout, or what vscode_host.mjs collects for the scenario running. */
let sink = (line) => console.log(line);
export function setLogSink(fn) { sink = fn; }
export function log(msg) {
  sink(`[e2e ${((Date.now() - T0) / 1000).toFixed(1).padStart(6)}s] ${msg}`);
}
/** A scenario's times from its own start. */
export function resetClock() {
  T0 = Date.now();
  for (const k of Object.keys(timings)) delete timings[k];
}
export async function timed(name, fn) {
  const t = Date.now();
  try { return await fn(); } finally { timings[name] = (Date.now() - t) / 1000; }
}

// ---------------------------------------------------------------- helpers
export function findVsix(build) {
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

export function installCodeServer() {
  const r = spawnSync("bash", [path.join(HERE, "install_code_server.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (r.status !== 0) throw new Error(`install_code_server.sh failed (exit ${r.status})`);
  const lines = r.stdout.trim().split("\n");
  return lines[lines.length - 1];
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

export async function waitHttp(url, timeoutMs, proc) {
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

export function findFiles(dir, re, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) findFiles(p, re, out);
    else if (re.test(e.name)) out.push(p);
  }
  return out;
}

export const BASE_SETTINGS = {
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
};

// ---------------------------------------------------------------- the host
/**
 * code-server with the packaged extension installed, user settings written and headless
 * Chromium launched: what every scenario needs and none changes. Started once by
 * vscode_host.mjs for all the scenarios a test session runs (each in its own workspace and
 * window, see withSession), or by withSession for one script run by hand. `host.stop()` ends
 * both; `host.logs` holds code-server.log and install-extension.log.
 */
export async function startHost(o) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "holodeck-e2e-host-"));
  const dirs = {
    root,
    userData: path.join(root, "user-data"),
    extensions: path.join(root, "extensions"),
    logs: path.join(root, "logs"),
    xdg: path.join(root, "xdg"),
  };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  const host = { dirs, logs: dirs.logs, codeServer: null, browser: null, url: null };
  host.stop = async () => {
    if (host.browser) await host.browser.close().catch(() => {});
    if (host.codeServer && host.codeServer.exitCode === null) {
      try { process.kill(-host.codeServer.pid, "SIGTERM"); } catch { /* gone */ }
    }
    host.browser = null; host.codeServer = null;
  };
  try {
    if (!fs.existsSync(o.serverPath)) {
      throw new Error(`${o.serverPath} not found: python3 -m venv .venv && .venv/bin/pip install -e . (or pass --server-path)`);
    }
    const vsix = o.vsix ?? findVsix(o.build);
    log(`extension: ${vsix}`);
    const csBin = o.codeServer ?? await timed("install_code_server", async () => installCodeServer());
    const env = {
      ...process.env,
      // keep code-server's own config.yaml / state out of $HOME
      XDG_CONFIG_HOME: path.join(dirs.xdg, "config"),
      XDG_DATA_HOME: path.join(dirs.xdg, "data"),
      XDG_CACHE_HOME: path.join(dirs.xdg, "cache"),
    };
    const csCommon = ["--user-data-dir", dirs.userData, "--extensions-dir", dirs.extensions];
    await timed("install_vsix", async () => {
      const r = spawnSync(csBin, [...csCommon, "--install-extension", vsix], { env, encoding: "utf8" });
      fs.writeFileSync(path.join(dirs.logs, "install-extension.log"), `${r.stdout}\n${r.stderr}`);
      if (r.status !== 0 || !/successfully installed/i.test(r.stdout + r.stderr)) {
        throw new Error(`--install-extension failed (exit ${r.status}): ${r.stdout}${r.stderr}`);
      }
    });
    log(`code-server: ${csBin}; installed ${path.basename(vsix)}: ${fs.readdirSync(dirs.extensions).filter((f) => !f.endsWith(".json")).join(", ")}`);

    // User settings, and the same in the remote machine's settings: code-server's extension
    // host is "remote", where machine-scoped settings such as holodeck.server.path come from
    // Machine/settings.json; from User/settings.json they were missed in some sessions. A
    // scenario's own settings go into its workspace's .vscode/settings.json (withSession).
    const all = JSON.stringify({ "holodeck.server.path": o.serverPath, ...BASE_SETTINGS }, null, 2);
    for (const scope of ["User", "Machine"]) {
      fs.mkdirSync(path.join(dirs.userData, scope), { recursive: true });
      fs.writeFileSync(path.join(dirs.userData, scope, "settings.json"), all);
    }

    const port = await freePort();
    host.url = `http://127.0.0.1:${port}/`;
    const csLog = fs.openSync(path.join(dirs.logs, "code-server.log"), "a");
    await timed("start_code_server", async () => {
      host.codeServer = spawn(csBin, [
        "--bind-addr", `127.0.0.1:${port}`, "--auth", "none",
        "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
        "--disable-getting-started-override", "--ignore-last-opened",
        ...csCommon,
      ], { env, stdio: ["ignore", csLog, csLog], detached: true });
      await waitHttp(`${host.url}healthz`, o.timeoutMs, host.codeServer);
    });
    log(`code-server up on ${host.url} (pid ${host.codeServer.pid}, log ${path.join(dirs.logs, "code-server.log")})`);
    host.browser = await timed("start_chromium", async () => chromium.launch({
      executablePath: o.chromium,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"],
      // vscode_host.mjs stops code-server and the browser itself on a signal
      handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
    }));
    return host;
  } catch (e) {
    await host.stop();
    throw e;
  }
}

/** The host shared by every scenario of this process (vscode_host.mjs sets it), or null: each
 * withSession then starts and stops its own. */
let sharedHost = null;
export function shareHost(host) { sharedHost = host; }

/**
 * Run `body(ctx)` in a new VS Code window (its own browser context: no state from another
 * scenario) on the sample copied to `ctx.dirs.workspace` (after `prepare(workspaceDir)` changed
 * the copy), against the shared host or, run by hand, a host of its own. `settings` go into the
 * workspace's .vscode/settings.json (the host's user settings are BASE_SETTINGS and
 * `holodeck.server.path`). ctx: { page, dirs, shot(name), runCommand(label), scratch, prepared }.
 * Cleans up; the scratch folder is kept on failure or --keep.
 */
export async function withSession(o, { prefix = "holodeck-e2e-", sample = "financial-assistant", prepare = () => {}, settings = {} }, body) {
  resetClock();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const dirs = {
    logs: path.join(scratch, "logs"),
    shots: path.join(scratch, "screenshots"),
    workspace: path.join(scratch, "workspace", sample),
  };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  log(`scratch folder: ${scratch}`);

  const own = sharedHost === null;
  let host = sharedHost; let context; let ok = false;
  let outputLogsBefore = new Set();
  try {
    // workspace: a copy of the sample (sample/ itself is never touched)
    // without the sample's own state (.holodeck/: runs a developer made there, the last run)
    fs.cpSync(path.join(REPO, "sample", sample), dirs.workspace, {
      recursive: true,
      filter: (from) => path.basename(from) !== ".holodeck",
    });
    const prepared = await prepare(dirs.workspace);
    if (Object.keys(settings).length) {
      fs.mkdirSync(path.join(dirs.workspace, ".vscode"), { recursive: true });
      fs.writeFileSync(path.join(dirs.workspace, ".vscode", "settings.json"), JSON.stringify(settings, null, 2));
    }
    if (own) host = await startHost(o);
    dirs.userData = host.dirs.userData;
    outputLogsBefore = new Set(findFiles(host.dirs.userData, /^HoloDeck.*\.log$/));

    context = await host.browser.newContext({ viewport: { width: o.width, height: o.height }, deviceScaleFactor: 1 });
    const page = await context.newPage();
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
    const runCommand = async (label) => {
      await page.keyboard.press("F1");
      const input = page.locator(".quick-input-widget input");
      await input.waitFor();
      await input.fill(`>${label}`);
      await page.locator(".quick-input-widget .monaco-list-row", { hasText: label }).first().waitFor();
      await page.keyboard.press("Enter");
    };

    await timed("workbench_load", async () => {
      await page.goto(`${host.url}?folder=${encodeURIComponent(dirs.workspace)}`);
      await page.locator(".monaco-workbench").waitFor();
      await page.locator(".explorer-folders-view .monaco-list-row").first().waitFor();
    });
    log("workbench loaded");

    try {
      await body({ page, dirs, shot, runCommand, scratch, prepared });
    } catch (e) {
      await shot("failure").catch(() => {});
      throw e;
    }
    ok = true;
  } finally {
    // the window closed: VS Code ends its extension host, which stops holodeck-lsp
    if (context) await context.close().catch(() => {});
    if (own && host) await host.stop();
    if (host) {
      for (const f of ["code-server.log", "install-extension.log"]) {
        const from = path.join(host.logs, f);
        if (fs.existsSync(from)) fs.copyFileSync(from, path.join(dirs.logs, f));
      }
      // the extension's "HoloDeck" output channel (server start, errors) of this window
      const hoLogs = findFiles(host.dirs.userData, /^HoloDeck.*\.log$/).filter((f) => !outputLogsBefore.has(f));
      hoLogs.forEach((f, i) => fs.copyFileSync(f, path.join(dirs.logs, `HoloDeck-output${i ? `-${i}` : ""}.log`)));
      if (own && ok && !o.keep) fs.rmSync(host.dirs.root, { recursive: true, force: true });
    }
    log(`timings (s): ${JSON.stringify(timings)}`);
    if (o.artifacts) {
      // screenshots and logs, pass or fail, where CI keeps them (one folder per script)
      const into = path.join(o.artifacts, prefix.replace(/-+$/, ""));
      fs.mkdirSync(into, { recursive: true });
      for (const d of ["shots", "logs"]) fs.cpSync(dirs[d], path.join(into, path.basename(dirs[d])), { recursive: true });
      log(`artifacts: ${into}`);
    }
    log(`logs (code-server, browser console, install-extension, HoloDeck output channel): ${dirs.logs}`);
    if (ok && !o.keep) {
      log(`screenshots: ${dirs.shots} (scratch folder removed except screenshots and logs; pass --keep to keep all)`);
      fs.rmSync(path.join(scratch, "workspace"), { recursive: true, force: true });
    } else {
      log(`scratch folder kept: ${scratch}`);
    }
  }
}

/** True when `moduleUrl` is the script node was started with (not imported by vscode_host.mjs). */
export function isMain(moduleUrl) {
  return process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}

/** Open `name` from the Explorer and wait for its text. */
export async function openFromExplorer(page, name, hasText) {
  await page.locator(`.explorer-folders-view .monaco-list-row[aria-label*="${name}"]`).first().click();
  await page.locator(".editor-instance .monaco-editor .view-lines", { hasText }).first().waitFor();
}

/** Fail an end-to-end check: the scripts print it and exit 1 (the scratch folder is kept). */
export function fail(msg) { throw new Error(`ASSERTION FAILED: ${msg}`); }

/**
 * Replay `cassette` (relative to the workspace) through `holodeck-lsp run` and return what each
 * turn of agent.yaml gives: [{ name, index, line, turns: [{ passed, line }] }] (lines 1-based:
 * the case's `- name:` line, each turn's `- input:` line). The scripts choose the turns they
 * run in the editor from this, so they never depend on which turns a recording got wrong.
 */
export function replayVerdicts(serverPath, workspace, cassette) {
  const report = path.join(workspace, "..", "replay-report.json");
  const r = spawnSync(serverPath, ["run", path.join(workspace, "agent.yaml"), "--replay", path.join(workspace, cassette), "--report-json", report, "--quiet"], { encoding: "utf8" });
  if (r.status !== 0 && r.status !== 1) throw new Error(`holodeck-lsp run --replay failed (exit ${r.status}): ${r.stdout}${r.stderr}`);
  const results = JSON.parse(fs.readFileSync(report, "utf8")).results;
  const lines = fs.readFileSync(path.join(workspace, "agent.yaml"), "utf8").split("\n");
  const suite = lines.indexOf("test_cases:");
  const caseLines = lines.flatMap((l, i) => (i > suite && /^  - /.test(l) ? [i + 1] : []));
  return results.map((c, index) => {
    const from = caseLines[index]; const to = caseLines[index + 1] ?? lines.length + 1;
    const turnLines = [];
    for (let i = from; i < to - 1; i++) if (/^\s+- input: /.test(lines[i])) turnLines.push(i + 1);
    return { name: c.test_name, index, line: from, turns: c.turns.map((t, k) => ({ passed: t.passed, line: turnLines[k], response: t.response })) };
  });
}

/** Go to Line (Ctrl+G) `line`:`column` in the active editor (1-based). */
export async function goToLine(page, line, column = 1) {
  await page.keyboard.press("Control+g");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor();
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press("Enter");
  await page.waitForTimeout(300);
}

/** The code lens titled `title` drawn just above `line` (1-based) of `editor`; waits for the
 * server's lenses to be drawn (up to `timeoutMs`). */
export async function lensAbove(editor, line, title, timeoutMs = 30000) {
  const number = editor.locator(".margin-view-overlays .line-numbers", { hasText: new RegExp(`^${line}$`) }).first();
  await number.waitFor();
  const lenses = editor.locator(".codelens-decoration a", { hasText: title });
  const end = Date.now() + timeoutMs;
  for (;;) {
    const at = await number.boundingBox();
    let best = null; let bestGap = Infinity;
    for (let i = 0; i < await lenses.count(); i++) {
      const box = await lenses.nth(i).boundingBox();
      const gap = box && at ? at.y - box.y : -1;
      if (gap > 0 && gap < 3 * at.height && gap < bestGap) { best = lenses.nth(i); bestGap = gap; }
    }
    if (best !== null) return best;
    if (Date.now() > end) fail(`no "${title}" code lens above line ${line} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The Testing view's rows: text (label, then the duration once run) and state icons. */
export async function testingRows(page) {
  return page.locator(".test-explorer .monaco-list-row").evaluateAll((els) => els.map((e) => ({
    text: e.textContent,
    icons: [...e.querySelectorAll(".codicon")].map((c) => [...c.classList].filter((k) => k.startsWith("codicon-testing")).join(" ")).filter(Boolean),
  })));
}

/** The row of turn `n` ("turn 1" + "1.0ms" once run reads "turn 11.0ms"). */
export function turnRow(rows, n) {
  // "turn 1: <the turn's input, truncated>" (plus a duration after a run), or "turn 1" alone.
  return rows.find((r) => new RegExp(`^turn ${n}(: .*|(\\d+(\\.\\d+)?m?s)?)$`).test(r.text ?? ""));
}

/** Copy a screenshot to --out, if given (the repository's images are made this way). */
export function copyOut(o, file) {
  if (!o.out) return;
  fs.mkdirSync(path.dirname(o.out), { recursive: true });
  fs.copyFileSync(file, o.out);
  log(`copied ${file} -> ${o.out}`);
}
