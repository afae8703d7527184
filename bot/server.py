"""The HTTP server of `docbot serve`: health endpoints now, chat adapters mount here."""
from __future__ import annotations

from aiohttp import web

from .runtime import Runtime

RUNTIME = web.AppKey("runtime", Runtime)


async def healthz(request: web.Request) -> web.Response:
    """Liveness: the process answers."""
    return web.json_response({"status": "ok"})


def make_app(runtime: Runtime) -> web.Application:
    """The aiohttp application with its routes."""
    app = web.Application(client_max_size=2 * 1024 * 1024)
    app[RUNTIME] = runtime
    app.router.add_get("/healthz", healthz)
    return app
