"""The Microsoft Teams adapter, on the Microsoft 365 Agents SDK (the successor of the archived
Bot Framework SDK), mounted on `docbot serve` at /api/messages.

A thin translation: an activity becomes a `ConversationService` turn keyed by the channel id (a
channel thread's conversation.id carries `;messageid=`, the channel id does not) and the
conversation id; a turn becomes a streamed reply in one-on-one chats (the SDK's streaming
response) or a sent-then-updated card in group chats and channels, with the AI-generated label,
Teams citation entities and Teams' own feedback buttons.

Teams waits about 15 seconds for the HTTP answer to an activity and then delivers it again, so a
message is acknowledged at once (202) and answered in a continued turn of its own; invokes (the
feedback form) are answered in their request, as Teams requires. Every activity stays under
MESSAGE_BUDGET (Teams refuses 100 KB with 413 MessageSizeTooBig and advises 80 KB): a longer
answer continues in further messages.
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from aiohttp import web
from microsoft_agents.activity import Activity, Attachment, Entity, InvokeResponse
from microsoft_agents.hosting.aiohttp import CloudAdapter, jwt_authorization_middleware
from microsoft_agents.hosting.core import ActivityHandler, OutboundHostValidator, TurnContext
from microsoft_agents.hosting.core.app.streaming import StreamingResponse
from microsoft_agents.hosting.core.authorization import AgentAuthConfiguration
from microsoft_agents.hosting.core.authorization.anonymous_token_provider import AnonymousTokenProvider

from bot.controls import Control, pressed, stopped_suffix
from bot.conversation import ConversationService, SessionKey, Turn
from bot.inbound import Incoming
from bot.observability import RUN_ID
from rag.messages import Text, say
from rag.resilience import RetryPolicy, transient_http

from .markup import explicit_links, html_escape, split_text
from .teams_render import CARD, CONTINUATION, ENVELOPE, MESSAGE_BUDGET, ai_entity, card, citations, fit, utf16_size

log = logging.getLogger(__name__)

# Hosts Teams' service URLs live on (public cloud, GCC, GCC High, DoD, Web Chat/Direct Line): an activity
# naming any other serviceUrl is refused with 401, so the bot's token never leaves Microsoft. Sovereign or
# national clouds set DOCBOT_TEAMS_SERVICE_URL_HOSTS. Narrower than the SDK's own default list, which
# also admits hosts anyone can rent (*.blob.core.windows.net, *.sharepoint.com).
SERVICE_URL_HOSTS = ("smba.trafficmanager.net", "smba.infra.gcc.teams.microsoft.com",
                     "smba.infra.gov.teams.microsoft.us", "smba.infra.dod.teams.microsoft.us", "botframework.com")

# Connector calls: 429, 5xx and connection errors retried with backoff and jitter (see rag.resilience).
POLICY = RetryPolicy(attempts=4)

EMAIL_TTL = 3600.0  # seconds an asker's e-mail (conversation member record) is reused


async def with_retries(policy: RetryPolicy, call: Callable[[], Awaitable[Any]], *, post: bool = False) -> Any:
    """One connector call under the retry policy. A send (`post`) that timed out is not sent again: the Bot
    Connector takes no idempotency key, so the first may have been shown."""
    return await policy.call_async(call, _transient_send if post else transient_http)


def _transient_send(exc: BaseException) -> bool:
    return transient_http(exc) and not isinstance(exc, TimeoutError)


def _error_code(exc: BaseException) -> str:
    """A failed connector call's error as a short, bounded label: `http_<status>`, `timeout`, `connection`."""
    if isinstance(exc, aiohttp.ClientResponseError):
        return f"http_{exc.status}"
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, aiohttp.ClientError):
        return "connection"
    return exc.__class__.__name__


def _platform_failure(exc: BaseException) -> bool:
    """A Bot Connector call that failed (as opposed to a bug in docbot)."""
    return getattr(exc, "_docbot_counted", False) or isinstance(exc, (aiohttp.ClientError, TimeoutError))


