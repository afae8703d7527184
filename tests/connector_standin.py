"""A local Bot Framework connector for tests, as strict as the documented service: it records replies,
sends, updates and streaming activities the real Microsoft 365 Agents SDK client posts to a loopback
serviceUrl, and refuses what Teams refuses.

Enforced (learn.microsoft.com/microsoftteams/platform/bots/how-to/format-your-bot-messages and
.../bots/streaming-ux):
- an activity over 100 KB (its JSON as UTF-16) is a 413 `MessageSizeTooBig`;
- with `token` set, every call must carry `Authorization: Bearer <token>` (401 otherwise), as the
  Bot Connector requires the bot's Entra token;
- an update (PUT) must name an activity this connector issued in that same conversation (404
  otherwise: an activity id means nothing in another conversation);
- streaming only in one-on-one chats, one stream per conversation at a time, sequence numbers that
  increase, each chunk containing all text streamed before it, an informative update of at most
  1,000 characters, and a `final` message ending the stream (nothing may follow it in that stream)
  whose text is the full streamed content (403 "Request streamed content should contain the
  previously streamed content" otherwise); at most one streaming request per second per stream
  (429 "API calls quota exceeded"); a stream must end within two minutes of its start (403
  `ContentStreamNotAllowed` "Content stream finished due to exceeded streaming time.");
- citation entities shaped as Teams reads them (`Claim` with a unique position, a `DigitalDocument`
  appearance with a name of at most 80 characters, at most three keywords of 28), abstracts at most
  CITATION_ABSTRACT characters, at most 20 citations in a message
  (learn.microsoft.com/microsoftteams/platform/bots/how-to/bot-messages-ai-generated-content);
- Adaptive Cards of type `AdaptiveCard`, version 1.0-1.5 (what Teams renders for bots), built of
  element and action types the schema has.

`deliver()` plays the Teams service's side of an incoming activity: it waits PATIENCE seconds for
the bot's HTTP answer and, if none comes, delivers the same activity again.
"""
from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web
from aiohttp.test_utils import TestServer

SIZE_LIMIT = 100 * 1024  # bytes of the activity's JSON encoded as UTF-16
INFORMATIVE_LIMIT = 1000
CITATION_ABSTRACT = 160  # the strictest figure seen for an abstract; the SDK itself clips at 480
CITATION_NAME, CITATIONS, KEYWORDS, KEYWORD = 80, 20, 3, 28
STREAM_SECONDS = 120.0  # Teams ends a stream that has not finished within two minutes
STREAM_INTERVAL = 1.0  # seconds between streaming requests of one stream
CARD_VERSIONS = {"1.0", "1.1", "1.2", "1.3", "1.4", "1.5"}
CARD_ELEMENTS = {"TextBlock", "Image", "Media", "RichTextBlock", "TextRun", "Container", "ColumnSet", "Column",
                 "FactSet", "ImageSet", "ActionSet", "Table", "TableRow", "TableCell", "Input.Text", "Input.Number",
                 "Input.Date", "Input.Time", "Input.Toggle", "Input.ChoiceSet"}
CARD_ACTIONS = {"Action.OpenUrl", "Action.Submit", "Action.ShowCard", "Action.ToggleVisibility", "Action.Execute"}
PATIENCE = 15.0  # seconds Teams waits for a bot's HTTP answer before it redelivers


def _error(status: int, code: str, message: str = "") -> web.Response:
    return web.json_response({"error": {"code": code, "message": message or code}}, status=status)


