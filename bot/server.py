"""The HTTP server of `docbot serve`: health endpoints now, chat adapters mount here."""
from __future__ import annotations

from aiohttp import web

from .runtime import Runtime

RUNTIME = web.AppKey("runtime", Runtime)


async def healthz(request: web.Request) -> web.Response:
    """Liveness: the process answers."""
    return web.json_response({"status": "ok"})


async def _scheduler(app: web.Application):
    """Start the re-index jobs with the server and stop them with it."""
    from .scheduler import start_scheduler

    runtime = app[RUNTIME]
    s = runtime.settings
    scheduler = start_scheduler(runtime.index_job, s.index_schedule, s.index_full_schedule) \
        if (s.index_schedule or s.index_full_schedule) else None
    yield
    if scheduler is not None:
        scheduler.shutdown(wait=False)


def make_app(runtime: Runtime, *, schedule: bool = True) -> web.Application:
    """The aiohttp application with its routes (and the index scheduler unless told otherwise)."""
    app = web.Application(client_max_size=2 * 1024 * 1024)
    app[RUNTIME] = runtime
    app.router.add_get("/healthz", healthz)
    if schedule:
        app.cleanup_ctx.append(_scheduler)
    return app
