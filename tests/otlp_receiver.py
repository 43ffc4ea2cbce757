"""A real OTLP/HTTP trace receiver on loopback, for the tracing tests.

It accepts `POST /v1/traces` with a protobuf `ExportTraceServiceRequest` (what the
OpenTelemetry OTLP/HTTP exporter sends), decodes it with `opentelemetry-proto`, and keeps
the spans as plain dicts: name, ids, parent id, kind, status, attributes, events.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def decode(body: bytes) -> list[dict[str, Any]]:
    """The spans of one export request, as dicts."""
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        resource = _attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append({
                    "name": span.name,
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_id": span.parent_span_id.hex() or None,
                    "kind": span.kind,
                    "status": span.status.code,
                    "status_message": span.status.message,
                    "attributes": _attributes(span.attributes),
                    "events": [event.name for event in span.events],
                    "duration_ns": span.end_time_unix_nano - span.start_time_unix_nano,
                    "scope": scope_spans.scope.name,
                    "resource": resource,
                })  # fmt: skip
    return spans


class OtlpReceiver:
    """Collects the spans exported to `endpoint` (start with `with OtlpReceiver() as r:`)."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                spans = decode(body)
                with receiver._lock:
                    receiver.paths.append(self.path)
                    receiver.spans.extend(spans)
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        """The base URL (what `OTEL_EXPORTER_OTLP_ENDPOINT` takes)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def wait_for(self, name: str, timeout: float = 20.0) -> list[dict[str, Any]]:
        """All spans received once one named `name` has arrived."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if any(span["name"] == name for span in self.spans):
                    return list(self.spans)
            time.sleep(0.02)
        raise AssertionError(f"no span {name!r} arrived; got {[s['name'] for s in self.spans]}")

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
