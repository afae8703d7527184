"""Teams when the Bot Connector fails or does not answer (issue 30 for Teams, issue 28 item 7): what is stored
is what the user was shown, the user gets an apology when one can be sent, and every failed call is one log
line and a count in /metrics while the activity is still acknowledged.

The real Microsoft 365 Agents SDK client posts over HTTP to the strict connector stand-in
(tests/connector_standin.py), told to fail (`outage`) or hang (`hang`) the calls a test names."""
from __future__ import annotations

import logging

import pytest
from test_teams import _card, _client

from adapters.markup import html_escape
from adapters.teams import TeamsAdapter
from rag.messages import Text, say
from rag.resilience import RetryPolicy

from conftest import build_service, slow_answers
from connector_standin import message

QUESTION = "What is the release train?"
GROUP = "19:group@thread.v2"


@pytest.fixture
async def teams(connector, handbook_indexer, analyzer, classifier, tmp_path):
    """docbot on Teams with quick retries and a 1 s connector timeout (the stand-in hangs for 3 s)."""
    service = build_service(handbook_indexer, analyzer, classifier, f"sqlite:///{tmp_path / 't.sqlite3'}")
    client = await _client(TeamsAdapter(service, update_every=0.0,
                                        policy=RetryPolicy(attempts=2, base_wait=0.01, max_wait=0.02, timeout=1.0)))
    client.service = service
    yield client
    await client.close()


def _answer(teams, conversation: str):
    conv = teams.service.store.conversation("teams", "tenant-1", conversation, conversation).id
    question, answer = teams.service.store.history(conv, 2)
    assert question.role == "user" and question.text == QUESTION  # the question is always kept
    return answer


def _sorry() -> str:
    return say(Text.ERROR, QUESTION)


def _streaming(body: dict) -> str:
    return next((e.get("streamType", "streaming") for e in body.get("entities") or [] if e.get("type") == "streaminfo"),
                "")


async def _ask(teams, connector, conversation: str = GROUP, kind: str = "groupChat"):
    response = await teams.post("/api/messages", json=message(QUESTION, connector.service_url,
                                                              conversation=conversation, kind=kind))
    assert response.status in (200, 202)  # acknowledged, whatever the connector does afterwards


async def test_a_card_that_cannot_be_sent_becomes_an_apology_stored_as_shown(teams, connector):
    """The first send (the answer card) fails: the whole answer was stored `complete` while the user saw
    nothing. Now the user gets an apology and the stored answer is that apology, `failed`."""
    connector.outage = lambda kind, body: 503 if body and body.get("attachments") else None  # cards only
    await _ask(teams, connector)
    said = [r["text"] for r in connector.of("reply") if r.get("text")]
    assert said == [html_escape(_sorry())]
    answer = _answer(teams, GROUP)
    assert (answer.status, answer.text) == ("failed", _sorry())


async def test_a_card_whose_updates_fail_stores_what_the_card_last_showed(teams, connector, monkeypatch):
    """The card is sent and updated once; every later update fails. Stored: the text that update showed,
    `partial` (the whole answer was stored `complete`)."""
    slow_answers(monkeypatch, 6, delay=0.02)
    updates = []

    def outage(kind, body):
        if kind == "update":
            updates.append(body)
            return 500 if len(updates) > 1 else None
        return None

    connector.outage = outage
    await _ask(teams, connector)
    shown = _card(connector.of("update")[0])["body"][-1]["text"]
    answer = _answer(teams, GROUP)
    assert answer.status == "partial" and answer.text and answer.text.startswith("part 0.")
    assert answer.text == shown and not answer.text.endswith("part 5. ")


async def test_a_card_never_updated_gets_an_apology(teams, connector, monkeypatch):
    """Every update of the card times out: it still says it is searching. The user gets an apology, and that is
    what is stored; each timeout is counted."""
    slow_answers(monkeypatch, 2, delay=0.02)
    connector.hang = lambda kind, body: kind == "update"
    await _ask(teams, connector)
    assert not connector.of("update")
    assert [r.get("text") for r in connector.of("reply")][1:] == [html_escape(_sorry())]
    answer = _answer(teams, GROUP)
    assert (answer.status, answer.text) == ("failed", _sorry())
    metrics = teams.service.metrics.render()
    assert b'docbot_platform_errors_total{error="timeout",method="update_activity",platform="teams"}' in metrics


async def test_a_stream_whose_final_message_fails_stores_what_was_streamed(teams, connector, monkeypatch):
    """One-on-one: chunks stream, the final message fails. Stored: the text of the last chunk Teams took,
    `partial` (was: the whole answer, `complete`)."""
    slow_answers(monkeypatch, 4, delay=0.6)  # chunks at most one a second: several reach Teams
    connector.outage = lambda kind, body: 500 if _streaming(body or {}) == "final" else None
    await _ask(teams, connector, "a:personal-1", "personal")
    streamed = [r["text"] for r in connector.of("reply") if _streaming(r) == "streaming"]
    answer = _answer(teams, "a:personal-1")
    assert streamed and answer.status == "partial" and answer.text == streamed[-1]


async def test_a_stream_that_shows_nothing_becomes_an_apology(teams, connector, monkeypatch):
    """One-on-one: every streaming call fails, plain messages go through: an apology, stored as shown."""
    slow_answers(monkeypatch, 2, delay=0.02)
    connector.outage = lambda kind, body: 502 if _streaming(body or {}) else None
    await _ask(teams, connector, "a:personal-1", "personal")
    assert [r.get("text") for r in connector.of("reply")] == [html_escape(_sorry())]
    answer = _answer(teams, "a:personal-1")
    assert (answer.status, answer.text) == ("failed", _sorry())


async def test_a_dead_connector_is_one_line_per_call_counted_and_still_acknowledged(teams, connector, caplog):
    """Issue 28 item 7 for Teams: every connector call fails. The activity is acknowledged, each failed call
    is one log line (no traceback) and counted as docbot_platform_errors_total{platform="teams"}; nothing
    was shown, and nothing but the question is stored as said."""
    caplog.set_level(logging.INFO)
    connector.outage = lambda kind, body: 500
    await _ask(teams, connector)
    answer = _answer(teams, GROUP)
    assert (answer.status, answer.text) == ("failed", "")
    assert [r.getMessage() for r in caplog.records if r.exc_info and r.levelno >= logging.INFO] == []
    failed = [r.getMessage() for r in caplog.records if r.getMessage().startswith("teams send_activity failed")]
    assert failed and all(line == "teams send_activity failed: http_500" for line in failed)
    metric = f'docbot_platform_errors_total{{error="http_500",method="send_activity",platform="teams"}} {len(failed)}.0'
    assert metric.encode() in teams.service.metrics.render()
    assert not [r for r in caplog.records if "Error accessing" in r.getMessage()]  # the SDK's repeat of it
