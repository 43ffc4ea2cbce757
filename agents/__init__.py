"""The agent core: the ReAct loop, memory, models, executors and errors. No Gradio here.

Model backends are imported on first use, so `import agents` stays light.
"""

from __future__ import annotations

from agents.errors import (
    AgentConfigError,
    AgentError,
    AgentExecutionError,
    AgentGenerationError,
    AgentMaxStepsError,
    AgentParsingError,
    AgentToolCallError,
    AgentToolExecutionError,
)
from agents.events import AgentEvent, SubAgentEvent
from agents.memory.steps import (
    ActionOutput,
    ActionStep,
    AgentMemory,
    FinalAnswerStep,
    MemoryStep,
    PlanningStep,
    RunResult,
    SystemPromptStep,
    TaskStep,
    Timing,
    ToolCall,
    ToolOutput,
)
from agents.models.base import Model
from agents.models.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    ChatMessageToolCallStreamDelta,
    MessageRole,
    TokenUsage,
)
from agents.models.scripted import ScriptedModel, ScriptedReply
from tools.lazy_exports import lazy_exports

# name -> module that defines it; loaded on first attribute access.
_LAZY = {
    "MultiStepAgent": "agents.loop.agent",
    "CodeAgent": "agents.loop.code_agent",
    "ToolCallingAgent": "agents.loop.tool_calling_agent",
    "ManagedAgent": "agents.loop.managed",
    "LogLevel": "agents.observability.console",
    "AgentLogger": "agents.observability.monitoring",
    "Monitor": "agents.observability.monitoring",
    "PromptTemplates": "agents.prompts",
    "PlanningPromptTemplate": "agents.prompts",
    "ManagedAgentPromptTemplate": "agents.prompts",
    "FinalAnswerPromptTemplate": "agents.prompts",
    "populate_template": "agents.prompts",
    "LocalPythonExecutor": "agents.executors.local",
    "SandboxExecutor": "agents.executors.sandbox",
    "InferenceClientModel": "agents.models.inference_client",
    "HfApiModel": "agents.models.inference_client",
    "TransformersModel": "agents.models.transformers_model",
    "LiteLLMModel": "agents.models.litellm_model",
    "OpenAIServerModel": "agents.models.openai_server",
    "AzureOpenAIServerModel": "agents.models.openai_server",
    "OpenAIModel": "agents.models.openai_server",
    "AzureOpenAIModel": "agents.models.openai_server",
    "LiteLLMRouterModel": "agents.models.litellm_router",
    "VLLMModel": "agents.models.vllm",
    "AmazonBedrockModel": "agents.models.bedrock",
    "AmazonBedrockServerModel": "agents.models.bedrock",
    "LlamaCppModel": "agents.models.llama_cpp",
    "model_from_spec": "agents.models.spec",
    "default_model": "agents.models.spec",
    "ApprovalDecision": "agents.approval",
    "ApprovalRequest": "agents.approval",
    "console_approver": "agents.approval",
}


__getattr__, __dir__ = lazy_exports("agents", _LAZY, globals())  # lazy exports


__all__ = [
    "ActionOutput",
    "ActionStep",
    "AgentConfigError",
    "AgentError",
    "AgentEvent",
    "AgentExecutionError",
    "AgentGenerationError",
    "AgentMaxStepsError",
    "AgentMemory",
    "AgentParsingError",
    "AgentToolCallError",
    "AgentToolExecutionError",
    "ChatMessage",
    "ChatMessageStreamDelta",
    "ChatMessageToolCall",
    "ChatMessageToolCallFunction",
    "ChatMessageToolCallStreamDelta",
    "FinalAnswerStep",
    "MemoryStep",
    "MessageRole",
    "Model",
    "PlanningStep",
    "RunResult",
    "ScriptedModel",
    "ScriptedReply",
    "SubAgentEvent",
    "SystemPromptStep",
    "TaskStep",
    "Timing",
    "TokenUsage",
    "ToolCall",
    "ToolOutput",
    *_LAZY,
]
