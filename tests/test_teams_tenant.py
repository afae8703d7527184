"""Teams as a real tenant sees it, against the strict connector stand-in: activities shaped like the
documented ones, a service that redelivers what is not answered in time, and the size, streaming and
citation rules the connector enforces."""
import asyncio
import json
import time

import pytest
from test_teams import _card, _client, settled
from test_teams_service_url import standin_hosts

from adapters.teams import DocbotAgent, TeamsAdapter
from adapters.teams_render import MESSAGE_BUDGET, utf16_size
from rag.pipeline import Pipeline

from conftest import build_service, slow_answers
from connector_standin import SIZE_LIMIT, deliver, message


@pytest.fixture
async def teams(connector, handbook_indexer, analyzer, classifier, tmp_path):
    service = build_service(handbook_indexer, analyzer, classifier, f"sqlite:///{tmp_path / 't.sqlite3'}")
    client = await _client(TeamsAdapter(service, update_every=0.0))
    client.service = service
    yield client
    await client.close()


def _long_answers(monkeypatch, size: int) -> str:
    """Every answer becomes `size` characters of Korean and English prose, in pieces, with line breaks."""
    line = "배포 전에는 반드시 스테이징에서 검증합니다. Always verify on staging before a release.\n"
    text = (line * (size // len(line) + 1))[:size]

    async def long_answer(self, prepared, history):
        for start in range(0, len(text), 4000):
            yield text[start:start + 4000]

    monkeypatch.setattr(Pipeline, "answer", long_answer)
    return text


def _stored_answers(service, key_channel: str, thread: str) -> list:
    conv = service.store.conversation("teams", "tenant-1", key_channel, thread).id
    return [m for m in service.store.history(conv, 50) if m.role == "assistant"]


async def test_a_message_is_acknowledged_at_once_and_a_redelivery_is_not_answered_twice(teams, connector,
                                                                                      monkeypatch):
    """Teams gives up on an HTTP answer after ~15 s and delivers the activity again: docbot acknowledges
    first and answers after, so the service never redelivers, and a redelivery would be answered once."""
    slow_answers(monkeypatch, 20, delay=0.1)  # a 2-second answer against a patience of 1 second
    activity = message("How does the on-call rotation work?", connector.service_url, activity_id="slow-1")
    statuses = await _deliver_raw(teams, activity, 1.0)
    assert statuses == [202]
    again = await _deliver_raw(teams, activity, 1.0)  # the same activity id, as a redelivery carries
    assert again == [202]
    await settled(teams.adapter)
    answers = _stored_answers(teams.service, "a:personal-1", "a:personal-1")
    assert len(answers) == 1 and answers[0].status == "complete" and "part 19." in answers[0].text
    finals = [r for r in connector.of("reply") if any(e.get("streamType") == "final" for e in r.get("entities", []))]
    assert len(finals) == 1


async def _deliver_raw(teams, activity, patience):
    """`deliver` over the client's plain post (the fixture's `post` also waits for the answer)."""
    class Raw:
        post = staticmethod(teams.post_only)

    return await deliver(Raw, activity, patience=patience)


async def test_an_internal_error_reaches_the_user_as_an_apology_not_its_text(teams, connector, monkeypatch, caplog):
    async def broken(*args, **kwargs):
        raise ValueError("invalid literal for int() with base 10: 'secret-internal-state'")

    monkeypatch.setattr(teams.service, "ask", broken)
    await teams.post("/api/messages", json=message("연차는 며칠이야?", connector.service_url, activity_id="err-1"))
    said = " ".join(r.get("text") or "" for r in connector.of("reply") + connector.of("send"))
    assert "죄송합니다" in said and "invalid literal" not in said and "Exception" not in said
    assert any("err-1" in r.getMessage() for r in caplog.records)  # logged with the activity id


@pytest.mark.parametrize("kind,conversation", [("groupChat", "19:group@thread.v2"),
                                               ("channel", "19:abc@thread.tacv2;messageid=1700000000000")])
async def test_a_long_answer_stays_within_the_size_limit_and_is_shown_once(teams, connector, monkeypatch, kind,
                                                                          conversation):
    """A 150 KB answer in a group chat or channel: no activity over the limit (the stand-in answers 413),
    the text appears once (in the card, not again as message text), the rest continues in messages."""
    text = _long_answers(monkeypatch, 75_000)  # 150 KB as UTF-16
    await teams.post("/api/messages", json=message("배포 절차 전부 알려줘", connector.service_url, kind=kind,
                                                   conversation=conversation, activity_id=f"long-{kind}"))
    assert connector.refused == []
    final = connector.of("update")[-1]
    assert utf16_size(final) <= MESSAGE_BUDGET < SIZE_LIMIT and not final.get("text")
    shown = _card(final)["body"][-2 if _card(final)["body"][-1].get("separator") else -1]["text"]
    continued = [r["text"] for r in connector.of("reply")[1:]]
    assert continued and all(utf16_size(r) <= MESSAGE_BUDGET for r in connector.of("reply"))
    joined = shown.split("\n\n(continued")[0] + "\n" + "\n".join(continued)
    assert joined.replace("\n", "").count("staging") == text.count("staging")


async def test_a_long_answer_in_a_one_on_one_chat_streams_within_the_limit(teams, connector, monkeypatch):
    text = _long_answers(monkeypatch, 75_000)
    await teams.post("/api/messages", json=message("배포 절차 전부 알려줘", connector.service_url,
                                                   conversation="a:personal-long", activity_id="long-p"))
    assert connector.refused == []
    assert all(utf16_size(r) <= SIZE_LIMIT for r in connector.of("reply"))
    stored = _stored_answers(teams.service, "a:personal-long", "a:personal-long")[-1]
    assert stored.text == text and stored.status == "complete"


async def test_group_answers_carry_the_ai_label_citations_and_teams_feedback(teams, connector):
    await teams.post("/api/messages", json=message("연차는 1년에 며칠이야?", connector.service_url, kind="groupChat",
                                                   conversation="19:group-ai@thread.v2", activity_id="ai-1"))
    final = connector.of("update")[-1]
    entity = next(e for e in final.get("entities", []) if e.get("@type") == "Message")
    assert "AIGeneratedContent" in entity["additionalType"]
    assert entity["citation"][0]["appearance"]["name"] and len(entity["citation"][0]["appearance"]["abstract"]) <= 160
    assert final["channelData"]["feedbackLoop"] == {"type": "default"}


async def test_teams_own_feedback_form_is_stored_with_its_comment(teams, connector):
    """The native 👍/👎 (`message/submitAction` invoke) was a 501; it is stored like the card's buttons."""
    await teams.post("/api/messages", json=message("연차는 1년에 며칠이야?", connector.service_url,
                                                   conversation="a:personal-fb", activity_id="fb-1"))
    final = next(r for r in connector.of("reply") if any(e.get("streamType") == "final"
                                                         for e in r.get("entities", [])))
    invoke = message("", connector.service_url, conversation="a:personal-fb", activity_id="fb-2",
                     reply_to=_stream_id(final), value={"actionName": "feedback", "actionValue": {
                         "reaction": "dislike", "feedback": json.dumps({"feedbackText": "연차 이월 내용이 빠졌어요"})}})
    invoke.update(type="invoke", name="message/submitAction")
    response = await teams.post("/api/messages", json=invoke)
    assert response.status == 200
    answer = _stored_answers(teams.service, "a:personal-fb", "a:personal-fb")[-1]
    feedback, = teams.service.store.feedback(answer.id)
    assert (feedback.user_id, feedback.helpful, feedback.comment) == ("aad-1", False, "연차 이월 내용이 빠졌어요")


def _stream_id(final: dict) -> str:
    """The message id of a finished stream (Teams keeps the stream's id for the final message)."""
    return next(e["streamId"] for e in final["entities"] if e.get("type") == "streaminfo")


async def test_a_thank_you_for_feedback_is_not_posted_to_a_group(teams, connector):
    await teams.post("/api/messages", json=message("What is Beacon?", connector.service_url, kind="groupChat",
                                                   conversation="19:group-fb@thread.v2", activity_id="g-1"))
    helpful = _card(connector.of("update")[-1])["actions"][1]["data"]
    before = len(connector.of("reply"))
    await teams.post("/api/messages", json=message("", connector.service_url, kind="groupChat",
                                                   conversation="19:group-fb@thread.v2", value=helpful,
                                                   activity_id="g-2"))
    answer = _stored_answers(teams.service, "19:group-fb@thread.v2", "19:group-fb@thread.v2")[-1]
    assert [f.helpful for f in teams.service.store.feedback(answer.id)] == [True]
    assert len(connector.of("reply")) == before  # nothing posted for everyone to read


async def test_a_stop_sent_from_another_chat_stops_nothing(teams, connector, monkeypatch):
    """A card submit is bound to the conversation it comes from: a known run id from elsewhere is refused."""
    slow_answers(monkeypatch, 40, delay=0.05)
    await teams.post_only("/api/messages", json=message("Tell me about on-call", connector.service_url,
                                                        conversation="a:victim", activity_id="v-1"))
    while not teams.service._active:  # the answer has started (the test's timeout guards a hang)
        await asyncio.sleep(0.02)
    running, = teams.service._active.values()
    await teams.post_only("/api/messages", json=message("", connector.service_url, conversation="a:attacker",
                                                        value={"docbot": "stop", "target": running.run_id},
                                                        activity_id="x-1"))
    await settled(teams.adapter)
    assert running.status == "complete" and not running.cancelled.is_set()


async def test_a_channel_thread_sees_sources_configured_for_its_channel(connector, analyzer, embedder, classifier,
                                                                       tmp_path, warm):
    """A channel thread's conversation.id is `<channel>;messageid=<root>`; a source restricted to the channel
    id (channelData.channel.id) must be found in its threads, and not elsewhere."""
    from docbot.runtime import Runtime
    from docbot.settings import Settings

    docs = tmp_path / "docs"
    (docs / "finance").mkdir(parents=True)
    (docs / "finance" / "allowance.md").write_text("# Executive hotel allowance\n\nThe hotel allowance for "
                                                   "executives is 900 USD a night.\n")
    (docs / "travel.md").write_text("# Travel policy\n\nBook hotels through the travel portal.\n")
    channel = "19:finance@thread.tacv2"
    runtime = Runtime(Settings(data_dir=tmp_path / "data", _env_file=None, rate_limit_per_user=0, sources=[
        {"name": "all", "path": str(docs)}, {"name": "finance", "path": str(docs / "finance"), "channels": [channel]}]))
    warm(runtime)
    runtime.index_job.run("cli")
    client = await _client(TeamsAdapter(runtime.conversations, update_every=0.0))
    try:
        question = "What is the hotel allowance for executives?"
        await client.post("/api/messages", json=message(question, connector.service_url, kind="channel",
                                                        conversation=f"{channel};messageid=1700000000001",
                                                        activity_id="c-1"))
        assert "900" in json.dumps(_card(connector.of("update")[-1]))
        await client.post("/api/messages", json=message(question, connector.service_url, kind="channel",
                                                        conversation="19:general@thread.tacv2;messageid=17",
                                                        activity_id="c-2"))
        assert "900" not in json.dumps(_card(connector.of("update")[-1]))
    finally:
        await client.close()
        runtime.close()


def test_the_session_key_of_a_channel_thread_is_its_channel_and_thread():
    from microsoft_agents.activity import Activity

    activity = Activity.model_validate(message("hi", "http://x/", kind="channel",
                                               conversation="19:abc@thread.tacv2;messageid=42"))
    key = DocbotAgent.key(activity)
    assert (key.channel, key.thread) == ("19:abc@thread.tacv2", "19:abc@thread.tacv2;messageid=42")


async def test_start_over_in_a_one_on_one_chat_forgets_the_thread(teams, connector):
    chat = "a:personal-new"
    await teams.post("/api/messages", json=message("프로젝트 삭제 정책 알려줘", connector.service_url, conversation=chat,
                                                   activity_id="n-1"))
    await teams.post("/api/messages", json=message("새 대화", connector.service_url, conversation=chat,
                                                   activity_id="n-2"))
    assert "새 대화를 시작합니다" in connector.of("reply")[-1]["text"]
    await teams.post("/api/messages", json=message("그럼 언제까지 살릴 수 있어?", connector.service_url, conversation=chat,
                                                   activity_id="n-3"))
    question = [m for m in teams.service.store.history(
        teams.service.store.conversation("teams", "tenant-1", chat, chat).id, 10) if m.role == "user"][-1]
    assert question.text == "그럼 언제까지 살릴 수 있어?" and question.rewrite_method == "none"  # no history to lean on


async def test_the_stand_in_refuses_what_teams_refuses(connector):
    """The connector's own rules, each checked: size, unknown updates, streaming outside 1:1 chats,
    a chunk that drops earlier text, and a citation abstract past its limit."""
    import aiohttp

    base = connector.service_url.rstrip("/") + "/v3/conversations/c1/activities"
    async with aiohttp.ClientSession() as http:
        big = {"type": "message", "text": "x" * 60_000}
        assert (await http.post(base, json=big)).status == 413
        assert (await http.put(f"{base}/never-issued", json={"type": "message", "text": "hi"})).status == 404
        group = {"type": "message", "text": "a", "conversation": {"id": "c1", "conversationType": "groupChat"},
                 "entities": [{"type": "streaminfo", "streamType": "streaming", "streamSequence": 1}]}
        assert (await http.post(base, json=group)).status == 403
        first = {**group, "conversation": {"id": "c1", "conversationType": "personal"}}
        stream_id = (await (await http.post(base, json=first)).json())["id"]
        dropped = {**first, "text": "b", "entities": [{"type": "streaminfo", "streamType": "streaming",
                                                       "streamSequence": 2, "streamId": stream_id}]}
        assert (await http.post(base, json=dropped)).status == 400
        cited = {"type": "message", "text": "x", "entities": [{"@type": "Message", "citation": [
            {"@type": "Claim", "position": 1, "appearance": {"@type": "DigitalDocument", "name": "n",
                                                             "abstract": "y" * 161}}]}]}
        assert (await http.post(base, json=cited)).status == 400


async def test_with_an_app_id_a_token_from_an_unknown_issuer_is_refused(connector, handbook_indexer, analyzer,
                                                                        classifier, tmp_path, monkeypatch):
    """Issuer validation is on: a correctly signed token for docbot's app id, issued by someone who is not
    Bot Framework or Entra, gets 401 (the SDK checks issuers only when asked to)."""
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa
    from microsoft_agents.hosting.core.authorization.jwt import jwt_token_validator

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    async def signing_key(self, jwks_uri, header):
        return jwt.PyJWK.from_dict({**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key())),
                                    "kid": "k1", "alg": "RS256"})

    monkeypatch.setattr(jwt_token_validator._JwkClientManager, "get_signing_key", signing_key)
    app_id = "00000000-0000-0000-0000-0000000000aa"
    service = build_service(handbook_indexer, analyzer, classifier, f"sqlite:///{tmp_path / 'i.sqlite3'}")
    client = await _client(TeamsAdapter(service, app_id=app_id, app_password="pw", update_every=0.0,
                                        host_validator=standin_hosts(connector.service_url)))

    def token(issuer: str) -> str:
        now = int(time.time())
        claims = {"iss": issuer, "aud": app_id, "iat": now, "nbf": now, "exp": now + 600,
                  "serviceurl": connector.service_url}
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": "k1"})

    try:
        forged = await client.post_only("/api/messages", json=message("hi", connector.service_url, activity_id="j-1"),
                                        headers={"Authorization": f"Bearer {token('https://evil.example/')}"})
        assert forged.status == 401
        genuine = await client.post_only("/api/messages",
                                         json=message("hi", connector.service_url, activity_id="j-2"),
                                         headers={"Authorization": f"Bearer {token('https://api.botframework.com')}"})
        assert genuine.status != 401
    finally:
        await settled(client.adapter)
        await client.close()


