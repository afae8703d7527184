"""The conversation service: thread history on the server, runs with ids, stop and regenerate."""
from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import time
import uuid
import weakref
from collections.abc import AsyncGenerator
from contextlib import aclosing
from contextvars import ContextVar
from dataclasses import astuple, dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any, cast

from rag.answer.answerers import number_sources
from rag.answer.evidence import explanation_record
from rag.errors import DocbotError, StorageError, component
from rag.index.port import PRINCIPAL
from rag.messages import Text, say, verb
from rag.pipeline import Pipeline, Prepared
from rag.text.masking import mask
from rag.understand.rewrite import HistoryTurn, Rewrite
from rag.understand.routing import Intent, Route

from .actions import ActionService
from .controls import Control, SourceLink, web_url
from .inbound import DM_SESSION_SECONDS, Incoming, Received, is_start_over
from .observability import RUN_ID, SESSION_ID, Metrics
from .ratelimit import RateLimiter
from .spill import Spill, SpilledTurn
from .storage import Message, PendingAction, Store, TurnTrace

# Who asks, as `user:<e-mail>` audience tokens, set for the turn of a direct message whose platform named the
# asker's e-mail: documents a connector restricted to some people are searched for them only then.
ASKER: ContextVar[frozenset[str]] = ContextVar("docbot_asker", default=frozenset())

log = logging.getLogger(__name__)

STOP_POLL_SECONDS = 0.5  # how often a streaming answer looks for a Stop clicked on another replica
PERSIST_SECONDS = 1.0  # how often a streaming answer's text is saved: a killed process loses at most this much
STALE_STREAM_SECONDS = 600.0  # an answer still `streaming` after this long was left by a dead process


def clean_text(text: str) -> str:
    """Text any database and platform accepts: lone surrogates and NULs become U+FFFD (nothing is dropped)."""
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text.replace("\x00", "\ufffd")


@dataclass(frozen=True)
class SessionKey:
    """Where a conversation lives: platform, tenant/team, channel and thread."""

    platform: str
    tenant: str
    channel: str
    thread: str


class Turn:
    """One answer in progress: what was decided up front, and the reply as it streams.

    `stream()` saves the text every PERSIST_SECONDS while it streams (status `streaming`) and always
    stores what was said when it ends: `complete`, `cancelled` (Stop), `partial` (the answer failed
    midway), `interrupted` (the server shut down) or `failed` (the platform could not show it).
    """

    def __init__(self, service: "ConversationService", key: SessionKey, run_id: str,
                 prepared: Prepared, history: list[HistoryTurn], answer_id: int, started: float, user_id: str = "",
                 private: bool = False):
        self.service, self.key, self.run_id, self.user_id = service, key, run_id, user_id
        self.private = private  # seen by its asker alone: its buttons are not the thread's
        self.prepared, self.history, self.answer_id = prepared, history, answer_id
        self._started = started
        self.text = ""
        self.status = "partial"
        self.cancelled = asyncio.Event()
        self.action: PendingAction | None = None  # set when the turn proposes a change
        self.conversation_id = 0
        self.done = asyncio.Event()  # set once the answer is stored, however the turn ended
        self.interrupted = False  # the server is shutting down
        self.finishing = False  # finish() has begun: it runs once
        self.delivered: asyncio.Event | None = None  # set by an adapter once the platform message is final
        self.question_id = 0  # the stored question (0: not stored)
        self.unstored = False  # the database refused this turn: its answer goes to the spill when it ends
        self.error = ""  # why the turn failed outside the answer itself (e.g. the platform refused it)
        self.indexing: tuple[int, int] | None = None  # (pages done, listed) of an index run going on as it began

    @property
    def rewritten(self) -> str:
        """The standalone query the search used."""
        return self.prepared.rewrite.text

    @property
    def numbered_sources(self) -> list[SourceLink]:
        """Every document handed to the answer, numbered as [n] refers to them."""
        return [SourceLink(s.number, s.title, s.hits[0].chunk.heading, s.path, web_url(s.hits[0].chunk.meta.url))
                for s in number_sources(self.prepared.hits)]

    @property
    def sources(self) -> list[SourceLink]:
        """The documents the answer so far actually cites ([n]); passages it did not use are not listed."""
        cited = {int(n) for n in _CITATION.findall(self.text)}
        return [s for s in self.numbered_sources if s.n in cited]

    async def stream(self) -> AsyncGenerator[str, None]:
        """Answer pieces; the stored answer is saved as it streams and updated when the stream ends."""
        started = time.perf_counter()
        checked = saved = time.monotonic()
        try:
            # Closed with this turn, whoever stops reading it (Stop, a platform that failed midway): the model's
            # stream and its HTTP response end now, not when the event loop finalises a forgotten generator.
            async with aclosing(cast(AsyncGenerator[str, None],
                                     self.service.pipeline.answer(self.prepared, self.history))) as answer:
                async for piece in answer:
                    if time.monotonic() - checked >= STOP_POLL_SECONDS:  # a Stop clicked on another replica
                        checked = time.monotonic()
                        if await self.service.store.call(self.service.stop_requested_elsewhere, self.run_id):
                            self.cancelled.set()
                    if self.cancelled.is_set():
                        self.status = "cancelled"
                        break
                    self.text += piece
                    yield piece
                    if time.monotonic() - saved >= PERSIST_SECONDS:
                        saved = time.monotonic()
                        await self.service.persist(self)
                else:
                    self.status = "complete"
                    if self.indexing and self.prepared.searched:  # documents not indexed yet were not searched
                        piece = "\n\n" + say(Text.INDEXING, self.prepared.question, done=self.indexing[0],
                                                total=self.indexing[1])
                        self.text += piece
                        yield piece
        except Exception as exc:  # the answer broke off (a model stream cut, or a bug): say so, count it
            if isinstance(exc, DocbotError):
                log.warning("answer failed in run %s: %s", self.run_id, exc)
            else:
                log.exception("answer crashed in run %s", self.run_id)
            self.service.metrics.errors.labels(component(exc)).inc()
            piece = ("\n\n" if self.text else "") + say(Text.ERROR, self.prepared.question)
            self.text += piece
            yield piece
        finally:
            if self.status == "partial" and self.cancelled.is_set():
                self.status = "cancelled"
            if self.interrupted and self.status in ("cancelled", "partial"):
                self.status = "interrupted"
            await self.service.finish(self, (time.perf_counter() - started) * 1000)

    async def fail(self, error: str, shown: str = "") -> None:
        """End a turn whose answer could not be shown (the platform refused it): stored as `failed` with
        the error and what the platform did show instead (an apology, or nothing), the thread's run
        released. The answer is not generated."""
        if self.finishing:
            return
        self.status, self.error, self.text = "failed", error[:500], shown
        await self.service.finish(self, 0.0)

    async def collect(self) -> str:
        """The whole answer as one string."""
        async for _ in self.stream():
            pass
        return self.text


