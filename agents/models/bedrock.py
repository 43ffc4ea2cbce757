"""`AmazonBedrockModel`: models on Amazon Bedrock through boto3's Converse API."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agents.errors import AgentConfigError, ModelProviderError
from agents.models.base import Model
from agents.models.images import image_data_url
from agents.models.messages import (
    ChatMessage,
    ChatMessageToolCall,
    MessageRole,
    TokenUsage,
    ToolCallFunction,
)
from agents.models.optional import optional_import
from agents.models.provider_errors import ErrorContext, to_provider_error

# Completion parameters that go into Converse's `inferenceConfig`, by our name.
_INFERENCE = {"max_tokens": "maxTokens", "temperature": "temperature", "top_p": "topP"}


class AmazonBedrockModel(Model):
    """A Bedrock model (Claude, Llama, Mistral, Nova...) called with `converse`.

    Credentials and region come from boto3's usual places (environment, `~/.aws`), or from
    `client_kwargs` / a ready `client`.

    Args:
        model_id: The Bedrock model or inference profile id, e.g.
            "us.anthropic.claude-3-5-sonnet-20241022-v2:0".
        client: A ready `boto3.client("bedrock-runtime")`.
        client_kwargs: Arguments for `boto3.client("bedrock-runtime", ...)` (`region_name`...).
        **kwargs: `Model` options, then `max_tokens`, `temperature`, `top_p` (sent as
            `inferenceConfig`; smolagents' `inferenceConfig={...}` works too) and other
            `converse` arguments (`guardrailConfig`, `additionalModelRequestFields`...).

    Raises:
        AgentConfigError: boto3 is not installed.
    """

    native_tool_calls = True
    supports_images = True

    def __init__(
        self,
        model_id: str,
        client: Any = None,
        client_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ):
        super().__init__(model_id=model_id, **kwargs)
        self.client_kwargs = dict(client_kwargs or {})
        self.client = client or optional_import("boto3", "boto3", "AmazonBedrockModel").client(
            "bedrock-runtime", **self.client_kwargs
        )

    def image_block(self, image: Any) -> dict[str, Any]:
        url = image_data_url(image)
        header, data = url.split(",", 1)
        kind = "jpeg" if "jpeg" in header else "png"
        return {"image": {"format": kind, "source": {"bytes": base64.b64decode(data)}}}

    def _generate(self, messages, stop_sequences, response_format, tools, **kwargs) -> ChatMessage:
        request = self.converse_request(messages, stop_sequences, tools, kwargs)
        with self._provider_errors():
            response = self.client.converse(**request)
        return _message(response)

    def converse_request(
        self,
        messages: list[dict[str, Any]],
        stop_sequences: list[str] | None,
        tools: list[dict[str, Any]] | None,
        call_kwargs: dict[str, Any],
    ) -> dict[str, Any]:
        """The `converse` arguments for prepared messages (system prompt split out)."""
        options = {**self.kwargs, **call_kwargs}
        inference = dict(options.pop("inferenceConfig", None) or {})  # smolagents' spelling
        inference.update({_INFERENCE[k]: options.pop(k) for k in list(options) if k in _INFERENCE})
        if stop_sequences:
            inference["stopSequences"] = list(stop_sequences)
        system = [_block(b) for m in messages if m["role"] == "system" for b in m["content"]]
        chat = [
            {"role": m["role"], "content": [_block(b) for b in m["content"]]}
            for m in messages
            if m["role"] != "system"
        ]
        request: dict[str, Any] = {"modelId": self.model_id, "messages": chat, **options}
        if system:
            request["system"] = system
        if inference:
            request["inferenceConfig"] = inference
        if tools:
            request["toolConfig"] = {"tools": [_tool_spec(t) for t in tools]}
        return request

    @contextmanager
    def _provider_errors(self) -> Iterator[None]:
        try:
            yield
        except (ModelProviderError, AgentConfigError):
            raise
        except Exception as err:
            context = ErrorContext(
                type(self).__name__,
                "Amazon Bedrock",
                self.model_id,
                "check your AWS credentials, region and model access",
            )
            raise to_provider_error(err, context) from err


def _block(block: dict[str, Any]) -> dict[str, Any]:
    """One content block in Converse's shape (text blocks lose their `type`)."""
    if block.get("type") == "text":
        return {"text": block.get("text", "")}
    return {k: v for k, v in block.items() if k != "type"}


def _tool_spec(schema: dict[str, Any]) -> dict[str, Any]:
    function = schema.get("function", schema)
    return {
        "toolSpec": {
            "name": function["name"],
            "description": function.get("description", ""),
            "inputSchema": {"json": function.get("parameters", {"type": "object"})},
        }
    }


def _message(response: dict[str, Any]) -> ChatMessage:
    content = response["output"]["message"]["content"]
    text = "".join(block.get("text", "") for block in content)
    calls = [
        ChatMessageToolCall(
            ToolCallFunction(use["name"], json.dumps(use.get("input", {}))), id=use["toolUseId"]
        )
        for use in (block["toolUse"] for block in content if "toolUse" in block)
    ]
    usage = response.get("usage") or {}
    return ChatMessage(
        role=MessageRole.ASSISTANT.value,
        content=text,
        tool_calls=calls or None,
        raw=response,
        token_usage=TokenUsage(usage.get("inputTokens", 0), usage.get("outputTokens", 0)),
    )


# smolagents' older name.
AmazonBedrockServerModel = AmazonBedrockModel
