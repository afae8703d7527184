"""The Bot Connector calls of docbot's Teams turns: each under the retry policy's timeout (the SDK's session
waits five minutes), 429, 5xx and connection errors retried (a send that timed out is not sent again: the
connector takes no idempotency key), and every failed call logged in one line and counted in /metrics
(`docbot_platform_errors_total{platform="teams", method, error}`), once however far it travels.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from microsoft_agents.activity import Activity
from microsoft_agents.hosting.core import TurnContext

from bot.conversation import ConversationService
from rag.resilience import RetryPolicy, transient_http

from .teams_render import CARD

log = logging.getLogger(__name__)

# Connector calls: 429, 5xx and connection errors retried with backoff and jitter (see rag.resilience).
POLICY = RetryPolicy(attempts=4)


async def with_retries(policy: RetryPolicy, call: Callable[[], Awaitable[Any]], *, post: bool = False) -> Any:
    """One connector call under the retry policy. A send (`post`) that timed out is not sent again: the Bot
    Connector takes no idempotency key, so the first may have been shown."""
    return await policy.call_async(call, _transient_send if post else transient_http)


def _transient_send(exc: BaseException) -> bool:
    return transient_http(exc) and not isinstance(exc, TimeoutError)


def error_code(exc: BaseException) -> str:
    """A failed connector call's error as a short, bounded label: `http_<status>`, `timeout`, `connection`."""
    if isinstance(exc, aiohttp.ClientResponseError):
        return f"http_{exc.status}"
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, aiohttp.ClientError):
        return "connection"
    return exc.__class__.__name__


def platform_failure(exc: BaseException) -> bool:
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


class TeamsClient:
    """The connector as docbot's turns use it: watched, counted, retried."""

    def __init__(self, service: ConversationService, policy: RetryPolicy = POLICY):
        self.service, self.policy = service, policy  # the service's metrics count the failures

    def failed(self, exc: BaseException, method: str) -> None:
        """A connector call failed: one log line and `docbot_platform_errors_total{platform="teams", method,
        error}`, once per failure however far it travels."""
        if getattr(exc, "_docbot_counted", False):
            return
        error = error_code(exc)
        try:
            exc._docbot_counted = True  # type: ignore[attr-defined]
        except AttributeError:  # pragma: no cover  (exceptions take attributes)
            pass
        self.service.metrics.platform_errors.labels("teams", method, error).inc()
        log.warning("teams %s failed: %s", method, error)
        log.debug("teams %s failed", method, exc_info=exc)

    def watch(self, ctx: TurnContext, streams: dict[int, Any]) -> None:
        """Every connector call of this turn under the policy's timeout (the SDK's session waits five minutes),
        each failure logged in one line and counted; a streaming chunk that fails is left out (the next chunk
        carries all the text before it) and what the stream showed is noted in `streams` (the turn context's
        id -> its answer's stream record, see teams_replies)."""
        timeout = self.policy.timeout

        async def sends(context: TurnContext, activities: list[Activity], call_next: Callable[[], Awaitable[Any]]):
            kind = _stream_kind(activities[0]) if len(activities) == 1 else ""
            stream = streams.get(id(context))
            try:
                result = await asyncio.wait_for(call_next(), timeout)
            except Exception as exc:
                if kind and isinstance(exc, aiohttp.ClientResponseError) and exc.status == 403:
                    raise  # Teams' Stop (ContentStreamNotAllowed): the SDK's to handle, not a failure
                self.failed(exc, "send_activity")
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
                self.failed(exc, "update_activity")
                raise
            stream = streams.get(id(context))
            if stream is not None and _final(activity):  # a stream Teams ended: the answer arrives as an update
                stream.final = True
            return result

        ctx.on_send_activities(sends)
        ctx.on_update_activity(updates)

    async def send(self, ctx: TurnContext, activity: Activity | str) -> Any:
        """Send one activity under the retry policy (a timed-out send is not repeated)."""
        return await with_retries(self.policy, lambda: ctx.send_activity(activity), post=True)

    async def update(self, ctx: TurnContext, activity: Activity) -> Any:
        """Update one activity under the retry policy."""
        return await with_retries(self.policy, lambda: ctx.update_activity(activity))
