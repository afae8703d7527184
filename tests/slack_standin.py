"""A local Slack Web API for tests, the way slack-bolt's own suite runs one: it speaks the real
wire format to the real `slack_sdk` client, records every call, and refuses what Slack refuses
(docs.slack.dev/reference/methods/*): a method it does not know (`unknown_method`), an unknown
token (`invalid_auth`) or a revoked one (`token_revoked`), a channel the bot is not in
(`not_in_channel`) or a DM it is not part of (`channel_not_found`), a Socket Mode connection asked
for with an app-level token it does not know (`invalid_auth`) or with a bot token (`not_allowed_token_type`),
text over 40,000 characters (`msg_too_long`), blocks past their limits (`invalid_blocks`: 50 blocks, 3,000 characters of
section or context text, 2,000 of a button value, 12,000 characters of markdown blocks in one
payload, 25 elements in an actions block, 75 characters of button text, block types Slack does
not have), updating or deleting a message it never posted (`message_not_found`), one docbot did
not post (`cant_update_message`) or one that sits in another channel (`message_not_found`),
appending to or stopping a stream that is not streaming (`message_not_in_streaming_state`), a
streamed message past 40,000 characters in all (`msg_too_long`), a stream in a channel without
its recipient (`invalid_arguments`: recipient_user_id and recipient_team_id are "required when
streaming to channels"), an ephemeral message for someone who is not in the channel
(`user_not_in_channel`), assistant thread titles and prompts outside an assistant thread (a DM
with the app), and a `response_url` used more than five times or after 30 minutes (404
`used_url` / `expired_url`). Rate limits: a method can be answered 429 any number of times in a
row, and a call made before the Retry-After it was given is refused again (and recorded). It can
also be told to refuse streaming, to answer 503, or to answer a share of calls late (timeouts), and a
call late with its effect before the answer (`late_next`), after it (`delayed_next`: a post that lands after
docbot looked for it) or never (`lost_next`). A deleted message is gone from `conversations.replies`.
Late answers come after `slow_seconds` (a real client's timeout gives up first), or, with
`signal_timeouts` (late, lost and delayed calls), at once with a mark that a client session from
`timing_out_session()` raises as the TimeoutError of a client that stopped waiting: the same outcome with
no clock, so a loaded machine cannot time out a call that should succeed."""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

BOT_USER = "UBOT"
LOOKUPS = {"conversations.replies", "conversations.history", "auth.test"}  # reads that change nothing
TIMED_OUT = "X-Standin-Timed-Out"  # on a late or lost answer with signal_timeouts: the client gave up


def timing_out_session(guard_seconds: float = 300.0) -> aiohttp.ClientSession:
    """A session for docbot's Slack client under test (`adapter.app.client.session`; Bolt's per-request
    clients share it): an answer marked TIMED_OUT raises TimeoutError, as aiohttp's own timeout does, after
    the stand-in did (late) or did not do (lost) what was asked. Any other call may take as long as the
    machine needs (`guard_seconds` only guards against a hang)."""

    async def ended(session, context, params) -> None:
        if params.response.headers.get(TIMED_OUT):
            raise TimeoutError

    trace = aiohttp.TraceConfig()
    trace.on_request_end.append(ended)
    return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=guard_seconds), trace_configs=[trace])


