"""The Slack adapter: slack-bolt (async) on `docbot serve` at /slack/events, or Socket Mode.

A thin translation: Slack events become `ConversationService` turns keyed by
(team, channel, thread); turns become streamed messages with the rewritten query shown
small above the answer, sources under it, and buttons. Everything else lives in the core.
"""
from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import re
import time
from collections.abc import Callable
from contextlib import aclosing
from contextvars import ContextVar
from typing import Any

from aiohttp import ClientError, web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web.async_client import AsyncWebClient

from bot.controls import Button, Control, buttons, stopped_note, target_of
from bot.conversation import ConversationService, Earlier, Pressed, SessionKey, Turn
from bot.inbound import Incoming
from rag.messages import Text, say, verb

from .markup import slack_escape, slack_markdown, slack_plain, split_text, url_path
from .slack_install import OAuthConfig, oauth_settings

log = logging.getLogger(__name__)
_CLIENT: ContextVar[AsyncWebClient | None] = ContextVar("slack_client", default=None)

PREFIX = "docbot_"  # a button's action_id is PREFIX + its Control; its value is "<team>:<target>"
STOP, REGENERATE, HELPFUL, NOT_HELPFUL = (PREFIX + c for c in (Control.STOP, Control.REGENERATE, Control.HELPFUL,
                                                                Control.NOT_HELPFUL))
CONFIRM, CANCEL = PREFIX + Control.CONFIRM, PREFIX + Control.CANCEL
FEEDBACK = PREFIX + "feedback"  # Slack's feedback_buttons: one action id, the value says which
SHARE = PREFIX + "share"  # posts a private /docbot answer where it was asked
_ACTION_ID = re.compile(r"^docbot_[a-z_]{1,20}$")
_STYLES = {"primary": "primary", "danger": "danger"}
SECTION_LIMIT = 3000  # characters of mrkdwn in one section block
TITLE_LIMIT = 60  # characters of an assistant thread's title
DEFAULT_PROMPTS = [
    {"title": "휴가 규정", "message": "연차는 1년에 며칠이야?"},
    {"title": "배포 절차", "message": "배포 절차 문서 요약해줘"},
    {"title": "On-call", "message": "How does the on-call rotation work?"},
    {"title": "Travel policy", "message": "What is the hotel limit for business trips?"},
]
THREAD_CONTEXT = 20  # earlier messages of a thread read on first contact
EMAIL_TTL = 3600.0  # seconds an asker's e-mail (users.info) is reused for per-document permissions
MARKDOWN_LIMIT = 11_000  # characters of markdown blocks in one payload (Slack: 12,000 in all)
APPEND_LIMIT = 2000  # characters per appendStream call
MESSAGE_LIMIT = 40_000  # characters of one Slack message, a streamed one included (its markdown as sent)
_MENTION = re.compile(r"<@[A-Z0-9]+>")
# Writing into a stream or message Slack already closed is normal flow after Stop, not an error.
_CLOSED = {"message_not_in_streaming_state", "message_not_found", "cant_update_message", "not_in_streaming_state"}
# Message metadata on docbot's posts: a post whose call timed out may still have been made (Slack deduplicates
# nothing), so before posting again docbot looks for it in the thread by its run and part.
REPLY_EVENT = "docbot_reply"
POST_ATTEMPTS = 2  # tries at one post (each timed-out try looked for first); then the turn apologises
LOOKUP_PAGES = 10  # pages of conversations.replies read when looking for a post (200 messages each)


def _ts(ts: str) -> tuple[int, int]:
    """A Slack timestamp as a sortable pair (seconds, micro): compared as numbers, never as floats."""
    seconds, _, micro = ts.partition(".")
    return int(seconds or 0), int(micro or 0)


def _button(button: Button, team: str) -> dict:
    """A core button as a Block Kit button: action_id names the control; the value carries its target and
    the team of the conversation it belongs to. A click's `team` is the clicker's workspace, which in a
    Slack Connect channel or an Enterprise org is not the one docbot keys the thread by; the value comes
    back exactly as docbot wrote it (Slack builds the payload), and channel and thread come from the
    clicked message itself."""
    block = {"type": "button", "text": {"type": "plain_text", "text": button.label, "emoji": True},
             "action_id": PREFIX + button.control, "value": f"{team}:{button.target}"}
    if button.style in _STYLES:
        block["style"] = _STYLES[button.style]
    return block


