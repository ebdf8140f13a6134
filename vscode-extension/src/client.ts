// The LanguageClient for holodeck-lsp over stdio: document selector from the agent globs,
// settings pulled by the server (section `holodeck`, reshaped by serverSettings), trust in
// initializationOptions, and two middlewares — the inlay-hint switch and the trust gate on
// run commands (the server refuses them too; gating here lets us explain it with a button).
import * as vscode from "vscode";
import {
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { filterInlayHints } from "./inlayHints";
import { RUN_COMMANDS } from "./protocol";
import type { Resolution } from "./serverCommand";
import { globPatterns, initializationOptions, serverSettings, type HolodeckSettings } from "./settings";
import { gateCommand } from "./trust";

export interface ClientDeps {
  server: Extract<Resolution, { found: true }>;
  settings: () => HolodeckSettings;
  trusted: boolean;
  outputChannel: vscode.LogOutputChannel;
  explainUntrusted: (reason: string) => void;
}

export function documentSelector(globs: readonly string[]): LanguageClientOptions["documentSelector"] {
  // Every YAML file goes to the server: it also recognises agents by content and
  // `test_cases_file` includes by reference, and answers nothing for other YAML. The glob
  // patterns add agent files whatever language mode they are opened in.
  return [
    { scheme: "file", language: "yaml" },
    ...globPatterns(globs).map((pattern) => ({ scheme: "file", pattern })),
  ];
}

export function createClient(deps: ClientDeps): LanguageClient {
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const executable = {
    command: deps.server.command,
    args: deps.server.args,
    transport: TransportKind.stdio,
    options: cwd !== undefined ? { cwd } : {},
  };
  const serverOptions: ServerOptions = { run: executable, debug: executable };
  const settings = deps.settings();
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(settings.agentGlobs),
    outputChannel: deps.outputChannel,
    diagnosticCollectionName: "holodeck",
    initializationOptions: initializationOptions(settings, deps.trusted),
    // Sends didChangeConfiguration on changes; the server then pulls section `holodeck`.
    synchronize: { configurationSection: "holodeck" },
    middleware: {
      provideInlayHints: (document, viewPort, token, next) =>
        filterInlayHints(deps.settings().inlayHintsEnabled, () => next(document, viewPort, token)),
      executeCommand: (command, args, next) => {
        const gate = gateCommand(command, RUN_COMMANDS, deps.trusted);
        if (!gate.allowed) {
          deps.explainUntrusted(gate.reason);
          return { status: "refused", reason: "untrusted" };
        }
        return next(command, args);
      },
      workspace: {
        configuration: async (params, token, next) => {
          const values = await next(params, token);
          if (!Array.isArray(values)) return values;
          // Reshape our section to the keys the server reads (see settings.ts).
          return values.map((value, i) =>
            params.items[i]?.section === "holodeck" ? serverSettings(deps.settings()) : value,
          );
        },
      },
    },
  };
  return new LanguageClient("holodeck", "HoloDeck", serverOptions, clientOptions);
}