@dataclass
class ConnectorStandIn:
    calls: list[dict] = field(default_factory=list)  # {"kind", "conversation", "activity_id", "body"}
    fail: list = field(default_factory=list)  # statuses (or (status, code)) to answer with before succeeding
    stream_refusal_after: int | None = None  # refuse streaming chunks after this many replies (Teams' Stop)
    hooks: list[dict] = field(default_factory=list)
    members: dict = field(default_factory=dict)  # member id -> its TeamsChannelAccount (GetConversationMember)
    refused: list[dict] = field(default_factory=list)  # {"status", "code", "body"} of every refused call
    server: TestServer | None = None
    token: str | None = None  # the bot token every call must carry, when a test runs with credentials
    clock: Callable[[], float] = time.monotonic  # stream pacing and the two-minute limit are measured with it
    # An outage: `outage(kind, body)` names the HTTP status to answer a call with (the connector failing, as
    # the Bot Connector does with 500/502/503), or None; `hang(kind, body)` holds a call `hang_seconds`
    # and then answers 504 without doing it (the client has timed out long before).
    outage: Callable[[str, dict], int | None] | None = None
    hang: Callable[[str, dict], bool] | None = None
    hang_seconds: float = 3.0
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))
    _issued: dict = field(default_factory=dict)  # activity id -> the conversation it was issued in
    _streams: dict = field(default_factory=dict)  # conversation -> {"id", "sequence", "text"} of the open stream

    @property
    def service_url(self) -> str:
        return str(self.server.make_url("/"))

    async def start(self) -> "ConnectorStandIn":
        app = web.Application(client_max_size=4 * 1024 * 1024)
        app.router.add_route("*", "/v3/conversations/{conversation}/activities{rest:.*}", self._activities)
        app.router.add_get("/v3/conversations/{conversation}/members/{member}", self._member)
        app.router.add_post("/hook", self._hook)
        self.server = TestServer(app, host="127.0.0.1")
        await self.server.start_server()
        return self

    async def close(self) -> None:
        await self.server.close()

    async def _member(self, request: web.Request) -> web.Response:
        """A conversation member as Teams answers it (Bot Connector `GetConversationMember`: a
        TeamsChannelAccount with `email` and `userPrincipalName`); 404 for someone not in it."""
        refusal = self._authorized(request)
        if refusal is not None:
            return refusal
        member = self.members.get(request.match_info["member"])
        if member is None:
            return _error(404, "MemberNotFoundInConversation", "The member is not part of the conversation.")
        self.calls.append({"kind": "member", "conversation": request.match_info["conversation"],
                           "activity_id": "", "body": member})
        return web.json_response(member)

    def of(self, kind: str) -> list[dict]:
        return [c["body"] for c in self.calls if c["kind"] == kind]

    async def _hook(self, request: web.Request) -> web.Response:
        self.hooks.append(await request.json())
        return web.json_response({"ok": True})

    async def _activities(self, request: web.Request) -> web.Response:
        rest = request.match_info["rest"].strip("/")
        kind = {"POST": "reply" if rest else "send", "PUT": "update"}.get(request.method, request.method)
        body = await request.json() if request.can_read_body else None
        conversation = request.match_info["conversation"]
        if self.hang is not None and self.hang(kind, body):
            await asyncio.sleep(self.hang_seconds)
            self.refused.append({"status": 504, "code": "GatewayTimeout", "body": body})
            return _error(504, "GatewayTimeout", "the connector did not answer in time")
        status = self.outage(kind, body) if self.outage is not None else None
        if status is not None:
            self.refused.append({"status": status, "code": "ServiceError", "body": body})
            return _error(status, "ServiceError", "the connector failed")
        refusal = self._authorized(request) or self._check(kind, rest, conversation, body)
        if refusal is not None:
            payload = json.loads(refusal.text)
            self.refused.append({"status": refusal.status, "code": payload["error"]["code"], "body": body})
            return refusal
        self.calls.append({"kind": kind, "conversation": conversation, "activity_id": rest, "body": body})
        if self.stream_refusal_after is not None and kind == "reply" and \
                len(self.of("reply")) > self.stream_refusal_after:
            return _error(403, "ContentStreamNotAllowed", "ContentStreamNotAllowed: the user stopped")
        if self.fail:
            status = self.fail.pop(0)
            return web.json_response({"error": {"code": "Throttled"}}, status=status, headers={"Retry-After": "0"})
        if kind == "update":
            return web.json_response({"id": rest})
        issued = self._stream_id(conversation, body) or f"activity-{next(self._ids)}"
        self._issued[issued] = conversation
        return web.json_response({"id": issued})

    def _authorized(self, request: web.Request) -> web.Response | None:
        if self.token is not None and request.headers.get("Authorization") != f"Bearer {self.token}":
            return _error(401, "Unauthorized", "Authorization has been denied for this request.")
        return None

    def _check(self, kind: str, rest: str, conversation: str, body) -> web.Response | None:
        """The refusal Teams would give this call, or None."""
        if isinstance(body, dict):
            size = len(json.dumps(body, ensure_ascii=False).encode("utf-16-le"))
            if size > SIZE_LIMIT:
                return _error(413, "MessageSizeTooBig", f"activity is {size} bytes as UTF-16 (limit {SIZE_LIMIT})")
            citation = _bad_citation(body) or _bad_card(body)
            if citation:
                return _error(400, "BadArgument", citation)
        if kind == "update" and self._issued.get(rest) != conversation:
            return _error(404, "NotFound", f"no activity {rest} in this conversation")
        if kind in ("reply", "send") and isinstance(body, dict):
            return self._check_stream(conversation, body)
        return None

    def _check_stream(self, conversation: str, body: dict) -> web.Response | None:
        info = next((e for e in body.get("entities") or [] if e.get("type") == "streaminfo"), None)
        if info is None:
            return None
        if (body.get("conversation") or {}).get("conversationType", "personal") != "personal":
            return _error(403, "ContentStreamNotAllowed", "streaming is only supported in one-on-one chats")
        open_stream = self._streams.get(conversation)
        stream_id, kind = info.get("streamId"), info.get("streamType", "streaming")
        if stream_id is None:  # a new stream
            if open_stream is not None:
                return _error(403, "ContentStreamNotAllowed", "another stream is open in this chat")
            if kind == "final":
                return _error(400, "BadArgument", "a final message without a stream")
        elif open_stream is None or open_stream["id"] != stream_id:
            return _error(403, "ContentStreamNotAllowed", f"stream {stream_id} is not open")
        text = body.get("text") or ""
        now = self.clock()
        if open_stream is not None and now - open_stream["started"] > STREAM_SECONDS:
            return _error(403, "ContentStreamNotAllowed", "Content stream finished due to exceeded streaming time.")
        if kind == "informative" and len(text) > INFORMATIVE_LIMIT:
            return _error(400, "BadArgument", "an informative update is limited to 1000 characters")
        if open_stream is not None:
            if kind == "final" and not text.startswith(open_stream["text"]):
                return _error(403, "ContentStreamNotAllowed",
                              "Request streamed content should contain the previously streamed content")
            if kind != "final" and info.get("streamSequence", 0) <= open_stream["sequence"]:
                return _error(400, "BadArgument", "stream sequence numbers must increase")
            if kind == "streaming" and not text.startswith(open_stream["text"]):
                return _error(400, "BadArgument", "a streamed chunk must contain everything streamed before it")
            if now - open_stream["last"] < STREAM_INTERVAL - 0.01:  # a scheduler's rounding is not a burst
                return _error(429, "Throttled", "API calls quota exceeded")
            open_stream["last"] = now
        return None

    def _stream_id(self, conversation: str, body) -> str | None:
        """Track the conversation's open stream; the id a streaming activity gets is its stream's id."""
        if not isinstance(body, dict):
            return None
        info = next((e for e in body.get("entities") or [] if e.get("type") == "streaminfo"), None)
        if info is None:
            return None
        kind = info.get("streamType", "streaming")
        if kind == "final":
            self._streams.pop(conversation, None)
            return info.get("streamId")
        stream = self._streams.get(conversation)
        if stream is None:
            now = self.clock()
            stream = self._streams[conversation] = {"id": f"activity-{next(self._ids)}", "sequence": 0, "text": "",
                                                    "started": now, "last": now}
        stream["sequence"] = info.get("streamSequence", stream["sequence"] + 1)
        if kind == "streaming":
            stream["text"] = body.get("text") or ""
        return stream["id"]


