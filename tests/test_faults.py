"""Faults and bad input: every turn still gets a reply, and what can be stored is stored."""
import asyncio
import json

import pytest

from bot.conversation import SessionKey
from rag.errors import EmbeddingError, SearchIndexError, StorageError
from rag.pipeline import Pipeline

from test_conversation import build_service

KEY = SessionKey("slack", "T1", "C1", "1700000000.000100")


@pytest.fixture
def make(handbook_indexer, analyzer, classifier):
    return lambda url: build_service(handbook_indexer, analyzer, classifier, url)


async def test_database_down_still_answers_and_recovers(make, tmp_path, monkeypatch):
    service = make(f"sqlite:///{tmp_path / 'f.sqlite3'}")

    def down(*args, **kwargs):
        raise StorageError("conversation database error: database is locked")

    monkeypatch.setattr(service.store, "conversation", down)
    reply = await (await service.ask(KEY, "What is Beacon?", "u1")).collect()
    assert "Sorry" in reply and service.metrics.errors.labels("storage")._value.get() >= 1
    monkeypatch.undo()  # the database is back
    turn = await service.ask(KEY, "What is Beacon?", "u1")
    assert "Beacon" in await turn.collect() and turn.status == "complete"


@pytest.mark.parametrize("error", [SearchIndexError("cluster unreachable"), EmbeddingError("embedding endpoint down")])
async def test_a_dead_dependency_gets_an_apology_and_the_message_is_kept(make, tmp_path, monkeypatch, error):
    service = make(f"sqlite:///{tmp_path / 'd.sqlite3'}")

    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(service.pipeline.retriever, "search", broken)
    reply = await (await service.ask(KEY, "연차는 며칠이야?", "u1")).collect()
    conv = service.store.conversation(*KEY.__dict__.values()).id
    stored = service.store.history(conv, 2)
    assert "죄송" in reply and stored[0].text == "연차는 며칠이야?" and stored[1].text == reply


async def test_binary_and_control_characters_are_answered_and_stored(make, db_url):
    service = make(db_url)
    text = "\x00\x01\x02 \ufffe binary \x7f junk \x00"
    reply = await (await service.ask(KEY, text, "u1")).collect()
    conv = service.store.conversation(*KEY.__dict__.values()).id
    assert reply and [m.role for m in service.store.history(conv, 2)] == ["user", "assistant"]


async def test_stop_clicked_on_another_replica_stops_the_stream(make, db_url, monkeypatch):
    """Two services sharing one database (two `docbot serve` processes): B stops what A streams."""
    replica_a, replica_b = make(db_url), make(db_url)

    async def slow_answer(self, prepared, history):
        for n in range(60):
            await asyncio.sleep(0.05)
            yield f"part {n}. "

    monkeypatch.setattr(Pipeline, "answer", slow_answer)
    turn = await replica_a.ask(KEY, "Tell me everything about on-call", "u1")
    consuming = asyncio.create_task(turn.collect())
    await asyncio.sleep(0.4)
    assert replica_b.stop(KEY, turn.run_id)  # replica B has no such run locally: goes through the database
    await consuming
    conv = replica_a.store.conversation(*KEY.__dict__.values()).id
    answer = replica_a.store.history(conv, 1)[0]
    assert turn.status == "cancelled" and answer.status == "cancelled" and answer.text == turn.text
    assert "part 59." not in answer.text and answer.text.startswith("part 0.")


async def test_malformed_platform_payloads_are_refused_cleanly(tmp_path, make):
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    from adapters.slack import SlackAdapter
    from adapters.teams import TeamsAdapter
    from slack_standin import SlackStandIn, signed

    slack = await SlackStandIn().start()
    service = make(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    app = web.Application()
    SlackAdapter(service, "xoxb-test", "secret", api_base_url=slack.base_url).mount(app)
    TeamsAdapter(service).mount(app)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    try:
        garbage = "{not json"
        slack_resp = await client.post("/slack/events", data=garbage,
                                       headers={"Content-Type": "application/json", **signed("secret", garbage)})
        assert slack_resp.status in (400, 404)
        teams_resp = await client.post("/api/messages", data=garbage, headers={"Content-Type": "application/json"})
        assert teams_resp.status == 400
        no_conversation = await client.post("/api/messages", json={"type": "message", "text": "hi"})
        assert no_conversation.status == 400
        assert json.loads(await no_conversation.text())  # a JSON error body, not a stack trace
    finally:
        await client.close()
        await slack.close()
