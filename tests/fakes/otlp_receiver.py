"""A real OTLP trace receiver on 127.0.0.1, built on the official OTLP protobuf services
(opentelemetry-proto + grpcio): the OTLP/gRPC `TraceService` and OTLP/HTTP `POST /v1/traces`
(protobuf or JSON bodies, gzip or not). Run as its own process by the tests
(`OtlpReceiver`), it appends every export it accepts to a file, one OTLP JSON document a line
— the format of the OpenTelemetry Collector's file exporter (ids in hex, enums as numbers) —
which `import otel` also reads.

    python -m tests.fakes.otlp_receiver OUT.jsonl   # prints "grpc=<port> http=<port>"
"""

from __future__ import annotations

import base64
import gzip
import json
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[2]


def to_otlp_json(message: Any) -> dict[str, Any]:
    """A protobuf ExportTraceServiceRequest as OTLP JSON (hex ids, integer enums)."""
    from google.protobuf.json_format import MessageToDict

    data: dict[str, Any] = MessageToDict(message, use_integers_for_enums=True)
    for resource in data.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = base64.b64decode(span[key]).hex()
    return data


class _Store:
    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()

    def add(self, document: dict[str, Any]) -> None:
        line = json.dumps(document, separators=(",", ":"))
        with self._lock, self._path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


def _serve(out: Path) -> None:
    import grpc
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

    store = _Store(out)

    class TraceService(trace_service_pb2_grpc.TraceServiceServicer):  # type: ignore[misc]
        def Export(self, request: Any, context: Any) -> Any:
            store.add(to_otlp_json(request))
            return trace_service_pb2.ExportTraceServiceResponse()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(TraceService(), server)
    grpc_port = server.add_insecure_port("127.0.0.1:0")
    server.start()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/v1/traces":
                self.send_error(404)
                return
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            encoding = (self.headers.get("content-encoding") or "").lower()
            if encoding == "gzip":
                body = gzip.decompress(body)
            elif encoding == "deflate":
                body = zlib.decompress(body)
            if "json" in (self.headers.get("content-type") or ""):
                store.add(json.loads(body))
            else:
                request = trace_service_pb2.ExportTraceServiceRequest()
                request.ParseFromString(body)
                store.add(to_otlp_json(request))
            answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    print(f"grpc={grpc_port} http={http.server_address[1]}", flush=True)
    sys.stdin.read()  # until the test closes our stdin
    http.shutdown()
    server.stop(0)


class OtlpReceiver:
    """The receiver process: `grpc_endpoint`, `http_endpoint`, and `spans()` read back."""

    def __init__(self, folder: Path) -> None:
        self.out = folder / "received.jsonl"
        self.out.touch()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.otlp_receiver", str(self.out)],
            cwd=_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._proc.stdout is not None
        ports = dict(part.split("=") for part in self._proc.stdout.readline().split())
        self.grpc_endpoint = f"http://127.0.0.1:{ports['grpc']}"
        self.http_endpoint = f"http://127.0.0.1:{ports['http']}"

    def close(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def documents(self) -> list[dict[str, Any]]:
        text = self.out.read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def spans(self, wait_for: int = 1, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Every span received, flattened (attributes as plain values, the resource's too)."""
        deadline = time.monotonic() + timeout
        while True:
            found = list(flat_spans(self.documents()))
            if len(found) >= wait_for or time.monotonic() > deadline:
                return found
            time.sleep(0.05)


def flat_spans(documents: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for document in documents:
        for resource in document.get("resourceSpans", []):
            resource_attributes = attribute_map(resource.get("resource", {}).get("attributes"))
            for scope in resource.get("scopeSpans", []):
                for span in scope.get("spans", []):
                    yield {
                        "name": span["name"],
                        "trace_id": span["traceId"],
                        "span_id": span["spanId"],
                        "parent": span.get("parentSpanId") or None,
                        "kind": span.get("kind"),
                        "start": int(span["startTimeUnixNano"]),
                        "end": int(span["endTimeUnixNano"]),
                        "attributes": attribute_map(span.get("attributes")),
                        "events": [
                            {"name": e["name"], "attributes": attribute_map(e.get("attributes"))}
                            for e in span.get("events", [])
                        ],
                        "status": span.get("status", {}),
                        "resource": resource_attributes,
                    }


def attribute_map(attributes: list[dict[str, Any]] | None) -> dict[str, Any]:
    return {item["key"]: _value(item.get("value", {})) for item in attributes or []}


def _value(value: dict[str, Any]) -> Any:
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_value(v) for v in value["arrayValue"].get("values", [])]
    return None


if __name__ == "__main__":
    _serve(Path(sys.argv[1]))