def _pressed(value: str) -> tuple[str | None, str]:
    """(team, target) of a button's value; buttons posted by earlier versions carry JSON instead."""
    if value.startswith("{"):
        try:
            legacy = json.loads(value)
        except ValueError:
            return None, ""
        return legacy.get("team"), target_of(legacy)
    team, _, target = value.rpartition(":")
    return team or None, target


def _context(text: str) -> dict:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text[:SECTION_LIMIT]}]}


def _api_method(exc: BaseException) -> str:
    """The Web API method a failed call was for: slack_sdk names it in the URL of Slack's answer, or (a
    timeout, a dropped connection) in `api_call`'s frame on the way out."""
    if isinstance(exc, SlackApiError):
        url = str(getattr(exc.response, "api_url", "") or "")
        return url.rstrip("/").rpartition("/")[2] or "unknown"
    tb = exc.__traceback__
    while tb is not None:
        method = tb.tb_frame.f_locals.get("api_method")
        if isinstance(method, str):
            return method
        tb = tb.tb_next
    return ""


def _error_code(exc: BaseException) -> str:
    """A failed call's error as a short, bounded label: Slack's error code, `timeout`, `connection`."""
    if isinstance(exc, SlackApiError):
        return str(exc.response.get("error") or f"http_{exc.response.status_code}")
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, ClientError):
        return "connection"
    return exc.__class__.__name__


class _Counted:
    """The Web API client as docbot uses it: every call that fails is logged in one line and counted in
    /metrics (`docbot_platform_errors_total`), then raised to the caller as before."""

    def __init__(self, client: AsyncWebClient, failed: Callable[[BaseException, str], object]):
        self._client, self._failed = client, failed

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if name.startswith("_") or not inspect.iscoroutinefunction(attr):
            return attr

        @functools.wraps(attr)
        async def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return await attr(*args, **kwargs)
            except Exception as exc:
                self._failed(exc, name.replace("_", "."))
                raise

        return call


class SlackRenderer:
    """Blocks for a turn: rewritten query, answer sections, sources, buttons."""

    def __init__(self, source_url_base: str | None = None):
        self.source_url_base = source_url_base.rstrip("/") + "/" if source_url_base else None

    def query_line(self, turn: Turn) -> dict | None:
        """The small line above the answer: the query the search used."""
        if not turn.prepared.searched:
            return None
        steps = f"  ·  steps: {' | '.join(turn.prepared.steps)}" if turn.prepared.steps else ""
        return _context(f":mag: _{slack_escape(turn.rewritten)}_{slack_escape(steps)}")

    def sources(self, turn: Turn) -> dict | None:
        """Numbered source links under the answer."""
        if not turn.sources:
            return None
        links = []
        for s in turn.sources:
            label = slack_escape(s.label).replace("|", "¦")  # '|' would end the link's label early
            url = s.url or (f"{self.source_url_base}{url_path(s.path)}" if self.source_url_base else "")
            # the stored link first (a wiki page, a permalink); mrkdwn wants & escaped inside a link too
            target = f"<{url.replace('&', '&amp;')}|{label}>" if url else f"{label} (`{slack_escape(s.path)}`)"
            links.append(f"[{s.n}] {target}")
        return _context("\n".join(links))

    def controls(self, turn: Turn, key: SessionKey, running: bool) -> list[dict]:
        """The turn's buttons (decided in the core): an actions block, and 👍 / 👎 as Slack's own feedback
        buttons (a `context_actions` block) under a finished answer."""
        wanted = buttons(turn, running)
        feedback = {b.control: b for b in wanted if b.control in (Control.HELPFUL, Control.NOT_HELPFUL)}
        others = [_button(b, key.tenant) for b in wanted if b.control not in feedback]
        blocks = [{"type": "actions", "elements": others}] if others else []
        if len(feedback) == 2:
            good, bad = feedback[Control.HELPFUL], feedback[Control.NOT_HELPFUL]
            blocks.append({"type": "context_actions", "elements": [{
                "type": "feedback_buttons", "action_id": FEEDBACK,
                "positive_button": {"text": {"type": "plain_text", "text": good.label},
                                    "accessibility_label": good.label, "value": f"{key.tenant}:{good.control}:{good.target}"},
                "negative_button": {"text": {"type": "plain_text", "text": bad.label},
                                    "accessibility_label": bad.label, "value": f"{key.tenant}:{bad.control}:{bad.target}"},
            }]})
        return blocks

    def message(self, turn: Turn, key: SessionKey, text: str, running: bool) -> list[list[dict]]:
        """The answer as one or more messages' blocks: its Markdown in a `markdown` block (Slack renders
        standard Markdown there; mrkdwn sections showed `**bold**` as typed), one per message since Slack
        allows 12,000 characters of markdown blocks in one payload; longer answers continue."""
        pieces = split_text(slack_markdown(text) or say(Text.SEARCHING, turn.prepared.question), MARKDOWN_LIMIT)
        head = [b for b in (self.query_line(turn),) if b]
        tail = [b for b in (None if running else self.sources(turn),) if b] + self.controls(turn, key, running)
        messages = [head + [{"type": "markdown", "text": pieces[0]}] + tail]
        messages += [[{"type": "markdown", "text": piece}] for piece in pieces[1:]]
        return messages


