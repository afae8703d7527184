"""The Teams adapter: real activities posted to /api/messages, replies to a local connector stand-in."""
import asyncio
import json
import logging

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from adapters.teams import TeamsAdapter
from bot.actions import WebhookAction

from conftest import build_service, service_over, slow_answers
from connector_standin import message


async def _client(adapter: TeamsAdapter) -> TestClient:
    """A client whose `post` returns once the activity is acknowledged *and* answered (answers run after
    the acknowledgement, in continued turns); `post_only` returns at the acknowledgement."""
    app = web.Application()
    adapter.mount(app)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    post_only = client.post

    async def post_and_settle(*args, **kwargs):
        response = await post_only(*args, **kwargs)
        await settled(adapter)
        return response

    client.post_only, client.post, client.adapter = post_only, post_and_settle, adapter
    return client


async def settled(adapter: TeamsAdapter) -> None:
    """Wait until every answer the adapter started has been written."""
    while adapter.agent.running:
        await asyncio.gather(*adapter.agent.running, return_exceptions=True)


@pytest.fixture
async def teams(connector, handbook_indexer, analyzer, classifier, tmp_path):
    hook = WebhookAction("ticket", str(connector.server.make_url("/hook")), ["ticket"], "Open an ops ticket")
    service = build_service(handbook_indexer, analyzer, classifier, f"sqlite:///{tmp_path / 't.sqlite3'}", [hook])
    adapter = TeamsAdapter(service, update_every=0.0)
    client = await _client(adapter)
    client.service = service
    yield client
    await client.close()


def _card(activity: dict) -> dict:
    return next(a["content"] for a in activity.get("attachments") or [] if "adaptive" in a["contentType"])


async def test_personal_chat_streams_with_citations_and_a_card(teams, connector):
    response = await teams.post("/api/messages", json=message("연차는 1년에 며칠이야?", connector.service_url))
    assert response.status in (200, 202)
    replies = connector.of("reply")
    informative = replies[0]
    assert informative["type"] == "typing" and any(e.get("streamType") == "informative"
                                                   for e in informative.get("entities", []))
    final = replies[-1]
    assert final["type"] == "message" and "15일" in final["text"]
    assert any(e.get("streamType") == "final" for e in final.get("entities", []))
    entities = json.dumps(final.get("entities", []), ensure_ascii=False)
    assert "휴가 정책" in entities and "citation" in entities  # Teams citation entities for [n]
    card = _card(final)
    assert card["body"][0]["isSubtle"] and "연차" in card["body"][0]["text"]  # the rewritten query, small
    assert [a["data"]["docbot"] for a in card["actions"]] == ["regenerate", "helpful", "not_helpful"]
    conv = teams.service.store.conversation("teams", "tenant-1", "a:personal-1", "a:personal-1").id
    stored = teams.service.store.history(conv, 2)
    assert stored[1].status == "complete" and stored[1].text == final["text"]


async def test_channel_thread_sends_then_updates_and_keeps_history(teams, connector):
    thread = "19:abc@thread.tacv2;messageid=1700000000000"
    await teams.post("/api/messages", json=message("프로젝트 삭제 정책 알려줘", connector.service_url,
                                                   conversation=thread, kind="channel"))
    placeholder = connector.of("reply")[0]
    assert _card(placeholder)["actions"][0]["data"]["docbot"] == "stop"
    final = connector.of("update")[-1]
    assert "project-deletion-policy.md" in json.dumps(_card(final), ensure_ascii=False)
    assert connector.calls[-1]["conversation"] == thread
    await teams.post("/api/messages", json=message("그럼 언제까지 살릴 수 있어?", connector.service_url,
                                                   conversation=thread, kind="channel", activity_id="m2"))
    follow = _card(connector.of("update")[-1])
    assert "프로젝트" in follow["body"][0]["text"] and "30일" in follow["body"][1]["text"]


async def test_only_the_requester_can_confirm_and_a_double_click_acts_once(teams, connector):
    await teams.post("/api/messages", json=message("open a ticket for the VPN", connector.service_url,
                                                   conversation="g1", kind="groupChat"))
    card = _card(connector.of("update")[-1])
    confirm = card["actions"][0]["data"]
    assert confirm["docbot"] == "confirm"
    await teams.post("/api/messages", json=message("", connector.service_url, conversation="g1", kind="groupChat",
                                                   user="u2", aad="aad-2", value=confirm, activity_id="c1"))
    refusal = connector.of("reply")[-1]["text"]
    assert "Only the person who asked" in refusal and "aad" not in refusal and connector.hooks == []
    for n in range(2):
        await teams.post("/api/messages", json=message("", connector.service_url, conversation="g1",
                                                       kind="groupChat", value=confirm, activity_id=f"c{n + 2}",
                                                       reply_to="activity-1"))
    assert len(connector.hooks) == 1 and "already done" in connector.of("reply")[-1]["text"]
    results = [u for u in connector.of("update") if u.get("text", "").startswith("Done")]
    assert len(results) == 1 and not any(r.get("text", "").startswith("Done") for r in connector.of("reply"))  # shown once


