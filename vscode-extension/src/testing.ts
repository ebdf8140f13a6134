// The Testing view: a TestController fed by `holodeck/discoverTests` (on open, and debounced
// on edit), a Run profile that calls the server's run commands, results reported through
// RunSession, cancellation forwarded as `holodeck.cancelRun`, and outdated marking of turns
// edited after their run. The logic lives in testTree / runPlan / runSession / editTracking.
import * as vscode from "vscode";
import { KeyedDebouncer } from "./debounce";
import { invalidateEditedTurns } from "./editTracking";
import { externalResult, OwnRuns } from "./externalRuns";
import { DISCOVER_TESTS, ServerCommands, type Discovery, type LspRange, type RunResultParams } from "./protocol";
import type { MessageSpec } from "./resultMessages";
import { planRun, type RunStep } from "./runPlan";
import { RunSession, type RunSink, type StepSummary } from "./runSession";
import { generatedItems, type GeneratedItems } from "./simulatedItems";
import { fileId, idOf, parseTestId, type TestRef } from "./testIds";
import { syncFileItem, type TreeFactory } from "./testTree";
import { UNTRUSTED_RUN_REASON } from "./trust";

export interface TestingHost {
  /** The running client's request function, or undefined while the server is down. */
  request(method: string, params: unknown): Promise<unknown> | undefined;
  trusted(): boolean;
  debounceMs(): number;
  agentGlobs(): string[];
  onRunFinished(label: string, summary: StepSummary[]): void;
  onDiscovery(uri: string): void;
}

function toRange(range: LspRange): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

export class HolodeckTesting implements vscode.Disposable {
  readonly controller = vscode.tests.createTestController("holodeck", "HoloDeck");
  readonly discoveries = new Map<string, Discovery>();
  private readonly debouncer: KeyedDebouncer;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly factory: TreeFactory<vscode.TestItem, vscode.Range>;
  private readonly ownRuns = new OwnRuns();
  /** A simulated case's generated items: children of its case item, after its scripted turns. */
  private readonly generated: GeneratedItems;

