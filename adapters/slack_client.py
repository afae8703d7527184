"""The Slack Web API client as docbot uses it: slack_sdk's own retry handlers (429 after Retry-After,
connection errors and 5xx with backoff and jitter), and every failed call logged in one line and counted
in /metrics (`docbot_platform_errors_total{platform, method, error}`), once however far it travels.
"""
from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

from aiohttp import ClientError
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

log = logging.getLogger(__name__)


def web_client(token: str | None, base_url: str | None, timeout: float, retries: int) -> AsyncWebClient:
    """The app's client; slack_sdk's own handlers: 429 after Retry-After, connection errors and 5xx with
    backoff and jitter."""
    client = AsyncWebClient(token=token, base_url=base_url or AsyncWebClient.BASE_URL, timeout=int(timeout))
    client.retry_handlers.extend([AsyncRateLimitErrorRetryHandler(max_retry_count=retries),
                                  AsyncConnectionErrorRetryHandler(max_retry_count=retries),
                                  AsyncServerErrorRetryHandler(max_retry_count=retries)])
    return client


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


class CountedClient:
    """The Web API client as docbot uses it: every call that fails is logged in one line and counted in
    /metrics (`docbot_platform_errors_total`), then raised to the caller as before."""

    def __init__(self, client: AsyncWebClient, failed: Callable[[BaseException, str], object],
                 posted: Callable[[str], None] | None = None):
        self._client, self._failed, self._posted = client, failed, posted  # posted: told each ts a post returned

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if name.startswith("_") or not inspect.iscoroutinefunction(attr):
            return attr

        @functools.wraps(attr)
        async def call(*args: Any, **kwargs: Any) -> Any:
            try:
                result = await attr(*args, **kwargs)
            except Exception as exc:
                self._failed(exc, name.replace("_", "."))
                raise
            if self._posted is not None and name in ("chat_postMessage", "chat_startStream"):
                self._posted(str(result.get("ts") or ""))
            return result

        return call


def count_failure(metrics: Any, exc: BaseException, method: str = "") -> bool:
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
    metrics.platform_errors.labels("slack", method, error).inc()
    log.warning("slack %s failed: %s", method, error)
    log.debug("slack %s failed", method, exc_info=exc)
    return True


def brief(exc: BaseException) -> str:
    """An exception in a few words for one log line: Slack's error code, or the exception's class and text."""
    if isinstance(exc, SlackApiError):
        return f"SlackApiError {exc.response.get('error')}"
    return f"{exc.__class__.__name__} {exc}".strip()
