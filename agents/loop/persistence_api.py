"""The saving, loading and copying methods on the agent: thin layers over
`agents.persistence`, which does the work."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents.loop.managed import ManagedAgent

if TYPE_CHECKING:
    from agents.loop.config import AgentConfig


class PersistenceMixin:
    """`clone`, `to_dict`/`from_dict`, `save`/`from_folder`, `push_to_hub`/`from_hub`.

    Built on what `MultiStepAgent` defines: `config` (the constructor's arguments), and the
    settings it holds now (`saved_settings`).
    """

    config: AgentConfig

    def clone(self) -> Any:
        """A new agent with the same configuration, tools and model, but its own memory,
        executor and managed agents: how one agent definition serves many visitors.

        A subclass whose constructor takes other arguments than its base's overrides this.

        Raises:
            AgentConfigError: The agent was given a ready `executor`, which cannot be shared.
        """
        arguments = self.config.arguments()
        managed = [_clone_managed(entry) for entry in self.config.managed_agents or []]
        if managed:
            arguments["managed_agents"] = managed
        return type(self)(**arguments)

    def saved_settings(self) -> dict[str, Any]:
        """The settings `to_dict` saves, as the agent holds them now (a managed agent's name
        and description included)."""
        return {
            "max_steps": self.max_steps,
            "planning_interval": self.planning_interval,
            "name": self.name,
            "description": self.description,
            "provide_run_summary": self.provide_run_summary,
            "return_full_result": self.return_full_result,
            "stream_outputs": self.stream_outputs,
            "max_context_tokens": self.max_context_tokens,
            "instructions": self.instructions,
        }

    def to_dict(self) -> dict[str, Any]:
        """The agent as a JSON-ready dict (each tool as its `Tool.to_dict()`, with its
        code; the model as its settings)."""
        from agents.persistence.serialization import agent_to_dict

        return agent_to_dict(self)

    @classmethod
    def from_dict(cls, agent_dict: dict[str, Any], **kwargs: Any) -> Any:
        """Rebuild an agent from `to_dict()` (tools as tool dicts, or the older names and
        "tool_code"); its tools' code runs; kwargs override saved values."""
        from agents.persistence.serialization import agent_from_dict

        return agent_from_dict(agent_dict, **kwargs)

    def save(self, output_dir: str, relative_path: str | None = None) -> None:
        """Write agent.json, prompts.yaml, tools/, managed_agents/, requirements.txt, app.py."""
        from agents.persistence.serialization import save_agent

        save_agent(self, output_dir)

    @classmethod
    def from_folder(cls, folder: str, **kwargs: Any) -> Any:
        """Load an agent saved with `save()`; its tools' code runs (a warning names them
        unless `trust_remote_code=True` is passed)."""
        from agents.persistence.serialization import agent_from_folder

        return agent_from_folder(folder, **kwargs)

    def push_to_hub(
        self,
        repo_id: str,
        commit_message: str = "Upload agent",
        private: bool | None = None,
        token: str | None = None,
        create_pr: bool = False,
    ) -> str:
        """Upload the saved agent to a Hub repository (a Space)."""
        from tools.hub import push_folder_to_hub

        return push_folder_to_hub(self.save, repo_id, commit_message, private, token, create_pr)

    @classmethod
    def from_hub(
        cls, repo_id: str, token: str | None = None, trust_remote_code: bool = False, **kwargs: Any
    ) -> Any:
        """Download and load an agent from the Hub (code needs `trust_remote_code=True`)."""
        from agents.persistence.serialization import agent_from_hub

        return agent_from_hub(repo_id, token=token, trust_remote_code=trust_remote_code, **kwargs)


def _clone_managed(entry: Any) -> Any:
    """A managed agent's own clone, wrapped as it was."""
    if isinstance(entry, ManagedAgent):
        return ManagedAgent(
            entry.agent.clone(), entry.name, entry.description, entry.agent.provide_run_summary
        )
    return entry.clone()
