"""Rate limits honoured, not hammered: what stands between a run's HTTP requests and a
provider that answers 429, 5xx or nothing.

One concept per module:

- `headers`: the wait a response asks for (`Retry-After`, `retry-after-ms`,
  `x-ratelimit-reset-*` when `x-ratelimit-remaining-*` is 0);
- `backoff`: exponential backoff with full jitter, never shorter than the server's hint;
- `budget`: the retry budget of one turn (every HTTP request of the turn draws on it);
- `window`: the adaptive number of requests in flight to one endpoint (AIMD);
- `pacing`: the adaptive spacing between sends once an endpoint has answered 429;
- `bucket`: explicit `rpm` / `tpm` limits as token buckets;
- `endpoint`: one endpoint's limiter (window + buckets + pause), and what it counts;
- `registry`: the limiters of the process by endpoint and model, and the settings
  (`holodeck-lsp.yaml` `limits:`, `--retry-budget`);
- `transport`: the httpx transport that puts every request (agent and judge) through them.

The design (docs/running.md, "Long runs"): every endpoint (base URL + model) has a window of
requests in flight. It starts at `max_in_flight` (default 32); each success widens it by
1/window (about +1 per window of successes), each 429 narrows it to 0.7× (at most once per
cool-down, so a burst of 429s from one window counts once), never below 1. A request waits
for room in the window, for the explicit buckets, and for any pause a response asked for
(`x-ratelimit-remaining-requests: 0` + reset). A retried request waits its backoff (or the
server's `Retry-After`, whichever is longer) outside the window.
"""
