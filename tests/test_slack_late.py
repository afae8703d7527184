"""Slack calls that time out and land late (issue 30, the 200x3 load run): a stream must always end, and a
reply docbot posted again because its first try had not landed yet must not stay in the thread twice.

The real SlackAdapter (slack-bolt, slack_sdk) over HTTP against `tests/slack_standin.py`, whose
`lost_next` answers a call late without doing it and whose `delayed_next` does it only after the client
gave up (after docbot looked for it). No clock decides a timeout: the stand-in marks the calls that time
out and a session from `timing_out_session` raises on them, so a loaded machine cannot time out another call
(a 1 s HTTP timeout once timed out Bolt's auth.test, and the question was never seen)."""
from __future__ import annotations

import pytest
from test_reliability import _docbot_posts, _post, _streamed, _until, glossary_service  # noqa: F401  (fixture)


@pytest.fixture
async def late_bot(glossary_service):  # noqa: F811
    """The SlackAdapter against a stand-in that times out the calls it is told to; docbot waits 1 s (its
    `timeout`) before looking for a timed-out post again and looks for late calls every 5 s after it."""
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    from adapters.slack import SlackAdapter

    from slack_standin import SlackStandIn, timing_out_session

    slack = await SlackStandIn(signal_timeouts=True).start()
    adapter = SlackAdapter(glossary_service, "xoxb-test", "secret", api_base_url=slack.base_url, timeout=1,
                           update_every=0.0)
    adapter.app.client.session = timing_out_session()  # slack_sdk times a call out only through its own session
    replies = adapter.replies  # how answers get into threads (adapters/slack_stream.py)
    replies.late_window = 5  # (an attribute, so this fixture also runs on code without late-landing looks)
    adapter.client.retry_handlers.clear()  # a failed call fails at once
    rendered = []
    render = replies.render

    async def counted(*args, **kwargs):
        try:
            await render(*args, **kwargs)
        finally:
            rendered.append(args[0])

    replies.render = counted
    app = web.Application()
    adapter.mount(app)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    yield client, slack, glossary_service, adapter, rendered
    await client.close()
    await adapter.app.client.session.close()
    await slack.close()


async def _answered(late_bot, thread: str, event_id: str):
    """Ask once; wait until the answer is rendered and stored, every late call has reached the stand-in and
    docbot's looks for late calls are over (each check total). Returns the stored answer."""
    from slack_standin import event_body

    client, slack, service, adapter, rendered = late_bot
    assert (await _post(client, event_body("<@UBOT> Beacon이 뭐야?", event_id=event_id, ts=thread))).status == 200
    await _until(lambda: len(rendered) == 1 and not service._active)
    await _until(lambda: not any(slack.delayed_next.values()) and not any(slack.lost_next.values())
                 and slack.in_flight == 0 and not getattr(adapter.replies, "sweeping", ()))
    conv = service.store.find_conversation("slack", "T1", "C1", thread)
    return service.store.history(conv.id, 1)[0]


def _parts(slack, thread: str) -> list[str]:
    return [m["metadata"]["event_payload"]["part"] for m in _docbot_posts(slack, thread) if m.get("metadata")]


async def test_a_stop_that_never_reached_slack_is_tried_again(late_bot):
    """chat.stopStream timed out before Slack did it: docbot logged it and moved on, and the stream spun
    for ever (27 of them in the 200x3 run). It is tried again until Slack says it is stopped."""
    client, slack, service, *_ = late_bot
    slack.lost_next = {"chat.stopStream": 1}
    answer = await _answered(late_bot, "1700002000.000100", "EvStop")
    assert "streaming" not in slack._posted.values()
    assert slack.slowed == ["chat.stopStream"] and len(slack.named("chat.stopStream")) == 1  # lost, then done
    assert answer.status == "complete" and answer.text == _streamed(slack)


async def test_a_post_that_lands_after_docbot_looked_for_it_is_shown_once(late_bot):
    """chat.postMessage timed out, docbot found nothing in the thread and posted again, and then Slack's
    first copy landed: the reply was shown twice (13 in the 200x3 run). Now the late copy is deleted."""
    client, slack, service, *_ = late_bot
    slack.delayed_next = {"chat.postMessage": 1}
    thread = "1700002001.000100"
    answer = await _answered(late_bot, thread, "EvTwice")
    assert len(slack.named("chat.postMessage")) == 2  # the late copy did land
    assert _parts(slack, thread) == ["control"]  # ...and is not in the thread any more
    assert "streaming" not in slack._posted.values()
    assert answer.status == "complete" and answer.text == _streamed(slack)


async def test_a_stream_that_opens_after_docbot_looked_for_it_is_not_left_open(late_bot):
    """chat.startStream timed out and no stream was found, so the answer went into the control message; then
    Slack opened the stream, which nobody stopped. Now it is stopped and deleted."""
    from adapters.markup import slack_markdown

    client, slack, service, *_ = late_bot
    slack.delayed_next = {"chat.startStream": 1}
    thread = "1700002002.000100"
    answer = await _answered(late_bot, thread, "EvOrphan")
    assert len(slack.named("chat.startStream")) == 1 and "streaming" not in slack._posted.values()
    assert [m["ts"] for m in _docbot_posts(slack, thread)] == [slack.named("chat.update")[-1]["ts"]]
    shown = [b["text"] for b in slack.named("chat.update")[-1]["blocks"] if b["type"] == "markdown"]
    assert answer.status == "complete" and shown == [slack_markdown(answer.text)]
