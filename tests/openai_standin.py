"""A local OpenAI-compatible server for tests: scripted replies, streaming, delays and errors.

It speaks the real wire format (JSON and server-sent events), so the real `openai` client
is what the tests exercise.
"""
from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from aiohttp import web
from aiohttp.test_utils import TestServer


@dataclass
class Reply:
    """One scripted reply: text (split into `pieces` when streamed), a delay, or an HTTP error."""

    text: str = ""
    delay: float = 0.0
    status: int = 200
    pieces: list[str] | None = None
    stall_after: int | None = None  # stream this many pieces, then hang


@dataclass
class OpenAIStandIn:
    """Records every request and answers from the script, in order."""

    script: list[Reply] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)
    server: TestServer | None = None

    @property
    def base_url(self) -> str:
        return str(self.server.make_url("/v1"))

    async def start(self) -> "OpenAIStandIn":
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/embeddings", self._embeddings)
        self.server = TestServer(app, host="127.0.0.1")
        await self.server.start_server()
        return self

    async def close(self) -> None:
        await self.server.close()

    async def _embeddings(self, request: web.Request) -> web.Response:
        """Deterministic 8-dim vectors from character codes, so equal texts embed equally."""
        body = await request.json()
        self.requests.append(body)
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"object": "embedding", "index": i,
                 "embedding": [float(sum(map(ord, text[j::8])) % 97 + 1) for j in range(8)]}
                for i, text in reversed(list(enumerate(inputs)))]  # out of order, as servers may
        return web.json_response({"object": "list", "data": data, "model": body["model"],
                                  "usage": {"prompt_tokens": 1, "total_tokens": 1}})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        reply = self.script.pop(0) if self.script else Reply("(no script)")
        return await self.respond(request, body, reply)

    async def respond(self, request: web.Request, body: dict, reply: Reply) -> web.StreamResponse:
        """Answer one chat request with a reply: delay, error, JSON or server-sent events."""
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.status != 200:
            return web.json_response({"error": {"message": "scripted failure", "type": "server_error"}},
                                     status=reply.status)
        if not body.get("stream"):
            return web.json_response({
                "id": "cmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            })
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for n, piece in enumerate(reply.pieces or [reply.text]):
            if reply.stall_after is not None and n >= reply.stall_after:
                await asyncio.sleep(30)
            chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": body["model"],
                     "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        return response