@dataclass
class SlackStandIn:
    calls: list[tuple[str, dict]] = field(default_factory=list)
    streaming: bool = True
    rate_limit_once: set[str] = field(default_factory=set)
    rate_limited: dict = field(default_factory=dict)  # method -> how many more calls to answer 429
    retry_after: int = 1  # seconds Slack asks a rate-limited client to wait
    early: list[str] = field(default_factory=list)  # methods called again before their Retry-After
    revoked: set[str] = field(default_factory=set)  # tokens Slack revoked (uninstalled, or auth.revoke)
    members: dict = field(default_factory=dict)  # channel -> its members, where a test says who they are
    clock: Callable[[], float] = time.monotonic  # response_url expiry is measured with this
    unavailable: set[str] = field(default_factory=set)  # methods answered 503 (Slack is having an incident)
    server: TestServer | None = None
    socket_envelopes: list[dict] = field(default_factory=list)  # pushed to a Socket Mode client on connect
    socket_acks: list[dict] = field(default_factory=list)
    joined: set[str] = field(default_factory=lambda: {"C1", "D1"})  # channels and DMs docbot is in
    threads: dict = field(default_factory=dict)  # thread ts -> messages conversations.replies returns
    tokens: dict = field(default_factory=lambda: {"xoxb-test": "T1"})  # bot token -> its workspace
    app_tokens: set = field(default_factory=lambda: {"xapp-test"})  # app-level tokens (Socket Mode) Slack knows
    oauth_codes: dict = field(default_factory=dict)  # code -> the workspace an install of it grants
    client: tuple = ("111.222", "client-secret")  # the app's OAuth client id and secret  # channels the bot is a member of (DMs: always)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (method, error) of every refused call
    slow_rate: float = 0.0  # share of calls answered late (timeouts on the client's side)
    slow_seconds: float = 0.0
    signal_timeouts: bool = False  # late and lost calls answered at once, marked TIMED_OUT (no clock)
    slowed: list[str] = field(default_factory=list)  # methods answered late
    slow_methods: set[str] = field(default_factory=set)  # methods always answered late
    # The next n calls of a method answered late: with effect ("late": Slack did it, the answer is slow) or
    # without ("lost": the request timed out before Slack did anything). Slack deduplicates neither.
    late_next: dict = field(default_factory=dict)
    lost_next: dict = field(default_factory=dict)
    # ("delayed": the request waits in Slack's queue and takes effect only after the client gave up, so a
    # lookup made meanwhile does not see it; aiohttp, like Slack, finishes a request whose client left.
    # With signal_timeouts it takes effect just before the client's next call that is not a lookup: after
    # every look the client made meanwhile, with no clock.)
    delayed_next: dict = field(default_factory=dict)
    _queued: list = field(default_factory=list)  # delayed calls (request, body) not carried out yet
    seed: int = 30
    emails: dict = field(default_factory=dict)  # user id -> e-mail users.info shows (users:read.email granted)
    in_flight: int = 0  # calls being answered right now (a late one included)
    _ts: itertools.count = field(default_factory=lambda: itertools.count(1))
    _posted: dict = field(default_factory=dict)  # ts -> "message" | "streaming" | "stopped", docbot's own
    _streamed: dict = field(default_factory=dict)  # stream ts -> characters of markdown it holds
    _channel_of: dict = field(default_factory=dict)  # ts -> the channel the message sits in
    _blocked: dict = field(default_factory=dict)  # method -> clock time before which it is still 429
    _urls: dict = field(default_factory=dict)  # response_url token -> (issued at, uses)

    @property
    def base_url(self) -> str:
        return str(self.server.make_url("/api/"))

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)  # the same calls are slowed run after run

    async def start(self) -> "SlackStandIn":
        app = web.Application()
        app.router.add_post("/api/{method}", self._handle)
        app.router.add_get("/api/{method}", self._handle)  # slack_sdk reads some methods with GET
        app.router.add_get("/link", self._socket)
        app.router.add_post("/respond/{token}", self._respond)
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
        """The method's answer; a `slow_rate` share of calls (all but auth.test) is answered only after
        `slow_seconds`, as Slack does under load: the call took effect, the client may have given up."""
        raw = await request.text()  # read while the client is there: what follows may outlive it
        self.in_flight += 1
        task = asyncio.create_task(self._answer(request, raw))
        task.add_done_callback(lambda _: setattr(self, "in_flight", self.in_flight - 1))
        # A request Slack received is carried out even when its client gave up (aiohttp's test server would
        # cancel the handler when the client hangs up; Slack does not).
        return await asyncio.shield(task)

    async def _answer(self, request: web.Request, raw: str) -> web.Response:
        method = request.match_info["method"]
        if self._queued and method not in LOOKUPS:
            queued, self._queued = self._queued, []
            for earlier, body in queued:
                await self._method(earlier, body)
        if self.lost_next.get(method):
            self.lost_next[method] -= 1
            self.slowed.append(method)
            return await self._late(web.json_response({"ok": False, "error": "request_timeout"}))  # nothing done
        if self.delayed_next.get(method):
            self.delayed_next[method] -= 1
            self.slowed.append(method)
            if self.signal_timeouts:
                self._queued.append((request, raw))
                return await self._late(web.json_response({"ok": False, "error": "request_timeout"}))
            await asyncio.sleep(self.slow_seconds)
            return await self._method(request, raw)
        response = await self._method(request, raw)
        if self.late_next.get(method):
            self.late_next[method] -= 1
            self.slowed.append(method)
            return await self._late(response)
        if method in self.slow_methods or (self.slow_rate and method != "auth.test" and self._rng.random() < self.slow_rate):
            self.slowed.append(request.match_info["method"])
            return await self._late(response)
        return response

    async def _late(self, response: web.Response) -> web.Response:
        """An answer the client no longer waits for: after `slow_seconds`, or marked TIMED_OUT at once."""
        if self.signal_timeouts:
            response.headers[TIMED_OUT] = "1"
        else:
            await asyncio.sleep(self.slow_seconds)
        return response

    async def _method(self, request: web.Request, raw: str) -> web.Response:
        method = request.match_info["method"]
        if request.content_type == "application/json":
            body = json.loads(raw or "{}")
        else:
            body = dict(parse_qsl(raw))
        body = {**dict(request.query), **body}  # slack_sdk sends some methods' arguments as query parameters
        token = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        body["_team"] = self.tokens.get(token)  # which workspace's token made the call
        self.calls.append((method, body))
        if method == "oauth.v2.access":
            return self._oauth_access(body, request)
        if token in self.revoked:
            self.refused.append((method, "token_revoked"))
            return web.json_response({"ok": False, "error": "token_revoked"})
        if method == "apps.connections.open" and token not in self.app_tokens:
            # Slack: a bot or user token is the wrong type here; an app-level token it does not know, invalid_auth
            error = "invalid_auth" if token.startswith("xapp-") else "not_allowed_token_type"
            self.refused.append((method, error))
            return web.json_response({"ok": False, "error": error})
        if method not in ("apps.connections.open",) and token not in self.tokens:
            self.refused.append((method, "invalid_auth"))
            return web.json_response({"ok": False, "error": "invalid_auth"})
        limited = self._rate_limit(method)
        if limited is not None:
            return limited
        error = self._refusal(method, body)
        if error:
            self.refused.append((method, error))
            return web.json_response({"ok": False, "error": error})
        if method in self.unavailable:
            return web.json_response({"ok": False, "error": "service_unavailable"}, status=503)
        if method == "auth.test":
            team = body["_team"]
            return web.json_response({"ok": True, "user_id": BOT_USER, "bot_id": f"B{team}", "team_id": team,
                                      "user": "docbot", "team": f"Team {team}", "url": "https://nuri.example/"})
        if method == "apps.connections.open":
            return web.json_response({"ok": True, "url": str(self.server.make_url("/link")).replace("http", "ws", 1)})
        if method == "chat.startStream" and not self.streaming:
            return web.json_response({"ok": False, "error": "unknown_method"})
        if method in ("chat.postMessage", "chat.startStream"):
            body["_reply_ts"] = self._next_ts()  # recorded so tests can follow the message
            self._posted[body["_reply_ts"]] = "streaming" if method == "chat.startStream" else "message"
            self._channel_of[body["_reply_ts"]] = body.get("channel")
            if body.get("thread_ts"):  # conversations.replies shows docbot's own replies too
                reply = {"type": "message", "user": BOT_USER, "bot_id": f"B{body['_team']}", "ts": body["_reply_ts"],
                         "thread_ts": body["thread_ts"], "text": body.get("text") or ""}
                if body.get("metadata"):
                    reply["metadata"] = body["metadata"]
                self.threads.setdefault(body["thread_ts"], []).append(reply)
            return web.json_response({"ok": True, "channel": body.get("channel"), "ts": body["_reply_ts"]})
        if method == "chat.stopStream":
            self._posted[body.get("ts")] = "stopped"
        if method == "chat.delete":  # gone from the thread as well
            self._posted.pop(body.get("ts"), None)
            for messages in self.threads.values():
                messages[:] = [m for m in messages if m.get("ts") != body.get("ts")]
        if method == "conversations.replies":  # oldest first; `oldest` excludes earlier replies; paged by cursor
            limit, start = min(int(body.get("limit") or 1000), 1000), int(body.get("cursor") or 0)
            oldest = float(body.get("oldest") or 0)
            messages = [m for m in self.threads.get(body.get("ts"), []) if float(m["ts"]) > oldest]
            if str(body.get("include_all_metadata")).lower() not in ("1", "true"):  # Slack's default: no metadata
                messages = [{k: v for k, v in m.items() if k != "metadata"} for m in messages]
            page, more = messages[start:start + limit], len(messages) > start + limit
            return web.json_response({"ok": True, "messages": page, "has_more": more,
                                      "response_metadata": {"next_cursor": str(start + limit) if more else ""}})
        if method == "chat.postEphemeral":
            return web.json_response({"ok": True, "message_ts": self._next_ts()})
        if method == "users.info":  # the profile's e-mail only with the users:read.email scope
            user = body.get("user", "")
            profile = {"real_name": user, **({"email": self.emails[user]} if user in self.emails else {})}
            return web.json_response({"ok": True, "user": {"id": user, "team_id": body["_team"], "name": user,
                                                           "profile": profile}})
        return web.json_response({"ok": True, "channel": body.get("channel"), "ts": body.get("ts", "")})


    def _rate_limit(self, method: str) -> web.Response | None:
        """429 with Retry-After while the method is limited; a call before the wait is over is refused again
        (Slack keeps limiting a client that does not wait) and recorded in `early`."""
        now = self.clock()
        if method in self.rate_limit_once:
            self.rate_limit_once.discard(method)
            self.rate_limited[method] = self.rate_limited.get(method, 0) + 1
        early = now < self._blocked.get(method, 0.0)
        if early:
            self.early.append(method)
        if early or self.rate_limited.get(method, 0) > 0:
            if not early:
                self.rate_limited[method] -= 1
            self._blocked[method] = now + self.retry_after
            self.refused.append((method, "ratelimited"))
            return web.json_response({"ok": False, "error": "ratelimited"}, status=429,
                                     headers={"Retry-After": str(self.retry_after)})
        return None

    def revoke(self, team: str) -> None:
        """The workspace uninstalled the app: each of its tokens now answers `token_revoked`."""
        for token, owner in list(self.tokens.items()):
            if owner == team:
                self.revoked.add(token)
                del self.tokens[token]

    def _oauth_access(self, body: dict, request: web.Request) -> web.Response:
        """oauth.v2.access: the app's client credentials and a one-time code become a bot token."""
        import base64

        auth = request.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
        else:
            client_id, secret = body.get("client_id", ""), body.get("client_secret", "")
        if (client_id, secret) != self.client:
            return web.json_response({"ok": False, "error": "invalid_client_id"})
        team = self.oauth_codes.pop(body.get("code"), None)
        if team is None:
            return web.json_response({"ok": False, "error": "invalid_code"})
        token = f"xoxb-{team}-installed"
        self.tokens[token] = team
        return web.json_response({
            "ok": True, "access_token": token, "token_type": "bot", "scope": "chat:write,app_mentions:read",
            "bot_user_id": BOT_USER, "app_id": "A1", "team": {"id": team, "name": f"Team {team}"},
            "enterprise": None, "is_enterprise_install": False,
            "authed_user": {"id": "UINSTALLER", "scope": "", "access_token": None, "token_type": None}})

    async def _respond(self, request: web.Request) -> web.Response:
        """A command's or a button's response_url: what was posted there is recorded as `respond`. Slack takes
        at most five posts to one URL, within 30 minutes of the interaction (docs.slack.dev/interactivity/
        handling-user-interaction#message_responses)."""
        body = await request.json()
        token = request.match_info["token"]
        issued, uses = self._urls.setdefault(token, (self.clock(), 0))
        if self.clock() - issued > RESPONSE_URL_SECONDS:
            self.refused.append(("respond", "expired_url"))
            return web.Response(status=404, text="expired_url")
        if uses >= RESPONSE_URL_USES:
            self.refused.append(("respond", "used_url"))
            return web.Response(status=404, text="used_url")
        self._urls[token] = (issued, uses + 1)
        if len(body.get("text") or "") > 40_000 or _invalid_blocks(body.get("blocks")):
            self.refused.append(("respond", "invalid_blocks"))
            return web.Response(status=400, text="invalid_blocks")
        self.calls.append(("respond", {**body, "_url": token}))  # which response_url it was posted to
        return web.Response(text="ok")

    def response_url(self, token: str = "r1") -> str:
        """A fresh response_url (issued now, by `clock`)."""
        self._urls[token] = (self.clock(), 0)
        return str(self.server.make_url(f"/respond/{token}"))

    def _refusal(self, method: str, body: dict) -> str:
        """The error Slack would answer this call with, or ""."""
        if method not in KNOWN_METHODS:
            return "unknown_method"
        channel = str(body.get("channel") or body.get("channel_id") or "")
        if channel.startswith("D") and channel not in self.joined and method in IN_CONVERSATION:
            return "channel_not_found"  # a DM docbot is not part of does not exist for it
        if method in POSTING and channel and not channel.startswith("D") and channel not in self.joined:
            return "not_in_channel"
        if method == "chat.postEphemeral" and channel in self.members and body.get("user") not in self.members[channel]:
            return "user_not_in_channel"
        if method == "chat.startStream" and not channel.startswith("D") and not (
                body.get("recipient_user_id") and body.get("recipient_team_id")):
            return "invalid_arguments"
        if method in ("assistant.threads.setTitle", "assistant.threads.setSuggestedPrompts") and \
                not channel.startswith("D"):
            return "invalid_thread_ts"  # assistant threads live in the app's DM (its assistant pane)
        if len(str(body.get("text") or "")) > 40_000:
            return "msg_too_long"
        if _invalid_blocks(body.get("blocks")):
            return "invalid_blocks"
        ts = body.get("ts")
        if method in MESSAGE_METHODS and ts in self._channel_of and self._channel_of[ts] != channel:
            return "message_not_found"  # a ts names a message only within its own channel
        if method in ("chat.update", "chat.delete"):
            if ts not in self._posted:
                return "message_not_found" if method == "chat.delete" or not str(ts).startswith("1700000100.") \
                    else "cant_update_message"
        if method in ("chat.appendStream", "chat.stopStream") and self._posted.get(body.get("ts")) != "streaming":
            return "message_not_in_streaming_state"
        if method in ("chat.startStream", "chat.appendStream") and len(str(body.get("markdown_text") or "")) > 12_000:
            return "msg_too_long"
        if method == "chat.appendStream":  # a streamed message is a message: 40,000 characters in all
            total = self._streamed.get(body.get("ts"), 0) + len(str(body.get("markdown_text") or ""))
            if total > MESSAGE_LIMIT:
                return "msg_too_long"
            self._streamed[body.get("ts")] = total
        metadata = body.get("metadata")
        if metadata is not None and (not isinstance(metadata, dict) or not isinstance(metadata.get("event_type"), str)
                                     or not isinstance(metadata.get("event_payload"), dict)):
            return "invalid_metadata_format"
        return ""

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


