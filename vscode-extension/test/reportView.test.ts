import assert from "node:assert/strict";
import { test } from "node:test";
import type { Discovery } from "../src/protocol";
import { pagePolicy, panelTitle, parseReveal, revealRange } from "../src/reportView";

const at = (line: number, character = 0) => ({ start: { line, character }, end: { line, character } });

const discovery: Discovery = {
  uri: "file:///w/agent.yaml",
  agentUri: "file:///w/agent.yaml",
  range: at(9),
  cases: [
    {
      index: 0,
      name: "two-turns",
      range: { start: { line: 10, character: 2 }, end: { line: 20, character: 0 } },
      turns: [
        { index: 0, range: { start: { line: 12, character: 6 }, end: { line: 14, character: 0 } }, inputRange: at(12, 8) },
        { index: 1, range: { start: { line: 14, character: 6 }, end: { line: 20, character: 0 } }, inputRange: at(14, 8) },
      ],
    },
    { index: 1, name: "single", range: { start: { line: 20, character: 2 }, end: { line: 22, character: 0 } }, turns: [] },
  ],
};

test("a reveal message is validated: the page is another context", () => {
  assert.deepEqual(parseReveal({ type: "reveal", case: 0, turn: 1, loc: [14, 6] }), { type: "reveal", case: 0, turn: 1, loc: [14, 6] });
  assert.deepEqual(parseReveal({ type: "reveal", case: 1, turn: null, loc: null }), { type: "reveal", case: 1, turn: null, loc: null });
  // A bad loc or turn is dropped, not trusted.
  assert.deepEqual(parseReveal({ type: "reveal", case: 1, turn: "x", loc: [1, -2] }), { type: "reveal", case: 1, turn: null, loc: null });
  for (const bad of [null, "reveal", { type: "open", case: 0 }, { type: "reveal" }, { type: "reveal", case: -1 }, { type: "reveal", case: 1.5 }]) {
    assert.equal(parseReveal(bad), undefined, JSON.stringify(bad));
  }
});

test("the Testing view's ranges win (they follow edits), the page's loc otherwise", () => {
  const turn = parseReveal({ type: "reveal", case: 0, turn: 1, loc: [3, 0] });
  assert.ok(turn);
  assert.deepEqual(revealRange(turn, discovery), at(14, 6));
  assert.deepEqual(revealRange(turn, undefined), at(3, 0));
  const single = parseReveal({ type: "reveal", case: 1, turn: null, loc: null });
  assert.ok(single);
  assert.deepEqual(revealRange(single, discovery), at(20, 2));
  assert.equal(revealRange(single, undefined), undefined);
  // A turn the discovery does not have: its case.
  const gone = parseReveal({ type: "reveal", case: 0, turn: 7, loc: null });
  assert.ok(gone);
  assert.deepEqual(revealRange(gone, discovery), at(10, 2));
  // A case the discovery does not have (deleted since): the page's loc.
  const other = parseReveal({ type: "reveal", case: 5, turn: null, loc: [40, 2] });
  assert.ok(other);
  assert.deepEqual(revealRange(other, discovery), at(40, 2));
});

function page(policy: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="${policy}"></head></html>`;
}

test("the page is shown only with its own locked-down policy", () => {
  const good = "default-src 'none'; img-src data:; style-src 'sha256-abc='; script-src 'sha256-Zm9v+/='; base-uri 'none'";
  assert.equal(pagePolicy(page(good)), good);
  assert.equal(pagePolicy("<html><body>no policy</body></html>"), undefined);
  assert.equal(pagePolicy(page("default-src *")), undefined);
  assert.equal(pagePolicy(page("default-src 'none'; script-src 'unsafe-inline'")), undefined);
  assert.equal(pagePolicy(page("default-src 'none' https:; script-src 'sha256-abc='")), undefined);
});

test("the panel is titled with the file's name", () => {
  assert.equal(panelTitle("file:///w/suite/my%20agent.yaml"), "Run Report: my agent.yaml");
});
