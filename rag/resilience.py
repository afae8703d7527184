"""Timeouts and retries for every outside call, from one policy set at start-up.

Each client takes the same `RetryPolicy`: tenacity for our own HTTP calls (embeddings,
lookups, the Teams connector), the clients' own retry machinery where they have it (openai,
slack_sdk, elasticsearch), always with exponential backoff and jitter, always bounded.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tenacity import AsyncRetrying, Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try an outside call: attempts in all, backoff bounds, and a per-call timeout."""

    attempts: int = 3
    base_wait: float = 0.5
    max_wait: float = 8.0
    timeout: float = 30.0

    @property
    def retries(self) -> int:
        """Retries after the first attempt, for clients that count that way."""
        return max(0, self.attempts - 1)

    def _kwargs(self, retry_if: Callable[[BaseException], bool]) -> dict:
        return {"retry": retry_if_exception(retry_if), "stop": stop_after_attempt(self.attempts),
                "wait": wait_random_exponential(multiplier=self.base_wait, max=self.max_wait), "reraise": True}

    async def call_async(self, call: Callable[[], Awaitable[Any]], retry_if: Callable[[BaseException], bool]) -> Any:
        """Await `call()`, retrying while `retry_if(error)` says the failure is transient."""
        async for attempt in AsyncRetrying(**self._kwargs(retry_if)):
            with attempt:
                return await call()

    def call(self, call: Callable[[], Any], retry_if: Callable[[BaseException], bool]) -> Any:
        """Run `call()`, retrying transient failures."""
        for attempt in Retrying(**self._kwargs(retry_if)):
            with attempt:
                return call()


def transient_http(exc: BaseException) -> bool:
    """Connection trouble, timeouts, 429 and 5xx: worth another try. Anything else is not."""
    import asyncio

    import aiohttp

    if isinstance(exc, aiohttp.ClientResponseError):
        return exc.status == 429 or exc.status >= 500
    return isinstance(exc, (aiohttp.ClientConnectionError, asyncio.TimeoutError, TimeoutError))
