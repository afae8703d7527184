"""The chat-model port and its OpenAI-compatible implementation (OpenAI, Azure, vLLM, Ollama, llama.cpp)."""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Protocol

from rag.errors import LLMError, LLMTimeout


class ChatModel(Protocol):
    """A chat-completions model."""

    async def complete(self, messages: list[dict], *, max_tokens: int, timeout: float, json_mode: bool = False) -> str:
        """The whole reply (a JSON object when `json_mode`), or LLMError/LLMTimeout."""
        ...

    def stream(self, messages: list[dict], *, timeout: float) -> AsyncIterator[str]:
        """Reply text as it arrives; `timeout` bounds the wait for each piece, not the whole reply."""
        ...


class OpenAIChat:
    """Any OpenAI-compatible chat endpoint through the official `openai` client."""

    def __init__(self, model: str, api_key: str, base_url: str | None = None, max_retries: int = 1):
        from openai import AsyncOpenAI

        self.model = model
        # The client's own retries (exponential backoff with jitter) cover resets, 429 and 5xx;
        # the per-call timeouts bound the total wait, so a retry never outlives the turn's budget.
        self._client = AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=max_retries)

    async def complete(self, messages: list[dict], *, max_tokens: int, timeout: float, json_mode: bool = False) -> str:
        """One non-streamed reply."""
        extra = {"response_format": {"type": "json_object"}} if json_mode else {}
        try:
            response = await asyncio.wait_for(
                self._client.chat.completions.create(
                    model=self.model, messages=messages, max_tokens=max_tokens, temperature=0,  # type: ignore[call-overload]
                    timeout=timeout,
                    **extra,
                ),
                timeout,
            )
        except TimeoutError as exc:
            raise LLMTimeout(f"{self.model} gave no reply within {timeout:.1f}s") from exc
        except Exception as exc:
            raise _as_llm_error(self.model, exc) from exc
        if not response.choices:
            raise LLMError(f"{self.model} returned no choices")
        return response.choices[0].message.content or ""

    async def stream(self, messages: list[dict], *, timeout: float) -> AsyncIterator[str]:
        """Streamed reply pieces."""
        try:
            stream = await asyncio.wait_for(
                self._client.chat.completions.create(
                    model=self.model, messages=messages, stream=True,  # type: ignore[arg-type]
                    temperature=0.2, timeout=timeout),
                timeout,
            )
            iterator = stream.__aiter__()  # type: ignore[union-attr]  # stream=True: an AsyncStream
            while True:
                try:
                    event = await asyncio.wait_for(iterator.__anext__(), timeout)
                except StopAsyncIteration:
                    return
                if event.choices and event.choices[0].delta and event.choices[0].delta.content:
                    yield event.choices[0].delta.content
        except TimeoutError as exc:
            raise LLMTimeout(f"{self.model} stalled for more than {timeout:.1f}s") from exc
        except LLMError:
            raise
        except Exception as exc:
            raise _as_llm_error(self.model, exc) from exc


def _as_llm_error(model: str, exc: Exception) -> LLMError:
    from openai import APITimeoutError

    if isinstance(exc, APITimeoutError):
        return LLMTimeout(f"{model} timed out")
    return LLMError(f"{model} failed: {exc.__class__.__name__}: {exc}")
