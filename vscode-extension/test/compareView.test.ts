import assert from "node:assert/strict";
import { test } from "node:test";
import { comparisonMarkdown, comparisonSummary, comparisonTitle } from "../src/compareView";

test("a done comparison previews its Markdown and counts the regressions", () => {
  const answer = { status: "done" as const, markdown: "# Comparison", base: "v1", head: "latest run 20261201-1", regressions: 2 };
  assert.equal(comparisonMarkdown(answer), "# Comparison");
  assert.equal(comparisonSummary(answer), "HoloDeck: 2 turns regressed — latest run 20261201-1 against v1.");
  assert.equal(comparisonSummary({ ...answer, regressions: 1 }), "HoloDeck: 1 turn regressed — latest run 20261201-1 against v1.");
  assert.equal(comparisonSummary({ ...answer, regressions: 0 }), "HoloDeck: no turn regressed — latest run 20261201-1 against v1.");
});

test("nothing to compare, or a malformed answer, shows no preview", () => {
  assert.equal(comparisonMarkdown({ status: "none", reason: "no stored run" }), undefined);
  assert.equal(comparisonMarkdown(null), undefined);
  assert.equal(comparisonMarkdown({ status: "done", base: "b", head: "h", regressions: 0 }), undefined);
  assert.equal(comparisonSummary(undefined), "HoloDeck: nothing compared.");
});

test("the page's title names the file", () => {
  assert.equal(comparisonTitle("file:///w/my%20agent.yaml"), "Compare: my agent.yaml");
});
