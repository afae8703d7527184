"""Nothing lost under load and faults (issue 30): real SQLite and PostgreSQL, real failures injected at
the driver's edge (backends terminated, acknowledgements lost, a full database file)."""
from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import event, func
from sqlmodel import Session, select

from bot.conversation import ConversationService, SessionKey
from bot.storage import Message, SeenEvent, Store
from rag.errors import StorageError

from conftest import postgres_schema

ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
KEY = SessionKey("slack", "T1", "C1", "1700000000.000100")


@pytest.fixture
def pg_url():
    yield from postgres_schema()


def _rows(store: Store, model, *where) -> int:
    with Session(store.engine) as session:
        return session.exec(select(func.count()).select_from(model).where(*where)).one()


# --- item 6: SQLite under many concurrent threads -------------------------------------------------------

def test_sqlite_writes_take_turns_inside_the_process(tmp_path):
    """SQLite's busy wait is not fair: store threads racing for its write lock can starve one of them until
    "database is locked". The store's threads take turns instead: never two write transactions open."""
    store = Store(f"sqlite:///{tmp_path / 'w.sqlite3'}", workers=8)
    open_writes, most = set(), [0]
    mutex = threading.Lock()

    @event.listens_for(store.engine, "before_cursor_execute")
    def writing(conn, cursor, statement, *args):
        if statement.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            with mutex:
                open_writes.add(id(conn.connection.dbapi_connection))
                most[0] = max(most[0], len(open_writes))

    @event.listens_for(store.engine, "commit")
    @event.listens_for(store.engine, "rollback")
    def ended(conn):
        with mutex:
            open_writes.discard(id(conn.connection.dbapi_connection))

    def thread(n: int) -> None:
        conv = store.conversation("slack", "T1", "C1", f"t{n}")
        for turn in range(3):
            question = store.add(Message(conversation_id=conv.id, role="user", text=f"q{turn}"))
            store.update(question.id, intent="knowledge_search")
            assert store.first_sighting(f"ev{n}.{turn}")

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(thread, range(48)))
    assert _rows(store, Message) == 48 * 3
    assert most[0] == 1


def test_docbot_keeps_taking_part_in_its_thread_when_the_database_fails(tmp_path, monkeypatch):
    """A follow-up in a thread docbot answered must not be ignored because the database was busy."""
    store = Store(f"sqlite:///{tmp_path / 'p.sqlite3'}")
    store.conversation(KEY.platform, KEY.tenant, KEY.channel, KEY.thread)  # docbot answered in this thread
    service = ConversationService(store, pipeline=None)  # type: ignore[arg-type]  # no turn is run here

    def locked(*args, **kwargs):
        raise StorageError("conversation database error: (sqlite3.OperationalError) database is locked")

    monkeypatch.setattr(store, "find_conversation", locked)

    async def check() -> tuple[bool, bool]:
        other = SessionKey("slack", "T1", "C1", "1700000000.000999")
        return await service.takes_part(KEY), await service.takes_part(other)

    import asyncio

    assert asyncio.run(check()) == (True, False)  # its own thread: yes; a thread it never saw: no


# --- item 7: PostgreSQL connections killed under the calls -----------------------------------------------

def _terminate(dbapi_connection) -> None:
    """End this connection's server process, as an operator's pg_terminate_backend or a failover does."""
    import psycopg

    raw = getattr(dbapi_connection, "dbapi_connection", dbapi_connection)  # under SQLAlchemy's pool proxy
    pid = raw.info.backend_pid
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])


@pytest.mark.postgres
def test_repeated_connection_kills_are_retried_until_the_insert_lands(pg_url):
    """Three kills in a row under one insert (one retry was not enough in the kill storm)."""
    store = Store(pg_url)
    conv = store.conversation("slack", "T1", "C1", "kill")
    kills = [3]

    @event.listens_for(store.engine, "before_cursor_execute")
    def kill(conn, cursor, statement, *args):
        if statement.startswith("INSERT INTO message") and kills[0]:
            kills[0] -= 1
            _terminate(conn.connection.dbapi_connection)

    stored = store.add(Message(conversation_id=conv.id, role="user", text="연차는 며칠이야?", run_id="r1"))
    assert kills == [0] and stored.id is not None
    assert _rows(store, Message, Message.run_id == "r1") == 1


