"""How failures are shown to a person: readable, never a traceback, never a secret.

Details go to the server log under a short reference the page shows, so an operator can
find them.
"""

from __future__ import annotations

import logging
import os
import re
import secrets

from agents.errors import (
    AgentError,
    AgentExecutionError,
    AgentGenerationError,
    AgentMaxStepsError,
    AgentParsingError,
    AgentToolCallError,
    AgentToolExecutionError,
    ContextLengthExceededError,
    ModelProviderError,
    ProviderAuthenticationError,
    ProviderRateLimitError,
    ProviderTimeoutError,
)

logger = logging.getLogger(__name__)

_SECRET_PATTERNS = (
    re.compile(r"hf_[A-Za-z0-9]{10,}"),
    re.compile(r"sk-[A-Za-z0-9_-]{10,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|token|password|secret)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]{6,}"),
)
_SECRET_ENV = re.compile(r"(TOKEN|KEY|SECRET|PASSWORD)", re.IGNORECASE)

# Titles for errors a step can carry: what happened, in the reader's words.
STEP_ERROR_TITLES: tuple[tuple[type[BaseException], str], ...] = (
    (AgentParsingError, "Could not read the model's action"),
    (AgentToolCallError, "Bad tool call"),
    (AgentToolExecutionError, "A tool failed"),
    (AgentExecutionError, "The code raised an error"),
    (AgentMaxStepsError, "Step limit reached"),
    (AgentGenerationError, "The model call failed"),
    (AgentError, "Error"),
)


def redact(text: str) -> str:
    """Mask things that look like credentials, and the values of secret env variables.

    Args:
        text: Text about to reach the page.
    """
    for name, value in os.environ.items():
        if value and len(value) >= 8 and _SECRET_ENV.search(name):
            text = text.replace(value, "***")
    for pattern in _SECRET_PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda m: m.group(1) + "***", text)
        else:
            text = pattern.sub("***", text)
    return text


def step_error_title(error: BaseException) -> str:
    """A short heading for an error recorded on a step.

    Args:
        error: The step's error.
    """
    for cls, title in STEP_ERROR_TITLES:
        if isinstance(error, cls):
            return title
    return "Error"


def describe_failure(error: BaseException) -> str:
    """The chat message for a turn that ended with an exception (logs the details).

    Args:
        error: What `agent.run` raised.
    """
    cause = error.__cause__
    if isinstance(error, AgentGenerationError) and isinstance(cause, ModelProviderError):
        error = cause  # say what the provider said, not the loop's wrapper
    if isinstance(error, ProviderAuthenticationError):
        text = "The model provider refused the credentials. Check the API key or token " \
               "set in the server's environment."  # fmt: skip
    elif isinstance(error, ProviderRateLimitError):
        text = "The model provider is rate-limiting requests. Wait a moment and try again."
    elif isinstance(error, ContextLengthExceededError):
        text = "The conversation is longer than the model's context window. Start a new chat."
    elif isinstance(error, ProviderTimeoutError) and "could not reach" in error.message:
        text = (
            "The model server could not be reached. Check that it is running and that the "
            "app's model URL is right (details in the server log)."
        )
    elif isinstance(error, ProviderTimeoutError):
        text = "The model did not answer in time. Try again, or choose a faster model."
    elif isinstance(error, ModelProviderError):
        text = f"The model provider failed: {error.message}"
    elif isinstance(error, AgentError):
        title = step_error_title(error)
        text = error.message if error.message.startswith(title) else f"{title}: {error.message}"
    else:
        reference = secrets.token_hex(4)
        logger.error("turn failed (ref %s)", reference, exc_info=error)
        return (
            "Something went wrong on the server while running the agent. "
            f"The details are in the server log (reference `{reference}`)."
        )
    logger.warning("turn ended with %s", type(error).__name__, exc_info=error)
    return redact(text)