  constructor(private readonly host: TestingHost) {
    // Discovery waits for the server's own debounce and parse: never ask sooner than that.
    this.debouncer = new KeyedDebouncer(() => Math.max(150, host.debounceMs() * 2));
    this.factory = {
      createItem: (id, label, uri) => this.controller.createTestItem(id, label, vscode.Uri.parse(uri)),
      toRange,
      children: (item) => item.children,
    };
    this.generated = generatedItems(
      this.factory,
      (ref) => this.findItem(ref),
      (uri, caseIndex) => this.discoveries.get(uri)?.cases.find((found) => found.index === caseIndex)?.simulatedRange,
    );
    this.controller.resolveHandler = async (item) => {
      if (item === undefined) await this.findFiles();
      else await this.refreshUri(item.uri ?? vscode.Uri.parse(item.id), true);
    };
    this.controller.createRunProfile(
      "Run",
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token),
      true,
    );
    this.disposables.push(
      this.controller,
      // Not at once: the language client sends its didOpen after this event, and a server
      // asked about a document it has not seen yet has nothing to discover.
      vscode.workspace.onDidOpenTextDocument((document) =>
        this.debouncer.schedule(document.uri.toString(), () => void this.refresh(document)),
      ),
      vscode.workspace.onDidChangeTextDocument((event) => this.changed(event)),
    );
  }

  /** Discover the documents already open (on start and after a restart). */
  refreshOpen(): void {
    for (const document of vscode.workspace.textDocuments) void this.refresh(document);
  }

  private changed(event: vscode.TextDocumentChangeEvent): void {
    const uri = event.document.uri.toString();
    const discovery = this.discoveries.get(uri);
    if (discovery === undefined && !this.controller.items.get(fileId(uri))) return;
    const changes: LspRange[] = event.contentChanges.map((c) => ({
      start: { line: c.range.start.line, character: c.range.start.character },
      end: { line: c.range.end.line, character: c.range.end.character },
    }));
    // A turn edited after its run: its result no longer describes the text.
    invalidateEditedTurns(this.controller, discovery, changes, (id) => this.findItem(parseTestId(id)));
    // A generated conversation belongs to the text it was run on (and cases are known by
    // index, which an edit may shift): an edit drops the document's generated items.
    if (changes.length > 0) this.generated.clear({ kind: "file", uri });
    this.debouncer.schedule(uri, () => void this.refresh(event.document));
  }

  private async refresh(document: vscode.TextDocument): Promise<void> {
    if (document.uri.scheme !== "file" || document.languageId !== "yaml") return;
    await this.refreshUri(document.uri, false);
  }

  private async refreshUri(uri: vscode.Uri, openFirst: boolean): Promise<void> {
    if (openFirst) {
      // The server discovers open documents only: opening one (without showing it) sends didOpen.
      await vscode.workspace.openTextDocument(uri);
    }
    const pending = this.host.request(DISCOVER_TESTS, { uri: uri.toString() });
    if (pending === undefined) return;
    let discovery: Discovery | null;
    try {
      discovery = (await pending) as Discovery | null;
    } catch {
      return; // the server went away mid-request; the restart re-discovers
    }
    const key = uri.toString();
    let file = this.controller.items.get(fileId(key));
    if (discovery === null) {
      // Not an agent, or YAML that does not parse while being typed: keep what we had.
      if (file !== undefined && file.children.size === 0) file.canResolveChildren = false;
      return;
    }
    this.discoveries.set(key, discovery);
    if (file === undefined) {
      file = this.controller.createTestItem(fileId(key), vscode.workspace.asRelativePath(uri), uri);
      this.controller.items.add(file);
    }
    syncFileItem(this.factory, file, discovery);
    this.host.onDiscovery(key);
  }

  private async findFiles(): Promise<void> {
    const patterns = this.host.agentGlobs().map((g) => (g.startsWith("**/") ? g : `**/${g}`));
    const found = await vscode.workspace.findFiles(`{${patterns.join(",")}}`, "**/node_modules/**", 500);
    for (const uri of found) {
      if (this.controller.items.get(fileId(uri.toString())) !== undefined) continue;
      const item = this.controller.createTestItem(fileId(uri.toString()), vscode.workspace.asRelativePath(uri), uri);
      item.canResolveChildren = true;
      this.controller.items.add(item);
    }
  }

  private findItem(ref: TestRef): vscode.TestItem | undefined {
    const file = this.controller.items.get(fileId(ref.uri));
    if (file === undefined || ref.kind === "file") return file;
    const found = file.children.get(idOf({ kind: "case", uri: ref.uri, caseIndex: ref.caseIndex }));
    return found === undefined || ref.kind === "case" ? found : found.children.get(idOf(ref));
  }

  private childrenOf(ref: TestRef): TestRef[] {
    const item = this.findItem(ref);
    const out: TestRef[] = [];
    item?.children.forEach((child) => {
      out.push(parseTestId(child.id));
    });
    return out;
  }

  private turnsUnder(ref: TestRef): TestRef[] {
    if (ref.kind === "turn") return [ref];
    return this.childrenOf(ref).flatMap((child) => this.turnsUnder(child));
  }

  // No `location` on the messages: VS Code draws a located failure message at the end of its
  // line, over the server's inlay hint on that same `input:` line. The hint stays (it is in
  // every editor, shows passes too and follows re-grades; the `holodeck-run` diagnostic
  // marks the failing line); the message, with its expected/actual diff, is in Test Results
  // and the test's peek, reached from the Testing view.
  private message(spec: MessageSpec): vscode.TestMessage {
    return spec.kind === "diff"
      ? vscode.TestMessage.diff(spec.text, spec.expected, spec.actual)
      : new vscode.TestMessage(spec.text);
  }

  private session(run: vscode.TestRun): RunSession<vscode.TestItem> {
    const sink: RunSink<vscode.TestItem> = {
      started: (item) => run.started(item),
      passed: (item, ms) => run.passed(item, ms),
      failed: (item, specs, ms) => run.failed(item, specs.map((s) => this.message(s)), ms),
      errored: (item, specs, ms) => run.errored(item, specs.map((s) => this.message(s)), ms),
      skipped: (item) => run.skipped(item),
      output: (text, item) => run.appendOutput(text, undefined, item),
    };
    return new RunSession(sink, {
      item: (ref) => this.findItem(ref),
      turnsUnder: (ref) => this.turnsUnder(ref),
      generated: this.generated,
    });
  }

  /** A result of a run started outside the Testing view (code lens, re-grade): show it there too. */
  async showExternalResult(params: RunResultParams): Promise<void> {
    if (this.ownRuns.has(params.uri)) return; // the Testing view's own run reports it
    const { step, response, name } = externalResult(params);
    let item = this.findItem(step.ref);
    if (item === undefined) {
      await this.refreshUri(vscode.Uri.parse(params.uri), false); // ran before it was discovered
      item = this.findItem(step.ref);
    }
    if (item === undefined) return;
    const run = this.controller.createTestRun(new vscode.TestRunRequest([item]), name, true);
    const session = this.session(run);
    session.begin(step);
    session.finish(step, response);
    run.end();
    // A finished run changes what regressed against the baseline: discover the marks again.
    await this.refreshUri(vscode.Uri.parse(params.uri), false);
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request);
    const included: string[] = [];
    if (request.include !== undefined) for (const item of request.include) included.push(item.id);
    else this.controller.items.forEach((item) => void included.push(item.id));
    // Files found on disk but never opened have no children yet: discover them first.
    for (const id of included) {
      const item = this.findItem(parseTestId(id));
      if (item !== undefined && item.canResolveChildren && item.uri !== undefined) {
        await this.refreshUri(item.uri, true);
      }
    }
    const steps = planRun(included, (request.exclude ?? []).map((item) => item.id), (ref) => this.childrenOf(ref));
    const session = this.session(run);
    const summaries: StepSummary[] = [];
    let current: RunStep | undefined;
    const cancelling = token.onCancellationRequested(() => {
      if (current !== undefined) void this.host.request("workspace/executeCommand", { command: ServerCommands.cancelRun, arguments: [current.ref.uri] });
    });
    try {
      for (const step of steps) {
        if (!this.host.trusted()) {
          summaries.push(session.refuse(step, UNTRUSTED_RUN_REASON));
          continue;
        }
        if (token.isCancellationRequested) {
          summaries.push(session.finish(step, { status: "cancelled", summary: { total_tests: 0, passed: 0, failed: 0, pass_rate: 0 }, results: [] }));
          continue;
        }
        current = step;
        session.begin(step);
        // Run commands go straight to the server (not through vscode.commands) so the
        // answer, not a UI side effect, drives the Testing view.
        this.ownRuns.enter(step.ref.uri);
        const pending = this.host.request("workspace/executeCommand", { command: step.command, arguments: step.args });
        let response: unknown;
        try {
          response = pending === undefined ? { status: "refused", reason: "holodeck-lsp is not running" } : await pending;
        } catch (error) {
          response = { status: "refused", reason: `holodeck-lsp failed: ${String(error)}` };
        } finally {
          this.ownRuns.leave(step.ref.uri);
        }
        summaries.push(session.finish(step, response));
      }
    } finally {
      cancelling.dispose();
      run.end();
    }
    const label = steps.length === 1 && steps[0] !== undefined ? vscode.workspace.asRelativePath(vscode.Uri.parse(steps[0].ref.uri)) : `${steps.length} runs`;
    this.host.onRunFinished(label, summaries);
    // The runs changed what regressed against the baseline: discover the marks again.
    for (const uri of new Set(steps.map((step) => step.ref.uri))) await this.refreshUri(vscode.Uri.parse(uri), false);
  }

  dispose(): void {
    this.debouncer.dispose();
    for (const disposable of this.disposables) disposable.dispose();
  }
}