def _bad_citation(body: dict) -> str:
    """Why a message's citation entity is not one Teams reads, or ""."""
    for entity in body.get("entities") or []:
        claims = entity.get("citation") or []
        if len(claims) > CITATIONS:
            return f"Bot message with more than {CITATIONS} citations"
        positions = [claim.get("position") for claim in claims]
        if len(set(positions)) != len(positions):
            return "a citation's position must be unique in a message"
        for claim in claims:
            appearance = claim.get("appearance") or {}
            if claim.get("@type") != "Claim" or not isinstance(claim.get("position"), int):
                return "a citation must be a Claim with a position"
            if appearance.get("@type") != "DigitalDocument" or not appearance.get("name"):
                return "a citation's appearance must be a named DigitalDocument"
            if len(appearance["name"]) > CITATION_NAME:
                return f"a citation's name is limited to {CITATION_NAME} characters"
            if len(appearance.get("abstract") or "") > CITATION_ABSTRACT:
                return f"a citation abstract is limited to {CITATION_ABSTRACT} characters"
            keywords = appearance.get("keywords") or []
            if len(keywords) > KEYWORDS or any(len(k) > KEYWORD for k in keywords):
                return f"at most {KEYWORDS} keywords of {KEYWORD} characters"
    return ""


def _bad_card(body: dict) -> str:
    """Why an attached Adaptive Card is not one Teams renders, or ""."""
    for attachment in body.get("attachments") or []:
        if attachment.get("contentType") != "application/vnd.microsoft.card.adaptive":
            continue
        card = attachment.get("content") or {}
        if card.get("type") != "AdaptiveCard" or card.get("version") not in CARD_VERSIONS:
            return "an Adaptive Card needs type AdaptiveCard and a version Teams supports (1.0-1.5)"
        bad = _bad_elements(card.get("body") or []) or _bad_actions(card.get("actions") or [])
        if bad:
            return bad
    return ""


