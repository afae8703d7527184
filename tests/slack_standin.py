"""A local Slack Web API for tests, the way slack-bolt's own suite runs one: it speaks the real
wire format to the real `slack_sdk` client, records every call, and can be told to refuse
streaming or to answer 429 once."""
from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode

from aiohttp import web
from aiohttp.test_utils import TestServer

BOT_USER = "UBOT"


@dataclass
class SlackStandIn:
    calls: list[tuple[str, dict]] = field(default_factory=list)
    streaming: bool = True
    rate_limit_once: set[str] = field(default_factory=set)
    unavailable: set[str] = field(default_factory=set)  # methods answered 503 (Slack is having an incident)
    server: TestServer | None = None
    socket_envelopes: list[dict] = field(default_factory=list)  # pushed to a Socket Mode client on connect
    socket_acks: list[dict] = field(default_factory=list)
    _ts: itertools.count = field(default_factory=lambda: itertools.count(1))

    @property
    def base_url(self) -> str:
        return str(self.server.make_url("/api/"))

    async def start(self) -> "SlackStandIn":
        app = web.Application()
        app.router.add_post("/api/{method}", self._handle)
        app.router.add_get("/link", self._socket)
        self.server = TestServer(app, host="127.0.0.1")
        await self.server.start_server()
        return self

    async def close(self) -> None:
        await self.server.close()

    def named(self, method: str) -> list[dict]:
        return [body for name, body in self.calls if name == method]

    def _next_ts(self) -> str:
        return f"1700000100.{next(self._ts):06d}"

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        raw = await request.text()
        if request.content_type == "application/json":
            body = json.loads(raw or "{}")
        else:
            body = dict(parse_qsl(raw))
        self.calls.append((method, body))
        if method in self.unavailable:
            return web.json_response({"ok": False, "error": "service_unavailable"}, status=503)
        if method in self.rate_limit_once:
            self.rate_limit_once.discard(method)
            return web.json_response({"ok": False, "error": "ratelimited"}, status=429, headers={"Retry-After": "1"})
        if method == "auth.test":
            return web.json_response({"ok": True, "user_id": BOT_USER, "bot_id": "BBOT", "team_id": "T1",
                                      "user": "docbot", "team": "Nuri Labs", "url": "https://nuri.example/"})
        if method == "apps.connections.open":
            return web.json_response({"ok": True, "url": str(self.server.make_url("/link")).replace("http", "ws", 1)})
        if method == "chat.startStream" and not self.streaming:
            return web.json_response({"ok": False, "error": "unknown_method"})
        if method in ("chat.postMessage", "chat.startStream"):
            body["_reply_ts"] = self._next_ts()  # recorded so tests can follow the message
            return web.json_response({"ok": True, "channel": body.get("channel"), "ts": body["_reply_ts"]})
        if method == "chat.postEphemeral":
            return web.json_response({"ok": True, "message_ts": self._next_ts()})
        return web.json_response({"ok": True, "channel": body.get("channel"), "ts": body.get("ts", "")})


    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        """Socket Mode: hello, then the queued envelopes; acknowledgements are recorded."""
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"type": "hello", "num_connections": 1, "debug_info": {"host": "standin"}})
        for envelope in self.socket_envelopes:
            await ws.send_json(envelope)
        async for message in ws:
            if message.type.name == "TEXT":
                self.socket_acks.append(json.loads(message.data))
        return ws


def signed(secret: str, body: str, timestamp: int | None = None) -> dict:
    """Headers Slack would send with this body."""
    ts = str(timestamp or int(time.time()))
    digest = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={digest}"}


def event_body(text: str, *, event_id: str, ts: str, channel: str = "C1", thread_ts: str | None = None,
               kind: str = "app_mention", channel_type: str = "channel", user: str = "U1") -> str:
    event = {"type": kind, "user": user, "text": text, "ts": ts, "channel": channel, "event_ts": ts,
             "channel_type": channel_type}
    if thread_ts:
        event["thread_ts"] = thread_ts
    return json.dumps({"token": "t", "team_id": "T1", "api_app_id": "A1", "event": event, "type": "event_callback",
                       "event_id": event_id, "event_time": int(time.time()),
                       "authorizations": [{"user_id": BOT_USER, "is_bot": True, "team_id": "T1"}]})


def click_body(action_id: str, value: str, *, user: str = "U1", channel: str = "C1", message_ts: str = "1.1",
               thread_ts: str | None = None, action_ts: str = "1700000200.000001") -> str:
    payload = {"type": "block_actions", "team": {"id": "T1"}, "user": {"id": user}, "api_app_id": "A1",
               "token": "t", "trigger_id": "trig",
               "container": {"type": "message", "message_ts": message_ts, "channel_id": channel,
                             "is_ephemeral": False, "thread_ts": thread_ts},
               "channel": {"id": channel}, "message": {"ts": message_ts, "text": ""},
               "actions": [{"action_id": action_id, "block_id": "b", "value": value, "type": "button",
                            "action_ts": action_ts}]}
    return urlencode({"payload": json.dumps(payload)})
