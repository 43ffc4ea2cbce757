"""OpenAIServerModel, AzureOpenAIServerModel, LiteLLMModel and InferenceClientModel against a
real llama.cpp server on loopback (and, for Azure, a proxy serving Azure's paths)."""

from __future__ import annotations

import pytest
from backend_checks import TASK, assert_agent_step_ran, run_one_code_agent_step
from model_servers import LlamaServer, free_port

from agents.errors import (
    AgentGenerationError,
    ModelProviderError,
    ProviderAuthenticationError,
    ProviderServerError,
    ProviderTimeoutError,
)
from agents.loop.code_agent import CodeAgent
from agents.models.inference_client import InferenceClientModel
from agents.models.litellm_model import LiteLLMModel
from agents.models.messages import ChatMessageStreamDelta, agglomerate_stream_deltas
from agents.models.openai_server import AzureOpenAIServerModel, OpenAIServerModel

COUNT = [{"role": "user", "content": "Count from 1 to 10, one number per line."}]
BACKENDS = ["openai", "azure", "litellm", "inference_client"]
# SmolLM2's end-of-turn token; banning it keeps the model talking until it is cut off.
NO_END = {"logit_bias": {"2": -100}}


def make_model(kind: str, base_url: str, request: pytest.FixtureRequest | None = None, **kwargs):
    kwargs.setdefault("temperature", 0)
    if kind == "openai":
        return OpenAIServerModel("smollm2", api_base=base_url, **kwargs)
    if kind == "litellm":
        return LiteLLMModel("openai/smollm2", api_base=base_url, api_key="sk-local", **kwargs)
    if kind == "inference_client":
        if request is not None:
            request.getfixturevalue("hub_online")
        return InferenceClientModel("smollm2", base_url=base_url, **kwargs)
    proxy = request.getfixturevalue("azure_proxy")
    return AzureOpenAIServerModel(
        "smol-deployment",
        azure_endpoint=proxy.endpoint,
        api_key=proxy.api_key,
        api_version="2024-10-21",
        **kwargs,
    )


@pytest.mark.slow
@pytest.mark.parametrize("kind", BACKENDS)
def test_completion_streaming_and_usage(kind, llama_server, request):
    model = make_model(kind, llama_server.base_url, request)
    message = model.generate(COUNT, max_tokens=16)
    assert "1" in message.content and "2" in message.content
    usage = message.token_usage
    assert usage.input_tokens > 10 and 0 < usage.output_tokens <= 16

    deltas = list(model.generate_stream(COUNT, max_tokens=16))
    assert sum(1 for d in deltas if d.content) > 3  # really streamed, piece by piece
    streamed = agglomerate_stream_deltas(deltas)
    # Greedy decoding: the stream says exactly what the plain call said.
    assert streamed.content == message.content
    assert streamed.token_usage.output_tokens > 0
    if kind == "azure":
        proxy = request.getfixturevalue("azure_proxy")
        assert proxy.seen[0] == {"deployment": "smol-deployment", "api-version": "2024-10-21"}


@pytest.mark.slow
@pytest.mark.parametrize("kind", BACKENDS)
def test_stop_sequences_stop_generation_on_the_server(kind, llama_server, request):
    model = make_model(kind, llama_server.base_url, request)
    message = model.generate(COUNT, stop_sequences=["4"], max_tokens=48)
    assert "3" in message.content and "4" not in message.content
    # The server stopped early: far fewer tokens than counting to 10 (and max_tokens) takes.
    assert message.token_usage.output_tokens < 20
    streamed = "".join(d.content or "" for d in model.generate_stream(COUNT, stop_sequences=["4"]))
    assert "3" in streamed and "4" not in streamed


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
FORCE_WEATHER = {"type": "function", "function": {"name": "get_weather"}}