def _bad_elements(elements: list) -> str:
    for element in elements:
        kind = element.get("type")
        if kind not in CARD_ELEMENTS:
            return f"unknown Adaptive Card element {kind!r}"
        nested = [*(element.get("items") or []), *(element.get("columns") or []), *(element.get("inlines") or [])]
        bad = _bad_elements([e for e in nested if isinstance(e, dict)]) or _bad_actions(element.get("actions") or [])
        if bad:
            return bad
    return ""


def _bad_actions(actions: list) -> str:
    for action in actions:
        if action.get("type") not in CARD_ACTIONS:
            return f"unknown Adaptive Card action {action.get('type')!r}"
    return ""


async def deliver(client, activity: dict, patience: float = PATIENCE) -> list[int]:
    """Post an activity the way the Teams service does: wait `patience` seconds for the bot's answer,
    then give up and deliver the same activity again (once). Returns the statuses it saw (0: gave up)."""
    statuses = []
    for _ in range(2):
        try:
            response = await asyncio.wait_for(client.post("/api/messages", json=activity), patience)
            statuses.append(response.status)
            return statuses
        except TimeoutError:
            statuses.append(0)
    return statuses


def message(text: str, service_url: str, *, conversation: str = "a:personal-1", kind: str = "personal",
            user: str = "u1", aad: str = "aad-1", value: dict | None = None, reply_to: str | None = None,
            activity_id: str = "m1", channel: str | None = None, mention: bool | None = None) -> dict:
    """An incoming message activity shaped as Teams sends one (channelData with the tenant, and for channel
    messages the team and channel; conversation.id of a channel thread ends in `;messageid=`). In group chats
    and channels Teams delivers a bot only the messages that @mention it (learn.microsoft.com/microsoftteams/
    platform/concepts/bots/bot-conversations/bots-conv-channel; all messages only with RSC permissions), so
    a typed message there mentions docbot unless `mention=False` says otherwise."""
    if mention is None:
        mention = kind != "personal" and value is None
    activity = {"type": "message", "id": activity_id, "text": text, "channelId": "msteams", "serviceUrl": service_url,
                "from": {"id": user, "name": "Kim", "aadObjectId": aad},
                "recipient": {"id": "28:docbot", "name": "docbot"},
                "conversation": {"id": conversation, "conversationType": kind, "tenantId": "tenant-1"},
                "channelData": {"tenant": {"id": "tenant-1"}}}
    if mention:  # as Teams sends an @mention: the tag in the text and a mention entity naming the bot
        activity["text"] = f"<at>docbot</at> {text}"
        activity["entities"] = [{"type": "mention", "text": "<at>docbot</at>",
                                 "mentioned": {"id": "28:docbot", "name": "docbot"}}]
    if kind == "channel":
        channel_id = channel or conversation.split(";")[0]
        activity["channelData"].update({"team": {"id": "19:team@thread.tacv2"}, "channel": {"id": channel_id}})
        activity["conversation"]["isGroup"] = True
    if value is not None:
        activity["value"] = value
    if reply_to:
        activity["replyToId"] = reply_to
    return activity
