"""Issue 29, item 11 on the Teams side: docbot against the connector stand-in's new rules (the bot's token on
every call, Teams' two-minute stream limit)."""
import time

from test_teams import _client, settled
from test_teams_service_url import APP_ID, BOT_TOKEN, signer, standin_hosts  # noqa: F401  (fixture)

from adapters.teams import TeamsAdapter

from conftest import service_over, slow_answers
from connector_standin import message


async def test_every_connector_call_carries_the_bots_token(signer, connector, analyzer, embedder, classifier,  # noqa: F811
                                                           tmp_path):
    """With credentials, the connector refuses a call without the bot's own token: every reply docbot sends
    (streamed chunks, the final message) carries it."""
    connector.token = BOT_TOKEN
    service = service_over(tmp_path, analyzer, embedder, classifier, {"leave.md": "# Leave\n\n15 days a year.\n"})
    client = await _client(TeamsAdapter(service, app_id=APP_ID, app_password="pw", update_every=0.0,
                                        host_validator=standin_hosts(connector.service_url)))
    token = signer("https://api.botframework.com", serviceurl=connector.service_url)
    try:
        response = await client.post("/api/messages", json=message("How many days of leave?", connector.service_url,
                                                                   activity_id="tok-1"),
                                     headers={"Authorization": f"Bearer {token}"})
        assert response.status in (200, 202)
        await settled(client.adapter)
    finally:
        await client.close()
    assert connector.of("reply") and not connector.refused
    final = connector.of("reply")[-1]
    assert final["type"] == "message" and "15" in final["text"]


async def test_a_stream_past_two_minutes_still_shows_the_whole_answer(connector, analyzer, embedder, classifier,
                                                                      tmp_path, monkeypatch):
    """Teams ends a stream after two minutes (403 "Content stream finished due to exceeded streaming time."):
    the answer then arrives as an update of the streamed message, whole, and what is stored is what it shows."""
    service = service_over(tmp_path, analyzer, embedder, classifier, {"leave.md": "# Leave\n\n15 days a year.\n"})
    client = await _client(TeamsAdapter(service, update_every=0.0))
    slow_answers(monkeypatch, 6, delay=0.05)
    # The stream starts with the informative update (the clock is read when it is checked and when the stream
    # opens); two minutes have passed by the next request.
    reads = iter(range(10**6))
    connector.clock = lambda: time.monotonic() + (121.0 if next(reads) >= 2 else 0.0)
    try:
        await client.post("/api/messages", json=message("How many days of leave?", connector.service_url,
                                                        activity_id="two-1"))
    finally:
        await client.close()
    assert [r["code"] for r in connector.refused] == ["ContentStreamNotAllowed"]
    shown = connector.of("update")[-1]["text"]
    conv = service.store.conversation("teams", "tenant-1", "a:personal-1", "a:personal-1").id
    answer = service.store.history(conv, 2)[1]
    assert answer.status == "complete" and "part 5." in answer.text and answer.text in shown
