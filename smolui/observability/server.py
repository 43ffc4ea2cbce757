"""The served app: FastAPI with `/healthz`, `/readyz` and `/metrics`, and gradio mounted at `/`.

`serve` runs it with uvicorn in a background thread, the way gradio's own `launch` does, so
`GradioUI.launch` can return at once (`prevent_thread_lock=True`) or block until Ctrl+C or
SIGTERM.
"""

from __future__ import annotations

import logging
import signal
import socket
import threading
import time
from typing import Any

from smolui.observability.hardening import SecurityHeaders, close_cors
from smolui.observability.health import ReadinessCheck, liveness, readiness

logger = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0
SHUTDOWN_GRACE_S = 1.0
CLOSE_WAIT_S = 10.0  # `AppServer.close`: for its thread, once its requests were cancelled
# `Blocks.launch` options that `gr.mount_gradio_app` also takes; `GradioUI.launch` falls
# back to gradio's own server for any other option (e.g. a share link).
MOUNT_OPTIONS = frozenset({
    "server_name", "server_port", "footer_links", "run_history", "app_kwargs", "auth",
    "auth_message", "auth_dependency", "root_path", "allowed_paths", "blocked_paths",
    "favicon_path", "show_error", "max_file_size", "ssr_mode", "node_server_name", "node_port",
    "enable_monitoring", "pwa", "i18n", "mcp_server", "theme", "css", "css_paths", "js",
    "head", "head_paths",
})  # fmt: skip
SERVER_OPTIONS = frozenset({"quiet", "prevent_thread_lock"})


def can_mount(options: dict[str, Any]) -> bool:
    """True when every launch option can be honoured by the mounted app.

    Args:
        options: The keyword arguments given to `launch`.
    """
    return set(options) <= MOUNT_OPTIONS | SERVER_OPTIONS


def build_app(
    demo: Any,
    metrics: Any,
    checks: dict[str, ReadinessCheck],
    routes: list[Any] | None = None,
    middleware: list[Any] | None = None,
    **options: Any,
) -> Any:
    """A FastAPI app serving the health routes, `/metrics`, and the gradio Blocks at `/`, with
    CORS closed to other origins and the security headers of `hardening` on every answer.

    Args:
        demo: The `gr.Blocks` (queued).
        metrics: The app's `AppMetrics`.
        checks: Readiness checks for `/readyz`.
        routes: FastAPI routers served before gradio (the API's `/v1`).
        middleware: Starlette `Middleware` for those routes (the API's body size cap).
        **options: Passed to `gr.mount_gradio_app` (auth, blocked_paths, max_file_size...).
    """
    import gradio as gr
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, Response

    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> JSONResponse:
        status, body = liveness()
        return JSONResponse(body, status_code=status)

    @app.get("/readyz", include_in_schema=False)
    def readyz() -> JSONResponse:
        status, body = readiness(checks)
        return JSONResponse(body, status_code=status)

    @app.get("/metrics", include_in_schema=False)
    def metrics_route() -> Response:
        body, content_type = metrics.render()
        return Response(body, media_type=content_type)

    for router in routes or []:
        app.include_router(router)
    for item in middleware or []:
        app.add_middleware(item.cls, *item.args, **item.kwargs)
    close_cors(app)
    app.add_middleware(SecurityHeaders)
    # Routes match in order: the ones above come before gradio's mount at "/".
    mounted = gr.mount_gradio_app(app, demo, path="/", **options)
    # Gradio checks that a file path an event's input names was uploaded to its cache (and
    # is not in `blocked_paths`) only for Blocks that `launch` marked launched; mounting does
    # not mark them, and without the check any visitor could name any file on the server as
    # an attachment and get it back from the cache (gradio 6.31, checked by
    # tests/smolui/test_redteam_files.py).
    demo.has_launched = True
    return mounted