class _Writer:
    """Puts one streamed answer into Slack."""

    async def append(self, text: str) -> None: ...

    async def finish(self, turn: Turn, key: SessionKey) -> None: ...


class NativeStream(_Writer):
    """chat.startStream / appendStream / stopStream, with a control message (query line + Stop) above."""

    def __init__(self, client: AsyncWebClient, renderer: SlackRenderer, channel: str, thread: str,
                 stream_ts: str, control_ts: str | None, every: float, recipient: dict | None = None):
        self.client, self.renderer, self.channel, self.thread = client, renderer, channel, thread
        self.ts, self.control_ts, self.every = stream_ts, control_ts, every
        self.recipient = recipient or {}  # recipient_user_id / recipient_team_id, again for a continuation
        self.buffer, self.last, self.closed = "", time.monotonic(), False
        self.shown, self.broken = "", False  # the text Slack took; whether an append failed
        self.sent = 0  # characters of markdown in the current message

    def _fitting(self, raw: str) -> str:
        """The longest start of `raw` whose markdown still fits this message, cut after a line break (as the
        non-streaming split does) or, with none in reach, where the last append ended; "" when nothing fits."""
        room = MESSAGE_LIMIT - self.sent
        n = min(len(raw), room)
        while n > 0:  # escaping only lengthens text, so each pass shrinks n by the overshoot
            over = len(slack_markdown(raw[:n])) - room
            if over <= 0:
                break
            n -= over
        if 0 < n < len(raw):  # the message ends here: after a line break when there is one
            cut = raw.rfind("\n", 0, n)
            n = cut + 1 if cut >= 0 else 0 if self.sent else n
        return raw[:max(n, 0)]

    async def _continue(self) -> None:
        """This message is full: stop its stream and continue the answer in a new one in the thread."""
        await self.client.chat_stopStream(channel=self.channel, ts=self.ts)
        started = await self.client.chat_startStream(channel=self.channel, thread_ts=self.thread,
                                                     recipient_team_id=self.recipient.get("recipient_team_id"),
                                                     recipient_user_id=self.recipient.get("recipient_user_id"))
        self.ts, self.sent = started["ts"], 0

    async def append(self, text: str) -> None:
        self.buffer += text
        if time.monotonic() - self.last >= self.every or len(self.buffer) >= APPEND_LIMIT:
            await self._flush()

    async def _flush(self) -> None:
        while self.buffer and not self.closed and not self.broken:
            raw = self._fitting(self.buffer[:APPEND_LIMIT])
            if not raw:
                try:
                    await self._continue()
                except Exception:  # the answer stops where the full message ends
                    self.broken = True
                    raise
                continue
            markdown = slack_markdown(raw)  # escaped per flush: entities never split across appends
            try:
                await self.client.chat_appendStream(channel=self.channel, ts=self.ts, markdown_text=markdown)
            except SlackApiError as exc:
                if exc.response.get("error") not in _CLOSED:
                    self.broken = True
                    raise
                self.closed = True
            except Exception:
                self.broken = True
                raise
            self.buffer = self.buffer[len(raw):]
            self.shown += raw
            self.sent += len(markdown)
        self.last = time.monotonic()

    async def finish(self, turn: Turn, key: SessionKey) -> None:
        """Show the rest, then stop the stream, always: a failed append must not leave it open (a spinner
        for ever). When Slack did not take all of the text, the stored answer becomes what it showed."""
        try:
            await self._flush()
        except Exception as exc:  # SlackApiError, a timeout: what Slack has is what was shown
            log.info("chat.appendStream failed in %s: %s; stopping the stream", self.channel, _brief(exc))
            self.broken = True
        tail = [b for b in (self.renderer.sources(turn),) if b] + self.renderer.controls(turn, key, False)
        if stopped_note(turn):
            tail.insert(0, _context(f"_{stopped_note(turn)}_"))
        try:
            await self.client.chat_stopStream(channel=self.channel, ts=self.ts, blocks=tail)
        except SlackApiError as exc:
            if exc.response.get("error") not in _CLOSED:
                log.info("chat.stopStream failed in %s: %s", self.channel, _brief(exc))
        except Exception as exc:  # a timeout: Slack may well have stopped it
            log.info("chat.stopStream failed in %s: %s", self.channel, _brief(exc))
        if self.broken:
            await turn.service.shown(turn, self.shown, "partial")
        if self.control_ts:  # the Stop button goes; the query line stays, or the message goes with it
            head = self.renderer.query_line(turn)
            try:
                if head is None:  # nothing was searched: an empty message would show its fallback text
                    await self.client.chat_delete(channel=self.channel, ts=self.control_ts)
                else:  # the notification text is a fixed phrase, never the user's words
                    await self.client.chat_update(channel=self.channel, ts=self.control_ts,
                                                  text=say(Text.SEARCHED, turn.prepared.question), blocks=[head])
            except Exception as exc:  # the answer is shown and stored; a Stop button left behind does nothing
                log.info("the control message above the answer in %s was not updated: %s", self.channel,
                            _brief(exc))


