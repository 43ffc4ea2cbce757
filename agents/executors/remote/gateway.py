"""A client for one kernel behind a Jupyter Kernel Gateway (or Enterprise Gateway).

REST for the kernel's life (`POST /api/kernels`, `/interrupt`, `/restart`, `DELETE`), and
the websocket `api/kernels/<id>/channels` for messages of every channel (shell, iopub,
stdin, control), framed as `wire` describes (the binary v1 framing when the server offers
it). Messages are built and packed by `jupyter_client.session.Session`, the same code
Jupyter's own clients use; frames are handled by `websocket-client`.
"""

from __future__ import annotations

import logging
import socket
import time
import uuid
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from agents.executors.remote import wire

logger = logging.getLogger(__name__)


class GatewayError(Exception):
    """The gateway could not be reached or refused a request; the message says which."""


class GatewayClosed(GatewayError):
    """The websocket closed (the gateway stopped, or the network went away)."""


class GatewayKernel:
    """One kernel on a gateway, with its message websocket.

    Args:
        url: The gateway's base URL, e.g. "http://127.0.0.1:8888".
        token: The gateway's auth token (`KG_AUTH_TOKEN`), or None.
        kernel_name: Which kernelspec to start.
        request_timeout: Seconds to wait for a REST answer or the kernel to be ready.
        env: Environment variables for the kernel (the gateway must allow them, see
            `KG_ENV_WHITELIST`); never put secrets here.
    """

    def __init__(
        self,
        url: str,
        token: str | None = None,
        kernel_name: str = "python3",
        request_timeout: float = 60.0,
        env: dict[str, str] | None = None,
    ):
        import requests
        from jupyter_client.session import Session

        parts = urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"Not a gateway URL: {url!r}; expected http(s)://host:port")
        self.url = urlunsplit(parts)
        self.token = token
        self.kernel_name = kernel_name
        self.request_timeout = request_timeout
        self.env = dict(env or {})
        self.kernel_id: str | None = None
        self._http = requests.Session()
        if token:
            self._http.headers["Authorization"] = f"token {token}"
        # The key only silences jupyter_client's warning: over the websocket the gateway
        # signs messages itself, and this side never serializes them to ZeroMQ frames.
        self._session = Session(username="smolui", key=uuid.uuid4().hex.encode())
        self._ws: Any = None
        self._binary = False  # the server agreed on the v1 framing
        self._offer_v1 = True  # False once the server refused it

    @property
    def subprotocol(self) -> str | None:
        """The websocket framing the server agreed on: `wire.V1_PROTOCOL`, or None for the
        legacy JSON frames (or while not connected)."""
        return wire.V1_PROTOCOL if self._ws is not None and self._binary else None

    # -- REST ----------------------------------------------------------------------------------

    def _rest(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        import requests

        try:
            response = self._http.request(
                method, f"{self.url}{path}", json=body, timeout=self.request_timeout
            )
        except requests.RequestException as error:
            raise GatewayError(
                f"The Jupyter gateway at {self.url} is unreachable: {error}"
            ) from None
        if response.status_code in (401, 403):
            raise GatewayError(
                f"The Jupyter gateway at {self.url} refused the token (HTTP "
                f"{response.status_code}); set executor_kwargs['token'] or SMOLUI_EXECUTOR_TOKEN."
            )
        if response.status_code >= 400:
            raise GatewayError(
                f"The Jupyter gateway at {self.url} answered {method} {path} with HTTP "
                f"{response.status_code}: {response.text[:300]}"
            )
        return response.json() if response.content else None

    def start(self) -> str:
        """Start a kernel, open its websocket and wait until it answers; return its id."""
        body: dict[str, Any] = {"name": self.kernel_name}
        if self.env:
            body["env"] = self.env
        self.kernel_id = self._rest("POST", "/api/kernels", body)["id"]
        self.connect()
        return self.kernel_id

    def interrupt(self) -> None:
        """Send SIGINT (or an interrupt request) to the kernel: the running cell fails."""
        if self.kernel_id is not None:
            self._rest("POST", f"/api/kernels/{self.kernel_id}/interrupt")

    def restart(self) -> None:
        """Restart the kernel process (its variables are lost) and reconnect."""
        if self.kernel_id is None:
            return
        self._rest("POST", f"/api/kernels/{self.kernel_id}/restart")
        self.connect()

    def shutdown(self) -> None:
        """Close the websocket and delete the kernel; errors are logged, not raised."""
        self.disconnect()
        kernel_id, self.kernel_id = self.kernel_id, None
        if kernel_id is not None:
            try:
                self._rest("DELETE", f"/api/kernels/{kernel_id}")
            except GatewayError as error:
                logger.info("could not delete kernel %s: %s", kernel_id, error)
        self._http.close()

    # -- websocket -----------------------------------------------------------------------------

    def connect(self) -> None:
        """(Re)open the channels websocket and wait for the kernel to answer `kernel_info`."""
        import websocket

        self.disconnect()
        scheme = "wss" if self.url.startswith("https") else "ws"
        address = (
            f"{scheme}{self.url[self.url.index(':') :]}/api/kernels/"
            f"{quote(str(self.kernel_id))}/channels?session_id={uuid.uuid4().hex}"
        )
        try:
            self._ws = self._open_websocket(address)
        except (OSError, websocket.WebSocketException) as error:
            raise GatewayError(
                f"Could not open the kernel's websocket at {address}: {error}"
            ) from None
        self._binary = self._ws.getsubprotocol() == wire.V1_PROTOCOL
        self._wait_ready()

    def _open_websocket(self, address: str) -> Any:
        """Connect, asking for the v1 framing; a server that refuses the handshake for it
        (it predates jupyter_server 2) is asked again without, from then on."""
        import websocket

        header = [f"Authorization: token {self.token}"] if self.token else []
        # UTF-8 is checked when the JSON is decoded; websocket-client's own per-byte
        # check in Python cost more than a millisecond per execution.
        options = dict(
            header=header,
            timeout=self.request_timeout,
            enable_multithread=True,
            skip_utf8_validation=True,
        )
        if self._offer_v1:
            try:
                return websocket.create_connection(
                    address, subprotocols=[wire.V1_PROTOCOL], **options
                )
            except websocket.WebSocketBadStatusException:
                raise  # refused (auth, unknown kernel): asking again would not help
            except websocket.WebSocketException:
                logger.info("the gateway at %s does not offer %s", self.url, wire.V1_PROTOCOL)
                self._offer_v1 = False
        return websocket.create_connection(address, **options)

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.request_timeout
        while time.monotonic() < deadline:
            msg_id = self.send("shell", "kernel_info_request", {})
            retry_at = min(deadline, time.monotonic() + 1.0)
            while True:
                message = self.receive(retry_at)
                if message is None:
                    break
                if message["msg_type"] == "kernel_info_reply" and parent_id(message) == msg_id:
                    return
        raise GatewayError(
            f"Kernel {self.kernel_id} did not answer within {self.request_timeout:g} s."
        )

    def disconnect(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            try:
                ws.close(timeout=1)
            except Exception:  # already gone: nothing to release
                logger.debug("websocket close failed", exc_info=True)

    def send(
        self,
        channel: str,
        msg_type: str,
        content: dict[str, Any],
        parent: dict[str, Any] | None = None,
    ) -> str:
        """Send one message on a channel; return its msg_id."""
        import websocket

        if self._ws is None:
            raise GatewayClosed("The kernel's websocket is not open.")
        message = self._session.msg(msg_type, content=content, parent=parent)
        try:
            if self._binary:
                self._ws.send_binary(wire.encode_v1(message, channel, self._session.pack))
            else:
                self._ws.send(wire.encode_legacy(message, channel))
        except (OSError, websocket.WebSocketException) as error:
            raise self._closed(error) from None
        return message["header"]["msg_id"]

    def _closed(self, error: object) -> GatewayClosed:
        return GatewayClosed(
            f"The connection to the Jupyter gateway at {self.url} was lost ({_describe(error)})"
        )

    def receive(self, deadline: float) -> dict[str, Any] | None:
        """The next message, or None if none arrives before `deadline` (monotonic)."""
        import websocket

        if self._ws is None:
            raise GatewayClosed("The kernel's websocket is not open.")
        self._ws.settimeout(max(0.001, deadline - time.monotonic()))
        _ack_at_once(self._ws.sock)
        try:
            frame = self._ws.recv()
        except websocket.WebSocketTimeoutException:
            return None
        except (OSError, websocket.WebSocketException) as error:
            raise self._closed(error) from None
        if not frame:
            raise self._closed("it closed the websocket")
        try:
            if self._binary and isinstance(frame, bytes):
                return wire.decode_v1(frame, self._session.unpack)
            return wire.decode_legacy(frame)
        except wire.MalformedMessage as error:
            raise GatewayError(
                f"The Jupyter gateway at {self.url} sent a message that is not Jupyter's: {error}"
            ) from None


def _describe(error: object) -> str:
    return str(error).strip().rstrip(".") or type(error).__name__


def _ack_at_once(sock: Any) -> None:
    """Acknowledge received data at once (Linux), instead of after the usual 40 ms delay.

    Jupyter servers (tornado) leave Nagle's algorithm on for websockets, so of the several
    small messages one execution sends back, the second waits until the first is
    acknowledged; a delayed ACK made every execution take about 45 ms on loopback.
    The setting lasts a few packets only, so it is renewed before every read.
    """
    option = getattr(socket, "TCP_QUICKACK", None)  # Linux only
    if option is not None and sock is not None:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, option, 1)
        except OSError:
            pass


def parent_id(message: dict[str, Any]) -> str | None:
    """The msg_id of the request a message answers."""
    return (message.get("parent_header") or {}).get("msg_id")
