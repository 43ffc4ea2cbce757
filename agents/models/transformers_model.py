"""`TransformersModel`: local weights run by transformers (a Hub id, a folder, or a GGUF file)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError, ContextLengthExceededError, ModelProviderError
from agents.models.base import Model
from agents.models.messages import ChatMessage, ChatMessageStreamDelta, TokenUsage
from agents.models.optional import optional_import
from agents.models.transformers_io import (
    chat_template_from_gguf,
    template_messages,
    to_pil_image,
)

logger = logging.getLogger(__name__)

# Keys other backends understand that `generate` would reject.
_NOT_FOR_GENERATE = ("tool_choice", "stream_options", "response_format", "stop", "model")


@dataclass
class _Loaded:
    model: Any
    tokenizer: Any
    processor: Any  # None for text-only models


class TransformersModel(Model):
    """A model run locally by transformers, with its chat template.

    Args:
        model_id: A Hub id (already downloaded) or a local folder. With only `gguf_file` given
            as a path, its folder.
        gguf_file: A GGUF file name inside `model_id` (or a full path); needs `gguf`.
        device_map: Where to put the weights ("cpu", "cuda", "auto"); default: CPU.
        torch_dtype: "auto", "float32", "bfloat16", ... (default: the loader's choice).
        trust_remote_code: Allow the model's own code from the Hub.
        max_new_tokens: Default cap on the tokens of one answer.
        model_kwargs: Extra arguments for `from_pretrained`.
        **kwargs: `Model` options and generation parameters (`temperature`, `top_p`...).
    """

    native_tool_calls = False

    def __init__(
        self,
        model_id: str | None = None,
        gguf_file: str | None = None,
        device_map: str | None = None,
        torch_dtype: Any = None,
        trust_remote_code: bool = False,
        max_new_tokens: int = 1024,
        model_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ):
        if gguf_file and model_id is None and Path(gguf_file).is_absolute():
            model_id, gguf_file = str(Path(gguf_file).parent), Path(gguf_file).name
        if not model_id:
            raise AgentConfigError(
                "TransformersModel needs model_id= (a Hub id or a local folder), or "
                "gguf_file= with the full path of a .gguf file."
            )
        kwargs.setdefault("max_retries", 0)
        super().__init__(model_id=model_id, **kwargs)
        self.gguf_file = gguf_file
        self.device_map = device_map
        self.torch_dtype = torch_dtype
        self.trust_remote_code = trust_remote_code
        self.max_new_tokens = max_new_tokens
        self.model_kwargs = model_kwargs or {}
        self._loaded: _Loaded | None = None
        self._lock = threading.Lock()

    # -- loading ---------------------------------------------------------------------------

    def load(self) -> _Loaded:
        """Load tokenizer and weights once (thread-safe); later calls return them."""
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    self._loaded = self._load()
        return self._loaded

    def _load(self) -> _Loaded:
        transformers = optional_import("transformers", "transformers", "TransformersModel")
        optional_import("torch", "torch", "TransformersModel")
        common: dict[str, Any] = {"trust_remote_code": self.trust_remote_code}
        if self.gguf_file:
            optional_import("gguf", "gguf", "TransformersModel with gguf_file=")
            optional_import("accelerate", "accelerate", "TransformersModel with gguf_file=")
            common["gguf_file"] = self.gguf_file
        try:
            loaded = self._load_parts(transformers, common)
        except OSError as err:
            raise AgentConfigError(
                f"TransformersModel could not load {self.model_id!r}"
                f"{f' ({self.gguf_file})' if self.gguf_file else ''}: {err}. Give a local folder "
                "or a Hub id that is already downloaded (no download happens offline)."
            ) from err
        loaded.model.eval()
        self._ensure_chat_template(loaded.tokenizer)
        config = loaded.model.config
        text_config = getattr(config, "text_config", None) or config  # transformers' config
        self.context_size = getattr(text_config, "max_position_embeddings", None)  # not every arch
        logger.info("loaded %s with transformers (context %s)", self.model_id, self.context_size)
        return loaded

    def _load_parts(self, transformers: Any, common: dict[str, Any]) -> _Loaded:
        weights = {**common, **self.model_kwargs}
        if self.device_map:
            weights["device_map"] = self.device_map
        if self.torch_dtype is not None:
            weights["dtype"] = self.torch_dtype
        # transformers reads only text models from GGUF; skip parsing the file a third time.
        if not self.gguf_file:
            config = transformers.AutoConfig.from_pretrained(self.model_id, **common)
            if _is_vision(config):
                processor = transformers.AutoProcessor.from_pretrained(self.model_id, **common)
                model = transformers.AutoModelForImageTextToText.from_pretrained(
                    self.model_id, **weights
                )
                return _Loaded(model, processor.tokenizer, processor)
        tokenizer = transformers.AutoTokenizer.from_pretrained(self.model_id, **common)
        model = transformers.AutoModelForCausalLM.from_pretrained(self.model_id, **weights)
        return _Loaded(model, tokenizer, None)

    def _ensure_chat_template(self, tokenizer: Any) -> None:
        if getattr(tokenizer, "chat_template", None):  # transformers tokenizer
            return
        if self.gguf_file:
            tokenizer.chat_template = chat_template_from_gguf(Path(self.model_id) / self.gguf_file)
        if not getattr(tokenizer, "chat_template", None):  # transformers tokenizer
            raise AgentConfigError(
                f"{self.model_id!r} has no chat template; use an instruct/chat model."
            )

    @property
    def supports_images(self) -> bool:  # type: ignore[override]
        """True for vision-language models (known once loaded)."""
        return self._loaded is not None and self._loaded.processor is not None

    def image_block(self, image: Any) -> dict[str, Any]:
        """Keep the image itself: the processor encodes it."""
        return {"type": "image", "image": to_pil_image(image)}

    def count_tokens(self, text: str) -> int:
        """Tokens in `text`, by the model's tokenizer."""
        if not text:
            return 0
        return len(self.load().tokenizer.encode(text, add_special_tokens=False))

    # -- generation ------------------------------------------------------------------------

    def _inputs(self, messages: list[dict[str, Any]], tools: list[dict] | None) -> Any:
        loaded = self.load()
        vision = loaded.processor is not None
        chat = template_messages(messages, keep_images=vision)
        if vision:
            inputs = loaded.processor.apply_chat_template(
                chat,
                tools=tools,
                add_generation_prompt=True,
                tokenize=True,
                return_dict=True,
                return_tensors="pt",
            )
        else:
            text = loaded.tokenizer.apply_chat_template(
                chat, tools=tools, add_generation_prompt=True, tokenize=False
            )
            inputs = loaded.tokenizer(text, return_tensors="pt", add_special_tokens=False)
        prompt_length = inputs["input_ids"].shape[1]
        if self.context_size and prompt_length >= self.context_size:
            raise ContextLengthExceededError(
                f"TransformersModel ({self.model_id}): the prompt has {prompt_length} tokens, "
                f"the model's context is {self.context_size}. Start a new chat or shorten the input."
            )
        return inputs.to(loaded.model.device)

    def _generation_kwargs(
        self, stop_sequences: list[str] | None, call_kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        tokenizer = self.load().tokenizer
        options = {"max_new_tokens": self.max_new_tokens, **self.kwargs, **call_kwargs}
        if "max_tokens" in options:
            options["max_new_tokens"] = options.pop("max_tokens")
        for key in _NOT_FOR_GENERATE:
            options.pop(key, None)
        if "do_sample" not in options:
            options["do_sample"] = bool(options.get("temperature"))
        if not options.get("temperature"):
            # temperature=0 means greedy here, as with the API backends.
            options.pop("temperature", None)
        if stop_sequences:
            # transformers stops on these strings during generation, across token borders.
            options["stop_strings"] = list(stop_sequences)
            options["tokenizer"] = tokenizer
        options.setdefault("pad_token_id", tokenizer.pad_token_id or tokenizer.eos_token_id)
        return options

    def _generate(self, messages, stop_sequences, response_format, tools, **kwargs) -> ChatMessage:
        import torch

        inputs = self._inputs(messages, tools)
        options = self._generation_kwargs(stop_sequences, kwargs)
        loaded = self.load()
        prompt_length = inputs["input_ids"].shape[1]
        try:
            with torch.inference_mode():
                output = loaded.model.generate(**inputs, **options)
        except (RuntimeError, ValueError) as err:
            raise ModelProviderError(f"TransformersModel failed while generating: {err}") from err
        new_tokens = output[0, prompt_length:]
        text = loaded.tokenizer.decode(new_tokens, skip_special_tokens=True)
        return ChatMessage(
            role="assistant",
            content=text,
            raw=output,
            token_usage=TokenUsage(int(prompt_length), int(new_tokens.shape[0])),
        )

    def _generate_stream(
        self, messages, stop_sequences, response_format, tools, **kwargs
    ) -> Iterator[ChatMessageStreamDelta]:
        from transformers import TextIteratorStreamer

        inputs = self._inputs(messages, tools)
        options = self._generation_kwargs(stop_sequences, kwargs)
        loaded = self.load()
        streamer = TextIteratorStreamer(
            loaded.tokenizer, skip_prompt=True, skip_special_tokens=True
        )
        run = _GenerationThread(loaded.model, inputs, options, streamer)
        run.start()
        try:
            for text in streamer:
                if text:
                    yield ChatMessageStreamDelta(content=text)
        finally:
            # The reader may stop early (stop sequence, UI stop): end the generation too.
            run.cancel()
        if run.error is not None:
            raise ModelProviderError(
                f"TransformersModel failed while generating: {run.error}"
            ) from run.error
        yield ChatMessageStreamDelta(token_usage=TokenUsage(run.prompt_length, run.generated))


class _GenerationThread(threading.Thread):
    """Runs `model.generate` with a streamer; can be cancelled between two tokens."""

    def __init__(self, model: Any, inputs: Any, options: dict[str, Any], streamer: Any):
        super().__init__(daemon=True, name="transformers-generate")
        self.model, self.inputs, self.options, self.streamer = model, inputs, options, streamer
        self.prompt_length = int(inputs["input_ids"].shape[1])
        self.generated = 0
        self.error: BaseException | None = None
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        self._cancelled.set()
        self.join(timeout=30)

    def run(self) -> None:
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList

        thread = self

        class _Watch(StoppingCriteria):
            # Called once per new token: count it, and stop when cancelled.
            def __call__(self, input_ids, scores, **kwargs):
                thread.generated = int(input_ids.shape[1]) - thread.prompt_length
                stop = thread._cancelled.is_set()
                return torch.full((input_ids.shape[0],), stop, dtype=torch.bool)

        criteria = StoppingCriteriaList(self.options.pop("stopping_criteria", None) or [])
        criteria.append(_Watch())
        try:
            with torch.inference_mode():
                self.model.generate(
                    **self.inputs,
                    **self.options,
                    streamer=self.streamer,
                    stopping_criteria=criteria,
                )
        except Exception as err:
            self.error = err
            self.streamer.end()


def _is_vision(config: Any) -> bool:
    return getattr(config, "vision_config", None) is not None  # transformers config
