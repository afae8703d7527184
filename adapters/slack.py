"""The Slack adapter: slack-bolt (async) on `docbot serve` at /slack/events, or Socket Mode.

A thin translation, as slack-bolt's per-framework adapters are: Slack events become the core's
`Incoming` facts keyed by (team, channel, thread), button clicks and /docbot become presses and
questions, and what the core decides goes back to Slack. What a reply looks like is
adapters/slack_render.py; how it gets into the thread (streaming, the message cap, late-post recovery)
adapters/slack_stream.py; installs and uninstalls adapters/slack_install.py; the Web API client
adapters/slack_client.py; Socket Mode (connecting, and saying why it cannot) adapters/slack_socket.py.
Every rule about whether and how docbot answers lives in the core (bot/).
"""
from __future__ import annotations

import functools
import logging
import re
import time
from contextvars import ContextVar
from typing import Any

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web.async_client import AsyncWebClient

from bot.controls import Control
from bot.conversation import ConversationService, Earlier, Pressed, SessionKey
from bot.inbound import Incoming
from rag.messages import Text, say, verb

from .markup import slack_escape, slack_markdown, slack_plain
from .slack_client import CountedClient, count_failure, web_client
from .slack_install import OAuthConfig, app_uninstalled, mount_install_pages, oauth_settings, tokens_revoked
from .slack_render import ACTION_ID, FEEDBACK, PREFIX, SHARE, SlackRenderer, context_block, pressed_value
from .slack_socket import start_socket_mode as start_socket_mode  # the server starts Socket Mode from here
from .slack_stream import SlackReplies

log = logging.getLogger(__name__)
_CLIENT: ContextVar[AsyncWebClient | None] = ContextVar("slack_client", default=None)

TITLE_LIMIT = 60  # characters of an assistant thread's title
DEFAULT_PROMPTS = [
    {"title": "휴가 규정", "message": "연차는 입사 첫해에 며칠 생겨?"},
    {"title": "배포 절차", "message": "배포 절차 핵심만 정리해줘"},
    {"title": "On-call", "message": "When does the weekly on-call rotation start?"},
    {"title": "Travel policy", "message": "What is the hotel limit for business trips?"},
]
THREAD_CONTEXT = 20  # earlier messages of a thread read on first contact
EMAIL_TTL = 3600.0  # seconds an asker's e-mail (users.info) is reused for per-document permissions
_MENTION = re.compile(r"<@[A-Z0-9]+>")


