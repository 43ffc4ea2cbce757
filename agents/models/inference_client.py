"""`InferenceClientModel` (alias `HfApiModel`): Hugging Face Inference Providers, TGI, or any
OpenAI-compatible endpoint, through huggingface_hub's `InferenceClient`."""

from __future__ import annotations

import functools
import inspect
import os
from typing import Any

from agents.models.chat_completion import ChatCompletionModel
from agents.models.optional import optional_import
from agents.models.provider_errors import ErrorContext

DEFAULT_HF_MODEL = "Qwen/Qwen2.5-Coder-32B-Instruct"


class InferenceClientModel(ChatCompletionModel):
    """A model served by Hugging Face Inference Providers or a TGI / OpenAI-compatible server.

    Args:
        model_id: A Hub model id, e.g. "Qwen/Qwen2.5-Coder-32B-Instruct".
        provider: An inference provider ("together", "sambanova", "hf-inference", ...);
            default: huggingface_hub's choice.
        token: A Hugging Face token; default `HF_TOKEN` (or the token saved by
            `huggingface-cli login`).
        timeout: Seconds to wait for an answer.
        base_url: Send requests to this endpoint instead (a TGI server, a llama.cpp server,
            any OpenAI-compatible URL); `model_id` is then sent as the request's model name.
        bill_to: Organization to bill for Inference Providers.
        client_kwargs: Extra arguments for `InferenceClient(...)`.
        api_key: Same as `token` (for symmetry with other backends).
        **kwargs: `Model` options and completion parameters (`temperature`, `max_tokens`...).
    """

    def __init__(
        self,
        model_id: str = DEFAULT_HF_MODEL,
        provider: str | None = None,
        token: str | None = None,
        timeout: float | None = 120,
        base_url: str | None = None,
        bill_to: str | None = None,
        client_kwargs: dict[str, Any] | None = None,
        api_key: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(model_id=model_id, **kwargs)
        self.provider = provider
        self.base_url = base_url
        self._token = token or api_key or os.environ.get("HF_TOKEN")
        self.client_kwargs = {
            "provider": provider,
            "timeout": timeout,
            "bill_to": bill_to,
            **(client_kwargs or {}),
        }

    def create_client(self) -> Any:
        hub = optional_import("huggingface_hub", "huggingface-hub", type(self).__name__)
        kwargs = {k: v for k, v in self.client_kwargs.items() if v is not None}
        if self.base_url:
            return hub.InferenceClient(base_url=self.base_url, token=self._token, **kwargs)
        return hub.InferenceClient(model=self.model_id, token=self._token, **kwargs)

    def _call(self, params: dict[str, Any]) -> Any:
        # chat_completion takes named parameters only; others travel in the JSON body.
        known = _chat_completion_parameters(type(self.client))
        extra = {k: params.pop(k) for k in list(params) if k not in known}
        if extra:
            params["extra_body"] = {**params.get("extra_body", {}), **extra}
        return self.client.chat_completion(**params)

    def error_context(self) -> ErrorContext:
        if self.base_url:
            where = self.base_url
        else:
            where = f"Hugging Face Inference Providers (provider={self.provider or 'auto'})"
        if self._token:
            hint = "check HF_TOKEN (or token=) and that it may call Inference Providers"
        else:
            hint = (
                "no Hugging Face token was found: create one at "
                "https://huggingface.co/settings/tokens and set HF_TOKEN (or pass token=)"
            )
        return ErrorContext(type(self).__name__, where, self.model_id, hint)


@functools.cache
def _chat_completion_parameters(client_class: type) -> frozenset[str]:
    return frozenset(inspect.signature(client_class.chat_completion).parameters)


HfApiModel = InferenceClientModel
