"""A local Bot Framework connector for tests: records replies, sends, updates and streaming
activities the real Microsoft 365 Agents SDK client posts to a loopback serviceUrl."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from aiohttp import web
from aiohttp.test_utils import TestServer


@dataclass
class ConnectorStandIn:
    calls: list[dict] = field(default_factory=list)  # {"kind", "conversation", "activity_id", "body"}
    fail: list = field(default_factory=list)  # statuses (or (status, code)) to answer with before succeeding
    stream_refusal_after: int | None = None  # refuse streaming chunks after this many replies (Teams' Stop)
    hooks: list[dict] = field(default_factory=list)
    server: TestServer | None = None
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    @property
    def service_url(self) -> str:
        return str(self.server.make_url("/"))

    async def start(self) -> "ConnectorStandIn":
        app = web.Application()
        app.router.add_route("*", "/v3/conversations/{conversation}/activities{rest:.*}", self._activities)
        app.router.add_post("/hook", self._hook)
        self.server = TestServer(app, host="127.0.0.1")
        await self.server.start_server()
        return self

    async def close(self) -> None:
        await self.server.close()

    def of(self, kind: str) -> list[dict]:
        return [c["body"] for c in self.calls if c["kind"] == kind]

    async def _hook(self, request: web.Request) -> web.Response:
        self.hooks.append(await request.json())
        return web.json_response({"ok": True})

    async def _activities(self, request: web.Request) -> web.Response:
        rest = request.match_info["rest"].strip("/")
        kind = {"POST": "reply" if rest else "send", "PUT": "update"}.get(request.method, request.method)
        body = await request.json() if request.can_read_body else None
        self.calls.append({"kind": kind, "conversation": request.match_info["conversation"], "activity_id": rest,
                           "body": body})
        if self.stream_refusal_after is not None and kind == "reply" and \
                len(self.of("reply")) > self.stream_refusal_after:
            return web.json_response({"error": {"code": "ContentStreamNotAllowed",
                                                "message": "ContentStreamNotAllowed: the user stopped"}}, status=403)
        if self.fail:
            status = self.fail.pop(0)
            return web.json_response({"error": {"code": "Throttled"}}, status=status, headers={"Retry-After": "0"})
        return web.json_response({"id": rest if kind == "update" else f"activity-{next(self._ids)}"})


def message(text: str, service_url: str, *, conversation: str = "a:personal-1", kind: str = "personal",
            user: str = "u1", aad: str = "aad-1", value: dict | None = None, reply_to: str | None = None,
            activity_id: str = "m1") -> dict:
    activity = {"type": "message", "id": activity_id, "text": text, "channelId": "msteams", "serviceUrl": service_url,
                "from": {"id": user, "name": "Kim", "aadObjectId": aad},
                "recipient": {"id": "28:docbot", "name": "docbot"},
                "conversation": {"id": conversation, "conversationType": kind, "tenantId": "tenant-1"},
                "channelData": {"tenant": {"id": "tenant-1"}}}
    if value is not None:
        activity["value"] = value
    if reply_to:
        activity["replyToId"] = reply_to
    return activity