MESSAGE_LIMIT = 40_000  # characters of one message (docs.slack.dev/reference/methods/chat.postMessage)
KNOWN_METHODS = {
    "auth.test", "oauth.v2.access", "apps.connections.open", "chat.postMessage", "chat.postEphemeral", "chat.update", "chat.delete",
    "chat.startStream", "chat.appendStream", "chat.stopStream", "assistant.threads.setStatus",
    "assistant.threads.setTitle", "assistant.threads.setSuggestedPrompts", "conversations.replies",
    "conversations.info", "users.info",
}
POSTING = {"chat.postMessage", "chat.postEphemeral", "chat.startStream", "chat.update", "chat.delete"}
MESSAGE_METHODS = {"chat.update", "chat.delete", "chat.appendStream", "chat.stopStream"}
IN_CONVERSATION = POSTING | MESSAGE_METHODS | {"conversations.replies", "assistant.threads.setStatus",
                                               "assistant.threads.setTitle", "assistant.threads.setSuggestedPrompts"}
RESPONSE_URL_USES, RESPONSE_URL_SECONDS = 5, 30 * 60
BLOCK_TYPES = {"actions", "context", "context_actions", "divider", "file", "header", "image", "input", "markdown",
               "rich_text", "section", "table", "video"}  # docs.slack.dev/reference/block-kit/blocks