async def test_feedback_and_stop_cards(teams, connector):
    await teams.post("/api/messages", json=message("What is Beacon?", connector.service_url))
    feedback = _card(connector.of("reply")[-1])["actions"][1]["data"]
    await teams.post("/api/messages", json=message("", connector.service_url, value=feedback, activity_id="f1"))
    assert [f.helpful for f in teams.service.store.feedback(int(feedback["target"]))] == [True]
    from bot.conversation import SessionKey

    key = SessionKey("teams", "tenant-1", "a:personal-1", "a:personal-1")
    running = await teams.service.ask(key, "How does the on-call rotation work?", "aad-1")
    await teams.post("/api/messages", json=message("", connector.service_url, activity_id="s1",
                                                   value={"docbot": "stop", "run": running.run_id}))
    assert running.cancelled.is_set()
    await running.collect()


async def test_connector_throttling_is_retried_and_a_dead_connector_stores_what_was_shown(teams, connector, caplog):
    connector.fail = [429, 503]
    await teams.post("/api/messages", json=message("What is Lumen?", connector.service_url, conversation="g2",
                                                   kind="groupChat"))
    sends = [c for c in connector.calls if c["kind"] in ("send", "reply")]
    assert len(sends) == 3 and connector.of("update")  # two refusals, then delivered and updated
    connector.fail = [500] * 50
    with caplog.at_level(logging.WARNING):
        await teams.post("/api/messages", json=message("What is the release train?", connector.service_url,
                                                       conversation="g3", kind="groupChat", activity_id="m9"))
    assert "teams send_activity failed: http_500" in caplog.text
    conv = teams.service.store.conversation("teams", "tenant-1", "g3", "g3").id
    question, answer = teams.service.store.history(conv, 2)
    assert question.text == "What is the release train?"  # the question is kept
    assert (answer.status, answer.text) == ("failed", "")  # nothing was shown, nothing is stored as shown


async def test_with_an_app_id_bad_tokens_get_401_not_500(connector, handbook_indexer, analyzer, classifier, tmp_path):
    service = build_service(handbook_indexer, analyzer, classifier, f"sqlite:///{tmp_path / 'j.sqlite3'}")
    adapter = TeamsAdapter(service, app_id="00000000-0000-0000-0000-000000000001", app_password="secret",
                           tenant_id="00000000-0000-0000-0000-000000000002")
    client = await _client(adapter)
    try:
        body = message("hi", connector.service_url)
        assert (await client.post("/api/messages", json=body)).status == 401  # no token
        bad = await client.post("/api/messages", json=body, headers={"Authorization": "Bearer not-a-jwt"})
        assert bad.status == 401
        forged = ("eyJhbGciOiJSUzI1NiIsImtpZCI6ImZha2UiLCJ0eXAiOiJKV1QifQ."
                  "eyJhdWQiOiIwMDAwMDAwMC0wMDAwLTAwMDAtMDAwMC0wMDAwMDAwMDAwMDEiLCJpc3MiOiJodHRwczovL2FwaS5ib3RmcmFtZXdvcmsuY29tIn0."
                  "c2lnbmF0dXJl")
        assert (await client.post("/api/messages", json=body, headers={"Authorization": f"Bearer {forged}"})).status == 401
        assert connector.calls == []
    finally:
        await client.close()


