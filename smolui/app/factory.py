"""Agent factories: how each conversation gets its own agent.

`GradioUI` accepts a factory (called once per conversation, optionally with the
conversation's upload folder) or, for smolagents-style scripts, a ready agent instance.
An instance may own a worker process, so two conversations never share it: it serves one
conversation at a time and is reset between them, and further conversations get clones of
it. Visitors never share memory.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError
from agents.loop.agent import MultiStepAgent
from smolui.sessions import AgentLender, SessionCapacityError
from smolui.sessions.model_choice import model_choices, model_offered
from smolui.uploads.folders import work_folder

logger = logging.getLogger(__name__)

AgentOrFactory = MultiStepAgent | Callable[..., MultiStepAgent]


def as_factory(agent_or_factory: AgentOrFactory) -> Callable[..., MultiStepAgent]:
    """A per-conversation factory from an agent instance or a factory.

    Args:
        agent_or_factory: An agent (a `MultiStepAgent` such as `CodeAgent`), or a callable
            returning a new agent.

    Raises:
        TypeError: Neither an agent nor a callable.
    """
    if isinstance(agent_or_factory, MultiStepAgent):
        return SingleAgentFactory(agent_or_factory)
    if callable(agent_or_factory):
        return agent_or_factory
    raise TypeError(
        "GradioUI needs an agent (a MultiStepAgent such as CodeAgent or ToolCallingAgent) or "
        f"a function that builds one, not {type(agent_or_factory).__name__}."
    )


class SingleAgentFactory(AgentLender):
    """Lends one agent instance to one conversation at a time; further conversations get a
    clone of it (`agent.clone()`), or wait when it cannot be cloned (a ready executor).

    Args:
        agent: The agent instance.
    """

    def __init__(self, agent: MultiStepAgent):
        self.agent = agent
        self._lent = False
        self._lock = threading.Lock()

    def __call__(self, upload_dir: Path | None = None) -> MultiStepAgent:
        with self._lock:
            lend = not self._lent
            self._lent = True
        if lend:
            return _reading(self.agent, upload_dir)
        try:
            return _reading(self.agent.clone(), upload_dir)
        except AgentConfigError:
            logger.info("the app's agent cannot be cloned", exc_info=True)
        raise SessionCapacityError(
            "This app serves one conversation at a time (it was given a single agent). "
            "Try again when the current conversation ends; the app's owner can pass an agent "
            "factory to GradioUI to serve several."
        )

    def release(self, agent: MultiStepAgent) -> None:
        """Take the agent back after its conversation ends, wiping its memory.

        Args:
            agent: The agent the conversation used.
        """
        if agent is not self.agent:
            agent.close()  # a clone
            return
        agent.reset()
        _reading(agent, None)  # the next conversation must not see this one's files
        with self._lock:
            self._lent = False


def _reading(agent: MultiStepAgent, folder: Path | None) -> MultiStepAgent:
    """Let a sandboxed agent's code read its conversation's upload folder (and no other)."""
    agent.grant_read_paths([str(folder)] if folder is not None else [])
    return agent


# Tool names accepted by `--tools`, and where each tool class lives.
TOOL_CLASSES = {
    "web_search": ("tools.web_search", "WebSearchTool"),
    "visit_webpage": ("tools.visit_webpage", "VisitWebpageTool"),
    "transcriber": ("tools.transcriber", "SpeechToTextTool"),
    "python_interpreter": ("tools.python_interpreter", "PythonInterpreterTool"),
}


def resolve_tools(names: tuple[str, ...] | list[str]) -> list[Any]:
    """Tool instances for `--tools` names.

    Args:
        names: Tool names (see `TOOL_CLASSES`).

    Raises:
        AgentConfigError: An unknown name.
    """
    import importlib

    tools = []
    for name in names:
        if name not in TOOL_CLASSES:
            raise AgentConfigError(
                f"Unknown tool {name!r}; choose from {', '.join(sorted(TOOL_CLASSES))}."
            )
        module, cls = TOOL_CLASSES[name]
        tool_class = getattr(importlib.import_module(module), cls)  # a module's, imported on use
        tools.append(tool_class())
    return tools


class AgentFactory:
    """Builds one agent per conversation from the app's settings.

    The model is shared (loaded once, in the background); a scripted model is built per
    conversation so each replays its own script. A conversation may pick another of
    `settings.models`, or with `settings.find_local_servers` a model that a server on this
    machine offers (looked for in the background from here on): each gets its own loader,
    started when first picked. Every agent gets the app's default tools
    (`tools.toolbox.app_tools`: unit conversion and the document tools for its
    conversation's upload folder, which its sandbox may read), and the tools of the
    configured MCP servers (`settings.mcp_servers`, connected on first use).

    Args:
        settings: The app settings.
        loader: The shared loader of the default model (`settings.model`).
        make_loader: Builds the loader of another picked spec (default: `ModelLoader`).
    """

    def __init__(self, settings: Any, loader: Any, make_loader: Callable[[str], Any] | None = None):
        self.settings = settings
        self.loader = loader
        self._make_loader = make_loader or _model_loader
        self._loaders: dict[str, Any] = {}
        self._loaders_lock = threading.Lock()
        resolve_tools(settings.tools)  # fail at start-up, not at the first message
        # A malformed server list fails at start-up too; the servers connect on first use.
        self.mcp_tools = _configured_mcp_tools(settings.mcp_servers)
        self.local_models = _local_model_search(settings)

    def model_choices(self) -> list[tuple[str, str]]:
        """The model picker's (label, value) pairs now: the default model, `settings.models`,
        then the models found on local servers so far."""
        found = self.local_models.found if self.local_models is not None else ()
        found_pairs = [(model.label, model.spec) for model in found]
        return model_choices(self.settings.model, self.settings.models, found_pairs)

    def offers(self, spec: str) -> bool:
        """Whether a conversation may run the model `spec`: the default model, one of
        `settings.models`, or one found on a local server.

        Args:
            spec: A model spec (e.g. stored with a conversation).
        """
        found = self.local_models.found if self.local_models is not None else ()
        specs = {model.spec for model in found}
        return model_offered(spec, self.settings.model, self.settings.models, specs)

    def loader_for(self, spec: str | None) -> Any:
        """The loader of `spec` (the default model's for None), made on first use.

        Args:
            spec: A model spec from `settings.models` or found on a local server, or None.

        Raises:
            AgentConfigError: A spec the app was not configured with.
        """
        spec = self._picked(spec)
        if spec is None:
            return self.loader
        with self._loaders_lock:
            if spec not in self._loaders:
                self._loaders[spec] = self._make_loader(spec)
            return self._loaders[spec]

    def _picked(self, spec: str | None) -> str | None:
        """`spec` when it is another model this app offers, None for the default model."""
        if spec is None or spec == (self.settings.model or "local"):
            return None
        if not self.offers(spec):
            raise AgentConfigError(
                f"Model {spec!r} is not one of this app's --models, nor found on a local server."
            )
        return spec

    def _model(self, spec: str | None = None) -> Any:
        chosen = self._picked(spec) or self.settings.model or "local"
        if chosen.startswith("scripted:"):
            from agents.models.spec import model_from_spec

            return model_from_spec(chosen)
        return self.loader_for(spec).get()

    def __call__(self, upload_dir: Path, model: str | None = None) -> MultiStepAgent:
        from agents.observability.console import LogLevel
        from tools.toolbox import app_tools

        upload_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        settings = self.settings
        tools = resolve_tools(settings.tools) + app_tools(upload_dir)
        if self.mcp_tools is not None:
            tools += self.mcp_tools.tools(reserved={"final_answer", *(t.name for t in tools)})
        common = dict(
            max_steps=settings.max_steps,
            planning_interval=settings.planning_interval,
            stream_outputs=settings.stream_outputs,
            verbosity_level=LogLevel.OFF,
        )
        if settings.agent_type == "tool_calling":
            from agents.loop.tool_calling_agent import ToolCallingAgent

            return ToolCallingAgent(
                tools, self._model(model), small_model=settings.small_model, **common
            )
        from agents.loop.code_agent import CodeAgent

        # The sandbox reads the uploads in place; remote kernels get copies of them.
        executor_kwargs: dict[str, Any] = (
            {} if settings.executor == "local" else {"read_only_paths": [str(upload_dir)]}
        )
        if settings.executor == "jupyter":
            executor_kwargs["url"] = settings.executor_url
        if settings.executor == "sandbox":
            executor_kwargs["memory_limit_mb"] = settings.sandbox_memory_mb
            # A working folder of its own, kept: files the code writes are offered for download.
            executor_kwargs["scratch_dir"] = str(work_folder(upload_dir))
        if settings.executor == "docker":
            from smolui.app.docker_engine import docker_executor_kwargs

            executor_kwargs.update(docker_executor_kwargs(settings))
        return CodeAgent(
            tools,
            self._model(model),
            executor_type=settings.executor,
            executor_kwargs=executor_kwargs,
            small_model=settings.small_model,
            **common,
        )


def _configured_mcp_tools(source: str) -> Any:
    """The configured MCP servers' tools (`tools.mcp_config.ConfiguredTools`), or None."""
    if not source:
        return None
    from tools.mcp_config import ConfiguredTools, load_servers

    return ConfiguredTools(load_servers(source))


def _local_model_search(settings: Any) -> Any:
    """A started `LocalModelSearch` when the settings ask for one, else None."""
    wanted = settings.find_local_servers
    if wanted is None:  # unless told, look only with the default offline model
        wanted = (settings.model or "local") == "local"
    if not wanted:
        return None
    from agents.models.local_servers import LocalModelSearch, parse_ports

    return LocalModelSearch(parse_ports(settings.local_server_ports)).start()


def _model_loader(spec: str) -> Any:
    from smolui.app.model_loader import ModelLoader

    return ModelLoader(spec)
