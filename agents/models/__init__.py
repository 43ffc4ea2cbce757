"""Model backends and the message types they speak (smolagents' `smolagents.models` names).

Backends are imported on first use, so `import agents.models` stays light.

May import: agents.errors, tools.lazy_exports.
"""

from __future__ import annotations

from agents.models.base import Model
from agents.models.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    ChatMessageToolCallStreamDelta,
    MessageRole,
    TokenUsage,
    agglomerate_stream_deltas,
)
from tools.lazy_exports import lazy_exports

# name -> module that defines it; loaded on first attribute access.
_LAZY = {
    "ScriptedModel": "agents.models.scripted",
    "InferenceClientModel": "agents.models.inference_client",
    "HfApiModel": "agents.models.inference_client",
    "TransformersModel": "agents.models.transformers_model",
    "LiteLLMModel": "agents.models.litellm_model",
    "LiteLLMRouterModel": "agents.models.litellm_router",
    "OpenAIServerModel": "agents.models.openai_server",
    "OpenAIModel": "agents.models.openai_server",
    "AzureOpenAIServerModel": "agents.models.openai_server",
    "AzureOpenAIModel": "agents.models.openai_server",
    "LlamaCppModel": "agents.models.llama_cpp",
    "VLLMModel": "agents.models.vllm",
    "AmazonBedrockModel": "agents.models.bedrock",
    "AmazonBedrockServerModel": "agents.models.bedrock",
}


__getattr__, __dir__ = lazy_exports("agents.models", _LAZY, globals())  # lazy exports


__all__ = [
    "ChatMessage",
    "ChatMessageStreamDelta",
    "ChatMessageToolCall",
    "ChatMessageToolCallFunction",
    "ChatMessageToolCallStreamDelta",
    "MessageRole",
    "Model",
    "TokenUsage",
    "agglomerate_stream_deltas",
    *_LAZY,
]