class SlackAdapter:
    """Registers docbot's listeners on a Bolt AsyncApp and mounts it on the aiohttp server."""

    def __init__(self, service: ConversationService, bot_token: str | None, signing_secret: str, *,
                 api_base_url: str | None = None, source_url_base: str | None = None,
                 update_every: float = 1.0, streaming: bool = True, retries: int = 3,
                 prompts: list[dict] | None = None, oauth: OAuthConfig | None = None, engine: Any = None,
                 timeout: float = 30.0, late_window: float | None = None, read_emails: bool = False):
        """One workspace with `bot_token`; any number with `oauth` (installs stored through `engine`, the
        conversation database's). `late_window`: how long after a call timed out docbot keeps looking for it
        to land (default four client timeouts; see slack_stream.SlackReplies). `read_emails`: in direct
        messages, ask Slack for the asker's e-mail (`users.info`, scope `users:read.email`), for sources with
        per-document permissions."""
        client = web_client(bot_token, api_base_url, timeout, retries)
        self.service, self.renderer = service, SlackRenderer(source_url_base)
        self.verifier = SignatureVerifier(signing_secret) if signing_secret else None
        self.replies = SlackReplies(lambda: self.client, self.renderer, self._bot_user_id, update_every, streaming,
                                    timeout=timeout, late_window=late_window)
        self._bot_users: dict[str | None, str] = {}
        self._emails: dict[str, tuple[float, frozenset[str]]] = {}  # user id -> (when asked, e-mails)
        self.read_emails = read_emails
        self.prompts = DEFAULT_PROMPTS if prompts is None else prompts  # assistant pane suggestions
        if oauth is not None:
            self.app = AsyncApp(client=client, signing_secret=signing_secret,
                                oauth_settings=oauth_settings(oauth, engine))
        else:
            self.app = AsyncApp(client=client, signing_secret=signing_secret)
        self._register()

    @property
    def client(self) -> AsyncWebClient:
        """The Web API client of the workspace being served: the one Bolt hands the listener (with that
        team's token when installs come through OAuth), else the app's own; its failures are counted."""
        return CountedClient(_CLIENT.get() or self.app.client, self._failed,  # type: ignore[return-value]
                             self.replies.returned)

    def _failed(self, exc: BaseException, method: str = "") -> bool:
        """A failed Web API call counted and logged once (slack_client.count_failure); False: not one."""
        return count_failure(self.service.metrics, exc, method)

    async def _on_error(self, error: Exception, response: BoltResponse | None = None) -> BoltResponse | None:
        """What escaped Bolt's middleware (auth.test) or a listener: a failed Web API call is the one line
        `_failed` wrote (Bolt's default handler logged a traceback) and the request is still acknowledged
        (Bolt would answer 500; Slack's API is unreachable, a retry of the event would fare no better);
        anything else is a bug, logged with its traceback."""
        if not self._failed(error):
            log.error("a Slack listener failed: %s", error.__class__.__name__, exc_info=error)
            return None
        return BoltResponse(status=200, body="") if response is not None else None

    def mount(self, web_app: web.Application, path: str = "/slack/events") -> None:
        """Serve Slack's HTTP requests (events, interactivity, slash commands) on the docbot server, and the
        install pages when installs come through OAuth."""
        web_app.router.add_post(path, self.handle)
        web_app.on_shutdown.append(self.replies.stop_sweeping)
        flow = self.app.oauth_flow
        if flow is not None:
            mount_install_pages(web_app, flow)

    async def handle(self, request: web.Request) -> web.Response:
        """Slack's signature first (401 if missing, stale or wrong), then the body's shape (400 unless it is
        the JSON object or form Slack sends); Bolt acknowledges before the answer is written. Nothing a
        client sends can make this a 500."""
        raw = await request.read()
        if self.verifier is None or not _signed(self.verifier, raw, request.headers):
            return web.json_response({"error": "invalid request signature"}, status=401)
        if not _well_formed(raw, request.content_type):
            return web.json_response({"error": "malformed request body"}, status=400)
        bolt_request = await to_bolt_request(request)
        try:
            return await to_aiohttp_response(await self.app.async_dispatch(bolt_request))
        except Exception as exc:  # Bolt's own calls (auth.test) failing: acknowledged; Slack is unreachable anyway
            if not self._failed(exc):
                raise
            return web.Response(status=200)

    def _register(self) -> None:
        app = self.app
        app.event("app_mention")(self._on_mention)
        app.event("message")(self._on_message)
        app.event("assistant_thread_started")(self._on_assistant_thread)
        app.event("assistant_thread_context_changed")(self._on_context_changed)
        app.event("tokens_revoked")(self._on_tokens_revoked)
        app.event("app_uninstalled")(self._on_app_uninstalled)
        app.action(ACTION_ID)(self._on_press)
        app.command("/docbot")(self._on_command)
        app.error(self._on_error)

    async def _on_tokens_revoked(self, event: dict, context) -> None:
        await tokens_revoked(self.app.installation_store, event, context)

    async def _on_app_uninstalled(self, context) -> None:
        await app_uninstalled(self.app.installation_store, context)

    # --- events -------------------------------------------------------------------------

    async def _on_assistant_thread(self, event: dict, client: AsyncWebClient) -> None:
        """Someone opened docbot's assistant pane: a greeting and suggested prompts (Korean and English)."""
        _CLIENT.set(client)  # this workspace's token (one per team with OAuth installs)
        thread = event.get("assistant_thread") or {}
        channel, ts = thread.get("channel_id"), thread.get("thread_ts")
        if not channel or not ts:
            return
        await self.client.chat_postMessage(channel=channel, thread_ts=ts, text=say(Text.GREETING, True) + "\n" +
                                           say(Text.GREETING, False))
        if self.prompts:
            await self.client.assistant_threads_setSuggestedPrompts(channel_id=channel, thread_ts=ts,
                                                                    prompts=self.prompts[:4])

    async def _on_context_changed(self, event: dict) -> None:
        """The user moved to another channel with the assistant pane open: nothing to do (acknowledged)."""

    async def _on_mention(self, event: dict, body: dict, context, client: AsyncWebClient) -> None:
        _CLIENT.set(client)  # this workspace's token (one per team with OAuth installs)
        await self._receive(self._incoming(event, body, context.bot_user_id or "", mentioned=True),
                            _user_team(body, event))

    async def _on_message(self, event: dict, body: dict, context, client: AsyncWebClient) -> None:
        """Messages and edits, translated; the core decides which are docbot's to answer.

        A question with a screenshot (`file_share`) or also sent to the channel (`thread_broadcast`) is
        a message like any other; other subtypes (joins, deletions, bot messages) are not questions.
        """
        _CLIENT.set(client)  # this workspace's token (one per team with OAuth installs)
        subtype, bot = event.get("subtype"), context.bot_user_id or ""
        if subtype == "message_changed":
            edited = dict(event.get("message") or {})
            if not edited.get("ts") or edited.get("subtype"):
                return
            edited.update(channel=event.get("channel"), channel_type=event.get("channel_type"))
            await self._receive(self._incoming(edited, body, bot, edit_of=edited["ts"]), _user_team(body, edited))
        elif subtype in (None, "file_share", "thread_broadcast"):
            await self._receive(self._incoming(event, body, bot), _user_team(body, event))

    def _incoming(self, event: dict, body: dict, bot: str, *, mentioned: bool = False, edit_of: str = "") -> Incoming:
        """A Slack message as the core's facts. Its delivery id is the message (channel and ts), so a retry
        and the `message` event that accompanies an `app_mention` are the same delivery."""
        key, raw, ts = self._key(body, event), event.get("text") or "", event["ts"]
        thread = event.get("thread_ts")
        mentions = set(_MENTION.findall(raw))
        text = slack_plain(_MENTION.sub("", raw))  # as the person wrote it
        direct, reply = event.get("channel_type") == "im", bool(thread) and thread != ts
        return Incoming(
            key, text, event.get("user", ""), delivery_id=f"{event['channel']}:{ts}", message_id=ts,
            mentioned=mentioned or (bool(bot) and f"<@{bot}>" in mentions), direct=direct,
            mentions_others=bool(mentions - {f"<@{bot}>"}), reply=reply, opens_thread=not thread, edit_of=edit_of,
            from_app=bool(event.get("bot_id")), participants=frozenset({event.get("parent_user_id") or ""} - {"", bot}),
            read_thread=functools.partial(self._thread_before, key, ts) if reply else None,
            accepted=functools.partial(self._working, key, text, direct and bool(thread)),
            identities=functools.partial(self._identities, self.client, event.get("user", ""))
            if direct and self.read_emails else None)

    async def _receive(self, incoming: Incoming, user_team: str) -> None:
        received = await self.service.receive(incoming)
        if received.turn is not None:
            await self.replies.render(received.turn, incoming.key, incoming.user, user_team)
        elif received.note:
            await self.client.chat_postMessage(channel=incoming.key.channel, thread_ts=incoming.key.thread,
                                               text=slack_escape(received.note))

    async def _identities(self, client: AsyncWebClient, user: str) -> frozenset[str]:
        """The asker's e-mail (`users.info`; Slack shows it only with the `users:read.email` scope), cached for
        an hour: what documents restricted to some people are matched against in direct messages."""
        cached = self._emails.get(user)
        if cached is not None and time.monotonic() - cached[0] < EMAIL_TTL:
            return cached[1]
        answer = await client.users_info(user=user)
        email = ((answer.get("user") or {}).get("profile") or {}).get("email") or ""
        found = frozenset({email.lower()} if email else ())
        if len(self._emails) > 10_000:
            self._emails.clear()
        self._emails[user] = (time.monotonic(), found)
        return found

    def _key(self, body: dict, event: dict) -> SessionKey:
        team = body.get("team_id") or event.get("team") or ""
        return SessionKey("slack", team, event["channel"], event.get("thread_ts") or event["ts"])

    async def _working(self, key: SessionKey, question: str, assistant_thread: bool, first: bool) -> None:
        """The core will answer: the status line at once, and an assistant thread's first question names it."""
        await self._status(key, question)
        if assistant_thread and first:
            await self._title(key, question)

    async def _thread_before(self, key: SessionKey, ts: str) -> list[Earlier]:
        """docbot's first message in a thread: what was said there before, read with conversations.replies
        (bounded), so "summarise what we decided above" has something to go on."""
        replies = await self.client.conversations_replies(channel=key.channel, ts=key.thread, limit=THREAD_CONTEXT)
        bot = await self._bot_user_id()
        earlier = []
        for message in replies.get("messages") or []:
            if message.get("ts") == ts or not message.get("text"):
                continue
            mine = bool(message.get("bot_id")) and message.get("user") in (bot, None)
            earlier.append(Earlier("assistant" if mine else "user", slack_plain(_MENTION.sub("", message["text"])),
                                   "" if mine else message.get("user", "")))
        return earlier[-THREAD_CONTEXT:]

    async def _bot_user_id(self) -> str:
        """docbot's own user id in this workspace (auth.test, asked once per token)."""
        client = self.client
        if client.token not in self._bot_users:
            self._bot_users[client.token] = (await client.auth_test()).get("user_id") or ""
        return self._bot_users[client.token]

    async def _status(self, key: SessionKey, question: str) -> None:
        """The assistant status line while docbot works (with rotating loading messages), where the
        workspace has it; silently skipped elsewhere."""
        try:
            await self.client.assistant_threads_setStatus(
                channel_id=key.channel, thread_ts=key.thread, status=say(Text.READING, question),
                loading_messages=[say(Text.SEARCHING, question), say(Text.READING_MORE, question)])
        except Exception as exc:  # cosmetic: a refusal, a timeout or a dropped connection loses nothing
            log.info("assistant status not shown in %s: %s", key.channel, exc.__class__.__name__)

    async def _title(self, key: SessionKey, question: str) -> None:
        """Name an assistant thread after its first question (not an assistant thread: Slack says no)."""
        try:
            await self.client.assistant_threads_setTitle(channel_id=key.channel, thread_ts=key.thread,
                                                         title=question.strip()[:TITLE_LIMIT] or "docbot")
        except Exception as exc:  # cosmetic, like the status line
            log.info("assistant thread title not set in %s: %s", key.channel, exc.__class__.__name__)

    # --- buttons and commands --------------------------------------------------------------

    async def _on_press(self, ack, body: dict, client: AsyncWebClient, respond) -> None:
        """A docbot button: the core decides; the conversation is the one the clicked message sits in."""
        _CLIENT.set(client)  # this workspace's token (one per team with OAuth installs)
        await ack()
        action, container, user = body["actions"][0], body.get("container") or {}, body["user"]["id"]
        value = action.get("value", "")
        if action["action_id"] == SHARE:
            await self._share(value, user, respond)
            return
        if action["action_id"] == FEEDBACK:  # "<team>:<control>:<answer>"
            team_part, _, value = value.partition(":")
            kind, _, target_part = value.partition(":")
            value = f"{team_part}:{target_part}"
        else:
            kind = action["action_id"].removeprefix(PREFIX)
        try:
            control = Control(kind)
        except ValueError:
            return
        team, target = pressed_value(value)
        team = team if team is not None else (body.get("team") or {}).get("id") or body["user"].get("team_id", "")
        key = SessionKey("slack", team, container.get("channel_id", ""),
                         container.get("thread_ts") or container.get("message_ts", ""))
        pressed = await self.service.press(key, control, target, user,
                                           delivery_id=f"{container.get('message_ts')}:{control}:{action.get('action_ts', '')}")
        if pressed.turn is not None:
            asker_team = body["user"].get("team_id", "") if pressed.turn.user_id == user else ""
            await self.replies.render(pressed.turn, key, pressed.turn.user_id, asker_team)
        elif pressed.note:
            await self._tell(key, container, user, pressed, respond)

    async def _share(self, value: str, user: str, respond) -> None:
        """Post a private answer in the channel it was asked in (its asker only), through the button's
        response_url (which works where docbot is not a member)."""
        answer = await self.service.shareable(int(value.rpartition(":")[2] or 0), user)
        if answer is None:
            await respond(text=say(Text.NOT_YOURS, "", verb=verb("share", "")), response_type="ephemeral", replace_original=False)
            return
        await respond(text=slack_markdown(answer.text[:3000]), blocks=self.renderer.shared(answer.text, user),
                      response_type="in_channel",
                      delete_original=True)

    async def _tell(self, key: SessionKey, container: dict, user: str, pressed: Pressed, respond) -> None:
        """A press's note: an action's result replaces its buttons; anything else only the clicker sees, through
        the click's response_url when Slack will not show them an ephemeral message there (someone who is not
        a member of the channel, such as a guest reading a shared thread: `user_not_in_channel`)."""
        note = slack_escape(pressed.note)
        if pressed.public:
            await self.client.chat_update(channel=key.channel, ts=container["message_ts"], text=note,
                                          blocks=[context_block(f"<@{user}>: {note}")])
        else:
            try:
                await self.client.chat_postEphemeral(channel=key.channel, user=user, text=note,
                                                     thread_ts=container.get("thread_ts"))
            except SlackApiError as exc:
                if exc.response.get("error") not in ("user_not_in_channel", "channel_not_found", "not_in_channel"):
                    raise
                await respond(text=note, response_type="ephemeral", replace_original=False)

    async def _on_command(self, ack, command: dict, respond, client: AsyncWebClient) -> None:
        """`/docbot question`: post the question in the channel and answer in its thread; where docbot is
        not a member (Slack: `not_in_channel`), answer the asker alone through the command's response_url.
        Nothing raises after the acknowledgement: a failure is said to the asker."""
        _CLIENT.set(client)  # this workspace's token (one per team with OAuth installs)
        text = (command.get("text") or "").strip()
        await ack()
        try:
            if not text:
                await respond(text=say(Text.USAGE, False), response_type="ephemeral")
                return
            await self._answer_command(command, text, respond)
        except Exception as exc:  # Bolt would only log "unhandled"; the asker must hear something
            if not self._failed(exc):  # a failed Slack call is already its one line; anything else is a bug
                log.exception("/docbot failed in %s", command.get("channel_id"))
            await respond(text=say(Text.ERROR, text), response_type="ephemeral")

    async def _answer_command(self, command: dict, text: str, respond) -> None:
        user, channel = command["user_id"], command["channel_id"]
        try:
            root = await self.client.chat_postMessage(channel=channel, text=say(
                Text.ASKED, text, who=f"<@{user}>", question=slack_escape(text)))
        except SlackApiError as exc:
            if exc.response.get("error") not in ("not_in_channel", "channel_not_found"):
                raise
            # A private conversation of this command: the answer goes to the asker only, whole.
            key = SessionKey("slack", command.get("team_id", ""), channel, f"command:{command.get('trigger_id', '')}")
            turn = (await self.service.receive(Incoming(key, text, user, mentioned=True, private=True))).turn
            if turn is not None:
                answer = await turn.collect()
                await respond(text=slack_markdown(answer[:3000]) or " ", blocks=self.renderer.private(turn, key, answer),
                              response_type="ephemeral")
            return
        key = SessionKey("slack", command.get("team_id", ""), channel, root["ts"])
        turn = (await self.service.receive(Incoming(key, text, user, mentioned=True))).turn
        if turn is not None:
            await self.replies.render(turn, key, user)