def test_teams_package_builds(tmp_path, monkeypatch):
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {"MICROSOFT_APP_ID": "11111111-2222-3333-4444-555555555555", "PATH": "/usr/bin:/bin",
           "DOCBOT_PUBLIC_URL": "https://docbot.nurilabs.test/", "DOCBOT_TEAMS_DEVELOPER": "Nuri Labs IT",
           "DOCBOT_PRIVACY_URL": "https://intranet.nurilabs.test/privacy",
           "DOCBOT_TERMS_URL": "https://intranet.nurilabs.test/terms",
           "DOCBOT_SLACK_SUGGESTED_PROMPTS": '[{"title": "Vacation days", "message": "How many vacation days do I get?"}]'}
    out = tmp_path / "pkg.zip"
    subprocess.run([sys.executable, str(root / "scripts" / "build_teams_package.py"), "--out", str(out)],
                   env=env, check=True, cwd=tmp_path)
    with zipfile.ZipFile(out) as package:
        assert sorted(package.namelist()) == ["color.png", "manifest.json", "outline.png"]
        manifest = json.loads(package.read("manifest.json"))
        assert manifest["id"] == manifest["bots"][0]["botId"] == env["MICROSOFT_APP_ID"]
        assert package.read("color.png")[:8] == b"\x89PNG\r\n\x1a\n"
        # the organisation's own pages (docbot serves none), and hints from the configured prompts
        assert manifest["developer"]["privacyUrl"] == "https://intranet.nurilabs.test/privacy"
        assert manifest["developer"]["termsOfUseUrl"] == "https://intranet.nurilabs.test/terms"
        assert manifest["bots"][0]["commandLists"][0]["commands"] == [
            {"title": "Vacation days", "description": "How many vacation days do I get?"}]
        assert manifest["developer"]["name"] == "Nuri Labs IT" and "example" not in json.dumps(manifest)
    failed = subprocess.run([sys.executable, str(root / "scripts" / "build_teams_package.py"), "--out", str(out)],
                            env={"PATH": "/usr/bin:/bin", "MICROSOFT_APP_ID": env["MICROSOFT_APP_ID"]},
                            capture_output=True, text=True, cwd=tmp_path)
    assert failed.returncode != 0 and "DOCBOT_PUBLIC_URL" in failed.stderr and "DOCBOT_TEAMS_DEVELOPER" in failed.stderr
    assert "DOCBOT_PRIVACY_URL" in failed.stderr


async def test_serve_mounts_teams_from_settings(connector, tmp_path, warm):
    from docbot.runtime import Runtime
    from docbot.server import make_app
    from docbot.settings import Settings

    settings = Settings(_env_file=None, data_dir=tmp_path, MICROSOFT_APP_ID="00000000-0000-0000-0000-0000000000aa",
                        MICROSOFT_APP_PASSWORD="pw")
    client = TestClient(TestServer(make_app(warm(Runtime(settings)), schedule=False), host="127.0.0.1"))
    await client.start_server()
    try:
        response = await client.post("/api/messages", json=message("hi", connector.service_url),
                                     headers={"Authorization": "Bearer x.y.z"})
        assert response.status == 401
    finally:
        await client.close()


async def test_teams_stop_in_a_personal_chat_keeps_the_partial_answer(teams, connector, monkeypatch):
    slow_answers(monkeypatch, 100)
    connector.stream_refusal_after = 2  # Teams' Stop: the client refuses further chunks
    await teams.post("/api/messages", json=message("Tell me everything about on-call", connector.service_url,
                                                   conversation="a:personal-stop"))
    conv = teams.service.store.conversation("teams", "tenant-1", "a:personal-stop", "a:personal-stop").id
    answer = teams.service.store.history(conv, 1)[0]
    assert answer.status == "cancelled" and answer.text.startswith("part 0.") and "part 99." not in answer.text


async def test_document_markup_reaches_teams_as_inert_text(connector, analyzer, embedder, classifier, tmp_path):
    """A document with Teams mention tags, HTML links and disguised Markdown links: shown, never live."""
    service = service_over(tmp_path, analyzer, embedder, classifier, {"escalation.md": (
        # One sentence holds every kind of markup, so whichever lines the answer quotes carry all of it.
        "# Escalation policy\n\n- For a sev-1 outage, notify <at>Everyone</at> and open "
        '<a href="https://evil.example/steal">the official handbook</a>, '
        "[the runbook](https://evil.example/runbook) & the pager rota at once.\n")})
    client = await _client(TeamsAdapter(service, update_every=0.0))
    try:
        question = "What is the escalation policy for a sev-1 outage?"
        await client.post("/api/messages", json=message(question, connector.service_url))
        await client.post("/api/messages", json=message(question, connector.service_url, conversation="19:group-1",
                                                        kind="groupChat", activity_id="m2"))
    finally:
        await client.close()
    sent = [c["body"] for c in connector.calls if c["kind"] in ("reply", "send", "update")]
    texts = json.dumps([b.get("text", "") for b in sent], ensure_ascii=False)
    cards = json.dumps([a.get("content") for b in sent for a in b.get("attachments") or []], ensure_ascii=False)
    assert "Everyone" in texts and "the runbook" in texts  # the passage was quoted (as the page reads: tags unshown)
    for live in ("<at>", "<a href", "](https://evil.example"):
        assert live not in texts, live
    assert "](https://evil.example" not in cards and "the runbook" in cards and "https://evil.example/runbook" not in cards
    assert "evil.example" not in texts  # a link is its text, never a disguised target
