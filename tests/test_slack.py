"""The real Bolt app over HTTP with signed requests, against a local Slack Web API stand-in."""
import asyncio
import json
import time

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from adapters.markup import split_text
from adapters.slack import SlackAdapter
from adapters.slack_render import SECTION_LIMIT, SlackRenderer
from bot.actions import WebhookAction

from conftest import build_service, service_over, slow_answers
from slack_standin import BOT_USER, SlackStandIn, click_body, event_body, feedback_click, revocation_body, signed

SECRET = "test-signing-secret"


@pytest.fixture
async def slack():
    standin = await SlackStandIn().start()
    yield standin
    await standin.close()


@pytest.fixture
async def bot(slack, handbook_indexer, analyzer, classifier, tmp_path):
    """docbot's aiohttp app with the Slack adapter mounted, and a client that signs like Slack."""
    hook = WebhookAction("ticket", "http://127.0.0.1:9/unused", ["ticket"], "Open an ops ticket")
    service = build_service(handbook_indexer, analyzer, classifier, f"sqlite:///{tmp_path / 's.sqlite3'}", [hook])
    adapter = SlackAdapter(service, "xoxb-test", SECRET, api_base_url=slack.base_url, update_every=0.0)
    app = web.Application()
    adapter.mount(app)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()

    async def post(body: str, form: bool = False, headers: dict | None = None):
        h = {"Content-Type": "application/x-www-form-urlencoded" if form else "application/json",
             **signed(SECRET, body), **(headers or {})}
        return await client.post("/slack/events", data=body.encode(), headers=h)

    client.post_signed, client.service, client.adapter = post, service, adapter
    yield client
    await client.close()


async def until(condition, timeout=300.0):  # a guard against a hang, not a budget
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for Slack calls"
        await asyncio.sleep(0.05)


async def test_mention_is_answered_in_its_thread_with_a_stream(bot, slack):
    response = await bot.post_signed(event_body(f"<@{BOT_USER}> 연차는 1년에 며칠이야?", event_id="Ev1", ts="1700000000.000100"))
    assert response.status == 200
    # The answer's stream is stopped, and only then the control message above it loses its Stop button:
    # wait for both (waiting for stopStream alone raced the update).
    await until(lambda: slack.named("chat.stopStream") and slack.named("chat.update"))
    control, = slack.named("chat.postMessage")
    assert control["thread_ts"] == "1700000000.000100" and control["channel"] == "C1"
    assert control["blocks"][0]["type"] == "context" and "연차" in control["blocks"][0]["elements"][0]["text"]
    assert control["blocks"][1]["elements"][0]["action_id"] == "docbot_stop"
    start, = slack.named("chat.startStream")
    assert start["thread_ts"] == "1700000000.000100" and start["recipient_user_id"] == "U1"
    streamed = "".join(c["markdown_text"] for c in slack.named("chat.appendStream"))
    assert "15일" in streamed
    stop = slack.named("chat.stopStream")[0]
    assert "vacation-policy.md" in json.dumps(stop["blocks"], ensure_ascii=False)
    assert [e["action_id"] for e in stop["blocks"][-2]["elements"]] == ["docbot_regenerate"]
    feedback = stop["blocks"][-1]
    assert feedback["type"] == "context_actions" and feedback["elements"][0]["type"] == "feedback_buttons"
    assert slack.named("chat.update")[-1]["ts"] == control["_reply_ts"]  # Stop button removed afterwards
    assert not _has_stop(slack.named("chat.update")[-1])
    assert {c["ts"] for c in slack.named("chat.appendStream")} == {start["_reply_ts"]}
    status = slack.named("assistant.threads.setStatus")
    assert status and status[0]["thread_ts"] == "1700000000.000100"


async def test_without_streaming_it_posts_then_updates(bot, slack):
    slack.streaming = False
    await bot.post_signed(event_body(f"<@{BOT_USER}> How do I restart the Orion Gateway?", event_id="Ev2", ts="1700000001.000100"))
    await until(lambda: any(not _has_stop(u) for u in slack.named("chat.update")))
    placeholder = [p for p in slack.named("chat.postMessage") if p.get("thread_ts") == "1700000001.000100"][-1]
    assert _has_stop(placeholder)
    final = slack.named("chat.update")[-1]
    text = json.dumps(final["blocks"], ensure_ascii=False)
    assert "api-gateway-runbook.md" in text and "docbot_regenerate" in text
    assert final["blocks"][0]["type"] == "context"  # the rewritten query, small, above the answer


def _has_stop(call: dict) -> bool:
    return "docbot_stop" in json.dumps(call.get("blocks", ""))


async def test_bad_signature_is_401_and_nothing_is_answered(bot, slack):
    body = event_body("<@UBOT> hi", event_id="Ev3", ts="1700000002.000100")
    response = await bot.post("/slack/events", data=body.encode(), headers={
        "Content-Type": "application/json", **signed("wrong-secret", body)})
    assert response.status == 401
    stale = await bot.post("/slack/events", data=body.encode(), headers={
        "Content-Type": "application/json", **signed(SECRET, body, timestamp=int(time.time()) - 3600)})
    assert stale.status == 401
    await asyncio.sleep(0.3)
    assert not slack.named("chat.postMessage")


