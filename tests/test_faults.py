"""Faults and bad input: every turn still gets a reply, and what can be stored is stored."""
import asyncio
import json

import pytest

from bot.conversation import SessionKey
from rag.errors import EmbeddingError, SearchIndexError, StorageError
from rag.pipeline import Pipeline

from conftest import build_service

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
    assert await replica_b.stop(KEY, turn.run_id)  # replica B has no such run locally: goes through the database
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


def test_a_pdf_zip_bomb_is_refused_not_inflated():
    import zlib

    from rag.errors import DocumentError
    from rag.loaders import load

    bomb = zlib.compress(b"0" * 120_000_000, 9)  # ~120 MB of text behind a ~120 KB stream
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
               b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(bomb) + bomb + b"\nendstream"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 5\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    with pytest.raises(DocumentError) as info:
        load("bomb.pdf", bytes(out))
    assert "bomb.pdf" in str(info.value)


async def test_secrets_never_reach_the_logs(tmp_path, caplog, handbook_indexer):
    import logging

    from bot.runtime import Runtime
    from bot.settings import Settings

    secrets = {"OPENAI_API_KEY": "sk-livekeylivekeylivekey123", "SLACK_BOT_TOKEN": "xoxb-1111-2222-secretsecret",
               "SLACK_SIGNING_SECRET": "signing-secret-value-42"}
    settings = Settings(_env_file=None, data_dir=tmp_path, OPENAI_BASE_URL="http://127.0.0.1:9/v1",
                        rewrite_timeout=0.5, answer_timeout=0.5, **secrets)
    runtime = Runtime(settings)
    runtime.__dict__["index"] = handbook_indexer.index
    with caplog.at_level(logging.DEBUG):
        logging.getLogger("docbot.test").info("settings: %s", settings)
        key = SessionKey("console", "local", "me", "t")
        await (await runtime.conversations.ask(key, "hi there, my token is xoxb-9999-8888-usersecret", "me")).collect()
        turn = await runtime.conversations.ask(key, "What is Beacon?", "me")  # the LLM is down: fallbacks log
        await turn.collect()
    logged = caplog.text
    assert all(value not in logged for value in secrets.values())
    traces = runtime.store.traces(runtime.store.conversation(*key.__dict__.values()).id)
    assert "xoxb-9999-8888-usersecret" not in traces[0].original


async def test_outside_calls_retry_transient_failures_with_one_policy():
    from aiohttp import web
    from aiohttp.test_utils import TestServer

    from rag.lookups import HttpJsonLookup
    from rag.resilience import RetryPolicy

    answers = [503, 200]

    async def status(request):
        code = answers.pop(0)
        return web.json_response({"state": "green"} if code == 200 else {}, status=code)

    app = web.Application()
    app.router.add_get("/s", status)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        policy = RetryPolicy(attempts=3, base_wait=0.01, max_wait=0.05)
        lookup = HttpJsonLookup("build", str(server.make_url("/s")), ["build"], "state", "Build is {value}",
                                policy=policy)
        assert await lookup.run() == "Build is green" and answers == []
        answers.extend([404])
        import aiohttp

        with pytest.raises(aiohttp.ClientResponseError):  # a 404 is not transient: no retry
            await lookup.run()
        assert answers == []
    finally:
        await server.close()


async def test_llm_endpoint_down_still_answers_from_the_documents(tmp_path, handbook_indexer):
    from bot.runtime import Runtime
    from bot.settings import Settings

    settings = Settings(_env_file=None, data_dir=tmp_path, OPENAI_BASE_URL="http://127.0.0.1:9/v1",
                        OPENAI_API_KEY="sk-test", rewrite_timeout=1, answer_timeout=1, retry_attempts=1)
    runtime = Runtime(settings)
    runtime.__dict__["index"] = handbook_indexer.index
    key = SessionKey("console", "local", "me", "llm-down")
    await (await runtime.conversations.ask(key, "연차는 1년에 며칠이야?", "me")).collect()
    turn = await runtime.conversations.ask(key, "남은 건 이월돼?", "me")  # rewrite and answer calls both fail
    answer = await turn.collect()
    assert turn.prepared.rewrite.method == "fallback" and "이월" in answer and "[1]" in answer
    assert turn.status == "complete"


def test_an_enormous_file_is_reported_not_loaded():
    from rag.errors import DocumentError
    from rag.loaders import MAX_FILE_BYTES, load

    with pytest.raises(DocumentError, match="limit"):
        load("dump.txt", b"a" * (MAX_FILE_BYTES + 1))
