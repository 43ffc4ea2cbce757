"""`OpenAIServerModel` (any OpenAI-compatible server) and `AzureOpenAIServerModel`."""

from __future__ import annotations

import os
from typing import Any

from agents.errors import AgentConfigError
from agents.models.chat_completion import ChatCompletionModel
from agents.models.optional import optional_import
from agents.models.provider_errors import ErrorContext

# Local servers (llama.cpp, vLLM, Ollama...) need some key in the header but check none.
_PLACEHOLDER_KEY = "not-needed"


class OpenAIServerModel(ChatCompletionModel):
    """A model behind the OpenAI API or any server that speaks it.

    Args:
        model_id: The model name the server knows, e.g. "gpt-4o-mini".
        api_base: The server's base URL, e.g. "http://localhost:8000/v1" (default: OpenAI).
        api_key: The key; default `OPENAI_API_KEY`. Optional when `api_base` is given.
        organization: OpenAI organization id.
        project: OpenAI project id.
        timeout: Seconds to wait for an answer.
        client_kwargs: Extra arguments for `openai.OpenAI(...)`.
        **kwargs: `Model` options and completion parameters (`temperature`, `max_tokens`...).
    """

    def __init__(
        self,
        model_id: str,
        api_base: str | None = None,
        api_key: str | None = None,
        organization: str | None = None,
        project: str | None = None,
        timeout: float | None = None,
        client_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ):
        super().__init__(model_id=model_id, **kwargs)
        self.api_base = api_base
        api_key = api_key or os.environ.get("OPENAI_API_KEY")
        if not api_key and not api_base:
            raise AgentConfigError(
                "OpenAIServerModel needs an API key for OpenAI: set OPENAI_API_KEY or pass "
                "api_key=. For a local OpenAI-compatible server, pass api_base= instead."
            )
        self._api_key = api_key or _PLACEHOLDER_KEY
        self._key_given = bool(api_key)
        self.client_kwargs = {
            "organization": organization,
            "project": project,
            **({"timeout": timeout} if timeout is not None else {}),
            **(client_kwargs or {}),
        }

    def create_client(self) -> Any:
        openai = optional_import("openai", "openai", type(self).__name__)
        return openai.OpenAI(base_url=self.api_base, api_key=self._api_key, **self.client_kwargs)

    def _call(self, params: dict[str, Any]) -> Any:
        return self.client.chat.completions.create(**params)

    def error_context(self) -> ErrorContext:
        if self._key_given:
            hint = "check the key in OPENAI_API_KEY or the api_key= you passed"
        else:
            hint = "no key was given: set OPENAI_API_KEY or pass api_key="
        return ErrorContext(
            type(self).__name__, self.api_base or "https://api.openai.com/v1", self.model_id, hint
        )


class AzureOpenAIServerModel(OpenAIServerModel):
    """A model deployed on Azure OpenAI.

    Args:
        model_id: The deployment name.
        azure_endpoint: E.g. "https://my-resource.openai.azure.com"; default
            `AZURE_OPENAI_ENDPOINT`.
        api_key: Default `AZURE_OPENAI_API_KEY` (or pass an `azure_ad_token_provider` in
            `client_kwargs`).
        api_version: E.g. "2024-10-21"; default `OPENAI_API_VERSION`.
        timeout: Seconds to wait for an answer.
        client_kwargs: Extra arguments for `openai.AzureOpenAI(...)`.
        **kwargs: `Model` options and completion parameters.
    """

    def __init__(
        self,
        model_id: str,
        azure_endpoint: str | None = None,
        api_key: str | None = None,
        api_version: str | None = None,
        timeout: float | None = None,
        client_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ):
        client_kwargs = dict(client_kwargs or {})
        endpoint = azure_endpoint or os.environ.get("AZURE_OPENAI_ENDPOINT")
        api_key = api_key or os.environ.get("AZURE_OPENAI_API_KEY")
        api_version = api_version or os.environ.get("OPENAI_API_VERSION")
        missing = [
            text
            for value, text in (
                (endpoint, "azure_endpoint= or AZURE_OPENAI_ENDPOINT"),
                (api_key or _has_ad_token(client_kwargs), "api_key= or AZURE_OPENAI_API_KEY"),
                (api_version, "api_version= or OPENAI_API_VERSION (e.g. 2024-10-21)"),
            )
            if not value
        ]
        if missing:
            raise AgentConfigError(
                f"AzureOpenAIServerModel for deployment {model_id!r} is missing: "
                + "; ".join(missing)
                + "."
            )
        ChatCompletionModel.__init__(self, model_id=model_id, **kwargs)
        self.api_base = endpoint
        self._api_key = api_key
        self._key_given = bool(api_key)
        self.client_kwargs = {
            "azure_endpoint": endpoint,
            "api_version": api_version,
            **({"timeout": timeout} if timeout is not None else {}),
            **client_kwargs,
        }

    def create_client(self) -> Any:
        openai = optional_import("openai", "openai", type(self).__name__)
        return openai.AzureOpenAI(api_key=self._api_key, **self.client_kwargs)

    def error_context(self) -> ErrorContext:
        return ErrorContext(
            type(self).__name__,
            str(self.api_base),
            self.model_id,
            "check AZURE_OPENAI_API_KEY (or api_key=) and that the deployment exists",
        )


def _has_ad_token(client_kwargs: dict[str, Any]) -> bool:
    return bool(client_kwargs.get("azure_ad_token") or client_kwargs.get("azure_ad_token_provider"))


# smolagents' current names; the *ServerModel names above stay for older scripts.
OpenAIModel = OpenAIServerModel
AzureOpenAIModel = AzureOpenAIServerModel
