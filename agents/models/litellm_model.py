"""`LiteLLMModel`: any provider LiteLLM knows (Anthropic, Ollama, OpenAI, Azure, Groq, ...)."""

from __future__ import annotations

import os
from typing import Any

from agents.models.chat_completion import ChatCompletionModel
from agents.models.optional import optional_import
from agents.models.provider_errors import ErrorContext

# Providers whose servers accept only string content (no content blocks).
_TEXT_ONLY_PREFIXES = ("ollama", "groq", "cerebras")


class LiteLLMModel(ChatCompletionModel):
    """A model called through `litellm.completion`.

    Args:
        model_id: LiteLLM's "provider/model" name, e.g. "ollama_chat/llama3.2",
            "anthropic/claude-3-5-sonnet-latest", "openai/gpt-4o-mini", "azure/<deployment>".
        api_base: The provider's URL, e.g. "http://localhost:11434" for Ollama.
        api_key: The key; by default LiteLLM reads the provider's variable
            (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `AZURE_API_KEY`, ...).
        timeout: Seconds to wait for an answer.
        flatten_messages_as_text: Send text only; default True for Ollama, Groq and Cerebras.
        **kwargs: `Model` options and completion parameters passed through to LiteLLM
            (`num_ctx=8192` for Ollama, `temperature`, `max_tokens`, ...).
    """

    def __init__(
        self,
        model_id: str = "anthropic/claude-3-5-sonnet-latest",
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float | None = None,
        flatten_messages_as_text: bool | None = None,
        **kwargs: Any,
    ):
        if flatten_messages_as_text is None:
            flatten_messages_as_text = model_id.startswith(_TEXT_ONLY_PREFIXES)
        super().__init__(
            model_id=model_id, flatten_messages_as_text=flatten_messages_as_text, **kwargs
        )
        self.api_base = api_base
        self.api_key = api_key
        self.timeout = timeout

    def create_client(self) -> Any:
        # LiteLLM downloads a price list at import unless told to use its bundled copy.
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        litellm = optional_import("litellm", "litellm", type(self).__name__)
        litellm.telemetry = False
        # Keep LiteLLM from printing help banners to stdout on every error.
        litellm.suppress_debug_info = True
        return litellm

    def _call(self, params: dict[str, Any]) -> Any:
        extra = {
            key: value
            for key, value in (
                ("api_base", self.api_base),
                ("api_key", self.api_key),
                ("timeout", self.timeout),
            )
            if value is not None
        }
        return self.client.completion(**params, **extra)

    def error_context(self) -> ErrorContext:
        provider = (self.model_id or "").split("/", 1)[0]
        env = f"{provider.upper()}_API_KEY" if provider else "the provider's API key variable"
        hint = "check the api_key= you passed" if self.api_key else f"set {env} (or pass api_key=)"
        return ErrorContext(
            type(self).__name__,
            self.api_base or f"LiteLLM provider {provider!r}",
            self.model_id,
            hint,
        )
