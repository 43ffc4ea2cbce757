"""`LiteLLMRouterModel`: one model name served by several deployments through
`litellm.Router` (load balancing, fallbacks)."""

from __future__ import annotations

from typing import Any

from agents.errors import AgentConfigError
from agents.models.litellm_model import LiteLLMModel
from agents.models.provider_errors import ErrorContext


class LiteLLMRouterModel(LiteLLMModel):
    """A model group called through a `litellm.Router`.

    Args:
        model_id: The `model_name` of the group in `model_list` to call.
        model_list: LiteLLM deployments: dicts with `model_name` and `litellm_params`.
        client_kwargs: Extra arguments for `litellm.Router(...)` (e.g. `routing_strategy`).
        **kwargs: See `LiteLLMModel`.
    """

    def __init__(
        self,
        model_id: str,
        model_list: list[dict[str, Any]],
        client_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ):
        if not model_list or not any(d.get("model_name") == model_id for d in model_list):
            raise AgentConfigError(
                f"LiteLLMRouterModel: model_list has no deployment with model_name {model_id!r}."
            )
        super().__init__(model_id=model_id, **kwargs)
        self.model_list = model_list
        self.client_kwargs = dict(client_kwargs or {})

    def create_client(self) -> Any:
        litellm = super().create_client()
        return litellm.Router(model_list=self.model_list, **self.client_kwargs)

    def _call(self, params: dict[str, Any]) -> Any:
        return self.client.completion(**params)

    def error_context(self) -> ErrorContext:
        return ErrorContext(
            type(self).__name__,
            f"LiteLLM router ({len(self.model_list)} deployment(s))",
            self.model_id,
            "check each deployment's litellm_params (api_key, api_base)",
        )
