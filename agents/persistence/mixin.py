"""Saving, loading and copying agents (saving and loading are thin layers over
`agents.persistence.serialization`)."""

from __future__ import annotations

from typing import Any


class PersistenceMixin:
    """`clone`, `to_dict`/`from_dict`, `save`/`from_folder`, `push_to_hub`/`from_hub`."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        agent = super().__new__(cls)
        agent._init_call = (args, dict(kwargs))  # what `clone` rebuilds from
        return agent

    def clone(self) -> Any:
        """A new agent with the same configuration, tools and model, but its own memory,
        executor and managed agents: how one agent definition serves many visitors.

        Raises:
            AgentConfigError: The agent was given a ready `executor`, which cannot be shared.
        """
        from agents.errors import AgentConfigError
        from agents.loop.managed import ManagedAgent

        args, kwargs = self._init_call
        kwargs = dict(kwargs)
        if kwargs.get("executor") is not None:
            raise AgentConfigError(
                "An agent built with a ready executor cannot be cloned: pass executor_type "
                "and executor_kwargs instead."
            )
        managed = []
        for entry in kwargs.get("managed_agents") or []:
            if isinstance(entry, ManagedAgent):
                entry = ManagedAgent(
                    entry.agent.clone(),
                    entry.name,
                    entry.description,
                    entry.agent.provide_run_summary,
                )
            else:
                entry = entry.clone()
            managed.append(entry)
        if managed:
            kwargs["managed_agents"] = managed
        return type(self)(*args, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        """The agent as a JSON-ready dict (tools as code, model as its settings)."""
        from agents.persistence.serialization import agent_to_dict

        return agent_to_dict(self)

    @classmethod
    def from_dict(cls, agent_dict: dict[str, Any], **kwargs: Any) -> Any:
        """Rebuild an agent from `to_dict()`; kwargs override saved values."""
        from agents.persistence.serialization import agent_from_dict

        return agent_from_dict(agent_dict, **kwargs)

    def save(self, output_dir: str, relative_path: str | None = None) -> None:
        """Write agent.json, prompts.yaml, tools/, managed_agents/, requirements.txt, app.py."""
        from agents.persistence.serialization import save_agent

        save_agent(self, output_dir)

    @classmethod
    def from_folder(cls, folder: str, **kwargs: Any) -> Any:
        """Load an agent saved with `save()`; tool code needs `trust_remote_code=True`."""
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
        from agents.persistence.serialization import push_agent_to_hub

        return push_agent_to_hub(
            self,
            repo_id,
            commit_message=commit_message,
            private=private,
            token=token,
            create_pr=create_pr,
        )

    @classmethod
    def from_hub(
        cls, repo_id: str, token: str | None = None, trust_remote_code: bool = False, **kwargs: Any
    ) -> Any:
        """Download and load an agent from the Hub (code needs `trust_remote_code=True`)."""
        from agents.persistence.serialization import agent_from_hub

        return agent_from_hub(repo_id, token=token, trust_remote_code=trust_remote_code, **kwargs)
