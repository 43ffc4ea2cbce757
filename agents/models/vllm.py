"""`VLLMModel`: a model run in this process by vLLM (a GPU machine with `vllm` installed)."""

from __future__ import annotations

from typing import Any

from agents.models.base import Model
from agents.models.messages import ChatMessage, MessageRole, TokenUsage, content_text
from agents.models.optional import optional_import


class VLLMModel(Model):
    """A local model loaded with `vllm.LLM`; its chat template formats the conversation.

    Tool calls are read from the answer's text (JSON), like other local backends.

    Args:
        model_id: A Hub model id or a local folder, e.g. "Qwen/Qwen2.5-7B-Instruct".
        model_kwargs: Extra arguments for `vllm.LLM(...)` (`tensor_parallel_size`,
            `gpu_memory_utilization`, `max_model_len`, ...).
        **kwargs: `Model` options, then sampling parameters (`temperature`, `max_tokens`...).

    Raises:
        AgentConfigError: `vllm` is not installed.
    """

    def __init__(self, model_id: str, model_kwargs: dict[str, Any] | None = None, **kwargs: Any):
        self._vllm = optional_import("vllm", "vllm", "VLLMModel")
        kwargs.setdefault("max_retries", 0)  # a local model has no outage worth retrying
        super().__init__(model_id=model_id, flatten_messages_as_text=True, **kwargs)
        self.model_kwargs = dict(model_kwargs or {})
        self._llm: Any = None

    @property
    def llm(self) -> Any:
        """The `vllm.LLM`, loaded on first use."""
        if self._llm is None:
            self._llm = self._vllm.LLM(model=self.model_id, **self.model_kwargs)
        return self._llm

    def _generate(
        self,
        messages: list[dict[str, Any]],
        stop_sequences: list[str] | None,
        response_format: dict[str, Any] | None,
        tools: list[dict[str, Any]] | None,
        **kwargs: Any,
    ) -> ChatMessage:
        params = {**self.kwargs, **kwargs}
        if stop_sequences:
            params["stop"] = list(stop_sequences)
        if response_format and response_format.get("type") == "json_schema":
            params.update(self._json_constraint(response_format["json_schema"]["schema"]))
        sampling = self._vllm.SamplingParams(**params)
        chat = [{"role": m["role"], "content": content_text(m["content"])} for m in messages]
        output = self.llm.chat(chat, sampling, tools=tools, use_tqdm=False)[0]
        completion = output.outputs[0]
        return ChatMessage(
            role=MessageRole.ASSISTANT.value,
            content=completion.text,
            raw=output,
            token_usage=TokenUsage(len(output.prompt_token_ids), len(completion.token_ids)),
        )

    def _json_constraint(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Sampling parameters that force JSON matching `schema` (names differ by version)."""
        module = self._vllm.sampling_params
        if hasattr(module, "StructuredOutputsParams"):  # vLLM >= 0.11
            return {"structured_outputs": module.StructuredOutputsParams(json=schema)}
        return {"guided_decoding": module.GuidedDecodingParams(json=schema)}
