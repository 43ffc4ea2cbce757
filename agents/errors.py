"""Errors, named after who must act on them.

- A *model mistake* (unparsable output, bad tool arguments, code that raises) is an
  `AgentError` subclass that the loop turns into an observation; the run goes on.
- A *provider failure* (HTTP error, timeout) is a `ModelProviderError`; transient ones are
  retried by the model, then the loop ends the run with `AgentGenerationError`.
- A *developer mistake* (bad configuration) is an `AgentConfigError`, raised at construction.

None of these classes log or print: they only carry the message meant for the reader.
"""

from __future__ import annotations

from typing import Any


class AgentError(Exception):
    """Base class of the errors that happen while an agent runs.

    Args:
        message: Text meant for the model (and shown in the UI).
        logger: Accepted for smolagents compatibility (`AgentError(message, logger)`) and
            ignored: errors never log; the console shows them from the event stream.
    """

    def __init__(self, message: str, logger: Any = None):
        super().__init__(message)
        self.message = message

    def dict(self) -> dict[str, str]:
        return {"type": type(self).__name__, "message": self.message}


class AgentParsingError(AgentError):
    """The model's output could not be parsed into an action."""


class AgentToolCallError(AgentError):
    """The model called a tool wrongly (unknown name, bad arguments)."""


class AgentToolExecutionError(AgentError):
    """A tool raised while running with arguments the model chose."""


class AgentExecutionError(AgentError):
    """Code written by the model raised, or the executor had to be restarted.

    Args:
        message: What went wrong, for the model.
        logs: What the code printed before failing (a smolagents-style logger passed here
            positionally is ignored).
        state_lost: True when the executor was replaced and variables are gone.
    """

    def __init__(self, message: str, logs: Any = "", state_lost: bool = False):
        super().__init__(message)
        self.logs = logs if isinstance(logs, str) else ""
        self.state_lost = state_lost


class AgentGenerationError(AgentError):
    """The model could not produce an answer (provider failure); ends the run."""


class AgentMaxStepsError(AgentError):
    """The agent reached `max_steps` without a final answer."""


class AgentInterruptedError(AgentError):
    """The run was interrupted with `agent.interrupt()`."""


class AgentStoppedError(AgentInterruptedError):
    """A person asked to approve an action answered "stop": the run ends there, as if
    interrupted (`agents.approval`)."""


class AgentConfigError(ValueError):
    """A developer mistake in how an agent, model or tool is configured."""


class ModelProviderError(Exception):
    """A model backend failed for a reason outside the model's control.

    Args:
        message: What happened and what to do about it.
        retryable: Whether trying again later may succeed.
    """

    retryable = False

    def __init__(self, message: str, *, retryable: bool | None = None):
        super().__init__(message)
        self.message = message
        if retryable is not None:
            self.retryable = retryable


class ProviderAuthenticationError(ModelProviderError):
    """The provider refused the credentials (missing or wrong API key)."""


class ProviderRateLimitError(ModelProviderError):
    """The provider asked us to slow down."""

    retryable = True


class ContextLengthExceededError(ModelProviderError):
    """The prompt is longer than the model's context window."""


class ProviderTimeoutError(ModelProviderError):
    """The provider did not answer in time, or could not be reached."""

    retryable = True


class ProviderServerError(ModelProviderError):
    """The provider answered with a server-side error (5xx)."""

    retryable = True