def _stream_kind(activity: Activity) -> str:
    """The streamType of a streaming activity ("informative", "streaming", "final"), or "" for a plain one."""
    for entity in activity.entities or []:
        data = entity.model_dump(by_alias=True)
        if data.get("type") == "streaminfo":
            return str(data.get("streamType") or "streaming")
    return ""


def _final(activity: Activity) -> bool:
    """The streamed answer's final message, however the SDK delivers it (it alone carries docbot's card)."""
    return activity.type == "message" and any(a.content_type == CARD for a in activity.attachments or [])


class _SdkErrorLines(logging.Filter):
    """The SDK logs a failed connector request itself ("Error accessing '<url>': 500", "Exception during
    StreamingResponse send_activity: ..."); docbot logs each failed call in one line of its own (method and
    error) and counts it, so those repeats are dropped."""

    PREFIXES = ("Error accessing '", "Bad request for '", "Exception during StreamingResponse send_activity",
                "Error occurred when draining the streaming activity queue")

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.startswith(self.PREFIXES))


for _name in ("microsoft_agents.hosting.core.connector.client.connector_client",
              "microsoft_agents.hosting.core.app.streaming.streaming_response"):
    logging.getLogger(_name).addFilter(_SdkErrorLines())


class _Stream:
    """What a streamed answer has shown: the raw answer characters behind each length of escaped text queued,
    and the escaped length of the last chunk the connector took (Teams shows the latest chunk's text)."""

    def __init__(self) -> None:
        self.marks: list[tuple[int, int]] = [(0, 0)]  # (escaped characters, raw characters) queued so far
        self.delivered = 0  # escaped characters the last chunk that got through held
        self.final = False  # the final message got through

    def raw(self, answer: str) -> str:
        """The part of the answer whose escaped text the user saw."""
        return answer[:max(raw for escaped, raw in self.marks if escaped <= self.delivered)]


class _AnonymousConnections:
    """Outbound calls without a token: local development and loopback tests only (no app id set)."""

    def get_connection(self, connection_name: str):
        return AnonymousTokenProvider()

    def get_default_connection(self):
        return AnonymousTokenProvider()

    def get_token_provider(self, claims_identity, service_url: str):
        return AnonymousTokenProvider()

    def get_token_provider_from_activity(self, claims_identity, activity):
        return AnonymousTokenProvider()

    def get_default_connection_configuration(self):
        return None


