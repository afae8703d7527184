"""Socket Mode as an operator sees it: slack_sdk's client connects and retries as it always does, but each
failed attempt is one line with the reason and the fix (slack_sdk logs ~35 lines of traceback per attempt,
every ping interval, however wrong the token), and a connection is confirmed by one INFO line naming the
workspace `auth.test` reports. `docbot --debug` shows slack_sdk's own lines, tracebacks included.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from aiohttp import ClientError, WSServerHandshakeError
from slack_sdk.errors import SlackApiError

if TYPE_CHECKING:
    from .slack import SlackAdapter

# The CLI shows this logger's INFO lines at the default level: whether the bot is connected is what an operator
# looks for first, and it says so once per connection.
CONNECTION_LOG = logging.getLogger("adapters.slack.connection")
SDK_LOG = logging.getLogger("adapters.slack.socket_mode")  # slack_sdk's Socket Mode client writes here

APP_TOKEN_FIX = ("Fix: turn Socket Mode on for your Slack app, create an app-level token with the connections:write "
                 "scope (Basic Information, App-Level Tokens) and set SLACK_APP_TOKEN to it (xapp-...).")
BOT_TOKEN_FIX = ("Fix: install the app to the workspace again and set SLACK_BOT_TOKEN to its Bot User OAuth Token "
                 "(xoxb-..., OAuth & Permissions page).")
REFUSED = {"invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive",
           "not_allowed_token_type", "missing_scope"}


def failed_attempt(exc: BaseException) -> str:
    """Why a connection attempt failed and what to change, in one line (no token in it)."""
    if isinstance(exc, SlackApiError):
        error = str(exc.response.get("error") or f"HTTP {exc.response.status_code}")
        if error in REFUSED:
            return f"Slack refused SLACK_APP_TOKEN ({error}). {APP_TOKEN_FIX}"
        return f"apps.connections.open answered {error}. {APP_TOKEN_FIX}"
    if isinstance(exc, WSServerHandshakeError):  # before ClientError: it is one, but Slack did answer
        return f"Slack refused the Socket Mode WebSocket (HTTP {exc.status}). {APP_TOKEN_FIX}"
    if isinstance(exc, ClientError | OSError | TimeoutError):
        what = (str(exc).strip().splitlines() or [""])[0][:200]
        return (f"cannot reach Slack ({exc.__class__.__name__}: {what}). Fix: check the network, the proxy "
                "(HTTPS_PROXY) and SLACK_API_BASE_URL.")
    return f"{exc.__class__.__name__}: {(str(exc).splitlines() or [''])[0][:200]} (docbot --debug shows the traceback)"


class _OneLinePerAttempt(logging.Filter):
    """slack_sdk's error records as one line each; its "Failed to retrieve WSS URL" record, which repeats
    the attempt's reason over several lines, is dropped. At debug level everything passes as written."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or SDK_LOG.isEnabledFor(logging.DEBUG):
            return True
        message = record.getMessage()
        if message.startswith("Failed to retrieve WSS URL"):
            return False
        exc = record.exc_info[1] if record.exc_info else None
        if message.startswith("Failed to connect") and exc is not None:
            record.msg, record.args = "Slack Socket Mode: connection attempt failed, retrying: %s", (failed_attempt(exc),)
        else:
            record.msg, record.args = "Slack Socket Mode: %s", ((message.splitlines() or [""])[0][:300],)
        record.exc_info, record.exc_text = None, None
        return True


SDK_LOG.addFilter(_OneLinePerAttempt())


def socket_mode_handler(adapter: SlackAdapter, app_token: str, retry_every: float = 10.0) -> Any:
    """Bolt's Socket Mode handler for the adapter's app; `retry_every`: seconds between connection attempts
    (slack_sdk's ping interval, which also paces its keep-alive pings)."""
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

    return AsyncSocketModeHandler(adapter.app, app_token, logger=SDK_LOG, ping_interval=retry_every)


async def connect_socket_mode(adapter: SlackAdapter, handler: Any) -> None:
    """Connect (slack_sdk retries until it is, or until the handler is closed), then say so once."""
    await handler.connect_async()
    if handler.client.closed:
        return
    client = adapter.app.client
    if not client.token:  # installs through OAuth: each workspace's token is in the installation store
        CONNECTION_LOG.info("Slack Socket Mode connected (workspaces installed through OAuth)")
        return
    try:
        me = await client.auth_test()
    except SlackApiError as exc:
        CONNECTION_LOG.error("Slack Socket Mode connected, but Slack refused SLACK_BOT_TOKEN (%s), so no answer can "
                             "be posted. %s", exc.response.get("error"), BOT_TOKEN_FIX)
        return
    except (ClientError, TimeoutError) as exc:  # connected a moment ago: the next call will likely do
        CONNECTION_LOG.warning("Slack Socket Mode connected; auth.test failed (%s)", exc.__class__.__name__)
        return
    CONNECTION_LOG.info("Slack Socket Mode connected: workspace %s (%s) as @%s", me.get("team"), me.get("team_id"),
                        me.get("user"))


async def start_socket_mode(adapter: SlackAdapter, app_token: str) -> Any:
    """Connect over Socket Mode (no public URL needed); returns the handler to close on shutdown."""
    handler = socket_mode_handler(adapter, app_token)
    await connect_socket_mode(adapter, handler)
    return handler
