"""Issue 29, item 11: the Slack stand-in refuses what Slack refuses, one test per rule, through the real
slack_sdk client (each rule was checked against docs.slack.dev before it was written; see slack_standin)."""
import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from slack_standin import SlackStandIn


@pytest.fixture
async def slack():
    standin = await SlackStandIn().start()
    yield standin
    await standin.close()


def _client(slack, token: str = "xoxb-test", retries: int = 0) -> AsyncWebClient:
    client = AsyncWebClient(token=token, base_url=slack.base_url)
    if retries:
        client.retry_handlers.append(AsyncRateLimitErrorRetryHandler(max_retry_count=retries))
    return client


async def _error(call) -> str:
    with pytest.raises(SlackApiError) as raised:
        await call
    return raised.value.response["error"]


async def test_a_stream_in_a_channel_names_its_recipient(slack):
    client = _client(slack)
    assert await _error(client.chat_startStream(channel="C1", thread_ts="1.1")) == "invalid_arguments"
    assert await _error(client.chat_startStream(channel="C1", thread_ts="1.1",
                                                recipient_user_id="U1")) == "invalid_arguments"
    assert (await client.chat_startStream(channel="C1", thread_ts="1.1", recipient_user_id="U1",
                                          recipient_team_id="T1"))["ok"]
    assert (await client.chat_startStream(channel="D1", thread_ts="1.1"))["ok"]  # a DM needs none


async def test_a_message_ts_names_a_message_only_in_its_own_channel(slack):
    client = _client(slack)
    slack.joined.add("C2")
    posted = await client.chat_postMessage(channel="C1", text="hello")
    assert await _error(client.chat_update(channel="C2", ts=posted["ts"], text="moved?")) == "message_not_found"
    assert await _error(client.chat_delete(channel="C2", ts=posted["ts"])) == "message_not_found"
    stream = await client.chat_startStream(channel="D1", thread_ts="1.1")
    assert await _error(client.chat_appendStream(channel="C1", ts=stream["ts"], markdown_text="x")) == \
        "message_not_found"
    assert (await client.chat_update(channel="C1", ts=posted["ts"], text="edited"))["ok"]


async def test_markdown_blocks_share_12000_characters_per_payload(slack):
    client = _client(slack)
    two = [{"type": "markdown", "text": "가" * 6001}, {"type": "markdown", "text": "나" * 6000}]
    assert await _error(client.chat_postMessage(channel="C1", text="t", blocks=two)) == "invalid_blocks"
    two[0]["text"] = "가" * 6000
    assert (await client.chat_postMessage(channel="C1", text="t", blocks=two))["ok"]


async def test_block_kit_limits_of_actions_buttons_and_block_types(slack):
    client = _client(slack)

    def button(n: int, label: str = "ok") -> dict:
        return {"type": "button", "text": {"type": "plain_text", "text": label}, "action_id": f"a{n}", "value": "v"}

    too_many = [{"type": "actions", "elements": [button(n) for n in range(26)]}]
    assert await _error(client.chat_postMessage(channel="C1", text="t", blocks=too_many)) == "invalid_blocks"
    long_label = [{"type": "actions", "elements": [button(0, "x" * 76)]}]
    assert await _error(client.chat_postMessage(channel="C1", text="t", blocks=long_label)) == "invalid_blocks"
    unknown = [{"type": "paragraph", "text": "hi"}]
    assert await _error(client.chat_postMessage(channel="C1", text="t", blocks=unknown)) == "invalid_blocks"
    fine = [{"type": "actions", "elements": [button(n) for n in range(25)]},
            {"type": "actions", "elements": [button(99, "x" * 75)]}]
    assert (await client.chat_postMessage(channel="C1", text="t", blocks=fine))["ok"]


async def test_a_dm_docbot_is_not_part_of_is_not_found(slack):
    client = _client(slack)
    assert await _error(client.chat_postMessage(channel="D9", text="hi")) == "channel_not_found"
    assert await _error(client.conversations_replies(channel="D9", ts="1.1")) == "channel_not_found"
    assert (await client.chat_postMessage(channel="D1", text="hi"))["ok"]