class DocbotAgent(ActivityHandler):
    """Messages become turns; Adaptive Card submits become presses; Teams' feedback form is stored."""

    def __init__(self, service: ConversationService, update_every: float = 1.0, source_url_base: str | None = None,
                 policy: RetryPolicy = POLICY):
        super().__init__()
        self.service, self.update_every, self.source_url_base = service, update_every, source_url_base
        self.policy = policy
        self.adapter: CloudAdapter | None = None  # set by TeamsAdapter: answers run in continued turns
        self.running: set[asyncio.Task] = set()
        self._streams: dict[int, _Stream] = {}  # the turn context's id -> its answer's stream, while it streams
        self.read_emails = False  # in personal chats, ask who the asker is (per-document permissions)
        self._emails: dict[str, tuple[float, frozenset[str]]] = {}  # member id -> (when asked, e-mails)

    def _failed(self, exc: BaseException, method: str) -> None:
        """A connector call failed: one log line and `docbot_platform_errors_total{platform="teams", method,
        error}`, once per failure however far it travels."""
        if getattr(exc, "_docbot_counted", False):
            return
        error = _error_code(exc)
        try:
            exc._docbot_counted = True  # type: ignore[attr-defined]
        except AttributeError:  # pragma: no cover  (exceptions take attributes)
            pass
        self.service.metrics.platform_errors.labels("teams", method, error).inc()
        log.warning("teams %s failed: %s", method, error)
        log.debug("teams %s failed", method, exc_info=exc)

    def watch(self, ctx: TurnContext) -> None:
        """Every connector call of this turn under the policy's timeout (the SDK's session waits five minutes),
        each failure logged in one line and counted; a streaming chunk that fails is left out (the next chunk
        carries all the text before it) and what the stream showed is noted."""
        timeout = self.policy.timeout

        async def sends(context: TurnContext, activities: list[Activity], call_next: Callable[[], Awaitable[Any]]):
            kind = _stream_kind(activities[0]) if len(activities) == 1 else ""
            stream = self._streams.get(id(context))
            try:
                result = await asyncio.wait_for(call_next(), timeout)
            except Exception as exc:
                if kind and isinstance(exc, aiohttp.ClientResponseError) and exc.status == 403:
                    raise  # Teams' Stop (ContentStreamNotAllowed): the SDK's to handle, not a failure
                self._failed(exc, "send_activity")
                if kind in ("informative", "streaming"):
                    return []
                raise
            if stream is not None and kind == "streaming":
                stream.delivered = len(activities[0].text or "")
            elif stream is not None and (kind == "final" or _final(activities[0])):
                stream.final = True
            return result

        async def updates(context: TurnContext, activity: Activity, call_next: Callable[[], Awaitable[Any]]):
            try:
                result = await asyncio.wait_for(call_next(), timeout)
            except Exception as exc:
                self._failed(exc, "update_activity")
                raise
            stream = self._streams.get(id(context))
            if stream is not None and _final(activity):  # a stream Teams ended: the answer arrives as an update
                stream.final = True
            return result

        ctx.on_send_activities(sends)
        ctx.on_update_activity(updates)

    @staticmethod
    def key(activity: Activity) -> SessionKey:
        """Channel and thread: in a channel thread conversation.id is `<channel id>;messageid=<root>`, and
        channel-scoped sources name the channel id (channelData.channel.id); elsewhere both are the
        conversation id."""
        conversation = activity.conversation
        channel_data: dict = activity.channel_data if isinstance(activity.channel_data, dict) else {}
        tenant = conversation.tenant_id or (channel_data.get("tenant") or {}).get("id", "")
        channel = (channel_data.get("channel") or {}).get("id") or conversation.id.split(";messageid=")[0]
        return SessionKey("teams", tenant or "", channel, conversation.id)

    @staticmethod
    def user(activity: Activity) -> str:
        """The stable user id: the Entra object id where Teams gives one."""
        sender = activity.from_property
        return (sender.aad_object_id or sender.id) if sender else ""

    @staticmethod
    def personal(activity: Activity) -> bool:
        """A one-on-one chat (the only place Teams streams)."""
        return (activity.conversation.conversation_type or "personal") == "personal"

    async def on_message_activity(self, turn_context: TurnContext) -> None:  # type: ignore[override]  # SDK types it as a protocol
        """Acknowledge now; answer in a continued turn (Teams redelivers what is not answered in ~15 s)."""
        if self.adapter is None or turn_context.identity is None:  # no adapter to continue on: answer inline
            await self.answer(turn_context)
            return
        adapter, identity, activity = self.adapter, turn_context.identity, turn_context.activity
        task = asyncio.create_task(adapter.continue_conversation_with_claims(identity, activity, self.answer))
        self.running.add(task)
        task.add_done_callback(self._finished)

    async def on_message_update_activity(self, turn_context: TurnContext) -> None:  # type: ignore[override]
        """An edited message (`messageUpdate`, channelData.eventType `editMessage`; it carries the whole revised
        message under the original's id): the core answers it if the original was not answered."""
        channel_data = turn_context.activity.channel_data
        if isinstance(channel_data, dict) and channel_data.get("eventType") == "editMessage":
            await self.on_message_activity(turn_context)

    def _finished(self, task: asyncio.Task) -> None:
        self.running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a Teams answer failed outside its turn", exc_info=task.exception())

    async def answer(self, ctx: TurnContext) -> None:
        """One message: a card press, or a message the core decides about (each activity id once)."""
        activity = ctx.activity
        self.watch(ctx)
        if isinstance(activity.value, dict) and "docbot" in activity.value:
            await self._on_card(ctx, activity.value)
            return
        received = await self.service.receive(self.incoming(ctx))
        if received.turn is not None:
            await self.render(ctx, received.turn)
        elif received.note:
            await self._send(ctx, html_escape(received.note))

    def incoming(self, ctx: TurnContext) -> Incoming:
        """An activity as the core's facts. Teams names who is mentioned in `mention` entities; a group chat or
        channel is one running conversation, so every message there is said in it."""
        activity = ctx.activity
        recipient = activity.recipient.id if activity.recipient else ""
        mentioned = {m.mentioned.id for m in activity.get_mentions() if m.mentioned is not None}
        sender, edit = activity.from_property, activity.type == "messageUpdate"
        text = ctx.remove_recipient_mention(activity) or activity.text or ""
        return Incoming(  # an edit keeps the original's id
            self.key(activity), text, self.user(activity), delivery_id=activity.id or "", message_id=activity.id or "",
            edit_of=(activity.id or "") if edit else "",
            mentioned=recipient in mentioned, direct=self.personal(activity),
            mentions_others=bool(mentioned - {recipient, ""}), reply=not self.personal(activity),
            from_app=bool(sender and (sender.role == "bot" or (sender.id or "").startswith("28:"))),  # 28: bot ids
            identities=(lambda: self._identities(ctx)) if self.read_emails and self.personal(activity) else None)

    async def _identities(self, ctx: TurnContext) -> frozenset[str]:
        """The asker's e-mail and user principal name, from the conversation's member record (the Bot
        Connector's `GET /v3/conversations/{id}/members/{member}`; Teams fills `email` and
        `userPrincipalName`), cached for an hour: what restricted documents are matched against."""
        from microsoft_agents.hosting.core.connector import ConnectorClientBase

        activity = ctx.activity
        member_id = activity.from_property.id if activity.from_property else ""
        cached = self._emails.get(member_id)
        if cached is not None and time.monotonic() - cached[0] < EMAIL_TTL:
            return cached[1]
        client: Any = ctx.services.get(ConnectorClientBase)  # the key the SDK stores its connector client under
        if client is None:
            return frozenset()
        member = await client.conversations.get_conversation_member(activity.conversation.id, member_id)
        extra = member.model_extra or {}
        found = frozenset(str(v).lower() for v in (extra.get("email"), extra.get("userPrincipalName"))
                          if v and "@" in str(v))
        if len(self._emails) > 10_000:
            self._emails.clear()
        self._emails[member_id] = (time.monotonic(), found)
        return found

    async def on_invoke_activity(self, turn_context: TurnContext) -> InvokeResponse | None:  # type: ignore[override]
        """Teams' own feedback form (`message/submitAction`) is stored like the card's buttons; other
        invokes go to the SDK (501 for what docbot does not offer)."""
        activity = turn_context.activity
        if activity.name == "message/submitAction":
            await self._on_native_feedback(turn_context)
            return InvokeResponse(status=200, body={})
        return await super().on_invoke_activity(turn_context)

    async def _on_native_feedback(self, ctx: TurnContext) -> None:
        value: dict = ctx.activity.value if isinstance(ctx.activity.value, dict) else {}
        action: dict = value["actionValue"] if isinstance(value.get("actionValue"), dict) else {}
        answer = await self.service.answer_shown_as("teams", ctx.activity.reply_to_id or "")
        if value.get("actionName") != "feedback" or answer is None:
            return
        comment = action.get("feedback") or ""
        try:  # the form's text arrives as a JSON string: {"feedbackText": "..."}
            comment = json.loads(comment).get("feedbackText", comment) if comment.startswith("{") else comment
        except (ValueError, AttributeError):
            pass
        control = Control.HELPFUL if action.get("reaction") == "like" else Control.NOT_HELPFUL
        await self.service.press(self.key(ctx.activity), control, str(answer), self.user(ctx.activity),
                                 comment=str(comment))

    async def render(self, ctx: TurnContext, turn: Turn) -> None:
        """Streaming in one-on-one chats, send-then-update elsewhere. Whatever the connector does, what is stored
        is what Teams showed: an answer that could not be shown at all becomes an apology (stored `failed`
        with it as its text, or empty when even that could not be sent), one cut off midway is stored `partial`
        with the part shown."""
        pieces = turn.stream()
        try:
            if self.personal(ctx.activity):
                await self._stream(ctx, turn, pieces)
            else:
                await self._send_then_update(ctx, turn, pieces)
        except Exception:  # a bug (connector failures are handled where they happen): finish so it is stored
            log.exception("sending the answer of run %s to Teams conversation %s failed", turn.run_id,
                          ctx.activity.conversation.id)
            async for _ in pieces:
                pass

    async def _stream(self, ctx: TurnContext, turn: Turn, pieces) -> None:
        """The SDK's streaming response; text past the message budget continues in further messages."""
        stream = StreamingResponse(ctx)
        shown = self._streams[id(ctx)] = _Stream()
        try:
            stream.queue_informative_update(say(Text.SEARCHING, turn.prepared.question))
            # Characters of (escaped) text the message may hold: UTF-16 takes two bytes each, and the card,
            # citations and envelope need the rest.
            room = (MESSAGE_BUDGET - 2 * ENVELOPE) // 2
            streamed = queued = 0  # raw characters streamed; escaped characters they became
            async for piece in pieces:
                escaped = html_escape(explicit_links(piece))
                if queued + len(escaped) <= room:
                    stream.queue_text_chunk(escaped)
                    streamed, queued = streamed + len(piece), queued + len(escaped)
                    shown.marks.append((queued, streamed))
                else:
                    room = queued  # once over, nothing more streams: the rest follows as messages
                # Teams' own Stop button surfaces only as this flag on the SDK's stream (set when the
                # client refuses further chunks); it has no public accessor in 1.9 (the lock pins it).
                if getattr(stream, "_user_cancelled", False):
                    turn.cancelled.set()  # the asker's own client stopped it
            stream.set_citations(citations(turn, self.source_url_base))
            stream.set_generated_by_ai_label(True)  # also what attaches the citation entities to the final message
            stream.set_feedback_loop(True)
            # The message text is the answer; the card adds the query line, sources and buttons, not the text again.
            stream.set_attachments([Attachment(content_type=CARD, content=card(turn, None, running=False))])
            try:
                await stream.end_stream()
            except Exception as exc:  # the final message failed (counted and logged where it was sent)
                if not _platform_failure(exc):
                    raise
            if not shown.final and not getattr(stream, "_user_cancelled", False):
                await self._cut(ctx, turn, shown.raw(turn.text))
                return
        finally:
            self._streams.pop(id(ctx), None)
        await self.service.shown_as(turn, getattr(stream, "_stream_id", None) or "")
        await self._continue(ctx, turn, turn.text, turn.text[streamed:])

    async def _send_then_update(self, ctx: TurnContext, turn: Turn, pieces) -> None:
        """A card (no separate text: the answer is shown once) updated as the answer grows."""
        placeholder = Activity(type="message", attachments=[Attachment(content_type=CARD,
                                                                       content=card(turn, "", running=True))])
        try:
            sent = await self._send(ctx, placeholder)
        except Exception as exc:  # nothing of the answer can be shown: an apology instead, stored as such
            if not _platform_failure(exc):
                raise
            await pieces.aclose()
            await turn.fail(f"teams: {_error_code(exc)}", shown=await self._sorry(ctx, turn))
            return
        shown, last = "", time.monotonic()  # the answer text the card shows
        async for _ in pieces:
            if time.monotonic() - last >= self.update_every:
                try:
                    rest = await self._update(ctx, sent.id, turn, turn.text, running=True)
                    shown = _shown(turn.text, turn.text, rest)
                except Exception as exc:  # a progress update: the next one (or the final one) shows the text
                    if not _platform_failure(exc):
                        raise
                last = time.monotonic()
        text = turn.text + stopped_suffix(turn)
        try:
            rest = await self._update(ctx, sent.id, turn, text, running=False)
        except Exception as exc:
            if not _platform_failure(exc):
                raise
            await self._cut(ctx, turn, shown)
            return
        await self.service.shown_as(turn, sent.id)
        await self._continue(ctx, turn, text, rest)

    async def _update(self, ctx: TurnContext, activity_id: str, turn: Turn, text: str, running: bool) -> str:
        """Update the card with as much of the text as fits the budget; returns what did not fit."""
        def build(shown: str) -> Activity:
            update = Activity(type="message", id=activity_id,
                              attachments=[Attachment(content_type=CARD, content=card(turn, shown, running))])
            if not running:  # the AI label, citations and Teams' feedback buttons on the finished answer
                update.entities = [Entity.model_validate(ai_entity(turn, self.source_url_base))]
                update.channel_data = {"feedbackLoop": {"type": "default"}}
            return update

        # The SDK adds the envelope (ids, serviceUrl, conversation, from, recipient) when it sends.
        empty = utf16_size(build("").model_dump(mode="json", by_alias=True, exclude_none=True)) + ENVELOPE
        shown, rest = fit(text, MESSAGE_BUDGET - empty)
        if rest:
            shown += "\n\n" + say(Text.CONTINUED, turn.prepared.question)
        update = build(shown)
        await with_retries(self.policy, lambda: ctx.update_activity(update))
        return rest

    async def _continue(self, ctx: TurnContext, turn: Turn, full: str, rest: str) -> None:
        """The part of a long answer (`full`) that did not fit its message (`rest`), in plain messages within the
        budget; if one cannot be sent, the answer is stored as far as it was shown."""
        # Escaping can make a character five (`&amp;`): pieces of CONTINUATION characters stay in budget.
        for piece in split_text(rest, CONTINUATION):
            try:
                await self._send(ctx, Activity(type="message", text=html_escape(explicit_links(piece))))
            except Exception as exc:
                if not _platform_failure(exc):
                    raise
                await self._cut(ctx, turn, _shown(turn.text, full, rest))
                return
            rest = rest[len(piece):].lstrip("\n")

    async def _cut(self, ctx: TurnContext, turn: Turn, shown: str) -> None:
        """The answer broke off in Teams: stored `partial` with the part the user saw, or, when none of it was
        shown, as the apology sent instead (`failed`; empty when even that could not be sent)."""
        if shown.strip():
            await self.service.shown(turn, shown, "partial")
        else:
            await self.service.shown(turn, await self._sorry(ctx, turn), "failed")

    async def _sorry(self, ctx: TurnContext, turn: Turn) -> str:
        """Send a short apology; returns it, or "" when the connector would not take it either."""
        apology = say(Text.ERROR, turn.prepared.question)
        try:
            await self._send(ctx, html_escape(apology))
        except Exception as exc:
            if not _platform_failure(exc):
                raise
            log.info("could not send an apology to Teams conversation %s either", ctx.activity.conversation.id)
            return ""
        return apology

    async def _send(self, ctx: TurnContext, activity: Activity | str) -> Any:
        """Send one activity under the retry policy (a timed-out send is not repeated)."""
        return await with_retries(self.policy, lambda: ctx.send_activity(activity), post=True)

    async def _on_card(self, ctx: TurnContext, data: dict) -> None:
        """A card button: the core decides; the conversation is the one the card was submitted from."""
        parsed = pressed(str(data.get("docbot")), data)
        if parsed is None:
            return
        result = await self.service.press(self.key(ctx.activity), *parsed, self.user(ctx.activity),
                                          delivery_id=ctx.activity.id)
        if result.turn is not None:
            await self.render(ctx, result.turn)
        elif result.note and result.public and ctx.activity.reply_to_id:  # the result replaces the buttons
            done = Activity(type="message", id=ctx.activity.reply_to_id, text=html_escape(result.note))
            await with_retries(self.policy, lambda: ctx.update_activity(done))
        elif result.note and (self.personal(ctx.activity) or not result.courtesy):  # no message for one in a group
            await self._send(ctx, html_escape(result.note))


