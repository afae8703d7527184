"""Turns the database could not take (a full disk, an outage), kept in memory and written once it recovers.

Bounded: past `limit` waiting turns the oldest is dropped, logged and counted, so an outage that never
ends cannot take the process's memory with it. A process that dies while turns wait loses them (the
log and `docbot_spilled_turns` said how many were waiting).
"""
from __future__ import annotations

import logging
import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from rag.errors import DocbotError

from .observability import Metrics
from .storage import Message, Store

log = logging.getLogger(__name__)

SPILL_LIMIT = 1000  # turns kept while the database is unavailable


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class SpilledTurn:
    """One turn as it should have been stored: the question (unless it was stored already) and the answer
    (new, or an update of a stored answer row)."""

    key: tuple[str, str, str, str]  # platform, tenant, channel, thread
    run_id: str
    question: str
    user_id: str
    answer: str
    status: str
    question_id: int = 0  # set once the question is stored (before the turn failed, or by an earlier drain)
    answer_id: int = 0  # the stored answer row to update, when there is one
    answer_fields: dict[str, Any] = field(default_factory=dict)  # sources, timings of the answer
    asked_at: datetime = field(default_factory=_now)
    answered_at: datetime = field(default_factory=_now)


class Spill:
    """The waiting turns; `drain` (blocking, on the store's threads) writes them in order."""

    def __init__(self, metrics: Metrics, limit: int = SPILL_LIMIT):
        self.metrics, self.limit = metrics, limit
        self._turns: deque[SpilledTurn] = deque()
        self._lock = threading.Lock()
        self._draining = threading.Lock()

    def __len__(self) -> int:
        return len(self._turns)

    def add(self, turn: SpilledTurn) -> None:
        """Keep a turn until the database takes it."""
        with self._lock:
            self._turns.append(turn)
            while len(self._turns) > self.limit:
                dropped = self._turns.popleft()
                self.metrics.spill_dropped.inc()
                log.error("spill full (%d turns): dropped the oldest waiting turn, run %s", self.limit,
                          dropped.run_id)
            waiting = len(self._turns)
        self.metrics.spilled.set(waiting)
        log.warning("conversation database unavailable: %d turn(s) waiting to be stored", waiting)

    def drain(self, store: Store) -> int:
        """Write the waiting turns, oldest first, until one fails (the database is still down); returns how
        many were written. One drain at a time."""
        if not self._turns or not self._draining.acquire(blocking=False):
            return 0
        written = 0
        try:
            while self._turns:
                turn = self._turns[0]
                try:
                    self._write(store, turn)
                except DocbotError as exc:
                    log.warning("still cannot store %d waiting turn(s): %s", len(self._turns), exc)
                    break
                with self._lock:
                    if self._turns and self._turns[0] is turn:
                        self._turns.popleft()
                written += 1
        finally:
            self._draining.release()
            self.metrics.spilled.set(len(self._turns))
        if written:
            log.info("stored %d turn(s) kept while the database was unavailable; %d still waiting", written,
                     len(self._turns))
        return written

    @staticmethod
    def _write(store: Store, turn: SpilledTurn) -> None:
        conversation = store.conversation(*turn.key)
        assert conversation.id is not None
        if not turn.question_id:
            question = store.add(Message(conversation_id=conversation.id, role="user", text=turn.question,
                                         user_id=turn.user_id, run_id=turn.run_id, created_at=turn.asked_at))
            turn.question_id = question.id or 0
        if turn.answer_id:
            store.update(turn.answer_id, text=turn.answer, status=turn.status, **turn.answer_fields)
        else:
            answer = store.add(Message(conversation_id=conversation.id, role="assistant", text=turn.answer,
                                       status=turn.status, run_id=turn.run_id, created_at=turn.answered_at,
                                       **turn.answer_fields))
            turn.answer_id = answer.id or 0
