"""One adapter contract, run by every platform (as Haystack's document stores share test mixins).

The same conversation of events — a question, a follow-up, a reply to a colleague, a second person
joining, a duplicate delivery, edits, a message from another app, start over, a burst past the rate
limit — must give the same answered / ignored / refused outcomes on Slack (the real slack-bolt app over
signed HTTP, against tests/slack_standin.py), Teams (the real Agents SDK against the connector stand-in)
and the console. Each platform's driver only *translates* an event into its wire format and reads what
the platform was sent; the outcome is judged from the platform's side: nothing said (ignored), an answer
(answered) or the rate-limit apology (refused). What a platform cannot express (a terminal has one person
and no edits) is skipped, by name.
"""
from __future__ import annotations

import asyncio
import io
import json
from dataclasses import dataclass

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from rich.console import Console

from adapters.console import ConsoleChat
from adapters.slack import SlackAdapter
from adapters.teams import TeamsAdapter
from bot.ratelimit import RateLimiter
from rag.messages import Text, say

from conftest import build_service
from connector_standin import message
from slack_standin import BOT_USER, SlackStandIn, event_body, signed

SECRET = "contract-secret"
REFUSAL = (say(Text.RATE_LIMITED, True), say(Text.RATE_LIMITED, False))


@dataclass(frozen=True)
class Say:
    """One event of the conversation, in platform-neutral words."""

    name: str
    text: str
    user: str = "U1"
    mention: bool = False  # docbot is mentioned
    colleague: str = ""  # someone else is mentioned
    direct: bool = False  # said in a one-on-one conversation with docbot
    again: str = ""  # a second delivery of this earlier event
    edits: str = ""  # replaces the text of this earlier event
    app: bool = False  # sent by another app


CONVERSATION = [
    (Say("ask", "연차는 1년에 며칠이야?", mention=True), "answered"),
    (Say("follow_up", "남은 건 이월돼?"), "answered"),
    (Say("to_colleague", "thanks, I'll ping you after lunch", colleague="U7"), "ignored"),
    (Say("duplicate", "", again="follow_up"), "ignored"),
    (Say("other_app", "status?", mention=True, app=True), "ignored"),
    (Say("edit_answered", "연차는 1년에 며칠이야? (정정)", edits="ask"), "ignored"),
    (Say("colleague_joins", "저도 궁금한데 병가는요?", user="U2"), "ignored"),
    (Say("after_join", "병가는 며칠이야?"), "ignored"),
    (Say("edit_adds_mention", "병가는 며칠이야?", mention=True, edits="after_join"), "answered"),
    (Say("mention_after_join", "재택근무는 일주일에 몇 번 가능해?", mention=True), "answered"),
    (Say("dm", "프로젝트 삭제 정책 알려줘", direct=True), "answered"),
    (Say("start_over", "새 대화", direct=True), "answered"),
    (Say("after_start_over", "그럼 언제까지 살릴 수 있어?", direct=True), "answered"),
]
BURST = [(Say("burst_1", "배포 절차 알려줘", direct=True), "answered"),
         (Say("burst_2", "배포 금지 기간은?", direct=True), "refused")]


class Driver:
    """A platform's side of the contract: `send` translates one event into the platform's wire format and
    delivers it through the real adapter; `replies` is what docbot said on the platform so far."""

    unsupported: dict[str, str] = {}  # event name -> why the platform cannot express it

    def __init__(self, service):
        self.service = service

    async def send(self, event: Say) -> None:
        raise NotImplementedError

    def replies(self) -> list[str]:
        raise NotImplementedError

    async def settle(self) -> None:
        """Wait until the platform has been sent everything for the last event."""

    async def outcome(self, event: Say) -> str:
        """Deliver one event and judge, from what the platform was sent, what docbot did."""
        before = len(self.replies())
        received: list = []
        original = self.service.receive

        async def spy(incoming):
            result = await original(incoming)
            received.append(result)
            return result

        self.service.receive = spy
        try:
            await self.send(event)
            await _until(lambda: received)  # the core has decided (Slack and Teams answer after acknowledging)
            turn = received[0].turn
            if turn is not None:
                await _until(lambda: turn.done.is_set() and (turn.delivered is None or turn.delivered.is_set()))
            note = received[0].note
            if note:  # the adapter says it after the core returns: wait until the platform was sent it
                await _until(lambda: any(note in said for said in self.replies()[before:]))
            await self.settle()
        finally:
            self.service.receive = original
        said = self.replies()[before:]
        if not said:
            return "ignored"
        return "refused" if any(r in text for text in said for r in REFUSAL) else "answered"


