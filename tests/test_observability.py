"""Health, readiness, metrics and structured logs."""
import io
import json
import logging

from aiohttp.test_utils import TestClient, TestServer

from bot.observability import RUN_ID, SESSION_ID, make_handler
from docbot.runtime import Runtime
from docbot.server import make_app
from docbot.settings import Settings


async def _client(settings) -> TestClient:
    client = TestClient(TestServer(make_app(Runtime(settings), schedule=False, warm_up=False), host="127.0.0.1"))
    await client.start_server()
    return client


async def test_readyz_and_metrics(tmp_path):
    client = await _client(Settings(_env_file=None, data_dir=tmp_path))
    try:
        ready = await client.get("/readyz")
        assert ready.status == 200 and (await ready.json())["database"] == "ok"
        metrics = await client.get("/metrics")
        text = await metrics.text()
        assert metrics.status == 200 and "docbot_active_turns" in text and "docbot_turn_stage_seconds" in text
    finally:
        await client.close()


async def test_readyz_names_the_part_that_is_down_but_no_host_or_database(tmp_path, caplog):
    """The real store against a database that is not there (not a stub): a 503 naming the part, with
    no host, port or database name for whoever can reach the port; the detail goes to the log."""
    settings = Settings(_env_file=None, data_dir=tmp_path,
                        database_url="postgresql://nobody@127.0.0.1:9/secretdb?connect_timeout=1")
    client = await _client(settings)
    try:
        response = await client.get("/readyz")
        body = await response.json()
        assert response.status == 503 and body["search"] == "ok" and body["database"] == "unavailable"
        assert "127.0.0.1" not in await response.text() and "secretdb" not in await response.text()
        assert "secretdb" in caplog.text or "127.0.0.1" in caplog.text  # the operator still learns why
    finally:
        await client.close()


async def test_metrics_can_require_a_bearer_token(tmp_path):
    client = await _client(Settings(_env_file=None, data_dir=tmp_path, metrics_token="s3cret"))
    try:
        assert (await client.get("/metrics")).status == 401
        assert (await client.get("/metrics", headers={"Authorization": "Bearer wrong"})).status == 401
        ok = await client.get("/metrics", headers={"Authorization": "Bearer s3cret"})
        assert ok.status == 200 and "docbot_active_turns" in await ok.text()
        assert (await client.get("/healthz")).status == 200  # liveness stays open for the orchestrator
    finally:
        await client.close()


def test_serve_binds_loopback_unless_told_otherwise(monkeypatch):
    monkeypatch.delenv("DOCBOT_HOST", raising=False)
    assert Settings(_env_file=None).host == "127.0.0.1"


def test_json_logs_carry_session_and_run_ids():
    stream = io.StringIO()
    logger = logging.getLogger("docbot.test.json")
    logger.handlers[:] = [make_handler(json_logs=True, stream=stream)]
    logger.propagate = False
    SESSION_ID.set("slack:C1:1.2")
    RUN_ID.set("abc123")
    logger.warning("stage %s failed", "retrieve")
    line = json.loads(stream.getvalue())
    assert line["message"] == "stage retrieve failed" and line["session_id"] == "slack:C1:1.2"
    assert line["run_id"] == "abc123" and line["level"] == "WARNING"


async def test_models_load_behind_the_start_off_the_loop_and_readyz_waits_for_them(tmp_path):
    """Issue 30 item 9: the first question used to load the models and /healthz stalled for 36 s. Now the
    server loads them as it starts, on a worker thread: liveness answers meanwhile, readiness waits."""
    import asyncio
    import threading

    runtime = Runtime(Settings(_env_file=None, data_dir=tmp_path))
    loading, release, threads = threading.Event(), threading.Event(), []

    def slow_warm_up() -> None:  # a model load that takes as long as the test says
        threads.append(threading.get_ident())
        loading.set()
        release.wait(60)

    runtime.warm_up = slow_warm_up  # type: ignore[method-assign]
    client = TestClient(TestServer(make_app(runtime, schedule=False), host="127.0.0.1"))
    await client.start_server()
    try:
        assert await asyncio.to_thread(loading.wait, 60)  # the load started with the server, not with a question
        assert (await client.get("/healthz")).status == 200  # the loop is free while it loads
        waiting = await client.get("/readyz")
        assert waiting.status == 503 and (await waiting.json())["models"] == "loading"
        assert threads and threads[0] != threading.get_ident()
        release.set()
        for _ in range(600):  # until the load's task has finished (each probe is one short request)
            ready = await client.get("/readyz")
            if ready.status == 200:
                break
            await asyncio.sleep(0.05)
        assert ready.status == 200 and "models" not in await ready.json()
    finally:
        release.set()
        await client.close()