class UpdateStream(_Writer):
    """Fallback where streaming is unavailable: chat.postMessage, then chat.update at most every `every` s."""

    def __init__(self, client: AsyncWebClient, renderer: SlackRenderer, channel: str, thread: str, ts: str,
                 turn: Turn, key: SessionKey, every: float):
        self.client, self.renderer, self.channel, self.thread, self.ts = client, renderer, channel, thread, ts
        self.turn, self.key, self.every = turn, key, every
        self.text, self.last = "", time.monotonic()
        self.shown = ""  # the answer text the message showed after the last update Slack took

    async def append(self, text: str) -> None:
        self.text += text
        if time.monotonic() - self.last >= self.every:
            try:
                await self._update(running=True)
            except Exception as exc:  # a progress update: the next one (or the final one) shows the text
                log.info("chat.update failed in %s: %s", self.channel, _brief(exc))
                self.last = time.monotonic()

    async def _update(self, running: bool, stopped: str = "") -> None:
        messages = self.renderer.message(self.turn, self.key, self.text + stopped, running)
        try:
            notification = slack_markdown(self.text[:3000]) or say(Text.SEARCHING, self.turn.prepared.question)
            await self.client.chat_update(channel=self.channel, ts=self.ts, text=notification, blocks=messages[0])
        except SlackApiError as exc:
            if exc.response.get("error") not in _CLOSED:
                raise
        self.last, self.shown = time.monotonic(), self.text
        if not running:
            for extra in messages[1:]:
                await self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread, blocks=extra,
                                                   text=say(Text.CONTINUED, self.turn.prepared.question))

    async def finish(self, turn: Turn, key: SessionKey) -> None:
        """The final update, tried twice (an update is idempotent: repeating one that timed out after Slack
        made it changes nothing); if Slack takes neither, the stored answer becomes what it last showed."""
        stopped = f"\n\n_{note}_" if (note := stopped_note(turn)) else ""
        self.text = turn.text
        for attempt in range(1, POST_ATTEMPTS + 1):
            try:
                await self._update(running=False, stopped=stopped)
                return
            except Exception as exc:
                log.info("chat.update of the final answer failed in %s (try %d): %s", self.channel, attempt,
                            _brief(exc))
        if self.shown != turn.text:
            await turn.service.shown(turn, self.shown, "partial")


