// The logic modules against a real holodeck-lsp process over stdio (JSON-RPC from
// vscode-jsonrpc, which vscode-languageclient itself uses): discovery -> test tree, a
// replayed run -> RunSession outcomes (a passing turn, a ground-truth diff, a tool
// assertion's reason), the refusal while untrusted, the last report and cancel.
// The server comes from $HOLODECK_LSP (the pytest wrapper sets it to the venv's).
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node";
import { DISCOVER_TESTS, RUN_RESULT_NOTIFICATION, type Discovery, type RunResultParams } from "../src/protocol";
import { pagePolicy, parseReveal, revealRange } from "../src/reportView";
import { stepFor } from "../src/runPlan";
import { RunSession } from "../src/runSession";
import { caseId, fileId, idOf, parseTestId, turnId, type TestRef } from "../src/testIds";
import { syncFileItem } from "../src/testTree";
import { StubRun, StubTestItem, stubFactory } from "./vscode-stub";

const SERVER = process.env.HOLODECK_LSP;
const skip = SERVER ? false : "set HOLODECK_LSP to a holodeck-lsp executable to run the server tests";

const AGENT = `name: "calc"
model:
  provider: openai
  name: "gpt-4o-mini"
instructions:
  inline: "Answer with a number."
tools:
  - name: "add"
    type: function
    description: "Return a plus b."
    file: "tools.py"
    function: "add"
evaluations:
  metrics:
    - type: standard
      metric: numeric
test_cases:
  - name: "sums"
    turns:
      - input: "what is 2 + 2?"
        ground_truth: "4"
      - input: "and 3 + 3?"
        ground_truth: "7"
        expected_tools:
          - name: "add"
            args:
              a: 3
              b: 3
`;

const TOOLS = `def add(a: float, b: float) -> float:
    """Return a plus b."""
    return a + b
`;

function cassetteTurn(input: string, response: string, toolCalls: unknown[] = []) {
  return { input, response, tool_calls: toolCalls, token_usage: null, error: null, duration_ms: 5 };
}

const CASSETTE = {
  format: "holodeck-cassette",
  version: 1,
  agent: "calc",
  cases: [
    {
      name: "sums",
      index: 0,
      turns: [
        cassetteTurn("what is 2 + 2?", "4"),
        cassetteTurn("and 3 + 3?", "6", [{ name: "add", args: { a: 3, b: 4 }, result: 7, error: null }]),
      ],
    },
  ],
};

class Server {
  readonly notes: RunResultParams[] = [];
  private constructor(
    readonly process: ChildProcess,
    readonly connection: MessageConnection,
  ) {}

  static async start(folder: string, trusted: boolean): Promise<Server> {
    const child = spawn(SERVER as string, [], { cwd: folder, stdio: ["pipe", "pipe", "ignore"] });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const server = new Server(child, connection);
    connection.onNotification(RUN_RESULT_NOTIFICATION, (params: RunResultParams) => {
      server.notes.push(params);
    });
    connection.onNotification(() => undefined);
    connection.onRequest(() => null);
    connection.listen();
    await connection.sendRequest("initialize", {
      processId: process.pid,
      rootUri: pathToFileURL(folder).href,
      workspaceFolders: [{ uri: pathToFileURL(folder).href, name: "suite" }],
      capabilities: {},
      initializationOptions: { trusted, cassettePath: "calc.cassette.json" },
    });
    connection.sendNotification("initialized", {});
    return server;
  }

  open(uri: string, text: string): void {
    this.connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "yaml", version: 1, text } });
  }

  async discover(uri: string): Promise<Discovery | null> {
    // The server parses in the background: ask until the document is known.
    for (let i = 0; i < 100; i++) {
      const found = (await this.connection.sendRequest(DISCOVER_TESTS, { uri })) as Discovery | null;
      if (found !== null) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return null;
  }

  command(command: string, args: unknown[]): Promise<unknown> {
    return this.connection.sendRequest("workspace/executeCommand", { command, arguments: args });
  }

  async stop(): Promise<void> {
    // Shut down as a client does and wait for the process to end before closing the streams:
    // a write after they close is an unhandled error that fails the run.
    const exited = new Promise<void>((resolve) => {
      if (this.process.exitCode !== null) resolve();
      else this.process.once("exit", () => resolve());
    });
    try {
      await this.connection.sendRequest("shutdown");
      await this.connection.sendNotification("exit");
    } catch {
      // already gone
    }
    const timer = setTimeout(() => this.process.kill(), 5000);
    await exited;
    clearTimeout(timer);
    this.connection.dispose();
  }
}

let folder = "";
let uri = "";

before(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "holodeck-ext-"));
  fs.writeFileSync(path.join(folder, "agent.yaml"), AGENT);
  fs.writeFileSync(path.join(folder, "tools.py"), TOOLS);
  fs.writeFileSync(path.join(folder, "calc.cassette.json"), JSON.stringify(CASSETTE));
  uri = pathToFileURL(path.join(folder, "agent.yaml")).href;
});

