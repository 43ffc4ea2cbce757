"""`SocketRelay`: a loopback TCP port that forwards each connection to a unix socket.

The Docker executor's container has no network, so its gateway listens on a unix socket
in a bind-mounted folder (`kernel_serve`). The gateway client (`gateway`) speaks HTTP and
websockets over TCP; this relay lets it reach that socket at `http://127.0.0.1:<port>`
unchanged. Each connection gets two threads, one per direction, so that a large upload
and a large output at the same time cannot block each other.
"""

from __future__ import annotations

import logging
import socket
import threading
from pathlib import Path

logger = logging.getLogger(__name__)

_CHUNK = 256 * 1024


class SocketRelay:
    """Forwards `127.0.0.1:port` to the unix socket at `path` until `close()`.

    Args:
        path: The unix socket to reach (it may appear later: a connection made before
            it exists is closed at once, as a refused one would be).
    """

    def __init__(self, path: str | Path):
        self.path = str(path)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._open: set[socket.socket] = set()
        self._guard = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(
            target=self._accept, name=f"smolui-relay-{self.port}", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """The address the gateway client uses."""
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        """Stop accepting and cut every forwarded connection."""
        with self._guard:
            self._closed = True
            sockets, self._open = self._open, set()
        for sock in sockets:
            _cut(sock)
        _cut(self._listener)
        self._thread.join(timeout=5)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # frames go at once
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                upstream.connect(self.path)
            except OSError as error:
                logger.debug("relay: %s is not there yet: %s", self.path, error)
                _cut(client)
                upstream.close()
                continue
            if not self._track(client, upstream):
                return
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(
                    target=self._pump, args=(source, target), name="smolui-relay-pump", daemon=True
                ).start()

    def _track(self, *sockets: socket.socket) -> bool:
        with self._guard:
            if self._closed:
                for sock in sockets:
                    _cut(sock)
                return False
            self._open.update(sockets)
            return True

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        """Copy one direction until its end closes, then pass the end on."""
        try:
            while data := source.recv(_CHUNK):
                target.sendall(data)
            target.shutdown(socket.SHUT_WR)
        except OSError:
            # One side went away: cut both, so the other direction's thread ends too.
            _cut(source)
            _cut(target)
        with self._guard:
            self._open.discard(source)
            done = target not in self._open or _is_closed(target)
        if done:
            _cut(source)
            _cut(target)


def _cut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


def _is_closed(sock: socket.socket) -> bool:
    return sock.fileno() == -1
