// Entry point: wires the real `vscode` API to the logic modules. Owns the client's life
// cycle (start, restart on trust grant / relevant setting changes / interpreter change),
// the status bar item, the gutter icons and the commands.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as vscode from "vscode";
import { State, type LanguageClient } from "vscode-languageclient/node";
import { cancelMessage } from "./cancelRun";
import { createClient } from "./client";
import { GutterDecorations } from "./gutterDecorations";
import { GutterState } from "./gutterState";
import {
  RUN_RESULT_NOTIFICATION,
  ServerCommands,
  type CompareResponse,
  type LastReportResponse,
  type LspRange,
  type RunResultParams,
} from "./protocol";
import { onInterpreterChanged, selectedPython } from "./python";
import type { StepSummary } from "./runSession";
import { findOnPath, resolveServerCommand, type Resolution } from "./serverCommand";
import { comparisonMarkdown, comparisonSummary, comparisonTitle } from "./compareView";
import { pagePolicy, panelTitle, parseReveal, revealRange, type LastReportHtmlResponse } from "./reportView";
import { readSettings, type HolodeckSettings } from "./settings";
import { itemCounts } from "./simulatedItems";
import { statusText, type LastRun, type ServerState } from "./statusText";
import { HolodeckTesting } from "./testing";
import { effectiveTrust } from "./trust";

/** Settings whose change needs a new server process (selector, command, trust). */
const RESTART_SETTINGS = ["holodeck.server.path", "holodeck.trustOverride", "holodeck.agentGlobs"];

function settings(): HolodeckSettings {
  const config = vscode.workspace.getConfiguration("holodeck");
  return readSettings((key) => config.get(key));
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function canImport(python: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(python, ["-c", "import holodeck_lsp"], { timeout: 10_000 }, (error) => resolve(error === null));
  });
}

