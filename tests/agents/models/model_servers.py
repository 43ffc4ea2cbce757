"""Real servers for backend tests: llama.cpp's OpenAI-compatible server on loopback, and a
small proxy that serves Azure OpenAI's deployment paths."""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LlamaServer:
    """`python -m llama_cpp.server` in a subprocess, on 127.0.0.1."""

    def __init__(self, model_path: Path, log_path: Path, port: int | None = None):
        self.model_path = model_path
        self.log_path = log_path
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 90) -> LlamaServer:
        command = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model_path),
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", "2048", "--n_threads", "2", "--verbose", "False",
        ]  # fmt: skip
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as answer:
                    if answer.status == 200:
                        return self
            except (OSError, http.client.HTTPException):  # not up yet, or not ours yet
                time.sleep(0.3)
        self.kill()
        raise RuntimeError(f"llama.cpp server did not start in {timeout}s:\n{self.log_tail()}")

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:]


_AZURE_PATH = re.compile(r"^/openai/deployments/(?P<deployment>[^/]+)/chat/completions$")


class AzureProxy:
    """Serves Azure OpenAI's `/openai/deployments/<name>/chat/completions?api-version=...`
    with an `api-key` header, and forwards to an OpenAI-compatible server, streaming."""

    def __init__(self, upstream_port: int, api_key: str):
        self.upstream_port = upstream_port
        self.api_key = api_key
        self.seen: list[dict[str, str]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                path, _, query = self.path.partition("?")
                match = _AZURE_PATH.match(path)
                version = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
                if not match or "api-version" not in version:
                    return self._error(404, "DeploymentNotFound")
                if self.headers.get("api-key") != proxy.api_key:
                    return self._error(401, "Access denied due to invalid subscription key.")
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                proxy.seen.append(
                    {"deployment": match["deployment"], "api-version": version["api-version"]}
                )
                body["model"] = match["deployment"]
                self._forward(json.dumps(body).encode())

            def _forward(self, payload: bytes):
                upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=60)
                upstream.request(
                    "POST", "/v1/chat/completions", payload, {"Content-Type": "application/json"}
                )
                answer = upstream.getresponse()
                self.send_response(answer.status)
                self.send_header("Content-Type", answer.getheader("Content-Type", "text/plain"))
                self.send_header("Connection", "close")
                self.end_headers()
                while chunk := answer.read1(65536):
                    self.wfile.write(chunk)
                    self.wfile.flush()
                upstream.close()

            def _error(self, status: int, message: str):
                data = json.dumps({"error": {"code": str(status), "message": message}}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
