"""Issue 29, item 11: the Teams connector stand-in refuses what the Bot Connector refuses, one test per rule
(each checked against learn.microsoft.com/microsoftteams/platform/bots/streaming-ux and
.../bots/how-to/bot-messages-ai-generated-content before it was written)."""
import aiohttp
import pytest

from connector_standin import ConnectorStandIn


@pytest.fixture
async def connector():
    standin = await ConnectorStandIn().start()
    yield standin
    await standin.close()


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _post(connector, conversation: str, body: dict, *, method: str = "POST", activity: str = "",
                token: str | None = None) -> tuple[int, dict]:
    url = connector.server.make_url(f"/v3/conversations/{conversation}/activities" + (f"/{activity}" if activity else ""))
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with aiohttp.ClientSession() as session:
        async with session.request(method, url, json=body, headers=headers) as response:
            return response.status, await response.json()


def _chunk(text: str, sequence: int, stream: str | None = None, kind: str = "streaming") -> dict:
    info = {"type": "streaminfo", "streamType": kind, **({"streamSequence": sequence} if kind != "final" else {}),
            **({"streamId": stream} if stream else {})}
    return {"type": "message" if kind == "final" else "typing", "text": text, "entities": [info],
            "conversation": {"id": "a:1", "conversationType": "personal"}}


async def test_an_update_naming_another_conversations_activity_is_not_found(connector):
    status, sent = await _post(connector, "a:1", {"type": "message", "text": "hi"})
    assert status == 200
    assert (await _post(connector, "a:2", {"type": "message", "text": "x"}, method="PUT", activity=sent["id"]))[0] == 404
    assert (await _post(connector, "a:1", {"type": "message", "text": "y"}, method="PUT", activity=sent["id"]))[0] == 200


async def test_calls_without_the_bots_token_are_unauthorized(connector):
    connector.token = "bot-token"
    assert (await _post(connector, "a:1", {"type": "message", "text": "hi"}))[0] == 401
    assert (await _post(connector, "a:1", {"type": "message", "text": "hi"}, token="other"))[0] == 401
    assert (await _post(connector, "a:1", {"type": "message", "text": "hi"}, token="bot-token"))[0] == 200


async def test_adaptive_cards_need_a_supported_version_and_known_types(connector):
    def card(**content) -> dict:
        body = {"type": "AdaptiveCard", "version": "1.5", "body": [{"type": "TextBlock", "text": "hi"}], **content}
        return {"type": "message", "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive",
                                                    "content": body}]}

    assert (await _post(connector, "a:1", card()))[0] == 200
    assert (await _post(connector, "a:1", card(version="1.6")))[0] == 400
    assert (await _post(connector, "a:1", card(version=None)))[0] == 400
    assert (await _post(connector, "a:1", card(type="HeroCard")))[0] == 400
    assert (await _post(connector, "a:1", card(body=[{"type": "Paragraph", "text": "x"}])))[0] == 400
    assert (await _post(connector, "a:1", card(actions=[{"type": "Action.Launch", "title": "x"}])))[0] == 400


async def test_citations_are_limited_in_count_name_and_keywords(connector):
    def message(claims: list) -> dict:
        return {"type": "message", "text": "x", "entities": [{"type": "https://schema.org/Message",
                                                               "@type": "Message", "citation": claims}]}

    def claim(n: int, name: str = "doc", keywords=()) -> dict:
        return {"@type": "Claim", "position": n, "appearance": {"@type": "DigitalDocument", "name": name,
                                                                "abstract": "a", "keywords": list(keywords)}}

    assert (await _post(connector, "a:1", message([claim(n) for n in range(1, 21)])))[0] == 200
    assert (await _post(connector, "a:1", message([claim(n) for n in range(1, 22)])))[0] == 400
    assert (await _post(connector, "a:1", message([claim(1, "n" * 81)])))[0] == 400
    assert (await _post(connector, "a:1", message([claim(1, keywords=["a", "b", "c", "d"])])))[0] == 400
    assert (await _post(connector, "a:1", message([claim(1, keywords=["k" * 29])])))[0] == 400
    assert (await _post(connector, "a:1", message([claim(1), claim(1)])))[0] == 400


async def test_a_stream_takes_one_request_a_second(connector):
    clock = connector.clock = Clock()
    status, started = await _post(connector, "a:1", _chunk("Searching", 1, kind="informative"))
    assert status == 200
    clock.now += 0.5
    status, refused = await _post(connector, "a:1", _chunk("A brown", 2, started["id"]))
    assert status == 429 and refused["error"]["message"] == "API calls quota exceeded"
    clock.now += 1.0
    assert (await _post(connector, "a:1", _chunk("A brown", 3, started["id"])))[0] == 200


async def test_a_stream_ends_within_two_minutes(connector):
    clock = connector.clock = Clock()
    status, started = await _post(connector, "a:1", _chunk("A brown", 1))
    clock.now += 60
    assert (await _post(connector, "a:1", _chunk("A brown fox", 2, started["id"])))[0] == 200
    clock.now += 61
    status, refused = await _post(connector, "a:1", _chunk("A brown fox", 0, started["id"], kind="final"))
    assert status == 403 and "exceeded streaming time" in refused["error"]["message"]


async def test_the_final_message_carries_the_streamed_text(connector):
    clock = connector.clock = Clock()
    status, started = await _post(connector, "a:1", _chunk("A brown fox", 1))
    clock.now += 1
    status, refused = await _post(connector, "a:1", _chunk("Done.", 0, started["id"], kind="final"))
    assert status == 403 and "previously streamed content" in refused["error"]["message"]
    clock.now += 1
    assert (await _post(connector, "a:1", _chunk("A brown fox jumped.", 0, started["id"], kind="final")))[0] == 200
