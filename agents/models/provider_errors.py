"""Map exceptions of provider clients (openai, litellm, huggingface_hub, httpx, requests,
llama.cpp) to the typed `ModelProviderError`s of `agents.errors`, with a message that says
what to do: which key to set, which URL did not answer.

The mapping reads status codes and class names instead of importing every client library,
so it costs nothing and works whichever clients are installed.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.errors import (
    ContextLengthExceededError,
    ModelProviderError,
    ProviderAuthenticationError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderTimeoutError,
)

_CONTEXT_MARKERS = (
    "context length",
    "context_length",
    "maximum context",
    "context window",
    "contextwindow",
    "exceed context",
    "too many tokens",
    "prompt is too long",
    "input is too long",
    "reduce the length",
)
# A connection that broke after the answer started: the server died or dropped us.
_BROKEN_STREAM_NAMES = (
    "RemoteProtocol",
    "ReadError",
    "ChunkedEncoding",
    "IncompleteRead",
    "ConnectionReset",
    "ConnectionAborted",
    "BrokenPipe",
)


@dataclass(frozen=True)
class ErrorContext:
    """Who failed, for the message.

    Args:
        backend: The model class name, e.g. "OpenAIServerModel".
        endpoint: Where the requests go (a URL, or a provider description).
        model_id: The model that was asked.
        key_hint: How to give credentials, e.g. "set OPENAI_API_KEY or pass api_key=".
    """

    backend: str
    endpoint: str
    model_id: str | None = None
    key_hint: str | None = None


def to_provider_error(err: BaseException, ctx: ErrorContext) -> ModelProviderError:
    """Turn whatever a provider client raised into a typed, actionable provider error."""
    if isinstance(err, ModelProviderError):
        return err
    names = _class_names(err)
    detail = _detail(err)
    status = status_code(err)
    where = f"{ctx.backend} ({ctx.endpoint})"
    if "OfflineModeIsEnabled" in names:
        return ModelProviderError(
            f"{where}: huggingface_hub's offline mode blocks this request. Unset HF_HUB_OFFLINE "
            "(and TRANSFORMERS_OFFLINE) to use this model."
        )
    if any("Timeout" in name for name in names) or isinstance(err, TimeoutError):
        return ProviderTimeoutError(
            f"{where} got no answer in time: {detail}. Try again, or pass a larger timeout=."
        )
    if any(marker in name for name in names for marker in _BROKEN_STREAM_NAMES):
        return ProviderServerError(
            f"{where}: the connection broke before the answer was complete ({detail}). "
            "The server may have stopped or crashed; check that it is running."
        )
    if any("Connect" in name for name in names):
        return ProviderTimeoutError(
            f"{where} could not reach {ctx.endpoint}: {detail}. "
            "Check that the server is running and the URL is right."
        )
    if _is_context_error(names, detail):
        return ContextLengthExceededError(
            f"{where}: the conversation is longer than the model's context window ({detail}). "
            "Start a new chat, shorten the input, or use a model with a larger context."
        )
    return _from_status(status, detail, where, ctx)


def _from_status(
    status: int | None, detail: str, where: str, ctx: ErrorContext
) -> ModelProviderError:
    if status in (401, 403):
        hint = f" To fix: {ctx.key_hint}." if ctx.key_hint else ""
        return ProviderAuthenticationError(
            f"{where} refused the credentials ({status}): {detail}.{hint}"
        )
    if status == 429:
        return ProviderRateLimitError(
            f"{where} is rate limiting requests (429): {detail}. Wait a little, or use "
            "another provider or a paid plan."
        )
    if status in (408, 504):
        return ProviderTimeoutError(f"{where} timed out ({status}): {detail}.")
    if status is not None and status >= 500:
        return ProviderServerError(f"{where} had a server error ({status}): {detail}.")
    if status == 404:
        return ModelProviderError(
            f"{where} does not know model {ctx.model_id!r} (404): {detail}. Check the model id "
            "(or deployment name) and the URL."
        )
    if status is not None:
        return ModelProviderError(f"{where} refused the request ({status}): {detail}.")
    return ModelProviderError(f"{where} failed: {detail}.")


def status_code(err: BaseException) -> int | None:
    """The HTTP status of an error, wherever the client library keeps it."""
    for candidate in (err, getattr(err, "response", None)):  # any client's exception
        code = getattr(candidate, "status_code", None) if candidate is not None else None  # SDK
        if isinstance(code, int):
            return code
    return None


def _is_context_error(names: list[str], detail: str) -> bool:
    lowered = detail.lower()
    return any("ContextWindow" in name for name in names) or any(
        marker in lowered for marker in _CONTEXT_MARKERS
    )


def _class_names(err: BaseException) -> list[str]:
    """Class names of the error and of the errors it wraps (libraries chain them)."""
    names: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        names.extend(cls.__name__ for cls in type(current).__mro__)
        # The chain Python prints: clients wrap transport errors (LiteLLM even reports a
        # refused connection as a 500), and `raise ... from None` hides what is unrelated.
        current = current.__cause__ or (
            None if current.__suppress_context__ else current.__context__
        )
    return names


def _detail(err: BaseException) -> str:
    text = getattr(err, "message", None) or str(err) or type(err).__name__  # any client's exception
    text = " ".join(str(text).split()).rstrip(".")
    return text if len(text) <= 400 else text[:400] + "..."
