"""Health, readiness, metrics and structured logs."""
import io
import json
import logging

from aiohttp.test_utils import TestClient, TestServer

from bot.observability import RUN_ID, SESSION_ID, make_handler
from bot.runtime import Runtime
from bot.server import make_app
from bot.settings import Settings


async def _client(settings) -> TestClient:
    client = TestClient(TestServer(make_app(Runtime(settings), schedule=False), host="127.0.0.1"))
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


async def test_readyz_names_the_part_that_is_down(tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path,
                        database_url="postgresql://nobody@127.0.0.1:9/none?connect_timeout=1")
    runtime = Runtime(settings)
    runtime.__dict__["store"] = _DownStore()
    client = TestClient(TestServer(make_app(runtime, schedule=False), host="127.0.0.1"))
    await client.start_server()
    try:
        response = await client.get("/readyz")
        body = await response.json()
        assert response.status == 503 and body["search"] == "ok" and "StorageError" in body["database"]
    finally:
        await client.close()


class _DownStore:
    """A store whose database does not answer, as ping() reports it."""

    def ping(self):
        from rag.errors import StorageError

        raise StorageError("conversation database error: connection refused")


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