async def on_turn_error(context: TurnContext, error: Exception) -> None:
    """Log with the conversation, activity and run ids; the user gets a short apology in their language,
    never the exception's text (the SDK's default handler shows it). A failed connector call was already
    logged in its one line and counted: no traceback for it."""
    activity = context.activity
    log.error("Teams turn failed in conversation %s (activity %s, run %s)%s", activity.conversation.id
              if activity.conversation else "?", activity.id, RUN_ID.get() or "-",
              f": teams {_error_code(error)}" if _platform_failure(error) else "",
              exc_info=None if _platform_failure(error) else error)
    try:
        await context.send_activity(html_escape(say(Text.ERROR, activity.text or "")))
    except Exception:  # the connector itself may be what failed; the log already has the story
        log.warning("could not send the apology to Teams conversation %s", activity.conversation.id
                    if activity.conversation else "?")


def _shown(answer: str, full: str, rest: str) -> str:
    """The part of `answer` shown when `full` (the answer, perhaps with a note after it) was shown up to `rest`."""
    return answer[:max(0, min(len(answer), len(full) - len(rest)))]


class TeamsAdapter:
    """The /api/messages endpoint: JWT-validated with an app id (token issuers checked, and the activity's
    serviceUrl on a Microsoft host and the token's `serviceurl` claim), anonymous (local only) without one."""

    def __init__(self, service: ConversationService, *, app_id: str | None = None, app_password: str | None = None,
                 tenant_id: str | None = None, update_every: float = 1.0, source_url_base: str | None = None,
                 policy: RetryPolicy = POLICY, service_url_hosts: tuple[str, ...] | None = None,
                 host_validator: OutboundHostValidator | None = None, read_emails: bool = False):
        self.agent = DocbotAgent(service, update_every, source_url_base, policy)
        self.agent.read_emails = read_emails  # personal chats: the asker's e-mail, for per-document permissions
        connections: Any
        if app_id:
            from microsoft_agents.authentication.msal import MsalConnectionManager
            from microsoft_agents.hosting.core.authorization import AuthTypes

            # validate_issuer: the SDK checks a token's issuer against the Bot Framework / Entra issuers
            # only when asked to.
            config = AgentAuthConfiguration(auth_type=AuthTypes.client_secret, client_id=app_id,
                                            client_secret=app_password, tenant_id=tenant_id, validate_issuer=True)
            connections = MsalConnectionManager(connections_configurations={"SERVICE_CONNECTION": config})
        else:
            config = AgentAuthConfiguration(anonymous_allowed=True)
            connections = _AnonymousConnections()
        self.auth_config = config
        if host_validator is None and app_id:  # anonymous (local) turns carry no token to leak
            host_validator = OutboundHostValidator(list(service_url_hosts or SERVICE_URL_HOSTS), enabled=True,
                                                   include_default_microsoft_hosts=False)
        self.host_validator = host_validator
        self.adapter = CloudAdapter(connection_manager=connections, host_validator=host_validator)
        self.adapter.on_turn_error = on_turn_error
        self.agent.adapter = self.adapter

    def mount(self, web_app: web.Application, prefix: str = "/api") -> None:
        """A sub-application so the SDK's JWT middleware guards only the bot endpoint."""
        sub = web.Application(middlewares=[_unauthorized_on_error, jwt_authorization_middleware])
        sub["agent_configuration"] = self.auth_config  # the key the SDK's middleware reads
        sub.router.add_post("/messages", self.handle)
        web_app.add_subapp(prefix, sub)
        web_app.on_shutdown.append(self._drain)

    async def handle(self, request: web.Request) -> web.Response:
        """Hand the activity to the SDK with docbot's agent; a body that is not one JSON object is a 400."""
        try:
            body = await request.json()
        except (ValueError, RecursionError):
            body = None
        if not isinstance(body, dict):
            return web.json_response({"error": "the body must be one activity (a JSON object)"}, status=400)
        response = await self.adapter.process(request, self.agent)
        return response if response is not None else web.Response(status=202)

    async def _drain(self, _app: web.Application, timeout: float = 5.0) -> None:
        """On shutdown, give answers still being written a moment to be stopped and stored."""
        if self.agent.running:
            await asyncio.wait(list(self.agent.running), timeout=timeout)


@web.middleware
async def _unauthorized_on_error(request: web.Request, handler):
    """A token that cannot be validated (even when the key download fails) is a 401, not a 500."""
    if "Authorization" not in request.headers:
        return await handler(request)
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except Exception as exc:
        if request.get("claims_identity") is not None:
            raise  # authenticated; the failure is ours, not the caller's
        log.warning("rejecting a Teams request whose token could not be validated: %s", exc.__class__.__name__)
        return web.json_response({"error": "Invalid token or authentication failed."}, status=401)
