"""Realtime lookups: live state comes from tools, never from document search.

Ships one real tool, an HTTP JSON lookup configured in settings, e.g.
`{"name": "gateway status", "url": "https://status.example/api/gateway", "keywords": ["gateway", "게이트웨이"],
  "path": "status.indicator", "template": "Orion Gateway: {value}"}`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import aiohttp

from rag.resilience import RetryPolicy, transient_http


class LookupTool(Protocol):
    """A live-state source that can say how well it matches a message."""

    name: str

    def score(self, text: str) -> int:
        """How many of its trigger words the message contains (0: not for this message)."""
        ...

    async def run(self) -> str:
        """The current value as a sentence; raises on failure."""
        ...


def dig(data: Any, path: str) -> Any:
    """`a.b.0.c` into nested dicts and lists; the whole document for an empty path."""
    for part in [p for p in path.split(".") if p]:
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


@dataclass
class HttpJsonLookup:
    """GET a URL, pick a value out of the JSON reply, format it."""

    name: str
    url: str
    keywords: list[str] = field(default_factory=list)
    path: str = ""  # where the value sits in the JSON reply, e.g. "status.indicator"
    template: str = "{name}: {value}"
    timeout: float = 5.0
    headers: dict[str, str] = field(default_factory=dict)
    policy: RetryPolicy = field(default_factory=lambda: RetryPolicy(attempts=2, max_wait=1.0))

    def score(self, text: str) -> int:
        """Trigger words present in the message."""
        lowered = text.lower()
        return sum(1 for k in self.keywords if k.lower() in lowered)

    async def run(self) -> str:
        """The formatted value (a GET is safe to retry)."""
        return self.template.format(name=self.name, value=dig(await self.policy.call_async(self._get, transient_http),
                                                               self.path))

    async def _get(self) -> Any:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.timeout)) as session:
            async with session.get(self.url, headers=self.headers) as response:
                response.raise_for_status()
                return await response.json(content_type=None)


class LookupRegistry:
    """Chooses the tool whose trigger words match best and runs it."""

    def __init__(self, tools: list[LookupTool] | None = None):
        self.tools = list(tools or [])

    def pick(self, text: str) -> LookupTool | None:
        """The best-matching tool, or None when no tool's words appear."""
        scored = [(tool.score(text), n, tool) for n, tool in enumerate(self.tools)]
        best = max(scored, default=(0, 0, None), key=lambda s: (s[0], -s[1]))
        return best[2] if best[0] > 0 else None

    async def answer(self, text: str, korean: bool) -> str | None:
        """The live value, a clear failure message, or None when no tool covers the message."""
        tool = self.pick(text)
        if tool is None:
            return None
        try:
            return await tool.run()
        except (TimeoutError, aiohttp.ClientError, KeyError, IndexError, ValueError, TypeError) as exc:
            reason = exc.__class__.__name__
            return (f"{tool.name} 정보를 지금 가져오지 못했습니다 ({reason}). 잠시 후 다시 시도해 주세요." if korean
                    else f"I couldn't reach {tool.name} just now ({reason}). Please try again shortly.")
