"""Conversation storage with SQLModel: SQLite by default, PostgreSQL by URL."""
from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import JSON, Column, UniqueConstraint, delete, event, or_, text, update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError, SQLAlchemyError
from sqlmodel import Field, Session, SQLModel, create_engine, select
from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_random_exponential

from rag.errors import StorageError

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R", bound=SQLModel)


def _now() -> datetime:
    return datetime.now(timezone.utc)


class Conversation(SQLModel, table=True):
    """One chat thread, identified by its SessionKey parts."""

    __table_args__ = (UniqueConstraint("platform", "tenant", "channel", "thread"),)
    id: int | None = Field(default=None, primary_key=True)
    platform: str
    tenant: str
    channel: str
    thread: str
    created_at: datetime = Field(default_factory=_now)
    # "Start over" (a 1:1 chat has one conversation id for ever): history is read after this message id.
    reset_after: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class Message(SQLModel, table=True):
    """A user question (with its rewrite and route) or an assistant answer (with sources and timings)."""

    # Ids are never reused (SQLite would reuse a deleted max id): feedback and buttons point at them.
    __table_args__ = {"sqlite_autoincrement": True}
    id: int | None = Field(default=None, primary_key=True)
    conversation_id: int = Field(foreign_key="conversation.id", index=True)
    role: str  # "user" | "assistant"
    text: str
    user_id: str = ""
    run_id: str = Field(default="", index=True)
    rewritten: str | None = None
    rewrite_method: str | None = None
    intent: str | None = None
    confidence: float | None = None
    status: str = "complete"  # streaming | complete | partial | cancelled | interrupted | failed
    sources: list[dict] = Field(default_factory=list, sa_column=Column(JSON))
    timings: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=_now)


class PendingAction(SQLModel, table=True):
    """A requested change waiting for a Confirm click; any replica can handle the click."""

    __table_args__ = {"sqlite_autoincrement": True}
    id: int | None = Field(default=None, primary_key=True)
    conversation_id: int = Field(foreign_key="conversation.id", index=True)
    run_id: str = ""
    requester: str
    action: str
    summary: str
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    status: str = Field(default="pending", index=True)  # pending|running|done|failed|cancelled|expired|superseded
    result: str = ""
    created_at: datetime = Field(default_factory=_now)
    expires_at: datetime
    decided_by: str = ""
    decided_at: datetime | None = None


class AuditEntry(SQLModel, table=True):
    """Who did what to which action, when, with what result."""

    id: int | None = Field(default=None, primary_key=True)
    action_id: int = Field(index=True)
    actor: str
    event: str  # requested|confirmed|cancelled|denied|expired|executed|failed
    detail: str = ""
    at: datetime = Field(default_factory=_now)


class TurnTrace(SQLModel, table=True):
    """One turn, as needed to find the step that went wrong; secrets and personal data masked."""

    id: int | None = Field(default=None, primary_key=True)
    conversation_id: int = Field(index=True)
    run_id: str = Field(index=True)
    original: str
    rewritten: str
    rewrite_method: str
    intent: str
    confidence: float
    route_reason: str = ""
    steps: list[str] = Field(default_factory=list, sa_column=Column(JSON))
    sources: list[dict] = Field(default_factory=list, sa_column=Column(JSON))
    timings: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    status: str = ""
    # Why a searched turn ended as it did (rag.answer.evidence.explanation_record): the question's kind, the verdict
    # and its reason, the shown lines' probabilities and main features; `docbot explain` prints it.
    reading: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=_now)


class SeenEvent(SQLModel, table=True):
    """Platform event ids already handled: a retried or duplicated delivery is answered once."""

    id: str = Field(primary_key=True)
    at: datetime = Field(default_factory=_now)


class StopRequest(SQLModel, table=True):
    """A Stop click for a run that another process is streaming; that process polls for it."""

    run_id: str = Field(primary_key=True)
    at: datetime = Field(default_factory=_now)


class Feedback(SQLModel, table=True):
    """A helpful / not helpful click on an answer; one per user and message (the last click wins)."""

    __table_args__ = (UniqueConstraint("message_id", "user_id"),)
    id: int | None = Field(default=None, primary_key=True)
    message_id: int = Field(index=True)
    user_id: str
    helpful: bool
    comment: str = Field(default="", sa_column_kwargs={"server_default": ""})  # what a native feedback form said
    at: datetime = Field(default_factory=_now)


