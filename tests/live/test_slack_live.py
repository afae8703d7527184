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
