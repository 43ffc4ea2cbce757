"""Provider exceptions become typed errors that say what to do; transient ones are retried."""

from __future__ import annotations

import threading
import time

import httpx
import openai
import pytest

from agents.errors import (
    AgentConfigError,
    ContextLengthExceededError,
    ModelProviderError,
    ProviderAuthenticationError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderTimeoutError,
)
from agents.models.chat_completion import ChatCompletionModel
from agents.models.provider_errors import ErrorContext, to_provider_error

CTX = ErrorContext("OpenAIServerModel", "http://127.0.0.1:9/v1", "m", "set OPENAI_API_KEY")


def _status_error(cls: type, status: int, message: str) -> Exception:
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    response = httpx.Response(status, request=request, json={"error": {"message": message}})
    return cls(message, response=response, body=None)


@pytest.mark.parametrize(
    ("error", "expected", "words"),
    [
        (
            _status_error(openai.AuthenticationError, 401, "bad key"),
            ProviderAuthenticationError,
            "OPENAI_API_KEY",
        ),
        (_status_error(openai.RateLimitError, 429, "slow down"), ProviderRateLimitError, "429"),
        (
            _status_error(
                openai.BadRequestError, 400, "This model's maximum context length is 8192 tokens"
            ),
            ContextLengthExceededError,
            "context window",
        ),
        (_status_error(openai.InternalServerError, 503, "overloaded"), ProviderServerError, "503"),
        (_status_error(openai.NotFoundError, 404, "no such model"), ModelProviderError, "model id"),
        (
            openai.APITimeoutError(httpx.Request("POST", "http://127.0.0.1:9/v1")),
            ProviderTimeoutError,
            "timeout",
        ),
        (httpx.ConnectError("Connection refused"), ProviderTimeoutError, "http://127.0.0.1:9/v1"),
        (
            httpx.RemoteProtocolError(
                "peer closed connection without sending complete message body"
            ),
            ProviderServerError,
            "connection broke",
        ),
        (
            ValueError("Requested tokens (9000) exceed context window of 8192"),
            ContextLengthExceededError,
            "context",
        ),
    ],
)
def test_provider_exceptions_map_to_typed_errors(error, expected, words):
    mapped = to_provider_error(error, CTX)
    assert type(mapped) is expected
    assert words in mapped.message
    assert "OpenAIServerModel" in mapped.message


def test_retryable_flags_follow_who_must_act():
    assert to_provider_error(_status_error(openai.RateLimitError, 429, "x"), CTX).retryable
    assert to_provider_error(httpx.ConnectError("refused"), CTX).retryable
    assert not to_provider_error(_status_error(openai.AuthenticationError, 401, "x"), CTX).retryable
    assert not to_provider_error(_status_error(openai.BadRequestError, 400, "bad"), CTX).retryable


def test_wrapped_connection_error_is_found_through_the_cause():
    try:
        try:
            raise httpx.ConnectError("All connection attempts failed")
        except httpx.ConnectError as inner:
            raise openai.APIConnectionError(request=httpx.Request("POST", "http://x")) from inner
    except openai.APIConnectionError as outer:
        mapped = to_provider_error(outer, CTX)
    assert isinstance(mapped, ProviderTimeoutError)
    assert "could not reach http://127.0.0.1:9/v1" in mapped.message


class _FlakyServer(ChatCompletionModel):
    """Fails with the given errors, then answers."""

    def __init__(self, errors, **kwargs):
        super().__init__(model_id="flaky", retry_delay=0.01, **kwargs)
        self.errors = list(errors)
        self.requests = []

    def create_client(self):
        return None

    def _call(self, params):
        self.requests.append(params)
        if self.errors:
            raise self.errors.pop(0)
        if params.get("stream"):
            return iter([{"choices": [{"delta": {"content": "ok"}}]}])
        return {"choices": [{"message": {"content": "ok"}}]}


def test_transient_errors_are_retried_then_succeed():
    model = _FlakyServer(
        [_status_error(openai.RateLimitError, 429, "x"), httpx.ConnectError("refused")]
    )
    message = model.generate([{"role": "user", "content": "hi"}])
    assert message.content == "ok"
    assert len(model.requests) == 3
    # The server sent no usage: it is estimated, never left empty.
    assert message.token_usage is not None and message.token_usage.output_tokens >= 1


def test_permanent_errors_are_not_retried():
    model = _FlakyServer([_status_error(openai.AuthenticationError, 401, "x")])
    with pytest.raises(ProviderAuthenticationError):
        model.generate([{"role": "user", "content": "hi"}])
    assert len(model.requests) == 1


def test_streams_get_retries_and_usage_too():
    model = _FlakyServer([_status_error(openai.InternalServerError, 500, "x")])
    deltas = list(model.generate_stream([{"role": "user", "content": "hi"}]))
    assert "".join(d.content or "" for d in deltas) == "ok"
    assert deltas[-1].token_usage is not None
    assert model.requests[-1]["stream"] is True


def test_hub_offline_mode_is_not_retried_and_says_which_variable_blocks():
    from huggingface_hub.errors import OfflineModeIsEnabled

    mapped = to_provider_error(OfflineModeIsEnabled("Cannot reach http://x: offline mode"), CTX)
    assert type(mapped) is ModelProviderError and not mapped.retryable
    assert "HF_HUB_OFFLINE" in mapped.message


def test_the_client_is_created_once_even_when_threads_race():
    created = []
    gate = threading.Barrier(8)

    class SlowToBuild(_FlakyServer):
        def create_client(self):
            created.append(1)
            time.sleep(0.05)  # a slow load, so racing threads would overlap
            return object()

    model = SlowToBuild([])
    clients = []

    def grab():
        gate.wait()
        clients.append(model.client)

    threads = [threading.Thread(target=grab) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(created) == 1 and len({id(c) for c in clients}) == 1


def test_configuration_errors_while_loading_are_not_provider_errors():
    class Unloadable(_FlakyServer):
        def create_client(self):
            raise AgentConfigError("install the package")

        def _call(self, params):
            return self.client

    with pytest.raises(AgentConfigError, match="install the package"):
        Unloadable([]).generate([{"role": "user", "content": "hi"}])