def _user_team(body: dict, event: dict) -> str:
    """The workspace of the person who wrote the event, which receives docbot's stream: in a Slack Connect
    channel `user_team` (or the event's `team`) names the asker's own organisation, not the one docbot is
    installed in (chat.startStream's recipient_team_id is "the team the user receiving the streaming text
    belongs to"). An enterprise id there cannot be a team id; the installing workspace stands in."""
    for team in (event.get("user_team"), event.get("team")):
        if isinstance(team, str) and team.startswith("T"):
            return team
    return body.get("team_id") or ""


_TIMESTAMP = re.compile(r"^[0-9]{1,12}$")  # seconds since the epoch, ASCII digits only


def _signed(verifier: SignatureVerifier, body: bytes, headers) -> bool:
    """Whether Slack signed this body (within its five minutes); a missing or non-numeric timestamp is
    simply unsigned (slack_sdk's check would raise on it)."""
    timestamp, signature = headers.get("X-Slack-Request-Timestamp", ""), headers.get("X-Slack-Signature", "")
    if not _TIMESTAMP.match(timestamp) or not signature:
        return False
    try:
        return verifier.is_valid(body.decode("utf-8"), timestamp, signature)
    except ValueError:  # not UTF-8
        return False


def _well_formed(body: bytes, content_type: str) -> bool:
    """A body Bolt can route: an object (JSON, or a form whose `payload` is a JSON object) whose `event`,
    when present, is an object too. Parsed the way Bolt parses it."""
    from slack_bolt.request.internals import parse_body

    try:
        parsed = parse_body(body.decode("utf-8"), content_type)
    except (ValueError, RecursionError):  # not the JSON or form it claims to be, or nested beyond parsing
        return False
    return isinstance(parsed, dict) and isinstance(parsed.get("event", {}), dict)

