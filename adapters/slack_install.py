"""Slack's OAuth install flow for multi-workspace use: slack_sdk's SQLAlchemy installation and state
stores, in docbot's own database, behind Bolt's async OAuth settings.

slack_sdk's async SQLAlchemy stores need an async driver; docbot's database is synchronous (SQLite
or psycopg), so the sync stores run on worker threads behind the async interfaces Bolt calls.
With an installation store, Bolt finds each workspace's (or Enterprise org's) bot token per
request; the single-token mode (SLACK_BOT_TOKEN) stays for one workspace. A workspace removing docbot
(tokens revoked, app uninstalled) takes its stored installation with it.
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.oauth.async_oauth_flow import AsyncOAuthFlow
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

log = logging.getLogger(__name__)

# What docbot asks a workspace for (deploy/slack-manifest.yaml lists the same).
SCOPES = ["app_mentions:read", "assistant:write", "channels:history", "chat:write", "commands", "groups:history",
          "im:history", "im:read", "im:write", "mpim:history"]


@dataclass(frozen=True)
class OAuthConfig:
    """The app's credentials and where the install pages live."""

    client_id: str
    client_secret: str
    scopes: list[str] = field(default_factory=lambda: list(SCOPES))
    install_path: str = "/slack/install"
    redirect_path: str = "/slack/oauth_redirect"
    state_seconds: int = 600


class ThreadedInstallationStore(AsyncInstallationStore):
    """slack_sdk's SQLAlchemy installation store, called on a worker thread."""

    def __init__(self, store: SQLAlchemyInstallationStore):
        self.store = store

    @property
    def logger(self):
        return self.store.logger

    async def async_save(self, installation: Installation):
        await asyncio.to_thread(self.store.save, installation)

    async def async_save_bot(self, bot: Bot):
        await asyncio.to_thread(self.store.save_bot, bot)

    async def async_find_bot(self, *, enterprise_id: str | None, team_id: str | None,
                             is_enterprise_install: bool | None = False) -> Bot | None:
        return await asyncio.to_thread(self.store.find_bot, enterprise_id=enterprise_id, team_id=team_id,
                                       is_enterprise_install=is_enterprise_install)

    async def async_find_installation(self, *, enterprise_id: str | None, team_id: str | None,
                                      user_id: str | None = None,
                                      is_enterprise_install: bool | None = False) -> Installation | None:
        return await asyncio.to_thread(self.store.find_installation, enterprise_id=enterprise_id, team_id=team_id,
                                       user_id=user_id, is_enterprise_install=is_enterprise_install)

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await asyncio.to_thread(self.store.delete_bot, enterprise_id=enterprise_id, team_id=team_id)

    async def async_delete_installation(self, *, enterprise_id: str | None, team_id: str | None,
                                        user_id: str | None = None) -> None:
        await asyncio.to_thread(self.store.delete_installation, enterprise_id=enterprise_id, team_id=team_id,
                                user_id=user_id)


class ThreadedStateStore(AsyncOAuthStateStore):
    """slack_sdk's SQLAlchemy OAuth state store (one-time `state` values), called on a worker thread."""

    def __init__(self, store: SQLAlchemyOAuthStateStore):
        self.store = store

    @property
    def logger(self):
        return self.store.logger

    async def async_issue(self, *args: Any, **kwargs: Any) -> str:
        return await asyncio.to_thread(self.store.issue, *args, **kwargs)

    async def async_consume(self, state: str) -> bool:
        return await asyncio.to_thread(self.store.consume, state)


def oauth_settings(config: OAuthConfig, engine) -> AsyncOAuthSettings:
    """Bolt's OAuth settings with both stores in docbot's database; their tables come with its schema (the
    store's migrations, bot/migrations/versions/0005_slack_oauth.py), not from slack_sdk's `create_all`."""
    installations = SQLAlchemyInstallationStore(client_id=config.client_id, engine=engine)
    states = SQLAlchemyOAuthStateStore(expiration_seconds=config.state_seconds, engine=engine)
    return AsyncOAuthSettings(
        client_id=config.client_id, client_secret=config.client_secret, scopes=config.scopes,
        installation_store=ThreadedInstallationStore(installations), state_store=ThreadedStateStore(states),
        install_path=config.install_path, redirect_uri_path=config.redirect_path,
        install_page_rendering_enabled=False)


def mount_install_pages(web_app: web.Application, flow: AsyncOAuthFlow) -> None:
    """Serve the install pages on the docbot server."""

    async def install(request: web.Request) -> web.Response:
        """Start an install: Slack's authorize page, with a one-time state."""
        return await to_aiohttp_response(await flow.handle_installation(await to_bolt_request(request)))

    async def installed(request: web.Request) -> web.Response:
        """Slack sends the installer back here: the code becomes this workspace's token, stored."""
        return await to_aiohttp_response(await flow.handle_callback(await to_bolt_request(request)))

    web_app.router.add_get(flow.install_path, install)
    web_app.router.add_get(flow.redirect_uri_path, installed)


async def tokens_revoked(store: AsyncInstallationStore | None, event: dict, context) -> None:
    """Slack revoked tokens (api.slack.com/events/tokens_revoked): the event names user ids, not tokens.
    A revoked bot token takes every installation row of the team with it, since each row stores the bot
    token too (slack_sdk's installations table) and docbot acts only as its bot; revoked user tokens go
    with their users' rows."""
    tokens = event.get("tokens") or {}
    enterprise, team = installed_as(context)
    if store is None:  # one workspace, one configured token: nothing stored, the operator must act
        log.error("Slack revoked docbot's tokens for team %s (%s): reinstall the app and update SLACK_BOT_TOKEN",
                  team, ", ".join(sorted(tokens)))
        return
    for user in tokens.get("oauth") or []:
        await store.async_delete_installation(enterprise_id=enterprise, team_id=team, user_id=user)
    if tokens.get("bot"):
        await store.async_delete_all(enterprise_id=enterprise, team_id=team)
    log.warning("Slack revoked tokens of team %s: %s deleted", team, ", ".join(sorted(tokens)) or "nothing")


async def app_uninstalled(store: AsyncInstallationStore | None, context) -> None:
    """The workspace uninstalled docbot (api.slack.com/events/app_uninstalled): its installation goes,
    bot and user tokens alike. Slack does not order this against tokens_revoked; either one suffices."""
    enterprise, team = installed_as(context)
    if store is None:
        log.error("docbot was uninstalled from team %s: SLACK_BOT_TOKEN no longer works", team)
        return
    await store.async_delete_all(enterprise_id=enterprise, team_id=team)
    log.warning("docbot was uninstalled from team %s: its installation was deleted", team)


def installed_as(context) -> tuple[str | None, str | None]:
    """(enterprise, team) as the installation store keys an install: an org-wide install has no team."""
    if context.is_enterprise_install:
        return context.enterprise_id, None
    return context.enterprise_id, context.team_id