class SlackAdapter:
    """Registers docbot's listeners on a Bolt AsyncApp and mounts it on the aiohttp server."""

    def __init__(self, service: ConversationService, bot_token: str | None, signing_secret: str, *,
                 api_base_url: str | None = None, source_url_base: str | None = None,
                 update_every: float = 1.0, streaming: bool = True, retries: int = 3,
                 prompts: list[dict] | None = None, oauth: OAuthConfig | None = None, engine: Any = None,
                 timeout: float = 30.0, read_emails: bool = False):
        """One workspace with `bot_token`; any number with `oauth` (installs stored through `engine`, the
        conversation database's). `read_emails`: in direct messages, ask Slack for the asker's e-mail
        (`users.info`, scope `users:read.email`), for sources with per-document permissions."""
        client = AsyncWebClient(token=bot_token, base_url=api_base_url or AsyncWebClient.BASE_URL, timeout=int(timeout))
        # slack_sdk's own handlers: 429 after Retry-After, connection errors and 5xx with backoff and jitter.
        client.retry_handlers.extend([AsyncRateLimitErrorRetryHandler(max_retry_count=retries),
                                      AsyncConnectionErrorRetryHandler(max_retry_count=retries),
                                      AsyncServerErrorRetryHandler(max_retry_count=retries)])
        self.service, self.renderer = service, SlackRenderer(source_url_base)
        self.verifier = SignatureVerifier(signing_secret) if signing_secret else None
        self.update_every, self.streaming = update_every, streaming
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
        return _Counted(_CLIENT.get() or self.app.client, self._failed)  # type: ignore[return-value]

    def _failed(self, exc: BaseException, method: str = "") -> bool:
        """A Web API call failed: one log line (the traceback only at debug level: `docbot --debug`) and
        `docbot_platform_errors_total{platform, method, error}`, once per failure however far it travels.
        False when `exc` is not a failed Slack call (a bug: the caller shows its traceback)."""
        if getattr(exc, "_docbot_counted", False):
            return True
        method = _api_method(exc) or method
        if not method:
            return False
        error = _error_code(exc)
        try:
            exc._docbot_counted = True  # type: ignore[attr-defined]
        except AttributeError:  # pragma: no cover  (exceptions take attributes)
            pass
        self.service.metrics.platform_errors.labels("slack", method, error).inc()
        log.warning("slack %s failed: %s", method, error)
        log.debug("slack %s failed", method, exc_info=exc)
        return True

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
        flow = self.app.oauth_flow
        if flow is not None:
            web_app.router.add_get(flow.install_path, self._install)
            web_app.router.add_get(flow.redirect_uri_path, self._installed)

    async def _install(self, request: web.Request) -> web.Response:
        """Start an install: Slack's authorize page, with a one-time state."""
        assert self.app.oauth_flow is not None
        return await to_aiohttp_response(await self.app.oauth_flow.handle_installation(await to_bolt_request(request)))

    async def _installed(self, request: web.Request) -> web.Response:
        """Slack sends the installer back here: the code becomes this workspace's token, stored."""
        assert self.app.oauth_flow is not None
        return await to_aiohttp_response(await self.app.oauth_flow.handle_callback(await to_bolt_request(request)))

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
        app.action(_ACTION_ID)(self._on_press)
        app.command("/docbot")(self._on_command)
        app.error(self._on_error)

    # --- a workspace removing docbot ---------------------------------------------------------

    async def _on_tokens_revoked(self, event: dict, context) -> None:
        """Slack revoked tokens (api.slack.com/events/tokens_revoked): the event names user ids, not tokens.
        A revoked bot token takes every installation row of the team with it, since each row stores the bot
        token too (slack_sdk's installations table) and docbot acts only as its bot; revoked user tokens go
        with their users' rows."""
        store, tokens = self.app.installation_store, event.get("tokens") or {}
        enterprise, team = self._installed_as(context)
        if store is None:  # one workspace, one configured token: nothing stored, the operator must act
            log.error("Slack revoked docbot's tokens for team %s (%s): reinstall the app and update SLACK_BOT_TOKEN",
                      team, ", ".join(sorted(tokens)))
            return
        for user in tokens.get("oauth") or []:
            await store.async_delete_installation(enterprise_id=enterprise, team_id=team, user_id=user)
        if tokens.get("bot"):
            await store.async_delete_all(enterprise_id=enterprise, team_id=team)
        log.warning("Slack revoked tokens of team %s: %s deleted", team, ", ".join(sorted(tokens)) or "nothing")

    async def _on_app_uninstalled(self, context) -> None:
        """The workspace uninstalled docbot (api.slack.com/events/app_uninstalled): its installation goes,
        bot and user tokens alike. Slack does not order this against tokens_revoked; either one suffices."""
        store = self.app.installation_store
        enterprise, team = self._installed_as(context)
        if store is None:
            log.error("docbot was uninstalled from team %s: SLACK_BOT_TOKEN no longer works", team)
            return
        await store.async_delete_all(enterprise_id=enterprise, team_id=team)
        log.warning("docbot was uninstalled from team %s: its installation was deleted", team)

    @staticmethod
    def _installed_as(context) -> tuple[str | None, str | None]:
        """(enterprise, team) as the installation store keys an install: an org-wide install has no team."""
        if context.is_enterprise_install:
            return context.enterprise_id, None
        return context.enterprise_id, context.team_id

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
            await self.render(received.turn, incoming.key, incoming.user, user_team)
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

    async def render(self, turn: Turn, key: SessionKey, user: str, user_team: str = "") -> None:
        """Stream the turn into the thread; the stored answer is what the thread shows, whatever Slack does.

        If the answer message cannot be opened (Slack refuses, or times out twice), the user gets a short
        apology instead, and the turn is stored as `failed` with Slack's error and the apology as its text
        (empty if even that could not be posted); the thread is free for the next question at once.
        """
        turn.delivered = asyncio.Event()  # a shutdown waits for the stream to be stopped, not just stored
        try:
            writer = await self._open(turn, key, user, user_team)
        except Exception as exc:  # SlackApiError, a timeout, a dropped connection: the turn must still end
            log.info("could not open the answer message in %s (%s): apologising", key.channel, _brief(exc))
            await self._apologise(turn, key, f"slack: {_brief(exc)}")
            turn.delivered.set()
            return
        try:
            async with aclosing(turn.stream()) as pieces:  # closed (and stored) even if Slack fails midway
                async for piece in pieces:
                    await writer.append(piece)
        finally:
            try:
                await writer.finish(turn, key)
            finally:
                turn.delivered.set()

    async def _apologise(self, turn: Turn, key: SessionKey, error: str) -> None:
        """Say sorry in the thread (posted at most once, like the answer message) and store exactly that."""
        apology = say(Text.ERROR, turn.prepared.question)
        try:
            await self._post(key, turn.run_id, "apology", text=slack_escape(apology))
        except Exception as exc:
            log.info("could not post an apology in %s either: %s", key.channel, _brief(exc))
            apology = ""
        await turn.fail(error, shown=apology)

    async def _post(self, key: SessionKey, run_id: str, part: str, **fields: Any) -> str:
        """chat.postMessage into the thread, never doubled by a timeout: a call that timed out may have been
        posted (Slack deduplicates nothing), so docbot looks for its post (message metadata: run and part)
        before trying again; POST_ATTEMPTS tries. Returns the message's ts; raises when it is not posted."""
        payload = {"run": run_id, "part": part}
        for attempt in range(1, POST_ATTEMPTS + 1):
            try:
                posted = await self.client.chat_postMessage(
                    channel=key.channel, thread_ts=key.thread, metadata={"event_type": REPLY_EVENT,
                                                                         "event_payload": payload}, **fields)
                return posted["ts"]
            except SlackApiError:
                raise  # Slack answered: it did not post it
            except Exception as exc:  # a timeout or a dropped connection: posted or not, Slack did not say
                log.info("chat.postMessage timed out in %s (try %d): %s; looking for it in the thread",
                            key.channel, attempt, _brief(exc))
                found = await self._find(key, lambda m: (m.get("metadata") or {}).get("event_payload") == payload)
                if found:
                    return found
                if attempt == POST_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def _find(self, key: SessionKey, match: Callable[[dict], bool], after: str | None = None) -> str | None:
        """The ts of docbot's newest message in the thread that `match`es (after `after`), read with
        conversations.replies; None when there is none or the thread cannot be read."""
        bot, cursor, found = await self._bot_user_id(), None, None

        async def read(cursor: str | None) -> Any:  # a read that times out is tried once more: "not found"
            try:                                     # would post the message a second time
                return await self.client.conversations_replies(channel=key.channel, ts=key.thread, limit=200,
                                                               include_all_metadata=True, cursor=cursor,
                                                               oldest=after)
            except SlackApiError:
                raise
            except Exception:
                return await self.client.conversations_replies(channel=key.channel, ts=key.thread, limit=200,
                                                               include_all_metadata=True, cursor=cursor,
                                                               oldest=after)

        try:
            for _ in range(LOOKUP_PAGES):
                page = await read(cursor)
                for message in page.get("messages") or []:
                    if message.get("user") == bot and (after is None or _ts(message["ts"]) > _ts(after)) \
                            and match(message):
                        found = message["ts"]
                cursor = (page.get("response_metadata") or {}).get("next_cursor")
                if not cursor:
                    break
        except Exception as exc:  # no history scope, or Slack slow again: not found
            log.info("could not read thread %s to find docbot's message: %s", key.thread, _brief(exc))
        return found

    async def _open(self, turn: Turn, key: SessionKey, user: str, user_team: str = "") -> _Writer:
        user_team = user_team or key.tenant  # a colleague of docbot's own workspace
        if self.streaming:
            control = await self._post(
                key, turn.run_id, "control", text=say(Text.SEARCHING, turn.prepared.question),
                blocks=[b for b in (self.renderer.query_line(turn),) if b] + self.renderer.controls(turn, key, True))
            try:
                recipient = {k: v for k, v in (("recipient_team_id", user_team), ("recipient_user_id", user)) if v}
                started = await self.client.chat_startStream(channel=key.channel, thread_ts=key.thread,
                                                             recipient_team_id=user_team or None,
                                                             recipient_user_id=user or None)
                return NativeStream(self.client, self.renderer, key.channel, key.thread, started["ts"],
                                    control, self.update_every, recipient)
            except SlackApiError as exc:
                log.info("chat.startStream unavailable (%s); falling back to chat.update", exc.response.get("error"))
                await self.client.chat_delete(channel=key.channel, ts=control)
            except Exception as exc:  # timed out: Slack may have opened the stream; use it, or the control message
                log.info("chat.startStream timed out in %s: %s; looking for the stream", key.channel, _brief(exc))
                stream = await self._find(key, lambda m: not m.get("metadata"), after=control)
                if stream:
                    return NativeStream(self.client, self.renderer, key.channel, key.thread, stream, control,
                                        self.update_every, recipient)
                return UpdateStream(self.client, self.renderer, key.channel, key.thread, control, turn, key,
                                    self.update_every)
        posted = await self._post(key, turn.run_id, "answer", text=say(Text.SEARCHING, turn.prepared.question),
                                  blocks=self.renderer.message(turn, key, "", running=True)[0])
        return UpdateStream(self.client, self.renderer, key.channel, key.thread, posted, turn, key,
                            self.update_every)

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
        team, target = _pressed(value)
        team = team if team is not None else (body.get("team") or {}).get("id") or body["user"].get("team_id", "")
        key = SessionKey("slack", team, container.get("channel_id", ""),
                         container.get("thread_ts") or container.get("message_ts", ""))
        pressed = await self.service.press(key, control, target, user,
                                           delivery_id=f"{container.get('message_ts')}:{control}:{action.get('action_ts', '')}")
        if pressed.turn is not None:
            asker_team = body["user"].get("team_id", "") if pressed.turn.user_id == user else ""
            await self.render(pressed.turn, key, pressed.turn.user_id, asker_team)
        elif pressed.note:
            await self._tell(key, container, user, pressed, respond)

    async def _share(self, value: str, user: str, respond) -> None:
        """Post a private answer in the channel it was asked in (its asker only), through the button's
        response_url (which works where docbot is not a member)."""
        answer = await self.service.shareable(int(value.rpartition(":")[2] or 0), user)
        if answer is None:
            await respond(text=say(Text.NOT_YOURS, "", verb=verb("share", "")), response_type="ephemeral", replace_original=False)
            return
        blocks = [{"type": "markdown", "text": piece} for piece in split_text(
            slack_markdown(answer.text) or " ", MARKDOWN_LIMIT)][:1]
        blocks.append(_context(f"<@{user}> · docbot"))
        await respond(text=slack_markdown(answer.text[:3000]), blocks=blocks, response_type="in_channel",
                      delete_original=True)

    async def _tell(self, key: SessionKey, container: dict, user: str, pressed: Pressed, respond) -> None:
        """A press's note: an action's result replaces its buttons; anything else only the clicker sees, through
        the click's response_url when Slack will not show them an ephemeral message there (someone who is not
        a member of the channel, such as a guest reading a shared thread: `user_not_in_channel`)."""
        note = slack_escape(pressed.note)
        if pressed.public:
            await self.client.chat_update(channel=key.channel, ts=container["message_ts"], text=note,
                                          blocks=[_context(f"<@{user}>: {note}")])
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
                blocks = [b for b in (self.renderer.query_line(turn),) if b]
                blocks += [{"type": "markdown", "text": piece} for piece in split_text(
                    slack_markdown(answer) or " ", MARKDOWN_LIMIT)][:1]
                blocks += [b for b in (self.renderer.sources(turn),) if b] + self.renderer.controls(turn, key, False)
                await respond(text=slack_markdown(answer[:3000]) or " ", blocks=blocks, response_type="ephemeral")
            return
        key = SessionKey("slack", command.get("team_id", ""), channel, root["ts"])
        turn = (await self.service.receive(Incoming(key, text, user, mentioned=True))).turn
        if turn is not None:
            await self.render(turn, key, user)


def _user_team(body: dict, event: dict) -> str:
    """The workspace of the person who wrote the event, which receives docbot's stream: in a Slack Connect
    channel `user_team` (or the event's `team`) names the asker's own organisation, not the one docbot is
    installed in (chat.startStream's recipient_team_id is "the team the user receiving the streaming text
    belongs to"). An enterprise id there cannot be a team id; the installing workspace stands in."""
    for team in (event.get("user_team"), event.get("team")):
        if isinstance(team, str) and team.startswith("T"):
            return team
    return body.get("team_id") or ""


def _brief(exc: BaseException) -> str:
    """An exception in a few words for one log line: Slack's error code, or the exception's class and text."""
    if isinstance(exc, SlackApiError):
        return f"SlackApiError {exc.response.get('error')}"
    return f"{exc.__class__.__name__} {exc}".strip()


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


async def start_socket_mode(adapter: SlackAdapter, app_token: str) -> Any:
    """Connect over Socket Mode (no public URL needed); returns the handler to close on shutdown."""
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

    handler = AsyncSocketModeHandler(adapter.app, app_token)
    await handler.connect_async()
    return handler