class AdapterContract:
    """The tests every adapter runs; a subclass provides the `driver` fixture."""

    async def test_the_same_conversation_gives_the_same_outcomes(self, driver):
        seen, wanted = {}, {}
        for event, expected in CONVERSATION:
            if event.name in driver.unsupported:
                continue
            seen[event.name], wanted[event.name] = await driver.outcome(event), expected
        assert seen == wanted

    async def test_a_burst_past_the_rate_limit_is_refused_politely(self, driver):
        driver.service.limiter = RateLimiter(per_user=1, per_channel=0)
        assert [await driver.outcome(event) for event, _ in BURST] == [expected for _, expected in BURST]


async def _until(condition, limit: int = 60_000) -> None:
    """Poll `condition` (total: it never raises on a missing row) every 10 ms, at most `limit` times (a guard
    against a hang of at least ten minutes, not a budget: a loaded machine answers slowly)."""
    for _ in range(limit):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the adapter never finished the event")


def _service(handbook_indexer, analyzer, classifier, tmp_path):
    return build_service(handbook_indexer, analyzer, classifier, f"sqlite:///{tmp_path / 'contract.sqlite3'}")


# --- Slack --------------------------------------------------------------------------------------------


class SlackDriver(Driver):
    ROOT = "1700001000.000100"

    def __init__(self, service, standin: SlackStandIn, client: TestClient):
        super().__init__(service)
        self.standin, self.client = standin, client
        self.sent: dict[str, str] = {}  # event name -> the body delivered
        self.ts: dict[str, str] = {}  # event name -> its message ts
        self.n = 0

    def _body(self, event: Say) -> str:
        if event.again:
            return self.sent[event.again]
        self.n += 1
        ts = self.ROOT if self.n == 1 else f"1700001000.{self.n:06d}"
        if event.edits:
            ts = self.ts[event.edits]
        text = (f"<@{BOT_USER}> " if event.mention else "") + (f"<@{event.colleague}> " if event.colleague else "")
        text += event.text
        channel, kind = ("D1", "im") if event.direct else ("C1", "channel")
        mention_event = event.mention and not event.direct and not event.edits
        thread = None if event.direct or ts == self.ROOT else self.ROOT
        body = json.loads(event_body(text, event_id=f"EvC{self.n}", ts=ts, channel=channel, thread_ts=thread,
                                     kind="app_mention" if mention_event else "message", channel_type=kind,
                                     user=event.user))
        if thread:
            body["event"]["parent_user_id"] = "U1"
        if event.app:
            body["event"].update(bot_id="B0OTHER", app_id="A0OTHER")
        if event.edits:  # Slack's message_changed: the revised message under the original's ts
            revised = {k: v for k, v in body["event"].items() if k not in ("type", "event_ts", "channel",
                                                                            "channel_type")}
            revised["edited"] = {"user": event.user, "ts": f"1700001001.{self.n:06d}"}
            body["event"] = {"type": "message", "subtype": "message_changed", "hidden": True, "channel": channel,
                             "channel_type": kind, "ts": revised["edited"]["ts"], "event_ts": revised["edited"]["ts"],
                             "message": revised}
        self.ts[event.name] = ts
        return json.dumps(body)

    async def send(self, event: Say) -> None:
        body = self._body(event)
        self.sent[event.name] = body
        headers = {"Content-Type": "application/json", **signed(SECRET, body)}
        if event.again:
            headers.update({"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
        assert (await self.client.post("/slack/events", data=body.encode(), headers=headers)).status == 200

    def replies(self) -> list[str]:
        """Each streamed answer's text, and each plain note docbot posted."""
        said: dict[str, str] = {}
        for method, call in self.standin.calls:
            if method == "chat.startStream":
                said[call["_reply_ts"]] = ""
            elif method == "chat.appendStream":
                said[call["ts"]] += call.get("markdown_text", "")
            elif method == "chat.postMessage" and not call.get("blocks"):
                said[call["_reply_ts"]] = call.get("text", "")
        return list(said.values())


# --- Teams --------------------------------------------------------------------------------------------


class TeamsDriver(Driver):
    THREAD = "19:contract@thread.tacv2;messageid=1700001000000"

    def __init__(self, service, connector, adapter: TeamsAdapter, client: TestClient):
        super().__init__(service)
        self.connector, self.adapter, self.client = connector, adapter, client
        self.sent: dict[str, dict] = {}
        self.n = 0

    def _activity(self, event: Say) -> dict:
        if event.again:
            return self.sent[event.again]
        self.n += 1
        conversation, kind = ("a:contract-dm", "personal") if event.direct else (self.THREAD, "channel")
        activity_id = self.sent[event.edits]["id"] if event.edits else f"c{self.n}"
        activity = message(event.text, self.connector.service_url, conversation=conversation, kind=kind,
                           user=event.user.lower(), aad=f"aad-{event.user}", activity_id=activity_id,
                           mention=event.mention)
        if event.colleague:  # Teams names a mentioned person in a mention entity
            activity["text"] = f"<at>{event.colleague}</at> {activity['text']}"
            activity.setdefault("entities", []).append({"type": "mention", "text": f"<at>{event.colleague}</at>",
                                                        "mentioned": {"id": f"29:{event.colleague}",
                                                                      "name": event.colleague}})
        if event.app:
            activity["from"] = {"id": "28:other-app", "name": "Other app", "role": "bot"}
        if event.edits:  # Teams' edit: messageUpdate (editMessage) carrying the revised message
            activity["type"] = "messageUpdate"
            activity["channelData"]["eventType"] = "editMessage"
        return activity

    async def send(self, event: Say) -> None:
        activity = self._activity(event)
        self.sent[event.name] = activity
        assert (await self.client.post("/api/messages", json=activity)).status in (200, 202)

    async def settle(self) -> None:
        while self.adapter.agent.running:
            await asyncio.gather(*self.adapter.agent.running, return_exceptions=True)

    def replies(self) -> list[str]:
        """Each answer (a finished stream, or a card as last updated) and each plain note."""
        said: list[str] = []
        cards: dict[int, int] = {}  # position in `said` of each card, in send order
        for call in self.connector.calls:
            body = call["body"] or {}
            info = next((e for e in body.get("entities") or [] if e.get("type") == "streaminfo"), None)
            card = next((a["content"] for a in body.get("attachments") or [] if "adaptive" in a["contentType"]),
                        None)
            if call["kind"] == "update":
                if card is not None and cards:
                    said[max(cards.values())] = json.dumps(card, ensure_ascii=False)
                continue
            if body.get("type") != "message":
                continue
            if info is not None:
                if info.get("streamType") == "final":
                    said.append(body.get("text", ""))
            elif card is not None:
                cards[len(cards)] = len(said)
                said.append(json.dumps(card, ensure_ascii=False))
            else:
                said.append(body.get("text", ""))
        return said


# --- Console ------------------------------------------------------------------------------------------


class ConsoleDriver(Driver):
    unsupported = {
        "to_colleague": "a terminal has one person", "colleague_joins": "a terminal has one person",
        "after_join": "a terminal has one person", "edit_adds_mention": "a terminal has no edits",
        "edit_answered": "a terminal has no edits", "duplicate": "a terminal delivers each line once",
        "other_app": "no other app types into a terminal",
    }

    def __init__(self, service):
        super().__init__(service)
        self.out = io.StringIO()
        self.chat = ConsoleChat(service, out=Console(file=self.out, width=200, highlight=False), user="U1")
        self.said: list[str] = []

    async def send(self, event: Say) -> None:
        before = len(self.out.getvalue())
        assert await self.chat.handle(event.text)
        printed = self.out.getvalue()[before:]
        if printed.strip():
            self.said.append(printed)

    def replies(self) -> list[str]:
        return self.said


# --- the three adapters run the contract --------------------------------------------------------------


class TestSlack(AdapterContract):
    @pytest.fixture
    async def driver(self, handbook_indexer, analyzer, classifier, tmp_path):
        standin = await SlackStandIn().start()
        service = _service(handbook_indexer, analyzer, classifier, tmp_path)
        adapter = SlackAdapter(service, "xoxb-test", SECRET, api_base_url=standin.base_url, update_every=0.0)
        app = web.Application()
        adapter.mount(app)
        client = TestClient(TestServer(app, host="127.0.0.1"))
        await client.start_server()
        yield SlackDriver(service, standin, client)
        await client.close()
        await standin.close()


class TestTeams(AdapterContract):
    @pytest.fixture
    async def driver(self, connector, handbook_indexer, analyzer, classifier, tmp_path):
        service = _service(handbook_indexer, analyzer, classifier, tmp_path)
        adapter = TeamsAdapter(service, update_every=0.0)
        app = web.Application()
        adapter.mount(app)
        client = TestClient(TestServer(app, host="127.0.0.1"))
        await client.start_server()
        yield TeamsDriver(service, connector, adapter, client)
        await client.close()


class TestConsole(AdapterContract):
    @pytest.fixture
    def driver(self, handbook_indexer, analyzer, classifier, tmp_path):
        return ConsoleDriver(_service(handbook_indexer, analyzer, classifier, tmp_path))


def test_the_contract_names_every_event_once():
    names = [event.name for event, _ in CONVERSATION + BURST]
    assert len(names) == len(set(names))
