"""One string builds any model; bad strings get a message that lists the valid forms."""

from __future__ import annotations

import json

import pytest

from agents.errors import AgentConfigError
from agents.models.bundled import bundled_gguf_path
from agents.models.inference_client import HfApiModel, InferenceClientModel
from agents.models.litellm_model import LiteLLMModel
from agents.models.llama_cpp import LlamaCppModel
from agents.models.openai_server import AzureOpenAIServerModel, OpenAIServerModel
from agents.models.scripted import ScriptedModel
from agents.models.spec import default_model, model_from_spec
from agents.models.transformers_model import TransformersModel


def test_hf_spec_with_and_without_provider():
    model = model_from_spec("hf:Qwen/Qwen2.5-Coder-32B-Instruct")
    assert isinstance(model, InferenceClientModel) and HfApiModel is InferenceClientModel
    assert model.model_id == "Qwen/Qwen2.5-Coder-32B-Instruct" and model.provider is None
    routed = model_from_spec("hf:meta-llama/Llama-3.3-70B-Instruct@together")
    assert routed.model_id == "meta-llama/Llama-3.3-70B-Instruct" and routed.provider == "together"


def test_openai_and_litellm_specs_take_a_url_after_the_at_sign(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = model_from_spec("openai:gpt-4o-mini@http://127.0.0.1:8080/v1")
    assert isinstance(model, OpenAIServerModel)
    assert (model.model_id, model.api_base) == ("gpt-4o-mini", "http://127.0.0.1:8080/v1")
    lite = model_from_spec("litellm:ollama_chat/llama3.2:3b@http://localhost:11434")
    assert isinstance(lite, LiteLLMModel)
    assert (lite.model_id, lite.api_base) == ("ollama_chat/llama3.2:3b", "http://localhost:11434")
    assert lite.flatten_messages_as_text  # Ollama takes string content only


def test_ollama_shortcut_sets_a_usable_context(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:11434")
    model = model_from_spec("ollama:llama3.2")
    assert model.model_id == "ollama_chat/llama3.2"
    assert model.api_base == "http://127.0.0.1:11434"
    assert model.kwargs["num_ctx"] == 8192


def test_openai_without_key_or_url_says_which_variable_to_set(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(AgentConfigError, match="OPENAI_API_KEY"):
        model_from_spec("openai:gpt-4o-mini")


def test_azure_spec_reads_the_environment_and_names_what_is_missing(monkeypatch):
    for name in ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "OPENAI_API_VERSION"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(AgentConfigError) as info:
        model_from_spec("azure:my-deployment")
    for name in ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "OPENAI_API_VERSION"):
        assert name in str(info.value)
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://example.openai.azure.com")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    model = model_from_spec("azure:my-deployment")
    assert isinstance(model, AzureOpenAIServerModel) and model.model_id == "my-deployment"


def test_local_paths_and_the_offline_default():
    path = bundled_gguf_path()
    assert path.is_file() and path.suffix == ".gguf"
    for model in (model_from_spec("local"), default_model()):
        assert isinstance(model, LlamaCppModel) and model.model_path == path
        assert model.kwargs["max_tokens"] == 512  # a short cap keeps the demo model snappy
    assert model_from_spec(f"llamacpp:{path}").model_path == path
    hf_gguf = model_from_spec(f"transformers:{path}")
    assert isinstance(hf_gguf, TransformersModel)
    assert (hf_gguf.model_id, hf_gguf.gguf_file) == (str(path.parent), path.name)
    assert model_from_spec("transformers:HuggingFaceTB/SmolLM2-360M-Instruct").gguf_file is None


def test_missing_gguf_file_is_a_config_error(tmp_path):
    with pytest.raises(AgentConfigError, match="no GGUF file"):
        model_from_spec(f"llamacpp:{tmp_path / 'nope.gguf'}")


def test_scripted_demo_and_json_replies(tmp_path):
    demo = model_from_spec("scripted:demo", delay=0)
    assert isinstance(demo, ScriptedModel)
    first = demo.generate([{"role": "user", "content": "hello"}]).content
    second = demo.generate([{"role": "user", "content": "go on"}]).content
    assert "<code>" in first and "final_answer(" in second
    assert demo.generate([{"role": "user", "content": "again"}]).content == first  # loops

    script = tmp_path / "replies.json"
    script.write_text(
        json.dumps(
            [
                "plain text",
                {
                    "content": "",
                    "tool_calls": [{"name": "final_answer", "arguments": {"answer": 4}}],
                },
            ]
        )
    )
    model = model_from_spec(f"scripted:{script}")
    assert model.generate([{"role": "user", "content": "x"}]).content == "plain text"
    call = model.generate([{"role": "user", "content": "y"}]).tool_calls[0]
    assert (call.function.name, call.function.arguments) == ("final_answer", {"answer": 4})


@pytest.mark.parametrize(
    "spec",
    ["", "gpt-4o", "mystery:model", "hf:", "hf:org/model@not a provider", "openai"],
)
def test_bad_strings_list_the_valid_forms(spec):
    with pytest.raises(AgentConfigError) as info:
        model_from_spec(spec)
    message = str(info.value)
    assert "hf:" in message or "provider name" in message


@pytest.mark.parametrize("content", ["{not json", "[]", '{"replies": 3}', "[42]"])
def test_bad_script_files_say_what_shape_is_expected(tmp_path, content):
    script = tmp_path / "bad.json"
    script.write_text(content)
    with pytest.raises(AgentConfigError, match="JSON"):
        model_from_spec(f"scripted:{script}")


def test_a_missing_optional_package_says_what_to_install():
    from agents.models.optional import optional_import

    with pytest.raises(AgentConfigError, match="pip install 'llama-cpp-python'"):
        optional_import("no_such_module_for_this_test", "llama-cpp-python", "LlamaCppModel")
