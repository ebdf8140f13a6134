"""Rate limits honoured, not hammered: what stands between a run's HTTP requests and a
provider that answers 429, 5xx or nothing.

One concept per module:

- `headers`: the wait a response asks for (`Retry-After`, `retry-after-ms`,
  `x-ratelimit-reset-*` when `x-ratelimit-remaining-*` is 0);
- `backoff`: exponential backoff with full jitter, never shorter than the server's hint;
- `budget`: the retry budget of one turn (every HTTP request of the turn draws on it);
- `window`: the adaptive number of requests in flight to one endpoint (AIMD);
- `pacing`: the adaptive spacing between sends once an endpoint has answered 429;
- `delivered`: the most answers the limit let through in one second (a rate it allows);
- `gate`: the probe gate of an overrun limit (one request at a time asks until it answers);
- `bucket`: explicit `rpm` / `tpm` limits as token buckets;
- `endpoint`: one endpoint's limiter (window + buckets + pause), and what it counts;
- `registry`: the limiters of the process by endpoint and model, and the settings
  (`holodeck-lsp.yaml` `limits:`, `--retry-budget`);
- `transport`: the httpx transport that puts every request (agent and judge) through them;
- `trace`: counters for the benchmarks, off unless `$HOLODECK_LIMITS_TRACE` names a file.

The design (docs/running.md, "Long runs"): every endpoint (base URL + model) has a window of
requests in flight (window.py: slow start from 4, halved by the first 429) and, from its
first 429, a pace (pacing.py: sends spaced at the rate it answered 2xx), which then governs
the rate; an overrun limit shuts the endpoint's probe gate (gate.py) until it answers again.
A request waits for any pause a response asked for (`x-ratelimit-remaining-*: 0` + reset),
the explicit buckets, the gate, room in the window and its turn of the pace; retries go
before first attempts. A retried request waits its backoff (or the server's `Retry-After`) outside
the window. `trace` counts what was waited for, for the benchmarks (`$HOLODECK_LIMITS_TRACE`).
"""
