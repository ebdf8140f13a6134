// One code-server + Chromium host (session.mjs startHost) for many scenarios: the pytest
// tests (tests/e2e/vscode_host.py) start this once and send it one scenario at a time, each
// then run in its own workspace and window exactly as `node tests/e2e/<script> ARGS…` would
// run it alone. Saves each scenario the host's start-up: --install-extension, code-server,
// Chromium (see README.md, "One host for all the scenarios").
//
//   node tests/e2e/vscode_host.mjs [session.mjs options: --vsix, --code-server, --server-path,
//        --chromium, --timeout-ms, --keep]
//
// Its scratch folder (code-server's user data and extensions) is removed at the end unless
// --keep. Protocol, one JSON object per line: on stdout first {"ready": true} (or {"ready": false,
// "error"}), then for each request read from stdin, {"script": "vscode_e2e.mjs", "args":
// [...]}, the reply {"ok": bool, "output": "<the scenario's log and any error>"}. Log lines
// also go to stderr as they come. stdin closed, SIGTERM or SIGINT: the host stops and exits.
import fs from "node:fs";
import readline from "node:readline";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { HERE, parseArgs, setLogSink, shareHost, startHost } from "./session.mjs";

const say = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
const options = parseArgs(process.argv.slice(2), import.meta.url);
let host = null;
let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  if (host) {
    await host.stop();
    // its logs are in every scenario's logs/ already (withSession copies them)
    if (!options.keep) {
      try { fs.rmSync(host.dirs.root, { recursive: true, force: true, maxRetries: 5 }); } catch (e) { process.stderr.write(`[host] could not remove ${host.dirs.root}: ${e}\n`); }
    }
  }
  process.exit(code);
}
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => { void stop(1); });
// a promise a scenario left behind must not end the host (the scenario already failed or passed)
process.on("unhandledRejection", (e) => process.stderr.write(`[host] unhandled rejection: ${e?.stack ?? e}\n`));

setLogSink((line) => process.stderr.write(`${line}\n`));
try {
  host = await startHost(options);
  shareHost(host);
  say({ ready: true });
} catch (e) {
  say({ ready: false, error: String(e?.stack ?? e) });
  await stop(1);
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const { script, args } = JSON.parse(line);
  const output = [];
  setLogSink((l) => { output.push(l); process.stderr.write(`${l}\n`); });
  let ok = true;
  try {
    if (!/^[\w.-]+\.mjs$/.test(script)) throw new Error(`not a scenario script of tests/e2e: ${script}`);
    const scenario = await import(pathToFileURL(path.join(HERE, script)).href);
    await scenario.main(args);
  } catch (e) {
    ok = false;
    output.push(`[e2e] FAILED: ${e?.stack ?? e}`);
  }
  setLogSink((l) => process.stderr.write(`${l}\n`));
  say({ ok, output: output.join("\n") });
}
await stop(0);