@pytest.mark.postgres
def test_a_retried_insert_whose_commit_landed_is_not_doubled(pg_url):
    """The connection dies after the server committed but before docbot heard so (the README's known
    window): the retry finds the row instead of inserting it again. Same for a delivery id: the retry
    knows the row is its own, so the event is not taken for a redelivery and dropped."""
    import psycopg

    store = Store(pg_url)
    conv = store.conversation("slack", "T1", "C1", "ack")
    losses = [1]
    commit = store.engine.dialect.do_commit

    def do_commit(dbapi_connection):
        commit(dbapi_connection)  # the server has it
        if losses[0]:
            losses[0] -= 1
            _terminate(dbapi_connection)
            getattr(dbapi_connection, "dbapi_connection", dbapi_connection).close()
            raise psycopg.OperationalError("server closed the connection unexpectedly")

    store.engine.dialect.do_commit = do_commit  # type: ignore[method-assign]
    stored = store.add(Message(conversation_id=conv.id, role="user", text="and the per diem?", run_id="r2"))
    assert losses == [0] and stored.id is not None
    assert _rows(store, Message, Message.run_id == "r2") == 1
    losses[0] = 1
    assert store.first_sighting("slack:Ev42") is True  # its own row, found on the retry
    assert _rows(store, SeenEvent, SeenEvent.id == "slack:Ev42") == 1
    assert store.first_sighting("slack:Ev42") is False  # a real redelivery is still a duplicate


# --- item 8: the database file cannot grow (disk full) ------------------------------------------------------

def _cap_growth(engine, capped: bool) -> None:
    """SQLite's own "database or disk is full": the file may not grow past its current size
    (PRAGMA max_page_count on every connection; existing connections are closed so new ones get it)."""
    from sqlalchemy import text

    if capped:
        with engine.connect() as conn:
            pages = conn.execute(text("PRAGMA page_count")).scalar()

        def cap(dbapi_connection, _record):
            dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")

        engine.info = {"cap": cap}
        event.listen(engine, "connect", cap)
    else:
        event.remove(engine, "connect", engine.info.pop("cap"))
    engine.dispose()


@pytest.fixture
def glossary_service(tmp_path, analyzer, embedder, classifier):
    """The conversation service over a one-file index (the handbook's glossary): real parts, indexed fast."""
    from conftest import HANDBOOK, service_over

    return service_over(tmp_path, analyzer, embedder, classifier,
                        {"glossary.txt": (HANDBOOK / "glossary.txt").read_text(encoding="utf-8")})


async def test_turns_answered_while_the_disk_is_full_are_stored_when_it_recovers(glossary_service):
    service = glossary_service
    _cap_growth(service.store.engine, True)
    shown = {}
    for n in range(3):  # long pastes: each needs pages the file cannot get
        key = SessionKey("slack", "T1", "C1", f"1700000000.00010{n}")
        text = f"Beacon이 뭐야? ({n}) 로그: " + "ERROR gateway timeout after 30s; " * 600
        turn = await service.ask(key, text, "u1")
        shown[text] = await turn.collect()
        assert shown[text]  # answered (an apology at worst)
    assert _rows(service.store, Message) == 0  # nothing could be stored...
    assert len(service.spill) == 3 and b"docbot_spilled_turns 3.0" in service.metrics.render()  # ...it waits
    _cap_growth(service.store.engine, False)  # space again
    assert await service.store_waiting() == 3
    assert len(service.spill) == 0 and b"docbot_spilled_turns 0.0" in service.metrics.render()
    with Session(service.store.engine) as session:
        rows = session.exec(select(Message).order_by(Message.id)).all()
    questions = [m for m in rows if m.role == "user"]
    assert [m.text for m in questions] == list(shown)
    answers = {m.run_id: m for m in rows if m.role == "assistant"}
    assert [answers[q.run_id].text for q in questions] == list(shown.values())  # what was shown is stored
    assert await service.store_waiting() == 0  # written once


