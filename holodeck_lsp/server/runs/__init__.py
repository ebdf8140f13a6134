"""Running a suite from the editor: code lenses (`▶ Run all`, `▶ Run case`, `▶ Run turn N`),
inlay hints, the `holodeck.runAll` / `runCase` / `runTurn` / `regradeCase` / `cancelRun` /
`lastRunReport` commands, progress, and re-grading on edit. One module per concept:

* `commands` — registration (guarded handlers); `arguments` — one dataclass per command;
* `editor_run` — a run of an open document through `runner.run_session` (the CLI's run
  path: secrets masked in everything sent to the client), in a worker thread;
* `run_document` — which agent a document runs, loaded as the checker sees it;
* `cassette_setting` — the `holodeck.cassettePath` setting;
* `regrade_on_edit` — re-grading edited cases from their recorded answers;
* `lenses`, `hints` — what the editor shows; `progress` — `window/workDoneProgress`;
* `state` — what is kept per document, and how a finished case is announced
  (`holodeck/runResult` `{uri, caseIndex, turn, regraded, result}`);
* `worker_thread` — the bridge between the run's loop and the server's.
"""
