"""The Microsoft Teams adapter, on the Microsoft 365 Agents SDK (the successor of the archived
Bot Framework SDK), mounted on `docbot serve` at /api/messages.

A thin translation: an activity becomes a `ConversationService` turn keyed by
conversation.id (which includes the thread root in channel threads); a turn becomes a
streamed reply in one-on-one chats (the SDK's streaming response) or a sent-then-updated
message in group chats and channels, finished with an Adaptive Card (rewritten query small,
answer, sources, buttons) and Teams citation entities.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from microsoft_agents.activity import Activity, Attachment
from microsoft_agents.hosting.aiohttp import CloudAdapter, jwt_authorization_middleware
from microsoft_agents.hosting.core import ActivityHandler, TurnContext
from microsoft_agents.hosting.core.app.streaming import Citation, StreamingResponse
from microsoft_agents.hosting.core.authorization import AgentAuthConfiguration
from microsoft_agents.hosting.core.authorization.anonymous_token_provider import AnonymousTokenProvider

from bot.controls import Button, Control, buttons
from bot.conversation import ConversationService, SessionKey, Turn
from rag.messages import Text, say
from rag.resilience import RetryPolicy, transient_http

from .markup import explicit_links, html_escape, url_path

log = logging.getLogger(__name__)

CARD = "application/vnd.microsoft.card.adaptive"


# Connector calls: 429, 5xx and connection errors retried with backoff and jitter (see rag.resilience).
POLICY = RetryPolicy(attempts=4)


async def with_retries(policy: RetryPolicy, call: Callable[[], Awaitable[Any]]) -> Any:
    """One connector call under the retry policy."""
    return await policy.call_async(call, transient_http)


def card(turn: Turn, text: str, running: bool) -> dict:
    """The answer card: rewritten query (small), answer, sources, and the buttons that fit its state."""
    body: list[dict] = []
    if turn.prepared.searched:
        body.append({"type": "TextBlock", "text": f"🔎 {explicit_links(turn.rewritten)}", "size": "Small",
                     "isSubtle": True, "wrap": True})
    # TextBlocks render Markdown links (not HTML): a document's link shows its target.
    body.append({"type": "TextBlock", "text": explicit_links(text) or "…", "wrap": True})
    if turn.sources and not running:
        lines = [f"[{s.n}] {s.label} ({s.path})" for s in turn.sources]
        body.append({"type": "TextBlock", "text": "\n\n".join(lines), "size": "Small", "isSubtle": True,
                     "wrap": True, "separator": True})
    return {"type": "AdaptiveCard", "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "version": "1.5", "body": body, "actions": [_submit(b) for b in buttons(turn, running)]}


_STYLES = {"primary": "positive", "danger": "destructive"}


def _submit(button: Button) -> dict:
    """A core button as an Action.Submit: `docbot` names the control, `target` what it acts on."""
    action = {"type": "Action.Submit", "title": button.label, "data": {"docbot": button.control,
                                                                      "target": button.target}}
    if button.style in _STYLES:
        action["style"] = _STYLES[button.style]
    return action


def pressed_control(data: dict) -> tuple[Control, str] | None:
    """The control and target of a card submit; cards sent before targets existed used other keys."""
    kind = str(data.get("docbot"))
    if kind == "feedback":  # legacy: one kind with a helpful flag
        kind = Control.HELPFUL if data.get("helpful") else Control.NOT_HELPFUL
    try:
        control = Control(kind)
    except ValueError:
        return None
    target = data.get("target", next((data[k] for k in ("run", "action", "message") if k in data), ""))
    return control, str(target)


def citations(turn: Turn, url_base: str | None = None) -> list[Citation]:
    """Teams citation entities for the numbered sources ([n] in the answer refers to the n-th)."""
    out = []
    for s in turn.numbered_sources:  # positions must match the [n] numbers, cited or not
        hit = next((h for h in turn.prepared.hits if h.chunk.path == s.path), None)
        url = f"{url_base.rstrip('/')}/{url_path(s.path)}" if url_base else None
        out.append(Citation(content=(hit.chunk.text if hit else s.title)[:500], title=s.title,
                            url=url, filepath=s.path))
    return out


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
    """Messages become turns; Adaptive Card submits become stop / regenerate / feedback / decisions."""

    def __init__(self, service: ConversationService, update_every: float = 1.0, source_url_base: str | None = None,
                 policy: RetryPolicy = POLICY):
        super().__init__()
        self.service, self.update_every, self.source_url_base = service, update_every, source_url_base
        self.policy = policy

    @staticmethod
    def key(activity: Activity) -> SessionKey:
        """conversation.id already names the thread in channels, so it is both channel and thread."""
        conversation = activity.conversation
        channel_data: dict = activity.channel_data if isinstance(activity.channel_data, dict) else {}
        tenant = conversation.tenant_id or (channel_data.get("tenant") or {}).get("id", "")
        return SessionKey("teams", tenant or "", conversation.id, conversation.id)

    @staticmethod
    def user(activity: Activity) -> str:
        """The stable user id: the Entra object id where Teams gives one."""
        sender = activity.from_property
        return (sender.aad_object_id or sender.id) if sender else ""

    async def on_message_activity(self, turn_context: TurnContext) -> None:  # type: ignore[override]  # SDK types it as a protocol
        activity = turn_context.activity
        if isinstance(activity.value, dict) and "docbot" in activity.value:
            await self._on_card(turn_context, activity.value)
            return
        text = (turn_context.remove_recipient_mention(activity) or activity.text or "").strip()
        key = self.key(activity)
        turn = await self.service.ask(key, text, self.user(activity),
                                      delivery_id=f"teams:{activity.id}" if activity.id else None)
        if turn is not None:  # None: a redelivered activity, already answered
            await self.render(turn_context, turn)

    async def render(self, ctx: TurnContext, turn: Turn) -> None:
        """Streaming in one-on-one chats, send-then-update elsewhere; the stored answer is final regardless."""
        pieces = turn.stream()
        try:
            if (ctx.activity.conversation.conversation_type or "personal") == "personal":
                await self._stream(ctx, turn, pieces)
            else:
                await self._send_then_update(ctx, turn, pieces)
        except Exception:  # a send failed: log where, finish the answer so it is stored whole
            log.exception("sending the answer of run %s to Teams conversation %s failed", turn.run_id,
                          ctx.activity.conversation.id)
            async for _ in pieces:
                pass

    async def _stream(self, ctx: TurnContext, turn: Turn, pieces) -> None:
        stream = StreamingResponse(ctx)
        stream.queue_informative_update(say(Text.SEARCHING, turn.prepared.question))
        async for piece in pieces:
            stream.queue_text_chunk(html_escape(explicit_links(piece)))
            # Teams' own Stop button surfaces only as this flag on the SDK's stream (set when the
            # client refuses further chunks); it has no public accessor in 1.9.
            if getattr(stream, "_user_cancelled", False):
                turn.cancelled.set()  # the asker's own client stopped it
        stream.set_citations(citations(turn, self.source_url_base))
        stream.set_generated_by_ai_label(True)  # also what attaches the citation entities to the final message
        stream.set_attachments([Attachment(content_type=CARD, content=card(turn, turn.text, running=False))])
        await stream.end_stream()

    async def _send_then_update(self, ctx: TurnContext, turn: Turn, pieces) -> None:
        placeholder = Activity(type="message", text="…",
                               attachments=[Attachment(content_type=CARD, content=card(turn, "", running=True))])
        sent = await with_retries(self.policy, lambda: ctx.send_activity(placeholder))
        last = time.monotonic()
        async for _ in pieces:
            if time.monotonic() - last >= self.update_every:
                await self._update(ctx, sent.id, turn, turn.text, running=True)
                last = time.monotonic()
        text = turn.text + (f"\n\n_{say(Text.STOPPED, turn.prepared.question)}_" if turn.status == "cancelled" else "")
        await self._update(ctx, sent.id, turn, text, running=False)

    async def _update(self, ctx: TurnContext, activity_id: str, turn: Turn, text: str, running: bool) -> None:
        update = Activity(type="message", id=activity_id, text=html_escape(explicit_links(text[:28000])),
                          attachments=[Attachment(content_type=CARD, content=card(turn, text, running))])
        await with_retries(self.policy, lambda: ctx.update_activity(update))

    async def _on_card(self, ctx: TurnContext, data: dict) -> None:
        """A card button: the core decides; the conversation is the one the card was submitted from."""
        parsed = pressed_control(data)
        if parsed is None:
            return
        activity_id = ctx.activity.id
        pressed = await self.service.press(self.key(ctx.activity), *parsed, self.user(ctx.activity),
                                           delivery_id=f"teams:{activity_id}" if activity_id else None)
        if pressed.turn is not None:
            await self.render(ctx, pressed.turn)
        elif pressed.note and pressed.public and ctx.activity.reply_to_id:  # the result replaces the buttons
            done = Activity(type="message", id=ctx.activity.reply_to_id, text=html_escape(pressed.note))
            await with_retries(self.policy, lambda: ctx.update_activity(done))
        elif pressed.note:
            await with_retries(self.policy, lambda: ctx.send_activity(html_escape(pressed.note)))


class TeamsAdapter:
    """The /api/messages endpoint: JWT-validated with an app id, anonymous (local only) without one."""

    def __init__(self, service: ConversationService, *, app_id: str | None = None, app_password: str | None = None,
                 tenant_id: str | None = None, update_every: float = 1.0, source_url_base: str | None = None,
                 policy: RetryPolicy = POLICY):
        self.agent = DocbotAgent(service, update_every, source_url_base, policy)
        connections: Any
        if app_id:
            from microsoft_agents.authentication.msal import MsalConnectionManager
            from microsoft_agents.hosting.core.authorization import AuthTypes

            config = AgentAuthConfiguration(auth_type=AuthTypes.client_secret, client_id=app_id,
                                            client_secret=app_password, tenant_id=tenant_id)
            connections = MsalConnectionManager(connections_configurations={"SERVICE_CONNECTION": config})
        else:
            config = AgentAuthConfiguration(anonymous_allowed=True)
            connections = _AnonymousConnections()
        self.auth_config = config
        self.adapter = CloudAdapter(connection_manager=connections)

    def mount(self, web_app: web.Application, prefix: str = "/api") -> None:
        """A sub-application so the SDK's JWT middleware guards only the bot endpoint."""
        sub = web.Application(middlewares=[_unauthorized_on_error, jwt_authorization_middleware])
        sub["agent_configuration"] = self.auth_config  # the key the SDK's middleware reads
        sub.router.add_post("/messages", self.handle)
        web_app.add_subapp(prefix, sub)

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