async def test_an_ephemeral_message_needs_its_reader_in_the_channel(slack):
    client = _client(slack)
    slack.members["C1"] = {"U1", "U2"}
    assert await _error(client.chat_postEphemeral(channel="C1", user="U7", text="psst")) == "user_not_in_channel"
    assert (await client.chat_postEphemeral(channel="C1", user="U2", text="psst"))["ok"]


async def test_a_streamed_message_holds_40000_characters_in_all(slack):
    client = _client(slack)
    stream = await client.chat_startStream(channel="D1", thread_ts="1.1")
    for _ in range(4):
        await client.chat_appendStream(channel="D1", ts=stream["ts"], markdown_text="x" * 10_000)
    assert await _error(client.chat_appendStream(channel="D1", ts=stream["ts"], markdown_text="y")) == "msg_too_long"
    assert await _error(client.chat_appendStream(channel="D1", ts=stream["ts"], markdown_text="z" * 12_001)) == \
        "msg_too_long"  # and 12,000 per call


async def test_assistant_thread_titles_and_prompts_only_in_assistant_threads(slack):
    client = _client(slack)
    assert await _error(client.assistant_threads_setTitle(channel_id="C1", thread_ts="1.1", title="t")) == \
        "invalid_thread_ts"
    prompts = [{"title": "a", "message": "b"}]
    assert await _error(client.assistant_threads_setSuggestedPrompts(channel_id="C1", thread_ts="1.1",
                                                                     prompts=prompts)) == "invalid_thread_ts"
    assert (await client.assistant_threads_setTitle(channel_id="D1", thread_ts="1.1", title="t"))["ok"]


async def test_a_response_url_takes_five_posts_within_thirty_minutes(slack):
    now = [1000.0]
    slack.clock = lambda: now[0]
    url = slack.response_url("once")
    async with aiohttp.ClientSession() as session:
        statuses = [(await session.post(url, json={"text": f"{n}"})).status for n in range(6)]
        assert statuses == [200] * 5 + [404]
        late = slack.response_url("late")
        now[0] += 30 * 60 + 1
        assert (await session.post(late, json={"text": "late"})).status == 404
    assert ("respond", "used_url") in slack.refused and ("respond", "expired_url") in slack.refused


async def test_a_revoked_token_is_refused(slack):
    client = _client(slack)
    assert (await client.auth_test())["ok"]
    slack.revoke("T1")
    assert await _error(client.chat_postMessage(channel="C1", text="hi")) == "token_revoked"
    assert await _error(_client(slack, "xoxb-unknown").auth_test()) == "invalid_auth"


async def test_rate_limits_repeat_and_a_client_must_wait_out_retry_after(slack):
    now = [0.0]
    slack.clock = lambda: now[0]
    slack.rate_limited["chat.postMessage"] = 2
    client = _client(slack)
    assert await _error(client.chat_postMessage(channel="C1", text="1")) == "ratelimited"
    assert await _error(client.chat_postMessage(channel="C1", text="2")) == "ratelimited"  # too early
    assert slack.early == ["chat.postMessage"] and slack.rate_limited["chat.postMessage"] == 1
    now[0] += 1
    assert await _error(client.chat_postMessage(channel="C1", text="3")) == "ratelimited"  # still limited
    now[0] += 1
    assert (await client.chat_postMessage(channel="C1", text="4"))["ok"]


async def test_slack_sdks_retry_handler_waits_out_repeated_429s(slack):
    """The real client with the handler docbot installs waits each Retry-After (none of its calls early)."""
    slack.rate_limited["chat.postMessage"] = 2
    client = _client(slack, retries=3)
    assert (await client.chat_postMessage(channel="C1", text="hi"))["ok"]
    assert len(slack.named("chat.postMessage")) == 3 and slack.early == []
