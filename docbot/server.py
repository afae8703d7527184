"""The HTTP server of `docbot serve`: health endpoints now, chat adapters mount here."""
from __future__ import annotations

import asyncio
import hmac
import logging
import threading
import time

from aiohttp import web

from bot.observability import CONTENT_TYPE_LATEST
from rag.errors import ConfigurationError

from .runtime import Runtime

RUNTIME = web.AppKey("runtime", Runtime)
WARM = web.AppKey("warm", asyncio.Event)  # set once the models a first turn needs are loaded
METRICS_TOKEN = web.AppKey("metrics_token", str)

log = logging.getLogger(__name__)


async def healthz(request: web.Request) -> web.Response:
    """Liveness: the process answers."""
    return web.json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """Readiness: the conversation database and the search backend answer (503 naming which part does not).

    The body says only which part is unavailable: exception texts carry hosts, ports and database
    names, so they go to the log, not to whoever can reach the port.
    """
    runtime = request.app[RUNTIME]
    checks: dict[str, str] = {}
    if not request.app[WARM].is_set():  # a question now would wait for the models to load
        checks["models"] = "loading"
    for name, probe in (("database", lambda: runtime.store.ping()), ("search", lambda: runtime.index.stats())):
        try:
            await asyncio.wait_for(asyncio.to_thread(probe), 5)
            checks[name] = "ok"
        except Exception as exc:  # any failure means not ready (building the store included)
            log.warning("readiness: %s unavailable: %s: %s", name, exc.__class__.__name__, exc)
            checks[name] = "unavailable"
    ready = all(v == "ok" for v in checks.values())
    return web.json_response({"status": "ready" if ready else "not ready", **checks}, status=200 if ready else 503)


async def _warm_up(app: web.Application):
    """Load the models and the index snapshot a first turn needs while the server starts, on a thread of
    its own: the event loop keeps answering /healthz, and /readyz says ready only once they are loaded, so
    no user's first question pays for (or stalls everyone behind) the loading. The thread is a daemon: a
    SIGTERM during the load does not wait for it."""
    runtime, warm = app[RUNTIME], app[WARM]
    loop = asyncio.get_running_loop()

    def load() -> None:
        started = time.monotonic()
        try:
            runtime.warm_up()
            log.info("models loaded in %.1f s; ready", time.monotonic() - started)
        except Exception:  # a broken part shows in /readyz and in the first turn's apology, not here
            log.exception("warm-up failed; the first question will load what is missing")
        finally:
            try:
                loop.call_soon_threadsafe(warm.set)
            except RuntimeError:  # the server stopped while this loaded
                pass

    threading.Thread(target=load, name="docbot-warm-up", daemon=True).start()
    yield


async def metrics(request: web.Request) -> web.Response:
    """Prometheus metrics; behind a bearer token when DOCBOT_METRICS_TOKEN is set."""
    token = request.app[METRICS_TOKEN]
    if token:
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return web.json_response({"error": "unauthorized"}, status=401,
                                     headers={"WWW-Authenticate": 'Bearer realm="metrics"'})
    body = request.app[RUNTIME].metrics.render()
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


async def _scheduler(app: web.Application):
    """Start the re-index jobs with the server and stop them with it."""
    from bot.scheduler import start_scheduler

    runtime = app[RUNTIME]
    s = runtime.settings
    filler = runtime.sentence_filler  # the second pass: sentence vectors while the server is idle
    if filler is not None:
        filler.start()
    scheduler = start_scheduler(runtime.index_job, s.index_schedule, s.index_full_schedule,
                                on_start=s.index_on_start, after=filler.kick if filler is not None else None) \
        if (s.index_schedule or s.index_full_schedule or s.index_on_start) else None
    yield
    if filler is not None:
        await asyncio.to_thread(filler.stop)
    runtime.index_job.stop()  # a run in progress stops before its next slice instead of holding shutdown up
    # ...and records itself as stopped before the runtime (its store and index) is closed under it.
    if not await asyncio.to_thread(runtime.index_job.wait_idle, SHUTDOWN_INDEX_WAIT):
        log.warning("shutdown: the index run did not stop within %.0f s; it will be marked abandoned",
                    SHUTDOWN_INDEX_WAIT)
    if scheduler is not None:
        scheduler.shutdown(wait=False)


SHUTDOWN_INDEX_WAIT = 60.0  # seconds shutdown waits for a stopping index run (one slice of chunks)
SPILL_SWEEP_SECONDS = 5.0  # how often turns waiting for the database are offered to it again
SIGHTINGS_KEPT = 7 * 86400.0  # seconds a delivery id is remembered (Slack and Teams retry within minutes)


