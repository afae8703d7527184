"""Faults and bad input: every turn still gets a reply, and what can be stored is stored."""
import asyncio
import json
import time

import pytest

from bot.controls import Control
from bot.conversation import SessionKey
from rag.errors import EmbeddingError, SearchIndexError, StorageError

from conftest import build_service, slow_answers

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


@pytest.mark.parametrize("error", [SearchIndexError("cluster unreachable"), EmbeddingError("embedding endpoint down"),
                                   IndexError("string index out of range")])  # a bug gets an apology too
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

    slow_answers(monkeypatch, 60)
    turn = await replica_a.ask(KEY, "Tell me everything about on-call", "u1")
    consuming = asyncio.create_task(turn.collect())
    await asyncio.sleep(0.4)
    pressed = await replica_b.press(KEY, Control.STOP, turn.run_id, "u1")  # not held by B: goes through the database
    assert pressed.ok and pressed.status == "stopped"
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
        for not_an_activity in ("[]", '[{"type": "message"}]', "[" * 50_000 + "]" * 50_000, "42"):
            response = await client.post("/api/messages", data=not_an_activity,
                                         headers={"Content-Type": "application/json"})
            assert response.status == 400, not_an_activity[:20]
        nested = "[" * 100_000 + "]" * 100_000
        slack_nested = await client.post("/slack/events", data=nested,
                                         headers={"Content-Type": "application/json", **signed("secret", nested)})
        assert slack_nested.status == 400
        no_conversation = await client.post("/api/messages", json={"type": "message", "text": "hi"})
        assert no_conversation.status == 400
        assert json.loads(await no_conversation.text())  # a JSON error body, not a stack trace
    finally:
        await client.close()
        await slack.close()


def test_a_pdf_zip_bomb_is_refused_not_inflated():
    """~90 MB of real text operators behind a 360 KB stream: refused as a bomb, not read as 'no text'."""
    import zlib

    from rag.errors import DocumentError
    from rag.ingest.loaders import load

    line = b"BT /F1 12 Tf 72 712 Td (" + b"A" * 200 + b") Tj ET\n"
    bomb = zlib.compress(line * 400_000, 9)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(bomb) + bomb + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 6\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    with pytest.raises(DocumentError) as info:
        load("bomb.pdf", bytes(out))
    assert info.value.path == "bomb.pdf" and "decompression limit" in info.value.reason


async def test_secrets_never_reach_the_logs(tmp_path, caplog, handbook_indexer):
    import logging

    from docbot.runtime import Runtime
    from docbot.settings import Settings

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

    from rag.answer.lookups import HttpJsonLookup
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
    from docbot.runtime import Runtime
    from docbot.settings import Settings

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
    from rag.ingest.loaders import MAX_FILE_BYTES, load

    with pytest.raises(DocumentError, match="limit"):
        load("dump.txt", b"a" * (MAX_FILE_BYTES + 1))


