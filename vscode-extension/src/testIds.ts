// Test item ids: a file is its URI, a case and a turn append a suffix. The ids must be stable
// across edits (VS Code keys results by id) and parseable back (a run request only hands us
// the items), so they encode the indexes the server's run commands take. A simulated
// conversation's items — its generated turns, its at_end checks, the simulated user's own
// failure — are written nowhere in the file: `generated` refs, `::case:N:generated:PART`
// (PART `turn:3`, `at_end`, `simulator`), created from a run's result (simulatedItems.ts).

export type TestRef =
  | { kind: "file"; uri: string }
  | { kind: "case"; uri: string; caseIndex: number }
  | { kind: "turn"; uri: string; caseIndex: number; turnIndex: number }
  | { kind: "generated"; uri: string; caseIndex: number; part: string };

const SUFFIX = /::case:(\d+)(?::turn:(\d+))?$/;
const GENERATED = /::case:(\d+):generated:([a-z_]+(?::\d+)?)$/;

export function fileId(uri: string): string {
  return uri;
}

export function caseId(uri: string, caseIndex: number): string {
  return `${uri}::case:${caseIndex}`;
}

export function turnId(uri: string, caseIndex: number, turnIndex: number): string {
  return `${caseId(uri, caseIndex)}:turn:${turnIndex}`;
}

export function generatedId(uri: string, caseIndex: number, part: string): string {
  return `${caseId(uri, caseIndex)}:generated:${part}`;
}

export function idOf(ref: TestRef): string {
  switch (ref.kind) {
    case "file":
      return fileId(ref.uri);
    case "case":
      return caseId(ref.uri, ref.caseIndex);
    case "turn":
      return turnId(ref.uri, ref.caseIndex, ref.turnIndex);
    case "generated":
      return generatedId(ref.uri, ref.caseIndex, ref.part);
  }
}

export function parseTestId(id: string): TestRef {
  const generated = GENERATED.exec(id);
  if (generated !== null) {
    return { kind: "generated", uri: id.slice(0, generated.index), caseIndex: Number(generated[1]), part: String(generated[2]) };
  }
  const match = SUFFIX.exec(id);
  if (match === null) return { kind: "file", uri: id };
  const uri = id.slice(0, match.index);
  const caseIndex = Number(match[1]);
  if (match[2] === undefined) return { kind: "case", uri, caseIndex };
  return { kind: "turn", uri, caseIndex, turnIndex: Number(match[2]) };
}
