// Draws GutterState's marks in visible editors: one decoration type per kind, with the
// small SVG icons shipped in images/.
import * as vscode from "vscode";
import type { Discovery } from "./protocol";
import type { GutterKind, GutterState } from "./gutterState";

const KINDS: GutterKind[] = ["passed", "failed", "skipped"];

export class GutterDecorations implements vscode.Disposable {
  private readonly types: Record<GutterKind, vscode.TextEditorDecorationType>;

  constructor(extensionUri: vscode.Uri) {
    const make = (kind: GutterKind): vscode.TextEditorDecorationType =>
      vscode.window.createTextEditorDecorationType({
        gutterIconPath: vscode.Uri.joinPath(extensionUri, "images", `gutter-${kind}.svg`),
        gutterIconSize: "contain",
      });
    this.types = { passed: make("passed"), failed: make("failed"), skipped: make("skipped") };
  }

  apply(state: GutterState, discoveryOf: (uri: string) => Discovery | undefined): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const ranges = state.ranges(discoveryOf(editor.document.uri.toString()));
      for (const kind of KINDS) {
        editor.setDecorations(
          this.types[kind],
          ranges[kind].map((r) => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character)),
        );
      }
    }
  }

  dispose(): void {
    for (const kind of KINDS) this.types[kind].dispose();
  }
}
