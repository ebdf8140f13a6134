"""Before the first turn of a live run: does the model's endpoint answer at all?

A backend that is down otherwise looks exactly like an agent giving wrong answers — 34 failed
turns, each "connection failed". One cheap request, bounded in time, tells the two apart: any
HTTP answer (even 401 or 404) means the server is there; a refused connection, an unknown
host or no answer within the time limit stops the run with what to do.

Standard library only (http.client), and done by `create_backend` before the SDK is imported,
so a run against a server that is down fails in well under a second — from the command line
and from the editor alike. `HOLODECK_PREFLIGHT=0` turns it off; behind an HTTP(S) proxy it is
skipped (a direct request would prove nothing).
"""

from __future__ import annotations

import http.client
import os
import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from holodeck_lsp.runner.backends.base import BackendInitError
from holodeck_lsp.runner.backends.providers import PROVIDERS
from holodeck_lsp.schema.agent import Agent

#: Seconds the one request may take in all (connect and first answer); override with
#: $HOLODECK_PREFLIGHT_TIMEOUT.
DEFAULT_TIMEOUT = 5.0
_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY")


class BackendUnreachable(BackendInitError):
    """The endpoint did not answer; the message names it and says what to check. A
    BackendInitError, so every caller already reports it as "the run cannot start"."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    #: What the user calls it: "Ollama", "the OpenAI API", …
    label: str
    url: str
    #: Where the URL came from / how to change it.
    hint: str


def endpoint_of(agent: Agent, env: Mapping[str, str]) -> Endpoint:
    """The URL the agent's backend will talk to, resolved as the backends resolve it."""
    row = PROVIDERS[agent.model.provider]
    return Endpoint(row.label, row.endpoint(agent.model.endpoint, env), row.endpoint_hint)


def check_endpoint(
    agent: Agent, env: Mapping[str, str] | None = None, timeout: float | None = None
) -> None:
    """Raises BackendUnreachable when the agent's endpoint does not answer in `timeout`."""
    environment = os.environ if env is None else env
    if _switched_off(os.environ) or _switched_off(environment):
        return
    if any(environment.get(name) for name in _PROXY_VARIABLES):
        # The SDKs go through the proxy; a direct request would prove nothing either way.
        return
    if _key_missing(agent, environment):
        # A missing API key is the surer, local fault: the backend reports it, with the fix.
        return
    endpoint = endpoint_of(agent, environment)
    limit = timeout if timeout is not None else _timeout(environment)
    problem = probe(endpoint.url, limit)
    if problem is not None:
        raise BackendUnreachable(
            f"cannot reach {endpoint.label} at {shown_url(endpoint.url)} ({problem}) — "
            f"{endpoint.hint}; nothing was run"
        )


def probe(url: str, timeout: float) -> str | None:
    """None when an HTTP server answers at `url` within `timeout` seconds, else why not."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None  # not ours to judge: the backend reports a malformed URL itself
    port = parts.port or (443 if parts.scheme == "https" else 80)
    deadline = time.monotonic() + timeout
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(
            parts.hostname, port, timeout=timeout, context=ssl.create_default_context()
        )
    else:
        connection = http.client.HTTPConnection(parts.hostname, port, timeout=timeout)
    try:
        connection.connect()
        # Whatever is left of the budget for the answer: a server that accepts and then
        # never answers must not hold the run longer than `timeout` in all.
        if connection.sock is not None:
            connection.sock.settimeout(max(deadline - time.monotonic(), 0.05))
        connection.request("GET", parts.path or "/", headers={"User-Agent": "holodeck-lsp"})
        connection.getresponse().close()
    except TimeoutError:
        return f"no answer within {timeout:g}s"
    except ConnectionRefusedError:
        return "connection refused"
    except socket.gaierror:
        return f"unknown host {parts.hostname}"
    except ssl.SSLError as error:
        return f"TLS failed: {error.reason or error}"
    except (OSError, http.client.HTTPException) as error:
        return f"{type(error).__name__}: {error}"
    finally:
        connection.close()
    return None


def _key_missing(agent: Agent, env: Mapping[str, str]) -> bool:
    """A provider without its key (`model.api_key` or the environment variable): the backend
    refuses to start anyway, with the fix. Ollama needs none; the Claude CLI's OAuth token
    is its own credential."""
    variable = PROVIDERS[agent.model.provider].key_variable
    auth = agent.model.auth_provider
    if variable is None or (auth is not None and auth.value == "oauth_token"):
        return False
    key = agent.model.api_key
    has_key = key is not None and bool(key.get_secret_value().strip())
    return not has_key and not env.get(variable, "").strip()


def _switched_off(env: Mapping[str, str]) -> bool:
    return env.get("HOLODECK_PREFLIGHT", "").strip().lower() in ("0", "false", "no", "off")


def shown_url(url: str) -> str:
    """The endpoint as configured (its path too: `…/v1` is what the user wrote and what the
    SDK is given), less what may hold a credential: `user:password@` and the query."""
    parts = urlsplit(url)
    if not parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}://{host}{parts.path}"


def _timeout(env: Mapping[str, str]) -> float:
    try:
        value = float(env.get("HOLODECK_PREFLIGHT_TIMEOUT", DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT
