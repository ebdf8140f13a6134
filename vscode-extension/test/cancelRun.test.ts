import assert from "node:assert/strict";
import { test } from "node:test";
import { CANCELLING, NOTHING_RUNNING, cancelMessage } from "../src/cancelRun";

test("a run being cancelled, or none running, is said as such", () => {
  assert.deepEqual(cancelMessage({ status: "cancelling" }), { kind: "info", text: CANCELLING });
  assert.equal(CANCELLING, "HoloDeck: Cancelling…");
  assert.deepEqual(cancelMessage({ status: "idle" }), { kind: "info", text: NOTHING_RUNNING });
  assert.equal(NOTHING_RUNNING, "HoloDeck: Nothing is running in this file.");
});

test("a failed command or a malformed answer is a warning with the reason when there is one", () => {
  assert.deepEqual(cancelMessage({ status: "refused", reason: "the command failed (see the server log)" }), {
    kind: "warning",
    text: "HoloDeck: the run could not be cancelled — the command failed (see the server log).",
  });
  for (const answer of [null, undefined, "cancelling", { status: "done" }, { status: "refused", reason: 3 }]) {
    assert.deepEqual(cancelMessage(answer), {
      kind: "warning",
      text: "HoloDeck: the run could not be cancelled — no answer from holodeck-lsp.",
    });
  }
});