async def test_a_channel_mention_is_answered_without_the_mention_in_the_search(teams, connector):
    thread = "19:ops@thread.tacv2;messageid=1700000000002"
    await teams.post("/api/messages", json=message("연차는 1년에 며칠이야?", connector.service_url, kind="channel",
                                                   conversation=thread, activity_id="at-1", mention=True))
    question = [m for m in teams.service.store.history(teams.service.store.conversation(
        "teams", "tenant-1", "19:ops@thread.tacv2", thread).id, 5) if m.role == "user"][-1]
    assert question.text == "연차는 1년에 며칠이야?" and "<at>" not in (question.rewritten or "")
    assert "15" in json.dumps(_card(connector.of("update")[-1]), ensure_ascii=False)


@pytest.mark.parametrize("activity", [
    # The bot added to a team (Teams sends a conversationUpdate with membersAdded and eventType).
    {"type": "conversationUpdate", "membersAdded": [{"id": "28:docbot"}],
     "channelData": {"eventType": "teamMemberAdded", "team": {"id": "19:team@thread.tacv2"},
                     "tenant": {"id": "tenant-1"}}},
    # A reaction to one of docbot's messages.
    {"type": "messageReaction", "reactionsAdded": [{"type": "like"}], "replyToId": "activity-1"},
    # A message that is only a pasted image: no text at all.
    {"type": "message", "attachments": [{"contentType": "image/png", "contentUrl": "https://x/a.png"}],
     "textFormat": "plain"},
])
async def test_documented_activities_docbot_does_not_answer_are_accepted_quietly(teams, connector, activity):
    base = message("", connector.service_url, activity_id="other-1")
    base.pop("text")
    base.update(activity)
    response = await teams.post("/api/messages", json=base)
    assert response.status in (200, 202) and connector.refused == []
    said = " ".join(r.get("text") or "" for r in connector.of("reply") + connector.of("send"))
    assert "Exception" not in said and "죄송합니다" not in said and "Sorry" not in said