# --- item 1: malformed or unsigned Slack requests ------------------------------------------------------------

@pytest.fixture
async def slack_app(tmp_path):
    """The real SlackAdapter (slack-bolt) on aiohttp, against the Slack stand-in; no turn is answered here."""
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    from adapters.slack import SlackAdapter

    from slack_standin import SlackStandIn

    slack = await SlackStandIn().start()
    service = ConversationService(Store(f"sqlite:///{tmp_path / 's.sqlite3'}"), pipeline=None)  # type: ignore[arg-type]
    app = web.Application()
    SlackAdapter(service, "xoxb-test", "secret", api_base_url=slack.base_url).mount(app)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    yield client
    await client.close()
    await slack.close()


def _event(event) -> str:
    import json

    return json.dumps({"token": "t", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
                       "event_id": "Ev1", "event_time": 1, "event": event})


SIGNED_MALFORMED = [  # (content type, body): each signed correctly, none of them a request Slack sends
    ("application/json", "[]"),
    ("application/json", "null"),
    ("application/json", "42"),
    ("application/json", '"a string"'),
    ("application/x-www-form-urlencoded", "payload=%5B1%5D"),  # payload=[1]
    ("application/x-www-form-urlencoded", "payload=null"),
    ("application/json", _event([{"type": "app_mention", "text": "hi"}])),  # an event that is a list
    ("application/json", _event("app_mention")),
]


@pytest.mark.parametrize("content_type,body", SIGNED_MALFORMED)
async def test_a_signed_malformed_slack_request_is_400_not_500(slack_app, content_type, body):
    from slack_standin import signed

    response = await slack_app.post("/slack/events", data=body,
                                    headers={"Content-Type": content_type, **signed("secret", body)})
    assert response.status == 400, (body, await response.text())


@pytest.mark.parametrize("headers", [
    {"X-Slack-Request-Timestamp": "not-a-number", "X-Slack-Signature": "v0=00"},
    {"X-Slack-Request-Timestamp": "１７００", "X-Slack-Signature": "v0=00"},  # digits, but not ASCII ones
    {"X-Slack-Request-Timestamp": "9" * 400, "X-Slack-Signature": "v0=00"},
    {"X-Slack-Signature": "v0=00"},
    {},
])
@pytest.mark.parametrize("body", ["[]", "null", '{"type": "event_callback"}'])
async def test_an_unsigned_slack_request_is_401_not_500(slack_app, headers, body):
    response = await slack_app.post("/slack/events", data=body, headers={"Content-Type": "application/json", **headers})
    assert response.status == 401, (headers, await response.text())


# --- items 4 and 5: Slack calls that time out or fail around a turn --------------------------------------------

@pytest.fixture
async def slack_bot(glossary_service):
    """The real SlackAdapter over the glossary service, against the stand-in. A call the stand-in answers
    late fails as a timeout at once, by the stand-in's mark: the client's session has no clock of its own
    (a 1 s HTTP timeout also timed out ordinary calls on a loaded machine). `timeout=1` still sets how
    long docbot waits before looking for a timed-out post again and its late-landing sweeps."""
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    from adapters.slack import SlackAdapter

    from slack_standin import SlackStandIn, timing_out_session

    slack = await SlackStandIn(signal_timeouts=True).start()
    adapter = SlackAdapter(glossary_service, "xoxb-test", "secret", api_base_url=slack.base_url, timeout=1,
                           update_every=0.0)
    adapter.app.client.session = timing_out_session()  # slack_sdk times a call out only through its own session
    adapter.client.retry_handlers.clear()  # a failed call fails at once
    app = web.Application()
    adapter.mount(app)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    yield client, slack, glossary_service
    await client.close()
    await adapter.app.client.session.close()
    await slack.close()