@pytest.mark.slow
@pytest.mark.parametrize("kind", BACKENDS)
def test_native_tool_calls_plain_and_streamed(kind, llama_server, request):
    model = make_model(kind, llama_server.base_url, request, max_tokens=40)
    question = [{"role": "user", "content": "What is the weather in Paris?"}]
    # The server constrains the answer to the tool's JSON schema when the tool is forced.
    plain = model.parse_tool_calls(
        model.generate(question, tools_to_call_from=[WEATHER], tool_choice=FORCE_WEATHER)
    )
    streamed = model.parse_tool_calls(
        agglomerate_stream_deltas(
            list(
                model.generate_stream(
                    question, tools_to_call_from=[WEATHER], tool_choice=FORCE_WEATHER
                )
            )
        )
    )
    for message in (plain, streamed):
        (call,) = message.tool_calls
        assert call.function.name == "get_weather"
        assert isinstance(call.function.arguments, dict) and "city" in call.function.arguments
    assert streamed.tool_calls[0].function.arguments == plain.tool_calls[0].function.arguments


@pytest.mark.slow
@pytest.mark.parametrize("kind", BACKENDS)
def test_a_code_agent_step_end_to_end(kind, llama_server, request):
    model = make_model(kind, llama_server.base_url, request, max_tokens=48)
    agent, result = run_one_code_agent_step(model)
    assert_agent_step_ran(agent, result)


@pytest.mark.slow
def test_agent_run_ends_with_a_generation_error_when_the_server_dies_and_recovers(
    own_llama_server,
):
    model = OpenAIServerModel(
        "smollm2", api_base=own_llama_server.base_url, temperature=0, max_tokens=1500, **NO_END
    )
    agent = CodeAgent(tools=[], model=model, stream_outputs=True)
    deltas = 0
    with pytest.raises(AgentGenerationError) as info:
        for event in agent.run(TASK, stream=True, max_steps=1):
            if isinstance(event, ChatMessageStreamDelta) and event.content:
                deltas += 1
                if deltas == 3:
                    own_llama_server.kill()
    assert deltas >= 3
    assert own_llama_server.base_url in info.value.message
    assert "connection broke" in info.value.message

    restarted = LlamaServer(
        own_llama_server.model_path, own_llama_server.log_path, own_llama_server.port
    ).start()
    try:
        # The end-of-turn ban only kept the first stream alive long enough to kill it.
        model.kwargs.pop("logit_bias")
        model.kwargs["max_tokens"] = 48
        result = agent.run(TASK, max_steps=1, return_full_result=True)
        assert_agent_step_ran(agent, result)
    finally:
        restarted.kill()


@pytest.mark.slow
def test_azure_wrong_key_is_an_authentication_error(llama_server, azure_proxy):
    model = AzureOpenAIServerModel(
        "smol-deployment",
        azure_endpoint=azure_proxy.endpoint,
        api_key="wrong",
        api_version="2024-10-21",
        max_retries=0,
    )
    with pytest.raises(ProviderAuthenticationError) as info:
        model.generate(COUNT, max_tokens=4)
    assert "AZURE_OPENAI_API_KEY" in info.value.message
    assert azure_proxy.endpoint in info.value.message


@pytest.mark.parametrize("kind", ["openai", "litellm", "inference_client"])
def test_a_server_that_does_not_answer_names_its_url(kind, request):
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    model = make_model(kind, url, request, max_retries=1, retry_delay=0.01)
    with pytest.raises(ProviderTimeoutError) as info:
        model.generate(COUNT, max_tokens=4)
    assert url in info.value.message and "running" in info.value.message


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["openai", "litellm", "inference_client"])
def test_server_killed_mid_stream_gives_a_typed_error_then_recovers(
    kind, own_llama_server, request
):
    model = make_model(kind, own_llama_server.base_url, request, max_tokens=1500, **NO_END)
    stream = model.generate_stream(COUNT)
    received = []
    with pytest.raises(ModelProviderError) as info:
        for delta in stream:
            received.append(delta.content or "")
            if len(received) == 3:
                own_llama_server.kill()
    assert isinstance(info.value, (ProviderServerError, ProviderTimeoutError))
    print(f"{kind}: {type(info.value).__name__}: {info.value.message}")
    assert own_llama_server.base_url in info.value.message
    assert 3 <= len(received) < 1500

    restarted = LlamaServer(
        own_llama_server.model_path, own_llama_server.log_path, own_llama_server.port
    )
    restarted.start()
    try:
        again = model.generate(COUNT, max_tokens=8)
        assert again.content and again.token_usage.output_tokens > 0
    finally:
        restarted.kill()