class PlatformMessage(SQLModel, table=True):
    """Which platform message shows which stored answer (Teams' own feedback names only its message id)."""

    __table_args__ = (UniqueConstraint("platform", "platform_id"),)
    id: int | None = Field(default=None, primary_key=True)
    platform: str
    platform_id: str
    message_id: int = Field(index=True)


class Participant(SQLModel, table=True):
    """A person seen in a thread docbot takes part in (asked, spoke without addressing docbot, or was
    there before docbot was called in): "one person and docbot" is judged against all of them."""

    conversation_id: int = Field(foreign_key="conversation.id", primary_key=True)
    user_id: str = Field(primary_key=True)


class Lease(SQLModel, table=True):
    """A named lock with an expiry: the runner that holds it may index; a crashed holder's lease lapses."""

    name: str = Field(primary_key=True)
    holder: str
    expires_at: float  # epoch seconds: compares the same way in every database


class MissingSource(SQLModel, table=True):
    """A configured source found missing, and since when: withdrawn from the index after a grace period."""

    key: str = Field(primary_key=True)
    since: float  # epoch seconds


class SourceState(SQLModel, table=True):
    """Where a source's last successful sync left off (a connector's cursor), and how its last run went.

    `fingerprint` is the settings the cursor was taken under: when they change (filters, channels, the
    chunker) the cursor no longer describes the index and the next run lists the source again.
    """

    key: str = Field(primary_key=True)
    kind: str = "folder"
    cursor: str | None = None
    fingerprint: str = ""
    last_success: datetime | None = None
    last_error: str = ""
    error_at: datetime | None = None
    requests: int = 0  # calls to the service on its last successful run (a no-op run should make O(1))


class IndexRun(SQLModel, table=True):
    """One indexing run: who, why, when, what it did."""

    id: int | None = Field(default=None, primary_key=True)
    trigger: str  # cli | scheduler | action
    holder: str
    full: bool = False
    status: str = "running"  # running | done | failed | stopped | abandoned
    started_at: datetime = Field(default_factory=_now)
    finished_at: datetime | None = None
    seconds: float = 0.0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    chunks: int = 0
    errors: list[list[str]] = Field(default_factory=list, sa_column=Column(JSON))
    # Files of the run's sources finished (written, unchanged or skipped) of those listed, while it runs
    pages_done: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    pages_total: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


def make_engine(url: str):
    """An engine for the URL; SQLite gets WAL so `docbot index` and `serve` can share the file."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(conn, _record):
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")

        return engine
    return create_engine(url, pool_pre_ping=True)


MIGRATIONS = Path(__file__).parent / "migrations"
_MIGRATION_LOCK = 72_406_001  # a PostgreSQL advisory lock id: replicas starting together migrate one at a time


def migrate(engine) -> None:
    """Bring the database to the newest schema (Alembic, bot/migrations): creates a new one, adds what
    an older docbot's lacks. Idempotent; replicas starting together on PostgreSQL take turns."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _MIGRATION_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


RETRY_DEADLINE = 20.0  # seconds a storage call keeps retrying a lost connection or a locked SQLite file
_PG_TRANSIENT = ("08", "57P01", "57P02", "57P03", "40001", "40P01")  # connection lost, shut down, restarting; retry-safe
_SQLITE_TRANSIENT = ("database is locked", "database table is locked", "database schema has changed")


def transient(exc: BaseException) -> bool:
    """Whether a storage failure is worth another try: the connection died under the call (a failover,
    a restart, `pg_terminate_backend`), PostgreSQL is restarting, or SQLite is busy. A full disk, a
    constraint or a bad statement is not: retrying would only delay the caller's fallback."""
    cause = exc.__cause__ if isinstance(exc, StorageError) else exc
    if not isinstance(cause, DBAPIError):
        return False
    if cause.connection_invalidated:
        return True
    code = getattr(cause.orig, "sqlstate", None) or ""
    if code and code.startswith(_PG_TRANSIENT):
        return True
    return isinstance(cause, OperationalError) and any(m in str(cause.orig).lower() for m in _SQLITE_TRANSIENT)