def _invalid_blocks(blocks) -> bool:
    """Block Kit limits Slack enforces (docs.slack.dev/reference/block-kit/blocks)."""
    if isinstance(blocks, str):
        blocks = json.loads(blocks)
    if not blocks:
        return False
    if len(blocks) > 50:
        return True
    if sum(len(b.get("text") or "") for b in blocks if b.get("type") == "markdown") > 12_000:
        return True  # "the cumulative limit for all markdown blocks in a single payload is 12,000 characters"
    for block in blocks:
        kind = block.get("type")
        if kind not in BLOCK_TYPES:
            return True
        if kind == "actions" and (len(block.get("elements") or []) > 25 or any(
                e.get("type") == "button" and len((e.get("text") or {}).get("text", "")) > 75
                for e in block.get("elements") or [])):
            return True
        if kind == "section" and len((block.get("text") or {}).get("text", "")) > 3000:
            return True
        if kind == "context" and any(len(e.get("text", "")) > 3000 for e in block.get("elements", [])):
            return True
        if kind == "markdown" and len(block.get("text", "")) > 12_000:
            return True
        if kind == "actions" and any(len(str(e.get("value", ""))) > 2000 for e in block.get("elements", [])):
            return True
        if kind == "context_actions" and any(e.get("type") not in ("feedback_buttons", "icon_button")
                                             for e in block.get("elements", [])):
            return True
    return False


