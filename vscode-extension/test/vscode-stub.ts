// A small typed stand-in for the parts of the `vscode` API the logic modules are written
// against (TestItem / TestItemCollection / TestController.invalidateTestResults / TestRun),
// so they run under `node --test` without an editor. It records what the code did.
import type { ItemCollectionLike, TestItemLike, TreeFactory } from "../src/testTree";
import type { LspRange } from "../src/protocol";
import type { MessageSpec } from "../src/resultMessages";
import type { RunSink } from "../src/runSession";

export class StubRange {
  constructor(
    readonly startLine: number,
    readonly startCharacter: number,
    readonly endLine: number,
    readonly endCharacter: number,
  ) {}
}

export class StubCollection implements ItemCollectionLike<StubTestItem> {
  private items = new Map<string, StubTestItem>();
  get size(): number {
    return this.items.size;
  }
  get(id: string): StubTestItem | undefined {
    return this.items.get(id);
  }
  replace(items: readonly StubTestItem[]): void {
    this.items = new Map(items.map((item) => [item.id, item]));
  }
  forEach(callback: (item: StubTestItem) => unknown): void {
    for (const item of this.items.values()) callback(item);
  }
  add(item: StubTestItem): void {
    this.items.set(item.id, item);
  }
  delete(id: string): void {
    this.items.delete(id);
  }
  all(): StubTestItem[] {
    return [...this.items.values()];
  }
}

export class StubTestItem implements TestItemLike<StubRange> {
  description?: string;
  sortText?: string;
  range: StubRange | undefined;
  canResolveChildren = false;
  readonly children = new StubCollection();
  constructor(
    readonly id: string,
    public label: string,
    readonly uri: string,
  ) {}
}

export function stubFactory(): TreeFactory<StubTestItem, StubRange> & { created: string[] } {
  const created: string[] = [];
  return {
    created,
    createItem(id, label, uri) {
      created.push(id);
      return new StubTestItem(id, label, uri);
    },
    toRange(range: LspRange) {
      return new StubRange(range.start.line, range.start.character, range.end.line, range.end.character);
    },
    children(item) {
      return item.children;
    },
  };
}

export class StubController {
  readonly invalidated: string[][] = [];
  invalidateTestResults(items: readonly StubTestItem[]): void {
    this.invalidated.push(items.map((item) => item.id));
  }
}

export type RunEvent =
  | { event: "started" | "passed" | "skipped"; id: string; durationMs?: number }
  | { event: "failed" | "errored"; id: string; messages: MessageSpec[]; durationMs?: number }
  | { event: "output"; id: string | undefined; text: string };

/** A TestRun stand-in: records each call in order. */
export class StubRun implements RunSink<StubTestItem> {
  readonly events: RunEvent[] = [];
  started(item: StubTestItem): void {
    this.events.push({ event: "started", id: item.id });
  }
  passed(item: StubTestItem, durationMs?: number): void {
    this.events.push({ event: "passed", id: item.id, durationMs });
  }
  failed(item: StubTestItem, messages: MessageSpec[], durationMs?: number): void {
    this.events.push({ event: "failed", id: item.id, messages, durationMs });
  }
  errored(item: StubTestItem, messages: MessageSpec[], durationMs?: number): void {
    this.events.push({ event: "errored", id: item.id, messages, durationMs });
  }
  skipped(item: StubTestItem): void {
    this.events.push({ event: "skipped", id: item.id });
  }
  output(text: string, item?: StubTestItem): void {
    this.events.push({ event: "output", id: item?.id, text });
  }
  stateOf(id: string): RunEvent["event"] | undefined {
    const last = [...this.events].reverse().find((e) => e.id === id && e.event !== "output" && e.event !== "started");
    return last?.event;
  }
}
