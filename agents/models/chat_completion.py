"""`ChatCompletionModel`: the shared base of backends that speak OpenAI chat completions.

A subclass says how to build its client (`create_client`), how to send one request (`_call`)
and where requests go (`error_context`); this class builds the request, reads answers and
streams, fills token usage and maps failures to typed provider errors.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agents.errors import AgentConfigError, ModelProviderError
from agents.models.base import Model
from agents.models.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    TokenUsage,
    ToolCallStreamDelta,
    content_text,
)
from agents.models.openai_format import completion_params, delta_from_chunk, message_from_completion
from agents.models.provider_errors import ErrorContext, to_provider_error


class ChatCompletionModel(Model):
    """Base of the OpenAI-format backends (OpenAI, Azure, LiteLLM, InferenceClient, llama.cpp).

    Args:
        model_id: Sent as the request's `model`.
        **kwargs: `Model` options, then completion parameters sent with every request
            (`temperature`, `max_tokens`, ...).
    """

    native_tool_calls = True
    supports_images = True
    # OpenAI and TGI refuse more than 4 stop sequences; the base class cuts at the rest.
    max_stop_sequences: int | None = 4
    # Ask for a final usage chunk when streaming (`stream_options.include_usage`).
    stream_usage_option = True

    def __init__(self, model_id: str | None = None, **kwargs: Any):
        super().__init__(model_id=model_id, **kwargs)
        self._client: Any = None
        self._client_lock = threading.Lock()

    # -- what a subclass implements -------------------------------------------------------

    def create_client(self) -> Any:
        """Build the client (or load the model); called once, on first use."""
        raise NotImplementedError

    def _call(self, params: dict[str, Any]) -> Any:
        """Send one request; return the response, or an iterator of chunks when streaming."""
        raise NotImplementedError

    def error_context(self) -> ErrorContext:
        """Who and where, for error messages."""
        return ErrorContext(type(self).__name__, "the model server", self.model_id)

    # -- shared machinery -----------------------------------------------------------------

    @property
    def client(self) -> Any:
        """The client, created once even when several threads ask at the same time."""
        if self._client is None:
            with self._client_lock:
                if self._client is None:
                    self._client = self.create_client()
        return self._client

    def request_params(
        self,
        messages: list[dict[str, Any]],
        stop_sequences: list[str] | None,
        response_format: dict[str, Any] | None,
        tools: list[dict[str, Any]] | None,
        stream: bool,
        call_kwargs: dict[str, Any],
    ) -> dict[str, Any]:
        """The request: messages and options, then constructor kwargs, then per-call kwargs."""
        params = completion_params(
            self.model_id,
            messages,
            stop_sequences,
            response_format,
            tools if self.native_tool_calls else None,
            self.max_stop_sequences,
            self.supports_images,
        )
        params.update(self.kwargs)
        params.update(call_kwargs)
        if stream:
            params["stream"] = True
            if self.stream_usage_option:
                params.setdefault("stream_options", {"include_usage": True})
        return params

    def _generate(self, messages, stop_sequences, response_format, tools, **kwargs) -> ChatMessage:
        params = self.request_params(
            messages, stop_sequences, response_format, tools, False, kwargs
        )
        with self._provider_errors():
            response = self._call(params)
        message = message_from_completion(response)
        if message.token_usage is None:
            message.token_usage = self.estimate_usage(messages, message.text)
        return message

    def _generate_stream(
        self, messages, stop_sequences, response_format, tools, **kwargs
    ) -> Iterator[ChatMessageStreamDelta]:
        params = self.request_params(messages, stop_sequences, response_format, tools, True, kwargs)
        with self._provider_errors():
            chunks = self._call(params)
        yield from self._read_stream(chunks, messages)

    def _read_stream(
        self, chunks: Any, messages: list[dict[str, Any]]
    ) -> Iterator[ChatMessageStreamDelta]:
        """Chunks -> deltas; a broken stream becomes a typed error; usage is always set."""
        written: list[str] = []
        names: dict[int | None, str] = {}
        usage_seen = False
        try:
            with self._provider_errors():
                for chunk in chunks:
                    delta = delta_from_chunk(chunk)
                    if delta is None:
                        continue
                    usage_seen = usage_seen or delta.token_usage is not None
                    written.append(delta.content or "")
                    for call in delta.tool_calls or []:
                        _drop_repeated_name(call, names)
                        written.append(call.function.name + str(call.function.arguments or ""))
                    yield delta
        finally:
            # Closing the HTTP response tells the server to stop generating.
            close = getattr(chunks, "close", None)  # the client's stream; not all can
            if callable(close):
                close()
        if not usage_seen:
            yield ChatMessageStreamDelta(
                token_usage=self.estimate_usage(messages, "".join(written))
            )

    @contextmanager
    def _provider_errors(self) -> Iterator[None]:
        """Turn client exceptions into typed provider errors; let our own errors through."""
        try:
            yield
        except (ModelProviderError, AgentConfigError):
            raise
        except Exception as err:
            raise to_provider_error(err, self.error_context()) from err

    def estimate_usage(self, messages: list[dict[str, Any]], output: str) -> TokenUsage:
        """Token usage from `count_tokens`, for servers that report none."""
        prompt = "\n".join(content_text(m.get("content")) for m in messages)
        return TokenUsage(self.count_tokens(prompt), self.count_tokens(output))


def _drop_repeated_name(call: ToolCallStreamDelta, names: dict[int | None, str]) -> None:
    """Some servers (llama.cpp) repeat a tool's name in every chunk; OpenAI sends it once,
    and the stream assembly joins the pieces, so keep only the first."""
    name = call.function.name if call.function else ""
    if not name:
        return
    if names.get(call.index) == name:
        call.function.name = ""
    else:
        names[call.index] = name
