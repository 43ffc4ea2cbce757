"""Model servers already running on this machine: Ollama, and OpenAI-compatible servers such
as llama.cpp's `llama-server`, LM Studio and vLLM, found on their usual loopback ports.

Only 127.0.0.1 is asked, with a short timeout, and nothing is ever sent but two GETs per port
(`/api/tags`, Ollama's list, then `/v1/models`, the OpenAI-compatible one).
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
# Ollama, llama-server, LM Studio, vLLM: their defaults.
USUAL_PORTS = (11434, 8080, 1234, 8000)
# Other ports to ask instead, e.g. "11434,9000" (the app's settings read it too).
PORTS_VARIABLE = "SMOLUI_LOCAL_SERVER_PORTS"
_USUAL_NAMES = {11434: "Ollama", 8080: "llama-server", 1234: "LM Studio", 8000: "vLLM"}
# `owned_by` in `/v1/models`, where a server says which it is.
_OWNERS = {"vllm": "vLLM", "llamacpp": "llama-server"}
PROBE_TIMEOUT_S = 0.5
_MAX_ANSWER_BYTES = 1_000_000  # a model list; anything longer is not one


@dataclass(frozen=True)
class LocalModel:
    """A model a local server offers.

    Args:
        name: The model's name on its server (e.g. "qwen2.5-coder:7b").
        server: The server, for people (e.g. "Ollama", "LM Studio").
        spec: The model string that runs it (`agents.models.spec.model_from_spec`).
    """

    name: str
    server: str
    spec: str

    @property
    def label(self) -> str:
        """The name and its server, e.g. "qwen2.5-coder:7b (Ollama)"; a GGUF file's path
        (as llama.cpp's servers name their model) shortened to the file's name."""
        name = self.name.rsplit("/", 1)[-1] if self.name.lower().endswith(".gguf") else self.name
        return f"{name} ({self.server})"


def parse_ports(text: str) -> tuple[int, ...]:
    """Ports from a comma-separated list ("" or blanks: the usual ones).

    Args:
        text: E.g. "11434,8080".

    Raises:
        ValueError: A part that is not a port number.
    """
    parts = [part.strip() for part in (text or "").split(",") if part.strip()]
    if not parts:
        return USUAL_PORTS
    ports = []
    for part in parts:
        if not part.isdigit() or not 0 < int(part) < 65536:
            raise ValueError(f"{part!r} is not a port number (1-65535)")
        ports.append(int(part))
    return tuple(dict.fromkeys(ports))


def find_local_models(
    ports: tuple[int, ...] = USUAL_PORTS, timeout: float = PROBE_TIMEOUT_S
) -> list[LocalModel]:
    """The models the servers on these loopback ports offer, port by port (all asked at once).

    Args:
        ports: Loopback ports to ask.
        timeout: Seconds each request may take (a closed port answers at once).
    """
    if not ports:
        return []
    with ThreadPoolExecutor(max_workers=len(ports), thread_name_prefix="local-models") as pool:
        found = pool.map(lambda port: models_on(port, timeout), ports)
        return [model for models in found for model in models]


def models_on(port: int, timeout: float = PROBE_TIMEOUT_S) -> list[LocalModel]:
    """The models of the server on a loopback port: Ollama's, else an OpenAI-compatible
    server's; none where nothing (or something else) answers.

    Args:
        port: The loopback port.
        timeout: Seconds each request may take.
    """
    tags = _get_json(port, "/api/tags", timeout)
    if isinstance(tags, dict) and isinstance(tags.get("models"), list):
        url = f"http://{LOOPBACK}:{port}"
        names = [entry.get("name") for entry in tags["models"] if isinstance(entry, dict)]
        return [LocalModel(n, "Ollama", f"ollama:{n}@{url}") for n in names if _usable(n)]
    listing = _get_json(port, "/v1/models", timeout)
    if not isinstance(listing, dict) or not isinstance(listing.get("data"), list):
        return []
    entries = [entry for entry in listing["data"] if isinstance(entry, dict)]
    url = f"http://{LOOPBACK}:{port}/v1"
    return [
        LocalModel(entry["id"], _server_name(entry, port), f"openai-local:{entry['id']}@{url}")
        for entry in entries
        if _usable(entry.get("id"))
    ]


def openai_server_for(model: str, ports: tuple[int, ...] = USUAL_PORTS) -> str | None:
    """The base URL (".../v1") of the first OpenAI-compatible loopback server that lists
    `model`, or None.

    Args:
        model: The model's name on its server.
        ports: Loopback ports to ask, in order.
    """
    for found in find_local_models(ports):
        if found.name == model and found.spec.startswith("openai-local:"):
            return found.spec.rpartition("@")[2]
    return None


class LocalModelSearch:
    """Looks for local servers' models in a background thread, once; what it has found so
    far is there to read at any time (nothing until the search ends).

    Args:
        ports: Loopback ports to ask.
        timeout: Seconds each request may take.
    """

    def __init__(self, ports: tuple[int, ...] = USUAL_PORTS, timeout: float = PROBE_TIMEOUT_S):
        self.ports = ports
        self.timeout = timeout
        self._found: tuple[LocalModel, ...] = ()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> LocalModelSearch:
        """Start the search (idempotent); returns self."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._search, name="smolui-local-models", daemon=True
                )
                self._thread.start()
        return self

    def _search(self) -> None:
        try:
            self._found = tuple(find_local_models(self.ports, self.timeout))
            if self._found:
                logger.info("local models found: %s", ", ".join(m.label for m in self._found))
        except Exception:  # a search that fails finds nothing; the app runs on
            logger.warning("looking for local model servers failed", exc_info=True)
        finally:
            self._done.set()

    @property
    def found(self) -> tuple[LocalModel, ...]:
        """The models found (empty while the search runs)."""
        return self._found

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the search to end; whether it has.

        Args:
            timeout: Seconds to wait (None: as long as it takes).
        """
        return self._done.wait(timeout)


def _usable(name: Any) -> bool:
    # A name goes into a model string: "@" would read as the start of its address.
    return isinstance(name, str) and bool(name.strip()) and "@" not in name


def _server_name(entry: dict[str, Any], port: int) -> str:
    owner = _OWNERS.get(str(entry.get("owned_by", "")).lower())
    if owner:
        return owner
    if port in _USUAL_NAMES and port != 11434:
        return _USUAL_NAMES[port]
    return f"OpenAI-compatible server, port {port}"


def _get_json(port: int, path: str, timeout: float) -> Any:
    """GET `path` on a loopback port: the JSON answer, or None (nothing there, an error
    status, not JSON). Redirects are not followed: only this port is asked."""
    connection = http.client.HTTPConnection(LOOPBACK, port, timeout=timeout)
    try:
        connection.request("GET", path, headers={"Accept": "application/json"})
        answer = connection.getresponse()
        if answer.status != 200:
            return None
        return json.loads(answer.read(_MAX_ANSWER_BYTES))  # cut short: not JSON, so None
    except (OSError, http.client.HTTPException, ValueError):
        return None
    finally:
        connection.close()