async def test_a_locked_database_never_stalls_the_event_loop(make, tmp_path):
    """Another process holds the SQLite write lock for 2 s: the turn waits for it off the loop, and every
    other coroutine (the /healthz handler, other threads' streams) keeps running."""
    import sqlite3

    path = tmp_path / "locked.sqlite3"
    service = make(f"sqlite:///{path}")
    await (await service.ask(KEY, "What is Beacon?", "u1")).collect()  # warm: tables, model, classifier
    holder = sqlite3.connect(path, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    turn = asyncio.create_task(service.ask(KEY, "What is Beacon?", "u1"))
    # Counted, not timed: while the turn waits for the lock, other coroutines keep running (200 turns of the
    # loop); only then is the lock released. Were the wait on the loop, no tick would run until it ended.
    ticks = 0
    while ticks < 200:
        await asyncio.sleep(0)
        ticks += 1
    assert not turn.done()  # it really was waiting for the lock, off the loop
    holder.rollback()
    holder.close()
    reply = await (await turn).collect()
    assert "Beacon" in reply


async def test_a_streaming_answer_is_saved_as_it_streams_and_interrupted_on_shutdown(make, db_url, monkeypatch):
    service = make(db_url)

    slow_answers(monkeypatch, 100)
    turn = await service.ask(KEY, "Tell me everything about on-call", "u1")
    consuming = asyncio.create_task(turn.collect())
    conv = service.store.conversation(*KEY.__dict__.values()).id

    def saved_while_streaming():  # total: the answer row exists from the start, its text comes with a save
        latest = service.store.history(conv, 1)
        return latest and latest[0].status == "streaming" and latest[0].text

    while not saved_while_streaming():  # the first save, observed (not a second count on a clock)
        assert not consuming.done(), "the answer ended before it was ever saved while streaming"
        await asyncio.sleep(0.05)
    assert service.store.history(conv, 1)[0].text.startswith("part 0.")  # a kill -9 now loses the unsaved rest
    assert await service.shutdown(timeout=3.0) == 1  # SIGTERM: stop and store, do not wait for the end
    await asyncio.wait_for(consuming, 300)  # a guard against a hang
    final = service.store.history(conv, 1)[0]
    assert final.status == "interrupted" and final.text == turn.text and "part 99." not in final.text


async def test_answers_left_streaming_by_a_dead_process_are_marked_interrupted(make, db_url):
    from datetime import datetime, timedelta, timezone

    from bot.storage import Message

    service = make(db_url)
    conv = service.store.conversation(*KEY.__dict__.values()).id
    old = service.store.add(Message(conversation_id=conv, role="assistant", text="half an ans", status="streaming",
                                    created_at=datetime.now(timezone.utc) - timedelta(hours=1)))
    live = service.store.add(Message(conversation_id=conv, role="assistant", text="still going", status="streaming"))
    assert service.interrupt_stale() == 1
    statuses = {m.id: m.status for m in service.store.history(conv, 5)}
    assert statuses[old.id] == "interrupted" and statuses[live.id] == "streaming"


@pytest.mark.postgres
async def test_a_postgres_connection_killed_mid_write_is_retried_once(make, db_url):
    if not db_url.startswith("postgresql"):
        pytest.skip("kills a PostgreSQL backend")
    import psycopg
    from sqlalchemy import event

    service = make(db_url)
    store = service.store
    store.ping()
    killed = []

    @event.listens_for(store.engine, "before_cursor_execute")
    def kill_once(conn, cursor, statement, parameters, context, executemany):
        if not killed and statement.lstrip().upper().startswith(("INSERT", "UPDATE")):
            pid = conn.connection.dbapi_connection.info.backend_pid
            with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            killed.append(pid)

    turn = await service.ask(KEY, "What is Beacon?", "u1")
    reply = await turn.collect()
    assert killed and "Beacon" in reply
    conv = store.conversation(*KEY.__dict__.values()).id
    assert [m.role for m in store.history(conv, 5)] == ["user", "assistant"]  # nothing lost, nothing doubled
    assert store.history(conv, 1)[0].text == reply


async def test_an_llm_answer_cut_mid_stream_is_stored_partial_and_counted(handbook_indexer, analyzer, classifier,
                                                                         tmp_path):
    from rag.answer.answerers import ExtractiveAnswerer, LLMAnswerer
    from rag.models.llm import OpenAIChat

    from openai_standin import OpenAIStandIn, Reply

    llm = await OpenAIStandIn().start()
    try:
        service = build_service(handbook_indexer, analyzer, classifier, f"sqlite:///{tmp_path / 'l.sqlite3'}")
        # The timeout bounds the wait for each piece: the first must arrive within it (on a loaded machine
        # too), the stall after it must end in it.
        service.pipeline.answerer = LLMAnswerer(OpenAIChat("m", "sk-test", llm.base_url, max_retries=0),
                                                ExtractiveAnswerer(analyzer, handbook_indexer.embedder), timeout=5.0)
        llm.script = [Reply(pieces=["Beacon is the ", "never"], stall_after=1)]
        turn = await service.ask(KEY, "What is Beacon?", "u1")
        reply = await turn.collect()
        conv = service.store.conversation(*KEY.__dict__.values()).id
        stored = service.store.history(conv, 1)[0]
        assert reply.startswith("Beacon is the ") and "Sorry" in reply
        assert stored.status == "partial" and stored.text == reply
        assert service.metrics.errors.labels("llm")._value.get() == 1
    finally:
        await llm.close()


async def test_console_input_that_is_not_utf8_is_read_not_fatal(make, tmp_path):
    import io

    from adapters.console import ConsoleChat

    service = make(f"sqlite:///{tmp_path / 'c.sqlite3'}")
    lines = io.TextIOWrapper(io.BytesIO(b"What is \xff\xfe Beacon?\n/quit\n"), encoding="utf-8")
    out = io.StringIO()
    from rich.console import Console

    await ConsoleChat(service, out=Console(file=out, width=120)).run(lines)
    assert "Beacon" in out.getvalue()


def test_sigterm_drains_even_mid_index(tmp_path):
    """`docbot serve` indexing the handbook at start-up (tens of seconds of embedding) is told to stop: it
    stops between files instead of finishing, and the index run is recorded as stopped, to resume next time."""
    import os
    import shutil
    import signal
    import socket
    import subprocess
    import sys
    import urllib.request

    from bot.storage import Store

    from conftest import HANDBOOK

    docs = tmp_path / "docs"
    shutil.copytree(HANDBOOK, docs)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "DOCBOT_DATA_DIR": str(tmp_path / "data"), "DOCBOT_DOCS": json.dumps([str(docs)]),
           "DOCBOT_PORT": str(port), "DOCBOT_INDEX_ON_START": "true", "DOCBOT_INDEX_SCHEDULE": ""}
    server = subprocess.Popen([sys.executable, "-c", "from docbot.cli import main; main()", "serve"], env=env,
                              cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        store = None
        for _ in range(1200):  # polls every 0.5 s until the start-up index run is under way (a hang guard)
            time.sleep(0.5)
            assert server.poll() is None, server.stderr.read().decode()[-2000:]
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                store = store or Store(f"sqlite:///{tmp_path / 'data' / 'docbot.sqlite3'}")
                if store.runs(1) and store.runs(1)[0].status == "running":
                    break
            except OSError:
                continue
        server.send_signal(signal.SIGTERM)  # the run is under way: it must stop between files
        server.wait(timeout=600)  # a guard against a hang; how soon it stops is counted below, not timed
    finally:
        if server.poll() is None:
            server.kill()
    run = store.runs(1)[0]
    assert run.status == "stopped" and "shutting down" in run.errors[0][1], (run.status, run.errors[:3])
    # The stop was seen between files, not after the whole handbook: fewer files were indexed than it holds.
    handbook = len([p for p in docs.rglob("*") if p.is_file() and not p.name.startswith((".", "_"))])
    assert run.added + run.updated + run.unchanged < handbook, (run.added, handbook)
