"""MCP servers by configuration: the tools of the servers an operator lists join every agent.

The configuration (`--mcp-servers` / `SMOLUI_MCP_SERVERS`) is the path of a YAML or JSON
file, or the JSON itself:

    servers:
      calc:                             # a local server, started as a subprocess (stdio)
        command: python
        args: [calc_server.py]
        env: {CALC_MODE: fast}
        tools: [add, word-count]        # the allow-list (default: every tool of the server)
      search:                           # a remote server (streamable HTTP; `transport: sse`)
        url: https://example.com/mcp
        headers: {Authorization: "Bearer ${SEARCH_TOKEN}"}   # ${VAR}: from the environment
        timeout: 20                     # seconds to connect (default 30)

Claude Desktop's `mcpServers` key is read like `servers`, so its config can be pasted. A
server that cannot be reached (or lacks a variable its headers name) is logged once and
skipped: the app and its turns go on without its tools.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.errors import AgentConfigError
from tools.base import Tool

if TYPE_CHECKING:  # tools.mcp loads with the first server
    from tools.mcp import MCPTool

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 30.0
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_KEYS = {"command", "args", "env", "cwd", "url", "transport", "headers", "tools", "timeout"}


@dataclass(frozen=True)
class ServerConfig:
    """One configured MCP server.

    Args:
        name: Its name in the configuration (for the logs).
        params: `MCPClient` server parameters; `${VAR}` in header and env values are still
            unresolved (secrets are read from the environment when it connects).
        allowed: Names of the tools the agents may use (None: all of them).
        timeout: Seconds to wait for it to start and list its tools.
    """

    name: str
    params: dict[str, Any]
    allowed: tuple[str, ...] | None = None
    timeout: float = CONNECT_TIMEOUT_S


def load_servers(source: str) -> list[ServerConfig]:
    """The servers a configuration lists.

    Args:
        source: A YAML/JSON file's path, or JSON text (starting with `{`).

    Raises:
        AgentConfigError: The file is missing or the configuration is malformed.
    """
    text = source.strip()
    if not text:
        return []
    if text.startswith("{"):
        data, where = _json(text, "SMOLUI_MCP_SERVERS"), "SMOLUI_MCP_SERVERS"
    else:
        path = Path(text).expanduser()
        if not path.is_file():
            raise AgentConfigError(f"MCP servers: no file {path} (a tools.yaml path, or JSON).")
        data, where = _file(path), str(path)
    if not isinstance(data, dict):
        raise AgentConfigError(f"{where}: expected a mapping with a 'servers' key.")
    servers = data.get("servers", data.get("mcpServers"))
    if not isinstance(servers, dict):
        raise AgentConfigError(f"{where}: 'servers' must map each server's name to its settings.")
    return [_server(str(name), spec, where) for name, spec in servers.items()]


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise AgentConfigError(f"{where}: not valid JSON ({error}).") from None


def _file(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        return _json(text, str(path))
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise AgentConfigError(f"{path}: not valid YAML ({error}).") from None


def _server(name: str, spec: Any, where: str) -> ServerConfig:
    """One server's settings, checked."""
    place = f"{where}: server {name!r}"
    if not isinstance(spec, dict):
        raise AgentConfigError(f"{place}: expected its settings (command or url).")
    unknown = sorted(set(spec) - _KEYS)
    if unknown:
        raise AgentConfigError(f"{place}: unknown keys {unknown}; known: {sorted(_KEYS)}.")
    if ("command" in spec) == ("url" in spec):
        raise AgentConfigError(f"{place}: give either 'command' (stdio) or 'url' (HTTP).")
    allowed = spec.get("tools")
    if allowed is not None and not _strings(allowed):
        raise AgentConfigError(f"{place}: 'tools' must be a list of tool names.")
    try:
        timeout = float(spec.get("timeout", CONNECT_TIMEOUT_S))
    except (TypeError, ValueError):
        raise AgentConfigError(f"{place}: 'timeout' must be a number of seconds.") from None
    if "url" in spec:
        params = {
            "url": str(spec["url"]),
            "transport": str(spec.get("transport") or "streamable-http"),
        }
        params["headers"] = _mapping(spec.get("headers"), f"{place}: 'headers'")
    else:
        args = spec.get("args") or []
        if not _strings(args):
            raise AgentConfigError(f"{place}: 'args' must be a list of strings.")
        params = {"command": str(spec["command"]), "args": [str(a) for a in args],
                  "env": _mapping(spec.get("env"), f"{place}: 'env'"), "cwd": spec.get("cwd")}  # fmt: skip
    return ServerConfig(name, params, tuple(allowed) if allowed is not None else None, timeout)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str | int | float) for item in value)