class AppServer:
    """Serves an ASGI app with uvicorn in a daemon thread.

    Args:
        app: The ASGI app.
        host: Interface to listen on.
        port: Port to listen on.
        sock: A socket already bound to host:port and listening, to serve on instead of
            binding (app.py binds it first to show a starting page meanwhile).
    """

    def __init__(self, app: Any, host: str, port: int, sock: socket.socket | None = None):
        import uvicorn

        self.host, self.port = host, port
        self._sockets = None if sock is None else [sock]
        # Open event streams (pages, API clients) would hold a graceful shutdown for ever.
        # proxy_headers off: the app reads X-Forwarded-For itself, from the proxies it was
        # told of (smolui.auth.proxy_peers), so it must see the connection's own address.
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                                timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
                                proxy_headers=False)  # fmt: skip
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name="smolui-http", daemon=True)

    def _run(self) -> None:
        try:
            self._server.run(sockets=self._sockets)
        except (Exception, SystemExit):  # uvicorn exits when it cannot bind; `start` reports it
            logger.debug("the HTTP server stopped", exc_info=True)

    @property
    def url(self) -> str:
        """The local address, e.g. http://127.0.0.1:7860/."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/"

    def start(self) -> AppServer:
        """Start serving; return once the port accepts connections.

        Raises:
            OSError: The server could not start (e.g. the port is taken).
        """
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise OSError(
                    f"Cannot serve on {self.host}:{self.port} (is the port already in use?)."
                )
            time.sleep(0.02)
        return self

    def wait(self, stop: threading.Event | None = None) -> None:
        """Block until the server stops, Ctrl+C or SIGTERM, then tell it to stop (`stop`:
        it takes no new connection); `close` then waits for it to end.

        uvicorn handles signals only when it runs in the main thread; here it runs in its
        own, so without this SIGTERM (`kill PID`, systemd, supervisors) would end the process
        at once, maybe mid-write, or, as a container's PID 1, be ignored until a SIGKILL.
        Its end is not waited for here: requests still running (a turn's stream, waiting for
        a person's approval) end only once the app stops its turns (`GradioUI.close`).

        Args:
            stop: Set by SIGTERM since before the server started (`on_sigterm`: a SIGTERM
                that comes while the app starts is not lost); None: SIGTERM is taken from now
                until the wait ends.
        """
        previous = None
        if stop is None:
            stop = threading.Event()
            previous = on_sigterm(stop)
        try:
            while self._thread.is_alive() and not stop.is_set():
                self._thread.join(0.5)
            if stop.is_set():
                logger.info("SIGTERM: stopping the server")
        except KeyboardInterrupt:
            logger.info("stopping the server")
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
            self.stop()

    def stop(self) -> None:
        """Tell the server to stop: it takes no new connection and ends once the requests
        still running have ended (or after `SHUTDOWN_GRACE_S`, cancelled); returns at once."""
        self._server.should_exit = True

    def close(self) -> None:
        """Stop serving and wait (up to `CLOSE_WAIT_S`) for the server thread to end."""
        self.stop()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=CLOSE_WAIT_S)


def on_sigterm(stop: threading.Event) -> Any:
    """Make SIGTERM set `stop`; return the handler it replaced (None off the main thread,
    where Python cannot take signals: the caller then stops on its own terms).

    Args:
        stop: The event SIGTERM sets.
    """
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.signal(signal.SIGTERM, lambda number, frame: stop.set())
    return signal.SIG_DFL if previous is None else previous  # None: set outside Python


def serve(
    demo: Any,
    metrics: Any,
    checks: dict[str, ReadinessCheck],
    options: dict[str, Any],
    sock: socket.socket | None = None,
    routes: list[Any] | None = None,
    middleware: list[Any] | None = None,
) -> AppServer:
    """Build the app and start serving it in the background.

    Args:
        demo: The queued `gr.Blocks`.
        metrics: The app's `AppMetrics`.
        checks: Readiness checks.
        options: `launch` options (see `can_mount`); `quiet` silences the address line.
        sock: A listening socket bound to the options' host and port, to serve on.
        routes: FastAPI routers served before gradio (the API's `/v1`).
        middleware: Starlette `Middleware` for those routes (see `build_app`).
    """
    options = dict(options)
    quiet = bool(options.pop("quiet", False))
    options.pop("prevent_thread_lock", None)
    options.setdefault("show_error", False)  # as `Blocks.launch`: no exception text in toasts
    host = options.get("server_name") or "127.0.0.1"
    port = int(options.get("server_port") or 7860)
    app = build_app(demo, metrics, checks, routes, middleware, **options)
    server = AppServer(app, host, port, sock).start()
    if not quiet:
        print(f"* Running on local URL:  {server.url}", flush=True)
        print(f"* Health: {server.url}healthz  readiness: {server.url}readyz  metrics: "
              f"{server.url}metrics", flush=True)  # fmt: skip
    return server
