"""What a person reads when a turn fails: plain words, no traceback, no secret."""

from __future__ import annotations

import pytest

from agents.errors import (
    AgentExecutionError,
    AgentGenerationError,
    ContextLengthExceededError,
    ProviderAuthenticationError,
    ProviderRateLimitError,
    ProviderTimeoutError,
)
from smolui.render.errors import describe_failure, redact


def wrapped(cause: Exception) -> AgentGenerationError:
    try:
        raise AgentGenerationError(f"The model call failed: {cause}") from cause
    except AgentGenerationError as error:
        return error


@pytest.mark.parametrize(
    ("cause", "expected"),
    [
        (ProviderAuthenticationError("401 bad key"), "refused the credentials"),
        (ProviderRateLimitError("429"), "rate-limiting"),
        (ContextLengthExceededError("too long"), "context window"),
        (ProviderTimeoutError("OpenAIServerModel got no answer in time: read timeout"), "did not answer in time"),
        (
            ProviderTimeoutError("OpenAIServerModel (http://10.0.0.5/v1) could not reach http://10.0.0.5/v1: refused"),
            "could not be reached",
        ),
    ],
)  # fmt: skip
def test_provider_failures_are_explained(cause, expected):
    text = describe_failure(wrapped(cause))
    assert expected in text
    assert "10.0.0.5" not in text and "Traceback" not in text


def test_unexpected_errors_get_a_reference_not_a_traceback(caplog):
    text = describe_failure(KeyError("internal detail"))
    assert "reference" in text and "internal detail" not in text and "Traceback" not in text
    assert any("turn failed" in r.getMessage() for r in caplog.records)


def test_secrets_never_reach_the_page(monkeypatch):
    token = "hf_" + "abcdefghij" * 3  # made up here, so no token-like text is committed
    key = "sk-" + "live" * 5
    monkeypatch.setenv("HF_TOKEN", token)
    error = AgentExecutionError(f"leaked {token} and {key}")
    text = describe_failure(error)
    assert "hf_abc" not in text and "sk-live" not in text and "***" in text
    assert redact("Authorization: Bearer abcdef123456789") == "Authorization: Bearer ***"