async def _post(client, body: str):
    from slack_standin import signed

    return await client.post("/slack/events", data=body, headers={"Content-Type": "application/json",
                                                                  **signed("secret", body)})


async def _until(predicate, tries: int = 12_000) -> None:  # a guard against a hang (≥ 600 s), not a budget
    import asyncio

    for _ in range(tries):  # each check is instant
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not reached")


async def test_a_status_line_that_times_out_loses_no_message(slack_bot):
    """Item 4: assistant.threads.setStatus timed out and the message was dropped, already marked delivered."""
    from slack_standin import event_body

    client, slack, service = slack_bot
    slack.slow_methods = {"assistant.threads.setStatus"}
    thread = "1700000700.000100"
    for n in range(3):
        body = event_body(f"Beacon이 뭐야? ({n})", event_id=f"EvS{n}", ts=f"17000007{n:02d}.000100",
                          channel="D1", thread_ts=thread, kind="message", channel_type="im")
        assert (await _post(client, body)).status == 200
    conv = lambda: service.store.find_conversation("slack", "T1", "D1", thread)  # noqa: E731
    await _until(lambda: conv() is not None and len([m for m in service.store.history(conv().id, 20)
                                                     if m.role == "user"]) == 3 and not service._active)
    assert len(slack.named("assistant.threads.setStatus")) == 3  # it was tried, and it timed out
    assert slack.named("chat.stopStream")


async def test_a_failed_append_stops_the_stream_and_stores_what_was_shown(slack_bot, monkeypatch):
    """Item 5: chat.appendStream failed; the stream stayed open and `complete` text nobody saw was stored."""
    from conftest import slow_answers
    from slack_standin import event_body

    client, slack, service = slack_bot
    slow_answers(monkeypatch, 6, delay=0.02)
    appends = []
    original = slack._refusal

    stored_at_stop = []

    def refusal(method, body):  # Slack takes the first two appends, then answers an error
        if method == "chat.appendStream":
            appends.append(body)
            if len(appends) > 2:
                return "internal_error"
        if method == "chat.stopStream":  # store first, then talk to the platform: corrected before the stop
            conv = service.store.find_conversation("slack", "T1", "C1", thread)
            stored_at_stop.append(service.store.history(conv.id, 1)[0].text)
        return original(method, body)

    slack._refusal = refusal
    thread = "1700000800.000100"
    body = event_body("<@UBOT> Beacon이 뭐야?", event_id="EvA", ts=thread)
    assert (await _post(client, body)).status == 200
    await _until(lambda: slack.named("chat.stopStream") and not service._active)
    conv = service.store.find_conversation("slack", "T1", "C1", thread)
    await _until(lambda: [m.status for m in service.store.history(conv.id, 1)] == ["partial"])  # total: [] is "not yet"
    answer = service.store.history(conv.id, 1)[0]
    shown = "".join(b["markdown_text"] for b in appends[:2])
    assert answer.text == shown and answer.status == "partial"  # what was shown is what is stored
    assert stored_at_stop == [shown]  # ... already when the stream stopped, never the text Slack refused
    assert slack._posted[slack.named("chat.stopStream")[0]["ts"]] == "stopped"


# --- the answer message's own calls time out (chat.postMessage, chat.startStream) ------------------------------

def _docbot_posts(slack, thread: str) -> list[dict]:
    """docbot's messages in a thread, as conversations.replies shows them (Slack keeps every post)."""
    return [m for m in slack.threads.get(thread, []) if m.get("user") == "UBOT"]


