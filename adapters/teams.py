"""The Microsoft Teams adapter, on the Microsoft 365 Agents SDK (the successor of the archived
Bot Framework SDK), mounted on `docbot serve` at /api/messages.

A thin translation: an activity becomes a `ConversationService` turn keyed by the channel id (a
channel thread's conversation.id carries `;messageid=`, the channel id does not) and the
conversation id; a turn becomes a streamed reply in one-on-one chats (the SDK's streaming
response) or a sent-then-updated card in group chats and channels, with the AI-generated label,
Teams citation entities and Teams' own feedback buttons. Replies are delivered by teams_replies.py
(TeamsReplies), the connector calls watched, retried and counted in teams_client.py, cards built in
teams_render.py.

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
from typing import Any

from aiohttp import web
from microsoft_agents.activity import Activity, InvokeResponse
from microsoft_agents.hosting.aiohttp import CloudAdapter, jwt_authorization_middleware
from microsoft_agents.hosting.core import ActivityHandler, OutboundHostValidator, TurnContext
from microsoft_agents.hosting.core.authorization import AgentAuthConfiguration
from microsoft_agents.hosting.core.authorization.anonymous_token_provider import AnonymousTokenProvider

from bot.controls import Control, pressed
from bot.conversation import ConversationService, SessionKey
from bot.inbound import Incoming
from bot.observability import RUN_ID
from rag.messages import Text, say
from rag.resilience import RetryPolicy

from .markup import html_escape
from .teams_client import POLICY, TeamsClient, error_code, platform_failure
from .teams_replies import TeamsReplies

log = logging.getLogger(__name__)

# Hosts Teams' service URLs live on (public cloud, GCC, GCC High, DoD, Web Chat/Direct Line): an activity
# naming any other serviceUrl is refused with 401, so the bot's token never leaves Microsoft. Sovereign or
# national clouds set DOCBOT_TEAMS_SERVICE_URL_HOSTS. Narrower than the SDK's own default list, which
# also admits hosts anyone can rent (*.blob.core.windows.net, *.sharepoint.com).
SERVICE_URL_HOSTS = ("smba.trafficmanager.net", "smba.infra.gcc.teams.microsoft.com",
                     "smba.infra.gov.teams.microsoft.us", "smba.infra.dod.teams.microsoft.us", "botframework.com")

EMAIL_TTL = 3600.0  # seconds an asker's e-mail (conversation member record) is reused


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
        self.service = service
        self.client = TeamsClient(service, policy)  # connector calls: watched, retried, counted
        self.replies = TeamsReplies(service, self.client, update_every, source_url_base)
        self.adapter: CloudAdapter | None = None  # set by TeamsAdapter: answers run in continued turns
        self.running: set[asyncio.Task] = set()
        self.read_emails = False  # in personal chats, ask who the asker is (per-document permissions)
        self._emails: dict[str, tuple[float, frozenset[str]]] = {}  # member id -> (when asked, e-mails)

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
        self.client.watch(ctx, self.replies.streams)
        if isinstance(activity.value, dict) and "docbot" in activity.value:
            await self._on_card(ctx, activity.value)
            return
        received = await self.service.receive(self.incoming(ctx))
        if received.turn is not None:
            await self.replies.render(ctx, received.turn, self.personal(activity))
        elif received.note:
            await self.client.send(ctx, html_escape(received.note))

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

    async def _on_card(self, ctx: TurnContext, data: dict) -> None:
        """A card button: the core decides; the conversation is the one the card was submitted from."""
        parsed = pressed(str(data.get("docbot")), data)
        if parsed is None:
            return
        result = await self.service.press(self.key(ctx.activity), *parsed, self.user(ctx.activity),
                                          delivery_id=ctx.activity.id)
        if result.turn is not None:
            await self.replies.render(ctx, result.turn, self.personal(ctx.activity))
        elif result.note and result.public and ctx.activity.reply_to_id:  # the result replaces the buttons
            done = Activity(type="message", id=ctx.activity.reply_to_id, text=html_escape(result.note))
            await self.client.update(ctx, done)
        elif result.note and (self.personal(ctx.activity) or not result.courtesy):  # no message for one in a group
            await self.client.send(ctx, html_escape(result.note))


async def on_turn_error(context: TurnContext, error: Exception) -> None:
    """Log with the conversation, activity and run ids; the user gets a short apology in their language,
    never the exception's text (the SDK's default handler shows it). A failed connector call was already
    logged in its one line and counted: no traceback for it."""
    activity = context.activity
    log.error("Teams turn failed in conversation %s (activity %s, run %s)%s", activity.conversation.id
              if activity.conversation else "?", activity.id, RUN_ID.get() or "-",
              f": teams {error_code(error)}" if platform_failure(error) else "",
              exc_info=None if platform_failure(error) else error)
    try:
        await context.send_activity(html_escape(say(Text.ERROR, activity.text or "")))
    except Exception:  # the connector itself may be what failed; the log already has the story
        log.warning("could not send the apology to Teams conversation %s", activity.conversation.id
                    if activity.conversation else "?")


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
