// The interpreter selected in the Python extension (ms-python.python), if it is installed.
// Its API is read defensively: it is another extension's contract and has changed before.
import * as vscode from "vscode";

const PYTHON_EXTENSION = "ms-python.python";

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string } | undefined;
    resolveEnvironment?(
      env: { id: string; path: string } | string,
    ): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand: string[] | undefined };
  };
}

async function api(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (extension === undefined) return undefined;
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined; // a broken Python extension must not stop ours: fall back to PATH
  }
}

export async function selectedPython(resource?: vscode.Uri): Promise<string | undefined> {
  const python = await api();
  if (python === undefined) return undefined;
  try {
    const active = python.environments?.getActiveEnvironmentPath(resource);
    if (active !== undefined) {
      const resolved = await python.environments?.resolveEnvironment?.(active);
      const executable = resolved?.executable?.uri?.fsPath;
      if (executable) return executable;
      if (active.path) return active.path;
    }
    const command = python.settings?.getExecutionDetails?.(resource).execCommand;
    return command !== undefined && command.length > 0 ? command[0] : undefined;
  } catch {
    return undefined;
  }
}

/** Fires when the user picks another interpreter (the server may live elsewhere then). */
export async function onInterpreterChanged(listener: () => void): Promise<vscode.Disposable | undefined> {
  const python = await api();
  return python?.environments?.onDidChangeActiveEnvironmentPath?.(listener);
}