def _retrying(deadline: float) -> Retrying:
    # Backoff with jitter, so replicas reconnecting after a failover do not arrive together.
    return Retrying(retry=retry_if_exception(transient), stop=stop_after_delay(deadline),
                    wait=wait_random_exponential(multiplier=0.05, max=2.0), reraise=True,
                    before_sleep=lambda state: log.warning(
                        "storage call failed (%s); retrying, attempt %d", state.outcome.exception() if state.outcome
                        else "", state.attempt_number + 1))


def _retried(method):
    """Run a storage call again, with backoff, until RETRY_DEADLINE, while it fails transiently (see
    `transient`). Only for calls that are safe to repeat: reads, updates by key, get-or-create and
    upserts; inserts go through `Store.add`, which looks for the row of an attempt whose COMMIT landed
    before repeating it."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        for attempt in _retrying(self.retry_deadline):
            with attempt:
                return method(self, *args, **kwargs)
        raise AssertionError("unreachable: tenacity reraises")  # pragma: no cover

    return wrapper


def _same_row(row: SQLModel):
    """A query for a stored row equal to `row` in every plain column (its id and JSON aside): whether an
    insert whose acknowledgement was lost did land. Rows carry their creation time to the microsecond,
    set by docbot, so two real rows never match."""
    table = type(row)
    conditions = []
    for column in table.__table__.columns:
        value = getattr(row, column.name)
        if column.primary_key and value is None or isinstance(column.type, JSON):
            continue  # the id the database assigns; JSON does not compare in PostgreSQL
        conditions.append(column.is_(None) if value is None else column == value)
    return select(table).where(*conditions).limit(1)


class Store:
    """Conversations and messages; every method is one short transaction."""

    KNOWN_THREADS = 50_000  # conversation keys remembered: "does docbot take part here?" without the database

    def __init__(self, url: str, workers: int = 8, retry_deadline: float = RETRY_DEADLINE):
        self.url, self.retry_deadline = url, retry_deadline
        # SQLite takes one writer at a time and its busy wait is not fair: under load a waiting thread can
        # lose the race for the lock until its timeout ("database is locked"). One writer per process:
        # the store's threads take turns here (FIFO enough), SQLite's busy timeout only arbitrates
        # between processes. PostgreSQL needs no such thing.
        self._writer = threading.RLock() if url.startswith("sqlite") else None
        self._known: OrderedDict[tuple[str, str, str, str], None] = OrderedDict()
        self._known_lock = threading.Lock()
        try:
            if url.startswith("sqlite:///"):
                Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
            self.engine = make_engine(url)
            migrate(self.engine)
        except SQLAlchemyError as exc:
            raise StorageError(f"cannot open the conversation database: {exc}") from exc
        # The one boundary between async code and the database: its own threads, as many as the
        # connection pool has connections, so a slow database never takes the threads CPU work
        # (embedding, classification) runs on, and never blocks the event loop.
        self._threads = ThreadPoolExecutor(workers, thread_name_prefix="docbot-store")

    async def call(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run blocking storage work (a Store method, or a function of several) on the store's threads."""
        return await asyncio.get_running_loop().run_in_executor(self._threads, functools.partial(work, *args, **kwargs))

    def _session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    @_retried
    def ping(self) -> None:
        """Raise StorageError unless the database answers."""
        with self._guard(), self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    @_retried
    def conversation(self, platform: str, tenant: str, channel: str, thread: str) -> Conversation:
        """Get or create the conversation for a session key."""
        query = select(Conversation).where(
            Conversation.platform == platform, Conversation.tenant == tenant,
            Conversation.channel == channel, Conversation.thread == thread,
        )
        with self._guard(), self._session() as session:
            found = session.exec(query).first()
            if found:
                return self._remember(found)
            conv = Conversation(platform=platform, tenant=tenant, channel=channel, thread=thread)
            session.add(conv)
            try:
                session.commit()
            except IntegrityError:  # another replica created it first
                session.rollback()
                return self._remember(session.exec(query).one())
            return self._remember(conv)

    def _remember(self, conversation: Conversation) -> Conversation:
        """Note that docbot takes part in this thread (conversations are never deleted), bounded."""
        key = (conversation.platform, conversation.tenant, conversation.channel, conversation.thread)
        with self._known_lock:
            self._known[key] = None
            self._known.move_to_end(key)
            while len(self._known) > self.KNOWN_THREADS:
                self._known.popitem(last=False)
        return conversation

    @_retried
    def history(self, conversation_id: int, limit: int, after: int = 0) -> list[Message]:
        """The last `limit` messages (with ids above `after`: since the conversation was started over),
        oldest first."""
        query = (select(Message).where(Message.conversation_id == conversation_id, Message.id > after)
                 .order_by(Message.id.desc()).limit(limit))
        with self._guard(), self._session() as session:
            return list(reversed(session.exec(query).all()))

    def add(self, row: R) -> R:
        """Insert a row (a message, trace, action...) and return it with its id. Retried like every call,
        idempotently: before repeating, an attempt whose COMMIT landed but whose acknowledgement was lost
        (the connection died just then) is found and returned instead of inserted twice."""
        fields = row.model_dump(exclude={"id"})
        for attempt in _retrying(self.retry_deadline):
            with attempt:
                first = attempt.retry_state.attempt_number == 1
                candidate = row if first else type(row).model_validate(fields)
                with self._guard(), self._session() as session:
                    if not first and (landed := session.exec(_same_row(candidate)).first()) is not None:
                        log.warning("a retried insert had landed before its connection died; not inserted twice")
                        return landed
                    session.add(candidate)
                    session.commit()
                    return candidate
        raise AssertionError("unreachable: tenacity reraises")  # pragma: no cover

    def add_question(self, question: Message, claims: tuple[str, ...] = (), marks: tuple[str, ...] = (),
                     before: tuple[Message, ...] = ()) -> Message | None:
        """Store a question together with the delivery ids it claims, in one transaction: a process killed
        before it leaves neither (the platform's retry is answered), after it both (a redelivery is a
        duplicate). None when another delivery already claimed one of `claims`; `marks` are remembered if
        absent (never a conflict); `before` rows (a thread's earlier messages) go in first. Retried like
        `add`: a retry finds a question whose COMMIT landed instead of storing it twice."""
        rows = [*before, question]
        fields = [row.model_dump(exclude={"id"}) for row in rows]
        for attempt in _retrying(self.retry_deadline):
            with attempt:
                first = attempt.retry_state.attempt_number == 1
                candidates = rows if first else [Message.model_validate(f) for f in fields]
                for _race in range(2):  # a mark another replica wrote at the same moment: look again, once
                    with self._guard(), self._session() as session:
                        if not first and (landed := session.exec(_same_row(candidates[-1])).first()) is not None:
                            log.warning("a retried question had landed before its connection died; not stored twice")
                            return landed
                        wanted = list(dict.fromkeys([*claims, *marks]))
                        taken = set(session.exec(select(SeenEvent.id).where(SeenEvent.id.in_(wanted))).all()) \
                            if wanted else set()
                        if taken & set(claims):
                            return None
                        session.add_all([SeenEvent(id=i) for i in wanted if i not in taken])
                        session.add_all(candidates)
                        try:
                            session.commit()
                            return candidates[-1]
                        except IntegrityError:  # a claim or mark written by a concurrent delivery
                            session.rollback()
                            candidates = [Message.model_validate(f) for f in fields]
                return None  # raced twice on the same ids: another delivery of this message has them
        raise AssertionError("unreachable: tenacity reraises")  # pragma: no cover

    @_retried
    def sighted(self, event_id: str) -> bool:
        """Whether a delivery id was recorded (read only; `add_question` records it with its question)."""
        with self._guard(), self._session() as session:
            return session.get(SeenEvent, event_id) is not None

    @_retried
    def update(self, message_id: int, **fields: Any) -> None:
        """Change fields of a stored message."""
        with self._guard(), self._session() as session:
            message = session.get(Message, message_id)
            if message is None:
                return
            for name, value in fields.items():
                setattr(message, name, value)
            session.add(message)
            session.commit()

    @_retried
    def interrupt_stale(self, older_than: float) -> int:
        """Answers still `streaming` that started more than `older_than` seconds ago become `interrupted`."""
        cutoff = _now() - timedelta(seconds=older_than)
        with self._guard(), self._session() as session:
            result = session.execute(update(Message).where(Message.status == "streaming",
                                                           Message.created_at < cutoff)
                                     .values(status="interrupted"))
            session.commit()
            return result.rowcount

    def transition(self, action_id: int, from_status: str, **fields: Any) -> bool:
        """Compare-and-set on an action's status: True for exactly one caller, however many race."""
        with self._guard(), self._session() as session:
            result = session.execute(
                update(PendingAction).where(PendingAction.id == action_id, PendingAction.status == from_status)
                .values(**fields)
            )
            session.commit()
            return result.rowcount == 1

    @_retried
    def get_action(self, action_id: int) -> PendingAction | None:
        """One pending action by id."""
        with self._guard(), self._session() as session:
            return session.get(PendingAction, action_id)

    @_retried
    def count_actions(self, statuses: set[str]) -> int:
        """How many actions are in any of the given statuses."""
        with self._guard(), self._session() as session:
            return len(session.exec(select(PendingAction.id).where(PendingAction.status.in_(statuses))).all())

    def audit(self, action_id: int, actor: str, event: str, detail: str = "") -> None:
        """Append to the audit log."""
        self.add(AuditEntry(action_id=action_id, actor=actor, event=event, detail=detail[:2000]))

    @_retried
    def audit_log(self, action_id: int) -> list[AuditEntry]:
        """An action's audit entries, oldest first."""
        with self._guard(), self._session() as session:
            return list(session.exec(select(AuditEntry).where(AuditEntry.action_id == action_id)
                                     .order_by(AuditEntry.id)).all())

    @_retried
    def recent_traces(self, limit: int = 1) -> list[TurnTrace]:
        """The latest turn traces of any conversation, newest first (`docbot explain`)."""
        with self._guard(), self._session() as session:
            return list(session.exec(select(TurnTrace).order_by(TurnTrace.id.desc()).limit(limit)).all())

    def traces(self, conversation_id: int) -> list[TurnTrace]:
        """A conversation's turn traces, oldest first."""
        with self._guard(), self._session() as session:
            return list(session.exec(select(TurnTrace).where(TurnTrace.conversation_id == conversation_id)
                                     .order_by(TurnTrace.id)).all())

    def first_sighting(self, event_id: str) -> bool:
        """True the first time an event id is seen, False for every redelivery (any replica). Retried on a
        lost connection: a row found then is this call's own when it carries this call's timestamp."""
        seen = SeenEvent(id=event_id)
        for attempt in _retrying(self.retry_deadline):
            with attempt, self._guard(), self._session() as session:
                try:
                    session.add(SeenEvent(id=seen.id, at=seen.at))
                    session.commit()
                    return True
                except IntegrityError:
                    session.rollback()
                    if attempt.retry_state.attempt_number == 1:
                        return False
                    return session.exec(_same_row(seen)).first() is not None
        raise AssertionError("unreachable: tenacity reraises")  # pragma: no cover

    @_retried
    def request_stop(self, run_id: str) -> None:
        """Ask whichever process runs `run_id` to stop it."""
        with self._guard(), self._session() as session:
            if session.get(StopRequest, run_id) is None:
                session.add(StopRequest(run_id=run_id))
                try:
                    session.commit()
                except IntegrityError:  # clicked twice at once
                    session.rollback()

    @_retried
    def stop_requested(self, run_id: str) -> bool:
        """Whether a Stop was clicked for this run on any process."""
        with self._guard(), self._session() as session:
            return session.get(StopRequest, run_id) is not None

    @_retried
    def set_feedback(self, message_id: int, user_id: str, helpful: bool, comment: str = "") -> None:
        """Record or change a user's feedback on an answer."""
        with self._guard(), self._session() as session:
            found = session.exec(select(Feedback).where(Feedback.message_id == message_id,
                                                        Feedback.user_id == user_id)).first()
            row = found or Feedback(message_id=message_id, user_id=user_id, helpful=helpful)
            row.helpful, row.at = helpful, _now()
            row.comment = comment or (row.comment if found else "")
            session.add(row)
            session.commit()

    @_retried
    def feedback(self, message_id: int) -> list[Feedback]:
        """Feedback rows of one answer."""
        with self._guard(), self._session() as session:
            return list(session.exec(select(Feedback).where(Feedback.message_id == message_id)).all())

    @_retried
    def find_conversation(self, platform: str, tenant: str, channel: str, thread: str) -> Conversation | None:
        """The conversation for a session key, if docbot has one there (never creates it)."""
        with self._guard(), self._session() as session:
            return session.exec(select(Conversation).where(
                Conversation.platform == platform, Conversation.tenant == tenant,
                Conversation.channel == channel, Conversation.thread == thread)).first()

    @_retried
    def recent_in_channel(self, platform: str, tenant: str, channel: str, other_than: str, since: datetime,
                          limit: int) -> list[Message]:
        """The newest messages of a channel's other threads written after `since` (and after the channel was
        last started over), oldest first."""
        with self._guard(), self._session() as session:
            started_over = session.exec(select(Conversation.reset_after).where(
                Conversation.platform == platform, Conversation.tenant == tenant, Conversation.channel == channel)
                .order_by(Conversation.reset_after.desc())).first() or 0
            rows = session.exec(select(Message).join(Conversation, Conversation.id == Message.conversation_id)
                                .where(Conversation.platform == platform, Conversation.tenant == tenant,
                                       Conversation.channel == channel, Conversation.thread != other_than,
                                       Message.created_at >= since, Message.text != "",
                                       Message.id > started_over)
                                .order_by(Message.id.desc()).limit(limit)).all()
            return list(reversed(rows))

    @_retried
    def add_participants(self, conversation_id: int, users: set[str]) -> None:
        """Remember people seen in a conversation (idempotent)."""
        users = {u for u in users if u}
        if not users:
            return
        with self._guard(), self._session() as session:
            known = set(session.exec(select(Participant.user_id).where(
                Participant.conversation_id == conversation_id, Participant.user_id.in_(users))).all())
            for user in users - known:
                session.add(Participant(conversation_id=conversation_id, user_id=user))
            try:
                session.commit()
            except IntegrityError:  # another replica recorded the same person at once
                session.rollback()

    @_retried
    def participants(self, conversation_id: int) -> set[str]:
        """Everyone seen in a conversation: recorded participants, askers and the thread's earlier speakers."""
        with self._guard(), self._session() as session:
            seen = set(session.exec(select(Participant.user_id).where(
                Participant.conversation_id == conversation_id)).all())
            spoke = session.exec(select(Message.user_id).where(Message.conversation_id == conversation_id,
                                                               Message.role == "user").distinct()).all()
            return {u for u in seen | set(spoke) if u}

    @_retried
    def forget_sighting(self, event_id: str) -> None:
        """Forget one delivery id (its message could not be stored: the platform's retry must be answered)."""
        with self._guard(), self._session() as session:
            session.execute(delete(SeenEvent).where(SeenEvent.id == event_id))
            session.commit()

    @_retried
    def forget_sightings(self, older_than: float) -> int:
        """Delivery ids seen more than `older_than` seconds ago are dropped (platforms redeliver for minutes,
        not days), so the table does not grow for ever."""
        with self._guard(), self._session() as session:
            result = session.execute(delete(SeenEvent).where(SeenEvent.at < _now() - timedelta(seconds=older_than)))
            session.commit()
            return result.rowcount

    def has_conversation(self, platform: str, tenant: str, channel: str, thread: str) -> bool:
        """Whether docbot already takes part in this thread. A thread this process has seen docbot in is
        answered from memory: a busy or failing database does not make docbot ignore its own thread."""
        with self._known_lock:
            if (platform, tenant, channel, thread) in self._known:
                return True
        found = self.find_conversation(platform, tenant, channel, thread)
        return found is not None and self._remember(found) is not None

    @_retried
    def get_message(self, message_id: int) -> Message | None:
        """One stored message by id."""
        with self._guard(), self._session() as session:
            return session.get(Message, message_id)

    @_retried
    def question_of_run(self, run_id: str) -> Message | None:
        """The user message that started a run."""
        with self._guard(), self._session() as session:
            return session.exec(select(Message).where(Message.run_id == run_id, Message.role == "user")
                                .order_by(Message.id.desc())).first()

    @_retried
    def last_question(self, conversation_id: int) -> Message | None:
        """The newest user message of a conversation."""
        with self._guard(), self._session() as session:
            return session.exec(select(Message).where(Message.conversation_id == conversation_id,
                                                      Message.role == "user")
                                .order_by(Message.id.desc())).first()

    @_retried
    def start_over(self, conversation_id: int) -> None:
        """Later turns read no history from before now."""
        with self._guard(), self._session() as session:
            # The newest message anywhere: the conversation's history starts after it, and so does the borrowed
            # history of a direct-message channel whose messages each open a thread of their own.
            newest = session.exec(select(Message.id).order_by(Message.id.desc())).first()
            session.execute(update(Conversation).where(Conversation.id == conversation_id)
                            .values(reset_after=newest or 0))
            session.commit()

    @_retried
    def link(self, platform: str, platform_id: str, message_id: int) -> None:
        """Remember that a platform message shows a stored answer (idempotent)."""
        with self._guard(), self._session() as session:
            session.add(PlatformMessage(platform=platform, platform_id=platform_id, message_id=message_id))
            try:
                session.commit()
            except IntegrityError:
                session.rollback()

    @_retried
    def linked(self, platform: str, platform_id: str) -> int | None:
        """The stored answer a platform message shows, if known."""
        with self._guard(), self._session() as session:
            return session.exec(select(PlatformMessage.message_id).where(
                PlatformMessage.platform == platform, PlatformMessage.platform_id == platform_id)).first()

    @_retried
    def supersede_actions(self, run_id: str) -> int:
        """Pending actions proposed by a run become `superseded` (its question is being asked again)."""
        with self._guard(), self._session() as session:
            result = session.execute(update(PendingAction).where(PendingAction.run_id == run_id,
                                                                 PendingAction.status == "pending")
                                     .values(status="superseded", decided_at=_now()))
            session.commit()
            return result.rowcount

    def acquire_lease(self, name: str, holder: str, ttl: float) -> bool:
        """Take the lease if it is free, lapsed, or already ours; False if another holder has it."""
        now = time.time()
        with self._guard(), self._session() as session:
            try:
                session.add(Lease(name=name, holder=holder, expires_at=now + ttl))
                session.commit()
                return True
            except IntegrityError:
                session.rollback()
            taken = session.execute(
                update(Lease).where(Lease.name == name, or_(Lease.expires_at < now, Lease.holder == holder))
                .values(holder=holder, expires_at=now + ttl))
            session.commit()
            return taken.rowcount == 1

    @_retried
    def renew_lease(self, name: str, holder: str, ttl: float) -> bool:
        """Extend our lease; False if it lapsed and someone else took it."""
        with self._guard(), self._session() as session:
            renewed = session.execute(update(Lease).where(Lease.name == name, Lease.holder == holder)
                                      .values(expires_at=time.time() + ttl))
            session.commit()
            return renewed.rowcount == 1

    @_retried
    def release_lease(self, name: str, holder: str) -> None:
        """Give the lease up (only if we hold it)."""
        with self._guard(), self._session() as session:
            session.execute(delete(Lease).where(Lease.name == name, Lease.holder == holder))
            session.commit()

    @_retried
    def lease(self, name: str) -> Lease | None:
        """The lease row, if any."""
        with self._guard(), self._session() as session:
            return session.get(Lease, name)

    @_retried
    def missing_since(self, key: str) -> float:
        """When a source was first found missing (recorded now if this is the first time)."""
        with self._guard(), self._session() as session:
            row = session.get(MissingSource, key)
            if row is None:
                row = MissingSource(key=key, since=time.time())
                session.add(row)
                try:
                    session.commit()
                except IntegrityError:  # another runner recorded it first
                    session.rollback()
                    row = session.get(MissingSource, key)
            return row.since

    @_retried
    def source_found(self, key: str) -> None:
        """A source is present (again): forget that it was missing."""
        with self._guard(), self._session() as session:
            session.execute(delete(MissingSource).where(MissingSource.key == key))
            session.commit()

    @_retried
    def source_state(self, key: str) -> SourceState | None:
        """A source's stored cursor and last outcome, if it ever ran."""
        with self._guard(), self._session() as session:
            return session.get(SourceState, key)

    @_retried
    def source_states(self) -> dict[str, SourceState]:
        """Every source's stored state, by key."""
        with self._guard(), self._session() as session:
            return {row.key: row for row in session.exec(select(SourceState)).all()}

    @_retried
    def source_synced(self, key: str, kind: str, cursor: str | None, fingerprint: str, requests: int) -> None:
        """A source's run succeeded: store its new cursor and clear its error (an upsert by key)."""
        self._put_source(key, kind=kind, cursor=cursor, fingerprint=fingerprint, requests=requests,
                         last_success=_now(), last_error="", error_at=None)

    @_retried
    def source_failed(self, key: str, kind: str, error: str) -> None:
        """A source's run failed: record why; its cursor stays where the last success left it."""
        self._put_source(key, kind=kind, last_error=error[:1000], error_at=_now())

    def _put_source(self, key: str, **fields: Any) -> None:
        with self._guard(), self._session() as session:
            row = session.get(SourceState, key) or SourceState(key=key)
            for name, value in fields.items():
                setattr(row, name, value)
            session.add(row)
            try:
                session.commit()
            except IntegrityError:  # another runner created it first (only the lease holder writes; defensive)
                session.rollback()
                session.execute(update(SourceState).where(SourceState.key == key).values(**fields))
                session.commit()

    def abandon_runs(self) -> int:
        """Mark runs left `running` by a crashed runner as abandoned (call while holding the lease)."""
        with self._guard(), self._session() as session:
            result = session.execute(update(IndexRun).where(IndexRun.status == "running")
                                     .values(status="abandoned", finished_at=_now()))
            session.commit()
            return result.rowcount

    @_retried
    def runs(self, limit: int = 10) -> list[IndexRun]:
        """The latest index runs, newest first."""
        with self._guard(), self._session() as session:
            return list(session.exec(select(IndexRun).order_by(IndexRun.id.desc()).limit(limit)).all())

    @_retried
    def indexing_progress(self) -> tuple[int, int] | None:
        """(pages done, pages listed) of the index run going on now, if any: the newest `running` run whose
        holder still holds a lease (a crashed run's row says `running` until the next run abandons it)."""
        with self._guard(), self._session() as session:
            run = session.exec(select(IndexRun).where(IndexRun.status == "running")
                               .order_by(IndexRun.id.desc()).limit(1)).first()
            if run is None or not run.pages_total:
                return None
            live = session.exec(select(Lease).where(Lease.holder == run.holder,
                                                    Lease.expires_at > time.time()).limit(1)).first()
            return (run.pages_done, run.pages_total) if live is not None else None

    @_retried
    def get_run(self, run_id: int) -> IndexRun | None:
        """One index run."""
        with self._guard(), self._session() as session:
            return session.get(IndexRun, run_id)

    @_retried
    def update_run(self, run_id: int, **fields: Any) -> None:
        """Change fields of an index run."""
        with self._guard(), self._session() as session:
            session.execute(update(IndexRun).where(IndexRun.id == run_id).values(**fields))
            session.commit()

    def drop_last_exchange(self, conversation_id: int) -> Message | None:
        """Delete the last question and whatever answered it; returns the question, or None.

        Roles are checked from the end: an interrupted run may have left a question with no answer.
        """
        with self._guard(), self._session() as session:
            rows = session.exec(select(Message).where(Message.conversation_id == conversation_id)
                                .order_by(Message.id.desc()).limit(20)).all()
            question = next((m for m in rows if m.role == "user"), None)
            if question is None:
                return None
            for message in rows:
                if message.id >= question.id:
                    session.delete(message)
            session.commit()
            return question

    def _guard(self):
        return _Guard(self._writer)


class _Guard:
    """One storage call: holds the SQLite writer turn (if any) and turns SQLAlchemy failures into
    StorageError, the one type callers handle."""

    def __init__(self, writer: threading.RLock | None = None):
        self._writer = writer if writer is not None else nullcontext()

    def __enter__(self):
        self._writer.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._writer.__exit__(exc_type, exc, tb)
        if exc_type and issubclass(exc_type, SQLAlchemyError):
            raise StorageError(f"conversation database error: {exc}") from exc
        return False