def _mapping(value: Any, place: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise AgentConfigError(f"{place} must map names to values.")
    return {str(key): str(item) for key, item in value.items()}


def resolve(params: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """Server parameters with `${VAR}` in header and env values read from `environ`.

    Args:
        params: A `ServerConfig.params`.
        environ: The environment.

    Raises:
        KeyError: A variable that is not set (its name).
    """

    def fill(text: str) -> str:
        return _VARIABLE.sub(lambda found: environ[found.group(1)], text)

    resolved = dict(params)
    for key in ("headers", "env"):
        if resolved.get(key) is not None:
            resolved[key] = {name: fill(value) for name, value in resolved[key].items()}
    # A stdio server gets mcp's safe variables (PATH, HOME...) and its own, never the app's
    # secrets: a `${VAR}` in its env passes one on by name.
    return resolved


class ConfiguredTools:
    """The tools of the configured servers, connected once on first use and shared by every
    agent (an MCP session serves concurrent calls).

    Args:
        servers: The configured servers.
        connect: Makes a client for server parameters and a timeout (default: `MCPClient`).
        environ: Where `${VAR}` values come from (default: `os.environ`).
    """

    def __init__(
        self,
        servers: Iterable[ServerConfig],
        connect: Callable[[dict[str, Any], float], Any] | None = None,
        environ: Mapping[str, str] | None = None,
    ):
        self.servers = list(servers)
        self._connect = connect or _mcp_client
        self._environ = environ
        self._lock = threading.Lock()
        self._clients: list[Any] = []
        self._tools: list[Tool] | None = None
        self._warned: set[str] = set()

    def tools(self, reserved: Iterable[str] = ()) -> list[Tool]:
        """The allowed tools of every server that answered, but those whose names are taken.

        Args:
            reserved: Names of the agent's other tools (an MCP tool never replaces one).
        """
        with self._lock:
            if self._tools is None:
                self._tools = self._connect_all()
            taken = set(reserved)
            chosen = []
            for tool in self._tools:
                if tool.name in taken:
                    self._warn_once(tool.name, "MCP tool %r is skipped: the agent already has "
                                    "a tool of that name", tool.name)  # fmt: skip
                    continue
                taken.add(tool.name)
                chosen.append(tool)
            return chosen

    def _connect_all(self) -> list[Tool]:
        environ = os.environ if self._environ is None else self._environ
        found: list[Tool] = []
        for server in self.servers:
            try:
                params = resolve(server.params, environ)
            except KeyError as missing:
                logger.warning("MCP server %r is skipped: environment variable %s is not set",
                               server.name, missing)  # fmt: skip
                continue
            try:
                client = self._connect(params, server.timeout)
                client.connect()
            except Exception as error:  # a server that is down never stops the app
                logger.warning("MCP server %r is skipped: %s", server.name, error)
                continue
            self._clients.append(client)
            found += _allowed(server, client.get_tools())
        logger.info("MCP servers give the agents %d tool(s)", len(found))
        return found

    def _warn_once(self, key: str, message: str, *args: Any) -> None:
        if key not in self._warned:
            self._warned.add(key)
            logger.warning(message, *args)

    def close(self) -> None:
        """Disconnect every server (a stdio server's process ends)."""
        with self._lock:
            for client in self._clients:
                client.disconnect()
            self._clients, self._tools = [], None


def _allowed(server: ServerConfig, tools: list[MCPTool]) -> list[Tool]:
    """The server's tools its allow-list names (by the server's name or the agent's)."""
    if server.allowed is None:
        return list(tools)
    allowed = {str(name) for name in server.allowed}
    chosen = [t for t in tools if t.name in allowed or t.remote_name in allowed]
    named = {t.name for t in chosen} | {t.remote_name for t in chosen}
    missing = sorted(allowed - named)
    if missing:
        logger.warning("MCP server %r has no tool(s) %s (its allow-list names them)",
                       server.name, missing)  # fmt: skip
    return chosen


def _mcp_client(params: dict[str, Any], timeout: float) -> Any:
    from tools.mcp import MCPClient

    return MCPClient(params, connect_timeout=timeout)