async def _turns(app: web.Application):
    """Answers left `streaming` by a killed process are marked interrupted (now and each minute); on
    shutdown every running answer is stopped and stored within a few seconds, not left to time out."""
    service = app[RUNTIME].conversations

    async def sweep() -> None:
        swept = 0.0
        while True:
            try:
                await service.store_waiting()  # turns kept while the database was down, written when it is back
                if time.monotonic() - swept >= 60:
                    await service.store.call(service.interrupt_stale)
                    await service.store.call(service.store.forget_sightings, SIGHTINGS_KEPT)
                    swept = time.monotonic()
            except Exception as exc:  # the database may be down; the next sweep tries again
                log.warning("could not sweep interrupted answers: %s", exc)
            await asyncio.sleep(SPILL_SWEEP_SECONDS if len(service.spill) else 60)

    sweeper = asyncio.create_task(sweep())
    yield
    sweeper.cancel()


async def _drain(app: web.Application) -> None:
    stopped = await app[RUNTIME].conversations.shutdown(timeout=3.0)
    if stopped:
        log.info("shutdown: stopped and stored %d running answer(s)", stopped)


def _mount_slack(app: web.Application, runtime: Runtime) -> None:
    """Slack over HTTP at /slack/events, plus Socket Mode when an app-level token is set."""
    from adapters.slack import SlackAdapter, start_socket_mode
    from adapters.slack_install import OAuthConfig

    s = runtime.settings
    if not s.slack_signing_secret and not s.slack_app_token:
        raise ConfigurationError("Slack is configured but neither SLACK_SIGNING_SECRET nor SLACK_APP_TOKEN is set")
    oauth = None
    if s.slack_client_id:
        if not s.slack_client_secret or not s.slack_signing_secret:
            raise ConfigurationError("SLACK_CLIENT_ID needs SLACK_CLIENT_SECRET and SLACK_SIGNING_SECRET (OAuth "
                                     "installs arrive over HTTP)")
        oauth = OAuthConfig(s.slack_client_id, s.slack_client_secret.get_secret_value())
    adapter = SlackAdapter(runtime.conversations,
                           s.slack_bot_token.get_secret_value() if s.slack_bot_token and not oauth else None,
                           s.slack_signing_secret.get_secret_value() if s.slack_signing_secret else "",
                           api_base_url=s.slack_api_base_url, source_url_base=s.source_url_base,
                           update_every=s.slack_update_seconds, streaming=s.slack_streaming,
                           prompts=[p.model_dump() for p in s.slack_suggested_prompts]
                           if s.slack_suggested_prompts is not None else None,
                           retries=runtime.retry_policy.retries, oauth=oauth, engine=runtime.store.engine,
                           timeout=runtime.retry_policy.timeout,
                           read_emails=any(getattr(spec, "permissions", False) for spec in s.sources))
    if s.slack_signing_secret:
        adapter.mount(app)
    if s.slack_app_token:
        async def socket_mode(app: web.Application):
            assert s.slack_app_token is not None
            handler = await start_socket_mode(adapter, s.slack_app_token.get_secret_value())
            yield
            await handler.close_async()

        app.cleanup_ctx.append(socket_mode)


def _mount_teams(app: web.Application, runtime: Runtime) -> None:
    """Teams at /api/messages: JWT-validated with MICROSOFT_APP_ID, anonymous only without one."""
    from adapters.teams import TeamsAdapter

    s = runtime.settings
    if s.microsoft_app_id and not s.microsoft_app_password:
        raise ConfigurationError("MICROSOFT_APP_ID is set but MICROSOFT_APP_PASSWORD is not")
    TeamsAdapter(runtime.conversations, app_id=s.microsoft_app_id,
                 app_password=s.microsoft_app_password.get_secret_value() if s.microsoft_app_password else None,
                 tenant_id=s.microsoft_app_tenant_id, update_every=s.slack_update_seconds,
                 source_url_base=s.source_url_base, policy=runtime.retry_policy,
                 service_url_hosts=tuple(s.teams_service_url_hosts) if s.teams_service_url_hosts else None,
                 read_emails=any(getattr(spec, "permissions", False) for spec in s.sources)).mount(app)


def make_app(runtime: Runtime, *, schedule: bool = True, warm_up: bool = True) -> web.Application:
    """The aiohttp application: health, the chat adapters that are configured, the index scheduler, and
    the models loaded behind the start (`warm_up=False`: whoever built `runtime` loaded them)."""
    app = web.Application(client_max_size=2 * 1024 * 1024)
    app[RUNTIME] = runtime
    app[WARM] = asyncio.Event()
    if warm_up:
        app.cleanup_ctx.append(_warm_up)
    else:
        app[WARM].set()
    token = runtime.settings.metrics_token
    app[METRICS_TOKEN] = token.get_secret_value() if token else ""
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
    if runtime.settings.slack_configured:
        _mount_slack(app, runtime)
    if runtime.settings.teams_configured:
        _mount_teams(app, runtime)
    if schedule:
        app.cleanup_ctx.append(_scheduler)
    if runtime.settings.chat_platform_configured:
        app.cleanup_ctx.append(_turns)
        app.on_shutdown.append(_drain)
    return app
