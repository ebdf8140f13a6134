// Test item ids: a file is its URI, a case and a turn append a suffix. The ids must be stable
// across edits (VS Code keys results by id) and parseable back (a run request only hands us
// the items), so they encode the indexes the server's run commands take.

export type TestRef =
  | { kind: "file"; uri: string }
  | { kind: "case"; uri: string; caseIndex: number }
  | { kind: "turn"; uri: string; caseIndex: number; turnIndex: number };

const SUFFIX = /::case:(\d+)(?::turn:(\d+))?$/;

export function fileId(uri: string): string {
  return uri;
}

export function caseId(uri: string, caseIndex: number): string {
  return `${uri}::case:${caseIndex}`;
}

export function turnId(uri: string, caseIndex: number, turnIndex: number): string {
  return `${caseId(uri, caseIndex)}:turn:${turnIndex}`;
}

export function idOf(ref: TestRef): string {
  switch (ref.kind) {
    case "file":
      return fileId(ref.uri);
    case "case":
      return caseId(ref.uri, ref.caseIndex);
    case "turn":
      return turnId(ref.uri, ref.caseIndex, ref.turnIndex);
  }
}

export function parseTestId(id: string): TestRef {
  const match = SUFFIX.exec(id);
  if (match === null) return { kind: "file", uri: id };
  const uri = id.slice(0, match.index);
  const caseIndex = Number(match[1]);
  if (match[2] === undefined) return { kind: "case", uri, caseIndex };
  return { kind: "turn", uri, caseIndex, turnIndex: Number(match[2]) };
}
