"""Live Slack checks: run only when DOCBOT_LIVE_SLACK_TOKEN (a bot token) and DOCBOT_LIVE_SLACK_CHANNEL are set."""
import os

import pytest

TOKEN = os.environ.get("DOCBOT_LIVE_SLACK_TOKEN")
CHANNEL = os.environ.get("DOCBOT_LIVE_SLACK_CHANNEL")
pytestmark = [pytest.mark.live, pytest.mark.skipif(not (TOKEN and CHANNEL), reason="no live Slack token/channel set")]


async def test_token_works_and_streaming_round_trip():
    from slack_sdk.web.async_client import AsyncWebClient

    client = AsyncWebClient(token=TOKEN)
    auth = await client.auth_test()
    assert auth["ok"]
    root = await client.chat_postMessage(channel=CHANNEL, text="docbot live test: streaming check")
    stream = await client.chat_startStream(channel=CHANNEL, thread_ts=root["ts"], recipient_team_id=auth["team_id"],
                                           recipient_user_id=auth["user_id"])
    await client.chat_appendStream(channel=CHANNEL, ts=stream["ts"], markdown_text="hello from docbot's live suite")
    await client.chat_stopStream(channel=CHANNEL, ts=stream["ts"])


async def test_assistant_surface_calls_are_accepted():
    """The assistant pane's calls docbot makes: status with loading messages, title, suggested prompts.
    Needs DOCBOT_LIVE_SLACK_DM (a DM channel with an assistant thread open) and its DOCBOT_LIVE_SLACK_THREAD."""
    from slack_sdk.web.async_client import AsyncWebClient

    dm, thread = os.environ.get("DOCBOT_LIVE_SLACK_DM"), os.environ.get("DOCBOT_LIVE_SLACK_THREAD")
    if not (dm and thread):
        pytest.skip("no assistant thread configured")
    client = AsyncWebClient(token=TOKEN)
    await client.assistant_threads_setStatus(channel_id=dm, thread_ts=thread, status="is reading the documents…",
                                             loading_messages=["Searching the documents…"])
    await client.assistant_threads_setTitle(channel_id=dm, thread_ts=thread, title="docbot live test")
    await client.assistant_threads_setSuggestedPrompts(channel_id=dm, thread_ts=thread,
                                                       prompts=[{"title": "휴가 규정", "message": "연차는 며칠이야?"}])