async def _asked(client, slack, service, thread: str, event_id: str):
    """Ask once with a mention; wait until the turn is stored, released, and every stream docbot opened is
    stopped (each check total: False until the rows exist). Returns the stored answer."""
    from slack_standin import event_body

    assert (await _post(client, event_body("<@UBOT> Beacon이 뭐야?", event_id=event_id, ts=thread))).status == 200

    def answer():
        conv = service.store.find_conversation("slack", "T1", "C1", thread)
        latest = service.store.history(conv.id, 1) if conv is not None else []
        return latest[0] if latest and latest[0].role == "assistant" and latest[0].status != "streaming" else None

    await _until(lambda: answer() is not None and not service._active
                 and "streaming" not in slack._posted.values() and (
                     answer().status == "failed" or any(m for m in slack.calls if m[0] in ("chat.stopStream", "chat.update"))))
    await _until(lambda: not slack.late_next.get("chat.update"))  # nothing of this turn is still on its way
    return answer()


def _streamed(slack) -> str:
    return "".join(b["markdown_text"] for b in slack.named("chat.appendStream"))


async def test_an_answer_message_slack_posted_late_is_found_not_posted_twice(slack_bot):
    """chat.postMessage timed out but Slack had posted it (Slack deduplicates nothing): docbot finds its post
    in the thread instead of posting a second one, and answers in it."""
    client, slack, service = slack_bot
    slack.late_next = {"chat.postMessage": 1}
    answer = await _asked(client, slack, service, "1700000900.000100", "EvLate")
    controls = _docbot_posts(slack, "1700000900.000100")
    assert len(controls) == 2  # the one control message (found, not repeated) and the stream under it
    assert answer.status == "complete" and answer.text and answer.text == _streamed(slack)


async def test_an_answer_message_slack_never_got_is_posted_again(slack_bot):
    client, slack, service = slack_bot
    slack.lost_next = {"chat.postMessage": 1}
    answer = await _asked(client, slack, service, "1700000901.000100", "EvLost")
    assert len(slack.named("chat.postMessage")) == 1 and len(_docbot_posts(slack, "1700000901.000100")) == 2
    assert answer.status == "complete" and answer.text == _streamed(slack)


async def test_a_stream_start_that_timed_out_is_found_and_used(slack_bot):
    """chat.startStream timed out after Slack opened the stream: that stream carries the answer and is
    stopped (no second stream, none left open)."""
    client, slack, service = slack_bot
    slack.late_next = {"chat.startStream": 1}
    answer = await _asked(client, slack, service, "1700000902.000100", "EvStream")
    assert len(slack.named("chat.startStream")) == 1
    assert [slack._posted[b["ts"]] for b in slack.named("chat.stopStream")] == ["stopped"]
    assert answer.status == "complete" and answer.text == _streamed(slack)


async def test_a_stream_that_never_opened_leaves_the_answer_in_the_control_message(slack_bot):
    client, slack, service = slack_bot
    slack.lost_next = {"chat.startStream": 1}
    answer = await _asked(client, slack, service, "1700000903.000100", "EvNoStream")
    assert not slack.named("chat.appendStream")
    final = slack.named("chat.update")[-1]
    assert final["ts"] == _docbot_posts(slack, "1700000903.000100")[0]["ts"]
    from adapters.markup import slack_markdown

    shown = [b["text"] for b in final["blocks"] if b["type"] == "markdown"]
    assert answer.status == "complete" and answer.text and shown == [slack_markdown(answer.text)]


async def test_when_no_answer_message_can_be_opened_the_user_gets_an_apology_and_it_is_stored(slack_bot):
    """Both attempts at the answer message time out unposted: an apology is posted, and the stored answer is
    that apology (status failed, Slack's error in its timings), not an answer nobody saw."""
    client, slack, service = slack_bot
    slack.lost_next = {"chat.postMessage": 2}
    answer = await _asked(client, slack, service, "1700000904.000100", "EvSorry")
    shown = _docbot_posts(slack, "1700000904.000100")
    assert len(shown) == 1 and shown[0]["text"]
    assert answer.status == "failed" and answer.text == shown[0]["text"] and "Timeout" in answer.timings["error"]


async def test_when_even_the_apology_cannot_be_posted_nothing_shown_is_stored(slack_bot):
    client, slack, service = slack_bot
    slack.lost_next = {"chat.postMessage": 4}
    answer = await _asked(client, slack, service, "1700000905.000100", "EvSilent")
    assert not _docbot_posts(slack, "1700000905.000100")
    assert answer.status == "failed" and answer.text == ""


