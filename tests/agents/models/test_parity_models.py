"""smolagents' extra model classes, imports changed only: Bedrock (boto3's real client with
botocore's Stubber answering), the LiteLLM router (LiteLLM's own mock responses), vLLM's
clear error without the package."""

from __future__ import annotations

import importlib.util
import json

import pytest

from agents import AmazonBedrockModel, CodeAgent, LiteLLMRouterModel, ToolCallingAgent
from agents.errors import AgentConfigError
from tools import tool


@tool
def get_weather(city: str) -> str:
    """Gives the weather in a city.

    Args:
        city: The city.
    """
    return f"Sunny in {city}"


def _bedrock_client():
    boto3 = pytest.importorskip("boto3")
    from botocore.stub import Stubber

    client = boto3.client("bedrock-runtime", region_name="us-east-1",
                          aws_access_key_id="test", aws_secret_access_key="test")  # fmt: skip
    return client, Stubber(client)


def _converse_reply(content: list, inputs: int = 20, outputs: int = 5) -> dict:
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": inputs, "outputTokens": outputs, "totalTokens": inputs + outputs},
        "metrics": {"latencyMs": 1},
    }


def test_bedrock_model_sends_converse_requests():
    client, stub = _bedrock_client()
    expected = {
        "modelId": "us.anthropic.claude-3-5-sonnet-20241022-v2:0",
        "messages": [{"role": "user", "content": [{"text": "Hi"}]}],
        "system": [{"text": "Be brief."}],
        "inferenceConfig": {"maxTokens": 64, "temperature": 0.5, "stopSequences": ["Observation:"]},
    }
    stub.add_response("converse", _converse_reply([{"text": "Hello!"}], 7, 2), expected)
    with stub:
        model = AmazonBedrockModel(
            model_id=expected["modelId"],
            client=client,
            inferenceConfig={"maxTokens": 64},
            temperature=0.5,
        )
        answer = model.generate(
            [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
            stop_sequences=["Observation:"],
        )
    assert answer.content == "Hello!"
    assert (answer.token_usage.input_tokens, answer.token_usage.output_tokens) == (7, 2)
    assert model.last_input_token_count == 7


def test_bedrock_model_drives_a_tool_calling_agent():
    client, stub = _bedrock_client()
    stub.add_response(
        "converse",
        _converse_reply(
            [{"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {"city": "Lima"}}}]
        ),
    )
    stub.add_response("converse", _converse_reply(
        [{"toolUse": {"toolUseId": "t2", "name": "final_answer",
                      "input": {"answer": "Sunny in Lima"}}}]))  # fmt: skip
    with stub:
        model = AmazonBedrockModel(model_id="amazon.nova-pro-v1:0", client=client)
        agent = ToolCallingAgent(tools=[get_weather], model=model, verbosity_level=-1)
        assert agent.run("Weather in Lima?") == "Sunny in Lima"
    stub.assert_no_pending_responses()


def test_litellm_router_model_routes_to_a_deployment():
    if importlib.util.find_spec("litellm") is None:  # importing it here would fetch a price list
        pytest.skip("litellm is not installed")
    model_list = [
        {"model_name": "team-model", "litellm_params": {
            "model": "openai/gpt-4o-mini", "api_key": "sk-test",
            "mock_response": "Thought: easy.\n<code>\nfinal_answer(6 * 7)\n</code>"}},
    ]  # fmt: skip
    model = LiteLLMRouterModel(model_id="team-model", model_list=model_list,
                               client_kwargs={"routing_strategy": "simple-shuffle"})  # fmt: skip
    agent = CodeAgent(tools=[], model=model, executor_type="local", verbosity_level=-1)
    assert agent.run("Six times seven?") == 42
    assert json.loads(json.dumps(model.to_dict()))["model_id"] == "team-model"


def test_litellm_router_model_needs_the_model_in_its_list():
    with pytest.raises(AgentConfigError, match="model_name 'other'"):
        LiteLLMRouterModel(model_id="other", model_list=[{"model_name": "team-model"}])


def test_vllm_model_without_vllm_is_a_clear_error():
    try:
        import vllm  # noqa: F401
    except ImportError:
        from agents import VLLMModel

        with pytest.raises(AgentConfigError, match="pip install 'vllm'"):
            VLLMModel(model_id="Qwen/Qwen2.5-0.5B-Instruct")
    else:
        pytest.skip("vllm is installed here; the error path cannot be shown")