_CITATION = re.compile(r"\[(\d{1,3})\]")


class _Duplicate(Exception):
    """Another delivery of the same message stored its question first (on another replica)."""


def _delivery(message: Incoming) -> str:
    """The delivery id a message is counted once by. An edit is its original (in its channel) and its new
    text: a redelivered edit is the same delivery, each revision a new one (Teams gives revisions no id)."""
    if not message.edit_of:
        return message.delivery_id
    revision = hashlib.sha256(message.text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"edit:{message.key.channel}:{message.edit_of}:{revision}"


def to_history(messages: list[Message]) -> list[HistoryTurn]:
    """Stored messages as the core's history turns."""
    return [HistoryTurn(m.role, m.text, [s.get("title", "") for s in (m.sources or [])],
                        list(dict.fromkeys(s["path"] for s in (m.sources or []) if s.get("path"))),
                        m.rewritten or "", m.intent or "") for m in messages]


@dataclass(frozen=True)
class Earlier:
    """A message said in a thread before docbot was called into it (read from the platform)."""

    role: str  # "user" | "assistant"
    text: str
    user_id: str = ""
    # What docbot knew of it when it was docbot's own exchange (a direct-message pane's earlier thread).
    intent: str | None = None
    rewritten: str | None = None
    sources: tuple = ()


@dataclass(frozen=True)
class Pressed:
    """What a button press did: a note for the clicker, and the new turn when it regenerated one."""

    ok: bool
    status: str  # stopped | regenerated | recorded | done | cancelled | denied | not_here | not_latest | duplicate ...
    note: str = ""  # said to the clicker only, unless `public`
    turn: "Turn | None" = None
    public: bool = False  # an action's result, shown to everyone in the thread

    @property
    def courtesy(self) -> bool:
        """An acknowledgement for the clicker (thanks for feedback, stop sent): where the platform cannot say
        it to the clicker alone, it is left unsaid rather than shown to everyone; refusals are always said."""
        return self.ok and not self.public


class ConversationService:
    """The one entry for every adapter: receive a message, press a button.

    Reads history before storing the question, stores everything, tracks each thread's running
    answer. A press is checked here, the same way for every platform: the run, answer or
    action must belong to the conversation the click came from, and Stop / Regenerate / Confirm
    / Cancel are for the person who asked (or an admin).
    """

    def __init__(self, store: Store, pipeline: Pipeline, history_turns: int = 10,
                 actions: ActionService | None = None, metrics: Metrics | None = None,
                 supersede_wait: float = 10.0, limiter: RateLimiter | None = None,
                 admins: set[str] | None = None, answer_apps: bool = False):
        self.store, self.pipeline, self.history_turns = store, pipeline, history_turns
        self.actions, self.metrics, self.supersede_wait = actions, metrics or Metrics(), supersede_wait
        self.limiter, self.answer_apps = limiter, answer_apps  # answer_apps: other apps' messages are answered
        self.admins = set(admins) if admins is not None else set(actions.admins if actions else ())
        self._active: dict[SessionKey, Turn] = {}
        self.spill = Spill(self.metrics)  # turns the database could not take, written when it recovers
        self._locks: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self._receiving: set[str] = set()  # delivery ids being received in this process right now
        self._starting = 0  # turns being prepared (searched, read) in this process right now

    def busy(self) -> bool:
        """Whether a turn is being prepared or answered in this process (background work waits; any thread)."""
        return bool(self._starting or self._active)

    async def receive(self, message: Incoming) -> Received:
        """One incoming message, from any platform: the core decides whether it is docbot's to answer
        (see bot/inbound.py) and, if so, starts its turn.

        Its delivery id is stored in the same transaction as the question (`Store.add_question`): a process
        killed before that leaves no trace, so the platform's retry is answered; a redelivery after it is a
        duplicate. Deliveries of one message racing in this process are told apart before any platform
        call (the status line, reading the thread) is made for the second."""
        key, message = message.key, replace(message, text=message.text.strip())
        if message.from_app and not self.answer_apps:
            return Received("ignored", "from_app")
        delivery = f"{key.platform}:{_delivery(message)}" if message.delivery_id or message.edit_of else ""
        if delivery in self._receiving:  # checked and taken with no await in between
            return Received("ignored", "duplicate")
        if delivery:
            self._receiving.add(delivery)
        try:
            if delivery and await self.seen(delivery):
                return Received("ignored", "duplicate")
            return await self._receive(message, delivery)
        finally:
            self._receiving.discard(delivery)

    async def _receive(self, message: Incoming, delivery: str) -> Received:
        key = message.key
        if message.direct and not message.edit_of and is_start_over(message.text):
            if delivery and not await self.first_delivery(delivery):  # no question to store: its own claim
                return Received("ignored", "duplicate")
            await self.start_over(key)
            return Received("answered", "started_over", note=say(Text.STARTED_OVER, message.text))
        known = await self.takes_part(key)
        if not await self._for_docbot(message, known):
            if known and not message.from_app:  # a person who spoke here counts from now on
                await self._seen(key, {message.user} | message.participants)
            return Received("ignored", "not_for_docbot")
        claims: tuple[str, ...] = (delivery,) if delivery else ()
        marks: tuple[str, ...] = ()
        if message.edit_of or message.message_id:
            # An edit is answered when its original was not (a typo fixed before docbot saw it, a mention
            # added); an answered question's edit is left alone (the answer stays next to what it answered).
            answered = f"answered:{key.platform}:{key.channel}:{message.edit_of or message.message_id}"
            if message.edit_of:
                if await self.seen(answered):
                    return Received("ignored", "edit_of_answered")
                claims += (answered,)
            else:
                marks = (answered,)
        first = not known
        if message.accepted is not None:
            await message.accepted(first)
        context = await self._context(message, first)
        asker = ASKER.set(await self._asker(message))
        try:
            turn = await self.ask(key, message.text, message.user, context=context,
                                  participants=set(message.participants), private=message.private, claims=claims,
                                  marks=marks)
        finally:
            ASKER.reset(asker)
        if turn is None:  # another delivery of this message (another replica) stored it first
            return Received("ignored", "duplicate")
        if turn.prepared.route.intent == Intent.RATE_LIMITED:
            return Received("refused", "rate_limited", turn=turn, first_contact=first)
        return Received("answered", "asked", turn=turn, first_contact=first)

    async def _asker(self, message: Incoming) -> frozenset[str]:
        """The asker's `user:` audience tokens, in a direct message only (in a channel, documents restricted
        to some people are never searched); none when the platform cannot say (restricted documents then
        stay hidden: never the other way round)."""
        if not message.direct or message.identities is None:
            return frozenset()
        try:
            emails = await message.identities()
        except Exception as exc:  # the platform down, a missing scope: answer without restricted documents
            log.info("could not tell who %s is: %s", message.user, exc)
            return frozenset()
        return frozenset(PRINCIPAL + e.strip().lower() for e in emails if e and e.strip())

    async def _for_docbot(self, message: Incoming, known: bool) -> bool:
        """A direct message or a mention, always; otherwise a reply in a thread docbot takes part in,
        addressed to nobody else, where only this person and docbot have spoken."""
        if message.direct or message.mentioned:
            return True
        if not message.reply or message.mentions_others or not known:
            return False
        others = (await self._participants(message.key) | message.participants) - {message.user}
        return not others

    async def _context(self, message: Incoming, first: bool) -> list[Earlier]:
        """What the turn's history starts from on docbot's first message in a thread: a direct message
        that opens a thread of its own continues the last half hour of that conversation; a thread docbot
        is called into is read from the platform (a failed read answers without it)."""
        if not first:
            return []
        if message.direct and message.opens_thread:
            return await self.recent(message.key, DM_SESSION_SECONDS)
        if message.read_thread is None:
            return []
        try:
            return await message.read_thread()
        except Exception as exc:  # no history scope, a channel docbot cannot read, the platform down
            log.info("could not read thread %s for context: %s", message.key.thread, exc)
            return []

    async def _participants(self, key: SessionKey) -> set[str]:
        """Everyone seen in the thread; when the database cannot say, nobody else (docbot keeps answering in
        its own thread rather than fall silent because the database is busy)."""
        def seen() -> set[str]:
            found = self.store.find_conversation(key.platform, key.tenant, key.channel, key.thread)
            return self.store.participants(found.id) if found is not None and found.id is not None else set()

        try:
            return await self.store.call(seen)
        except DocbotError as exc:
            log.error("cannot tell who takes part in thread %s: %s", key.thread, exc)
            return set()

    async def _seen(self, key: SessionKey, users: set[str]) -> None:
        def record() -> None:
            found = self.store.find_conversation(key.platform, key.tenant, key.channel, key.thread)
            if found is not None and found.id is not None:
                self.store.add_participants(found.id, users)

        try:
            await self.store.call(record)
        except DocbotError as exc:
            log.warning("could not record who spoke in thread %s: %s", key.thread, exc)

    async def ask(self, key: SessionKey, text: str, user_id: str = "", delivery_id: str | None = None,
                  context: list[Earlier] | None = None, participants: set[str] | None = None,
                  private: bool = False, claims: tuple[str, ...] = (),
                  marks: tuple[str, ...] = ()) -> Turn | None:
        """Start a turn; None when `delivery_id` was seen before (a platform's redelivery, on any replica).

        Turns of one thread run in order: a new question stops the running answer and waits
        until it is stored, then reads the history before storing itself. `context` is what was
        said in the thread before docbot was called into it: on first contact it is stored as the
        conversation's history (and the trace says how many messages came from it). `claims` (delivery
        ids) and `marks` are stored in the question's own transaction (see `Store.add_question`).
        """
        if delivery_id and await self.seen(delivery_id):
            return None
        return await self._ask(key, text, user_id, context=context, participants=participants, private=private,
                               claims=claims + ((delivery_id,) if delivery_id else ()), marks=marks)

    async def _ask(self, key: SessionKey, text: str, user_id: str, *, context: list[Earlier] | None = None,
                   participants: set[str] | None = None, private: bool = False, claims: tuple[str, ...] = (),
                   marks: tuple[str, ...] = ()) -> Turn | None:
        async with self._lock(key):
            if claims and await self.seen(*claims):  # stored by a delivery that held the lock before this one
                return None
            await self._supersede(key)
            try:
                turn = await self._start(key, clean_text(text), user_id, context or [], participants or set(),
                                         claims, marks)
            except _Duplicate:
                return None
            turn.private = private
            return turn

    async def press(self, key: SessionKey, control: Control, target: str, user_id: str,
                    delivery_id: str | None = None, comment: str = "") -> Pressed:
        """A button pressed in conversation `key` by `user_id`, acting on `target` (see controls.Button);
        `delivery_id` is the platform's id of this click, so a redelivered click counts once."""
        if delivery_id and not await self.first_delivery(f"{key.platform}:press:{delivery_id}"):
            return Pressed(False, "duplicate")
        if not target:  # rows from before run ids have "" as theirs: an empty target must match nothing
            return Pressed(False, "not_here", say(Text.NOT_HERE, ""))
        try:
            if control == Control.STOP:
                return await self._stop(key, target, user_id)
            if control == Control.REGENERATE:
                return await self._regenerate(key, target, user_id)
            if control in (Control.HELPFUL, Control.NOT_HELPFUL):
                return await self.store.call(self._feedback, key, target, user_id, control == Control.HELPFUL,
                                             comment)
            return await self._decide(key, target, user_id, control == Control.CONFIRM)
        except DocbotError as exc:  # the database failed: the clicker hears so, nothing half-done is claimed
            log.error("%s pressed in %s failed: %s", control, key.thread, exc)
            self.metrics.errors.labels(component(exc)).inc()
            return Pressed(False, "error", say(Text.ERROR, ""))

    def _may(self, user_id: str, asker: str) -> bool:
        """The asker and admins may stop, regenerate or decide; a question with no known asker, anyone."""
        return not asker or user_id == asker or user_id in self.admins

    def _question_here(self, key: SessionKey, run_id: str) -> Message | None:
        """The question that started `run_id`, if that run belongs to this conversation."""
        conversation = self.store.find_conversation(key.platform, key.tenant, key.channel, key.thread)
        question = self.store.question_of_run(run_id) if conversation else None
        return question if question and conversation and question.conversation_id == conversation.id else None

    async def _stop(self, key: SessionKey, run_id: str, user_id: str) -> Pressed:
        """Stop one run. A run this process does not hold may stream on another replica: the request goes
        through the shared database and that replica stops within STOP_POLL_SECONDS."""
        turn = next((t for t in self._active.values() if t.run_id == run_id), None)
        if turn is not None:
            if turn.key != key:
                return Pressed(False, "not_here", say(Text.NOT_HERE, turn.prepared.question))
            if not self._may(user_id, turn.user_id):
                return Pressed(False, "denied", say(Text.NOT_YOURS, turn.prepared.question,
                                                             verb=verb("stop", turn.prepared.question)))
            turn.cancelled.set()
            return Pressed(True, "stopped")
        question = await self.store.call(self._question_here, key, run_id)
        if question is None:
            return Pressed(False, "not_here", say(Text.NOT_HERE, ""))
        if not self._may(user_id, question.user_id):
            return Pressed(False, "denied", say(Text.NOT_YOURS, question.text, verb=verb("stop", question.text)))
        await self.store.call(self.store.request_stop, run_id)
        return Pressed(True, "stopped")

    async def _regenerate(self, key: SessionKey, run_id: str, user_id: str) -> Pressed:
        """Answer the question of `run_id` again, as its asker. Only the thread's latest exchange is taken
        back (an earlier one would rewrite history under later answers); its pending action is superseded."""
        async with self._lock(key):
            await self._supersede(key)
            question = await self.store.call(self._take_back, key, run_id, user_id)
            if isinstance(question, Pressed):
                return question
            turn = await self._start(key, question.text, question.user_id)
            return Pressed(True, "regenerated", turn=turn)

    def _take_back(self, key: SessionKey, run_id: str, user_id: str) -> Message | Pressed:
        question = self._question_here(key, run_id)
        if question is None:
            return Pressed(False, "not_here", say(Text.NOT_HERE, ""))
        if not self._may(user_id, question.user_id):
            return Pressed(False, "denied", say(Text.NOT_YOURS, question.text, verb=verb("regenerate", question.text)))
        latest = self.store.last_question(question.conversation_id)
        if latest is None or latest.id != question.id:
            return Pressed(False, "not_latest", say(Text.NOT_LATEST, question.text))
        self.store.supersede_actions(run_id)
        self.store.drop_last_exchange(question.conversation_id)
        return question

    def _feedback(self, key: SessionKey, target: str, user_id: str, helpful: bool, comment: str = "") -> Pressed:
        """Anyone in the conversation may say whether an answer helped; one vote per person, changeable."""
        answer = self.store.get_message(int(target)) if target.isdigit() else None
        conversation = self.store.find_conversation(key.platform, key.tenant, key.channel, key.thread)
        if answer is None or conversation is None or answer.conversation_id != conversation.id \
                or answer.role != "assistant":
            return Pressed(False, "not_here", say(Text.NOT_HERE, ""))
        assert answer.id is not None
        self.store.set_feedback(answer.id, user_id, helpful, clean_text(comment)[:2000])
        return Pressed(True, "recorded", say(Text.FEEDBACK_THANKS, answer.text))  # the answer speaks the asker's language

    async def _decide(self, key: SessionKey, target: str, user_id: str, confirm: bool) -> Pressed:
        """Confirm or cancel an action proposed in this conversation (the action service checks who)."""
        if self.actions is None or not target.isdigit():
            return Pressed(False, "not_here", say(Text.NOT_HERE, ""))
        lang = await self.store.call(self._action_here, key, int(target))
        if lang is None:
            return Pressed(False, "not_here", say(Text.NOT_HERE, ""))
        decide = self.actions.confirm if confirm else self.actions.cancel
        outcome = await decide(int(target), user_id, lang)
        return Pressed(outcome.ok, outcome.status, outcome.message, public=outcome.decided)

    def _action_here(self, key: SessionKey, action_id: int) -> str | None:
        """The language sample (the request's text) of an action proposed in this conversation, else None."""
        action = self.store.get_action(action_id)
        conversation = self.store.find_conversation(key.platform, key.tenant, key.channel, key.thread)
        if action is None or conversation is None or action.conversation_id != conversation.id:
            return None
        question = self.store.question_of_run(action.run_id)
        return question.text if question else action.summary

    async def recent(self, key: SessionKey, within: float) -> list[Earlier]:
        """What was said with docbot in the same channel's other threads in the last `within` seconds: a
        direct-message pane is one running conversation, though each message there starts a thread."""
        since = datetime.now(timezone.utc) - timedelta(seconds=within)
        try:
            rows = await self.store.call(self.store.recent_in_channel, key.platform, key.tenant, key.channel,
                                         key.thread, since, self.history_turns)
        except DocbotError as exc:
            log.warning("could not read the recent messages of %s: %s", key.channel, exc)
            return []
        return [Earlier(m.role, m.text, m.user_id, m.intent, m.rewritten, tuple(m.sources or ())) for m in rows]

    async def shareable(self, answer_id: int, user_id: str) -> Message | None:
        """A stored answer its asker may post elsewhere (None for anyone else, or no such answer)."""
        def find() -> Message | None:
            answer = self.store.get_message(answer_id) if answer_id else None
            question = self.store.question_of_run(answer.run_id) if answer and answer.run_id else None
            return answer if answer and answer.role == "assistant" and question and question.user_id == user_id \
                else None

        return await self.store.call(find)

    async def start_over(self, key: SessionKey) -> None:
        """Forget the thread's history for later turns (a 1:1 chat has one conversation for ever);
        nothing is deleted."""
        async with self._lock(key):
            await self._supersede(key)
            conversation = await self.store.call(self.store.conversation, key.platform, key.tenant, key.channel,
                                                 key.thread)
            assert conversation.id is not None
            await self.store.call(self.store.start_over, conversation.id)

    async def shown_as(self, turn: Turn, platform_id: str) -> None:
        """Record the platform message that shows a turn's answer (a failure is logged, not raised)."""
        if not turn.answer_id or not platform_id:
            return
        try:
            await self.store.call(self.store.link, turn.key.platform, platform_id, turn.answer_id)
        except DocbotError as exc:
            log.warning("could not record the message of run %s: %s", turn.run_id, exc)

    async def answer_shown_as(self, platform: str, platform_id: str) -> int | None:
        """The stored answer a platform message shows, if recorded."""
        return await self.store.call(self.store.linked, platform, platform_id)

    async def seen(self, *delivery_ids: str) -> bool:
        """Whether any of these delivery ids was stored with its question (False when the database cannot
        say: a possible duplicate answer beats silence)."""
        def any_seen() -> bool:
            return any(self.store.sighted(d) for d in delivery_ids)

        try:
            return await self.store.call(any_seen)
        except DocbotError as exc:
            log.error("duplicate-delivery check unavailable; answering anyway: %s", exc)
            self.metrics.errors.labels("storage").inc()
            return False

    async def first_delivery(self, delivery_id: str) -> bool:
        """True the first time a platform delivery id is seen (any replica). When the database cannot
        say, True: a possible duplicate answer beats silence."""
        try:
            return await self.store.call(self.store.first_sighting, delivery_id)
        except DocbotError as exc:
            log.error("duplicate-delivery check unavailable; answering anyway: %s", exc)
            self.metrics.errors.labels("storage").inc()
            return True

    async def takes_part(self, key: SessionKey) -> bool:
        """Whether docbot already has a conversation in this thread (False when the database cannot say)."""
        try:
            return await self.store.call(self.store.has_conversation, key.platform, key.tenant, key.channel,
                                           key.thread)
        except DocbotError as exc:
            log.error("cannot tell whether docbot is in thread %s: %s", key.thread, exc)
            return False

    async def shown(self, turn: Turn, text: str, status: str) -> None:
        """The platform showed only `text` of a finished turn (a failed append): what is stored is what was
        shown. The answer row is corrected (or the correction waits in the spill)."""
        turn.text, turn.status = text, status
        if not turn.answer_id:
            return
        try:
            await self.store.call(self.store.update, turn.answer_id, text=text, status=status)
        except DocbotError as exc:
            log.error("could not correct the answer of run %s: %s", turn.run_id, exc)
            self.spill.add(SpilledTurn(astuple(turn.key), turn.run_id, turn.prepared.question, turn.user_id, text,
                                       status, turn.question_id or 1, turn.answer_id))

    async def store_waiting(self) -> int:
        """Write the turns kept while the database was unavailable (the server calls this periodically)."""
        return await self.store.call(self.spill.drain, self.store) if self.spill else 0

    async def persist(self, turn: Turn) -> None:
        """Save a streaming answer's text so far (a failed save is logged; the final store still runs)."""
        try:
            await self.store.call(self.store.update, turn.answer_id, text=turn.text)
        except DocbotError as exc:
            log.warning("could not save the streaming answer of run %s: %s", turn.run_id, exc)

    async def shutdown(self, timeout: float = 3.0) -> int:
        """Stop every running answer (stored as `interrupted` with what was said); waits up to `timeout`."""
        turns = list(self._active.values())
        for turn in turns:
            turn.interrupted = True
            turn.cancelled.set()
        if turns:  # stored, and closed on the platform by the adapter that shows it (a Slack stream stopped)
            waits = [t.done.wait() for t in turns] + [t.delivered.wait() for t in turns if t.delivered is not None]
            await asyncio.wait([asyncio.create_task(w) for w in waits], timeout=timeout)
        return len(turns)

    def interrupt_stale(self, older_than: float = STALE_STREAM_SECONDS) -> int:
        """Mark answers left `streaming` by a dead process as `interrupted` (run at start-up and each minute)."""
        count = self.store.interrupt_stale(older_than)
        if count:
            log.warning("marked %d answer(s) left streaming by a stopped process as interrupted", count)
        return count

    def _lock(self, key: SessionKey) -> asyncio.Lock:
        """The thread's lock; it lives only while someone holds or waits for it."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    async def _supersede(self, key: SessionKey) -> None:
        previous = self._active.get(key)
        if previous is None:
            return
        previous.cancelled.set()
        try:
            await asyncio.wait_for(previous.done.wait(), self.supersede_wait)
        except TimeoutError:  # nobody is consuming that answer; do not wait for ever
            log.warning("run %s did not stop within %.0fs; answering the new question anyway", previous.run_id,
                        self.supersede_wait)

    async def _start(self, key: SessionKey, text: str, user_id: str, context: list[Earlier] | None = None,
                     participants: set[str] | None = None, claims: tuple[str, ...] = (),
                     marks: tuple[str, ...] = ()) -> Turn:
        self._starting += 1  # on the event loop: no lock needed; other threads only read it
        try:
            return await self._start_stored(key, text, user_id, context or [], participants or set(), claims, marks)
        except StorageError as exc:  # the database is down: still answer, with an apology, and say so in the log
            log.error("conversation database unavailable; answering without storing: %s", exc)
            self.metrics.errors.labels("storage").inc()
            prepared = Prepared(text, Rewrite(text, "none"), Route(Intent.ERROR, 0.0, reason=str(exc)),
                                canned=Text.ERROR)
            turn = Turn(self, key, uuid.uuid4().hex[:12], prepared, [], 0, time.perf_counter(), user_id)
            turn.unstored = True
            self.metrics.active_turns.inc()
            return turn
        finally:
            self._starting -= 1

    def _open(self, key: SessionKey, text: str, user_id: str, run_id: str, context: list[Earlier],
              participants: set[str], claims: tuple[str, ...] = (),
              marks: tuple[str, ...] = ()) -> tuple[int, list[Message], int, int]:
        """The conversation, its recent history (the thread's earlier messages on first contact), how many
        of those came from the thread, and the stored question (one trip to a worker thread). Everyone the
        thread showed (its earlier speakers included) is remembered as a participant. The question, the
        thread's earlier messages and the delivery ids it claims are one transaction; `_Duplicate` when
        another delivery claimed them first."""
        if self.spill:  # the database is back (or still down: then this turn fails below as well)
            self.spill.drain(self.store)
        conv = self.store.conversation(key.platform, key.tenant, key.channel, key.thread)
        assert conv.id is not None
        self.store.add_participants(conv.id, participants | {e.user_id for e in context if e.role == "user"})
        history = self.store.history(conv.id, self.history_turns, after=conv.reset_after)
        earlier: tuple[Message, ...] = ()
        if not history and context:
            earlier = tuple(Message(conversation_id=conv.id, role=e.role, text=clean_text(e.text), user_id=e.user_id,
                                    status="context", intent=e.intent, rewritten=e.rewritten, sources=list(e.sources))
                            for e in context[-self.history_turns:])
        question = self.store.add_question(Message(conversation_id=conv.id, role="user", text=text,
                                                   user_id=user_id, run_id=run_id), claims, marks, earlier)
        if question is None:
            raise _Duplicate
        if earlier:
            history = list(earlier)
        return conv.id, history, len(earlier), question.id or 0  # set: the row is stored

    def _record(self, question_id: int, prepared: Prepared, conversation_id: int, run_id: str, user_id: str,
                text: str) -> tuple[PendingAction | None, int, tuple[int, int] | None]:
        """The question's rewrite and route, a proposed action, and the (empty, streaming) answer row; and the
        pages done of an index run going on (the answer says so: what is not indexed yet was not searched)."""
        self.store.update(question_id, rewritten=prepared.rewrite.text, rewrite_method=prepared.rewrite.method,
                          intent=prepared.route.intent, confidence=prepared.route.confidence)
        action = self._propose(prepared, conversation_id, run_id, user_id, text)
        answer = self.store.add(Message(conversation_id=conversation_id, role="assistant", text="",
                                        status="streaming", run_id=run_id))
        try:
            indexing = self.store.indexing_progress() if prepared.searched else None
        except DocbotError:  # only a note on the answer
            indexing = None
        return action, answer.id or 0, indexing  # set: the row is stored

    async def _start_stored(self, key: SessionKey, text: str, user_id: str, context: list[Earlier],
                            participants: set[str], claims: tuple[str, ...] = (),
                            marks: tuple[str, ...] = ()) -> Turn:
        started = time.perf_counter()
        run_id = uuid.uuid4().hex[:12]
        SESSION_ID.set(f"{key.platform}:{key.channel}:{key.thread}")
        RUN_ID.set(run_id)
        # Storage is blocking I/O: it runs on a worker thread so one slow database never stalls other turns.
        conversation_id, messages, borrowed, question_id = await self.store.call(self._open, key, text, user_id,
                                                                                 run_id, context, participants,
                                                                                 claims, marks)
        history = to_history(messages)
        try:
            if self.limiter and not self.limiter.allow(user_id or key.channel, f"{key.platform}:{key.channel}"):
                prepared = Prepared(text, Rewrite(text, "none"), Route(Intent.RATE_LIMITED, 1.0, reason="rate limit"),
                                    canned=Text.RATE_LIMITED)
            else:
                prepared = await self.pipeline.prepare(text, history, channel=key.channel, principals=ASKER.get())
        except Exception as exc:  # expected failures and bugs alike: the question stays stored and gets an apology
            if isinstance(exc, DocbotError):
                log.warning("prepare failed in run %s: %s", run_id, exc)
            else:
                log.exception("prepare crashed in run %s", run_id)
            self.metrics.errors.labels(component(exc)).inc()
            prepared = Prepared(text, Rewrite(text, "none"), Route(Intent.ERROR, 0.0, reason=str(exc)[:300]),
                                canned=Text.ERROR)
        if borrowed:  # the trace says the history came from the platform's thread, not from docbot
            prepared.timings["thread_context"] = borrowed
        try:
            action, answer_id, indexing = await self.store.call(self._record, question_id, prepared, conversation_id,
                                                                  run_id, user_id, text)
        except StorageError as exc:  # the question is stored, the answer row is not: answered, spilled at the end
            log.error("conversation database failed mid-turn; the answer will wait in the spill: %s", exc)
            self.metrics.errors.labels("storage").inc()
            action, answer_id, indexing = None, 0, None
        turn = Turn(self, key, run_id, prepared, history, answer_id, started, user_id)
        turn.indexing = indexing
        turn.action, turn.conversation_id, turn.question_id = action, conversation_id, question_id
        turn.unstored = not answer_id
        self._active[key] = turn
        self.metrics.active_turns.inc()
        return turn

    def _propose(self, prepared: Prepared, conversation_id: int, run_id: str, user_id: str,
                 text: str) -> PendingAction | None:
        """An action route becomes a stored PendingAction and a message asking for confirmation."""
        if prepared.route.intent != Intent.ACTION or self.actions is None:
            return None
        action = self.actions.propose(conversation_id, run_id, user_id, text, prepared.route.entities)
        prepared.reply = self.actions.describe(action, text)
        return action

    async def finish(self, turn: Turn, answer_ms: float) -> None:
        """Store the answer as it ended and release the thread's active run (exactly once per turn)."""
        if turn.finishing:
            return
        turn.finishing = True  # set before the first await: a second caller (fail, then the stream) stops here
        timings: dict[str, Any] = dict(turn.prepared.timings)
        timings["answer_ms"] = round(answer_ms, 2)
        timings["total_ms"] = round((time.perf_counter() - turn._started) * 1000, 2)
        if turn.error:
            timings["error"] = turn.error
        hits = [h.citation() for h in turn.prepared.hits]
        try:
            if turn.answer_id:
                await self.store.call(self._store_answer, turn, hits, timings)
        except DocbotError as exc:
            log.error("could not store the answer of run %s; it waits in the spill: %s", turn.run_id, exc)
            self.metrics.errors.labels(component(exc)).inc()
            turn.unstored = True
        finally:  # even when the task is cancelled mid-store (the write itself completes in its thread)
            if turn.unstored:  # what was shown is stored, once the database takes it again
                self.spill.add(SpilledTurn(astuple(turn.key), turn.run_id, turn.prepared.question, turn.user_id,
                                           turn.text, turn.status, turn.question_id, turn.answer_id,
                                           {"sources": hits, "timings": timings}))
            self._release(turn, timings)

    def _release(self, turn: Turn, timings: dict) -> None:
        if turn.status == "failed":
            self.metrics.errors.labels("platform").inc()
        if self._active.get(turn.key) is turn:
            del self._active[turn.key]
        self.metrics.active_turns.dec()
        self.metrics.observe_turn(turn.prepared.route.intent, turn.status, timings)
        if turn.prepared.rewrite.method == "fallback":
            self.metrics.errors.labels("llm_rewrite").inc()
        turn.done.set()

    def _store_answer(self, turn: Turn, hits: list[dict], timings: dict) -> None:
        self.store.update(turn.answer_id, text=turn.text, status=turn.status, sources=hits, timings=timings)
        self.store.add(self._trace(turn, hits, timings))

    @staticmethod
    def _trace(turn: Turn, hits: list[dict], timings: dict) -> TurnTrace:
        """The turn's trace with secrets and personal data masked."""
        p = turn.prepared
        return TurnTrace(
            conversation_id=turn.conversation_id, run_id=turn.run_id, original=mask(p.question) or "",
            rewritten=mask(p.rewrite.text) or "", rewrite_method=p.rewrite.method, intent=p.route.intent,
            confidence=p.route.confidence, route_reason=mask(p.route.reason) or "",
            steps=[mask(s) or "" for s in p.steps], sources=[{"path": h["path"], "chunk": h["chunk"], "score": h["score"],
                                                        "cosine": h["cosine"], "keyword": h["keyword"]} for h in hits],
            timings=timings, status=turn.status,
            reading=explanation_record(p.reading, p.verdict, mask=lambda text: mask(text) or ""))

    def stop_requested_elsewhere(self, run_id: str) -> bool:
        """Whether another process asked this run to stop (a failing check never stops an answer)."""
        try:
            return self.store.stop_requested(run_id)
        except DocbotError:
            return False