after(() => {
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

function tree(discovery: Discovery) {
  const file = new StubTestItem(fileId(uri), "agent.yaml", uri);
  syncFileItem(stubFactory(), file, discovery);
  const find = (ref: TestRef): StubTestItem | undefined => {
    if (ref.kind === "file") return file;
    const found = file.children.get(caseId(ref.uri, ref.caseIndex));
    return ref.kind === "case" ? found : found?.children.get(idOf(ref));
  };
  const turnsUnder = (ref: TestRef): TestRef[] =>
    ref.kind === "turn" ? [ref] : (find(ref)?.children.all() ?? []).flatMap((child) => turnsUnder(parseTestId(child.id)));
  return { file, lookup: { item: find, turnsUnder } };
}

test("trusted: discovery, a replayed run mapped to outcomes, notifications and the report", { skip, timeout: 120_000 }, async () => {
  const server = await Server.start(folder, true);
  try {
    server.open(uri, AGENT);
    const discovery = await server.discover(uri);
    assert.ok(discovery, "discoverTests answered");
    const { file, lookup } = tree(discovery);
    assert.deepEqual(file.children.all().map((c) => c.label), ["sums"]);
    assert.equal(file.children.get(caseId(uri, 0))?.children.size, 2);

    const run = new StubRun();
    const session = new RunSession(run, lookup);
    const step = stepFor(parseTestId(fileId(uri)));
    session.begin(step);
    const response = await server.command(step.command, step.args);
    const summary = session.finish(step, response);
    assert.deepEqual(summary, { status: "done", passed: 1, failed: 1 }, JSON.stringify(response).slice(0, 2000));
    assert.equal(run.stateOf(turnId(uri, 0, 0)), "passed");
    const failed = run.events.find((e) => e.event === "failed" && e.id === turnId(uri, 0, 1));
    assert.ok(failed && failed.event === "failed", JSON.stringify(run.events));
    const diff = failed.messages.find((m) => m.kind === "diff");
    assert.ok(diff && diff.kind === "diff" && diff.expected === "7" && diff.actual === "6", JSON.stringify(failed.messages));
    assert.ok(
      failed.messages.some((m) => m.kind === "text" && m.text.startsWith("expected_tools add:")),
      JSON.stringify(failed.messages),
    );
    // A case item gets no state of its own: VS Code shows it with its turns' (so the Testing
    // view counts turns, as the status bar does).
    assert.equal(run.stateOf(caseId(uri, 0)), undefined);

    assert.ok(server.notes.some((n) => n.uri === uri && n.caseIndex === 0 && n.turn === null), "holodeck/runResult sent");
    const report = (await server.command("holodeck.lastRunReport", [uri])) as { status: string; markdown?: string };
    assert.equal(report.status, "done");
    assert.match(report.markdown ?? "", /calc/);
    assert.deepEqual(await server.command("holodeck.cancelRun", [uri]), { status: "idle" });
    // The HTML page for "Open Run Report": its own CSP is one the webview keeps, and the turns'
    // `loc` (what the page posts on a click) lands on the same line as the Testing view's.
    const page = (await server.command("holodeck.lastRunReport", [uri, { format: "html" }])) as { status: string; html: string };
    assert.equal(page.status, "done");
    assert.match(pagePolicy(page.html) ?? "", /^default-src 'none';.*script-src 'sha256-/);
    const data = JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page.html)?.[1] ?? "null");
    const turns = data.runs[0].cases[0].turns as Array<{ t: number; loc: [number, number] }>;
    for (const turn of turns) {
      const message = parseReveal({ type: "reveal", case: 0, turn: turn.t, loc: turn.loc });
      assert.ok(message);
      assert.deepEqual(revealRange(message, undefined), revealRange(message, discovery));
      assert.equal(turn.loc[0], discovery.cases[0].turns[turn.t].range.start.line);
    }

    // Run turn 1 only: the graded turn is reported, the context turn is not.
    const turnRun = new StubRun();
    const turnStep = stepFor(parseTestId(turnId(uri, 0, 1)));
    new RunSession(turnRun, lookup).finish(turnStep, await server.command(turnStep.command, turnStep.args));
    assert.deepEqual(
      turnRun.events.filter((e) => e.event !== "output").map((e) => [e.event, e.id]),
      [["failed", turnId(uri, 0, 1)]],
    );
  } finally {
    await server.stop();
  }
});

test("untrusted: the server refuses runs, and the session reports them errored", { skip, timeout: 60_000 }, async () => {
  const server = await Server.start(folder, false);
  try {
    server.open(uri, AGENT);
    const discovery = await server.discover(uri);
    assert.ok(discovery);
    const { lookup } = tree(discovery);
    const run = new StubRun();
    const step = stepFor(parseTestId(caseId(uri, 0)));
    const summary = new RunSession(run, lookup).finish(step, await server.command(step.command, step.args));
    assert.deepEqual(summary, { status: "refused", passed: 0, failed: 0, reason: "untrusted" });
    assert.equal(run.stateOf(turnId(uri, 0, 0)), "errored");
  } finally {
    await server.stop();
  }
});