def signed(secret: str, body: str, timestamp: int | None = None) -> dict:
    """Headers Slack would send with this body."""
    ts = str(timestamp or int(time.time()))
    digest = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={digest}"}


def event_body(text: str, *, event_id: str, ts: str, channel: str = "C1", thread_ts: str | None = None,
               kind: str = "app_mention", channel_type: str = "channel", user: str = "U1", team: str = "T1") -> str:
    # As Slack's documented examples: the user's `team`, a `client_msg_id`, and the text as rich-text blocks.
    event = {"type": kind, "user": user, "text": text, "ts": ts, "channel": channel, "event_ts": ts,
             "channel_type": channel_type, "team": team, "client_msg_id": f"c0ffee00-{abs(hash(ts)) % 10**8:08d}",
             "blocks": [{"type": "rich_text", "block_id": "b1", "elements": [
                 {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}]}]}
    if thread_ts:
        event["thread_ts"] = thread_ts
    return json.dumps({"token": "t", "team_id": "T1", "api_app_id": "A1", "event": event, "type": "event_callback",
                       "event_id": event_id, "event_time": int(time.time()),
                       "authorizations": [{"user_id": BOT_USER, "is_bot": True, "team_id": "T1"}]})


def revocation_body(kind: str, *, event_id: str, team: str = "T1", bot: tuple = (BOT_USER,),
                    users: tuple = ()) -> dict:
    """`tokens_revoked` / `app_uninstalled` exactly as Slack documents them (docs.slack.dev/reference/events/
    tokens_revoked, .../app_uninstalled): the envelope's team_id names the workspace, and there is no
    `authorizations` list; tokens_revoked names user ids per kind of token, never the tokens."""
    event: dict = {"type": kind}
    if kind == "tokens_revoked":
        event["tokens"] = {"oauth": list(users), "bot": list(bot)}
    return {"token": "XXYYZZ", "team_id": team, "api_app_id": "A1", "event": event, "type": "event_callback",
            "event_id": event_id, "event_time": int(time.time())}


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


def feedback_click(value: str, which: str, **kwargs) -> str:
    """A click on Slack's own 👍 / 👎 (`feedback_buttons`): the pressed side's value comes back."""
    positive, negative = value
    body = json.loads(dict(parse_qsl(click_body("docbot_feedback", positive if which == "good" else negative,
                                                **kwargs)))["payload"])
    body["actions"][0]["type"] = "feedback_buttons"
    return urlencode({"payload": json.dumps(body)})