async def test_retries_and_duplicate_events_get_one_answer(bot, slack):
    body = event_body(f"<@{BOT_USER}> What is the release train?", event_id="Ev4", ts="1700000003.000100")
    first = await bot.post_signed(body)
    retry = await bot.post_signed(body, headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    assert first.status == retry.status == 200
    await until(lambda: slack.named("chat.stopStream"))
    await asyncio.sleep(0.5)
    assert len(slack.named("chat.startStream")) == 1
    assert len(slack.named("assistant.threads.setStatus")) == 1  # the retry shows nothing either


async def test_thread_follow_up_without_mention_uses_server_history(bot, slack):
    await bot.post_signed(event_body(f"<@{BOT_USER}> 프로젝트 삭제 정책 알려줘", event_id="Ev5", ts="1700000004.000100"))
    await until(lambda: len(slack.named("chat.stopStream")) == 1)
    await bot.post_signed(event_body("그럼 언제까지 살릴 수 있어?", event_id="Ev6", ts="1700000004.000300",
                                     thread_ts="1700000004.000100", kind="message"))
    await until(lambda: len(slack.named("chat.stopStream")) == 2)
    second_control = slack.named("chat.postMessage")[-1]
    assert "프로젝트" in json.dumps(second_control["blocks"], ensure_ascii=False)  # rewritten from history
    # A thread docbot is not part of is left alone.
    await bot.post_signed(event_body("random chatter", event_id="Ev7", ts="1700000009.000300",
                                     thread_ts="1700000009.000100", kind="message"))
    await asyncio.sleep(0.5)
    assert len(slack.named("chat.startStream")) == 2


async def test_rate_limited_call_is_retried_after_retry_after(bot, slack, monkeypatch):
    """slack_sdk's handler is asked to wait what Retry-After says before the one retry: the wait is observed
    as the handler's request (recorded, not slept), not as seconds on a clock."""
    import types

    from slack_sdk.http_retry import builtin_async_handlers

    waits: list[float] = []
    now = [0.0]
    slack.clock = lambda: now[0]  # the stand-in refuses a retry made before Retry-After has passed on its clock

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds
        await asyncio.sleep(0)

    monkeypatch.setattr(builtin_async_handlers, "asyncio", types.SimpleNamespace(sleep=sleep))
    slack.rate_limit_once.add("chat.startStream")
    await bot.post_signed(event_body(f"<@{BOT_USER}> What is Beacon?", event_id="Ev8", ts="1700000005.000100"))
    await until(lambda: slack.named("chat.stopStream"))
    assert len(slack.named("chat.startStream")) == 2  # the refused call, then its retry
    assert len(waits) == 1 and 1 <= waits[0] < 2  # Retry-After: 1, plus slack_sdk's jitter below a second
    assert slack.early == []


async def test_stop_keeps_the_partial_answer_everywhere(bot, slack):
    adapter, service = bot.adapter, bot.service
    from bot.conversation import SessionKey

    key = SessionKey("slack", "T1", "C1", "1700000006.000100")
    turn = await service.ask(key, "How does the on-call rotation work?", "U1")
    writer = await adapter.replies._open(turn, key, "U1")
    pieces = []
    async for piece in turn.stream():
        pieces.append(piece)
        await writer.append(piece)
        if len(pieces) == 1:
            stop_value = slack.named("chat.postMessage")[-1]["blocks"][1]["elements"][0]["value"]
            response = await bot.post_signed(click_body("docbot_stop", stop_value, thread_ts=key.thread), form=True)
            assert response.status == 200
            await until(lambda: turn.cancelled.is_set())
    await writer.finish(turn, key)
    assert turn.status == "cancelled" and len(pieces) == 1
    stored = service.store.history(service.store.conversation("slack", "T1", "C1", key.thread).id, 1)[0]
    assert stored.status == "cancelled" and stored.text == pieces[0]
    streamed = "".join(c["markdown_text"] for c in slack.named("chat.appendStream"))
    assert streamed == pieces[0]
    assert "stopped" in json.dumps(slack.named("chat.stopStream")[-1]["blocks"])


async def test_regenerate_and_feedback_round_trips(bot, slack):
    await bot.post_signed(event_body(f"<@{BOT_USER}> 재택근무는 일주일에 몇 번 가능해?", event_id="Ev9", ts="1700000007.000100"))
    await until(lambda: slack.named("chat.stopStream"))
    blocks = slack.named("chat.stopStream")[0]["blocks"]
    regen = blocks[-2]["elements"][0]["value"]
    native = blocks[-1]["elements"][0]
    pair = (native["positive_button"]["value"], native["negative_button"]["value"])
    await bot.post_signed(feedback_click(pair, "good", thread_ts="1700000007.000100"), form=True)
    await until(lambda: slack.named("chat.postEphemeral"))
    message_id = int(pair[0].split(":")[2])
    assert [f.helpful for f in bot.service.store.feedback(message_id)] == [True]
    await bot.post_signed(click_body("docbot_regenerate", regen, thread_ts="1700000007.000100"), form=True)
    await until(lambda: len(slack.named("chat.stopStream")) == 2)
    conv = bot.service.store.conversation("slack", "T1", "C1", "1700000007.000100").id
    history = bot.service.store.history(conv, 10)
    assert [m.role for m in history] == ["user", "assistant"] and history[1].id != message_id


async def test_confirm_buttons_only_work_for_the_requester(bot, slack):
    await bot.post_signed(event_body(f"<@{BOT_USER}> open a ticket for the VPN", event_id="Ev10", ts="1700000008.000100"))
    await until(lambda: slack.named("chat.stopStream"))
    buttons = slack.named("chat.stopStream")[0]["blocks"][-1]["elements"]
    assert [b["action_id"] for b in buttons] == ["docbot_confirm", "docbot_cancel"]
    await bot.post_signed(click_body("docbot_confirm", buttons[0]["value"], user="U2",
                                     thread_ts="1700000008.000100"), form=True)
    await until(lambda: slack.named("chat.postEphemeral"))
    refusal = slack.named("chat.postEphemeral")[0]
    assert refusal["user"] == "U2" and "Only the person who asked" in refusal["text"] and "U1" not in refusal["text"]
    await bot.post_signed(click_body("docbot_cancel", buttons[1]["value"], user="U1", message_ts="9.9",
                                     thread_ts="1700000008.000100"), form=True)
    await until(lambda: any(u.get("ts") == "9.9" for u in slack.named("chat.update")))
    action_id = int(buttons[0]["value"].split(":")[1])
    assert bot.service.store.get_action(action_id).status == "cancelled"


def test_long_answers_respect_section_and_block_limits():
    text = "\n".join(f"line {n} " + "x" * 200 for n in range(1000))
    pieces = split_text(text, SECTION_LIMIT)
    assert all(len(p) <= SECTION_LIMIT for p in pieces) and "".join(pieces).count("line") == 1000

    class FakeTurn:
        prepared = type("P", (), {"searched": False, "steps": [], "question": "q"})()
        sources, action, answer_id, run_id, rewritten = [], None, 1, "r", ""

    from bot.conversation import SessionKey

    messages = SlackRenderer().message(FakeTurn(), SessionKey("slack", "T", "C", "1"), text, running=False)
    assert len(messages) >= 2 and all(len(m) <= 50 for m in messages)
    markdown = [b["text"] for m in messages for b in m if b["type"] == "markdown"]
    assert all(sum(len(b["text"]) for b in m if b["type"] == "markdown") <= 12_000 for m in messages)
    assert "".join(markdown).count("line") == 1000  # nothing lost


async def test_without_streaming_markdown_is_rendered_and_no_message_says_only_an_ellipsis(bot, slack):
    """The fallback answer is a `markdown` block (mrkdwn showed **bold** as typed) and every message has a
    real notification text."""
    bot.adapter.replies.streaming = False
    from rag.pipeline import Pipeline

    async def bold(self, prepared, history):
        yield "**연차는 15일**입니다. [1]"

    import pytest as _pytest

    with _pytest.MonkeyPatch.context() as patch:
        patch.setattr(Pipeline, "answer", bold)
        await bot.post_signed(event_body(f"<@{BOT_USER}> 연차는 며칠?", event_id="EvMd", ts="1700000090.000100"))
        await until(lambda: any(b["type"] == "markdown" and "**연차는 15일**" in b["text"]
                                for u in slack.named("chat.update") for b in u.get("blocks") or []))
    assert all((c.get("text") or "").strip() not in ("", "…")
               for c in slack.named("chat.postMessage") + slack.named("chat.update"))


async def test_serve_mounts_slack_from_settings(slack, tmp_path, monkeypatch, warm):
    """Settings -> `docbot serve`'s app: /slack/events is there and checks signatures."""
    from docbot.runtime import Runtime
    from docbot.server import make_app
    from docbot.settings import Settings

    settings = Settings(_env_file=None, data_dir=tmp_path, SLACK_BOT_TOKEN="xoxb-test",
                        SLACK_SIGNING_SECRET=SECRET, SLACK_API_BASE_URL=slack.base_url)
    client = TestClient(TestServer(make_app(warm(Runtime(settings)), schedule=False), host="127.0.0.1"))
    await client.start_server()
    try:
        body = event_body("<@UBOT> hi", event_id="EvS", ts="1.2")
        bad = await client.post("/slack/events", data=body, headers={"Content-Type": "application/json",
                                                                     **signed("nope", body)})
        assert bad.status == 401
        challenge = json.dumps({"type": "url_verification", "challenge": "abc123", "token": "t"})
        ok = await client.post("/slack/events", data=challenge, headers={"Content-Type": "application/json",
                                                                         **signed(SECRET, challenge)})
        assert ok.status == 200 and "abc123" in await ok.text()
    finally:
        await client.close()


async def test_direct_messages_are_answered_without_a_mention(bot, slack):
    await bot.post_signed(event_body("What is Beacon?", event_id="EvDM", ts="1700000010.000100", channel="D1",
                                     kind="message", channel_type="im"))
    await until(lambda: slack.named("chat.stopStream"))
    assert slack.named("chat.startStream")[0]["channel"] == "D1"


async def test_slash_command_posts_the_question_and_answers_in_its_thread(bot, slack):
    from urllib.parse import urlencode

    slack.joined.add("C9")
    body = urlencode({"command": "/docbot", "text": "What is Lumen?", "user_id": "U1", "channel_id": "C9",
                      "team_id": "T1", "response_url": slack.response_url(), "trigger_id": "t", "token": "t"})
    response = await bot.post_signed(body, form=True)
    assert response.status == 200
    await until(lambda: slack.named("chat.stopStream"))
    root = slack.named("chat.postMessage")[0]
    assert root["channel"] == "C9" and "What is Lumen?" in root["text"]
    assert slack.named("chat.startStream")[0]["thread_ts"] == root["_reply_ts"]


async def test_a_superseded_run_never_writes_into_the_new_answer(bot, slack):
    from bot.conversation import SessionKey

    adapter, service = bot.adapter, bot.service
    key = SessionKey("slack", "T1", "C1", "1700000011.000100")
    old = await service.ask(key, "How does the on-call rotation work?", "U1")
    old_writer = await adapter.replies._open(old, key, "U1")
    old_stream = old.stream().__aiter__()
    await old_writer.append(await old_stream.__anext__())

    async def drain_old():  # the old answer keeps streaming in its own task, as in production
        async for piece in old_stream:
            await old_writer.append(piece)
        await old_writer.finish(old, key)

    draining = asyncio.create_task(drain_old())
    new = await service.ask(key, "What is the hotel limit in the US?", "U1")  # supersedes the old run
    assert old.cancelled.is_set() and old.done.is_set()  # stopped and stored before the new one began
    await draining
    await adapter.replies.render(new, key, "U1")
    old_ts, new_ts = (c["_reply_ts"] for c in slack.named("chat.startStream"))
    old_text = "".join(c["markdown_text"] for c in slack.named("chat.appendStream") if c["ts"] == old_ts)
    new_text = "".join(c["markdown_text"] for c in slack.named("chat.appendStream") if c["ts"] == new_ts)
    assert old_text == old.text and new_text == new.text and old.status == "cancelled"
    assert "250 USD" in new_text and "250 USD" not in old_text


async def test_socket_mode_receives_events_and_acknowledges(slack, handbook_indexer, analyzer, classifier, tmp_path):
    from adapters.slack import start_socket_mode

    service = build_service(handbook_indexer, analyzer, classifier, f"sqlite:///{tmp_path / 'sm.sqlite3'}")
    adapter = SlackAdapter(service, "xoxb-test", "", api_base_url=slack.base_url, update_every=0.0)
    payload = json.loads(event_body(f"<@{BOT_USER}> What is Beacon?", event_id="EvSM", ts="1700000020.000100"))
    slack.socket_envelopes.append({"envelope_id": "env-1", "type": "events_api", "accepts_response_payload": False,
                                   "payload": payload})
    handler = await start_socket_mode(adapter, "xapp-test")
    try:
        await until(lambda: slack.named("chat.stopStream"))
        assert {"envelope_id": "env-1"}.items() <= slack.socket_acks[0].items()
        assert slack.named("chat.startStream")[0]["thread_ts"] == "1700000020.000100"
    finally:
        await handler.close_async()


async def _bot_over(slack, service):
    adapter = SlackAdapter(service, "xoxb-test", SECRET, api_base_url=slack.base_url, update_every=0.0)
    app = web.Application()
    adapter.mount(app)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()

    async def post(body: str):
        return await client.post("/slack/events", data=body.encode(),
                                 headers={"Content-Type": "application/json", **signed(SECRET, body)})

    client.post_signed = post
    return client


async def test_document_markup_reaches_slack_as_inert_text(slack, analyzer, embedder, classifier, tmp_path):
    """A document that says <!channel>, mentions a user and disguises links: quoted, never live."""
    service = service_over(tmp_path, analyzer, embedder, classifier, {"escalation.md": (
        # One sentence holds every kind of markup, so whichever lines the answer quotes carry all of it.
        "# Escalation policy\n\n- For a sev-1 outage, page <!channel> and <@U0ADMIN> at once with the form at "
        "<https://evil.example/steal|the official handbook>, [the runbook](https://evil.example/runbook) "
        "& the pager rota.\n")})
    for streaming in (True, False):
        slack.calls.clear()
        slack.streaming = streaming
        client = await _bot_over(slack, service)
        try:
            await client.post_signed(event_body(f"<@{BOT_USER}> What is the escalation policy for a sev-1 outage?",
                                                event_id=f"EvEsc{streaming}", ts=f"170000900{int(streaming)}.000100"))
            await until(lambda: slack.named("chat.stopStream") or
                        any("blocks" in b and "Regenerate" in json.dumps(b) for b in slack.named("chat.update")))
        finally:
            await client.close()
        sent = json.dumps([body for _, body in slack.calls], ensure_ascii=False)
        for live in ("<!channel>", "<@U0ADMIN>", "<https://evil.example/steal|", "](https://evil.example"):
            assert live not in sent, (streaming, live)
        assert "&lt;!channel&gt;" in sent and "&lt;@U0ADMIN&gt;" in sent and "&amp;" in sent
        # The loader reads a Markdown link as a person reads the page: its text, never a clickable disguise.
        assert "the runbook" in sent and "https://evil.example/runbook" not in sent


async def test_database_down_still_gets_a_reply(bot, slack, monkeypatch):
    from rag.errors import StorageError

    def down(*args, **kwargs):
        raise StorageError("conversation database error: connection refused")

    for name in ("first_sighting", "conversation", "has_conversation", "add", "update"):
        monkeypatch.setattr(bot.service.store, name, down)
    await bot.post_signed(event_body(f"<@{BOT_USER}> What is Beacon?", event_id="EvDown", ts="1700000300.000100"))
    await until(lambda: slack.named("chat.stopStream"))
    said = "".join(b.get("markdown_text", "") for b in slack.named("chat.appendStream"))
    assert "Sorry" in said  # an apology rather than silence


async def test_lone_surrogates_are_answered_and_stored(bot, slack):
    body = event_body(f"<@{BOT_USER}> What is Beacon? \\ud800 broken", event_id="EvSur", ts="1700000400.000100")
    assert "\\\\ud800" in body  # the JSON escape Slack would send for a lone surrogate
    await bot.post_signed(body.replace("\\\\ud800", "\\ud800"))
    await until(lambda: slack.named("chat.stopStream"))
    conv = bot.service.store.conversation("slack", "T1", "C1", "1700000400.000100")
    question, answer = bot.service.store.history(conv.id, 2)
    assert "\ufffd" in question.text and answer.status == "complete" and "Beacon" in answer.text


async def test_slack_down_when_the_answer_opens_still_ends_the_turn(bot, slack):
    slack.unavailable = {"chat.postMessage", "chat.startStream"}
    bot.adapter.client.retry_handlers.clear()  # Slack stays down through every retry; do not wait for them
    await bot.post_signed(event_body(f"<@{BOT_USER}> What is Beacon?", event_id="Ev503", ts="1700000500.000100"))
    store = bot.service.store

    def answer_failed() -> bool:  # total: False until the conversation and its answer row both exist
        conversation = store.find_conversation("slack", "T1", "C1", "1700000500.000100")
        latest = store.history(conversation.id, 1) if conversation is not None else []
        return bool(latest) and latest[0].role == "assistant" and latest[0].status == "failed"

    # The answer row is written on a worker thread just before the run is released on the loop: wait for both.
    await until(lambda: answer_failed() and not bot.service._active)
    answer = store.history(store.conversation("slack", "T1", "C1", "1700000500.000100").id, 1)[0]
    assert "service_unavailable" in answer.timings["error"]
    assert bot.service.metrics.active_turns._value.get() == 0 and not bot.service._active
    slack.unavailable = set()
    bot.service.supersede_wait = 3600.0  # were a dead run still holding the thread, the next answer would hang
    await bot.post_signed(event_body(f"<@{BOT_USER}> What is Beacon?", event_id="Ev503b", ts="1700000501.000100",
                                     thread_ts="1700000500.000100"))
    await until(lambda: slack.named("chat.stopStream"))  # answered: the thread was free


async def test_deeply_nested_json_is_a_400_not_a_500(bot):
    body = "[" * 100_000 + "]" * 100_000
    response = await bot.post_signed(body)
    assert response.status == 400


async def test_shutdown_stops_the_slack_stream_before_it_returns(bot, slack, monkeypatch):
    """SIGTERM mid-answer: the answer is stored as interrupted *and* its Slack stream is stopped (a
    stream left open shows a spinner for ever)."""
    slow_answers(monkeypatch, 200)
    await bot.post_signed(event_body(f"<@{BOT_USER}> Tell me everything", event_id="EvTerm", ts="1700000600.000100"))
    await until(lambda: slack.named("chat.appendStream"))
    assert await bot.service.shutdown(timeout=300.0) == 1  # returns once all is stored and stopped (a hang guard)
    assert slack.named("chat.stopStream")  # closed before shutdown returned
    conv = bot.service.store.conversation("slack", "T1", "C1", "1700000600.000100")
    assert bot.service.store.history(conv.id, 1)[0].status == "interrupted"


async def test_a_click_acts_only_in_the_thread_of_its_message_and_slack_connect_users_count(bot, slack):
    """The conversation is the clicked message's channel and thread (not anything a value could name); a
    user from another workspace in a Slack Connect channel (their own `team` on the click) is heard."""
    import urllib.parse

    await bot.post_signed(event_body(f"<@{BOT_USER}> 재택근무는 일주일에 몇 번 가능해?", event_id="EvC1",
                                     ts="1700000030.000100"))
    await until(lambda: slack.named("chat.stopStream"))
    native = slack.named("chat.stopStream")[0]["blocks"][-1]["elements"][0]
    pair = (native["positive_button"]["value"], native["negative_button"]["value"])
    answer_id = int(pair[0].split(":")[2])
    elsewhere = feedback_click(pair, "good", thread_ts="1700000099.000100", action_ts="1.2")
    await bot.post_signed(elsewhere, form=True)
    await until(lambda: slack.named("chat.postEphemeral"))
    assert "does not belong" in slack.named("chat.postEphemeral")[-1]["text"]
    assert bot.service.store.feedback(answer_id) == []
    payload = json.loads(urllib.parse.parse_qs(feedback_click(pair, "good", user="UEXT",
                                                              thread_ts="1700000030.000100"))["payload"][0])
    payload["team"] = {"id": "T2OTHER", "domain": "partner"}
    payload["user"]["team_id"] = "T2OTHER"
    await bot.post_signed(urllib.parse.urlencode({"payload": json.dumps(payload)}), form=True)
    await until(lambda: len(slack.named("chat.postEphemeral")) == 2)
    assert [(f.user_id, f.helpful) for f in bot.service.store.feedback(answer_id)] == [("UEXT", True)]


async def test_slash_command_where_docbot_is_not_a_member_answers_the_asker_privately(bot, slack):
    """Slack refuses `chat.postMessage` with `not_in_channel` there; the answer goes through the command's
    response_url, ephemeral, whole, with a button that shares it in the channel (for the asker only)."""
    import urllib.parse
    from urllib.parse import urlencode

    body = urlencode({"command": "/docbot", "text": "연차는 1년에 며칠이야?", "user_id": "U1", "channel_id": "C-OTHER",
                      "team_id": "T1", "response_url": slack.response_url(), "trigger_id": "t2", "token": "t"})
    response = await bot.post_signed(body, form=True)
    assert response.status == 200
    await until(lambda: slack.named("respond"))
    reply, = slack.named("respond")
    assert reply["response_type"] == "ephemeral" and "15일" in json.dumps(reply["blocks"], ensure_ascii=False)
    assert ("chat.postMessage", "not_in_channel") in slack.refused and not slack.named("chat.startStream")
    share = reply["blocks"][-1]["elements"][0]
    assert share["action_id"] == "docbot_share"
    for user in ("U2", "U1"):  # only the asker may share it
        payload = json.loads(dict(urllib.parse.parse_qsl(click_body("docbot_share", share["value"], user=user,
                                                                     channel="C-OTHER")))["payload"])
        payload["response_url"] = slack.response_url(f"share-{user}")
        await bot.post_signed(urllib.parse.urlencode({"payload": json.dumps(payload)}), form=True)
    await until(lambda: len(slack.named("respond")) == 3)
    # The two clicks are handled concurrently: each reply is found by the response_url it went to, not by order.
    by_url = {r["_url"]: r for r in slack.named("respond")[1:]}
    refused, shared = by_url["share-U2"], by_url["share-U1"]
    assert refused["response_type"] == "ephemeral" and "Only the person who asked" in refused["text"]
    assert shared["response_type"] == "in_channel" and shared["delete_original"] is True
    assert "15일" in json.dumps(shared["blocks"], ensure_ascii=False)


async def test_a_reply_that_is_not_a_document_answer_leaves_no_stray_message(bot, slack):
    """The control message above a streamed answer was updated with the user's words as its text (a 40k
    paste came back whole); now it is deleted when nothing was searched, and never carries the words."""
    await bot.post_signed(event_body(f"<@{BOT_USER}> 안녕하세요!", event_id="EvHi", ts="1700000040.000100"))
    await until(lambda: slack.named("chat.delete"))
    assert slack.named("chat.delete")[-1]["ts"] == slack.named("chat.postMessage")[0]["_reply_ts"]
    paste = "배포 절차 " + "로그 " * 13_000
    await bot.post_signed(event_body(f"<@{BOT_USER}> {paste}", event_id="EvPaste", ts="1700000041.000100"))
    control = lambda: slack.named("chat.postMessage")[1]["_reply_ts"]  # noqa: E731
    await until(lambda: len(slack.named("chat.stopStream")) == 2 and any(
        c.get("ts") == control() for c in slack.named("chat.update") + slack.named("chat.delete")))
    for call in slack.named("chat.update") + slack.named("chat.postMessage"):
        assert "로그 로그 로그" not in str(call.get("text", ""))
    assert slack.refused == []


def _event(text: str, *, event_id: str, ts: str, **fields) -> str:
    """A `message` event shaped as Slack sends it, with extra fields (subtype, files, thread_ts...)."""
    body = json.loads(event_body(text, event_id=event_id, ts=ts, kind="message"))
    body["event"].update(fields)
    return json.dumps(body)


async def _answered_count(slack) -> int:
    await asyncio.sleep(0.5)  # an unanswered event makes no call: give it time to (not) happen
    return len(slack.named("chat.startStream"))


async def test_in_a_channel_thread_docbot_answers_only_what_is_for_it(bot, slack):
    """After docbot answers a mention in a thread, the asker's plain follow-up is answered; a reply that
    mentions someone else, or a second person talking in the thread, is not docbot's to answer."""
    root = "1700000050.000100"
    await bot.post_signed(event_body(f"<@{BOT_USER}> 연차는 1년에 며칠이야?", event_id="EvP1", ts=root))
    await until(lambda: len(slack.named("chat.stopStream")) == 1)
    await bot.post_signed(_event("<@U7> thanks, I'll ping you after lunch", event_id="EvP2",
                                 ts="1700000050.000200", thread_ts=root))
    assert await _answered_count(slack) == 1
    await bot.post_signed(_event("남은 건 이월돼?", event_id="EvP3", ts="1700000050.000300", thread_ts=root))
    await until(lambda: len(slack.named("chat.stopStream")) == 2)
    await bot.post_signed(_event("저도 궁금한데 병가는요?", event_id="EvP4", ts="1700000050.000400", thread_ts=root,
                                 user="U2"))
    assert await _answered_count(slack) == 2  # a second person: docbot waits to be mentioned


async def test_screenshots_broadcasts_and_edits_are_questions_too(bot, slack):
    """`file_share` (a question with a screenshot) and `thread_broadcast` were dropped; an edit is answered
    when the original was not, and an answered question's edit is left alone."""
    await bot.post_signed(_event("연차는 1년에 며칠이야?", event_id="EvF1", ts="1700000060.000100", channel="D1",
                                 channel_type="im", subtype="file_share",
                                 files=[{"id": "F1", "name": "screen.png", "mimetype": "image/png"}], upload=False))
    await until(lambda: len(slack.named("chat.stopStream")) == 1)
    root = "1700000061.000100"
    await bot.post_signed(event_body(f"<@{BOT_USER}> 재택근무는 일주일에 몇 번 가능해?", event_id="EvB0", ts=root))
    await until(lambda: len(slack.named("chat.stopStream")) == 2)
    await bot.post_signed(_event("그럼 신청은 어디서 해?", event_id="EvB1", ts="1700000061.000200", thread_ts=root,
                                 subtype="thread_broadcast"))
    await until(lambda: len(slack.named("chat.stopStream")) == 3)
    edit_of_unanswered = {"subtype": "message_changed", "hidden": True, "channel": "D1", "channel_type": "im",
                          "message": {"type": "message", "user": "U1", "text": "출장 호텔 한도 알려줘",
                                      "ts": "1700000062.000100", "edited": {"user": "U1", "ts": "1700000062.000900"}},
                          "previous_message": {"type": "message", "user": "U1", "text": "출장 호텔",
                                               "ts": "1700000062.000100"}}
    await bot.post_signed(_event("", event_id="EvE1", ts="1700000062.000900", **edit_of_unanswered))
    await until(lambda: len(slack.named("chat.stopStream")) == 4)
    edit_of_answered = {**edit_of_unanswered, "message": {**edit_of_unanswered["message"], "text": "출장 항공 규정",
                                                          "edited": {"user": "U1", "ts": "1700000062.000950"}}}
    await bot.post_signed(_event("", event_id="EvE2", ts="1700000062.000950", **edit_of_answered))
    assert await _answered_count(slack) == 4


async def test_another_apps_mention_is_not_answered_by_default(bot, slack):
    mention = json.loads(event_body(f"<@{BOT_USER}> status?", event_id="EvBot", ts="1700000070.000100"))
    mention["event"].update(bot_id="B0OTHER", app_id="A0OTHER")
    await bot.post_signed(json.dumps(mention))
    assert await _answered_count(slack) == 0


async def test_slack_markup_in_a_question_is_read_as_the_person_wrote_it(bot, slack):
    """Slack sends `<`, `>`, `&` escaped and links, channels and mentions as tags: the question stored and
    searched is the text the person typed."""
    text = (f"<@{BOT_USER}> &lt;b&gt;휴가&lt;/b&gt; &amp; <https://wiki.example/vacation|휴가 정책> 문서에서 "
            "<#C123|general> 채널 사람들 연차 며칠인지 알려줘 <!here>")
    await bot.post_signed(event_body(text, event_id="EvMk", ts="1700000080.000100"))
    await until(lambda: slack.named("chat.stopStream"))
    conv = bot.service.store.conversation("slack", "T1", "C1", "1700000080.000100").id
    question = bot.service.store.history(conv, 2)[0]
    assert question.text == ("<b>휴가</b> & 휴가 정책 (https://wiki.example/vacation) 문서에서 #general 채널 사람들 "
                             "연차 며칠인지 알려줘")


async def test_called_into_an_existing_thread_it_reads_the_thread_first(bot, slack):
    """"@docbot 위에서 정한 거 정리해줘" in a thread people have been talking in: the thread's earlier messages
    (conversations.replies) become the conversation's history, and the trace says so."""
    root = "1700000095.000100"
    slack.threads[root] = [
        {"type": "message", "user": "U2", "text": "재택근무 정책 문서 봤어요?", "ts": root, "thread_ts": root},
        {"type": "message", "user": "U3", "text": "네, 주 2회까지 가능하다고 &lt;remote-work&gt;에 있어요",
         "ts": "1700000095.000200", "thread_ts": root},
        {"type": "message", "user": "U1", "text": f"<@{BOT_USER}> 그럼 신청은 어디서 해?", "ts": "1700000095.000300",
         "thread_ts": root},
    ]
    await bot.post_signed(event_body(f"<@{BOT_USER}> 그럼 신청은 어디서 해?", event_id="EvTh",
                                     ts="1700000095.000300", thread_ts=root))
    await until(lambda: slack.named("chat.stopStream"))
    assert slack.named("conversations.replies")[0]["ts"] == root
    conv = bot.service.store.conversation("slack", "T1", "C1", root).id
    stored = bot.service.store.history(conv, 10)
    assert [m.text for m in stored[:2]] == ["재택근무 정책 문서 봤어요?", "네, 주 2회까지 가능하다고 <remote-work>에 있어요"]
    question = stored[2]
    assert question.text == "그럼 신청은 어디서 해?" and question.rewrite_method == "offline"  # it had history
    trace = bot.service.store.traces(conv)[-1]
    assert trace.timings["thread_context"] == 2


async def test_direct_messages_in_the_main_pane_keep_their_topic(bot, slack):
    """Each top-level DM starts its own thread, but "그럼 언제까지 살릴 수 있어?" right after a question
    about project deletion must still be about project deletion."""
    await bot.post_signed(event_body("프로젝트 삭제 정책 알려줘", event_id="EvDm1", ts="1700000097.000100", channel="D1",
                                     kind="message", channel_type="im"))
    await until(lambda: len(slack.named("chat.stopStream")) == 1)
    await bot.post_signed(event_body("그럼 언제까지 살릴 수 있어?", event_id="EvDm2", ts="1700000097.000200",
                                     channel="D1", kind="message", channel_type="im"))
    await until(lambda: len(slack.named("chat.stopStream")) == 2)
    conv = bot.service.store.conversation("slack", "T1", "D1", "1700000097.000200").id
    question = [m for m in bot.service.store.history(conv, 10) if m.role == "user"][-1]
    assert "프로젝트" in question.rewritten and "30일" in "".join(
        c["markdown_text"] for c in slack.named("chat.appendStream")[-5:])


def _manifest_events() -> list[str]:
    """The bot events deploy/slack-manifest.yaml subscribes to (a plain list under bot_events)."""
    from pathlib import Path

    lines = (Path(__file__).parents[1] / "deploy" / "slack-manifest.yaml").read_text().splitlines()
    start = next(n for n, line in enumerate(lines) if line.strip() == "bot_events:")
    events = []
    for line in lines[start + 1:]:
        if not line.strip().startswith("- "):
            break
        events.append(line.strip()[2:])
    return events


def _sample_event(name: str, n: int) -> str:
    """An event of the subscribed type, shaped as Slack's documentation shows it."""
    ts = f"1700000300.{n:06d}"
    if name.startswith("message."):
        kind = {"message.channels": "channel", "message.groups": "group", "message.im": "im",
                "message.mpim": "mpim"}[name]
        return event_body("채널 공지 확인했어요", event_id=f"EvM{n}", ts=ts, kind="message", channel_type=kind,
                          channel="D1" if kind == "im" else "C1")
    if name.startswith("assistant_thread"):
        body = json.loads(event_body("", event_id=f"EvA{n}", ts=ts))
        body["event"] = {"type": name, "event_ts": ts, "assistant_thread": {
            "user_id": "U1", "channel_id": "D1", "thread_ts": ts,
            "context": {"channel_id": "C1", "team_id": "T1", "enterprise_id": None}}}
        return json.dumps(body)
    if name in ("tokens_revoked", "app_uninstalled"):
        return json.dumps(revocation_body(name, event_id=f"EvR{n}"))
    return event_body(f"<@{BOT_USER}> 안녕", event_id=f"EvN{n}", ts=ts, kind=name)


async def test_every_event_the_manifest_subscribes_to_is_acknowledged(bot, slack):
    """An event docbot subscribes to but does not handle gets 404 from Bolt, and Slack disables the
    subscription after repeated failures: each one answers 200."""
    events = _manifest_events()
    assert {"app_mention", "assistant_thread_started", "assistant_thread_context_changed", "message.im"} <= set(events)
    for n, name in enumerate(events):
        response = await bot.post_signed(_sample_event(name, n))
        assert response.status == 200, name


async def test_the_assistant_pane_greets_with_suggested_prompts_and_names_its_threads(bot, slack):
    await bot.post_signed(_sample_event("assistant_thread_started", 900))
    await until(lambda: slack.named("assistant.threads.setSuggestedPrompts"))
    greeting = slack.named("chat.postMessage")[0]
    assert "안녕하세요" in greeting["text"] and "Hi!" in greeting["text"]
    prompts = slack.named("assistant.threads.setSuggestedPrompts")[0]["prompts"]
    prompts = json.loads(prompts) if isinstance(prompts, str) else prompts
    assert any("연차" in p["message"] for p in prompts) and any("on-call" in p["message"] for p in prompts)
    thread = "1700000300.000900"
    await bot.post_signed(event_body("연차는 1년에 며칠이야?", event_id="EvAs1", ts="1700000301.000100", channel="D1",
                                     kind="message", channel_type="im", thread_ts=thread))
    await until(lambda: slack.named("chat.stopStream"))
    title, = slack.named("assistant.threads.setTitle")
    assert title["thread_ts"] == thread and title["title"] == "연차는 1년에 며칠이야?"
    status = slack.named("assistant.threads.setStatus")[-1]
    loading = status["loading_messages"]
    assert (json.loads(loading) if isinstance(loading, str) else loading)


async def test_workspaces_install_through_oauth_and_each_is_answered_with_its_own_token(slack, handbook_indexer,
                                                                                        analyzer, classifier,
                                                                                        tmp_path):
    """Multi-workspace: /slack/install sends the admin to Slack with a one-time state, the redirect's code
    becomes that team's bot token (stored in docbot's database), and each team's events are answered
    with its own token; a team that never installed is not answered."""
    from urllib.parse import parse_qs, urlparse

    from adapters.slack_install import OAuthConfig
    from bot.storage import Store

    db = f"sqlite:///{tmp_path / 'oauth.sqlite3'}"
    service = build_service(handbook_indexer, analyzer, classifier, db)
    adapter = SlackAdapter(service, None, SECRET, api_base_url=slack.base_url, update_every=0.0,
                           oauth=OAuthConfig(*slack.client), engine=Store(db).engine)
    app = web.Application()
    adapter.mount(app)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    try:
        start = await client.get("/slack/install", allow_redirects=False)
        assert start.status == 302
        authorize = urlparse(start.headers["Location"])
        assert authorize.netloc == "slack.com" and "chat:write" in parse_qs(authorize.query)["scope"][0]
        state = parse_qs(authorize.query)["state"][0]
        cookie = start.headers["Set-Cookie"].split(";")[0]
        slack.oauth_codes["code-T2"] = "T2"
        done = await client.get(f"/slack/oauth_redirect?code=code-T2&state={state}", headers={"Cookie": cookie})
        assert done.status == 200
        replay = await client.get(f"/slack/oauth_redirect?code=code-T2&state={state}", headers={"Cookie": cookie})
        assert replay.status != 200  # a state is good once

        async def post(body: str):
            return await client.post("/slack/events", data=body.encode(),
                                     headers={"Content-Type": "application/json", **signed(SECRET, body)})

        event = json.loads(event_body(f"<@{BOT_USER}> 연차는 1년에 며칠이야?", event_id="EvT2", ts="1700000400.000100"))
        event.update(team_id="T2", authorizations=[{"user_id": BOT_USER, "is_bot": True, "team_id": "T2"}])
        await post(json.dumps(event))
        await until(lambda: slack.named("chat.stopStream"))
        assert {c["_team"] for c in slack.named("chat.postMessage") + slack.named("chat.appendStream")} == {"T2"}
        stranger = {**event, "team_id": "T3", "event_id": "EvT3",
                    "authorizations": [{"user_id": BOT_USER, "is_bot": True, "team_id": "T3"}]}
        stranger["event"] = {**event["event"], "ts": "1700000401.000100"}
        await post(json.dumps(stranger))
        await asyncio.sleep(0.5)
        assert len(slack.named("chat.stopStream")) == 1  # no installation, no token, no answer
    finally:
        await client.close()


async def test_a_slack_connect_colleague_from_another_organisation_is_answered_in_the_thread(bot, slack):
    """In a Slack Connect channel the event's `team` is the asker's own organisation; the thread is keyed
    by the workspace docbot is installed in (the envelope's team_id), so follow-ups find their history."""
    root = "1700000500.000100"
    await bot.post_signed(event_body(f"<@{BOT_USER}> 프로젝트 삭제 정책 알려줘", event_id="EvX1", ts=root, user="UEXT",
                                     team="T9PARTNER"))
    await until(lambda: len(slack.named("chat.stopStream")) == 1)
    await bot.post_signed(event_body("그럼 언제까지 살릴 수 있어?", event_id="EvX2", ts="1700000500.000200",
                                     thread_ts=root, kind="message", user="UEXT", team="T9PARTNER"))
    await until(lambda: len(slack.named("chat.stopStream")) == 2)
    conv = bot.service.store.conversation("slack", "T1", "C1", root).id
    follow = [m for m in bot.service.store.history(conv, 10) if m.role == "user"][-1]
    assert follow.user_id == "UEXT" and "프로젝트" in follow.rewritten


async def test_once_a_colleague_has_spoken_the_askers_replies_to_them_are_not_answered(bot, slack):
    """Issue 29, item 4: docbot knew only who had asked it, so after a colleague joined the thread the asker's
    reply to them ("맞아요, 그거 신청했어요") was answered. Everyone seen in the thread counts now."""
    root = "1700000700.000100"
    await bot.post_signed(event_body(f"<@{BOT_USER}> 연차는 1년에 며칠이야?", event_id="EvJ1", ts=root))
    await until(lambda: len(slack.named("chat.stopStream")) == 1)
    await bot.post_signed(_event("저는 올해 이월분도 있어요", event_id="EvJ2", ts="1700000700.000200", thread_ts=root,
                                 user="U2", parent_user_id="U1"))
    store = bot.service.store

    def colleague_seen() -> bool:  # total: False until the thread and its participant row exist
        conversation = store.find_conversation("slack", "T1", "C1", root)
        return conversation is not None and "U2" in store.participants(conversation.id)

    await until(colleague_seen)  # Bolt handles events after acknowledging them: the next one must come after
    await bot.post_signed(_event("아 그래요? 어떻게 하셨어요?", event_id="EvJ3", ts="1700000700.000300", thread_ts=root,
                                 parent_user_id="U1"))
    assert await _answered_count(slack) == 1
    await bot.post_signed(_event(f"<@{BOT_USER}> 이월은 며칠까지 돼?", event_id="EvJ4", ts="1700000700.000400",
                                 thread_ts=root, parent_user_id="U1"))
    await until(lambda: len(slack.named("chat.stopStream")) == 2)  # a mention is still answered


async def test_people_seen_in_the_thread_docbot_was_called_into_count_too(bot, slack):
    """The thread read on joining names its speakers: U1's plain follow-up after U2 and U3 talked there waits
    for a mention."""
    root = "1700000710.000100"
    slack.threads[root] = [
        {"type": "message", "user": "U2", "text": "재택근무 정책 문서 봤어요?", "ts": root, "thread_ts": root},
        {"type": "message", "user": "U3", "text": "주 2회까지요", "ts": "1700000710.000200", "thread_ts": root},
    ]
    await bot.post_signed(event_body(f"<@{BOT_USER}> 신청은 어디서 해?", event_id="EvK1", ts="1700000710.000300",
                                     thread_ts=root))
    await until(lambda: len(slack.named("chat.stopStream")) == 1)
    await bot.post_signed(_event("승인은 누가 해?", event_id="EvK2", ts="1700000710.000400", thread_ts=root,
                                 parent_user_id="U2"))
    assert await _answered_count(slack) == 1


async def test_start_over_in_a_direct_message_drops_the_borrowed_half_hour(bot, slack):
    """Teams' start-over phrases were Teams' own; the core has them now, so a Slack DM "새 대화" is heard, and
    the next top-level DM does not continue the earlier topic."""
    await bot.post_signed(event_body("프로젝트 삭제 정책 알려줘", event_id="EvN1", ts="1700000720.000100", channel="D1",
                                     kind="message", channel_type="im"))
    await until(lambda: len(slack.named("chat.stopStream")) == 1)
    await bot.post_signed(event_body("새 대화", event_id="EvN2", ts="1700000720.000200", channel="D1",
                                     kind="message", channel_type="im"))
    await until(lambda: any("새 대화를 시작합니다" in (p.get("text") or "") for p in slack.named("chat.postMessage")))
    await bot.post_signed(event_body("그럼 언제까지 살릴 수 있어?", event_id="EvN3", ts="1700000720.000300",
                                     channel="D1", kind="message", channel_type="im"))
    await until(lambda: len(slack.named("chat.stopStream")) == 2)
    conv = bot.service.store.conversation("slack", "T1", "D1", "1700000720.000300").id
    question = [m for m in bot.service.store.history(conv, 10) if m.role == "user"][-1]
    assert question.rewrite_method == "none"  # nothing borrowed from before the start over