class Extension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private state: ServerState = "stopped";
  private lastRun: LastRun | undefined;
  private readonly output = vscode.window.createOutputChannel("HoloDeck", { log: true });
  private readonly status = vscode.window.createStatusBarItem("holodeck.status", vscode.StatusBarAlignment.Left, 10);
  private readonly gutter = new GutterState();
  private readonly decorations: GutterDecorations;
  private readonly testing: HolodeckTesting;
  private readonly disposables: vscode.Disposable[] = [];
  private startGeneration = 0;
  /** One "Open Run Report" panel per document, re-drawn when asked again. */
  private readonly reportPanels = new Map<string, vscode.WebviewPanel>();

  constructor(private readonly context: vscode.ExtensionContext) {
    this.decorations = new GutterDecorations(context.extensionUri);
    this.status.name = "HoloDeck";
    this.status.command = "holodeck.showOutput";
    this.testing = new HolodeckTesting({
      request: (method, params) => (this.client?.state === State.Running ? this.client.sendRequest(method, params) : undefined),
      trusted: () => this.trusted(),
      debounceMs: () => settings().debounceMs,
      agentGlobs: () => settings().agentGlobs,
      onRunFinished: (label, summaries) => this.runFinished(label, summaries),
      onDiscovery: () => this.redraw(),
    });
    this.disposables.push(
      this.output,
      this.status,
      this.decorations,
      this.testing,
      vscode.commands.registerCommand("holodeck.restartServer", () => this.restart()),
      vscode.commands.registerCommand("holodeck.showOutput", () => this.output.show(true)),
      vscode.commands.registerCommand("holodeck.openLastReport", (uri?: vscode.Uri) => this.openLastReport(uri)),
      vscode.commands.registerCommand("holodeck.openRunReport", (uri?: vscode.Uri) => this.openRunReport(uri)),
      vscode.commands.registerCommand("holodeck.openComparison", (uri?: vscode.Uri) => this.compareWithBaseline(uri)),
      vscode.commands.registerCommand("holodeck.cancelActiveRun", (uri?: vscode.Uri) => this.cancelRun(uri)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        // The server takes trust at start only (initializationOptions): start a new one.
        this.output.appendLine("Workspace trusted: restarting holodeck-lsp with runs enabled.");
        void this.restart();
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (RESTART_SETTINGS.some((key) => event.affectsConfiguration(key))) void this.restart();
      }),
      vscode.workspace.onDidChangeTextDocument((event) => this.edited(event)),
      vscode.workspace.onDidCloseTextDocument((document) => this.gutter.clear(document.uri.toString())),
      vscode.window.onDidChangeVisibleTextEditors(() => this.redraw()),
    );
    void onInterpreterChanged(() => {
      if (settings().serverPath === undefined) void this.restart();
    }).then((disposable) => {
      if (disposable !== undefined) this.disposables.push(disposable);
    });
    this.render();
    this.status.show();
  }

  trusted(): boolean {
    return effectiveTrust(settings().trustOverride, vscode.workspace.isTrusted);
  }

  async start(): Promise<void> {
    const generation = ++this.startGeneration;
    this.setState("starting");
    const current = settings();
    const resource = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    const pythonPath = current.serverPath === undefined ? await selectedPython(resource) : undefined;
    const resolution: Resolution = await resolveServerCommand({
      configuredPath: current.serverPath,
      pythonPath,
      platform: process.platform,
      homeDir: os.homedir(),
      isFile,
      which: (name) => findOnPath(name, process.env.PATH, isFile),
      canImport,
    });
    if (generation !== this.startGeneration) return; // a newer start (restart) took over
    if (!resolution.found) {
      this.setState("notFound");
      this.output.appendLine(resolution.message);
      void this.notFound(resolution.message, resolution.installCommand, resolution.fix);
      return;
    }
    const trusted = this.trusted();
    this.output.appendLine(
      `Starting ${[resolution.command, ...resolution.args].join(" ")} (from ${resolution.source}; workspace ${trusted ? "trusted" : "untrusted"})`,
    );
    const client = createClient({
      server: resolution,
      settings,
      trusted,
      outputChannel: this.output,
      explainUntrusted: (reason) => void this.explainUntrusted(reason),
    });
    this.client = client;
    client.onDidChangeState((event) => {
      if (this.client !== client) return;
      this.setState(event.newState === State.Running ? "running" : event.newState === State.Starting ? "starting" : "stopped");
    });
    client.onNotification(RUN_RESULT_NOTIFICATION, (params: RunResultParams) => this.runResult(params));
    try {
      await client.start();
    } catch (error) {
      if (this.client === client) this.setState("failed");
      this.output.appendLine(`holodeck-lsp failed to start: ${String(error)}`);
      void vscode.window.showErrorMessage(`HoloDeck: holodeck-lsp failed to start (${resolution.command}). See the HoloDeck output.`);
      return;
    }
    this.testing.refreshOpen();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    try {
      await client.stop(5000);
    } catch (error) {
      this.output.appendLine(`Stopping holodeck-lsp: ${String(error)}`);
    }
    try {
      await client.dispose();
    } catch {
      // already stopped
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  private async notFound(message: string, installCommand: string, fix: "setting" | "install"): Promise<void> {
    const copy = "Copy install command";
    const configure = "Open settings";
    // The fix the message names first is the first button.
    const choices = fix === "setting" ? [configure, copy] : [copy, configure];
    const choice = await vscode.window.showWarningMessage(`HoloDeck: ${message}`, ...choices);
    if (choice === copy) {
      await vscode.env.clipboard.writeText(installCommand);
    } else if (choice === configure) {
      await vscode.commands.executeCommand("workbench.action.openSettings", "holodeck.server.path");
    }
  }

  private async explainUntrusted(reason: string): Promise<void> {
    const manage = "Manage Workspace Trust";
    if ((await vscode.window.showWarningMessage(`HoloDeck: ${reason}`, manage)) === manage) {
      await vscode.commands.executeCommand("workbench.trust.manage");
    }
  }

  private runResult(params: RunResultParams): void {
    this.gutter.record(params);
    this.redraw();
    // A re-grade while typing is a preview, shown in the file (hints, gutter, information
    // diagnostics): it is not a run, so neither the Testing view nor the status bar reports it.
    if (params.quiet === true) return;
    void this.testing.showExternalResult(params);
    // Items, as the Testing view counts them (see runSession.reportCase).
    const { passed, failed } = itemCounts(params.result);
    this.lastRun = {
      label: `${params.result.test_name ?? `test_cases[${params.caseIndex}]`}${params.regraded ? ", re-graded" : ""}`,
      passed,
      failed,
      status: "done",
    };
    this.render();
  }

  private runFinished(label: string, summaries: StepSummary[]): void {
    const refused = summaries.find((s) => s.status === "refused");
    const passed = summaries.reduce((n, s) => n + s.passed, 0);
    const failed = summaries.reduce((n, s) => n + s.failed, 0);
    this.lastRun =
      refused !== undefined && passed + failed === 0
        ? { label, passed, failed, status: "refused", reason: refused.reason ?? "" }
        : { label, passed, failed, status: summaries.some((s) => s.status === "cancelled") ? "cancelled" : "done" };
    this.render();
  }

  private edited(event: vscode.TextDocumentChangeEvent): void {
    const uri = event.document.uri.toString();
    const changes: LspRange[] = event.contentChanges.map((c) => ({
      start: { line: c.range.start.line, character: c.range.start.character },
      end: { line: c.range.end.line, character: c.range.end.character },
    }));
    if (this.gutter.edited(uri, this.testing.discoveries.get(uri), changes)) this.redraw();
  }

  private redraw(): void {
    this.decorations.apply(this.gutter, (uri) => this.testing.discoveries.get(uri));
  }

  /** The document a report command is about (the one given, else the active editor's) when
   * the server can be asked; otherwise says why not and returns undefined. */
  private documentToAsk(given: vscode.Uri | undefined, noDocument: string): vscode.Uri | undefined {
    const uri = given instanceof vscode.Uri ? given : vscode.window.activeTextEditor?.document.uri;
    if (uri === undefined) {
      void vscode.window.showInformationMessage(noDocument);
      return undefined;
    }
    if (this.client?.state !== State.Running) {
      void vscode.window.showWarningMessage("HoloDeck: holodeck-lsp is not running.");
      return undefined;
    }
    return uri;
  }

  private async openLastReport(given?: vscode.Uri): Promise<void> {
    const uri = this.documentToAsk(given, "HoloDeck: open an agent file to see its last run report.");
    if (uri === undefined || this.client === undefined) return;
    const answer = (await this.client.sendRequest("workspace/executeCommand", {
      command: ServerCommands.lastRunReport,
      arguments: [uri.toString()],
    })) as LastReportResponse | null;
    if (answer === null || answer.status !== "done") {
      void vscode.window.showInformationMessage(`HoloDeck: no report — ${answer?.reason ?? "no answer from holodeck-lsp"}.`);
      return;
    }
    // A file in the extension's storage (not an untitled document): no "save changes?" prompt.
    const folder = this.context.storageUri ?? this.context.globalStorageUri;
    await vscode.workspace.fs.createDirectory(folder);
    const name = uri.path.split("/").pop() ?? "agent.yaml";
    const report = vscode.Uri.joinPath(folder, `last-run-${name}.md`);
    await vscode.workspace.fs.writeFile(report, new TextEncoder().encode(answer.markdown));
    await vscode.commands.executeCommand("markdown.showPreview", report);
  }

  /** "HoloDeck: Cancel Run": stop the run of the active file (or the one given), whoever
   * started it — a code lens, the palette, the Testing view — through the server's
   * `holodeck.cancelRun`; the run then ends as cancelled (turns not answered are skipped). */
  private async cancelRun(given?: vscode.Uri): Promise<void> {
    const uri = this.documentToAsk(given, "HoloDeck: open the agent file whose run to cancel.");
    if (uri === undefined || this.client === undefined) return;
    let answer: unknown;
    try {
      answer = await this.client.sendRequest("workspace/executeCommand", {
        command: ServerCommands.cancelRun,
        arguments: [uri.toString()],
      });
    } catch (error) {
      this.output.appendLine(`holodeck.cancelRun failed: ${String(error)}`);
      answer = undefined;
    }
    const message = cancelMessage(answer);
    if (message.kind === "info") void vscode.window.showInformationMessage(message.text);
    else void vscode.window.showWarningMessage(message.text);
  }

  /** "HoloDeck: Open Run Report": the last run's HTML page in a webview; a click on a turn
   * reveals it in the file. */
  private async openRunReport(given?: vscode.Uri): Promise<void> {
    const uri = this.documentToAsk(given, "HoloDeck: open an agent file to see its last run report.");
    if (uri === undefined || this.client === undefined) return;
    const key = uri.toString();
    const answer = (await this.client.sendRequest("workspace/executeCommand", {
      command: ServerCommands.lastRunReport,
      arguments: [key, { format: "html" }],
    })) as LastReportHtmlResponse | null;
    if (answer === null || answer.status !== "done" || typeof answer.html !== "string") {
      const reason = answer !== null && answer.status !== "done" ? answer.reason : "no answer from holodeck-lsp";
      void vscode.window.showInformationMessage(`HoloDeck: no report — ${reason}.`);
      return;
    }
    if (pagePolicy(answer.html) === undefined) {
      // The page must bring its own locked-down policy: a webview runs its scripts.
      void vscode.window.showErrorMessage("HoloDeck: the report page has no safe Content Security Policy; not shown. Update holodeck-lsp.");
      return;
    }
    let panel = this.reportPanels.get(key);
    if (panel === undefined) {
      panel = vscode.window.createWebviewPanel("holodeck.runReport", panelTitle(key), vscode.ViewColumn.Beside, {
        enableScripts: true,
        localResourceRoots: [],
      });
      const opened = panel;
      this.reportPanels.set(key, opened);
      opened.onDidDispose(() => {
        if (this.reportPanels.get(key) === opened) this.reportPanels.delete(key);
      });
      opened.webview.onDidReceiveMessage((message: unknown) => void this.revealFromReport(uri, message));
    } else {
      panel.reveal(vscode.ViewColumn.Beside);
    }
    panel.webview.html = answer.html;
  }

  /** "HoloDeck: Compare with Baseline": the server's Markdown comparison in a preview, with
   * "Open as page" offering the run report page with the baseline marked. */
  private async compareWithBaseline(given?: vscode.Uri): Promise<void> {
    const uri = this.documentToAsk(given, "HoloDeck: open an agent file to compare its runs.");
    if (uri === undefined || this.client === undefined) return;
    const answer = (await this.client.sendRequest("workspace/executeCommand", {
      command: ServerCommands.compareWithBaseline,
      arguments: [uri.toString()],
    })) as CompareResponse | null;
    const markdown = comparisonMarkdown(answer);
    if (markdown === undefined) {
      const reason = answer !== null && answer.status !== "done" ? answer.reason : "no answer from holodeck-lsp";
      void vscode.window.showInformationMessage(`HoloDeck: nothing to compare — ${reason}.`);
      return;
    }
    const folder = this.context.storageUri ?? this.context.globalStorageUri;
    await vscode.workspace.fs.createDirectory(folder);
    const name = uri.path.split("/").pop() ?? "agent.yaml";
    const file = vscode.Uri.joinPath(folder, `compare-${name}.md`);
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(markdown));
    await vscode.commands.executeCommand("markdown.showPreview", file);
    const page = "Open as page";
    if ((await vscode.window.showInformationMessage(comparisonSummary(answer), page)) === page) {
      await this.openComparisonPage(uri);
    }
  }

  private async openComparisonPage(uri: vscode.Uri): Promise<void> {
    const answer = (await this.client?.sendRequest("workspace/executeCommand", {
      command: ServerCommands.compareWithBaseline,
      arguments: [uri.toString(), { format: "html" }],
    })) as CompareResponse | null | undefined;
    const html = answer?.status === "done" ? answer.html : undefined;
    if (typeof html !== "string" || pagePolicy(html) === undefined) {
      void vscode.window.showErrorMessage("HoloDeck: the comparison page could not be shown (no page, or no safe Content Security Policy).");
      return;
    }
    const panel = vscode.window.createWebviewPanel("holodeck.comparison", comparisonTitle(uri.toString()), vscode.ViewColumn.Beside, {
      enableScripts: true,
      localResourceRoots: [],
    });
    panel.webview.onDidReceiveMessage((message: unknown) => void this.revealFromReport(uri, message));
    panel.webview.html = html;
  }

  private async revealFromReport(uri: vscode.Uri, message: unknown): Promise<void> {
    const reveal = parseReveal(message);
    if (reveal === undefined) return;
    const range = revealRange(reveal, this.testing.discoveries.get(uri.toString()));
    if (range === undefined) return;
    const at = new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
    const editor = await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.One, selection: at });
    editor.revealRange(at, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private setState(state: ServerState): void {
    this.state = state;
    this.render();
  }

  private render(): void {
    const { text, tooltip } = statusText(this.state, this.trusted(), this.lastRun);
    this.status.text = text;
    this.status.tooltip = tooltip;
  }

  async dispose(): Promise<void> {
    for (const panel of [...this.reportPanels.values()]) panel.dispose();
    await this.stop();
    for (const disposable of this.disposables) disposable.dispose();
  }
}

let extension: Extension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extension = new Extension(context);
  context.subscriptions.push({ dispose: () => void extension?.dispose() });
  await extension.start();
}

export async function deactivate(): Promise<void> {
  const current = extension;
  extension = undefined;
  await current?.dispose();
}