# --- a delivery is remembered in the same transaction as its question ---------------------------------------

class _Killed(BaseException):
    """The process dies here (kill -9): nothing after this line runs, no cleanup either."""


async def test_a_process_killed_before_the_question_is_stored_leaves_no_sighting(glossary_service, monkeypatch):
    """The delivery id was written before the question: killed in between, Slack's retry was then dropped as a
    duplicate and the question lost. Now both are one transaction: the retry finds neither and is answered."""
    from bot.inbound import Incoming

    service = glossary_service
    key = SessionKey("slack", "T1", "C1", "1700001000.000100")
    message = Incoming(key, "Beacon이 뭐야?", "u1", delivery_id="C1:1700001000.000100",
                       message_id="1700001000.000100", mentioned=True)
    add_message = Store.add

    def killed(store, row):  # the question's insert is where the process dies
        if isinstance(row, Message) and row.role == "user":
            raise _Killed
        return add_message(store, row)

    monkeypatch.setattr(Store, "add", killed)
    monkeypatch.setattr(Store, "add_question", lambda *a, **k: killed(a[0], a[1]), raising=False)
    monkeypatch.setattr(type(service), "forget_delivery", lambda *a, **k: _nothing(), raising=False)
    with pytest.raises(_Killed):
        await service.receive(message)
    monkeypatch.undo()
    restarted = ConversationService(service.store, service.pipeline)  # a new process on the same database
    received = await restarted.receive(message)  # Slack's retry of the same message
    assert received.outcome == "answered" and received.turn is not None
    await received.turn.collect()
    assert _rows(service.store, Message, Message.role == "user") == 1
    again = await restarted.receive(message)  # a redelivery after it was stored: handled once
    assert (again.outcome, again.reason) == ("ignored", "duplicate")
    assert _rows(service.store, Message, Message.role == "user") == 1


async def _nothing() -> None:
    return None


# --- issue 28 item 7: a failed platform call is one log line, a counter, and still a 200 ----------------------

def _no_tracebacks(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info and r.levelno >= logging.INFO]


async def test_a_failed_slack_call_is_one_line_counted_and_the_event_acknowledged(slack_bot, caplog):
    """A DM's "start over" note cannot be posted (Slack answers 503): Bolt logged a 40-line traceback and
    nothing counted it. Now: one line, docbot_platform_errors_total by platform, method and error, and 200."""
    from slack_standin import event_body

    client, slack, service = slack_bot
    caplog.set_level(logging.INFO)
    slack.unavailable = {"chat.postMessage"}
    body = event_body("start over", event_id="EvNote", ts="1700001100.000100", channel="D1", kind="message",
                      channel_type="im")
    assert (await _post(client, body)).status == 200
    line = b'docbot_platform_errors_total{error="service_unavailable",method="chat.postMessage",platform="slack"} 1.0'
    await _until(lambda: line in service.metrics.render())
    await _until(lambda: any("chat.postMessage" in r.getMessage() for r in caplog.records))
    assert _no_tracebacks(caplog) == []
    said = [r for r in caplog.records if "chat.postMessage" in r.getMessage() and r.name != "aiohttp.access"]
    assert len(said) == 1  # the stand-in's own access log aside


async def test_slack_unreachable_while_authorizing_is_acknowledged_not_500(slack_bot, caplog):
    """auth.test (Bolt's first call) timed out: the request was a 500 with a traceback."""
    from slack_standin import event_body

    client, slack, service = slack_bot
    caplog.set_level(logging.INFO)
    slack.lost_next = {"auth.test": 1}
    body = event_body("<@UBOT> Beacon이 뭐야?", event_id="EvAuth", ts="1700001101.000100")
    assert (await _post(client, body)).status == 200
    assert b'docbot_platform_errors_total{error="timeout",method="auth.test",platform="slack"} 1.0' \
        in service.metrics.render()
    assert _no_tracebacks(caplog) == []
